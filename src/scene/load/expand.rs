//! Prefab placement: every placement of the scene and of the prefabs it places expanded,
//! breadth first, into instances (a unit placed with a key and id prefix and the overrides
//! that reach it), each object laid out as a plan; prefab cycles, depth and size refused.

use super::*;

impl Loader {
    /// The instances (the scene first, then each placement as it is reached), the arena of
    /// overridden entry tables, and every object of every instance as a plan, a tile cell's
    /// placement among the scene's. A placement's `hidden` reaches every instance under it.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    pub(super) fn expand<'d>(
        &mut self,
        units: &[Unit],
        entries: &[Entry],
        docs: &'d [Option<ImDocument<String>>],
        tbl_of: &HashMap<usize, Tbl<'d>>,
        entry_at: &HashMap<(usize, &str), usize>,
        unit_of: &HashMap<PathBuf, Option<usize>>,
        cells: &[Cell],
        cell_items: &'d [toml_edit::Item],
        alone: bool,
    ) -> (Vec<Inst>, Vec<toml_edit::Item>, Vec<Plan<'d>>) {
        // Each instance's chain is its parent links.
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
                    entries,
                    tbl_of,
                    &mut insts[i],
                    &mut arena,
                    &mut forwarded,
                    o,
                );
            }
            // The unit's objects, then (for the scene) its tile layers' cells.
            let mut todo: Vec<(Plan, Sp)> = Vec::new();
            for &f in &units[u].files {
                for (dkey, _, t) in entry_tables(docs, f, Kind::Object) {
                    let entry = entry_at.get(&(f, dkey.as_str())).copied();
                    let prefab = if t.has("prefab") {
                        prefab_target(&units[u], tbl_of, t)
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
                for ((f, ckey, sp, path), item) in cells.iter().zip(cell_items) {
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
        (insts, arena, plans)
    }
}
