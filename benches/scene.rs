//! Scene reading benchmark: `pfx_bake::scene::load` (read, check and resolve) of
//!
//! - a generated project of 10,000 `[[object]]` entries (a tenth of them parented) and 1,000
//!   prefab placements of four prefab files (five objects and a light each, every other
//!   placement with two `[object.set]` overrides), written once into a temporary folder; and
//! - the flagship `scenes/room.scene.toml`, which issue 3 wants read and resolved well under
//!   50 ms in release.
//!
//! Throughput is in resolved objects (the placed prefabs' objects included) per second.
//! Run briefly with `cargo bench --bench scene -- --warm-up-time 1 --measurement-time 3`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

/// `[[object]]` entries that place the mesh directly.
const OBJECTS: usize = 10_000;
/// `[[object]]` entries that place a prefab.
const PLACEMENTS: usize = 1_000;
/// Prefab files the placements cycle through.
const PREFABS: usize = 4;

/// A unique id for `n` (10 Crockford base32 characters; the leading `tag` keeps the sets of
/// ids the generator makes apart).
fn id(tag: char, n: usize) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghjkmnpqrstvwxyz";
    let mut s = String::from(tag);
    let mut v = n;
    for _ in 0..9 {
        s.push(ALPHABET[v % 32] as char);
        v /= 32;
    }
    s
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create folder");
    }
    std::fs::write(path, text).expect("write file");
}

/// Writes the generated project into `dir` and returns its scene file.
fn generate(dir: &Path) -> PathBuf {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(dir.join("meshes")).expect("create meshes/");
    std::fs::copy(
        repo.join("scenes/cornell/meshes/floor.glb"),
        dir.join("meshes/floor.glb"),
    )
    .expect("copy floor.glb");
    write(
        &dir.join("project.toml"),
        "format = 1\n\n[project]\nname = \"bench\"\n",
    );
    let mut lib = String::from("format = 1\n");
    for m in 0..8 {
        let g = 0.1 * m as f32;
        writeln!(
            lib,
            "\n[materials.m{m}]\nid = \"{}\"\nbase = [{g}, 0.5, 0.5]\nroughness = 0.5",
            id('m', m)
        )
        .expect("write to string");
    }
    write(&dir.join("bench.materials.toml"), &lib);

    for p in 0..PREFABS {
        let mut t = String::from("format = 1\nmaterials = [\"bench.materials.toml\"]\n\n");
        writeln!(
            t,
            "[mesh.part]\nid = \"{}\"\nfile = \"meshes/floor.glb\"\n",
            id('p', p)
        )
        .expect("write to string");
        for o in 0..5 {
            writeln!(
                t,
                "[[object]]\nid = \"{}\"\nname = \"part{o}\"\nmesh = \"part\"\nmaterial = \"m{}\"\n\
                 at = [{o}.0, 0.0, 0.0]",
                id('q', p * 8 + o),
                o % 8
            )
            .expect("write to string");
            if o > 0 {
                writeln!(t, "parent = \"part0\"").expect("write to string");
            }
            t.push('\n');
        }
        writeln!(
            t,
            "[[light]]\nid = \"{}\"\nname = \"bulb\"\nposition = [0.0, 1.0, 0.0]\nintensity = 1.0\n\
             radius = 0.05",
            id('r', p)
        )
        .expect("write to string");
        write(&dir.join(format!("props/p{p}.prefab.toml")), &t);
    }

    let mut s = String::from("format = 1\nmaterials = [\"bench.materials.toml\"]\n\n");
    writeln!(
        s,
        "[mesh.tile]\nid = \"{}\"\nfile = \"meshes/floor.glb\"\n",
        id('t', 0)
    )
    .expect("write to string");
    for i in 0..OBJECTS {
        let (x, z) = ((i % 100) as f32, (i / 100) as f32);
        writeln!(
            s,
            "[[object]]\nid = \"{}\"\nname = \"o{i}\"\nmesh = \"tile\"\nmaterial = \"m{}\"\n\
             at = [{x}, 0.0, {z}]\nrotate = [0.0, {}.0, 0.0]",
            id('k', i),
            i % 8,
            i % 360
        )
        .expect("write to string");
        if i % 10 == 9 {
            writeln!(s, "parent = \"{}\"", id('k', i - 1)).expect("write to string");
        }
        s.push('\n');
    }
    for i in 0..PLACEMENTS {
        writeln!(
            s,
            "[[object]]\nid = \"{}\"\nname = \"place{i}\"\nprefab = \"props/p{}.prefab.toml\"\n\
             at = [{}.0, 0.0, -5.0]",
            id('z', i),
            i % PREFABS,
            i
        )
        .expect("write to string");
        if i % 2 == 0 {
            s.push_str("\n[object.set]\n\"part1.material\" = \"m7\"\n\"bulb.intensity\" = 2.0\n");
        }
        s.push('\n');
    }
    s.push_str("[camera]\nat = [50.0, 20.0, 120.0]\nlook_at = [50.0, 0.0, 50.0]\n");
    let scene = dir.join("bench.scene.toml");
    write(&scene, &s);
    scene
}

/// Loads `scene` once, refusing to benchmark a scene that does not load, and returns how
/// many objects it resolves to.
fn resolved_objects(scene: &Path) -> usize {
    match pfx_bake::scene::load(scene) {
        Ok(s) => s.objects.len(),
        Err(ds) => {
            let text: Vec<String> = ds.iter().map(ToString::to_string).collect();
            panic!("{} does not load:\n{}", scene.display(), text.join("\n"));
        }
    }
}

fn bench_scene(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let generated = generate(dir.path());
    let flagship = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/room.scene.toml");

    let mut g = c.benchmark_group("scene_load");
    g.sample_size(10);
    let n = resolved_objects(&generated);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(
        format!("generated_{OBJECTS}_objects_{PLACEMENTS}_placements"),
        |b| b.iter(|| black_box(pfx_bake::scene::load(black_box(&generated)).is_ok())),
    );
    let n = resolved_objects(&flagship);
    g.sample_size(30);
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("flagship_room", |b| {
        b.iter(|| black_box(pfx_bake::scene::load(black_box(&flagship)).is_ok()))
    });
    g.finish();
}

criterion_group!(benches, bench_scene);
criterion_main!(benches);
