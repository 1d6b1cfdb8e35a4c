//! A whole project: the files found under its root by their names, and the check of all of
//! them together (the format's `Project::open` and `Project::check`), plus the one-file check
//! `bake check FILE` runs.
//!
//! What a scene reads is checked by [`load`](super::load), the one reader; this module only
//! decides which files to hand it and which to check on their own, and merges the findings.
//! To decide that it looks at the few keys that name other files (`include`, `materials`,
//! `[plates] proxies`) with a light parse of its own; that parse reports nothing, so a file it
//! can't read is still reported once, by the reader.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Component, Path, PathBuf};

use toml_edit::ImDocument;

use super::diagnostic::{Code, Diagnostic, Location, Severity};
use super::load::{check_across, check_file, load, load_prefab, root_of};
use super::model::Scene;
use super::schema::FileKind;

/// A file found under a project root, by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProjectFile {
    /// Relative to the project root.
    pub path: PathBuf,
    /// The kind its name gives.
    pub kind: FileKind,
}

/// A project opened at its root: the files [`Project::open`] found, sorted by path.
#[derive(Clone, Debug)]
pub struct Project {
    root: PathBuf,
    files: Vec<ProjectFile>,
    /// Folders found but not readable, reported by [`Project::check`].
    problems: Vec<Diagnostic>,
}

/// What a check looked at and what it found.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The project root the diagnostics' files are relative to (absolute).
    pub root: PathBuf,
    /// Every file checked, relative to the root, sorted: the files found and those they read.
    pub files: Vec<PathBuf>,
    /// The findings, de-duplicated and sorted by file, line and column.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// How many findings are errors.
    pub fn errors(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// How many findings are warnings.
    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }
}

/// The kind of file a name gives: `project.toml`, `*.scene.toml` (and a format 0
/// `scene.toml`), `*.prefab.toml`, `*.materials.toml` and `*.proxies.toml`. Any other name
/// (a format 0 `materials.toml`, a finish file) has no kind of its own: such a file is read
/// only when a scene names it.
pub fn kind_of(path: &Path) -> Option<FileKind> {
    let name = path.file_name()?.to_str()?;
    if name == "project.toml" {
        Some(FileKind::Project)
    } else if name == "scene.toml" || name.ends_with(".scene.toml") {
        Some(FileKind::Scene)
    } else if name.ends_with(".prefab.toml") {
        Some(FileKind::Prefab)
    } else if name.ends_with(".materials.toml") {
        Some(FileKind::Materials)
    } else if name.ends_with(".proxies.toml") {
        Some(FileKind::Proxies)
    } else {
        None
    }
}

/// The project root of a folder: the nearest folder, from `dir` itself upward, that holds a
/// project.toml; without one, `dir` itself. Absolute, canonicalised where possible.
pub fn root_of_folder(dir: &Path) -> PathBuf {
    let start = dir
        .canonicalize()
        .or_else(|_| std::path::absolute(dir))
        .unwrap_or_else(|_| dir.to_path_buf());
    let mut at: Option<&Path> = Some(&start);
    while let Some(d) = at {
        if d.join("project.toml").is_file() {
            return d.to_path_buf();
        }
        at = d.parent();
    }
    start
}

impl Project {
    /// The files of one kind, and every file they include (a file another file of the kind
    /// includes is resolved through its includer, not as a top unit).
    fn of_kind<'p>(
        &'p self,
        kind: FileKind,
        scan: &mut Scan,
    ) -> (Vec<&'p PathBuf>, BTreeSet<PathBuf>) {
        let files: Vec<&PathBuf> = self
            .files
            .iter()
            .filter(|f| f.kind == kind)
            .map(|f| &f.path)
            .collect();
        let included = files
            .iter()
            .flat_map(|p| scan.names(p).includes.clone())
            .collect();
        (files, included)
    }

    /// Finds the files under `root` by their names (see [`kind_of`]). It skips the root's own
    /// `target` and `tmp` folders (a `levels/tmp` is read), the paths project.toml's
    /// `[project] ignore` lists, every file and folder whose name starts with a dot, and
    /// folders that hold their own project.toml (nested projects). Symbolic links to folders
    /// are not followed (a link can loop or leave the root). Err when `root` is not a readable
    /// folder; a subfolder that can't be read is reported by [`Project::check`].
    // The spec's signature: one diagnostic, on a path that is opened once.
    #[allow(clippy::result_large_err)]
    pub fn open(root: &Path) -> Result<Project, Diagnostic> {
        let unreadable = |message: String| unreadable(root.to_path_buf(), message);
        let abs = root
            .canonicalize()
            .map_err(|e| unreadable(format!("can't read the folder `{}`: {e}", root.display())))?;
        if !abs.is_dir() {
            return Err(unreadable(format!("`{}` is not a folder", root.display())));
        }
        let ignore = ignored_paths(&abs);
        let mut files = Vec::new();
        let mut problems = Vec::new();
        // The folders still to read, relative to the root: a queue on the heap, so any depth
        // of folders needs the same stack.
        let mut todo: VecDeque<PathBuf> = VecDeque::from([PathBuf::new()]);
        while let Some(dir) = todo.pop_front() {
            let entries = match std::fs::read_dir(abs.join(&dir)) {
                Ok(it) => it,
                Err(e) => {
                    if dir.as_os_str().is_empty() {
                        return Err(unreadable(format!(
                            "can't read the folder `{}`: {e}",
                            root.display()
                        )));
                    }
                    problems.push(folder_problem(&dir, &e));
                    continue;
                }
            };
            let mut names: Vec<(PathBuf, bool)> = Vec::new();
            for entry in entries {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        problems.push(folder_problem(&dir, &e));
                        continue;
                    }
                };
                let name = entry.file_name();
                if name.to_string_lossy().starts_with('.') {
                    continue;
                }
                let rel = dir.join(&name);
                if ignore.iter().any(|i| rel.starts_with(i)) {
                    continue;
                }
                // The link itself, not its target: a linked folder is not followed, a linked
                // file is read like any file.
                let Ok(ft) = entry.file_type() else {
                    continue;
                };
                let is_dir = ft.is_dir();
                let is_file = ft.is_file()
                    || (ft.is_symlink() && abs.join(&rel).metadata().is_ok_and(|m| m.is_file()));
                if is_dir {
                    if dir.as_os_str().is_empty() && (name == "target" || name == "tmp") {
                        continue;
                    }
                    if abs.join(&rel).join("project.toml").is_file() {
                        continue;
                    }
                    names.push((rel, true));
                } else if is_file {
                    names.push((rel, false));
                }
            }
            names.sort();
            for (rel, is_dir) in names {
                if is_dir {
                    todo.push_back(rel);
                } else if let Some(kind) = kind_of(&rel) {
                    // Only the root's project.toml is the project's; a nested one stops the walk
                    // before its folder is read.
                    files.push(ProjectFile { path: rel, kind });
                }
            }
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Project {
            root: abs,
            files,
            problems,
        })
    }

    /// The project root, absolute.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The files found, sorted by path.
    pub fn files(&self) -> &[ProjectFile] {
        &self.files
    }

    /// Reads and resolves one scene of the project, `file` relative to the root (or
    /// absolute), exactly as `bake` reads it: the same as [`load`].
    pub fn scene(&self, file: &Path) -> Result<Scene, Vec<Diagnostic>> {
        load(&self.root.join(file))
    }

    /// [`Project::scene`] with texts standing in for files (keys relative to the root): an
    /// editor's unsaved buffers, checked before they are written. A key that names no file
    /// on disk adds one.
    pub fn scene_with(
        &self,
        file: &Path,
        overlay: BTreeMap<PathBuf, String>,
    ) -> Result<Scene, Vec<Diagnostic>> {
        let overlay = overlay
            .into_iter()
            .map(|(k, v)| (k, v.into_bytes()))
            .collect();
        super::load::load_with(&self.root.join(file), overlay)
    }

    /// The root of the project holding `file`: the nearest folder upward with a
    /// project.toml, else the file's own folder (the same as [`root_of`]).
    pub fn root_of(file: &Path) -> PathBuf {
        root_of(file)
    }

    /// Checks the whole project (see [`Project::checked`]) and returns the findings.
    pub fn check(&self) -> Vec<Diagnostic> {
        self.checked().diagnostics
    }

    /// Checks every file [`Project::open`] found: each top scene (one no other scene includes,
    /// or one caught in an include cycle) with everything it reads, through the reader; each
    /// top prefab (one no other prefab includes) resolved alone as a unit, as a placement
    /// reads it, its findings not repeating the scenes'; each prefab another includes against
    /// its schema; each material library and proxies file that no
    /// scene reads on its own against its schema; project.toml. The findings are
    /// de-duplicated (a file two scenes read is reported once) and sorted by file, line and
    /// column.
    pub fn checked(&self) -> Checked {
        let mut diags = self.problems.clone();
        let mut checked: BTreeSet<PathBuf> = self.files.iter().map(|f| f.path.clone()).collect();
        let mut scan = Scan::new(&self.root);

        let (scenes, included) = self.of_kind(FileKind::Scene, &mut scan);
        // Files a checked scene reads, so that they are not checked a second time alone.
        let mut read: BTreeSet<PathBuf> = BTreeSet::new();
        // What each top scene reads: ids two of its files share are its own check's to report.
        let mut reads: Vec<BTreeSet<PathBuf>> = Vec::new();
        // Each top scene's objects that are not static (by key and id): a proxies file that
        // no scene names refers across the project, and its objects must still be static.
        let mut moving: Vec<SceneMoving> = Vec::new();
        for scene in &scenes {
            let top = !included.contains(*scene) || scan.in_cycle(scene);
            if !top {
                continue;
            }
            let mut mine = scan.reach(scene);
            let load_root = root_of(&self.root.join(scene));
            match load(&self.root.join(scene)) {
                Ok(s) => {
                    mine.extend(
                        s.files
                            .iter()
                            .map(|f| rebase_path(f, &load_root, &self.root)),
                    );
                    let dynamic = s.objects.iter().filter(|o| o.dynamic);
                    moving.push((
                        mine.clone(),
                        dynamic.map(|o| (o.key.clone(), o.id.clone())).collect(),
                    ));
                    diags.extend(
                        s.warnings
                            .into_iter()
                            .map(|d| rebase(d, &load_root, &self.root)),
                    );
                }
                Err(ds) => diags.extend(ds.into_iter().map(|d| rebase(d, &load_root, &self.root))),
            }
            read.extend(mine.iter().cloned());
            reads.push(mine);
        }
        diags.extend(self.across(&diags, &reads, &read, &moving));
        let prefabs = self.prefabs(&mut scan, &diags);
        diags.extend(prefabs);
        for f in &self.files {
            let alone = match f.kind {
                FileKind::Project => true,
                // A prefab another includes is a fragment: its includer resolves it, and it
                // is only checked against its schema here.
                FileKind::Prefab => {
                    self.files.iter().any(|o| {
                        o.kind == FileKind::Prefab && scan.names(&o.path).includes.contains(&f.path)
                    }) && !scan.in_cycle(&f.path)
                }
                FileKind::Materials | FileKind::Proxies => !read.contains(&f.path),
                FileKind::Scene | FileKind::Finish => false,
            };
            if alone {
                diags.extend(check_alone(&self.root, &f.path, f.kind));
            }
        }
        checked.extend(read.into_iter().filter(|p| self.root.join(p).is_file()));
        Checked {
            root: self.root.clone(),
            files: checked.into_iter().collect(),
            diagnostics: tidy(diags),
        }
    }
}

/// What one top scene reads, and its objects that are not static (by key and id).
type SceneMoving = (BTreeSet<PathBuf>, Vec<(String, Option<String>)>);

impl Project {
    /// Each prefab that no other prefab includes (or one caught in an include cycle) resolved
    /// alone as a unit ([`load_prefab`]), so that a prefab no scene places is still checked
    /// as a placement would read it. A finding already in `found` (the scenes' checks, which
    /// read the placed prefabs) or in an earlier prefab's, at the same place with the same code
    /// and key, is not repeated: a fault inside a prefab is one fault however many read it.
    fn prefabs(&self, scan: &mut Scan, found: &[Diagnostic]) -> Vec<Diagnostic> {
        type At = (PathBuf, u32, u32, &'static str, String);
        let at =
            |d: &Diagnostic| -> At { (d.file.clone(), d.line, d.column, d.code, d.key.clone()) };
        let mut seen: BTreeSet<At> = found.iter().map(at).collect();
        let (prefabs, included) = self.of_kind(FileKind::Prefab, scan);
        let mut out = Vec::new();
        for p in prefabs {
            if included.contains(p) && !scan.in_cycle(p) {
                continue;
            }
            let file = self.root.join(p);
            let load_root = root_of(&file);
            let mine: Vec<Diagnostic> = load_prefab(&file)
                .into_iter()
                .map(|d| rebase(d, &load_root, &self.root))
                .filter(|d| !seen.contains(&at(d)))
                .collect();
            seen.extend(mine.iter().map(at));
            out.extend(mine);
        }
        out
    }

    /// The project-wide checks ([`check_across`]): ids shared by files no one top scene reads
    /// together, and the references of proxies files no scene reads. `reads` holds what each
    /// top scene reads and `found` the findings so far: a use of an id a scene's own check
    /// already refused is not refused again (a scene that did not load may have read more
    /// than its scan shows).
    fn across(
        &self,
        found: &[Diagnostic],
        reads: &[BTreeSet<PathBuf>],
        read: &BTreeSet<PathBuf>,
        moving: &[SceneMoving],
    ) -> Vec<Diagnostic> {
        let files: Vec<(PathBuf, FileKind)> = self
            .files
            .iter()
            .map(|f| (f.path.clone(), f.kind))
            .collect();
        let together = |a: &Path, b: &Path| reads.iter().any(|r| r.contains(a) && r.contains(b));
        let lone: Vec<PathBuf> = self
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Proxies && !read.contains(&f.path))
            .map(|f| f.path.clone())
            .collect();
        let at = |d: &Diagnostic| (d.file.clone(), d.line, d.column);
        let reported: BTreeSet<(PathBuf, u32, u32)> = found
            .iter()
            .filter(|d| d.code == Code::DuplicateId)
            .map(at)
            .collect();
        // An object of `file`, by its name and id, that some top scene reading that file
        // resolves as dynamic (set, or derived from a mover, a parent or an animation).
        let dynamic = |file: &Path, name: Option<&str>, id: Option<&str>| {
            moving.iter().any(|(files, objs)| {
                files.contains(file)
                    && objs.iter().any(|(k, i)| {
                        Some(k.as_str()) == name || (id.is_some() && i.as_deref() == id)
                    })
            })
        };
        check_across(&self.root, &files, &together, &lone, &dynamic)
            .into_iter()
            .filter(|d| d.code != Code::DuplicateId || !reported.contains(&at(d)))
            .collect()
    }
}

/// Checks what `bake check PATH` names: a folder's whole project (its root is the nearest
/// folder upward holding a project.toml, else the folder itself), or one file. A scene file is
/// read as `bake` reads it, with everything it reads; a prefab is resolved alone as a unit, as
/// a placement reads it; a file of another kind is checked on its own against its schema; a file whose name gives no kind is read as a scene. A path that does
/// not exist, or a folder that can't be read, is one `unreadable` error.
pub fn check_path(path: &Path) -> Checked {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            let root = root_of_folder(path);
            match Project::open(&root) {
                Ok(p) => p.checked(),
                Err(d) => Checked {
                    root,
                    files: Vec::new(),
                    diagnostics: vec![d],
                },
            }
        }
        Ok(_) => check_one(path),
        Err(e) => {
            let file = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            Checked {
                root: file.parent().map(Path::to_path_buf).unwrap_or_default(),
                files: Vec::new(),
                diagnostics: vec![unreadable(
                    file,
                    format!("can't read `{}`: {e}", path.display()),
                )],
            }
        }
    }
}

/// Checks one file, found or not: see [`check_path`].
fn check_one(file: &Path) -> Checked {
    let root = root_of(file);
    let abs = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
    let rel = abs
        .strip_prefix(&root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| abs.file_name().map(PathBuf::from).unwrap_or_default());
    let kind = kind_of(&rel).unwrap_or(FileKind::Scene);
    // The reader reads project.toml first, whatever the file's kind.
    let mut files: BTreeSet<PathBuf> = BTreeSet::from([rel.clone(), PathBuf::from("project.toml")]);
    let diags = match kind {
        FileKind::Scene => {
            files.extend(Scan::new(&root).reach(&rel));
            match load(file) {
                Ok(s) => {
                    files.extend(s.files);
                    s.warnings
                }
                Err(ds) => ds,
            }
        }
        // A prefab alone is resolved as a unit, as a placement and `Project::check` read it,
        // so its references, includes and placements are checked too, not only its schema.
        FileKind::Prefab if file.is_file() => {
            files.extend(Scan::new(&root).reach(&rel));
            load_prefab(file)
        }
        other => check_alone(&root, &rel, other),
    };
    Checked {
        files: files
            .into_iter()
            .filter(|p| root.join(p).is_file())
            .collect(),
        root,
        diagnostics: tidy(diags),
    }
}

/// One file against its kind's schema, reading it here so that an unreadable file is one
/// `unreadable` error, worded as the reader words it.
fn check_alone(root: &Path, rel: &Path, kind: FileKind) -> Vec<Diagnostic> {
    match std::fs::read(root.join(rel)) {
        Ok(bytes) => check_file(root, rel, kind, &bytes),
        Err(e) => vec![unreadable(
            rel.to_path_buf(),
            format!("can't read `{}`: {e}", rel.display()),
        )],
    }
}

/// A subfolder that could not be listed.
fn folder_problem(dir: &Path, e: &std::io::Error) -> Diagnostic {
    unreadable(
        dir.to_path_buf(),
        format!("can't read the folder `{}`: {e}", dir.display()),
    )
}

/// An `unreadable` error for a whole file or folder: it has no line to point into, so 1:1.
fn unreadable(file: PathBuf, message: String) -> Diagnostic {
    Diagnostic {
        file,
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 1,
        severity: Severity::Error,
        code: Code::Unreadable.as_str(),
        key: String::new(),
        message,
        related: Vec::new(),
    }
}

/// The valid paths of project.toml's `[project] ignore`, normalised. A project.toml that
/// can't be read or parsed ignores nothing here; its own check reports why.
fn ignored_paths(root: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(root.join("project.toml")) else {
        return Vec::new();
    };
    let Ok(doc) = ImDocument::parse(text) else {
        return Vec::new();
    };
    let Some(list) = doc
        .get("project")
        .and_then(|p| p.get("ignore"))
        .and_then(|i| i.as_array())
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|v| v.as_str())
        .filter_map(normal)
        .filter(|p| !p.as_os_str().is_empty())
        .collect()
}

/// A root-relative path as the format writes it, normalised (`.` dropped, `a/..` folded), or
/// None when the format refuses it (empty, absolute, a backslash, leaving the root): the reader
/// reports those.
fn normal(s: &str) -> Option<PathBuf> {
    if s.is_empty() || s.contains('\\') || s.starts_with('/') {
        return None;
    }
    let mut out = PathBuf::new();
    for c in Path::new(s).components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// The files one scene file names.
#[derive(Clone, Debug, Default)]
struct Names {
    /// `include`.
    includes: Vec<PathBuf>,
    /// `materials` and `[plates] proxies`.
    others: Vec<PathBuf>,
}

/// The light parse of scenes' file-naming keys, each file parsed once.
struct Scan<'a> {
    root: &'a Path,
    cache: BTreeMap<PathBuf, Names>,
}

impl<'a> Scan<'a> {
    fn new(root: &'a Path) -> Scan<'a> {
        Scan {
            root,
            cache: BTreeMap::new(),
        }
    }

    /// What `scene` names; nothing when it can't be read or parsed.
    fn names(&mut self, scene: &Path) -> &Names {
        if !self.cache.contains_key(scene) {
            let names = std::fs::read_to_string(self.root.join(scene))
                .ok()
                .and_then(|t| ImDocument::parse(t).ok())
                .map(|doc| {
                    let paths = |v: Option<&toml_edit::Item>| -> Vec<PathBuf> {
                        match v {
                            Some(i) => match i.as_array() {
                                Some(a) => a
                                    .iter()
                                    .filter_map(|x| x.as_str())
                                    .filter_map(normal)
                                    .collect(),
                                None => i.as_str().and_then(normal).into_iter().collect(),
                            },
                            None => Vec::new(),
                        }
                    };
                    let mut others = paths(doc.get("materials"));
                    others.extend(paths(doc.get("plates").and_then(|p| p.get("proxies"))));
                    Names {
                        includes: paths(doc.get("include")),
                        others,
                    }
                })
                .unwrap_or_default();
            self.cache.insert(scene.to_path_buf(), names);
        }
        // Inserted just above when absent.
        &self.cache[scene]
    }

    /// Every file `scene` reads through its includes, transitively, with the libraries and
    /// proxies files each names; `scene` itself included.
    fn reach(&mut self, scene: &Path) -> BTreeSet<PathBuf> {
        let mut seen: BTreeSet<PathBuf> = BTreeSet::from([scene.to_path_buf()]);
        let mut out = seen.clone();
        let mut todo = vec![scene.to_path_buf()];
        while let Some(s) = todo.pop() {
            let n = self.names(&s).clone();
            out.extend(n.others);
            for i in n.includes {
                out.insert(i.clone());
                if seen.insert(i.clone()) {
                    todo.push(i);
                }
            }
        }
        out
    }

    /// Whether `scene` includes itself through some chain of includes.
    fn in_cycle(&mut self, scene: &Path) -> bool {
        let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
        let mut todo: Vec<PathBuf> = self.names(scene).includes.clone();
        while let Some(s) = todo.pop() {
            if s == scene {
                return true;
            }
            if seen.insert(s.clone()) {
                todo.extend(self.names(&s).includes.clone());
            }
        }
        false
    }
}

/// A path relative to `from` made relative to `to` (the reader took a scene's own folder as its
/// root where the project's folder holds no project.toml). A path outside `to` stays absolute.
fn rebase_path(p: &Path, from: &Path, to: &Path) -> PathBuf {
    if from == to || p.is_absolute() {
        return p.to_path_buf();
    }
    let abs = from.join(p);
    abs.strip_prefix(to).map(Path::to_path_buf).unwrap_or(abs)
}

fn rebase(mut d: Diagnostic, from: &Path, to: &Path) -> Diagnostic {
    d.file = rebase_path(&d.file, from, to);
    for r in &mut d.related {
        r.file = rebase_path(&r.file, from, to);
    }
    d
}

/// Sorts by file, line and column (then the rest, so that the order is total) and drops exact
/// repeats: a library two scenes read gives its findings twice.
fn tidy(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    fn loc(l: &Location) -> (&Path, u32, u32) {
        (&l.file, l.line, l.column)
    }
    diags.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            (
                d.file.clone(),
                d.line,
                d.column,
                d.end_line,
                d.end_column,
                d.severity == Severity::Warning,
                d.code,
            )
        };
        key(a)
            .cmp(&key(b))
            .then_with(|| a.key.cmp(&b.key))
            .then_with(|| a.message.cmp(&b.message))
            .then_with(|| a.related.iter().map(loc).cmp(b.related.iter().map(loc)))
    });
    diags.dedup();
    diags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn kinds_come_from_names() {
        let k = |s: &str| kind_of(Path::new(s));
        assert_eq!(k("a/project.toml"), Some(FileKind::Project));
        assert_eq!(k("a/room.scene.toml"), Some(FileKind::Scene));
        assert_eq!(k("scene.toml"), Some(FileKind::Scene));
        assert_eq!(k("lamp.prefab.toml"), Some(FileKind::Prefab));
        assert_eq!(k("x.materials.toml"), Some(FileKind::Materials));
        assert_eq!(k("x.proxies.toml"), Some(FileKind::Proxies));
        assert_eq!(k("materials.toml"), None);
        assert_eq!(k("notes.toml"), None);
        assert_eq!(k("room.scene.toml.bak"), None);
    }

    #[test]
    fn normal_folds_and_refuses_as_the_format_does() {
        assert_eq!(normal("./a/b/../c"), Some(PathBuf::from("a/c")));
        assert_eq!(normal("a/.."), Some(PathBuf::new()));
        assert_eq!(normal(".."), None);
        assert_eq!(normal("/a"), None);
        assert_eq!(normal("a\\b"), None);
        assert_eq!(normal(""), None);
    }

    #[test]
    fn cycles_and_reach_follow_includes() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        write(
            r,
            "a.scene.toml",
            "format = 1\ninclude = [\"b.scene.toml\"]\nmaterials = [\"m.materials.toml\"]\n",
        );
        write(
            r,
            "b.scene.toml",
            "format = 1\ninclude = [\"./a.scene.toml\"]\n[plates]\nproxies = \"p.proxies.toml\"\n",
        );
        write(
            r,
            "c.scene.toml",
            "format = 1\ninclude = [\"b.scene.toml\"]\n",
        );
        let mut s = Scan::new(r);
        assert!(s.in_cycle(Path::new("a.scene.toml")));
        assert!(s.in_cycle(Path::new("b.scene.toml")));
        assert!(!s.in_cycle(Path::new("c.scene.toml")));
        let reach: Vec<PathBuf> = s.reach(Path::new("c.scene.toml")).into_iter().collect();
        let want: Vec<PathBuf> = [
            "a.scene.toml",
            "b.scene.toml",
            "c.scene.toml",
            "m.materials.toml",
            "p.proxies.toml",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        assert_eq!(reach, want);
    }

    #[test]
    fn tidy_sorts_and_drops_repeats() {
        let d = |file: &str, line: u32, code: &'static str| Diagnostic {
            file: file.into(),
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            severity: Severity::Error,
            code,
            key: String::new(),
            message: String::new(),
            related: Vec::new(),
        };
        let out = tidy(vec![
            d("b", 1, "x"),
            d("a", 9, "x"),
            d("a", 2, "y"),
            d("a", 9, "x"),
        ]);
        let got: Vec<(String, u32)> = out
            .iter()
            .map(|d| (d.file.display().to_string(), d.line))
            .collect();
        assert_eq!(got, [("a".into(), 2), ("a".into(), 9), ("b".into(), 1)]);
    }

    #[test]
    fn open_of_a_missing_folder_is_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let e = Project::open(&dir.path().join("nope")).unwrap_err();
        assert_eq!(e.code, "unreadable");
        let f = dir.path().join("f");
        std::fs::write(&f, "").unwrap();
        assert_eq!(Project::open(&f).unwrap_err().code, "unreadable");
    }
}
