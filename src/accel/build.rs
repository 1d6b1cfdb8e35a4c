//! Building the wide BVH: a binned-SAH binary tree (Embree's MEDIUM quality class: 32 bins per
//! axis, leaves of up to four primitives costed per SIMD block), then collapsed into 8-wide
//! nodes by repeatedly opening the child with the largest surface area.
//!
//! Single-threaded and free of randomness: a tree depends only on its input (meshes are built
//! in parallel, one tree per task, and collected in order).

use glam::Vec3A;

use super::node::{Node8, LEAF, MAX_DEPTH, WIDTH};

/// An axis-aligned box, the units of the points it bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Aabb {
    /// Lower corner.
    pub min: Vec3A,
    /// Upper corner.
    pub max: Vec3A,
}

impl Aabb {
    /// The empty box (grows into any box it is merged with).
    pub(crate) const EMPTY: Aabb = Aabb {
        min: Vec3A::INFINITY,
        max: Vec3A::NEG_INFINITY,
    };

    /// The box from `min` to `max`.
    pub(crate) fn new(min: Vec3A, max: Vec3A) -> Aabb {
        Aabb { min, max }
    }

    #[inline(always)]
    fn grow(&mut self, b: &Aabb) {
        self.min = self.min.min(b.min);
        self.max = self.max.max(b.max);
    }

    /// Half the surface area (all SAH needs); 0 for the empty box.
    #[inline(always)]
    fn half_area(&self) -> f32 {
        let e = (self.max - self.min).max(Vec3A::ZERO);
        e.x * e.y + e.y * e.z + e.z * e.x
    }
}

/// A node of the binary tree: a leaf when `count > 0` (primitives `first..first + count` of
/// the build order), else an interior node with children `first` and `first + 1`.
#[derive(Clone, Copy, Debug)]
struct Node2 {
    bb: Aabb,
    first: u32,
    count: u32,
}

/// Twice the centre of `bb` (the factor ½ changes no binning decision). During the build a
/// primitive is its box in one array and its caller id at the same place in another: the
/// binning passes read only the boxes (32 bytes a primitive instead of 48 with the id beside
/// them), and only the partition moves the ids.
#[inline(always)]
fn centre2(bb: &Aabb) -> Vec3A {
    bb.min + bb.max
}

/// Bins per axis.
const BINS: usize = 32;

/// Bins per axis for a node of `n` primitives: `4 + n/20`, at most [`BINS`] (Embree's rule).
#[inline]
fn bins_for(n: usize) -> usize {
    (4 + n / 20).min(BINS)
}

/// Binary-tree depth past which nodes are split at the median of their range, whatever SAH
/// says, so that no input (e.g. exponentially spaced primitives) makes the tree deeper than
/// [`MAX_DEPTH`].
const SAH_DEPTH: usize = 64;

/// A built wide tree: interior nodes (the root is node 0) and per leaf the caller ids of its
/// primitives, in leaf order.
pub(crate) struct Wide {
    /// Interior nodes; node 0 is the root.
    pub nodes: Vec<Node8>,
    /// Per leaf (a child reference `LEAF | i` names `leaves[i]`): `(start, count)` in `order`.
    pub leaves: Vec<(u32, u32)>,
    /// Caller ids of the primitives, in leaf order.
    pub order: Vec<u32>,
    /// Union of all primitive boxes.
    pub bounds: Aabb,
    /// Interior levels on the longest root-to-leaf path.
    pub depth: usize,
}

/// Builds a wide tree over `boxes` (all finite); `ids[i]` is the caller's id of `boxes[i]`.
/// Leaves hold at most `max_leaf` (1..=4) primitives. `boxes` must not be empty.
pub(crate) fn build(boxes: &[Aabb], ids: &[u32], max_leaf: usize) -> Wide {
    let max_leaf = max_leaf.clamp(1, 4);
    let wide = build_with(boxes, ids, max_leaf);
    if max_leaf <= 2 || boxes.len() > SMALL_TREE {
        return wide;
    }
    // Small trees are also built with leaves of at most two, and the cheaper tree by the
    // collapsed tree's own SAH cost is kept (docs/accel.md, "Leaves of small trees").
    let pairs = build_with(boxes, ids, 2);
    if sah_cost(&pairs) < sah_cost(&wide) {
        pairs
    } else {
        wide
    }
}

/// Trees over at most this many primitives are built twice (leaves of up to four and of up to
/// two primitives) and the cheaper kept; above it the second build would cost more than a
/// tree that large is likely to gain.
const SMALL_TREE: usize = 4096;

/// Cost of testing an interior node (eight boxes) in the SAH estimate, relative to
/// [`C_BLOCK`].
const C_NODE: f32 = 1.0;

/// Cost of testing a leaf block (up to four triangles in one SIMD pass) in the SAH estimate.
const C_BLOCK: f32 = 1.0;

/// The expected cost of a ray through `w` up to a constant factor: each node's and leaf's
/// test cost weighted by its box's surface area (the chance that a random line meeting the
/// root meets it).
fn sah_cost(w: &Wide) -> f64 {
    let mut cost = f64::from(C_NODE) * f64::from(w.bounds.half_area());
    for n in &w.nodes {
        for (slot, &r) in n.child.iter().enumerate() {
            if r == super::node::EMPTY {
                continue;
            }
            let lo = Vec3A::new(n.planes[0][slot], n.planes[2][slot], n.planes[4][slot]);
            let hi = Vec3A::new(n.planes[1][slot], n.planes[3][slot], n.planes[5][slot]);
            let c = if r & LEAF != 0 { C_BLOCK } else { C_NODE };
            cost += f64::from(c) * f64::from(Aabb::new(lo, hi).half_area());
        }
    }
    cost
}

/// [`build`] with leaves of at most `max_leaf` primitives.
fn build_with(boxes: &[Aabb], ids: &[u32], max_leaf: usize) -> Wide {
    let mut prims = boxes.to_vec();
    let mut order = ids.to_vec();
    let nodes2 = build_binary(&mut prims, &mut order, max_leaf);
    let mut wide = Wide {
        nodes: Vec::with_capacity(nodes2.len() / 4 + 1),
        leaves: Vec::new(),
        order,
        bounds: nodes2[0].bb,
        depth: 0,
    };
    collapse(&nodes2, 0, 1, &mut wide);
    wide
}

/// Binned SAH over the boxes `refs` and their ids `ids` (both reordered in place into leaf
/// order); returns the nodes, root first.
fn build_binary(refs: &mut [Aabb], ids: &mut [u32], max_leaf: usize) -> Vec<Node2> {
    // Embree's bin count ([`bins_for`]) in trees larger than those built twice.
    let few_bins = refs.len() > SMALL_TREE;
    let mut nodes = Vec::with_capacity(2 * refs.len() / max_leaf + 1);
    nodes.push(Node2 {
        bb: Aabb::EMPTY,
        first: 0,
        count: 0,
    });
    let (bb, cb) = bounds_of(refs);
    let mut bins: Box<Bins> = Box::new([[(Aabb::EMPTY, 0); BINS]; 3]);
    // (node, start, end, depth, box, centroid box): a work stack instead of recursion. The
    // boxes come from the parent's split (bins and partition), saving a pass per level.
    let mut work = vec![(0usize, 0usize, refs.len(), 0usize, bb, cb)];
    while let Some((ni, start, end, depth, bb, cb)) = work.pop() {
        let prims = &mut refs[start..end];
        let pids = &mut ids[start..end];
        nodes[ni].bb = bb;
        let n = prims.len();
        if n <= max_leaf {
            nodes[ni].first = start as u32;
            nodes[ni].count = n as u32;
            continue;
        }
        let split = if depth >= SAH_DEPTH {
            None
        } else {
            sah_split(prims, pids, &cb, max_leaf, &mut bins, few_bins)
        };
        let (mid, ((lb, lc), (rb, rc))) = split.unwrap_or_else(|| {
            let mid = n / 2;
            (mid, (bounds_of(&prims[..mid]), bounds_of(&prims[mid..])))
        });
        let left = nodes.len();
        nodes[ni].first = left as u32;
        for _ in 0..2 {
            nodes.push(Node2 {
                bb: Aabb::EMPTY,
                first: 0,
                count: 0,
            });
        }
        work.push((left + 1, start + mid, end, depth + 1, rb, rc));
        work.push((left, start, start + mid, depth + 1, lb, lc));
    }
    nodes
}

/// The bin per axis of a centre at `f` bins past the lowest (never negative: every centre is
/// inside the centroid box): `f` clamped to the last bin `last` (a NaN lane becomes `last`)
/// and truncated, in one conversion of all three lanes (SSE2, part of x86-64) instead of
/// three saturating scalar casts.
#[inline(always)]
fn bin_indices(f: Vec3A, last: Vec3A) -> [u32; 4] {
    let f = f.min(last);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128, _mm_cvttps_epi32};
        let v: __m128 = f.into();
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { std::mem::transmute::<_, [u32; 4]>(_mm_cvttps_epi32(v)) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        [f.x as u32, f.y as u32, f.z as u32, 0]
    }
}

/// Leaf blocks `⌈n/m⌉` of `n` primitives in leaves of up to `m` (≥ 1). The leaf sizes the
/// builds use (1, 2, 4) divide by a shift: a division per bin and axis was a tenth of a large
/// build. The same integers as `div_ceil` either way.
#[inline(always)]
fn leaf_blocks(n: u32, m: u32) -> u32 {
    if m.is_power_of_two() {
        (n >> m.trailing_zeros()) + u32::from(n & (m - 1) != 0)
    } else {
        n.div_ceil(m)
    }
}

/// The box and the centroid box (centre2 units) of `prims`.
fn bounds_of(prims: &[Aabb]) -> (Aabb, Aabb) {
    let mut bb = Aabb::EMPTY;
    let mut cb = Aabb::EMPTY;
    for p in prims {
        bb.grow(p);
        let c = centre2(p);
        cb.grow(&Aabb::new(c, c));
    }
    (bb, cb)
}

/// Per axis, per bin: the box of the primitives binned there and their count.
type Bins = [[(Aabb, u32); BINS]; 3];

/// Boxes of the two sides of a split: (box, centroid box) each.
type Sides = ((Aabb, Aabb), (Aabb, Aabb));

/// Finds the cheapest binned split of `prims` (centroid box `cb`, in centre2 units) and
/// partitions them; returns the size of the left part and the boxes of both sides, or `None`
/// when no split separates anything (all centroids equal).
fn sah_split(
    prims: &mut [Aabb],
    ids: &mut [u32],
    cb: &Aabb,
    max_leaf: usize,
    bins: &mut Bins,
    few_bins: bool,
) -> Option<(usize, Sides)> {
    // Fewer bins for small nodes. In a large tree by Embree's own rule (`4 + 0.05·n`, at
    // most 32: its `ObjectBinner` in heuristic_binning.h): the sweep over bins costs 3 axes ×
    // 2 passes × `nb` steps whatever `n` is, and with `max(n, 8)` bins it was 40 % of a
    // 1.2 M-triangle build (callgrind), more than the binning of the primitives themselves.
    // A small tree keeps `max(n, 8)`: its build is cheap either way, and a room of a few
    // dozen triangles split with 5 bins instead of 32 cost the Cornell box 8 % more
    // instructions per sample in traversal.
    let nb = if few_bins {
        bins_for(prims.len())
    } else {
        BINS.min(prims.len().max(8))
    };
    let extent = cb.max - cb.min;
    // Per axis: scale from centroid to bin (0 for a flat axis, which is skipped).
    let mut scale = [0.0f32; 3];
    for k in 0..3 {
        if extent[k] > 0.0 {
            scale[k] = nb as f32 * (1.0 - 1e-6) / extent[k];
        }
    }
    if scale == [0.0; 3] {
        return None;
    }
    let sv = Vec3A::from(scale);
    let last = Vec3A::splat((nb - 1) as f32);
    // The binning pass and the partition pick bins by this one function, so they agree on
    // every input (even a NaN from a scale that overflowed).
    let bin_of =
        |c: Vec3A, k: usize| -> usize { bin_indices((c - cb.min) * sv, last)[k] as usize % BINS };
    // Scratch reused across nodes: clearing only the bins in use keeps small nodes cheap.
    for axis in bins.iter_mut() {
        axis[..nb].fill((Aabb::EMPTY, 0));
    }
    for p in prims.iter() {
        // `bin_of` for the three axes at once.
        let b = bin_indices((centre2(p) - cb.min) * sv, last);
        for (k, axis) in bins.iter_mut().enumerate() {
            let b = &mut axis[b[k] as usize % BINS];
            b.0.grow(p);
            b.1 += 1;
        }
    }
    // Cost of a side: its area times its number of leaf blocks (a block of up to `max_leaf`
    // primitives costs one SIMD pass, whatever its fill).
    let blocks = |n: u32| leaf_blocks(n, max_leaf as u32) as f32;
    let mut best: Option<(f32, usize, usize)> = None;
    for k in 0..3 {
        if scale[k] == 0.0 {
            continue;
        }
        let axis = &bins[k];
        // Right-to-left sweep: cost of the right side of a split before bin i.
        let mut right_cost = [0.0f32; BINS];
        let mut acc = Aabb::EMPTY;
        let mut count = 0;
        for i in (1..nb).rev() {
            acc.grow(&axis[i].0);
            count += axis[i].1;
            right_cost[i] = acc.half_area() * blocks(count);
        }
        let mut acc = Aabb::EMPTY;
        let mut count = 0;
        let total: u32 = axis.iter().map(|b| b.1).sum();
        for i in 1..nb {
            acc.grow(&axis[i - 1].0);
            count += axis[i - 1].1;
            if count == 0 || count == total {
                continue;
            }
            let cost = acc.half_area() * blocks(count) + right_cost[i];
            if best.is_none_or(|b| cost < b.0) {
                best = Some((cost, k, i));
            }
        }
    }
    let (_, k, split) = best?;
    let (mut lb, mut rb) = (Aabb::EMPTY, Aabb::EMPTY);
    for (i, b) in bins[k][..nb].iter().enumerate() {
        if i < split {
            lb.grow(&b.0);
        } else {
            rb.grow(&b.0);
        }
    }
    // In-place partition: bins below `split` to the left, centroid boxes on the way.
    let (mut lc, mut rc) = (Aabb::EMPTY, Aabb::EMPTY);
    let (mut i, mut j) = (0usize, prims.len());
    while i < j {
        let c = centre2(&prims[i]);
        if bin_of(c, k) < split {
            lc.grow(&Aabb::new(c, c));
            i += 1;
        } else {
            j -= 1;
            prims.swap(i, j);
            ids.swap(i, j);
            rc.grow(&Aabb::new(c, c));
        }
    }
    (i > 0 && i < prims.len()).then_some((i, ((lb, lc), (rb, rc))))
}

/// Emits the wide node for binary node `n2` (and, depth first, its descendants) into `out`;
/// returns its index. `depth` counts interior levels from the root (1 for the root).
fn collapse(nodes2: &[Node2], n2: usize, depth: usize, out: &mut Wide) -> u32 {
    out.depth = out.depth.max(depth);
    // A leaf root still gets an interior node above it, so every walk starts at a node.
    let mut kids: Vec<usize> = if nodes2[n2].count > 0 {
        vec![n2]
    } else {
        let f = nodes2[n2].first as usize;
        vec![f, f + 1]
    };
    // Open the interior child with the largest area until eight children (the SAH-greedy
    // collapse); the first of equal areas wins, so the result is deterministic.
    while kids.len() < WIDTH {
        let mut pick: Option<(usize, f32)> = None;
        for (i, &c) in kids.iter().enumerate() {
            if nodes2[c].count == 0 {
                let a = nodes2[c].bb.half_area();
                if pick.is_none_or(|p| a > p.1) {
                    pick = Some((i, a));
                }
            }
        }
        let Some((i, _)) = pick else { break };
        let f = nodes2[kids[i]].first as usize;
        kids[i] = f;
        kids.insert(i + 1, f + 1);
    }
    let index = out.nodes.len();
    out.nodes.push(Node8::EMPTY);
    for (slot, &c) in kids.iter().enumerate() {
        let node = &nodes2[c];
        let r = if node.count > 0 {
            out.leaves.push((node.first, node.count));
            LEAF | (out.leaves.len() - 1) as u32
        } else {
            collapse(nodes2, c, depth + 1, out)
        };
        let n = &mut out.nodes[index];
        for k in 0..3 {
            n.planes[2 * k][slot] = node.bb.min[k];
            n.planes[2 * k + 1][slot] = node.bb.max[k];
        }
        n.child[slot] = r;
    }
    debug_assert!(out.depth <= MAX_DEPTH);
    index as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boxes of a closed room's walls as two triangles each (a Cornell box's shell) and of
    /// two blocks standing in it: the architectural case where leaves of four mix walls.
    fn room() -> Vec<Aabb> {
        let b = |lo: [f32; 3], hi: [f32; 3]| Aabb::new(Vec3A::from(lo), Vec3A::from(hi));
        let mut out = Vec::new();
        for _ in 0..2 {
            out.push(b([0.0, 0.0, 0.0], [1.0, 0.0, 1.0])); // floor
            out.push(b([0.0, 1.0, 0.0], [1.0, 1.0, 1.0])); // ceiling
            out.push(b([0.0, 0.0, 1.0], [1.0, 1.0, 1.0])); // back
            out.push(b([0.0, 0.0, 0.0], [0.0, 1.0, 1.0])); // left
            out.push(b([1.0, 0.0, 0.0], [1.0, 1.0, 1.0])); // right
        }
        for (lo, hi) in [
            ([0.2, 0.0, 0.5], [0.45, 0.6, 0.75]),
            ([0.6, 0.0, 0.2], [0.8, 0.3, 0.4]),
        ] {
            // Each block's five visible faces, two triangles each.
            let (lo, hi): ([f32; 3], [f32; 3]) = (lo, hi);
            for k in 0..3 {
                for side in [lo[k], hi[k]] {
                    if k == 1 && side == lo[1] {
                        continue;
                    }
                    let (mut l, mut h) = (lo, hi);
                    l[k] = side;
                    h[k] = side;
                    out.push(b(l, h));
                    out.push(b(l, h));
                }
            }
        }
        out
    }

    fn leaf_sizes(w: &Wide) -> Vec<u32> {
        w.leaves.iter().map(|&(_, n)| n).collect()
    }

    #[test]
    fn small_trees_keep_the_cheaper_leaf_size() {
        let boxes = room();
        let ids: Vec<u32> = (0..boxes.len() as u32).collect();
        let fours = build_with(&boxes, &ids, 4);
        let twos = build_with(&boxes, &ids, 2);
        let kept = build(&boxes, &ids, 4);
        // In a room the leaves of two are single walls and block faces, far smaller boxes
        // than leaves of four, which mix walls: the estimate prefers them, and the build
        // keeps them.
        assert!(
            sah_cost(&twos) < sah_cost(&fours),
            "{} {}",
            sah_cost(&twos),
            sah_cost(&fours)
        );
        assert!(
            leaf_sizes(&kept).iter().all(|&n| n <= 2),
            "{:?}",
            leaf_sizes(&kept)
        );
        assert_eq!(sah_cost(&kept), sah_cost(&twos));
        // Every primitive is in exactly one leaf whichever tree is kept.
        let mut seen = kept.order.clone();
        seen.sort_unstable();
        assert_eq!(seen, ids);
    }

    #[test]
    fn the_kept_tree_is_never_the_dearer_one() {
        // Random soups of small triangles' boxes: whichever leaf size wins, the kept tree
        // costs no more than either build.
        for (seed, n) in [(1u64, 16usize), (2, 200), (3, 3000), (4, 5000)] {
            let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = || {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 40) as f32 / (1u64 << 24) as f32
            };
            let boxes: Vec<Aabb> = (0..n)
                .map(|_| {
                    let c = Vec3A::new(next(), next(), next()) * 10.0;
                    let e = Vec3A::new(next(), next(), next()) * 0.3;
                    Aabb::new(c - e, c + e)
                })
                .collect();
            let ids: Vec<u32> = (0..n as u32).collect();
            let kept = sah_cost(&build(&boxes, &ids, 4));
            let four = sah_cost(&build_with(&boxes, &ids, 4));
            let two = sah_cost(&build_with(&boxes, &ids, 2));
            if n <= SMALL_TREE {
                assert_eq!(kept, four.min(two), "n = {n}");
            } else {
                assert_eq!(kept, four, "n = {n}: large trees are built once");
            }
        }
    }

    #[test]
    fn bin_indices_floor_and_clamp_every_lane() {
        let last = Vec3A::splat(31.0);
        for (f, want) in [
            (Vec3A::new(0.0, 0.999_999, 1.0), [0, 0, 1]),
            (Vec3A::new(30.5, 31.0, 31.999), [30, 31, 31]),
            (Vec3A::new(1e30, f32::INFINITY, 7.25), [31, 31, 7]),
            (Vec3A::new(f32::NAN, 2.0, f32::NAN), [31, 2, 31]),
        ] {
            assert_eq!(&bin_indices(f, last)[..3], &want, "f = {f:?}");
        }
    }

    #[test]
    fn tiny_centroid_extents_still_give_every_primitive_once() {
        // Centres a few denormals apart: the bin scale overflows to infinity, and a centre on
        // the lower bound gives 0·∞ = NaN. Binning and partition must still agree.
        for spread in [1e-44f32, 1e-40, 1e-38] {
            let boxes: Vec<Aabb> = (0..64)
                .map(|i| {
                    let c = Vec3A::new(i as f32 * spread, (i % 3) as f32 * spread, 0.0);
                    Aabb::new(c, c)
                })
                .collect();
            let ids: Vec<u32> = (0..64).collect();
            let w = build(&boxes, &ids, 4);
            let mut seen = w.order.clone();
            seen.sort_unstable();
            assert_eq!(seen, ids, "spread {spread}");
            assert!(w.leaves.iter().all(|&(_, n)| (1..=4).contains(&n)));
        }
    }

    #[test]
    fn leaf_blocks_is_div_ceil() {
        for m in 1..=4u32 {
            for n in (0..5000u32).chain([u32::MAX - 4, u32::MAX - 1, u32::MAX]) {
                assert_eq!(leaf_blocks(n, m), n.div_ceil(m), "n = {n}, m = {m}");
            }
        }
    }
}
