//! A thin dielectric film on a surface (the `thin_film`, `thin_film_ior` and `thin_film_amount`
//! keys): the Airy reflectance of the film and what lies under it, integrated over the
//! visible spectrum in closed form after Belcour & Barla, "A Practical Extension to
//! Microfacet Theory for the Modeling of Varying Iridescence" (2017), the model glTF's
//! `KHR_materials_iridescence` also uses.
//!
//! Per polarisation, with `r12` the outside→film amplitude, `r23` the film→substrate one
//! (both real here), `R = r²`, `T121 = 1 − R12` and `δ = 2π·OPD/λ` the phase the round trip
//! through the film adds (`OPD = 2 η_film d cos θ_film`), the exact Airy sum is
//!
//! ```text
//! R(δ) = |(r12 + r23 e^{iδ}) / (1 + r12 r23 e^{iδ})|²
//!      = 1 − K [1 + 2 Σ_{m≥1} q^m cos(m δ)],   K = T121 (1 − R23) / (1 − R12 R23),  q = −r12 r23
//! ```
//!
//! (a Poisson kernel: the two forms are equal term by term). Each `cos(m δ)` integrates against
//! a colour matching function in closed form when the function is a sum of Gaussians in
//! wavenumber: Belcour & Barla's fit of CIE 1931 gives `S(m·OPD)` per X, Y, Z, converted here
//! to linear Rec.709 and white-balanced so that `S(0) = 1` in every channel (a flat spectrum
//! keeps its value; the film under an equal-energy white). So the film costs a few terms of a
//! geometric series (`|q| ≤ |r12|`, stopped once a term is below 10⁻⁵), and thicker films need
//! fewer, their high orders being averaged out by the spectrum.

use glam::Vec3;

/// The thickest film drawn, nm: at 20 µm every interference order is averaged out over the
/// visible spectrum to below 10⁻¹⁰, so a thicker film reflects the same (the incoherent sum).
pub const THICKNESS_MAX: f32 = 20_000.0;

/// The film's index is clamped to `[1, IOR_MAX]`, as the format's `ior`.
pub const IOR_MAX: f32 = 4.0;

/// The largest substrate index taken (a perfect reflector's, `F0 = 1`): its film reflects all
/// but about 10⁻⁶.
pub const IOR_SUBSTRATE_MAX: f32 = 1e7;

/// The series stops after this many orders (only reached within a few degrees of grazing, on
/// films under ~50 nm, where `|r12| → 1`).
const ORDERS_MAX: u32 = 48;

/// A term of the series below this (times the spectrum's bound) ends it.
const TERM_MIN: f32 = 1e-5;

/// Belcour & Barla's Gaussian fit of the CIE 1931 colour matching functions in wavenumber
/// (per metre): centres, variances and amplitudes `val·√(2π var) / ∫ȳ dλ` of X, Y, Z and X's
/// second lobe (their published constants; `∫ȳ dλ = 1.0685·10⁻⁷ m`).
const POS: [f32; 4] = [1.6810e6, 1.7953e6, 2.2084e6, 2.2399e6];
/// See [`POS`].
const VAR: [f32; 4] = [4.3278e9, 9.3046e9, 6.6121e9, 4.5282e9];
/// See [`POS`].
const AMP: [f32; 4] = [0.846_59, 1.000_221_9, 1.001_122_5, 0.153_868_3];

/// CIE XYZ → linear Rec.709 (D65), each row divided by that channel's value for the
/// equal-energy white `S(0)`, so `S(0)` is 1 in every channel.
const XYZ_TO_RGB: [[f32; 3]; 3] = [
    [
        3.240_454_2 / 1.205_368_8,
        -1.537_138_5 / 1.205_368_8,
        -0.498_531_4 / 1.205_368_8,
    ],
    [
        -0.969_266 / 0.948_319_5,
        1.876_010_8 / 0.948_319_5,
        0.041_556 / 0.948_319_5,
    ],
    [
        0.055_643_4 / 0.910_009_7,
        -0.204_025_9 / 0.910_009_7,
        1.057_225_2 / 0.910_009_7,
    ],
];

/// The smallest Gaussian variance: `exp(−φ² VAR_MIN)` bounds every channel's damping.
const VAR_MIN: f32 = 4.3278e9;

/// `∫ cos(2π OPD/λ) s(λ) dλ` per linear Rec.709 channel for a path difference `opd` in nm,
/// normalised so that `opd = 0` gives 1 (the spectrum's mean); with its bound, for the series'
/// stop: `|S| ≤ 1.7·exp(−φ² VAR_MIN)` with `φ = 2π·opd·10⁻⁹`.
fn sensitivity(opd: f32) -> (Vec3, f32) {
    let phase = std::f32::consts::TAU * opd * 1e-9;
    let p2 = phase * phase;
    let g = |k: usize| AMP[k] * (POS[k] * phase).cos() * (-p2 * VAR[k]).exp();
    let xyz = [g(0) + g(3), g(1), g(2)];
    let row = |r: &[f32; 3]| r[0] * xyz[0] + r[1] * xyz[1] + r[2] * xyz[2];
    (
        Vec3::new(
            row(&XYZ_TO_RGB[0]),
            row(&XYZ_TO_RGB[1]),
            row(&XYZ_TO_RGB[2]),
        ),
        1.7 * (-p2 * VAR_MIN).exp(),
    )
}

/// A thin dielectric film: its thickness, index and the weight with which its reflectance
/// replaces the bare surface's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ThinFilm {
    /// Thickness, nm, in `(0, THICKNESS_MAX]`.
    thickness: f32,
    /// Index of refraction (relative to the outside, index 1), in `[1, IOR_MAX]`.
    ior: f32,
    /// Weight in `(0, 1]`: the Fresnel term is `(1 − amount) F + amount F_film`.
    amount: f32,
}

/// Per polarisation, `(K, q)` of the series, or `K = 0` where the substrate reflects everything.
#[derive(Clone, Copy)]
struct Pol {
    k: f32,
    q: f32,
}

impl ThinFilm {
    /// A film of `thickness` nm (the format's `thin_film`), index `ior` (`thin_film_ior`) and
    /// weight `amount` (`thin_film_amount`); `None` when it changes nothing (thickness or
    /// amount not above 0, NaN included). Thickness is clamped to [`THICKNESS_MAX`], `ior` to
    /// `[1, IOR_MAX]` (NaN 1.5), amount to 1.
    pub fn new(thickness: f32, ior: f32, amount: f32) -> Option<ThinFilm> {
        if !(super::positive(thickness) && super::positive(amount)) {
            return None;
        }
        let ior = if ior.is_nan() {
            1.5
        } else {
            ior.clamp(1.0, IOR_MAX)
        };
        Some(ThinFilm {
            thickness: thickness.min(THICKNESS_MAX),
            ior,
            amount: amount.min(1.0),
        })
    }

    /// The weight with which the film's reflectance replaces the bare surface's, in `(0, 1]`.
    pub fn amount(&self) -> f32 {
        self.amount
    }

    /// The outside→film cosine's series terms for a substrate of index `eta3` (relative to
    /// the outside): per polarisation (s, p), and the optical path difference, nm.
    fn terms(&self, cos1: f32, eta3: f32) -> ([Pol; 2], f32) {
        let c1 = if cos1.is_nan() {
            0.0
        } else {
            cos1.clamp(0.0, 1.0)
        };
        let n2 = self.ior;
        let s1 = 1.0 - c1 * c1;
        // Snell into the film (index ≥ 1: no total internal reflection) and the substrate.
        let c2 = (1.0 - s1 / (n2 * n2)).max(0.0).sqrt();
        let s3 = s1 / (eta3 * eta3);
        let opd = 2.0 * n2 * self.thickness * c2;
        let amp = |a: f32, b: f32| if a + b > 0.0 { (a - b) / (a + b) } else { 0.0 };
        // Outside→film amplitudes: s = (c1 − n2 c2)/(c1 + n2 c2), p = (n2 c1 − c2)/(n2 c1 + c2).
        let r12 = [amp(c1, n2 * c2), amp(n2 * c1, c2)];
        if s3 >= 1.0 {
            // Total internal reflection at the substrate: every order returns, R = 1.
            return ([Pol { k: 0.0, q: 0.0 }; 2], opd);
        }
        let c3 = (1.0 - s3).sqrt();
        let r23 = [amp(n2 * c2, eta3 * c3), amp(eta3 * c2, n2 * c3)];
        let pol = |i: usize| {
            let (r12, r23) = (r12[i], r23[i]);
            let (rr12, rr23) = (r12 * r12, r23 * r23);
            let den = 1.0 - rr12 * rr23;
            let k = if den > 0.0 {
                ((1.0 - rr12) * (1.0 - rr23) / den).clamp(0.0, 1.0)
            } else {
                0.0
            };
            Pol { k, q: -r12 * r23 }
        };
        ([pol(0), pol(1)], opd)
    }

    /// The film's reflectance over a dielectric of index `eta3` (relative to the outside; 1
    /// for a film over nothing, up to `+∞` for a perfect reflector) at `cos1`, the cosine
    /// between the direction and the (micro)normal outside: unpolarised, per linear Rec.709
    /// channel, in `[0, 1]`. The film alone: [`ThinFilm::amount`] is not applied.
    pub fn reflectance(&self, cos1: f32, eta3: f32) -> Vec3 {
        let eta3 = if eta3.is_nan() {
            1.0
        } else {
            eta3.clamp(1e-3, IOR_SUBSTRATE_MAX)
        };
        let (pols, opd) = self.terms(cos1, eta3);
        let k = 0.5 * (pols[0].k + pols[1].k);
        let mut sum = Vec3::splat(k);
        // 2·½(K_s q_s^m + K_p q_p^m): the m-th order's weight, both polarisations.
        let (mut ws, mut wp) = (pols[0].k, pols[1].k);
        for m in 1..=ORDERS_MAX {
            ws *= pols[0].q;
            wp *= pols[1].q;
            let w = ws + wp;
            let (s, bound) = sensitivity(m as f32 * opd);
            sum += w * s;
            if (ws.abs() + wp.abs()) * bound < TERM_MIN {
                break;
            }
        }
        (Vec3::ONE - sum).clamp(Vec3::ZERO, Vec3::ONE)
    }

    /// As [`ThinFilm::reflectance`] over a substrate whose index differs per channel (a
    /// conductor taken as the dielectric of its F0, glTF's convention): each channel is that
    /// channel of the film over its own index.
    pub fn reflectance_per_channel(&self, cos1: f32, eta3: Vec3) -> Vec3 {
        if eta3.x == eta3.y && eta3.y == eta3.z {
            return self.reflectance(cos1, eta3.x);
        }
        Vec3::new(
            self.reflectance(cos1, eta3.x).x,
            self.reflectance(cos1, eta3.y).y,
            self.reflectance(cos1, eta3.z).z,
        )
    }
}

/// The index of a dielectric whose reflectance at normal incidence is `f0`: `(1 + √f0)/(1 −
/// √f0)`, at most [`IOR_SUBSTRATE_MAX`] (`f0 = 1`, a perfect reflector).
pub fn ior_from_f0(f0: f32) -> f32 {
    let s = if f0.is_nan() {
        0.0
    } else {
        f0.clamp(0.0, 1.0).sqrt()
    };
    ((1.0 + s) / (1.0 - s).max(1e-30)).min(IOR_SUBSTRATE_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::fresnel;
    use std::f64::consts::PI;

    /// CIE 1931 colour matching functions by Wyman, Sloan & Shirley's multi-lobe fit (2013),
    /// λ in nm: an independent fit from the one the film uses.
    fn cmf(l: f64) -> [f64; 3] {
        let g = |mu: f64, s1: f64, s2: f64| {
            let t = (l - mu) / if l < mu { s1 } else { s2 };
            (-0.5 * t * t).exp()
        };
        [
            1.056 * g(599.8, 37.9, 31.0) + 0.362 * g(442.0, 16.0, 26.7)
                - 0.065 * g(501.1, 20.4, 26.2),
            0.821 * g(568.8, 46.9, 40.5) + 0.286 * g(530.9, 16.3, 31.1),
            1.217 * g(437.0, 11.8, 36.0) + 0.681 * g(459.0, 26.0, 13.8),
        ]
    }

    /// The film's reflectance at one wavelength by the characteristic (transfer) matrix of the
    /// stack in complex f64 arithmetic, per polarisation, averaged: written from the
    /// textbook (Born & Wolf §1.6), not from the series.
    fn airy_f64(cos1: f64, n2: f64, n3: f64, d_nm: f64, l_nm: f64) -> f64 {
        type C = (f64, f64);
        let mul = |a: C, b: C| (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
        let add = |a: C, b: C| (a.0 + b.0, a.1 + b.1);
        let sub = |a: C, b: C| (a.0 - b.0, a.1 - b.1);
        let div = |a: C, b: C| {
            let n = b.0 * b.0 + b.1 * b.1;
            ((a.0 * b.0 + a.1 * b.1) / n, (a.1 * b.0 - a.0 * b.1) / n)
        };
        let s1 = 1.0 - cos1 * cos1;
        let c2 = (1.0 - s1 / (n2 * n2)).sqrt();
        let c3sq = 1.0 - s1 / (n3 * n3);
        // A complex cosine beyond the critical angle (evanescent in the substrate).
        let c3: C = if c3sq >= 0.0 {
            (c3sq.sqrt(), 0.0)
        } else {
            (0.0, (-c3sq).sqrt())
        };
        let beta = 2.0 * PI / l_nm * n2 * d_nm * c2;
        let mut r = 0.0;
        for pol in 0..2 {
            // Tilted admittances: s: n cos θ, p: n / cos θ.
            let (y1, y2, y3): (C, C, C) = if pol == 0 {
                ((cos1, 0.0), (n2 * c2, 0.0), (n3 * c3.0, n3 * c3.1))
            } else {
                ((1.0 / cos1, 0.0), (n2 / c2, 0.0), div((n3, 0.0), c3))
            };
            // [B; C] = [[cos β, i sin β / y2], [i y2 sin β, cos β]] [1; y3].
            let (cb, sb) = (beta.cos(), beta.sin());
            let b = add((cb, 0.0), mul((0.0, sb / y2.0), y3));
            let c = add(mul((0.0, y2.0 * sb), (1.0, 0.0)), mul((cb, 0.0), y3));
            let num = sub(mul(y1, b), c);
            let den = add(mul(y1, b), c);
            let rr = div(num, den);
            r += 0.5 * (rr.0 * rr.0 + rr.1 * rr.1);
        }
        r
    }

    /// The film's reflectance in linear Rec.709 from the spectrum: `∫ R(λ) rgb(λ) dλ / ∫ rgb(λ)
    /// dλ` per channel, 360–830 nm every 0.25 nm, `rgb` the CIE functions above through the
    /// standard XYZ → Rec.709 matrix (the same white balance as the film's).
    fn reference_rgb(cos1: f64, n2: f64, n3: [f64; 3], d: f64) -> [f64; 3] {
        let m = [
            [3.2404542, -1.5371385, -0.4985314],
            [-0.9692660, 1.8760108, 0.0415560],
            [0.0556434, -0.2040259, 1.0572252],
        ];
        let (mut num, mut den) = ([0.0f64; 3], [0.0f64; 3]);
        let mut l = 360.0;
        while l <= 830.0 {
            let xyz = cmf(l);
            for c in 0..3 {
                let w = m[c][0] * xyz[0] + m[c][1] * xyz[1] + m[c][2] * xyz[2];
                num[c] += w * airy_f64(cos1, n2, n3[c], d, l);
                den[c] += w;
            }
            l += 0.25;
        }
        [num[0] / den[0], num[1] / den[1], num[2] / den[2]]
    }

    #[test]
    fn sensitivity_is_one_at_zero_path_difference() {
        let (s, _) = sensitivity(0.0);
        assert!((s - Vec3::ONE).abs().max_element() < 2e-6, "{s}");
    }

    #[test]
    fn matches_a_transfer_matrix_integrated_over_the_spectrum() {
        // Soap-like, oil-on-water-like and high-index films over glass, water, nothing and a
        // high-index substrate; the two spectral fits differ by about a per cent of white.
        let mut worst = 0.0f64;
        for &(d, n2, n3) in &[
            (100.0f32, 1.33f32, 1.5f32),
            (300.0, 1.33, 1.5),
            (300.0, 1.5, 1.0),
            (500.0, 1.45, 1.33),
            (250.0, 2.0, 1.5),
            (700.0, 1.8, 1.5),
            (150.0, 1.3, 2.5),
            (1200.0, 1.5, 1.2),
            (400.0, 1.6, 1.4),
        ] {
            let film = ThinFilm::new(d, n2, 1.0).unwrap();
            for &c in &[1.0f32, 0.8, 0.5, 0.25, 0.1] {
                let got = film.reflectance(c, n3);
                let want = reference_rgb(c as f64, n2 as f64, [n3 as f64; 3], d as f64);
                for ch in 0..3 {
                    let e = (got[ch] as f64 - want[ch].clamp(0.0, 1.0)).abs();
                    worst = worst.max(e);
                    assert!(
                        e < 0.012,
                        "d {d} n2 {n2} n3 {n3} cos {c}: {got} vs {want:?} (channel {ch})"
                    );
                }
            }
        }
        eprintln!("thin film vs transfer matrix: largest difference {worst:.4}");
    }

    #[test]
    fn per_channel_substrates_match_the_reference() {
        // A gold-like F0 taken as three dielectric indices.
        let eta = Vec3::new(ior_from_f0(0.95), ior_from_f0(0.64), ior_from_f0(0.54));
        let film = ThinFilm::new(350.0, 1.4, 1.0).unwrap();
        for &c in &[1.0f32, 0.6, 0.3] {
            let got = film.reflectance_per_channel(c, eta);
            let want = reference_rgb(
                c as f64,
                1.4,
                [eta.x as f64, eta.y as f64, eta.z as f64],
                350.0,
            );
            for ch in 0..3 {
                assert!(
                    (got[ch] as f64 - want[ch].clamp(0.0, 1.0)).abs() < 0.012,
                    "cos {c}: {got} vs {want:?}"
                );
            }
        }
    }

    #[test]
    fn a_vanishing_film_is_the_bare_fresnel() {
        // d → 0: the Airy sum is the bare interface's exact Fresnel (r12 ⊕ r23 = r13). Below
        // cos 0.2 a high-index film over nothing needs more than the series' 48 orders.
        for &n2 in &[1.2f32, 1.5, 2.2] {
            for &n3 in &[1.0f32, 1.33, 1.5, 2.4] {
                let film = ThinFilm::new(1e-3, n2, 1.0).unwrap();
                for i in 4..=20 {
                    let c = i as f32 / 20.0;
                    let want = fresnel::dielectric(c, 1.0 / n3);
                    let got = film.reflectance(c, n3);
                    assert!(
                        (got - Vec3::splat(want)).abs().max_element() < 2e-4,
                        "n2 {n2} n3 {n3} cos {c}: {got} vs {want}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_film_of_the_substrates_index_is_no_film() {
        // No second interface: the film's thickness cannot matter.
        let film = ThinFilm::new(420.0, 1.5, 1.0).unwrap();
        for i in 1..=20 {
            let c = i as f32 / 20.0;
            let want = fresnel::dielectric(c, 1.0 / 1.5);
            let got = film.reflectance(c, 1.5);
            assert!((got - Vec3::splat(want)).abs().max_element() < 1e-5);
        }
    }

    #[test]
    fn a_perfect_reflector_under_a_film_reflects_everything() {
        let film = ThinFilm::new(300.0, 1.5, 1.0).unwrap();
        for i in 0..=20 {
            let got = film.reflectance(i as f32 / 20.0, ior_from_f0(1.0));
            assert!(
                got.min_element() > 0.9999 && got.max_element() <= 1.0,
                "{got}"
            );
        }
    }

    #[test]
    fn reflectance_stays_in_zero_to_one_for_odd_inputs() {
        use crate::materials::testutil::ODD_VALUES;
        for &d in &ODD_VALUES {
            for &n in &ODD_VALUES {
                for &a in &[0.5f32, 1.0, f32::NAN] {
                    let Some(film) = ThinFilm::new(d, n, a) else {
                        assert!(!(d > 0.0 && a > 0.0));
                        continue;
                    };
                    for &c in &ODD_VALUES {
                        for &e in &ODD_VALUES {
                            let r = film.reflectance(c, e);
                            assert!(
                                r.is_finite() && r.min_element() >= 0.0 && r.max_element() <= 1.0
                            );
                        }
                    }
                }
            }
        }
        assert_eq!(ThinFilm::new(0.0, 1.5, 1.0), None);
        assert_eq!(ThinFilm::new(300.0, 1.5, 0.0), None);
    }
}
