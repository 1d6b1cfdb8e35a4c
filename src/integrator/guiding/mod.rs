//! Path guiding (`bake --guiding`): a learnt estimate of the incident radiance over the scene,
//! sampled at rough vertices in a one-sample mixture with the BSDF.
//!
//! The guide is Müller et al.'s SD-tree ("Practical Path Guiding for Efficient
//! Light-Transport Simulation", 2017): a binary tree over space, split at the middle of a
//! cell's longest side while the cell holds more than [`Training::split_records`] training
//! records, each leaf holding a directional [`QuadTree`] of the incident energy there per
//! [`facing`] class of the surface. It is learnt before
//! the render by a fixed pre-pass (`train.rs`) and read only afterwards, so every pixel of
//! the render sees the same guide whatever the threads, tiles or shards.
//!
//! At a guided vertex the direction comes from the BSDF with probability
//! [`Training::bsdf_share`] (α) and
//! from the leaf's quadtree otherwise; the density of the direction is the mixture's,
//! `α·pdf_bsdf + (1 − α)·pdf_guide`, both in the path's throughput and in the MIS weights
//! against next-event estimation, so the estimator stays unbiased (the BSDF alone covers
//! every direction it scatters into).

mod quadtree;
mod train;

pub use quadtree::QuadTree;

use glam::{Vec2, Vec3};

use super::PathTracer;
use crate::materials::{Bsdf, BsdfSample, Bxdfs};
use quadtree::{dir_to_square, DirSample};

/// How a guide is trained and used; [`Training::default`] is what `bake --guiding` does
/// (docs/rendering.md, "Path guiding", has the measurements behind each default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Training {
    /// Training grid points along the film's longer side.
    pub grid: u32,
    /// Training paths per grid point in the first round; each later round doubles them.
    pub first_spp: u32,
    /// Training rounds; each after the first samples with the previous round's guide.
    pub rounds: u32,
    /// A spatial cell is split while more training records than this fall in it.
    pub split_records: usize,
    /// The probability that a guided vertex samples its BSDF rather than the guide
    /// (Müller's α), in (0, 1].
    pub bsdf_share: f32,
    /// Roughness (the format's `roughness`, `√α`) from which a surface is guided: below it
    /// the BSDF's own lobe is narrower than the quadtree's cells where it matters.
    pub min_roughness: f32,
    /// The first this many surface vertices of a path may be guided (1: the first hit only);
    /// later ones sample their BSDF alone.
    pub guided_vertices: u32,
    /// A training record's weight is capped at this many times the mean weight of the
    /// records its tree learns from (0: no cap): one lucky path then cannot take most of a
    /// tree's energy. The guide is only a density, so the cap biases nothing.
    pub record_cap: f32,
    /// Each directional tree's energies are the records box-filtered over the cells they
    /// fall in (Müller's filtered splatting, `QuadTree::build`) rather than deposited at
    /// their points.
    pub filter: bool,
    /// A record's weight is multiplied by the cosine between its direction and its shading
    /// normal: the tree learns `L·cos θ`, the product a diffuse BSDF would multiply it by,
    /// rather than `L` alone.
    pub cosine: bool,
    /// The final tree is learnt from the last round's records alone (Müller's: the earlier
    /// rounds were drawn with a worse guide, so their records are noisier); otherwise from
    /// every round's.
    pub last_round_only: bool,
}

impl Default for Training {
    fn default() -> Training {
        Training {
            grid: 80,
            first_spp: 2,
            rounds: 3,
            split_records: 4000,
            bsdf_share: 0.5,
            min_roughness: 0.3,
            guided_vertices: 1,
            record_cap: 10.0,
            filter: true,
            cosine: false,
            last_round_only: true,
        }
    }
}

/// Deepest spatial level.
const MAX_SPATIAL_DEPTH: u32 = 24;
/// A spatial leaf with fewer samples than this gets no quadtree: its vertices are not guided.
const MIN_LEAF_SAMPLES: usize = 64;

/// One training record: a vertex position (scene units), the side its surface faced
/// ([`facing`] of the shading normal on the viewer's side), the direction its path left it by
/// (unit) and the weight: the luminance of the radiance that arrived along it divided by the
/// density it was drawn with (W·m⁻²).
#[derive(Clone, Copy, Debug)]
pub(super) struct Record {
    pub(super) p: Vec3,
    pub(super) facing: u8,
    pub(super) wi: Vec3,
    pub(super) weight: f32,
}

/// Directional trees per spatial leaf: one per [`facing`] class.
const FACINGS: usize = 6;
/// A leaf's `trees` entry for a facing without a tree.
const NO_TREE: u32 = u32::MAX;

/// The class of a unit normal for the guide: its dominant axis and that axis's sign (6
/// classes). A spatial leaf keeps one directional tree per class, so the floor and the wall
/// of a corner, or the two sides of a two-sided sheet, do not share a tree: a shared one sends
/// the floor's guided samples into the wall's incident light, below the floor, where they
/// are wasted.
#[inline]
pub(super) fn facing(n: Vec3) -> u8 {
    let a = n.abs();
    let axis = if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    };
    (axis * 2 + (n[axis] < 0.0) as usize) as u8
}

/// A spatial node: an inner one splits its box at `split` along `axis` (children at `child`
/// and `child + 1`, below and above); a leaf names its quadtree per facing class
/// ([`NO_TREE`] for a class without one).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Spatial {
    Inner { axis: u8, split: f32, child: u32 },
    Leaf { trees: [u32; FACINGS] },
}

/// What the training learnt: the SD-tree, and figures for the bake's manifest.
#[derive(Clone, Debug)]
pub struct Guide {
    spatial: Vec<Spatial>,
    trees: Vec<QuadTree>,
    /// How it was trained, and the mixture it is sampled in.
    pub training: Training,
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
    pub(super) fn build(records: &[Record], training: Training) -> Option<Guide> {
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
            spatial: vec![Spatial::Leaf {
                trees: [NO_TREE; FACINGS],
            }],
            trees: Vec::new(),
            training,
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
        if records.len() > self.training.split_records && depth < MAX_SPATIAL_DEPTH {
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
            self.spatial.push(Spatial::Leaf {
                trees: [NO_TREE; FACINGS],
            });
            self.spatial.push(Spatial::Leaf {
                trees: [NO_TREE; FACINGS],
            });
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
        let mut trees = [NO_TREE; FACINGS];
        for (class, tree) in trees.iter_mut().enumerate() {
            let dirs: Vec<DirSample> = records
                .iter()
                .filter(|r| r.facing as usize == class)
                .map(|r| DirSample {
                    q: dir_to_square(r.wi),
                    weight: r.weight,
                })
                .collect();
            if dirs.len() < MIN_LEAF_SAMPLES {
                continue;
            }
            let mut dirs = dirs;
            if self.training.record_cap > 0.0 {
                let mean = dirs.iter().map(|d| d.weight as f64).sum::<f64>() / dirs.len() as f64;
                let cap = (mean * self.training.record_cap as f64) as f32;
                for d in &mut dirs {
                    d.weight = d.weight.min(cap);
                }
            }
            if let Some(t) = QuadTree::build(&dirs, self.training.filter) {
                *tree = self.trees.len() as u32;
                self.trees.push(t);
            }
        }
        self.spatial[index] = Spatial::Leaf { trees };
    }

    /// The quadtree of the spatial leaf holding `p` for a surface whose shading normal on
    /// the viewer's side is `n` (unit), if it has one.
    pub fn at(&self, p: Vec3, n: Vec3) -> Option<&QuadTree> {
        let mut node = 0usize;
        loop {
            match self.spatial[node] {
                Spatial::Inner { axis, split, child } => {
                    node = child as usize + (p[axis as usize] >= split) as usize;
                }
                Spatial::Leaf { trees } => {
                    let t = trees[facing(n) as usize];
                    return (t != NO_TREE).then(|| &self.trees[t as usize]);
                }
            }
        }
    }

    /// Directional quadtrees over every spatial leaf and facing class.
    pub fn leaves(&self) -> usize {
        self.trees.len()
    }

    /// Whether `other` is the same SD-tree, every split and every energy bit for bit (the
    /// figures for the manifest and the timing aside).
    pub fn same_tree(&self, other: &Guide) -> bool {
        self.spatial == other.spatial && self.trees == other.trees
    }

    /// Directional nodes over every quadtree.
    pub fn directional_nodes(&self) -> usize {
        self.trees.iter().map(QuadTree::nodes).sum()
    }
}

/// Receives the surface vertices of one path as the path loop leaves them (the training
/// pre-pass records them; the render's `()` ignores them and compiles to nothing).
pub(in crate::integrator) trait Trail {
    /// The path left a non-specular vertex at `p` whose shading normal on the viewer's side
    /// is `n` along `wi` (unit), drawn with density `pdf` (per steradian); `beta` is the
    /// throughput from the camera to the next vertex (this vertex's `f·cos/pdf` included,
    /// Russian roulette not) and `l` the radiance the path has gathered so far, this vertex's
    /// own light included (W·m⁻²·sr⁻¹).
    fn vertex(&mut self, p: Vec3, n: Vec3, wi: Vec3, pdf: f32, beta: Vec3, l: Vec3);
}

impl Trail for () {
    #[inline(always)]
    fn vertex(&mut self, _p: Vec3, _n: Vec3, _wi: Vec3, _pdf: f32, _beta: Vec3, _l: Vec3) {}
}

/// What a guided vertex samples beside its BSDF: the quadtree of its leaf and facing, and the
/// BSDF's share α of the one-sample mixture.
#[derive(Clone, Copy, Debug)]
pub(super) struct Guided<'a> {
    tree: &'a QuadTree,
    alpha: f32,
}

impl PathTracer<'_> {
    /// The guide a vertex of `bsdf` at `p`, `segment` segments into its path, samples from
    /// beside its BSDF: `None` without a guide (every render without `--guiding`), past
    /// [`Training::guided_vertices`] (`segment` 0 is the first hit), for a BxDF that is not [`guided`], or where the training
    /// learnt nothing.
    #[inline(always)]
    pub(super) fn guide_at(&self, bsdf: &Bsdf<'_>, p: Vec3, segment: u32) -> Option<Guided<'_>> {
        match &self.guide {
            Some(g)
                if segment < g.training.guided_vertices
                    && guided(bsdf.bxdf(), g.training.min_roughness) =>
            {
                g.at(p, bsdf.shading_normal()).map(|tree| Guided {
                    tree,
                    alpha: g.training.bsdf_share,
                })
            }
            _ => None,
        }
    }
}

/// Whether a vertex of this BxDF is guided: rough lobes only (`roughness` at least
/// `min_roughness`). Glass and clear coats keep their sharp (possibly delta) lobes to the
/// BSDF alone, which a mixture density could not represent.
fn guided(bxdf: &Bxdfs, min_roughness: f32) -> bool {
    match bxdf {
        Bxdfs::Glass(_) | Bxdfs::FilmedGlass(_) | Bxdfs::Coated(_) => false,
        Bxdfs::CoatedTranslucent(t) if t.is_coated() => false,
        b => b.roughness() >= min_roughness,
    }
}

/// The density, per steradian, with which [`sample_direction`] draws `wi` given the BSDF's
/// density there: the BSDF's own without a guide, the mixture's with one.
#[inline(always)]
pub(super) fn mixed_pdf(guide: Option<Guided<'_>>, bsdf_pdf: f32, wi: Vec3) -> f32 {
    match guide {
        None => bsdf_pdf,
        Some(g) => g.alpha * bsdf_pdf + (1.0 - g.alpha) * g.tree.pdf(wi),
    }
}

/// Samples the next direction at a vertex: from the BSDF alone without a guide (exactly
/// `bsdf.sample_f(wo, u_lobe.x, u)`), from the mixture with one ([`sample_mixture`]).
// Inlined so that an unguided vertex costs what it did before guiding existed (measured with
// callgrind: out of line, an unguided Cornell bake took 1.1 % more instructions).
#[inline(always)]
pub(super) fn sample_direction(
    bsdf: &Bsdf<'_>,
    guide: Option<Guided<'_>>,
    wo: Vec3,
    u_lobe: Vec2,
    u: Vec2,
) -> Option<BsdfSample> {
    match guide {
        None => bsdf.sample_f(wo, u_lobe.x, u),
        Some(g) => sample_mixture(bsdf, g, wo, u_lobe, u),
    }
}

/// The one-sample mixture: `u_lobe.y` picks the BSDF (probability α) or the guide's tree; the
/// direction uses `u` either way, and the sample's `pdf` is the mixture's.
#[inline(never)]
fn sample_mixture(
    bsdf: &Bsdf<'_>,
    g: Guided<'_>,
    wo: Vec3,
    u_lobe: Vec2,
    u: Vec2,
) -> Option<BsdfSample> {
    if u_lobe.y < g.alpha {
        let bs = bsdf.sample_f(wo, u_lobe.x, u)?;
        if bs.specular {
            // A delta lobe (unreachable at the guided roughness today, but kept exact): only
            // the BSDF half of the mixture draws it, so its probability is α times the
            // BSDF's; the guide has no delta part to add.
            let pdf = g.alpha * bs.pdf;
            return Some(BsdfSample { pdf, ..bs });
        }
        let pdf = mixed_pdf(Some(g), bs.pdf, bs.wi);
        Some(BsdfSample { pdf, ..bs })
    } else {
        let (wi, guide_pdf) = g.tree.sample(u);
        let (f, bsdf_pdf) = bsdf.f_pdf(wo, wi);
        let pdf = g.alpha * bsdf_pdf + (1.0 - g.alpha) * guide_pdf;
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
                facing: facing(Vec3::Z),
                wi,
                weight: if lit { 1.0 } else { 0.01 },
            });
        }
        let guide = Guide::build(&records, Training::default()).unwrap();
        assert!(guide.leaves() >= 8, "{} leaves", guide.leaves());
        let left = guide.at(Vec3::new(0.5, 0.5, 0.5), Vec3::Z).unwrap();
        let right = guide.at(Vec3::new(3.5, 0.5, 0.5), Vec3::Z).unwrap();
        // No record faced −z: such a surface is not guided.
        assert!(guide.at(Vec3::new(0.5, 0.5, 0.5), -Vec3::Z).is_none());
        assert!(left.pdf(Vec3::Z) > 5.0 * left.pdf(-Vec3::Z));
        assert!(right.pdf(-Vec3::Z) > 5.0 * right.pdf(Vec3::Z));
        // The same records give the same tree.
        let again = Guide::build(&records, Training::default()).unwrap();
        assert_eq!(again.leaves(), guide.leaves());
        assert_eq!(again.directional_nodes(), guide.directional_nodes());
    }

    /// Two sides of one sheet learn apart: light from +z seen by the +z side, from −z by the
    /// −z side, in the same spatial leaf.
    #[test]
    fn each_facing_learns_its_own_tree() {
        let mut rng = Rng::new(4);
        let mut records = Vec::new();
        for _ in 0..2_000 {
            let p = Vec3::new(rng.f32(), rng.f32(), 0.0);
            let wi = rng.sphere_dir();
            let n = if wi.z > 0.0 { Vec3::Z } else { -Vec3::Z };
            let lit = wi.z.abs() > 0.9 && (wi.z > 0.0) == (n.z > 0.0);
            records.push(Record {
                p,
                facing: facing(n),
                wi,
                weight: if lit { 1.0 } else { 0.01 },
            });
        }
        let guide = Guide::build(&records, Training::default()).unwrap();
        assert_eq!(guide.leaves(), 2, "one leaf, two facings");
        let up = guide
            .at(Vec3::splat(0.5), Vec3::new(0.1, 0.2, 0.9).normalize())
            .unwrap();
        let down = guide.at(Vec3::splat(0.5), -Vec3::Z).unwrap();
        assert!(up.pdf(Vec3::Z) > 20.0 * up.pdf(-Vec3::Z));
        assert!(down.pdf(-Vec3::Z) > 20.0 * down.pdf(Vec3::Z));
        assert_eq!(
            [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z].map(facing),
            [0, 1, 2, 3, 4, 5]
        );
    }
}
