//! Test support for anything that samples directions (materials, lights, skies): deterministic
//! hash-based random numbers and a chi-square goodness-of-fit test of a direction sampler
//! against its density, after pbrt-v4's `chi2test` and Mitsuba's `ChiSquareTest`.

use glam::{Vec2, Vec3};
use std::f64::consts::{PI, TAU};

/// SplitMix64: a counter hashed through a 64-bit finaliser, fixed seed, no global state.
pub struct Rng(u64);

impl Rng {
    /// A stream for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }

    /// The next 64 hashed bits.
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, 24 bits.
    pub fn f32(&mut self) -> f32 {
        (self.u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Two uniforms.
    pub fn vec2(&mut self) -> Vec2 {
        Vec2::new(self.f32(), self.f32())
    }

    /// Uniform on the upper hemisphere, strictly above the horizon.
    pub fn upper_dir(&mut self) -> Vec3 {
        let z = 1.0 - self.f32(); // (0, 1]
        let phi = self.f32() as f64 * TAU;
        spherical_dir(z as f64, phi)
    }

    /// Uniform on the sphere.
    pub fn sphere_dir(&mut self) -> Vec3 {
        let z = 1.0 - 2.0 * self.f32() as f64;
        let phi = self.f32() as f64 * TAU;
        spherical_dir(z, phi)
    }
}

/// The unit direction with polar cosine `cos_theta` and azimuth `phi` (radians) about +Z.
pub fn spherical_dir(cos_theta: f64, phi: f64) -> Vec3 {
    let sin_theta = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    Vec3::new(
        (sin_theta * phi.cos()) as f32,
        (sin_theta * phi.sin()) as f32,
        cos_theta as f32,
    )
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; relative error ~1e-15).
fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection keeps the series in its accurate range.
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (TAU).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised upper incomplete gamma function Q(a, x) (Numerical Recipes' series and
/// continued fraction).
fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let ln_pre = -x + a * x.ln() - ln_gamma(a);
    if x < a + 1.0 {
        let (mut sum, mut term, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        1.0 - sum * ln_pre.exp()
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-15 {
                break;
            }
        }
        ln_pre.exp() * h
    }
}

/// P(χ² ≥ `stat`) with `dof` degrees of freedom.
pub fn chi2_p_value(stat: f64, dof: usize) -> f64 {
    gamma_q(dof as f64 / 2.0, stat / 2.0)
}

/// Bins over the whole sphere: θ in [0, π] and φ in [0, 2π).
const THETA_BINS: usize = 20;
const PHI_BINS: usize = 40;
/// Pooled cells are closed once their expected count reaches this.
const MIN_EXPECTED: f64 = 5.0;

/// Draws `n` samples from `sample` (given `u` and `uc` from a fixed-seed stream; `None` counts
/// as a sample that produced no direction), bins them over the sphere in (θ, φ), integrates
/// `pdf` over each bin by Gauss–Legendre quadrature, pools bins of low expected count, and fails the test
/// when the chi-square p-value is below 1 % after Šidák correction for `n_tests` tests run
/// together. Also fails on samples in bins where the pdf is zero. Returns ∫ pdf over the
/// sphere so callers can check it is at most 1.
pub fn chi2_test(
    name: &str,
    sample: impl Fn(Vec2, f32) -> Option<Vec3>,
    pdf: impl Fn(Vec3) -> f64,
    n: usize,
    n_tests: usize,
    seed: u64,
) -> f64 {
    let mut observed = vec![0.0f64; THETA_BINS * PHI_BINS];
    let mut rng = Rng::new(seed);
    for _ in 0..n {
        let u = rng.vec2();
        let uc = rng.f32();
        if let Some(w) = sample(u, uc) {
            assert!(
                w.is_finite() && (w.length() - 1.0).abs() < 1e-3,
                "{name}: bad direction {w}"
            );
            let theta = (w.z as f64).clamp(-1.0, 1.0).acos();
            let mut phi = (w.y as f64).atan2(w.x as f64);
            if phi < 0.0 {
                phi += TAU;
            }
            let ti = ((theta / PI * THETA_BINS as f64) as usize).min(THETA_BINS - 1);
            let pi = ((phi / TAU * PHI_BINS as f64) as usize).min(PHI_BINS - 1);
            observed[ti * PHI_BINS + pi] += 1.0;
        }
    }

    // Expected counts: ∫∫ pdf sin θ dθ dφ per bin, by composite 3-point Gauss–Legendre on
    // k×k sub-cells. Its nodes are interior, so the pdf's jump at the horizon (a bin edge) is
    // never sampled on the wrong side, and it resolves the steep lobes of grazing reflection.
    let k = 16usize;
    let gl = [
        (-0.774_596_669_241_483_4f64, 5.0 / 9.0),
        (0.0, 8.0 / 9.0),
        (0.774_596_669_241_483_4, 5.0 / 9.0),
    ];
    let (dt, dp) = (PI / THETA_BINS as f64, TAU / PHI_BINS as f64);
    let (ht, hp) = (dt / k as f64, dp / k as f64);
    let mut expected = vec![0.0f64; THETA_BINS * PHI_BINS];
    let mut integral = 0.0;
    for ti in 0..THETA_BINS {
        for pi in 0..PHI_BINS {
            let mut s = 0.0;
            for a in 0..k * 3 {
                let (xa, wa) = gl[a % 3];
                let theta = ti as f64 * dt + ((a / 3) as f64 + 0.5 + 0.5 * xa) * ht;
                let (sin_t, cos_t) = theta.sin_cos();
                let mut row = 0.0;
                for b in 0..k * 3 {
                    let (xb, wb) = gl[b % 3];
                    let phi = pi as f64 * dp + ((b / 3) as f64 + 0.5 + 0.5 * xb) * hp;
                    let p = pdf(spherical_dir(cos_t, phi));
                    assert!(p.is_finite() && p >= 0.0, "{name}: pdf {p}");
                    row += wb * p;
                }
                s += wa * row * sin_t;
            }
            let bin = s * (0.5 * ht) * (0.5 * hp);
            integral += bin;
            expected[ti * PHI_BINS + pi] = bin * n as f64;
        }
    }

    // Samples where the density is zero: a sampler/pdf mismatch the statistic cannot see.
    for (i, (&o, &e)) in observed.iter().zip(&expected).enumerate() {
        assert!(
            !(e == 0.0 && o > n as f64 * 1e-5),
            "{name}: {o} samples in bin {i} whose pdf integral is 0"
        );
    }

    // Pool cells in increasing expected count until each holds at least MIN_EXPECTED.
    let mut order: Vec<usize> = (0..observed.len()).collect();
    order.sort_by(|&a, &b| expected[a].total_cmp(&expected[b]));
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let (mut po, mut pe) = (0.0, 0.0);
    for &i in &order {
        po += observed[i];
        pe += expected[i];
        if pe >= MIN_EXPECTED {
            cells.push((po, pe));
            po = 0.0;
            pe = 0.0;
        }
    }
    if pe > 0.0 || po > 0.0 {
        match cells.last_mut() {
            Some(last) => {
                last.0 += po;
                last.1 += pe;
            }
            None => cells.push((po, pe)),
        }
    }
    // The samples that produced no direction are a cell of their own: their expected share is
    // the pdf's missing mass, so a sampler that drops too many (or too few) fails too.
    let got: f64 = observed.iter().sum();
    let missing_expected = (n as f64 - integral * n as f64).max(0.0);
    let missing_observed = n as f64 - got;
    if missing_expected >= MIN_EXPECTED {
        cells.push((missing_observed, missing_expected));
    }
    let stat: f64 = cells.iter().map(|&(o, e)| (o - e) * (o - e) / e).sum();
    let dof = cells.len().saturating_sub(1).max(1);
    let p = chi2_p_value(stat, dof);
    let threshold = 1.0 - (1.0 - 0.01f64).powf(1.0 / n_tests as f64);
    assert!(
        p >= threshold,
        "{name}: chi2 = {stat:.1} with {dof} dof, p = {p:.3e} < {threshold:.3e}; pdf integral {integral:.5}, \
         {missing_observed} of {n} samples gave no direction"
    );
    integral
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chi2_quantiles_match_tables() {
        // Upper 1 % points of the chi-square distribution (standard tables).
        for (dof, x) in [
            (1usize, 6.635),
            (10, 23.209),
            (100, 135.807),
            (500, 576.493),
        ] {
            let p = chi2_p_value(x, dof);
            assert!((p - 0.01).abs() < 2e-4, "dof {dof}: {p}");
        }
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - PI.sqrt().ln()).abs() < 1e-12);
    }

    #[test]
    fn chi2_catches_a_wrong_pdf() {
        // Cosine samples judged against a uniform-hemisphere pdf must fail.
        let sample = |u: Vec2, _| Some(crate::sampling::warp::cosine_hemisphere(u));
        let uniform = |w: Vec3| if w.z > 0.0 { 1.0 / TAU } else { 0.0 };
        let r = std::panic::catch_unwind(|| chi2_test("wrong", sample, uniform, 100_000, 1, 1));
        assert!(r.is_err());
        let cosine = |w: Vec3| if w.z > 0.0 { w.z as f64 / PI } else { 0.0 };
        let integral = chi2_test("right", sample, cosine, 100_000, 1, 1);
        assert!((integral - 1.0).abs() < 1e-4);
    }
}
