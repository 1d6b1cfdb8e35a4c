//! The passes that read one pixel: colour grading, tone, grain, dither, LUT.

use serde_json::{json, Value};

use super::{NoiseKey, Pass, REC709_WEIGHTS};

/// The sRGB transfer function (IEC 61966-2-1), linear → encoded, for any value (below 0 the
/// linear segment continues, so a negative stays negative and is clamped by the writer).
pub fn srgb_encode(v: f32) -> f32 {
    if v <= 0.003_130_8 {
        12.92 * v
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    }
}

/// The sRGB transfer function's inverse, encoded → linear.
pub fn srgb_decode(v: f32) -> f32 {
    if v <= 0.040_45 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// `warmth`'s curve: how the amount varies with luminance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarmthKind {
    /// Linear ramps between `low` and `high`.
    Linear,
    /// Smoothstep ramps between `low` and `high`.
    LumaCurve,
}

/// The warmth pass: a white balance toward amber (positive) or blue (negative) whose amount
/// at luminance L is `amount + shadow · s(L) + highlight · h(L)`, s falling from 1 to 0 over
/// `low`, h rising from 0 to 1 over `high`. Each unit of amount scales red by 1 + 0.25 and
/// blue by 1 − 0.25 (then both by the factor that keeps a grey's luminance).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Warmth {
    /// Everywhere.
    pub amount: f32,
    /// Added in the shadows.
    pub shadow: f32,
    /// Added in the highlights.
    pub highlight: f32,
    /// The luminances the shadows' weight falls from 1 to 0 over.
    pub low: [f32; 2],
    /// The luminances the highlights' weight rises from 0 to 1 over.
    pub high: [f32; 2],
    /// The ramps' shape.
    pub kind: WarmthKind,
}

impl Default for Warmth {
    fn default() -> Self {
        Warmth {
            amount: 0.0,
            shadow: 0.0,
            highlight: 0.0,
            low: [0.0, 0.18],
            high: [0.18, 1.0],
            kind: WarmthKind::Linear,
        }
    }
}

impl Warmth {
    pub(super) fn to_json(self) -> Value {
        json!({
            "amount": self.amount, "shadow": self.shadow, "highlight": self.highlight,
            "low": self.low, "high": self.high,
            "kind": match self.kind { WarmthKind::Linear => "linear", WarmthKind::LumaCurve => "luma_curve" },
        })
    }

    fn ramp(&self, [a, b]: [f32; 2], x: f32) -> f32 {
        let t = if b > a {
            ((x - a) / (b - a)).clamp(0.0, 1.0)
        } else if x >= a {
            1.0
        } else {
            0.0
        };
        match self.kind {
            WarmthKind::Linear => t,
            WarmthKind::LumaCurve => t * t * (3.0 - 2.0 * t),
        }
    }

    fn apply(&self, c: [f32; 3]) -> [f32; 3] {
        let l = dot(c, REC709_WEIGHTS);
        let a = self.amount
            + self.shadow * (1.0 - self.ramp(self.low, l))
            + self.highlight * self.ramp(self.high, l);
        let (r, b) = ((1.0 + 0.25 * a).max(0.0), (1.0 - 0.25 * a).max(0.0));
        let keep = dot([r, 1.0, b], REC709_WEIGHTS);
        let k = if keep > 0.0 { 1.0 / keep } else { 0.0 };
        [c[0] * r * k, c[1] * k, c[2] * b * k]
    }
}

/// A 3D lookup table: `size`³ entries of R, G, B, red varying fastest, then green, then blue
/// (the `.cube` order), over inputs in [0, 1] (clamped), read trilinearly.
#[derive(Clone, Debug, PartialEq)]
pub struct Lut {
    /// Entries per axis, 2 to 32.
    pub size: usize,
    /// `size³ · 3` values.
    pub values: Vec<f32>,
}

impl Lut {
    fn at(&self, r: usize, g: usize, b: usize) -> [f32; 3] {
        let i = 3 * (r + self.size * (g + self.size * b));
        [self.values[i], self.values[i + 1], self.values[i + 2]]
    }

    /// The table's colour at `c`.
    pub fn apply(&self, c: [f32; 3]) -> [f32; 3] {
        let n = self.size - 1;
        let split = |v: f32| {
            let x = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) } * n as f32;
            let i = (x.floor() as usize).min(n - 1);
            (i, x - i as f32)
        };
        let (ri, rf) = split(c[0]);
        let (gi, gf) = split(c[1]);
        let (bi, bf) = split(c[2]);
        let mut out = [0.0f32; 3];
        for (db, wb) in [(0, 1.0 - bf), (1, bf)] {
            for (dg, wg) in [(0, 1.0 - gf), (1, gf)] {
                for (dr, wr) in [(0, 1.0 - rf), (1, rf)] {
                    let e = self.at(ri + dr, gi + dg, bi + db);
                    let w = wr * wg * wb;
                    for (o, v) in out.iter_mut().zip(e) {
                        *o += w * v;
                    }
                }
            }
        }
        out
    }
}

/// The sepia matrix (the one CSS `sepia()` and most image tools use), display values.
const SEPIA: [[f32; 3]; 3] = [
    [0.393, 0.769, 0.189],
    [0.349, 0.686, 0.168],
    [0.272, 0.534, 0.131],
];

/// Middle grey in the domain the pass sees: 0.18 linear, its sRGB code after the encode pass.
fn grey(encoded: bool) -> f32 {
    if encoded {
        srgb_encode(0.18)
    } else {
        0.18
    }
}

/// Runs `f` on the encoded values: directly after the encode pass, through an encode and a
/// decode before it.
fn on_encoded(c: [f32; 3], encoded: bool, f: impl Fn(usize, f32) -> f32) -> [f32; 3] {
    if encoded {
        [0, 1, 2].map(|k| f(k, c[k]))
    } else {
        [0, 1, 2].map(|k| srgb_decode(f(k, srgb_encode(c[k].clamp(0.0, 1.0)))))
    }
}

/// Applies a one-pixel pass to pixel (`x`, `y`) of colour `c`; `encoded` says whether the
/// encode pass has run.
pub(super) fn pixel(
    p: &Pass,
    c: [f32; 3],
    encoded: bool,
    key: &NoiseKey,
    x: u32,
    y: u32,
) -> [f32; 3] {
    match *p {
        Pass::Exposure { stops } => c.map(|v| v * stops.exp2()),
        Pass::Contrast { amount } => {
            let g = grey(encoded);
            let e = (1.0 + amount).max(0.0);
            c.map(|v| g * (v.max(0.0) / g).powf(e))
        }
        Pass::Saturation { factor, weights } => {
            let l = dot(c, weights);
            c.map(|v| l + factor * (v - l))
        }
        Pass::Warmth(w) => w.apply(c),
        Pass::Grain {
            strength,
            response,
            clamp,
        } => {
            let l = dot(c, REC709_WEIGHTS).max(0.0);
            let n = key.triangular(x, y, 0) * strength * l.powf(response);
            let out = c.map(|v| v + n);
            if clamp {
                out.map(|v| v.clamp(0.0, 1.0))
            } else {
                out
            }
        }
        Pass::Dither { amplitude } => on_encoded(c, encoded, |k, v| {
            v + key.triangular(x, y, k as u32) * amplitude / 255.0
        }),
        Pass::Lut(ref l) => l.apply(c),
        Pass::Tone(t) => t.map(c),
        Pass::Black { level } => c.map(|v| level + (1.0 - level) * v),
        Pass::Sepia { amount } => {
            let s = [0, 1, 2].map(|i| dot(SEPIA[i], c));
            [0, 1, 2].map(|k| lerp(c[k], s[k], amount))
        }
        Pass::Mono { weights } => [dot(c, weights); 3],
        Pass::Posterize { levels } => {
            let n = (levels.max(2) - 1) as f32;
            on_encoded(c, encoded, |_, v| (v.clamp(0.0, 1.0) * n).round() / n)
        }
        Pass::Duotone { shadow, highlight } => {
            let (s, h) = if encoded {
                (shadow.map(srgb_encode), highlight.map(srgb_encode))
            } else {
                (shadow, highlight)
            };
            let l = dot(c, REC709_WEIGHTS).clamp(0.0, 1.0);
            // The luminance's sRGB code spreads the ramp as the eye sees it.
            let t = if encoded { l } else { srgb_encode(l) };
            [0, 1, 2].map(|k| lerp(s[k], h[k], t))
        }
        Pass::Noir {
            weights,
            crush,
            keep,
            keep_range,
        } => noir(c, weights, crush, keep, keep_range, encoded),
        Pass::GradientMap { ref stops } => gradient_map(c, stops, encoded),
        Pass::Cel(cel) => {
            if encoded {
                cel.apply(c.map(srgb_decode)).map(srgb_encode)
            } else {
                cel.apply(c)
            }
        }
        // Spatial passes, the screens, the film's and the tube's passes and the encode pass
        // are the chain's to run.
        Pass::Encode
        | Pass::Vignette(_)
        | Pass::Bloom(_)
        | Pass::Pixel { .. }
        | Pass::Kuwahara { .. }
        | Pass::OneBit { .. }
        | Pass::Halftone(_)
        | Pass::Halation(_)
        | Pass::Weave { .. }
        | Pass::Flicker { .. }
        | Pass::Dust { .. }
        | Pass::Scanlines { .. }
        | Pass::Mask { .. }
        | Pass::Curvature { .. }
        | Pass::TiltShift(_)
        | Pass::Paper { .. }
        | Pass::Watercolor(_)
        | Pass::Neon(_)
        | Pass::Outline(_)
        | Pass::Cavity(_)
        | Pass::Rim(_)
        | Pass::Comic(_)
        | Pass::Aberration { .. }
        | Pass::Distortion { .. }
        | Pass::Scratches(_)
        | Pass::Tape(_) => c,
    }
}

/// The gradient map: the luminance's sRGB code t picks a place on the ramp of `stops` (evenly
/// spaced, the first at 0 and the last at 1), and the colour is interpolated between the two
/// stops' sRGB codes around it (as an image editor's gradient is drawn), then decoded unless
/// the encode pass has run. No stops leave the colour as it is.
pub(super) fn gradient_map(c: [f32; 3], stops: &[[f32; 3]], encoded: bool) -> [f32; 3] {
    let Some(last) = stops.len().checked_sub(1) else {
        return c;
    };
    let lin = if encoded { c.map(srgb_decode) } else { c };
    let l = dot(lin, REC709_WEIGHTS);
    let t = if l.is_nan() {
        0.0
    } else {
        srgb_encode(l.clamp(0.0, 1.0))
    };
    let x = t * last as f32;
    let i = (x.floor() as usize).min(last.saturating_sub(1));
    let f = if last == 0 { 0.0 } else { x - i as f32 };
    let (a, b) = (stops[i], stops[(i + 1).min(last)]);
    let out = [0, 1, 2].map(|k| lerp(srgb_encode(a[k]), srgb_encode(b[k]), f));
    if encoded {
        out
    } else {
        out.map(srgb_decode)
    }
}

/// The hue of `c` as an angle in turns [0, 1), and its chroma (max − min).
fn hue(c: [f32; 3]) -> (f32, f32) {
    let (mx, mn) = (c[0].max(c[1]).max(c[2]), c[0].min(c[1]).min(c[2]));
    let d = mx - mn;
    if d <= 0.0 {
        return (0.0, 0.0);
    }
    let h = if mx == c[0] {
        ((c[1] - c[2]) / d).rem_euclid(6.0)
    } else if mx == c[1] {
        (c[2] - c[0]) / d + 2.0
    } else {
        (c[0] - c[1]) / d + 4.0
    };
    (h / 6.0, d)
}

/// Noir: grey by `weights`, with the black level `crush` taken to 0, and the colours within
/// `keep_range` of `keep`'s hue kept (fully at its hue, fading to grey at the range's edge).
fn noir(
    c: [f32; 3],
    w: [f32; 3],
    crush: f32,
    keep: Option<[f32; 3]>,
    range: f32,
    encoded: bool,
) -> [f32; 3] {
    let crush = if encoded {
        srgb_encode(crush.max(0.0))
    } else {
        crush
    };
    let crushed = |v: f32| {
        if crush >= 1.0 {
            0.0
        } else {
            ((v - crush) / (1.0 - crush)).max(0.0)
        }
    };
    let l = crushed(dot(c, w));
    let Some(k) = keep else {
        return [l; 3];
    };
    let ((hc, cc), (hk, ck)) = (hue(c), hue(k));
    if cc <= 0.0 || ck <= 0.0 || range <= 0.0 {
        return [l; 3];
    }
    let d = (hc - hk).abs();
    let d = d.min(1.0 - d) * 2.0; // 0 at the same hue, 1 half a turn away
    let t = (1.0 - d / range).clamp(0.0, 1.0);
    let kept = c.map(crushed);
    [0, 1, 2].map(|i| lerp(l, kept[i], t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_round_trips() {
        for i in 0..=1000 {
            let v = i as f32 / 1000.0;
            assert!((srgb_decode(srgb_encode(v)) - v).abs() < 1e-5);
        }
        // IEC 61966-2-1: 0.5 ↦ 0.735357.
        assert!((srgb_encode(0.5) - 0.735_357).abs() < 1e-5);
    }

    #[test]
    fn identity_lut_is_identity() {
        let size = 5;
        let mut values = Vec::new();
        for b in 0..size {
            for g in 0..size {
                for r in 0..size {
                    values.extend([r, g, b].map(|v| v as f32 / (size - 1) as f32));
                }
            }
        }
        let l = Lut { size, values };
        for c in [
            [0.0, 0.0, 0.0],
            [0.3, 0.61, 0.97],
            [1.0, 0.5, 0.0],
            [2.0, -1.0, 0.5],
        ] {
            let out = l.apply(c);
            for k in 0..3 {
                assert!(
                    (out[k] - c[k].clamp(0.0, 1.0)).abs() < 1e-6,
                    "{c:?} {out:?}"
                );
            }
        }
    }

    #[test]
    fn warmth_keeps_grey_luminance_and_warms() {
        let w = Warmth {
            amount: 0.4,
            ..Warmth::default()
        };
        let out = w.apply([0.5; 3]);
        assert!((dot(out, REC709_WEIGHTS) - 0.5).abs() < 1e-6);
        assert!(out[0] > out[1] && out[1] > out[2]);
    }
}
