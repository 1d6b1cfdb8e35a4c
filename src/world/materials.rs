//! Library materials as the integrator uses them: the family picks the model.

use super::*;

use glam::Vec3;

use crate::materials::{
    positive, Bxdfs, Coated, CoatedTranslucent, Conductor, Dispersive, Eon, FilmedGlass, Glass,
    Iridescent, Plain, Sheen, SheenBase, Sheened, ThinFilm, ThinSheet, ThinWall, Translucent,
};
use crate::media::Subsurface;
use crate::scene::{self, Family};

/// Chromium's reflectance at normal incidence, linear RGB (from its complex index at the
/// sRGB primaries' wavelengths, as the tables of Real-Time Rendering 4th ed. give it).
pub const CHROMIUM_F0: [f32; 3] = [0.549, 0.556, 0.554];

/// `m` with the family's own defaults in place of the spec's: a key that holds the spec's
/// default value (written or not; a value equal to the default changes nothing, as the notes
/// read it too) takes the family's default where the family has one (`docs/materials.md`,
/// "Family defaults").
pub fn with_family_defaults(m: &scene::Material) -> scene::Material {
    let spec = scene::Material::default();
    let mut m = m.clone();
    let num = |v: &mut f32, spec: f32, fam: f32| {
        if v.to_bits() == spec.to_bits() {
            *v = fam;
        }
    };
    match m.family {
        Family::Chrome => {
            num(&mut m.roughness, spec.roughness, 0.05);
            if m.base == spec.base {
                m.base = CHROMIUM_F0;
            }
        }
        Family::Liquid => {
            num(&mut m.ior, spec.ior, 1.33);
            num(&mut m.roughness, spec.roughness, 0.0);
            if m.base == spec.base {
                m.base = [1.0; 3];
            }
        }
        Family::Wood => {
            num(&mut m.roughness, spec.roughness, 0.6);
        }
        Family::Cloth => {
            num(&mut m.sheen, spec.sheen, 1.0);
            num(&mut m.roughness, spec.roughness, 0.7);
        }
        // Twisted plies: the fibres' sheen at full weight, sharper than woven cloth's.
        Family::Cord => {
            num(&mut m.sheen, spec.sheen, 1.0);
            num(&mut m.roughness, spec.roughness, 0.5);
        }
        Family::Plaster => {
            num(&mut m.roughness, spec.roughness, 0.8);
        }
        Family::Stone => {
            num(&mut m.roughness, spec.roughness, 0.6);
        }
        Family::Bark => {
            num(&mut m.roughness, spec.roughness, 0.9);
            num(&mut m.specular, spec.specular, 0.02);
        }
        Family::Paper => {
            num(&mut m.transmission, spec.transmission, 0.3);
        }
        Family::Petal => {
            num(&mut m.transmission, spec.transmission, 0.5);
        }
        Family::Leaf => {
            num(&mut m.transmission, spec.transmission, 0.4);
        }
        _ => {}
    }
    m
}

/// Whether `m` (with its family's defaults) is drawn as a body's interface: `glass` and
/// `liquid`, the families drawn as `plain` with a share transmitted (`transmission · (1 −
/// metalness) > 0`, [`Translucent`], under a clear coat [`CoatedTranslucent`]: `lacquer`,
/// and every reflecting family with `clearcoat > 0`, being `plain` under its coat), and the
/// uncoated rough diffuse families and sheens with `transmission > 0` (their models have no
/// metal).
fn bounds_body(m: &scene::Material) -> bool {
    let unit = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let plain_transmits = positive(unit(m.transmission) * (1.0 - unit(m.metalness)));
    match m.family {
        Family::Glass | Family::Liquid => true,
        Family::Plain | Family::Wood | Family::Bark => plain_transmits || scatters_inside(m),
        Family::Lacquer => plain_transmits,
        Family::Plaster | Family::Stone | Family::Cloth | Family::Cord => {
            if m.clearcoat > 0.0 {
                plain_transmits
            } else {
                positive(unit(m.transmission))
            }
        }
        _ => false,
    }
}

/// Whether `m` (with its family's defaults) is drawn as a subsurface body: the uncoated
/// `plain`, `wood` and `bark` with `subsurface · (1 − metalness) > 0` (docs/materials.md,
/// "Subsurface scattering"). Its surface is then [`Translucent`] at weight `subsurface`,
/// clear, around a [`Subsurface`] medium.
pub fn scatters_inside(m: &scene::Material) -> bool {
    let unit = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    matches!(m.family, Family::Plain | Family::Wood | Family::Bark)
        && m.clearcoat <= 0.0
        && positive(unit(m.subsurface) * (1.0 - unit(m.metalness)))
}

/// The medium inside a subsurface body ([`scatters_inside`]): the share `base ·
/// subsurface_tint` (each clamped to [0, 1]) of the entering light leaves again, behind the
/// interface of index `(1 + √specular)/(1 − √specular)`; mean free path `thickness` where it is
/// above 0, else [`crate::media::subsurface::DEFAULT_MEAN_FREE_PATH`]. `None` for every
/// other material.
pub fn subsurface_medium(m: &scene::Material) -> Option<Subsurface> {
    if !scatters_inside(m) {
        return None;
    }
    let unit = |x: f32| if x.is_nan() { 1.0 } else { x.clamp(0.0, 1.0) };
    let colour = Vec3::from(m.base.map(unit)) * Vec3::from(m.subsurface_tint.map(unit));
    // The interface's index: the specular layer's, as `Translucent` takes it.
    let f0 = if m.specular.is_nan() {
        0.0
    } else {
        m.specular.clamp(0.0, 1.0 - 1e-6)
    };
    let eta = (1.0 + f0.sqrt()) / (1.0 - f0.sqrt());
    Some(Subsurface::new(colour, m.thickness, eta))
}

/// The absorption coefficient inside a transmitting body, per scene unit and channel:
/// `absorption · (−ln base)`, so that light that has travelled `1/absorption` scene units
/// inside has the colour `base` (Beer–Lambert, as OpenPBR's `transmission_color` at
/// `transmission_depth = 1/absorption`). Zero for the materials that do not enclose a medium
/// (see [`bounds_body`]).
pub fn absorption_coefficient(m: &scene::Material) -> Vec3 {
    let a = m.absorption;
    // A subsurface body's losses are its medium's albedo (`subsurface_medium`).
    if !bounds_body(m) || scatters_inside(m) || !positive(a) || !a.is_finite() {
        return Vec3::ZERO;
    }
    // A black channel absorbs at ln(10⁴)·absorption: 10⁻⁴ left after 1/absorption.
    let base = Vec3::from(m.base).clamp(Vec3::splat(1e-4), Vec3::ONE);
    let base = Vec3::new(
        if base.x.is_nan() { 1.0 } else { base.x },
        if base.y.is_nan() { 1.0 } else { base.y },
        if base.z.is_nan() { 1.0 } else { base.z },
    );
    -a * Vec3::new(base.x.ln(), base.y.ln(), base.z.ln())
}

/// The roughness of a sheen layer over `plain`, `wood`, `bark`, `plaster`, `stone`, `metal` and
/// `chrome` (no key gives it): OpenPBR's default `fuzz_roughness`.
const SHEEN_ROUGHNESS: f32 = 0.5;

/// A library material as the integrator uses it; `filter_glossy` is the least roughness of
/// its filtered model (for the coat too). The family chooses the model (`docs/materials.md`,
/// "Families"): `metal` and `chrome` are conductors, `glass` and `liquid` a dielectric body,
/// `paper`, `petal` and `leaf` a thin diffuse-transmitting sheet, `plaster` and `stone` a
/// rough diffuse (EON), `cloth` and `cord` a sheen over a diffuse base (each blended with a
/// dielectric transmission where `transmission > 0`), `emissive` emission alone,
/// `occluder` a holdout,
/// `lacquer` a clear coat at full weight over `plain`, every other family `plain`;
/// `clearcoat > 0` coats any family (glass and liquid on their outside face).
pub(super) fn material_def(m: &scene::Material, filter_glossy: f32) -> MaterialDef {
    let m = &with_family_defaults(m);
    let absorption = absorption_coefficient(m);
    // With absorption the colour is the medium's, by depth; the interfaces are clear.
    let base = Vec3::from(m.base);
    let tint = if absorption == Vec3::ZERO {
        base
    } else {
        Vec3::ONE
    };
    let conductor = matches!(m.family, Family::Metal | Family::Chrome);
    let dielectric_body = matches!(m.family, Family::Glass | Family::Liquid);
    let coat = match m.family {
        Family::Lacquer => 1.0,
        Family::Glass | Family::Liquid => 0.0,
        _ if m.clearcoat > 0.0 => m.clearcoat,
        _ => 0.0,
    };
    // A conductor under a coat is `plain` at metalness 1: the same single-scattering lobe and
    // the same multiple-scattering lobe as `Conductor`. An emissive surface reflects nothing
    // but what a coat asks for: its base is black and has no specular layer.
    let under_coat = |roughness: f32| {
        if m.family == Family::Emissive {
            return Plain::new(Vec3::ZERO, roughness, 0.0, 0.0);
        }
        let metalness = if conductor { 1.0 } else { m.metalness };
        Plain::with_power(base, roughness, metalness, m.specular, m.fresnel_power)
    };
    let holdout = m.family == Family::Occluder;
    // A thin film is drawn on the uncoated `plain` model and the conductors, and on smooth
    // solid glass (`glass_film`, below; the schema's `thin_film` cases name the others).
    let translucent = !dielectric_body && bounds_body(m);
    // `plain`'s own families with transmission take no film (the schema's `thin_film` cases
    // name it), at any metalness.
    let transmits = matches!(m.family, Family::Plain | Family::Wood | Family::Bark)
        && (m.transmission > 0.0 || m.subsurface > 0.0);
    // A subsurface body: its surface leads into the scattering medium at weight `subsurface`
    // (the `transmission` key then has no effect, named), clear (the colour is the medium's).
    let subsurface = subsurface_medium(m);
    let film = ThinFilm::new(m.thin_film, m.thin_film_ior, m.thin_film_amount).filter(|_| {
        coat == 0.0
            && !transmits
            && matches!(
                m.family,
                Family::Plain | Family::Wood | Family::Bark | Family::Metal | Family::Chrome
            )
    });
    // A film on a solid, uncoated, non-dispersive body; drawn where its interface is smooth
    // (`FilmedGlass`; a roughened, filtered copy keeps the bare glass).
    let glass_film = ThinFilm::new(m.thin_film, m.thin_film_ior, m.thin_film_amount).filter(|_| {
        dielectric_body
            && !positive(m.clearcoat)
            && !positive(m.thickness)
            && !positive(m.dispersion)
    });
    let filmed_glass =
        |roughness: f32| glass_film.and_then(|film| FilmedGlass::new(m.ior, roughness, tint, film));
    // The sheen layer over an uncoated, opaque base (`None` at `sheen = 0`): white, of the
    // roughness OpenPBR's fuzz defaults to, the format giving the sheen only a weight
    // (`roughness` is the base's). Not with a thin film on the families that draw one (the
    // film's model has no sheen); the callers keep coated, transmitting and subsurface
    // materials off it (the schema's `sheen` cases name all of these).
    let filmed_family = matches!(
        m.family,
        Family::Plain | Family::Wood | Family::Bark | Family::Metal | Family::Chrome
    );
    let sheened = |base: SheenBase| {
        (m.sheen > 0.0 && !(filmed_family && positive(m.thin_film)))
            .then(|| Bxdfs::Sheened(Sheened::new(base, m.sheen, Vec3::ONE, SHEEN_ROUGHNESS)))
    };
    let from_family = |family: Family, roughness: f32, coat_roughness: f32| match family {
        // What asks about a holdout's BSDF finds a black one.
        Family::Occluder => Bxdfs::Plain(Plain::new(Vec3::ZERO, roughness, 0.0, 0.0)),
        // A thin wall (uncoated): its absorption is the wall's, over its thickness; its faces
        // of the (filtered) roughness.
        _ if dielectric_body && !positive(m.clearcoat) && positive(m.thickness) => {
            Bxdfs::ThinWall(ThinWall::new(
                m.ior,
                absorption_coefficient(m),
                m.thickness,
                tint,
                roughness,
            ))
        }
        // Dispersion on an uncoated body: one interface per channel.
        _ if dielectric_body && !positive(m.clearcoat) && m.dispersion > 0.0 => {
            Dispersive::new(m.ior, m.dispersion, roughness, tint).map_or_else(
                || Bxdfs::Glass(Glass::new(m.ior, roughness, tint)),
                Bxdfs::Dispersive,
            )
        }
        _ if dielectric_body => Bxdfs::Glass(Glass::coated(
            m.ior,
            roughness,
            tint,
            m.clearcoat,
            coat_roughness,
        )),
        // A sheet takes no coat: a coat over it would hide its transmission.
        Family::Paper | Family::Petal | Family::Leaf => {
            Bxdfs::ThinSheet(ThinSheet::new(base, m.transmission))
        }
        // Under a coat the base is plain's (the coat's model takes a `Plain` base); with a
        // share transmitted, the rough diffuse under the interface of `specular`'s index.
        // Opaque with `sheen > 0`, the sheen layer over the EON (docs/materials.md, "Sheen
        // layer").
        Family::Plaster | Family::Stone if coat == 0.0 => translucent
            .then(|| Translucent::rough_diffuse(base, roughness, m.specular, m.transmission, tint))
            .flatten()
            .map_or_else(
                || {
                    let eon = Eon::new(base, roughness);
                    sheened(eon.into()).unwrap_or(Bxdfs::RoughDiffuse(eon))
                },
                Bxdfs::Translucent,
            ),
        // A cord is drawn as the azimuthal average of its fibres' lobe: a sheen over its
        // diffuse body (docs/materials.md, "Cord").
        Family::Cloth | Family::Cord if coat == 0.0 => translucent
            .then(|| Translucent::sheen(base, m.sheen, roughness, m.specular, m.transmission, tint))
            .flatten()
            .map_or_else(
                || Bxdfs::Cloth(Sheen::new(base, m.sheen, roughness)),
                Bxdfs::Translucent,
            ),
        // A share transmitted under the coat: the coat over `plain`'s translucent base (of
        // the metalness left, as uncoated; docs/materials.md, "A clear coat over
        // transmission").
        _ if coat > 0.0 && translucent => CoatedTranslucent::new(
            base,
            roughness,
            if conductor { 1.0 } else { m.metalness },
            m.specular,
            m.fresnel_power,
            m.transmission,
            tint,
            coat,
            coat_roughness,
            m.ior,
        )
        .map_or_else(
            || {
                Bxdfs::Coated(Coated::new(
                    under_coat(roughness),
                    coat,
                    coat_roughness,
                    m.ior,
                ))
            },
            Bxdfs::CoatedTranslucent,
        ),
        _ if coat > 0.0 => Bxdfs::Coated(Coated::new(
            under_coat(roughness),
            coat,
            coat_roughness,
            m.ior,
        )),
        // With `sheen > 0` (uncoated, no film: a film took `model`'s first arm), the sheen
        // layer over the conductor.
        Family::Metal | Family::Chrome => {
            let c = Conductor::with_power(base, roughness, m.fresnel_power);
            sheened(c.into()).unwrap_or(Bxdfs::Conductor(c))
        }
        // `plain` with a share entering the subsurface body its surface bounds.
        _ if subsurface.is_some() => Translucent::new(
            base,
            roughness,
            m.metalness,
            m.specular,
            m.fresnel_power,
            m.subsurface,
            Vec3::ONE,
        )
        .map_or_else(|| Bxdfs::Plain(under_coat(roughness)), Bxdfs::Translucent),
        // `plain` with a share transmitted into the body its surface bounds.
        _ if translucent => Translucent::new(
            base,
            roughness,
            m.metalness,
            m.specular,
            m.fresnel_power,
            m.transmission,
            tint,
        )
        .map_or_else(|| Bxdfs::Plain(under_coat(roughness)), Bxdfs::Translucent),
        // A sheen over uncoated, opaque `plain` (docs/materials.md, "Sheen layer"): white, of
        // the roughness OpenPBR's fuzz defaults to, the format giving the sheen only a weight
        // (`roughness` is the specular's).
        // Not with a thin film, transmission or subsurface (the schema's `sheen` cases name
        // them), nor under a coat (which took the arm above).
        _ if !transmits && matches!(family, Family::Plain | Family::Wood | Family::Bark) => {
            let plain = under_coat(roughness);
            sheened(plain.into()).unwrap_or(Bxdfs::Plain(plain))
        }
        _ => Bxdfs::Plain(under_coat(roughness)),
    };
    let model = |roughness: f32, coat_roughness: f32| match (m.family, film) {
        (_, Some(film)) => {
            let metalness = if conductor { 1.0 } else { m.metalness };
            Bxdfs::Iridescent(Iridescent::new(
                base,
                roughness,
                metalness,
                m.specular,
                m.fresnel_power,
                film,
            ))
        }
        (family, None) => filmed_glass(roughness).map_or_else(
            || from_family(family, roughness, coat_roughness),
            Bxdfs::FilmedGlass,
        ),
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
        // A holdout shows nothing, so it lights nothing either.
        emission: if holdout { Vec3::ZERO } else { rgb(m.emission) },
        // A thin wall encloses no medium: its absorption is in its lobe.
        absorption: if matches!(bxdf, Bxdfs::ThinWall(_)) {
            Vec3::ZERO
        } else {
            absorption
        },
        holdout,
        subsurface,
        surface: None,
    }
}
