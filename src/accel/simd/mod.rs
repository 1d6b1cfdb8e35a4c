//! The per-instruction-set kernels: the 8-wide box test of a node and the 4-wide triangle test
//! of a leaf. Every kernel performs the same IEEE-754 operations in the same order on each lane
//! (no FMA anywhere, `max`/`min` with the operand order and NaN/±0 rule of SSE's `maxps`/
//! `minps`: `max(a, b) = if a > b { a } else { b }`), so all paths return the same bits.

pub(crate) mod portable;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use super::node::{Node8, NodeRay, TriBlock, LEAF_TRIS, PACKET, WIDTH};
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

/// Up to [`PACKET`] rays of one octant prepared for box tests, structure of arrays: lane `i`
/// holds exactly the constants [`NodeRay::new`] computes for ray `i`, so a packet test
/// performs, per lane, the operations of the single-ray test on the same values. Lanes of no
/// ray hold a copy of a real ray (their results are masked off).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PacketRay {
    /// Origins per axis, the tree's space.
    pub o: [[f32; PACKET]; 3],
    /// Reciprocal directions per axis (see [`NodeRay::inv`]).
    pub inv: [[f32; PACKET]; 3],
    /// `inv · T_SCALE` per axis (see [`NodeRay::inv_far`]).
    pub inv_far: [[f32; PACKET]; 3],
    /// Entry plane row per axis, shared by every ray of the packet (one octant).
    pub near: [usize; 3],
    /// Exit plane row per axis.
    pub far: [usize; 3],
}

impl PacketRay {
    /// The packet of the rays `rays` (a non-empty mask over `r`) of `r`, which must all share
    /// the octant of the lowest one.
    #[inline(always)]
    pub(crate) fn new(r: &[NodeRay; PACKET], rays: u32) -> PacketRay {
        let first = &r[rays.trailing_zeros() as usize];
        let mut p = PacketRay {
            o: [[0.0; PACKET]; 3],
            inv: [[0.0; PACKET]; 3],
            inv_far: [[0.0; PACKET]; 3],
            near: first.near,
            far: first.far,
        };
        for (i, ri) in r.iter().enumerate() {
            let src = if rays & (1 << i) != 0 { ri } else { first };
            for k in 0..3 {
                p.o[k][i] = src.o[k];
                p.inv[k][i] = src.inv[k];
                p.inv_far[k][i] = src.inv_far[k];
            }
        }
        p
    }
}

/// Per child of a node, the rays of a packet that meet it: byte `c` of the word is child `c`'s
/// ray mask.
pub(crate) type ChildRays = u64;

/// A packet path: the box test of one node against up to [`PACKET`] rays at once, lane by
/// lane the same operations as [`Kernel::node`] (so each ray's result is the bit it would
/// get alone).
///
/// # Safety
/// As [`Kernel`].
pub(crate) trait PacketKernel: Kernel {
    /// Packet constants in the kernel's registers.
    type PRay: Copy;

    /// Prepares `p` for [`PacketKernel::node_packet`].
    unsafe fn prep_packet(p: &PacketRay) -> Self::PRay;

    /// Tests the eight children against the rays of `active`, ray `i` for `t` in
    /// `[0, lim[i]]` (`lim` already widened by `T_SCALE`); writes each child's entry distance
    /// per ray into `near[child][ray]` (meaningful where the ray meets the child).
    unsafe fn node_packet(
        n: &Node8,
        p: &Self::PRay,
        lim: &[f32; PACKET],
        active: u32,
        near: &mut [[f32; PACKET]; WIDTH],
    ) -> ChildRays;

    /// The rays whose entry distance `near[i]` is within `lim[i]`.
    unsafe fn within(near: &[f32; PACKET], lim: &[f32; PACKET]) -> u32;

    /// Triangle-test constants of a packet whose rays share one shear frame (`kx, ky, kz`),
    /// or `()` where the kernel has no packet leaf test.
    type TPacket: Copy;

    /// Prepares the rays `rays` of `r` (all of the frame of the lowest one) for
    /// [`PacketKernel::leaf_packet`]; `None` when the kernel has no packet leaf test (the
    /// walk then tests leaves ray by ray).
    unsafe fn prep_tri_packet(r: &[TriRay; PACKET], rays: u32) -> Option<Self::TPacket>;

    /// The watertight test of each of a block's triangles against the rays of `rays`, lane
    /// by lane the operations of `TriRay::intersect`, ray `i` for `t` in `(0, lim[i]]`.
    /// Returns per triangle (byte `l`) the rays that hit it, values in `out`, and per
    /// triangle the rays for which an edge function is exactly zero: those pairs are left to
    /// the scalar reference (its `f64` recomputation decides them).
    unsafe fn leaf_packet(
        b: &TriBlock,
        p: &Self::TPacket,
        lim: &[f32; PACKET],
        rays: u32,
        out: &mut PacketLeafOut,
    ) -> (u32, u32);
}

/// Raw results of a packet leaf test: `[triangle][ray]`, as [`LeafOut`] per ray.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PacketLeafOut {
    /// Ray parameter, the tree's units.
    pub t: [[f32; PACKET]; LEAF_TRIS],
    /// Weight of the second vertex.
    pub b1: [[f32; PACKET]; LEAF_TRIS],
    /// Weight of the third vertex.
    pub b2: [[f32; PACKET]; LEAF_TRIS],
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
