//! A clear coat over a transmitting reflecting base (issue 15): the [`CoatLayer`] of
//! `clearcoat`, `clearcoat_roughness` and `ior` on the outside face (+Z) of a [`Translucent`]
//! `plain` base, as pbrt-v4's coated BSDFs, OpenPBR's coat and Cycles' principled BSDF put a
//! coat over a transmitting base.
//!
//! ```text
//! both outside:  f = f_coat + min(T(μo), T(μi)) f_t + L(μo) L(μi) / (π ∫ L 2μ dμ) + f_horizon
//! crossing:      f = T(μ_outside) f_t
//! both inside:   f = f_t + tint² K(|μo|) K(|μi|) / (π ∫ K 2μ dμ)
//! T(μ) = 1 − w E_c(μ)
//! L(μo) = ∫ max(0, T(μo) − T(μi)) f_t μi dωi                      over the outside, per channel
//! K(μo) = ∫ (1 − T(μi)) f_t|tint=1 (η_i/η_o)² |μi| dωi             from inside, over the outside
//! ```
//!
//! `f_t` is the uncoated [`Translucent`]: the base's reflection blended with the dielectric
//! interface of `specular`'s index. The coat is [`super::super::Glass`]'s generalised from the
//! bare interface to the whole translucent lobe:
//! - From outside the coat reflects `w E_c(μo)` and lets `T(μo)` through to the translucent
//!   base, which reflects (back through the coat) or transmits it. Its reflection is weighted
//!   by `min(T(μo), T(μi))` (symmetric, so reciprocal), and the separable lobe `L` gives back
//!   what the `min` drops; its transmission by `T` of the outside direction. The albedo is
//!   `w E_c + T (A_R + A_T)` (up to the tables' accuracy): 1 for a white base.
//! - **The back side.** The coat lies on the outside of the face that carries the material,
//!   and light leaving the body through that face crosses it too: the transmission out is
//!   weighted by `T` of the outside direction, and the light the coat reflects back in is
//!   returned by the separable inside lobe `K` (tinted twice: out through the interface and
//!   back in). A sheet of lacquered wood coated on its front only is a sheet whose back faces
//!   carry the material without its coat. Coating one direction of a face and not the other
//!   would break the generalised reciprocity of the crossing (`f(wo, wi)/η_o² = f(wi,
//!   wo)/η_i²`, which the coat's `T(μ_outside)` keeps, being a function of the one outside
//!   direction) and would make a body's look depend on which way light went through it.
//! - `f_horizon` is the coat's own horizon lobe, as under `lacquer`.
//! - `L` and `K` are tabulated per material by a deterministic quadrature through the
//!   translucent base's own sampling (a Hammersley set, weighted by its mixture pdf): `L` at
//!   nodes in `√μ` per channel, `K` at nodes in `|μ|` up to the critical angle and in the
//!   outside cosine beyond it, lowered until its chords lie below the
//!   quadrature at the eighths of each segment (a smooth interface's `K` kinks at the critical
//!   angle), and both scaled down by [`MARGIN`] so the quadrature's error cannot lift an
//!   albedo above 1.
//!
//! The base is rebuilt from its parameters on each call (about as much as one evaluation of
//! it): stored, it and the tables would not fit the 248 bytes of a `Bxdfs`.

use glam::{DVec3, Vec2, Vec3};
use rayon::prelude::*;
use std::f32::consts::FRAC_1_PI;

use super::super::albedo::axis;
use super::super::coat::{inverse, lower_envelope, weighted_integrals, CoatLayer};
use super::super::glass::{critical_cosine, inside_cosine, outside_cosine};
use super::super::{positive, BsdfSample, Bxdf};
use super::Translucent;
use crate::sampling::warp;

#[cfg(test)]
mod tests;

/// Nodes of the outside compensation `L` along `x = √μ` (node 0 is `μ = 0`, where `L = 0`).
const N_OUT: usize = 10;
/// Nodes of the inside compensation `K`: [`N_IN_NEG`] segments evenly in `|μ|` up to the
/// critical angle, the rest evenly in the outside cosine that `μ` refracts to, where a smooth
/// interface's `K` is smooth (it kinks at the critical angle and rises steeply past it in
/// `|μ|`, where a smooth body's trapped light meets its faces most).
const N_IN: usize = 24;
/// See [`N_IN`].
const N_IN_NEG: usize = 8;
/// The tables' fixed-point scale: `L` and `K` lie in `[0, 1]`.
const COMP_SCALE: f32 = 65535.0;
/// Points of the quadrature per node of `L` (the Hammersley set through the base's sampling).
const N_QUAD_OUT: usize = 4096;
/// Points of the quadrature per node (and per eighth of a segment) of `K`.
const N_QUAD_IN: usize = 1024;
/// The share of each quadrature kept: its error (a few 10⁻⁴ of the light) must not lift an
/// albedo above 1, and giving back 0.5 % less of `L` or `K` loses under 5·10⁻⁴.
const MARGIN: f64 = 0.995;

/// The uncoated base's parameters, as [`Translucent::new`] takes them (already checked to
/// transmit): rebuilt on each call, see the module's notes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Recipe {
    base: Vec3,
    tint: Vec3,
    roughness: f32,
    metalness: f32,
    specular: f32,
    fresnel_power: f32,
    transmission: f32,
}

impl Recipe {
    /// The uncoated translucent base, tinted by `tint`.
    #[inline]
    fn build(&self, tint: Vec3) -> Option<Translucent> {
        Translucent::new(
            self.base,
            self.roughness,
            self.metalness,
            self.specular,
            self.fresnel_power,
            self.transmission,
            tint,
        )
    }
}

/// A clear coat over a [`Translucent`] `plain` base, in local shading space: the outside
/// (index 1, the coat) on +Z, the body on −Z. See the module's notes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoatedTranslucent {
    /// The base's parameters.
    recipe: Recipe,
    /// The coat; weight 0 makes every method the uncoated base's own.
    coat: CoatLayer,
    /// `L` at its nodes per channel, times `COMP_SCALE`.
    outside: [[u16; 3]; N_OUT],
    /// `1 / (π ∫ L 2μ dμ)` per channel; 0 switches the outside lobe off in that channel.
    outside_norm: Vec3,
    /// `K` at its nodes, times `COMP_SCALE`.
    inside: [u16; N_IN],
    /// `1 / (π ∫ K 2μ dμ)`; 0 switches the inside lobe off.
    inside_norm: f32,
    /// The base's interface index, which places `K`'s nodes.
    eta: f32,
}

/// The radical inverse of `k` in `base` (van der Corput), in `[0, 1)`.
fn radical_inverse(mut k: u32, base: u32) -> f32 {
    let inv = 1.0 / base as f64;
    let (mut scale, mut x) = (inv, 0.0f64);
    while k > 0 {
        x += (k % base) as f64 * scale;
        k /= base;
        scale *= inv;
    }
    (x as f32).min(1.0 - f32::EPSILON / 2.0)
}

/// `∫ b(wi) f (η_i/η_o)² |μi| dωi` at `wo` over `n` points of the Hammersley set `((k + ½)/n,
/// φ₂(k), φ₃(k))` drawn through `tr`'s own sampling and weighted by its mixture pdf (delta
/// draws by their discrete probability): deterministic, and right for every base.
fn quadrature(tr: &Translucent, wo: Vec3, n: usize, b: impl Fn(Vec3) -> f32) -> DVec3 {
    let mut sum = DVec3::ZERO;
    for k in 0..n {
        let uc = (k as f32 + 0.5) / n as f32;
        let u = Vec2::new(radical_inverse(k as u32, 2), radical_inverse(k as u32, 3));
        let Some(s) = tr.sample_f(wo, uc, u) else {
            continue;
        };
        let weight = b(s.wi);
        if weight > 0.0 && positive(s.pdf) {
            let e = tr.interface().relative_eta(wo, s.wi);
            sum += (s.f * (weight * s.wi.z.abs() / s.pdf * e * e)).as_dvec3();
        }
    }
    sum / n as f64
}

/// `|μ|` inside at `K`'s node coordinate `s` in `[0, N_IN − 1]` for index `eta`.
fn inside_at(s: f32, eta: f32) -> f32 {
    let neg = N_IN_NEG as f32;
    if s <= neg {
        critical_cosine(eta) * s / neg
    } else {
        inside_cosine((s - neg) / (N_IN - 1 - N_IN_NEG) as f32, eta)
    }
}

/// The inverse of [`inside_at`]: `K`'s node coordinate of `|μ| = mu`.
fn inside_coord(mu: f32, eta: f32) -> f32 {
    let (neg, c) = (N_IN_NEG as f32, critical_cosine(eta));
    if mu < c {
        neg * mu / c
    } else {
        neg + outside_cosine(mu, eta).max(0.0) * (N_IN - 1 - N_IN_NEG) as f32
    }
}

/// The unit direction at cosine `mu` to the normal in the xz-plane.
fn at_cosine(mu: f32) -> Vec3 {
    Vec3::new((1.0 - mu * mu).max(0.0).sqrt(), 0.0, mu)
}

impl CoatedTranslucent {
    /// [`Translucent::new`]'s `plain` base (its parameters clamped as it clamps them) under a
    /// clear coat of weight `clearcoat`, roughness `clearcoat_roughness` and index `ior`
    /// (clamped as [`super::super::Coated::new`] clamps them). `None` when nothing is
    /// transmitted (`transmission · (1 − metalness) = 0`): the surface is then the opaque
    /// [`super::super::Coated`]. Weight 0, or an index-matched coat, gives the uncoated
    /// [`Translucent`] bit for bit. Tabulating `L` and `K` costs a few ms.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        base: Vec3,
        roughness: f32,
        metalness: f32,
        specular: f32,
        fresnel_power: f32,
        transmission: f32,
        tint: Vec3,
        clearcoat: f32,
        clearcoat_roughness: f32,
        ior: f32,
    ) -> Option<CoatedTranslucent> {
        let recipe = Recipe {
            base,
            tint,
            roughness,
            metalness,
            specular,
            fresnel_power,
            transmission,
        };
        let tr = recipe.build(tint)?;
        let mut coated = CoatedTranslucent {
            recipe,
            coat: CoatLayer::new(clearcoat, clearcoat_roughness, ior),
            outside: [[0; 3]; N_OUT],
            outside_norm: Vec3::ZERO,
            inside: [0; N_IN],
            inside_norm: 0.0,
            eta: tr.interface().eta(),
        };
        if coated.coat.weight() > 0.0 {
            coated.tabulate(&tr);
        }
        Some(coated)
    }

    /// The uncoated base (its colour is the surface's albedo, its interface the one light
    /// crosses under the coat).
    pub fn translucent(&self) -> Translucent {
        // Checked to transmit when built, so always `Some`.
        self.recipe
            .build(self.recipe.tint)
            .expect("a CoatedTranslucent's base transmits")
    }

    /// Whether a clear coat lies on the outside face.
    pub fn is_coated(&self) -> bool {
        self.coat.weight() > 0.0
    }

    /// What a shadow ray keeps crossing this surface at cosine `cos` to its normal (with
    /// `[trace] transmissive_shadows`): the base's [`Translucent::shadow_transmittance`] times
    /// what the coat lets through at `|cos|`.
    pub fn shadow_transmittance(&self, cos: f32) -> Vec3 {
        let c = if cos.is_nan() { 0.0 } else { cos.abs() };
        self.translucent().shadow_transmittance(cos) * self.coat.transmittance(c)
    }

    /// Fills `L`, `K` and their normalisations (for a coat of positive weight).
    fn tabulate(&mut self, tr: &Translucent) {
        let coat = self.coat;
        let t = move |mu: f32| coat.transmittance(mu);
        // Each node's quadrature is deterministic, so the tables do not depend on the thread
        // count.
        let l: Vec<DVec3> = (1..N_OUT)
            .into_par_iter()
            .map(|i| {
                let x = i as f32 / (N_OUT - 1) as f32;
                let t_o = t(x * x);
                let dropped = |wi: Vec3| {
                    if wi.z > 0.0 {
                        (t_o - t(wi.z)).max(0.0)
                    } else {
                        0.0
                    }
                };
                quadrature(tr, at_cosine(x * x), N_QUAD_OUT, dropped) * MARGIN
            })
            .collect();
        let quantise = |v: f64| (v.clamp(0.0, 1.0) * COMP_SCALE as f64).floor() as u16;
        let outside: [[u16; 3]; N_OUT] = std::array::from_fn(|i| {
            if i == 0 {
                [0; 3]
            } else {
                l[i - 1].to_array().map(quantise)
            }
        });
        // K of the untinted base: the crossing's tint is applied where the lobe is drawn.
        let Some(clear) = self.recipe.build(Vec3::ONE) else {
            return;
        };
        let reflected = |wi: Vec3| if wi.z > 0.0 { 1.0 - t(wi.z) } else { 0.0 };
        // K at every eighth of a segment; node 0 holds the limit at the horizon.
        let eta = self.eta;
        let samples: Vec<f64> = (0..=(N_IN - 1) * 8)
            .into_par_iter()
            .map(|j| {
                let mu = inside_at(j as f32 / 8.0, eta).max(1e-3);
                quadrature(&clear, -at_cosine(mu), N_QUAD_IN, reflected).x * MARGIN
            })
            .collect();
        let mut k: Vec<f64> = (0..N_IN).map(|i| samples[8 * i]).collect();
        let eighths: Vec<Vec<(f64, f64)>> = (0..N_IN - 1)
            .map(|i| {
                (1..8)
                    .map(|j| (j as f64 / 8.0, samples[8 * i + j]))
                    .collect()
            })
            .collect();
        lower_envelope(&mut k, &eighths);
        let inside: [u16; N_IN] = std::array::from_fn(|i| quantise(k[i]));

        let ones = [1.0f64; N_OUT];
        let norm = |c: usize| {
            let curve = outside.map(|v| v[c] as f64 / COMP_SCALE as f64);
            inverse(weighted_integrals(&curve, &ones).0, 1.0) * FRAC_1_PI
        };
        let outside_norm = Vec3::new(norm(0), norm(1), norm(2));
        // ∫ K 2μ dμ = ∫ K d(μ²) over the node coordinate, where K is linear and μ² smooth: per
        // segment, K's interpolant against the exact difference of μ² at 64 steps (as coated
        // glass's table).
        let mut integral = 0.0f64;
        for i in 0..N_IN - 1 {
            let (a, b) = (
                inside[i] as f64 / COMP_SCALE as f64,
                inside[i + 1] as f64 / COMP_SCALE as f64,
            );
            const STEPS: usize = 64;
            let mu2 = |t: f64| (inside_at(i as f32 + t as f32, eta) as f64).powi(2);
            for j in 0..STEPS {
                let (t0, t1) = (j as f64 / STEPS as f64, (j + 1) as f64 / STEPS as f64);
                integral += (a + (b - a) * 0.5 * (t0 + t1)) * (mu2(t1) - mu2(t0));
            }
        }
        let inside_norm = inverse(integral, 1.0) * FRAC_1_PI;
        if outside_norm.is_finite() && inside_norm.is_finite() {
            self.outside = outside;
            self.outside_norm = outside_norm;
            self.inside = inside;
            self.inside_norm = inside_norm;
        }
    }

    /// `L(mu)` per channel for `mu` outside, from the table (0 in a channel without the lobe).
    fn outside_comp(&self, mu: f32) -> Vec3 {
        if self.outside_norm == Vec3::ZERO {
            return Vec3::ZERO;
        }
        let x = if mu.is_nan() {
            0.0
        } else {
            mu.clamp(0.0, 1.0).sqrt()
        };
        let (i, t) = axis(x, N_OUT);
        let (a, b) = (self.outside[i], self.outside[i + 1]);
        let v = |c: usize| ((1.0 - t) * a[c] as f32 + t * b[c] as f32) / COMP_SCALE;
        Vec3::new(v(0), v(1), v(2))
    }

    /// `K(mu)` for `|μ| = mu` inside, from the table (0 without the lobe).
    fn inside_comp(&self, mu: f32) -> f32 {
        if self.inside_norm == 0.0 || mu.is_nan() {
            return 0.0;
        }
        let s = inside_coord(mu.clamp(0.0, 1.0), self.eta).clamp(0.0, (N_IN - 1) as f32);
        let i = (s as usize).min(N_IN - 2);
        let t = s - i as f32;
        ((1.0 - t) * self.inside[i] as f32 + t * self.inside[i + 1] as f32) / COMP_SCALE
    }

    /// The probabilities of the coat's lobe and of the cosine-drawn lobes (`L` and the coat's
    /// horizon lobe) for `wo` outside at `mu_o` (the base otherwise, with `T(μo)`): their
    /// albedos.
    fn outside_probabilities(&self, mu_o: f32) -> (f32, f32) {
        let coat = self.coat.reflectance(mu_o);
        let comp = self.outside_comp(mu_o).element_sum() / 3.0 + self.coat.slack(mu_o);
        let total = coat + self.coat.transmittance(mu_o) + comp;
        if total > 0.0 {
            (
                (coat / total).clamp(0.0, 1.0),
                (comp / total).clamp(0.0, 1.0),
            )
        } else {
            (0.0, 0.0)
        }
    }

    /// The probability of `K` for `wo` inside at `|μo| = mu_o` (the base otherwise): its mean
    /// albedo against the base's, at most 1.
    fn inside_probability(&self, mu_o: f32, tint: Vec3) -> f32 {
        let k = self.inside_comp(mu_o) * (tint * tint).element_sum() / 3.0;
        k / (1.0 + k)
    }

    /// What the coat does to the base's own `f` at `(μo, μi)`: `min(T(μo), T(μi))` on the
    /// outside, `T` of the outside direction for a crossing, 1 inside.
    fn coat_factor(&self, mu_o: f32, mu_i: f32) -> f32 {
        match (mu_o > 0.0, mu_i > 0.0) {
            (true, true) => self
                .coat
                .transmittance(mu_o)
                .min(self.coat.transmittance(mu_i)),
            (true, false) => self.coat.transmittance(mu_o),
            (false, true) => self.coat.transmittance(mu_i),
            (false, false) => 1.0,
        }
    }

    /// `f` and the mixture pdf, for a coat of positive weight over the base `tr`.
    fn eval(&self, tr: &Translucent, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        let (co, ci) = (wo.z, wi.z);
        if !(positive(co.abs()) && positive(ci.abs())) {
            return (Vec3::ZERO, 0.0);
        }
        let (ft, pt) = tr.f_pdf(wo, wi);
        let ft = ft * self.coat_factor(co, ci);
        if co > 0.0 {
            let (p_coat, p_comp) = self.outside_probabilities(co);
            let p_base = (1.0 - p_coat - p_comp).max(0.0);
            if ci < 0.0 {
                return (ft, p_base * pt);
            }
            let (coat, pdf_coat) = self.coat.reflection(wo, wi);
            let l_o = self.outside_comp(co);
            let mut comp = Vec3::splat(coat + self.coat.horizon_lobe(co, ci));
            if l_o != Vec3::ZERO {
                comp += l_o * self.outside_comp(ci) * self.outside_norm;
            }
            let pdf = p_coat * pdf_coat + p_comp * warp::cosine_hemisphere_pdf(ci) + p_base * pt;
            (ft + comp, pdf)
        } else {
            let p_k = self.inside_probability(-co, tr.tint);
            if ci > 0.0 {
                return (ft, (1.0 - p_k) * pt);
            }
            let k_o = self.inside_comp(-co);
            let comp = if k_o > 0.0 {
                tr.tint * tr.tint * (k_o * self.inside_comp(-ci) * self.inside_norm)
            } else {
                Vec3::ZERO
            };
            let pdf = p_k * (-ci) * FRAC_1_PI + (1.0 - p_k) * pt;
            (ft + comp, pdf)
        }
    }

    /// `sample_f` for a coat of positive weight over the base `tr`.
    fn sample(&self, tr: &Translucent, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        let co = wo.z;
        if !positive(co.abs()) {
            return None;
        }
        let uc = if uc.is_nan() { 0.0 } else { uc };
        let eval = |wi: Vec3| self.eval(tr, wo, wi);
        let (p_lobes, p_base) = if co > 0.0 {
            let (p_coat, p_comp) = self.outside_probabilities(co);
            if uc < p_coat {
                return super::super::sample_cosine_or_ggx(wo, false, self.coat.ggx(), u, eval);
            }
            if uc < p_coat + p_comp {
                return super::super::sample_cosine_or_ggx(wo, true, self.coat.ggx(), u, eval);
            }
            (p_coat + p_comp, (1.0 - p_coat - p_comp).max(0.0))
        } else {
            let p_k = self.inside_probability(-co, tr.tint);
            if uc < p_k {
                let c = warp::cosine_hemisphere(u);
                let wi = Vec3::new(c.x, c.y, -c.z);
                let (f, pdf) = eval(wi);
                if !positive(-wi.z) || !positive(pdf) || f == Vec3::ZERO || !f.is_finite() {
                    return None;
                }
                return Some(BsdfSample {
                    wi,
                    f,
                    pdf,
                    specular: false,
                    diffuse: true,
                });
            }
            (p_k, 1.0 - p_k)
        };
        // Remap uc to [0, 1) for the base's own choices.
        let uc = if p_lobes < 1.0 {
            ((uc - p_lobes) / (1.0 - p_lobes)).clamp(0.0, 1.0 - f32::EPSILON / 2.0)
        } else {
            0.0
        };
        let s = tr.sample_f(wo, uc, u)?;
        if s.specular {
            // A delta lobe of a smooth interface: scaled as the coat scales the base, its pdf
            // the discrete probability of this whole choice.
            let f = s.f * self.coat_factor(co, s.wi.z);
            let pdf = s.pdf * p_base;
            if f == Vec3::ZERO || !positive(pdf) || !f.is_finite() {
                return None;
            }
            return Some(BsdfSample { f, pdf, ..s });
        }
        let (f, pdf) = eval(s.wi);
        if !positive(pdf) || f == Vec3::ZERO || !f.is_finite() {
            return None;
        }
        Some(BsdfSample { f, pdf, ..s })
    }
}

impl Bxdf for CoatedTranslucent {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        self.f_pdf(wo, wi).0
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        let tr = self.translucent();
        if self.coat.weight() > 0.0 {
            self.sample(&tr, wo, uc, u)
        } else {
            tr.sample_f(wo, uc, u)
        }
    }

    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        self.f_pdf(wo, wi).1
    }

    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        let tr = self.translucent();
        if self.coat.weight() > 0.0 {
            self.eval(&tr, wo, wi)
        } else {
            tr.f_pdf(wo, wi)
        }
    }
}
