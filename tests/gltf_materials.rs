//! glTF materials drawn as themselves (no library entry, no `fallback`): small orthographic
//! renders of unit quads whose pixels are checked against values computed here, by hand,
//! from the glTF spec's definitions. Each test fails when the parameter it is about is
//! dropped (the bake before this change drew every such material as the same grey).
//!
//! The quad (`tests/gltf_quad`, shared with tests/gltf_clearcoat.rs) is a glTF file written
//! into a temporary folder: half-size 1 in the z = 0 plane, facing +Z, TEXCOORD_0 from (0, 0)
//! at its top-left corner (-1, 1) to (1, 1) at its bottom-right (1, -1). The camera looks down
//! −Z from z = 5 with a view 2.4 units high: on a 24 × 24 image each pixel is 0.1 units and
//! the quad spans pixels 2..22. Most materials take
//! KHR_materials_ior `ior = 1`, which removes the dielectric reflection (F0 = 0), so that a
//! dielectric is exactly Lambertian: under a sun of irradiance π along the normal its radiance
//! is its base colour.

use std::path::Path;

use glam::Vec3;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene;
use pfx_bake::world::World;

mod gltf_quad;
use gltf_quad::*;

const IOR1: &str = r#""extensions":{"KHR_materials_ior":{"ior":1}}"#;

#[test]
fn the_base_colour_factor_is_drawn_and_the_material_named() {
    let m = format!(
        r#"{{"name":"paint","pbrMetallicRoughness":{{"baseColorFactor":[0.8,0.3,0.1,1],"metallicFactor":0}},{IOR1}}}"#
    );
    let (world, img) = render_quad(&m, "", Vec3::Z);
    // A Lambertian of base (0.8, 0.3, 0.1) facing a sun of irradiance π: radiance = base.
    let got = mean(&img, 3, 21, 3, 21);
    assert!(near(got, Vec3::new(0.8, 0.3, 0.1), 2e-3), "{got}");
    let named: Vec<_> = world
        .capabilities
        .iter()
        .filter(|c| c.what.starts_with("gltf material "))
        .collect();
    assert_eq!(named.len(), 1, "{:#?}", world.capabilities);
    let msg = &named[0].message;
    assert!(
        msg.starts_with("glTF material 'paint' of ")
            && msg.contains("quad.gltf is drawn from its own parameters"),
        "{msg}"
    );
}

/// KHR_materials_specular under a sun along the normal, seen along it: a dielectric of
/// roughness 0.3 (α = 0.09) shows its highlight `π f = F0 · w / (4α²)` (D(n) = 1/(πα²), G2 = 1
/// head on, the exact Fresnel's F(1) = F0), so a black base reads `w · F0_c / (4α²)` per
/// channel: 1.2346 at glTF's F0 0.04; `specularFactor` 0 removes it (a grey base then reads its
/// Lambertian albedo alone), 0.5 halves it, and `specularColorFactor` tints it per channel.
#[test]
fn specular_factor_weights_the_highlight_and_its_colour_tints_it() {
    let quad = |base: f32, specular: &str| {
        let m = format!(
            r#"{{"name":"gloss","pbrMetallicRoughness":{{"baseColorFactor":[{base},{base},{base},1],
            "metallicFactor":0,"roughnessFactor":0.3}}{specular}}}"#
        );
        let (_, img) = render_quad(&m, "", Vec3::Z);
        mean(&img, 3, 21, 3, 21)
    };
    let ext = |body: &str| format!(r#","extensions":{{"KHR_materials_specular":{{{body}}}}}"#);
    let highlight = 0.04 / (4.0 * 0.09 * 0.09);
    let bare = quad(0.0, "");
    assert!(
        near(bare, Vec3::splat(highlight), 2e-3 * highlight),
        "{bare} vs {highlight}"
    );
    let half = quad(0.0, &ext(r#""specularFactor":0.5"#));
    assert!(near(half, bare * 0.5, 1e-5), "{half} vs {bare}");
    let tinted = quad(0.0, &ext(r#""specularColorFactor":[1,0.5,0]"#));
    assert!(
        near(tinted, bare * Vec3::new(1.0, 0.5, 0.0), 1e-5),
        "{tinted} vs {bare}"
    );
    // A colour above 1 raises F0 up to the clamp: 0.04 · 10 = 0.4.
    let bright = quad(0.0, &ext(r#""specularColorFactor":[10,1,1]"#));
    assert!(
        near(bright, bare * Vec3::new(10.0, 1.0, 1.0), 1e-4),
        "{bright} vs {bare}"
    );
    // Factor 0 over a grey base: the highlight is gone, the base is Lambertian.
    let grey = quad(0.2, "");
    assert!(grey.x > 0.2 + 0.9 * highlight, "{grey}");
    let matte = quad(
        0.2,
        &ext(r#""specularFactor":0,"specularColorFactor":[1,0,0]"#),
    );
    assert!(near(matte, Vec3::splat(0.2), 1e-4), "{matte}");
}

/// KHR_materials_sheen under a grazing sun (75° from the normal), seen head on: the quad's
/// radiance is `π cos θi f(wo, wi)` of the sheen layer (`Sheened` of the glTF colour and
/// roughness over the `plain`), so a black, index-matched base that shows nothing bare shows
/// the coloured sheen lobe, and a dark base is brighter with the sheen than without by what
/// the lobe adds less what its albedo takes from the base.
#[test]
fn a_sheen_brightens_a_quad_lit_at_grazing_angles_by_its_lobe() {
    use pfx_bake::materials::{Bxdf, Plain, Sheened};
    let theta = 75f32.to_radians();
    let toward = Vec3::new(theta.sin(), 0.0, theta.cos());
    let quad = |base: f32, sheen: &str| {
        let m = format!(
            r#"{{"name":"velvet","pbrMetallicRoughness":{{"baseColorFactor":[{base},{base},{base},1],
            "metallicFactor":0,"roughnessFactor":0.8}},"extensions":{{"KHR_materials_ior":{{"ior":1}}{sheen}}}}}"#
        );
        let (_, img) = render_quad(&m, "", toward);
        mean(&img, 3, 21, 3, 21)
    };
    let sheen =
        r#","KHR_materials_sheen":{"sheenColorFactor":[1,0.5,0.2],"sheenRoughnessFactor":0.7}"#;
    let color = Vec3::new(1.0, 0.5, 0.2);
    let wi = Vec3::new(theta.sin(), 0.0, theta.cos());
    let expect = |base: f32| {
        let s = Sheened::new(
            Plain::new(Vec3::splat(base), 0.8, 0.0, 0.0),
            1.0,
            color,
            0.7,
        );
        s.f(Vec3::Z, wi) * std::f32::consts::PI * theta.cos()
    };
    let bare = quad(0.0, "");
    assert!(bare.max_element() < 1e-6, "{bare}");
    let black = quad(0.0, sheen);
    let want = expect(0.0);
    assert!(want.x > 0.03, "{want}");
    assert!(near(black, want, 2e-3 * want.x), "{black} vs {want}");
    // The lobe is the colour's: the channels keep its ratios.
    assert!(near(black / black.x, color, 1e-4), "{black}");
    // A dark base: the lobe adds more than the albedo scaling `min(1 − mE(μo), 1 − mE(μi))`
    // takes from it (over a light base the sheen, seen head on, darkens it: glTF's coupling).
    let grey = quad(0.1, "");
    let grey_sheen = quad(0.1, sheen);
    let want = expect(0.1);
    assert!(
        near(grey_sheen, want, 2e-3 * want.x),
        "{grey_sheen} vs {want}"
    );
    assert!(
        grey_sheen.x > grey.x + 0.5 * black.x,
        "{grey_sheen} vs {grey}"
    );
}

/// The Khronos Box (tests/data/gltf/Box, CC-BY-4.0): its material "Red" is base colour
/// (0.8, 0, 0). A copy whose factor is (0, 0.8, 0) bakes to the same numbers with red and
/// green swapped: the model treats the channels alike, so the swap is exact.
#[test]
fn red_and_green_boxes_bake_to_their_own_colours() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gltf/Box/Box.glb");
    let red = std::fs::read(&file).unwrap();
    let (from, to) = (
        "\"baseColorFactor\":[0.800000011920929,0.0,0.0,1.0]",
        "\"baseColorFactor\":[0.0,0.800000011920929,0.0,1.0]",
    );
    let at = red
        .windows(from.len())
        .position(|w| w == from.as_bytes())
        .expect("Box.glb's base colour");
    let mut green = red.clone();
    green[at..at + to.len()].copy_from_slice(to.as_bytes());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("red.glb"), &red).unwrap();
    std::fs::write(dir.path().join("green.glb"), &green).unwrap();
    let bake = |f: &str| {
        let s = scene(
            dir.path(),
            &[("box", Path::new(f))],
            vec![object("box", "box")],
            Some(sun(Vec3::new(0.3, 0.4, 1.0))),
        );
        render(&s, 8, 4).1
    };
    let (r, g) = (bake("red.glb"), bake("green.glb"));
    let (mr, mg) = (mean(&r, 9, 15, 9, 15), mean(&g, 9, 15, 9, 15));
    // Red: the red channel carries the diffuse base, green and blue only the 4 % white
    // specular of the dielectric layer.
    assert!(
        mr.x > 0.3 && mr.x > 8.0 * mr.y && (mr.y - mr.z).abs() < 1e-6,
        "{mr}"
    );
    assert_eq!((mr.x, mr.y, mr.z), (mg.y, mg.x, mg.z), "{mr} {mg}");
}

#[test]
fn a_base_colour_texture_is_decoded_as_srgb_and_transformed() {
    let texels = [
        [200, 40, 10, 255],
        [255, 128, 0, 255],
        [0, 64, 255, 255],
        [90, 90, 90, 255],
    ];
    let more = format!(
        r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728,"wrapS":10497,"wrapT":10497}}],
"images":[{{"uri":"{}"}}]"#,
        png_uri(2, 2, &texels)
    );
    let decode = |t: [u8; 4]| Vec3::new(srgb(t[0]), srgb(t[1]), srgb(t[2]));
    let m = format!(
        r#"{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}},"metallicFactor":0}},{IOR1}}}"#
    );
    let (_, img) = render_quad(&m, &more, Vec3::Z);
    let q = quadrants(&img);
    for (i, (got, t)) in q.iter().zip(texels).enumerate() {
        assert!(
            near(*got, decode(t), 2e-3),
            "quadrant {i}: {got} vs {}",
            decode(t)
        );
    }
    // Read linearly the top-left would be (0.78, 0.16, 0.04): the decode matters.
    assert!((q[0].y - 40.0 / 255.0).abs() > 0.1);
    // KHR_texture_transform's offset (0.5, 0) under REPEAT swaps the columns.
    let m = format!(
        r#"{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0,"extensions":{{"KHR_texture_transform":{{"offset":[0.5,0]}}}}}},"metallicFactor":0}},{IOR1}}}"#
    );
    let (_, img) = render_quad(&m, &more, Vec3::Z);
    let q = quadrants(&img);
    for (got, t) in q.iter().zip([texels[1], texels[0], texels[3], texels[2]]) {
        assert!(near(*got, decode(t), 2e-3), "{got} vs {}", decode(t));
    }
}

#[test]
fn vertex_colours_multiply_the_base_colour() {
    let dir = tempfile::tempdir().unwrap();
    let m = format!(
        r#"{{"pbrMetallicRoughness":{{"baseColorFactor":[0.8,0.8,0.8,1],"metallicFactor":0}},{IOR1}}}"#
    );
    let quad = write_quad(
        dir.path(),
        "quad",
        &m,
        "",
        Some([0.5, 0.25, 1.0, 1.0]),
        None,
    );
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![object("card", "quad")],
        Some(sun(Vec3::Z)),
    );
    let (_, img) = render(&s, 4, 2);
    let got = mean(&img, 3, 21, 3, 21);
    assert!(near(got, Vec3::new(0.4, 0.2, 0.8), 2e-3), "{got}");
    // The Khronos BoxVertexColors (tests/data/gltf, CC0) bakes in its vertex colours: its
    // faces are not grey.
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gltf/BoxVertexColors/BoxVertexColors.glb");
    let s = scene(
        dir.path(),
        &[("box", &file)],
        vec![object("box", "box")],
        Some(sun(Vec3::new(0.2, 0.3, 1.0))),
    );
    let (_, img) = render(&s, 4, 2);
    let c = mean(&img, 9, 15, 9, 15);
    assert!(c.max_element() - c.min_element() > 0.05, "{c}");
}

/// The metallicRoughness texture's B is metalness and G roughness: each half of the quad
/// bakes to exactly what a library `plain` of the same parameters bakes to (the mapping of
/// docs/assets.md), and the metal half differs from the dielectric half.
#[test]
fn metallic_roughness_texture_maps_onto_plain() {
    let more = format!(
        r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728,"wrapS":33071,"wrapT":33071}}],
"images":[{{"uri":"{}"}}]"#,
        png_uri(2, 1, &[[0, 255, 0, 255], [0, 255, 255, 255]])
    );
    let base = [0.9f32, 0.6, 0.3];
    let m = format!(
        r#"{{"pbrMetallicRoughness":{{"baseColorFactor":[{},{},{},1],"metallicFactor":1,"roughnessFactor":0.5,"metallicRoughnessTexture":{{"index":0}}}}}}"#,
        base[0], base[1], base[2]
    );
    let toward = Vec3::new(0.4, 0.1, 1.0);
    let (_, img) = render_quad(&m, &more, toward);
    let library = |metalness: f32| {
        let dir = tempfile::tempdir().unwrap();
        let quad = write_quad(dir.path(), "quad", r#"{"name":"x"}"#, "", None, None);
        let mut o = object("card", "quad");
        o.material = Some("lib".into());
        let mut s = scene(dir.path(), &[("quad", &quad)], vec![o], Some(sun(toward)));
        s.materials = vec![scene::Material {
            key: "lib".into(),
            base,
            roughness: 0.5,
            metalness,
            specular: 0.04,
            fresnel_power: 5.0,
            ..Default::default()
        }];
        render(&s, 4, 2).1
    };
    let (dielectric, metal) = (library(0.0), library(1.0));
    let (l, r) = (mean(&img, 3, 11, 3, 21), mean(&img, 13, 21, 3, 21));
    let (ld, rm) = (mean(&dielectric, 3, 11, 3, 21), mean(&metal, 13, 21, 3, 21));
    assert!(near(l, ld, 1e-5), "{l} {ld}");
    assert!(near(r, rm, 1e-5), "{r} {rm}");
    assert!((l - r).abs().max_element() > 0.05, "{l} {r}");
}

#[test]
fn emissive_strength_scales_the_plate_linearly() {
    let bake = |strength: f32, texture: bool| {
        let more = format!(
            r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728}}],"images":[{{"uri":"{}"}}]"#,
            png_uri(1, 1, &[[128, 255, 64, 255]])
        );
        let tex = if texture {
            r#","emissiveTexture":{"index":0}"#
        } else {
            ""
        };
        let m = format!(
            r#"{{"emissiveFactor":[0.2,0.4,0.6]{tex},"pbrMetallicRoughness":{{"baseColorFactor":[0,0,0,1]}},
"extensions":{{"KHR_materials_emissive_strength":{{"emissiveStrength":{strength}}}}}}}"#
        );
        let dir = tempfile::tempdir().unwrap();
        let quad = write_quad(dir.path(), "quad", &m, &more, None, None);
        let s = scene(
            dir.path(),
            &[("quad", &quad)],
            vec![object("card", "quad")],
            None,
        );
        mean(&render(&s, 2, 2).1, 3, 21, 3, 21)
    };
    let e = Vec3::new(0.2, 0.4, 0.6);
    for s in [1.0, 2.5, 7.0] {
        let got = bake(s, false);
        assert!(near(got, e * s, 1e-5 * s), "strength {s}: {got}");
    }
    // The emissive texture (sRGB) multiplies the factor, per hit.
    let t = Vec3::new(srgb(128), srgb(255), srgb(64));
    let got = bake(3.0, true);
    assert!(near(got, e * t * 3.0, 1e-4), "{got} vs {}", e * t * 3.0);
    // The Khronos EmissiveStrengthTest (tests/data/gltf, CC-BY-4.0): Emit1/2/4 share one
    // factor, times their strengths.
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gltf/EmissiveStrengthTest/EmissiveStrengthTest.glb");
    let a = pfx_bake::assets::load_gltf(&file, None).unwrap();
    let emit = |label: &str| {
        a.materials
            .iter()
            .find(|m| m.label == label)
            .unwrap_or_else(|| panic!("{label}"))
            .emissive
    };
    let one = emit("material 'Emit1'");
    for (label, k) in [("material 'Emit2'", 2.0), ("material 'Emit4'", 4.0)] {
        let e = emit(label);
        for c in 0..3 {
            assert!(
                (e[c] - one[c] * k).abs() < 1e-6,
                "{label}: {e:?} vs {one:?}"
            );
        }
    }
    assert!(one[2] > 0.8);
}

/// A 1 × 1 normal texture encoding the unit tangent-space normal `n`.
fn normal_texel(n: Vec3) -> ([u8; 4], Vec3) {
    let b = ((n + Vec3::ONE) * 0.5 * 255.0).round();
    let texel = [b.x as u8, b.y as u8, b.z as u8, 255];
    // What those bytes decode to: (2 · byte/255 − 1), normalised.
    let decoded = (b / 255.0 * 2.0 - Vec3::ONE).normalize();
    (texel, decoded)
}

/// A normal texture leaning 30° towards the tangent (+u, world +X) or the bitangent (up the
/// image, world +Y): a Lambertian of base 1 under a sun of irradiance π towards `l` has
/// radiance n · l with the bent normal n, which is near 1 when the sun leans the same way
/// and cos 60° = 0.5 when it leans the other way.
#[test]
fn a_normal_texture_bends_shading_along_its_tangent_frame() {
    let s30 = 0.5f32;
    let c30 = 0.75f32.sqrt();
    let bake = |lean: Vec3, scale: f32, toward: Vec3, tangent: Option<[f32; 4]>| {
        let (texel, decoded) = normal_texel(lean);
        let more = format!(
            r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728}}],"images":[{{"uri":"{}"}}]"#,
            png_uri(1, 1, &[texel])
        );
        let m = format!(
            r#"{{"normalTexture":{{"index":0,"scale":{scale}}},"pbrMetallicRoughness":{{"metallicFactor":0}},{IOR1}}}"#
        );
        let dir = tempfile::tempdir().unwrap();
        let quad = write_quad(dir.path(), "quad", &m, &more, None, tangent);
        let s = scene(
            dir.path(),
            &[("quad", &quad)],
            vec![object("card", "quad")],
            Some(sun(toward)),
        );
        (mean(&render(&s, 2, 2).1, 3, 21, 3, 21).y, decoded)
    };
    let x = Vec3::new(s30, 0.0, c30);
    let y = Vec3::new(0.0, s30, c30);
    let mirror_x = Vec3::new(-s30, 0.0, c30);
    let mirror_y = Vec3::new(0.0, -s30, c30);
    // Generated (MikkTSpace) tangents: the texel's X is world +X, its Y world +Y.
    for (lean, toward) in [(x, x), (x, mirror_x), (y, y), (y, mirror_y)] {
        let (got, n) = bake(lean, 1.0, toward, None);
        let want = n.dot(toward);
        assert!(
            (got - want).abs() < 2e-3,
            "lean {lean} sun {toward}: {got} vs {want}"
        );
    }
    assert!((bake(x, 1.0, x, None).0 - bake(x, 1.0, mirror_x, None).0).abs() > 0.4);
    // The file's TANGENT is used as written: a tangent along −X turns the texel's X round.
    let (got, n) = bake(x, 1.0, mirror_x, Some([-1.0, 0.0, 0.0, 1.0]));
    let want = Vec3::new(-n.x, -n.y, n.z).dot(mirror_x);
    assert!((got - want).abs() < 2e-3, "{got} vs {want}");
    // scale 0 flattens the texture's X and Y: the plain normal, n · l = cos 30°.
    let (got, _) = bake(x, 0.0, x, None);
    assert!((got - c30).abs() < 2e-3, "{got}");
}

#[test]
fn blend_is_stochastic_transparency_with_coverage_alpha() {
    let dir = tempfile::tempdir().unwrap();
    let m = format!(
        r#"{{"alphaMode":"BLEND","pbrMetallicRoughness":{{"baseColorFactor":[1,1,1,0.25],"metallicFactor":0}},{IOR1}}}"#
    );
    let quad = write_quad(dir.path(), "quad", &m, "", None, None);
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![object("card", "quad")],
        Some(sun(Vec3::Z)),
    );
    let (_, img) = render(&s, 64, 2);
    let (mut cov, mut n) = (0.0, 0);
    for y in 3..21 {
        for x in 3..21 {
            cov += img.coverage[(y * SIZE + x) as usize];
            n += 1;
        }
    }
    let cov = cov / n as f32;
    // 324 pixels × 64 samples of a Bernoulli(0.25): the mean's standard deviation is 0.003.
    assert!((cov - 0.25).abs() < 0.015, "coverage {cov}");
    // The same bake twice gives the same bytes: the numbers are hashes of the points.
    let (_, again) = render(&s, 64, 2);
    assert_eq!(img.coverage, again.coverage);
    assert_eq!(img.radiance, again.radiance);
}

/// MASK: the file's `alphaCutoff` decides unless the object writes its own `alpha_cutoff`.
#[test]
fn mask_cuts_at_the_files_cutoff_unless_the_object_sets_one() {
    let dir = tempfile::tempdir().unwrap();
    let m = format!(
        r#"{{"alphaMode":"MASK","alphaCutoff":0.3,"pbrMetallicRoughness":{{"baseColorFactor":[1,1,1,0.4],"metallicFactor":0}},{IOR1}}}"#
    );
    let quad = write_quad(dir.path(), "quad", &m, "", None, None);
    let covered = |cutoff: f32| {
        let mut o = object("card", "quad");
        o.alpha_cutoff = cutoff;
        let s = scene(dir.path(), &[("quad", &quad)], vec![o], Some(sun(Vec3::Z)));
        let (world, img) = render(&s, 1, 2);
        (
            img.coverage[(12 * SIZE + 12) as usize],
            world.asset_warnings,
        )
    };
    // Alpha 0.4 ≥ the file's 0.3: kept, and nothing to say.
    let (c, w) = covered(0.5);
    assert_eq!(c, 1.0);
    assert!(w.iter().all(|w| !w.contains("alphaCutoff")), "{w:?}");
    // The object's 0.6 wins, and the bake says the file's is not used.
    let (c, w) = covered(0.6);
    assert_eq!(c, 0.0);
    assert!(
        w.iter()
            .any(|w| w.contains("its alphaCutoff 0.3 is not used")),
        "{w:?}"
    );
}

#[test]
fn undrawn_extensions_are_named_once_per_file() {
    let dir = tempfile::tempdir().unwrap();
    // KHR_materials_anisotropy and KHR_materials_diffuse_transmission are not drawn yet
    // (docs/assets.md; KHR_materials_iridescence, this test's first subject, is drawn since
    // tests/gltf_iridescence.rs).
    let m = r#"{"name":"beetle","extensions":{"KHR_materials_diffuse_transmission":{"diffuseTransmissionFactor":1},"KHR_materials_anisotropy":{}}},
{"name":"beetle2","extensions":{"KHR_materials_diffuse_transmission":{}}}"#;
    let quad = write_quad(dir.path(), "quad", m, "", None, None);
    // Two objects on the mesh: the file is read once and its notes given once.
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![object("a", "quad"), object("b", "quad")],
        Some(sun(Vec3::Z)),
    );
    let (world, _) = render(&s, 1, 2);
    let count = |needle: &str| {
        world
            .asset_warnings
            .iter()
            .filter(|w| w.contains(needle))
            .count()
    };
    assert_eq!(
        count(
            "quad.gltf: KHR_materials_diffuse_transmission is not rendered yet (first met on \
             material 'beetle')"
        ),
        1,
        "{:?}",
        world.asset_warnings
    );
    assert_eq!(count("KHR_materials_anisotropy is not rendered yet"), 1);
}

/// KHR_materials_unlit: the quad shows `baseColorFactor × baseColorTexture (sRGB) × COLOR_0`
/// as radiance, the same whether the sun faces it, is behind it or is absent; what the
/// extension makes meaningless (emission, the metallic-roughness inputs) has no effect and is
/// named once.
#[test]
fn an_unlit_material_shows_factor_times_texture_times_colour_under_any_light() {
    let texels = [
        [200, 40, 10, 255],
        [255, 128, 0, 255],
        [0, 64, 255, 255],
        [90, 90, 90, 255],
    ];
    let more = format!(
        r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728,"wrapS":10497,"wrapT":10497}}],
"images":[{{"uri":"{}"}}]"#,
        png_uri(2, 2, &texels)
    );
    let m = r#"{"name":"flat","pbrMetallicRoughness":{"baseColorFactor":[0.5,1,0.8,1],"baseColorTexture":{"index":0},"metallicFactor":1,"roughnessFactor":0.2},"emissiveFactor":[1,1,1],"extensions":{"KHR_materials_unlit":{}}}"#;
    let colour = [1.0, 0.5, 0.25, 1.0];
    let factor = Vec3::new(0.5, 1.0, 0.8);
    let want: Vec<Vec3> = texels
        .iter()
        .map(|t| factor * Vec3::new(srgb(t[0]), srgb(t[1]), srgb(t[2])) * Vec3::new(1.0, 0.5, 0.25))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let quad = write_quad(dir.path(), "quad", m, &more, Some(colour), None);
    for light in [Some(Vec3::Z), Some(Vec3::new(0.3, 0.2, -1.0)), None] {
        let s = scene(
            dir.path(),
            &[("quad", &quad)],
            vec![object("card", "quad")],
            light.map(sun),
        );
        let (world, img) = render(&s, 4, 4);
        for (i, (got, want)) in quadrants(&img).iter().zip(&want).enumerate() {
            assert!(
                near(*got, *want, 1e-4),
                "sun {light:?}, quadrant {i}: {got} vs {want}"
            );
        }
        assert!(world.trace.lights.len() <= 1, "the unlit quad made lights");
        let named: Vec<_> = world
            .asset_warnings
            .iter()
            .filter(|w| w.contains("KHR_materials_unlit"))
            .collect();
        assert_eq!(named.len(), 1, "{:?}", world.asset_warnings);
        assert!(
            named[0].contains("emissiveFactor have no effect on an unlit material"),
            "{}",
            named[0]
        );
    }
}

/// An unlit material glows and lights nothing: a large unlit quad behind the camera, facing a
/// white Lambertian quad in a scene with no light, leaves that quad black, where the same
/// quad with an emissive material of the same colour lights it (the test can fail).
#[test]
fn an_unlit_material_lights_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let white = write_quad(
        dir.path(),
        "white",
        &format!(
            r#"{{"pbrMetallicRoughness":{{"baseColorFactor":[1,1,1,1],"metallicFactor":0}},{IOR1}}}"#
        ),
        "",
        None,
        None,
    );
    let unlit = write_quad(
        dir.path(),
        "unlit",
        r#"{"pbrMetallicRoughness":{"baseColorFactor":[1,1,1,1]},"extensions":{"KHR_materials_unlit":{}}}"#,
        "",
        None,
        None,
    );
    let emissive = write_quad(
        dir.path(),
        "emissive",
        r#"{"pbrMetallicRoughness":{"baseColorFactor":[0,0,0,1],"metallicFactor":0},"emissiveFactor":[1,1,1]}"#,
        "",
        None,
        None,
    );
    let lit_by = |lamp: &Path| {
        let behind = scene::Object {
            at: [0.0, 0.0, 6.0],
            rotate: [0.0, 180.0, 0.0],
            scale: [4.0, 4.0, 1.0],
            ..object("lamp", "lamp")
        };
        let s = scene(
            dir.path(),
            &[("white", &white), ("lamp", lamp)],
            vec![object("card", "white"), behind],
            None,
        );
        let (world, img) = render(&s, 16, 4);
        (world.trace.lights.len(), mean(&img, 3, 21, 3, 21))
    };
    let (lights, seen) = lit_by(&unlit);
    assert_eq!(lights, 0, "an unlit surface is no light");
    assert_eq!(seen, Vec3::ZERO, "the unlit quad lit the white one");
    let (lights, seen) = lit_by(&emissive);
    assert!(lights > 0);
    assert!(seen.min_element() > 0.2, "the emissive control: {seen}");
}

/// The denoiser's albedo auxiliary of a textured glTF material is the texel's colour at the
/// hit, as the path tracer shades it, not the material's factor (docs/rendering.md,
/// "Denoising"): the four quadrants of a 2 × 2 base colour texture read their own decoded
/// texels.
#[test]
fn the_denoisers_albedo_reads_the_base_colour_texture() {
    let texels = [
        [200, 40, 10, 255],
        [255, 128, 0, 255],
        [0, 64, 255, 255],
        [90, 90, 90, 255],
    ];
    let more = format!(
        r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728,"wrapS":10497,"wrapT":10497}}],
"images":[{{"uri":"{}"}}]"#,
        png_uri(2, 2, &texels)
    );
    let m = format!(
        r#"{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}},"metallicFactor":0}},{IOR1}}}"#
    );
    let dir = tempfile::tempdir().unwrap();
    let quad = write_quad(dir.path(), "quad", &m, &more, None, None);
    let s = scene(
        dir.path(),
        &[("quad", &quad)],
        vec![object("card", "quad")],
        Some(sun(Vec3::Z)),
    );
    let world = World::build(&s, [SIZE, SIZE]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let plan = integrator::Plan {
        auxiliaries: true,
        ..integrator::Plan::default()
    };
    let settings = Settings {
        spp: 4,
        max_depth: 2,
        seed: 7,
        ..Settings::default()
    };
    let img = integrator::render_planned(&world, &settings, &plan, &NoProgress).image;
    let aux = img.aux.as_ref().expect("auxiliaries were asked for");
    let mean_albedo = |x0: u32, x1: u32, y0: u32, y1: u32| {
        let mut s = Vec3::ZERO;
        for y in y0..y1 {
            for x in x0..x1 {
                s += aux.albedo[(y * SIZE + x) as usize];
            }
        }
        s / ((x1 - x0) * (y1 - y0)) as f32
    };
    let q = [
        mean_albedo(3, 11, 3, 11),
        mean_albedo(13, 21, 3, 11),
        mean_albedo(3, 11, 13, 21),
        mean_albedo(13, 21, 13, 21),
    ];
    for (i, (got, t)) in q.iter().zip(texels).enumerate() {
        let want = Vec3::new(srgb(t[0]), srgb(t[1]), srgb(t[2]));
        assert!(near(*got, want, 2e-3), "quadrant {i}: {got} vs {want}");
    }
}

/// KHR_materials_sheen's textures under the grazing sun of
/// `a_sheen_brightens_a_quad_lit_at_grazing_angles_by_its_lobe`, over a black index-matched
/// base (which reads 0 bare): each quadrant of a 2 × 2 `sheenColorTexture` (sRGB; black,
/// white, red, mid grey) reads the lobe `π cos θi f` of `sheenColorFactor` × its decoded
/// texel, so the black texel's quadrant is dark, the white's the factor's lobe, the red's
/// that lobe's red alone; a 2 × 2 `sheenRoughnessTexture` (its A, linear) makes each quadrant
/// the lobe of `sheenRoughnessFactor` × its alpha.
#[test]
fn sheen_textures_vary_the_lobe_per_texel() {
    use pfx_bake::materials::{Bxdf, Plain, Sheened};
    let theta = 75f32.to_radians();
    let toward = Vec3::new(theta.sin(), 0.0, theta.cos());
    let factor = Vec3::new(1.0, 0.5, 0.2);
    let lobe = |color: Vec3, roughness: f32| {
        let s = Sheened::new(Plain::new(Vec3::ZERO, 0.8, 0.0, 0.0), 1.0, color, roughness);
        s.f(Vec3::Z, toward) * std::f32::consts::PI * theta.cos()
    };
    let render = |slot: &str, texels: &[[u8; 4]; 4]| {
        let more = format!(
            r#","textures":[{{"source":0,"sampler":0}}],"samplers":[{{"magFilter":9728,"wrapS":10497,"wrapT":10497}}],
"images":[{{"uri":"{}"}}]"#,
            png_uri(2, 2, texels)
        );
        let m = format!(
            r#"{{"name":"velvet","pbrMetallicRoughness":{{"baseColorFactor":[0,0,0,1],
            "metallicFactor":0,"roughnessFactor":0.8}},"extensions":{{"KHR_materials_ior":{{"ior":1}},
            "KHR_materials_sheen":{{"sheenColorFactor":[1,0.5,0.2],"sheenRoughnessFactor":0.7,
            "{slot}":{{"index":0}}}}}}}}"#
        );
        let (world, img) = render_quad(&m, &more, toward);
        assert!(
            world.asset_warnings.is_empty(),
            "{:?}",
            world.asset_warnings
        );
        quadrants(&img)
    };
    let texels = [
        [0, 0, 0, 255],
        [255, 255, 255, 255],
        [255, 0, 0, 255],
        [188, 188, 188, 255],
    ];
    let q = render("sheenColorTexture", &texels);
    for (i, (got, t)) in q.iter().zip(texels).enumerate() {
        let want = lobe(factor * Vec3::new(srgb(t[0]), srgb(t[1]), srgb(t[2])), 0.7);
        assert!(
            near(*got, want, 2e-3 * want.x.max(1e-3)),
            "quadrant {i}: {got} vs {want}"
        );
    }
    assert!(q[0].max_element() < 1e-6, "{}", q[0]);
    assert!(q[1].x > 0.03, "{}", q[1]);
    // The red texel keeps the white's red and drops green and blue.
    assert!(
        (q[2].x - q[1].x).abs() <= 2e-3 * q[1].x,
        "{} vs {}",
        q[2],
        q[1]
    );
    assert!(q[2].y < 1e-6 && q[2].z < 1e-6, "{}", q[2]);
    // Mid grey (sRGB 188 ≈ 0.50 linear) is dimmer than white, brighter than black.
    assert!(q[3].x < 0.9 * q[1].x && q[3].x > 0.3 * q[1].x, "{}", q[3]);
    // Roughness: A of 255, 128, 64 and 0 (RGB, which the slot does not read, varied).
    let alphas = [255u8, 128, 64, 0];
    let texels = [
        [0, 255, 0, alphas[0]],
        [255, 0, 0, alphas[1]],
        [9, 9, 9, alphas[2]],
        [255, 255, 255, alphas[3]],
    ];
    let q = render("sheenRoughnessTexture", &texels);
    for (i, (got, a)) in q.iter().zip(alphas).enumerate() {
        let want = lobe(factor, 0.7 * (f32::from(a) / 255.0));
        assert!(
            near(*got, want, 2e-3 * want.x.max(1e-3)),
            "quadrant {i}: {got} vs {want}"
        );
    }
    // The quadrants differ as the lobe does over roughness.
    for i in 1..4 {
        assert!(
            (q[i].x - q[0].x).abs() > 0.05 * q[0].x,
            "quadrant {i}: {} vs {}",
            q[i],
            q[0]
        );
    }
}

/// KHR_materials_ior's `ior = 0` (the specular-glossiness mode: an infinite index, Fresnel 1
/// at every angle) under a sun along the normal, seen along it, roughness 0.3 (α = 0.09): the
/// layer reflects everything, so a white and a black base read the same, the highlight of F0
/// 1, `1/(4α²)` = 30.86 plus the conductor's multiple scattering; with KHR_materials_specular's
/// colour (the conversion from specular-glossiness) a black base reads `c/(4α²)` per channel.
/// The old reading (ior 1, F0 0) drew the white base Lambertian (1) and the black one black.
#[test]
fn ior_zero_reflects_everything_and_takes_the_specular_colour_as_f0() {
    let quad = |base: f32, specular: &str| {
        let m = format!(
            r#"{{"name":"specgloss","pbrMetallicRoughness":{{"baseColorFactor":[{base},{base},{base},1],
            "metallicFactor":0,"roughnessFactor":0.3}},"extensions":{{"KHR_materials_ior":{{"ior":0}}{specular}}}}}"#
        );
        let (world, img) = render_quad(&m, "", Vec3::Z);
        assert!(
            world.asset_warnings.is_empty(),
            "{:?}",
            world.asset_warnings
        );
        mean(&img, 3, 21, 3, 21)
    };
    let single = 1.0 / (4.0 * 0.09 * 0.09);
    let white = quad(1.0, "");
    let black = quad(0.0, "");
    assert_eq!(white, black);
    // The multiple-scattering lobe adds a little at α = 0.09.
    assert!(
        white.min_element() >= single && white.max_element() <= 1.01 * single,
        "{white} vs {single}"
    );
    assert!((white.x - white.y).abs() < 1e-6 && (white.y - white.z).abs() < 1e-6);
    let c = Vec3::new(0.5, 0.25, 0.1);
    let tinted = quad(
        0.0,
        r#","KHR_materials_specular":{"specularColorFactor":[0.5,0.25,0.1]}"#,
    );
    let want = c * single;
    eprintln!("ior 0: white / black base {white}, 1/(4α²) {single}; tinted {tinted} vs {want}");
    assert!(near(tinted, want, 2e-3 * want.x), "{tinted} vs {want}");
}
