//! `[haze]`: the box medium against independent references (`tests/data/haze/README.md`): a
//! from-scratch random walk of a uniform haze in the Cornell box and Mitsuba 3.9.1's `volpath`
//! of the same haze under the Cornell light alone; a white furnace (haze of albedo 1, noisy
//! layers and all, under a uniform sky looks exactly like the sky); and the same bytes on one
//! and two threads.

use std::path::{Path, PathBuf};

use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::plates::read_exr_rgb;
use pfx_bake::scene::{self, Haze, Scene, Sky, SkyKind};
use pfx_bake::world::World;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn lum(c: [f32; 3]) -> f64 {
    0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64
}

const SIZE: usize = 64;

fn render_world(world: &World, spp: u32, seed: u64, max_depth: u32) -> Vec<[f32; 3]> {
    let settings = Settings {
        spp,
        seed,
        max_depth,
        ..Settings::default()
    };
    let image = integrator::render(world, &settings, &NoProgress);
    assert_eq!(image.dropped, 0, "non-finite samples were dropped");
    image.radiance.iter().map(|c| c.to_array()).collect()
}

fn load(file: &Path) -> World {
    let scene = scene::load(file).unwrap_or_else(|d| panic!("{d:#?}"));
    World::build(&scene, [SIZE as u32; 2]).unwrap_or_else(|e| panic!("{:#?}", e.0))
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
            a += lum(img[(by * 8 + y) * SIZE + bx * 8 + x]) / 64.0;
        }
    }
    a
}

fn channel_means(img: &[[f32; 3]]) -> [f64; 3] {
    let mut m = [0.0f64; 3];
    for p in img {
        for c in 0..3 {
            m[c] += p[c] as f64 / img.len() as f64;
        }
    }
    m
}

/// The bake's image of `scene` (64×64, 16, 64 and 256 spp, max depth `max_depth`) against
/// `reference` with the reference tests' tolerances (`tests/reference.rs`): each channel's mean
/// within `mean_tol`, every 8×8 block holding at least 5 % of the mean luminance within three
/// times that, and a relMSE whose log-log slope over 16, 64 and 256 spp lies between −1.15 and
/// −0.85. A 64×64 image at 256 spp leaves more blocks noise-limited than the reference tests'
/// 256×256 (the haze's rim, where a pixel's rays part between the haze and the dark): where a
/// block's standard error (the spread of eight 32-spp renders, plus the reference's own where
/// it is known) is above a third of the tolerance it must lie within four of them (a stricter
/// bound than the reference tests' six), and the median block's standard error must be at most
/// half the tolerance (a block off by twice the tolerance is then more than four standard
/// errors out). Where the reference comes with `variance` (each pixel's variance of its mean), its
/// own noise is taken out: the relMSE's share of it subtracted, and its block errors added to
/// the bake's in the standard errors. Returns the 256-spp image and the reference.
fn check_against(
    scene_file: &str,
    reference: &str,
    variance: Option<&str>,
    mean_tol: f64,
    max_depth: u32,
) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let read = |f: &str| {
        let (w, h, img) =
            read_exr_rgb(&root().join("tests/data/haze").join(f)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((w as usize, h as usize), (SIZE, SIZE));
        img
    };
    let reference = read(reference);
    let variance = variance.map(read);
    // The reference's own share of any relMSE against it: E[(x − y)²] = E[(x − μ)²] + var(y).
    let noise_floor = variance.as_ref().map_or(0.0, |v| {
        let mut s = 0.0;
        for (y, var) in reference.iter().zip(v) {
            for c in 0..3 {
                s += var[c] as f64 / (y[c] as f64 * y[c] as f64 + 0.01);
            }
        }
        s / (reference.len() * 3) as f64
    });
    // A block's luminance variance in the reference, taking its channels as fully correlated
    // (one path lights all three): an upper bound.
    let block_var = |bx: usize, by: usize| -> f64 {
        let Some(v) = &variance else { return 0.0 };
        let w = [0.2126, 0.7152, 0.0722];
        let mut s = 0.0;
        for y in 0..8 {
            for x in 0..8 {
                let p = v[(by * 8 + y) * SIZE + bx * 8 + x];
                let sd: f64 = (0..3).map(|c| w[c] * (p[c] as f64).sqrt()).sum();
                s += sd * sd;
            }
        }
        s / (64.0 * 64.0)
    };
    let world = load(&root().join("tests/data/haze").join(scene_file));
    assert!(world.trace.medium.is_some());

    // 256 spp as eight independent renders of 32: their spread gives each block's standard
    // error (seven degrees of freedom), the first two make the 64-spp image.
    let r16 = render_world(&world, 16, 7, max_depth);
    let groups: Vec<Vec<[f32; 3]>> = (7..15)
        .map(|s| render_world(&world, 32, s, max_depth))
        .collect();
    let average = |imgs: &[Vec<[f32; 3]>]| -> Vec<[f32; 3]> {
        (0..reference.len())
            .map(|i| {
                let mut c = [0.0f32; 3];
                for q in imgs {
                    for k in 0..3 {
                        c[k] += q[i][k] / imgs.len() as f32;
                    }
                }
                c
            })
            .collect()
    };
    let r64 = average(&groups[..2]);
    let r256 = average(&groups);
    let spps = [16f64, 64.0, 256.0];
    let errors: Vec<f64> = [&r16, &r64, &r256]
        .iter()
        .map(|img| rel_mse(img, &reference) - noise_floor)
        .collect();
    assert!(
        errors.iter().all(|e| *e > 0.0),
        "{scene_file}: relMSE {errors:?} after the reference's noise {noise_floor:e}"
    );
    let xs: Vec<f64> = spps.iter().map(|s| s.ln()).collect();
    let ys: Vec<f64> = errors.iter().map(|e| e.ln()).collect();
    let (mx, my) = (xs.iter().sum::<f64>() / 3.0, ys.iter().sum::<f64>() / 3.0);
    let slope = xs
        .iter()
        .zip(&ys)
        .map(|(x, y)| (x - mx) * (y - my))
        .sum::<f64>()
        / xs.iter().map(|x| (x - mx) * (x - mx)).sum::<f64>();
    eprintln!(
        "{scene_file}: relMSE {errors:?} (reference noise {noise_floor:e} out), slope {slope:.3}"
    );

    let ours = channel_means(&r256);
    let theirs = channel_means(&reference);
    let ratios: Vec<f64> = (0..3).map(|c| ours[c] / theirs[c]).collect();
    eprintln!("{scene_file}: mean ratio ours/reference {ratios:.4?}");

    let block_tol = 3.0 * mean_tol;
    let mean_lum = reference.iter().map(|p| lum(*p)).sum::<f64>() / reference.len() as f64;
    let (mut worst, mut noisy, mut checked) = (0.0f64, 0, 0);
    let mut rel_se = Vec::new();
    for by in 0..SIZE / 8 {
        for bx in 0..SIZE / 8 {
            let b = block_lum(&reference, bx, by);
            if b < 0.05 * mean_lum {
                continue;
            }
            checked += 1;
            let qs: Vec<f64> = groups.iter().map(|q| block_lum(q, bx, by)).collect();
            let n = qs.len() as f64;
            let m = qs.iter().sum::<f64>() / n;
            let se = (qs.iter().map(|q| (q - m) * (q - m)).sum::<f64>() / (n - 1.0) / n
                + block_var(bx, by))
            .sqrt();
            let r = (m / b - 1.0).abs();
            rel_se.push(se / b);
            if se / b > block_tol / 3.0 {
                noisy += 1;
                let z = (m - b).abs() / se.max(1e-12);
                assert!(
                    z <= 4.0,
                    "{scene_file}: block ({bx}, {by}) off by {:.1} % = {z:.1} s.e.",
                    r * 100.0
                );
            } else {
                assert!(
                    r <= block_tol,
                    "{scene_file}: block ({bx}, {by}) off by {:.2} %",
                    r * 100.0
                );
                worst = worst.max(r);
            }
        }
    }
    eprintln!(
        "{scene_file}: {checked} blocks, worst {:.2} %, {noisy} noise-limited",
        worst * 100.0
    );
    for (c, r) in ratios.iter().enumerate() {
        assert!(
            (r - 1.0).abs() <= mean_tol,
            "{scene_file}: channel {c}: ratio {r:.4}"
        );
    }
    // The blocks have power: at the median block's standard error, a block off by twice the
    // tolerance is more than four standard errors out.
    rel_se.sort_by(f64::total_cmp);
    let median_se = rel_se[rel_se.len() / 2];
    assert!(
        median_se <= block_tol / 2.0,
        "{scene_file}: {noisy} of {checked} blocks noise-limited, median s.e. {:.2} %",
        median_se * 100.0
    );
    assert!(
        (-1.15..=-0.85).contains(&slope),
        "{scene_file}: relMSE slope {slope:.3}: {errors:?}"
    );
    (r256, reference)
}

/// The Cornell box with a floating box of uniform haze under its light (fog 8 per metre, HG
/// g = 0.5 with a back lobe, a tinted albedo) against the independent random walk
/// (`tests/tools/haze_randomwalk.py`, no depth limit, so the bake runs to depth 64 here): the
/// Cornell reference's tolerances. Walls lit through the haze, haze lit by the walls: all of
/// it multiple scattering between surfaces and medium. The same box without the haze is far
/// off block by block, so the comparison sees the haze.
#[test]
fn haze_in_the_cornell_box_matches_an_independent_random_walk() {
    let mean_tol = 0.02;
    let (_, reference) = check_against(
        "cornell_haze.scene.toml",
        "cornell_haze_rw.exr",
        Some("cornell_haze_rw_var.exr"),
        mean_tol,
        64,
    );
    // Without the haze the same view is far from the reference, block by block (the image
    // mean alone moves by only 4 %: the haze takes light from the walls and scatters it
    // towards the camera).
    let clear = load(&root().join("tests/data/scenes/cornell/cornell.scene.toml"));
    let img = render_world(&clear, 16, 7, 64);
    let mean_lum = reference.iter().map(|p| lum(*p)).sum::<f64>() / reference.len() as f64;
    let mut off = 0.0f64;
    for by in 0..SIZE / 8 {
        for bx in 0..SIZE / 8 {
            let b = block_lum(&reference, bx, by);
            if b >= 0.05 * mean_lum {
                off = off.max((block_lum(&img, bx, by) / b - 1.0).abs());
            }
        }
    }
    assert!(
        off > 5.0 * 3.0 * mean_tol,
        "without the haze the blocks move by only {off:.4}"
    );
}

/// The Cornell light over the same box of haze, nothing else, against Mitsuba 3.9.1's
/// `volpath` (phase sampling in the medium; `tests/data/haze/README.md`): the Cornell
/// reference's tolerances over the image, and the haze's own light (every pixel but those that
/// see the light itself) within the same 2 %.
#[test]
fn haze_under_a_light_matches_the_mitsuba_volpath_reference() {
    let mean_tol = 0.02;
    let (ours, reference) = check_against(
        "light_haze.scene.toml",
        "light_haze_ref.exr",
        None,
        mean_tol,
        16,
    );
    let haze: Vec<usize> = (0..reference.len())
        .filter(|&i| lum(reference[i]) < 2.0)
        .collect();
    assert!(haze.len() * 10 > reference.len() * 9);
    let pick = |img: &[[f32; 3]]| haze.iter().map(|&i| img[i]).collect::<Vec<_>>();
    let (a, b) = (
        channel_means(&pick(&ours)),
        channel_means(&pick(&reference)),
    );
    for c in 0..3 {
        let r = a[c] / b[c];
        eprintln!("light_haze: the haze's light, channel {c}: ratio {r:.4}");
        assert!(
            (r - 1.0).abs() <= mean_tol,
            "the haze's light, channel {c}: {r:.4}"
        );
    }
}

/// A white HDR sky of radiance 1, written into `dir`.
fn white_sky(dir: &Path) -> Sky {
    let hdr = dir.join("white.hdr");
    let file = std::fs::File::create(&hdr).unwrap();
    let px = vec![image::Rgb([1.0f32, 1.0, 1.0]); 8];
    image::codecs::hdr::HdrEncoder::new(file)
        .encode(&px, 4, 2)
        .unwrap();
    Sky {
        kind: SkyKind::Hdr,
        path: Some(hdr),
        rotation_deg: 0.0,
        intensity: 1.0,
        ..Default::default()
    }
}

/// A haze with every layer on (fog, mist, smoke, floor), noise seed `seed`.
fn noisy_haze(gold: [f32; 3], ambient: [f32; 3], seed: u64) -> Haze {
    Haze {
        lo: [-1.0, -1.0, -1.0],
        hi: [1.0, 1.0, 1.0],
        fog: 0.4,
        smoke: 3.0,
        mist: 0.3,
        floor: 1.5,
        phase: 0.6,
        back: 0.5,
        reach: 3.0,
        gold,
        ambient,
        unmapped: 0.0,
        seed,
    }
}

/// A box of albedo 1 inside the haze, under a uniform sky, seen from outside.
fn furnace(dir: &Path, haze: Haze) -> Scene {
    let boxfile = root().join("tests/data/gltf/Box/Box.glb");
    Scene {
        root: dir.to_path_buf(),
        file: "furnace.scene.toml".into(),
        meshes: vec![scene::Mesh {
            key: "box".into(),
            file: boxfile,
            ..Default::default()
        }],
        objects: vec![scene::Object {
            key: "box".into(),
            mesh: "box".into(),
            rotate: [30.0, 40.0, 0.0],
            scale: [0.7; 3],
            material: Some("white".into()),
            alpha_cutoff: 0.5,
            pick: 1,
            ..Default::default()
        }],
        materials: vec![scene::Material {
            key: "white".into(),
            base: [1.0; 3],
            roughness: 1.0,
            metalness: 0.0,
            specular: 0.0,
            ..Default::default()
        }],
        camera: Some(scene::Camera {
            at: [0.0, 0.0, 3.0],
            fov: 30.0,
            ..Default::default()
        }),
        sky: Some(white_sky(dir)),
        haze: Some(haze),
        ..Default::default()
    }
}

/// Haze of albedo 1 (every layer, a two-lobe phase) around a white box under a white sky:
/// scattering moves light and neither makes nor loses it, so every pixel's expected radiance
/// is the sky's, 1. An albedo of 0.5 must look darker, and ambient light brighter.
#[test]
fn haze_of_albedo_one_conserves_energy_in_a_white_furnace() {
    let dir = tempfile::tempdir().unwrap();
    let world = World::build(
        &furnace(dir.path(), noisy_haze([1.0; 3], [0.0; 3], 3)),
        [32, 32],
    )
    .unwrap_or_else(|e| panic!("{:#?}", e.0));
    let img = render_world(&world, 64, 1, 256);
    let m = channel_means(&img);
    let n = img.len() as f64;
    let var = img
        .iter()
        .map(|p| (p[1] as f64 - m[1]).powi(2))
        .sum::<f64>()
        / n;
    eprintln!("furnace: mean {m:?}, pixel s.d. {:.4}", var.sqrt());
    for c in m {
        assert!((c - 1.0).abs() < 0.01, "furnace mean {c}");
    }

    let grey = World::build(
        &furnace(dir.path(), noisy_haze([0.5; 3], [0.0; 3], 3)),
        [32, 32],
    )
    .unwrap_or_else(|e| panic!("{:#?}", e.0));
    let g = channel_means(&render_world(&grey, 16, 1, 256));
    assert!(g[1] < 0.9, "an absorbing haze should darken: {g:?}");
    let lit = World::build(
        &furnace(dir.path(), noisy_haze([0.5; 3], [2.0; 3], 3)),
        [32, 32],
    )
    .unwrap_or_else(|e| panic!("{:#?}", e.0));
    let a = channel_means(&render_world(&lit, 16, 1, 256));
    assert!(
        a[1] > g[1] + 0.05,
        "ambient light should brighten: {a:?} vs {g:?}"
    );
}

/// A noisy haze renders the same bytes on one and two threads.
#[test]
fn haze_renders_the_same_bytes_on_one_and_two_threads() {
    let dir = tempfile::tempdir().unwrap();
    let world = World::build(
        &furnace(dir.path(), noisy_haze([0.9, 0.8, 0.7], [0.03; 3], 9)),
        [24, 20],
    )
    .unwrap_or_else(|e| panic!("{:#?}", e.0));
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| render_world(&world, 8, 5, 16))
    };
    let (a, b) = (on(1), on(2));
    let bits =
        |img: &[[f32; 3]]| -> Vec<u32> { img.iter().flatten().map(|x| x.to_bits()).collect() };
    assert_eq!(bits(&a), bits(&b));
    // Another noise seed moves the smoke.
    let other = World::build(
        &furnace(dir.path(), noisy_haze([0.9, 0.8, 0.7], [0.03; 3], 10)),
        [24, 20],
    )
    .unwrap_or_else(|e| panic!("{:#?}", e.0));
    assert_ne!(bits(&a), bits(&render_world(&other, 8, 5, 16)));
}
