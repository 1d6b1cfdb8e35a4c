//! KHR_materials_iridescence's factors, defaults, textures and odd values as the loader reads
//! them (what the world draws from them: `world::tests_film`, `tests/gltf_iridescence.rs`).

use super::*;

fn load(material: &str) -> MeshAsset {
    let png = two_texel_png();
    let images = format!(
        r#","textures":[{{"source":0}}],"images":[{{"uri":"data:image/png;base64,{}"}}]"#,
        base64(&png)
    );
    let (bin, json) = textured_triangle(material, &images, &[]);
    let doc = format!(
        r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
        n = bin.len(),
        b = base64(&bin)
    );
    let f = write_temp(doc.as_bytes());
    load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn iridescence_factors_defaults_and_textures_are_read() {
    // The extension's defaults: index 1.3, 100–400 nm.
    let m = load(
        r#"{"name":"soap","extensions":{"KHR_materials_iridescence":{"iridescenceFactor":0.7}}}"#,
    );
    let s = &m.materials[0];
    assert_eq!(
        (s.iridescence, s.iridescence_ior, s.iridescence_thickness),
        (0.7, 1.3, [100.0, 400.0])
    );
    assert!(s.iridescence_texture.is_none() && s.iridescence_thickness_texture.is_none());
    assert!(!s.textured());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // Everything given, the textures read (linear slots), the minimum above the maximum kept.
    let m = load(
        r#"{"name":"beetle","extensions":{"KHR_materials_iridescence":{"iridescenceFactor":1,
        "iridescenceIor":1.8,"iridescenceThicknessMinimum":600,"iridescenceThicknessMaximum":200,
        "iridescenceTexture":{"index":0},"iridescenceThicknessTexture":{"index":0,"texCoord":1}}}}"#,
    );
    let b = &m.materials[0];
    assert_eq!(
        (b.iridescence, b.iridescence_ior, b.iridescence_thickness),
        (1.0, 1.8, [600.0, 200.0])
    );
    assert!(b.iridescence_texture.is_some());
    assert_eq!(
        b.iridescence_thickness_texture.as_ref().unwrap().tex_coord,
        1
    );
    assert!(b.textured());
    assert_eq!(b.tex_coords().filter(|&c| c == 1).count(), 1);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // Factor 0 (or absent): no film, its textures not read, nothing named.
    let m = load(
        r#"{"name":"none","extensions":{"KHR_materials_iridescence":{"iridescenceTexture":{"index":0}}}}"#,
    );
    assert_eq!(m.materials[0].iridescence, 0.0);
    assert!(m.materials[0].iridescence_texture.is_none());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // Odd values: a factor above 1 clamped, an index below 1 and a negative thickness named.
    let m = load(
        r#"{"name":"odd","extensions":{"KHR_materials_iridescence":{"iridescenceFactor":3,
        "iridescenceIor":0.5,"iridescenceThicknessMinimum":-5}}}"#,
    );
    let o = &m.materials[0];
    assert_eq!(
        (o.iridescence, o.iridescence_ior, o.iridescence_thickness),
        (1.0, 1.0, [0.0, 400.0])
    );
    let named = |needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
    assert_eq!(
        named("iridescenceIor 0.5 is below 1"),
        1,
        "{:?}",
        m.warnings
    );
    assert_eq!(
        named("iridescenceThicknessMinimum -5 is negative"),
        1,
        "{:?}",
        m.warnings
    );
    // Over transmission: dropped and named, its textures not read.
    let m = load(
        r#"{"name":"glass","extensions":{"KHR_materials_transmission":{"transmissionFactor":1},
        "KHR_materials_iridescence":{"iridescenceFactor":1,"iridescenceTexture":{"index":0}}}}"#,
    );
    assert_eq!(m.materials[0].iridescence, 0.0);
    assert!(m.materials[0].iridescence_texture.is_none());
    assert_eq!(
        m.warnings
            .iter()
            .filter(|w| w.contains("KHR_materials_iridescence on a transmitting material"))
            .count(),
        1,
        "{:?}",
        m.warnings
    );
}
