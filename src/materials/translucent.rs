//! `transmission` on the reflecting families: a blend of a rough dielectric transmission and
//! the base's own reflection, weighted by the key, as the Disney 2015 BSDF, OpenPBR and glTF's
//! `KHR_materials_transmission` blend them.
//!
//! ```text
//! same side:  f = (1 − w) f_base(ŵo, ŵi) + w f_d(wo, wi)
//! crossing:   f =                         w tint f_d(wo, wi)
//! w = transmission · (1 − metalness)       (transmission on the bases without a metal)
//! ```
//!
//! - `f_d` is the [`Dielectric`] interface of index `η = (1 + √F0)/(1 − √F0)` of `F0 =
//!   specular` and the material's roughness, with its multiple-scattering compensation. On
//!   `plain` that is its own specular layer, so its reflection is the same Fresnel and GGX lobe
//!   as the base's layer; on the rough diffuse (EON) and sheen bases, which have no specular
//!   layer, it is the layer the transmitting share adds, of the same index a `plain` of that
//!   `specular` has (one key means one index on every family).
//! - `f_base` is the family's reflection ([`Base`]): `plain` at the metalness left over (`m /
//!   (1 − w)`, so the metal's share of the whole stays `m`: glTF transmits only through the
//!   dielectric part), or [`Eon`], or [`Sheen`]. A body with a transmitting surface has an
//!   inside, and the base reflects there too: `ŵ` mirrors a direction inside (`z → −z`) so the
//!   base sees it from its front.
//! - The crossing is tinted by `tint` (`base`, as glTF's base colour tints transmitted light;
//!   clear where `absorption` colours the body by depth instead).
//! - Energy: a convex blend of a lobe of albedo at most 1 (each base's, within its table's
//!   bound) and a lossless interface, so at most 1 and lossless when white. Reciprocity: the
//!   reflections are symmetric, the crossing keeps the interface's generalised reciprocity.
//! - Sampling: the interface with probability `w` (a delta draw of a smooth interface keeps
//!   its discrete probability times `w`), the base otherwise; the pdf is the same mixture.
//!
//! Under a clear coat the `plain` blend is [`CoatedTranslucent`]'s base (`translucent/coated.rs`).

use glam::{Vec2, Vec3};

use super::dielectric::Dielectric;
use super::{fresnel, positive, BsdfSample, Bxdf, Eon, Plain, Sheen};

mod coated;
pub use coated::CoatedTranslucent;

/// The reflection under a transmitting surface's interface: the family's own lobe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Base {
    /// `plain` (and `wood`, `bark`), at the metalness left after the transmission's share.
    Plain(Plain),
    /// The rough diffuse of `plaster` and `stone`.
    RoughDiffuse(Eon),
    /// The sheen over a diffuse body of `cloth` and `cord`.
    Sheen(Sheen),
}

impl Base {
    /// The base colour (the diffuse albedo, linear RGB in `[0, 1]`).
    pub fn albedo(&self) -> Vec3 {
        match self {
            Base::Plain(p) => p.base(),
            Base::RoughDiffuse(e) => e.base(),
            Base::Sheen(s) => s.base(),
        }
    }

    /// The roughness the base is drawn with, in `[0, 1]`, as [`super::Bxdfs::roughness`]
    /// reports it for the opaque family: `√α` of a GGX or sheen lobe, EON's `σ`.
    pub fn roughness(&self) -> f32 {
        match self {
            Base::Plain(p) => p.alpha().clamp(0.0, 1.0).sqrt(),
            Base::RoughDiffuse(e) => e.roughness(),
            Base::Sheen(s) => s.alpha().clamp(0.0, 1.0).sqrt(),
        }
    }

    #[inline]
    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        match self {
            Base::Plain(p) => p.f_pdf(wo, wi),
            Base::RoughDiffuse(e) => e.f_pdf(wo, wi),
            Base::Sheen(s) => s.f_pdf(wo, wi),
        }
    }

    #[inline]
    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        match self {
            Base::Plain(p) => p.sample_f(wo, uc, u),
            Base::RoughDiffuse(e) => e.sample_f(wo, uc, u),
            Base::Sheen(s) => s.sample_f(wo, uc, u),
        }
    }
}

/// A reflecting base that transmits a share of the light through a dielectric interface, in
/// local shading space: the outside (index 1) on +Z, the body on −Z, as [`Dielectric`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Translucent {
    /// The base's reflection.
    base: Base,
    /// The interface of index `(1 + √specular)/(1 − √specular)`.
    interface: Dielectric,
    /// Per-crossing transmittance, linear RGB, each channel in `[0, 1]`.
    tint: Vec3,
    /// The interface's share `w`, in `(0, 1]`.
    weight: f32,
}

/// `x` clamped to `[0, 1]`, NaN to 0.
fn unit(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// `w` mirrored to the front (`z → |z|`): how the base sees a direction inside the body.
#[inline]
fn front(w: Vec3) -> Vec3 {
    Vec3::new(w.x, w.y, w.z.abs())
}

impl Translucent {
    /// `plain`'s parameters (clamped as [`Plain::with_power`] clamps them) with a share
    /// `transmission` (clamped to `[0, 1]`, NaN 0) transmitted through the specular layer's
    /// interface and tinted by `tint` (each channel clamped to `[0, 1]`, NaN 1). `None` when
    /// nothing is transmitted (`transmission · (1 − metalness) = 0`): the surface is `plain`.
    pub fn new(
        base: Vec3,
        roughness: f32,
        metalness: f32,
        specular: f32,
        fresnel_power: f32,
        transmission: f32,
        tint: Vec3,
    ) -> Option<Translucent> {
        let m = unit(metalness);
        let weight = unit(transmission) * (1.0 - m);
        if !positive(weight) {
            return None;
        }
        let rest = if weight < 1.0 {
            (m / (1.0 - weight)).min(1.0)
        } else {
            0.0
        };
        let plain = Plain::with_power(base, roughness, rest, specular, fresnel_power);
        Some(Translucent::over(
            Base::Plain(plain),
            roughness,
            specular,
            weight,
            tint,
        ))
    }

    /// The rough diffuse [`Eon`] of albedo `base` and roughness `roughness` (the `plaster` and
    /// `stone` families) with a share `transmission` (clamped to `[0, 1]`, NaN 0) transmitted
    /// through an interface of `F0 = specular` (clamped likewise) and that roughness, tinted
    /// by `tint` (each channel clamped to `[0, 1]`, NaN 1). `None` when nothing is
    /// transmitted: the surface is [`Eon`].
    pub fn rough_diffuse(
        base: Vec3,
        roughness: f32,
        specular: f32,
        transmission: f32,
        tint: Vec3,
    ) -> Option<Translucent> {
        let weight = unit(transmission);
        if !positive(weight) {
            return None;
        }
        let eon = Base::RoughDiffuse(Eon::new(base, roughness));
        Some(Translucent::over(eon, roughness, specular, weight, tint))
    }

    /// The [`Sheen`] of `base`, weight `sheen` and roughness `roughness` (the `cloth` and
    /// `cord` families) with a share `transmission` (clamped to `[0, 1]`, NaN 0) transmitted
    /// through an interface of `F0 = specular` (clamped likewise) and that roughness, tinted by
    /// `tint` (each channel clamped to `[0, 1]`, NaN 1). `None` when nothing is transmitted:
    /// the surface is [`Sheen`].
    pub fn sheen(
        base: Vec3,
        sheen: f32,
        roughness: f32,
        specular: f32,
        transmission: f32,
        tint: Vec3,
    ) -> Option<Translucent> {
        let weight = unit(transmission);
        if !positive(weight) {
            return None;
        }
        let cloth = Base::Sheen(Sheen::new(base, sheen, roughness));
        Some(Translucent::over(cloth, roughness, specular, weight, tint))
    }

    /// `base` under the interface of `F0 = specular` and `roughness`, at share `weight` in
    /// `(0, 1]`.
    fn over(base: Base, roughness: f32, specular: f32, weight: f32, tint: Vec3) -> Translucent {
        let f0 = unit(specular).min(1.0 - 1e-6);
        let ior = (1.0 + f0.sqrt()) / (1.0 - f0.sqrt());
        let tint1 = |x: f32| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
        Translucent {
            base,
            interface: Dielectric::new(ior, roughness),
            tint: Vec3::new(tint1(tint.x), tint1(tint.y), tint1(tint.z)),
            weight,
        }
    }

    /// The base (its colour is the surface's albedo).
    pub fn base(&self) -> &Base {
        &self.base
    }

    /// The interface (its index and roughness).
    pub fn interface(&self) -> &Dielectric {
        &self.interface
    }

    /// The transmitted share `w`, in `(0, 1]`.
    pub fn weight(&self) -> f32 {
        self.weight
    }

    /// What a shadow ray keeps crossing this surface at cosine `cos` to its normal (with
    /// `[trace] transmissive_shadows`): `w · tint · (1 − F(|cos|))`, as
    /// [`super::Glass::shadow_transmittance`] for the transmitted share.
    pub fn shadow_transmittance(&self, cos: f32) -> Vec3 {
        let c = if cos.is_nan() { 0.0 } else { cos.abs() };
        let r = fresnel::dielectric(c, 1.0 / self.interface.eta());
        self.tint * (self.weight * (1.0 - r))
    }

    /// `(f, pdf)` of the blend; `interface` is the interface's own `(f, pdf)` at the pair.
    #[inline]
    fn blend(&self, wo: Vec3, wi: Vec3, interface: (Vec3, f32)) -> (Vec3, f32) {
        let w = self.weight;
        let (fd, pd) = interface;
        if wo.z * wi.z < 0.0 {
            return (fd * (w * self.tint), w * pd);
        }
        if w >= 1.0 {
            return (fd, pd);
        }
        let (fb, pb) = self.base.f_pdf(front(wo), front(wi));
        (fb * (1.0 - w) + fd * w, (1.0 - w) * pb + w * pd)
    }
}

impl Bxdf for Translucent {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        self.f_pdf(wo, wi).0
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        if !positive(wo.z.abs()) {
            return None;
        }
        let w = self.weight;
        let uc = if uc.is_nan() { 0.0 } else { uc };
        let wi = if uc < w {
            let uc = (uc / w).clamp(0.0, 1.0 - f32::EPSILON / 2.0);
            let s = self.interface.sample_f(wo, uc, u)?;
            if s.specular {
                // A delta lobe: its discrete probability times the interface's share.
                let f = if wo.z * s.wi.z < 0.0 {
                    s.f * (w * self.tint)
                } else {
                    s.f * w
                };
                let pdf = s.pdf * w;
                if f == Vec3::ZERO || !positive(pdf) || !f.is_finite() {
                    return None;
                }
                return Some(BsdfSample { f, pdf, ..s });
            }
            (s.wi, false)
        } else {
            let uc = ((uc - w) / (1.0 - w)).clamp(0.0, 1.0 - f32::EPSILON / 2.0);
            let s = self.base.sample_f(front(wo), uc, u)?;
            let wi = if wo.z < 0.0 {
                Vec3::new(s.wi.x, s.wi.y, -s.wi.z)
            } else {
                s.wi
            };
            (wi, s.diffuse)
        };
        let (wi, diffuse) = wi;
        let (f, pdf) = self.f_pdf(wo, wi);
        if !positive(pdf) || f == Vec3::ZERO || !f.is_finite() {
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
        if !positive(wo.z.abs()) || !positive(wi.z.abs()) {
            return (Vec3::ZERO, 0.0);
        }
        self.blend(wo, wi, self.interface.f_pdf(wo, wi))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{chi2_test, dir, odd_dirs, Rng, ODD_VALUES};
    use super::*;

    fn translucent(r: f32, m: f32, spec: f32, t: f32, base: Vec3) -> Translucent {
        Translucent::new(base, r, m, spec, 5.0, t, base).unwrap()
    }

    /// The power albedo at `wo`, `∫ f (η_i/η_o)² |μi| dωi`, by the lobe's own sampling (the
    /// smallest channel): the share kept on `wo`'s side, the share that crosses, and the
    /// standard error of their sum.
    fn power_split(b: &Translucent, wo: Vec3, n: usize, seed: u64) -> (f64, f64, f64) {
        let mut rng = Rng::new(seed);
        let (mut same, mut crossed, mut sum2) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..n {
            if let Some(s) = b.sample_f(wo, rng.f32(), rng.vec2()) {
                let e = b.interface().relative_eta(wo, s.wi) as f64;
                let v = (s.f.min_element() * s.wi.z.abs() / s.pdf) as f64 * e * e;
                if s.wi.z * wo.z > 0.0 {
                    same += v;
                } else {
                    crossed += v;
                }
                sum2 += v * v;
            }
        }
        let (same, crossed) = (same / n as f64, crossed / n as f64);
        let mean = same + crossed;
        let var = (sum2 / n as f64 - mean * mean).max(0.0);
        (same, crossed, (var / n as f64).sqrt())
    }

    #[test]
    fn white_furnace_from_both_sides_reflection_plus_transmission_is_one() {
        // White base, lossless interface: R + T within 1 % of 1, never above (4 standard
        // errors), from outside and inside, smooth to rough, partial and full transmission.
        let mut report = String::from("\ntranslucent white furnace: R + T (R, T)\n");
        let mut seed = 0;
        for r in [0.0f32, 0.2, 0.5, 1.0] {
            for (t, m) in [(1.0f32, 0.0f32), (0.5, 0.0), (0.3, 0.5)] {
                let b = translucent(r, m, 0.04, t, Vec3::ONE);
                for mu in [1.0f32, 0.5, 0.15, 0.03, -1.0, -0.5, -0.15] {
                    seed += 1;
                    let (same, crossed, se) = power_split(&b, dir(mu, 0.4), 40_000, seed);
                    let a = same + crossed;
                    let at = format!("r {r} t {t} m {m} μ {mu}");
                    report.push_str(&format!("{at}: {a:.4} ({same:.4}, {crossed:.4})\n"));
                    assert!(a <= 1.0 + 4.0 * se + 1e-4, "{at}: {a} ± {se}");
                    assert!(a >= 0.99 - 4.0 * se, "{at}: {a} ± {se}");
                }
            }
        }
        eprintln!("{report}");
    }

    #[test]
    fn the_blend_is_its_parts_weighted_by_the_key() {
        // Outside, the reflection is (1 − w) plain + w interface; the crossing w·tint·interface.
        let base = Vec3::new(0.8, 0.5, 0.2);
        let b = translucent(0.4, 0.0, 0.04, 0.3, base);
        let plain = Plain::new(base, 0.4, 0.0, 0.04);
        let d = Dielectric::new(1.5, 0.4);
        let mut rng = Rng::new(5);
        for _ in 0..500 {
            let (wo, wi) = (rng.upper_dir(), rng.sphere_dir());
            let want = if wi.z > 0.0 {
                plain.f(wo, wi) * 0.7 + d.f(wo, wi) * 0.3
            } else {
                d.f(wo, wi) * base * 0.3
            };
            let got = b.f(wo, wi);
            assert!(
                (got - want).abs().max_element() <= 1e-5 * want.max_element().max(1e-3),
                "{wo} {wi}: {got} vs {want}"
            );
        }
        // Nothing transmitted: no lobe; a metal transmits nothing.
        assert!(Translucent::new(base, 0.4, 0.0, 0.04, 5.0, 0.0, base).is_none());
        assert!(Translucent::new(base, 0.4, 1.0, 0.04, 5.0, 1.0, base).is_none());
        assert!(Translucent::new(base, 0.4, 0.0, 0.04, 5.0, f32::NAN, base).is_none());
    }

    #[test]
    fn reciprocal_with_the_interfaces_generalised_reciprocity() {
        let mut rng = Rng::new(41);
        let mut counts = [0usize; 3];
        for r in [0.1f32, 0.45, 0.9] {
            let b = translucent(r, 0.3, 0.06, 0.6, Vec3::new(0.9, 0.6, 0.3));
            let eta = b.interface().eta();
            let index = |w: Vec3| if w.z > 0.0 { 1.0 } else { eta };
            for _ in 0..5000 {
                let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
                let x = b.f(wo, wi) / (index(wo) * index(wo));
                let y = b.f(wi, wo) / (index(wi) * index(wi));
                let scale = x.max_element().max(y.max_element()).max(1e-4);
                assert!(
                    (x - y).abs().max_element() <= 1e-3 * scale,
                    "{wo} {wi}: {x} vs {y}"
                );
                if x.max_element() > 0.0 {
                    counts[match (wo.z > 0.0, wi.z > 0.0) {
                        (true, true) => 0,
                        (false, false) => 1,
                        _ => 2,
                    }] += 1;
                }
            }
        }
        assert!(counts.iter().all(|&c| c > 1000), "{counts:?}");
    }

    #[test]
    fn sampling_matches_the_pdf_over_the_sphere() {
        // Chi-square of the non-delta draws against pdf from both sides, rough and smooth
        // interfaces; every non-delta draw repeats f_pdf bit for bit.
        // (roughness, metalness, transmission, specular). A smooth base's own layer is a
        // 10⁻⁴-wide GGX spike the chi-square's bins cannot resolve: the smooth case is the
        // index-matched pass-through over a Lambertian base (specular 0), whose delta draws
        // are left out; smooth Fresnel interfaces are in the furnace above.
        let configs = [
            (0.3f32, 0.0f32, 1.0f32, 0.04f32),
            (0.6, 0.0, 0.4, 0.04),
            (0.0, 0.0, 0.5, 0.0),
            (0.4, 0.5, 0.8, 0.06),
        ];
        for (i, (r, m, t, spec)) in configs.into_iter().enumerate() {
            let b = translucent(r, m, spec, t, Vec3::new(0.9, 0.6, 0.3));
            sampled_by_its_pdf(&b, &format!("translucent {i}"), (300 + 10 * i) as u64, 9);
        }
    }

    /// Chi-square of `b`'s non-specular draws against its pdf from four directions either
    /// side (seeds `seed + j`), the pdf integrating to at most 1, and every draw's `f` and pdf
    /// equal to `f_pdf`'s (draws from `Rng::new(rng_seed)`).
    fn sampled_by_its_pdf(b: &Translucent, name: &str, seed: u64, rng_seed: u64) {
        for (j, mu) in [0.8f32, 0.2, -0.9, -0.4].into_iter().enumerate() {
            let wo = dir(mu, 0.7);
            let at = format!("{name} μ {mu}");
            let integral = chi2_test(
                &at,
                |u, uc| b.sample_f(wo, uc, u).filter(|s| !s.specular).map(|s| s.wi),
                |wi| b.pdf(wo, wi) as f64,
                200_000,
                1,
                seed + j as u64,
            );
            assert!(integral <= 1.0 + 2e-3, "{at}: ∫ pdf = {integral}");
            let mut rng = Rng::new(rng_seed);
            for _ in 0..2000 {
                if let Some(s) = b.sample_f(wo, rng.f32(), rng.vec2()) {
                    if !s.specular {
                        assert_eq!((s.f, s.pdf), b.f_pdf(wo, s.wi), "{at}");
                    }
                }
            }
        }
    }

    /// The non-`plain` bases at roughness `r`, `specular` 0.04, transmission `t`, tinted by
    /// `base`: the rough diffuse (`plaster`, `stone`) and the sheen at weight 1 (`cloth`,
    /// `cord`), with the slack each base's own furnace allows above 1 (the sheen's albedo
    /// table is within 2·10⁻³ of its quadrature).
    fn other_bases(r: f32, t: f32, base: Vec3) -> [(&'static str, Translucent, f64); 2] {
        [
            (
                "rough diffuse",
                Translucent::rough_diffuse(base, r, 0.04, t, base).unwrap(),
                1e-4,
            ),
            (
                "sheen",
                Translucent::sheen(base, 1.0, r, 0.04, t, base).unwrap(),
                2e-3 * (1.0 - t as f64) + 1e-4,
            ),
        ]
    }

    #[test]
    fn rough_diffuse_and_sheen_bases_reflect_plus_transmit_one_from_both_sides() {
        // White base, lossless interface: R + T within 1 % of 1, never above (4 standard
        // errors and the base's own slack), from outside and inside, smooth to rough
        // interfaces (the family's `roughness` is the interface's too), partial and full
        // transmission.
        let mut report = String::from("\nEON / sheen translucent white furnace: R + T (R, T)\n");
        let mut seed = 1000;
        for r in [0.0f32, 0.3, 0.6, 1.0] {
            for t in [1.0f32, 0.5, 0.2] {
                for (name, b, slack) in other_bases(r, t, Vec3::ONE) {
                    for mu in [1.0f32, 0.5, 0.15, 0.03, -1.0, -0.5, -0.15] {
                        seed += 1;
                        let (same, crossed, se) = power_split(&b, dir(mu, 0.4), 40_000, seed);
                        let a = same + crossed;
                        let at = format!("{name} r {r} t {t} μ {mu}");
                        report.push_str(&format!("{at}: {a:.4} ({same:.4}, {crossed:.4})\n"));
                        assert!(a <= 1.0 + 4.0 * se + slack, "{at}: {a} ± {se}");
                        assert!(a >= 0.99 - 4.0 * se, "{at}: {a} ± {se}");
                        // The share that crosses is the interface's: at most w.
                        assert!(crossed <= t as f64 + 4.0 * se, "{at}: T {crossed}");
                    }
                }
            }
        }
        eprintln!("{report}");
    }

    #[test]
    fn rough_diffuse_and_sheen_bases_blend_by_the_key() {
        // Outside: (1 − w) base + w interface; crossing: w·tint·interface; from inside the
        // base sees the mirrored pair. The interface is the index of specular 0.04 (1.5).
        let base = Vec3::new(0.8, 0.5, 0.2);
        let d = Dielectric::new(1.5, 0.6);
        let eon = Eon::new(base, 0.6);
        let cloth = Sheen::new(base, 1.0, 0.6);
        let mut rng = Rng::new(6);
        for (b, lobe) in [
            (
                Translucent::rough_diffuse(base, 0.6, 0.04, 0.3, base).unwrap(),
                Base::RoughDiffuse(eon),
            ),
            (
                Translucent::sheen(base, 1.0, 0.6, 0.04, 0.3, base).unwrap(),
                Base::Sheen(cloth),
            ),
        ] {
            assert_eq!(*b.base(), lobe);
            assert!((b.interface().eta() - 1.5).abs() < 1e-6);
            assert_eq!(b.base().albedo(), base);
            for _ in 0..500 {
                let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
                let want = if wo.z * wi.z > 0.0 {
                    lobe.f_pdf(front(wo), front(wi)).0 * 0.7 + d.f(wo, wi) * 0.3
                } else {
                    d.f(wo, wi) * base * 0.3
                };
                let got = b.f(wo, wi);
                assert!(
                    (got - want).abs().max_element() <= 1e-5 * want.max_element().max(1e-3),
                    "{lobe:?} {wo} {wi}: {got} vs {want}"
                );
            }
        }
        assert_eq!(Base::RoughDiffuse(eon).roughness(), 0.6);
        assert!((Base::Sheen(cloth).roughness() - 0.6).abs() < 1e-6);
        // Nothing transmitted: no lobe (the surface is the opaque family's).
        assert!(Translucent::rough_diffuse(base, 0.6, 0.04, 0.0, base).is_none());
        assert!(Translucent::sheen(base, 1.0, 0.6, 0.04, f32::NAN, base).is_none());
        // The specular key sets the index, as on plain: F0 0.02 is 1.33.
        let water = Translucent::rough_diffuse(base, 0.6, 0.02, 0.3, base).unwrap();
        assert!((water.interface().eta() - 1.3294).abs() < 1e-3);
    }

    #[test]
    fn rough_diffuse_and_sheen_bases_are_reciprocal_and_sampled_by_their_pdf() {
        let colour = Vec3::new(0.9, 0.6, 0.3);
        let mut rng = Rng::new(43);
        for r in [0.2f32, 0.5, 0.9] {
            for (name, b, _) in other_bases(r, 0.6, colour) {
                let eta = b.interface().eta();
                let index = |w: Vec3| if w.z > 0.0 { 1.0 } else { eta };
                let mut crossing = 0;
                for _ in 0..4000 {
                    let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
                    let x = b.f(wo, wi) / (index(wo) * index(wo));
                    let y = b.f(wi, wo) / (index(wi) * index(wi));
                    let scale = x.max_element().max(y.max_element()).max(1e-4);
                    assert!(
                        (x - y).abs().max_element() <= 1e-3 * scale,
                        "{name} r {r} {wo} {wi}: {x} vs {y}"
                    );
                    crossing += usize::from(wo.z * wi.z < 0.0 && x.max_element() > 0.0);
                }
                assert!(crossing > 500, "{name} r {r}: {crossing}");
            }
        }
        // Chi-square from both sides; the smooth interface's delta draws are left out (the
        // bases have no spike, so a smooth Fresnel interface is in here).
        for (i, (r, t)) in [(0.0f32, 0.5f32), (0.5, 0.3), (0.8, 0.8)]
            .into_iter()
            .enumerate()
        {
            for (name, b, _) in other_bases(r, t, colour) {
                let at = format!("{name} r {r} t {t}");
                sampled_by_its_pdf(&b, &at, (500 + 10 * i) as u64, 10);
            }
        }
    }

    #[test]
    fn the_new_lobes_keep_the_bxdfs_size() {
        // A `Bxdfs` is copied per glTF hit (`Shaded`): the translucent and dispersive lobes
        // fit within the largest variant before them (`Coated`, 248 bytes).
        let size = std::mem::size_of::<super::super::Bxdfs>();
        assert!(size <= 248, "{size}");
        assert!(std::mem::size_of::<Translucent>() <= size);
        assert!(std::mem::size_of::<super::super::Dispersive>() <= size);
    }

    #[test]
    fn shadow_rays_keep_the_transmitted_share() {
        let b = translucent(0.3, 0.0, 0.04, 0.5, Vec3::new(1.0, 0.5, 0.25));
        let t = b.shadow_transmittance(1.0);
        // (1 − 0.04) of half, tinted.
        assert!(
            (t - Vec3::new(0.48, 0.24, 0.12)).abs().max_element() < 1e-5,
            "{t}"
        );
        assert_eq!(b.shadow_transmittance(-1.0), t);
        assert!(b.shadow_transmittance(f32::NAN).is_finite());
    }

    #[test]
    fn odd_inputs_never_give_nan_or_inf() {
        let mut rng = Rng::new(3);
        for &x in &ODD_VALUES {
            for b in [
                Translucent::new(Vec3::splat(x), x, 0.2, x, x, 0.5, Vec3::splat(x)),
                Translucent::new(Vec3::splat(0.5), 0.3, x, 0.04, 5.0, x, Vec3::ONE),
                Translucent::rough_diffuse(Vec3::splat(x), x, x, 0.5, Vec3::splat(x)),
                Translucent::rough_diffuse(Vec3::splat(0.5), 0.3, 0.04, x, Vec3::ONE),
                Translucent::sheen(Vec3::splat(x), x, x, x, 0.5, Vec3::splat(x)),
                Translucent::sheen(Vec3::splat(0.5), 1.0, 0.5, 0.04, x, Vec3::ONE),
            ]
            .into_iter()
            .flatten()
            {
                for wo in odd_dirs() {
                    for wi in odd_dirs() {
                        let (f, p) = b.f_pdf(wo, wi);
                        assert!(f.is_finite() && p.is_finite(), "{b:?}");
                    }
                    for _ in 0..16 {
                        if let Some(s) = b.sample_f(wo, rng.f32(), rng.vec2()) {
                            assert!(s.f.is_finite() && s.pdf.is_finite() && s.wi.is_finite());
                        }
                    }
                }
            }
        }
    }
}
