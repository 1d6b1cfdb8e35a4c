//! Reading a scene: project.toml, the scene file and its material libraries (and its proxies
//! file), each walked against the schema; then ids, names and references across them; then
//! the plain-data [`Scene`].

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use toml_edit::ImDocument;

use super::check::{is_id, normalize, Ctx, Entry, Node, RefUse, Sp, Src, Tbl};
use super::diagnostic::{Diagnostic, Severity};
use super::model::*;
use super::schema::{self, Dflt, FileKind, Kind, TableSchema};

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
    };

    // project.toml first: the layer names the scene's bodies name come from it.
    let proj_rel = PathBuf::from("project.toml");
    ctx_layers_default(&mut l.ctx);
    let has_project = root.join(&proj_rel).is_file() || l.ctx.overlay.contains_key(&proj_rel);
    if has_project && l.read(&proj_rel, FileKind::Project, None).is_none() {
        // Its own error is reported; the scene's layer names go unchecked.
        l.ctx.check_layers = false;
    }
    let Some(scene_f) = l.read(&rel, FileKind::Scene, None) else {
        return Err(l.finish_err());
    };

    // The libraries and the proxies file the scene names, each read once.
    let named: Vec<(String, Sp, PathBuf)> = l
        .ctx
        .ok_paths
        .iter()
        .filter(|(f, _, _, _)| *f == scene_f)
        .map(|(_, k, sp, p)| (k.clone(), sp.clone(), p.clone()))
        .collect();
    let mut libs: Vec<usize> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    for (key, sp, path) in &named {
        if key.starts_with("materials.") && !seen.contains(path) {
            seen.push(path.clone());
            if let Some(f) = l.read(path, FileKind::Materials, Some((sp.clone(), key.clone()))) {
                libs.push(f);
            }
        }
    }
    let mut proxies_f = None;
    for (key, sp, path) in &named {
        if key == "plates.proxies" {
            proxies_f = l.read(path, FileKind::Proxies, Some((sp.clone(), key.clone())));
        }
    }
    let scene = l.resolve(scene_f, &libs, proxies_f);
    let mut diags = std::mem::take(&mut l.ctx.diags);
    sort(&l.ctx.srcs, &mut diags);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let mut scene = scene;
    scene.warnings = diags;
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

/// Sorts findings into file order: by the order the files were read, then line and column.
fn sort(srcs: &[Src], diags: &mut [Diagnostic]) {
    let order = |d: &Diagnostic| {
        srcs.iter()
            .position(|s| s.rel == d.file)
            .unwrap_or(usize::MAX)
    };
    diags.sort_by_key(|d| (order(d), d.line, d.column));
}

/// An `[[object]]` as resolution needs it.
struct Obj<'a> {
    t: Tbl<'a>,
    name: String,
    key: String,
    head: Sp,
    placement: bool,
    parent: Option<usize>,
    explicit_dynamic: Option<bool>,
    dynamic: bool,
    /// The mover that moves it, as (mover key, where the object is named).
    mover: Option<(String, Sp)>,
}

struct Loader {
    ctx: Ctx,
    docs: Vec<Option<ImDocument<String>>>,
}

impl Loader {
    fn finish_err(&mut self) -> Vec<Diagnostic> {
        let mut d = std::mem::take(&mut self.ctx.diags);
        sort(&self.ctx.srcs, &mut d);
        d
    }

    /// Reads, parses and walks one file; returns its index when it is format 1 and parsed.
    fn read(
        &mut self,
        rel: &Path,
        kind: FileKind,
        named_at: Option<(Sp, String)>,
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
                        "unreadable",
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
                            "unreadable",
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
                    "not-utf8",
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
                    "syntax",
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
                    self.ctx
                        .err(&fsp, "bad-type", "format", "expected the integer 1".into());
                    return None;
                }
                Some(0) => {
                    self.ctx.err(
                        &fsp,
                        "migration",
                        "format",
                        "a format 0 file (no `format`, or format = 0): migrating format 0 is not implemented \
                         yet; migrate it to format 1 with pfx-scene"
                            .into(),
                    );
                    return None;
                }
                Some(v) if v > FORMAT => {
                    self.ctx.err(
                        &fsp,
                        "newer-format",
                        "format",
                        format!("format {v} is newer than this reader knows (format {FORMAT})"),
                    );
                    return None;
                }
                Some(v) if v < 0 => {
                    self.ctx.err(
                        &fsp,
                        "bad-value",
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
                    "bad-value",
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
                    "bad-name",
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
                        "bad-value",
                        &key,
                        format!("\"{other}\" is listed twice"),
                    );
                }
                seen.push(other);
                if let Some(back) = lists.get(other) {
                    if !back.iter().any(|b| b == name) {
                        self.ctx.err(&at, "bad-value", &key, format!("{name} lists {other}, but {other} does not list {name}: meeting goes both ways"));
                    }
                }
            }
        }
    }

    /// Ids, names and references across the files read; then the model.
    fn resolve(&mut self, scene_f: usize, libs: &[usize], proxies_f: Option<usize>) -> Scene {
        let docs = std::mem::take(&mut self.docs);
        let entries = self.ctx.entries.clone();
        self.ids_and_names(&entries);
        let includes = doc_table(&docs, scene_f)
            .is_some_and(|t| t.get("include").is_some_and(|i| !i.elems().is_empty()));
        let index = Index::new(&entries);

        // References.
        let refs = std::mem::take(&mut self.ctx.refs);
        let mut proxy_refs: Vec<(RefUse, usize)> = Vec::new();
        for r in &refs {
            match index.find(r.kind, &r.value) {
                Found::One(e) => {
                    if Some(r.at.file) == proxies_f {
                        proxy_refs.push((r.clone(), e));
                    }
                }
                Found::None => {
                    let note = if includes {
                        "; includes are not merged yet, so the entries of included files are not seen"
                    } else {
                        ""
                    };
                    let msg = format!(
                        "no {} has the id or name \"{}\"{note}",
                        r.kind.word(),
                        r.value
                    );
                    self.ctx.err(&r.at, "bad-reference", &r.key, msg);
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
                        "ambiguous-reference",
                        &r.key,
                        msg,
                        related,
                    );
                }
            }
        }

        // The objects: parents, cycles, movers, dynamic.
        let Some(top) = doc_table(&docs, scene_f) else {
            return Scene::default();
        };
        let mut objs: Vec<Obj> = Vec::new();
        for (i, t) in top
            .get("object")
            .map(|o| o.tables())
            .unwrap_or_default()
            .into_iter()
            .enumerate()
        {
            let name = t.str("name").unwrap_or_default().to_string();
            let key = match t.str("id") {
                Some(id) => format!("object.{id}"),
                None => format!("object.{i}"),
            };
            let head = head_of(&self.ctx, scene_f, t);
            objs.push(Obj {
                t,
                name,
                key,
                head,
                placement: t.has("prefab"),
                parent: None,
                explicit_dynamic: t.bool("dynamic"),
                dynamic: false,
                mover: None,
            });
        }
        let obj_of = |v: &str, objs: &[Obj]| -> Option<usize> {
            match index.find(Kind::Object, v) {
                Found::One(e) => {
                    let n = entries[e].name.as_deref()?;
                    objs.iter().position(|o| o.name == n)
                }
                _ => None,
            }
        };
        for i in 0..objs.len() {
            let p = objs[i].t.str("parent").and_then(|v| obj_of(v, &objs));
            objs[i].parent = p;
        }
        // Placement ids named by `prefab` or a palette.
        for r in std::mem::take(&mut self.ctx.placement_refs) {
            let ok = obj_of(&r.value, &objs)
                .is_some_and(|o| objs[o].placement && objs[o].t.str("id") == Some(&r.value));
            if !ok {
                self.ctx.err(
                    &r.at,
                    "bad-reference",
                    &r.key,
                    format!(
                        "\"{}\" is the id of no prefab placement of this scene",
                        r.value
                    ),
                );
            }
        }
        self.parent_cycles(scene_f, &mut objs);
        self.movers(scene_f, top, &mut objs, &obj_of);
        derive_dynamic(&mut objs);
        self.bodies(scene_f, &objs);
        self.sounds(scene_f, top, &objs, &obj_of);
        for (r, e) in proxy_refs {
            let name = entries[e].name.clone().unwrap_or_default();
            if let Some(o) = objs.iter().find(|o| o.name == name) {
                if o.placement || o.dynamic {
                    let why = if o.placement {
                        "a prefab placement"
                    } else {
                        "dynamic"
                    };
                    self.ctx.err(&r.at, "bad-reference", &r.key, format!("object \"{name}\" is {why}; a proxy stands in for a static object with a mesh"));
                }
            }
        }

        let refkey = |kind: Kind, v: &str| -> String {
            match index.find(kind, v) {
                Found::One(e) => entries[e].name.clone().unwrap_or_else(|| v.to_string()),
                _ => v.to_string(),
            }
        };
        self.model(&docs, scene_f, libs, proxies_f, top, &objs, &refkey)
    }

    fn ids_and_names(&mut self, entries: &[Entry]) {
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
                        "duplicate-id",
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
        let mut names: HashMap<(Kind, &str), usize> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            if e.kind == Kind::Proxy {
                continue;
            }
            let Some(name) = e.name.as_deref() else {
                continue;
            };
            match names.get(&(e.kind, name)) {
                Some(&first) => {
                    let f = &entries[first];
                    let loc = self.ctx.loc(&f.name_at);
                    let msg = if e.kind == Kind::Material {
                        let here = self.ctx.loc(&e.name_at);
                        format!(
                            "material \"{name}\" is in two libraries: {} and {}",
                            loc.file.display(),
                            here.file.display()
                        )
                    } else {
                        format!(
                            "{} name \"{name}\" is used twice; the first at line {}",
                            e.kind.word(),
                            loc.line
                        )
                    };
                    let key = if matches!(
                        e.kind,
                        Kind::Mesh | Kind::Material | Kind::Content | Kind::Text | Kind::Sound
                    ) {
                        e.key.clone()
                    } else {
                        format!("{}.name", e.key)
                    };
                    self.ctx.report(
                        Severity::Error,
                        &e.name_at,
                        "duplicate-name",
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

    fn parent_cycles(&mut self, f: usize, objs: &mut [Obj]) {
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
                            cycle.iter().map(|o| objs[*o].name.as_str()).collect();
                        let at = parent_sp(&self.ctx, f, &objs[first]);
                        let related = cycle
                            .iter()
                            .filter(|o| **o != first)
                            .map(|o| self.ctx.loc(&parent_sp(&self.ctx, f, &objs[*o])))
                            .collect();
                        let msg = format!(
                            "objects' parents form a cycle: {} → {}",
                            names.join(" → "),
                            names[0]
                        );
                        self.ctx.report(
                            Severity::Error,
                            &at,
                            "parent-cycle",
                            &format!("{}.parent", objs[first].key),
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

    fn movers(
        &mut self,
        f: usize,
        top: Tbl,
        objs: &mut [Obj],
        obj_of: &dyn Fn(&str, &[Obj]) -> Option<usize>,
    ) {
        for (i, m) in top
            .get("mover")
            .map(|m| m.tables())
            .unwrap_or_default()
            .iter()
            .enumerate()
        {
            let mkey = match m.str("id") {
                Some(id) => format!("mover.{id}"),
                None => format!("mover.{i}"),
            };
            let mclip = m.get("clip").map(|c| c.elems().len()).unwrap_or(0);
            for (j, e) in m
                .get("objects")
                .map(|o| o.elems())
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let Some(o) = e.str().and_then(|v| obj_of(v, objs)) else {
                    continue;
                };
                let at = Sp {
                    file: f,
                    span: node_span(e).unwrap_or(0..0),
                };
                let key = format!("{mkey}.objects.{j}");
                if let Some((other, first)) = &objs[o].mover {
                    let loc = self.ctx.loc(first);
                    let msg = format!("object \"{}\" is already moved by {other}; an object is moved by one mover at most", objs[o].name);
                    self.ctx
                        .report(Severity::Error, &at, "bad-value", &key, msg, vec![loc]);
                    continue;
                }
                let oclip = objs[o].t.get("clip").map(|c| c.elems().len()).unwrap_or(0);
                if mclip > 0 && mclip + oclip > 2 {
                    let msg = format!("object \"{}\" has {oclip} clip planes and this mover {mclip}: at most two together", objs[o].name);
                    self.ctx.err(&at, "bad-value", &key, msg);
                }
                objs[o].mover = Some((mkey.clone(), at));
            }
        }
    }

    /// A body or a character sits on a root object or under placements only, moved by no
    /// mover.
    fn bodies(&mut self, f: usize, objs: &[Obj]) {
        for o in objs {
            for what in ["body", "character"] {
                if !o.t.has(what) {
                    continue;
                }
                let at = key_sp(f, o.t, what, &o.head);
                let key = format!("{}.{what}", o.key);
                if let Some((m, _)) = &o.mover {
                    self.ctx.err(
                        &at,
                        "bad-value",
                        &key,
                        format!("a {what} is moved by the simulation; {m} moves this object"),
                    );
                    continue;
                }
                let mut cur = o.parent;
                let mut hops = 0;
                while let Some(p) = cur {
                    hops += 1;
                    if hops > objs.len() {
                        break;
                    }
                    let po = &objs[p];
                    if !po.placement {
                        let loc = self.ctx.loc(&po.head);
                        let msg = format!("a {what} sits on a root object or under prefab placements; \"{}\" is an ordinary object", po.name);
                        self.ctx
                            .report(Severity::Error, &at, "bad-value", &key, msg, vec![loc]);
                        break;
                    }
                    if let Some((m, _)) = &po.mover {
                        let loc = self.ctx.loc(&po.head);
                        let msg = format!(
                            "a {what} may not sit under a moved placement; {m} moves \"{}\"",
                            po.name
                        );
                        self.ctx
                            .report(Severity::Error, &at, "bad-value", &key, msg, vec![loc]);
                        break;
                    }
                    cur = po.parent;
                }
            }
        }
    }

    fn sounds(
        &mut self,
        f: usize,
        top: Tbl,
        objs: &[Obj],
        obj_of: &dyn Fn(&str, &[Obj]) -> Option<usize>,
    ) {
        let Some(sounds) = top.get("sound").and_then(|s| s.tbl()) else {
            return;
        };
        let mut looping: Option<Sp> = None;
        for (name, ks, node) in sounds.entries() {
            let Some(s) = node.tbl() else { continue };
            let head = Sp {
                file: f,
                span: ks.unwrap_or(0..0),
            };
            if s.bool("loop") == Some(true) {
                let at = val_sp(f, s, "loop", &head);
                match &looping {
                    Some(first) => {
                        let loc = self.ctx.loc(first);
                        self.ctx.report(
                            Severity::Error,
                            &at,
                            "bad-value",
                            &format!("sound.{name}.loop"),
                            "a second looping sound: a scene has one at most".into(),
                            vec![loc],
                        );
                    }
                    None => looping = Some(at),
                }
            }
            if let Some(o) = s.str("object").and_then(|v| obj_of(v, objs)) {
                if !objs[o].t.has("body") {
                    let at = val_sp(f, s, "object", &head);
                    let msg = format!(
                        "a hit sound's object has a body; \"{}\" has no [object.body]",
                        objs[o].name
                    );
                    self.ctx
                        .err(&at, "bad-reference", &format!("sound.{name}.object"), msg);
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // the model

    #[allow(clippy::too_many_arguments)]
    fn model(
        &self,
        docs: &[Option<ImDocument<String>>],
        scene_f: usize,
        libs: &[usize],
        proxies_f: Option<usize>,
        top: Tbl,
        objs: &[Obj],
        refkey: &dyn Fn(Kind, &str) -> String,
    ) -> Scene {
        let loc = |f: usize, t: Tbl| self.ctx.loc(&head_of(&self.ctx, f, t));
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
        for (i, d) in docs.iter().enumerate() {
            let wanted = i == scene_f
                || libs.contains(&i)
                || Some(i) == proxies_f
                || self.ctx.srcs[i].rel == Path::new("project.toml");
            if d.is_some() && wanted {
                scene.files.push(self.ctx.srcs[i].rel.clone());
            }
        }

        if let Some(meshes) = top.get("mesh").and_then(|m| m.tbl()) {
            for (name, _, node) in meshes.entries() {
                let Some(t) = node.tbl() else { continue };
                let v = View {
                    t,
                    s: &schema::MESH,
                };
                let mut nodes = Vec::new();
                if let Some(ns) = t.get("nodes").and_then(|n| n.tbl()) {
                    for (nname, _, nn) in ns.entries() {
                        let Some(nt) = nn.tbl() else { continue };
                        nodes.push(NodeOverride {
                            node: nname.to_string(),
                            material: nt.str("material").map(|m| refkey(Kind::Material, m)),
                            hidden: nt.bool("hidden").unwrap_or(false),
                            shadow: nt.str("shadow").map(shadow),
                            two_sided: nt.bool("two_sided"),
                            at: loc(scene_f, nt),
                        });
                    }
                }
                scene.meshes.push(Mesh {
                    key: name.to_string(),
                    id: v.string("id"),
                    file: v.path("file"),
                    node: v.string("node"),
                    nodes,
                    at: loc(scene_f, t),
                });
            }
        }

        for (place, o) in objs.iter().enumerate() {
            if o.placement {
                continue;
            }
            let v = View {
                t: o.t,
                s: &schema::OBJECT,
            };
            let scale = match o.t.get("scale") {
                Some(n) => match (n.num(), n.nums()) {
                    (Some(s), _) => [s as f32; 3],
                    (_, Some(s)) if s.len() == 3 => [s[0] as f32, s[1] as f32, s[2] as f32],
                    _ => [1.0; 3],
                },
                None => [1.0; 3],
            };
            let materials =
                o.t.get("materials")
                    .and_then(|m| m.tbl())
                    .map(|m| {
                        m.entries()
                            .iter()
                            .filter_map(|(n, _, v)| {
                                v.str().map(|s| (n.to_string(), refkey(Kind::Material, s)))
                            })
                            .collect()
                    })
                    .unwrap_or_default();
            let clip =
                o.t.get("clip")
                    .map(|c| {
                        c.elems()
                            .iter()
                            .filter_map(|p| p.nums())
                            .filter(|p| p.len() == 4)
                            .map(|p| [p[0] as f32, p[1] as f32, p[2] as f32, p[3] as f32])
                            .collect()
                    })
                    .unwrap_or_default();
            scene.objects.push(Object {
                key: o.name.clone(),
                id: v.string("id"),
                mesh: o
                    .t
                    .str("mesh")
                    .map(|m| refkey(Kind::Mesh, m))
                    .unwrap_or_default(),
                parent: o.t.str("parent").map(|p| refkey(Kind::Object, p)),
                at: v.v3("at"),
                rotate: v.v3("rotate"),
                scale,
                material: o.t.str("material").map(|m| refkey(Kind::Material, m)),
                materials,
                shadow: shadow(v.str("shadow").unwrap_or("cast")),
                two_sided: v.bool("two_sided"),
                hidden: v.bool("hidden"),
                clip,
                alpha_cutoff: v.f32("alpha_cutoff"),
                face_camera: v.bool("face_camera"),
                dynamic: o.dynamic,
                pick: o
                    .t
                    .num("pick")
                    .map(|p| p.clamp(0.0, u32::MAX as f64) as u32)
                    .unwrap_or(place as u32 + 1),
                at_loc: self.ctx.loc(&o.head),
            });
        }

        for &lf in libs {
            let Some(lt) = doc_table(docs, lf) else {
                continue;
            };
            let Some(mats) = lt.get("materials").and_then(|m| m.tbl()) else {
                continue;
            };
            for (name, _, node) in mats.entries() {
                let Some(t) = node.tbl() else { continue };
                let v = View {
                    t,
                    s: &schema::MATERIAL,
                };
                let fam = v.str("family").unwrap_or("plain");
                scene.materials.push(Material {
                    key: name.to_string(),
                    id: v.string("id"),
                    library: self.ctx.srcs[lf].rel.clone(),
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
                    at: loc(lf, t),
                });
            }
        }
        scene.fallback = top.str("fallback").map(|m| refkey(Kind::Material, m));

        for t in top.get("light").map(|l| l.tables()).unwrap_or_default() {
            let v = View {
                t,
                s: &schema::LIGHT,
            };
            scene.lights.push(Light {
                key: v.string("name").unwrap_or_default(),
                id: v.string("id"),
                position: v.v3("position"),
                color: v.v3("color"),
                intensity: v.f32("intensity"),
                radius: v.f32("radius"),
                range: v.f32("range"),
                shadow: v.bool("shadow"),
            });
        }
        for t in top.get("emitter").map(|l| l.tables()).unwrap_or_default() {
            let v = View {
                t,
                s: &schema::EMITTER,
            };
            scene.emitters.push(Emitter {
                key: v.string("name").unwrap_or_default(),
                id: v.string("id"),
                position: v.v3("position"),
                radius: v.f32("radius"),
                color: v.v3("color"),
                intensity: v.f32("intensity"),
            });
        }

        if let Some(t) = top.get("camera").and_then(|c| c.tbl()) {
            let v = View {
                t,
                s: &schema::CAMERA,
            };
            let focal = v.opt("focal");
            let sensor = v.f32("sensor");
            let fov = match (t.num("fov"), focal) {
                (Some(f), _) => f as f32,
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

        if let Some(t) = top.get("sun").and_then(|c| c.tbl()) {
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
                    t.nums("toward")
                        .filter(|a| a.len() == 3)
                        .map(|a| [a[0] as f32, a[1] as f32, a[2] as f32])
                } else {
                    None
                },
                color: v.v3("color"),
                irradiance: v.opt("irradiance"),
                radius: v.f32("radius"),
            });
        }

        if let Some(t) = top.get("sky").and_then(|c| c.tbl()) {
            let v = View { t, s: &schema::SKY };
            let kind = match v.str("kind") {
                Some("hdr") => SkyKind::Hdr,
                Some("room") => SkyKind::Room,
                Some("mix") => SkyKind::Mix,
                _ => SkyKind::Analytic,
            };
            scene.sky = Some(Sky {
                kind,
                path: t.str("path").and_then(|p| normalize(p).ok()),
                rotation_deg: v.f32("rotation_deg"),
                intensity: v.f32("intensity"),
            });
        }

        if let Some(t) = top.get("trace").and_then(|c| c.tbl()) {
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

        if let Some(t) = top.get("plates").and_then(|c| c.tbl()) {
            let v = View {
                t,
                s: &schema::PLATES,
            };
            scene.plates = Some(Plates {
                dir: v.path("dir"),
                proxies: t.str("proxies").and_then(|p| normalize(p).ok()),
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

/// Reads a table's keys with the schema's defaults filled in. Used on checked tables only;
/// a value of the wrong type (already refused) reads as the default.
struct View<'a> {
    t: Tbl<'a>,
    s: &'static TableSchema,
}

impl View<'_> {
    fn default(&self, name: &str) -> Dflt {
        self.s.key(name).map(|k| k.default).unwrap_or(Dflt::None)
    }

    fn f32(&self, name: &str) -> f32 {
        let v = self.t.num(name).or(match self.default(name) {
            Dflt::Num(d) => Some(d),
            _ => None,
        });
        finite(v.unwrap_or(0.0))
    }

    fn opt(&self, name: &str) -> Option<f32> {
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
        self.t
            .str(name)
            .and_then(|p| normalize(p).ok())
            .unwrap_or_default()
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
struct Index {
    by_id: HashMap<(Kind, String), usize>,
    by_name: HashMap<(Kind, String), Vec<usize>>,
}

impl Index {
    fn new(entries: &[Entry]) -> Index {
        let mut by_id = HashMap::new();
        let mut by_name: HashMap<(Kind, String), Vec<usize>> = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            if let Some(id) = &e.id {
                by_id.entry((e.kind, id.clone())).or_insert(i);
            }
            if let Some(n) = &e.name {
                by_name.entry((e.kind, n.clone())).or_default().push(i);
            }
        }
        Index { by_id, by_name }
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

fn parent_sp(ctx: &Ctx, f: usize, o: &Obj) -> Sp {
    let _ = ctx;
    val_sp(f, o.t, "parent", &o.head)
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
        let d = run("[camera]\nfov = 30\n");
        let e = one(&d, "migration");
        assert_eq!(at(&e), ("format", 1, 1, 1, 1));
        assert!(e.message.contains("not implemented"));
        assert_eq!(errors(&d).len(), 1);
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
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            // xorshift64*: fixed seed, deterministic.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D)
        };
        const BYTES: &[u8] = b"[]{}\"'=.,#\n 0-9e+ax\\\xff\xc3\xa9";
        let mut errs = 0;
        for i in 0..3000 {
            let mut b = base.clone();
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
            let overlay = HashMap::from([(rel.clone(), b)]);
            if load_with(&scene, overlay).is_err() {
                errs += 1;
            }
        }
        // Most mutations break something; the test is that none panicked.
        assert!(errs > 1000, "{errs}");
    }
}
