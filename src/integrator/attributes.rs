//! The vertex attributes a glTF surface drawn as itself reads at a hit (every TEXCOORD_n,
//! COLOR_0, the tangent), interpolated only for such surfaces: a hit on any other material
//! reads none of them, so [`PathTracer::surface`] stays as lean as before.
//!
//! With them, each set's pixel footprint for filtered texture lookups: pbrt-v4's
//! approximate ray differentials (`CameraBase::Approximate_dp_dxy`), the camera's one-pixel
//! offset rays met with the hit's tangent plane at every depth of the path, whether the
//! camera ray or a bounce reached the point, then carried to texture coordinates through the
//! triangle.

use glam::{Mat3, Vec2, Vec3, Vec4};

use super::query::{barycentric, Surface};
use super::PathTracer;
use crate::accel::Hit;
use crate::camera::Camera;
use crate::geometry::Ray;
use crate::materials::{Bsdf, Bxdfs};
use crate::world::gltf_surface::{GltfSurface, Shaded, SurfacePoint, UvFootprint, TEX_COORD_SETS};
use crate::world::MaterialDef;

/// What a camera tells about the footprint of one pixel anywhere in the scene.
#[derive(Clone, Copy, Debug)]
pub struct CameraFootprint {
    /// Eye position, world units.
    origin: Vec3,
    /// Unit view direction, right and up vectors of the image.
    forward: Vec3,
    right: Vec3,
    up: Vec3,
    /// Orthographic: rays are parallel, offset by `step` world units per pixel.
    orthographic: bool,
    /// Perspective: the image-plane offset per pixel at unit distance along `forward`;
    /// orthographic: the ray-origin offset per pixel, world units.
    step: f32,
    /// The share of a pixel one sample's footprint covers: pbrt-v4's max(1/8, 1/√spp), since
    /// the pixel's jittered samples integrate the rest of it.
    spp_scale: f32,
}

impl CameraFootprint {
    /// The footprint of `camera`'s pixels for a render of `spp` samples per pixel.
    pub fn new(camera: &Camera, spp: u32) -> CameraFootprint {
        let rows = camera.size[1].max(1) as f32;
        CameraFootprint {
            origin: camera.origin,
            forward: camera.forward,
            right: camera.right,
            up: camera.up,
            orthographic: camera.is_orthographic(),
            // `half_height` is tan(fov/2) (perspective) or half the view's height in world
            // units (orthographic): the image's height is twice it over `rows` pixels.
            step: 2.0 * camera.half_height / rows,
            spp_scale: (1.0 / (spp.max(1) as f32).sqrt()).max(0.125),
        }
    }

    /// ∂p/∂x and ∂p/∂y at world point `p` of a surface of unit normal `n`: where the rays one
    /// pixel right and one pixel down of the camera ray through `p` meet the plane of `p` and
    /// `n`, scaled by the sample share. Zero where a ray runs parallel to the plane or `p` is
    /// behind a perspective camera (the lookups then read the image itself).
    pub fn dp_dxy(&self, p: Vec3, n: Vec3) -> (Vec3, Vec3) {
        let v = p - self.origin;
        let plane = |o: Vec3, d: Vec3| -> Vec3 {
            let den = n.dot(d);
            let t = n.dot(p - o) / den;
            let q = o + d * t;
            let dp = (q - p) * self.spp_scale;
            if den.abs() > 1e-8 && dp.is_finite() {
                dp
            } else {
                Vec3::ZERO
            }
        };
        if self.orthographic {
            let o = p - self.forward * v.dot(self.forward);
            return (
                plane(o + self.right * self.step, self.forward),
                plane(o - self.up * self.step, self.forward),
            );
        }
        let depth = v.dot(self.forward);
        if depth <= 0.0 || !depth.is_finite() {
            return (Vec3::ZERO, Vec3::ZERO);
        }
        // The camera ray through p, as an image-plane direction (forward component 1).
        let d = v / depth;
        (
            plane(self.origin, d + self.right * self.step),
            plane(self.origin, d - self.up * self.step),
        )
    }
}

impl PathTracer<'_> {
    /// The radiance a glowing instance (`InstanceInfo::glow`: unlit text, a KHR_materials_unlit
    /// glTF material) shows at `hit`, met along `ray`, W·m⁻²·sr⁻¹: its material's emission, or
    /// where that varies (an unlit glTF material's texture, COLOR_0) the colour at the hit.
    pub(super) fn glow_radiance(&self, hit: &Hit, ray: &Ray, material: &MaterialDef) -> Vec3 {
        match &material.surface {
            Some(g) => {
                let s = self.surface(hit, ray);
                g.shade(&self.surface_point(hit, &s, g), false).emission
            }
            None => material.emission,
        }
    }

    /// The shading point of `hit` (met by `ray`) on `material` and, for a glTF surface drawn
    /// as itself, what it is there (BSDF, emission, shading normal; the normal replaces the
    /// surface's). `after_diffuse`: the path has bounced off a diffuse surface, so the glTF
    /// surface's roughness is filtered (`[trace] filter_glossy`). One place for the path loop,
    /// the denoiser's auxiliaries and the light groups, so that all three see the same surface.
    #[inline(always)]
    pub(super) fn shaded_surface(
        &self,
        hit: &Hit,
        ray: &Ray,
        material: &MaterialDef,
        after_diffuse: bool,
    ) -> (Surface, Option<Shaded>) {
        let mut s = self.surface(hit, ray);
        let shaded = material
            .surface
            .as_ref()
            .map(|g| g.shade(&self.surface_point(hit, &s, g), after_diffuse));
        if let Some(sh) = &shaded {
            s.ns = sh.ns;
        }
        (s, shaded)
    }

    /// The BSDF at shading point `s` (from [`PathTracer::shaded_surface`]) seen from `wo`,
    /// of `bxdf`, with a glTF clear coat's own normal where `shaded` has one
    /// ([`Shaded::coat_ns`]).
    #[inline(always)]
    pub(super) fn surface_bsdf<'b>(
        s: &Surface,
        wo: Vec3,
        bxdf: &'b Bxdfs,
        shaded: Option<&Shaded>,
    ) -> Bsdf<'b> {
        match shaded {
            // The surface query's normals are unit (`surface`) and `wo` is the unit reverse
            // of the ray's direction: nothing to renormalise.
            None => Bsdf::from_unit(s.ng_front, s.ns, wo, bxdf),
            // A glTF surface's shading normal comes from its textures.
            Some(sh) => {
                let bsdf = Bsdf::new(s.ng_front, s.ns, wo, bxdf);
                match sh.coat_ns {
                    Some(n) => bsdf.with_coat_normal(n),
                    None => bsdf,
                }
            }
        }
    }

    /// What `g` reads at `hit`, whose shading point is `s`.
    pub(super) fn surface_point(&self, hit: &Hit, s: &Surface, g: &GltfSurface) -> SurfacePoint {
        let mut at = SurfacePoint {
            uvs: [Vec2::ZERO; TEX_COORD_SETS],
            footprints: [UvFootprint::default(); TEX_COORD_SETS],
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
        if let (Some(camera), Some(p)) = (&self.footprint, corners(&mesh.positions, tri)) {
            // The footprint in the triangle's barycentric coordinates, then in each set's.
            let m = Mat3::from_mat4(inst.world_from_object);
            let p = p.map(|q| m * q);
            let (dpdx, dpdy) = camera.dp_dxy(s.p, s.ng_front);
            let bx = barycentric(&p, p[0] + dpdx);
            let by = barycentric(&p, p[0] + dpdy);
            let sets = std::iter::once(&shading.uvs).chain(&shading.more_uvs);
            for (fp, set) in at.footprints.iter_mut().zip(sets) {
                if let Some(uv) = corners(set, tri) {
                    let (e1, e2) = (uv[1] - uv[0], uv[2] - uv[0]);
                    let dx = e1 * bx.0 + e2 * bx.1;
                    let dy = e1 * by.0 + e2 * by.1;
                    if dx.is_finite() && dy.is_finite() {
                        *fp = UvFootprint { dx, dy };
                    }
                }
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

/// The values of a per-vertex array at a triangle's three corners; `None` when the array does
/// not cover it.
fn corners<T: Copy>(v: &[T], tri: &[u32; 3]) -> Option<[T; 3]> {
    Some([
        *v.get(tri[0] as usize)?,
        *v.get(tri[1] as usize)?,
        *v.get(tri[2] as usize)?,
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    /// Where the camera ray through film position `film` meets the plane of `p` and `n`.
    fn meet(camera: &Camera, film: Vec2, p: Vec3, n: Vec3) -> Vec3 {
        let ray = camera.ray(film, Vec2::splat(0.5));
        let t = n.dot(p - ray.o) / n.dot(ray.d);
        ray.o + ray.d * t
    }

    /// The footprint against the camera's own rays one pixel apart, met with a tilted plane
    /// off the image's centre: the same to first order. (Perspective only: naming the
    /// orthographic projection would name `scene`, which this stage may not; the orthographic
    /// branch is measured on pixels by tests/gltf_model_pixels.rs's boards.)
    #[test]
    fn the_footprint_is_the_step_between_neighbouring_camera_rays() {
        let origin = Vec3::new(0.5, 1.0, 4.0);
        let forward = (-origin).normalize();
        let right = forward.cross(Vec3::Y).normalize();
        let camera = Camera {
            origin,
            forward,
            right,
            up: right.cross(forward),
            projection: Default::default(),
            half_height: (20f32).to_radians().tan(),
            aspect: 320.0 / 240.0,
            shift: Vec2::ZERO,
            lens_radius: 0.0,
            focus: 1.0,
            near: 0.01,
            far: 100.0,
            size: [320, 240],
            fov_deg: 40.0,
        };
        assert!(!camera.is_orthographic());
        let fp = CameraFootprint::new(&camera, 1);
        let film = Vec2::new(250.5, 60.5);
        let n = Vec3::new(0.2, 1.0, 0.3).normalize();
        let p = meet(&camera, film, Vec3::new(0.0, -0.2, 0.0), n);
        let (dx, dy) = fp.dp_dxy(p, n);
        let want_x = meet(&camera, film + Vec2::X, p, n) - p;
        let want_y = meet(&camera, film + Vec2::Y, p, n) - p;
        assert!(
            (dx - want_x).length() < 0.02 * want_x.length(),
            "{dx} against {want_x}"
        );
        assert!(
            (dy - want_y).length() < 0.02 * want_y.length(),
            "{dy} against {want_y}"
        );
        // 64 samples narrow it to an eighth (pbrt-v4's max(1/8, 1/√spp)).
        let (dx8, _) = CameraFootprint::new(&camera, 64).dp_dxy(p, n);
        assert!((dx8 * 8.0 - dx).length() < 1e-4 * dx.length());
        // Behind the camera there is no footprint.
        assert_eq!(fp.dp_dxy(origin - forward, n), (Vec3::ZERO, Vec3::ZERO));
    }
}
