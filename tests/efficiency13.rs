//! Issue 13's flagship figure: efficiency 1/(relMSE·seconds) against the frozen flagship's
//! yardstick (benches/data/room-reference/), with the light sampling and guiding on
//! against both off (lights picked by power, no guiding), in one build and one run.
//! Ignored: it prints a table (docs/rendering.md, "Issue 13's flagship figure").
//!
//! `E13_ROOM=/tmp/frozen-room/scenes/room.scene.toml E13_SPP=16 E13_SEEDS=2 taskset -c 1
//! cargo test --release --test efficiency13 -- --ignored --nocapture`; `E13_CONFIGS` picks
//! the rows (comma-separated names of [`CONFIGS`]), `E13_SIZE=WxH` and `E13_REFERENCE` (an
//! EXR of that size) measure another size; `E13_WRITE=DIR` keeps every render as an EXR;
//! `E13_FIRST_SEED` starts the seeds elsewhere than 1; `E13_AT_LEAST=ROW:X` fails unless row ROW
//! is at least X times as efficient as the first.

use std::path::{Path, PathBuf};
use std::time::Instant;

use pfx_bake::integrator::{self, NoProgress, PathTracer, Settings, Training};
use pfx_bake::scene;
use pfx_bake::world::World;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A row: the light choice (`None`: by power; `Some([s, n])`: the guided choice with tree share
/// `s`, `n` at vertices with a narrow lobe, the tree used whatever the number of lights;
/// `Some([-1, -1])`: the default), and whether guiding is on, from its name: `off`, `default`,
/// `guided` (tree share 0), `treeS` (tree share S at every vertex) or `treeS:N` (S, and N at
/// vertices with a narrow lobe), each optionally followed by `+guiding`: e.g.
/// `tree1:0.5+guiding`.
fn config(name: &str) -> (Option<[f32; 2]>, bool) {
    let (choice, guiding) = match name.strip_suffix("+guiding") {
        Some(r) => (r, true),
        None => (name, false),
    };
    let choice = match choice {
        "off" | "power" => None,
        "default" => Some([-1.0; 2]),
        "guided" => Some([0.0; 2]),
        c => {
            let shares = c
                .strip_prefix("tree")
                .unwrap_or_else(|| panic!("row {name}"));
            let (s, n) = shares.split_once(':').unwrap_or((shares, shares));
            let parse = |v: &str| -> f32 { v.parse().unwrap_or_else(|_| panic!("row {name}")) };
            Some([parse(s), parse(n)])
        }
    };
    (choice, guiding)
}

fn var<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// benches/relmse.py's metric: (x − ref)² / (ref² + 0.01), over pixels and channels.
fn relmse(img: &[glam::Vec3], r: &[[f32; 3]]) -> f64 {
    let mut s = 0.0f64;
    for (a, b) in img.iter().zip(r) {
        for c in 0..3 {
            let d = (a[c] - b[c]) as f64;
            s += d * d / (b[c] as f64 * b[c] as f64 + 0.01);
        }
    }
    s / (img.len() * 3) as f64
}

/// This process's CPU time, user and system, in seconds (`/proc/self/stat`, 100 ticks a
/// second): on one pinned thread it is the render's own time however loaded the machine is.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis; utime and stime are the 12th and
    // 13th of them (the 14th and 15th of the line).
    let rest = stat.rsplit_once(')').map_or("", |r| r.1);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0.0))
        .collect();
    (f.get(11).unwrap_or(&0.0) + f.get(12).unwrap_or(&0.0)) / 100.0
}

fn lum_sum(px: impl Iterator<Item = [f32; 3]>) -> f64 {
    px.map(|c| 0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64)
        .sum()
}

/// The guide's training: the default, with `E13_VERTICES`, `E13_ALPHA`, `E13_GRID`,
/// `E13_MIN_ROUGHNESS` and `E13_RECORD_CAP` overriding its fields.
fn training() -> Training {
    let d = Training::default();
    Training {
        guided_vertices: var("E13_VERTICES", d.guided_vertices),
        bsdf_share: var("E13_ALPHA", d.bsdf_share),
        grid: var("E13_GRID", d.grid),
        min_roughness: var("E13_MIN_ROUGHNESS", d.min_roughness),
        record_cap: var("E13_RECORD_CAP", d.record_cap),
        ..d
    }
}

#[test]
#[ignore]
fn measure_flagship_efficiency() {
    let Ok(scene_file) = std::env::var("E13_ROOM") else {
        eprintln!("E13_ROOM not set (the frozen flagship's room.scene.toml)");
        return;
    };
    let size: [u32; 2] = std::env::var("E13_SIZE")
        .ok()
        .and_then(|s| {
            let (w, h) = s.split_once('x')?;
            Some([w.parse().ok()?, h.parse().ok()?])
        })
        .unwrap_or([320, 180]);
    let reference = std::env::var("E13_REFERENCE").map_or_else(
        |_| root().join("benches/data/room-reference/beauty_320x180_4096spp.exr"),
        PathBuf::from,
    );
    let spp: u32 = var("E13_SPP", 16);
    let seeds: u64 = var("E13_SEEDS", 2);
    // `E13_FIRST_SEED=S` starts the seeds at S (to look again at one seed's render).
    let first_seed: u64 = var("E13_FIRST_SEED", 1);
    let wanted = std::env::var("E13_CONFIGS").unwrap_or_else(|_| "off,tree1,tree1+guiding".into());
    let configs: Vec<_> = wanted
        .split(',')
        .map(|n| {
            let (choice, guiding) = config(n.trim());
            (n.trim().to_string(), choice, guiding)
        })
        .collect();
    eprintln!("training (rows with guiding): {:?}", training());
    let scene = scene::load(Path::new(&scene_file)).unwrap_or_else(|d| panic!("{d:#?}"));
    let world = World::build(&scene, size).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let (rw, rh, r) = pfx_bake::plates::read_exr_rgb(&reference).unwrap();
    assert_eq!([rw, rh], size);
    let r_lum = lum_sum(r.iter().copied());
    let n = configs.len();
    let (mut rel, mut secs, mut mean) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let mut walls = vec![0.0; n];
    for seed in first_seed..first_seed + seeds {
        let settings = Settings {
            spp,
            seed,
            max_depth: var("E13_DEPTH", Settings::default().max_depth),
            ..Settings::default()
        };
        // Every row of a seed, then the next seed: load drifts over all rows alike.
        for (i, (name, choice, guiding)) in configs.iter().enumerate() {
            let (choice, guiding) = (*choice, *guiding);
            let t0 = Instant::now();
            let c0 = cpu_seconds();
            let mut tracer = match choice {
                None => PathTracer::by_power(&world.trace, &world.camera, settings),
                Some(s) if s[0] < 0.0 => PathTracer::new(&world.trace, &world.camera, settings),
                Some(s) => {
                    PathTracer::with_tree_shares(&world.trace, &world.camera, settings, s, 1)
                }
            };
            if guiding {
                tracer = tracer.with_guiding_as(&world.camera, training());
            }
            let prep = t0.elapsed().as_secs_f64();
            let img = integrator::render_with(&tracer, &world.camera, &NoProgress);
            let wall = t0.elapsed().as_secs_f64();
            let t = cpu_seconds() - c0;
            assert_eq!(img.dropped, 0);
            let e = relmse(&img.radiance, &r);
            // `E13_WRITE=DIR` keeps each render as DIR/NAME-seedS.exr, to look at its fireflies.
            if let Ok(dir) = std::env::var("E13_WRITE") {
                let file = Path::new(&dir).join(format!("{name}-seed{seed}.exr"));
                let px = &img.radiance;
                exr::prelude::write_rgb_file(file, size[0] as usize, size[1] as usize, |x, y| {
                    let c = px[y * size[0] as usize + x];
                    (c.x, c.y, c.z)
                })
                .unwrap();
            }
            let m = lum_sum(img.radiance.iter().map(|c| c.to_array())) / r_lum;
            eprintln!(
                "seed {seed} {name:>16}: relMSE {e:.4}  CPU {t:.2} s, wall {wall:.2} s (before the render {prep:.2} s)  mean/ref {m:.4}"
            );
            rel[i] += e / seeds as f64;
            secs[i] += t / seeds as f64;
            walls[i] += wall / seeds as f64;
            mean[i] += m / seeds as f64;
        }
    }
    let eff0 = 1.0 / (rel[0] * secs[0]);
    eprintln!(
        "{} at {}x{}, {spp} spp, seeds {first_seed}..{}; | row | relMSE | CPU s | wall s | mean/ref | efficiency (CPU s) against the first row |",
        scene_file,
        size[0],
        size[1],
        first_seed + seeds
    );
    for (i, c) in configs.iter().enumerate() {
        let eff = 1.0 / (rel[i] * secs[i]);
        eprintln!(
            "| {:>16} | {:.4} | {:.2} | {:.2} | {:.4} | {:.2} |",
            c.0,
            rel[i],
            secs[i],
            walls[i],
            mean[i],
            eff / eff0
        );
    }
    // `E13_AT_LEAST=ROW:X` fails the run unless row ROW's efficiency against the first row is
    // at least X (issue 13's figure: `E13_CONFIGS=off,default E13_AT_LEAST=default:3`).
    if let Ok(want) = std::env::var("E13_AT_LEAST") {
        let (row, x) = want.split_once(':').expect("E13_AT_LEAST=ROW:X");
        let x: f64 = x.parse().expect("E13_AT_LEAST=ROW:X");
        let i = configs
            .iter()
            .position(|c| c.0 == row)
            .expect("E13_AT_LEAST names a row");
        let eff = (1.0 / (rel[i] * secs[i])) / eff0;
        assert!(
            eff >= x,
            "{row}: efficiency {eff:.2} against the first row, below {x}"
        );
    }
}
