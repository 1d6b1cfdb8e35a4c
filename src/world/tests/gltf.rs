//! glTF materials as the world draws them (transmission, clear coat, specular, sheen, ior 0;
//! iridescence in `tests_film`).

use super::*;

/// A glTF material with KHR_materials_transmission is the translucent blend at its factor;
/// KHR_materials_volume's attenuation becomes the body's absorption.
#[test]
fn gltf_transmission_builds_a_translucent_body_with_the_volumes_attenuation() {
    use super::gltf_surface::gltf_material_def;
    let m = crate::assets::GltfMaterial {
        label: "material 'amber'".into(),
        transmission: 0.8,
        attenuation: [0.1, 0.2, 0.3],
        metallic: 0.0,
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let d = gltf_material_def(&m, false, 0.0);
    let Bxdfs::Translucent(t) = d.bxdf else {
        panic!("{:?}", d.bxdf)
    };
    assert!((t.weight() - 0.8).abs() < 1e-6);
    assert!((t.interface().eta() - 1.5).abs() < 1e-4);
    assert_eq!(d.absorption, Vec3::new(0.1, 0.2, 0.3));
    // Without transmission the attenuation has nothing to fill.
    let opaque = gltf_material_def(
        &crate::assets::GltfMaterial {
            transmission: 0.0,
            ..m.clone()
        },
        false,
        0.0,
    );
    assert!(matches!(opaque.bxdf, Bxdfs::Plain(_)));
    assert_eq!(opaque.absorption, Vec3::ZERO);
    // KHR_materials_dispersion on a fully transmitting dielectric: per channel, a body.
    let prism = crate::assets::GltfMaterial {
        transmission: 1.0,
        dispersion: 1.0,
        ..m
    };
    let d = gltf_material_def(&prism, false, 0.0);
    let Bxdfs::Dispersive(g) = d.bxdf else {
        panic!("{:?}", d.bxdf)
    };
    let [r, gr, b] = g.channels().map(|c| c.eta());
    assert!(r < gr && gr < b && (gr - 1.5).abs() < 0.01, "{r} {gr} {b}");
    assert_eq!(d.absorption, Vec3::new(0.1, 0.2, 0.3));
    // Partly transmitting: the translucent blend, without dispersion.
    let half = crate::assets::GltfMaterial {
        transmission: 0.5,
        ..prism
    };
    assert!(matches!(
        gltf_material_def(&half, false, 0.0).bxdf,
        Bxdfs::Translucent(_)
    ));
}

/// KHR_materials_clearcoat is the library's coat (`Coated`) of glTF's fixed ior 1.5 over the
/// material's `plain`, whatever KHR_materials_ior gives the base; factor 0 is the uncoated
/// material bit for bit; over COLOR_0 it is built per hit.
#[test]
fn gltf_clearcoat_is_the_coat_of_ior_one_and_a_half_over_plain() {
    use super::gltf_surface::{f0_of_ior, gltf_material_def};
    use crate::materials::{Coated, Plain};
    let m = crate::assets::GltfMaterial {
        label: "material 'car paint'".into(),
        base_color: [0.5, 0.02, 0.01, 1.0],
        metallic: 0.25,
        roughness: 0.44,
        ior: 2.0,
        clearcoat: 0.75,
        clearcoat_roughness: 0.03,
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let d = gltf_material_def(&m, false, 0.0);
    let plain = Plain::new(Vec3::new(0.5, 0.02, 0.01), 0.44, 0.25, f0_of_ior(2.0));
    assert_eq!(
        d.bxdf,
        Bxdfs::Coated(Coated::new(plain, 0.75, 0.03, 1.5)),
        "{:?}",
        d.bxdf
    );
    assert_eq!(d.filtered, d.bxdf);
    // `filter_glossy` raises both roughnesses in the filtered copy.
    let f = gltf_material_def(&m, false, 0.3);
    assert_eq!(f.bxdf, d.bxdf);
    assert_eq!(
        f.filtered,
        Bxdfs::Coated(Coated::new(
            Plain::new(Vec3::new(0.5, 0.02, 0.01), 0.44, 0.25, f0_of_ior(2.0)),
            0.75,
            0.3,
            1.5
        ))
    );
    // Factor 0: the material without the extension, bit for bit.
    let bare = crate::assets::GltfMaterial {
        clearcoat: 0.0,
        clearcoat_roughness: 0.0,
        ..m.clone()
    };
    let zero = crate::assets::GltfMaterial {
        clearcoat: 0.0,
        ..m.clone()
    };
    let (a, b) = (
        gltf_material_def(&bare, false, 0.3),
        gltf_material_def(&zero, false, 0.3),
    );
    assert!(matches!(a.bxdf, Bxdfs::Plain(_)));
    assert_eq!((a.bxdf, a.filtered), (b.bxdf, b.filtered));
    // Over vertex colours the base varies per hit: coated, its coat built at each hit.
    let c = gltf_material_def(&m, true, 0.0);
    assert!(matches!(c.bxdf, Bxdfs::Coated(_)), "{:?}", c.bxdf);
    assert!(c.surface.is_some());
}

/// KHR_materials_specular: the plain's dielectric layer takes F0 = min(F0(ior) · colour, 1)
/// per channel and the factor as its weight (`Plain::tinted`); at the defaults it is the
/// material without the extension, bit for bit; under a clear coat the coat's base is that
/// layer; a specular texture builds the layer at each hit from factor × texel.
#[test]
fn gltf_specular_is_the_plains_tinted_weighted_layer() {
    use super::gltf_surface::{f0_of_ior, gltf_material_def};
    use crate::materials::{Coated, Plain};
    let m = crate::assets::GltfMaterial {
        label: "material 'lacquer'".into(),
        base_color: [0.2, 0.3, 0.4, 1.0],
        metallic: 0.25,
        roughness: 0.4,
        ior: 2.0,
        specular: 0.5,
        specular_color: [3.0, 1.0, 0.25],
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let f0 = f0_of_ior(2.0);
    let want = Plain::tinted(
        Vec3::new(0.2, 0.3, 0.4),
        0.4,
        0.25,
        Vec3::new(3.0 * f0, f0, 0.25 * f0),
        0.5,
    );
    let d = gltf_material_def(&m, false, 0.0);
    assert_eq!(d.bxdf, Bxdfs::Plain(want), "{:?}", d.bxdf);
    let defaults = crate::assets::GltfMaterial {
        specular: 1.0,
        specular_color: [1.0; 3],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&defaults, false, 0.0).bxdf,
        Bxdfs::Plain(Plain::new(Vec3::new(0.2, 0.3, 0.4), 0.4, 0.25, f0))
    );
    // A colour past the clamp: 10 · 1/9 is taken as 1.
    let bright = crate::assets::GltfMaterial {
        specular_color: [10.0, 1.0, 1.0],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&bright, false, 0.0).bxdf,
        Bxdfs::Plain(Plain::tinted(
            Vec3::new(0.2, 0.3, 0.4),
            0.4,
            0.25,
            Vec3::new(1.0, f0, f0),
            0.5
        ))
    );
    // Weight 0 over a dielectric: Lambertian.
    let matte = crate::assets::GltfMaterial {
        specular: 0.0,
        metallic: 0.0,
        ..m.clone()
    };
    let Bxdfs::Plain(p) = gltf_material_def(&matte, false, 0.0).bxdf else {
        panic!("not plain")
    };
    let lambert = Plain::new(Vec3::new(0.2, 0.3, 0.4), 0.4, 0.0, 0.0);
    for (wo, wi) in [
        (Vec3::Z, Vec3::Z),
        (Vec3::new(0.6, 0.0, 0.8), Vec3::new(-0.6, 0.0, 0.8)),
    ] {
        use crate::materials::Bxdf;
        assert_eq!(p.f(wo, wi), lambert.f(wo, wi));
    }
    // A tinted colour under a coat is drawn grey at its luminance (the loader names it).
    let tinted = crate::assets::GltfMaterial {
        clearcoat: 1.0,
        clearcoat_roughness: 0.1,
        specular_color: [1.0, 0.0, 0.0],
        ..m.clone()
    };
    let y = crate::color::luminance(Vec3::X);
    let grey = crate::assets::GltfMaterial {
        specular_color: [y; 3],
        ..tinted.clone()
    };
    assert_eq!(
        gltf_material_def(&tinted, false, 0.0).bxdf,
        gltf_material_def(&grey, false, 0.0).bxdf
    );
    // Under a coat, a grey colour.
    let coated = crate::assets::GltfMaterial {
        clearcoat: 1.0,
        clearcoat_roughness: 0.1,
        specular_color: [0.5; 3],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&coated, false, 0.0).bxdf,
        Bxdfs::Coated(Coated::new(
            Plain::tinted(
                Vec3::new(0.2, 0.3, 0.4),
                0.4,
                0.25,
                Vec3::splat(0.5 * f0),
                0.5
            ),
            1.0,
            0.1,
            1.5
        ))
    );
    // A specular texture (alpha 128/255 everywhere) multiplies the factor at each hit.
    use crate::assets::{Filter, Mip, TextureImage, TextureRef, UvTransform, Wrap};
    let texture = TextureRef {
        image: std::sync::Arc::new(TextureImage::new(1, 1, vec![[9, 9, 9, 128]])),
        wrap_s: Wrap::Repeat,
        wrap_t: Wrap::Repeat,
        filter: Filter::Nearest,
        minify: Filter::Nearest,
        mip: Mip::Off,
        tex_coord: 0,
        transform: UvTransform::default(),
    };
    let textured = crate::assets::GltfMaterial {
        specular_texture: Some(texture),
        ..m.clone()
    };
    let d = gltf_material_def(&textured, false, 0.0);
    let surface = d.surface.expect("a textured material is shaded per hit");
    let at = super::gltf_surface::SurfacePoint {
        uvs: [glam::Vec2::splat(0.5); 4],
        footprints: Default::default(),
        color: glam::Vec4::ONE,
        ns: Vec3::Z,
        tangent: glam::Vec4::ZERO,
    };
    let shaded = surface.shade(&at, false);
    let w = 0.5 * (128.0f32 / 255.0);
    let Bxdfs::Plain(p) = shaded.bxdf else {
        panic!("{:?}", shaded.bxdf)
    };
    let want = Plain::tinted(
        Vec3::new(0.2, 0.3, 0.4),
        0.4,
        0.25,
        Vec3::new(3.0 * f0, f0, 0.25 * f0),
        w,
    );
    assert_eq!(p, want);
}

/// KHR_materials_sheen is the library's sheen layer (`Sheened`, weight 1) of the glTF colour
/// and roughness over the material's `plain` (tinted by KHR_materials_specular where given);
/// black is the material without it, bit for bit; a textured material builds it per hit.
#[test]
fn gltf_sheen_is_the_sheen_layer_of_its_colour_and_roughness() {
    use super::gltf_surface::{f0_of_ior, gltf_material_def};
    use crate::materials::{Plain, Sheened};
    let m = crate::assets::GltfMaterial {
        label: "material 'velvet'".into(),
        base_color: [0.3, 0.05, 0.1, 1.0],
        metallic: 0.0,
        roughness: 0.8,
        sheen_color: [1.0, 0.6, 0.7],
        sheen_roughness: 0.35,
        specular: 0.5,
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let base = Vec3::new(0.3, 0.05, 0.1);
    let plain = Plain::tinted(base, 0.8, 0.0, Vec3::splat(f0_of_ior(1.5)), 0.5);
    let want = Bxdfs::Sheened(Sheened::new(plain, 1.0, Vec3::new(1.0, 0.6, 0.7), 0.35));
    let d = gltf_material_def(&m, false, 0.0);
    assert_eq!(d.bxdf, want, "{:?}", d.bxdf);
    let black = crate::assets::GltfMaterial {
        sheen_color: [0.0; 3],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&black, false, 0.0).bxdf,
        Bxdfs::Plain(plain)
    );
    // Over vertex colours (built per hit): the same layer over the coloured base.
    let d = gltf_material_def(&m, true, 0.0);
    let surface = d.surface.expect("COLOR_0 shades per hit");
    let at = super::gltf_surface::SurfacePoint {
        uvs: [glam::Vec2::ZERO; 4],
        footprints: Default::default(),
        color: glam::Vec4::new(0.5, 1.0, 1.0, 1.0),
        ns: Vec3::Z,
        tangent: glam::Vec4::ZERO,
    };
    let shaded = surface.shade(&at, false);
    let plain = Plain::tinted(
        base * Vec3::new(0.5, 1.0, 1.0),
        0.8,
        0.0,
        Vec3::splat(0.04),
        0.5,
    );
    assert_eq!(
        shaded.bxdf,
        Bxdfs::Sheened(Sheened::new(plain, 1.0, Vec3::new(1.0, 0.6, 0.7), 0.35))
    );
    // Textures (one texel everywhere): sheenColorTexture's RGB (sRGB) multiplies the colour,
    // sheenRoughnessTexture's A (linear) the roughness, at each hit.
    use crate::assets::{Filter, Mip, TextureImage, TextureRef, UvTransform, Wrap};
    let texel = |t: [u8; 4]| TextureRef {
        image: std::sync::Arc::new(TextureImage::new(1, 1, vec![t])),
        wrap_s: Wrap::Repeat,
        wrap_t: Wrap::Repeat,
        filter: Filter::Nearest,
        minify: Filter::Nearest,
        mip: Mip::Off,
        tex_coord: 0,
        transform: UvTransform::default(),
    };
    let textured = crate::assets::GltfMaterial {
        sheen_color_texture: Some(texel([255, 128, 0, 7])),
        sheen_roughness_texture: Some(texel([1, 2, 3, 64])),
        ..m.clone()
    };
    let d = gltf_material_def(&textured, false, 0.0);
    let surface = d.surface.expect("a sheen texture is shaded per hit");
    let at = super::gltf_surface::SurfacePoint {
        color: glam::Vec4::ONE,
        uvs: [glam::Vec2::splat(0.5); 4],
        ..at
    };
    let shaded = surface.shade(&at, false);
    let plain = Plain::tinted(base, 0.8, 0.0, Vec3::splat(0.04), 0.5);
    // IEC 61966-2-1, as the decode computes it (in f64, then rounded).
    let srgb = |b: u8| {
        let c = f64::from(b) / 255.0;
        ((c + 0.055) / 1.055).powf(2.4) as f32
    };
    let color = Vec3::new(1.0, 0.6 * srgb(128), 0.0);
    assert_eq!(
        shaded.bxdf,
        Bxdfs::Sheened(Sheened::new(plain, 1.0, color, 0.35 * (64.0 / 255.0)))
    );
    // A black texel is no sheen: the plain itself.
    let black = crate::assets::GltfMaterial {
        sheen_color_texture: Some(texel([0, 0, 0, 255])),
        ..m.clone()
    };
    let d = gltf_material_def(&black, false, 0.0);
    let shaded = d.surface.expect("textured").shade(&at, false);
    assert_eq!(shaded.bxdf, Bxdfs::Plain(plain));
}

/// KHR_materials_ior's `ior = 0` (the specular-glossiness mode: an infinite index, Fresnel 1
/// at every angle) is the `plain` of F0 = 1, whose layer reflects everything and hides the
/// base: a white and a black base scatter alike. Under KHR_materials_specular the F0 is the
/// specular colour (the conversion from specular-glossiness), clamped to 1.
#[test]
fn gltf_ior_zero_is_the_plain_of_f0_one() {
    use super::gltf_surface::gltf_material_def;
    use crate::materials::{Bxdf, Plain};
    let m = crate::assets::GltfMaterial {
        label: "material 'chrome'".into(),
        base_color: [1.0; 4],
        metallic: 0.0,
        roughness: 0.4,
        ior: 0.0,
        ..super::gltf_surface::VERTEX_COLOURED.clone()
    };
    let white = gltf_material_def(&m, false, 0.0).bxdf;
    // A white conductor: the layer's Fresnel 1 at every angle, its multiple scattering the
    // conductor's.
    assert_eq!(
        white,
        Bxdfs::Plain(Plain::new(Vec3::ONE, 0.4, 1.0, 0.0)),
        "{white:?}"
    );
    let black = gltf_material_def(
        &crate::assets::GltfMaterial {
            base_color: [0.0, 0.0, 0.0, 1.0],
            ..m.clone()
        },
        false,
        0.0,
    )
    .bxdf;
    // The old reading (ior 1, F0 = 0) drew the white base as a Lambertian of albedo 1.
    let mut rng = crate::sampling::testutil::Rng::new(11);
    let mut worst = 0.0f32;
    for _ in 0..2000 {
        let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
        let (w, b) = (white.f(wo, wi), black.f(wo, wi));
        worst = worst.max((w - b).abs().max_element());
    }
    eprintln!("ior 0: largest |f(white base) − f(black base)| over 2000 pairs: {worst:e}");
    assert!(worst == 0.0, "the base shows through by {worst}");
    // Lossless and never above 1 (white furnace), at several roughnesses and angles.
    for (i, r) in [0.1f32, 0.5, 1.0].into_iter().enumerate() {
        let rough = crate::assets::GltfMaterial {
            roughness: r,
            base_color: [0.3, 0.6, 0.9, 1.0],
            ..m.clone()
        };
        let b = gltf_material_def(&rough, false, 0.0).bxdf;
        for (k, mu) in [1.0f32, 0.5, 0.1].into_iter().enumerate() {
            let wo = crate::materials::testutil::dir(mu, 0.3);
            let (a, se) =
                crate::materials::testutil::albedo(&b, wo, 100_000, 70 + (3 * i + k) as u64);
            eprintln!("ior 0, roughness {r}, μ {mu}: albedo {a} ± {se}");
            assert!(
                a.max_element() <= 1.0 + 4.0 * se + 1e-3,
                "r {r} μ {mu}: {a} ± {se}"
            );
            assert!(
                a.min_element() >= 0.97 - 4.0 * se,
                "r {r} μ {mu}: {a} ± {se}"
            );
            // Grey: the base colour does not show.
            assert!(
                a.max_element() - a.min_element() < 1e-6,
                "r {r} μ {mu}: {a}"
            );
        }
    }
    // A coat over it: the coat over that conductor (the conversion keeps clear coats).
    let coated = crate::assets::GltfMaterial {
        clearcoat: 1.0,
        clearcoat_roughness: 0.2,
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&coated, false, 0.0).bxdf,
        Bxdfs::Coated(crate::materials::Coated::new(
            Plain::new(Vec3::ONE, 0.4, 1.0, 0.0),
            1.0,
            0.2,
            1.5
        ))
    );
    // Half metallic: the conductor of F0 lerp(1, base, ½).
    let half = crate::assets::GltfMaterial {
        metallic: 0.5,
        base_color: [0.2, 0.4, 0.6, 1.0],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&half, false, 0.0).bxdf,
        Bxdfs::Plain(Plain::new(Vec3::new(0.6, 0.7, 0.8), 0.4, 1.0, 0.0))
    );
    // The spec-glossiness conversion: F0 = the specular colour.
    let specgloss = crate::assets::GltfMaterial {
        specular_color: [0.9, 0.6, 3.0],
        ..m.clone()
    };
    assert_eq!(
        gltf_material_def(&specgloss, false, 0.0).bxdf,
        Bxdfs::Plain(Plain::tinted(
            Vec3::ONE,
            0.4,
            0.0,
            Vec3::new(0.9, 0.6, 1.0),
            1.0
        ))
    );
}
