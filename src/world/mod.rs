//! The render-ready scene: meshes kept once, instances with their world transforms and
//! material tables, lights with a sampler over them, the sky and the camera.
//!
//! Built from a resolved [`Scene`](crate::scene::Scene); everything a bake reads during
//! tracing lives here, so the integrator never looks back at the scene or the files.
//!
//! Files: this one holds the types; `build.rs` builds the world from the scene, `materials.rs`
//! turns library materials into models, `gltf_surface.rs` glTF materials drawn as themselves, `sun.rs` resolves the sun and the analytic sky, `haze.rs` the `[haze]` medium,
//! `notes.rs` names what the scene holds that this version does not draw, `text.rs` fills
//! `[text.*]` blocks into triangles, and `casters.rs` gathers the caster geometry of
//! `[plates] casters` and the proxies.

mod build;
pub mod casters;
pub mod gltf_surface;
mod haze;
mod materials;
mod notes;
mod sun;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_film;
pub mod text;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};

use crate::accel::spheres::SphereTree;
use crate::accel::Accel;
use crate::assets::Coverage;
use crate::camera::Camera;
use crate::lights::{Distribution1D, Light, LightTree};
use crate::materials::Bxdfs;
use crate::scene::{Diagnostic, Location, Shadow};

/// Ray masks: what a ray can see.
pub mod mask {
    /// Seen by camera rays: objects with `shadow = "cast"` or `"none"`.
    pub const DRAWN: u32 = 1;
    /// Blocks light and is met by rays after the first bounce: `"cast"` and `"only"`.
    pub const CASTS: u32 = 2;
}

/// Shading data of one mesh, parallel to the accel's
/// [`TriangleMesh`](crate::accel::TriangleMesh).
#[derive(Clone, Debug, Default)]
pub struct MeshShading {
    /// Object-space unit vertex normals.
    pub normals: Vec<Vec3>,
    /// Texture coordinates (TEXCOORD_0).
    pub uvs: Vec<Vec2>,
    /// TEXCOORD_1 onwards, each as long as `normals` (see [`crate::assets::Geometry`]).
    pub more_uvs: Vec<Vec<Vec2>>,
    /// COLOR_0, linear RGBA; empty without vertex colours.
    pub colors: Vec<Vec4>,
    /// Object-space tangents with the bitangent's sign in w; empty when no normal texture
    /// needs them.
    pub tangents: Vec<Vec4>,
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
    /// Index into [`World::objects`]; [`text::TEXT_INSTANCE`] for a text block's instance.
    pub object: u32,
    /// Index into [`TraceScene::cuts`] when clip planes or a cut-out material cut the surface.
    pub cut: Option<u32>,
    /// Unlit text, or a KHR_materials_unlit glTF material drawn as itself: its material's
    /// emission (an unlit glTF surface's colour at the hit where it varies) is seen by camera
    /// rays and by chains of mirror and glass (delta) bounces from them, and nothing else: no
    /// light, no lighting of what a diffuse or glossy bounce meets, and no scattering
    /// (docs/text.md, docs/assets.md "Unlit").
    pub glow: bool,
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
    /// The alpha threshold of a MASK material (the object's `alpha_cutoff` where the scene
    /// writes it, else the file's `alphaCutoff`): a point whose alpha is below it is cut.
    /// Not read for BLEND, which is stochastic.
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
            // BLEND: stochastic transparency, kept with probability alpha, by a number that
            // is a hash of the point (the same surface point answers the same for every ray
            // and thread, so a bake stays deterministic).
            Some(c) if c.blend => c.alpha(uv()) > point_hash(p),
            Some(c) => c.alpha(uv()) >= self.cutoff,
            None => true,
        }
    }
}

/// A number in [0, 1) that looks uniformly random, a function of the bits of `p` alone: the
/// coordinates' bits mixed by the `lowbias32` finaliser (C. Wellons, "Prospecting for hash
/// functions", 2018).
#[inline]
pub fn point_hash(p: Vec3) -> f32 {
    let mix = |mut x: u32| {
        x ^= x >> 16;
        x = x.wrapping_mul(0x7feb_352d);
        x ^= x >> 15;
        x = x.wrapping_mul(0x846c_a68b);
        x ^ (x >> 16)
    };
    let h = mix(p.x.to_bits() ^ mix(p.y.to_bits() ^ mix(p.z.to_bits())));
    // The top 24 bits, exactly representable: the result is below 1.
    (h >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
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
    /// Radiance leaving the front face, W·m⁻²·sr⁻¹ (zero for a glTF surface whose emission
    /// varies: its [`GltfSurface`](gltf_surface::GltfSurface) gives it at each hit).
    pub emission: Vec3,
    /// The absorption coefficient of the body behind a transmitting surface's back face, per
    /// scene unit and channel (Beer–Lambert: `exp(−absorption · distance)` is kept); zero
    /// for a clear body and for every surface that does not enclose a medium.
    pub absorption: Vec3,
    /// The scattering medium of a subsurface body behind the surface's back face (the
    /// `subsurface` key on a family that draws it, docs/materials.md "Subsurface
    /// scattering"): a path that enters it walks inside until it leaves. `None` elsewhere.
    pub subsurface: Option<crate::media::Subsurface>,
    /// A holdout (the `occluder` family): the camera sees nothing there (zero alpha, no
    /// radiance), any other path is absorbed; it still casts shadows.
    pub holdout: bool,
    /// A glTF material drawn as itself whose parameters vary over the surface: the BSDF,
    /// emission and shading normal are built from it at each hit (`bxdf` then holds the
    /// material's factors alone, for what asks about the material as a whole).
    pub surface: Option<Arc<gltf_surface::GltfSurface>>,
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

/// The world-space geometry of an instance the accel flattened into world space (a mesh
/// placed once, or a small one placed a few times): what the shading point of a hit reads,
/// computed once instead of per hit. Positions and face normals are the bits the per-hit
/// transform gives; vertex normals are transformed before, not after, interpolation.
#[derive(Clone, Debug, Default)]
pub struct WorldGeometry {
    /// World positions, world units, per vertex of the mesh.
    pub positions: Vec<Vec3>,
    /// World vertex normals (the normal matrix times the object normals, not renormalised),
    /// per vertex; empty where the mesh has none.
    pub normals: Vec<Vec3>,
    /// Unit world normal of each triangle's front face (its winding's, mirroring accounted
    /// for).
    pub face_normals: Vec<Vec3>,
}

impl WorldGeometry {
    /// The world geometry of `mesh` placed by `world_from_object`, with normal matrix
    /// `normal_matrix` and `orientation` ±1 (see [`InstanceInfo`]).
    pub fn new(
        mesh: &crate::accel::TriangleMesh,
        shading: &MeshShading,
        world_from_object: &Mat4,
        normal_matrix: Mat3,
        orientation: f32,
    ) -> WorldGeometry {
        let positions: Vec<Vec3> = mesh
            .positions
            .iter()
            .map(|&v| world_from_object.transform_point3(v))
            .collect();
        let normals = if shading.normals.len() == mesh.positions.len() {
            shading.normals.iter().map(|&n| normal_matrix * n).collect()
        } else {
            Vec::new()
        };
        let face_normals = mesh
            .indices
            .iter()
            .map(|tri| match tri.map(|v| positions.get(v as usize)) {
                [Some(&a), Some(&b), Some(&c)] => {
                    ((b - a).cross(c - a) * orientation).normalize_or(Vec3::Y)
                }
                _ => Vec3::Y,
            })
            .collect();
        WorldGeometry {
            positions,
            normals,
            face_normals,
        }
    }
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
    /// Per accel instance, its world-space geometry where the accel flattened it
    /// ([`Accel::is_flattened`]; `None` for an instanced mesh, which keeps one object-space
    /// copy).
    pub world_geometry: Vec<Option<WorldGeometry>>,
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
    /// The light tree over every light with a position and power (all but the sun and sky),
    /// built from `lights` and `light_powers`: next-event estimation's point-dependent pick.
    pub light_tree: LightTree,
    /// The sphere lights (`[[light]]` with a radius, `[[emitter]]`) in a tree of their own,
    /// ids their indices in `lights`: every one has the [`mask::DRAWN`] bit (the camera sees
    /// them all), those that cast shadows also [`mask::CASTS`] (other rays meet them).
    pub sphere_tree: SphereTree,
    /// Indices of lights at infinity (sky, sun disk) an escaping ray sees.
    pub infinite: Vec<u32>,
    /// The `[haze]` box, when the scene has one that is not clear: rays scatter in it and
    /// light through it is attenuated. `None` costs the path loop nothing.
    pub medium: Option<crate::media::Medium>,
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
    /// Every `[text.*]` block, static and dynamic, as placed (for the manifest).
    pub texts: Vec<text::TextRecord>,
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
    /// Its pick id (`[[object]] pick`): what the plate's pick pass writes where it is seen.
    pub pick: u32,
    /// Triangles it places.
    pub triangles: usize,
}

/// A failure to build the world: always about the input.
#[derive(Debug)]
pub struct WorldError(pub Vec<Diagnostic>);

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

/// The scene file's folder, for messages.
pub fn display_root(root: &Path) -> String {
    root.display().to_string()
}

/// A colour from the scene as linear RGB: non-finite or negative channels become 0.
fn rgb(c: [f32; 3]) -> Vec3 {
    Vec3::from(c.map(|v| if v.is_finite() { v.max(0.0) } else { 0.0 }))
}
