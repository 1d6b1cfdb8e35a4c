//! The material keys on the families that draw them, and the notes where they are not drawn:
//! thin film, transmission, subsurface, dispersion and thickness.

use super::*;

/// A thin film is drawn where the model has a bare exact specular layer (the uncoated `plain`
/// model and the conductors), and named elsewhere and where its thickness or amount is 0.
#[test]
fn thin_film_is_drawn_on_a_bare_specular_layer_and_named_elsewhere() {
    let m = |key: &str, family, clearcoat, thin_film, thin_film_amount| scene::Material {
        key: key.into(),
        family,
        clearcoat,
        thin_film,
        thin_film_amount,
        ..Default::default()
    };
    for family in [Family::Plain, Family::Wood, Family::Metal, Family::Chrome] {
        let d = material_def(&m("a", family, 0.0, 300.0, 1.0), 0.0);
        assert!(matches!(d.bxdf, Bxdfs::Iridescent(_)), "{family:?}");
    }
    // Without a film the model is built exactly as before.
    let bare = material_def(&m("a", Family::Plain, 0.0, 0.0, 0.0), 0.0);
    assert_eq!(
        material_def(&m("a", Family::Plain, 0.0, 0.0, 1.0), 0.0).bxdf,
        bare.bxdf
    );
    assert_eq!(
        material_def(&m("a", Family::Plain, 0.0, 300.0, 0.0), 0.0).bxdf,
        bare.bxdf
    );
    let coated = material_def(&m("a", Family::Plain, 0.5, 300.0, 1.0), 0.0);
    assert!(matches!(coated.bxdf, Bxdfs::Coated(_)));
    // Glass at the spec's roughness (0.5) is rough: the film is not drawn there.
    let glass = material_def(&m("a", Family::Glass, 0.0, 300.0, 1.0), 0.0);
    assert!(matches!(glass.bxdf, Bxdfs::Glass(_)));
    let scene = scene::Scene {
        materials: vec![
            m("drawn", Family::Plain, 0.0, 300.0, 1.0),
            m("pane", Family::Glass, 0.0, 300.0, 1.0),
            m("varnish", Family::Plain, 0.5, 300.0, 1.0),
            m("thin", Family::Metal, 0.0, 0.0, 1.0),
            m("page", Family::Paper, 0.0, 300.0, 1.0),
        ],
        ..Default::default()
    };
    let notes: Vec<String> = capability_notes(&scene)
        .iter()
        .filter(|c| c.what.contains("thin_film"))
        .map(|c| c.message.clone())
        .collect();
    let film = "is not rendered yet on family \"{}\": a thin film is drawn on the uncoated \
                families \"plain\", \"wood\", \"bark\", \"metal\" and \"chrome\", and on \
                the smooth uncoated bodies \"glass\" and \"liquid\"";
    let rough = "is not rendered yet on a rough family \"glass\" (roughness ≥ 0.0316): a thin \
                 film is drawn on a smooth interface";
    assert_eq!(
        notes,
        [
            format!("thin_film = 300 {rough}"),
            format!("thin_film_amount = 1 {rough}"),
            format!("thin_film = 300 {}", film.replace("{}", "plain")),
            format!("thin_film_amount = 1 {}", film.replace("{}", "plain")),
            "thin_film_amount = 1 has no effect: thin_film (the film's thickness) is 0".into(),
            "thin_film = 300 has no effect: family \"paper\" is a thin diffuse sheet (base and transmission)".into(),
            "thin_film_amount = 1 has no effect: family \"paper\" is a thin diffuse sheet (base and transmission)".into(),
        ]
    );
}

/// A thin film on smooth, solid, uncoated `glass` and `liquid` is `FilmedGlass` (a body with
/// its absorption as before); at amount or thickness 0 the glass is built bit for bit as
/// without a film; rough, thin-walled, dispersive and coated bodies name it.
#[test]
fn thin_film_on_smooth_glass_and_liquid_is_drawn_and_named_elsewhere() {
    let m = |key: &str, family, roughness, thin_film, thin_film_amount| scene::Material {
        key: key.into(),
        family,
        roughness,
        thin_film,
        thin_film_amount,
        thin_film_ior: 1.33,
        base: [0.5, 0.25, 1.0],
        ..Default::default()
    };
    // A liquid at the spec's roughness is the family's smooth water.
    for (family, roughness) in [(Family::Glass, 0.0), (Family::Liquid, 0.5)] {
        let d = material_def(&m("a", family, roughness, 300.0, 1.0), 0.0);
        let Bxdfs::FilmedGlass(g) = d.bxdf else {
            panic!("{family:?}: {:?}", d.bxdf)
        };
        assert!(d.bxdf.transmits() && d.bxdf.bounds_body());
        assert_eq!(g.tint(), Vec3::new(0.5, 0.25, 1.0));
        let want = if family == Family::Liquid { 1.33 } else { 1.5 };
        assert!((g.interface().eta() - want).abs() < 1e-6);
        // A roughened (filtered) copy keeps the bare glass.
        let filtered = material_def(&m("a", family, roughness, 300.0, 1.0), 0.3).filtered;
        assert!(matches!(filtered, Bxdfs::Glass(_)), "{filtered:?}");
    }
    // Absorption: clear interfaces, the body's medium as without a film.
    let amber = scene::Material {
        absorption: 2.0,
        ..m("a", Family::Glass, 0.0, 300.0, 1.0)
    };
    let d = material_def(&amber, 0.0);
    assert!(matches!(d.bxdf, Bxdfs::FilmedGlass(g) if g.tint() == Vec3::ONE));
    let bare = material_def(
        &scene::Material {
            thin_film_amount: 0.0,
            ..amber.clone()
        },
        0.0,
    );
    assert_eq!(d.absorption, bare.absorption);
    assert!(d.absorption.max_element() > 0.0);
    // Amount or thickness 0: the same bits as no film.
    for family in [Family::Glass, Family::Liquid] {
        let without = material_def(&m("a", family, 0.0, 0.0, 0.0), 0.0).bxdf;
        assert!(matches!(without, Bxdfs::Glass(_)));
        assert_eq!(
            material_def(&m("a", family, 0.0, 300.0, 0.0), 0.0).bxdf,
            without
        );
        assert_eq!(
            material_def(&m("a", family, 0.0, 0.0, 1.0), 0.0).bxdf,
            without
        );
    }
    // Elsewhere the bare body, and a note (one scene each: notes are kept once per key and
    // family). The drawn liquid has none.
    let with = |mut x: scene::Material, f: &dyn Fn(&mut scene::Material)| {
        f(&mut x);
        x
    };
    let rest = "a thin film is drawn on a solid body's smooth interface";
    for (mat, want) in [
        (m("water", Family::Liquid, 0.5, 300.0, 1.0), None),
        (
            m("frosted", Family::Glass, 0.3, 300.0, 1.0),
            Some(
                "is not rendered yet on a rough family \"glass\" (roughness ≥ 0.0316): a thin \
                 film is drawn on a smooth interface"
                    .to_string(),
            ),
        ),
        (
            with(m("pane", Family::Glass, 0.0, 300.0, 1.0), &|x| {
                x.thickness = 0.01
            }),
            Some(format!(
                "is not rendered yet on a thin-walled family \"glass\" (thickness > 0): {rest}"
            )),
        ),
        (
            with(m("prism", Family::Glass, 0.0, 300.0, 1.0), &|x| {
                x.dispersion = 1.0
            }),
            Some(format!(
                "is not rendered yet on a dispersive family \"glass\" (dispersion > 0): {rest}"
            )),
        ),
        (
            with(m("varnished", Family::Glass, 0.0, 300.0, 1.0), &|x| {
                x.clearcoat = 0.5
            }),
            Some(
                "is not rendered yet on family \"glass\": a thin film is drawn on the uncoated \
                 families \"plain\", \"wood\", \"bark\", \"metal\" and \"chrome\", and on \
                 the smooth uncoated bodies \"glass\" and \"liquid\""
                    .to_string(),
            ),
        ),
    ] {
        let d = material_def(&mat, 0.0);
        assert_eq!(
            matches!(d.bxdf, Bxdfs::FilmedGlass(_)),
            want.is_none(),
            "{}",
            mat.key
        );
        let key = mat.key.clone();
        let scene = scene::Scene {
            materials: vec![mat],
            ..Default::default()
        };
        let notes: Vec<String> = capability_notes(&scene)
            .iter()
            .filter(|c| c.what.contains("thin_film"))
            .map(|c| c.message.clone())
            .collect();
        let want: Vec<String> = want
            .map(|w| {
                vec![
                    format!("thin_film = 300 {w}"),
                    format!("thin_film_ior = 1.33 {w}"),
                    format!("thin_film_amount = 1 {w}"),
                ]
            })
            .unwrap_or_default();
        assert_eq!(notes, want, "{key}");
    }
}

/// `transmission` on the uncoated `plain` families builds the translucent blend, a body whose
/// `absorption` colours it by depth; elsewhere it is named (and a metal does not transmit).
#[test]
fn transmission_on_plain_is_a_translucent_body_and_named_elsewhere() {
    let m = |key: &str, family, transmission, metalness, clearcoat, absorption| scene::Material {
        key: key.into(),
        family,
        transmission,
        metalness,
        clearcoat,
        absorption,
        base: [0.5, 0.25, 1.0],
        ..Default::default()
    };
    for family in [Family::Plain, Family::Wood, Family::Bark] {
        let d = material_def(&m("a", family, 0.6, 0.25, 0.0, 0.0), 0.0);
        match d.bxdf {
            Bxdfs::Translucent(t) => {
                assert!((t.weight() - 0.6 * 0.75).abs() < 1e-6);
                assert!(d.bxdf.transmits() && d.bxdf.bounds_body());
                // The base's own layer: specular 0.04 (bark's 0.02) is index 1.5 (1.33).
                let want = if family == Family::Bark { 1.3294 } else { 1.5 };
                assert!((t.interface().eta() - want).abs() < 1e-3, "{family:?}");
            }
            other => panic!("{family:?}: {other:?}"),
        }
        assert_eq!(d.absorption, Vec3::ZERO);
    }
    // With absorption: clear interfaces, base reached at depth 1/absorption.
    let amber = material_def(&m("a", Family::Plain, 1.0, 0.0, 0.0, 2.0), 0.0);
    let Bxdfs::Translucent(t) = amber.bxdf else {
        panic!("{:?}", amber.bxdf)
    };
    assert!(
        (t.shadow_transmittance(1.0) - Vec3::splat(0.96))
            .abs()
            .max_element()
            < 1e-6
    );
    let kept = crate::materials::beer_lambert(amber.absorption, 0.5);
    assert!(
        (kept - Vec3::new(0.5, 0.25, 1.0)).abs().max_element() < 1e-5,
        "{kept}"
    );
    // A metal, coated or not, a coated rough diffuse family at metalness 1: no transmission,
    // no medium (a coat over a transmitting base is in `coat_transmission`).
    for (family, metalness, clearcoat) in [
        (Family::Plain, 1.0, 0.0),
        (Family::Plain, 1.0, 0.5),
        (Family::Plaster, 1.0, 0.5),
        (Family::Metal, 0.0, 0.0),
    ] {
        let d = material_def(&m("a", family, 0.6, metalness, clearcoat, 2.0), 0.0);
        assert!(!d.bxdf.bounds_body(), "{family:?}");
        assert_eq!(d.absorption, Vec3::ZERO, "{family:?}");
    }
    // Transmission 0 is plain exactly.
    assert_eq!(
        material_def(&m("a", Family::Plain, 0.0, 0.0, 0.0, 0.0), 0.0).bxdf,
        material_def(
            &scene::Material {
                base: [0.5, 0.25, 1.0],
                ..Default::default()
            },
            0.0
        )
        .bxdf
    );
    let scene = scene::Scene {
        materials: vec![
            m("drawn", Family::Plain, 0.6, 0.0, 0.0, 2.0),
            m("stone", Family::Stone, 0.6, 0.0, 0.0, 0.0),
            m("varnish", Family::Plain, 0.6, 0.0, 0.5, 0.0),
            m("steel", Family::Wood, 0.6, 1.0, 0.0, 0.0),
            m("opaque", Family::Plain, 0.0, 0.0, 0.0, 2.0),
        ],
        ..Default::default()
    };
    let notes: Vec<String> = capability_notes(&scene)
        .iter()
        .filter(|c| c.what.contains("transmission") || c.what.contains("absorption"))
        .map(|c| c.message.clone())
        .collect();
    // The coated plain ("varnish") transmits: no note.
    for want in [
        "transmission = 0.6 has no effect: family \"wood\" at metalness 1 is a conductor and \
         does not transmit"
            .to_string(),
        "absorption = 2 has no effect: family \"plain\" encloses no medium at transmission 0"
            .to_string(),
    ] {
        assert!(notes.contains(&want), "{want}\n{notes:#?}");
    }
    // The uncoated stone transmits (`transmission_on_the_rough_diffuse_and_sheen_families_*`).
    assert_eq!(notes.len(), 2, "{notes:#?}");
}

/// `transmission` on the uncoated rough diffuse families and sheens builds the translucent
/// blend over their own lobe, a body of `specular`'s index whose `absorption` colours it by
/// depth; the old "not rendered yet" note is gone, and the cases still not drawn (a coat, a
/// film, a metal) are named.
#[test]
fn transmission_on_the_rough_diffuse_and_sheen_families_is_a_translucent_body() {
    use crate::materials::translucent::Base;
    let m = |key: &str, family, transmission, clearcoat| scene::Material {
        key: key.into(),
        family,
        transmission,
        clearcoat,
        base: [0.5, 0.25, 1.0],
        ..Default::default()
    };
    // The family's defaults hold for the interface too: its roughness is the family's.
    for (family, roughness) in [
        (Family::Plaster, 0.8f32),
        (Family::Stone, 0.6),
        (Family::Cloth, 0.7),
        (Family::Cord, 0.5),
    ] {
        let d = material_def(&m("a", family, 0.6, 0.0), 0.0);
        let Bxdfs::Translucent(t) = d.bxdf else {
            panic!("{family:?}: {:?}", d.bxdf)
        };
        assert!(d.bxdf.transmits() && d.bxdf.bounds_body(), "{family:?}");
        assert!((t.weight() - 0.6).abs() < 1e-6);
        assert!((t.interface().eta() - 1.5).abs() < 1e-3, "{family:?}");
        assert!(
            (t.interface().alpha() - roughness * roughness).abs() < 1e-6,
            "{family:?}"
        );
        let opaque = material_def(&m("a", family, 0.0, 0.0), 0.0).bxdf;
        match (t.base(), opaque) {
            (Base::RoughDiffuse(a), Bxdfs::RoughDiffuse(b)) => assert_eq!(*a, b),
            (Base::Sheen(a), Bxdfs::Cloth(b)) => assert_eq!(*a, b),
            other => panic!("{family:?}: {other:?}"),
        }
        assert_eq!(d.bxdf.albedo(), Vec3::new(0.5, 0.25, 1.0));
        assert!((d.bxdf.roughness() - opaque.roughness()).abs() < 1e-6);
        // Tinted by base per crossing; with absorption clear, the colour by depth.
        assert!(
            (t.shadow_transmittance(1.0) - Vec3::new(0.5, 0.25, 1.0) * 0.6 * 0.96)
                .abs()
                .max_element()
                < 1e-5
        );
        let amber = material_def(
            &scene::Material {
                absorption: 2.0,
                ..m("a", family, 1.0, 0.0)
            },
            0.0,
        );
        let kept = crate::materials::beer_lambert(amber.absorption, 0.5);
        assert!(
            (kept - Vec3::new(0.5, 0.25, 1.0)).abs().max_element() < 1e-5,
            "{family:?}: {kept}"
        );
        let Bxdfs::Translucent(clear) = amber.bxdf else {
            panic!("{:?}", amber.bxdf)
        };
        assert!(
            (clear.shadow_transmittance(1.0) - Vec3::splat(0.96))
                .abs()
                .max_element()
                < 1e-6
        );
        // Under a coat: plain's translucent base under the coat, a body.
        let coated = material_def(&m("a", family, 0.6, 0.5), 0.0);
        assert!(
            matches!(coated.bxdf, Bxdfs::CoatedTranslucent(c) if c.is_coated()),
            "{family:?}"
        );
        assert!(coated.bxdf.bounds_body());
    }
    // `specular` is the interface's F0 once the surface transmits.
    let d = material_def(
        &scene::Material {
            specular: 0.02,
            ..m("a", Family::Stone, 0.5, 0.0)
        },
        0.0,
    );
    let Bxdfs::Translucent(t) = d.bxdf else {
        panic!("{:?}", d.bxdf)
    };
    assert!((t.interface().eta() - 1.3294).abs() < 1e-3);
    // Transmission 0 is the opaque lobe exactly.
    assert!(matches!(
        material_def(&m("a", Family::Cloth, 0.0, 0.0), 0.0).bxdf,
        Bxdfs::Cloth(_)
    ));

    let with = |mut x: scene::Material, f: &dyn Fn(&mut scene::Material)| {
        f(&mut x);
        x
    };
    let scene = scene::Scene {
        materials: vec![
            // Drawn: no note on transmission, specular or absorption.
            with(m("alabaster", Family::Stone, 0.6, 0.0), &|x| {
                x.specular = 0.05;
                x.absorption = 2.0;
            }),
            with(m("gauze", Family::Cloth, 0.4, 0.0), &|x| {
                x.metalness = 0.5;
                x.thin_film = 300.0;
                x.thin_film_amount = 1.0;
            }),
            // Drawn under a coat: no note. Not drawn: the opaque rough diffuse's specular and
            // absorption.
            m("varnished", Family::Plaster, 0.6, 0.5),
            with(m("chalk", Family::Plaster, 0.0, 0.0), &|x| {
                x.specular = 0.05;
                x.absorption = 2.0;
            }),
        ],
        ..Default::default()
    };
    let notes: Vec<String> = capability_notes(&scene)
        .iter()
        .filter(|c| {
            [
                "transmission",
                "specular",
                "absorption",
                "metalness",
                "thin_film",
            ]
            .iter()
            .any(|k| c.what.contains(k))
        })
        .map(|c| c.message.clone())
        .collect();
    // The old refusal of the uncoated families is gone.
    for family in ["stone", "cloth"] {
        let old = format!(
            "transmission = {} ",
            if family == "stone" { 0.6 } else { 0.4 }
        );
        assert!(
            !notes
                .iter()
                .any(|n| n.starts_with(&old) && n.contains(&format!("family \"{family}\""))),
            "{notes:#?}"
        );
    }
    let want = [
        "metalness = 0.5 has no effect: family \"cloth\" has no metal (its transmission's \
         interface is a dielectric of specular's index)"
            .to_string(),
        "thin_film = 300 is not rendered yet on family \"cloth\" with transmission: a thin film \
         is drawn on opaque surfaces"
            .to_string(),
        "thin_film_amount = 1 is not rendered yet on family \"cloth\" with transmission: a thin \
         film is drawn on opaque surfaces"
            .to_string(),
        "specular = 0.05 has no effect: family \"plaster\" has no specular layer unless coated"
            .to_string(),
        "absorption = 2 has no effect: family \"plaster\" encloses no medium at transmission 0"
            .to_string(),
    ];
    for w in &want {
        assert!(notes.contains(w), "{w}\n{notes:#?}");
    }
    assert_eq!(notes.len(), want.len(), "{notes:#?}");
}

/// `subsurface` on the uncoated `plain` families builds a clear translucent surface at weight
/// `subsurface · (1 − metalness)` around a scattering medium (σt = 1/thickness, the albedo
/// inverted from base · tint); the keys it replaces are named, and so is `subsurface` where
/// it is not drawn.
#[test]
fn subsurface_on_plain_is_a_scattering_body_and_named_elsewhere() {
    let m = |key: &str, family, subsurface, metalness, clearcoat| scene::Material {
        key: key.into(),
        family,
        subsurface,
        subsurface_tint: [1.0, 0.5, 0.5],
        metalness,
        clearcoat,
        thickness: 0.25,
        base: [0.5, 1.0, 0.2],
        ..Default::default()
    };
    for family in [Family::Plain, Family::Wood, Family::Bark] {
        let d = material_def(&m("a", family, 0.8, 0.5, 0.0), 0.0);
        let Bxdfs::Translucent(t) = d.bxdf else {
            panic!("{family:?}: {:?}", d.bxdf)
        };
        assert!((t.weight() - 0.8 * 0.5).abs() < 1e-6);
        assert!(d.bxdf.transmits() && d.bxdf.bounds_body());
        // Clear: the colour is the medium's, not the crossing's.
        assert!(
            (t.shadow_transmittance(1.0) / t.shadow_transmittance(1.0).x - Vec3::ONE)
                .abs()
                .max_element()
                < 1e-6
        );
        let b = d.subsurface.as_ref().expect("a medium");
        assert_eq!(b.sigma_t(), 4.0);
        let eta = t.interface().eta();
        let want = crate::media::Subsurface::new(Vec3::new(0.5, 0.5, 0.1), 0.25, eta);
        assert_eq!(b.albedo(), want.albedo(), "{family:?}");
        assert!(b.albedo().y > b.albedo().z && b.albedo().z > 0.0);
        assert_eq!(d.absorption, Vec3::ZERO);
    }
    // No thickness: the default mean free path.
    let d = material_def(
        &scene::Material {
            thickness: 0.0,
            ..m("a", Family::Plain, 1.0, 0.0, 0.0)
        },
        0.0,
    );
    assert_eq!(
        d.subsurface.unwrap().sigma_t(),
        1.0 / crate::media::subsurface::DEFAULT_MEAN_FREE_PATH
    );
    // A metal, a coat, a sheet, glass, a rough diffuse family, subsurface 0: no medium.
    for (family, subsurface, metalness, clearcoat) in [
        (Family::Plain, 1.0, 1.0, 0.0),
        (Family::Plain, 1.0, 0.0, 0.5),
        (Family::Paper, 1.0, 0.0, 0.0),
        (Family::Glass, 1.0, 0.0, 0.0),
        (Family::Stone, 1.0, 0.0, 0.0),
        (Family::Metal, 1.0, 0.0, 0.0),
        (Family::Plain, 0.0, 0.0, 0.0),
    ] {
        let d = material_def(&m("a", family, subsurface, metalness, clearcoat), 0.0);
        assert!(d.subsurface.is_none(), "{family:?}");
    }
    let scene = scene::Scene {
        materials: vec![
            scene::Material {
                transmission: 0.5,
                absorption: 2.0,
                ..m("drawn", Family::Plain, 1.0, 0.0, 0.0)
            },
            m("stone", Family::Stone, 0.6, 0.0, 0.0),
            m("varnish", Family::Plain, 0.6, 0.0, 0.5),
            m("steel", Family::Metal, 0.6, 0.0, 0.0),
            m("page", Family::Paper, 0.6, 0.0, 0.0),
        ],
        ..Default::default()
    };
    let notes: Vec<String> = capability_notes(&scene)
        .iter()
        .filter(|c| {
            ["subsurface", "transmission", "absorption", "thickness"]
                .iter()
                .any(|k| c.what.contains(k))
        })
        .map(|c| c.message.clone())
        .collect();
    let not_yet = "is not rendered yet on family \"{}\": subsurface scattering is drawn on the \
                   uncoated families \"plain\", \"wood\" and \"bark\"";
    for want in [
        format!("subsurface = 0.6 {}", not_yet.replace("{}", "stone")),
        format!("subsurface = 0.6 {}", not_yet.replace("{}", "plain")),
        format!("subsurface = 0.6 {}", not_yet.replace("{}", "paper")),
        "subsurface = 0.6 has no effect: family \"metal\" is a conductor and does not transmit"
            .to_string(),
        "transmission = 0.5 has no effect: family \"plain\" with subsurface > 0 is a scattering \
         body, its surface's interface leads into the medium"
            .to_string(),
        "absorption = 2 has no effect: family \"plain\" with subsurface > 0 absorbs by its \
         medium's albedo (base · subsurface_tint)"
            .to_string(),
    ] {
        assert!(notes.contains(&want), "{want}\n{notes:#?}");
    }
    // The drawn body's thickness (its mean free path) is read: the one note on a `plain`
    // thickness is the coated one's.
    let plain_thickness: Vec<&String> = notes
        .iter()
        .filter(|n| n.starts_with("thickness") && n.contains("\"plain\""))
        .collect();
    assert_eq!(plain_thickness.len(), 1, "{notes:#?}");
    assert!(
        plain_thickness[0].contains("under a clear coat"),
        "{notes:#?}"
    );
}

/// `dispersion` on an uncoated body splits its index per channel; under a coat and on the
/// families that do not refract it is named.
#[test]
fn dispersion_on_glass_is_per_channel_and_named_elsewhere() {
    let m = |key: &str, family, dispersion, clearcoat| scene::Material {
        key: key.into(),
        family,
        dispersion,
        clearcoat,
        ..Default::default()
    };
    for family in [Family::Glass, Family::Liquid] {
        let d = material_def(&m("a", family, 1.0, 0.0), 0.0);
        let Bxdfs::Dispersive(g) = d.bxdf else {
            panic!("{family:?}: {:?}", d.bxdf)
        };
        let [r, gr, b] = g.channels().map(|c| c.eta());
        assert!(r < gr && gr < b, "{r} {gr} {b}");
        assert!(d.bxdf.bounds_body() && d.bxdf.transmits());
    }
    assert!(matches!(
        material_def(&m("a", Family::Glass, 0.0, 0.0), 0.0).bxdf,
        Bxdfs::Glass(_)
    ));
    assert!(matches!(
        material_def(&m("a", Family::Glass, 1.0, 0.5), 0.0).bxdf,
        Bxdfs::Glass(g) if g.is_coated()
    ));
    let scene = scene::Scene {
        materials: vec![
            m("prism", Family::Glass, 1.0, 0.0),
            m("coated", Family::Glass, 1.0, 0.5),
            m("steel", Family::Metal, 1.0, 0.0),
        ],
        ..Default::default()
    };
    let notes: Vec<String> = capability_notes(&scene)
        .iter()
        .filter(|c| c.what.contains("dispersion"))
        .map(|c| c.message.clone())
        .collect();
    assert_eq!(
        notes,
        [
            "dispersion = 1 is not rendered yet on family \"glass\" under a clear coat: \
             dispersion is drawn on the uncoated bodies",
            "dispersion = 1 has no effect: family \"metal\" refracts no light",
        ]
    );
}

/// `thickness` on an uncoated body makes it a thin wall: no medium, its absorption over the
/// wall's thickness, its faces of its roughness; its dispersion is named.
#[test]
fn thickness_on_glass_is_a_thin_wall() {
    let m = |key: &str, thickness, absorption, roughness, dispersion| scene::Material {
        key: key.into(),
        family: Family::Glass,
        base: [0.5, 0.25, 1.0],
        thickness,
        absorption,
        roughness,
        dispersion,
        ..Default::default()
    };
    let d = material_def(&m("pane", 0.01, 0.0, 0.0, 0.0), 0.0);
    let Bxdfs::ThinWall(w) = d.bxdf else {
        panic!("{:?}", d.bxdf)
    };
    assert!(d.bxdf.bounds_body() && d.absorption == Vec3::ZERO);
    // No absorption: tinted by base once per pass.
    let (r, t) = w.split(1.0);
    assert!(
        (t - (Vec3::ONE - r) * Vec3::new(0.5, 0.25, 1.0))
            .abs()
            .max_element()
            < 1e-5
    );
    // Absorption 2 over 0.5 units, index matched at normal incidence would keep base^1; here
    // the faces reflect too, so the head-on transmission lies below base.
    let d = material_def(&m("amber", 0.5, 2.0, 0.0, 0.0), 0.0);
    assert_eq!(d.absorption, Vec3::ZERO);
    let Bxdfs::ThinWall(w) = d.bxdf else {
        panic!("{:?}", d.bxdf)
    };
    let t = w.split(1.0).1;
    assert!(
        t.cmplt(Vec3::new(0.5, 0.25, 1.0) + 1e-6).all() && t.min_element() > 0.1,
        "{t}"
    );
    // Rough faces: the wall's roughness is drawn, and `filter_glossy` roughens a smooth one.
    let frosted = material_def(&m("frosted", 0.01, 0.0, 0.4, 0.0), 0.0);
    let Bxdfs::ThinWall(w) = frosted.bxdf else {
        panic!("{:?}", frosted.bxdf)
    };
    assert!(!w.is_smooth() && (w.alpha() - 0.16).abs() < 1e-6);
    assert!((frosted.bxdf.roughness() - 0.4).abs() < 1e-6);
    let pane = material_def(&m("pane", 0.01, 0.0, 0.0, 0.0), 0.5);
    match (pane.bxdf, pane.filtered) {
        (Bxdfs::ThinWall(a), Bxdfs::ThinWall(b)) => {
            assert!(a.is_smooth() && !b.is_smooth());
            assert!((b.alpha() - 0.25).abs() < 1e-6);
        }
        other => panic!("{other:?}"),
    }
    let scene = scene::Scene {
        materials: vec![m("frosted", 0.01, 0.0, 0.4, 1.0)],
        ..Default::default()
    };
    let notes: Vec<String> = capability_notes(&scene)
        .iter()
        .map(|c| c.message.clone())
        .collect();
    // The old "its faces are drawn smooth" note is gone; the dispersion note stays.
    assert_eq!(
        notes,
        [
            "dispersion = 1 has no effect: a thin-walled family \"glass\" (thickness > 0) does \
          not bend light"
        ]
    );
}
