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
    let (s, c) = crate::sampling::trig::sin_cos_turn(q.y);
    Vec3::new(sin_t * c, sin_t * s, cos_t)
}

/// The largest f32 below 1.
const ONE_BELOW: f32 = 1.0 - f32::EPSILON / 2.0;

impl QuadTree {
    /// The tree learnt from `samples` (square coordinates and non-negative weights), or
    /// `None` when they carry no energy.
    ///
    /// With `filter`, the tree's cells are chosen from the samples as they are, and then each
    /// sample's weight is spread uniformly over a box the size of the leaf cell it falls in,
    /// centred on it (Müller et al.'s box-filtered splatting, §5.4 of the 2017 paper's
    /// "filtered" variant): neighbouring cells share a sample's energy, so the density is
    /// less noisy where few samples fell, at the price of blurring at the cells' own scale.
    pub(super) fn build(samples: &[DirSample], filter: bool) -> Option<QuadTree> {
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
        let mut tree = QuadTree { nodes };
        if filter {
            tree.splat(samples, total);
        }
        (tree.nodes[0].energy.iter().sum::<f32>() > 0.0).then_some(tree)
    }

    /// Replaces the energies by the box-filtered splat of `samples` (see [`Self::build`]),
    /// keeping the cells; `total` is the samples' energy, for the uniform share.
    fn splat(&mut self, samples: &[DirSample], total: f32) {
        // Leaf-quadrant energies, four per node, summed in f64 in the samples' order.
        let mut acc = vec![0.0f64; self.nodes.len() * 4];
        for s in samples {
            if !(s.weight > 0.0 && s.weight.is_finite()) {
                continue;
            }
            let size = self.leaf_size(s.q);
            let half = 0.5 * size;
            // The box clipped to the square along u (cos θ, which does not wrap); its
            // weight is spread over what is left of it, so no energy is lost.
            let (u0, u1) = ((s.q.x - half).max(0.0), (s.q.x + half).min(1.0));
            let (v0, v1) = (s.q.y - half, s.q.y + half);
            let area = ((u1 - u0) * size) as f64;
            if !(area > 0.0 && area.is_finite()) {
                continue;
            }
            let density = s.weight as f64 / area;
            // φ wraps: a box past either end of v continues at the other.
            let mut pieces = [(v0.max(0.0), v1.min(1.0)), (0.0, 0.0), (0.0, 0.0)];
            if v0 < 0.0 {
                pieces[1] = (v0 + 1.0, 1.0);
            }
            if v1 > 1.0 {
                pieces[2] = (0.0, v1 - 1.0);
            }
            for (lo, hi) in pieces {
                if hi > lo {
                    self.deposit(
                        &mut acc,
                        0,
                        Vec2::ZERO,
                        1.0,
                        Vec2::new(u0, lo),
                        Vec2::new(u1, hi),
                        density,
                    );
                }
            }
        }
        self.refill(&acc, 0, 1.0, total);
    }

    /// The side of the leaf cell holding square coordinates `q`.
    fn leaf_size(&self, q: Vec2) -> f32 {
        let mut q = q;
        let mut node = 0usize;
        let mut size = 1.0f32;
        loop {
            let hx = (q.x >= 0.5) as usize;
            let hy = (q.y >= 0.5) as usize;
            q = (q * 2.0 - Vec2::new(hx as f32, hy as f32)).clamp(Vec2::ZERO, Vec2::ONE);
            size *= 0.5;
            let next = self.nodes[node].child[hy * 2 + hx];
            if next == 0 {
                return size;
            }
            node = next as usize;
        }
    }

    /// Adds `density` (energy per unit of square area) times the overlap of the box
    /// `[lo, hi)` with each leaf quadrant under `index` (covering the square of side `size`
    /// at `origin`) to that quadrant's `acc`.
    #[allow(clippy::too_many_arguments)]
    fn deposit(
        &self,
        acc: &mut [f64],
        index: usize,
        origin: Vec2,
        size: f32,
        lo: Vec2,
        hi: Vec2,
        density: f64,
    ) {
        let half = size * 0.5;
        for c in 0..4 {
            let o = origin + Vec2::new((c & 1) as f32, (c >> 1) as f32) * half;
            let (a, b) = (lo.max(o), hi.min(o + Vec2::splat(half)));
            if a.x >= b.x || a.y >= b.y {
                continue;
            }
            match self.nodes[index].child[c] {
                0 => acc[index * 4 + c] += density * ((b.x - a.x) * (b.y - a.y)) as f64,
                next => self.deposit(acc, next as usize, o, half, a, b, density),
            }
        }
    }

    /// Sets node `index`'s (of side `size`) energies from the splatted leaf energies `acc`,
    /// with each leaf quadrant's share of [`UNIFORM_SHARE`] as in [`build_node`]; returns its
    /// energy.
    fn refill(&mut self, acc: &[f64], index: usize, size: f32, total: f32) -> f32 {
        let half = size * 0.5;
        let mut energy = [0.0f32; 4];
        for (c, e) in energy.iter_mut().enumerate() {
            *e = match self.nodes[index].child[c] {
                0 => acc[index * 4 + c] as f32 + UNIFORM_SHARE * total * half * half,
                next => self.refill(acc, next as usize, half, total),
            };
        }
        self.nodes[index].energy = energy;
        energy.iter().sum()
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
    fn lobed_tree(filter: bool) -> QuadTree {
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
        QuadTree::build(&samples, filter).unwrap()
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
        for filter in [false, true] {
            pdf_integrates_to_one_and_sampling_matches(&lobed_tree(filter));
        }
    }

    fn pdf_integrates_to_one_and_sampling_matches(tree: &QuadTree) {
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
                    tree,
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
        for filter in [false, true] {
            sampled_density_is_the_evaluated(&lobed_tree(filter));
        }
    }

    fn sampled_density_is_the_evaluated(tree: &QuadTree) {
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

    /// The filter keeps the cells and the total energy, moves energy into the cells next to
    /// a bright spot (across φ = 0, where the square wraps, too), and none out of the square
    /// at cos θ = ±1, where it does not.
    #[test]
    fn filtering_spreads_energy_to_neighbours_and_keeps_it() {
        let mut rng = Rng::new(13);
        let mut samples = Vec::new();
        for i in 0..4_000 {
            // A bright spot just below φ = 2π, one at the pole cos θ = 1, a dim background.
            let (q, w) = match i % 4 {
                0 => (
                    Vec2::new(0.4 + 0.01 * rng.f32(), 0.99 + 0.0099 * rng.f32()),
                    10.0,
                ),
                1 => (Vec2::new(0.999 + 0.0009 * rng.f32(), rng.f32()), 10.0),
                _ => (rng.vec2().min(Vec2::splat(ONE_BELOW)), 0.01),
            };
            samples.push(DirSample { q, weight: w });
        }
        let point = QuadTree::build(&samples, false).unwrap();
        let filtered = QuadTree::build(&samples, true).unwrap();
        assert_eq!(point.nodes(), filtered.nodes());
        for (a, b) in point.nodes.iter().zip(&filtered.nodes) {
            assert_eq!(a.child, b.child, "the filter changed the cells");
        }
        let sum = |t: &QuadTree| t.nodes[0].energy.iter().map(|&e| e as f64).sum::<f64>();
        let (e0, e1) = (sum(&point), sum(&filtered));
        assert!((e1 / e0 - 1.0).abs() < 1e-4, "energy {e0} → {e1}");
        // Past φ = 0 from the spot: the boxes of its samples nearest φ = 2π wrap into the
        // quadrant (cos θ + 1)/2 < 0.5, φ/2π < 0.5, a leaf of the background alone (0.5 % of
        // the probability: its samples and its uniform share); about 40 of the spot's 1,000
        // samples lend it a fifth of their weight each, some 0.4 % of the tree's energy.
        let (lo, hi) = (Vec2::ZERO, Vec2::splat(0.5));
        let (m0, m1) = (
            mass(&point, 0, Vec2::ZERO, 1.0, lo, hi),
            mass(&filtered, 0, Vec2::ZERO, 1.0, lo, hi),
        );
        assert!(m1 - m0 > 0.002, "{m0} → {m1}");
        // Both still integrate to 1 and sample what they evaluate.
        pdf_integrates_to_one_and_sampling_matches(&filtered);
        sampled_density_is_the_evaluated(&filtered);
    }

    #[test]
    fn no_energy_no_tree() {
        let s = [DirSample {
            q: Vec2::splat(0.5),
            weight: 0.0,
        }];
        assert!(QuadTree::build(&s, false).is_none());
        assert!(QuadTree::build(&s, true).is_none());
    }
}
