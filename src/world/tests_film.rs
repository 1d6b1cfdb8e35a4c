//! KHR_materials_iridescence drawn as the format's thin film: a glTF material's lobe against
//! the library material of the equivalent `thin_film` keys, and its textures per hit.

use glam::{Vec2, Vec3, Vec4};

use super::gltf_surface::{f0_of_ior, gltf_material_def, SurfacePoint};
use super::materials::material_def;
use crate::assets::{Filter, GltfMaterial, Mip, TextureImage, TextureRef, UvTransform, Wrap};
use crate::materials::{Bxdf, Bxdfs, Iridescent, Plain, ThinFilm};
use crate::sampling::testutil::Rng;
use crate::scene;

/// IridescenceSuzanne's dielectric (left) material: ior 2, base 0.4, roughness 0.1, a film of
/// index 1.33 and 400 nm (the maximum; no thickness texture).
fn suzanne_left() -> GltfMaterial {
    GltfMaterial {
        label: "material 'Material'".into(),
        base_color: [0.4, 0.4, 0.4, 1.0],
        metallic: 0.0,
        roughness: 0.1,
        ior: 2.0,
        iridescence: 1.0,
        iridescence_ior: 1.33,
        iridescence_thickness: [100.0, 400.0],
        ..GltfMaterial::default()
    }
}

/// The library's `plain` with the thin film's keys equivalent to `m`'s extension.
fn library(m: &GltfMaterial) -> scene::Material {
    scene::Material {
        key: "film".into(),
        base: [m.base_color[0], m.base_color[1], m.base_color[2]],
        roughness: m.roughness,
        metalness: m.metallic,
        specular: f0_of_ior(m.ior),
        fresnel_power: 5.0,
        thin_film: m.iridescence_thickness[1],
        thin_film_ior: m.iridescence_ior,
        thin_film_amount: m.iridescence,
        ..Default::default()
    }
}

/// `f` and pdf of two lobes over random direction pairs: bit for bit.
fn same_lobe(a: &Bxdfs, b: &Bxdfs, seed: u64) {
    let mut rng = Rng::new(seed);
    for _ in 0..500 {
        let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
        assert_eq!(a.f_pdf(wo, wi), b.f_pdf(wo, wi), "wo {wo} wi {wi}");
    }
}

fn texel(t: [u8; 4]) -> TextureRef {
    TextureRef {
        image: std::sync::Arc::new(TextureImage::new(1, 1, vec![t])),
        wrap_s: Wrap::Repeat,
        wrap_t: Wrap::Repeat,
        filter: Filter::Nearest,
        minify: Filter::Nearest,
        mip: Mip::Off,
        tex_coord: 0,
        transform: UvTransform::default(),
    }
}

fn point() -> SurfacePoint {
    SurfacePoint {
        uvs: [Vec2::splat(0.5); 4],
        footprints: Default::default(),
        color: Vec4::ONE,
        ns: Vec3::Z,
        tangent: Vec4::ZERO,
    }
}

#[test]
fn gltf_iridescence_is_the_library_thin_film() {
    // The dielectric and the metallic Suzanne, half a film, a thick high-index one: the same
    // `Iridescent` as the library's `plain` with `thin_film`, `thin_film_ior` and
    // `thin_film_amount`, and so the same f and pdf; the filtered copies too.
    let cases = [
        suzanne_left(),
        GltfMaterial {
            metallic: 1.0,
            ior: 1.5,
            ..suzanne_left()
        },
        GltfMaterial {
            iridescence: 0.5,
            metallic: 0.3,
            roughness: 0.45,
            base_color: [0.9, 0.2, 0.1, 1.0],
            iridescence_ior: 1.8,
            iridescence_thickness: [200.0, 650.0],
            ..suzanne_left()
        },
    ];
    for (k, m) in cases.iter().enumerate() {
        for filter in [0.0f32, 0.3] {
            let g = gltf_material_def(m, false, filter);
            let l = material_def(&library(m), filter);
            assert!(matches!(g.bxdf, Bxdfs::Iridescent(_)), "{:?}", g.bxdf);
            assert_eq!(g.bxdf, l.bxdf, "case {k}");
            assert_eq!(g.filtered, l.filtered, "case {k}, filter {filter}");
            same_lobe(&g.bxdf, &l.bxdf, k as u64);
            assert!(g.surface.is_none(), "a constant film is built once");
        }
    }
    // Factor 0 is the material without the extension; a film of thickness 0 is no film.
    let bare = GltfMaterial {
        iridescence: 0.0,
        ..suzanne_left()
    };
    let plain = gltf_material_def(&bare, false, 0.0).bxdf;
    assert!(matches!(plain, Bxdfs::Plain(_)), "{plain:?}");
    let thin = GltfMaterial {
        iridescence_thickness: [100.0, 0.0],
        ..suzanne_left()
    };
    assert_eq!(gltf_material_def(&thin, false, 0.0).bxdf, plain);
}

#[test]
fn gltf_iridescence_textures_are_read_per_hit() {
    let m = suzanne_left();
    let film = |d: f32, a: f32| ThinFilm::new(d, 1.33, a).unwrap();
    let built = |base: Vec3, d: f32, a: f32| {
        Iridescent::new(base, 0.1, 0.0, f0_of_ior(2.0), 5.0, film(d, a))
    };
    let base = Vec3::splat(0.4);
    // The thickness texture's G (R, B, A ignored) interpolates min..max: G 51 is 1/5 of the
    // way, 160 nm, bit for bit the material built at it.
    let thick = GltfMaterial {
        iridescence_thickness_texture: Some(texel([255, 51, 7, 0])),
        ..m.clone()
    };
    let s = gltf_material_def(&thick, false, 0.0)
        .surface
        .expect("per hit");
    assert_eq!(
        s.shade(&point(), false).bxdf,
        Bxdfs::Iridescent(built(base, 160.0, 1.0))
    );
    // The minimum may exceed the maximum: G 0 is the minimum.
    let reversed = GltfMaterial {
        iridescence_thickness: [500.0, 100.0],
        iridescence_thickness_texture: Some(texel([0, 0, 0, 255])),
        ..m.clone()
    };
    let s = gltf_material_def(&reversed, false, 0.0).surface.unwrap();
    assert_eq!(
        s.shade(&point(), false).bxdf,
        Bxdfs::Iridescent(built(base, 500.0, 1.0))
    );
    // The intensity texture's R × the factor: R 255 is the factor's film, R 0 no film (the
    // material without the extension), R 128 half the factor's weight (the mix of the ends,
    // within their tables' margins of the material built at it).
    let amount = |r: u8| GltfMaterial {
        iridescence: 0.8,
        iridescence_texture: Some(texel([r, 9, 9, 9])),
        ..m.clone()
    };
    let bare = gltf_material_def(
        &GltfMaterial {
            iridescence: 0.0,
            ..m.clone()
        },
        false,
        0.0,
    )
    .bxdf;
    let s = gltf_material_def(&amount(0), false, 0.0).surface.unwrap();
    assert_eq!(s.shade(&point(), false).bxdf, bare);
    let s = gltf_material_def(&amount(128), false, 0.0).surface.unwrap();
    let got = s.shade(&point(), false).bxdf;
    let want = Bxdfs::Iridescent(built(base, 400.0, 0.8 * 128.0 / 255.0));
    let mut rng = Rng::new(4);
    let (mut worst, mut worst_pdf) = (0.0f32, 0.0f32);
    for _ in 0..1000 {
        let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
        if wo.z < 0.2 || wi.z < 0.2 {
            continue;
        }
        let ((fg, pg), (fw, pw)) = (got.f_pdf(wo, wi), want.f_pdf(wo, wi));
        worst = worst.max(((fg - fw).abs() / fw.max(Vec3::splat(1e-3))).max_element());
        // The lobes' sampling weights come from the tables too.
        worst_pdf = worst_pdf.max((pg - pw).abs() / pw);
        assert!((pg - pw).abs() <= 0.02 * pw, "pdf {pg} vs {pw}");
    }
    eprintln!(
        "a texel's amount 0.4 against the material built at it: f within {worst:.5}, pdf \
         within {worst_pdf:.5}"
    );
    assert!(worst < 0.02, "{worst}");
    // A base colour texture over a metal-free base: the film over the texel's colour.
    let textured = GltfMaterial {
        base_color_texture: Some(texel([255, 255, 255, 255])),
        ..m.clone()
    };
    let s = gltf_material_def(&textured, false, 0.0).surface.unwrap();
    let got = s.shade(&point(), false).bxdf;
    let want = Bxdfs::Iridescent(built(base, 400.0, 1.0));
    same_lobe(&got, &want, 9);
    // Filtering raises the roughness of the per-hit film as of the built one.
    let s = gltf_material_def(&thick, false, 0.3).surface.unwrap();
    let want = Iridescent::new(base, 0.3, 0.0, f0_of_ior(2.0), 5.0, film(160.0, 1.0));
    assert_eq!(s.shade(&point(), true).bxdf, Bxdfs::Iridescent(want));
    // A bare plain is what a per-hit no-film point draws (the sheen is dropped by the
    // loader where a film is drawn).
    assert!(
        matches!(bare, Bxdfs::Plain(p) if p == Plain::tinted(base, 0.1, 0.0, Vec3::splat(f0_of_ior(2.0)), 1.0))
    );
}

#[test]
fn a_film_over_a_metal_varying_with_vertex_colours_is_left_out() {
    // COLOR_0 varies a metal's F0, which the film's conductor tables are built over: drawn
    // without the film (the world's build names it); over a metal-free base it varies per hit.
    let metal = GltfMaterial {
        metallic: 0.5,
        ..suzanne_left()
    };
    let d = gltf_material_def(&metal, true, 0.0);
    assert!(matches!(d.bxdf, Bxdfs::Plain(_)), "{:?}", d.bxdf);
    let at = SurfacePoint {
        color: Vec4::new(0.5, 1.0, 1.0, 1.0),
        ..point()
    };
    let shaded = d.surface.unwrap().shade(&at, false);
    assert!(matches!(shaded.bxdf, Bxdfs::Plain(_)), "{:?}", shaded.bxdf);
    let d = gltf_material_def(&suzanne_left(), true, 0.0);
    let got = d.surface.unwrap().shade(&at, false).bxdf;
    let base = Vec3::new(0.2, 0.4, 0.4);
    let want = Bxdfs::Iridescent(Iridescent::new(
        base,
        0.1,
        0.0,
        f0_of_ior(2.0),
        5.0,
        ThinFilm::new(400.0, 1.33, 1.0).unwrap(),
    ));
    same_lobe(&got, &want, 12);
}
