//! `[trace] transmissive_shadows`: a pane of glass between a light and a floor.
//!
//! Without the setting the pane's shadow is black but for indirect light (a point light seen
//! through smooth glass cannot be found by a path tracer). With it, shadow rays pass the pane,
//! and the floor beneath gets the light times `(tint · (1 − F))²` (two crossings, top and
//! bottom face, near normal incidence, F = 0.04 for ior 1.5): 0.25 · 0.9216 = 0.2304 of what it
//! gets with no pane at all.
//! With an area light the same ratio shows that light through glass is counted once, not by
//! both the shadow ray and the path that refracts through the pane.

use std::path::PathBuf;

use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene::{self, Scene};
use pfx_bake::world::World;

const TINT: f32 = 0.5;
const EXPECTED: f64 = (0.5 * 0.96) * (0.5 * 0.96);

#[derive(Clone, Copy)]
enum Lamp {
    Point,
    Sphere,
}

fn scene(pane: bool, transmissive_shadows: bool, lamp: Lamp, roughness: f32) -> Scene {
    let boxfile = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gltf/Box/Box.glb");
    let object = |key: &str, at: [f32; 3], scale: [f32; 3], material: &str| scene::Object {
        key: key.into(),
        mesh: "box".into(),
        at,
        scale,
        material: Some(material.into()),
        alpha_cutoff: 0.5,
        pick: 1,
        ..Default::default()
    };
    let mut objects = vec![object("floor", [0.0, -0.05, 0.0], [8.0, 0.1, 8.0], "floor")];
    if pane {
        objects.push(object("pane", [0.0, 1.0, 0.0], [1.0, 0.02, 1.0], "glass"));
    }
    let (lights, emitters) = match lamp {
        Lamp::Point => (
            vec![scene::Light {
                key: "key".into(),
                id: None,
                position: [0.0, 4.0, 0.0],
                parent: None,
                color: [1.0; 3],
                intensity: 20.0,
                radius: 0.0,
                range: 0.0,
                shadow: true,
            }],
            vec![],
        ),
        Lamp::Sphere => (
            vec![],
            vec![scene::Emitter {
                key: "glow".into(),
                id: None,
                position: [0.0, 4.0, 0.0],
                parent: None,
                radius: 0.3,
                color: [1.0; 3],
                intensity: 20.0,
            }],
        ),
    };
    Scene {
        root: std::env::temp_dir(),
        file: "pane.scene.toml".into(),
        meshes: vec![scene::Mesh {
            key: "box".into(),
            file: boxfile,
            ..Default::default()
        }],
        objects,
        materials: vec![
            scene::Material {
                key: "floor".into(),
                base: [0.2; 3],
                roughness: 1.0,
                specular: 0.0,
                ..Default::default()
            },
            scene::Material {
                key: "glass".into(),
                family: scene::Family::Glass,
                base: [TINT; 3],
                roughness,
                ior: 1.5,
                ..Default::default()
            },
        ],
        lights,
        emitters,
        camera: Some(scene::Camera {
            at: [0.0, 3.0, 3.0],
            fov: 30.0,
            ..Default::default()
        }),
        trace: Some(scene::Trace {
            transmissive_shadows,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Mean radiance of the 9×9 pixels around the image centre, where the camera sees the floor
/// right under the pane (the pane itself is above the line of sight there).
fn centre(scene: &Scene, spp: u32) -> f64 {
    let n = 64usize;
    let world = World::build(scene, [n as u32, n as u32]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let image = integrator::render(
        &world,
        &Settings {
            spp,
            seed: 11,
            ..Settings::default()
        },
        &NoProgress,
    );
    assert_eq!(image.dropped, 0);
    let mut sum = 0.0f64;
    for y in n / 2 - 4..n / 2 + 5 {
        for x in n / 2 - 4..n / 2 + 5 {
            let c = image.radiance[y * n + x];
            sum += (c.x + c.y + c.z) as f64 / 3.0;
        }
    }
    sum / 81.0
}

#[test]
fn shadow_rays_pass_glass_tinted_only_when_asked() {
    let open = centre(&scene(false, true, Lamp::Point, 0.0), 16);
    let passed = centre(&scene(true, true, Lamp::Point, 0.0), 16) / open;
    let stopped = centre(&scene(true, false, Lamp::Point, 0.0), 16) / open;
    eprintln!("under the pane / no pane: transmissive {passed:.4} (expect {EXPECTED:.4}), opaque {stopped:.4}");
    assert!((passed / EXPECTED - 1.0).abs() < 0.02, "{passed}");
    assert!(stopped < 0.05, "{stopped}");
}

#[test]
fn light_through_glass_is_counted_once() {
    for roughness in [0.0f32, 0.3] {
        let open = centre(&scene(false, true, Lamp::Sphere, roughness), 64);
        let passed = centre(&scene(true, true, Lamp::Sphere, roughness), 64) / open;
        eprintln!("sphere light, pane roughness {roughness}: {passed:.4} (expect {EXPECTED:.4})");
        assert!(
            (passed / EXPECTED - 1.0).abs() < 0.03,
            "roughness {roughness}: {passed}"
        );
    }
}

/// A family that is one lobe takes it at full weight, and says so when a material gives the
/// blend weight another value; a key its model does not read is named with its value.
#[test]
fn keys_a_family_does_not_read_are_named() {
    let mut s = scene(true, true, Lamp::Point, 0.0);
    let material = |key: &str, family| scene::Material {
        key: key.into(),
        family,
        ..Default::default()
    };
    s.materials[1].transmission = 0.5;
    s.materials[1].specular = 0.2;
    s.materials.push(scene::Material {
        metalness: 0.5,
        ..material("brass", scene::Family::Metal)
    });
    s.materials.push(scene::Material {
        metalness: 1.0,
        transmission: 1.0,
        ..material("steel", scene::Family::Chrome)
    });
    s.materials.push(scene::Material {
        transmission: 0.3,
        ior: 1.7,
        ..material("frosted", scene::Family::Plain)
    });
    // Transmission is drawn on plain (above) and on the rough diffuse families, under a coat
    // too (no note).
    s.materials.push(scene::Material {
        transmission: 0.3,
        ..material("alabaster", scene::Family::Stone)
    });
    s.materials.push(scene::Material {
        transmission: 0.3,
        clearcoat: 0.5,
        ..material("glazed", scene::Family::Stone)
    });
    // A coat reads ior and clearcoat_roughness; lacquer's coat is at full weight.
    s.materials.push(scene::Material {
        clearcoat: 0.5,
        ior: 1.6,
        clearcoat_roughness: 0.2,
        ..material("varnish", scene::Family::Plain)
    });
    s.materials.push(scene::Material {
        clearcoat: 0.25,
        ..material("enamel", scene::Family::Lacquer)
    });
    // Glass reads a coat when it has one, and names a coat roughness without one.
    s.materials.push(scene::Material {
        clearcoat: 0.5,
        clearcoat_roughness: 0.2,
        ior: 1.6,
        ..material("coated pane", scene::Family::Glass)
    });
    s.materials.push(scene::Material {
        clearcoat_roughness: 0.3,
        ..material("bare pane", scene::Family::Glass)
    });
    let world = World::build(&s, [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let notes: Vec<(&str, &str)> = world
        .capabilities
        .iter()
        .map(|c| (c.what.as_str(), c.message.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                "materials.clearcoat on family lacquer",
                "clearcoat = 0.25 has no effect: family \"lacquer\" is a clear coat at full weight"
            ),
            (
                "materials.clearcoat_roughness on family glass",
                "clearcoat_roughness = 0.3 has no effect: family \"glass\" has no clear coat"
            ),
            (
                "materials.ior on family plain",
                "ior = 1.7 has no effect: family \"plain\"'s reflectance at normal incidence is specular, and it has no clear coat"
            ),
            (
                "materials.metalness on family metal",
                "metalness = 0.5 has no effect: family \"metal\" is a conductor at any metalness"
            ),
            (
                "materials.specular on family glass",
                "specular = 0.2 has no effect: family \"glass\" is a dielectric of index ior"
            ),
            (
                "materials.transmission on family chrome",
                "transmission = 1 has no effect: family \"chrome\" is a conductor and does not transmit"
            ),
            (
                "materials.transmission on family glass",
                "transmission = 0.5 has no effect: family \"glass\" transmits at any transmission"
            ),
        ]
    );
}
