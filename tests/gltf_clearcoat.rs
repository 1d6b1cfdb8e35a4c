//! KHR_materials_clearcoat as authored, on the unit quad of `tests/gltf_quad` under a sun:
//! `clearcoatTexture` (R × factor) weights the coat per texel, `clearcoatRoughnessTexture`
//! (G × factor) widens its highlight, `clearcoatNormalTexture` moves the coat's highlight and
//! not the base's (and the base's `normalTexture` moves the base's and not the coat's), a coat
//! over a base colour texture is drawn, and a textured coat over a white base stays below 1
//! under a white sky.
//!
//! Most materials here take a black base of KHR_materials_ior `ior = 1`, which reflects
//! nothing: what the quad shows is the coat alone, whose index stays glTF's 1.5. Under a sun of
//! irradiance π along the normal, seen along it, the coat of weight `w` and roughness `r`
//! (α = r²) shows `π f = w F(1) D(n) G2 / (4 μo μi) · π = w · 0.04 / (4α²)` (D(n) = 1/(πα²),
//! G2 = 1 head on, the exact Fresnel's F(1) = 0.04 at ior 1.5).

use glam::Vec3;
use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene::{Sky, SkyKind};
use pfx_bake::world::World;

mod gltf_quad;
use gltf_quad::*;

/// The highlight of a coat of weight `w` and roughness `r`, head on (see the module's notes).
fn head_on(w: f32, r: f32) -> f32 {
    let alpha = r * r;
    w * 0.04 / (4.0 * alpha * alpha)
}

/// A 2 × 2 texture (nearest, repeating) as the quad file's top-level members.
fn texture(texels: &[[u8; 4]; 4]) -> String {
    format!(
        r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728,"wrapS":10497,"wrapT":10497}}],
"images":[{{"uri":"{}"}}]"#,
        png_uri(2, 2, texels)
    )
}

/// A material of base `base` (`[r, g, b]` JSON, metallic `metallic`, roughness `roughness`),
/// `extensions` (JSON members, without braces) and `more` (members beside
/// `pbrMetallicRoughness`, each with its trailing comma).
fn material(base: &str, metallic: f32, roughness: f32, more: &str, extensions: &str) -> String {
    format!(
        r#"{{"name":"coat",{more}"pbrMetallicRoughness":{{"baseColorFactor":[{base},1],
        "metallicFactor":{metallic},"roughnessFactor":{roughness}}},"extensions":{{{extensions}}}}}"#
    )
}

/// The quad of `m` (with `more`) under the sun towards `toward`: its four quadrants, no asset
/// warnings.
fn quad(m: &str, more: &str, toward: Vec3) -> [Vec3; 4] {
    let (world, img) = render_quad(m, more, toward);
    assert!(
        world.asset_warnings.is_empty(),
        "{:?}",
        world.asset_warnings
    );
    quadrants(&img)
}

/// The mean of the quad's inner pixels (`x`, `y` in 3..21).
fn whole(m: &str, more: &str, toward: Vec3) -> Vec3 {
    let (_, img) = render_quad(m, more, toward);
    mean(&img, 3, 21, 3, 21)
}

const IOR1: &str = r#""KHR_materials_ior":{"ior":1}"#;

/// `clearcoatTexture`'s R (linear) times the factor is the coat's weight at each texel: over
/// a black base, `w · 0.04 / (4α²)` per quadrant (G, B and A varied, which it does not read);
/// over a red plastic a texel of 0 is the uncoated material and one of 255 the untextured
/// coat of the same factor.
#[test]
fn the_coat_texture_weights_the_coat_per_texel() {
    let reds = [0u8, 255, 128, 64];
    let texels = [
        [reds[0], 255, 255, 255],
        [reds[1], 0, 0, 255],
        [reds[2], 40, 200, 128],
        [reds[3], 255, 9, 255],
    ];
    let coat = r#""KHR_materials_clearcoat":{"clearcoatFactor":0.8,"clearcoatRoughnessFactor":0.3,
        "clearcoatTexture":{"index":0}}"#;
    let q = quad(
        &material("0,0,0", 0.0, 0.5, "", &format!("{IOR1},{coat}")),
        &texture(&texels),
        Vec3::Z,
    );
    eprintln!("black base, coat texture R {reds:?}: {q:?}");
    for (i, (got, r)) in q.iter().zip(reds).enumerate() {
        let want = Vec3::splat(head_on(0.8 * f32::from(r) / 255.0, 0.3));
        assert!(
            near(*got, want, 2e-3 * want.x.max(1e-3)),
            "quadrant {i}: {got} vs {want}"
        );
    }
    assert_eq!(q[0], Vec3::ZERO);

    // Over red plastic (ClearCoatTest's first row), under a sun 6° off the normal.
    let toward = Vec3::new(6f32.to_radians().sin(), 0.0, 6f32.to_radians().cos());
    let red = "0.5,0.02,0.01";
    let q = quad(
        &material(red, 0.0, 0.44, "", coat),
        &texture(&texels),
        toward,
    );
    let bare = whole(&material(red, 0.0, 0.44, "", ""), "", toward);
    let full = whole(
        &material(
            red,
            0.0,
            0.44,
            "",
            r#""KHR_materials_clearcoat":{"clearcoatFactor":0.8,"clearcoatRoughnessFactor":0.3}"#,
        ),
        "",
        toward,
    );
    eprintln!("red plastic: quadrants {q:?}, uncoated {bare}, coat of the factor {full}");
    assert!(near(q[0], bare, 1e-4 * bare.x), "{} vs {bare}", q[0]);
    // The per-hit coat has no compensation lobe (docs/materials.md, "Clear coat per hit").
    assert!(
        ((q[1] - full) / full).abs().max_element() < 5e-3,
        "{} vs {full}",
        q[1]
    );
    // The coat adds its highlight in green and blue, where the base is dark.
    assert!(q[1].y > bare.y + 0.1 && q[3].y > bare.y && q[3].y < q[2].y && q[2].y < q[1].y);
}

/// `clearcoatRoughnessTexture`'s G (linear) times the factor is the coat's roughness at each
/// texel: head on, the highlight `0.04 / (4α²)` of each; under a sun 60° off the normal the
/// wider lobes are the brighter ones (the highlight widens: GGX's D·G2 there is 1.7, 12 and
/// 6 times its next smoother texel's), R, B and A not read.
#[test]
fn the_roughness_texture_widens_the_coats_highlight() {
    let greens = [255u8, 128, 64, 40];
    let texels = [
        [0, greens[0], 0, 255],
        [255, greens[1], 255, 10],
        [9, greens[2], 99, 255],
        [128, greens[3], 0, 255],
    ];
    let m = material(
        "0,0,0",
        0.0,
        0.5,
        "",
        &format!(
            r#"{IOR1},"KHR_materials_clearcoat":{{"clearcoatFactor":1,"clearcoatRoughnessFactor":0.9,
        "clearcoatRoughnessTexture":{{"index":0}}}}"#
        ),
    );
    let more = texture(&texels);
    let q = quad(&m, &more, Vec3::Z);
    eprintln!("head on, roughness G {greens:?}: {q:?}");
    for (i, (got, g)) in q.iter().zip(greens).enumerate() {
        let want = Vec3::splat(head_on(1.0, 0.9 * f32::from(g) / 255.0));
        assert!(
            near(*got, want, 2e-3 * want.x),
            "quadrant {i}: {got} vs {want}"
        );
    }
    let toward = Vec3::new(60f32.to_radians().sin(), 0.0, 60f32.to_radians().cos());
    let q = quad(&m, &more, toward);
    eprintln!("60° off: {q:?}");
    for i in 0..3 {
        assert!(
            q[i].x > 1.5 * q[i + 1].x,
            "quadrant {i}: {} vs {}",
            q[i],
            q[i + 1]
        );
    }
}

/// A coat's own normal (`clearcoatNormalTexture`) moves the coat's highlight and not the
/// base's; the base's `normalTexture` moves the base's and not the coat's (the coat keeps the
/// geometry's normal, as the extension says). The base is a red metal (F0 = (1, 0, 0),
/// roughness 0.3): green is the coat's alone, red less green the base's. The texture's right
/// column leans 15° towards +X (the tangent), its left is flat.
#[test]
fn the_coats_normal_moves_the_coats_highlight_and_not_the_bases() {
    let flat = [128u8, 128, 255, 255];
    let phi = 15f32.to_radians();
    let byte = |v: f32| ((v * 0.5 + 0.5) * 255.0).round() as u8;
    let lean = [byte(phi.sin()), 128, byte(phi.cos()), 255];
    let more = texture(&[flat, lean, flat, lean]);
    // The texel's own normal, and the sun mirrored about it from the view (+Z).
    let n = (Vec3::new(f32::from(lean[0]), f32::from(lean[1]), f32::from(lean[2])) / 255.0 * 2.0
        - Vec3::ONE)
        .normalize();
    let mirrored = 2.0 * n.z * n - Vec3::Z;
    let coat = r#""KHR_materials_clearcoat":{"clearcoatFactor":1,"clearcoatRoughnessFactor":0.2"#;
    let render = |slot_on_coat: bool, toward: Vec3| {
        let (m_more, ext) = if slot_on_coat {
            (
                String::new(),
                format!(r#"{coat},"clearcoatNormalTexture":{{"index":0,"scale":1}}}}"#),
            )
        } else {
            (
                r#""normalTexture":{"index":0},"#.to_string(),
                format!("{coat}}}"),
            )
        };
        let m = material("1,0,0", 1.0, 0.3, &m_more, &ext);
        let dir = tempfile::tempdir().unwrap();
        let quad = write_quad(
            dir.path(),
            "quad",
            &m,
            &more,
            None,
            Some([1.0, 0.0, 0.0, 1.0]),
        );
        let s = scene(
            dir.path(),
            &[("quad", &quad)],
            vec![object("card", "quad")],
            Some(sun(toward)),
        );
        let (world, img) = pfx_bake_render(&s);
        assert!(
            world.asset_warnings.is_empty(),
            "{:?}",
            world.asset_warnings
        );
        let q = quadrants(&img);
        // (coat, base) per column: left flat, right leaning.
        let split = |c: Vec3| (c.y, c.x - c.y);
        (split((q[0] + q[2]) * 0.5), split((q[1] + q[3]) * 0.5))
    };
    // The coat's own normal.
    let ((coat_flat, base_flat), (coat_lean, base_lean)) = render(true, Vec3::Z);
    eprintln!(
        "coat normal, sun head on: coat {coat_flat} / {coat_lean}, base {base_flat} / {base_lean}"
    );
    assert!(coat_lean < 0.1 * coat_flat, "{coat_lean} vs {coat_flat}");
    assert!(
        (base_lean - base_flat).abs() < 0.05 * base_flat,
        "{base_lean} vs {base_flat}"
    );
    let ((coat_flat, _), (coat_lean, _)) = render(true, mirrored);
    eprintln!("coat normal, sun mirrored about it: coat {coat_flat} / {coat_lean}");
    assert!(coat_lean > 10.0 * coat_flat, "{coat_lean} vs {coat_flat}");
    // The base's normal: the coat stays with the geometry.
    let ((coat_flat, base_flat), (coat_lean, base_lean)) = render(false, Vec3::Z);
    eprintln!(
        "base normal, sun head on: coat {coat_flat} / {coat_lean}, base {base_flat} / {base_lean}"
    );
    assert!(
        (coat_lean - coat_flat).abs() < 0.05 * coat_flat,
        "{coat_lean} vs {coat_flat}"
    );
    assert!(base_lean < 0.2 * base_flat, "{base_lean} vs {base_flat}");
}

/// Renders `s` (4 spp, direct light), as `gltf_quad::render_quad` does.
fn pfx_bake_render(s: &pfx_bake::scene::Scene) -> (World, Image) {
    render(s, 4, 2)
}

/// A coat over a base colour texture (drawn uncoated before): each quadrant is the coated
/// material of that texel's colour as a factor, within the per-hit coat's missing
/// compensation.
#[test]
fn a_coat_over_a_base_colour_texture_is_drawn() {
    let texels = [
        [255, 255, 255, 255],
        [255, 0, 0, 255],
        [0, 0, 255, 255],
        [128, 128, 128, 255],
    ];
    let coat = r#""KHR_materials_clearcoat":{"clearcoatFactor":1,"clearcoatRoughnessFactor":0.3}"#;
    let toward = Vec3::new(0.1, 0.05, 1.0).normalize();
    let m = format!(
        r#"{{"name":"decal","pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}},
        "metallicFactor":0,"roughnessFactor":0.5}},"extensions":{{{coat}}}}}"#
    );
    let q = quad(&m, &texture(&texels), toward);
    for (i, (got, t)) in q.iter().zip(texels).enumerate() {
        let c = format!("{},{},{}", srgb(t[0]), srgb(t[1]), srgb(t[2]));
        let want = whole(&material(&c, 0.0, 0.5, "", coat), "", toward);
        let bare = whole(&material(&c, 0.0, 0.5, "", ""), "", toward);
        eprintln!("texel {t:?}: {got} vs coated {want}, uncoated {bare}");
        assert!(
            ((*got - want) / want.max(Vec3::splat(0.01)))
                .abs()
                .max_element()
                < 5e-3,
            "quadrant {i}: {got} vs {want}"
        );
        // The coat's highlight (about 0.6 here) over what it takes from the base.
        assert!(
            (*got - bare).min_element() > 0.2,
            "quadrant {i}: {got} vs {bare}"
        );
    }
}

/// A white plastic under a coat whose weight is textured (0, ¼, ½, 1) and a smooth roughness,
/// under a uniform white sky of radiance 1, seen head on, direct light only: each quadrant
/// reads the BSDF's albedo, which never exceeds 1 (beyond four standard errors) and loses
/// little.
#[test]
fn a_textured_coat_over_white_never_exceeds_one() {
    let dir = tempfile::tempdir().unwrap();
    let hdr = dir.path().join("white.hdr");
    let file = std::fs::File::create(&hdr).unwrap();
    image::codecs::hdr::HdrEncoder::new(file)
        .encode(&[image::Rgb([1.0f32; 3]); 8], 4, 2)
        .unwrap();
    let weights = [0u8, 64, 128, 255];
    let texels = weights.map(|w| [w, 255, 255, 255]);
    for roughness in [0.05f32, 0.5] {
        let m = material(
            "1,1,1",
            0.0,
            0.5,
            "",
            &format!(
                r#""KHR_materials_clearcoat":{{"clearcoatFactor":1,"clearcoatRoughnessFactor":{roughness},
            "clearcoatTexture":{{"index":0}}}}"#
            ),
        );
        let quad = write_quad(dir.path(), "quad", &m, &texture(&texels), None, None);
        let mut s = scene(
            dir.path(),
            &[("quad", &quad)],
            vec![object("card", "quad")],
            None,
        );
        s.sky = Some(Sky {
            kind: SkyKind::Hdr,
            path: Some(hdr.clone()),
            rotation_deg: 0.0,
            intensity: 1.0,
            ..Default::default()
        });
        let world = World::build(&s, [SIZE, SIZE]).unwrap_or_else(|e| panic!("{:#?}", e.0));
        let img = integrator::render(
            &world,
            &Settings {
                spp: 256,
                max_depth: 2,
                seed: 11,
                ..Settings::default()
            },
            &NoProgress,
        );
        let boxes = [
            (3, 11, 3, 11),
            (13, 21, 3, 11),
            (3, 11, 13, 21),
            (13, 21, 13, 21),
        ];
        for ((x0, x1, y0, y1), w) in boxes.into_iter().zip(weights) {
            let px: Vec<f64> = (y0..y1)
                .flat_map(|y| (x0..x1).map(move |x| (x, y)))
                .map(|(x, y)| img.radiance[(y * img.width + x) as usize].max_element() as f64)
                .collect();
            let n = px.len() as f64;
            let m = px.iter().sum::<f64>() / n;
            let se = (px.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0) / n).sqrt();
            eprintln!("coat r {roughness}, weight {w}: albedo {m:.4} ± {se:.4}");
            assert!(m <= 1.0 + 4.0 * se, "r {roughness}, w {w}: {m} ± {se}");
            assert!(m > 0.97, "r {roughness}, w {w}: {m}");
        }
    }
}
