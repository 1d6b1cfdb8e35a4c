//! The caster geometry a live renderer needs to shadow its dynamic objects in the static
//! objects' place (`[plates] casters`, docs/plates.md, "Casters and proxies"): each static
//! object's own triangles as the plate's shadow rays meet them, or the `[[proxy]]` stand-ins,
//! all in world space.
//!
//! Plain data for the plate writer, which turns it into `casters.glb`; nothing here draws.

use glam::{Mat4, Vec3, Vec4};

use super::{mask, text::TEXT_INSTANCE, World};
use crate::scene::{Proxy, ProxyKind};

/// Where a caster's triangles come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CasterSource {
    /// The object's own mesh: every part the plate's shadow rays meet (`shadow` `"cast"` or
    /// `"only"`), cut by its clip planes.
    Mesh,
    /// The `[[proxy]]` at this 0-based place in the proxies file.
    Proxy(usize),
}

/// One caster: the world-space triangles standing for one object.
#[derive(Clone, Debug)]
pub struct CasterMesh {
    /// Index into [`World::objects`] of the object it stands for.
    pub object: u32,
    /// Mesh or proxy.
    pub source: CasterSource,
    /// Vertex positions in world space, scene units.
    pub positions: Vec<Vec3>,
    /// Triangles, each corner an index into `positions`; counter-clockwise seen from the
    /// front (the outside, for a proxy).
    pub indices: Vec<[u32; 3]>,
    /// Some of the triangles are cut further by a cut-out (alpha) material, which a triangle
    /// list cannot hold: they are written whole (docs/plates.md).
    pub cutout: bool,
}

impl World {
    /// Each static object's caster mesh, in the order of [`World::objects`]: the triangles of
    /// every instance of the object the plate's shadow rays meet ([`mask::CASTS`]: `shadow`
    /// `"cast"` and `"only"`, hidden nodes left out), carried to world space and cut by the
    /// object's clip planes (and its movers' at t = 0) exactly as the shadow rays are. Text
    /// blocks are not objects and are left out; an object whose parts are all cut away is
    /// left out.
    pub fn caster_meshes(&self) -> Vec<CasterMesh> {
        let accel = &self.trace.accel;
        let meshes = accel.meshes();
        let mut out: Vec<CasterMesh> = Vec::new();
        for (inst, info) in accel.instances().iter().zip(&self.trace.instances) {
            if inst.mask & mask::CASTS == 0 || info.object == TEXT_INSTANCE {
                continue;
            }
            let Some(mesh) = meshes.get(inst.mesh as usize) else {
                continue;
            };
            let cut = info.cut.and_then(|c| self.trace.cuts.get(c as usize));
            let planes: &[Vec4] = cut.map_or(&[], |c| &c.planes);
            // The instances of one object are pushed one after another by the world builder.
            let fresh = out.last().is_none_or(|c| c.object != info.object);
            if fresh {
                out.push(CasterMesh {
                    object: info.object,
                    source: CasterSource::Mesh,
                    positions: Vec::new(),
                    indices: Vec::new(),
                    cutout: false,
                });
            }
            let Some(c) = out.last_mut() else { continue };
            c.cutout |= cut.is_some_and(|c| c.coverage.is_some());
            append_clipped(c, mesh, inst.world_from_object, planes);
        }
        out.retain(|c| !c.indices.is_empty());
        out
    }

    /// The proxies' meshes, in the order written: a box as the 12 triangles of the unit cube
    /// under `T·R·S`, a hull as its own points and triangles. A proxy whose object is not
    /// among [`World::objects`] is left out (the reader refuses one).
    pub fn proxy_meshes(&self, proxies: &[Proxy]) -> Vec<CasterMesh> {
        proxies
            .iter()
            .filter_map(|p| {
                let object = self.objects.iter().position(|o| o.key == p.object)? as u32;
                let (positions, indices) = match p.kind {
                    ProxyKind::Box => {
                        unit_box(crate::geometry::model_matrix(p.at, p.rotate, p.size))
                    }
                    ProxyKind::Hull => {
                        let n = p.points.len() as u32;
                        (
                            p.points.iter().map(|&q| Vec3::from(q)).collect(),
                            // The checker refuses a corner past the last point; a hand-built
                            // one is dropped rather than indexing past the end.
                            p.triangles
                                .iter()
                                .copied()
                                .filter(|t| t.iter().all(|&i| i < n))
                                .collect(),
                        )
                    }
                };
                Some(CasterMesh {
                    object,
                    source: CasterSource::Proxy(p.key),
                    positions,
                    indices,
                    cutout: false,
                })
            })
            .collect()
    }
}

/// The unit cube centred on the origin under `m`: 8 corners, 12 triangles counter-clockwise
/// from outside (mirrored when `m` mirrors, so that they stay so).
fn unit_box(m: Mat4) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let positions = (0..8)
        .map(|i| {
            let c = Vec3::new(
                if i & 1 == 0 { -0.5 } else { 0.5 },
                if i & 2 == 0 { -0.5 } else { 0.5 },
                if i & 4 == 0 { -0.5 } else { 0.5 },
            );
            m.transform_point3(c)
        })
        .collect();
    // Faces −X, +X, −Y, +Y, −Z, +Z, each as two triangles wound counter-clockwise from outside.
    let mut indices: Vec<[u32; 3]> = vec![
        [0, 4, 6],
        [0, 6, 2],
        [1, 3, 7],
        [1, 7, 5],
        [0, 1, 5],
        [0, 5, 4],
        [2, 6, 7],
        [2, 7, 3],
        [0, 2, 3],
        [0, 3, 1],
        [4, 5, 7],
        [4, 7, 6],
    ];
    if m.determinant() < 0.0 {
        for t in &mut indices {
            t.swap(1, 2);
        }
    }
    (positions, indices)
}

/// Appends `mesh` under `m` to `c`, each triangle cut by `planes` (a world point `p` is cut
/// where `plane · (p, 1) > 0`, as [`super::Cut::keeps`] cuts it): what is kept of a triangle is
/// a convex polygon, written as a fan. Vertices of uncut triangles are shared as in the mesh.
fn append_clipped(c: &mut CasterMesh, mesh: &crate::accel::TriangleMesh, m: Mat4, planes: &[Vec4]) {
    let base = c.positions.len() as u32;
    c.positions
        .extend(mesh.positions.iter().map(|&p| m.transform_point3(p)));
    for t in &mesh.indices {
        let corner = |k: usize| c.positions[(base + t[k]) as usize];
        let whole = planes
            .iter()
            .all(|pl| (0..3).all(|k| pl.dot(corner(k).extend(1.0)) <= 0.0));
        if whole {
            c.indices.push([base + t[0], base + t[1], base + t[2]]);
            continue;
        }
        let mut poly: Vec<Vec3> = (0..3).map(corner).collect();
        for pl in planes {
            poly = clip_polygon(&poly, *pl);
            if poly.len() < 3 {
                break;
            }
        }
        if poly.len() < 3 {
            continue;
        }
        let first = c.positions.len() as u32;
        c.positions.extend_from_slice(&poly);
        for k in 1..poly.len() as u32 - 1 {
            c.indices.push([first, first + k, first + k + 1]);
        }
    }
}

/// Sutherland–Hodgman: the part of the convex polygon `poly` where `plane · (p, 1) ≤ 0`,
/// in the same winding.
fn clip_polygon(poly: &[Vec3], plane: Vec4) -> Vec<Vec3> {
    let side = |p: Vec3| plane.dot(p.extend(1.0));
    let mut out = Vec::with_capacity(poly.len() + 1);
    for (i, &a) in poly.iter().enumerate() {
        let b = poly[(i + 1) % poly.len()];
        let (sa, sb) = (side(a), side(b));
        if sa <= 0.0 {
            out.push(a);
        }
        if (sa <= 0.0) != (sb <= 0.0) {
            let t = sa / (sa - sb);
            out.push(a + (b - a) * t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The box's triangles face outwards: each normal points away from the centre, and the
    /// faces close the surface (the divergence theorem gives the volume).
    #[test]
    fn a_box_proxy_is_closed_and_faces_outwards() {
        for m in [
            crate::geometry::model_matrix([1.0, 2.0, 3.0], [10.0, 20.0, 30.0], [2.0, 0.5, 1.0]),
            Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)),
        ] {
            let (p, t) = unit_box(m);
            let centre = m.transform_point3(Vec3::ZERO);
            let mut volume = 0.0;
            for [a, b, c] in &t {
                let (a, b, c) = (p[*a as usize], p[*b as usize], p[*c as usize]);
                let n = (b - a).cross(c - a);
                assert!(n.dot((a + b + c) / 3.0 - centre) > 0.0, "{m:?}");
                volume += a.dot(b.cross(c)) / 6.0;
            }
            assert!((volume - m.determinant().abs()).abs() < 1e-4, "{volume}");
        }
    }

    /// A plane through a triangle keeps the part on its side, with the area cut exactly.
    #[test]
    fn a_clip_plane_cuts_a_triangle_to_its_kept_side() {
        let tri = [
            Vec3::ZERO,
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
        ];
        // Cut where x > 1: plane (1, 0, 0, −1).
        let kept = clip_polygon(&tri, Vec4::new(1.0, 0.0, 0.0, -1.0));
        assert_eq!(kept.len(), 4);
        assert!(kept.iter().all(|p| p.x <= 1.0 + 1e-6));
        let area: f32 = (1..kept.len() - 1)
            .map(|k| (kept[k] - kept[0]).cross(kept[k + 1] - kept[0]).z / 2.0)
            .sum();
        // The whole triangle is 2; the cut-off corner x > 1 is a triangle of 0.5.
        assert!((area - 1.5).abs() < 1e-6, "{area}");
        // Cut where x > −5: nothing is kept.
        assert!(clip_polygon(&tri, Vec4::new(1.0, 0.0, 0.0, 5.0)).is_empty());
    }
}
