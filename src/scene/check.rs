//! The table-driven walk: one document against the schema, with its spans, producing
//! diagnostics, `Presence` records, the entries it holds and the references it makes.
//!
//! The walk recurses along the schema (a fixed depth), never along the input: a `Ty::Any`
//! value is not descended into, so no input nesting reaches the stack beyond what toml_edit's
//! parser already bounds.

use std::collections::HashMap;
use std::ops::Range as Span;
use std::path::{Path, PathBuf};

use toml_edit::{ArrayOfTables, InlineTable, Item, Table, Value};

use super::diagnostic::{Code, Diagnostic, Location, Severity};
use super::model::Presence;
use super::schema::{self, Dflt, Key, Kind, Need, PathRule, Range, Rule, TableSchema, Ty};

/// One file's text and line starts, for turning byte offsets into lines and columns.
pub(crate) struct Src {
    /// Relative to the root.
    pub rel: PathBuf,
    /// Byte offset of each line's start.
    line_starts: Vec<usize>,
    /// The bytes (kept as bytes: a not-UTF-8 file is located too).
    bytes: Vec<u8>,
}

impl Src {
    pub(crate) fn new(rel: PathBuf, bytes: Vec<u8>) -> Src {
        let mut line_starts = vec![0];
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Src {
            rel,
            line_starts,
            bytes,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(crate) fn pos(&self, off: usize) -> (u32, u32) {
        let off = off.min(self.bytes.len());
        let line = match self.line_starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(line).copied().unwrap_or(0).min(off);
        // A character starts at every byte that is not a UTF-8 continuation byte, so counting
        // those counts characters without needing the offsets on char boundaries.
        let chars = self.bytes[start..off]
            .iter()
            .filter(|b| (**b & 0xC0) != 0x80)
            .count();
        (line as u32 + 1, chars as u32 + 1)
    }

    /// The bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// A span in one of the files read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sp {
    pub file: usize,
    pub span: Span<usize>,
}

impl Sp {
    /// `span` in file `file`, or `fallback` where toml_edit kept no span.
    fn or(file: usize, span: Option<Span<usize>>, fallback: &Sp) -> Sp {
        span.map(|span| Sp { file, span })
            .unwrap_or_else(|| fallback.clone())
    }
}

/// An entry that can be referred to.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub kind: Kind,
    /// Its name (a list entry's `name`, a keyed table's key).
    pub name: Option<String>,
    pub id: Option<String>,
    /// Where its name is written (else its header).
    pub name_at: Sp,
    /// Where its id is written (else its header).
    pub id_at: Sp,
    /// Its dotted diagnostic key (`object.7k2m9q4xzr`).
    pub key: String,
}

/// A reference found by the walk, resolved once every file is read.
#[derive(Clone, Debug)]
pub(crate) struct RefUse {
    pub kind: Kind,
    pub value: String,
    pub at: Sp,
    pub key: String,
}

/// A table or an inline table.
#[derive(Clone, Copy)]
pub(crate) enum Tbl<'a> {
    Table(&'a Table),
    Inline(&'a InlineTable),
}

/// Any node of a document.
#[derive(Clone, Copy)]
pub(crate) enum Node<'a> {
    Table(&'a Table),
    Inline(&'a InlineTable),
    Aot(&'a ArrayOfTables),
    Val(&'a Value),
}

impl<'a> Node<'a> {
    pub(crate) fn of_item(item: &'a Item) -> Option<Node<'a>> {
        match item {
            Item::None => None,
            Item::Value(Value::InlineTable(t)) => Some(Node::Inline(t)),
            Item::Value(v) => Some(Node::Val(v)),
            Item::Table(t) => Some(Node::Table(t)),
            Item::ArrayOfTables(a) => Some(Node::Aot(a)),
        }
    }

    pub(crate) fn of_value(v: &'a Value) -> Node<'a> {
        match v {
            Value::InlineTable(t) => Node::Inline(t),
            v => Node::Val(v),
        }
    }

    fn span(&self) -> Option<Span<usize>> {
        match self {
            Node::Table(t) => t.span(),
            Node::Inline(t) => t.span(),
            Node::Aot(a) => a.span(),
            Node::Val(v) => v.span(),
        }
    }

    pub(crate) fn tbl(&self) -> Option<Tbl<'a>> {
        match *self {
            Node::Table(t) => Some(Tbl::Table(t)),
            Node::Inline(t) => Some(Tbl::Inline(t)),
            _ => None,
        }
    }

    pub(crate) fn val(&self) -> Option<&'a Value> {
        match *self {
            Node::Val(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn str(&self) -> Option<&'a str> {
        self.val().and_then(|v| v.as_str())
    }

    /// A number: an integer or a float.
    pub(crate) fn num(&self) -> Option<f64> {
        match self.val()? {
            Value::Integer(i) => Some(*i.value() as f64),
            Value::Float(f) => Some(*f.value()),
            _ => None,
        }
    }

    pub(crate) fn bool(&self) -> Option<bool> {
        self.val().and_then(|v| v.as_bool())
    }

    /// The tables of a list: an array of tables or an array of inline tables.
    pub(crate) fn tables(&self) -> Vec<Tbl<'a>> {
        match *self {
            Node::Aot(a) => a.iter().map(Tbl::Table).collect(),
            Node::Val(Value::Array(a)) => a
                .iter()
                .filter_map(|v| match v {
                    Value::InlineTable(t) => Some(Tbl::Inline(t)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The elements of an array value.
    pub(crate) fn elems(&self) -> Vec<Node<'a>> {
        match *self {
            Node::Val(Value::Array(a)) => a.iter().map(Node::of_value).collect(),
            Node::Aot(a) => a.iter().map(Node::Table).collect(),
            _ => Vec::new(),
        }
    }

    /// An array of numbers, when it is one.
    pub(crate) fn nums(&self) -> Option<Vec<f64>> {
        match *self {
            Node::Val(Value::Array(_)) => self.elems().iter().map(|e| e.num()).collect(),
            _ => None,
        }
    }
}

impl<'a> Tbl<'a> {
    /// The keys in the order written, each with its key span and node.
    pub(crate) fn entries(&self) -> Vec<(&'a str, Option<Span<usize>>, Node<'a>)> {
        match *self {
            Tbl::Table(t) => t
                .iter()
                .filter_map(|(k, v)| {
                    let ks = t.key(k).and_then(|k| k.span());
                    Node::of_item(v).map(|n| (k, ks, n))
                })
                .collect(),
            Tbl::Inline(t) => t
                .iter()
                .map(|(k, v)| {
                    let ks = t.key(k).and_then(|k| k.span());
                    (k, ks, Node::of_value(v))
                })
                .collect(),
        }
    }

    pub(crate) fn get(&self, name: &str) -> Option<Node<'a>> {
        match *self {
            Tbl::Table(t) => t.get(name).and_then(Node::of_item),
            Tbl::Inline(t) => t.get(name).map(Node::of_value),
        }
    }

    fn key_span(&self, name: &str) -> Option<Span<usize>> {
        match *self {
            Tbl::Table(t) => t.key(name).and_then(|k| k.span()),
            Tbl::Inline(t) => t.key(name).and_then(|k| k.span()),
        }
    }

    fn span(&self) -> Option<Span<usize>> {
        match *self {
            Tbl::Table(t) => t.span(),
            Tbl::Inline(t) => t.span(),
        }
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub(crate) fn str(&self, name: &str) -> Option<&'a str> {
        self.get(name).and_then(|n| n.str())
    }

    pub(crate) fn num(&self, name: &str) -> Option<f64> {
        self.get(name).and_then(|n| n.num())
    }

    pub(crate) fn bool(&self, name: &str) -> Option<bool> {
        self.get(name).and_then(|n| n.bool())
    }

    pub(crate) fn nums(&self, name: &str) -> Option<Vec<f64>> {
        self.get(name).and_then(|n| n.nums())
    }

    fn len(&self) -> usize {
        match *self {
            Tbl::Table(t) => t.len(),
            Tbl::Inline(t) => t.len(),
        }
    }
}

/// Whether `s` is an id: 10 lowercase Crockford base32 characters.
pub fn is_id(s: &str) -> bool {
    s.len() == 10
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b.is_ascii_lowercase() && !b"ilou".contains(&b)))
}

/// Why a name breaks the name rules, if it does.
fn name_fault(s: &str, material: bool) -> Option<&'static str> {
    if s.is_empty() {
        Some("a name may not be empty")
    } else if s.starts_with(char::is_whitespace) || s.ends_with(char::is_whitespace) {
        Some("a name may not have a space at either end")
    } else if material && s.chars().any(char::is_control) {
        Some("a material name may not hold a control character")
    } else {
        None
    }
}

/// The outcome of a path check: the path relative to the root, normalised.
pub(crate) enum PathCheck {
    /// Exists with its exact case (or need not exist).
    Ok(PathBuf),
    /// Refused; the diagnostic is already reported.
    Refused,
}

/// The normalised root-relative form of a written path, or the code and reason it is refused.
pub(crate) fn normalize(raw: &str) -> Result<PathBuf, (Code, String)> {
    if raw.is_empty() {
        return Err((Code::BadPath, "a path may not be empty".into()));
    }
    if raw.contains('\\') {
        return Err((
            Code::BadPath,
            format!("`{raw}` holds a backslash; paths use /"),
        ));
    }
    let b = raw.as_bytes();
    if raw.starts_with('/') || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') {
        return Err((
            Code::BadPath,
            format!("`{raw}` is absolute; paths are relative to the project root"),
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in raw.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err((
                        Code::OutsideRoot,
                        format!("`{raw}` leaves the project root"),
                    ));
                }
            }
            c => parts.push(c),
        }
    }
    Ok(parts.iter().collect())
}

/// The walk's state across every file of one load.
pub(crate) struct Ctx {
    pub root: PathBuf,
    pub srcs: Vec<Src>,
    pub diags: Vec<Diagnostic>,
    pub present: Vec<Presence>,
    pub entries: Vec<Entry>,
    pub refs: Vec<RefUse>,
    /// Placement ids named by `prefab` or a palette, resolved among the placements.
    pub placement_refs: Vec<RefUse>,
    /// The project's layer names; `None` when there is no readable [layers] (then a scene's
    /// layer names are refused, or unchecked when project.toml could not be read).
    pub layers: Option<Vec<String>>,
    /// Whether layer names are checked at all.
    pub check_layers: bool,
    /// Paths that passed their check: (file, diagnostic key, where written, normalised path).
    pub ok_paths: Vec<(usize, String, Sp, PathBuf)>,
    /// Texts standing in for files, by root-relative path.
    pub overlay: HashMap<PathBuf, Vec<u8>>,
    dirs: HashMap<PathBuf, Option<Vec<String>>>,
}

impl Ctx {
    pub(crate) fn new(root: PathBuf) -> Ctx {
        Ctx {
            root,
            srcs: Vec::new(),
            diags: Vec::new(),
            present: Vec::new(),
            entries: Vec::new(),
            refs: Vec::new(),
            placement_refs: Vec::new(),
            layers: None,
            check_layers: false,
            ok_paths: Vec::new(),
            overlay: HashMap::new(),
            dirs: HashMap::new(),
        }
    }

    /// A location from a span.
    pub(crate) fn loc(&self, at: &Sp) -> Location {
        match self.srcs.get(at.file) {
            Some(src) => {
                let (line, column) = src.pos(at.span.start);
                Location {
                    file: src.rel.clone(),
                    line,
                    column,
                }
            }
            None => Location {
                file: PathBuf::new(),
                line: 1,
                column: 1,
            },
        }
    }

    /// Reports a finding.
    pub(crate) fn report(
        &mut self,
        sev: Severity,
        at: &Sp,
        code: Code,
        key: &str,
        message: String,
        related: Vec<Location>,
    ) {
        let (file, line, column, end_line, end_column) = match self.srcs.get(at.file) {
            Some(src) => {
                let (l, c) = src.pos(at.span.start);
                let (el, ec) = src.pos(at.span.end.max(at.span.start));
                (src.rel.clone(), l, c, el, ec)
            }
            None => (PathBuf::new(), 1, 1, 1, 1),
        };
        self.diags.push(Diagnostic {
            file,
            line,
            column,
            end_line,
            end_column,
            severity: sev,
            code: code.as_str(),
            key: key.to_string(),
            message,
            related,
        });
    }

    pub(crate) fn err(&mut self, at: &Sp, code: Code, key: &str, message: String) {
        self.report(Severity::Error, at, code, key, message, Vec::new());
    }

    /// The header of a table: from its start to the end of that line, else `fallback`.
    fn head(&self, f: usize, t: Tbl, fallback: &Sp) -> Sp {
        match t.span() {
            Some(s) => {
                let bytes = self.srcs.get(f).map(|s| s.bytes()).unwrap_or(&[]);
                let mut end = s.start;
                while end < s.end && end < bytes.len() && bytes[end] != b'\n' && bytes[end] != b'\r'
                {
                    end += 1;
                }
                // Trim trailing spaces and a trailing comment off the header line.
                let line = &bytes[s.start.min(end)..end];
                let cut = match line.iter().position(|b| *b == b'#') {
                    Some(p) if matches!(t, Tbl::Table(_)) && line.first() == Some(&b'[') => line
                        [..p]
                        .iter()
                        .rposition(|b| !b.is_ascii_whitespace())
                        .map_or(p, |q| q + 1),
                    _ => line
                        .iter()
                        .rposition(|b| !b.is_ascii_whitespace())
                        .map_or(line.len(), |q| q + 1),
                };
                Sp {
                    file: f,
                    span: s.start..s.start + cut,
                }
            }
            None => fallback.clone(),
        }
    }

    fn val_sp(f: usize, t: Tbl, name: &str, fallback: &Sp) -> Sp {
        let span = t
            .get(name)
            .and_then(|n| n.span())
            .or_else(|| t.key_span(name));
        Sp::or(f, span, fallback)
    }

    fn key_sp(f: usize, t: Tbl, name: &str, fallback: &Sp) -> Sp {
        Sp::or(f, t.key_span(name), fallback)
    }

    // -----------------------------------------------------------------------------------------
    // the walk

    /// Checks one table against its schema. `key` is the dotted diagnostic key of the table
    /// (empty at the top level), `spath` its schema path, `at` where it is written.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn walk(
        &mut self,
        f: usize,
        t: Tbl,
        s: &'static TableSchema,
        key: &str,
        spath: &str,
        at: &Sp,
        tname: Option<&str>,
    ) {
        let head = self.head(f, t, at);
        let join = |a: &str, b: &str| {
            if a.is_empty() {
                b.to_string()
            } else {
                format!("{a}.{b}")
            }
        };
        for (name, ks, node) in t.entries() {
            let kat = Sp::or(f, ks.clone(), &head);
            let dkey = join(key, name);
            let Some(ksch) = s.key(name) else {
                let allowed: Vec<&str> = s.all().map(|k| k.name).collect();
                let place = if spath.is_empty() {
                    "the top level".to_string()
                } else {
                    format!("[{spath}]")
                };
                self.err(
                    &kat,
                    Code::UnknownKey,
                    &dkey,
                    format!(
                        "unknown key `{name}` in {place}; allowed keys: {}",
                        allowed.join(", ")
                    ),
                );
                continue;
            };
            let kpath = join(spath, name);
            let loc = self.loc(&kat);
            self.present.push(Presence {
                path: kpath.clone(),
                key: dkey.clone(),
                at: loc,
                default: is_default(&node, ksch),
            });
            let vat = Sp::or(f, node.span(), &kat);
            self.value(f, node, &ksch.ty, ksch.range, &dkey, &kpath, &vat);
            if let Some((sel, vals)) = ksch.only {
                let cur = selector(t, s, sel);
                if let Some(cur) = cur {
                    if !vals.contains(&cur) {
                        self.err(
                            &kat,
                            Code::BadValue,
                            &dkey,
                            format!(
                                "`{name}` is taken only when {sel} is {}; here {sel} is \"{cur}\"",
                                or_list(vals)
                            ),
                        );
                    }
                }
            }
        }
        for ksch in s.all() {
            let needed = match ksch.need {
                Need::No => false,
                Need::Yes => true,
                Need::When(sel, vals) => selector(t, s, sel).is_some_and(|c| vals.contains(&c)),
            };
            if needed && !t.has(ksch.name) {
                let why = match ksch.need {
                    Need::When(sel, vals) => format!(" when {sel} is {}", or_list(vals)),
                    _ => String::new(),
                };
                let place = if spath.is_empty() {
                    "the top level".to_string()
                } else {
                    format!("[{spath}]")
                };
                self.err(
                    &head,
                    Code::MissingKey,
                    &join(key, ksch.name),
                    format!("{place} needs `{}`{why}", ksch.name),
                );
            }
        }
        if let Some(kind) = s.entry {
            self.entry(f, t, kind, key, &head, spath, tname);
        }
        if let Some(rule) = s.rule {
            self.rule(f, t, rule, key, &head);
        }
    }

    /// Registers an entry and warns when it has no id.
    #[allow(clippy::too_many_arguments)]
    fn entry(
        &mut self,
        f: usize,
        t: Tbl,
        kind: Kind,
        key: &str,
        head: &Sp,
        spath: &str,
        tname: Option<&str>,
    ) {
        let id = t.str("id").map(str::to_string);
        let (name, name_at) = match tname {
            Some(n) => (Some(n.to_string()), head.clone()),
            None => (
                t.str("name").map(str::to_string),
                Self::val_sp(f, t, "name", head),
            ),
        };
        let id_at = Self::val_sp(f, t, "id", head);
        if id.is_none() && !t.has("id") {
            self.report(
                Severity::Warning,
                head,
                Code::MissingId,
                key,
                format!(
                    "this {} has no id; the first write through pfx-scene adds one",
                    spath_word(spath, kind)
                ),
                Vec::new(),
            );
        }
        self.entries.push(Entry {
            kind,
            name,
            id,
            name_at,
            id_at,
            key: key.to_string(),
        });
    }

    /// Checks one value against its type and range.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn value(
        &mut self,
        f: usize,
        node: Node,
        ty: &'static Ty,
        range: Option<Range>,
        key: &str,
        spath: &str,
        at: &Sp,
    ) {
        let bad_type = |me: &mut Ctx, what: &str| {
            me.err(
                at,
                Code::BadType,
                key,
                format!("expected {what}, found {}", found(&node)),
            );
        };
        match ty {
            Ty::Int | Ty::UInt => match node.val() {
                Some(Value::Integer(i)) => {
                    let v = *i.value() as f64;
                    if matches!(ty, Ty::UInt) && v < 0.0 {
                        self.err(
                            at,
                            Code::BadValue,
                            key,
                            format!("{v} is negative; expected an unsigned integer"),
                        );
                    } else {
                        self.range(at, key, v, range);
                    }
                }
                _ => bad_type(
                    self,
                    if matches!(ty, Ty::UInt) {
                        "an unsigned integer"
                    } else {
                        "an integer"
                    },
                ),
            },
            Ty::Num => match node.num() {
                Some(v) => self.number(at, key, v, range),
                None => bad_type(self, "a number"),
            },
            Ty::Bool => {
                if node.bool().is_none() {
                    bad_type(self, "true or false")
                }
            }
            Ty::Str => {
                if node.str().is_none() {
                    bad_type(self, "a string")
                }
            }
            Ty::Name => match node.str() {
                Some(s) => {
                    if let Some(why) = name_fault(s, false) {
                        self.err(at, Code::BadName, key, format!("{why} (\"{s}\")"));
                    }
                }
                None => bad_type(self, "a string"),
            },
            Ty::Id => match node.str() {
                Some(s) => {
                    if !is_id(s) {
                        self.err(
                            at,
                            Code::BadId,
                            key,
                            format!(
                                "\"{s}\" is not an id: 10 lowercase Crockford base32 characters (0-9, a-z without i, l, o, u)"
                            ),
                        );
                    }
                }
                None => bad_type(self, "an id string"),
            },
            Ty::Hex => match node.str() {
                Some(s) => {
                    let ok = s.len() == 7
                        && s.starts_with('#')
                        && s[1..].bytes().all(|b| b.is_ascii_hexdigit());
                    if !ok {
                        self.err(
                            at,
                            Code::BadValue,
                            key,
                            format!("\"{s}\" is not a colour \"#rrggbb\""),
                        );
                    }
                }
                None => bad_type(self, "a colour \"#rrggbb\""),
            },
            Ty::Enum(vals) => match node.str() {
                Some(s) => {
                    if !vals.contains(&s) {
                        self.err(
                            at,
                            Code::BadValue,
                            key,
                            format!("\"{s}\" is not one of {}", or_list(vals)),
                        );
                    }
                }
                None => bad_type(self, &format!("one of {}", or_list(vals))),
            },
            Ty::Path(rule) => match node.str() {
                Some(s) => {
                    self.path(at, key, s, *rule);
                }
                None => bad_type(self, "a path string"),
            },
            Ty::Prefab => match node.str() {
                Some(s) => {
                    if is_id(s) {
                        self.placement_refs.push(RefUse {
                            kind: Kind::Object,
                            value: s.to_string(),
                            at: at.clone(),
                            key: key.to_string(),
                        });
                    } else {
                        self.path(
                            at,
                            key,
                            s,
                            PathRule {
                                exists: true,
                                suffix: Some(".prefab.toml"),
                            },
                        );
                    }
                }
                None => bad_type(self, "a *.prefab.toml path or a placement's id"),
            },
            Ty::Ref(kind) => match node.str() {
                Some(s) => self.refs.push(RefUse {
                    kind: *kind,
                    value: s.to_string(),
                    at: at.clone(),
                    key: key.into(),
                }),
                None => bad_type(
                    self,
                    &format!("a reference to a {} (its id or name)", kind.word()),
                ),
            },
            Ty::Refs(kind) => {
                if !is_array(&node) {
                    return bad_type(self, &format!("an array of references to {}s", kind.word()));
                }
                for (i, e) in node.elems().iter().enumerate() {
                    let eat = Sp::or(f, e.span(), at);
                    let ekey = format!("{key}.{i}");
                    match e.str() {
                        Some(s) => self.refs.push(RefUse {
                            kind: *kind,
                            value: s.into(),
                            at: eat,
                            key: ekey,
                        }),
                        None => self.err(
                            &eat,
                            Code::BadType,
                            &ekey,
                            format!("expected a reference, found {}", found(e)),
                        ),
                    }
                }
            }
            Ty::Vec(n) => self.vector(f, node, *n as usize, false, range, key, at),
            Ty::IntVec(n) => self.vector(f, node, *n as usize, true, range, key, at),
            Ty::Nums => {
                if !is_array(&node) {
                    return bad_type(self, "an array of numbers");
                }
                for (i, e) in node.elems().iter().enumerate() {
                    let eat = Sp::or(f, e.span(), at);
                    match e.num() {
                        Some(v) => self.number(&eat, &format!("{key}.{i}"), v, range),
                        None => self.err(
                            &eat,
                            Code::BadType,
                            &format!("{key}.{i}"),
                            format!("expected a number, found {}", found(e)),
                        ),
                    }
                }
            }
            Ty::VecList(n) | Ty::IntVecList(n) => {
                if !is_array(&node) {
                    return bad_type(self, &format!("an array of arrays of {n} numbers"));
                }
                for (i, e) in node.elems().iter().enumerate() {
                    let eat = Sp::or(f, e.span(), at);
                    let int = matches!(ty, Ty::IntVecList(_));
                    self.vector(f, *e, *n as usize, int, range, &format!("{key}.{i}"), &eat);
                }
            }
            Ty::Paths(rule) => {
                if !is_array(&node) {
                    return bad_type(self, "an array of paths");
                }
                for (i, e) in node.elems().iter().enumerate() {
                    let eat = Sp::or(f, e.span(), at);
                    let ekey = format!("{key}.{i}");
                    match e.str() {
                        Some(s) => {
                            self.path(&eat, &ekey, s, *rule);
                        }
                        None => self.err(
                            &eat,
                            Code::BadType,
                            &ekey,
                            format!("expected a path string, found {}", found(e)),
                        ),
                    }
                }
            }
            Ty::Strs => {
                if !is_array(&node) || node.elems().iter().any(|e| e.str().is_none()) {
                    bad_type(self, "an array of strings")
                }
            }
            Ty::Layer => match node.str() {
                Some(s) => self.layer(at, key, s),
                None => bad_type(self, "a layer name"),
            },
            Ty::Layers => {
                if !is_array(&node) {
                    return bad_type(self, "an array of layer names");
                }
                for (i, e) in node.elems().iter().enumerate() {
                    let eat = Sp::or(f, e.span(), at);
                    match e.str() {
                        Some(s) => self.layer(&eat, &format!("{key}.{i}"), s),
                        None => self.err(
                            &eat,
                            Code::BadType,
                            &format!("{key}.{i}"),
                            format!("expected a layer name, found {}", found(e)),
                        ),
                    }
                }
            }
            Ty::Table(s) => match node.tbl() {
                Some(t) => self.walk(f, t, s, key, spath, at, None),
                None => bad_type(self, "a table"),
            },
            Ty::Tables(s) => match node.tbl() {
                Some(t) => {
                    for (name, ks, sub) in t.entries() {
                        let kat = Sp::or(f, ks, at);
                        let skey = format!("{key}.{name}");
                        if let Some(why) = name_fault(name, s.entry == Some(Kind::Material)) {
                            self.err(&kat, Code::BadName, &skey, format!("{why} (\"{name}\")"));
                        }
                        match sub.tbl() {
                            Some(st) => self.walk(f, st, s, &skey, spath, &kat, Some(name)),
                            None => {
                                let vat =
                                    sub.span().map(|span| Sp { file: f, span }).unwrap_or(kat);
                                self.err(
                                    &vat,
                                    Code::BadType,
                                    &skey,
                                    format!("expected a table, found {}", found(&sub)),
                                )
                            }
                        }
                    }
                }
                None => bad_type(self, "a table of named tables"),
            },
            Ty::List(s) => {
                let ok = match node {
                    Node::Aot(_) => true,
                    Node::Val(Value::Array(a)) => a.iter().all(|v| v.is_inline_table()),
                    _ => false,
                };
                if !ok {
                    return bad_type(self, "an array of tables");
                }
                for (i, t) in node.tables().into_iter().enumerate() {
                    let ekey = match t.str("id") {
                        Some(id) => format!("{key}.{id}"),
                        None => format!("{key}.{i}"),
                    };
                    let eat = Sp::or(f, t.span(), at);
                    self.walk(f, t, s, &ekey, spath, &eat, None);
                }
            }
            Ty::Map(vty) => match node.tbl() {
                Some(t) => {
                    for (name, ks, sub) in t.entries() {
                        let kat = Sp::or(f, ks, at);
                        let vat = sub.span().map(|span| Sp { file: f, span }).unwrap_or(kat);
                        self.value(f, sub, vty, range, &format!("{key}.{name}"), spath, &vat);
                    }
                }
                None => bad_type(self, "a table"),
            },
            Ty::OneOf(tys) => match tys.iter().find(|t| fits(t, &node)) {
                Some(t) => self.value(f, node, t, range, key, spath, at),
                None => {
                    let what: Vec<String> = tys.iter().map(describe).collect();
                    bad_type(self, &or_words(&what));
                }
            },
            Ty::Any => {}
        }
    }

    fn number(&mut self, at: &Sp, key: &str, v: f64, range: Option<Range>) {
        if !v.is_finite() {
            self.err(at, Code::BadValue, key, format!("{v} is not finite"));
        } else {
            self.range(at, key, v, range);
        }
    }

    fn range(&mut self, at: &Sp, key: &str, v: f64, range: Option<Range>) {
        if let Some(r) = range {
            if !r.holds(v) {
                self.err(
                    at,
                    Code::BadValue,
                    key,
                    format!("{v} is out of range: must be {}", r.words()),
                );
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn vector(
        &mut self,
        f: usize,
        node: Node,
        n: usize,
        int: bool,
        range: Option<Range>,
        key: &str,
        at: &Sp,
    ) {
        let what = if int { "integers" } else { "numbers" };
        let elems = node.elems();
        if !is_array(&node) || elems.len() != n {
            let got = if is_array(&node) {
                format!("{} values", elems.len())
            } else {
                found(&node)
            };
            self.err(
                at,
                Code::BadType,
                key,
                format!("expected an array of {n} {what}, found {got}"),
            );
            return;
        }
        for (i, e) in elems.iter().enumerate() {
            let eat = Sp::or(f, e.span(), at);
            let v = if int {
                match e.val() {
                    Some(Value::Integer(i)) => Some(*i.value() as f64),
                    _ => None,
                }
            } else {
                e.num()
            };
            match v {
                None => {
                    self.err(
                        at,
                        Code::BadType,
                        key,
                        format!("expected an array of {n} {what}, found {} in it", found(e)),
                    );
                    return;
                }
                Some(v) if !v.is_finite() => {
                    self.err(&eat, Code::BadValue, key, format!("{v} is not finite"))
                }
                Some(v) => {
                    if let Some(r) = range {
                        if !r.holds(v) {
                            self.err(
                                &eat,
                                Code::BadValue,
                                key,
                                format!(
                                    "component {i} is {v}, out of range: each must be {}",
                                    r.words()
                                ),
                            );
                        }
                    }
                }
            }
        }
    }

    fn layer(&mut self, at: &Sp, key: &str, name: &str) {
        if !self.check_layers {
            return;
        }
        match &self.layers {
            Some(l) if l.iter().any(|x| x == name) => {}
            Some(l) => {
                let msg = format!(
                    "no layer \"{name}\" in project.toml's [layers]; its layers: {}",
                    l.join(", ")
                );
                self.err(at, Code::BadReference, key, msg)
            }
            None => self.err(
                at,
                Code::BadReference,
                key,
                format!("layer \"{name}\" named, but project.toml has no [layers]"),
            ),
        }
    }

    /// Checks a written path; reports and returns `Refused`, or returns its normalised form.
    pub(crate) fn path(&mut self, at: &Sp, key: &str, raw: &str, rule: PathRule) -> PathCheck {
        let r = self.path_inner(at, key, raw, rule);
        if let PathCheck::Ok(p) = &r {
            self.ok_paths
                .push((at.file, key.to_string(), at.clone(), p.clone()));
        }
        r
    }

    fn path_inner(&mut self, at: &Sp, key: &str, raw: &str, rule: PathRule) -> PathCheck {
        let rel = match normalize(raw) {
            Ok(p) => p,
            Err((code, msg)) => {
                self.err(at, code, key, msg);
                return PathCheck::Refused;
            }
        };
        if rel.as_os_str().is_empty() && rule.exists {
            self.err(
                at,
                Code::BadPath,
                key,
                format!("`{raw}` names the project root itself, not a file"),
            );
            return PathCheck::Refused;
        }
        if let Some(suffix) = rule.suffix {
            if !raw.ends_with(suffix) {
                self.err(
                    at,
                    Code::BadValue,
                    key,
                    format!("`{raw}` must name a *{suffix} file"),
                );
                return PathCheck::Refused;
            }
        }
        if self.overlay.contains_key(&rel) {
            return PathCheck::Ok(rel);
        }
        let mut dir = self.root.clone();
        let mut sofar = PathBuf::new();
        let comps: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        for (i, c) in comps.iter().enumerate() {
            let listing = self.listing(&sofar, &dir);
            let exact = listing.iter().any(|n| n == c);
            if !exact {
                let lower = c.to_lowercase();
                if let Some(other) = listing.iter().find(|n| n.to_lowercase() == lower) {
                    let mut real = sofar.clone();
                    real.push(other);
                    self.err(
                        at,
                        Code::PathCase,
                        key,
                        format!(
                            "`{raw}` exists only with another case, as `{}`",
                            real.to_string_lossy()
                        ),
                    );
                    return PathCheck::Refused;
                }
                if rule.exists {
                    self.err(
                        at,
                        Code::MissingFile,
                        key,
                        format!("`{raw}` does not exist"),
                    );
                    return PathCheck::Refused;
                }
                return PathCheck::Ok(rel);
            }
            dir.push(c);
            sofar.push(c);
            if i + 1 == comps.len() && rule.exists && dir.is_dir() {
                self.err(
                    at,
                    Code::MissingFile,
                    key,
                    format!("`{raw}` is a folder, not a file"),
                );
                return PathCheck::Refused;
            }
        }
        PathCheck::Ok(rel)
    }

    fn listing(&mut self, rel: &Path, abs: &Path) -> Vec<String> {
        if let Some(l) = self.dirs.get(rel) {
            return l.clone().unwrap_or_default();
        }
        let l = std::fs::read_dir(abs).ok().map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        });
        self.dirs.insert(rel.to_path_buf(), l.clone());
        l.unwrap_or_default()
    }

    // -----------------------------------------------------------------------------------------
    // cross-key rules a table alone decides

    fn rule(&mut self, f: usize, t: Tbl, rule: Rule, key: &str, head: &Sp) {
        let k = |n: &str| format!("{key}.{n}");
        let vsp = |n: &str| Self::val_sp(f, t, n, head);
        let ksp = |n: &str| Self::key_sp(f, t, n, head);
        match rule {
            Rule::Tunable => self.tunable(f, t, key, head),
            Rule::Object => {
                if t.has("prefab") {
                    for (name, ks, _) in t.entries() {
                        if !schema::PLACEMENT_KEYS.contains(&name) {
                            let at = Sp::or(f, ks, head);
                            self.err(
                                &at,
                                Code::PlacementKey,
                                &k(name),
                                format!(
                                    "a prefab placement takes only {}; `{name}` is for an object with a mesh",
                                    schema::PLACEMENT_KEYS.join(", ")
                                ),
                            );
                        }
                    }
                } else {
                    if !t.has("mesh") {
                        self.err(
                            head,
                            Code::MissingKey,
                            &k("mesh"),
                            "an object without prefab needs `mesh`".into(),
                        );
                    }
                    if t.has("set") {
                        self.err(
                            &ksp("set"),
                            Code::BadValue,
                            &k("set"),
                            "`set` overrides a placed prefab's keys; this object places no prefab"
                                .into(),
                        );
                    }
                }
                if let Some(n) = t.get("clip").map(|c| c.elems().len()) {
                    if n > 2 {
                        self.err(
                            &vsp("clip"),
                            Code::BadValue,
                            &k("clip"),
                            format!("{n} clip planes; an object takes at most two"),
                        );
                    }
                }
                if t.has("body") && t.has("character") {
                    self.err(
                        &ksp("character"),
                        Code::BadValue,
                        &k("character"),
                        "an object takes a character or a body, not both".into(),
                    );
                }
                if t.bool("dynamic") == Some(false) {
                    for what in ["character", "animation"] {
                        if t.has(what) {
                            self.err(
                                &vsp("dynamic"),
                                Code::BadValue,
                                &k("dynamic"),
                                format!("an object with [object.{what}] is dynamic; it refuses dynamic = false"),
                            );
                        }
                    }
                }
                if t.bool("face_camera") == Some(true) {
                    for what in ["body", "character"] {
                        if t.has(what) {
                            self.err(
                                &ksp(what),
                                Code::BadValue,
                                &k(what),
                                format!("a camera-facing card takes no {what}"),
                            );
                        }
                    }
                }
            }
            Rule::Character => {
                let r = t.num("radius");
                let h = t.num("height");
                if let (Some(r), Some(h)) = (r, h) {
                    if h < 2.0 * r {
                        self.err(
                            &vsp("height"),
                            Code::BadValue,
                            &k("height"),
                            format!("height {h} is below 2 · radius ({})", 2.0 * r),
                        );
                    }
                }
                if let (Some(s), Some(h)) = (t.num("max_step"), h) {
                    if s >= h {
                        self.err(
                            &vsp("max_step"),
                            Code::BadValue,
                            &k("max_step"),
                            format!("max_step {s} is not below height {h}"),
                        );
                    }
                }
            }
            Rule::Animation => self.animation(f, t, key, head),
            Rule::Event => match (t.has("time"), t.has("frame")) {
                (false, false) => self.err(
                    head,
                    Code::MissingKey,
                    &k("time"),
                    "an event needs `time` or `frame`".into(),
                ),
                (true, true) => self.err(
                    &ksp("frame"),
                    Code::BadValue,
                    &k("frame"),
                    "an event takes `time` or `frame`, not both".into(),
                ),
                _ => {}
            },
            Rule::Clip => {
                if let (Some(a), Some(b)) = (t.num("from"), t.num("to")) {
                    if b < a {
                        self.err(
                            &vsp("to"),
                            Code::BadValue,
                            &k("to"),
                            format!("to ({b}) is below from ({a})"),
                        );
                    }
                }
            }
            Rule::Mover => {
                if let Some(a) = t.nums("axis") {
                    if a.len() == 3 && a.iter().all(|c| *c == 0.0) {
                        self.err(
                            &vsp("axis"),
                            Code::BadValue,
                            &k("axis"),
                            "the axis may not be zero".into(),
                        );
                    }
                }
                if let Some(o) = t.get("objects") {
                    if is_array(&o) && o.elems().is_empty() {
                        self.err(
                            &vsp("objects"),
                            Code::BadValue,
                            &k("objects"),
                            "a mover moves at least one object".into(),
                        );
                    }
                }
                if let Some(n) = t.get("clip").map(|c| c.elems().len()) {
                    if n > 2 {
                        self.err(
                            &vsp("clip"),
                            Code::BadValue,
                            &k("clip"),
                            format!("{n} clip planes; a mover takes at most two"),
                        );
                    }
                }
            }
            Rule::Rig => {
                if t.has("snap") && !t.has("orthographic") {
                    self.err(
                        &ksp("snap"),
                        Code::BadValue,
                        &k("snap"),
                        "`snap` is for an orthographic follow rig; give `orthographic`".into(),
                    );
                }
                if let Some(p) = t.nums("pitch") {
                    if p.len() == 2 && p[0] > p[1] {
                        self.err(
                            &vsp("pitch"),
                            Code::BadValue,
                            &k("pitch"),
                            format!("pitch min {} is above max {}", p[0], p[1]),
                        );
                    }
                }
            }
            Rule::Bounds => {
                if let (Some(a), Some(b)) = (t.nums("min"), t.nums("max")) {
                    if a.len() == 3 && b.len() == 3 && (0..3).any(|i| a[i] > b[i]) {
                        self.err(
                            &vsp("max"),
                            Code::BadValue,
                            &k("max"),
                            "min is above max on an axis".into(),
                        );
                    }
                }
            }
            Rule::Tiles => self.tiles(f, t, key, head),
            Rule::Sun => {
                if let Some(a) = t.nums("toward") {
                    if a.len() == 3 && a.iter().all(|c| *c == 0.0) {
                        self.err(
                            &vsp("toward"),
                            Code::BadValue,
                            &k("toward"),
                            "toward may not be zero".into(),
                        );
                    }
                }
            }
            Rule::Sky => {
                if t.str("kind") == Some("mix") {
                    let n = t.get("layer").map(|l| l.tables().len()).unwrap_or(0);
                    if !t.has("layer") {
                        self.err(
                            head,
                            Code::MissingKey,
                            &k("layer"),
                            "a mix sky needs two or more [[sky.layer]]".into(),
                        );
                    } else if n < 2 {
                        self.err(
                            &ksp("layer"),
                            Code::BadValue,
                            &k("layer"),
                            format!("a mix sky needs two or more layers, has {n}"),
                        );
                    }
                }
            }
            Rule::Prepare => {
                if t.len() == 0 {
                    self.err(
                        head,
                        Code::MissingKey,
                        key,
                        "[sky.prepare] needs at least one of cap, balance, mean".into(),
                    );
                }
            }
            Rule::Haze => {
                if let (Some(a), Some(b)) = (t.nums("lo"), t.nums("hi")) {
                    if a.len() == 3 && b.len() == 3 && (0..3).any(|i| a[i] >= b[i]) {
                        self.err(
                            &vsp("hi"),
                            Code::BadValue,
                            &k("hi"),
                            "lo must be below hi on every axis".into(),
                        );
                    }
                }
            }
            Rule::Camera => self.camera(f, t, key, head),
            Rule::Finish => {
                if t.has("file") {
                    for (name, ks, _) in t.entries() {
                        if name != "file" && name != "pass" {
                            let at = Sp::or(f, ks, head);
                            self.err(&at, Code::BadValue, &k(name), format!("[finish] with `file` holds no inline key; `{name}` belongs in the finish file or a [[finish.pass]]"));
                        }
                    }
                }
            }
            Rule::FinishPass => {
                for name in ["style", "seed", "frame"] {
                    if t.has(name) {
                        self.err(
                            &ksp(name),
                            Code::BadValue,
                            &k(name),
                            format!("`{name}` is the chain's, not a pass's"),
                        );
                    }
                }
                let builds = t
                    .entries()
                    .iter()
                    .any(|(n, _, v)| !(*n == "encode" && v.bool() == Some(false)));
                if !builds {
                    self.err(
                        head,
                        Code::BadValue,
                        key,
                        "a [[finish.pass]] must build a pass (it is empty, or only encode = false)"
                            .into(),
                    );
                }
            }
            Rule::Lut => {
                if let (Some(size), Some(vals)) = (t.num("size"), t.get("values")) {
                    let want = (size as i64).clamp(0, 64).pow(3) * 3;
                    let got = vals.elems().len() as i64;
                    if is_array(&vals) && got != want {
                        self.err(
                            &vsp("values"),
                            Code::BadValue,
                            &k("values"),
                            format!(
                                "a lut of size {size} takes {want} values (size³ · 3), has {got}"
                            ),
                        );
                    }
                }
            }
            Rule::Plates => {
                if t.str("casters") == Some("proxies") && !t.has("proxies") {
                    self.err(
                        &vsp("casters"),
                        Code::BadValue,
                        &k("casters"),
                        "casters = \"proxies\" needs `proxies`".into(),
                    );
                }
            }
            Rule::Material => {
                if let Some(l) = t.get("layers") {
                    let n = l.tables().len();
                    if n > 4 {
                        self.err(
                            &ksp("layers"),
                            Code::BadValue,
                            &k("layers"),
                            format!("{n} noise layers; a material takes at most four"),
                        );
                    }
                }
            }
            Rule::Proxy => {
                let npoints = t.get("points").map(|p| p.elems().len());
                for (name, n) in [
                    ("points", npoints),
                    ("triangles", t.get("triangles").map(|p| p.elems().len())),
                ] {
                    if let Some(n) = n {
                        if n < 4 {
                            self.err(
                                &vsp(name),
                                Code::BadValue,
                                &k(name),
                                format!("a hull needs at least four {name}, has {n}"),
                            );
                        }
                    }
                }
                if let (Some(np), Some(tris)) = (npoints, t.get("triangles")) {
                    for (i, tri) in tris.elems().iter().enumerate() {
                        for c in tri.elems() {
                            if let Some(v) = c.num() {
                                if v < 0.0 || v >= np as f64 {
                                    let at = Sp::or(f, c.span(), head);
                                    self.err(
                                        &at,
                                        Code::BadValue,
                                        &format!("{key}.triangles.{i}"),
                                        format!(
                                            "corner {v} is past the last point ({})",
                                            np.saturating_sub(1)
                                        ),
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn tunable(&mut self, f: usize, t: Tbl, key: &str, head: &Sp) {
        let Some(ty) = t.str("type") else { return };
        let k = |n: &str| format!("{key}.{n}");
        let mut vals: Vec<(&str, Vec<f64>)> = Vec::new();
        for name in ["default", "min", "max"] {
            let Some(node) = t.get(name) else { continue };
            let at = Self::val_sp(f, t, name, head);
            if ty == "bool" {
                if name != "default" {
                    self.err(
                        &at,
                        Code::BadValue,
                        &k(name),
                        format!("a bool tunable takes no `{name}`"),
                    );
                } else if node.bool().is_none() {
                    self.err(
                        &at,
                        Code::BadType,
                        &k(name),
                        format!(
                            "expected true or false (the tunable's type), found {}",
                            found(&node)
                        ),
                    );
                }
                continue;
            }
            let v: Option<Vec<f64>> = match ty {
                "float" => node.num().map(|v| vec![v]),
                "int" => match node.val() {
                    Some(Value::Integer(i)) => Some(vec![*i.value() as f64]),
                    _ => None,
                },
                _ => node.nums().filter(|v| v.len() == 3),
            };
            match v {
                None => {
                    let what = match ty {
                        "float" => "a number",
                        "int" => "an integer",
                        _ => "[x, y, z]",
                    };
                    self.err(
                        &at,
                        Code::BadType,
                        &k(name),
                        format!(
                            "expected {what} (the tunable's type), found {}",
                            found(&node)
                        ),
                    );
                }
                Some(v) if v.iter().any(|c| !c.is_finite()) => self.err(
                    &at,
                    Code::BadValue,
                    &k(name),
                    "the value is not finite".into(),
                ),
                Some(v) => vals.push((name, v)),
            }
        }
        let get = |n: &str| vals.iter().find(|(m, _)| *m == n).map(|(_, v)| v.clone());
        let (d, lo, hi) = (get("default"), get("min"), get("max"));
        let above = |a: &[f64], b: &[f64]| a.iter().zip(b).any(|(x, y)| x > y);
        if let (Some(lo), Some(hi)) = (&lo, &hi) {
            if above(lo, hi) {
                self.err(
                    &Self::val_sp(f, t, "min", head),
                    Code::BadValue,
                    &k("min"),
                    "min is above max".into(),
                );
                return;
            }
        }
        if let Some(d) = &d {
            if lo.as_ref().is_some_and(|lo| above(lo, d))
                || hi.as_ref().is_some_and(|hi| above(d, hi))
            {
                self.err(
                    &Self::val_sp(f, t, "default", head),
                    Code::BadValue,
                    &k("default"),
                    "default lies outside min and max".into(),
                );
            }
        }
    }

    fn animation(&mut self, f: usize, t: Tbl, key: &str, head: &Sp) {
        let k = |n: &str| format!("{key}.{n}");
        let ksp = |n: &str| Self::key_sp(f, t, n, head);
        let sprite = t.has("atlas");
        if t.has("clip") && t.has("blend") {
            self.err(
                &ksp("blend"),
                Code::BadValue,
                &k("blend"),
                "an animation takes `clip` or `blend`, not both".into(),
            );
        }
        let clip_names: Option<Vec<String>> = t
            .get("clips")
            .and_then(|c| c.tbl())
            .map(|c| c.entries().iter().map(|(n, _, _)| n.to_string()).collect());
        if sprite {
            if t.has("blend") {
                self.err(
                    &ksp("blend"),
                    Code::BadValue,
                    &k("blend"),
                    "a sprite takes no `blend` (glTF only)".into(),
                );
            }
            match (t.has("grid"), t.has("frames")) {
                (true, true) => self.err(
                    &ksp("frames"),
                    Code::BadValue,
                    &k("frames"),
                    "a sprite takes `grid` or `frames`, not both".into(),
                ),
                (false, false) => self.err(
                    head,
                    Code::MissingKey,
                    &k("grid"),
                    "a sprite needs `grid` or `frames`".into(),
                ),
                _ => {}
            }
            if let Some(fr) = t.get("frames") {
                let elems = fr.elems();
                if is_array(&fr) && elems.is_empty() {
                    self.err(
                        &Self::val_sp(f, t, "frames", head),
                        Code::BadValue,
                        &k("frames"),
                        "frames may not be empty".into(),
                    );
                }
                for (i, e) in elems.iter().enumerate() {
                    if let Some(v) = e.nums() {
                        if v.len() == 4 && (v[2] < 1.0 || v[3] < 1.0) {
                            let at = Sp::or(f, e.span(), head);
                            self.err(
                                &at,
                                Code::BadValue,
                                &format!("{key}.frames.{i}"),
                                "a frame's width and height are at least 1".into(),
                            );
                        }
                    }
                }
            }
            if let Some(c) = t.str("clip") {
                let ok = clip_names
                    .as_ref()
                    .is_some_and(|n| n.iter().any(|x| x == c));
                if !ok {
                    self.err(
                        &Self::val_sp(f, t, "clip", head),
                        Code::BadReference,
                        &k("clip"),
                        format!("no clip \"{c}\" in this sprite's [object.animation.clips]"),
                    );
                }
            }
        } else {
            for name in ["grid", "frames", "fps", "clips"] {
                if t.has(name) {
                    self.err(
                        &ksp(name),
                        Code::BadValue,
                        &k(name),
                        format!(
                            "`{name}` is a sprite's (give `atlas`); a glTF animation takes none"
                        ),
                    );
                }
            }
        }
        if let Some(b) = t.get("blend") {
            let tabs = b.tables();
            if is_array(&b) && tabs.is_empty() {
                self.err(
                    &Self::val_sp(f, t, "blend", head),
                    Code::BadValue,
                    &k("blend"),
                    "blend may not be empty".into(),
                );
            }
            let mut seen: Vec<&str> = Vec::new();
            let mut sum = 0.0;
            for (i, bt) in tabs.iter().enumerate() {
                sum += bt.num("weight").unwrap_or(1.0);
                if let Some(c) = bt.str("clip") {
                    if seen.contains(&c) {
                        let at = Self::val_sp(f, *bt, "clip", head);
                        self.err(
                            &at,
                            Code::BadValue,
                            &format!("{key}.blend.{i}.clip"),
                            format!("clip \"{c}\" is blended twice"),
                        );
                    }
                    seen.push(c);
                }
            }
            if !tabs.is_empty() && sum <= 0.0 {
                self.err(
                    &Self::val_sp(f, t, "blend", head),
                    Code::BadValue,
                    &k("blend"),
                    "the blend weights sum to 0; their sum must be above 0".into(),
                );
            }
        }
        if let Some(ev) = t.get("events") {
            let plays = t.has("clip");
            let one_clip_sprite = sprite && clip_names.is_none();
            for (i, et) in ev.tables().iter().enumerate() {
                let ekey = format!("{key}.events.{i}");
                let eat = Sp::or(f, et.span(), head);
                match et.str("clip") {
                    None if !plays && !one_clip_sprite => self.err(
                        &eat,
                        Code::MissingKey,
                        &format!("{ekey}.clip"),
                        "this event needs `clip`: the animation plays no clip from the start"
                            .into(),
                    ),
                    Some(c) if sprite => {
                        let ok = clip_names
                            .as_ref()
                            .is_some_and(|n| n.iter().any(|x| x == c));
                        if !ok {
                            let at = Self::val_sp(f, *et, "clip", head);
                            self.err(
                                &at,
                                Code::BadReference,
                                &format!("{ekey}.clip"),
                                format!(
                                    "no clip \"{c}\" in this sprite's [object.animation.clips]"
                                ),
                            );
                        }
                    }
                    _ => {}
                }
                if !sprite && et.has("frame") {
                    let at = Self::key_sp(f, *et, "frame", head);
                    self.err(
                        &at,
                        Code::BadValue,
                        &format!("{ekey}.frame"),
                        "`frame` is a sprite's; a glTF event takes `time`".into(),
                    );
                }
            }
        }
    }

    fn tiles(&mut self, f: usize, t: Tbl, key: &str, head: &Sp) {
        let k = |n: &str| format!("{key}.{n}");
        if t.has("rows") && t.has("cells") {
            self.err(
                &Self::key_sp(f, t, "cells", head),
                Code::BadValue,
                &k("cells"),
                "a tile layer takes `rows` or `cells`, not both".into(),
            );
        }
        let mut keys: Vec<String> = Vec::new();
        if let Some(p) = t.get("palette").and_then(|p| p.tbl()) {
            for (name, ks, _) in p.entries() {
                let at = Sp::or(f, ks, head);
                let pkey = format!("{key}.palette.{name}");
                if name == "." || name.is_empty() || name.chars().any(char::is_whitespace) {
                    self.err(
                        &at,
                        Code::BadName,
                        &pkey,
                        format!("palette key \"{name}\" may not be `.`, be empty or hold a space"),
                    );
                } else if t.has("rows") && name.chars().count() != 1 {
                    self.err(
                        &at,
                        Code::BadValue,
                        &pkey,
                        format!(
                            "palette key \"{name}\" must be one character in a layer with rows"
                        ),
                    );
                }
                keys.push(name.to_string());
            }
        }
        if let Some(rows) = t.get("rows") {
            for (i, r) in rows.elems().iter().enumerate() {
                let Some(s) = r.str() else { continue };
                let rat = Sp::or(f, r.span(), head);
                // Point at the character when the string is written plainly (no escapes).
                let raw = self
                    .srcs
                    .get(f)
                    .and_then(|src| src.bytes().get(rat.span.clone()))
                    .map(|b| b.to_vec());
                let plain = raw
                    .as_deref()
                    .is_some_and(|b| b.len() == s.len() + 2 && &b[1..b.len() - 1] == s.as_bytes());
                for (bi, ch) in s.char_indices() {
                    if ch != '.' && !keys.iter().any(|x| x.chars().eq(std::iter::once(ch))) {
                        let at = if plain {
                            let st = rat.span.start + 1 + bi;
                            Sp {
                                file: f,
                                span: st..st + ch.len_utf8(),
                            }
                        } else {
                            rat.clone()
                        };
                        self.err(
                            &at,
                            Code::BadReference,
                            &format!("{key}.rows.{i}"),
                            format!("tile '{ch}' is no key of the palette"),
                        );
                    }
                }
            }
        }
        if let Some(cells) = t.get("cells") {
            let mut seen: Vec<Vec<f64>> = Vec::new();
            for (i, c) in cells.tables().iter().enumerate() {
                if let Some(tile) = c.str("tile") {
                    if !keys.iter().any(|x| x == tile) {
                        let at = Self::val_sp(f, *c, "tile", head);
                        self.err(
                            &at,
                            Code::BadReference,
                            &format!("{key}.cells.{i}.tile"),
                            format!("tile \"{tile}\" is no key of the palette"),
                        );
                    }
                }
                if let Some(at) = c.nums("at") {
                    if seen.contains(&at) {
                        let sp = Self::val_sp(f, *c, "at", head);
                        self.err(
                            &sp,
                            Code::BadValue,
                            &format!("{key}.cells.{i}.at"),
                            "this cell is set twice".into(),
                        );
                    }
                    seen.push(at);
                }
            }
        }
    }

    fn camera(&mut self, f: usize, t: Tbl, key: &str, head: &Sp) {
        let k = |n: &str| format!("{key}.{n}");
        let vsp = |n: &str| Self::val_sp(f, t, n, head);
        let ksp = |n: &str| Self::key_sp(f, t, n, head);
        let persp = t.str("projection").unwrap_or("perspective") == "perspective";
        if persp {
            if t.has("fov") && t.has("focal") {
                self.err(
                    &ksp("focal"),
                    Code::BadValue,
                    &k("focal"),
                    "`focal` is instead of `fov`; give one of them".into(),
                );
            }
            if t.has("sensor") && !t.has("focal") && !t.has("fov") {
                self.err(
                    &ksp("sensor"),
                    Code::BadValue,
                    &k("sensor"),
                    "`sensor` goes with `focal`; without focal it needs fov".into(),
                );
            }
            if t.has("focus") && !t.has("fstop") {
                self.err(
                    &ksp("focus"),
                    Code::BadValue,
                    &k("focus"),
                    "`focus` goes with `fstop`".into(),
                );
            }
        }
        let near = t.num("near").unwrap_or(0.05);
        if let Some(far) = t.num("far") {
            if far <= near {
                self.err(
                    &vsp("far"),
                    Code::BadValue,
                    &k("far"),
                    format!("far ({far}) must be above near ({near})"),
                );
            }
        }
        let v3 = |n: &str, d: [f64; 3]| match t.nums(n) {
            Some(v) if v.len() == 3 => Some([v[0], v[1], v[2]]),
            Some(_) => None,
            None => Some(d),
        };
        let (Some(at), Some(look), Some(up)) = (
            v3("at", [0.0, 0.0, 5.0]),
            v3("look_at", [0.0; 3]),
            v3("up", [0.0, 1.0, 0.0]),
        ) else {
            return;
        };
        let dir = [look[0] - at[0], look[1] - at[1], look[2] - at[2]];
        let dl = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
        if dl.is_nan() || dl <= 0.0 {
            let name = if t.has("look_at") { "look_at" } else { "at" };
            self.err(
                &vsp(name),
                Code::BadValue,
                &k(name),
                "at and look_at are the same point: the camera looks nowhere".into(),
            );
            return;
        }
        let ul = (up[0] * up[0] + up[1] * up[1] + up[2] * up[2]).sqrt();
        let c = [
            dir[1] * up[2] - dir[2] * up[1],
            dir[2] * up[0] - dir[0] * up[2],
            dir[0] * up[1] - dir[1] * up[0],
        ];
        let cl = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
        // sin of the angle between up and the view below 1e-6: no frame can be built.
        if ul.is_nan() || ul <= 0.0 || cl.is_nan() || cl <= 1e-6 * dl * ul {
            let name = if t.has("up") { "up" } else { "look_at" };
            self.err(
                &vsp(name),
                Code::BadValue,
                &k(name),
                "up lies along the view direction (or is zero)".into(),
            );
        }
    }
}

/// The value of a selector key, else its default.
fn selector<'a>(t: Tbl<'a>, s: &'static TableSchema, sel: &str) -> Option<&'a str> {
    match t.get(sel) {
        Some(n) => n.str(),
        None => match s.key(sel).map(|k: &Key| k.default) {
            Some(Dflt::Str(d)) => Some(d),
            _ => None,
        },
    }
}

fn spath_word(spath: &str, kind: Kind) -> String {
    if spath.is_empty() {
        kind.word().to_string()
    } else {
        format!("[{spath}] entry")
    }
}

fn is_array(n: &Node) -> bool {
    matches!(n, Node::Val(Value::Array(_)) | Node::Aot(_))
}

/// Whether a value's TOML type fits a type (for choosing among `OneOf`).
fn fits(ty: &Ty, n: &Node) -> bool {
    match ty {
        Ty::Num => n.num().is_some(),
        Ty::Int | Ty::UInt => matches!(n.val(), Some(Value::Integer(_))),
        Ty::Bool => n.bool().is_some(),
        Ty::Hex
        | Ty::Enum(_)
        | Ty::Str
        | Ty::Name
        | Ty::Id
        | Ty::Path(_)
        | Ty::Prefab
        | Ty::Ref(_)
        | Ty::Layer => n.str().is_some(),
        Ty::Vec(_) | Ty::IntVec(_) | Ty::Nums | Ty::VecList(_) | Ty::IntVecList(_) => {
            matches!(n, Node::Val(Value::Array(_)))
        }
        Ty::Paths(_) | Ty::Strs | Ty::Refs(_) | Ty::Layers => {
            matches!(n, Node::Val(Value::Array(_)))
        }
        Ty::Table(_) | Ty::Tables(_) | Ty::Map(_) => n.tbl().is_some(),
        Ty::List(_) => is_array(n),
        Ty::OneOf(t) => t.iter().any(|t| fits(t, n)),
        Ty::Any => true,
    }
}

/// A type in words.
pub(crate) fn describe(ty: &Ty) -> String {
    match ty {
        Ty::Int => "an integer".into(),
        Ty::UInt => "an unsigned integer".into(),
        Ty::Num => "a number".into(),
        Ty::Bool => "true or false".into(),
        Ty::Str | Ty::Name => "a string".into(),
        Ty::Id => "an id".into(),
        Ty::Path(_) => "a path".into(),
        Ty::Prefab => "a prefab path or id".into(),
        Ty::Ref(k) => format!("a reference to a {}", k.word()),
        Ty::Refs(k) => format!("an array of references to {}s", k.word()),
        Ty::Vec(3) => "[x, y, z]".into(),
        Ty::Vec(n) => format!("an array of {n} numbers"),
        Ty::IntVec(n) => format!("an array of {n} integers"),
        Ty::Nums => "an array of numbers".into(),
        Ty::VecList(n) | Ty::IntVecList(n) => format!("an array of arrays of {n}"),
        Ty::Hex => "a colour \"#rrggbb\"".into(),
        Ty::Enum(v) => or_list(v),
        Ty::Paths(_) => "an array of paths".into(),
        Ty::Strs => "an array of strings".into(),
        Ty::Layer => "a layer name".into(),
        Ty::Layers => "an array of layer names".into(),
        Ty::Table(_) | Ty::Map(_) => "a table".into(),
        Ty::Tables(_) => "a table of named tables".into(),
        Ty::List(_) => "an array of tables".into(),
        Ty::OneOf(t) => or_words(&t.iter().map(describe).collect::<Vec<_>>()),
        Ty::Any => "any value".into(),
    }
}

fn or_list(v: &[&str]) -> String {
    or_words(&v.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>())
}

fn or_words(v: &[String]) -> String {
    match v.len() {
        0 => String::new(),
        1 => v[0].clone(),
        n => format!("{} or {}", v[..n - 1].join(", "), v[n - 1]),
    }
}

/// Whether a value is written as its key's default (a number, bool, string or vector equal to
/// it, or a table whose every key is written as its default): then it changes nothing, and a
/// bake that does not draw the key need not name it.
pub(crate) fn is_default(n: &Node, key: &Key) -> bool {
    match key.default {
        Dflt::Num(v) => n.num() == Some(v),
        Dflt::Bool(b) => n.bool() == Some(b),
        Dflt::Str(s) => n.str() == Some(s),
        Dflt::Vec(v) => n.nums().is_some_and(|x| x == v),
        Dflt::None | Dflt::Said(_) => match (&key.ty, n.tbl()) {
            (Ty::Table(s), Some(t)) => {
                let entries = t.entries();
                !entries.is_empty()
                    && entries
                        .iter()
                        .all(|(name, _, v)| s.key(name).is_some_and(|k| is_default(v, k)))
            }
            _ => false,
        },
    }
}

/// The TOML type of a node, in words.
fn found(n: &Node) -> String {
    match n {
        Node::Table(_) | Node::Inline(_) => "a table".into(),
        Node::Aot(_) => "an array of tables".into(),
        Node::Val(v) => match v {
            Value::String(s) => format!("the string \"{}\"", s.value()),
            Value::Integer(i) => format!("the integer {}", i.value()),
            Value::Float(x) => format!("the float {}", x.value()),
            Value::Boolean(b) => format!("{}", b.value()),
            Value::Datetime(_) => "a date-time".into(),
            Value::Array(a) => format!("an array of {}", a.len()),
            Value::InlineTable(_) => "a table".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let src = Src::new(
            "a.toml".into(),
            "x = \"日本\" # é\ny = 1\n".as_bytes().to_vec(),
        );
        // Byte 13 is the `#`: after `x = "` (5 bytes), two 3-byte characters and `" ` (2).
        assert_eq!(src.pos(13), (1, 10));
        assert_eq!(src.pos(0), (1, 1));
        let y = "x = \"日本\" # é\n".len();
        assert_eq!(src.pos(y), (2, 1));
        assert_eq!(src.pos(y + 4), (2, 5));
        // Past the end clamps instead of panicking.
        assert_eq!(src.pos(10_000), (3, 1));
    }

    #[test]
    fn ids_are_crockford_base32() {
        assert!(is_id("7k2m9q4xzr"));
        assert!(is_id("0000000000"));
        for bad in [
            "7k2m9q4xz",
            "7k2m9q4xzrr",
            "7K2M9Q4XZR",
            "7k2m9q4xzi",
            "7k2m9q4xzl",
            "7k2m9q4xzo",
            "7k2m9q4xzu",
            "7k2m9q4xz-",
        ] {
            assert!(!is_id(bad), "{bad}");
        }
    }

    #[test]
    fn paths_normalise_inside_the_root() {
        assert_eq!(
            normalize("a/./b/../c.glb").ok(),
            Some(PathBuf::from("a/c.glb"))
        );
        assert_eq!(
            normalize("a/../../c").err().map(|e| e.0.as_str()),
            Some("outside-root")
        );
        assert_eq!(normalize("").err().map(|e| e.0.as_str()), Some("bad-path"));
        assert_eq!(
            normalize("/abs").err().map(|e| e.0.as_str()),
            Some("bad-path")
        );
        assert_eq!(
            normalize("C:/abs").err().map(|e| e.0.as_str()),
            Some("bad-path")
        );
        assert_eq!(
            normalize("a\\b").err().map(|e| e.0.as_str()),
            Some("bad-path")
        );
    }

    #[test]
    fn ranges_read_as_the_spec_writes_them() {
        assert_eq!(schema::open(0.0, 180.0).words(), "above 0 and below 180");
        assert_eq!(schema::within(0.0, 1.0).words(), "0 to 1");
        assert_eq!(schema::gt(0.0).words(), "> 0");
        assert_eq!(schema::ge(0.0).words(), "≥ 0");
        assert!(!schema::open(0.0, 180.0).holds(180.0));
        assert!(schema::within(0.0, 1.0).holds(1.0));
        assert!(!schema::half_open(0.0, 90.0).holds(90.0));
        assert!(schema::half_open(0.0, 90.0).holds(0.0));
    }
}
