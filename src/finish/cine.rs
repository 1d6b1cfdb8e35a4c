//! The motion-picture film passes (style `film`): halation, gate weave, flicker and dust. The
//! animated ones are pure functions of (`seed`, `frame`, the pass's place): a frame's weave,
//! flicker and specks are the same on every machine and change from frame to frame, as a
//! projected print's do.

use rayon::prelude::*;
use serde_json::{json, Value};

use super::spatial::{self, Bloom};
use super::{Image, NoiseKey};

/// The halation's tint: the red-orange of light that crosses the emulsion, reflects off the
/// film base and exposes the red-sensitive layer (the deepest) around bright highlights.
pub const HALATION_TINT: [f32; 3] = [1.0, 0.35, 0.1];

/// The halation pass: the part of the radiance above `threshold` (Rec.709 luminance, with the
/// bloom's soft knee of half the threshold) blurred by a Gaussian of σ = `radius` / 3 pixels
/// (`None`: σ = 1 % of the image height) and added back tinted by [`HALATION_TINT`] × `strength`.
/// It reads scene-linear radiance, so the film style runs it before the tone map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Halation {
    /// The halo's weight.
    pub strength: f32,
    /// The luminance it starts at (W·m⁻²·sr⁻¹ before the tone map).
    pub threshold: f32,
    /// The Gaussian's reach, pixels (3 σ); `None` is 3 % of the image height.
    pub radius: Option<u32>,
}

impl Default for Halation {
    fn default() -> Self {
        Halation {
            strength: 0.3,
            threshold: 1.0,
            radius: None,
        }
    }
}

impl Halation {
    pub(super) fn to_json(self) -> Value {
        json!({
            "strength": self.strength, "threshold": self.threshold, "knee": 0.5,
            "radius": self.radius, "tint": HALATION_TINT,
            "radius_default": "0.03 x image height, pixels; sigma = radius / 3",
        })
    }

    /// The bloom that draws it (the bloom's bright pass and blur, Gaussian).
    fn bloom(&self, height: usize) -> Bloom {
        let r = self
            .radius
            .map_or(0.03 * height as f32, |r| r as f32)
            .max(1.0);
        Bloom {
            strength: self.strength,
            threshold: self.threshold,
            sigma: Some(r / 3.0),
            radius: Some(r.ceil() as u32),
            ..Bloom::default()
        }
    }
}

pub(super) fn halation(img: &mut Image, h: &Halation) {
    let b = h.bloom(img.height);
    spatial::glow(img, &b, HALATION_TINT);
}

/// Gate weave: the whole frame moved by up to ± `pixels` on each axis (a triangular draw per
/// frame), resampled bilinearly with the edge pixels repeated.
pub(super) fn weave(img: &mut Image, pixels: f32, key: &NoiseKey) {
    if pixels == 0.0 || !pixels.is_finite() {
        return;
    }
    let a = pixels.abs().min(1024.0);
    let (dx, dy) = (a * key.triangular(0, 0, 0), a * key.triangular(0, 0, 1));
    let (w, h) = (img.width, img.height);
    let src = std::mem::take(&mut img.px);
    img.px = (0..w * h)
        .into_par_iter()
        .map(|i| sample(&src, w, h, (i % w) as f32 - dx, (i / w) as f32 - dy))
        .collect();
}

/// `src` at (`x`, `y`) in pixel units (pixel centres at whole numbers), bilinear, the edge
/// pixels repeated outside.
pub(super) fn sample(src: &[[f32; 3]], w: usize, h: usize, x: f32, y: f32) -> [f32; 3] {
    let cx = x.clamp(0.0, (w - 1) as f32);
    let cy = y.clamp(0.0, (h - 1) as f32);
    let (x0, y0) = (cx.floor() as usize, cy.floor() as usize);
    let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
    let (fx, fy) = (cx - x0 as f32, cy - y0 as f32);
    let at = |x: usize, y: usize| src[y * w + x];
    let (a, b, c, d) = (at(x0, y0), at(x1, y0), at(x0, y1), at(x1, y1));
    [0, 1, 2].map(|k| {
        let top = a[k] + (b[k] - a[k]) * fx;
        let bottom = c[k] + (d[k] - c[k]) * fx;
        top + (bottom - top) * fy
    })
}

/// Flicker: the whole frame × (1 + `amount` · t), t a triangular draw in (−1, 1) per frame.
pub(super) fn flicker_factor(amount: f32, key: &NoiseKey) -> f32 {
    (1.0 + amount * key.triangular(0, 0, 2)).max(0.0)
}

/// The most specks one frame holds.
const MAX_SPECKS: usize = 1000;

/// Dust: round(10 · `amount`) dark specks a frame (at most 1000), each at a uniform place, of
/// radius 0.2 % to 0.6 % of the image height (at least ¾ pixel) and opacity ½ to 1, with a
/// one-pixel soft edge; the frame's colour × (1 − opacity · cover).
pub(super) fn dust(img: &mut Image, amount: f32, key: &NoiseKey) {
    let count = if amount.is_finite() && amount > 0.0 {
        ((10.0 * amount).round() as usize).min(MAX_SPECKS)
    } else {
        0
    };
    let (w, h) = (img.width, img.height);
    for i in 0..count as u32 {
        let u = |s: u32| key.uniform(i, 1, s);
        let (cx, cy) = (u(0) * w as f32, u(1) * h as f32);
        let r = (h as f32 * (0.002 + 0.004 * u(2))).max(0.75);
        let opacity = 0.5 + 0.5 * u(3);
        let reach = r + 0.5;
        let (x0, x1) = ((cx - reach).floor().max(0.0) as usize, (cx + reach).ceil());
        let (y0, y1) = ((cy - reach).floor().max(0.0) as usize, (cy + reach).ceil());
        let (x1, y1) = ((x1.max(0.0) as usize).min(w), (y1.max(0.0) as usize).min(h));
        for y in y0..y1 {
            for x in x0..x1 {
                let d = ((x as f32 + 0.5 - cx).powi(2) + (y as f32 + 0.5 - cy).powi(2)).sqrt();
                let cover = (r + 0.5 - d).clamp(0.0, 1.0);
                if cover > 0.0 {
                    let f = 1.0 - opacity * cover;
                    let p = &mut img.px[y * w + x];
                    *p = p.map(|v| v * f);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(frame: u64) -> NoiseKey {
        NoiseKey {
            seed: 1,
            frame,
            pass: 3,
        }
    }

    #[test]
    fn weave_and_flicker_change_with_the_frame_and_stay_within_their_amount() {
        assert_ne!(flicker_factor(0.1, &key(0)), flicker_factor(0.1, &key(1)));
        for f in 0..50 {
            let k = flicker_factor(0.1, &key(f));
            assert!((0.9..=1.1).contains(&k), "{k}");
        }
        // A one-pixel ramp moved by under a pixel stays between its neighbours.
        let mut img = Image {
            width: 8,
            height: 1,
            px: (0..8).map(|x| [x as f32; 3]).collect(),
        };
        weave(&mut img, 0.5, &key(2));
        for x in 1..7 {
            assert!(
                (img.px[x][0] - x as f32).abs() <= 0.5 + 1e-6,
                "{:?}",
                img.px
            );
        }
    }

    #[test]
    fn dust_only_darkens_and_its_count_follows_the_amount() {
        let (w, h) = (64, 64);
        let specks = |amount: f32, frame: u64| {
            let mut img = Image {
                width: w,
                height: h,
                px: vec![[1.0; 3]; w * h],
            };
            dust(&mut img, amount, &key(frame));
            assert!(img.px.iter().all(|p| p[0] <= 1.0 && p[0] >= 0.0));
            img.px.iter().filter(|p| p[0] < 1.0).count()
        };
        assert_eq!(specks(0.0, 0), 0);
        assert!(specks(0.5, 0) > 0);
        assert!(specks(2.0, 0) > specks(0.3, 0));
    }
}
