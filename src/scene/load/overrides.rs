//! Prefab overrides: a placement's `[object.set]` parsed, each override checked against
//! the entry it names and applied to an owned copy of that entry's table.

use super::*;

impl Loader {
    /// The overrides a placement's `[object.set]` writes, split into entry and key path.
    pub(super) fn parse_set(&mut self, f: usize, t: Tbl, dkey: &str) -> Vec<Ovr> {
        let mut out = Vec::new();
        let Some(set) = t.get("set").and_then(|s| s.tbl()) else {
            return out;
        };
        let head = head_of(&self.ctx, f, t);
        for (name, ks, node) in set.entries() {
            let kat = ks
                .map(|span| Sp { file: f, span })
                .unwrap_or_else(|| head.clone());
            let at = node
                .span()
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
    pub(super) fn apply_override(
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
}

/// The schema path an override's key path names in an entry of `kind` (entry names and list
/// places left out: `"lamp.layers.1.frequency"` on a material is `materials.layers.frequency`).
pub(super) fn override_spath(kind: Kind, path: &[String]) -> String {
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
pub(super) fn override_ty(
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
pub(super) fn owned_item(t: Tbl) -> toml_edit::Item {
    match t {
        Tbl::Table(t) => toml_edit::Item::Table(t.clone()),
        Tbl::Inline(t) => toml_edit::Item::Value(toml_edit::Value::InlineTable(t.clone())),
    }
}

/// Sets the value at a key path, creating the tables on the way (a loop, not recursion).
pub(super) fn set_path(
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
