//! Building obvhs compressed wide BVHs (CWBVH, 8-wide, 80-byte nodes) and walking them with our
//! own traversal loop.
//!
//! obvhs's PLOC builder and BVH2→CWBVH converter are used as they are. The walk is a port of
//! obvhs's `traverse!` macro (Ylitie et al. 2017 ordering) with three changes that matter for
//! correctness rather than speed:
//! - the ray/box test is conservative: every slab distance is widened by a bound on its own
//!   rounding error (and on the node's quantisation rounding), so a ray aimed exactly at a
//!   vertex lying on a box face is never culled — obvhs's test can lose such rays, and its
//!   fixed `t_min = 1e-4` culls boxes close to the origin;
//! - the near end is 0, matching the `(0, t_max)` interval of the public API;
//! - the stack spills to the heap instead of panicking when a degenerate tree is deeper than
//!   the inline capacity.

use glam::{Vec3, Vec3A, Vec4};
use obvhs::{
    aabb::Aabb,
    bvh2::reinsertion::ReinsertionOptimizer,
    cwbvh::{bvh2_to_cwbvh::bvh2_to_cwbvh, node::CwBvhNode, CwBvh},
    ploc::{PlocBuilder, PlocSearchDistance, SortPrecision},
};

/// Builds a CWBVH over `boxes`; `ids[i]` is the caller's id of `boxes[i]` and ends up in
/// `primitive_indices`. `leaf_size` is the most primitives a leaf may hold (obvhs allows 1..=3).
///
/// Single-threaded and free of randomness, so the tree depends only on the input.
pub(crate) fn build_cwbvh(boxes: &[Aabb], ids: Vec<u32>, leaf_size: u32) -> CwBvh {
    // obvhs's "medium" preset minus the BVH2-only knobs: PLOC with search radius 14 (radius 1
    // below depth 3), 5 % reinsertion. See docs/accel.md for the measured trade-off.
    let mut bvh2 = PlocBuilder::with_capacity(boxes.len()).build(
        PlocSearchDistance::Medium,
        boxes,
        ids,
        SortPrecision::U64,
        3,
    );
    ReinsertionOptimizer::default().run(&mut bvh2, 0.05, None);
    bvh2_to_cwbvh(&bvh2, leaf_size.clamp(1, 3), true, false)
}

/// Relative bound used to widen slab distances. The slab distance `q·(e/d) + (p−o)/d` is made of
/// four rounded operations (γ₄ ≈ 4.8e-7 of the magnitudes involved) and the quantised plane
/// `p + q·e` may sit half an ulp of the node extent inside the true box; 2e-6 covers both with
/// a factor of two to spare.
const SLAB_ERR: f32 = 2e-6;

/// Smallest direction component magnitude, relative to the largest (which callers scale into
/// `[1, 2)`), that gets a true reciprocal; smaller ones are clamped so reciprocals stay finite.
const MIN_DIR: f32 = 1.0 / (1u64 << 60) as f32;

/// A ray prepared for box tests.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeRay {
    /// Origin.
    pub o: Vec3A,
    /// Per-axis reciprocal of the direction (finite, sign of the direction).
    pub inv: Vec3A,
    /// Far end, same units as the traversal's `t`.
    pub t_max: f32,
    /// Octant code for obvhs's child ordering (see `ray_get_octant_inv4` in obvhs).
    pub oct_inv4: u32,
}

impl NodeRay {
    /// `d` must be finite with its largest component magnitude in `[1, 2)` (callers scale it by
    /// a power of two), so the clamp at [`MIN_DIR`] is a relative one.
    #[inline(always)]
    pub(crate) fn new(o: Vec3, d: Vec3, t_max: f32) -> NodeRay {
        let rcp = |c: f32| {
            if c < 0.0 {
                -1.0 / (-c).max(MIN_DIR)
            } else {
                1.0 / c.max(MIN_DIR)
            }
        };
        let inv = Vec3A::new(rcp(d.x), rcp(d.y), rcp(d.z));
        // The octant must agree with the reciprocal's sign (a −0.0 component counts as +).
        let oct_inv4 = (if inv.x < 0.0 { 0 } else { 0x0404_0404 })
            | (if inv.y < 0.0 { 0 } else { 0x0202_0202 })
            | (if inv.z < 0.0 { 0 } else { 0x0101_0101 });
        NodeRay {
            o: Vec3A::from(o),
            inv,
            t_max,
            oct_inv4,
        }
    }
}

/// Four quantised child planes as floats.
#[inline(always)]
fn quad(q: &[u8; 8], half: usize) -> Vec4 {
    let i = half * 4;
    Vec4::new(
        q[i] as f32,
        q[i + 1] as f32,
        q[i + 2] as f32,
        q[i + 3] as f32,
    )
}

/// Ray against the eight children of `node`; returns obvhs's hit mask (internal children in
/// the top byte by traversal priority, leaf primitives' unary counts in the low 24 bits).
#[inline(always)]
fn intersect_node(node: &CwBvhNode, ray: &NodeRay) -> u32 {
    let e = node.compute_extent();
    let a = e * ray.inv;
    let b = (Vec3A::from(node.p) - ray.o) * ray.inv;
    // Error bound of each axis' slab distances (see SLAB_ERR).
    let err = (b.abs() + a.abs() * 255.0) * SLAB_ERR;
    let near_b = b - err;
    let far_b = b + err;
    let (child_bits8, bit_index8) = node.get_child_and_index_bits(ray.oct_inv4);
    let neg = ray.inv.cmplt(Vec3A::ZERO);
    let (nx, ny, nz) = (neg.test(0), neg.test(1), neg.test(2));
    let mut hit_mask = 0u32;
    for half in 0..2 {
        let (lo, hi) = (quad(&node.child_min_x, half), quad(&node.child_max_x, half));
        let (qn, qf) = if nx { (hi, lo) } else { (lo, hi) };
        let tn_x = qn * a.x + Vec4::splat(near_b.x);
        let tf_x = qf * a.x + Vec4::splat(far_b.x);
        let (lo, hi) = (quad(&node.child_min_y, half), quad(&node.child_max_y, half));
        let (qn, qf) = if ny { (hi, lo) } else { (lo, hi) };
        let tn_y = qn * a.y + Vec4::splat(near_b.y);
        let tf_y = qf * a.y + Vec4::splat(far_b.y);
        let (lo, hi) = (quad(&node.child_min_z, half), quad(&node.child_max_z, half));
        let (qn, qf) = if nz { (hi, lo) } else { (lo, hi) };
        let tn_z = qn * a.z + Vec4::splat(near_b.z);
        let tf_z = qf * a.z + Vec4::splat(far_b.z);
        let t_near = tn_x.max(tn_y).max(tn_z).max(Vec4::ZERO);
        let t_far = tf_x.min(tf_y).min(tf_z).min(Vec4::splat(ray.t_max));
        let mask = t_near.cmple(t_far).bitmask();
        for j in 0..4 {
            if mask & (1 << j) != 0 {
                let slot = half * 4 + j;
                let child_bits = ((child_bits8 >> (slot * 8)) as u32) & 0xff;
                let bit_index = ((bit_index8 >> (slot * 8)) as u32) & 0xff;
                hit_mask |= child_bits << bit_index;
            }
        }
    }
    hit_mask
}

/// What a leaf callback tells the walk.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Flow {
    /// Keep going.
    Continue,
    /// Stop the whole walk (any-hit found).
    Stop,
}

/// Inline capacity of the traversal stack. CWBVH trees of sane inputs are far shallower (a
/// 1 M-triangle tree is ~10 levels); deeper, degenerate trees spill to a heap vector.
const STACK_INLINE: usize = 48;

/// Traversal stack of (child base, hit mask) groups.
struct Stack {
    inline: [(u32, u32); STACK_INLINE],
    len: usize,
    spill: Vec<(u32, u32)>,
}

impl Stack {
    #[inline(always)]
    fn new() -> Stack {
        Stack {
            inline: [(0, 0); STACK_INLINE],
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline(always)]
    fn push(&mut self, v: (u32, u32)) {
        if self.len < STACK_INLINE {
            self.inline[self.len] = v;
            self.len += 1;
        } else {
            self.spill.push(v);
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(u32, u32)> {
        if let Some(v) = self.spill.pop() {
            return Some(v);
        }
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        Some(self.inline[self.len])
    }
}

/// Walks `bvh` front to back, calling `leaf(slot, ray)` for every primitive slot (an index into
/// `primitive_indices`) whose leaf box the ray meets. `leaf` may lower `ray.t_max` to cull the
/// rest of the walk, and stop it.
#[inline(always)]
pub(crate) fn traverse<F: FnMut(u32, &mut NodeRay) -> Flow>(
    bvh: &CwBvh,
    ray: &mut NodeRay,
    mut leaf: F,
) {
    if bvh.nodes.is_empty() {
        return;
    }
    let mut stack = Stack::new();
    // A virtual group whose only member is the root, as in obvhs.
    let mut current: (u32, u32) = (0, 0x8000_0000);
    let mut prims: (u32, u32) = (0, 0);
    loop {
        while prims.1 != 0 {
            let local = 31 - prims.1.leading_zeros();
            prims.1 &= !(1u32 << local);
            if leaf(prims.0 + local, ray) == Flow::Stop {
                return;
            }
        }
        if current.1 & 0xff00_0000 != 0 {
            let hits = current.1;
            let offset = 31 - hits.leading_zeros();
            current.1 &= !(1u32 << offset);
            if current.1 & 0xff00_0000 != 0 {
                stack.push(current);
            }
            let slot = (offset - 24) ^ (ray.oct_inv4 & 0xff);
            let relative = (hits & !(u32::MAX << slot)).count_ones();
            let Some(node) = bvh.nodes.get((current.0 + relative) as usize) else {
                // Unreachable for trees obvhs built; a corrupt index ends the walk, not the run.
                return;
            };
            let hit_mask = intersect_node(node, ray);
            current = (
                node.child_base_idx,
                (hit_mask & 0xff00_0000) | node.imask as u32,
            );
            prims = (node.primitive_base_idx, hit_mask & 0x00ff_ffff);
        } else {
            current = (0, 0);
        }
        if prims.1 == 0 && current.1 & 0xff00_0000 == 0 {
            match stack.pop() {
                Some(group) => current = group,
                None => return,
            }
        }
    }
}

/// Bytes held by a CWBVH: nodes and the primitive index list.
pub(crate) fn cwbvh_bytes(bvh: &CwBvh) -> usize {
    bvh.nodes.len() * std::mem::size_of::<CwBvhNode>()
        + bvh.primitive_indices.len() * std::mem::size_of::<u32>()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every box of a random set that a ray meets (exact slab test in f64) is reported by the
    /// walk; boxes the ray misses by a clear margin are not.
    #[test]
    fn walk_finds_exactly_the_boxes_a_ray_meets() {
        let mut s = 0x1234_5678_u64;
        let mut rnd = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32) / (1u64 << 24) as f32
        };
        let boxes: Vec<Aabb> = (0..500)
            .map(|_| {
                let c = Vec3A::new(rnd(), rnd(), rnd()) * 10.0;
                let h = Vec3A::new(rnd(), rnd(), rnd()) * 0.3;
                Aabb::new(c - h, c + h)
            })
            .collect();
        let bvh = build_cwbvh(&boxes, (0..boxes.len() as u32).collect(), 1);
        for _ in 0..300 {
            let o = Vec3::new(rnd(), rnd(), rnd()) * 14.0 - 2.0;
            let d = Vec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5);
            let scale = 1.0 / d.abs().max_element();
            let d = d * scale;
            let mut ray = NodeRay::new(o, d, f32::INFINITY);
            let mut seen = vec![false; boxes.len()];
            traverse(&bvh, &mut ray, |slot, _| {
                seen[bvh.primitive_indices[slot as usize] as usize] = true;
                Flow::Continue
            });
            for (i, b) in boxes.iter().enumerate() {
                // Exact slab test in f64, and the same test on a box shrunk / grown by 1e-3.
                let meets = |pad: f64| {
                    let (mut t0, mut t1) = (0.0f64, f64::INFINITY);
                    for k in 0..3 {
                        let (lo, hi) = (b.min[k] as f64 - pad, b.max[k] as f64 + pad);
                        let (oo, dd) = (o[k] as f64, d[k] as f64);
                        if dd == 0.0 {
                            if oo < lo || oo > hi {
                                return false;
                            }
                            continue;
                        }
                        let (a, c) = ((lo - oo) / dd, (hi - oo) / dd);
                        t0 = t0.max(a.min(c));
                        t1 = t1.min(a.max(c));
                    }
                    t0 <= t1
                };
                if meets(-1e-3) {
                    assert!(seen[i], "box {i} met by the ray but not visited");
                }
                // Quantisation may enlarge a child box by up to 1/255 of its parent's extent,
                // so only check clear misses.
                if !meets(0.2) {
                    assert!(!seen[i], "box {i} far off the ray but visited");
                }
            }
        }
    }

    #[test]
    fn stack_spills_and_pops_in_order() {
        let mut s = Stack::new();
        for i in 0..(STACK_INLINE as u32 + 10) {
            s.push((i, i));
        }
        for i in (0..(STACK_INLINE as u32 + 10)).rev() {
            assert_eq!(s.pop(), Some((i, i)));
        }
        assert_eq!(s.pop(), None);
    }
}
