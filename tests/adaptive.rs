//! Adaptive sampling and the time limit (issue 13): which pixels stop, that a stopped pixel
//! is exactly the mean of its first samples, that the plate says how many each took, that the
//! bytes do not depend on the thread count, and the usage errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use pfx_bake::integrator::{self, NoProgress, Plan, Settings};
use pfx_bake::scene;
use pfx_bake::world::World;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn cornell() -> PathBuf {
    repo().join("scenes/cornell/cornell.scene.toml")
}

fn bake(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bake"))
        .args(args)
        .output()
        .expect("bake runs")
}

/// Bakes the Cornell box into `out` with `args` after the scene and `--out`.
fn bake_cornell(out: &Path, args: &[&str]) -> Output {
    let mut all = vec![cornell().to_str().unwrap().to_owned(), "--out".into()];
    all.push(out.to_str().unwrap().to_owned());
    all.extend(args.iter().map(|a| a.to_string()));
    bake(&all.iter().map(String::as_str).collect::<Vec<_>>())
}

fn settings(spp: u32) -> Settings {
    Settings {
        spp,
        seed: 5,
        ..Settings::default()
    }
}

#[test]
fn a_stopped_pixel_is_the_mean_of_its_first_samples_and_noisy_pixels_go_on() {
    let scene = scene::load(&cornell()).unwrap();
    let world = World::build(&scene, [24, 24]).unwrap();
    let plan = Plan {
        noise_threshold: Some(0.05),
        min_spp: 8,
        time_limit: None,
        auxiliaries: false,
        passes: false,
    };
    let spp = 64;
    let r = integrator::render_planned(&world, &settings(spp), &plan, &NoProgress);
    let n = &r.image.samples;
    assert!(!r.stopped_by_time_limit);
    assert_eq!(r.passes_spp, spp);
    // Checkpoints at every multiple of min_spp: no other count is possible.
    assert!(
        n.iter().all(|&c| c % 8 == 0 && (8..=spp).contains(&c)),
        "{n:?}"
    );
    // The plan both stops pixels early and keeps others to the end (the box has smooth
    // walls and a noisy shadowed floor at 5 %).
    let early = n.iter().filter(|&&c| c < spp).count();
    let full = n.iter().filter(|&&c| c == spp).count();
    assert!(
        early > 0 && full > 0,
        "{early} stopped early, {full} took {spp}"
    );
    // Passes do not change a pixel's samples or their order: a pixel that took c samples has
    // exactly the value of a uniform render of c samples.
    let mut counts: Vec<u32> = n.clone();
    counts.sort_unstable();
    counts.dedup();
    for c in counts {
        let uniform = integrator::render(&world, &settings(c), &NoProgress);
        for (i, &ni) in n.iter().enumerate() {
            if ni == c {
                assert_eq!(r.image.radiance[i], uniform.radiance[i], "pixel {i} at {c}");
                assert_eq!(r.image.coverage[i], uniform.coverage[i], "pixel {i} at {c}");
                assert_eq!(r.image.depth[i], uniform.depth[i], "pixel {i} at {c}");
            }
        }
    }
    // A stricter threshold takes more samples.
    let strict = Plan {
        noise_threshold: Some(0.01),
        ..plan
    };
    let s = integrator::render_planned(&world, &settings(spp), &strict, &NoProgress);
    let total = |v: &[u32]| v.iter().map(|&c| c as u64).sum::<u64>();
    assert!(total(&s.image.samples) > total(n));
}

#[test]
fn a_uniform_plan_is_the_plain_render() {
    let scene = scene::load(&cornell()).unwrap();
    let world = World::build(&scene, [16, 16]).unwrap();
    let plain = integrator::render(&world, &settings(12), &NoProgress);
    // A time limit that never runs out splits the render into passes and changes nothing.
    let passes = Plan {
        noise_threshold: None,
        min_spp: 4,
        time_limit: Some(1e9),
        auxiliaries: false,
        passes: false,
    };
    let r = integrator::render_planned(&world, &settings(12), &passes, &NoProgress);
    assert_eq!(r.image.radiance, plain.radiance);
    assert_eq!(r.image.depth, plain.depth);
    assert!(r.image.samples.iter().all(|&c| c == 12));
    assert!(!r.stopped_by_time_limit);
}

fn read_samples(path: &Path) -> Vec<u32> {
    use exr::prelude::*;
    let image = read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .from_file(path)
        .unwrap();
    let ch = &image.layer_data.channel_data.list;
    assert_eq!(ch.len(), 1);
    assert_eq!(ch[0].name.to_string(), "N");
    match &ch[0].sample_data {
        FlatSamples::U32(v) => v.clone(),
        other => panic!("samples.exr holds {other:?}, not uint32"),
    }
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

#[test]
fn adaptive_bakes_write_the_counts_and_the_same_bytes_for_any_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let dirs = [tmp.path().join("a"), tmp.path().join("b")];
    for (out, threads) in dirs.iter().zip(["1", "2"]) {
        let o = bake_cornell(
            out,
            &[
                "--size",
                "32x20",
                "--spp",
                "48",
                "--noise-threshold",
                "0.04",
                "--min-spp",
                "8",
                "--threads",
                threads,
                "--quiet",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for f in [
        "beauty.exr",
        "depth.exr",
        "preview.png",
        "samples.exr",
        "manifest.json",
    ] {
        assert_eq!(
            std::fs::read(dirs[0].join(f)).unwrap(),
            std::fs::read(dirs[1].join(f)).unwrap(),
            "{f} differs between 1 and 2 threads"
        );
    }
    let n = read_samples(&dirs[0].join("samples.exr"));
    assert_eq!(n.len(), 32 * 20);
    let m = manifest(&dirs[0]);
    let s = &m["sampling"];
    let (lo, hi) = (*n.iter().min().unwrap(), *n.iter().max().unwrap());
    assert!(lo < hi, "the counts should differ: {lo}..{hi}");
    assert_eq!(s["samples_per_pixel"]["min"], lo);
    assert_eq!(s["samples_per_pixel"]["max"], hi);
    assert_eq!(s["adaptive"]["noise_threshold"], 0.04);
    assert_eq!(s["adaptive"]["min_spp"], 8);
    assert_eq!(s["per_pixel"], "samples.exr");
    assert_eq!(s["stopped_by_time_limit"], false);
    assert!(m["files"]["samples.exr"]["sha256"].is_string());
    assert_eq!(
        m["samples"],
        n.iter().map(|&c| c as u64).sum::<u64>(),
        "the manifest's sample total is what the pixels took"
    );
}

#[test]
fn a_time_limit_finishes_the_pass_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("p");
    let o = bake_cornell(
        &out,
        &[
            "--size",
            "16x16",
            "--spp",
            "64",
            "--min-spp",
            "4",
            "--time-limit",
            "0.000001",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The first pass always completes: every pixel has exactly min_spp samples.
    let n = read_samples(&out.join("samples.exr"));
    assert!(n.iter().all(|&c| c == 4), "{n:?}");
    let m = manifest(&out);
    assert_eq!(m["sampling"]["stopped_by_time_limit"], true);
    assert_eq!(m["sampling"]["passes_spp"], 4);
    assert_eq!(m["sampling"]["time_limit_seconds"], 0.000001);
    assert_eq!(m["samples"], 16 * 16 * 4);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["report"]["samples"], 16 * 16 * 4);
}

#[test]
fn a_uniform_bake_writes_no_sample_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("p");
    let o = bake_cornell(&out, &["--size", "8x8", "--spp", "2", "--quiet"]);
    assert!(o.status.success());
    assert!(!out.join("samples.exr").exists());
    let m = manifest(&out);
    assert_eq!(m["sampling"]["per_pixel"], serde_json::Value::Null);
    assert_eq!(m["sampling"]["samples_per_pixel"]["min"], 2);
    assert_eq!(m["sampling"]["samples_per_pixel"]["max"], 2);
}

#[test]
fn unusable_plans_are_usage_errors_and_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("p");
    for (args, says) in [
        (&["--min-spp", "4"][..], "--min-spp applies to"),
        (&["--noise-threshold=-0.1"][..], "--noise-threshold"),
        (&["--noise-threshold", "0"][..], "--noise-threshold"),
        (&["--noise-threshold", "NaN"][..], "--noise-threshold"),
        (&["--time-limit", "0"][..], "--time-limit"),
        (
            &["--noise-threshold", "0.1", "--min-spp", "65"][..],
            "is more than --spp 64",
        ),
    ] {
        let a: Vec<&str> = ["--size", "8x8"].iter().chain(args).copied().collect();
        let o = bake_cornell(&out, &a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?} wrote the plate folder");
    }
}

#[test]
fn help_lists_the_sampling_options() {
    let o = bake(&["--help"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for opt in ["--noise-threshold", "--min-spp", "--time-limit"] {
        assert!(text.contains(opt), "--help lacks {opt}");
    }
}
