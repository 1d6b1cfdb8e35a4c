//! The render-ready scene: meshes kept once, instances with their world transforms and
//! material tables, lights with a sampler over them, the sky and the camera.
//!
//! Built from a resolved [`Scene`]; everything a bake reads during tracing lives here, so the
//! integrator never looks back at the scene or the files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::collections::HashSet;

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};

use crate::accel::spheres::{Sphere, SphereTree};
use crate::accel::{Accel, Instance, TriangleMesh};
use crate::assets::{self, Coverage, MeshAsset};
use crate::camera::Camera;
use crate::lights::hosek::{self, HosekSky};
use crate::lights::sky::SkyMap;
use crate::lights::{self, luminance, skymaps, Distribution1D, Light};
use crate::materials::{Bxdfs, Coated, Conductor, Glass, Plain};
use crate::scene::{
    self, Diagnostic, Family, Location, Scene, Severity, Shadow, SkyKind, SunModel,
};

/// Ray masks: what a ray can see.
pub mod mask {
    /// Seen by camera rays: objects with `shadow = "cast"` or `"none"`.
    pub const DRAWN: u32 = 1;
    /// Blocks light and is met by rays after the first bounce: `"cast"` and `"only"`.
    pub const CASTS: u32 = 2;
}

/// Shading data of one mesh, parallel to the accel's [`TriangleMesh`].
#[derive(Clone, Debug, Default)]
pub struct MeshShading {
    /// Object-space unit vertex normals.
    pub normals: Vec<Vec3>,
    /// Texture coordinates.
    pub uvs: Vec<Vec2>,
}

/// Per instance: how to shade what a ray meets.
#[derive(Clone, Debug)]
pub struct InstanceInfo {
    /// Index into [`TraceScene::materials`].
    pub material: u32,
    /// Object-to-world matrix for normals (inverse transpose).
    pub normal_matrix: Mat3,
    /// +1, or −1 where the transform mirrors (its determinant is negative), to keep front faces.
    pub orientation: f32,
    /// Emissive faces emit on both sides.
    pub two_sided: bool,
    /// Index of the light of this instance's triangle 0, when it emits.
    pub first_light: Option<u32>,
    /// Index into [`World::objects`].
    pub object: u32,
    /// Index into [`TraceScene::cuts`] when clip planes or a cut-out material cut the surface.
    pub cut: Option<u32>,
}

/// What cuts parts of an instance's surface away: the object's `clip` planes and the cut-out
/// alpha of its glTF material. A cut point is not there for any ray (camera, bounce, shadow,
/// depth) and emits nothing.
#[derive(Clone, Debug)]
pub struct Cut {
    /// The clip planes in the world frame, as `(n, −d)`: a world point `p` is cut where
    /// `plane · (p, 1) > 0`. Written in the object's own model frame, they move with it.
    pub planes: Vec<Vec4>,
    /// The cut-out material's coverage, when the glTF material is MASK or BLEND.
    pub coverage: Option<Coverage>,
    /// The object's `alpha_cutoff`: a point whose alpha is below it is cut.
    pub cutoff: f32,
}

impl Cut {
    /// Whether the world point `p` is kept; `uv` gives its TEXCOORD_0, asked for only when a
    /// cut-out needs it.
    #[inline]
    pub fn keeps(&self, p: Vec3, uv: impl FnOnce() -> Vec2) -> bool {
        let h = p.extend(1.0);
        if self.planes.iter().any(|plane| plane.dot(h) > 0.0) {
            return false;
        }
        match &self.coverage {
            Some(c) => c.alpha(uv()) >= self.cutoff,
            None => true,
        }
    }
}

/// An object's clip planes `[nx, ny, nz, d]` (cut where `n·p > d` in the object's model frame)
/// carried to the world frame by `world`, the object's world transform: the plane as a
/// covector `(n, −d)` maps by the inverse transpose, which keeps which side is cut. A plane
/// that does not survive the transform finite is dropped (the reader keeps the values finite
/// and the builder refuses flattening transforms, so this does not arise from a scene file).
pub fn world_planes(clip: &[[f32; 4]], world: Mat4) -> Vec<Vec4> {
    let to_world = world.inverse().transpose();
    clip.iter()
        .map(|c| to_world * Vec4::new(c[0], c[1], c[2], -c[3]))
        .filter(|p| p.is_finite())
        .collect()
}

/// A material as the integrator uses it.
#[derive(Clone, Debug)]
pub struct MaterialDef {
    /// Key in its library, or `(default)`.
    pub key: String,
    /// The scattering model.
    pub bxdf: Bxdfs,
    /// The model a path uses after it has bounced off a diffuse surface: `bxdf` with its
    /// roughness raised to `[trace] filter_glossy` (the same as `bxdf` when that is 0).
    pub filtered: Bxdfs,
    /// Radiance leaving the front face, W·m⁻²·sr⁻¹.
    pub emission: Vec3,
}

/// What a bake notes about a scene it can read but does not fully draw.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Capability {
    /// What is not drawn, in the format's words, e.g. `[haze]`.
    pub what: String,
    /// The message, e.g. `[haze] is not rendered yet`.
    pub message: String,
    /// Where it was first written.
    pub at: Location,
    /// How many places hold it.
    pub count: usize,
}

/// What rays read while a bake traces: geometry, materials, lights and sky. Immutable once
/// built, borrowed by the integrator; it holds nothing about the camera, the manifest or the
/// scene's files.
pub struct TraceScene {
    /// Triangles and the BVH over the static, drawn and shadow-casting objects.
    pub accel: Accel,
    /// Per accel mesh.
    pub shading: Vec<MeshShading>,
    /// Per accel instance.
    pub instances: Vec<InstanceInfo>,
    /// The materials instances point at.
    pub materials: Vec<MaterialDef>,
    /// Every light.
    pub lights: Vec<Light>,
    /// Per triangle light (they come first in `lights`): the instance it is a face of, so that
    /// light sampling can refuse a point a [`Cut`] removes.
    pub light_instance: Vec<u32>,
    /// `[trace] clamp_indirect`: the luminance cap on light contributions past the first
    /// hit; 0 is off.
    pub clamp_indirect: f32,
    /// `[trace] transmissive_shadows`, and some material is glass: shadow rays pass glass
    /// surfaces, tinted, instead of stopping at them.
    pub transmissive_shadows: bool,
    /// The cuts instances point at; empty when nothing is cut, and then no ray pays for them.
    pub cuts: Vec<Cut>,
    /// Each light's power (W, luminance-weighted, see [`Light::power`]) as a distribution:
    /// the integrator's light choice starts from it.
    pub light_power: Distribution1D,
    /// Each light's power, W (luminance-weighted), in `lights` order: what `light_power` was
    /// made from.
    pub light_powers: Vec<f32>,
    /// The sphere lights (`[[light]]` with a radius, `[[emitter]]`) in a tree of their own,
    /// ids their indices in `lights`: every one has the [`mask::DRAWN`] bit (the camera sees
    /// them all), those that cast shadows also [`mask::CASTS`] (other rays meet them).
    pub sphere_tree: SphereTree,
    /// Indices of lights at infinity (sky, sun disk) an escaping ray sees.
    pub infinite: Vec<u32>,
}

/// The render-ready scene: what rays read ([`TraceScene`]), the camera, and what the bake
/// reports about the scene (objects, lights as placed, notes, files).
pub struct World {
    /// What rays read.
    pub trace: TraceScene,
    /// The camera.
    pub camera: Camera,
    /// World position and radius of each `[[light]]`, then each `[[emitter]]`, in the scene's
    /// order: a prefab's light placed by its placement's transform (for the manifest).
    pub placed_lights: Vec<(Vec3, f32)>,
    /// The sun as resolved for this bake (`None` without `[sun]`), also when it is below the
    /// horizon and dark: what the manifest records.
    pub sun: Option<ResolvedSun>,
    /// Object keys by index, and whether each is in the plate.
    pub objects: Vec<ObjectRecord>,
    /// Notes on what the scene holds that this version does not draw.
    pub capabilities: Vec<Capability>,
    /// Loader warnings (glTF content).
    pub asset_warnings: Vec<String>,
    /// Every asset file read, relative to the root.
    pub asset_files: Vec<PathBuf>,
}

/// One object, as the manifest lists it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ObjectRecord {
    /// Its key.
    pub key: String,
    /// Its id.
    pub id: Option<String>,
    /// Left out of the plate (dynamic).
    pub dynamic: bool,
    /// Not drawn.
    pub hidden: bool,
    /// Its shadow mode.
    pub shadow: Shadow,
    /// Triangles it places.
    pub triangles: usize,
}

/// The schema paths a bake draws; any other key the scene holds is named in a capability note.
const DRAWN: &[&str] = &[
    "format",
    "materials",
    "fallback",
    "mesh",
    "mesh.id",
    "mesh.file",
    "mesh.node",
    "mesh.nodes",
    "mesh.nodes.material",
    "mesh.nodes.hidden",
    "mesh.nodes.shadow",
    "mesh.nodes.two_sided",
    "mesh.authoring",
    "include",
    "tiles",
    "object",
    "object.prefab",
    "object.set",
    "object.id",
    "object.name",
    "object.mesh",
    "object.at",
    "object.rotate",
    "object.scale",
    "object.parent",
    "object.material",
    "object.materials",
    "object.shadow",
    "object.two_sided",
    "object.hidden",
    "object.dynamic",
    "object.pick",
    "object.authoring",
    "object.clip",
    "object.alpha_cutoff",
    "light",
    "light.id",
    "light.name",
    "light.position",
    "light.color",
    "light.intensity",
    "light.radius",
    "light.range",
    "light.shadow",
    "light.authoring",
    "emitter",
    "emitter.id",
    "emitter.name",
    "emitter.position",
    "emitter.radius",
    "emitter.color",
    "emitter.intensity",
    "emitter.authoring",
    "camera",
    "camera.projection",
    "camera.at",
    "camera.look_at",
    "camera.up",
    "camera.fov",
    "camera.focal",
    "camera.sensor",
    "camera.height",
    "camera.near",
    "camera.far",
    "camera.shift",
    "camera.fstop",
    "camera.focus",
    "sun",
    "sun.model",
    "sun.toward",
    "sun.color",
    "sun.irradiance",
    "sun.radius",
    "sun.reference_hour",
    "sun.hour",
    "sun.day",
    "sun.latitude",
    "sun.heading",
    "sky",
    "sky.kind",
    "sky.path",
    "sky.intensity",
    "sky.rotation_deg",
    "sky.turbidity",
    "sky.ground_albedo",
    "sky.ambient",
    "sky.prepare",
    "sky.room",
    "sky.layer",
    "sky.layer.kind",
    "sky.layer.weight",
    "sky.layer.path",
    "sky.layer.intensity",
    "sky.layer.rotation_deg",
    "sky.layer.prepare",
    "sky.layer.room",
    "plates",
    "plates.dir",
    "trace",
    "trace.clamp_indirect",
    "trace.filter_glossy",
    "trace.transmissive_shadows",
    "authoring",
    "project",
    "project.name",
    "project.scene",
    "project.ignore",
    "tunables",
    "layers",
    "materials.id",
    "materials.family",
    "materials.base",
    "materials.roughness",
    "materials.metalness",
    "materials.specular",
    // Read by some families and not others: `unread_keys` names a value a family ignores.
    "materials.ior",
    "materials.transmission",
    "materials.fresnel_power",
    "materials.clearcoat",
    "materials.clearcoat_roughness",
    "materials.emission",
    "materials.authoring",
    // Movers, rigs, physics, sounds and play-mode tables only make objects dynamic or belong
    // to play mode; a plate has nothing to draw for them.
    "mover",
    "rig",
    "physics",
    "sound",
    "object.body",
    "object.character",
    "object.trigger",
    "object.animation",
    "object.face_camera",
];

/// The keys only an analytic sky layer takes: drawn with the layer.
const ANALYTIC_LAYER_KEYS: &[&str] = &[
    "sky.layer.turbidity",
    "sky.layer.ground_albedo",
    "sky.layer.ambient",
];

/// Schema paths whose own children are all covered by the parent's entry above.
const DRAWN_PREFIXES: &[&str] = &[
    "tiles.",
    "mover.",
    "rig.",
    "physics.",
    "sound.",
    "tunables.",
    "layers.",
    "authoring.",
    "object.body.",
    "object.character.",
    "object.trigger.",
    "object.animation.",
    "project.",
    "object.authoring.",
    "mesh.authoring.",
    "light.authoring.",
    "emitter.authoring.",
    "materials.authoring.",
    "sky.prepare.",
    "sky.room.",
    "sky.layer.prepare.",
    "sky.layer.room.",
];

/// An object's or group's own transform and its parent's key.
type Frame<'a> = ([f32; 3], [f32; 3], [f32; 3], Option<&'a str>);

/// A failure to build the world: always about the input.
#[derive(Debug)]
pub struct WorldError(pub Vec<Diagnostic>);

fn diag(at: &Location, code: &'static str, key: String, message: String) -> Diagnostic {
    Diagnostic {
        file: at.file.clone(),
        line: at.line.max(1),
        column: at.column.max(1),
        end_line: at.line.max(1),
        end_column: at.column.max(1) + 1,
        severity: Severity::Error,
        code,
        key,
        message,
        related: Vec::new(),
    }
}

/// The first character of the scene file: where a finding goes that has no better place.
fn scene_start(scene: &Scene) -> Location {
    Location {
        file: scene.file.clone(),
        line: 1,
        column: 1,
    }
}

/// Where the reader found the key `key` of schema path `path` (e.g. `mesh.<name>.file`,
/// `mesh.file`), in the file `file` when given, and the key's length in characters (the span
/// a diagnostic underlines). `None` when the key is not written (a default) or the scene was
/// built by hand.
fn key_location(
    scene: &Scene,
    path: &str,
    key: &str,
    file: Option<&Path>,
) -> Option<(Location, u32)> {
    let name = key.rsplit('.').next().unwrap_or(key);
    scene
        .present
        .iter()
        .find(|p| p.path == path && p.key == key && file.is_none_or(|f| p.at.file == f))
        .map(|p| (p.at.clone(), name.chars().count().max(1) as u32))
}

/// The loader's diagnostic for an asset that would not load: the [`assets::AssetErrorKind`]'s
/// own code (never one of the spec's: the spec's checker does not read asset contents),
/// placed at the key that names the asset.
fn asset_diag(
    at: Location,
    width: u32,
    key: String,
    file: &Path,
    e: &assets::AssetError,
) -> Diagnostic {
    let mut d = diag(
        &at,
        e.kind.code(),
        key,
        format!("cannot load {}: {}", file.display(), e.message),
    );
    d.end_column = d.column.saturating_add(width);
    d
}

/// [`asset_diag`] for a `[mesh.<name>]` table: at its `node` key when the node is what is
/// wrong, else at its `file` key, else (a hand-built scene) at the table. The key is the one
/// written in the table's own file (a prefab's mesh is named there without its placement), so
/// that the key and the location agree.
fn mesh_asset_diag(scene: &Scene, mesh: &scene::Mesh, e: &assets::AssetError) -> Diagnostic {
    let field = if e.kind == assets::AssetErrorKind::GltfNode && mesh.node.is_some() {
        "node"
    } else {
        "file"
    };
    let path = format!("mesh.{field}");
    // A placed prefab's mesh is keyed "<placement>/…/<name>" and named in its own file by
    // <name> alone; a name may hold a '/' itself, so each tail after a '/' is tried, longest
    // (the whole key, a scene's own mesh) first. Each start follows a one-byte '/', so it is
    // a char boundary and the slice cannot panic.
    let tails = std::iter::once(0).chain(mesh.key.match_indices('/').map(|(i, _)| i + 1));
    for start in tails {
        let written = format!("mesh.{}.{field}", &mesh.key[start..]);
        if let Some((at, width)) = key_location(scene, &path, &written, Some(&mesh.at.file)) {
            return asset_diag(at, width, written, &mesh.file, e);
        }
    }
    let key = format!("mesh.{}.{field}", mesh.key);
    asset_diag(mesh.at.clone(), 1, key, &mesh.file, e)
}

fn rgb(c: [f32; 3]) -> Vec3 {
    Vec3::from(c.map(|v| if v.is_finite() { v.max(0.0) } else { 0.0 }))
}

impl World {
    /// Builds the world for an image of `size` pixels.
    pub fn build(scene: &Scene, size: [u32; 2]) -> Result<World, WorldError> {
        let mut errors = Vec::new();
        let mut capabilities = capability_notes(scene);
        // `[trace] filter_glossy`, in [0, 1]; NaN is off.
        let filter_glossy = scene
            .trace
            .as_ref()
            .map_or(0.0, |t| t.filter_glossy)
            .clamp(0.0, 1.0);
        let filter_glossy = if filter_glossy.is_nan() {
            0.0
        } else {
            filter_glossy
        };

        // Materials: every library entry, plus the default plain material at the end.
        let mut materials: Vec<MaterialDef> = Vec::new();
        let mut material_index: HashMap<&str, u32> = HashMap::new();
        for m in &scene.materials {
            material_index.insert(m.key.as_str(), materials.len() as u32);
            materials.push(material_def(m, filter_glossy));
        }
        let default_material = materials.len() as u32;
        materials.push(material_def(
            &scene::Material {
                key: "(default)".into(),
                ..Default::default()
            },
            filter_glossy,
        ));

        // World transforms, following parents through objects and groups (placements, which
        // draw nothing themselves).
        let mut frames: HashMap<&str, Frame> = HashMap::new();
        for g in &scene.groups {
            frames.insert(
                g.key.as_str(),
                (g.at, g.rotate, g.scale, g.parent.as_deref()),
            );
        }
        for o in &scene.objects {
            frames.insert(
                o.key.as_str(),
                (o.at, o.rotate, o.scale, o.parent.as_deref()),
            );
        }
        let frame_of = |key: Option<&str>| -> Mat4 {
            let mut m = Mat4::IDENTITY;
            let mut cur = key;
            // The reader refuses parent cycles; the bound keeps a hand-built scene from looping.
            for _ in 0..=frames.len() {
                let Some((at, rotate, scale, parent)) = cur.and_then(|k| frames.get(k)) else {
                    break;
                };
                m = crate::geometry::model_matrix(*at, *rotate, *scale) * m;
                cur = *parent;
            }
            m
        };
        let world_of = |i: usize| -> Mat4 {
            let o = &scene.objects[i];
            frame_of(o.parent.as_deref()) * crate::geometry::model_matrix(o.at, o.rotate, o.scale)
        };
        // A light or emitter a placement placed: its position through the placement's world
        // transform, its radius times the transform's mean axis scale.
        let placed = |parent: Option<&str>, p: [f32; 3], r: f32| -> (Vec3, f32) {
            if parent.is_none() {
                return (Vec3::from(p), r);
            }
            let m = frame_of(parent);
            let s = (m.x_axis.truncate().length()
                + m.y_axis.truncate().length()
                + m.z_axis.truncate().length())
                / 3.0;
            let pos = m.transform_point3(Vec3::from(p));
            if !pos.is_finite() || !s.is_finite() {
                return (Vec3::from(p), r);
            }
            (pos, r * s)
        };

        // Meshes: each (file, node) loaded once.
        let mut loaded: HashMap<(PathBuf, Option<String>), Result<usize, ()>> = HashMap::new();
        let mut assets_list: Vec<MeshAsset> = Vec::new();
        let mut asset_warnings = Vec::new();
        let mut asset_files: Vec<PathBuf> = Vec::new();
        let mesh_by_key: HashMap<&str, &scene::Mesh> =
            scene.meshes.iter().map(|m| (m.key.as_str(), m)).collect();

        let mut tri_meshes: Vec<TriangleMesh> = Vec::new();
        let mut shading: Vec<MeshShading> = Vec::new();
        // (asset, geometry) → accel mesh index.
        let mut geometry_mesh: HashMap<(usize, usize), u32> = HashMap::new();
        let mut instances: Vec<Instance> = Vec::new();
        let mut infos: Vec<InstanceInfo> = Vec::new();
        let mut objects: Vec<ObjectRecord> = Vec::new();
        let mut emissive: Vec<usize> = Vec::new();
        let mut cuts: Vec<Cut> = Vec::new();
        let mut cut_warned: HashSet<String> = HashSet::new();

        for (oi, o) in scene.objects.iter().enumerate() {
            let mut record = ObjectRecord {
                key: o.key.clone(),
                id: o.id.clone(),
                dynamic: o.dynamic,
                hidden: o.hidden,
                shadow: o.shadow,
                triangles: 0,
            };
            let in_plate = !o.dynamic && !o.hidden;
            let Some(mesh) = mesh_by_key.get(o.mesh.as_str()) else {
                errors.push(diag(
                    &o.at_loc,
                    "bad-reference",
                    format!("{}.mesh", object_dkey(o)),
                    format!("no mesh named {:?}", o.mesh),
                ));
                continue;
            };
            let world = world_of(oi);
            let det = world.determinant();
            if !det.is_finite() || det.abs() < 1e-12 {
                errors.push(diag(&o.at_loc, "bad-value", format!("{}.scale", object_dkey(o)),
                    format!("object {:?} has a transform that flattens it (determinant {det}): a zero scale, on it or a parent, cannot be drawn", o.key)));
                continue;
            }
            if !in_plate {
                objects.push(record);
                continue;
            }
            let cache_key = (mesh.file.clone(), mesh.node.clone());
            let asset = match loaded.get(&cache_key) {
                Some(r) => *r,
                None => {
                    let path = scene.root.join(&mesh.file);
                    let r = match assets::load_gltf(&path, mesh.node.as_deref()) {
                        Ok(a) => {
                            for w in &a.warnings {
                                asset_warnings.push(format!("{}: {w}", mesh.file.display()));
                            }
                            assets_list.push(a);
                            if !asset_files.contains(&mesh.file) {
                                asset_files.push(mesh.file.clone());
                            }
                            Ok(assets_list.len() - 1)
                        }
                        Err(e) => {
                            errors.push(mesh_asset_diag(scene, mesh, &e));
                            Err(())
                        }
                    };
                    loaded.insert(cache_key, r);
                    r
                }
            };
            let Ok(asset) = asset else { continue };
            let a = &assets_list[asset];
            let planes = world_planes(&o.clip, world);
            let cutoff = if o.alpha_cutoff.is_finite() {
                o.alpha_cutoff.clamp(0.0, 1.0)
            } else {
                0.5
            };
            for part in &a.parts {
                let node_override = part
                    .node_path
                    .iter()
                    .rev()
                    .find_map(|n| mesh.nodes.iter().find(|no| &no.node == n));
                if node_override.is_some_and(|n| n.hidden) {
                    continue;
                }
                let shadow = node_override.and_then(|n| n.shadow).unwrap_or(o.shadow);
                let two_sided = node_override
                    .and_then(|n| n.two_sided)
                    .unwrap_or(o.two_sided);
                let geom = &a.geometries[part.geometry];
                // The order of the issue: the object's per-node materials, its material, the
                // mesh's node override, then the glTF material's name, its name before the
                // first '.', fallback, and the default plain material.
                let by_node = part.node_path.iter().rev().find_map(|n| {
                    o.materials
                        .iter()
                        .find(|(node, _)| node == n)
                        .map(|(_, m)| m.as_str())
                });
                let gltf_name = part.material.as_deref();
                let material = by_node
                    .or(o.material.as_deref())
                    .or(node_override.and_then(|n| n.material.as_deref()))
                    .and_then(|k| material_index.get(k).copied())
                    .or_else(|| gltf_name.and_then(|n| material_index.get(n).copied()))
                    .or_else(|| {
                        gltf_name
                            .and_then(|n| n.split_once('.'))
                            .and_then(|(stem, _)| material_index.get(stem).copied())
                    })
                    .or_else(|| {
                        scene
                            .fallback
                            .as_deref()
                            .and_then(|f| material_index.get(f).copied())
                    })
                    .unwrap_or(default_material);
                let mesh_index =
                    *geometry_mesh
                        .entry((asset, part.geometry))
                        .or_insert_with(|| {
                            tri_meshes.push(TriangleMesh {
                                positions: geom.positions.clone(),
                                indices: geom.indices.clone(),
                            });
                            shading.push(MeshShading {
                                normals: geom.normals.clone(),
                                uvs: geom.uvs.clone(),
                            });
                            (tri_meshes.len() - 1) as u32
                        });
                let xf = world * part.transform;
                let d = xf.determinant();
                if !d.is_finite() || d.abs() < 1e-12 {
                    continue;
                }
                let m = match shadow {
                    Shadow::Cast => mask::DRAWN | mask::CASTS,
                    Shadow::Only => mask::CASTS,
                    Shadow::None => mask::DRAWN,
                };
                record.triangles += geom.indices.len();
                let emits = luminance(materials[material as usize].emission) > 0.0
                    && shadow != Shadow::Only;
                let coverage = part.coverage.and_then(|c| a.coverages.get(c));
                if let Some(c) = coverage {
                    let file = mesh.file.display();
                    let mut note = |m: String| {
                        if cut_warned.insert(m.clone()) {
                            asset_warnings.push(m);
                        }
                    };
                    if c.blend {
                        note(format!(
                            "{file}: material '{}': alphaMode BLEND drawn as MASK with cutoff {cutoff}",
                            c.material
                        ));
                    } else if (c.file_cutoff - cutoff).abs() > 1e-6 {
                        note(format!(
                            "{file}: material '{}': its alphaCutoff {} is not used; object {:?} \
                             cuts at its alpha_cutoff {cutoff}",
                            c.material, c.file_cutoff, o.key
                        ));
                    }
                }
                let cut = if planes.is_empty() && coverage.is_none() {
                    None
                } else {
                    cuts.push(Cut {
                        planes: planes.clone(),
                        coverage: coverage.cloned(),
                        cutoff,
                    });
                    Some((cuts.len() - 1) as u32)
                };
                if emits {
                    emissive.push(instances.len());
                }
                instances.push(Instance {
                    mesh: mesh_index,
                    world_from_object: xf,
                    mask: m,
                });
                infos.push(InstanceInfo {
                    material,
                    normal_matrix: Mat3::from_mat4(xf).inverse().transpose(),
                    orientation: d.signum(),
                    two_sided,
                    first_light: None,
                    object: objects.len() as u32,
                    cut,
                });
            }
            objects.push(record);
        }

        // The sun as this bake resolves it (the analytic sky follows it).
        let sun = scene
            .sun
            .as_ref()
            .map(|s| resolve_sun(s, daylight_turbidity(scene.sky.as_ref())));

        // The sky's map (an HDR, a room, a mix, or the analytic sky baked), loaded before any
        // error stops the build, so that a broken sky is reported together with broken meshes.
        let mut sky_map = None;
        if let Some(sky) = &scene.sky {
            let mut load = |path: &Path, schema_path: &str, key: &str| match assets::load_hdr(
                &scene.root.join(path),
            ) {
                Ok(map) => {
                    asset_files.push(path.to_path_buf());
                    Some(map)
                }
                Err(e) => {
                    let (at, width) = key_location(scene, schema_path, key, None)
                        .unwrap_or_else(|| (scene_start(scene), 1));
                    errors.push(asset_diag(at, width, key.into(), path, &e));
                    None
                }
            };
            let mut analytic = |l: &scene::SkyLayer| -> Option<skymaps::RadianceFn> {
                Some(analytic_sky(
                    l.turbidity,
                    l.ground_albedo,
                    l.ambient,
                    sun.as_ref(),
                ))
            };
            // An analytic sky with no sun up is black: no light at all, rather than a black map.
            let sun_up = sun.is_some_and(|s| s.toward.y > 0.0);
            sky_map = if sky.kind == SkyKind::Analytic && !sun_up {
                None
            } else if sky.kind == SkyKind::Analytic {
                let f = analytic_sky(sky.turbidity, sky.ground_albedo, sky.ambient, sun.as_ref());
                let m = skymaps::bake_mix(&[(1.0, skymaps::LayerSource::Analytic(f))]);
                Some(SkyMap::new(
                    m.width as usize,
                    m.height as usize,
                    &m.texels,
                    1.0,
                    0.0,
                ))
            } else {
                skymaps::build_sky(sky, &mut load, &mut analytic)
            };
        }

        if !errors.is_empty() {
            return Err(WorldError(errors));
        }

        // Lights: emissive triangles first (instances point at them), then the rest.
        let mut lights: Vec<Light> = Vec::new();
        let mut light_instance: Vec<u32> = Vec::new();
        for &ii in &emissive {
            let inst = &instances[ii];
            let mesh = &tri_meshes[inst.mesh as usize];
            let info = &mut infos[ii];
            info.first_light = Some(lights.len() as u32);
            let radiance = materials[info.material as usize].emission;
            for tri in &mesh.indices {
                let p = tri.map(|v| {
                    inst.world_from_object
                        .transform_point3(mesh.positions[v as usize])
                });
                let c = (p[1] - p[0]).cross(p[2] - p[0]) * info.orientation;
                let area = 0.5 * c.length();
                lights.push(Light::Triangle {
                    p,
                    n: c.normalize_or_zero(),
                    area,
                    radiance,
                    two_sided: info.two_sided,
                });
                light_instance.push(ii as u32);
            }
        }
        let mut spheres = Vec::new();
        let mut placed_lights = Vec::new();
        for l in &scene.lights {
            let i = rgb(l.color) * l.intensity.max(0.0);
            let (position, radius) = placed(l.parent.as_deref(), l.position, l.radius);
            placed_lights.push((position, radius));
            if radius > 0.0 {
                if l.shadow {
                    spheres.push(lights.len() as u32);
                }
                lights.push(Light::Sphere {
                    center: position,
                    radius,
                    radiance: i / (std::f32::consts::PI * radius * radius),
                    casts: l.shadow,
                });
            } else {
                lights.push(Light::Point {
                    position,
                    intensity: i,
                    casts: l.shadow,
                });
            }
        }
        for e in &scene.emitters {
            spheres.push(lights.len() as u32);
            let (center, r) = placed(e.parent.as_deref(), e.position, e.radius);
            placed_lights.push((center, r));
            let r = r.max(1e-6);
            lights.push(Light::Sphere {
                center,
                radius: r,
                radiance: rgb(e.color) * e.intensity.max(0.0) / (std::f32::consts::PI * r * r),
                casts: true,
            });
        }
        let sphere_list: Vec<Sphere> = (0..lights.len() as u32)
            .filter_map(|i| match lights[i as usize] {
                Light::Sphere { center, radius, .. } => Some(Sphere {
                    center,
                    radius,
                    mask: if spheres.contains(&i) {
                        mask::DRAWN | mask::CASTS
                    } else {
                        mask::DRAWN
                    },
                    id: i,
                }),
                _ => None,
            })
            .collect();
        let sphere_tree = SphereTree::build(&sphere_list);
        let mut infinite = Vec::new();
        if let Some(s) = sun.filter(|s| s.irradiance.max_element() > 0.0) {
            if s.cos_max < 1.0 {
                infinite.push(lights.len() as u32);
            }
            lights.push(Light::Sun {
                toward: s.toward,
                irradiance: s.irradiance,
                cos_max: s.cos_max,
            });
        }
        if let Some(map) = sky_map {
            infinite.push(lights.len() as u32);
            lights.push(Light::Sky(Box::new(map)));
        }

        let accel = Accel::build(tri_meshes, instances);
        let (lo, hi) = accel.bounds();
        let radius = (0.5 * (hi - lo).length()).max(1e-3);
        let radius = if radius.is_finite() { radius } else { 1.0 };
        let powers: Vec<f32> = lights.iter().map(|l| l.power(radius)).collect();
        let light_power = Distribution1D::new(&powers);
        if lights.is_empty() {
            capabilities.push(Capability {
                what: "lights".into(),
                message:
                    "the scene has no light, sun, sky or emissive material: the plate is black"
                        .into(),
                at: Location {
                    file: scene.file.clone(),
                    line: 1,
                    column: 1,
                },
                count: 1,
            });
        }

        let camera = Camera::new(&scene.camera.clone().unwrap_or_default(), size);
        let transmissive_shadows = scene.trace.as_ref().is_some_and(|t| t.transmissive_shadows)
            && materials.iter().any(|m| m.bxdf.transmits());
        Ok(World {
            trace: TraceScene {
                accel,
                shading,
                instances: infos,
                materials,
                lights,
                light_instance,
                clamp_indirect: scene
                    .trace
                    .as_ref()
                    .map_or(0.0, |t| t.clamp_indirect)
                    .clamp(0.0, 10_000.0),
                transmissive_shadows,
                cuts,
                light_power,
                light_powers: powers,
                sphere_tree,
                infinite,
            },
            camera,
            placed_lights,
            sun,
            objects,
            capabilities: {
                capabilities.sort_by(|a, b| a.what.cmp(&b.what));
                capabilities
            },
            asset_warnings,
            asset_files,
        })
    }
}

/// An object's dotted diagnostic key, as the reader writes it: by its id when it has one,
/// else by its key (the model keeps no file place for an entry without id).
fn object_dkey(o: &scene::Object) -> String {
    format!("object.{}", o.id.as_deref().unwrap_or(&o.key))
}

/// The sun a bake draws: where it is, what it gives, and how wide it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResolvedSun {
    /// Unit world vector towards the sun's centre.
    pub toward: Vec3,
    /// Irradiance on a plane facing the sun, W/m² per linear RGB channel (0 when down).
    pub irradiance: Vec3,
    /// Cosine of the disk's angular radius (1: a delta sun).
    pub cos_max: f32,
    /// Whether the sun is `model = "daylight"` (the analytic sky's `ambient` is then not read).
    pub daylight: bool,
}

/// The turbidity the daylight sun is computed at: the analytic sky's (or the first analytic
/// mix layer's), so sun and sky agree; else the authored sun's [`hosek::AUTHORED_SUN_TURBIDITY`].
fn daylight_turbidity(sky: Option<&scene::Sky>) -> f32 {
    match sky {
        Some(s) if s.kind == SkyKind::Analytic => s.turbidity,
        Some(s) => s
            .layers
            .iter()
            .find(|l| l.kind == SkyKind::Analytic)
            .map_or(hosek::AUTHORED_SUN_TURBIDITY, |l| l.turbidity),
        None => hosek::AUTHORED_SUN_TURBIDITY,
    }
}

/// The `[sun]` table as this bake draws it (docs/sun.md): a daylight sun from its position
/// and the Hošek–Wilkie solar radiance; an authored sun as authored at `reference_hour`, and
/// away from it turned about the celestial pole, dimmed and warmed as the daylight sun is
/// between its two elevations (kept as authored where the authored elevation gives no ratio,
/// dark below the horizon).
fn resolve_sun(sun: &scene::Sun, turbidity: f32) -> ResolvedSun {
    let radius = if sun.radius.is_finite() {
        sun.radius.clamp(0.0, 10.0)
    } else {
        0.0
    };
    let cos_max = radius.to_radians().cos();
    match sun.model {
        SunModel::Daylight => {
            let toward = lights::sun::daylight_toward(sun.day, sun.hour, sun.latitude, sun.heading);
            let elevation = lights::sun::elevation_of(toward);
            ResolvedSun {
                toward,
                irradiance: hosek::daylight_sun(turbidity, elevation),
                cos_max,
                daylight: true,
            }
        }
        SunModel::Authored => {
            let authored = Vec3::from(sun.toward.unwrap_or([0.0, 1.0, 0.0])).normalize_or(Vec3::Y);
            let e = rgb(sun.color) * sun.irradiance.unwrap_or(0.0).max(0.0);
            let e = if e.is_finite() { e } else { Vec3::ZERO };
            let toward = lights::sun::authored_toward(
                authored,
                sun.reference_hour,
                sun.hour,
                sun.latitude,
                sun.heading,
            )
            .normalize_or(authored);
            let irradiance = if toward == authored {
                e
            } else {
                let (el, el0) = (
                    lights::sun::elevation_of(toward),
                    lights::sun::elevation_of(authored),
                );
                match hosek::authored_sun_scale(el, el0) {
                    Some(scale) => e * scale,
                    None if el > 0.0 => e,
                    None => Vec3::ZERO,
                }
            };
            ResolvedSun {
                toward,
                irradiance,
                cos_max,
                daylight: false,
            }
        }
    }
}

/// The analytic sky's radiance function (Hošek–Wilkie, docs/sky.md): it follows the resolved
/// sun; black without a sun or with the sun at or below the horizon (the model is fitted for
/// elevations from 0 to 90°), and below the horizon; `ambient` scales it under an authored sun.
fn analytic_sky(
    turbidity: f32,
    ground_albedo: [f32; 3],
    ambient: f32,
    sun: Option<&ResolvedSun>,
) -> skymaps::RadianceFn<'static> {
    let Some(sun) = sun.copied() else {
        return Box::new(|_| Vec3::ZERO);
    };
    let elevation = lights::sun::elevation_of(sun.toward);
    if !crate::materials::positive(elevation) {
        return Box::new(|_| Vec3::ZERO);
    }
    let level = if sun.daylight || !ambient.is_finite() {
        1.0
    } else {
        ambient.max(0.0)
    };
    let model = HosekSky::new(turbidity, Vec3::from(ground_albedo), elevation);
    Box::new(move |d| model.radiance(d, sun.toward) * level)
}

/// A library material as the integrator uses it; `filter_glossy` is the least roughness of
/// its filtered model (for the coat too). The family chooses the model (`docs/materials.md`):
/// `metal` and `chrome` are conductors, `glass` a tinted dielectric, `lacquer` a clear coat at
/// full weight over `plain`, every other family `plain` for now; `clearcoat > 0` coats any
/// family (glass on its outside face).
fn material_def(m: &scene::Material, filter_glossy: f32) -> MaterialDef {
    let base = Vec3::from(m.base);
    let conductor = matches!(m.family, Family::Metal | Family::Chrome);
    let coat = match m.family {
        Family::Lacquer => 1.0,
        Family::Glass => 0.0,
        _ if m.clearcoat > 0.0 => m.clearcoat,
        _ => 0.0,
    };
    // A conductor under a coat is `plain` at metalness 1: the same single-scattering lobe and
    // the same multiple-scattering lobe as `Conductor`.
    let under_coat = |roughness: f32| {
        let metalness = if conductor { 1.0 } else { m.metalness };
        Plain::with_power(base, roughness, metalness, m.specular, m.fresnel_power)
    };
    let model = |roughness: f32, coat_roughness: f32| match m.family {
        Family::Glass => Bxdfs::Glass(Glass::coated(
            m.ior,
            roughness,
            base,
            m.clearcoat,
            coat_roughness,
        )),
        _ if coat > 0.0 => Bxdfs::Coated(Coated::new(
            under_coat(roughness),
            coat,
            coat_roughness,
            m.ior,
        )),
        Family::Metal | Family::Chrome => {
            Bxdfs::Conductor(Conductor::with_power(base, roughness, m.fresnel_power))
        }
        _ => Bxdfs::Plain(under_coat(roughness)),
    };
    let least = |r: f32| {
        let r = if r.is_nan() { 0.0 } else { r };
        if filter_glossy > r {
            filter_glossy
        } else {
            r
        }
    };
    let bxdf = model(m.roughness, m.clearcoat_roughness);
    let (r, cr) = (least(m.roughness), least(m.clearcoat_roughness));
    // Built once when filtering changes nothing: a coat's tables cost up to tens of ms.
    let filtered = if r.to_bits() == m.roughness.to_bits()
        && cr.to_bits() == m.clearcoat_roughness.to_bits()
    {
        bxdf
    } else {
        model(r, cr)
    };
    MaterialDef {
        key: m.key.clone(),
        bxdf,
        filtered,
        emission: rgb(m.emission),
    }
}

/// The families this version draws with their own model; the others render as `plain`.
const MODELLED_FAMILIES: [Family; 5] = [
    Family::Plain,
    Family::Metal,
    Family::Chrome,
    Family::Glass,
    Family::Lacquer,
];

/// The material keys a family's model does not read, with the value this material gives them,
/// where that value differs from the spec's default (a default value changes nothing, so it
/// needs no note). A family that is one lobe takes it at full weight: the weight that blends
/// that lobe into `plain` (`metalness` for `metal` and `chrome`, `transmission` for `glass`,
/// `clearcoat` for `lacquer`) is not read by it, and 1 agrees with it as well as 0.
fn unread_keys(m: &scene::Material) -> Vec<(&'static str, String)> {
    let d = scene::Material::default();
    let family = format!("family {:?}", m.family.name());
    // (key, value, default, a value that agrees with the family, why it is not read)
    let mut checks: Vec<(&'static str, f32, f32, Option<f32>, String)> = Vec::new();
    let coated = m.family == Family::Lacquer || m.clearcoat > 0.0;
    let not_glass = format!("is not rendered yet on {family}: only family \"glass\" transmits");
    match m.family {
        Family::Metal | Family::Chrome => {
            let conductor = format!("has no effect: {family} is a conductor");
            checks.push((
                "metalness",
                m.metalness,
                d.metalness,
                Some(1.0),
                format!("{conductor} at any metalness"),
            ));
            checks.push((
                "specular",
                m.specular,
                d.specular,
                None,
                format!("{conductor}, its reflectance is base"),
            ));
            checks.push((
                "transmission",
                m.transmission,
                d.transmission,
                None,
                format!("{conductor} and does not transmit"),
            ));
        }
        Family::Glass => {
            let why = format!("has no effect: {family} is a dielectric of index ior");
            checks.push((
                "transmission",
                m.transmission,
                d.transmission,
                Some(1.0),
                format!("has no effect: {family} transmits at any transmission"),
            ));
            checks.push(("metalness", m.metalness, d.metalness, None, why.clone()));
            checks.push(("specular", m.specular, d.specular, None, why.clone()));
            checks.push(("fresnel_power", m.fresnel_power, d.fresnel_power, None, why));
        }
        Family::Lacquer => {
            checks.push((
                "clearcoat",
                m.clearcoat,
                d.clearcoat,
                Some(1.0),
                format!("has no effect: {family} is a clear coat at full weight"),
            ));
            checks.push((
                "transmission",
                m.transmission,
                d.transmission,
                None,
                not_glass,
            ));
        }
        _ => checks.push((
            "transmission",
            m.transmission,
            d.transmission,
            None,
            not_glass,
        )),
    }
    if !coated {
        let why = if matches!(m.family, Family::Metal | Family::Chrome) {
            Some(format!("has no effect: {family} has no clear coat"))
        } else if m.family == Family::Glass {
            None
        } else {
            Some(format!(
                "has no effect: {family}'s reflectance at normal incidence is specular, and it \
                 has no clear coat"
            ))
        };
        if let Some(why) = why {
            checks.push(("ior", m.ior, d.ior, None, why));
        }
        checks.push((
            "clearcoat_roughness",
            m.clearcoat_roughness,
            d.clearcoat_roughness,
            None,
            format!("has no effect: {family} has no clear coat"),
        ));
    }
    checks
        .into_iter()
        .filter(|&(_, value, default, agrees, _)| {
            value != default && Some(value) != agrees && !(value.is_nan() && default.is_nan())
        })
        .map(|(key, value, _, _, why)| (key, format!("{key} = {value} {why}")))
        .collect()
}

/// Names every table, key and value the scene holds that this version does not draw.
fn capability_notes(scene: &Scene) -> Vec<Capability> {
    let mut notes: Vec<Capability> = Vec::new();
    let mut add = |what: String, message: String, at: &Location| {
        if let Some(n) = notes.iter_mut().find(|n| n.what == what) {
            n.count += 1;
        } else {
            notes.push(Capability {
                what,
                message,
                at: at.clone(),
                count: 1,
            });
        }
    };
    for p in &scene.present {
        let drawn = DRAWN.contains(&p.path.as_str())
            || DRAWN_PREFIXES.iter().any(|pre| p.path.starts_with(pre));
        if drawn || ANALYTIC_LAYER_KEYS.contains(&p.path.as_str()) {
            continue;
        }
        let message = match p.path.as_str() {
            path if !path.contains('.') => format!("[{path}] is not rendered yet"),
            path => format!("{path} is not rendered yet"),
        };
        add(p.path.clone(), message, &p.at);
    }
    let scene_at = Location {
        file: scene.file.clone(),
        line: 1,
        column: 1,
    };
    for m in &scene.materials {
        if !MODELLED_FAMILIES.contains(&m.family) {
            add(
                format!("family {}", m.family.name()),
                format!(
                    "family {:?} renders as plain until the materials work",
                    m.family.name()
                ),
                &m.at,
            );
        }
        for (key, message) in unread_keys(m) {
            add(
                format!("materials.{key} on family {}", m.family.name()),
                message,
                &m.at,
            );
        }
    }
    let analytic = scene.sky.as_ref().is_some_and(|s| {
        s.kind == SkyKind::Analytic || s.layers.iter().any(|l| l.kind == SkyKind::Analytic)
    });
    let daylight = scene
        .sun
        .as_ref()
        .is_some_and(|s| s.model == SunModel::Daylight);
    if daylight {
        // `ambient` sets the analytic sky's level under an authored sun only: under the daylight
        // sun the model's own ratio of sun to sky holds.
        let ambients = scene.sky.iter().flat_map(|s| {
            let own = (s.kind == SkyKind::Analytic).then_some(s.ambient);
            own.into_iter().chain(
                s.layers
                    .iter()
                    .filter(|l| l.kind == SkyKind::Analytic)
                    .map(|l| l.ambient),
            )
        });
        for a in ambients.filter(|&a| a != 1.0) {
            add(
                "sky.ambient under a daylight sun".into(),
                format!(
                    "ambient = {a} has no effect under a daylight sun: the sky keeps the \
                     Hosek-Wilkie model's ratio to the sun"
                ),
                &scene_at,
            );
        }
    }
    if analytic && scene.sun.is_none() {
        add(
            "sky analytic without sun".into(),
            "the analytic sky follows [sun], and this scene has none: the analytic sky is black"
                .into(),
            &scene_at,
        );
    }
    notes
}

/// The scene file's folder, for messages.
pub fn display_root(root: &Path) -> String {
    root.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The family picks the model, and `filter_glossy` roughens every family's filtered
    /// model: glass's interface and a coat's own roughness too.
    #[test]
    fn families_choose_their_model_and_every_model_is_filtered() {
        let m = |family, roughness, clearcoat_roughness| scene::Material {
            key: "m".into(),
            family,
            roughness,
            clearcoat_roughness,
            ..Default::default()
        };
        let glass = material_def(&m(Family::Glass, 0.0, 0.05), 0.5);
        match (glass.bxdf, glass.filtered) {
            (Bxdfs::Glass(a), Bxdfs::Glass(b)) => {
                assert!(a.interface().is_specular());
                assert!((b.interface().alpha() - 0.25).abs() < 1e-6);
            }
            other => panic!("{other:?}"),
        }
        let metal = material_def(&m(Family::Chrome, 0.1, 0.05), 0.0);
        assert!(matches!(metal.bxdf, Bxdfs::Conductor(_)));
        assert_eq!(metal.bxdf, metal.filtered);
        let lacquer = material_def(&m(Family::Lacquer, 0.6, 0.05), 0.5);
        assert!(matches!(lacquer.bxdf, Bxdfs::Coated(_)));
        assert_ne!(
            lacquer.bxdf, lacquer.filtered,
            "the coat's roughness is raised"
        );
        let unfiltered = material_def(&m(Family::Lacquer, 0.6, 0.5), 0.0);
        assert_eq!(lacquer.filtered, unfiltered.bxdf);
        let plain = material_def(&m(Family::Plain, 0.5, 0.05), 0.0);
        assert!(matches!(plain.bxdf, Bxdfs::Plain(_)));
        let coated_plain = material_def(
            &scene::Material {
                clearcoat: 0.5,
                ..m(Family::Plain, 0.5, 0.05)
            },
            0.0,
        );
        assert!(matches!(coated_plain.bxdf, Bxdfs::Coated(_)));
        // Glass takes its coat on the outside; filtering raises the coat's roughness too.
        let coated_glass = material_def(
            &scene::Material {
                clearcoat: 0.5,
                ..m(Family::Glass, 0.3, 0.05)
            },
            0.5,
        );
        match (coated_glass.bxdf, coated_glass.filtered) {
            (Bxdfs::Glass(a), Bxdfs::Glass(b)) => {
                assert!(a.is_coated() && b.is_coated());
                let base = Vec3::from(scene::Material::default().base);
                let same_coat_raised = Glass::coated(1.5, 0.5, base, 0.5, 0.5);
                assert_eq!(b, same_coat_raised);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(glass.bxdf, Bxdfs::Glass(g) if !g.is_coated()));
    }

    /// Clip planes written in the object's frame cut the same material points wherever the
    /// object is moved, turned, scaled unevenly or mirrored.
    #[test]
    fn clip_planes_follow_the_object_frame() {
        let clip = [[1.0, 2.0, -0.5, 0.25], [0.0, -1.0, 0.0, 0.1]];
        let frames = [
            Mat4::IDENTITY,
            crate::geometry::model_matrix([1.0, -2.0, 3.0], [30.0, 45.0, 60.0], [2.0, 0.5, 3.0]),
            crate::geometry::model_matrix([0.0, 5.0, 0.0], [0.0, 90.0, 0.0], [-1.0, 1.0, 1.0]),
        ];
        for world in frames {
            let planes = world_planes(&clip, world);
            assert_eq!(planes.len(), 2);
            let cut = Cut {
                planes,
                coverage: None,
                cutoff: 0.5,
            };
            for i in 0..200 {
                // A lattice of object points, some on each side of each plane.
                let f = |k: u32| ((i * k) % 17) as f32 / 8.0 - 1.0;
                let p = Vec3::new(f(3), f(5), f(7));
                let object_cut = clip
                    .iter()
                    .any(|c| Vec3::new(c[0], c[1], c[2]).dot(p) > c[3] + 1e-4);
                let object_kept = clip
                    .iter()
                    .all(|c| Vec3::new(c[0], c[1], c[2]).dot(p) < c[3] - 1e-4);
                let kept = cut.keeps(world.transform_point3(p), || Vec2::ZERO);
                if object_cut {
                    assert!(!kept, "{p} in {world}");
                }
                if object_kept {
                    assert!(kept, "{p} in {world}");
                }
            }
        }
    }

    /// The spec's lamp, placed twice on a desk: placements draw through their groups, and the
    /// lights they place take the placements' world transforms.
    #[test]
    fn placements_place_objects_and_lights() {
        let file =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/scenes/lamp/desk.scene.toml");
        let scene = crate::scene::load(&file).unwrap_or_else(|d| panic!("{d:#?}"));
        let world = World::build(&scene, [64, 36]).unwrap_or_else(|e| panic!("{:#?}", e.0));
        // Groups draw nothing; every object with a mesh is an instance.
        let keys: Vec<&str> = world.objects.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "desk",
                "left lamp/shade",
                "left lamp/stem",
                "right lamp/shade",
                "right lamp/stem"
            ]
        );
        assert!(!capability_notes(&scene)
            .iter()
            .any(|c| c.what.starts_with("include") || c.what.starts_with("object.")));
        // The right lamp's stem: desk · right lamp · shade · stem, its scale overridden to 0.5.
        let m = |at: [f32; 3], r: [f32; 3], s: [f32; 3]| crate::geometry::model_matrix(at, r, s);
        let want = m([0.0, 0.75, 0.0], [0.0; 3], [1.0; 3])
            * m([1.2, 0.0, 0.4], [0.0; 3], [2.0; 3])
            * m([0.0, 0.5, 0.0], [0.0; 3], [1.0; 3])
            * m([0.0, -0.25, 0.0], [0.0; 3], [0.5; 3]);
        let stem = world
            .trace
            .instances
            .iter()
            .zip(world.trace.accel.instances())
            .find(|(info, _)| world.objects[info.object as usize].key == "right lamp/stem")
            .map(|(_, inst)| inst.world_from_object)
            .unwrap();
        assert!(stem.abs_diff_eq(want, 1e-5), "{stem} {want}");
        // Bulbs at [0, 0.45, 0] in each lamp's frame, radius 0.05 times the mean scale.
        let spheres: Vec<(Vec3, f32, f32)> = world
            .trace
            .lights
            .iter()
            .filter_map(|l| match l {
                Light::Sphere {
                    center,
                    radius,
                    radiance,
                    ..
                } => Some((*center, *radius, radiance.x)),
                _ => None,
            })
            .collect();
        assert_eq!(spheres.len(), 2);
        let pi = std::f32::consts::PI;
        let (c, r, l) = spheres[0];
        assert!(c.abs_diff_eq(Vec3::new(-1.2, 1.2, 0.4), 1e-5), "{c}");
        assert!((r - 0.05).abs() < 1e-6 && (l - 3.0 / (pi * r * r)).abs() < 1e-2 * l);
        let (c, r, l) = spheres[1];
        assert!(c.abs_diff_eq(Vec3::new(1.2, 1.65, 0.4), 1e-5), "{c}");
        assert!((r - 0.1).abs() < 1e-6 && (l - 1.0 / (pi * r * r)).abs() < 1e-2 * l);
    }
}
