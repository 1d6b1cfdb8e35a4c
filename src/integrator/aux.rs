//! The denoiser's auxiliaries of a path (OIDN's albedo and normal images): what the path's
//! first non-specular vertex is, found by following the camera ray through the sharp
//! (delta) scatterings with the random numbers the path tracer draws there, so the vertex is
//! the one the path itself reaches. Only a bake that asks for them runs this; the radiance
//! path is untouched.

use glam::Vec3;

use super::query::{offset_origin, Meet};
use super::{Counters, PathTracer, FIRST_BOUNCE_DIM, SAMPLES_PER_BOUNCE};
use crate::geometry::Ray;
use crate::lights::Light;
use crate::sampling::sampler::PixelSampler;
use crate::world::mask;

/// What a denoiser learns of a path's first non-specular vertex: where the camera sees a
/// chain of sharp reflections or transmissions, the surface seen through it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Aux {
    /// The surface's albedo ([`Bxdfs::albedo`](crate::materials::Bxdfs::albedo)), linear RGB
    /// in `[0, 1]`; for the sky or an emitter, its radiance clamped to `[0, 1]`.
    pub albedo: Vec3,
    /// The shading normal, world space, unit, on the side the path came from; zero for the
    /// sky and for a shadow-only object.
    pub normal: Vec3,
}

impl Aux {
    /// A surface vertex's: `albedo`, and the shading normal `n` turned to `wo`'s side.
    fn at(albedo: Vec3, n: Vec3, wo: Vec3) -> Aux {
        Aux {
            albedo,
            normal: if n.dot(wo) < 0.0 { -n } else { n },
        }
    }
}

impl PathTracer<'_> {
    /// The [`Aux`] of sample `index`'s path, whose camera ray `ray` meets `first`: its first
    /// vertex whose sampled lobe is not a delta (the BSDF sample drawn from the dimensions
    /// the path tracer uses there), or the vertex where the path ends before one (the
    /// deepest segment, no sample); the sky or an emitter met on the way.
    pub(super) fn aux(
        &self,
        sampler: &PixelSampler,
        index: u32,
        mut ray: Ray,
        first: Meet,
        counters: &mut Counters,
    ) -> Aux {
        let max_depth = self.settings.max_depth.max(1);
        let mut meet = first;
        let mut segment = 0u32;
        loop {
            let wo = -ray.d.normalize();
            let hit = match meet {
                Meet::Nothing => {
                    let sky: Vec3 = self
                        .scene
                        .infinite
                        .iter()
                        .map(|&i| self.scene.lights[i as usize].le_infinite(-wo))
                        .sum();
                    return Aux {
                        albedo: sky.clamp(Vec3::ZERO, Vec3::ONE),
                        normal: Vec3::ZERO,
                    };
                }
                Meet::Sphere { light, .. } => {
                    let radiance = match &self.scene.lights[light as usize] {
                        Light::Sphere { radiance, .. } => *radiance,
                        _ => Vec3::ZERO,
                    };
                    return Aux {
                        albedo: radiance.clamp(Vec3::ZERO, Vec3::ONE),
                        normal: wo,
                    };
                }
                Meet::Surface(h) => h,
            };
            if self.scene.accel.instances()[hit.instance as usize].mask & mask::DRAWN == 0 {
                return Aux::default();
            }
            let info = &self.scene.instances[hit.instance as usize];
            let material = &self.scene.materials[info.material as usize];
            // A glTF surface drawn as itself builds its BSDF and shading normal at the hit from
            // its textures and vertex colours, as the path tracer does; before the first
            // non-delta bounce the path tracer uses the unfiltered BxDF.
            let (s, shaded) = self.shaded_surface(&hit, &ray, material, false);
            let bxdf = shaded.as_ref().map_or(&material.bxdf, |sh| &sh.bxdf);
            let bsdf = Self::surface_bsdf(&s, wo, bxdf, shaded.as_ref());
            if info.glow {
                // Unlit text and unlit glTF surfaces show their colour and end the path, as an
                // emitter does.
                let albedo = self
                    .glow_radiance(&hit, &ray, material)
                    .clamp(Vec3::ZERO, Vec3::ONE);
                return Aux::at(albedo, bsdf.shading_normal(), wo);
            }
            let here = Aux::at(bxdf.albedo(), bsdf.shading_normal(), wo);
            if segment + 1 >= max_depth {
                return here;
            }
            let dim = FIRST_BOUNCE_DIM + SAMPLES_PER_BOUNCE * segment;
            let [_, _, u_lobe, u] = sampler.get_2d_x4(index, [dim, dim + 2, dim + 4, dim + 6]);
            let Some(bs) = bsdf
                .sample_f(wo, u_lobe.x, u)
                .filter(|bs| bs.specular && bs.pdf > 0.0 && bs.f != Vec3::ZERO)
            else {
                return here;
            };
            let ng_out = if s.ng_front.dot(wo) >= 0.0 {
                s.ng_front
            } else {
                -s.ng_front
            };
            segment += 1;
            ray = Ray::new(offset_origin(s.p, ng_out, bs.wi), bs.wi);
            counters.rays += 1;
            meet = self.meet(&ray, mask::CASTS, false);
        }
    }
}
