//! Fresnel reflectance: the exact dielectric formula for the `plain` specular layer and
//! Schlick's approximation for the conductor.

use glam::Vec3;

/// The reciprocal relative index of refraction `1/η` of a dielectric whose reflectance at
/// normal incidence is `f0`: `η = (1 + √f0) / (1 − √f0)`.
///
/// Returned as `1/η` because `f0 = 1` gives `η = ∞`, and `1/η = (1 − √f0) / (1 + √f0)` stays
/// in `[0, 1]` for every `f0` in `[0, 1]`. `f0` outside `[0, 1]` (or NaN) is clamped first.
pub fn inv_eta_from_f0(f0: f32) -> f32 {
    let s = if f0.is_nan() {
        0.0
    } else {
        f0.clamp(0.0, 1.0).sqrt()
    };
    (1.0 - s) / (1.0 + s)
}

/// Unpolarised Fresnel reflectance of light arriving from outside a dielectric whose relative
/// index of refraction is `η = 1 / inv_eta` (`η ≥ 1`), at `cos_i`, the cosine between the
/// direction and the (micro)normal.
///
/// `inv_eta = 1` (index matched) reflects nothing at any angle, exactly: this is what makes
/// `specular = 0` purely Lambertian. `inv_eta = 0` (`η = ∞`) reflects everything. `cos_i ≤ 0`
/// is grazing: reflectance 1 unless the interface is index matched.
pub fn dielectric(cos_i: f32, inv_eta: f32) -> f32 {
    if inv_eta >= 1.0 || inv_eta.is_nan() {
        return 0.0;
    }
    if cos_i.is_nan() || cos_i <= 0.0 {
        return 1.0;
    }
    let c = cos_i.min(1.0);
    let inv_eta = inv_eta.max(0.0);
    // Snell: sin θt = sin θi / η. Going into the denser medium there is no total internal
    // reflection, so the square root's argument stays in [1 − 1/η², 1].
    let sin2_t = (1.0 - c * c) * inv_eta * inv_eta;
    let cos_t = (1.0 - sin2_t).max(0.0).sqrt();
    // Both ratios divided through by η so that η = ∞ needs no infinity; the denominators are
    // ≥ c > 0 and ≥ cos_t ≥ √(1 − 1/η²) or ≥ inv_eta·c > 0 respectively.
    let r_parl = (c - inv_eta * cos_t) / (c + inv_eta * cos_t);
    let r_perp = (inv_eta * c - cos_t) / (inv_eta * c + cos_t);
    (0.5 * (r_parl * r_parl + r_perp * r_perp)).clamp(0.0, 1.0)
}

/// Schlick's approximation `F0 + (1 − F0)(1 − cos)⁵`, per channel, for a conductor whose
/// reflectance at normal incidence is `f0` (each channel in `[0, 1]`).
pub fn schlick(f0: Vec3, cos_i: f32) -> Vec3 {
    schlick_pow(f0, cos_i, SCHLICK_POWER)
}

/// Schlick's exponent as published, and the format's `fresnel_power` default.
pub const SCHLICK_POWER: f32 = 5.0;

/// The largest `fresnel_power` taken: beyond it `(1 − cos)^p` is below 10⁻⁴ for every cosine
/// above 0.14, so the reflectance is `F0` at every angle a viewer can tell apart.
pub const SCHLICK_POWER_MAX: f32 = 64.0;

/// The format's `fresnel_power` clamped to `[0, SCHLICK_POWER_MAX]`, NaN to the default 5.
/// Exponent 0 reflects everything at every angle (`F ≡ 1`); a negative one would grow without
/// bound towards grazing, so it is taken as 0.
pub fn schlick_power(p: f32) -> f32 {
    if p.is_nan() {
        SCHLICK_POWER
    } else {
        p.clamp(0.0, SCHLICK_POWER_MAX)
    }
}

/// Schlick's form with exponent `power` (the format's `fresnel_power`, already clamped by
/// [`schlick_power`]): `F0 + (1 − F0)(1 − cos)^power`.
pub fn schlick_pow(f0: Vec3, cos_i: f32, power: f32) -> Vec3 {
    let c = if cos_i.is_nan() {
        0.0
    } else {
        cos_i.clamp(0.0, 1.0)
    };
    let m = 1.0 - c;
    let w = if power == SCHLICK_POWER {
        let m2 = m * m;
        m2 * m2 * m
    } else {
        m.powf(power)
    };
    f0 + (Vec3::ONE - f0) * w
}

/// The cosine-weighted hemispherical mean of [`schlick_pow`]:
/// `2∫(F0 + (1 − F0)(1 − μ)^p) μ dμ = F0 + (1 − F0)·2/((p + 1)(p + 2))` (1/21 for p = 5).
pub fn schlick_pow_average(f0: Vec3, power: f32) -> Vec3 {
    f0 + (Vec3::ONE - f0) * (2.0 / ((power + 1.0) * (power + 2.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The textbook formulas with η explicit, in f64: an independent reference.
    fn fresnel_reference(cos_i: f64, eta: f64) -> f64 {
        let sin_t = (1.0 - cos_i * cos_i).sqrt() / eta;
        let cos_t = (1.0 - sin_t * sin_t).sqrt();
        let rs = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
        let rp = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
        0.5 * (rs * rs + rp * rp)
    }

    #[test]
    fn glass_at_45_degrees_matches_hand_value() {
        // n = 1.5 at 45°: Rs = 0.092013, Rp = 0.008466, mean 0.050240 (worked by hand from
        // sin θt = 0.471405, cos θt = 0.881917).
        let f = dielectric(std::f32::consts::FRAC_1_SQRT_2, 1.0 / 1.5);
        assert!((f - 0.050240).abs() < 2e-6, "{f}");
    }

    #[test]
    fn normal_incidence_gives_f0_for_every_f0() {
        for i in 0..=20 {
            let f0 = i as f32 / 20.0;
            let f = dielectric(1.0, inv_eta_from_f0(f0));
            assert!((f - f0).abs() < 2e-6, "f0 {f0} gave {f}");
        }
    }

    #[test]
    fn matches_reference_at_many_angles() {
        for eta in [1.01f64, 1.33, 1.5, 2.4, 10.0] {
            for i in 1..=50 {
                let c = i as f64 / 50.0;
                let ours = dielectric(c as f32, (1.0 / eta) as f32) as f64;
                let reference = fresnel_reference(c, eta);
                assert!(
                    (ours - reference).abs() < 1e-5,
                    "η {eta} cos {c}: {ours} vs {reference}"
                );
            }
        }
    }

    #[test]
    fn hemispherical_average_of_glass_is_0_0918() {
        // ∫ F(μ) 2μ dμ for n = 1.5 is 0.0918 (e.g. d'Eon, "A Hitchhiker's Guide to Multiple
        // Scattering", table of external diffuse reflectance).
        let n = 100_000;
        let mut sum = 0.0f64;
        for i in 0..n {
            let mu = (i as f64 + 0.5) / n as f64;
            sum += dielectric(mu as f32, 1.0 / 1.5) as f64 * 2.0 * mu;
        }
        let avg = sum / n as f64;
        assert!((avg - 0.0918).abs() < 5e-4, "{avg}");
    }

    #[test]
    fn index_matched_reflects_nothing_and_infinite_index_everything() {
        for c in [0.0f32, 1e-9, 0.1, 0.5, 1.0] {
            assert_eq!(dielectric(c, 1.0), 0.0);
            assert_eq!(dielectric(c, inv_eta_from_f0(0.0)), 0.0);
            assert_eq!(dielectric(c, inv_eta_from_f0(1.0)), 1.0);
        }
    }

    #[test]
    fn odd_inputs_stay_finite_and_in_range() {
        for c in [
            -1.0f32,
            -0.0,
            0.0,
            1e-30,
            2.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ] {
            for f0 in [-1.0f32, 0.0, 0.04, 0.9999, 1.0, 7.0, f32::NAN] {
                let f = dielectric(c, inv_eta_from_f0(f0));
                assert!((0.0..=1.0).contains(&f), "cos {c} f0 {f0}: {f}");
            }
            let s = schlick(Vec3::new(0.0, 0.5, 1.0), c);
            assert!(s.is_finite() && s.cmpge(Vec3::ZERO).all() && s.cmple(Vec3::ONE).all());
        }
    }

    #[test]
    fn schlick_endpoints() {
        let f0 = Vec3::new(0.95, 0.64, 0.54);
        assert_eq!(schlick(f0, 1.0), f0);
        assert_eq!(schlick(f0, 0.0), Vec3::ONE);
    }

    #[test]
    fn schlick_power_average_matches_quadrature_and_power_5_is_schlick() {
        let f0 = Vec3::new(0.95, 0.64, 0.04);
        for p in [0.0f32, 1.0, 2.5, 5.0, 12.0, 64.0] {
            let n = 200_000;
            let mut sum = glam::DVec3::ZERO;
            for i in 0..n {
                let mu = (i as f64 + 0.5) / n as f64;
                sum += schlick_pow(f0, mu as f32, p).as_dvec3() * (2.0 * mu / n as f64);
            }
            let avg = schlick_pow_average(f0, p).as_dvec3();
            assert!(
                (sum - avg).abs().max_element() < 1e-4,
                "p {p}: {sum} vs {avg}"
            );
        }
        for c in [0.0f32, 0.3, 0.77, 1.0] {
            assert_eq!(schlick(f0, c), schlick_pow(f0, c, 5.0));
            let close = schlick_pow(f0, c, 5.000001) - schlick(f0, c);
            assert!(close.abs().max_element() < 1e-5);
        }
        assert_eq!(schlick_pow(f0, 0.4, 0.0), Vec3::ONE);
    }

    #[test]
    fn schlick_power_clamps_to_a_bounded_exponent() {
        assert_eq!(schlick_power(f32::NAN), 5.0);
        assert_eq!(schlick_power(-3.0), 0.0);
        assert_eq!(schlick_power(1e9), SCHLICK_POWER_MAX);
        assert_eq!(schlick_power(f32::INFINITY), SCHLICK_POWER_MAX);
        for p in [0.0f32, 0.5, 5.0, 64.0] {
            for c in [-1.0f32, 0.0, 1e-30, 0.5, 1.0, 2.0, f32::NAN] {
                let s = schlick_pow(Vec3::new(0.0, 0.5, 1.0), c, p);
                assert!(s.is_finite() && s.cmpge(Vec3::ZERO).all() && s.cmple(Vec3::ONE).all());
            }
        }
    }
}
