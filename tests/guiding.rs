//! Path guiding (`bake --guiding`, src/integrator/guiding/) changes only the noise: a closed
//! emissive box renders to its closed-form radiance guided, the Cornell box's guided mean is
//! the unguided one within standard errors, and the guided render is the same bytes on one
//! thread as on two. (The Cornell box and spheres against Mitsuba with guiding on are in
//! tests/reference.rs; the quadtree's pdf and sampling are tested beside it.)

use std::path::{Path, PathBuf};
use std::time::Instant;

use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, PathTracer, Plan, Settings, Training};
use pfx_bake::scene;
use pfx_bake::world::World;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn render(world: &World, settings: Settings, guiding: bool) -> Image {
    let mut tracer = PathTracer::new(&world.trace, &world.camera, settings);
    if guiding {
        tracer = tracer.with_guiding(&world.camera);
        assert!(tracer.guide().is_some(), "the guide learnt nothing");
    }
    let image = integrator::render_with(&tracer, &world.camera, &NoProgress);
    assert_eq!(image.dropped, 0, "non-finite samples were dropped");
    image
}

fn mean_lum(img: &Image) -> f64 {
    img.radiance
        .iter()
        .map(|c| 0.2126 * c.x as f64 + 0.7152 * c.y as f64 + 0.0722 * c.z as f64)
        .sum::<f64>()
        / img.radiance.len() as f64
}

fn cornell(size: [u32; 2]) -> World {
    let scene = scene::load(&root().join("scenes/cornell/cornell.scene.toml"))
        .unwrap_or_else(|d| panic!("{d:#?}"));
    World::build(&scene, size).unwrap_or_else(|e| panic!("{:#?}", e.0))
}

/// The closed box of tests/furnace.rs (walls of `base` 0.5, `roughness` 1 and the given
/// `specular`, emitting 1 on both faces, seen from inside) rendered at 24×24, 64 spp, seed
/// `seed`: the mean red radiance over the image and its standard error (from the spread of
/// the pixels, which are independent).
fn closed_box(specular: f32, guiding: Option<Training>, seed: u64) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let boxfile = root().join("tests/data/gltf/Box/Box.glb");
    let scene = scene::Scene {
        root: dir.path().to_path_buf(),
        file: "box.scene.toml".into(),
        meshes: vec![scene::Mesh {
            key: "box".into(),
            file: boxfile,
            ..Default::default()
        }],
        objects: vec![scene::Object {
            key: "box".into(),
            mesh: "box".into(),
            rotate: [30.0, 40.0, 0.0],
            scale: [4.0; 3],
            material: Some("wall".into()),
            alpha_cutoff: 0.5,
            two_sided: true,
            pick: 1,
            ..Default::default()
        }],
        materials: vec![scene::Material {
            key: "wall".into(),
            base: [0.5; 3],
            roughness: 1.0,
            specular,
            emission: [1.0, 1.0, 1.0],
            ..Default::default()
        }],
        camera: Some(scene::Camera {
            at: [0.0, 0.0, 0.0],
            look_at: [0.0, 0.3, -1.0],
            fov: 70.0,
            ..Default::default()
        }),
        ..Default::default()
    };
    let world = World::build(&scene, [24, 24]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let settings = Settings {
        spp: 64,
        seed,
        ..Settings::default()
    };
    let mut tracer = PathTracer::new(&world.trace, &world.camera, settings);
    if let Some(t) = guiding {
        tracer = tracer.with_guiding_as(&world.camera, t);
        assert!(tracer.guide().is_some(), "the guide learnt nothing");
    }
    let image = integrator::render_with(&tracer, &world.camera, &NoProgress);
    assert_eq!(image.dropped, 0, "non-finite samples were dropped");
    let v: Vec<f64> = image.radiance.iter().map(|c| c.x as f64).collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// Inside a closed box whose walls have albedo a and emit Le on both faces, every ray sees
/// Le·(1 + a + … + a¹⁵) (16 segments): guided paths through diffuse walls, area-light
/// sampling and MIS with the mixture's density together. The walls have `specular = 0`, a
/// bare Lambertian base of albedo exactly 0.5, as in tests/furnace.rs. (The first version of
/// this test kept the default `specular = 0.04`, whose dielectric layer reflects on top of
/// the base, and read 2.04 against 2.00 guided and unguided alike: the walls' albedo is then
/// above 0.5; see the test below.)
#[test]
fn guided_closed_emissive_box_sums_every_bounce() {
    let expected = (1.0 - 0.5f64.powi(16)) / (1.0 - 0.5);
    // The default (the first hit guided), and every vertex guided with no record cap.
    let every = Training {
        guided_vertices: u32::MAX,
        record_cap: 0.0,
        ..Training::default()
    };
    for (seed, training) in [(5, Training::default()), (6, every)] {
        let (mean, se) = closed_box(0.0, Some(training), seed);
        let z = (mean - expected) / se;
        eprintln!("guided closed box ({training:?}), seed {seed}: mean {mean:.5} ± {se:.5}, expected {expected:.5}, z = {z:.2}");
        assert!(
            z.abs() < 4.0,
            "mean {mean} ± {se} vs {expected}: z = {z:.1}"
        );
        assert!(
            (mean / expected - 1.0).abs() < 0.01,
            "mean {mean} vs {expected}"
        );
    }
}

/// With the default `specular = 0.04` the box has no simple closed form, but guided and
/// unguided renders (independent seeds) must agree, and both read above 2: the dielectric
/// layer's reflectance adds to the base's 0.5.
#[test]
fn guided_closed_box_with_a_specular_layer_is_the_unguided_one() {
    let every = Training {
        guided_vertices: u32::MAX,
        ..Training::default()
    };
    let (g, sg) = closed_box(0.04, Some(every), 11);
    let (u, su) = closed_box(0.04, None, 12);
    let z = (g - u) / (sg * sg + su * su).sqrt();
    eprintln!(
        "closed box, specular 0.04: guided {g:.5} ± {sg:.5}, unguided {u:.5} ± {su:.5}, z = {z:.2}"
    );
    assert!(z.abs() < 4.0, "guided {g} vs unguided {u}: z = {z:.1}");
    assert!(u > 2.01 && g > 2.01, "guided {g}, unguided {u}");
}

/// The Cornell box's mean luminance guided and unguided, each from four independent renders
/// (seeds 1–4), agree within four standard errors of their difference.
#[test]
fn guided_cornell_mean_is_the_unguided_one() {
    let world = cornell([64, 64]);
    let means = |guiding: bool| -> Vec<f64> {
        (1..5)
            .map(|seed| {
                let s = Settings {
                    spp: 32,
                    seed,
                    ..Settings::default()
                };
                mean_lum(&render(&world, s, guiding))
            })
            .collect()
    };
    let stats = |v: &[f64]| {
        let m = v.iter().sum::<f64>() / v.len() as f64;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (v.len() - 1) as f64;
        (m, var / v.len() as f64)
    };
    let (g, u) = (means(true), means(false));
    let ((mg, vg), (mu, vu)) = (stats(&g), stats(&u));
    let se = (vg + vu).sqrt();
    let z = (mg - mu).abs() / se.max(1e-12);
    eprintln!("cornell mean luminance: guided {mg:.5} unguided {mu:.5}, {z:.2} standard errors; {g:?} {u:?}");
    assert!(
        z < 4.0 || (mg / mu - 1.0).abs() < 1e-3,
        "guided {mg} vs unguided {mu}: {z:.1} standard errors"
    );
}

/// The training and the guided render give the same bytes on one thread as on two, with
/// uniform sampling and with adaptive sampling (`--noise-threshold`: which pixels stop
/// depends on their own samples only), and the passes (light groups mirror the guided first
/// vertex) alike.
#[test]
fn guided_render_is_the_same_on_one_and_two_threads() {
    let world = cornell([48, 40]);
    let settings = Settings {
        spp: 16,
        seed: 3,
        ..Settings::default()
    };
    let bits = |v: &[glam::Vec3]| -> Vec<[u32; 3]> {
        v.iter().map(|c| c.to_array().map(f32::to_bits)).collect()
    };
    let on = |threads: usize, plan: &Plan| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let tracer =
                PathTracer::new(&world.trace, &world.camera, settings).with_guiding(&world.camera);
            let guide = tracer.guide().unwrap().clone();
            let r = integrator::render_plan_with(&tracer, &world.camera, plan, &NoProgress);
            let passes = r.image.passes.as_ref().map(|p| format!("{p:?}"));
            (guide, bits(&r.image.radiance), r.image.samples, passes)
        })
    };
    let uniform = Plan::default();
    let adaptive = Plan {
        noise_threshold: Some(0.05),
        min_spp: 4,
        passes: true,
        ..Plan::default()
    };
    for plan in [&uniform, &adaptive] {
        let (ga, a, sa, pa) = on(1, plan);
        let (gb, b, sb, pb) = on(2, plan);
        assert!(ga.same_tree(&gb), "the guide differs");
        assert!(a == b, "the images differ ({plan:?})");
        assert_eq!(sa, sb, "the sample counts differ ({plan:?})");
        assert_eq!(pa, pb, "the passes differ ({plan:?})");
    }
    let (_, _, samples, _) = on(2, &adaptive);
    assert!(
        samples.iter().any(|&n| n < 16),
        "the adaptive plan stopped no pixel early"
    );
}

/// The guide is a function of the scene, the camera and the path-length settings: the
/// render's seed and spp (which a shard of a bake shares with the whole, but which differ
/// between bakes) do not change one bit of it, so any tiles or shards a process renders
/// see the same guide.
#[test]
fn the_guide_does_not_depend_on_the_render_seed_or_spp() {
    let world = cornell([48, 40]);
    let guide = |spp: u32, seed: u64| {
        let s = Settings {
            spp,
            seed,
            ..Settings::default()
        };
        PathTracer::new(&world.trace, &world.camera, s)
            .with_guiding(&world.camera)
            .guide()
            .unwrap()
            .clone()
    };
    let a = guide(4, 1);
    let b = guide(64, 99);
    assert!(a.same_tree(&b));
    assert_eq!((a.paths, a.records), (b.paths, b.records));
}

/// Not a check: equal-spp noise and time, guided and unguided, on the Cornell box at 256²
/// against the Mitsuba reference (`cargo test --test guiding -- --ignored --nocapture`).
#[test]
#[ignore]
fn measure_cornell_efficiency() {
    measure(
        &root().join("scenes/cornell/cornell.scene.toml"),
        [256, 256],
        Some(&root().join("tests/data/references/cornell_ref.exr")),
        32,
    );
}

/// Not a check: the frozen flagship at 320×180 (`GUIDING_ROOM=/tmp/frozen-room/scenes/room.scene.toml`,
/// see benches/data/room-reference/README.md), 32 spp guided and unguided, against its
/// 1024-spp reference.
#[test]
#[ignore]
fn measure_room_efficiency() {
    let Ok(scene) = std::env::var("GUIDING_ROOM") else {
        eprintln!("GUIDING_ROOM not set");
        return;
    };
    let spp = std::env::var("GUIDING_SPP")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32);
    measure(
        Path::new(&scene),
        [320, 180],
        Some(&root().join("benches/data/room-reference/beauty_320x180_4096spp.exr")),
        spp,
    );
}

fn measure(scene_file: &Path, size: [u32; 2], reference: Option<&Path>, spp: u32) {
    let scene = scene::load(scene_file).unwrap_or_else(|d| panic!("{d:#?}"));
    let world = World::build(&scene, size).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let reference = reference.map(|r| pfx_bake::plates::read_exr_rgb(r).unwrap().2);
    let seeds: u64 = std::env::var("GUIDING_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let mut rel_by = [0.0f64; 2];
    let mut secs_by = [0.0f64; 2];
    for seed in 1..=seeds {
        let settings = Settings {
            spp,
            seed,
            ..Settings::default()
        };
        for guiding in [false, true] {
            let t0 = Instant::now();
            let mut tracer = PathTracer::new(&world.trace, &world.camera, settings);
            if guiding {
                tracer = tracer.with_guiding_as(&world.camera, training());
            }
            let train = t0.elapsed().as_secs_f64();
            let img = integrator::render_with(&tracer, &world.camera, &NoProgress);
            let total = t0.elapsed().as_secs_f64();
            let rel = reference.as_ref().map(|r| relmse(&img.radiance, r));
            let trimmed = reference.as_ref().map(|r| trimmed_relmse(&img.radiance, r));
            let mean_ratio = reference.as_ref().map(|r| {
                let lum = |c: [f32; 3]| {
                    0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64
                };
                img.radiance.iter().map(|c| lum(c.to_array())).sum::<f64>()
                    / r.iter().map(|&c| lum(c)).sum::<f64>()
            });
            let g = tracer.guide();
            eprintln!(
                "{} guiding {guiding} seed {seed}: {spp} spp, training {train:.2} s, total {total:.2} s, relMSE {rel:?}, without the worst 0.1 % of pixels {trimmed:?}, mean / reference {mean_ratio:?}; guide (rounds, paths, records, trees, nodes): {:?}",
                scene_file.display(),
                g.map(|g| (g.rounds, g.paths, g.records, g.leaves(), g.directional_nodes())),
            );
            rel_by[guiding as usize] += rel.unwrap_or(f64::NAN) / seeds as f64;
            secs_by[guiding as usize] += total / seeds as f64;
        }
    }
    let eff = |i: usize| 1.0 / (rel_by[i] * secs_by[i]);
    eprintln!(
        "{}: mean over {seeds} seeds at {spp} spp: relMSE unguided {:.5} guided {:.5} (equal-spp ratio {:.2}); seconds {:.2} / {:.2}; efficiency guided/unguided {:.2}",
        scene_file.display(),
        rel_by[0],
        rel_by[1],
        rel_by[0] / rel_by[1],
        secs_by[0],
        secs_by[1],
        eff(1) / eff(0),
    );
}

/// The training to measure: the default, with any of `GUIDING_GRID`, `GUIDING_FIRST_SPP`,
/// `GUIDING_ROUNDS`, `GUIDING_SPLIT`, `GUIDING_ALPHA`, `GUIDING_MIN_ROUGHNESS`,
/// `GUIDING_VERTICES`, `GUIDING_RECORD_CAP`, `GUIDING_FILTER`, `GUIDING_COSINE`,
/// `GUIDING_LAST_ROUND` set in the
/// environment overriding its field.
fn training() -> Training {
    fn var<T: std::str::FromStr>(name: &str, default: T) -> T {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    }
    let d = Training::default();
    let t = Training {
        grid: var("GUIDING_GRID", d.grid),
        first_spp: var("GUIDING_FIRST_SPP", d.first_spp),
        rounds: var("GUIDING_ROUNDS", d.rounds),
        split_records: var("GUIDING_SPLIT", d.split_records),
        bsdf_share: var("GUIDING_ALPHA", d.bsdf_share),
        min_roughness: var("GUIDING_MIN_ROUGHNESS", d.min_roughness),
        guided_vertices: var("GUIDING_VERTICES", d.guided_vertices),
        record_cap: var("GUIDING_RECORD_CAP", d.record_cap),
        filter: var("GUIDING_FILTER", d.filter),
        cosine: var("GUIDING_COSINE", d.cosine),
        last_round_only: var("GUIDING_LAST_ROUND", d.last_round_only),
    };
    eprintln!("training: {t:?}");
    t
}

/// [`relmse`] over all but the 0.1 % of pixels with the largest error: a firefly-robust
/// second look (at a few spp the rare large paths decide relMSE by luck).
fn trimmed_relmse(img: &[glam::Vec3], r: &[[f32; 3]]) -> f64 {
    let mut e: Vec<f64> = img
        .iter()
        .zip(r)
        .map(|(a, b)| {
            (0..3)
                .map(|c| {
                    let d = (a[c] - b[c]) as f64;
                    d * d / (b[c] as f64 * b[c] as f64 + 0.01)
                })
                .sum::<f64>()
        })
        .collect();
    e.sort_by(f64::total_cmp);
    let keep = e.len() - e.len() / 1000;
    e[..keep].iter().sum::<f64>() / (keep * 3) as f64
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
