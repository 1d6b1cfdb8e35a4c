//! The tone maps `tone` names, each as its published definition gives it: scene-referred
//! linear Rec.709 in, display-referred linear Rec.709 in [0, 1] out (the sRGB encoding comes
//! after, in the encode pass or the preview writer).
//!
//! - `neutral`: the Khronos PBR Neutral tone mapper (KhronosGroup/ToneMapping,
//!   `PBR_Neutral/README.md`, "PBR Neutral Specification"), F90 = 0.04, Ks = 0.8 − F90,
//!   Kd = 0.15. `start` scales Ks (1 is the specification's), `clamp` clamps the output.
//! - `aces`: Stephen Hill's fit of the ACES 1.0 RRT and sRGB ODT (the BakingLab `ACES.hlsl`
//!   that three.js, Godot and many engines ship): the sRGB → AP1 input matrix with the RRT's
//!   saturation folded in, the rational fit `RRTAndODTFit`, the output matrix back to linear
//!   sRGB with the ODT's desaturation, clamped to [0, 1]. `gain` multiplies the input (1 is
//!   Hill's; three.js's 1/0.6 is `gain = 1.6667`).
//! - `agx`: Troy Sobotka's AgX with Blender 4's Rec.2020 inset and outset, in the analytic
//!   form Filament (google/filament#7236) and three.js ship: linear Rec.709 → Rec.2020, the
//!   inset matrix, log2 over [−12.47393, 4.026069] EV (middle grey 0.18 at 10 / 16.5), Benjamin
//!   Wrensch's sixth-order polynomial fit of the default contrast sigmoid, the outset matrix,
//!   the 2.2 power, back to Rec.709, clamped to [0, 1].
//!
//! Matrices are written row by row (`out[i] = Σ m[i][j] · in[j]`); the GLSL sources write
//! them column by column.

/// Which tone map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToneKind {
    /// Hill's fitted ACES RRT + sRGB ODT.
    Aces,
    /// Sobotka's AgX, Blender 4's primaries, Wrensch's sigmoid fit.
    Agx,
    /// Khronos PBR Neutral.
    Neutral,
}

impl ToneKind {
    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            ToneKind::Aces => "aces",
            ToneKind::Agx => "agx",
            ToneKind::Neutral => "neutral",
        }
    }
}

/// The tone pass: a tone map and its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tone {
    /// Which map.
    pub kind: ToneKind,
    /// ACES: a factor on the input (`gain`); 1 is the published fit.
    pub gain: f32,
    /// Neutral: a factor on where highlight compression starts (`start`; 1 is Ks = 0.76).
    pub start: f32,
    /// Neutral: clamps the output to [0, 1] (`clamp`).
    pub clamp: bool,
}

impl Tone {
    /// A tone map with its published parameters.
    pub fn of(kind: ToneKind) -> Tone {
        Tone {
            kind,
            gain: 1.0,
            start: 1.0,
            clamp: false,
        }
    }

    /// Maps one linear Rec.709 colour.
    pub fn map(&self, c: [f32; 3]) -> [f32; 3] {
        match self.kind {
            ToneKind::Aces => aces([c[0] * self.gain, c[1] * self.gain, c[2] * self.gain]),
            ToneKind::Agx => agx(c),
            ToneKind::Neutral => {
                let out = neutral(c, self.start);
                if self.clamp {
                    out.map(|v| v.clamp(0.0, 1.0))
                } else {
                    out
                }
            }
        }
    }
}

fn mul(m: &[[f32; 3]; 3], v: [f32; 3]) -> [f32; 3] {
    [0, 1, 2].map(|i| m[i][0] * v[0] + m[i][1] * v[1] + m[i][2] * v[2])
}

/// Khronos PBR Neutral's F90: the Fresnel reflectance at normal incidence of IOR 1.5.
const F90: f32 = 0.04;
/// Khronos PBR Neutral's Kd: how fast compressed highlights desaturate.
const KD: f32 = 0.15;

/// The least `start` the neutral map takes (`start` > 0 is the spec's), and the most: Ks
/// must stay below 1 for the compression curve to exist.
pub const NEUTRAL_START_MAX: f32 = 1.0 / (0.8 - F90) - 1e-3;

/// Khronos PBR Neutral, Ks scaled by `start`.
pub fn neutral(c: [f32; 3], start: f32) -> [f32; 3] {
    let ks = (0.8 - F90) * start;
    let x = c[0].min(c[1]).min(c[2]);
    let offset = if x < 2.0 * F90 {
        x - x * x / (4.0 * F90)
    } else {
        F90
    };
    let c = c.map(|v| v - offset);
    let peak = c[0].max(c[1]).max(c[2]);
    if peak < ks {
        return c;
    }
    let d = 1.0 - ks;
    let new_peak = 1.0 - d * d / (peak + d - ks);
    let scaled = c.map(|v| v * new_peak / peak);
    let g = 1.0 - 1.0 / (KD * (peak - new_peak) + 1.0);
    scaled.map(|v| v + (new_peak - v) * g)
}

/// sRGB → AP1 with the RRT's saturation (Hill's `ACESInputMat`).
const ACES_IN: [[f32; 3]; 3] = [
    [0.59719, 0.35458, 0.04823],
    [0.07600, 0.90834, 0.01566],
    [0.02840, 0.13383, 0.83777],
];
/// The ODT's saturation, AP1 → sRGB (Hill's `ACESOutputMat`).
const ACES_OUT: [[f32; 3]; 3] = [
    [1.60475, -0.53108, -0.07367],
    [-0.10208, 1.10813, -0.00605],
    [-0.00327, -0.07276, 1.07602],
];

/// Hill's fitted ACES RRT + sRGB ODT.
pub fn aces(c: [f32; 3]) -> [f32; 3] {
    let v = mul(&ACES_IN, c);
    let v = v.map(|v| {
        let a = v * (v + 0.024_578_6) - 0.000_090_537;
        let b = v * (0.983_729 * v + 0.432_951) + 0.238_081;
        a / b
    });
    mul(&ACES_OUT, v).map(|v| v.clamp(0.0, 1.0))
}

/// Linear Rec.709 → linear Rec.2020 (ITU-R BT.2087, to four places as Filament writes it).
const REC709_TO_2020: [[f32; 3]; 3] = [
    [0.6274, 0.3293, 0.0433],
    [0.0691, 0.9195, 0.0113],
    [0.0164, 0.0880, 0.8956],
];
/// Linear Rec.2020 → linear Rec.709.
const REC2020_TO_709: [[f32; 3]; 3] = [
    [1.6605, -0.5876, -0.0728],
    [-0.1246, 1.1329, -0.0083],
    [-0.0182, -0.1006, 1.1187],
];
/// AgX's inset, in Rec.2020 (the published digits, kept as written).
#[allow(clippy::excessive_precision)]
const AGX_INSET: [[f32; 3]; 3] = [
    [0.856_627_15, 0.095_121_24, 0.048_251_606],
    [0.137_318_97, 0.761_241_99, 0.101_439_04],
    [0.111_898_21, 0.076_799_42, 0.811_302_37],
];
/// AgX's outset: the inverse of Blender's outset-inverse matrix (the published digits).
#[allow(clippy::excessive_precision)]
const AGX_OUTSET: [[f32; 3]; 3] = [
    [1.127_100_6, -0.110_606_64, -0.016_493_939],
    [-0.141_329_76, 1.157_823_7, -0.016_493_939],
    [-0.141_329_76, -0.110_606_64, 1.251_936_4],
];
/// log2 of the darkest and brightest values AgX encodes: 0.18 · 2^−10 and 0.18 · 2^6.5.
const AGX_MIN_EV: f32 = -12.473_93;
const AGX_MAX_EV: f32 = 4.026_069;

/// Wrensch's fit of AgX's default contrast sigmoid, on [0, 1].
fn agx_sigmoid(x: f32) -> f32 {
    let x2 = x * x;
    let x4 = x2 * x2;
    15.5 * x4 * x2 - 40.14 * x4 * x + 31.96 * x4 - 6.868 * x2 * x + 0.4298 * x2 + 0.1191 * x
        - 0.00232
}

/// Sobotka's AgX, base look.
pub fn agx(c: [f32; 3]) -> [f32; 3] {
    let v = mul(&AGX_INSET, mul(&REC709_TO_2020, c));
    let v = v.map(|v| {
        let e = (v.max(1e-10).log2() - AGX_MIN_EV) / (AGX_MAX_EV - AGX_MIN_EV);
        agx_sigmoid(e.clamp(0.0, 1.0))
    });
    let v = mul(&AGX_OUTSET, v).map(|v| v.max(0.0).powf(2.2));
    mul(&REC2020_TO_709, v).map(|v| v.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutral_keeps_base_colours_less_f90() {
        // The spec's guarantee: c_out = c_in − 0.04 for every channel in [0.08, 0.8].
        for c in [[0.08, 0.5, 0.8], [0.3, 0.3, 0.3], [0.79, 0.1, 0.42]] {
            let out = neutral(c, 1.0);
            for i in 0..3 {
                assert!((out[i] - (c[i] - 0.04)).abs() < 1e-6, "{c:?} → {out:?}");
            }
        }
    }

    #[test]
    fn tone_maps_are_bounded_and_monotone_on_grey() {
        for kind in [ToneKind::Aces, ToneKind::Agx, ToneKind::Neutral] {
            let t = Tone::of(kind);
            let mut last = -1.0;
            for i in 0..2000 {
                let x = (i as f32 / 100.0).exp2() / 1024.0;
                let y = t.map([x; 3]);
                assert!(
                    y.iter().all(|v| (0.0..=1.0 + 1e-6).contains(v)),
                    "{kind:?} {x} {y:?}"
                );
                assert!(y[1] >= last - 1e-6, "{kind:?} not monotone at {x}");
                last = y[1];
            }
        }
    }
}
