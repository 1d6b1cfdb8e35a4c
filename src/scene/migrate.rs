//! Format 0 → format 1, in memory: the spec's five migration steps as text edits on the file as
//! written, with a map from every position of the migrated text back to the original, so a
//! diagnostic on a migrated file points into the file as written.
//!
//! The edits work on the original text rather than re-serialising a document: comments,
//! spacing, key order and number spelling survive byte for byte outside the edited spans, which
//! is what the spec asks of the on-disk migration too (docs/migration.md).

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};
use toml_edit::{ImDocument, Item, Table, TableLike, Value};

use super::check::{is_id, normalize, Ctx};
use super::diagnostic::{Code, Diagnostic, Severity};
use super::schema::{FileKind, TableSchema, Ty};
use super::toml::{header_close, line_end, line_of, Sp, Src};

/// The id alphabet: lowercase Crockford base32 (no i, l, o, u), digit value = index.
pub const CROCKFORD: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// The spec's `Id::derive`: the first 50 bits of the SHA-256 of `key`, as 10 Crockford
/// characters.
///
/// Bit order: the digest is read big-endian, most significant bit of byte 0 first; its first
/// 50 bits form one number, written most significant 5 bits first. So the first character is
/// the top 5 bits of byte 0, and the last character holds bits 45..50 (the top 2 bits of byte 6
/// are the last two bits used, the low 6 bits of byte 6 are dropped).
pub fn derive_id(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    let mut v: u64 = 0;
    for b in digest.iter().take(7) {
        v = (v << 8) | u64::from(*b);
    }
    // 56 bits read; keep the first 50.
    let v = v >> 6;
    (0..10)
        .map(|i| CROCKFORD[((v >> (45 - 5 * i)) & 31) as usize] as char)
        .collect()
}

/// The key a migrated entry's id derives from (before any `"\n<n>"` a collision appends):
/// `"<project-relative path>\n<kind>\n<name>"`.
pub fn id_key(rel: &Path, kind: &str, name: &str) -> String {
    format!("{}\n{kind}\n{name}", slash(rel))
}

/// A format 0 text migrated to format 1, with its way back to the text as written.
#[derive(Clone, Debug)]
pub struct Migrated {
    /// The format 1 text.
    pub text: String,
    /// Positions of `text` mapped back into the original.
    pub map: PosMap,
}

/// Maps a position of a migrated text to the position in the file as written that produced it.
#[derive(Clone, Debug)]
pub struct PosMap {
    original: String,
    migrated: String,
    /// In output order; each starts where the one before ends.
    segs: Vec<Seg>,
}

/// A run of the migrated text: copied from the original (from `orig` on), or written by the
/// migration (every byte of it maps to `orig`, its anchor in the original).
#[derive(Clone, Debug)]
struct Seg {
    out: usize,
    orig: usize,
    copy: bool,
}

impl PosMap {
    /// The original's byte offset for a byte offset of the migrated text. A boundary between
    /// two runs belongs to the run that starts there, so a span's end just past a copied value
    /// maps just past that value as written.
    pub fn offset(&self, out: usize) -> usize {
        if out >= self.migrated.len() {
            return self.original.len();
        }
        let i = match self.segs.binary_search_by_key(&out, |s| s.out) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        match self.segs.get(i) {
            Some(s) if s.copy => (s.orig + (out - s.out)).min(self.original.len()),
            Some(s) => s.orig.min(self.original.len()),
            None => 0,
        }
    }

    /// The original's 1-based (line, column in characters) for one of the migrated text.
    pub fn position(&self, line: u32, column: u32) -> (u32, u32) {
        let out = line_col_to_offset(&self.migrated, line, column);
        offset_to_line_col(&self.original, self.offset(out))
    }

    /// Moves a diagnostic (and its related places) on the migrated text of `file` back into
    /// the file as written.
    pub fn remap(&self, file: &Path, d: &mut Diagnostic) {
        if d.file == file {
            (d.line, d.column) = self.position(d.line, d.column);
            (d.end_line, d.end_column) = self.position(d.end_line, d.end_column);
            // A span whose end lies in text the migration wrote (a rewritten path, an added
            // id) can map before its start; it then covers one character at its start.
            if (d.end_line, d.end_column) < (d.line, d.column) {
                (d.end_line, d.end_column) = (d.line, d.column + 1);
            }
        }
        for r in &mut d.related {
            if r.file == file {
                (r.line, r.column) = self.position(r.line, r.column);
            }
        }
    }
}

/// Moves every diagnostic on a migrated file back into that file as written; `maps` holds the
/// migrated files by root-relative path.
pub(crate) fn remap_all(maps: &HashMap<PathBuf, PosMap>, diags: &mut [Diagnostic]) {
    if maps.is_empty() {
        return;
    }
    for d in diags.iter_mut() {
        for (file, map) in maps {
            map.remap(file, d);
        }
    }
}

fn line_col_to_offset(text: &str, line: u32, column: u32) -> usize {
    let mut start = 0;
    for _ in 1..line.max(1) {
        match text[start..].find('\n') {
            Some(p) => start += p + 1,
            None => return text.len(),
        }
    }
    let mut off = start;
    for (n, (i, c)) in text[start..].char_indices().enumerate() {
        off = start + i;
        if n + 1 >= column.max(1) as usize || c == '\n' {
            return off;
        }
        off = start + i + c.len_utf8();
    }
    off
}

fn offset_to_line_col(text: &str, off: usize) -> (u32, u32) {
    Src::new(PathBuf::new(), text.as_bytes().to_vec()).pos(off)
}

/// Migrates a format 0 text to format 1, as the spec's Migration section says; a format 1 text
/// comes back as it is. `file` is the file's path (absolute, or relative to `root`); `root` is
/// its project root, and a root without project.toml makes it a lone scene. Err holds the
/// diagnostics of the steps that can't run (`migration`, `outside-root`), located in `text`.
pub fn migrate(
    text: &str,
    file: &Path,
    root: &Path,
    kind: FileKind,
) -> Result<String, Vec<Diagnostic>> {
    let rel = file.strip_prefix(root).unwrap_or(file);
    let has_project = root.join("project.toml").is_file();
    migrate_with(text, rel, root, kind, has_project, &HashSet::new()).map(|m| m.text)
}

/// As [`migrate`], with the root-relative path, whether the root holds a project.toml, and the
/// ids already taken elsewhere in the project; returns the position map too.
pub fn migrate_with(
    text: &str,
    rel: &Path,
    root: &Path,
    kind: FileKind,
    has_project: bool,
    taken: &HashSet<String>,
) -> Result<Migrated, Vec<Diagnostic>> {
    let src = Src::new(rel.to_path_buf(), text.as_bytes().to_vec());
    let diag = |span: Range<usize>, code: Code, key: &str, message: String| {
        let (line, column) = src.pos(span.start);
        let (end_line, end_column) = src.pos(span.end.max(span.start));
        Diagnostic {
            file: rel.to_path_buf(),
            line,
            column,
            end_line,
            end_column,
            severity: Severity::Error,
            code: code.as_str(),
            key: key.to_string(),
            message,
            related: Vec::new(),
        }
    };
    let unchanged = |t: &str| Migrated {
        text: t.to_string(),
        map: PosMap {
            original: t.to_string(),
            migrated: t.to_string(),
            segs: vec![Seg {
                out: 0,
                orig: 0,
                copy: true,
            }],
        },
    };
    let doc = match ImDocument::parse(text.to_string()) {
        Ok(d) => d,
        Err(e) => {
            let msg = e.message().trim().replace('\n', "; ");
            return Err(vec![diag(
                e.span().unwrap_or(0..0),
                Code::Syntax,
                "",
                format!("not valid TOML: {msg}"),
            )]);
        }
    };
    if kind == FileKind::Finish {
        // A finish file holds no format: there is nothing to migrate.
        return Ok(unchanged(text));
    }
    let top = doc.as_table();
    let mut m = Edits::default();

    // 1. format = 1 on the first line, then a blank line (format = 0 written out is set to 1).
    match top.get("format") {
        None => m.insert(0, 0, vec![Piece::New("format = 1\n\n".into(), 0)]),
        Some(item) => match item.as_value() {
            Some(Value::Integer(i)) if *i.value() == 0 => {
                let sp = item.span().unwrap_or(0..0);
                m.replace(sp.clone(), "1".into(), sp.start);
            }
            Some(Value::Integer(i)) if *i.value() == 1 => return Ok(unchanged(text)),
            Some(Value::Integer(i)) if *i.value() > 1 => {
                return Err(vec![diag(
                    item.span().unwrap_or(0..0),
                    Code::NewerFormat,
                    "format",
                    format!(
                        "format {} is newer than this reader knows (format 1)",
                        i.value()
                    ),
                )])
            }
            _ => {
                return Err(vec![diag(
                    item.span().unwrap_or(0..0),
                    Code::BadType,
                    "format",
                    "expected the integer 1".into(),
                )])
            }
        },
    }

    let mut errors = Vec::new();

    // 2. Paths: relative to the file → relative to the root.
    let mut paths = Vec::new();
    collect_paths(top, kind.schema(), "", &mut paths);
    let dir: PathBuf = rel.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut leaving = Vec::new();
    for p in &paths {
        // A path the checker refuses as written (empty, absolute, backslash) stays as it is,
        // so it is refused at its place with its own code.
        if normalize(&p.value).is_err() && !p.value.starts_with("..") {
            continue;
        }
        let joined = format!("{}/{}", slash(&dir), p.value);
        match normalize(joined.trim_start_matches('/')) {
            Ok(new) => {
                let new = slash(&new);
                if new != p.value {
                    m.replace(p.span.clone(), quote(&new, &p.raw), p.span.start);
                }
            }
            Err((Code::OutsideRoot, _)) if has_project => errors.push(diag(
                p.span.clone(),
                Code::OutsideRoot,
                &p.key,
                format!(
                    "`{}` (relative to `{}`) leaves the project root",
                    p.value,
                    slash(rel)
                ),
            )),
            Err((Code::OutsideRoot, _)) => leaving.push(p),
            Err(_) => {}
        }
    }
    if !leaving.is_empty() {
        let suggest = deepest_folder(root, rel, &paths);
        for p in leaving {
            errors.push(diag(
                p.span.clone(),
                Code::Migration,
                &p.key,
                format!(
                    "`{}` leaves this scene's folder, and no project.toml marks a root above it, \
                     so it can't migrate as it stands: add a project.toml at `{suggest}` (the \
                     deepest folder that holds every file this scene reads) and migrate again",
                    p.value
                ),
            ));
        }
    }

    let objects: Vec<&Table> = top
        .get("object")
        .and_then(Item::as_array_of_tables)
        .map(|a| a.iter().collect())
        .unwrap_or_default();

    // 3. [[object]] id → pick.
    if let Some(arr) = top.get("object") {
        for t in tables_of(arr) {
            if let Some(k) = t.key("id") {
                if let Some(sp) = k.span() {
                    m.replace(sp.clone(), "pick".into(), sp.start);
                }
            }
        }
    }

    // 5. (before 4 in the text at a shared place: an object's id goes before its moved body.)
    let mut taken: HashSet<String> = taken.clone();
    collect_ids(top, kind.schema(), &mut taken);
    for (tkey, schema_key) in kind.schema().all().map(|k| (k.name, k)) {
        let (Ty::Tables(s) | Ty::List(s)) = &schema_key.ty else {
            continue;
        };
        if s.entry.is_none() {
            continue;
        }
        let Some(item) = top.get(tkey) else { continue };
        let entries: Vec<(String, EntryRef)> = match &schema_key.ty {
            Ty::Tables(_) => match item.as_table_like() {
                Some(t) => t
                    .iter()
                    .filter_map(|(k, it)| entry_ref(it).map(|e| (k.to_string(), e)))
                    .collect(),
                None => Vec::new(),
            },
            _ => list_entries(item)
                .into_iter()
                .enumerate()
                .filter_map(|(i, e)| {
                    let name = if tkey == "proxy" {
                        let obj = e.str("object")?;
                        format!("{obj}\n{i}")
                    } else {
                        e.str("name")?.to_string()
                    };
                    Some((name, e))
                })
                .collect(),
        };
        for (name, e) in entries {
            // A format 0 object's id is its pick (renamed above): it still needs an id.
            if tkey != "object" && e.has("id") {
                continue;
            }
            let base = id_key(rel, tkey, &name);
            let mut key = base.clone();
            let mut n = 0;
            let id = loop {
                let id = derive_id(&key);
                if !taken.contains(&id) {
                    break id;
                }
                n += 1;
                key = format!("{base}\n{n}");
            };
            taken.insert(id.clone());
            m.add_id(text, &e, &id);
        }
    }

    // 4. [body.<object>] → [object.body] inside its object.
    if let Some(body) = top.get("body") {
        match body.as_table() {
            Some(bt) => {
                let mut moved_all = true;
                for (name, it) in bt.iter() {
                    let dkey = format!("body.{name}");
                    let t = match it.as_table() {
                        Some(t) if t.span().is_some() => t,
                        _ => {
                            moved_all = false;
                            errors.push(diag(
                                it.span().or_else(|| bt.span()).unwrap_or(0..0),
                                Code::Migration,
                                &dkey,
                                format!(
                                    "the body of `{name}` is not written as a [body.{name}] \
                                     table; move it into its object as [object.body] by hand"
                                ),
                            ));
                            continue;
                        }
                    };
                    let head = t.span().unwrap_or(0..0);
                    let obj = objects.iter().find(|o| {
                        o.get("name").and_then(Item::as_str) == Some(name) && o.span().is_some()
                    });
                    let Some(obj) = obj else {
                        moved_all = false;
                        errors.push(diag(
                            head,
                            Code::Migration,
                            &dkey,
                            format!(
                                "[body.{name}] names no object of this file: a body whose object \
                                 is in another file can't move; move it into its object as \
                                 [object.body] by hand"
                            ),
                        ));
                        continue;
                    };
                    m.move_body(text, t, obj);
                }
                // An explicit, now empty [body] header would be left as an unknown table.
                if moved_all && !bt.is_implicit() {
                    if let Some(sp) = bt.span() {
                        if bt.iter().all(|(_, it)| it.is_table()) {
                            let (a, b) = line_of(text, sp);
                            m.insert(a, b, Vec::new());
                        }
                    }
                }
            }
            None => errors.push(diag(
                body.span().unwrap_or(0..0),
                Code::Migration,
                "body",
                "format 0 `body` is a table of [body.<object>] tables; move each body into its \
                 object as [object.body] by hand"
                    .into(),
            )),
        }
    }

    if !errors.is_empty() {
        errors.sort_by_key(|d| (d.line, d.column));
        return Err(errors);
    }
    Ok(m.build(text))
}

/// The hook the loader calls on a format 0 file: warns old-format, migrates `original` (file
/// `f` of `ctx`), and puts the migrated text in the file's place, so the walk and every
/// later finding see format 1. None when a step can't run (its diagnostics are reported).
pub(crate) fn read_format0(
    ctx: &mut Ctx,
    f: usize,
    kind: FileKind,
    original: &str,
) -> Option<(ImDocument<String>, PosMap)> {
    let rel = ctx.srcs.get(f)?.rel.clone();
    let proj = Path::new("project.toml");
    let has_project = ctx.root.join(proj).is_file() || ctx.overlay.contains_key(proj);
    let taken: HashSet<String> = ctx.entries.iter().filter_map(|e| e.id.clone()).collect();
    let root = ctx.root.clone();
    // Every format 0 file read is warned once, also when a step of its migration can't run
    // (the spec's Migration: "reading an older file ... warns once per file").
    ctx.report(
        Severity::Warning,
        &Sp {
            file: f,
            span: 0..0,
        },
        Code::OldFormat,
        "format",
        format!(
            "`{}` is format 0: read through the migration to format 1 in memory; \
             migrate the file to format 1",
            slash(&rel)
        ),
        Vec::new(),
    );
    match migrate_with(original, &rel, &root, kind, has_project, &taken) {
        Err(ds) => {
            ctx.diags.extend(ds);
            None
        }
        Ok(m) => {
            let doc = match ImDocument::parse(m.text.clone()) {
                Ok(d) => d,
                Err(e) => {
                    // The migration writes valid TOML from valid TOML; should it not, the
                    // finding still points into the file as written.
                    let at = m.map.offset(e.span().map_or(0, |s| s.start));
                    ctx.err(
                        &Sp {
                            file: f,
                            span: at..at,
                        },
                        Code::Migration,
                        "",
                        "the migrated text is not valid TOML; migrate this file by hand".into(),
                    );
                    return None;
                }
            };
            if let Some(s) = ctx.srcs.get_mut(f) {
                *s = Src::new(rel, m.text.into_bytes());
            }
            Some((doc, m.map))
        }
    }
}

/// `/`-separated, whatever the OS.
fn slash(p: &Path) -> String {
    p.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            Component::ParentDir => Some("..".into()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// A new path string, in the quote style of the one it replaces where that can hold it.
fn quote(new: &str, old_raw: &str) -> String {
    if old_raw.starts_with('\'') && !old_raw.starts_with("'''") && !new.contains('\'') {
        return format!("'{new}'");
    }
    let mut s = String::from("\"");
    for c in new.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            c if c.is_control() => s.push_str(&format!("\\u{:04X}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// Where a lone scene's project.toml should go: the deepest folder holding the scene and every
/// file its paths name, relative to the scene's folder (`../project.toml`).
fn deepest_folder(root: &Path, rel: &Path, paths: &[PathVal]) -> String {
    let scene_dir = lexical(&root.join(rel.parent().unwrap_or(Path::new(""))));
    let mut common: Vec<Component> = scene_dir.components().collect();
    for p in paths {
        let abs = lexical(&scene_dir.join(&p.value));
        let folder: Vec<Component> = abs
            .parent()
            .map_or(Vec::new(), |d| d.components().collect());
        let n = common
            .iter()
            .zip(folder.iter())
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(n);
    }
    let ups = scene_dir.components().count().saturating_sub(common.len());
    let mut s = "../".repeat(ups);
    s.push_str("project.toml");
    s
}

/// `..` and `.` folded away without touching the disk.
fn lexical(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// A path value found in a file: where its string is written, its raw spelling and value.
#[derive(Debug)]
struct PathVal {
    span: Range<usize>,
    raw: String,
    value: String,
    key: String,
}

fn push_path(v: &Value, key: String, out: &mut Vec<PathVal>) {
    if let (Value::String(s), Some(span)) = (v, v.span()) {
        let raw = s
            .as_repr()
            .and_then(|r| r.as_raw().as_str())
            .unwrap_or("\"")
            .to_string();
        out.push(PathVal {
            span,
            raw,
            value: s.value().clone(),
            key,
        });
    }
}

/// Every path value of a table, walked against its schema (the same key table the checker
/// walks, so a path key is a path key in both).
fn collect_paths(t: &dyn TableLike, schema: &TableSchema, dkey: &str, out: &mut Vec<PathVal>) {
    for (k, item) in t.iter() {
        let Some(key) = schema.key(k) else { continue };
        let here = if dkey.is_empty() {
            k.to_string()
        } else {
            format!("{dkey}.{k}")
        };
        match &key.ty {
            Ty::Path(_) => {
                if let Some(v) = item.as_value() {
                    push_path(v, here, out);
                }
            }
            // Format 0 has no ids, but one shaped like an id is left for the checker.
            Ty::Prefab => {
                if let Some(v) = item.as_value() {
                    if !v.as_str().is_some_and(is_id) {
                        push_path(v, here, out);
                    }
                }
            }
            Ty::Paths(_) => {
                if let Some(a) = item.as_array() {
                    for (i, v) in a.iter().enumerate() {
                        push_path(v, format!("{here}.{i}"), out);
                    }
                }
            }
            Ty::Map(Ty::Prefab) => {
                if let Some(m) = item.as_table_like() {
                    for (mk, mv) in m.iter() {
                        if let Some(v) = mv.as_value() {
                            if !v.as_str().is_some_and(is_id) {
                                push_path(v, format!("{here}.{mk}"), out);
                            }
                        }
                    }
                }
            }
            Ty::Table(s) => {
                if let Some(sub) = item.as_table_like() {
                    collect_paths(sub, s, &here, out);
                }
            }
            Ty::Tables(s) => {
                if let Some(m) = item.as_table_like() {
                    for (mk, mv) in m.iter() {
                        if let Some(sub) = mv.as_table_like() {
                            collect_paths(sub, s, &format!("{here}.{mk}"), out);
                        }
                    }
                }
            }
            Ty::List(s) => {
                for (i, e) in list_entries(item).into_iter().enumerate() {
                    collect_paths(e.table(), s, &format!("{here}.{i}"), out);
                }
            }
            _ => {}
        }
    }
}

/// The ids entries already carry (a format 0 object's `id` is its pick, not an id).
fn collect_ids(top: &Table, schema: &TableSchema, out: &mut HashSet<String>) {
    for k in schema.all() {
        if k.name == "object" {
            continue;
        }
        let Some(item) = top.get(k.name) else {
            continue;
        };
        let entries: Vec<EntryRef> = match &k.ty {
            Ty::Tables(s) if s.entry.is_some() => item
                .as_table_like()
                .map(|t| t.iter().filter_map(|(_, it)| entry_ref(it)).collect())
                .unwrap_or_default(),
            Ty::List(s) if s.entry.is_some() => list_entries(item),
            _ => Vec::new(),
        };
        for e in entries {
            if let Some(id) = e.str("id") {
                out.insert(id.to_string());
            }
        }
    }
}

/// An entry's table: a `[…]`/`[[…]]` table or an inline one.
enum EntryRef<'a> {
    Std(&'a Table),
    Inline(&'a toml_edit::InlineTable),
}

impl<'a> EntryRef<'a> {
    fn table(&self) -> &'a dyn TableLike {
        match *self {
            EntryRef::Std(t) => t,
            EntryRef::Inline(t) => t,
        }
    }
    fn str(&self, k: &str) -> Option<&'a str> {
        self.table().get(k).and_then(Item::as_str)
    }
    fn has(&self, k: &str) -> bool {
        self.table().get(k).is_some()
    }
}

fn entry_ref(it: &Item) -> Option<EntryRef<'_>> {
    match it {
        Item::Table(t) => Some(EntryRef::Std(t)),
        Item::Value(Value::InlineTable(t)) => Some(EntryRef::Inline(t)),
        _ => None,
    }
}

fn list_entries(item: &Item) -> Vec<EntryRef<'_>> {
    match item {
        Item::ArrayOfTables(a) => a.iter().map(EntryRef::Std).collect(),
        Item::Value(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_inline_table().map(EntryRef::Inline))
            .collect(),
        _ => Vec::new(),
    }
}

fn tables_of(item: &Item) -> Vec<&dyn TableLike> {
    list_entries(item).into_iter().map(|e| e.table()).collect()
}

/// The end of a table's own key/value lines (dotted keys included), or of its header line when
/// it has none.
fn own_end(text: &str, t: &Table) -> usize {
    let mut end = t.span().map_or(0, |s| {
        line_end(text, header_close(text.as_bytes(), s.start))
    });
    fn walk(text: &str, t: &Table, end: &mut usize) {
        for (_, it) in t.iter() {
            match it {
                Item::Value(v) => {
                    if let Some(s) = v.span() {
                        *end = (*end).max(line_end(text, s.end.saturating_sub(1)));
                    }
                }
                Item::Table(sub) if sub.is_dotted() => walk(text, sub, end),
                _ => {}
            }
        }
    }
    walk(text, t, &mut end);
    end
}

/// The end of a table with every sub-table under it (`[object.character]`, …).
fn region_end(text: &str, t: &Table) -> usize {
    let mut end = own_end(text, t);
    for (_, it) in t.iter() {
        match it {
            Item::Table(sub) if !sub.is_dotted() => end = end.max(region_end(text, sub)),
            Item::ArrayOfTables(a) => {
                for sub in a.iter() {
                    end = end.max(region_end(text, sub));
                }
            }
            _ => {}
        }
    }
    end
}

/// A piece of migrated text: a run of the original, or new text anchored at an original
/// offset.
#[derive(Debug)]
enum Piece {
    Orig(Range<usize>),
    New(String, usize),
}

/// One edit: at `at`, drop the original up to `del_end`, and write `pieces`.
#[derive(Debug)]
struct Edit {
    at: usize,
    del_end: usize,
    seq: usize,
    pieces: Vec<Piece>,
}

#[derive(Default)]
struct Edits {
    edits: Vec<Edit>,
}

impl Edits {
    fn insert(&mut self, at: usize, del_end: usize, pieces: Vec<Piece>) {
        let seq = self.edits.len();
        self.edits.push(Edit {
            at,
            del_end: del_end.max(at),
            seq,
            pieces,
        });
    }

    fn replace(&mut self, span: Range<usize>, with: String, anchor: usize) {
        self.insert(span.start, span.end, vec![Piece::New(with, anchor)]);
    }

    /// `id = "…"` after the entry's existing keys.
    fn add_id(&mut self, text: &str, e: &EntryRef, id: &str) {
        match e {
            EntryRef::Std(t) => {
                // An entry with no header of its own (implicit, dotted) has no line to follow;
                // it keeps its missing-id warning (docs/migration.md).
                let Some(head) = t.span() else { return };
                if t.is_implicit() || t.is_dotted() {
                    return;
                }
                let at = own_end(text, t);
                let last_line_start = text[..at.saturating_sub(1).min(text.len())]
                    .rfind('\n')
                    .map_or(0, |p| p + 1);
                let indent: String = if at > line_end(text, head.start) {
                    text[last_line_start..]
                        .chars()
                        .take_while(|c| *c == ' ' || *c == '\t')
                        .collect()
                } else {
                    String::new()
                };
                let lead = if at == text.len() && !text.ends_with('\n') {
                    "\n"
                } else {
                    ""
                };
                self.insert(
                    at,
                    at,
                    vec![Piece::New(
                        format!("{lead}{indent}id = \"{id}\"\n"),
                        head.start,
                    )],
                );
            }
            EntryRef::Inline(t) => {
                let Some(sp) = t.span() else { return };
                let close = sp.end.saturating_sub(1);
                if text.as_bytes().get(close) != Some(&b'}') {
                    return;
                }
                let before = text[sp.start..close].trim_end();
                let at = sp.start + before.len();
                let piece = if t.is_empty() {
                    format!(" id = \"{id}\" ")
                } else {
                    format!(", id = \"{id}\"")
                };
                self.insert(at, at, vec![Piece::New(piece, sp.start)]);
            }
        }
    }

    /// Moves `[body.<name>]` (header and key lines) to the end of `obj`'s region as
    /// `[object.body]`, after a blank line; the blank line above the old place goes with it.
    fn move_body(&mut self, text: &str, body: &Table, obj: &Table) {
        let Some(head) = body.span() else { return };
        let close = header_close(text.as_bytes(), head.start);
        let (line_start, _) = line_of(text, head.clone());
        let end = own_end(text, body);
        // The blank line above the body goes too, so no double gap is left behind.
        let mut del_start = line_start;
        if line_start > 0 {
            let prev_start = text[..line_start - 1].rfind('\n').map_or(0, |p| p + 1);
            if text[prev_start..line_start].trim().is_empty() {
                del_start = prev_start;
            }
        }
        self.insert(del_start, end, Vec::new());
        let at = region_end(text, obj);
        let mut pieces = Vec::new();
        if at == text.len() && !text.ends_with('\n') {
            pieces.push(Piece::New("\n".into(), head.start));
        }
        pieces.push(Piece::New("\n[object.body]".into(), head.start));
        pieces.push(Piece::Orig(close..end));
        if !text[..end].ends_with('\n') {
            pieces.push(Piece::New("\n".into(), end));
        }
        self.insert(at, at, pieces);
    }

    /// The migrated text and its map.
    fn build(mut self, text: &str) -> Migrated {
        self.edits.sort_by_key(|e| (e.at, e.seq));
        let mut out = String::with_capacity(text.len() + 64);
        let mut segs: Vec<Seg> = Vec::new();
        let mut push = |out: &mut String, p: Piece| match p {
            Piece::Orig(r) => {
                if r.start < r.end {
                    if let Some(s) = text.get(r.clone()) {
                        segs.push(Seg {
                            out: out.len(),
                            orig: r.start,
                            copy: true,
                        });
                        out.push_str(s);
                    }
                }
            }
            Piece::New(s, anchor) => {
                if !s.is_empty() {
                    segs.push(Seg {
                        out: out.len(),
                        orig: anchor,
                        copy: false,
                    });
                    out.push_str(&s);
                }
            }
        };
        let mut cur = 0;
        for e in self.edits {
            if e.at > cur {
                push(&mut out, Piece::Orig(cur..e.at));
                cur = e.at;
            }
            for p in e.pieces {
                push(&mut out, p);
            }
            cur = cur.max(e.del_end);
        }
        push(&mut out, Piece::Orig(cur..text.len()));
        if segs.is_empty() {
            segs.push(Seg {
                out: 0,
                orig: 0,
                copy: true,
            });
        }
        Migrated {
            map: PosMap {
                original: text.to_string(),
                migrated: out.clone(),
                segs,
            },
            text: out,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::load;

    /// tests/data/format0, found from this file as the loader's tests find their data.
    fn data() -> PathBuf {
        let here = Path::new(file!());
        let base = here
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .unwrap_or(Path::new(""));
        base.join("tests/data/format0")
    }

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap()
    }

    /// Id::derive written out from the spec's words, independently of `derive_id`: the digest
    /// as a bit string, its first 50 bits cut into tens of 5.
    fn derive_by_bits(key: &str) -> String {
        let d = Sha256::digest(key.as_bytes());
        let bits: Vec<u8> = d
            .iter()
            .flat_map(|b| (0..8).rev().map(move |i| (b >> i) & 1))
            .take(50)
            .collect();
        bits.chunks(5)
            .map(|c| {
                let v = c.iter().fold(0usize, |a, b| a * 2 + *b as usize);
                "0123456789abcdefghjkmnpqrstvwxyz".as_bytes()[v] as char
            })
            .collect()
    }

    /// A temporary tree of `files`.
    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (f, t) in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        }
        dir
    }

    #[test]
    fn derive_follows_the_spec_bit_order() {
        // Computed by hand with Python: hashlib.sha256(b"a\nb\nc"), first 7 bytes big-endian,
        // shifted right by 6, cut into ten 5-bit digits, most significant first.
        assert_eq!(derive_id("a\nb\nc"), "x9zv12vt5q");
        for key in [
            "",
            "a\nb\nc",
            "scenes/room.scene.toml\nobject\ncrate",
            "é\n1",
        ] {
            let id = derive_id(key);
            assert_eq!(id, derive_by_bits(key), "{key:?}");
            assert!(is_id(&id), "{id}");
        }
    }

    #[test]
    fn a_format0_project_migrates_to_the_expected_text() {
        let root = data();
        for (f, k, want) in [
            (
                "scenes/room.scene.toml",
                FileKind::Scene,
                "room.scene.toml.expected",
            ),
            (
                "looks/materials.toml",
                FileKind::Materials,
                "materials.toml.expected",
            ),
        ] {
            let got = migrate(&read(&root.join(f)), &root.join(f), &root, k).unwrap();
            assert_eq!(got, read(&root.join("expected").join(want)), "{f}");
            // A format 1 text comes back as it is.
            assert_eq!(migrate(&got, &root.join(f), &root, k).unwrap(), got);
        }
    }

    #[test]
    fn migrated_ids_are_derived_from_path_kind_and_name() {
        let root = data();
        let text = read(&root.join("scenes/room.scene.toml"));
        let got = migrate(
            &text,
            Path::new("scenes/room.scene.toml"),
            &root,
            FileKind::Scene,
        )
        .unwrap();
        let doc = ImDocument::parse(got).unwrap();
        let rel = Path::new("scenes/room.scene.toml");
        let mesh = doc["mesh"]["box"]["id"].as_str().unwrap();
        assert_eq!(mesh, derive_by_bits(&id_key(rel, "mesh", "box")));
        let objs = doc["object"].as_array_of_tables().unwrap();
        for (o, name) in objs.iter().zip(["floor", "crate"]) {
            let want = derive_by_bits(&format!("scenes/room.scene.toml\nobject\n{name}"));
            assert_eq!(o["id"].as_str().unwrap(), want);
        }
        let light = &doc["light"].as_array_of_tables().unwrap().get(0).unwrap()["id"];
        assert_eq!(
            light.as_str().unwrap(),
            derive_by_bits("scenes/room.scene.toml\nlight\nkey")
        );
    }

    #[test]
    fn a_taken_id_takes_the_next_suffix() {
        let dir = tree(&[("project.toml", "format = 1\n[project]\nname = \"t\"\n")]);
        let first = derive_by_bits("t.scene.toml\nlight\nk");
        let second = derive_by_bits("t.scene.toml\nlight\nk\n1");
        let third = derive_by_bits("t.scene.toml\nlight\nk\n2");
        let text = "[[light]]\nname = \"k\"\nposition = [0, 1, 0]\nintensity = 1\n";
        let taken: HashSet<String> = [first.clone(), second].into_iter().collect();
        let m = migrate_with(
            text,
            Path::new("t.scene.toml"),
            dir.path(),
            FileKind::Scene,
            true,
            &taken,
        )
        .unwrap();
        assert!(
            m.text
                .ends_with(&format!("intensity = 1\nid = \"{third}\"\n")),
            "{}",
            m.text
        );
        // A proxy is named "<object>\n<place>", and an inline entry takes its id inline.
        let text = "proxy = [{ object = \"crate\", kind = \"box\", size = [1, 1, 1] }]\n";
        let m = migrate_with(
            text,
            Path::new("p.proxies.toml"),
            dir.path(),
            FileKind::Proxies,
            true,
            &HashSet::new(),
        )
        .unwrap();
        let id = derive_by_bits("p.proxies.toml\nproxy\ncrate\n0");
        assert_eq!(
            m.text,
            format!("format = 1\n\nproxy = [{{ object = \"crate\", kind = \"box\", size = [1, 1, 1], id = \"{id}\" }}]\n")
        );
    }

    #[test]
    fn the_format0_project_loads_with_one_warning_per_file() {
        let root = data();
        let scene = load(&root.join("scenes/room.scene.toml")).unwrap();
        let warn: Vec<(String, &str, u32, u32)> = scene
            .warnings
            .iter()
            .map(|d| (d.file.display().to_string(), d.code, d.line, d.column))
            .collect();
        assert_eq!(
            warn,
            vec![
                ("scenes/room.scene.toml".to_string(), "old-format", 1, 1),
                ("looks/materials.toml".to_string(), "old-format", 1, 1),
            ]
        );
        assert!(scene
            .warnings
            .iter()
            .all(|d| d.severity == Severity::Warning));
    }

    #[test]
    fn the_migrated_scene_resolves_like_its_format1_twin() {
        let root = data();
        let old = load(&root.join("scenes/room.scene.toml")).unwrap();
        let twin = load(&root.join("twin/room.scene.toml")).unwrap();
        assert!(twin.warnings.is_empty(), "{:#?}", twin.warnings);
        let objs = |s: &crate::scene::Scene| {
            s.objects
                .iter()
                .map(|o| {
                    (
                        o.key.clone(),
                        o.mesh.clone(),
                        o.at,
                        o.rotate,
                        o.scale,
                        o.material.clone(),
                        o.pick,
                        o.dynamic,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(objs(&old), objs(&twin));
        assert_eq!(old.objects.len(), 2);
        let mats = |s: &crate::scene::Scene| {
            s.materials
                .iter()
                .map(|m| (m.key.clone(), m.family, m.base, m.roughness))
                .collect::<Vec<_>>()
        };
        assert_eq!(mats(&old), mats(&twin));
        assert_eq!(old.meshes.len(), 1);
        assert_eq!(old.meshes[0].file, twin.meshes[0].file);
        assert_eq!(old.meshes[0].file, PathBuf::from("assets/box.glb"));
        assert_eq!(old.lights.len(), twin.lights.len());
    }

    #[test]
    fn a_finding_in_a_format0_file_points_into_it_as_written() {
        // The file is 2 lines longer once migrated (format = 1 and a blank line), the mesh's
        // path grows, ids go in and the body moves: each finding still lands as written.
        let dir = tree(&[
            ("project.toml", "format = 1\n[project]\nname = \"t\"\n"),
            ("s/m.glb", "x"),
            (
                "s/t.scene.toml",
                "# old\n[mesh.m]\nfile = \"m.glb\"\n\n[[object]]\nname = \"é\"\nmesh = \"m\"\nid = 3\nspin = 1\n[body.\"é\"]\nkind = \"fixed\"\nbogus = 2\n",
            ),
        ]);
        let d = load(&dir.path().join("s/t.scene.toml")).unwrap_err();
        let got: Vec<(&str, &str, u32, u32, u32, u32)> = d
            .iter()
            .map(|d| {
                (
                    d.code,
                    d.key.as_str(),
                    d.line,
                    d.column,
                    d.end_line,
                    d.end_column,
                )
            })
            .collect();
        let unknown: Vec<_> = got.iter().filter(|g| g.0 == "unknown-key").collect();
        assert_eq!(unknown.len(), 2, "{got:#?}");
        // `spin` at line 9, column 1, as written.
        assert_eq!(
            (unknown[0].2, unknown[0].3, unknown[0].4, unknown[0].5),
            (9, 1, 9, 5),
            "{got:#?}"
        );
        // `bogus` in the moved body: line 12 as written, though the body moved.
        assert_eq!(
            (unknown[1].2, unknown[1].3, unknown[1].4, unknown[1].5),
            (12, 1, 12, 6),
            "{got:#?}"
        );
        assert!(d
            .iter()
            .any(|d| d.code == "old-format" && d.line == 1 && d.column == 1));
    }

    #[test]
    fn a_path_leaving_the_root_is_refused() {
        let dir = tree(&[
            ("project.toml", "format = 1\n[project]\nname = \"t\"\n"),
            ("s/t.scene.toml", "[mesh.m]\nfile = \"../../m.glb\"\n"),
        ]);
        let text = read(&dir.path().join("s/t.scene.toml"));
        let d = migrate(
            &text,
            &dir.path().join("s/t.scene.toml"),
            dir.path(),
            FileKind::Scene,
        )
        .unwrap_err();
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].code, d[0].key.as_str()),
            ("outside-root", "mesh.m.file")
        );
        assert_eq!(
            (d[0].line, d[0].column, d[0].end_line, d[0].end_column),
            (2, 8, 2, 21)
        );
        // Through the loader too, located as written.
        let e = load(&dir.path().join("s/t.scene.toml")).unwrap_err();
        assert!(
            e.iter()
                .any(|x| x.code == "outside-root" && x.line == 2 && x.column == 8),
            "{e:#?}"
        );
    }

    #[test]
    fn a_lone_scene_names_each_path_past_its_folder() {
        let dir = tree(&[
            ("a/b/scene.toml", "materials = [\"../../looks/m.toml\"]\n[mesh.m]\nfile = \"../m.glb\"\n[content.c]\nimage = \"c.png\"\n"),
        ]);
        let root = dir.path().join("a/b");
        let text = read(&root.join("scene.toml"));
        let d = migrate(&text, &root.join("scene.toml"), &root, FileKind::Scene).unwrap_err();
        let got: Vec<(&str, &str, u32, u32)> = d
            .iter()
            .map(|d| (d.code, d.key.as_str(), d.line, d.column))
            .collect();
        assert_eq!(
            got,
            vec![
                ("migration", "materials.0", 1, 14),
                ("migration", "mesh.m.file", 3, 8)
            ]
        );
        for e in &d {
            assert!(e.message.contains("../../project.toml"), "{}", e.message);
        }
        assert!(d[0].message.contains("`../../looks/m.toml`"));
    }

    #[test]
    fn a_body_whose_object_is_in_another_file_is_refused() {
        let text = "include = [\"parts.scene.toml\"]\n\n[body.crate]\nkind = \"fixed\"\n";
        let dir = tree(&[("project.toml", "format = 1\n[project]\nname = \"t\"\n")]);
        let d = migrate(
            text,
            Path::new("room.scene.toml"),
            dir.path(),
            FileKind::Scene,
        )
        .unwrap_err();
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].code, d[0].key.as_str(), d[0].line, d[0].column),
            ("migration", "body.crate", 3, 1)
        );
        assert!(d[0].message.contains("another file"));
    }

    #[test]
    fn a_body_moves_after_its_objects_subtables() {
        let text = "[body.a]\nkind = \"fixed\"\n\n[[object]]\nname = \"a\"\nmesh = \"m\"\n\n[object.trigger]\nshape = \"box\"\n\n[[object]]\nname = \"b\"\nmesh = \"m\"\n";
        let dir = tree(&[("project.toml", "format = 1\n[project]\nname = \"t\"\n")]);
        let m = migrate_with(
            text,
            Path::new("t.scene.toml"),
            dir.path(),
            FileKind::Scene,
            true,
            &HashSet::new(),
        )
        .unwrap();
        let a = derive_by_bits("t.scene.toml\nobject\na");
        let b = derive_by_bits("t.scene.toml\nobject\nb");
        assert_eq!(
            m.text,
            format!("format = 1\n\n\n[[object]]\nname = \"a\"\nmesh = \"m\"\nid = \"{a}\"\n\n[object.trigger]\nshape = \"box\"\n\n[object.body]\nkind = \"fixed\"\n\n[[object]]\nname = \"b\"\nmesh = \"m\"\nid = \"{b}\"\n")
        );
        // `kind` of the moved body maps back to line 2, column 1.
        let line = m
            .text
            .lines()
            .position(|l| l == "kind = \"fixed\"")
            .unwrap() as u32
            + 1;
        assert_eq!(m.map.position(line, 1), (2, 1));
        assert_eq!(m.map.position(line, 5), (2, 5));
    }
}
