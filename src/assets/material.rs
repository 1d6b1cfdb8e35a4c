//! A glTF material's metallic-roughness parameters as the loader hands them on: factors and
//! texture slots, every number finite and in its range. How the world turns one into a BSDF
//! is `world::gltf_surface`'s (docs/assets.md has the mapping).

use super::texture::TextureRef;

/// glTF's dielectric index of refraction when KHR_materials_ior does not give one (glTF 2.0
/// Appendix B: F0 = 0.04).
pub const DEFAULT_IOR: f32 = 1.5;

/// KHR_materials_iridescence's film index when the file gives none.
pub const DEFAULT_IRIDESCENCE_IOR: f32 = 1.3;

/// KHR_materials_iridescence's film thickness range when the file gives none, nm (minimum,
/// maximum).
pub const DEFAULT_IRIDESCENCE_THICKNESS: [f32; 2] = [100.0, 400.0];

/// A normal texture: tangent-space normals, R → +T, G → +B, B → +N, and its `scale` on the
/// X and Y components.
#[derive(Clone, Debug, PartialEq)]
pub struct NormalTexture {
    /// The texture (read linear).
    pub texture: TextureRef,
    /// `normalTexture.scale`, finite.
    pub scale: f32,
}

/// One glTF material of a file, as the bake can draw it.
#[derive(Clone, Debug, PartialEq)]
pub struct GltfMaterial {
    /// `material 'name'`, or `material <index>` when it has no name: for messages.
    pub label: String,
    /// `baseColorFactor`, linear RGBA, each in [0, 1].
    pub base_color: [f32; 4],
    /// `baseColorTexture` (sRGB; its alpha multiplies the factor's).
    pub base_color_texture: Option<TextureRef>,
    /// `metallicFactor`, in [0, 1].
    pub metallic: f32,
    /// `roughnessFactor` (perceptual roughness; α = roughness²), in [0, 1].
    pub roughness: f32,
    /// `metallicRoughnessTexture` (linear): B multiplies metallic, G roughness.
    pub metallic_roughness_texture: Option<TextureRef>,
    /// `emissiveFactor` times KHR_materials_emissive_strength's `emissiveStrength`, linear
    /// RGB radiance, W·m⁻²·sr⁻¹ in the scene's units (1 is the radiance of a white
    /// Lambertian surface under irradiance π), each channel non-negative.
    pub emissive: [f32; 3],
    /// `emissiveTexture` (sRGB), multiplying `emissive`.
    pub emissive_texture: Option<TextureRef>,
    /// `normalTexture`.
    pub normal_texture: Option<NormalTexture>,
    /// KHR_materials_ior's `ior` (1.5 without it), at least 1, or exactly 0: the dielectric
    /// F0 is ((ior − 1)/(ior + 1))², which is 1 at 0. 0 is the extension's
    /// specular-glossiness mode (an infinite index, Fresnel 1 at every angle; under
    /// KHR_materials_specular, F0 = `min(specular_color, 1)`); the loader then leaves
    /// `transmission`, `attenuation` and `dispersion` at 0, since no light enters
    /// (docs/assets.md, "Specular-glossiness mode").
    pub ior: f32,
    /// KHR_materials_transmission's `transmissionFactor` (0 without it), in [0, 1]: the share
    /// of the dielectric part transmitted through the surface into the body it bounds.
    pub transmission: f32,
    /// KHR_materials_volume's absorption coefficient inside the body, per world unit and
    /// channel, `−ln(attenuationColor)/attenuationDistance` (zero without the extension, with
    /// `thicknessFactor` 0, or an infinite distance), each channel finite and non-negative.
    pub attenuation: [f32; 3],
    /// KHR_materials_dispersion's `dispersion` (`20/V`, V the Abbe number; 0 without it),
    /// non-negative: drawn on a fully transmitting dielectric (transmission 1, not metallic).
    pub dispersion: f32,
    /// KHR_materials_clearcoat's `clearcoatFactor` (0 without it), in [0, 1]: the weight of
    /// a clear dielectric coat of ior 1.5 over the base (`materials::Coated`). The loader
    /// sets it to 0, naming why, where the coat is not drawn (docs/assets.md, "Clear coat").
    pub clearcoat: f32,
    /// KHR_materials_clearcoat's `clearcoatRoughnessFactor` (perceptual; α = r²), in [0, 1].
    pub clearcoat_roughness: f32,
    /// KHR_materials_clearcoat's `clearcoatTexture` (linear): its R multiplies `clearcoat`.
    /// `None` where the coat is not drawn (`clearcoat` 0).
    pub clearcoat_texture: Option<TextureRef>,
    /// KHR_materials_clearcoat's `clearcoatRoughnessTexture` (linear): its G multiplies
    /// `clearcoat_roughness`. `None` where the coat is not drawn.
    pub clearcoat_roughness_texture: Option<TextureRef>,
    /// KHR_materials_clearcoat's `clearcoatNormalTexture` with its scale: the coat's own
    /// shading normal. Without it the coat takes the geometry's normal, not the base's
    /// `normal_texture` (the extension: "no normal mapping is applied to the clear coat
    /// layer, even if normal mapping is applied to the base material"). `None` where the coat
    /// is not drawn.
    pub clearcoat_normal_texture: Option<NormalTexture>,
    /// KHR_materials_specular's `specularFactor` (1 without it), in [0, 1]: the weight of the
    /// dielectric layer (its reflectance `specular · F`; 0 leaves the base alone, the metal
    /// part is not changed; docs/assets.md, "Specular").
    pub specular: f32,
    /// KHR_materials_specular's `specularTexture` (linear): its A multiplies `specular`.
    pub specular_texture: Option<TextureRef>,
    /// KHR_materials_specular's `specularColorFactor` (1 without it), linear RGB, each channel
    /// finite and non-negative (it may exceed 1): the dielectric F0 per channel is
    /// `min(((ior − 1)/(ior + 1))² · specular_color, 1)`.
    pub specular_color: [f32; 3],
    /// KHR_materials_specular's `specularColorTexture` (sRGB), multiplying `specular_color`.
    pub specular_color_texture: Option<TextureRef>,
    /// KHR_materials_sheen's `sheenColorFactor` (black without it), linear RGB, each channel
    /// in [0, 1]: the colour of a Charlie sheen over the base (`materials::Sheened`); black
    /// is no sheen. The loader sets it to black, naming why, where the sheen is not drawn
    /// (docs/assets.md, "Sheen").
    pub sheen_color: [f32; 3],
    /// KHR_materials_sheen's `sheenRoughnessFactor` (perceptual; α = r², at least 0.01 as
    /// drawn), in [0, 1].
    pub sheen_roughness: f32,
    /// KHR_materials_sheen's `sheenColorTexture` (sRGB): its RGB multiplies `sheen_color`.
    /// `None` where the sheen is not drawn (`sheen_color` black).
    pub sheen_color_texture: Option<TextureRef>,
    /// KHR_materials_sheen's `sheenRoughnessTexture` (linear): its A multiplies
    /// `sheen_roughness`. `None` where the sheen is not drawn.
    pub sheen_roughness_texture: Option<TextureRef>,
    /// KHR_materials_iridescence's `iridescenceFactor` (0 without it), in [0, 1]: the weight of
    /// a thin film's reflectance in the Fresnel terms (`materials::Iridescent`; the format's
    /// `thin_film_amount`). The loader sets it to 0, naming why, where the film is not drawn
    /// (docs/assets.md, "Iridescence").
    pub iridescence: f32,
    /// KHR_materials_iridescence's `iridescenceTexture` (linear): its R multiplies
    /// `iridescence`. `None` where the film is not drawn.
    pub iridescence_texture: Option<TextureRef>,
    /// KHR_materials_iridescence's `iridescenceIor` (1.3 without it), at least 1: the film's
    /// index (`thin_film_ior`).
    pub iridescence_ior: f32,
    /// KHR_materials_iridescence's `iridescenceThicknessMinimum` and `Maximum` (100 and 400
    /// without them), nm, each finite and non-negative (the minimum may exceed the maximum):
    /// the film's thickness (`thin_film`) where the thickness texture reads 0 and 1; the
    /// maximum without that texture.
    pub iridescence_thickness: [f32; 2],
    /// KHR_materials_iridescence's `iridescenceThicknessTexture` (linear): its G interpolates
    /// the thickness from the minimum to the maximum. `None` where the film is not drawn.
    pub iridescence_thickness_texture: Option<TextureRef>,
    /// KHR_materials_unlit: the surface shows its base colour (factor × texture × COLOR_0) as
    /// radiance, W·m⁻²·sr⁻¹, lit by nothing and lighting nothing (docs/assets.md, "Unlit").
    /// The loader then leaves every other input at its default (the extension ignores them).
    pub unlit: bool,
}

impl Default for GltfMaterial {
    /// glTF 2.0's defaults for a material that writes nothing: white, metallic 1, roughness 1
    /// (the spec's `metallicFactor` and `roughnessFactor`), no emission, ior 1.5, the
    /// extensions at their neutral values, no textures, unlabelled.
    fn default() -> GltfMaterial {
        GltfMaterial {
            label: String::new(),
            base_color: [1.0; 4],
            base_color_texture: None,
            metallic: 1.0,
            roughness: 1.0,
            metallic_roughness_texture: None,
            emissive: [0.0; 3],
            emissive_texture: None,
            normal_texture: None,
            ior: DEFAULT_IOR,
            transmission: 0.0,
            attenuation: [0.0; 3],
            dispersion: 0.0,
            clearcoat: 0.0,
            clearcoat_roughness: 0.0,
            clearcoat_texture: None,
            clearcoat_roughness_texture: None,
            clearcoat_normal_texture: None,
            specular: 1.0,
            specular_texture: None,
            specular_color: [1.0; 3],
            specular_color_texture: None,
            sheen_color: [0.0; 3],
            sheen_roughness: 0.0,
            sheen_color_texture: None,
            sheen_roughness_texture: None,
            iridescence: 0.0,
            iridescence_texture: None,
            iridescence_ior: DEFAULT_IRIDESCENCE_IOR,
            iridescence_thickness: DEFAULT_IRIDESCENCE_THICKNESS,
            iridescence_thickness_texture: None,
            unlit: false,
        }
    }
}

impl GltfMaterial {
    /// Whether any parameter varies over the surface (a texture), so that the BSDF is built at
    /// each hit rather than once.
    pub fn textured(&self) -> bool {
        self.base_color_texture.is_some()
            || self.metallic_roughness_texture.is_some()
            || self.emissive_texture.is_some()
            || self.normal_texture.is_some()
            || self.specular_texture.is_some()
            || self.specular_color_texture.is_some()
            || self.sheen_color_texture.is_some()
            || self.sheen_roughness_texture.is_some()
            || self.iridescence_texture.is_some()
            || self.iridescence_thickness_texture.is_some()
            || self.clearcoat_texture.is_some()
            || self.clearcoat_roughness_texture.is_some()
            || self.clearcoat_normal_texture.is_some()
    }

    /// The texture coordinate sets (`n` of TEXCOORD_n) its textures read.
    pub fn tex_coords(&self) -> impl Iterator<Item = u32> + '_ {
        [
            self.base_color_texture.as_ref(),
            self.metallic_roughness_texture.as_ref(),
            self.emissive_texture.as_ref(),
            self.normal_texture.as_ref().map(|n| &n.texture),
            self.specular_texture.as_ref(),
            self.specular_color_texture.as_ref(),
            self.sheen_color_texture.as_ref(),
            self.sheen_roughness_texture.as_ref(),
            self.iridescence_texture.as_ref(),
            self.iridescence_thickness_texture.as_ref(),
            self.clearcoat_texture.as_ref(),
            self.clearcoat_roughness_texture.as_ref(),
            self.clearcoat_normal_texture.as_ref().map(|n| &n.texture),
        ]
        .into_iter()
        .flatten()
        .map(|t| t.tex_coord)
    }
}
