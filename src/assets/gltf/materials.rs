//! The loader's reading of glTF materials: metallic-roughness factors, texture slots with
//! their samplers, TEXCOORD_n and KHR_texture_transform, and the extensions drawn
//! (KHR_materials_emissive_strength, KHR_materials_ior, KHR_materials_transmission,
//! KHR_materials_volume; docs/materials.md, "glTF transmission"; KHR_materials_unlit,
//! docs/assets.md "Unlit"; KHR_materials_clearcoat, docs/assets.md "Clear coat"; KHR_materials_specular,
//! "Specular"; KHR_materials_sheen, "Sheen"; KHR_materials_iridescence, "Iridescence"). Everything a material holds that
//! the bake does not draw is named once per file, by topic (`Loader::name_once`), with the
//! first material met.

mod iridescence;

use super::*;
use crate::assets::material::{GltfMaterial, NormalTexture, DEFAULT_IOR};
use crate::assets::texture::{
    decode_rgba_shared, Decode, Mip, TextureImage, TextureRef, UvTransform,
};
use crate::assets::MAX_TEX_COORD_SETS;
use ::gltf::texture::MinFilter;
use iridescence::NotFilmed;

/// The material extensions this version draws; any other in a material's `extensions` is
/// named once per file.
const DRAWN_MATERIAL_EXTENSIONS: &[&str] = &[
    "KHR_materials_emissive_strength",
    "KHR_materials_ior",
    "KHR_materials_transmission",
    "KHR_materials_volume",
    "KHR_materials_dispersion",
    "KHR_materials_unlit",
    "KHR_materials_clearcoat",
    "KHR_materials_specular",
    "KHR_materials_sheen",
    "KHR_materials_iridescence",
];

/// KHR_materials_specular as read: see [`GltfMaterial::specular`] and its neighbours.
struct Specular {
    factor: f32,
    color: [f32; 3],
    texture: Option<TextureRef>,
    color_texture: Option<TextureRef>,
}

/// KHR_materials_clearcoat as read: see [`GltfMaterial::clearcoat`] and its neighbours.
struct Clearcoat {
    factor: f32,
    roughness: f32,
    texture: Option<TextureRef>,
    roughness_texture: Option<TextureRef>,
    normal_texture: Option<NormalTexture>,
}

/// KHR_materials_sheen as read: see [`GltfMaterial::sheen_color`] and its neighbours.
struct Sheen {
    color: [f32; 3],
    roughness: f32,
    color_texture: Option<TextureRef>,
    roughness_texture: Option<TextureRef>,
}

/// The most texels one file's textures may decode to, summed over its images (1 GiB of RGBA8):
/// the side limit alone would let a file of many large images exhaust memory.
const MAX_FILE_TEXELS: u64 = 1 << 28;

/// A finite number of a JSON value, or `default`.
fn num(v: Option<&Value>, default: f32) -> f32 {
    v.and_then(Value::as_f64)
        .map(|x| x as f32)
        .filter(|x| x.is_finite())
        .unwrap_or(default)
}

/// `x` in [0, 1]; NaN to `default`.
fn unit(x: f32, default: f32) -> f32 {
    if x.is_nan() {
        default
    } else {
        x.clamp(0.0, 1.0)
    }
}

impl<'a> Loader<'a> {
    /// Warns `message` unless `topic` has already been named for this file.
    fn name_once(&mut self, topic: &str, message: String) {
        if self.named.insert(topic.to_string()) {
            self.warn(message);
        }
    }

    /// The index in [`MeshAsset::materials`] of a primitive's glTF material, read on first
    /// use; `None` for the glTF default material.
    pub(super) fn material(
        &mut self,
        material: &::gltf::Material<'a>,
    ) -> Result<Option<usize>, Failure> {
        let Some(index) = material.index() else {
            return Ok(None);
        };
        if let Some(&m) = self.material_of.get(&index) {
            return Ok(Some(m));
        }
        let label = match material.name() {
            Some(n) => format!("material '{n}'"),
            None => format!("material {index}"),
        };
        let raw = self
            .raw
            .pointer(&format!("/materials/{index}"))
            .cloned()
            .unwrap_or(Value::Null);
        let pbr = material.pbr_metallic_roughness();
        let f = pbr.base_color_factor();
        let base_color = [
            unit(f[0], 1.0),
            unit(f[1], 1.0),
            unit(f[2], 1.0),
            unit(f[3], 1.0),
        ];
        if raw.pointer("/extensions/KHR_materials_unlit").is_some() {
            let m = self.unlit(label, &raw, base_color)?;
            return Ok(Some(self.push_material(index, m)));
        }
        let metallic = unit(pbr.metallic_factor(), 1.0);
        let roughness = unit(pbr.roughness_factor(), 1.0);
        let ext = raw.get("extensions");
        let strength = num(
            ext.and_then(|e| e.pointer("/KHR_materials_emissive_strength/emissiveStrength")),
            1.0,
        );
        let strength = if strength >= 0.0 {
            strength
        } else {
            self.warn(format!(
                "{label}: emissiveStrength {strength} is negative; 1 is used"
            ));
            1.0
        };
        let e = material.emissive_factor();
        let emissive = e.map(|c| {
            let v = if c.is_finite() { c.max(0.0) } else { 0.0 } * strength;
            if v.is_finite() {
                v
            } else {
                0.0
            }
        });
        let ior = match ext.and_then(|e| e.get("KHR_materials_ior")) {
            None => DEFAULT_IOR,
            Some(v) => {
                let ior = num(v.get("ior"), DEFAULT_IOR);
                // 0 is the extension's specular-glossiness mode (an infinite index, Fresnel
                // 1), kept as 0: see `GltfMaterial::ior`.
                if ior >= 1.0 || ior == 0.0 {
                    ior.abs()
                } else {
                    self.warn(format!(
                        "{label}: KHR_materials_ior ior {ior} is below 1; 1 (no \
                         dielectric reflection) is used"
                    ));
                    1.0
                }
            }
        };
        let (transmission, attenuation, dispersion) = if ior == 0.0 {
            self.nothing_enters(ext, &label);
            (0.0, [0.0; 3], 0.0)
        } else {
            let (transmission, attenuation) = self.transmission(ext, &label);
            let dispersion = self.dispersion(ext, transmission, metallic, &label);
            (transmission, attenuation, dispersion)
        };
        if let Some(obj) = ext.and_then(Value::as_object) {
            for name in obj.keys() {
                if !DRAWN_MATERIAL_EXTENSIONS.contains(&name.as_str()) {
                    self.name_once(
                        name,
                        format!(
                            "{name} is not rendered yet (first met on {label}); the material is \
                         drawn from its metallic-roughness parameters"
                        ),
                    );
                }
            }
        }
        if raw.get("occlusionTexture").is_some() {
            self.name_once(
                "occlusionTexture",
                format!(
                    "occlusion textures are not used (first met on {label}): the path tracer \
                 finds occlusion itself (docs/assets.md)"
                ),
            );
        }
        let base_color_texture =
            self.texture_slot(&raw, "/pbrMetallicRoughness/baseColorTexture", &label)?;
        let metallic_roughness_texture = self.texture_slot(
            &raw,
            "/pbrMetallicRoughness/metallicRoughnessTexture",
            &label,
        )?;
        let emissive_texture = self.texture_slot(&raw, "/emissiveTexture", &label)?;
        let normal_texture = self
            .texture_slot(&raw, "/normalTexture", &label)?
            .map(|texture| NormalTexture {
                texture,
                scale: num(raw.pointer("/normalTexture/scale"), 1.0),
            });
        let mut specular = self.specular(&raw, transmission > 0.0, &label)?;
        let coat = self.clearcoat(&raw, transmission > 0.0, &label)?;
        let specular_color = self.specular_color_under_coat(
            specular.color,
            specular.color_texture.is_some(),
            coat.factor,
            &label,
        );
        let not_filmed = if ior == 0.0 {
            Some(NotFilmed::NothingEnters)
        } else if transmission > 0.0 {
            Some(NotFilmed::Because(
                "on a transmitting material (KHR_materials_transmission)",
            ))
        } else if coat.factor > 0.0 {
            Some(NotFilmed::Because(
                "under a clear coat (KHR_materials_clearcoat)",
            ))
        } else if metallic_roughness_texture.is_some() {
            Some(NotFilmed::Because(
                "over a metallicRoughnessTexture (the film's tables are built over one \
                 roughness and metalness)",
            ))
        } else if base_color_texture.is_some() && metallic > 0.0 {
            Some(NotFilmed::Because(
                "over a metal whose baseColorTexture varies its F0 (the film's conductor \
                 tables are built over one F0)",
            ))
        } else {
            None
        };
        let iridescence = self.iridescence(&raw, not_filmed, &label)?;
        let filmed = iridescence.factor > 0.0;
        let specular_color = if filmed {
            self.specular_under_film(&mut specular, specular_color, &label)
        } else {
            specular_color
        };
        let sheen = self.sheen(&raw, transmission > 0.0, coat.factor > 0.0, filmed, &label)?;
        let m = GltfMaterial {
            label,
            base_color,
            base_color_texture,
            metallic,
            roughness,
            metallic_roughness_texture,
            emissive,
            emissive_texture,
            normal_texture,
            ior,
            transmission,
            attenuation,
            dispersion,
            clearcoat: coat.factor,
            clearcoat_roughness: coat.roughness,
            clearcoat_texture: coat.texture,
            clearcoat_roughness_texture: coat.roughness_texture,
            clearcoat_normal_texture: coat.normal_texture,
            specular: specular.factor,
            specular_texture: specular.texture,
            specular_color,
            specular_color_texture: specular.color_texture,
            sheen_color: sheen.color,
            sheen_roughness: sheen.roughness,
            sheen_color_texture: sheen.color_texture,
            sheen_roughness_texture: sheen.roughness_texture,
            iridescence: iridescence.factor,
            iridescence_texture: iridescence.texture,
            iridescence_ior: iridescence.ior,
            iridescence_thickness: iridescence.thickness,
            iridescence_thickness_texture: iridescence.thickness_texture,
            unlit: false,
        };
        Ok(Some(self.push_material(index, m)))
    }

    /// Adds `m`, the file's material `index`, to the asset; its index in
    /// [`MeshAsset::materials`].
    fn push_material(&mut self, index: usize, m: GltfMaterial) -> usize {
        self.asset.materials.push(m);
        let slot = self.asset.materials.len() - 1;
        self.material_of.insert(index, slot);
        slot
    }

    /// A KHR_materials_unlit material (`raw`, its JSON): the base colour factor and texture
    /// alone, every other input left at its default. The extension asks a viewer to ignore
    /// them (they are the fallback of one that does not know it); those present that would
    /// change a lit material (textures, emission, other extensions) are named once per file.
    fn unlit(
        &mut self,
        label: String,
        raw: &Value,
        base_color: [f32; 4],
    ) -> Result<GltfMaterial, Failure> {
        let mut ignored: Vec<String> = Vec::new();
        let emits = raw
            .get("emissiveFactor")
            .and_then(Value::as_array)
            .is_some_and(|e| e.iter().any(|c| c.as_f64().is_some_and(|c| c != 0.0)));
        if emits {
            ignored.push("emissiveFactor".into());
        }
        for at in [
            "/pbrMetallicRoughness/metallicRoughnessTexture",
            "/normalTexture",
            "/occlusionTexture",
            "/emissiveTexture",
        ] {
            if raw.pointer(at).is_some() {
                ignored.push(at.rsplit('/').next().unwrap_or(at).into());
            }
        }
        if let Some(obj) = raw.get("extensions").and_then(Value::as_object) {
            ignored.extend(
                obj.keys()
                    .filter(|k| k.as_str() != "KHR_materials_unlit")
                    .cloned(),
            );
        }
        if !ignored.is_empty() {
            self.name_once(
                "unlit inputs",
                format!(
                    "KHR_materials_unlit: {} have no effect on an unlit material, which shows \
                     its base colour alone (first met on {label})",
                    ignored.join(", ")
                ),
            );
        }
        let base_color_texture =
            self.texture_slot(raw, "/pbrMetallicRoughness/baseColorTexture", &label)?;
        Ok(GltfMaterial {
            label,
            base_color,
            base_color_texture,
            metallic: 0.0,
            unlit: true,
            ..GltfMaterial::default()
        })
    }

    /// KHR_materials_transmission's factor and KHR_materials_volume's absorption coefficient
    /// (see [`GltfMaterial::transmission`], [`GltfMaterial::attenuation`]); what they hold that
    /// is not drawn (their textures, a thin-walled transmitter) is named once per file.
    fn transmission(&mut self, ext: Option<&Value>, label: &str) -> (f32, [f32; 3]) {
        let Some(t) = ext.and_then(|e| e.get("KHR_materials_transmission")) else {
            return (0.0, [0.0; 3]);
        };
        let transmission = unit(num(t.get("transmissionFactor"), 0.0), 0.0);
        if t.get("transmissionTexture").is_some() {
            self.name_once(
                "transmissionTexture",
                format!(
                    "KHR_materials_transmission's transmissionTexture is not rendered yet \
                     (first met on {label}); its transmissionFactor is drawn"
                ),
            );
        }
        let volume = ext.and_then(|e| e.get("KHR_materials_volume"));
        let thickness = volume.map_or(0.0, |v| num(v.get("thicknessFactor"), 0.0));
        let thick = thickness > 0.0;
        if transmission > 0.0 && !thick {
            self.name_once(
                "thin-walled transmission",
                format!(
                    "a thin-walled transmitter (KHR_materials_transmission without \
                     KHR_materials_volume's thickness, first met on {label}) is drawn as the \
                     interface of a refracting body: thin walls are not rendered yet"
                ),
            );
        }
        let Some(v) = volume.filter(|_| thick) else {
            return (transmission, [0.0; 3]);
        };
        if v.get("thicknessTexture").is_some() {
            self.name_once(
                "thicknessTexture",
                format!(
                    "KHR_materials_volume's thickness has no effect (first met on {label}): the \
                     path tracer measures the distance travelled inside the body"
                ),
            );
        }
        let distance = num(v.get("attenuationDistance"), f32::INFINITY);
        let color = v.get("attenuationColor").and_then(Value::as_array);
        let channel = |i: usize| {
            let c = color.and_then(|c| c.get(i));
            unit(num(c, 1.0), 1.0).max(1e-4)
        };
        if distance.is_nan() || distance <= 0.0 || distance.is_infinite() {
            return (transmission, [0.0; 3]);
        }
        let sigma = |i: usize| {
            let s = -channel(i).ln() / distance;
            if s.is_finite() {
                s.max(0.0)
            } else {
                0.0
            }
        };
        (transmission, [sigma(0), sigma(1), sigma(2)])
    }

    /// Under KHR_materials_ior's `ior = 0` (the specular-glossiness mode: "the effective IOR
    /// becomes positive infinity and the Fresnel term MUST evaluate to 1.0", and every feature
    /// treats the index as infinite) no light enters the surface, so KHR_materials_transmission
    /// (with KHR_materials_volume) and KHR_materials_dispersion have no effect: drawn so, and
    /// named once per file where they would otherwise show (a transmission or dispersion
    /// above 0), since such a file likely meant something else.
    fn nothing_enters(&mut self, ext: Option<&Value>, label: &str) {
        let above_zero = |at: &str| {
            ext.and_then(|e| e.pointer(at))
                .and_then(Value::as_f64)
                .is_some_and(|x| x > 0.0)
        };
        let mut moot = Vec::new();
        if above_zero("/KHR_materials_transmission/transmissionFactor") {
            moot.push("KHR_materials_transmission (and KHR_materials_volume)");
        }
        if above_zero("/KHR_materials_dispersion/dispersion") {
            moot.push("KHR_materials_dispersion");
        }
        if moot.is_empty() {
            return;
        }
        self.name_once(
            "ior 0 transmission",
            format!(
                "{label}: KHR_materials_ior ior 0 is the specular-glossiness mode (an infinite \
                 index, Fresnel 1 at every angle), so no light enters the surface: {} have no \
                 effect, as the extension says; the material is drawn opaque",
                moot.join(" and ")
            ),
        );
    }

    /// KHR_materials_clearcoat's factors and textures (see [`GltfMaterial::clearcoat`] and
    /// its neighbours); `transmits`: the material has a transmitted share. A coat over a
    /// transmitting base is named once per file and drawn uncoated (factor 0, no textures).
    fn clearcoat(
        &mut self,
        raw: &Value,
        transmits: bool,
        label: &str,
    ) -> Result<Clearcoat, Failure> {
        let none = Clearcoat {
            factor: 0.0,
            roughness: 0.0,
            texture: None,
            roughness_texture: None,
            normal_texture: None,
        };
        let Some(c) = raw.pointer("/extensions/KHR_materials_clearcoat") else {
            return Ok(none);
        };
        let factor = unit(num(c.get("clearcoatFactor"), 0.0), 0.0);
        let roughness = unit(num(c.get("clearcoatRoughnessFactor"), 0.0), 0.0);
        // A coat of weight 0 is no coat, whatever its textures say (factor × texture).
        if factor <= 0.0 {
            return Ok(none);
        }
        if transmits {
            let base = "a transmitting base (KHR_materials_transmission)";
            self.name_once(
                &format!("clearcoat over {base}"),
                format!(
                    "KHR_materials_clearcoat over {base} is not rendered yet (first met on \
                     {label}): the material is drawn uncoated"
                ),
            );
            return Ok(none);
        }
        let at = "/extensions/KHR_materials_clearcoat";
        let normal_texture = self
            .texture_slot(raw, &format!("{at}/clearcoatNormalTexture"), label)?
            .map(|texture| NormalTexture {
                texture,
                scale: num(c.pointer("/clearcoatNormalTexture/scale"), 1.0),
            });
        Ok(Clearcoat {
            factor,
            roughness,
            texture: self.texture_slot(raw, &format!("{at}/clearcoatTexture"), label)?,
            roughness_texture: self.texture_slot(
                raw,
                &format!("{at}/clearcoatRoughnessTexture"),
                label,
            )?,
            normal_texture,
        })
    }

    /// KHR_materials_specular's factors and textures (see [`GltfMaterial::specular`],
    /// [`GltfMaterial::specular_color`]); the defaults (1, white, none) without it. On a
    /// transmitting material (`transmits`) the extension is named once per file and left at
    /// its defaults: the transmitting lobe takes one scalar F0 of the ior.
    fn specular(&mut self, raw: &Value, transmits: bool, label: &str) -> Result<Specular, Failure> {
        let none = Specular {
            factor: 1.0,
            color: [1.0; 3],
            texture: None,
            color_texture: None,
        };
        let Some(sp) = raw.pointer("/extensions/KHR_materials_specular") else {
            return Ok(none);
        };
        if transmits {
            self.name_once(
                "specular over transmission",
                format!(
                    "KHR_materials_specular on a transmitting material \
                     (KHR_materials_transmission) is not rendered yet (first met on {label}): \
                     its reflection is the ior's F0"
                ),
            );
            return Ok(none);
        }
        let factor = unit(num(sp.get("specularFactor"), 1.0), 1.0);
        let c = sp.get("specularColorFactor").and_then(Value::as_array);
        // The spec lets the colour exceed 1 (the product with the ior's F0 is clamped).
        let channel = |i: usize| num(c.and_then(|c| c.get(i)), 1.0).max(0.0);
        let color = [channel(0), channel(1), channel(2)];
        // A weight of 0 removes the layer whatever its textures say (factor × texture).
        let (texture, color_texture) = if factor > 0.0 {
            (
                self.texture_slot(
                    raw,
                    "/extensions/KHR_materials_specular/specularTexture",
                    label,
                )?,
                self.texture_slot(
                    raw,
                    "/extensions/KHR_materials_specular/specularColorTexture",
                    label,
                )?,
            )
        } else {
            (None, None)
        };
        Ok(Specular {
            factor,
            color,
            texture,
            color_texture,
        })
    }

    /// `color`, KHR_materials_specular's colour, kept as authored; under a clear coat of
    /// weight `clearcoat` a tinted one, or one with a `specularColorTexture` (`textured`), is
    /// named once per file, because the coat's compensation lobe takes an untinted base
    /// layer, so the world draws the colour (factor × texture) grey at its luminance there
    /// (`world::gltf_surface`; the loader names no colour science).
    fn specular_color_under_coat(
        &mut self,
        color: [f32; 3],
        textured: bool,
        clearcoat: f32,
        label: &str,
    ) -> [f32; 3] {
        let tinted = color[0] != color[1] || color[1] != color[2];
        if clearcoat <= 0.0 || !(tinted || textured) {
            return color;
        }
        let key = if tinted {
            "specularColorFactor"
        } else {
            "specularColorTexture"
        };
        self.name_once(
            "specular colour under a coat",
            format!(
                "KHR_materials_specular's {key} under a clear coat is not rendered yet (first \
                 met on {label}): its luminance is drawn, untinted"
            ),
        );
        color
    }

    /// KHR_materials_sheen's factors and textures (see [`GltfMaterial::sheen_color`] and its
    /// neighbours); black, without textures, without it. `transmits`: the material has a
    /// transmitted share; `coated`: a clear coat is drawn over it; `filmed`: a thin film
    /// (KHR_materials_iridescence) is drawn on it. A sheen over a transmitting base, under a
    /// coat or with a film is named once per file and dropped (black, its textures not read),
    /// as the format's `sheen` is with a coat, transmission or a thin film.
    fn sheen(
        &mut self,
        raw: &Value,
        transmits: bool,
        coated: bool,
        filmed: bool,
        label: &str,
    ) -> Result<Sheen, Failure> {
        let none = Sheen {
            color: [0.0; 3],
            roughness: 0.0,
            color_texture: None,
            roughness_texture: None,
        };
        let Some(sh) = raw.pointer("/extensions/KHR_materials_sheen") else {
            return Ok(none);
        };
        let c = sh.get("sheenColorFactor").and_then(Value::as_array);
        let channel = |i: usize| unit(num(c.and_then(|c| c.get(i)), 0.0), 0.0);
        let color = [channel(0), channel(1), channel(2)];
        let roughness = unit(num(sh.get("sheenRoughnessFactor"), 0.0), 0.0);
        // A black sheen is no sheen, whatever its textures say (factor × texture).
        if color == [0.0; 3] {
            return Ok(none);
        }
        let not_with = if transmits {
            Some("over a transmitting base (KHR_materials_transmission)")
        } else if coated {
            Some("under a clear coat (KHR_materials_clearcoat)")
        } else if filmed {
            Some("with a thin film (KHR_materials_iridescence)")
        } else {
            None
        };
        if let Some(case) = not_with {
            self.name_once(
                &format!("sheen {case}"),
                format!(
                    "KHR_materials_sheen {case} is not rendered yet (first met on {label}): \
                     the material is drawn without its sheen"
                ),
            );
            return Ok(none);
        }
        Ok(Sheen {
            color,
            roughness,
            color_texture: self.texture_slot(
                raw,
                "/extensions/KHR_materials_sheen/sheenColorTexture",
                label,
            )?,
            roughness_texture: self.texture_slot(
                raw,
                "/extensions/KHR_materials_sheen/sheenRoughnessTexture",
                label,
            )?,
        })
    }

    /// KHR_materials_dispersion's `dispersion` (see [`GltfMaterial::dispersion`]); on a material
    /// that does not transmit fully or is metallic, named once per file as not drawn.
    fn dispersion(
        &mut self,
        ext: Option<&Value>,
        transmission: f32,
        metallic: f32,
        label: &str,
    ) -> f32 {
        let Some(d) = ext.and_then(|e| e.get("KHR_materials_dispersion")) else {
            return 0.0;
        };
        let dispersion = num(d.get("dispersion"), 0.0).max(0.0);
        if dispersion > 0.0 && (transmission < 1.0 || metallic > 0.0) {
            self.name_once(
                "partial dispersion",
                format!(
                    "KHR_materials_dispersion is not rendered yet on a material that is not \
                     fully transmitting (transmissionFactor 1, metallicFactor 0; first met on \
                     {label})"
                ),
            );
        }
        dispersion
    }

    /// The texture slot at JSON pointer `at` under the material (`raw`): its texture, sampler,
    /// TEXCOORD_n and KHR_texture_transform; `None` when the slot is empty, or reads a set
    /// beyond [`MAX_TEX_COORD_SETS`] (named).
    fn texture_slot(
        &mut self,
        raw: &Value,
        at: &str,
        label: &str,
    ) -> Result<Option<TextureRef>, Failure> {
        let Some(info) = raw.pointer(at) else {
            return Ok(None);
        };
        let slot = match at.rsplit('/').next().unwrap_or(at) {
            "baseColorTexture" => "base colour texture",
            "metallicRoughnessTexture" => "metallic-roughness texture",
            "emissiveTexture" => "emissive texture",
            "normalTexture" => "normal texture",
            "specularTexture" => "KHR_materials_specular specularTexture",
            "specularColorTexture" => "KHR_materials_specular specularColorTexture",
            "sheenColorTexture" => "KHR_materials_sheen sheenColorTexture",
            "sheenRoughnessTexture" => "KHR_materials_sheen sheenRoughnessTexture",
            "iridescenceTexture" => "KHR_materials_iridescence iridescenceTexture",
            "iridescenceThicknessTexture" => {
                "KHR_materials_iridescence iridescenceThicknessTexture"
            }
            "clearcoatTexture" => "KHR_materials_clearcoat clearcoatTexture",
            "clearcoatRoughnessTexture" => "KHR_materials_clearcoat clearcoatRoughnessTexture",
            "clearcoatNormalTexture" => "KHR_materials_clearcoat clearcoatNormalTexture",
            other => other,
        };
        let doc = self.doc;
        let Some(texture) = info
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| doc.textures().nth(i))
        else {
            return Err(format!("{label}: its {slot} names no texture of the file").into());
        };
        let xf = info.pointer("/extensions/KHR_texture_transform");
        let set = xf
            .and_then(|x| x.get("texCoord"))
            .or_else(|| info.get("texCoord"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        if set >= u64::from(MAX_TEX_COORD_SETS) {
            self.warn(format!(
                "{label}: its {slot} reads TEXCOORD_{set}; only TEXCOORD_0 to TEXCOORD_{} are \
                 read, so the texture is not drawn",
                MAX_TEX_COORD_SETS - 1
            ));
            return Ok(None);
        }
        let transform = match xf {
            None => UvTransform::default(),
            Some(x) => {
                let pair = |key: &str, d: f32| {
                    let v = x.get(key);
                    Vec2::new(
                        num(v.and_then(|v| v.get(0)), d),
                        num(v.and_then(|v| v.get(1)), d),
                    )
                };
                UvTransform::new(
                    pair("offset", 0.0),
                    num(x.get("rotation"), 0.0),
                    pair("scale", 1.0),
                )
            }
        };
        let sampler = texture.sampler();
        let wrap = |m: WrappingMode| match m {
            WrappingMode::Repeat => Wrap::Repeat,
            WrappingMode::ClampToEdge => Wrap::ClampToEdge,
            WrappingMode::MirroredRepeat => Wrap::MirroredRepeat,
        };
        let filter = match sampler.mag_filter() {
            Some(MagFilter::Nearest) => Filter::Nearest,
            _ => Filter::Bilinear,
        };
        // minFilter: its texel part within a level, its mip part between levels. No
        // minFilter is trilinear (docs/assets.md, "Texture filtering").
        let (minify, mip) = match sampler.min_filter() {
            None | Some(MinFilter::LinearMipmapLinear) => (Filter::Bilinear, Mip::Linear),
            Some(MinFilter::Nearest) => (Filter::Nearest, Mip::Off),
            Some(MinFilter::Linear) => (Filter::Bilinear, Mip::Off),
            Some(MinFilter::NearestMipmapNearest) => (Filter::Nearest, Mip::Nearest),
            Some(MinFilter::LinearMipmapNearest) => (Filter::Bilinear, Mip::Nearest),
            Some(MinFilter::NearestMipmapLinear) => (Filter::Nearest, Mip::Linear),
        };
        let what = format!("{label}: {slot}");
        let image = self.texture_image(&texture, &what)?;
        if mip != Mip::Off {
            // Built here, once per image and decoding, rather than by the first render thread
            // that minifies it (glTF 2.0 §3.9: colour slots are sRGB, the others linear).
            let decode = match at.rsplit('/').next() {
                Some(
                    "baseColorTexture"
                    | "emissiveTexture"
                    | "specularColorTexture"
                    | "sheenColorTexture",
                ) => Decode::Srgb,
                _ => Decode::Linear,
            };
            image.pyramid(decode);
        }
        Ok(Some(TextureRef {
            image,
            wrap_s: wrap(sampler.wrap_s()),
            wrap_t: wrap(sampler.wrap_t()),
            filter,
            minify,
            mip,
            tex_coord: set as u32,
            transform,
        }))
    }

    /// A texture's image as RGBA8, decoded once per image of the file and shared, and
    /// through the process's texture cache once per distinct image while it is held.
    fn texture_image(
        &mut self,
        texture: &::gltf::Texture<'a>,
        what: &str,
    ) -> Result<Arc<TextureImage>, Failure> {
        let image = texture.source();
        if let Some(t) = self.images.get(&image.index()) {
            return Ok(t.clone());
        }
        let what = match image.name() {
            Some(n) => format!("{what} image {} '{n}'", image.index()),
            None => format!("{what} image {}", image.index()),
        };
        let bytes = self.image_bytes(&image, &what)?;
        let decoded = decode_rgba_shared(&bytes).map_err(|e| format!("{what}: {e}"))?;
        let texels = u64::from(decoded.width) * u64::from(decoded.height);
        self.texels_decoded = self.texels_decoded.saturating_add(texels);
        if self.texels_decoded > MAX_FILE_TEXELS {
            return Err(format!(
                "{what}: the file's textures decode to more than {MAX_FILE_TEXELS} texels"
            )
            .into());
        }
        self.images.insert(image.index(), decoded.clone());
        Ok(decoded)
    }

    /// An image's bytes: from a bufferView (GLB), a data URI or a file beside the glTF.
    pub(super) fn image_bytes(
        &self,
        image: &::gltf::Image<'a>,
        what: &str,
    ) -> Result<Cow<'a, [u8]>, Failure> {
        Ok(match image.source() {
            ::gltf::image::Source::View { view, .. } => {
                Cow::Borrowed(self.view_bytes(&view, 0, view.length(), 1, 1, what)?)
            }
            ::gltf::image::Source::Uri { uri, .. } if uri.starts_with("data:") => {
                let data = ::gltf::buffer::Data::from_source(Source::Uri(uri), None)
                    .map_err(|e| format!("{what}: bad data URI: {e}"))?;
                Cow::Owned(data.0)
            }
            ::gltf::image::Source::Uri { uri, .. } => {
                Cow::Owned(read_file_uri(self.base, uri, what)?)
            }
        })
    }
}
