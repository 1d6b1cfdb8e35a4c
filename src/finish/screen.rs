//! The threshold screens: one-bit dithering (`dither_kind`, style `one_bit`) and the halftone
//! (`dot`, `angle`, `ink`, style `halftone`). Each compares a pixel's luminance, as its sRGB
//! code (the screen is spread as the eye sees it, as a printer's RIP screens the encoded
//! image), with a threshold that depends only on the pixel's place: a pure function of the
//! pixel, so the bytes never depend on the thread count.

use std::sync::OnceLock;

use super::ops::{srgb_decode, srgb_encode};
use super::{Image, REC709_WEIGHTS};

/// The one-bit pass's threshold pattern (`dither_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DitherKind {
    /// Bayer's 8 × 8 ordered-dither matrix (Bayer 1973): the classic crosshatch.
    Ordered,
    /// A 64 × 64 blue-noise mask by Ulichney's void-and-cluster method (1993): no pattern,
    /// only high frequencies.
    Blue,
}

impl DitherKind {
    /// The format's name.
    pub fn name(self) -> &'static str {
        match self {
            DitherKind::Ordered => "ordered",
            DitherKind::Blue => "blue",
        }
    }

    /// The threshold at pixel (`x`, `y`), in (0, 1): the pattern's rank there plus a half,
    /// over its size, so a flat grey of code v lights a fraction v of the pixels.
    pub fn threshold(self, x: usize, y: usize) -> f32 {
        match self {
            DitherKind::Ordered => (bayer8(x % 8, y % 8) as f32 + 0.5) / 64.0,
            DitherKind::Blue => {
                let m = blue_noise();
                (m[(y % BLUE) * BLUE + x % BLUE] as f32 + 0.5) / (BLUE * BLUE) as f32
            }
        }
    }
}

/// Bayer's matrix entry (0..64) at (`x`, `y`) in 0..8, by interleaving the bits of x ⊕ y and
/// y (the recursive construction written out).
fn bayer8(x: usize, y: usize) -> u32 {
    let (a, b) = ((x ^ y) as u32, y as u32);
    let mut v = 0;
    for bit in 0..3 {
        v |= ((a >> bit) & 1) << (5 - 2 * bit);
        v |= ((b >> bit) & 1) << (4 - 2 * bit);
    }
    v
}

/// The blue-noise mask's side, pixels.
const BLUE: usize = 64;

/// The blue-noise mask: each of the 64 × 64 ranks 0..4096 once, built on first use.
fn blue_noise() -> &'static [u32] {
    static MASK: OnceLock<Vec<u32>> = OnceLock::new();
    MASK.get_or_init(void_and_cluster)
}

/// Ulichney's void-and-cluster on a torus, with a Gaussian energy of σ = 1.5 pixels: an
/// initial pattern of 10 % ones (from a fixed hash) relaxed until no cluster moves into the
/// largest void, then ranked by removing the tightest clusters, adding to the largest voids up
/// to half, and adding to the tightest clusters of zeros beyond. Ties go to the lowest index,
/// so the mask is the same on every machine.
fn void_and_cluster() -> Vec<u32> {
    let n = BLUE * BLUE;
    let sigma2 = 2.0 * 1.5f64 * 1.5;
    // The energy kernel by toroidal offset.
    let kernel: Vec<f64> = (0..n)
        .map(|i| {
            let (dx, dy) = (i % BLUE, i / BLUE);
            let (dx, dy) = (dx.min(BLUE - dx) as f64, dy.min(BLUE - dy) as f64);
            (-(dx * dx + dy * dy) / sigma2).exp()
        })
        .collect();
    let spread = |energy: &mut [f64], at: usize, sign: f64| {
        let (ax, ay) = (at % BLUE, at / BLUE);
        for (i, e) in energy.iter_mut().enumerate() {
            let (x, y) = (i % BLUE, i / BLUE);
            let d = ((x + BLUE - ax) % BLUE) + BLUE * ((y + BLUE - ay) % BLUE);
            *e += sign * kernel[d];
        }
    };
    // The tightest cluster (the one with most energy) among `want` pixels, or the largest void
    // (least energy).
    let pick = |energy: &[f64], ones: &[bool], want: bool, most: bool| -> usize {
        let mut best: Option<(usize, f64)> = None;
        for (i, (&one, &e)) in ones.iter().zip(energy).enumerate() {
            if one != want {
                continue;
            }
            let better = match best {
                None => true,
                Some((_, b)) => {
                    if most {
                        e > b
                    } else {
                        e < b
                    }
                }
            };
            if better {
                best = Some((i, e));
            }
        }
        best.map_or(0, |(i, _)| i)
    };
    let key = super::NoiseKey {
        seed: 0x5eed_b10e,
        frame: 0,
        pass: 0,
    };
    let mut ones = vec![false; n];
    let mut energy = vec![0.0f64; n];
    for (i, one) in ones.iter_mut().enumerate() {
        if key.uniform((i % BLUE) as u32, (i / BLUE) as u32, 0) < 0.1 {
            *one = true;
            spread(&mut energy, i, 1.0);
        }
    }
    // Relax: move the tightest cluster into the largest void until it would go back.
    for _ in 0..n {
        let c = pick(&energy, &ones, true, true);
        ones[c] = false;
        spread(&mut energy, c, -1.0);
        let v = pick(&energy, &ones, false, false);
        ones[v] = true;
        spread(&mut energy, v, 1.0);
        if v == c {
            break;
        }
    }
    let initial = ones.clone();
    let start_energy = energy.clone();
    let count = ones.iter().filter(|&&o| o).count();
    let mut rank = vec![0u32; n];
    // Phase 1: the initial ones, ranked down from count − 1 by removing the tightest cluster.
    for r in (0..count).rev() {
        let c = pick(&energy, &ones, true, true);
        ones[c] = false;
        spread(&mut energy, c, -1.0);
        rank[c] = r as u32;
    }
    // Phases 2 and 3: from the initial pattern, each zero in turn; to half the largest void,
    // beyond it the tightest cluster of zeros (the same rule seen from the zeros' side).
    let (mut ones, mut energy) = (initial, start_energy);
    for r in count..n {
        let v = pick(&energy, &ones, false, false);
        ones[v] = true;
        spread(&mut energy, v, 1.0);
        rank[v] = r as u32;
    }
    rank
}

/// A pixel's luminance as its sRGB code, from a colour linear (or, after the encode pass,
/// encoded).
fn luma_code(c: [f32; 3], encoded: bool) -> f32 {
    let lin = if encoded { c.map(srgb_decode) } else { c };
    let l = lin[0] * REC709_WEIGHTS[0] + lin[1] * REC709_WEIGHTS[1] + lin[2] * REC709_WEIGHTS[2];
    if l.is_nan() {
        0.0
    } else {
        srgb_encode(l.clamp(0.0, 1.0))
    }
}

/// One bit per pixel: white where the luminance's code exceeds the pattern's threshold, black
/// elsewhere (both 0 or 1 in either domain).
pub(super) fn one_bit(img: &mut Image, kind: DitherKind, encoded: bool) {
    let w = img.width;
    img.map(|i, c| {
        let on = luma_code(c, encoded) > kind.threshold(i % w, i / w);
        [if on { 1.0 } else { 0.0 }; 3]
    });
}

/// The halftone pass: a round-dot screen of `dot` pixels a cell, turned by `angle` degrees,
/// printing `ink` on `paper` (linear RGB).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Halftone {
    /// The screen's cell size, pixels (below 1 reads as 1).
    pub dot: f32,
    /// The screen's angle, degrees counter-clockwise.
    pub angle: f32,
    /// The ink, linear RGB.
    pub ink: [f32; 3],
    /// The paper, linear RGB.
    pub paper: [f32; 3],
}

impl Default for Halftone {
    fn default() -> Self {
        Halftone {
            dot: 6.0,
            angle: 45.0,
            ink: [0.0; 3],
            paper: [1.0; 3],
        }
    }
}

/// The share of a unit cell within `rho` cells of its centre: the round dot's area at that
/// radius, πρ² until the dot reaches the cell's sides (ρ = ½), then less the four segments
/// past them, 1 at the corners (ρ = √½). Increasing, so as a threshold it inks exactly the
/// share 1 − code of a flat grey.
fn dot_area(rho: f32) -> f32 {
    let r2 = rho * rho;
    let pi = std::f32::consts::PI;
    if rho <= 0.5 {
        pi * r2
    } else if r2 >= 0.5 {
        1.0
    } else {
        let segment = r2 * (0.5 / rho).acos() - 0.5 * (r2 - 0.25).sqrt();
        (pi * r2 - 4.0 * segment).min(1.0)
    }
}

impl Halftone {
    /// The threshold at pixel (`x`, `y`): the dot's area out to the pixel's centre, in the
    /// turned screen's cell.
    pub fn threshold(&self, x: usize, y: usize) -> f32 {
        let s = if self.dot >= 1.0 { self.dot } else { 1.0 };
        let (sin, cos) = self.angle.to_radians().sin_cos();
        let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
        let u = (cos * px + sin * py) / s;
        let v = (-sin * px + cos * py) / s;
        let (fu, fv) = (u - u.floor() - 0.5, v - v.floor() - 0.5);
        dot_area((fu * fu + fv * fv).sqrt())
    }

    /// The coverage: whether (`x`, `y`) is inked for a luminance code `code`.
    fn inked(&self, code: f32, x: usize, y: usize) -> bool {
        1.0 - code > self.threshold(x, y)
    }
}

pub(super) fn halftone(img: &mut Image, h: &Halftone, encoded: bool) {
    let w = img.width;
    let (ink, paper) = if encoded {
        (h.ink.map(srgb_encode), h.paper.map(srgb_encode))
    } else {
        (h.ink, h.paper)
    };
    img.map(|i, c| {
        if h.inked(luma_code(c, encoded), i % w, i / w) {
            ink
        } else {
            paper
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patterns_hold_each_rank_once() {
        let mut seen = [false; 64];
        for y in 0..8 {
            for x in 0..8 {
                seen[bayer8(x, y) as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        // Bayer's 2 × 2 corner: 0 2 / 3 1 (× 16).
        assert_eq!(
            [bayer8(0, 0), bayer8(1, 0), bayer8(0, 1), bayer8(1, 1)],
            [0, 32, 48, 16]
        );
        let m = blue_noise();
        let mut seen = vec![false; BLUE * BLUE];
        for &r in m {
            seen[r as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn blue_noise_has_no_clumps() {
        // The lowest 1/16 of the ranks: no two of them are neighbours (a white-noise pattern
        // of that density has a hundred such pairs).
        let m = blue_noise();
        let low = |x: usize, y: usize| m[(y % BLUE) * BLUE + x % BLUE] < 256;
        let mut pairs = 0;
        for y in 0..BLUE {
            for x in 0..BLUE {
                if low(x, y) && (low(x + 1, y) || low(x, y + 1)) {
                    pairs += 1;
                }
            }
        }
        assert!(pairs <= 2, "{pairs} adjacent pairs");
    }

    #[test]
    fn the_dot_area_is_the_threshold_share() {
        assert_eq!(dot_area(0.0), 0.0);
        assert!((dot_area(0.5) - std::f32::consts::FRAC_PI_4).abs() < 1e-6);
        assert!((dot_area(std::f32::consts::FRAC_1_SQRT_2) - 1.0).abs() < 1e-3);
        let mut last = 0.0;
        for i in 1..=100 {
            let a = dot_area(i as f32 * 0.0071);
            assert!(a >= last && a <= 1.0, "{i}: {a}");
            last = a;
        }
    }
}
