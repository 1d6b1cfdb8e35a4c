//! The lens's passes: lateral chromatic aberration (`aberration`) and radial distortion
//! (`distortion`). Both resample the picture about its centre, bilinear, with the edge pixels
//! repeated outside, in units of half the image's diagonal (r = 1 at the corners), so a value
//! looks the same at any resolution.

use rayon::prelude::*;

use super::cine::sample;
use super::Image;

/// The scale difference one unit of `aberration` makes between the red and the green image,
/// and the green and the blue (0.25 %: at 1920 × 1080 the red and blue fringes at a corner
/// lie about 5.5 px apart).
pub const ABERRATION_SCALE: f32 = 0.0025;

/// The distortion's coefficient is read within [−0.3, 1]: below −⅓ the mapping folds back.
pub const DISTORTION_RANGE: (f32, f32) = (-0.3, 1.0);

/// Lateral chromatic aberration: red shown magnified by 1/(1 − s), blue shrunk by 1/(1 + s),
/// s = [`ABERRATION_SCALE`] × `amount` (as a lens that bends blue more than red, the fringes
/// growing towards the corners); green stays.
pub(super) fn aberration(img: &mut Image, amount: f32) {
    if amount == 0.0 || !amount.is_finite() {
        return;
    }
    let s = (ABERRATION_SCALE * amount).clamp(-0.5, 0.5);
    let (w, h) = (img.width, img.height);
    let (cx, cy) = (0.5 * (w as f32 - 1.0), 0.5 * (h as f32 - 1.0));
    let src = std::mem::take(&mut img.px);
    img.px = (0..w * h)
        .into_par_iter()
        .map(|i| {
            let (x, y) = ((i % w) as f32, (i / w) as f32);
            let at = |f: f32, k: usize| sample(&src, w, h, cx + (x - cx) * f, cy + (y - cy) * f)[k];
            [at(1.0 - s, 0), src[i][1], at(1.0 + s, 2)]
        })
        .collect();
}

/// Radial lens distortion (Brown's model, one coefficient k = `amount`): the picture at
/// p · (1 + k r²) / (1 + k) shown at p, p from the centre and r in half-diagonals. Positive k
/// is barrel (the middle bulges), negative pincushion; the division keeps the corners where
/// they are, so a barrel never shows past the frame.
pub(super) fn distortion(img: &mut Image, amount: f32) {
    if amount == 0.0 || !amount.is_finite() {
        return;
    }
    let k = amount.clamp(DISTORTION_RANGE.0, DISTORTION_RANGE.1);
    let (w, h) = (img.width, img.height);
    let (cx, cy) = (0.5 * w as f32, 0.5 * h as f32);
    let half_diagonal = (cx * cx + cy * cy).sqrt();
    let src = std::mem::take(&mut img.px);
    img.px = (0..w * h)
        .into_par_iter()
        .map(|i| {
            let (dx, dy) = ((i % w) as f32 + 0.5 - cx, (i / w) as f32 + 0.5 - cy);
            let r2 = (dx * dx + dy * dy) / (half_diagonal * half_diagonal);
            let f = (1.0 + k * r2) / (1.0 + k);
            sample(&src, w, h, cx + dx * f - 0.5, cy + dy * f - 0.5)
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(w: usize, h: usize) -> Image {
        Image {
            width: w,
            height: h,
            px: (0..w * h)
                .map(|i| [(i % w) as f32, (i % w) as f32, (i % w) as f32])
                .collect(),
        }
    }

    #[test]
    fn aberration_splits_red_from_blue_towards_the_edges() {
        let mut img = ramp(41, 5);
        aberration(&mut img, 10.0);
        // At the centre nothing moves; at the right edge red reads nearer the centre (a
        // magnified red), blue farther out.
        assert_eq!(img.px[2 * 41 + 20], [20.0; 3]);
        let p = img.px[2 * 41 + 38];
        assert!(p[0] < 38.0 && p[2] > 38.0 && p[1] == 38.0, "{p:?}");
        assert!((p[0] - (20.0 + 18.0 * (1.0 - 0.025))).abs() < 1e-4);
    }

    #[test]
    fn distortion_keeps_the_centre_and_the_corners() {
        for k in [0.3f32, -0.2] {
            let mut img = ramp(40, 40);
            let before = img.px.clone();
            distortion(&mut img, k);
            // The corner pixel's centre lies at r just under 1: nearly itself.
            assert!((img.px[0][0] - before[0][0]).abs() < 0.5, "{k}");
            // Halfway out along the middle row, barrel reads from nearer the centre
            // ((1 + k r²)/(1 + k) < 1), pincushion from farther.
            let x = img.px[20 * 40 + 30][0];
            if k > 0.0 {
                assert!(x < 30.0, "{k}: {x}");
            } else {
                assert!(x > 30.0, "{k}: {x}");
            }
        }
    }
}
