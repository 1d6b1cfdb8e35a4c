//! The light tree (src/lights/tree.rs) in renders: on a hall of 224 lamps it beats picking by
//! power at equal samples, against a converged reference the bake made; and the measurement
//! behind `integrator::TREE_SHARE` (ignored: it prints a table, see docs/rendering.md).

use std::path::{Path, PathBuf};
use std::time::Instant;

use pfx_bake::integrator::{self, NoProgress, PathTracer, Settings};
use pfx_bake::lights::LightChoice;
use pfx_bake::plates::read_exr_rgb;
use pfx_bake::scene;
use pfx_bake::world::World;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn world(file: &str, size: [u32; 2]) -> World {
    let s = scene::load(&root().join(file)).unwrap_or_else(|d| panic!("{d:#?}"));
    World::build(&s, size).unwrap_or_else(|e| panic!("{:#?}", e.0))
}

fn settings(spp: u32, seed: u64) -> Settings {
    Settings {
        spp,
        seed,
        ..Settings::default()
    }
}

/// The choices compared: by power alone, or the guided distribution with a tree share.
#[derive(Clone, Copy, Debug)]
enum Choice {
    Power,
    Share(f32),
    /// The bake's default: `PathTracer::new` (the tree share by the vertex's lobe).
    Default,
}

fn tracer<'w>(w: &'w World, choice: Choice, s: Settings) -> PathTracer<'w> {
    match choice {
        Choice::Power => {
            PathTracer::with_choice(&w.trace, LightChoice::fixed(w.trace.light_power.clone()), s)
        }
        Choice::Share(t) => PathTracer::with_tree_share(&w.trace, &w.camera, s, t),
        Choice::Default => PathTracer::new(&w.trace, &w.camera, s),
    }
}

/// The render's pixels and its seconds.
fn render(w: &World, choice: Choice, s: Settings) -> (Vec<[f32; 3]>, f64) {
    let t0 = Instant::now();
    let tr = tracer(w, choice, s);
    let img = integrator::render_with(&tr, &w.camera, &NoProgress);
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(img.dropped, 0, "non-finite samples were dropped");
    (img.radiance.iter().map(|c| c.to_array()).collect(), secs)
}

/// tests/reference.rs's relMSE: mean over pixels and channels of (a − r)² / (r² + 0.01).
fn rel_mse(a: &[[f32; 3]], r: &[[f32; 3]]) -> f64 {
    assert_eq!(a.len(), r.len());
    let mut s = 0.0;
    for (x, y) in a.iter().zip(r) {
        for c in 0..3 {
            let d = (x[c] - y[c]) as f64;
            s += d * d / (y[c] as f64 * y[c] as f64 + 0.01);
        }
    }
    s / (a.len() * 3) as f64
}

/// The hall's reference: 64×40, made by the bake (`make_hall_reference` below).
const HALL_REFERENCE: &str = "tests/data/hall/reference_64x40.exr";
const HALL_SIZE: [u32; 2] = [64, 40];

fn hall_reference() -> Vec<[f32; 3]> {
    let (w, h, px) = read_exr_rgb(&root().join(HALL_REFERENCE)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!([w, h], HALL_SIZE);
    px
}

/// At 8 spp on the hall, the tree (the bake's default choice) has at most half the relMSE of
/// picking by power; the measured ratio is far larger (docs/rendering.md), so this fails only
/// when the tree stops choosing near lamps.
#[test]
fn hall_tree_beats_picking_by_power() {
    let w = world("tests/data/hall/hall.scene.toml", HALL_SIZE);
    assert_eq!(w.trace.lights.len(), 224);
    let reference = hall_reference();
    let s = settings(8, 3);
    let (power, _) = render(&w, Choice::Power, s);
    let (tree, _) = render(&w, Choice::Default, s);
    let (e_power, e_tree) = (rel_mse(&power, &reference), rel_mse(&tree, &reference));
    println!("hall 8 spp relMSE: power {e_power:.4}, tree {e_tree:.4}");
    assert!(
        e_tree * 2.0 < e_power,
        "tree {e_tree:.4} not half of power {e_power:.4}"
    );
    // The image mean within 10 % of the reference's: the lamps' rare bright paths (a tiny
    // sphere found by a bounce ray) are in the reference's mean and mostly missing from an
    // 8-spp image, so every choice, picking by power too, reads 3–5 % low here; the tight
    // bias checks are tests/reference.rs's.
    let (m_tree, m_ref) = (mean(&tree), mean(&reference));
    assert!(
        (m_tree / m_ref - 1.0).abs() < 0.10,
        "mean {m_tree} vs {m_ref}"
    );
}

/// The sum over pixels and channels.
fn mean(p: &[[f32; 3]]) -> f64 {
    p.iter().map(|c| (c[0] + c[1] + c[2]) as f64).sum::<f64>()
}

/// With the tree on (the default choice), one and two worker threads give the same bits.
#[test]
fn same_bits_on_one_and_two_threads() {
    let w = world("tests/data/hall/hall.scene.toml", [40, 24]);
    let on = |threads: usize| -> Vec<u32> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let tr = PathTracer::new(&w.trace, &w.camera, settings(4, 9));
            assert!(tr.choice().uses_tree());
            let img = integrator::render_with(&tr, &w.camera, &NoProgress);
            img.radiance
                .iter()
                .flat_map(|c| c.to_array().map(f32::to_bits))
                .collect()
        })
    };
    assert_eq!(on(1), on(2));
}

/// Writes the hall's reference with the guided choice alone (no tree, so the yardstick does
/// not share the code it measures): `cargo test --release --test light_tree --
/// --ignored make_hall_reference`.
#[test]
#[ignore]
fn make_hall_reference() {
    let w = world("tests/data/hall/hall.scene.toml", HALL_SIZE);
    let spp = std::env::var("PFX_REF_SPP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16384);
    let (px, secs) = render(&w, Choice::Share(0.0), settings(spp, 12345));
    println!("{spp} spp in {secs:.1} s");
    let [width, height] = HALL_SIZE;
    exr::prelude::write_rgb_file(
        root().join(HALL_REFERENCE),
        width as usize,
        height as usize,
        |x, y| {
            let c = px[y * width as usize + x];
            (c[0], c[1], c[2])
        },
    )
    .unwrap();
}

/// The measurement behind `TREE_SHARE`: relMSE against a reference and seconds, at equal
/// samples, for each choice on the hall, the Cornell box and the flagship. The flagship's
/// reference is a plate folder named by `PFX_ROOM_REFERENCE` (320×180 beauty.exr), a larger
/// hall's by `PFX_HALL_REFERENCE` (its size read from its beauty.exr). Run with
/// `cargo test --release --test light_tree -- --ignored --nocapture measure_choices`.
#[test]
#[ignore]
fn measure_choices() {
    let choices = [
        Choice::Power,
        Choice::Share(0.0),
        Choice::Share(0.5),
        Choice::Share(1.0),
    ];
    let mut cases: Vec<(&str, String, [u32; 2], u32, PathBuf)> = vec![
        (
            "hall",
            "tests/data/hall/hall.scene.toml".into(),
            HALL_SIZE,
            16,
            root().join(HALL_REFERENCE),
        ),
        (
            "cornell",
            "tests/data/scenes/cornell/cornell.scene.toml".into(),
            [256, 256],
            16,
            root().join("tests/data/references/cornell_ref.exr"),
        ),
    ];
    // A larger hall, where the fixed pre-pass weighs less against the render (a plate
    // folder of `bake tests/data/hall/hall.scene.toml --size WxH --spp 2048 --seed 77`).
    if let Ok(dir) = std::env::var("PFX_HALL_REFERENCE") {
        let file = Path::new(&dir).join("beauty.exr");
        let (w, h, _) = read_exr_rgb(&file).unwrap_or_else(|e| panic!("{e}"));
        cases.push((
            "hall-big",
            "tests/data/hall/hall.scene.toml".into(),
            [w, h],
            16,
            file,
        ));
    }
    if let Ok(dir) = std::env::var("PFX_ROOM_REFERENCE") {
        cases.push((
            "flagship",
            "scenes/room.scene.toml".into(),
            [320, 180],
            16,
            Path::new(&dir).join("beauty.exr"),
        ));
    }
    for (name, file, size, spp, reference) in cases {
        let w = world(&file, size);
        let (rw, rh, r) = read_exr_rgb(&reference).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!([rw, rh], size);
        for choice in choices {
            let mut e = 0.0;
            let mut t = 0.0;
            let mut m = 0.0;
            let seeds = [1u64, 2];
            for seed in seeds {
                let (px, secs) = render(&w, choice, settings(spp, seed));
                e += rel_mse(&px, &r) / seeds.len() as f64;
                t += secs / seeds.len() as f64;
                m += mean(&px) / mean(&r) / seeds.len() as f64;
            }
            println!(
                "{name:9} {:>12} {spp} spp: relMSE {e:.5}  {t:.2} s  efficiency {:.1}  mean/ref {m:.4}",
                format!("{choice:?}"),
                1.0 / (e * t)
            );
        }
    }
}

/// Whether the light choices agree in the mean on the flagship (the golden test's trimmed
/// z-score saw the tree's image and the fixed choice's differ; trimming the largest |d| is
/// not neutral between two estimators whose fireflies differ). Untrimmed: per seed, the
/// mean of each channel over the image and over 4×3 blocks; the z-score of a choice's mean
/// against picking by power, from the spread over seeds. Run with `cargo test --release
/// --test light_tree -- --ignored --nocapture flagship_choices_agree`.
#[test]
#[ignore]
fn flagship_choices_agree() {
    const SIZE: [u32; 2] = [160, 90];
    const BX: usize = 4;
    const BY: usize = 3;
    let spp: u32 = std::env::var("PFX_SPP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32);
    let seeds: u64 = std::env::var("PFX_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let w = world("scenes/room.scene.toml", SIZE);
    // Per choice, per seed: the whole-image channel means, then each block's.
    let stats = |choice: Choice| -> Vec<Vec<f64>> {
        (0..seeds)
            .map(|seed| {
                let (px, _) = render(&w, choice, settings(spp, 100 + seed));
                let mut v = vec![0.0f64; 3 * (1 + BX * BY)];
                let (wd, ht) = (SIZE[0] as usize, SIZE[1] as usize);
                for (i, p) in px.iter().enumerate() {
                    let (x, y) = (i % wd, i / wd);
                    let b = 1 + (y * BY / ht) * BX + x * BX / wd;
                    for c in 0..3 {
                        v[c] += p[c] as f64 / px.len() as f64;
                        v[3 * b + c] += p[c] as f64 * (BX * BY) as f64 / px.len() as f64;
                    }
                }
                v
            })
            .collect()
    };
    let mean_var = |s: &[Vec<f64>], k: usize| {
        let n = s.len() as f64;
        let m = s.iter().map(|v| v[k]).sum::<f64>() / n;
        let var = s.iter().map(|v| (v[k] - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, var / n)
    };
    let power = stats(Choice::Power);
    for choice in [Choice::Share(0.0), Choice::Share(0.5), Choice::Share(1.0)] {
        let other = stats(choice);
        let z: Vec<f64> = (0..power[0].len())
            .map(|k| {
                let (ma, va) = mean_var(&power, k);
                let (mb, vb) = mean_var(&other, k);
                (mb - ma) / (va + vb).sqrt().max(1e-12)
            })
            .collect();
        let whole = [z[0], z[1], z[2]];
        let worst = z
            .iter()
            .enumerate()
            .skip(3)
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
            .map_or((0.0, 3), |(k, &v)| (v, k));
        let (m, _) = mean_var(&other, 0);
        let (mp, _) = mean_var(&power, 0);
        println!(
            "{:>12} vs Power, {seeds} seeds × {spp} spp: whole-image z (R, G, B) = {:.2} {:.2} {:.2}; \
             worst block z {:.2} (block {}, channel {}); mean R {m:.5} vs {mp:.5}",
            format!("{choice:?}"),
            whole[0],
            whole[1],
            whole[2],
            worst.0,
            worst.1 / 3 - 1,
            worst.1 % 3
        );
    }
}
