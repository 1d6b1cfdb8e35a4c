//! The artist's preview (issue 13): `--preview` renders in passes that double the samples and
//! rewrites a frame after each, leaving the plate byte-identical to a plain bake; `--watch`
//! bakes again when a file the scene reads changes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Observer, PathTracer, Plan, Settings};
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
        // No denoiser: the frames are then the plate's own preview encoding.
        .env("PFX_OIDN", "/nonexistent")
        .output()
        .expect("bake runs")
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Records what a progressive render shows its observer.
struct Record {
    passes: Vec<u32>,
    last: Option<Image>,
    stop_after: Option<u32>,
}

impl Observer for Record {
    fn pass(&mut self, image: &Image, spp: u32) -> bool {
        self.passes.push(spp);
        self.last = Some(image.clone());
        self.stop_after.is_none_or(|n| spp < n)
    }
}

#[test]
fn passes_double_and_the_last_is_the_plain_render() {
    let scene = scene::load(&cornell()).unwrap();
    let world = World::build(&scene, [20, 12]).unwrap();
    let settings = Settings {
        spp: 11,
        seed: 9,
        ..Settings::default()
    };
    let tracer = PathTracer::new(&world.trace, &world.camera, settings);
    let plain = integrator::render_with(&tracer, &world.camera, &NoProgress);
    let mut rec = Record {
        passes: Vec::new(),
        last: None,
        stop_after: None,
    };
    let r = integrator::render_observed(
        &tracer,
        &world.camera,
        &Plan::default(),
        &NoProgress,
        Some(&mut rec),
    );
    assert_eq!(rec.passes, [1, 2, 4, 8, 11]);
    assert!(!r.interrupted);
    assert_eq!(r.image.radiance, plain.radiance);
    assert_eq!(r.image.depth, plain.depth);
    assert_eq!(r.image.coverage, plain.coverage);
    let last = rec.last.unwrap();
    assert_eq!(last.radiance, plain.radiance);
    assert!(last.samples.iter().all(|&n| n == 11));

    // An observer that stops after the pass of 4 samples ends the render there, marked.
    let mut rec = Record {
        passes: Vec::new(),
        last: None,
        stop_after: Some(4),
    };
    let r = integrator::render_observed(
        &tracer,
        &world.camera,
        &Plan::default(),
        &NoProgress,
        Some(&mut rec),
    );
    assert_eq!(rec.passes, [1, 2, 4]);
    assert!(r.interrupted);
    assert!(r.image.samples.iter().all(|&n| n == 4));
}

#[test]
fn an_adaptive_preview_keeps_the_plans_passes() {
    let scene = scene::load(&cornell()).unwrap();
    let world = World::build(&scene, [16, 16]).unwrap();
    let settings = Settings {
        spp: 24,
        seed: 2,
        ..Settings::default()
    };
    let plan = Plan {
        noise_threshold: Some(0.05),
        min_spp: 8,
        ..Plan::default()
    };
    let tracer = PathTracer::new(&world.trace, &world.camera, settings);
    let plain = integrator::render_plan_with(&tracer, &world.camera, &plan, &NoProgress);
    let mut rec = Record {
        passes: Vec::new(),
        last: None,
        stop_after: None,
    };
    let r = integrator::render_observed(&tracer, &world.camera, &plan, &NoProgress, Some(&mut rec));
    assert_eq!(rec.passes, [8, 16, 24]);
    assert_eq!(r.image.radiance, plain.image.radiance);
    assert_eq!(r.image.samples, plain.image.samples);
}

#[test]
fn a_preview_bake_writes_the_plate_of_a_plain_bake_and_its_frames() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    let scene = cornell();
    let common = [
        scene.to_str().unwrap(),
        "--size",
        "24x16",
        "--spp",
        "8",
        "--threads",
        "2",
        "--json",
        "--out",
    ];
    let with = bake(&[&common[..], &[a.to_str().unwrap(), "--preview"]].concat());
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    let without = bake(&[&common[..], &[b.to_str().unwrap()]].concat());
    assert!(without.status.success());
    assert_eq!(files(&a), files(&b), "the plate folders differ");

    let report: serde_json::Value = serde_json::from_slice(&with.stdout).unwrap();
    assert_eq!(
        report["report"]["preview_passes"],
        serde_json::json!([1, 2, 4, 8])
    );
    assert_eq!(report["report"]["preview_denoised"], false);
    let frame = dir.path().join("a.preview.png");
    assert_eq!(report["report"]["preview_file"], frame.to_str().unwrap());
    // The last frame is the finished picture, encoded as the plate's preview.
    assert_eq!(
        std::fs::read(&frame).unwrap(),
        std::fs::read(a.join("preview.png")).unwrap()
    );
    // Nothing but the frame beside the plate folders (no temporary file left).
    let mut beside: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, ["a", "a.preview.png", "b"]);
}

/// Copies the Cornell box project into `to`.
fn copy_cornell(to: &Path) {
    let from = repo().join("scenes/cornell");
    for sub in ["", "meshes"] {
        std::fs::create_dir_all(to.join(sub)).unwrap();
        for e in std::fs::read_dir(from.join(sub)).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_file() {
                std::fs::copy(e.path(), to.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
}

fn wait_for(what: &str, limit: Duration, mut ok: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !ok() {
        assert!(t0.elapsed() < limit, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn watch_bakes_again_when_a_material_changes() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("cornell");
    copy_cornell(&project);
    let plates = dir.path().join("plates");
    let log = std::fs::File::create(dir.path().join("log")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bake"))
        .arg(project.join("cornell.scene.toml"))
        .args(["--size", "16x16", "--spp", "4", "--threads", "1", "--watch"])
        .arg("--out")
        .arg(&plates)
        .env("PFX_OIDN", "/nonexistent")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let beauty = plates.join("beauty.exr");
    let limit = Duration::from_secs(120);
    let check = || -> Result<(), String> {
        let log_text = || std::fs::read_to_string(dir.path().join("log")).unwrap_or_default();
        wait_for("the first bake", limit, || {
            log_text().contains("watching") && beauty.exists()
        });
        let first = std::fs::read(&beauty).unwrap();
        // The red wall turns blue.
        let materials = project.join("cornell.materials.toml");
        let text = std::fs::read_to_string(&materials).unwrap();
        let changed = text.replace(
            "base = [0.570068, 0.0430135, 0.0443706]",
            "base = [0.05, 0.05, 0.6]",
        );
        if changed == text {
            return Err("the red wall's colour is not in cornell.materials.toml".into());
        }
        std::fs::write(&materials, changed).unwrap();
        wait_for("the second bake", limit, || {
            std::fs::read(&beauty).is_ok_and(|b| b != first)
        });
        wait_for("the watch to wait again", limit, || {
            log_text().matches("watching").count() >= 2
        });
        Ok(())
    };
    let result = check();
    let _ = child.kill();
    let _ = child.wait();
    result.unwrap();
    assert!(dir.path().join("plates.preview.png").exists());
}
