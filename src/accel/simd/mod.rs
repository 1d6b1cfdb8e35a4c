//! The per-instruction-set kernels: the 8-wide box test of a node and the 4-wide triangle test
//! of a leaf. Every kernel performs the same IEEE-754 operations in the same order on each lane
//! (no FMA anywhere, `max`/`min` with the operand order and NaN/±0 rule of SSE's `maxps`/
//! `minps`: `max(a, b) = if a > b { a } else { b }`), so all paths return the same bits.

pub(crate) mod portable;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use super::node::{Node8, NodeRay, TriBlock, LEAF_TRIS, WIDTH};
use super::triangle::TriRay;

/// Raw lanes of a leaf test: `t` and the unclamped barycentrics, valid where the returned mask
/// has a bit.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LeafOut {
    /// Ray parameter per lane, the tree's units.
    pub t: [f32; LEAF_TRIS],
    /// Weight of the second vertex per lane.
    pub b1: [f32; LEAF_TRIS],
    /// Weight of the third vertex per lane.
    pub b2: [f32; LEAF_TRIS],
}

/// One instruction-set path.
///
/// # Safety
/// The methods may use instructions the running CPU lacks; callers only reach them through the
/// `#[target_feature]` entry points of `traverse`, behind run-time detection.
pub(crate) trait Kernel {
    /// Ray constants in the kernel's registers.
    type NRay: Copy;
    /// Triangle-test constants in the kernel's registers.
    type TRay: Copy;

    /// Prepares `r` for [`Kernel::node`].
    unsafe fn prep_node(r: &NodeRay) -> Self::NRay;

    /// Prepares `r` for [`Kernel::leaf`].
    unsafe fn prep_tri(r: &TriRay) -> Self::TRay;

    /// Box test of the eight children for `t` in `[0, t_lim·T_SCALE]`: returns the mask of
    /// children met and, per child, its sort key (entry distance bits with the low three bits
    /// replaced by the slot, so keys are unique and order children front to back; the key
    /// read back as a float never exceeds the entry distance).
    unsafe fn node(n: &Node8, r: &Self::NRay, t_lim: f32, keys: &mut [u32; WIDTH]) -> u32;

    /// Watertight test of a block's four triangles for `t` in `(0, t_lim]`: the mask of lanes
    /// hit with their raw values in `out`, or `None` when some edge function is exactly zero
    /// (the caller then runs the scalar reference, with its `f64` recomputation, on the block).
    unsafe fn leaf(b: &TriBlock, r: &Self::TRay, t_lim: f32, out: &mut LeafOut) -> Option<u32>;
}

/// SSE's `maxps` rule: the second operand unless the first is greater (NaN or equal zeros give
/// the second).
#[inline(always)]
pub(crate) fn max_ps(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

/// SSE's `minps` rule: the second operand unless the first is smaller.
#[inline(always)]
pub(crate) fn min_ps(a: f32, b: f32) -> f32 {
    if a < b {
        a
    } else {
        b
    }
}
