//! Library materials as the integrator uses them: the family picks the model.

use super::*;

use glam::Vec3;

use crate::materials::{Bxdfs, Coated, Conductor, Glass, Plain};
use crate::scene::{self, Family};

/// A library material as the integrator uses it; `filter_glossy` is the least roughness of
/// its filtered model (for the coat too). The family chooses the model (`docs/materials.md`):
/// `metal` and `chrome` are conductors, `glass` a tinted dielectric, `lacquer` a clear coat at
/// full weight over `plain`, every other family `plain` for now; `clearcoat > 0` coats any
/// family (glass on its outside face).
pub(super) fn material_def(m: &scene::Material, filter_glossy: f32) -> MaterialDef {
    let base = Vec3::from(m.base);
    let conductor = matches!(m.family, Family::Metal | Family::Chrome);
    let coat = match m.family {
        Family::Lacquer => 1.0,
        Family::Glass => 0.0,
        _ if m.clearcoat > 0.0 => m.clearcoat,
        _ => 0.0,
    };
    // A conductor under a coat is `plain` at metalness 1: the same single-scattering lobe and
    // the same multiple-scattering lobe as `Conductor`.
    let under_coat = |roughness: f32| {
        let metalness = if conductor { 1.0 } else { m.metalness };
        Plain::with_power(base, roughness, metalness, m.specular, m.fresnel_power)
    };
    let model = |roughness: f32, coat_roughness: f32| match m.family {
        Family::Glass => Bxdfs::Glass(Glass::coated(
            m.ior,
            roughness,
            base,
            m.clearcoat,
            coat_roughness,
        )),
        _ if coat > 0.0 => Bxdfs::Coated(Coated::new(
            under_coat(roughness),
            coat,
            coat_roughness,
            m.ior,
        )),
        Family::Metal | Family::Chrome => {
            Bxdfs::Conductor(Conductor::with_power(base, roughness, m.fresnel_power))
        }
        _ => Bxdfs::Plain(under_coat(roughness)),
    };
    let least = |r: f32| {
        let r = if r.is_nan() { 0.0 } else { r };
        if filter_glossy > r {
            filter_glossy
        } else {
            r
        }
    };
    let bxdf = model(m.roughness, m.clearcoat_roughness);
    let (r, cr) = (least(m.roughness), least(m.clearcoat_roughness));
    // Built once when filtering changes nothing: a coat's tables cost up to tens of ms.
    let filtered = if r.to_bits() == m.roughness.to_bits()
        && cr.to_bits() == m.clearcoat_roughness.to_bits()
    {
        bxdf
    } else {
        model(r, cr)
    };
    MaterialDef {
        key: m.key.clone(),
        bxdf,
        filtered,
        emission: rgb(m.emission),
        surface: None,
    }
}
