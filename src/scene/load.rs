//! Reading a scene: project.toml, the scene file and its material libraries (and its proxies
//! file), each walked against the schema; then ids, names and references across them; then
//! the plain-data [`Scene`].

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use toml_edit::ImDocument;

use super::check::{is_default, is_id, normalize, Ctx, Entry, Node, RefUse, Sp, Src, Tbl};
use super::diagnostic::{Code, Diagnostic, Location, Severity};
use super::model::*;
use super::schema::{self, Dflt, FileKind, Kind, TableSchema, Ty};

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
    super::migrate::remap_all(&l.migrated, &mut diags);
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

/// A follow rig without `offset` takes `[camera] at` less its target's position at rest: the
/// target's world origin through its parents (objects and placements), as the scene stands
/// before play. A rig with no target keeps `None`: there is no point to measure from.
fn fill_follow_offsets(scene: &mut Scene) {
    let camera_at = glam::Vec3::from(scene.camera.clone().unwrap_or_default().at);
    let mut frames: HashMap<&str, (glam::Mat4, Option<&str>)> = HashMap::new();
    for g in &scene.groups {
        let m = crate::geometry::model_matrix(g.at, g.rotate, g.scale);
        frames.insert(g.key.as_str(), (m, g.parent.as_deref()));
    }
    for o in &scene.objects {
        let m = crate::geometry::model_matrix(o.at, o.rotate, o.scale);
        frames.insert(o.key.as_str(), (m, o.parent.as_deref()));
    }
    let mut offsets = Vec::new();
    for (i, r) in scene.rigs.iter().enumerate() {
        if r.kind != RigKind::Follow || r.offset.is_some() {
            continue;
        }
        let Some(target) = r.target.as_deref() else {
            continue;
        };
        let mut p = glam::Vec3::ZERO;
        let mut cur = Some(target);
        // The reader refuses parent cycles; the bound keeps a hand-made scene from looping.
        for _ in 0..=frames.len() {
            let Some((m, parent)) = cur.and_then(|k| frames.get(k)) else {
                break;
            };
            p = m.transform_point3(p);
            cur = *parent;
        }
        let o = camera_at - p;
        if o.is_finite() {
            offsets.push((i, o.to_array()));
        }
    }
    for (i, o) in offsets {
        scene.rigs[i].offset = Some(o);
    }
}

/// The checks that span the whole project rather than one scene, on every file `files` lists
/// (root-relative, each with its kind), each read once on its own:
///
/// * an id used twice where no one scene reads both places (`together(a, b)` says whether
///   one does: that scene's own check reports it) is refused at the later use in `files`'
///   order, once per use, the first such earlier use in `related`;
/// * each `[[proxy]]` `object` of a file in `lone_proxies` (proxies files no scene names)
///   resolves among every object of the project: by id, else by a name that one object alone
///   has (`bad-reference`, `ambiguous-reference` with every holder in `related`).
///
/// The files' own findings (schema, syntax) are not returned: each is reported where the file
/// is checked. Findings in a format 0 file point into the file as written.
pub(crate) fn check_across(
    root: &Path,
    files: &[(PathBuf, FileKind)],
    together: &dyn Fn(&Path, &Path) -> bool,
    lone_proxies: &[PathBuf],
) -> Vec<Diagnostic> {
    let mut l = Loader {
        ctx: Ctx::new(canonical(root)),
        docs: Vec::new(),
        cache: HashMap::new(),
        migrated: HashMap::new(),
    };
    ctx_layers_default(&mut l.ctx);
    // Layer names are each scene's to check; here they would only repeat its findings.
    l.ctx.check_layers = false;
    for (rel, kind) in files {
        if *kind != FileKind::Finish {
            l.read(rel, *kind, None);
        }
    }
    l.ctx.diags.clear();
    let entries = std::mem::take(&mut l.ctx.entries);

    // Each id's uses so far; a use is refused once, against the first earlier use that no
    // scene reads with it.
    let mut uses: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        let Some(id) = e.id.as_deref().filter(|id| is_id(id)) else {
            continue;
        };
        let earlier = uses.entry(id).or_default();
        let apart = earlier.iter().copied().find(|&u| {
            let (a, b) = (entries[u].id_at.file, e.id_at.file);
            !together(&l.ctx.srcs[a].rel, &l.ctx.srcs[b].rel)
        });
        earlier.push(i);
        let Some(f0) = apart else {
            continue;
        };
        let loc = l.ctx.loc(&entries[f0].id_at);
        let msg = format!(
            "id \"{id}\" is used twice in the project: also by {} at {}:{}:{}",
            entries[f0].key,
            loc.file.display(),
            loc.line,
            loc.column
        );
        l.ctx.report(
            Severity::Error,
            &e.id_at,
            Code::DuplicateId,
            &format!("{}.id", e.key),
            msg,
            vec![loc],
        );
    }

    let lone: Vec<usize> = lone_proxies
        .iter()
        .filter_map(|p| l.cache.get(p).copied().flatten())
        .collect();
    if !lone.is_empty() {
        let index = Index::new(&entries, |e| e.kind == Kind::Object);
        for r in std::mem::take(&mut l.ctx.refs) {
            if r.kind != Kind::Object || !lone.contains(&r.at.file) {
                continue;
            }
            match index.find(Kind::Object, &r.value) {
                Found::One(_) => {}
                Found::None => {
                    let msg = format!(
                        "no object of the project has the id or name \"{}\" (no scene names \
                         this proxies file, so it resolves across the project)",
                        r.value
                    );
                    l.ctx.err(&r.at, Code::BadReference, &r.key, msg);
                }
                Found::Many(all) => {
                    let related = all
                        .iter()
                        .map(|e| l.ctx.loc(&entries[*e].name_at))
                        .collect();
                    let msg = format!(
                        "\"{}\" names {} objects of the project; refer to one by its id",
                        r.value,
                        all.len()
                    );
                    l.ctx.report(
                        Severity::Error,
                        &r.at,
                        Code::AmbiguousReference,
                        &r.key,
                        msg,
                        related,
                    );
                }
            }
        }
    }
    let mut diags = std::mem::take(&mut l.ctx.diags);
    super::migrate::remap_all(&l.migrated, &mut diags);
    diags
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
    migrated: HashMap<PathBuf, super::migrate::PosMap>,
}

impl Loader {
    fn finish_err(&mut self) -> Vec<Diagnostic> {
        let mut d = std::mem::take(&mut self.ctx.diags);
        super::migrate::remap_all(&self.migrated, &mut d);
        sort(&self.ctx.srcs, &mut d);
        d
    }

    /// Reads, parses and walks one file; returns its index when it is format 1 and parsed.
    fn read_uncached(
        &mut self,
        rel: &Path,
        kind: FileKind,
        named_at: Option<SetBy>,
    ) -> Option<usize> {
        let bytes = match self.ctx.overlay.get(rel) {
            Some(b) => Ok(b.clone()),
            None => std::fs::read(self.ctx.root.join(rel)),
        };
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => {
                match named_at {
                    Some((sp, key)) => self.ctx.err(
                        &sp,
                        Code::Unreadable,
                        &key,
                        format!("can't read `{}`: {e}", rel.display()),
                    ),
                    None => {
                        self.ctx.srcs.push(Src::new(rel.to_path_buf(), Vec::new()));
                        self.docs.push(None);
                        let f = self.ctx.srcs.len() - 1;
                        self.ctx.err(
                            &Sp {
                                file: f,
                                span: 0..0,
                            },
                            Code::Unreadable,
                            "",
                            format!("can't read `{}`: {e}", rel.display()),
                        );
                    }
                }
                return None;
            }
        };
        self.ctx
            .srcs
            .push(Src::new(rel.to_path_buf(), bytes.clone()));
        self.docs.push(None);
        let f = self.ctx.srcs.len() - 1;
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                self.ctx.err(
                    &Sp {
                        file: f,
                        span: at..at + 1,
                    },
                    Code::NotUtf8,
                    "",
                    format!("`{}` is not UTF-8", rel.display()),
                );
                return None;
            }
        };
        let doc = match ImDocument::parse(text) {
            Ok(d) => d,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                let msg = e.message().trim().replace('\n', "; ");
                self.ctx.err(
                    &Sp { file: f, span },
                    Code::Syntax,
                    "",
                    format!("not valid TOML: {msg}"),
                );
                return None;
            }
        };
        let top = Tbl::Table(doc.as_table());
        let whole = Sp {
            file: f,
            span: 0..0,
        };
        if kind != FileKind::Finish {
            let fmt = top.get("format");
            let fsp = fmt
                .and_then(|n| n.val().and_then(|v| v.span()))
                .map(|span| Sp { file: f, span })
                .unwrap_or_else(|| whole.clone());
            let version = match fmt {
                None => Some(0),
                Some(n) => match n.val() {
                    Some(toml_edit::Value::Integer(i)) => Some(*i.value()),
                    _ => None,
                },
            };
            match version {
                None => {
                    self.ctx.err(
                        &fsp,
                        Code::BadType,
                        "format",
                        "expected the integer 1".into(),
                    );
                    return None;
                }
                Some(0) => {
                    // --- format 0: read through the in-memory migration (scene::migrate) ---
                    let original = doc.raw().to_string();
                    let (doc, map) =
                        super::migrate::read_format0(&mut self.ctx, f, kind, &original)?;
                    self.migrated.insert(rel.to_path_buf(), map);
                    let top = Tbl::Table(doc.as_table());
                    if kind == FileKind::Project {
                        self.project_layers(top, f);
                    }
                    self.ctx.walk(f, top, kind.schema(), "", "", &whole, None);
                    self.docs[f] = Some(doc);
                    return Some(f);
                    // --- end of the format 0 hook ---
                }
                Some(v) if v > FORMAT => {
                    self.ctx.err(
                        &fsp,
                        Code::NewerFormat,
                        "format",
                        format!("format {v} is newer than this reader knows (format {FORMAT})"),
                    );
                    return None;
                }
                Some(v) if v < 0 => {
                    self.ctx.err(
                        &fsp,
                        Code::BadValue,
                        "format",
                        format!("format {v} is no format; this reader knows format {FORMAT}"),
                    );
                    return None;
                }
                Some(_) => {}
            }
        }
        if kind == FileKind::Project {
            self.project_layers(top, f);
        }
        self.ctx.walk(f, top, kind.schema(), "", "", &whole, None);
        self.docs[f] = Some(doc);
        Some(f)
    }

    /// Takes the project's layer names before anything names one, and checks [layers]' own
    /// shape rules (at most 32, symmetric, no name twice in a list).
    fn project_layers(&mut self, top: Tbl, f: usize) {
        let Some(node) = top.get("layers") else {
            return;
        };
        let Some(t) = node.tbl() else {
            // A [layers] of the wrong shape: the scene's layer names go unchecked.
            self.ctx.check_layers = false;
            return;
        };
        let entries = t.entries();
        let names: Vec<String> = entries.iter().map(|(n, _, _)| n.to_string()).collect();
        self.ctx.layers = Some(names.clone());
        let lists: BTreeMap<&str, Vec<String>> = entries
            .iter()
            .map(|(n, _, v)| {
                (
                    *n,
                    v.elems()
                        .iter()
                        .filter_map(|e| e.str().map(String::from))
                        .collect(),
                )
            })
            .collect();
        for (i, (name, ks, v)) in entries.iter().enumerate() {
            let kat = Sp {
                file: f,
                span: ks.clone().unwrap_or(0..0),
            };
            if i == 32 {
                self.ctx.err(
                    &kat,
                    Code::BadValue,
                    &format!("layers.{name}"),
                    "a 33rd layer: a project has at most 32".into(),
                );
            }
            if name.is_empty()
                || name.starts_with(char::is_whitespace)
                || name.ends_with(char::is_whitespace)
            {
                self.ctx.err(
                    &kat,
                    Code::BadName,
                    &format!("layers.{name}"),
                    format!("layer name \"{name}\" is empty or has a space at an end"),
                );
            }
            let mut seen: Vec<&str> = Vec::new();
            for (j, e) in v.elems().iter().enumerate() {
                let Some(other) = e.str() else { continue };
                let at = Sp {
                    file: f,
                    span: node_span(e).unwrap_or(kat.span.clone()),
                };
                let key = format!("layers.{name}.{j}");
                if seen.contains(&other) {
                    self.ctx.err(
                        &at,
                        Code::BadValue,
                        &key,
                        format!("\"{other}\" is listed twice"),
                    );
                }
                seen.push(other);
                if let Some(back) = lists.get(other) {
                    if !back.iter().any(|b| b == name) {
                        self.ctx.err(&at, Code::BadValue, &key, format!("{name} lists {other}, but {other} does not list {name}: meeting goes both ways"));
                    }
                }
            }
        }
    }

    /// Reads a file once: a second call for the same path returns the first call's result
    /// (and reports nothing again), so a file that several units name is walked once and its
    /// ids count once.
    fn read(&mut self, rel: &Path, kind: FileKind, named_at: Option<SetBy>) -> Option<usize> {
        if let Some(r) = self.cache.get(rel) {
            return *r;
        }
        let r = self.read_uncached(rel, kind, named_at);
        self.cache.insert(rel.to_path_buf(), r);
        r
    }

    /// The paths file `f` names under diagnostic keys starting with `prefix`, that passed
    /// their checks, in the order written.
    fn named(&self, f: usize, prefix: &str) -> Vec<(String, Sp, PathBuf)> {
        self.ctx
            .ok_paths
            .iter()
            .filter(|(pf, k, _, _)| *pf == f && k.starts_with(prefix))
            .map(|(_, k, sp, p)| (k.clone(), sp.clone(), p.clone()))
            .collect()
    }

    /// Reads the includes of `main`, depth first, and returns the files in merge order. The
    /// chain of files being read is a stack on the heap, never the call stack, so any depth
    /// of input costs the same stack; a 65th link or a cycle is refused at its include key.
    fn includes(&mut self, main: usize, kind: FileKind) -> Vec<usize> {
        struct Frame {
            f: usize,
            incs: Vec<(String, Sp, PathBuf)>,
            next: usize,
            /// The include that brought this file in.
            via: Option<Sp>,
        }
        let mut order: Vec<usize> = Vec::new();
        let mut stack = vec![Frame {
            f: main,
            incs: self.named(main, "include."),
            next: 0,
            via: None,
        }];
        while let Some(top) = stack.last_mut() {
            if top.next >= top.incs.len() {
                let f = top.f;
                stack.pop();
                if !order.contains(&f) {
                    order.push(f);
                }
                continue;
            }
            let (key, sp, path) = top.incs[top.next].clone();
            top.next += 1;
            let cycle = stack.iter().any(|fr| self.ctx.srcs[fr.f].rel == path);
            // The scene is depth 0, so this include is `stack.len()` deep.
            if cycle || stack.len() > MAX_DEPTH {
                let mut names: Vec<String> = stack
                    .iter()
                    .map(|fr| self.ctx.srcs[fr.f].rel.display().to_string())
                    .collect();
                names.push(path.display().to_string());
                let mut related: Vec<Location> = stack
                    .iter()
                    .filter_map(|fr| fr.via.as_ref())
                    .map(|s| self.ctx.loc(s))
                    .collect();
                related.push(self.ctx.loc(&sp));
                let (code, msg) = if cycle {
                    (
                        Code::IncludeCycle,
                        format!(
                            "`{}` includes itself: {}",
                            path.display(),
                            names.join(" → ")
                        ),
                    )
                } else {
                    (
                        Code::IncludeDepth,
                        format!(
                            "includes nest more than {MAX_DEPTH} deep: {}",
                            names.join(" → ")
                        ),
                    )
                };
                self.ctx
                    .report(Severity::Error, &sp, code, &key, msg, related);
                continue;
            }
            let Some(f) = self.read(&path, kind, Some((sp.clone(), key))) else {
                continue;
            };
            // A file two includes of the unit name (a diamond) is merged once, at its first.
            if order.contains(&f) {
                continue;
            }
            let incs = self.named(f, "include.");
            stack.push(Frame {
                f,
                incs,
                next: 0,
                via: Some(sp),
            });
        }
        order
    }

    /// A scene or prefab with its includes and the libraries they name, read.
    fn unit(&mut self, main: usize, kind: FileKind) -> Unit {
        let files = self.includes(main, kind);
        let mut libs = Vec::new();
        for &f in &files {
            for (key, sp, path) in self.named(f, "materials.") {
                if let Some(l) = self.read(&path, FileKind::Materials, Some((sp, key))) {
                    if !libs.contains(&l) {
                        libs.push(l);
                    }
                }
            }
        }
        Unit {
            rel: self.ctx.srcs[main].rel.clone(),
            files,
            libs,
            extra: Vec::new(),
            index: Index::default(),
        }
    }

    /// Everything past reading the scene file: its includes, proxies file and prefabs read;
    /// placements expanded; ids, names and references across them; then the model. `top` is
    /// the top file's kind: a prefab read alone resolves as a scene would place it.
    fn resolve(&mut self, scene_f: usize, top: FileKind) -> Scene {
        let mut units = vec![self.unit(scene_f, top)];
        let mut proxies_f = None;
        for f in units[0].files.clone() {
            for (key, sp, path) in self.named(f, "plates.proxies") {
                proxies_f = self.read(&path, FileKind::Proxies, Some((sp, key)));
            }
        }
        units[0].extra.extend(proxies_f);
        // Every prefab placed anywhere, each with its includes, read once (a worklist, not
        // recursion). Cycles and depth are the expansion's to refuse.
        let mut unit_of: HashMap<PathBuf, Option<usize>> = HashMap::new();
        let alone = top == FileKind::Prefab;
        if alone {
            // A prefab that places itself, nearer or farther down, is this unit again.
            unit_of.insert(units[0].rel.clone(), Some(0));
        }
        let mut u = 0;
        while u < units.len() {
            for f in units[u].files.clone() {
                let places = self
                    .named(f, "object.")
                    .into_iter()
                    .filter(|(k, _, _)| k.ends_with(".prefab"));
                let tiles = self
                    .named(f, "tiles.")
                    .into_iter()
                    .filter(|(k, _, _)| k.contains(".palette."));
                for (key, sp, path) in places.chain(tiles).collect::<Vec<_>>() {
                    if unit_of.contains_key(&path) {
                        continue;
                    }
                    let made = self
                        .read(&path, FileKind::Prefab, Some((sp, key)))
                        .map(|pf| {
                            let un = self.unit(pf, FileKind::Prefab);
                            units.push(un);
                            units.len() - 1
                        });
                    unit_of.insert(path, made);
                }
            }
            u += 1;
        }

        let docs = std::mem::take(&mut self.docs);
        let entries = self.ctx.entries.clone();
        for un in &mut units {
            let index = Index::new(&entries, |e| {
                let f = e.name_at.file;
                if e.kind == Kind::Material {
                    un.libs.contains(&f)
                } else {
                    un.files.contains(&f) || un.extra.contains(&f)
                }
            });
            un.index = index;
        }
        let entry_at: HashMap<(usize, &str), usize> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| ((e.name_at.file, e.key.as_str()), i))
            .collect();
        let mut tbl_of: HashMap<usize, Tbl> = HashMap::new();
        for f in 0..docs.len() {
            for kind in ALL_KINDS {
                for (dkey, _, t) in entry_tables(&docs, f, kind) {
                    if let Some(&e) = entry_at.get(&(f, dkey.as_str())) {
                        tbl_of.insert(e, t);
                    }
                }
            }
        }
        self.ids(&entries);
        for un in &units {
            self.names(&entries, un);
        }
        self.material_names(&entries);
        self.held_twice(&docs, &units[0]);

        // Tile layers: each filled cell is a placement, written here as a table of its own.
        let mut layers: Vec<Tiles> = Vec::new();
        let mut cells: Vec<(usize, String, Sp, PathBuf)> = Vec::new();
        let mut cell_items: Vec<toml_edit::Item> = Vec::new();
        for &f in &units[0].files {
            for (dkey, name, t) in entry_tables(&docs, f, Kind::Tiles) {
                let head = head_of(&self.ctx, f, t);
                let layer = tiles_of(t, &units[0], &tbl_of, self.ctx.loc(&head));
                for (n, (at, tile)) in layer.cells.iter().enumerate() {
                    let Some((_, path)) = layer.palette.iter().find(|(k, _)| k == tile) else {
                        continue;
                    };
                    let (sp, ckey) = cell_place(f, t, &dkey, &layer, n, &head);
                    let pos = layer.position(*at);
                    let mut ct = toml_edit::Table::new();
                    ct.insert(
                        "name",
                        toml_edit::value(format!("{name}/{},{}", at[0], at[1])),
                    );
                    ct.insert(
                        "prefab",
                        toml_edit::value(path.to_string_lossy().into_owned()),
                    );
                    let arr: toml_edit::Array = pos.iter().map(|v| *v as f64).collect();
                    ct.insert("at", toml_edit::value(arr));
                    cell_items.push(toml_edit::Item::Table(ct));
                    cells.push((f, ckey, sp, path.clone()));
                }
                layers.push(layer);
            }
        }
        let cell_items = cell_items;

        // Placements, expanded breadth first; each instance's chain is its parent links.
        let mut insts: Vec<Inst> = vec![Inst {
            unit: 0,
            group: None,
            parent: None,
            key_prefix: String::new(),
            id_prefix: Some(String::new()),
            depth: 0,
            via: None,
            ovr: Vec::new(),
            owned: HashMap::new(),
            set_at: HashMap::new(),
            mats: HashMap::new(),
            hidden: false,
        }];
        let mut arena: Vec<toml_edit::Item> = Vec::new();
        let mut plans: Vec<Plan> = Vec::new();
        let mut grown = false;
        let mut i = 0;
        while i < insts.len() {
            let u = insts[i].unit;
            let ovr = std::mem::take(&mut insts[i].ovr);
            let mut forwarded: HashMap<usize, Vec<Ovr>> = HashMap::new();
            for o in ovr {
                self.apply_override(
                    &units[u],
                    &entries,
                    &tbl_of,
                    &mut insts[i],
                    &mut arena,
                    &mut forwarded,
                    o,
                );
            }
            // The unit's objects, then (for the scene) its tile layers' cells.
            let mut todo: Vec<(Plan, Sp)> = Vec::new();
            for &f in &units[u].files {
                for (dkey, _, t) in entry_tables(&docs, f, Kind::Object) {
                    let entry = entry_at.get(&(f, dkey.as_str())).copied();
                    let prefab = if t.has("prefab") {
                        prefab_target(&units[u], &tbl_of, t)
                    } else {
                        None
                    };
                    let head = head_of(&self.ctx, f, t);
                    let at = val_sp(f, t, "prefab", &head);
                    let plan = Plan {
                        f,
                        inst: i,
                        entry,
                        orig: t,
                        dkey,
                        head,
                        prefab,
                    };
                    todo.push((plan, at));
                }
            }
            if i == 0 {
                for ((f, ckey, sp, path), item) in cells.iter().zip(&cell_items) {
                    let Some(t) = Node::of_item(item).and_then(|n| n.tbl()) else {
                        continue;
                    };
                    let plan = Plan {
                        f: *f,
                        inst: 0,
                        entry: None,
                        orig: t,
                        dkey: ckey.clone(),
                        head: sp.clone(),
                        prefab: Some(path.clone()),
                    };
                    todo.push((plan, sp.clone()));
                }
            }
            for (plan, at) in todo {
                let (f, t, entry, prefab) = (plan.f, plan.orig, plan.entry, plan.prefab.clone());
                let dkey = plan.dkey.clone();
                plans.push(plan);
                let Some(path) = prefab else { continue };
                let Some(Some(tu)) = unit_of.get(&path).copied() else {
                    continue;
                };
                let mut chain = Vec::new();
                let mut c = Some(i);
                while let Some(ci) = c {
                    chain.push(ci);
                    c = insts[ci].parent;
                }
                chain.reverse();
                let cycle = chain
                    .iter()
                    .any(|&ci| (ci != 0 || alone) && units[insts[ci].unit].rel == path);
                let depth = insts[i].depth + 1;
                if cycle || depth > MAX_DEPTH {
                    let mut names: Vec<String> = chain
                        .iter()
                        .map(|&ci| units[insts[ci].unit].rel.display().to_string())
                        .collect();
                    names.push(path.display().to_string());
                    let mut related: Vec<Location> = chain
                        .iter()
                        .filter_map(|&ci| insts[ci].via.as_ref())
                        .map(|s| self.ctx.loc(s))
                        .collect();
                    related.push(self.ctx.loc(&at));
                    let (code, msg) = if cycle {
                        (
                            Code::PrefabCycle,
                            format!("`{}` places itself: {}", path.display(), names.join(" → ")),
                        )
                    } else {
                        (
                            Code::PrefabDepth,
                            format!(
                                "prefab placements nest more than {MAX_DEPTH} deep: {}",
                                names.join(" → ")
                            ),
                        )
                    };
                    self.ctx.report(
                        Severity::Error,
                        &at,
                        code,
                        &format!("{dkey}.prefab"),
                        msg,
                        related,
                    );
                    continue;
                }
                if plans.len() > MAX_PLACED {
                    if !grown {
                        self.ctx.err(
                            &at,
                            Code::BadValue,
                            &format!("{dkey}.prefab"),
                            format!("placements expand to more than {MAX_PLACED} objects"),
                        );
                    }
                    grown = true;
                    continue;
                }
                let name = t.str("name").unwrap_or_default();
                // A tile cell's entries take no id the scene can refer to.
                let id_prefix = match (&insts[i].id_prefix, t.str("id"), entry) {
                    (Some(p), Some(id), Some(_)) => Some(format!("{p}{id}/")),
                    _ => None,
                };
                let mut ovr = self.parse_set(f, t, &dkey);
                if let Some(e) = entry {
                    ovr.extend(forwarded.remove(&e).unwrap_or_default());
                }
                let key_prefix = format!("{}{name}/", insts[i].key_prefix);
                insts.push(Inst {
                    unit: tu,
                    group: Some(plans.len() - 1),
                    parent: Some(i),
                    key_prefix,
                    id_prefix,
                    depth,
                    via: Some(at),
                    ovr,
                    owned: HashMap::new(),
                    set_at: HashMap::new(),
                    mats: HashMap::new(),
                    hidden: false,
                });
            }
            i += 1;
        }
        let arena = arena;

        // A placement's hidden hides everything it places, down every nested placement.
        for i in 1..insts.len() {
            let own = insts[i].group.and_then(|g| plans.get(g)).is_some_and(|p| {
                let a = p.entry.and_then(|e| insts[p.inst].owned.get(&e).copied());
                let t = a
                    .and_then(|a| arena.get(a))
                    .and_then(Node::of_item)
                    .and_then(|n| n.tbl())
                    .unwrap_or(p.orig);
                t.bool("hidden") == Some(true)
            });
            let up = insts[i].parent.is_some_and(|p| insts[p].hidden);
            insts[i].hidden = own || up;
        }

        // The placed objects.
        let eff = |inst: usize, e: Option<usize>| -> Option<usize> {
            e.and_then(|e| insts[inst].owned.get(&e).copied())
        };
        let tbl_at = |a: Option<usize>| -> Option<Tbl> {
            a.and_then(|a| arena.get(a))
                .and_then(Node::of_item)
                .and_then(|n| n.tbl())
        };
        let mut objs: Vec<Obj> = Vec::with_capacity(plans.len());
        let mut obj_at: HashMap<(usize, usize), usize> = HashMap::new();
        let mut placed_ids: HashMap<String, usize> = HashMap::new();
        for (n, p) in plans.iter().enumerate() {
            let inst = &insts[p.inst];
            let t = tbl_at(eff(p.inst, p.entry)).unwrap_or(p.orig);
            let name = p.orig.str("name").unwrap_or_default().to_string();
            let id = match (&inst.id_prefix, p.orig.str("id")) {
                (Some(pre), Some(id)) => Some(format!("{pre}{id}")),
                _ => None,
            };
            if let Some(e) = p.entry {
                obj_at.insert((p.inst, e), n);
            }
            if p.inst != 0 {
                if let Some(id) = &id {
                    placed_ids.entry(id.clone()).or_insert(n);
                }
            }
            objs.push(Obj {
                t,
                f: p.f,
                inst: p.inst,
                key: format!("{}{name}", inst.key_prefix),
                dkey: p.dkey.clone(),
                id,
                head: p.head.clone(),
                placement: p.orig.has("prefab"),
                prefab: p.prefab.clone(),
                parent: None,
                explicit_dynamic: t.bool("dynamic"),
                dynamic: false,
                mover: None,
                entry: p.entry,
            });
        }
        let obj_of = |inst: usize, v: &str| -> Option<usize> {
            match units[insts[inst].unit].index.find(Kind::Object, v) {
                Found::One(e) => obj_at.get(&(inst, e)).copied(),
                Found::None => insts[inst]
                    .id_prefix
                    .as_ref()
                    .and_then(|p| placed_ids.get(&format!("{p}{v}")).copied()),
                Found::Many(_) => None,
            }
        };
        for o in objs.iter_mut() {
            o.parent = match o.t.str("parent") {
                Some(v) => obj_of(o.inst, v),
                // A prefab's root objects take the placement as their parent.
                None => insts[o.inst].group,
            };
        }

        // References, each in the unit its file belongs to.
        let refs = std::mem::take(&mut self.ctx.refs);
        for r in &refs {
            let Some(u) = units.iter().position(|un| un.holds(r.at.file)) else {
                continue;
            };
            match units[u].index.find(r.kind, &r.value) {
                Found::One(e) => {
                    if Some(r.at.file) == proxies_f {
                        // A proxy also names a placed object by its key, so a scene object
                        // named "lamp/bulb" and the bulb placed by "lamp" are both "lamp/bulb".
                        let placed = r
                            .value
                            .contains('/')
                            .then(|| objs.iter().find(|o| o.inst != 0 && o.key == r.value))
                            .flatten();
                        match placed {
                            Some(p) => {
                                let mut related = vec![self.ctx.loc(&entries[e].name_at)];
                                let name_at = p.t.get("name").and_then(|n| node_span(&n));
                                related.push(self.ctx.loc(&Sp {
                                    file: p.f,
                                    span: name_at.unwrap_or_else(|| p.head.span.clone()),
                                }));
                                let msg = format!(
                                    "\"{}\" names 2 objects: an object of that name and a placed \
                                     object of that key; refer to one by its id",
                                    r.value
                                );
                                self.ctx.report(
                                    Severity::Error,
                                    &r.at,
                                    Code::AmbiguousReference,
                                    &r.key,
                                    msg,
                                    related,
                                );
                            }
                            None => self.proxy_ref(r, obj_at.get(&(0, e)).map(|&o| &objs[o])),
                        }
                    }
                }
                Found::None => {
                    let placed = (r.kind == Kind::Object && r.value.contains('/'))
                        .then(|| {
                            insts.iter().enumerate().find_map(|(ii, inst)| {
                                (inst.unit == u).then(|| obj_of(ii, &r.value)).flatten()
                            })
                        })
                        .flatten()
                        // A proxy names a placed object by its key in the scene, too.
                        .or_else(|| {
                            (Some(r.at.file) == proxies_f && r.value.contains('/'))
                                .then(|| objs.iter().position(|o| o.inst != 0 && o.key == r.value))
                                .flatten()
                        });
                    match placed {
                        Some(o) => {
                            if Some(r.at.file) == proxies_f {
                                self.proxy_ref(r, Some(&objs[o]));
                            }
                        }
                        None => {
                            let inside = if u == 0 && !alone {
                                String::new()
                            } else {
                                format!(
                                    " in `{}` (a prefab resolves inside itself)",
                                    units[u].rel.display()
                                )
                            };
                            let msg = format!(
                                "no {} has the id or name \"{}\"{inside}",
                                r.kind.word(),
                                r.value
                            );
                            self.ctx.err(&r.at, Code::BadReference, &r.key, msg);
                        }
                    }
                }
                Found::Many(all) => {
                    let related = all
                        .iter()
                        .map(|e| self.ctx.loc(&entries[*e].name_at))
                        .collect();
                    let msg = format!(
                        "\"{}\" names {} {}s; refer to one by its id",
                        r.value,
                        all.len(),
                        r.kind.word()
                    );
                    self.ctx.report(
                        Severity::Error,
                        &r.at,
                        Code::AmbiguousReference,
                        &r.key,
                        msg,
                        related,
                    );
                }
            }
        }
        // Placement ids named by `prefab` or a palette.
        for r in std::mem::take(&mut self.ctx.placement_refs) {
            let Some(u) = units.iter().position(|un| un.holds(r.at.file)) else {
                continue;
            };
            let ok = match units[u].index.find(Kind::Object, &r.value) {
                Found::One(e) => {
                    entries[e].id.as_deref() == Some(r.value.as_str())
                        && tbl_of.get(&e).is_some_and(|t| t.has("prefab"))
                }
                _ => false,
            };
            if !ok {
                self.ctx.err(
                    &r.at,
                    Code::BadReference,
                    &r.key,
                    format!(
                        "\"{}\" is the id of no prefab placement of this scene",
                        r.value
                    ),
                );
            }
        }

        self.parent_cycles(&mut objs);
        // Movers, sounds: every instance's, overrides applied.
        let mut movers: Vec<(usize, usize, String, Tbl)> = Vec::new();
        let mut sounds: Vec<(usize, usize, String, Tbl)> = Vec::new();
        // Each mover's override of its objects, where one set them.
        let mut mover_sets: Vec<Option<SetBy>> = Vec::new();
        for (ii, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (kind, out) in [(Kind::Mover, &mut movers), (Kind::Sound, &mut sounds)] {
                    for (dkey, _, t) in entry_tables(&docs, f, kind) {
                        let e = entry_at.get(&(f, dkey.as_str())).copied();
                        let t = tbl_at(eff(ii, e)).unwrap_or(t);
                        if kind == Kind::Mover {
                            let set = e.and_then(|e| inst.set_at.get(&(e, "objects".to_string())));
                            mover_sets.push(set.cloned());
                        }
                        out.push((ii, f, dkey, t));
                    }
                }
            }
        }
        self.movers(&movers, &mover_sets, &mut objs, &obj_of);
        derive_dynamic(&mut objs);
        self.bodies(&objs, &insts);
        self.sounds(&sounds, &objs, &obj_of);

        // Rigs: every instance's, overrides applied, each target rewritten to its object's key.
        let mut rigs = Vec::new();
        for (ii, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (dkey, name, t0) in entry_tables(&docs, f, Kind::Rig) {
                    let e = entry_at.get(&(f, dkey.as_str())).copied();
                    let t = tbl_at(eff(ii, e)).unwrap_or(t0);
                    let id = match (&inst.id_prefix, t0.str("id")) {
                        (Some(p), Some(id)) => Some(format!("{p}{id}")),
                        _ => None,
                    };
                    let target = t.str("target").map(|v| match obj_of(ii, v) {
                        Some(o) => objs[o].key.clone(),
                        None => v.to_string(),
                    });
                    let at_loc = self.ctx.loc(&head_of(&self.ctx, f, t0));
                    rigs.push(rig(
                        t,
                        format!("{}{name}", inst.key_prefix),
                        id,
                        target,
                        at_loc,
                    ));
                }
            }
        }
        // Proxies: each object rewritten to its key in the scene (by id, a placed object's
        // namespaced id, its name, or a placed object's key).
        let proxy_key = |v: &str| -> String {
            if let Found::One(e) = units[0].index.find(Kind::Object, v) {
                if let Some(&o) = obj_at.get(&(0, e)) {
                    return objs[o].key.clone();
                }
            }
            placed_ids
                .get(v)
                .map(|&o| objs[o].key.clone())
                .unwrap_or_else(|| v.to_string())
        };
        let proxies = match proxies_f {
            Some(pf) => self.proxies_of(&docs, pf, &proxy_key),
            None => Vec::new(),
        };

        let m = Model {
            layers,
            rigs,
            proxies,
            docs: &docs,
            units: &units,
            insts: &insts,
            objs: &objs,
            entry_at: &entry_at,
            arena: &arena,
        };
        self.model(&m, scene_f)
    }

    /// The `[[proxy]]` entries of proxies file `pf`, each object rewritten by `key_of`.
    fn proxies_of(
        &self,
        docs: &[Option<ImDocument<String>>],
        pf: usize,
        key_of: &dyn Fn(&str) -> String,
    ) -> Vec<Proxy> {
        let mut out = Vec::new();
        for (place, (_, _, t)) in entry_tables(docs, pf, Kind::Proxy).into_iter().enumerate() {
            let v = View {
                t,
                s: &schema::PROXY,
            };
            let hull = v.str("kind") == Some("hull");
            let corner = |i: f64| i.clamp(0.0, u32::MAX as f64) as u32;
            let list = |name: &str| -> Vec<Vec<f64>> {
                t.get(name)
                    .map(|n| n.elems().iter().filter_map(|e| e.nums()).collect())
                    .unwrap_or_default()
            };
            out.push(Proxy {
                key: place,
                id: v.string("id"),
                object: t.str("object").map(key_of).unwrap_or_default(),
                kind: if hull {
                    ProxyKind::Hull
                } else {
                    ProxyKind::Box
                },
                at: v.v3("at"),
                rotate: v.v3("rotate"),
                size: v.v3("size"),
                points: list("points")
                    .iter()
                    .filter(|p| p.len() == 3)
                    .map(|p| [finite(p[0]), finite(p[1]), finite(p[2])])
                    .collect(),
                // Corners were checked to be places in `points`; the clamp only keeps a
                // refused value (NaN reads as 0) from wrapping.
                triangles: list("triangles")
                    .iter()
                    .filter(|c| c.len() == 3)
                    .map(|c| [corner(c[0]), corner(c[1]), corner(c[2])])
                    .collect(),
                at_loc: self.ctx.loc(&head_of(&self.ctx, pf, t)),
            });
        }
        out
    }

    /// project.toml's `[layers]` as lists; empty when it is absent or can't be read (then
    /// the layer names went unchecked, as the spec says).
    fn layer_lists(&self, docs: &[Option<ImDocument<String>>]) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        if !self.ctx.check_layers || self.ctx.layers.is_none() {
            return out;
        }
        let proj = Path::new("project.toml");
        let Some(f) = self.ctx.srcs.iter().position(|s| s.rel == proj) else {
            return out;
        };
        let Some(t) = doc_table(docs, f)
            .and_then(|t| t.get("layers"))
            .and_then(|n| n.tbl())
        else {
            return out;
        };
        for (name, _, v) in t.entries() {
            let meets = v
                .elems()
                .iter()
                .filter_map(|e| e.str().map(String::from))
                .collect();
            out.insert(name.to_string(), meets);
        }
        out
    }

    /// A proxy's object: static, with a mesh.
    fn proxy_ref(&mut self, r: &RefUse, o: Option<&Obj>) {
        let Some(o) = o else { return };
        if o.placement || o.dynamic {
            let why = if o.placement {
                "a prefab placement"
            } else {
                "dynamic"
            };
            self.ctx.err(
                &r.at,
                Code::BadReference,
                &r.key,
                format!(
                    "object \"{}\" is {why}; a proxy stands in for a static object with a mesh",
                    o.key
                ),
            );
        }
    }

    /// The overrides a placement's `[object.set]` writes, split into entry and key path.
    fn parse_set(&mut self, f: usize, t: Tbl, dkey: &str) -> Vec<Ovr> {
        let mut out = Vec::new();
        let Some(set) = t.get("set").and_then(|s| s.tbl()) else {
            return out;
        };
        let head = head_of(&self.ctx, f, t);
        for (name, ks, node) in set.entries() {
            let kat = ks
                .map(|span| Sp { file: f, span })
                .unwrap_or_else(|| head.clone());
            let at = node_span(&node)
                .map(|span| Sp { file: f, span })
                .unwrap_or_else(|| kat.clone());
            let key = format!("{dkey}.set.\"{name}\"");
            let value = match node {
                Node::Val(v) => v.clone(),
                Node::Inline(t) => toml_edit::Value::InlineTable(t.clone()),
                _ => {
                    self.ctx.err(
                        &kat,
                        Code::BadOverride,
                        &key,
                        format!(
                            "write the override as one quoted key: \"{name}.<key path>\" = value"
                        ),
                    );
                    continue;
                }
            };
            let split = name
                .split_once('.')
                .filter(|(e, p)| !e.is_empty() && p.split('.').all(|s| !s.is_empty()));
            let Some((entry, path)) = split else {
                self.ctx.err(
                    &kat,
                    Code::BadOverride,
                    &key,
                    format!("an override's key is \"<entry>.<key path>\"; \"{name}\" is not"),
                );
                continue;
            };
            out.push(Ovr {
                entry: entry.split('/').map(String::from).collect(),
                path: path.split('.').map(String::from).collect(),
                value,
                at,
                kat,
                key,
            });
        }
        out
    }

    /// Checks one override against the prefab it reaches and applies it to this placement's
    /// copy of the entry; one for a nested placement's inner entry goes on to that placement.
    #[allow(clippy::too_many_arguments)]
    fn apply_override(
        &mut self,
        unit: &Unit,
        entries: &[Entry],
        tbl_of: &HashMap<usize, Tbl>,
        inst: &mut Inst,
        arena: &mut Vec<toml_edit::Item>,
        forwarded: &mut HashMap<usize, Vec<Ovr>>,
        mut o: Ovr,
    ) {
        let first = o.entry[0].clone();
        // A name that entries of two kinds share (an object named as its mesh) picks the
        // entry whose table takes the override: a placement for an inner entry's path, else
        // the kind that takes the key path's first key.
        let takes = |e: usize| -> bool {
            if o.entry.len() > 1 {
                entries[e].kind == Kind::Object && tbl_of.get(&e).is_some_and(|t| t.has("prefab"))
            } else {
                kind_schema(entries[e].kind).key(&o.path[0]).is_some()
            }
        };
        let found = match unit.index.find_any(&first) {
            Found::Many(all) => {
                let fit: Vec<usize> = all.iter().copied().filter(|&e| takes(e)).collect();
                match fit.len() {
                    1 => Found::One(fit[0]),
                    0 => Found::Many(all),
                    _ => Found::Many(fit),
                }
            }
            f => f,
        };
        let e = match found {
            Found::One(e) => e,
            Found::None => {
                let msg = format!(
                    "no entry of `{}` has the id or name \"{first}\"",
                    unit.rel.display()
                );
                self.ctx.err(&o.kat, Code::BadOverride, &o.key, msg);
                return;
            }
            Found::Many(all) => {
                let related = all
                    .iter()
                    .map(|e| self.ctx.loc(&entries[*e].name_at))
                    .collect();
                let msg = format!(
                    "\"{first}\" names {} entries of `{}`; name the entry by its id",
                    all.len(),
                    unit.rel.display()
                );
                self.ctx.report(
                    Severity::Error,
                    &o.kat,
                    Code::BadOverride,
                    &o.key,
                    msg,
                    related,
                );
                return;
            }
        };
        let Some(&orig) = tbl_of.get(&e) else { return };
        let placement = entries[e].kind == Kind::Object && orig.has("prefab");
        if o.entry.len() > 1 {
            if !placement {
                let msg = format!("\"{first}\" is no prefab placement: only a placement's inner entries are written \"<placement>/<inner>\"");
                self.ctx.err(&o.kat, Code::BadOverride, &o.key, msg);
                return;
            }
            o.entry.remove(0);
            forwarded.entry(e).or_default().push(o);
            return;
        }
        let head = o.path[0].as_str();
        if matches!(head, "id" | "name" | "prefab" | "set") {
            let msg = format!("`{head}` can't be overridden: an override replaces values, and `{head}` is what the entry is");
            self.ctx.err(&o.kat, Code::BadOverride, &o.key, msg);
            return;
        }
        if placement && !schema::PLACEMENT_KEYS.contains(&head) {
            let msg = format!(
                "\"{first}\" is a placement, which takes only {}",
                schema::PLACEMENT_KEYS.join(", ")
            );
            self.ctx.err(&o.kat, Code::BadOverride, &o.key, msg);
            return;
        }
        let (ty, range) = match override_ty(kind_schema(entries[e].kind), &o.path) {
            Ok(x) => x,
            Err(msg) => {
                let msg = format!("{} \"{first}\": {msg}", entries[e].kind.word());
                self.ctx.err(&o.kat, Code::BadOverride, &o.key, msg);
                return;
            }
        };
        // The value is checked as the prefab's own; what the check finds is the override's.
        let (d0, r0, p0) = (
            self.ctx.diags.len(),
            self.ctx.refs.len(),
            self.ctx.present.len(),
        );
        let (pr0, k0, e0) = (
            self.ctx.placement_refs.len(),
            self.ctx.ok_paths.len(),
            self.ctx.entries.len(),
        );
        let value = o.value.clone();
        // The key's schema path, as the walk names the same key written in the file: an
        // override is then noted exactly as that key would be.
        let spath = override_spath(entries[e].kind, &o.path);
        self.ctx.value(
            o.at.file,
            Node::of_value(&value),
            ty,
            range,
            &o.key,
            &spath,
            &o.at,
        );
        let found = self.ctx.diags.split_off(d0);
        let refs = self.ctx.refs.split_off(r0);
        let mut present = self.ctx.present.split_off(p0);
        self.ctx.placement_refs.truncate(pr0);
        self.ctx.ok_paths.truncate(k0);
        self.ctx.entries.truncate(e0);
        let mut ok = true;
        for mut d in found {
            if d.is_error() {
                ok = false;
                d.code = Code::BadOverride.as_str();
                self.ctx.diags.push(d);
            }
        }
        for r in refs {
            if !matches!(unit.index.find(r.kind, &r.value), Found::One(_)) {
                ok = false;
                let msg = format!(
                    "no {} of `{}` has the id or name \"{}\": an override's reference resolves inside the prefab",
                    r.kind.word(),
                    unit.rel.display(),
                    r.value
                );
                self.ctx.err(&r.at, Code::BadOverride, &o.key, msg);
            }
        }
        if !ok {
            return;
        }
        let a = match inst.owned.get(&e) {
            Some(&a) => a,
            None => {
                arena.push(owned_item(orig));
                inst.owned.insert(e, arena.len() - 1);
                arena.len() - 1
            }
        };
        if let Err(msg) = set_path(&mut arena[a], &o.path, value) {
            self.ctx.err(&o.kat, Code::BadOverride, &o.key, msg);
            return;
        }
        let default =
            schema::use_of(&spath).is_some_and(|(k, _)| is_default(&Node::of_value(&o.value), k));
        present.insert(
            0,
            Presence {
                path: spath,
                key: o.key.clone(),
                at: self.ctx.loc(&o.kat),
                default,
            },
        );
        self.ctx.present.extend(present);
        inst.set_at
            .insert((e, head.to_string()), (o.kat.clone(), o.key.clone()));
        if entries[e].kind == Kind::Material {
            if let Some(n) = &entries[e].name {
                inst.mats
                    .insert(n.clone(), (format!("{}{n}", inst.key_prefix), e));
            }
        }
    }

    /// Ids are unique across every file read.
    fn ids(&mut self, entries: &[Entry]) {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            let Some(id) = e.id.as_deref().filter(|id| is_id(id)) else {
                continue;
            };
            match ids.get(id) {
                Some(&first) => {
                    let loc = self.ctx.loc(&entries[first].id_at);
                    let msg = format!(
                        "id \"{id}\" is used twice: also by {} at {}:{}:{}",
                        entries[first].key,
                        loc.file.display(),
                        loc.line,
                        loc.column
                    );
                    self.ctx.report(
                        Severity::Error,
                        &e.id_at,
                        Code::DuplicateId,
                        &format!("{}.id", e.key),
                        msg,
                        vec![loc],
                    );
                }
                None => {
                    ids.insert(id, i);
                }
            }
        }
    }

    /// Names are unique per kind across a unit's files (materials: see `material_names`). The
    /// second in merge order is the one refused.
    fn names(&mut self, entries: &[Entry], un: &Unit) {
        let mut names: HashMap<(Kind, &str), usize> = HashMap::new();
        let mut order: Vec<usize> = (0..entries.len())
            .filter(|&i| {
                let e = &entries[i];
                !matches!(e.kind, Kind::Proxy | Kind::Material)
                    && un.files.contains(&e.name_at.file)
            })
            .collect();
        // Stable: entries of one file stay in the order written.
        order.sort_by_key(|&i| un.files.iter().position(|&f| f == entries[i].name_at.file));
        for i in order {
            let e = &entries[i];
            let Some(name) = e.name.as_deref() else {
                continue;
            };
            match names.get(&(e.kind, name)) {
                Some(&first) => {
                    let loc = self.ctx.loc(&entries[first].name_at);
                    let msg = format!(
                        "{} name \"{name}\" is used twice; the first at {}:{}",
                        e.kind.word(),
                        loc.file.display(),
                        loc.line
                    );
                    let key = if matches!(
                        e.kind,
                        Kind::Mesh | Kind::Content | Kind::Text | Kind::Sound
                    ) {
                        e.key.clone()
                    } else {
                        format!("{}.name", e.key)
                    };
                    self.ctx.report(
                        Severity::Error,
                        &e.name_at,
                        Code::DuplicateName,
                        &key,
                        msg,
                        vec![loc],
                    );
                }
                None => {
                    names.insert((e.kind, name), i);
                }
            }
        }
    }

    /// A material name is in one library of everything the scene reads: the scene's, its
    /// includes' and its placed prefabs' materials share `Scene::materials`.
    fn material_names(&mut self, entries: &[Entry]) {
        let mut names: HashMap<&str, usize> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            if e.kind != Kind::Material {
                continue;
            }
            let Some(name) = e.name.as_deref() else {
                continue;
            };
            match names.get(name) {
                Some(&first) => {
                    let loc = self.ctx.loc(&entries[first].name_at);
                    let here = self.ctx.loc(&e.name_at);
                    let msg = format!(
                        "material \"{name}\" is in two libraries: {} and {}",
                        loc.file.display(),
                        here.file.display()
                    );
                    self.ctx.report(
                        Severity::Error,
                        &e.name_at,
                        Code::DuplicateName,
                        &e.key,
                        msg,
                        vec![loc],
                    );
                }
                None => {
                    names.insert(name, i);
                }
            }
        }
    }

    /// fallback and the one-file tables are held by one file of a scene and its includes.
    fn held_twice(&mut self, docs: &[Option<ImDocument<String>>], un: &Unit) {
        for name in ONE_FILE {
            let mut first: Option<Sp> = None;
            for &f in &un.files {
                let Some(top) = doc_table(docs, f) else {
                    continue;
                };
                if !top.has(name) {
                    continue;
                }
                let at = key_sp(
                    f,
                    top,
                    name,
                    &Sp {
                        file: f,
                        span: 0..0,
                    },
                );
                match &first {
                    None => first = Some(at),
                    Some(fst) => {
                        let loc = self.ctx.loc(fst);
                        let what = if name == "fallback" {
                            "fallback".to_string()
                        } else {
                            format!("[{name}]")
                        };
                        let msg = format!(
                            "{what} is held by two files of the scene: {} holds it first",
                            loc.file.display()
                        );
                        self.ctx.report(
                            Severity::Error,
                            &at,
                            Code::HeldTwice,
                            name,
                            msg,
                            vec![loc],
                        );
                    }
                }
            }
        }
    }

    fn parent_cycles(&mut self, objs: &mut [Obj]) {
        // 0: unseen, 1: on the chain being followed, 2: done. Iterative: no recursion on input.
        let mut state = vec![0u8; objs.len()];
        for start in 0..objs.len() {
            let mut chain = Vec::new();
            let mut cur = Some(start);
            while let Some(c) = cur {
                match state[c] {
                    0 => {
                        state[c] = 1;
                        chain.push(c);
                        cur = objs[c].parent;
                    }
                    1 => {
                        let pos = chain.iter().position(|x| *x == c).unwrap_or(0);
                        let cycle: Vec<usize> = chain[pos..].to_vec();
                        let first = *cycle.iter().min().unwrap_or(&c);
                        let names: Vec<&str> =
                            cycle.iter().map(|o| objs[*o].key.as_str()).collect();
                        let at = parent_sp(&objs[first]);
                        let related = cycle
                            .iter()
                            .filter(|o| **o != first)
                            .map(|o| self.ctx.loc(&parent_sp(&objs[*o])))
                            .collect();
                        let msg = format!(
                            "objects' parents form a cycle: {} → {}",
                            names.join(" → "),
                            names[0]
                        );
                        self.ctx.report(
                            Severity::Error,
                            &at,
                            Code::ParentCycle,
                            &format!("{}.parent", objs[first].dkey),
                            msg,
                            related,
                        );
                        // Break the cycle so that later walks up the parents end.
                        for o in &cycle {
                            objs[*o].parent = None;
                        }
                        break;
                    }
                    _ => break,
                }
            }
            for c in chain {
                state[c] = 2;
            }
        }
    }

    #[allow(clippy::type_complexity)]
    fn movers(
        &mut self,
        movers: &[(usize, usize, String, Tbl)],
        sets: &[Option<SetBy>],
        objs: &mut [Obj],
        obj_of: &dyn Fn(usize, &str) -> Option<usize>,
    ) {
        for ((inst, f, mkey, m), set) in movers.iter().zip(sets) {
            let mclip = m.get("clip").map(|c| c.elems().len()).unwrap_or(0);
            for (j, e) in m
                .get("objects")
                .map(|o| o.elems())
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let Some(o) = e.str().and_then(|v| obj_of(*inst, v)) else {
                    continue;
                };
                let at = Sp {
                    file: *f,
                    span: node_span(e).unwrap_or(0..0),
                };
                let key = format!("{mkey}.objects.{j}");
                if let Some((other, (first, _), _)) = &objs[o].mover {
                    let loc = self.ctx.loc(first);
                    let msg = format!("object \"{}\" is already moved by {other}; an object is moved by one mover at most", objs[o].key);
                    self.ctx
                        .report(Severity::Error, &at, Code::BadValue, &key, msg, vec![loc]);
                    continue;
                }
                let oclip = objs[o].t.get("clip").map(|c| c.elems().len()).unwrap_or(0);
                if mclip > 0 && mclip + oclip > 2 {
                    let msg = format!("object \"{}\" has {oclip} clip planes and this mover {mclip}: at most two together", objs[o].key);
                    self.ctx.err(&at, Code::BadValue, &key, msg);
                }
                objs[o].mover = Some((mkey.clone(), (at, key), set.clone()));
            }
        }
    }

    /// A body or a character sits on a root object or under placements only, moved by no
    /// mover. Refuses one that is moved, or sits under an ordinary object or a moved
    /// placement, at the key that puts it there: an override's `[object.set]` key when an
    /// override does (bad-override: a mover's `objects`, a `parent` on the way up, or the body
    /// itself); else, when the mover's `objects` entry or the `parent` that makes the chain is
    /// written in another file than the body (a scene misplacing a prefab's body), that key
    /// (bad-value); else the body (bad-value). The body and the object or placement are in
    /// `related`.
    fn bodies(&mut self, objs: &[Obj], insts: &[Inst]) {
        // The override that set `key` of object `o`, where one did.
        let set_of = |o: &Obj, key: &str| -> Option<SetBy> {
            let e = o.entry?;
            insts
                .get(o.inst)?
                .set_at
                .get(&(e, key.to_string()))
                .cloned()
        };
        for o in objs {
            for what in ["body", "character"] {
                if !o.t.has(what) {
                    continue;
                }
                let at = key_sp(o.f, o.t, what, &o.head);
                let key = format!("{}.{what}", o.dkey);
                let own_set = set_of(o, what);
                let body_loc = self.ctx.loc(&o.head);
                if let Some((m, (mat, mkey), mset)) = &o.mover {
                    let msg = format!("a {what} is moved by the simulation; {m} moves this object");
                    match mset.clone().or(own_set) {
                        Some((kat, okey)) => self.ctx.report(
                            Severity::Error,
                            &kat,
                            Code::BadOverride,
                            &okey,
                            format!("{msg} (an override puts it there)"),
                            vec![body_loc],
                        ),
                        None if mat.file != o.f => self.ctx.report(
                            Severity::Error,
                            mat,
                            Code::BadValue,
                            mkey,
                            format!("{msg}, which is written in another file"),
                            vec![body_loc],
                        ),
                        None => self.ctx.err(&at, Code::BadValue, &key, msg),
                    }
                    continue;
                }
                let mut cur = o.parent;
                // The first `parent` on the way up that an override set.
                let mut link = set_of(o, "parent");
                // The object whose `parent` names the one being looked at.
                let mut child = o;
                let mut hops = 0;
                while let Some(p) = cur {
                    hops += 1;
                    if hops > objs.len() {
                        break;
                    }
                    let po = &objs[p];
                    let found = if !po.placement {
                        let msg = format!("a {what} sits on a root object or under prefab placements; \"{}\" is an ordinary object", po.key);
                        Some((msg, None, None))
                    } else {
                        po.mover.as_ref().map(|(m, mplace, mset)| {
                            let msg = format!(
                                "a {what} may not sit under a moved placement; {m} moves \"{}\"",
                                po.key
                            );
                            (msg, mset.clone(), Some(mplace.clone()))
                        })
                    };
                    if let Some((msg, mset, mplace)) = found {
                        let loc = self.ctx.loc(&po.head);
                        // Without an override, the written key that makes the fault: the
                        // mover's entry naming the placement, or the `parent` naming `po`.
                        let (wat, wkey) = mplace.unwrap_or_else(|| {
                            (
                                key_sp(child.f, child.t, "parent", &child.head),
                                format!("{}.parent", child.dkey),
                            )
                        });
                        match mset.or(link).or(own_set) {
                            Some((kat, okey)) => self.ctx.report(
                                Severity::Error,
                                &kat,
                                Code::BadOverride,
                                &okey,
                                format!("{msg} (an override puts it there)"),
                                vec![body_loc, loc],
                            ),
                            None if wat.file != o.f => self.ctx.report(
                                Severity::Error,
                                &wat,
                                Code::BadValue,
                                &wkey,
                                format!("{msg}; this puts \"{}\" there", o.key),
                                vec![body_loc, loc],
                            ),
                            None => self.ctx.report(
                                Severity::Error,
                                &at,
                                Code::BadValue,
                                &key,
                                msg,
                                vec![loc],
                            ),
                        }
                        break;
                    }
                    link = link.or_else(|| set_of(po, "parent"));
                    child = po;
                    cur = po.parent;
                }
            }
        }
    }

    fn sounds(
        &mut self,
        sounds: &[(usize, usize, String, Tbl)],
        objs: &[Obj],
        obj_of: &dyn Fn(usize, &str) -> Option<usize>,
    ) {
        let mut looping: Option<Sp> = None;
        for (inst, f, skey, s) in sounds {
            let head = head_of(&self.ctx, *f, *s);
            if s.bool("loop") == Some(true) {
                let at = val_sp(*f, *s, "loop", &head);
                match &looping {
                    Some(first) => {
                        let loc = self.ctx.loc(first);
                        self.ctx.report(
                            Severity::Error,
                            &at,
                            Code::BadValue,
                            &format!("{skey}.loop"),
                            "a second looping sound: a scene has one at most".into(),
                            vec![loc],
                        );
                    }
                    None => looping = Some(at),
                }
            }
            if let Some(o) = s.str("object").and_then(|v| obj_of(*inst, v)) {
                if !objs[o].t.has("body") {
                    let at = val_sp(*f, *s, "object", &head);
                    let msg = format!(
                        "a hit sound's object has a body; \"{}\" has no [object.body]",
                        objs[o].key
                    );
                    self.ctx
                        .err(&at, Code::BadReference, &format!("{skey}.object"), msg);
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // the model

    fn model(&self, m: &Model, scene_f: usize) -> Scene {
        let loc = |f: usize, t: Tbl| self.ctx.loc(&head_of(&self.ctx, f, t));
        let (units, insts, objs) = (m.units, m.insts, m.objs);
        let mut scene = Scene {
            root: self.ctx.root.clone(),
            file: self
                .ctx
                .srcs
                .get(scene_f)
                .map(|s| s.rel.clone())
                .unwrap_or_default(),
            files: Vec::new(),
            present: self.ctx.present.clone(),
            ..Scene::default()
        };
        scene.tiles = m.layers.clone();
        scene.rigs = m.rigs.clone();
        scene.proxies = m.proxies.clone();
        scene.layers = self.layer_lists(m.docs);
        for (i, d) in m.docs.iter().enumerate() {
            if d.is_some() {
                scene.files.push(self.ctx.srcs[i].rel.clone());
            }
        }
        let refkey = |u: usize, kind: Kind, v: &str| -> String {
            match units[u].index.find(kind, v) {
                Found::One(e) => self.ctx.entries[e]
                    .name
                    .clone()
                    .unwrap_or_else(|| v.to_string()),
                _ => v.to_string(),
            }
        };
        // A material reference from an instance: its key, or this placement's overridden copy.
        let mat = |i: usize, v: &str| -> String {
            let k = refkey(insts[i].unit, Kind::Material, v);
            match insts[i].mats.get(&k) {
                Some((placed, _)) => placed.clone(),
                None => k,
            }
        };
        let group_key = |i: usize| insts[i].group.map(|g| objs[g].key.clone());
        let id_of = |i: usize, t: Tbl| -> Option<String> {
            match (&insts[i].id_prefix, t.str("id")) {
                (Some(p), Some(id)) => Some(format!("{p}{id}")),
                _ => None,
            }
        };

        for (i, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Mesh) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::MESH,
                    };
                    let mut nodes = Vec::new();
                    if let Some(ns) = v.node("nodes").and_then(|n| n.tbl()) {
                        for (nname, _, nn) in ns.entries() {
                            let Some(nt) = nn.tbl() else { continue };
                            let nv = View {
                                t: nt,
                                s: &schema::NODE,
                            };
                            nodes.push(NodeOverride {
                                node: nname.to_string(),
                                material: nv.string("material").map(|x| mat(i, &x)),
                                hidden: nv.bool("hidden"),
                                shadow: nv.string("shadow").map(|x| shadow(&x)),
                                two_sided: nv.opt_bool("two_sided"),
                                at: loc(f, nt),
                            });
                        }
                    }
                    scene.meshes.push(Mesh {
                        key: format!("{}{name}", inst.key_prefix),
                        id: id_of(i, t0),
                        file: v.path("file"),
                        node: v.string("node"),
                        nodes,
                        at: loc(f, t0),
                    });
                }
            }
        }

        for (place, o) in objs.iter().enumerate() {
            let v = View {
                t: o.t,
                s: &schema::OBJECT,
            };
            let scale = match v.node("scale") {
                Some(n) => match (n.num(), n.nums()) {
                    (Some(s), _) => [finite(s); 3],
                    (_, Some(s)) if s.len() == 3 => [finite(s[0]), finite(s[1]), finite(s[2])],
                    _ => [1.0; 3],
                },
                None => [1.0; 3],
            };
            let parent = o.parent.map(|p| objs[p].key.clone());
            let hidden = v.bool("hidden") || insts[o.inst].hidden;
            if o.placement {
                scene.groups.push(Group {
                    key: o.key.clone(),
                    id: o.id.clone(),
                    prefab: o.prefab.clone().unwrap_or_default(),
                    parent,
                    at: v.v3("at"),
                    rotate: v.v3("rotate"),
                    scale,
                    hidden,
                    dynamic: o.dynamic,
                    at_loc: self.ctx.loc(&o.head),
                });
                continue;
            }
            let materials = v
                .node("materials")
                .and_then(|x| x.tbl())
                .map(|x| {
                    x.entries()
                        .iter()
                        .filter_map(|(n, _, v)| v.str().map(|s| (n.to_string(), mat(o.inst, s))))
                        .collect()
                })
                .unwrap_or_default();
            let clip = v
                .node("clip")
                .map(|c| {
                    c.elems()
                        .iter()
                        .filter_map(|p| p.nums())
                        .filter(|p| p.len() == 4)
                        .map(|p| [finite(p[0]), finite(p[1]), finite(p[2]), finite(p[3])])
                        .collect()
                })
                .unwrap_or_default();
            let prefix = &insts[o.inst].key_prefix;
            scene.objects.push(Object {
                key: o.key.clone(),
                id: o.id.clone(),
                mesh: o
                    .t
                    .str("mesh")
                    .map(|x| format!("{prefix}{}", refkey(insts[o.inst].unit, Kind::Mesh, x)))
                    .unwrap_or_default(),
                parent,
                at: v.v3("at"),
                rotate: v.v3("rotate"),
                scale,
                material: v.string("material").map(|x| mat(o.inst, &x)),
                materials,
                shadow: shadow(v.str("shadow").unwrap_or("cast")),
                two_sided: v.bool("two_sided"),
                hidden,
                clip,
                alpha_cutoff: v.f32("alpha_cutoff"),
                face_camera: v.bool("face_camera"),
                dynamic: o.dynamic,
                pick: o
                    .t
                    .num("pick")
                    .map(|p| p.clamp(0.0, u32::MAX as f64) as u32)
                    .unwrap_or((place as u32).saturating_add(1)),
                at_loc: self.ctx.loc(&o.head),
            });
        }

        // Each library once, in the order first named; then each placement's overridden copies.
        let mut libs: Vec<usize> = Vec::new();
        for un in units {
            for &l in &un.libs {
                if !libs.contains(&l) {
                    libs.push(l);
                }
            }
        }
        for &lf in &libs {
            for (_, name, t) in entry_tables(m.docs, lf, Kind::Material) {
                scene
                    .materials
                    .push(material(t, name, self.ctx.srcs[lf].rel.clone(), loc(lf, t)));
            }
        }
        for (i, inst) in insts.iter().enumerate() {
            let mut copies: Vec<(&String, &(String, usize))> = inst.mats.iter().collect();
            copies.sort();
            for (_, (placed, e)) in copies {
                let ent = &self.ctx.entries[*e];
                let f = ent.name_at.file;
                let Some(t) = m.eff(i, f, &ent.key) else {
                    continue;
                };
                let at = self.ctx.loc(&ent.name_at);
                scene.materials.push(material(
                    t,
                    placed.clone(),
                    self.ctx.srcs[f].rel.clone(),
                    at,
                ));
            }
        }

        for (i, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Light) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::LIGHT,
                    };
                    scene.lights.push(Light {
                        key: format!("{}{name}", inst.key_prefix),
                        id: id_of(i, t0),
                        position: v.v3("position"),
                        parent: group_key(i),
                        color: v.v3("color"),
                        intensity: v.f32("intensity"),
                        radius: v.f32("radius"),
                        range: v.f32("range"),
                        shadow: v.bool("shadow"),
                    });
                }
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Mover) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::MOVER,
                    };
                    let objects = v
                        .node("objects")
                        .map(|n| n.elems())
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|o| o.str())
                        .map(|o| {
                            format!("{}{}", inst.key_prefix, refkey(inst.unit, Kind::Object, o))
                        })
                        .collect();
                    let clip = v
                        .node("clip")
                        .map(|c| {
                            c.elems()
                                .iter()
                                .filter_map(|p| p.nums())
                                .filter(|p| p.len() == 4)
                                .map(|p| [finite(p[0]), finite(p[1]), finite(p[2]), finite(p[3])])
                                .collect()
                        })
                        .unwrap_or_default();
                    scene.movers.push(Mover {
                        key: format!("{}{name}", inst.key_prefix),
                        objects,
                        kind: if v.str("kind") == Some("slide") {
                            MoverKind::Slide
                        } else {
                            MoverKind::Turn
                        },
                        pivot: v.v3("pivot"),
                        axis: v.v3("axis"),
                        travel: v.v2("travel"),
                        period: v.f32("period"),
                        motion: match v.str("motion") {
                            Some("loop") => Motion::Loop,
                            Some("once") => Motion::Once,
                            _ => Motion::Swing,
                        },
                        offset: v.f32("offset"),
                        clip,
                    });
                }
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Emitter) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::EMITTER,
                    };
                    scene.emitters.push(Emitter {
                        key: format!("{}{name}", inst.key_prefix),
                        id: id_of(i, t0),
                        position: v.v3("position"),
                        parent: group_key(i),
                        radius: v.f32("radius"),
                        color: v.v3("color"),
                        intensity: v.f32("intensity"),
                    });
                }
            }
        }

        // The one-file tables: from the file of the scene and its includes that holds each.
        let one = |name: &str| -> Option<Tbl> {
            units[0]
                .files
                .iter()
                .find_map(|&f| doc_table(m.docs, f).and_then(|t| t.get(name)))
                .and_then(|n| n.tbl())
        };
        scene.fallback = units[0]
            .files
            .iter()
            .find_map(|&f| doc_table(m.docs, f).and_then(|t| t.str("fallback")))
            .map(|x| refkey(0, Kind::Material, x));

        if let Some(t) = one("camera") {
            let v = View {
                t,
                s: &schema::CAMERA,
            };
            let focal = v.opt("focal");
            let sensor = v.f32("sensor");
            let fov = match (v.opt("fov"), focal) {
                (Some(f), _) => f,
                // Vertical fov of a sensor `sensor` mm high behind a lens of `f` mm.
                (None, Some(f)) => (2.0 * (sensor / (2.0 * f)).atan()).to_degrees(),
                (None, None) => v.f32("fov"),
            };
            scene.camera = Some(Camera {
                projection: if v.str("projection") == Some("orthographic") {
                    Projection::Orthographic
                } else {
                    Projection::Perspective
                },
                at: v.v3("at"),
                look_at: v.v3("look_at"),
                up: v.v3("up"),
                fov,
                focal,
                sensor,
                height: v.opt("height"),
                near: v.f32("near"),
                far: v.f32("far"),
                shift: v.v2("shift"),
                fstop: v.opt("fstop"),
                focus: v.opt("focus"),
            });
        }

        if let Some(t) = one("sun") {
            let v = View { t, s: &schema::SUN };
            let authored = v.str("model") == Some("authored");
            let reference_hour = v.f32("reference_hour");
            scene.sun = Some(Sun {
                model: if authored {
                    SunModel::Authored
                } else {
                    SunModel::Daylight
                },
                hour: v.opt("hour").unwrap_or(reference_hour),
                day: v.f32("day"),
                latitude: v.f32("latitude"),
                heading: v.f32("heading"),
                reference_hour,
                toward: if authored {
                    v.nums("toward")
                        .filter(|a| a.len() == 3)
                        .map(|a| [finite(a[0]), finite(a[1]), finite(a[2])])
                } else {
                    None
                },
                color: v.v3("color"),
                irradiance: v.opt("irradiance"),
                radius: v.f32("radius"),
            });
        }

        if let Some(t) = one("sky") {
            let v = View { t, s: &schema::SKY };
            let l = sky_layer(t, &schema::SKY);
            let kind = if v.str("kind") == Some("mix") {
                SkyKind::Mix
            } else {
                l.kind
            };
            scene.sky = Some(Sky {
                kind,
                path: l.path,
                rotation_deg: l.rotation_deg,
                intensity: l.intensity,
                turbidity: l.turbidity,
                ground_albedo: l.ground_albedo,
                ambient: l.ambient,
                prepare: l.prepare,
                room: l.room,
                layers: t
                    .get("layer")
                    .map(|n| n.tables())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|lt| sky_layer(lt, &schema::SKY_LAYER))
                    .collect(),
            });
        }

        if let Some(t) = one("trace") {
            let v = View {
                t,
                s: &schema::TRACE,
            };
            scene.trace = Some(Trace {
                transmissive_shadows: v.bool("transmissive_shadows"),
                clamp_indirect: v.f32("clamp_indirect"),
                filter_glossy: v.f32("filter_glossy"),
            });
        }

        if let Some(t) = one("plates") {
            let v = View {
                t,
                s: &schema::PLATES,
            };
            scene.plates = Some(Plates {
                dir: v.path("dir"),
                proxies: v.string("proxies").and_then(|p| normalize(&p).ok()),
                casters: match v.str("casters") {
                    Some("proxies") => Casters::Proxies,
                    Some("none") => Casters::None,
                    _ => Casters::Meshes,
                },
            });
        }
        scene
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

/// A tile layer as the model holds it: its palette's prefabs found, its filled cells listed.
fn tiles_of(t: Tbl, unit: &Unit, tbl_of: &HashMap<usize, Tbl>, at: Location) -> Tiles {
    let v = View {
        t,
        s: &schema::TILES,
    };
    let cell = match t.get("cell") {
        Some(n) => match (n.num(), n.nums()) {
            (Some(c), _) => [finite(c); 2],
            (_, Some(c)) if c.len() == 2 => [finite(c[0]), finite(c[1])],
            _ => [1.0; 2],
        },
        None => [1.0; 2],
    };
    let mut palette = Vec::new();
    if let Some(p) = t.get("palette").and_then(|p| p.tbl()) {
        for (k, _, n) in p.entries() {
            let Some(val) = n.str() else { continue };
            let path = if is_id(val) {
                match unit.index.find(Kind::Object, val) {
                    Found::One(e) => tbl_of
                        .get(&e)
                        .and_then(|pt| prefab_target(unit, tbl_of, *pt)),
                    _ => None,
                }
            } else {
                normalize(val).ok()
            };
            if let Some(path) = path {
                palette.push((k.to_string(), path));
            }
        }
    }
    let mut cells: Vec<([i64; 2], String)> = Vec::new();
    let keys: Vec<&str> = t
        .get("palette")
        .and_then(|p| p.tbl())
        .map(|p| p.entries().iter().map(|(k, _, _)| *k).collect())
        .unwrap_or_default();
    if let Some(rows) = t.get("rows") {
        let rows: Vec<&str> = rows.elems().iter().filter_map(|r| r.str()).collect();
        let n = rows.len() as i64;
        for (r, row) in rows.iter().enumerate() {
            // The last string is row j = 0.
            let j = n - 1 - r as i64;
            for (i, ch) in row.chars().enumerate() {
                let tile = ch.to_string();
                if ch != '.' && keys.contains(&tile.as_str()) {
                    cells.push(([i as i64, j], tile));
                }
            }
        }
    } else {
        for c in t.get("cells").map(|c| c.tables()).unwrap_or_default() {
            let (Some(at), Some(tile)) = (c.get("at"), c.str("tile")) else {
                continue;
            };
            let ij: Vec<i64> = at
                .elems()
                .iter()
                .filter_map(|e| match e.val() {
                    Some(toml_edit::Value::Integer(i)) => Some(*i.value()),
                    _ => None,
                })
                .collect();
            if ij.len() == 2
                && keys.contains(&tile)
                && !cells.iter().any(|(a, _)| *a == [ij[0], ij[1]])
            {
                cells.push(([ij[0], ij[1]], tile.to_string()));
            }
        }
    }
    Tiles {
        key: v.string("name").unwrap_or_default(),
        id: v.string("id"),
        cell,
        origin: v.v3("origin"),
        plane: match v.str("plane") {
            Some("xz") => Plane::Xz,
            Some("yz") => Plane::Yz,
            _ => Plane::Xy,
        },
        palette,
        cells,
        at,
    }
}

/// Where the `n`th filled cell of a layer is written (its row string, or its cells entry) and
/// its diagnostic key.
fn cell_place(f: usize, t: Tbl, dkey: &str, layer: &Tiles, n: usize, head: &Sp) -> (Sp, String) {
    let Some((at, _)) = layer.cells.get(n) else {
        return (head.clone(), dkey.to_string());
    };
    if let Some(rows) = t.get("rows") {
        let elems = rows.elems();
        let r = (elems.len() as i64 - 1 - at[1]).max(0) as usize;
        let sp = elems
            .get(r)
            .and_then(node_span)
            .map(|span| Sp { file: f, span })
            .unwrap_or_else(|| head.clone());
        return (sp, format!("{dkey}.rows.{r}"));
    }
    let cells = t.get("cells").map(|c| c.tables()).unwrap_or_default();
    let place = cells
        .iter()
        .position(|c| c.get("at").and_then(|a| a.nums()) == Some(vec![at[0] as f64, at[1] as f64]));
    match place {
        Some(p) => {
            let sp = match cells[p] {
                Tbl::Table(x) => x.span(),
                Tbl::Inline(x) => x.span(),
            }
            .map(|span| Sp { file: f, span })
            .unwrap_or_else(|| head.clone());
            (sp, format!("{dkey}.cells.{p}"))
        }
        None => (head.clone(), dkey.to_string()),
    }
}

/// `[materials.<name>]` read with its defaults.
fn material(t: Tbl, key: String, library: PathBuf, at: Location) -> Material {
    let v = View {
        t,
        s: &schema::MATERIAL,
    };
    let fam = v.str("family").unwrap_or("plain");
    Material {
        key,
        id: v.string("id"),
        library,
        family: Family::ALL
            .iter()
            .copied()
            .find(|f| f.name() == fam)
            .unwrap_or_default(),
        base: v.v3("base"),
        roughness: v.f32("roughness"),
        metalness: v.f32("metalness"),
        specular: v.f32("specular"),
        clearcoat: v.f32("clearcoat"),
        clearcoat_roughness: v.f32("clearcoat_roughness"),
        sheen: v.f32("sheen"),
        transmission: v.f32("transmission"),
        ior: v.f32("ior"),
        dispersion: v.f32("dispersion"),
        thickness: v.f32("thickness"),
        subsurface: v.f32("subsurface"),
        subsurface_tint: v.v3("subsurface_tint"),
        absorption: v.f32("absorption"),
        thin_film: v.f32("thin_film"),
        thin_film_ior: v.f32("thin_film_ior"),
        thin_film_amount: v.f32("thin_film_amount"),
        emission: v.v3("emission"),
        fresnel_power: v.f32("fresnel_power"),
        noise: v
            .tables("layers", &schema::NOISE_LAYER)
            .iter()
            .filter_map(|l| l.string("kind"))
            .collect(),
        at,
    }
}

/// Every entry kind, for mapping entries to their tables.
const ALL_KINDS: [Kind; 12] = [
    Kind::Mesh,
    Kind::Object,
    Kind::Light,
    Kind::Emitter,
    Kind::Mover,
    Kind::Content,
    Kind::Text,
    Kind::Sound,
    Kind::Rig,
    Kind::Tiles,
    Kind::Material,
    Kind::Proxy,
];

/// A kind's top-level key, whether its entries are keyed tables, and its schema.
fn kind_table(kind: Kind) -> (&'static str, bool, &'static TableSchema) {
    match kind {
        Kind::Mesh => ("mesh", true, &schema::MESH),
        Kind::Object => ("object", false, &schema::OBJECT),
        Kind::Light => ("light", false, &schema::LIGHT),
        Kind::Emitter => ("emitter", false, &schema::EMITTER),
        Kind::Mover => ("mover", false, &schema::MOVER),
        Kind::Content => ("content", true, &schema::CONTENT),
        Kind::Text => ("text", true, &schema::TEXT),
        Kind::Sound => ("sound", true, &schema::SOUND),
        Kind::Rig => ("rig", false, &schema::RIG),
        Kind::Tiles => ("tiles", false, &schema::TILES),
        Kind::Material => ("materials", true, &schema::MATERIAL),
        Kind::Proxy => ("proxy", false, &schema::PROXY),
    }
}

fn kind_schema(kind: Kind) -> &'static TableSchema {
    kind_table(kind).2
}

/// A file's entries of one kind, in the order written: (diagnostic key as the walk makes
/// it, name, table).
fn entry_tables(
    docs: &[Option<ImDocument<String>>],
    f: usize,
    kind: Kind,
) -> Vec<(String, String, Tbl<'_>)> {
    let (top_key, keyed, _) = kind_table(kind);
    let Some(node) = doc_table(docs, f).and_then(|t| t.get(top_key)) else {
        return Vec::new();
    };
    if keyed {
        let Some(t) = node.tbl() else {
            return Vec::new();
        };
        t.entries()
            .into_iter()
            .filter_map(|(name, _, n)| {
                n.tbl()
                    .map(|t| (format!("{top_key}.{name}"), name.to_string(), t))
            })
            .collect()
    } else {
        node.tables()
            .into_iter()
            .enumerate()
            .map(|(i, t)| {
                let dkey = match t.str("id") {
                    Some(id) => format!("{top_key}.{id}"),
                    None => format!("{top_key}.{i}"),
                };
                (dkey, t.str("name").unwrap_or_default().to_string(), t)
            })
            .collect()
    }
}

/// The prefab a placement places: its path, or the path of the placement whose id it names.
fn prefab_target(unit: &Unit, tbl_of: &HashMap<usize, Tbl>, t: Tbl) -> Option<PathBuf> {
    let mut v = t.str("prefab")?;
    // Each step follows one placement id; more steps than entries is a loop of ids.
    for _ in 0..=tbl_of.len() {
        if !is_id(v) {
            return normalize(v).ok();
        }
        let Found::One(e) = unit.index.find(Kind::Object, v) else {
            return None;
        };
        v = tbl_of.get(&e)?.str("prefab")?;
    }
    None
}

/// The schema path an override's key path names in an entry of `kind` (entry names and list
/// places left out: `"lamp.layers.1.frequency"` on a material is `materials.layers.frequency`).
fn override_spath(kind: Kind, path: &[String]) -> String {
    let (top, _, mut sch) = kind_table(kind);
    let mut out = vec![top.to_string()];
    let mut i = 0;
    while let Some(k) = path.get(i).and_then(|seg| sch.key(seg)) {
        out.push(k.name.to_string());
        match &k.ty {
            Ty::Table(t) => {
                sch = t;
                i += 1;
            }
            Ty::Tables(t) | Ty::List(t) => {
                sch = t;
                i += 2;
            }
            _ => break,
        }
    }
    out.join(".")
}

/// The type an override's key path reaches in an entry's schema, or why it reaches none.
fn override_ty(
    s: &'static TableSchema,
    path: &[String],
) -> Result<(&'static Ty, Option<schema::Range>), String> {
    let mut sch = s;
    let mut i = 0;
    while i < path.len() {
        let seg = &path[i];
        let Some(k) = sch.key(seg) else {
            let keys: Vec<&str> = sch.all().map(|k| k.name).collect();
            return Err(format!(
                "it takes no key `{seg}`; its keys: {}",
                keys.join(", ")
            ));
        };
        if i + 1 == path.len() {
            return Ok((&k.ty, k.range));
        }
        match &k.ty {
            Ty::Table(s2) => {
                sch = s2;
                i += 1;
            }
            Ty::Tables(s2) | Ty::List(s2) => {
                if matches!(k.ty, Ty::List(_)) && path[i + 1].parse::<usize>().is_err() {
                    return Err(format!(
                        "`{seg}` is a list: the next part of the key path is a place in it, counting from 0"
                    ));
                }
                if i + 2 == path.len() {
                    return Err(format!(
                        "`{seg}.{}` is a whole table; override its keys one by one",
                        path[i + 1]
                    ));
                }
                sch = s2;
                i += 2;
            }
            Ty::Map(ty) => {
                if i + 2 == path.len() {
                    return Ok((ty, k.range));
                }
                return Err(format!("`{seg}.{}` holds no keys", path[i + 1]));
            }
            _ => return Err(format!("`{seg}` holds no keys")),
        }
    }
    Err("the key path is empty".into())
}

/// An owned copy of an entry's table, for a placement's overrides.
fn owned_item(t: Tbl) -> toml_edit::Item {
    match t {
        Tbl::Table(t) => toml_edit::Item::Table(t.clone()),
        Tbl::Inline(t) => toml_edit::Item::Value(toml_edit::Value::InlineTable(t.clone())),
    }
}

/// Sets the value at a key path, creating the tables on the way (a loop, not recursion).
fn set_path(
    item: &mut toml_edit::Item,
    path: &[String],
    v: toml_edit::Value,
) -> Result<(), String> {
    use toml_edit::{ArrayOfTables, InlineTable, Item, Table, Value};
    enum Cur<'a> {
        T(&'a mut Table),
        V(&'a mut Value),
        A(&'a mut ArrayOfTables),
    }
    let place = |seg: &str, len: usize| -> Result<usize, String> {
        let n: usize = seg
            .parse()
            .map_err(|_| format!("`{seg}` is no place in a list"))?;
        if n >= len {
            return Err(format!(
                "the list holds {len} entries; there is no entry {n} (an override replaces values, it adds no entries)"
            ));
        }
        Ok(n)
    };
    let mut cur = match item {
        Item::Table(t) => Cur::T(t),
        Item::Value(v) => Cur::V(v),
        Item::ArrayOfTables(a) => Cur::A(a),
        Item::None => return Err("nothing to set".into()),
    };
    for (i, seg) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        cur = match cur {
            Cur::T(t) => {
                if last {
                    t.insert(seg, Item::Value(v));
                    return Ok(());
                }
                if !t.contains_key(seg) {
                    let mut sub = Table::new();
                    sub.set_implicit(true);
                    t.insert(seg, Item::Table(sub));
                }
                match t.get_mut(seg) {
                    Some(Item::Table(x)) => Cur::T(x),
                    Some(Item::Value(x)) => Cur::V(x),
                    Some(Item::ArrayOfTables(x)) => Cur::A(x),
                    _ => return Err(format!("`{seg}` holds nothing")),
                }
            }
            Cur::V(Value::InlineTable(t)) => {
                if last {
                    t.insert(seg, v);
                    return Ok(());
                }
                if !t.contains_key(seg) {
                    t.insert(seg, Value::InlineTable(InlineTable::new()));
                }
                match t.get_mut(seg) {
                    Some(x) => Cur::V(x),
                    None => return Err(format!("`{seg}` holds nothing")),
                }
            }
            Cur::V(Value::Array(a)) => {
                let n = place(seg, a.len())?;
                let Some(x) = a.get_mut(n) else {
                    return Err(format!("no entry {n}"));
                };
                if last {
                    *x = v;
                    return Ok(());
                }
                Cur::V(x)
            }
            Cur::V(_) => return Err(format!("the value above `{seg}` holds no keys")),
            Cur::A(a) => {
                let n = place(seg, a.len())?;
                let Some(t) = a.get_mut(n) else {
                    return Err(format!("no entry {n}"));
                };
                if last {
                    return Err("a whole list entry can't be overridden".into());
                }
                Cur::T(t)
            }
        };
    }
    Err("the key path is empty".into())
}

/// Reads a table's keys with the schema's defaults filled in. Used on checked tables only;
/// a value of the wrong type (already refused) reads as the default. Every read names a key
/// of the view's schema: a name the schema does not hold fails a debug assertion (so a test),
/// rather than reading a default unseen.
struct View<'a> {
    t: Tbl<'a>,
    s: &'static TableSchema,
}

impl<'a> View<'a> {
    fn default(&self, name: &str) -> Dflt {
        schema::key_of(self.s, name).default
    }

    /// The key's raw value, its name checked against the schema.
    fn node(&self, name: &str) -> Option<Node<'a>> {
        let _ = schema::key_of(self.s, name);
        self.t.get(name)
    }

    /// The sub-table (or each table of an array of tables) at `name`, read through `s`.
    fn tables(&self, name: &str, s: &'static TableSchema) -> Vec<View<'a>> {
        self.node(name)
            .map(|n| match n.tbl() {
                Some(t) => vec![t],
                None => n.tables(),
            })
            .unwrap_or_default()
            .into_iter()
            .map(|t| View { t, s })
            .collect()
    }

    fn opt_bool(&self, name: &str) -> Option<bool> {
        let _ = schema::key_of(self.s, name);
        self.t.bool(name)
    }

    fn nums(&self, name: &str) -> Option<Vec<f64>> {
        let _ = schema::key_of(self.s, name);
        self.t.nums(name)
    }

    fn f32(&self, name: &str) -> f32 {
        let v = self.t.num(name).or(match self.default(name) {
            Dflt::Num(d) => Some(d),
            _ => None,
        });
        finite(v.unwrap_or(0.0))
    }

    fn opt(&self, name: &str) -> Option<f32> {
        let _ = schema::key_of(self.s, name);
        self.t.num(name).map(finite)
    }

    fn bool(&self, name: &str) -> bool {
        self.t
            .bool(name)
            .unwrap_or(matches!(self.default(name), Dflt::Bool(true)))
    }

    fn str(&self, name: &str) -> Option<&str> {
        self.t.str(name).or(match self.default(name) {
            Dflt::Str(s) => Some(s),
            _ => None,
        })
    }

    fn string(&self, name: &str) -> Option<String> {
        let _ = schema::key_of(self.s, name);
        self.t.str(name).map(str::to_string)
    }

    fn vec(&self, name: &str, n: usize) -> Vec<f32> {
        match self.t.nums(name) {
            Some(v) if v.len() == n => v.into_iter().map(finite).collect(),
            _ => match self.default(name) {
                Dflt::Vec(d) if d.len() == n => d.iter().map(|x| *x as f32).collect(),
                _ => vec![0.0; n],
            },
        }
    }

    fn v3(&self, name: &str) -> [f32; 3] {
        let v = self.vec(name, 3);
        [v[0], v[1], v[2]]
    }

    fn v2(&self, name: &str) -> [f32; 2] {
        let v = self.vec(name, 2);
        [v[0], v[1]]
    }

    fn path(&self, name: &str) -> PathBuf {
        let _ = schema::key_of(self.s, name);
        self.t
            .str(name)
            .and_then(|p| normalize(p).ok())
            .unwrap_or_default()
    }
}

/// The keys a sky and a sky layer share, read from `t` under schema `s` (`SKY` or
/// `SKY_LAYER`), defaults filled in. A kind the layer schema does not know (`mix`) reads as
/// analytic here; the caller sets a sky's own kind.
fn sky_layer(t: Tbl, s: &'static TableSchema) -> SkyLayer {
    let v = View { t, s };
    let kind = match v.str("kind") {
        Some("hdr") => SkyKind::Hdr,
        Some("room") => SkyKind::Room,
        _ => SkyKind::Analytic,
    };
    let sub = |name: &str| t.get(name).and_then(|n| n.tbl());
    let prepare = sub("prepare").map(|p| {
        let v = View {
            t: p,
            s: &schema::PREPARE,
        };
        Prepare {
            cap: v.opt("cap"),
            balance: p
                .nums("balance")
                .filter(|b| b.len() == 3)
                .map(|b| [finite(b[0]), finite(b[1]), finite(b[2])]),
            mean: v.opt("mean"),
        }
    });
    let room = sub("room").map(|r| {
        let v = View {
            t: r,
            s: &schema::ROOM,
        };
        Room {
            width: v.f32("width").clamp(2.0, 8192.0) as u32,
            floor: v.v3("floor"),
            wall: v.v3("wall"),
            ceiling: v.v3("ceiling"),
            lights: r
                .get("lights")
                .map(|n| n.tables())
                .unwrap_or_default()
                .into_iter()
                .map(|lt| {
                    let v = View {
                        t: lt,
                        s: &schema::ROOM_LIGHT,
                    };
                    RoomLight {
                        name: v.str("name").unwrap_or_default().to_string(),
                        az: v.f32("az"),
                        el: v.f32("el"),
                        power: v.f32("power"),
                        color: v.v3("color"),
                        width: v.f32("width"),
                        height: v.f32("height"),
                        soft: v.f32("soft"),
                        slats: v.f32("slats"),
                        open: v.f32("open"),
                    }
                })
                .collect(),
        }
    });
    SkyLayer {
        // `[sky]` has no weight: its schema gives no default, so it reads 1 here, unused.
        weight: if s.key("weight").is_some() {
            v.f32("weight")
        } else {
            1.0
        },
        kind,
        path: v.string("path").and_then(|p| normalize(&p).ok()),
        rotation_deg: v.f32("rotation_deg"),
        intensity: v.f32("intensity"),
        turbidity: v.f32("turbidity"),
        ground_albedo: v.v3("ground_albedo"),
        ambient: v.f32("ambient"),
        prepare,
        room,
    }
}

/// A rig as the model holds it, its kind's defaults filled in.
fn rig(t: Tbl, key: String, id: Option<String>, target: Option<String>, at_loc: Location) -> Rig {
    let v = View { t, s: &schema::RIG };
    let kind = match v.str("kind") {
        Some("first-person") => RigKind::FirstPerson,
        Some("third-person") => RigKind::ThirdPerson,
        _ => RigKind::Follow,
    };
    let offset = match v.nums("offset") {
        Some(o) if o.len() == 3 => Some([finite(o[0]), finite(o[1]), finite(o[2])]),
        // A follow rig's default needs the target's world position: the loader's to fill.
        _ if kind == RigKind::Follow => None,
        _ => Some([0.0; 3]),
    };
    let bounds = v.node("bounds").and_then(|b| b.tbl()).map(|b| {
        let corner = |k: &str| match b.nums(k) {
            Some(c) if c.len() == 3 => [finite(c[0]), finite(c[1]), finite(c[2])],
            _ => [0.0; 3],
        };
        (corner("min"), corner("max"))
    });
    Rig {
        key,
        id,
        kind,
        target,
        offset,
        dead_zone: v.v2("dead_zone"),
        look_ahead: v.f32("look_ahead"),
        damping: v.v3("damping"),
        bounds,
        orthographic: v.opt("orthographic"),
        snap: v.opt("snap"),
        sensitivity: v.f32("sensitivity"),
        invert: v.bool("invert"),
        smoothing: v.f32("smoothing"),
        pitch: v.v2("pitch"),
        head_bob: v.f32("head_bob"),
        distance: v.f32("distance"),
        collide: v.bool("collide"),
        at_loc,
    }
}

/// An f64 as a finite f32 (a refused non-finite value reads as 0; huge ones saturate).
fn finite(v: f64) -> f32 {
    if v.is_finite() {
        (v as f32).clamp(f32::MIN, f32::MAX)
    } else {
        0.0
    }
}

fn shadow(s: &str) -> Shadow {
    match s {
        "only" => Shadow::Only,
        "none" => Shadow::None,
        _ => Shadow::Cast,
    }
}

/// How a name or id finds its entry.
enum Found {
    One(usize),
    None,
    Many(Vec<usize>),
}

/// Entries by kind, for resolving references: by id first, then by a name unique in its kind.
#[derive(Default)]
struct Index {
    by_id: HashMap<(Kind, String), usize>,
    by_name: HashMap<(Kind, String), Vec<usize>>,
    /// Any kind, for `[object.set]` entries: by id, and names across kinds.
    any_id: HashMap<String, usize>,
    any_name: HashMap<String, Vec<usize>>,
}

impl Index {
    /// The entries `keep` keeps, indexed.
    fn new(entries: &[Entry], keep: impl Fn(&Entry) -> bool) -> Index {
        let mut ix = Index::default();
        for (i, e) in entries.iter().enumerate() {
            if !keep(e) {
                continue;
            }
            if let Some(id) = &e.id {
                ix.by_id.entry((e.kind, id.clone())).or_insert(i);
                ix.any_id.entry(id.clone()).or_insert(i);
            }
            if let Some(n) = &e.name {
                ix.by_name.entry((e.kind, n.clone())).or_default().push(i);
                ix.any_name.entry(n.clone()).or_default().push(i);
            }
        }
        ix
    }

    /// An entry of any kind, by id or by a name unique across kinds.
    fn find_any(&self, v: &str) -> Found {
        if let Some(i) = self.any_id.get(v) {
            return Found::One(*i);
        }
        match self.any_name.get(v) {
            Some(all) if all.len() == 1 => Found::One(all[0]),
            Some(all) if all.len() > 1 => Found::Many(all.clone()),
            _ => Found::None,
        }
    }

    fn find(&self, kind: Kind, v: &str) -> Found {
        if let Some(i) = self.by_id.get(&(kind, v.to_string())) {
            return Found::One(*i);
        }
        match self.by_name.get(&(kind, v.to_string())) {
            Some(all) if all.len() == 1 => Found::One(all[0]),
            Some(all) if all.len() > 1 => Found::Many(all.clone()),
            _ => Found::None,
        }
    }
}

/// Derives `dynamic`: set, or true when a mover moves the object, it is a character, it is
/// animated, it faces the camera, or its parent is dynamic.
fn derive_dynamic(objs: &mut [Obj]) {
    let own: Vec<Option<bool>> = objs
        .iter()
        .map(|o| {
            o.explicit_dynamic.or({
                let base = o.mover.is_some()
                    || o.t.has("character")
                    || o.t.has("animation")
                    || o.t.bool("face_camera") == Some(true);
                if base {
                    Some(true)
                } else {
                    None
                }
            })
        })
        .collect();
    let mut done: Vec<Option<bool>> = vec![None; objs.len()];
    for i in 0..objs.len() {
        // Walk up to the first object whose value is known, then fill the chain back down.
        let mut chain = Vec::new();
        let mut cur = Some(i);
        let mut value = false;
        while let Some(c) = cur {
            if let Some(d) = done[c] {
                value = d;
                break;
            }
            if let Some(d) = own[c] {
                done[c] = Some(d);
                value = d;
                break;
            }
            if chain.len() > objs.len() {
                break;
            }
            chain.push(c);
            cur = objs[c].parent;
        }
        for c in chain.into_iter().rev() {
            done[c] = Some(value);
        }
    }
    for (o, d) in objs.iter_mut().zip(done) {
        o.dynamic = d.unwrap_or(false);
    }
}

fn doc_table(docs: &[Option<ImDocument<String>>], f: usize) -> Option<Tbl<'_>> {
    docs.get(f)
        .and_then(|d| d.as_ref())
        .map(|d| Tbl::Table(d.as_table()))
}

fn node_span(n: &Node) -> Option<std::ops::Range<usize>> {
    match n {
        Node::Val(v) => v.span(),
        Node::Inline(t) => t.span(),
        Node::Table(t) => t.span(),
        Node::Aot(a) => a.span(),
    }
}

fn head_of(ctx: &Ctx, f: usize, t: Tbl) -> Sp {
    let span = match t {
        Tbl::Table(t) => t.span(),
        Tbl::Inline(t) => t.span(),
    };
    let span = span.unwrap_or(0..0);
    // The header line only, as the walk reports it.
    let bytes = ctx.srcs.get(f).map(|s| s.bytes()).unwrap_or(&[]);
    let mut end = span.start;
    while end < span.end && end < bytes.len() && bytes[end] != b'\n' && bytes[end] != b'\r' {
        end += 1;
    }
    Sp {
        file: f,
        span: span.start..end,
    }
}

fn val_sp(f: usize, t: Tbl, name: &str, fallback: &Sp) -> Sp {
    t.get(name)
        .and_then(|n| node_span(&n))
        .map(|span| Sp { file: f, span })
        .unwrap_or_else(|| fallback.clone())
}

fn key_sp(f: usize, t: Tbl, name: &str, fallback: &Sp) -> Sp {
    let span = match t {
        Tbl::Table(x) => x.key(name).and_then(|k| k.span()),
        Tbl::Inline(x) => x.key(name).and_then(|k| k.span()),
    };
    span.map(|span| Sp { file: f, span })
        .unwrap_or_else(|| fallback.clone())
}

fn parent_sp(o: &Obj) -> Sp {
    val_sp(o.f, o.t, "parent", &o.head)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crate's folder: `file!()` is relative to it in the crate, absolute in a scratch build.
    fn data(name: &str) -> PathBuf {
        let here = Path::new(file!());
        let base = here
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        base.join("tests/data/scenes").join(name)
    }

    const HEAD: &str = "format = 1\nmaterials = [\"lib.materials.toml\"]\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n";

    /// A project with a library (white, red), a mesh file and a few assets; `scene` is
    /// t.scene.toml.
    fn project(scene: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        std::fs::write(
            r.join("project.toml"),
            "format = 1\n[project]\nname = \"t\"\n[layers]\nworld = [\"world\"]\n",
        )
        .unwrap();
        std::fs::write(
            r.join("lib.materials.toml"),
            "format = 1\n[materials.white]\nid = \"wwwwwwww01\"\nbase = [0.8, 0.8, 0.8]\n[materials.red]\nid = \"wwwwwwww02\"\n",
        )
        .unwrap();
        for f in ["m.glb", "a.png", "sky.hdr"] {
            std::fs::write(r.join(f), "x").unwrap();
        }
        std::fs::write(r.join("t.scene.toml"), scene).unwrap();
        dir
    }

    fn run(scene: &str) -> Vec<Diagnostic> {
        let dir = project(scene);
        match load(&dir.path().join("t.scene.toml")) {
            Ok(s) => s.warnings,
            Err(d) => d,
        }
    }

    /// The one error of `code`; fails when there is not exactly one.
    fn one(diags: &[Diagnostic], code: &str) -> Diagnostic {
        let all: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == code).collect();
        assert_eq!(all.len(), 1, "want one {code}, got {diags:#?}");
        all[0].clone()
    }

    /// (key, line, column, end line, end column).
    fn at(d: &Diagnostic) -> (&str, u32, u32, u32, u32) {
        (d.key.as_str(), d.line, d.column, d.end_line, d.end_column)
    }

    fn errors(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
        diags.iter().filter(|d| d.is_error()).collect()
    }

    #[test]
    fn cornell_loads_as_written() {
        let s = load(&data("cornell/cornell.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        assert!(s.warnings.is_empty(), "{:#?}", s.warnings);
        assert!(s.root.is_absolute());
        assert_eq!(s.file, PathBuf::from("cornell.scene.toml"));
        assert_eq!(
            s.files,
            [
                "project.toml",
                "cornell.scene.toml",
                "cornell.materials.toml"
            ]
            .map(PathBuf::from)
            .to_vec()
        );
        assert_eq!(s.meshes.len(), 8);
        assert_eq!(s.meshes[0].file, PathBuf::from("meshes/floor.glb"));
        assert_eq!(s.objects.len(), 8);
        let names: Vec<&str> = s.objects.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(
            names,
            [
                "floor",
                "ceiling",
                "back_wall",
                "left_wall",
                "right_wall",
                "short_box",
                "tall_box",
                "light"
            ]
        );
        let left = &s.objects[3];
        assert_eq!(
            (left.mesh.as_str(), left.material.as_deref()),
            ("left_wall", Some("red"))
        );
        assert_eq!(left.at, [0.278, 0.0, 0.2796]);
        assert_eq!(left.rotate, [0.0, 180.0, 0.0]);
        assert_eq!(left.scale, [1.0; 3]);
        assert_eq!(left.pick, 4);
        assert!(s
            .objects
            .iter()
            .all(|o| !o.dynamic && o.shadow == Shadow::Cast && o.alpha_cutoff == 0.5));
        assert_eq!(s.materials.len(), 4);
        let light = s.materials.iter().find(|m| m.key == "light").unwrap();
        assert_eq!(light.emission, [18.387, 13.9873, 6.75357]);
        assert_eq!(light.library, PathBuf::from("cornell.materials.toml"));
        assert_eq!(
            (light.roughness, light.specular, light.ior),
            (1.0, 0.0, 1.5)
        );
        let red = s.materials.iter().find(|m| m.key == "red").unwrap();
        assert_eq!(red.base, [0.570068, 0.0430135, 0.0443706]);
        let cam = s.camera.as_ref().unwrap();
        assert_eq!(cam.projection, Projection::Perspective);
        assert_eq!(cam.at, [0.0, 0.273, 1.0796]);
        assert_eq!(cam.look_at, [0.0, 0.273, 0.0]);
        assert_eq!(cam.fov, 39.3076);
        assert_eq!((cam.near, cam.far, cam.sensor), (0.05, 100.0, 24.0));
        assert!(s.lights.is_empty() && s.emitters.is_empty() && s.sun.is_none() && s.sky.is_none());
        let first = &s.objects[0].at_loc;
        assert_eq!((first.line, first.column), (41, 1));
        assert!(s
            .present
            .iter()
            .any(|p| p.path == "object.rotate" && p.key == "object.fdjavdz6xh.rotate"));
        assert!(s
            .present
            .iter()
            .any(|p| p.path == "materials.emission" && p.key == "materials.light.emission"));
    }

    #[test]
    fn spheres_loads_as_written() {
        let s = load(&data("spheres/spheres.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        assert!(s.warnings.is_empty(), "{:#?}", s.warnings);
        assert_eq!(
            s.meshes
                .iter()
                .map(|m| m.node.as_deref())
                .collect::<Vec<_>>(),
            [Some("ground"), Some("sphere")]
        );
        let metal = s.objects.iter().find(|o| o.key == "metal_ball").unwrap();
        assert_eq!(
            (metal.mesh.as_str(), metal.material.as_deref()),
            ("sphere", Some("copper"))
        );
        assert_eq!(metal.rotate, [90.0, 30.0, 0.0]);
        assert_eq!(metal.scale, [0.5; 3]);
        let copper = s.materials.iter().find(|m| m.key == "copper").unwrap();
        assert_eq!(
            (copper.roughness, copper.metalness, copper.base),
            (0.2, 1.0, [0.95, 0.64, 0.54])
        );
        assert_eq!(s.lights.len(), 1);
        let l = &s.lights[0];
        assert_eq!(
            (l.key.as_str(), l.id.as_deref()),
            ("key", Some("ymd945rcwk"))
        );
        assert_eq!(
            (l.position, l.color, l.intensity, l.radius),
            ([2.5, 4.0, 3.0], [1.0, 0.95, 0.85], 60.0, 0.0)
        );
        assert_eq!((l.range, l.shadow), (10.0, true));
        let e = &s.emitters[0];
        assert_eq!(
            (e.key.as_str(), e.position, e.radius, e.color, e.intensity),
            ("glow", [-0.9, 1.45, -0.9], 0.25, [0.5, 0.7, 1.0], 4.0)
        );
        let cam = s.camera.as_ref().unwrap();
        assert_eq!(
            (cam.at, cam.look_at, cam.fov),
            ([0.0, 1.4, 5.0], [0.0, 0.45, 0.0], 35.0)
        );
    }

    #[test]
    fn unknown_key_lists_the_allowed_keys() {
        let d = run(&format!("{HEAD}[camera]\nbogus = 1\n"));
        let d = one(&d, "unknown-key");
        assert_eq!(at(&d), ("camera.bogus", 7, 1, 7, 6));
        assert_eq!(d.file, PathBuf::from("t.scene.toml"));
        assert!(
            d.message
                .contains("allowed keys: projection, at, look_at, up, fov, focal"),
            "{}",
            d.message
        );
    }

    #[test]
    fn wrong_type_and_out_of_range() {
        let light =
            |body: &str| format!("{HEAD}[[light]]\nid = \"hhhhhhhh01\"\nname = \"l\"\n{body}");
        let d = run(&light("position = \"up\"\nintensity = 1\n"));
        assert_eq!(
            at(&one(&d, "bad-type")),
            ("light.hhhhhhhh01.position", 9, 12, 9, 16)
        );
        let d = run(&light("position = [0, 1, 0]\nintensity = -1\n"));
        let e = one(&d, "bad-value");
        assert_eq!(at(&e), ("light.hhhhhhhh01.intensity", 10, 13, 10, 15));
        assert!(e.message.contains("≥ 0"), "{}", e.message);
        let d = run(&light(
            "position = [0, 1, 0]\nintensity = 1\ncolor = [1, 1]\n",
        ));
        let e = one(&d, "bad-type");
        assert_eq!(at(&e), ("light.hhhhhhhh01.color", 11, 9, 11, 15));
        assert!(
            e.message.contains("3 numbers") && e.message.contains("2 values"),
            "{}",
            e.message
        );
        let d = run(&format!("{HEAD}[camera]\nfov = 180\n"));
        let e = one(&d, "bad-value");
        assert_eq!(at(&e), ("camera.fov", 7, 7, 7, 10));
        assert!(e.message.contains("above 0 and below 180"), "{}", e.message);
        let d = run(&format!("{HEAD}[[emitter]]\nid = \"eeeeeeee01\"\nname = \"e\"\nposition = [0, 0, 0]\nradius = 0\nintensity = 1\n"));
        assert_eq!(
            at(&one(&d, "bad-value")),
            ("emitter.eeeeeeee01.radius", 10, 10, 10, 11)
        );
    }

    #[test]
    fn missing_key_points_at_the_header() {
        let d = run(&format!(
            "{HEAD}[[light]]\nid = \"hhhhhhhh01\"\nname = \"l\"\nintensity = 1\n"
        ));
        let e = one(&d, "missing-key");
        assert_eq!(at(&e), ("light.hhhhhhhh01.position", 6, 1, 6, 10));
        let d = run(&format!(
            "{HEAD}[[object]]\nid = \"oooooooo01\"\nname = \"o\"\n"
        ));
        assert!(errors(&d).iter().any(|e| e.code == "bad-id"));
        let d = run(&format!(
            "{HEAD}[[object]]\nid = \"aaaaaaaa01\"\nname = \"o\"\n"
        ));
        assert_eq!(
            at(&one(&d, "missing-key")),
            ("object.aaaaaaaa01.mesh", 6, 1, 6, 11)
        );
    }

    #[test]
    fn ids_bad_missing_and_twice() {
        let d = run(&format!(
            "{HEAD}[[light]]\nid = \"ABC\"\nname = \"l\"\nposition = [0, 0, 0]\nintensity = 1\n"
        ));
        let e = one(&d, "bad-id");
        assert_eq!(at(&e), ("light.ABC.id", 7, 6, 7, 11));
        let d = run(&format!(
            "{HEAD}[[light]]\nname = \"l\"\nposition = [0, 0, 0]\nintensity = 1\n"
        ));
        let w = one(&d, "missing-id");
        assert_eq!(
            (w.severity, at(&w)),
            (Severity::Warning, ("light.0", 6, 1, 6, 10))
        );
        assert!(errors(&d).is_empty());
        let l = |n: &str| {
            format!("[[light]]\nid = \"hhhhhhhh01\"\nname = \"{n}\"\nposition = [0, 0, 0]\nintensity = 1\n")
        };
        let d = run(&format!("{HEAD}{}{}", l("a"), l("b")));
        let e = one(&d, "duplicate-id");
        assert_eq!(at(&e), ("light.hhhhhhhh01.id", 12, 6, 12, 18));
        assert_eq!(e.related.len(), 1);
        assert_eq!((e.related[0].line, e.related[0].column), (7, 6));
        assert_eq!(e.related[0].file, PathBuf::from("t.scene.toml"));
        // Across files: a material's id taken by a mesh.
        let d = run(&format!(
            "{HEAD}[mesh.n]\nid = \"wwwwwwww01\"\nfile = \"m.glb\"\n"
        ));
        let e = one(&d, "duplicate-id");
        assert_eq!(e.file, PathBuf::from("lib.materials.toml"));
        assert_eq!(e.related[0].file, PathBuf::from("t.scene.toml"));
    }

    fn obj(id: &str, name: &str, rest: &str) -> String {
        format!("[[object]]\nid = \"{id}\"\nname = \"{name}\"\nmesh = \"m\"\n{rest}")
    }

    #[test]
    fn references_resolve_to_keys() {
        let head = HEAD.replacen(
            "materials = [",
            "fallback = \"wwwwwwww02\"\nmaterials = [",
            1,
        );
        let text = format!(
            "{head}{}{}",
            obj(
                "aaaaaaaa01",
                "a",
                "material = \"wwwwwwww01\"\nmaterials = { leg = \"red\" }\n"
            ),
            obj("aaaaaaaa02", "b", "parent = \"aaaaaaaa01\"\n")
        );
        let dir = project(&text);
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        assert_eq!(s.fallback.as_deref(), Some("red"));
        assert_eq!(s.objects[0].material.as_deref(), Some("white"));
        assert_eq!(
            s.objects[0].materials,
            vec![("leg".to_string(), "red".to_string())]
        );
        assert_eq!(s.objects[1].parent.as_deref(), Some("a"));
        assert_eq!(s.objects[1].mesh, "m");
        let d = run(&format!(
            "{HEAD}{}",
            obj("aaaaaaaa01", "a", "").replace("mesh = \"m\"", "mesh = \"nope\"")
        ));
        let e = one(&d, "bad-reference");
        assert_eq!(at(&e), ("object.aaaaaaaa01.mesh", 9, 8, 9, 14));
        assert!(
            e.message.contains("no mesh has the id or name \"nope\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn names_twice_and_ambiguous() {
        let d = run(&format!(
            "{HEAD}{}{}{}",
            obj("aaaaaaaa01", "a", ""),
            obj("aaaaaaaa02", "a", ""),
            obj("aaaaaaaa03", "c", "parent = \"a\"\n")
        ));
        let e = one(&d, "duplicate-name");
        assert_eq!(at(&e), ("object.aaaaaaaa02.name", 12, 8, 12, 11));
        assert_eq!(e.related[0].line, 8);
        let e = one(&d, "ambiguous-reference");
        assert_eq!(at(&e), ("object.aaaaaaaa03.parent", 18, 10, 18, 13));
        assert_eq!(
            e.related.iter().map(|r| r.line).collect::<Vec<_>>(),
            [8, 12]
        );
        // A material in two libraries.
        let dir = project(&HEAD.replace(
            "[\"lib.materials.toml\"]",
            "[\"lib.materials.toml\", \"b.materials.toml\"]",
        ));
        std::fs::write(
            dir.path().join("b.materials.toml"),
            "format = 1\n[materials.red]\nid = \"wwwwwwww03\"\n",
        )
        .unwrap();
        let d = load(&dir.path().join("t.scene.toml")).unwrap_err();
        let e = one(&d, "duplicate-name");
        assert_eq!(e.file, PathBuf::from("b.materials.toml"));
        assert_eq!((e.key.as_str(), e.line, e.column), ("materials.red", 2, 1));
        assert!(
            e.message.contains("lib.materials.toml") && e.message.contains("b.materials.toml"),
            "{}",
            e.message
        );
        assert_eq!(e.related[0].file, PathBuf::from("lib.materials.toml"));
    }

    #[test]
    fn bad_names() {
        let d = run(&format!("{HEAD}{}", obj("aaaaaaaa01", " a", "")));
        assert_eq!(
            at(&one(&d, "bad-name")),
            ("object.aaaaaaaa01.name", 8, 8, 8, 12)
        );
    }

    #[test]
    fn bad_paths() {
        let mesh = |p: &str| format!("format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"{p}\"\n");
        for (p, code) in [
            ("/m.glb", "bad-path"),
            ("a\\\\m.glb", "bad-path"),
            ("", "bad-path"),
            ("../m.glb", "outside-root"),
            ("nope.glb", "missing-file"),
        ] {
            let d = run(&mesh(p));
            let e = one(&d, code);
            let len = p.chars().count() as u32 + 2;
            assert_eq!(at(&e), ("mesh.m.file", 4, 8, 4, 8 + len), "{p}: {e:#?}");
        }
        // A .. that stays inside the root is allowed, and normalised.
        let dir = project(&mesh("x/../m.glb"));
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        assert_eq!(s.meshes[0].file, PathBuf::from("m.glb"));
    }

    #[test]
    fn path_case_is_refused_on_every_os() {
        let dir = project("format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"sub/mesh.glb\"\n");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/Mesh.glb"), "x").unwrap();
        let d = load(&dir.path().join("t.scene.toml")).unwrap_err();
        let e = one(&d, "path-case");
        assert_eq!(at(&e), ("mesh.m.file", 4, 8, 4, 22));
        assert!(e.message.contains("sub/Mesh.glb"), "{}", e.message);
        // A folder of another case too.
        let dir = project("format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"SUB/Mesh.glb\"\n");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/Mesh.glb"), "x").unwrap();
        assert_eq!(
            one(
                &load(&dir.path().join("t.scene.toml")).unwrap_err(),
                "path-case"
            )
            .key,
            "mesh.m.file"
        );
    }

    #[test]
    fn formats() {
        let d = run("format = 2\n");
        let e = one(&d, "newer-format");
        assert_eq!(at(&e), ("format", 1, 10, 1, 11));
        assert!(e.message.contains("format 1"));
        // Format 0 is read through the migration (scene::migrate): one warning, no error.
        let d = run("[camera]\nfov = 30\n");
        let e = one(&d, "old-format");
        assert_eq!(at(&e), ("format", 1, 1, 1, 1));
        assert_eq!(e.severity, Severity::Warning);
        assert_eq!(errors(&d).len(), 0);
    }

    #[test]
    fn unreadable_syntax_not_utf8() {
        let dir = project("format = 1\n");
        let d = load(&dir.path().join("none.scene.toml")).unwrap_err();
        let e = one(&d, "unreadable");
        assert_eq!(
            (e.line, e.column, e.file.clone()),
            (1, 1, PathBuf::from("none.scene.toml"))
        );
        let d = run("format = 1\n[camera\n");
        let e = one(&d, "syntax");
        assert_eq!((e.line, e.file.clone()), (2, PathBuf::from("t.scene.toml")));
        let dir = project("");
        std::fs::write(
            dir.path().join("t.scene.toml"),
            b"format = 1\nx = \"\xff\"\n",
        )
        .unwrap();
        let d = load(&dir.path().join("t.scene.toml")).unwrap_err();
        assert_eq!(at(&one(&d, "not-utf8")), ("", 2, 6, 2, 7));
        // A library that does not parse is reported in its own file.
        let dir = project(HEAD);
        std::fs::write(
            dir.path().join("lib.materials.toml"),
            "format = 1\n[materials.a\n",
        )
        .unwrap();
        let e = one(
            &load(&dir.path().join("t.scene.toml")).unwrap_err(),
            "syntax",
        );
        assert_eq!(
            (e.file.clone(), e.line),
            (PathBuf::from("lib.materials.toml"), 2)
        );
    }

    #[test]
    fn camera_rules() {
        let cam = |body: &str| run(&format!("{HEAD}[camera]\n{body}"));
        let d = cam("fov = 30\nfocal = 35\n");
        assert_eq!(at(&one(&d, "bad-value")), ("camera.focal", 8, 1, 8, 6));
        let d = cam("sensor = 36\n");
        assert_eq!(one(&d, "bad-value").key, "camera.sensor");
        let d = cam("projection = \"orthographic\"\nheight = 4\nfov = 30\nfstop = 2\n");
        let keys: Vec<&str> = errors(&d).iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["camera.fov", "camera.fstop"]);
        let d = cam("projection = \"orthographic\"\n");
        assert_eq!(at(&one(&d, "missing-key")), ("camera.height", 6, 1, 6, 9));
        let d = cam("height = 3\n");
        assert_eq!(one(&d, "bad-value").key, "camera.height");
        let d = cam("near = 1\nfar = 1\n");
        assert_eq!(one(&d, "bad-value").key, "camera.far");
        let d = cam("at = [1, 2, 3]\nlook_at = [1, 2, 3]\n");
        assert_eq!(one(&d, "bad-value").key, "camera.look_at");
        let d = cam("at = [0, 5, 0]\n");
        assert_eq!(one(&d, "bad-value").key, "camera.look_at");
        let d = cam("at = [0, 5, 0]\nup = [0, -2, 0]\n");
        assert_eq!(one(&d, "bad-value").key, "camera.up");
        // focal with the sensor gives the fov.
        let dir = project(&format!("{HEAD}[camera]\nfocal = 50\nsensor = 24\n"));
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        let c = s.camera.unwrap();
        let want = 2.0 * (12.0f32 / 50.0).atan().to_degrees();
        assert!((c.fov - want).abs() < 1e-4, "{} {}", c.fov, want);
        assert_eq!(c.focal, Some(50.0));
    }

    #[test]
    fn sun_and_sky_rules() {
        let d = run(&format!(
            "{HEAD}[sun]\nmodel = \"daylight\"\nhour = 9\ntoward = [0, 1, 0]\n"
        ));
        assert_eq!(at(&one(&d, "bad-value")), ("sun.toward", 9, 1, 9, 7));
        let d = run(&format!("{HEAD}[sun]\nmodel = \"daylight\"\n"));
        assert_eq!(one(&d, "missing-key").key, "sun.hour");
        let d = run(&format!(
            "{HEAD}[sun]\nmodel = \"authored\"\ntoward = [0, 0, 0]\n"
        ));
        let keys: Vec<(&str, &str)> = errors(&d)
            .iter()
            .map(|e| (e.code, e.key.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                ("missing-key", "sun.irradiance"),
                ("bad-value", "sun.toward")
            ]
        );
        let dir = project(&format!("{HEAD}[sun]\nmodel = \"authored\"\ntoward = [0, 1, 1]\nirradiance = 3\nreference_hour = 15\n"));
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        let sun = s.sun.unwrap();
        assert_eq!(
            (sun.model, sun.hour, sun.toward, sun.irradiance),
            (SunModel::Authored, 15.0, Some([0.0, 1.0, 1.0]), Some(3.0))
        );
        let d = run(&format!(
            "{HEAD}[sky]\nkind = \"analytic\"\npath = \"sky.hdr\"\n"
        ));
        let e = one(&d, "bad-value");
        assert_eq!(at(&e), ("sky.path", 8, 1, 8, 5));
        assert!(e.message.contains("\"hdr\""), "{}", e.message);
        let d = run(&format!("{HEAD}[sky]\nkind = \"hdr\"\nturbidity = 3\n"));
        assert_eq!(one(&d, "missing-key").key, "sky.path");
        assert_eq!(one(&d, "bad-value").key, "sky.turbidity");
        let dir = project(&format!(
            "{HEAD}[sky]\nkind = \"hdr\"\npath = \"sky.hdr\"\nrotation_deg = 90\n"
        ));
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        let sky = s.sky.unwrap();
        assert_eq!(
            (sky.kind, sky.path, sky.rotation_deg, sky.intensity),
            (SkyKind::Hdr, Some(PathBuf::from("sky.hdr")), 90.0, 1.0)
        );
    }

    /// Every `[sky]` key reaches the model, the spec's defaults filled in: an hdr sky with
    /// `[sky.prepare]`, a room with its lamps, and a mix of layers with their own tables.
    #[test]
    fn sky_tables_fill_the_model() {
        let load_sky = |text: &str| {
            let dir = project(&format!("{HEAD}{text}"));
            let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
            s.sky.unwrap()
        };
        let sky = load_sky(
            "[sky]\nkind = \"hdr\"\npath = \"./sky.hdr\"\nintensity = 2\n[sky.prepare]\ncap = 5\nbalance = [1, 0.5, 0.25]\n",
        );
        assert_eq!(sky.kind, SkyKind::Hdr);
        assert_eq!(sky.path, Some(PathBuf::from("sky.hdr")));
        assert_eq!((sky.rotation_deg, sky.intensity), (0.0, 2.0));
        let prep = Prepare {
            cap: Some(5.0),
            balance: Some([1.0, 0.5, 0.25]),
            mean: None,
        };
        assert_eq!(sky.prepare, Some(prep));
        assert!(sky.room.is_none() && sky.layers.is_empty());

        let sky = load_sky(
            "[sky]\nkind = \"room\"\nrotation_deg = -30\n[sky.room]\nwidth = 33\nwall = [0.1, 0.2, 0.3]\n\
             [[sky.room.lights]]\nname = \"window\"\naz = 90\nel = 20\npower = 4\ncolor = [1, 0.9, 0.8]\n\
             width = 60\nheight = 40\nsoft = 0\nslats = 12\nopen = 0.25\n[[sky.room.lights]]\n",
        );
        assert_eq!(
            (sky.kind, sky.rotation_deg, sky.intensity),
            (SkyKind::Room, -30.0, 1.0)
        );
        let want = Room {
            width: 33,
            floor: [0.5; 3],
            wall: [0.1, 0.2, 0.3],
            ceiling: [0.5; 3],
            lights: vec![
                RoomLight {
                    name: "window".into(),
                    az: 90.0,
                    el: 20.0,
                    power: 4.0,
                    color: [1.0, 0.9, 0.8],
                    width: 60.0,
                    height: 40.0,
                    soft: 0.0,
                    slats: 12.0,
                    open: 0.25,
                },
                RoomLight::default(),
            ],
        };
        assert_eq!(sky.room, Some(want));
        assert_eq!(
            RoomLight::default(),
            RoomLight {
                name: String::new(),
                az: 0.0,
                el: 0.0,
                power: 1.0,
                color: [1.0; 3],
                width: 45.0,
                height: 45.0,
                soft: 0.1,
                slats: 0.0,
                open: 1.0,
            }
        );

        let sky = load_sky(
            "[sky]\nkind = \"mix\"\n[[sky.layer]]\nkind = \"analytic\"\nturbidity = 6\nground_albedo = [0.1, 0.2, 0.3]\n\
             [[sky.layer]]\nkind = \"hdr\"\nweight = 0.5\npath = \"sky.hdr\"\nrotation_deg = 45\n[sky.layer.prepare]\nmean = 2\n\
             [[sky.layer]]\nkind = \"room\"\nweight = 0\nintensity = 3\n[sky.layer.room]\n",
        );
        assert_eq!(sky.kind, SkyKind::Mix);
        let l = &sky.layers;
        assert_eq!(l.len(), 3);
        assert_eq!(
            (
                l[0].kind,
                l[0].weight,
                l[0].turbidity,
                l[0].ground_albedo,
                l[0].ambient
            ),
            (SkyKind::Analytic, 1.0, 6.0, [0.1, 0.2, 0.3], 1.0)
        );
        assert_eq!(
            (
                l[1].kind,
                l[1].weight,
                &l[1].path,
                l[1].rotation_deg,
                l[1].prepare
            ),
            (
                SkyKind::Hdr,
                0.5,
                &Some(PathBuf::from("sky.hdr")),
                45.0,
                Some(Prepare {
                    mean: Some(2.0),
                    ..Default::default()
                })
            )
        );
        assert_eq!(
            (l[2].kind, l[2].weight, l[2].intensity, &l[2].room),
            (SkyKind::Room, 0.0, 3.0, &Some(Room::default()))
        );

        let sky = load_sky("[sky]\nkind = \"analytic\"\nambient = 0.5\n");
        assert_eq!(
            (sky.kind, sky.turbidity, sky.ground_albedo, sky.ambient),
            (SkyKind::Analytic, 3.0, [0.2; 3], 0.5)
        );
    }

    #[test]
    fn object_rules() {
        let d = run(&format!(
            "{HEAD}{}",
            obj(
                "aaaaaaaa01",
                "a",
                "clip = [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]]\n"
            )
        ));
        assert_eq!(one(&d, "bad-value").key, "object.aaaaaaaa01.clip");
        let place = "[[object]]\nid = \"aaaaaaaa01\"\nname = \"p\"\nprefab = \"p.prefab.toml\"\nmaterial = \"white\"\n";
        let dir = project(&format!("{HEAD}{place}"));
        std::fs::write(dir.path().join("p.prefab.toml"), "format = 1\n").unwrap();
        let d = load(&dir.path().join("t.scene.toml")).unwrap_err();
        assert_eq!(
            at(&one(&d, "placement-key")),
            ("object.aaaaaaaa01.material", 10, 1, 10, 9)
        );
        let d = run(&format!(
            "{HEAD}{}",
            obj("aaaaaaaa01", "a", "dynamic = false\n[object.character]\n")
        ));
        assert_eq!(one(&d, "bad-value").key, "object.aaaaaaaa01.dynamic");
        let d = run(&format!(
            "{HEAD}{}",
            obj("aaaaaaaa01", "a", "[object.body]\nlayer = \"sky\"\n")
        ));
        assert_eq!(one(&d, "bad-reference").key, "object.aaaaaaaa01.body.layer");
        let d = run(&format!(
            "{HEAD}{}",
            obj(
                "aaaaaaaa01",
                "a",
                "[object.body]\nshape = \"sphere\"\nhalf = [1, 1, 1]\n"
            )
        ));
        assert_eq!(one(&d, "bad-value").key, "object.aaaaaaaa01.body.half");
    }

    #[test]
    fn parent_cycle() {
        let d = run(&format!(
            "{HEAD}{}{}{}",
            obj("aaaaaaaa01", "a", "parent = \"c\"\n"),
            obj("aaaaaaaa02", "b", "parent = \"a\"\n"),
            obj("aaaaaaaa03", "c", "parent = \"b\"\n")
        ));
        let e = one(&d, "parent-cycle");
        assert_eq!(at(&e), ("object.aaaaaaaa01.parent", 10, 10, 10, 13));
        // Related follows the chain of parents from the first object: a → c → b.
        assert_eq!(
            e.related.iter().map(|r| r.line).collect::<Vec<_>>(),
            [20, 15]
        );
        assert!(e.message.contains("a → c → b → a"), "{}", e.message);
    }

    #[test]
    fn dynamic_is_derived() {
        let text = format!(
            "{HEAD}{}{}{}{}{}[[mover]]\nid = \"vvvvvvvv01\"\nname = \"door\"\nobjects = [\"a\"]\nkind = \"turn\"\naxis = [0, 1, 0]\ntravel = [0, 90]\n",
            obj("aaaaaaaa01", "a", ""),
            obj("aaaaaaaa02", "b", "parent = \"a\"\n"),
            obj("aaaaaaaa03", "c", "parent = \"b\"\ndynamic = false\n"),
            obj("aaaaaaaa04", "d", "face_camera = true\n"),
            obj("aaaaaaaa05", "e", "")
        );
        let dir = project(&text);
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        let dy: Vec<(&str, bool)> = s
            .objects
            .iter()
            .map(|o| (o.key.as_str(), o.dynamic))
            .collect();
        assert_eq!(
            dy,
            [
                ("a", true),
                ("b", true),
                ("c", false),
                ("d", true),
                ("e", false)
            ]
        );
    }

    #[test]
    fn columns_are_characters_after_non_ascii() {
        let line = "light = [{ name = \"日本語\", position = \"x\", intensity = 1 }]\n[mesh.m]";
        let d = run(&HEAD.replacen("[mesh.m]", line, 1));
        let e = one(&d, "bad-type");
        assert_eq!(at(&e), ("light.0.position", 3, 37, 3, 40));
    }

    #[test]
    fn unresolved_parts_are_recorded_not_dropped() {
        let dir = project(&HEAD.replacen(
            "materials = [",
            "include = [\"o.scene.toml\"]\nmaterials = [",
            1,
        ));
        std::fs::write(dir.path().join("o.scene.toml"), "format = 1\n").unwrap();
        let text = std::fs::read_to_string(dir.path().join("t.scene.toml")).unwrap();
        let text = format!("{text}[[tiles]]\nid = \"tttttttt01\"\nname = \"g\"\n[haze]\nlo = [0, 0, 0]\nhi = [1, 1, 1]\namount = 0.5\n[camera]\nfov = 30\nfstop = 2\n");
        std::fs::write(dir.path().join("t.scene.toml"), text).unwrap();
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        for p in [
            "include",
            "tiles",
            "tiles.name",
            "haze",
            "haze.amount",
            "camera.fstop",
            "mesh.file",
            "format",
        ] {
            assert!(s.present.iter().any(|x| x.path == p), "{p} not present");
        }
        let inc = s.present.iter().find(|x| x.path == "include").unwrap();
        assert_eq!(
            (inc.key.as_str(), inc.at.line, inc.at.column),
            ("include", 2, 1)
        );
        assert_eq!(s.camera.unwrap().fstop, Some(2.0));
    }

    #[test]
    fn material_defaults_match_the_model() {
        let dir = project(HEAD);
        std::fs::write(
            dir.path().join("lib.materials.toml"),
            "format = 1\n[materials.bare]\nid = \"wwwwwwww01\"\n",
        )
        .unwrap();
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        let m = &s.materials[0];
        let d = Material::default();
        assert_eq!(
            (
                m.family,
                m.base,
                m.roughness,
                m.metalness,
                m.specular,
                m.clearcoat,
                m.clearcoat_roughness,
                m.sheen
            ),
            (
                d.family,
                d.base,
                d.roughness,
                d.metalness,
                d.specular,
                d.clearcoat,
                d.clearcoat_roughness,
                d.sheen
            )
        );
        assert_eq!(
            (
                m.transmission,
                m.ior,
                m.dispersion,
                m.thickness,
                m.subsurface,
                m.subsurface_tint,
                m.absorption
            ),
            (
                d.transmission,
                d.ior,
                d.dispersion,
                d.thickness,
                d.subsurface,
                d.subsurface_tint,
                d.absorption
            )
        );
        assert_eq!(
            (
                m.thin_film,
                m.thin_film_ior,
                m.thin_film_amount,
                m.emission,
                m.fresnel_power
            ),
            (
                d.thin_film,
                d.thin_film_ior,
                d.thin_film_amount,
                d.emission,
                d.fresnel_power
            )
        );
        let c = Camera::default();
        let dir = project(&format!("{HEAD}[camera]\n"));
        let got = load(&dir.path().join("t.scene.toml"))
            .unwrap()
            .camera
            .unwrap();
        assert_eq!(
            (
                got.at,
                got.look_at,
                got.up,
                got.fov,
                got.sensor,
                got.near,
                got.far
            ),
            (c.at, c.look_at, c.up, c.fov, c.sensor, c.near, c.far)
        );
    }

    #[test]
    fn errors_come_in_file_order() {
        let d = run(&format!(
            "{HEAD}[camera]\nfov = 500\nbogus = 1\n[[light]]\nname = 3\n"
        ));
        let lines: Vec<u32> = d.iter().map(|d| d.line).collect();
        let mut sorted = lines.clone();
        sorted.sort();
        assert_eq!(lines, sorted);
        assert!(errors(&d).len() >= 4, "{d:#?}");
    }

    /// Nesting deeper than any stack could follow is refused by the parser, not recursed into.
    #[test]
    fn deep_nesting_is_refused_without_recursion() {
        let deep = format!(
            "format = 1\nauthoring = {}1{}\n",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let d = run(&deep);
        assert_eq!(errors(&d)[0].code, "syntax");
        let ok = format!(
            "format = 1\nauthoring = {}1{}\n",
            "[".repeat(20),
            "]".repeat(20)
        );
        assert!(errors(&run(&ok)).is_empty());
    }

    /// Thousands of mutated scenes (byte flips, truncations, spliced lines): none panics.
    #[test]
    fn mutated_inputs_never_panic() {
        let scene = data("spheres/spheres.scene.toml");
        let base = std::fs::read(&scene).unwrap();
        let rel = PathBuf::from("spheres.scene.toml");
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        let mut errs = 0;
        for i in 0..3000 {
            let b = mutate(&base, i, &mut next);
            let overlay = HashMap::from([(rel.clone(), b)]);
            if load_with(&scene, overlay).is_err() {
                errs += 1;
            }
        }
        // Most mutations break something; the test is that none panicked.
        assert!(errs > 1000, "{errs}");
    }

    /// The same over the lamp: its scene (placements, overrides by name and by id) and its
    /// prefab, mutated in turn.
    #[test]
    fn mutated_placements_never_panic() {
        let scene = data("lamp/desk.scene.toml");
        let files = ["desk.scene.toml", "props/lamp.prefab.toml"];
        let bases: Vec<Vec<u8>> = files
            .iter()
            .map(|f| std::fs::read(data("lamp").join(f)).unwrap())
            .collect();
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        let mut errs = 0;
        for i in 0..2000 {
            let which = (i / 4) % 2;
            let b = mutate(&bases[which], i, &mut next);
            let overlay = HashMap::from([(PathBuf::from(files[which]), b)]);
            if load_with(&scene, overlay).is_err() {
                errs += 1;
            }
        }
        assert!(errs > 500, "{errs}");
    }

    /// xorshift64*: fixed seed, deterministic.
    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed;
        move || {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
    }

    /// One mutation of `base`, of kind `i % 4`: byte flips, a truncation, a splice, a deletion.
    fn mutate(base: &[u8], i: usize, next: &mut impl FnMut() -> u64) -> Vec<u8> {
        const BYTES: &[u8] = b"[]{}\"'=.,#\n 0-9e+ax/\\\xff\xc3\xa9";
        let mut b = base.to_vec();
        match i % 4 {
            0 => {
                for _ in 0..1 + next() % 4 {
                    let at = (next() as usize) % b.len();
                    b[at] = BYTES[(next() as usize) % BYTES.len()];
                }
            }
            1 => b.truncate((next() as usize) % b.len()),
            2 => {
                let at = (next() as usize) % b.len();
                let len = (next() as usize) % 40;
                let end = (at + len).min(b.len());
                let piece = b[at..end].to_vec();
                let to = (next() as usize) % b.len();
                b.splice(to..to, piece);
            }
            _ => {
                let at = (next() as usize) % b.len();
                b.remove(at);
            }
        }
        b
    }

    // -----------------------------------------------------------------------------------------
    // includes, prefabs

    /// A project from (path, text) pairs, with a project.toml and an m.glb unless given.
    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        std::fs::write(
            r.join("project.toml"),
            "format = 1\n[project]\nname = \"t\"\n",
        )
        .unwrap();
        std::fs::write(r.join("m.glb"), "x").unwrap();
        for (p, text) in files {
            let p = r.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    fn light(name: &str) -> String {
        format!("[[light]]\nname = \"{name}\"\nposition = [0, 1, 0]\nintensity = 1\n")
    }

    fn scene_of(dir: &tempfile::TempDir, file: &str) -> Scene {
        load(&dir.path().join(file)).unwrap_or_else(|d| panic!("{d:#?}"))
    }

    fn errs_of(dir: &tempfile::TempDir, file: &str) -> Vec<Diagnostic> {
        match load(&dir.path().join(file)) {
            Ok(s) => panic!("loaded; warnings {:#?}", s.warnings),
            Err(d) => d.into_iter().filter(|d| d.is_error()).collect(),
        }
    }

    fn rel(d: &Diagnostic) -> Vec<(String, u32, u32)> {
        d.related
            .iter()
            .map(|l| (l.file.display().to_string(), l.line, l.column))
            .collect()
    }

    #[test]
    fn includes_merge_first_in_order_depth_first() {
        let dir = tree(&[
            (
                "t.scene.toml",
                &format!(
                    "format = 1\ninclude = [\"a.scene.toml\", \"b.scene.toml\"]\n{}",
                    light("t")
                ),
            ),
            (
                "a.scene.toml",
                &format!("format = 1\ninclude = [\"c.scene.toml\"]\n{}", light("a")),
            ),
            ("b.scene.toml", &format!("format = 1\n{}", light("b"))),
            ("c.scene.toml", &format!("format = 1\n{}", light("c"))),
        ]);
        let s = scene_of(&dir, "t.scene.toml");
        let keys: Vec<&str> = s.lights.iter().map(|l| l.key.as_str()).collect();
        assert_eq!(keys, ["c", "a", "b", "t"]);
        for f in ["a.scene.toml", "b.scene.toml", "c.scene.toml"] {
            assert!(s.files.contains(&PathBuf::from(f)), "{f} in {:?}", s.files);
        }
        // Names, references and ids across the files of a scene and its includes.
        let dir = tree(&[
            (
                "t.scene.toml",
                "format = 1\ninclude = [\"a.scene.toml\"]\n[[object]]\nid = \"aaaaaaaa01\"\nname = \"o\"\nmesh = \"m\"\n",
            ),
            (
                "a.scene.toml",
                "format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n",
            ),
        ]);
        let s = scene_of(&dir, "t.scene.toml");
        assert_eq!(s.objects[0].mesh, "m");
        let dir = tree(&[
            (
                "t.scene.toml",
                &format!("format = 1\ninclude = [\"a.scene.toml\"]\n{}", light("x")),
            ),
            ("a.scene.toml", &format!("format = 1\n{}", light("x"))),
        ]);
        let d = errs_of(&dir, "t.scene.toml");
        let e = one(&d, "duplicate-name");
        assert_eq!((e.file.clone(), e.line), (PathBuf::from("t.scene.toml"), 4));
        assert_eq!(rel(&e), [("a.scene.toml".to_string(), 3, 8)]);
        let dir = tree(&[
            (
                "t.scene.toml",
                "format = 1\ninclude = [\"a.scene.toml\"]\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n",
            ),
            (
                "a.scene.toml",
                "format = 1\n[mesh.n]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n",
            ),
        ]);
        // Ids are the project's: the second in the order read (the scene before its includes).
        let e = one(&errs_of(&dir, "t.scene.toml"), "duplicate-id");
        assert_eq!((e.file.clone(), e.line), (PathBuf::from("a.scene.toml"), 3));
        assert_eq!(rel(&e), [("t.scene.toml".to_string(), 4, 6)]);
    }

    #[test]
    fn one_file_tables_held_twice() {
        let dir = tree(&[
            (
                "t.scene.toml",
                "format = 1\ninclude = [\"a.scene.toml\"]\n[camera]\nfov = 30\n",
            ),
            ("a.scene.toml", "format = 1\n\n[camera]\nfov = 50\n"),
        ]);
        let d = errs_of(&dir, "t.scene.toml");
        let e = one(&d, "held-twice");
        assert_eq!(
            (e.file.clone(), at(&e)),
            (PathBuf::from("t.scene.toml"), ("camera", 3, 2, 3, 8))
        );
        assert_eq!(rel(&e), [("a.scene.toml".to_string(), 3, 2)]);
        assert_eq!(errors(&d).len(), 1, "{d:#?}");
        // Held once across the files: read from the file that holds it.
        let dir = tree(&[
            ("t.scene.toml", "format = 1\ninclude = [\"a.scene.toml\"]\n"),
            ("a.scene.toml", "format = 1\n[camera]\nfov = 50\n"),
        ]);
        assert_eq!(scene_of(&dir, "t.scene.toml").camera.unwrap().fov, 50.0);
    }

    #[test]
    fn include_cycle_names_the_chain() {
        let dir = tree(&[
            ("t.scene.toml", "format = 1\ninclude = [\"a.scene.toml\"]\n"),
            ("a.scene.toml", "format = 1\ninclude = [\"t.scene.toml\"]\n"),
        ]);
        let d = errs_of(&dir, "t.scene.toml");
        let e = one(&d, "include-cycle");
        assert_eq!(
            (e.file.clone(), at(&e)),
            (PathBuf::from("a.scene.toml"), ("include.0", 2, 12, 2, 26))
        );
        assert_eq!(
            rel(&e),
            [
                ("t.scene.toml".to_string(), 2, 12),
                ("a.scene.toml".to_string(), 2, 12)
            ]
        );
        assert!(
            e.message
                .contains("t.scene.toml → a.scene.toml → t.scene.toml"),
            "{}",
            e.message
        );
        assert_eq!(errors(&d).len(), 1, "{d:#?}");
    }

    /// A chain of `n` includes (`n` + 1 files): i0 includes i1 … includes i`n`.
    fn include_chain(n: usize) -> tempfile::TempDir {
        let dir = tree(&[]);
        for i in 0..=n {
            let inc = if i < n {
                format!("include = [\"i{}.scene.toml\"]\n", i + 1)
            } else {
                String::new()
            };
            std::fs::write(
                dir.path().join(format!("i{i}.scene.toml")),
                format!("format = 1\n{inc}{}", light(&format!("l{i}"))),
            )
            .unwrap();
        }
        dir
    }

    /// A chain of `n` placements: t places p1, p1 places p2 … p`n-1` places p`n`.
    fn prefab_chain(n: usize) -> tempfile::TempDir {
        let place = |i: usize| {
            format!("[[object]]\nname = \"p{i}\"\nprefab = \"p{i}.prefab.toml\"\nat = [1, 0, 0]\n")
        };
        let dir = tree(&[("t.scene.toml", &format!("format = 1\n{}", place(1)))]);
        for i in 1..=n {
            let next = if i < n { place(i + 1) } else { String::new() };
            std::fs::write(
                dir.path().join(format!("p{i}.prefab.toml")),
                format!("format = 1\n{}{next}", light("l")),
            )
            .unwrap();
        }
        dir
    }

    /// Runs `f` on a thread with a 2 MB stack, as the spec's depth tests do.
    fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap()
    }

    #[test]
    fn includes_64_deep_read_65_refused() {
        let dir = include_chain(64);
        let s = scene_of(&dir, "i0.scene.toml");
        assert_eq!(s.lights.len(), 65);
        assert_eq!(s.lights[0].key, "l64");
        let dir = include_chain(65);
        let d = errs_of(&dir, "i0.scene.toml");
        let e = one(&d, "include-depth");
        assert_eq!(
            (e.file.clone(), e.key.as_str(), e.line),
            (PathBuf::from("i64.scene.toml"), "include.0", 2)
        );
        assert_eq!(e.related.len(), 65);
        assert_eq!(e.related[0].file, PathBuf::from("i0.scene.toml"));
        assert_eq!(e.related[64].file, PathBuf::from("i64.scene.toml"));
        assert!(
            e.message.contains("i0.scene.toml → i1.scene.toml"),
            "{}",
            e.message
        );
        assert!(
            e.message.ends_with("i64.scene.toml → i65.scene.toml"),
            "{}",
            e.message
        );
        assert_eq!(errors(&d).len(), 1);
    }

    #[test]
    fn placements_64_deep_placed_65_refused() {
        let dir = prefab_chain(64);
        let s = scene_of(&dir, "t.scene.toml");
        assert_eq!(s.groups.len(), 64);
        assert_eq!(s.lights.len(), 64);
        let deepest = (1..=64).map(|i| format!("p{i}/")).collect::<String>() + "l";
        assert_eq!(s.lights[63].key, deepest);
        let dir = prefab_chain(65);
        let d = errs_of(&dir, "t.scene.toml");
        let e = one(&d, "prefab-depth");
        assert_eq!(
            (e.file.clone(), e.key.as_str(), e.line),
            (PathBuf::from("p64.prefab.toml"), "object.0.prefab", 8)
        );
        assert_eq!(e.related.len(), 65);
        assert_eq!(
            (e.related[0].file.clone(), e.related[0].line),
            (PathBuf::from("t.scene.toml"), 4)
        );
        assert!(
            e.message.ends_with("p64.prefab.toml → p65.prefab.toml"),
            "{}",
            e.message
        );
        assert_eq!(errors(&d).len(), 1);
    }

    /// The chain lives on the heap: 64 deep reads and 1000 deep is refused on a 2 MB stack
    /// (the test profile optimises, but a recursion per link would still need ~1000 frames).
    #[test]
    fn depth_needs_no_stack() {
        let codes = on_small_stack(|| {
            let inc64 = include_chain(64);
            let ok = load(&inc64.path().join("i0.scene.toml")).is_ok();
            let pre64 = prefab_chain(64);
            let ok2 = load(&pre64.path().join("t.scene.toml")).is_ok();
            let inc = include_chain(1000);
            let a = load(&inc.path().join("i0.scene.toml")).unwrap_err();
            let pre = prefab_chain(1000);
            let b = load(&pre.path().join("t.scene.toml")).unwrap_err();
            let first = |d: &[Diagnostic]| {
                d.iter()
                    .filter(|d| d.is_error())
                    .map(|d| (d.code, d.related.len()))
                    .collect::<Vec<_>>()
            };
            (ok, ok2, first(&a), first(&b))
        });
        assert_eq!(
            codes,
            (
                true,
                true,
                vec![("include-depth", 65)],
                vec![("prefab-depth", 65)]
            )
        );
    }

    #[test]
    fn prefab_cycle_names_the_placements() {
        let dir = tree(&[
            (
                "t.scene.toml",
                "format = 1\n[[object]]\nname = \"a\"\nprefab = \"p.prefab.toml\"\n",
            ),
            (
                "p.prefab.toml",
                "format = 1\n[[object]]\nname = \"b\"\nprefab = \"q.prefab.toml\"\n",
            ),
            (
                "q.prefab.toml",
                "format = 1\n[[object]]\nname = \"c\"\nprefab = \"p.prefab.toml\"\n",
            ),
        ]);
        let d = errs_of(&dir, "t.scene.toml");
        let e = one(&d, "prefab-cycle");
        assert_eq!(
            (e.file.clone(), at(&e)),
            (
                PathBuf::from("q.prefab.toml"),
                ("object.0.prefab", 4, 10, 4, 25)
            )
        );
        assert_eq!(
            rel(&e),
            [
                ("t.scene.toml".to_string(), 4, 10),
                ("p.prefab.toml".to_string(), 4, 10),
                ("q.prefab.toml".to_string(), 4, 10)
            ]
        );
        assert!(
            e.message
                .contains("t.scene.toml → p.prefab.toml → q.prefab.toml → p.prefab.toml"),
            "{}",
            e.message
        );
        // Missing ids are warnings; the cycle is the one error.
        assert_eq!(errors(&d).len(), 1, "{d:#?}");
    }

    #[test]
    fn lamp_placements_resolve_as_the_spec_says() {
        let s = load(&data("lamp/desk.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        assert!(s.warnings.is_empty(), "{:#?}", s.warnings);
        let keys: Vec<(&str, Option<&str>, Option<&str>)> = s
            .objects
            .iter()
            .map(|o| (o.key.as_str(), o.id.as_deref(), o.parent.as_deref()))
            .collect();
        assert_eq!(
            keys,
            [
                ("desk", Some("desk000001"), None),
                (
                    "left lamp/shade",
                    Some("q8w2e6r4ty/shade00001"),
                    Some("left lamp")
                ),
                (
                    "left lamp/stem",
                    Some("q8w2e6r4ty/stem000001"),
                    Some("left lamp/shade")
                ),
                (
                    "right lamp/shade",
                    Some("r8ght0amp0/shade00001"),
                    Some("right lamp")
                ),
                (
                    "right lamp/stem",
                    Some("r8ght0amp0/stem000001"),
                    Some("right lamp/shade")
                ),
            ]
        );
        let groups: Vec<(&str, &Path, Option<&str>)> = s
            .groups
            .iter()
            .map(|g| (g.key.as_str(), g.prefab.as_path(), g.parent.as_deref()))
            .collect();
        let lamp = Path::new("props/lamp.prefab.toml");
        assert_eq!(
            groups,
            [
                ("left lamp", lamp, Some("desk")),
                ("right lamp", lamp, Some("desk"))
            ]
        );
        assert_eq!(
            (s.groups[0].at, s.groups[0].rotate, s.groups[1].scale),
            ([-1.2, 0.0, 0.4], [0.0, 30.0, 0.0], [2.0; 3])
        );
        // Placed meshes are the placement's, keyed under it.
        let mesh_of = |k: &str| s.objects.iter().find(|o| o.key == k).unwrap();
        assert_eq!(mesh_of("left lamp/shade").mesh, "left lamp/shade");
        assert_eq!(mesh_of("right lamp/stem").mesh, "right lamp/shade");
        assert!(s
            .meshes
            .iter()
            .any(|m| m.key == "right lamp/shade" && m.file == Path::new("meshes/lamp.glb")));
        // The overrides: a material reference resolved inside the prefab, a light's intensity,
        // a material of the prefab's library for one placement, a scale.
        assert_eq!(
            mesh_of("left lamp/shade").material.as_deref(),
            Some("brass")
        );
        assert_eq!(
            mesh_of("right lamp/shade").material.as_deref(),
            Some("right lamp/cloth")
        );
        assert_eq!(mesh_of("right lamp/stem").scale, [0.5; 3]);
        assert_eq!(mesh_of("left lamp/stem").scale, [0.1, 1.0, 0.1]);
        let mat = |k: &str| s.materials.iter().find(|m| m.key == k).unwrap();
        assert_eq!(mat("cloth").base, [0.9, 0.85, 0.7]);
        assert_eq!(
            (
                mat("right lamp/cloth").base,
                mat("right lamp/cloth").roughness
            ),
            ([1.0, 0.0, 0.0], 0.9)
        );
        assert_eq!(
            mat("right lamp/cloth").library,
            PathBuf::from("props/lamp.materials.toml")
        );
        let lights: Vec<(&str, Option<&str>, f32)> = s
            .lights
            .iter()
            .map(|l| (l.key.as_str(), l.parent.as_deref(), l.intensity))
            .collect();
        assert_eq!(
            lights,
            [
                ("left lamp/bulb", Some("left lamp"), 3.0),
                ("right lamp/bulb", Some("right lamp"), 1.0)
            ]
        );
        assert_eq!(s.lights[0].id.as_deref(), Some("q8w2e6r4ty/b8bb000001"));
        assert!(s.files.contains(&PathBuf::from("props/lamp.prefab.toml")));
        assert!(s
            .files
            .contains(&PathBuf::from("props/lamp.materials.toml")));
        assert!(s.objects.iter().all(|o| !o.dynamic && !o.hidden));
    }

    const LAMP: &str = "format = 1\nmaterials = [\"lib.materials.toml\"]\n[mesh.shade]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n[[object]]\nid = \"aaaaaaaa01\"\nname = \"shade\"\nmesh = \"shade\"\nmaterial = \"white\"\n[[light]]\nid = \"hhhhhhhh01\"\nname = \"bulb\"\nposition = [0, 1, 0]\nintensity = 1\n";
    const LIB: &str = "format = 1\n[materials.white]\nid = \"wwwwwwww01\"\n";

    /// A scene placing lamp.prefab.toml once, with `set` lines (line 6 on).
    fn placed(set: &str) -> tempfile::TempDir {
        tree(&[
            ("lamp.prefab.toml", LAMP),
            ("lib.materials.toml", LIB),
            (
                "t.scene.toml",
                &format!("format = 1\n[[object]]\nid = \"pppppppp01\"\nname = \"l\"\nprefab = \"lamp.prefab.toml\"\n[object.set]\n{set}"),
            ),
        ])
    }

    /// A crate with a body placed inside a rig: a shelf (an ordinary object), the crate's
    /// placement at the root, and a mover of the shelf; the scene places the rig with `set`
    /// lines (line 6 on).
    fn rig_placed(set: &str) -> tempfile::TempDir {
        let body = "[object.body]\nkind = \"dynamic\"\nshape = \"box\"\nhalf = [0.5, 0.5, 0.5]\n";
        tree(&[
            (
                "crate.prefab.toml",
                &format!("format = 1\n[mesh.m]\nid = \"mmmmmmmm02\"\nfile = \"m.glb\"\n[[object]]\nid = \"cccccccc01\"\nname = \"crate\"\nmesh = \"m\"\n{body}"),
            ),
            (
                "rig.prefab.toml",
                "format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n[[object]]\nid = \"ssssssss01\"\nname = \"shelf\"\nmesh = \"m\"\n[[object]]\nid = \"nnnnnnnn01\"\nname = \"inner\"\nprefab = \"crate.prefab.toml\"\n[[mover]]\nid = \"vvvvvvvv01\"\nname = \"spin\"\nobjects = [\"shelf\"]\nkind = \"turn\"\npivot = [0.0, 3.0, 0.0]\naxis = [0.0, 1.0, 0.0]\ntravel = [0.0, 360.0]\nperiod = 4.0\n",
            ),
            (
                "t.scene.toml",
                &format!("format = 1\n[[object]]\nid = \"pppppppp01\"\nname = \"r\"\nprefab = \"rig.prefab.toml\"\n[object.set]\n{set}"),
            ),
        ])
    }

    #[test]
    fn a_body_an_override_misplaces_is_the_overrides_fault() {
        // As written, the body sits under placements no mover moves: clean.
        let dir = rig_placed("");
        let r = load(&dir.path().join("t.scene.toml"));
        assert!(r.is_ok(), "{:#?}", r.err());

        let loc = |d: &Diagnostic| -> Vec<(String, u32, u32)> {
            d.related
                .iter()
                .map(|r| (r.file.display().to_string(), r.line, r.column))
                .collect()
        };
        // An override puts the crate's placement under the ordinary shelf.
        let dir = rig_placed("\"inner.parent\" = \"shelf\"\n");
        let d = errs_of(&dir, "t.scene.toml");
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code, "bad-override");
        assert_eq!(d[0].file, Path::new("t.scene.toml"));
        assert_eq!(
            at(&d[0]),
            ("object.pppppppp01.set.\"inner.parent\"", 7, 1, 7, 15)
        );
        assert!(
            d[0].message.contains("\"r/shelf\" is an ordinary object"),
            "{}",
            d[0].message
        );
        assert_eq!(
            loc(&d[0]),
            [
                ("crate.prefab.toml".into(), 5, 1),
                ("rig.prefab.toml".into(), 5, 1)
            ]
        );

        // An override has the mover move the crate's placement.
        let dir = rig_placed("\"spin.objects\" = [\"inner\"]\n");
        let d = errs_of(&dir, "t.scene.toml");
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].code, "bad-override");
        assert_eq!(d[0].file, Path::new("t.scene.toml"));
        assert_eq!(
            at(&d[0]),
            ("object.pppppppp01.set.\"spin.objects\"", 7, 1, 7, 15)
        );
        assert!(d[0].message.contains("moved placement"), "{}", d[0].message);
        assert_eq!(
            loc(&d[0]),
            [
                ("crate.prefab.toml".into(), 5, 1),
                ("rig.prefab.toml".into(), 9, 1)
            ]
        );

        // Written in the prefab itself, it stays the body's bad-value.
        let dir = tree(&[(
            "p.prefab.toml",
            "format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n[[object]]\nid = \"ssssssss01\"\nname = \"shelf\"\nmesh = \"m\"\n[[object]]\nid = \"cccccccc01\"\nname = \"crate\"\nmesh = \"m\"\nparent = \"shelf\"\n[object.body]\nkind = \"dynamic\"\nshape = \"box\"\nhalf = [0.5, 0.5, 0.5]\n",
        )]);
        let d = load_prefab(&dir.path().join("p.prefab.toml"));
        let e: Vec<&Diagnostic> = errors(&d);
        assert_eq!(e.len(), 1, "{d:#?}");
        assert_eq!(
            (e[0].code, e[0].key.as_str()),
            ("bad-value", "object.cccccccc01.body")
        );
        assert_eq!(e[0].file, Path::new("p.prefab.toml"));
        assert_eq!(at(e[0]), ("object.cccccccc01.body", 14, 9, 14, 13));
    }

    #[test]
    fn a_body_a_scene_misplaces_is_reported_at_the_scenes_key() {
        let body = "[object.body]\nkind = \"dynamic\"\nshape = \"box\"\nhalf = [0.5, 0.5, 0.5]\n";
        let crate_prefab = format!("format = 1\n[mesh.m]\nid = \"mmmmmmmm02\"\nfile = \"m.glb\"\n[[object]]\nid = \"cccccccc01\"\nname = \"crate\"\nmesh = \"m\"\n{body}");
        let scene = |tail: &str| {
            format!("format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n[[object]]\nid = \"ssssssss01\"\nname = \"shelf\"\nmesh = \"m\"\n[[object]]\nid = \"pppppppp01\"\nname = \"c\"\nprefab = \"crate.prefab.toml\"\n{tail}")
        };
        // The placement's own `parent` puts the prefab's body under the ordinary shelf.
        let dir = tree(&[
            ("crate.prefab.toml", &crate_prefab),
            ("t.scene.toml", &scene("parent = \"shelf\"\n")),
        ]);
        let d = errs_of(&dir, "t.scene.toml");
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(
            (d[0].code, d[0].file.as_path()),
            ("bad-value", Path::new("t.scene.toml"))
        );
        assert_eq!(at(&d[0]), ("object.pppppppp01.parent", 13, 1, 13, 7));
        let rel: Vec<(String, u32)> = d[0]
            .related
            .iter()
            .map(|r| (r.file.display().to_string(), r.line))
            .collect();
        assert_eq!(
            rel,
            [("crate.prefab.toml".into(), 5), ("t.scene.toml".into(), 5)]
        );

        // A mover of the scene moves the placement above the body.
        let dir = tree(&[
            ("crate.prefab.toml", &crate_prefab),
            ("t.scene.toml", &scene("[[mover]]\nid = \"vvvvvvvv01\"\nname = \"spin\"\nobjects = [\"c\"]\nkind = \"turn\"\npivot = [0.0, 3.0, 0.0]\naxis = [0.0, 1.0, 0.0]\ntravel = [0.0, 360.0]\nperiod = 4.0\n")),
        ]);
        let d = errs_of(&dir, "t.scene.toml");
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(
            (d[0].code, d[0].file.as_path()),
            ("bad-value", Path::new("t.scene.toml"))
        );
        assert_eq!(at(&d[0]), ("mover.vvvvvvvv01.objects.0", 16, 12, 16, 15));
        assert!(d[0].message.contains("moved placement"), "{}", d[0].message);
    }

    #[test]
    fn overrides_are_checked_against_the_prefab() {
        let code = |set: &str| {
            let dir = placed(set);
            let d = errs_of(&dir, "t.scene.toml");
            assert_eq!(errors(&d).len(), 1, "{set}: {d:#?}");
            let e = d[0].clone();
            (e.code, e.key, e.line, e.column, e.message)
        };
        let (c, k, l, col, m) = code("\"lamp.intensity\" = 2\n");
        assert_eq!(
            (c, k.as_str(), l, col),
            (
                "bad-override",
                "object.pppppppp01.set.\"lamp.intensity\"",
                7,
                1
            )
        );
        assert!(m.contains("no entry of `lamp.prefab.toml`"), "{m}");
        let (c, _, l, _, m) = code("\"bulb.glow\" = 2\n");
        assert_eq!((c, l), ("bad-override", 7));
        assert!(
            m.contains("takes no key `glow`") && m.contains("intensity"),
            "{m}"
        );
        let (c, _, l, col, _) = code("\"bulb.intensity\" = \"bright\"\n");
        assert_eq!((c, l, col), ("bad-override", 7, 20));
        let (c, _, _, _, m) = code("\"bulb.intensity\" = -1\n");
        assert!(c == "bad-override" && m.contains("≥ 0"), "{m}");
        // A reference in an override resolves inside the prefab: the scene's names are not seen.
        let (c, _, _, _, m) = code("\"shade.material\" = \"gold\"\n");
        assert!(
            c == "bad-override" && m.contains("inside the prefab"),
            "{m}"
        );
        let (c, _, _, _, _) = code("\"shade.name\" = \"x\"\n");
        assert_eq!(c, "bad-override");
        let (c, _, _, _, _) = code("shade = 1\n");
        assert_eq!(c, "bad-override");
        // Key paths into sub-tables and maps; a key the entry takes but doesn't hold yet.
        let dir = placed("\"shade.materials.lid\" = \"white\"\n\"shade.two_sided\" = true\n\"shade.body.kind\" = \"fixed\"\n\"bulb.color\" = [1, 0, 0]\n");
        let s = scene_of(&dir, "t.scene.toml");
        assert_eq!(
            s.objects[0].materials,
            [("lid".to_string(), "white".to_string())]
        );
        assert!(s.objects[0].two_sided);
        assert_eq!(s.lights[0].color, [1.0, 0.0, 0.0]);
        assert_eq!(s.lights[0].position, [0.0, 1.0, 0.0]);
    }

    #[test]
    fn nested_placements_namespace_and_override_through() {
        let outer = "format = 1\n[[object]]\nid = \"nnnnnnnn01\"\nname = \"inner\"\nprefab = \"lamp.prefab.toml\"\nat = [0, 2, 0]\n[object.set]\n\"bulb.intensity\" = 5\n";
        let dir = tree(&[
            ("lamp.prefab.toml", LAMP),
            ("lib.materials.toml", LIB),
            ("outer.prefab.toml", outer),
            (
                "t.scene.toml",
                "format = 1\n[[object]]\nid = \"pppppppp01\"\nname = \"o\"\nprefab = \"outer.prefab.toml\"\ndynamic = true\n[object.set]\n\"nnnnnnnn01/hhhhhhhh01.radius\" = 0.5\n\"inner.at\" = [0, 3, 0]\n[[mover]]\nid = \"vvvvvvvv01\"\nname = \"m\"\nobjects = [\"pppppppp01/nnnnnnnn01/aaaaaaaa01\"]\nkind = \"slide\"\naxis = [0, 1, 0]\ntravel = [0, 1]\n",
            ),
        ]);
        let s = scene_of(&dir, "t.scene.toml");
        let g: Vec<(&str, Option<&str>, [f32; 3], bool)> = s
            .groups
            .iter()
            .map(|g| (g.key.as_str(), g.id.as_deref(), g.at, g.dynamic))
            .collect();
        assert_eq!(
            g,
            [
                ("o", Some("pppppppp01"), [0.0; 3], true),
                (
                    "o/inner",
                    Some("pppppppp01/nnnnnnnn01"),
                    [0.0, 3.0, 0.0],
                    true
                )
            ]
        );
        let o = &s.objects[0];
        assert_eq!(
            (
                o.key.as_str(),
                o.id.as_deref(),
                o.parent.as_deref(),
                o.dynamic
            ),
            (
                "o/inner/shade",
                Some("pppppppp01/nnnnnnnn01/aaaaaaaa01"),
                Some("o/inner"),
                true
            )
        );
        let l = &s.lights[0];
        assert_eq!(
            (l.key.as_str(), l.parent.as_deref(), l.intensity, l.radius),
            ("o/inner/bulb", Some("o/inner"), 5.0, 0.5)
        );
        assert!(s.materials.iter().any(|m| m.key == "white"));
    }

    #[test]
    fn hidden_and_dynamic_reach_down() {
        let dir = tree(&[
            ("lamp.prefab.toml", &format!("{LAMP}[[object]]\nid = \"aaaaaaaa02\"\nname = \"still\"\nmesh = \"shade\"\ndynamic = false\n")),
            ("lib.materials.toml", LIB),
            (
                "t.scene.toml",
                &format!(
                    "format = 1\n[mesh.m]\nid = \"mmmmmmmm09\"\nfile = \"m.glb\"\n[[object]]\nid = \"pppppppp01\"\nname = \"a\"\nprefab = \"lamp.prefab.toml\"\nhidden = true\ndynamic = true\n{}{}",
                    obj("bbbbbbbb01", "box", "hidden = true\n"),
                    obj("bbbbbbbb02", "lid", "parent = \"box\"\n")
                ),
            ),
        ]);
        let s = scene_of(&dir, "t.scene.toml");
        let got: Vec<(&str, bool, bool)> = s
            .objects
            .iter()
            .map(|o| (o.key.as_str(), o.hidden, o.dynamic))
            .collect();
        // A placement's hidden hides all it places; an ordinary parent's hides only itself.
        assert_eq!(
            got,
            [
                ("box", true, false),
                ("lid", false, false),
                ("a/shade", true, true),
                ("a/still", true, false)
            ]
        );
    }

    #[test]
    fn tile_layers_of_the_spec_place_their_cells() {
        let pre = |n: &str| {
            format!("format = 1\n[mesh.m]\nfile = \"m.glb\"\n[[object]]\nname = \"{n}\"\nmesh = \"m\"\n")
        };
        let dir = tree(&[
            ("tiles/brick.prefab.toml", &pre("b")),
            ("tiles/spike.prefab.toml", &pre("s")),
            ("tiles/wall.prefab.toml", &pre("w")),
            (
                "t.scene.toml",
                "format = 1\n\n[[tiles]]\nid = \"gr0nd00001\"\nname = \"ground\"\ncell = 0.5\norigin = [-4.0, 0.0, 0.0]\npalette = { \"#\" = \"tiles/brick.prefab.toml\", \"^\" = \"tiles/spike.prefab.toml\" }\nrows = [\n  \"....^...\",\n  \"########\",\n]\n\n[[tiles]]\nid = \"f100r00001\"\nname = \"floor plan\"\ncell = [2.0, 3.0]\nplane = \"xz\"\npalette = { wall = \"tiles/wall.prefab.toml\" }\ncells = [{ at = [0, 0], tile = \"wall\" }, { at = [-1, 2], tile = \"wall\" }]\n",
            ),
        ]);
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        let ground = &s.tiles[0];
        assert_eq!(
            (ground.key.as_str(), ground.cell, ground.plane),
            ("ground", [0.5, 0.5], Plane::Xy)
        );
        assert_eq!(ground.cells[0], ([4, 1], "^".to_string()));
        assert_eq!(ground.cells.len(), 9);
        assert_eq!(ground.position([4, 1]), [-2.0, 0.5, 0.0]);
        assert_eq!(ground.position([7, 0]), [-0.5, 0.0, 0.0]);
        assert_eq!(
            ground.palette[1],
            ("^".to_string(), PathBuf::from("tiles/spike.prefab.toml"))
        );
        let plan = &s.tiles[1];
        assert_eq!((plan.cell, plan.plane), ([2.0, 3.0], Plane::Xz));
        assert_eq!(plan.position([-1, 2]), [-2.0, 0.0, -6.0]);
        let yz = Tiles {
            cell: [2.0, 3.0],
            origin: [1.0, 2.0, 3.0],
            plane: Plane::Yz,
            ..Tiles::default()
        };
        assert_eq!(yz.position([1, 1]), [1.0, 5.0, 1.0]);
        // Each filled cell is a group at its position, unturned, unscaled, with no id.
        let groups: Vec<(&str, [f32; 3])> =
            s.groups.iter().map(|g| (g.key.as_str(), g.at)).collect();
        assert_eq!(groups.len(), 11);
        assert_eq!(groups[0], ("ground/4,1", [-2.0, 0.5, 0.0]));
        assert_eq!(groups[1], ("ground/0,0", [-4.0, 0.0, 0.0]));
        assert_eq!(groups[9], ("floor plan/0,0", [0.0; 3]));
        assert_eq!(groups[10], ("floor plan/-1,2", [-2.0, 0.0, -6.0]));
        assert!(s
            .groups
            .iter()
            .all(|g| g.id.is_none() && g.rotate == [0.0; 3] && g.scale == [1.0; 3]));
        let spike = s.objects.iter().find(|o| o.key == "ground/4,1/s").unwrap();
        assert_eq!(
            (
                spike.parent.as_deref(),
                spike.id.as_deref(),
                spike.mesh.as_str()
            ),
            (Some("ground/4,1"), None, "ground/4,1/m")
        );
        assert_eq!(s.objects.len(), 11);
        assert!(s.files.contains(&PathBuf::from("tiles/wall.prefab.toml")));
    }

    #[test]
    fn a_prefab_includes_prefabs_and_proxies_reach_placed_objects() {
        let dir = tree(&[
            ("lamp.prefab.toml", &format!("{}include = [\"base.prefab.toml\"]\n{}", &LAMP[..11], &LAMP[11..])),
            ("base.prefab.toml", &format!("format = 1\n{}", light("base"))),
            ("lib.materials.toml", LIB),
            ("t.proxies.toml", "format = 1\n[[proxy]]\nid = \"xxxxxxxx01\"\nobject = \"l/shade\"\nkind = \"box\"\nsize = [1, 1, 1]\n[[proxy]]\nid = \"xxxxxxxx02\"\nobject = \"pppppppp01/aaaaaaaa01\"\nkind = \"box\"\nsize = [1, 1, 1]\n[[proxy]]\nid = \"xxxxxxxx03\"\nobject = \"l\"\nkind = \"box\"\nsize = [1, 1, 1]\n"),
            (
                "t.scene.toml",
                "format = 1\n[[object]]\nid = \"pppppppp01\"\nname = \"l\"\nprefab = \"lamp.prefab.toml\"\n[plates]\ndir = \"plates\"\nproxies = \"t.proxies.toml\"\n",
            ),
        ]);
        let d = errs_of(&dir, "t.scene.toml");
        // The first two name the placed shade; the third names the placement itself.
        let e = one(&d, "bad-reference");
        assert_eq!(
            (e.file.clone(), e.line, e.key.as_str()),
            (
                PathBuf::from("t.proxies.toml"),
                14,
                "proxy.xxxxxxxx03.object"
            )
        );
        assert_eq!(errors(&d).len(), 1, "{d:#?}");
        std::fs::write(dir.path().join("t.proxies.toml"), "format = 1\n").unwrap();
        let s = scene_of(&dir, "t.scene.toml");
        let keys: Vec<&str> = s.lights.iter().map(|l| l.key.as_str()).collect();
        assert_eq!(keys, ["l/base", "l/bulb"]);
    }

    #[test]
    fn rigs_proxies_and_layers_reach_the_model() {
        let dir = tree(&[
            ("project.toml", "format = 1\n[project]\nname = \"t\"\n[layers]\nworld = [\"world\", \"hero\"]\nhero = [\"world\"]\n"),
            ("lamp.prefab.toml", LAMP),
            ("lib.materials.toml", LIB),
            (
                "t.proxies.toml",
                "format = 1\n[[proxy]]\nobject = \"hero\"\nkind = \"box\"\nat = [1, 2, 3]\nrotate = [0, 90, 0]\nsize = [0.5, 1, 2]\n[[proxy]]\nobject = \"pppppppp01/aaaaaaaa01\"\nkind = \"hull\"\npoints = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]\ntriangles = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]\n[[proxy]]\nid = \"xxxxxxxx01\"\nobject = \"l/shade\"\nkind = \"box\"\nsize = [1, 1, 1]\n",
            ),
            (
                "t.scene.toml",
                "format = 1\nmaterials = [\"lib.materials.toml\"]\n[mesh.box]\nfile = \"m.glb\"\n[[object]]\nid = \"her0000001\"\nname = \"hero\"\nmesh = \"box\"\n[[object]]\nid = \"pppppppp01\"\nname = \"l\"\nprefab = \"lamp.prefab.toml\"\n\n[[rig]]\nid = \"s1dec4m001\"\nname = \"side\"\nkind = \"follow\"\ntarget = \"hero\"\noffset = [0.0, 1.0, 10.0]\ndead_zone = [0.5, 0.25]\nlook_ahead = 1.5\nbounds = { min = [-20.0, 0.0, 10.0], max = [20.0, 8.0, 10.0] }\northographic = 9.0\nsnap = 16.0\n\n[[rig]]\nname = \"eyes\"\nkind = \"first-person\"\ntarget = \"her0000001\"\n[[rig]]\nname = \"chase\"\nkind = \"follow\"\n[[rig]]\nname = \"trail\"\nkind = \"follow\"\ntarget = \"hero\"\n[camera]\nat = [1.0, 2.0, 8.0]\nlook_at = [0.0, 1.0, 0.0]\n[plates]\ndir = \"plates\"\nproxies = \"t.proxies.toml\"\n",
            ),
        ]);
        let s = scene_of(&dir, "t.scene.toml");

        // The spec's follow rig, its target rewritten to the object's key.
        let side = &s.rigs[0];
        assert_eq!(
            (side.key.as_str(), side.id.as_deref(), side.kind),
            ("side", Some("s1dec4m001"), RigKind::Follow)
        );
        assert_eq!(side.target.as_deref(), Some("hero"));
        assert_eq!(side.offset, Some([0.0, 1.0, 10.0]));
        assert_eq!((side.dead_zone, side.look_ahead), ([0.5, 0.25], 1.5));
        assert_eq!(side.bounds, Some(([-20.0, 0.0, 10.0], [20.0, 8.0, 10.0])));
        assert_eq!((side.orthographic, side.snap), (Some(9.0), Some(16.0)));
        assert_eq!(side.damping, [0.0; 3]);
        // A target by id becomes the key too; a first-person rig's defaults are the spec's.
        let eyes = &s.rigs[1];
        assert_eq!(
            (eyes.kind, eyes.target.as_deref(), eyes.offset),
            (RigKind::FirstPerson, Some("hero"), Some([0.0; 3]))
        );
        assert_eq!(
            (
                eyes.sensitivity,
                eyes.invert,
                eyes.smoothing,
                eyes.pitch,
                eyes.head_bob
            ),
            (1.0, false, 0.0, [-85.0, 85.0], 0.0)
        );
        // A follow rig without offset and target has no default to give; with a target, its
        // default is `[camera] at` less the target's place at rest (hero at the origin).
        assert_eq!(
            (s.rigs[2].target.as_deref(), s.rigs[2].offset),
            (None, None)
        );
        assert_eq!(
            (s.rigs[3].target.as_deref(), s.rigs[3].offset),
            (Some("hero"), Some([1.0, 2.0, 8.0]))
        );
        assert_eq!(s.rigs.len(), 4);

        // Proxies keyed by place, each object rewritten to its key in the scene.
        let keys: Vec<(usize, &str)> = s
            .proxies
            .iter()
            .map(|p| (p.key, p.object.as_str()))
            .collect();
        assert_eq!(keys, [(0, "hero"), (1, "l/shade"), (2, "l/shade")]);
        let b = &s.proxies[0];
        assert_eq!(
            (b.kind, b.at, b.rotate, b.size),
            (
                ProxyKind::Box,
                [1.0, 2.0, 3.0],
                [0.0, 90.0, 0.0],
                [0.5, 1.0, 2.0]
            )
        );
        let h = &s.proxies[1];
        assert_eq!(
            (h.kind, h.points.len(), h.points[3]),
            (ProxyKind::Hull, 4, [0.0, 0.0, 1.0])
        );
        assert_eq!(h.triangles, [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]);
        assert_eq!(s.proxies[2].id.as_deref(), Some("xxxxxxxx01"));
        assert_eq!(s.proxies[2].at_loc.line, 13);

        // The project's layers, as written.
        let layers: Vec<(&str, Vec<&str>)> = s
            .layers
            .iter()
            .map(|(k, v)| (k.as_str(), v.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            layers,
            [("hero", vec!["world"]), ("world", vec!["world", "hero"])]
        );

        // Without [layers], none.
        std::fs::write(
            dir.path().join("project.toml"),
            "format = 1\n[project]\nname = \"t\"\n",
        )
        .unwrap();
        assert!(scene_of(&dir, "t.scene.toml").layers.is_empty());
    }
}
