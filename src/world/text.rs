//! `[text.<name>]` blocks into the world: each static block's glyphs filled into triangles
//! (`assets::font`), scaled by `size`, placed at `at` turned by `rotate` (through its
//! placement's frame), given a lit or an unlit surface of its colour, and drawn as one
//! instance; each dynamic block recorded for the manifest and left out of the plate.
//! What a block looks like and why is written in `docs/text.md`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use glam::{Mat3, Mat4, Vec2, Vec3};

use super::build::{asset_diag, diag, key_location};
use super::materials::material_def;
use super::{mask, Capability, Cut, InstanceInfo, MaterialDef, MeshShading};
use crate::accel::{Instance, TriangleMesh};
use crate::assets::{self, AssetError, AssetErrorKind, Coverage, Font};
use crate::scene::{self, Code, Diagnostic, Scene};

/// [`InstanceInfo::object`] of a text block's instance: a text block is no `[[object]]`.
pub const TEXT_INSTANCE: u32 = u32::MAX;

/// The most triangles the text blocks of one scene fill to, over all blocks.
pub const MAX_TEXT_TRIANGLES: usize = 20_000_000;

/// One text block as the manifest lists it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TextRecord {
    /// Its key.
    pub key: String,
    /// Its id.
    pub id: Option<String>,
    /// The words.
    pub text: String,
    /// The font file, relative to the root, `/`-separated.
    pub font: String,
    /// Scene units per em.
    pub size: f32,
    /// Linear RGB and alpha, as written.
    pub color: [f32; 4],
    /// Shaded by the scene, or glowing its colour.
    pub lit: bool,
    /// Drawn live over the plate (left out of it), or baked into it.
    pub dynamic: bool,
    /// World-from-block transform, column-major 4×4 (`world[c][r]`): the block's centre at the
    /// origin, reading along +X with +Y up, facing +Z, one unit one scene unit (`size` is not
    /// in it: the live renderer scales its em to `size`).
    pub world: [[f32; 4]; 4],
    /// The block's advance box (widest line × lines), scene units, centred on the origin.
    pub extent: [f32; 2],
    /// Triangles baked into the plate (0 for dynamic text).
    pub triangles: usize,
}

/// Where a world's text geometry goes: the builder's own lists, extended in place.
pub(super) struct TextSink<'a> {
    pub tri_meshes: &'a mut Vec<TriangleMesh>,
    pub shading: &'a mut Vec<MeshShading>,
    pub instances: &'a mut Vec<Instance>,
    pub infos: &'a mut Vec<InstanceInfo>,
    pub materials: &'a mut Vec<MaterialDef>,
    pub cuts: &'a mut Vec<Cut>,
    pub asset_files: &'a mut Vec<PathBuf>,
    pub capabilities: &'a mut Vec<Capability>,
    pub errors: &'a mut Vec<Diagnostic>,
}

/// A text block's dotted key, as the reader writes it (a placed block's by its own name, in
/// its prefab's file).
fn dkey(t: &scene::Text, field: &str) -> String {
    let name = t.key.rsplit('/').next().unwrap_or(&t.key);
    format!("text.{name}.{field}")
}

/// The diagnostic of a font that would not load or lay out, at the key it is about.
fn text_diag(scene: &Scene, t: &scene::Text, field: &str, e: &AssetError) -> Diagnostic {
    let key = dkey(t, field);
    let (at, width) = key_location(scene, &format!("text.{field}"), &key, Some(&t.at_loc.file))
        .unwrap_or_else(|| (t.at_loc.clone(), 1));
    asset_diag(at, width, key, &t.font, e)
}

/// Lays out and fills every text block of `scene`: static ones into `sink`, every one into
/// the returned records. `frame_of` gives a placement's world transform.
pub(super) fn build_texts(
    scene: &Scene,
    frame_of: &dyn Fn(Option<&str>) -> Mat4,
    filter_glossy: f32,
    sink: TextSink,
) -> Vec<TextRecord> {
    let mut fonts: HashMap<PathBuf, Option<Arc<Font>>> = HashMap::new();
    // Each glyph of each font filled once, em units.
    let mut glyphs: HashMap<(PathBuf, u16), Arc<Vec<[Vec2; 3]>>> = HashMap::new();
    let mut records = Vec::new();
    let mut total = 0usize;
    for t in &scene.texts {
        let font = fonts
            .entry(t.font.clone())
            .or_insert_with(|| match assets::load_font(&scene.root.join(&t.font)) {
                Ok(f) => {
                    if !sink.asset_files.contains(&t.font) {
                        sink.asset_files.push(t.font.clone());
                    }
                    Some(Arc::new(f))
                }
                Err(e) => {
                    sink.errors.push(text_diag(scene, t, "font", &e));
                    None
                }
            })
            .clone();
        let Some(font) = font else { continue };
        if font.kerns_by_gpos_only {
            let what = format!("text.font kerning of {}", t.font.display());
            if !sink.capabilities.iter().any(|c| c.what == what) {
                sink.capabilities.push(Capability {
                    message: format!(
                        "{} kerns through its GPOS table only, which the bake does not read: its \
                         text is spaced by advance widths alone",
                        t.font.display()
                    ),
                    what,
                    at: t.at_loc.clone(),
                    count: 1,
                });
            }
        }
        let layout = match font.lay_out(&t.text) {
            Ok(l) => l,
            Err(m) => {
                let e = AssetError {
                    file: t.font.clone(),
                    kind: AssetErrorKind::FontGlyph,
                    message: format!("character {} of text: {}", m.at + 1, m.message),
                };
                sink.errors.push(text_diag(scene, t, "text", &e));
                continue;
            }
        };
        let size = if t.size.is_finite() && t.size > 0.0 {
            t.size
        } else {
            1.0
        };
        let world =
            frame_of(t.parent.as_deref()) * crate::geometry::model_matrix(t.at, t.rotate, [1.0; 3]);
        let det = world.determinant();
        if !det.is_finite() || det.abs() < 1e-12 {
            sink.errors.push(diag(
                &t.at_loc,
                Code::BadValue,
                dkey(t, "at"),
                format!(
                    "text {:?} is placed by a transform that flattens it (determinant {det}): a \
                     zero scale on its placement cannot be drawn",
                    t.key
                ),
            ));
            continue;
        }
        let mut record = TextRecord {
            key: t.key.clone(),
            id: t.id.clone(),
            text: t.text.clone(),
            font: t.font.to_string_lossy().replace('\\', "/"),
            size: t.size,
            color: t.color,
            lit: t.lit,
            dynamic: t.dynamic,
            world: world.to_cols_array_2d(),
            extent: (layout.size * size).to_array(),
            triangles: 0,
        };
        if t.dynamic {
            records.push(record);
            continue;
        }
        // The glyphs' triangles in the block's frame, scene units.
        let mut positions: Vec<Vec3> = Vec::new();
        let mut indices: Vec<[u32; 3]> = Vec::new();
        let mut failed = false;
        let mut blank: Vec<char> = Vec::new();
        for g in &layout.glyphs {
            let tris = match glyphs.get(&(t.font.clone(), g.glyph)) {
                Some(tris) => tris.clone(),
                None => match font.glyph_triangles(g.glyph) {
                    Ok(v) => {
                        let v = Arc::new(v);
                        glyphs.insert((t.font.clone(), g.glyph), v.clone());
                        v
                    }
                    Err(m) => {
                        let e = AssetError {
                            file: t.font.clone(),
                            kind: AssetErrorKind::FontInvalid,
                            message: m,
                        };
                        sink.errors.push(text_diag(scene, t, "font", &e));
                        failed = true;
                        break;
                    }
                },
            };
            if tris.is_empty() && !g.ch.is_whitespace() && !blank.contains(&g.ch) {
                blank.push(g.ch);
            }
            total += tris.len();
            if total > MAX_TEXT_TRIANGLES {
                let e = AssetError {
                    file: t.font.clone(),
                    kind: AssetErrorKind::FontInvalid,
                    message: format!(
                        "the scene's text fills to over {MAX_TEXT_TRIANGLES} triangles"
                    ),
                };
                sink.errors.push(text_diag(scene, t, "text", &e));
                failed = true;
                break;
            }
            for tri in tris.iter() {
                let base = positions.len() as u32;
                for p in tri {
                    let q = (g.origin + *p) * size;
                    positions.push(Vec3::new(q.x, q.y, 0.0));
                }
                indices.push([base, base + 1, base + 2]);
            }
        }
        if failed {
            continue;
        }
        if !blank.is_empty() {
            // A glyph the font maps but gives no outline: right for a zero-width or format
            // character, a broken font otherwise; either way nothing is drawn for it.
            let list: String = blank.iter().map(|c| format!(" {c:?}")).collect();
            sink.capabilities.push(Capability {
                what: format!("text.{} blank glyphs", t.key),
                message: format!(
                    "text {:?}: {} has no outline for{list}, which draw nothing",
                    t.key,
                    t.font.display()
                ),
                at: t.at_loc.clone(),
                count: 1,
            });
        }
        record.triangles = indices.len();
        records.push(record);
        if indices.is_empty() || !sink.errors.is_empty() {
            continue;
        }
        let material = text_material(t, filter_glossy, sink.capabilities);
        sink.materials.push(material);
        let alpha = if t.color[3].is_finite() {
            t.color[3].clamp(0.0, 1.0)
        } else {
            1.0
        };
        // Alpha below 1: stochastic coverage, as a glTF BLEND material's (`Cut::keeps`).
        let cut = (alpha < 1.0).then(|| {
            sink.cuts.push(Cut {
                planes: Vec::new(),
                coverage: Some(Coverage {
                    material: format!("text {}", t.key),
                    blend: true,
                    factor: alpha,
                    texture: None,
                    file_cutoff: 0.5,
                }),
                cutoff: 0.5,
            });
            (sink.cuts.len() - 1) as u32
        });
        let n = positions.len();
        sink.tri_meshes.push(TriangleMesh { positions, indices });
        sink.shading.push(MeshShading {
            normals: vec![Vec3::Z; n],
            uvs: vec![Vec2::ZERO; n],
            ..MeshShading::default()
        });
        sink.instances.push(Instance {
            mesh: (sink.tri_meshes.len() - 1) as u32,
            world_from_object: world,
            mask: mask::DRAWN | mask::CASTS,
        });
        sink.infos.push(InstanceInfo {
            material: (sink.materials.len() - 1) as u32,
            normal_matrix: Mat3::from_mat4(world).inverse().transpose(),
            orientation: det.signum(),
            two_sided: true,
            first_light: None,
            object: TEXT_INSTANCE,
            cut,
            glow: !t.lit,
        });
    }
    records
}

/// A text block's surface: lit text a diffuse (Lambertian, no specular layer) surface of its
/// colour, clamped to 0 to 1 as an albedo; unlit text a black surface whose emission is its
/// colour (the integrator shows it without letting it light anything, see
/// [`InstanceInfo::glow`]).
fn text_material(t: &scene::Text, filter_glossy: f32, notes: &mut Vec<Capability>) -> MaterialDef {
    let c =
        [t.color[0], t.color[1], t.color[2]].map(|v| if v.is_finite() { v.max(0.0) } else { 0.0 });
    let key = format!("(text {})", t.key);
    if t.lit {
        if c.iter().any(|&v| v > 1.0) {
            let what = "text.color clamped".to_string();
            if let Some(n) = notes.iter_mut().find(|n| n.what == what) {
                n.count += 1;
            } else {
                notes.push(Capability {
                    what,
                    message: format!(
                        "lit text {:?} has color {:?}: a lit surface's colour is its albedo, \
                         drawn clamped to 0 to 1",
                        t.key, t.color
                    ),
                    at: t.at_loc.clone(),
                    count: 1,
                });
            }
        }
        material_def(
            &scene::Material {
                key,
                base: c.map(|v| v.min(1.0)),
                roughness: 1.0,
                metalness: 0.0,
                specular: 0.0,
                ..Default::default()
            },
            filter_glossy,
        )
    } else {
        let mut m = material_def(
            &scene::Material {
                key,
                base: [0.0; 3],
                roughness: 1.0,
                metalness: 0.0,
                specular: 0.0,
                ..Default::default()
            },
            filter_glossy,
        );
        m.emission = Vec3::from(c);
        m
    }
}
