//! Packet queries: up to [`PACKET`] rays walked through the trees together (docs/accel.md,
//! "Packets").
//!
//! A packet holds rays of one octant (a query splits its rays by the signs of their
//! directions, per tree level), so every ray enters each box through the same planes and one
//! node test is, per child, one SIMD pass across the rays: lane `i` performs exactly the
//! operations of the single-ray box test for ray `i`. A child is entered with the rays that
//! meet it; a ray left alone at a node carries on with the single-ray walk from there. Leaves
//! are tested ray by ray with the single-ray triangle kernel, and a hit is accepted by the
//! single-ray rules (inclusive limit, tie-break on `(instance, prim)`). Each ray therefore
//! visits every leaf its own box tests let through, as the single-ray walk does, in a
//! different order; since the closest hit under the tie-break does not depend on the order,
//! and the box tests never cull it, every ray gets the bits its single-ray query returns.

use std::mem::MaybeUninit;

use glam::Vec3;

use super::frustum::walk_frustum;
use super::node::{below, Node8, NodeRay, LEAF, PACKET, STACK, T_SCALE, WIDTH};
use super::node::{TriBlock, LEAF_TRIS};
use super::simd::portable::{leaf_scalar, Portable};
use super::simd::{nonzero_bytes, Kernel, LeafOut, PacketKernel, PacketLeafOut, PacketRay};
use super::traverse::{beats, origin, walk, Visit};
use super::triangle::TriRay;
use super::{normalise_pow2, Accel, Blas, Hit, Isa, Source};
use crate::geometry::Ray;

/// A node reached by fewer rays than this hands each of them to the single-ray walk: the
/// packet test pays for eight lanes whatever the number of rays, about four single-ray tests'
/// worth of work (the single-ray walk has more overhead per node, so the break-even is below
/// eight).
const SINGLE_BELOW: u32 = 4;

/// What a packet walk does at a leaf.
pub(crate) trait PVisit {
    /// Visits leaf `leaf` for the rays in `rays`; may lower their limits `lims` (the walk's
    /// units); returns the rays that are finished (an any-hit query found a hit).
    ///
    /// # Safety
    /// The kernel's instructions must be available.
    unsafe fn leaf(&mut self, leaf: u32, rays: u32, lims: &mut [f32; PACKET]) -> u32;
}

/// One ray of a packet walked alone by the single-ray walk, reporting to the packet's visitor.
struct One<'v, 'l, V> {
    v: &'v mut V,
    i: usize,
    lims: &'l mut [f32; PACKET],
}

impl<V: PVisit> Visit for One<'_, '_, V> {
    #[inline(always)]
    unsafe fn visit(&mut self, leaf: u32, t_lim: &mut f32) -> bool {
        self.lims[self.i] = *t_lim;
        let done = self.v.leaf(leaf, 1 << self.i, self.lims);
        *t_lim = self.lims[self.i];
        done != 0
    }
}

/// The limits widened by `T_SCALE` as the box tests use them (the same product as the
/// single-ray kernels compute).
#[inline(always)]
fn widened(lims: &[f32; PACKET]) -> [f32; PACKET] {
    lims.map(|t| t * T_SCALE)
}

/// A stack entry of the packet walk: the node, the rays that met it, and its sort key (the
/// entry distance of the lowest of those rays).
type Entry = (u32, u32, f32);

/// Walks `nodes` from the root with the rays `rays` of the packet `pr` (`singles` holds each
/// ray alone, for the hand-off to the single-ray walk), each ray within its inclusive limit
/// `lims[i]`, which `v` may lower. Unless `ANY`, children are pushed front to back by the entry
/// distance of the lowest ray meeting them (any order gives the same hits; this one is
/// usually the nearest first for all of them). Returns the rays `v` finished.
///
/// # Safety
/// `K`'s instructions must be available.
#[inline(always)]
unsafe fn walk_packet<K: PacketKernel, const ANY: bool, V: PVisit>(
    nodes: &[Node8],
    pr: &K::PRay,
    singles: &[NodeRay; PACKET],
    lims: &mut [f32; PACKET],
    rays: u32,
    v: &mut V,
) -> u32 {
    // Uninitialised on purpose, as in the single-ray walk: `sp` only counts written slots.
    let mut refs = [MaybeUninit::<Entry>::uninit(); STACK];
    let mut nears = [MaybeUninit::<[f32; PACKET]>::uninit(); STACK];
    let mut sp = 0usize;
    let mut live = rays;
    let mut wide = widened(lims);
    let mut near = [[0.0f32; PACKET]; WIDTH];
    let (mut cur, mut act) = (0u32, rays);
    loop {
        if act.count_ones() < SINGLE_BELOW {
            let mut m = act;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                let nr = K::prep_node(&singles[i]);
                let mut t = lims[i];
                let mut one = One {
                    v: &mut *v,
                    i,
                    lims: &mut *lims,
                };
                if walk::<K, ANY, _>(nodes, cur, &nr, &mut t, &mut one) {
                    live &= !(1 << i);
                }
                lims[i] = t;
            }
            wide = widened(lims);
        } else if cur & LEAF == 0 {
            let Some(n) = nodes.get(cur as usize) else {
                return rays & !live;
            };
            let hits = K::node_packet(n, pr, &wide, act, &mut near);
            let mut met = nonzero_bytes(hits);
            let rays_of = |c: usize| ((hits >> (8 * c)) & 0xff) as u32;
            if met & met.wrapping_sub(1) == 0 && met != 0 {
                // One child met: go straight on, no stack traffic.
                let c = met.trailing_zeros() as usize;
                cur = n.child[c];
                act = rays_of(c);
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
                let m = rays_of(c);
                let e = (n.child[c], m, near[c][m.trailing_zeros() as usize]);
                let mut j = sp;
                if !ANY {
                    // Insertion into the run pushed for this node, largest key deepest.
                    while j > base && refs[j - 1].assume_init().2 < e.2 {
                        refs[j] = refs[j - 1];
                        nears[j] = nears[j - 1];
                        j -= 1;
                    }
                }
                refs[j] = MaybeUninit::new(e);
                nears[j] = MaybeUninit::new(near[c]);
                sp += 1;
            }
        } else {
            let done = v.leaf(cur & !LEAF, act, lims);
            live &= !done;
            if live == 0 {
                return rays;
            }
            wide = widened(lims);
        }
        loop {
            if sp == 0 {
                return rays & !live;
            }
            sp -= 1;
            let (c, m, _) = refs[sp].assume_init();
            // Rays whose limit has since come in front of the child skip it, as a popped
            // single-ray entry beyond the limit is skipped.
            let m = m & live & K::within(nears[sp].assume_init_ref(), &wide);
            if m != 0 {
                cur = c;
                act = m;
                break;
            }
        }
    }
}

/// Per-ray constants of a packet query, fixed while it runs.
struct World<'a, K: Kernel> {
    accel: &'a Accel,
    rays: &'a [Ray],
    masks: &'a [u32],
    /// World directions scaled by `s_world` (see `normalise_pow2`).
    d: [Vec3; PACKET],
    s_world: [f32; PACKET],
    nr: [NodeRay; PACKET],
    tri: [TriRay; PACKET],
    tri_k: [K::TRay; PACKET],
    /// The same rays as structure of arrays, for the packet tests.
    lanes: PacketRay,
}

/// Per-ray results of a packet query.
struct State {
    best: [Option<Hit>; PACKET],
    /// The best hits' t in scaled-world units.
    best_ws: [f32; PACKET],
    /// The top level's limits, scaled-world units (kept in step by the bottom walks).
    t_lim_w: [f32; PACKET],
    out: LeafOut,
    pout: PacketLeafOut,
}

/// Top-level leaves for a packet of one world octant.
struct Top<'a, 'q, K: PacketKernel, const ANY: bool> {
    w: &'q World<'a, K>,
    st: &'q mut State,
    pr: &'q K::PRay,
    tp: Option<K::TPacket>,
    /// A bundle query's bounds of the packet (world space), where it has them: the bottom
    /// walks then go by [`walk_frustum`] too.
    fr: Option<K::FRay>,
}

/// Bottom-level leaves of one instance visit.
struct Bottom<'a, 'q, K: PacketKernel, const ANY: bool> {
    w: &'q World<'a, K>,
    st: &'q mut State,
    blas: &'a Blas,
    source: Source,
    tri: &'q [TriRay; PACKET],
    tri_k: &'q [K::TRay; PACKET],
    /// The packet's triangle-test constants (one shear frame), where the kernel has them.
    tp: Option<K::TPacket>,
    s_obj: [f32; PACKET],
}

impl<K: PacketKernel, const ANY: bool> PVisit for Top<'_, '_, K, ANY> {
    #[inline(always)]
    unsafe fn leaf(&mut self, leaf: u32, rays: u32, lims_w: &mut [f32; PACKET]) -> u32 {
        let w = self.w;
        let a = w.accel;
        let Some(inst) = a
            .tlas
            .as_ref()
            .and_then(|t| t.leaf_inst.get(leaf as usize))
            .and_then(|&i| a.instance_data.get(i as usize))
        else {
            return 0;
        };
        let Some(Some(blas)) = a.blas.get(inst.mesh as usize) else {
            return 0;
        };
        let mut m = 0;
        let mut r = rays;
        while r != 0 {
            let i = r.trailing_zeros() as usize;
            r &= r - 1;
            if inst.mask & w.masks[i] != 0 {
                m |= 1 << i;
                self.st.t_lim_w[i] = lims_w[i];
            }
        }
        if m == 0 {
            return 0;
        }
        let mut done = 0;
        if let Source::Merged(_) = inst.source {
            // World space already: the world packet as prepared (object t = world t / 1).
            let mut lims_o = *lims_w;
            let mut bottom = Bottom::<K, ANY> {
                w,
                st: &mut *self.st,
                blas,
                source: inst.source,
                tri: &w.tri,
                tri_k: &w.tri_k,
                tp: self.tp,
                s_obj: [1.0; PACKET],
            };
            done = match &self.fr {
                Some(fr) => walk_frustum::<K, ANY, _>(&blas.nodes, fr, &mut lims_o, m, &mut bottom),
                None => walk_packet::<K, ANY, _>(
                    &blas.nodes,
                    self.pr,
                    &w.nr,
                    &mut lims_o,
                    m,
                    &mut bottom,
                ),
            };
        } else {
            // Each ray moved to object space as the single-ray query moves it.
            let (mut nr, mut tri, mut tri_k, mut lanes) = (w.nr, w.tri, w.tri_k, w.lanes);
            let mut s_obj = [1.0; PACKET];
            let mut ok = 0u32;
            let mut r = m;
            while r != 0 {
                let i = r.trailing_zeros() as usize;
                r &= r - 1;
                let o = inst.object_from_world.transform_point3(w.rays[i].o);
                let Some((od, s)) =
                    normalise_pow2(inst.object_from_world.transform_vector3(w.d[i]))
                else {
                    continue;
                };
                if !o.is_finite() {
                    continue;
                }
                tri[i] = TriRay::new(o, od);
                tri_k[i] = K::prep_tri(&tri[i]);
                nr[i] = NodeRay::new(o.to_array(), od.to_array());
                lanes.set(i, &nr[i], &tri[i]);
                s_obj[i] = s;
                ok |= 1 << i;
            }
            // Object-space octants may differ from the world ones: one packet per octant.
            while ok != 0 {
                let lo = ok.trailing_zeros() as usize;
                let g = lanes.group(ok, &nr[lo]);
                ok &= !g;
                let pr = K::prep_packet(&lanes);
                let tp = K::prep_tri_packet(&lanes, &tri[lo]);
                // A bundle's object-space bounds, from the rays as moved.
                let fr = match self.fr {
                    Some(_) => K::frustum(&lanes, g).map(|f| K::prep_frustum(&f)),
                    None => None,
                };
                let mut lims_o = [0.0; PACKET];
                for i in 0..PACKET {
                    lims_o[i] = self.st.t_lim_w[i] / s_obj[i];
                }
                let mut bottom = Bottom::<K, ANY> {
                    w,
                    st: &mut *self.st,
                    blas,
                    source: inst.source,
                    tri: &tri,
                    tri_k: &tri_k,
                    tp,
                    s_obj,
                };
                done |= match &fr {
                    Some(fr) => {
                        walk_frustum::<K, ANY, _>(&blas.nodes, fr, &mut lims_o, g, &mut bottom)
                    }
                    None => {
                        walk_packet::<K, ANY, _>(&blas.nodes, &pr, &nr, &mut lims_o, g, &mut bottom)
                    }
                };
            }
        }
        let mut r = m;
        while r != 0 {
            let i = r.trailing_zeros() as usize;
            r &= r - 1;
            lims_w[i] = self.st.t_lim_w[i];
        }
        done
    }
}

impl<K: PacketKernel, const ANY: bool> Bottom<'_, '_, K, ANY> {
    /// Takes ray `i`'s candidate hits, lanes `m` of `st.out` (block `b`), by the rules of the
    /// single-ray `Bottom::visit`, in the same lane order; `true` when an any-hit query is
    /// finished.
    #[inline(always)]
    fn accept(&mut self, b: &TriBlock, i: usize, mut m: u32, lims_o: &mut [f32; PACKET]) -> bool {
        let (w, st) = (self.w, &mut *self.st);
        while m != 0 {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            let t_ws = st.out.t[l] * self.s_obj[i];
            let t = t_ws * w.s_world[i];
            if !(t_ws > 0.0 && t_ws <= st.t_lim_w[i] && t > 0.0 && t < w.rays[i].t_max) {
                continue;
            }
            let Some((instance, prim)) = origin(w.accel, self.source, b.prim[l]) else {
                continue;
            };
            if !ANY && !beats(t_ws, (instance, prim), st.best_ws[i], st.best[i].as_ref()) {
                continue;
            }
            st.best[i] = Some(Hit {
                t,
                instance,
                prim,
                b1: st.out.b1[l].clamp(0.0, 1.0),
                b2: st.out.b2[l].clamp(0.0, 1.0),
            });
            if ANY {
                // Finished: a negative limit culls every box for this ray from now on.
                lims_o[i] = -1.0;
                st.t_lim_w[i] = -1.0;
                return true;
            }
            st.best_ws[i] = t_ws;
            lims_o[i] = st.out.t[l];
            st.t_lim_w[i] = t_ws;
        }
        false
    }
}

/// Rays at a leaf from which the packet leaf test (one 8-lane pass per triangle across the
/// rays, four passes) replaces the per-ray test (one 4-lane pass per ray across the
/// triangles): four 8-lane passes cost about what five rays' passes cost.
const PACKET_LEAF_FROM: u32 = 5;

impl<K: PacketKernel, const ANY: bool> PVisit for Bottom<'_, '_, K, ANY> {
    #[inline(always)]
    unsafe fn leaf(&mut self, leaf: u32, rays: u32, lims_o: &mut [f32; PACKET]) -> u32 {
        let Some(b) = self.blas.blocks.get(leaf as usize) else {
            return 0;
        };
        let mut done = 0;
        if let (Some(tp), true) = (&self.tp, rays.count_ones() >= PACKET_LEAF_FROM) {
            let po = &mut self.st.pout;
            let (mut hits, mut zeros) = K::leaf_packet(b, tp, lims_o, rays, po);
            // Pairs with an edge function exactly zero: the scalar reference, as the
            // single-ray kernels redo such a block.
            while zeros != 0 {
                let bit = zeros.trailing_zeros();
                zeros &= zeros - 1;
                let (l, i) = ((bit / 8) as usize, (bit % 8) as usize);
                let v = |j: usize| Vec3::new(b.v[j][0][l], b.v[j][1][l], b.v[j][2][l]);
                if let Some(h) = self.tri[i].intersect(&[v(0), v(1), v(2)], lims_o[i]) {
                    hits |= 1 << bit;
                    po.t[l][i] = h.t;
                    po.b1[l][i] = h.b1;
                    po.b2[l][i] = h.b2;
                }
            }
            let mut r = rays;
            while r != 0 && hits != 0 {
                let i = r.trailing_zeros() as usize;
                r &= r - 1;
                let mut m = 0;
                for l in 0..LEAF_TRIS {
                    if hits & (1 << (8 * l + i)) != 0 {
                        m |= 1 << l;
                        let po = &self.st.pout;
                        self.st.out.t[l] = po.t[l][i];
                        self.st.out.b1[l] = po.b1[l][i];
                        self.st.out.b2[l] = po.b2[l][i];
                    }
                }
                if m != 0 && self.accept(b, i, m, lims_o) {
                    done |= 1 << i;
                }
            }
            return done;
        }
        let mut r = rays;
        while r != 0 {
            let i = r.trailing_zeros() as usize;
            r &= r - 1;
            // Ray i exactly as the single-ray `Bottom::visit`.
            let st = &mut *self.st;
            let m = match K::leaf(b, &self.tri_k[i], lims_o[i], &mut st.out) {
                Some(m) => m,
                None => leaf_scalar(b, &self.tri[i], lims_o[i], &mut st.out),
            };
            if self.accept(b, i, m, lims_o) {
                done |= 1 << i;
            }
        }
        done
    }
}

/// The packet query of `rays` (at most [`PACKET`]) with per-ray `masks`; results into `out`.
/// `w` is reused from packet to packet (only the lanes of usable rays are rewritten and read):
/// building it afresh per packet cost more than the walk of a short packet.
///
/// # Safety
/// `K`'s instructions must be available.
#[inline(always)]
unsafe fn trace_packet<'a, K: PacketKernel, const ANY: bool, const BUNDLE: bool>(
    tlas: &super::Tlas,
    w: &mut World<'a, K>,
    st: &mut State,
    rays: &'a [Ray],
    masks: &'a [u32],
    out: &mut [Option<Hit>],
) {
    w.rays = rays;
    w.masks = masks;
    let mut lims_w = [0.0; PACKET];
    let mut valid = 0u32;
    for (i, r) in rays.iter().enumerate().take(PACKET) {
        // A zero mask sees no instance: the single-ray query misses too.
        if masks[i] == 0 || !r.o.is_finite() || r.t_max.is_nan() || r.t_max <= 0.0 {
            continue;
        }
        let Some((d, s)) = normalise_pow2(r.d) else {
            continue;
        };
        w.d[i] = d;
        w.s_world[i] = s;
        w.nr[i] = NodeRay::new(r.o.to_array(), d.to_array());
        w.tri[i] = TriRay::new(r.o, d);
        w.tri_k[i] = K::prep_tri(&w.tri[i]);
        w.lanes.set(i, &w.nr[i], &w.tri[i]);
        // Inclusive limit in scaled-world units (exact: s is a power of two).
        lims_w[i] = below(r.t_max / s);
        valid |= 1 << i;
    }
    st.best = [None; PACKET];
    st.best_ws = [f32::INFINITY; PACKET];
    st.t_lim_w = lims_w;
    while valid != 0 {
        let lo = valid.trailing_zeros() as usize;
        let g = w.lanes.group(valid, &w.nr[lo]);
        valid &= !g;
        let pr = K::prep_packet(&w.lanes);
        let tp = K::prep_tri_packet(&w.lanes, &w.tri[lo]);
        let fr = match BUNDLE {
            true => K::frustum(&w.lanes, g).map(|f| K::prep_frustum(&f)),
            false => None,
        };
        let mut top = Top::<K, ANY> {
            w: &*w,
            st: &mut *st,
            pr: &pr,
            tp,
            fr,
        };
        if tlas.leaf_inst.len() == 1 {
            // One top-level leaf: its box test would only repeat the bottom root's.
            top.leaf(0, g, &mut lims_w);
        } else if let Some(fr) = &fr {
            walk_frustum::<K, ANY, _>(&tlas.nodes, fr, &mut lims_w, g, &mut top);
        } else {
            walk_packet::<K, ANY, _>(&tlas.nodes, &pr, &w.nr, &mut lims_w, g, &mut top);
        }
    }
    for (o, b) in out.iter_mut().zip(st.best) {
        *o = b;
    }
}

/// Runs `trace_packet` over `rays` in packets of [`PACKET`] consecutive rays.
///
/// # Safety
/// `K`'s instructions must be available.
#[inline(always)]
unsafe fn trace_stream<K: PacketKernel, const ANY: bool, const BUNDLE: bool>(
    a: &Accel,
    rays: &[Ray],
    masks: &[u32],
    out: &mut [Option<Hit>],
) {
    let Some(tlas) = a.tlas.as_ref() else {
        out.fill(None);
        return;
    };
    let dummy = TriRay::new(Vec3::ZERO, Vec3::X);
    let mut w = World::<K> {
        accel: a,
        rays: &[],
        masks: &[],
        d: [Vec3::X; PACKET],
        s_world: [1.0; PACKET],
        nr: [NodeRay::new([0.0; 3], [1.0; 3]); PACKET],
        tri: [dummy; PACKET],
        tri_k: [K::prep_tri(&dummy); PACKET],
        lanes: PacketRay::EMPTY,
    };
    let mut st = State {
        best: [None; PACKET],
        best_ws: [f32::INFINITY; PACKET],
        t_lim_w: [0.0; PACKET],
        out: LeafOut::default(),
        pout: PacketLeafOut::default(),
    };
    for ((r, m), o) in rays
        .chunks(PACKET)
        .zip(masks.chunks(PACKET))
        .zip(out.chunks_mut(PACKET))
    {
        trace_packet::<K, ANY, BUNDLE>(tlas, &mut w, &mut st, r, m, o);
    }
}

/// The portable packet path.
fn stream_portable<const ANY: bool, const B: bool>(
    a: &Accel,
    r: &[Ray],
    m: &[u32],
    o: &mut [Option<Hit>],
) {
    // SAFETY: the portable kernels use no optional instruction.
    unsafe { trace_stream::<Portable, ANY, B>(a, r, m, o) }
}

/// The SSE4.1 packet path.
///
/// # Safety
/// The CPU must support SSE4.1.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.1")]
unsafe fn stream_sse41<const ANY: bool, const B: bool>(
    a: &Accel,
    r: &[Ray],
    m: &[u32],
    o: &mut [Option<Hit>],
) {
    trace_stream::<super::simd::x86::Sse41, ANY, B>(a, r, m, o)
}

/// The AVX2 packet path.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn stream_avx2<const ANY: bool, const B: bool>(
    a: &Accel,
    r: &[Ray],
    m: &[u32],
    o: &mut [Option<Hit>],
) {
    trace_stream::<super::simd::x86::Avx2, ANY, B>(a, r, m, o)
}

impl Accel {
    /// [`Accel::closest_hit`] for many rays at once: `out[i]` is the hit of `rays[i]` with
    /// mask `masks[i]`, bit for bit what `closest_hit(&rays[i], masks[i])` returns. Rays are
    /// traced in packets of [`PACKET_SIZE`] consecutive ones; the gain over single rays
    /// comes from rays of a packet that take the same way through the tree (neighbouring
    /// camera pixels, shadow rays towards one light): order them so. A mask of 0 switches a
    /// ray off (its result is `None`).
    ///
    /// # Panics
    /// If `masks` or `out` is not as long as `rays`.
    pub fn closest_hit_packet(&self, rays: &[Ray], masks: &[u32], out: &mut [Option<Hit>]) {
        self.closest_hit_packet_isa(self.isa, rays, masks, out)
    }

    /// [`Accel::any_hit`] (no filter) for many rays at once, as
    /// [`Accel::closest_hit_packet`]: `out[i]` is whether anything lies in `(0, t_max)` of
    /// `rays[i]` among the instances `masks[i]` sees.
    ///
    /// # Panics
    /// If `masks` or `out` is not as long as `rays`.
    pub fn any_hit_packet(&self, rays: &[Ray], masks: &[u32], out: &mut [bool]) {
        self.any_hit_packet_isa(self.isa, rays, masks, out)
    }

    /// [`Accel::closest_hit_packet`] on a chosen path (for tests and benchmarks); a path this
    /// CPU cannot run falls back to [`Isa::Portable`]. The results are the same bits on every
    /// path.
    pub fn closest_hit_packet_isa(
        &self,
        isa: Isa,
        rays: &[Ray],
        masks: &[u32],
        out: &mut [Option<Hit>],
    ) {
        assert!(masks.len() == rays.len() && out.len() == rays.len());
        self.packet_dispatch::<false, false>(isa, rays, masks, out);
    }

    /// [`Accel::closest_hit_packet`] for rays that nearly coincide, such as the camera
    /// samples of one pixel: each packet is walked as one bundle, its eight children tested
    /// once per node against the rays' bounds instead of once per ray (docs/accel.md,
    /// "Bundles"). The same bits as `closest_hit` ray by ray; on rays far apart it visits
    /// more leaves than the packet walk and is slower.
    ///
    /// # Panics
    /// If `masks` or `out` is not as long as `rays`.
    pub fn closest_hit_bundle(&self, rays: &[Ray], masks: &[u32], out: &mut [Option<Hit>]) {
        self.closest_hit_bundle_isa(self.isa, rays, masks, out)
    }

    /// [`Accel::closest_hit_bundle`] on a chosen path, as [`Accel::closest_hit_packet_isa`].
    pub fn closest_hit_bundle_isa(
        &self,
        isa: Isa,
        rays: &[Ray],
        masks: &[u32],
        out: &mut [Option<Hit>],
    ) {
        assert!(masks.len() == rays.len() && out.len() == rays.len());
        self.packet_dispatch::<false, true>(isa, rays, masks, out);
    }

    /// [`Accel::any_hit_packet`] on a chosen path, as [`Accel::closest_hit_packet_isa`].
    pub fn any_hit_packet_isa(&self, isa: Isa, rays: &[Ray], masks: &[u32], out: &mut [bool]) {
        assert!(masks.len() == rays.len() && out.len() == rays.len());
        // Runs of packets per call, so the per-call set-up is paid once per run.
        const RUN: usize = 32 * PACKET;
        let mut hits = [None; RUN];
        for ((r, m), o) in rays
            .chunks(RUN)
            .zip(masks.chunks(RUN))
            .zip(out.chunks_mut(RUN))
        {
            self.packet_dispatch::<true, false>(isa, r, m, &mut hits[..r.len()]);
            for (o, h) in o.iter_mut().zip(&hits) {
                *o = h.is_some();
            }
        }
    }

    /// Runs a packet query on `isa`, or on the portable path when this CPU cannot run it.
    fn packet_dispatch<const ANY: bool, const BUNDLE: bool>(
        &self,
        isa: Isa,
        rays: &[Ray],
        masks: &[u32],
        out: &mut [Option<Hit>],
    ) {
        match isa {
            // SAFETY: `runnable` holds the run-time detection of each path's instructions.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 if self.runnable[2] => unsafe {
                stream_avx2::<ANY, BUNDLE>(self, rays, masks, out)
            },
            #[cfg(target_arch = "x86_64")]
            Isa::Sse41 if self.runnable[1] => unsafe {
                stream_sse41::<ANY, BUNDLE>(self, rays, masks, out)
            },
            _ => stream_portable::<ANY, BUNDLE>(self, rays, masks, out),
        }
    }
}

/// Rays per packet of [`Accel::closest_hit_packet`] and [`Accel::any_hit_packet`].
pub const PACKET_SIZE: usize = PACKET;
