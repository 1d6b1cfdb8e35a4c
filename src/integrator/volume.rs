//! The path tracer's side of the haze: free flights along path segments, light sampled at a
//! scattering point in the haze, and the haze's transmittance on shadow rays. The medium itself
//! (densities, phase function, tracking) is `crate::media`'s; this file only keys its random
//! numbers and joins it to the light choice and shadow rays.
//!
//! Random numbers: a segment's free flight reads the stream of dimensions
//! `FLIGHT_DIM + segment · NUMBERS_PER_SEGMENT + k`, its shadow ray's ratio tracking those of
//! `SHADOW_DIM + …` (each dimension a key of the sampler, far from the eight per bounce the path
//! loop reads), so they are pure functions of (pixel, sample index, dimension, seed) too.

use glam::{Vec2, Vec3};

use super::query::Meet;
use super::{power_heuristic, Counters, PathTracer};
use crate::geometry::Ray;
use crate::lights::{Light, LightContext};
use crate::media::{Flight, Medium, NUMBERS_PER_SEGMENT};
use crate::sampling::sampler::PixelSampler;

/// First dimension of the free-flight streams.
const FLIGHT_DIM: u32 = 1 << 28;
/// First dimension of the shadow rays' ratio-tracking streams.
const SHADOW_DIM: u32 = 1 << 29;

/// The dimension of number `k` of segment `segment`'s stream starting at `base`.
#[inline]
fn stream_dim(base: u32, segment: u32, k: u32) -> u32 {
    base.wrapping_add(segment.wrapping_mul(NUMBERS_PER_SEGMENT))
        .wrapping_add(k)
}

impl PathTracer<'_> {
    /// Free-flight sampling along `ray` up to what it meets (`meet`), for path segment
    /// `segment` of sample `index`.
    pub(super) fn haze_flight(
        &self,
        medium: &Medium,
        sampler: &PixelSampler,
        index: u32,
        segment: u32,
        ray: &Ray,
        meet: &Meet,
    ) -> Flight {
        let dn = ray.d.length();
        let t_end = match meet {
            Meet::Surface(h) => h.t * dn,
            Meet::Sphere { t, .. } => t * dn,
            Meet::Nothing => f32::INFINITY,
        };
        medium.sample_flight(ray.o, ray.d / dn, t_end, |k| {
            sampler.get_1d(index, stream_dim(FLIGHT_DIM, segment, k))
        })
    }

    /// The haze's transmittance along the shadow ray `o + t·d`, `t` in `[0, t_max]`, of
    /// segment `segment`'s vertex.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn haze_transmittance(
        &self,
        medium: &Medium,
        sampler: &PixelSampler,
        index: u32,
        segment: u32,
        o: Vec3,
        d: Vec3,
        t_max: f32,
    ) -> f32 {
        medium.transmittance(o, d, t_max, |k| {
            sampler.get_1d(index, stream_dim(SHADOW_DIM, segment, k))
        })
    }

    /// Next-event estimation at a scattering point `here.p` in the haze, for light arriving
    /// along `d_in` (unit, the direction it travelled): one light picked by `u_pick`, a point
    /// on it by `u_light`, its light times the phase function, the shadow ray's visibility and
    /// the haze's transmittance, weighted against phase sampling by the power heuristic: the
    /// radiance estimate, before the path's throughput.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn haze_light(
        &self,
        medium: &Medium,
        sampler: &PixelSampler,
        index: u32,
        segment: u32,
        here: &LightContext,
        d_in: Vec3,
        u_pick: f32,
        u_light: Vec2,
        counters: &mut Counters,
    ) -> Vec3 {
        if self.scene.lights.is_empty() {
            return Vec3::ZERO;
        }
        let p = here.p;
        let Some((li_index, pick_pdf)) =
            self.light_choice
                .sample(&self.scene.light_tree, here, u_pick)
        else {
            return Vec3::ZERO;
        };
        let light = &self.scene.lights[li_index];
        let Some(ls) = light
            .sample_li(p, u_light)
            .filter(|ls| !self.light_point_cut(li_index, p + ls.wi * ls.dist))
        else {
            return Vec3::ZERO;
        };
        if !(ls.pdf > 0.0 && pick_pdf > 0.0) || ls.li == Vec3::ZERO {
            return Vec3::ZERO;
        }
        let f = medium.phase.p(d_in, ls.wi);
        if f.is_nan() || f <= 0.0 {
            return Vec3::ZERO;
        }
        let casts = match light {
            Light::Point { casts, .. } | Light::Sphere { casts, .. } => *casts,
            _ => true,
        };
        let t_max = if ls.dist.is_finite() {
            (ls.dist * (1.0 - 1e-4)).max(0.0)
        } else {
            f32::INFINITY
        };
        let visible = if casts {
            counters.rays += 1;
            self.shadow(&Ray {
                o: p,
                d: ls.wi,
                t_max,
            })
        } else {
            Some((Vec3::ONE, false))
        };
        let Some((tr, crossed)) = visible else {
            return Vec3::ZERO;
        };
        let tr = tr * self.haze_transmittance(medium, sampler, index, segment, p, ls.wi, t_max);
        let light_pdf = pick_pdf * ls.pdf;
        // As at a surface: a delta light, one that casts no shadow or one seen through glass is
        // found by this strategy alone.
        let w = if ls.delta || !casts || crossed {
            1.0
        } else {
            power_heuristic(light_pdf, f)
        };
        tr * ls.li * (f * w / light_pdf)
    }
}
