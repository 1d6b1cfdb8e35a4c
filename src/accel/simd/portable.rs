//! The portable path: plain scalar code per lane, the reference every SIMD path matches bit
//! for bit. Used on CPUs (or targets) without SSE4.1.

use super::{max_ps, min_ps, ChildRays, Kernel, LeafOut, PacketKernel, PacketLeafOut, PacketRay};
use crate::accel::frustum::Frustum;
use crate::accel::node::{Node8, NodeRay, TriBlock, LEAF_TRIS, PACKET, T_SCALE, WIDTH};
use crate::accel::triangle::TriRay;
use glam::Vec3;

/// Scalar kernels.
pub(crate) struct Portable;

impl Kernel for Portable {
    type NRay = NodeRay;
    type TRay = TriRay;

    #[inline(always)]
    unsafe fn prep_node(r: &NodeRay) -> NodeRay {
        *r
    }

    #[inline(always)]
    unsafe fn prep_tri(r: &TriRay) -> TriRay {
        *r
    }

    #[inline(always)]
    unsafe fn node(n: &Node8, r: &NodeRay, t_lim: f32, keys: &mut [u32; WIDTH]) -> u32 {
        let p = &n.planes;
        let mut mask = 0;
        for i in 0..WIDTH {
            let tn = |k: usize| (p[r.near[k]][i] - r.o[k]) * r.inv[k];
            let tf = |k: usize| (p[r.far[k]][i] - r.o[k]) * r.inv_far[k];
            // Balanced trees of max/min (shorter dependency chains); the right operands,
            // max(·, 0) and min(·, limit), are never NaN, so neither is the result.
            let near = max_ps(max_ps(tn(0), tn(1)), max_ps(tn(2), 0.0));
            let far = min_ps(min_ps(tf(0), tf(1)), min_ps(tf(2), t_lim * T_SCALE));
            if near <= far {
                mask |= 1 << i;
            }
            keys[i] = (near.to_bits() & !7) | i as u32;
        }
        mask
    }

    #[inline(always)]
    unsafe fn leaf(b: &TriBlock, r: &TriRay, t_lim: f32, out: &mut LeafOut) -> Option<u32> {
        Some(leaf_scalar(b, r, t_lim, out))
    }
}

impl PacketKernel for Portable {
    type PRay = PacketRay;

    #[inline(always)]
    unsafe fn prep_packet(p: &PacketRay) -> PacketRay {
        *p
    }

    #[inline(always)]
    unsafe fn node_packet(
        n: &Node8,
        r: &PacketRay,
        lim: &[f32; PACKET],
        active: u32,
        near: &mut [[f32; PACKET]; WIDTH],
    ) -> ChildRays {
        let p = &n.planes;
        let mut out = 0;
        for c in 0..WIDTH {
            let mut m = 0u64;
            for j in 0..PACKET {
                // Lane j of `Portable::node` for ray j, operation for operation.
                let tn = |k: usize| (p[r.near[k]][c] - r.o[k][j]) * r.inv[k][j];
                let tf = |k: usize| (p[r.far[k]][c] - r.o[k][j]) * r.inv_far[k][j];
                let nr = max_ps(max_ps(tn(0), tn(1)), max_ps(tn(2), 0.0));
                let fr = min_ps(min_ps(tf(0), tf(1)), min_ps(tf(2), lim[j]));
                m |= ((nr <= fr) as u64) << j;
                near[c][j] = nr;
            }
            out |= (m & active as u64) << (8 * c);
        }
        out
    }

    #[inline(always)]
    unsafe fn within(near: &[f32; PACKET], lim: &[f32; PACKET]) -> u32 {
        let mut m = 0;
        for j in 0..PACKET {
            m |= ((near[j] <= lim[j]) as u32) << j;
        }
        m
    }

    type TPacket = ();

    #[inline(always)]
    unsafe fn prep_tri_packet(_: &PacketRay, _: &TriRay) -> Option<()> {
        // Ray by ray: scalar code gains nothing from sharing the vertex loads.
        None
    }

    #[inline(always)]
    unsafe fn leaf_packet(
        _: &TriBlock,
        _: &(),
        _: &[f32; PACKET],
        _: u32,
        _: &mut PacketLeafOut,
    ) -> (u32, u32) {
        (0, 0)
    }

    type FRay = Frustum;

    #[inline(always)]
    unsafe fn prep_frustum(f: &Frustum) -> Frustum {
        *f
    }

    #[inline(always)]
    unsafe fn node_frustum(n: &Node8, f: &Frustum, lim: f32, near: &mut [f32; WIDTH]) -> u32 {
        let p = &n.planes;
        let mut mask = 0;
        for c in 0..WIDTH {
            let tn = |k: usize| {
                let x = p[f.near[k]][c] - f.o_near[k];
                min_ps(x * f.inv[k][0], x * f.inv[k][1])
            };
            let tf = |k: usize| {
                let x = p[f.far[k]][c] - f.o_far[k];
                max_ps(x * f.inv_far[k][0], x * f.inv_far[k][1])
            };
            let nr = max_ps(max_ps(tn(0), tn(1)), max_ps(tn(2), 0.0));
            let fr = min_ps(min_ps(tf(0), tf(1)), min_ps(tf(2), lim));
            if nr <= fr {
                mask |= 1 << c;
            }
            near[c] = nr;
        }
        mask
    }
}

/// The scalar reference test of each lane of a block (also the SIMD paths' fallback).
#[inline(always)]
pub(crate) fn leaf_scalar(b: &TriBlock, r: &TriRay, t_lim: f32, out: &mut LeafOut) -> u32 {
    let mut mask = 0;
    for i in 0..LEAF_TRIS {
        let v = |j: usize| Vec3::new(b.v[j][0][i], b.v[j][1][i], b.v[j][2][i]);
        if let Some(h) = r.intersect(&[v(0), v(1), v(2)], t_lim) {
            mask |= 1 << i;
            out.t[i] = h.t;
            out.b1[i] = h.b1;
            out.b2[i] = h.b2;
        }
    }
    mask
}
