//! A thin film on a smooth `glass` or `liquid` body (`thin_film`, `thin_film_ior`,
//! `thin_film_amount`): the film's Airy reflectance ([`ThinFilm`]) replaces the interface's
//! Fresnel reflectance, per colour channel, and the body transmits the rest.
//!
//! ```text
//! R(c) = (1 − a) F(c; η) + a F_film(c; η_film over η)       per channel
//! T(c) = 1 − R(c)                                             tinted by base per crossing
//! ```
//!
//! with `c` the cosine outside (from inside, the one Snell's law maps the inside direction to;
//! beyond the critical angle `R = 1`), `a` the film's amount. A lossless stack reflects the
//! same from either side at Snell-related angles (its transmittance is reciprocal and `R = 1 −
//! T`), so one function serves both sides; the film is on the outside face, the body's index
//! `η` under it. The interface is smooth: a delta mirror with the RGB reflectance `R` and a
//! delta refraction with `T`, picked by their channel means, so each channel's expectation is
//! `R + T = 1` (lossless without a tint, as the bare glass). Frustrated total internal
//! reflection through a film thinner than a wavelength is not modelled (`R = 1` beyond the
//! critical angle, as without the film). A rough interface under a film needs the film in its
//! microfacet lobes and their multiple scattering, and is left for later (named).

use glam::{Vec2, Vec3};

use super::dielectric::Dielectric;
use super::film::ThinFilm;
use super::{fresnel, positive, BsdfSample, Bxdf};

/// A smooth tinted dielectric interface under a thin film, in local shading space: outside
/// (index 1) on +Z, the body on −Z, as [`Dielectric`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FilmedGlass {
    /// The smooth interface (its index).
    interface: Dielectric,
    /// Per-crossing transmittance, each channel in `[0, 1]`.
    tint: Vec3,
    /// The film on the outside face.
    film: ThinFilm,
}

/// The outside cosine for a direction at signed cosine `cos` (negative inside) through a
/// smooth interface of index `eta`; `None` beyond the critical angle inside.
#[inline]
fn outside_cosine(cos: f32, eta: f32) -> Option<f32> {
    if cos >= 0.0 {
        return Some(cos.min(1.0));
    }
    let c = (-cos).min(1.0);
    let sin2 = (1.0 - c * c) * eta * eta;
    if sin2 >= 1.0 {
        None
    } else {
        Some((1.0 - sin2).sqrt())
    }
}

impl FilmedGlass {
    /// A smooth interface of index `ior` (clamped as [`Dielectric::new`] clamps it), tinted by
    /// `tint` per crossing (each channel clamped to `[0, 1]`, NaN to one), under `film`.
    /// `None` when the interface of `ior` and `roughness` is not smooth (not drawn: the
    /// caller keeps the bare glass and names the film).
    pub fn new(ior: f32, roughness: f32, tint: Vec3, film: ThinFilm) -> Option<FilmedGlass> {
        if !Dielectric::new(ior, roughness).is_specular() {
            return None;
        }
        let unit = |x: f32| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
        Some(FilmedGlass {
            interface: Dielectric::new(ior, 0.0),
            tint: Vec3::new(unit(tint.x), unit(tint.y), unit(tint.z)),
            film,
        })
    }

    /// The interface (its index).
    pub fn interface(&self) -> &Dielectric {
        &self.interface
    }

    /// The per-crossing transmittance.
    pub fn tint(&self) -> Vec3 {
        self.tint
    }

    /// `(R, T)` per channel for a direction at signed cosine `cos` to the normal (negative
    /// inside): the film-covered interface's reflectance and `1 − R`, before the tint.
    pub fn split(&self, cos: f32) -> (Vec3, Vec3) {
        let cos = if cos.is_nan() { 0.0 } else { cos };
        let eta = self.interface.eta();
        let Some(c) = outside_cosine(cos, eta) else {
            return (Vec3::ONE, Vec3::ZERO);
        };
        let bare = fresnel::dielectric(c, 1.0 / eta);
        let a = self.film.amount();
        let r = (Vec3::splat((1.0 - a) * bare) + a * self.film.reflectance(c, eta))
            .clamp(Vec3::ZERO, Vec3::ONE);
        (r, Vec3::ONE - r)
    }

    /// What a shadow ray keeps crossing the surface at cosine `cos` to its normal (with
    /// `[trace] transmissive_shadows`): `tint · T(|cos|)`, as
    /// [`super::Glass::shadow_transmittance`] with the film's reflectance.
    pub fn shadow_transmittance(&self, cos: f32) -> Vec3 {
        let c = if cos.is_nan() { 0.0 } else { cos.abs() };
        self.tint * self.split(c).1
    }
}

impl Bxdf for FilmedGlass {
    fn f(&self, _wo: Vec3, _wi: Vec3) -> Vec3 {
        Vec3::ZERO
    }

    fn sample_f(&self, wo: Vec3, uc: f32, _u: Vec2) -> Option<BsdfSample> {
        let wo = wo.normalize_or_zero();
        let co = wo.z;
        if !positive(co.abs()) || !co.is_finite() {
            return None;
        }
        let (r, t) = self.split(co);
        let p_r = (r.element_sum() / 3.0).clamp(0.0, 1.0);
        let uc = if uc.is_nan() { 0.0 } else { uc };
        let (wi, f, pdf) = if uc < p_r {
            (Vec3::new(-wo.x, -wo.y, co), r / co.abs(), p_r)
        } else {
            // Snell through the smooth normal on wo's side.
            let eta = self.interface.eta();
            let etap = if co > 0.0 { eta } else { 1.0 / eta };
            let c = co.abs();
            let sin2_t = (1.0 - c * c).max(0.0) / (etap * etap);
            if sin2_t >= 1.0 {
                return None;
            }
            let ct = (1.0 - sin2_t).sqrt();
            let n = if co > 0.0 { Vec3::Z } else { -Vec3::Z };
            let wi = (-wo / etap + (c / etap - ct) * n).normalize_or_zero();
            if !positive(wi.z.abs()) {
                return None;
            }
            // Radiance is squeezed by the index ratio, as the bare interface's refraction.
            let f = t * self.tint / (wi.z.abs() * etap * etap);
            (wi, f, 1.0 - p_r)
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
    use super::super::Glass;
    use super::*;

    fn film(d: f32, n: f32) -> ThinFilm {
        ThinFilm::new(d, n, 1.0).unwrap()
    }

    /// `Σ f |μi| / pdf · (η_i/η_o)²` over draws at `wo`: each channel's power albedo, split
    /// into the share kept on `wo`'s side and the share that crossed.
    fn power_split(g: &FilmedGlass, wo: Vec3, n: usize, seed: u64) -> (Vec3, Vec3) {
        let mut rng = Rng::new(seed);
        let (mut r, mut t) = (Vec3::ZERO, Vec3::ZERO);
        for _ in 0..n {
            if let Some(s) = g.sample_f(wo, rng.f32(), rng.vec2()) {
                assert!(s.specular && s.pdf > 0.0 && s.f.is_finite());
                let e = g.interface().relative_eta(wo, s.wi);
                let v = s.f * s.wi.z.abs() / s.pdf * (e * e);
                if s.wi.z * wo.z > 0.0 {
                    r += v;
                } else {
                    t += v;
                }
            }
        }
        (r / n as f32, t / n as f32)
    }

    #[test]
    fn reflection_plus_transmission_is_one_in_every_channel() {
        // Clear (tint 1, absorption is the body's, not the surface's): R + T = 1 exactly per
        // channel from both sides, and the draws carry that split (each draw's weight is R or
        // T over its channel mean: the expectation is exact, the estimate within the lobe
        // choice's noise).
        let mut seed = 0;
        for (ior, d, n) in [
            (1.5f32, 300.0f32, 1.33f32),
            (1.33, 120.0, 1.6),
            (2.4, 700.0, 1.45),
        ] {
            let g = FilmedGlass::new(ior, 0.0, Vec3::ONE, film(d, n)).unwrap();
            for mu in [1.0f32, 0.7, 0.3, 0.05, -1.0, -0.8, -0.3] {
                let (r, t) = g.split(mu);
                assert!(((r + t) - Vec3::ONE).abs().max_element() < 1e-6, "{mu}");
                seed += 1;
                let (rs, ts) = power_split(&g, dir(mu, 0.4), 20_000, seed);
                let sum = rs + ts;
                let at = format!("ior {ior} film {d} nm {n} μ {mu}");
                assert!((sum - Vec3::ONE).abs().max_element() < 0.01, "{at}: {sum}");
                assert!(sum.max_element() <= 1.01, "{at}: {sum}");
                // The mirror's share is R up to the lobe choice's binomial noise.
                let se = (r.element_sum() / 3.0 * (1.0 - r.element_sum() / 3.0) / 20_000.0)
                    .sqrt()
                    .max(1e-6);
                let mean_r = rs.element_sum() / 3.0;
                assert!(
                    (mean_r - r.element_sum() / 3.0).abs() < 5.0 * se + 1e-5,
                    "{at}: {rs} vs {r}"
                );
            }
        }
    }

    #[test]
    fn the_film_colours_the_reflection_and_its_own_index_is_bare_glass() {
        // A 300 nm film of index 1.33 over glass: the reflectance differs from the bare 4 %
        // and differs between channels (iridescence); from inside, beyond the critical angle,
        // everything is reflected.
        let g = FilmedGlass::new(1.5, 0.0, Vec3::ONE, film(300.0, 1.33)).unwrap();
        let (r, _) = g.split(1.0);
        assert!((r - Vec3::splat(0.04)).abs().max_element() > 0.005, "{r}");
        assert!(r.max_element() - r.min_element() > 0.005, "{r}");
        assert_eq!(g.split(-0.3), (Vec3::ONE, Vec3::ZERO));
        // From inside at the Snell-related angle, the same reflectance as outside.
        let c_out = 0.6f32;
        let c_in = (1.0 - (1.0 - c_out * c_out) / (1.5 * 1.5)).sqrt();
        assert!((g.split(-c_in).0 - g.split(c_out).0).abs().max_element() < 1e-5);
        // A film of the body's own index is no film: the bare glass's Fresnel.
        let same = FilmedGlass::new(1.5, 0.0, Vec3::ONE, film(300.0, 1.5)).unwrap();
        let bare = Glass::new(1.5, 0.0, Vec3::ONE);
        for mu in [1.0f32, 0.5, 0.1, -0.9, -0.7] {
            let want = bare.interface().reflectance(mu);
            let got = same.split(mu).0;
            assert!(
                (got - Vec3::splat(want)).abs().max_element() < 2e-3,
                "{mu}: {got} vs {want}"
            );
        }
        // Half the amount: halfway between the bare and the full film.
        let half = FilmedGlass::new(
            1.5,
            0.0,
            Vec3::ONE,
            ThinFilm::new(300.0, 1.33, 0.5).unwrap(),
        )
        .unwrap();
        let bare_r = bare.interface().reflectance(0.8);
        let want = 0.5 * (Vec3::splat(bare_r) + g.split(0.8).0);
        assert!((half.split(0.8).0 - want).abs().max_element() < 1e-5);
    }

    #[test]
    fn tint_shadows_and_rough_interfaces() {
        let tint = Vec3::new(1.0, 0.5, 0.25);
        let g = FilmedGlass::new(1.5, 0.01, tint, film(250.0, 1.38)).unwrap();
        let t = g.split(1.0).1;
        assert!((g.shadow_transmittance(1.0) - t * tint).abs().max_element() < 1e-6);
        assert_eq!(g.shadow_transmittance(-1.0), g.shadow_transmittance(1.0));
        // The tint takes only transmitted light: the crossing share per channel is T · tint.
        let (rs, ts) = power_split(&g, dir(0.9, 0.0), 20_000, 77);
        let (r, t) = g.split(0.9);
        assert!(
            (rs + ts - (r + t * tint)).abs().max_element() < 0.02,
            "{rs} {ts}"
        );
        // Not smooth: not drawn here (the caller keeps the bare glass).
        assert!(FilmedGlass::new(1.5, 0.05, tint, film(250.0, 1.38)).is_none());
        assert!(FilmedGlass::new(1.5, 0.5, tint, film(250.0, 1.38)).is_none());
    }

    #[test]
    fn odd_inputs_never_give_nan_or_inf() {
        let mut rng = Rng::new(19);
        for &x in &ODD_VALUES {
            let Some(f) = ThinFilm::new(300.0, x, 1.0) else {
                continue;
            };
            for g in [
                FilmedGlass::new(x, 0.0, Vec3::splat(x), f),
                FilmedGlass::new(1.5, x, Vec3::ONE, f),
            ]
            .into_iter()
            .flatten()
            {
                for wo in odd_dirs() {
                    let (r, t) = g.split(wo.z);
                    assert!(r.is_finite() && t.is_finite());
                    assert!(g.shadow_transmittance(x).is_finite());
                    for uc in [rng.f32(), 0.0, 1.0, x] {
                        if let Some(s) = g.sample_f(wo, uc, rng.vec2()) {
                            assert!(s.f.is_finite() && s.pdf.is_finite() && s.wi.is_finite());
                        }
                    }
                }
            }
        }
    }
}
