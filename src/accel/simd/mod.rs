//! The per-instruction-set kernels: the 8-wide box test of a node and the 4-wide triangle test
//! of a leaf. Every kernel performs the same IEEE-754 operations in the same order on each lane
//! (no FMA anywhere, `max`/`min` with the operand order and NaN/±0 rule of SSE's `maxps`/
//! `minps`: `max(a, b) = if a > b { a } else { b }`), so all paths return the same bits.

pub(crate) mod portable;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use super::frustum::Frustum;
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

/// Up to [`PACKET`] rays prepared for box tests, structure of arrays: lane `i` holds exactly
/// the constants [`NodeRay::new`] computes for ray `i`, so a packet test performs, per lane,
/// the operations of the single-ray test on the same values. A test takes the rays of one
/// octant (the plane rows `near` / `far` are theirs); the other lanes hold other rays (or the
/// initial values) and every result of theirs is masked off.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PacketRay {
    /// Origins per axis, the tree's space.
    pub o: [[f32; PACKET]; 3],
    /// Reciprocal directions per axis (see [`NodeRay::inv`]).
    pub inv: [[f32; PACKET]; 3],
    /// `inv · T_SCALE` per axis (see [`NodeRay::inv_far`]).
    pub inv_far: [[f32; PACKET]; 3],
    /// Entry plane row per axis, shared by every ray a test takes (one octant).
    pub near: [usize; 3],
    /// Exit plane row per axis.
    pub far: [usize; 3],
    /// Triangle-test constants per lane in that ray's own shear frame: origin along
    /// `(kx, ky, kz)`.
    pub tri_o: [[f32; PACKET]; 3],
    /// Shear constants `(sx, sy, sz)` per lane.
    pub tri_s: [[f32; PACKET]; 3],
    /// Per lane: octant bits (bit `k`: negative direction on axis `k`) and `kz << 3`, the
    /// grouping key of a packet test.
    pub frame: [u8; PACKET],
}

impl PacketRay {
    /// Lanes of no ray yet: finite values, frame 0.
    pub(crate) const EMPTY: PacketRay = PacketRay {
        o: [[0.0; PACKET]; 3],
        inv: [[1.0; PACKET]; 3],
        inv_far: [[1.0; PACKET]; 3],
        near: [0, 2, 4],
        far: [1, 3, 5],
        tri_o: [[0.0; PACKET]; 3],
        tri_s: [[0.0; PACKET]; 3],
        frame: [0; PACKET],
    };

    /// Writes ray `i`'s box-test constants `r` and triangle-test constants `t` into lane `i`.
    #[inline(always)]
    pub(crate) fn set(&mut self, i: usize, r: &NodeRay, t: &TriRay) {
        for k in 0..3 {
            self.o[k][i] = r.o[k];
            self.inv[k][i] = r.inv[k];
            self.inv_far[k][i] = r.inv_far[k];
        }
        let o = t.o.to_array();
        self.tri_o[0][i] = o[t.kx];
        self.tri_o[1][i] = o[t.ky];
        self.tri_o[2][i] = o[t.kz];
        self.tri_s[0][i] = t.sx;
        self.tri_s[1][i] = t.sy;
        self.tri_s[2][i] = t.sz;
        self.frame[i] =
            ((r.near[0] & 1) | (r.near[1] & 1) << 1 | (r.near[2] & 1) << 2 | t.kz << 3) as u8;
    }

    /// The rays of `rays` (non-empty) in the octant and shear frame of the lowest one, with
    /// the plane rows set to that octant's (`r` is that ray's box-test constants): one
    /// packet test's worth.
    #[inline(always)]
    pub(crate) fn group(&mut self, rays: u32, r: &NodeRay) -> u32 {
        let f = self.frame[rays.trailing_zeros() as usize];
        self.near = r.near;
        self.far = r.far;
        // Bytes equal to f become zero; the lanes of the zero bytes are the group.
        let x = u64::from_ne_bytes(self.frame) ^ (f as u64).wrapping_mul(0x0101_0101_0101_0101);
        !nonzero_bytes(x) & rays
    }
}

/// Bit `c` set where byte `c` of `x` is not zero.
#[inline(always)]
pub(crate) fn nonzero_bytes(x: u64) -> u32 {
    let b = x | (x >> 4);
    let b = b | (b >> 2);
    let b = (b | (b >> 1)) & 0x0101_0101_0101_0101;
    // Gathers each byte's low bit into the top byte (bit c from byte c).
    (b.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
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

    /// Prepares the triangle-test lanes of `p` for [`PacketKernel::leaf_packet`] in the shear
    /// frame of `first` (the rays a test takes share it); `None` when the kernel has no packet
    /// leaf test (the walk then tests leaves ray by ray).
    unsafe fn prep_tri_packet(p: &PacketRay, first: &TriRay) -> Option<Self::TPacket>;

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

    /// Bundle bounds in the kernel's registers.
    type FRay: Copy;

    /// [`Frustum::of`] the rays `rays` of `p`, as the kernel computes it fastest (the same
    /// values: minima and maxima are exact).
    #[inline(always)]
    unsafe fn frustum(p: &PacketRay, rays: u32) -> Option<Frustum> {
        Frustum::of(p, rays)
    }

    /// Prepares `f` for [`PacketKernel::node_frustum`].
    unsafe fn prep_frustum(f: &Frustum) -> Self::FRay;

    /// The box test of the eight children against the bounds `f` for `t` in `[0, lim]`
    /// (`lim` already widened by `T_SCALE`): the mask of children whose box some ray of the
    /// bounds may meet, and per child the least entry distance of the bounds (a lower bound
    /// of each ray's own). Per child and axis: `min(fl(x·r_lo), fl(x·r_hi))` with
    /// `x = fl(p_near − o_near)` for the entry, the `max` of the same with the exit plane,
    /// `o_far` and the exit reciprocals, combined as the single-ray test combines its slabs
    /// (the operands are never NaN: the bounds' reciprocals are finite).
    unsafe fn node_frustum(n: &Node8, f: &Self::FRay, lim: f32, near: &mut [f32; WIDTH]) -> u32;
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
