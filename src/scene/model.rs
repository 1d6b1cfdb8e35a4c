//! The resolved scene: plain data, every reference rewritten to the key of what it names,
//! every path relative to the project root. A test can build one by hand.
//!
//! Quantities carry their units in their doc comments. Defaults are the spec's, filled in
//! by the reader, so nothing below the scene stage needs to know them; the `Default`s here
//! read them from the schema, which holds each default once.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::diagnostic::{Diagnostic, Location};
use super::schema::{self, default_bool, default_f32, default_vec};

/// A resolved format 1 scene.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// The project root, absolute.
    pub root: PathBuf,
    /// The scene file, relative to the root.
    pub file: PathBuf,
    /// Every file the scene read (project.toml, the scene, its includes, its libraries, the
    /// prefabs it places and their includes and libraries, its proxies file), relative to the
    /// root, in the order read. Assets named by the scene are not listed here.
    pub files: Vec<PathBuf>,
    /// `[mesh.<name>]` tables.
    pub meshes: Vec<Mesh>,
    /// `[[object]]` entries that place a mesh: the scene's and its includes', then each
    /// placement's, keyed `"<placement key>/<inner key>"`.
    pub objects: Vec<Object>,
    /// Prefab placements: groups with no mesh, the parents of the objects they place.
    pub groups: Vec<Group>,
    /// `[[tiles]]` layers, each palette value rewritten to its prefab's root-relative path. Their
    /// filled cells are placed: a group per cell in `groups` (keyed `"<layer>/<i>,<j>"`) and
    /// the prefab's entries under it.
    pub tiles: Vec<Tiles>,
    /// Every material of every library the scene, its includes and its placed prefabs name, by
    /// key (its name); a material a placement's `[object.set]` overrides is here once more for
    /// that placement, keyed `"<placement key>/<material name>"`.
    pub materials: Vec<Material>,
    /// `fallback`, the key of a material.
    pub fallback: Option<String>,
    /// `[[light]]` entries.
    pub lights: Vec<Light>,
    /// `[[emitter]]` entries.
    pub emitters: Vec<Emitter>,
    /// `[text.<name>]` blocks: the scene's and its includes', then each placement's (keyed
    /// `"<placement key>/<name>"`).
    pub texts: Vec<Text>,
    /// `[camera]`, when present.
    pub camera: Option<Camera>,
    /// `[sun]`, when present.
    pub sun: Option<Sun>,
    /// `[sky]`, when present.
    pub sky: Option<Sky>,
    /// `[trace]`, when present.
    pub trace: Option<Trace>,
    /// `[haze]`, when present.
    pub haze: Option<Haze>,
    /// `[plates]`, when present.
    pub plates: Option<Plates>,
    /// `[finish]`, when present: its keys as written, for `finish::resolve` to build the chain.
    pub finish: Option<Finish>,
    /// `[[rig]]` entries: the scene's and its includes', then each placement's (keyed
    /// `"<placement key>/<name>"`). A bake does not draw them; a game picks one.
    pub rigs: Vec<Rig>,
    /// `[[mover]]` entries: the scene's and its includes', then each placement's (keyed
    /// `"<placement key>/<name>"`), each `objects` rewritten to the keys of what it moves.
    pub movers: Vec<Mover>,
    /// The `[[proxy]]` entries of `[plates] proxies`, in the order written.
    pub proxies: Vec<Proxy>,
    /// project.toml's `[layers]`: each layer's name and the layers it meets. Empty without
    /// `[layers]`, or when project.toml can't be read.
    pub layers: BTreeMap<String, Vec<String>>,
    /// Every table and key the files hold, by schema path, so that a consumer can name what it
    /// does not use. See [`Presence`].
    pub present: Vec<Presence>,
    /// Warnings found while reading (missing-id, old-format).
    pub warnings: Vec<Diagnostic>,
}

/// One table or key found in the input, named by its schema path: the dotted path of table
/// and key names with entry names and list places left out, so `[materials.white] clearcoat`
/// is `materials.clearcoat`, `[[object]] clip` is `object.clip`, `[object.body]` is
/// `object.body`, `[haze]` is `haze`, `[sky.prepare] cap` is `sky.prepare.cap`.
/// Top-level keys are their own names (`include`, `fallback`).
#[derive(Clone, Debug, PartialEq)]
pub struct Presence {
    /// Schema path.
    pub path: String,
    /// The dotted diagnostic key of this occurrence (`materials.white.clearcoat`).
    pub key: String,
    /// Where it is written.
    pub at: Location,
    /// Whether the value written is the key's default (a table, or a key whose default is
    /// described in words, never is): it then changes nothing.
    pub default: bool,
}

/// `[mesh.<name>]`.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// The table's name, the key references resolve to.
    pub key: String,
    /// Its id, when written.
    pub id: Option<String>,
    /// The glTF file, relative to the root.
    pub file: PathBuf,
    /// The node whose subtree this mesh is; `None` for the default scene's roots.
    pub node: Option<String>,
    /// `[mesh.<name>.nodes."<node>"]`, in the order written.
    pub nodes: Vec<NodeOverride>,
    /// Where the table starts.
    pub at: Location,
}

/// `[mesh.<name>.nodes."<node>"]`.
#[derive(Clone, Debug, Default)]
pub struct NodeOverride {
    /// The glTF node's name.
    pub node: String,
    /// Material key, resolved.
    pub material: Option<String>,
    /// Not drawn.
    pub hidden: bool,
    /// Overrides the object's.
    pub shadow: Option<Shadow>,
    /// Overrides the object's.
    pub two_sided: Option<bool>,
    /// Where the table starts.
    pub at: Location,
}

/// How an object takes part in shadows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Shadow {
    /// Drawn and casts.
    #[default]
    Cast,
    /// Casts and is never drawn.
    Only,
    /// Drawn and casts none.
    None,
}

/// A prefab placement: an `[[object]]` with `prefab`, a group with no mesh. Its transform is
/// the parent of every root object, light and emitter of the prefab it places.
#[derive(Clone, Debug, Default)]
pub struct Group {
    /// Its key: its name, or `"<placement key>/<name>"` for a placement inside a prefab.
    pub key: String,
    /// Its id, namespaced as `"<placement id>/<inner id>"` inside a prefab; `None` when
    /// not written (or when a placement above it has none).
    pub id: Option<String>,
    /// The prefab it places, relative to the root.
    pub prefab: PathBuf,
    /// The parent object's or group's key.
    pub parent: Option<String>,
    /// Translation, scene units.
    pub at: [f32; 3],
    /// Degrees about X, then Y, then Z.
    pub rotate: [f32; 3],
    /// Per-axis scale.
    pub scale: [f32; 3],
    /// Hides everything it places (already folded into each placed object's `hidden`).
    pub hidden: bool,
    /// Set or derived as for any object.
    pub dynamic: bool,
    /// Where the entry starts.
    pub at_loc: Location,
}

/// `[[tiles]] plane`: the plane a tile layer lies in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Plane {
    /// i along +X, j along +Y (seen from +Z).
    #[default]
    Xy,
    /// i along +X, j along −Z (seen from above).
    Xz,
    /// i along −Z, j along +Y (seen from +X).
    Yz,
}

/// `[[tiles]]`: a grid of prefab placements.
#[derive(Clone, Debug, Default)]
pub struct Tiles {
    /// Its name.
    pub key: String,
    /// Its id, when written.
    pub id: Option<String>,
    /// A cell's size along i and j, scene units.
    pub cell: [f32; 2],
    /// Where cell [0, 0] places its prefab.
    pub origin: [f32; 3],
    /// The plane it lies in.
    pub plane: Plane,
    /// Each tile's key and the prefab it places, relative to the root.
    pub palette: Vec<(String, PathBuf)>,
    /// The filled cells, `([i, j], tile)`, from `rows` (top row first, left to right) or
    /// `cells` (in the order written).
    pub cells: Vec<([i64; 2], String)>,
    /// Where the entry starts.
    pub at: Location,
}

impl Tiles {
    /// The position cell `[i, j]` places its prefab at: origin + i·across·I + j·up·J.
    pub fn position(&self, at: [i64; 2]) -> [f32; 3] {
        let (u, v) = (at[0] as f32 * self.cell[0], at[1] as f32 * self.cell[1]);
        let [x, y, z] = self.origin;
        match self.plane {
            Plane::Xy => [x + u, y + v, z],
            Plane::Xz => [x + u, y, z - v],
            Plane::Yz => [x, y + v, z - u],
        }
    }
}

/// What a rig does with its target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RigKind {
    /// Keeps `[camera]`'s view direction and moves the camera after the target.
    #[default]
    Follow,
    /// The eye at the target, turned by the look input.
    FirstPerson,
    /// Orbits the target at `distance`, turned by the look input.
    ThirdPerson,
}

/// `[[rig]]`: a camera rig a game drives. Every key of the rig's kind has its spec default;
/// the keys of the other kinds (refused when written) hold their defaults too.
#[derive(Clone, Debug, Default)]
pub struct Rig {
    /// Its key: its name (a placed rig's is `"<placement key>/<name>"`).
    pub key: String,
    /// Its id, when written (namespaced when placed).
    pub id: Option<String>,
    /// Its kind.
    pub kind: RigKind,
    /// The key of the object it follows or looks from at the start, when written.
    pub target: Option<String>,
    /// Scene units. A follow rig without `offset` gets its default, `[camera] at` less the
    /// target's world position at rest (through its parents); `None` only for such a rig
    /// with no target. A first- or third-person rig's default is `[0, 0, 0]`.
    pub offset: Option<[f32; 3]>,
    /// Follow: scene units across and up the view the target moves before the camera follows.
    pub dead_zone: [f32; 2],
    /// Follow: scene units the followed point leads the target.
    pub look_ahead: f32,
    /// Follow: seconds per world axis to close most of the gap.
    pub damping: [f32; 3],
    /// Follow: the box (min, max corners, scene units) the camera never leaves.
    pub bounds: Option<([f32; 3], [f32; 3])>,
    /// Follow: the orthographic view's height, scene units.
    pub orthographic: Option<f32>,
    /// Follow, with orthographic: art pixels per scene unit.
    pub snap: Option<f32>,
    /// First-, third-person: a factor on the look input.
    pub sensitivity: f32,
    /// First-, third-person: looking up and down is turned over.
    pub invert: bool,
    /// First-, third-person: seconds to close most of the look's gap; 0 is off.
    pub smoothing: f32,
    /// First-, third-person: degrees the look turns down (min) and up (max) to.
    pub pitch: [f32; 2],
    /// First-person: the eye's bob height, scene units; 0 is off.
    pub head_bob: f32,
    /// Third-person: scene units behind the orbited point.
    pub distance: f32,
    /// Third-person: the camera stops short of what lies between it and the orbited point.
    pub collide: bool,
    /// Where the entry starts.
    pub at_loc: Location,
}

/// `[[mover]] kind`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MoverKind {
    /// Degrees about `axis` through `pivot`.
    #[default]
    Turn,
    /// Scene units along `axis`.
    Slide,
}

/// `[[mover]] motion`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Motion {
    /// From, to and back, eased by (1 − cos 2πu) / 2.
    #[default]
    Swing,
    /// From to to, then again.
    Loop,
    /// From to to, then stays.
    Once,
}

/// `[[mover]]`: a preview motion, defaults filled in.
#[derive(Clone, Debug, Default)]
pub struct Mover {
    /// Its key: its name (a placed mover's is `"<placement key>/<name>"`).
    pub key: String,
    /// The keys of the objects and placements it moves, with their children.
    pub objects: Vec<String>,
    /// Turn or slide.
    pub kind: MoverKind,
    /// A turn's pivot, scene units, in the scene's rest frame.
    pub pivot: [f32; 3],
    /// The axis it turns about or slides along (not zero; not normalised).
    pub axis: [f32; 3],
    /// From and to: degrees for a turn, scene units for a slide.
    pub travel: [f32; 2],
    /// Seconds, above 0.
    pub period: f32,
    /// How it runs through its travel.
    pub motion: Motion,
    /// Seconds added to the time.
    pub offset: f32,
    /// World planes `[nx, ny, nz, d]` that cut what it moves (a point is cut where n·p > d).
    pub clip: Vec<[f32; 4]>,
}

impl Mover {
    /// Where it stands at time `t` (seconds): degrees or scene units, from + (to − from) · f(u)
    /// with u = (t + offset) / period.
    pub fn value_at(&self, t: f32) -> f32 {
        let u = (t + self.offset) / self.period;
        let f = match self.motion {
            Motion::Swing => (1.0 - (2.0 * std::f32::consts::PI * u).cos()) / 2.0,
            Motion::Loop => u - u.floor(),
            Motion::Once => u.clamp(0.0, 1.0),
        };
        let f = if f.is_finite() { f } else { 0.0 };
        self.travel[0] + (self.travel[1] - self.travel[0]) * f
    }
}

/// A proxy's shape.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProxyKind {
    /// A unit cube scaled by `size`, turned by `rotate`, moved to `at` (T·R·S).
    #[default]
    Box,
    /// The convex hull given by `points` and `triangles`.
    Hull,
}

/// `[[proxy]]`: an invisible stand-in for one static object, in world space.
#[derive(Clone, Debug, Default)]
pub struct Proxy {
    /// Its key: its 0-based place among its file's `[[proxy]]` entries.
    pub key: usize,
    /// Its id, when written.
    pub id: Option<String>,
    /// The key of the object it stands in for.
    pub object: String,
    /// Its shape.
    pub kind: ProxyKind,
    /// Box: the centre, scene units (`[0, 0, 0]` for a hull).
    pub at: [f32; 3],
    /// Box: degrees about X, then Y, then Z (`[0, 0, 0]` for a hull).
    pub rotate: [f32; 3],
    /// Box: the edge lengths, scene units (`[0, 0, 0]` for a hull).
    pub size: [f32; 3],
    /// Hull: the vertices, scene units (empty for a box).
    pub points: Vec<[f32; 3]>,
    /// Hull: the faces, each corner a place in `points`, counter-clockwise seen from outside
    /// (empty for a box).
    pub triangles: Vec<[u32; 3]>,
    /// Where the entry starts.
    pub at_loc: Location,
}

/// `[[object]]` with a mesh.
#[derive(Clone, Debug, Default)]
pub struct Object {
    /// Its key: its name (a placed object's is `"<placement>/<inner>"`).
    pub key: String,
    /// Its id, when written.
    pub id: Option<String>,
    /// The mesh's key.
    pub mesh: String,
    /// The parent's key: an object's, or a group's (a placement's) in [`Scene::groups`].
    pub parent: Option<String>,
    /// Translation, scene units.
    pub at: [f32; 3],
    /// Degrees about X, then Y, then Z.
    pub rotate: [f32; 3],
    /// Per-axis scale (a number is written here three times).
    pub scale: [f32; 3],
    /// Material key for every part.
    pub material: Option<String>,
    /// Node name to material key, over `material`.
    pub materials: Vec<(String, String)>,
    /// Shadow mode.
    pub shadow: Shadow,
    /// Two-sided.
    pub two_sided: bool,
    /// Not drawn: its own `hidden`, or a placement above it is hidden.
    pub hidden: bool,
    /// Clip planes `[nx, ny, nz, d]`: a point is cut where n·p > d.
    pub clip: Vec<[f32; 4]>,
    /// Alpha cut-out threshold, 0 to 1.
    pub alpha_cutoff: f32,
    /// A camera-facing card.
    pub face_camera: bool,
    /// Whether the object moves at run time: set, or derived as the spec says.
    pub dynamic: bool,
    /// The pick id.
    pub pick: u32,
    /// Where the entry starts.
    pub at_loc: Location,
}

/// The 17 material families.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[allow(missing_docs)]
pub enum Family {
    #[default]
    Plain,
    Paper,
    Plaster,
    Stone,
    Cloth,
    Metal,
    Occluder,
    Petal,
    Leaf,
    Bark,
    Cord,
    Wood,
    Lacquer,
    Glass,
    Liquid,
    Emissive,
    Chrome,
}

impl Family {
    /// Every family, in the spec's order.
    pub const ALL: [Family; 17] = [
        Family::Plain,
        Family::Paper,
        Family::Plaster,
        Family::Stone,
        Family::Cloth,
        Family::Metal,
        Family::Occluder,
        Family::Petal,
        Family::Leaf,
        Family::Bark,
        Family::Cord,
        Family::Wood,
        Family::Lacquer,
        Family::Glass,
        Family::Liquid,
        Family::Emissive,
        Family::Chrome,
    ];

    /// The format's name of the family.
    pub fn name(self) -> &'static str {
        match self {
            Family::Plain => "plain",
            Family::Paper => "paper",
            Family::Plaster => "plaster",
            Family::Stone => "stone",
            Family::Cloth => "cloth",
            Family::Metal => "metal",
            Family::Occluder => "occluder",
            Family::Petal => "petal",
            Family::Leaf => "leaf",
            Family::Bark => "bark",
            Family::Cord => "cord",
            Family::Wood => "wood",
            Family::Lacquer => "lacquer",
            Family::Glass => "glass",
            Family::Liquid => "liquid",
            Family::Emissive => "emissive",
            Family::Chrome => "chrome",
        }
    }
}

/// `[materials.<name>]`: the scalar and colour keys, with the spec's defaults. The sub-tables
/// (normal, maps, content_layer, layers, ageing) and `content` appear in [`Scene::present`].
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Material {
    /// Its name in its library.
    pub key: String,
    pub id: Option<String>,
    /// The library, relative to the root.
    pub library: PathBuf,
    pub family: Family,
    /// Linear RGB albedo or F0.
    pub base: [f32; 3],
    pub roughness: f32,
    pub metalness: f32,
    /// Reflectance at normal incidence.
    pub specular: f32,
    pub clearcoat: f32,
    pub clearcoat_roughness: f32,
    pub sheen: f32,
    pub transmission: f32,
    pub ior: f32,
    pub dispersion: f32,
    /// Scene units.
    pub thickness: f32,
    pub subsurface: f32,
    pub subsurface_tint: [f32; 3],
    pub absorption: f32,
    pub thin_film: f32,
    pub thin_film_ior: f32,
    pub thin_film_amount: f32,
    /// Radiance leaving the front face, W·m⁻²·sr⁻¹, linear RGB.
    pub emission: [f32; 3],
    pub fresnel_power: f32,
    /// The kinds of its `[[materials.<name>.layers]]`, in the order written (not drawn yet:
    /// kept so that a bake's note names them).
    pub noise: Vec<String>,
    /// Where the table starts.
    pub at: Location,
}

impl Default for Material {
    /// The schema's defaults.
    fn default() -> Self {
        let m = &schema::MATERIAL;
        let fam = schema::default_str(m, "family").unwrap_or("plain");
        Material {
            key: String::new(),
            id: None,
            library: PathBuf::new(),
            family: Family::ALL
                .iter()
                .copied()
                .find(|f| f.name() == fam)
                .unwrap_or_default(),
            base: default_vec(m, "base"),
            roughness: default_f32(m, "roughness"),
            metalness: default_f32(m, "metalness"),
            specular: default_f32(m, "specular"),
            clearcoat: default_f32(m, "clearcoat"),
            clearcoat_roughness: default_f32(m, "clearcoat_roughness"),
            sheen: default_f32(m, "sheen"),
            transmission: default_f32(m, "transmission"),
            ior: default_f32(m, "ior"),
            dispersion: default_f32(m, "dispersion"),
            thickness: default_f32(m, "thickness"),
            subsurface: default_f32(m, "subsurface"),
            subsurface_tint: default_vec(m, "subsurface_tint"),
            absorption: default_f32(m, "absorption"),
            thin_film: default_f32(m, "thin_film"),
            thin_film_ior: default_f32(m, "thin_film_ior"),
            thin_film_amount: default_f32(m, "thin_film_amount"),
            emission: default_vec(m, "emission"),
            fresnel_power: default_f32(m, "fresnel_power"),
            noise: Vec::new(),
            at: Location {
                file: PathBuf::new(),
                line: 0,
                column: 0,
            },
        }
    }
}

impl Material {
    /// The number this material resolves for the schema's number key `name` of
    /// [`schema::MATERIAL`]; `None` for a key that is no number (and a debug assertion for
    /// one the schema does not hold).
    pub fn number(&self, name: &str) -> Option<f32> {
        let _ = schema::key_of(&schema::MATERIAL, name);
        Some(match name {
            "roughness" => self.roughness,
            "metalness" => self.metalness,
            "specular" => self.specular,
            "clearcoat" => self.clearcoat,
            "clearcoat_roughness" => self.clearcoat_roughness,
            "sheen" => self.sheen,
            "transmission" => self.transmission,
            "ior" => self.ior,
            "dispersion" => self.dispersion,
            "thickness" => self.thickness,
            "subsurface" => self.subsurface,
            "absorption" => self.absorption,
            "thin_film" => self.thin_film,
            "thin_film_ior" => self.thin_film_ior,
            "thin_film_amount" => self.thin_film_amount,
            "fresnel_power" => self.fresnel_power,
            _ => return None,
        })
    }

    /// The colour this material resolves for the schema's `[r, g, b]` key `name`, linear RGB.
    pub fn colour(&self, name: &str) -> Option<[f32; 3]> {
        let _ = schema::key_of(&schema::MATERIAL, name);
        match name {
            "base" => Some(self.base),
            "subsurface_tint" => Some(self.subsurface_tint),
            "emission" => Some(self.emission),
            _ => None,
        }
    }
}

/// `[[light]]`: a point (radius 0) or sphere light.
#[derive(Clone, Debug)]
pub struct Light {
    /// Its name.
    pub key: String,
    /// Its id, when written.
    pub id: Option<String>,
    /// Position, scene units: in the world, or in `parent`'s frame.
    pub position: [f32; 3],
    /// The placement (a key of [`Scene::groups`]) that placed it: `position` is in that
    /// group's frame and `radius` scales with it. `None`: world space.
    pub parent: Option<String>,
    /// Linear RGB, multiplies `intensity`.
    pub color: [f32; 3],
    /// Radiant intensity per channel, W/sr (times `color`).
    pub intensity: f32,
    /// Sphere radius, scene units; 0 is a point.
    pub radius: f32,
    /// The live renderer's range, scene units (a bake does not attenuate by it).
    pub range: f32,
    /// Whether it casts shadows.
    pub shadow: bool,
}

/// `[[emitter]]`: a glowing sphere.
#[derive(Clone, Debug)]
pub struct Emitter {
    /// Its name.
    pub key: String,
    /// Its id, when written.
    pub id: Option<String>,
    /// Centre, scene units: in the world, or in `parent`'s frame.
    pub position: [f32; 3],
    /// The placement (a key of [`Scene::groups`]) that placed it, as for [`Light::parent`].
    pub parent: Option<String>,
    /// Scene units, above 0.
    pub radius: f32,
    /// Linear RGB.
    pub color: [f32; 3],
    /// Radiates `color * intensity / (π radius²)` W·m⁻²·sr⁻¹.
    pub intensity: f32,
}

/// `[text.<name>]`: a block of text, defaults filled in.
#[derive(Clone, Debug, Default)]
pub struct Text {
    /// Its key: its table name (a placed block's is `"<placement key>/<name>"`).
    pub key: String,
    /// Its id, when written (namespaced when placed).
    pub id: Option<String>,
    /// The words; `\n` breaks a line.
    pub text: String,
    /// The .ttf or .otf file, relative to the root.
    pub font: PathBuf,
    /// Scene units per em, above 0.
    pub size: f32,
    /// Linear RGB and alpha, each ≥ 0: unlit text's radiance (W·m⁻²·sr⁻¹ per channel), lit
    /// text's diffuse albedo; alpha its coverage.
    pub color: [f32; 4],
    /// The block's centre, scene units: in the world, or in `parent`'s frame.
    pub at: [f32; 3],
    /// Degrees about X, then Y, then Z, as an object's.
    pub rotate: [f32; 3],
    /// Shaded by the scene (true), or glowing its colour (false).
    pub lit: bool,
    /// Drawn live over the plate (true), or baked into it (false).
    pub dynamic: bool,
    /// The placement (a key of [`Scene::groups`]) that placed it, as for [`Light::parent`].
    pub parent: Option<String>,
    /// Where the table starts.
    pub at_loc: Location,
}

/// `[camera] projection`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Projection {
    /// Pinhole (or thin lens with `fstop`).
    #[default]
    Perspective,
    /// Parallel.
    Orthographic,
}

/// `[camera]`, defaults filled in.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Camera {
    pub projection: Projection,
    pub at: [f32; 3],
    pub look_at: [f32; 3],
    pub up: [f32; 3],
    /// Vertical field of view, degrees (given, or derived from `focal` and `sensor`).
    pub fov: f32,
    /// Focal length, mm, when given.
    pub focal: Option<f32>,
    /// Sensor height, mm.
    pub sensor: f32,
    /// Orthographic view height, scene units.
    pub height: Option<f32>,
    pub near: f32,
    pub far: f32,
    /// Lens shift in halves of the view.
    pub shift: [f32; 2],
    pub fstop: Option<f32>,
    pub focus: Option<f32>,
}

impl Default for Camera {
    /// The schema's defaults: a perspective camera at [0, 0, 5] looking at the origin.
    fn default() -> Self {
        let c = &schema::CAMERA;
        Camera {
            projection: Projection::Perspective,
            at: default_vec(c, "at"),
            look_at: default_vec(c, "look_at"),
            up: default_vec(c, "up"),
            fov: default_f32(c, "fov"),
            focal: None,
            sensor: default_f32(c, "sensor"),
            height: None,
            near: default_f32(c, "near"),
            far: default_f32(c, "far"),
            shift: default_vec(c, "shift"),
            fstop: None,
            focus: None,
        }
    }
}

/// `[sun] model`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SunModel {
    /// Solar position and colour from hour, day and latitude.
    Daylight,
    /// As authored at `reference_hour`.
    Authored,
}

/// `[sun]`, defaults filled in.
#[derive(Clone, Debug)]
#[allow(missing_docs)]
pub struct Sun {
    pub model: SunModel,
    /// Local apparent solar time (authored: defaults to `reference_hour`).
    pub hour: f32,
    pub day: f32,
    pub latitude: f32,
    pub heading: f32,
    pub reference_hour: f32,
    /// Towards the sun, not normalised (authored only).
    pub toward: Option<[f32; 3]>,
    /// Linear RGB (authored only).
    pub color: [f32; 3],
    /// W/m² on a plane facing the sun (authored only).
    pub irradiance: Option<f32>,
    /// Angular radius, degrees.
    pub radius: f32,
}

impl Sun {
    /// The number this sun resolves for the schema's number key `name` of [`schema::SUN`];
    /// `None` for a key that is no number (or `irradiance` unset).
    pub fn number(&self, name: &str) -> Option<f32> {
        let _ = schema::key_of(&schema::SUN, name);
        Some(match name {
            "hour" => self.hour,
            "day" => self.day,
            "latitude" => self.latitude,
            "heading" => self.heading,
            "reference_hour" => self.reference_hour,
            "radius" => self.radius,
            "irradiance" => return self.irradiance,
            _ => return None,
        })
    }

    /// The format's name of its model.
    pub fn model_name(&self) -> &'static str {
        match self.model {
            SunModel::Daylight => "daylight",
            SunModel::Authored => "authored",
        }
    }
}

/// `[sky] kind`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SkyKind {
    /// Hošek–Wilkie daylight sky.
    Analytic,
    /// A Radiance .hdr map.
    #[default]
    Hdr,
    /// A procedural room of lamps.
    Room,
    /// A weighted sum of layers.
    Mix,
}

/// `[sky]`, defaults filled in. Each key is kept whatever the kind (the reader refuses a key
/// its kind does not take, so a key that kind ignores holds its default).
#[derive(Clone, Debug)]
pub struct Sky {
    /// Which sky.
    pub kind: SkyKind,
    /// The .hdr file, relative to the root (hdr only).
    pub path: Option<PathBuf>,
    /// Degrees; the sky turns by its negative (hdr and room).
    pub rotation_deg: f32,
    /// Scales the radiance (hdr and room).
    pub intensity: f32,
    /// Atmospheric turbidity, 1 to 10 (analytic).
    pub turbidity: f32,
    /// Linear RGB albedo of the ground under the analytic sky.
    pub ground_albedo: [f32; 3],
    /// The analytic sky's level with an authored sun.
    pub ambient: f32,
    /// `[sky.prepare]` (hdr).
    pub prepare: Option<Prepare>,
    /// `[sky.room]` (room).
    pub room: Option<Room>,
    /// `[[sky.layer]]` (mix), in the order written.
    pub layers: Vec<SkyLayer>,
}

impl Default for Sky {
    /// The schema's defaults for an hdr sky with no path.
    fn default() -> Self {
        let s = &schema::SKY;
        Sky {
            kind: SkyKind::Hdr,
            path: None,
            rotation_deg: default_f32(s, "rotation_deg"),
            intensity: default_f32(s, "intensity"),
            turbidity: default_f32(s, "turbidity"),
            ground_albedo: default_vec(s, "ground_albedo"),
            ambient: default_f32(s, "ambient"),
            prepare: None,
            room: None,
            layers: Vec::new(),
        }
    }
}

/// `[[sky.layer]]`: one sky of a mix, defaults filled in; never a mix itself.
#[derive(Clone, Debug)]
pub struct SkyLayer {
    /// The layer's share of the mix (not renormalised).
    pub weight: f32,
    /// Analytic, hdr or room.
    pub kind: SkyKind,
    /// The .hdr file, relative to the root (hdr only).
    pub path: Option<PathBuf>,
    /// Degrees; the layer turns by its negative (hdr and room).
    pub rotation_deg: f32,
    /// Scales the layer's radiance (hdr and room).
    pub intensity: f32,
    /// Atmospheric turbidity (analytic).
    pub turbidity: f32,
    /// Ground albedo under the analytic layer.
    pub ground_albedo: [f32; 3],
    /// The analytic layer's level with an authored sun.
    pub ambient: f32,
    /// `[sky.layer.prepare]` (hdr).
    pub prepare: Option<Prepare>,
    /// `[sky.layer.room]` (room).
    pub room: Option<Room>,
}

impl Default for SkyLayer {
    /// The spec's defaults for an hdr layer of weight 1 with no path.
    fn default() -> Self {
        let s = Sky::default();
        SkyLayer {
            weight: default_f32(&schema::SKY_LAYER, "weight"),
            kind: s.kind,
            path: s.path,
            rotation_deg: s.rotation_deg,
            intensity: s.intensity,
            turbidity: s.turbidity,
            ground_albedo: s.ground_albedo,
            ambient: s.ambient,
            prepare: None,
            room: None,
        }
    }
}

/// `[sky.prepare]`: applied to the HDR's texels, in this order, before intensity and rotation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prepare {
    /// Largest texel luminance, W·m⁻²·sr⁻¹.
    pub cap: Option<f32>,
    /// Linear RGB whose chromaticity the map's mean colour is balanced to.
    pub balance: Option<[f32; 3]>,
    /// The mean luminance over the sphere the map is scaled to, W·m⁻²·sr⁻¹.
    pub mean: Option<f32>,
}

/// `[sky.room]`: a room lit by lamps, rendered into an equirectangular map.
#[derive(Clone, Debug, PartialEq)]
pub struct Room {
    /// Texels per row, 2 to 8192; the map has `width / 2` rows.
    pub width: u32,
    /// Radiance of the floor, linear RGB, W·m⁻²·sr⁻¹.
    pub floor: [f32; 3],
    /// Radiance of the walls.
    pub wall: [f32; 3],
    /// Radiance of the ceiling.
    pub ceiling: [f32; 3],
    /// `[[sky.room.lights]]`, in the order written.
    pub lights: Vec<RoomLight>,
}

impl Default for Room {
    /// The schema's defaults: 64 texels wide, grey surfaces, no lamps.
    fn default() -> Self {
        let r = &schema::ROOM;
        Room {
            width: default_f32(r, "width") as u32,
            floor: default_vec(r, "floor"),
            wall: default_vec(r, "wall"),
            ceiling: default_vec(r, "ceiling"),
            lights: Vec::new(),
        }
    }
}

/// `[[sky.room.lights]]`: a lamp of the room (its geometry is in docs/rendering.md).
#[derive(Clone, Debug, PartialEq)]
pub struct RoomLight {
    /// A label.
    pub name: String,
    /// Azimuth of the lamp's centre, degrees.
    pub az: f32,
    /// Elevation of the lamp's centre, degrees.
    pub el: f32,
    /// W/m²: the lamp's radiance integrated over its solid angle, per unit of `color`.
    pub power: f32,
    /// Linear RGB.
    pub color: [f32; 3],
    /// Degrees of azimuth, above 0 and below 180.
    pub width: f32,
    /// Degrees of elevation, above 0 and below 180.
    pub height: f32,
    /// Edge ramp as a fraction of the width and height.
    pub soft: f32,
    /// Number of slats across the lamp.
    pub slats: f32,
    /// Open fraction of each slat period, 0 to 1.
    pub open: f32,
}

impl Default for RoomLight {
    /// The schema's defaults.
    fn default() -> Self {
        let l = &schema::ROOM_LIGHT;
        RoomLight {
            name: schema::default_str(l, "name")
                .unwrap_or_default()
                .to_string(),
            az: default_f32(l, "az"),
            el: default_f32(l, "el"),
            power: default_f32(l, "power"),
            color: default_vec(l, "color"),
            width: default_f32(l, "width"),
            height: default_f32(l, "height"),
            soft: default_f32(l, "soft"),
            slats: default_f32(l, "slats"),
            open: default_f32(l, "open"),
        }
    }
}

/// `[trace]`.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Shadow rays pass glass, tinted.
    pub transmissive_shadows: bool,
    /// Luminance cap after the first bounce; 0 is off.
    pub clamp_indirect: f32,
    /// Least roughness after a diffuse bounce; 0 is off.
    pub filter_glossy: f32,
}

impl Default for Trace {
    /// The schema's defaults: everything off.
    fn default() -> Self {
        let t = &schema::TRACE;
        Trace {
            transmissive_shadows: default_bool(t, "transmissive_shadows"),
            clamp_indirect: default_f32(t, "clamp_indirect"),
            filter_glossy: default_f32(t, "filter_glossy"),
        }
    }
}

/// `[haze]`: a box of haze, its densities resolved (a density not written is its share of
/// `amount`, as the spec gives it).
#[derive(Clone, Debug, PartialEq)]
pub struct Haze {
    /// Lower corner, scene units.
    pub lo: [f32; 3],
    /// Upper corner, scene units (the checker holds it above `lo`).
    pub hi: [f32; 3],
    /// Uniform fog density, 1/scene unit.
    pub fog: f32,
    /// Peak smoke density, 1/scene unit.
    pub smoke: f32,
    /// Mean mist density, 1/scene unit.
    pub mist: f32,
    /// Floor-layer density at `lo.y`, 1/scene unit.
    pub floor: f32,
    /// Henyey–Greenstein asymmetry, −0.9 to 0.9.
    pub phase: f32,
    /// The back lobe's weight relative to the forward lobe, ≥ 0.
    pub back: f32,
    /// `reach`, scene units.
    pub reach: f32,
    /// Tint of scattered light (single-scattering albedo), linear RGB.
    pub gold: [f32; 3],
    /// Ambient light the haze scatters, W·m⁻²·sr⁻¹, linear RGB.
    pub ambient: [f32; 3],
    /// `unmapped`.
    pub unmapped: f32,
    /// Seed of the noise of the mist and smoke.
    pub seed: u64,
}

/// `[plates] casters`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Casters {
    /// Each static object's own mesh.
    #[default]
    Meshes,
    /// The proxies.
    Proxies,
    /// Nothing.
    None,
}

/// `[plates]`.
#[derive(Clone, Debug)]
pub struct Plates {
    /// The plate folder, relative to the root.
    pub dir: PathBuf,
    /// A *.proxies.toml, relative to the root.
    pub proxies: Option<PathBuf>,
    /// What casts on dynamic objects.
    pub casters: Casters,
}

/// `[finish]` as written: the base's keys (inline, or the finish file's top level) and each
/// `[[finish.pass]]`'s. The chain they build is `crate::finish`'s to resolve: the model keeps
/// what was written, with where, so that the resolver can name a key in a finding.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Finish {
    /// `file`, relative to the root, when given (then `base` is that file's top level).
    pub file: Option<PathBuf>,
    /// The base's keys, in the order written.
    pub base: Vec<FinishKey>,
    /// Each `[[finish.pass]]`'s keys, in the order written.
    pub passes: Vec<Vec<FinishKey>>,
    /// Where `[finish]` starts.
    pub at: Location,
}

/// One finish key as written.
#[derive(Clone, Debug, PartialEq)]
pub struct FinishKey {
    /// The key's name (`exposure`, `bloom`).
    pub name: String,
    /// Its value.
    pub value: FinishValue,
    /// Where the key is written.
    pub at: Location,
}

/// A finish key's value, as TOML wrote it (the checker has already matched it to the key's
/// type and range).
#[derive(Clone, Debug, PartialEq)]
pub enum FinishValue {
    /// `true` or `false`.
    Bool(bool),
    /// An integer or a float.
    Num(f64),
    /// A string (`"agx"`, `"#ffcc00"`).
    Text(String),
    /// An array of numbers (`[r, g, b]`, a LUT's values).
    Nums(Vec<f64>),
    /// A table's keys, in the order written.
    Table(Vec<(String, FinishValue)>),
}
