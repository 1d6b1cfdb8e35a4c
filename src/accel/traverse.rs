//! The two-level walk, written once over the [`Kernel`] trait and compiled once per
//! instruction set: `trace_portable`, and on x86-64 `trace_sse41` / `trace_avx2`, whose
//! `#[target_feature]` attribute is what lets the kernels' intrinsics inline as the enabled
//! instructions (the crate itself is compiled for baseline x86-64).
//!
//! Closest hit: children met are pushed in order of their entry distance onto a stack that
//! keeps those distances, so a popped node already behind the current hit is skipped without
//! loading it. Any hit: children are pushed unsorted and the walk ends at the first accepted
//! hit. The decisions depend only on the kernels' outputs, which are the same bits on every
//! path, so every path visits the same nodes in the same order.

use std::mem::MaybeUninit;

use super::node::{below, Node8, NodeRay, LEAF, STACK, T_SCALE, WIDTH};
use super::simd::portable::{leaf_scalar, Portable};
use super::simd::{Kernel, LeafOut};
use super::triangle::TriRay;
use super::{normalise_pow2, Accel, Hit, Source};
use crate::geometry::Ray;

/// Walks `nodes` from `root` (0 for the whole tree; the packet walk hands a single ray over
/// at an inner node), calling `leaf(index, t_lim)` for every leaf whose box the ray
/// meets within `[0, t_lim·T_SCALE]`; `leaf` may lower `t_lim` and returns `true` to stop the
/// walk (then `walk` returns `true`). Unless `ANY`, children are visited front to back.
///
/// # Safety
/// `K`'s instructions must be available (see the entry points).
#[inline(always)]
pub(super) unsafe fn walk<K: Kernel, const ANY: bool, L: Visit>(
    nodes: &[Node8],
    root: u32,
    r: &K::NRay,
    t_lim: &mut f32,
    leaf: &mut L,
) -> bool {
    // Uninitialised on purpose: zeroing 5 KiB per walk would cost more than most walks.
    // Slots are written before they are read (`sp` only counts written slots).
    let mut stack = [MaybeUninit::<(u32, u32)>::uninit(); STACK];
    let mut sp = 0usize;
    let mut keys = [0u32; WIDTH];
    let mut cur = root;
    loop {
        if cur & LEAF == 0 {
            let Some(n) = nodes.get(cur as usize) else {
                return false;
            };
            let mut m = K::node(n, r, *t_lim, &mut keys);
            if m & m.wrapping_sub(1) == 0 && m != 0 {
                // One child met: go straight on, no stack traffic.
                cur = n.child[m.trailing_zeros() as usize];
                continue;
            }
            let base = sp;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                m &= m - 1;
                // The tree is at most MAX_DEPTH interior levels deep and each level leaves at
                // most 7 siblings, so this never fills (STACK = 7·MAX_DEPTH + 8); the check
                // only keeps a broken invariant from becoming memory unsafety.
                if sp == STACK {
                    break;
                }
                let e = (keys[i], n.child[i]);
                let mut j = sp;
                if !ANY {
                    // Insertion into the run pushed for this node, largest key deepest.
                    while j > base && stack[j - 1].assume_init().0 < e.0 {
                        stack[j] = stack[j - 1];
                        j -= 1;
                    }
                }
                stack[j] = MaybeUninit::new(e);
                sp += 1;
            }
        } else if leaf.visit(cur & !LEAF, t_lim) {
            return true;
        }
        loop {
            if sp == 0 {
                return false;
            }
            sp -= 1;
            let (key, c) = stack[sp].assume_init();
            // Key bits read as a float never exceed the child's entry distance.
            if f32::from_bits(key & !7) <= *t_lim * T_SCALE {
                cur = c;
                break;
            }
        }
    }
}

/// What a walk does at a leaf. A trait with `#[inline(always)]` methods rather than a closure:
/// a closure is not guaranteed to be inlined, and one left out of line would be compiled
/// without the entry point's target features (its intrinsics would become calls).
pub(super) trait Visit {
    /// Visits leaf `leaf`; may lower `t_lim` (the walk's units); `true` stops the walk.
    ///
    /// # Safety
    /// The kernel's instructions must be available.
    unsafe fn visit(&mut self, leaf: u32, t_lim: &mut f32) -> bool;
}

/// A ray prepared for both tests in one space: the box test's and the triangle test's
/// constants. Built once per query (world space) and once per instance visit (object space),
/// and passed by reference: copying its ~500 bytes per visit was a tenth of a small scene's
/// query.
struct Prepared<K: Kernel> {
    node: K::NRay,
    tri: TriRay,
    tri_k: K::TRay,
}

impl<K: Kernel> Prepared<K> {
    /// # Safety
    /// `K`'s instructions must be available.
    #[inline(always)]
    unsafe fn new(o: glam::Vec3, d: glam::Vec3) -> Prepared<K> {
        let tri = TriRay::new(o, d);
        Prepared {
            node: K::prep_node(&NodeRay::new(o.to_array(), d.to_array())),
            tri_k: K::prep_tri(&tri),
            tri,
        }
    }
}

/// The query's state, shared by both levels.
struct Query<'a, K: Kernel, F> {
    accel: &'a Accel,
    ray: &'a Ray,
    /// The world ray prepared: merged (world-space) groups use it as it is, with no transform
    /// and no second preparation.
    world: &'a Prepared<K>,
    /// World direction scaled by `s_world` (see `normalise_pow2`).
    d: glam::Vec3,
    s_world: f32,
    mask: u32,
    filter: F,
    best: Option<Hit>,
    /// The best hit's t in scaled-world units.
    best_ws: f32,
    out: LeafOut,
}

/// Top-level leaves: one instance (or merged group) each.
struct Top<'a, 'q, K: Kernel, F, const ANY: bool> {
    q: &'q mut Query<'a, K, F>,
}

/// Bottom-level leaves of one instance visit.
struct Bottom<'a, 'q, 'p, K: Kernel, F, const ANY: bool> {
    q: &'q mut Query<'a, K, F>,
    blas: &'a super::Blas,
    source: Source,
    /// The ray in the instance's space.
    local: &'p Prepared<K>,
    s_obj: f32,
    /// The top level's limit, scaled-world units (kept in step with the walk's own).
    t_lim_w: f32,
}

impl<K: Kernel, F: FnMut(&Hit) -> bool, const ANY: bool> Visit for Top<'_, '_, K, F, ANY> {
    #[inline(always)]
    unsafe fn visit(&mut self, leaf: u32, t_lim_w: &mut f32) -> bool {
        let a = self.q.accel;
        let Some(inst) = a
            .tlas
            .as_ref()
            .and_then(|t| t.leaf_inst.get(leaf as usize))
            .and_then(|&i| a.instance_data.get(i as usize))
        else {
            return false;
        };
        if inst.mask & self.q.mask == 0 {
            return false;
        }
        let Some(Some(blas)) = a.blas.get(inst.mesh as usize) else {
            return false;
        };
        let object;
        let (local, s_obj): (&Prepared<K>, f32) = if let Source::Merged(_) = inst.source {
            // World space already (identity transform): the world ray as prepared.
            (self.q.world, 1.0)
        } else {
            let o = inst.object_from_world.transform_point3(self.q.ray.o);
            let Some((od, s_obj)) =
                normalise_pow2(inst.object_from_world.transform_vector3(self.q.d))
            else {
                return false;
            };
            if !o.is_finite() {
                return false;
            }
            object = Prepared::<K>::new(o, od);
            (&object, s_obj)
        };
        let mut bottom = Bottom::<K, F, ANY> {
            q: &mut *self.q,
            blas,
            source: inst.source,
            local,
            s_obj,
            t_lim_w: *t_lim_w,
        };
        // Object t = scaled-world t / s_obj, exactly.
        let mut t_lim_o = *t_lim_w / s_obj;
        let stop = walk::<K, ANY, _>(&blas.nodes, 0, &local.node, &mut t_lim_o, &mut bottom);
        *t_lim_w = bottom.t_lim_w;
        stop
    }
}

impl<K: Kernel, F: FnMut(&Hit) -> bool, const ANY: bool> Visit for Bottom<'_, '_, '_, K, F, ANY> {
    #[inline(always)]
    unsafe fn visit(&mut self, leaf: u32, t_lim_o: &mut f32) -> bool {
        let Some(b) = self.blas.blocks.get(leaf as usize) else {
            return false;
        };
        let q = &mut *self.q;
        let mut m = match K::leaf(b, &self.local.tri_k, *t_lim_o, &mut q.out) {
            Some(m) => m,
            None => leaf_scalar(b, &self.local.tri, *t_lim_o, &mut q.out),
        };
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            let t_ws = q.out.t[i] * self.s_obj;
            let t = t_ws * q.s_world;
            // Guards against under/overflow of the power-of-two rescaling.
            if !(t_ws > 0.0 && t_ws <= self.t_lim_w && t > 0.0 && t < q.ray.t_max) {
                continue;
            }
            let Some((instance, prim)) = origin(q.accel, self.source, b.prim[i]) else {
                continue;
            };
            if !ANY && !beats(t_ws, (instance, prim), q.best_ws, q.best.as_ref()) {
                continue;
            }
            let hit = Hit {
                t,
                instance,
                prim,
                b1: q.out.b1[i].clamp(0.0, 1.0),
                b2: q.out.b2[i].clamp(0.0, 1.0),
            };
            if !(q.filter)(&hit) {
                continue;
            }
            q.best = Some(hit);
            if ANY {
                return true;
            }
            q.best_ws = t_ws;
            *t_lim_o = q.out.t[i];
            self.t_lim_w = t_ws;
        }
        false
    }
}

/// The (instance, triangle) a leaf's triangle `local_prim` reports: the instance's own, or
/// for a merged group the one it was flattened from (`None` for a broken index).
#[inline(always)]
pub(super) fn origin(a: &Accel, source: Source, local_prim: u32) -> Option<(u32, u32)> {
    match source {
        Source::Instance(i) => Some((i, local_prim)),
        Source::Merged(g) => a
            .origins
            .get(g as usize)
            .and_then(|o| o.get(local_prim as usize))
            .copied(),
    }
}

/// The tie-break, the one rule every path and packet applies: a candidate at scaled-world
/// `t_ws` replaces the best hit so far (at `best_ws`) when it is nearer, or as near with a
/// lower (instance, prim), whatever order the walk met them in.
#[inline(always)]
pub(super) fn beats(t_ws: f32, id: (u32, u32), best_ws: f32, best: Option<&Hit>) -> bool {
    best.is_none_or(|bh| t_ws < best_ws || (t_ws == best_ws && id < (bh.instance, bh.prim)))
}

/// The two-level query. `ANY` stops at the first accepted hit.
///
/// # Safety
/// `K`'s instructions must be available.
#[inline(always)]
unsafe fn trace<K: Kernel, const ANY: bool, F: FnMut(&Hit) -> bool>(
    a: &Accel,
    ray: &Ray,
    mask: u32,
    filter: F,
) -> Option<Hit> {
    let tlas = a.tlas.as_ref()?;
    if !ray.o.is_finite() || ray.t_max.is_nan() || ray.t_max <= 0.0 {
        return None;
    }
    let (d, s_world) = normalise_pow2(ray.d)?;
    let world = Prepared::<K>::new(ray.o, d);
    // Inclusive limit in scaled-world units (exact: s_world is a power of two).
    let mut t_lim_w = below(ray.t_max / s_world);
    let mut q = Query {
        accel: a,
        ray,
        world: &world,
        d,
        s_world,
        mask,
        filter,
        best: None,
        best_ws: f32::INFINITY,
        out: LeafOut::default(),
    };
    let mut top = Top::<K, F, ANY> { q: &mut q };
    if tlas.leaf_inst.len() == 1 {
        // One top-level leaf (e.g. a scene flattened into one world-space tree): its box
        // test would only repeat the bottom root's.
        top.visit(0, &mut t_lim_w);
    } else {
        walk::<K, ANY, _>(&tlas.nodes, 0, &world.node, &mut t_lim_w, &mut top);
    }
    q.best
}

/// The portable path.
pub(crate) fn trace_portable<const ANY: bool, F: FnMut(&Hit) -> bool>(
    a: &Accel,
    ray: &Ray,
    mask: u32,
    filter: F,
) -> Option<Hit> {
    // SAFETY: the portable kernels use no optional instruction.
    unsafe { trace::<Portable, ANY, F>(a, ray, mask, filter) }
}

/// The SSE4.1 path.
///
/// # Safety
/// The CPU must support SSE4.1.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.1")]
pub(crate) unsafe fn trace_sse41<const ANY: bool, F: FnMut(&Hit) -> bool>(
    a: &Accel,
    ray: &Ray,
    mask: u32,
    filter: F,
) -> Option<Hit> {
    trace::<super::simd::x86::Sse41, ANY, F>(a, ray, mask, filter)
}

/// The AVX2 path.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn trace_avx2<const ANY: bool, F: FnMut(&Hit) -> bool>(
    a: &Accel,
    ray: &Ray,
    mask: u32,
    filter: F,
) -> Option<Hit> {
    trace::<super::simd::x86::Avx2, ANY, F>(a, ray, mask, filter)
}

/// Every leaf of `nodes` the portable walk visits for the ray `o + t·d`, `t` unbounded (`d`
/// scaled as `NodeRay::new` requires); for the tests.
#[cfg(test)]
pub(crate) fn leaves_met(nodes: &[Node8], o: [f32; 3], d: [f32; 3]) -> Vec<u32> {
    let mut t_lim = f32::MAX;
    struct Collect(Vec<u32>);
    impl Visit for Collect {
        unsafe fn visit(&mut self, leaf: u32, _: &mut f32) -> bool {
            self.0.push(leaf);
            false
        }
    }
    let mut seen = Collect(Vec::new());
    // SAFETY: portable kernels only.
    unsafe {
        let r = Portable::prep_node(&NodeRay::new(o, d));
        walk::<Portable, true, _>(nodes, 0, &r, &mut t_lim, &mut seen);
    }
    seen.0
}
