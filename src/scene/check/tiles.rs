//! A `[[tiles]]` layer: rows or cells, its palette, and each cell placed once.

use super::*;

impl Ctx {
    pub(super) fn tiles(&mut self, f: usize, t: Tbl, key: &str, head: &Sp) {
        let k = |n: &str| format!("{key}.{n}");
        if t.has("rows") && t.has("cells") {
            self.err(
                &key_sp(f, t, "cells", head),
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
                        let at = val_sp(f, *c, "tile", head);
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
                        let sp = val_sp(f, *c, "at", head);
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
}
