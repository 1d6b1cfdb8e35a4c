//! Tile layers: a layer's palette and filled cells, and where each cell is written.

use super::*;

/// A tile layer as the model holds it: its palette's prefabs found, its filled cells listed.
pub(super) fn tiles_of(t: Tbl, unit: &Unit, tbl_of: &HashMap<usize, Tbl>, at: Location) -> Tiles {
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
pub(super) fn cell_place(
    f: usize,
    t: Tbl,
    dkey: &str,
    layer: &Tiles,
    n: usize,
    head: &Sp,
) -> (Sp, String) {
    let Some((at, _)) = layer.cells.get(n) else {
        return (head.clone(), dkey.to_string());
    };
    if let Some(rows) = t.get("rows") {
        let elems = rows.elems();
        let r = (elems.len() as i64 - 1 - at[1]).max(0) as usize;
        let sp = elems
            .get(r)
            .and_then(|n| n.span())
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

/// A filled cell of a tile layer as a placement: (file, diagnostic key, where written, the
/// prefab's path).
pub(super) type Cell = (usize, String, Sp, PathBuf);

impl Loader {
    /// The scene's tile layers, and each filled cell as a placement: its place and prefab,
    /// and its table (name, prefab, at) written as an `[[object]]` that places the prefab.
    pub(super) fn tile_cells(
        &self,
        docs: &[Option<ImDocument<String>>],
        scene: &Unit,
        tbl_of: &HashMap<usize, Tbl>,
    ) -> (Vec<Tiles>, Vec<Cell>, Vec<toml_edit::Item>) {
        let mut layers: Vec<Tiles> = Vec::new();
        let mut cells: Vec<Cell> = Vec::new();
        let mut cell_items: Vec<toml_edit::Item> = Vec::new();
        for &f in &scene.files {
            for (dkey, name, t) in entry_tables(docs, f, Kind::Tiles) {
                let head = head_of(&self.ctx, f, t);
                let layer = tiles_of(t, scene, tbl_of, self.ctx.loc(&head));
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
        (layers, cells, cell_items)
    }
}
