//! Acceleration-structure benchmark: build time of a ~1 M-triangle mesh, and closest-hit /
//! any-hit rays per second on it, single thread, for coherent (pinhole camera grid) and
//! incoherent (random directions from points on the surface) rays.
//!
//! A reference group runs obvhs's own single-level traversal and (non-watertight) triangle
//! test over a CWBVH of the same mesh, to measure what our traversal costs.
//!
//! The flagship group does the same on `scenes/room.scene.toml` as the reader and the world
//! builder make it (whatever that scene holds when the benchmark runs): the accel's build, and
//! closest-hit / any-hit rays per second for coherent rays (the scene camera's, one per pixel
//! of a 256×144 grid) and incoherent ones (cosine-distributed bounce rays from those rays'
//! first hits). It prints the scene's triangle counts and bytes per triangle once.
//!
//! Run briefly with `cargo bench --bench accel -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::{Mat4, Vec3, Vec3A};
use pfx_bake::accel::{Accel, Instance, TriangleMesh};
use pfx_bake::geometry::{Frame, Ray};
use pfx_bake::scene;
use pfx_bake::world::{mask, World};

/// SplitMix64 of a counter.
fn hash(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform in [0, 1).
fn rnd(stream: u64, i: u64) -> f32 {
    (hash(hash(stream) ^ i) >> 40) as f32 / (1u64 << 24) as f32
}

/// A displaced latitude/longitude sphere with `2·rings·segments` triangles (1 M at 500×1000):
/// smooth bumps plus per-vertex noise, so the BVH sees a realistic, non-grid-aligned surface.
fn bumpy_sphere(rings: u32, segments: u32) -> TriangleMesh {
    let mut positions = Vec::with_capacity(((rings + 1) * segments) as usize);
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            let i = (r * segments + s) as u64;
            let radius = 1.0 + 0.08 * (7.0 * theta).sin() * (9.0 * phi).sin() + 0.004 * rnd(1, i);
            positions.push(
                Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                ) * radius,
            );
        }
    }
    let mut indices = Vec::with_capacity((2 * rings * segments) as usize);
    for r in 0..rings {
        for s in 0..segments {
            let s1 = (s + 1) % segments;
            let (a, b) = (r * segments + s, r * segments + s1);
            let (c, d) = ((r + 1) * segments + s, (r + 1) * segments + s1);
            indices.push([a, c, b]);
            indices.push([b, c, d]);
        }
    }
    TriangleMesh { positions, indices }
}

/// A 256×256 pinhole camera grid looking at the sphere from distance 3.
fn coherent_rays() -> Vec<Ray> {
    let n = 256;
    let o = Vec3::new(0.3, 0.4, 3.0);
    (0..n * n)
        .map(|i| {
            let (x, y) = (
                (i % n) as f32 / n as f32 - 0.5,
                (i / n) as f32 / n as f32 - 0.5,
            );
            Ray::new(
                o,
                Vec3::new(x * 0.9, y * 0.9, -1.0) - Vec3::new(0.1, 0.13, 0.0),
            )
        })
        .collect()
}

/// 65536 rays from points on the surface (offset a little outward) in uniform random
/// directions: half escape, half cross the interior to the far side.
fn incoherent_rays(mesh: &TriangleMesh) -> Vec<Ray> {
    (0..65536u64)
        .map(|i| {
            let tri = mesh.indices[(hash(i ^ 0x55) % mesh.indices.len() as u64) as usize];
            let [a, b, c] = tri.map(|k| mesh.positions[k as usize]);
            let p = (a + b + c) / 3.0;
            let n = (b - a).cross(c - a).normalize_or(p.normalize());
            let z = 1.0 - 2.0 * rnd(3, i);
            let phi = std::f32::consts::TAU * rnd(4, i);
            let rr = (1.0 - z * z).max(0.0).sqrt();
            let d = Vec3::new(rr * phi.cos(), rr * phi.sin(), z);
            Ray::new(p + n * 1e-4, d)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mesh = bumpy_sphere(500, 1000);
    let n_tris = mesh.indices.len();
    let start = Instant::now();
    let accel = Accel::build(
        vec![mesh.clone()],
        vec![Instance {
            mesh: 0,
            world_from_object: Mat4::IDENTITY,
            mask: 1,
        }],
    );
    eprintln!(
        "accel: {n_tris} triangles, one build {:.2} s",
        start.elapsed().as_secs_f64()
    );
    eprintln!(
        "accel: {:.1} bytes per triangle (mesh as given + tree-ordered copy + nodes)",
        accel.memory_bytes() as f64 / n_tris as f64
    );
    {
        let small = bumpy_sphere(20, 40);
        let one = Accel::build(
            vec![small.clone()],
            vec![Instance {
                mesh: 0,
                world_from_object: Mat4::IDENTITY,
                mask: 1,
            }],
        );
        let many = Accel::build(
            vec![small],
            (0..10_000)
                .map(|i| Instance {
                    mesh: 0,
                    world_from_object: Mat4::from_translation(Vec3::new(
                        (i % 100) as f32 * 3.0,
                        (i / 100) as f32 * 3.0,
                        0.0,
                    )),
                    mask: 1,
                })
                .collect(),
        );
        eprintln!(
            "accel: {:.1} bytes per instance (10 000 instances)",
            (many.memory_bytes() - one.memory_bytes()) as f64 / 9999.0
        );
    }

    let mut g = c.benchmark_group("accel_build");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n_tris as u64));
    g.bench_function("build_1M_tris", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let m = mesh.clone();
                let inst = vec![Instance {
                    mesh: 0,
                    world_from_object: Mat4::IDENTITY,
                    mask: 1,
                }];
                let t = Instant::now();
                black_box(Accel::build(vec![m], inst));
                total += t.elapsed();
            }
            total
        })
    });
    g.finish();

    let sets = [
        ("coherent", coherent_rays()),
        ("incoherent", incoherent_rays(&mesh)),
    ];
    let mut g = c.benchmark_group("accel_rays");
    for (name, rays) in &sets {
        let hits = rays
            .iter()
            .filter(|r| accel.closest_hit(r, 1).is_some())
            .count();
        eprintln!("accel: {name}: {hits} of {} rays hit", rays.len());
        g.throughput(Throughput::Elements(rays.len() as u64));
        g.bench_with_input(BenchmarkId::new("closest_hit", name), rays, |b, rays| {
            b.iter(|| {
                rays.iter()
                    .filter(|r| accel.closest_hit(r, 1).is_some())
                    .count()
            })
        });
        g.bench_with_input(BenchmarkId::new("any_hit", name), rays, |b, rays| {
            b.iter(|| {
                rays.iter()
                    .filter(|r| accel.any_hit(r, 1, |_| true))
                    .count()
            })
        });
    }
    g.finish();

    // obvhs's own traversal and Möller–Trumbore test on a CWBVH of the same mesh.
    let tris: Vec<obvhs::triangle::Triangle> = mesh
        .indices
        .iter()
        .map(|t| {
            let [v0, v1, v2] = t.map(|k| Vec3A::from(mesh.positions[k as usize]));
            obvhs::triangle::Triangle { v0, v1, v2 }
        })
        .collect();
    let mut core_build_time = Duration::ZERO;
    let cw = obvhs::cwbvh::builder::build_cwbvh_from_tris(
        &tris,
        obvhs::BvhBuildParams::medium_build(),
        &mut core_build_time,
    );
    let ordered: Vec<_> = cw
        .primitive_indices
        .iter()
        .map(|&i| tris[i as usize])
        .collect();
    let mut g = c.benchmark_group("obvhs_reference");
    for (name, rays) in &sets {
        let rays: Vec<obvhs::ray::Ray> = rays
            .iter()
            .map(|r| obvhs::ray::Ray::new_inf(r.o.into(), r.d.into()))
            .collect();
        g.throughput(Throughput::Elements(rays.len() as u64));
        g.bench_with_input(BenchmarkId::new("closest_hit", name), &rays, |b, rays| {
            b.iter(|| {
                rays.iter()
                    .filter(|r| {
                        let mut hit = obvhs::ray::RayHit::none();
                        cw.ray_traverse(**r, &mut hit, |ray, id| ordered[id].intersect(ray))
                    })
                    .count()
            })
        });
    }
    g.finish();
}

/// The flagship's coherent rays: the scene camera's pinhole rays through the pixel centres of
/// a 256×144 grid (the camera's aspect is the grid's).
fn camera_rays(world: &World) -> Vec<Ray> {
    let [w, h] = world.camera.size;
    (0..w * h)
        .map(|i| {
            let film = glam::Vec2::new((i % w) as f32 + 0.5, (i / w) as f32 + 0.5);
            world.camera.ray(film, glam::Vec2::splat(0.5))
        })
        .collect()
}

/// The flagship's incoherent rays: from each camera ray's first hit, a cosine-distributed
/// direction about the geometric normal turned toward the camera, the origin moved 1e-4 of
/// the scene's size off the surface (what a diffuse bounce traces).
fn bounce_rays(world: &World, camera: &[Ray]) -> Vec<Ray> {
    let accel = &world.trace.accel;
    let (lo, hi) = accel.bounds();
    let eps = 1e-4 * (hi - lo).length();
    camera
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let hit = accel.closest_hit(r, mask::DRAWN)?;
            let inst = &accel.instances()[hit.instance as usize];
            let mesh = &accel.meshes()[inst.mesh as usize];
            let [a, b, c] = mesh.indices[hit.prim as usize].map(|k| {
                inst.world_from_object
                    .transform_point3(mesh.positions[k as usize])
            });
            let mut n = (b - a).cross(c - a).normalize_or_zero();
            if n == Vec3::ZERO {
                return None;
            }
            if n.dot(r.d) > 0.0 {
                n = -n;
            }
            let (u1, u2) = (rnd(5, i as u64), rnd(6, i as u64));
            let (rr, phi) = (u1.sqrt(), std::f32::consts::TAU * u2);
            let local = Vec3::new(rr * phi.cos(), rr * phi.sin(), (1.0 - u1).max(0.0).sqrt());
            let p = r.at(hit.t);
            Some(Ray::new(p + n * eps, Frame::from_normal(n).to_world(local)))
        })
        .collect()
}

fn flagship(c: &mut Criterion) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let file = root.join("scenes/room.scene.toml");
    let scene = scene::load(&file).expect("the flagship loads");
    let world = World::build(&scene, [256, 144])
        .map_err(|e| e.0)
        .expect("the flagship builds");
    let accel = &world.trace.accel;
    let stored: usize = accel.meshes().iter().map(|m| m.indices.len()).sum();
    let placed: usize = accel
        .instances()
        .iter()
        .map(|i| accel.meshes()[i.mesh as usize].indices.len())
        .sum();
    eprintln!(
        "flagship: {} meshes ({stored} triangles stored), {} instances ({placed} triangles placed), \
         {} triangles in the trees",
        accel.meshes().len(),
        accel.instances().len(),
        accel.tree_triangles()
    );
    eprintln!(
        "flagship: {} bytes, {:.1} bytes per placed triangle, {:.1} per stored triangle",
        accel.memory_bytes(),
        accel.memory_bytes() as f64 / placed.max(1) as f64,
        accel.memory_bytes() as f64 / stored.max(1) as f64
    );

    let meshes = accel.meshes().to_vec();
    let instances = accel.instances().to_vec();
    let mut g = c.benchmark_group("flagship_build");
    g.sample_size(10);
    g.throughput(Throughput::Elements(placed as u64));
    g.bench_function("build_room", |b| {
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

    let coherent = camera_rays(&world);
    let incoherent = bounce_rays(&world, &coherent);
    // Camera rays see what is drawn; bounce rays meet what casts shadows, as the integrator's do.
    let sets = [
        ("coherent", coherent, mask::DRAWN),
        ("incoherent", incoherent, mask::CASTS),
    ];
    let mut g = c.benchmark_group("flagship_rays");
    for (name, rays, m) in &sets {
        let m = *m;
        let hits = rays
            .iter()
            .filter(|r| accel.closest_hit(r, m).is_some())
            .count();
        eprintln!("flagship: {name}: {hits} of {} rays hit", rays.len());
        g.throughput(Throughput::Elements(rays.len() as u64));
        g.bench_with_input(BenchmarkId::new("closest_hit", name), rays, |b, rays| {
            b.iter(|| {
                rays.iter()
                    .filter(|r| accel.closest_hit(r, m).is_some())
                    .count()
            })
        });
        g.bench_with_input(BenchmarkId::new("any_hit", name), rays, |b, rays| {
            b.iter(|| {
                rays.iter()
                    .filter(|r| accel.any_hit(r, m, |_| true))
                    .count()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench, flagship);
criterion_main!(benches);
