//! The painted and printed looks' media: paper grain (`paper_grain`, `scale`; style
//! `paper_grain`) and watercolour pigment (`darkening`, with the paper's keys; style
//! `watercolor`). The paper is a fixed texture of the chain's `seed`: it does not change from
//! frame to frame (a sheet of paper does not move under the picture).

use serde_json::{json, Value};

use super::ops::{srgb_decode, srgb_encode};
use super::{Image, NoiseKey, REC709_WEIGHTS};

/// The paper's texture at pixel (`x`, `y`), in [0, 1): three octaves of value noise of cells
/// `scale` pixels wide (below 0.25 reads as 0.25).
fn paper(key: &NoiseKey, x: u32, y: u32, scale: f32) -> f32 {
    key.fbm(x, y, scale, 3, 0)
}

/// The key a texture of the chain's seed is drawn with: frame 0 whatever the frame.
fn still(key: &NoiseKey) -> NoiseKey {
    NoiseKey { frame: 0, ..*key }
}

/// Paper grain: the picture × (1 − `strength` · p), p the paper's texture in [0, 1), as ink or
/// paint sits thinner on the sheet's raised fibres.
pub(super) fn paper_grain(img: &mut Image, strength: f32, scale: f32, key: &NoiseKey) {
    let (w, key) = (img.width, still(key));
    img.map(|i, c| {
        let p = paper(&key, (i % w) as u32, (i / w) as u32, scale);
        let f = 1.0 - strength * p;
        c.map(|v| v * f)
    });
}

/// The watercolour pass, after Bousseau et al., "Interactive watercolor rendering with
/// temporal coherence and abstraction" (NPAR 2006): the pigment's density d modulates each
/// (display-encoded) colour C as C − (C − C²)(d − 1), with d − 1 the sum of the edge darkening
/// (`darkening` × the Sobel gradient of the luminance's code, capped at 1) and the pigment's
/// texture (`grain` × a turbulent flow of cells 4 × `scale`, the paper of cells `scale`, and
/// a per-pixel dispersion), each centred on 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Watercolor {
    /// Edge darkening: pigment pooling at the wash's edges.
    pub darkening: f32,
    /// The pigment texture's strength (`paper_grain`).
    pub grain: f32,
    /// The paper's cell, pixels (`scale`).
    pub scale: f32,
}

impl Default for Watercolor {
    fn default() -> Self {
        Watercolor {
            darkening: 1.0,
            grain: 0.3,
            scale: 3.0,
        }
    }
}

impl Watercolor {
    pub(super) fn to_json(self) -> Value {
        json!({ "darkening": self.darkening, "grain": self.grain, "scale": self.scale })
    }
}

pub(super) fn watercolor(img: &mut Image, wc: &Watercolor, encoded: bool, key: &NoiseKey) {
    let (w, h) = (img.width, img.height);
    let key = still(key);
    let code = |c: [f32; 3]| -> [f32; 3] {
        if encoded {
            c
        } else {
            c.map(|v| srgb_encode(if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) }))
        }
    };
    let enc: Vec<[f32; 3]> = img.px.iter().map(|&c| code(c)).collect();
    let luma: Vec<f32> = enc
        .iter()
        .map(|c| c[0] * REC709_WEIGHTS[0] + c[1] * REC709_WEIGHTS[1] + c[2] * REC709_WEIGHTS[2])
        .collect();
    let l = |x: isize, y: isize| {
        luma[(y.clamp(0, h as isize - 1) as usize) * w + x.clamp(0, w as isize - 1) as usize]
    };
    img.map(|i, _| {
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        // Sobel, over 4 + 4 (a full step of code across one pixel is 1).
        let gx = (l(x + 1, y - 1) + 2.0 * l(x + 1, y) + l(x + 1, y + 1))
            - (l(x - 1, y - 1) + 2.0 * l(x - 1, y) + l(x - 1, y + 1));
        let gy = (l(x - 1, y + 1) + 2.0 * l(x, y + 1) + l(x + 1, y + 1))
            - (l(x - 1, y - 1) + 2.0 * l(x, y - 1) + l(x + 1, y - 1));
        let edge = ((gx * gx + gy * gy).sqrt() / 8.0).min(1.0);
        let (ux, uy) = (x as u32, y as u32);
        let flow = key.fbm(ux, uy, 4.0 * wc.scale, 2, 1) - 0.5;
        let sheet = paper(&key, ux, uy, wc.scale) - 0.5;
        let dispersion = 0.5 * key.triangular(ux, uy, 40);
        let d1 = wc.darkening * edge + wc.grain * (flow + sheet + 0.5 * dispersion);
        let c = enc[i].map(|v| (v - (v - v * v) * d1).clamp(0.0, 1.0));
        if encoded {
            c
        } else {
            c.map(srgb_decode)
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_only_darkens_and_is_the_same_every_frame() {
        let run = |frame: u64| {
            let mut img = Image {
                width: 32,
                height: 32,
                px: vec![[0.5; 3]; 1024],
            };
            let key = NoiseKey {
                seed: 4,
                frame,
                pass: 1,
            };
            paper_grain(&mut img, 0.3, 2.0, &key);
            img.px
        };
        let a = run(0);
        assert_eq!(a, run(7));
        assert!(a.iter().all(|p| p[0] <= 0.5 && p[0] >= 0.5 * 0.7));
        assert!(a.iter().any(|p| p[0] < 0.45));
    }

    #[test]
    fn watercolour_darkens_edges() {
        // A step from 0.2 to 0.8: with no texture, only the pixels beside the step change,
        // and they darken.
        let (w, h) = (16, 4);
        let px: Vec<[f32; 3]> = (0..w * h)
            .map(|i| if i % w < 8 { [0.2; 3] } else { [0.8; 3] })
            .collect();
        let mut img = Image {
            width: w,
            height: h,
            px: px.clone(),
        };
        let wc = Watercolor {
            darkening: 1.0,
            grain: 0.0,
            scale: 3.0,
        };
        let key = NoiseKey {
            seed: 0,
            frame: 0,
            pass: 0,
        };
        watercolor(&mut img, &wc, false, &key);
        for (i, (a, b)) in img.px.iter().zip(&px).enumerate() {
            let x = i % w;
            if x == 7 || x == 8 {
                assert!(a[0] < b[0] - 0.01, "{x}: {a:?} {b:?}");
            } else {
                assert!((a[0] - b[0]).abs() < 1e-5, "{x}: {a:?} {b:?}");
            }
        }
    }
}
