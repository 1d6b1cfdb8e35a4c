//! The unit-quad harness of the glTF material tests (tests/gltf_materials.rs,
//! tests/gltf_clearcoat.rs): a glTF quad written into a temporary folder, rendered
//! orthographically under a sun, and its pixels read.
//!
//! The quad: half-size 1 in the z = 0 plane, facing +Z, TEXCOORD_0 from (0, 0) at its
//! top-left corner (-1, 1) to (1, 1) at its bottom-right (1, -1). The camera looks down −Z
//! from z = 5 with a view 2.4 units high: on a 24 × 24 image each pixel is 0.1 units and the
//! quad spans pixels 2..22. Each test crate that says `mod gltf_quad;` compiles its own copy,
//! and not every crate uses every helper.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use glam::Vec3;
use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene::{self, Projection, Scene, Sun, SunModel};
use pfx_bake::world::World;

/// The side of the quad renders, pixels.
pub const SIZE: u32 = 24;

pub fn base64(data: &[u8]) -> String {
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

/// A PNG of `w × h` RGBA texels (row-major from the top) as a data URI.
pub fn png_uri(w: u32, h: u32, texels: &[[u8; 4]]) -> String {
    let mut img = image::RgbaImage::new(w, h);
    for (i, p) in img.pixels_mut().enumerate() {
        *p = image::Rgba(texels[i]);
    }
    let mut out = Vec::new();
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    format!("data:image/png;base64,{}", base64(&out))
}

/// Writes `<name>.gltf`, the unit quad with material 0 (`material`, JSON) and the top-level
/// members `more` (textures, images, samplers, each with its leading comma). `color`: a
/// COLOR_0 (float VEC4) for every vertex; `tangent`: a TANGENT for every vertex.
pub fn write_quad(
    dir: &Path,
    name: &str,
    material: &str,
    more: &str,
    color: Option<[f32; 4]>,
    tangent: Option<[f32; 4]>,
) -> PathBuf {
    let pos: [f32; 12] = [
        -1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0,
    ];
    let nrm: [f32; 12] = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0];
    let uv: [f32; 8] = [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    let mut bin = Vec::new();
    for v in pos.iter().chain(&nrm).chain(&uv) {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    let mut attributes = r#""POSITION":0,"NORMAL":1,"TEXCOORD_0":2"#.to_string();
    let mut accessors = String::from(
        r#"{"bufferView":0,"byteOffset":0,"componentType":5126,"count":4,"type":"VEC3","min":[-1,-1,0],"max":[1,1,0]},
{"bufferView":0,"byteOffset":48,"componentType":5126,"count":4,"type":"VEC3"},
{"bufferView":0,"byteOffset":96,"componentType":5126,"count":4,"type":"VEC2"},
{"bufferView":1,"byteOffset":0,"componentType":5123,"count":6,"type":"SCALAR"}"#,
    );
    let mut extra = Vec::new();
    for (key, v) in [("COLOR_0", color), ("TANGENT", tangent)] {
        if let Some(v) = v {
            let at = extra.len();
            for _ in 0..4 {
                for c in v {
                    extra.extend_from_slice(&c.to_le_bytes());
                }
            }
            let index = 4 + at / 64;
            attributes.push_str(&format!(r#","{key}":{index}"#));
            accessors.push_str(&format!(
                r#",{{"bufferView":2,"byteOffset":{at},"componentType":5126,"count":4,"type":"VEC4"}}"#
            ));
        }
    }
    let idx: [u16; 6] = [0, 1, 2, 0, 2, 3];
    for i in idx {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    // 140 bytes so far: the extra view starts 4-byte aligned, as float accessors must.
    let extra_at = bin.len();
    bin.extend_from_slice(&extra);
    let extra_view = if extra.is_empty() {
        String::new()
    } else {
        format!(
            r#",{{"buffer":0,"byteOffset":{extra_at},"byteLength":{}}}"#,
            extra.len()
        )
    };
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":[{{"mesh":0,"name":"quad"}}],
"meshes":[{{"primitives":[{{"attributes":{{{attributes}}},"indices":3,"material":0}}]}}],
"buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{b64}"}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":128}},{{"buffer":0,"byteOffset":128,"byteLength":12}}{extra_view}],
"accessors":[{accessors}],
"materials":[{material}]{more}}}"#,
        len = bin.len(),
        b64 = base64(&bin),
    );
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, json).unwrap();
    path
}

/// An object of mesh `mesh` with no material of its own: its glTF material decides.
pub fn object(key: &str, mesh: &str) -> scene::Object {
    scene::Object {
        key: key.into(),
        mesh: mesh.into(),
        scale: [1.0; 3],
        alpha_cutoff: 0.5,
        ..Default::default()
    }
}

/// A sun of irradiance π towards `toward` (normalised here).
pub fn sun(toward: Vec3) -> Sun {
    let t = toward.normalize();
    Sun {
        model: SunModel::Authored,
        hour: 12.0,
        day: 172.0,
        latitude: 0.0,
        heading: 0.0,
        reference_hour: 12.0,
        toward: Some(t.to_array()),
        color: [1.0; 3],
        irradiance: Some(std::f32::consts::PI),
        radius: 0.0,
    }
}

pub fn scene(
    dir: &Path,
    meshes: &[(&str, &Path)],
    objects: Vec<scene::Object>,
    sun: Option<Sun>,
) -> Scene {
    Scene {
        root: dir.to_path_buf(),
        file: "gltf.scene.toml".into(),
        meshes: meshes
            .iter()
            .map(|(k, f)| scene::Mesh {
                key: (*k).into(),
                file: f.to_path_buf(),
                ..Default::default()
            })
            .collect(),
        objects,
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

pub fn render(scene: &Scene, spp: u32, max_depth: u32) -> (World, Image) {
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

/// One quad with `material` under the sun towards `toward`, direct light only.
pub fn render_quad(material: &str, more: &str, toward: Vec3) -> (World, Image) {
    let dir = tempfile::tempdir().unwrap();
    let quad = write_quad(dir.path(), "quad", material, more, None, None);
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![object("card", "quad")],
        Some(sun(toward)),
    );
    render(&s, 4, 2)
}

/// Mean radiance over pixels `x0..x1`, `y0..y1` (row 0 at the top, +Y).
pub fn mean(img: &Image, x0: u32, x1: u32, y0: u32, y1: u32) -> Vec3 {
    let mut s = Vec3::ZERO;
    for y in y0..y1 {
        for x in x0..x1 {
            s += img.radiance[(y * img.width + x) as usize];
        }
    }
    s / ((x1 - x0) * (y1 - y0)) as f32
}

/// Mean radiance of the quadrants: top-left, top-right, bottom-left, bottom-right (each
/// inset a pixel from the texel edges of a 2 × 2 texture).
pub fn quadrants(img: &Image) -> [Vec3; 4] {
    [
        mean(img, 3, 11, 3, 11),
        mean(img, 13, 21, 3, 11),
        mean(img, 3, 11, 13, 21),
        mean(img, 13, 21, 13, 21),
    ]
}

pub fn near(got: Vec3, want: Vec3, tol: f32) -> bool {
    (got - want).abs().max_element() <= tol
}

/// IEC 61966-2-1: the linear value of an sRGB-encoded byte.
pub fn srgb(b: u8) -> f32 {
    let c = f64::from(b) / 255.0;
    (if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }) as f32
}
