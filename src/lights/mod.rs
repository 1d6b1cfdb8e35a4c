//! Lights: points, spheres (`[[light]]` with a radius and `[[emitter]]`), emissive triangles,
//! the sun and the sky, each sampled by solid angle from a shading point; which light is
//! sampled is [`LightChoice`]'s decision, by a fixed distribution and the [`LightTree`].
//!
//! Units: a point light's `intensity` is radiant intensity, W/sr per channel; the radiance of
//! spheres, triangles, the sun's disk and the sky is W·m⁻²·sr⁻¹; the sun's `irradiance` is W/m²
//! on a plane facing it. Every pdf here is per unit solid angle at the shading point.

pub mod choice;
pub mod hosek;
pub mod sky;
pub mod skymaps;
pub mod sun;
pub mod tree;

use std::f32::consts::PI;

use glam::{Vec2, Vec3};

pub use crate::color::luminance;
pub use crate::sampling::{Distribution1D, Distribution2D};
pub use choice::LightChoice;
pub use sky::SkyMap;
pub use tree::{LightContext, LightTree};

use crate::geometry::sphere_hit;
use crate::geometry::Frame;

/// A light sample seen from a shading point.
#[derive(Clone, Copy, Debug)]
pub struct LightSample {
    /// Unit direction from the shading point towards the light.
    pub wi: Vec3,
    /// Incident radiance (or, for a delta light, irradiance-like `I/d²` or `E`), per channel.
    pub li: Vec3,
    /// Solid-angle density; 1 for delta lights.
    pub pdf: f32,
    /// Distance to the sampled point; infinite for the sun and sky.
    pub dist: f32,
    /// A point or a sun of radius 0: BSDF sampling can never find it.
    pub delta: bool,
}

/// Every kind of light, dispatched by `match`.
#[derive(Clone, Debug)]
pub enum Light {
    /// `[[light]]` of radius 0.
    Point {
        /// World position.
        position: Vec3,
        /// Radiant intensity, W/sr per channel.
        intensity: Vec3,
        /// Whether shadow rays are traced for it.
        casts: bool,
    },
    /// `[[light]]` with a radius, or `[[emitter]]`: a sphere of uniform radiance.
    Sphere {
        /// World centre.
        center: Vec3,
        /// Scene units, above 0.
        radius: f32,
        /// W·m⁻²·sr⁻¹ per channel.
        radiance: Vec3,
        /// Whether shadow rays are traced for it (and whether other rays can hit it).
        casts: bool,
    },
    /// An emissive triangle, world space.
    Triangle {
        /// Corners.
        p: [Vec3; 3],
        /// Unit normal of the front (counter-clockwise) face.
        n: Vec3,
        /// Area, square scene units.
        area: f32,
        /// W·m⁻²·sr⁻¹ per channel, leaving the front face.
        radiance: Vec3,
        /// Whether the back face emits too.
        two_sided: bool,
    },
    /// The sun: a delta direction, or a disk of angular radius `acos(cos_max)`.
    Sun {
        /// Unit vector towards the sun.
        toward: Vec3,
        /// W/m² per channel on a plane facing the sun.
        irradiance: Vec3,
        /// Cosine of the angular radius; 1 for a delta sun.
        cos_max: f32,
    },
    /// The sky at infinity.
    Sky(Box<SkyMap>),
}

impl Light {
    /// Approximate emitted power (luminance-weighted W), for choosing among lights.
    /// `scene_radius` bounds the scene, for the sun and sky.
    pub fn power(&self, scene_radius: f32) -> f32 {
        let disk = PI * scene_radius * scene_radius;
        let p = match self {
            Light::Point { intensity, .. } => 4.0 * PI * luminance(*intensity),
            Light::Sphere {
                radius, radiance, ..
            } => PI * luminance(*radiance) * 4.0 * PI * radius * radius,
            Light::Triangle {
                area,
                radiance,
                two_sided,
                ..
            } => PI * luminance(*radiance) * area * if *two_sided { 2.0 } else { 1.0 },
            Light::Sun { irradiance, .. } => luminance(*irradiance) * disk,
            Light::Sky(map) => PI * map.mean_luminance() * disk,
        };
        if p.is_finite() {
            p.max(0.0)
        } else {
            0.0
        }
    }

    /// Samples a direction towards the light from `p`; `u` in [0,1)².
    #[inline]
    pub fn sample_li(&self, p: Vec3, u: Vec2) -> Option<LightSample> {
        match self {
            Light::Point {
                position,
                intensity,
                ..
            } => {
                let d = *position - p;
                let d2 = d.length_squared();
                if d2 <= 0.0 {
                    return None;
                }
                let dist = d2.sqrt();
                Some(LightSample {
                    wi: d / dist,
                    li: *intensity / d2,
                    pdf: 1.0,
                    dist,
                    delta: true,
                })
            }
            Light::Sphere {
                center,
                radius,
                radiance,
                ..
            } => {
                let (wi, pdf) = sample_sphere_cone(p, *center, *radius, u)?;
                let dist =
                    sphere_hit(p, wi, *center, *radius).unwrap_or_else(|| (*center - p).length());
                Some(LightSample {
                    wi,
                    li: *radiance,
                    pdf,
                    dist,
                    delta: false,
                })
            }
            Light::Triangle {
                p: tri,
                n,
                area,
                radiance,
                two_sided,
            } => {
                // Uniform area sampling, turned into a solid-angle density.
                let su = u.x.sqrt();
                let (b0, b1) = (1.0 - su, u.y * su);
                let q = tri[0] * b0 + tri[1] * b1 + tri[2] * (1.0 - b0 - b1);
                let d = q - p;
                let d2 = d.length_squared();
                if d2 <= 0.0 || *area <= 0.0 {
                    return None;
                }
                let dist = d2.sqrt();
                let wi = d / dist;
                let cos_l = -wi.dot(*n);
                if cos_l <= 0.0 && !*two_sided {
                    return None;
                }
                let cos_l = cos_l.abs();
                if cos_l < 1e-7 {
                    return None;
                }
                let pdf = d2 / (cos_l * area);
                Some(LightSample {
                    wi,
                    li: *radiance,
                    pdf,
                    dist,
                    delta: false,
                })
            }
            Light::Sun {
                toward,
                irradiance,
                cos_max,
            } => {
                if *cos_max >= 1.0 {
                    return Some(LightSample {
                        wi: *toward,
                        li: *irradiance,
                        pdf: 1.0,
                        dist: f32::INFINITY,
                        delta: true,
                    });
                }
                let (local, pdf) = sample_cone(*cos_max, u);
                let wi = Frame::from_normal(*toward).to_world(local);
                Some(LightSample {
                    wi,
                    li: sun_disk_radiance(*irradiance, *cos_max),
                    pdf,
                    dist: f32::INFINITY,
                    delta: false,
                })
            }
            Light::Sky(map) => {
                let (wi, li, pdf) = map.sample(u)?;
                Some(LightSample {
                    wi,
                    li,
                    pdf,
                    dist: f32::INFINITY,
                    delta: false,
                })
            }
        }
    }

    /// The solid-angle density with which `sample_li` from `p` picks direction `wi`, given
    /// that the ray along it reaches this light at distance `dist` (ignored at infinity).
    pub fn pdf_li(&self, p: Vec3, wi: Vec3, dist: f32) -> f32 {
        match self {
            Light::Point { .. } => 0.0,
            Light::Sphere { center, radius, .. } => sphere_cone_pdf(p, *center, *radius),
            Light::Triangle {
                n, area, two_sided, ..
            } => {
                let cos_l = -wi.dot(*n);
                if (cos_l <= 0.0 && !*two_sided) || cos_l.abs() < 1e-7 || *area <= 0.0 {
                    return 0.0;
                }
                dist * dist / (cos_l.abs() * area)
            }
            Light::Sun {
                toward, cos_max, ..
            } => {
                if *cos_max >= 1.0 || wi.dot(*toward) < *cos_max {
                    0.0
                } else {
                    1.0 / (2.0 * PI * (1.0 - cos_max))
                }
            }
            Light::Sky(map) => map.pdf(wi),
        }
    }

    /// Radiance along a ray that escapes the scene in direction `wi`, from this light if it
    /// is at infinity (the sky, or a sun disk).
    pub fn le_infinite(&self, wi: Vec3) -> Vec3 {
        match self {
            Light::Sun {
                toward,
                irradiance,
                cos_max,
            } if *cos_max < 1.0 => {
                if wi.dot(*toward) >= *cos_max {
                    sun_disk_radiance(*irradiance, *cos_max)
                } else {
                    Vec3::ZERO
                }
            }
            Light::Sky(map) => map.radiance(wi),
            _ => Vec3::ZERO,
        }
    }
}

/// The uniform radiance of a disk of angular radius `acos(cos_max)` that gives `irradiance`
/// on a plane facing it: E = L·π·sin²θ.
fn sun_disk_radiance(irradiance: Vec3, cos_max: f32) -> Vec3 {
    let sin2 = (1.0 - cos_max * cos_max).max(1e-12);
    irradiance / (PI * sin2)
}

/// Uniform directions in the cone around +Z of half-angle `acos(cos_max)`; density per sr.
pub fn sample_cone(cos_max: f32, u: Vec2) -> (Vec3, f32) {
    let cos_t = 1.0 - u.x * (1.0 - cos_max);
    let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
    let (sin_phi, cos_phi) = crate::sampling::trig::sin_cos_turn(u.y);
    let pdf = 1.0 / (2.0 * PI * (1.0 - cos_max).max(1e-12));
    (Vec3::new(sin_t * cos_phi, sin_t * sin_phi, cos_t), pdf)
}

/// `1 − cos θmax` of the cone a sphere subtends, computed without cancellation for far spheres.
fn one_minus_cos_max(d2: f32, r: f32) -> Option<f32> {
    let sin2 = r * r / d2;
    if sin2 >= 1.0 {
        return None;
    }
    Some(sin2 / (1.0 + (1.0 - sin2).sqrt()))
}

/// Samples the cone of directions a sphere subtends from `p` (outside it).
fn sample_sphere_cone(p: Vec3, c: Vec3, r: f32, u: Vec2) -> Option<(Vec3, f32)> {
    let d = c - p;
    let d2 = d.length_squared();
    let omc = one_minus_cos_max(d2, r)?;
    let cos_t = 1.0 - u.x * omc;
    let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
    let (sin_phi, cos_phi) = crate::sampling::trig::sin_cos_turn(u.y);
    let local = Vec3::new(sin_t * cos_phi, sin_t * sin_phi, cos_t);
    let wi = Frame::from_normal(d / d2.sqrt())
        .to_world(local)
        .normalize();
    Some((wi, 1.0 / (2.0 * PI * omc)))
}

fn sphere_cone_pdf(p: Vec3, c: Vec3, r: f32) -> f32 {
    match one_minus_cos_max((c - p).length_squared(), r) {
        Some(omc) => 1.0 / (2.0 * PI * omc),
        None => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Irradiance at a point from a sphere light, estimated through its sampling, equals the
    /// closed form of a point light of the same intensity (an emitter seen from outside).
    #[test]
    fn sphere_lights_like_a_point_of_equal_intensity() {
        let intensity = 4.0f32;
        let r = 0.25f32;
        let light = Light::Sphere {
            center: Vec3::new(0.0, 2.0, 0.0),
            radius: r,
            radiance: Vec3::splat(intensity / (PI * r * r)),
            casts: true,
        };
        let p = Vec3::ZERO;
        let n = 200_000;
        let mut e = 0.0f64;
        for i in 0..n {
            let u = Vec2::new(
                (i as f32 + 0.5) / n as f32,
                ((i as u64 * 2654435761) % 1_000_003) as f32 / 1_000_003.0,
            );
            let s = light.sample_li(p, u).unwrap();
            e += (s.li.x * s.wi.y.max(0.0) / s.pdf) as f64;
        }
        let e = e / n as f64;
        let expected = intensity as f64 / 4.0; // I / d², light overhead
        assert!((e - expected).abs() < 2e-3 * expected, "{e} vs {expected}");
    }

    #[test]
    fn sun_disk_gives_its_irradiance() {
        let sun = Light::Sun {
            toward: Vec3::Y,
            irradiance: Vec3::splat(3.0),
            cos_max: 5.0f32.to_radians().cos(),
        };
        let n = 10_000;
        let mut e = 0.0;
        for i in 0..n {
            let u = Vec2::new(
                (i as f32 + 0.5) / n as f32,
                ((i * 7919) % n) as f32 / n as f32,
            );
            let s = sun.sample_li(Vec3::ZERO, u).unwrap();
            e += s.li.x * s.wi.y / s.pdf / n as f32;
        }
        // A plane facing the sun receives E; the cosine falloff over a 5° disk is ~0.2 %.
        assert!((e - 3.0).abs() < 0.01, "{e}");
    }

    #[test]
    fn triangle_pdf_matches_sample() {
        let tri = Light::Triangle {
            p: [
                Vec3::new(-1.0, 2.0, -1.0),
                Vec3::new(1.0, 2.0, -1.0),
                Vec3::new(0.0, 2.0, 1.0),
            ],
            n: Vec3::NEG_Y,
            area: 2.0,
            radiance: Vec3::ONE,
            two_sided: false,
        };
        let s = tri.sample_li(Vec3::ZERO, Vec2::new(0.3, 0.6)).unwrap();
        let pdf = tri.pdf_li(Vec3::ZERO, s.wi, s.dist);
        assert!((pdf - s.pdf).abs() < 1e-4 * pdf);
        // Seen from above, the front face (−Y) points away: nothing.
        assert!(tri
            .sample_li(Vec3::new(0.0, 4.0, 0.0), Vec2::new(0.3, 0.6))
            .is_none());
    }

    #[test]
    fn sphere_hit_finds_near_side() {
        let t = sphere_hit(Vec3::ZERO, Vec3::X, Vec3::new(5.0, 0.0, 0.0), 1.0).unwrap();
        assert!((t - 4.0).abs() < 1e-5);
        assert!(sphere_hit(Vec3::ZERO, -Vec3::X, Vec3::new(5.0, 0.0, 0.0), 1.0).is_none());
    }
}
