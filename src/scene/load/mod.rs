//! Reading a scene: project.toml, the scene file and its material libraries (and its proxies
//! file), each walked against the schema; then ids, names and references across them; then
//! the plain-data [`Scene`].

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use toml_edit::ImDocument;

use super::check::{is_default, is_id, normalize, Ctx, Entry, RefUse};
use super::diagnostic::{Code, Diagnostic, Location, Severity};
use super::model::*;
use super::schema::{self, Dflt, FileKind, Kind, TableSchema, Ty};
use super::toml::{head, key_sp, val_sp, Node, Sp, Src, Tbl};

mod build;
mod expand;
mod overrides;
mod read;
mod refs;
mod resolve;
mod rules;
#[cfg(test)]
mod tests;
mod tiles;
mod view;

use build::*;
pub(crate) use refs::check_across;
use refs::*;
use rules::*;
use tiles::*;
use view::*;

/// The format this reader knows.
pub const FORMAT: i64 = 1;

/// Finds a file's project root: the nearest folder, from the file's folder upward, that holds a
/// project.toml; without one, the file's own folder. Absolute, canonicalised where possible.
pub fn root_of(file: &Path) -> PathBuf {
    let abs = absolute(file);
    let start = abs
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| abs.clone());
    let mut dir: Option<&Path> = Some(&start);
    while let Some(d) = dir {
        if d.join("project.toml").is_file() {
            return canonical(d);
        }
        dir = d.parent();
    }
    canonical(&start)
}

fn absolute(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Reads and checks the scene at `scene_file`. Err holds every error (and the warnings), in
/// file order; Ok's `Scene::warnings` holds the warnings.
pub fn load(scene_file: &Path) -> Result<Scene, Vec<Diagnostic>> {
    load_with(scene_file, HashMap::new())
}

/// As [`load`], with texts standing in for files (keys relative to the root): the editor's
/// unsaved buffers, and the tests' mutated inputs.
pub(crate) fn load_with(
    scene_file: &Path,
    overlay: HashMap<PathBuf, Vec<u8>>,
) -> Result<Scene, Vec<Diagnostic>> {
    load_top(scene_file, FileKind::Scene, overlay)
}

/// Resolves the prefab at `prefab_file` alone, as the top unit, the way a scene that places
/// it resolves it (its includes merged, its own libraries, its references inside it, its
/// nested placements placed, names, ids and parent cycles checked), with no scene around it:
/// how `bake check` finds a prefab's faults though no scene places it. Returns every finding
/// (errors and warnings), in file order; paths are relative to the prefab's root.
pub(crate) fn load_prefab(prefab_file: &Path) -> Vec<Diagnostic> {
    match load_top(prefab_file, FileKind::Prefab, HashMap::new()) {
        Ok(s) => s.warnings,
        Err(d) => d,
    }
}

/// [`load_with`] for a top unit of either kind: a scene, or a prefab read alone.
fn load_top(
    scene_file: &Path,
    kind: FileKind,
    overlay: HashMap<PathBuf, Vec<u8>>,
) -> Result<Scene, Vec<Diagnostic>> {
    let root = root_of(scene_file);
    let abs = absolute(scene_file);
    let rel = match abs.strip_prefix(&root) {
        Ok(r) => r.to_path_buf(),
        Err(_) => abs.file_name().map(PathBuf::from).unwrap_or_default(),
    };
    let mut ctx = Ctx::new(root.clone());
    ctx.overlay = overlay;
    let mut l = Loader {
        ctx,
        docs: Vec::new(),
        cache: HashMap::new(),
        migrated: HashMap::new(),
    };

    // project.toml first: the layer names the scene's bodies name come from it.
    let proj_rel = PathBuf::from("project.toml");
    ctx_layers_default(&mut l.ctx);
    let has_project = root.join(&proj_rel).is_file() || l.ctx.overlay.contains_key(&proj_rel);
    if has_project && l.read(&proj_rel, FileKind::Project, None).is_none() {
        // Its own error is reported; the scene's layer names go unchecked.
        l.ctx.check_layers = false;
    }
    let Some(scene_f) = l.read(&rel, kind, None) else {
        return Err(l.finish_err());
    };

    let scene = l.resolve(scene_f, kind);
    let mut diags = std::mem::take(&mut l.ctx.diags);
    crate::scene::migrate::remap_all(&l.migrated, &mut diags);
    sort(&l.ctx.srcs, &mut diags);
    dedup(&mut diags);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let mut scene = scene;
    scene.warnings = diags;
    fill_follow_offsets(&mut scene);
    Ok(scene)
}

/// Walks one file against its kind's schema alone (no other file, no references): what an
/// editor's buffer check starts from, and how the schema's coverage is tested.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn check_file(root: &Path, rel: &Path, kind: FileKind, text: &[u8]) -> Vec<Diagnostic> {
    let mut ctx = Ctx::new(canonical(root));
    ctx.overlay.insert(rel.to_path_buf(), text.to_vec());
    let mut l = Loader {
        ctx,
        docs: Vec::new(),
        cache: HashMap::new(),
        migrated: HashMap::new(),
    };
    ctx_layers_default(&mut l.ctx);
    let proj = PathBuf::from("project.toml");
    if kind != FileKind::Project && l.ctx.root.join(&proj).is_file() {
        l.read(&proj, FileKind::Project, None);
        let proj_f = l.ctx.srcs.len() - 1;
        l.ctx.diags.retain(|d| d.file != l.ctx.srcs[proj_f].rel);
    }
    l.read(rel, kind, None);
    l.finish_err()
}

/// Without project.toml, any layer name is refused (a project without [layers]).
fn ctx_layers_default(ctx: &mut Ctx) {
    ctx.check_layers = true;
    ctx.layers = None;
}

/// Drops repeated findings, keeping the first: a prefab placed twice, or a file that two
/// units read, yields each of its findings once per placement.
fn dedup(diags: &mut Vec<Diagnostic>) {
    let mut seen = std::collections::HashSet::new();
    diags.retain(|d| {
        seen.insert((
            d.file.clone(),
            d.line,
            d.column,
            d.code,
            d.key.clone(),
            d.message.clone(),
        ))
    });
}

/// Sorts findings into file order: by the order the files were read, then line and column.
fn sort(srcs: &[Src], diags: &mut [Diagnostic]) {
    let order = |d: &Diagnostic| {
        srcs.iter()
            .position(|s| s.rel == d.file)
            .unwrap_or(usize::MAX)
    };
    diags.sort_by_key(|d| (order(d), d.line, d.column));
}

/// The deepest chain of includes, or of prefab placements, the format accepts (the spec's
/// MAX_DEPTH): a chain of 64 is read, the 65th link is refused.
pub const MAX_DEPTH: usize = 64;

/// The tables one file of a scene and its includes holds at most (held-twice).
const ONE_FILE: [&str; 9] = [
    "fallback", "sun", "sky", "haze", "camera", "finish", "trace", "plates", "physics",
];

/// More objects than this from placements is refused: placements that each place the next
/// several times grow exponentially with depth, and no bake could hold them.
const MAX_PLACED: usize = 4_000_000;

/// A scene or a prefab with its includes merged: the scope its references resolve in.
struct Unit {
    /// The unit's own file, relative to the root.
    rel: PathBuf,
    /// Its files in merge order: each include before the file that includes it, includes in
    /// order, depth first; the unit's own file last.
    files: Vec<usize>,
    /// The material libraries its files name, each once.
    libs: Vec<usize>,
    /// Other files whose references resolve here (the scene's proxies file).
    extra: Vec<usize>,
    /// Its entries, for references; built once every file is read.
    index: Index,
}

impl Unit {
    fn holds(&self, f: usize) -> bool {
        self.files.contains(&f) || self.libs.contains(&f) || self.extra.contains(&f)
    }
}

/// Where an override that set a key is written: its key's place and its diagnostic key.
type SetBy = (Sp, String);

/// One `[object.set]` override on its way to the entry it sets.
#[derive(Clone)]
struct Ovr {
    /// The entry, as written: its segments split at `/` (a nested placement's inner entry is
    /// `"<placement>/<inner>"`); each placement on the way takes the first.
    entry: Vec<String>,
    /// The key path into the entry.
    path: Vec<String>,
    value: toml_edit::Value,
    /// Where the override's value is written, and its key.
    at: Sp,
    kat: Sp,
    key: String,
}

/// The scene itself, or one placement of a prefab: a unit placed with a key and id prefix.
struct Inst {
    unit: usize,
    /// The placement's index in the object list (None for the scene).
    group: Option<usize>,
    /// The instance the placement is written in.
    parent: Option<usize>,
    /// `"<placement key>/"` ("" for the scene).
    key_prefix: String,
    /// `"<placement id>/"` ("" for the scene); None when a placement on the way has no id.
    id_prefix: Option<String>,
    depth: usize,
    /// The placement's `prefab` value, where written.
    via: Option<Sp>,
    /// Overrides to apply, the placement's own first, then those of placements above.
    ovr: Vec<Ovr>,
    /// Entry → its overridden copy in the arena.
    owned: HashMap<usize, usize>,
    /// (Entry, first key of the path) → where the last override that set it is written (its
    /// key's place and its diagnostic key): a body put under an ordinary object or a moved
    /// placement by an override is the override's fault.
    set_at: HashMap<(usize, String), SetBy>,
    /// Material key → this placement's overridden copy's key, and the material's entry.
    mats: HashMap<String, (String, usize)>,
    /// Hidden by its placement or one above.
    hidden: bool,
}

/// An `[[object]]` as resolution needs it, placed.
struct Obj<'a> {
    /// Its table, overrides applied.
    t: Tbl<'a>,
    /// The file it is written in.
    f: usize,
    inst: usize,
    /// Its key in the model (`"<placement key>/<name>"` when placed).
    key: String,
    /// Its diagnostic key (`object.<id>`).
    dkey: String,
    /// Its id, namespaced when placed.
    id: Option<String>,
    head: Sp,
    placement: bool,
    /// The prefab a placement places, relative to the root.
    prefab: Option<PathBuf>,
    parent: Option<usize>,
    explicit_dynamic: Option<bool>,
    dynamic: bool,
    /// The mover that moves it, as (mover key, where the object is named and that place's
    /// diagnostic key, the override that set the mover's objects when one did).
    mover: Option<(String, SetBy, Option<SetBy>)>,
    /// Its entry, where it has one (a tile cell has none).
    entry: Option<usize>,
}
struct Loader {
    ctx: Ctx,
    docs: Vec<Option<ImDocument<String>>>,
    /// Each file read, by root-relative path: its index, or None when it did not read.
    cache: HashMap<PathBuf, Option<usize>>,
    /// Format 0 files read through the migration, by root-relative path: their findings are
    /// moved back into the file as written before they leave the loader.
    migrated: HashMap<PathBuf, crate::scene::migrate::PosMap>,
}

impl Loader {
    fn finish_err(&mut self) -> Vec<Diagnostic> {
        let mut d = std::mem::take(&mut self.ctx.diags);
        crate::scene::migrate::remap_all(&self.migrated, &mut d);
        sort(&self.ctx.srcs, &mut d);
        d
    }
}

/// What the model is built from, once placements are expanded.
struct Model<'a, 'd> {
    layers: Vec<Tiles>,
    rigs: Vec<Rig>,
    proxies: Vec<Proxy>,
    docs: &'d [Option<ImDocument<String>>],
    units: &'a [Unit],
    insts: &'a [Inst],
    objs: &'a [Obj<'a>],
    entry_at: &'a HashMap<(usize, &'d str), usize>,
    arena: &'a [toml_edit::Item],
}

impl<'a> Model<'a, '_> {
    /// The entry written at (`f`, `dkey`) as instance `i` holds it: its overridden copy, when
    /// the placement overrides it.
    fn eff(&self, i: usize, f: usize, dkey: &str) -> Option<Tbl<'a>> {
        let e = self.entry_at.get(&(f, dkey))?;
        let a = *self.insts.get(i)?.owned.get(e)?;
        Node::of_item(self.arena.get(a)?).and_then(|n| n.tbl())
    }
}

/// An object as the expansion first lays it out.
struct Plan<'d> {
    f: usize,
    inst: usize,
    entry: Option<usize>,
    orig: Tbl<'d>,
    dkey: String,
    head: Sp,
    prefab: Option<PathBuf>,
}

fn doc_table(docs: &[Option<ImDocument<String>>], f: usize) -> Option<Tbl<'_>> {
    docs.get(f)
        .and_then(|d| d.as_ref())
        .map(|d| Tbl::Table(d.as_table()))
}

/// A table's header as every finding about the table points at it (the shared layer's
/// [`head`]), at the file's start where toml_edit kept no span.
fn head_of(ctx: &Ctx, f: usize, t: Tbl) -> Sp {
    let start = Sp {
        file: f,
        span: 0..0,
    };
    head(&ctx.srcs, f, t, &start)
}

fn parent_sp(o: &Obj) -> Sp {
    val_sp(o.f, o.t, "parent", &o.head)
}
