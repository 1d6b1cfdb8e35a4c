//! The key table of `docs/scene.md`, written from the schema: one markdown table per table
//! of the format, each key with its type, unit, range, default, whether it is needed, the
//! selector that takes it, what the bake does with it and what it means; then how many keys
//! each [`Use`] holds.
//!
//! `docs/scene.md` holds the generated text between [`BEGIN`] and [`END`]; a test fails when
//! the two differ, and `PFX_BLESS_DOCS=1 cargo test --lib scene::schema` writes it anew.

use super::*;
use std::collections::VecDeque;

/// The line that opens the generated part of `docs/scene.md`.
pub const BEGIN: &str = "<!-- key table: generated from src/scene/schema, do not edit -->";
/// The line that closes it.
pub const END: &str = "<!-- end of the generated key table -->";

/// The roots, in the order the table lists them, each with its heading.
const ROOTS: [(FileKind, &str); 6] = [
    (FileKind::Project, "project.toml"),
    (FileKind::Scene, "*.scene.toml"),
    (FileKind::Prefab, "*.prefab.toml"),
    (FileKind::Materials, "*.materials.toml"),
    (FileKind::Proxies, "*.proxies.toml"),
    (FileKind::Finish, "a finish file"),
];

/// One table of the format, reached first at `path` under `root`.
pub(super) struct Place {
    /// The file kind whose top level it is under.
    pub root: FileKind,
    /// Its schema path (empty for a top level).
    pub path: String,
    /// The table.
    pub table: &'static TableSchema,
}

/// Every distinct table of the schema with the first (shallowest) path that reaches it, root
/// by root in [`ROOTS`]'s order.
pub(super) fn places() -> Vec<Place> {
    let mut out: Vec<Place> = Vec::new();
    for (root, _) in ROOTS {
        let mut queue: VecDeque<(String, &'static TableSchema)> = VecDeque::new();
        queue.push_back((String::new(), root.schema()));
        while let Some((path, s)) = queue.pop_front() {
            if out.iter().any(|p| std::ptr::eq(p.table, s)) {
                continue;
            }
            for key in s.all() {
                let p = join(&path, key.name);
                if let Some(t) = child(&key.ty) {
                    queue.push_back((p.clone(), t));
                }
                // A `OneOf` of a number and a table (bloom, tone) holds its table second.
                if let Ty::OneOf(v) = &key.ty {
                    for t in v.iter().filter_map(child) {
                        queue.push_back((p.clone(), t));
                    }
                }
            }
            out.push(Place {
                root,
                path,
                table: s,
            });
        }
    }
    out
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}.{b}")
    }
}

/// The generated key table, `BEGIN` and `END` included, as `docs/scene.md` holds it.
pub fn key_table() -> String {
    let mut out = String::new();
    let mut counts = [0usize; 4];
    // A key shared by several tables (the finish keys, a sky's keys) counted once.
    let mut distinct: Vec<(*const Key, Use)> = Vec::new();
    out.push_str(BEGIN);
    out.push_str("\n\n");
    for place in places() {
        let heading = match ROOTS.iter().find(|(r, _)| *r == place.root) {
            Some((_, name)) if place.path.is_empty() => format!("{name}: top level"),
            _ => format!("[{}]", place.path),
        };
        let mut tags = Vec::new();
        if let Some(kind) = place.table.entry {
            tags.push(format!("entry ({})", kind.word()));
        }
        if let Some(rule) = place.table.rule {
            tags.push(format!("rule {rule:?}"));
        }
        let tags = if tags.is_empty() {
            String::new()
        } else {
            format!(" — {}", tags.join(", "))
        };
        out.push_str(&format!("#### {heading}{tags}\n\n"));
        out.push_str(
            "| key | type | unit | range | default | needed | only when | bake | meaning |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for key in place.table.all() {
            let path = join(&place.path, key.name);
            let u = use_from(place.root.schema(), &path).map_or(Use::Drawn, |(_, u)| u);
            counts[u as usize] += 1;
            if !distinct.iter().any(|(k, _)| std::ptr::eq(*k, key)) {
                distinct.push((key, u));
            }
            let range = key.range.map(|r| r.words()).unwrap_or_default();
            let needed = match key.need {
                Need::No => String::new(),
                Need::Yes => "yes".into(),
                Need::When(sel, vals) => format!("when {sel} is {}", quoted(vals)),
            };
            let only = key
                .only
                .map(|(sel, vals)| format!("{sel} is {}", quoted(vals)))
                .unwrap_or_default();
            let mut bake = u.words().to_string();
            if !key.unread.is_empty() {
                bake.push_str(", named where it has no effect");
            }
            if let Some(c) = key.clamp {
                bake.push_str(&format!(", clamped to {}", c.words()));
            }
            let row = [
                key.name.to_string(),
                type_words(&key.ty),
                key.unit.to_string(),
                range,
                default_words(key.default),
                needed,
                only,
                bake,
                key.doc.to_string(),
            ];
            let row: Vec<String> = row.iter().map(|c| c.replace('|', "\\|")).collect();
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        out.push('\n');
    }
    out.push_str(
        "#### What the bake does with the keys\n\n\
         | bake | rows above | distinct keys (a shared list counted once) |\n|---|---|---|\n",
    );
    for u in [Use::Drawn, Use::Recorded, Use::NotYet, Use::Ignored] {
        let n = distinct.iter().filter(|(_, d)| *d == u).count();
        out.push_str(&format!(
            "| {} | {} | {n} |\n",
            u.words(),
            counts[u as usize]
        ));
    }
    out.push('\n');
    out.push_str(END);
    out.push('\n');
    out
}

fn quoted(vals: &[&str]) -> String {
    vals.iter()
        .map(|v| format!("\"{v}\""))
        .collect::<Vec<_>>()
        .join(" or ")
}

fn default_words(d: Dflt) -> String {
    match d {
        Dflt::None => String::new(),
        Dflt::Num(v) => format!("{v}"),
        Dflt::Bool(b) => format!("{b}"),
        Dflt::Str(s) => format!("\"{s}\""),
        Dflt::Vec(v) => format!(
            "[{}]",
            v.iter()
                .map(|x| format!("{x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Dflt::Said(s) => s.to_string(),
    }
}

/// A type in the docs' words.
fn type_words(ty: &Ty) -> String {
    let path = |r: &PathRule| match (r.suffix, r.exists) {
        (Some(s), _) => format!("path (*{s})"),
        (None, false) => "path (may not exist)".into(),
        (None, true) => "path".into(),
    };
    match ty {
        Ty::Int => "integer".into(),
        Ty::UInt => "unsigned integer".into(),
        Ty::Num => "number".into(),
        Ty::Bool => "bool".into(),
        Ty::Str => "string".into(),
        Ty::Name => "name".into(),
        Ty::Id => "id".into(),
        Ty::Path(r) => path(r),
        Ty::Prefab => "prefab path or placement id".into(),
        Ty::Ref(k) => format!("reference → {}", k.word()),
        Ty::Refs(k) => format!("array of references → {}", k.word()),
        Ty::Vec(n) => format!("{n} numbers"),
        Ty::IntVec(n) => format!("{n} integers"),
        Ty::Nums => "array of numbers".into(),
        Ty::VecList(n) => format!("array of {n} numbers each"),
        Ty::IntVecList(n) => format!("array of {n} integers each"),
        Ty::Hex => "\"#rrggbb\"".into(),
        Ty::Enum(v) => quoted(v),
        Ty::Paths(r) => format!("array of {}", path(r)),
        Ty::Strs => "array of strings".into(),
        Ty::Layer => "layer name".into(),
        Ty::Layers => "array of layer names".into(),
        Ty::Table(_) => "table".into(),
        Ty::Tables(_) => "named tables".into(),
        Ty::List(_) => "array of tables".into(),
        Ty::Map(v) => format!("table of name = {}", type_words(v)),
        Ty::OneOf(v) => v.iter().map(type_words).collect::<Vec<_>>().join(" or "),
        Ty::Any => "any".into(),
    }
}

/// `docs/keys-summary.md`, written whole from the schema: every key of the spec that a
/// renderer reads (its use is not [`Use::Ignored`]), table by table, in three columns: drawn,
/// recorded, named as not drawn yet. A drawn key that the bake names where its value has no
/// effect (a material key its family does not use) carries a `†`. The tables a renderer
/// ignores whole are listed once at the end.
pub fn keys_summary() -> String {
    let mut out = String::from(
        "# The keys a renderer reads, and what this bake does with each\n\n\
         Generated from the schema (`src/scene/schema`) by `scene::schema::doc::keys_summary`; \
         do not edit: `PFX_BLESS_DOCS=1 cargo test --lib scene::schema` writes it anew, and a \
         test fails when this file differs from what the schema generates. The full key table, \
         with types, units, ranges and meanings, is in `docs/scene.md`.\n\n\
         - **drawn**: the key changes the plate.\n\
         - **recorded**: written to the plate's manifest, or used to decide what the plate \
         holds (ids, names, `dynamic`); nothing to draw.\n\
         - **named as not drawn yet**: read and checked; a bake that finds it set names it in a \
         capability note (`… is not rendered yet`).\n\
         - `†`: drawn, but named where its value has no effect (a material key the family does \
         not use, a sun key of the other model).\n\n\
         A key that holds a table of its own (a `[[light]]`, `[object.animation]`) is listed \
         by its table's row.\n\n\
         | table | drawn | recorded | named as not drawn yet |\n|---|---|---|---|\n",
    );
    let mut ignored: Vec<String> = Vec::new();
    let mut counts = [0usize; 3];
    let mut seen: Vec<*const Key> = Vec::new();
    // Each row written, by its keys: a table that holds the same list as an earlier one (the
    // finish keys of a pass and of a finish file) says so instead of listing them again.
    let mut rows: Vec<(Vec<*const Key>, String)> = Vec::new();
    for place in places() {
        let heading = match ROOTS.iter().find(|(r, _)| *r == place.root) {
            Some((_, name)) if place.path.is_empty() => format!("{name} (top level)"),
            _ => format!("[{}]", place.path),
        };
        let mut cols: [Vec<String>; 3] = Default::default();
        let mut listed: Vec<*const Key> = Vec::new();
        let mut any_ignored = false;
        for key in place.table.all() {
            // A sub-table's keys have their own row; a key that is a number or a table
            // (bloom, tone) is listed here as the number.
            if child(&key.ty).is_some() && !matches!(key.ty, Ty::OneOf(_)) {
                continue;
            }
            let path = join(&place.path, key.name);
            let u = use_from(place.root.schema(), &path).map_or(Use::Drawn, |(_, u)| u);
            let col = match u {
                Use::Drawn => 0,
                Use::Recorded => 1,
                Use::NotYet => 2,
                Use::Ignored => {
                    any_ignored = true;
                    continue;
                }
            };
            let mark = if u == Use::Drawn && !key.unread.is_empty() {
                "†"
            } else {
                ""
            };
            cols[col].push(format!("`{}`{mark}", key.name));
            listed.push(key);
            if !seen.iter().any(|k| std::ptr::eq(*k, key)) {
                seen.push(key);
                counts[col] += 1;
            }
        }
        if cols.iter().all(Vec::is_empty) {
            if any_ignored {
                ignored.push(heading);
            }
            continue;
        }
        let same = rows
            .iter()
            .find(|(keys, _)| *keys == listed)
            .map(|(_, h)| h);
        let cells: Vec<String> = match same {
            Some(h) => cols
                .iter()
                .map(|c| {
                    if c.is_empty() {
                        String::new()
                    } else {
                        format!("as {h}")
                    }
                })
                .collect(),
            None => cols.iter().map(|c| c.join(", ")).collect(),
        };
        out.push_str(&format!("| {heading} | {} |\n", cells.join(" | ")));
        rows.push((listed, heading));
    }
    out.push_str(&format!(
        "\nDistinct keys (a list of keys several tables share counted once): {} drawn, {} \
         recorded, {} named as not drawn yet.\n\n\
         Ignored by renderers whole (play mode, sounds, rigs, the project's own tables): {}.\n",
        counts[0],
        counts[1],
        counts[2],
        ignored.join(", ")
    ));
    out
}
