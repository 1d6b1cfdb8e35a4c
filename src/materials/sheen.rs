//! A sheen-led fabric (the `cloth` family): Estevez and Kulla's "Charlie" sheen (Production
//! Friendly Microfacet Sheen BRDF, 2017) over a Lambertian base coupled to it by its albedo, so
//! the base gets what the sheen does not reflect and the pair never reflects more than 1.
//!
//! ```text
//! f = s · D(h) / (4 (μo + μi − μo μi))                          (sheen, white times `sheen`)
//!   + base/π · (1 − s E(μo)) (1 − s E(μi)) / (1 − s Ē)          (base)
//! D(h) = (2 + 1/α) sin(θh)^(1/α) / (2π),   α = roughness²
//! ```
//!
//! The visibility term is Neubelt and Pettineo's (The Order: 1886; Filament's cloth), which is
//! symmetric, so `f` is reciprocal. `E(μ)`, the sheen's directional albedo, has no closed form:
//! it is integrated per material at 32 cosines (uniform in `√μ`) when the material is built (a
//! few hundred thousand evaluations, about a millisecond) and interpolated; where it exceeds 1
//! (a sharp Charlie lobe seen at grazing angles reflects up to 1.41 with this visibility) the
//! whole lobe is scaled by `1/max E`, a constant, so it stays reciprocal and below 1; `Ē = ∫ E 2μ dμ` is taken from
//! the interpolant itself, so the base's normalisation is exact for the table, and with it the
//! base's albedo is `base (1 − s E(μo))`: the white furnace is `s E + 1 − s E = 1`.
//! Sampling: the sheen lobe uniformly over the hemisphere (its mass lies near the horizon, where
//! a cosine draw seldom goes), the base by the cosine, mixed by their albedos at `wo`.

use std::f32::consts::{FRAC_1_PI, PI};

use glam::{Vec2, Vec3};

use super::{positive, BsdfSample, Bxdf};
use crate::color::luminance;
use crate::sampling::warp;

/// Nodes of the albedo table, uniform in `x = √μ` (dense at the horizon, where a sharp sheen's
/// albedo changes fastest).
pub(super) const N_MU: usize = 32;
/// The least `α`: sharper sheen than this is a sliver at the horizon that no sample finds.
pub(super) const ALPHA_MIN: f32 = 0.01;

/// A cloth BRDF in local shading space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sheen {
    /// The base's albedo, per channel in `[0, 1]`.
    base: Vec3,
    /// `α`.
    alpha: f32,
    /// What the lobe `D V` is multiplied by: the weight over the lobe's largest albedo where
    /// that exceeds 1 (see [`Sheen::new`]).
    lobe_scale: f32,
    /// The scaled sheen's albedo at the nodes `μ_k = (k/(N_MU − 1))²`, each in `[0, 1]`.
    albedo: [f32; N_MU],
    /// `1 / (π (1 − s Ē))`, 0 when the sheen reflects everything (no base).
    base_norm: f32,
}

/// `x` clamped to `[0, 1]`, NaN to 0.
fn unit(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// The Charlie distribution at `cos θh = z` for `α`.
#[inline]
fn charlie(alpha: f32, z: f32) -> f32 {
    let sin2 = (1.0 - z * z).max(0.0);
    // sin^(1/α) = (sin²)^(1/(2α)).
    (2.0 + 1.0 / alpha) * sin2.powf(0.5 / alpha) * (0.5 * FRAC_1_PI)
}

/// The sheen lobe alone, weight 1, for `mu_o`, `mu_i` > 0.
#[inline]
pub(super) fn lobe(alpha: f32, wo: Vec3, wi: Vec3) -> f32 {
    let h = (wo + wi).normalize_or_zero();
    if h == Vec3::ZERO {
        return 0.0;
    }
    let (mu_o, mu_i) = (wo.z, wi.z);
    charlie(alpha, h.z) / (4.0 * (mu_o + mu_i - mu_o * mu_i))
}

impl Sheen {
    /// The sheen's `α` (its roughness squared, at least 0.01).
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// Cloth of base albedo `base` (linear RGB, each channel clamped to `[0, 1]`, NaN to 0),
    /// white sheen of weight `sheen` (clamped likewise) and roughness `roughness` (`α =
    /// roughness²`, at least 0.01).
    pub fn new(base: Vec3, sheen: f32, roughness: f32) -> Sheen {
        let base = Vec3::new(unit(base.x), unit(base.y), unit(base.z));
        let weight = unit(sheen);
        let r = unit(roughness);
        let alpha = (r * r).max(ALPHA_MIN);
        let mut raw = [0.0f32; N_MU];
        for (k, a) in raw.iter_mut().enumerate() {
            let x = k as f32 / (N_MU - 1) as f32;
            *a = directional_albedo(alpha, (x * x).max(1e-4));
        }
        // Charlie with this visibility reflects more than it receives at grazing views when
        // sharp (E ≈ 1.41 at the horizon for α = 0.09): the whole lobe is scaled down by its
        // largest albedo, a constant, so it stays reciprocal and never exceeds 1.
        let peak = raw.iter().fold(1.0f32, |m, &e| m.max(e));
        let lobe_scale = weight / peak;
        let albedo = raw.map(|e| (lobe_scale * e).clamp(0.0, 1.0));
        // Ē of the interpolant, linear in x = √μ: ∫ e 2μ dμ = ∫ e 4x³ dx per segment, exactly.
        let mut avg = 0.0f64;
        let h = 1.0 / (N_MU - 1) as f64;
        for k in 0..N_MU - 1 {
            let (x0, x1) = (k as f64 * h, (k + 1) as f64 * h);
            let (e0, e1) = (albedo[k] as f64, albedo[k + 1] as f64);
            let slope = (e1 - e0) / h;
            let a = e0 - slope * x0;
            avg += a * (x1.powi(4) - x0.powi(4)) + slope * 0.8 * (x1.powi(5) - x0.powi(5));
        }
        let one_minus = 1.0 - avg as f32;
        let base_norm = if one_minus > 1e-6 {
            FRAC_1_PI / one_minus
        } else {
            0.0
        };
        Sheen {
            base,
            alpha,
            lobe_scale,
            albedo,
            base_norm,
        }
    }

    /// The base albedo.
    pub fn base(&self) -> Vec3 {
        self.base
    }

    /// `s E(μ)`: the sheen's albedo at `μ` (interpolated), in `[0, 1]`.
    pub fn sheen_albedo(&self, mu: f32) -> f32 {
        let x = mu.clamp(0.0, 1.0).sqrt() * (N_MU - 1) as f32;
        let i = (x as usize).min(N_MU - 2);
        let t = x - i as f32;
        (1.0 - t) * self.albedo[i] + t * self.albedo[i + 1]
    }

    /// The probability of drawing the sheen lobe at `μo`, from the two albedos there.
    #[inline]
    fn sheen_probability(&self, e_o: f32) -> f32 {
        let ws = e_o;
        let wb = luminance(self.base) * (1.0 - e_o);
        if ws + wb > 0.0 {
            ws / (ws + wb)
        } else {
            0.5
        }
    }

    /// `(f, pdf)` for a pair in the upper hemisphere.
    #[inline]
    fn eval(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        let e_o = self.sheen_albedo(wo.z);
        let e_i = self.sheen_albedo(wi.z);
        let sheen = self.lobe_scale * lobe(self.alpha, wo, wi);
        let base = self.base * (self.base_norm * (1.0 - e_o) * (1.0 - e_i));
        let p = self.sheen_probability(e_o);
        let pdf = p * (0.5 * FRAC_1_PI) + (1.0 - p) * wi.z * FRAC_1_PI;
        (Vec3::splat(sheen) + base, pdf)
    }
}

/// `E(μ)` of the sheen lobe at weight 1: ∫ f cos θi dωi by a midpoint rule in `μi` (with
/// `μi = v²`, dense at the horizon where the lobe lives) and azimuth (over a half turn, the
/// lobe being symmetric about the plane of `wo`).
pub(super) fn directional_albedo(alpha: f32, mu: f32) -> f32 {
    const NV: usize = 96;
    const NPHI: usize = 96;
    let wo = Vec3::new((1.0 - mu * mu).max(0.0).sqrt(), 0.0, mu);
    let mut sum = 0.0f64;
    for a in 0..NV {
        let v = (a as f32 + 0.5) / NV as f32;
        let mu_i = v * v;
        let s = (1.0 - mu_i * mu_i).max(0.0).sqrt();
        for b in 0..NPHI {
            let phi = (b as f32 + 0.5) / NPHI as f32 * PI;
            let wi = Vec3::new(s * phi.cos(), s * phi.sin(), mu_i);
            // dω = dμi dφ = 2v dv dφ, both halves of the turn.
            let w = lobe(alpha, wo, wi) * mu_i * 2.0 * v;
            sum += w as f64;
        }
    }
    (sum * 2.0 * (PI as f64 / NPHI as f64) / NV as f64) as f32
}

/// A direction drawn uniformly over the upper hemisphere (density `1/(2π)`).
pub(super) fn uniform_hemisphere(u: Vec2) -> Vec3 {
    let z = u.x;
    let r = (1.0 - z * z).max(0.0).sqrt();
    let (sin_phi, cos_phi) = crate::sampling::trig::sin_cos_turn(u.y);
    Vec3::new(r * cos_phi, r * sin_phi, z)
}

impl Bxdf for Sheen {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        self.f_pdf(wo, wi).0
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        if !positive(wo.z) || !wo.is_finite() {
            return None;
        }
        let p = self.sheen_probability(self.sheen_albedo(wo.z));
        let diffuse = uc >= p;
        let wi = if diffuse {
            warp::cosine_hemisphere(u)
        } else {
            uniform_hemisphere(u)
        };
        if !positive(wi.z) {
            return None;
        }
        let (f, pdf) = self.eval(wo, wi);
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
        self.f_pdf(wo, wi).1
    }

    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        if !positive(wo.z) || !positive(wi.z) || !wo.is_finite() || !wi.is_finite() {
            return (Vec3::ZERO, 0.0);
        }
        self.eval(wo, wi)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::ODD_VALUES;
    use super::super::testutil::{
        albedo, assert_finite_on_odd_dirs, assert_reciprocal, chi2_bxdf, dir, Rng,
    };
    use super::*;

    #[test]
    fn white_furnace_is_one_and_never_above() {
        for roughness in [0.3, 0.6, 1.0] {
            for weight in [0.5, 1.0] {
                let c = Sheen::new(Vec3::ONE, weight, roughness);
                for mu in [1.0, 0.6, 0.25, 0.05] {
                    let (a, se) = albedo(&c, dir(mu, 0.7), 200_000, 21);
                    let m = a.max_element();
                    eprintln!("sheen r {roughness} s {weight} μ {mu}: albedo {m:.5} ± {se:.5}");
                    assert!((m - 1.0).abs() < 0.01, "r {roughness} μ {mu}: {m}");
                    assert!(
                        m <= 1.0 + 3.0 * se + 2e-3,
                        "r {roughness} μ {mu}: {m} ± {se}"
                    );
                }
            }
        }
    }

    /// The `cord` family's lobe (sheen 1, roughness 0.5, the family's defaults): lossless
    /// when white, sampled by its pdf, reciprocal.
    #[test]
    fn the_cords_defaults_are_lossless_sampled_and_reciprocal() {
        let white = Sheen::new(Vec3::ONE, 1.0, 0.5);
        for mu in [1.0, 0.5, 0.15, 0.03] {
            let (a, se) = albedo(&white, dir(mu, 0.3), 200_000, 23);
            let m = a.max_element();
            assert!((m - 1.0).abs() < 0.01, "μ {mu}: {m}");
            assert!(m <= 1.0 + 3.0 * se + 2e-3, "μ {mu}: {m} ± {se}");
        }
        let c = Sheen::new(Vec3::new(0.6, 0.5, 0.3), 1.0, 0.5);
        for (i, mu) in [0.9f32, 0.1].into_iter().enumerate() {
            chi2_bxdf(
                &format!("cord {i}"),
                &c,
                dir(mu, 0.2),
                300_000,
                2,
                140 + i as u64,
            );
        }
        let mut rng = Rng::new(33);
        for _ in 0..2000 {
            assert_reciprocal(&c, rng.upper_dir(), rng.upper_dir());
        }
    }

    #[test]
    fn sheen_alone_reflects_its_tabulated_albedo() {
        // A black base: what is reflected is the sheen alone, and matches its table.
        let c = Sheen::new(Vec3::ZERO, 1.0, 0.7);
        for mu in [0.9, 0.4, 0.1] {
            let (a, se) = albedo(&c, dir(mu, 0.0), 400_000, 22);
            let e = c.sheen_albedo(mu);
            assert!((a.x - e).abs() < 4.0 * se + 5e-3, "μ {mu}: {} vs {e}", a.x);
            assert!(e > 0.01 && e < 1.0, "{e}");
        }
    }

    #[test]
    fn sampling_passes_chi2_and_is_reciprocal() {
        let c = Sheen::new(Vec3::new(0.3, 0.2, 0.6), 1.0, 0.6);
        for (i, mu) in [0.8f32, 0.2].into_iter().enumerate() {
            chi2_bxdf(
                &format!("sheen {i}"),
                &c,
                dir(mu, 0.4),
                300_000,
                2,
                120 + i as u64,
            );
        }
        let mut rng = Rng::new(31);
        for _ in 0..2000 {
            let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
            assert_reciprocal(&c, wo, wi);
            if let Some(s) = c.sample_f(wo, rng.f32(), rng.vec2()) {
                assert_eq!((s.f, s.pdf), c.f_pdf(wo, s.wi));
            }
        }
    }

    #[test]
    fn odd_inputs_stay_finite() {
        let mut rng = Rng::new(32);
        for &x in &ODD_VALUES {
            let c = Sheen::new(Vec3::splat(x), x, x);
            assert_finite_on_odd_dirs(&c, &mut rng);
        }
    }
}
