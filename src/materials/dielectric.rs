//! A dielectric interface (glass, water): Fresnel reflection and refraction at a boundary
//! between the outside (index 1, +Z side) and a medium of index `η` (−Z side), after pbrt-v4's
//! `DielectricBxDF` and Walter et al., "Microfacet Models for Refraction through Rough
//! Surfaces" (EGSR 2007).
//!
//! - **Smooth** (`α` below [`SMOOTH_ALPHA`]): a delta mirror with probability `R` and a delta
//!   refraction (Snell) with `T = 1 − R`, `R` the exact unpolarised Fresnel reflectance; total
//!   internal reflection from inside beyond the critical angle. `f` and `pdf` are zero for
//!   every pair; only `sample_f` returns directions, marked `specular`.
//! - **Rough**: GGX microfacets (`α = roughness²`), height-correlated Smith `G2`; reflection
//!   `D G2 F / (4 |μo μi|)` and transmission through the generalised half vector
//!   `m ∥ η_o wo + η_i wi`. Sampled by the visible normals seen from `wo`, then reflection with
//!   probability `F(wo·m)`, refraction otherwise; the pdf is that mixture.
//! - **Radiance mode**: transmission carries `(η_o/η_i)²` (`η_o`, `η_i`: the indices on `wo`'s
//!   and `wi`'s sides), because the camera traces radiance, which is squeezed by `η²` entering a
//!   denser medium. So `f` is not symmetric; it obeys the generalised reciprocity
//!   `f(wo, wi)/η_o² = f(wi, wo)/η_i²`.
//!
//! Index matched (`η = 1`) is an exact pass-through at every roughness: a delta transmission
//! `wi = −wo` of weight 1.

use glam::{Vec2, Vec3};

use super::albedo::ROUGHNESS_MIN;
use super::ggx::Ggx;
use super::{fresnel, positive, BsdfSample, Bxdf};

/// Below this `α` the interface is treated as smooth (delta lobes), as pbrt-v4's
/// `EffectivelySmooth`: `roughness < 0.0316`. Such a lobe is narrower than 0.06°, under a
/// pixel for any camera; a delta lobe renders it without noise, and keeps the GGX lobes'
/// `D ≤ 1/(π α²) ≈ 3·10⁵ sr⁻¹` (which bounds `f` and `pdf`, see `COS_HORIZON`).
pub const SMOOTH_ALPHA: f32 = 1e-3;

/// Indices below this count as index matched (`η = 1`, a pass-through): their reflectance is
/// below 3·10⁻⁷, and a rough transmission lobe at `η → 1` collapses to a delta whose pdf grows
/// like `1/(η − 1)²`; cutting at `η − 1 = 10⁻³` keeps it and its square (MIS) finite in f32.
pub const IOR_MATCHED_BELOW: f32 = 1.001;

/// The largest index accepted (diamond is 2.42; nothing transparent exceeds ~4).
pub const IOR_MAX: f32 = 4.0;

/// The index a NaN `ior` stands for: common glass.
pub const IOR_DEFAULT: f32 = 1.5;

/// Directions with `|cos θ| < COS_HORIZON` count as on the horizon and scatter nothing. Any
/// pair outside that band keeps `f`, `pdf` and `pdf²` finite in f32 (with `α ≥`
/// [`SMOOTH_ALPHA`] and `η ≥` [`IOR_MATCHED_BELOW`]: `f ≲ 10²⁴`, `pdf ≲ 10¹⁶`); the band is
/// 10⁻⁹ rad wide, so nothing measurable is lost.
const COS_HORIZON: f32 = 1e-9;

/// A dielectric interface in local shading space: outside (index 1) on +Z, the medium of
/// index `eta` on −Z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dielectric {
    /// Index of refraction of the medium relative to the outside: 1 (matched) or in
    /// `[IOR_MATCHED_BELOW, IOR_MAX]`.
    eta: f32,
    /// The microfacet distribution (`α = roughness²`).
    ggx: Ggx,
}

/// Unpolarised Fresnel reflectance at a facet, given `cos = w·n` signed: positive when `w` is
/// outside (index 1, looking at the medium of index `eta`), negative from inside, where beyond
/// the critical angle everything reflects. The inside case maps through Snell's law to the
/// outside angle, where the reflectance is the same (Stokes), so one tested formula serves both.
fn fresnel_signed(cos: f32, eta: f32) -> f32 {
    let inv_eta = 1.0 / eta;
    if cos >= 0.0 {
        return fresnel::dielectric(cos, inv_eta);
    }
    let c = (-cos).min(1.0);
    let sin2_t = (1.0 - c * c) * eta * eta;
    if sin2_t >= 1.0 {
        return 1.0;
    }
    fresnel::dielectric((1.0 - sin2_t).sqrt(), inv_eta)
}

/// Refracts `w` (unit) through a facet of unit normal `n` on `w`'s side (`w·n ≥ 0`), where
/// `eta` is the index beyond the facet over the index on `w`'s side. `None` at total internal
/// reflection.
fn refract(w: Vec3, n: Vec3, eta: f32) -> Option<Vec3> {
    let cos_i = w.dot(n).clamp(0.0, 1.0);
    let sin2_t = (1.0 - cos_i * cos_i).max(0.0) / (eta * eta);
    if sin2_t >= 1.0 {
        return None;
    }
    let cos_t = (1.0 - sin2_t).sqrt();
    Some((-w / eta + (cos_i / eta - cos_t) * n).normalize_or_zero())
}

/// `w` normalised, or zero when it cannot be (zero, NaN, Inf). Vectors already unit to a few
/// ulps are kept as they are, so that `f(wo, s.wi)` and `pdf(wo, s.wi)` of a sample `s` repeat
/// the sample's own evaluation bit for bit (normalising twice can move a direction by an ulp,
/// which moves a narrow lobe's value by 10⁻⁴).
fn unit(w: Vec3) -> Vec3 {
    let l2 = w.length_squared();
    if (l2 - 1.0).abs() <= 4.0 * f32::EPSILON {
        w
    } else {
        w.normalize_or_zero()
    }
}

/// On the horizon, below it by under [`COS_HORIZON`], or NaN.
fn on_horizon(cos: f32) -> bool {
    cos.is_nan() || cos.abs() < COS_HORIZON
}

impl Dielectric {
    /// An interface with a medium of index `ior` (relative to the outside) and GGX roughness
    /// `roughness` (`α = roughness²`).
    ///
    /// `ior` is clamped to `[1, IOR_MAX]`, NaN gives [`IOR_DEFAULT`], and anything below
    /// [`IOR_MATCHED_BELOW`] is exactly 1 (index matched: a pass-through). `roughness` is
    /// clamped to `[0.01, 1]` as in `plain`, NaN to 0.01; below `√SMOOTH_ALPHA ≈ 0.0316` the
    /// interface is smooth (delta lobes).
    pub fn new(ior: f32, roughness: f32) -> Dielectric {
        let eta = if ior.is_nan() {
            IOR_DEFAULT
        } else if ior < IOR_MATCHED_BELOW {
            1.0
        } else {
            ior.min(IOR_MAX)
        };
        let roughness = if roughness.is_nan() {
            ROUGHNESS_MIN
        } else {
            roughness.clamp(ROUGHNESS_MIN, 1.0)
        };
        Dielectric {
            eta,
            ggx: Ggx::new(roughness * roughness),
        }
    }

    /// The medium's index relative to the outside (1 when index matched).
    pub fn eta(&self) -> f32 {
        self.eta
    }

    /// The GGX width `α`.
    pub fn alpha(&self) -> f32 {
        self.ggx.alpha()
    }

    /// Delta lobes only: `f` and `pdf` are zero everywhere and every sample is `specular`
    /// (true when smooth or index matched).
    pub fn is_specular(&self) -> bool {
        self.eta == 1.0 || self.ggx.alpha() < SMOOTH_ALPHA
    }

    /// `η_i/η_o`: the index on `wi`'s side over the index on `wo`'s side (1 for a reflection
    /// or a direction on the horizon). A path's radiance throughput is scaled by its inverse
    /// square at each transmission; a path tracer that plays Russian roulette on throughput
    /// multiplies it back (pbrt's `etaScale`) so that roulette does not depend on which side of
    /// the glass a path ends on.
    pub fn relative_eta(&self, wo: Vec3, wi: Vec3) -> f32 {
        let (co, ci) = (wo.z, wi.z);
        if on_horizon(co) || on_horizon(ci) || (co > 0.0) == (ci > 0.0) {
            1.0
        } else if co > 0.0 {
            self.eta
        } else {
            1.0 / self.eta
        }
    }

    /// `(f, pdf)` of the rough lobes for unit `wo`, `wi`: zero on the horizon and for delta
    /// interfaces.
    fn eval_unit(&self, wo: Vec3, wi: Vec3) -> (f32, f32) {
        if self.is_specular() {
            return (0.0, 0.0);
        }
        let (co, ci) = (wo.z, wi.z);
        if on_horizon(co) || on_horizon(ci) {
            return (0.0, 0.0);
        }
        let reflect = (co > 0.0) == (ci > 0.0);
        let etap = if reflect {
            1.0
        } else if co > 0.0 {
            self.eta
        } else {
            1.0 / self.eta
        };
        // The generalised half vector (η_o wo + η_i wi)/η_o. Once normalised to m, its length
        // is |etap wi·m + wo·m|, the square root of the transmission Jacobian's denominator.
        let h = wo + etap * wi;
        let len2 = h.length_squared();
        if !positive(len2) {
            return (0.0, 0.0);
        }
        let mut m = h / len2.sqrt();
        if m.z < 0.0 {
            m = -m;
        }
        let (dot_o, dot_i) = (wo.dot(m), wi.dot(m));
        // Each direction must see the facet from its own side: wo·m has the sign of μo, and
        // wi·m that of μi (back-facing microfacets scatter nothing).
        if !(positive(dot_o * co) && positive(dot_i * ci)) {
            return (0.0, 0.0);
        }
        let d = self.ggx.d(m);
        if !positive(d) {
            return (0.0, 0.0);
        }
        let (aco, aci) = (co.abs(), ci.abs());
        let (so, si) = (self.ggx.s(wo), self.ggx.s(wi));
        // For a refraction, the cosine on the outside is used whichever way the light goes:
        // the reflectance is the same (Stokes), exactly so in f32, which keeps f reciprocal,
        // and it avoids mapping a near-critical inside angle through Snell's law, where
        // cos θt = √(1 − sin²θt) loses digits.
        let r = if reflect || co > 0.0 {
            fresnel_signed(dot_o, self.eta)
        } else {
            fresnel_signed(dot_i, self.eta)
        };
        // D_wo(m) = G1(wo) |wo·m| D(m) / |μo| = 2 |wo·m| D(m) / (|μo| + s(wo)): the density of
        // the sampled facet normal. s ≥ α > 0, so no denominator here is zero.
        let vis_over_dot = 2.0 * d / (aco + so);
        // G2 / (|μo| |μi|) with G2 = 1/(1 + Λ(wo) + Λ(wi)).
        let g2_over_cos = 2.0 / (aci * so + aco * si);
        if reflect {
            let f = 0.25 * d * g2_over_cos * r;
            // D_wo(m) / (4 |wo·m|), times the probability of choosing reflection.
            let pdf = 0.25 * vis_over_dot * r;
            (f, pdf)
        } else {
            let t = 1.0 - r;
            // Walter's |wi·m||wo·m| η_i² / (η_i wi·m + η_o wo·m)² times D G2 T / (|μi||μo|),
            // in radiance mode (× (η_o/η_i)²): what remains is 1/(etap wi·m + wo·m)² = 1/len2.
            let (ado, adi) = (dot_o.abs(), dot_i.abs());
            let f = d * g2_over_cos * t * ado * adi / len2;
            // D_wo(m) |dm/dwi|, |dm/dwi| = etap² |wi·m| / len2.
            let pdf = vis_over_dot * ado * etap * etap * adi / len2 * t;
            (f, pdf)
        }
    }

    /// `eval_unit` for arbitrary inputs.
    fn eval(&self, wo: Vec3, wi: Vec3) -> (f32, f32) {
        self.eval_unit(unit(wo), unit(wi))
    }

    /// The delta lobes of a smooth interface, for unit `wo` off the horizon.
    fn sample_smooth(&self, wo: Vec3, uc: f32) -> Option<BsdfSample> {
        let co = wo.z;
        let r = fresnel_signed(co, self.eta);
        if uc < r {
            let wi = Vec3::new(-wo.x, -wo.y, wo.z);
            return Some(BsdfSample {
                wi,
                f: Vec3::splat(r / co.abs()),
                pdf: r,
                specular: true,
                diffuse: false,
            });
        }
        let t = 1.0 - r;
        let (n, etap) = if co > 0.0 {
            (Vec3::Z, self.eta)
        } else {
            (-Vec3::Z, 1.0 / self.eta)
        };
        let wi = refract(wo, n, etap)?;
        if !positive(t) || on_horizon(wi.z) {
            return None;
        }
        Some(BsdfSample {
            wi,
            f: Vec3::splat(t / (wi.z.abs() * etap * etap)),
            pdf: t,
            specular: true,
            diffuse: false,
        })
    }
}

impl Bxdf for Dielectric {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        Vec3::splat(self.eval(wo, wi).0)
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        let wo = unit(wo);
        if on_horizon(wo.z) {
            return None;
        }
        if self.eta == 1.0 {
            return Some(BsdfSample {
                wi: -wo,
                f: Vec3::splat(1.0 / wo.z.abs()),
                pdf: 1.0,
                specular: true,
                diffuse: false,
            });
        }
        if self.is_specular() {
            return self.sample_smooth(wo, uc);
        }
        // Visible normals as seen from wo's side: from inside, the facets are seen from below,
        // which is sampling as seen by −wo (the distribution is symmetric under w → −w).
        let outside = wo.z > 0.0;
        let m = self
            .ggx
            .sample_visible_normal(if outside { wo } else { -wo }, u);
        let dot_o = wo.dot(m);
        let r = fresnel_signed(dot_o, self.eta);
        let reflect = uc < r;
        let wi = if reflect {
            2.0 * dot_o * m - wo
        } else if dot_o >= 0.0 {
            refract(wo, m, self.eta)?
        } else {
            refract(wo, -m, 1.0 / self.eta)?
        };
        let wi = unit(wi);
        // Reflections that end up on the other side, and refractions that do not cross, are
        // lost (single scattering). They must be refused here: evaluated, such a pair would
        // count as the other lobe, whose density the pdf does not credit this draw with.
        if reflect != (wi.z * wo.z > 0.0) {
            return None;
        }
        let (f, pdf) = self.eval_unit(wo, wi);
        if !positive(pdf) || !positive(f) {
            return None;
        }
        Some(BsdfSample {
            wi,
            f: Vec3::splat(f),
            pdf,
            specular: false,
            diffuse: false,
        })
    }

    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        self.eval(wo, wi).1
    }

    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        let (f, pdf) = self.eval(wo, wi);
        (Vec3::splat(f), pdf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::testutil::{chi2_test, spherical_dir, Rng};
    use std::f64::consts::{PI, TAU};

    fn dir(cos_theta: f32, phi: f32) -> Vec3 {
        spherical_dir(cos_theta as f64, phi as f64)
    }

    /// The index on `w`'s side.
    fn side_index(d: &Dielectric, w: Vec3) -> f32 {
        if w.z > 0.0 {
            1.0
        } else {
            d.eta()
        }
    }

    /// Textbook Fresnel in f64 from indices on either side, total internal reflection
    /// included: an independent reference.
    fn fresnel_reference(cos_i: f64, n_i: f64, n_t: f64) -> f64 {
        let sin_t = n_i / n_t * (1.0 - cos_i * cos_i).max(0.0).sqrt();
        if sin_t >= 1.0 {
            return 1.0;
        }
        let cos_t = (1.0 - sin_t * sin_t).sqrt();
        let rs = (n_i * cos_i - n_t * cos_t) / (n_i * cos_i + n_t * cos_t);
        let rp = (n_t * cos_i - n_i * cos_t) / (n_t * cos_i + n_i * cos_t);
        0.5 * (rs * rs + rp * rp)
    }

    /// The sampled estimate at `wo` of the power albedo `∫ f (η_i/η_o)² |μi| dωi` (the
    /// fraction of the power arriving along `wo` that leaves, reflected or transmitted: at most
    /// 1) and of the radiance-mode albedo `∫ f |μi| dωi`, with the standard error of the first.
    fn albedo(d: &Dielectric, wo: Vec3, n: usize, seed: u64) -> (f64, f64, f64) {
        let mut rng = Rng::new(seed);
        let (mut sum, mut sum2, mut radiance) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..n {
            if let Some(s) = d.sample_f(wo, rng.f32(), rng.vec2()) {
                let w = (s.f.x * s.wi.z.abs() / s.pdf) as f64;
                let e = d.relative_eta(wo, s.wi) as f64;
                sum += w * e * e;
                sum2 += (w * e * e).powi(2);
                radiance += w;
            }
        }
        let mean = sum / n as f64;
        let var = (sum2 / n as f64 - mean * mean).max(0.0);
        (mean, (var / n as f64).sqrt(), radiance / n as f64)
    }

    #[test]
    fn smooth_splits_into_fresnel_r_and_t_at_every_angle() {
        for ior in [1.33f32, 1.5, 2.4, 4.0] {
            let d = Dielectric::new(ior, 0.0);
            assert!(d.is_specular());
            for k in 1..=400 {
                // Both sides, never exactly on the horizon.
                let cos_o = -1.0 + (k as f32 - 0.5) / 200.0;
                let wo = dir(cos_o, 0.4 + k as f32);
                let (n_o, n_t) = if cos_o > 0.0 {
                    (1.0, ior as f64)
                } else {
                    (ior as f64, 1.0)
                };
                let expect_r = fresnel_reference(cos_o.abs() as f64, n_o, n_t);
                let refl = d.sample_f(wo, 0.0, Vec2::ZERO).unwrap();
                assert!(refl.specular);
                assert!((refl.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-6);
                assert!(
                    (refl.pdf as f64 - expect_r).abs() < 2e-6,
                    "η {ior} cos {cos_o}: R {} vs {expect_r}",
                    refl.pdf
                );
                // Mirror: f |μi| / pdf = 1 exactly in power and in radiance.
                assert!((refl.f.x * refl.wi.z.abs() / refl.pdf - 1.0).abs() < 1e-6);
                match d.sample_f(wo, 0.999_999_9, Vec2::ZERO) {
                    Some(tr) if tr.wi.z * wo.z < 0.0 => {
                        assert!(tr.specular);
                        // R + T = 1 to f32 rounding.
                        assert!((refl.pdf + tr.pdf - 1.0).abs() <= 1.2e-7, "{}", tr.pdf);
                        // Snell: η_o sin θo = η_i sin θi, azimuth turned by π, unit length.
                        let (sin_o, sin_i) = (wo.truncate().length(), tr.wi.truncate().length());
                        let n_i = side_index(&d, tr.wi);
                        assert!(
                            (side_index(&d, wo) * sin_o - n_i * sin_i).abs() < 1e-5,
                            "η {ior} cos {cos_o}: {sin_o} {sin_i}"
                        );
                        assert!(tr.wi.truncate().dot(wo.truncate()) <= 0.0);
                        assert!((tr.wi.length() - 1.0).abs() < 1e-6);
                        // Power weight 1; radiance weight (η_o/η_i)².
                        let e = d.relative_eta(wo, tr.wi);
                        let w = tr.f.x * tr.wi.z.abs() / tr.pdf;
                        assert!((w * e * e - 1.0).abs() < 2e-6, "{w} {e}");
                        assert_eq!(e, n_i / side_index(&d, wo));
                    }
                    // Only total internal reflection may refuse to transmit.
                    other => assert!(
                        expect_r == 1.0 || (1.0 - expect_r) < 1e-6,
                        "η {ior} cos {cos_o}: {other:?}, R {expect_r}"
                    ),
                }
            }
        }
    }

    #[test]
    fn smooth_sampling_frequencies_match_fresnel() {
        let d = Dielectric::new(1.5, 0.02);
        assert!(d.is_specular());
        let n = 100_000;
        for (i, cos_o) in [1.0f32, 0.5, 0.1, -1.0, -0.8, -0.75]
            .into_iter()
            .enumerate()
        {
            let wo = dir(cos_o, 1.0);
            let mut rng = Rng::new(50 + i as u64);
            let (mut reflected, mut transmitted) = (0usize, 0usize);
            for _ in 0..n {
                let s = d.sample_f(wo, rng.f32(), rng.vec2()).unwrap();
                assert!(s.specular);
                if s.wi.z * wo.z > 0.0 {
                    reflected += 1;
                } else {
                    transmitted += 1;
                }
            }
            assert_eq!(reflected + transmitted, n);
            let (n_o, n_t) = if cos_o > 0.0 { (1.0, 1.5) } else { (1.5, 1.0) };
            let r = fresnel_reference(cos_o.abs() as f64, n_o, n_t);
            let sigma = (r * (1.0 - r) / n as f64).sqrt();
            let got = reflected as f64 / n as f64;
            assert!(
                (got - r).abs() <= 5.0 * sigma + 1e-6,
                "cos {cos_o}: {got} vs {r}"
            );
        }
    }

    #[test]
    fn total_internal_reflection_beyond_the_critical_angle() {
        for ior in [1.33f32, 1.5, 2.4] {
            let cos_c = (1.0 - 1.0 / (ior * ior)).sqrt();
            for roughness in [0.0f32, 0.02] {
                let d = Dielectric::new(ior, roughness);
                // From inside, beyond the critical angle (|μ| < cos θc): every sample reflects.
                for k in 1..20 {
                    let cos_o = -(k as f32 / 20.0) * cos_c * 0.999;
                    let wo = dir(cos_o, 2.0);
                    for uc in [0.0f32, 0.5, 0.999_999_9] {
                        let s = d.sample_f(wo, uc, Vec2::ZERO).unwrap();
                        assert_eq!(s.pdf, 1.0, "η {ior} cos {cos_o}");
                        assert!((s.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-6);
                        assert!((s.f.x * s.wi.z.abs() - 1.0).abs() < 1e-6);
                    }
                }
                // Just inside the critical angle it transmits again.
                let wo = dir(-(cos_c + 0.01).min(1.0), 2.0);
                let s = d.sample_f(wo, 0.999_999_9, Vec2::ZERO).unwrap();
                assert!(s.wi.z > 0.0 && s.pdf > 0.0);
            }
        }
    }

    /// (ior, roughness, cos θo): both sides, normal incidence, beyond the critical angle from
    /// inside, grazing.
    const CHI2_CONFIGS: [(f32, f32, f32); 10] = [
        (1.5, 0.3, 0.8),
        (1.5, 0.3, -0.8),
        (1.5, 0.6, 0.3),
        (1.5, 0.6, -0.5),
        (1.33, 1.0, 0.95),
        (2.4, 0.4, -0.2),
        (1.5, 1.0, -0.05),
        (1.1, 0.5, 0.6),
        (1.5, 0.45, 1.0),
        (1.5, 0.45, -1.0),
    ];

    #[test]
    fn rough_sampling_passes_chi2_over_the_sphere() {
        let mut report = String::from("\n∫ pdf over the sphere (rough dielectric)\n");
        for (i, (ior, r, cos_o)) in CHI2_CONFIGS.into_iter().enumerate() {
            let d = Dielectric::new(ior, r);
            let wo = dir(cos_o, 0.7);
            let name = format!("dielectric η {ior} roughness {r} cos θo {cos_o}");
            let integral = chi2_test(
                &name,
                |u, uc| d.sample_f(wo, uc, u).map(|s| s.wi),
                |wi| d.pdf(wo, wi) as f64,
                400_000,
                CHI2_CONFIGS.len(),
                300 + i as u64,
            );
            // The missing mass is the reflections sent below and refractions sent back: it is
            // checked against the samples' misses inside chi2_test.
            assert!(integral <= 1.0 + 2e-3, "{name}: ∫ pdf = {integral}");
            assert!(integral > 0.5, "{name}: ∫ pdf = {integral}");
            report.push_str(&format!("{name}: {integral:.4}\n"));
        }
        eprintln!("{report}");
    }

    #[test]
    fn rough_white_furnace_never_above_one() {
        // Power albedo (reflected + transmitted fraction of the power arriving along wo) at
        // most 1 within Monte Carlo error; prints it for the docs.
        let cosines = [1.0f32, 0.7, 0.4, 0.1, -1.0, -0.9, -0.7, -0.4];
        let mut max_se = 0.0f64;
        let mut report = String::from(
            "\nrough dielectric η 1.5, power albedo E(μo) (1 = no loss), 40k samples\n\
             roughness | μo=1 0.7 0.4 0.1 | inside μo=-1 -0.9 -0.7 -0.4 | radiance-mode μo=1, -1\n",
        );
        for (ri, r) in [0.05f32, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0]
            .into_iter()
            .enumerate()
        {
            let d = Dielectric::new(1.5, r);
            report.push_str(&format!("{r:9.2} |"));
            let mut radiance = Vec::new();
            for (k, &cos_o) in cosines.iter().enumerate() {
                let wo = dir(cos_o, 0.3);
                let (e, se, rad) = albedo(&d, wo, 40_000, (ri * 16 + k) as u64);
                max_se = max_se.max(se);
                assert!(
                    e <= 1.0 + 4.0 * se + 1e-4,
                    "roughness {r} cos {cos_o}: {e} ± {se}"
                );
                // Nearly smooth conserves nearly everything.
                if r <= 0.1 {
                    assert!(e > 0.98, "roughness {r} cos {cos_o}: {e}");
                }
                if k == 4 {
                    report.push_str(" |");
                }
                report.push_str(&format!(" {e:.4}"));
                if cos_o.abs() == 1.0 {
                    radiance.push(rad);
                }
            }
            report.push_str(&format!(" | {:.4} {:.4}\n", radiance[0], radiance[1]));
        }
        eprintln!("{report}largest standard error {max_se:.5}");
    }

    /// `∫ g(wi) dωi` over the sphere by the midpoint rule in (θ, φ), the horizon a cell edge.
    fn sphere_integral(g: impl Fn(Vec3) -> f64) -> f64 {
        let (nt, np) = (2000, 256);
        let mut sum = 0.0;
        for i in 0..nt {
            let theta = (i as f64 + 0.5) / nt as f64 * PI;
            let mut ring = 0.0;
            for j in 0..np {
                let phi = (j as f64 + 0.5) / np as f64 * TAU;
                ring += g(spherical_dir(theta.cos(), phi));
            }
            sum += ring * theta.sin();
        }
        sum * (PI / nt as f64) * (TAU / np as f64)
    }

    #[test]
    fn furnace_estimate_matches_quadrature_of_f() {
        // The sampled albedo against a quadrature of f itself, which does not go through the
        // sampler: checks that f, pdf and the samples' f/pdf agree in magnitude.
        for (i, (ior, r, cos_o)) in [(1.5f32, 0.7f32, 0.6f32), (1.5, 0.7, -0.6), (2.0, 1.0, 0.3)]
            .into_iter()
            .enumerate()
        {
            let d = Dielectric::new(ior, r);
            let wo = dir(cos_o, 1.1);
            let quad = sphere_integral(|wi| {
                let e = d.relative_eta(wo, wi) as f64;
                d.f(wo, wi).x as f64 * wi.z.abs() as f64 * e * e
            });
            let (mc, se, _) = albedo(&d, wo, 200_000, 900 + i as u64);
            assert!(
                (quad - mc).abs() < 4.0 * se + 2e-3,
                "η {ior} r {r} cos {cos_o}: quadrature {quad} vs sampled {mc} ± {se}"
            );
            let pdf_quad = sphere_integral(|wi| d.pdf(wo, wi) as f64);
            assert!(pdf_quad <= 1.0 + 2e-3, "{pdf_quad}");
        }
    }

    /// Walter et al. 2007, eqs. 20–21 (BRDF and radiance BTDF) in f64 with the textbook `Λ`
    /// and `D` in terms of `tan θ`: an independent formulation of `f`.
    fn walter_reference(eta: f64, alpha: f64, wo: Vec3, wi: Vec3) -> f64 {
        let (wo, wi) = (wo.as_dvec3(), wi.as_dvec3());
        let a2 = alpha * alpha;
        let tan2 = |w: glam::DVec3| (1.0 - w.z * w.z).max(0.0) / (w.z * w.z);
        let lambda = |w: glam::DVec3| ((1.0 + a2 * tan2(w)).sqrt() - 1.0) / 2.0;
        let d = |m: glam::DVec3| {
            let c2 = m.z * m.z;
            a2 / (PI * c2 * c2 * (a2 + tan2(m)).powi(2))
        };
        let g = 1.0 / (1.0 + lambda(wo) + lambda(wi));
        let index = |w: glam::DVec3| if w.z > 0.0 { 1.0 } else { eta };
        let (n_o, n_i) = (index(wo), index(wi));
        if wo.z * wi.z > 0.0 {
            let mut h = (wo + wi).normalize();
            if h.z < 0.0 {
                h = -h;
            }
            let other = if wo.z > 0.0 { eta } else { 1.0 };
            let f = fresnel_reference(wo.dot(h).abs(), n_o, other);
            f * g * d(h) / (4.0 * (wo.z * wi.z).abs())
        } else {
            let mut h = -(n_o * wo + n_i * wi).normalize();
            if h.z < 0.0 {
                h = -h;
            }
            if wo.dot(h) * wo.z <= 0.0 || wi.dot(h) * wi.z <= 0.0 {
                return 0.0;
            }
            let f = fresnel_reference(wo.dot(h).abs(), n_o, n_i);
            let denom = n_i * wi.dot(h) + n_o * wo.dot(h);
            (wi.dot(h) * wo.dot(h)).abs() / (wi.z * wo.z).abs() * n_o * n_o * (1.0 - f) * g * d(h)
                / (denom * denom)
        }
    }

    #[test]
    fn matches_walter_in_f64() {
        let mut rng = Rng::new(31);
        let mut nonzero = 0;
        for _ in 0..50_000 {
            let d = Dielectric::new(1.05 + 2.5 * rng.f32(), 0.1 + 0.9 * rng.f32());
            let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
            if wo.z.abs() < 1e-3 || wi.z.abs() < 1e-3 {
                continue;
            }
            let ours = d.f(wo, wi).x as f64;
            let reference = walter_reference(d.eta() as f64, d.alpha() as f64, wo, wi);
            // Relative to 10⁻³, or 10⁻⁵ absolute below 10⁻²: facets seen nearly edge-on lose
            // digits in f32 (|w·m| from a rounded m) and only there is f that small. Measured
            // worst: 1.7·10⁻⁴ with this floor, 6·10⁻⁶ relative where f ≥ 1.
            assert!(
                (ours - reference).abs() <= 1e-3 * reference.max(1e-2),
                "η {} α {} wo {wo} wi {wi}: {ours} vs {reference}",
                d.eta(),
                d.alpha()
            );
            nonzero += (reference > 0.0) as usize;
        }
        assert!(nonzero > 30_000, "{nonzero}");
    }

    #[test]
    fn generalised_reciprocity() {
        // f(wo, wi)/η_o² = f(wi, wo)/η_i², η_o and η_i the indices on wo's and wi's sides.
        let mut rng = Rng::new(77);
        let (mut transmitting, mut reflecting) = (0, 0);
        for i in 0..100_000 {
            let ior = [1.33f32, 1.5, 2.4, 1.0 + 3.0 * rng.f32()][i % 4];
            let d = Dielectric::new(ior, 0.05 + 0.95 * rng.f32());
            let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
            let (n_o, n_i) = (side_index(&d, wo), side_index(&d, wi));
            let a = d.f(wo, wi).x / (n_o * n_o);
            let b = d.f(wi, wo).x / (n_i * n_i);
            // f32 rounding: near-critical angles (Fresnel's slope is infinite there) and
            // facets seen edge-on (|w·m| ≈ 0) lose digits; values below 10⁻⁴ (typical f is
            // 0.1 to 10⁴) are compared to 10⁻⁷ absolute. Measured worst: 5·10⁻⁴ in 10⁶ pairs.
            assert!(
                (a - b).abs() <= 1e-3 * a.max(b).max(1e-4),
                "η {} α {}: wo {wo} wi {wi}: {a} vs {b}",
                d.eta(),
                d.alpha()
            );
            if a > 0.0 {
                if wo.z * wi.z < 0.0 {
                    transmitting += 1;
                } else {
                    reflecting += 1;
                }
            }
        }
        assert!(
            transmitting > 10_000 && reflecting > 10_000,
            "{transmitting} {reflecting}"
        );
    }

    #[test]
    fn index_matched_is_a_pass_through() {
        let mut rng = Rng::new(5);
        for (ior, r) in [
            (1.0f32, 0.0f32),
            (1.0, 0.5),
            (0.5, 1.0),
            (1.0009, 0.3),
            (-3.0, 0.2),
        ] {
            let d = Dielectric::new(ior, r);
            assert_eq!(d.eta(), 1.0);
            assert!(d.is_specular());
            for _ in 0..10_000 {
                let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
                assert_eq!(d.f_pdf(wo, wi), (Vec3::ZERO, 0.0));
                let s = d.sample_f(wo, rng.f32(), rng.vec2()).unwrap();
                assert!(s.specular && s.pdf == 1.0);
                assert!((s.wi + wo.normalize()).length() < 1e-6);
                assert!((s.f.x * s.wi.z.abs() - 1.0).abs() < 1e-5);
                assert_eq!(d.relative_eta(wo, s.wi), 1.0);
            }
        }
    }

    #[test]
    fn sample_values_equal_evaluation() {
        let mut rng = Rng::new(9);
        let mut checked = [0; 2];
        for _ in 0..50_000 {
            let d = Dielectric::new(1.01 + 3.0 * rng.f32(), 0.04 + 0.96 * rng.f32());
            let wo = rng.sphere_dir();
            if let Some(s) = d.sample_f(wo, rng.f32(), rng.vec2()) {
                let (f, pdf) = d.f_pdf(wo, s.wi);
                assert_eq!((f, pdf), (d.f(wo, s.wi), d.pdf(wo, s.wi)));
                assert_eq!((s.f, s.pdf), (f, pdf), "{d:?} {wo} {s:?}");
                assert!(!s.specular && s.pdf > 0.0 && (s.wi.length() - 1.0).abs() < 1e-5);
                checked[(s.wi.z * wo.z < 0.0) as usize] += 1;
            }
        }
        assert!(checked[0] > 2_000 && checked[1] > 20_000, "{checked:?}");
    }

    #[test]
    fn odd_inputs_never_give_nan_or_inf() {
        let dirs = [
            Vec3::Z,
            -Vec3::Z,
            Vec3::X,
            Vec3::new(1.0, 0.0, 1e-30).normalize(),
            Vec3::new(1.0, 0.0, -1e-30).normalize(),
            Vec3::new(-1.0, 0.0, 1e-30).normalize(),
            Vec3::new(1.0, 0.0, 2e-9).normalize(),
            Vec3::new(-1.0, 0.0, 2e-9).normalize(),
            Vec3::new(-1.0, 0.0, -2e-9).normalize(),
            dir(1e-4, 0.0),
            dir(-1e-4, 3.0),
            dir(0.745, 0.5),
            dir(-0.745, 0.5),
            Vec3::new(1e-30, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1e30),
            Vec3::ZERO,
            Vec3::NAN,
            Vec3::INFINITY,
            Vec3::new(0.3, f32::NAN, 0.9),
        ];
        let iors = [
            f32::NAN,
            -1.0,
            0.0,
            1.0,
            1.001,
            1.0011,
            1.5,
            4.0,
            1e30,
            f32::INFINITY,
        ];
        let roughnesses = [f32::NAN, -1.0, 0.0, 0.0316, 0.0317, 0.5, 1.0, 7.0];
        let mut rng = Rng::new(17);
        let ok = |f: Vec3, pdf: f32| {
            f.is_finite()
                && f.min_element() >= 0.0
                && pdf.is_finite()
                && pdf >= 0.0
                && (pdf * pdf).is_finite()
        };
        for &ior in &iors {
            for &r in &roughnesses {
                let d = Dielectric::new(ior, r);
                assert!((1.0..=IOR_MAX).contains(&d.eta()));
                for &wo in &dirs {
                    for &wi in &dirs {
                        let (f, pdf) = d.f_pdf(wo, wi);
                        assert!(ok(f, pdf), "η {ior} r {r} {wo} {wi}: {f} {pdf}");
                        assert!(d.relative_eta(wo, wi).is_finite());
                    }
                    let mut draws = vec![
                        (0.0f32, Vec2::ZERO),
                        (0.999_999_94, Vec2::ONE * 0.999_999_94),
                    ];
                    draws.push((f32::NAN, Vec2::NAN));
                    draws.extend((0..32).map(|_| (rng.f32(), rng.vec2())));
                    for (uc, u) in draws {
                        if let Some(s) = d.sample_f(wo, uc, u) {
                            assert!(ok(s.f, s.pdf) && s.pdf > 0.0 && s.wi.is_finite());
                            assert!((s.wi.length() - 1.0).abs() < 1e-5);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn parameters_clamp() {
        assert_eq!(Dielectric::new(f32::NAN, 0.5).eta(), IOR_DEFAULT);
        assert_eq!(Dielectric::new(9.0, 0.5).eta(), IOR_MAX);
        assert_eq!(Dielectric::new(0.3, 0.5).eta(), 1.0);
        assert_eq!(Dielectric::new(1.001, 0.5).eta(), 1.001);
        assert_eq!(Dielectric::new(1.5, f32::NAN).alpha(), 1e-4);
        assert_eq!(Dielectric::new(1.5, 3.0).alpha(), 1.0);
        assert!(Dielectric::new(1.5, 0.0316).is_specular());
        assert!(!Dielectric::new(1.5, 0.0317).is_specular());
        assert!(!Dielectric::new(1.5, 0.5).is_specular());
    }
}
