//! `bake check` and `Project::open`/`Project::check` as a build pipeline and an editor see
//! them: exit codes, the rustc-style text, the JSON Lines, the files a project is made of, and
//! each finding once.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pfx_bake::scene::project::{Project, ProjectFile};
use pfx_bake::scene::schema::FileKind;

fn bake_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bake"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("bake runs")
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write(root: &Path, rel: &str, body: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

const PROJECT: &str = "format = 1\n\n[project]\nname = \"t\"\n";

/// A light whose unknown key stands after a two-byte character on its line.
const UNICODE_LINE: &str = "light = [{ id = \"ymd945rcwm\", name = \"lámpara\", position = [0.3, 0.4, 0.3], intensity = 0.2, glow = 3 }]";

/// A scene with a duplicate id (an error with a related place) and an entry without an id (a
/// warning).
const TWICE: &str = "format = 1\n\n[[light]]\nid = \"ymd945rcwk\"\nname = \"a\"\nposition = [0.0, 1.0, 0.0]\nintensity = 1.0\n\n[[light]]\nid = \"ymd945rcwk\"\nname = \"b\"\nposition = [0.0, 1.0, 0.0]\nintensity = 1.0\n\n[[light]]\nname = \"c\"\nposition = [0.0, 1.0, 0.0]\nintensity = 1.0\n";

#[test]
fn exit_status_is_0_clean_1_errors_2_usage() {
    let clean = repo().join("tests/data/scenes/cornell");
    let o = bake_in(&repo(), &["check", clean.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));

    let shared = repo().join("tests/data/projects/shared");
    let o = bake_in(&repo(), &["check", shared.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    // Without PATH: the current folder's project.
    let o = bake_in(&shared, &["check"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    // A folder below the root checks the whole project of its root.
    let o = bake_in(&repo(), &["check", "scenes/meshes"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));

    // Warnings alone pass.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "project.toml", PROJECT);
    write(
        dir.path(),
        "w.scene.toml",
        "format = 1\n\n[[light]]\nname = \"c\"\nposition = [0.0, 1.0, 0.0]\nintensity = 1.0\n",
    );
    let o = bake_in(dir.path(), &["check"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).contains("warning[missing-id]"),
        "{}",
        text(&o.stdout)
    );
    assert!(
        text(&o.stdout).contains("check: 0 errors, 1 warning in 2 files"),
        "{}",
        text(&o.stdout)
    );

    // A PATH that does not exist is an input error, not a usage error.
    let o = bake_in(dir.path(), &["check", "nope.scene.toml"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).contains("error[unreadable]"),
        "{}",
        text(&o.stdout)
    );

    for bad in [
        &["check", "--format", "xml"][..],
        &["check", "a", "b"],
        &["check", "--spp", "4"],
    ] {
        let o = bake_in(dir.path(), bad);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o.stderr));
    }
}

#[test]
fn human_output_shows_code_place_source_and_underline() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "project.toml", PROJECT);
    write(
        dir.path(),
        "levels/u.scene.toml",
        &format!("format = 1\n\n{UNICODE_LINE}\n"),
    );
    // Columns count characters: "á" is one column though it is two bytes.
    let byte = UNICODE_LINE.find("glow").unwrap();
    let col = UNICODE_LINE[..byte].chars().count() + 1;
    assert_eq!((col, byte + 1), (94, 95));

    let o = bake_in(dir.path(), &["check", "levels/u.scene.toml"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("error[unknown-key]: "), "{out}");
    assert!(lines[0].contains("glow"), "{out}");
    assert_eq!(lines[1], format!(" --> levels/u.scene.toml:3:{col}"));
    assert_eq!(lines[2], "  |");
    assert_eq!(lines[3], format!("3 | {UNICODE_LINE}"));
    assert_eq!(lines[4], format!("  | {}^^^^", " ".repeat(col - 1)));
    assert_eq!(lines[5], "  = key: light.ymd945rcwm.glow");
    assert_eq!(
        lines.last().copied(),
        Some("check: 1 error, 0 warnings in 2 files")
    );

    // Related places are listed, and files show from where the command runs.
    write(dir.path(), "twice.scene.toml", TWICE);
    let o = bake_in(
        &dir.path().join("levels"),
        &["check", "../twice.scene.toml"],
    );
    let out = text(&o.stdout);
    let want = [
        "error[duplicate-id]: ",
        "  --> ../twice.scene.toml:10:6",
        "10 | id = \"ymd945rcwk\"",
        "   |      ^^^^^^^^^^^^",
        "   = key: light.ymd945rcwk.id",
        "   = note: related: ../twice.scene.toml:4:6",
        "warning[missing-id]: ",
        "  --> ../twice.scene.toml:15:1",
    ];
    for w in want {
        assert!(
            out.lines().any(|l| l.starts_with(w)),
            "no line {w:?} in\n{out}"
        );
    }
}

#[test]
fn json_lines_carry_every_field_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "project.toml", PROJECT);
    write(dir.path(), "twice.scene.toml", TWICE);
    write(
        dir.path(),
        "sub/u.scene.toml",
        &format!("format = 1\n\n{UNICODE_LINE}\n"),
    );
    let o = bake_in(dir.path(), &["check", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let out = text(&o.stdout);
    let all: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
        .collect();
    assert_eq!(all.len(), 3, "{out}");
    let fields = [
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "severity",
        "code",
        "key",
        "message",
        "related",
    ];
    for v in &all {
        let o = v.as_object().unwrap();
        assert_eq!(o.len(), fields.len(), "{v}");
        for f in fields {
            assert!(o.contains_key(f), "{f} missing in {v}");
        }
    }
    // Sorted by file, line and column; files root-relative with '/'.
    let place = |v: &serde_json::Value| {
        (
            v["file"].as_str().unwrap().to_string(),
            v["line"].as_u64().unwrap(),
            v["column"].as_u64().unwrap(),
        )
    };
    let places: Vec<_> = all.iter().map(place).collect();
    assert_eq!(
        places,
        [
            ("sub/u.scene.toml".into(), 3, 94),
            ("twice.scene.toml".into(), 10, 6),
            ("twice.scene.toml".into(), 15, 1)
        ]
    );
    let u = &all[0];
    assert_eq!(u["severity"], "Error");
    assert_eq!(u["code"], "unknown-key");
    assert_eq!(u["key"], "light.ymd945rcwm.glow");
    assert_eq!(
        (u["end_line"].as_u64(), u["end_column"].as_u64()),
        (Some(3), Some(98))
    );
    let d = &all[1];
    assert_eq!(d["code"], "duplicate-id");
    assert_eq!(d["end_column"], 18);
    assert_eq!(
        d["related"],
        serde_json::json!([{ "file": "twice.scene.toml", "line": 4, "column": 6 }])
    );
    assert_eq!(all[2]["severity"], "Warning");
    assert_eq!(all[2]["code"], "missing-id");
    // The summary goes to stderr.
    assert!(
        text(&o.stderr).contains("check: 2 errors, 1 warning in 3 files"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn open_skips_what_the_spec_skips() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "project.toml",
        "format = 1\n\n[project]\nname = \"t\"\nignore = [\"plates\", \"levels/old\", \"./drafts/../wip\"]\n",
    );
    let read = [
        "a.scene.toml",
        "lib.materials.toml",
        "levels/tmp/b.scene.toml",
        "levels/target/c.scene.toml",
        "levels/oldies/d.scene.toml",
        "props/lamp.prefab.toml",
        "props/stand.proxies.toml",
        "scene.toml",
    ];
    let skipped = [
        "target/x.scene.toml",
        "tmp/x.scene.toml",
        "plates/x.scene.toml",
        "levels/old/x.scene.toml",
        "wip/x.scene.toml",
        ".git/x.scene.toml",
        "levels/.cache/x.scene.toml",
        ".hidden.scene.toml",
        "nested/project.toml",
        "nested/x.scene.toml",
        "nested/deeper/y.scene.toml",
        "notes.toml",
        "materials.toml",
        "a.scene.toml.bak",
    ];
    for f in read.iter().chain(&skipped) {
        if !f.ends_with("project.toml") {
            write(r, f, "format = 1\n");
        }
    }
    write(r, "nested/project.toml", PROJECT);
    let p = Project::open(r).unwrap();
    let got: Vec<(String, FileKind)> = p
        .files()
        .iter()
        .map(|ProjectFile { path, kind }| (path.to_string_lossy().replace('\\', "/"), *kind))
        .collect();
    let want: Vec<(String, FileKind)> = vec![
        ("a.scene.toml".into(), FileKind::Scene),
        ("levels/oldies/d.scene.toml".into(), FileKind::Scene),
        ("levels/target/c.scene.toml".into(), FileKind::Scene),
        ("levels/tmp/b.scene.toml".into(), FileKind::Scene),
        ("lib.materials.toml".into(), FileKind::Materials),
        ("project.toml".into(), FileKind::Project),
        ("props/lamp.prefab.toml".into(), FileKind::Prefab),
        ("props/stand.proxies.toml".into(), FileKind::Proxies),
        ("scene.toml".into(), FileKind::Scene),
    ];
    assert_eq!(got, want);
    // The same from any folder of the project: `bake check levels` counts the same files.
    let o = bake_in(r, &["check", "levels"]);
    assert!(
        text(&o.stdout).contains(&format!("in {} files", want.len())),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn the_flagship_and_the_reference_projects_check_clean() {
    for p in [
        "scenes",
        "scenes/cornell",
        "scenes/spheres",
        "tests/data/scenes/cornell",
        "tests/data/scenes/spheres",
    ] {
        let project = Project::open(&repo().join(p)).unwrap();
        assert!(
            project.files().iter().any(|f| f.kind == FileKind::Scene),
            "{p}: no scene found"
        );
        let d = project.check();
        assert!(!d.iter().any(|d| d.is_error()), "{p}: {d:#?}");
    }
    // The flagship project skips the nested reference projects and its plate folders.
    let flagship = Project::open(&repo().join("scenes")).unwrap();
    assert!(flagship
        .files()
        .iter()
        .all(|f| !f.path.starts_with("cornell") && !f.path.starts_with("spheres")));
    let o = bake_in(&repo(), &["check", "scenes"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    assert!(
        text(&o.stdout).starts_with("check: 0 errors"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn a_file_two_scenes_read_is_reported_once_and_unread_files_alone() {
    let root = repo().join("tests/data/projects/shared");
    let d = Project::open(&root).unwrap().check();
    let got: Vec<(String, u32, u32, &str)> = d
        .iter()
        .map(|d| {
            (
                d.file.to_string_lossy().replace('\\', "/"),
                d.line,
                d.column,
                d.code,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("lamp.prefab.toml".into(), 7, 13, "bad-type"),
            ("lib.materials.toml".into(), 6, 1, "unknown-key"),
            ("spare.materials.toml".into(), 4, 6, "bad-id"),
            ("stand.proxies.toml".into(), 3, 1, "missing-key"),
            // No scene names stand.proxies.toml: "table" resolves across the project.
            ("stand.proxies.toml".into(), 5, 10, "bad-reference"),
        ]
    );
}

#[test]
fn a_folder_without_project_toml_is_its_own_root() {
    let dir = tempfile::tempdir().unwrap();
    // Without project.toml a scene's paths are relative to its own folder; the findings are
    // still shown relative to the folder checked.
    write(
        dir.path(),
        "sub/s.scene.toml",
        "format = 1\nmaterials = [\"m.materials.toml\"]\n",
    );
    write(
        dir.path(),
        "sub/m.materials.toml",
        "format = 1\n\n[materials.w]\nid = \"c0000000c1\"\nbase = 1\n",
    );
    let d = Project::open(dir.path()).unwrap().check();
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].file, Path::new("sub/m.materials.toml"));
    assert_eq!(d[0].code, "bad-type");
}

#[test]
fn bake_and_check_share_the_command_line() {
    let out = tempfile::tempdir().unwrap();
    let o = bake_in(
        &repo(),
        &[
            "scenes/room.scene.toml",
            "--spp",
            "1",
            "--size",
            "8x8",
            "--quiet",
            "--out",
            out.path().join("p").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(out.path().join("p/beauty.exr").is_file());
    let o = bake_in(&repo(), &["check", "scenes"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));

    let help = text(&bake_in(&repo(), &["--help"]).stdout);
    for opt in [
        "--out",
        "--spp",
        "--size",
        "--threads",
        "--seed",
        "--max-depth",
        "--quiet",
        "--json",
        "check",
    ] {
        assert!(help.contains(opt), "--help lacks {opt}");
    }
    let help = text(&bake_in(&repo(), &["check", "--help"]).stdout);
    assert!(help.contains("--format") && help.contains("json"), "{help}");
}

#[test]
fn a_refused_bake_renders_its_diagnostics_like_check() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "project.toml", PROJECT);
    write(
        dir.path(),
        "u.scene.toml",
        &format!("format = 1\n\n{UNICODE_LINE}\n"),
    );
    let o = bake_in(
        dir.path(),
        &["u.scene.toml", "--out", "o", "--size", "8x8", "--spp", "1"],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("error[unknown-key]: "), "{err}");
    assert!(err.contains(" --> u.scene.toml:3:94\n"), "{err}");
    assert!(err.contains(&format!("3 | {UNICODE_LINE}\n")), "{err}");
    assert!(err.contains("bake: 1 error; nothing written"), "{err}");
    assert!(!dir.path().join("o").exists());
}

#[test]
fn an_included_scene_is_checked_through_its_includers_once_and_cycles_are_top() {
    let root = repo().join("tests/data/projects/includes");
    let d = Project::open(&root).unwrap().check();
    let got: Vec<(String, u32, u32, &str)> = d
        .iter()
        .map(|d| {
            (
                d.file.to_string_lossy().replace('\\', "/"),
                d.line,
                d.column,
                d.code,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("parts/base.scene.toml".into(), 7, 13, "bad-value"),
            ("x.scene.toml".into(), 2, 12, "include-cycle"),
            ("y.scene.toml".into(), 2, 12, "include-cycle"),
        ]
    );
}

/// (file, line, column, code, related) of each finding, paths with `/`.
type Found = (String, u32, u32, &'static str, Vec<(String, u32, u32)>);

fn found(root: &Path) -> Vec<Found> {
    let slash = |p: &Path| p.to_string_lossy().replace('\\', "/");
    Project::open(root)
        .unwrap()
        .check()
        .iter()
        .map(|d| {
            let related = d
                .related
                .iter()
                .map(|r| (slash(&r.file), r.line, r.column))
                .collect();
            (slash(&d.file), d.line, d.column, d.code, related)
        })
        .collect()
}

fn light(id: &str, name: &str) -> String {
    format!("[[light]]\nid = \"{id}\"\nname = \"{name}\"\nposition = [0.0, 1.0, 0.0]\nintensity = 1.0\n")
}

#[test]
fn an_id_two_top_scenes_use_is_refused_once_across_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "project.toml", PROJECT);
    // Two top scenes that no scene reads together, each with the id.
    write(
        r,
        "a.scene.toml",
        &format!("format = 1\n\n{}", light("ymd945rcwk", "a")),
    );
    write(
        r,
        "b.scene.toml",
        &format!("format = 1\n\n{}", light("ymd945rcwk", "b")),
    );
    // A scene and its include share one: the scene's own check reports it, once.
    write(
        r,
        "c.scene.toml",
        &format!(
            "format = 1\ninclude = [\"inc.scene.toml\"]\n\n{}",
            light("bbbbbbbb01", "c")
        ),
    );
    write(
        r,
        "inc.scene.toml",
        &format!("format = 1\n\n{}", light("bbbbbbbb01", "i")),
    );
    // A prefab no scene places shares an id with a scene.
    write(
        r,
        "lone.prefab.toml",
        &format!("format = 1\n\n{}", light("cccccccc01", "p")),
    );
    write(
        r,
        "d.scene.toml",
        &format!("format = 1\n\n{}", light("cccccccc01", "d")),
    );
    let s = |f: &str| f.to_string();
    assert_eq!(
        found(r),
        [
            (
                s("b.scene.toml"),
                4,
                6,
                "duplicate-id",
                vec![(s("a.scene.toml"), 4, 6)]
            ),
            (
                s("inc.scene.toml"),
                4,
                6,
                "duplicate-id",
                vec![(s("c.scene.toml"), 5, 6)]
            ),
            (
                s("lone.prefab.toml"),
                4,
                6,
                "duplicate-id",
                vec![(s("d.scene.toml"), 4, 6)]
            ),
        ]
    );
}

#[test]
fn a_proxies_file_no_scene_names_resolves_across_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "project.toml", PROJECT);
    write(r, "m.glb", "x");
    // Objects from line 6 on, each five lines long (its name on its third).
    let scene = |mesh_id: &str, objects: &str| {
        format!("format = 1\n\n[mesh.box]\nid = \"{mesh_id}\"\nfile = \"m.glb\"\n{objects}")
    };
    let object = |id: &str, name: &str| {
        format!("\n[[object]]\nid = \"{id}\"\nname = \"{name}\"\nmesh = \"box\"\n")
    };
    write(
        r,
        "a.scene.toml",
        &scene(
            "mmmmmmmm01",
            &format!(
                "{}{}",
                object("her0000001", "hero"),
                object("r0ck000001", "rock")
            ),
        ),
    );
    write(
        r,
        "b.scene.toml",
        &scene("mmmmmmmm02", &object("r0ck000002", "rock")),
    );
    let proxy = |id: &str, object: &str| {
        format!(
            "[[proxy]]\nid = \"{id}\"\nobject = \"{object}\"\nkind = \"box\"\nsize = [1, 1, 1]\n"
        )
    };
    write(
        r,
        "lone.proxies.toml",
        &format!(
            "format = 1\n\n{}{}{}{}{}",
            proxy("xxxxxxxx01", "her0000001"),
            proxy("xxxxxxxx02", "hero"),
            proxy("xxxxxxxx03", "rock"),
            proxy("xxxxxxxx04", "ghost"),
            proxy("xxxxxxxx05", "r0ck000002"),
        ),
    );
    let s = |f: &str| f.to_string();
    assert_eq!(
        found(r),
        [
            (
                s("lone.proxies.toml"),
                15,
                10,
                "ambiguous-reference",
                vec![(s("a.scene.toml"), 14, 8), (s("b.scene.toml"), 9, 8)]
            ),
            (s("lone.proxies.toml"), 20, 10, "bad-reference", vec![]),
        ]
    );
}

/// A prefab holding one object of `lamp.glb` that wears `material`, with `head` above it.
fn prefab(head: &str, ids: [&str; 2], material: &str) -> String {
    format!(
        "format = 1\n{head}\n[mesh.shade]\nid = \"{}\"\nfile = \"lamp.glb\"\n\n[[object]]\nid = \"{}\"\nname = \"shade\"\nmesh = \"shade\"\nmaterial = \"{material}\"\n",
        ids[0], ids[1]
    )
}

#[test]
fn a_prefab_no_scene_places_is_resolved_alone_and_each_fault_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "project.toml", PROJECT);
    std::fs::copy(
        repo().join("tests/data/scenes/lamp/meshes/lamp.glb"),
        r.join("lamp.glb"),
    )
    .unwrap();
    write(
        r,
        "lib.materials.toml",
        "format = 1\n\n[materials.cloth]\nid = \"c10thc10th\"\nbase = [0.9, 0.85, 0.7]\n",
    );
    // Valid and placed by no scene: clean.
    write(
        r,
        "good.prefab.toml",
        &prefab(
            "materials = [\"lib.materials.toml\"]\n",
            ["g00dmesh01", "g00d0bj001"],
            "cloth",
        ),
    );
    let p = Project::open(r).unwrap();
    assert_eq!(found(r), Vec::<Found>::new(), "{:?}", p.check());

    // Placed by no scene: a material its library lacks, and an include cycle with a part.
    write(
        r,
        "lone.prefab.toml",
        &prefab(
            "include = [\"parts/cyc.prefab.toml\"]\nmaterials = [\"lib.materials.toml\"]\n",
            ["ymd945rc01", "ymd945rc02"],
            "velvet",
        ),
    );
    write(
        r,
        "parts/cyc.prefab.toml",
        "format = 1\ninclude = [\"lone.prefab.toml\"]\n",
    );
    // Placed by a scene: its bad reference is the scene's finding and the prefab's, once.
    write(
        r,
        "placed.prefab.toml",
        &prefab(
            "materials = [\"lib.materials.toml\"]\n",
            ["p1acemesh1", "p1ace0bj01"],
            "silk",
        ),
    );
    write(
        r,
        "s.scene.toml",
        "format = 1\n\n[[object]]\nid = \"p1acement1\"\nname = \"lamp\"\nprefab = \"placed.prefab.toml\"\n",
    );
    let got = found(r);
    let s = |p: &str| p.to_string();
    assert_eq!(
        got,
        [
            (
                s("lone.prefab.toml"),
                2,
                12,
                "include-cycle",
                vec![
                    (s("parts/cyc.prefab.toml"), 2, 12),
                    (s("lone.prefab.toml"), 2, 12)
                ]
            ),
            (s("lone.prefab.toml"), 13, 12, "bad-reference", vec![]),
            (
                s("parts/cyc.prefab.toml"),
                2,
                12,
                "include-cycle",
                vec![
                    (s("lone.prefab.toml"), 2, 12),
                    (s("parts/cyc.prefab.toml"), 2, 12)
                ]
            ),
            (s("placed.prefab.toml"), 12, 12, "bad-reference", vec![]),
        ],
        "{got:#?}"
    );
    let d = Project::open(r).unwrap().check();
    let lone = d
        .iter()
        .find(|d| d.code == "bad-reference" && d.file.ends_with("lone.prefab.toml"))
        .unwrap();
    assert_eq!(lone.key, "object.ymd945rc02.material");
    assert!(lone.message.contains("\"velvet\""), "{}", lone.message);

    // `bake check <project>` reports the lone prefab's faults and fails.
    let o = bake_in(r, &["check", r.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    let out = text(&o.stdout);
    assert!(out.contains("lone.prefab.toml:13:12"), "{out}");
    assert!(out.contains("include-cycle"), "{out}");

    // `bake check one.prefab.toml` resolves that prefab alone: its bad reference (not a schema
    // fault) is found, and a good prefab is clean.
    let o = bake_in(r, &["check", "placed.prefab.toml", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stdout));
    let out = text(&o.stdout);
    assert!(out.contains("\"code\":\"bad-reference\""), "{out}");
    assert!(out.contains("\"line\":12"), "{out}");
    let o = bake_in(r, &["check", "good.prefab.toml"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
}

#[test]
fn project_scene_with_reads_unsaved_texts_over_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "project.toml", PROJECT);
    write(
        r,
        "s.scene.toml",
        "format = 1\n\n[[light]]\nid = \"k3y0000001\"\nname = \"key\"\nintensity = 1.0\nposition = [0.0, 2.0, 0.0]\n",
    );
    let p = Project::open(r).unwrap();
    let s = p.scene(Path::new("s.scene.toml")).unwrap();
    assert_eq!(s.lights[0].position, [0.0, 2.0, 0.0]);
    assert_eq!(
        Project::root_of(&r.join("s.scene.toml")),
        r.canonicalize().unwrap()
    );

    // The buffer wins over the file, and its faults are found at their place in the buffer.
    let buffer = "format = 1\n\n[[light]]\nid = \"k3y0000001\"\nname = \"key\"\nintensity = 1.0\nposition = [0.0, 3.0, 0.0]\n";
    let overlay =
        std::collections::BTreeMap::from([(PathBuf::from("s.scene.toml"), buffer.to_string())]);
    let s = p.scene_with(Path::new("s.scene.toml"), overlay).unwrap();
    assert_eq!(s.lights[0].position, [0.0, 3.0, 0.0]);
    let bad = "format = 1\n\n[[light]]\nid = \"k3y0000001\"\nname = \"key\"\nintensity = 1.0\nposition = \"up\"\n";
    let overlay =
        std::collections::BTreeMap::from([(PathBuf::from("s.scene.toml"), bad.to_string())]);
    let e = p
        .scene_with(Path::new("s.scene.toml"), overlay)
        .unwrap_err();
    assert_eq!(
        (e[0].code, e[0].line, e[0].column),
        ("bad-type", 7, 12),
        "{e:?}"
    );
    // The file on disk is untouched.
    assert!(std::fs::read_to_string(r.join("s.scene.toml"))
        .unwrap()
        .contains("2.0"));
}
