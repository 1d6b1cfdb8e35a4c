//! The sky as an equirectangular radiance map, importance-sampled.
//!
//! Orientation (unrotated): the image's horizontal centre lies along −Z, its left edge along
//! +Z, and u grows towards +X, so a viewer inside the sphere looking down −Z sees the image
//! the right way round; the top row is +Y. In formulas, for a unit direction d:
//! `u = 0.5 + atan2(d.x, −d.z) / 2π`, `v = acos(d.y) / π`.
//! `rotation_deg` turns the sky about +Y by its negative (the spec's words): a world direction
//! d looks up the map at `Ry(rotation_deg)·d`.

use std::f32::consts::PI;

use glam::{Quat, Vec2, Vec3};

use super::{luminance, Distribution2D};

/// An equirectangular sky map with its sampling distribution.
#[derive(Clone, Debug)]
pub struct SkyMap {
    width: usize,
    height: usize,
    /// Linear RGB radiance × intensity, row-major from the top.
    texels: Vec<Vec3>,
    /// World-to-map rotation.
    to_map: Quat,
    /// Map-to-world rotation.
    to_world: Quat,
    dist: Distribution2D,
    mean_luminance: f32,
}

impl SkyMap {
    /// A sky from `width` × `height` texels of radiance (W·m⁻²·sr⁻¹), scaled by `intensity` and
    /// turned by `-rotation_deg` about +Y. Non-finite and negative texels count as 0.
    pub fn new(
        width: usize,
        height: usize,
        texels: &[[f32; 3]],
        intensity: f32,
        rotation_deg: f32,
    ) -> SkyMap {
        let (width, height) = if texels.len() >= width * height && width > 0 && height > 0 {
            (width, height)
        } else {
            (1, 1)
        };
        let texels: Vec<Vec3> = (0..width * height)
            .map(|i| {
                let t = texels.get(i).copied().unwrap_or([0.0; 3]);
                Vec3::from(t.map(|c| {
                    if c.is_finite() && c > 0.0 {
                        c * intensity
                    } else {
                        0.0
                    }
                }))
            })
            .collect();
        // Weight by luminance times sinθ (the texel's solid angle); a small floor keeps every
        // texel reachable so the estimator stays unbiased where the map is black-ish.
        let mut weights = Vec::with_capacity(width * height);
        let mut mean = 0.0f64;
        let mut total_sa = 0.0f64;
        for y in 0..height {
            let sin_t = (PI * (y as f32 + 0.5) / height as f32).sin();
            for x in 0..width {
                let l = luminance(texels[y * width + x]);
                weights.push(l * sin_t);
                mean += (l * sin_t) as f64;
                total_sa += sin_t as f64;
            }
        }
        let mean_luminance = if total_sa > 0.0 {
            (mean / total_sa) as f32
        } else {
            0.0
        };
        let floor = weights.iter().cloned().fold(0.0f32, f32::max) * 1e-4;
        for (i, w) in weights.iter_mut().enumerate() {
            let y = i / width;
            let sin_t = (PI * (y as f32 + 0.5) / height as f32).sin();
            *w = w.max(floor * sin_t);
        }
        let rot = Quat::from_rotation_y(rotation_deg.to_radians());
        SkyMap {
            width,
            height,
            texels,
            to_map: rot,
            to_world: rot.inverse(),
            dist: Distribution2D::new(&weights, width, height),
            mean_luminance,
        }
    }

    /// Mean luminance over the sphere of directions, W·m⁻²·sr⁻¹.
    pub fn mean_luminance(&self) -> f32 {
        self.mean_luminance
    }

    /// The map coordinates (u, v) in [0, 1)² of unrotated map direction `d` (unit), by the
    /// formulas in the module doc: the centre column looks down −Z, u grows towards +X.
    pub fn uv_of(d: Vec3) -> Vec2 {
        Self::dir_to_uv(d)
    }

    /// The unrotated map direction of map coordinates `uv`, the inverse of [`SkyMap::uv_of`].
    pub fn direction_of(uv: Vec2) -> Vec3 {
        Self::uv_to_dir(uv)
    }

    fn dir_to_uv(d: Vec3) -> Vec2 {
        let u = 0.5 + d.x.atan2(-d.z) / (2.0 * PI);
        let v = d.y.clamp(-1.0, 1.0).acos() / PI;
        Vec2::new(u.rem_euclid(1.0), v)
    }

    fn uv_to_dir(uv: Vec2) -> Vec3 {
        let phi = (uv.x - 0.5) * 2.0 * PI;
        let theta = uv.y * PI;
        let s = theta.sin();
        Vec3::new(s * phi.sin(), theta.cos(), -s * phi.cos())
    }

    fn texel(&self, uv: Vec2) -> Vec3 {
        let x = ((uv.x * self.width as f32) as usize).min(self.width - 1);
        let y = ((uv.y * self.height as f32) as usize).min(self.height - 1);
        self.texels[y * self.width + x]
    }

    /// Radiance arriving from world direction `wi` (unit).
    pub fn radiance(&self, wi: Vec3) -> Vec3 {
        self.texel(Self::dir_to_uv(self.to_map * wi))
    }

    /// Samples a world direction; returns it, its radiance and its solid-angle density.
    pub fn sample(&self, u: Vec2) -> Option<(Vec3, Vec3, f32)> {
        let (uv, pdf_uv) = self.dist.sample(u);
        let sin_t = (uv.y * PI).sin();
        if pdf_uv <= 0.0 || sin_t <= 1e-6 {
            return None;
        }
        let d = Self::uv_to_dir(uv);
        let pdf = pdf_uv / (2.0 * PI * PI * sin_t);
        Some((self.to_world * d, self.texel(uv), pdf))
    }

    /// The solid-angle density of `sample` for world direction `wi`.
    pub fn pdf(&self, wi: Vec3) -> f32 {
        let uv = Self::dir_to_uv(self.to_map * wi);
        let sin_t = (uv.y * PI).sin();
        if sin_t <= 1e-6 {
            return 0.0;
        }
        self.dist.pdf(uv) / (2.0 * PI * PI * sin_t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(i: u32) -> f32 {
        let mut x = i.wrapping_mul(0x9E37_79B9) ^ 0x85EB_CA6B;
        x ^= x >> 16;
        x = x.wrapping_mul(0x7FEB_352D);
        x ^= x >> 15;
        (x >> 8) as f32 / (1u32 << 24) as f32
    }

    fn test_map() -> SkyMap {
        let (w, h) = (16, 8);
        let texels: Vec<[f32; 3]> = (0..w * h)
            .map(|i| [hash(i as u32) * 3.0, 1.0, 0.2])
            .collect();
        SkyMap::new(w, h, &texels, 1.5, 30.0)
    }

    #[test]
    fn uv_round_trip() {
        for i in 0..100 {
            let uv = Vec2::new(hash(2 * i), hash(2 * i + 1) * 0.98 + 0.01);
            let back = SkyMap::dir_to_uv(SkyMap::uv_to_dir(uv));
            assert!((back - uv).length() < 1e-4, "{uv} {back}");
        }
        // The unrotated centre of the image is −Z, the top +Y.
        assert!((SkyMap::uv_to_dir(Vec2::new(0.5, 0.5)) - Vec3::NEG_Z).length() < 1e-6);
        assert!((SkyMap::uv_to_dir(Vec2::new(0.75, 0.5)) - Vec3::X).length() < 1e-6);
    }

    #[test]
    fn sampled_estimate_of_irradiance_matches_quadrature() {
        let map = test_map();
        // Irradiance on an upward plane, by quadrature over directions and by importance sampling.
        let n = 400;
        let mut quad = 0.0f64;
        for j in 0..n {
            for i in 0..2 * n {
                let theta = PI * (j as f32 + 0.5) / n as f32;
                let phi = PI * (i as f32 + 0.5) / n as f32;
                let d = Vec3::new(
                    theta.sin() * phi.cos(),
                    theta.cos(),
                    theta.sin() * phi.sin(),
                );
                let cos = d.y.max(0.0);
                let dw = theta.sin() * (PI / n as f32) * (PI / n as f32);
                quad += (map.radiance(d).x * cos * dw) as f64;
            }
        }
        let m = 400_000;
        let mut est = 0.0f64;
        let mut mismatches = 0;
        for k in 0..m {
            let (d, l, pdf) = map.sample(Vec2::new(hash(2 * k), hash(2 * k + 1))).unwrap();
            // A direction rounded across a texel edge may read the neighbour's density, and
            // acos loses digits near the poles where sinθ divides the density.
            if (map.pdf(d) - pdf).abs() > 1e-2 * pdf + 1e-6 {
                mismatches += 1;
            }
            est += (l.x * d.y.max(0.0) / pdf) as f64;
        }
        est /= m as f64;
        assert!(
            mismatches < m / 2_000,
            "{mismatches} samples disagree with pdf()"
        );
        assert!((est - quad).abs() < 0.01 * quad, "{est} vs {quad}");
    }

    #[test]
    fn rotation_turns_by_the_negative() {
        let (w, h) = (8, 4);
        let mut texels = vec![[0.0f32; 3]; w * h];
        // The two texel columns either side of the image centre (−Z unrotated) are bright.
        for y in 0..h {
            texels[y * w + 3] = [1.0; 3];
            texels[y * w + 4] = [1.0; 3];
        }
        let map = SkyMap::new(w, h, &texels, 1.0, 90.0);
        // Turned by −90° about +Y, −Z goes to Ry(−90°)·(−Z) = +X.
        assert!(map.radiance(Vec3::new(0.999, 0.01, -0.03).normalize()).x > 0.5);
        assert!(map.radiance(Vec3::NEG_Z).x == 0.0);
    }
}
