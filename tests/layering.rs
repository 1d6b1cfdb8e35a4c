//! Dependencies run one way through the pipeline (scene → assets → world → accel →
//! integrator → film → plates): a stage never names a stage after it. This reads the sources
//! and fails on a `crate::` path that points backwards, so a back-import cannot creep in.

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("cannot read {}", dir.display());
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// The module's files: `src/<name>.rs` or everything under `src/<name>/`.
fn module_files(name: &str) -> Vec<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let dir = src.join(name);
    if dir.is_dir() {
        sources(&dir)
    } else {
        vec![src.join(format!("{name}.rs"))]
    }
}

/// Every module of the crate.
const MODULES: &[&str] = &[
    "accel",
    "assets",
    "bake",
    "camera",
    "color",
    "film",
    "geometry",
    "integrator",
    "lights",
    "materials",
    "plates",
    "report",
    "sampling",
    "scene",
    "world",
];

/// (module, the modules it may name): everything else it must not.
const RULES: &[(&str, &[&str])] = &[
    ("color", &[]),
    ("geometry", &[]),
    ("sampling", &[]),
    ("scene", &["geometry"]),
    ("assets", &[]),
    ("accel", &["geometry"]),
    ("materials", &["color", "geometry", "sampling"]),
    ("camera", &["geometry", "sampling", "scene"]),
    (
        "lights",
        &["assets", "color", "geometry", "sampling", "scene"],
    ),
    (
        "world",
        &[
            "accel",
            "assets",
            "camera",
            "color",
            "geometry",
            "lights",
            "materials",
            "sampling",
            "scene",
        ],
    ),
    ("film", &["color", "geometry"]),
    (
        "integrator",
        &[
            "accel",
            "camera",
            "color",
            "film",
            "geometry",
            "lights",
            "materials",
            "sampling",
            "world",
        ],
    ),
    ("plates", &["color", "film", "geometry", "scene"]),
];

/// The modules `module` must not name.
fn banned(module: &str, allowed: &[&str]) -> Vec<&'static str> {
    MODULES
        .iter()
        .copied()
        .filter(|m| *m != module && !allowed.contains(m))
        .collect()
}

/// The lines of `text` (a file of `module`) that name one of `banned`.
fn back_imports(module: &str, banned: &[&str], file: &str, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for b in banned {
            let named = [
                format!("crate::{b}::"),
                format!("crate::{b};"),
                format!("crate::{b},"),
                format!("crate::{b}}}"),
            ];
            if named.iter().any(|p| line.contains(p.as_str())) {
                found.push(format!(
                    "{file}:{}: {module} names {b}: {}",
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    found
}

#[test]
fn no_stage_names_a_later_one() {
    let mut found = Vec::new();
    for (module, allowed) in RULES {
        let banned = banned(module, allowed);
        let files = module_files(module);
        assert!(!files.is_empty(), "no sources for {module}");
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            found.extend(back_imports(
                module,
                &banned,
                &f.display().to_string(),
                &text,
            ));
        }
    }
    assert!(found.is_empty(), "back-imports:\n{}", found.join("\n"));
}

#[test]
fn the_rule_sees_a_back_import() {
    // The film used to import the integrator and the world; the check must catch both forms.
    let film = banned("film", RULES.iter().find(|(m, _)| *m == "film").unwrap().1);
    let text = "use crate::integrator::{Counters, Settings};\nuse crate::world;\nuse glam::Vec3;\n";
    let found = back_imports("film", &film, "film/mod.rs", text);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("film/mod.rs:1: film names integrator"));
}
