//! Resolving a unit: its prefabs read, placements expanded, ids, names and references
//! checked across them, then the rules that span entries, then the model.

use super::*;

impl Loader {
    /// Everything past reading the scene file: its includes, proxies file and prefabs read;
    /// placements expanded; ids, names and references across them; then the model. `top` is
    /// the top file's kind: a prefab read alone resolves as a scene would place it.
    pub(super) fn resolve(&mut self, scene_f: usize, top: FileKind) -> Scene {
        let alone = top == FileKind::Prefab;
        let (mut units, unit_of, proxies_f) = self.units(scene_f, top);

        let docs = std::mem::take(&mut self.docs);
        let entries = self.ctx.entries.clone();
        index_units(&mut units, &entries, alone);
        let entry_at: HashMap<(usize, &str), usize> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| ((e.name_at.file, e.key.as_str()), i))
            .collect();
        let mut tbl_of: HashMap<usize, Tbl> = HashMap::new();
        for f in 0..docs.len() {
            for kind in ALL_KINDS {
                for (dkey, _, t) in entry_tables(&docs, f, kind) {
                    if let Some(&e) = entry_at.get(&(f, dkey.as_str())) {
                        tbl_of.insert(e, t);
                    }
                }
            }
        }
        self.ids(&entries);
        for un in &units {
            self.names(&entries, un);
        }
        self.material_names(&entries);
        self.held_twice(&docs, &units[0]);

        // Tile layers: each filled cell is a placement, written here as a table of its own.
        let (layers, cells, cell_items) = self.tile_cells(&docs, &units[0], &tbl_of);

        // Placements, expanded breadth first.
        let (insts, arena, plans) = self.expand(
            &units,
            &entries,
            &docs,
            &tbl_of,
            &entry_at,
            &unit_of,
            &cells,
            &cell_items,
            alone,
        );

        // The placed objects.
        let eff = |inst: usize, e: Option<usize>| -> Option<usize> {
            e.and_then(|e| insts[inst].owned.get(&e).copied())
        };
        let tbl_at = |a: Option<usize>| -> Option<Tbl> {
            a.and_then(|a| arena.get(a))
                .and_then(Node::of_item)
                .and_then(|n| n.tbl())
        };
        let mut objs: Vec<Obj> = Vec::with_capacity(plans.len());
        let mut obj_at: HashMap<(usize, usize), usize> = HashMap::new();
        let mut placed_ids: HashMap<String, usize> = HashMap::new();
        for (n, p) in plans.iter().enumerate() {
            let inst = &insts[p.inst];
            let t = tbl_at(eff(p.inst, p.entry)).unwrap_or(p.orig);
            let name = p.orig.str("name").unwrap_or_default().to_string();
            let id = match (&inst.id_prefix, p.orig.str("id")) {
                (Some(pre), Some(id)) => Some(format!("{pre}{id}")),
                _ => None,
            };
            if let Some(e) = p.entry {
                obj_at.insert((p.inst, e), n);
            }
            if p.inst != 0 {
                if let Some(id) = &id {
                    placed_ids.entry(id.clone()).or_insert(n);
                }
            }
            objs.push(Obj {
                t,
                f: p.f,
                inst: p.inst,
                key: format!("{}{name}", inst.key_prefix),
                dkey: p.dkey.clone(),
                id,
                head: p.head.clone(),
                placement: p.orig.has("prefab"),
                prefab: p.prefab.clone(),
                parent: None,
                explicit_dynamic: t.bool("dynamic"),
                dynamic: false,
                mover: None,
                entry: p.entry,
            });
        }
        let obj_of = |inst: usize, v: &str| -> Option<usize> {
            match units[insts[inst].unit].index.find(Kind::Object, v) {
                Found::One(e) => obj_at.get(&(inst, e)).copied(),
                Found::None => insts[inst]
                    .id_prefix
                    .as_ref()
                    .and_then(|p| placed_ids.get(&format!("{p}{v}")).copied()),
                Found::Many(_) => None,
            }
        };
        for o in objs.iter_mut() {
            o.parent = match o.t.str("parent") {
                Some(v) => obj_of(o.inst, v),
                // A prefab's root objects take the placement as their parent.
                None => insts[o.inst].group,
            };
        }

        // References, each in the unit its file belongs to.
        let refs = std::mem::take(&mut self.ctx.refs);
        // Each proxy's object, judged static or not once `dynamic` is derived below.
        let mut proxy_objs: Vec<(&RefUse, usize)> = Vec::new();
        for r in &refs {
            let Some(u) = units.iter().position(|un| un.holds(r.at.file)) else {
                continue;
            };
            match units[u].index.find(r.kind, &r.value) {
                Found::One(e) => {
                    if Some(r.at.file) == proxies_f {
                        // A proxy also names a placed object by its key, so a scene object
                        // named "lamp/bulb" and the bulb placed by "lamp" are both "lamp/bulb".
                        let placed = r
                            .value
                            .contains('/')
                            .then(|| objs.iter().find(|o| o.inst != 0 && o.key == r.value))
                            .flatten();
                        match placed {
                            Some(p) => {
                                let mut related = vec![self.ctx.loc(&entries[e].name_at)];
                                let name_at = p.t.get("name").and_then(|n| n.span());
                                related.push(self.ctx.loc(&Sp {
                                    file: p.f,
                                    span: name_at.unwrap_or_else(|| p.head.span.clone()),
                                }));
                                let msg = format!(
                                    "\"{}\" names 2 objects: an object of that name and a placed \
                                     object of that key; refer to one by its id",
                                    r.value
                                );
                                self.ctx.report(
                                    Severity::Error,
                                    &r.at,
                                    Code::AmbiguousReference,
                                    &r.key,
                                    msg,
                                    related,
                                );
                            }
                            None => proxy_objs.extend(obj_at.get(&(0, e)).map(|&o| (r, o))),
                        }
                    }
                }
                Found::None => {
                    let placed = (r.kind == Kind::Object && r.value.contains('/'))
                        .then(|| {
                            insts.iter().enumerate().find_map(|(ii, inst)| {
                                (inst.unit == u).then(|| obj_of(ii, &r.value)).flatten()
                            })
                        })
                        .flatten()
                        // A proxy names a placed object by its key in the scene, too.
                        .or_else(|| {
                            (Some(r.at.file) == proxies_f && r.value.contains('/'))
                                .then(|| objs.iter().position(|o| o.inst != 0 && o.key == r.value))
                                .flatten()
                        });
                    match placed {
                        Some(o) => {
                            if Some(r.at.file) == proxies_f {
                                proxy_objs.push((r, o));
                            }
                        }
                        None => {
                            let inside = if u == 0 && !alone {
                                String::new()
                            } else {
                                format!(
                                    " in `{}` (a prefab resolves inside itself)",
                                    units[u].rel.display()
                                )
                            };
                            let msg = format!(
                                "no {} has the id or name \"{}\"{inside}",
                                r.kind.word(),
                                r.value
                            );
                            self.ctx.err(&r.at, Code::BadReference, &r.key, msg);
                        }
                    }
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
                        Code::AmbiguousReference,
                        &r.key,
                        msg,
                        related,
                    );
                }
            }
        }
        // Placement ids named by `prefab` or a palette.
        for r in std::mem::take(&mut self.ctx.placement_refs) {
            let Some(u) = units.iter().position(|un| un.holds(r.at.file)) else {
                continue;
            };
            let ok = match units[u].index.find(Kind::Object, &r.value) {
                Found::One(e) => {
                    entries[e].id.as_deref() == Some(r.value.as_str())
                        && tbl_of.get(&e).is_some_and(|t| t.has("prefab"))
                }
                _ => false,
            };
            if !ok {
                self.ctx.err(
                    &r.at,
                    Code::BadReference,
                    &r.key,
                    format!(
                        "\"{}\" is the id of no prefab placement of this scene",
                        r.value
                    ),
                );
            }
        }

        self.parent_cycles(&mut objs);
        // Movers, sounds: every instance's, overrides applied.
        let mut movers: Vec<(usize, usize, String, Tbl)> = Vec::new();
        let mut sounds: Vec<(usize, usize, String, Tbl)> = Vec::new();
        // Each mover's override of its objects, where one set them.
        let mut mover_sets: Vec<Option<SetBy>> = Vec::new();
        for (ii, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (kind, out) in [(Kind::Mover, &mut movers), (Kind::Sound, &mut sounds)] {
                    for (dkey, _, t) in entry_tables(&docs, f, kind) {
                        let e = entry_at.get(&(f, dkey.as_str())).copied();
                        let t = tbl_at(eff(ii, e)).unwrap_or(t);
                        if kind == Kind::Mover {
                            let set = e.and_then(|e| inst.set_at.get(&(e, "objects".to_string())));
                            mover_sets.push(set.cloned());
                        }
                        out.push((ii, f, dkey, t));
                    }
                }
            }
        }
        self.movers(&movers, &mover_sets, &mut objs, &obj_of);
        derive_dynamic(&mut objs);
        // A proxy stands in for a static object: one dynamic by its own key, a mover, a
        // parent's or an animation is refused as a placement is.
        for (r, o) in proxy_objs {
            self.proxy_ref(r, &objs[o]);
        }
        self.bodies(&objs, &insts);
        self.sounds(&sounds, &objs, &obj_of);

        // Rigs: every instance's, overrides applied, each target rewritten to its object's key.
        let mut rigs = Vec::new();
        for (ii, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (dkey, name, t0) in entry_tables(&docs, f, Kind::Rig) {
                    let e = entry_at.get(&(f, dkey.as_str())).copied();
                    let t = tbl_at(eff(ii, e)).unwrap_or(t0);
                    let id = match (&inst.id_prefix, t0.str("id")) {
                        (Some(p), Some(id)) => Some(format!("{p}{id}")),
                        _ => None,
                    };
                    let target = t.str("target").map(|v| match obj_of(ii, v) {
                        Some(o) => objs[o].key.clone(),
                        None => v.to_string(),
                    });
                    let at_loc = self.ctx.loc(&head_of(&self.ctx, f, t0));
                    rigs.push(rig(
                        t,
                        format!("{}{name}", inst.key_prefix),
                        id,
                        target,
                        at_loc,
                    ));
                }
            }
        }
        // Proxies: each object rewritten to its key in the scene (by id, a placed object's
        // namespaced id, its name, or a placed object's key).
        let proxy_key = |v: &str| -> String {
            if let Found::One(e) = units[0].index.find(Kind::Object, v) {
                if let Some(&o) = obj_at.get(&(0, e)) {
                    return objs[o].key.clone();
                }
            }
            placed_ids
                .get(v)
                .map(|&o| objs[o].key.clone())
                .unwrap_or_else(|| v.to_string())
        };
        let proxies = match proxies_f {
            Some(pf) => self.proxies_of(&docs, pf, &proxy_key),
            None => Vec::new(),
        };

        let m = Model {
            layers,
            rigs,
            proxies,
            docs: &docs,
            units: &units,
            insts: &insts,
            objs: &objs,
            entry_at: &entry_at,
            arena: &arena,
        };
        self.model(&m, scene_f)
    }
}
