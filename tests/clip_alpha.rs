//! `[[object]] clip` and `alpha_cutoff` rendered: small orthographic renders of unit quads,
//! compared region by region. Each test fails when the key is ignored.
//!
//! The quads are glTF files written into a temporary folder: a square of half-size 1 in the
//! z = 0 plane, facing +Z, with TEXCOORD_0 running (0, 0) at its top-left corner (-1, 1) to
//! (1, 1) at its bottom-right (1, -1). The camera looks down -Z from z = 5 with a view 2.4
//! units high, so on a 24 × 24 image each pixel is 0.1 units and the quad spans pixels 2..22.

use std::path::{Path, PathBuf};

use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene::{self, Projection, Scene, Shadow, Sun, SunModel};
use pfx_bake::world::World;

const SIZE: u32 = 24;

fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= c.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Writes `<name>.gltf`, the unit quad, into `dir`. `material` is the JSON of its one
/// material (with `textures`, `images`, `samplers` it needs), or `None` for no material.
fn write_quad(dir: &Path, name: &str, material: Option<&str>) -> PathBuf {
    let pos: [f32; 12] = [
        -1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0,
    ];
    let nrm: [f32; 12] = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0];
    let uv: [f32; 8] = [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    let idx: [u16; 6] = [0, 1, 2, 0, 2, 3];
    let mut bin = Vec::new();
    for v in pos.iter().chain(&nrm).chain(&uv) {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    for i in idx {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    let (prim_material, materials) = match material {
        Some(m) => (r#","material":0"#, m.to_string()),
        None => ("", String::new()),
    };
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":[{{"mesh":0,"name":"quad"}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2}},"indices":3{prim_material}}}]}}],
"buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{b64}"}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":128}},{{"buffer":0,"byteOffset":128,"byteLength":12}}],
"accessors":[
{{"bufferView":0,"byteOffset":0,"componentType":5126,"count":4,"type":"VEC3","min":[-1,-1,0],"max":[1,1,0]}},
{{"bufferView":0,"byteOffset":48,"componentType":5126,"count":4,"type":"VEC3"}},
{{"bufferView":0,"byteOffset":96,"componentType":5126,"count":4,"type":"VEC2"}},
{{"bufferView":1,"byteOffset":0,"componentType":5123,"count":6,"type":"SCALAR"}}]
{materials}}}"#,
        len = bin.len(),
        b64 = base64(&bin),
    );
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, json).unwrap();
    path
}

/// A 2 × 2 PNG beside the glTF whose alphas are 0.9 top-left and bottom-right, 0.3 in the
/// other two texels, and the JSON of a MASK material that reads it with nearest filtering.
fn checker_material(dir: &Path, mode: &str) -> String {
    let mut img = image::RgbaImage::new(2, 2);
    for (x, y, p) in img.enumerate_pixels_mut() {
        let a = if x == y { 230 } else { 77 };
        *p = image::Rgba([255, 255, 255, a]);
    }
    img.save(dir.join("checker.png")).unwrap();
    format!(
        r#","materials":[{{"name":"leaf","alphaMode":"{mode}","pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}}],
"textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728,"wrapS":33071,"wrapT":33071}}],
"images":[{{"uri":"checker.png"}}]"#
    )
}

fn material(key: &str, base: f32, emission: f32) -> scene::Material {
    scene::Material {
        key: key.into(),
        base: [base; 3],
        roughness: 1.0,
        specular: 0.0,
        emission: [emission; 3],
        ..Default::default()
    }
}

fn object(key: &str, mesh: &str, material: &str, at: [f32; 3]) -> scene::Object {
    scene::Object {
        key: key.into(),
        mesh: mesh.into(),
        material: Some(material.into()),
        at,
        scale: [1.0; 3],
        alpha_cutoff: 0.5,
        ..Default::default()
    }
}

/// A sun straight down -Z of irradiance π, so a white Lambertian surface facing it has
/// radiance 1 times its base.
fn sun() -> Sun {
    Sun {
        model: SunModel::Authored,
        hour: 12.0,
        day: 172.0,
        latitude: 0.0,
        heading: 0.0,
        reference_hour: 12.0,
        toward: Some([0.0, 0.0, 1.0]),
        color: [1.0; 3],
        irradiance: Some(std::f32::consts::PI),
        radius: 0.0,
    }
}

fn scene(
    dir: &Path,
    meshes: &[(&str, &Path)],
    objects: Vec<scene::Object>,
    materials: Vec<scene::Material>,
    sun: Option<Sun>,
) -> Scene {
    Scene {
        root: dir.to_path_buf(),
        file: "clip.scene.toml".into(),
        meshes: meshes
            .iter()
            .map(|(k, f)| scene::Mesh {
                key: (*k).into(),
                file: f.to_path_buf(),
                ..Default::default()
            })
            .collect(),
        objects,
        materials,
        camera: Some(scene::Camera {
            projection: Projection::Orthographic,
            at: [0.0, 0.0, 5.0],
            height: Some(2.4),
            ..Default::default()
        }),
        sun,
        ..Default::default()
    }
}

fn render(scene: &Scene, spp: u32, max_depth: u32) -> (World, Image) {
    let world = World::build(scene, [SIZE, SIZE]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let image = integrator::render(
        &world,
        &Settings {
            spp,
            max_depth,
            seed: 7,
            ..Settings::default()
        },
        &NoProgress,
    );
    assert_eq!(image.dropped, 0);
    (world, image)
}

/// Mean radiance (green) over pixels `x0..x1`, `y0..y1` (row 0 at the top, +Y).
fn mean(img: &Image, x0: u32, x1: u32, y0: u32, y1: u32) -> f32 {
    let mut s = 0.0;
    for y in y0..y1 {
        for x in x0..x1 {
            s += img.radiance[(y * img.width + x) as usize].y;
        }
    }
    s / ((x1 - x0) * (y1 - y0)) as f32
}

/// Pixel x of world x (and row of world y: row = 12 - 10·y).
fn px(x: f32) -> u32 {
    (12.0 + 10.0 * x) as u32
}

#[test]
fn a_plane_clipped_in_half_is_lit_where_kept_and_empty_where_cut() {
    let dir = tempfile::tempdir().unwrap();
    let quad = write_quad(dir.path(), "quad", None);
    let mut o = object("card", "quad", "white", [0.0; 3]);
    o.clip = vec![[1.0, 0.0, 0.0, 0.0]];
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![o.clone()],
        vec![material("white", 0.8, 0.0)],
        Some(sun()),
    );
    let (world, img) = render(&s, 4, 4);
    assert!(world.capabilities.iter().all(|c| !c.what.contains("clip")));
    // Kept: x < 0, radiance 0.8 (a Lambertian of base 0.8 under E = π facing the sun).
    let kept = mean(&img, 3, 11, 3, 21);
    assert!((kept - 0.8).abs() < 0.02, "kept {kept}");
    // Cut: x > 0, nothing there: black and uncovered.
    assert_eq!(mean(&img, 13, 21, 3, 21), 0.0);
    for y in 3..21 {
        assert_eq!(img.coverage[(y * SIZE + 16) as usize], 0.0);
        assert_eq!(img.coverage[(y * SIZE + 6) as usize], 1.0);
    }

    // The planes are in the object's own frame: moved right by 0.5 the cut starts at world
    // x = 0.5; turned 90° about Z the object's +X is world +Y, so the cut is the upper half.
    let mut moved = o.clone();
    moved.at = [0.5, 0.0, 0.0];
    let mut turned = o;
    turned.rotate = [0.0, 0.0, 90.0];
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![moved],
        vec![material("white", 0.8, 0.0)],
        Some(sun()),
    );
    let (_, img) = render(&s, 1, 4);
    // The quad now spans x from -0.5 to 1.5: drawn from -0.5 to 0.5, cut past it.
    assert!((mean(&img, px(-0.4), px(0.4), 3, 21) - 0.8).abs() < 0.02);
    assert_eq!(mean(&img, px(0.6), SIZE, 0, SIZE), 0.0);
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![turned],
        vec![material("white", 0.8, 0.0)],
        Some(sun()),
    );
    let (_, img) = render(&s, 1, 4);
    assert!(
        (mean(&img, 3, 21, 13, 21) - 0.8).abs() < 0.02,
        "lower half lit"
    );
    assert_eq!(mean(&img, 3, 21, 3, 11), 0.0, "upper half cut");
}

#[test]
fn a_clip_plane_removes_the_cut_part_of_a_shadow_caster() {
    let dir = tempfile::tempdir().unwrap();
    let quad = write_quad(dir.path(), "quad", None);
    // A floor of half-size 1 at z = 0, and a shadow-only caster of half-size 0.5 above it,
    // cut where its own x > 0: only its left half shadows the floor.
    let floor = object("floor", "quad", "white", [0.0; 3]);
    let caster = |clip: Vec<[f32; 4]>| scene::Object {
        scale: [0.5; 3],
        shadow: Shadow::Only,
        clip,
        ..object("caster", "quad", "white", [0.0, 0.0, 0.5])
    };
    let build = |clip| {
        scene(
            dir.path(),
            &[("quad", &quad)],
            vec![floor.clone(), caster(clip)],
            vec![material("white", 0.8, 0.0)],
            Some(sun()),
        )
    };
    let (_, whole) = render(&build(vec![]), 2, 4);
    let (_, cut) = render(&build(vec![[1.0, 0.0, 0.0, 0.0]]), 2, 4);
    // Under the caster's left half (x from -0.5 to 0): dark in both.
    let (y0, y1) = (px(-0.4), px(0.4));
    assert_eq!(mean(&whole, px(-0.4), px(-0.1), y0, y1), 0.0);
    assert_eq!(mean(&cut, px(-0.4), px(-0.1), y0, y1), 0.0);
    // Under its right half: dark when whole, lit when cut.
    assert_eq!(mean(&whole, px(0.1), px(0.4), y0, y1), 0.0);
    let lit = mean(&cut, px(0.1), px(0.4), y0, y1);
    assert!((lit - 0.8).abs() < 0.02, "{lit}");
}

#[test]
fn an_emissive_quad_clipped_in_half_emits_half_the_power() {
    let dir = tempfile::tempdir().unwrap();
    let quad = write_quad(dir.path(), "quad", None);
    // A floor of half-size 1 at z = 0 lit only by an emissive quad of half-size 0.3 at
    // z = 0.4 facing down (turned 180° about X). Direct light only (two segments). The floor
    // and the lamp are mirror-symmetric about x = 0, so whatever the geometry the left and
    // right halves of the lamp light the symmetric floor region equally: cutting one half
    // leaves exactly half the light there, in expectation.
    let floor = object("floor", "quad", "white", [0.0; 3]);
    let lamp = |clip: Vec<[f32; 4]>| scene::Object {
        scale: [0.3; 3],
        rotate: [180.0, 0.0, 0.0],
        clip,
        ..object("lamp", "quad", "glow", [0.0, 0.0, 0.4])
    };
    let build = |clip| {
        scene(
            dir.path(),
            &[("quad", &quad)],
            vec![floor.clone(), lamp(clip)],
            vec![material("white", 0.8, 0.0), material("glow", 0.0, 5.0)],
            None,
        )
    };
    // The floor seen around the lamp (which hides pixels 9..15 from the camera): rows and
    // columns 3..21 less the lamp's square, a region symmetric about x = 0.
    let floor_light = |img: &Image| {
        let (mut left, mut right) = (0.0f64, 0.0f64);
        for y in 3..21u32 {
            for x in 3..21u32 {
                if (8..16).contains(&x) && (8..16).contains(&y) {
                    continue;
                }
                let v = f64::from(img.radiance[(y * SIZE + x) as usize].y);
                if x < 12 {
                    left += v;
                } else {
                    right += v;
                }
            }
        }
        (left, right)
    };
    let (_, whole) = render(&build(vec![]), 64, 2);
    let (_, half) = render(&build(vec![[1.0, 0.0, 0.0, 0.0]]), 64, 2);
    let (wl, wr) = floor_light(&whole);
    let (hl, hr) = floor_light(&half);
    let ratio = (hl + hr) / (wl + wr);
    assert!((ratio - 0.5).abs() < 0.02, "clipped / whole = {ratio}");
    // The kept half is the lamp's x < 0 (its x axis is the world's): the floor's left side
    // gets more of it.
    assert!((wl - wr).abs() < 0.03 * (wl + wr), "{wl} {wr}");
    assert!(hl > 1.5 * hr, "{hl} {hr}");
}

#[test]
fn a_depth_ray_passes_through_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let quad = write_quad(dir.path(), "quad", None);
    // A front quad at z = 1 cut where x > 0, a back quad at z = -1. Depth from z = 5.
    let mut front = object("front", "quad", "white", [0.0, 0.0, 1.0]);
    front.clip = vec![[1.0, 0.0, 0.0, 0.0]];
    let back = object("back", "quad", "white", [0.0, 0.0, -1.0]);
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![front, back],
        vec![material("white", 0.8, 0.0)],
        Some(sun()),
    );
    let (_, img) = render(&s, 1, 2);
    let depth = |x: u32| img.depth[(12 * SIZE + x) as usize];
    assert!((depth(6).unwrap() - 4.0).abs() < 1e-4, "{:?}", depth(6));
    assert!((depth(18).unwrap() - 6.0).abs() < 1e-4, "{:?}", depth(18));
}

/// Renders the checker MASK quad at z = 0 in front of a plain back quad (base 0.2) at z = -1,
/// under the sun straight down. `only`: the MASK quad casts shadows but is not drawn.
fn checker_render(cutoff: f32, mode: &str, only: bool) -> (World, Image) {
    let dir = tempfile::tempdir().unwrap();
    let leaf = write_quad(
        dir.path(),
        "leaf",
        Some(&checker_material(dir.path(), mode)),
    );
    let quad = write_quad(dir.path(), "quad", None);
    let mut front = object("leaf", "leaf", "white", [0.0; 3]);
    front.alpha_cutoff = cutoff;
    if only {
        front.shadow = Shadow::Only;
    }
    let back = object("back", "quad", "grey", [0.0, 0.0, -1.0]);
    let s = scene(
        dir.path(),
        &[("leaf", &leaf), ("quad", &quad)],
        vec![front, back],
        vec![material("white", 0.8, 0.0), material("grey", 0.2, 0.0)],
        Some(sun()),
    );
    render(&s, 2, 4)
}

/// Mean radiance of the four quadrants of the quad: top-left, top-right, bottom-left,
/// bottom-right (each inset a pixel from the texel edges).
fn quadrants(img: &Image) -> [f32; 4] {
    [
        mean(img, 3, 11, 3, 11),
        mean(img, 13, 21, 3, 11),
        mean(img, 3, 11, 13, 21),
        mean(img, 13, 21, 13, 21),
    ]
}

fn close(got: [f32; 4], want: [f32; 4]) -> bool {
    close_within(got, want, 0.02)
}

fn close_within(got: [f32; 4], want: [f32; 4], tol: f32) -> bool {
    got.iter().zip(want).all(|(g, w)| (g - w).abs() < tol)
}

#[test]
fn a_mask_checkerboard_shows_the_background_through_its_clear_texels() {
    // Alphas 0.9 on the diagonal texels (top-left, bottom-right), 0.3 off it.
    let (_, img) = checker_render(0.5, "MASK", false);
    let q = quadrants(&img);
    assert!(close(q, [0.8, 0.2, 0.2, 0.8]), "{q:?}");
    // The cut-off decides: 0 keeps every texel, 1 drops both (0.9 < 1).
    let q = quadrants(&checker_render(0.0, "MASK", false).1);
    assert!(close(q, [0.8; 4]), "{q:?}");
    let q = quadrants(&checker_render(1.0, "MASK", false).1);
    assert!(close(q, [0.2; 4]), "{q:?}");
    // Between the two alphas every value gives the checker.
    let q = quadrants(&checker_render(0.89, "MASK", false).1);
    assert!(close(q, [0.8, 0.2, 0.2, 0.8]), "{q:?}");
}

#[test]
fn a_mask_checkerboard_casts_a_checker_shadow() {
    let (_, img) = checker_render(0.5, "MASK", true);
    // The back quad is dark under the kept texels and lit (0.2) under the dropped ones.
    let q = quadrants(&img);
    assert!(close(q, [0.0, 0.2, 0.2, 0.0]), "{q:?}");
    let q = quadrants(&checker_render(0.0, "MASK", true).1);
    assert!(close(q, [0.0; 4]), "{q:?}");
}

#[test]
fn blend_is_stochastic_transparency_not_a_mask() {
    // Alphas 0.9 and 0.3 over the back quad (0.2), itself shadowed by the blend where its
    // shadow ray is kept: about 0.9·0.8 + 0.1·0.2·(0.1 to 1) ≈ 0.72 to 0.74 and 0.3·0.8 +
    // 0.7·0.2·(0.7 to 1) ≈ 0.34 to 0.38, between the mask's 0.8 and 0.2
    // (tests/gltf_materials.rs measures the blend's coverage closely).
    let (world, img) = checker_render(0.5, "BLEND", false);
    let q = quadrants(&img);
    assert!(close_within(q, [0.73, 0.36, 0.36, 0.73], 0.1), "{q:?}");
    assert!(q[0] < 0.78 && q[1] > 0.25, "{q:?}");
    assert!(
        !world.asset_warnings.iter().any(|w| w.contains("BLEND")),
        "{:?}",
        world.asset_warnings
    );
    // An opaque material with the same texture is drawn whole.
    let dir = tempfile::tempdir().unwrap();
    let m = checker_material(dir.path(), "OPAQUE");
    let leaf = write_quad(dir.path(), "leaf", Some(&m));
    let s = scene(
        dir.path(),
        &[("leaf", &leaf)],
        vec![object("leaf", "leaf", "white", [0.0; 3])],
        vec![material("white", 0.8, 0.0)],
        Some(sun()),
    );
    let q = quadrants(&render(&s, 1, 2).1);
    assert!(close(q, [0.8; 4]), "{q:?}");
}

#[test]
fn clip_and_alpha_cutoff_keys_are_drawn_not_noted() {
    // The keys read from a scene file give no capability note.
    let dir = tempfile::tempdir().unwrap();
    let quad = write_quad(dir.path(), "quad", None);
    std::fs::write(
        dir.path().join("clip.scene.toml"),
        r#"format = 1

[mesh.quad]
file = "quad.gltf"

[[object]]
name = "card"
mesh = "quad"
clip = [[1, 0, 0, 0]]
alpha_cutoff = 0.25
"#,
    )
    .unwrap();
    assert!(quad.exists());
    let s = scene::load(&dir.path().join("clip.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    assert_eq!(s.objects[0].clip, vec![[1.0, 0.0, 0.0, 0.0]]);
    let world = World::build(&s, [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let notes: Vec<&str> = world.capabilities.iter().map(|c| c.what.as_str()).collect();
    assert!(
        !notes
            .iter()
            .any(|n| n.contains("clip") || n.contains("alpha")),
        "{notes:?}"
    );
    assert_eq!(world.trace.cuts.len(), 1);
}

#[test]
fn the_objects_alpha_cutoff_wins_where_written_else_the_files() {
    // The file asks for alphaCutoff 0.95, which drops every texel (0.9 and 0.3). An object
    // that sets its own 0.4 cuts there, and the bake says the file's value is not used; one
    // that leaves the key at its default takes the file's (docs/rendering.md).
    let dir = tempfile::tempdir().unwrap();
    let m = checker_material(dir.path(), "MASK").replace(
        r#""alphaMode":"MASK","#,
        r#""alphaMode":"MASK","alphaCutoff":0.95,"#,
    );
    let leaf = write_quad(dir.path(), "leaf", Some(&m));
    let quad = write_quad(dir.path(), "quad", None);
    let bake = |cutoff: f32| {
        let mut front = object("leaf", "leaf", "white", [0.0; 3]);
        front.alpha_cutoff = cutoff;
        let s = scene(
            dir.path(),
            &[("leaf", &leaf), ("quad", &quad)],
            vec![front, object("back", "quad", "grey", [0.0, 0.0, -1.0])],
            vec![material("white", 0.8, 0.0), material("grey", 0.2, 0.0)],
            Some(sun()),
        );
        render(&s, 2, 4)
    };
    let (world, img) = bake(0.4);
    let q = quadrants(&img);
    assert!(close(q, [0.8, 0.2, 0.2, 0.8]), "{q:?}");
    assert!(
        world.asset_warnings.iter().any(|w| w.ends_with(
            "material 'leaf': its alphaCutoff 0.95 is not used; object \"leaf\" cuts at its \
             alpha_cutoff 0.4"
        )),
        "{:?}",
        world.asset_warnings
    );
    let (world, img) = bake(0.5);
    let q = quadrants(&img);
    assert!(close(q, [0.2; 4]), "{q:?}");
    assert!(
        !world
            .asset_warnings
            .iter()
            .any(|w| w.contains("alphaCutoff")),
        "{:?}",
        world.asset_warnings
    );
}
