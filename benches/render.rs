//! Samples per second on the Cornell box at 256×256, the figure set beside Mitsuba 3's
//! 4.4 M samples/s (llvm_ad_rgb, 2 threads, depth 16) on this machine.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pfx_bake::film::{self, NoProgress};
use pfx_bake::integrator::Settings;
use pfx_bake::scene;
use pfx_bake::world::World;

fn cornell(c: &mut Criterion) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scene =
        scene::load(&root.join("scenes/cornell/cornell.scene.toml")).expect("cornell loads");
    let world = World::build(&scene, [256, 256])
        .map_err(|e| e.0)
        .expect("cornell builds");
    let spp = 64;
    let mut g = c.benchmark_group("render");
    g.sample_size(10);
    g.throughput(Throughput::Elements(256 * 256 * spp as u64));
    g.bench_function("cornell_256_64spp", |b| {
        b.iter(|| {
            film::render(
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

criterion_group!(benches, cornell);
criterion_main!(benches);
