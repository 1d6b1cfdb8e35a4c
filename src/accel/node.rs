//! Memory layout of the wide BVH and the per-ray constants its box test uses.
//!
//! Interior nodes are 8 wide with full-precision child boxes stored as structure of arrays
//! (one 32-byte row per plane, so one AVX load fetches a plane of all eight children); leaves
//! hold up to four triangles, their vertices also stored as structure of arrays so one 4-wide
//! pass tests them all. docs/accel.md gives the measured reasons (full precision beat 8-bit
//! quantised boxes on this CPU).

/// Children per interior node.
pub(crate) const WIDTH: usize = 8;

/// Triangles per leaf block.
pub(crate) const LEAF_TRIS: usize = 4;

/// Rays per packet of the packet queries (one AVX lane each).
pub(crate) const PACKET: usize = 8;

/// Bit set in a child reference that names a leaf (the low 31 bits index the tree's leaves).
pub(crate) const LEAF: u32 = 1 << 31;

/// Child reference of an unused slot (its box is empty, so no ray reaches it).
pub(crate) const EMPTY: u32 = u32::MAX;

/// Factor applied to the far end of every box test (folded into the exit planes' reciprocals,
/// and applied to the hit limit; also to the running hit distance when a stacked node is
/// popped). Each slab distance `(p − o)·(1/d)` is within 3 roundings (γ₃ ≈
/// 1.8e-7) of the exact one, so widening by 2⁻¹⁶ ≈ 1.5e-5 keeps the test conservative with a
/// wide margin, also against the rounding of the triangle test's own `t`: a ray aimed exactly
/// at a vertex lying on a box face is never culled, and a triangle at exactly the current
/// best `t` (a tie) is still visited, so the tie-break does not depend on traversal order.
pub(crate) const T_SCALE: f32 = 1.0 + 1.0 / 65536.0;

/// Most interior levels a tree may have. The builder switches to median splits past depth 64
/// of its binary tree, so a binary tree over fewer than 2³² primitives is at most 96 levels
/// deep, and collapsing never adds levels.
pub(crate) const MAX_DEPTH: usize = 96;

/// Traversal stack capacity: each interior node on the path leaves at most 7 siblings behind.
pub(crate) const STACK: usize = 7 * MAX_DEPTH + 8;

/// An interior node: eight child boxes and references, 256 bytes, cache-line aligned.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node8 {
    /// `planes[2·axis + 0][i]` is child `i`'s lower bound on `axis`, `planes[2·axis + 1][i]`
    /// its upper bound (same units as the vertices). Unused slots hold `+∞` / `−∞`.
    pub planes: [[f32; WIDTH]; 6],
    /// Per child: an index into the tree's nodes, [`LEAF`] `|` a leaf index, or [`EMPTY`].
    pub child: [u32; WIDTH],
}

impl Node8 {
    /// A node whose eight slots are all unused.
    pub(crate) const EMPTY: Node8 = Node8 {
        planes: [
            [f32::INFINITY; WIDTH],
            [f32::NEG_INFINITY; WIDTH],
            [f32::INFINITY; WIDTH],
            [f32::NEG_INFINITY; WIDTH],
            [f32::INFINITY; WIDTH],
            [f32::NEG_INFINITY; WIDTH],
        ],
        child: [EMPTY; WIDTH],
    };
}

/// Up to four triangles of one leaf, 160 bytes: `v[vertex][axis][lane]`. Unused lanes hold NaN
/// vertices, which every triangle test rejects.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct TriBlock {
    /// Vertex coordinates, the tree's space.
    pub v: [[[f32; LEAF_TRIS]; 3]; 3],
    /// Per lane, the triangle's index into its mesh (`u32::MAX` in unused lanes).
    pub prim: [u32; LEAF_TRIS],
}

/// A ray prepared for box tests (built once per ray and tree level, identically on every
/// instruction-set path).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NodeRay {
    /// Origin, the tree's space.
    pub o: [f32; 3],
    /// Per-axis reciprocal of the direction, `1/d` as IEEE computes it: `±∞` for a zero
    /// component (with the zero's sign). A slab distance `(p − o)·(±∞)` is NaN exactly when
    /// the origin lies on that plane of a box the ray runs parallel to; the `maxps`/`minps`
    /// rule then drops that term from the entry/exit distance (a NaN operand yields the other
    /// one, and the final operands, 0 and the hit limit, are never NaN), which only makes the
    /// test more inclusive: such rays, e.g. along a wall's edge, are never culled.
    pub inv: [f32; 3],
    /// `inv · T_SCALE`, used for the exit planes: widening the exit distances by folding the
    /// margin into the reciprocal (once per ray) instead of multiplying every node's result
    /// keeps one operation off each node test's dependency chain.
    pub inv_far: [f32; 3],
    /// Per axis, the row of [`Node8::planes`] the ray enters through, then the one it leaves
    /// through (octant-selected, so no per-child min/max of the two slab ends is needed).
    pub near: [usize; 3],
    /// See `near`.
    pub far: [usize; 3],
}

impl NodeRay {
    /// `d` must be finite and not zero; callers scale it by a power of two so its largest
    /// component magnitude is in `[1, 2)`.
    #[inline(always)]
    pub(crate) fn new(o: [f32; 3], d: [f32; 3]) -> NodeRay {
        let inv = [1.0 / d[0], 1.0 / d[1], 1.0 / d[2]];
        let mut near = [0; 3];
        let mut far = [0; 3];
        for k in 0..3 {
            // The sign bit, so that −0.0 (reciprocal −∞) enters through the upper plane.
            let neg = inv[k].is_sign_negative() as usize;
            near[k] = 2 * k + neg;
            far[k] = 2 * k + 1 - neg;
        }
        let inv_far = [inv[0] * T_SCALE, inv[1] * T_SCALE, inv[2] * T_SCALE];
        NodeRay {
            o,
            inv,
            inv_far,
            near,
            far,
        }
    }
}

/// Largest `f32` below `t` for positive `t` (`f32::MAX` for `+∞`, `0` for the smallest
/// subnormal): turns the open end of `(0, t_max)` into the inclusive limit the walk keeps, so
/// a later hit at exactly the current best `t` can still win the tie-break.
#[inline(always)]
pub(crate) fn below(t: f32) -> f32 {
    if t > 0.0 {
        f32::from_bits(t.to_bits() - 1)
    } else {
        0.0
    }
}
