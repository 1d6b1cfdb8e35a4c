//! Path guiding (`bake --guiding`): a learnt estimate of the incident radiance over the scene,
//! sampled at rough vertices in a one-sample mixture with the BSDF.
//!
//! The guide is Müller et al.'s SD-tree ("Practical Path Guiding for Efficient
//! Light-Transport Simulation", 2017): a binary tree over space, split at the middle of a
//! cell's longest side while the cell holds more than [`SPLIT_SAMPLES`] training samples, each
//! leaf holding a directional [`QuadTree`] of the incident energy there. It is learnt before
//! the render by a fixed pre-pass (`train.rs`) and read only afterwards, so every pixel of
//! the render sees the same guide whatever the threads, tiles or shards.
//!
//! At a guided vertex the direction comes from the BSDF with probability [`BSDF_SHARE`] and
//! from the leaf's quadtree otherwise; the density of the direction is the mixture's,
//! `α·pdf_bsdf + (1 − α)·pdf_guide`, both in the path's throughput and in the MIS weights
//! against next-event estimation, so the estimator stays unbiased (the BSDF alone covers
//! every direction it scatters into).

mod quadtree;
mod train;

pub use quadtree::QuadTree;

use glam::{Vec2, Vec3};

use crate::materials::{Bsdf, BsdfSample, Bxdfs};
use quadtree::{dir_to_square, DirSample};

/// The probability that a guided vertex samples its BSDF rather than the guide (Müller's α).
pub const BSDF_SHARE: f32 = 0.5;
/// A spatial cell is split while more training samples than this fall in it.
const SPLIT_SAMPLES: usize = 4000;
/// Deepest spatial level.
const MAX_SPATIAL_DEPTH: u32 = 24;
/// A spatial leaf with fewer samples than this gets no quadtree: its vertices are not guided.
const MIN_LEAF_SAMPLES: usize = 64;
/// Roughness (the plate's, `√α`) from which a surface is guided: below it the BSDF's own lobe
/// is narrower than the quadtree's cells where it matters.
const MIN_ROUGHNESS: f32 = 0.3;

/// One training record: a vertex position (scene units), the direction its path left it by
/// (unit) and the weight: the luminance of the radiance that arrived along it divided by the
/// density it was drawn with (W·m⁻²).
#[derive(Clone, Copy, Debug)]
pub(super) struct Record {
    pub(super) p: Vec3,
    pub(super) wi: Vec3,
    pub(super) weight: f32,
}

/// A spatial node: an inner one splits its box at `split` along `axis` (children at `child`
/// and `child + 1`, below and above); a leaf names its quadtree, if it has one.
#[derive(Clone, Copy, Debug)]
enum Spatial {
    Inner { axis: u8, split: f32, child: u32 },
    Leaf { tree: Option<u32> },
}

/// What the training learnt: the SD-tree, and figures for the bake's manifest.
#[derive(Clone, Debug)]
pub struct Guide {
    spatial: Vec<Spatial>,
    trees: Vec<QuadTree>,
    /// Training paths traced, over every round.
    pub paths: u64,
    /// Training records (vertices with a recorded incident radiance), over every round.
    pub records: u64,
    /// Training rounds (each after the first samples with the previous round's guide).
    pub rounds: u32,
    /// Wall-clock time the training took, seconds (reported, never decides anything).
    pub seconds: f64,
}

impl Guide {
    /// The SD-tree learnt from `records` (in a fixed order: the tree is a function of the
    /// list), or `None` when they carry no energy anywhere.
    pub(super) fn build(records: &[Record]) -> Option<Guide> {
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        for r in records {
            lo = lo.min(r.p);
            hi = hi.max(r.p);
        }
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let mut guide = Guide {
            spatial: vec![Spatial::Leaf { tree: None }],
            trees: Vec::new(),
            paths: 0,
            records: records.len() as u64,
            rounds: 0,
            seconds: 0.0,
        };
        let mut refs = records.to_vec();
        guide.build_node(0, &mut refs, lo, hi, 0);
        (!guide.trees.is_empty()).then_some(guide)
    }

    fn build_node(&mut self, index: usize, records: &mut [Record], lo: Vec3, hi: Vec3, depth: u32) {
        if records.len() > SPLIT_SAMPLES && depth < MAX_SPATIAL_DEPTH {
            let ext = hi - lo;
            let axis = if ext.x >= ext.y && ext.x >= ext.z {
                0
            } else if ext.y >= ext.z {
                1
            } else {
                2
            };
            let split = 0.5 * (lo[axis] + hi[axis]);
            // Stable partition: below the split first, each side in the list's order.
            let (below, above): (Vec<Record>, Vec<Record>) =
                records.iter().partition(|r| r.p[axis] < split);
            let n_below = below.len();
            records[..n_below].copy_from_slice(&below);
            records[n_below..].copy_from_slice(&above);
            drop((below, above));
            let child = self.spatial.len();
            self.spatial.push(Spatial::Leaf { tree: None });
            self.spatial.push(Spatial::Leaf { tree: None });
            self.spatial[index] = Spatial::Inner {
                axis: axis as u8,
                split,
                child: child as u32,
            };
            let (mut hi_below, mut lo_above) = (hi, lo);
            hi_below[axis] = split;
            lo_above[axis] = split;
            let (a, b) = records.split_at_mut(n_below);
            self.build_node(child, a, lo, hi_below, depth + 1);
            self.build_node(child + 1, b, lo_above, hi, depth + 1);
            return;
        }
        if records.len() < MIN_LEAF_SAMPLES {
            return;
        }
        let dirs: Vec<DirSample> = records
            .iter()
            .map(|r| DirSample {
                q: dir_to_square(r.wi),
                weight: r.weight,
            })
            .collect();
        if let Some(tree) = QuadTree::build(&dirs) {
            self.spatial[index] = Spatial::Leaf {
                tree: Some(self.trees.len() as u32),
            };
            self.trees.push(tree);
        }
    }

    /// The quadtree of the spatial leaf holding `p`, if it has one.
    pub fn at(&self, p: Vec3) -> Option<&QuadTree> {
        let mut node = 0usize;
        loop {
            match self.spatial[node] {
                Spatial::Inner { axis, split, child } => {
                    node = child as usize + (p[axis as usize] >= split) as usize;
                }
                Spatial::Leaf { tree } => return tree.map(|t| &self.trees[t as usize]),
            }
        }
    }

    /// Spatial leaves with a quadtree.
    pub fn leaves(&self) -> usize {
        self.trees.len()
    }

    /// Directional nodes over every quadtree.
    pub fn directional_nodes(&self) -> usize {
        self.trees.iter().map(QuadTree::nodes).sum()
    }
}

/// Receives the surface vertices of one path as the path loop leaves them (the training
/// pre-pass records them; the render's `()` ignores them and compiles to nothing).
pub(in crate::integrator) trait Trail {
    /// The path left a non-specular vertex at `p` along `wi` (unit), drawn with density `pdf`
    /// (per steradian); `beta` is the throughput from the camera to the next vertex (this
    /// vertex's `f·cos/pdf` included, Russian roulette not) and `l` the radiance the path has
    /// gathered so far, this vertex's own light included (W·m⁻²·sr⁻¹).
    fn vertex(&mut self, p: Vec3, wi: Vec3, pdf: f32, beta: Vec3, l: Vec3);
}

impl Trail for () {
    #[inline(always)]
    fn vertex(&mut self, _p: Vec3, _wi: Vec3, _pdf: f32, _beta: Vec3, _l: Vec3) {}
}

/// Whether a vertex of this BxDF is guided: rough lobes only. Glass and clear coats keep
/// their sharp (possibly delta) lobes to the BSDF alone, which a mixture density could not
/// represent.
pub(super) fn guided(bxdf: &Bxdfs) -> bool {
    match bxdf {
        Bxdfs::Glass(_) | Bxdfs::Coated(_) => false,
        b => b.roughness() >= MIN_ROUGHNESS,
    }
}

/// The mixture's density of `wi` given the BSDF's density there, per steradian.
#[inline]
pub(super) fn mixed_pdf(tree: &QuadTree, bsdf_pdf: f32, wi: Vec3) -> f32 {
    BSDF_SHARE * bsdf_pdf + (1.0 - BSDF_SHARE) * tree.pdf(wi)
}

/// Samples the next direction at a vertex: from the BSDF alone without a tree (exactly
/// `bsdf.sample_f(wo, u_lobe.x, u)`), from the mixture with one, choosing the strategy by
/// `u_lobe.y`. The sample's `pdf` is then the mixture's.
#[inline]
pub(super) fn sample_direction(
    bsdf: &Bsdf<'_>,
    tree: Option<&QuadTree>,
    wo: Vec3,
    u_lobe: Vec2,
    u: Vec2,
) -> Option<BsdfSample> {
    let Some(tree) = tree else {
        return bsdf.sample_f(wo, u_lobe.x, u);
    };
    if u_lobe.y < BSDF_SHARE {
        let bs = bsdf.sample_f(wo, u_lobe.x, u)?;
        if bs.specular {
            return Some(bs);
        }
        let pdf = mixed_pdf(tree, bs.pdf, bs.wi);
        Some(BsdfSample { pdf, ..bs })
    } else {
        let (wi, guide_pdf) = tree.sample(u);
        let (f, bsdf_pdf) = bsdf.f_pdf(wo, wi);
        let pdf = BSDF_SHARE * bsdf_pdf + (1.0 - BSDF_SHARE) * guide_pdf;
        (f != Vec3::ZERO && f.is_finite() && pdf > 0.0 && pdf.is_finite()).then_some(BsdfSample {
            wi,
            f,
            pdf,
            specular: false,
            // A guided direction is a rough scattering: `[trace] filter_glossy` applies after it.
            diffuse: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::testutil::Rng;

    #[test]
    fn spatial_tree_splits_where_samples_are_and_finds_each_leaf() {
        let mut rng = Rng::new(9);
        let mut records = Vec::new();
        for _ in 0..40_000 {
            let p = Vec3::new(rng.f32() * 4.0, rng.f32(), rng.f32());
            let wi = rng.sphere_dir();
            // Light from +z on the left half, from −z on the right.
            let lit = if p.x < 2.0 { wi.z > 0.8 } else { wi.z < -0.8 };
            records.push(Record {
                p,
                wi,
                weight: if lit { 1.0 } else { 0.01 },
            });
        }
        let guide = Guide::build(&records).unwrap();
        assert!(guide.leaves() >= 8, "{} leaves", guide.leaves());
        let left = guide.at(Vec3::new(0.5, 0.5, 0.5)).unwrap();
        let right = guide.at(Vec3::new(3.5, 0.5, 0.5)).unwrap();
        assert!(left.pdf(Vec3::Z) > 5.0 * left.pdf(-Vec3::Z));
        assert!(right.pdf(-Vec3::Z) > 5.0 * right.pdf(Vec3::Z));
        // The same records give the same tree.
        let again = Guide::build(&records).unwrap();
        assert_eq!(again.leaves(), guide.leaves());
        assert_eq!(again.directional_nodes(), guide.directional_nodes());
    }
}
