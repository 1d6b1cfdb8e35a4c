//! Energy-preserving Oren–Nayar (EON; Portsmouth, Kutz and Hill, "EON: A practical
//! energy-preserving rough diffuse BRDF", JCGT 2025, the rough diffuse of OpenPBR): the
//! `plaster` and `stone` families' rough diffuse.
//!
//! Fujii's Oren–Nayar (FON) single scattering, whose directional albedo `E_F(μ)` is known in
//! closed form, plus a multiple-scattering lobe `ρ_ms (1 − E_F(μo))(1 − E_F(μi)) / (π (1 −
//! Ē_F))` that returns what single scattering misses: a white surface reflects exactly 1 at
//! every angle, and a coloured one gains the saturation of interreflection (`ρ_ms = ρ² Ē_F /
//! (1 − ρ (1 − Ē_F))`). Sampled by the cosine (the paper's clipped LTC is a variance
//! refinement, not needed for correctness): `pdf = cos θi / π`.

use std::f32::consts::{FRAC_1_PI, PI};

use glam::{Vec2, Vec3};

use super::{positive, BsdfSample, Bxdf};
use crate::sampling::warp;

/// FON's `A = 1 / (1 + c1 σ)` constant: `c1 = 1/2 − 2/(3π)`.
const C1: f32 = 0.5 - 2.0 / (3.0 * PI);
/// The average albedo's constant: `Ē_F = A (1 + c2 σ)`, `c2 = 2/3 − 28/(15π)`.
const C2: f32 = 2.0 / 3.0 - 28.0 / (15.0 * PI);

/// A rough diffuse BRDF in local shading space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Eon {
    /// The albedo `ρ`, per channel in `[0, 1]`.
    rho: Vec3,
    /// The roughness `σ` in `[0, 1]` (0 is Lambertian).
    sigma: f32,
    /// FON's `A`.
    a: f32,
    /// The single-scattering average albedo `Ē_F`.
    e_avg: f32,
    /// `ρ_ms / (π (1 − Ē_F))`: the multiple-scattering lobe over `(1 − E_F(μo))(1 − E_F(μi))`.
    ms_scale: Vec3,
}

/// `x` clamped to `[0, 1]`, NaN to 0.
fn unit(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

impl Eon {
    /// The roughness `σ` in `[0, 1]` the lobe is drawn with (the format's `roughness`).
    pub fn roughness(&self) -> f32 {
        self.sigma
    }

    /// EON of albedo `rho` (linear RGB, each channel clamped to `[0, 1]`, NaN to 0) and
    /// roughness `sigma` (the format's `roughness`, clamped likewise).
    pub fn new(rho: Vec3, sigma: f32) -> Eon {
        let rho = Vec3::new(unit(rho.x), unit(rho.y), unit(rho.z));
        let sigma = unit(sigma);
        let a = 1.0 / (1.0 + C1 * sigma);
        let e_avg = a * (1.0 + C2 * sigma);
        let rho_ms = rho * rho * e_avg / (Vec3::ONE - rho * (1.0 - e_avg));
        let one_minus = 1.0 - e_avg;
        let ms_scale = if one_minus > 1e-7 {
            rho_ms * (FRAC_1_PI / one_minus)
        } else {
            Vec3::ZERO
        };
        Eon {
            rho,
            sigma,
            a,
            e_avg,
            ms_scale,
        }
    }

    /// The albedo `ρ`.
    pub fn base(&self) -> Vec3 {
        self.rho
    }

    /// FON's directional albedo at `μ` in `(0, 1]`, in closed form (the paper's eq. for
    /// `E_F`), written so that no term cancels near the horizon or the pole.
    pub fn fon_albedo(&self, mu: f32) -> f32 {
        let mu = mu.clamp(1e-7, 1.0);
        let s2 = (1.0 - mu * mu).max(0.0);
        let si = s2.sqrt();
        // 1 − sin³ = (1 − sin)(1 + sin + sin²), 1 − sin = μ²/(1 + sin).
        let one_minus_s3 = mu * mu / (1.0 + si) * (1.0 + si + s2);
        let g = si * (mu.acos() - si * mu) + (2.0 / 3.0) * (si / mu * one_minus_s3 - si);
        (self.a + self.sigma * self.a * FRAC_1_PI * g).clamp(0.0, 1.0)
    }

    /// The average `∫ E_F(μ) 2μ dμ`.
    pub fn fon_average(&self) -> f32 {
        self.e_avg
    }

    /// `f` for a pair in the upper hemisphere (`mu_o`, `mu_i` > 0).
    #[inline]
    fn eval(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        let (mu_o, mu_i) = (wo.z, wi.z);
        let s = wo.dot(wi) - mu_o * mu_i;
        let s_over_t = if s > 0.0 { s / mu_o.max(mu_i) } else { s };
        let single = self.rho * (FRAC_1_PI * self.a * (1.0 + self.sigma * s_over_t).max(0.0));
        let multi = self.ms_scale
            * ((1.0 - self.fon_albedo(mu_o)).max(0.0) * (1.0 - self.fon_albedo(mu_i)).max(0.0));
        single + multi
    }
}

impl Bxdf for Eon {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        if !positive(wo.z) || !positive(wi.z) || !wo.is_finite() || !wi.is_finite() {
            return Vec3::ZERO;
        }
        self.eval(wo, wi)
    }

    fn sample_f(&self, wo: Vec3, _uc: f32, u: Vec2) -> Option<BsdfSample> {
        if !positive(wo.z) || !wo.is_finite() {
            return None;
        }
        let wi = warp::cosine_hemisphere(u);
        if !positive(wi.z) {
            return None;
        }
        let f = self.eval(wo, wi);
        let pdf = wi.z * FRAC_1_PI;
        if f == Vec3::ZERO || !f.is_finite() || !positive(pdf) {
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
        if !positive(wo.z) || !positive(wi.z) || !wo.is_finite() || !wi.is_finite() {
            return 0.0;
        }
        wi.z * FRAC_1_PI
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{
        albedo, assert_reciprocal, chi2_bxdf, dir, odd_dirs, Rng, ODD_VALUES,
    };
    use super::*;

    #[test]
    fn fon_albedo_matches_quadrature_and_its_average() {
        for sigma in [0.0, 0.3, 0.7, 1.0] {
            let e = Eon::new(Vec3::ONE, sigma);
            // E_F(μ) against a quadrature of FON's single scattering alone.
            for mu in [1.0, 0.7, 0.3, 0.05] {
                let wo = dir(mu, 0.0);
                let (n, m) = (400usize, 200usize);
                let mut sum = 0.0f64;
                for i in 0..n {
                    for j in 0..m {
                        let ct = (i as f32 + 0.5) / n as f32;
                        let phi = (j as f32 + 0.5) / m as f32 * 2.0 * PI;
                        let wi = dir(ct, phi);
                        let s = wo.dot(wi) - wo.z * wi.z;
                        let sot = if s > 0.0 { s / wo.z.max(wi.z) } else { s };
                        let f = FRAC_1_PI * e.a * (1.0 + sigma * sot);
                        // dω = d(cosθ) dφ; weight cos θ.
                        sum += (f * ct) as f64 * (1.0 / n as f64) * (2.0 * PI as f64 / m as f64);
                    }
                }
                let got = e.fon_albedo(mu) as f64;
                assert!((got - sum).abs() < 2e-3, "σ {sigma} μ {mu}: {got} vs {sum}");
            }
            // Ē_F = ∫ E_F 2μ dμ.
            let n = 2000;
            let avg: f64 = (0..n)
                .map(|i| {
                    let mu = (i as f32 + 0.5) / n as f32;
                    e.fon_albedo(mu) as f64 * 2.0 * mu as f64 / n as f64
                })
                .sum();
            assert!((avg - e.fon_average() as f64).abs() < 1e-3, "{avg}");
        }
    }

    #[test]
    fn white_furnace_is_one_at_every_angle() {
        for sigma in [0.0, 0.5, 1.0] {
            let e = Eon::new(Vec3::ONE, sigma);
            for mu in [1.0, 0.6, 0.2, 0.03] {
                let (a, se) = albedo(&e, dir(mu, 0.3), 200_000, 7);
                let m = a.max_element();
                eprintln!("EON σ {sigma} μ {mu}: albedo {m:.5} ± {se:.5}");
                assert!((m - 1.0).abs() < 0.01, "σ {sigma} μ {mu}: {m}");
                assert!(m <= 1.0 + 3.0 * se + 1e-4, "σ {sigma} μ {mu}: {m} ± {se}");
            }
        }
    }

    #[test]
    fn coloured_albedo_stays_below_its_base() {
        let rho = Vec3::new(0.8, 0.4, 0.1);
        let e = Eon::new(rho, 1.0);
        for mu in [1.0, 0.5, 0.1] {
            let (a, _) = albedo(&e, dir(mu, 0.0), 100_000, 9);
            assert!(a.cmple(rho + Vec3::splat(0.01)).all(), "{a} at {mu}");
        }
    }

    #[test]
    fn sampling_passes_chi2_and_is_reciprocal() {
        let e = Eon::new(Vec3::new(0.7, 0.6, 0.5), 0.8);
        for (i, mu) in [0.9f32, 0.3].into_iter().enumerate() {
            chi2_bxdf(
                &format!("eon {i}"),
                &e,
                dir(mu, 0.4),
                300_000,
                2,
                90 + i as u64,
            );
        }
        let mut rng = Rng::new(12);
        for _ in 0..2000 {
            let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
            assert_reciprocal(&e, wo, wi);
            if let Some(s) = e.sample_f(wo, 0.5, rng.vec2()) {
                assert_eq!((s.f, s.pdf), (e.f(wo, s.wi), e.pdf(wo, s.wi)));
                assert_eq!((s.f, s.pdf), e.f_pdf(wo, s.wi));
            }
        }
    }

    #[test]
    fn zero_roughness_is_lambertian() {
        let e = Eon::new(Vec3::splat(0.6), 0.0);
        let mut rng = Rng::new(13);
        for _ in 0..100 {
            let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
            let f = e.f(wo, wi);
            assert!(
                (f - Vec3::splat(0.6 * FRAC_1_PI)).abs().max_element() < 1e-6,
                "{f}"
            );
        }
    }

    #[test]
    fn odd_inputs_stay_finite() {
        let mut rng = Rng::new(14);
        for &x in &ODD_VALUES {
            for &s in &ODD_VALUES {
                let e = Eon::new(Vec3::splat(x), s);
                for wo in odd_dirs() {
                    for wi in odd_dirs() {
                        assert!(e.f(wo, wi).is_finite() && e.pdf(wo, wi).is_finite());
                    }
                    if let Some(b) = e.sample_f(wo, rng.f32(), rng.vec2()) {
                        assert!(b.f.is_finite() && b.pdf.is_finite() && b.wi.is_finite());
                    }
                }
            }
        }
    }
}
