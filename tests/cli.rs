//! The `bake` command as a build pipeline sees it: exit codes, diagnostics, the plate folder,
//! the JSON report, and the same bytes for any thread count.

use std::path::PathBuf;
use std::process::{Command, Output};

fn bake(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bake"))
        .args(args)
        .output()
        .expect("bake runs")
}

/// Bakes `scene` into `out` at 8×8 pixels and 1 spp: enough to see what a bake refuses.
fn bake_tiny(scene: &std::path::Path, out: &std::path::Path) -> Output {
    bake(&[
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--size",
        "8x8",
        "--spp",
        "1",
    ])
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A small project in a temporary folder: the Cornell box's floor and light, a scene text of
/// our own.
fn project(scene_text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("meshes")).unwrap();
    for m in ["floor", "light", "tall_box"] {
        std::fs::copy(
            repo().join(format!("scenes/cornell/meshes/{m}.glb")),
            dir.path().join(format!("meshes/{m}.glb")),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("t.materials.toml"),
        "format = 1\n\n[materials.white]\nid = \"24e38xvcvx\"\nbase = [0.8, 0.8, 0.8]\nspecular = 0.0\nroughness = 1.0\n\n[materials.lamp]\nid = \"t19p61kssw\"\nbase = [0.8, 0.8, 0.8]\nemission = [10.0, 10.0, 10.0]\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("t.scene.toml"), scene_text).unwrap();
    dir
}

const SCENE: &str = r#"format = 1
materials = ["t.materials.toml"]

[mesh.floor]
id = "c92frwa2fx"
file = "meshes/floor.glb"

[mesh.light]
id = "560ekywam5"
file = "meshes/light.glb"

[[object]]
id = "fdjavdz6xh"
name = "floor"
mesh = "floor"
material = "white"

[[object]]
id = "f604yz032j"
name = "light"
mesh = "light"
material = "lamp"

[[light]]
id = "ymd945rcwk"
name = "key"
position = [0.3, 0.4, 0.3]
intensity = 0.2

[camera]
at = [0.278, 0.8, 1.2]
look_at = [0.278, 0.0, 0.28]

[sun]
model = "authored"
toward = [1.0, 2.0, 0.5]
irradiance = 2.0
"#;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn same_bytes_for_any_thread_count() {
    let p = project(SCENE);
    let s = p.path().join("t.scene.toml");
    let (a, b) = (p.path().join("a"), p.path().join("b"));
    for (out, threads) in [(&a, "1"), (&b, "2")] {
        let o = bake(&[
            s.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--size",
            "40x24",
            "--spp",
            "8",
            "--threads",
            threads,
            "--quiet",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    for f in ["beauty.exr", "depth.exr", "preview.png"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs"
        );
    }
}

#[test]
fn a_bake_writes_the_plate_folder_and_reports() {
    let p = project(&format!("{SCENE}\n[plates]\ndir = \"plates/t\"\n"));
    let s = p.path().join("t.scene.toml");
    let o = bake(&[
        s.to_str().unwrap(),
        "--size",
        "32x16",
        "--spp",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = p.path().join("plates/t");
    for f in ["beauty.exr", "depth.exr", "preview.png", "manifest.json"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    // Nothing but the plate folder beside it: the temporary folder was renamed into place.
    let beside: Vec<_> = std::fs::read_dir(p.path().join("plates"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, vec![std::ffi::OsString::from("t")]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json prints JSON");
    assert_eq!(report["ok"], true);
    assert_eq!(report["report"]["samples"], 32 * 16 * 2);
    let line = stderr(&o);
    assert!(
        line.contains("bake: wrote") && line.contains("samples/s") && line.contains("rays/s"),
        "{line}"
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let toward: Vec<f64> = manifest["sun"]["toward"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let len = toward.iter().map(|v| v * v).sum::<f64>().sqrt();
    assert!(
        (len - 1.0).abs() < 1e-6,
        "sun.toward is not a unit vector: {toward:?}"
    );
    assert!((toward[1] / toward[0] - 2.0).abs() < 1e-5);
    assert_eq!(manifest["size"], serde_json::json!([32, 16]));
    assert!(
        manifest["inputs"]["t.scene.toml"].as_str().unwrap().len() == 64,
        "sha256 of the scene"
    );
    assert!(manifest["inputs"]["meshes/floor.glb"].is_string());
    assert!(manifest["camera"]["view"].is_array() && manifest["camera"]["projection"].is_array());
}

#[test]
fn bad_input_is_a_located_diagnostic_and_writes_nothing() {
    let text = SCENE.replace("intensity = 0.2", "intensity = 0.2\nbrightness = 3");
    let p = project(&text);
    let s = p.path().join("t.scene.toml");
    let out = p.path().join("out");
    let o = bake_tiny(&s, &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    let line = SCENE.lines().position(|l| l == "intensity = 0.2").unwrap() + 2;
    // The rustc-style location line: `  --> …/t.scene.toml:LINE:1`.
    assert!(e.contains(&format!("t.scene.toml:{line}:1\n")), "{e}");
    assert!(e.contains("unknown-key"), "{e}");
    assert!(!out.exists(), "a refused bake wrote its output");
}

#[test]
fn a_missing_scene_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = bake(&[
        dir.path().join("nope.scene.toml").to_str().unwrap(),
        "--out",
        dir.path().join("o").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("unreadable"), "{}", stderr(&o));
}

#[test]
fn no_output_folder_is_a_usage_error() {
    let p = project(SCENE);
    let o = bake(&[
        p.path().join("t.scene.toml").to_str().unwrap(),
        "--size",
        "8x8",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--out"));
    let o = bake(&[
        p.path().join("t.scene.toml").to_str().unwrap(),
        "--size",
        "8by8",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn an_unwritable_output_is_exit_3() {
    let p = project(SCENE);
    std::fs::write(p.path().join("file"), "not a folder").unwrap();
    let out = p.path().join("file/plates");
    let o = bake(&[
        p.path().join("t.scene.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--size",
        "8x8",
        "--spp",
        "1",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
}

#[test]
fn what_is_not_drawn_is_named() {
    let text = format!(
        "{SCENE}\n[haze]\nlo = [0.0, 0.0, 0.0]\nhi = [1.0, 1.0, 1.0]\namount = 0.5\nreach = 5.0\n"
    );
    let p = project(&text);
    // A key this version does not draw yet: a content layer on the white material.
    let mats = p.path().join("t.materials.toml");
    let m = std::fs::read_to_string(&mats).unwrap().replacen(
        "roughness = 1.0\n",
        "roughness = 1.0\ncontent = \"ink\"\n",
        1,
    );
    std::fs::write(&mats, m).unwrap();
    let out = p.path().join("o");
    let o = bake(&[
        p.path().join("t.scene.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--size",
        "8x8",
        "--spp",
        "1",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("materials.content is not rendered yet"),
        "{}",
        stderr(&o)
    );
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let caps = report["report"]["capabilities"].as_array().unwrap();
    assert!(
        caps.iter().any(|c| c["what"] == "materials.content"),
        "{caps:?}"
    );
    // `reach` is the live renderer's: not a missing feature, but recorded for it in the
    // manifest's haze with the rest of the medium.
    assert!(!caps.iter().any(|c| c["what"] == "haze.reach"), "{caps:?}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["haze"]["reach"], 5.0);
    assert_eq!(manifest["haze"]["unmapped"], 0.0);
}

#[test]
fn help_explains_every_option() {
    let o = bake(&["--help"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for opt in [
        "--out",
        "--spp",
        "--size",
        "--threads",
        "--seed",
        "--max-depth",
        "--quiet",
        "--json",
    ] {
        assert!(text.contains(opt), "--help lacks {opt}");
    }
}

#[test]
fn the_manifest_places_a_prefabs_lights_in_the_world() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("plates");
    let scene = repo().join("scenes/room.scene.toml");
    let o = bake(&[
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--size",
        "16x9",
        "--spp",
        "1",
        "--quiet",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let lights = m["lights"].as_array().unwrap();
    let bulb = lights
        .iter()
        .find(|l| l["key"] == "lamp_sofa/bulb")
        .expect("lamp_sofa/bulb in the manifest");
    // The bulb at [0, 0.43, 0] in the prefab, placed at [0, 0.55, 0] on the side table at
    // [0.15, 0, -2.15] (room.scene.toml, room.furniture.scene.toml).
    let p: Vec<f64> = bulb["position"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let want = [0.15, 0.98, -2.15];
    for (a, b) in p.iter().zip(want) {
        assert!((a - b).abs() < 1e-5, "{p:?} != {want:?}");
    }
    // The shelf lamp's placement scales it by 0.8: its bulb's radius with it.
    let shelf = lights
        .iter()
        .find(|l| l["key"] == "lamp_shelf/bulb")
        .unwrap();
    assert!(
        (shelf["radius"].as_f64().unwrap() - 0.032).abs() < 1e-6,
        "{shelf}"
    );
}

#[test]
fn a_zero_scale_is_refused_by_name_and_writes_nothing() {
    let text = SCENE.replace(
        "name = \"floor\"\nmesh = \"floor\"\n",
        "name = \"floor\"\nmesh = \"floor\"\nscale = [1.0, 0.0, 1.0]\n",
    );
    assert_ne!(text, SCENE);
    let p = project(&text);
    let s = p.path().join("t.scene.toml");
    let out = p.path().join("out");
    let o = bake_tiny(&s, &out);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("bad-value"), "{e}");
    assert!(e.contains("object.fdjavdz6xh.scale"), "{e}");
    assert!(
        e.contains("\"floor\" has a transform that flattens it"),
        "{e}"
    );
    assert!(!out.exists(), "a refused bake wrote its output");
}
