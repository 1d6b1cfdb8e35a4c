//! The KHR_materials extensions as the loader reads them: transmission and volume, clear
//! coat, specular, sheen, and ior 0 (iridescence has its own file).

use super::*;

/// KHR_materials_transmission's factor and KHR_materials_volume's attenuation are read; their
/// textures and a thin-walled transmitter are named once, and a volume without transmission
/// or with an infinite distance absorbs nothing.
#[test]
fn transmission_and_volume_are_read() {
    let png = two_texel_png();
    let images = format!(
        r#","textures":[{{"source":0}}],"images":[{{"uri":"data:image/png;base64,{}"}}]"#,
        base64(&png)
    );
    let load = |material: &str| {
        let (bin, json) = textured_triangle(material, &images, &[]);
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(doc.as_bytes());
        load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"))
    };
    let m = load(
        r#"{"name":"amber","extensions":{"KHR_materials_transmission":{"transmissionFactor":0.75,
        "transmissionTexture":{"index":0}},"KHR_materials_volume":{"thicknessFactor":0.1,
        "attenuationDistance":2.0,"attenuationColor":[0.5,0.25,1.0],"thicknessTexture":{"index":0}}}}"#,
    );
    let a = &m.materials[0];
    assert_eq!(a.transmission, 0.75);
    let want = [0.5f32.ln() / -2.0, 0.25f32.ln() / -2.0, 0.0];
    for (got, want) in a.attenuation.iter().zip(want) {
        assert!((got - want).abs() < 1e-6, "{:?}", a.attenuation);
    }
    let count = |needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
    assert_eq!(
        count("transmissionTexture is not rendered yet"),
        1,
        "{:?}",
        m.warnings
    );
    assert_eq!(count("thickness has no effect"), 1, "{:?}", m.warnings);
    assert_eq!(m.warnings.len(), 2, "{:?}", m.warnings);
    // Thin-walled (no volume): named; no attenuation.
    let m = load(
        r#"{"name":"pane","extensions":{"KHR_materials_transmission":{"transmissionFactor":1}}}"#,
    );
    assert_eq!(
        (m.materials[0].transmission, m.materials[0].attenuation),
        (1.0, [0.0; 3])
    );
    assert_eq!(
        m.warnings
            .iter()
            .filter(|w| w.contains("thin walls are not rendered yet"))
            .count(),
        1,
        "{:?}",
        m.warnings
    );
    // An infinite distance, or a volume with no transmission: nothing absorbed.
    let m = load(
        r#"{"name":"clear","extensions":{"KHR_materials_transmission":{"transmissionFactor":0.5},
        "KHR_materials_volume":{"thicknessFactor":1,"attenuationColor":[0.5,0.5,0.5]}}}"#,
    );
    assert_eq!(
        (m.materials[0].transmission, m.materials[0].attenuation),
        (0.5, [0.0; 3])
    );
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let m = load(
        r#"{"name":"solid","extensions":{"KHR_materials_volume":{"thicknessFactor":1,
        "attenuationDistance":1,"attenuationColor":[0.5,0.5,0.5]}}}"#,
    );
    assert_eq!(
        (m.materials[0].transmission, m.materials[0].attenuation),
        (0.0, [0.0; 3])
    );
    // KHR_materials_dispersion: read; named where the material does not transmit fully.
    let m = load(
        r#"{"name":"prism","pbrMetallicRoughness":{"metallicFactor":0},"extensions":{
        "KHR_materials_transmission":{"transmissionFactor":1},"KHR_materials_dispersion":{"dispersion":0.5},
        "KHR_materials_volume":{"thicknessFactor":1}}}"#,
    );
    assert_eq!(m.materials[0].dispersion, 0.5);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let m = load(
        r#"{"name":"half","pbrMetallicRoughness":{"metallicFactor":0},"extensions":{
        "KHR_materials_transmission":{"transmissionFactor":0.5},"KHR_materials_dispersion":{"dispersion":0.5},
        "KHR_materials_volume":{"thicknessFactor":1}}}"#,
    );
    assert_eq!(m.materials[0].dispersion, 0.5);
    assert_eq!(
        m.warnings
            .iter()
            .filter(|w| w.contains("KHR_materials_dispersion is not rendered yet"))
            .count(),
        1,
        "{:?}",
        m.warnings
    );
}

/// KHR_materials_clearcoat (ClearCoatTest): the factors and the coat's three textures are
/// read onto each coated material, nothing named; a coat over a transmitting base is named
/// and dropped, over a textured base drawn.
#[test]
fn clearcoat_factors_and_textures_are_read() {
    let m = load_ok("ClearCoatTest/ClearCoatTest.glb", None);
    let by = |name: &str| {
        let label = format!("material '{name}'");
        m.materials
            .iter()
            .find(|g| g.label == label)
            .unwrap_or_else(|| panic!("no {label}"))
    };
    let coat = |name: &str| (by(name).clearcoat, by(name).clearcoat_roughness);
    assert_eq!(coat("Simple_Base"), (0.0, 0.0));
    assert_eq!(coat("Simple_Coated"), (1.0, 0.03));
    // Textured coats: factor × texture, the textures read.
    assert_eq!(coat("Partial_Coated"), (1.0, 0.03));
    assert!(by("Partial_Coated").clearcoat_texture.is_some());
    assert_eq!(coat("RoughVariations_Coated"), (1.0, 1.0));
    assert!(by("RoughVariations_Coated")
        .clearcoat_roughness_texture
        .is_some());
    let own = |name: &str| by(name).clearcoat_normal_texture.as_ref().map(|n| n.scale);
    assert_eq!(own("CoatNorm_Coated"), Some(1.0));
    assert_eq!(own("SharedNorm_Coated"), Some(1.0));
    assert_eq!(own("BaseNorm_Coated"), None);
    // The coat's normal texture alone makes the loader generate tangents (the file has none).
    let part = m
        .parts
        .iter()
        .find(|p| p.material.as_deref() == Some("CoatNorm_Coated"));
    assert!(!m.geometries[part.expect("CoatNorm_Coated").geometry]
        .tangents
        .is_empty());
    // A coat over a normal-mapped base (constant BSDF inputs) is drawn.
    assert_eq!(coat("BaseNorm_Coated"), (1.0, 0.03));
    assert!(by("BaseNorm_Coated").normal_texture.is_some());
    assert_eq!(coat("SharedNorm_Coated"), (1.0, 0.03));
    let count = |needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
    assert_eq!(count("clearcoat"), 0, "{:?}", m.warnings);
    assert_eq!(count("not rendered yet"), 0, "{:?}", m.warnings);

    // Over transmission: named, factor 0; over a textured base drawn; out-of-range factors
    // clamped.
    let png = two_texel_png();
    let images = format!(
        r#","textures":[{{"source":0}}],"images":[{{"uri":"data:image/png;base64,{}"}}]"#,
        base64(&png)
    );
    let load = |material: &str| {
        let (bin, json) = textured_triangle(material, &images, &[]);
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(doc.as_bytes());
        load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"))
    };
    let m = load(
        r#"{"name":"pane","extensions":{"KHR_materials_transmission":{"transmissionFactor":1},
        "KHR_materials_volume":{"thicknessFactor":1},
        "KHR_materials_clearcoat":{"clearcoatFactor":0.5}}}"#,
    );
    assert_eq!(m.materials[0].clearcoat, 0.0);
    let named =
        |m: &MeshAsset, needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
    assert_eq!(
        named(&m, "KHR_materials_clearcoat over a transmitting base"),
        1,
        "{:?}",
        m.warnings
    );
    let m = load(
        r#"{"name":"decal","pbrMetallicRoughness":{"baseColorTexture":{"index":0}},
        "extensions":{"KHR_materials_clearcoat":{"clearcoatFactor":1}}}"#,
    );
    assert_eq!(m.materials[0].clearcoat, 1.0);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let m = load(
        r#"{"name":"over","extensions":{"KHR_materials_clearcoat":{"clearcoatFactor":2,
        "clearcoatRoughnessFactor":-1,"clearcoatTexture":{"index":0}}}}"#,
    );
    assert_eq!(
        (m.materials[0].clearcoat, m.materials[0].clearcoat_roughness),
        (1.0, 0.0)
    );
    // Factor 0: no coat, and its texture (factor × texture = 0) is not named.
    let m = load(
        r#"{"name":"none","extensions":{"KHR_materials_clearcoat":{"clearcoatFactor":0,
        "clearcoatTexture":{"index":0}}}}"#,
    );
    assert_eq!(m.materials[0].clearcoat, 0.0);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

/// KHR_materials_specular: the factors and textures are read (the colour's texture decoded
/// as sRGB for its mips, the factor's as data), a colour above 1 kept, the defaults without
/// the extension; on a transmitting material it is named and left at its defaults; under a
/// clear coat a tinted colour is named and drawn grey at its luminance.
#[test]
fn specular_factors_and_textures_are_read() {
    let png = two_texel_png();
    let images = format!(
        r#","textures":[{{"source":0}}],"images":[{{"uri":"data:image/png;base64,{}"}}]"#,
        base64(&png)
    );
    let load = |material: &str| {
        let (bin, json) = textured_triangle(material, &images, &[]);
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(doc.as_bytes());
        load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"))
    };
    let named =
        |m: &MeshAsset, needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
    let m = load(
        r#"{"name":"lacquer","extensions":{"KHR_materials_specular":{"specularFactor":0.25,
        "specularColorFactor":[2,0.5,0],"specularTexture":{"index":0},
        "specularColorTexture":{"index":0}}}}"#,
    );
    let a = &m.materials[0];
    assert_eq!((a.specular, a.specular_color), (0.25, [2.0, 0.5, 0.0]));
    assert!(a.specular_texture.is_some());
    assert!(a.specular_color_texture.is_some());
    assert!(a.textured());
    assert_eq!(a.tex_coords().count(), 2);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // Without the extension, and empty: weight 1, white, no texture.
    for material in [
        r#"{"name":"bare"}"#,
        r#"{"name":"empty","extensions":{"KHR_materials_specular":{}}}"#,
    ] {
        let m = load(material);
        let b = &m.materials[0];
        assert_eq!(
            (b.specular, b.specular_color),
            (1.0, [1.0; 3]),
            "{material}"
        );
        assert!(b.specular_texture.is_none() && b.specular_color_texture.is_none());
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    }
    // Out of range: the factor clamped to [0, 1], a negative channel to 0.
    let m = load(
        r#"{"name":"odd","extensions":{"KHR_materials_specular":{"specularFactor":3,
        "specularColorFactor":[-1,1,"x"]}}}"#,
    );
    assert_eq!(
        (m.materials[0].specular, m.materials[0].specular_color),
        (1.0, [0.0, 1.0, 1.0])
    );
    // Weight 0: no layer, its textures (factor × texture = 0) not read.
    let m = load(
        r#"{"name":"matte","extensions":{"KHR_materials_specular":{"specularFactor":0,
        "specularTexture":{"index":0}}}}"#,
    );
    assert_eq!(m.materials[0].specular, 0.0);
    assert!(m.materials[0].specular_texture.is_none());
    // On a transmitting material: named once, defaults.
    let m = load(
        r#"{"name":"pane","extensions":{"KHR_materials_transmission":{"transmissionFactor":1},
        "KHR_materials_volume":{"thicknessFactor":1},
        "KHR_materials_specular":{"specularFactor":0.5,"specularColorFactor":[1,0,0]}}}"#,
    );
    assert_eq!(
        (m.materials[0].specular, m.materials[0].specular_color),
        (1.0, [1.0; 3])
    );
    assert_eq!(
        named(&m, "KHR_materials_specular on a transmitting material"),
        1,
        "{:?}",
        m.warnings
    );
    // Under a clear coat: the weight drawn, the tint named (the world draws it grey).
    let m = load(
        r#"{"name":"paint","extensions":{"KHR_materials_clearcoat":{"clearcoatFactor":1},
        "KHR_materials_specular":{"specularFactor":0.5,"specularColorFactor":[1,0,0]}}}"#,
    );
    let p = &m.materials[0];
    assert_eq!((p.clearcoat, p.specular), (1.0, 0.5));
    // The tint is kept as authored; the world draws it grey (world::tests).
    assert_eq!(p.specular_color, [1.0, 0.0, 0.0]);
    assert_eq!(
        named(
            &m,
            "specularColorFactor under a clear coat is not rendered yet"
        ),
        1,
        "{:?}",
        m.warnings
    );
    assert_eq!(named(&m, "KHR_materials_specular is not rendered yet"), 0);
}

/// KHR_materials_sheen: the factors are read (colour clamped per channel to [0, 1], roughness
/// likewise; black without it, and black is no sheen, its textures then not read), and its
/// textures with them (the material then shades per hit); over transmission or under a clear
/// coat it is named and dropped, textures and all.
#[test]
fn sheen_factors_and_textures_are_read() {
    let png = two_texel_png();
    let images = format!(
        r#","textures":[{{"source":0}}],"images":[{{"uri":"data:image/png;base64,{}"}}]"#,
        base64(&png)
    );
    let load = |material: &str| {
        let (bin, json) = textured_triangle(material, &images, &[]);
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(doc.as_bytes());
        load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"))
    };
    let named =
        |m: &MeshAsset, needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
    let m = load(
        r#"{"name":"velvet","extensions":{"KHR_materials_sheen":{"sheenColorFactor":[1,0.5,0.25],
        "sheenRoughnessFactor":0.3}}}"#,
    );
    let v = &m.materials[0];
    assert_eq!((v.sheen_color, v.sheen_roughness), ([1.0, 0.5, 0.25], 0.3));
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let m = load(r#"{"name":"bare"}"#);
    assert_eq!(
        (m.materials[0].sheen_color, m.materials[0].sheen_roughness),
        ([0.0; 3], 0.0)
    );
    // Empty: black, no sheen, its texture (factor × texture = 0) not named.
    let m = load(
        r#"{"name":"none","extensions":{"KHR_materials_sheen":{"sheenColorTexture":{"index":0}}}}"#,
    );
    assert_eq!(m.materials[0].sheen_color, [0.0; 3]);
    assert!(m.materials[0].sheen_color_texture.is_none());
    assert!(!m.materials[0].textured());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let m = load(
        r#"{"name":"odd","extensions":{"KHR_materials_sheen":{"sheenColorFactor":[2,-1,0.5],
        "sheenRoughnessFactor":4,"sheenColorTexture":{"index":0},
        "sheenRoughnessTexture":{"index":0}}}}"#,
    );
    let o = &m.materials[0];
    assert_eq!((o.sheen_color, o.sheen_roughness), ([1.0, 0.0, 0.5], 1.0));
    assert!(o.sheen_color_texture.is_some() && o.sheen_roughness_texture.is_some());
    assert!(o.textured());
    assert_eq!(o.tex_coords().count(), 2);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // Each texture alone, on its own TEXCOORD set and with its transform.
    let m = load(
        r#"{"name":"cloth","extensions":{"KHR_materials_sheen":{"sheenColorFactor":[1,1,1],
        "sheenRoughnessTexture":{"index":0,"texCoord":1,
        "extensions":{"KHR_texture_transform":{"scale":[2,2]}}}}}}"#,
    );
    let c = &m.materials[0];
    assert!(c.sheen_color_texture.is_none());
    let r = c
        .sheen_roughness_texture
        .as_ref()
        .expect("sheenRoughnessTexture");
    assert_eq!(r.tex_coord, 1);
    assert_eq!(c.tex_coords().collect::<Vec<_>>(), [1]);
    let m = load(
        r#"{"name":"pane","extensions":{"KHR_materials_transmission":{"transmissionFactor":1},
        "KHR_materials_volume":{"thicknessFactor":1},
        "KHR_materials_sheen":{"sheenColorFactor":[1,1,1],"sheenColorTexture":{"index":0}}}}"#,
    );
    assert_eq!(m.materials[0].sheen_color, [0.0; 3]);
    assert!(m.materials[0].sheen_color_texture.is_none());
    assert_eq!(
        named(&m, "KHR_materials_sheen over a transmitting base"),
        1,
        "{:?}",
        m.warnings
    );
    let m = load(
        r#"{"name":"coat","extensions":{"KHR_materials_clearcoat":{"clearcoatFactor":1},
        "KHR_materials_sheen":{"sheenColorFactor":[1,1,1]}}}"#,
    );
    assert_eq!(
        (m.materials[0].sheen_color, m.materials[0].clearcoat),
        ([0.0; 3], 1.0)
    );
    assert_eq!(
        named(&m, "KHR_materials_sheen under a clear coat"),
        1,
        "{:?}",
        m.warnings
    );
    assert_eq!(named(&m, "KHR_materials_sheen is not rendered yet"), 0);
    assert_eq!(named(&m, "sheenColorTexture"), 0);
}

/// KHR_materials_ior's `ior = 0`, the specular-glossiness mode ("the effective IOR becomes
/// positive infinity and the Fresnel term MUST evaluate to 1.0"): kept as 0 (F0 = 1 in the
/// world), with KHR_materials_specular drawn over it; on a transmitting or dispersive material
/// nothing enters, so transmission, volume and dispersion are 0, named once per file. Other
/// values below 1 are still 1, warned.
#[test]
fn ior_zero_is_the_specular_glossiness_mode() {
    let load = |material: &str| {
        let (bin, json) = textured_triangle(material, "", &[]);
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(doc.as_bytes());
        load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"))
    };
    let named =
        |m: &MeshAsset, needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
    // The conversion the KHR_materials_specular text gives: ior 0, the specular colour as F0.
    let m = load(
        r#"{"name":"specgloss","extensions":{"KHR_materials_ior":{"ior":0},
        "KHR_materials_specular":{"specularColorFactor":[0.9,0.6,0.3]}}}"#,
    );
    let a = &m.materials[0];
    assert_eq!(
        (a.ior, a.specular, a.specular_color),
        (0.0, 1.0, [0.9, 0.6, 0.3])
    );
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // -0 reads as 0.
    let m = load(r#"{"name":"neg","extensions":{"KHR_materials_ior":{"ior":-0.0}}}"#);
    assert!(m.materials[0].ior == 0.0 && m.materials[0].ior.is_sign_positive());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // Transmission, volume and dispersion under ior 0: no effect, named once.
    let m = load(
        r#"{"name":"pane","extensions":{"KHR_materials_ior":{"ior":0},
        "KHR_materials_transmission":{"transmissionFactor":1},
        "KHR_materials_volume":{"thicknessFactor":1,"attenuationColor":[0.5,0.5,0.5],
        "attenuationDistance":1},"KHR_materials_dispersion":{"dispersion":1},
        "KHR_materials_specular":{"specularColorFactor":[1,0,0]}}}"#,
    );
    let p = &m.materials[0];
    assert_eq!(
        (p.ior, p.transmission, p.attenuation, p.dispersion),
        (0.0, 0.0, [0.0; 3], 0.0)
    );
    // Opaque, so KHR_materials_specular is drawn (not named as over transmission).
    assert_eq!(p.specular_color, [1.0, 0.0, 0.0]);
    assert_eq!(
        named(&m, "no light enters the surface"),
        1,
        "{:?}",
        m.warnings
    );
    assert_eq!(
        named(&m, "KHR_materials_transmission (and KHR_materials_volume) and KHR_materials_dispersion have no effect"),
        1,
        "{:?}",
        m.warnings
    );
    assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
    // A volume alone (transmission 0) shows nothing either way: not named.
    let m = load(
        r#"{"name":"solid","extensions":{"KHR_materials_ior":{"ior":0},
        "KHR_materials_volume":{"thicknessFactor":1}}}"#,
    );
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // Between 0 and 1: 1, warned, as before.
    let m = load(r#"{"name":"low","extensions":{"KHR_materials_ior":{"ior":0.5}}}"#);
    assert_eq!(m.materials[0].ior, 1.0);
    assert_eq!(named(&m, "is below 1"), 1, "{:?}", m.warnings);
}
