//! Skies through the whole pipeline (docs/rendering.md, "Skies: hdr prepare, room, mix"): a
//! white Lambertian floor seen from above, lit by each sky kind alone, has the radiance
//! `base/π · E`, E the irradiance integrated from the sky's own map over the upper hemisphere;
//! a mix's broken layer is reported at its key; an analytic sky without a sun is named.

use std::path::{Path, PathBuf};

use pfx_bake::assets::{load_hdr, HdrMap};
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::lights::skymaps::{self, bake_mix, render_room, LayerSource};
use pfx_bake::scene::{self, Scene, SkyKind};
use pfx_bake::world::World;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A project: the Cornell floor (y = 0, 0.55 m square, facing up, centred on the origin), white Lambertian, a camera
/// 1 m above looking straight down, the noon-grass HDR as `sky.hdr`, and `sky` as the scene's
/// sky tables.
fn project(sky: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path();
    std::fs::create_dir_all(p.join("meshes")).unwrap();
    std::fs::copy(
        repo().join("scenes/cornell/meshes/floor.glb"),
        p.join("meshes/floor.glb"),
    )
    .unwrap();
    std::fs::copy(
        repo().join("tests/data/hdr/noon_grass_128x64_flat.hdr"),
        p.join("sky.hdr"),
    )
    .unwrap();
    std::fs::write(p.join("not.hdr"), "not an hdr").unwrap();
    std::fs::write(
        p.join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    std::fs::write(
        p.join("t.materials.toml"),
        "format = 1\n[materials.white]\nid = \"wwwwwwww01\"\nfamily = \"plain\"\n\
         base = [0.8, 0.8, 0.8]\nroughness = 1.0\nmetalness = 0.0\nspecular = 0.0\n",
    )
    .unwrap();
    let text = format!(
        "format = 1\nmaterials = [\"t.materials.toml\"]\n\
         [mesh.floor]\nid = \"c92frwa2fx\"\nfile = \"meshes/floor.glb\"\n\
         [[object]]\nid = \"fdjavdz6xh\"\nname = \"floor\"\nmesh = \"floor\"\n\
         at = [-0.2764, 0.0, -0.2796]\nmaterial = \"white\"\n\
         [camera]\nat = [0.0, 1.0, 0.0]\nlook_at = [0.0, 0.0, 0.0]\nup = [0.0, 0.0, -1.0]\n\
         fov = 20.0\n\
         {sky}"
    );
    std::fs::write(p.join("t.scene.toml"), text).unwrap();
    dir
}

fn load(dir: &Path) -> Scene {
    scene::load(&dir.join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"))
}

/// The sky's unrotated map times its intensity, built here from the public pieces.
fn sky_map(scene: &Scene) -> HdrMap {
    let sky = scene.sky.as_ref().unwrap();
    let hdr = |path: &Option<PathBuf>, prep: &Option<scene::Prepare>| {
        let mut m = load_hdr(&scene.root.join(path.as_ref().unwrap())).unwrap();
        if let Some(p) = prep {
            skymaps::prepare(&mut m.texels, m.width as usize, m.height as usize, p);
        }
        m
    };
    let scaled = |mut m: HdrMap, k: f32| {
        for t in &mut m.texels {
            *t = t.map(|c| c * k);
        }
        m
    };
    match sky.kind {
        SkyKind::Hdr => scaled(hdr(&sky.path, &sky.prepare), sky.intensity),
        SkyKind::Room => scaled(render_room(sky.room.as_ref().unwrap()), sky.intensity),
        SkyKind::Mix => {
            let layers: Vec<(f32, LayerSource)> = sky
                .layers
                .iter()
                .map(|l| {
                    let source = match l.kind {
                        SkyKind::Hdr => LayerSource::Map {
                            map: hdr(&l.path, &l.prepare),
                            intensity: l.intensity,
                            rotation_deg: l.rotation_deg,
                        },
                        _ => LayerSource::Room {
                            room: l.room.as_ref().unwrap(),
                            intensity: l.intensity,
                            rotation_deg: l.rotation_deg,
                        },
                    };
                    (l.weight, source)
                })
                .collect();
            bake_mix(&layers)
        }
        SkyKind::Analytic => unreachable!(),
    }
}

/// Irradiance on an upward plane from a map (rotation about +Y does not change it): each
/// texel of the upper half times its exact `∫ cos θ dω`, per channel.
fn irradiance(m: &HdrMap) -> [f64; 3] {
    let (w, h) = (m.width as usize, m.height as usize);
    assert_eq!(h % 2, 0, "the horizon must be a row edge");
    let mut e = [0.0f64; 3];
    for y in 0..h / 2 {
        let t0 = std::f64::consts::PI * y as f64 / h as f64;
        let t1 = std::f64::consts::PI * (y + 1) as f64 / h as f64;
        let cos_sa = (t1.sin().powi(2) - t0.sin().powi(2)) / 2.0 * std::f64::consts::TAU / w as f64;
        for t in &m.texels[y * w..(y + 1) * w] {
            for c in 0..3 {
                e[c] += t[c] as f64 * cos_sa;
            }
        }
    }
    e
}

/// Renders the floor and compares its mean radiance with `0.8/π · E` per channel, within 1 %.
fn diffuse_plane(sky: &str, spp: u32) -> [f64; 3] {
    let dir = project(sky);
    let scene = load(dir.path());
    let world = World::build(&scene, [32, 32]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    assert!(
        !world.capabilities.iter().any(|c| c.what.starts_with("sky")),
        "{:#?}",
        world.capabilities
    );
    assert_eq!(world.trace.infinite.len(), 1, "one sky light");
    let image = integrator::render(
        &world,
        &Settings {
            spp,
            seed: 7,
            max_depth: 4,
            ..Settings::default()
        },
        &NoProgress,
    );
    assert_eq!(image.dropped, 0);
    assert!(
        image.coverage.iter().all(|a| *a == 1.0),
        "the floor fills the view"
    );
    let n = image.radiance.len() as f64;
    let mean: [f64; 3] =
        std::array::from_fn(|c| image.radiance.iter().map(|r| r[c] as f64).sum::<f64>() / n);
    let e = irradiance(&sky_map(&scene));
    let want: [f64; 3] = std::array::from_fn(|c| 0.8 / std::f64::consts::PI * e[c]);
    eprintln!("{sky:?}: rendered {mean:?}, expected {want:?}");
    for c in 0..3 {
        assert!(
            (mean[c] - want[c]).abs() < 0.01 * want[c],
            "channel {c}: rendered {} vs {}",
            mean[c],
            want[c]
        );
    }
    want
}

const ROOM: &str = "[sky.room]\nwidth = 128\nfloor = [0.2, 0.15, 0.1]\nwall = [0.4, 0.4, 0.45]\n\
    ceiling = [0.9, 0.9, 0.8]\n\
    [[sky.room.lights]]\nname = \"window\"\naz = 30\nel = 35\npower = 6\ncolor = [1.0, 0.9, 0.7]\n\
    width = 40\nheight = 30\nsoft = 0.2\nslats = 6\nopen = 0.6\n\
    [[sky.room.lights]]\nname = \"panel\"\naz = -120\nel = 70\npower = 3\nwidth = 20\nheight = 20\n";

#[test]
fn diffuse_plane_under_a_prepared_hdr() {
    diffuse_plane(
        "[sky]\nkind = \"hdr\"\npath = \"sky.hdr\"\nrotation_deg = 50\nintensity = 1.5\n\
         [sky.prepare]\ncap = 3\nbalance = [1.0, 0.9, 0.8]\nmean = 0.7\n",
        32,
    );
}

#[test]
fn diffuse_plane_under_a_room() {
    diffuse_plane(
        &format!("[sky]\nkind = \"room\"\nrotation_deg = 20\nintensity = 2\n{ROOM}"),
        64,
    );
}

#[test]
fn diffuse_plane_under_a_mix() {
    let room = ROOM.replace("[sky.room", "[sky.layer.room");
    diffuse_plane(
        &format!(
            "[sky]\nkind = \"mix\"\n\
             [[sky.layer]]\nkind = \"hdr\"\nweight = 0.5\npath = \"sky.hdr\"\nrotation_deg = 90\n\
             [sky.layer.prepare]\nmean = 1.0\n\
             [[sky.layer]]\nkind = \"room\"\nweight = 0.25\nintensity = 2\n{room}"
        ),
        64,
    );
}

/// A mix whose hdr layer is not an HDR is refused at that layer's `path`, with the loader's
/// code; an analytic layer is named in a capability note and the rest of the mix is drawn.
#[test]
fn mix_layers_are_reported_by_key_and_analytic_skies_need_a_sun() {
    let dir = project(
        "[sky]\nkind = \"mix\"\n\
         [[sky.layer]]\nkind = \"room\"\n[sky.layer.room]\n\
         [[sky.layer]]\nkind = \"hdr\"\npath = \"not.hdr\"\n",
    );
    let scene = load(dir.path());
    let Err(e) = World::build(&scene, [8, 8]) else {
        panic!("a broken layer must stop the build");
    };
    assert_eq!(e.0.len(), 1, "{:#?}", e.0);
    let d = &e.0[0];
    assert_eq!(
        (d.code, d.key.as_str()),
        ("hdr-invalid", "sky.layer.1.path")
    );
    let text = std::fs::read_to_string(dir.path().join("t.scene.toml")).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("path = \"not.hdr\""))
        .unwrap()
        + 1;
    assert_eq!((d.line as usize, d.column, d.end_column), (line, 1, 5));

    let dir = project(
        "[sky]\nkind = \"mix\"\n\
         [[sky.layer]]\nkind = \"room\"\n[sky.layer.room]\n\
         [[sky.layer]]\nkind = \"analytic\"\nturbidity = 4\n",
    );
    let scene = load(dir.path());
    let world = World::build(&scene, [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let sky_notes: Vec<&str> = world
        .capabilities
        .iter()
        .filter(|c| c.what.starts_with("sky"))
        .map(|c| c.what.as_str())
        .collect();
    assert_eq!(sky_notes, ["sky analytic without sun"]);
    assert_eq!(world.trace.infinite.len(), 1, "the room layer is drawn");

    // An analytic sky follows the sun: without one it draws nothing and says so.
    let dir = project("[sky]\nkind = \"analytic\"\nturbidity = 4\n");
    let world = World::build(&load(dir.path()), [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let sky_notes: Vec<&str> = world
        .capabilities
        .iter()
        .filter(|c| c.what.starts_with("sky"))
        .map(|c| c.what.as_str())
        .collect();
    assert_eq!(sky_notes, ["sky analytic without sun"]);
    assert!(world.trace.infinite.is_empty());
}

/// The analytic sky and the daylight sun through the whole pipeline: the floor gets
/// `0.8/π · (E_sky + E_sun · cos θ_sun)`, E_sky integrated here from the Hošek–Wilkie model
/// itself (not from the baked map) over the upper hemisphere, E_sun the model's solar
/// irradiance; within 1 %. The resolved sun is the solar position's.
#[test]
fn diffuse_plane_under_the_analytic_sky_and_the_daylight_sun() {
    use pfx_bake::lights::hosek::{daylight_sun, HosekSky};
    let dir = project(
        "[sun]\nmodel = \"daylight\"\nhour = 10\nday = 100\nlatitude = 40\n\
         [sky]\nkind = \"analytic\"\nturbidity = 4\nground_albedo = [0.1, 0.2, 0.3]\n",
    );
    let scene = load(dir.path());
    let world = World::build(&scene, [32, 32]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    assert!(world.capabilities.is_empty(), "{:#?}", world.capabilities);
    let sun = world.sun.expect("a resolved sun");
    let (el, _) = pfx_bake::lights::sun::solar_position(100.0, 10.0, 40.0);
    assert!(
        (sun.toward.y - el.sin()).abs() < 1e-5,
        "{:?} vs {el}",
        sun.toward
    );
    let e_sun = daylight_sun(4.0, el);
    assert_eq!(sun.irradiance, e_sun);
    let image = integrator::render(
        &world,
        &Settings {
            spp: 64,
            seed: 7,
            max_depth: 4,
            ..Settings::default()
        },
        &NoProgress,
    );
    assert_eq!(image.dropped, 0);
    let n = image.radiance.len() as f64;
    let mean: [f64; 3] =
        std::array::from_fn(|c| image.radiance.iter().map(|r| r[c] as f64).sum::<f64>() / n);
    // E_sky by the midpoint rule in (cos θ, φ): ∫ L cos θ dω = ∫∫ L μ dμ dφ.
    let model = HosekSky::new(4.0, glam::Vec3::new(0.1, 0.2, 0.3), el);
    let (nm, np) = (400, 800);
    let mut e_sky = [0.0f64; 3];
    for i in 0..nm {
        let mu = (i as f64 + 0.5) / nm as f64;
        let s = (1.0 - mu * mu).sqrt();
        for j in 0..np {
            let phi = std::f64::consts::TAU * (j as f64 + 0.5) / np as f64;
            let d = glam::Vec3::new((s * phi.cos()) as f32, mu as f32, (s * phi.sin()) as f32);
            let l = model.radiance(d, sun.toward);
            for c in 0..3 {
                e_sky[c] += l[c] as f64 * mu / nm as f64 * std::f64::consts::TAU / np as f64;
            }
        }
    }
    let want: [f64; 3] = std::array::from_fn(|c| {
        0.8 / std::f64::consts::PI * (e_sky[c] + e_sun[c] as f64 * sun.toward.y as f64)
    });
    eprintln!("analytic + daylight: rendered {mean:?}, expected {want:?} (sky alone {e_sky:?})");
    for c in 0..3 {
        assert!(
            (mean[c] - want[c]).abs() < 0.01 * want[c],
            "channel {c}: rendered {} vs {}",
            mean[c],
            want[c]
        );
    }
}

/// `ambient` scales the analytic sky under an authored sun, and is named, not read, under a
/// daylight sun.
#[test]
fn ambient_sets_the_analytic_sky_level_under_an_authored_sun() {
    let sky_at = |sun: &str, ambient: f32| {
        let dir = project(&format!(
            "{sun}[sky]\nkind = \"analytic\"\nturbidity = 3\nambient = {ambient}\n"
        ));
        let world =
            World::build(&load(dir.path()), [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0));
        let radiance = world
            .trace
            .lights
            .iter()
            .find_map(|l| match l {
                pfx_bake::lights::Light::Sky(m) => Some(m.radiance(glam::Vec3::new(0.3, 0.6, 0.2))),
                _ => None,
            })
            .expect("an analytic sky light");
        let notes: Vec<String> = world
            .capabilities
            .iter()
            .map(|c| c.message.clone())
            .collect();
        (radiance, notes)
    };
    let authored = "[sun]\nmodel = \"authored\"\ntoward = [0.2, 0.7, -0.4]\nirradiance = 3\n";
    let (full, notes) = sky_at(authored, 1.0);
    assert!(notes.is_empty(), "{notes:?}");
    let (half, _) = sky_at(authored, 0.5);
    assert!(full.min_element() > 0.0);
    assert!((half - full * 0.5).abs().max_element() <= 1e-6 * full.max_element());
    let daylight = "[sun]\nmodel = \"daylight\"\nhour = 11\n";
    let (one, _) = sky_at(daylight, 1.0);
    let (other, notes) = sky_at(daylight, 0.5);
    assert_eq!(one, other);
    assert_eq!(
        notes,
        ["ambient = 0.5 has no effect under a daylight sun: the sky keeps the Hosek-Wilkie model's ratio to the sun"]
    );
}
