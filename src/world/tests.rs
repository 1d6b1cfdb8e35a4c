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
                assert_eq!(*s.base(), crate::materials::SheenBase::Plain(plain));
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

/// The material keys on the families.
mod keys;

/// A clear coat over a transmitting base: the model chosen, the notes, and light through a
/// coated plane.
mod coat_transmission;

/// glTF materials as drawn.
mod gltf;

/// The sheen layer on the families beyond `plain`'s.
mod sheen;

/// The world geometry of flattened instances.
mod geometry;
