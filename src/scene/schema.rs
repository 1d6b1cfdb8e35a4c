//! The format's complete key table, as data: one [`TableSchema`] per table of the spec, each
//! listing its keys with their type, range, default and whether they are needed.
//!
//! The reader walks a document against these tables (see `check.rs`), so the schema is the one
//! place a key is declared: checking, `Scene::present` and the model's defaults all come from
//! it. Rules that tie keys together are named by [`Rule`] and written in `check.rs`.

/// What a key's value must be.
#[derive(Debug)]
pub enum Ty {
    /// A TOML integer.
    Int,
    /// A TOML integer ≥ 0.
    UInt,
    /// A TOML integer or float, finite.
    Num,
    /// `true` or `false`.
    Bool,
    /// Any string.
    Str,
    /// A string that follows the name rules (not empty, no space at either end).
    Name,
    /// 10 lowercase Crockford base32 characters.
    Id,
    /// A path relative to the root.
    Path(PathRule),
    /// A prefab: a `*.prefab.toml` path, or a placement's id.
    Prefab,
    /// A reference to an entry of a kind, by id or unique name.
    Ref(Kind),
    /// An array of references.
    Refs(Kind),
    /// An array of exactly this many numbers.
    Vec(u8),
    /// An array of exactly this many integers.
    IntVec(u8),
    /// An array of numbers of any length.
    Nums,
    /// An array of arrays of this many numbers each.
    VecList(u8),
    /// An array of arrays of this many integers each.
    IntVecList(u8),
    /// `"#rrggbb"`.
    Hex,
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// An array of paths.
    Paths(PathRule),
    /// An array of strings.
    Strs,
    /// A collision layer's name (`[layers]` of project.toml).
    Layer,
    /// An array of layer names.
    Layers,
    /// A sub-table (a `[a.b]` table or an inline one).
    Table(&'static TableSchema),
    /// A table of named sub-tables (`[mesh.<name>]`), each of this schema.
    Tables(&'static TableSchema),
    /// An array of tables (`[[object]]`, or an array of inline tables), each of this schema.
    List(&'static TableSchema),
    /// A table of free keys, each value of this type (`materials = { node = "mat" }`).
    Map(&'static Ty),
    /// Any of these types, tried in order by the value's TOML type.
    OneOf(&'static [Ty]),
    /// Any TOML value (authoring, tunable values, overrides).
    Any,
}

/// How a path is checked.
#[derive(Debug, Clone, Copy)]
pub struct PathRule {
    /// Whether the file must exist (false for `[plates] dir` and `[project] ignore`).
    pub exists: bool,
    /// The ending the file's name must have, such as `.scene.toml`.
    pub suffix: Option<&'static str>,
}

/// The kinds of entries a reference can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// `[mesh.<name>]`.
    Mesh,
    /// `[[object]]`, placements included.
    Object,
    /// `[[light]]`.
    Light,
    /// `[[emitter]]`.
    Emitter,
    /// `[[mover]]`.
    Mover,
    /// `[content.<name>]`.
    Content,
    /// `[text.<name>]`.
    Text,
    /// `[sound.<name>]`.
    Sound,
    /// `[[rig]]`.
    Rig,
    /// `[[tiles]]`.
    Tiles,
    /// `[materials.<name>]`.
    Material,
    /// `[[proxy]]`.
    Proxy,
}

impl Kind {
    /// The word messages use.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Mesh => "mesh",
            Kind::Object => "object",
            Kind::Light => "light",
            Kind::Emitter => "emitter",
            Kind::Mover => "mover",
            Kind::Content => "content",
            Kind::Text => "text",
            Kind::Sound => "sound",
            Kind::Rig => "rig",
            Kind::Tiles => "tile layer",
            Kind::Material => "material",
            Kind::Proxy => "proxy",
        }
    }
}

/// A numeric range; each end open or closed. Applies to a number and to each component of a
/// vector.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    /// Lower end (`-inf` for none).
    pub min: f64,
    /// Whether `min` itself is allowed.
    pub min_incl: bool,
    /// Upper end (`inf` for none).
    pub max: f64,
    /// Whether `max` itself is allowed.
    pub max_incl: bool,
}

impl Range {
    /// Whether `v` lies in the range.
    pub fn holds(&self, v: f64) -> bool {
        let lo = if self.min_incl {
            v >= self.min
        } else {
            v > self.min
        };
        let hi = if self.max_incl {
            v <= self.max
        } else {
            v < self.max
        };
        lo && hi
    }

    /// The range in the spec's words: "≥ 0", "> 0", "0 to 1", "above 0 and below 180".
    pub fn words(&self) -> String {
        let lo = self.min.is_finite();
        let hi = self.max.is_finite();
        match (lo, hi) {
            (true, false) => format!(
                "{} {}",
                if self.min_incl { "≥" } else { ">" },
                num(self.min)
            ),
            (false, true) => format!(
                "{} {}",
                if self.max_incl { "≤" } else { "<" },
                num(self.max)
            ),
            (true, true) if self.min_incl && self.max_incl => {
                format!("{} to {}", num(self.min), num(self.max))
            }
            (true, true) => format!(
                "{} {} and {} {}",
                if self.min_incl { "from" } else { "above" },
                num(self.min),
                if self.max_incl { "up to" } else { "below" },
                num(self.max)
            ),
            (false, false) => "any number".to_string(),
        }
    }
}

fn num(v: f64) -> String {
    format!("{v}")
}

/// `≥ a`.
pub const fn ge(a: f64) -> Range {
    Range {
        min: a,
        min_incl: true,
        max: f64::INFINITY,
        max_incl: true,
    }
}
/// `> a`.
pub const fn gt(a: f64) -> Range {
    Range {
        min: a,
        min_incl: false,
        max: f64::INFINITY,
        max_incl: true,
    }
}
/// `a to b`, both included.
pub const fn within(a: f64, b: f64) -> Range {
    Range {
        min: a,
        min_incl: true,
        max: b,
        max_incl: true,
    }
}
/// Above `a` and below `b`.
pub const fn open(a: f64, b: f64) -> Range {
    Range {
        min: a,
        min_incl: false,
        max: b,
        max_incl: false,
    }
}
/// `a` up to, not including, `b`.
pub const fn half_open(a: f64, b: f64) -> Range {
    Range {
        min: a,
        min_incl: true,
        max: b,
        max_incl: false,
    }
}

/// A key's default.
#[derive(Debug, Clone, Copy)]
pub enum Dflt {
    /// None: absent means absent.
    None,
    /// A number.
    Num(f64),
    /// A bool.
    Bool(bool),
    /// A string.
    Str(&'static str),
    /// A vector.
    Vec(&'static [f64]),
    /// Described in words; resolved by the reader or the loader.
    Said(&'static str),
}

/// Whether a key is needed.
#[derive(Debug, Clone, Copy)]
pub enum Need {
    /// May be left out.
    No,
    /// Must be there.
    Yes,
    /// Must be there when the selector key (its default when absent) is one of these values.
    When(&'static str, &'static [&'static str]),
}

/// One key of a table.
#[derive(Debug)]
pub struct Key {
    /// The key's name.
    pub name: &'static str,
    /// Its type.
    pub ty: Ty,
    /// Its range, for numbers and each component of vectors.
    pub range: Option<Range>,
    /// Its default.
    pub default: Dflt,
    /// Whether it is needed.
    pub need: Need,
    /// Taken only when the selector key (its default when absent) is one of these values;
    /// refused (bad-value) otherwise.
    pub only: Option<(&'static str, &'static [&'static str])>,
}

impl Key {
    /// With a range.
    pub const fn r(mut self, r: Range) -> Key {
        self.range = Some(r);
        self
    }
    /// With a numeric default.
    pub const fn d(mut self, v: f64) -> Key {
        self.default = Dflt::Num(v);
        self
    }
    /// With a bool default.
    pub const fn db(mut self, v: bool) -> Key {
        self.default = Dflt::Bool(v);
        self
    }
    /// With a string default.
    pub const fn ds(mut self, v: &'static str) -> Key {
        self.default = Dflt::Str(v);
        self
    }
    /// With a vector default.
    pub const fn dv(mut self, v: &'static [f64]) -> Key {
        self.default = Dflt::Vec(v);
        self
    }
    /// With a default described in words.
    pub const fn said(mut self, v: &'static str) -> Key {
        self.default = Dflt::Said(v);
        self
    }
    /// Needed.
    pub const fn needed(mut self) -> Key {
        self.need = Need::Yes;
        self
    }
    /// Needed when `sel` is one of `vals`.
    pub const fn needed_when(mut self, sel: &'static str, vals: &'static [&'static str]) -> Key {
        self.need = Need::When(sel, vals);
        self
    }
    /// Only when `sel` is one of `vals`.
    pub const fn only(mut self, sel: &'static str, vals: &'static [&'static str]) -> Key {
        self.only = Some((sel, vals));
        self
    }
}

/// A key of type `ty`, optional, no range, no default.
pub const fn k(name: &'static str, ty: Ty) -> Key {
    Key {
        name,
        ty,
        range: None,
        default: Dflt::None,
        need: Need::No,
        only: None,
    }
}

/// Cross-key rules, written in `check.rs`, that a table's keys alone can decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// `[tunables.<name>]`: values of the tunable's type, min ≤ default ≤ max.
    Tunable,
    /// `[[object]]`: mesh or prefab, placement keys, clip planes, body with character.
    Object,
    /// `[object.character]`: height ≥ 2·radius, max_step below height.
    Character,
    /// `[object.animation]`: sprite or glTF keys, clip or blend, grid or frames.
    Animation,
    /// An event: time or frame.
    Event,
    /// A sprite clip: to ≥ from.
    Clip,
    /// `[[mover]]`: axis not zero, objects not empty, at most two planes.
    Mover,
    /// `[[rig]]`: snap with orthographic, pitch min ≤ max.
    Rig,
    /// `bounds`: min ≤ max.
    Bounds,
    /// `[[tiles]]`: rows or cells, palette keys.
    Tiles,
    /// `[sun]`: toward not zero.
    Sun,
    /// `[sky]`: two or more layers for a mix.
    Sky,
    /// `[sky.prepare]`: at least one key.
    Prepare,
    /// `[haze]`: lo below hi.
    Haze,
    /// `[camera]`: fov or focal, sensor, far > near, at ≠ look_at, up.
    Camera,
    /// `[finish]`: file or inline keys.
    Finish,
    /// `[[finish.pass]]`: builds something, no style, seed or frame.
    FinishPass,
    /// `lut`: size³·3 values.
    Lut,
    /// `[plates]`: casters = "proxies" needs proxies.
    Plates,
    /// `[materials.<name>]`: at most four layers.
    Material,
    /// `[[proxy]]`: at least four points and triangles, corners inside.
    Proxy,
}

/// One table of the format.
#[derive(Debug)]
pub struct TableSchema {
    /// Its keys.
    pub keys: &'static [Key],
    /// More keys (a shared list, such as the finish keys, plus this table's own).
    pub more: &'static [Key],
    /// The entry kind, when its entries carry ids and can be referred to.
    pub entry: Option<Kind>,
    /// Its cross-key rule.
    pub rule: Option<Rule>,
}

impl TableSchema {
    /// The key named `name`.
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        // `self` is always one of the statics below, so the keys live for 'static.
        let keys: &'static [Key] = self.keys;
        let more: &'static [Key] = self.more;
        keys.iter().chain(more.iter()).find(|k| k.name == name)
    }

    /// Every key, in the order the spec lists them.
    pub fn all(&self) -> impl Iterator<Item = &'static Key> {
        let keys: &'static [Key] = self.keys;
        let more: &'static [Key] = self.more;
        keys.iter().chain(more.iter())
    }
}

const fn t(keys: &'static [Key]) -> TableSchema {
    TableSchema {
        keys,
        more: &[],
        entry: None,
        rule: None,
    }
}
const fn tr(keys: &'static [Key], rule: Rule) -> TableSchema {
    TableSchema {
        keys,
        more: &[],
        entry: None,
        rule: Some(rule),
    }
}
const fn entry(keys: &'static [Key], kind: Kind, rule: Option<Rule>) -> TableSchema {
    TableSchema {
        keys,
        more: &[],
        entry: Some(kind),
        rule,
    }
}

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
const ID: Key = k("id", Ty::Id);
const AUTHORING: Key = k("authoring", Ty::Any);
const FORMAT: Key = k("format", Ty::Int).d(0.0);

// ---------------------------------------------------------------------------------------------
// project.toml

/// `project.toml`'s top level.
pub static PROJECT_FILE: TableSchema = t(&[
    FORMAT,
    k("project", Ty::Table(&PROJECT)).needed(),
    k("tunables", Ty::Tables(&TUNABLE)),
    k("layers", Ty::Map(&Ty::Layers)),
    AUTHORING,
]);

/// `[project]`.
pub static PROJECT: TableSchema = t(&[
    k("name", Ty::Str).needed(),
    k("scene", Ty::Path(path_to(".scene.toml"))),
    k(
        "ignore",
        Ty::Paths(PathRule {
            exists: false,
            suffix: None,
        }),
    ),
]);

/// `[tunables.<name>]`.
pub static TUNABLE: TableSchema = tr(
    &[
        k("type", Ty::Enum(&["float", "int", "bool", "vector"])).needed(),
        k("default", Ty::Any).needed(),
        k("min", Ty::Any),
        k("max", Ty::Any),
        k("group", Ty::Name),
    ],
    Rule::Tunable,
);

// ---------------------------------------------------------------------------------------------
// scenes and prefabs

/// A `*.scene.toml`'s top level.
pub static SCENE: TableSchema = t(&[
    FORMAT,
    k("include", Ty::Paths(path_to(".scene.toml"))),
    k("materials", Ty::Paths(EXISTS)),
    k("fallback", Ty::Ref(Kind::Material)),
    k("mesh", Ty::Tables(&MESH)),
    k("object", Ty::List(&OBJECT)),
    k("light", Ty::List(&LIGHT)),
    k("emitter", Ty::List(&EMITTER)),
    k("mover", Ty::List(&MOVER)),
    k("content", Ty::Tables(&CONTENT)),
    k("text", Ty::Tables(&TEXT)),
    k("sound", Ty::Tables(&SOUND)),
    k("rig", Ty::List(&RIG)),
    k("tiles", Ty::List(&TILES)),
    k("sun", Ty::Table(&SUN)),
    k("sky", Ty::Table(&SKY)),
    k("haze", Ty::Table(&HAZE)),
    k("camera", Ty::Table(&CAMERA)),
    k("finish", Ty::Table(&FINISH)),
    k("trace", Ty::Table(&TRACE)),
    k("plates", Ty::Table(&PLATES)),
    k("physics", Ty::Table(&PHYSICS)),
    AUTHORING,
]);

/// A `*.prefab.toml`'s top level.
pub static PREFAB: TableSchema = t(&[
    FORMAT,
    k("include", Ty::Paths(path_to(".prefab.toml"))),
    k("materials", Ty::Paths(EXISTS)),
    k("mesh", Ty::Tables(&MESH)),
    k("object", Ty::List(&OBJECT)),
    k("light", Ty::List(&LIGHT)),
    k("emitter", Ty::List(&EMITTER)),
    k("mover", Ty::List(&MOVER)),
    k("content", Ty::Tables(&CONTENT)),
    k("text", Ty::Tables(&TEXT)),
    k("sound", Ty::Tables(&SOUND)),
    k("rig", Ty::List(&RIG)),
    AUTHORING,
]);

/// `[mesh.<name>]`.
pub static MESH: TableSchema = entry(
    &[
        ID,
        k("file", Ty::Path(EXISTS)).needed(),
        k("node", Ty::Str),
        k("nodes", Ty::Tables(&NODE)),
        AUTHORING,
    ],
    Kind::Mesh,
    None,
);

/// `[mesh.<name>.nodes."<node>"]`.
pub static NODE: TableSchema = t(&[
    k("material", Ty::Ref(Kind::Material)).said("the glTF material's"),
    k("hidden", Ty::Bool).db(false),
    k("shadow", Ty::Enum(SHADOWS)).said("the object's"),
    k("two_sided", Ty::Bool).said("the object's"),
]);

/// The keys a prefab placement takes.
pub const PLACEMENT_KEYS: &[&str] = &[
    "id",
    "name",
    "prefab",
    "set",
    "at",
    "rotate",
    "scale",
    "parent",
    "hidden",
    "dynamic",
    "authoring",
];

/// `[[object]]`.
pub static OBJECT: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed(),
        k("mesh", Ty::Ref(Kind::Mesh)),
        k("prefab", Ty::Prefab),
        k("set", Ty::Map(&Ty::Any)),
        k("at", V3).dv(ZERO3),
        k("rotate", V3).dv(ZERO3),
        k("scale", Ty::OneOf(&[Ty::Num, Ty::Vec(3)])).d(1.0),
        k("parent", Ty::Ref(Kind::Object)),
        k("material", Ty::Ref(Kind::Material)),
        k("materials", Ty::Map(&Ty::Ref(Kind::Material))),
        k("shadow", Ty::Enum(SHADOWS)).ds("cast"),
        k("two_sided", Ty::Bool).db(false),
        k("hidden", Ty::Bool).db(false),
        k("clip", Ty::VecList(4)),
        k("content", Ty::Ref(Kind::Content)),
        k("pick", Ty::UInt).said("its 1-based place among the objects"),
        k("alpha_cutoff", NUM).r(within(0.0, 1.0)).d(0.5),
        k("face_camera", Ty::Bool).db(false),
        k("dynamic", Ty::Bool).said("derived"),
        k("body", Ty::Table(&BODY)),
        k("character", Ty::Table(&CHARACTER)),
        k("trigger", Ty::Table(&TRIGGER)),
        k("animation", Ty::Table(&ANIMATION)),
        AUTHORING,
    ],
    Kind::Object,
    Some(Rule::Object),
);

/// `[object.body]`.
pub static BODY: TableSchema = t(&[
    k("kind", Ty::Enum(&["dynamic", "kinematic", "fixed"])).ds("dynamic"),
    k("shape", Ty::Enum(SHAPES)).ds("box"),
    k("half", V3)
        .r(gt(0.0))
        .said("half the mesh bounds")
        .only("shape", &["box"]),
    k("radius", NUM)
        .r(gt(0.0))
        .said("from the mesh bounds")
        .only("shape", &["sphere", "capsule", "cylinder"]),
    k("half_height", NUM)
        .r(gt(0.0))
        .said("from the mesh bounds")
        .only("shape", &["capsule", "cylinder"]),
    k("offset", V3).said("the centre of the mesh bounds"),
    k("density", NUM).r(gt(0.0)).d(1.0),
    k("friction", NUM).r(ge(0.0)).d(0.5),
    k("restitution", NUM).r(within(0.0, 1.0)).d(0.0),
    k("velocity", V3).dv(ZERO3),
    k("spin", V3).dv(ZERO3),
    k("gravity_scale", NUM).d(1.0),
    k("damping", V2).r(ge(0.0)).dv(&[0.0, 0.0]),
    k("ccd", Ty::Bool).db(false),
    k("layer", Ty::Layer),
]);

/// `[object.character]`.
pub static CHARACTER: TableSchema = tr(
    &[
        k("kind", Ty::Enum(&["3d", "2d"])).ds("3d"),
        k("radius", NUM).r(gt(0.0)).said("from the mesh bounds"),
        k("height", NUM).r(gt(0.0)).said("from the mesh bounds"),
        k("max_climb", NUM).r(half_open(0.0, 90.0)).d(45.0),
        k("max_step", NUM).r(ge(0.0)).d(0.3),
        k("snap", NUM).r(ge(0.0)).d(0.2),
        k("coyote", Ty::Int).r(within(0.0, 1000.0)).d(6.0),
        k("jump_buffer", Ty::Int).r(within(0.0, 1000.0)).d(6.0),
        k("jump_speed", NUM).r(ge(0.0)).d(5.0),
        k("layer", Ty::Layer),
        k("plane", Ty::Enum(&["xy", "yz"]))
            .ds("xy")
            .only("kind", &["2d"]),
        k("variable_jump", NUM)
            .r(within(0.0, 1.0))
            .d(0.0)
            .only("kind", &["2d"]),
        k("wall_slide", NUM).r(ge(0.0)).only("kind", &["2d"]),
        k("wall_jump", V2).r(ge(0.0)).only("kind", &["2d"]),
    ],
    Rule::Character,
);

/// `[object.trigger]`.
pub static TRIGGER: TableSchema = t(&[
    k("shape", Ty::Enum(SHAPES)).ds("box"),
    k("half", V3)
        .r(gt(0.0))
        .said("half the mesh bounds")
        .only("shape", &["box"]),
    k("radius", NUM)
        .r(gt(0.0))
        .said("from the mesh bounds")
        .only("shape", &["sphere", "capsule", "cylinder"]),
    k("half_height", NUM)
        .r(gt(0.0))
        .said("from the mesh bounds")
        .only("shape", &["capsule", "cylinder"]),
    k("offset", V3).said("the centre of the mesh bounds"),
    k("layer", Ty::Layer),
    k("mask", Ty::Layers).said("the layers its layer lists"),
]);

/// `[object.animation]`.
pub static ANIMATION: TableSchema = tr(
    &[
        k("clip", Ty::Name),
        k("speed", NUM).r(ge(0.0)).d(1.0),
        k("loop", Ty::Enum(LOOPS)).ds("loop"),
        k("start", NUM).r(ge(0.0)).d(0.0),
        k("blend", Ty::List(&BLEND)),
        k("events", Ty::List(&EVENT)),
        k("atlas", Ty::Path(EXISTS)),
        k("grid", Ty::IntVec(2)).r(ge(1.0)),
        k("frames", Ty::IntVecList(4)),
        k("fps", NUM).r(gt(0.0)).d(12.0),
        k("clips", Ty::Tables(&CLIP)),
    ],
    Rule::Animation,
);

/// An entry of `[object.animation] blend`.
pub static BLEND: TableSchema = t(&[
    k("clip", Ty::Name).needed(),
    k("weight", NUM).r(ge(0.0)).d(1.0),
]);

/// An entry of `[object.animation] events`.
pub static EVENT: TableSchema = tr(
    &[
        k("name", Ty::Name).needed(),
        k("clip", Ty::Name).said("the animation's clip"),
        k("time", NUM).r(ge(0.0)),
        k("frame", Ty::Int).r(ge(0.0)),
    ],
    Rule::Event,
);

/// `[object.animation.clips.<name>]`.
pub static CLIP: TableSchema = tr(
    &[
        k("from", Ty::Int).r(ge(0.0)).needed(),
        k("to", Ty::Int).needed(),
        k("fps", NUM).r(gt(0.0)).said("the animation's fps"),
        k("loop", Ty::Enum(LOOPS)).said("the animation's loop"),
    ],
    Rule::Clip,
);

/// `[[light]]`.
pub static LIGHT: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed(),
        k("position", V3).needed(),
        k("color", V3).r(ge(0.0)).dv(ONE3),
        k("intensity", NUM).r(ge(0.0)).needed(),
        k("radius", NUM).r(ge(0.0)).d(0.0),
        k("range", NUM).r(gt(0.0)).d(10.0),
        k("shadow", Ty::Bool).db(true),
        AUTHORING,
    ],
    Kind::Light,
    None,
);

/// `[[emitter]]`.
pub static EMITTER: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed(),
        k("position", V3).needed(),
        k("radius", NUM).r(gt(0.0)).needed(),
        k("color", V3).r(ge(0.0)).dv(ONE3),
        k("intensity", NUM).r(ge(0.0)).needed(),
        AUTHORING,
    ],
    Kind::Emitter,
    None,
);

/// `[[mover]]`.
pub static MOVER: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed(),
        k("objects", Ty::Refs(Kind::Object)).needed(),
        k("kind", Ty::Enum(&["turn", "slide"])).needed(),
        k("pivot", V3).dv(ZERO3).only("kind", &["turn"]),
        k("axis", V3).needed(),
        k("travel", V2).needed(),
        k("period", NUM).r(gt(0.0)).d(4.0),
        k("motion", Ty::Enum(&["swing", "loop", "once"])).ds("swing"),
        k("offset", NUM).d(0.0),
        k("clip", Ty::VecList(4)),
        AUTHORING,
    ],
    Kind::Mover,
    Some(Rule::Mover),
);

/// `[content.<name>]`.
pub static CONTENT: TableSchema = entry(
    &[ID, k("image", Ty::Path(EXISTS)).needed(), AUTHORING],
    Kind::Content,
    None,
);

/// `[text.<name>]`.
pub static TEXT: TableSchema = entry(
    &[
        ID,
        k("text", Ty::Str).needed(),
        k("font", Ty::Path(EXISTS)).needed(),
        k("size", NUM).r(gt(0.0)).needed(),
        k("color", Ty::Vec(4)).r(ge(0.0)).dv(&[1.0, 1.0, 1.0, 1.0]),
        k("at", V3).dv(ZERO3),
        k("rotate", V3).dv(ZERO3),
        k("lit", Ty::Bool).db(false),
        k("dynamic", Ty::Bool).db(false),
        AUTHORING,
    ],
    Kind::Text,
    None,
);

/// `[sound.<name>]`.
pub static SOUND: TableSchema = entry(
    &[
        ID,
        k("file", Ty::Path(EXISTS)).needed(),
        k("volume", NUM).r(ge(0.0)).d(1.0),
        k("pan", NUM).r(within(-1.0, 1.0)).d(0.0),
        k("loop", Ty::Bool).db(false),
        k("play", Ty::Enum(&["start", "hit", "game"])).ds("start"),
        k("object", Ty::Ref(Kind::Object))
            .needed_when("play", &["hit"])
            .only("play", &["hit"]),
        AUTHORING,
    ],
    Kind::Sound,
    None,
);

const FOLLOW: &[&str] = &["follow"];
const LOOKERS: &[&str] = &["first-person", "third-person"];

/// `[[rig]]`.
pub static RIG: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed(),
        k(
            "kind",
            Ty::Enum(&["follow", "first-person", "third-person"]),
        )
        .needed(),
        k("target", Ty::Ref(Kind::Object)),
        k("offset", V3).said("follow: [camera] at less the target's position; else [0, 0, 0]"),
        k("dead_zone", V2)
            .r(ge(0.0))
            .dv(&[0.0, 0.0])
            .only("kind", FOLLOW),
        k("look_ahead", NUM).r(ge(0.0)).d(0.0).only("kind", FOLLOW),
        k("damping", V3).r(ge(0.0)).dv(ZERO3).only("kind", FOLLOW),
        k("bounds", Ty::Table(&BOUNDS)).only("kind", FOLLOW),
        k("orthographic", NUM).r(gt(0.0)).only("kind", FOLLOW),
        k("snap", NUM).r(gt(0.0)).only("kind", FOLLOW),
        k("sensitivity", NUM)
            .r(gt(0.0))
            .d(1.0)
            .only("kind", LOOKERS),
        k("invert", Ty::Bool).db(false).only("kind", LOOKERS),
        k("smoothing", NUM).r(ge(0.0)).d(0.0).only("kind", LOOKERS),
        k("pitch", V2)
            .r(within(-90.0, 90.0))
            .dv(&[-85.0, 85.0])
            .only("kind", LOOKERS),
        k("head_bob", NUM)
            .r(ge(0.0))
            .d(0.0)
            .only("kind", &["first-person"]),
        k("distance", NUM)
            .r(gt(0.0))
            .d(4.0)
            .only("kind", &["third-person"]),
        k("collide", Ty::Bool)
            .db(true)
            .only("kind", &["third-person"]),
        AUTHORING,
    ],
    Kind::Rig,
    Some(Rule::Rig),
);

/// `[[rig]] bounds`.
pub static BOUNDS: TableSchema = tr(
    &[k("min", V3).needed(), k("max", V3).needed()],
    Rule::Bounds,
);

/// `[[tiles]]`.
pub static TILES: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed(),
        k("cell", Ty::OneOf(&[Ty::Num, Ty::Vec(2)]))
            .r(gt(0.0))
            .d(1.0),
        k("origin", V3).dv(ZERO3),
        k("plane", Ty::Enum(&["xy", "xz", "yz"])).ds("xy"),
        k("palette", Ty::Map(&Ty::Prefab)),
        k("rows", Ty::Strs),
        k("cells", Ty::List(&CELL)),
        AUTHORING,
    ],
    Kind::Tiles,
    Some(Rule::Tiles),
);

/// An entry of `[[tiles]] cells`.
pub static CELL: TableSchema = t(&[k("at", Ty::IntVec(2)).needed(), k("tile", Ty::Str).needed()]);

// ---------------------------------------------------------------------------------------------
// the one-file tables

/// `[sun]`.
pub static SUN: TableSchema = tr(
    &[
        k("model", Ty::Enum(&["daylight", "authored"])).needed(),
        k("hour", NUM)
            .r(within(0.0, 24.0))
            .needed_when("model", &["daylight"])
            .said("authored: reference_hour"),
        k("day", NUM).r(within(1.0, 365.0)).d(172.0),
        k("latitude", NUM).r(within(-90.0, 90.0)).d(45.0),
        k("heading", NUM).r(within(0.0, 360.0)).d(180.0),
        k("reference_hour", NUM).r(within(0.0, 24.0)).d(12.0),
        k("toward", V3)
            .needed_when("model", &["authored"])
            .only("model", &["authored"]),
        k("color", V3)
            .r(ge(0.0))
            .dv(ONE3)
            .only("model", &["authored"]),
        k("irradiance", NUM)
            .r(ge(0.0))
            .needed_when("model", &["authored"])
            .only("model", &["authored"]),
        k("radius", NUM).r(within(0.0, 10.0)).d(0.0),
    ],
    Rule::Sun,
);

const HDR_ROOM: &[&str] = &["hdr", "room"];
const ANALYTIC: &[&str] = &["analytic"];

/// The keys of a sky and of a sky layer, less `kind`, `layer` and `weight`.
const SKY_KEYS: &[Key] = &[
    k("path", Ty::Path(EXISTS))
        .needed_when("kind", &["hdr"])
        .only("kind", &["hdr"]),
    k("rotation_deg", NUM).d(0.0).only("kind", HDR_ROOM),
    k("intensity", NUM).r(ge(0.0)).d(1.0).only("kind", HDR_ROOM),
    k("turbidity", NUM)
        .r(within(1.0, 10.0))
        .d(3.0)
        .only("kind", ANALYTIC),
    k("ground_albedo", V3)
        .r(ge(0.0))
        .dv(&[0.2, 0.2, 0.2])
        .only("kind", ANALYTIC),
    k("ambient", NUM).r(ge(0.0)).d(1.0).only("kind", ANALYTIC),
    k("prepare", Ty::Table(&PREPARE)).only("kind", &["hdr"]),
    k("room", Ty::Table(&ROOM))
        .needed_when("kind", &["room"])
        .only("kind", &["room"]),
];

/// `[sky]`.
pub static SKY: TableSchema = TableSchema {
    keys: &[
        k("kind", Ty::Enum(&["analytic", "hdr", "room", "mix"])).needed(),
        k("layer", Ty::List(&SKY_LAYER)).only("kind", &["mix"]),
    ],
    more: SKY_KEYS,
    entry: None,
    rule: Some(Rule::Sky),
};

/// `[[sky.layer]]`.
pub static SKY_LAYER: TableSchema = TableSchema {
    keys: &[
        k("kind", Ty::Enum(&["analytic", "hdr", "room"])).needed(),
        k("weight", NUM).r(ge(0.0)).d(1.0),
    ],
    more: SKY_KEYS,
    entry: None,
    rule: None,
};

/// `[sky.prepare]`.
pub static PREPARE: TableSchema = tr(
    &[
        k("cap", NUM).r(gt(0.0)),
        k("balance", V3).r(gt(0.0)),
        k("mean", NUM).r(gt(0.0)),
    ],
    Rule::Prepare,
);

/// `[sky.room]`.
pub static ROOM: TableSchema = t(&[
    k("width", Ty::Int).r(within(2.0, 8192.0)).d(64.0),
    k("floor", V3).r(ge(0.0)).dv(HALF3),
    k("wall", V3).r(ge(0.0)).dv(HALF3),
    k("ceiling", V3).r(ge(0.0)).dv(HALF3),
    k("lights", Ty::List(&ROOM_LIGHT)),
]);

/// `[[sky.room.lights]]`.
pub static ROOM_LIGHT: TableSchema = t(&[
    k("name", Ty::Str).ds(""),
    k("az", NUM).d(0.0),
    k("el", NUM).d(0.0),
    k("power", NUM).r(ge(0.0)).d(1.0),
    k("color", V3).r(ge(0.0)).dv(ONE3),
    k("width", NUM).r(open(0.0, 180.0)).d(45.0),
    k("height", NUM).r(open(0.0, 180.0)).d(45.0),
    k("soft", NUM).r(ge(0.0)).d(0.1),
    k("slats", NUM).r(ge(0.0)).d(0.0),
    k("open", NUM).d(1.0),
]);

/// `[haze]`.
pub static HAZE: TableSchema = tr(
    &[
        k("lo", V3).needed(),
        k("hi", V3).needed(),
        k("amount", NUM).r(within(0.0, 1.0)).d(0.0),
        k("fog", NUM).r(ge(0.0)).said("amount / 6"),
        k("smoke", NUM).r(ge(0.0)).said("amount · 20"),
        k("mist", NUM).r(ge(0.0)).said("amount · 0.2"),
        k("floor", NUM).r(ge(0.0)).said("amount · 2"),
        k("phase", NUM).r(within(-0.9, 0.9)).d(0.3),
        k("back", NUM).r(ge(0.0)).d(0.5),
        k("reach", NUM).r(ge(0.0)).d(3.0),
        k("gold", V3).r(ge(0.0)).dv(ONE3),
        k("ambient", V3).r(ge(0.0)).dv(&[0.03, 0.03, 0.03]),
        k("unmapped", NUM).r(ge(0.0)).d(0.0),
        k("seed", Ty::UInt).d(0.0),
    ],
    Rule::Haze,
);

const PERSP: &[&str] = &["perspective"];

/// `[camera]`.
pub static CAMERA: TableSchema = tr(
    &[
        k("projection", Ty::Enum(&["perspective", "orthographic"])).ds("perspective"),
        k("at", V3).dv(&[0.0, 0.0, 5.0]),
        k("look_at", V3).dv(ZERO3),
        k("up", V3).dv(&[0.0, 1.0, 0.0]),
        k("fov", NUM)
            .r(open(0.0, 180.0))
            .d(40.0)
            .only("projection", PERSP),
        k("focal", NUM).r(gt(0.0)).only("projection", PERSP),
        k("sensor", NUM)
            .r(gt(0.0))
            .d(24.0)
            .only("projection", PERSP),
        k("height", NUM)
            .r(gt(0.0))
            .needed_when("projection", &["orthographic"])
            .only("projection", &["orthographic"]),
        k("near", NUM).r(gt(0.0)).d(0.05),
        k("far", NUM).d(100.0),
        k("shift", V2).dv(&[0.0, 0.0]),
        k("fstop", NUM).r(gt(0.0)).only("projection", PERSP),
        k("focus", NUM)
            .said("the distance from at to look_at")
            .only("projection", PERSP),
        k("preset", Ty::Table(&PRESET)),
    ],
    Rule::Camera,
);

/// `[camera.preset]`.
pub static PRESET: TableSchema = t(&[
    k("gain", NUM).d(1.0),
    k("orbit", Ty::Table(&PRESET_ORBIT)),
    k("look", Ty::Table(&PRESET_LOOK)),
    k("zoom", Ty::Table(&PRESET_ZOOM)),
    k("wander", Ty::Table(&PRESET_WANDER)),
    k("nudge", Ty::Table(&PRESET_NUDGE)),
    k("hush", Ty::Table(&PRESET_HUSH)),
    k("depth", Ty::Table(&PRESET_DEPTH)),
]);

/// `[camera.preset.orbit]`.
pub static PRESET_ORBIT: TableSchema = t(&[
    k("stiffness", NUM).d(4.0),
    k("yaw", NUM).d(0.5),
    k("pitch", NUM).d(0.25),
    k("hold", NUM).d(2.0),
]);
/// `[camera.preset.look]`.
pub static PRESET_LOOK: TableSchema = t(&[
    k("stiffness", NUM).d(3.0),
    k("lean", NUM).d(0.2),
    k("yaw", NUM).d(0.6),
    k("pitch", NUM).d(0.4),
    k("sign", NUM).d(1.0),
]);
/// `[camera.preset.zoom]`.
pub static PRESET_ZOOM: TableSchema = t(&[
    k("stiffness", NUM).d(3.0),
    k("hold", NUM).d(2.0),
    k("max", NUM).d(2.0),
    k("rate", NUM).d(1.1),
]);
/// `[camera.preset.wander]`.
pub static PRESET_WANDER: TableSchema = t(&[
    k("idle", NUM).d(8.0),
    k("every", NUM).d(12.0),
    k("hold", NUM).d(3.0),
]);
/// `[camera.preset.nudge]`.
pub static PRESET_NUDGE: TableSchema = t(&[
    k("stiffness", NUM).d(30.0),
    k("pitch", NUM).d(0.1),
    k("hold", NUM).d(0.2),
    k("floor", NUM).d(0.0),
]);
/// `[camera.preset.hush]`: off unless given, then all three keys.
pub static PRESET_HUSH: TableSchema = t(&[
    k("floor", NUM).needed(),
    k("stiffness", NUM).needed(),
    k("blocks_cursor", Ty::Bool).needed(),
]);
/// `[camera.preset.depth]`: off unless given, then all three keys.
pub static PRESET_DEPTH: TableSchema = t(&[
    k("focus", NUM).needed(),
    k("blur", NUM).needed(),
    k("floor", NUM).needed(),
]);

// ---------------------------------------------------------------------------------------------
// finish

const COLOUR: Ty = Ty::OneOf(&[Ty::Hex, Ty::Vec(3)]);
const WHOLE: Range = ge(0.0);

/// The finish style names.
pub const STYLES: &[&str] = &[
    "cel",
    "bw",
    "noir",
    "vignette",
    "neon",
    "rubber_hose",
    "sepia",
    "film",
    "crt",
    "one_bit",
    "halftone",
    "comic",
    "modern_comic",
    "watercolor",
    "paper_grain",
    "pixel",
    "duotone",
    "gradient_map",
    "posterize",
    "kuwahara",
    "tilt_shift",
];

const BLOOM_T: &[Ty] = &[Ty::Num, Ty::Table(&BLOOM)];
const GRAIN_T: &[Ty] = &[Ty::Num, Ty::Table(&GRAIN)];
const OUTLINE_T: &[Ty] = &[Ty::Bool, Ty::Table(&OUTLINE)];
const SCRATCHES_T: &[Ty] = &[Ty::Num, Ty::Table(&SCRATCHES)];
const TAPE_T: &[Ty] = &[Ty::Enum(&["forward", "rewind"]), Ty::Num, Ty::Table(&TAPE)];
const TONE_T: &[Ty] = &[Ty::Enum(&["aces", "agx", "neutral"]), Ty::Table(&TONE)];
const VIGNETTE_T: &[Ty] = &[Ty::Num, Ty::Table(&VIGNETTE)];
const WARMTH_T: &[Ty] = &[Ty::Num, Ty::Table(&WARMTH)];

/// The finish keys: `[finish]` inline, each `[[finish.pass]]`, and a finish file's top level.
pub const FINISH_KEYS: &[Key] = &[
    k("aberration", NUM),
    k("angle", NUM),
    k("black", NUM),
    k("black_threshold", NUM),
    k("bloom", Ty::OneOf(BLOOM_T)),
    k("cavity", NUM),
    k("cavity_distance", NUM),
    k("cel_bands", NUM).r(WHOLE),
    k("cel_shadow", NUM),
    k("cel_softness", NUM),
    k("cel_spec", NUM),
    k("cel_spec_roughness", NUM),
    k("cel_spec_threshold", NUM),
    k("cel_threshold", NUM),
    k("contrast", NUM),
    k("crease_angle", NUM),
    k("crush", NUM),
    k("curvature", NUM),
    k("darkening", NUM),
    k("dither", Ty::OneOf(&[Ty::Bool, Ty::Num])),
    k("dither_kind", Ty::Enum(&["blue", "ordered"])),
    k("distortion", NUM),
    k("dot", NUM),
    k("dust", NUM),
    k("encode", Ty::Bool),
    k("exposure", NUM),
    k("flicker", NUM),
    k("focus", NUM),
    k("frame", Ty::UInt),
    k("gain", NUM),
    k("grain", Ty::OneOf(GRAIN_T)),
    k("halation", NUM),
    k("highlight", COLOUR),
    k("highlight_threshold", NUM),
    k("ink", Ty::OneOf(&[Ty::Num, Ty::Hex, Ty::Vec(3)])),
    k("interior_line_strength", NUM),
    k("keep", COLOUR),
    k("keep_range", NUM),
    k("levels", NUM),
    k("line_weight", NUM),
    k("lut", Ty::Table(&LUT)),
    k("mask", NUM),
    k("outline", Ty::OneOf(OUTLINE_T)),
    k("outline_alpha", NUM),
    k("outline_color", COLOUR),
    k("outline_thickness", NUM),
    k("palette", Ty::Bool),
    k("paper_grain", NUM),
    k("pixel", Ty::UInt),
    k("posterize", NUM),
    k("radius", NUM),
    k("rim", NUM),
    k("rim_color", COLOUR),
    k("rim_width", NUM),
    k("saturation", NUM),
    k("saturation_lift", NUM),
    k("scale", NUM),
    k("scanlines", NUM),
    k("scratches", Ty::OneOf(SCRATCHES_T)),
    k("seed", Ty::UInt),
    k("sepia", NUM),
    k("shadow", COLOUR),
    k("style", Ty::Enum(STYLES)),
    k("tape", Ty::OneOf(TAPE_T)).r(ge(0.0)),
    k("threshold", NUM),
    k("tilt_range", NUM),
    k("tone", Ty::OneOf(TONE_T)),
    k("tone_steps", NUM).r(within(3.0, 5.0)),
    k("vignette", Ty::OneOf(VIGNETTE_T)),
    k("warmth", Ty::OneOf(WARMTH_T)),
    k("weave", NUM),
    k("weights", V3),
];

/// `[finish]`: the finish keys inline, or `file`, and `[[finish.pass]]`.
pub static FINISH: TableSchema = TableSchema {
    keys: FINISH_KEYS,
    more: &[
        k("file", Ty::Path(EXISTS)),
        k("pass", Ty::List(&FINISH_PASS)),
    ],
    entry: None,
    rule: Some(Rule::Finish),
};

/// `[[finish.pass]]`.
pub static FINISH_PASS: TableSchema = tr(FINISH_KEYS, Rule::FinishPass);

/// A finish file's top level: the finish keys and nothing else.
pub static FINISH_FILE: TableSchema = t(FINISH_KEYS);

/// `bloom = { … }`.
pub static BLOOM: TableSchema = t(&[
    k("strength", NUM),
    k("threshold", NUM),
    k("knee", NUM),
    k("knee_width", NUM),
    k("soft", NUM),
    k("sigma", NUM),
    k("clamp", NUM),
    k("unit", NUM),
    k("radius", NUM).r(WHOLE),
    k("down", NUM).r(WHOLE),
    k("linear_taps", Ty::Bool),
    k("radii", Ty::Vec(4)),
    k("gains", Ty::Vec(4)),
    k("kind", Ty::Enum(&["box", "rings", "tent"])),
]);
/// `grain = { … }`.
pub static GRAIN: TableSchema = t(&[k("strength", NUM), k("response", NUM), k("clamp", Ty::Bool)]);
/// `lut = { … }`.
pub static LUT: TableSchema = tr(
    &[
        k("size", Ty::Int).r(within(2.0, 32.0)).needed(),
        k("values", Ty::Nums).needed(),
    ],
    Rule::Lut,
);
/// `outline = { … }`.
pub static OUTLINE: TableSchema = t(&[
    k("enabled", Ty::Bool),
    k("local_color", Ty::Bool),
    k("thickness", NUM),
    k("alpha", NUM),
    k("crease_angle", NUM),
    k("color", COLOUR),
]);
/// `scratches = { … }`.
pub static SCRATCHES: TableSchema = t(&[k("count", Ty::UInt), k("strength", NUM)]);
/// `tape = { … }`.
pub static TAPE: TableSchema = t(&[
    k("direction", Ty::Enum(&["forward", "rewind"])),
    k("strength", NUM).r(ge(0.0)),
    k("bands", NUM).r(ge(0.0)),
    k("echo", NUM).r(ge(0.0)),
    k("grain", NUM).r(ge(0.0)),
    k("smear", NUM).r(ge(0.0)),
    k("split", NUM).r(ge(0.0)),
    k("wash", NUM).r(ge(0.0)),
]);
/// `tone = { … }`.
pub static TONE: TableSchema = t(&[
    k("kind", Ty::Enum(&["aces", "agx", "neutral"])).needed(),
    k("start", NUM).d(1.0).only("kind", &["neutral"]),
    k("clamp", Ty::Bool).db(false).only("kind", &["neutral"]),
]);
/// `vignette = { … }`.
pub static VIGNETTE: TableSchema = t(&[
    k("strength", NUM),
    k("power", NUM),
    k("aspect", NUM),
    k("scale", NUM),
    k("inner", NUM),
    k("outer", NUM),
    k("kind", Ty::Enum(&["power", "smoothstep"])),
]);
/// `warmth = { … }`.
pub static WARMTH: TableSchema = t(&[
    k("amount", NUM),
    k("shadow", NUM),
    k("highlight", NUM),
    k("low", V2),
    k("high", V2),
    k("kind", Ty::Enum(&["linear", "luma_curve"])),
]);

// ---------------------------------------------------------------------------------------------
// trace, plates, physics

/// `[trace]`.
pub static TRACE: TableSchema = t(&[
    k("transmissive_shadows", Ty::Bool).db(false),
    k("clamp_indirect", NUM).r(within(0.0, 10000.0)).d(0.0),
    k("filter_glossy", NUM).r(within(0.0, 1.0)).d(0.0),
]);

/// `[plates]`.
pub static PLATES: TableSchema = tr(
    &[
        k(
            "dir",
            Ty::Path(PathRule {
                exists: false,
                suffix: None,
            }),
        )
        .needed(),
        k("proxies", Ty::Path(path_to(".proxies.toml"))),
        k("casters", Ty::Enum(&["meshes", "proxies", "none"])).ds("meshes"),
    ],
    Rule::Plates,
);

/// `[physics]`.
pub static PHYSICS: TableSchema = t(&[
    k("gravity", V3).dv(&[0.0, -9.81, 0.0]),
    k("rate", NUM).r(within(1.0, 1000.0)).d(60.0),
    k("substeps", Ty::Int).r(within(1.0, 16.0)).d(1.0),
    k("iterations", Ty::Int).r(within(1.0, 64.0)).d(4.0),
]);

// ---------------------------------------------------------------------------------------------
// material libraries

/// A `*.materials.toml`'s top level.
pub static LIBRARY: TableSchema = t(&[FORMAT, k("materials", Ty::Tables(&MATERIAL)), AUTHORING]);

/// The family names, in the spec's order.
pub const FAMILIES: &[&str] = &[
    "plain", "paper", "plaster", "stone", "cloth", "metal", "occluder", "petal", "leaf", "bark",
    "cord", "wood", "lacquer", "glass", "liquid", "emissive", "chrome",
];

/// `[materials.<name>]`.
pub static MATERIAL: TableSchema = entry(
    &[
        ID,
        k("family", Ty::Enum(FAMILIES)).ds("plain"),
        k("base", V3).dv(HALF3),
        k("roughness", NUM).d(0.5),
        k("metalness", NUM).d(0.0),
        k("specular", NUM).d(0.04),
        k("clearcoat", NUM).d(0.0),
        k("clearcoat_roughness", NUM).d(0.05),
        k("sheen", NUM).d(0.0),
        k("transmission", NUM).d(0.0),
        k("ior", NUM).d(1.5),
        k("dispersion", NUM).d(0.0),
        k("thickness", NUM).d(0.0),
        k("subsurface", NUM).d(0.0),
        k("subsurface_tint", V3).dv(ONE3),
        k("absorption", NUM).d(0.0),
        k("thin_film", NUM).d(0.0),
        k("thin_film_ior", NUM).d(1.5),
        k("thin_film_amount", NUM).d(0.0),
        k("emission", V3).dv(ZERO3),
        k("fresnel_power", NUM).d(5.0),
        k("normal", Ty::Table(&NORMAL)).said("{ source = \"flat\", strength = 0 }"),
        k("maps", Ty::Table(&MAPS)).said("{ layer = -1, tile = 1, normal = 1, albedo = 1 }"),
        k(
            "content",
            Ty::Enum(&[
                "none", "ink", "decal", "screen", "photo", "scroll", "print", "field",
            ]),
        )
        .ds("none"),
        k("content_layer", Ty::Table(&CONTENT_LAYER)),
        k("layers", Ty::List(&NOISE_LAYER)),
        k("ageing", Ty::Table(&AGEING)).said("every key 0"),
        AUTHORING,
    ],
    Kind::Material,
    Some(Rule::Material),
);

/// `[materials.<name>.normal]`.
pub static NORMAL: TableSchema = t(&[
    k("source", Ty::Enum(&["flat", "bump", "map"])).needed(),
    k("strength", NUM).needed(),
]);

/// `[materials.<name>.maps]`.
pub static MAPS: TableSchema = t(&[
    k("layer", NUM).needed(),
    k("tile", NUM).needed(),
    k("normal", NUM).needed(),
    k("albedo", NUM).needed(),
]);

/// `[materials.<name>.content_layer]`.
pub static CONTENT_LAYER: TableSchema = t(&[
    k("slot", Ty::Int).d(-1.0),
    k("blend", Ty::Enum(&["over", "multiply", "emit"])).ds("over"),
    k("ink_roughness", NUM).d(-1.0),
    k("emboss", NUM).d(0.0),
    k("strength", NUM).d(1.0),
]);

/// `[materials.<name>.ageing]`.
pub static AGEING: TableSchema = t(&[
    k("fade", NUM).needed(),
    k("yellow", NUM).needed(),
    k("ink", NUM).needed(),
    k("scratch", NUM).needed(),
    k("edge", NUM).needed(),
    k("dust", NUM).needed(),
    k("patina", NUM).needed(),
    k("seed", Ty::UInt).needed(),
]);

/// The noise kinds.
pub const NOISE_KINDS: &[&str] = &[
    "none",
    "fibre",
    "crinkle",
    "plank_wood",
    "wall_mottle",
    "grime",
    "leaf",
    "bark",
    "flow",
    "value",
    "fbm",
    "scratch",
    "coat_wobble",
];

/// `[[materials.<name>.layers]]`.
pub static NOISE_LAYER: TableSchema = t(&[
    k("kind", Ty::Enum(NOISE_KINDS)).needed(),
    k("frequency", NUM).needed(),
    k("amplitude", NUM).needed(),
    k("seed", Ty::UInt).needed(),
    k("params", Ty::Vec(12)).said("twelve zeros"),
]);

// ---------------------------------------------------------------------------------------------
// proxies

/// A `*.proxies.toml`'s top level.
pub static PROXIES: TableSchema = t(&[FORMAT, k("proxy", Ty::List(&PROXY)), AUTHORING]);

/// `[[proxy]]`.
pub static PROXY: TableSchema = entry(
    &[
        ID,
        k("object", Ty::Ref(Kind::Object)).needed(),
        k("kind", Ty::Enum(&["box", "hull"])).needed(),
        k("at", V3).dv(ZERO3).only("kind", &["box"]),
        k("rotate", V3).dv(ZERO3).only("kind", &["box"]),
        k("size", V3)
            .r(gt(0.0))
            .needed_when("kind", &["box"])
            .only("kind", &["box"]),
        k("points", Ty::VecList(3))
            .needed_when("kind", &["hull"])
            .only("kind", &["hull"]),
        k("triangles", Ty::IntVecList(3))
            .needed_when("kind", &["hull"])
            .only("kind", &["hull"]),
        AUTHORING,
    ],
    Kind::Proxy,
    Some(Rule::Proxy),
);

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::load::check_file;
    use std::collections::VecDeque;
    use std::path::Path;

    /// Every distinct table of the schema, with the first (shallowest) path that reaches it,
    /// root by root.
    fn every_table() -> Vec<(FileKind, String, &'static TableSchema)> {
        let mut out: Vec<(FileKind, String, &'static TableSchema)> = Vec::new();
        let roots = [
            FileKind::Project,
            FileKind::Scene,
            FileKind::Materials,
            FileKind::Proxies,
            FileKind::Prefab,
            FileKind::Finish,
        ];
        for root in roots {
            let mut queue: VecDeque<(String, &'static TableSchema)> = VecDeque::new();
            queue.push_back((String::new(), root.schema()));
            while let Some((path, s)) = queue.pop_front() {
                if out.iter().any(|(_, _, t)| std::ptr::eq(*t, s)) {
                    continue;
                }
                out.push((root, path.clone(), s));
                for k in s.all() {
                    let p = if path.is_empty() {
                        k.name.to_string()
                    } else {
                        format!("{path}.{}", k.name)
                    };
                    let mut tys: Vec<&'static Ty> = vec![&k.ty];
                    while let Some(ty) = tys.pop() {
                        match ty {
                            Ty::Table(t) | Ty::Tables(t) | Ty::List(t) => {
                                queue.push_back((p.clone(), t))
                            }
                            Ty::OneOf(v) => tys.extend(v.iter()),
                            _ => {}
                        }
                    }
                }
            }
        }
        out
    }

    const OBJ: &str = "[[object]]\nid = \"aaaaaaaa02\"\nname = \"o\"\nmesh = \"m\"\n";
    const LIB: &str = "format = 1\n[materials.w]\nid = \"aaaaaaaa11\"\n";

    /// A minimal valid instance of each table, `@` marking where `bogus_key = 1` goes, and the
    /// dotted key of that table.
    fn fixture(kind: FileKind, path: &str) -> Option<(String, String)> {
        let f = |body: &str| format!("format = 1\n{body}");
        let obj = |rest: &str| f(&format!("{OBJ}{rest}"));
        let o = "object.aaaaaaaa02";
        let (text, key) = match (kind, path) {
            (FileKind::Project, "") => ("format = 1\n@\n[project]\nname = \"t\"\n".into(), ""),
            (FileKind::Project, "project") => ("format = 1\n[project]\nname = \"t\"\n@\n".into(), "project"),
            (FileKind::Project, "tunables") => (
                "format = 1\n[project]\nname = \"t\"\n[tunables.jump]\ntype = \"float\"\ndefault = 1.0\n@\n".into(),
                "tunables.jump",
            ),
            (FileKind::Scene, "") => (f("@\n"), ""),
            (FileKind::Scene, "mesh") => (f("[mesh.m]\nid = \"aaaaaaaa01\"\nfile = \"m.glb\"\n@\n"), "mesh.m"),
            (FileKind::Scene, "mesh.nodes") => (
                f("[mesh.m]\nid = \"aaaaaaaa01\"\nfile = \"m.glb\"\n[mesh.m.nodes.n]\nhidden = true\n@\n"),
                "mesh.m.nodes.n",
            ),
            (FileKind::Scene, "object") => (obj("@\n"), o),
            (FileKind::Scene, "object.body") => (obj("[object.body]\nkind = \"fixed\"\n@\n"), "object.aaaaaaaa02.body"),
            (FileKind::Scene, "object.character") => {
                (obj("[object.character]\nkind = \"3d\"\n@\n"), "object.aaaaaaaa02.character")
            }
            (FileKind::Scene, "object.trigger") => {
                (obj("[object.trigger]\nshape = \"box\"\n@\n"), "object.aaaaaaaa02.trigger")
            }
            (FileKind::Scene, "object.animation") => {
                (obj("[object.animation]\nclip = \"Walk\"\n@\n"), "object.aaaaaaaa02.animation")
            }
            (FileKind::Scene, "object.animation.blend") => (
                obj("[object.animation]\n[[object.animation.blend]]\nclip = \"Walk\"\n@\n"),
                "object.aaaaaaaa02.animation.blend.0",
            ),
            (FileKind::Scene, "object.animation.events") => (
                obj("[object.animation]\nclip = \"Walk\"\n[[object.animation.events]]\nname = \"step\"\ntime = 0.5\n@\n"),
                "object.aaaaaaaa02.animation.events.0",
            ),
            (FileKind::Scene, "object.animation.clips") => (
                obj("[object.animation]\natlas = \"a.png\"\ngrid = [2, 2]\n[object.animation.clips.idle]\nfrom = 0\nto = 1\n@\n"),
                "object.aaaaaaaa02.animation.clips.idle",
            ),
            (FileKind::Scene, "light") => (
                f("[[light]]\nid = \"aaaaaaaa03\"\nname = \"l\"\nposition = [0, 1, 0]\nintensity = 1\n@\n"),
                "light.aaaaaaaa03",
            ),
            (FileKind::Scene, "emitter") => (
                f("[[emitter]]\nid = \"aaaaaaaa04\"\nname = \"e\"\nposition = [0, 1, 0]\nradius = 0.1\nintensity = 1\n@\n"),
                "emitter.aaaaaaaa04",
            ),
            (FileKind::Scene, "mover") => (
                obj("[[mover]]\nid = \"aaaaaaaa05\"\nname = \"mv\"\nobjects = [\"o\"]\nkind = \"slide\"\naxis = [1, 0, 0]\ntravel = [0, 1]\n@\n"),
                "mover.aaaaaaaa05",
            ),
            (FileKind::Scene, "content") => (f("[content.c]\nid = \"aaaaaaaa06\"\nimage = \"a.png\"\n@\n"), "content.c"),
            (FileKind::Scene, "text") => (
                f("[text.t]\nid = \"aaaaaaaa07\"\ntext = \"hi\"\nfont = \"f.ttf\"\nsize = 1\n@\n"),
                "text.t",
            ),
            (FileKind::Scene, "sound") => (f("[sound.s]\nid = \"aaaaaaaa08\"\nfile = \"s.wav\"\n@\n"), "sound.s"),
            (FileKind::Scene, "rig") => {
                (f("[[rig]]\nid = \"aaaaaaaa09\"\nname = \"r\"\nkind = \"follow\"\n@\n"), "rig.aaaaaaaa09")
            }
            (FileKind::Scene, "rig.bounds") => (
                f("[[rig]]\nid = \"aaaaaaaa09\"\nname = \"r\"\nkind = \"follow\"\n[rig.bounds]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n@\n"),
                "rig.aaaaaaaa09.bounds",
            ),
            (FileKind::Scene, "tiles") => (f("[[tiles]]\nid = \"aaaaaaaa10\"\nname = \"g\"\n@\n"), "tiles.aaaaaaaa10"),
            (FileKind::Scene, "tiles.cells") => (
                f("[[tiles]]\nid = \"aaaaaaaa10\"\nname = \"g\"\npalette = { w = \"p.prefab.toml\" }\n[[tiles.cells]]\nat = [0, 0]\ntile = \"w\"\n@\n"),
                "tiles.aaaaaaaa10.cells.0",
            ),
            (FileKind::Scene, "sun") => (f("[sun]\nmodel = \"daylight\"\nhour = 10\n@\n"), "sun"),
            (FileKind::Scene, "sky") => (f("[sky]\nkind = \"analytic\"\n@\n"), "sky"),
            (FileKind::Scene, "sky.layer") => (
                f("[sky]\nkind = \"mix\"\n[[sky.layer]]\nkind = \"analytic\"\n@\n[[sky.layer]]\nkind = \"analytic\"\n"),
                "sky.layer.0",
            ),
            (FileKind::Scene, "sky.prepare") => {
                (f("[sky]\nkind = \"hdr\"\npath = \"sky.hdr\"\n[sky.prepare]\ncap = 10\n@\n"), "sky.prepare")
            }
            (FileKind::Scene, "sky.room") => (f("[sky]\nkind = \"room\"\n[sky.room]\nwidth = 8\n@\n"), "sky.room"),
            (FileKind::Scene, "sky.room.lights") => (
                f("[sky]\nkind = \"room\"\n[sky.room]\n[[sky.room.lights]]\npower = 2\n@\n"),
                "sky.room.lights.0",
            ),
            (FileKind::Scene, "haze") => (f("[haze]\nlo = [0, 0, 0]\nhi = [1, 1, 1]\n@\n"), "haze"),
            (FileKind::Scene, "camera") => (f("[camera]\nfov = 30\n@\n"), "camera"),
            (FileKind::Scene, "camera.preset") => (f("[camera.preset]\ngain = 1\n@\n"), "camera.preset"),
            (FileKind::Scene, "camera.preset.orbit") => (f("[camera.preset.orbit]\nyaw = 1\n@\n"), "camera.preset.orbit"),
            (FileKind::Scene, "camera.preset.look") => (f("[camera.preset.look]\nlean = 1\n@\n"), "camera.preset.look"),
            (FileKind::Scene, "camera.preset.zoom") => (f("[camera.preset.zoom]\nmax = 1\n@\n"), "camera.preset.zoom"),
            (FileKind::Scene, "camera.preset.wander") => {
                (f("[camera.preset.wander]\nidle = 1\n@\n"), "camera.preset.wander")
            }
            (FileKind::Scene, "camera.preset.nudge") => (f("[camera.preset.nudge]\nfloor = 0\n@\n"), "camera.preset.nudge"),
            (FileKind::Scene, "camera.preset.hush") => (
                f("[camera.preset.hush]\nfloor = 0\nstiffness = 1\nblocks_cursor = true\n@\n"),
                "camera.preset.hush",
            ),
            (FileKind::Scene, "camera.preset.depth") => {
                (f("[camera.preset.depth]\nfocus = 1\nblur = 1\nfloor = 0\n@\n"), "camera.preset.depth")
            }
            (FileKind::Scene, "finish") => (f("[finish]\nexposure = 1\n@\n"), "finish"),
            (FileKind::Scene, "finish.bloom") => (f("[finish.bloom]\nstrength = 1\n@\n"), "finish.bloom"),
            (FileKind::Scene, "finish.grain") => (f("[finish.grain]\nstrength = 1\n@\n"), "finish.grain"),
            (FileKind::Scene, "finish.lut") => (
                f(&format!("[finish.lut]\nsize = 2\nvalues = [{}]\n@\n", vec!["0.5"; 24].join(", "))),
                "finish.lut",
            ),
            (FileKind::Scene, "finish.outline") => (f("[finish.outline]\nenabled = true\n@\n"), "finish.outline"),
            (FileKind::Scene, "finish.scratches") => (f("[finish.scratches]\ncount = 3\n@\n"), "finish.scratches"),
            (FileKind::Scene, "finish.tape") => (f("[finish.tape]\ndirection = \"forward\"\n@\n"), "finish.tape"),
            (FileKind::Scene, "finish.tone") => (f("[finish.tone]\nkind = \"aces\"\n@\n"), "finish.tone"),
            (FileKind::Scene, "finish.vignette") => (f("[finish.vignette]\nstrength = 1\n@\n"), "finish.vignette"),
            (FileKind::Scene, "finish.warmth") => (f("[finish.warmth]\namount = 1\n@\n"), "finish.warmth"),
            (FileKind::Scene, "finish.pass") => (f("[finish]\n[[finish.pass]]\nwarmth = 0.2\n@\n"), "finish.pass.0"),
            (FileKind::Scene, "trace") => (f("[trace]\nfilter_glossy = 0.25\n@\n"), "trace"),
            (FileKind::Scene, "plates") => (f("[plates]\ndir = \"plates\"\n@\n"), "plates"),
            (FileKind::Scene, "physics") => (f("[physics]\nrate = 60\n@\n"), "physics"),
            (FileKind::Materials, "") => (f("@\n"), ""),
            (FileKind::Materials, "materials") => (format!("{LIB}@\n"), "materials.w"),
            (FileKind::Materials, "materials.normal") => (
                format!("{LIB}[materials.w.normal]\nsource = \"flat\"\nstrength = 0\n@\n"),
                "materials.w.normal",
            ),
            (FileKind::Materials, "materials.maps") => (
                format!("{LIB}[materials.w.maps]\nlayer = -1\ntile = 1\nnormal = 1\nalbedo = 1\n@\n"),
                "materials.w.maps",
            ),
            (FileKind::Materials, "materials.content_layer") => {
                (format!("{LIB}[materials.w.content_layer]\nslot = 1\n@\n"), "materials.w.content_layer")
            }
            (FileKind::Materials, "materials.layers") => (
                format!("{LIB}[[materials.w.layers]]\nkind = \"fbm\"\nfrequency = 1\namplitude = 1\nseed = 1\n@\n"),
                "materials.w.layers.0",
            ),
            (FileKind::Materials, "materials.ageing") => (
                format!("{LIB}[materials.w.ageing]\nfade = 0\nyellow = 0\nink = 0\nscratch = 0\nedge = 0\ndust = 0\npatina = 0\nseed = 0\n@\n"),
                "materials.w.ageing",
            ),
            (FileKind::Proxies, "") => (f("@\n"), ""),
            (FileKind::Proxies, "proxy") => (
                f("[[proxy]]\nid = \"aaaaaaaa12\"\nobject = \"o\"\nkind = \"box\"\nsize = [1, 1, 1]\n@\n"),
                "proxy.aaaaaaaa12",
            ),
            (FileKind::Prefab, "") => (f("@\n"), ""),
            (FileKind::Finish, "") => ("@\nexposure = 1\n".into(), ""),
            _ => return None,
        };
        Some((text, key.to_string()))
    }

    fn name_of(kind: FileKind) -> &'static str {
        match kind {
            FileKind::Project => "project.toml",
            FileKind::Scene => "t.scene.toml",
            FileKind::Prefab => "t.prefab.toml",
            FileKind::Materials => "t.materials.toml",
            FileKind::Proxies => "t.proxies.toml",
            FileKind::Finish => "t.finish.toml",
        }
    }

    /// Every table of the schema refuses an unknown key, at its own key path and place; and
    /// the schema holds a table for every fixture, and a fixture for every table.
    #[test]
    fn every_table_refuses_an_unknown_key() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("project.toml"),
            "format = 1\n[project]\nname = \"t\"\n",
        )
        .unwrap();
        for f in [
            "m.glb",
            "a.png",
            "f.ttf",
            "s.wav",
            "sky.hdr",
            "p.prefab.toml",
        ] {
            std::fs::write(root.join(f), "x").unwrap();
        }
        let tables = every_table();
        assert!(tables.len() >= 65, "only {} tables", tables.len());
        for (kind, path, _) in &tables {
            let (text, key) =
                fixture(*kind, path).unwrap_or_else(|| panic!("no fixture for {kind:?} `{path}`"));
            let rel = Path::new(name_of(*kind));
            let clean = check_file(root, rel, *kind, text.replace('@', "").as_bytes());
            let errors: Vec<_> = clean.iter().filter(|d| d.is_error()).collect();
            assert!(
                errors.is_empty(),
                "{kind:?} `{path}` fixture is not valid: {errors:#?}"
            );
            let bogus = check_file(
                root,
                rel,
                *kind,
                text.replace('@', "bogus_key = 1").as_bytes(),
            );
            let errors: Vec<_> = bogus.iter().filter(|d| d.is_error()).collect();
            assert_eq!(errors.len(), 1, "{kind:?} `{path}`: {errors:#?}");
            let d = errors[0];
            let want = if key.is_empty() {
                "bogus_key".to_string()
            } else {
                format!("{key}.bogus_key")
            };
            assert_eq!(
                (d.code, d.key.as_str()),
                ("unknown-key", want.as_str()),
                "{kind:?} `{path}`"
            );
            let line = text[..text.find('@').unwrap()].matches('\n').count() as u32 + 1;
            assert_eq!(
                (d.line, d.column, d.end_line, d.end_column),
                (line, 1, line, 10),
                "{kind:?} `{path}`"
            );
            assert_eq!(d.file, rel);
            assert!(d.message.contains("allowed keys:"), "{}", d.message);
        }
    }
}
