//! glTF materials drawn as themselves: where a primitive's material resolves to no library
//! entry and no `fallback`, its metallic-roughness parameters become a `plain` BSDF.
//!
//! The mapping (docs/assets.md, "glTF materials"), the one glTF 2.0 Appendix B defines and
//! pbrt-v4's and Cycles' Principled importers follow:
//!
//! - base colour = `baseColorFactor` × `baseColorTexture` (sRGB) × COLOR_0 → `plain` base
//!   (the diffuse albedo, and the conductor's F0);
//! - metallic = `metallicFactor` × the metallicRoughness texture's B → metalness (the linear
//!   blend dielectric ↔ conductor of Appendix B);
//! - roughness = `roughnessFactor` × its G → roughness (α = roughness², glTF's own);
//! - the dielectric F0 = ((ior − 1)/(ior + 1))², 0.04 at glTF's ior 1.5 → specular;
//! - KHR_materials_specular: F0 per channel `min(F0 · specularColorFactor ×
//!   specularColorTexture (sRGB), 1)` and the layer's weight `specularFactor ×
//!   specularTexture's A` → [`Plain::tinted`] (docs/assets.md, "Specular");
//! - emission = `emissiveFactor` × `emissiveTexture` (sRGB) × `emissiveStrength`;
//! - the normal texture bends the shading normal in the tangent frame;
//! - KHR_materials_clearcoat: `clearcoatFactor` × `clearcoatTexture`'s R,
//!   `clearcoatRoughnessFactor` × `clearcoatRoughnessTexture`'s G → a [`Coated`] of ior 1.5
//!   over the `plain` base: built once per material where neither the coat nor its base
//!   varies (with its compensation and horizon lobes), else per hit ([`Coated::per_hit`],
//!   without them); `clearcoatNormalTexture` (with its scale) bends the coat's own normal,
//!   which is the geometry's without it, whatever `normalTexture` does to the base's
//!   ([`Shaded::coat_ns`]);
//! - KHR_materials_sheen: `sheenColorFactor` × `sheenColorTexture` (sRGB),
//!   `sheenRoughnessFactor` × `sheenRoughnessTexture`'s A → a [`Sheened`] layer (Charlie,
//!   coloured) over the `plain`, built per hit where the base or the sheen varies (its albedo
//!   is a row of a table over roughness);
//! - KHR_materials_iridescence: `iridescenceFactor` × `iridescenceTexture`'s R,
//!   `iridescenceIor` and the thickness `mix(min, max, iridescenceThicknessTexture's G)` (the
//!   maximum without it) → an [`Iridescent`] (the format's thin film over the `plain`), built
//!   once where its inputs are constant, per thickness level and mixed by the amount per hit
//!   where they vary ([`VaryingFilm`]; docs/assets.md, "Iridescence");
//! - KHR_materials_unlit: the base colour alone, shown as radiance by an instance that glows
//!   (as unlit text does: seen by the camera and through mirrors, lighting nothing).
//!
//! A material without textures or vertex colours is built once, as a library material is;
//! one with them keeps a [`GltfSurface`] that builds the BSDF at each hit (a `plain` is a few
//! table lookups to build).

use std::sync::Arc;

use glam::{Vec2, Vec3, Vec4};

use super::MaterialDef;
pub use crate::assets::UvFootprint;
use crate::assets::{Decode, GltfMaterial, TextureRef, DEFAULT_IOR, MAX_TEX_COORD_SETS};
use crate::materials::{
    Bxdfs, Coated, Dispersive, Iridescent, Plain, Sheened, ThinFilm, Translucent, UnderFilm,
    VaryingFilm,
};

/// The dielectric reflectance at normal incidence of index of refraction `ior` (from air): 1
/// at `ior = 0`, KHR_materials_ior's specular-glossiness mode (an infinite index; the formula
/// gives 1 there too, written out so that it does not hang on rounding).
pub fn f0_of_ior(ior: f32) -> f32 {
    if ior == 0.0 {
        return 1.0;
    }
    let r = (ior - 1.0) / (ior + 1.0);
    if r.is_finite() {
        (r * r).clamp(0.0, 1.0)
    } else {
        0.04
    }
}

/// The texture coordinate sets a [`SurfacePoint`] carries (TEXCOORD_0 to TEXCOORD_3).
pub const TEX_COORD_SETS: usize = MAX_TEX_COORD_SETS as usize;

/// What a textured glTF surface reads at a hit, interpolated from its vertices.
#[derive(Clone, Copy, Debug)]
pub struct SurfacePoint {
    /// TEXCOORD_0 to TEXCOORD_3 (zero for a set the mesh lacks).
    pub uvs: [Vec2; TEX_COORD_SETS],
    /// Each set's change across one pixel, from the camera's ray differentials (zero where
    /// none is known: the lookups then read the images themselves, unfiltered).
    pub footprints: [UvFootprint; TEX_COORD_SETS],
    /// COLOR_0, linear RGBA (1 without one).
    pub color: Vec4,
    /// The world shading normal (interpolated vertex normals), unit.
    pub ns: Vec3,
    /// The world tangent (xyz, not necessarily unit nor orthogonal to `ns`; zero without
    /// tangents) and the bitangent's sign (w), mirroring transforms accounted for.
    pub tangent: Vec4,
}

/// A glTF material's BSDF, emission and shading normal at one point.
#[derive(Clone, Copy, Debug)]
pub struct Shaded {
    /// The BSDF.
    pub bxdf: Bxdfs,
    /// Radiance leaving the front face, W·m⁻²·sr⁻¹.
    pub emission: Vec3,
    /// The shading normal, bent by the normal texture, unit.
    pub ns: Vec3,
    /// A clear coat's own shading normal (unit) where it is not `ns`: bent by
    /// `clearcoatNormalTexture`, or the geometry's under a normal-mapped base. The BSDF then
    /// evaluates the coat in its frame (`materials::Bsdf::with_coat_normal`).
    pub coat_ns: Option<Vec3>,
}

/// A glTF material whose parameters vary over the surface (textures, vertex colours).
#[derive(Clone, Debug)]
pub struct GltfSurface {
    material: GltfMaterial,
    /// Multiply the base colour by COLOR_0.
    vertex_colors: bool,
    /// The dielectric F0 of the material's ior (before KHR_materials_specular's colour).
    f0_ior: f32,
    /// `[trace] filter_glossy`: the least roughness after a diffuse bounce.
    filter_glossy: f32,
    /// A BSDF and its filtered copy built once, where only the shading normal and emission
    /// vary: a clear-coated material whose coat and base are constant (else the coat is built
    /// per hit, [`Coated::per_hit`]), or one under a film whose inputs are all constant.
    fixed: Option<(Bxdfs, Bxdfs)>,
    /// KHR_materials_iridescence with a texture or a varying (metal-free) base: the film's
    /// materials by thickness level, and their filtered copies (the same `Arc` where
    /// filtering changes nothing).
    film: Option<(Arc<VaryingFilm>, Arc<VaryingFilm>)>,
}

impl GltfSurface {
    /// Whether the emission varies over the surface (an emissive texture): such a surface is
    /// found by the rays that meet it, not by light sampling.
    pub fn emission_varies(&self) -> bool {
        self.material.emissive_texture.is_some() && Vec3::from(self.material.emissive) != Vec3::ZERO
    }

    /// Whether the shading normal is bent (a normal texture): the hit's tangent is then read.
    pub fn normal_mapped(&self) -> bool {
        self.material.normal_texture.is_some() || self.material.clearcoat_normal_texture.is_some()
    }

    /// Whether COLOR_0 is read.
    pub fn vertex_colors(&self) -> bool {
        self.vertex_colors
    }

    /// The BSDF, emission and shading normal at `at`; `filtered`: the path has bounced off a
    /// diffuse surface, and `[trace] filter_glossy` raises the roughness.
    pub fn shade(&self, at: &SurfacePoint, filtered: bool) -> Shaded {
        let m = &self.material;
        // Each lookup filtered over its set's pixel footprint.
        let look = |t: &TextureRef, decode: Decode| {
            let set = t.tex_coord as usize;
            let uv = at.uvs.get(set).copied().unwrap_or(Vec2::ZERO);
            let fp = at.footprints.get(set).copied().unwrap_or_default();
            t.sample_footprint(uv, fp, decode)
        };
        let mut base = Vec3::from_slice(&m.base_color[..3]);
        if let Some(t) = &m.base_color_texture {
            base *= look(t, Decode::Srgb).truncate();
        }
        if self.vertex_colors {
            base *= at.color.truncate();
        }
        // KHR_materials_unlit: the base colour is what the surface shows, as radiance; the
        // integrator reads it as a glow (`InstanceInfo::glow`), never as a light.
        if m.unlit {
            return Shaded {
                bxdf: unlit_bxdf(),
                emission: base,
                ns: at.ns,
                coat_ns: None,
            };
        }
        let (mut metallic, mut roughness) = (m.metallic, m.roughness);
        if let Some(t) = &m.metallic_roughness_texture {
            let s = look(t, Decode::Linear);
            metallic *= s.z;
            roughness *= s.y;
        }
        if filtered && roughness < self.filter_glossy {
            roughness = self.filter_glossy;
        }
        let mut emission = Vec3::from(m.emissive);
        if let Some(t) = &m.emissive_texture {
            if emission != Vec3::ZERO {
                emission *= look(t, Decode::Srgb).truncate();
            }
        }
        let ns = match &m.normal_texture {
            Some(n) => {
                let s = look(&n.texture, Decode::Linear);
                bend(at.ns, at.tangent, s.truncate(), n.scale)
            }
            None => at.ns,
        };
        // KHR_materials_clearcoat's own normal: its texture bends the geometry's normal, and
        // without one the coat keeps the geometry's, not the base's bent one.
        let coat_ns = match &m.clearcoat_normal_texture {
            Some(n) if m.clearcoat > 0.0 => {
                let s = look(&n.texture, Decode::Linear);
                bend(at.ns, at.tangent, s.truncate(), n.scale)
            }
            _ => at.ns,
        };
        let coat_ns = (m.clearcoat > 0.0 && coat_ns != ns).then_some(coat_ns);
        let filmed = self.film.as_ref().and_then(|(v, vf)| {
            // KHR_materials_iridescence: factor × the texture's R, and the thickness
            // fraction the thickness texture's G (1, the maximum, without it).
            let mut amount = m.iridescence;
            if let Some(t) = &m.iridescence_texture {
                amount *= look(t, Decode::Linear).x;
            }
            let t = m
                .iridescence_thickness_texture
                .as_ref()
                .map_or(1.0, |t| look(t, Decode::Linear).y);
            let film = if filtered { vf } else { v }.at(amount, t)?;
            // The base varies only where the material has no metal part (the loader and the
            // world's build leave the film out otherwise).
            if m.base_color_texture.is_some() || self.vertex_colors {
                film.with_dielectric_base(base)
            } else {
                Some(film)
            }
        });
        let bxdf = match (self.fixed, filmed) {
            (Some((_, f)), _) if filtered => f,
            (Some((b, _)), _) => b,
            (None, Some(film)) => Bxdfs::Iridescent(film),
            (None, None) => {
                let mut weight = m.specular;
                if let Some(t) = &m.specular_texture {
                    weight *= look(t, Decode::Linear).w;
                }
                let mut color = Vec3::from(m.specular_color);
                if let Some(t) = &m.specular_color_texture {
                    color *= look(t, Decode::Srgb).truncate();
                }
                if m.clearcoat > 0.0 && (color.x != color.y || color.y != color.z) {
                    // Grey at its luminance under a coat, as `gltf_material_def` draws a tint.
                    color = Vec3::splat(crate::color::luminance(color));
                }
                let f0 = layer_f0(self.f0_ior, color);
                // KHR_materials_clearcoat: factor × texture (R weight, G roughness); a texel
                // of weight 0 is the uncoated base.
                let mut coat = m.clearcoat;
                if coat > 0.0 {
                    if let Some(t) = &m.clearcoat_texture {
                        coat *= look(t, Decode::Linear).x;
                    }
                }
                if coat > 0.0 {
                    let mut coat_roughness = m.clearcoat_roughness;
                    if let Some(t) = &m.clearcoat_roughness_texture {
                        coat_roughness *= look(t, Decode::Linear).y;
                    }
                    if filtered {
                        coat_roughness = coat_roughness.max(self.filter_glossy);
                    }
                    let plain = layered_plain(base, roughness, metallic, f0, weight);
                    let coated = Coated::per_hit(plain, coat, coat_roughness, DEFAULT_IOR);
                    return Shaded {
                        bxdf: Bxdfs::Coated(coated),
                        emission,
                        ns,
                        coat_ns,
                    };
                }
                // KHR_materials_sheen: factor × texture, colour sRGB RGB and roughness linear
                // A (the loader leaves the factor black, without textures, where it is not
                // drawn; black is no sheen, so its textures are not looked up).
                let mut sheen = Vec3::from(m.sheen_color);
                let mut sheen_roughness = m.sheen_roughness;
                if sheen != Vec3::ZERO {
                    if let Some(t) = &m.sheen_color_texture {
                        sheen *= look(t, Decode::Srgb).truncate();
                    }
                    if let Some(t) = &m.sheen_roughness_texture {
                        sheen_roughness *= look(t, Decode::Linear).w;
                    }
                }
                let layer = Layers {
                    f0,
                    weight,
                    sheen,
                    sheen_roughness,
                };
                gltf_bxdf(base, roughness, metallic, layer, m)
            }
        };
        Shaded {
            bxdf,
            emission,
            ns,
            coat_ns,
        }
    }
}

/// The shading normal `n` bent by a normal texture's texel `texel` (RGB in [0, 1]) scaled by
/// `scale` on X and Y, in the frame of `tangent` (xyz made orthogonal to `n`; w the
/// bitangent's sign: B = w · n × t). Unit; `n` itself where the frame or the result is
/// degenerate.
pub fn bend(n: Vec3, tangent: Vec4, texel: Vec3, scale: f32) -> Vec3 {
    let t = tangent.truncate();
    let t = (t - n * n.dot(t)).normalize_or_zero();
    if t == Vec3::ZERO {
        return n;
    }
    let b = n.cross(t) * if tangent.w < 0.0 { -1.0 } else { 1.0 };
    let v = texel * 2.0 - Vec3::ONE;
    let v = Vec3::new(v.x * scale, v.y * scale, v.z);
    let bent = (t * v.x + b * v.y + n * v.z).normalize_or_zero();
    if bent == Vec3::ZERO || !bent.is_finite() {
        n
    } else {
        bent
    }
}

/// The dielectric layer's F0 per channel, KHR_materials_specular's `min(F0(ior) · colour, 1)`
/// (`f0_ior` in [0, 1], `color` finite and non-negative).
fn layer_f0(f0_ior: f32, color: Vec3) -> Vec3 {
    (color * f0_ior).clamp(Vec3::ZERO, Vec3::ONE)
}

/// The layers over a glTF material's base at one point (factor × texture where textured).
#[derive(Clone, Copy, Debug)]
struct Layers {
    /// The dielectric layer's F0 per channel (KHR_materials_specular's colour), in [0, 1].
    f0: Vec3,
    /// The dielectric layer's weight (`specularFactor` × `specularTexture` A), in [0, 1].
    weight: f32,
    /// KHR_materials_sheen's colour, linear RGB in [0, 1]; black is no sheen.
    sheen: Vec3,
    /// KHR_materials_sheen's roughness (perceptual), in [0, 1].
    sheen_roughness: f32,
}

/// A glTF material's BSDF at one point: `plain` whose dielectric layer has F0 `layer.f0` per
/// channel and weight `layer.weight` (KHR_materials_specular), under a [`Sheened`] layer where
/// `layer.sheen` is not black, or with KHR_materials_transmission's share transmitted
/// ([`Translucent`], tinted by the base colour as glTF tints transmitted light, the interface
/// of the KHR_materials_ior index; the loader leaves KHR_materials_specular at its defaults
/// and the sheen black there, so `f0` is grey and `weight` 1).
fn gltf_bxdf(base: Vec3, roughness: f32, metallic: f32, layer: Layers, m: &GltfMaterial) -> Bxdfs {
    let Layers { f0, weight, .. } = layer;
    let specular = f0.x;
    // KHR_materials_dispersion on a fully transmitting dielectric: the tinted interface split
    // per channel (what `Translucent` is at weight 1, with one index per channel).
    if m.dispersion > 0.0 && m.transmission >= 1.0 && metallic <= 0.0 {
        if let Some(d) = Dispersive::new(m.ior, m.dispersion, roughness, base) {
            return Bxdfs::Dispersive(d);
        }
    }
    if m.transmission > 0.0 {
        if let Some(t) = Translucent::new(
            base,
            roughness,
            metallic,
            specular,
            5.0,
            m.transmission,
            base,
        ) {
            return Bxdfs::Translucent(t);
        }
    }
    let plain = layered_plain(base, roughness, metallic, f0, weight);
    // KHR_materials_sheen (the loader leaves it black over transmission and under a coat).
    if layer.sheen != Vec3::ZERO {
        return Bxdfs::Sheened(Sheened::new(plain, 1.0, layer.sheen, layer.sheen_roughness));
    }
    Bxdfs::Plain(plain)
}

/// glTF's metal–rough BRDF of dielectric layer F0 `f0` (per channel) and weight `weight`:
/// [`Plain::tinted`], except where that layer reflects everything, `f0 = 1` in every channel
/// at weight 1 (KHR_materials_ior's `ior = 0`, Fresnel 1 at every angle): no light reaches the
/// base then, so the dielectric part is a conductor of F0 1 and the whole the conductor of F0
/// `lerp(1, base, metallic)` (Schlick is linear in F0; its multiple scattering is the
/// conductor's own). `Plain::tinted` would give the base what single-scattering GGX does not
/// reflect, up to a fifth of the light at roughness 1, where the layer is meant to hide it.
fn layered_plain(base: Vec3, roughness: f32, metallic: f32, f0: Vec3, weight: f32) -> Plain {
    if f0 == Vec3::ONE && weight >= 1.0 {
        let m = metallic.clamp(0.0, 1.0);
        return Plain::new(Vec3::ONE.lerp(base, m), roughness, 1.0, 0.0);
    }
    Plain::tinted(base, roughness, metallic, f0, weight)
}

/// What an unlit surface scatters: nothing (a black Lambertian without a specular layer, as
/// unlit text's). The path ends where it meets one (`InstanceInfo::glow`); this is what asks
/// about the material as a whole (the denoiser's albedo reads the glow's colour instead).
fn unlit_bxdf() -> Bxdfs {
    Bxdfs::Plain(Plain::new(Vec3::ZERO, 1.0, 0.0, 0.0))
}

/// The material of a glTF material drawn as itself. `vertex_colors`: the geometry it is on has
/// COLOR_0, which multiplies the base colour. `filter_glossy` is `[trace] filter_glossy`.
pub(super) fn gltf_material_def(
    m: &GltfMaterial,
    vertex_colors: bool,
    filter_glossy: f32,
) -> MaterialDef {
    let f0_ior = f0_of_ior(m.ior);
    // Under a clear coat the coat's compensation lobe takes an untinted base layer: a tinted
    // specular colour is drawn grey at its luminance there (the loader names it).
    let specular_color = Vec3::from(m.specular_color);
    let specular_color = if m.clearcoat > 0.0 {
        Vec3::splat(crate::color::luminance(specular_color))
    } else {
        specular_color
    };
    let f0 = layer_f0(f0_ior, specular_color);
    let base = Vec3::from_slice(&m.base_color[..3]);
    if m.unlit {
        // Its colour as a glow: the factor here, factor × texture × COLOR_0 at each hit where
        // those vary. The world makes its instances glow (not lights, see `build`).
        return MaterialDef {
            key: format!("(glTF {})", m.label),
            bxdf: unlit_bxdf(),
            filtered: unlit_bxdf(),
            emission: base,
            absorption: Vec3::ZERO,
            holdout: false,
            subsurface: None,
            surface: (m.base_color_texture.is_some() || vertex_colors).then(|| {
                Arc::new(GltfSurface {
                    material: m.clone(),
                    vertex_colors,
                    f0_ior,
                    filter_glossy,
                    fixed: None,
                    film: None,
                })
            }),
        };
    }
    // KHR_materials_clearcoat: the coat's index is glTF's fixed 1.5, whatever
    // KHR_materials_ior gives the base.
    let coat = m.clearcoat;
    let plain = |roughness: f32, coat_roughness: f32| {
        if coat > 0.0 {
            Bxdfs::Coated(Coated::new(
                layered_plain(base, roughness, m.metallic, f0, m.specular),
                coat,
                coat_roughness,
                DEFAULT_IOR,
            ))
        } else {
            let layer = Layers {
                f0,
                weight: m.specular,
                sheen: Vec3::from(m.sheen_color),
                sheen_roughness: m.sheen_roughness,
            };
            gltf_bxdf(base, roughness, m.metallic, layer, m)
        }
    };
    // KHR_materials_iridescence (the loader leaves it at 0 over transmission, under a coat,
    // over a metallicRoughnessTexture and over a metal whose base colour varies; COLOR_0 on a
    // metal drops it here, named by the world's build). The specular layer under it has one
    // F0: the loader keeps KHR_materials_specular only where it is grey at weight 1.
    let film_drawn = m.iridescence > 0.0 && coat <= 0.0 && !(vertex_colors && m.metallic > 0.0);
    let film_at = |roughness: f32, thickness: f32| {
        ThinFilm::new(thickness, m.iridescence_ior, m.iridescence)
            .filter(|_| film_drawn)
            .map(|film| {
                Bxdfs::Iridescent(Iridescent::new(
                    base, roughness, m.metallic, f0.x, 5.0, film,
                ))
            })
    };
    let bxdf_at = |roughness: f32, coat_roughness: f32| {
        film_at(roughness, m.iridescence_thickness[1])
            .unwrap_or_else(|| plain(roughness, coat_roughness))
    };
    let bxdf = bxdf_at(m.roughness, m.clearcoat_roughness);
    // Built once when filtering changes nothing: a coat's tables cost up to 1.5 ms.
    let (r, cr) = (
        m.roughness.max(filter_glossy),
        m.clearcoat_roughness.max(filter_glossy),
    );
    let filtered = if r > m.roughness || (coat > 0.0 && cr > m.clearcoat_roughness) {
        bxdf_at(r, cr)
    } else {
        bxdf
    };
    // A film whose amount, thickness or (metal-free) base varies: built per thickness level
    // on first use and mixed per hit by the amount (`materials::varying_film`).
    let film_varies = film_drawn
        && (m.iridescence_texture.is_some()
            || m.iridescence_thickness_texture.is_some()
            || m.base_color_texture.is_some()
            || vertex_colors);
    let film = film_varies.then(|| {
        let varying = |roughness: f32| {
            Arc::new(VaryingFilm::new(
                UnderFilm {
                    base,
                    roughness,
                    metalness: m.metallic,
                    specular: f0.x,
                    power: 5.0,
                },
                m.iridescence_ior,
                m.iridescence_thickness,
                m.iridescence_thickness_texture.is_some(),
                m.iridescence_texture.is_none().then_some(m.iridescence),
            ))
        };
        let v = varying(m.roughness);
        let vf = if r > m.roughness {
            varying(r)
        } else {
            v.clone()
        };
        (v, vf)
    });
    let fixed = (coat > 0.0 && !coat_varies(m, vertex_colors))
        || (!film_varies && matches!(bxdf, Bxdfs::Iridescent(_)));
    let surface = (m.textured() || vertex_colors).then(|| {
        Arc::new(GltfSurface {
            material: m.clone(),
            vertex_colors,
            f0_ior,
            filter_glossy,
            fixed: fixed.then_some((bxdf, filtered)),
            film,
        })
    });
    let varies = surface.as_ref().is_some_and(|s| s.emission_varies());
    MaterialDef {
        key: format!("(glTF {})", m.label),
        bxdf,
        filtered,
        // A varying emission is read at each hit; the constant part stays zero so that the
        // world does not make light-sampled triangles of it.
        emission: if varies {
            Vec3::ZERO
        } else {
            Vec3::from(m.emissive)
        },
        // KHR_materials_volume's attenuation inside the body a transmitting surface bounds.
        absorption: if bxdf.bounds_body() {
            Vec3::from(m.attenuation)
        } else {
            Vec3::ZERO
        },
        holdout: false,
        subsurface: None,
        surface,
    }
}

/// Whether a clear-coated material's coat or base varies over the surface (the coat's weight
/// or roughness texture; a base colour, metallic-roughness or specular texture; COLOR_0): its
/// [`Coated`] is then built at each hit. Normal and emissive textures leave the BSDF constant.
fn coat_varies(m: &GltfMaterial, vertex_colors: bool) -> bool {
    vertex_colors
        || m.clearcoat_texture.is_some()
        || m.clearcoat_roughness_texture.is_some()
        || m.base_color_texture.is_some()
        || m.metallic_roughness_texture.is_some()
        || m.specular_texture.is_some()
        || m.specular_color_texture.is_some()
}

/// What a primitive with COLOR_0 and no glTF material is drawn with: white times its vertex
/// colours, with the default plain material's roughness (0.5) and specular (0.04, ior 1.5),
/// not metallic (docs/rendering.md).
pub(super) static VERTEX_COLOURED: std::sync::LazyLock<GltfMaterial> =
    std::sync::LazyLock::new(|| GltfMaterial {
        label: "vertex colours (no material)".into(),
        base_color: [1.0; 4],
        metallic: 0.0,
        roughness: 0.5,
        ..GltfMaterial::default()
    });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f0_of_glass_ior_is_four_percent() {
        assert!((f0_of_ior(1.5) - 0.04).abs() < 1e-7);
        assert_eq!(f0_of_ior(1.0), 0.0);
        // KHR_materials_ior's ior 0: an infinite index, F0 = 1, as ior → ∞ tends to.
        assert_eq!(f0_of_ior(0.0), 1.0);
        assert!(f0_of_ior(1e6) > 0.9999);
    }

    #[test]
    fn bend_follows_the_tangent_frame() {
        let n = Vec3::Z;
        let t = Vec4::new(1.0, 0.0, 0.0, 1.0);
        // The flat texel (0.5, 0.5, 1) keeps the normal.
        let flat = bend(n, t, Vec3::new(0.5, 0.5, 1.0), 1.0);
        assert!((flat - n).length() < 1e-2, "{flat}");
        // A texel leaning +X leans towards the tangent; +Y towards n × t = +Y, or −Y with
        // w = −1.
        let x = bend(n, t, Vec3::new(1.0, 0.5, 0.5), 1.0);
        assert!((x - Vec3::X).length() < 1e-2, "{x}");
        let y = bend(n, t, Vec3::new(0.5, 1.0, 0.5), 1.0);
        assert!((y - Vec3::Y).length() < 1e-2, "{y}");
        let y = bend(
            n,
            t * Vec4::new(1.0, 1.0, 1.0, -1.0),
            Vec3::new(0.5, 1.0, 0.5),
            1.0,
        );
        assert!((y + Vec3::Y).length() < 1e-2, "{y}");
        // Scale 0 flattens; no tangent keeps n.
        let s = bend(n, t, Vec3::new(1.0, 0.5, 0.75), 0.0);
        assert!((s - n).length() < 1e-6);
        assert_eq!(bend(n, Vec4::ZERO, Vec3::new(1.0, 0.5, 0.5), 1.0), n);
    }
}
