//! Exactness tests: the same bits on every instruction-set path, the walk against testing
//! every triangle, the tie-break, and trees over degenerate inputs.
use super::*;

/// Bits of a hit, for exact comparisons.
pub(super) fn key(h: Option<Hit>) -> Option<(u32, u32, u32, u32, u32)> {
    h.map(|h| {
        (
            h.t.to_bits(),
            h.instance,
            h.prim,
            h.b1.to_bits(),
            h.b2.to_bits(),
        )
    })
}

/// A scene with shared edges (a closed icosphere placed twice, so instanced), a flattened
/// soup and a flattened icosphere, and an axis-aligned square (rays along its edges).
pub(super) fn isa_scene() -> (Accel, TriangleMesh) {
    let sphere = icosphere(4);
    let q = glam::Quat::from_euler(glam::EulerRot::ZYX, 0.3, -1.2, 0.7);
    let accel = Accel::build(
        vec![sphere.clone(), soup(3, 400), icosphere(2), square(0.0)],
        vec![
            inst(0, Mat4::IDENTITY, 1),
            inst(
                0,
                Mat4::from_scale_rotation_translation(
                    Vec3::splat(0.7),
                    q,
                    Vec3::new(2.5, 0.5, 0.0),
                ),
                1,
            ),
            inst(1, Mat4::from_translation(Vec3::new(-1.0, -1.5, 0.2)), 1),
            inst(
                2,
                Mat4::from_scale_rotation_translation(
                    Vec3::splat(0.5),
                    q,
                    Vec3::new(0.0, 2.0, 1.0),
                ),
                2,
            ),
            inst(3, Mat4::from_translation(Vec3::new(0.0, 0.0, -2.0)), 1),
        ],
    );
    (accel, sphere)
}

/// Rays of every kind for the exactness tests: random, aimed exactly at shared edges and
/// vertices of the sphere (and of its rotated copy), axis-aligned (zero direction components,
/// along the square's edges), short and bounded.
pub(super) fn isa_rays(sphere: &TriangleMesh, n: u64) -> Vec<Ray> {
    let q = glam::Quat::from_euler(glam::EulerRot::ZYX, 0.3, -1.2, 0.7);
    let m1 = Mat4::from_scale_rotation_translation(Vec3::splat(0.7), q, Vec3::new(2.5, 0.5, 0.0));
    let mut rays = Vec::new();
    for i in 0..n {
        let r = |k: u64| rnd(40, 16 * i + k);
        let o = Vec3::new(r(0), r(1), r(2)) * 8.0 - 4.0;
        match i % 6 {
            0 => rays.push(ray(o, rnd_unit(41, i) * (0.2 + 4.0 * r(3)), f32::INFINITY)),
            1 | 2 => {
                // At a vertex or an edge point of the sphere, in either placement.
                let [a, b, _] = sphere.indices[(hash(i) % sphere.indices.len() as u64) as usize];
                let (pa, pb) = (sphere.positions[a as usize], sphere.positions[b as usize]);
                let p = if i % 6 == 1 {
                    pa
                } else {
                    pa + (pb - pa) * r(4)
                };
                let p = if i % 12 < 6 {
                    p
                } else {
                    m1.transform_point3(p)
                };
                rays.push(ray(o, p - o, f32::INFINITY));
            }
            3 => {
                // Axis-aligned, through the square's edges and diagonal at x, y in {−1, 0, 1}.
                let c = |k: u64| (hash(i ^ k) % 3) as f32 - 1.0;
                let p = Vec3::new(c(1), c(2), -2.0);
                let axis = (hash(i ^ 9) % 3) as usize;
                let mut d = Vec3::ZERO;
                d[axis] = if hash(i ^ 5) % 2 == 0 { 1.0 } else { -1.0 };
                rays.push(ray(p - d * 3.0, d, f32::INFINITY));
            }
            4 => {
                // Bounded: t_max near the nearest hit.
                let d = rnd_unit(42, i);
                rays.push(ray(o, d, 0.5 + 6.0 * r(5)));
            }
            _ => {
                // Origins on the square, grazing and tiny directions.
                let o = Vec3::new(r(6) * 2.0 - 1.0, r(7) * 2.0 - 1.0, -2.0);
                let d = Vec3::new(r(8) - 0.5, r(9) - 0.5, (r(10) - 0.5) * 1e-3) * 1e-6;
                rays.push(ray(o, d, f32::INFINITY));
            }
        }
    }
    rays
}

/// Every instruction-set path returns the same hits, bit for bit, for closest hits (plain and
/// filtered) and any hits.
#[test]
fn every_isa_returns_the_same_bits() {
    let (accel, sphere) = isa_scene();
    let isas = Isa::available();
    assert!(isas.contains(&Isa::Portable));
    let rays = isa_rays(&sphere, 60_000);
    let mut hits = 0;
    for (i, r) in rays.iter().enumerate() {
        for mask in [1, 3] {
            let want = key(accel.closest_hit_isa(Isa::Portable, r, mask, |_| true));
            hits += want.is_some() as u32;
            let odd = |h: &Hit| (h.prim + h.instance) % 2 == 0;
            let want_f = key(accel.closest_hit_isa(Isa::Portable, r, mask, odd));
            let want_any = accel.any_hit_isa(Isa::Portable, r, mask, |_| true);
            let want_any_f = accel.any_hit_isa(Isa::Portable, r, mask, odd);
            assert_eq!(want_any, want.is_some(), "ray {i}");
            for &isa in &isas {
                assert_eq!(
                    key(accel.closest_hit_isa(isa, r, mask, |_| true)),
                    want,
                    "{isa:?} ray {i}"
                );
                assert_eq!(
                    key(accel.closest_hit_isa(isa, r, mask, odd)),
                    want_f,
                    "{isa:?} ray {i}"
                );
                assert_eq!(
                    accel.any_hit_isa(isa, r, mask, |_| true),
                    want_any,
                    "{isa:?} ray {i}"
                );
                assert_eq!(
                    accel.any_hit_isa(isa, r, mask, odd),
                    want_any_f,
                    "{isa:?} ray {i}"
                );
            }
            assert_eq!(key(accel.closest_hit(r, mask)), want);
        }
    }
    assert!(hits > 30_000, "{hits}");
}

/// The walk finds exactly what testing every triangle with the same arithmetic finds
/// (the scalar reference test in each instance's space, nearest t, ties to the lower
/// (instance, prim)), bit for bit, on every path.
#[test]
fn every_isa_matches_brute_force_over_all_triangles() {
    let (accel, sphere) = isa_scene();
    let rays = isa_rays(&sphere, 12_000);
    let brute = |r: &Ray, mask: u32| -> Option<Hit> {
        let (d, s_world) = normalise_pow2(r.d)?;
        if !r.o.is_finite() || r.t_max.is_nan() || r.t_max <= 0.0 {
            return None;
        }
        let lim_w = node::below(r.t_max / s_world);
        let mut best: Option<(f32, Hit)> = None;
        for inst in &accel.instance_data {
            if inst.mask & mask == 0 {
                continue;
            }
            let Some(blas) = accel.blas[inst.mesh as usize].as_ref() else {
                continue;
            };
            // Merged groups are world space: the walk uses the world ray untransformed.
            let (o, od, s_obj) = if let Source::Merged(_) = inst.source {
                (r.o, d, 1.0)
            } else {
                let o = inst.object_from_world.transform_point3(r.o);
                let Some((od, s_obj)) = normalise_pow2(inst.object_from_world.transform_vector3(d))
                else {
                    continue;
                };
                (o, od, s_obj)
            };
            let tri = triangle::TriRay::new(o, od);
            for b in &blas.blocks {
                for lane in 0..LEAF_TRIS {
                    let v = |j: usize| Vec3::new(b.v[j][0][lane], b.v[j][1][lane], b.v[j][2][lane]);
                    let Some(h) = tri.intersect(&[v(0), v(1), v(2)], lim_w / s_obj) else {
                        continue;
                    };
                    let t_ws = h.t * s_obj;
                    let (instance, prim) = match inst.source {
                        Source::Instance(i) => (i, b.prim[lane]),
                        Source::Merged(g) => accel.origins[g as usize][b.prim[lane] as usize],
                    };
                    let better = best.as_ref().is_none_or(|(bt, bh)| {
                        t_ws < *bt || (t_ws == *bt && (instance, prim) < (bh.instance, bh.prim))
                    });
                    if better && t_ws <= lim_w {
                        let hit = Hit {
                            t: t_ws * s_world,
                            instance,
                            prim,
                            b1: h.b1.clamp(0.0, 1.0),
                            b2: h.b2.clamp(0.0, 1.0),
                        };
                        best = Some((t_ws, hit));
                    }
                }
            }
        }
        best.map(|b| b.1)
    };
    let mut hits = 0;
    for (i, r) in rays.iter().enumerate() {
        let want = key(brute(r, 3));
        hits += want.is_some() as u32;
        for isa in Isa::available() {
            assert_eq!(
                key(accel.closest_hit_isa(isa, r, 3, |_| true)),
                want,
                "{isa:?} ray {i}"
            );
            assert_eq!(
                accel.any_hit_isa(isa, r, 3, |_| true),
                want.is_some(),
                "{isa:?} ray {i}"
            );
        }
    }
    assert!(hits > 4_000, "{hits}");
}

/// Coincident triangles (the same triangle twice in a mesh, and the same mesh placed twice at
/// the same spot) tie in t; the lower (instance, prim) wins on every path.
#[test]
fn ties_go_to_the_lower_instance_and_prim() {
    let mut m = square(0.0);
    m.indices.push([0, 1, 2]);
    m.indices.insert(0, [0, 2, 3]);
    // Triangles 0 and 2 coincide, and 1 and 3.
    let accel = Accel::build(
        vec![m],
        vec![inst(0, Mat4::IDENTITY, 1), inst(0, Mat4::IDENTITY, 1)],
    );
    for isa in Isa::available() {
        for (x, y, want) in [(0.5f32, -0.5f32, 1u32), (-0.5, 0.5, 0)] {
            let r = ray(Vec3::new(x, y, 1.0), -Vec3::Z, f32::INFINITY);
            let h = accel.closest_hit_isa(isa, &r, 1, |_| true).expect("hit");
            assert_eq!((h.instance, h.prim), (0, want), "{isa:?}");
            // Rejecting instance 0 gives instance 1's lower prim.
            let h = accel
                .closest_hit_isa(isa, &r, 1, |h| h.instance == 1)
                .expect("hit");
            assert_eq!((h.instance, h.prim), (1, want), "{isa:?}");
        }
    }
}

/// Inputs that would make a naive builder deep or stuck: identical triangles, exponentially
/// spaced ones, and NaN vertices mixed in. The tree stays within its depth bound (so the walk's
/// fixed stack cannot overflow) and every triangle stays findable.
#[test]
fn degenerate_inputs_build_shallow_trees() {
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    // 3000 copies of one triangle, 200 exponentially spaced tiny ones, 50 with NaN.
    for i in 0..3250u32 {
        let base = positions.len() as u32;
        let (p, s) = if i < 3000 {
            (Vec3::ZERO, 1.0)
        } else if i < 3200 {
            let x = 1.5f32.powi((i - 3000) as i32 / 4);
            (Vec3::new(x, 0.0, 0.0), 0.01 * x)
        } else {
            (Vec3::NAN, 1.0)
        };
        positions.extend([p, p + Vec3::X * s, p + Vec3::Y * s]);
        indices.push([base, base + 1, base + 2]);
    }
    let mesh = TriangleMesh { positions, indices };
    let blas = build_blas(&mesh).expect("usable triangles");
    assert_eq!(blas.tris, 3200);
    let mut boxes = Vec::new();
    for t in 0..3200u32 {
        let v = triangle_vertices(&mesh, &mesh.indices[t as usize]).expect("finite");
        let lo = v[0].min(v[1]).min(v[2]);
        boxes.push(build::Aabb::new(lo.into(), v[0].max(v[1]).max(v[2]).into()));
    }
    let ids: Vec<u32> = (0..3200).collect();
    let wide = build::build(&boxes, &ids, 4);
    assert!(wide.depth <= node::MAX_DEPTH, "depth {}", wide.depth);
    // A chain of 40 000 exponentially spaced boxes: SAH alone would split one off per level.
    let chain: Vec<build::Aabb> = (0..40_000)
        .map(|i| {
            let x = 1.001f32.powi(i);
            build::Aabb::new(Vec3A::new(x, 0.0, 0.0), Vec3A::new(x, 1.0, 1.0))
        })
        .collect();
    let ids: Vec<u32> = (0..chain.len() as u32).collect();
    let wide = build::build(&chain, &ids, 1);
    assert!(wide.depth <= node::MAX_DEPTH, "depth {}", wide.depth);
    assert_eq!(wide.order.len(), chain.len());
    // One mesh placed twice at the same spot: instanced, and every hit ties across the two.
    let accel = Accel::build(
        vec![mesh],
        vec![inst(0, Mat4::IDENTITY, 1), inst(0, Mat4::IDENTITY, 1)],
    );
    for isa in Isa::available() {
        let r = ray(Vec3::new(0.2, 0.2, 1.0), -Vec3::Z, f32::INFINITY);
        let h = accel.closest_hit_isa(isa, &r, 1, |_| true).expect("hit");
        assert_eq!(
            (h.instance, h.prim),
            (0, 0),
            "lowest of the identical triangles"
        );
        let x = 1.5f32.powi(30);
        let r = ray(
            Vec3::new(x * 1.002, x * 0.002, 1.0),
            -Vec3::Z,
            f32::INFINITY,
        );
        let h = accel.closest_hit_isa(isa, &r, 1, |_| true).expect("hit");
        assert_eq!((h.instance, h.prim), (0, 3000 + 120));
    }
}

/// The walk visits every leaf box a ray meets (exact slab test in f64, boxes shrunk by 1e-3)
/// and none it clearly misses (portable path; the other paths are held to its bits above).
#[test]
fn walk_finds_exactly_the_boxes_a_ray_meets() {
    let boxes: Vec<build::Aabb> = (0..500u64)
        .map(|i| {
            let c = Vec3A::new(rnd(50, 6 * i), rnd(50, 6 * i + 1), rnd(50, 6 * i + 2)) * 10.0;
            let h = Vec3A::new(rnd(50, 6 * i + 3), rnd(50, 6 * i + 4), rnd(50, 6 * i + 5)) * 0.3;
            build::Aabb::new(c - h, c + h)
        })
        .collect();
    let ids: Vec<u32> = (0..boxes.len() as u32).collect();
    let wide = build::build(&boxes, &ids, 1);
    for i in 0..300u64 {
        let o = Vec3::new(rnd(51, 3 * i), rnd(51, 3 * i + 1), rnd(51, 3 * i + 2)) * 14.0 - 2.0;
        let d = Vec3::new(
            rnd(52, 3 * i) - 0.5,
            rnd(52, 3 * i + 1) - 0.5,
            rnd(52, 3 * i + 2) - 0.5,
        );
        let d = d / d.abs().max_element();
        let seen = traverse::leaves_met(&wide.nodes, o.to_array(), d.to_array());
        let seen: std::collections::BTreeSet<u32> = seen
            .iter()
            .map(|&l| wide.order[wide.leaves[l as usize].0 as usize])
            .collect();
        for (k, b) in boxes.iter().enumerate() {
            let meets = |pad: f64| {
                let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
                for a in 0..3 {
                    let (lo, hi) = (b.min[a] as f64 - pad, b.max[a] as f64 + pad);
                    let (oo, dd) = (o[a] as f64, d[a] as f64);
                    if dd == 0.0 {
                        if oo < lo || oo > hi {
                            return false;
                        }
                        continue;
                    }
                    let (x, y) = ((lo - oo) / dd, (hi - oo) / dd);
                    t0 = t0.max(x.min(y));
                    t1 = t1.min(x.max(y));
                }
                t0 <= t1
            };
            if meets(-1e-3) {
                assert!(
                    seen.contains(&(k as u32)),
                    "box {k} met by ray {i} but not visited"
                );
            }
            if !meets(1e-3) {
                assert!(
                    !seen.contains(&(k as u32)),
                    "box {k} missed by ray {i} but visited"
                );
            }
        }
    }
}
