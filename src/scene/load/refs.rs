//! References and ids: the index a reference resolves in, ids and names used twice,
//! a proxy's object, and the checks that span the whole project (`check_across`).

use super::*;

impl Loader {
    /// Ids are unique across every file read.
    pub(super) fn ids(&mut self, entries: &[Entry]) {
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
    pub(super) fn names(&mut self, entries: &[Entry], un: &Unit) {
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
    pub(super) fn material_names(&mut self, entries: &[Entry]) {
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
    pub(super) fn held_twice(&mut self, docs: &[Option<ImDocument<String>>], un: &Unit) {
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

    /// A proxy's object: static, with a mesh.
    pub(super) fn proxy_ref(&mut self, r: &RefUse, o: &Obj) {
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
}

/// How a name or id finds its entry.
pub(super) enum Found {
    One(usize),
    None,
    Many(Vec<usize>),
}

/// Entries by kind, for resolving references: by id first, then by a name unique in its kind.
#[derive(Default)]
pub(super) struct Index {
    by_id: HashMap<(Kind, String), usize>,
    by_name: HashMap<(Kind, String), Vec<usize>>,
    /// Any kind, for `[object.set]` entries: by id, and names across kinds.
    any_id: HashMap<String, usize>,
    any_name: HashMap<String, Vec<usize>>,
}

impl Index {
    /// The entries `keep` keeps, indexed.
    pub(super) fn new(entries: &[Entry], keep: impl Fn(&Entry) -> bool) -> Index {
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
    pub(super) fn find_any(&self, v: &str) -> Found {
        if let Some(i) = self.any_id.get(v) {
            return Found::One(*i);
        }
        match self.any_name.get(v) {
            Some(all) if all.len() == 1 => Found::One(all[0]),
            Some(all) if all.len() > 1 => Found::Many(all.clone()),
            _ => Found::None,
        }
    }

    pub(super) fn find(&self, kind: Kind, v: &str) -> Found {
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

/// Every entry kind, for mapping entries to their tables.
pub(super) const ALL_KINDS: [Kind; 12] = [
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
pub(super) fn kind_table(kind: Kind) -> (&'static str, bool, &'static TableSchema) {
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

pub(super) fn kind_schema(kind: Kind) -> &'static TableSchema {
    kind_table(kind).2
}

/// A file's entries of one kind, in the order written: (diagnostic key as the walk makes
/// it, name, table).
pub(super) fn entry_tables(
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
pub(super) fn prefab_target(unit: &Unit, tbl_of: &HashMap<usize, Tbl>, t: Tbl) -> Option<PathBuf> {
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

/// Whether an object of a file, by its name and id, is dynamic as the scenes reading that file
/// resolve it.
pub(crate) type Moving<'a> = dyn Fn(&Path, Option<&str>, Option<&str>) -> bool + 'a;

/// The checks that span the whole project rather than one scene, on every file `files` lists
/// (root-relative, each with its kind), each read once on its own:
///
/// * an id used twice where no one scene reads both places (`together(a, b)` says whether
///   one does: that scene's own check reports it) is refused at the later use in `files`'
///   order, once per use, the first such earlier use in `related`;
/// * each `[[proxy]]` `object` of a file in `lone_proxies` (proxies files no scene names)
///   resolves among every object of the project: by id, else by a name that one object alone
///   has (`bad-reference`, `ambiguous-reference` with every holder in `related`), and
///   must be static: a placement, or an object `dynamic(file, name, id)` says a scene
///   reading its file resolves as dynamic, is refused (`bad-reference`).
///
/// The files' own findings (schema, syntax) are not returned: each is reported where the file
/// is checked. Findings in a format 0 file point into the file as written.
pub(crate) fn check_across(
    root: &Path,
    files: &[(PathBuf, FileKind)],
    together: &dyn Fn(&Path, &Path) -> bool,
    lone_proxies: &[PathBuf],
    dynamic: &Moving,
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
                Found::One(e) => {
                    // Static with a mesh, as for a proxies file a scene names: a placement
                    // by its `prefab`, a dynamic object as the scenes reading it resolve it.
                    let ent = &entries[e];
                    let f = ent.name_at.file;
                    let placement = entry_tables(&l.docs, f, Kind::Object)
                        .into_iter()
                        .any(|(k, _, t)| k == ent.key && t.has("prefab"));
                    let rel = l.ctx.srcs[f].rel.clone();
                    let why = if placement {
                        Some("a prefab placement")
                    } else if dynamic(&rel, ent.name.as_deref(), ent.id.as_deref()) {
                        Some("dynamic")
                    } else {
                        None
                    };
                    if let Some(why) = why {
                        let msg = format!(
                            "object \"{}\" is {why}; a proxy stands in for a static object \
                             with a mesh",
                            r.value
                        );
                        l.ctx.err(&r.at, Code::BadReference, &r.key, msg);
                    }
                }
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
    crate::scene::migrate::remap_all(&l.migrated, &mut diags);
    diags
}

/// Each unit's index of the entries its references resolve among: its files' and extra
/// files' entries, and the materials of its libraries. A scene's materials resolve among
/// every library the scene, its includes and its placed prefabs name (the spec's
/// References); a prefab's among its own libraries only, as it is self-contained. Every
/// unit past the first is a prefab the scene places, directly or through placements and
/// tile palettes; `alone` is a prefab read as the top unit.
pub(super) fn index_units(units: &mut [Unit], entries: &[Entry], alone: bool) {
    let placed_libs: Vec<usize> = if alone {
        units[0].libs.clone()
    } else {
        units
            .iter()
            .flat_map(|un| un.libs.iter().copied())
            .collect()
    };
    for (u, un) in units.iter_mut().enumerate() {
        let libs = if u == 0 { &placed_libs } else { &un.libs };
        let index = Index::new(entries, |e| {
            let f = e.name_at.file;
            if e.kind == Kind::Material {
                libs.contains(&f)
            } else {
                un.files.contains(&f) || un.extra.contains(&f)
            }
        });
        un.index = index;
    }
}
