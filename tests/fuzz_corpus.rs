//! Replays the committed fuzz corpus (fuzz/corpus/scene_load) through the same harness the
//! `scene_load` fuzz target runs, so that CI checks every input the fuzzer kept without
//! cargo-fuzz or a nightly toolchain: no input may panic, and every diagnostic's place must be
//! possible. See docs/fuzz.md.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

#[path = "../fuzz/harness.rs"]
mod harness;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/scene_load")
}

/// Every committed corpus input, sorted.
fn corpus() -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("the committed corpus is readable")
        .map(|e| e.expect("corpus entry").path())
        .filter(|p| p.is_file())
        .collect();
    inputs.sort();
    // The minimised corpus holds hundreds of inputs; a handful means it was lost or truncated.
    assert!(inputs.len() >= 50, "only {} corpus inputs", inputs.len());
    inputs
}

/// Runs each input through the harness and returns those that panicked.
fn replay(inputs: &[PathBuf], places: bool) -> Vec<String> {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("project");
    let mut failures = Vec::new();
    for input in inputs {
        let data = std::fs::read(input).expect("read corpus input");
        if catch_unwind(AssertUnwindSafe(|| harness::run(&dir, &data, places))).is_err() {
            failures.push(input.display().to_string());
        }
    }
    failures
}

#[test]
fn every_corpus_input_loads_or_is_refused_without_panicking() {
    let failures = replay(&corpus(), false);
    assert!(failures.is_empty(), "inputs that panicked: {failures:#?}");
}

/// The fuzz target's stricter check: every diagnostic's place is possible too.
#[test]
fn every_corpus_input_has_possible_diagnostic_places() {
    let failures = replay(&corpus(), true);
    assert!(
        failures.is_empty(),
        "inputs with impossible places: {failures:#?}"
    );
}

/// The fuzzer's findings kept under fuzz/artifacts/scene_load, replayed with the strict check:
/// a format 0 file's finding whose end lay in text the migration wrote once ended before it
/// started (fixed in `PosMap::remap`).
#[test]
fn the_fuzzers_findings_are_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/artifacts/scene_load");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the artifacts folder is readable")
        .map(|e| e.expect("artifact entry").path())
        .filter(|p| p.is_file())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    let failures = replay(&inputs, true);
    assert!(failures.is_empty(), "findings still failing: {failures:#?}");
}

#[test]
fn the_packing_keeps_inputs_inside_their_folder() {
    let data = b"s.scene.toml\nformat = 1\n\0../up.toml\nx\0/abs.toml\ny\0a/b.prefab.toml\nz\0\
                 a/b.prefab.toml\nagain\0bad name\nw";
    let files = harness::unpack(data);
    let got: Vec<(&Path, &[u8])> = files.iter().map(|(p, b)| (p.as_path(), *b)).collect();
    assert_eq!(
        got,
        vec![
            (Path::new("s.scene.toml"), &b"format = 1\n"[..]),
            (Path::new("a/b.prefab.toml"), &b"z"[..]),
        ]
    );
    // A first segment without a usable path is the scene's whole text.
    let files = harness::unpack(b"format = 1\n[camera]\n");
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].0, Path::new(harness::DEFAULT_SCENE));
    assert_eq!(files[0].1, b"format = 1\n[camera]\n");
    assert_eq!(harness::safe_path("a/./b"), None);
    assert_eq!(harness::safe_path("a/b/c/d/e"), None);
    assert_eq!(
        harness::safe_path("x/y.toml"),
        Some(PathBuf::from("x/y.toml"))
    );
}
