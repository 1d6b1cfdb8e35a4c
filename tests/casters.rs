//! `[plates] casters` and `proxies` (docs/plates.md, "Casters and proxies"): the plate folder
//! carries the static objects' shadow casters and their proxies in `casters.glb`, and a live
//! renderer that reads only the plate folder shadows its dynamic objects with them.
//!
//! The scene (tests/data/casters) is a table on a floor under an authored sun, with two
//! dynamic boxes the plate leaves out: one under the table, one in the open. A small software
//! compositor here reads `beauty.exr`, `depth.exr`, the manifest's camera and sun, and
//! `casters.glb` (through the `gltf` crate, an independent reader), ray-casts the dynamic
//! boxes over the plate with the plate's depth as the depth test, and shades each of their
//! pixels by a shadow ray to the sun against the caster triangles.

mod common;

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3, Vec4};
use serde_json::Value;

use common::{manifest, read_scene, sha256, Node};

const W: u32 = 128;
const H: u32 = 96;

/// The dynamic boxes as the scene places them (centre, edge): the compositor's own copy of
/// what a live renderer draws, since the plate leaves them out.
const UNDER: (Vec3, f32) = (Vec3::new(0.0, 0.2, 0.0), 0.4);
const OPEN: (Vec3, f32) = (Vec3::new(1.6, 0.2, 0.9), 0.4);
/// The floor's and the default material's base colour.
const ALBEDO: f32 = 0.5;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/casters")
}

/// A project in a temporary folder: the table scene with the given `[plates]` lines.
fn project(plates: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir_all(p.join("meshes")).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        repo.join("tests/data/gltf/Box/Box.glb"),
        p.join("meshes/box.glb"),
    )
    .unwrap();
    for f in ["project.toml", "table.proxies.toml", "table.materials.toml"] {
        std::fs::copy(data().join(f), p.join(f)).unwrap();
    }
    let scene = std::fs::read_to_string(data().join("table.scene.toml")).unwrap();
    std::fs::write(
        p.join("table.scene.toml"),
        format!("{scene}\n[plates]\ndir = \"plates\"\n{plates}"),
    )
    .unwrap();
    dir
}

fn bake(dir: &Path, spp: u32, threads: usize) -> PathBuf {
    let out = dir.join("plates");
    let options = pfx_bake::bake::BakeOptions {
        scene: dir.join("table.scene.toml"),
        out: None,
        size: [W, H],
        settings: pfx_bake::integrator::Settings {
            spp,
            ..Default::default()
        },
        plan: Default::default(),
        threads: Some(threads),
        denoise: false,
        guiding: false,
    };
    let r = pfx_bake::bake::bake(&options, &pfx_bake::integrator::NoProgress)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.out, out);
    for c in &r.capabilities {
        assert!(
            !c.what.contains("prox") && !c.what.contains("casters"),
            "named as not drawn: {c:?}"
        );
    }
    out
}

fn read_channel(path: &Path, name: &str) -> Vec<f32> {
    use exr::prelude::*;
    let image = read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .from_file(path)
        .unwrap();
    let ch = image
        .layer_data
        .channel_data
        .list
        .iter()
        .find(|c| c.name.to_string() == name)
        .unwrap_or_else(|| panic!("{}: no channel {name}", path.display()));
    match &ch.sample_data {
        FlatSamples::F32(v) => v.clone(),
        other => panic!("{name} is {other:?}"),
    }
}

fn mat4(v: &Value) -> Mat4 {
    let cols: Vec<f32> = v
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            c.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
        })
        .collect();
    Mat4::from_cols_slice(&cols)
}

fn vec3(v: &Value) -> Vec3 {
    let a: Vec<f32> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect();
    Vec3::new(a[0], a[1], a[2])
}

/// Möller–Trumbore, both faces: whether the ray `o + t d`, `t > 0`, meets a triangle.
fn occluded(tris: &[[Vec3; 3]], o: Vec3, d: Vec3) -> bool {
    tris.iter().any(|[a, b, c]| {
        let (e1, e2) = (*b - *a, *c - *a);
        let p = d.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-12 {
            return false;
        }
        let s = o - *a;
        let u = s.dot(p) / det;
        let q = s.cross(e1);
        let v = d.dot(q) / det;
        let t = e2.dot(q) / det;
        u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 1e-4
    })
}

/// The ray's entry into an axis-aligned cube (centre, edge): distance and outward normal.
fn hit_cube(o: Vec3, d: Vec3, (c, e): (Vec3, f32)) -> Option<(f32, Vec3)> {
    let (lo, hi) = (c - Vec3::splat(e / 2.0), c + Vec3::splat(e / 2.0));
    let (mut t0, mut t1, mut n) = (f32::NEG_INFINITY, f32::INFINITY, Vec3::ZERO);
    for k in 0..3 {
        let (a, b) = ((lo[k] - o[k]) / d[k], (hi[k] - o[k]) / d[k]);
        let (near, far) = (a.min(b), a.max(b));
        if near > t0 {
            t0 = near;
            n = Vec3::ZERO;
            n[k] = -d[k].signum();
        }
        t1 = t1.min(far);
    }
    (t0 <= t1 && t0 > 0.0).then_some((t0, n))
}

/// What the compositor finds for one dynamic box.
#[derive(Debug, Default)]
struct Shaded {
    /// Pixels where the box shows over the plate with a face towards the sun.
    sunward: usize,
    /// Of those, the pixels whose shadow ray meets a caster.
    shadowed: usize,
}

/// The plate as a live renderer reads it, and the dynamic boxes composited over it.
struct Composite {
    under: Shaded,
    open: Shaded,
    /// Floor pixels: (radiance of the plate, shadowed by the casters).
    floor: Vec<(f32, bool)>,
    /// The composited image's radiance at the boxes' pixels, for the record.
    lit_radiance: f32,
}

/// Composites the two dynamic boxes over the plate folder `out`, shadowed by `casters` (the
/// triangles of `casters.glb`'s scene `"casters"`).
fn composite(out: &Path, casters: &[[Vec3; 3]]) -> Composite {
    let m = manifest(out);
    let cam = &m["camera"];
    let (view, proj) = (mat4(&cam["view"]), mat4(&cam["projection"]));
    let inv = (proj * view).inverse();
    let eye = vec3(&cam["position"]);
    let sun = vec3(&m["sun"]["toward"]).normalize();
    let e = vec3(&m["sun"]["irradiance"]);
    let depth = read_channel(&out.join("depth.exr"), "Z");
    let red = read_channel(&out.join("beauty.exr"), "R");
    let mut c = Composite {
        under: Shaded::default(),
        open: Shaded::default(),
        floor: Vec::new(),
        lit_radiance: ALBEDO / std::f32::consts::PI * e.x,
    };
    for y in 0..H {
        for x in 0..W {
            let i = (y * W + x) as usize;
            // The pixel centre's ray from the inverse of the manifest's matrices (rows top
            // first, NDC y up).
            let ndc = |z: f32| {
                let p = inv
                    * Vec4::new(
                        2.0 * (x as f32 + 0.5) / W as f32 - 1.0,
                        1.0 - 2.0 * (y as f32 + 0.5) / H as f32,
                        z,
                        1.0,
                    );
                p.truncate() / p.w
            };
            let d = (ndc(1.0) - ndc(-1.0)).normalize();
            let view_depth = |p: Vec3| -(view * p.extend(1.0)).z;
            let plate = depth[i];
            let mut shaded = false;
            for (which, cube) in [(0, UNDER), (1, OPEN)] {
                let Some((t, n)) = hit_cube(eye, d, cube) else {
                    continue;
                };
                let p = eye + d * t;
                let s = if which == 0 {
                    &mut c.under
                } else {
                    &mut c.open
                };
                // The plate's depth test: a static surface nearer than the box hides it.
                if view_depth(p) >= plate {
                    continue;
                }
                shaded = true;
                if n.dot(sun) > 0.05 {
                    s.sunward += 1;
                    if occluded(casters, p + n * 1e-3, sun) {
                        s.shadowed += 1;
                    }
                }
            }
            // The plate's floor: the world point its depth gives (planar depth along the
            // view direction, so along the ray it is depth over the ray's cosine).
            let forward = -Vec3::new(view.row(2).x, view.row(2).y, view.row(2).z);
            let p = eye + d * (plate / d.dot(forward));
            if !shaded && p.y.abs() < 2e-3 && p.x.abs() < 4.0 && p.z.abs() < 4.0 {
                c.floor.push((red[i], occluded(casters, p, sun)));
            }
        }
    }
    c
}

fn object_pick(m: &Value, key: &str) -> u64 {
    m["objects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["key"] == key)
        .unwrap_or_else(|| panic!("no object {key}"))["pick"]
        .as_u64()
        .unwrap()
}

/// The assertions every casting mode shares: the box under the table is in shadow, the box
/// in the open is lit, and the casters agree with the plate's own shadows on the floor.
fn shadows_hold(c: &Composite, label: &str) {
    assert!(c.under.sunward >= 30, "{label}: {:?}", c.under);
    assert!(c.open.sunward >= 30, "{label}: {:?}", c.open);
    assert_eq!(
        c.under.shadowed, c.under.sunward,
        "{label}: under {:?}",
        c.under
    );
    assert_eq!(c.open.shadowed, 0, "{label}: open {:?}", c.open);
    // The plate's floor where the casters say the sun reaches is lit by it (the Lambertian
    // radiance ρ E cos θ / π of the matte grey, a little more near the table, which reflects
    // some light onto it), and dark where they say it is shadowed.
    let cos = Vec3::new(0.1, 1.0, 0.05).normalize().y;
    let lambert = c.lit_radiance * cos;
    let lit: Vec<f32> = c.floor.iter().filter(|f| !f.1).map(|f| f.0).collect();
    let dark: Vec<f32> = c.floor.iter().filter(|f| f.1).map(|f| f.0).collect();
    assert!(
        lit.len() > 500 && dark.len() > 100,
        "{label}: {} lit, {} dark",
        lit.len(),
        dark.len()
    );
    let mean = |v: &[f32]| v.iter().sum::<f32>() / v.len() as f32;
    assert!(
        (mean(&lit) / lambert - 1.0).abs() < 0.05,
        "{label}: lit floor {} against {lambert}",
        mean(&lit)
    );
    // A pixel on a shadow's edge may go either way; the rest agree.
    let agree = lit.iter().filter(|&&r| r > 0.5 * lambert).count()
        + dark.iter().filter(|&&r| r < 0.5 * lambert).count();
    let share = agree as f32 / c.floor.len() as f32;
    assert!(
        share > 0.97,
        "{label}: casters agree with the plate on {share} of the floor"
    );
    eprintln!(
        "{label}: under {:?}, open {:?}, floor lit {} (Lambert {lambert}), dark mean {}, agree {share}",
        c.under,
        c.open,
        mean(&lit),
        mean(&dark)
    );
}

/// `casters = "meshes"`: the casters' scene holds each static object's own mesh in world space, named
/// and picked as the manifest names and picks the object; the box under the table is
/// shadowed by them.
#[test]
fn the_meshes_shadow_the_dynamic_box_under_the_table() {
    let dir = project("casters = \"meshes\"\nproxies = \"table.proxies.toml\"\n");
    let out = bake(dir.path(), 8, 2);
    let m = manifest(&out);
    // A scene without `[haze]` says so: the key is there, null (the flagship's haze is
    // checked in tests/flagship.rs).
    assert_eq!(m.get("haze"), Some(&Value::Null), "{:?}", m.get("haze"));
    let glb = out.join("casters.glb");
    let bytes = std::fs::read(&glb).unwrap();
    let entry = &m["files"]["casters.glb"];
    assert_eq!(entry["bytes"], bytes.len());
    assert_eq!(
        entry["sha256"],
        sha256(&bytes),
        "the manifest's sha256 of casters.glb"
    );
    assert_eq!(m["casters"]["casters"], "meshes");
    assert_eq!(m["casters"]["file"], "casters.glb");
    let nodes = read_scene(&glb, "casters");
    let keys: Vec<&str> = nodes
        .iter()
        .map(|n| n.extras["object"].as_str().unwrap())
        .collect();
    // The static objects, in scene order; the dynamic boxes are no casters.
    assert_eq!(keys, ["floor", "top", "leg_a", "leg_b", "leg_c", "leg_d"]);
    for n in &nodes {
        let key = n.extras["object"].as_str().unwrap();
        assert_eq!(n.extras["from"], "mesh");
        assert_eq!(n.extras["pick"].as_u64().unwrap(), object_pick(&m, key));
        assert_eq!(
            n.triangles.len(),
            12,
            "{key}: the Box sample's 12 triangles"
        );
    }
    assert_eq!(nodes[1].extras["pick"], 31);
    // The top, in world space: x in ±1, y in 0.95..1.05, z in ±0.7.
    let top = nodes[1].triangles.iter().flatten();
    let (lo, hi) = top.fold((Vec3::MAX, Vec3::MIN), |(l, h), p| (l.min(*p), h.max(*p)));
    assert!(
        (lo - Vec3::new(-1.0, 0.95, -0.7)).abs().max_element() < 1e-5,
        "{lo}"
    );
    assert!(
        (hi - Vec3::new(1.0, 1.05, 0.7)).abs().max_element() < 1e-5,
        "{hi}"
    );
    // The proxies are there to pick by, whatever casts.
    let proxies = read_scene(&glb, "proxies");
    assert_eq!(proxies.len(), 2);
    assert_eq!(proxies[0].extras["object"], "top");
    assert_eq!(proxies[0].extras["pick"], 31);

    let tris: Vec<[Vec3; 3]> = nodes.into_iter().flat_map(|n| n.triangles).collect();
    shadows_hold(&composite(&out, &tris), "meshes");
}

/// `casters = "proxies"`: the casters' scene is the proxies (a box for the top, a hull for one leg),
/// never drawn into the plate, and they alone shadow the box under the table.
#[test]
fn the_proxies_stand_in_for_the_table() {
    let dir = project("casters = \"proxies\"\nproxies = \"table.proxies.toml\"\n");
    let out = bake(dir.path(), 8, 2);
    let m = manifest(&out);
    let glb = out.join("casters.glb");
    let nodes = read_scene(&glb, "casters");
    assert_eq!(nodes.len(), 2);
    let (top, leg) = (&nodes[0], &nodes[1]);
    assert_eq!(top.extras["object"], "top");
    assert_eq!(top.extras["from"], "proxy");
    assert_eq!(top.extras["proxy"], 0);
    assert_eq!(top.extras["id"], "aaaaaaaa03");
    assert_eq!(top.extras["pick"], 31);
    assert_eq!(leg.extras["object"], "leg_a");
    assert_eq!(leg.extras["proxy"], 1);
    assert_eq!(
        leg.extras["pick"].as_u64().unwrap(),
        object_pick(&m, "leg_a")
    );
    assert_eq!((top.triangles.len(), leg.triangles.len()), (12, 12));
    // Each box closes and faces outwards: the signed volume is its own.
    let volume = |n: &Node| -> f32 {
        n.triangles
            .iter()
            .map(|[a, b, c]| a.dot(b.cross(*c)) / 6.0)
            .sum()
    };
    assert!(
        (volume(top) - 2.0 * 0.1 * 1.4).abs() < 1e-5,
        "{}",
        volume(top)
    );
    assert!(
        (volume(leg) - 0.1 * 0.95 * 0.1).abs() < 1e-5,
        "{}",
        volume(leg)
    );
    // Both scenes name the same proxies.
    assert_eq!(read_scene(&glb, "proxies").len(), 2);

    // The proxies are never drawn: the plate is the same bytes as a bake without them.
    let plain = project("casters = \"meshes\"\n");
    let plain_out = bake(plain.path(), 8, 2);
    for f in ["beauty.exr", "depth.exr", "preview.png"] {
        assert!(
            std::fs::read(out.join(f)).unwrap() == std::fs::read(plain_out.join(f)).unwrap(),
            "{f} changed by the proxies"
        );
    }

    let tris: Vec<[Vec3; 3]> = nodes.into_iter().flat_map(|n| n.triangles).collect();
    shadows_hold(&composite(&out, &tris), "proxies");
}

/// `casters = "none"`: no caster geometry. With proxies the file holds only the proxies to
/// pick by; without, there is no caster file at all. Nothing shadows either box.
#[test]
fn none_writes_no_caster_geometry() {
    let dir = project("casters = \"none\"\nproxies = \"table.proxies.toml\"\n");
    let out = bake(dir.path(), 2, 2);
    let m = manifest(&out);
    assert_eq!(m["casters"]["casters"], "none");
    assert_eq!(m["casters"]["casters_scene"], Value::Null);
    assert_eq!(m["casters"]["proxies_scene"], 0);
    assert_eq!(
        m["files"]["casters.glb"]["scenes"]["casters"]["triangles"],
        0
    );
    let glb = out.join("casters.glb");
    assert!(read_scene(&glb, "casters").is_empty());
    assert_eq!(read_scene(&glb, "proxies").len(), 2);

    let bare = project("casters = \"none\"\n");
    let out = bake(bare.path(), 2, 2);
    let m = manifest(&out);
    assert!(!out.join("casters.glb").exists());
    assert!(m["files"].get("casters.glb").is_none());
    assert_eq!(m["casters"]["file"], Value::Null);
    let c = composite(&out, &[]);
    assert_eq!((c.under.shadowed, c.open.shadowed), (0, 0));
    assert!(c.under.sunward > 0 && c.open.sunward > 0);
}

/// The caster file is the same bytes for one thread and two: it is a function of the scene.
#[test]
fn the_caster_file_is_deterministic() {
    let a = project("proxies = \"table.proxies.toml\"\n");
    let b = project("proxies = \"table.proxies.toml\"\n");
    let (x, y) = (bake(a.path(), 1, 1), bake(b.path(), 1, 2));
    let (x, y) = (
        std::fs::read(x.join("casters.glb")).unwrap(),
        std::fs::read(y.join("casters.glb")).unwrap(),
    );
    assert!(x == y);
    // The default is "meshes".
    assert_eq!(
        serde_json::from_slice::<Value>(
            &std::fs::read(a.path().join("plates/manifest.json")).unwrap()
        )
        .unwrap()["casters"]["casters"],
        "meshes"
    );
}
