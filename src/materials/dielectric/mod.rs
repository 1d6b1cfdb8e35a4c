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
//! - **Multiple scattering** (rough only): single scattering drops the light that would
//!   scatter again between facets (up to 68 % from inside at roughness 1, η = 2). A
//!   compensation lobe returns it: with `E(w)` the single-scattering energy albedo at `w`
//!   (tabulated for each side over roughness, `η` and `√|μ|`, bounded from above) and `η_w` the
//!   index on `w`'s side,
//!   `f_ms(wo, wi) = η_o² (1 − E(wo)) (1 − E(wi)) / D`, `D = ∫ (1 − E(w)) η_w² |μ| dω` over the
//!   whole sphere `= π (1 − E_avg,out) + η² π (1 − E_avg,in)`. Its energy albedo is exactly
//!   `1 − E(wo)` from either side, and `f_ms/η_o²` is symmetric, so reflection stays
//!   reciprocal and transmission keeps the generalised reciprocity. It is chosen with
//!   probability `1 − E(wo)` (its energy), and draws the outside with probability
//!   `π (1 − E_avg,out)/D` (inside otherwise), then `μi` with density `∝ (1 − E(μi)) |μi|`
//!   piecewise over the table's segments. See `docs/materials.md`, "Rough dielectric:
//!   multiple-scattering compensation".
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

mod multiscatter;

use multiscatter::{MultiScatter, N_MU, N_ROWS};

/// A dielectric interface in local shading space: outside (index 1) on +Z, the medium of
/// index `eta` on −Z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dielectric {
    /// Index of refraction of the medium relative to the outside: 1 (matched) or in
    /// `[IOR_MATCHED_BELOW, IOR_MAX]`.
    eta: f32,
    /// The microfacet distribution (`α = roughness²`).
    ggx: Ggx,
    /// The multiple-scattering compensation ([`MultiScatter::OFF`] for delta interfaces).
    ms: MultiScatter,
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

/// `∫ g(μi) f_ss (η_i/η_o)² |μi| dωi`: the power the single-scattering lobes of an interface of
/// index `eta` and facets `ggx` send on from a `wo` at signed cosine `mu_o` (outside when
/// positive) in the xz plane, each direction weighted by `g` of its signed cosine. Quadrature
/// over the visible normals: each normal `m` reflects with weight `F(wo·m)` and refracts with
/// `1 − F`, each worth `G2/G1(wo)` if the direction leaves on the right side, which is
/// `f |μi| (η_i/η_o)² / pdf` of either lobe. [`Ggx::visible_normal_mean`] on `n_phi` azimuths
/// over half the circle (`g` depends on `μi` only and `wo` lies in the xz plane, so the
/// integrand is even in azimuth: this is `2 n_phi` over the whole) times `n_v` cap heights.
/// The integrand jumps (total internal reflection, directions cut at the horizon),
/// so the rule converges only like `1/n`: 16 azimuths are 1 % off, 128 about 10⁻⁴.
fn single_scattering_power(
    eta: f32,
    ggx: &Ggx,
    mu_o: f64,
    g: impl Fn(f32) -> f64,
    n_phi: usize,
    n_v: usize,
) -> f64 {
    let amu = mu_o.abs().min(1.0);
    if amu.is_nan() || amu <= 0.0 {
        return 0.0;
    }
    let up = Vec3::new((1.0 - amu * amu).max(0.0).sqrt() as f32, 0.0, amu as f32);
    let wo = if mu_o > 0.0 { up } else { -up };
    let so = ggx.s(wo);
    let g2_over_g1 = |wi: Vec3| -> f64 {
        let aci = wi.z.abs();
        (aci * (up.z + so) / (aci * so + up.z * ggx.s(wi))) as f64
    };
    // Visible normals as seen from wo's side (from inside, as seen by −wo = up).
    ggx.visible_normal_mean(up, n_phi, n_v, 0.5, |m| {
        let dot_o = wo.dot(m);
        let r = fresnel_signed(dot_o, eta) as f64;
        let wr = 2.0 * dot_o * m - wo;
        let mut e = 0.0;
        if wr.z * wo.z > 0.0 {
            e += r * g2_over_g1(wr) * g(wr.z);
        }
        let wt = if dot_o >= 0.0 {
            refract(wo, m, eta)
        } else {
            refract(wo, -m, 1.0 / eta)
        };
        if let Some(wt) = wt {
            if wt.z * wo.z < 0.0 {
                e += (1.0 - r) * g2_over_g1(wt) * g(wt.z);
            }
        }
        e
    })
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
        let ggx = Ggx::new(roughness * roughness);
        let ms = if eta == 1.0 || ggx.alpha() < SMOOTH_ALPHA {
            MultiScatter::OFF
        } else {
            MultiScatter::new(eta, roughness)
        };
        Dielectric { eta, ggx, ms }
    }

    /// The medium's index relative to the outside (1 when index matched).
    pub fn eta(&self) -> f32 {
        self.eta
    }

    /// The GGX width `α`.
    pub fn alpha(&self) -> f32 {
        self.ggx.alpha()
    }

    /// The exact unpolarised Fresnel reflectance for `wo` at signed cosine `cos` (outside when
    /// positive; 1 beyond the critical angle inside, 0 when index matched): the probability
    /// of a smooth interface's mirror draw.
    pub fn reflectance(&self, cos: f32) -> f32 {
        if self.eta == 1.0 || cos.is_nan() {
            return 0.0;
        }
        fresnel_signed(cos, self.eta)
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

    /// `∫ g(μi) f(wo, wi) (η_i/η_o)² |μi| dωi` for a `wo` at signed cosine `mu_o` (outside when
    /// positive): the power the interface sends on from `wo`, each direction weighted by `g` of
    /// its signed cosine. A layer over the interface uses it to tabulate what it takes from or
    /// gives back to the light the interface scatters (`g ≡ 1` is the energy albedo).
    ///
    /// Deterministic: exact for a delta interface; for a rough one, the single-scattering
    /// lobes by the midpoint rule over `2 n_phi × n_v` visible normals (`wo` lies in the xz
    /// plane and `g` depends on `μi` only, so half the azimuths suffice; both branches are taken
    /// at every normal, weighted by their Fresnel shares, so no draw decides between them),
    /// and the compensation lobe by the midpoint rule in `√|μ|` on each side.
    pub(crate) fn weighted_power(
        &self,
        mu_o: f32,
        g: impl Fn(f32) -> f64,
        n_phi: usize,
        n_v: usize,
    ) -> f64 {
        let amu = if mu_o.is_nan() {
            0.0
        } else {
            mu_o.abs().min(1.0)
        };
        if on_horizon(amu) {
            return 0.0;
        }
        let up = Vec3::new((1.0 - amu * amu).max(0.0).sqrt(), 0.0, amu);
        let wo = if mu_o > 0.0 { up } else { -up };
        if self.eta == 1.0 {
            return g(-wo.z);
        }
        if self.is_specular() {
            let r = fresnel_signed(wo.z, self.eta);
            let (n, etap) = if wo.z > 0.0 {
                (Vec3::Z, self.eta)
            } else {
                (-Vec3::Z, 1.0 / self.eta)
            };
            let through = refract(wo, n, etap).map_or(0.0, |wt| (1.0 - r) as f64 * g(wt.z));
            return r as f64 * g(wo.z) + through;
        }
        let single = single_scattering_power(self.eta, &self.ggx, mu_o as f64, &g, n_phi, n_v);
        if self.ms.inv_d == 0.0 {
            return single;
        }
        // The compensation lobe: η_i² (1 − E(wo)) (1 − E(wi)) / D per unit projected solid
        // angle of wi, integrated over each side in x = √|μ| (2π μ dμ = 4π x³ dx).
        const N_X: usize = 256;
        let mut multi = 0.0f64;
        for (sign, eta_i2) in [(1.0f32, 1.0f64), (-1.0, (self.eta * self.eta) as f64)] {
            let mut side = 0.0f64;
            for k in 0..N_X {
                let x = (k as f64 + 0.5) / N_X as f64;
                let mu = sign * (x * x) as f32;
                side += (1.0 - self.ms.e(mu)) as f64 * g(mu) * 4.0 * x * x * x;
            }
            multi += eta_i2 * side * std::f64::consts::PI / N_X as f64;
        }
        single + (1.0 - self.ms.e(wo.z)) as f64 * self.ms.inv_d as f64 * multi
    }

    /// `(f, pdf)` of the single-scattering lobes alone (no compensation; `pdf` as if they were
    /// always chosen), for any inputs: what Walter's formulas give, for tests against them.
    #[cfg(test)]
    pub(crate) fn single_scattering(&self, wo: Vec3, wi: Vec3) -> (f32, f32) {
        self.eval_single(unit(wo), unit(wi))
    }

    /// `(f, pdf)` of the whole BSDF for unit `wo`, `wi`: single scattering plus the
    /// compensation lobe, and the sampling mixture's density (`1 − E(wo)` for the cosine
    /// lobes, `E(wo)` for the visible normals). Zero on the horizon and for delta interfaces.
    fn eval_unit(&self, wo: Vec3, wi: Vec3) -> (f32, f32) {
        self.eval_unit_with(wo, wi, || self.ms.e(wo.z))
    }

    /// [`Dielectric::eval_unit`] with `E(wo)` from `e_wo`, which a sample has at hand (the
    /// same function of `wo.z`, so the result is the same bit for bit); only called when the
    /// compensation applies.
    fn eval_unit_with(&self, wo: Vec3, wi: Vec3, e_wo: impl FnOnce() -> f32) -> (f32, f32) {
        let (f_ss, pdf_ss) = self.eval_single(wo, wi);
        let (co, ci) = (wo.z, wi.z);
        if self.ms.inv_d == 0.0 || on_horizon(co) || on_horizon(ci) {
            return (f_ss, pdf_ss);
        }
        let e_o = e_wo();
        let (e_i, mean_i) = self.ms.e_and_segment_mean(ci);
        let eta2 = self.eta * self.eta;
        let eta_o2 = if co > 0.0 { 1.0 } else { eta2 };
        let f_ms = eta_o2 * (1.0 - e_o) * (1.0 - e_i) * self.ms.inv_d;
        // The compensation draw's density: side s with probability D_s/D (D_s = η_s² π
        // (1 − E_avg,s)), then (1 − E) μ piecewise over that side's hemisphere, normalised by
        // π (1 − E_avg,s): together η_s² (mean of 1 − E on μi's segment) |μi| / D.
        let eta_i2 = if ci > 0.0 { 1.0 } else { eta2 };
        let pdf_ms = eta_i2 * mean_i * ci.abs() * self.ms.inv_d;
        let pdf = e_o * pdf_ss + (1.0 - e_o) * pdf_ms;
        (f_ss + f_ms, pdf)
    }

    /// `(f, pdf)` of the single-scattering lobes for unit `wo`, `wi`: zero on the horizon and
    /// for delta interfaces.
    fn eval_single(&self, wo: Vec3, wi: Vec3) -> (f32, f32) {
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
        // The compensation lobe with probability 1 − E(wo), its energy share: on the outside
        // with probability p_out, else inside; there with density ∝ (1 − E(μi)) |μi|.
        let e_o = if self.ms.inv_d > 0.0 {
            self.ms.e(wo.z)
        } else {
            1.0
        };
        let p_ms = 1.0 - e_o;
        if uc < p_ms {
            let outside = uc < p_ms * self.ms.p_out;
            let side = if outside { 0 } else { N_ROWS * N_MU };
            let mu = self.ms.sample_mu(side, u.x)?;
            let sin = (1.0 - mu * mu).max(0.0).sqrt();
            let (sin_phi, cos_phi) = crate::sampling::trig::sin_cos_turn(u.y);
            let z = if outside { mu } else { -mu };
            let wi = unit(Vec3::new(sin * cos_phi, sin * sin_phi, z));
            if on_horizon(wi.z) {
                return None;
            }
            let (f, pdf) = self.eval_unit_with(wo, wi, || e_o);
            if !positive(pdf) || !positive(f) {
                return None;
            }
            return Some(BsdfSample {
                wi,
                f: Vec3::splat(f),
                pdf,
                specular: false,
                diffuse: true,
            });
        }
        // Reuse uc for the Fresnel choice: uniform in [0, 1) again given this branch.
        let uc = (uc - p_ms) / (1.0 - p_ms);
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
        let (f, pdf) = self.eval_unit_with(wo, wi, || e_o);
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
mod tests;
