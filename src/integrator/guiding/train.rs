//! The guide's training pre-pass: camera paths through a fixed film grid, traced by the
//! render's own path loop, whose vertices record the radiance that reached them.
//!
//! The pass is a function of the scene, the camera and the path-length settings alone: its
//! random numbers come from a seed of its own (not the render's seed), its grid and sample
//! counts are constants (not the render's size, spp or threads), paths are gathered per grid
//! pixel and concatenated in pixel order (rayon's ordered `collect`), and the trees are built
//! serially from that list. So the same scene gives the same guide, bit for bit, whatever
//! the thread count or the tiles and shards a process renders.
//!
//! Rounds after the first trace with the previous round's guide (Müller's iterated
//! training: the guide finds more of the light it learnt from). Each round's tree is built
//! from that round's records alone with [`Training::last_round_only`] (the default, as
//! Müller's: earlier rounds were drawn with a worse guide, so their records are noisier),
//! otherwise from the records of every round so far; each record is an unbiased estimate of
//! its cell's incident energy under the density it was drawn with.

use std::time::Instant;

use glam::{Vec2, Vec3};
use rayon::prelude::*;

use super::{facing, Guide, Record, Trail, Training};
use crate::camera::Camera;
use crate::color::luminance;
use crate::integrator::{Counters, PathTracer};
use crate::sampling::Sampler;
use crate::world::mask;

/// The pass's own seed, distinct from any render's stream (round `r` uses `SEED + r`).
const SEED: u64 = 0x7061_7468_5f67_7569;

/// The vertices of one training path, until its radiance is known.
struct Path {
    vertices: Vec<(Vec3, u8, Vec3, f32, Vec3, Vec3)>,
    /// Whether a vertex's density is divided by `|cos θ|` to its normal
    /// ([`Training::cosine`]): the record then weighs `L·cos θ / pdf`.
    cosine: bool,
}

impl Trail for Path {
    #[inline]
    fn vertex(&mut self, p: Vec3, n: Vec3, wi: Vec3, pdf: f32, beta: Vec3, l: Vec3) {
        let pdf = if self.cosine {
            pdf / n.dot(wi).abs()
        } else {
            pdf
        };
        self.vertices.push((p, facing(n), wi, pdf, beta, l));
    }
}

impl Path {
    /// The records of a path whose radiance came out as `radiance`: at each vertex, what
    /// arrived after it divided by the throughput to it is an estimate of the radiance
    /// incident along its direction.
    fn records(&self, radiance: Vec3, out: &mut Vec<Record>) {
        for &(p, facing, wi, pdf, beta, l) in &self.vertices {
            let after = (radiance - l).max(Vec3::ZERO);
            let inv = |a: f32, b: f32| if b > 0.0 { a / b } else { 0.0 };
            let li = Vec3::new(
                inv(after.x, beta.x),
                inv(after.y, beta.y),
                inv(after.z, beta.z),
            );
            let weight = luminance(li) / pdf;
            if weight.is_finite() && weight >= 0.0 && p.is_finite() && wi.is_finite() {
                out.push(Record {
                    p,
                    facing,
                    wi,
                    weight,
                });
            }
        }
    }
}

impl<'w> PathTracer<'w> {
    /// This tracer with a guide trained through `camera` as [`Training::default`] says (see
    /// the module's notes); without one (a scene where the training saw no light) it renders
    /// unguided.
    pub fn with_guiding(self, camera: &Camera) -> PathTracer<'w> {
        self.with_guiding_as(camera, Training::default())
    }

    /// [`Self::with_guiding`] trained and mixed as `training` says (for measuring and testing
    /// the defaults).
    pub fn with_guiding_as(mut self, camera: &Camera, training: Training) -> PathTracer<'w> {
        let start = Instant::now();
        self.guide = None;
        let mut all: Vec<Record> = Vec::new();
        let mut paths = 0u64;
        let mut rounds = 0u32;
        for round in 0..training.rounds {
            let spp = training.first_spp.max(1).saturating_mul(1 << round.min(16));
            let (records, n) = self.training_round(camera, &training, SEED + round as u64, spp);
            if training.last_round_only {
                all = records;
            } else {
                all.extend(records);
            }
            paths += n;
            rounds += 1;
            if let Some(g) = Guide::build(&all, training) {
                self.guide = Some(g);
            }
        }
        if let Some(g) = &mut self.guide {
            g.paths = paths;
            g.rounds = rounds;
            g.seconds = start.elapsed().as_secs_f64();
        }
        self
    }

    /// The records of one round: `spp` paths per point of a grid of `training.grid` points
    /// along the film's longer side, in grid order; and the number of paths traced.
    fn training_round(
        &self,
        camera: &Camera,
        training: &Training,
        seed: u64,
        spp: u32,
    ) -> (Vec<Record>, u64) {
        let [w, h] = camera.size;
        if w == 0 || h == 0 {
            return (Vec::new(), 0);
        }
        let step = (w.max(h) as f32 / training.grid.max(1) as f32).max(1.0);
        let (gw, gh) = (
            ((w as f32 / step) as u32).max(1),
            ((h as f32 / step) as u32).max(1),
        );
        let sampler = Sampler::new(seed);
        let per_point: Vec<Vec<Record>> = (0..gw * gh)
            .into_par_iter()
            .map(|i| {
                let (x, y) = (i % gw, i / gw);
                let ps = sampler.pixel([x, y]);
                let mut out = Vec::new();
                let mut counters = Counters::default();
                for k in 0..spp {
                    let j = ps.get_2d(k, 0);
                    let film = Vec2::new((x as f32 + j.x) * step, (y as f32 + j.y) * step);
                    let ray = camera.ray(film, ps.get_2d(k, 2));
                    let mut path = Path {
                        vertices: Vec::new(),
                        cosine: training.cosine,
                    };
                    counters.rays += 1;
                    let first = self.meet(&ray, mask::DRAWN, true);
                    let s = self.li_met(&ps, k, ray, first, &mut counters, &mut path);
                    path.records(s.radiance, &mut out);
                }
                out
            })
            .collect();
        let n = (gw * gh) as u64 * spp as u64;
        (per_point.into_iter().flatten().collect(), n)
    }
}
