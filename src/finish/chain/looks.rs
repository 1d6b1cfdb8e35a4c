//! The keys of the styles' own passes (screens, film, tube, tilt-shift, paper, watercolour):
//! each adds its pass or tunes the latest of its kind, by the chain's one rule.

use super::super::screen::DitherKind;
use super::super::styles::{PAPER_SCALE, PAPER_STRENGTH};
use super::super::{Cel, Halation, Halftone, Outline, Pass, TiltShift, Watercolor};
use super::{colour, num, tune, whole, Builder};
use crate::scene::{FinishKey, FinishValue};

impl Builder {
    /// Adds or tunes the pass of one of the looks' keys.
    pub(super) fn look(&mut self, k: &FinishKey, passes: &mut Vec<Pass>) {
        let v = &k.value;
        let n = num(v);
        match k.name.as_str() {
            "dither_kind" => {
                let kind = match v {
                    FinishValue::Text(s) if s == "blue" => DitherKind::Blue,
                    _ => DitherKind::Ordered,
                };
                *tune(
                    passes,
                    |p| matches!(p, Pass::OneBit { .. }),
                    || Pass::OneBit { kind },
                ) = Pass::OneBit { kind };
            }
            "dot" | "angle" | "ink" => {
                let ink = match (k.name.as_str(), v) {
                    ("ink", FinishValue::Num(_)) => {
                        // A number is the comic's ink, and the comic styles are not drawn.
                        self.not_drawn(
                            k,
                            "ink as a number".into(),
                            "ink as a number (the comic's ink) is not drawn yet: an ink colour tunes the halftone".into(),
                        );
                        return;
                    }
                    ("ink", _) => match colour(v) {
                        Some(c) => Some(c),
                        None => return,
                    },
                    _ => None,
                };
                let Pass::Halftone(h) = tune(
                    passes,
                    |p| matches!(p, Pass::Halftone(_)),
                    || Pass::Halftone(Halftone::default()),
                ) else {
                    return;
                };
                match (k.name.as_str(), n, ink) {
                    ("dot", Some(x), _) => h.dot = x,
                    ("angle", Some(x), _) => h.angle = x,
                    (_, _, Some(c)) => h.ink = c,
                    _ => {}
                }
            }
            "halation" => {
                let Some(x) = n else { return };
                if let Pass::Halation(h) = tune(
                    passes,
                    |p| matches!(p, Pass::Halation(_)),
                    || Pass::Halation(Halation::default()),
                ) {
                    h.strength = x;
                }
            }
            "weave" => {
                let Some(x) = n else { return };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Weave { .. }),
                    || Pass::Weave { pixels: x },
                ) = Pass::Weave { pixels: x };
            }
            "flicker" => {
                let Some(x) = n else { return };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Flicker { .. }),
                    || Pass::Flicker { amount: x },
                ) = Pass::Flicker { amount: x };
            }
            "dust" => {
                let Some(x) = n else { return };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Dust { .. }),
                    || Pass::Dust { amount: x },
                ) = Pass::Dust { amount: x };
            }
            "scanlines" => {
                let Some(x) = n else { return };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Scanlines { .. }),
                    || Pass::Scanlines { strength: x },
                ) = Pass::Scanlines { strength: x };
            }
            "mask" => {
                let Some(x) = n else { return };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Mask { .. }),
                    || Pass::Mask { strength: x },
                ) = Pass::Mask { strength: x };
            }
            "curvature" => {
                let Some(x) = n else { return };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Curvature { .. }),
                    || Pass::Curvature { amount: x },
                ) = Pass::Curvature { amount: x };
            }
            "focus" | "tilt_range" => {
                let Some(x) = n else { return };
                if let Pass::TiltShift(t) = tune(
                    passes,
                    |p| matches!(p, Pass::TiltShift(_)),
                    || Pass::TiltShift(TiltShift::default()),
                ) {
                    if k.name == "focus" {
                        t.focus = x;
                    } else {
                        t.range = x;
                    }
                }
            }
            "paper_grain" | "scale" => {
                let Some(x) = n else { return };
                let grain = k.name == "paper_grain";
                let p = tune(
                    passes,
                    |p| matches!(p, Pass::Paper { .. } | Pass::Watercolor(_)),
                    || Pass::Paper {
                        strength: PAPER_STRENGTH,
                        scale: PAPER_SCALE,
                    },
                );
                match p {
                    Pass::Paper { strength, scale } => *(if grain { strength } else { scale }) = x,
                    Pass::Watercolor(w) => *(if grain { &mut w.grain } else { &mut w.scale }) = x,
                    _ => {}
                }
            }
            "darkening" => {
                let Some(x) = n else { return };
                if let Pass::Watercolor(w) = tune(
                    passes,
                    |p| matches!(p, Pass::Watercolor(_)),
                    || Pass::Watercolor(Watercolor::default()),
                ) {
                    w.darkening = x;
                }
            }
            "cel_bands" | "cel_shadow" | "cel_threshold" | "cel_softness" => {
                let Some(x) = n else { return };
                let Pass::Cel(c) = tune(
                    passes,
                    |p| matches!(p, Pass::Cel(_)),
                    || Pass::Cel(Cel::default()),
                ) else {
                    return;
                };
                match k.name.as_str() {
                    "cel_bands" => c.bands = whole(x as f64).clamp(2, 256) as u32,
                    "cel_shadow" => c.shadow = x,
                    "cel_threshold" => c.threshold = x,
                    _ => c.softness = x,
                }
            }
            "outline" | "outline_alpha" | "outline_color" | "outline_thickness" => {
                // `outline = false` (or `enabled = false`) turns the latest outline off.
                let off = match v {
                    FinishValue::Bool(b) => !b,
                    FinishValue::Table(t) => t
                        .iter()
                        .any(|(n, v)| n == "enabled" && matches!(v, FinishValue::Bool(false))),
                    _ => false,
                };
                if off {
                    if let Some(i) = passes.iter().rposition(|p| matches!(p, Pass::Outline(_))) {
                        passes.remove(i);
                    }
                    return;
                }
                let Pass::Outline(o) = tune(
                    passes,
                    |p| matches!(p, Pass::Outline(_)),
                    || Pass::Outline(Outline::default()),
                ) else {
                    return;
                };
                match (k.name.as_str(), v) {
                    ("outline_alpha", FinishValue::Num(x)) => o.alpha = *x as f32,
                    ("outline_thickness", FinishValue::Num(x)) => o.thickness = *x as f32,
                    ("outline_color", _) => o.color = colour(v).unwrap_or(o.color),
                    ("outline", FinishValue::Table(t)) => {
                        for (name, tv) in t {
                            match (name.as_str(), tv) {
                                ("thickness", FinishValue::Num(x)) => o.thickness = *x as f32,
                                ("alpha", FinishValue::Num(x)) => o.alpha = *x as f32,
                                ("color", _) => o.color = colour(tv).unwrap_or(o.color),
                                ("local_color", FinishValue::Bool(b)) => o.local_color = *b,
                                // `crease_angle` needs the normal pass: the schema marks it
                                // not drawn, and the bake's notes name it.
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}
