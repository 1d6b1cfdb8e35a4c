//! What one fuzz input does, shared by the `scene_load` fuzz target and by
//! `tests/fuzz_corpus.rs` (which replays the committed corpus without cargo-fuzz), so that both
//! run exactly the same code.
//!
//! An input is a small project packed into bytes: segments separated by NUL bytes (a TOML text
//! never holds one), each segment a relative file path, a newline, and the file's contents.
//! The first segment is the scene that is loaded. A segment whose path is not a plain relative
//! path (see [`safe_path`]) is skipped; a project.toml is written when the input has none, so
//! that the root is always the project folder and never a folder above it. See docs/fuzz.md.

use std::path::{Path, PathBuf};

/// The most files one input may write; later segments are ignored.
pub const MAX_FILES: usize = 16;
/// The name the first segment is written under when its own path is not usable.
pub const DEFAULT_SCENE: &str = "main.scene.toml";

/// Splits an input into (relative path, contents) pairs; the first is the scene to load.
pub fn unpack(data: &[u8]) -> Vec<(PathBuf, &[u8])> {
    let mut files: Vec<(PathBuf, &[u8])> = Vec::new();
    for (i, seg) in data.split(|&b| b == 0).enumerate() {
        if files.len() >= MAX_FILES {
            break;
        }
        let (name, body) = match seg.iter().position(|&b| b == b'\n') {
            Some(n) => (&seg[..n], &seg[n + 1..]),
            None => (seg, &seg[seg.len()..]),
        };
        let path = std::str::from_utf8(name).ok().and_then(safe_path);
        match path {
            Some(p) if !files.iter().any(|(q, _)| *q == p) => files.push((p, body)),
            // The scene keeps its place first even when its path is unusable: the whole
            // segment is then its text.
            _ if i == 0 => files.push((PathBuf::from(DEFAULT_SCENE), seg)),
            _ => {}
        }
    }
    files
}

/// A relative path of at most four plain components (letters, digits, `_`, `-`, `.`; not `.`
/// or `..`), at most 100 bytes: nothing the input names can land outside its folder.
pub fn safe_path(s: &str) -> Option<PathBuf> {
    if s.is_empty() || s.len() > 100 {
        return None;
    }
    let parts: Vec<&str> = s.split('/').collect();
    if parts.len() > 4 {
        return None;
    }
    for p in &parts {
        let plain = p
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if p.is_empty() || *p == "." || *p == ".." || !plain {
            return None;
        }
    }
    Some(parts.iter().collect())
}

/// Writes the input's files under `dir` (emptied first) and returns the scene's path.
///
/// A file that cannot be written (its path runs through a file of the same input) is left out,
/// as a project could simply lack it.
pub fn write_project(dir: &Path, data: &[u8]) -> PathBuf {
    if dir.exists() {
        // A leftover of the previous input would change what this one reads.
        let _ = std::fs::remove_dir_all(dir);
    }
    let _ = std::fs::create_dir_all(dir);
    let files = unpack(data);
    for (rel, body) in &files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(&path, body);
    }
    if !files.iter().any(|(p, _)| p == Path::new("project.toml")) {
        let _ = std::fs::write(
            dir.join("project.toml"),
            "format = 1\n\n[project]\nname = \"fuzz\"\n",
        );
    }
    match files.first() {
        Some((p, _)) => dir.join(p),
        None => dir.join(DEFAULT_SCENE),
    }
}

/// Panics when a diagnostic's place is impossible: lines and columns are 1-based and the end
/// is not before the start (the spec's `Diagnostic`).
fn check_places(ds: &[pfx_bake::scene::Diagnostic]) {
    for d in ds {
        assert!(d.line >= 1 && d.column >= 1, "place not 1-based: {d}");
        assert!(
            (d.end_line, d.end_column) >= (d.line, d.column),
            "end before start: {d} (end {}:{})",
            d.end_line,
            d.end_column
        );
        for r in &d.related {
            assert!(
                r.line >= 1 && r.column >= 1,
                "related place not 1-based: {d}"
            );
        }
    }
}

/// Runs one input: writes it under `dir`, loads its scene with `pfx_bake::scene::load`, then
/// opens and checks the whole project (each prefab on its own, each proxies file). Any panic
/// is a finding; with `places`, so is an impossible diagnostic place (a bug in the spans, not
/// a crash: the switch lets a run look for panics alone while a known span bug stands).
pub fn run(dir: &Path, data: &[u8], places: bool) {
    let scene = write_project(dir, data);
    let check = |ds: &[pfx_bake::scene::Diagnostic]| {
        if places {
            check_places(ds);
        }
    };
    match pfx_bake::scene::load(&scene) {
        Ok(s) => check(&s.warnings),
        Err(ds) => {
            assert!(
                ds.iter().any(|d| d.is_error()),
                "load refused the scene without an error"
            );
            check(&ds);
        }
    }
    if let Ok(project) = pfx_bake::scene::project::Project::open(dir) {
        check(&project.check());
    }
}
