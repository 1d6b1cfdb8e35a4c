//! The comic looks (styles `comic` and `modern_comic`; the keys `ink` as a number, `levels`
//! on a comic pass, `black_threshold`, `highlight_threshold`, `interior_line_strength`,
//! `line_weight`, `saturation_lift`, `tone_steps`): flat colour, spotted blacks and inked
//! lines, as a comic's inker and colourist make them.
//!
//! Both read the luminance's sRGB code L of the picture and draw, in order:
//! 1. the colour: `classic`, a four-colour print's flat colours: each channel's code
//!    posterized to `levels`, the shadows (L below 0.45) screened with Ben-Day dots of the
//!    colour at ⅓; `modern`, a digital colourist's cel steps: L above `black_threshold` cut
//!    into `tone_steps` flat steps up to `highlight_threshold`, each drawn at its top edge's
//!    level with the pixel's chroma, above it the highlight (halfway to white);
//! 2. spotted blacks: L below `black_threshold` inked solid;
//! 3. the lines, taken from the picture before it is flattened: silhouettes where the depth
//!    steps (without a depth, the luminance's edges) `line_weight` thick, and interior lines
//!    (creases of 40° or more in the normal; without a normal, the luminance's edges that are
//!    no silhouette) a pixel thinner at `interior_line_strength`.
//!
//! The ink is black at opacity `ink` (0 to 1). The saturation is lifted by
//! 1 + `saturation_lift` first (about the Rec.709 luminance), as print colour is.

use serde_json::{json, Value};

use super::ink::{creases, draw_lines, silhouettes, Outline};
use super::ops::{srgb_decode, srgb_encode};
use super::screen::Halftone;
use super::{Image, REC709_WEIGHTS};

/// Which comic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComicKind {
    /// Style `comic`: a four-colour print (posterized channels, Ben-Day shadows, bold lines).
    Classic,
    /// Style `modern_comic`: digital colour (tone steps, highlights, weighted lines).
    Modern,
}

impl ComicKind {
    /// The kind's name in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            ComicKind::Classic => "classic",
            ComicKind::Modern => "modern",
        }
    }
}

/// A comic pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comic {
    /// Classic or modern.
    pub kind: ComicKind,
    /// The ink's opacity, 0 to 1 (`ink` as a number).
    pub ink: f32,
    /// Classic: values per channel (`levels`; at least 2).
    pub levels: u32,
    /// The luminance code below which ink fills solid.
    pub black_threshold: f32,
    /// Modern: the luminance code above which the highlight is drawn.
    pub highlight_threshold: f32,
    /// The interior lines' opacity over the silhouettes', 0 to 1.
    pub interior_line_strength: f32,
    /// The silhouettes' width, pixels (as the outline's thickness).
    pub line_weight: f32,
    /// The saturation's lift: × (1 + lift).
    pub saturation_lift: f32,
    /// Modern: the flat steps between the blacks and the highlight, 3 to 5.
    pub tone_steps: u32,
}

/// The classic comic's Ben-Day screen: dots of 4 pixels at 15° (the yellow plate's angle,
/// away from the black's 45°).
const BEN_DAY: Halftone = Halftone {
    dot: 4.0,
    angle: 15.0,
    ink: [0.0; 3],
    paper: [1.0; 3],
};

/// The luminance code below which the classic comic screens its shadows.
const SHADE: f32 = 0.45;

/// The interior lines' crease, degrees.
const INTERIOR_CREASE: f32 = 40.0;

impl Comic {
    /// A comic pass of `kind` with its style's defaults.
    pub fn of(kind: ComicKind) -> Comic {
        match kind {
            ComicKind::Classic => Comic {
                kind,
                ink: 1.0,
                levels: 4,
                black_threshold: 0.12,
                highlight_threshold: 1.0,
                interior_line_strength: 1.0,
                line_weight: 3.0,
                saturation_lift: 0.3,
                tone_steps: 3,
            },
            ComicKind::Modern => Comic {
                kind,
                ink: 1.0,
                levels: 4,
                black_threshold: 0.08,
                highlight_threshold: 0.85,
                interior_line_strength: 0.5,
                line_weight: 2.0,
                saturation_lift: 0.15,
                tone_steps: 3,
            },
        }
    }

    pub(super) fn to_json(self) -> Value {
        json!({
            "kind": self.kind.name(), "ink": self.ink, "levels": self.levels,
            "black_threshold": self.black_threshold,
            "highlight_threshold": self.highlight_threshold,
            "interior_line_strength": self.interior_line_strength,
            "line_weight": self.line_weight, "saturation_lift": self.saturation_lift,
            "tone_steps": self.tone_steps,
            "input": "the Rec.709 luminance's sRGB code",
            "ben_day": { "dot": BEN_DAY.dot, "angle": BEN_DAY.angle, "below": SHADE, "shade": "one third of the colour" },
            "interior_crease_degrees": INTERIOR_CREASE,
            "lines": "silhouettes from the depth's steps (else luminance edges), interior from the normal's creases (else luminance edges); black at opacity ink",
        })
    }

    /// The flat colour of linear `c` at pixel (`x`, `y`), before the lines.
    pub fn colour(&self, c: [f32; 3], x: usize, y: usize) -> [f32; 3] {
        let c = c.map(|v| if v.is_finite() { v.max(0.0) } else { 0.0 });
        let lift = finite(self.saturation_lift, 0.0).max(-1.0);
        let y0 = luma(c);
        let c = c.map(|v| (y0 + (1.0 + lift) * (v - y0)).max(0.0));
        let y1 = luma(c);
        let l = srgb_encode(y1.min(1.0));
        let ink = finite(self.ink, 1.0).clamp(0.0, 1.0);
        let out = match self.kind {
            ComicKind::Classic => {
                let n = (self.levels.max(2) - 1) as f32;
                let flat = c.map(|v| srgb_decode((srgb_encode(v.min(1.0)) * n).round() / n));
                if l < SHADE && BEN_DAY.threshold(x, y) < (SHADE - l) / SHADE {
                    flat.map(|v| v / 3.0)
                } else {
                    flat
                }
            }
            ComicKind::Modern => {
                let bt = finite(self.black_threshold, 0.08).clamp(0.0, 1.0);
                let ht = finite(self.highlight_threshold, 0.85).clamp(bt, 1.0);
                if l > ht {
                    let top = chroma_at(c, y1, 1.0);
                    top.map(|v| 0.5 * (v + 1.0))
                } else {
                    let n = self.tone_steps.clamp(3, 5) as f32;
                    let t = ((l - bt) / (ht - bt).max(1e-6)).clamp(0.0, 1.0);
                    let k = (t * n).floor().min(n - 1.0);
                    chroma_at(c, y1, bt + (ht - bt) * (k + 1.0) / n)
                }
            }
        };
        let bt = finite(self.black_threshold, 0.1);
        if l < bt {
            out.map(|v| v * (1.0 - ink))
        } else {
            out
        }
    }
}

fn finite(v: f32, fallback: f32) -> f32 {
    if v.is_finite() {
        v
    } else {
        fallback
    }
}

fn luma(c: [f32; 3]) -> f32 {
    c[0] * REC709_WEIGHTS[0] + c[1] * REC709_WEIGHTS[1] + c[2] * REC709_WEIGHTS[2]
}

/// Linear `c` (of luminance `y`) at the luminance whose code is `level`, its chroma kept.
fn chroma_at(c: [f32; 3], y: f32, level: f32) -> [f32; 3] {
    let target = srgb_decode(level.clamp(0.0, 1.0));
    if y <= 1e-6 {
        return [target; 3];
    }
    c.map(|v| (v / y * target).min(1.0))
}

/// Draws the comic pass.
pub(super) fn comic(
    img: &mut Image,
    c: &Comic,
    depth: Option<&[f32]>,
    normal: Option<&[[f32; 3]]>,
    encoded: bool,
) {
    let (w, h) = (img.width, img.height);
    // The lines come from the picture as it was, before it is flattened.
    let outer = silhouettes(img, depth);
    let inner: Vec<bool> = match normal {
        Some(n) => creases(w, h, n, INTERIOR_CREASE.to_radians().cos()),
        None => silhouettes(img, None),
    };
    let inner: Vec<bool> = inner.iter().zip(&outer).map(|(&i, &o)| i && !o).collect();
    img.map(|i, col| {
        let lin = if encoded { col.map(srgb_decode) } else { col };
        let out = c.colour(lin, i % w, i / w);
        if encoded {
            out.map(srgb_encode)
        } else {
            out
        }
    });
    let ink = finite(c.ink, 1.0).clamp(0.0, 1.0);
    let weight = finite(c.line_weight, 1.0).clamp(1.0, 64.0);
    let line = |thickness: f32, alpha: f32| Outline {
        thickness,
        alpha,
        color: [0.0; 3],
        local_color: false,
        crease_angle: None,
    };
    let interior = ink * finite(c.interior_line_strength, 0.0).clamp(0.0, 1.0);
    if interior > 0.0 {
        draw_lines(
            img,
            &inner,
            &line((weight - 1.0).max(1.0), interior),
            encoded,
        );
    }
    draw_lines(img, &outer, &line(weight, ink), encoded);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modern_steps_are_flat_and_blacks_are_inked() {
        let c = Comic::of(ComicKind::Modern);
        let levels: Vec<f32> = (0..=200)
            .map(|i| {
                let v = srgb_decode(i as f32 / 200.0);
                srgb_encode(luma(c.colour([v; 3], 0, 0)).min(1.0))
            })
            .collect();
        let mut distinct = levels.clone();
        distinct.dedup_by(|a, b| (*a - *b).abs() < 1e-3);
        // Black, three steps and the highlight.
        assert_eq!(distinct.len(), 5, "{distinct:?}");
        assert_eq!(levels[0], 0.0);
        assert!(levels.windows(2).all(|p| p[1] >= p[0] - 1e-4));
    }

    #[test]
    fn classic_posterizes_and_screens_the_shadows() {
        let c = Comic::of(ComicKind::Classic);
        // A mid-shadow grey: some pixels screened darker, the rest flat.
        let g = srgb_decode(0.3);
        let px: Vec<[f32; 3]> = (0..64).map(|i| c.colour([g; 3], i % 8, i / 8)).collect();
        let flat = srgb_decode(1.0 / 3.0);
        assert!(px
            .iter()
            .all(|p| p[0] == flat || (p[0] - flat / 3.0).abs() < 1e-6));
        let dark = px.iter().filter(|p| p[0] < flat - 1e-4).count();
        assert!(dark > 0 && dark < 64, "{dark}");
        // A bright colour is posterized to one of 4 codes a channel.
        let out = c.colour([0.9, 0.5, 0.2], 0, 0);
        for v in out {
            let code = srgb_encode(v) * 3.0;
            assert!((code - code.round()).abs() < 1e-3, "{out:?}");
        }
    }
}
