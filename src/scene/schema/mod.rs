//! The format's complete key table, as data: one [`TableSchema`] per table of the spec, each
//! listing its keys with their type, range, default, unit, meaning, whether they are needed,
//! and what this version of the bake does with them ([`Use`]).
//!
//! The reader walks a document against these tables (see `check.rs`), so the schema is the one
//! place a key is declared: checking, `Scene::present`, the model's defaults, the bake's
//! capability notes (`world/notes.rs`, from [`use_of`] and [`Key::unread`]) and the key table
//! of `docs/scene.md` ([`doc::key_table`]) all come from it. Rules that tie keys together are
//! named by [`Rule`] and written in `check.rs`.
//!
//! `tables/` holds the statics (split by what they describe), `doc.rs` writes the markdown
//! table, `tests.rs` checks the schema against the checker.

mod doc;
mod tables;
#[cfg(test)]
mod tests;

pub use doc::{key_table, keys_summary};
pub use tables::*;

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

/// What this version of the bake does with a key: the column its capability notes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Drawn: the key changes the plate.
    Drawn,
    /// Recorded in the plate's manifest, or used to decide what the plate holds (ids, names,
    /// `dynamic`, what makes an object dynamic), for the live renderer: nothing to draw.
    Recorded,
    /// Read and checked, not drawn yet: a bake that finds it names it in a capability note.
    NotYet,
    /// Ignored by renderers: play mode, sounds, rigs, the project's own tables, authoring.
    Ignored,
}

impl Use {
    /// The words the docs use.
    pub fn words(self) -> &'static str {
        match self {
            Use::Drawn => "drawn",
            Use::Recorded => "recorded",
            Use::NotYet => "not drawn yet",
            Use::Ignored => "ignored by renderers",
        }
    }
}

/// When a drawn key's value still has no effect, by the resolved values of its table.
#[derive(Debug, Clone, Copy)]
pub enum When {
    /// The selector key (`family`, `model`) holds one of these values.
    Is(&'static str, &'static [&'static str]),
    /// A material of one of these families with no clear coat (not `lacquer`, `clearcoat` ≤ 0).
    Uncoated(&'static [&'static str]),
    /// A material of one of these families under a clear coat (`lacquer`, or `clearcoat` > 0).
    Coated(&'static [&'static str]),
    /// A material of one of these families whose key (clamped to 0 to 1) is this value.
    At(&'static [&'static str], &'static str, f64),
    /// A material of one of these families, uncoated, whose key (clamped to 0 to 1) is above
    /// this value.
    Over(&'static [&'static str], &'static str, f64),
    /// A material of one of these families, uncoated, whose key (clamped to 0 to 1) is this
    /// value (a key the uncoated model reads only where another is above it).
    UncoatedAt(&'static [&'static str], &'static str, f64),
    /// A material of one of these families under a clear coat whose key (clamped to 0 to 1) is
    /// this value (a key the coated model reads where the uncoated one does not).
    CoatedAt(&'static [&'static str], &'static str, f64),
}

/// One case in which a key's value is read and then has no effect on the plate.
#[derive(Debug, Clone, Copy)]
pub struct Unread {
    /// When it applies.
    pub when: When,
    /// A value that agrees with the case (a family at full weight takes 1 as well as the
    /// default), so needs no note.
    pub agrees: Option<f64>,
    /// Why, after `"<key> = <value> "`; `{family}` stands for `family "<name>"`.
    pub why: &'static str,
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
    /// Its unit, in the spec's words ("degrees", "scene units", "W/sr", "linear RGB"); empty
    /// for a key without one.
    pub unit: &'static str,
    /// What it means, one line.
    pub doc: &'static str,
    /// What the bake does with it; `None` takes its table's (see [`use_of`]).
    pub bake: Option<Use>,
    /// The cases in which the bake reads it and it has no effect (each named in a note).
    pub unread: &'static [Unread],
    /// The range the bake clamps a drawn value to (a material's usual range, which the
    /// format does not enforce); a value outside it is named with the value used.
    pub clamp: Option<Range>,
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
    /// With a unit.
    pub const fn u(mut self, unit: &'static str) -> Key {
        self.unit = unit;
        self
    }
    /// With its one-line meaning.
    pub const fn m(mut self, doc: &'static str) -> Key {
        self.doc = doc;
        self
    }
    /// With what the bake does with it, over its table's.
    pub const fn uses(mut self, u: Use) -> Key {
        self.bake = Some(u);
        self
    }
    /// With the cases in which it has no effect.
    pub const fn unread(mut self, cases: &'static [Unread]) -> Key {
        self.unread = cases;
        self
    }
    /// Clamped by the bake to `r`.
    pub const fn clamp(mut self, r: Range) -> Key {
        self.clamp = Some(r);
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
        unit: "",
        doc: "",
        bake: None,
        unread: &[],
        clamp: None,
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
    /// What the bake does with its keys; `None` takes the key's that holds the table.
    pub bake: Option<Use>,
}

impl TableSchema {
    /// The key named `name`.
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        // `self` is always one of the statics below, so the keys live for 'static.
        let keys: &'static [Key] = self.keys;
        let more: &'static [Key] = self.more;
        keys.iter().chain(more.iter()).find(|k| k.name == name)
    }

    /// With what the bake does with its keys.
    pub const fn uses(mut self, u: Use) -> TableSchema {
        self.bake = Some(u);
        self
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
        bake: None,
    }
}
const fn tr(keys: &'static [Key], rule: Rule) -> TableSchema {
    TableSchema {
        keys,
        more: &[],
        entry: None,
        rule: Some(rule),
        bake: None,
    }
}
const fn entry(keys: &'static [Key], kind: Kind, rule: Option<Rule>) -> TableSchema {
    TableSchema {
        keys,
        more: &[],
        entry: Some(kind),
        rule,
        bake: None,
    }
}

/// The roots a schema path may start from, tried in this order: a path names the first key it
/// resolves to (`materials.clearcoat` is a library's, `exposure` a finish file's).
const ROOTS: [FileKind; 5] = [
    FileKind::Scene,
    FileKind::Materials,
    FileKind::Project,
    FileKind::Proxies,
    FileKind::Finish,
];

/// The key at the schema path `path` (table and key names, entry names and list places left
/// out: `materials.clearcoat`, `sky.layer.turbidity`, `object.body.kind`), and what the bake
/// does with it. `None` for a path no table holds.
pub fn use_of(path: &str) -> Option<(&'static Key, Use)> {
    ROOTS.iter().find_map(|root| use_from(root.schema(), path))
}

/// [`use_of`] from one root table.
pub fn use_from(root: &'static TableSchema, path: &str) -> Option<(&'static Key, Use)> {
    let mut table = root;
    let mut inherited = root.bake.unwrap_or(Use::Drawn);
    let mut segs = path.split('.').peekable();
    while let Some(seg) = segs.next() {
        let key = table.key(seg)?;
        let u = key_use(key, inherited);
        if segs.peek().is_none() {
            return Some((key, u));
        }
        table = child(&key.ty)?;
        inherited = table.bake.unwrap_or(u);
    }
    None
}

/// The table a value of type `ty` holds keys of: a sub-table, each of named tables, each of an
/// array of tables (the first such of a `OneOf`).
pub fn child(ty: &'static Ty) -> Option<&'static TableSchema> {
    match ty {
        Ty::Table(t) | Ty::Tables(t) | Ty::List(t) => Some(t),
        Ty::OneOf(v) => v.iter().find_map(child),
        _ => None,
    }
}

/// A key's own use, else the use of the table its value holds, else what it inherits.
fn key_use(key: &'static Key, inherited: Use) -> Use {
    key.bake
        .or_else(|| child(&key.ty).and_then(|t| t.bake))
        .unwrap_or(inherited)
}

/// The key `name` of `table`, which the caller knows the table holds: a model read through a
/// name the schema does not hold is a bug, caught here by the tests (a debug assertion), and
/// reads as a key with no default in a release build.
pub fn key_of(table: &'static TableSchema, name: &str) -> &'static Key {
    static NONE: Key = k("", Ty::Any);
    match table.key(name) {
        Some(key) => key,
        None => {
            debug_assert!(false, "the schema holds no key `{name}` here");
            &NONE
        }
    }
}

/// A number key's default, as the model holds it (0 for a key without a numeric default).
pub fn default_f32(table: &'static TableSchema, name: &str) -> f32 {
    match key_of(table, name).default {
        Dflt::Num(v) => v as f32,
        _ => 0.0,
    }
}

/// A vector key's default, as the model holds it (zeros for a key without one).
pub fn default_vec<const N: usize>(table: &'static TableSchema, name: &str) -> [f32; N] {
    let mut out = [0.0; N];
    if let Dflt::Vec(v) = key_of(table, name).default {
        for (o, d) in out.iter_mut().zip(v) {
            *o = *d as f32;
        }
    }
    out
}

/// A bool key's default (false for a key without one).
pub fn default_bool(table: &'static TableSchema, name: &str) -> bool {
    matches!(key_of(table, name).default, Dflt::Bool(true))
}

/// A string key's default (`None` for a key without one).
pub fn default_str(table: &'static TableSchema, name: &str) -> Option<&'static str> {
    match key_of(table, name).default {
        Dflt::Str(s) => Some(s),
        _ => None,
    }
}
