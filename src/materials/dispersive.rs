//! `dispersion` on `glass` and `liquid`: an index that varies over wavelength, drawn per
//! colour channel.
//!
//! glTF's `KHR_materials_dispersion` convention: `dispersion = 20/V`, `V` the Abbe number, and
//!
//! ```text
//! η(λ) = η_d + (η_d − 1)/V · (523655/λ² − 1.5168)          λ in nm, η_d = ior (at 587.6 nm)
//! ```
//!
//! (a Cauchy fit through the Fraunhofer d, F and C lines, so `η_F − η_C = (η_d − 1)/V`). Each
//! RGB channel is an interface of its own index, at the dominant wavelength of its Rec.709
//! primary seen from D65 ([`CHANNEL_NM`]); the BSDF is then the vector of the three
//! interfaces' values, which is exact for the channels' own indices:
//!
//! - **Evaluation**: `f = tint ⊙ (f_R, f_G, f_B)` (tint on crossings only, as [`super::Glass`]),
//!   `pdf` = the mean of the three interfaces' pdfs.
//! - **Sampling**: a channel `c` uniformly (from `uc`), then its interface's draw. A rough draw
//!   is evaluated as the whole vector (the mixture pdf). A smooth interface's mirror is the
//!   same direction for all channels: it carries `(R_R, R_G, R_B)/|μ|` with probability
//!   `mean(R)`. Its refraction is channel `c`'s alone: `f` is nonzero in `c` only and its
//!   probability is `T_c/3`, so that channel's weight is 3 times the clear glass's (a path
//!   through a dispersive body carries one channel after the first refraction, the others
//!   zero). Expected per channel: `R_k + T_k`, lossless.
//! - A path that refracts through two smooth dispersive interfaces keeps a channel only when
//!   both draws picked it (probability 1/9, weight 9): unbiased without a path-wide channel in
//!   the integrator, at the cost of more noise through dispersive bodies.

use glam::{Vec2, Vec3};

use super::dielectric::Dielectric;
use super::{fresnel, positive, BsdfSample, Bxdf};

/// The wavelengths (nm) the R, G and B channels refract at: the dominant wavelengths of the
/// Rec.709 primaries from the D65 white point.
pub const CHANNEL_NM: [f32; 3] = [611.3, 549.1, 464.2];

/// The index at wavelength `nm` of a medium of index `ior` at 587.6 nm (the d line) and
/// glTF-style `dispersion` (`20/V`), after glTF's `KHR_materials_dispersion`.
pub fn index_at(ior: f32, dispersion: f32, nm: f32) -> f32 {
    let n = ior + (ior - 1.0) * (dispersion / 20.0) * (523_655.0 / (nm * nm) - 1.5168);
    if n.is_finite() {
        n
    } else {
        ior
    }
}

/// A dispersive tinted dielectric interface in local shading space: outside (index 1) on +Z,
/// the medium on −Z, as [`Dielectric`]; one interface per colour channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dispersive {
    /// The R, G and B channels' interfaces.
    channels: [Dielectric; 3],
    /// Per-crossing transmittance, each channel in `[0, 1]`.
    tint: Vec3,
}

impl Dispersive {
    /// Glass of index `ior` at 587.6 nm, `dispersion` (`20/V`; clamped to `[0, 20]` (Abbe
    /// number 1), NaN 0) and `roughness` (each channel's index and the roughness clamped as
    /// [`Dielectric::new`] clamps them), transmission tinted by `tint` (each channel clamped
    /// to `[0, 1]`, NaN 1). `None` without dispersion (`dispersion = 0`): the glass is
    /// [`super::Glass`].
    pub fn new(ior: f32, dispersion: f32, roughness: f32, tint: Vec3) -> Option<Dispersive> {
        let d = if dispersion.is_nan() {
            0.0
        } else {
            dispersion.clamp(0.0, 20.0)
        };
        if !positive(d) {
            return None;
        }
        let ior = Dielectric::new(ior, roughness).eta();
        let unit = |x: f32| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
        Some(Dispersive {
            channels: CHANNEL_NM.map(|nm| Dielectric::new(index_at(ior, d, nm), roughness)),
            tint: Vec3::new(unit(tint.x), unit(tint.y), unit(tint.z)),
        })
    }

    /// The green channel's interface: its index is the body's for the path's radiance scale.
    pub fn interface(&self) -> &Dielectric {
        &self.channels[1]
    }

    /// The three channels' interfaces (R, G, B).
    pub fn channels(&self) -> &[Dielectric; 3] {
        &self.channels
    }

    /// The tint transmission multiplies by, linear RGB.
    pub fn tint(&self) -> Vec3 {
        self.tint
    }

    /// What a shadow ray keeps crossing this surface at cosine `cos` (with `[trace]
    /// transmissive_shadows`): `tint · (1 − F(|cos|))` per channel, as
    /// [`super::Glass::shadow_transmittance`].
    pub fn shadow_transmittance(&self, cos: f32) -> Vec3 {
        let c = if cos.is_nan() { 0.0 } else { cos.abs() };
        let r = Vec3::from(self.channels.map(|d| fresnel::dielectric(c, 1.0 / d.eta())));
        self.tint * (Vec3::ONE - r)
    }
}

impl Bxdf for Dispersive {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        self.f_pdf(wo, wi).0
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        if !positive(wo.z.abs()) {
            return None;
        }
        let x = if uc.is_nan() { 0.0 } else { uc.clamp(0.0, 1.0) } * 3.0;
        let c = (x as usize).min(2);
        let uc = (x - c as f32).clamp(0.0, 1.0 - f32::EPSILON / 2.0);
        let s = self.channels[c].sample_f(wo, uc, u)?;
        if !s.specular {
            let (f, pdf) = self.f_pdf(wo, s.wi);
            if !positive(pdf) || f == Vec3::ZERO || !f.is_finite() {
                return None;
            }
            return Some(BsdfSample { f, pdf, ..s });
        }
        let (f, pdf) = if s.wi.z * wo.z > 0.0 {
            // The mirror, shared by every channel's smooth interface.
            let r = Vec3::from(self.channels.map(|d| d.reflectance(wo.z)));
            (r / wo.z.abs(), r.element_sum() / 3.0)
        } else {
            let mut only = Vec3::ZERO;
            only[c] = s.f[c] * self.tint[c];
            (only, s.pdf / 3.0)
        };
        if f == Vec3::ZERO || !positive(pdf) || !f.is_finite() {
            return None;
        }
        Some(BsdfSample { f, pdf, ..s })
    }

    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        self.f_pdf(wo, wi).1
    }

    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        let [r, g, b] = self.channels.map(|d| d.f_pdf(wo, wi));
        let f = Vec3::new(r.0.x, g.0.x, b.0.x);
        let f = if wo.z * wi.z < 0.0 { f * self.tint } else { f };
        (f, (r.1 + g.1 + b.1) / 3.0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{chi2_test, dir, odd_dirs, Rng, ODD_VALUES};
    use super::*;

    #[test]
    fn the_index_follows_the_abbe_number() {
        // BK7: n_d 1.5168, V 64.17: n_F − n_C = (n_d − 1)/V = 0.008054, n_F 1.52238, n_C
        // 1.51432 (Schott's catalogue), within the Cauchy fit's error.
        let d = 20.0 / 64.17;
        let n_f = index_at(1.5168, d, 486.13);
        let n_c = index_at(1.5168, d, 656.27);
        assert!(((n_f - n_c) - 0.008054).abs() < 2e-5, "{}", n_f - n_c);
        assert!(
            (n_f - 1.52238).abs() < 6e-4 && (n_c - 1.51432).abs() < 6e-4,
            "{n_f} {n_c}"
        );
        assert!((index_at(1.5168, d, 587.56) - 1.5168).abs() < 1e-4);
        assert!(Dispersive::new(1.5, 0.0, 0.0, Vec3::ONE).is_none());
        let g = Dispersive::new(1.5, 1.0, 0.0, Vec3::ONE).unwrap();
        let [r, gr, b] = g.channels().map(|c| c.eta());
        assert!(r < gr && gr < b, "{r} {gr} {b}");
    }

    /// The power albedo per channel at `wo` by the lobe's own sampling, and each channel's
    /// standard error (the largest).
    fn power_albedo(b: &Dispersive, wo: Vec3, n: usize, seed: u64) -> (Vec3, f32) {
        let mut rng = Rng::new(seed);
        let (mut sum, mut sum2) = (glam::DVec3::ZERO, glam::DVec3::ZERO);
        for _ in 0..n {
            if let Some(s) = b.sample_f(wo, rng.f32(), rng.vec2()) {
                // Each channel's own radiance scale (η_i/η_o)².
                let e = Vec3::from(b.channels().map(|d| d.relative_eta(wo, s.wi)));
                let v = (s.f * e * e * (s.wi.z.abs() / s.pdf)).as_dvec3();
                sum += v;
                sum2 += v * v;
            }
        }
        let mean = sum / n as f64;
        let var = (sum2 / n as f64 - mean * mean).max(glam::DVec3::ZERO);
        (mean.as_vec3(), (var / n as f64).max_element().sqrt() as f32)
    }

    #[test]
    fn white_furnace_per_channel_from_both_sides() {
        // Clear dispersive glass, smooth and rough, outside and inside: each channel's R + T
        // within 1 % of 1 and never above (4 standard errors).
        let mut seed = 0;
        for r in [0.0f32, 0.3, 0.8] {
            let g = Dispersive::new(1.5, 2.0, r, Vec3::ONE).unwrap();
            for mu in [1.0f32, 0.5, 0.1, -1.0, -0.8, -0.4] {
                seed += 1;
                let (a, se) = power_albedo(&g, dir(mu, 0.3), 60_000, seed);
                let at = format!("r {r} μ {mu}");
                eprintln!("dispersive {at}: {a}");
                assert!(a.max_element() <= 1.0 + 4.0 * se + 1e-4, "{at}: {a} ± {se}");
                assert!(a.min_element() >= 0.99 - 4.0 * se, "{at}: {a} ± {se}");
            }
        }
    }

    #[test]
    fn the_smooth_refraction_spreads_the_channels() {
        // Blue bends most: entering at 60°, its refracted direction is nearest the normal.
        let g = Dispersive::new(1.5, 5.0, 0.0, Vec3::ONE).unwrap();
        let wo = dir(0.5, 0.0);
        let mut z = [0.0f32; 3];
        for (c, zc) in z.iter_mut().enumerate() {
            let uc = (c as f32 + 0.999) / 3.0;
            let s = g.sample_f(wo, uc, Vec2::splat(0.5)).unwrap();
            assert!(s.specular && s.wi.z < 0.0);
            assert_eq!(s.f.to_array().iter().filter(|&&v| v > 0.0).count(), 1);
            assert!(s.f[c] > 0.0);
            *zc = -s.wi.z;
        }
        assert!(z[0] < z[1] && z[1] < z[2], "{z:?}");
    }

    #[test]
    fn rough_is_reciprocal_and_sampled_by_its_pdf() {
        let g = Dispersive::new(1.5, 1.5, 0.4, Vec3::new(0.9, 0.7, 0.5)).unwrap();
        let mut rng = Rng::new(12);
        let idx = |w: Vec3| {
            if w.z > 0.0 {
                Vec3::ONE
            } else {
                Vec3::from(g.channels().map(|d| d.eta()))
            }
        };
        for _ in 0..5000 {
            let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
            let x = g.f(wo, wi) / (idx(wo) * idx(wo));
            let y = g.f(wi, wo) / (idx(wi) * idx(wi));
            let scale = x.max_element().max(y.max_element()).max(1e-4);
            assert!(
                (x - y).abs().max_element() <= 1e-3 * scale,
                "{wo} {wi}: {x} {y}"
            );
        }
        for (j, mu) in [0.7f32, -0.6].into_iter().enumerate() {
            let wo = dir(mu, 0.2);
            let name = format!("dispersive μ {mu}");
            let integral = chi2_test(
                &name,
                |u, uc| g.sample_f(wo, uc, u).filter(|s| !s.specular).map(|s| s.wi),
                |wi| g.pdf(wo, wi) as f64,
                200_000,
                1,
                500 + j as u64,
            );
            assert!(integral <= 1.0 + 2e-3, "{name}: ∫ pdf = {integral}");
        }
    }

    #[test]
    fn odd_inputs_never_give_nan_or_inf() {
        let mut rng = Rng::new(4);
        for &x in &ODD_VALUES {
            for g in [
                Dispersive::new(x, 1.0, 0.3, Vec3::splat(x)),
                Dispersive::new(1.5, x, x, Vec3::ONE),
            ]
            .into_iter()
            .flatten()
            {
                for wo in odd_dirs() {
                    for wi in odd_dirs() {
                        let (f, p) = g.f_pdf(wo, wi);
                        assert!(f.is_finite() && p.is_finite(), "{g:?}");
                    }
                    for _ in 0..16 {
                        if let Some(s) = g.sample_f(wo, rng.f32(), rng.vec2()) {
                            assert!(s.f.is_finite() && s.pdf.is_finite() && s.wi.is_finite());
                        }
                    }
                    assert!(g.shadow_transmittance(wo.z).is_finite());
                }
            }
        }
    }
}
