//! A clear coat over a transmitting base (issue 15): `transmission > 0` under `clearcoat > 0`
//! and on `lacquer` is the coat over `plain`'s translucent base, a body, and no longer named.

use super::*;

use super::super::materials::with_family_defaults;
use crate::materials::CoatedTranslucent;

fn m(key: &str, family: Family, transmission: f32, clearcoat: f32) -> scene::Material {
    scene::Material {
        key: key.into(),
        family,
        transmission,
        clearcoat,
        base: [0.5, 0.25, 1.0],
        ..Default::default()
    }
}

#[test]
fn a_coated_transmitting_family_is_the_coat_over_a_translucent_base() {
    for (family, clearcoat) in [
        (Family::Plain, 0.5f32),
        (Family::Wood, 1.0),
        (Family::Bark, 0.3),
        (Family::Lacquer, 0.0),
        (Family::Plaster, 0.5),
        (Family::Cloth, 0.5),
    ] {
        let d = material_def(&m("a", family, 0.6, clearcoat), 0.0);
        let Bxdfs::CoatedTranslucent(c) = d.bxdf else {
            panic!("{family:?}: {:?}", d.bxdf)
        };
        assert!(c.is_coated(), "{family:?}");
        assert!(d.bxdf.transmits() && d.bxdf.bounds_body(), "{family:?}");
        // Under the coat the base is plain's, at the family's roughness and specular.
        let mat = with_family_defaults(&m("a", family, 0.6, clearcoat));
        let want = CoatedTranslucent::new(
            Vec3::from(mat.base),
            mat.roughness,
            mat.metalness,
            mat.specular,
            mat.fresnel_power,
            0.6,
            Vec3::from(mat.base),
            if family == Family::Lacquer {
                1.0
            } else {
                clearcoat
            },
            mat.clearcoat_roughness,
            mat.ior,
        )
        .unwrap();
        assert_eq!(c, want, "{family:?}");
        assert!((c.translucent().weight() - 0.6).abs() < 1e-6);
        assert_eq!(d.bxdf.albedo(), Vec3::new(0.5, 0.25, 1.0));
        // A body: absorption colours it by depth, behind clear interfaces.
        let amber = material_def(
            &scene::Material {
                absorption: 2.0,
                ..m("a", family, 0.6, clearcoat)
            },
            0.0,
        );
        assert!(
            amber.absorption.x > 0.0 && amber.absorption.z == 0.0,
            "{family:?}"
        );
        let Bxdfs::CoatedTranslucent(clear) = amber.bxdf else {
            panic!("{family:?}: {:?}", amber.bxdf)
        };
        let t = clear.shadow_transmittance(1.0);
        assert!(
            t.x == t.y && t.y == t.z && t.x > 0.5 * 0.6,
            "{family:?}: {t}"
        );
        // Transmission 0 is the opaque coat exactly.
        let opaque = material_def(&m("a", family, 0.0, clearcoat), 0.0);
        assert!(matches!(opaque.bxdf, Bxdfs::Coated(_)), "{family:?}");
    }
    // A metal under the coat transmits nothing: the opaque coat.
    let steel = scene::Material {
        metalness: 1.0,
        ..m("a", Family::Plaster, 0.6, 0.5)
    };
    assert!(matches!(material_def(&steel, 0.0).bxdf, Bxdfs::Coated(_)));
}

#[test]
fn the_schema_no_longer_names_transmission_under_a_coat() {
    let with = |mut x: scene::Material, f: &dyn Fn(&mut scene::Material)| {
        f(&mut x);
        x
    };
    let scene = scene::Scene {
        materials: vec![
            m("varnished pine", Family::Wood, 0.6, 0.5),
            m("glazed plain", Family::Plain, 0.6, 1.0),
            with(m("amber lacquer", Family::Lacquer, 0.6, 0.0), &|x| {
                x.absorption = 2.0;
            }),
            // Still named: a coated metal does not transmit, a lacquer that does not transmit
            // encloses no medium.
            with(m("steel", Family::Stone, 0.6, 0.5), &|x| x.metalness = 1.0),
            with(m("black lacquer", Family::Lacquer, 0.0, 0.0), &|x| {
                x.absorption = 2.0;
            }),
        ],
        ..Default::default()
    };
    let notes: Vec<String> = capability_notes(&scene)
        .iter()
        .filter(|c| c.what.contains("transmission") || c.what.contains("absorption"))
        .map(|c| c.message.clone())
        .collect();
    assert!(
        !notes.iter().any(|n| n.contains("not rendered yet")),
        "{notes:#?}"
    );
    let want = [
        "transmission = 0.6 has no effect: family \"stone\" at metalness 1 is a conductor and \
         does not transmit",
        "absorption = 2 has no effect: family \"lacquer\" encloses no medium at transmission 0",
    ];
    for w in want {
        assert!(notes.iter().any(|n| n == w), "{w}\n{notes:#?}");
    }
    assert_eq!(notes.len(), want.len(), "{notes:#?}");
}
