//! The flagship, `scenes/room.scene.toml` (issue 16): it uses haze, text, proxies and a
//! finish, and its plate folder holds what each promises (docs/scenes.md, "What the flagship
//! shows"). A small bake of the scene itself, read back from the plate folder: nothing named
//! as not drawn, the static and the dynamic text in the manifest, the proxies in
//! `casters.glb` as the proxies file places them, the finish chain the scene writes, and the
//! haze in the world it is traced in, with Beer–Lambert transmittance exact.

mod common;

use std::path::{Path, PathBuf};

use glam::Vec3;
use serde_json::Value;

use common::{manifest, read_scene, sha256};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scene_file() -> PathBuf {
    repo().join("scenes/room.scene.toml")
}

fn f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

/// `[[proxy]]` boxes of `scenes/room.proxies.toml` as written: (object, at, size).
fn proxies_file() -> Vec<(String, Vec3, Vec3)> {
    let text = std::fs::read_to_string(repo().join("scenes/room.proxies.toml")).unwrap();
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let v3 = |t: &toml_edit::Table, k: &str| {
        let a: Vec<f32> = t[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_float().unwrap() as f32)
            .collect();
        Vec3::new(a[0], a[1], a[2])
    };
    doc["proxy"]
        .as_array_of_tables()
        .unwrap()
        .iter()
        .map(|t| {
            assert_eq!(t["kind"].as_str(), Some("box"));
            (
                t["object"].as_str().unwrap().to_string(),
                v3(t, "at"),
                v3(t, "size"),
            )
        })
        .collect()
}

fn bake(out: &Path) -> pfx_bake::bake::BakeReport {
    let options = pfx_bake::bake::BakeOptions {
        scene: scene_file(),
        out: Some(out.to_path_buf()),
        size: [64, 36],
        settings: pfx_bake::integrator::Settings {
            spp: 1,
            ..Default::default()
        },
        plan: Default::default(),
        threads: Some(2),
        denoise: false,
        guiding: false,
    };
    pfx_bake::bake::bake(&options, &pfx_bake::integrator::NoProgress)
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_flagships_plate_folder_holds_its_haze_text_proxies_and_finish() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plates");
    let r = bake(&out);

    // Every key the flagship writes is drawn: the bake names nothing as not drawn, and
    // neither does the finish.
    assert!(r.capabilities.is_empty(), "{:#?}", r.capabilities);
    let m = manifest(&out);
    assert_eq!(
        m["not_drawn"],
        Value::Array(Vec::new()),
        "{}",
        m["not_drawn"]
    );
    assert_eq!(m["finish"]["not_drawn"], Value::Array(Vec::new()));

    // Text: the painted motto baked into the plate (triangles), the clock recorded for the
    // live renderer (no triangles), each placed at its `at`.
    let texts = m["text"].as_array().unwrap();
    let text = |key: &str| {
        texts
            .iter()
            .find(|t| t["key"] == key)
            .unwrap_or_else(|| panic!("no text {key}: {texts:?}"))
    };
    let motto = text("motto");
    assert_eq!(motto["dynamic"], false);
    assert_eq!(motto["lit"], true);
    assert_eq!(motto["font"], "assets/fonts/DejaVuSans.ttf");
    assert!(motto["triangles"].as_u64().unwrap() > 100, "{motto}");
    let clock = text("clock");
    assert_eq!(clock["dynamic"], true);
    assert_eq!(clock["text"], "16:45");
    assert_eq!(clock["triangles"], 0);
    for (t, at) in [(motto, [0.07, 1.95, -2.497]), (clock, [-2.997, 1.3, 1.95])] {
        let col3 = f32s(&t["world"][3]);
        for (a, b) in col3.iter().zip(at) {
            assert!((a - b).abs() < 1e-5, "{}: {col3:?} != {at:?}", t["key"]);
        }
    }
    // The clock faces +X (the room, from the window wall) and reads along -Z.
    let (x_axis, z_axis) = (f32s(&clock["world"][0]), f32s(&clock["world"][2]));
    assert!((x_axis[2] + 1.0).abs() < 1e-5 && (z_axis[0] - 1.0).abs() < 1e-5);

    // Proxies: casters = "proxies", and casters.glb holds every proxy of the file, in its
    // order, as the box the file places (12 triangles spanning at ± size/2), in both its
    // scenes; its bytes are the ones the manifest records.
    let c = &m["casters"];
    assert_eq!(c["casters"], "proxies");
    assert_eq!(c["proxies"], "room.proxies.toml");
    assert_eq!(c["file"], "casters.glb");
    let glb = out.join("casters.glb");
    let bytes = std::fs::read(&glb).unwrap();
    assert_eq!(m["files"]["casters.glb"]["sha256"], sha256(&bytes));
    let want = proxies_file();
    assert!(want.len() >= 10, "{want:?}");
    for scene in ["casters", "proxies"] {
        let nodes = read_scene(&glb, scene);
        assert_eq!(nodes.len(), want.len(), "{scene}");
        for (n, (object, at, size)) in nodes.iter().zip(&want) {
            assert_eq!(n.extras["object"], object.as_str(), "{scene}: {}", n.extras);
            assert_eq!(n.extras["from"], "proxy");
            assert_eq!(n.triangles.len(), 12);
            let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
            for v in n.triangles.iter().flatten() {
                lo = lo.min(*v);
                hi = hi.max(*v);
            }
            assert!(
                (lo - (*at - *size / 2.0)).abs().max_element() < 1e-5
                    && (hi - (*at + *size / 2.0)).abs().max_element() < 1e-5,
                "{object}: {lo} .. {hi}, want {at} ± {size} / 2"
            );
        }
    }
    let objects: std::collections::BTreeSet<&str> = want.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        objects.into_iter().collect::<Vec<_>>(),
        ["bookshelf", "room", "sideboard", "sofa", "table"]
    );

    // The finish: the chain the scene writes, in the spec's name order (bloom, tone,
    // vignette), recorded for the live renderer.
    let passes = m["finish"]["passes"].as_array().unwrap();
    let kinds: Vec<&str> = passes.iter().map(|p| p["pass"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["bloom", "tone", "vignette"]);
    assert_eq!(passes[1]["kind"], "agx");
    assert!((passes[0]["strength"].as_f64().unwrap() - 0.06).abs() < 1e-6);
    assert!((passes[2]["strength"].as_f64().unwrap() - 0.25).abs() < 1e-6);
    assert_eq!(m["finish"]["source"], "scene");

    // The haze as traced, for the live renderer to fog its dynamic objects alike: the box,
    // the fog, and the densities `amount` would set resolved (no `amount`: zero).
    let h = &m["haze"];
    assert_eq!(f32s(&h["lo"]), [-3.0, 0.0, -2.5]);
    assert_eq!(f32s(&h["hi"]), [3.0, 2.8, 2.5]);
    assert!((h["fog"].as_f64().unwrap() - 0.04).abs() < 1e-7, "{h}");
    for zero in ["smoke", "mist", "floor", "back"] {
        assert_eq!(h[zero].as_f64(), Some(0.0), "{zero}: {h}");
    }
    assert!((h["phase"].as_f64().unwrap() - 0.3).abs() < 1e-7, "{h}");
    assert_eq!(f32s(&h["gold"]), [1.0, 1.0, 1.0]);
    assert_eq!(f32s(&h["ambient"]), [0.0, 0.0, 0.0]);
    assert!(h["units"]
        .as_str()
        .unwrap()
        .contains("extinction per scene unit"));
}

/// The haze the flagship is traced in: the room's box of uniform fog, so the transmittance
/// of a segment is Beer–Lambert exactly, whatever the random numbers: from the camera to the
/// back wall, and from a point in the sunbeam out through the window towards the sun (the
/// haze ends at the window's plane, x = −3).
#[test]
fn the_flagship_is_traced_in_its_haze() {
    let scene = pfx_bake::scene::load(&scene_file()).unwrap_or_else(|d| panic!("{d:#?}"));
    let world =
        pfx_bake::world::World::build(&scene, [16, 9]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let medium = world.trace.medium.as_ref().expect("the flagship has haze");
    assert_eq!(medium.lo, Vec3::new(-3.0, 0.0, -2.5));
    assert_eq!(medium.hi, Vec3::new(3.0, 2.8, 2.5));
    assert!(medium.density.is_uniform());
    assert_eq!(medium.density.fog, 0.04);
    assert_eq!(medium.albedo, Vec3::ONE);
    assert_eq!(medium.ambient, Vec3::ZERO);

    let camera = Vec3::new(2.45, 1.45, 2.35);
    let wall = Vec3::new(0.07, 1.95, -2.5);
    let d = (wall - camera).normalize();
    let len = (wall - camera).length();
    for u in [0.0, 0.5, 0.99] {
        let t = medium.transmittance(camera, d, len, |_| u);
        let want = (-0.04 * len as f64).exp();
        assert!((t as f64 - want).abs() < 1e-6, "{t} != {want}");
    }
    // Towards the sun (`[sun] toward`), from a point of the beam 1.5 m in from the window.
    let toward = Vec3::new(-1.0, 0.58, 0.12).normalize();
    let p = Vec3::new(-1.5, 0.9, -0.5);
    let inside = (p.x + 3.0) / -toward.x; // the distance to the window's plane
    let t = medium.transmittance(p, toward, 1e3, |_| 0.3);
    let want = (-0.04 * inside as f64).exp();
    assert!((t as f64 - want).abs() < 1e-6, "{t} != {want}");
}
