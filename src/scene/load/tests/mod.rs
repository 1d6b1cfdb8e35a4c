//! The loader's tests: the spec's worked examples, each rule and code at its place, includes
//! and placements deep and cyclic, and mutated inputs that must not panic.

use super::*;

mod files;
mod placements;
mod rules;
mod units;

/// The crate's folder: `file!()` is relative to it in the crate, absolute in a scratch build.
fn data(name: &str) -> PathBuf {
    let here = Path::new(file!());
    // src/scene/load/tests/mod.rs: five folders up is the crate's.
    let base = here.ancestors().nth(5).unwrap_or(Path::new(""));
    base.join("tests/data/scenes").join(name)
}

const HEAD: &str = "format = 1\nmaterials = [\"lib.materials.toml\"]\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n";

/// A project with a library (white, red), a mesh file and a few assets; `scene` is
/// t.scene.toml.
fn project(scene: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    std::fs::write(
        r.join("project.toml"),
        "format = 1\n[project]\nname = \"t\"\n[layers]\nworld = [\"world\"]\n",
    )
    .unwrap();
    std::fs::write(
        r.join("lib.materials.toml"),
        "format = 1\n[materials.white]\nid = \"wwwwwwww01\"\nbase = [0.8, 0.8, 0.8]\n[materials.red]\nid = \"wwwwwwww02\"\n",
    )
    .unwrap();
    for f in ["m.glb", "a.png", "sky.hdr"] {
        std::fs::write(r.join(f), "x").unwrap();
    }
    std::fs::write(r.join("t.scene.toml"), scene).unwrap();
    dir
}

fn run(scene: &str) -> Vec<Diagnostic> {
    let dir = project(scene);
    match load(&dir.path().join("t.scene.toml")) {
        Ok(s) => s.warnings,
        Err(d) => d,
    }
}

/// The one error of `code`; fails when there is not exactly one.
fn one(diags: &[Diagnostic], code: &str) -> Diagnostic {
    let all: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == code).collect();
    assert_eq!(all.len(), 1, "want one {code}, got {diags:#?}");
    all[0].clone()
}

/// (key, line, column, end line, end column).
fn at(d: &Diagnostic) -> (&str, u32, u32, u32, u32) {
    (d.key.as_str(), d.line, d.column, d.end_line, d.end_column)
}

fn errors(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
    diags.iter().filter(|d| d.is_error()).collect()
}

/// A project from (path, text) pairs, with a project.toml and an m.glb unless given.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    std::fs::write(
        r.join("project.toml"),
        "format = 1\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    std::fs::write(r.join("m.glb"), "x").unwrap();
    for (p, text) in files {
        let p = r.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn light(name: &str) -> String {
    format!("[[light]]\nname = \"{name}\"\nposition = [0, 1, 0]\nintensity = 1\n")
}

fn scene_of(dir: &tempfile::TempDir, file: &str) -> Scene {
    load(&dir.path().join(file)).unwrap_or_else(|d| panic!("{d:#?}"))
}

fn errs_of(dir: &tempfile::TempDir, file: &str) -> Vec<Diagnostic> {
    match load(&dir.path().join(file)) {
        Ok(s) => panic!("loaded; warnings {:#?}", s.warnings),
        Err(d) => d.into_iter().filter(|d| d.is_error()).collect(),
    }
}

fn rel(d: &Diagnostic) -> Vec<(String, u32, u32)> {
    d.related
        .iter()
        .map(|l| (l.file.display().to_string(), l.line, l.column))
        .collect()
}

fn obj(id: &str, name: &str, rest: &str) -> String {
    format!("[[object]]\nid = \"{id}\"\nname = \"{name}\"\nmesh = \"m\"\n{rest}")
}
