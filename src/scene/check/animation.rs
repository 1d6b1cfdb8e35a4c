//! An `[object.animation]`: a glTF animation or a sprite, its clips and events, each
//! clip and event frame within the sprite's frames.

use super::*;

impl Ctx {
    pub(super) fn animation(&mut self, f: usize, t: Tbl, key: &str, head: &Sp) {
        let k = |n: &str| format!("{key}.{n}");
        let ksp = |n: &str| key_sp(f, t, n, head);
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
                        &val_sp(f, t, "frames", head),
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
                        &val_sp(f, t, "clip", head),
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
                    &val_sp(f, t, "blend", head),
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
                        let at = val_sp(f, *bt, "clip", head);
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
                    &val_sp(f, t, "blend", head),
                    Code::BadValue,
                    &k("blend"),
                    "the blend weights sum to 0; their sum must be above 0".into(),
                );
            }
        }
        // A sprite's count of frames, where the file gives it: a grid's cells or the frames
        // listed (the atlas image itself is the loader's to read).
        let atlas_frames: Option<f64> = if !sprite {
            None
        } else if let Some(g) = t.nums("grid") {
            (g.len() == 2 && g.iter().all(|v| *v >= 1.0)).then(|| g[0] * g[1])
        } else {
            t.get("frames")
                .filter(is_array)
                .map(|fr| fr.elems().len() as f64)
        };
        // Each clip's count of frames, by name: `from` to `to`, both included.
        let mut clip_frames: Vec<(String, Option<f64>)> = Vec::new();
        if let Some(clips) = t.get("clips").and_then(|c| c.tbl()) {
            for (name, _, c) in clips.entries() {
                let Some(ct) = c.tbl() else { continue };
                let (from, to) = (ct.num("from"), ct.num("to"));
                if let (Some(last), Some(to)) = (atlas_frames.map(|n| n - 1.0), to) {
                    if to > last {
                        self.err(
                            &val_sp(f, ct, "to", head),
                            Code::BadValue,
                            &format!("{key}.clips.{name}.to"),
                            format!(
                                "to ({to}) is past the atlas's last frame ({last}): the sprite \
                                 has {} frames, counted from 0",
                                last + 1.0
                            ),
                        );
                    }
                }
                let count = match (from, to) {
                    (Some(a), Some(b)) if b >= a => Some(b - a + 1.0),
                    _ => None,
                };
                clip_frames.push((name.to_string(), count));
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
                            let at = val_sp(f, *et, "clip", head);
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
                    let at = key_sp(f, *et, "frame", head);
                    self.err(
                        &at,
                        Code::BadValue,
                        &format!("{ekey}.frame"),
                        "`frame` is a sprite's; a glTF event takes `time`".into(),
                    );
                }
                // A sprite event's frame counts from the clip's first, below its count of
                // frames: the event's clip, else the animation's, else (a sprite without
                // clips) the one clip of every frame.
                if let (true, Some(frame)) = (sprite, et.num("frame")) {
                    let clip = et.str("clip").or(t.str("clip"));
                    let count = match clip {
                        Some(c) => clip_frames
                            .iter()
                            .find(|(n, _)| n == c)
                            .and_then(|(_, n)| *n)
                            .map(|n| (n, format!("clip \"{c}\""))),
                        None if one_clip_sprite => {
                            atlas_frames.map(|n| (n, "the sprite's one clip".to_string()))
                        }
                        None => None,
                    };
                    if let Some((n, what)) = count.filter(|(n, _)| frame >= *n) {
                        self.err(
                            &val_sp(f, *et, "frame", head),
                            Code::BadValue,
                            &format!("{ekey}.frame"),
                            format!(
                                "frame {frame} is past {what}: it has {n} frames, so an event's \
                                 frame is 0 to {}",
                                n - 1.0
                            ),
                        );
                    }
                }
            }
        }
    }
}
