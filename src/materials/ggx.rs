//! The isotropic GGX (Trowbridge–Reitz) microfacet distribution in local shading space
//! (+Z is the shading normal), with Smith height-correlated masking–shadowing and sampling of
//! the visible normals by the spherical-cap method (Dupuy & Benyoub 2023).
//!
//! The formulas are written around `s(w) = √(w_z² + α²(w_x² + w_y²))`, which for a unit `w`
//! above the surface equals `w_z·(1 + 2Λ(w))`. That form removes every division by `w_z`, so
//! grazing directions give 0 rather than `0·∞`.

use glam::{Vec2, Vec3};

use super::positive;
use std::f32::consts::PI;

/// The smallest `α` used: `roughness = 0` renders as `α = 10⁻⁴`, a lobe about 0.006° wide,
/// sharper than a pixel at any camera, while `D ≤ 1/(π α²) ≈ 3.2·10⁷ sr⁻¹` keeps pdfs and
/// their squares (power heuristic) finite in f32 even at grazing angles.
pub const ALPHA_MIN: f32 = 1e-4;

/// An isotropic GGX distribution of microfacet normals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ggx {
    /// Width `α`, at least [`ALPHA_MIN`].
    alpha: f32,
}

impl Ggx {
    /// A distribution of width `alpha` (`α = roughness²`), clamped to `[ALPHA_MIN, 1]`; NaN
    /// gives [`ALPHA_MIN`].
    pub fn new(alpha: f32) -> Ggx {
        let alpha = if alpha.is_nan() {
            ALPHA_MIN
        } else {
            alpha.clamp(ALPHA_MIN, 1.0)
        };
        Ggx { alpha }
    }

    /// Width `α`.
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// The microfacet normal density `D(m)`, per steradian of `m`, normalised so that
    /// `∫ D(m) cos θm dω = 1`. Zero for `m` below the surface.
    pub fn d(&self, m: Vec3) -> f32 {
        if !positive(m.z) {
            return 0.0;
        }
        let a2 = self.alpha * self.alpha;
        // 1 − cos²θ + α² cos²θ, written with x² + y² so it stays exact near the pole where
        // α² ≈ 10⁻⁸ would be lost against 1 − z².
        let t = m.x * m.x + m.y * m.y + a2 * m.z * m.z;
        a2 / (PI * t * t)
    }

    /// `s(w) = √(w_z² + α²(w_x² + w_y²)) = w_z (1 + 2Λ(w))` for a unit `w` above the surface.
    pub fn s(&self, w: Vec3) -> f32 {
        let a2 = self.alpha * self.alpha;
        (w.z * w.z + a2 * (w.x * w.x + w.y * w.y)).sqrt()
    }

    /// Smith's masking `G1(w) = 1 / (1 + Λ(w)) = 2 w_z / (w_z + s(w))`; 0 at and below the
    /// horizon.
    pub fn g1(&self, w: Vec3) -> f32 {
        if !positive(w.z) {
            return 0.0;
        }
        2.0 * w.z / (w.z + self.s(w))
    }

    /// The height-correlated Smith term divided by the cosines,
    /// `G2(wo, wi) / (4 cos θo cos θi) = 1 / (2 (cos θi s(wo) + cos θo s(wi)))`, for `wo` and
    /// `wi` both above the surface; 0 otherwise. Multiplying by `D·F` gives the specular BRDF.
    pub fn g2_over_cosines(&self, wo: Vec3, wi: Vec3) -> f32 {
        if !(positive(wo.z) && positive(wi.z)) {
            return 0.0;
        }
        // Both terms ≥ 0 and at least one > 0 when both z > 0, so the quotient is finite
        // (it is bounded by 1/(4 α² …) only through the clamp on α).
        0.5 / (wi.z * self.s(wo) + wo.z * self.s(wi))
    }

    /// Samples a microfacet normal from the visible normals `D_wo(m) = G1(wo) max(0, wo·m)
    /// D(m) / cos θo` seen from `wo` (above the surface), by the spherical-cap method of Dupuy
    /// & Benyoub, "Sampling Visible GGX Normals with Spherical Caps" (2023).
    pub fn sample_visible_normal(&self, wo: Vec3, u: Vec2) -> Vec3 {
        let a = self.alpha;
        // Stretch to the hemisphere configuration (α = 1).
        let wo_std = Vec3::new(wo.x * a, wo.y * a, wo.z).normalize_or(Vec3::Z);
        // Uniform point on the spherical cap z ∈ [−wo_std.z, 1]; adding wo_std gives a
        // visible normal of the hemisphere configuration (unnormalised).
        let (sin_phi, cos_phi) = crate::sampling::trig::sin_cos_turn(u.x);
        let z = (1.0 - u.y) * (1.0 + wo_std.z) - wo_std.z;
        let sin_theta = (1.0 - z * z).max(0.0).sqrt();
        let c = Vec3::new(sin_theta * cos_phi, sin_theta * sin_phi, z);
        let h = c + wo_std;
        // Unstretch (normals go by the inverse transpose, which is a multiply by α here).
        Vec3::new(h.x * a, h.y * a, h.z.max(0.0)).normalize_or(Vec3::Z)
    }

    /// The midpoint rule of an integral over the visible normals seen from `wo`: calls
    /// `each(m)` for `n_phi` azimuths over the fraction `turn` of a full turn times `n_v` cap
    /// heights and returns the weighted mean. The cap parameter is `u_y = 1 − v⁴` with `v`
    /// uniform: for small `α` everything but the normals near the pole is squeezed into
    /// `u_y > 1 − O(α²)`, and the substitution puts nodes there. Half a turn suffices when the
    /// integrand is mirror-symmetric about the plane of `wo` (`wo` in the xz plane).
    pub(crate) fn visible_normal_mean(
        &self,
        wo: Vec3,
        n_phi: usize,
        n_v: usize,
        turn: f32,
        mut each: impl FnMut(Vec3) -> f64,
    ) -> f64 {
        let mut sum = 0.0f64;
        for b in 0..n_v {
            let v = (b as f64 + 0.5) / n_v as f64;
            let uy = 1.0 - v * v * v * v;
            let jacobian = 4.0 * v * v * v;
            let mut ring = 0.0f64;
            for a in 0..n_phi {
                let u = Vec2::new(turn * (a as f32 + 0.5) / n_phi as f32, uy as f32);
                ring += each(self.sample_visible_normal(wo, u));
            }
            sum += ring * jacobian;
        }
        sum / (n_phi * n_v) as f64
    }

    /// Density per steradian of `wi = reflect(wo, m)` when `m` comes from
    /// [`Ggx::sample_visible_normal`]: `D_wo(m) / (4 wo·m) = G1(wo) D(m) / (4 cos θo)`,
    /// written as `D(m) / (2 (cos θo + s(wo)))`. `m` is the half vector of `wo` and `wi`.
    pub fn reflection_pdf(&self, wo: Vec3, m: Vec3) -> f32 {
        if !positive(wo.z) {
            return 0.0;
        }
        self.d(m) / (2.0 * (wo.z + self.s(wo)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::testutil::{chi2_test, spherical_dir, Rng};

    /// ∫ over the upper hemisphere of `g(w)` by the midpoint rule in (cos θ, φ), fine near the
    /// pole where narrow lobes live.
    fn hemisphere_integral(g: impl Fn(Vec3) -> f64) -> f64 {
        // Integrate in θ with the sin θ Jacobian so a lobe at the pole is resolved.
        let (nt, np) = (2000, 256);
        let mut sum = 0.0;
        for i in 0..nt {
            let theta = (i as f64 + 0.5) / nt as f64 * std::f64::consts::FRAC_PI_2;
            let mut ring = 0.0;
            for j in 0..np {
                let phi = (j as f64 + 0.5) / np as f64 * std::f64::consts::TAU;
                ring += g(spherical_dir(theta.cos(), phi));
            }
            sum += ring * theta.sin();
        }
        sum * (std::f64::consts::FRAC_PI_2 / nt as f64) * (std::f64::consts::TAU / np as f64)
    }

    #[test]
    fn projected_microfacet_area_is_one() {
        for alpha in [0.05f32, 0.2, 0.5, 1.0] {
            let g = Ggx::new(alpha);
            let total = hemisphere_integral(|m| (g.d(m) * m.z) as f64);
            assert!((total - 1.0).abs() < 2e-3, "α {alpha}: {total}");
        }
    }

    #[test]
    fn smith_masking_balances_projected_area() {
        // The defining identity of G1: ∫ G1(wo) max(0, wo·m) D(m) dm = cos θo.
        for alpha in [0.1f32, 0.4, 1.0] {
            let g = Ggx::new(alpha);
            for cos_o in [0.05f32, 0.3, 0.7, 1.0] {
                let wo = Vec3::new((1.0 - cos_o * cos_o).sqrt(), 0.0, cos_o);
                let proj = hemisphere_integral(|m| (wo.dot(m).max(0.0) * g.d(m)) as f64);
                let lhs = g.g1(wo) as f64 * proj;
                assert!(
                    (lhs - cos_o as f64).abs() < 2e-3 * cos_o as f64 + 1e-4,
                    "α {alpha} cos {cos_o}: {lhs}"
                );
            }
        }
    }

    #[test]
    fn height_correlated_g2_matches_lambda_form() {
        // Against the textbook Λ(w) = (√(1 + α² tan²θ) − 1)/2 in f64.
        let lambda = |w: Vec3, a: f64| {
            let z2 = (w.z as f64).powi(2);
            let tan2 = (1.0 - z2) / z2;
            ((1.0 + a * a * tan2).sqrt() - 1.0) / 2.0
        };
        let mut rng = Rng::new(7);
        for _ in 0..1000 {
            let a = 0.01 + rng.f32() * 0.99;
            let g = Ggx::new(a);
            let wo = rng.upper_dir();
            let wi = rng.upper_dir();
            let reference = 1.0
                / (1.0 + lambda(wo, a as f64) + lambda(wi, a as f64))
                / (4.0 * wo.z as f64 * wi.z as f64);
            let ours = g.g2_over_cosines(wo, wi) as f64;
            assert!(
                (ours - reference).abs() <= 1e-4 * reference,
                "{ours} vs {reference}"
            );
        }
    }

    #[test]
    fn visible_normal_sampling_passes_chi2() {
        // The reflected direction's histogram against reflection_pdf: checks the sampler and
        // the pdf together.
        let mut configs = Vec::new();
        for alpha in [0.1f32, 0.5, 1.0] {
            for cos_o in [0.05f32, 0.5, 1.0] {
                configs.push((alpha, cos_o));
            }
        }
        let n_tests = configs.len();
        for (alpha, cos_o) in configs {
            let g = Ggx::new(alpha);
            let wo = Vec3::new((1.0 - cos_o * cos_o).sqrt(), 0.0, cos_o);
            let sample = |u: Vec2, _uc: f32| {
                let m = g.sample_visible_normal(wo, u);
                let wi = 2.0 * wo.dot(m) * m - wo;
                (wi.z > 0.0).then_some(wi)
            };
            let pdf = |wi: Vec3| {
                if wi.z <= 0.0 {
                    return 0.0;
                }
                let m = (wo + wi).normalize();
                g.reflection_pdf(wo, m) as f64
            };
            let name = format!("ggx α {alpha} cos θo {cos_o}");
            let integral = chi2_test(&name, sample, pdf, 1_000_000, n_tests, 0xC0FFEE);
            assert!(
                integral <= 1.0 + 2e-3,
                "{name}: pdf integrates to {integral}"
            );
        }
    }

    #[test]
    fn narrowest_lobe_stays_finite() {
        let g = Ggx::new(0.0);
        assert_eq!(g.alpha(), ALPHA_MIN);
        let wo = Vec3::new(1.0, 0.0, 1e-7).normalize();
        let mut rng = Rng::new(3);
        for _ in 0..10_000 {
            let m = g.sample_visible_normal(wo, rng.vec2());
            assert!(m.is_finite() && (m.length() - 1.0).abs() < 1e-5 && m.z >= 0.0);
            let pdf = g.reflection_pdf(wo, m);
            assert!(pdf.is_finite() && pdf >= 0.0 && (pdf * pdf).is_finite());
            assert!(g.d(m).is_finite());
        }
        assert_eq!(g.g2_over_cosines(Vec3::X, Vec3::Z), 0.0);
        assert!(g
            .g2_over_cosines(Vec3::new(1.0, 0.0, 1e-30), Vec3::Z)
            .is_finite());
    }
}
