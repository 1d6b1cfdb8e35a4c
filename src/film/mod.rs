//! The film: samples into pixels, tile by tile on rayon's threads, each pixel's samples summed
//! in sample order so the image does not depend on the thread count or the tile order.

pub mod sampler;

use std::sync::atomic::{AtomicU64, Ordering};

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use crate::integrator::{Counters, Settings};
use crate::world::World;
use sampler::Sampler;

/// Tile edge, pixels.
pub const TILE: u32 = 16;

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

/// The rendered images.
#[derive(Clone, Debug)]
pub struct Image {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// Mean radiance per pixel, W·m⁻²·sr⁻¹, row-major from the top row.
    pub radiance: Vec<Vec3>,
    /// Share of the pixel's camera samples that met a drawn object (0 is sky).
    pub coverage: Vec<f32>,
    /// Planar view-space depth at the pixel centre; `None` where the centre sees the sky.
    pub depth: Vec<Option<f32>>,
    /// Rays traced.
    pub rays: u64,
    /// Samples dropped for a non-finite value (should stay 0).
    pub dropped: u64,
}

struct Tile {
    x0: u32,
    y0: u32,
    w: u32,
    h: u32,
}

/// Renders the world's camera view at `settings.spp` samples per pixel.
pub fn render(world: &World, settings: &Settings, progress: &dyn Progress) -> Image {
    let [width, height] = world.camera.size;
    let sampler = Sampler::new(settings.seed);
    let mut tiles = Vec::new();
    for y0 in (0..height).step_by(TILE as usize) {
        for x0 in (0..width).step_by(TILE as usize) {
            tiles.push(Tile {
                x0,
                y0,
                w: TILE.min(width - x0),
                h: TILE.min(height - y0),
            });
        }
    }
    progress.begin(width as u64 * height as u64 * settings.spp as u64);
    let rays = AtomicU64::new(0);
    let dropped = AtomicU64::new(0);
    let done: Vec<Vec<(Vec3, f32, Option<f32>)>> = tiles
        .par_iter()
        .map(|t| {
            let mut counters = Counters::default();
            let mut out = Vec::with_capacity((t.w * t.h) as usize);
            for y in t.y0..t.y0 + t.h {
                for x in t.x0..t.x0 + t.w {
                    let pixel = [x, y];
                    let mut sum = [0.0f64; 3];
                    let mut hits = 0u32;
                    for i in 0..settings.spp {
                        // A one-pixel box filter: the film point is uniform over the pixel.
                        let j = sampler.get_2d(pixel, i, 0);
                        let film = Vec2::new(x as f32 + j.x, y as f32 + j.y);
                        let (l, covered) =
                            world.li(&sampler, pixel, i, film, settings, &mut counters);
                        sum[0] += l.x as f64;
                        sum[1] += l.y as f64;
                        sum[2] += l.z as f64;
                        hits += covered as u32;
                    }
                    let n = settings.spp.max(1) as f64;
                    let mean = Vec3::new(
                        (sum[0] / n) as f32,
                        (sum[1] / n) as f32,
                        (sum[2] / n) as f32,
                    );
                    let depth = world.depth_at(Vec2::new(x as f32 + 0.5, y as f32 + 0.5));
                    out.push((mean, hits as f32 / settings.spp.max(1) as f32, depth));
                }
            }
            rays.fetch_add(counters.rays, Ordering::Relaxed);
            dropped.fetch_add(counters.dropped, Ordering::Relaxed);
            progress.advance(t.w as u64 * t.h as u64 * settings.spp as u64);
            out
        })
        .collect();
    let n = (width * height) as usize;
    let mut radiance = vec![Vec3::ZERO; n];
    let mut coverage = vec![0.0; n];
    let mut depth = vec![None; n];
    for (t, px) in tiles.iter().zip(done) {
        let mut k = 0;
        for y in t.y0..t.y0 + t.h {
            for x in t.x0..t.x0 + t.w {
                let i = (y * width + x) as usize;
                (radiance[i], coverage[i], depth[i]) = px[k];
                k += 1;
            }
        }
    }
    Image {
        width,
        height,
        radiance,
        coverage,
        depth,
        rays: rays.into_inner(),
        dropped: dropped.into_inner(),
    }
}
