//! The `glass` family: a [`Dielectric`] interface whose transmission is tinted by `base`.
//!
//! The tint is applied at every crossing, as Mitsuba's `specular_transmittance` and Cycles'
//! glass colour are: a solid body is seen through twice tinted. Reflection is never tinted
//! (Fresnel reflection off a dielectric keeps the light's colour). `base = [1, 1, 1]` is clear
//! glass and loses no energy.

use glam::{Vec2, Vec3};

use super::dielectric::Dielectric;
use super::{fresnel, BsdfSample, Bxdf};

/// A tinted dielectric interface in local shading space: outside (index 1) on +Z, the medium
/// on −Z, as [`Dielectric`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Glass {
    /// The interface.
    interface: Dielectric,
    /// Per-crossing transmittance, each channel in `[0, 1]`.
    tint: Vec3,
}

/// `x` clamped to `[0, 1]`, NaN to 1 (a NaN tint is read as clear glass).
fn unit_or_one(x: f32) -> f32 {
    if x.is_nan() {
        1.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

impl Glass {
    /// Glass of index `ior` and roughness `roughness` (clamped as [`Dielectric::new`] clamps
    /// them) whose transmission is multiplied by `tint` (per channel clamped to `[0, 1]`).
    pub fn new(ior: f32, roughness: f32, tint: Vec3) -> Glass {
        Glass {
            interface: Dielectric::new(ior, roughness),
            tint: Vec3::new(
                unit_or_one(tint.x),
                unit_or_one(tint.y),
                unit_or_one(tint.z),
            ),
        }
    }

    /// The interface without its tint.
    pub fn interface(&self) -> &Dielectric {
        &self.interface
    }

    /// What a shadow ray keeps crossing this surface at cosine `cos` to its normal when
    /// `[trace] transmissive_shadows` lets it pass: `tint · (1 − F)`, the Fresnel reflectance
    /// taken as seen from outside at `|cos|` on both crossings (the shadow ray goes straight on,
    /// so it has no refracted angle; by Stokes' relations the inside reflectance at the matching
    /// angle is the same, and a straight ray has no total internal reflection to model).
    pub fn shadow_transmittance(&self, cos: f32) -> Vec3 {
        let c = if cos.is_nan() { 0.0 } else { cos.abs() };
        let r = fresnel::dielectric(c, 1.0 / self.interface.eta());
        self.tint * (1.0 - r)
    }

    /// `f` tinted when `wo` and `wi` are on opposite sides.
    #[inline]
    fn tinted(&self, wo: Vec3, wi: Vec3, f: Vec3) -> Vec3 {
        if wo.z * wi.z < 0.0 {
            f * self.tint
        } else {
            f
        }
    }
}

impl Bxdf for Glass {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        self.tinted(wo, wi, self.interface.f(wo, wi))
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        let s = self.interface.sample_f(wo, uc, u)?;
        let f = self.tinted(wo, s.wi, s.f);
        if f == Vec3::ZERO {
            return None;
        }
        Some(BsdfSample { f, ..s })
    }

    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        self.interface.pdf(wo, wi)
    }

    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        let (f, pdf) = self.interface.f_pdf(wo, wi);
        (self.tinted(wo, wi, f), pdf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::testutil::{odd_dirs, Rng, ODD_VALUES};

    #[test]
    fn clear_glass_is_its_interface_and_a_tint_scales_only_transmission() {
        let mut rng = Rng::new(3);
        for roughness in [0.0f32, 0.3, 0.8] {
            let clear = Glass::new(1.5, roughness, Vec3::ONE);
            let tinted = Glass::new(1.5, roughness, Vec3::new(0.2, 0.5, 0.9));
            let d = Dielectric::new(1.5, roughness);
            for _ in 0..2000 {
                let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
                assert_eq!(clear.f_pdf(wo, wi), d.f_pdf(wo, wi));
                let (f, pdf) = tinted.f_pdf(wo, wi);
                assert_eq!(pdf, d.pdf(wo, wi));
                let expect = if wo.z * wi.z < 0.0 {
                    d.f(wo, wi) * Vec3::new(0.2, 0.5, 0.9)
                } else {
                    d.f(wo, wi)
                };
                assert_eq!(f, expect);
                let (uc, u) = (rng.f32(), rng.vec2());
                let (a, b) = (tinted.sample_f(wo, uc, u), d.sample_f(wo, uc, u));
                if let (Some(a), Some(b)) = (a, b) {
                    assert_eq!((a.wi, a.pdf, a.specular), (b.wi, b.pdf, b.specular));
                    let t = if wo.z * b.wi.z < 0.0 {
                        Vec3::new(0.2, 0.5, 0.9)
                    } else {
                        Vec3::ONE
                    };
                    assert_eq!(a.f, b.f * t);
                }
            }
        }
    }

    #[test]
    fn shadow_transmittance_is_tint_times_one_minus_fresnel() {
        let g = Glass::new(1.5, 0.0, Vec3::new(1.0, 0.5, 0.25));
        // Normal incidence: R = 0.04 for ior 1.5, from either side.
        for cos in [1.0f32, -1.0] {
            let t = g.shadow_transmittance(cos);
            assert!(
                (t - Vec3::new(0.96, 0.48, 0.24)).abs().max_element() < 1e-6,
                "{t}"
            );
        }
        assert_eq!(g.shadow_transmittance(0.0), Vec3::ZERO);
        for c in ODD_VALUES {
            let t = g.shadow_transmittance(c);
            assert!(t.is_finite() && t.cmpge(Vec3::ZERO).all() && t.cmple(Vec3::ONE).all());
        }
    }

    #[test]
    fn odd_inputs_never_give_nan_or_inf() {
        let mut rng = Rng::new(9);
        for &a in &ODD_VALUES {
            let g = Glass::new(a, a, Vec3::new(a, 0.5, -a));
            for wo in odd_dirs() {
                for wi in odd_dirs() {
                    let (f, pdf) = g.f_pdf(wo, wi);
                    assert!(f.is_finite() && pdf.is_finite() && f.cmpge(Vec3::ZERO).all());
                }
                for _ in 0..8 {
                    if let Some(s) = g.sample_f(wo, rng.f32(), rng.vec2()) {
                        assert!(s.wi.is_finite() && s.f.is_finite() && s.pdf.is_finite());
                    }
                }
            }
        }
    }
}
