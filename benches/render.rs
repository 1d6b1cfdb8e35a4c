//! Samples per second on the Cornell box at 256×256, the figure set beside Mitsuba 3's
//! 4.4 M samples/s (llvm_ad_rgb, 2 threads, depth 16) on this machine; and on the flagship,
//! `scenes/room.scene.toml` (whatever it holds when the benchmark runs), at a reduced 320×180
//! and 4 samples per pixel so one iteration stays short.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene;
use pfx_bake::world::World;

/// Benchmarks one render of `file` (relative to the crate) at `size` and `spp`, reporting
/// samples per second.
fn render(c: &mut Criterion, id: &str, file: &str, size: [u32; 2], spp: u32) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scene = scene::load(&root.join(file)).unwrap_or_else(|d| panic!("{file} loads: {d:?}"));
    let world = World::build(&scene, size)
        .map_err(|e| e.0)
        .unwrap_or_else(|d| panic!("{file} builds: {d:?}"));
    let mut g = c.benchmark_group("render");
    g.sample_size(10);
    g.throughput(Throughput::Elements(
        size[0] as u64 * size[1] as u64 * spp as u64,
    ));
    g.bench_function(id, |b| {
        b.iter(|| {
            integrator::render(
                &world,
                &Settings {
                    spp,
                    ..Settings::default()
                },
                &NoProgress,
            )
        })
    });
    g.finish();
}

fn cornell(c: &mut Criterion) {
    render(
        c,
        "cornell_256_64spp",
        "scenes/cornell/cornell.scene.toml",
        [256, 256],
        64,
    );
}

fn flagship(c: &mut Criterion) {
    render(
        c,
        "room_320x180_4spp",
        "scenes/room.scene.toml",
        [320, 180],
        4,
    );
}

criterion_group!(benches, cornell, flagship);
criterion_main!(benches);
