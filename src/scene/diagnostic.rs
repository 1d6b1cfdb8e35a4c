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
    /// The spec's stable code, such as `unknown-key`: a [`Code`]'s string (the spec's struct
    /// holds the string, so that editors and the JSON output keep it).
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

/// The diagnostic codes: the spec's 29, then the loader's own (asset contents, which the
/// spec's checker does not read). [`Code::as_str`] is the stable string the spec names and
/// [`Diagnostic::code`] holds; editors and the JSON output key on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// `syntax`: the text is not valid TOML.
    Syntax,
    /// `unreadable`: a file can't be read.
    Unreadable,
    /// `not-utf8`: a file is not UTF-8.
    NotUtf8,
    /// `unknown-key`: a table holds a key it doesn't take.
    UnknownKey,
    /// `missing-key`: a needed key is absent.
    MissingKey,
    /// `bad-type`: a value has the wrong type or length.
    BadType,
    /// `bad-value`: a value is outside its range or its list, or a combination the table refuses.
    BadValue,
    /// `bad-id`: an id is not 10 lowercase Crockford base32 characters.
    BadId,
    /// `missing-id`: an entry that can be referred to has no id (a warning).
    MissingId,
    /// `duplicate-id`: an id is used twice in the project.
    DuplicateId,
    /// `bad-name`: a name is empty, has a space at an end, or holds a control character.
    BadName,
    /// `duplicate-name`: a name is used twice in its kind, or a material is in two libraries.
    DuplicateName,
    /// `bad-reference`: a reference matches no entry of its kind, or one that can't serve.
    BadReference,
    /// `ambiguous-reference`: a reference names a name two entries carry.
    AmbiguousReference,
    /// `bad-path`: a path is empty, absolute, or holds a backslash.
    BadPath,
    /// `outside-root`: a path leaves the project root.
    OutsideRoot,
    /// `missing-file`: a named file does not exist.
    MissingFile,
    /// `path-case`: a named file exists only with another case.
    PathCase,
    /// `include-cycle`: a scene or prefab includes itself.
    IncludeCycle,
    /// `prefab-cycle`: a prefab places itself.
    PrefabCycle,
    /// `include-depth`: includes nest more than 64 deep.
    IncludeDepth,
    /// `prefab-depth`: prefab placements nest more than 64 deep.
    PrefabDepth,
    /// `parent-cycle`: objects' parents form a cycle.
    ParentCycle,
    /// `held-twice`: fallback or a one-file table is held by two files of a scene.
    HeldTwice,
    /// `bad-override`: an [object.set] key or value does not fit the entry it names.
    BadOverride,
    /// `placement-key`: a placement holds a key only an object with a mesh takes.
    PlacementKey,
    /// `old-format`: a format 0 file, read through the migration (a warning).
    OldFormat,
    /// `newer-format`: a file's format is newer than the reader knows.
    NewerFormat,
    /// `migration`: a migration step can't run.
    Migration,
    /// `asset-unreadable`: the loader: an asset file can't be read.
    AssetUnreadable,
    /// `gltf-invalid`: the loader: a glTF file is not valid.
    GltfInvalid,
    /// `gltf-node`: the loader: a node the scene names is not in the glTF file.
    GltfNode,
    /// `gltf-extension`: the loader: a glTF file needs an extension the loader lacks.
    GltfExtension,
    /// `gltf-empty`: the loader: a glTF file or node holds no triangles.
    GltfEmpty,
    /// `hdr-invalid`: the loader: an HDR sky is not a valid Radiance file.
    HdrInvalid,
    /// `font-invalid`: the loader: a font is not a TrueType or OpenType font it reads.
    FontInvalid,
    /// `font-glyph`: the loader: a text holds a character its font has no glyph for.
    FontGlyph,
}

impl Code {
    /// Every code: the spec's 29 in its order, then the loader's 8.
    pub const ALL: [Code; 37] = [
        Code::Syntax,
        Code::Unreadable,
        Code::NotUtf8,
        Code::UnknownKey,
        Code::MissingKey,
        Code::BadType,
        Code::BadValue,
        Code::BadId,
        Code::MissingId,
        Code::DuplicateId,
        Code::BadName,
        Code::DuplicateName,
        Code::BadReference,
        Code::AmbiguousReference,
        Code::BadPath,
        Code::OutsideRoot,
        Code::MissingFile,
        Code::PathCase,
        Code::IncludeCycle,
        Code::PrefabCycle,
        Code::IncludeDepth,
        Code::PrefabDepth,
        Code::ParentCycle,
        Code::HeldTwice,
        Code::BadOverride,
        Code::PlacementKey,
        Code::OldFormat,
        Code::NewerFormat,
        Code::Migration,
        Code::AssetUnreadable,
        Code::GltfInvalid,
        Code::GltfNode,
        Code::GltfExtension,
        Code::GltfEmpty,
        Code::HdrInvalid,
        Code::FontInvalid,
        Code::FontGlyph,
    ];

    /// How many of [`Code::ALL`] the spec names.
    pub const SPEC: usize = 29;

    /// The code's stable string, such as `unknown-key`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Code::Syntax => "syntax",
            Code::Unreadable => "unreadable",
            Code::NotUtf8 => "not-utf8",
            Code::UnknownKey => "unknown-key",
            Code::MissingKey => "missing-key",
            Code::BadType => "bad-type",
            Code::BadValue => "bad-value",
            Code::BadId => "bad-id",
            Code::MissingId => "missing-id",
            Code::DuplicateId => "duplicate-id",
            Code::BadName => "bad-name",
            Code::DuplicateName => "duplicate-name",
            Code::BadReference => "bad-reference",
            Code::AmbiguousReference => "ambiguous-reference",
            Code::BadPath => "bad-path",
            Code::OutsideRoot => "outside-root",
            Code::MissingFile => "missing-file",
            Code::PathCase => "path-case",
            Code::IncludeCycle => "include-cycle",
            Code::PrefabCycle => "prefab-cycle",
            Code::IncludeDepth => "include-depth",
            Code::PrefabDepth => "prefab-depth",
            Code::ParentCycle => "parent-cycle",
            Code::HeldTwice => "held-twice",
            Code::BadOverride => "bad-override",
            Code::PlacementKey => "placement-key",
            Code::OldFormat => "old-format",
            Code::NewerFormat => "newer-format",
            Code::Migration => "migration",
            Code::AssetUnreadable => "asset-unreadable",
            Code::GltfInvalid => "gltf-invalid",
            Code::GltfNode => "gltf-node",
            Code::GltfExtension => "gltf-extension",
            Code::GltfEmpty => "gltf-empty",
            Code::HdrInvalid => "hdr-invalid",
            Code::FontInvalid => "font-invalid",
            Code::FontGlyph => "font-glyph",
        }
    }

    /// The code whose string is `s`.
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<Code> for &str {
    fn eq(&self, c: &Code) -> bool {
        *self == c.as_str()
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, s: &&str) -> bool {
        self.as_str() == *s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each code's string is distinct, parses back, and the spec's are its 29.
    #[test]
    fn codes_keep_their_strings() {
        for c in Code::ALL {
            assert_eq!(Code::parse(c.as_str()), Some(c));
        }
        assert_eq!(Code::SPEC, 29);
        assert_eq!(Code::BadValue.as_str(), "bad-value");
        assert_eq!(Code::NotUtf8.to_string(), "not-utf8");
        assert!("bad-override" == Code::BadOverride);
    }
}
