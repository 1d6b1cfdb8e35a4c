//! The neon pass (style `neon`, `radius`): the picture's edges drawn as glowing tubes of their
//! own colour over a darkened picture, as a neon or "glow edges" filter (Photoshop's Glowing
//! Edges, the edge-glow post effects of games) draws them.

use serde_json::{json, Value};

use super::ops::{srgb_decode, srgb_encode};
use super::spatial::blur;
use super::{Image, REC709_WEIGHTS};

/// The neon pass. A pixel's line is its Sobel edge strength (the luminance's sRGB code, over
/// 8, × 4, capped at 1) times its colour brought to full brightness (its largest channel to 1,
/// so a hue keeps its hue; a grey is white); the picture is × `dim`, the line added, and the
/// line blurred by a Gaussian reaching `radius` pixels (σ = radius / 3; default 4 % of the
/// height, at least 2) added × `glow`. On the encoded colour, then decoded unless the encode
/// pass has run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Neon {
    /// The glow's reach, pixels; `None` is 4 % of the height, at least 2.
    pub radius: Option<u32>,
    /// The glow's weight.
    pub glow: f32,
    /// What is left of the picture under the tubes, 0 to 1.
    pub dim: f32,
}

impl Default for Neon {
    fn default() -> Self {
        Neon {
            radius: None,
            glow: 1.5,
            dim: 0.15,
        }
    }
}

/// The most pixels the glow reaches.
const MAX_RADIUS: usize = 1024;

impl Neon {
    pub(super) fn to_json(self) -> Value {
        json!({
            "radius": self.radius, "glow": self.glow, "dim": self.dim,
            "radius_default": "0.04 x image height, at least 2 pixels; sigma = radius / 3",
            "edges": "Sobel of the luminance's sRGB code / 8, x 4, capped at 1",
        })
    }
}

pub(super) fn neon(img: &mut Image, n: &Neon, encoded: bool) {
    let (w, h) = (img.width, img.height);
    let enc: Vec<[f32; 3]> = img
        .px
        .iter()
        .map(|&c| {
            if encoded {
                c
            } else {
                c.map(|v| srgb_encode(if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }))
            }
        })
        .collect();
    let luma: Vec<f32> = enc
        .iter()
        .map(|c| c[0] * REC709_WEIGHTS[0] + c[1] * REC709_WEIGHTS[1] + c[2] * REC709_WEIGHTS[2])
        .collect();
    let l = |x: isize, y: isize| {
        luma[(y.clamp(0, h as isize - 1) as usize) * w + x.clamp(0, w as isize - 1) as usize]
    };
    let lines: Vec<[f32; 3]> = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as isize, (i / w) as isize);
            let gx = (l(x + 1, y - 1) + 2.0 * l(x + 1, y) + l(x + 1, y + 1))
                - (l(x - 1, y - 1) + 2.0 * l(x - 1, y) + l(x - 1, y + 1));
            let gy = (l(x - 1, y + 1) + 2.0 * l(x, y + 1) + l(x + 1, y + 1))
                - (l(x - 1, y - 1) + 2.0 * l(x, y - 1) + l(x + 1, y - 1));
            let e = ((gx * gx + gy * gy).sqrt() / 8.0 * 4.0).min(1.0);
            let c = enc[i];
            let top = c[0].max(c[1]).max(c[2]);
            let hue = if top > 1e-4 {
                c.map(|v| v / top)
            } else {
                [1.0; 3]
            };
            hue.map(|v| v * e)
        })
        .collect();
    let reach = n
        .radius
        .map_or(((0.04 * h as f32).round() as usize).max(2), |r| r as usize)
        .min(MAX_RADIUS)
        .min(w.max(h));
    let sigma = (reach as f64 / 3.0).max(1e-3);
    let k: Vec<f64> = (0..=reach)
        .map(|i| (-0.5 * (i as f64 / sigma).powi(2)).exp())
        .collect();
    let total = k[0] + 2.0 * k[1..].iter().sum::<f64>();
    let k: Vec<f32> = k.iter().map(|v| (v / total) as f32).collect();
    let glow = blur(&blur(&lines, w, h, &k, true), w, h, &k, false);
    let dim = if n.dim.is_finite() { n.dim } else { 0.0 };
    img.map(|i, _| {
        let c = [0, 1, 2].map(|k| enc[i][k] * dim + lines[i][k] + n.glow * glow[i][k]);
        if encoded {
            c
        } else {
            c.map(|v| srgb_decode(v.clamp(0.0, 1.0)))
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neon_lights_edges_in_their_colour_and_dims_the_rest() {
        // A red square on black: the square's edge glows red, its flat middle and the far
        // background stay dark.
        let (w, h) = (24, 24);
        let px: Vec<[f32; 3]> = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                if (8..16).contains(&x) && (8..16).contains(&y) {
                    [0.5, 0.02, 0.02]
                } else {
                    [0.0; 3]
                }
            })
            .collect();
        let mut img = Image {
            width: w,
            height: h,
            px: px.clone(),
        };
        neon(
            &mut img,
            &Neon {
                radius: Some(2),
                ..Neon::default()
            },
            false,
        );
        let edge = img.px[8 * w + 12];
        assert!(edge[0] > 0.5 && edge[0] > 4.0 * edge[1], "{edge:?}");
        assert!(
            img.px[12 * w + 12][0] < px[12 * w + 12][0],
            "the middle dims"
        );
        assert_eq!(img.px[0], [0.0; 3]);
    }
}
