//! The diagnostics corpus: for every code of the spec's table, a small invalid project under
//! `tests/data/diagnostics/<code>/` that `bake check --format json` refuses with exactly the
//! findings its `expect.json` lists (file, line, column, end, severity, code, key, related, and a
//! fragment of the message), and nothing else. The codes whose projects are too big or too odd to
//! commit (a 65-deep chain, a dangling link) are generated here into a tempdir.
//!
//! An `expect.json` entry compares only the fields it holds (every fixture holds them all but
//! the message, of which it holds a fragment, `message_contains`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value};

/// Every code of the spec's table ("Checking"), in its order.
const CODES: [&str; 29] = [
    "syntax",
    "unreadable",
    "not-utf8",
    "unknown-key",
    "missing-key",
    "bad-type",
    "bad-value",
    "bad-id",
    "missing-id",
    "duplicate-id",
    "bad-name",
    "duplicate-name",
    "bad-reference",
    "ambiguous-reference",
    "bad-path",
    "outside-root",
    "missing-file",
    "path-case",
    "include-cycle",
    "prefab-cycle",
    "include-depth",
    "prefab-depth",
    "parent-cycle",
    "held-twice",
    "bad-override",
    "placement-key",
    "old-format",
    "newer-format",
    "migration",
];

/// The codes whose project this file generates instead of committing it.
const GENERATED: [&str; 3] = ["unreadable", "include-depth", "prefab-depth"];

const PROJECT: &str = "format = 1\n\n[project]\nname = \"diag\"\n";

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/diagnostics")
}

/// `bake check DIR --format json`, one JSON object per line of stdout.
fn check_json(dir: &Path) -> Vec<Map<String, Value>> {
    let out = Command::new(env!("CARGO_BIN_EXE_bake"))
        .args([
            "check",
            dir.to_str().expect("utf-8 path"),
            "--format",
            "json",
        ])
        .output()
        .expect("bake runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let found: Vec<Map<String, Value>> = stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str(l) {
            Ok(Value::Object(m)) => m,
            other => panic!("stdout line is not a JSON object: {l:?} ({other:?})"),
        })
        .collect();
    let errors = found.iter().any(|d| d["severity"] == "Error");
    assert_eq!(
        out.status.code(),
        Some(if errors { 1 } else { 0 }),
        "{}: exit status with errors = {errors}\n{stdout}",
        dir.display()
    );
    found
}

/// Why `found` differs from `want` (each wanted field equal, `message_contains` a substring
/// of the message, the same number of findings in the same order), or `None`.
fn mismatch(found: &[Map<String, Value>], want: &[Value]) -> Option<String> {
    let show = |ds: &[Map<String, Value>]| {
        ds.iter()
            .map(|d| format!("    {}", Value::Object(d.clone())))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if found.len() != want.len() {
        return Some(format!(
            "expected {} findings, found {}:\n{}",
            want.len(),
            found.len(),
            show(found)
        ));
    }
    for (i, (f, w)) in found.iter().zip(want).enumerate() {
        let Value::Object(w) = w else {
            return Some(format!("expectation {i} is not an object"));
        };
        for (k, v) in w {
            let ok = match k.as_str() {
                "message_contains" => f
                    .get("message")
                    .and_then(Value::as_str)
                    .zip(v.as_str())
                    .is_some_and(|(m, part)| m.contains(part)),
                _ => f.get(k) == Some(v),
            };
            if !ok {
                return Some(format!(
                    "finding {i}: `{k}` expected {v}, found {}\n  all found:\n{}",
                    f.get(if k == "message_contains" {
                        "message"
                    } else {
                        k
                    })
                    .unwrap_or(&Value::Null),
                    show(found)
                ));
            }
        }
    }
    None
}

fn read_expect(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("can't read {}: {e}", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Array(a)) => a,
        other => panic!("{} is not a JSON array: {other:?}", path.display()),
    }
}

#[test]
fn every_code_has_a_project() {
    let mut missing = Vec::new();
    for code in CODES {
        let dir = corpus().join(code);
        if GENERATED.contains(&code) {
            assert!(!dir.exists(), "{code} is generated here, not committed");
        } else if !dir.join("expect.json").is_file() || !dir.join("project.toml").is_file() {
            missing.push(code);
        }
    }
    assert!(missing.is_empty(), "codes without a fixture: {missing:?}");
    // And nothing else lives there: every folder is one code's.
    for e in std::fs::read_dir(corpus()).expect("corpus folder") {
        let name = e.expect("entry").file_name().to_string_lossy().into_owned();
        assert!(
            CODES.contains(&name.as_str()) || name == "valid" || name == "README.md",
            "tests/data/diagnostics/{name} is no code of the spec's table"
        );
    }
}

#[test]
fn each_invalid_project_gives_exactly_its_finding() {
    let mut failures = Vec::new();
    for code in CODES {
        let dir = corpus().join(code);
        if GENERATED.contains(&code) {
            continue;
        }
        let found = check_json(&dir);
        // The code named by the folder is among what is found: a fixture proves its own code.
        let Some(why) = mismatch(&found, &read_expect(&dir.join("expect.json"))) else {
            assert!(
                found.iter().any(|d| d["code"] == code),
                "{code}: its expect.json does not name {code}"
            );
            continue;
        };
        failures.push(format!("{code} ({}):\n  {why}", dir.display()));
    }
    assert!(
        failures.is_empty(),
        "{} fixtures differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The spec-sentence corpus: one project per sentence of the spec's references, prefabs,
/// proxies, sprite events and migration, answered with exactly its `expect.json`.
fn spec_cases() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/spec");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("tests/data/spec")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

#[test]
fn each_spec_sentence_holds() {
    let cases = spec_cases();
    assert!(cases.len() >= 20, "only {} spec cases", cases.len());
    let mut failures = Vec::new();
    for dir in &cases {
        let sentence = std::fs::read_to_string(dir.join("sentence.txt"))
            .unwrap_or_else(|e| panic!("{}: sentence.txt: {e}", dir.display()));
        let mut lines = sentence.lines();
        let (section, quoted) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
        assert!(
            !section.is_empty() && quoted.len() > 20,
            "{}: sentence.txt names no section and sentence",
            dir.display()
        );
        let found = check_json(dir);
        if let Some(why) = mismatch(&found, &read_expect(&dir.join("expect.json"))) {
            failures.push(format!("{} ({section}: {quoted}):\n  {why}", dir.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} spec cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn write(root: &Path, rel: &str, body: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a file has a folder")).expect("mkdir");
    std::fs::write(p, body).expect("write");
}

/// A chain `room.scene.toml → c/1 → … → c/N` of includes or placements, each link written on
/// line 2 (an include) or line 6 (a placement's `prefab`), column 10 or 12.
fn chain(root: &Path, n: usize, prefab: bool) {
    write(root, "project.toml", PROJECT);
    let ext = if prefab { "prefab" } else { "scene" };
    let body = |next: usize, id: usize| {
        if prefab {
            format!(
                "format = 1\n\n[[object]]\nid = \"p{id:09}\"\nname = \"next\"\nprefab = \"c/{next}.prefab.toml\"\n"
            )
        } else {
            format!("format = 1\ninclude = [\"c/{next}.scene.toml\"]\n")
        }
    };
    write(root, "room.scene.toml", &body(1, 0));
    for k in 1..=n {
        let text = if k == n {
            "format = 1\n".to_string()
        } else {
            body(k + 1, k)
        };
        write(root, &format!("c/{k}.{ext}.toml"), &text);
    }
}

/// The include or `prefab` value that links file `k` of the chain to the next.
fn link(k: usize, prefab: bool) -> Value {
    let file = if k == 0 {
        "room.scene.toml".to_string()
    } else if prefab {
        format!("c/{k}.prefab.toml")
    } else {
        format!("c/{k}.scene.toml")
    };
    let (line, column) = if prefab { (6, 10) } else { (2, 12) };
    serde_json::json!({ "file": file, "line": line, "column": column })
}

fn depth_case(prefab: bool) {
    let code = if prefab {
        "prefab-depth"
    } else {
        "include-depth"
    };
    // 64 deep is read; a 65th link is refused at the 64th file's link, the whole chain related.
    let dir = tempfile::tempdir().expect("tempdir");
    chain(dir.path(), 64, prefab);
    let found = check_json(dir.path());
    assert!(found.is_empty(), "{code}: 64 deep is allowed: {found:#?}");

    let dir = tempfile::tempdir().expect("tempdir");
    chain(dir.path(), 65, prefab);
    let found = check_json(dir.path());
    let at = link(64, prefab);
    let ext = if prefab { "prefab" } else { "scene" };
    let next = format!("c/65.{ext}.toml");
    let width = next.chars().count() as u64 + 2;
    let key = if prefab {
        "object.p000000064.prefab"
    } else {
        "include.0"
    };
    let want = serde_json::json!([{
        "file": at["file"],
        "line": at["line"],
        "column": at["column"],
        "end_line": at["line"],
        "end_column": at["column"].as_u64().unwrap_or(0) + width,
        "severity": "Error",
        "code": code,
        "key": key,
        "related": (0..=64).map(|k| link(k, prefab)).collect::<Vec<_>>(),
        "message_contains": format!("room.scene.toml → c/1.{ext}.toml → c/2.{ext}.toml"),
    }]);
    let Value::Array(want) = want else {
        unreachable!("json! of an array is an array")
    };
    if let Some(why) = mismatch(&found, &want) {
        panic!("{code}: {why}");
    }
}

#[test]
fn include_depth_65_is_refused_with_its_chain() {
    depth_case(false);
}

#[test]
fn prefab_depth_65_is_refused_with_its_chain() {
    depth_case(true);
}

/// A file that exists by name but can't be read: a link to nothing, named by an include.
#[cfg(unix)]
#[test]
fn unreadable_include() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "project.toml", PROJECT);
    write(
        dir.path(),
        "room.scene.toml",
        "format = 1\ninclude = [\"base.scene.toml\"]\n",
    );
    std::os::unix::fs::symlink("nowhere.scene.toml", dir.path().join("base.scene.toml"))
        .expect("symlink");
    let found = check_json(dir.path());
    let want = serde_json::json!([{
        "file": "room.scene.toml", "line": 2, "column": 12, "end_line": 2, "end_column": 29,
        "severity": "Error", "code": "unreadable", "key": "include.0", "related": [],
        "message_contains": "can't read `base.scene.toml`",
    }]);
    let Value::Array(want) = want else {
        unreachable!("json! of an array is an array")
    };
    if let Some(why) = mismatch(&found, &want) {
        panic!("unreadable: {why}");
    }
}

/// The valid project: every table and key of the spec (the tables a bake does not draw
/// included), the spec's worked examples where they fit one scene.
fn valid() -> PathBuf {
    corpus().join("valid")
}

#[test]
fn the_valid_project_checks_clean() {
    let found = check_json(&valid());
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_valid_project_resolves() {
    use pfx_bake::scene::{load, Plane};
    let s = load(&valid().join("main.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    assert!(s.warnings.is_empty(), "{:#?}", s.warnings);
    let o = |k: &str| {
        s.objects
            .iter()
            .find(|o| o.key == k)
            .unwrap_or_else(|| panic!("no object {k}: {:?}", keys(&s)))
    };
    fn keys(s: &pfx_bake::scene::Scene) -> Vec<&str> {
        s.objects.iter().map(|o| o.key.as_str()).collect()
    }

    // Every file read, the include's entries first.
    for f in [
        "main.scene.toml",
        "parts.scene.toml",
        "room.materials.toml",
        "lamp.materials.toml",
        "main.proxies.toml",
        "props/lamp.prefab.toml",
        "tiles/brick.prefab.toml",
        "tiles/spike.prefab.toml",
        "tiles/wall.prefab.toml",
    ] {
        assert!(s.files.contains(&PathBuf::from(f)), "{f}: {:?}", s.files);
    }
    assert_eq!(s.objects[0].key, "desk", "includes merge first");
    assert_eq!(o("desk").pick, 1, "pick defaults to the 1-based place");
    assert_eq!(o("table").pick, 40);
    assert_eq!(o("table").scale, [0.5; 3], "a number scale is uniform");

    // dynamic, derived as the spec says.
    for (k, dynamic) in [
        ("table", false), // dynamic = false
        ("desk", false),
        ("crate", false), // a body alone is not in the spec's list
        ("runner", true), // a character
        ("hero", true),   // animated, facing the camera
        ("walker", true), // animated (a blend)
        ("flag", true),   // animated (frames)
        ("fan", true),    // moved by a mover
        ("blade", true),  // its parent is dynamic
        ("zone", false),  // a trigger, under a static parent
        ("left lamp/shade", false),
        ("right lamp/shade", true), // its placement's dynamic reaches it
    ] {
        assert_eq!(o(k).dynamic, dynamic, "{k}.dynamic");
    }

    // The spec's placement: parent, overrides per placement, hidden reaching what it places.
    let g = |k: &str| {
        s.groups
            .iter()
            .find(|g| g.key == k)
            .unwrap_or_else(|| panic!("no group {k}"))
    };
    assert_eq!(g("left lamp").parent.as_deref(), Some("desk"));
    assert_eq!(g("left lamp").id.as_deref(), Some("q8w2e6r4ty"));
    assert_eq!(
        g("right lamp").prefab,
        PathBuf::from("props/lamp.prefab.toml")
    );
    assert_eq!(g("right lamp").scale, [1.0, 2.0, 1.0]);
    assert_eq!(o("left lamp/shade").material.as_deref(), Some("brass"));
    assert_eq!(o("right lamp/shade").material.as_deref(), Some("cloth"));
    assert_eq!(o("left lamp/shade").parent.as_deref(), Some("left lamp"));
    assert_eq!(
        o("left lamp/shade").id.as_deref(),
        Some("q8w2e6r4ty/1a0000b001")
    );
    assert!(!o("left lamp/shade").hidden && o("right lamp/shade").hidden);
    let light = |k: &str| {
        s.lights
            .iter()
            .find(|l| l.key == k)
            .unwrap_or_else(|| panic!("no light {k}"))
    };
    assert_eq!(light("left lamp/bulb").intensity, 3.0);
    assert_eq!(light("right lamp/bulb").intensity, 1.0);
    assert_eq!(light("left lamp/bulb").parent.as_deref(), Some("left lamp"));

    // The spec's two tile layers.
    let t = |k: &str| {
        s.tiles
            .iter()
            .find(|t| t.key == k)
            .unwrap_or_else(|| panic!("no tile layer {k}"))
    };
    let ground = t("ground");
    assert_eq!(ground.cell, [0.5, 0.5]);
    assert_eq!(ground.cells.len(), 9);
    assert!(ground.cells.contains(&([4, 1], "^".to_string())));
    assert!(ground.cells.contains(&([0, 0], "#".to_string())));
    assert_eq!(ground.position([4, 1]), [-2.0, 0.5, 0.0]);
    let plan = t("floor plan");
    assert_eq!(plan.plane, Plane::Xz);
    assert_eq!(plan.position([-1, 2]), [-2.0, 0.0, -6.0]);
    assert!(plan
        .palette
        .contains(&("lamp".to_string(), PathBuf::from("props/lamp.prefab.toml"))));
    // Each filled cell places its prefab, keyed by layer and cell, with no id.
    assert!(o("ground/4,1/spike").id.is_none());
    assert_eq!(
        g("floor plan/3,-1").prefab,
        PathBuf::from("props/lamp.prefab.toml")
    );
    assert_eq!(g("floor plan/3,-1").at, [6.0, 0.0, 3.0]);

    // Materials: both libraries, quoted names kept.
    for m in ["white", "set/screen", "grey", "brass", "cloth"] {
        assert!(s.materials.iter().any(|x| x.key == m), "material {m}");
    }
    assert_eq!(s.fallback.as_deref(), Some("grey"));
    // The camera's fov from focal and sensor: 2·atan(24 / 70), in degrees.
    let cam = s.camera.as_ref().expect("[camera]");
    let fov = 2.0 * (24.0f32 / 70.0).atan().to_degrees();
    assert!((cam.fov - fov).abs() < 1e-4, "{} vs {fov}", cam.fov);
    // The tables a bake does not draw are read: recorded as present.
    for p in [
        "physics",
        "haze",
        "rig",
        "sound",
        "text",
        "content",
        "mover",
        "object.body",
        "object.character",
        "object.trigger",
        "object.animation",
        "sky.layer",
        "finish.pass",
        "camera.preset",
    ] {
        assert!(
            s.present.iter().any(|x| x.path == p),
            "{p} not in Scene::present"
        );
    }
}
