//! The render loop: tiles on rayon's threads, every sample drawn from the [`Sampler`] at its
//! (pixel, sample index, dimension) key, handed to the film tile by tile.
//!
//! Each tile renders its pixels in order and each pixel its samples in order, so a pixel's sum
//! is made in one fixed order whatever the thread count or the order tiles finish in, and the
//! bake writes the same bytes.

use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use super::query::Meet;
use super::{Counters, PathTracer, Settings};
use crate::camera::Camera;
use crate::film::{self, Film, FilmTile, Image};
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

/// A progress sink that ignores everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn begin(&self, _total: u64) {}
    fn advance(&self, _n: u64) {}
}

/// Renders the world's camera view at `settings.spp` samples per pixel.
pub fn render(world: &World, settings: &Settings, progress: &dyn Progress) -> Image {
    let tracer = PathTracer::new(&world.trace, &world.camera, *settings);
    render_with(&tracer, &world.camera, progress)
}

/// Renders `camera`'s view with `tracer` (its settings give spp and seed).
pub fn render_with(tracer: &PathTracer<'_>, camera: &Camera, progress: &dyn Progress) -> Image {
    let settings = *tracer.settings();
    let [width, height] = camera.size;
    let sampler = Sampler::new(settings.seed);
    let tiles = film::tiles(width, height, TILE);
    progress.begin(width as u64 * height as u64 * settings.spp as u64);
    let rays = AtomicU64::new(0);
    let dropped = AtomicU64::new(0);
    let done: Vec<FilmTile> = tiles
        .par_iter()
        .map(|&rect| {
            let mut counters = Counters::default();
            let mut tile = FilmTile::new(rect);
            for y in rect.y0..rect.y0 + rect.h {
                for x in rect.x0..rect.x0 + rect.w {
                    let pixel = [x, y];
                    let pixel_sampler = sampler.pixel(pixel);
                    let mut first = 0;
                    while first < settings.spp {
                        // The camera rays of up to CAMERA_PACKET consecutive samples, traced
                        // together; each path then goes on alone, samples in order.
                        let n = (settings.spp - first).min(CAMERA_PACKET as u32) as usize;
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
                            let i = first + k as u32;
                            let s =
                                tracer.li_met(&pixel_sampler, i, rays[k], meets[k], &mut counters);
                            tile.add_sample(pixel, s.radiance, s.covered);
                        }
                        first += n as u32;
                    }
                    let centre =
                        camera.ray(Vec2::new(x as f32 + 0.5, y as f32 + 0.5), Vec2::splat(0.5));
                    let depth = tracer
                        .first_drawn_t(&centre)
                        .map(|t| camera.depth(centre.at(t)));
                    tile.set_depth(pixel, depth);
                }
            }
            rays.fetch_add(counters.rays, Ordering::Relaxed);
            dropped.fetch_add(counters.dropped, Ordering::Relaxed);
            progress.advance(rect.w as u64 * rect.h as u64 * settings.spp as u64);
            tile
        })
        .collect();
    let mut film = Film::new(width, height);
    for tile in done {
        film.merge(tile);
    }
    film.into_image(rays.into_inner(), dropped.into_inner())
}
