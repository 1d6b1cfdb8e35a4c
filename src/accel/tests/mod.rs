//! The module's tests (run with opt-level 3, see Cargo.toml's test profile); the exactness
//! tests (every path, brute force, ties, degenerate builds) are in `exact.rs`, the packet
//! queries against the single-ray ones in `packet.rs`.
use super::*;
use std::collections::BTreeMap;

mod exact;
mod packet;

/// SplitMix64 of a counter: deterministic, stateless random bits.
fn hash(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Uniform in [0, 1) from (stream, index).
fn rnd(stream: u64, i: u64) -> f32 {
    (hash(hash(stream) ^ i) >> 40) as f32 / (1u64 << 24) as f32
}

fn rnd_unit(stream: u64, i: u64) -> Vec3 {
    // Uniform on the sphere.
    let z = 1.0 - 2.0 * rnd(stream, 2 * i);
    let phi = std::f32::consts::TAU * rnd(stream, 2 * i + 1);
    let r = (1.0 - z * z).max(0.0).sqrt();
    Vec3::new(r * phi.cos(), r * phi.sin(), z)
}

/// Unit icosphere: the icosahedron with each face split into four `levels` times.
fn icosphere(levels: u32) -> TriangleMesh {
    let g = (1.0 + 5f32.sqrt()) / 2.0;
    let mut positions: Vec<Vec3> = [
        (-1.0, g, 0.0),
        (1.0, g, 0.0),
        (-1.0, -g, 0.0),
        (1.0, -g, 0.0),
        (0.0, -1.0, g),
        (0.0, 1.0, g),
        (0.0, -1.0, -g),
        (0.0, 1.0, -g),
        (g, 0.0, -1.0),
        (g, 0.0, 1.0),
        (-g, 0.0, -1.0),
        (-g, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| Vec3::new(x, y, z).normalize())
    .collect();
    let mut indices: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..levels {
        let mut mid: BTreeMap<(u32, u32), u32> = BTreeMap::new();
        let mut next = Vec::with_capacity(indices.len() * 4);
        for &[a, b, c] in &indices {
            let mut m = |x: u32, y: u32| {
                *mid.entry((x.min(y), x.max(y))).or_insert_with(|| {
                    let p = ((positions[x as usize] + positions[y as usize]) * 0.5).normalize();
                    positions.push(p);
                    positions.len() as u32 - 1
                })
            };
            let (ab, bc, ca) = (m(a, b), m(b, c), m(c, a));
            next.extend_from_slice(&[[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        indices = next;
    }
    TriangleMesh { positions, indices }
}

/// A random soup of `n` triangles in the unit cube.
fn soup(stream: u64, n: u32) -> TriangleMesh {
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for i in 0..n as u64 {
        let c = Vec3::new(
            rnd(stream, 9 * i),
            rnd(stream, 9 * i + 1),
            rnd(stream, 9 * i + 2),
        );
        for k in 0..3 {
            let j = 9 * i + 3 + 2 * k;
            let off = Vec3::new(
                rnd(stream, j) - 0.5,
                rnd(stream, j + 1) - 0.5,
                rnd(stream ^ 7, j) - 0.5,
            );
            positions.push(c + off * 0.3);
        }
        let b = 3 * i as u32;
        indices.push([b, b + 1, b + 2]);
    }
    TriangleMesh { positions, indices }
}

fn ray(o: Vec3, d: Vec3, t_max: f32) -> Ray {
    Ray { o, d, t_max }
}

fn inst(mesh: u32, m: Mat4, mask: u32) -> Instance {
    Instance {
        mesh,
        world_from_object: m,
        mask,
    }
}

/// (1) A million rays aimed exactly at shared edges and shared vertices of a closed mesh
/// from outside origins all hit, and hit at the aimed point.
#[test]
fn watertight_on_shared_edges_and_vertices() {
    let mesh = icosphere(4);
    // Edge -> adjacent faces and vertex -> adjacent faces, to place origins in front of
    // every face around the aimed feature (so the ray enters the convex mesh there and a
    // miss can only be a crack).
    let mut edge_faces: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    let mut vert_faces: Vec<Vec<usize>> = vec![Vec::new(); mesh.positions.len()];
    for (f, &[a, b, c]) in mesh.indices.iter().enumerate() {
        for (x, y) in [(a, b), (b, c), (c, a)] {
            edge_faces.entry((x.min(y), x.max(y))).or_default().push(f);
        }
        for v in [a, b, c] {
            vert_faces[v as usize].push(f);
        }
    }
    let edges: Vec<((u32, u32), Vec<usize>)> = edge_faces.into_iter().collect();
    assert!(edges.iter().all(|(_, f)| f.len() == 2), "mesh is closed");
    let normal = |f: usize| {
        let [a, b, c] = mesh.indices[f].map(|i| mesh.positions[i as usize]);
        (b - a).cross(c - a).normalize()
    };
    // Two placements: identity, and turned, scaled and moved (the object-space ray then
    // comes out of an inverse transform, as in real scenes).
    let transforms = [
        Mat4::IDENTITY,
        Mat4::from_scale_rotation_translation(
            Vec3::new(3.0, 3.0, 3.0),
            glam::Quat::from_euler(glam::EulerRot::ZYX, 0.3, -1.2, 0.7),
            Vec3::new(10.0, -4.0, 2.5),
        ),
    ];
    let n_rays = 1_000_000u64;
    let mut misses = 0u64;
    let mut off_target = 0u64;
    for (ti, m) in transforms.iter().enumerate() {
        let accel = Accel::build(vec![mesh.clone()], vec![inst(0, *m, 1)]);
        let stream = 100 + ti as u64;
        for i in 0..n_rays / transforms.len() as u64 {
            let r = |k: u64| rnd(stream, 8 * i + k);
            // Half the rays at edge points, half at vertices.
            let (aim, faces): (Vec3, &[usize]) = if i % 2 == 0 {
                let ((a, b), faces) = &edges[(hash(stream ^ i) % edges.len() as u64) as usize];
                let (pa, pb) = (mesh.positions[*a as usize], mesh.positions[*b as usize]);
                (pa + (pb - pa) * r(0), faces)
            } else {
                let v = (hash(stream ^ i) % mesh.positions.len() as u64) as usize;
                (mesh.positions[v], &vert_faces[v])
            };
            let n = faces.iter().map(|&f| normal(f)).sum::<Vec3>().normalize();
            // Origin direction within ~30° of the feature normal: in front of every face
            // around it (those deviate from n by a few degrees at this subdivision).
            let dir = (n + rnd_unit(stream ^ 0xABC, i) * 0.5).normalize();
            assert!(faces.iter().all(|&f| normal(f).dot(dir) > 0.2));
            let dist = 0.05 + 20.0 * r(3) * r(3);
            let o_obj = aim + dir * dist;
            let (o, p) = (m.transform_point3(o_obj), m.transform_point3(aim));
            match accel.closest_hit(&ray(o, p - o, f32::INFINITY), 1) {
                None => misses += 1,
                Some(h) => {
                    // Aimed at the first surface on the way, so t is 1 up to rounding.
                    if (h.t - 1.0).abs() > 1e-3 {
                        off_target += 1;
                    }
                }
            }
        }
    }
    assert_eq!(misses, 0, "rays slipped through shared edges/vertices");
    assert_eq!(off_target, 0, "hits away from the aimed point");
}

/// Intersection in f64 (Möller–Trumbore): (t, smallest barycentric) for t in (0, t_max).
fn brute_tri(o: [f64; 3], d: [f64; 3], v: [[f64; 3]; 3], t_max: f64) -> Option<(f64, f64)> {
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let (e1, e2) = (sub(v[1], v[0]), sub(v[2], v[0]));
    let p = cross(d, e2);
    let det = dot(e1, p);
    if det == 0.0 {
        return None;
    }
    let s = sub(o, v[0]);
    let u = dot(s, p) / det;
    let q = cross(s, e1);
    let w = dot(d, q) / det;
    let t = dot(e2, q) / det;
    let margin = u.min(w).min(1.0 - u - w);
    (margin >= 0.0 && t > 0.0 && t < t_max).then_some((t, margin))
}

/// The soup + icosphere scene with several transformed instances, negative scale included.
fn test_scene() -> Accel {
    let meshes = vec![soup(1, 300), icosphere(2), soup(2, 50)];
    let q = |x: f32, y: f32, z: f32| glam::Quat::from_euler(glam::EulerRot::ZYX, z, y, x);
    let instances = vec![
        inst(0, Mat4::IDENTITY, 1),
        inst(
            0,
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.5, 0.7, 2.0),
                q(0.4, 1.0, -0.3),
                Vec3::new(1.5, 0.2, 0.0),
            ),
            1,
        ),
        // Mirrored: negative scale flips winding.
        inst(
            0,
            Mat4::from_scale_rotation_translation(
                Vec3::new(-1.0, 1.0, 1.0),
                q(0.0, 0.5, 0.0),
                Vec3::new(-0.5, 1.0, 0.5),
            ),
            1,
        ),
        inst(
            1,
            Mat4::from_scale_rotation_translation(
                Vec3::splat(0.4),
                q(0.1, 0.2, 0.3),
                Vec3::new(0.5, 0.5, 1.5),
            ),
            1,
        ),
        inst(
            1,
            Mat4::from_scale_rotation_translation(
                Vec3::new(-0.3, 0.5, -0.2),
                q(1.0, 0.0, 2.0),
                Vec3::new(2.0, 1.5, 1.0),
            ),
            1,
        ),
        inst(2, Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)), 1),
        // Shear via a general affine matrix.
        inst(
            2,
            Mat4::from_cols_array(&[
                1.0, 0.0, 0.0, 0.0, 0.6, 1.0, 0.0, 0.0, 0.0, 0.3, 1.0, 0.0, 0.5, 0.5, -0.5, 1.0,
            ]),
            1,
        ),
    ];
    Accel::build(meshes, instances)
}

fn world_tri(accel: &Accel, instance: u32, prim: u32) -> [[f64; 3]; 3] {
    let inst = accel.instances()[instance as usize];
    let mesh = &accel.meshes()[inst.mesh as usize];
    mesh.indices[prim as usize].map(|i| {
        let p = inst
            .world_from_object
            .as_dmat4()
            .transform_point3(mesh.positions[i as usize].as_dvec3());
        p.to_array()
    })
}

/// (2) Closest hit equals brute force over every triangle of every instance.
#[test]
fn closest_hit_matches_brute_force() {
    let accel = test_scene();
    let mut hits = 0;
    for i in 0..3000u64 {
        let o = Vec3::new(rnd(7, 4 * i), rnd(7, 4 * i + 1), rnd(7, 4 * i + 2)) * 5.0 - 1.5;
        // Aimed into the scene; unnormalised directions of varied length; some rays have a
        // finite end.
        let target = Vec3::new(rnd(8, 3 * i), rnd(8, 3 * i + 1), rnd(8, 3 * i + 2)) * 3.0 - 0.5;
        let d = (target - o).normalize_or(Vec3::X) * (0.1 + 3.0 * rnd(9, i));
        let t_max = if i % 3 == 0 {
            2.0 * rnd(10, i)
        } else {
            f32::INFINITY
        };
        let r = ray(o, d, t_max);
        let (od, dd) = (o.as_dvec3().to_array(), d.as_dvec3().to_array());
        let mut best: Option<(f64, f64)> = None;
        for (ii, inst) in accel.instances().iter().enumerate() {
            for p in 0..accel.meshes()[inst.mesh as usize].indices.len() as u32 {
                if let Some((t, margin)) =
                    brute_tri(od, dd, world_tri(&accel, ii as u32, p), t_max as f64)
                {
                    if best.is_none_or(|b| t < b.0) {
                        best = Some((t, margin));
                    }
                }
            }
        }
        let got = accel.closest_hit(&r, 1);
        if let Some(h) = got {
            hits += 1;
            assert!(h.t > 0.0 && h.t < t_max);
            // The reported hit is real: the f64 test on that triangle agrees on t and b.
            let tri = world_tri(&accel, h.instance, h.prim);
            let (t, _) = brute_tri(od, dd, tri, f64::INFINITY)
                .or_else(|| {
                    // On an edge the f64 test may round the other way; accept within 1e-5.
                    let c = [0, 1, 2].map(|k| (tri[0][k] + tri[1][k] + tri[2][k]) / 3.0);
                    let grown = tri.map(|v| [0, 1, 2].map(|k| c[k] + (v[k] - c[k]) * (1.0 + 1e-5)));
                    brute_tri(od, dd, grown, f64::INFINITY)
                })
                .expect("reported triangle is hit");
            assert!(
                (t - h.t as f64).abs() <= 1e-4 * t.max(1.0),
                "t {t} vs {}",
                h.t
            );
            let p = [0, 1, 2].map(|k| {
                (1.0 - h.b1 as f64 - h.b2 as f64) * tri[0][k]
                    + h.b1 as f64 * tri[1][k]
                    + h.b2 as f64 * tri[2][k]
            });
            let q = [0, 1, 2].map(|k| od[k] + t * dd[k]);
            let err = (0..3).map(|k| (p[k] - q[k]).abs()).fold(0.0, f64::max);
            assert!(err < 1e-3, "barycentrics give {p:?}, ray gives {q:?}");
            // Nothing nearer was skipped.
            if let Some((tb, _)) = best {
                assert!(
                    h.t as f64 <= tb + 1e-4 * tb.max(1.0),
                    "got {} but brute force {tb}",
                    h.t
                );
            }
        }
        // A clear brute-force hit (away from edges and from t_max) must be found.
        if let Some((tb, margin)) = best {
            if margin > 1e-4 && tb < t_max as f64 * (1.0 - 1e-4) {
                let h = got.unwrap_or_else(|| panic!("ray {i} missed, brute force t = {tb}"));
                assert!(
                    (h.t as f64 - tb).abs() <= 1e-4 * tb.max(1.0),
                    "ray {i}: {} vs {tb}",
                    h.t
                );
            }
        }
    }
    assert!(hits > 600, "the test must exercise hits ({hits})");
}

/// (3) any_hit is true exactly when closest_hit finds something, for several t_max.
#[test]
fn any_hit_agrees_with_closest_hit() {
    let accel = test_scene();
    let mut checked = 0;
    for i in 0..2000u64 {
        let o = Vec3::new(rnd(11, 3 * i), rnd(11, 3 * i + 1), rnd(11, 3 * i + 2)) * 5.0 - 1.5;
        let target = Vec3::new(rnd(12, 3 * i), rnd(12, 3 * i + 1), rnd(12, 3 * i + 2)) * 3.0 - 0.5;
        let d = (target - o) * 0.7;
        let Some(h) = accel.closest_hit(&ray(o, d, f32::INFINITY), 1) else {
            assert!(!accel.any_hit(&ray(o, d, f32::INFINITY), 1, |_| true));
            continue;
        };
        checked += 1;
        for (f, expect) in [
            (0.5, Some(false)),
            (0.999, Some(false)),
            (1.001, Some(true)),
            (4.0, Some(true)),
            (f32::INFINITY, Some(true)),
        ] {
            let r = ray(o, d, h.t * f);
            let any = accel.any_hit(&r, 1, |_| true);
            assert_eq!(
                any,
                accel.closest_hit(&r, 1).is_some(),
                "ray {i} t_max factor {f}"
            );
            if let Some(e) = expect {
                assert_eq!(any, e, "ray {i} factor {f}");
            }
        }
    }
    assert!(checked > 800, "{checked}");
}

/// Unit square in the plane z = `z`, two triangles.
fn square(z: f32) -> TriangleMesh {
    TriangleMesh {
        positions: vec![
            Vec3::new(-1.0, -1.0, z),
            Vec3::new(1.0, -1.0, z),
            Vec3::new(1.0, 1.0, z),
            Vec3::new(-1.0, 1.0, z),
        ],
        indices: vec![[0, 1, 2], [0, 2, 3]],
    }
}

/// (4) Rejecting the nearest hit with the filter yields the next one.
#[test]
fn filter_skips_to_next_hit() {
    // Three parallel squares at z = 1, 2, 3: one mesh instanced twice, one mesh once.
    let accel = Accel::build(
        vec![square(1.0), square(0.0)],
        vec![
            inst(0, Mat4::IDENTITY, 1),
            inst(1, Mat4::from_translation(Vec3::Z * 2.0), 1),
            inst(0, Mat4::from_translation(Vec3::Z * 2.0), 1),
        ],
    );
    let r = ray(
        Vec3::new(0.3, 0.2, 0.0),
        Vec3::new(0.0, 0.0, 0.5),
        f32::INFINITY,
    );
    let h = accel.closest_hit(&r, 1).expect("hit");
    assert_eq!(h.instance, 0);
    assert!((h.t - 2.0).abs() < 1e-6);
    let h = accel
        .closest_hit_filtered(&r, 1, |h| h.instance != 0)
        .expect("second");
    assert_eq!(h.instance, 1);
    assert!((h.t - 4.0).abs() < 1e-6);
    let h = accel
        .closest_hit_filtered(&r, 1, |h| h.instance == 2)
        .expect("third");
    assert!((h.t - 6.0).abs() < 1e-6);
    let mut calls = 0;
    assert!(accel
        .closest_hit_filtered(&r, 1, |_| {
            calls += 1;
            false
        })
        .is_none());
    assert_eq!(calls, 3, "each square is met once");
    assert!(!accel.any_hit(&r, 1, |_| false));
    assert!(accel.any_hit(&r, 1, |h| h.instance == 2));
    // Rejecting the hit triangle within a mesh also moves on (to the next instance).
    let h = accel
        .closest_hit_filtered(&r, 1, |h| h.t > 5.0)
        .expect("third");
    assert_eq!(h.instance, 2);
}

/// (5) Masks select instances.
#[test]
fn mask_selects_instances() {
    let accel = Accel::build(
        vec![square(0.0)],
        vec![
            inst(0, Mat4::from_translation(Vec3::Z), 0b01),
            inst(0, Mat4::from_translation(Vec3::Z * 2.0), 0b10),
        ],
    );
    let r = ray(Vec3::ZERO, Vec3::Z, f32::INFINITY);
    assert_eq!(accel.closest_hit(&r, 0b01).map(|h| h.instance), Some(0));
    assert_eq!(accel.closest_hit(&r, 0b10).map(|h| h.instance), Some(1));
    assert_eq!(accel.closest_hit(&r, 0b11).map(|h| h.instance), Some(0));
    assert!(accel.closest_hit(&r, 0b100).is_none());
    assert!(!accel.any_hit(&r, 0b100, |_| true));
    assert!(!accel.any_hit(&r, 0, |_| true));
    assert!(accel.any_hit(&r, 0b10, |h| h.instance == 1));
}

/// Meshes placed once are flattened into world space per mask, and hits still report the
/// instance and triangle they came from.
#[test]
fn single_use_meshes_are_flattened_and_report_their_origin() {
    let a = icosphere(2);
    let b = icosphere(1);
    let accel = Accel::build(
        vec![a.clone(), b.clone(), a],
        vec![
            inst(0, Mat4::from_translation(Vec3::new(-3.0, 0.0, 0.0)), 1),
            inst(
                1,
                Mat4::from_scale_rotation_translation(
                    Vec3::splat(2.0),
                    glam::Quat::from_rotation_y(0.3),
                    Vec3::new(3.0, 0.0, 0.0),
                ),
                2,
            ),
            inst(2, Mat4::from_translation(Vec3::new(0.0, 0.0, -3.0)), 1),
        ],
    );
    // All three meshes are used once: one top-level leaf per mask.
    assert_eq!(accel.instance_data.len(), 2);
    for (i, x) in [(0u32, -3.0f32), (1, 3.0)] {
        let h = accel
            .closest_hit(&ray(Vec3::new(x, 0.0, 10.0), Vec3::NEG_Z, f32::INFINITY), 3)
            .expect("hit");
        assert_eq!(h.instance, i);
        let m = &accel.meshes()[accel.instances()[i as usize].mesh as usize];
        let tri = m.indices[h.prim as usize];
        let xf = accel.instances()[i as usize].world_from_object;
        let p = tri.map(|v| xf.transform_point3(m.positions[v as usize]));
        let q = p[0] * (1.0 - h.b1 - h.b2) + p[1] * h.b1 + p[2] * h.b2;
        let r = ray(Vec3::new(x, 0.0, 10.0), Vec3::NEG_Z, f32::INFINITY);
        assert!(
            (q - r.at(h.t)).length() < 1e-4,
            "the reported triangle holds the hit"
        );
    }
    assert!(accel
        .closest_hit(
            &ray(Vec3::new(3.0, 0.0, 10.0), Vec3::NEG_Z, f32::INFINITY),
            1
        )
        .is_none());
}

/// A small mesh placed several times is flattened within the budget, instanced beyond it, and
/// either way every ray reports the same instance and triangle, at the same `t` up to the
/// rounding of object against world space.
#[test]
fn small_meshes_placed_a_few_times_are_flattened_within_the_budget() {
    let mesh = icosphere(2); // 320 triangles
    let tris = mesh.indices.len();
    let placements: Vec<Instance> = (0..3)
        .map(|i| {
            let m = Mat4::from_scale_rotation_translation(
                Vec3::splat(1.0 + 0.25 * i as f32),
                glam::Quat::from_rotation_y(0.4 * i as f32),
                Vec3::new(3.0 * i as f32 - 3.0, 0.0, 0.0),
            );
            inst(0, m, 1)
        })
        .collect();
    let instanced = Accel::build(vec![mesh.clone()], placements.clone());
    let under = Accel::build_flattening(vec![mesh.clone()], placements.clone(), 3 * tris);
    let over = Accel::build_flattening(vec![mesh], placements, 3 * tris - 1);
    assert!((0..3).all(|i| under.is_flattened(i)));
    assert!((0..3).all(|i| !over.is_flattened(i) && !instanced.is_flattened(i)));
    // Flattened: one merged top-level leaf; instanced: one per placement.
    assert_eq!(under.instance_data.len(), 1);
    assert_eq!(over.instance_data.len(), 3);
    let mut met = 0;
    for k in 0..400 {
        let x = -5.0 + 10.0 * (k as f32 + 0.5) / 400.0;
        let y = 0.9 * ((k * 7 % 400) as f32 / 400.0 - 0.5);
        let r = ray(
            Vec3::new(x, y, 10.0),
            Vec3::new(0.01, 0.02, -1.0),
            f32::INFINITY,
        );
        let a = instanced.closest_hit(&r, 1);
        let b = under.closest_hit(&r, 1);
        let c = over.closest_hit(&r, 1);
        assert_eq!(a.map(|h| h.t.to_bits()), c.map(|h| h.t.to_bits()));
        match (a, b) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                met += 1;
                assert_eq!((a.instance, a.prim), (b.instance, b.prim), "ray {k}");
                assert!((a.t - b.t).abs() <= 1e-5 * a.t, "ray {k}: {} {}", a.t, b.t);
                assert_eq!(
                    instanced.any_hit(&r, 1, |_| true),
                    under.any_hit(&r, 1, |_| true)
                );
            }
            (a, b) => panic!("ray {k}: {a:?} against {b:?}"),
        }
    }
    assert!(met > 100, "{met} rays met the spheres");
}

/// (6) A mesh placed 1000 times is stored once; each instance costs a bounded number of bytes.
#[test]
fn instancing_keeps_one_copy() {
    let mesh = icosphere(4);
    // Two placements: a mesh placed once would be flattened into world space instead.
    let two = Accel::build(
        vec![mesh.clone()],
        vec![
            inst(0, Mat4::IDENTITY, 1),
            inst(0, Mat4::from_translation(Vec3::X * 3.0), 1),
        ],
    );
    let many_instances: Vec<Instance> = (0..1000u64)
        .map(|i| {
            inst(
                0,
                Mat4::from_translation(
                    Vec3::new((i % 10) as f32, ((i / 10) % 10) as f32, (i / 100) as f32) * 3.0,
                ),
                1,
            )
        })
        .collect();
    let many = Accel::build(vec![mesh], many_instances);
    assert_eq!(many.meshes().len(), 1);
    let per_instance = (many.memory_bytes() - two.memory_bytes()) as f64 / 998.0;
    assert!(per_instance < 512.0, "{per_instance} bytes per instance");
    assert!(
        per_instance > 64.0,
        "the instance matrices themselves are counted ({per_instance})"
    );
    // And the far instances are really there.
    let h = many
        .closest_hit(&ray(Vec3::new(27.0, 27.0, -5.0), Vec3::Z, f32::INFINITY), 1)
        .expect("hit");
    assert_eq!(h.instance, 99);
    assert!((h.t - 4.0).abs() < 1e-4);
}

#[test]
fn empty_and_degenerate_scenes_never_hit_or_panic() {
    let empty = Accel::build(vec![], vec![]);
    let r = ray(Vec3::ZERO, Vec3::X, f32::INFINITY);
    assert!(empty.closest_hit(&r, !0).is_none());
    assert!(!empty.any_hit(&r, !0, |_| true));
    assert_eq!(empty.bounds(), (Vec3::ZERO, Vec3::ZERO));
    // Bad mesh index, zero-determinant matrix, NaN matrix, mesh with only broken triangles.
    let broken = TriangleMesh {
        positions: vec![Vec3::ZERO, Vec3::NAN],
        indices: vec![[0, 1, 0], [0, 7, 9]],
    };
    let accel = Accel::build(
        vec![square(0.0), broken],
        vec![
            inst(5, Mat4::IDENTITY, 1),
            inst(0, Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0)), 1),
            inst(0, Mat4::from_cols_array(&[f32::NAN; 16]), 1),
            inst(1, Mat4::IDENTITY, 1),
        ],
    );
    let down = ray(Vec3::new(0.1, 0.1, 1.0), -Vec3::Z, f32::INFINITY);
    assert!(accel.closest_hit(&down, !0).is_none());
    assert_eq!(accel.instances().len(), 4);
    assert!(accel.bounds().0.is_finite() && accel.bounds().1.is_finite());
}

#[test]
fn hostile_rays_do_not_panic() {
    let accel = test_scene();
    let values = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        1e-30,
        1e30,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        f32::NAN,
        f32::INFINITY,
        -f32::INFINITY,
    ];
    let mut n = 0;
    for (i, &a) in values.iter().enumerate() {
        for &b in &values {
            for &t_max in &[f32::INFINITY, 1.0, 0.0, -1.0, f32::NAN] {
                let rays = [
                    ray(Vec3::new(a, 0.5, b), Vec3::new(0.3, a, 1.0), t_max),
                    ray(Vec3::new(0.5, 0.5, -2.0), Vec3::new(a, b, 1.0), t_max),
                    ray(
                        Vec3::splat(0.5),
                        Vec3::new(a, b, values[(i + 3) % values.len()]),
                        t_max,
                    ),
                ];
                for r in rays {
                    if let Some(h) = accel.closest_hit(&r, !0) {
                        assert!(h.t.is_finite() && h.t > 0.0 && h.t < r.t_max);
                        assert!(h.b1.is_finite() && h.b2.is_finite());
                        n += 1;
                    }
                    let _ = accel.any_hit(&r, !0, |_| true);
                }
            }
        }
    }
    assert!(n > 0);
}

#[test]
fn single_triangle_and_determinism() {
    let tri = TriangleMesh {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        indices: vec![[0, 1, 2]],
    };
    let accel = Accel::build(vec![tri], vec![inst(0, Mat4::IDENTITY, 1)]);
    let h = accel
        .closest_hit(
            &ray(Vec3::new(0.2, 0.3, 1.0), -Vec3::Z * 2.0, f32::INFINITY),
            1,
        )
        .expect("hit");
    assert_eq!((h.instance, h.prim), (0, 0));
    assert!((h.t - 0.5).abs() < 1e-6 && (h.b1 - 0.2).abs() < 1e-6 && (h.b2 - 0.3).abs() < 1e-6);
    // Two builds of the same scene give bit-identical answers.
    let (a, b) = (test_scene(), test_scene());
    for i in 0..500u64 {
        let o = Vec3::new(rnd(13, 3 * i), rnd(13, 3 * i + 1), rnd(13, 3 * i + 2)) * 5.0 - 1.5;
        let r = ray(o, rnd_unit(14, i), f32::INFINITY);
        let key = |h: Option<Hit>| {
            h.map(|h| {
                (
                    h.t.to_bits(),
                    h.instance,
                    h.prim,
                    h.b1.to_bits(),
                    h.b2.to_bits(),
                )
            })
        };
        assert_eq!(key(a.closest_hit(&r, 1)), key(b.closest_hit(&r, 1)));
    }
    assert_eq!(a.memory_bytes(), b.memory_bytes());
}
