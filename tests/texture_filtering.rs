//! Footprint-filtered texture lookups (docs/assets.md, "Texture filtering"), on pixels: a
//! plane receding from the camera, emissive through a checker of single texels (so a pixel's
//! value is the texture lookup itself, with no lighting noise), rendered at 1 sample per
//! pixel. With the mip-mapped lookups every pixel reads close to the checker's mean; the same
//! file with `minFilter` NEAREST (no mip-maps, as a glTF sampler may ask) aliases: its pixels
//! are scattered black and white. The filtered image is the same bytes whatever the thread
//! count.

use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene::{self, Scene};
use pfx_bake::world::World;

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A 64 × 64 PNG checker of single texels, black and white.
fn checker_png() -> Vec<u8> {
    let img = image::RgbImage::from_fn(64, 64, |x, y| {
        if (x + y) % 2 == 0 {
            image::Rgb([0, 0, 0])
        } else {
            image::Rgb([255, 255, 255])
        }
    });
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// A glTF plane y = 0, x in ±200, z from 0 to −400, facing +Y, its texture coordinates 8
/// checker repeats per metre (512 texels a metre), black base, emissive 1 through the checker
/// under a sampler of `min_filter`.
fn plane_gltf(min_filter: u32) -> String {
    let (l, d) = (200.0f32, 400.0f32);
    let pos = [[-l, 0.0, 0.0], [l, 0.0, 0.0], [l, 0.0, -d], [-l, 0.0, -d]];
    let mut bin = Vec::new();
    for p in pos {
        for c in p {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for _ in 0..4 {
        for c in [0.0f32, 1.0, 0.0] {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for p in pos {
        for c in [p[0] * 8.0, -p[2] * 8.0] {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
        "nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2}},"indices":3,"material":0}}]}}],
        "materials":[{{"pbrMetallicRoughness":{{"baseColorFactor":[0,0,0,1],"metallicFactor":0,"roughnessFactor":1}},
            "emissiveFactor":[1,1,1],"emissiveTexture":{{"index":0}}}}],
        "textures":[{{"source":0,"sampler":0}}],
        "samplers":[{{"magFilter":9729,"minFilter":{min_filter}}}],
        "images":[{{"uri":"data:image/png;base64,{png}"}}],
        "accessors":[
            {{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[-{l},0,-{d}],"max":[{l},0,0]}},
            {{"bufferView":1,"componentType":5126,"count":4,"type":"VEC3"}},
            {{"bufferView":2,"componentType":5126,"count":4,"type":"VEC2"}},
            {{"bufferView":3,"componentType":5123,"count":6,"type":"SCALAR"}}],
        "bufferViews":[
            {{"buffer":0,"byteOffset":0,"byteLength":48}},
            {{"buffer":0,"byteOffset":48,"byteLength":48}},
            {{"buffer":0,"byteOffset":96,"byteLength":32}},
            {{"buffer":0,"byteOffset":128,"byteLength":12}}],
        "buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}]}}"#,
        png = base64(&checker_png()),
        n = bin.len(),
        b = base64(&bin),
    )
}

/// The plane seen from 1 m up, looking down 18°, 96 × 64 pixels, `spp` samples, in a pool of
/// `threads`.
fn render(min_filter: u32, spp: u32, threads: usize) -> Image {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plane.gltf");
    std::fs::write(&file, plane_gltf(min_filter)).unwrap();
    let scene = Scene {
        root: dir.path().to_path_buf(),
        file: "plane.scene.toml".into(),
        meshes: vec![scene::Mesh {
            key: "plane".into(),
            file,
            ..Default::default()
        }],
        objects: vec![scene::Object {
            key: "plane".into(),
            mesh: "plane".into(),
            scale: [1.0; 3],
            alpha_cutoff: 0.5,
            pick: 1,
            ..Default::default()
        }],
        camera: Some(scene::Camera {
            at: [0.0, 1.0, 0.0],
            look_at: [0.0, 0.0, -3.0],
            fov: 30.0,
            near: 0.01,
            far: 1000.0,
            ..Default::default()
        }),
        ..Default::default()
    };
    let world = World::build(&scene, [96, 64]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let image = pool.install(|| {
        integrator::render(
            &world,
            &Settings {
                spp,
                seed: 11,
                ..Settings::default()
            },
            &NoProgress,
        )
    });
    assert_eq!(image.dropped, 0);
    image
}

/// Mean and standard deviation of the pixels' red channel (the checker is grey).
fn stats(img: &Image) -> (f64, f64) {
    let v: Vec<f64> = img.radiance.iter().map(|c| f64::from(c.x)).collect();
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

#[test]
fn a_receding_checker_does_not_alias_at_one_sample() {
    // minFilter absent: trilinear, anisotropic probes.
    let filtered = render(9987, 1, 2);
    // minFilter NEAREST: no mip-maps, the texel under the sample.
    let unfiltered = render(9728, 1, 2);
    // Every pixel sees the plane.
    assert!(filtered.coverage.iter().all(|&c| c == 1.0));
    let (fm, fs) = stats(&filtered);
    let (um, us) = stats(&unfiltered);
    eprintln!("filtered: mean {fm:.4}, std {fs:.4}; unfiltered: mean {um:.4}, std {us:.4}");
    // The checker's mean in linear light is 0.5 (sRGB 0 and 255 decode to 0 and 1).
    assert!((fm - 0.5).abs() < 0.02, "filtered mean {fm}");
    assert!(fs < 0.05, "filtered pixels scatter: std {fs}");
    // Unfiltered, single texels under single samples: pixels far from their mean.
    assert!(us > 0.4, "unfiltered std {us}");
    // Unfiltered's own mean is the checker's too (aliasing is noise, not bias), so the
    // filtered image is not darker or brighter than the truth.
    assert!((um - 0.5).abs() < 0.06, "unfiltered mean {um}");
    // No single filtered pixel strays far.
    let worst = filtered
        .radiance
        .iter()
        .map(|c| (c.x - 0.5).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 0.2, "a filtered pixel reads {worst} from the mean");
}

#[test]
fn filtered_lookups_are_the_same_bytes_on_one_or_four_threads() {
    let a = render(9987, 2, 1);
    let b = render(9987, 2, 4);
    let bytes = |img: &Image| {
        img.radiance
            .iter()
            .flat_map(|c| c.to_array())
            .map(f32::to_bits)
            .collect::<Vec<_>>()
    };
    assert!(bytes(&a) == bytes(&b), "thread count changed the image");
}
