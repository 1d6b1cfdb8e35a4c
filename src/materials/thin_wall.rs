//! `thickness` on `glass` and `liquid`: a thin-walled dielectric (a window pane, a bubble, a
//! bottle modelled as one surface), after pbrt-v4's `ThinDielectricBxDF`, with Beer–Lambert
//! absorption through the wall.
//!
//! Light that enters the wall bounces between its two parallel faces; every exit is along the
//! mirror direction or straight on (`wi = −wo`), so the wall is two delta lobes. With `R` the
//! exact Fresnel reflectance at `wo`, `T = 1 − R`, and `τ` what one traversal of the wall keeps
//! (`exp(−σ d / cos θt)`, `d` the thickness, `θt` the refracted angle):
//!
//! ```text
//! R' = R + T² R τ² / (1 − R² τ²)        T' = T² τ / (1 − R² τ²)
//! ```
//!
//! the sums of the geometric series of internal bounces; without absorption `R' + T' = 1`.
//! Without `absorption`, `τ = 1` and the transmission is tinted by `base` once per pass (the
//! wall as a whole, as a closed body's every crossing). The wall has no roughness (pbrt's has
//! none either: a rough thin wall needs the microfacet lobes on both faces; named).

use glam::{Vec2, Vec3};

use super::dielectric::Dielectric;
use super::{positive, BsdfSample, Bxdf};

/// A thin dielectric wall in local shading space, seen from either side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThinWall {
    /// The faces' (smooth) interface.
    interface: Dielectric,
    /// The absorption coefficient times the thickness (`σ d`), per channel, finite, ≥ 0.
    optical_depth: Vec3,
    /// Per-pass transmittance, each channel in `[0, 1]`.
    tint: Vec3,
}

impl ThinWall {
    /// A wall of index `ior` (clamped as [`Dielectric::new`] clamps it), absorption
    /// `sigma` per scene unit and channel over `thickness` scene units (negative, NaN and
    /// infinite products read as 0), and per-pass `tint` (each channel clamped to `[0, 1]`,
    /// NaN 1).
    pub fn new(ior: f32, sigma: Vec3, thickness: f32, tint: Vec3) -> ThinWall {
        let depth = |s: f32| {
            let v = s * thickness;
            if v.is_finite() && v > 0.0 {
                v
            } else {
                0.0
            }
        };
        let unit = |x: f32| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
        ThinWall {
            interface: Dielectric::new(ior, 0.0),
            optical_depth: Vec3::new(depth(sigma.x), depth(sigma.y), depth(sigma.z)),
            tint: Vec3::new(unit(tint.x), unit(tint.y), unit(tint.z)),
        }
    }

    /// The faces' interface (its index).
    pub fn interface(&self) -> &Dielectric {
        &self.interface
    }

    /// `(R', T')` per channel for a direction at `|cos θ| = mu` to the wall.
    pub fn split(&self, mu: f32) -> (Vec3, Vec3) {
        let mu = if mu.is_nan() { 0.0 } else { mu.abs().min(1.0) };
        let r = self.interface.reflectance(mu);
        let t = 1.0 - r;
        let eta = self.interface.eta();
        let cos_t = (1.0 - (1.0 - mu * mu) / (eta * eta)).max(0.0).sqrt();
        let tau = if self.optical_depth == Vec3::ZERO {
            Vec3::ONE
        } else if positive(cos_t) {
            let e = -self.optical_depth / cos_t;
            Vec3::new(e.x.exp(), e.y.exp(), e.z.exp())
        } else {
            Vec3::ZERO
        };
        let rt = r * tau;
        let denom = Vec3::ONE - rt * rt;
        // denom ≥ 1 − R² > 0 away from grazing; at grazing R = 1 and nothing enters.
        let least = denom.min_element();
        if least.is_nan() || least <= 0.0 {
            return (Vec3::ONE, Vec3::ZERO);
        }
        let r2 = Vec3::splat(r) + (t * t) * r * tau * tau / denom;
        let t2 = (t * t) * tau / denom * self.tint;
        (r2, t2)
    }

    /// What a shadow ray keeps passing the wall at cosine `cos` to its normal (with `[trace]
    /// transmissive_shadows`): `T'` at `|cos|`, the same straight-on transmission a path draws.
    pub fn shadow_transmittance(&self, cos: f32) -> Vec3 {
        self.split(cos).1
    }
}

impl Bxdf for ThinWall {
    fn f(&self, _wo: Vec3, _wi: Vec3) -> Vec3 {
        Vec3::ZERO
    }

    fn sample_f(&self, wo: Vec3, uc: f32, _u: Vec2) -> Option<BsdfSample> {
        let mu = wo.z.abs();
        if !positive(mu) || !wo.is_finite() {
            return None;
        }
        let (r, t) = self.split(mu);
        let (mr, mt) = (r.element_sum(), t.element_sum());
        if !positive(mr + mt) {
            return None;
        }
        let p_r = mr / (mr + mt);
        let (wi, f, pdf) = if uc < p_r {
            (Vec3::new(-wo.x, -wo.y, wo.z), r / mu, p_r)
        } else {
            (-wo, t / mu, 1.0 - p_r)
        };
        if !positive(pdf) || f == Vec3::ZERO || !f.is_finite() {
            return None;
        }
        Some(BsdfSample {
            wi,
            f,
            pdf,
            specular: true,
            diffuse: false,
        })
    }

    fn pdf(&self, _wo: Vec3, _wi: Vec3) -> f32 {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{dir, odd_dirs, Rng, ODD_VALUES};
    use super::*;

    #[test]
    fn a_clear_wall_reflects_and_transmits_one() {
        for ior in [1.33f32, 1.5, 2.4] {
            let w = ThinWall::new(ior, Vec3::ZERO, 0.01, Vec3::ONE);
            for mu in [1.0f32, 0.7, 0.3, 0.05, 0.001] {
                let (r, t) = w.split(mu);
                let sum = r + t;
                assert!(
                    (sum - Vec3::ONE).abs().max_element() < 1e-5,
                    "{ior} {mu}: {sum}"
                );
                // More than one face's reflectance (two faces), less than twice it.
                let r1 = w.interface().reflectance(mu);
                assert!(r.x >= r1 - 1e-6 && r.x <= 2.0 * r1 + 1e-6, "{r} vs {r1}");
            }
            // At normal incidence: R' = 2R/(1 + R) (pbrt-v4's closed form).
            let r1 = w.interface().reflectance(1.0);
            assert!((w.split(1.0).0.x - 2.0 * r1 / (1.0 + r1)).abs() < 1e-6);
        }
    }

    #[test]
    fn draws_carry_the_split_and_go_straight_on_or_mirror() {
        let w = ThinWall::new(1.5, Vec3::new(0.0, 1.0, 4.0), 0.5, Vec3::ONE);
        let mut rng = Rng::new(2);
        for mu in [0.9f32, -0.4] {
            let wo = dir(mu, 0.3);
            let (r, t) = w.split(mu);
            let (mut sum, n) = (Vec3::ZERO, 100_000);
            for _ in 0..n {
                let s = w.sample_f(wo, rng.f32(), rng.vec2()).unwrap();
                assert!(s.specular);
                assert!(s.wi == -wo || s.wi == Vec3::new(-wo.x, -wo.y, wo.z));
                sum += s.f * s.wi.z.abs() / s.pdf;
            }
            let mean = sum / n as f32;
            assert!(
                (mean - (r + t)).abs().max_element() < 0.01,
                "{mean} vs {}",
                r + t
            );
        }
    }

    #[test]
    fn absorption_follows_beer_lambert_through_the_wall() {
        // Index matched (no reflection): T' = exp(−σ d) at normal incidence, exp(−σ d/cos θ)
        // at an angle (no refraction to bend the path).
        let sigma = Vec3::new(0.0, 0.5, 2.0);
        let w = ThinWall::new(1.0, sigma, 0.4, Vec3::ONE);
        let t = w.split(1.0).1;
        let want = Vec3::new(1.0, (-0.2f32).exp(), (-0.8f32).exp());
        assert!((t - want).abs().max_element() < 1e-6, "{t}");
        let t = w.split(0.5).1;
        let want = Vec3::new(1.0, (-0.4f32).exp(), (-1.6f32).exp());
        assert!((t - want).abs().max_element() < 1e-6, "{t}");
        // With reflection, absorption only takes energy: R' + T' ≤ 1, and R' ≥ R.
        let w = ThinWall::new(1.5, sigma, 0.4, Vec3::ONE);
        for mu in [1.0f32, 0.5, 0.1] {
            let (r, t) = w.split(mu);
            assert!(
                (r + t).max_element() <= 1.0 + 1e-6
                    && r.min_element() >= w.interface().reflectance(mu) - 1e-6
            );
        }
    }

    #[test]
    fn odd_inputs_never_give_nan_or_inf() {
        let mut rng = Rng::new(6);
        for &x in &ODD_VALUES {
            let w = ThinWall::new(x, Vec3::splat(x), x, Vec3::splat(x));
            for wo in odd_dirs() {
                let (r, t) = w.split(wo.z);
                assert!(r.is_finite() && t.is_finite() && w.shadow_transmittance(x).is_finite());
                if let Some(s) = w.sample_f(wo, rng.f32(), rng.vec2()) {
                    assert!(s.f.is_finite() && s.pdf.is_finite() && s.wi.is_finite());
                }
            }
        }
    }
}
