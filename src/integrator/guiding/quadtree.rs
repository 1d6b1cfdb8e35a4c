//! The directional half of the SD-tree: a quadtree over the square of the sphere's cylindrical
//! coordinates, `(u, v) = ((cos θ + 1) / 2, φ / 2π)`, holding the learnt incident energy.
//!
//! The map is area-preserving (a region of the square of area A covers 4πA sr), so a density
//! over the square is a density over the sphere divided by 4π, and a quadtree's piecewise
//! constant density stays piecewise constant on the sphere: sampling and evaluating it are
//! exact, and the pdf integrates to 1 by construction (Müller et al. 2017, §5).

use std::f32::consts::{PI, TAU};

use glam::{Vec2, Vec3};

/// A node is refined while it holds more than this share of its tree's energy (Müller's ρ).
const REFINE_SHARE: f32 = 0.01;
/// Deepest level: cells of 2⁻¹⁶ of the square's side (about 1e-8 sr), below which f32 square
/// coordinates stop resolving.
const MAX_DEPTH: u32 = 16;
/// A node is refined only when more training samples than this fall in it: one bright sample
/// alone says too little about where the light comes from.
const MIN_SPLIT_SAMPLES: usize = 8;
/// This share of the tree's energy is spread uniformly over the sphere, so every direction
/// keeps a positive density (a light the training missed is still found by the guide, not
/// only by the BSDF).
const UNIFORM_SHARE: f32 = 0.02;

/// One training sample as the quadtree sees it: its square coordinates and its weight (the
/// luminance of the incident radiance divided by the density it was drawn with, W·m⁻²).
#[derive(Clone, Copy, Debug)]
pub(super) struct DirSample {
    pub(super) q: Vec2,
    pub(super) weight: f32,
}

/// One inner node: the energy of each quadrant (order: (x0,y0), (x1,y0), (x0,y1), (x1,y1))
/// and the index of each quadrant's node, 0 for a leaf quadrant (the root is node 0, so no
/// child is).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    energy: [f32; 4],
    child: [u32; 4],
}

/// A piecewise-constant density over directions, learnt from weighted samples.
#[derive(Clone, Debug, PartialEq)]
pub struct QuadTree {
    nodes: Vec<Node>,
}

/// Square coordinates of a unit direction, each in [0, 1).
#[inline]
pub(super) fn dir_to_square(d: Vec3) -> Vec2 {
    let u = ((d.z.clamp(-1.0, 1.0) + 1.0) * 0.5).min(ONE_BELOW);
    let mut phi = d.y.atan2(d.x);
    if phi < 0.0 {
        phi += TAU;
    }
    let v = (phi / TAU).clamp(0.0, ONE_BELOW);
    Vec2::new(u, v)
}

/// The unit direction at square coordinates `q`.
#[inline]
pub(super) fn square_to_dir(q: Vec2) -> Vec3 {
    let cos_t = 2.0 * q.x - 1.0;
    let sin_t = (1.0 - cos_t * cos_t).max(0.0).sqrt();
    let (s, c) = (TAU * q.y).sin_cos();
    Vec3::new(sin_t * c, sin_t * s, cos_t)
}

/// The largest f32 below 1.
const ONE_BELOW: f32 = 1.0 - f32::EPSILON / 2.0;

impl QuadTree {
    /// The tree learnt from `samples` (square coordinates and non-negative weights), or
    /// `None` when they carry no energy.
    pub(super) fn build(samples: &[DirSample]) -> Option<QuadTree> {
        let total: f64 = samples.iter().map(|s| s.weight as f64).sum();
        if !(total > 0.0 && total.is_finite()) {
            return None;
        }
        let total = total as f32;
        let mut nodes = vec![Node {
            energy: [0.0; 4],
            child: [0; 4],
        }];
        let mut refs: Vec<DirSample> = samples.to_vec();
        build_node(&mut nodes, 0, &mut refs, Vec2::ZERO, 1.0, 0, total);
        let tree = QuadTree { nodes };
        (tree.nodes[0].energy.iter().sum::<f32>() > 0.0).then_some(tree)
    }

    /// Nodes in the tree (inner ones; each has four quadrants).
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Draws a direction from `u` (uniform in [0, 1)²): the unit direction and its density,
    /// per steradian.
    pub fn sample(&self, u: Vec2) -> (Vec3, f32) {
        let mut u = u.clamp(Vec2::ZERO, Vec2::splat(ONE_BELOW));
        let mut node = 0usize;
        let mut origin = Vec2::ZERO;
        let mut size = 1.0f32;
        let mut pdf = 1.0f32;
        loop {
            let e = self.nodes[node].energy;
            let total = e[0] + e[1] + e[2] + e[3];
            // The x half first (its two quadrants' sum), then the y half within it; each
            // uniform number is rescaled to [0, 1) for the next choice.
            let left = (e[0] + e[2]) / total;
            let hx = if u.x < left {
                u.x /= left;
                0
            } else {
                u.x = (u.x - left) / (1.0 - left);
                1
            };
            let (lo, hi) = (e[hx], e[hx + 2]);
            let bottom = lo / (lo + hi);
            let hy = if u.y < bottom {
                u.y /= bottom;
                0
            } else {
                u.y = (u.y - bottom) / (1.0 - bottom);
                1
            };
            u = u.clamp(Vec2::ZERO, Vec2::splat(ONE_BELOW));
            let c = hy * 2 + hx;
            pdf *= 4.0 * e[c] / total;
            size *= 0.5;
            origin += Vec2::new(hx as f32, hy as f32) * size;
            let next = self.nodes[node].child[c];
            if next == 0 {
                let q = (origin + u * size).clamp(Vec2::ZERO, Vec2::splat(ONE_BELOW));
                return (square_to_dir(q), pdf / (4.0 * PI));
            }
            node = next as usize;
        }
    }

    /// The density of direction `d` (unit), per steradian.
    pub fn pdf(&self, d: Vec3) -> f32 {
        let mut q = dir_to_square(d);
        let mut node = 0usize;
        let mut pdf = 1.0f32;
        loop {
            let e = self.nodes[node].energy;
            let total = e[0] + e[1] + e[2] + e[3];
            let hx = (q.x >= 0.5) as usize;
            let hy = (q.y >= 0.5) as usize;
            let c = hy * 2 + hx;
            pdf *= 4.0 * e[c] / total;
            q = (q * 2.0 - Vec2::new(hx as f32, hy as f32)).clamp(Vec2::ZERO, Vec2::ONE);
            let next = self.nodes[node].child[c];
            if next == 0 {
                return pdf / (4.0 * PI);
            }
            node = next as usize;
        }
    }
}

/// Fills node `index` (covering the square of side `size` at `origin`) from `samples` (those
/// inside it) and returns its energy. A quadrant with more than [`REFINE_SHARE`] of the
/// tree's energy `total` becomes a node of its own; a leaf quadrant also takes its area's
/// share of [`UNIFORM_SHARE`]. Samples are partitioned in place, keeping their order, so the
/// tree is a function of the sample list alone.
fn build_node(
    nodes: &mut Vec<Node>,
    index: usize,
    samples: &mut [DirSample],
    origin: Vec2,
    size: f32,
    depth: u32,
    total: f32,
) -> f32 {
    let half = size * 0.5;
    let mid = origin + Vec2::splat(half);
    let quadrant = |s: &DirSample| ((s.q.y >= mid.y) as usize) * 2 + (s.q.x >= mid.x) as usize;
    // Stable partition by quadrant: counts, then a scatter into a fresh buffer.
    let mut counts = [0usize; 4];
    for s in samples.iter() {
        counts[quadrant(s)] += 1;
    }
    let mut starts = [0usize; 4];
    for c in 1..4 {
        starts[c] = starts[c - 1] + counts[c - 1];
    }
    let mut sorted = samples.to_vec();
    let mut at = starts;
    for s in samples.iter() {
        let c = quadrant(s);
        sorted[at[c]] = *s;
        at[c] += 1;
    }
    samples.copy_from_slice(&sorted);
    drop(sorted);

    let mut energy = [0.0f32; 4];
    for c in 0..4 {
        let part = &mut samples[starts[c]..starts[c] + counts[c]];
        let e: f32 = part.iter().map(|s| s.weight as f64).sum::<f64>() as f32;
        let child_origin = origin + Vec2::new((c & 1) as f32, (c >> 1) as f32) * half;
        if e > REFINE_SHARE * total && depth + 1 < MAX_DEPTH && part.len() > MIN_SPLIT_SAMPLES {
            let child = nodes.len();
            nodes.push(Node {
                energy: [0.0; 4],
                child: [0; 4],
            });
            nodes[index].child[c] = child as u32;
            energy[c] = build_node(nodes, child, part, child_origin, half, depth + 1, total);
        } else {
            energy[c] = e + UNIFORM_SHARE * total * half * half;
        }
    }
    nodes[index].energy = energy;
    energy.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::testutil::{chi2_p_value, Rng};

    /// A tree learnt from a lobe around +z and a smaller one towards −x, with a uniform
    /// background: several levels of refinement.
    fn lobed_tree() -> QuadTree {
        let mut rng = Rng::new(7);
        let mut samples = Vec::new();
        for i in 0..20_000 {
            let d = rng.sphere_dir();
            let w = if d.z > 0.9 {
                50.0
            } else if d.x < -0.95 {
                20.0
            } else {
                (i % 3) as f32 * 0.1
            };
            samples.push(DirSample {
                q: dir_to_square(d),
                weight: w,
            });
        }
        QuadTree::build(&samples).unwrap()
    }

    #[test]
    fn square_map_round_trips() {
        let mut rng = Rng::new(3);
        for _ in 0..1000 {
            let d = rng.sphere_dir();
            let back = square_to_dir(dir_to_square(d));
            assert!((back - d).length() < 1e-4, "{d} → {back}");
        }
    }

    /// The exact probability of the square region `[lo, hi)` under node `node` covering the
    /// square of side `size` at `origin`.
    fn mass(tree: &QuadTree, node: usize, origin: Vec2, size: f32, lo: Vec2, hi: Vec2) -> f64 {
        let e = tree.nodes[node].energy;
        let total: f64 = e.iter().map(|&x| x as f64).sum();
        let half = size * 0.5;
        let mut m = 0.0;
        for (c, &ec) in e.iter().enumerate() {
            let o = origin + Vec2::new((c & 1) as f32, (c >> 1) as f32) * half;
            let (a, b) = (lo.max(o), hi.min(o + Vec2::splat(half)));
            if a.x >= b.x || a.y >= b.y {
                continue;
            }
            let share = ec as f64 / total;
            let next = tree.nodes[node].child[c];
            m += share
                * if next == 0 {
                    ((b.x - a.x) * (b.y - a.y)) as f64 / (half * half) as f64
                } else {
                    mass(tree, next as usize, o, half, a, b)
                };
        }
        m
    }

    #[test]
    fn pdf_integrates_to_one_and_sampling_matches_it() {
        let tree = lobed_tree();
        assert!(tree.nodes() > 10, "too coarse: {} nodes", tree.nodes());
        // Bins over the square (where the density is piecewise constant), expected counts
        // from the tree's exact masses; the pdf evaluated in each leaf is what it samples.
        const B: usize = 32;
        let n = 200_000usize;
        let mut observed = vec![0.0f64; B * B];
        let mut rng = Rng::new(11);
        for _ in 0..n {
            let (d, _) = tree.sample(rng.vec2());
            let q = dir_to_square(d);
            let (i, j) = (
                ((q.x * B as f32) as usize).min(B - 1),
                ((q.y * B as f32) as usize).min(B - 1),
            );
            observed[j * B + i] += 1.0;
        }
        let mut total = 0.0;
        let (mut stat, mut dof) = (0.0, 0usize);
        let (mut pool_o, mut pool_e) = (0.0, 0.0);
        for j in 0..B {
            for i in 0..B {
                let lo = Vec2::new(i as f32, j as f32) / B as f32;
                let m = mass(
                    &tree,
                    0,
                    Vec2::ZERO,
                    1.0,
                    lo,
                    lo + Vec2::splat(1.0 / B as f32),
                );
                total += m;
                pool_o += observed[j * B + i];
                pool_e += m * n as f64;
                if pool_e >= 5.0 {
                    stat += (pool_o - pool_e) * (pool_o - pool_e) / pool_e;
                    dof += 1;
                    pool_o = 0.0;
                    pool_e = 0.0;
                }
            }
        }
        assert!((total - 1.0).abs() < 1e-4, "the masses sum to {total}");
        let p = chi2_p_value(stat, dof.saturating_sub(1));
        assert!(p > 0.01, "chi2 {stat} with {dof} bins, p = {p}");
        // The evaluated pdf integrates to 1 over the sphere (midpoint rule on a fine grid of
        // the square: each leaf's density times its area, 4π sr in all).
        let k = 512;
        let mut integral = 0.0f64;
        for j in 0..k {
            for i in 0..k {
                let q = (Vec2::new(i as f32, j as f32) + 0.5) / k as f32;
                integral += tree.pdf(square_to_dir(q)) as f64;
            }
        }
        integral *= 4.0 * std::f64::consts::PI / (k * k) as f64;
        assert!((integral - 1.0).abs() < 2e-2, "∫ pdf = {integral}");
    }

    #[test]
    fn sampled_density_is_the_evaluated_one() {
        let tree = lobed_tree();
        let mut rng = Rng::new(5);
        for _ in 0..10_000 {
            let (d, pdf) = tree.sample(rng.vec2());
            let eval = tree.pdf(d);
            assert!(pdf > 0.0 && pdf.is_finite());
            assert!(
                (pdf / eval - 1.0).abs() < 1e-3,
                "sampled {pdf} vs evaluated {eval} at {d}"
            );
        }
    }

    #[test]
    fn no_energy_no_tree() {
        let s = [DirSample {
            q: Vec2::splat(0.5),
            weight: 0.0,
        }];
        assert!(QuadTree::build(&s).is_none());
    }
}
