//! Worn media: film scratches (`scratches`) and a video tape's look (`tape`). Both animate:
//! every draw is a pure function of (`seed`, `frame`, the pass's place), so a frame's bytes
//! are the same on every machine and the next frame moves.

use rayon::prelude::*;
use serde_json::{json, Value};

use super::cine::sample;
use super::{Image, NoiseKey, REC709_WEIGHTS};

/// The most scratches one frame holds.
const MAX_SCRATCHES: u32 = 64;

/// Film scratches: `count` thin bright lines a frame, each down part or all of the frame at a
/// uniform place, slanting by up to ±2 % of the width over the height, one pixel wide with a
/// soft edge, of opacity (0.4 to 1) × `strength`: c ↦ c + max(0, 1 − c) · opacity · cover
/// (light through the print where the emulsion is scored).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scratches {
    /// Lines a frame (at most 64).
    pub count: u32,
    /// Their opacity, 0 to 1.
    pub strength: f32,
}

impl Default for Scratches {
    fn default() -> Self {
        Scratches {
            count: 3,
            strength: 0.5,
        }
    }
}

impl Scratches {
    pub(super) fn to_json(self) -> Value {
        json!({
            "count": self.count, "strength": self.strength,
            "line": "1 px, soft edge; opacity (0.4 to 1) x strength; c + max(0, 1 - c) x opacity x cover",
            "place": "per frame: x uniform, slant up to 2 % of the width, rows a span of 30 % to all of the height",
        })
    }
}

pub(super) fn scratches(img: &mut Image, s: &Scratches, key: &NoiseKey) {
    let strength = if s.strength.is_finite() {
        s.strength.clamp(0.0, 1.0)
    } else {
        0.0
    };
    if strength == 0.0 {
        return;
    }
    let (w, h) = (img.width, img.height);
    let lines: Vec<[f32; 5]> = (0..s.count.min(MAX_SCRATCHES))
        .map(|i| {
            let u = |k: u32| key.uniform(i, 2, k);
            let length = (0.3 + 0.7 * u(3)) * h as f32;
            let top = u(4) * (h as f32 - length);
            [
                u(0) * w as f32,
                key.triangular(i, 3, 0) * 0.02 * w as f32,
                top,
                top + length,
                (0.4 + 0.6 * u(5)) * strength,
            ]
        })
        .collect();
    img.map(|i, c| {
        let (x, y) = ((i % w) as f32 + 0.5, (i / w) as f32 + 0.5);
        let mut out = c;
        for &[x0, slant, top, bottom, opacity] in &lines {
            if y < top || y > bottom {
                continue;
            }
            let at = x0 + slant * (y / h as f32);
            let cover = (1.0 - (x - at).abs()).clamp(0.0, 1.0);
            if cover > 0.0 {
                out = out.map(|v| v + (1.0 - v).max(0.0) * opacity * cover);
            }
        }
        out
    });
}

/// Which way the tape runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapeDirection {
    /// Played: one tracking band rolling slowly down the frame.
    Forward,
    /// Searched backwards: four bands jumping each frame, thrice the tear, the rows jittering.
    Rewind,
}

/// A video tape (VHS) look. `strength` (read up to 1) scales every part; each part's value is
/// its own size at strength 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tape {
    /// Forward or rewind.
    pub direction: TapeDirection,
    /// The whole look's strength, 0 to 1.
    pub strength: f32,
    /// The tracking bands: each tears its rows sideways by up to 8 · bands pixels and adds
    /// noise of up to 0.3 · bands.
    pub bands: f32,
    /// The ghost: the luma mixed with itself 3 px to the left by this share.
    pub echo: f32,
    /// Luma noise (triangular) of this amplitude.
    pub grain: f32,
    /// The chroma smeared to the right over this many pixels (the tape's narrow chroma band).
    pub smear: f32,
    /// The chroma delayed this many pixels to the right of the luma.
    pub split: f32,
    /// The colour washed out: saturation × (1 − wash / 2), black lifted by 0.04 · wash.
    pub wash: f32,
}

impl Default for Tape {
    fn default() -> Self {
        Tape {
            direction: TapeDirection::Forward,
            strength: 1.0,
            bands: 0.3,
            echo: 0.15,
            grain: 0.05,
            smear: 3.0,
            split: 1.5,
            wash: 0.3,
        }
    }
}

impl Tape {
    pub(super) fn to_json(self) -> Value {
        json!({
            "direction": match self.direction { TapeDirection::Forward => "forward", TapeDirection::Rewind => "rewind" },
            "strength": self.strength, "bands": self.bands, "echo": self.echo,
            "grain": self.grain, "smear": self.smear, "split": self.split, "wash": self.wash,
            "signal": "luma Y (Rec.709 weights) and chroma c - Y; chroma delayed split px and box-smeared over smear px to the right; Y mixed with Y 3 px left by echo; triangular grain; saturation x (1 - wash/2), black + 0.04 wash; each x strength",
            "bands": "forward: one band 6 % of the height rolling down 1.3 % a frame; rewind: four, placed afresh each frame, tear x 3, rows jitter +-bands px",
        })
    }
}

fn part(v: f32) -> f32 {
    if v.is_finite() {
        v.clamp(0.0, 1e3)
    } else {
        0.0
    }
}

fn luma(c: [f32; 3]) -> f32 {
    c[0] * REC709_WEIGHTS[0] + c[1] * REC709_WEIGHTS[1] + c[2] * REC709_WEIGHTS[2]
}

pub(super) fn tape(img: &mut Image, t: &Tape, key: &NoiseKey) {
    let s = part(t.strength).min(1.0);
    if s == 0.0 {
        return;
    }
    let (w, h) = (img.width, img.height);
    let bands = part(t.bands) * s;
    let rewind = t.direction == TapeDirection::Rewind;
    // Each row's tear (pixels) and band noise.
    let band_h = (0.06 * h as f32).max(2.0);
    let centres: Vec<f32> = if rewind {
        (0..4).map(|b| key.uniform(b, 5, 0) * h as f32).collect()
    } else {
        let phase = key.uniform(0, 5, 1) + 0.013 * key.frame as f32;
        vec![(phase - phase.floor()) * h as f32]
    };
    let tear_max = 8.0 * bands * if rewind { 3.0 } else { 1.0 };
    let rows: Vec<(f32, f32)> = (0..h)
        .map(|y| {
            let yc = y as f32 + 0.5;
            let inside = centres
                .iter()
                .map(|&c| {
                    let d = (yc - c).abs() / (0.5 * band_h);
                    (1.0 - d).max(0.0)
                })
                .fold(0.0f32, f32::max);
            let jitter = if rewind {
                bands * key.triangular(y as u32, 6, 0)
            } else {
                0.0
            };
            let tear = tear_max * inside * key.uniform(y as u32, 7, 0) + jitter;
            (tear, 0.3 * bands * inside)
        })
        .collect();
    let echo = part(t.echo) * s;
    let grain = part(t.grain) * s;
    let smear = (part(t.smear) * s).min(64.0);
    let split = (part(t.split) * s).min(64.0);
    let wash = part(t.wash) * s;
    let taps = smear.round() as usize;
    let src = std::mem::take(&mut img.px);
    img.px = (0..w * h)
        .into_par_iter()
        .map(|i| {
            let (x, y) = ((i % w) as f32, i / w);
            let (tear, noise) = rows[y];
            let yf = y as f32;
            let at = |dx: f32| sample(&src, w, h, x - tear - dx, yf);
            let c = at(0.0);
            let yl = luma(c);
            let ghost = luma(at(3.0));
            let mut chroma = [0.0f32; 3];
            for k in 0..=taps {
                let p = at(split + k as f32);
                let l = luma(p);
                for (ch, v) in chroma.iter_mut().zip(p) {
                    *ch += v - l;
                }
            }
            let n = (taps + 1) as f32;
            let (xu, yu) = (x as u32, y as u32);
            let yo = yl
                + echo * (ghost - yl)
                + grain * key.triangular(xu, yu, 0)
                + noise * key.uniform(xu, yu, 9);
            let sat = (1.0 - 0.5 * wash).max(0.0);
            let lift = (0.04 * wash).min(1.0);
            chroma.map(|ch| {
                let v = yo + ch / n * sat;
                lift + (1.0 - lift) * v
            })
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(frame: u64) -> NoiseKey {
        NoiseKey {
            seed: 4,
            frame,
            pass: 1,
        }
    }

    #[test]
    fn scratches_only_brighten_and_follow_the_count() {
        let (w, h) = (64, 32);
        let lit = |count: u32, frame: u64| {
            let mut img = Image {
                width: w,
                height: h,
                px: vec![[0.2; 3]; w * h],
            };
            scratches(
                &mut img,
                &Scratches {
                    count,
                    strength: 1.0,
                },
                &key(frame),
            );
            assert!(img.px.iter().all(|p| p[0] >= 0.2 && p[0] <= 1.0));
            img.px.iter().map(|p| p[0]).collect::<Vec<_>>()
        };
        assert!(lit(0, 0).iter().all(|&v| v == 0.2));
        let one = lit(1, 0).iter().filter(|&&v| v > 0.2).count();
        let many = lit(8, 0).iter().filter(|&&v| v > 0.2).count();
        assert!(one > 0 && many > one, "{one} {many}");
        assert_eq!(lit(3, 5), lit(3, 5));
        assert_ne!(lit(3, 5), lit(3, 6));
    }

    #[test]
    fn the_tape_delays_its_chroma_and_keeps_a_grey_grey() {
        let (w, h) = (32, 4);
        // A red bar at x 8..12 on grey.
        let px: Vec<[f32; 3]> = (0..w * h)
            .map(|i| {
                if (8..12).contains(&(i % w)) {
                    [0.8, 0.1, 0.1]
                } else {
                    [0.3; 3]
                }
            })
            .collect();
        let quiet = Tape {
            bands: 0.0,
            echo: 0.0,
            grain: 0.0,
            smear: 0.0,
            wash: 0.0,
            split: 2.0,
            ..Tape::default()
        };
        let mut img = Image {
            width: w,
            height: h,
            px: px.clone(),
        };
        tape(&mut img, &quiet, &key(0));
        // Two pixels right of the bar, the chroma is still red; the luma is the grey's.
        let p = img.px[w + 13];
        assert!(p[0] > p[1] + 0.1, "{p:?}");
        assert!((luma(p) - 0.3).abs() < 1e-4, "{p:?}");
        // Left of the bar, untouched grey.
        assert!(img.px[w + 4].iter().all(|v| (v - 0.3).abs() < 1e-5));
        // Strength 0 is nothing.
        let mut same = Image {
            width: w,
            height: h,
            px: px.clone(),
        };
        tape(
            &mut same,
            &Tape {
                strength: 0.0,
                ..Tape::default()
            },
            &key(0),
        );
        assert_eq!(same.px, px);
    }
}
