//! Reading: one file read, parsed and walked against its kind's schema (a format 0 file
//! through the migration), project.toml's layers, and a unit's includes and libraries.

use super::*;

impl Loader {
    /// Reads, parses and walks one file; returns its index when it is format 1 and parsed.
    pub(super) fn read_uncached(
        &mut self,
        rel: &Path,
        kind: FileKind,
        named_at: Option<SetBy>,
    ) -> Option<usize> {
        let bytes = match self.ctx.overlay.get(rel) {
            Some(b) => Ok(b.clone()),
            None => std::fs::read(self.ctx.root.join(rel)),
        };
        let bytes = match bytes {
            Ok(b) => b,
            Err(e) => {
                match named_at {
                    Some((sp, key)) => self.ctx.err(
                        &sp,
                        Code::Unreadable,
                        &key,
                        format!("can't read `{}`: {e}", rel.display()),
                    ),
                    None => {
                        self.ctx.srcs.push(Src::new(rel.to_path_buf(), Vec::new()));
                        self.docs.push(None);
                        let f = self.ctx.srcs.len() - 1;
                        self.ctx.err(
                            &Sp {
                                file: f,
                                span: 0..0,
                            },
                            Code::Unreadable,
                            "",
                            format!("can't read `{}`: {e}", rel.display()),
                        );
                    }
                }
                return None;
            }
        };
        self.ctx
            .srcs
            .push(Src::new(rel.to_path_buf(), bytes.clone()));
        self.docs.push(None);
        let f = self.ctx.srcs.len() - 1;
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                self.ctx.err(
                    &Sp {
                        file: f,
                        span: at..at + 1,
                    },
                    Code::NotUtf8,
                    "",
                    format!("`{}` is not UTF-8", rel.display()),
                );
                return None;
            }
        };
        let doc = match ImDocument::parse(text) {
            Ok(d) => d,
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                let msg = e.message().trim().replace('\n', "; ");
                self.ctx.err(
                    &Sp { file: f, span },
                    Code::Syntax,
                    "",
                    format!("not valid TOML: {msg}"),
                );
                return None;
            }
        };
        let top = Tbl::Table(doc.as_table());
        let whole = Sp {
            file: f,
            span: 0..0,
        };
        if kind != FileKind::Finish {
            let fmt = top.get("format");
            let fsp = fmt
                .and_then(|n| n.val().and_then(|v| v.span()))
                .map(|span| Sp { file: f, span })
                .unwrap_or_else(|| whole.clone());
            let version = match fmt {
                None => Some(0),
                Some(n) => match n.val() {
                    Some(toml_edit::Value::Integer(i)) => Some(*i.value()),
                    _ => None,
                },
            };
            match version {
                None => {
                    self.ctx.err(
                        &fsp,
                        Code::BadType,
                        "format",
                        "expected the integer 1".into(),
                    );
                    return None;
                }
                Some(0) => {
                    // --- format 0: read through the in-memory migration (scene::migrate) ---
                    let original = doc.raw().to_string();
                    let (doc, map) =
                        crate::scene::migrate::read_format0(&mut self.ctx, f, kind, &original)?;
                    self.migrated.insert(rel.to_path_buf(), map);
                    let top = Tbl::Table(doc.as_table());
                    if kind == FileKind::Project {
                        self.project_layers(top, f);
                    }
                    self.ctx.walk(f, top, kind.schema(), "", "", &whole, None);
                    self.docs[f] = Some(doc);
                    return Some(f);
                    // --- end of the format 0 hook ---
                }
                Some(v) if v > FORMAT => {
                    self.ctx.err(
                        &fsp,
                        Code::NewerFormat,
                        "format",
                        format!("format {v} is newer than this reader knows (format {FORMAT})"),
                    );
                    return None;
                }
                Some(v) if v < 0 => {
                    self.ctx.err(
                        &fsp,
                        Code::BadValue,
                        "format",
                        format!("format {v} is no format; this reader knows format {FORMAT}"),
                    );
                    return None;
                }
                Some(_) => {}
            }
        }
        if kind == FileKind::Project {
            self.project_layers(top, f);
        }
        self.ctx.walk(f, top, kind.schema(), "", "", &whole, None);
        self.docs[f] = Some(doc);
        Some(f)
    }

    /// Takes the project's layer names before anything names one, and checks [layers]' own
    /// shape rules (at most 32, symmetric, no name twice in a list).
    pub(super) fn project_layers(&mut self, top: Tbl, f: usize) {
        let Some(node) = top.get("layers") else {
            return;
        };
        let Some(t) = node.tbl() else {
            // A [layers] of the wrong shape: the scene's layer names go unchecked.
            self.ctx.check_layers = false;
            return;
        };
        let entries = t.entries();
        let names: Vec<String> = entries.iter().map(|(n, _, _)| n.to_string()).collect();
        self.ctx.layers = Some(names.clone());
        let lists: BTreeMap<&str, Vec<String>> = entries
            .iter()
            .map(|(n, _, v)| {
                (
                    *n,
                    v.elems()
                        .iter()
                        .filter_map(|e| e.str().map(String::from))
                        .collect(),
                )
            })
            .collect();
        for (i, (name, ks, v)) in entries.iter().enumerate() {
            let kat = Sp {
                file: f,
                span: ks.clone().unwrap_or(0..0),
            };
            if i == 32 {
                self.ctx.err(
                    &kat,
                    Code::BadValue,
                    &format!("layers.{name}"),
                    "a 33rd layer: a project has at most 32".into(),
                );
            }
            if name.is_empty()
                || name.starts_with(char::is_whitespace)
                || name.ends_with(char::is_whitespace)
            {
                self.ctx.err(
                    &kat,
                    Code::BadName,
                    &format!("layers.{name}"),
                    format!("layer name \"{name}\" is empty or has a space at an end"),
                );
            }
            let mut seen: Vec<&str> = Vec::new();
            for (j, e) in v.elems().iter().enumerate() {
                let Some(other) = e.str() else { continue };
                let at = Sp {
                    file: f,
                    span: e.span().unwrap_or(kat.span.clone()),
                };
                let key = format!("layers.{name}.{j}");
                if seen.contains(&other) {
                    self.ctx.err(
                        &at,
                        Code::BadValue,
                        &key,
                        format!("\"{other}\" is listed twice"),
                    );
                }
                seen.push(other);
                if let Some(back) = lists.get(other) {
                    if !back.iter().any(|b| b == name) {
                        self.ctx.err(&at, Code::BadValue, &key, format!("{name} lists {other}, but {other} does not list {name}: meeting goes both ways"));
                    }
                }
            }
        }
    }

    /// Reads a file once: a second call for the same path returns the first call's result
    /// (and reports nothing again), so a file that several units name is walked once and its
    /// ids count once.
    pub(super) fn read(
        &mut self,
        rel: &Path,
        kind: FileKind,
        named_at: Option<SetBy>,
    ) -> Option<usize> {
        if let Some(r) = self.cache.get(rel) {
            return *r;
        }
        let r = self.read_uncached(rel, kind, named_at);
        self.cache.insert(rel.to_path_buf(), r);
        r
    }

    /// The paths file `f` names under diagnostic keys starting with `prefix`, that passed
    /// their checks, in the order written.
    pub(super) fn named(&self, f: usize, prefix: &str) -> Vec<(String, Sp, PathBuf)> {
        self.ctx
            .ok_paths
            .iter()
            .filter(|(pf, k, _, _)| *pf == f && k.starts_with(prefix))
            .map(|(_, k, sp, p)| (k.clone(), sp.clone(), p.clone()))
            .collect()
    }

    /// Reads the includes of `main`, depth first, and returns the files in merge order. The
    /// chain of files being read is a stack on the heap, never the call stack, so any depth
    /// of input costs the same stack; a 65th link or a cycle is refused at its include key.
    pub(super) fn includes(&mut self, main: usize, kind: FileKind) -> Vec<usize> {
        struct Frame {
            f: usize,
            incs: Vec<(String, Sp, PathBuf)>,
            next: usize,
            /// The include that brought this file in.
            via: Option<Sp>,
        }
        let mut order: Vec<usize> = Vec::new();
        let mut stack = vec![Frame {
            f: main,
            incs: self.named(main, "include."),
            next: 0,
            via: None,
        }];
        while let Some(top) = stack.last_mut() {
            if top.next >= top.incs.len() {
                let f = top.f;
                stack.pop();
                if !order.contains(&f) {
                    order.push(f);
                }
                continue;
            }
            let (key, sp, path) = top.incs[top.next].clone();
            top.next += 1;
            let cycle = stack.iter().any(|fr| self.ctx.srcs[fr.f].rel == path);
            // The scene is depth 0, so this include is `stack.len()` deep.
            if cycle || stack.len() > MAX_DEPTH {
                let mut names: Vec<String> = stack
                    .iter()
                    .map(|fr| self.ctx.srcs[fr.f].rel.display().to_string())
                    .collect();
                names.push(path.display().to_string());
                let mut related: Vec<Location> = stack
                    .iter()
                    .filter_map(|fr| fr.via.as_ref())
                    .map(|s| self.ctx.loc(s))
                    .collect();
                related.push(self.ctx.loc(&sp));
                let (code, msg) = if cycle {
                    (
                        Code::IncludeCycle,
                        format!(
                            "`{}` includes itself: {}",
                            path.display(),
                            names.join(" → ")
                        ),
                    )
                } else {
                    (
                        Code::IncludeDepth,
                        format!(
                            "includes nest more than {MAX_DEPTH} deep: {}",
                            names.join(" → ")
                        ),
                    )
                };
                self.ctx
                    .report(Severity::Error, &sp, code, &key, msg, related);
                continue;
            }
            let Some(f) = self.read(&path, kind, Some((sp.clone(), key))) else {
                continue;
            };
            // A file two includes of the unit name (a diamond) is merged once, at its first.
            if order.contains(&f) {
                continue;
            }
            let incs = self.named(f, "include.");
            stack.push(Frame {
                f,
                incs,
                next: 0,
                via: Some(sp),
            });
        }
        order
    }

    /// A scene or prefab with its includes and the libraries they name, read.
    pub(super) fn unit(&mut self, main: usize, kind: FileKind) -> Unit {
        let files = self.includes(main, kind);
        let mut libs = Vec::new();
        for &f in &files {
            for (key, sp, path) in self.named(f, "materials.") {
                if let Some(l) = self.read(&path, FileKind::Materials, Some((sp, key))) {
                    if !libs.contains(&l) {
                        libs.push(l);
                    }
                }
            }
        }
        Unit {
            rel: self.ctx.srcs[main].rel.clone(),
            files,
            libs,
            extra: Vec::new(),
            index: Index::default(),
        }
    }

    /// The scene's unit (its includes and libraries, and its proxies file), then every
    /// prefab placed anywhere below it, each with its includes, read once (a worklist, not
    /// recursion): the units, each placed prefab's unit by its path (`None` when it did not
    /// read), and the proxies file. Cycles and depth are the expansion's to refuse.
    #[allow(clippy::type_complexity)]
    pub(super) fn units(
        &mut self,
        scene_f: usize,
        top: FileKind,
    ) -> (Vec<Unit>, HashMap<PathBuf, Option<usize>>, Option<usize>) {
        let mut units = vec![self.unit(scene_f, top)];
        let mut proxies_f = None;
        for f in units[0].files.clone() {
            for (key, sp, path) in self.named(f, "plates.proxies") {
                proxies_f = self.read(&path, FileKind::Proxies, Some((sp, key)));
            }
        }
        units[0].extra.extend(proxies_f);
        // The finish file: read and checked here, its keys taken into the model's `finish`.
        for f in units[0].files.clone() {
            for (key, sp, path) in self.named(f, "finish.file") {
                self.read(&path, FileKind::Finish, Some((sp, key)));
            }
        }
        let mut unit_of: HashMap<PathBuf, Option<usize>> = HashMap::new();
        let alone = top == FileKind::Prefab;
        if alone {
            // A prefab that places itself, nearer or farther down, is this unit again.
            unit_of.insert(units[0].rel.clone(), Some(0));
        }
        let mut u = 0;
        while u < units.len() {
            for f in units[u].files.clone() {
                let places = self
                    .named(f, "object.")
                    .into_iter()
                    .filter(|(k, _, _)| k.ends_with(".prefab"));
                let tiles = self
                    .named(f, "tiles.")
                    .into_iter()
                    .filter(|(k, _, _)| k.contains(".palette."));
                for (key, sp, path) in places.chain(tiles).collect::<Vec<_>>() {
                    if unit_of.contains_key(&path) {
                        continue;
                    }
                    let made = self
                        .read(&path, FileKind::Prefab, Some((sp, key)))
                        .map(|pf| {
                            let un = self.unit(pf, FileKind::Prefab);
                            units.push(un);
                            units.len() - 1
                        });
                    unit_of.insert(path, made);
                }
            }
            u += 1;
        }

        (units, unit_of, proxies_f)
    }
}
