//! The integrator: unidirectional path tracing with next-event estimation, multiple
//! importance sampling (power heuristic) and Russian roulette, and the render loop that drives
//! it (`render`).
//!
//! A [`PathTracer`] borrows a [`TraceScene`] — what rays read: geometry, materials, lights,
//! sky — and owns only its settings and its light choice; it is not a method of the world, so
//! passes, media or another backend can be added beside it without growing one type.
//!
//! Path length counts segments, the camera ray included: with `max_depth = 16` a path has at
//! most 16 segments, so emission seen directly is depth 1 and a light sampled from the first
//! hit is depth 2. Russian roulette starts once a path has 5 segments.

mod attributes;
mod aux;
mod guide;
mod guiding;
mod light_groups;
mod passes;
mod query;
mod render;
mod subsurface;
mod terminator;
mod volume;

pub use aux::Aux;
pub use guiding::{Guide, QuadTree, Training};
pub use light_groups::{LightGroups, LightSource, MAX_LIGHT_GROUPS};

pub use render::{
    render, render_observed, render_plan_with, render_planned, render_with, v3_available,
    NoProgress, Observer, Plan, Progress, Rendered, DEFAULT_MIN_SPP, TILE,
};

use glam::Vec3;

use crate::camera::Camera;
use crate::color::luminance;
use crate::geometry::Ray;
use crate::lights::{Light, LightChoice, LightContext};
use crate::materials::{beer_lambert, Bsdf, Bxdfs};
use crate::media::Flight;
use crate::sampling::sampler::PixelSampler;
use crate::sampling::Distribution1D;
use crate::world::{mask, TraceScene};
use guiding::Trail;
use query::{offset_origin, shadow_ray_to, Meet, Surface};

/// Settings of one render.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Samples per pixel.
    pub spp: u32,
    /// Most path segments, the camera ray included.
    pub max_depth: u32,
    /// Segments after which Russian roulette may end a path.
    pub rr_depth: u32,
    /// Seed of every random number.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            spp: 64,
            max_depth: 16,
            rr_depth: 5,
            seed: 0,
        }
    }
}

/// Counters of one sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    /// Rays traced: camera, bounce and shadow rays.
    pub rays: u64,
    /// Samples whose radiance was not finite and was dropped (should stay 0).
    pub dropped: u64,
}

const SAMPLES_PER_BOUNCE: u32 = 8;
const FIRST_BOUNCE_DIM: u32 = 4;

/// The share of the positioned lights' pick probability that follows the light tree (the rest
/// follows the guided, point-independent distribution) at a vertex whose BSDF has no narrow
/// lobe; docs/rendering.md has the measurements behind it.
pub const TREE_SHARE: f32 = 1.0;

/// The tree's share at a vertex whose BSDF has a narrow lobe ([`narrow`]): there the guided
/// half bounds the pick probability of a light in the lobe from below, which the BSDF-blind
/// tree does not (docs/rendering.md, the materials scene's fireflies at share 1).
pub const NARROW_TREE_SHARE: f32 = 0.5;

/// The roughness (`√α`) under which a glossy lobe counts as narrow: at α = 0.01 a GGX lobe's
/// peak density is 1/(πα²) ≈ 3,200 per steradian, three orders of magnitude above a diffuse
/// surface's 1/π, so a light the lobe points at gives a thousand times what the tree's
/// importance (which knows the receiver's cosine, not its BSDF) prepared for.
pub const NARROW_ROUGHNESS: f32 = 0.1;

/// Whether a vertex of this BxDF has a narrow lobe for the light choice: a clear coat (its
/// coat is its own, usually smooth, lobe), or a surface drawn with a roughness below
/// [`NARROW_ROUGHNESS`] (glass and liquid, chrome, smooth plastics and metals).
#[inline]
pub fn narrow(bxdf: &Bxdfs) -> bool {
    matches!(bxdf, Bxdfs::Coated(_))
        || matches!(bxdf, Bxdfs::CoatedTranslucent(t) if t.is_coated())
        || bxdf.roughness() < NARROW_ROUGHNESS
}

/// The normal of a reflecting vertex's horizon for the light choice (no light from below it
/// is reflected): the BSDF's shading normal where no texture bends it, so that light below the
/// flat triangle's plane which the terminator fix (terminator.rs) lets in is still picked
/// (every reflecting lobe is zero below its shading hemisphere); the geometric normal `ng_out`
/// under a bent normal (`normal_mapped`), where the geometric plane cuts the lobe instead.
#[inline(always)]
fn horizon(bsdf: &Bsdf<'_>, ng_out: Vec3, normal_mapped: bool) -> Vec3 {
    if normal_mapped {
        ng_out
    } else {
        bsdf.shading_normal()
    }
}

fn power_heuristic(a: f32, b: f32) -> f32 {
    let (a2, b2) = (a * a, b * b);
    if a2 + b2 > 0.0 {
        a2 / (a2 + b2)
    } else {
        0.0
    }
}

/// The path tracer: borrows what rays read and holds its own settings and light choice.
pub struct PathTracer<'w> {
    /// What rays read.
    scene: &'w TraceScene,
    /// The render's settings.
    settings: Settings,
    /// Picks a light for next-event estimation (and gives its probability for MIS).
    light_choice: LightChoice,
    /// The camera's pixel footprint, for filtered texture lookups (`None`: unfiltered).
    footprint: Option<attributes::CameraFootprint>,
    /// The learnt incident radiance rough vertices sample from (`--guiding`), if any.
    guide: Option<Guide>,
    /// Run the path loop's baseline copy even where the CPU runs the x86-64-v3 one (tests
    /// compare the two; render.rs, `LoopLevel`).
    baseline_loop: bool,
}

/// One camera sample's outcome.
#[derive(Clone, Copy, Debug)]
pub struct PathSample {
    /// Radiance arriving along the camera ray, W·m⁻²·sr⁻¹; finite and non-negative.
    pub radiance: Vec3,
    /// The camera ray met something drawn (a surface or an emitter), not the sky.
    pub covered: bool,
}

impl<'w> PathTracer<'w> {
    /// A path tracer for `scene` seen by `camera`. Lights are picked by what they light in
    /// view where a fixed pre-pass through `camera` can tell (see `guide.rs`: a function of
    /// the scene and camera alone, whatever the settings), by power otherwise; a share
    /// [`TREE_SHARE`] of the positioned lights' picks follows the light tree
    /// ([`NARROW_TREE_SHARE`] at vertices with a narrow lobe).
    pub fn new(scene: &'w TraceScene, camera: &Camera, settings: Settings) -> PathTracer<'w> {
        PathTracer::with_tree_shares(
            scene,
            camera,
            settings,
            [TREE_SHARE, NARROW_TREE_SHARE],
            crate::lights::choice::MIN_TREE_LIGHTS,
        )
    }

    /// [`Self::new`] with the tree's share of the positioned lights' picks given, in [0, 1]
    /// (0: the guided distribution alone), the same at every vertex; for measuring and testing
    /// the choice.
    pub fn with_tree_share(
        scene: &'w TraceScene,
        camera: &Camera,
        settings: Settings,
        tree_share: f32,
    ) -> PathTracer<'w> {
        PathTracer::with_tree_shares(
            scene,
            camera,
            settings,
            [tree_share; 2],
            crate::lights::choice::MIN_TREE_LIGHTS,
        )
    }

    /// [`Self::new`] with the tree's shares `[s, s_narrow]` given (`s_narrow` at vertices with
    /// a narrow lobe, [`narrow`]) and the tree used from `min_lights` positioned lights on
    /// ([`crate::lights::choice::MIN_TREE_LIGHTS`] by default; for measuring scenes with fewer).
    pub fn with_tree_shares(
        scene: &'w TraceScene,
        camera: &Camera,
        settings: Settings,
        tree_shares: [f32; 2],
        min_lights: usize,
    ) -> PathTracer<'w> {
        let mut tracer = PathTracer::with_light_choice(scene, scene.light_power.clone(), settings);
        let fixed = tracer
            .guided_light_choice(camera)
            .unwrap_or_else(|| scene.light_power.clone());
        tracer.light_choice = LightChoice::with_tree_from(
            fixed,
            &scene.lights,
            &scene.light_tree,
            tree_shares,
            min_lights,
        );
        tracer.footprint = Some(attributes::CameraFootprint::new(camera, settings.spp));
        tracer
    }

    /// A path tracer for `scene` seen by `camera` that picks lights by power alone, no guided
    /// pre-pass and no tree (issue 13's "off"; textures filtered as [`Self::new`] does).
    pub fn by_power(scene: &'w TraceScene, camera: &Camera, settings: Settings) -> PathTracer<'w> {
        let mut tracer = PathTracer::with_light_choice(scene, scene.light_power.clone(), settings);
        tracer.footprint = Some(attributes::CameraFootprint::new(camera, settings.spp));
        tracer
    }

    /// A path tracer that picks lights from a fixed distribution over `scene.lights`, whatever
    /// the point (tests compare choices).
    pub fn with_light_choice(
        scene: &'w TraceScene,
        light_choice: Distribution1D,
        settings: Settings,
    ) -> PathTracer<'w> {
        PathTracer::with_choice(scene, LightChoice::fixed(light_choice), settings)
    }

    /// A path tracer with a given light choice.
    pub fn with_choice(
        scene: &'w TraceScene,
        light_choice: LightChoice,
        settings: Settings,
    ) -> PathTracer<'w> {
        PathTracer {
            scene,
            settings,
            light_choice,
            footprint: None,
            guide: None,
            baseline_loop: false,
        }
    }

    /// This tracer with the render loop on its baseline copy whatever the CPU (the bytes are
    /// the same on every copy; for tests and benchmarks of that).
    pub fn with_baseline_loop(mut self) -> PathTracer<'w> {
        self.baseline_loop = true;
        self
    }

    /// Whether [`Self::with_baseline_loop`] asked for the baseline copy of the loop.
    pub fn baseline_loop(&self) -> bool {
        self.baseline_loop
    }

    /// The point-independent distribution over `scene.lights` next-event estimation starts
    /// from (guided or by power); [`Self::choice`] is the whole choice.
    pub fn light_choice(&self) -> &Distribution1D {
        self.light_choice.fixed_distribution()
    }

    /// The light choice: the fixed distribution and the tree's share.
    pub fn choice(&self) -> &LightChoice {
        &self.light_choice
    }

    /// The settings this tracer renders with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The path-guiding guide this tracer samples from ([`Self::with_guiding`]), if any.
    pub fn guide(&self) -> Option<&Guide> {
        self.guide.as_ref()
    }
}

impl PathTracer<'_> {
    /// Radiance emitted by the surface towards `wo`, `e` leaving its front face.
    fn surface_emission(&self, s: &Surface, wo: Vec3, e: Vec3) -> Vec3 {
        let info = &self.scene.instances[s.instance as usize];
        if e == Vec3::ZERO {
            return Vec3::ZERO;
        }
        if wo.dot(s.ng_front) > 0.0 || info.two_sided {
            e
        } else {
            Vec3::ZERO
        }
    }

    /// A light contribution as `[trace] clamp_indirect` leaves it: one that lights a vertex
    /// past the first hit (`indirect`) is scaled down, hue kept, to the cap's luminance.
    /// Light at the first hit (emission seen, and the first hit's direct light, by light
    /// sampling or by its BSDF ray) is never clamped.
    #[inline(always)]
    fn clamped(&self, c: Vec3, indirect: bool) -> Vec3 {
        if !indirect || self.scene.clamp_indirect <= 0.0 {
            return c;
        }
        let y = luminance(c);
        if y > self.scene.clamp_indirect {
            c * (self.scene.clamp_indirect / y)
        } else {
            c
        }
    }

    /// The probability that next-event estimation at `ctx` picks `light`.
    #[inline]
    fn light_pick_pdf(&self, ctx: &LightContext, light: u32) -> f32 {
        self.light_choice
            .pmf(&self.scene.light_tree, ctx, light as usize)
    }

    /// One sample of the radiance arriving along the camera ray `ray`, sample `index` of the
    /// pixel `sampler` belongs to (its random numbers come from dimensions 4 onward).
    pub fn li(
        &self,
        sampler: &PixelSampler,
        index: u32,
        ray: Ray,
        counters: &mut Counters,
    ) -> PathSample {
        counters.rays += 1;
        let first = self.meet(&ray, mask::DRAWN, true);
        self.li_met(sampler, index, ray, first, counters, &mut ())
    }

    /// [`Self::li`] for a camera ray whose first meeting is already known (`first`, as
    /// `meet(&ray, mask::DRAWN, true)` gives it, and already counted as a ray): the render
    /// loop traces camera rays in coherent packets and continues each path from here. The
    /// path's non-specular vertices are told to `trail` (the guide's training records them;
    /// the render's `()` compiles to nothing).
    // Inlined into each copy of the render loop, so that each is compiled for its features.
    #[inline(always)]
    fn li_met<T: Trail>(
        &self,
        sampler: &PixelSampler,
        index: u32,
        mut ray: Ray,
        first: Meet,
        counters: &mut Counters,
        trail: &mut T,
    ) -> PathSample {
        let settings = &self.settings;
        let mut first = Some(first);
        let mut l = Vec3::ZERO;
        let mut beta = Vec3::ONE;
        let mut covered = false;
        // The previous vertex, for MIS when a BSDF-sampled ray finds a light (the pick
        // probability depends on where it was picked from).
        let mut prev = LightContext {
            p: ray.o,
            ns: Vec3::Z,
            ng: None,
            narrow: false,
        };
        let mut prev_pdf = 0.0f32;
        let mut prev_specular = true;
        // The path has bounced off a diffuse surface: `[trace] filter_glossy` applies from
        // here on (the first hit and a chain of sharp bounces from the camera keep theirs).
        let mut after_diffuse = false;
        // Every bounce so far was a delta (mirror, glass) one: unlit text is seen (`glow`).
        let mut specular_chain = true;
        // `[trace] transmissive_shadows` bookkeeping: the segment being traced left a vertex
        // whose next-event estimation sent shadow rays through glass (a non-specular
        // scattering, then only glass transmissions: `from_nee`), and it has crossed glass
        // since (`via_glass`). Light such a path finds directly was already counted by those
        // shadow rays, so it is not counted again.
        let mut from_nee = false;
        let mut via_glass = false;
        // The product of (η_i/η_o)² over transmissions: radiance throughput shrinks by its
        // inverse entering glass; Russian roulette looks at the throughput without it.
        let mut eta_scale = 1.0f32;
        // The absorption coefficient of the body the path is inside (`MaterialDef::absorption`
        // of the last glass-like surface it entered through, zero outside every body).
        let mut medium = Vec3::ZERO;
        // The subsurface body the path is inside (the `subsurface` medium of the last surface
        // it entered through), `None` outside every such body.
        let mut body: Option<&crate::media::Subsurface> = None;
        let max_depth = settings.max_depth.max(1);
        let mut segment = 0u32;
        loop {
            let dim = FIRST_BOUNCE_DIM + SAMPLES_PER_BOUNCE * segment;
            let mut meet = match first.take() {
                Some(m) => m,
                None => {
                    counters.rays += 1;
                    self.meet(&ray, mask::CASTS, false)
                }
            };
            // Inside a subsurface body the segment is a random walk (subsurface.rs) to where
            // it reaches the surface again.
            if let Some(b) = body {
                match self.subsurface_walk(b, sampler, index, segment, ray, meet, counters) {
                    subsurface::Walk::Left {
                        ray: last,
                        meet: m,
                        weight,
                        scatterings,
                    } => {
                        beta *= weight;
                        ray = last;
                        meet = m;
                        // Light reached after a scattering was counted by no shadow ray
                        // (which keep only the body's unscattered transmittance).
                        if scatterings > 0 {
                            from_nee = false;
                            via_glass = false;
                            prev_specular = true;
                            specular_chain = false;
                            after_diffuse = true;
                        }
                    }
                    subsurface::Walk::Absorbed => break,
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
            let shadowed_already = from_nee && via_glass;
            // In a world with haze, the segment may end at a scattering point before what the
            // ray meets: a vertex of its own (volume.rs), after which the path goes on.
            if let Some(medium) = self.scene.medium.as_ref().filter(|_| body.is_none()) {
                match self.haze_flight(medium, sampler, index, segment, &ray, &meet) {
                    Flight::Pass => {}
                    Flight::Lost => break,
                    Flight::Scatter { t } => {
                        if segment == 0 && !matches!(meet, Meet::Nothing) {
                            covered = true;
                        }
                        let d_in = -wo;
                        let p = ray.o + d_in * t;
                        // Grey extinction: the collision's weight is the albedo σs/σt.
                        beta *= medium.albedo;
                        l += self.clamped(beta * medium.ambient, segment >= 2);
                        if segment + 1 >= max_depth {
                            break;
                        }
                        let [u_pick, u_light, u_lobe, u] =
                            sampler.get_2d_x4(index, [dim, dim + 2, dim + 4, dim + 6]);
                        // No surface: no receiver cosine, no horizon.
                        let here = LightContext {
                            p,
                            ns: Vec3::ZERO,
                            ng: None,
                            narrow: false,
                        };
                        let ld = self.haze_light(
                            medium, sampler, index, segment, &here, d_in, u_pick.x, u_light,
                            counters,
                        );
                        l += self.clamped(beta * ld, segment >= 1);
                        // The phase function is sampled exactly: the weight p/pdf is 1.
                        let ps = medium.phase.sample(d_in, u_lobe.x, u);
                        if self.scene.transmissive_shadows {
                            from_nee = true;
                            via_glass = false;
                        }
                        prev = here;
                        prev_pdf = ps.p;
                        prev_specular = false;
                        // Unlit text seen past a scattering in the haze is not seen (docs/text.md).
                        specular_chain = false;
                        after_diffuse = true;
                        segment += 1;
                        if segment >= settings.rr_depth {
                            let q = (beta * eta_scale).max_element().min(0.95);
                            if u_pick.y >= q {
                                break;
                            }
                            beta /= q;
                        }
                        ray = Ray::new(p, ps.d_out);
                        continue;
                    }
                }
            }
            let hit = match meet {
                Meet::Nothing => {
                    for &i in &self.scene.infinite {
                        let le = self.scene.lights[i as usize].le_infinite(-wo);
                        if le == Vec3::ZERO || shadowed_already {
                            continue;
                        }
                        let w = if prev_specular {
                            1.0
                        } else {
                            let pl = self.light_pick_pdf(&prev, i)
                                * self.scene.lights[i as usize].pdf_li(prev.p, -wo, f32::INFINITY);
                            power_heuristic(prev_pdf, pl)
                        };
                        l += self.clamped(beta * le * w, segment >= 2);
                    }
                    break;
                }
                Meet::Sphere { light, t } => {
                    if segment == 0 {
                        covered = true;
                    }
                    if let (
                        Light::Sphere {
                            radiance, casts, ..
                        },
                        false,
                    ) = (&self.scene.lights[light as usize], shadowed_already)
                    {
                        let w = if prev_specular || !casts {
                            1.0
                        } else {
                            let dist = t * ray.d.length();
                            let pl = self.light_pick_pdf(&prev, light)
                                * self.scene.lights[light as usize].pdf_li(prev.p, -wo, dist);
                            power_heuristic(prev_pdf, pl)
                        };
                        l += self.clamped(beta * *radiance * w, segment >= 2);
                    }
                    // Emitters glow and do not reflect.
                    break;
                }
                Meet::Surface(h) => h,
            };
            let info = &self.scene.instances[hit.instance as usize];
            if segment == 0 {
                covered = true;
            }
            // A shadow-only object met by a bounce ray is an occluder with no surface to show.
            if self.scene.accel.instances()[hit.instance as usize].mask & mask::DRAWN == 0 {
                break;
            }
            // Unlit text and unlit glTF materials glow their colour for the camera and along
            // mirror and glass chains from it, and are no light: they neither light nor
            // scatter anything (docs/text.md, docs/assets.md "Unlit").
            if info.glow {
                if specular_chain && !shadowed_already {
                    let material = &self.scene.materials[info.material as usize];
                    let le = self.glow_radiance(&hit, &ray, material);
                    l += self.clamped(beta * le, segment >= 2);
                }
                break;
            }
            let material = &self.scene.materials[info.material as usize];
            // A holdout (the `occluder` family) ends the path: seen by the camera it leaves
            // the pixel uncovered (zero alpha, no radiance) for the live renderer to draw its
            // own geometry there; met later it is black.
            if material.holdout {
                if segment == 0 {
                    covered = false;
                }
                break;
            }
            // A glTF surface drawn as itself builds its BSDF, emission and shading normal
            // here, from its textures and vertex colours.
            let (s, shaded) = self.shaded_surface(&hit, &ray, material, after_diffuse);
            let emission = shaded.as_ref().map_or(material.emission, |sh| sh.emission);
            let le = self.surface_emission(&s, wo, emission);
            if le != Vec3::ZERO && !shadowed_already {
                let w = if prev_specular {
                    1.0
                } else if let Some(first) = info.first_light {
                    let li = first + s.prim;
                    let dist = hit.t * ray.d.length();
                    let pl = self.light_pick_pdf(&prev, li)
                        * self.scene.lights[li as usize].pdf_li(prev.p, -wo, dist);
                    power_heuristic(prev_pdf, pl)
                } else {
                    1.0
                };
                l += self.clamped(beta * le * w, segment >= 2);
            }
            if segment + 1 >= max_depth {
                break;
            }
            let bxdf = match &shaded {
                Some(sh) => &sh.bxdf,
                None if after_diffuse => &material.filtered,
                None => &material.bxdf,
            };
            let bsdf = Self::surface_bsdf(&s, wo, bxdf, shaded.as_ref());
            // Where a guide was learnt, a rough vertex samples a mixture of it and the BSDF.
            let guide_here = self.guide_at(&bsdf, s.p, segment);
            let ng_out = if s.ng_front.dot(wo) >= 0.0 {
                s.ng_front
            } else {
                -s.ng_front
            };

            // The vertex's four pairs in one go: light pick (and Russian roulette), light
            // point, lobe choice, direction.
            let [u_pick, u_light, u_lobe, u] =
                sampler.get_2d_x4(index, [dim, dim + 2, dim + 4, dim + 6]);

            // Next-event estimation.
            let here = LightContext {
                p: s.p,
                ns: s.ns,
                ng: (!bsdf.transmits()).then(|| {
                    horizon(
                        &bsdf,
                        ng_out,
                        material.surface.as_ref().is_some_and(|g| g.normal_mapped()),
                    )
                }),
                narrow: narrow(bsdf.bxdf()),
            };
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
                    // A transmission towards the light continues a path whose earlier shadow
                    // ray already passed this glass (see `from_nee`).
                    let covered = from_nee
                        && bsdf.bxdf().bounds_body()
                        && (ls.wi.dot(s.ng_front) > 0.0) != (wo.dot(s.ng_front) > 0.0);
                    if ls.pdf > 0.0 && pick_pdf > 0.0 && ls.li != Vec3::ZERO && !covered {
                        let casts = match light {
                            Light::Point { casts, .. } | Light::Sphere { casts, .. } => *casts,
                            _ => true,
                        };
                        // f and the BSDF's pdf in one evaluation where MIS needs the pdf: a
                        // delta light or one that casts no shadow is weighted 1. Below the flat
                        // triangle's plane (where f is zero) a smooth triangle whose normal no
                        // texture bends still receives the light, from a lifted origin
                        // (terminator.rs); no BSDF draw goes there (pdf 0).
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
                            let visible = match &self.scene.medium {
                                None => visible,
                                Some(m) => visible.map(|(tr, crossed)| {
                                    let h = self.haze_transmittance(
                                        m,
                                        sampler,
                                        index,
                                        segment,
                                        o,
                                        to_light.d,
                                        to_light.t_max,
                                    );
                                    (tr * h, crossed)
                                }),
                            };
                            if let Some((tr, crossed)) = visible {
                                let light_pdf = pick_pdf * ls.pdf;
                                // Through glass only this strategy counts the light (the BSDF
                                // path's is dropped, see `from_nee`), so it takes all the weight.
                                let w = if ls.delta || !casts || crossed {
                                    1.0
                                } else {
                                    power_heuristic(light_pdf, bsdf_pdf)
                                };
                                l += self.clamped(
                                    beta * f * tr * ls.li * (cos * w / light_pdf),
                                    segment >= 1,
                                );
                            }
                        }
                    }
                }
            }

            // Continue the path by sampling the BSDF.
            // The lobe choice is the first dimension of its pair (`get_1d(…, dim + 4)`).
            // A guided vertex picks BSDF or guide by the pair's second dimension.
            let Some(bs) = guiding::sample_direction(&bsdf, guide_here, wo, u_lobe, u) else {
                break;
            };
            if bs.pdf <= 0.0 || bs.f == Vec3::ZERO {
                break;
            }
            beta *= bs.f * (bs.wi.dot(s.ns).abs() / bs.pdf);
            if !beta.is_finite() {
                counters.dropped += 1;
                return PathSample {
                    radiance: Vec3::ZERO,
                    covered,
                };
            }
            if !bs.specular {
                trail.vertex(s.p, bsdf.shading_normal(), bs.wi, bs.pdf, beta, l);
            }
            let transmitted =
                bsdf.transmits() && (bs.wi.dot(s.ng_front) > 0.0) != (wo.dot(s.ng_front) > 0.0);
            // A thin sheet's transmission is a scattering like a reflection; only a body's
            // interface changes the medium and lets shadow rays through.
            let through_body = transmitted && bsdf.bxdf().bounds_body();
            if through_body {
                let e = bsdf.relative_eta(wo, bs.wi);
                eta_scale *= e * e;
                let entering = bs.wi.dot(s.ng_front) < 0.0;
                medium = if entering {
                    material.absorption
                } else {
                    Vec3::ZERO
                };
                body = if entering {
                    material.subsurface.as_ref()
                } else {
                    None
                };
            }
            if self.scene.transmissive_shadows {
                if through_body {
                    via_glass = true;
                } else {
                    from_nee = !bs.specular;
                    via_glass = false;
                }
            }
            prev = here;
            prev_pdf = bs.pdf;
            prev_specular = bs.specular;
            specular_chain &= bs.specular;
            after_diffuse |= bs.diffuse;
            segment += 1;
            if segment >= settings.rr_depth {
                let q = (beta * eta_scale).max_element().min(0.95);
                if u_pick.y >= q {
                    break;
                }
                beta /= q;
            }
            ray = Ray::new(offset_origin(s.p, ng_out, bs.wi), bs.wi);
        }
        let radiance = if l.is_finite() {
            l.max(Vec3::ZERO)
        } else {
            counters.dropped += 1;
            Vec3::ZERO
        };
        PathSample { radiance, covered }
    }

    /// Ray parameter of the nearest drawn surface or emitter `ray` meets, `None` for the sky:
    /// what the depth plate reads along the pixel-centre camera ray.
    pub fn first_drawn_t(&self, ray: &Ray) -> Option<f32> {
        self.first_drawn(ray).map(|(t, _)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::{Coated, Conductor, Eon, Glass, Plain};

    /// Which vertices keep the guided half of the light choice: the smooth and the coated,
    /// not the rough (the flagship's surfaces, roughness 0.12–1, none of them coated).
    #[test]
    fn narrow_lobes_are_the_smooth_and_the_coated() {
        let grey = Vec3::splat(0.5);
        let plastic = |r: f32| Bxdfs::Plain(Plain::new(grey, r, 0.0, 0.04));
        let metal = |r: f32| Bxdfs::Conductor(Conductor::new(Vec3::splat(0.9), r));
        assert!(narrow(&metal(0.05)), "chrome");
        assert!(narrow(&plastic(0.05)));
        assert!(narrow(&Bxdfs::Glass(Glass::new(1.5, 0.0, Vec3::ONE))));
        assert!(narrow(&Bxdfs::Coated(Coated::new(
            Plain::new(grey, 0.6, 0.0, 0.04),
            1.0,
            0.03,
            1.5
        ))));
        let varnished = |w: f32| {
            let t = crate::materials::CoatedTranslucent::new(
                grey, 0.6, 0.0, 0.04, 5.0, 0.5, grey, w, 0.03, 1.5,
            );
            Bxdfs::CoatedTranslucent(t.unwrap())
        };
        assert!(narrow(&varnished(1.0)), "a coat over transmission");
        assert!(!narrow(&varnished(0.0)), "uncoated, rough");
        assert!(!narrow(&metal(0.35)));
        assert!(!narrow(&plastic(0.12)), "the flagship's ceramics");
        assert!(!narrow(&plastic(1.0)));
        assert!(!narrow(&Bxdfs::Glass(Glass::new(1.5, 0.5, Vec3::ONE))));
        assert!(!narrow(&Bxdfs::RoughDiffuse(Eon::new(grey, 0.9))));
    }
}
