//! Building the chain from `[finish]` exactly as the format orders it:
//!
//! 1. the base: the style's passes first (`style`), then each other key of the base (inline
//!    keys, or the finish file's top level) in name order, not the order written, each adding
//!    its pass, or tuning the pass of its kind the chain already holds;
//! 2. then each `[[finish.pass]]` in the order written, each building its passes from nothing
//!    by the same rule (keys in name order, tuning only within that pass) and appended.
//!
//! `seed`, `frame` and `style` are the chain's. A scene without `[finish]` gets the standard
//! finish ([`Chain::standard`]).

use crate::scene::schema::{self, Use};
use crate::scene::{Code, Diagnostic, Finish, FinishKey, FinishValue, Location, Severity};

mod looks;

use super::ops::srgb_decode;
use super::spatial::{Rings, RING_GAINS};
use super::styles::{self, DUOTONE_HIGHLIGHT, DUOTONE_SHADOW};
use super::{
    Bloom, BloomKind, Chain, Lut, NotDrawn, Pass, Tone, ToneKind, Vignette, VignetteKind, Warmth,
    WarmthKind, REC709_WEIGHTS,
};

/// The standard finish's tone map (and the tone map every drawn style starts with).
pub const STANDARD_TONE: ToneKind = ToneKind::Agx;

/// The chain `[finish]` builds, or every finding that refuses it. `None` is a scene without
/// `[finish]`: the standard finish.
pub fn resolve(finish: Option<&Finish>) -> Result<Chain, Vec<Diagnostic>> {
    let Some(f) = finish else {
        return Ok(Chain::standard());
    };
    let mut b = Builder {
        errors: Vec::new(),
        not_drawn: Vec::new(),
    };
    let mut chain = Chain {
        passes: Vec::new(),
        seed: 0,
        frame: 0,
        style: None,
        file: f
            .file
            .as_ref()
            .map(|p| p.to_string_lossy().replace('\\', "/")),
        standard: false,
        not_drawn: Vec::new(),
    };
    for k in &f.base {
        match (k.name.as_str(), &k.value) {
            ("seed", FinishValue::Num(v)) => chain.seed = whole(*v),
            ("frame", FinishValue::Num(v)) => chain.frame = whole(*v),
            ("style", FinishValue::Text(s)) => {
                chain.style = Some(s.clone());
                match styles::passes(s) {
                    Some(p) => chain.passes = p,
                    None => b.not_drawn(
                        k,
                        format!("style {s:?}"),
                        format!("style {s:?} is not drawn yet: the chain has no style passes"),
                    ),
                }
            }
            _ => {}
        }
    }
    b.build(&f.base, &mut chain.passes);
    for keys in &f.passes {
        let mut own = Vec::new();
        b.build(keys, &mut own);
        chain.passes.extend(own);
    }
    chain.not_drawn = b.not_drawn;
    if b.errors.is_empty() {
        Ok(chain)
    } else {
        Err(b.errors)
    }
}

/// A whole number as the format reads one: ≥ 0, rounded (the checker refused the rest).
fn whole(v: f64) -> u64 {
    if v.is_finite() && v > 0.0 {
        v.round().min(u64::MAX as f64) as u64
    } else {
        0
    }
}

fn num(v: &FinishValue) -> Option<f32> {
    match v {
        FinishValue::Num(x) => Some(*x as f32),
        _ => None,
    }
}

/// A colour: `"#rrggbb"` (sRGB codes, read as linear) or `[r, g, b]` (linear).
fn colour(v: &FinishValue) -> Option<[f32; 3]> {
    match v {
        FinishValue::Text(s) => {
            let h = s.strip_prefix('#')?;
            if h.len() != 6 || !h.is_ascii() {
                return None;
            }
            let byte = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).ok();
            Some([byte(0)?, byte(2)?, byte(4)?].map(|c| srgb_decode(c as f32 / 255.0)))
        }
        FinishValue::Nums(n) if n.len() == 3 => Some([n[0] as f32, n[1] as f32, n[2] as f32]),
        _ => None,
    }
}

fn pair(v: &FinishValue) -> Option<[f32; 2]> {
    match v {
        FinishValue::Nums(n) if n.len() == 2 => Some([n[0] as f32, n[1] as f32]),
        _ => None,
    }
}

struct Builder {
    errors: Vec<Diagnostic>,
    not_drawn: Vec<NotDrawn>,
}

/// The pass of the kind `is` picks in `passes`, the latest, or a new one `make` builds,
/// appended.
fn tune(
    passes: &mut Vec<Pass>,
    is: impl Fn(&Pass) -> bool,
    make: impl FnOnce() -> Pass,
) -> &mut Pass {
    let i = match passes.iter().rposition(is) {
        Some(i) => i,
        None => {
            passes.push(make());
            passes.len() - 1
        }
    };
    &mut passes[i]
}

impl Builder {
    fn error(&mut self, k: &FinishKey, key: &str, message: String) {
        self.errors.push(diag(&k.at, key, message));
    }

    fn not_drawn(&mut self, k: &FinishKey, what: String, message: String) {
        self.not_drawn.push(NotDrawn {
            what,
            message,
            at: k.at.clone(),
        });
    }

    /// Adds or tunes the passes of `keys`, in name order, in `passes`.
    fn build(&mut self, keys: &[FinishKey], passes: &mut Vec<Pass>) {
        let mut sorted: Vec<&FinishKey> = keys.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        for k in sorted {
            self.key(k, passes);
        }
        // Checked once every key is in: `gain` comes before `tone` in name order.
        let at = |name: &str| keys.iter().find(|k| k.name == name);
        for p in passes.iter() {
            let Pass::Tone(t) = p else { continue };
            if let Some(k) = at("tone").filter(|_| {
                t.kind == ToneKind::Neutral
                    && (t.start.is_nan()
                        || t.start <= 0.0
                        || t.start > super::tone::NEUTRAL_START_MAX)
            }) {
                self.error(k, "tone.start", format!("tone start = {} is outside (0, {:.4}]: the neutral map's compression must start between black and white", t.start, super::tone::NEUTRAL_START_MAX));
            }
            if let Some(k) = at("gain").filter(|_| t.gain != 1.0 && t.kind != ToneKind::Aces) {
                self.error(
                    k,
                    "gain",
                    format!(
                        "gain tunes the ACES tone map, and this tone pass is {:?}",
                        t.kind.name()
                    ),
                );
            }
        }
    }

    fn key(&mut self, k: &FinishKey, passes: &mut Vec<Pass>) {
        let v = &k.value;
        let n = num(v);
        match k.name.as_str() {
            // The chain's own; no pass.
            "seed" | "frame" | "style" => {}
            "exposure" => {
                if let Some(x) = n {
                    *tune(
                        passes,
                        |p| matches!(p, Pass::Exposure { .. }),
                        || Pass::Exposure { stops: 0.0 },
                    ) = Pass::Exposure { stops: x };
                }
            }
            "contrast" => {
                if let Some(x) = n {
                    if let Pass::Contrast { amount } = tune(
                        passes,
                        |p| matches!(p, Pass::Contrast { .. }),
                        || Pass::Contrast { amount: 0.0 },
                    ) {
                        *amount = x;
                    }
                }
            }
            "saturation" => {
                if let Some(x) = n {
                    if let Pass::Saturation { factor, .. } = tune(
                        passes,
                        |p| matches!(p, Pass::Saturation { .. }),
                        || Pass::Saturation {
                            factor: 1.0,
                            weights: REC709_WEIGHTS,
                        },
                    ) {
                        *factor = x;
                    }
                }
            }
            "weights" => {
                let Some(w) = colour(v) else { return };
                let p = tune(
                    passes,
                    |p| {
                        matches!(
                            p,
                            Pass::Mono { .. } | Pass::Saturation { .. } | Pass::Noir { .. }
                        )
                    },
                    || Pass::Mono { weights: w },
                );
                match p {
                    Pass::Mono { weights }
                    | Pass::Saturation { weights, .. }
                    | Pass::Noir { weights, .. } => *weights = w,
                    _ => {}
                }
            }
            "warmth" => {
                let Pass::Warmth(w) = tune(
                    passes,
                    |p| matches!(p, Pass::Warmth(_)),
                    || Pass::Warmth(Warmth::default()),
                ) else {
                    return;
                };
                match v {
                    FinishValue::Num(x) => w.amount = *x as f32,
                    FinishValue::Table(t) => {
                        for (name, tv) in t {
                            match (name.as_str(), num(tv), pair(tv)) {
                                ("amount", Some(x), _) => w.amount = x,
                                ("shadow", Some(x), _) => w.shadow = x,
                                ("highlight", Some(x), _) => w.highlight = x,
                                ("low", _, Some(p)) => w.low = p,
                                ("high", _, Some(p)) => w.high = p,
                                ("kind", ..) => {
                                    w.kind = if matches!(tv, FinishValue::Text(s) if s == "luma_curve")
                                    {
                                        WarmthKind::LumaCurve
                                    } else {
                                        WarmthKind::Linear
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            "vignette" => {
                let Pass::Vignette(g) = tune(
                    passes,
                    |p| matches!(p, Pass::Vignette(_)),
                    || Pass::Vignette(Vignette::default()),
                ) else {
                    return;
                };
                match v {
                    FinishValue::Num(x) => g.strength = *x as f32,
                    FinishValue::Table(t) => {
                        for (name, tv) in t {
                            match (name.as_str(), num(tv)) {
                                ("strength", Some(x)) => g.strength = x,
                                ("power", Some(x)) => g.power = x,
                                ("aspect", Some(x)) => g.aspect = x,
                                ("scale", Some(x)) => g.scale = x,
                                ("inner", Some(x)) => g.inner = x,
                                ("outer", Some(x)) => g.outer = x,
                                ("kind", _) => {
                                    g.kind = if matches!(tv, FinishValue::Text(s) if s == "smoothstep")
                                    {
                                        VignetteKind::Smoothstep
                                    } else {
                                        VignetteKind::Power
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            "bloom" | "threshold" => {
                let Pass::Bloom(g) = tune(
                    passes,
                    |p| matches!(p, Pass::Bloom(_)),
                    || Pass::Bloom(Bloom::default()),
                ) else {
                    return;
                };
                match (k.name.as_str(), v) {
                    ("threshold", FinishValue::Num(x)) => g.threshold = *x as f32,
                    (_, FinishValue::Num(x)) => g.strength = *x as f32,
                    (_, FinishValue::Table(t)) => {
                        let four = |tv: &FinishValue| match tv {
                            FinishValue::Nums(n) if n.len() == 4 => {
                                Some([0, 1, 2, 3].map(|i| n[i] as f32))
                            }
                            _ => None,
                        };
                        let ring = |g: &mut Bloom| {
                            *g.rings.get_or_insert(Rings {
                                radii: None,
                                gains: RING_GAINS,
                            })
                        };
                        for (name, tv) in t {
                            match (name.as_str(), num(tv)) {
                                ("strength", Some(x)) => g.strength = x,
                                ("threshold", Some(x)) => g.threshold = x,
                                ("knee", Some(x)) => g.knee = x,
                                ("knee_width", Some(x)) => g.knee_width = Some(x),
                                ("soft", Some(x)) => g.soft = x,
                                ("unit", Some(x)) => g.unit = x,
                                ("down", Some(x)) => g.down = whole(x as f64).clamp(1, 64) as u32,
                                ("sigma", Some(x)) => g.sigma = (x > 0.0).then_some(x),
                                ("clamp", Some(x)) => g.clamp = x,
                                ("radius", Some(x)) => {
                                    g.radius = Some(whole(x as f64).min(u32::MAX as u64) as u32)
                                }
                                ("linear_taps", _) => {
                                    g.linear_taps = matches!(tv, FinishValue::Bool(true))
                                }
                                ("radii", _) => {
                                    let mut r = ring(g);
                                    r.radii = four(tv).or(r.radii);
                                    g.rings = Some(r);
                                }
                                ("gains", _) => {
                                    let mut r = ring(g);
                                    r.gains = four(tv).unwrap_or(r.gains);
                                    g.rings = Some(r);
                                }
                                ("kind", _) => match tv {
                                    FinishValue::Text(s) if s == "box" => g.kind = BloomKind::Box,
                                    FinishValue::Text(s) if s == "tent" => g.kind = BloomKind::Tent,
                                    FinishValue::Text(s) if s == "rings" => g.rings = Some(ring(g)),
                                    _ => {}
                                },
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            "grain" => {
                let g = tune(
                    passes,
                    |p| matches!(p, Pass::Grain { .. }),
                    || Pass::Grain {
                        strength: 0.0,
                        response: 0.5,
                        clamp: false,
                    },
                );
                let Pass::Grain {
                    strength,
                    response,
                    clamp,
                } = g
                else {
                    return;
                };
                match v {
                    FinishValue::Num(x) => *strength = *x as f32,
                    FinishValue::Table(t) => {
                        for (name, tv) in t {
                            match (name.as_str(), tv) {
                                ("strength", FinishValue::Num(x)) => *strength = *x as f32,
                                ("response", FinishValue::Num(x)) => *response = *x as f32,
                                ("clamp", FinishValue::Bool(b)) => *clamp = *b,
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            "dither" => {
                let a = match v {
                    FinishValue::Bool(b) => f32::from(u8::from(*b)),
                    FinishValue::Num(x) => *x as f32,
                    _ => return,
                };
                *tune(
                    passes,
                    |p| matches!(p, Pass::Dither { .. }),
                    || Pass::Dither { amplitude: 0.0 },
                ) = Pass::Dither { amplitude: a };
            }
            "lut" => {
                let FinishValue::Table(t) = v else { return };
                let size = t
                    .iter()
                    .find(|(n, _)| n == "size")
                    .and_then(|(_, v)| num(v));
                let values = t.iter().find_map(|(n, v)| match (n.as_str(), v) {
                    ("values", FinishValue::Nums(x)) => Some(x),
                    _ => None,
                });
                let (Some(size), Some(values)) = (size, values) else {
                    return;
                };
                let size = size.round() as usize;
                if !(2..=32).contains(&size) || values.len() != size * size * size * 3 {
                    // The checker refuses these (bad-value); a model built by hand is told too.
                    self.error(
                        k,
                        "lut.values",
                        format!("a lut of size {size} needs {} values", size.pow(3) * 3),
                    );
                    return;
                }
                let lut = Lut {
                    size,
                    values: values.iter().map(|&x| x as f32).collect(),
                };
                match passes.iter().rposition(|p| matches!(p, Pass::Lut(_))) {
                    Some(i) => passes[i] = Pass::Lut(lut),
                    None => passes.push(Pass::Lut(lut)),
                }
            }
            "tone" | "gain" => {
                let Pass::Tone(t) = tune(
                    passes,
                    |p| matches!(p, Pass::Tone(_)),
                    || {
                        Pass::Tone(Tone::of(if k.name == "gain" {
                            ToneKind::Aces
                        } else {
                            super::STANDARD_TONE
                        }))
                    },
                ) else {
                    return;
                };
                let kind_of = |s: &str| match s {
                    "aces" => Some(ToneKind::Aces),
                    "agx" => Some(ToneKind::Agx),
                    "neutral" => Some(ToneKind::Neutral),
                    _ => None,
                };
                match v {
                    FinishValue::Num(x) => t.gain = *x as f32,
                    FinishValue::Text(s) => {
                        if let Some(kind) = kind_of(s) {
                            t.kind = kind;
                        }
                    }
                    FinishValue::Table(tt) => {
                        for (name, tv) in tt {
                            match (name.as_str(), tv) {
                                ("kind", FinishValue::Text(s)) => {
                                    if let Some(kind) = kind_of(s) {
                                        t.kind = kind;
                                    }
                                }
                                ("start", FinishValue::Num(x)) => t.start = *x as f32,
                                ("clamp", FinishValue::Bool(b)) => t.clamp = *b,
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            "encode" => {
                if matches!(v, FinishValue::Bool(true)) && !passes.contains(&Pass::Encode) {
                    passes.push(Pass::Encode);
                }
            }
            "black" => {
                if let Some(x) = n {
                    *tune(
                        passes,
                        |p| matches!(p, Pass::Black { .. }),
                        || Pass::Black { level: 0.0 },
                    ) = Pass::Black { level: x };
                }
            }
            "sepia" => {
                if let Some(x) = n {
                    *tune(
                        passes,
                        |p| matches!(p, Pass::Sepia { .. }),
                        || Pass::Sepia { amount: 0.0 },
                    ) = Pass::Sepia { amount: x };
                }
            }
            "levels" | "posterize" => {
                let Some(x) = n else { return };
                if x.is_nan() || x.round() < 2.0 {
                    self.error(
                        k,
                        &k.name,
                        format!("{} = {x}: posterize needs at least 2 levels", k.name),
                    );
                    return;
                }
                let levels = x.round().min(65_536.0) as u32;
                // The latest posterize or comic pass's levels.
                match tune(
                    passes,
                    |p| matches!(p, Pass::Posterize { .. } | Pass::Comic(_)),
                    || Pass::Posterize { levels },
                ) {
                    Pass::Comic(c) => c.levels = levels,
                    p => *p = Pass::Posterize { levels },
                }
            }
            "pixel" => {
                if let Some(x) = n {
                    let s = whole(x as f64).clamp(1, u32::MAX as u64) as u32;
                    if let Pass::Pixel { size, .. } = tune(
                        passes,
                        |p| matches!(p, Pass::Pixel { .. }),
                        || Pass::Pixel {
                            size: s,
                            palette: false,
                        },
                    ) {
                        *size = s;
                    }
                }
            }
            "shadow" | "highlight" => {
                let Some(c) = colour(v) else { return };
                let p = tune(
                    passes,
                    |p| matches!(p, Pass::Duotone { .. } | Pass::GradientMap { .. }),
                    || Pass::Duotone {
                        shadow: styles::linear(DUOTONE_SHADOW),
                        highlight: styles::linear(DUOTONE_HIGHLIGHT),
                    },
                );
                match p {
                    Pass::Duotone { shadow, highlight } => {
                        if k.name == "shadow" {
                            *shadow = c;
                        } else {
                            *highlight = c;
                        }
                    }
                    // The gradient map's ends: what black and white map to.
                    Pass::GradientMap { stops } if !stops.is_empty() => {
                        let i = if k.name == "shadow" {
                            0
                        } else {
                            stops.len() - 1
                        };
                        stops[i] = c;
                    }
                    _ => {}
                }
            }
            "crush" | "keep" | "keep_range" => {
                let p = tune(
                    passes,
                    |p| matches!(p, Pass::Noir { .. }),
                    || Pass::Noir {
                        weights: REC709_WEIGHTS,
                        crush: 0.0,
                        keep: None,
                        keep_range: 0.1,
                    },
                );
                if let Pass::Noir {
                    crush,
                    keep,
                    keep_range,
                    ..
                } = p
                {
                    match k.name.as_str() {
                        "crush" => *crush = n.unwrap_or(*crush),
                        "keep" => *keep = colour(v).or(*keep),
                        _ => *keep_range = n.unwrap_or(*keep_range),
                    }
                }
            }
            "radius" => {
                let Some(x) = n else { return };
                let r = whole(x as f64).min(u32::MAX as u64) as u32;
                if let Some(p) = passes.iter_mut().rev().find(|p| {
                    matches!(
                        p,
                        Pass::Bloom(_)
                            | Pass::Kuwahara { .. }
                            | Pass::Halation(_)
                            | Pass::TiltShift(_)
                            | Pass::Neon(_)
                    )
                }) {
                    match p {
                        Pass::Bloom(b) => b.radius = Some(r),
                        Pass::Kuwahara { radius } => *radius = r,
                        Pass::Halation(h) => h.radius = Some(r),
                        Pass::TiltShift(t) => t.radius = Some(r),
                        Pass::Neon(n) => n.radius = Some(r),
                        _ => {}
                    }
                } else {
                    passes.push(Pass::Kuwahara { radius: r });
                }
            }
            "dither_kind"
            | "dot"
            | "angle"
            | "ink"
            | "halation"
            | "weave"
            | "flicker"
            | "dust"
            | "scanlines"
            | "mask"
            | "curvature"
            | "focus"
            | "tilt_range"
            | "paper_grain"
            | "scale"
            | "darkening"
            | "cel_bands"
            | "cel_shadow"
            | "cel_threshold"
            | "cel_softness"
            | "outline"
            | "outline_alpha"
            | "outline_color"
            | "outline_thickness"
            | "crease_angle"
            | "cel_spec"
            | "cel_spec_roughness"
            | "cel_spec_threshold"
            | "cavity"
            | "cavity_distance"
            | "rim"
            | "rim_color"
            | "rim_width"
            | "black_threshold"
            | "highlight_threshold"
            | "interior_line_strength"
            | "line_weight"
            | "saturation_lift"
            | "tone_steps"
            | "aberration"
            | "distortion"
            | "palette"
            | "scratches"
            | "tape" => self.look(k, passes),
            // A key the schema's Use column marks not drawn yet: the bake's notes name it.
            name if matches!(
                schema::use_from(&schema::FINISH_FILE, name),
                Some((_, Use::NotYet))
            ) => {}
            other => {
                // The checker refuses a key the finish does not take; a model built by hand is
                // told too.
                self.error(k, other, format!("`{other}` is no finish key"));
            }
        }
    }
}

fn diag(at: &Location, key: &str, message: String) -> Diagnostic {
    Diagnostic {
        file: at.file.clone(),
        line: at.line,
        column: at.column,
        end_line: at.line,
        end_column: at.column,
        severity: Severity::Error,
        code: Code::BadValue.as_str(),
        key: format!("finish.{key}"),
        message,
        related: Vec::new(),
    }
}
