//! The path tracer's side of subsurface scattering: the random walk inside a body
//! (docs/materials.md, "Subsurface scattering"). The medium (σt, albedo, phase, free flights)
//! is `crate::media::subsurface`'s; this file keys its random numbers and traces the walk's
//! rays against the world's BVH, so the walk leaves the body where a flight reaches its
//! surface (or anything else inside it).
//!
//! The walk is one segment of the path: it starts on a segment that entered the body (its ray
//! and what that ray met) and returns the segment that reached the surface from inside, with
//! the weight of its scatterings; the path loop then treats that surface as any other vertex
//! (next-event estimation through the interface, its BSDF sampled to leave or to be reflected
//! back in, which starts another walk). Out of line: the path loop's two compiled copies call
//! the same function, so they give the same bits.
//!
//! Random numbers: step `k` of the walk on path segment `segment` reads dimensions
//! `WALK_DIM + (segment · MAX_WALK + k) · NUMBERS_PER_STEP + j`, `j` < 4 (the flight's
//! number, then the new direction's pair), far from the eight per bounce and from the haze's
//! streams: pure functions of (pixel, sample index, dimension, seed).

use glam::{Vec2, Vec3};

use super::query::Meet;
use super::{Counters, PathTracer};
use crate::geometry::Ray;
use crate::media::subsurface::{MAX_WALK, NUMBERS_PER_STEP};
use crate::media::{Flight, Subsurface};
use crate::sampling::sampler::PixelSampler;
use crate::world::mask;

/// First dimension of the walks' streams (above the haze's free-flight and shadow streams).
const WALK_DIM: u32 = 3 << 29;

/// The first dimension of step `step` of the walk on path segment `segment`.
#[inline]
fn walk_dim(segment: u32, step: u32) -> u32 {
    WALK_DIM.wrapping_add(
        segment
            .wrapping_mul(MAX_WALK)
            .wrapping_add(step)
            .wrapping_mul(NUMBERS_PER_STEP),
    )
}

/// How a walk ended.
#[derive(Clone, Copy, Debug)]
pub(super) enum Walk {
    /// A flight reached what `ray` meets (`meet`: the body's surface from inside, another
    /// surface inside it, or nothing where the mesh is open) without scattering; the
    /// throughput is multiplied by `weight` (the albedo to the power of the scatterings,
    /// per channel).
    Left {
        /// The last flight's ray (unit direction).
        ray: Ray,
        /// What it meets.
        meet: Meet,
        /// The product of the single-scattering albedos of the walk's scatterings.
        weight: Vec3,
        /// How many times the walk scattered (0: the entering ray crossed unscattered).
        scatterings: u32,
    },
    /// The walk was absorbed: [`MAX_WALK`] scatterings without leaving, or a black albedo.
    Absorbed,
}

impl PathTracer<'_> {
    /// The random walk inside `body` from the segment `ray` (which entered it) and what it
    /// meets (`meet`), for path segment `segment` of sample `index`: free flights of σt, each
    /// collision scattering isotropically with weight albedo, each new direction traced
    /// against the world for the next flight's end.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn subsurface_walk(
        &self,
        body: &Subsurface,
        sampler: &PixelSampler,
        index: u32,
        segment: u32,
        ray: Ray,
        meet: Meet,
        counters: &mut Counters,
    ) -> Walk {
        let medium = &body.medium;
        let mut ray = ray;
        let mut meet = meet;
        let mut weight = Vec3::ONE;
        for step in 0..MAX_WALK {
            let dn = ray.d.length();
            let d = ray.d / dn;
            let t_end = match meet {
                Meet::Surface(h) => h.t * dn,
                Meet::Sphere { t, .. } => t * dn,
                Meet::Nothing => f32::INFINITY,
            };
            let dim = walk_dim(segment, step);
            let flight = medium.sample_flight(ray.o, d, t_end, |k| {
                sampler.get_1d(index, dim.wrapping_add(k))
            });
            let t = match flight {
                Flight::Pass => {
                    return Walk::Left {
                        ray,
                        meet,
                        weight,
                        scatterings: step,
                    }
                }
                Flight::Lost => return Walk::Absorbed,
                Flight::Scatter { t } => t,
            };
            weight *= medium.albedo;
            if weight == Vec3::ZERO {
                return Walk::Absorbed;
            }
            let u: Vec2 = sampler.get_2d(index, dim.wrapping_add(2));
            let ps = medium.phase.sample(d, 0.5, u);
            ray = Ray::new(ray.o + d * t, ps.d_out);
            counters.rays += 1;
            meet = self.meet(&ray, mask::CASTS, false);
        }
        Walk::Absorbed
    }
}
