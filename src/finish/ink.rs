//! The drawn-line looks: cel bands (`cel_bands`, `cel_shadow`, `cel_threshold`,
//! `cel_softness`; style `cel`) and the outline (`outline` and its keys). The outline reads the
//! plate's depth when the chain is given it (silhouettes and depth steps, as a game's edge
//! post effect does); without a depth, the luminance's edges. Crease lines (`crease_angle`)
//! and the cel specular (`surface.rs`) read the normal pass when the chain is given it.

use serde_json::{json, Value};

use rayon::prelude::*;

use super::ops::{srgb_decode, srgb_encode};
use super::surface::{creased, CelSpec};
use super::{Image, REC709_WEIGHTS};

/// The cel bands on the luminance's sRGB code L: below `threshold` the shadow band; above it,
/// `bands` − 1 lit bands of equal width, each drawn at its top edge's level (the top band at
/// 1, the full colour); the shadow band at `shadow` × the first lit band's level. A pixel's
/// colour is its chroma (the colour over its linear luminance) at the band's level, and the
/// steps between bands are smoothstep ramps `softness` wide (code units).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cel {
    /// Bands, the shadow's included (at least 2).
    pub bands: u32,
    /// The shadow band's brightness over the first lit band's.
    pub shadow: f32,
    /// Where the lit bands start, a luminance code.
    pub threshold: f32,
    /// The steps' width, code units (0: hard).
    pub softness: f32,
    /// The specular highlight (`cel_spec` and its keys), drawn from the normal pass.
    pub spec: Option<CelSpec>,
}

impl Default for Cel {
    fn default() -> Self {
        Cel {
            bands: 3,
            shadow: 0.5,
            threshold: 0.3,
            softness: 0.02,
            spec: None,
        }
    }
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    if e1 <= e0 {
        return if x >= e0 { 1.0 } else { 0.0 };
    }
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

impl Cel {
    pub(super) fn to_json(self) -> Value {
        let mut v = json!({
            "bands": self.bands, "shadow": self.shadow, "threshold": self.threshold,
            "softness": self.softness, "input": "the Rec.709 luminance's sRGB code",
        });
        if let Some(s) = self.spec {
            v["spec"] = s.to_json();
        }
        v
    }

    /// The level (a luminance code) the band of code `l` is drawn at.
    pub fn level(&self, l: f32) -> f32 {
        let lit = self.bands.clamp(2, 256) - 1;
        let t = self.threshold.clamp(0.0, 1.0);
        let width = (1.0 - t) / lit as f32;
        let soft = if self.softness.is_finite() {
            self.softness.max(0.0)
        } else {
            0.0
        };
        let top = |k: u32| t + width * k as f32;
        // Start in the shadow band and step up at each band's lower edge.
        let mut level = self.shadow.max(0.0) * top(1);
        let mut below = level;
        for k in 1..=lit {
            let edge = top(k - 1);
            let s = smoothstep(edge - 0.5 * soft, edge + 0.5 * soft, l);
            level += (top(k) - below) * s;
            below = top(k);
        }
        level
    }

    /// The cel colour of linear `c`.
    pub(super) fn apply(&self, c: [f32; 3]) -> [f32; 3] {
        let y = c[0] * REC709_WEIGHTS[0] + c[1] * REC709_WEIGHTS[1] + c[2] * REC709_WEIGHTS[2];
        if y.is_nan() || y <= 1e-6 {
            // No light to read a chroma from: the shadow band's grey.
            return [srgb_decode(self.level(0.0)); 3];
        }
        let l = srgb_encode(y.min(1.0));
        let target = srgb_decode(self.level(l).clamp(0.0, 1.0));
        c.map(|v| (v.max(0.0) / y * target).min(1.0))
    }
}

/// The outline pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Outline {
    /// The line's width, pixels (below 1 reads as 1).
    pub thickness: f32,
    /// Its opacity, 0 to 1.
    pub alpha: f32,
    /// Its colour, linear RGB.
    pub color: [f32; 3],
    /// Draws the line in a dark shade of the surface's own colour (¼ of it) instead.
    pub local_color: bool,
    /// Lines also where neighbouring normals meet at more than this angle, degrees (a
    /// crease), when the chain is given the normal pass.
    pub crease_angle: Option<f32>,
}

impl Default for Outline {
    fn default() -> Self {
        Outline {
            thickness: 1.0,
            alpha: 1.0,
            color: [srgb_decode(0x10 as f32 / 255.0); 3],
            local_color: false,
            crease_angle: None,
        }
    }
}

/// A depth step is an edge where the nearer depth is under this share of the farther one's
/// difference: |a − b| > 5 % of min(a, b).
pub const DEPTH_STEP: f32 = 0.05;

/// A luminance edge (without a depth): the Sobel gradient of the code, over 8, above this.
pub const LUMA_EDGE: f32 = 0.1;

impl Outline {
    pub(super) fn to_json(self) -> Value {
        let mut v = json!({
            "thickness": self.thickness, "alpha": self.alpha, "color": self.color,
            "local_color": self.local_color,
            "edges": "depth steps |a - b| > 0.05 min(a, b) between 4-neighbours; without a depth, the luminance code's Sobel gradient / 8 > 0.1",
        });
        if let Some(a) = self.crease_angle {
            v["crease_angle"] = json!(a);
            v["creases"] = json!("also where 4-neighbours' camera-space normals meet at more than crease_angle degrees (needs the normal; none on the sky)");
        }
        v
    }
}

/// Which pixels are edges: depth steps when `depth` is given, else luminance edges; with
/// `crease` (the cosine of the crease angle) and a normal, also the normal's creases.
pub(super) fn edges(
    img: &Image,
    depth: Option<&[f32]>,
    normal: Option<&[[f32; 3]]>,
    crease: Option<f32>,
) -> Vec<bool> {
    let mut e = silhouettes(img, depth);
    if let (Some(n), Some(cos)) = (normal, crease) {
        for (a, b) in e.iter_mut().zip(creases(img.width, img.height, n, cos)) {
            *a |= b;
        }
    }
    e
}

/// The pixels of a `w × h` image whose 4-neighbours' normals meet at more than the crease
/// whose cosine is `cos` (both sides marked).
pub(super) fn creases(w: usize, h: usize, n: &[[f32; 3]], cos: f32) -> Vec<bool> {
    (0..w * h)
        .into_par_iter()
        .map(|i| {
            let (x, y) = (i % w, i / w);
            let c = |j: usize| creased(n[i], n[j], cos);
            (x + 1 < w && c(i + 1))
                || (x > 0 && c(i - 1))
                || (y + 1 < h && c(i + w))
                || (y > 0 && c(i - w))
        })
        .collect()
}

/// The depth's steps when `depth` is given, else the luminance's edges.
pub(super) fn silhouettes(img: &Image, depth: Option<&[f32]>) -> Vec<bool> {
    let (w, h) = (img.width, img.height);
    match depth.filter(|d| d.len() == w * h) {
        Some(z) => (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                let a = z[i];
                let step = |j: usize| {
                    let b = z[j];
                    (a - b).abs() > DEPTH_STEP * a.min(b).abs().max(1e-6)
                };
                (x + 1 < w && step(i + 1))
                    || (x > 0 && step(i - 1))
                    || (y + 1 < h && step(i + w))
                    || (y > 0 && step(i - w))
            })
            .collect(),
        None => {
            let luma: Vec<f32> = img
                .px
                .iter()
                .map(|c| {
                    let y = c[0] * REC709_WEIGHTS[0]
                        + c[1] * REC709_WEIGHTS[1]
                        + c[2] * REC709_WEIGHTS[2];
                    srgb_encode(if y.is_nan() { 0.0 } else { y.clamp(0.0, 1.0) })
                })
                .collect();
            let l = |x: isize, y: isize| {
                luma[(y.clamp(0, h as isize - 1) as usize) * w
                    + x.clamp(0, w as isize - 1) as usize]
            };
            (0..w * h)
                .map(|i| {
                    let (x, y) = ((i % w) as isize, (i / w) as isize);
                    let gx = (l(x + 1, y - 1) + 2.0 * l(x + 1, y) + l(x + 1, y + 1))
                        - (l(x - 1, y - 1) + 2.0 * l(x - 1, y) + l(x - 1, y + 1));
                    let gy = (l(x - 1, y + 1) + 2.0 * l(x, y + 1) + l(x + 1, y + 1))
                        - (l(x - 1, y - 1) + 2.0 * l(x, y - 1) + l(x + 1, y - 1));
                    (gx * gx + gy * gy).sqrt() / 8.0 > LUMA_EDGE
                })
                .collect()
        }
    }
}

/// Draws the outline: each pixel within (`thickness` − 1) / 2 pixels of an edge pixel (its
/// centre's distance) takes the line's colour at `alpha`.
pub(super) fn outline(
    img: &mut Image,
    o: &Outline,
    depth: Option<&[f32]>,
    normal: Option<&[[f32; 3]]>,
    encoded: bool,
) {
    let crease = o
        .crease_angle
        .filter(|a| a.is_finite())
        .map(|a| a.clamp(0.0, 180.0).to_radians().cos());
    let edge = edges(img, depth, normal, crease);
    draw_lines(img, &edge, o, encoded);
}

/// Draws `o`'s lines over `edge` (its edges are not read): each pixel within
/// (`thickness` − 1) / 2 pixels of an edge pixel (its centre's distance) takes the line's
/// colour at `alpha`.
pub(super) fn draw_lines(img: &mut Image, edge: &[bool], o: &Outline, encoded: bool) {
    let (w, h) = (img.width, img.height);
    let t = if o.thickness >= 1.0 {
        o.thickness.min(64.0)
    } else {
        1.0
    };
    let reach = (t - 1.0) / 2.0;
    let r = reach.ceil() as isize;
    let alpha = if o.alpha.is_finite() {
        o.alpha.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let ink = if encoded {
        o.color.map(srgb_encode)
    } else {
        o.color
    };
    img.map(|i, c| {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        let mut on = false;
        'find: for dy in -r..=r {
            for dx in -r..=r {
                let (xx, yy) = (x + dx, y + dy);
                if xx < 0 || yy < 0 || xx >= w as isize || yy >= h as isize {
                    continue;
                }
                if ((dx * dx + dy * dy) as f32).sqrt() <= reach + 1e-4
                    && edge[yy as usize * w + xx as usize]
                {
                    on = true;
                    break 'find;
                }
            }
        }
        if !on {
            return c;
        }
        let line = if o.local_color {
            c.map(|v| 0.25 * v)
        } else {
            ink
        };
        [0, 1, 2].map(|k| c[k] + (line[k] - c[k]) * alpha)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cel_levels_step_at_the_threshold_and_reach_one() {
        let c = Cel {
            softness: 0.0,
            ..Cel::default()
        };
        // Three bands: shadow below 0.3, lit 0.3–0.65 at 0.65, lit 0.65–1 at 1.
        assert!((c.level(0.1) - 0.5 * 0.65).abs() < 1e-6);
        assert!((c.level(0.5) - 0.65).abs() < 1e-6);
        assert!((c.level(0.9) - 1.0).abs() < 1e-6);
        let mut last = 0.0;
        for i in 0..=100 {
            let v = c.level(i as f32 / 100.0);
            assert!(v >= last - 1e-6);
            last = v;
        }
    }

    #[test]
    fn the_outline_follows_depth_steps_only() {
        let (w, h) = (8, 4);
        let mut img = Image {
            width: w,
            height: h,
            px: vec![[0.5; 3]; w * h],
        };
        // A step at x = 4, and a slow slope elsewhere (no edge).
        let depth: Vec<f32> = (0..w * h)
            .map(|i| {
                if i % w < 4 {
                    2.0 + 0.01 * (i % w) as f32
                } else {
                    5.0
                }
            })
            .collect();
        outline(&mut img, &Outline::default(), Some(&depth), None, false);
        for (i, p) in img.px.iter().enumerate() {
            let inked = p[0] < 0.1;
            assert_eq!(inked, i % w == 3 || i % w == 4, "{i}");
        }
    }
}
