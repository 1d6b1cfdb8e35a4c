//! The rules that span entries: parent cycles, movers, bodies and characters under their
//! parents, sounds, and `dynamic` derived as the spec says.

use super::*;

impl Loader {
    pub(super) fn parent_cycles(&mut self, objs: &mut [Obj]) {
        // 0: unseen, 1: on the chain being followed, 2: done. Iterative: no recursion on input.
        let mut state = vec![0u8; objs.len()];
        for start in 0..objs.len() {
            let mut chain = Vec::new();
            let mut cur = Some(start);
            while let Some(c) = cur {
                match state[c] {
                    0 => {
                        state[c] = 1;
                        chain.push(c);
                        cur = objs[c].parent;
                    }
                    1 => {
                        let pos = chain.iter().position(|x| *x == c).unwrap_or(0);
                        let cycle: Vec<usize> = chain[pos..].to_vec();
                        let first = *cycle.iter().min().unwrap_or(&c);
                        let names: Vec<&str> =
                            cycle.iter().map(|o| objs[*o].key.as_str()).collect();
                        let at = parent_sp(&objs[first]);
                        let related = cycle
                            .iter()
                            .filter(|o| **o != first)
                            .map(|o| self.ctx.loc(&parent_sp(&objs[*o])))
                            .collect();
                        let msg = format!(
                            "objects' parents form a cycle: {} → {}",
                            names.join(" → "),
                            names[0]
                        );
                        self.ctx.report(
                            Severity::Error,
                            &at,
                            Code::ParentCycle,
                            &format!("{}.parent", objs[first].dkey),
                            msg,
                            related,
                        );
                        // Break the cycle so that later walks up the parents end.
                        for o in &cycle {
                            objs[*o].parent = None;
                        }
                        break;
                    }
                    _ => break,
                }
            }
            for c in chain {
                state[c] = 2;
            }
        }
    }

    #[allow(clippy::type_complexity)]
    pub(super) fn movers(
        &mut self,
        movers: &[(usize, usize, String, Tbl)],
        sets: &[Option<SetBy>],
        objs: &mut [Obj],
        obj_of: &dyn Fn(usize, &str) -> Option<usize>,
    ) {
        for ((inst, f, mkey, m), set) in movers.iter().zip(sets) {
            let mclip = m.get("clip").map(|c| c.elems().len()).unwrap_or(0);
            for (j, e) in m
                .get("objects")
                .map(|o| o.elems())
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let Some(o) = e.str().and_then(|v| obj_of(*inst, v)) else {
                    continue;
                };
                let at = Sp {
                    file: *f,
                    span: e.span().unwrap_or(0..0),
                };
                let key = format!("{mkey}.objects.{j}");
                if let Some((other, (first, _), _)) = &objs[o].mover {
                    let loc = self.ctx.loc(first);
                    let msg = format!("object \"{}\" is already moved by {other}; an object is moved by one mover at most", objs[o].key);
                    self.ctx
                        .report(Severity::Error, &at, Code::BadValue, &key, msg, vec![loc]);
                    continue;
                }
                let oclip = objs[o].t.get("clip").map(|c| c.elems().len()).unwrap_or(0);
                if mclip > 0 && mclip + oclip > 2 {
                    let msg = format!("object \"{}\" has {oclip} clip planes and this mover {mclip}: at most two together", objs[o].key);
                    self.ctx.err(&at, Code::BadValue, &key, msg);
                }
                objs[o].mover = Some((mkey.clone(), (at, key), set.clone()));
            }
        }
    }

    /// A body or a character sits on a root object or under placements only, moved by no
    /// mover. Refuses one that is moved, or sits under an ordinary object or a moved
    /// placement, at the key that puts it there: an override's `[object.set]` key when an
    /// override does (bad-override: a mover's `objects`, a `parent` on the way up, or the body
    /// itself); else, when the mover's `objects` entry or the `parent` that makes the chain is
    /// written in another file than the body (a scene misplacing a prefab's body), that key
    /// (bad-value); else the body (bad-value). The body and the object or placement are in
    /// `related`.
    pub(super) fn bodies(&mut self, objs: &[Obj], insts: &[Inst]) {
        // The override that set `key` of object `o`, where one did.
        let set_of = |o: &Obj, key: &str| -> Option<SetBy> {
            let e = o.entry?;
            insts
                .get(o.inst)?
                .set_at
                .get(&(e, key.to_string()))
                .cloned()
        };
        for o in objs {
            for what in ["body", "character"] {
                if !o.t.has(what) {
                    continue;
                }
                let at = key_sp(o.f, o.t, what, &o.head);
                let key = format!("{}.{what}", o.dkey);
                let own_set = set_of(o, what);
                let body_loc = self.ctx.loc(&o.head);
                if let Some((m, (mat, mkey), mset)) = &o.mover {
                    let msg = format!("a {what} is moved by the simulation; {m} moves this object");
                    match mset.clone().or(own_set) {
                        Some((kat, okey)) => self.ctx.report(
                            Severity::Error,
                            &kat,
                            Code::BadOverride,
                            &okey,
                            format!("{msg} (an override puts it there)"),
                            vec![body_loc],
                        ),
                        None if mat.file != o.f => self.ctx.report(
                            Severity::Error,
                            mat,
                            Code::BadValue,
                            mkey,
                            format!("{msg}, which is written in another file"),
                            vec![body_loc],
                        ),
                        None => self.ctx.err(&at, Code::BadValue, &key, msg),
                    }
                    continue;
                }
                let mut cur = o.parent;
                // The first `parent` on the way up that an override set.
                let mut link = set_of(o, "parent");
                // The object whose `parent` names the one being looked at.
                let mut child = o;
                let mut hops = 0;
                while let Some(p) = cur {
                    hops += 1;
                    if hops > objs.len() {
                        break;
                    }
                    let po = &objs[p];
                    let found = if !po.placement {
                        let msg = format!("a {what} sits on a root object or under prefab placements; \"{}\" is an ordinary object", po.key);
                        Some((msg, None, None))
                    } else {
                        po.mover.as_ref().map(|(m, mplace, mset)| {
                            let msg = format!(
                                "a {what} may not sit under a moved placement; {m} moves \"{}\"",
                                po.key
                            );
                            (msg, mset.clone(), Some(mplace.clone()))
                        })
                    };
                    if let Some((msg, mset, mplace)) = found {
                        let loc = self.ctx.loc(&po.head);
                        // Without an override, the written key that makes the fault: the
                        // mover's entry naming the placement, or the `parent` naming `po`.
                        let (wat, wkey) = mplace.unwrap_or_else(|| {
                            (
                                key_sp(child.f, child.t, "parent", &child.head),
                                format!("{}.parent", child.dkey),
                            )
                        });
                        match mset.or(link).or(own_set) {
                            Some((kat, okey)) => self.ctx.report(
                                Severity::Error,
                                &kat,
                                Code::BadOverride,
                                &okey,
                                format!("{msg} (an override puts it there)"),
                                vec![body_loc, loc],
                            ),
                            None if wat.file != o.f => self.ctx.report(
                                Severity::Error,
                                &wat,
                                Code::BadValue,
                                &wkey,
                                format!("{msg}; this puts \"{}\" there", o.key),
                                vec![body_loc, loc],
                            ),
                            None => self.ctx.report(
                                Severity::Error,
                                &at,
                                Code::BadValue,
                                &key,
                                msg,
                                vec![loc],
                            ),
                        }
                        break;
                    }
                    link = link.or_else(|| set_of(po, "parent"));
                    child = po;
                    cur = po.parent;
                }
            }
        }
    }

    pub(super) fn sounds(
        &mut self,
        sounds: &[(usize, usize, String, Tbl)],
        objs: &[Obj],
        obj_of: &dyn Fn(usize, &str) -> Option<usize>,
    ) {
        let mut looping: Option<Sp> = None;
        for (inst, f, skey, s) in sounds {
            let head = head_of(&self.ctx, *f, *s);
            if s.bool("loop") == Some(true) {
                let at = val_sp(*f, *s, "loop", &head);
                match &looping {
                    Some(first) => {
                        let loc = self.ctx.loc(first);
                        self.ctx.report(
                            Severity::Error,
                            &at,
                            Code::BadValue,
                            &format!("{skey}.loop"),
                            "a second looping sound: a scene has one at most".into(),
                            vec![loc],
                        );
                    }
                    None => looping = Some(at),
                }
            }
            if let Some(o) = s.str("object").and_then(|v| obj_of(*inst, v)) {
                if !objs[o].t.has("body") {
                    let at = val_sp(*f, *s, "object", &head);
                    let msg = format!(
                        "a hit sound's object has a body; \"{}\" has no [object.body]",
                        objs[o].key
                    );
                    self.ctx
                        .err(&at, Code::BadReference, &format!("{skey}.object"), msg);
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // the model
}

/// Derives `dynamic`: set, or true when a mover moves the object, it is a character, it is
/// animated, it faces the camera, or its parent is dynamic.
pub(super) fn derive_dynamic(objs: &mut [Obj]) {
    let own: Vec<Option<bool>> = objs
        .iter()
        .map(|o| {
            o.explicit_dynamic.or({
                let base = o.mover.is_some()
                    || o.t.has("character")
                    || o.t.has("animation")
                    || o.t.bool("face_camera") == Some(true);
                if base {
                    Some(true)
                } else {
                    None
                }
            })
        })
        .collect();
    let mut done: Vec<Option<bool>> = vec![None; objs.len()];
    for i in 0..objs.len() {
        // Walk up to the first object whose value is known, then fill the chain back down.
        let mut chain = Vec::new();
        let mut cur = Some(i);
        let mut value = false;
        while let Some(c) = cur {
            if let Some(d) = done[c] {
                value = d;
                break;
            }
            if let Some(d) = own[c] {
                done[c] = Some(d);
                value = d;
                break;
            }
            if chain.len() > objs.len() {
                break;
            }
            chain.push(c);
            cur = objs[c].parent;
        }
        for c in chain.into_iter().rev() {
            done[c] = Some(value);
        }
    }
    for (o, d) in objs.iter_mut().zip(done) {
        o.dynamic = d.unwrap_or(false);
    }
}
