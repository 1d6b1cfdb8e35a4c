//! Instancing at scale: a tile layer of 100×100 cells, each placing one prefab of one
//! 10,600-triangle sphere (MetalRoughSpheresNoTextures' first sphere node, from
//! `tests/data/gltf`), written as a project in a temporary folder. Prints the memory once —
//! bytes per instance and per triangle — and measures reading the scene plus building the
//! world, and the accel's build alone, for the 10,000 instances.
//!
//! Run briefly with `cargo bench --bench instancing -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pfx_bake::accel::Accel;
use pfx_bake::scene;
use pfx_bake::world::World;

/// Writes a project whose scene holds an `n`×`n` tile layer of the sphere prefab; returns the
/// folder (kept alive by the caller) and the scene file.
fn tile_project(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let p = dir.path();
    let write = |name: &str, text: &str| std::fs::write(p.join(name), text).expect("written");
    write(
        "project.toml",
        "format = 1\n\n[project]\nname = \"tiles\"\n",
    );
    write(
        "ball.prefab.toml",
        "format = 1\n\n[mesh.ball]\nfile = \"spheres.glb\"\nnode = \"m0%_r0%\"\n\n\
         [[object]]\nname = \"ball\"\nmesh = \"ball\"\nscale = [1000.0, 1000.0, 1000.0]\n",
    );
    let mut scene = String::from(
        "format = 1\n\n[camera]\nat = [0.0, 20.0, 60.0]\nlook_at = [0.0, 0.0, 0.0]\n\n\
         [sun]\nmodel = \"authored\"\ntoward = [0.3, 1.0, 0.5]\nirradiance = 2.0\n\n\
         [[tiles]]\nname = \"floor\"\ncell = 1.0\nplane = \"xz\"\norigin = [-50.0, 0.0, 50.0]\n\
         palette = { o = \"ball.prefab.toml\" }\nrows = [\n",
    );
    for _ in 0..n {
        scene.push_str(&format!("  \"{}\",\n", "o".repeat(n)));
    }
    scene.push_str("]\n");
    write("t.scene.toml", &scene);
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/gltf/MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb"),
        p.join("spheres.glb"),
    )
    .expect("the sphere model copied");
    let file = p.join("t.scene.toml");
    (dir, file)
}

fn load_and_build(file: &Path) -> World {
    let scene = scene::load(file).expect("the tile scene loads");
    World::build(&scene, [64, 64])
        .map_err(|e| e.0)
        .expect("the tile world builds")
}

fn bench(c: &mut Criterion) {
    let (_dir, file) = tile_project(100);
    let world = load_and_build(&file);
    let accel = &world.trace.accel;
    let cells = accel.instances().len();
    assert_eq!(cells, 10_000);
    let stored: usize = accel.meshes().iter().map(|m| m.indices.len()).sum();
    let placed = stored * cells;
    // Against a 2×2 layer of the same prefab (placed more than once, so instanced, not
    // flattened): the difference is the 9,996 further instances alone.
    let (_two_dir, two_file) = tile_project(2);
    let two = load_and_build(&two_file);
    let four = two.trace.accel.memory_bytes();
    let bytes = accel.memory_bytes();
    eprintln!(
        "instancing: 100x100 tile layer of one {stored}-triangle prefab: {cells} instances, \
         {} mesh(es), {} triangles in the trees, {placed} placed",
        accel.meshes().len(),
        accel.tree_triangles()
    );
    eprintln!(
        "instancing: {bytes} bytes in all; {:.1} bytes per instance (against 4 cells); \
         {:.1} bytes per stored triangle (4 cells); {:.4} bytes per placed triangle",
        (bytes - four) as f64 / (cells - 4) as f64,
        four as f64 / stored as f64,
        bytes as f64 / placed as f64
    );

    let mut g = c.benchmark_group("instancing");
    g.sample_size(10);
    g.throughput(Throughput::Elements(cells as u64));
    g.bench_function("load_and_build_10000_cells", |b| {
        b.iter(|| black_box(load_and_build(&file)))
    });
    let meshes = accel.meshes().to_vec();
    let instances = accel.instances().to_vec();
    g.bench_function("accel_build_10000_instances", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (m, i) = (meshes.clone(), instances.clone());
                let t = Instant::now();
                black_box(Accel::build(m, i));
                total += t.elapsed();
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
