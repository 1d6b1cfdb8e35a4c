//! The passes that read a pixel's neighbours or its place: vignette, bloom, pixel, Kuwahara.
//! Each is a pure function of the image (sums in a fixed order), so the bytes never depend on
//! the thread count.

use rayon::prelude::*;
use serde_json::{json, Value};

use super::{Image, REC709_WEIGHTS};

/// The vignette's falloff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VignetteKind {
    /// 1 − strength · r^power.
    Power,
    /// 1 − strength · smoothstep(inner, outer, r).
    Smoothstep,
}

/// The vignette pass. r is a pixel centre's distance from the image's centre, with the image
/// spanning −1 to 1 on each axis, the horizontal divided by `aspect`, over √2 · `scale` (so a
/// corner is at r = 1 when both are 1); the pass multiplies by the falloff, floored at 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Vignette {
    /// How dark the edge gets (1: black at r = 1).
    pub strength: f32,
    /// The power falloff's exponent.
    pub power: f32,
    /// The ellipse's width over the image's.
    pub aspect: f32,
    /// The ellipse's size.
    pub scale: f32,
    /// Smoothstep: where darkening starts.
    pub inner: f32,
    /// Smoothstep: where it is full.
    pub outer: f32,
    /// The falloff.
    pub kind: VignetteKind,
}

impl Default for Vignette {
    fn default() -> Self {
        Vignette {
            strength: 0.5,
            power: 2.0,
            aspect: 1.0,
            scale: 1.0,
            inner: 0.25,
            outer: 1.0,
            kind: VignetteKind::Power,
        }
    }
}

impl Vignette {
    pub(super) fn to_json(self) -> Value {
        json!({
            "strength": self.strength, "power": self.power, "aspect": self.aspect,
            "scale": self.scale, "inner": self.inner, "outer": self.outer,
            "kind": match self.kind { VignetteKind::Power => "power", VignetteKind::Smoothstep => "smoothstep" },
        })
    }

    /// The factor at pixel (`x`, `y`) of a `w × h` image.
    pub fn factor(&self, x: usize, y: usize, w: usize, h: usize) -> f32 {
        let u = 2.0 * (x as f32 + 0.5) / w as f32 - 1.0;
        let v = 2.0 * (y as f32 + 0.5) / h as f32 - 1.0;
        let aspect = if self.aspect > 0.0 { self.aspect } else { 1.0 };
        let scale = if self.scale > 0.0 { self.scale } else { 1.0 };
        let r = ((u / aspect).powi(2) + v * v).sqrt() / (std::f32::consts::SQRT_2 * scale);
        let fall = match self.kind {
            VignetteKind::Power => r.powf(self.power.max(0.0)),
            VignetteKind::Smoothstep => {
                let t = if self.outer > self.inner {
                    ((r - self.inner) / (self.outer - self.inner)).clamp(0.0, 1.0)
                } else if r >= self.inner {
                    1.0
                } else {
                    0.0
                };
                t * t * (3.0 - 2.0 * t)
            }
        };
        (1.0 - self.strength * fall).max(0.0)
    }
}

pub(super) fn vignette(img: &mut Image, v: &Vignette) {
    let (w, h) = (img.width, img.height);
    img.map(|i, c| {
        let f = v.factor(i % w, i / w, w, h);
        c.map(|x| x * f)
    });
}

/// The bloom's blur kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BloomKind {
    /// A Gaussian of `sigma` (no `kind` given).
    Gaussian,
    /// Equal weights out to `radius`.
    Box,
    /// Weights falling linearly to 0 just past `radius`.
    Tent,
}

/// The bloom pass: each pixel's part above `threshold` (Rec.709 luminance, with Unity's soft
/// knee of `knee · threshold`), its luminance capped at `clamp` when that is above 0, blurred
/// by a separable kernel (edge pixels repeated) and added back times `strength`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bloom {
    /// The blurred light's weight.
    pub strength: f32,
    /// The luminance it starts at.
    pub threshold: f32,
    /// The soft knee, as a fraction of the threshold (0: a hard cut).
    pub knee: f32,
    /// The Gaussian's standard deviation, pixels; `None` is 2 % of the image height.
    pub sigma: Option<f32>,
    /// The kernel's radius, pixels; `None` is 3 σ (Gaussian) or σ (box, tent).
    pub radius: Option<u32>,
    /// The brightest luminance the bright pass keeps; 0 is no cap.
    pub clamp: f32,
    /// The kernel.
    pub kind: BloomKind,
    /// `knee_width`: the soft knee's whole width in luminance, W·m⁻²·sr⁻¹ (it then spans
    /// threshold ± width/2); `None` is `knee · threshold` each side.
    pub knee_width: Option<f32>,
    /// `soft`: the share of the whole picture, not only its part above the threshold, that
    /// glows (Godot's glow `bloom`), 0 to 1.
    pub soft: f32,
    /// `unit`: the pixels one unit of `sigma`, `radius` and `radii` is (1: pixels).
    pub unit: f32,
    /// `down`: the bright pass blurred at 1/`down` of the resolution (box means of
    /// `down` × `down` blocks, sizes divided by it, bilinear back up); 1 is full resolution.
    pub down: u32,
    /// `linear_taps`: a live renderer's two-texel bilinear taps; the same kernel, so the bake
    /// draws the same either way (recorded).
    pub linear_taps: bool,
    /// `radii` and `gains`, or `kind = "rings"`: four Gaussian levels summed, each reaching
    /// its radius (σ = radius/3, in `unit`s) and weighted by its gain.
    pub rings: Option<Rings>,
}

/// The four levels of a ringed bloom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rings {
    /// Each level's reach, `unit`s (3 σ); `None`: ¼, ½, 1 and 2 × the single bloom's radius.
    pub radii: Option<[f32; 4]>,
    /// Each level's weight.
    pub gains: [f32; 4],
}

/// A ringed bloom's gains without `gains`: equal, summing to 1.
pub const RING_GAINS: [f32; 4] = [0.25; 4];

impl Default for Bloom {
    fn default() -> Self {
        Bloom {
            strength: 0.2,
            threshold: 1.0,
            knee: 0.5,
            sigma: None,
            radius: None,
            clamp: 0.0,
            kind: BloomKind::Gaussian,
            knee_width: None,
            soft: 0.0,
            unit: 1.0,
            down: 1,
            linear_taps: false,
            rings: None,
        }
    }
}

/// The most pixels a blur reaches: larger radii are cut to this (and to the image).
const MAX_RADIUS: usize = 1024;

impl Bloom {
    pub(super) fn to_json(self) -> Value {
        json!({
            "strength": self.strength, "threshold": self.threshold, "knee": self.knee,
            "sigma": self.sigma, "radius": self.radius, "clamp": self.clamp,
            "kind": match (self.kind, self.rings.is_some()) {
                (_, true) => "rings",
                (BloomKind::Gaussian, _) => "gaussian",
                (BloomKind::Box, _) => "box",
                (BloomKind::Tent, _) => "tent",
            },
            "sigma_default": "0.02 x image height, pixels",
            "knee_width": self.knee_width, "soft": self.soft, "unit": self.unit,
            "down": self.down, "linear_taps": self.linear_taps,
            "rings": self.rings.map(|r| json!({
                "radii": r.radii, "gains": r.gains,
                "radii_default": "0.25, 0.5, 1, 2 x the single bloom's radius",
                "levels": "Gaussians of sigma = radius / 3, summed by gain",
            })),
        })
    }

    /// The unit's pixels, finite and positive.
    fn unit(&self) -> f32 {
        if self.unit.is_finite() && self.unit > 0.0 {
            self.unit
        } else {
            1.0
        }
    }

    /// The normalised 1D kernel, centre first (weights for offsets 0, 1, …) for an image
    /// `h` pixels high and `longest` pixels on its longer side, its sizes divided by `scale`
    /// (the downsampling).
    fn kernel(&self, h: usize, longest: usize, scale: f32) -> Vec<f32> {
        let u = self.unit();
        let sigma = self
            .sigma
            .map_or(0.02 * h as f32, |s| if u == 1.0 { s } else { s * u });
        let sigma = (sigma / scale).max(1e-3);
        let r = match (self.radius, self.kind) {
            (Some(r), _) if u == 1.0 && scale == 1.0 => r as usize,
            (Some(r), _) => (r as f32 * u / scale).round() as usize,
            (None, BloomKind::Gaussian) => (3.0 * sigma).ceil() as usize,
            (None, _) => sigma.ceil() as usize,
        }
        .min(MAX_RADIUS)
        .min(longest);
        let w: Vec<f64> = (0..=r)
            .map(|i| match self.kind {
                BloomKind::Gaussian => (-0.5 * (i as f64 / sigma as f64).powi(2)).exp(),
                BloomKind::Box => 1.0,
                BloomKind::Tent => (r + 1 - i) as f64,
            })
            .collect();
        let total: f64 = w[0] + 2.0 * w[1..].iter().sum::<f64>();
        w.iter().map(|v| (v / total) as f32).collect()
    }

    /// The part of `c` the bloom blurs.
    fn bright(&self, c: [f32; 3]) -> [f32; 3] {
        let l = (c[0] * REC709_WEIGHTS[0] + c[1] * REC709_WEIGHTS[1] + c[2] * REC709_WEIGHTS[2])
            .max(0.0);
        if l <= 0.0 {
            return [0.0; 3];
        }
        let t = self.threshold.max(0.0);
        let k = match self.knee_width {
            Some(kw) if kw.is_finite() => 0.5 * kw.max(0.0),
            _ => t * self.knee.clamp(0.0, 1.0),
        };
        let soft = if k > 0.0 {
            let s = (l - t + k).clamp(0.0, 2.0 * k);
            s * s / (4.0 * k)
        } else {
            0.0
        };
        let mut f = soft.max(l - t) / l;
        let whole = if self.soft.is_finite() {
            self.soft.clamp(0.0, 1.0)
        } else {
            0.0
        };
        if whole > 0.0 {
            f += whole * (1.0 - f);
        }
        if self.clamp > 0.0 && l * f > self.clamp {
            f = self.clamp / l;
        }
        c.map(|v| v.max(0.0) * f)
    }

    /// The levels to blur with and their weights: the one kernel, or the four rings.
    fn levels(&self, h: usize, longest: usize, scale: f32) -> Vec<(Vec<f32>, f32)> {
        let Some(rings) = self.rings else {
            return vec![(self.kernel(h, longest, scale), 1.0)];
        };
        let u = self.unit();
        // The single bloom's reach, pixels: its radius, or 3 σ.
        let base = match (self.radius, self.sigma) {
            (Some(r), _) => r as f32 * u,
            (None, Some(s)) => 3.0 * s * u,
            (None, None) => 3.0 * 0.02 * h as f32,
        };
        let radii = rings
            .radii
            .map(|r| r.map(|v| v * u))
            .unwrap_or([0.25, 0.5, 1.0, 2.0].map(|f| f * base));
        radii
            .iter()
            .zip(rings.gains)
            .map(|(&r, g)| {
                let r = if r.is_finite() { r.max(0.0) } else { 0.0 };
                let level = Bloom {
                    sigma: Some((r / 3.0).max(1e-3)),
                    radius: Some(r.ceil().min(MAX_RADIUS as f32) as u32),
                    kind: BloomKind::Gaussian,
                    unit: 1.0,
                    ..*self
                };
                (
                    level.kernel(h, longest, scale),
                    if g.is_finite() { g } else { 0.0 },
                )
            })
            .collect()
    }
}

/// One separable blur along rows (`along_x`) or columns, edge pixels repeated.
pub(super) fn blur(
    src: &[[f32; 3]],
    w: usize,
    h: usize,
    k: &[f32],
    along_x: bool,
) -> Vec<[f32; 3]> {
    let mut out = vec![[0.0f32; 3]; w * h];
    out.par_chunks_mut(w).enumerate().for_each(|(y, row)| {
        for (x, o) in row.iter_mut().enumerate() {
            let at = |d: isize| -> [f32; 3] {
                if along_x {
                    let xx = (x as isize + d).clamp(0, w as isize - 1) as usize;
                    src[y * w + xx]
                } else {
                    let yy = (y as isize + d).clamp(0, h as isize - 1) as usize;
                    src[yy * w + x]
                }
            };
            let mut s = at(0).map(|v| v * k[0]);
            for (i, &wt) in k.iter().enumerate().skip(1) {
                let (a, b) = (at(i as isize), at(-(i as isize)));
                s = [0, 1, 2].map(|c| s[c] + wt * (a[c] + b[c]));
            }
            *o = s;
        }
    });
    out
}

pub(super) fn bloom(img: &mut Image, b: &Bloom) {
    glow(img, b, [1.0; 3]);
}

/// The bloom with its blurred light × `tint` (the halation's colour; white for the bloom, where
/// the product is exact, so the bloom's bytes are the untinted ones).
pub(super) fn glow(img: &mut Image, b: &Bloom, tint: [f32; 3]) {
    let (w, h) = (img.width, img.height);
    let bright: Vec<[f32; 3]> = img.px.iter().map(|&c| b.bright(c)).collect();
    let d = (b.down.max(1) as usize).min(w.max(h));
    let blurred = if d == 1 && b.rings.is_none() {
        let k = b.kernel(h, w.max(h), 1.0);
        blur(&blur(&bright, w, h, &k, true), w, h, &k, false)
    } else {
        let (small, sw, sh) = downsample(&bright, w, h, d);
        let mut sum = vec![[0.0f32; 3]; sw * sh];
        for (k, g) in b.levels(h, w.max(h), d as f32) {
            let level = blur(&blur(&small, sw, sh, &k, true), sw, sh, &k, false);
            for (s, l) in sum.iter_mut().zip(level) {
                *s = [0, 1, 2].map(|c| s[c] + g * l[c]);
            }
        }
        upsample(&sum, sw, sh, w, h, d)
    };
    let s = b.strength;
    img.px
        .par_iter_mut()
        .zip(blurred.par_iter())
        .for_each(|(c, g)| *c = [0, 1, 2].map(|i| c[i] + s * g[i] * tint[i]));
}

/// `src` (`w × h`) in means of `d × d` blocks from the top-left corner (the last ones cut to
/// the image), and its size.
fn downsample(src: &[[f32; 3]], w: usize, h: usize, d: usize) -> (Vec<[f32; 3]>, usize, usize) {
    if d == 1 {
        return (src.to_vec(), w, h);
    }
    let (sw, sh) = (w.div_ceil(d), h.div_ceil(d));
    let out = (0..sw * sh)
        .into_par_iter()
        .map(|i| {
            let (bx, by) = (i % sw * d, i / sw * d);
            let (x1, y1) = ((bx + d).min(w), (by + d).min(h));
            let mut s = [0.0f64; 3];
            for y in by..y1 {
                for x in bx..x1 {
                    for c in 0..3 {
                        s[c] += src[y * w + x][c] as f64;
                    }
                }
            }
            let n = ((x1 - bx) * (y1 - by)) as f64;
            s.map(|v| (v / n) as f32)
        })
        .collect();
    (out, sw, sh)
}

/// `src` (`sw × sh`, blocks of `d` pixels) back at `w × h`, bilinear between the blocks'
/// centres, edges repeated.
fn upsample(src: &[[f32; 3]], sw: usize, sh: usize, w: usize, h: usize, d: usize) -> Vec<[f32; 3]> {
    if d == 1 {
        return src.to_vec();
    }
    (0..w * h)
        .into_par_iter()
        .map(|i| {
            let x = ((i % w) as f32 + 0.5) / d as f32 - 0.5;
            let y = ((i / w) as f32 + 0.5) / d as f32 - 0.5;
            super::cine::sample(src, sw, sh, x, y)
        })
        .collect()
}

/// Each `size × size` block (from the top-left corner; the last ones cut to the image) takes
/// its pixels' mean.
pub(super) fn pixelate(img: &mut Image, size: u32) {
    let s = size.max(1) as usize;
    if s == 1 {
        return;
    }
    let (w, h) = (img.width, img.height);
    for by in (0..h).step_by(s) {
        for bx in (0..w).step_by(s) {
            let (x1, y1) = ((bx + s).min(w), (by + s).min(h));
            let mut sum = [0.0f64; 3];
            for y in by..y1 {
                for x in bx..x1 {
                    let p = img.px[y * w + x];
                    sum = [0, 1, 2].map(|c| sum[c] + p[c] as f64);
                }
            }
            let n = ((x1 - bx) * (y1 - by)) as f64;
            let mean = sum.map(|v| (v / n) as f32);
            for y in by..y1 {
                for x in bx..x1 {
                    img.px[y * w + x] = mean;
                }
            }
        }
    }
}

/// The Kuwahara filter (Kuwahara et al. 1976): of the four (r + 1)² quadrants that meet at a
/// pixel (cut to the image), the mean colour of the one whose luminance varies least (the
/// first in the order top-left, top-right, bottom-left, bottom-right on a tie).
pub(super) fn kuwahara(img: &mut Image, radius: u32) {
    let r = (radius as usize).min(MAX_RADIUS);
    if r == 0 {
        return;
    }
    let (w, h) = (img.width, img.height);
    // Summed-area tables of R, G, B, L and L², (w + 1) × (h + 1), in f64 (exact enough and
    // summed in one fixed order).
    let sw = w + 1;
    let mut sat = vec![[0.0f64; 5]; sw * (h + 1)];
    for y in 0..h {
        let mut row = [0.0f64; 5];
        for x in 0..w {
            let c = img.px[y * w + x];
            let l = (c[0] * REC709_WEIGHTS[0] + c[1] * REC709_WEIGHTS[1] + c[2] * REC709_WEIGHTS[2])
                as f64;
            let v = [c[0] as f64, c[1] as f64, c[2] as f64, l, l * l];
            let above = sat[y * sw + x + 1];
            row = [0, 1, 2, 3, 4].map(|k| row[k] + v[k]);
            sat[(y + 1) * sw + x + 1] = [0, 1, 2, 3, 4].map(|k| above[k] + row[k]);
        }
    }
    let sum = |x0: usize, y0: usize, x1: usize, y1: usize| -> [f64; 5] {
        // Inclusive x0..=x1, y0..=y1.
        let (a, b, c, d) = (
            sat[y0 * sw + x0],
            sat[y0 * sw + x1 + 1],
            sat[(y1 + 1) * sw + x0],
            sat[(y1 + 1) * sw + x1 + 1],
        );
        [0, 1, 2, 3, 4].map(|k| d[k] - b[k] - c[k] + a[k])
    };
    let src = std::mem::take(&mut img.px);
    img.px = (0..w * h)
        .into_par_iter()
        .map(|i| {
            let (x, y) = (i % w, i / w);
            let (xl, xr) = (x.saturating_sub(r), (x + r).min(w - 1));
            let (yt, yb) = (y.saturating_sub(r), (y + r).min(h - 1));
            let quads = [
                (xl, yt, x, y),
                (x, yt, xr, y),
                (xl, y, x, yb),
                (x, y, xr, yb),
            ];
            let mut best = (f64::INFINITY, src[i]);
            for (x0, y0, x1, y1) in quads {
                let s = sum(x0, y0, x1, y1);
                let n = ((x1 - x0 + 1) * (y1 - y0 + 1)) as f64;
                let mean = s[3] / n;
                let var = s[4] / n - mean * mean;
                if var < best.0 {
                    best = (
                        var,
                        [(s[0] / n) as f32, (s[1] / n) as f32, (s[2] / n) as f32],
                    );
                }
            }
            best.1
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bloom_kernels_sum_to_one() {
        for kind in [BloomKind::Gaussian, BloomKind::Box, BloomKind::Tent] {
            let b = Bloom {
                kind,
                sigma: Some(4.0),
                ..Bloom::default()
            };
            let k = b.kernel(100, 100, 1.0);
            let total: f32 = k[0] + 2.0 * k[1..].iter().sum::<f32>();
            assert!((total - 1.0).abs() < 1e-5, "{kind:?}");
        }
    }

    #[test]
    fn bloom_below_threshold_adds_nothing() {
        let b = Bloom {
            knee: 0.0,
            ..Bloom::default()
        };
        assert_eq!(b.bright([0.5, 0.9, 0.2]), [0.0; 3]);
        let c = b.bright([2.0, 2.0, 2.0]);
        assert!((c[0] - 1.0).abs() < 1e-6, "{c:?}");
    }

    #[test]
    fn vignette_is_one_at_the_centre_and_darkest_at_corners() {
        let v = Vignette {
            strength: 1.0,
            ..Vignette::default()
        };
        assert!((v.factor(50, 50, 101, 101) - 1.0).abs() < 1e-6);
        let corner = v.factor(0, 0, 101, 101);
        assert!(corner < 0.05, "{corner}");
    }
}
