//! Colour: linear Rec.709 RGB, the space every radiance, intensity and albedo of a bake is in.
//!
//! The one luminance of the crate: light choice, Russian roulette, `[trace] clamp_indirect`,
//! sky normalisation and reports all weigh channels with the same Rec.709 / sRGB Y weights.

use glam::Vec3;

/// Weights of R, G and B in luminance Y (Rec.709 / sRGB primaries, D65 white); they sum to 1.
pub const LUMINANCE_WEIGHTS: [f32; 3] = [0.2126, 0.7152, 0.0722];

/// Luminance of linear Rec.709 RGB, in the unit of the colour (radiance in, radiance out).
#[inline]
pub fn luminance(c: Vec3) -> f32 {
    let [r, g, b] = LUMINANCE_WEIGHTS;
    r * c.x + g * c.y + b * c.z
}

/// [`luminance`] in double precision, for sums over many texels.
#[inline]
pub fn luminance_f64(c: [f64; 3]) -> f64 {
    let [r, g, b] = LUMINANCE_WEIGHTS.map(f64::from);
    r * c[0] + g * c[1] + b * c[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_has_unit_luminance_in_both_precisions() {
        assert!((luminance(Vec3::ONE) - 1.0).abs() < 1e-6);
        assert!((luminance_f64([1.0; 3]) - 1.0).abs() < 1e-7);
        assert_eq!(luminance(Vec3::new(0.0, 1.0, 0.0)), 0.7152);
    }
}
