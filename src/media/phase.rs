//! The haze's phase function: a Henyey–Greenstein lobe of asymmetry `g` (`[haze] phase`) mixed
//! with its mirror lobe `−g` by `[haze] back`.
//!
//! Convention: directions are those of propagation. `d_in` is the direction the light travels
//! before scattering (the ray's direction), `d_out` the one after, so `cos θ = d_in · d_out`
//! and `g > 0` scatters forward (pbrt-v4 writes the same function with `wo = −d_in`). The
//! phase function is normalised over the sphere (1/sr) and is its own sampling density.

use std::f32::consts::PI;

use glam::{Vec2, Vec3};

use crate::geometry::Frame;

/// The Henyey–Greenstein density of `cos θ` for asymmetry `g` in (−1, 1), per steradian.
#[inline]
pub fn henyey_greenstein(cos_theta: f32, g: f32) -> f32 {
    let denom = 1.0 + g * g - 2.0 * g * cos_theta;
    // denom ≥ (1 − |g|)² > 0 for |g| < 1.
    (1.0 - g * g) / (4.0 * PI * denom * denom.max(1e-12).sqrt())
}

/// `cos θ` drawn from the Henyey–Greenstein density of asymmetry `g`, `u` in [0, 1).
#[inline]
pub fn sample_hg_cos(g: f32, u: f32) -> f32 {
    if g.abs() < 1e-3 {
        return (1.0 - 2.0 * u).clamp(-1.0, 1.0);
    }
    // The inverse of the cumulative distribution (pbrt-v4 SampleHenyeyGreenstein, for the
    // propagation convention).
    let s = (1.0 - g * g) / (1.0 - g + 2.0 * g * u);
    ((1.0 + g * g - s * s) / (2.0 * g)).clamp(-1.0, 1.0)
}

/// A two-lobe Henyey–Greenstein phase function: weight `1 − back_weight` on `g` and
/// `back_weight` on `−g`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phase {
    /// Asymmetry of the forward lobe, in [−0.9, 0.9] (`[haze] phase`).
    pub g: f32,
    /// The mirror lobe's share of the scattering, in [0, 1): `back / (1 + back)` for
    /// `[haze] back`.
    pub back_weight: f32,
}

/// A direction sampled from a [`Phase`].
#[derive(Clone, Copy, Debug)]
pub struct PhaseSample {
    /// Unit direction of propagation after scattering.
    pub d_out: Vec3,
    /// The phase function's value there, 1/sr (also the density the direction was drawn
    /// with, so a sample's weight `p / pdf` is 1).
    pub p: f32,
}

impl Phase {
    /// The phase function of `[haze]` `phase = g` and `back = back` (any `back ≥ 0`; the
    /// mirror lobe's weight is `back / (1 + back)`, so `back = 1` is an even mix).
    pub fn new(g: f32, back: f32) -> Phase {
        let g = if g.is_finite() {
            g.clamp(-0.9, 0.9)
        } else {
            0.0
        };
        let back = if back.is_finite() { back.max(0.0) } else { 0.0 };
        Phase {
            g,
            back_weight: back / (1.0 + back),
        }
    }

    /// The value for light travelling along `d_in` that leaves along `d_out` (both unit), 1/sr.
    #[inline]
    pub fn p(&self, d_in: Vec3, d_out: Vec3) -> f32 {
        let c = d_in.dot(d_out).clamp(-1.0, 1.0);
        let f = henyey_greenstein(c, self.g);
        if self.back_weight > 0.0 {
            (1.0 - self.back_weight) * f + self.back_weight * henyey_greenstein(c, -self.g)
        } else {
            f
        }
    }

    /// Samples a direction after scattering light that travels along `d_in` (unit): `uc` picks
    /// the lobe, `u` the direction within it; both in [0, 1).
    pub fn sample(&self, d_in: Vec3, uc: f32, u: Vec2) -> PhaseSample {
        let g = if uc < self.back_weight {
            -self.g
        } else {
            self.g
        };
        let cos_t = sample_hg_cos(g, u.x);
        let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
        let (sin_phi, cos_phi) = crate::sampling::trig::sin_cos_turn(u.y);
        let local = Vec3::new(sin_t * cos_phi, sin_t * sin_phi, cos_t);
        let d_out = Frame::from_normal(d_in).to_world(local).normalize_or(d_in);
        PhaseSample {
            d_out,
            p: self.p(d_in, d_out),
        }
    }

    /// The mean cosine of the scattering angle: `(1 − 2·back_weight)·g`.
    pub fn mean_cosine(&self) -> f32 {
        (1.0 - 2.0 * self.back_weight) * self.g
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::testutil::{chi2_test, Rng};

    #[test]
    fn henyey_greenstein_integrates_to_one_with_mean_cosine_g() {
        for g in [-0.9f32, -0.3, 0.0, 0.3, 0.9] {
            // Midpoint rule in cos θ: ∫ p dω = 2π ∫ p d(cos θ).
            let n = 200_000;
            let (mut total, mut mean) = (0.0f64, 0.0f64);
            for i in 0..n {
                let c = -1.0 + (i as f64 + 0.5) * 2.0 / n as f64;
                let p = henyey_greenstein(c as f32, g) as f64 * 2.0 * std::f64::consts::PI;
                total += p * 2.0 / n as f64;
                mean += p * c * 2.0 / n as f64;
            }
            assert!((total - 1.0).abs() < 1e-3, "g {g}: ∫ = {total}");
            assert!((mean - g as f64).abs() < 2e-3, "g {g}: mean cos {mean}");
        }
    }

    #[test]
    fn sampling_matches_the_phase_function_chi_square() {
        let cases = [
            (0.3f32, 0.0f32),
            (0.9, 0.0),
            (-0.6, 0.0),
            (0.3, 0.5),
            (0.0, 0.0),
        ];
        for (g, back) in cases {
            let phase = Phase::new(g, back);
            // A tilted incoming direction, so the frame is exercised.
            let d_in = Vec3::new(0.3, -0.4, 0.866).normalize();
            let integral = chi2_test(
                &format!("hg g={g} back={back}"),
                |u, uc| {
                    let s = phase.sample(d_in, uc, u);
                    assert!((s.p - phase.p(d_in, s.d_out)).abs() <= 1e-4 * s.p.max(1.0));
                    Some(s.d_out)
                },
                |w| phase.p(d_in, w) as f64,
                200_000,
                cases.len(),
                7,
            );
            assert!((integral - 1.0).abs() < 2e-3, "g {g}: ∫ = {integral}");
        }
    }

    #[test]
    fn back_lobe_sets_the_mean_cosine() {
        let phase = Phase::new(0.6, 0.5);
        let d_in = Vec3::Z;
        let mut rng = Rng::new(3);
        let n = 400_000;
        let mut m = 0.0f64;
        for _ in 0..n {
            let s = phase.sample(d_in, rng.f32(), rng.vec2());
            m += s.d_out.z as f64;
        }
        let m = m / n as f64;
        let expected = phase.mean_cosine() as f64;
        assert!((expected - 0.2).abs() < 1e-6);
        assert!((m - expected).abs() < 5e-3, "{m} vs {expected}");
    }
}
