//! The table-driven walk: one document against the schema, with its spans, producing
//! diagnostics, `Presence` records, the entries it holds and the references it makes.
//!
//! The walk recurses along the schema (a fixed depth), never along the input: a `Ty::Any`
//! value is not descended into, so no input nesting reaches the stack beyond what toml_edit's
//! parser already bounds.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml_edit::Value;

use super::diagnostic::{Code, Diagnostic, Location, Severity};
use super::model::Presence;
use super::schema::{self, Dflt, Key, Kind, Need, PathRule, Range, Rule, TableSchema, Ty};
pub(crate) use super::toml::{head, key_sp, val_sp, Node, Sp, Src, Tbl};

mod animation;
mod paths;
mod rules;
mod tiles;
mod walk;

pub(crate) use walk::is_default;
use walk::*;

/// An entry that can be referred to.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub kind: Kind,
    /// Its name (a list entry's `name`, a keyed table's key).
    pub name: Option<String>,
    pub id: Option<String>,
    /// Where its name is written (else its header).
    pub name_at: Sp,
    /// Where its id is written (else its header).
    pub id_at: Sp,
    /// Its dotted diagnostic key (`object.7k2m9q4xzr`).
    pub key: String,
}

/// A reference found by the walk, resolved once every file is read.
#[derive(Clone, Debug)]
pub(crate) struct RefUse {
    pub kind: Kind,
    pub value: String,
    pub at: Sp,
    pub key: String,
}

/// Whether `s` is an id: 10 lowercase Crockford base32 characters.
pub fn is_id(s: &str) -> bool {
    s.len() == 10
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b.is_ascii_lowercase() && !b"ilou".contains(&b)))
}

/// Why a name breaks the name rules, if it does.
fn name_fault(s: &str, material: bool) -> Option<&'static str> {
    if s.is_empty() {
        Some("a name may not be empty")
    } else if s.starts_with(char::is_whitespace) || s.ends_with(char::is_whitespace) {
        Some("a name may not have a space at either end")
    } else if material && s.chars().any(char::is_control) {
        Some("a material name may not hold a control character")
    } else {
        None
    }
}

/// The outcome of a path check: the path relative to the root, normalised.
pub(crate) enum PathCheck {
    /// Exists with its exact case (or need not exist).
    Ok(PathBuf),
    /// Refused; the diagnostic is already reported.
    Refused,
}

/// The normalised root-relative form of a written path, or the code and reason it is refused.
pub(crate) fn normalize(raw: &str) -> Result<PathBuf, (Code, String)> {
    if raw.is_empty() {
        return Err((Code::BadPath, "a path may not be empty".into()));
    }
    if raw.contains('\\') {
        return Err((
            Code::BadPath,
            format!("`{raw}` holds a backslash; paths use /"),
        ));
    }
    let b = raw.as_bytes();
    if raw.starts_with('/') || (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':') {
        return Err((
            Code::BadPath,
            format!("`{raw}` is absolute; paths are relative to the project root"),
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for c in raw.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err((
                        Code::OutsideRoot,
                        format!("`{raw}` leaves the project root"),
                    ));
                }
            }
            c => parts.push(c),
        }
    }
    Ok(parts.iter().collect())
}

/// The walk's state across every file of one load.
pub(crate) struct Ctx {
    pub root: PathBuf,
    pub srcs: Vec<Src>,
    pub diags: Vec<Diagnostic>,
    pub present: Vec<Presence>,
    pub entries: Vec<Entry>,
    pub refs: Vec<RefUse>,
    /// Placement ids named by `prefab` or a palette, resolved among the placements.
    pub placement_refs: Vec<RefUse>,
    /// The project's layer names; `None` when there is no readable [layers] (then a scene's
    /// layer names are refused, or unchecked when project.toml could not be read).
    pub layers: Option<Vec<String>>,
    /// Whether layer names are checked at all.
    pub check_layers: bool,
    /// Paths that passed their check: (file, diagnostic key, where written, normalised path).
    pub ok_paths: Vec<(usize, String, Sp, PathBuf)>,
    /// Texts standing in for files, by root-relative path.
    pub overlay: HashMap<PathBuf, Vec<u8>>,
    dirs: HashMap<PathBuf, Option<Vec<String>>>,
}

impl Ctx {
    pub(crate) fn new(root: PathBuf) -> Ctx {
        Ctx {
            root,
            srcs: Vec::new(),
            diags: Vec::new(),
            present: Vec::new(),
            entries: Vec::new(),
            refs: Vec::new(),
            placement_refs: Vec::new(),
            layers: None,
            check_layers: false,
            ok_paths: Vec::new(),
            overlay: HashMap::new(),
            dirs: HashMap::new(),
        }
    }

    /// A location from a span.
    pub(crate) fn loc(&self, at: &Sp) -> Location {
        match self.srcs.get(at.file) {
            Some(src) => {
                let (line, column) = src.pos(at.span.start);
                Location {
                    file: src.rel.clone(),
                    line,
                    column,
                }
            }
            None => Location {
                file: PathBuf::new(),
                line: 1,
                column: 1,
            },
        }
    }

    /// Reports a finding.
    pub(crate) fn report(
        &mut self,
        sev: Severity,
        at: &Sp,
        code: Code,
        key: &str,
        message: String,
        related: Vec<Location>,
    ) {
        let (file, line, column, end_line, end_column) = match self.srcs.get(at.file) {
            Some(src) => {
                let (l, c) = src.pos(at.span.start);
                let (el, ec) = src.pos(at.span.end.max(at.span.start));
                (src.rel.clone(), l, c, el, ec)
            }
            None => (PathBuf::new(), 1, 1, 1, 1),
        };
        self.diags.push(Diagnostic {
            file,
            line,
            column,
            end_line,
            end_column,
            severity: sev,
            code: code.as_str(),
            key: key.to_string(),
            message,
            related,
        });
    }

    pub(crate) fn err(&mut self, at: &Sp, code: Code, key: &str, message: String) {
        self.report(Severity::Error, at, code, key, message, Vec::new());
    }

    // -----------------------------------------------------------------------------------------
    // the walk
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters_not_bytes() {
        let src = Src::new(
            "a.toml".into(),
            "x = \"日本\" # é\ny = 1\n".as_bytes().to_vec(),
        );
        // Byte 13 is the `#`: after `x = "` (5 bytes), two 3-byte characters and `" ` (2).
        assert_eq!(src.pos(13), (1, 10));
        assert_eq!(src.pos(0), (1, 1));
        let y = "x = \"日本\" # é\n".len();
        assert_eq!(src.pos(y), (2, 1));
        assert_eq!(src.pos(y + 4), (2, 5));
        // Past the end clamps instead of panicking.
        assert_eq!(src.pos(10_000), (3, 1));
    }

    #[test]
    fn ids_are_crockford_base32() {
        assert!(is_id("7k2m9q4xzr"));
        assert!(is_id("0000000000"));
        for bad in [
            "7k2m9q4xz",
            "7k2m9q4xzrr",
            "7K2M9Q4XZR",
            "7k2m9q4xzi",
            "7k2m9q4xzl",
            "7k2m9q4xzo",
            "7k2m9q4xzu",
            "7k2m9q4xz-",
        ] {
            assert!(!is_id(bad), "{bad}");
        }
    }

    #[test]
    fn paths_normalise_inside_the_root() {
        assert_eq!(
            normalize("a/./b/../c.glb").ok(),
            Some(PathBuf::from("a/c.glb"))
        );
        assert_eq!(
            normalize("a/../../c").err().map(|e| e.0.as_str()),
            Some("outside-root")
        );
        assert_eq!(normalize("").err().map(|e| e.0.as_str()), Some("bad-path"));
        assert_eq!(
            normalize("/abs").err().map(|e| e.0.as_str()),
            Some("bad-path")
        );
        assert_eq!(
            normalize("C:/abs").err().map(|e| e.0.as_str()),
            Some("bad-path")
        );
        assert_eq!(
            normalize("a\\b").err().map(|e| e.0.as_str()),
            Some("bad-path")
        );
    }

    #[test]
    fn ranges_read_as_the_spec_writes_them() {
        assert_eq!(schema::open(0.0, 180.0).words(), "above 0 and below 180");
        assert_eq!(schema::within(0.0, 1.0).words(), "0 to 1");
        assert_eq!(schema::gt(0.0).words(), "> 0");
        assert_eq!(schema::ge(0.0).words(), "≥ 0");
        assert!(!schema::open(0.0, 180.0).holds(180.0));
        assert!(schema::within(0.0, 1.0).holds(1.0));
        assert!(!schema::half_open(0.0, 90.0).holds(90.0));
        assert!(schema::half_open(0.0, 90.0).holds(0.0));
    }
}
