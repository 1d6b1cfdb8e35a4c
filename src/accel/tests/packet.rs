//! The packet and bundle queries against the single-ray portable path: every ray of every
//! packet, on every path, whatever the packet's size and composition, gets the same bits.
use super::exact::{isa_rays, isa_scene, key};
use super::*;

/// Traces `rays` (with `masks`) through every path's packet queries, packed as given, and
/// demands each ray's single-ray portable answer, bit for bit. Returns the closest hits found.
fn check(accel: &Accel, rays: &[Ray], masks: &[u32], what: &str) -> usize {
    let want: Vec<_> = rays
        .iter()
        .zip(masks)
        .map(|(r, &m)| key(accel.closest_hit_isa(Isa::Portable, r, m, |_| true)))
        .collect();
    let want_any: Vec<bool> = rays
        .iter()
        .zip(masks)
        .map(|(r, &m)| accel.any_hit_isa(Isa::Portable, r, m, |_| true))
        .collect();
    let mut hits = vec![None; rays.len()];
    let mut any = vec![false; rays.len()];
    for isa in Isa::available() {
        accel.closest_hit_packet_isa(isa, rays, masks, &mut hits);
        accel.any_hit_packet_isa(isa, rays, masks, &mut any);
        for i in 0..rays.len() {
            assert_eq!(key(hits[i]), want[i], "{what}: {isa:?} closest, ray {i}");
            assert_eq!(any[i], want_any[i], "{what}: {isa:?} any, ray {i}");
        }
        // The bundle walk: the same bits whatever the packet's spread.
        accel.closest_hit_bundle_isa(isa, rays, masks, &mut hits);
        for i in 0..rays.len() {
            assert_eq!(key(hits[i]), want[i], "{what}: {isa:?} bundle, ray {i}");
        }
    }
    accel.closest_hit_packet(rays, masks, &mut hits);
    assert!(
        hits.iter().zip(&want).all(|(h, w)| key(*h) == *w),
        "{what}: default path"
    );
    want.iter().filter(|w| w.is_some()).count()
}

/// Coherent packets: eight rays from one spot with directions a little apart (so packets
/// stay together deep into the trees), towards random points of the scene, some bounded.
fn coherent_rays(n: u64, spread: f32) -> Vec<Ray> {
    let mut rays = Vec::new();
    for p in 0..n {
        let r = |k: u64| rnd(50, 16 * p + k);
        let o = Vec3::new(r(0), r(1), r(2)) * 10.0 - 5.0;
        let target = Vec3::new(r(3), r(4), r(5)) * 3.0 - 1.5;
        let t_max = if p % 4 == 3 {
            0.5 + 6.0 * r(6)
        } else {
            f32::INFINITY
        };
        for j in 0..8u64 {
            let jitter = (rnd_unit(51, 8 * p + j)) * spread;
            rays.push(ray(o, target - o + jitter, t_max));
        }
    }
    rays
}

/// The exactness rays of `every_isa_returns_the_same_bits` (shared edges and vertices, rays
/// along edges, bounded, tiny directions, misses), packed in order, shuffled, and one packet
/// per kind; masks uniform, mixed, and with lanes off.
#[test]
fn packets_return_the_single_ray_bits() {
    let (accel, sphere) = isa_scene();
    let rays = isa_rays(&sphere, 12_000);
    let ones = vec![1u32; rays.len()];
    let mixed: Vec<u32> = (0..rays.len() as u64)
        .map(|i| [1, 2, 3, 0][(hash(i ^ 77) % 4) as usize])
        .collect();
    assert!(check(&accel, &rays, &ones, "in order") > 3_000);
    check(&accel, &rays, &mixed, "in order, mixed masks");
    // Shuffled: packets of unrelated rays.
    let mut shuffled = rays.clone();
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, (hash(i as u64 ^ 99) % (i as u64 + 1)) as usize);
    }
    check(&accel, &shuffled, &mixed, "shuffled");
    // Sorted by kind (every sixth ray is of one kind): packets of rays aimed at shared
    // vertices, of axis-aligned rays along the square's edges, of tiny directions.
    let by_kind: Vec<Ray> = (0..6)
        .flat_map(|k| rays.iter().skip(k).step_by(6).copied())
        .collect();
    check(&accel, &by_kind, &ones, "by kind");
    check(&accel, &by_kind, &vec![3; rays.len()], "by kind, mask 3");
}

/// Packets that stay coherent (exercising the packet node test and its ordering), of every
/// size from one to eight rays and across packet boundaries, through the instanced sphere,
/// its rotated copy and the flattened meshes.
#[test]
fn coherent_packets_of_every_size() {
    let (accel, _) = isa_scene();
    for spread in [1e-3f32, 0.05, 0.5] {
        let rays = coherent_rays(400, spread);
        let masks: Vec<u32> = (0..rays.len() as u64)
            .map(|i| if i % 13 == 5 { 2 } else { 3 })
            .collect();
        assert!(
            check(&accel, &rays, &masks, "coherent") > 500,
            "spread {spread}"
        );
        for len in 1..=8 {
            for start in [0, 3, 8, 13] {
                let r = &rays[start..start + 8 * len];
                let m = &masks[start..start + 8 * len];
                // Packets of `len` rays: trace each slice of `len` on its own.
                for (k, (rs, ms)) in r.chunks(len).zip(m.chunks(len)).enumerate().take(40) {
                    check(
                        &accel,
                        rs,
                        ms,
                        &format!("len {len} start {start} chunk {k}"),
                    );
                }
            }
        }
    }
}

/// Adversarial packets: the same ray eight times, rays of mixed octants, ties (coincident
/// triangles, rays along a shared edge), degenerate and hostile rays mixed with good ones,
/// and `t_max` exactly at a hit.
#[test]
fn adversarial_packets() {
    let (accel, sphere) = isa_scene();
    let base = isa_rays(&sphere, 600);
    let mut rays = Vec::new();
    for r in base.iter().take(100) {
        rays.extend([*r; 8]);
    }
    // Mixed octants: a packet of the eight sign combinations of one direction.
    for (i, r) in base.iter().enumerate().take(200) {
        for s in 0..8 {
            let f = |b: usize| if s & (1 << b) != 0 { -1.0 } else { 1.0 };
            let d = r.d * Vec3::new(f(0), f(1), f(2));
            rays.push(ray(r.o, d, if i % 3 == 0 { 2.0 } else { f32::INFINITY }));
        }
    }
    // Hostile lanes among good ones.
    let hostile = [
        ray(Vec3::NAN, Vec3::X, 1.0),
        ray(Vec3::ZERO, Vec3::ZERO, 1.0),
        ray(Vec3::ZERO, Vec3::new(f32::INFINITY, 0.0, 0.0), 1.0),
        ray(Vec3::ZERO, Vec3::X, f32::NAN),
        ray(Vec3::ZERO, Vec3::X, -1.0),
        ray(Vec3::ZERO, Vec3::splat(1e-35), 1e30),
        ray(Vec3::splat(1e20), -Vec3::ONE, f32::INFINITY),
        ray(Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 1.0), 1.0),
        ray(
            Vec3::new(0.1, 0.2, 3.0),
            Vec3::new(0.0, f32::NAN, -1.0),
            f32::INFINITY,
        ),
    ];
    for (i, r) in base.iter().enumerate().take(300) {
        rays.push(hostile[i % hostile.len()]);
        rays.push(*r);
    }
    // t_max exactly at the single-ray hit: the hit must drop out (open interval), on every
    // lane, and a hair further it must come back.
    for r in base.iter().take(400) {
        if let Some(h) = accel.closest_hit_isa(Isa::Portable, r, 3, |_| true) {
            rays.push(ray(r.o, r.d, h.t));
            rays.push(ray(r.o, r.d, f32::from_bits(h.t.to_bits() + 1)));
        }
    }
    let masks = vec![3; rays.len()];
    check(&accel, &rays, &masks, "adversarial");
    // Ties: coincident triangles in one mesh placed twice at the same spot; packets of rays
    // hitting both, along their shared diagonal too.
    let mut m = square(0.0);
    m.indices.push([0, 1, 2]);
    m.indices.insert(0, [0, 2, 3]);
    let tie = Accel::build(
        vec![m.clone(), m],
        vec![
            inst(0, Mat4::IDENTITY, 1),
            inst(0, Mat4::IDENTITY, 1),
            inst(1, Mat4::IDENTITY, 1),
        ],
    );
    let mut rays = Vec::new();
    for i in 0..256u64 {
        let x = rnd(60, i) * 2.0 - 1.0;
        let y = if i % 4 == 0 {
            x
        } else {
            rnd(61, i) * 2.0 - 1.0
        };
        rays.push(ray(Vec3::new(x, y, 1.0), -Vec3::Z, f32::INFINITY));
    }
    let masks = vec![1; rays.len()];
    assert!(check(&tie, &rays, &masks, "ties") > 200);
}

/// A flattened closed mesh of a few thousand triangles seen by a camera: packets of 2×4
/// neighbouring pixels, as a renderer traces them, and shadow-like rays towards one point.
#[test]
fn camera_packets_on_a_flattened_mesh() {
    let accel = Accel::build(vec![icosphere(5)], vec![inst(0, Mat4::IDENTITY, 1)]);
    let eye = Vec3::new(0.3, 0.2, 3.0);
    let mut rays = Vec::new();
    for ty in 0..32 {
        for tx in 0..16 {
            for j in 0..8 {
                let (px, py) = (4 * tx + j % 4, 2 * ty + j / 4);
                let d = Vec3::new(px as f32 / 32.0 - 1.0, py as f32 / 32.0 - 1.0, -1.5);
                rays.push(ray(eye, d, f32::INFINITY));
            }
        }
    }
    let masks = vec![1; rays.len()];
    assert!(check(&accel, &rays, &masks, "camera") > 500);
    // Towards a point inside the sphere from around it: every ray is blocked, or bounded
    // just short of the surface.
    let shadow: Vec<Ray> = rays
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let o = r.o + r.d * 0.8;
            let t = if i % 2 == 0 { 1.0 } else { 0.2 };
            ray(o, Vec3::new(0.1, 0.0, 0.0) - o, t)
        })
        .collect();
    check(&accel, &shadow, &masks, "shadow");
}

/// Bundles as the camera makes them: the eight samples of one pixel, directions a fraction
/// of a pixel apart and origins spread over a small lens, through the instanced sphere, its
/// rotated copy and the flattened meshes, at pixels across the whole view (silhouettes,
/// misses, both levels of the tree).
#[test]
fn pixel_bundles_with_a_lens() {
    let (accel, _) = isa_scene();
    for (lens, pixel) in [(0.0f32, 1e-3f32), (0.02, 2e-3), (0.2, 1e-2)] {
        let eye = Vec3::new(0.5, 1.0, 6.0);
        let mut rays = Vec::new();
        for p in 0..600u64 {
            let target = Vec3::new(rnd(70, p) * 8.0 - 4.0, rnd(71, p) * 4.0 - 2.0, 0.0);
            for j in 0..8u64 {
                let q = 8 * p + j;
                let u = |s: u64| rnd(s, q) * 2.0 - 1.0;
                let o = eye + Vec3::new(u(72), u(73), 0.0) * lens;
                let aim = target + Vec3::new(u(74), u(75), 0.0) * pixel;
                rays.push(ray(o, aim - o, f32::INFINITY));
            }
        }
        let masks = vec![3u32; rays.len()];
        assert!(
            check(&accel, &rays, &masks, &format!("lens {lens}")) > 300,
            "lens {lens}"
        );
    }
}
