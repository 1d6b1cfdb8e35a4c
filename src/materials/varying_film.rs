//! A thin film whose amount and thickness vary over a surface (glTF's
//! `KHR_materials_iridescence` textures): [`Iridescent`] materials at the film's thickness
//! levels, each built the first time a hit needs it, and mixed per hit by the amount.
//!
//! An [`Iridescent`] integrates its film-covered layer's albedo when built (milliseconds), so
//! it cannot be built at every hit. Two things make per-hit values affordable:
//!
//! - **Amount**: both Fresnel terms are linear in the film's weight `a`, so is everything built
//!   from them (the layer's albedo table, its `E_avg`, the conductor's mean Fresnel), so a hit's
//!   material is the mix of the material at `a = 0` and at `a = 1` (`Iridescent::blend`), a
//!   few dozen multiplications.
//! - **Thickness**: the thickness fraction `t` in `[0, 1]` (the texture's G, which glTF maps
//!   onto `min..max`) is rounded to one of [`VaryingFilm::LEVELS`] levels, the 8-bit texel's
//!   own resolution (a 300 nm range in steps of 1.2 nm; a filtered lookup between two texels
//!   takes the nearest level). Each level's material is built once, on first use, and kept:
//!   a pure function of the level, so the bytes do not depend on which thread built it.

use std::sync::OnceLock;

use glam::Vec3;

use super::{Iridescent, ThinFilm};

/// A film's material at one thickness level (amount 1 where the amount varies) with its mean
/// conductor Fresnel; `None` where that level's thickness is 0 (no film).
type Level = Option<(Iridescent, Vec3)>;

/// What lies under the film: [`Iridescent::new`]'s first five parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnderFilm {
    /// Base colour, linear RGB in `[0, 1]`.
    pub base: Vec3,
    /// Perceptual roughness in `[0, 1]` (α = roughness²).
    pub roughness: f32,
    /// Metalness in `[0, 1]`.
    pub metalness: f32,
    /// The dielectric layer's F0 (`plain`'s `specular`), in `[0, 1]`.
    pub specular: f32,
    /// The conductor's Schlick exponent (5 is Schlick's).
    pub power: f32,
}

/// `plain`'s model (or a conductor) under a film of varying amount and thickness.
#[derive(Debug)]
pub struct VaryingFilm {
    /// Base colour, linear RGB.
    base: Vec3,
    /// Perceptual roughness (α = roughness²).
    roughness: f32,
    /// Metalness in `[0, 1]`.
    metalness: f32,
    /// The dielectric layer's F0 (`plain`'s `specular`).
    specular: f32,
    /// The conductor's Schlick exponent.
    power: f32,
    /// The film's index.
    ior: f32,
    /// The film's thickness at `t = 0` and at `t = 1`, nm (either may be the larger).
    thickness: [f32; 2],
    /// The film's weight where it is fixed; `None`: given per hit.
    amount: Option<f32>,
    /// The material at amount 0 (where the amount varies).
    bare: OnceLock<(Iridescent, Vec3)>,
    /// One slot per thickness level.
    levels: Box<[OnceLock<Level>]>,
}

impl VaryingFilm {
    /// Thickness levels where the thickness varies: the 8-bit texel's.
    pub const LEVELS: usize = 256;

    /// `under` a film of index `ior` whose thickness goes from `thickness[0]` to
    /// `thickness[1]` nm over `t` in `[0, 1]` (in [`VaryingFilm::LEVELS`] levels; one level,
    /// `thickness[1]`, when `varies_thickness` is false), at the fixed weight `amount` or, with
    /// `None`, a weight given per hit. Builds nothing yet.
    pub fn new(
        under: UnderFilm,
        ior: f32,
        thickness: [f32; 2],
        varies_thickness: bool,
        amount: Option<f32>,
    ) -> VaryingFilm {
        let n = if varies_thickness { Self::LEVELS } else { 1 };
        let UnderFilm {
            base,
            roughness,
            metalness,
            specular,
            power,
        } = under;
        VaryingFilm {
            base,
            roughness,
            metalness,
            specular,
            power,
            ior,
            thickness,
            amount,
            bare: OnceLock::new(),
            levels: (0..n).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The level of thickness fraction `t` (clamped to `[0, 1]`, NaN 1).
    fn level(&self, t: f32) -> usize {
        let n = self.levels.len();
        if n == 1 {
            return 0;
        }
        let t = if t.is_nan() { 1.0 } else { t.clamp(0.0, 1.0) };
        ((t * (n - 1) as f32).round() as usize).min(n - 1)
    }

    /// The thickness of level `k`, nm.
    fn level_thickness(&self, k: usize) -> f32 {
        let n = self.levels.len();
        if n == 1 {
            return self.thickness[1];
        }
        let s = k as f32 / (n - 1) as f32;
        self.thickness[0] + (self.thickness[1] - self.thickness[0]) * s
    }

    /// The film of level `k` at weight `amount`, or `None` where it is no film.
    fn film(&self, k: usize, amount: f32) -> Option<ThinFilm> {
        ThinFilm::new(self.level_thickness(k), self.ior, amount)
    }

    /// The material at weight `amount` and thickness fraction `t` (ignored where the thickness
    /// is fixed; `amount` where the weight is fixed): `None` where there is no film (weight or
    /// thickness 0), which is the bare material the caller draws.
    pub fn at(&self, amount: f32, t: f32) -> Option<Iridescent> {
        let k = self.level(t);
        let build = |a: f32| {
            self.film(k, a).map(|film| {
                Iridescent::with_amount(
                    self.base,
                    self.roughness,
                    self.metalness,
                    self.specular,
                    self.power,
                    film,
                    a,
                )
            })
        };
        let amount = match self.amount {
            Some(a) => return self.levels[k].get_or_init(|| build(a)).map(|(m, _)| m),
            None => amount,
        };
        if !super::positive(amount) {
            return None;
        }
        let full = self.levels[k].get_or_init(|| build(1.0)).as_ref()?;
        let bare = self.bare.get_or_init(|| {
            // The amount-0 tables are the bare layer's: any film gives them (its weight is 0).
            Iridescent::with_amount(
                self.base,
                self.roughness,
                self.metalness,
                self.specular,
                self.power,
                full.0.film(),
                0.0,
            )
        });
        Some(Iridescent::blend(
            (&bare.0, bare.1),
            (&full.0, full.1),
            amount.min(1.0),
            self.roughness,
            self.power,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::testutil::{albedo, dir, Rng};
    use crate::materials::Bxdf;

    fn u(base: Vec3, roughness: f32, metalness: f32, specular: f32, power: f32) -> UnderFilm {
        UnderFilm {
            base,
            roughness,
            metalness,
            specular,
            power,
        }
    }

    /// The largest relative difference of `f` and of the pdf between two materials over
    /// random direction pairs away from the horizon.
    fn worst(a: &Iridescent, b: &Iridescent, seed: u64) -> (f32, f32) {
        let mut rng = Rng::new(seed);
        let (mut wf, mut wp) = (0.0f32, 0.0f32);
        for _ in 0..2000 {
            let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
            if wo.z < 0.2 || wi.z < 0.2 {
                continue;
            }
            let ((fa, pa), (fb, pb)) = (a.f_pdf(wo, wi), b.f_pdf(wo, wi));
            wf = wf.max(((fa - fb).abs() / fb.max(Vec3::splat(1e-3))).max_element());
            wp = wp.max((pa - pb).abs() / pb.max(1e-3));
        }
        (wf, wp)
    }

    #[test]
    fn a_fixed_film_is_the_material_of_its_level() {
        // Fixed amount: each level is `Iridescent::new` at its thickness, bit for bit.
        let base = Vec3::new(0.6, 0.3, 0.2);
        let v = VaryingFilm::new(
            u(base, 0.3, 0.4, 0.04, 5.0),
            1.33,
            [200.0, 600.0],
            true,
            Some(0.8),
        );
        for (t, d) in [
            (0.0f32, 200.0f32),
            (1.0, 600.0),
            (0.5, 200.0 + (600.0 - 200.0) * (128.0 / 255.0)),
        ] {
            let want = Iridescent::new(
                base,
                0.3,
                0.4,
                0.04,
                5.0,
                ThinFilm::new(d, 1.33, 0.8).unwrap(),
            );
            assert_eq!(v.at(0.1, t), Some(want), "t {t}");
        }
        // A fixed thickness is the maximum, whatever `t` says.
        let v = VaryingFilm::new(
            u(base, 0.3, 0.0, 0.04, 5.0),
            1.5,
            [100.0, 400.0],
            false,
            Some(1.0),
        );
        let want = Iridescent::new(
            base,
            0.3,
            0.0,
            0.04,
            5.0,
            ThinFilm::new(400.0, 1.5, 1.0).unwrap(),
        );
        assert_eq!(v.at(1.0, 0.0), Some(want));
        // Thickness 0 is no film.
        let v = VaryingFilm::new(
            u(base, 0.3, 0.0, 0.04, 5.0),
            1.5,
            [0.0, 400.0],
            true,
            Some(1.0),
        );
        assert_eq!(v.at(1.0, 0.0), None);
        assert!(v.at(1.0, 1.0).is_some());
    }

    #[test]
    fn a_varying_amount_is_close_to_the_material_built_at_it() {
        // The mix of the amount-0 and amount-1 ends against a material integrated at the
        // amount itself: the same Fresnel terms exactly, tables within the ends' margins.
        let (mut worst_f, mut worst_p) = (0.0f32, 0.0f32);
        for &(r, m) in &[(0.1f32, 0.0f32), (0.4, 0.0), (0.3, 1.0), (0.5, 0.5)] {
            let base = Vec3::new(0.8, 0.5, 0.3);
            let v = VaryingFilm::new(u(base, r, m, 0.04, 5.0), 1.8, [300.0, 300.0], false, None);
            assert_eq!(v.at(0.0, 1.0), None);
            // At amount 1 the mix is the end itself.
            let one = Iridescent::new(
                base,
                r,
                m,
                0.04,
                5.0,
                ThinFilm::new(300.0, 1.8, 1.0).unwrap(),
            );
            assert_eq!(v.at(1.0, 1.0), Some(one));
            for &a in &[0.25f32, 0.5, 0.9] {
                let got = v.at(a, 1.0).unwrap();
                let want =
                    Iridescent::new(base, r, m, 0.04, 5.0, ThinFilm::new(300.0, 1.8, a).unwrap());
                for i in 0..=20 {
                    let c = i as f32 / 20.0;
                    assert_eq!(got.dielectric_fresnel(c), want.dielectric_fresnel(c));
                    let (e_got, e_want) = (got.e(c), want.e(c));
                    assert!(
                        (e_got - e_want).abs().max_element() < 5e-3,
                        "r {r} a {a} μ {c}: {e_got} vs {e_want}"
                    );
                }
                let (wf, wp) = worst(&got, &want, 3);
                worst_f = worst_f.max(wf);
                worst_p = worst_p.max(wp);
                assert!(
                    wf < 0.02 && wp < 2e-3,
                    "r {r} m {m} a {a}: f {wf}, pdf {wp}"
                );
            }
        }
        eprintln!(
            "varying film amount vs built: largest relative difference of f {worst_f:.5}, of the \
             pdf {worst_p:.5}"
        );
    }

    #[test]
    fn a_mixed_white_film_never_reflects_more_than_it_receives() {
        let v = VaryingFilm::new(
            u(Vec3::ONE, 0.3, 0.0, 0.04, 5.0),
            1.8,
            [250.0, 250.0],
            false,
            None,
        );
        for (j, &a) in [0.3f32, 0.7].iter().enumerate() {
            let m = v.at(a, 1.0).unwrap();
            for (k, &c) in [1.0f32, 0.5, 0.15].iter().enumerate() {
                let (e, se) = albedo(&m, dir(c, 0.3), 60_000, (j * 10 + k) as u64);
                assert!(
                    e.max_element() <= 1.0 + 4.0 * se + 1e-3,
                    "a {a} cos {c}: {e} ± {se}"
                );
                assert!(
                    e.min_element() >= 0.98 - 4.0 * se,
                    "a {a} cos {c}: {e} ± {se}"
                );
            }
        }
    }

    #[test]
    fn levels_are_built_once_and_any_thread_gets_the_same() {
        let v = std::sync::Arc::new(VaryingFilm::new(
            u(Vec3::splat(0.5), 0.2, 0.0, 0.04, 5.0),
            1.33,
            [100.0, 400.0],
            true,
            None,
        ));
        let ts = [0.1f32, 0.5, 0.9, 0.5];
        let got: Vec<Vec<Option<Iridescent>>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..3)
                .map(|_| {
                    let v = v.clone();
                    s.spawn(move || ts.iter().map(|&t| v.at(0.6, t)).collect::<Vec<_>>())
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(got.iter().all(|g| g == &got[0]));
        assert_ne!(got[0][0], got[0][1]);
        assert_eq!(got[0][1], got[0][3]);
        assert_eq!(v.levels.iter().filter(|l| l.get().is_some()).count(), 3);
    }
}
