//! The TOML and span layer the checker, the loader and the migration share: a file's bytes
//! with its line starts ([`Src`]), a span in one file ([`Sp`]), a view of any toml_edit node
//! ([`Node`], [`Tbl`]), and the places a finding points at: a table's header ([`head`]), a
//! key's value ([`val_sp`]) or the key itself ([`key_sp`]).
//!
//! One definition of each, so a finding about the same table points at the same bytes whoever
//! reports it. A header's span is its brackets and what they hold (`[object.body]`,
//! `[[light]]`), never a trailing comment or the spaces before it; a quoted key in a header
//! may hold `#` or `]` ([`header_close`] steps over it).

use std::ops::Range as Span;
use std::path::PathBuf;

use toml_edit::{ArrayOfTables, InlineTable, Item, Table, Value};

/// One file's text and line starts, for turning byte offsets into lines and columns.
pub(crate) struct Src {
    /// Relative to the root.
    pub rel: PathBuf,
    /// Byte offset of each line's start.
    line_starts: Vec<usize>,
    /// The bytes (kept as bytes: a not-UTF-8 file is located too).
    bytes: Vec<u8>,
}

impl Src {
    pub(crate) fn new(rel: PathBuf, bytes: Vec<u8>) -> Src {
        let mut line_starts = vec![0];
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Src {
            rel,
            line_starts,
            bytes,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(crate) fn pos(&self, off: usize) -> (u32, u32) {
        let off = off.min(self.bytes.len());
        let line = match self.line_starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(line).copied().unwrap_or(0).min(off);
        // A character starts at every byte that is not a UTF-8 continuation byte, so counting
        // those counts characters without needing the offsets on char boundaries.
        let chars = self.bytes[start..off]
            .iter()
            .filter(|b| (**b & 0xC0) != 0x80)
            .count();
        (line as u32 + 1, chars as u32 + 1)
    }

    /// The bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// A span in one of the files read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Sp {
    pub file: usize,
    pub span: Span<usize>,
}

impl Sp {
    /// `span` in file `file`, or `fallback` where toml_edit kept no span.
    pub(crate) fn or(file: usize, span: Option<Span<usize>>, fallback: &Sp) -> Sp {
        span.map(|span| Sp { file, span })
            .unwrap_or_else(|| fallback.clone())
    }
}

/// A table or an inline table.
#[derive(Clone, Copy)]
pub(crate) enum Tbl<'a> {
    Table(&'a Table),
    Inline(&'a InlineTable),
}

/// Any node of a document.
#[derive(Clone, Copy)]
pub(crate) enum Node<'a> {
    Table(&'a Table),
    Inline(&'a InlineTable),
    Aot(&'a ArrayOfTables),
    Val(&'a Value),
}

impl<'a> Node<'a> {
    pub(crate) fn of_item(item: &'a Item) -> Option<Node<'a>> {
        match item {
            Item::None => None,
            Item::Value(Value::InlineTable(t)) => Some(Node::Inline(t)),
            Item::Value(v) => Some(Node::Val(v)),
            Item::Table(t) => Some(Node::Table(t)),
            Item::ArrayOfTables(a) => Some(Node::Aot(a)),
        }
    }

    pub(crate) fn of_value(v: &'a Value) -> Node<'a> {
        match v {
            Value::InlineTable(t) => Node::Inline(t),
            v => Node::Val(v),
        }
    }

    pub(crate) fn span(&self) -> Option<Span<usize>> {
        match self {
            Node::Table(t) => t.span(),
            Node::Inline(t) => t.span(),
            Node::Aot(a) => a.span(),
            Node::Val(v) => v.span(),
        }
    }

    pub(crate) fn tbl(&self) -> Option<Tbl<'a>> {
        match *self {
            Node::Table(t) => Some(Tbl::Table(t)),
            Node::Inline(t) => Some(Tbl::Inline(t)),
            _ => None,
        }
    }

    pub(crate) fn val(&self) -> Option<&'a Value> {
        match *self {
            Node::Val(v) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn str(&self) -> Option<&'a str> {
        self.val().and_then(|v| v.as_str())
    }

    /// A number: an integer or a float.
    pub(crate) fn num(&self) -> Option<f64> {
        match self.val()? {
            Value::Integer(i) => Some(*i.value() as f64),
            Value::Float(f) => Some(*f.value()),
            _ => None,
        }
    }

    pub(crate) fn bool(&self) -> Option<bool> {
        self.val().and_then(|v| v.as_bool())
    }

    /// The tables of a list: an array of tables or an array of inline tables.
    pub(crate) fn tables(&self) -> Vec<Tbl<'a>> {
        match *self {
            Node::Aot(a) => a.iter().map(Tbl::Table).collect(),
            Node::Val(Value::Array(a)) => a
                .iter()
                .filter_map(|v| match v {
                    Value::InlineTable(t) => Some(Tbl::Inline(t)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The elements of an array value.
    pub(crate) fn elems(&self) -> Vec<Node<'a>> {
        match *self {
            Node::Val(Value::Array(a)) => a.iter().map(Node::of_value).collect(),
            Node::Aot(a) => a.iter().map(Node::Table).collect(),
            _ => Vec::new(),
        }
    }

    /// An array of numbers, when it is one.
    pub(crate) fn nums(&self) -> Option<Vec<f64>> {
        match *self {
            Node::Val(Value::Array(_)) => self.elems().iter().map(|e| e.num()).collect(),
            _ => None,
        }
    }
}

impl<'a> Tbl<'a> {
    /// The keys in the order written, each with its key span and node.
    pub(crate) fn entries(&self) -> Vec<(&'a str, Option<Span<usize>>, Node<'a>)> {
        match *self {
            Tbl::Table(t) => t
                .iter()
                .filter_map(|(k, v)| {
                    let ks = t.key(k).and_then(|k| k.span());
                    Node::of_item(v).map(|n| (k, ks, n))
                })
                .collect(),
            Tbl::Inline(t) => t
                .iter()
                .map(|(k, v)| {
                    let ks = t.key(k).and_then(|k| k.span());
                    (k, ks, Node::of_value(v))
                })
                .collect(),
        }
    }

    pub(crate) fn get(&self, name: &str) -> Option<Node<'a>> {
        match *self {
            Tbl::Table(t) => t.get(name).and_then(Node::of_item),
            Tbl::Inline(t) => t.get(name).map(Node::of_value),
        }
    }

    pub(crate) fn key_span(&self, name: &str) -> Option<Span<usize>> {
        match *self {
            Tbl::Table(t) => t.key(name).and_then(|k| k.span()),
            Tbl::Inline(t) => t.key(name).and_then(|k| k.span()),
        }
    }

    pub(crate) fn span(&self) -> Option<Span<usize>> {
        match *self {
            Tbl::Table(t) => t.span(),
            Tbl::Inline(t) => t.span(),
        }
    }

    pub(crate) fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub(crate) fn str(&self, name: &str) -> Option<&'a str> {
        self.get(name).and_then(|n| n.str())
    }

    pub(crate) fn num(&self, name: &str) -> Option<f64> {
        self.get(name).and_then(|n| n.num())
    }

    pub(crate) fn bool(&self, name: &str) -> Option<bool> {
        self.get(name).and_then(|n| n.bool())
    }

    pub(crate) fn nums(&self, name: &str) -> Option<Vec<f64>> {
        self.get(name).and_then(|n| n.nums())
    }

    pub(crate) fn len(&self) -> usize {
        match *self {
            Tbl::Table(t) => t.len(),
            Tbl::Inline(t) => t.len(),
        }
    }
}

/// Just past the `]` (or `]]`) closing the header that starts at `start`, or the end of its
/// line when it is not closed there. A table's span runs from its header over its keys, so the
/// header's own end is found in the text, stepping over quoted keys (which may hold `]` or `#`).
pub(crate) fn header_close(text: &[u8], start: usize) -> usize {
    let b = text;
    let mut i = start;
    while b.get(i) == Some(&b'[') {
        i += 1;
    }
    let mut quote: Option<u8> = None;
    while let Some(&c) = b.get(i) {
        match quote {
            Some(b'"') if c == b'\\' => i += 1,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' => quote = Some(c),
            None if c == b']' => {
                while b.get(i) == Some(&b']') {
                    i += 1;
                }
                return i;
            }
            None if c == b'\n' || c == b'\r' => return i,
            None => {}
        }
        i += 1;
    }
    text.len()
}

/// Just past the `\n` ending the line that holds `at` (the text's end on its last line).
pub(crate) fn line_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text[at..].find('\n').map_or(text.len(), |p| at + p + 1)
}

/// The line holding `span`'s start: from its first byte to just past its `\n`.
pub(crate) fn line_of(text: &str, span: Span<usize>) -> (usize, usize) {
    let a = text[..span.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |p| p + 1);
    (a, line_end(text, span.start))
}

/// Where a table is written, as a finding about the whole table points at it: a `[header]`
/// or `[[header]]` from its first bracket to its last (a trailing comment and the spaces
/// before it left out), else (an inline or a dotted table) the rest of its first line, its
/// trailing spaces left out; `fallback` where toml_edit kept no span.
pub(crate) fn head(srcs: &[Src], f: usize, t: Tbl, fallback: &Sp) -> Sp {
    let Some(s) = t.span() else {
        return fallback.clone();
    };
    let bytes = srcs.get(f).map(|s| s.bytes()).unwrap_or(&[]);
    let start = s.start.min(bytes.len());
    let end = if matches!(t, Tbl::Table(_)) && bytes.get(start) == Some(&b'[') {
        header_close(bytes, start).min(s.end.max(start))
    } else {
        let mut end = start;
        while end < s.end && end < bytes.len() && bytes[end] != b'\n' && bytes[end] != b'\r' {
            end += 1;
        }
        bytes[start..end]
            .iter()
            .rposition(|b| !b.is_ascii_whitespace())
            .map_or(start, |q| start + q + 1)
    };
    Sp {
        file: f,
        span: start..end,
    }
}

/// Where a key's value is written (else the key, else `fallback`): a value an override wrote
/// has no span of its own.
pub(crate) fn val_sp(f: usize, t: Tbl, name: &str, fallback: &Sp) -> Sp {
    let span = t
        .get(name)
        .and_then(|n| n.span())
        .or_else(|| t.key_span(name));
    Sp::or(f, span, fallback)
}

/// Where a key is written, else `fallback`.
pub(crate) fn key_sp(f: usize, t: Tbl, name: &str, fallback: &Sp) -> Sp {
    Sp::or(f, t.key_span(name), fallback)
}

#[cfg(test)]
mod tests {
    use super::*;
    use toml_edit::ImDocument;

    /// The header span of the table at `key` (a dotted path of plain keys; the first table
    /// of an array of tables), as text.
    fn header(text: &str, key: &str) -> String {
        let doc = ImDocument::parse(text.to_string()).unwrap();
        let srcs = vec![Src::new(
            PathBuf::from("a.scene.toml"),
            text.as_bytes().to_vec(),
        )];
        let mut t = Tbl::Table(doc.as_table());
        for k in key.split('.') {
            let n = t.get(k).unwrap();
            t = n.tbl().or_else(|| n.tables().first().copied()).unwrap();
        }
        let none = Sp {
            file: 0,
            span: 0..0,
        };
        let sp = head(&srcs, 0, t, &none);
        text[sp.span].to_string()
    }

    /// The checker and the loader once disagreed here: the loader's header ran on over a
    /// trailing comment. Now both point at the brackets, and a quoted key's `#` or `]` is
    /// part of the header, not a comment's start.
    #[test]
    fn a_header_ends_at_its_bracket_not_its_comment() {
        assert_eq!(
            header("[camera]   # the view\nfov = 40.0\n", "camera"),
            "[camera]"
        );
        assert_eq!(
            header("[[light]] # key light\nname = \"a\"\n", "light"),
            "[[light]]"
        );
        assert_eq!(header("[camera]\nfov = 40.0\n", "camera"), "[camera]");
        assert_eq!(
            header("[mesh.\"a#b]\"] # c\nfile = \"x.glb\"\n", "mesh.a#b]"),
            "[mesh.\"a#b]\"]"
        );
        // Inline: the rest of the line, trailing spaces trimmed.
        assert_eq!(
            header("camera = { fov = 40.0 }   \n", "camera"),
            "{ fov = 40.0 }"
        );
        assert_eq!(header_close(b"[a.'x]y'] # c", 0), 9);
        assert_eq!(header_close(b"[unclosed\nb = 1", 0), 9);
    }

    /// A key's place, its value's place, and the fallback for a value with no span.
    #[test]
    fn keys_and_values_point_at_their_bytes() {
        let text = "[camera]\nfov = 40.0\n";
        let doc = ImDocument::parse(text.to_string()).unwrap();
        let t = Node::of_item(doc.as_table().get("camera").unwrap())
            .unwrap()
            .tbl()
            .unwrap();
        let none = Sp {
            file: 0,
            span: 0..0,
        };
        assert_eq!(&text[val_sp(0, t, "fov", &none).span], "40.0");
        assert_eq!(&text[key_sp(0, t, "fov", &none).span], "fov");
        assert_eq!(val_sp(0, t, "near", &none), none);
        assert_eq!(line_of(text, 10..12), (9, 20));
    }
}
