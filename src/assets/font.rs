//! Fonts: TrueType and OpenType (CFF) files read by `ttf-parser`, laid out into lines of
//! glyphs and each glyph's outline filled into triangles by `lyon_tessellation`.
//!
//! Everything here is in **em units** (1 = the font's em square, `units_per_em` font units),
//! x to the right and y up from the first line's baseline, so that a text block's size is one
//! factor applied by the caller (`[text] size`, scene units per em). What the layout does and
//! does not do (kerning from the `kern` table, no shaping, a block centred on its advance box)
//! is written in `docs/text.md`.
//!
//! A font file is untrusted: its size is checked before it is read whole, `ttf-parser` never
//! panics on malformed tables, every outline point is checked finite and in range before it
//! reaches the tessellator, and a glyph's triangles are capped, so a hostile font is an
//! [`AssetError`], never a panic or an unbounded allocation.

use std::path::Path;

use glam::Vec2;
use lyon_tessellation::math::point;
use lyon_tessellation::path::Path as LyonPath;
use lyon_tessellation::{
    BuffersBuilder, FillOptions, FillRule, FillTessellator, FillVertex, VertexBuffers,
};
use ttf_parser::{Face, GlyphId, OutlineBuilder, Tag};

use super::{AssetError, AssetErrorKind};

/// The largest font file read, bytes (the largest CJK fonts are ~20 MiB).
pub const MAX_FONT_BYTES: u64 = 64 << 20;

/// The most triangles one glyph may fill to (a real glyph needs well under a thousand at the
/// tolerance used); a glyph past it is refused as a hostile font.
pub const MAX_GLYPH_TRIANGLES: usize = 100_000;

/// The most characters a text block lays out (a page of text is ~3 000).
pub const MAX_TEXT_CHARS: usize = 100_000;

/// The largest distance between a glyph's curved outline and the straight edges that stand
/// for it, em units: 1/2000 em, a twentieth of a pixel for text 100 pixels per em.
pub const TOLERANCE_EM: f32 = 1.0 / 2000.0;

/// A font file read into memory and checked to parse as a TrueType or OpenType face.
#[derive(Clone, Debug)]
pub struct Font {
    bytes: Vec<u8>,
    /// Font units per em, above 0.
    pub units_per_em: f32,
    /// The top of a line above its baseline, em units (the face's ascender: `OS/2` typo
    /// metrics where the font asks for them, else `hhea`).
    pub ascender: f32,
    /// The bottom of a line below its baseline, em units, negative below.
    pub descender: f32,
    /// Extra space between lines, em units, ≥ 0.
    pub line_gap: f32,
    /// The font kerns through its GPOS table's `kern` feature but has no `kern` table, so the
    /// layout (which reads the `kern` table only) does not kern it.
    pub kerns_by_gpos_only: bool,
}

/// One glyph placed by the layout: which glyph, and where its origin (on the baseline, at the
/// left of its advance) lies, em units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlacedGlyph {
    /// The glyph's index in the font.
    pub glyph: u16,
    /// The character it stands for.
    pub ch: char,
    /// Its origin, em units, in the block's frame (see [`Layout`]).
    pub origin: Vec2,
}

/// A text block laid out: its glyphs in the block's frame, whose origin is the centre of the
/// block's advance box (x from the left of the widest line to its right, y from the first
/// line's ascender to the last line's descender), x to the right, y up. Each line is centred
/// on x = 0.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// Every glyph, in reading order (spaces included: they have no outline).
    pub glyphs: Vec<PlacedGlyph>,
    /// The advance box's width and height, em units.
    pub size: Vec2,
}

/// Why a text cannot be laid out with a font: a character the font has no glyph for, or one
/// that is not drawn (a control character other than a line break).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingGlyph {
    /// The character.
    pub ch: char,
    /// Its place in the text, in characters from 0.
    pub at: usize,
    /// One sentence on why.
    pub message: String,
}

/// Reads and checks the font at `path`.
pub fn load_font(path: &Path) -> Result<Font, AssetError> {
    let unreadable = |m: String| AssetError::new(path, AssetErrorKind::Unreadable, m);
    let meta = std::fs::metadata(path).map_err(|e| unreadable(e.to_string()))?;
    if !meta.is_file() {
        return Err(unreadable("not a file".into()));
    }
    if meta.len() > MAX_FONT_BYTES {
        return Err(unreadable(format!(
            "{} bytes, over the {} MiB limit on a font",
            meta.len(),
            MAX_FONT_BYTES >> 20
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| unreadable(e.to_string()))?;
    Font::from_bytes(bytes).map_err(|m| AssetError::new(path, AssetErrorKind::FontInvalid, m))
}

impl Font {
    /// A font from the bytes of a .ttf or .otf file (the first face of a collection); the
    /// message says what is wrong with one that is not a usable font.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Font, String> {
        let face = Face::parse(&bytes, 0)
            .map_err(|e| format!("not a TrueType or OpenType font the reader takes ({e})"))?;
        let upem = face.units_per_em();
        // ttf-parser accepts 16 to 16384; a face with none has no scale at all.
        if upem == 0 {
            return Err("the font's units per em is 0".into());
        }
        if face.tables().cmap.is_none() {
            return Err("the font has no character map (cmap)".into());
        }
        if face.tables().glyf.is_none() && face.tables().cff.is_none() {
            return Err("the font has no TrueType (glyf) or CFF outlines".into());
        }
        let u = upem as f32;
        let gpos_kern = face.tables().gpos.is_some_and(|g| {
            g.features
                .into_iter()
                .any(|f| f.tag == Tag::from_bytes(b"kern"))
        });
        let kern_table = face.tables().kern.is_some();
        let font = Font {
            units_per_em: u,
            ascender: face.ascender() as f32 / u,
            descender: face.descender() as f32 / u,
            line_gap: (face.line_gap() as f32 / u).max(0.0),
            kerns_by_gpos_only: gpos_kern && !kern_table,
            bytes: Vec::new(),
        };
        Ok(Font { bytes, ..font })
    }

    /// The face, parsed again from the bytes (a table directory read: cheap). It parsed when
    /// the font was made, so it parses now; `None` only if it somehow does not.
    fn face(&self) -> Option<Face<'_>> {
        Face::parse(&self.bytes, 0).ok()
    }

    /// The distance from one baseline to the next, em units: ascender − descender + line gap.
    pub fn line_height(&self) -> f32 {
        self.ascender - self.descender + self.line_gap
    }

    /// Lays `text` out: lines broken at `\n` (a `\r` before it is dropped), each glyph's
    /// advance width and the `kern` table's pair adjustment between neighbours, each line
    /// centred, the block centred on its advance box (see [`Layout`]).
    pub fn lay_out(&self, text: &str) -> Result<Layout, MissingGlyph> {
        let face = self.face().ok_or_else(|| MissingGlyph {
            ch: ' ',
            at: 0,
            message: "the font no longer parses".into(),
        })?;
        let kern: Vec<_> = face
            .tables()
            .kern
            .iter()
            .flat_map(|k| k.subtables)
            .filter(|s| s.horizontal && !s.variable)
            .collect();
        let u = self.units_per_em;
        // Each line's glyphs (glyph, character, x from the line's start), and its width.
        type Line = (Vec<(u16, char, f32)>, f32);
        let mut lines: Vec<Line> = Vec::new();
        let mut at = 0usize;
        for line in text.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let mut glyphs = Vec::new();
            let mut x = 0.0f32;
            let mut prev: Option<GlyphId> = None;
            for ch in line.chars() {
                if at >= MAX_TEXT_CHARS {
                    return Err(MissingGlyph {
                        ch,
                        at,
                        message: format!(
                            "the text is longer than the {MAX_TEXT_CHARS} characters a block lays \
                             out"
                        ),
                    });
                }
                if ch.is_control() {
                    return Err(MissingGlyph {
                        ch,
                        at,
                        message: format!(
                            "control character U+{:04X} is not drawn (only \\n breaks a line)",
                            ch as u32
                        ),
                    });
                }
                let g = face
                    .glyph_index(ch)
                    .filter(|g| g.0 != 0)
                    .ok_or_else(|| MissingGlyph {
                        ch,
                        at,
                        message: format!("the font has no glyph for {ch:?} (U+{:04X})", ch as u32),
                    })?;
                if let Some(p) = prev {
                    let k = kern
                        .iter()
                        .find_map(|s| s.glyphs_kerning(p, g))
                        .unwrap_or(0);
                    x += k as f32 / u;
                }
                glyphs.push((g.0, ch, x));
                x += face.glyph_hor_advance(g).unwrap_or(0) as f32 / u;
                prev = Some(g);
                at += 1;
            }
            // The line break itself.
            at += 1;
            lines.push((glyphs, x));
        }
        let width = lines.iter().map(|l| l.1).fold(0.0f32, f32::max);
        let n = lines.len().max(1) as f32;
        let height = (n - 1.0) * self.line_height() + (self.ascender - self.descender);
        let top = height / 2.0;
        let mut out = Vec::new();
        for (i, (glyphs, w)) in lines.iter().enumerate() {
            let baseline = top - self.ascender - i as f32 * self.line_height();
            for &(glyph, ch, x) in glyphs {
                out.push(PlacedGlyph {
                    glyph,
                    ch,
                    origin: Vec2::new(x - w / 2.0, baseline),
                });
            }
        }
        Ok(Layout {
            glyphs: out,
            size: Vec2::new(width, height),
        })
    }

    /// The glyph's outline filled with the non-zero rule (TrueType's and CFF's) into
    /// triangles, em units about the glyph's origin, each counter-clockwise (x right, y up),
    /// no curve further than [`TOLERANCE_EM`] from its straight edges. Empty for a glyph with
    /// no outline (a space). The message says what is wrong with an outline that cannot be
    /// filled.
    pub fn glyph_triangles(&self, glyph: u16) -> Result<Vec<[Vec2; 3]>, String> {
        let face = self
            .face()
            .ok_or_else(|| "the font no longer parses".to_string())?;
        let mut b = Outline::default();
        if face.outline_glyph(GlyphId(glyph), &mut b).is_none() {
            return Ok(Vec::new());
        }
        if b.bad {
            return Err(format!(
                "glyph {glyph}'s outline has a point that is not finite or lies past 64 em"
            ));
        }
        let path = b.finish();
        let mut buffers: VertexBuffers<lyon_tessellation::math::Point, u32> = VertexBuffers::new();
        let options = FillOptions::tolerance(TOLERANCE_EM * self.units_per_em)
            .with_fill_rule(FillRule::NonZero);
        // The tessellator returns its errors; the unwind guard is a backstop for a hostile
        // outline that trips one of its internal assertions instead.
        let filled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            FillTessellator::new().tessellate_path(
                &path,
                &options,
                &mut BuffersBuilder::new(&mut buffers, |v: FillVertex| v.position()),
            )
        }));
        match filled {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(format!("glyph {glyph}'s outline cannot be filled ({e:?})")),
            Err(_) => return Err(format!("glyph {glyph}'s outline cannot be filled")),
        }
        if buffers.indices.len() / 3 > MAX_GLYPH_TRIANGLES {
            return Err(format!(
                "glyph {glyph} fills to over {MAX_GLYPH_TRIANGLES} triangles"
            ));
        }
        let inv = 1.0 / self.units_per_em;
        let at = |i: u32| {
            buffers
                .vertices
                .get(i as usize)
                .map(|p| Vec2::new(p.x * inv, p.y * inv))
        };
        let mut out = Vec::with_capacity(buffers.indices.len() / 3);
        for t in buffers.indices.chunks_exact(3) {
            let (Some(a), Some(b), Some(c)) = (at(t[0]), at(t[1]), at(t[2])) else {
                continue;
            };
            // The tessellator's winding is not promised: each triangle is turned
            // counter-clockwise here, and one with no area (which covers nothing) dropped.
            let area = (b - a).perp_dot(c - a);
            if area > 0.0 {
                out.push([a, b, c]);
            } else if area < 0.0 {
                out.push([a, c, b]);
            }
        }
        Ok(out)
    }
}

/// Builds a lyon path from ttf-parser's outline calls, in font units, closing every contour
/// and noting a point that is not finite or is far out of the em square.
#[derive(Default)]
struct Outline {
    path: Option<lyon_tessellation::path::path::Builder>,
    open: bool,
    last: (f32, f32),
    bad: bool,
}

impl Outline {
    /// Far enough for any real glyph (a few em at most), near enough that the tessellator's
    /// arithmetic stays exact in f32.
    const LIMIT: f32 = 64.0 * 16384.0;

    fn builder(&mut self) -> &mut lyon_tessellation::path::path::Builder {
        self.path.get_or_insert_with(LyonPath::builder)
    }

    fn check(&mut self, pts: &[f32]) -> bool {
        if pts.iter().all(|v| v.is_finite() && v.abs() <= Self::LIMIT) {
            true
        } else {
            self.bad = true;
            false
        }
    }

    fn ensure_open(&mut self) {
        if !self.open {
            let (x, y) = self.last;
            self.builder().begin(point(x, y));
            self.open = true;
        }
    }

    fn finish(mut self) -> LyonPath {
        if self.open {
            self.builder().end(true);
        }
        self.path.take().unwrap_or_else(LyonPath::builder).build()
    }
}

impl OutlineBuilder for Outline {
    fn move_to(&mut self, x: f32, y: f32) {
        if !self.check(&[x, y]) {
            return;
        }
        if self.open {
            self.builder().end(true);
        }
        self.builder().begin(point(x, y));
        self.open = true;
        self.last = (x, y);
    }

    fn line_to(&mut self, x: f32, y: f32) {
        if !self.check(&[x, y]) {
            return;
        }
        self.ensure_open();
        self.builder().line_to(point(x, y));
        self.last = (x, y);
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        if !self.check(&[x1, y1, x, y]) {
            return;
        }
        self.ensure_open();
        self.builder()
            .quadratic_bezier_to(point(x1, y1), point(x, y));
        self.last = (x, y);
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        if !self.check(&[x1, y1, x2, y2, x, y]) {
            return;
        }
        self.ensure_open();
        self.builder()
            .cubic_bezier_to(point(x1, y1), point(x2, y2), point(x, y));
        self.last = (x, y);
    }

    fn close(&mut self) {
        if self.open {
            self.builder().end(true);
            self.open = false;
        }
    }
}
