//! Light groups (`--passes`): each camera sample's direct light at its first drawn surface,
//! split by the light that gives it, and the share of each light's unshadowed light the
//! shadow rays found blocked (the shadow matte). See docs/plates.md, "Light groups".
//!
//! "Direct" is the light of the paths with exactly two segments — camera to the first drawn
//! surface, that surface to a light — as the beauty counts them: next-event estimation at the
//! first vertex, and the BSDF-sampled ray from it that meets a light, each with its MIS
//! weight. The estimate here re-traces the beauty's first vertex from the same random numbers
//! (the same sampler dimensions), so the groups of a sample sum to the light the beauty's
//! path gathered over those two segments, to float rounding; the beauty's own loop is not
//! touched, and a bake without passes runs none of this.

use glam::Vec3;

use super::guiding;
use super::query::{offset_origin, shadow_ray_to, Meet};
use super::subsurface::Walk;
use super::{power_heuristic, Counters, PathTracer, FIRST_BOUNCE_DIM};
use crate::color::luminance;
use crate::film::LightSample;
use crate::geometry::Ray;
use crate::lights::{Light, LightContext};
use crate::materials::beer_lambert;
use crate::media::Flight;
use crate::sampling::sampler::PixelSampler;
use crate::world::{mask, TraceScene};

/// The most light groups a bake writes besides `other`: the shadow-casting lights of most
/// power (luminance-weighted W, as light sampling weighs them), the rest joining `other`.
/// Each group costs 20 bytes a pixel while rendering and 14 bytes a pixel in `passes.exr`.
pub const MAX_LIGHT_GROUPS: usize = 8;

/// What a light group holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LightSource {
    /// A placed light: index into the `[[light]]`s then `[[emitter]]`s in the scene's order
    /// (the order of `World::placed_lights`).
    Placed(u32),
    /// The emissive surfaces of one object: index into the world's objects.
    Object(u32),
    /// The `[sun]`.
    Sun,
    /// The `[sky]`.
    Sky,
}

/// The light groups of a scene: one per shadow-casting light (every `[[light]]` with
/// `shadow = true`, every `[[emitter]]`, each object whose material emits, the sun and the
/// sky), at most [`MAX_LIGHT_GROUPS`] of them, and `other` last: what no group holds (lights
/// with `shadow = false`, lights past the cap, surfaces whose emission a texture varies).
#[derive(Clone, Debug, PartialEq)]
pub struct LightGroups {
    /// The groups but `other`, in the order of the trace scene's lights.
    pub groups: Vec<LightSource>,
    /// The shadow-casting lights past the cap, in `other`.
    pub capped: Vec<LightSource>,
    /// Per light of the trace scene: its group (`groups.len()` for `other`).
    of_light: Vec<u16>,
}

impl LightGroups {
    /// The groups of `scene`: a function of the scene alone.
    pub fn of(scene: &TraceScene) -> LightGroups {
        let triangles = scene.light_instance.len();
        let source = |i: usize| -> Option<LightSource> {
            match &scene.lights[i] {
                Light::Triangle { .. } => scene
                    .light_instance
                    .get(i)
                    .map(|&ii| LightSource::Object(scene.instances[ii as usize].object)),
                Light::Point { casts, .. } | Light::Sphere { casts, .. } => {
                    casts.then_some(LightSource::Placed((i - triangles) as u32))
                }
                Light::Sun { .. } => Some(LightSource::Sun),
                Light::Sky(_) => Some(LightSource::Sky),
            }
        };
        // Every candidate with its power (an object's: its triangles'), in first-seen order.
        let mut candidates: Vec<(LightSource, f64)> = Vec::new();
        let sources: Vec<Option<LightSource>> = (0..scene.lights.len()).map(source).collect();
        for (i, s) in sources.iter().enumerate() {
            let Some(s) = *s else { continue };
            let p = scene.light_powers.get(i).copied().unwrap_or(0.0) as f64;
            match candidates.iter_mut().find(|(c, _)| *c == s) {
                Some((_, sum)) => *sum += p,
                None => candidates.push((s, p)),
            }
        }
        // A light that gives nothing needs no group.
        candidates.retain(|(_, p)| *p > 0.0);
        let mut by_power: Vec<usize> = (0..candidates.len()).collect();
        by_power.sort_by(|&a, &b| candidates[b].1.total_cmp(&candidates[a].1).then(a.cmp(&b)));
        let mut kept = vec![false; candidates.len()];
        for &k in by_power.iter().take(MAX_LIGHT_GROUPS) {
            kept[k] = true;
        }
        let groups: Vec<LightSource> = candidates
            .iter()
            .zip(&kept)
            .filter(|(_, &k)| k)
            .map(|(c, _)| c.0)
            .collect();
        let capped = candidates
            .iter()
            .zip(&kept)
            .filter(|(_, &k)| !k)
            .map(|(c, _)| c.0)
            .collect();
        let other = groups.len() as u16;
        let of_light = sources
            .iter()
            .map(|s| {
                s.and_then(|s| groups.iter().position(|g| *g == s))
                    .map_or(other, |g| g as u16)
            })
            .collect();
        LightGroups {
            groups,
            capped,
            of_light,
        }
    }

    /// Groups with `other`: the length of a sample's [`LightSample`] slice.
    pub fn len(&self) -> usize {
        self.groups.len() + 1
    }

    /// Never empty: `other` is always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The group of light `light` (index into the trace scene's lights).
    #[inline]
    fn group_of(&self, light: usize) -> usize {
        self.of_light
            .get(light)
            .map_or(self.groups.len(), |&g| g as usize)
    }
}

impl PathTracer<'_> {
    /// The light groups of sample `index` (of the pixel `sampler` belongs to) whose camera ray
    /// `ray` first meets `first`, into `out` (one entry per group, `other` last, zeroed by the
    /// caller). Nothing where the camera sees the sky or a light, where the haze scatters the
    /// camera ray first, or where the first drawn surface is a holdout or unlit text.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn light_group_sample(
        &self,
        groups: &LightGroups,
        sampler: &PixelSampler,
        index: u32,
        ray: &Ray,
        first: Meet,
        counters: &mut Counters,
        out: &mut [LightSample],
    ) {
        self.first_vertex_direct(groups, sampler, index, ray, first, counters, out);
        // As the beauty drops a sample whose radiance is not finite, so do the groups.
        if !out
            .iter()
            .all(|g| g.light.is_finite() && g.unshadowed.is_finite() && g.shadowed.is_finite())
        {
            out.fill(LightSample::default());
        }
    }

    /// [`Self::light_group_sample`] before its finiteness check. Mirrors the path loop's
    /// first two segments in `li_met` step for step (the same sampler dimensions, tests,
    /// weights and expressions), so that the sum over groups is the beauty's direct light.
    #[allow(clippy::too_many_arguments)]
    fn first_vertex_direct(
        &self,
        groups: &LightGroups,
        sampler: &PixelSampler,
        index: u32,
        ray: &Ray,
        first: Meet,
        counters: &mut Counters,
        out: &mut [LightSample],
    ) {
        let settings = &self.settings;
        if settings.max_depth.max(1) < 2 {
            return;
        }
        if let Some(m) = &self.scene.medium {
            if !matches!(
                self.haze_flight(m, sampler, index, 0, ray, &first),
                Flight::Pass
            ) {
                return;
            }
        }
        let Meet::Surface(hit) = first else { return };
        if self.scene.accel.instances()[hit.instance as usize].mask & mask::DRAWN == 0 {
            return;
        }
        let info = &self.scene.instances[hit.instance as usize];
        let material = &self.scene.materials[info.material as usize];
        if info.glow || material.holdout {
            return;
        }
        let wo = -ray.d.normalize();
        let (s, shaded) = self.shaded_surface(&hit, ray, material, false);
        let bxdf = shaded.as_ref().map_or(&material.bxdf, |sh| &sh.bxdf);
        let bsdf = Self::surface_bsdf(&s, wo, bxdf, shaded.as_ref());
        // The path loop's guided mixture (`--guiding`), if any.
        let guide_here = self.guide_at(&bsdf, s.p, 0);
        let ng_out = if s.ng_front.dot(wo) >= 0.0 {
            s.ng_front
        } else {
            -s.ng_front
        };
        let dim = FIRST_BOUNCE_DIM;
        let [u_pick, u_light, u_lobe, u] =
            sampler.get_2d_x4(index, [dim, dim + 2, dim + 4, dim + 6]);
        let here = LightContext {
            p: s.p,
            ns: s.ns,
            ng: (!bsdf.bxdf().transmits()).then(|| {
                super::horizon(
                    &bsdf,
                    ng_out,
                    material.surface.as_ref().is_some_and(|g| g.normal_mapped()),
                )
            }),
            narrow: super::narrow(bsdf.bxdf()),
        };

        // Next-event estimation, as the path loop's at segment 0 (where no earlier shadow ray
        // has passed glass, so none is `covered`).
        let picked = if self.scene.lights.is_empty() {
            None
        } else {
            self.light_choice
                .sample(&self.scene.light_tree, &here, u_pick.x)
        };
        if let Some((li_index, pick_pdf)) = picked {
            let light = &self.scene.lights[li_index];
            if let Some(ls) = light
                .sample_li(s.p, u_light)
                .filter(|ls| !self.light_point_cut(li_index, s.p + ls.wi * ls.dist))
            {
                if ls.pdf > 0.0 && pick_pdf > 0.0 && ls.li != Vec3::ZERO {
                    let casts = match light {
                        Light::Point { casts, .. } | Light::Sphere { casts, .. } => *casts,
                        _ => true,
                    };
                    // As the path loop (terminator.rs).
                    let (f, bsdf_pdf, lifted) = if bsdf.below_horizon(ls.wi) {
                        match material.surface.as_ref().is_some_and(|g| g.normal_mapped()) {
                            true => None,
                            false => self.terminator_light(&bsdf, &s, wo, ls.wi, ng_out),
                        }
                        .map_or((Vec3::ZERO, 0.0, None), |(f, o)| (f, 0.0, Some(o)))
                    } else if ls.delta || !casts {
                        (bsdf.f(wo, ls.wi), 0.0, None)
                    } else {
                        let (f, pdf) = bsdf.f_pdf(wo, ls.wi);
                        (f, guiding::mixed_pdf(guide_here, pdf, ls.wi), None)
                    };
                    let cos = ls.wi.dot(s.ns).abs();
                    if f != Vec3::ZERO && cos > 0.0 {
                        let o = lifted.unwrap_or_else(|| offset_origin(s.p, ng_out, ls.wi));
                        let to_light = shadow_ray_to(o, s.p, ls.wi, ls.dist);
                        let visible = if casts {
                            counters.rays += 1;
                            self.shadow(&to_light)
                        } else {
                            Some((Vec3::ONE, false))
                        };
                        let light_pdf = pick_pdf * ls.pdf;
                        let g = &mut out[groups.group_of(li_index)];
                        // The matte compares what the shadow ray let through with what an
                        // empty scene would (no MIS weight: the light-sampled estimate alone,
                        // and no haze, whose attenuation is no shadow).
                        let unshadowed = f * ls.li * (cos / light_pdf);
                        g.unshadowed += luminance(unshadowed);
                        match visible {
                            None => g.shadowed += luminance(unshadowed),
                            Some((tr, _)) => g.shadowed += luminance(unshadowed * (Vec3::ONE - tr)),
                        }
                        let visible = match &self.scene.medium {
                            None => visible,
                            Some(m) => visible.map(|(tr, crossed)| {
                                let h = self.haze_transmittance(
                                    m,
                                    sampler,
                                    index,
                                    0,
                                    o,
                                    to_light.d,
                                    to_light.t_max,
                                );
                                (tr * h, crossed)
                            }),
                        };
                        if let Some((tr, crossed)) = visible {
                            let w = if ls.delta || !casts || crossed {
                                1.0
                            } else {
                                power_heuristic(light_pdf, bsdf_pdf)
                            };
                            // The path loop's throughput is 1 here and nothing is clamped.
                            g.light += Vec3::ONE * f * tr * ls.li * (cos * w / light_pdf);
                        }
                    }
                }
            }
        }

        // The BSDF-sampled ray, and the light it meets.
        let Some(bs) = guiding::sample_direction(&bsdf, guide_here, wo, u_lobe, u) else {
            return;
        };
        if bs.pdf <= 0.0 || bs.f == Vec3::ZERO {
            return;
        }
        let mut beta = bs.f * (bs.wi.dot(s.ns).abs() / bs.pdf);
        if !beta.is_finite() {
            // The path loop drops the whole sample.
            out.fill(LightSample::default());
            return;
        }
        let transmitted =
            bsdf.bxdf().transmits() && (bs.wi.dot(s.ng_front) > 0.0) != (wo.dot(s.ng_front) > 0.0);
        let through_body = transmitted && bsdf.bxdf().bounds_body();
        let mut eta_scale = 1.0f32;
        let mut medium = Vec3::ZERO;
        let mut body = None;
        if through_body {
            let e = bsdf.relative_eta(wo, bs.wi);
            eta_scale *= e * e;
            if bs.wi.dot(s.ng_front) < 0.0 {
                medium = material.absorption;
                body = material.subsurface.as_ref();
            }
        }
        if settings.rr_depth <= 1 {
            let q = (beta * eta_scale).max_element().min(0.95);
            if u_pick.y >= q {
                return;
            }
            beta /= q;
        }
        let ray = Ray::new(offset_origin(s.p, ng_out, bs.wi), bs.wi);
        counters.rays += 1;
        let meet = self.meet(&ray, mask::CASTS, false);
        // Into a subsurface body: the beauty's walk. Light found after a scattering in it is
        // indirect, in no group; a ray that crossed unscattered goes on as it was.
        if let Some(b) = body {
            match self.subsurface_walk(b, sampler, index, 1, ray, meet, counters) {
                Walk::Left { scatterings: 0, .. } => {}
                _ => return,
            }
        }
        let wo = -ray.d.normalize();
        if medium != Vec3::ZERO {
            let t = match meet {
                Meet::Nothing => f32::INFINITY,
                Meet::Sphere { t, .. } => t,
                Meet::Surface(h) => h.t,
            };
            beta *= beer_lambert(medium, t * ray.d.length());
        }
        if let Some(m) = &self.scene.medium {
            if !matches!(
                self.haze_flight(m, sampler, index, 1, &ray, &meet),
                Flight::Pass
            ) {
                return;
            }
        }
        let mis = |light: u32, dist: f32| {
            if bs.specular {
                1.0
            } else {
                let pl = self.light_pick_pdf(&here, light)
                    * self.scene.lights[light as usize].pdf_li(here.p, -wo, dist);
                power_heuristic(bs.pdf, pl)
            }
        };
        match meet {
            Meet::Nothing => {
                for &i in &self.scene.infinite {
                    let le = self.scene.lights[i as usize].le_infinite(-wo);
                    if le == Vec3::ZERO {
                        continue;
                    }
                    out[groups.group_of(i as usize)].light += beta * le * mis(i, f32::INFINITY);
                }
            }
            Meet::Sphere { light, t } => {
                if let Light::Sphere {
                    radiance, casts, ..
                } = &self.scene.lights[light as usize]
                {
                    let w = if *casts {
                        mis(light, t * ray.d.length())
                    } else {
                        1.0
                    };
                    out[groups.group_of(light as usize)].light += beta * *radiance * w;
                }
            }
            Meet::Surface(h) => {
                if self.scene.accel.instances()[h.instance as usize].mask & mask::DRAWN == 0 {
                    return;
                }
                let info = &self.scene.instances[h.instance as usize];
                let material = &self.scene.materials[info.material as usize];
                // Unlit text glows, it does not light: the beauty's glow seen in a mirror is
                // in no group (docs/plates.md).
                if info.glow || material.holdout {
                    return;
                }
                let mut s = self.surface(&h, &ray);
                let emission = match material.surface.as_ref() {
                    Some(g) => {
                        let sh = g.shade(&self.surface_point(&h, &s, g), bs.diffuse);
                        s.ns = sh.ns;
                        sh.emission
                    }
                    None => material.emission,
                };
                let le = self.surface_emission(&s, wo, emission);
                if le != Vec3::ZERO {
                    let (group, w) = match info.first_light {
                        Some(first) => {
                            let li = first + s.prim;
                            (groups.group_of(li as usize), mis(li, h.t * ray.d.length()))
                        }
                        // A surface whose emission a texture varies is no light of the list.
                        None => (groups.groups.len(), 1.0),
                    };
                    out[group].light += beta * le * w;
                }
            }
        }
    }
}
