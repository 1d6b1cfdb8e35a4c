//! The styles: each a list of passes the chain starts with. Every drawn style starts with the
//! standard tone map (which a `tone` key tunes), so its looks work on display-referred values.

use super::ops::srgb_decode;
use super::{Pass, Tone, Vignette, REC709_WEIGHTS, STANDARD_TONE};

/// The styles this version draws; the others are named in the bake's notes.
pub const DRAWN_STYLES: &[&str] = &[
    "bw",
    "noir",
    "vignette",
    "sepia",
    "duotone",
    "posterize",
    "pixel",
    "kuwahara",
];

/// The duotone style's colours: a deep blue and a warm cream, as sRGB codes.
pub(super) const DUOTONE_SHADOW: [u8; 3] = [0x1d, 0x2b, 0x53];
pub(super) const DUOTONE_HIGHLIGHT: [u8; 3] = [0xff, 0xe3, 0xb0];

/// An sRGB code triple as linear RGB (how the format reads `"#rrggbb"`).
pub(super) fn linear(c: [u8; 3]) -> [f32; 3] {
    c.map(|v| srgb_decode(v as f32 / 255.0))
}

/// The passes style `name` starts the chain with; `None` for a style not drawn.
pub(super) fn passes(name: &str) -> Option<Vec<Pass>> {
    let look = match name {
        "bw" => vec![Pass::Mono {
            weights: REC709_WEIGHTS,
        }],
        "noir" => vec![
            Pass::Noir {
                weights: REC709_WEIGHTS,
                crush: 0.02,
                keep: None,
                keep_range: 0.1,
            },
            Pass::Contrast { amount: 0.25 },
        ],
        "vignette" => vec![Pass::Vignette(Vignette::default())],
        "sepia" => vec![Pass::Sepia { amount: 1.0 }],
        "duotone" => vec![Pass::Duotone {
            shadow: linear(DUOTONE_SHADOW),
            highlight: linear(DUOTONE_HIGHLIGHT),
        }],
        "posterize" => vec![Pass::Posterize { levels: 5 }],
        "pixel" => vec![Pass::Pixel { size: 4 }],
        "kuwahara" => vec![Pass::Kuwahara { radius: 4 }],
        _ => return None,
    };
    let mut out = vec![Pass::Tone(Tone::of(STANDARD_TONE))];
    out.extend(look);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::schema::STYLES;

    #[test]
    fn every_drawn_style_is_a_format_style_with_passes() {
        for s in DRAWN_STYLES {
            assert!(STYLES.contains(s), "{s}");
            assert!(passes(s).is_some_and(|p| p.len() >= 2), "{s}");
        }
        for s in STYLES.iter().filter(|s| !DRAWN_STYLES.contains(s)) {
            assert!(passes(s).is_none(), "{s}");
        }
    }
}
