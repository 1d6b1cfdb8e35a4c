//! A thin diffuse-transmitting sheet (the `paper`, `petal` and `leaf` families): a Lambertian
//! reflection on the viewer's side and a Lambertian transmission to the other, both tinted by
//! the base, as pbrt-v4's `DiffuseTransmission` and Mitsuba 3's `difftrans` with a diffuse
//! reflection beside it. The sheet has no thickness: both sides are the same medium (index 1),
//! so nothing refracts and radiance passes unscaled.

use std::f32::consts::FRAC_1_PI;

use glam::{Vec2, Vec3};

use super::{positive, BsdfSample, Bxdf};
use crate::color::luminance;
use crate::sampling::warp;

/// A thin sheet in local shading space: reflectance `r` and transmittance `t` (per channel,
/// `r + t ≤ 1`), each spread as a cosine lobe over its hemisphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThinSheet {
    /// The hemispherical reflectance, linear RGB.
    r: Vec3,
    /// The hemispherical transmittance, linear RGB.
    t: Vec3,
    /// The probability of sampling the reflection, from the two albedos' luminances.
    p_reflect: f32,
}

/// `x` clamped to `[0, 1]`, NaN to 0.
fn unit(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

impl ThinSheet {
    /// A sheet of albedo `base` (linear RGB, each channel clamped to `[0, 1]`, NaN to 0) of
    /// which the share `transmission` (clamped likewise) passes to the other side: reflectance
    /// `(1 − transmission)·base`, transmittance `transmission·base`, so `base = 1` is lossless.
    pub fn new(base: Vec3, transmission: f32) -> ThinSheet {
        let base = Vec3::new(unit(base.x), unit(base.y), unit(base.z));
        let share = unit(transmission);
        ThinSheet::with_parts(base * (1.0 - share), base * share)
    }

    /// A sheet of reflectance `r` and transmittance `t` (per channel clamped to `[0, 1]`, NaN
    /// to 0, and `t` lowered where `r + t` would exceed 1).
    pub fn with_parts(r: Vec3, t: Vec3) -> ThinSheet {
        let r = Vec3::new(unit(r.x), unit(r.y), unit(r.z));
        let t = Vec3::new(unit(t.x), unit(t.y), unit(t.z)).min(Vec3::ONE - r);
        let (lr, lt) = (luminance(r).max(0.0), luminance(t).max(0.0));
        let p_reflect = if lr + lt > 0.0 { lr / (lr + lt) } else { 0.5 };
        ThinSheet { r, t, p_reflect }
    }

    /// The albedo: what is reflected plus what is transmitted, per channel.
    pub fn base(&self) -> Vec3 {
        self.r + self.t
    }

    /// `(f, pdf)` for a pair on the same side (`reflect`) or on opposite sides, at `|cos θi|`.
    #[inline]
    fn lobe(&self, reflect: bool, cos_i: f32) -> (Vec3, f32) {
        if reflect {
            (self.r * FRAC_1_PI, self.p_reflect * cos_i * FRAC_1_PI)
        } else {
            (
                self.t * FRAC_1_PI,
                (1.0 - self.p_reflect) * cos_i * FRAC_1_PI,
            )
        }
    }
}

impl Bxdf for ThinSheet {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        self.f_pdf(wo, wi).0
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        if wo.z == 0.0 || !wo.z.is_finite() {
            return None;
        }
        let reflect = uc < self.p_reflect;
        let mut wi = warp::cosine_hemisphere(u);
        // The drawn side: the viewer's for a reflection, the other for a transmission.
        if (wo.z < 0.0) == reflect {
            wi.z = -wi.z;
        }
        if !positive(wi.z.abs()) {
            return None;
        }
        let (f, pdf) = self.lobe(reflect, wi.z.abs());
        if !positive(pdf) || f == Vec3::ZERO {
            return None;
        }
        Some(BsdfSample {
            wi,
            f,
            pdf,
            specular: false,
            diffuse: true,
        })
    }

    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        self.f_pdf(wo, wi).1
    }

    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        let (zo, zi) = (wo.z, wi.z);
        if zo == 0.0 || zi == 0.0 || !zo.is_finite() || !zi.is_finite() {
            return (Vec3::ZERO, 0.0);
        }
        self.lobe(zo * zi > 0.0, zi.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{assert_reciprocal, chi2_test, odd_dirs, Rng, ODD_VALUES};
    use super::*;

    /// `f |cos θi| / pdf` averaged over the sheet's own draws: reflected and transmitted
    /// albedo at `wo`, separately.
    fn albedos(s: &ThinSheet, wo: Vec3, n: usize, seed: u64) -> (Vec3, Vec3) {
        let mut rng = Rng::new(seed);
        let (mut r, mut t) = (Vec3::ZERO, Vec3::ZERO);
        for _ in 0..n {
            if let Some(b) = s.sample_f(wo, rng.f32(), rng.vec2()) {
                let w = b.f * (b.wi.z.abs() / b.pdf);
                if b.wi.z * wo.z > 0.0 {
                    r += w;
                } else {
                    t += w;
                }
            }
        }
        (r / n as f32, t / n as f32)
    }

    #[test]
    fn white_furnace_reflection_plus_transmission_is_one() {
        for share in [0.0, 0.3, 0.5, 1.0] {
            let s = ThinSheet::new(Vec3::ONE, share);
            for wo in [
                Vec3::Z,
                Vec3::new(0.6, 0.0, 0.8),
                Vec3::new(0.0, 0.995, -0.0999).normalize(),
            ] {
                let (r, t) = albedos(&s, wo, 200_000, 3);
                let sum = r + t;
                // Each draw carries exactly its lobe's albedo: the sum is 1 to rounding.
                assert!(
                    (sum - Vec3::ONE).abs().max_element() < 1e-3,
                    "{sum} at {share}"
                );
                assert!(sum.max_element() <= 1.0 + 1e-4, "{sum}");
                assert!((t.x - share).abs() < 1e-2, "{t} at {share}");
            }
        }
    }

    #[test]
    fn tinted_sheet_keeps_its_colour_on_both_sides() {
        let base = Vec3::new(0.9, 0.6, 0.2);
        let s = ThinSheet::new(base, 0.4);
        let (r, t) = albedos(&s, Vec3::new(0.3, 0.2, -0.93).normalize(), 100_000, 5);
        assert!((r - 0.6 * base).abs().max_element() < 1e-2, "{r}");
        assert!((t - 0.4 * base).abs().max_element() < 1e-2, "{t}");
        assert!((s.base() - base).abs().max_element() < 1e-6);
    }

    #[test]
    fn sampling_passes_chi2_over_the_sphere() {
        let configs = [
            ThinSheet::new(Vec3::ONE, 0.3),
            ThinSheet::new(Vec3::new(0.2, 0.8, 0.3), 0.7),
            ThinSheet::new(Vec3::splat(0.5), 1.0),
        ];
        for (i, s) in configs.iter().enumerate() {
            for (j, wo) in [Vec3::new(0.3, 0.1, 0.95), Vec3::new(-0.5, 0.2, -0.84)]
                .into_iter()
                .enumerate()
            {
                let wo = wo.normalize();
                let integral = chi2_test(
                    &format!("sheet {i}/{j}"),
                    |u, uc| s.sample_f(wo, uc, u).map(|b| b.wi),
                    |wi| s.pdf(wo, wi) as f64,
                    400_000,
                    2,
                    70 + (2 * i + j) as u64,
                );
                // The pdf covers the whole sphere: it integrates to 1.
                assert!((integral - 1.0).abs() < 2e-3, "{integral}");
            }
        }
    }

    #[test]
    fn reciprocal_and_draws_are_evaluations() {
        let s = ThinSheet::new(Vec3::new(0.7, 0.5, 0.3), 0.45);
        let mut rng = Rng::new(9);
        for _ in 0..2000 {
            let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
            assert_reciprocal(&s, wo, wi);
            if let Some(b) = s.sample_f(wo, rng.f32(), rng.vec2()) {
                assert_eq!((b.f, b.pdf), s.f_pdf(wo, b.wi));
                assert!(b.diffuse && !b.specular && b.pdf > 0.0);
                assert!((b.wi.length() - 1.0).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn odd_inputs_stay_finite() {
        let mut rng = Rng::new(11);
        for &x in &ODD_VALUES {
            for &share in &ODD_VALUES {
                let s = ThinSheet::new(Vec3::splat(x), share);
                assert!(s.base().is_finite() && s.base().max_element() <= 1.0);
                for wo in odd_dirs() {
                    for wi in odd_dirs() {
                        let (f, pdf) = s.f_pdf(wo, wi);
                        assert!(f.is_finite() && pdf.is_finite() && pdf >= 0.0);
                    }
                    if let Some(b) = s.sample_f(wo, rng.f32(), rng.vec2()) {
                        assert!(b.wi.is_finite() && b.f.is_finite() && b.pdf.is_finite());
                    }
                }
            }
        }
    }
}
