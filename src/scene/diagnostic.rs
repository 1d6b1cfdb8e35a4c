//! The format's `Diagnostic`: every finding about the input, located in its file.

use std::fmt;
use std::path::PathBuf;

/// Error or warning. The format's only warnings are `missing-id` and `old-format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The input is refused.
    Error,
    /// The input is read, with a note.
    Warning,
}

/// A place in a file: 1-based line and column, columns counted in characters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// Relative to the project root.
    pub file: PathBuf,
    /// 1-based.
    pub line: u32,
    /// 1-based, in characters.
    pub column: u32,
}

/// One finding about the input, as the format specifies it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// Relative to the project root.
    pub file: PathBuf,
    /// 1-based start line.
    pub line: u32,
    /// 1-based start column, in characters.
    pub column: u32,
    /// Line just past the span.
    pub end_line: u32,
    /// Column just past the span.
    pub end_column: u32,
    /// Error or warning.
    pub severity: Severity,
    /// The spec's stable code, such as `unknown-key`.
    pub code: &'static str,
    /// Dotted path to the value: `object.7k2m9q4xzr.at`, `light.0.intensity`.
    pub key: String,
    /// What is wrong, naming the allowed keys or values where that helps.
    pub message: String,
    /// Other places the finding names.
    pub related: Vec<Location>,
}

impl Diagnostic {
    /// Whether this finding refuses the input.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// `file:line:column: error[code] key: message`, the shape compilers use, so editors link it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(
            f,
            "{}:{}:{}: {}[{}] {}: {}",
            self.file.display(),
            self.line,
            self.column,
            sev,
            self.code,
            self.key,
            self.message
        )?;
        for r in &self.related {
            write!(f, "\n  see {}:{}:{}", r.file.display(), r.line, r.column)?;
        }
        Ok(())
    }
}
