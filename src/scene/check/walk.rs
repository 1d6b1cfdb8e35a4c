//! The walk: one table against its schema (every key known, of its type, in its range, its
//! entries, references and paths recorded), recursing along the schema, never the input.

use super::*;

impl Ctx {
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
        let head = head(&self.srcs, f, t, at);
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
    pub(super) fn entry(
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
                val_sp(f, t, "name", head),
            ),
        };
        let id_at = val_sp(f, t, "id", head);
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

    pub(super) fn number(&mut self, at: &Sp, key: &str, v: f64, range: Option<Range>) {
        if !v.is_finite() {
            self.err(at, Code::BadValue, key, format!("{v} is not finite"));
        } else {
            self.range(at, key, v, range);
        }
    }

    pub(super) fn range(&mut self, at: &Sp, key: &str, v: f64, range: Option<Range>) {
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
    pub(super) fn vector(
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

    pub(super) fn layer(&mut self, at: &Sp, key: &str, name: &str) {
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
}

/// The value of a selector key, else its default.
pub(super) fn selector<'a>(t: Tbl<'a>, s: &'static TableSchema, sel: &str) -> Option<&'a str> {
    match t.get(sel) {
        Some(n) => n.str(),
        None => match s.key(sel).map(|k: &Key| k.default) {
            Some(Dflt::Str(d)) => Some(d),
            _ => None,
        },
    }
}

pub(super) fn spath_word(spath: &str, kind: Kind) -> String {
    if spath.is_empty() {
        kind.word().to_string()
    } else {
        format!("[{spath}] entry")
    }
}

pub(super) fn is_array(n: &Node) -> bool {
    matches!(n, Node::Val(Value::Array(_)) | Node::Aot(_))
}

/// Whether a value's TOML type fits a type (for choosing among `OneOf`).
pub(super) fn fits(ty: &Ty, n: &Node) -> bool {
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

pub(super) fn or_list(v: &[&str]) -> String {
    or_words(&v.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>())
}

pub(super) fn or_words(v: &[String]) -> String {
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
pub(super) fn found(n: &Node) -> String {
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
