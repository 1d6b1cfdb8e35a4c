//! Participating media: the `[haze]` box, what scatters in it and how far light goes through it,
//! and the medium inside a subsurface-scattering body ([`subsurface`]).
//!
//! A [`Medium`] is an axis-aligned box of grey extinction σt(p) (1/scene unit, see
//! [`density`]) whose scattering is tinted by a single-scattering albedo (`[haze] gold`) and
//! shaped by a two-lobe Henyey–Greenstein [`Phase`]. Where it is uniform, free paths are drawn
//! and transmittance computed in closed form (Beer–Lambert); elsewhere free paths are drawn by
//! delta tracking and shadow rays weighted by ratio tracking against the constant majorant
//! [`Density::majorant`] (Woodcock et al. 1965; Novák et al. 2014; pbrt-v4's `SampleT_maj`),
//! both unbiased for any density under the majorant.
//!
//! Nothing here draws random numbers of its own: every function takes `u(k)`, the `k`-th
//! number of the segment's stream, which the integrator keys by (pixel, sample index,
//! dimension, seed). The density is a pure function of the point and `[haze] seed`.
//!
//! Distances are along unit directions, in scene units.

pub mod density;
pub mod phase;
pub mod subsurface;

use glam::Vec3;

pub use density::Density;
pub use phase::{Phase, PhaseSample};
pub use subsurface::Subsurface;

/// Most tracking steps along one segment; a segment that needs more (an optical depth of the
/// majorant beyond ~32 000) ends its path (free flight) or is taken as opaque (shadow ray).
pub const MAX_STEPS: u32 = 1 << 15;

/// The random numbers one segment's tracking may ask for: two per step.
pub const NUMBERS_PER_SEGMENT: u32 = 2 * MAX_STEPS;

/// A box of haze.
#[derive(Clone, Debug, PartialEq)]
pub struct Medium {
    /// Lower corner, scene units.
    pub lo: Vec3,
    /// Upper corner, scene units; above `lo` on every axis.
    pub hi: Vec3,
    /// The extinction coefficient σt over the box, 1/scene unit.
    pub density: Density,
    /// The phase function.
    pub phase: Phase,
    /// Single-scattering albedo σs/σt per linear RGB channel, in [0, 1]: `[haze] gold`.
    pub albedo: Vec3,
    /// Radiance of a uniform ambient light field the haze scatters, W·m⁻²·sr⁻¹ per channel
    /// (`[haze] ambient`): each unit length adds `σs · ambient` along a ray.
    pub ambient: Vec3,
}

/// What free-flight sampling found along a segment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Flight {
    /// No real collision before the segment's end: the ray goes on unchanged (σt is grey, so
    /// the estimator's weight is 1).
    Pass,
    /// A real collision at distance `t`: the light scatters (weight `albedo`) there.
    Scatter {
        /// Distance from the origin, scene units.
        t: f32,
    },
    /// Tracking gave up after [`MAX_STEPS`]: the path ends.
    Lost,
}

impl Medium {
    /// Whether σt is above 0 somewhere in the box.
    pub fn is_clear(&self) -> bool {
        let m = self.density.majorant();
        m.is_nan() || m <= 0.0
    }

    /// The part `[t0, t1]` of the segment `o + t·d`, `t` in `[0, t_max]` (`d` unit), inside
    /// the box; `None` where it misses.
    #[inline]
    pub fn clip(&self, o: Vec3, d: Vec3, t_max: f32) -> Option<(f32, f32)> {
        let inv = d.recip();
        let a = (self.lo - o) * inv;
        let b = (self.hi - o) * inv;
        // A zero component gives ±inf, or NaN where o lies on the slab's plane: f32::max and
        // min drop the NaN, so that axis does not cut the interval.
        let near = a.min(b);
        let far = a.max(b);
        let t0 = near.x.max(near.y).max(near.z).max(0.0);
        let t1 = far.x.min(far.y).min(far.z).min(t_max);
        (t0 < t1 && t1.is_finite() && t0.is_finite()).then_some((t0, t1))
    }

    /// Samples where light travelling `o + t·d` (`d` unit, `t` in `[0, t_max]`) first
    /// scatters: with probability `1 − T` a collision at a distance drawn with density
    /// `σt(t)·T(t)` (T the transmittance from `o`), else [`Flight::Pass`]. `u(k)` gives the
    /// segment's `k`-th number in [0, 1).
    pub fn sample_flight(
        &self,
        o: Vec3,
        d: Vec3,
        t_max: f32,
        mut u: impl FnMut(u32) -> f32,
    ) -> Flight {
        let Some((t0, t1)) = self.clip(o, d, t_max) else {
            return Flight::Pass;
        };
        let maj = self.density.majorant();
        if maj.is_nan() || maj <= 0.0 {
            return Flight::Pass;
        }
        if self.density.is_uniform() {
            let t = t0 - (1.0 - u(0)).ln() / maj;
            return if t < t1 {
                Flight::Scatter { t }
            } else {
                Flight::Pass
            };
        }
        // Delta tracking: tentative collisions at the majorant's rate, each real with
        // probability σt/majorant.
        let mut t = t0;
        for step in 0..MAX_STEPS {
            t -= (1.0 - u(2 * step)).ln() / maj;
            if t >= t1 {
                return Flight::Pass;
            }
            if u(2 * step + 1) * maj < self.density.sigma_t(o + d * t) {
                return Flight::Scatter { t };
            }
        }
        Flight::Lost
    }

    /// The transmittance of the segment `o + t·d`, `t` in `[0, t_max]` (`d` unit): exact where
    /// the haze is uniform (Beer–Lambert), else a ratio-tracking estimate (unbiased, in
    /// [0, 1]). `u(k)` gives the segment's `k`-th number in [0, 1).
    pub fn transmittance(
        &self,
        o: Vec3,
        d: Vec3,
        t_max: f32,
        mut u: impl FnMut(u32) -> f32,
    ) -> f32 {
        let Some((t0, t1)) = self.clip(o, d, t_max) else {
            return 1.0;
        };
        let maj = self.density.majorant();
        if maj.is_nan() || maj <= 0.0 {
            return 1.0;
        }
        if self.density.is_uniform() {
            return (-maj * (t1 - t0)).exp();
        }
        let mut tr = 1.0f32;
        let mut t = t0;
        for step in 0..MAX_STEPS {
            t -= (1.0 - u(step)).ln() / maj;
            if t >= t1 {
                return tr;
            }
            tr *= 1.0 - self.density.sigma_t(o + d * t) / maj;
            if tr <= 0.0 {
                return 0.0;
            }
        }
        0.0
    }

    /// The exact transmittance of a segment by numerical quadrature of σt (for tests and
    /// checks; the renderer uses [`Self::transmittance`]).
    pub fn transmittance_quadrature(&self, o: Vec3, d: Vec3, t_max: f32, steps: u32) -> f64 {
        let Some((t0, t1)) = self.clip(o, d, t_max) else {
            return 1.0;
        };
        let h = (t1 - t0) as f64 / steps.max(1) as f64;
        let tau: f64 = (0..steps.max(1))
            .map(|i| {
                self.density
                    .sigma_t(o + d * (t0 + ((i as f64 + 0.5) * h) as f32)) as f64
                    * h
            })
            .sum();
        (-tau).exp()
    }
}

#[cfg(test)]
mod tests;
