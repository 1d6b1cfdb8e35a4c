//! The `[sun]` table as a bake resolves it (docs/sun.md, docs/sky.md): a daylight sun where
//! the solar position puts it, with the Hošek–Wilkie solar irradiance; an authored sun exactly
//! as authored at its reference hour and turned, dimmed and warmed away from it; the manifest
//! records what was resolved.

use std::path::Path;
use std::process::Command;

use glam::Vec3;
use pfx_bake::lights::{hosek, sun};
use pfx_bake::scene;
use pfx_bake::world::World;

/// A project with one floor quad, a camera and the given `[sun]` table.
fn project(sun: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(p.join("meshes")).unwrap();
    std::fs::copy(
        repo.join("scenes/cornell/meshes/floor.glb"),
        p.join("meshes/floor.glb"),
    )
    .unwrap();
    std::fs::write(
        p.join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    std::fs::write(
        p.join("t.scene.toml"),
        format!(
            "format = 1\n[mesh.floor]\nid = \"c92frwa2fx\"\nfile = \"meshes/floor.glb\"\n\
             [[object]]\nid = \"fdjavdz6xh\"\nname = \"floor\"\nmesh = \"floor\"\n\
             [camera]\nat = [0.0, 1.0, 1.0]\nlook_at = [0.0, 0.0, 0.0]\nfov = 40.0\n{sun}"
        ),
    )
    .unwrap();
    dir
}

fn world(dir: &Path) -> World {
    let scene = scene::load(&dir.join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    World::build(&scene, [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0))
}

fn manifest(dir: &Path) -> serde_json::Value {
    let out = dir.join("plates");
    let o = Command::new(env!("CARGO_BIN_EXE_bake"))
        .args(["--size", "8x8", "--spp", "1", "--out"])
        .arg(&out)
        .arg(dir.join("t.scene.toml"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

fn vec3(v: &serde_json::Value) -> Vec3 {
    let a: Vec<f32> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    Vec3::new(a[0], a[1], a[2])
}

#[test]
fn the_daylight_sun_is_where_the_solar_position_puts_it() {
    // The example: 45° N, day 172, solar noon, heading 180 → elevation 68.44°.
    let dir = project("[sun]\nmodel = \"daylight\"\nhour = 12\nday = 172\nlatitude = 45\n");
    let w = world(dir.path());
    assert!(w.capabilities.is_empty(), "{:#?}", w.capabilities);
    let s = w.sun.unwrap();
    assert!(
        (s.toward - Vec3::new(0.0, 0.930, -0.368))
            .abs()
            .max_element()
            < 1e-3,
        "{}",
        s.toward
    );
    let el = s.toward.y.asin();
    assert!(
        (el.to_degrees() - 68.44).abs() < 0.01,
        "{}",
        el.to_degrees()
    );
    // Turbidity 3 without an analytic sky; the physical disk's irradiance, a delta sun.
    assert_eq!(s.irradiance, hosek::daylight_sun(3.0, el));
    assert_eq!(s.cos_max, 1.0);
    let m = manifest(dir.path());
    let sun = &m["sun"];
    assert_eq!(sun["model"], "daylight");
    assert!((vec3(&sun["toward"]) - s.toward).abs().max_element() < 1e-6);
    assert!(
        (vec3(&sun["irradiance"]) - s.irradiance)
            .abs()
            .max_element()
            < 1e-3
    );
    assert!((sun["elevation_deg"].as_f64().unwrap() - 68.44).abs() < 0.01);
    assert_eq!(vec3(&sun["color"]).max_element(), 1.0);
}

#[test]
fn an_authored_sun_follows_the_hour() {
    let authored = "[sun]\nmodel = \"authored\"\ntoward = [0.3, 0.8, -0.5]\n\
                    color = [1.0, 0.9, 0.8]\nirradiance = 4\nradius = 0.5\n";
    // At its reference hour (12 by default): exactly as authored.
    let w = world(project(authored).path());
    let t0 = Vec3::new(0.3, 0.8, -0.5).normalize();
    let s = w.sun.unwrap();
    assert!((s.toward - t0).abs().max_element() < 1e-6, "{}", s.toward);
    assert_eq!(s.irradiance, Vec3::new(4.0, 3.6, 3.2));
    assert!((s.cos_max - 0.5f32.to_radians().cos()).abs() < 1e-7);
    assert!(w.capabilities.is_empty(), "{:#?}", w.capabilities);
    // Three hours later: turned about the pole, lower, and dimmer and warmer as daylight is.
    let w = world(project(&format!("{authored}hour = 15\n")).path());
    let s = w.sun.unwrap();
    let turned = sun::authored_toward(t0, 12.0, 15.0, 45.0, 180.0).normalize();
    assert!(
        (s.toward - turned).abs().max_element() < 1e-6,
        "{}",
        s.toward
    );
    assert!(s.toward.y < t0.y);
    let scale =
        hosek::authored_sun_scale(sun::elevation_of(turned), sun::elevation_of(t0)).unwrap();
    assert!(
        (s.irradiance - Vec3::new(4.0, 3.6, 3.2) * scale)
            .abs()
            .max_element()
            < 1e-5
    );
    assert!(
        scale.x < 1.0 && scale.z < scale.x,
        "dimmer and warmer: {scale}"
    );
    // At night: below the horizon, dark, and no sun light in the world; the manifest still
    // says where it is.
    let dir = project(&format!("{authored}hour = 0\n"));
    let w = world(dir.path());
    let s = w.sun.unwrap();
    assert!(s.toward.y < 0.0 && s.irradiance == Vec3::ZERO);
    assert!(!w
        .trace
        .lights
        .iter()
        .any(|l| matches!(l, pfx_bake::lights::Light::Sun { .. })));
    let m = manifest(dir.path());
    assert!(vec3(&m["sun"]["toward"]).y < 0.0);
    assert_eq!(vec3(&m["sun"]["irradiance"]), Vec3::ZERO);
}
