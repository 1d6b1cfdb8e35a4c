//! `--passes`: the data passes of `passes.exr` (docs/plates.md, "Passes"), each against
//! something independent of the code that made it: the analytic normal of a sphere, the
//! materials' base colours and roughness as the library writes them, the manifest's objects
//! for the pick ids; and the beauty's bytes, which must not change when passes are asked for.

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Vec2, Vec3};
use pfx_bake::film::PassImages;
use pfx_bake::integrator::{self, NoProgress, Plan, Settings};
use pfx_bake::scene;
use pfx_bake::world::World;

fn spheres() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/spheres/spheres.scene.toml")
}

/// The spheres of `spheres.scene.toml`: (object name, centre, radius 0.5, base, roughness).
const BALLS: [(&str, [f32; 3], [f32; 3], f32); 3] = [
    ("grey_ball", [-1.15, 0.5, 0.0], [0.8, 0.8, 0.8], 1.0),
    ("metal_ball", [0.0, 0.5, 0.0], [0.95, 0.64, 0.54], 0.2),
    ("red_ball", [1.15, 0.5, 0.0], [0.8, 0.1, 0.1], 1.0),
];

/// The `[[emitter]]`'s centre (radius 0.25).
const GLOW: [f32; 3] = [-0.9, 1.45, -0.9];

fn render(world: &World, spp: u32) -> (integrator::Rendered, PassImages) {
    let plan = Plan {
        passes: true,
        ..Plan::default()
    };
    let s = Settings {
        spp,
        ..Settings::default()
    };
    let r = integrator::render_planned(world, &s, &plan, &NoProgress);
    let p = r.image.passes.clone().expect("passes asked for");
    (r, p)
}

fn object_index(world: &World, name: &str) -> u32 {
    world.objects.iter().position(|o| o.key == name).unwrap() as u32
}

/// Pixels wholly covered by one object: every sample met it.
fn covered_by(p: &PassImages, object: u32) -> Vec<usize> {
    (0..p.objects.len())
        .filter(|&i| p.objects[i] == [(object, 1.0)])
        .collect()
}

#[test]
fn normals_are_the_spheres_analytic_normals_and_albedo_and_roughness_their_materials() {
    let world = World::build(&scene::load(&spheres()).unwrap(), [320, 200]).unwrap();
    let (_, p) = render(&world, 2);
    let cam = &world.camera;
    let [w, _] = cam.size;
    for (name, centre, base, roughness) in BALLS {
        let o = object_index(&world, name);
        let pixels = covered_by(&p, o);
        assert!(pixels.len() > 100, "{name}: {} pixels", pixels.len());
        let mut worst = 0.0f32;
        for &i in &pixels {
            // The analytic normal where the pixel-centre ray meets the true sphere: the pass
            // is a mean over the pixel of the mesh's interpolated normals, so it agrees to
            // the pixel's spread of normals and the tessellation.
            let (x, y) = ((i as u32 % w) as f32 + 0.5, (i as u32 / w) as f32 + 0.5);
            let ray = cam.ray(Vec2::new(x, y), Vec2::splat(0.5));
            let c = Vec3::from(centre);
            let oc = ray.o - c;
            let d = ray.d.normalize();
            let b = oc.dot(d);
            let disc = b * b - (oc.length_squared() - 0.25);
            if disc <= 0.0 {
                continue;
            }
            let n = (ray.o + d * (-b - disc.sqrt()) - c) / 0.5;
            // Far from the silhouette only, where a pixel's normals spread little.
            if n.dot(-d) < 0.5 {
                continue;
            }
            let err = (p.normal[i] - n).length();
            worst = worst.max(err);
            assert_eq!(p.albedo[i], Vec3::from(base), "{name} albedo at {i}");
            assert!(
                (p.roughness[i] - roughness).abs() < 1e-6,
                "{name} roughness {} at {i}",
                p.roughness[i]
            );
        }
        assert!(worst < 0.02, "{name}: normal off by {worst}");
        assert!(
            worst > 0.0,
            "{name}: the mesh's normals are not the sphere's exactly"
        );
    }
    // The sky has no normal, no albedo, no object.
    let sky = (0..p.objects.len())
        .find(|&i| p.objects[i].is_empty())
        .unwrap();
    assert_eq!(p.normal[sky], Vec3::ZERO);
    assert_eq!(p.albedo[sky], Vec3::ZERO);
    assert_eq!(p.centre_object[sky], None);
}

#[test]
fn pick_is_the_object_at_the_pixel_centre_and_sums_of_coverage_are_alpha() {
    let world = World::build(&scene::load(&spheres()).unwrap(), [64, 40]).unwrap();
    let (r, p) = render(&world, 8);
    let cam = &world.camera;
    let [w, _] = cam.size;
    let mut seen = vec![0usize; world.objects.len()];
    for i in 0..p.objects.len() {
        // The centre pick agrees with the analytic spheres where the centre ray meets one.
        let (x, y) = ((i as u32 % w) as f32 + 0.5, (i as u32 / w) as f32 + 0.5);
        let ray = cam.ray(Vec2::new(x, y), Vec2::splat(0.5));
        let d = ray.d.normalize();
        let nearest = BALLS
            .iter()
            .filter_map(|(name, c, _, _)| {
                let oc = ray.o - Vec3::from(*c);
                let b = oc.dot(d);
                let disc = b * b - (oc.length_squared() - 0.25);
                // Comfortably inside the silhouette (the mesh's is a polygon).
                (disc > 0.02).then(|| (-b - disc.sqrt(), *name))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((_, name)) = nearest {
            assert_eq!(
                p.centre_object[i],
                Some(object_index(&world, name)),
                "pixel {i}"
            );
        }
        if let Some(o) = p.centre_object[i] {
            seen[o as usize] += 1;
        }
        // The shares sum to alpha, but near the emitter (a light, not an object: no id).
        let oc = ray.o - Vec3::from(GLOW);
        let near_glow = (oc - d * oc.dot(d)).length() < 0.25 + 0.15;
        for list in [&p.objects[i], &p.materials[i]] {
            let total: f32 = list.iter().map(|(_, c)| c).sum();
            let alpha = r.image.coverage[i];
            assert!(total <= alpha + 1e-6, "pixel {i}: {total} > {alpha}");
            assert!(
                near_glow || (total - alpha).abs() < 1e-6,
                "pixel {i}: {total} vs {alpha}"
            );
        }
    }
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

fn bake_bin() -> &'static str {
    env!("CARGO_BIN_EXE_bake")
}

fn bake(out: &Path, extra: &[&str]) {
    let o = Command::new(bake_bin())
        .arg(spheres())
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--size", "48x30", "--spp", "6"])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn the_beauty_is_the_same_bytes_with_passes_and_passes_are_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let (plain, with, one) = (
        tmp.path().join("plain"),
        tmp.path().join("with"),
        tmp.path().join("one"),
    );
    bake(&plain, &["--threads", "2"]);
    bake(&with, &["--threads", "2", "--passes"]);
    bake(&one, &["--threads", "1", "--passes"]);
    for f in ["beauty.exr", "depth.exr", "preview.png"] {
        let a = std::fs::read(plain.join(f)).unwrap();
        assert!(a == std::fs::read(with.join(f)).unwrap(), "{f} changed");
    }
    assert!(!plain.join("passes.exr").exists());
    let a = std::fs::read(with.join("passes.exr")).unwrap();
    assert!(a == std::fs::read(one.join("passes.exr")).unwrap());
    // The manifest describes the file it sits beside.
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(with.join("manifest.json")).unwrap()).unwrap();
    let entry = &m["files"]["passes.exr"];
    assert_eq!(entry["bytes"], a.len());
    assert_eq!(entry["layers"]["pick"]["type"], "uint32");
    assert_eq!(entry["layers"]["N"]["type"], "float16");
    assert_eq!(
        entry["layers"]["CryptoObject"]["channels"][0],
        "CryptoObject00.R"
    );
}

/// `tests/tools/passes_oracle.py` reads `passes.exr` with OpenEXR's own Python bindings and
/// the Cryptomatte masks with `cryptomatte-api` (both from PyPI), and checks them against the
/// manifest: pick ids, sample counts, types and masks. Without them the test says it was
/// skipped, unless `PFX_REQUIRE_EXR_ORACLE=1` (set by `.ci/run`, which installs them).
#[test]
fn an_independent_reader_finds_the_pick_ids_and_the_cryptomatte_masks() {
    let probe = Command::new("python3")
        .args(["-c", "import OpenEXR, cryptomatte_api, numpy"])
        .output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        if std::env::var("PFX_REQUIRE_EXR_ORACLE").as_deref() == Ok("1") {
            panic!("PFX_REQUIRE_EXR_ORACLE=1 but python3 lacks OpenEXR or cryptomatte-api");
        }
        eprintln!("skipped: python3 lacks OpenEXR or cryptomatte-api (pip install OpenEXR cryptomatte-api)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("plate");
    bake(&out, &["--passes"]);
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/tools/passes_oracle.py");
    let o = Command::new("python3")
        .arg(script)
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains("masks ok: 4 objects, 4 materials"),
        "{report}"
    );
    assert!(
        report.contains("light groups ok: glow, key, other"),
        "{report}"
    );
}
