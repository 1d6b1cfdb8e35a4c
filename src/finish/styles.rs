//! The styles: each a list of passes the chain starts with. Every drawn style has the standard
//! tone map (which a `tone` key tunes) first, so its looks work on display-referred values;
//! `film` alone runs its halation before it, on the radiance, as the emulsion does.

use super::ops::srgb_decode;
use super::screen::DitherKind;
use super::{
    Cel, Comic, ComicKind, Halation, Halftone, Neon, Outline, Pass, TiltShift, Tone, Vignette,
    Watercolor, REC709_WEIGHTS, STANDARD_TONE,
};

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
    "one_bit",
    "gradient_map",
    "halftone",
    "film",
    "crt",
    "tilt_shift",
    "paper_grain",
    "watercolor",
    "neon",
    "cel",
    "comic",
    "modern_comic",
    "rubber_hose",
];

/// The rubber hose style's ink: a warm near-black, as sRGB codes (an inked cel on a faded
/// print).
pub(super) const RUBBER_HOSE_INK: [u8; 3] = [0x14, 0x0e, 0x0a];

/// The gradient map style's ramp, as sRGB codes: night indigo, plum, crimson, amber, cream (a
/// "sunset" map: dark stays cool, light goes warm, luminance rising all along).
pub(super) const GRADIENT_STOPS: [[u8; 3]; 5] = [
    [0x0b, 0x06, 0x23],
    [0x4a, 0x1c, 0x5c],
    [0xb8, 0x32, 0x5a],
    [0xf0, 0x8a, 0x3c],
    [0xff, 0xf4, 0xd6],
];

/// The paper's defaults (`paper_grain`, `scale`): the darkening at the texture's peaks and
/// its cell, pixels.
pub(super) const PAPER_STRENGTH: f32 = 0.2;
pub(super) const PAPER_SCALE: f32 = 3.0;

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
        "pixel" => vec![Pass::Pixel {
            size: 4,
            palette: false,
        }],
        "kuwahara" => vec![Pass::Kuwahara { radius: 4 }],
        "one_bit" => vec![Pass::OneBit {
            kind: DitherKind::Ordered,
        }],
        "gradient_map" => vec![Pass::GradientMap {
            stops: GRADIENT_STOPS.iter().map(|&c| linear(c)).collect(),
        }],
        "halftone" => vec![Pass::Halftone(Halftone::default())],
        // Halation happens in the emulsion, on the radiance: before the tone map.
        "film" => {
            return Some(vec![
                Pass::Halation(Halation::default()),
                Pass::Tone(Tone::of(STANDARD_TONE)),
                Pass::Weave { pixels: 0.3 },
                Pass::Flicker { amount: 0.03 },
                Pass::Grain {
                    strength: 0.04,
                    response: 0.5,
                    clamp: false,
                },
                Pass::Dust { amount: 0.3 },
            ])
        }
        "crt" => vec![
            Pass::Scanlines { strength: 0.5 },
            Pass::Curvature { amount: 0.08 },
            Pass::Mask { strength: 0.3 },
        ],
        "tilt_shift" => vec![
            Pass::Saturation {
                factor: 1.25,
                weights: REC709_WEIGHTS,
            },
            Pass::TiltShift(TiltShift::default()),
        ],
        "paper_grain" => vec![Pass::Paper {
            strength: PAPER_STRENGTH,
            scale: PAPER_SCALE,
        }],
        "watercolor" => vec![
            Pass::Kuwahara { radius: 3 },
            Pass::Watercolor(Watercolor::default()),
        ],
        "neon" => vec![Pass::Neon(Neon::default())],
        "cel" => vec![Pass::Cel(Cel::default()), Pass::Outline(Outline::default())],
        "comic" => vec![Pass::Comic(Comic::of(ComicKind::Classic))],
        "modern_comic" => vec![Pass::Comic(Comic::of(ComicKind::Modern))],
        // A 1930s cartoon on a faded print: few flat cel tones, thick warm-black ink, the
        // colour faded and yellowed, then the projector's vignette, grain, flicker and dust.
        "rubber_hose" => vec![
            Pass::Saturation {
                factor: 0.6,
                weights: REC709_WEIGHTS,
            },
            Pass::Cel(Cel {
                bands: 3,
                threshold: 0.25,
                shadow: 0.45,
                softness: 0.01,
                spec: None,
            }),
            Pass::Outline(Outline {
                thickness: 3.0,
                color: linear(RUBBER_HOSE_INK),
                ..Outline::default()
            }),
            Pass::Sepia { amount: 0.35 },
            Pass::Vignette(Vignette {
                strength: 0.45,
                ..Vignette::default()
            }),
            Pass::Grain {
                strength: 0.05,
                response: 0.5,
                clamp: false,
            },
            Pass::Flicker { amount: 0.02 },
            Pass::Dust { amount: 0.2 },
        ],
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
