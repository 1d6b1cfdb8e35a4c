//! The rules that tie a table's keys together ([`Rule`]): what one key's value allows of
//! another, a tunable's type and range, a camera's projection.

use super::*;

impl Ctx {
    pub(super) fn rule(&mut self, f: usize, t: Tbl, rule: Rule, key: &str, head: &Sp) {
        let k = |n: &str| format!("{key}.{n}");
        let vsp = |n: &str| val_sp(f, t, n, head);
        let ksp = |n: &str| key_sp(f, t, n, head);
        match rule {
            Rule::Tunable => self.tunable(f, t, key, head),
            Rule::Object => {
                if t.has("prefab") {
                    for (name, ks, _) in t.entries() {
                        if !schema::PLACEMENT_KEYS.contains(&name) {
                            let at = Sp::or(f, ks, head);
                            self.err(
                                &at,
                                Code::PlacementKey,
                                &k(name),
                                format!(
                                    "a prefab placement takes only {}; `{name}` is for an object with a mesh",
                                    schema::PLACEMENT_KEYS.join(", ")
                                ),
                            );
                        }
                    }
                } else {
                    if !t.has("mesh") {
                        self.err(
                            head,
                            Code::MissingKey,
                            &k("mesh"),
                            "an object without prefab needs `mesh`".into(),
                        );
                    }
                    if t.has("set") {
                        self.err(
                            &ksp("set"),
                            Code::BadValue,
                            &k("set"),
                            "`set` overrides a placed prefab's keys; this object places no prefab"
                                .into(),
                        );
                    }
                }
                if let Some(n) = t.get("clip").map(|c| c.elems().len()) {
                    if n > 2 {
                        self.err(
                            &vsp("clip"),
                            Code::BadValue,
                            &k("clip"),
                            format!("{n} clip planes; an object takes at most two"),
                        );
                    }
                }
                if t.has("body") && t.has("character") {
                    self.err(
                        &ksp("character"),
                        Code::BadValue,
                        &k("character"),
                        "an object takes a character or a body, not both".into(),
                    );
                }
                if t.bool("dynamic") == Some(false) {
                    for what in ["character", "animation"] {
                        if t.has(what) {
                            self.err(
                                &vsp("dynamic"),
                                Code::BadValue,
                                &k("dynamic"),
                                format!("an object with [object.{what}] is dynamic; it refuses dynamic = false"),
                            );
                        }
                    }
                }
                if t.bool("face_camera") == Some(true) {
                    for what in ["body", "character"] {
                        if t.has(what) {
                            self.err(
                                &ksp(what),
                                Code::BadValue,
                                &k(what),
                                format!("a camera-facing card takes no {what}"),
                            );
                        }
                    }
                }
            }
            Rule::Character => {
                let r = t.num("radius");
                let h = t.num("height");
                if let (Some(r), Some(h)) = (r, h) {
                    if h < 2.0 * r {
                        self.err(
                            &vsp("height"),
                            Code::BadValue,
                            &k("height"),
                            format!("height {h} is below 2 · radius ({})", 2.0 * r),
                        );
                    }
                }
                if let (Some(s), Some(h)) = (t.num("max_step"), h) {
                    if s >= h {
                        self.err(
                            &vsp("max_step"),
                            Code::BadValue,
                            &k("max_step"),
                            format!("max_step {s} is not below height {h}"),
                        );
                    }
                }
            }
            Rule::Animation => self.animation(f, t, key, head),
            Rule::Event => match (t.has("time"), t.has("frame")) {
                (false, false) => self.err(
                    head,
                    Code::MissingKey,
                    &k("time"),
                    "an event needs `time` or `frame`".into(),
                ),
                (true, true) => self.err(
                    &ksp("frame"),
                    Code::BadValue,
                    &k("frame"),
                    "an event takes `time` or `frame`, not both".into(),
                ),
                _ => {}
            },
            Rule::Clip => {
                if let (Some(a), Some(b)) = (t.num("from"), t.num("to")) {
                    if b < a {
                        self.err(
                            &vsp("to"),
                            Code::BadValue,
                            &k("to"),
                            format!("to ({b}) is below from ({a})"),
                        );
                    }
                }
            }
            Rule::Mover => {
                if let Some(a) = t.nums("axis") {
                    if a.len() == 3 && a.iter().all(|c| *c == 0.0) {
                        self.err(
                            &vsp("axis"),
                            Code::BadValue,
                            &k("axis"),
                            "the axis may not be zero".into(),
                        );
                    }
                }
                if let Some(o) = t.get("objects") {
                    if is_array(&o) && o.elems().is_empty() {
                        self.err(
                            &vsp("objects"),
                            Code::BadValue,
                            &k("objects"),
                            "a mover moves at least one object".into(),
                        );
                    }
                }
                if let Some(n) = t.get("clip").map(|c| c.elems().len()) {
                    if n > 2 {
                        self.err(
                            &vsp("clip"),
                            Code::BadValue,
                            &k("clip"),
                            format!("{n} clip planes; a mover takes at most two"),
                        );
                    }
                }
            }
            Rule::Rig => {
                if t.has("snap") && !t.has("orthographic") {
                    self.err(
                        &ksp("snap"),
                        Code::BadValue,
                        &k("snap"),
                        "`snap` is for an orthographic follow rig; give `orthographic`".into(),
                    );
                }
                if let Some(p) = t.nums("pitch") {
                    if p.len() == 2 && p[0] > p[1] {
                        self.err(
                            &vsp("pitch"),
                            Code::BadValue,
                            &k("pitch"),
                            format!("pitch min {} is above max {}", p[0], p[1]),
                        );
                    }
                }
            }
            Rule::Bounds => {
                if let (Some(a), Some(b)) = (t.nums("min"), t.nums("max")) {
                    if a.len() == 3 && b.len() == 3 && (0..3).any(|i| a[i] > b[i]) {
                        self.err(
                            &vsp("max"),
                            Code::BadValue,
                            &k("max"),
                            "min is above max on an axis".into(),
                        );
                    }
                }
            }
            Rule::Tiles => self.tiles(f, t, key, head),
            Rule::Sun => {
                if let Some(a) = t.nums("toward") {
                    if a.len() == 3 && a.iter().all(|c| *c == 0.0) {
                        self.err(
                            &vsp("toward"),
                            Code::BadValue,
                            &k("toward"),
                            "toward may not be zero".into(),
                        );
                    }
                }
            }
            Rule::Sky => {
                if t.str("kind") == Some("mix") {
                    let n = t.get("layer").map(|l| l.tables().len()).unwrap_or(0);
                    if !t.has("layer") {
                        self.err(
                            head,
                            Code::MissingKey,
                            &k("layer"),
                            "a mix sky needs two or more [[sky.layer]]".into(),
                        );
                    } else if n < 2 {
                        self.err(
                            &ksp("layer"),
                            Code::BadValue,
                            &k("layer"),
                            format!("a mix sky needs two or more layers, has {n}"),
                        );
                    }
                }
            }
            Rule::Prepare => {
                if t.len() == 0 {
                    self.err(
                        head,
                        Code::MissingKey,
                        key,
                        "[sky.prepare] needs at least one of cap, balance, mean".into(),
                    );
                }
            }
            Rule::Haze => {
                if let (Some(a), Some(b)) = (t.nums("lo"), t.nums("hi")) {
                    if a.len() == 3 && b.len() == 3 && (0..3).any(|i| a[i] >= b[i]) {
                        self.err(
                            &vsp("hi"),
                            Code::BadValue,
                            &k("hi"),
                            "lo must be below hi on every axis".into(),
                        );
                    }
                }
            }
            Rule::Camera => self.camera(f, t, key, head),
            Rule::Finish => {
                if t.has("file") {
                    for (name, ks, _) in t.entries() {
                        if name != "file" && name != "pass" {
                            let at = Sp::or(f, ks, head);
                            self.err(&at, Code::BadValue, &k(name), format!("[finish] with `file` holds no inline key; `{name}` belongs in the finish file or a [[finish.pass]]"));
                        }
                    }
                }
            }
            Rule::FinishPass => {
                for name in ["style", "seed", "frame"] {
                    if t.has(name) {
                        self.err(
                            &ksp(name),
                            Code::BadValue,
                            &k(name),
                            format!("`{name}` is the chain's, not a pass's"),
                        );
                    }
                }
                let builds = t
                    .entries()
                    .iter()
                    .any(|(n, _, v)| !(*n == "encode" && v.bool() == Some(false)));
                if !builds {
                    self.err(
                        head,
                        Code::BadValue,
                        key,
                        "a [[finish.pass]] must build a pass (it is empty, or only encode = false)"
                            .into(),
                    );
                }
            }
            Rule::Lut => {
                if let (Some(size), Some(vals)) = (t.num("size"), t.get("values")) {
                    let want = (size as i64).clamp(0, 64).pow(3) * 3;
                    let got = vals.elems().len() as i64;
                    if is_array(&vals) && got != want {
                        self.err(
                            &vsp("values"),
                            Code::BadValue,
                            &k("values"),
                            format!(
                                "a lut of size {size} takes {want} values (size³ · 3), has {got}"
                            ),
                        );
                    }
                }
            }
            Rule::Plates => {
                if t.str("casters") == Some("proxies") && !t.has("proxies") {
                    self.err(
                        &vsp("casters"),
                        Code::BadValue,
                        &k("casters"),
                        "casters = \"proxies\" needs `proxies`".into(),
                    );
                }
            }
            Rule::Material => {
                if let Some(l) = t.get("layers") {
                    let n = l.tables().len();
                    if n > 4 {
                        self.err(
                            &ksp("layers"),
                            Code::BadValue,
                            &k("layers"),
                            format!("{n} noise layers; a material takes at most four"),
                        );
                    }
                }
            }
            Rule::Proxy => {
                let npoints = t.get("points").map(|p| p.elems().len());
                for (name, n) in [
                    ("points", npoints),
                    ("triangles", t.get("triangles").map(|p| p.elems().len())),
                ] {
                    if let Some(n) = n {
                        if n < 4 {
                            self.err(
                                &vsp(name),
                                Code::BadValue,
                                &k(name),
                                format!("a hull needs at least four {name}, has {n}"),
                            );
                        }
                    }
                }
                if let (Some(np), Some(tris)) = (npoints, t.get("triangles")) {
                    for (i, tri) in tris.elems().iter().enumerate() {
                        for c in tri.elems() {
                            if let Some(v) = c.num() {
                                if v < 0.0 || v >= np as f64 {
                                    let at = Sp::or(f, c.span(), head);
                                    self.err(
                                        &at,
                                        Code::BadValue,
                                        &format!("{key}.triangles.{i}"),
                                        format!(
                                            "corner {v} is past the last point ({})",
                                            np.saturating_sub(1)
                                        ),
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    pub(super) fn tunable(&mut self, f: usize, t: Tbl, key: &str, head: &Sp) {
        let Some(ty) = t.str("type") else { return };
        let k = |n: &str| format!("{key}.{n}");
        let mut vals: Vec<(&str, Vec<f64>)> = Vec::new();
        for name in ["default", "min", "max"] {
            let Some(node) = t.get(name) else { continue };
            let at = val_sp(f, t, name, head);
            if ty == "bool" {
                if name != "default" {
                    self.err(
                        &at,
                        Code::BadValue,
                        &k(name),
                        format!("a bool tunable takes no `{name}`"),
                    );
                } else if node.bool().is_none() {
                    self.err(
                        &at,
                        Code::BadType,
                        &k(name),
                        format!(
                            "expected true or false (the tunable's type), found {}",
                            found(&node)
                        ),
                    );
                }
                continue;
            }
            let v: Option<Vec<f64>> = match ty {
                "float" => node.num().map(|v| vec![v]),
                "int" => match node.val() {
                    Some(Value::Integer(i)) => Some(vec![*i.value() as f64]),
                    _ => None,
                },
                _ => node.nums().filter(|v| v.len() == 3),
            };
            match v {
                None => {
                    let what = match ty {
                        "float" => "a number",
                        "int" => "an integer",
                        _ => "[x, y, z]",
                    };
                    self.err(
                        &at,
                        Code::BadType,
                        &k(name),
                        format!(
                            "expected {what} (the tunable's type), found {}",
                            found(&node)
                        ),
                    );
                }
                Some(v) if v.iter().any(|c| !c.is_finite()) => self.err(
                    &at,
                    Code::BadValue,
                    &k(name),
                    "the value is not finite".into(),
                ),
                Some(v) => vals.push((name, v)),
            }
        }
        let get = |n: &str| vals.iter().find(|(m, _)| *m == n).map(|(_, v)| v.clone());
        let (d, lo, hi) = (get("default"), get("min"), get("max"));
        let above = |a: &[f64], b: &[f64]| a.iter().zip(b).any(|(x, y)| x > y);
        if let (Some(lo), Some(hi)) = (&lo, &hi) {
            if above(lo, hi) {
                self.err(
                    &val_sp(f, t, "min", head),
                    Code::BadValue,
                    &k("min"),
                    "min is above max".into(),
                );
                return;
            }
        }
        if let Some(d) = &d {
            if lo.as_ref().is_some_and(|lo| above(lo, d))
                || hi.as_ref().is_some_and(|hi| above(d, hi))
            {
                self.err(
                    &val_sp(f, t, "default", head),
                    Code::BadValue,
                    &k("default"),
                    "default lies outside min and max".into(),
                );
            }
        }
    }

    pub(super) fn camera(&mut self, f: usize, t: Tbl, key: &str, head: &Sp) {
        let k = |n: &str| format!("{key}.{n}");
        let vsp = |n: &str| val_sp(f, t, n, head);
        let ksp = |n: &str| key_sp(f, t, n, head);
        let persp = t.str("projection").unwrap_or("perspective") == "perspective";
        if persp {
            if t.has("fov") && t.has("focal") {
                self.err(
                    &ksp("focal"),
                    Code::BadValue,
                    &k("focal"),
                    "`focal` is instead of `fov`; give one of them".into(),
                );
            }
            if t.has("sensor") && !t.has("focal") && !t.has("fov") {
                self.err(
                    &ksp("sensor"),
                    Code::BadValue,
                    &k("sensor"),
                    "`sensor` goes with `focal`; without focal it needs fov".into(),
                );
            }
            if t.has("focus") && !t.has("fstop") {
                self.err(
                    &ksp("focus"),
                    Code::BadValue,
                    &k("focus"),
                    "`focus` goes with `fstop`".into(),
                );
            }
        }
        let near = t.num("near").unwrap_or(0.05);
        if let Some(far) = t.num("far") {
            if far <= near {
                self.err(
                    &vsp("far"),
                    Code::BadValue,
                    &k("far"),
                    format!("far ({far}) must be above near ({near})"),
                );
            }
        }
        let v3 = |n: &str, d: [f64; 3]| match t.nums(n) {
            Some(v) if v.len() == 3 => Some([v[0], v[1], v[2]]),
            Some(_) => None,
            None => Some(d),
        };
        let (Some(at), Some(look), Some(up)) = (
            v3("at", [0.0, 0.0, 5.0]),
            v3("look_at", [0.0; 3]),
            v3("up", [0.0, 1.0, 0.0]),
        ) else {
            return;
        };
        let dir = [look[0] - at[0], look[1] - at[1], look[2] - at[2]];
        let dl = (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]).sqrt();
        if dl.is_nan() || dl <= 0.0 {
            let name = if t.has("look_at") { "look_at" } else { "at" };
            self.err(
                &vsp(name),
                Code::BadValue,
                &k(name),
                "at and look_at are the same point: the camera looks nowhere".into(),
            );
            return;
        }
        let ul = (up[0] * up[0] + up[1] * up[1] + up[2] * up[2]).sqrt();
        let c = [
            dir[1] * up[2] - dir[2] * up[1],
            dir[2] * up[0] - dir[0] * up[2],
            dir[0] * up[1] - dir[1] * up[0],
        ];
        let cl = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
        // sin of the angle between up and the view below 1e-6: no frame can be built.
        if ul.is_nan() || ul <= 0.0 || cl.is_nan() || cl <= 1e-6 * dl * ul {
            let name = if t.has("up") { "up" } else { "look_at" };
            self.err(
                &vsp(name),
                Code::BadValue,
                &k(name),
                "up lies along the view direction (or is zero)".into(),
            );
        }
    }
}
