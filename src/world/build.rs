//! `World::build`: meshes, instances, lights, sky and camera from a resolved scene, with the
//! loader's diagnostics for what cannot be built.

use super::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use std::collections::HashSet;

use glam::{Mat3, Mat4, Vec3};

use super::gltf_surface::{gltf_material_def, VERTEX_COLOURED};
use super::materials::material_def;
use super::notes::capability_notes;
use super::sun::{analytic_sky, daylight_turbidity, resolve_sun};
use crate::accel::spheres::{Sphere, SphereTree};
use crate::accel::{Accel, Instance, TriangleMesh};
use crate::assets::{self, MeshAsset};
use crate::camera::Camera;
use crate::lights::sky::SkyMap;
use crate::lights::{luminance, skymaps, Distribution1D, Light, LightTree};
use crate::scene::{self, Code, Diagnostic, Location, Scene, Severity, Shadow, SkyKind};

/// An object's or group's own transform and its parent's key.
pub(super) type Frame<'a> = ([f32; 3], [f32; 3], [f32; 3], Option<&'a str>);

pub(super) fn diag(at: &Location, code: Code, key: String, message: String) -> Diagnostic {
    Diagnostic {
        file: at.file.clone(),
        line: at.line.max(1),
        column: at.column.max(1),
        end_line: at.line.max(1),
        end_column: at.column.max(1) + 1,
        severity: Severity::Error,
        code: code.as_str(),
        key,
        message,
        related: Vec::new(),
    }
}

/// The first character of the scene file: where a finding goes that has no better place.
pub(super) fn scene_start(scene: &Scene) -> Location {
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
pub(super) fn key_location(
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

/// The [`Code`] of an asset's failure: the loader's own codes, whose strings are the assets'
/// own (`AssetErrorKind::code`; a test holds the two together).
pub(super) fn asset_code(kind: assets::AssetErrorKind) -> Code {
    match kind {
        assets::AssetErrorKind::Unreadable => Code::AssetUnreadable,
        assets::AssetErrorKind::GltfInvalid => Code::GltfInvalid,
        assets::AssetErrorKind::GltfNode => Code::GltfNode,
        assets::AssetErrorKind::GltfExtension => Code::GltfExtension,
        assets::AssetErrorKind::GltfEmpty => Code::GltfEmpty,
        assets::AssetErrorKind::HdrInvalid => Code::HdrInvalid,
        assets::AssetErrorKind::FontInvalid => Code::FontInvalid,
        assets::AssetErrorKind::FontGlyph => Code::FontGlyph,
    }
}

/// The loader's diagnostic for an asset that would not load: the [`assets::AssetErrorKind`]'s
/// own code (never one of the spec's: the spec's checker does not read asset contents),
/// placed at the key that names the asset.
pub(super) fn asset_diag(
    at: Location,
    width: u32,
    key: String,
    file: &Path,
    e: &assets::AssetError,
) -> Diagnostic {
    let mut d = diag(
        &at,
        asset_code(e.kind),
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
pub(super) fn mesh_asset_diag(
    scene: &Scene,
    mesh: &scene::Mesh,
    e: &assets::AssetError,
) -> Diagnostic {
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
        // Movers at t = 0, by the key of each object or placement they move. An object a
        // mover moves is dynamic and left out of the plate, unless kept static
        // (`dynamic = false`): then it is baked at its pose at t = 0, cut by the mover's
        // planes as well as its own (docs/rendering.md).
        let mut moved: HashMap<&str, (Mat4, &[[f32; 4]])> = HashMap::new();
        for mv in &scene.movers {
            let m = mover_matrix(mv, mv.value_at(0.0));
            for k in &mv.objects {
                moved.insert(k.as_str(), (m, &mv.clip));
            }
        }
        // The movers of an object and of everything above it: its own first, then its
        // parent's, up the chain, as the spec composes them; and their planes.
        let movers_of = |i: usize| -> (Mat4, Vec<[f32; 4]>) {
            let mut m = Mat4::IDENTITY;
            let mut planes = Vec::new();
            let mut cur = Some(scene.objects[i].key.as_str());
            // The bound keeps a hand-built scene with a parent cycle from looping.
            for _ in 0..=frames.len() {
                let Some(k) = cur else { break };
                if let Some((mv, clip)) = moved.get(k) {
                    m = *mv * m;
                    planes.extend_from_slice(clip);
                }
                cur = frames.get(k).and_then(|f| f.3);
            }
            (m, planes)
        };
        let world_of = |i: usize| -> Mat4 {
            let o = &scene.objects[i];
            let rest = frame_of(o.parent.as_deref())
                * crate::geometry::model_matrix(o.at, o.rotate, o.scale);
            movers_of(i).0 * rest
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

        let camera_def = scene.camera.clone().unwrap_or_default();
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
        let mut nodes_checked: HashSet<&str> = HashSet::new();
        // (asset, glTF material, whether its geometry has COLOR_0) → the material drawn.
        let mut gltf_materials: HashMap<(usize, usize, bool), u32> = HashMap::new();

        for (oi, o) in scene.objects.iter().enumerate() {
            let mut record = ObjectRecord {
                key: o.key.clone(),
                id: o.id.clone(),
                dynamic: o.dynamic,
                hidden: o.hidden,
                shadow: o.shadow,
                pick: o.pick,
                triangles: 0,
            };
            let in_plate = !o.dynamic && !o.hidden;
            let Some(mesh) = mesh_by_key.get(o.mesh.as_str()) else {
                errors.push(diag(
                    &o.at_loc,
                    Code::BadReference,
                    format!("{}.mesh", object_dkey(o)),
                    format!("no mesh named {:?}", o.mesh),
                ));
                continue;
            };
            // A card kept static (`face_camera` with `dynamic = false`) is baked as the spec
            // turns it: at its world position and scale, its local +Z towards the camera and
            // its +Y along the camera's up, its own `rotate` (and its parents' turns) ignored.
            let world = if o.face_camera {
                face_camera(world_of(oi), &camera_def)
            } else {
                world_of(oi)
            };
            let det = world.determinant();
            if !det.is_finite() || det.abs() < 1e-12 {
                errors.push(diag(&o.at_loc, Code::BadValue, format!("{}.scale", object_dkey(o)),
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
            // A node name the mesh's overrides or the object's `materials` give that no part
            // of the loaded mesh passes through would silently do nothing: the spec has the
            // loader refuse it. Each mesh's overrides are checked once.
            let known: HashSet<&str> = a
                .parts
                .iter()
                .flat_map(|p| p.node_path.iter().map(String::as_str))
                .collect();
            let unknown = |node: &str| !known.contains(node);
            let listed = || {
                let mut v: Vec<&str> = known.iter().copied().filter(|n| !n.is_empty()).collect();
                v.sort_unstable();
                v.join(", ")
            };
            if nodes_checked.insert(mesh.key.as_str()) {
                for n in mesh.nodes.iter().filter(|n| unknown(&n.node)) {
                    let mut d = diag(
                        &n.at,
                        Code::GltfNode,
                        format!("mesh.{}.nodes.{}", mesh.key, n.node),
                        format!(
                            "no node {:?} holds or leads to geometry in {}: an unknown node is \
                             refused (its nodes: {})",
                            n.node,
                            mesh.file.display(),
                            listed()
                        ),
                    );
                    d.end_column = d.column + 1;
                    errors.push(d);
                }
            }
            let bad: Vec<&str> = o
                .materials
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| unknown(n))
                .collect();
            if !bad.is_empty() {
                let dkey = format!("{}.materials", object_dkey(o));
                let (at, width) = key_location(scene, "object.materials", &dkey, None)
                    .unwrap_or_else(|| (o.at_loc.clone(), 1));
                for n in bad {
                    let mut d = diag(
                        &at,
                        Code::GltfNode,
                        format!("{dkey}.{n}"),
                        format!(
                            "object {:?} gives a material to node {n:?}, which holds or leads to \
                             no geometry of mesh {:?} ({}): an unknown node is refused (its \
                             nodes: {})",
                            o.key,
                            mesh.key,
                            mesh.file.display(),
                            listed()
                        ),
                    );
                    d.end_column = d.column.saturating_add(width);
                    errors.push(d);
                }
                continue;
            }
            let mut planes = world_planes(&o.clip, world);
            // A mover's planes are in the world already.
            planes.extend(world_planes(&movers_of(oi).1, Mat4::IDENTITY));
            let cutoff = if o.alpha_cutoff.is_finite() {
                o.alpha_cutoff.clamp(0.0, 1.0)
            } else {
                0.5
            };
            // A MASK material cuts at the object's `alpha_cutoff` where the scene writes one
            // (or a hand-built scene sets one other than the default), else at the file's own
            // `alphaCutoff` (docs/rendering.md).
            let cutoff_written = o.alpha_cutoff != 0.5
                || key_location(
                    scene,
                    "object.alpha_cutoff",
                    &format!("{}.alpha_cutoff", object_dkey(o)),
                    None,
                )
                .is_some();
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
                let named = by_node
                    .or(o.material.as_deref())
                    .or(node_override.and_then(|n| n.material.as_deref()))
                    .and_then(|k| material_index.get(k).copied());
                let by_gltf = gltf_name
                    .and_then(|n| material_index.get(n).copied())
                    .or_else(|| {
                        gltf_name
                            .and_then(|n| n.split_once('.'))
                            .and_then(|(stem, _)| material_index.get(stem).copied())
                    });
                let fallback = scene
                    .fallback
                    .as_deref()
                    .and_then(|f| material_index.get(f).copied());
                // The glTF material decides, and nothing the scene holds covers it: the glTF
                // material itself is drawn (the loader's default material the spec leaves to
                // us), which a bake says once per material and file.
                let own = match (named.or(by_gltf).or(fallback), part.gltf_material) {
                    (None, Some(gm)) => a.materials.get(gm).map(|m| (gm, m)),
                    // No glTF material, but vertex colours: they are the surface's colour.
                    (None, None) if !geom.colors.is_empty() => {
                        Some((usize::MAX, &*VERTEX_COLOURED))
                    }
                    _ => None,
                };
                let own = own.map(|(gm, m)| {
                    let what = format!("gltf material {} in {}", m.label, mesh.file.display());
                    if !capabilities.iter().any(|c| c.what == what) {
                        capabilities.push(Capability {
                            message: format!(
                                "glTF {} of {} is drawn from its own parameters: no library \
                                 names it and the scene has no fallback",
                                m.label,
                                mesh.file.display()
                            ),
                            what,
                            at: mesh.at.clone(),
                            count: 1,
                        });
                    }
                    let colors = !geom.colors.is_empty();
                    // COLOR_0 varies a metal's F0, which the film's conductor tables are
                    // built over once (a metal-free base may vary under the film).
                    let what = format!(
                        "gltf material {} in {}: film over COLOR_0",
                        m.label,
                        mesh.file.display()
                    );
                    if colors
                        && m.iridescence > 0.0
                        && m.metallic > 0.0
                        && !capabilities.iter().any(|c| c.what == what)
                    {
                        capabilities.push(Capability {
                            message: format!(
                                "KHR_materials_iridescence over a metal varying with vertex \
                                 colours (COLOR_0) is not rendered yet: glTF {} of {} is drawn \
                                 without its film there",
                                m.label,
                                mesh.file.display()
                            ),
                            what,
                            at: mesh.at.clone(),
                            count: 1,
                        });
                    }
                    *gltf_materials
                        .entry((asset, gm, colors))
                        .or_insert_with(|| {
                            materials.push(gltf_material_def(m, colors, filter_glossy));
                            (materials.len() - 1) as u32
                        })
                });
                // An unlit glTF material drawn as itself glows (docs/assets.md, "Unlit").
                let glow = own.is_some()
                    && part
                        .gltf_material
                        .and_then(|gm| a.materials.get(gm))
                        .is_some_and(|m| m.unlit);
                let material = named
                    .or(by_gltf)
                    .or(fallback)
                    .or(own)
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
                                more_uvs: geom.more_uvs.clone(),
                                colors: geom.colors.clone(),
                                tangents: geom.tangents.clone(),
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
                // A glow's colour is seen, never sampled as a light.
                let emits = luminance(materials[material as usize].emission) > 0.0
                    && shadow != Shadow::Only
                    && !glow;
                let coverage = part.coverage.and_then(|c| a.coverages.get(c));
                if let Some(c) = coverage {
                    let file = mesh.file.display();
                    let mut note = |m: String| {
                        if cut_warned.insert(m.clone()) {
                            asset_warnings.push(m);
                        }
                    };
                    if !c.blend && cutoff_written && (c.file_cutoff - cutoff).abs() > 1e-6 {
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
                    let cutoff = match coverage {
                        Some(c) if !cutoff_written => c.file_cutoff.clamp(0.0, 1.0),
                        _ => cutoff,
                    };
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
                    glow,
                });
            }
            objects.push(record);
        }

        // A text block's frame: its placement's, moved as the movers of the placement and of
        // everything above it stand at t = 0 (as a static object's is).
        let text_frame = |key: Option<&str>| -> Mat4 {
            let mut m = Mat4::IDENTITY;
            let mut cur = key;
            for _ in 0..=frames.len() {
                let Some(k) = cur else { break };
                if let Some((mv, _)) = moved.get(k) {
                    m = *mv * m;
                }
                cur = frames.get(k).and_then(|f| f.3);
            }
            m * frame_of(key)
        };
        let texts = super::text::build_texts(
            scene,
            &text_frame,
            filter_glossy,
            super::text::TextSink {
                tri_meshes: &mut tri_meshes,
                shading: &mut shading,
                instances: &mut instances,
                infos: &mut infos,
                materials: &mut materials,
                cuts: &mut cuts,
                asset_files: &mut asset_files,
                capabilities: &mut capabilities,
                errors: &mut errors,
            },
        );

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

        let accel = Accel::build_flattening(tri_meshes, instances, crate::accel::FLATTEN_TRIANGLES);
        let (lo, hi) = accel.bounds();
        let radius = (0.5 * (hi - lo).length()).max(1e-3);
        let radius = if radius.is_finite() { radius } else { 1.0 };
        let powers: Vec<f32> = lights.iter().map(|l| l.power(radius)).collect();
        let light_power = Distribution1D::new(&powers);
        let light_tree = LightTree::build(&lights, &powers);
        // A surface whose emission varies (an emissive texture) is no light of the list, yet
        // it lights the scene through the rays that meet it.
        let varying_emitters = materials
            .iter()
            .any(|m| m.surface.as_ref().is_some_and(|s| s.emission_varies()));
        if lights.is_empty() && !varying_emitters {
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
        let medium = super::haze::medium(scene, &mut capabilities);
        let transmissive_shadows = scene.trace.as_ref().is_some_and(|t| t.transmissive_shadows)
            && materials.iter().any(|m| m.bxdf.bounds_body());
        let world_geometry = world_geometry(&accel, &shading, &infos);
        Ok(World {
            trace: TraceScene {
                accel,
                shading,
                instances: infos,
                world_geometry,
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
                light_tree,
                sphere_tree,
                infinite,
                medium,
            },
            camera,
            placed_lights,
            sun,
            objects,
            texts,
            capabilities: {
                capabilities.sort_by(|a, b| a.what.cmp(&b.what));
                capabilities
            },
            asset_warnings,
            asset_files,
        })
    }
}

/// Per accel instance, the world geometry of those the accel flattened into world space.
fn world_geometry(
    accel: &Accel,
    shading: &[MeshShading],
    infos: &[InstanceInfo],
) -> Vec<Option<WorldGeometry>> {
    accel
        .instances()
        .iter()
        .zip(infos)
        .enumerate()
        .map(|(i, (inst, info))| {
            let m = inst.mesh as usize;
            match (accel.meshes().get(m), shading.get(m)) {
                (Some(mesh), Some(sh)) if accel.is_flattened(i as u32) => Some(WorldGeometry::new(
                    mesh,
                    sh,
                    &inst.world_from_object,
                    info.normal_matrix,
                    info.orientation,
                )),
                _ => None,
            }
        })
        .collect()
}

/// A mover's world transform where it stands at `value` (degrees about its axis through its
/// pivot, or scene units along its axis).
pub(super) fn mover_matrix(mv: &scene::Mover, value: f32) -> Mat4 {
    let axis = Vec3::from(mv.axis).normalize_or_zero();
    if axis == Vec3::ZERO || !value.is_finite() {
        return Mat4::IDENTITY;
    }
    match mv.kind {
        scene::MoverKind::Slide => Mat4::from_translation(axis * value),
        scene::MoverKind::Turn => {
            let pivot = Vec3::from(mv.pivot);
            Mat4::from_translation(pivot)
                * Mat4::from_axis_angle(axis, value.to_radians())
                * Mat4::from_translation(-pivot)
        }
    }
}

/// `world` turned as a camera-facing card: the same position and axis lengths, its +Z towards
/// the camera's eye (against the view direction for an orthographic camera, or when the eye
/// is at the card) and its +Y along the camera's up, as far as +Z allows.
pub(super) fn face_camera(world: Mat4, camera: &scene::Camera) -> Mat4 {
    let p = world.w_axis.truncate();
    let scale = Vec3::new(
        world.x_axis.truncate().length(),
        world.y_axis.truncate().length(),
        world.z_axis.truncate().length(),
    );
    let eye = Vec3::from(camera.at);
    let back = (eye - Vec3::from(camera.look_at)).normalize_or(Vec3::Z);
    let z = match camera.projection {
        scene::Projection::Orthographic => back,
        scene::Projection::Perspective => (eye - p).normalize_or(back),
    };
    let up = Vec3::from(camera.up);
    let x = up.cross(z).normalize_or(z.any_orthonormal_vector());
    let y = z.cross(x);
    Mat4::from_cols(
        (x * scale.x).extend(0.0),
        (y * scale.y).extend(0.0),
        (z * scale.z).extend(0.0),
        p.extend(1.0),
    )
}

/// An object's dotted diagnostic key, as the reader writes it: by its id when it has one,
/// else by its key (the model keeps no file place for an entry without id).
pub(super) fn object_dkey(o: &scene::Object) -> String {
    format!("object.{}", o.id.as_deref().unwrap_or(&o.key))
}
