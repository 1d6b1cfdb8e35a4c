//! The keys of the styles' own passes (screens, film, tube, tilt-shift, paper, watercolour):
//! each adds its pass or tunes the latest of its kind, by the chain's one rule.

use super::super::screen::DitherKind;
use super::super::styles::{PAPER_SCALE, PAPER_STRENGTH};
use super::super::{
    Cavity, Cel, CelSpec, Comic, ComicKind, Halation, Halftone, Outline, Pass, Rim, Scratches,
    Tape, TapeDirection, TiltShift, Watercolor,
};
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
                    ("ink", FinishValue::Num(x)) => {
                        // A number is the comic's ink: its opacity.
                        if let Pass::Comic(c) = tune(
                            passes,
                            |p| matches!(p, Pass::Comic(_)),
                            || Pass::Comic(Comic::of(ComicKind::Classic)),
                        ) {
                            c.ink = *x as f32;
                        }
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
            "cel_spec" | "cel_spec_roughness" | "cel_spec_threshold" => {
                let Some(x) = n else { return };
                let Pass::Cel(c) = tune(
                    passes,
                    |p| matches!(p, Pass::Cel(_)),
                    || Pass::Cel(Cel::default()),
                ) else {
                    return;
                };
                let s = c.spec.get_or_insert_with(CelSpec::default);
                match k.name.as_str() {
                    "cel_spec" => s.strength = x,
                    "cel_spec_roughness" => s.roughness = x,
                    _ => s.threshold = x,
                }
            }
            "black_threshold"
            | "highlight_threshold"
            | "interior_line_strength"
            | "line_weight"
            | "saturation_lift"
            | "tone_steps" => {
                let Some(x) = n else { return };
                let Pass::Comic(c) = tune(
                    passes,
                    |p| matches!(p, Pass::Comic(_)),
                    || Pass::Comic(Comic::of(ComicKind::Modern)),
                ) else {
                    return;
                };
                match k.name.as_str() {
                    "black_threshold" => c.black_threshold = x,
                    "highlight_threshold" => c.highlight_threshold = x,
                    "interior_line_strength" => c.interior_line_strength = x,
                    "line_weight" => c.line_weight = x,
                    "saturation_lift" => c.saturation_lift = x,
                    _ => c.tone_steps = x.round().clamp(3.0, 5.0) as u32,
                }
            }
            "aberration" => {
                let Some(x) = n else { return };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Aberration { .. }),
                    || Pass::Aberration { amount: x },
                ) = Pass::Aberration { amount: x };
            }
            "distortion" => {
                let Some(x) = n else { return };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Distortion { .. }),
                    || Pass::Distortion { amount: x },
                ) = Pass::Distortion { amount: x };
            }
            "palette" => {
                // The pixel art's palette: the latest pixel pass's, or a pixel pass of 1 (none
                // of its own blocks) with it.
                let FinishValue::Bool(on) = v else { return };
                if !on && !passes.iter().any(|p| matches!(p, Pass::Pixel { .. })) {
                    return;
                }
                if let Pass::Pixel { palette, .. } = tune(
                    passes,
                    |p| matches!(p, Pass::Pixel { .. }),
                    || Pass::Pixel {
                        size: 1,
                        palette: false,
                    },
                ) {
                    *palette = *on;
                }
            }
            "scratches" => {
                let Pass::Scratches(x) = tune(
                    passes,
                    |p| matches!(p, Pass::Scratches(_)),
                    || Pass::Scratches(Scratches::default()),
                ) else {
                    return;
                };
                match v {
                    FinishValue::Num(s) => x.strength = *s as f32,
                    FinishValue::Table(t) => {
                        for (name, tv) in t {
                            match (name.as_str(), num(tv)) {
                                ("count", Some(c)) => {
                                    x.count = whole(c as f64).min(u32::MAX as u64) as u32
                                }
                                ("strength", Some(c)) => x.strength = c,
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            "tape" => {
                let Pass::Tape(t) = tune(
                    passes,
                    |p| matches!(p, Pass::Tape(_)),
                    || Pass::Tape(Tape::default()),
                ) else {
                    return;
                };
                let direction = |s: &str| {
                    if s == "rewind" {
                        TapeDirection::Rewind
                    } else {
                        TapeDirection::Forward
                    }
                };
                match v {
                    FinishValue::Text(s) => t.direction = direction(s),
                    FinishValue::Num(s) => t.strength = *s as f32,
                    FinishValue::Table(tt) => {
                        for (name, tv) in tt {
                            match (name.as_str(), tv) {
                                ("direction", FinishValue::Text(s)) => t.direction = direction(s),
                                (key, FinishValue::Num(x)) => {
                                    let x = *x as f32;
                                    match key {
                                        "strength" => t.strength = x,
                                        "bands" => t.bands = x,
                                        "echo" => t.echo = x,
                                        "grain" => t.grain = x,
                                        "smear" => t.smear = x,
                                        "split" => t.split = x,
                                        "wash" => t.wash = x,
                                        _ => {}
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            "cavity" | "cavity_distance" => {
                let Some(x) = n else { return };
                if let Pass::Cavity(c) = tune(
                    passes,
                    |p| matches!(p, Pass::Cavity(_)),
                    || Pass::Cavity(Cavity::default()),
                ) {
                    if k.name == "cavity" {
                        c.strength = x;
                    } else {
                        c.distance = x;
                    }
                }
            }
            "rim" | "rim_color" | "rim_width" => {
                let Pass::Rim(r) = tune(
                    passes,
                    |p| matches!(p, Pass::Rim(_)),
                    || Pass::Rim(Rim::default()),
                ) else {
                    return;
                };
                match (k.name.as_str(), n) {
                    ("rim", Some(x)) => r.strength = x,
                    ("rim_width", Some(x)) => r.width = x,
                    ("rim_color", _) => r.color = colour(v).unwrap_or(r.color),
                    _ => {}
                }
            }
            "outline" | "outline_alpha" | "outline_color" | "outline_thickness"
            | "crease_angle" => {
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
                    ("crease_angle", FinishValue::Num(x)) => o.crease_angle = Some(*x as f32),
                    ("outline", FinishValue::Table(t)) => {
                        for (name, tv) in t {
                            match (name.as_str(), tv) {
                                ("thickness", FinishValue::Num(x)) => o.thickness = *x as f32,
                                ("alpha", FinishValue::Num(x)) => o.alpha = *x as f32,
                                ("color", _) => o.color = colour(tv).unwrap_or(o.color),
                                ("local_color", FinishValue::Bool(b)) => o.local_color = *b,
                                ("crease_angle", FinishValue::Num(x)) => {
                                    o.crease_angle = Some(*x as f32)
                                }
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
