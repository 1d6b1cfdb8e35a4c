//! The render loop: tiles on rayon's threads, every sample drawn from the [`Sampler`] at its
//! (pixel, sample index, dimension) key, handed to the film tile by tile.
//!
//! Each tile renders its pixels in order and each pixel its samples in order, so a pixel's sum
//! is made in one fixed order whatever the thread count or the order tiles finish in, and the
//! bake writes the same bytes.
//!
//! A [`Plan`] may split the render into passes of `min_spp` samples per pixel: after each
//! pass, adaptive sampling stops the pixels whose estimated relative error is below the noise
//! threshold (a function of the pixel's own samples at that fixed checkpoint, so the decision
//! is the same whatever the threads or tiles), and a time limit ends the render after the
//! pass in progress. Passes do not change a pixel's samples or their order: a plan that stops
//! nothing gives the bytes of one uniform pass.
//!
//! An [`Observer`] (the artist's preview, `bake --preview`) sees the image after every pass;
//! with one, a uniform plan renders in passes that double the samples taken (1, 2, 4, … up to
//! `spp`), which again changes no pixel's samples or their order.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use super::query::Meet;
use super::{Counters, LightGroups, PathTracer, Settings, MAX_LIGHT_GROUPS};
use crate::camera::Camera;
use crate::film::{self, Film, FilmTile, Image, LightSample};
use crate::geometry::Ray;
use crate::sampling::Sampler;
use crate::world::World;

/// Tile edge, pixels.
pub const TILE: u32 = 16;

/// Camera rays traced together: the samples of one pixel, this many at a time.
const CAMERA_PACKET: usize = 8;

/// Receives progress from a render; the library never prints, the binary implements this.
pub trait Progress: Sync {
    /// The render will report `total` samples.
    fn begin(&self, total: u64);
    /// `n` more samples are done.
    fn advance(&self, n: u64);
}

/// Watches a progressive render: sees the image after each pass and may end the render.
pub trait Observer: Sync {
    /// A pass ended: `image` holds every pixel's samples so far (`spp` the most any pixel
    /// took). Returns `false` to end the render here.
    fn pass(&mut self, image: &Image, spp: u32) -> bool;
    /// Asked before each tile, from the worker threads: `true` abandons the render now (the
    /// pass in progress is not finished and [`Rendered::interrupted`] is set).
    fn cancelled(&self) -> bool {
        false
    }
}

/// A progress sink that ignores everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _total: u64) {}
    fn advance(&self, _n: u64) {}
}

/// How the render loop spends samples beyond a uniform `spp` per pixel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Plan {
    /// Adaptive sampling: a pixel stops once the estimated relative error of its mean
    /// luminance ([`FilmTile::relative_error`], dimensionless, e.g. 0.01 for 1 %) is below
    /// this at a checkpoint. `None`: every pixel takes `spp` samples.
    pub noise_threshold: Option<f64>,
    /// Samples per pixel every pixel takes before it may stop, and the length of a pass;
    /// 0 picks [`DEFAULT_MIN_SPP`]. Never more than `spp`.
    pub min_spp: u32,
    /// Wall-clock limit of the render, seconds: the pass in progress when it runs out is
    /// finished, and no other starts (the one input that makes a bake's bytes depend on the
    /// machine). `None`: no limit.
    pub time_limit: Option<f64>,
    /// Also average each pixel's [`Aux`](super::Aux) (the denoiser's albedo and normal
    /// images, [`Image::aux`]); the radiance is the same either way.
    pub auxiliaries: bool,
    /// Also sum each pixel's data passes (first drawn surface's normal, albedo, roughness,
    /// object and material; the radiance's variance; the pick at the pixel centre,
    /// [`Image::passes`]); the radiance is the same either way.
    pub passes: bool,
}

/// The `min_spp` a [`Plan`] takes when it gives 0: the first checkpoint, and the pass length.
pub const DEFAULT_MIN_SPP: u32 = 16;

impl Plan {
    /// Whether the plan can stop a pixel before `spp` (otherwise the render is one pass).
    pub fn is_uniform(&self) -> bool {
        self.noise_threshold.is_none() && self.time_limit.is_none()
    }

    /// The pass length for a render of `spp` samples per pixel.
    pub fn pass_spp(&self, spp: u32) -> u32 {
        if self.is_uniform() {
            return spp.max(1);
        }
        let m = if self.min_spp == 0 {
            DEFAULT_MIN_SPP
        } else {
            self.min_spp
        };
        m.clamp(1, spp.max(1))
    }
}

/// A finished render: the image, and how the plan ended it.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// The pixels, their sample counts and the ray counters.
    pub image: Image,
    /// Samples per pixel of the passes completed (the most any pixel took).
    pub passes_spp: u32,
    /// The time limit ended the render before `spp`.
    pub stopped_by_time_limit: bool,
    /// An [`Observer`] ended the render before `spp`: the image is incomplete.
    pub interrupted: bool,
}

/// Renders the world's camera view at `settings.spp` samples per pixel.
pub fn render(world: &World, settings: &Settings, progress: &dyn Progress) -> Image {
    render_planned(world, settings, &Plan::default(), progress).image
}

/// Renders the world's camera view as `plan` says, at most `settings.spp` samples per pixel.
pub fn render_planned(
    world: &World,
    settings: &Settings,
    plan: &Plan,
    progress: &dyn Progress,
) -> Rendered {
    let tracer = PathTracer::new(&world.trace, &world.camera, *settings);
    render_plan_with(&tracer, &world.camera, plan, progress)
}

/// Renders `camera`'s view with `tracer` (its settings give spp and seed).
pub fn render_with(tracer: &PathTracer<'_>, camera: &Camera, progress: &dyn Progress) -> Image {
    render_plan_with(tracer, camera, &Plan::default(), progress).image
}

/// One tile between passes: its film and which of its pixels still take samples.
struct TileState {
    film: FilmTile,
    /// Row-major over the tile: the pixel has not stopped.
    active: Vec<bool>,
}

/// Renders `camera`'s view with `tracer` as `plan` says.
pub fn render_plan_with(
    tracer: &PathTracer<'_>,
    camera: &Camera,
    plan: &Plan,
    progress: &dyn Progress,
) -> Rendered {
    render_observed(tracer, camera, plan, progress, None)
}

/// The image of the tiles rendered so far (a copy: the tiles go on).
fn snapshot(tiles: &[TileState], width: u32, height: u32, rays: u64, dropped: u64) -> Image {
    let mut film = Film::new(width, height);
    for state in tiles {
        film.merge(state.film.clone());
    }
    film.into_image(rays, dropped)
}

/// [`render_plan_with`], showing `observer` the image after every pass; with an observer a
/// uniform plan takes passes that double the samples taken (1, 2, 4, … `spp`).
pub fn render_observed(
    tracer: &PathTracer<'_>,
    camera: &Camera,
    plan: &Plan,
    progress: &dyn Progress,
    mut observer: Option<&mut dyn Observer>,
) -> Rendered {
    let start = Instant::now();
    let settings = *tracer.settings();
    let [width, height] = camera.size;
    let sampler = Sampler::new(settings.seed);
    let spp = settings.spp;
    let pass = plan.pass_spp(spp);
    progress.begin(width as u64 * height as u64 * spp as u64);
    // The light groups come with the data passes (light_groups.rs).
    let groups = plan.passes.then(|| LightGroups::of(tracer.scene));
    let rays = AtomicU64::new(0);
    let dropped = AtomicU64::new(0);
    let mut tiles: Vec<TileState> = film::tiles(width, height, TILE)
        .into_iter()
        .map(|rect| TileState {
            film: match (plan.auxiliaries, plan.passes) {
                (false, false) => FilmTile::new(rect),
                (true, false) => FilmTile::with_aux(rect),
                (false, true) => FilmTile::new(rect).with_passes(),
                (true, true) => FilmTile::with_aux(rect).with_passes(),
            }
            .with_light_groups(groups.as_ref().map_or(0, |g| g.len())),
            active: vec![true; (rect.w * rect.h) as usize],
        })
        .collect();
    let level = LoopLevel::for_tracer(tracer);
    let mut from = 0u32;
    let mut stopped_by_time_limit = false;
    let mut interrupted = false;
    let doubling = observer.is_some() && plan.is_uniform();
    while from < spp {
        let to = if doubling {
            (from * 2).clamp(1, spp)
        } else {
            (from + pass).min(spp)
        };
        let checkpoint = to < spp;
        let watching = observer.as_deref();
        let cancelled = std::sync::atomic::AtomicBool::new(false);
        tiles.par_iter_mut().for_each(|state| {
            if cancelled.load(Ordering::Relaxed) || watching.is_some_and(|o| o.cancelled()) {
                cancelled.store(true, Ordering::Relaxed);
                return;
            }
            let mut counters = Counters::default();
            let rect = state.film.rect();
            let mut taken = 0u64;
            let mut skipped = 0u64;
            for y in rect.y0..rect.y0 + rect.h {
                for x in rect.x0..rect.x0 + rect.w {
                    let k = ((y - rect.y0) * rect.w + (x - rect.x0)) as usize;
                    if !state.active[k] {
                        continue;
                    }
                    let pixel = [x, y];
                    render_pixel(
                        level,
                        tracer,
                        camera,
                        &sampler,
                        pixel,
                        from..to,
                        state,
                        groups.as_ref(),
                        &mut counters,
                    );
                    taken += (to - from) as u64;
                    if from == 0 {
                        let centre =
                            camera.ray(Vec2::new(x as f32 + 0.5, y as f32 + 0.5), Vec2::splat(0.5));
                        // Clamped to the camera's range: a point beyond `far` is as far
                        // as the sky, one nearer than `near` at the near plane, where a
                        // rasteriser's clip planes put whatever is drawn over the plate.
                        let first = tracer.first_drawn(&centre);
                        let depth = first.map(|(t, _)| {
                            camera
                                .depth(centre.at(t))
                                .clamp(camera.near, camera.far.max(camera.near))
                        });
                        state.film.set_depth(pixel, depth);
                        state
                            .film
                            .set_centre_object(pixel, first.and_then(|(_, o)| o));
                    }
                    if checkpoint
                        && plan
                            .noise_threshold
                            .is_some_and(|e| state.film.relative_error(pixel) < e)
                    {
                        state.active[k] = false;
                        skipped += (spp - to) as u64;
                    }
                }
            }
            rays.fetch_add(counters.rays, Ordering::Relaxed);
            dropped.fetch_add(counters.dropped, Ordering::Relaxed);
            progress.advance(taken + skipped);
        });
        if cancelled.into_inner() {
            interrupted = true;
            break;
        }
        from = to;
        if let Some(o) = observer.as_deref_mut() {
            let image = snapshot(&tiles, width, height, rays.load(Ordering::Relaxed), 0);
            if !o.pass(&image, from) && from < spp {
                interrupted = true;
                break;
            }
        }
        if from < spp
            && plan
                .time_limit
                .is_some_and(|l| start.elapsed().as_secs_f64() >= l)
        {
            stopped_by_time_limit = true;
            let left: u64 = tiles
                .iter()
                .map(|t| t.active.iter().filter(|a| **a).count() as u64)
                .sum();
            progress.advance(left * (spp - from) as u64);
            break;
        }
    }
    let mut film = Film::new(width, height);
    for state in tiles {
        film.merge(state.film);
    }
    Rendered {
        image: film.into_image(rays.into_inner(), dropped.into_inner()),
        passes_spp: from,
        stopped_by_time_limit,
        interrupted,
    }
}

/// Which compiled copy of the path loop a render runs (docs/performance.md, step 9). The
/// crate is compiled for baseline x86-64; the loop is compiled a second time for x86-64-v3
/// (AVX2, FMA, BMI1/2, LZCNT, POPCNT and SSE4.2 on 256-bit VEX registers), chosen at run time.
/// Both copies perform the same IEEE operations in the same order (Rust never fuses a multiply
/// and an add on its own, and the crate calls no `mul_add`), and call the same out-of-line
/// functions, so a render gives the same bytes on either: `tests/loop_levels.rs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LoopLevel {
    /// The copy compiled for the crate's target, on every CPU.
    Baseline,
    /// The copy compiled for x86-64-v3, where the CPU has every feature it needs.
    #[cfg(target_arch = "x86_64")]
    V3,
}

impl LoopLevel {
    /// The fastest copy this CPU runs, unless `tracer` asks for the baseline one.
    fn for_tracer(tracer: &PathTracer<'_>) -> LoopLevel {
        #[cfg(target_arch = "x86_64")]
        if !tracer.baseline_loop() && v3_available() {
            return LoopLevel::V3;
        }
        let _ = tracer;
        LoopLevel::Baseline
    }
}

/// Whether the running CPU runs the render loop's x86-64-v3 copy: never off x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub fn v3_available() -> bool {
    false
}

/// Whether the running CPU runs the render loop's x86-64-v3 copy (AVX2, FMA, BMI1/2, LZCNT,
/// POPCNT, SSE4.2; run-time detection, cached by the standard library). Where it does not,
/// every render takes the baseline copy, with the same bytes.
#[cfg(target_arch = "x86_64")]
pub fn v3_available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("fma")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
        && std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("sse4.1")
        && std::arch::is_x86_feature_detected!("sse4.2")
}

/// [`render_samples`] on the copy of the loop `level` names.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn render_pixel(
    level: LoopLevel,
    tracer: &PathTracer<'_>,
    camera: &Camera,
    sampler: &Sampler,
    pixel: [u32; 2],
    range: std::ops::Range<u32>,
    state: &mut TileState,
    groups: Option<&LightGroups>,
    counters: &mut Counters,
) {
    match level {
        LoopLevel::Baseline => render_samples_baseline(
            tracer, camera, sampler, pixel, range, state, groups, counters,
        ),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `LoopLevel::V3` is chosen only where `v3_available()` said the CPU has
        // every feature the copy is compiled with.
        LoopLevel::V3 => unsafe {
            render_samples_v3(
                tracer, camera, sampler, pixel, range, state, groups, counters,
            )
        },
    }
}

/// The path loop compiled for the crate's target.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn render_samples_baseline(
    tracer: &PathTracer<'_>,
    camera: &Camera,
    sampler: &Sampler,
    pixel: [u32; 2],
    range: std::ops::Range<u32>,
    state: &mut TileState,
    groups: Option<&LightGroups>,
    counters: &mut Counters,
) {
    render_samples::<false>(
        tracer, camera, sampler, pixel, range, state, groups, counters,
    )
}

/// The path loop compiled for x86-64-v3: everything [`render_samples`] inlines (the path
/// loop, the sampler, the BSDF frame, the shading point) is compiled again with these
/// features.
///
/// # Safety
/// The CPU must have every feature enabled here ([`v3_available`]).
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt,sse4.1,sse4.2")]
#[inline(never)]
unsafe fn render_samples_v3(
    tracer: &PathTracer<'_>,
    camera: &Camera,
    sampler: &Sampler,
    pixel: [u32; 2],
    range: std::ops::Range<u32>,
    state: &mut TileState,
    groups: Option<&LightGroups>,
    counters: &mut Counters,
) {
    render_samples::<true>(
        tracer, camera, sampler, pixel, range, state, groups, counters,
    )
}

/// Samples `range` of `pixel` into the tile, the camera rays of up to [`CAMERA_PACKET`]
/// consecutive samples traced together; each path then goes on alone, samples in order.
/// `V3`: the x86-64-v3 copy, whose CPU has SSE4.1 for the sampler's lanes.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn render_samples<const V3: bool>(
    tracer: &PathTracer<'_>,
    camera: &Camera,
    sampler: &Sampler,
    pixel: [u32; 2],
    range: std::ops::Range<u32>,
    state: &mut TileState,
    groups: Option<&LightGroups>,
    counters: &mut Counters,
) {
    let [x, y] = pixel;
    let pixel_sampler = if V3 {
        // SAFETY: the x86-64-v3 copy runs only where the CPU has its features, SSE4.1 among
        // them (`v3_available`).
        unsafe { sampler.pixel_sse41(pixel) }
    } else {
        sampler.pixel(pixel)
    };
    let aux = state.film.sums_aux();
    let passes = state.film.sums_passes();
    let mut first = range.start;
    while first < range.end {
        let n = (range.end - first).min(CAMERA_PACKET as u32) as usize;
        let mut rays = [Ray::new(Vec3::ZERO, Vec3::Z); CAMERA_PACKET];
        for (k, ray) in rays[..n].iter_mut().enumerate() {
            let i = first + k as u32;
            // A one-pixel box filter: the film point is uniform over the pixel.
            let j = pixel_sampler.get_2d(i, 0);
            let film = Vec2::new(x as f32 + j.x, y as f32 + j.y);
            let lens = pixel_sampler.get_2d(i, 2);
            *ray = camera.ray(film, lens);
        }
        let mut meets = [Meet::Nothing; CAMERA_PACKET];
        tracer.camera_meets(&rays[..n], &mut meets[..n]);
        counters.rays += n as u64;
        for k in 0..n {
            let s = tracer.li_met(
                &pixel_sampler,
                first + k as u32,
                rays[k],
                meets[k],
                counters,
                &mut (),
            );
            state.film.add_sample(pixel, s.radiance, s.covered);
            if passes {
                let p = tracer.pass_sample(&rays[k], meets[k]);
                state.film.add_pass(pixel, &p, s.radiance);
                if let Some(g) = groups {
                    let mut out = [LightSample::default(); MAX_LIGHT_GROUPS + 1];
                    let out = &mut out[..g.len()];
                    tracer.light_group_sample(
                        g,
                        &pixel_sampler,
                        first + k as u32,
                        &rays[k],
                        meets[k],
                        counters,
                        out,
                    );
                    state.film.add_light_groups(pixel, out);
                }
            }
            if aux {
                let a = tracer.aux(
                    &pixel_sampler,
                    first + k as u32,
                    rays[k],
                    meets[k],
                    counters,
                );
                state.film.add_aux(pixel, a.albedo, a.normal);
            }
        }
        first += n as u32;
    }
}
