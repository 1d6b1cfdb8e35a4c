//! Bundle queries: rays that nearly coincide (the camera samples of one pixel) walked through
//! the trees as one frustum (docs/accel.md, "Bundles").
//!
//! The packet walk tests every child against every ray (one SIMD lane per ray), which for
//! rays a few hundredths of a pixel apart repeats one ray's work eight times. A bundle walk
//! tests each node's eight children once, against bounds of the rays: per axis the origin
//! and reciprocal direction that give the least entry distance and the greatest exit
//! distance. IEEE subtraction and multiplication are monotone in each operand (with the
//! operands' signs fixed, as they are within one octant), so each ray's rounded slab
//! distance `fl(fl(p − o)·r)` lies between the bounds' values: a child one of the rays meets
//! is always entered. Leaves are tested ray by ray (or by the packet leaf test) with the
//! rays' own constants and limits, and hits are accepted by the single-ray rules, so every
//! ray visits at least the leaves its own walk would and gets the bits its single-ray query
//! returns; visiting a leaf a ray's own box tests would have culled only tests triangles
//! that cannot beat the closest hit under the tie-break, or that are that hit.

use std::mem::MaybeUninit;

use super::node::{Node8, LEAF, PACKET, STACK, T_SCALE, WIDTH};
use super::simd::{PacketKernel, PacketRay};

/// Bounds of a group of rays of one octant, for the box test of [`walk_frustum`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frustum {
    /// Per axis, the origin coordinate that gives the least entry-plane distance: the
    /// greatest origin where the rays run towards positive coordinates, else the least.
    pub o_near: [f32; 3],
    /// Per axis, the origin coordinate that gives the greatest exit-plane distance.
    pub o_far: [f32; 3],
    /// Per axis, the least and greatest reciprocal direction of the rays.
    pub inv: [[f32; 2]; 3],
    /// Per axis, the least and greatest `inv · T_SCALE` (the exit planes' reciprocals).
    pub inv_far: [[f32; 2]; 3],
    /// Entry plane row per axis (the octant's, as [`PacketRay::near`]).
    pub near: [usize; 3],
    /// Exit plane row per axis.
    pub far: [usize; 3],
}

impl Frustum {
    /// The bounds of the rays `rays` (non-empty, one octant: a [`PacketRay::group`]) of `p`,
    /// or `None` where some reciprocal is infinite (a direction component of zero or
    /// subnormal): there the single-ray test's `0·∞` rule is not monotone, and the packet
    /// walk takes the rays.
    #[inline(always)]
    pub(crate) fn of(p: &PacketRay, rays: u32) -> Option<Frustum> {
        let first = rays.trailing_zeros() as usize;
        let lane = |a: &[[f32; PACKET]; 3]| [a[0][first], a[1][first], a[2][first]];
        let (mut o_lo, mut inv_lo, mut invf_lo) = (lane(&p.o), lane(&p.inv), lane(&p.inv_far));
        let (mut o_hi, mut inv_hi, mut invf_hi) = (o_lo, inv_lo, invf_lo);
        if inv_lo.iter().chain(&invf_lo).any(|r| r.is_nan()) {
            return None;
        }
        let mut m = rays & (rays - 1);
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            for k in 0..3 {
                // Plain comparisons: origins are finite (checked by the query).
                let (o, r, rf) = (p.o[k][i], p.inv[k][i], p.inv_far[k][i]);
                if r.is_nan() || rf.is_nan() {
                    // A direction with a NaN component: it would drop out of the bounds.
                    return None;
                }
                o_lo[k] = if o < o_lo[k] { o } else { o_lo[k] };
                o_hi[k] = if o > o_hi[k] { o } else { o_hi[k] };
                inv_lo[k] = if r < inv_lo[k] { r } else { inv_lo[k] };
                inv_hi[k] = if r > inv_hi[k] { r } else { inv_hi[k] };
                invf_lo[k] = if rf < invf_lo[k] { rf } else { invf_lo[k] };
                invf_hi[k] = if rf > invf_hi[k] { rf } else { invf_hi[k] };
            }
        }
        Frustum::from_extremes(p, [o_lo, inv_lo, invf_lo], [o_hi, inv_hi, invf_hi])
    }

    /// The bounds from the rays' least values `lo` and greatest `hi` (each `[origin,
    /// reciprocal, exit reciprocal]` per axis) in the octant of `p`; `None` where a
    /// reciprocal is infinite.
    #[inline(always)]
    pub(crate) fn from_extremes(
        p: &PacketRay,
        lo: [[f32; 3]; 3],
        hi: [[f32; 3]; 3],
    ) -> Option<Frustum> {
        // One sign per axis within an octant, so the extremes are finite exactly when every
        // ray's reciprocal is.
        let finite = (0..3).all(|k| {
            lo[1][k].is_finite()
                && hi[1][k].is_finite()
                && lo[2][k].is_finite()
                && hi[2][k].is_finite()
        });
        if !finite {
            return None;
        }
        let mut f = Frustum {
            o_near: [0.0; 3],
            o_far: [0.0; 3],
            inv: [0, 1, 2].map(|k| [lo[1][k], hi[1][k]]),
            inv_far: [0, 1, 2].map(|k| [lo[2][k], hi[2][k]]),
            near: p.near,
            far: p.far,
        };
        for k in 0..3 {
            // Entry row even: the lower plane, positive reciprocals, so the distance
            // `(p − o)·r` falls as `o` grows.
            let positive = p.near[k] % 2 == 0;
            f.o_near[k] = if positive { hi[0][k] } else { lo[0][k] };
            f.o_far[k] = if positive { lo[0][k] } else { hi[0][k] };
        }
        Some(f)
    }
}

/// A stack entry of the bundle walk: the node and its sort key (the least entry distance
/// of the bounds).
type Entry = (u32, f32);

/// The greatest of the limits of `rays`, widened by `T_SCALE` as the box tests widen each.
#[inline(always)]
fn widest(lims: &[f32; PACKET], rays: u32) -> f32 {
    let mut w = f32::NEG_INFINITY;
    let mut m = rays;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        w = w.max(lims[i] * T_SCALE);
    }
    w
}

/// Walks `nodes` from the root with the rays `rays` bounded by `f`, each ray within its
/// inclusive limit `lims[i]`, which `v` may lower; every leaf whose box the bounds meet
/// within the greatest limit is visited with every ray `v` has not finished. Unless `ANY`,
/// children are pushed front to back by the bounds' entry distance. Returns the rays `v`
/// finished.
///
/// # Safety
/// `K`'s instructions must be available.
#[inline(always)]
pub(crate) unsafe fn walk_frustum<K: PacketKernel, const ANY: bool, V: super::packet::PVisit>(
    nodes: &[Node8],
    f: &K::FRay,
    lims: &mut [f32; PACKET],
    rays: u32,
    v: &mut V,
) -> u32 {
    // Uninitialised on purpose, as in the single-ray walk: `sp` only counts written slots.
    let mut stack = [MaybeUninit::<Entry>::uninit(); STACK];
    let mut sp = 0usize;
    let mut live = rays;
    let mut wide = widest(lims, live);
    let mut near = [0.0f32; WIDTH];
    let mut cur = 0u32;
    loop {
        if cur & LEAF == 0 {
            let Some(n) = nodes.get(cur as usize) else {
                return rays & !live;
            };
            let mut met = K::node_frustum(n, f, wide, &mut near);
            if met & met.wrapping_sub(1) == 0 && met != 0 {
                // One child met: go straight on, no stack traffic.
                cur = n.child[met.trailing_zeros() as usize];
                continue;
            }
            let base = sp;
            while met != 0 {
                let c = met.trailing_zeros() as usize;
                met &= met - 1;
                // Never full, as in the single-ray walk (at most 7 siblings per level).
                if sp == STACK {
                    break;
                }
                let e = (n.child[c], near[c]);
                let mut j = sp;
                if !ANY {
                    // Insertion into the run pushed for this node, largest key deepest.
                    while j > base && stack[j - 1].assume_init().1 < e.1 {
                        stack[j] = stack[j - 1];
                        j -= 1;
                    }
                }
                stack[j] = MaybeUninit::new(e);
                sp += 1;
            }
        } else {
            let done = v.leaf(cur & !LEAF, live, lims);
            live &= !done;
            if live == 0 {
                return rays;
            }
            wide = widest(lims, live);
        }
        loop {
            if sp == 0 {
                return rays & !live;
            }
            sp -= 1;
            let (c, key) = stack[sp].assume_init();
            // Every ray's own entry distance is at least `key`: past every limit, no ray
            // would enter.
            if key <= wide {
                cur = c;
                break;
            }
        }
    }
}
