//! Choosing lights by what they light in view, not by their power alone.
//!
//! Next-event estimation picks one light per vertex from a discrete distribution. By power, a
//! sun or sky over an interior takes most of the picks although it reaches the room only
//! through a window (the flagship gave them 87 % of the picks while the lamps, which light
//! most of what the camera sees, shared 13 %). Before rendering, a fixed pass estimates each
//! light's unshadowed-but-visible irradiance at points the camera sees and at the points one
//! diffuse bounce further, and the pick distribution becomes a mixture of that estimate and
//! the power distribution. Any positive pick probability gives an unbiased estimator, and the
//! MIS weights use the same distribution, so only the noise changes; the power share of the
//! mixture keeps every light with power pickable, so a light the pass missed (seen only after
//! several bounces) still gets samples.
//!
//! The pass is a function of the world alone, with its own fixed seed: the same scene gives
//! the same distribution whatever the render's seed, spp or thread count.

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use super::query::{offset_origin, shadow_ray_to, Meet};
use super::PathTracer;
use crate::camera::Camera;
use crate::color::luminance;
use crate::geometry::{Frame, Ray};
use crate::lights::Light;
use crate::sampling::warp::cosine_hemisphere;
use crate::sampling::{Distribution1D, Sampler};
use crate::world::mask;

/// The film grid the pass looks through: about this many points along the longer side.
const GRID: u32 = 48;
/// At most this many shadow rays in the whole pass (so its cost is bounded for any scene).
const RAY_BUDGET: usize = 400_000;
/// Fewer points than this say too little: the power distribution stays.
const MIN_POINTS: usize = 64;
/// At most this many light samples per point and light group.
const MAX_PER_PAIR: usize = 4;
/// The power distribution's share of the mixture.
const POWER_SHARE: f32 = 0.25;
/// The pass's own seed, distinct from any render's stream.
const SEED: u64 = 0x6c69_6768_745f_6775;

impl PathTracer<'_> {
    /// The pick distribution over the scene's lights guided by what they light in `camera`'s
    /// view, or `None` when the power distribution should stay (one light or none, or a pass
    /// that saw nothing lit). Shadow rays are traced as the render traces them.
    pub(super) fn guided_light_choice(&self, camera: &Camera) -> Option<Distribution1D> {
        let powers = &self.scene.light_powers;
        let n = self.scene.lights.len();
        if n < 2 || powers.len() != n {
            return None;
        }
        // Groups: one per light, except that the triangles of one emissive instance form one
        // group, picked within by power (a mesh light of 10,000 triangles is one choice).
        let mut group_of = vec![0usize; n];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut by_instance = std::collections::HashMap::new();
        for (l, light) in self.scene.lights.iter().enumerate() {
            let key = match light {
                Light::Triangle { .. } => self.scene.light_instance.get(l).copied(),
                _ => None,
            };
            let g = match key {
                Some(ii) => *by_instance.entry(ii).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                }),
                None => {
                    groups.push(Vec::new());
                    groups.len() - 1
                }
            };
            group_of[l] = g;
            groups[g].push(l);
        }
        let group_power: Vec<f32> = groups
            .iter()
            .map(|g| g.iter().map(|&l| powers[l].max(0.0)).sum())
            .collect();
        let within: Vec<Option<Distribution1D>> = groups
            .iter()
            .map(|g| {
                (g.len() > 1)
                    .then(|| Distribution1D::new(&g.iter().map(|&l| powers[l]).collect::<Vec<_>>()))
            })
            .collect();

        let mut points = self.guide_points(camera);
        // Many groups (a scene of hundreds of lamps): keep every k-th point so that the pass
        // stays within its budget, as long as enough points remain to say anything.
        let stride = (points.len() * groups.len()).div_ceil(RAY_BUDGET).max(1);
        if stride > 1 {
            points = points.into_iter().step_by(stride).collect();
        }
        if points.len() < MIN_POINTS {
            return None;
        }
        let pairs = points.len() * groups.len();
        let per_pair = (RAY_BUDGET / pairs).clamp(1, MAX_PER_PAIR);
        let sampler = Sampler::new(SEED);

        // Per point, each group's estimated irradiance (luminance), summed in point order.
        let per_point: Vec<Vec<f64>> = points
            .par_iter()
            .enumerate()
            .map(|(pi, &(p, n_face))| {
                let mut e = vec![0.0f64; groups.len()];
                for (g, members) in groups.iter().enumerate() {
                    if group_power[g] <= 0.0 {
                        continue;
                    }
                    for k in 0..per_pair {
                        let index = (g * per_pair + k) as u32;
                        let pixel = [pi as u32, 0];
                        let u_pick = sampler.get_1d(pixel, index, 0);
                        let u_light = sampler.get_2d(pixel, index, 1);
                        let (l, p_within) = match &within[g] {
                            Some(d) => {
                                let (i, pdf) = d.sample_discrete(u_pick);
                                (members[i], pdf)
                            }
                            None => (members[0], 1.0),
                        };
                        e[g] += self.irradiance_sample(l, p, n_face, u_light) as f64
                            / (p_within.max(1e-12) as f64 * per_pair as f64);
                    }
                }
                e
            })
            .collect();
        let mut seen = vec![0.0f64; groups.len()];
        for e in &per_point {
            for (s, v) in seen.iter_mut().zip(e) {
                *s += v;
            }
        }
        let total: f64 = seen.iter().sum();
        let power_total: f64 = powers.iter().map(|&p| p.max(0.0) as f64).sum();
        if !(total > 0.0 && total.is_finite() && power_total > 0.0) {
            return None;
        }
        let weights: Vec<f32> = (0..n)
            .map(|l| {
                let g = group_of[l];
                let p = powers[l].max(0.0) as f64;
                let share_in_group = if group_power[g] > 0.0 {
                    p / group_power[g] as f64
                } else {
                    0.0
                };
                let guided = seen[g] / total * share_in_group;
                let w = (1.0 - POWER_SHARE as f64) * guided + POWER_SHARE as f64 * p / power_total;
                w as f32
            })
            .collect();
        Some(Distribution1D::new(&weights))
    }

    /// The points the pass estimates at, each with the normal facing where it was seen from:
    /// the camera's first hits through a coarse film grid, and one cosine-distributed bounce
    /// from each.
    fn guide_points(&self, camera: &Camera) -> Vec<(Vec3, Vec3)> {
        let [w, h] = camera.size;
        if w == 0 || h == 0 {
            return Vec::new();
        }
        let step = (w.max(h) as f32 / GRID as f32).max(1.0);
        let (gw, gh) = (
            ((w as f32 / step) as u32).max(1),
            ((h as f32 / step) as u32).max(1),
        );
        let sampler = Sampler::new(SEED ^ 1);
        let mut out = Vec::new();
        for y in 0..gh {
            for x in 0..gw {
                let film = Vec2::new((x as f32 + 0.5) * step, (y as f32 + 0.5) * step);
                let ray = camera.ray(film, Vec2::splat(0.5));
                let Some((p, n)) = self.guide_hit(&ray, mask::DRAWN, true) else {
                    continue;
                };
                out.push((p, n));
                let u = sampler.get_2d([x, y], 0, 0);
                let d = Frame::from_normal(n).to_world(cosine_hemisphere(u));
                let o = offset_origin(p, n, d);
                if let Some(q) = self.guide_hit(&Ray::new(o, d), mask::CASTS, false) {
                    out.push(q);
                }
            }
        }
        out
    }

    /// The surface point a ray meets and its geometric normal turned towards the ray's origin.
    fn guide_hit(&self, ray: &Ray, m: u32, spheres_all: bool) -> Option<(Vec3, Vec3)> {
        match self.meet(ray, m, spheres_all) {
            Meet::Surface(h) => {
                let s = self.surface(&h, ray);
                let n = if s.ng_front.dot(ray.d) > 0.0 {
                    -s.ng_front
                } else {
                    s.ng_front
                };
                (s.p.is_finite() && n.is_finite()).then_some((s.p, n))
            }
            _ => None,
        }
    }

    /// One estimate of the irradiance (luminance) light `l` gives a surface at `p` facing
    /// `n`, shadows included: `L cos / pdf`, zero when the sample is blocked.
    fn irradiance_sample(&self, l: usize, p: Vec3, n: Vec3, u: Vec2) -> f32 {
        let light = &self.scene.lights[l];
        let Some(ls) = light.sample_li(p, u) else {
            return 0.0;
        };
        let cos = ls.wi.dot(n);
        if ls.pdf.is_nan() || ls.pdf <= 0.0 || cos <= 0.0 || ls.li == Vec3::ZERO {
            return 0.0;
        }
        if self.light_point_cut(l, p + ls.wi * ls.dist) {
            return 0.0;
        }
        let casts = match light {
            Light::Point { casts, .. } | Light::Sphere { casts, .. } => *casts,
            _ => true,
        };
        // Through glass as the render sees it: tinted with `[trace] transmissive_shadows`.
        let mut tr = Vec3::ONE;
        if casts {
            let o = offset_origin(p, n, ls.wi);
            match self.shadow(&shadow_ray_to(o, p, ls.wi, ls.dist)) {
                Some((t, _)) => tr = t,
                None => return 0.0,
            }
        }
        let e = luminance(ls.li * tr) * cos / ls.pdf;
        if e.is_finite() {
            e
        } else {
            0.0
        }
    }
}
