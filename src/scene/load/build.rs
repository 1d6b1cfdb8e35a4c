//! Building the model: the resolved [`Scene`] from the expanded placements, overrides
//! applied, every reference rewritten to its entry's key.

use super::*;

impl Loader {
    pub(super) fn model(&self, m: &Model, scene_f: usize) -> Scene {
        let loc = |f: usize, t: Tbl| self.ctx.loc(&head_of(&self.ctx, f, t));
        let (units, insts, objs) = (m.units, m.insts, m.objs);
        let mut scene = Scene {
            root: self.ctx.root.clone(),
            file: self
                .ctx
                .srcs
                .get(scene_f)
                .map(|s| s.rel.clone())
                .unwrap_or_default(),
            files: Vec::new(),
            present: self.ctx.present.clone(),
            ..Scene::default()
        };
        scene.tiles = m.layers.clone();
        scene.rigs = m.rigs.clone();
        scene.proxies = m.proxies.clone();
        scene.layers = self.layer_lists(m.docs);
        for (i, d) in m.docs.iter().enumerate() {
            if d.is_some() {
                scene.files.push(self.ctx.srcs[i].rel.clone());
            }
        }
        let refkey = |u: usize, kind: Kind, v: &str| -> String {
            match units[u].index.find(kind, v) {
                Found::One(e) => self.ctx.entries[e]
                    .name
                    .clone()
                    .unwrap_or_else(|| v.to_string()),
                _ => v.to_string(),
            }
        };
        // A material reference from an instance: its key, or this placement's overridden copy.
        let mat = |i: usize, v: &str| -> String {
            let k = refkey(insts[i].unit, Kind::Material, v);
            match insts[i].mats.get(&k) {
                Some((placed, _)) => placed.clone(),
                None => k,
            }
        };
        let group_key = |i: usize| insts[i].group.map(|g| objs[g].key.clone());
        let id_of = |i: usize, t: Tbl| -> Option<String> {
            match (&insts[i].id_prefix, t.str("id")) {
                (Some(p), Some(id)) => Some(format!("{p}{id}")),
                _ => None,
            }
        };

        for (i, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Mesh) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::MESH,
                    };
                    let mut nodes = Vec::new();
                    if let Some(ns) = v.node("nodes").and_then(|n| n.tbl()) {
                        for (nname, _, nn) in ns.entries() {
                            let Some(nt) = nn.tbl() else { continue };
                            let nv = View {
                                t: nt,
                                s: &schema::NODE,
                            };
                            nodes.push(NodeOverride {
                                node: nname.to_string(),
                                material: nv.string("material").map(|x| mat(i, &x)),
                                hidden: nv.bool("hidden"),
                                shadow: nv.string("shadow").map(|x| shadow(&x)),
                                two_sided: nv.opt_bool("two_sided"),
                                at: loc(f, nt),
                            });
                        }
                    }
                    scene.meshes.push(Mesh {
                        key: format!("{}{name}", inst.key_prefix),
                        id: id_of(i, t0),
                        file: v.path("file"),
                        node: v.string("node"),
                        nodes,
                        at: loc(f, t0),
                    });
                }
            }
        }

        for (place, o) in objs.iter().enumerate() {
            let v = View {
                t: o.t,
                s: &schema::OBJECT,
            };
            let scale = match v.node("scale") {
                Some(n) => match (n.num(), n.nums()) {
                    (Some(s), _) => [finite(s); 3],
                    (_, Some(s)) if s.len() == 3 => [finite(s[0]), finite(s[1]), finite(s[2])],
                    _ => [1.0; 3],
                },
                None => [1.0; 3],
            };
            let parent = o.parent.map(|p| objs[p].key.clone());
            let hidden = v.bool("hidden") || insts[o.inst].hidden;
            if o.placement {
                scene.groups.push(Group {
                    key: o.key.clone(),
                    id: o.id.clone(),
                    prefab: o.prefab.clone().unwrap_or_default(),
                    parent,
                    at: v.v3("at"),
                    rotate: v.v3("rotate"),
                    scale,
                    hidden,
                    dynamic: o.dynamic,
                    at_loc: self.ctx.loc(&o.head),
                });
                continue;
            }
            let materials = v
                .node("materials")
                .and_then(|x| x.tbl())
                .map(|x| {
                    x.entries()
                        .iter()
                        .filter_map(|(n, _, v)| v.str().map(|s| (n.to_string(), mat(o.inst, s))))
                        .collect()
                })
                .unwrap_or_default();
            let clip = v
                .node("clip")
                .map(|c| {
                    c.elems()
                        .iter()
                        .filter_map(|p| p.nums())
                        .filter(|p| p.len() == 4)
                        .map(|p| [finite(p[0]), finite(p[1]), finite(p[2]), finite(p[3])])
                        .collect()
                })
                .unwrap_or_default();
            let prefix = &insts[o.inst].key_prefix;
            scene.objects.push(Object {
                key: o.key.clone(),
                id: o.id.clone(),
                mesh: o
                    .t
                    .str("mesh")
                    .map(|x| format!("{prefix}{}", refkey(insts[o.inst].unit, Kind::Mesh, x)))
                    .unwrap_or_default(),
                parent,
                at: v.v3("at"),
                rotate: v.v3("rotate"),
                scale,
                material: v.string("material").map(|x| mat(o.inst, &x)),
                materials,
                shadow: shadow(v.str("shadow").unwrap_or("cast")),
                two_sided: v.bool("two_sided"),
                hidden,
                clip,
                alpha_cutoff: v.f32("alpha_cutoff"),
                face_camera: v.bool("face_camera"),
                dynamic: o.dynamic,
                pick: o
                    .t
                    .num("pick")
                    .map(|p| p.clamp(0.0, u32::MAX as f64) as u32)
                    .unwrap_or((place as u32).saturating_add(1)),
                at_loc: self.ctx.loc(&o.head),
            });
        }

        // Each library once, in the order first named; then each placement's overridden copies.
        let mut libs: Vec<usize> = Vec::new();
        for un in units {
            for &l in &un.libs {
                if !libs.contains(&l) {
                    libs.push(l);
                }
            }
        }
        for &lf in &libs {
            for (_, name, t) in entry_tables(m.docs, lf, Kind::Material) {
                scene
                    .materials
                    .push(material(t, name, self.ctx.srcs[lf].rel.clone(), loc(lf, t)));
            }
        }
        for (i, inst) in insts.iter().enumerate() {
            let mut copies: Vec<(&String, &(String, usize))> = inst.mats.iter().collect();
            copies.sort();
            for (_, (placed, e)) in copies {
                let ent = &self.ctx.entries[*e];
                let f = ent.name_at.file;
                let Some(t) = m.eff(i, f, &ent.key) else {
                    continue;
                };
                let at = self.ctx.loc(&ent.name_at);
                scene.materials.push(material(
                    t,
                    placed.clone(),
                    self.ctx.srcs[f].rel.clone(),
                    at,
                ));
            }
        }

        for (i, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Light) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::LIGHT,
                    };
                    scene.lights.push(Light {
                        key: format!("{}{name}", inst.key_prefix),
                        id: id_of(i, t0),
                        position: v.v3("position"),
                        parent: group_key(i),
                        color: v.v3("color"),
                        intensity: v.f32("intensity"),
                        radius: v.f32("radius"),
                        range: v.f32("range"),
                        shadow: v.bool("shadow"),
                    });
                }
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Mover) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::MOVER,
                    };
                    let objects = v
                        .node("objects")
                        .map(|n| n.elems())
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|o| o.str())
                        .map(|o| {
                            format!("{}{}", inst.key_prefix, refkey(inst.unit, Kind::Object, o))
                        })
                        .collect();
                    let clip = v
                        .node("clip")
                        .map(|c| {
                            c.elems()
                                .iter()
                                .filter_map(|p| p.nums())
                                .filter(|p| p.len() == 4)
                                .map(|p| [finite(p[0]), finite(p[1]), finite(p[2]), finite(p[3])])
                                .collect()
                        })
                        .unwrap_or_default();
                    scene.movers.push(Mover {
                        key: format!("{}{name}", inst.key_prefix),
                        objects,
                        kind: if v.str("kind") == Some("slide") {
                            MoverKind::Slide
                        } else {
                            MoverKind::Turn
                        },
                        pivot: v.v3("pivot"),
                        axis: v.v3("axis"),
                        travel: v.v2("travel"),
                        period: v.f32("period"),
                        motion: match v.str("motion") {
                            Some("loop") => Motion::Loop,
                            Some("once") => Motion::Once,
                            _ => Motion::Swing,
                        },
                        offset: v.f32("offset"),
                        clip,
                    });
                }
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Emitter) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::EMITTER,
                    };
                    scene.emitters.push(Emitter {
                        key: format!("{}{name}", inst.key_prefix),
                        id: id_of(i, t0),
                        position: v.v3("position"),
                        parent: group_key(i),
                        radius: v.f32("radius"),
                        color: v.v3("color"),
                        intensity: v.f32("intensity"),
                    });
                }
            }
        }

        for (i, inst) in insts.iter().enumerate() {
            for &f in &units[inst.unit].files {
                for (dkey, name, t0) in entry_tables(m.docs, f, Kind::Text) {
                    let t = m.eff(i, f, &dkey).unwrap_or(t0);
                    let v = View {
                        t,
                        s: &schema::TEXT,
                    };
                    let c = v.vec("color", 4);
                    scene.texts.push(Text {
                        key: format!("{}{name}", inst.key_prefix),
                        id: id_of(i, t0),
                        text: v.string("text").unwrap_or_default(),
                        font: v.path("font"),
                        size: v.f32("size"),
                        color: [c[0], c[1], c[2], c[3]],
                        at: v.v3("at"),
                        rotate: v.v3("rotate"),
                        lit: v.bool("lit"),
                        dynamic: v.bool("dynamic"),
                        parent: group_key(i),
                        at_loc: loc(f, t0),
                    });
                }
            }
        }

        // The one-file tables: from the file of the scene and its includes that holds each.
        let one = |name: &str| -> Option<Tbl> {
            units[0]
                .files
                .iter()
                .find_map(|&f| doc_table(m.docs, f).and_then(|t| t.get(name)))
                .and_then(|n| n.tbl())
        };
        // The file of the scene and its includes that holds the one-file table `name`.
        let one_file = |name: &str| -> Option<usize> {
            units[0]
                .files
                .iter()
                .copied()
                .find(|&f| doc_table(m.docs, f).is_some_and(|t| t.get(name).is_some()))
        };
        scene.fallback = units[0]
            .files
            .iter()
            .find_map(|&f| doc_table(m.docs, f).and_then(|t| t.str("fallback")))
            .map(|x| refkey(0, Kind::Material, x));

        if let Some(t) = one("camera") {
            let v = View {
                t,
                s: &schema::CAMERA,
            };
            let focal = v.opt("focal");
            let sensor = v.f32("sensor");
            let fov = match (v.opt("fov"), focal) {
                (Some(f), _) => f,
                // Vertical fov of a sensor `sensor` mm high behind a lens of `f` mm.
                (None, Some(f)) => (2.0 * (sensor / (2.0 * f)).atan()).to_degrees(),
                (None, None) => v.f32("fov"),
            };
            scene.camera = Some(Camera {
                projection: if v.str("projection") == Some("orthographic") {
                    Projection::Orthographic
                } else {
                    Projection::Perspective
                },
                at: v.v3("at"),
                look_at: v.v3("look_at"),
                up: v.v3("up"),
                fov,
                focal,
                sensor,
                height: v.opt("height"),
                near: v.f32("near"),
                far: v.f32("far"),
                shift: v.v2("shift"),
                fstop: v.opt("fstop"),
                focus: v.opt("focus"),
            });
        }

        if let Some(t) = one("sun") {
            let v = View { t, s: &schema::SUN };
            let authored = v.str("model") == Some("authored");
            let reference_hour = v.f32("reference_hour");
            scene.sun = Some(Sun {
                model: if authored {
                    SunModel::Authored
                } else {
                    SunModel::Daylight
                },
                hour: v.opt("hour").unwrap_or(reference_hour),
                day: v.f32("day"),
                latitude: v.f32("latitude"),
                heading: v.f32("heading"),
                reference_hour,
                toward: if authored {
                    v.nums("toward")
                        .filter(|a| a.len() == 3)
                        .map(|a| [finite(a[0]), finite(a[1]), finite(a[2])])
                } else {
                    None
                },
                color: v.v3("color"),
                irradiance: v.opt("irradiance"),
                radius: v.f32("radius"),
            });
        }

        if let Some(t) = one("sky") {
            let v = View { t, s: &schema::SKY };
            let l = sky_layer(t, &schema::SKY);
            let kind = if v.str("kind") == Some("mix") {
                SkyKind::Mix
            } else {
                l.kind
            };
            scene.sky = Some(Sky {
                kind,
                path: l.path,
                rotation_deg: l.rotation_deg,
                intensity: l.intensity,
                turbidity: l.turbidity,
                ground_albedo: l.ground_albedo,
                ambient: l.ambient,
                prepare: l.prepare,
                room: l.room,
                layers: t
                    .get("layer")
                    .map(|n| n.tables())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|lt| sky_layer(lt, &schema::SKY_LAYER))
                    .collect(),
            });
        }

        if let Some(t) = one("trace") {
            let v = View {
                t,
                s: &schema::TRACE,
            };
            scene.trace = Some(Trace {
                transmissive_shadows: v.bool("transmissive_shadows"),
                clamp_indirect: v.f32("clamp_indirect"),
                filter_glossy: v.f32("filter_glossy"),
            });
        }

        if let Some(t) = one("finish") {
            scene.finish = Some(self.finish_of(m, t, &one_file("finish")));
        }
        if let Some(t) = one("haze") {
            let v = View {
                t,
                s: &schema::HAZE,
            };
            let amount = v.f32("amount");
            // A density not written is its share of `amount` (the spec's defaults).
            let density = |name: &str, share: f32| v.opt(name).unwrap_or(amount * share);
            // A TOML integer is exact in 64 bits (the checker refuses a negative one).
            let seed = match v.node("seed").and_then(|n| n.val()) {
                Some(toml_edit::Value::Integer(i)) => (*i.value()).max(0) as u64,
                _ => 0,
            };
            scene.haze = Some(Haze {
                lo: v.v3("lo"),
                hi: v.v3("hi"),
                fog: density("fog", 1.0 / 6.0),
                smoke: density("smoke", 20.0),
                mist: density("mist", 0.2),
                floor: density("floor", 2.0),
                phase: v.f32("phase"),
                back: v.f32("back"),
                reach: v.f32("reach"),
                gold: v.v3("gold"),
                ambient: v.v3("ambient"),
                unmapped: v.f32("unmapped"),
                seed,
            });
        }

        if let Some(t) = one("plates") {
            let v = View {
                t,
                s: &schema::PLATES,
            };
            scene.plates = Some(Plates {
                dir: v.path("dir"),
                proxies: v.string("proxies").and_then(|p| normalize(&p).ok()),
                casters: match v.str("casters") {
                    Some("proxies") => Casters::Proxies,
                    Some("none") => Casters::None,
                    _ => Casters::Meshes,
                },
            });
        }
        scene
    }
    /// The `[[proxy]]` entries of proxies file `pf`, each object rewritten by `key_of`.
    /// `[finish]` as written: its inline keys or its file's top level, and its passes.
    fn finish_of(&self, m: &Model, t: Tbl, f: &Option<usize>) -> Finish {
        let f = f.unwrap_or(0);
        let keys = |f: usize, t: Tbl, skip: &[&str]| -> Vec<FinishKey> {
            t.entries()
                .into_iter()
                .filter(|(name, _, _)| !skip.contains(name))
                .filter_map(|(name, ks, node)| {
                    let head = head_of(&self.ctx, f, t);
                    Some(FinishKey {
                        name: name.to_string(),
                        value: finish_value(node)?,
                        at: self.ctx.loc(&Sp::or(f, ks, &head)),
                    })
                })
                .collect()
        };
        let file = self
            .named(f, "finish.file")
            .into_iter()
            .next()
            .map(|(_, _, p)| p);
        let base = match &file {
            Some(p) => match self.cache.get(p) {
                Some(Some(ff)) => doc_table(m.docs, *ff)
                    .map(|top| keys(*ff, top, &[]))
                    .unwrap_or_default(),
                _ => Vec::new(),
            },
            None => keys(f, t, &["file", "pass"]),
        };
        let passes = t
            .get("pass")
            .map(|n| n.tables())
            .unwrap_or_default()
            .into_iter()
            .map(|pt| keys(f, pt, &[]))
            .collect();
        Finish {
            file,
            base,
            passes,
            at: self.ctx.loc(&head_of(&self.ctx, f, t)),
        }
    }

    pub(super) fn proxies_of(
        &self,
        docs: &[Option<ImDocument<String>>],
        pf: usize,
        key_of: &dyn Fn(&str) -> String,
    ) -> Vec<Proxy> {
        let mut out = Vec::new();
        for (place, (_, _, t)) in entry_tables(docs, pf, Kind::Proxy).into_iter().enumerate() {
            let v = View {
                t,
                s: &schema::PROXY,
            };
            let hull = v.str("kind") == Some("hull");
            let corner = |i: f64| i.clamp(0.0, u32::MAX as f64) as u32;
            let list = |name: &str| -> Vec<Vec<f64>> {
                t.get(name)
                    .map(|n| n.elems().iter().filter_map(|e| e.nums()).collect())
                    .unwrap_or_default()
            };
            out.push(Proxy {
                key: place,
                id: v.string("id"),
                object: t.str("object").map(key_of).unwrap_or_default(),
                kind: if hull {
                    ProxyKind::Hull
                } else {
                    ProxyKind::Box
                },
                at: v.v3("at"),
                rotate: v.v3("rotate"),
                size: v.v3("size"),
                points: list("points")
                    .iter()
                    .filter(|p| p.len() == 3)
                    .map(|p| [finite(p[0]), finite(p[1]), finite(p[2])])
                    .collect(),
                // Corners were checked to be places in `points`; the clamp only keeps a
                // refused value (NaN reads as 0) from wrapping.
                triangles: list("triangles")
                    .iter()
                    .filter(|c| c.len() == 3)
                    .map(|c| [corner(c[0]), corner(c[1]), corner(c[2])])
                    .collect(),
                at_loc: self.ctx.loc(&head_of(&self.ctx, pf, t)),
            });
        }
        out
    }

    /// project.toml's `[layers]` as lists; empty when it is absent or can't be read (then
    /// the layer names went unchecked, as the spec says).
    pub(super) fn layer_lists(
        &self,
        docs: &[Option<ImDocument<String>>],
    ) -> BTreeMap<String, Vec<String>> {
        let mut out = BTreeMap::new();
        if !self.ctx.check_layers || self.ctx.layers.is_none() {
            return out;
        }
        let proj = Path::new("project.toml");
        let Some(f) = self.ctx.srcs.iter().position(|s| s.rel == proj) else {
            return out;
        };
        let Some(t) = doc_table(docs, f)
            .and_then(|t| t.get("layers"))
            .and_then(|n| n.tbl())
        else {
            return out;
        };
        for (name, _, v) in t.entries() {
            let meets = v
                .elems()
                .iter()
                .filter_map(|e| e.str().map(String::from))
                .collect();
            out.insert(name.to_string(), meets);
        }
        out
    }
}

/// A follow rig without `offset` takes `[camera] at` less its target's position at rest: the
/// target's world origin through its parents (objects and placements), as the scene stands
/// before play. A rig with no target keeps `None`: there is no point to measure from.
pub(super) fn fill_follow_offsets(scene: &mut Scene) {
    let camera_at = glam::Vec3::from(scene.camera.clone().unwrap_or_default().at);
    let mut frames: HashMap<&str, (glam::Mat4, Option<&str>)> = HashMap::new();
    for g in &scene.groups {
        let m = crate::geometry::model_matrix(g.at, g.rotate, g.scale);
        frames.insert(g.key.as_str(), (m, g.parent.as_deref()));
    }
    for o in &scene.objects {
        let m = crate::geometry::model_matrix(o.at, o.rotate, o.scale);
        frames.insert(o.key.as_str(), (m, o.parent.as_deref()));
    }
    let mut offsets = Vec::new();
    for (i, r) in scene.rigs.iter().enumerate() {
        if r.kind != RigKind::Follow || r.offset.is_some() {
            continue;
        }
        let Some(target) = r.target.as_deref() else {
            continue;
        };
        let mut p = glam::Vec3::ZERO;
        let mut cur = Some(target);
        // The reader refuses parent cycles; the bound keeps a hand-made scene from looping.
        for _ in 0..=frames.len() {
            let Some((m, parent)) = cur.and_then(|k| frames.get(k)) else {
                break;
            };
            p = m.transform_point3(p);
            cur = *parent;
        }
        let o = camera_at - p;
        if o.is_finite() {
            offsets.push((i, o.to_array()));
        }
    }
    for (i, o) in offsets {
        scene.rigs[i].offset = Some(o);
    }
}

/// A finish key's value as the model holds it; `None` for a shape no finish key takes (the
/// checker has refused it already).
fn finish_value(n: Node) -> Option<FinishValue> {
    if let Some(t) = n.tbl() {
        return Some(FinishValue::Table(
            t.entries()
                .into_iter()
                .filter_map(|(k, _, v)| Some((k.to_string(), finish_value(v)?)))
                .collect(),
        ));
    }
    if let Some(b) = n.bool() {
        return Some(FinishValue::Bool(b));
    }
    if let Some(x) = n.num() {
        return Some(FinishValue::Num(x));
    }
    if let Some(s) = n.str() {
        return Some(FinishValue::Text(s.to_string()));
    }
    n.nums().map(FinishValue::Nums)
}
