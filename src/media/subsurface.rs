//! The medium inside a subsurface-scattering body (the material keys `subsurface` and
//! `subsurface_tint`): a homogeneous medium bounded by the body's surface, walked by free
//! flights (the haze's [`Medium::sample_flight`], uniform case) and isotropic scattering
//! (the haze's [`Phase`] at `g = 0`), as Cycles' and pbrt-v4's random-walk subsurface do.
//!
//! - **Extinction** σt = 1/ℓ, grey, for a mean free path ℓ (scene units): the material's
//!   `thickness` where it is above 0, else [`DEFAULT_MEAN_FREE_PATH`].
//! - **Single-scattering albedo** α per channel, from the colour the artist asked for, the
//!   share `A = base · subsurface_tint` of the light that enters the body and leaves it again.
//!   The body's interface reflects light arriving from inside back in (a diffuse internal
//!   reflectance `Rᵢ = 1 − (1 − Rₑ)/η²`, [`internal_diffuse_reflectance`]), so the walk under
//!   it must return `A₀ = A / (1 − Rᵢ + Rᵢ A)` per arrival at the surface for `A` to leave in
//!   all (`A₀ (1 − Rᵢ) / (1 − Rᵢ A₀) = A`, each arrival taken as diffuse); `A₀` is turned into
//!   α by the inversion of Chiang, Kutz and Burley 2016 ("Practical and Controllable
//!   Subsurface Scattering for Production Path Tracing", a fit to random walks in a
//!   half-space; Cycles used it before its own fit):
//!   `α = 1 − (4.09712 + 4.20863 A₀ − √(9.59217 + 41.6808 A₀ + 17.7126 A₀²))²`
//!   ([`single_scattering_albedo`]). `A = 1` gives `α = 1` exactly (a lossless body).
//!
//! docs/materials.md ("Subsurface scattering") says why, and what the walk does at its cap.

use glam::Vec3;

use super::{Density, Medium, Phase};

/// The mean free path of a subsurface body whose material gives no `thickness`, scene units
/// (metres by the format's convention): 1 cm, between human skin's red (≈ 4 mm) and wax or
/// jade, so an object of a few centimetres and up reads as translucent at its edges and thin
/// parts and as a soft diffuse surface elsewhere.
pub const DEFAULT_MEAN_FREE_PATH: f32 = 0.01;

/// Most scattering events of one walk inside a body; a walk that has not left the body after
/// this many is absorbed (its path ends), as Cycles' 256. docs/materials.md counts what that
/// loses.
pub const MAX_WALK: u32 = 256;

/// The random numbers one walk step asks for: the free flight's and the direction's pair.
pub const NUMBERS_PER_STEP: u32 = 4;

/// The single-scattering albedo α in [0, 1] whose random walk in a half-space has the
/// multiple-scattering (surface) albedo `a` (clamped to [0, 1], NaN 1): Chiang, Kutz and
/// Burley's 2016 inversion, computed in f64. `a = 1` is exactly 1, `a = 0` exactly 0.
pub fn single_scattering_albedo(a: f32) -> f32 {
    let a = if a.is_nan() {
        1.0
    } else {
        a.clamp(0.0, 1.0) as f64
    };
    if a >= 1.0 {
        return 1.0;
    }
    if a <= 0.0 {
        return 0.0;
    }
    let s = 4.09712 + 4.20863 * a - (9.59217 + 41.6808 * a + 17.7126 * a * a).sqrt();
    (1.0 - s * s).clamp(0.0, 1.0) as f32
}

/// The diffuse reflectance of a smooth dielectric interface of relative index `eta` (≥ 1,
/// clamped; NaN 1) met from inside: `1 − (1 − Rₑ)/η²`, `Rₑ = ∫ F(μ) 2μ dμ` its reflectance
/// to diffuse light from outside (exact Fresnel, 1024-point midpoint rule in f64). 0 when
/// index matched; ≈ 0.596 at η = 1.5.
pub fn internal_diffuse_reflectance(eta: f32) -> f32 {
    let eta = if eta.is_nan() {
        1.0
    } else {
        eta.clamp(1.0, 1e6)
    };
    if eta <= 1.0 {
        return 0.0;
    }
    let n = 1024;
    let re: f64 = (0..n)
        .map(|i| {
            let mu = (i as f64 + 0.5) / n as f64;
            crate::materials::fresnel::dielectric(mu as f32, 1.0 / eta) as f64 * 2.0 * mu / n as f64
        })
        .sum();
    let e = eta as f64;
    (1.0 - (1.0 - re) / (e * e)).clamp(0.0, 1.0) as f32
}

/// The homogeneous medium inside a subsurface body.
#[derive(Clone, Debug, PartialEq)]
pub struct Subsurface {
    /// The medium: an unbounded box (the body's surface bounds it; the walk's rays find it),
    /// uniform grey σt, isotropic phase, the single-scattering albedo per channel, no ambient
    /// light.
    pub medium: Medium,
}

impl Subsurface {
    /// The body behind an interface of relative index `eta` whose entering light leaves again
    /// with the share `colour` (linear RGB, each channel clamped to [0, 1], NaN 1), of mean
    /// free path `mean_free_path` (scene units; not above 0 or not finite takes
    /// [`DEFAULT_MEAN_FREE_PATH`]).
    pub fn new(colour: Vec3, mean_free_path: f32, eta: f32) -> Subsurface {
        let l = if mean_free_path.is_finite() && mean_free_path > 0.0 {
            mean_free_path
        } else {
            DEFAULT_MEAN_FREE_PATH
        };
        let ri = internal_diffuse_reflectance(eta);
        let per_arrival = |a: f32| {
            let a = if a.is_nan() { 1.0 } else { a.clamp(0.0, 1.0) };
            single_scattering_albedo(a / (1.0 - ri + ri * a))
        };
        let albedo = Vec3::new(
            per_arrival(colour.x),
            per_arrival(colour.y),
            per_arrival(colour.z),
        );
        Subsurface {
            medium: Medium {
                lo: Vec3::NEG_INFINITY,
                hi: Vec3::INFINITY,
                density: Density {
                    fog: 1.0 / l,
                    mist: 0.0,
                    smoke: 0.0,
                    floor: 0.0,
                    floor_y: 0.0,
                    floor_height: 1.0,
                    seed: 0,
                },
                phase: Phase::new(0.0, 0.0),
                albedo,
                ambient: Vec3::ZERO,
            },
        }
    }

    /// The extinction coefficient σt, 1/scene unit (grey).
    pub fn sigma_t(&self) -> f32 {
        self.medium.density.fog
    }

    /// The single-scattering albedo σs/σt per linear RGB channel, in [0, 1].
    pub fn albedo(&self) -> Vec3 {
        self.medium.albedo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::Flight;

    #[test]
    fn the_inversion_keeps_its_ends_and_is_monotonic() {
        assert_eq!(single_scattering_albedo(1.0), 1.0);
        assert_eq!(single_scattering_albedo(0.0), 0.0);
        assert_eq!(single_scattering_albedo(f32::NAN), 1.0);
        assert_eq!(single_scattering_albedo(2.0), 1.0);
        let mut last = 0.0;
        for i in 1..=1000 {
            let a = single_scattering_albedo(i as f32 / 1000.0);
            assert!(a >= last, "{i}: {a} < {last}");
            assert!(a >= i as f32 / 1000.0 - 1e-6, "α ≥ A: a walk loses light");
            last = a;
        }
        // The fit's values (the formula evaluated independently in Python's f64): A = 0.5
        // needs α = 0.91171, A = 0.8 α = 0.99059 (a half-space returns little unless it
        // scatters almost losslessly).
        assert!((single_scattering_albedo(0.5) - 0.911_709).abs() < 1e-5);
        assert!((single_scattering_albedo(0.8) - 0.990_589).abs() < 1e-5);
        assert!((single_scattering_albedo(0.1) - 0.384_240).abs() < 1e-5);
    }

    #[test]
    fn the_internal_reflectance_is_the_known_one() {
        // η = 1.5: Rₑ = 0.0918 (the hemispherical Fresnel average of glass), Rᵢ = 0.596.
        assert!((internal_diffuse_reflectance(1.5) - 0.5964).abs() < 1e-3);
        assert_eq!(internal_diffuse_reflectance(1.0), 0.0);
        assert_eq!(internal_diffuse_reflectance(f32::NAN), 0.0);
        // η = 1.33 (water): 1 − (1 − 0.0664)/1.769 = 0.4723.
        assert!((internal_diffuse_reflectance(1.33) - 0.4723).abs() < 2e-3);
        // Behind an index-matched interface the colour goes straight into the inversion.
        let b = Subsurface::new(Vec3::splat(0.5), 1.0, 1.0);
        assert_eq!(b.albedo().x, single_scattering_albedo(0.5));
        let b = Subsurface::new(Vec3::splat(0.5), 1.0, 1.5);
        let a0 = 0.5 / (1.0 - 0.5964 + 0.5964 * 0.5);
        assert!((b.albedo().x - single_scattering_albedo(a0)).abs() < 1e-4);
        assert_eq!(Subsurface::new(Vec3::ONE, 1.0, 1.5).albedo(), Vec3::ONE);
    }

    #[test]
    fn the_medium_is_uniform_unbounded_and_isotropic() {
        let b = Subsurface::new(Vec3::new(1.0, 0.5, 0.0), 0.25, 1.0);
        assert_eq!(b.sigma_t(), 4.0);
        assert_eq!(b.albedo().x, 1.0);
        assert_eq!(b.albedo().z, 0.0);
        assert_eq!(b.medium.phase.mean_cosine(), 0.0);
        assert_eq!(
            Subsurface::new(Vec3::ONE, 0.0, 1.5).sigma_t(),
            1.0 / DEFAULT_MEAN_FREE_PATH
        );
        assert_eq!(Subsurface::new(Vec3::ONE, f32::NAN, 1.5).sigma_t(), 100.0);
        // Free flights are exponential of mean ℓ wherever the walk is, and a flight that
        // ends at the surface passes.
        let o = Vec3::new(1e3, -2e3, 5.0);
        let d = Vec3::new(0.0, 0.6, -0.8);
        let n = 100_000;
        let mut sum = 0.0f64;
        for i in 0..n {
            let u = (i as f32 + 0.5) / n as f32;
            match b.medium.sample_flight(o, d, f32::MAX, |_| u) {
                Flight::Scatter { t } => sum += t as f64,
                f => panic!("{f:?}"),
            }
        }
        assert!((sum / n as f64 - 0.25).abs() < 2e-3, "{}", sum / n as f64);
        assert_eq!(b.medium.sample_flight(o, d, 0.1, |_| 0.9), Flight::Pass);
    }
}
