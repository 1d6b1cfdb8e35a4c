//! Test support shared by the materials tests: odd parameter values, direction helpers, albedo
//! estimates, reciprocity checks and the chi-square test of a BxDF's sampling against its
//! density (the generic parts live in `crate::sampling::testutil`).

pub use crate::sampling::testutil::{chi2_test, spherical_dir, Rng};
use glam::Vec3;

/// Parameter values no material may turn into NaN or Inf: signs, zeros, extremes, NaN, ±Inf.
pub const ODD_VALUES: [f32; 11] = [
    -1.0,
    -0.0,
    0.0,
    1e-30,
    0.5,
    1.0,
    2.0,
    1e30,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
];

/// Directions no BxDF may turn into NaN or Inf: the poles, grazing and sub-normal ones,
/// below the surface, zero and NaN.
pub fn odd_dirs() -> [Vec3; 10] {
    let dir = |cos_theta: f32, phi: f32| {
        let s = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
        Vec3::new(s * phi.cos(), s * phi.sin(), cos_theta)
    };
    [
        Vec3::Z,
        dir(1e-7, 0.0),
        dir(0.0, 0.5),
        Vec3::new(1.0, 0.0, 1e-30).normalize(),
        dir(-0.5, 1.0),
        -Vec3::Z,
        Vec3::new(0.6, 0.0, 0.8),
        Vec3::new(-0.6, 0.0, 0.8),
        Vec3::ZERO,
        Vec3::NAN,
    ]
}

/// The unit direction at polar cosine `cos_theta` (clamped to ±1) and azimuth `phi` about +Z.
pub fn dir(cos_theta: f32, phi: f32) -> Vec3 {
    let s = (1.0 - cos_theta * cos_theta).max(0.0).sqrt();
    Vec3::new(s * phi.cos(), s * phi.sin(), cos_theta)
}

/// A reflecting BxDF's albedo at `wo` by importance sampling its own `sample_f`: the mean of
/// `f cos / pdf` over `n` draws, and its standard error (the largest channel's).
pub fn albedo(b: &impl super::Bxdf, wo: Vec3, n: usize, seed: u64) -> (Vec3, f32) {
    let mut rng = Rng::new(seed);
    let (mut sum, mut sum2) = (glam::DVec3::ZERO, glam::DVec3::ZERO);
    for _ in 0..n {
        let (uc, u) = (rng.f32(), rng.vec2());
        if let Some(s) = b.sample_f(wo, uc, u) {
            let w = (s.f * s.wi.z / s.pdf).as_dvec3();
            sum += w;
            sum2 += w * w;
        }
    }
    let mean = sum / n as f64;
    let var = (sum2 / n as f64 - mean * mean).max(glam::DVec3::ZERO);
    (mean.as_vec3(), (var / n as f64).max_element().sqrt() as f32)
}

/// [`chi2_test`] of a BxDF's `sample_f` against its `pdf` at `wo`, with the pdf's integral
/// over the sphere checked to lie in `(0.5, 1 + 2·10⁻³]` (a reflecting lobe may lose the
/// draws it sends below the surface, never more than it has); returns the integral.
pub fn chi2_bxdf(
    name: &str,
    b: &impl super::Bxdf,
    wo: Vec3,
    n: usize,
    n_tests: usize,
    seed: u64,
) -> f64 {
    let integral = chi2_test(
        name,
        |u, uc| b.sample_f(wo, uc, u).map(|s| s.wi),
        |wi| b.pdf(wo, wi) as f64,
        n,
        n_tests,
        seed,
    );
    assert!(integral <= 1.0 + 2e-3, "{name}: ∫ pdf = {integral}");
    assert!(integral > 0.5, "{name}: ∫ pdf = {integral}");
    integral
}

/// Asserts `f(wo, wi) = f(wi, wo)` to 2·10⁻⁵ relative: reciprocity of a reflecting BxDF.
pub fn assert_reciprocal(b: &(impl super::Bxdf + std::fmt::Debug), wo: Vec3, wi: Vec3) {
    let (x, y) = (b.f(wo, wi), b.f(wi, wo));
    let scale = x.max_element().max(y.max_element());
    assert!(
        (x - y).abs().max_element() <= 2e-5 * scale,
        "{x} vs {y} at {wo}, {wi}: {b:?}"
    );
}

/// Asserts that a reflecting BxDF's draw at `wo` carries exactly what `f`, `pdf` and `f_pdf`
/// evaluate there (bit for bit), a positive density, a unit direction above the surface and
/// no delta flag.
pub fn assert_sample_is_evaluation(b: &impl super::Bxdf, wo: Vec3, s: &super::BsdfSample) {
    assert_eq!(s.f, b.f(wo, s.wi));
    assert_eq!(s.pdf, b.pdf(wo, s.wi));
    assert_eq!((s.f, s.pdf), b.f_pdf(wo, s.wi));
    assert!(s.pdf > 0.0 && s.f.is_finite() && s.wi.z > 0.0 && !s.specular);
    assert!((s.wi.length() - 1.0).abs() < 1e-5);
}

/// Asserts that `b` evaluates (`f_pdf`) and draws (`sample_f`, numbers from `rng`) only finite
/// values over every pair of [`odd_dirs`]: what each lobe's "odd inputs" test checks for a
/// BxDF built from [`ODD_VALUES`].
pub fn assert_finite_on_odd_dirs(b: &impl super::Bxdf, rng: &mut Rng) {
    for wo in odd_dirs() {
        for wi in odd_dirs() {
            let (f, pdf) = b.f_pdf(wo, wi);
            assert!(f.is_finite() && pdf.is_finite(), "{wo} {wi}: {f} {pdf}");
        }
        if let Some(s) = b.sample_f(wo, rng.f32(), rng.vec2()) {
            assert!(
                s.f.is_finite() && s.pdf.is_finite() && s.wi.is_finite(),
                "{wo}"
            );
        }
    }
}
