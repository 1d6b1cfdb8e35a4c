//! The shadow terminator of smooth-shaded triangles (docs/materials.md, "Shadow terminator"):
//! light below a flat triangle's plane but above its interpolated shading hemisphere is
//! received by next-event estimation, its shadow ray leaving from the hit lifted onto the
//! smooth surface the vertex normals describe (Hanika, "Hacking the Shadow Terminator", Ray
//! Tracing Gems II, 2021; Cycles' shadow-terminator geometry offset), so that a coarse smooth
//! sphere's terminator follows the shading rather than its facets.

use glam::Vec3;

use super::query::{barycentric, Surface};
use super::PathTracer;
use crate::materials::Bsdf;

impl PathTracer<'_> {
    /// Next-event estimation's BSDF value and shadow-ray origin for `wi` at or below the
    /// geometric plane of the reflecting surface `s` (`bsdf` built there, `wo` towards the
    /// viewer, `ng_out` the geometric normal on the viewer's side): `Some((f, origin))` where
    /// the triangle is smooth-shaded (its three vertex normals are not equal), the hit lifted
    /// onto the smooth surface lies above the flat triangle, and the lobe reflects `wi` about
    /// the shading normal; `None` elsewhere, where such light is not received (as on a flat
    /// triangle). The caller asks only where the shading normal is the interpolated one (no
    /// normal texture bends it): a bent normal's hemisphere says nothing of the smooth surface.
    ///
    /// The origin is the lifted point moved off it along `ng_out`, never towards `wi`: a
    /// shadow ray that still crosses its own triangle or a neighbour is blocked by it (no
    /// triangle is skipped), so no light passes through the surface.
    // Out of line and cold: the path loop calls it only in the terminator band.
    #[cold]
    #[inline(never)]
    pub(super) fn terminator_light(
        &self,
        bsdf: &Bsdf,
        s: &Surface,
        wo: Vec3,
        wi: Vec3,
        ng_out: Vec3,
    ) -> Option<(Vec3, Vec3)> {
        let lifted = self.lifted_point(s, ng_out)?;
        let f = bsdf.f_shading(wo, wi);
        if f == Vec3::ZERO {
            return None;
        }
        let eps = 1e-5 * (1.0 + lifted.abs().max_element());
        Some((f, lifted + ng_out * eps))
    }

    /// Hanika's lifted point `q' = q + Σ bₖ max(0, (pₖ − q)·nₖ) nₖ`: the barycentric blend of
    /// the hit's projections onto the tangent planes its vertices' normals give, lifted only
    /// where the surface curves away (convex towards the viewer); `None` for a flat-shaded
    /// triangle (equal vertex normals), a mesh without normals, or no lift above the triangle.
    fn lifted_point(&self, s: &Surface, ng_out: Vec3) -> Option<Vec3> {
        let inst = &self.scene.accel.instances()[s.instance as usize];
        let info = &self.scene.instances[s.instance as usize];
        let mesh = &self.scene.accel.meshes()[inst.mesh as usize];
        let shading = &self.scene.shading[inst.mesh as usize];
        if shading.normals.len() != mesh.positions.len() {
            return None;
        }
        let tri = mesh.indices[s.prim as usize];
        let n = tri.map(|v| shading.normals[v as usize]);
        if n[0] == n[1] && n[1] == n[2] {
            return None;
        }
        let xf = inst.world_from_object;
        let p = tri.map(|v| xf.transform_point3(mesh.positions[v as usize]));
        // The vertex normals on the viewer's side, as the shading normal is taken.
        let side = if s.ns.dot(ng_out) < 0.0 { -1.0 } else { 1.0 };
        let n = n.map(|n| (info.normal_matrix * n).normalize_or_zero() * side);
        let (b1, b2) = barycentric(&p, s.p);
        let b = [1.0 - b1 - b2, b1, b2];
        let mut lift = Vec3::ZERO;
        for k in 0..3 {
            let d = (p[k] - s.p).dot(n[k]);
            if d > 0.0 {
                lift += n[k] * (b[k].max(0.0) * d);
            }
        }
        let h = lift.dot(ng_out);
        (h > 0.0 && lift.is_finite()).then_some(s.p + lift)
    }
}
