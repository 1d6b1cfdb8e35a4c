//! The `sheen` key beyond `plain`'s families: the sheen layer over the rough diffuse EON
//! (`plaster`, `stone`) and over the conductor (`metal`, `chrome`), and the notes where it is
//! still not drawn.

use super::super::materials::CHROMIUM_F0;
use super::*;
use crate::materials::{Conductor, Eon, SheenBase};

fn m(key: &str, family: Family, sheen: f32) -> scene::Material {
    scene::Material {
        key: key.into(),
        family,
        base: [0.7, 0.5, 0.3],
        roughness: 0.4,
        sheen,
        ..Default::default()
    }
}

/// `sheen > 0` on uncoated `plaster`, `stone`, `metal` and `chrome` is the sheen layer (white,
/// roughness 0.5, weight `sheen`) over exactly the bare family's model; at 0 the model is the
/// bare one.
#[test]
fn sheen_on_the_rough_diffuse_and_conductor_families_is_a_sheen_layer() {
    for family in [Family::Plaster, Family::Stone] {
        let Bxdfs::RoughDiffuse(eon) = material_def(&m("a", family, 0.0), 0.0).bxdf else {
            panic!("{family:?}")
        };
        assert_eq!(eon, Eon::new(Vec3::new(0.7, 0.5, 0.3), 0.4));
        match material_def(&m("a", family, 0.6), 0.0).bxdf {
            Bxdfs::Sheened(s) => {
                assert_eq!(*s.base(), SheenBase::RoughDiffuse(eon));
                assert_eq!(s.color(), Vec3::splat(0.6));
                assert_eq!(s.alpha(), 0.25);
            }
            other => panic!("{family:?}: {other:?}"),
        }
    }
    for family in [Family::Metal, Family::Chrome] {
        let Bxdfs::Conductor(c) = material_def(&m("a", family, 0.0), 0.0).bxdf else {
            panic!("{family:?}")
        };
        assert_eq!(c, Conductor::new(Vec3::new(0.7, 0.5, 0.3), 0.4));
        match material_def(&m("a", family, 1.0), 0.0).bxdf {
            Bxdfs::Sheened(s) => {
                assert_eq!(*s.base(), SheenBase::Conductor(c));
                assert_eq!(s.color(), Vec3::ONE);
            }
            other => panic!("{family:?}: {other:?}"),
        }
    }
    // Chrome's own defaults hold under the sheen (its F0 and roughness 0.05).
    let chrome = scene::Material {
        key: "c".into(),
        family: Family::Chrome,
        sheen: 0.5,
        ..Default::default()
    };
    let Bxdfs::Sheened(s) = material_def(&chrome, 0.0).bxdf else {
        panic!()
    };
    assert_eq!(
        *s.base(),
        SheenBase::Conductor(Conductor::new(Vec3::from(CHROMIUM_F0), 0.05))
    );
    // A filtered copy (filter_glossy) keeps the layer, over the roughened base.
    let d = material_def(&m("a", Family::Metal, 1.0), 0.6);
    let Bxdfs::Sheened(f) = d.filtered else {
        panic!("{:?}", d.filtered)
    };
    assert_eq!(
        *f.base(),
        SheenBase::Conductor(Conductor::new(Vec3::new(0.7, 0.5, 0.3), 0.6))
    );
}

/// Where the layer is still not drawn it is not built, and the notes say why: under a clear
/// coat, over a transmitting rough diffuse, and with a thin film on a conductor; on the
/// families that have no sheen at all the older note stands. Where it is drawn no note is
/// left.
#[test]
fn sheen_is_named_where_it_is_not_drawn() {
    let coated = scene::Material {
        clearcoat: 0.5,
        ..m("coated", Family::Stone, 1.0)
    };
    assert!(matches!(material_def(&coated, 0.0).bxdf, Bxdfs::Coated(_)));
    let transmitting = scene::Material {
        transmission: 0.4,
        ..m("transmitting", Family::Plaster, 1.0)
    };
    assert!(matches!(
        material_def(&transmitting, 0.0).bxdf,
        Bxdfs::Translucent(_)
    ));
    let filmed = scene::Material {
        thin_film: 300.0,
        thin_film_amount: 1.0,
        ..m("filmed", Family::Metal, 1.0)
    };
    assert!(matches!(
        material_def(&filmed, 0.0).bxdf,
        Bxdfs::Iridescent(_)
    ));
    let scene = scene::Scene {
        materials: vec![
            m("stone", Family::Stone, 1.0),
            m("metal", Family::Metal, 1.0),
            coated,
            transmitting,
            filmed,
            m("pane", Family::Glass, 1.0),
        ],
        ..Default::default()
    };
    let notes: Vec<String> = capability_notes(&scene)
        .iter()
        .filter(|c| c.what.contains("sheen"))
        .map(|c| c.message.clone())
        .collect();
    let want = [
        "sheen = 1 is not rendered yet on family \"stone\" under a clear coat: a sheen is \
         drawn on the uncoated \"cloth\" and \"cord\", and as a layer over the uncoated, \
         opaque bases of \"plain\", \"wood\", \"bark\", \"plaster\", \"stone\", \
         \"metal\" and \"chrome\"",
        "sheen = 1 is not rendered yet on family \"plaster\" with transmission or subsurface: \
         the sheen layer is drawn over opaque bases",
        "sheen = 1 is not rendered yet on family \"metal\" with a thin film: the sheen layer \
         is drawn over bases without a film",
        "sheen = 1 is not rendered yet on family \"glass\": a sheen is drawn on \"cloth\" and \
         \"cord\", and as a layer over the uncoated, opaque \"plain\", \"wood\", \"bark\", \
         \"plaster\", \"stone\", \"metal\" and \"chrome\"",
    ];
    assert_eq!(notes, want, "{notes:#?}");
}
