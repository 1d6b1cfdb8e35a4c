//! The vertex attributes a glTF surface drawn as itself reads at a hit (every TEXCOORD_n,
//! COLOR_0, the tangent), interpolated only for such surfaces: a hit on any other material
//! reads none of them, so [`PathTracer::surface`] stays as lean as before.

use glam::{Mat3, Vec2, Vec3, Vec4};

use super::query::Surface;
use super::PathTracer;
use crate::accel::Hit;
use crate::world::gltf_surface::{GltfSurface, SurfacePoint, TEX_COORD_SETS};

impl PathTracer<'_> {
    /// What `g` reads at `hit`, whose shading point is `s`.
    pub(super) fn surface_point(&self, hit: &Hit, s: &Surface, g: &GltfSurface) -> SurfacePoint {
        let mut at = SurfacePoint {
            uvs: [Vec2::ZERO; TEX_COORD_SETS],
            color: Vec4::ONE,
            ns: s.ns,
            tangent: Vec4::ZERO,
        };
        let inst = &self.scene.accel.instances()[hit.instance as usize];
        let (Some(mesh), Some(shading)) = (
            self.scene.accel.meshes().get(inst.mesh as usize),
            self.scene.shading.get(inst.mesh as usize),
        ) else {
            return at;
        };
        let Some(tri) = mesh.indices.get(hit.prim as usize) else {
            return at;
        };
        let w = [1.0 - hit.b1 - hit.b2, hit.b1, hit.b2];
        // Barycentric interpolation of a per-vertex array; `None` when the array does not
        // cover the triangle (an attribute the mesh lacks).
        fn lerp<T>(v: &[T], tri: &[u32; 3], w: [f32; 3]) -> Option<T>
        where
            T: Copy + std::ops::Mul<f32, Output = T> + std::ops::Add<Output = T>,
        {
            let a = *v.get(tri[0] as usize)?;
            let b = *v.get(tri[1] as usize)?;
            let c = *v.get(tri[2] as usize)?;
            Some(a * w[0] + b * w[1] + c * w[2])
        }
        if let Some(uv) = lerp(&shading.uvs, tri, w) {
            at.uvs[0] = uv;
        }
        for (slot, set) in at.uvs[1..].iter_mut().zip(&shading.more_uvs) {
            if let Some(uv) = lerp(set, tri, w) {
                *slot = uv;
            }
        }
        if g.vertex_colors() {
            if let Some(c) = lerp(&shading.colors, tri, w) {
                at.color = c;
            }
        }
        if g.normal_mapped() {
            // Each vertex's sign (they agree on a triangle exporters and MikkTSpace give).
            if let Some(t) = lerp(&shading.tangents, tri, w) {
                let info = &self.scene.instances[hit.instance as usize];
                let sign = shading.tangents[tri[0] as usize].w;
                // Tangents are surface directions: they follow the object's linear map, and a
                // mirroring map turns n × t against the mapped bitangent, which the
                // orientation's sign puts back.
                let tw = Mat3::from_mat4(inst.world_from_object) * t.truncate();
                let tw = if tw.is_finite() { tw } else { Vec3::ZERO };
                at.tangent = tw.extend(sign * info.orientation);
            }
        }
        at
    }
}
