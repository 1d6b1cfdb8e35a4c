//! Cost of path guiding's training (src/integrator/guiding/train.rs): the whole pre-pass of
//! `bake --guiding` (three rounds of camera paths through a fixed 80-point grid, each round
//! followed by an SD-tree build), beside an unguided render that traces as many camera paths,
//! so the training's price per path reads against the render's. On the Cornell box
//! (square, so the grid is 80×80: 6,400 × (2 + 4 + 8) = 89,600 training paths) and the frozen
//! flagship when `GUIDING_ROOM` names it (320×180: 80×45 × 14 = 50,400 paths; see
//! benches/data/room-reference/README.md). Criterion's elements/s is paths per second.
//!
//! `nice cargo bench --bench guiding`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pfx_bake::camera::Camera;
use pfx_bake::integrator::{self, NoProgress, PathTracer, Settings, Training};
use pfx_bake::scene;
use pfx_bake::world::World;

fn world(file: &std::path::Path, size: [u32; 2]) -> World {
    let scene = scene::load(file).unwrap_or_else(|d| panic!("{} loads: {d:?}", file.display()));
    World::build(&scene, size)
        .map_err(|e| e.0)
        .unwrap_or_else(|d| panic!("{} builds: {d:?}", file.display()))
}

/// The training's paths on `camera` as `training` says (its grid, over the film's longer side,
/// and its doubling rounds).
fn training_paths(camera: &Camera, training: &Training) -> u64 {
    let [w, h] = camera.size;
    let step = (w.max(h) as f32 / training.grid as f32).max(1.0);
    let points = ((w as f32 / step) as u64).max(1) * ((h as f32 / step) as u64).max(1);
    let per_point: u64 = (0..training.rounds)
        .map(|r| (training.first_spp as u64) << r)
        .sum();
    points * per_point
}

fn bench_scene(c: &mut Criterion, id: &str, world: &World) {
    let training = Training::default();
    let paths = training_paths(&world.camera, &training);
    let settings = Settings::default();
    let mut g = c.benchmark_group(format!("guiding/{id}"));
    g.sample_size(10);
    g.throughput(Throughput::Elements(paths));
    g.bench_function("training", |b| {
        b.iter(|| {
            let t = PathTracer::new(&world.trace, &world.camera, settings)
                .with_guiding_as(&world.camera, training);
            assert_eq!(t.guide().map(|g| g.paths), Some(paths));
            t
        })
    });
    // As many unguided camera paths as the training traces: a render of the grid's size at
    // the training's paths per grid point, through the same camera and path settings.
    let [w, h] = world.camera.size;
    let step = (w.max(h) as f32 / training.grid as f32).max(1.0);
    let grid = [
        ((w as f32 / step) as u32).max(1),
        ((h as f32 / step) as u32).max(1),
    ];
    let small = Camera {
        size: grid,
        ..world.camera.clone()
    };
    let spp = (paths / (grid[0] as u64 * grid[1] as u64)) as u32;
    let render = Settings { spp, ..settings };
    g.bench_function("render_as_many_paths", |b| {
        b.iter(|| {
            let t = PathTracer::new(&world.trace, &small, render);
            integrator::render_with(&t, &small, &NoProgress)
        })
    });
    g.finish();
}

fn guiding(c: &mut Criterion) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cornell = world(&root.join("scenes/cornell/cornell.scene.toml"), [256, 256]);
    bench_scene(c, "cornell_256", &cornell);
    if let Ok(room) = std::env::var("GUIDING_ROOM") {
        let room = world(std::path::Path::new(&room), [320, 180]);
        bench_scene(c, "room_320x180", &room);
    }
}

criterion_group!(benches, guiding);
criterion_main!(benches);
