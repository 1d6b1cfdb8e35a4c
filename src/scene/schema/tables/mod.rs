//! The statics: one [`TableSchema`] per table of the spec, in the spec's order, split by what
//! they describe: the entries of scenes and prefabs (`entries.rs`), the one-file tables
//! (`sections.rs`), the finish (`finish.rs`) and material libraries (`materials.rs`); the
//! project file, the proxies file and the file kinds here.

mod entries;
mod finish;
mod materials;
mod sections;

pub use entries::*;
pub use finish::*;
pub use materials::*;
pub use sections::*;

use super::*;

const NUM: Ty = Ty::Num;
const V3: Ty = Ty::Vec(3);
const V2: Ty = Ty::Vec(2);
const EXISTS: PathRule = PathRule {
    exists: true,
    suffix: None,
};
const fn path_to(suffix: &'static str) -> PathRule {
    PathRule {
        exists: true,
        suffix: Some(suffix),
    }
}
const ZERO3: &[f64] = &[0.0, 0.0, 0.0];
const ONE3: &[f64] = &[1.0, 1.0, 1.0];
const HALF3: &[f64] = &[0.5, 0.5, 0.5];
const SHAPES: &[&str] = &["box", "sphere", "capsule", "cylinder"];
const LOOPS: &[&str] = &["loop", "once", "ping-pong"];
const SHADOWS: &[&str] = &["cast", "only", "none"];
const ID: Key = k("id", Ty::Id)
    .m("the entry's id: 10 Crockford base32 characters")
    .uses(Use::Recorded);
const AUTHORING: Key = k("authoring", Ty::Any)
    .m("the authoring tool's own data, kept byte for byte")
    .uses(Use::Ignored);
const FORMAT: Key = k("format", Ty::Int).d(0.0).m("the format version, 1");

// ---------------------------------------------------------------------------------------------
// project.toml

/// `project.toml`'s top level.
pub static PROJECT_FILE: TableSchema = t(&[
    FORMAT,
    k("project", Ty::Table(&PROJECT))
        .needed()
        .m("the project's name, first scene and skipped folders"),
    k("tunables", Ty::Tables(&TUNABLE)).m("the game's tunables"),
    k("layers", Ty::Map(&Ty::Layers)).m("the collision layers and which of them meet"),
    AUTHORING,
])
.uses(Use::Ignored);

/// `[project]`.
pub static PROJECT: TableSchema = t(&[
    k("name", Ty::Str).needed().m("the project's name"),
    k("scene", Ty::Path(path_to(".scene.toml"))).m("the scene an editor opens first"),
    k(
        "ignore",
        Ty::Paths(PathRule {
            exists: false,
            suffix: None,
        }),
    )
    .m("folders (or files) Project::open skips"),
]);

/// `[tunables.<name>]`.
pub static TUNABLE: TableSchema = tr(
    &[
        k("type", Ty::Enum(&["float", "int", "bool", "vector"]))
            .needed()
            .m("the tunable's type"),
        k("default", Ty::Any)
            .needed()
            .m("the value the game starts with"),
        k("min", Ty::Any).m("the least value"),
        k("max", Ty::Any).m("the greatest value"),
        k("group", Ty::Name).m("the heading an inspector lists it under"),
    ],
    Rule::Tunable,
);

// ---------------------------------------------------------------------------------------------
// proxies

/// A `*.proxies.toml`'s top level.
pub static PROXIES: TableSchema = t(&[
    FORMAT,
    k("proxy", Ty::List(&PROXY)).m("one stand-in each"),
    AUTHORING,
]);

/// `[[proxy]]`.
pub static PROXY: TableSchema = entry(
    &[
        ID,
        k("object", Ty::Ref(Kind::Object))
            .needed()
            .m("the static object it stands in for"),
        k("kind", Ty::Enum(&["box", "hull"]))
            .needed()
            .m("a box or a convex hull"),
        k("at", V3)
            .dv(ZERO3)
            .only("kind", &["box"])
            .u("scene units")
            .m("the box's centre"),
        k("rotate", V3)
            .dv(ZERO3)
            .only("kind", &["box"])
            .u("degrees")
            .m("the box's rotation"),
        k("size", V3)
            .r(gt(0.0))
            .needed_when("kind", &["box"])
            .only("kind", &["box"])
            .u("scene units")
            .m("the box's edge lengths"),
        k("points", Ty::VecList(3))
            .needed_when("kind", &["hull"])
            .only("kind", &["hull"])
            .u("scene units")
            .m("the hull's vertices"),
        k("triangles", Ty::IntVecList(3))
            .needed_when("kind", &["hull"])
            .only("kind", &["hull"])
            .m("the hull's faces, counter-clockwise from outside"),
        AUTHORING,
    ],
    Kind::Proxy,
    Some(Rule::Proxy),
)
.uses(Use::Recorded);

/// The kinds of files, each with its top-level table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `project.toml`.
    Project,
    /// `*.scene.toml`.
    Scene,
    /// `*.prefab.toml`.
    Prefab,
    /// `*.materials.toml` (or any file a scene's `materials` names).
    Materials,
    /// `*.proxies.toml`.
    Proxies,
    /// A finish file.
    Finish,
}

impl FileKind {
    /// The file's top-level table.
    pub fn schema(self) -> &'static TableSchema {
        match self {
            FileKind::Project => &PROJECT_FILE,
            FileKind::Scene => &SCENE,
            FileKind::Prefab => &PREFAB,
            FileKind::Materials => &LIBRARY,
            FileKind::Proxies => &PROXIES,
            FileKind::Finish => &FINISH_FILE,
        }
    }
}
