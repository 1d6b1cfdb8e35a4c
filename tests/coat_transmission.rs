//! A clear coat over a transmitting base (issue 15): a coated `plain` pane between a light and
//! a floor lets light through once `transmission > 0`, and the coat takes its share.
//!
//! With `[trace] transmissive_shadows` the floor beneath gets the light times the pane's
//! shadow transmittance at its two faces, `(w · tint · (1 − F) · T_coat)²` near normal
//! incidence; at `transmission = 0` the coated pane is opaque and the floor is dark but for
//! indirect light. With a sphere light and no transmissive shadows, the light reaches the
//! floor only along paths that refract through the pane's rough interface, and it does so
//! under the coat too.

use std::path::PathBuf;

use glam::Vec3;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::materials::{CoatedTranslucent, Translucent};
use pfx_bake::scene::{self, Scene};
use pfx_bake::world::World;

#[derive(Clone, Copy)]
enum Lamp {
    Point,
    Sphere,
}

/// A floor, optionally under a pane of `plain` of this transmission and coat weight, of
/// roughness `roughness`, lit from above.
fn scene(
    pane: Option<(f32, f32)>,
    transmissive_shadows: bool,
    lamp: Lamp,
    roughness: f32,
) -> Scene {
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
    let (transmission, clearcoat) = pane.unwrap_or((0.0, 0.0));
    if pane.is_some() {
        objects.push(object("pane", [0.0, 1.0, 0.0], [1.0, 0.02, 1.0], "varnish"));
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
        file: "coated-pane.scene.toml".into(),
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
                key: "varnish".into(),
                family: scene::Family::Plain,
                base: [1.0; 3],
                roughness,
                transmission,
                clearcoat,
                clearcoat_roughness: 0.05,
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
/// right under the pane (the pane itself is above the line of sight there), and the notes.
fn centre(scene: &Scene, spp: u32) -> (f64, Vec<String>) {
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
    let notes = world
        .capabilities
        .iter()
        .map(|c| c.message.clone())
        .collect();
    (sum / 81.0, notes)
}

#[test]
fn a_coated_pane_lets_light_through_by_its_transmission() {
    // A smooth interface: its crossing is a delta lobe, so the light reaches the floor through
    // the shadow rays alone (a rough one is also met by the light sampled at the pane's lower
    // face, as for glass).
    let (open, _) = centre(&scene(None, true, Lamp::Point, 0.0), 16);
    let ratio = |pane| centre(&scene(Some(pane), true, Lamp::Point, 0.0), 16);
    let (opaque, _) = ratio((0.0, 1.0));
    let (coated, notes) = ratio((1.0, 1.0));
    let (bare, _) = ratio((1.0, 0.0));
    let (opaque, coated, bare) = (opaque / open, coated / open, bare / open);
    // The two faces' shadow transmittance head on, from the lobes themselves.
    let white = Vec3::ONE;
    let t_bare = Translucent::new(white, 0.0, 0.0, 0.04, 5.0, 1.0, white)
        .unwrap()
        .shadow_transmittance(1.0)
        .x as f64;
    let t_coated = CoatedTranslucent::new(white, 0.0, 0.0, 0.04, 5.0, 1.0, white, 1.0, 0.05, 1.5)
        .unwrap()
        .shadow_transmittance(1.0)
        .x as f64;
    let (want_bare, want_coated) = (t_bare * t_bare, t_coated * t_coated);
    eprintln!(
        "under the pane / no pane: coated {coated:.4} (expect {want_coated:.4}), uncoated \
         {bare:.4} (expect {want_bare:.4}), coated at transmission 0 {opaque:.4}"
    );
    assert!((coated / want_coated - 1.0).abs() < 0.03, "{coated}");
    assert!((bare / want_bare - 1.0).abs() < 0.03, "{bare}");
    assert!(coated < bare, "{coated} {bare}");
    assert!(opaque < 0.1 * coated, "{opaque} {coated}");
    // Drawn, so not named.
    assert!(
        !notes.iter().any(|n| n.contains("transmission")),
        "{notes:#?}"
    );
}

#[test]
fn light_refracts_through_a_coated_pane() {
    // No transmissive shadows: only paths through the pane's interface reach the light.
    let (open, _) = centre(&scene(None, false, Lamp::Sphere, 0.3), 64);
    let (opaque, _) = centre(&scene(Some((0.0, 1.0)), false, Lamp::Sphere, 0.3), 64);
    let (coated, _) = centre(&scene(Some((1.0, 1.0)), false, Lamp::Sphere, 0.3), 64);
    let (opaque, coated) = (opaque / open, coated / open);
    eprintln!("sphere light through the coated pane: {coated:.4}, at transmission 0 {opaque:.4}");
    // Two rough refractions spread what reaches the small light, so the share is well below
    // the transmittance; the opaque coated pane passes nothing but indirect light.
    assert!(coated > 0.02 && coated < 1.0, "{coated}");
    assert!(opaque < 0.3 * coated, "{opaque} {coated}");
}
