//! Warps from the unit square to directions, with their densities.

use glam::{Vec2, Vec3};
use std::f32::consts::FRAC_1_PI;

/// Shirley–Chiu concentric map of `[0, 1)²` onto the unit disk: area preserving and with low
/// distortion, so stratified numbers stay stratified.
pub fn concentric_disk(u: Vec2) -> Vec2 {
    let o = 2.0 * u - Vec2::ONE;
    if o.x == 0.0 && o.y == 0.0 {
        return Vec2::ZERO;
    }
    // The wedge's angle is π/4 · t, or π/2 − π/4 · t, with |t| ≤ 1.
    if o.x.abs() > o.y.abs() {
        let (s, c) = super::trig::sin_cos_eighth(o.y / o.x);
        o.x * Vec2::new(c, s)
    } else {
        let (s, c) = super::trig::sin_cos_eighth(o.x / o.y);
        o.y * Vec2::new(s, c)
    }
}

/// A cosine-distributed direction on the +Z hemisphere (Malley's method); its density is
/// [`cosine_hemisphere_pdf`] per steradian.
pub fn cosine_hemisphere(u: Vec2) -> Vec3 {
    let d = concentric_disk(u);
    let z = (1.0 - d.length_squared()).max(0.0).sqrt();
    Vec3::new(d.x, d.y, z)
}

/// Density of [`cosine_hemisphere`], per steradian: `cos θ / π` above the surface, 0 below.
pub fn cosine_hemisphere_pdf(cos_theta: f32) -> f32 {
    if cos_theta > 0.0 {
        cos_theta * FRAC_1_PI
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_corners_and_centre() {
        assert_eq!(concentric_disk(Vec2::splat(0.5)), Vec2::ZERO);
        for u in [
            Vec2::ZERO,
            Vec2::new(1.0, 0.0),
            Vec2::ONE,
            Vec2::new(0.0, 1.0),
        ] {
            assert!((concentric_disk(u).length() - 1.0).abs() < 1e-6);
        }
    }

    #[test]
    fn cosine_directions_are_unit_and_above() {
        for i in 0..64 {
            for j in 0..64 {
                let u = Vec2::new(i as f32 / 63.0, j as f32 / 63.0);
                let w = cosine_hemisphere(u);
                assert!((w.length() - 1.0).abs() < 1e-6 && w.z >= 0.0, "{w}");
            }
        }
    }

    #[test]
    fn cosine_moments_match_closed_form() {
        // E[cos θ] under cos θ/π is ∫ cos² θ/π dω = 2/3; E[cos² θ] = 1/2.
        let n = 256;
        let (mut m1, mut m2) = (0.0f64, 0.0f64);
        for i in 0..n {
            for j in 0..n {
                let u = Vec2::new((i as f32 + 0.5) / n as f32, (j as f32 + 0.5) / n as f32);
                let z = cosine_hemisphere(u).z as f64;
                m1 += z;
                m2 += z * z;
            }
        }
        let k = (n * n) as f64;
        assert!((m1 / k - 2.0 / 3.0).abs() < 3e-4, "{}", m1 / k);
        assert!((m2 / k - 0.5).abs() < 3e-4, "{}", m2 / k);
    }
}
