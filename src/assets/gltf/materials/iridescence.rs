//! KHR_materials_iridescence as the loader reads it (docs/assets.md, "Iridescence"): the
//! film's factors and textures, where it is not drawn (named), and what its neighbours
//! (KHR_materials_specular) keep under it.

use super::*;
use crate::assets::material::{DEFAULT_IRIDESCENCE_IOR, DEFAULT_IRIDESCENCE_THICKNESS};

/// KHR_materials_iridescence as read: see [`GltfMaterial::iridescence`] and its neighbours.
pub(super) struct Iridescence {
    pub(super) factor: f32,
    pub(super) texture: Option<TextureRef>,
    pub(super) ior: f32,
    pub(super) thickness: [f32; 2],
    pub(super) thickness_texture: Option<TextureRef>,
}

impl Iridescence {
    /// No film (the extension absent, its factor 0, or not drawn).
    fn none() -> Iridescence {
        Iridescence {
            factor: 0.0,
            texture: None,
            ior: DEFAULT_IRIDESCENCE_IOR,
            thickness: DEFAULT_IRIDESCENCE_THICKNESS,
            thickness_texture: None,
        }
    }
}

/// Why a material's KHR_materials_iridescence is not drawn.
#[derive(Clone, Copy)]
pub(super) enum NotFilmed {
    /// KHR_materials_ior's `ior = 0`: the layer reflects everything, film or not.
    NothingEnters,
    /// Not rendered yet in this case (a phrase: "on a transmitting material (…)").
    Because(&'static str),
}

impl<'a> Loader<'a> {
    /// KHR_materials_iridescence's factors and textures (see [`GltfMaterial::iridescence`] and
    /// its neighbours); no film without it or at factor 0 (the extension then "has no
    /// effect"). Where `not_filmed` says the film is not drawn it is named once per file and
    /// dropped (factor 0, its textures not read).
    pub(super) fn iridescence(
        &mut self,
        raw: &Value,
        not_filmed: Option<NotFilmed>,
        label: &str,
    ) -> Result<Iridescence, Failure> {
        const AT: &str = "/extensions/KHR_materials_iridescence";
        let Some(ir) = raw.pointer(AT) else {
            return Ok(Iridescence::none());
        };
        let factor = unit(num(ir.get("iridescenceFactor"), 0.0), 0.0);
        // Factor × texture: a factor of 0 is no film whatever the texture says.
        if factor <= 0.0 {
            return Ok(Iridescence::none());
        }
        match not_filmed {
            Some(NotFilmed::NothingEnters) => {
                self.name_once(
                    "iridescence under ior 0",
                    format!(
                        "KHR_materials_iridescence has no effect under KHR_materials_ior's ior 0 \
                         (first met on {label}): the layer under the film reflects everything, \
                         so the film does too"
                    ),
                );
                return Ok(Iridescence::none());
            }
            Some(NotFilmed::Because(case)) => {
                self.name_once(
                    &format!("iridescence {case}"),
                    format!(
                        "KHR_materials_iridescence {case} is not rendered yet (first met on \
                         {label}): the material is drawn without its film"
                    ),
                );
                return Ok(Iridescence::none());
            }
            None => {}
        }
        let film_ior = num(ir.get("iridescenceIor"), DEFAULT_IRIDESCENCE_IOR);
        let film_ior = if film_ior >= 1.0 {
            film_ior
        } else {
            self.warn(format!(
                "{label}: KHR_materials_iridescence iridescenceIor {film_ior} is below 1; 1 (a \
                 film matching the air, no interference) is used"
            ));
            1.0
        };
        let mut thickness = DEFAULT_IRIDESCENCE_THICKNESS;
        for (i, key) in ["iridescenceThicknessMinimum", "iridescenceThicknessMaximum"]
            .into_iter()
            .enumerate()
        {
            let d = num(ir.get(key), DEFAULT_IRIDESCENCE_THICKNESS[i]);
            thickness[i] = if d >= 0.0 {
                d
            } else {
                self.warn(format!(
                    "{label}: KHR_materials_iridescence {key} {d} is negative; 0 is used"
                ));
                0.0
            };
        }
        Ok(Iridescence {
            factor,
            texture: self.texture_slot(raw, &format!("{AT}/iridescenceTexture"), label)?,
            ior: film_ior,
            thickness,
            thickness_texture: self.texture_slot(
                raw,
                &format!("{AT}/iridescenceThicknessTexture"),
                label,
            )?,
        })
    }

    /// KHR_materials_specular under a drawn film: the film lies over a layer of one F0 (the
    /// format's `specular`), so a grey `color` at weight 1 without textures is drawn (F0 =
    /// `min(F0(ior) · c, 1)`); a weight below 1, a tint or a texture is named once per file
    /// and left at its defaults (the layer's F0 is the ior's). Returns the colour to keep.
    pub(super) fn specular_under_film(
        &mut self,
        specular: &mut Specular,
        color: [f32; 3],
        label: &str,
    ) -> [f32; 3] {
        let grey = color[0] == color[1] && color[1] == color[2];
        if specular.factor >= 1.0
            && grey
            && specular.texture.is_none()
            && specular.color_texture.is_none()
        {
            return color;
        }
        self.name_once(
            "specular under a film",
            format!(
                "KHR_materials_specular's weight, tint or textures under KHR_materials_iridescence \
                 are not rendered yet (first met on {label}): the film lies over the ior's F0"
            ),
        );
        specular.factor = 1.0;
        specular.texture = None;
        specular.color_texture = None;
        [1.0; 3]
    }
}
