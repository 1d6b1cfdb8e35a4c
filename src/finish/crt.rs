//! The cathode-ray-tube passes (style `crt`): scanlines, the aperture grille's mask and the
//! screen's curvature. Each is a pure function of the pixel's place and the image.

use rayon::prelude::*;

use super::cine::sample;
use super::Image;

/// The scanlines' pitch for an image `height` pixels high: a 240-line raster (NTSC's visible
/// field), at least 3 pixels a line so that a line has a bright centre and dark edges.
pub fn scanline_pitch(height: usize) -> usize {
    ((height as f32 / 240.0).round() as usize).max(3)
}

/// The scanline factor of row `y`: each line a beam of profile cos²(π·d / pitch), d the row
/// centre's distance from the line's centre, so the factor is 1 − strength · (1 − beam).
pub fn scanline_factor(strength: f32, y: usize, pitch: usize) -> f32 {
    let p = pitch.max(1) as f32;
    let d = (y % pitch.max(1)) as f32 + 0.5 - 0.5 * p;
    let beam = (std::f32::consts::PI * d / p).cos().powi(2);
    1.0 - strength.clamp(0.0, 1.0) * (1.0 - beam)
}

pub(super) fn scanlines(img: &mut Image, strength: f32) {
    let (w, pitch) = (img.width, scanline_pitch(img.height));
    img.map(|i, c| {
        let f = scanline_factor(strength, i / w, pitch);
        c.map(|v| v * f)
    });
}

/// The aperture grille (a Trinitron's): columns of red, green and blue phosphor, one pixel
/// each; in column x the phosphor x mod 3 passes whole and the other two × (1 − strength).
pub(super) fn mask(img: &mut Image, strength: f32) {
    let (w, dark) = (img.width, 1.0 - strength.clamp(0.0, 1.0));
    img.map(|i, c| {
        let lit = (i % w) % 3;
        [0, 1, 2].map(|k| if k == lit { c[k] } else { c[k] * dark })
    });
}

/// The screen's curvature: a barrel distortion, the picture at (u, v) · (1 + amount · (u² +
/// v²)) shown at (u, v) (the image spanning −1 to 1 on each axis), bilinear; what falls
/// outside the picture is the tube's black border.
pub(super) fn curvature(img: &mut Image, amount: f32) {
    if amount == 0.0 || !amount.is_finite() {
        return;
    }
    let k = amount.clamp(-0.5, 4.0);
    let (w, h) = (img.width, img.height);
    let src = std::mem::take(&mut img.px);
    img.px = (0..w * h)
        .into_par_iter()
        .map(|i| {
            let u = 2.0 * ((i % w) as f32 + 0.5) / w as f32 - 1.0;
            let v = 2.0 * ((i / w) as f32 + 0.5) / h as f32 - 1.0;
            let f = 1.0 + k * (u * u + v * v);
            let (su, sv) = (u * f, v * f);
            if su.abs() > 1.0 || sv.abs() > 1.0 {
                return [0.0; 3];
            }
            let x = (su + 1.0) * 0.5 * w as f32 - 0.5;
            let y = (sv + 1.0) * 0.5 * h as f32 - 0.5;
            sample(&src, w, h, x, y)
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanlines_are_bright_at_their_centre_and_dark_between() {
        assert_eq!(scanline_pitch(32), 3);
        assert_eq!(scanline_pitch(1080), 5);
        let f: Vec<f32> = (0..3).map(|y| scanline_factor(0.5, y, 3)).collect();
        assert!((f[1] - 1.0).abs() < 1e-6 && f[0] < 0.7 && (f[0] - f[2]).abs() < 1e-6);
        assert_eq!(scanline_factor(0.0, 0, 3), 1.0);
    }

    #[test]
    fn curvature_keeps_the_centre_and_blacks_the_corners() {
        let (w, h) = (9, 9);
        let mut img = Image {
            width: w,
            height: h,
            px: (0..w * h).map(|i| [1.0 + i as f32; 3]).collect(),
        };
        let centre = img.px[40];
        curvature(&mut img, 0.3);
        assert_eq!(img.px[40], centre);
        assert_eq!(img.px[0], [0.0; 3]);
    }
}
