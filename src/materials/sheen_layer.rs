//! A sheen layer over the opaque reflecting bases: `plain` (and `wood` and `bark`, drawn with
//! it), the rough diffuse EON (`plaster`, `stone`) and the conductor (`metal`, `chrome`): the
//! Charlie sheen of [`super::sheen`], coloured, over the base, coupled to it by glTF's
//! `KHR_materials_sheen` albedo scaling (the OpenPBR fuzz layer is the same shape):
//!
//! ```text
//! f = s · c · D(h) V / max E                                      (the sheen lobe)
//!   + f_base · min(1 − s m E(μo), 1 − s m E(μi)),   m = max(c)    (the base, scaled)
//! ```
//!
//! `E(μ)` is the weight-1 lobe's directional albedo (scaled by `1/max E` where a sharp lobe
//! exceeds 1, as for cloth). The scaling is symmetric in `μo`, `μi`, so the pair is
//! reciprocal when the base is; at `wo` the base keeps at most `1 − s m E(μo)` of its albedo,
//! so white sheen over a lossless base reflects at most `s m E(μo) + 1 − s m E(μo) = 1`, and
//! less where the base's light leaves at angles whose `E(μi)` is larger (the loss the
//! furnace test measures, docs/materials.md "Sheen layer"). None of this asks anything of the
//! base but its `f`, its pdf and its draws, so the one layer serves every [`SheenBase`]. The
//! cloth family's normalised coupling `(1 − sE(μo))(1 − sE(μi)) / (1 − sĒ)` is exact only for
//! a Lambertian base; over a specular base it can exceed 1, so it is not used here.
//!
//! Sampling: the sheen lobe uniformly over the hemisphere with probability `s m E(μo)`, else
//! the base's own strategy.

use std::f32::consts::FRAC_1_PI;

use glam::{Vec2, Vec3};

use super::sheen::{lobe, uniform_hemisphere, ALPHA_MIN, N_MU};
use super::sheen_albedo::albedo_row;
use super::{positive, warp, BsdfSample, Bxdf, Conductor, Eon, Plain};

/// The opaque bases a sheen layer is drawn over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SheenBase {
    /// `plain` (and `wood`, `bark`).
    Plain(Plain),
    /// The rough diffuse families' EON (`plaster`, `stone`).
    RoughDiffuse(Eon),
    /// The conductors (`metal`, `chrome`).
    Conductor(Conductor),
}

impl From<Plain> for SheenBase {
    fn from(p: Plain) -> SheenBase {
        SheenBase::Plain(p)
    }
}

impl From<Eon> for SheenBase {
    fn from(e: Eon) -> SheenBase {
        SheenBase::RoughDiffuse(e)
    }
}

impl From<Conductor> for SheenBase {
    fn from(c: Conductor) -> SheenBase {
        SheenBase::Conductor(c)
    }
}

impl SheenBase {
    /// The direction the base's `sample_f` draws for `wo` (above the surface) and `uc`, `u`,
    /// and whether by the cosine strategy, whatever the base's `f` is there: the layer
    /// evaluates itself at the base's draws, and the sheen reflects where a black base does
    /// not (taking the base's `sample_f`, which refuses where its own `f` is zero, lost those
    /// draws: a black base under a white sheen reflected 0.017 of the lobe's 0.096 at μ 0.5).
    pub(crate) fn draw(&self, wo: Vec3, uc: f32, u: Vec2) -> (Vec3, bool) {
        match self {
            SheenBase::Plain(p) => p.draw(wo, uc, u),
            SheenBase::RoughDiffuse(_) => (warp::cosine_hemisphere(u), true),
            SheenBase::Conductor(c) => c.draw(wo, uc, u),
        }
    }

    /// The base's colour for a denoiser's albedo image (linear RGB, `[0, 1]`): `plain`'s and
    /// EON's base colour, a conductor's reflectance at normal incidence.
    pub fn albedo(&self) -> Vec3 {
        match self {
            SheenBase::Plain(p) => p.base(),
            SheenBase::RoughDiffuse(e) => e.base(),
            SheenBase::Conductor(c) => c.fresnel(1.0).clamp(Vec3::ZERO, Vec3::ONE),
        }
    }

    /// The roughness the base is drawn with, in `[0, 1]`: `√α` of `plain`'s and the
    /// conductor's GGX lobe, EON's `σ` (as the bare bases report it).
    pub fn roughness(&self) -> f32 {
        match self {
            SheenBase::Plain(p) => p.alpha().clamp(0.0, 1.0).sqrt(),
            SheenBase::RoughDiffuse(e) => e.roughness(),
            SheenBase::Conductor(c) => c.alpha().clamp(0.0, 1.0).sqrt(),
        }
    }
}

/// Forwards a `Bxdf` method to the base's own.
macro_rules! on_base {
    ($self:expr, $b:ident => $e:expr) => {
        match $self {
            SheenBase::Plain($b) => $e,
            SheenBase::RoughDiffuse($b) => $e,
            SheenBase::Conductor($b) => $e,
        }
    };
}

impl Bxdf for SheenBase {
    #[inline]
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        on_base!(self, b => b.f(wo, wi))
    }

    #[inline]
    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        on_base!(self, b => b.sample_f(wo, uc, u))
    }

    #[inline]
    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        on_base!(self, b => b.pdf(wo, wi))
    }

    #[inline]
    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        on_base!(self, b => b.f_pdf(wo, wi))
    }
}

/// An opaque base ([`SheenBase`]) under a coloured Charlie sheen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sheened {
    /// The base beneath the sheen.
    base: SheenBase,
    /// The sheen's colour times its weight, per channel in `[0, 1]`.
    color: Vec3,
    /// `α` of the sheen (its roughness squared, at least 0.01).
    alpha: f32,
    /// `1 / max E` of the weight-1 lobe where that exceeds 1, else 1.
    lobe_scale: f32,
    /// `s m E(μ)` at the nodes `μ_k = (k/(N_MU − 1))²`, in units of `1/65535` (`[0, 1]`):
    /// what the base loses at `μ`. Sixteen bits keep `Bxdfs` within its 248 bytes (it is
    /// copied per glTF hit); the step, 1.5·10⁻⁵, is far below the table's own error.
    albedo: [u16; N_MU],
}

/// `x` clamped to `[0, 1]`, NaN to 0.
fn unit(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

impl Sheened {
    /// `base` under a sheen of weight `weight`, colour `color` (linear RGB; the two multiplied
    /// and each channel clamped to `[0, 1]`, NaN to 0) and roughness `roughness` (`α =
    /// roughness²`, at least 0.01). The albedo is a row of the tabulated `E(μ, α)`
    /// (`materials::sheen_albedo`), so a layer costs 32 lerps to build and can be built per hit.
    pub fn new(base: impl Into<SheenBase>, weight: f32, color: Vec3, roughness: f32) -> Sheened {
        let base = base.into();
        let w = unit(weight);
        let color = Vec3::new(unit(color.x * w), unit(color.y * w), unit(color.z * w));
        let r = unit(roughness);
        let alpha = (r * r).max(ALPHA_MIN);
        let raw = albedo_row(alpha.sqrt());
        let peak = raw.iter().fold(1.0f32, |m, &e| m.max(e));
        let lobe_scale = 1.0 / peak;
        let m = color.max_element();
        let albedo = raw.map(|e| ((m * lobe_scale * e).clamp(0.0, 1.0) * 65535.0).round() as u16);
        Sheened {
            base,
            color,
            alpha,
            lobe_scale,
            albedo,
        }
    }

    /// The base beneath the sheen.
    pub fn base(&self) -> &SheenBase {
        &self.base
    }

    /// The sheen's colour times its weight, per channel in `[0, 1]`.
    pub fn color(&self) -> Vec3 {
        self.color
    }

    /// The sheen's `α`.
    pub fn alpha(&self) -> f32 {
        self.alpha
    }

    /// `s m E(μ)`: what the sheen takes from the base at `μ` (interpolated), in `[0, 1]`.
    pub fn sheen_albedo(&self, mu: f32) -> f32 {
        let x = mu.clamp(0.0, 1.0).sqrt() * (N_MU - 1) as f32;
        let i = (x as usize).min(N_MU - 2);
        let t = x - i as f32;
        let (a, b) = (self.albedo[i] as f32, self.albedo[i + 1] as f32);
        ((1.0 - t) * a + t * b) * (1.0 / 65535.0)
    }

    /// `(f, pdf)` for a pair in the upper hemisphere, from the base's own.
    #[inline]
    fn combine(&self, wo: Vec3, wi: Vec3, base: (Vec3, f32)) -> (Vec3, f32) {
        let e_o = self.sheen_albedo(wo.z);
        let e_i = self.sheen_albedo(wi.z);
        let sheen = self.color * (self.lobe_scale * lobe(self.alpha, wo, wi));
        let scale = (1.0 - e_o).min(1.0 - e_i);
        let p = e_o;
        let pdf = p * (0.5 * FRAC_1_PI) + (1.0 - p) * base.1;
        (sheen + base.0 * scale, pdf)
    }
}

impl Bxdf for Sheened {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        self.f_pdf(wo, wi).0
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        if !positive(wo.z) || !wo.is_finite() {
            return None;
        }
        let p = self.sheen_albedo(wo.z);
        if uc < p {
            let wi = uniform_hemisphere(u);
            if !positive(wi.z) {
                return None;
            }
            let (f, pdf) = self.f_pdf(wo, wi);
            if f == Vec3::ZERO || !f.is_finite() || !positive(pdf) {
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
        // The base's draw, with `uc` stretched back over `[0, 1)` for its own lobe choice (no
        // base has a delta lobe).
        let uc_base = ((uc - p) / (1.0 - p)).clamp(0.0, 1.0 - f32::EPSILON / 2.0);
        let (wi, diffuse) = self.base.draw(wo, uc_base, u);
        if !positive(wi.z) {
            return None;
        }
        let (f, pdf) = self.f_pdf(wo, wi);
        if f == Vec3::ZERO || !f.is_finite() || !positive(pdf) {
            return None;
        }
        Some(BsdfSample {
            wi,
            f,
            pdf,
            specular: false,
            diffuse,
        })
    }

    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        self.f_pdf(wo, wi).1
    }

    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        if !positive(wo.z) || !positive(wi.z) || !wo.is_finite() || !wi.is_finite() {
            return (Vec3::ZERO, 0.0);
        }
        let base = self.base.f_pdf(wo, wi);
        self.combine(wo, wi, base)
    }
}

#[cfg(test)]
mod bases_tests;

#[cfg(test)]
mod tests {
    use super::super::testutil::ODD_VALUES;
    use super::super::testutil::{
        albedo, assert_finite_on_odd_dirs, assert_reciprocal, chi2_bxdf, dir, Rng,
    };
    use super::*;

    /// White sheen over white `plain` (a lossless base): never above 1; the scaling's loss
    /// is measured and bounded (docs/materials.md, "Sheen layer").
    #[test]
    fn white_furnace_never_above_one_and_loses_little() {
        let mut least = 1.0f32;
        for roughness in [0.3, 0.5, 1.0] {
            for base_roughness in [0.2, 0.6] {
                let base = Plain::new(Vec3::ONE, base_roughness, 0.0, 0.5);
                let c = Sheened::new(base, 1.0, Vec3::ONE, roughness);
                let bare = Plain::new(Vec3::ONE, base_roughness, 0.0, 0.5);
                for mu in [1.0, 0.6, 0.25, 0.05] {
                    let (a, se) = albedo(&c, dir(mu, 0.7), 200_000, 41);
                    let (b, _) = albedo(&bare, dir(mu, 0.7), 200_000, 41);
                    let m = a.max_element();
                    eprintln!(
                        "sheened r {roughness} base r {base_roughness} μ {mu}: {m:.5} ± {se:.5} (bare {:.5})",
                        b.max_element()
                    );
                    assert!(m <= 1.0 + 3.0 * se + 2e-3, "μ {mu}: {m} ± {se}");
                    least = least.min(m / b.max_element());
                }
            }
        }
        eprintln!("least albedo relative to the bare base: {least:.4}");
        assert!(least > 0.85, "{least}");
    }

    #[test]
    fn sampling_passes_chi2_and_is_reciprocal() {
        let base = Plain::new(Vec3::new(0.2, 0.3, 0.5), 0.4, 0.0, 0.5);
        let c = Sheened::new(base, 0.8, Vec3::new(1.0, 0.7, 0.4), 0.5);
        for (i, mu) in [0.8f32, 0.2].into_iter().enumerate() {
            chi2_bxdf(
                &format!("sheened {i}"),
                &c,
                dir(mu, 0.4),
                300_000,
                2,
                150 + i as u64,
            );
        }
        let mut rng = Rng::new(43);
        for _ in 0..2000 {
            let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
            assert_reciprocal(&c, wo, wi);
            if let Some(s) = c.sample_f(wo, rng.f32(), rng.vec2()) {
                assert_eq!((s.f, s.pdf), c.f_pdf(wo, s.wi));
            }
        }
    }

    /// The sheen brightens grazing views of a dark base and barely touches head-on ones.
    #[test]
    fn sheen_brightens_grazing_views_of_a_dark_base() {
        let base = Plain::new(Vec3::splat(0.02), 0.8, 0.0, 0.5);
        let c = Sheened::new(base, 1.0, Vec3::ONE, 0.5);
        let (g, _) = albedo(&c, dir(0.1, 0.0), 200_000, 44);
        let (gb, _) = albedo(&base, dir(0.1, 0.0), 200_000, 44);
        assert!(g.x > gb.x + 0.1, "{} vs {}", g.x, gb.x);
    }

    /// Coloured sheens of several roughnesses (glTF's `sheenColorFactor`,
    /// `sheenRoughnessFactor`) over a white, lossless base: no channel above 1 at any angle,
    /// and the lobe alone (over black) never above its colour.
    #[test]
    fn coloured_sheens_of_any_roughness_stay_below_one() {
        for (ci, color) in [
            Vec3::new(1.0, 0.4, 0.1),
            Vec3::new(0.2, 0.9, 0.5),
            Vec3::splat(0.6),
        ]
        .into_iter()
        .enumerate()
        {
            for (ri, roughness) in [0.0f32, 0.15, 0.4, 0.7, 1.0].into_iter().enumerate() {
                let white =
                    Sheened::new(Plain::new(Vec3::ONE, 0.4, 0.0, 0.04), 1.0, color, roughness);
                let black =
                    Sheened::new(Plain::new(Vec3::ZERO, 0.4, 0.0, 0.0), 1.0, color, roughness);
                for (k, mu) in [1.0f32, 0.5, 0.15, 0.03].into_iter().enumerate() {
                    let seed = 300 + (ci * 100 + ri * 10 + k) as u64;
                    let (a, se) = albedo(&white, dir(mu, 0.3), 100_000, seed);
                    assert!(
                        a.max_element() <= 1.0 + 4.0 * se + 2e-3,
                        "c {color} r {roughness} μ {mu}: {a} ± {se}"
                    );
                    let (b, se) = albedo(&black, dir(mu, 0.3), 100_000, seed);
                    let cap = color * (1.0 + 2e-3) + Vec3::splat(4.0 * se);
                    assert!(
                        b.cmple(cap).all(),
                        "lobe c {color} r {roughness} μ {mu}: {b} ± {se}"
                    );
                }
            }
        }
    }

    #[test]
    fn sampling_passes_chi2_and_is_reciprocal_at_several_roughnesses() {
        let base = Plain::new(Vec3::new(0.3, 0.2, 0.1), 0.6, 0.2, 0.04);
        for (i, roughness) in [0.15f32, 0.35, 0.8].into_iter().enumerate() {
            let c = Sheened::new(base, 1.0, Vec3::new(0.5, 0.9, 1.0), roughness);
            for (k, mu) in [0.9f32, 0.15].into_iter().enumerate() {
                chi2_bxdf(
                    &format!("sheened r {roughness} μ {mu}"),
                    &c,
                    dir(mu, 0.4),
                    300_000,
                    6,
                    170 + (2 * i + k) as u64,
                );
            }
            let mut rng = Rng::new(50 + i as u64);
            for _ in 0..2000 {
                let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
                assert_reciprocal(&c, wo, wi);
            }
        }
    }

    #[test]
    fn the_layer_keeps_the_bxdfs_size() {
        let size = std::mem::size_of::<Sheened>();
        assert!(size <= 248, "{size}");
    }

    #[test]
    fn odd_inputs_stay_finite() {
        let mut rng = Rng::new(42);
        for &x in &ODD_VALUES {
            let c = Sheened::new(Plain::new(Vec3::splat(x), x, x, x), x, Vec3::splat(x), x);
            assert_finite_on_odd_dirs(&c, &mut rng);
        }
    }
}
