//! The tilt-shift pass (`focus`, `tilt_range`, `radius`; style `tilt_shift`): a horizontal
//! band in focus and a blur that grows above and below it, as a lens tilted against the film
//! plane gives, which makes a scene read as a miniature.

use rayon::prelude::*;
use serde_json::{json, Value};

use super::Image;

/// The tilt-shift pass. A row whose centre lies within `range` of `focus` (both fractions of
/// the image height, from the top) is left as it is; beyond, the blur's σ grows linearly over
/// a further max(`range`, 0.05) of the height up to `radius` / 2 pixels, and stays there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TiltShift {
    /// The focus band's centre, a fraction of the height from the top (0.5: the middle).
    pub focus: f32,
    /// The band's half-height, a fraction of the height.
    pub range: f32,
    /// The largest blur's reach, pixels (its σ is half of it); `None` is 3 % of the height,
    /// at least 4.
    pub radius: Option<u32>,
}

impl Default for TiltShift {
    fn default() -> Self {
        TiltShift {
            focus: 0.5,
            range: 0.15,
            radius: None,
        }
    }
}

/// The most pixels the blur reaches.
const MAX_RADIUS: usize = 1024;

impl TiltShift {
    pub(super) fn to_json(self) -> Value {
        json!({
            "focus": self.focus, "range": self.range, "radius": self.radius,
            "radius_default": "0.03 x image height, at least 4 pixels; sigma = radius / 2 at full blur",
        })
    }

    /// The reach, pixels, for an image `height` high.
    fn reach(&self, height: usize) -> usize {
        self.radius
            .map_or(((0.03 * height as f32).round() as usize).max(4), |r| {
                r as usize
            })
            .min(MAX_RADIUS)
    }

    /// The blur's share (0 in the band, 1 at full blur) at row `y` of `height`.
    pub fn amount(&self, y: usize, height: usize) -> f32 {
        let d = (((y as f32 + 0.5) / height as f32) - self.focus).abs();
        let range = if self.range.is_finite() {
            self.range.max(0.0)
        } else {
            0.0
        };
        let ramp = range.max(0.05);
        ((d - range) / ramp).clamp(0.0, 1.0)
    }
}

/// The normalised Gaussian kernel of σ = `sigma` cut at `reach`, centre first.
fn kernel(sigma: f32, reach: usize) -> Vec<f32> {
    let w: Vec<f64> = (0..=reach)
        .map(|i| (-0.5 * (i as f64 / sigma as f64).powi(2)).exp())
        .collect();
    let total = w[0] + 2.0 * w[1..].iter().sum::<f64>();
    w.iter().map(|v| (v / total) as f32).collect()
}

pub(super) fn tilt_shift(img: &mut Image, t: &TiltShift) {
    let (w, h) = (img.width, img.height);
    let reach = t.reach(h).min(w.max(h));
    // A kernel per row: the blur depends on the row only, so each pass is separable.
    let kernels: Vec<Option<Vec<f32>>> = (0..h)
        .map(|y| {
            let sigma = t.amount(y, h) * reach as f32 / 2.0;
            (sigma > 1e-3 && reach > 0).then(|| kernel(sigma, reach))
        })
        .collect();
    // Along the rows, each with its own kernel.
    let src = std::mem::take(&mut img.px);
    let mut across = src.clone();
    across.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        let Some(k) = &kernels[y] else { return };
        for (x, o) in row.iter_mut().enumerate() {
            let at = |d: isize| src[y * w + (x as isize + d).clamp(0, w as isize - 1) as usize];
            let mut s = at(0).map(|v| v * k[0]);
            for (i, &wt) in k.iter().enumerate().skip(1) {
                let (a, b) = (at(i as isize), at(-(i as isize)));
                s = [0, 1, 2].map(|c| s[c] + wt * (a[c] + b[c]));
            }
            *o = s;
        }
    });
    // Down the columns: each output row gathers with its own row's kernel, so a row in the
    // band keeps its own pixels.
    let mut out = across.clone();
    out.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        let Some(k) = &kernels[y] else { return };
        for (x, o) in row.iter_mut().enumerate() {
            let at = |d: isize| across[(y as isize + d).clamp(0, h as isize - 1) as usize * w + x];
            let mut s = at(0).map(|v| v * k[0]);
            for (i, &wt) in k.iter().enumerate().skip(1) {
                let (a, b) = (at(i as isize), at(-(i as isize)));
                s = [0, 1, 2].map(|c| s[c] + wt * (a[c] + b[c]));
            }
            *o = s;
        }
    });
    img.px = out;
}
