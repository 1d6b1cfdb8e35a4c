//! Throughput of the world-space BSDF per `plain` configuration: building it at a hit
//! (`Plain::new` + `Bsdf::new`), evaluating `f` alone and `f_pdf` (both at once, what a light sample needs),
//! and `sample_f` (what a bounce needs). Each iteration runs a batch of 1024 fixed queries, so
//! criterion's elements/s is queries per second.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use glam::{Vec2, Vec3};
use pfx_bake::materials::coat::Coated;
use pfx_bake::materials::conductor::Conductor;
use pfx_bake::materials::dielectric::Dielectric;
use pfx_bake::materials::{
    Bsdf, Bxdf, Bxdfs, Eon, FilmedGlass, Glass, Plain, Sheen, ThinFilm, ThinSheet, ThinWall,
    Translucent,
};

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

fn upper(i: u64) -> Vec3 {
    let z = 1.0 - hash01(i);
    let phi = std::f32::consts::TAU * hash01(i + 1);
    let s = (1.0 - z * z).max(0.0).sqrt();
    Vec3::new(s * phi.cos(), s * phi.sin(), z)
}

struct Query {
    wo: Vec3,
    wi: Vec3,
    uc: f32,
    u: Vec2,
}

fn bench_bsdf(c: &mut Criterion) {
    // (name, base, roughness, metalness, specular)
    let configs = [
        ("lambert", Vec3::splat(0.7), 0.5, 0.0, 0.0),
        ("plastic_r0.5", Vec3::new(0.8, 0.3, 0.2), 0.5, 0.0, 0.04),
        ("plastic_r0.1", Vec3::new(0.8, 0.3, 0.2), 0.1, 0.0, 0.04),
        ("copper_r0.2", Vec3::new(0.95, 0.64, 0.54), 0.2, 1.0, 0.04),
        ("half_metal_r0.4", Vec3::new(0.6, 0.6, 0.7), 0.4, 0.5, 0.04),
    ];
    let ng = Vec3::new(0.1, 0.2, 0.97).normalize();
    let ns = Vec3::new(0.15, 0.15, 0.97).normalize();
    let queries: Vec<Query> = (0..BATCH as u64)
        .map(|i| Query {
            wo: upper(10 * i),
            wi: upper(10 * i + 3),
            uc: hash01(10 * i + 6),
            u: Vec2::new(hash01(10 * i + 7), hash01(10 * i + 8)),
        })
        .collect();

    let mut group = c.benchmark_group("bsdf");
    group.throughput(Throughput::Elements(BATCH as u64));
    for (name, base, r, m, s) in configs {
        group.bench_function(BenchmarkId::new("build", name), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for q in &queries {
                    let bxdf = Bxdfs::Plain(Plain::new(base, r, m, s));
                    let bsdf = Bsdf::new(ng, ns, q.wo, &bxdf);
                    acc += bsdf.shading_normal().z;
                }
                black_box(acc)
            })
        });
        let bxdf = Bxdfs::Plain(Plain::new(base, r, m, s));
        let bsdfs: Vec<Bsdf> = queries
            .iter()
            .map(|q| Bsdf::new(ng, ns, q.wo, &bxdf))
            .collect();
        group.bench_function(BenchmarkId::new("f", name), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for (q, bsdf) in queries.iter().zip(&bsdfs) {
                    acc += bsdf.f(q.wo, q.wi).x;
                }
                black_box(acc)
            })
        });
        group.bench_function(BenchmarkId::new("f_pdf", name), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for (q, bsdf) in queries.iter().zip(&bsdfs) {
                    let (f, pdf) = bsdf.f_pdf(q.wo, q.wi);
                    acc += f.x + pdf;
                }
                black_box(acc)
            })
        });
        group.bench_function(BenchmarkId::new("sample_f", name), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for (q, bsdf) in queries.iter().zip(&bsdfs) {
                    if let Some(s) = bsdf.sample_f(q.wo, q.uc, q.u) {
                        acc += s.pdf;
                    }
                }
                black_box(acc)
            })
        });
    }
    group.finish();
}

/// The lobes issue 5 builds the families from, alone in local shading space (no frame, no
/// geometric-normal checks): `f_pdf` and `sample_f` per batch of 1024 queries.
fn bench_lobes(c: &mut Criterion) {
    let queries: Vec<Query> = (0..BATCH as u64)
        .map(|i| Query {
            wo: upper(10 * i),
            wi: upper(10 * i + 3),
            uc: hash01(10 * i + 6),
            u: Vec2::new(hash01(10 * i + 7), hash01(10 * i + 8)),
        })
        .collect();
    let lobes: [(&str, Box<dyn Bxdf>); 17] = [
        (
            "plain_lambert",
            Box::new(Plain::new(Vec3::splat(0.7), 0.5, 0.0, 0.0)),
        ),
        (
            "plain_plastic_r0.5",
            Box::new(Plain::new(Vec3::new(0.8, 0.3, 0.2), 0.5, 0.0, 0.04)),
        ),
        (
            "conductor_copper_r0.2",
            Box::new(Conductor::new(Vec3::new(0.95, 0.64, 0.54), 0.2)),
        ),
        (
            "conductor_white_r0.8",
            Box::new(Conductor::new(Vec3::ONE, 0.8)),
        ),
        ("dielectric_1.5_r0.3", Box::new(Dielectric::new(1.5, 0.3))),
        ("dielectric_1.5_smooth", Box::new(Dielectric::new(1.5, 0.0))),
        (
            "glass_tinted_1.5_r0.3",
            Box::new(Glass::new(1.5, 0.3, Vec3::new(0.9, 0.95, 0.8))),
        ),
        (
            "coated_metal_r0.3_coat0.1",
            Box::new(Coated::new(
                Plain::new(Vec3::new(0.95, 0.64, 0.54), 0.3, 1.0, 0.04),
                1.0,
                0.1,
                1.5,
            )),
        ),
        (
            "coated_glass_1.5_r0.3_coat0.05",
            Box::new(Glass::coated(1.5, 0.3, Vec3::ONE, 1.0, 0.05)),
        ),
        (
            "coated_plastic_r0.5_coat0.05",
            Box::new(Coated::new(
                Plain::new(Vec3::new(0.8, 0.3, 0.2), 0.5, 0.0, 0.04),
                1.0,
                0.05,
                1.5,
            )),
        ),
        // The families of issue 15: paper/petal/leaf, plaster/stone, cloth.
        (
            "sheet_paper_t0.3",
            Box::new(ThinSheet::new(Vec3::new(0.9, 0.85, 0.8), 0.3)),
        ),
        (
            "eon_plaster_r0.8",
            Box::new(Eon::new(Vec3::new(0.85, 0.82, 0.75), 0.8)),
        ),
        (
            "sheen_cloth_r0.7",
            Box::new(Sheen::new(Vec3::new(0.2, 0.4, 0.2), 1.0, 0.7)),
        ),
        // Transmission on the rough diffuse and sheen bases, rough thin walls, a film on
        // glass (the queries' `wi` are all outside: `f_pdf` measures the reflecting side).
        (
            "translucent_plaster_r0.8_t0.5",
            Box::new(
                Translucent::rough_diffuse(Vec3::new(0.85, 0.82, 0.75), 0.8, 0.04, 0.5, Vec3::ONE)
                    .unwrap(),
            ),
        ),
        (
            "translucent_cloth_r0.7_t0.5",
            Box::new(
                Translucent::sheen(Vec3::new(0.2, 0.4, 0.2), 1.0, 0.7, 0.04, 0.5, Vec3::ONE)
                    .unwrap(),
            ),
        ),
        (
            "thin_wall_1.5_r0.3",
            Box::new(ThinWall::new(1.5, Vec3::ZERO, 0.01, Vec3::ONE, 0.3)),
        ),
        (
            "filmed_glass_1.5_smooth",
            Box::new(
                FilmedGlass::new(
                    1.5,
                    0.0,
                    Vec3::ONE,
                    ThinFilm::new(300.0, 1.33, 1.0).unwrap(),
                )
                .unwrap(),
            ),
        ),
    ];
    let mut group = c.benchmark_group("lobe");
    group.throughput(Throughput::Elements(BATCH as u64));
    for (name, lobe) in &lobes {
        group.bench_function(BenchmarkId::new("f_pdf", name), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for q in &queries {
                    let (f, pdf) = lobe.f_pdf(q.wo, q.wi);
                    acc += f.x + pdf;
                }
                black_box(acc)
            })
        });
        group.bench_function(BenchmarkId::new("sample_f", name), |b| {
            b.iter(|| {
                let mut acc = 0.0f32;
                for q in &queries {
                    if let Some(s) = lobe.sample_f(q.wo, q.uc, q.u) {
                        acc += s.pdf;
                    }
                }
                black_box(acc)
            })
        });
    }
    group.finish();
}

/// What a coat costs to build, per material (its tables are made by quadrature when the
/// scene's materials are resolved, once per bake).
fn bench_construction(c: &mut Criterion) {
    let mut group = c.benchmark_group("construct");
    let metal = Plain::new(Vec3::new(0.95, 0.64, 0.54), 0.3, 1.0, 0.04);
    group.bench_function("coated_metal_r0.3", |b| {
        b.iter(|| black_box(Coated::new(black_box(metal), 1.0, 0.1, 1.5)))
    });
    for (name, roughness) in [("smooth", 0.0f32), ("r0.3", 0.3)] {
        group.bench_function(BenchmarkId::new("coated_glass", name), |b| {
            b.iter(|| {
                black_box(Glass::coated(
                    1.5,
                    black_box(roughness),
                    Vec3::ONE,
                    1.0,
                    0.05,
                ))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_bsdf, bench_lobes, bench_construction);
criterion_main!(benches);
