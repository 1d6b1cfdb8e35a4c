//! The world builder's tests.

use super::materials::material_def;
use super::notes::capability_notes;
use super::*;
use crate::materials::Glass;
use crate::scene::{self, Family};

/// The family picks the model, and `filter_glossy` roughens every family's filtered
/// model: glass's interface and a coat's own roughness too.
#[test]
fn families_choose_their_model_and_every_model_is_filtered() {
    let m = |family, roughness, clearcoat_roughness| scene::Material {
        key: "m".into(),
        family,
        roughness,
        clearcoat_roughness,
        ..Default::default()
    };
    let glass = material_def(&m(Family::Glass, 0.0, 0.05), 0.5);
    match (glass.bxdf, glass.filtered) {
        (Bxdfs::Glass(a), Bxdfs::Glass(b)) => {
            assert!(a.interface().is_specular());
            assert!((b.interface().alpha() - 0.25).abs() < 1e-6);
        }
        other => panic!("{other:?}"),
    }
    let metal = material_def(&m(Family::Chrome, 0.1, 0.05), 0.0);
    assert!(matches!(metal.bxdf, Bxdfs::Conductor(_)));
    assert_eq!(metal.bxdf, metal.filtered);
    let lacquer = material_def(&m(Family::Lacquer, 0.6, 0.05), 0.5);
    assert!(matches!(lacquer.bxdf, Bxdfs::Coated(_)));
    assert_ne!(
        lacquer.bxdf, lacquer.filtered,
        "the coat's roughness is raised"
    );
    let unfiltered = material_def(&m(Family::Lacquer, 0.6, 0.5), 0.0);
    assert_eq!(lacquer.filtered, unfiltered.bxdf);
    let plain = material_def(&m(Family::Plain, 0.5, 0.05), 0.0);
    assert!(matches!(plain.bxdf, Bxdfs::Plain(_)));
    let coated_plain = material_def(
        &scene::Material {
            clearcoat: 0.5,
            ..m(Family::Plain, 0.5, 0.05)
        },
        0.0,
    );
    assert!(matches!(coated_plain.bxdf, Bxdfs::Coated(_)));
    // Glass takes its coat on the outside; filtering raises the coat's roughness too.
    let coated_glass = material_def(
        &scene::Material {
            clearcoat: 0.5,
            ..m(Family::Glass, 0.3, 0.05)
        },
        0.5,
    );
    match (coated_glass.bxdf, coated_glass.filtered) {
        (Bxdfs::Glass(a), Bxdfs::Glass(b)) => {
            assert!(a.is_coated() && b.is_coated());
            let base = Vec3::from(scene::Material::default().base);
            let same_coat_raised = Glass::coated(1.5, 0.5, base, 0.5, 0.5);
            assert_eq!(b, same_coat_raised);
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(glass.bxdf, Bxdfs::Glass(g) if !g.is_coated()));
}

/// `sheen > 0` on uncoated, opaque `plain`, `wood` and `bark` draws the sheen layer; at 0 the
/// material is built exactly as before (the same `Plain`), and under a coat, with a thin film
/// or with transmission it is not drawn (the schema names those cases).
#[test]
fn sheen_on_plain_wood_and_bark_is_a_sheen_layer() {
    let m = |family, sheen| scene::Material {
        key: "m".into(),
        family,
        roughness: 0.4,
        sheen,
        ..Default::default()
    };
    for family in [Family::Plain, Family::Wood, Family::Bark] {
        let bare = material_def(&m(family, 0.0), 0.0);
        let Bxdfs::Plain(plain) = bare.bxdf else {
            panic!("{:?}", bare.bxdf)
        };
        match material_def(&m(family, 0.7), 0.0).bxdf {
            Bxdfs::Sheened(s) => {
                assert_eq!(*s.base(), plain);
                assert_eq!(s.color(), Vec3::splat(0.7));
            }
            other => panic!("{family:?}: {other:?}"),
        }
    }
    let coated = scene::Material {
        clearcoat: 0.5,
        ..m(Family::Plain, 0.7)
    };
    assert!(matches!(material_def(&coated, 0.0).bxdf, Bxdfs::Coated(_)));
    let filmed = scene::Material {
        thin_film: 300.0,
        ..m(Family::Plain, 0.7)
    };
    assert!(!matches!(
        material_def(&filmed, 0.0).bxdf,
        Bxdfs::Sheened(_)
    ));
    let transmitting = scene::Material {
        transmission: 0.5,
        ..m(Family::Plain, 0.7)
    };
    assert!(matches!(
        material_def(&transmitting, 0.0).bxdf,
        Bxdfs::Translucent(_)
    ));
}

/// Clip planes written in the object's frame cut the same material points wherever the
/// object is moved, turned, scaled unevenly or mirrored.
#[test]
fn clip_planes_follow_the_object_frame() {
    let clip = [[1.0, 2.0, -0.5, 0.25], [0.0, -1.0, 0.0, 0.1]];
    let frames = [
        Mat4::IDENTITY,
        crate::geometry::model_matrix([1.0, -2.0, 3.0], [30.0, 45.0, 60.0], [2.0, 0.5, 3.0]),
        crate::geometry::model_matrix([0.0, 5.0, 0.0], [0.0, 90.0, 0.0], [-1.0, 1.0, 1.0]),
    ];
    for world in frames {
        let planes = world_planes(&clip, world);
        assert_eq!(planes.len(), 2);
        let cut = Cut {
            planes,
            coverage: None,
            cutoff: 0.5,
        };
        for i in 0..200 {
            // A lattice of object points, some on each side of each plane.
            let f = |k: u32| ((i * k) % 17) as f32 / 8.0 - 1.0;
            let p = Vec3::new(f(3), f(5), f(7));
            let object_cut = clip
                .iter()
                .any(|c| Vec3::new(c[0], c[1], c[2]).dot(p) > c[3] + 1e-4);
            let object_kept = clip
                .iter()
                .all(|c| Vec3::new(c[0], c[1], c[2]).dot(p) < c[3] - 1e-4);
            let kept = cut.keeps(world.transform_point3(p), || Vec2::ZERO);
            if object_cut {
                assert!(!kept, "{p} in {world}");
            }
            if object_kept {
                assert!(kept, "{p} in {world}");
            }
        }
    }
}

/// The spec's lamp, placed twice on a desk: placements draw through their groups, and the
/// lights they place take the placements' world transforms.
#[test]
fn placements_place_objects_and_lights() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/lamp/desk.scene.toml");
    let scene = crate::scene::load(&file).unwrap_or_else(|d| panic!("{d:#?}"));
    let world = World::build(&scene, [64, 36]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    // Groups draw nothing; every object with a mesh is an instance.
    let keys: Vec<&str> = world.objects.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "desk",
            "left lamp/shade",
            "left lamp/stem",
            "right lamp/shade",
            "right lamp/stem"
        ]
    );
    assert!(!capability_notes(&scene)
        .iter()
        .any(|c| c.what.starts_with("include") || c.what.starts_with("object.")));
    // The right lamp's stem: desk · right lamp · shade · stem, its scale overridden to 0.5.
    let m = |at: [f32; 3], r: [f32; 3], s: [f32; 3]| crate::geometry::model_matrix(at, r, s);
    let want = m([0.0, 0.75, 0.0], [0.0; 3], [1.0; 3])
        * m([1.2, 0.0, 0.4], [0.0; 3], [2.0; 3])
        * m([0.0, 0.5, 0.0], [0.0; 3], [1.0; 3])
        * m([0.0, -0.25, 0.0], [0.0; 3], [0.5; 3]);
    let stem = world
        .trace
        .instances
        .iter()
        .zip(world.trace.accel.instances())
        .find(|(info, _)| world.objects[info.object as usize].key == "right lamp/stem")
        .map(|(_, inst)| inst.world_from_object)
        .unwrap();
    assert!(stem.abs_diff_eq(want, 1e-5), "{stem} {want}");
    // Bulbs at [0, 0.45, 0] in each lamp's frame, radius 0.05 times the mean scale.
    let spheres: Vec<(Vec3, f32, f32)> = world
        .trace
        .lights
        .iter()
        .filter_map(|l| match l {
            Light::Sphere {
                center,
                radius,
                radiance,
                ..
            } => Some((*center, *radius, radiance.x)),
            _ => None,
        })
        .collect();
    assert_eq!(spheres.len(), 2);
    let pi = std::f32::consts::PI;
    let (c, r, l) = spheres[0];
    assert!(c.abs_diff_eq(Vec3::new(-1.2, 1.2, 0.4), 1e-5), "{c}");
    assert!((r - 0.05).abs() < 1e-6 && (l - 3.0 / (pi * r * r)).abs() < 1e-2 * l);
    let (c, r, l) = spheres[1];
    assert!(c.abs_diff_eq(Vec3::new(1.2, 1.65, 0.4), 1e-5), "{c}");
    assert!((r - 0.1).abs() < 1e-6 && (l - 1.0 / (pi * r * r)).abs() < 1e-2 * l);
}

/// The loader's codes are the assets' own strings.
#[test]
fn asset_codes_keep_their_strings() {
    use crate::assets::AssetErrorKind as K;
    for k in [
        K::Unreadable,
        K::GltfInvalid,
        K::GltfNode,
        K::GltfExtension,
        K::GltfEmpty,
        K::HdrInvalid,
        K::FontInvalid,
        K::FontGlyph,
    ] {
        assert_eq!(super::build::asset_code(k).as_str(), k.code());
    }
}

/// A node name in `[mesh.*.nodes."…"]` or an object's `materials = { … }` that the glTF file
/// does not hold is refused by the loader at the key that names it, with the loader's code;
/// the kit's own names build.
#[test]
fn unknown_node_names_are_refused_where_they_are_written() {
    let kit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    let dir = tempfile::tempdir().unwrap();
    for f in ["kit.glb", "golden.materials.toml", "project.toml"] {
        std::fs::copy(kit.join(f), dir.path().join(f)).unwrap();
    }
    let base = std::fs::read_to_string(kit.join("nodes.scene.toml")).unwrap();
    let build = |text: &str| {
        let file = dir.path().join("t.scene.toml");
        std::fs::write(&file, text).unwrap();
        let scene = crate::scene::load(&file).unwrap_or_else(|d| panic!("{d:#?}"));
        World::build(&scene, [8, 8]).map(|_| ()).map_err(|e| e.0)
    };
    build(&base).unwrap_or_else(|e| panic!("{e:#?}"));
    let text = base.replace("nodes.\"box_b\"]", "nodes.\"box_bb\"]");
    let e = build(&text).unwrap_err();
    assert_eq!(e.len(), 1, "{e:#?}");
    let line = text.lines().position(|l| l.contains("box_bb")).unwrap() as u32 + 1;
    assert_eq!(
        (e[0].code, e[0].key.as_str(), e[0].line, e[0].column),
        ("gltf-node", "mesh.props.nodes.box_bb", line, 1)
    );
    assert!(e[0].message.contains("box_a"), "{}", e[0].message);

    let text = base.replace(
        "name = \"props\"\nmesh = \"props\"\n",
        "name = \"props\"\nmesh = \"props\"\nmaterials = { box_z = \"red\" }\n",
    );
    assert_ne!(text, base);
    let e = build(&text).unwrap_err();
    assert_eq!(e.len(), 1, "{e:#?}");
    let line = text
        .lines()
        .position(|l| l.starts_with("materials = { box_z"))
        .unwrap() as u32
        + 1;
    assert_eq!(
        (e[0].code, e[0].key.as_str(), e[0].line, e[0].column),
        ("gltf-node", "object.f6kf4vee35.materials.box_z", line, 1)
    );
}

/// A card kept static (`face_camera = true`, `dynamic = false`) is baked turned to the
/// camera, as the spec turns it: its +Z towards the eye, its +Y up, its `rotate` ignored, its
/// position and scale kept.
#[test]
fn a_static_card_faces_the_camera() {
    let kit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    let dir = tempfile::tempdir().unwrap();
    for f in ["kit.glb", "project.toml"] {
        std::fs::copy(kit.join(f), dir.path().join(f)).unwrap();
    }
    let file = dir.path().join("t.scene.toml");
    std::fs::write(
        &file,
        "format = 1\n[mesh.cube]\nid = \"9f6dnw5qdt\"\nfile = \"kit.glb\"\nnode = \"cube\"\n\
         [[object]]\nid = \"aaaaaaaa02\"\nname = \"card\"\nmesh = \"cube\"\nat = [1, 0, 0]\n\
         rotate = [0, 90, 30]\nscale = 2\nface_camera = true\ndynamic = false\n\
         [camera]\nat = [1, 0, 5]\nlook_at = [1, 0, 0]\n",
    )
    .unwrap();
    let scene = crate::scene::load(&file).unwrap_or_else(|d| panic!("{d:#?}"));
    let world = World::build(&scene, [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let m = world.trace.accel.instances()[0].world_from_object;
    let want = crate::geometry::model_matrix([1.0, 0.0, 0.0], [0.0; 3], [2.0; 3]);
    assert!(m.abs_diff_eq(want, 1e-5), "{m} {want}");
}

/// An object a mover moves but that is kept static (`dynamic = false`) is baked at its pose
/// at t = 0 (here `travel[0]`, a swing with no offset), cut by the mover's planes.
#[test]
fn a_static_object_a_mover_moves_is_baked_at_its_pose_at_t0() {
    let kit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    let dir = tempfile::tempdir().unwrap();
    for f in ["kit.glb", "project.toml"] {
        std::fs::copy(kit.join(f), dir.path().join(f)).unwrap();
    }
    let file = dir.path().join("t.scene.toml");
    let scene_text = |extra: &str| {
        format!(
            "format = 1\n[mesh.cube]\nid = \"9f6dnw5qdt\"\nfile = \"kit.glb\"\nnode = \"cube\"\n\
             [[object]]\nid = \"aaaaaaaa02\"\nname = \"pinned\"\nmesh = \"cube\"\n\
             at = [1, 0, 0]\ndynamic = false\n{extra}"
        )
    };
    let build = |text: String| {
        std::fs::write(&file, text).unwrap();
        let scene = crate::scene::load(&file).unwrap_or_else(|d| panic!("{d:#?}"));
        World::build(&scene, [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0))
    };
    let still = build(scene_text(""));
    let moved = build(scene_text(
        "[[mover]]\nid = \"aaaaaaaa05\"\nname = \"slider\"\nobjects = [\"pinned\"]\n\
         kind = \"slide\"\naxis = [0, 0, 2]\ntravel = [0.5, 1.5]\nclip = [[0, 1, 0, 0.25]]\n",
    ));
    let m0 = still.trace.accel.instances()[0].world_from_object;
    let m1 = moved.trace.accel.instances()[0].world_from_object;
    let want = glam::Mat4::from_translation(Vec3::new(0.0, 0.0, 0.5)) * m0;
    assert!(m1.abs_diff_eq(want, 1e-5), "{m1} {want}");
    assert!(still.trace.cuts.is_empty());
    assert_eq!(moved.trace.cuts.len(), 1);
    assert_eq!(moved.trace.cuts[0].planes.len(), 1);
    // A turn a quarter of the way through a loop stands at a quarter of its travel.
    let turned = build(scene_text(
        "[[mover]]\nid = \"aaaaaaaa05\"\nname = \"fan\"\nobjects = [\"pinned\"]\n\
         kind = \"turn\"\naxis = [0, 1, 0]\ntravel = [0, 360]\nmotion = \"loop\"\n\
         period = 4\noffset = 1\n",
    ));
    let m2 = turned.trace.accel.instances()[0].world_from_object;
    let want = glam::Mat4::from_rotation_y(std::f32::consts::FRAC_PI_2) * m0;
    assert!(m2.abs_diff_eq(want, 1e-4), "{m2} {want}");
}

/// A glTF material that decides a part's material and that nothing of the scene covers is
/// named, once per file; a `fallback` covers it.
#[test]
fn an_uncovered_gltf_material_is_named() {
    let kit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    let dir = tempfile::tempdir().unwrap();
    for f in ["kit.glb", "project.toml", "golden.materials.toml"] {
        std::fs::copy(kit.join(f), dir.path().join(f)).unwrap();
    }
    let file = dir.path().join("t.scene.toml");
    let build = |head: &str| {
        std::fs::write(
            &file,
            format!(
                "format = 1\n{head}[mesh.props]\nid = \"qwe48018fw\"\nfile = \"kit.glb\"\n\
                 node = \"props\"\n[[object]]\nid = \"aaaaaaaa02\"\nname = \"p\"\nmesh = \"props\"\n\
                 [[object]]\nid = \"aaaaaaaa03\"\nname = \"q\"\nmesh = \"props\"\n"
            ),
        )
        .unwrap();
        let scene = crate::scene::load(&file).unwrap_or_else(|d| panic!("{d:#?}"));
        World::build(&scene, [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0))
    };
    let bare = build("");
    let named: Vec<&Capability> = bare
        .capabilities
        .iter()
        .filter(|c| c.what.starts_with("gltf material "))
        .collect();
    assert!(!named.is_empty(), "{:#?}", bare.capabilities);
    for c in &named {
        assert_eq!(c.count, 1, "once per file: {c:?}");
        assert!(
            c.message.contains("is drawn from its own parameters"),
            "{}",
            c.message
        );
    }
    let covered = build("materials = [\"golden.materials.toml\"]\nfallback = \"red\"\n");
    assert!(
        !covered
            .capabilities
            .iter()
            .any(|c| c.what.starts_with("gltf material ")),
        "{:#?}",
        covered.capabilities
    );
}

/// A family's own defaults replace the spec's only where the value is the spec's default.
#[test]
fn family_defaults_replace_the_spec_defaults_only() {
    use super::materials::{with_family_defaults, CHROMIUM_F0};
    let m = |family| scene::Material {
        family,
        ..Default::default()
    };
    let chrome = with_family_defaults(&m(Family::Chrome));
    assert_eq!((chrome.base, chrome.roughness), (CHROMIUM_F0, 0.05));
    let liquid = with_family_defaults(&m(Family::Liquid));
    assert_eq!(
        (liquid.ior, liquid.roughness, liquid.base),
        (1.33, 0.0, [1.0; 3])
    );
    let written = with_family_defaults(&scene::Material {
        ior: 1.4,
        roughness: 0.2,
        base: [0.3, 0.4, 0.5],
        ..m(Family::Liquid)
    });
    assert_eq!(
        (written.ior, written.roughness, written.base),
        (1.4, 0.2, [0.3, 0.4, 0.5])
    );
    assert_eq!(with_family_defaults(&m(Family::Paper)).transmission, 0.3);
    assert_eq!(with_family_defaults(&m(Family::Bark)).specular, 0.02);
    // Metal and plain keep the spec's.
    let metal = with_family_defaults(&m(Family::Metal));
    assert_eq!((metal.base, metal.roughness), ([0.5; 3], 0.5));
}

/// Sheets, emissive surfaces and liquids get their own models; absorption makes a body's
/// interfaces clear and gives its medium `−absorption·ln(base)`.
#[test]
fn the_new_families_get_their_models() {
    let m = |family| scene::Material {
        key: "m".into(),
        family,
        ..Default::default()
    };
    for f in [Family::Paper, Family::Petal, Family::Leaf] {
        let d = material_def(&m(f), 0.0);
        assert!(matches!(d.bxdf, Bxdfs::ThinSheet(_)), "{f:?}");
        assert!(d.bxdf.transmits());
        // A coat is not put over a sheet.
        let coated = material_def(
            &scene::Material {
                clearcoat: 1.0,
                ..m(f)
            },
            0.0,
        );
        assert!(matches!(coated.bxdf, Bxdfs::ThinSheet(_)));
    }
    // Emissive reflects nothing, whatever its base.
    let lamp = material_def(
        &scene::Material {
            base: [0.9; 3],
            emission: [2.0; 3],
            ..m(Family::Emissive)
        },
        0.0,
    );
    let (wo, wi) = (Vec3::new(0.3, 0.0, 0.95).normalize(), Vec3::Z);
    use crate::materials::Bxdf;
    assert_eq!(lamp.bxdf.f(wo, wi), Vec3::ZERO);
    assert_eq!(lamp.emission, Vec3::splat(2.0));
    let coated_lamp = material_def(
        &scene::Material {
            clearcoat: 1.0,
            ..m(Family::Emissive)
        },
        0.0,
    );
    assert!(matches!(coated_lamp.bxdf, Bxdfs::Coated(_)));
    // Liquid: water's index, smooth.
    match material_def(&m(Family::Liquid), 0.0).bxdf {
        Bxdfs::Glass(g) => {
            assert!((g.interface().eta() - 1.33).abs() < 1e-6);
            assert!(g.interface().is_specular());
            assert_eq!(g.tint(), Vec3::ONE);
        }
        other => panic!("{other:?}"),
    }
    // Absorption: clear interfaces, base reached at depth 1/absorption.
    let amber = material_def(
        &scene::Material {
            base: [0.5, 0.25, 1.0],
            absorption: 2.0,
            ..m(Family::Glass)
        },
        0.0,
    );
    assert!(matches!(amber.bxdf, Bxdfs::Glass(g) if g.tint() == Vec3::ONE));
    let kept = crate::materials::beer_lambert(amber.absorption, 0.5);
    assert!(
        (kept - Vec3::new(0.5, 0.25, 1.0)).abs().max_element() < 1e-5,
        "{kept}"
    );
    // Without absorption a glass keeps its per-crossing tint and has no medium.
    let tinted = material_def(
        &scene::Material {
            base: [0.5, 0.25, 1.0],
            ..m(Family::Glass)
        },
        0.0,
    );
    assert_eq!(tinted.absorption, Vec3::ZERO);
    assert!(matches!(tinted.bxdf, Bxdfs::Glass(g) if g.tint() == Vec3::new(0.5, 0.25, 1.0)));
    // Absorption on a family with no medium does nothing.
    let plain = material_def(
        &scene::Material {
            absorption: 2.0,
            ..m(Family::Plain)
        },
        0.0,
    );
    assert_eq!(plain.absorption, Vec3::ZERO);
}

/// Beer–Lambert keeps what does not absorb, even over an infinite distance, and never NaN.
#[test]
fn beer_lambert_is_finite_and_exact() {
    use crate::materials::beer_lambert;
    let sigma = Vec3::new(0.0, 1.0, 2.0);
    assert_eq!(beer_lambert(sigma, f32::INFINITY), Vec3::new(1.0, 0.0, 0.0));
    let k = beer_lambert(sigma, 0.5);
    assert!(
        (k - Vec3::new(1.0, (-0.5f32).exp(), (-1.0f32).exp()))
            .abs()
            .max_element()
            < 1e-6
    );
    assert!(beer_lambert(Vec3::splat(f32::NAN), 1.0).is_finite());
    assert_eq!(beer_lambert(sigma, 0.0), Vec3::ONE);
}

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
    // A metal, a coat, a coated rough diffuse family: no transmission, no medium.
    for (family, metalness, clearcoat) in [
        (Family::Plain, 1.0, 0.0),
        (Family::Plain, 0.0, 0.5),
        (Family::Plaster, 0.0, 0.5),
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
    for want in [
        format!(
            "transmission = 0.6 {}",
            NO_TRANSMISSION.replace("{}", "plain")
        ),
        "transmission = 0.6 has no effect: family \"wood\" at metalness 1 is a conductor and \
         does not transmit"
            .to_string(),
        "absorption = 2 has no effect: family \"plain\" encloses no medium at transmission 0"
            .to_string(),
    ] {
        assert!(notes.contains(&want), "{want}\n{notes:#?}");
    }
    // The uncoated stone transmits (`transmission_on_the_rough_diffuse_and_sheen_families_*`).
    assert_eq!(notes.len(), 3, "{notes:#?}");
}

/// What the schema says where `transmission` is not drawn on a reflecting family.
const NO_TRANSMISSION: &str = "is not rendered yet on family \"{}\": transmission is drawn on \
                               the bodies \"glass\" and \"liquid\", the sheets \"paper\", \
                               \"petal\" and \"leaf\", and the uncoated families \"plain\", \
                               \"wood\", \"bark\", \"plaster\", \"stone\", \"cloth\" and \
                               \"cord\"";

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
        // Under a coat: plain under the coat, no transmission, no medium.
        let coated = material_def(&m("a", family, 0.6, 0.5), 0.0);
        assert!(matches!(coated.bxdf, Bxdfs::Coated(_)), "{family:?}");
        assert!(!coated.bxdf.bounds_body());
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
            // Not drawn: a coat, and the opaque rough diffuse's specular and absorption.
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
        format!(
            "transmission = 0.6 {}",
            NO_TRANSMISSION.replace("{}", "plaster")
        ),
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

/// A glTF material with KHR_materials_transmission is the translucent blend at its factor;
/// KHR_materials_volume's attenuation becomes the body's absorption.
#[test]
fn gltf_transmission_builds_a_translucent_body_with_the_volumes_attenuation() {
    use super::gltf_surface::gltf_material_def;
    let m = crate::assets::GltfMaterial {
        label: "material 'amber'".into(),
        transmission: 0.8,
        attenuation: [0.1, 0.2, 0.3],
        metallic: 0.0,
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let d = gltf_material_def(&m, false, 0.0);
    let Bxdfs::Translucent(t) = d.bxdf else {
        panic!("{:?}", d.bxdf)
    };
    assert!((t.weight() - 0.8).abs() < 1e-6);
    assert!((t.interface().eta() - 1.5).abs() < 1e-4);
    assert_eq!(d.absorption, Vec3::new(0.1, 0.2, 0.3));
    // Without transmission the attenuation has nothing to fill.
    let opaque = gltf_material_def(
        &crate::assets::GltfMaterial {
            transmission: 0.0,
            ..m.clone()
        },
        false,
        0.0,
    );
    assert!(matches!(opaque.bxdf, Bxdfs::Plain(_)));
    assert_eq!(opaque.absorption, Vec3::ZERO);
    // KHR_materials_dispersion on a fully transmitting dielectric: per channel, a body.
    let prism = crate::assets::GltfMaterial {
        transmission: 1.0,
        dispersion: 1.0,
        ..m
    };
    let d = gltf_material_def(&prism, false, 0.0);
    let Bxdfs::Dispersive(g) = d.bxdf else {
        panic!("{:?}", d.bxdf)
    };
    let [r, gr, b] = g.channels().map(|c| c.eta());
    assert!(r < gr && gr < b && (gr - 1.5).abs() < 0.01, "{r} {gr} {b}");
    assert_eq!(d.absorption, Vec3::new(0.1, 0.2, 0.3));
    // Partly transmitting: the translucent blend, without dispersion.
    let half = crate::assets::GltfMaterial {
        transmission: 0.5,
        ..prism
    };
    assert!(matches!(
        gltf_material_def(&half, false, 0.0).bxdf,
        Bxdfs::Translucent(_)
    ));
}

/// KHR_materials_clearcoat is the library's coat (`Coated`) of glTF's fixed ior 1.5 over the
/// material's `plain`, whatever KHR_materials_ior gives the base; factor 0 is the uncoated
/// material bit for bit; over COLOR_0 it is built per hit.
#[test]
fn gltf_clearcoat_is_the_coat_of_ior_one_and_a_half_over_plain() {
    use super::gltf_surface::{f0_of_ior, gltf_material_def};
    use crate::materials::{Coated, Plain};
    let m = crate::assets::GltfMaterial {
        label: "material 'car paint'".into(),
        base_color: [0.5, 0.02, 0.01, 1.0],
        metallic: 0.25,
        roughness: 0.44,
        ior: 2.0,
        clearcoat: 0.75,
        clearcoat_roughness: 0.03,
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let d = gltf_material_def(&m, false, 0.0);
    let plain = Plain::new(Vec3::new(0.5, 0.02, 0.01), 0.44, 0.25, f0_of_ior(2.0));
    assert_eq!(
        d.bxdf,
        Bxdfs::Coated(Coated::new(plain, 0.75, 0.03, 1.5)),
        "{:?}",
        d.bxdf
    );
    assert_eq!(d.filtered, d.bxdf);
    // `filter_glossy` raises both roughnesses in the filtered copy.
    let f = gltf_material_def(&m, false, 0.3);
    assert_eq!(f.bxdf, d.bxdf);
    assert_eq!(
        f.filtered,
        Bxdfs::Coated(Coated::new(
            Plain::new(Vec3::new(0.5, 0.02, 0.01), 0.44, 0.25, f0_of_ior(2.0)),
            0.75,
            0.3,
            1.5
        ))
    );
    // Factor 0: the material without the extension, bit for bit.
    let bare = crate::assets::GltfMaterial {
        clearcoat: 0.0,
        clearcoat_roughness: 0.0,
        ..m.clone()
    };
    let zero = crate::assets::GltfMaterial {
        clearcoat: 0.0,
        ..m.clone()
    };
    let (a, b) = (
        gltf_material_def(&bare, false, 0.3),
        gltf_material_def(&zero, false, 0.3),
    );
    assert!(matches!(a.bxdf, Bxdfs::Plain(_)));
    assert_eq!((a.bxdf, a.filtered), (b.bxdf, b.filtered));
    // Over vertex colours the base varies per hit: coated, its coat built at each hit.
    let c = gltf_material_def(&m, true, 0.0);
    assert!(matches!(c.bxdf, Bxdfs::Coated(_)), "{:?}", c.bxdf);
    assert!(c.surface.is_some());
}

/// KHR_materials_specular: the plain's dielectric layer takes F0 = min(F0(ior) · colour, 1)
/// per channel and the factor as its weight (`Plain::tinted`); at the defaults it is the
/// material without the extension, bit for bit; under a clear coat the coat's base is that
/// layer; a specular texture builds the layer at each hit from factor × texel.
#[test]
fn gltf_specular_is_the_plains_tinted_weighted_layer() {
    use super::gltf_surface::{f0_of_ior, gltf_material_def};
    use crate::materials::{Coated, Plain};
    let m = crate::assets::GltfMaterial {
        label: "material 'lacquer'".into(),
        base_color: [0.2, 0.3, 0.4, 1.0],
        metallic: 0.25,
        roughness: 0.4,
        ior: 2.0,
        specular: 0.5,
        specular_color: [3.0, 1.0, 0.25],
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let f0 = f0_of_ior(2.0);
    let want = Plain::tinted(
        Vec3::new(0.2, 0.3, 0.4),
        0.4,
        0.25,
        Vec3::new(3.0 * f0, f0, 0.25 * f0),
        0.5,
    );
    let d = gltf_material_def(&m, false, 0.0);
    assert_eq!(d.bxdf, Bxdfs::Plain(want), "{:?}", d.bxdf);
    let defaults = crate::assets::GltfMaterial {
        specular: 1.0,
        specular_color: [1.0; 3],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&defaults, false, 0.0).bxdf,
        Bxdfs::Plain(Plain::new(Vec3::new(0.2, 0.3, 0.4), 0.4, 0.25, f0))
    );
    // A colour past the clamp: 10 · 1/9 is taken as 1.
    let bright = crate::assets::GltfMaterial {
        specular_color: [10.0, 1.0, 1.0],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&bright, false, 0.0).bxdf,
        Bxdfs::Plain(Plain::tinted(
            Vec3::new(0.2, 0.3, 0.4),
            0.4,
            0.25,
            Vec3::new(1.0, f0, f0),
            0.5
        ))
    );
    // Weight 0 over a dielectric: Lambertian.
    let matte = crate::assets::GltfMaterial {
        specular: 0.0,
        metallic: 0.0,
        ..m.clone()
    };
    let Bxdfs::Plain(p) = gltf_material_def(&matte, false, 0.0).bxdf else {
        panic!("not plain")
    };
    let lambert = Plain::new(Vec3::new(0.2, 0.3, 0.4), 0.4, 0.0, 0.0);
    for (wo, wi) in [
        (Vec3::Z, Vec3::Z),
        (Vec3::new(0.6, 0.0, 0.8), Vec3::new(-0.6, 0.0, 0.8)),
    ] {
        use crate::materials::Bxdf;
        assert_eq!(p.f(wo, wi), lambert.f(wo, wi));
    }
    // A tinted colour under a coat is drawn grey at its luminance (the loader names it).
    let tinted = crate::assets::GltfMaterial {
        clearcoat: 1.0,
        clearcoat_roughness: 0.1,
        specular_color: [1.0, 0.0, 0.0],
        ..m.clone()
    };
    let y = crate::color::luminance(Vec3::X);
    let grey = crate::assets::GltfMaterial {
        specular_color: [y; 3],
        ..tinted.clone()
    };
    assert_eq!(
        gltf_material_def(&tinted, false, 0.0).bxdf,
        gltf_material_def(&grey, false, 0.0).bxdf
    );
    // Under a coat, a grey colour.
    let coated = crate::assets::GltfMaterial {
        clearcoat: 1.0,
        clearcoat_roughness: 0.1,
        specular_color: [0.5; 3],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&coated, false, 0.0).bxdf,
        Bxdfs::Coated(Coated::new(
            Plain::tinted(
                Vec3::new(0.2, 0.3, 0.4),
                0.4,
                0.25,
                Vec3::splat(0.5 * f0),
                0.5
            ),
            1.0,
            0.1,
            1.5
        ))
    );
    // A specular texture (alpha 128/255 everywhere) multiplies the factor at each hit.
    use crate::assets::{Filter, Mip, TextureImage, TextureRef, UvTransform, Wrap};
    let texture = TextureRef {
        image: std::sync::Arc::new(TextureImage::new(1, 1, vec![[9, 9, 9, 128]])),
        wrap_s: Wrap::Repeat,
        wrap_t: Wrap::Repeat,
        filter: Filter::Nearest,
        minify: Filter::Nearest,
        mip: Mip::Off,
        tex_coord: 0,
        transform: UvTransform::default(),
    };
    let textured = crate::assets::GltfMaterial {
        specular_texture: Some(texture),
        ..m.clone()
    };
    let d = gltf_material_def(&textured, false, 0.0);
    let surface = d.surface.expect("a textured material is shaded per hit");
    let at = super::gltf_surface::SurfacePoint {
        uvs: [glam::Vec2::splat(0.5); 4],
        footprints: Default::default(),
        color: glam::Vec4::ONE,
        ns: Vec3::Z,
        tangent: glam::Vec4::ZERO,
    };
    let shaded = surface.shade(&at, false);
    let w = 0.5 * (128.0f32 / 255.0);
    let Bxdfs::Plain(p) = shaded.bxdf else {
        panic!("{:?}", shaded.bxdf)
    };
    let want = Plain::tinted(
        Vec3::new(0.2, 0.3, 0.4),
        0.4,
        0.25,
        Vec3::new(3.0 * f0, f0, 0.25 * f0),
        w,
    );
    assert_eq!(p, want);
}

/// KHR_materials_sheen is the library's sheen layer (`Sheened`, weight 1) of the glTF colour
/// and roughness over the material's `plain` (tinted by KHR_materials_specular where given);
/// black is the material without it, bit for bit; a textured material builds it per hit.
#[test]
fn gltf_sheen_is_the_sheen_layer_of_its_colour_and_roughness() {
    use super::gltf_surface::{f0_of_ior, gltf_material_def};
    use crate::materials::{Plain, Sheened};
    let m = crate::assets::GltfMaterial {
        label: "material 'velvet'".into(),
        base_color: [0.3, 0.05, 0.1, 1.0],
        metallic: 0.0,
        roughness: 0.8,
        sheen_color: [1.0, 0.6, 0.7],
        sheen_roughness: 0.35,
        specular: 0.5,
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let base = Vec3::new(0.3, 0.05, 0.1);
    let plain = Plain::tinted(base, 0.8, 0.0, Vec3::splat(f0_of_ior(1.5)), 0.5);
    let want = Bxdfs::Sheened(Sheened::new(plain, 1.0, Vec3::new(1.0, 0.6, 0.7), 0.35));
    let d = gltf_material_def(&m, false, 0.0);
    assert_eq!(d.bxdf, want, "{:?}", d.bxdf);
    let black = crate::assets::GltfMaterial {
        sheen_color: [0.0; 3],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&black, false, 0.0).bxdf,
        Bxdfs::Plain(plain)
    );
    // Over vertex colours (built per hit): the same layer over the coloured base.
    let d = gltf_material_def(&m, true, 0.0);
    let surface = d.surface.expect("COLOR_0 shades per hit");
    let at = super::gltf_surface::SurfacePoint {
        uvs: [glam::Vec2::ZERO; 4],
        footprints: Default::default(),
        color: glam::Vec4::new(0.5, 1.0, 1.0, 1.0),
        ns: Vec3::Z,
        tangent: glam::Vec4::ZERO,
    };
    let shaded = surface.shade(&at, false);
    let plain = Plain::tinted(
        base * Vec3::new(0.5, 1.0, 1.0),
        0.8,
        0.0,
        Vec3::splat(0.04),
        0.5,
    );
    assert_eq!(
        shaded.bxdf,
        Bxdfs::Sheened(Sheened::new(plain, 1.0, Vec3::new(1.0, 0.6, 0.7), 0.35))
    );
    // Textures (one texel everywhere): sheenColorTexture's RGB (sRGB) multiplies the colour,
    // sheenRoughnessTexture's A (linear) the roughness, at each hit.
    use crate::assets::{Filter, Mip, TextureImage, TextureRef, UvTransform, Wrap};
    let texel = |t: [u8; 4]| TextureRef {
        image: std::sync::Arc::new(TextureImage::new(1, 1, vec![t])),
        wrap_s: Wrap::Repeat,
        wrap_t: Wrap::Repeat,
        filter: Filter::Nearest,
        minify: Filter::Nearest,
        mip: Mip::Off,
        tex_coord: 0,
        transform: UvTransform::default(),
    };
    let textured = crate::assets::GltfMaterial {
        sheen_color_texture: Some(texel([255, 128, 0, 7])),
        sheen_roughness_texture: Some(texel([1, 2, 3, 64])),
        ..m.clone()
    };
    let d = gltf_material_def(&textured, false, 0.0);
    let surface = d.surface.expect("a sheen texture is shaded per hit");
    let at = super::gltf_surface::SurfacePoint {
        color: glam::Vec4::ONE,
        uvs: [glam::Vec2::splat(0.5); 4],
        ..at
    };
    let shaded = surface.shade(&at, false);
    let plain = Plain::tinted(base, 0.8, 0.0, Vec3::splat(0.04), 0.5);
    // IEC 61966-2-1, as the decode computes it (in f64, then rounded).
    let srgb = |b: u8| {
        let c = f64::from(b) / 255.0;
        ((c + 0.055) / 1.055).powf(2.4) as f32
    };
    let color = Vec3::new(1.0, 0.6 * srgb(128), 0.0);
    assert_eq!(
        shaded.bxdf,
        Bxdfs::Sheened(Sheened::new(plain, 1.0, color, 0.35 * (64.0 / 255.0)))
    );
    // A black texel is no sheen: the plain itself.
    let black = crate::assets::GltfMaterial {
        sheen_color_texture: Some(texel([0, 0, 0, 255])),
        ..m.clone()
    };
    let d = gltf_material_def(&black, false, 0.0);
    let shaded = d.surface.expect("textured").shade(&at, false);
    assert_eq!(shaded.bxdf, Bxdfs::Plain(plain));
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

/// KHR_materials_ior's `ior = 0` (the specular-glossiness mode: an infinite index, Fresnel 1
/// at every angle) is the `plain` of F0 = 1, whose layer reflects everything and hides the
/// base: a white and a black base scatter alike. Under KHR_materials_specular the F0 is the
/// specular colour (the conversion from specular-glossiness), clamped to 1.
#[test]
fn gltf_ior_zero_is_the_plain_of_f0_one() {
    use super::gltf_surface::gltf_material_def;
    use crate::materials::{Bxdf, Plain};
    let m = crate::assets::GltfMaterial {
        label: "material 'chrome'".into(),
        base_color: [1.0; 4],
        metallic: 0.0,
        roughness: 0.4,
        ior: 0.0,
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let white = gltf_material_def(&m, false, 0.0).bxdf;
    // A white conductor: the layer's Fresnel 1 at every angle, its multiple scattering the
    // conductor's.
    assert_eq!(
        white,
        Bxdfs::Plain(Plain::new(Vec3::ONE, 0.4, 1.0, 0.0)),
        "{white:?}"
    );
    let black = gltf_material_def(
        &crate::assets::GltfMaterial {
            base_color: [0.0, 0.0, 0.0, 1.0],
            ..m.clone()
        },
        false,
        0.0,
    )
    .bxdf;
    // The old reading (ior 1, F0 = 0) drew the white base as a Lambertian of albedo 1.
    let mut rng = crate::sampling::testutil::Rng::new(11);
    let mut worst = 0.0f32;
    for _ in 0..2000 {
        let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
        let (w, b) = (white.f(wo, wi), black.f(wo, wi));
        worst = worst.max((w - b).abs().max_element());
    }
    eprintln!("ior 0: largest |f(white base) − f(black base)| over 2000 pairs: {worst:e}");
    assert!(worst == 0.0, "the base shows through by {worst}");
    // Lossless and never above 1 (white furnace), at several roughnesses and angles.
    for (i, r) in [0.1f32, 0.5, 1.0].into_iter().enumerate() {
        let rough = crate::assets::GltfMaterial {
            roughness: r,
            base_color: [0.3, 0.6, 0.9, 1.0],
            ..m.clone()
        };
        let b = gltf_material_def(&rough, false, 0.0).bxdf;
        for (k, mu) in [1.0f32, 0.5, 0.1].into_iter().enumerate() {
            let wo = crate::materials::testutil::dir(mu, 0.3);
            let (a, se) =
                crate::materials::testutil::albedo(&b, wo, 100_000, 70 + (3 * i + k) as u64);
            eprintln!("ior 0, roughness {r}, μ {mu}: albedo {a} ± {se}");
            assert!(
                a.max_element() <= 1.0 + 4.0 * se + 1e-3,
                "r {r} μ {mu}: {a} ± {se}"
            );
            assert!(
                a.min_element() >= 0.97 - 4.0 * se,
                "r {r} μ {mu}: {a} ± {se}"
            );
            // Grey: the base colour does not show.
            assert!(
                a.max_element() - a.min_element() < 1e-6,
                "r {r} μ {mu}: {a}"
            );
        }
    }
    // A coat over it: the coat over that conductor (the conversion keeps clear coats).
    let coated = crate::assets::GltfMaterial {
        clearcoat: 1.0,
        clearcoat_roughness: 0.2,
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&coated, false, 0.0).bxdf,
        Bxdfs::Coated(crate::materials::Coated::new(
            Plain::new(Vec3::ONE, 0.4, 1.0, 0.0),
            1.0,
            0.2,
            1.5
        ))
    );
    // Half metallic: the conductor of F0 lerp(1, base, ½).
    let half = crate::assets::GltfMaterial {
        metallic: 0.5,
        base_color: [0.2, 0.4, 0.6, 1.0],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&half, false, 0.0).bxdf,
        Bxdfs::Plain(Plain::new(Vec3::new(0.6, 0.7, 0.8), 0.4, 1.0, 0.0))
    );
    // The spec-glossiness conversion: F0 = the specular colour.
    let specgloss = crate::assets::GltfMaterial {
        specular_color: [0.9, 0.6, 3.0],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&specgloss, false, 0.0).bxdf,
        Bxdfs::Plain(Plain::tinted(
            Vec3::ONE,
            0.4,
            0.0,
            Vec3::new(0.9, 0.6, 1.0),
            1.0
        ))
    );
}
