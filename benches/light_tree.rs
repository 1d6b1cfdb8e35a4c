//! Cost of the light tree (src/lights/tree.rs): building it over n lights, and per shading
//! point a pick (`LightTree::sample`) and the pmf of a given light (`LightTree::pmf`, what a
//! BSDF-sampled ray that finds a light costs), beside the fixed distribution's pick they
//! replace, measured back to back in one run. Each iteration runs a batch of 1024 fixed
//! queries, so criterion's elements/s is queries per second.
//!
//! `taskset -c 1 cargo bench --bench light_tree`

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::Vec3;
use pfx_bake::lights::{Light, LightContext, LightTree};
use pfx_bake::sampling::Distribution1D;

const BATCH: usize = 1024;

/// SplitMix64 to [0, 1): fixed inputs, no rand crate.
fn hash01(i: u64) -> f32 {
    let mut z = i
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x6A09_E667_F3BC_C909);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
}

fn dir(i: u64) -> Vec3 {
    let z = 1.0 - 2.0 * hash01(i);
    let phi = std::f32::consts::TAU * hash01(i + 1);
    let s = (1.0 - z * z).max(0.0).sqrt();
    Vec3::new(s * phi.cos(), s * phi.sin(), z)
}

/// `n` lights over a 40 m hall: sphere lamps, and as many small emissive triangles facing
/// down (a mesh light's faces).
fn lights(n: usize) -> Vec<Light> {
    (0..n as u64)
        .map(|i| {
            let c = Vec3::new(
                40.0 * hash01(3 * i) - 20.0,
                3.0 * hash01(3 * i + 1),
                40.0 * hash01(3 * i + 2) - 20.0,
            );
            if i % 2 == 0 {
                Light::Sphere {
                    center: c,
                    radius: 0.05,
                    radiance: Vec3::splat(10.0),
                    casts: true,
                }
            } else {
                let p = [
                    c,
                    c + Vec3::new(0.1, 0.0, 0.0),
                    c + Vec3::new(0.0, 0.0, 0.1),
                ];
                Light::Triangle {
                    p,
                    n: Vec3::NEG_Y,
                    area: 0.005,
                    radiance: Vec3::splat(50.0),
                    two_sided: false,
                }
            }
        })
        .collect()
}

fn contexts() -> Vec<(LightContext, f32)> {
    (0..BATCH as u64)
        .map(|i| {
            let ns = dir(1000 + 2 * i);
            let ctx = LightContext {
                p: Vec3::new(
                    40.0 * hash01(5000 + i) - 20.0,
                    3.0 * hash01(7000 + i),
                    40.0 * hash01(9000 + i) - 20.0,
                ),
                ns,
                ng: Some(ns),
                narrow: false,
            };
            (ctx, hash01(11_000 + i))
        })
        .collect()
}

fn bench_light_tree(c: &mut Criterion) {
    let queries = contexts();
    for n in [16usize, 224, 4096, 65_536] {
        let lights = lights(n);
        let powers: Vec<f32> = lights.iter().map(|l| l.power(30.0)).collect();

        let mut g = c.benchmark_group(format!("light_tree/build/{n}"));
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter("tree"), |b| {
            b.iter(|| black_box(LightTree::build(black_box(&lights), black_box(&powers))))
        });
        g.bench_function(BenchmarkId::from_parameter("power_distribution"), |b| {
            b.iter(|| black_box(Distribution1D::new(black_box(&powers))))
        });
        g.finish();

        let tree = LightTree::build(&lights, &powers);
        let fixed = Distribution1D::new(&powers);
        // The lights each query asks the pmf of: what its own pick chose.
        let picked: Vec<usize> = queries
            .iter()
            .map(|(ctx, u)| tree.sample(ctx, *u).map_or(0, |s| s.0))
            .collect();
        let mut g = c.benchmark_group(format!("light_tree/query/{n}"));
        g.throughput(Throughput::Elements(BATCH as u64));
        g.bench_function(BenchmarkId::from_parameter("tree_sample"), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for (ctx, u) in &queries {
                    if let Some((_, p)) = tree.sample(black_box(ctx), *u) {
                        acc += p;
                    }
                }
                black_box(acc)
            })
        });
        g.bench_function(BenchmarkId::from_parameter("tree_pmf"), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for ((ctx, _), &l) in queries.iter().zip(&picked) {
                    acc += tree.pmf(black_box(ctx), l);
                }
                black_box(acc)
            })
        });
        g.bench_function(BenchmarkId::from_parameter("fixed_sample"), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for (_, u) in &queries {
                    acc += fixed.sample_discrete(black_box(*u)).1;
                }
                black_box(acc)
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench_light_tree);
criterion_main!(benches);
