//! The data passes of a camera sample: what its camera ray meets first among the drawn
//! things (as a rasteriser's G-buffer would hold it), and the object at a pixel centre for the
//! pick id. Both read only the camera ray the path already traced, never a random number, so
//! the radiance is the same with or without them; only a bake that asks for passes runs this.

use glam::Vec3;

use super::query::Meet;
use super::PathTracer;
use crate::film::PassSample;
use crate::geometry::Ray;
use crate::lights::Light;
use crate::materials::Bsdf;
use crate::world::mask;

impl PathTracer<'_> {
    /// The [`PassSample`] of a camera ray `ray` whose first meeting (drawn things only, as
    /// `meet(&ray, mask::DRAWN, true)` gives it) is `first`.
    pub(super) fn pass_sample(&self, ray: &Ray, first: Meet) -> PassSample {
        let wo = -ray.d.normalize();
        let h = match first {
            Meet::Nothing => return PassSample::default(),
            Meet::Sphere { light, t } => {
                // An emitter is a light, not an object: its normal, and nothing to reflect.
                let normal = match &self.scene.lights[light as usize] {
                    Light::Sphere { center, .. } => (ray.at(t) - *center).normalize_or_zero(),
                    _ => Vec3::ZERO,
                };
                return PassSample {
                    normal,
                    ..PassSample::default()
                };
            }
            Meet::Surface(h) => h,
        };
        if self.scene.accel.instances()[h.instance as usize].mask & mask::DRAWN == 0 {
            return PassSample::default();
        }
        let info = &self.scene.instances[h.instance as usize];
        let mut s = self.surface(&h, ray);
        let material = &self.scene.materials[info.material as usize];
        // A glTF surface drawn as itself: its textures give the BSDF and normal at the hit,
        // as the path tracer's first vertex builds them.
        let shaded = material
            .surface
            .as_ref()
            .map(|g| g.shade(&self.surface_point(&h, &s, g), false));
        let bxdf = match &shaded {
            Some(sh) => {
                s.ns = sh.ns;
                &sh.bxdf
            }
            None => &material.bxdf,
        };
        let n = Bsdf::new(s.ng_front, s.ns, wo, bxdf).shading_normal();
        PassSample {
            normal: if n.dot(wo) < 0.0 { -n } else { n },
            albedo: bxdf.albedo(),
            roughness: bxdf.roughness(),
            // A text block is no object of the scene: no pick, no Cryptomatte object id.
            object: (info.object != crate::world::text::TEXT_INSTANCE).then_some(info.object),
            material: Some(info.material),
        }
    }

    /// What the ray `ray` meets first among the drawn things: its ray parameter and, for a
    /// surface, the object (index into the world's objects); `None` for the sky. What the
    /// depth and pick plates read along the pixel-centre camera ray.
    pub fn first_drawn(&self, ray: &Ray) -> Option<(f32, Option<u32>)> {
        match self.meet(ray, mask::DRAWN, true) {
            Meet::Surface(h) => {
                let object = self.scene.instances[h.instance as usize].object;
                Some((
                    h.t,
                    (object != crate::world::text::TEXT_INSTANCE).then_some(object),
                ))
            }
            Meet::Sphere { t, .. } => Some((t, None)),
            Meet::Nothing => None,
        }
    }
}
