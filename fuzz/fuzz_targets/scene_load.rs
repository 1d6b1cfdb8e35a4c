//! Fuzzes the scene reader and resolver: each input is a small project (see `harness.rs`),
//! written into a folder of this process's own, loaded with `pfx_bake::scene::load`, and
//! checked whole with `Project::check`. No input may panic, and (unless
//! `PFX_FUZZ_PANICS_ONLY` is set) every diagnostic's place must be possible.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

#[path = "../harness.rs"]
mod harness;

/// This process's folder: libFuzzer's forked workers each get their own, so they never read
/// each other's files.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        std::env::temp_dir().join(format!("pfx-fuzz-scene-load-{}", std::process::id()))
    })
}

/// Whether diagnostic places are checked too: on unless `PFX_FUZZ_PANICS_ONLY` is set.
fn places() -> bool {
    static PLACES: OnceLock<bool> = OnceLock::new();
    *PLACES.get_or_init(|| std::env::var_os("PFX_FUZZ_PANICS_ONLY").is_none())
}

fuzz_target!(|data: &[u8]| {
    harness::run(dir(), data, places());
});
