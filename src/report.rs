//! Diagnostics for people and for tools: a renderer in the style of rustc's (the source line
//! with the span underlined) and the JSON Lines form of `bake check --format json`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::scene::{Diagnostic, Location, Severity};

/// Columns a tab takes in the shown source line (the underline follows it).
const TAB: usize = 4;

/// Renders diagnostics of one project, reading each file's text once.
#[derive(Debug)]
pub struct Renderer {
    root: PathBuf,
    shown_root: PathBuf,
    sources: HashMap<PathBuf, Option<String>>,
}

impl Renderer {
    /// A renderer for diagnostics whose files are relative to `root` (absolute). Files are
    /// shown as `shown_root` joined with their root-relative path: the root as the person
    /// typed or sees it (see [`shown_root`]), empty for the root-relative path alone.
    pub fn new(root: &Path, shown_root: PathBuf) -> Renderer {
        Renderer {
            root: root.to_path_buf(),
            shown_root,
            sources: HashMap::new(),
        }
    }

    /// How a file of the project is shown: the shown root joined with it, `/`-separated.
    pub fn shown(&self, file: &Path) -> String {
        slash(&self.shown_root.join(file))
    }

    /// One diagnostic, every line ending in a newline.
    pub fn render(&mut self, d: &Diagnostic) -> String {
        let source = self
            .sources
            .entry(d.file.clone())
            .or_insert_with(|| std::fs::read_to_string(self.root.join(&d.file)).ok())
            .clone();
        let shown_root = self.shown_root.clone();
        render(d, source.as_deref(), &|p: &Path| slash(&shown_root.join(p)))
    }
}

/// The root as a person sees it from `cwd`, so the shown paths open from where the command
/// ran: relative to `cwd` when the root is `cwd` (empty), lies under it, or holds it (`../..`);
/// absolute otherwise.
pub fn shown_root(root: &Path, cwd: &Path) -> PathBuf {
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    if let Ok(rel) = root.strip_prefix(&cwd) {
        return rel.to_path_buf();
    }
    match cwd.strip_prefix(root) {
        Ok(below) => below.components().map(|_| Path::new("..")).collect(),
        Err(_) => root.to_path_buf(),
    }
}

/// One diagnostic in rustc's shape, given its file's text (None when it can't be read: the
/// location is shown without the source line) and how to show a root-relative path:
///
/// ```text
/// error[unknown-key]: `brightness` is not a key of [[light]]; …
///   --> scenes/room.scene.toml:12:1
///    |
/// 12 | brightness = 3
///    | ^^^^^^^^^^
///    = key: light.key.brightness
///    = note: related: scenes/x.toml:3:1
/// ```
///
/// The underline runs from `column` to `end_column` on the diagnostic's line (to the line's
/// end when the span goes on), one `^` at least; columns count characters, as the format's do.
pub fn render(d: &Diagnostic, source: Option<&str>, show: &dyn Fn(&Path) -> String) -> String {
    let sev = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    };
    let mut out = String::new();
    let mut lines = d.message.lines();
    let _ = writeln!(out, "{sev}[{}]: {}", d.code, lines.next().unwrap_or(""));
    for more in lines {
        let _ = writeln!(out, "{more}");
    }
    let w = d.line.to_string().len();
    let pad = " ".repeat(w);
    let _ = writeln!(out, "{pad}--> {}:{}:{}", show(&d.file), d.line, d.column);
    let text = source.and_then(|s| {
        let i = (d.line as usize).checked_sub(1)?;
        s.split('\n').nth(i)
    });
    if let Some(text) = text {
        let text = text.strip_suffix('\r').unwrap_or(text);
        let (shown, marks) = underline(text, d);
        let _ = writeln!(out, "{pad} |");
        let _ = writeln!(out, "{} | {}", d.line, shown.trim_end());
        let _ = writeln!(out, "{pad} | {marks}");
    }
    if !d.key.is_empty() {
        let _ = writeln!(out, "{pad} = key: {}", d.key);
    }
    for r in &d.related {
        let _ = writeln!(out, "{pad} = note: related: {}", place(r, show));
    }
    out
}

fn place(r: &Location, show: &dyn Fn(&Path) -> String) -> String {
    format!("{}:{}:{}", show(&r.file), r.line, r.column)
}

/// The line as shown (tabs expanded) and the line of `^` under the span.
fn underline(text: &str, d: &Diagnostic) -> (String, String) {
    let chars: Vec<char> = text.chars().collect();
    let start = (d.column as usize).saturating_sub(1);
    let end = if d.end_line == d.line {
        (d.end_column as usize).saturating_sub(1)
    } else {
        chars.len()
    };
    let end = end.max(start + 1);
    let width = |c: char| if c == '\t' { TAB } else { 1 };
    let mut shown = String::new();
    let mut marks = String::new();
    for i in 0..end {
        let c = chars.get(i).copied();
        let w = c.map_or(1, width);
        match c {
            Some('\t') => shown.push_str(&" ".repeat(TAB)),
            Some(c) => shown.push(c),
            None => {}
        }
        marks.push_str(&(if i < start { " " } else { "^" }).repeat(w));
    }
    for &c in chars.iter().skip(end) {
        match c {
            '\t' => shown.push_str(&" ".repeat(TAB)),
            c => shown.push(c),
        }
    }
    (shown, marks)
}

/// The closing line of a check: `check: 2 errors, 1 warning in 5 files`.
pub fn summary(errors: usize, warnings: usize, files: usize) -> String {
    let s = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    format!(
        "check: {}, {} in {}",
        s(errors, "error", "errors"),
        s(warnings, "warning", "warnings"),
        s(files, "file", "files")
    )
}

/// A path with `/` between its parts, whatever the platform.
pub fn slash(p: &Path) -> String {
    let s = p.to_string_lossy();
    if cfg!(windows) {
        s.replace('\\', "/")
    } else {
        s.into_owned()
    }
}

/// A diagnostic as `bake check --format json` writes it: the format's fields, `severity`
/// capitalised as the spec writes it (`Error`, `Warning`), files root-relative with `/`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct JsonDiagnostic<'a> {
    /// Relative to the project root.
    pub file: String,
    /// 1-based start line.
    pub line: u32,
    /// 1-based start column, in characters.
    pub column: u32,
    /// Line just past the span.
    pub end_line: u32,
    /// Column just past the span.
    pub end_column: u32,
    /// `Error` or `Warning`.
    pub severity: &'static str,
    /// The spec's stable code.
    pub code: &'a str,
    /// Dotted path to the value.
    pub key: &'a str,
    /// What is wrong.
    pub message: &'a str,
    /// Other places the finding names.
    pub related: Vec<JsonLocation>,
}

/// A related place in [`JsonDiagnostic`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct JsonLocation {
    /// Relative to the project root.
    pub file: String,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
}

impl<'a> From<&'a Diagnostic> for JsonDiagnostic<'a> {
    fn from(d: &'a Diagnostic) -> JsonDiagnostic<'a> {
        JsonDiagnostic {
            file: slash(&d.file),
            line: d.line,
            column: d.column,
            end_line: d.end_line,
            end_column: d.end_column,
            severity: match d.severity {
                Severity::Error => "Error",
                Severity::Warning => "Warning",
            },
            code: d.code,
            key: &d.key,
            message: &d.message,
            related: d
                .related
                .iter()
                .map(|r| JsonLocation {
                    file: slash(&r.file),
                    line: r.line,
                    column: r.column,
                })
                .collect(),
        }
    }
}

/// One diagnostic as one line of JSON (no newline inside: serde_json escapes them).
pub fn json_line(d: &Diagnostic) -> String {
    // Serialising plain strings and numbers can't fail; the fallback keeps the line JSON.
    serde_json::to_string(&JsonDiagnostic::from(d)).unwrap_or_else(|_| "{}".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(line: u32, column: u32, end_line: u32, end_column: u32) -> Diagnostic {
        Diagnostic {
            file: "scenes/room.scene.toml".into(),
            line,
            column,
            end_line,
            end_column,
            severity: Severity::Error,
            code: "unknown-key",
            key: "light.key.brightness".into(),
            message: "`brightness` is not a key".into(),
            related: vec![Location {
                file: "x.toml".into(),
                line: 3,
                column: 1,
            }],
        }
    }

    fn plain(p: &Path) -> String {
        slash(p)
    }

    #[test]
    fn renders_in_rustc_shape() {
        let src = "format = 1\n".repeat(11) + "brightness = 3\n";
        let out = render(&diag(12, 1, 12, 11), Some(&src), &plain);
        let want = "error[unknown-key]: `brightness` is not a key\n  --> scenes/room.scene.toml:12:1\n   |\n12 | brightness = 3\n   | ^^^^^^^^^^\n   = key: light.key.brightness\n   = note: related: x.toml:3:1\n";
        assert_eq!(out, want);
    }

    #[test]
    fn columns_are_characters_and_tabs_expand() {
        // "é" is two bytes, one character: `x` is column 12 (13 in bytes).
        let src = "name = \"é\" x\n";
        let out = render(&diag(1, 12, 1, 13), Some(src), &plain);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[3], "1 | name = \"é\" x");
        assert_eq!(lines[4], "  |            ^");
        let src = "\tab = 1\n";
        let out = render(&diag(1, 2, 1, 4), Some(src), &plain);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[3], "1 |     ab = 1");
        assert_eq!(lines[4], "  |     ^^");
    }

    #[test]
    fn spans_past_the_line_and_empty_spans_get_a_mark() {
        let src = "[light]\nx = 1\n";
        let out = render(&diag(1, 1, 3, 1), Some(src), &plain);
        assert!(out.contains("1 | [light]\n  | ^^^^^^^\n"), "{out}");
        let out = render(&diag(2, 6, 2, 6), Some(src), &plain);
        assert!(out.contains("2 | x = 1\n  |      ^\n"), "{out}");
        // A line the file doesn't have shows the location alone.
        let out = render(&diag(9, 1, 9, 2), Some(src), &plain);
        assert!(!out.contains(" | "), "{out}");
        assert!(out.contains("--> scenes/room.scene.toml:9:1"), "{out}");
    }

    #[test]
    fn the_root_is_shown_from_the_current_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        assert_eq!(shown_root(&root, &root), PathBuf::new());
        assert_eq!(shown_root(&root.join("a/b"), &root), PathBuf::from("a/b"));
        assert_eq!(shown_root(&root, &root.join("a/b")), PathBuf::from("../.."));
        let other = tempfile::tempdir().unwrap();
        assert_eq!(shown_root(&root, other.path()), root);
    }

    #[test]
    fn summary_counts_in_words() {
        assert_eq!(summary(2, 1, 5), "check: 2 errors, 1 warning in 5 files");
        assert_eq!(summary(0, 0, 1), "check: 0 errors, 0 warnings in 1 file");
    }

    #[test]
    fn json_carries_every_field() {
        let mut d = diag(12, 1, 12, 11);
        d.severity = Severity::Warning;
        let v: serde_json::Value = serde_json::from_str(&json_line(&d)).unwrap();
        assert_eq!(v["file"], "scenes/room.scene.toml");
        assert_eq!(v["severity"], "Warning");
        assert_eq!(v["end_column"], 11);
        assert_eq!(v["related"][0]["file"], "x.toml");
        assert_eq!(v["related"][0]["line"], 3);
        assert_eq!(v.as_object().unwrap().len(), 10);
    }
}
