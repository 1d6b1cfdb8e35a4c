//! KHR_materials_iridescence drawn on glTF materials (the format's thin film,
//! `materials::Iridescent`): IridescenceSuzanne bakes with its film, the film colours a grey
//! material's pixels, a factor of 0 is the material without the extension byte for byte, the
//! textures vary the film per texel, and a white film-covered quad in a white sky reflects no
//! more than it receives.

use std::path::{Path, PathBuf};

use glam::Vec3;
use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::materials::{Bxdf, Iridescent, ThinFilm};
use pfx_bake::scene::{self, Projection, Scene, Sky, SkyKind, Sun, SunModel};
use pfx_bake::world::gltf_surface::f0_of_ior;
use pfx_bake::world::World;
use serde_json::Value;

mod gltf_quad;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// IridescenceSuzanne's GLB with its JSON passed through `edit`, written to `dir`.
fn suzanne(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let glb =
        std::fs::read(repo().join("tests/data/gltf/IridescenceSuzanne/IridescenceSuzanne.glb"))
            .unwrap();
    let n = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut json: Value = serde_json::from_slice(&glb[20..20 + n]).unwrap();
    edit(&mut json);
    let mut text = serde_json::to_string(&json).unwrap();
    while text.len() % 4 != 0 {
        text.push(' ');
    }
    let rest = &glb[20 + n..];
    let mut out = Vec::new();
    out.extend_from_slice(&glb[0..8]);
    out.extend_from_slice(&((20 + text.len() + rest.len()) as u32).to_le_bytes());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(&glb[16..20]);
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(rest);
    let path = dir.join(format!("{name}.glb"));
    std::fs::write(&path, out).unwrap();
    path
}

/// A uniform white sky of radiance 1 (an 4 × 2 HDR) in `dir`.
fn white_sky(dir: &Path) -> Sky {
    let hdr = dir.join("white.hdr");
    let file = std::fs::File::create(&hdr).unwrap();
    image::codecs::hdr::HdrEncoder::new(file)
        .encode(&[image::Rgb([1.0f32; 3]); 8], 4, 2)
        .unwrap();
    Sky {
        kind: SkyKind::Hdr,
        path: Some(hdr),
        rotation_deg: 0.0,
        intensity: 1.0,
        ..Default::default()
    }
}

/// A sun of irradiance π towards `toward`.
fn sun(toward: Vec3) -> Sun {
    Sun {
        model: SunModel::Authored,
        hour: 12.0,
        day: 172.0,
        latitude: 0.0,
        heading: 0.0,
        reference_hour: 12.0,
        toward: Some(toward.normalize().to_array()),
        color: [1.0; 3],
        irradiance: Some(std::f32::consts::PI),
        radius: 0.0,
    }
}

/// `mesh` seen orthographically down −Z from z = 10, `height` units high.
fn scene(dir: &Path, mesh: &Path, height: f32, sky: Option<Sky>, sun: Option<Sun>) -> Scene {
    Scene {
        root: dir.to_path_buf(),
        file: "film.scene.toml".into(),
        meshes: vec![scene::Mesh {
            key: "m".into(),
            file: mesh.to_path_buf(),
            ..Default::default()
        }],
        objects: vec![scene::Object {
            key: "o".into(),
            mesh: "m".into(),
            scale: [1.0; 3],
            alpha_cutoff: 0.5,
            ..Default::default()
        }],
        camera: Some(scene::Camera {
            projection: Projection::Orthographic,
            at: [0.0, 0.0, 10.0],
            height: Some(height),
            ..Default::default()
        }),
        sky,
        sun,
        ..Default::default()
    }
}

fn render(s: &Scene, size: [u32; 2], spp: u32, max_depth: u32) -> (World, Image) {
    let world = World::build(s, size).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let image = integrator::render(
        &world,
        &Settings {
            spp,
            max_depth,
            seed: 3,
            ..Settings::default()
        },
        &NoProgress,
    );
    (world, image)
}

/// Over the pixels of columns `x0..x1` that see the model (not the sky's 1): their count, the
/// mean of their chroma `(max − min)/mean` and the mean radiance.
fn chroma(img: &Image, x0: u32, x1: u32) -> (usize, f32, Vec3) {
    let (mut n, mut c, mut sum) = (0usize, 0.0f32, Vec3::ZERO);
    for y in 0..img.height {
        for x in x0..x1 {
            let p = img.radiance[(y * img.width + x) as usize];
            if p == Vec3::ONE || p.element_sum() <= 1e-4 {
                continue;
            }
            n += 1;
            c += (p.max_element() - p.min_element()) / (p.element_sum() / 3.0);
            sum += p;
        }
    }
    (n, c / n.max(1) as f32, sum / n.max(1) as f32)
}

#[test]
fn iridescence_suzanne_bakes_with_its_film_and_factor_zero_is_no_extension() {
    let dir = tempfile::tempdir().unwrap();
    let original = repo().join("tests/data/gltf/IridescenceSuzanne/IridescenceSuzanne.glb");
    // The three Suzannes at x = −3, 0, 3, each about 2.7 wide: a 9.6 × 3.2 view, 30 px a unit.
    let size = [288, 96];
    let s = scene(
        dir.path(),
        &original,
        3.2,
        Some(white_sky(dir.path())),
        None,
    );
    let (world, img) = render(&s, size, 16, 4);
    let w = &world.asset_warnings;
    assert!(
        !w.iter()
            .any(|w| w.contains("KHR_materials_iridescence is not rendered yet")),
        "{w:?}"
    );
    // The right Suzanne's film is on a transmitting material: named as such, once.
    let on_transmission = w
        .iter()
        .filter(|w| {
            w.contains(
                "KHR_materials_iridescence on a transmitting material \
                 (KHR_materials_transmission) is not rendered yet (first met on material \
                 'Material')",
            )
        })
        .count();
    assert_eq!(on_transmission, 1, "{w:?}");
    // Factor 0 on every material, and the extension removed: the same bytes.
    let zero = suzanne(dir.path(), "zero", |j| {
        for m in j["materials"].as_array_mut().unwrap() {
            m["extensions"]["KHR_materials_iridescence"]["iridescenceFactor"] = 0.0.into();
        }
    });
    let removed = suzanne(dir.path(), "removed", |j| {
        for m in j["materials"].as_array_mut().unwrap() {
            m["extensions"]
                .as_object_mut()
                .unwrap()
                .remove("KHR_materials_iridescence");
        }
        j["extensionsRequired"] = Value::Array(Vec::new());
    });
    let (wz, zero_img) = render(
        &scene(dir.path(), &zero, 3.2, Some(white_sky(dir.path())), None),
        size,
        16,
        4,
    );
    let (_, removed_img) = render(
        &scene(dir.path(), &removed, 3.2, Some(white_sky(dir.path())), None),
        size,
        16,
        4,
    );
    assert!(
        zero_img.radiance == removed_img.radiance,
        "factor 0 differs from no extension"
    );
    assert!(
        !wz.asset_warnings.iter().any(|w| w.contains("iridescence")),
        "{:?}",
        wz.asset_warnings
    );
    // Under a white sky a grey base under a grey reflection is grey to the bit, in every
    // pixel of the bare dielectric and metal Suzannes; the 400 nm film of index 1.33 colours
    // them (over ior 2 and over the metal's F0 0.4, whose film reflects more strongly).
    for (name, x0, x1) in [("dielectric", 0u32, 96u32), ("metal", 96, 192)] {
        let (n, bare, bare_mean) = chroma(&zero_img, x0, x1);
        let (m, film, film_mean) = chroma(&img, x0, x1);
        eprintln!(
            "{name}: {n} pixels, chroma bare {bare:.5} film {film:.4}; mean bare {bare_mean} \
             film {film_mean}"
        );
        assert!(n > 2000 && m > 2000, "{name}: {n}, {m} pixels");
        assert!(bare < 1e-6, "{name}: bare chroma {bare}");
        assert!(film > 0.05, "{name}: film chroma {film}");
    }
}

/// A unit quad facing +Z (half-size 1, TEXCOORD_0 (0, 0) at its top-left), material 0
/// `material`, top-level members `more`; written as `<name>.gltf` in `dir`.
fn quad(dir: &Path, name: &str, material: &str, more: &str) -> PathBuf {
    let pos: [f32; 12] = [
        -1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 1.0, 1.0, 0.0, -1.0, 1.0, 0.0,
    ];
    let nrm: [f32; 12] = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0];
    let uv: [f32; 8] = [0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0];
    let mut bin = Vec::new();
    for v in pos.iter().chain(&nrm).chain(&uv) {
        bin.extend_from_slice(&v.to_le_bytes());
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        bin.extend_from_slice(&i.to_le_bytes());
    }
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":[{{"mesh":0}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1,"TEXCOORD_0":2}},"indices":3,"material":0}}]}}],
"buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{b64}"}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":128}},{{"buffer":0,"byteOffset":128,"byteLength":12}}],
"accessors":[{{"bufferView":0,"byteOffset":0,"componentType":5126,"count":4,"type":"VEC3","min":[-1,-1,0],"max":[1,1,0]}},
{{"bufferView":0,"byteOffset":48,"componentType":5126,"count":4,"type":"VEC3"}},
{{"bufferView":0,"byteOffset":96,"componentType":5126,"count":4,"type":"VEC2"}},
{{"bufferView":1,"byteOffset":0,"componentType":5123,"count":6,"type":"SCALAR"}}],
"materials":[{material}]{more}}}"#,
        len = bin.len(),
        b64 = gltf_quad::base64(&bin),
    );
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, json).unwrap();
    path
}

/// A 2 × 2 PNG texture (nearest, repeat) as the top-level members a quad takes.
fn texture_2x2(texels: [[u8; 4]; 4]) -> String {
    format!(
        r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728,"minFilter":9728}}],
"images":[{{"uri":"{}"}}]"#,
        gltf_quad::png_uri(2, 2, &texels)
    )
}

/// Mean radiance of pixels `x0..x1` × `y0..y1`.
fn mean(img: &Image, x0: u32, x1: u32, y0: u32, y1: u32) -> Vec3 {
    let mut s = Vec3::ZERO;
    for y in y0..y1 {
        for x in x0..x1 {
            s += img.radiance[(y * img.width + x) as usize];
        }
    }
    s / ((x1 - x0) * (y1 - y0)) as f32
}

/// A black dielectric of ior 1.5 and roughness 0.5 under a 300 nm film of index 1.8, with the
/// extension's `extra` members: the quad shows the film-covered specular lobe alone.
fn black_filmed(extra: &str) -> String {
    format!(
        r#"{{"name":"beetle","pbrMetallicRoughness":{{"baseColorFactor":[0,0,0,1],"metallicFactor":0,
"roughnessFactor":0.5}},"extensions":{{"KHR_materials_iridescence":{{"iridescenceFactor":1,
"iridescenceIor":1.8,"iridescenceThicknessMinimum":150,"iridescenceThicknessMaximum":450{extra}}}}}}}"#
    )
}

/// The lobe's radiance `π cos θi f(wo = Z, wi)` of the black dielectric under a film of
/// `thickness` nm, for a sun of irradiance π towards `toward`.
fn lobe(thickness: f32, toward: Vec3) -> Vec3 {
    let film = ThinFilm::new(thickness, 1.8, 1.0).unwrap();
    let m = Iridescent::new(Vec3::ZERO, 0.5, 0.0, f0_of_ior(1.5), 5.0, film);
    let wi = toward.normalize();
    m.f(Vec3::Z, wi) * std::f32::consts::PI * wi.z
}

#[test]
fn the_films_hue_follows_the_angle_and_the_thickness_texture() {
    let dir = tempfile::tempdir().unwrap();
    // 24 × 24 pixels over 2.4 units: the quad spans pixels 2..22, each texel 10 pixels.
    let view = |toward: Vec3, material: &str, more: &str| {
        let q = quad(dir.path(), "q", material, more);
        let s = scene(dir.path(), &q, 2.4, None, Some(sun(toward)));
        let (world, img) = render(&s, [24, 24], 4, 2);
        assert!(
            world.asset_warnings.is_empty(),
            "{:?}",
            world.asset_warnings
        );
        img
    };
    // No thickness texture: the maximum, 450 nm, in every pixel; the sun head on and at 60°.
    let mut hues = Vec::new();
    for deg in [0.0f32, 60.0] {
        let t = deg.to_radians();
        let toward = Vec3::new(t.sin(), 0.0, t.cos());
        let got = mean(&view(toward, &black_filmed(""), ""), 3, 21, 3, 21);
        let want = lobe(450.0, toward);
        eprintln!("sun at {deg}°: {got} (lobe {want})");
        assert!(
            (got - want).abs().max_element() <= 2e-3 * want.max_element(),
            "{deg}°: {got} vs {want}"
        );
        hues.push(got / got.element_sum());
    }
    // The colour moves with the angle (the film's path difference shrinks with cos θ).
    let shift = (hues[0] - hues[1]).abs().max_element();
    assert!(shift > 0.03, "hue {:?} → {:?}", hues[0], hues[1]);
    // A 2 × 2 thickness texture (its G; R, B, A vary and are not read): each quadrant the
    // lobe of min + G/255 · (max − min) nm, the hues differing.
    let texels = [
        [255, 0, 9, 255],
        [0, 85, 200, 7],
        [30, 170, 0, 255],
        [0, 255, 90, 128],
    ];
    let img = view(
        Vec3::Z,
        &black_filmed(r#","iridescenceThicknessTexture":{"index":0}"#),
        &texture_2x2(texels),
    );
    let quads = [
        mean(&img, 3, 11, 3, 11),
        mean(&img, 13, 21, 3, 11),
        mean(&img, 3, 11, 13, 21),
        mean(&img, 13, 21, 13, 21),
    ];
    for (i, (got, t)) in quads.iter().zip(texels).enumerate() {
        let d = 150.0 + 300.0 * f32::from(t[1]) / 255.0;
        let want = lobe(d, Vec3::Z);
        assert!(
            (*got - want).abs().max_element() <= 2e-3 * want.max_element(),
            "quadrant {i} ({d} nm): {got} vs {want}"
        );
    }
    assert!(
        (quads[0] / quads[0].element_sum() - quads[2] / quads[2].element_sum())
            .abs()
            .max_element()
            > 0.03
    );
    // The levels are built on first use by whichever render thread meets them: the bytes
    // are the same on one thread and on three (a fresh world each, its levels unbuilt).
    let q = quad(
        dir.path(),
        "t",
        &black_filmed(r#","iridescenceThicknessTexture":{"index":0}"#),
        &texture_2x2(texels),
    );
    let on = |threads: usize| {
        let s = scene(dir.path(), &q, 2.4, None, Some(sun(Vec3::Z)));
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| render(&s, [24, 24], 4, 2).1.radiance)
    };
    assert!(on(1) == on(3), "the thread count changed the bytes");
    // The intensity texture's R × the factor: R 0 is the bare black dielectric's grey
    // highlight (F of ior 1.5), R 255 the film's.
    let img = view(
        Vec3::Z,
        &black_filmed(r#","iridescenceTexture":{"index":0}"#),
        &texture_2x2([[0, 9, 9, 9], [255, 0, 0, 0], [0, 0, 0, 0], [255, 9, 9, 9]]),
    );
    let (bare, film) = (mean(&img, 3, 11, 3, 11), mean(&img, 13, 21, 3, 11));
    assert!(
        bare.x == bare.y && bare.y == bare.z && bare.x > 0.0,
        "{bare}"
    );
    let want = lobe(450.0, Vec3::Z);
    assert!(
        (film - want).abs().max_element() <= 2e-3 * want.max_element(),
        "{film} vs {want}"
    );
}

#[test]
fn a_white_filmed_quad_in_a_white_sky_reflects_no_more_than_it_receives() {
    // White furnace on pixels: white base, the film at four thicknesses, dielectric and
    // metal, seen head on in a uniform sky of radiance 1 (one bounce off an infinite-ish
    // plane: the quad sees only the sky). Each channel ≤ 1 beyond the noise, and ≥ 0.97
    // (lossless apart from the multiple-scattering tables' few tenths of a per cent).
    let dir = tempfile::tempdir().unwrap();
    for metallic in [0.0f32, 1.0] {
        for d in [120.0f32, 300.0, 550.0, 900.0] {
            let m = format!(
                r#"{{"name":"w","pbrMetallicRoughness":{{"baseColorFactor":[1,1,1,1],"metallicFactor":{metallic},
"roughnessFactor":0.4}},"extensions":{{"KHR_materials_iridescence":{{"iridescenceFactor":1,
"iridescenceIor":1.6,"iridescenceThicknessMaximum":{d}}}}}}}"#
            );
            let q = quad(dir.path(), "w", &m, "");
            let s = scene(dir.path(), &q, 2.4, Some(white_sky(dir.path())), None);
            let (_, img) = render(&s, [24, 24], 256, 8);
            let got = mean(&img, 4, 20, 4, 20);
            eprintln!("metallic {metallic}, {d} nm: {got}");
            assert!(
                got.max_element() <= 1.005,
                "metallic {metallic}, {d} nm: {got}"
            );
            assert!(
                got.min_element() >= 0.97,
                "metallic {metallic}, {d} nm: {got}"
            );
        }
    }
}

#[test]
fn the_films_reflectance_is_within_zero_and_one_per_channel() {
    // Over IridescenceSuzanne's films and others, every angle, dielectric and metal
    // substrates (the F0-derived index of glTF's convention), and a perfect reflector.
    let mut lo = f32::INFINITY;
    let mut hi = f32::NEG_INFINITY;
    for &(d, n) in &[
        (400.0f32, 1.33f32),
        (200.0, 1.8),
        (600.0, 1.8),
        (100.0, 1.3),
        (1200.0, 2.5),
    ] {
        let film = ThinFilm::new(d, n, 1.0).unwrap();
        for i in 0..=100 {
            let c = i as f32 / 100.0;
            for eta in [1.0f32, 1.5, 2.0, 3.0] {
                let r = film.reflectance(c, eta);
                lo = lo.min(r.min_element());
                hi = hi.max(r.max_element());
            }
            let eta = Vec3::new(
                pfx_bake::materials::film::ior_from_f0(0.4),
                pfx_bake::materials::film::ior_from_f0(0.9),
                pfx_bake::materials::film::ior_from_f0(1.0),
            );
            let r = film.reflectance_per_channel(c, eta);
            lo = lo.min(r.min_element());
            hi = hi.max(r.max_element());
            assert!(r.z > 0.9999, "a perfect reflector under a film: {r}");
        }
    }
    eprintln!("film reflectance over the sweep: [{lo}, {hi}]");
    assert!(lo >= 0.0 && hi <= 1.0, "[{lo}, {hi}]");
}

#[test]
fn where_the_film_is_not_drawn_the_case_is_named() {
    // Each case on its own quad (a file's notes are given once), under a sun: the note, and
    // for the film's neighbours what is dropped instead.
    let dir = tempfile::tempdir().unwrap();
    let film = r#""KHR_materials_iridescence":{"iridescenceFactor":1}"#;
    let png = texture_2x2([[255; 4]; 4]);
    let cases: [(&str, String, &str, &str); 7] = [
        (
            "transmission",
            format!(r#""KHR_materials_transmission":{{"transmissionFactor":0.5}},{film}"#),
            "",
            "KHR_materials_iridescence on a transmitting material (KHR_materials_transmission) \
             is not rendered yet (first met on material 'm'): the material is drawn without \
             its film",
        ),
        (
            "coat",
            format!(r#""KHR_materials_clearcoat":{{"clearcoatFactor":1}},{film}"#),
            "",
            "KHR_materials_iridescence under a clear coat (KHR_materials_clearcoat) is not \
             rendered yet",
        ),
        (
            "ior0",
            format!(r#""KHR_materials_ior":{{"ior":0}},{film}"#),
            "",
            "KHR_materials_iridescence has no effect under KHR_materials_ior's ior 0",
        ),
        (
            "sheen",
            format!(r#""KHR_materials_sheen":{{"sheenColorFactor":[1,1,1]}},{film}"#),
            "",
            "KHR_materials_sheen with a thin film (KHR_materials_iridescence) is not rendered \
             yet (first met on material 'm'): the material is drawn without its sheen",
        ),
        (
            "specular",
            format!(r#""KHR_materials_specular":{{"specularColorFactor":[1,0.5,0.5]}},{film}"#),
            "",
            "KHR_materials_specular's weight, tint or textures under KHR_materials_iridescence \
             are not rendered yet (first met on material 'm'): the film lies over the ior's F0",
        ),
        (
            "roughness texture",
            film.to_string(),
            r#","metallicRoughnessTexture":{"index":0}"#,
            "KHR_materials_iridescence over a metallicRoughnessTexture",
        ),
        (
            "textured metal",
            film.to_string(),
            r#","baseColorTexture":{"index":0}"#,
            "KHR_materials_iridescence over a metal whose baseColorTexture varies its F0",
        ),
    ];
    for (i, (name, ext, pbr, note)) in cases.iter().enumerate() {
        let metallic = if *name == "textured metal" { 1 } else { 0 };
        let m = format!(
            r#"{{"name":"m","pbrMetallicRoughness":{{"metallicFactor":{metallic}{pbr}}},"extensions":{{{ext}}}}}"#
        );
        let more = if pbr.is_empty() { "" } else { png.as_str() };
        let q = quad(dir.path(), &format!("q{i}"), &m, more);
        let s = scene(dir.path(), &q, 2.4, None, Some(sun(Vec3::Z)));
        let world = World::build(&s, [8, 8]).unwrap_or_else(|e| panic!("{:#?}", e.0));
        let w = &world.asset_warnings;
        assert_eq!(
            w.iter().filter(|w| w.contains(note)).count(),
            1,
            "{name}: {w:?}"
        );
        assert!(
            !w.iter()
                .any(|w| w.contains("KHR_materials_iridescence is not rendered yet")),
            "{name}: {w:?}"
        );
    }
}

/// KHR_materials_iridescence's non-normative `iridescent_fresnel` (its README, "Iridescence
/// Fresnel"), written here from that text: Schlick interfaces without polarisation, phase
/// shifts 0 or π from the order of the indices, two orders of the series, Belcour & Barla's
/// sensitivity through the XYZ → Rec.709 matrix without a white balance. Per channel, for a
/// grey base of F0 `base_f0` (outside index 1).
fn gltf_sample_fresnel(film_ior: f64, base_f0: f64, thickness: f64, cos1: f64) -> [f64; 3] {
    use std::f64::consts::PI;
    let schlick = |f0: f64, c: f64| f0 + (1.0 - f0) * (1.0 - c).powi(5);
    let ior_to_f0 = |t: f64, i: f64| ((t - i) / (t + i)).powi(2);
    let r0 = ior_to_f0(film_ior, 1.0);
    let r12 = schlick(r0, cos1);
    let t121 = 1.0 - r12;
    let sin2sq = (1.0 / film_ior).powi(2) * (1.0 - cos1 * cos1);
    let cos2sq = 1.0 - sin2sq;
    if cos2sq < 0.0 {
        return [1.0; 3];
    }
    let cos2 = cos2sq.sqrt();
    let s = (base_f0 + 1e-4).sqrt();
    let base_ior = (1.0 + s) / (1.0 - s);
    let r1 = ior_to_f0(base_ior, film_ior);
    let r23 = schlick(r1, cos2);
    let phi12 = if film_ior < 1.0 { PI } else { 0.0 };
    let phi21 = PI - phi12;
    let phi23 = if base_ior < film_ior { PI } else { 0.0 };
    let phi = phi21 + phi23;
    let opd = 2.0 * film_ior * thickness * cos2;
    let r123 = (r12 * r23).clamp(1e-5, 0.9999);
    let rs = t121 * t121 * r23 / (1.0 - r123);
    let c0 = r12 + rs;
    let sensitivity = |opd: f64, shift: f64| {
        let phase = 2.0 * PI * opd * 1e-9;
        let val = [5.4856e-13, 4.4201e-13, 5.2481e-13];
        let pos = [1.6810e6, 1.7953e6, 2.2084e6];
        let var = [4.3278e9, 9.3046e9, 6.6121e9];
        let mut xyz = [0.0; 3];
        for k in 0..3 {
            xyz[k] = val[k]
                * (2.0 * PI * var[k]).sqrt()
                * (pos[k] * phase + shift).cos()
                * (-phase * phase * var[k]).exp();
        }
        xyz[0] += 9.7470e-14
            * (2.0 * PI * 4.5282e9f64).sqrt()
            * (2.2399e6 * phase + shift).cos()
            * (-4.5282e9 * phase * phase).exp();
        let m = [
            [3.2404542, -1.5371385, -0.4985314],
            [-0.9692660, 1.8760108, 0.0415560],
            [0.0556434, -0.2040259, 1.0572252],
        ];
        let mut rgb = [0.0; 3];
        for (c, row) in m.iter().enumerate() {
            rgb[c] = (row[0] * xyz[0] + row[1] * xyz[1] + row[2] * xyz[2]) / 1.0685e-7;
        }
        rgb
    };
    let mut out = [c0; 3];
    let mut cm = rs - t121;
    for m in 1..=2 {
        cm *= r123.sqrt();
        let sm = sensitivity(m as f64 * opd, m as f64 * phi);
        for c in 0..3 {
            out[c] += cm * 2.0 * sm[c];
        }
    }
    out.map(|v| v.max(0.0))
}

#[test]
fn our_film_against_the_extensions_sample_fresnel() {
    // The extension lets implementations vary the BRDF ("Implementations of the BRDF itself
    // can vary"); its sample Fresnel is an approximation of Belcour & Barla's. Ours (exact
    // polarised Fresnel amplitudes, the whole series, white-balanced sensitivity) against it
    // over IridescenceSuzanne's films and the extension's defaults (a 1.3 film over ior 1.5),
    // dielectric and metal substrates: the figures go to docs/assets.md, "Iridescence".
    let mut rows = Vec::new();
    let (mut worst_normal, mut worst_mid, mut worst_all) = (0.0f64, 0.0f64, 0.0f64);
    for &(film_ior, f0, d) in &[
        (1.33f32, 1.0f32 / 9.0, 400.0f32),
        (1.3, 0.04, 400.0),
        (1.3, 0.04, 250.0),
        (1.8, 0.04, 600.0),
        (1.33, 0.4, 400.0),
    ] {
        let film = ThinFilm::new(d, film_ior, 1.0).unwrap();
        let eta = pfx_bake::materials::film::ior_from_f0(f0);
        for &c in &[1.0f32, 0.8, 0.5, 0.2] {
            let ours = film.reflectance(c, eta);
            let theirs = gltf_sample_fresnel(film_ior as f64, f0 as f64, d as f64, c as f64);
            let diff = (0..3)
                .map(|k| (ours[k] as f64 - theirs[k]).abs())
                .fold(0.0, f64::max);
            if c == 1.0 {
                worst_normal = worst_normal.max(diff);
            }
            if c >= 0.5 {
                worst_mid = worst_mid.max(diff);
            }
            worst_all = worst_all.max(diff);
            rows.push(format!(
                "film {film_ior} over F0 {f0:.3}, {d} nm, cos {c}: ours {ours:.4}, sample [{:.4}, {:.4}, {:.4}]",
                theirs[0], theirs[1], theirs[2]
            ));
        }
    }
    for r in &rows {
        eprintln!("{r}");
    }
    eprintln!(
        "largest difference: head on {worst_normal:.4}, cos ≥ 0.5 {worst_mid:.4}, down to cos \
         0.2 {worst_all:.4}"
    );
    // The same film head on (measured 0.0075: the white balance and the higher orders), and
    // within a few hundredths to 60° (0.055); towards grazing Schlick's interfaces and the
    // two orders part from the exact amplitudes (0.37 at cos 0.2 over the metal's F0 0.4,
    // where the sample's red reaches 0.92).
    assert!(worst_normal < 0.01, "{worst_normal}");
    assert!(worst_mid < 0.07, "{worst_mid}");
    assert!(worst_all < 0.5, "{worst_all}");
}
