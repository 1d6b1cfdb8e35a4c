//! x86-64 kernels: SSE4.1 (two 4-wide halves per node) and AVX2 (all eight children in one
//! 256-bit pass). Both share the 4-wide leaf test. The functions here are `#[inline(always)]`
//! and only ever inlined into the `#[target_feature]` entry points of `traverse`, where the
//! intrinsics compile to the enabled instructions.

use core::arch::x86_64::*;

use super::{ChildRays, Kernel, LeafOut, PacketKernel, PacketLeafOut, PacketRay};
use crate::accel::frustum::Frustum;
use crate::accel::node::{Node8, NodeRay, TriBlock, LEAF_TRIS, PACKET, T_SCALE, WIDTH};
use crate::accel::triangle::TriRay;

/// SSE4.1 kernels.
pub(crate) struct Sse41;

/// AVX2 kernels.
pub(crate) struct Avx2;

/// Box-test constants as 4-wide registers.
#[derive(Clone, Copy)]
pub(crate) struct NRay4 {
    o: [__m128; 3],
    inv: [__m128; 3],
    inv_far: [__m128; 3],
    near: [usize; 3],
    far: [usize; 3],
}

/// Box-test constants as 8-wide registers.
#[derive(Clone, Copy)]
pub(crate) struct NRay8 {
    o: [__m256; 3],
    inv: [__m256; 3],
    inv_far: [__m256; 3],
    near: [usize; 3],
    far: [usize; 3],
}

/// Triangle-test constants, already permuted to the ray's (kx, ky, kz) frame.
#[derive(Clone, Copy)]
pub(crate) struct TRay4 {
    o: [__m128; 3],
    s: [__m128; 3],
    k: [usize; 3],
}

#[inline(always)]
unsafe fn prep_tri4(r: &TriRay) -> TRay4 {
    let o = r.o.to_array();
    TRay4 {
        o: [
            _mm_set1_ps(o[r.kx]),
            _mm_set1_ps(o[r.ky]),
            _mm_set1_ps(o[r.kz]),
        ],
        s: [_mm_set1_ps(r.sx), _mm_set1_ps(r.sy), _mm_set1_ps(r.sz)],
        k: [r.kx, r.ky, r.kz],
    }
}

/// Vertex `j` of a block's lanes relative to the origin and sheared: `(x, y)` in the ray frame,
/// and its unscaled `z`. (Helpers here are functions, not closures: only functions marked
/// `#[inline(always)]` are sure to be inlined into the `#[target_feature]` caller, and an
/// intrinsic left in a function without the feature becomes a call.)
#[inline(always)]
unsafe fn vert4(b: &TriBlock, r: &TRay4, j: usize) -> (__m128, __m128, __m128) {
    let x = _mm_sub_ps(_mm_load_ps(b.v[j][r.k[0]].as_ptr()), r.o[0]);
    let y = _mm_sub_ps(_mm_load_ps(b.v[j][r.k[1]].as_ptr()), r.o[1]);
    let z = _mm_sub_ps(_mm_load_ps(b.v[j][r.k[2]].as_ptr()), r.o[2]);
    (
        _mm_sub_ps(x, _mm_mul_ps(r.s[0], z)),
        _mm_sub_ps(y, _mm_mul_ps(r.s[1], z)),
        z,
    )
}

/// The 4-wide watertight test; the same operations, in the same order, as
/// `TriRay::intersect` (see there for why each step is as it is).
#[inline(always)]
unsafe fn leaf4(b: &TriBlock, r: &TRay4, t_lim: f32, out: &mut LeafOut) -> Option<u32> {
    let zero = _mm_setzero_ps();
    let (ax, ay, a_z) = vert4(b, r, 0);
    let (bx, by, b_z) = vert4(b, r, 1);
    let (cx, cy, c_z) = vert4(b, r, 2);
    let u = _mm_sub_ps(_mm_mul_ps(cx, by), _mm_mul_ps(cy, bx));
    let v = _mm_sub_ps(_mm_mul_ps(ax, cy), _mm_mul_ps(ay, cx));
    let w = _mm_sub_ps(_mm_mul_ps(bx, ay), _mm_mul_ps(by, ax));
    let zeros = _mm_or_ps(
        _mm_or_ps(_mm_cmpeq_ps(u, zero), _mm_cmpeq_ps(v, zero)),
        _mm_cmpeq_ps(w, zero),
    );
    if _mm_movemask_ps(zeros) != 0 {
        return None;
    }
    let neg = _mm_or_ps(
        _mm_or_ps(_mm_cmplt_ps(u, zero), _mm_cmplt_ps(v, zero)),
        _mm_cmplt_ps(w, zero),
    );
    let pos = _mm_or_ps(
        _mm_or_ps(_mm_cmpgt_ps(u, zero), _mm_cmpgt_ps(v, zero)),
        _mm_cmpgt_ps(w, zero),
    );
    let det = _mm_add_ps(_mm_add_ps(u, v), w);
    // det != 0 (true for NaN, as in scalar) and |det| < inf (false for NaN).
    let abs = _mm_andnot_ps(_mm_set1_ps(-0.0), det);
    let det_ok = _mm_and_ps(
        _mm_cmpneq_ps(det, zero),
        _mm_cmplt_ps(abs, _mm_set1_ps(f32::INFINITY)),
    );
    let ok = _mm_andnot_ps(_mm_and_ps(neg, pos), det_ok);
    if _mm_movemask_ps(ok) == 0 {
        return Some(0);
    }
    let az = _mm_mul_ps(r.s[2], a_z);
    let bz = _mm_mul_ps(r.s[2], b_z);
    let cz = _mm_mul_ps(r.s[2], c_z);
    let ts = _mm_add_ps(
        _mm_add_ps(_mm_mul_ps(u, az), _mm_mul_ps(v, bz)),
        _mm_mul_ps(w, cz),
    );
    let rcp = _mm_div_ps(_mm_set1_ps(1.0), det);
    let t = _mm_mul_ps(ts, rcp);
    let t_ok = _mm_and_ps(_mm_cmpgt_ps(t, zero), _mm_cmple_ps(t, _mm_set1_ps(t_lim)));
    let m = _mm_movemask_ps(_mm_and_ps(ok, t_ok)) as u32;
    if m != 0 {
        _mm_store_ps(out.t.as_mut_ptr(), t);
        _mm_store_ps(out.b1.as_mut_ptr(), _mm_mul_ps(v, rcp));
        _mm_store_ps(out.b2.as_mut_ptr(), _mm_mul_ps(w, rcp));
    }
    Some(m)
}

/// Slab distances `(plane − o)·inv` of children `4h..4h+4` for one plane row.
#[inline(always)]
unsafe fn slab4(p: &[[f32; WIDTH]; 6], h: usize, row: usize, o: __m128, inv: __m128) -> __m128 {
    _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(p[row][4 * h..].as_ptr()), o), inv)
}

/// Slab distances `(plane − o)·inv` of all eight children for one plane row.
#[inline(always)]
unsafe fn slab8(p: &[[f32; WIDTH]; 6], row: usize, o: __m256, inv: __m256) -> __m256 {
    _mm256_mul_ps(_mm256_sub_ps(_mm256_load_ps(p[row].as_ptr()), o), inv)
}

impl Kernel for Sse41 {
    type NRay = NRay4;
    type TRay = TRay4;

    #[inline(always)]
    unsafe fn prep_node(r: &NodeRay) -> NRay4 {
        NRay4 {
            o: [
                _mm_set1_ps(r.o[0]),
                _mm_set1_ps(r.o[1]),
                _mm_set1_ps(r.o[2]),
            ],
            inv: [
                _mm_set1_ps(r.inv[0]),
                _mm_set1_ps(r.inv[1]),
                _mm_set1_ps(r.inv[2]),
            ],
            inv_far: [
                _mm_set1_ps(r.inv_far[0]),
                _mm_set1_ps(r.inv_far[1]),
                _mm_set1_ps(r.inv_far[2]),
            ],
            near: r.near,
            far: r.far,
        }
    }

    #[inline(always)]
    unsafe fn prep_tri(r: &TriRay) -> TRay4 {
        prep_tri4(r)
    }

    #[inline(always)]
    unsafe fn node(n: &Node8, r: &NRay4, t_lim: f32, keys: &mut [u32; WIDTH]) -> u32 {
        let p = &n.planes;
        let zero = _mm_setzero_ps();
        // The hit limit widened like the exit planes (same scalar product as the portable path).
        let lim = _mm_set1_ps(t_lim * T_SCALE);
        let low = _mm_set1_epi32(!7);
        let mut mask = 0;
        for h in 0..2 {
            let near = _mm_max_ps(
                _mm_max_ps(
                    slab4(p, h, r.near[0], r.o[0], r.inv[0]),
                    slab4(p, h, r.near[1], r.o[1], r.inv[1]),
                ),
                _mm_max_ps(slab4(p, h, r.near[2], r.o[2], r.inv[2]), zero),
            );
            let far = _mm_min_ps(
                _mm_min_ps(
                    slab4(p, h, r.far[0], r.o[0], r.inv_far[0]),
                    slab4(p, h, r.far[1], r.o[1], r.inv_far[1]),
                ),
                _mm_min_ps(slab4(p, h, r.far[2], r.o[2], r.inv_far[2]), lim),
            );
            mask |= (_mm_movemask_ps(_mm_cmple_ps(near, far)) as u32) << (4 * h);
            let l = 4 * h as i32;
            let lane = _mm_setr_epi32(l, l + 1, l + 2, l + 3);
            let k = _mm_or_si128(_mm_and_si128(_mm_castps_si128(near), low), lane);
            _mm_storeu_si128(keys[4 * h..].as_mut_ptr() as *mut __m128i, k);
        }
        mask
    }

    #[inline(always)]
    unsafe fn leaf(b: &TriBlock, r: &TRay4, t_lim: f32, out: &mut LeafOut) -> Option<u32> {
        leaf4(b, r, t_lim, out)
    }
}

impl Kernel for Avx2 {
    type NRay = NRay8;
    type TRay = TRay4;

    #[inline(always)]
    unsafe fn prep_node(r: &NodeRay) -> NRay8 {
        NRay8 {
            o: [
                _mm256_set1_ps(r.o[0]),
                _mm256_set1_ps(r.o[1]),
                _mm256_set1_ps(r.o[2]),
            ],
            inv: [
                _mm256_set1_ps(r.inv[0]),
                _mm256_set1_ps(r.inv[1]),
                _mm256_set1_ps(r.inv[2]),
            ],
            inv_far: [
                _mm256_set1_ps(r.inv_far[0]),
                _mm256_set1_ps(r.inv_far[1]),
                _mm256_set1_ps(r.inv_far[2]),
            ],
            near: r.near,
            far: r.far,
        }
    }

    #[inline(always)]
    unsafe fn prep_tri(r: &TriRay) -> TRay4 {
        prep_tri4(r)
    }

    #[inline(always)]
    unsafe fn node(n: &Node8, r: &NRay8, t_lim: f32, keys: &mut [u32; WIDTH]) -> u32 {
        let p = &n.planes;
        let near = _mm256_max_ps(
            _mm256_max_ps(
                slab8(p, r.near[0], r.o[0], r.inv[0]),
                slab8(p, r.near[1], r.o[1], r.inv[1]),
            ),
            _mm256_max_ps(slab8(p, r.near[2], r.o[2], r.inv[2]), _mm256_setzero_ps()),
        );
        let far = _mm256_min_ps(
            _mm256_min_ps(
                slab8(p, r.far[0], r.o[0], r.inv_far[0]),
                slab8(p, r.far[1], r.o[1], r.inv_far[1]),
            ),
            _mm256_min_ps(
                slab8(p, r.far[2], r.o[2], r.inv_far[2]),
                _mm256_set1_ps(t_lim * T_SCALE),
            ),
        );
        let mask = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(near, far)) as u32;
        let k = _mm256_or_si256(
            _mm256_and_si256(_mm256_castps_si256(near), _mm256_set1_epi32(!7)),
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        );
        // A plain unaligned store, not `_mm256_storeu_si256`: rustc 1.95 left that intrinsic
        // out of line in the test profile (no LTO; a call of ~20 instructions per node test,
        // 1.6 % of a flagship sample's instructions under callgrind), which the golden and
        // reference tests run on; the release build inlines either. The same `vmovdqu`.
        (keys.as_mut_ptr() as *mut __m256i).write_unaligned(k);
        mask
    }

    #[inline(always)]
    unsafe fn leaf(b: &TriBlock, r: &TRay4, t_lim: f32, out: &mut LeafOut) -> Option<u32> {
        leaf4(b, r, t_lim, out)
    }
}

/// Packet constants: lanes are rays (two 4-wide halves for SSE4.1, one 8-wide register for
/// AVX2; `W` registers of `V` per axis).
#[derive(Clone, Copy)]
pub(crate) struct PRay<V: Copy, const W: usize> {
    o: [[V; W]; 3],
    inv: [[V; W]; 3],
    inv_far: [[V; W]; 3],
    near: [usize; 3],
    far: [usize; 3],
}

/// Slab distances `(plane − o)·inv` of one child against four rays.
#[inline(always)]
unsafe fn slab_rays4(plane: f32, o: __m128, inv: __m128) -> __m128 {
    _mm_mul_ps(_mm_sub_ps(_mm_set1_ps(plane), o), inv)
}

/// Slab distances `(plane − o)·inv` of one child against eight rays.
#[inline(always)]
unsafe fn slab_rays8(plane: f32, o: __m256, inv: __m256) -> __m256 {
    _mm256_mul_ps(_mm256_sub_ps(_mm256_set1_ps(plane), o), inv)
}

/// Four lanes of a packet row.
#[inline(always)]
unsafe fn halves(a: &[f32; PACKET]) -> [__m128; 2] {
    [_mm_loadu_ps(a.as_ptr()), _mm_loadu_ps(a[4..].as_ptr())]
}

/// A packet row as one register.
#[inline(always)]
unsafe fn whole(a: &[f32; PACKET]) -> [__m256; 1] {
    [_mm256_loadu_ps(a.as_ptr())]
}

impl PacketKernel for Sse41 {
    type PRay = PRay<__m128, 2>;

    #[inline(always)]
    unsafe fn prep_packet(p: &PacketRay) -> Self::PRay {
        PRay {
            o: [halves(&p.o[0]), halves(&p.o[1]), halves(&p.o[2])],
            inv: [halves(&p.inv[0]), halves(&p.inv[1]), halves(&p.inv[2])],
            inv_far: [
                halves(&p.inv_far[0]),
                halves(&p.inv_far[1]),
                halves(&p.inv_far[2]),
            ],
            near: p.near,
            far: p.far,
        }
    }

    #[inline(always)]
    unsafe fn node_packet(
        n: &Node8,
        r: &Self::PRay,
        lim: &[f32; PACKET],
        active: u32,
        near: &mut [[f32; PACKET]; WIDTH],
    ) -> ChildRays {
        let p = &n.planes;
        let zero = _mm_setzero_ps();
        let lims = halves(lim);
        let (nx, ny, nz) = (r.near[0], r.near[1], r.near[2]);
        let (fx, fy, fz) = (r.far[0], r.far[1], r.far[2]);
        let mut out = 0;
        for c in 0..WIDTH {
            let mut m = 0u32;
            for h in 0..2 {
                // Lane j: `Sse41::node`'s operations for ray j, in the same order.
                let nr = _mm_max_ps(
                    _mm_max_ps(
                        slab_rays4(p[nx][c], r.o[0][h], r.inv[0][h]),
                        slab_rays4(p[ny][c], r.o[1][h], r.inv[1][h]),
                    ),
                    _mm_max_ps(slab_rays4(p[nz][c], r.o[2][h], r.inv[2][h]), zero),
                );
                let fr = _mm_min_ps(
                    _mm_min_ps(
                        slab_rays4(p[fx][c], r.o[0][h], r.inv_far[0][h]),
                        slab_rays4(p[fy][c], r.o[1][h], r.inv_far[1][h]),
                    ),
                    _mm_min_ps(slab_rays4(p[fz][c], r.o[2][h], r.inv_far[2][h]), lims[h]),
                );
                m |= (_mm_movemask_ps(_mm_cmple_ps(nr, fr)) as u32) << (4 * h);
                _mm_storeu_ps(near[c][4 * h..].as_mut_ptr(), nr);
            }
            out |= ((m & active) as u64) << (8 * c);
        }
        out
    }

    #[inline(always)]
    unsafe fn within(near: &[f32; PACKET], lim: &[f32; PACKET]) -> u32 {
        let (n, l) = (halves(near), halves(lim));
        let lo = _mm_movemask_ps(_mm_cmple_ps(n[0], l[0]));
        let hi = _mm_movemask_ps(_mm_cmple_ps(n[1], l[1]));
        (lo | (hi << 4)) as u32
    }

    type TPacket = ();

    #[inline(always)]
    unsafe fn prep_tri_packet(_: &PacketRay, _: &TriRay) -> Option<()> {
        // Ray by ray: two 4-wide halves per triangle would cost what one ray's 4-wide
        // pass over the block costs.
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

    type FRay = FRay<__m128>;

    #[inline(always)]
    unsafe fn prep_frustum(f: &Frustum) -> FRay<__m128> {
        let s3 = |v: [f32; 3]| [splat4(v[0]), splat4(v[1]), splat4(v[2])];
        let s2 = |v: [f32; 2]| [splat4(v[0]), splat4(v[1])];
        FRay {
            o_near: s3(f.o_near),
            o_far: s3(f.o_far),
            inv: [s2(f.inv[0]), s2(f.inv[1]), s2(f.inv[2])],
            inv_far: [s2(f.inv_far[0]), s2(f.inv_far[1]), s2(f.inv_far[2])],
            near: f.near,
            far: f.far,
        }
    }

    #[inline(always)]
    unsafe fn node_frustum(n: &Node8, f: &FRay<__m128>, lim: f32, near: &mut [f32; WIDTH]) -> u32 {
        let p = &n.planes;
        let zero = _mm_setzero_ps();
        let lim = _mm_set1_ps(lim);
        let mut mask = 0;
        for h in 0..2 {
            // Lane c: `Portable::node_frustum`'s operations for child 4h + c.
            let nr = _mm_max_ps(
                _mm_max_ps(
                    bound4(&p[f.near[0]], h, f.o_near[0], &f.inv[0], false),
                    bound4(&p[f.near[1]], h, f.o_near[1], &f.inv[1], false),
                ),
                _mm_max_ps(
                    bound4(&p[f.near[2]], h, f.o_near[2], &f.inv[2], false),
                    zero,
                ),
            );
            let fr = _mm_min_ps(
                _mm_min_ps(
                    bound4(&p[f.far[0]], h, f.o_far[0], &f.inv_far[0], true),
                    bound4(&p[f.far[1]], h, f.o_far[1], &f.inv_far[1], true),
                ),
                _mm_min_ps(
                    bound4(&p[f.far[2]], h, f.o_far[2], &f.inv_far[2], true),
                    lim,
                ),
            );
            mask |= (_mm_movemask_ps(_mm_cmple_ps(nr, fr)) as u32) << (4 * h);
            _mm_storeu_ps(near[4 * h..].as_mut_ptr(), nr);
        }
        mask
    }
}

impl PacketKernel for Avx2 {
    type PRay = PRay<__m256, 1>;

    #[inline(always)]
    unsafe fn prep_packet(p: &PacketRay) -> Self::PRay {
        PRay {
            o: [whole(&p.o[0]), whole(&p.o[1]), whole(&p.o[2])],
            inv: [whole(&p.inv[0]), whole(&p.inv[1]), whole(&p.inv[2])],
            inv_far: [
                whole(&p.inv_far[0]),
                whole(&p.inv_far[1]),
                whole(&p.inv_far[2]),
            ],
            near: p.near,
            far: p.far,
        }
    }

    #[inline(always)]
    unsafe fn node_packet(
        n: &Node8,
        r: &Self::PRay,
        lim: &[f32; PACKET],
        active: u32,
        near: &mut [[f32; PACKET]; WIDTH],
    ) -> ChildRays {
        let p = &n.planes;
        let zero = _mm256_setzero_ps();
        let lims = _mm256_loadu_ps(lim.as_ptr());
        let (nx, ny, nz) = (r.near[0], r.near[1], r.near[2]);
        let (fx, fy, fz) = (r.far[0], r.far[1], r.far[2]);
        let (o, inv, invf) = (&r.o, &r.inv, &r.inv_far);
        let mut out = 0;
        for c in 0..WIDTH {
            // Lane j: `Avx2::node`'s operations for ray j, in the same order.
            let nr = _mm256_max_ps(
                _mm256_max_ps(
                    slab_rays8(p[nx][c], o[0][0], inv[0][0]),
                    slab_rays8(p[ny][c], o[1][0], inv[1][0]),
                ),
                _mm256_max_ps(slab_rays8(p[nz][c], o[2][0], inv[2][0]), zero),
            );
            let fr = _mm256_min_ps(
                _mm256_min_ps(
                    slab_rays8(p[fx][c], o[0][0], invf[0][0]),
                    slab_rays8(p[fy][c], o[1][0], invf[1][0]),
                ),
                _mm256_min_ps(slab_rays8(p[fz][c], o[2][0], invf[2][0]), lims),
            );
            let m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(nr, fr)) as u32;
            _mm256_storeu_ps(near[c].as_mut_ptr(), nr);
            out |= ((m & active) as u64) << (8 * c);
        }
        out
    }

    #[inline(always)]
    unsafe fn within(near: &[f32; PACKET], lim: &[f32; PACKET]) -> u32 {
        let le = _mm256_cmp_ps::<_CMP_LE_OQ>(whole(near)[0], whole(lim)[0]);
        _mm256_movemask_ps(le) as u32
    }

    type TPacket = TPacket8;

    #[inline(always)]
    unsafe fn prep_tri_packet(p: &PacketRay, first: &TriRay) -> Option<TPacket8> {
        Some(TPacket8 {
            o: [
                whole(&p.tri_o[0])[0],
                whole(&p.tri_o[1])[0],
                whole(&p.tri_o[2])[0],
            ],
            s: [
                whole(&p.tri_s[0])[0],
                whole(&p.tri_s[1])[0],
                whole(&p.tri_s[2])[0],
            ],
            k: [first.kx, first.ky, first.kz],
        })
    }

    #[inline(always)]
    unsafe fn leaf_packet(
        b: &TriBlock,
        p: &TPacket8,
        lim: &[f32; PACKET],
        rays: u32,
        out: &mut PacketLeafOut,
    ) -> (u32, u32) {
        let zero = _mm256_setzero_ps();
        let lims = _mm256_loadu_ps(lim.as_ptr());
        let (mut hits, mut zeros) = (0u32, 0u32);
        for l in 0..LEAF_TRIS {
            // Lane i: `TriRay::intersect` of ray i with triangle l, operation for operation.
            let (ax, ay, a_z) = vert_rays8(b, p, 0, l);
            let (bx, by, b_z) = vert_rays8(b, p, 1, l);
            let (cx, cy, c_z) = vert_rays8(b, p, 2, l);
            let u = _mm256_sub_ps(_mm256_mul_ps(cx, by), _mm256_mul_ps(cy, bx));
            let v = _mm256_sub_ps(_mm256_mul_ps(ax, cy), _mm256_mul_ps(ay, cx));
            let w = _mm256_sub_ps(_mm256_mul_ps(bx, ay), _mm256_mul_ps(by, ax));
            let z = _mm256_or_ps(
                _mm256_or_ps(
                    _mm256_cmp_ps::<_CMP_EQ_OQ>(u, zero),
                    _mm256_cmp_ps::<_CMP_EQ_OQ>(v, zero),
                ),
                _mm256_cmp_ps::<_CMP_EQ_OQ>(w, zero),
            );
            let zm = _mm256_movemask_ps(z) as u32 & rays;
            let neg = _mm256_or_ps(
                _mm256_or_ps(
                    _mm256_cmp_ps::<_CMP_LT_OQ>(u, zero),
                    _mm256_cmp_ps::<_CMP_LT_OQ>(v, zero),
                ),
                _mm256_cmp_ps::<_CMP_LT_OQ>(w, zero),
            );
            let pos = _mm256_or_ps(
                _mm256_or_ps(
                    _mm256_cmp_ps::<_CMP_GT_OQ>(u, zero),
                    _mm256_cmp_ps::<_CMP_GT_OQ>(v, zero),
                ),
                _mm256_cmp_ps::<_CMP_GT_OQ>(w, zero),
            );
            let det = _mm256_add_ps(_mm256_add_ps(u, v), w);
            let abs = _mm256_andnot_ps(_mm256_set1_ps(-0.0), det);
            let det_ok = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_NEQ_UQ>(det, zero),
                _mm256_cmp_ps::<_CMP_LT_OQ>(abs, _mm256_set1_ps(f32::INFINITY)),
            );
            let ok = _mm256_andnot_ps(_mm256_and_ps(neg, pos), det_ok);
            let okm = _mm256_movemask_ps(ok) as u32 & rays & !zm;
            zeros |= zm << (8 * l);
            if okm == 0 {
                continue;
            }
            let az = _mm256_mul_ps(p.s[2], a_z);
            let bz = _mm256_mul_ps(p.s[2], b_z);
            let cz = _mm256_mul_ps(p.s[2], c_z);
            let ts = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(u, az), _mm256_mul_ps(v, bz)),
                _mm256_mul_ps(w, cz),
            );
            let rcp = _mm256_div_ps(_mm256_set1_ps(1.0), det);
            let t = _mm256_mul_ps(ts, rcp);
            let t_ok = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_GT_OQ>(t, zero),
                _mm256_cmp_ps::<_CMP_LE_OQ>(t, lims),
            );
            let m = _mm256_movemask_ps(t_ok) as u32 & okm;
            if m != 0 {
                _mm256_store_ps(out.t[l].as_mut_ptr(), t);
                _mm256_store_ps(out.b1[l].as_mut_ptr(), _mm256_mul_ps(v, rcp));
                _mm256_store_ps(out.b2[l].as_mut_ptr(), _mm256_mul_ps(w, rcp));
                hits |= m << (8 * l);
            }
        }
        (hits, zeros)
    }

    type FRay = FRay<__m256>;

    #[inline(always)]
    unsafe fn frustum(p: &PacketRay, rays: u32) -> Option<Frustum> {
        // Lanes outside `rays` take the first ray's values, so every lane can be reduced.
        let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        let on = _mm256_castsi256_ps(_mm256_cmpeq_epi32(
            _mm256_and_si256(_mm256_set1_epi32(rays as i32), bits),
            bits,
        ));
        let first = rays.trailing_zeros() as usize;
        let mut lo = [[0.0f32; 3]; 3];
        let mut hi = [[0.0f32; 3]; 3];
        let mut nan = 0;
        for (j, a) in [&p.o, &p.inv, &p.inv_far].into_iter().enumerate() {
            for k in 0..3 {
                let v = _mm256_blendv_ps(
                    _mm256_set1_ps(a[k][first]),
                    _mm256_loadu_ps(a[k].as_ptr()),
                    on,
                );
                nan |= _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
                lo[j][k] = reduce8(v, false);
                hi[j][k] = reduce8(v, true);
            }
        }
        // A NaN lane (a direction with a NaN component) could drop out of the reduction.
        if nan != 0 {
            return None;
        }
        Frustum::from_extremes(p, lo, hi)
    }

    #[inline(always)]
    unsafe fn prep_frustum(f: &Frustum) -> FRay<__m256> {
        let s3 = |v: [f32; 3]| [splat8(v[0]), splat8(v[1]), splat8(v[2])];
        let s2 = |v: [f32; 2]| [splat8(v[0]), splat8(v[1])];
        FRay {
            o_near: s3(f.o_near),
            o_far: s3(f.o_far),
            inv: [s2(f.inv[0]), s2(f.inv[1]), s2(f.inv[2])],
            inv_far: [s2(f.inv_far[0]), s2(f.inv_far[1]), s2(f.inv_far[2])],
            near: f.near,
            far: f.far,
        }
    }

    #[inline(always)]
    unsafe fn node_frustum(n: &Node8, f: &FRay<__m256>, lim: f32, near: &mut [f32; WIDTH]) -> u32 {
        let p = &n.planes;
        // Lane c: `Portable::node_frustum`'s operations for child c.
        let nr = _mm256_max_ps(
            _mm256_max_ps(
                bound8(&p[f.near[0]], f.o_near[0], &f.inv[0], false),
                bound8(&p[f.near[1]], f.o_near[1], &f.inv[1], false),
            ),
            _mm256_max_ps(
                bound8(&p[f.near[2]], f.o_near[2], &f.inv[2], false),
                _mm256_setzero_ps(),
            ),
        );
        let fr = _mm256_min_ps(
            _mm256_min_ps(
                bound8(&p[f.far[0]], f.o_far[0], &f.inv_far[0], true),
                bound8(&p[f.far[1]], f.o_far[1], &f.inv_far[1], true),
            ),
            _mm256_min_ps(
                bound8(&p[f.far[2]], f.o_far[2], &f.inv_far[2], true),
                _mm256_set1_ps(lim),
            ),
        );
        _mm256_storeu_ps(near.as_mut_ptr(), nr);
        _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(nr, fr)) as u32
    }
}

/// Bundle bounds as registers of `V` (each value broadcast).
#[derive(Clone, Copy)]
pub(crate) struct FRay<V: Copy> {
    o_near: [V; 3],
    o_far: [V; 3],
    inv: [[V; 2]; 3],
    inv_far: [[V; 2]; 3],
    near: [usize; 3],
    far: [usize; 3],
}

/// `x` in all four lanes (a function, not a closure: see `vert4`).
#[inline(always)]
fn splat4(x: f32) -> __m128 {
    // SAFETY: SSE is part of x86-64.
    unsafe { _mm_set1_ps(x) }
}

/// `x` in all eight lanes.
#[inline(always)]
fn splat8(x: f32) -> __m256 {
    // SAFETY: AVX registers are only built inside the AVX2 entry points, which enable AVX.
    unsafe { _mm256_set1_ps(x) }
}

/// Bounds of the slab distances of children `4h..4h+4` for one plane row: with
/// `x = fl(p − o)`, the least of `x·r[0]`, `x·r[1]`, or with `far` the greatest.
#[inline(always)]
unsafe fn bound4(row: &[f32; WIDTH], h: usize, o: __m128, r: &[__m128; 2], far: bool) -> __m128 {
    let x = _mm_sub_ps(_mm_loadu_ps(row[4 * h..].as_ptr()), o);
    let (a, b) = (_mm_mul_ps(x, r[0]), _mm_mul_ps(x, r[1]));
    if far {
        _mm_max_ps(a, b)
    } else {
        _mm_min_ps(a, b)
    }
}

/// The least (or, with `max`, the greatest) of the eight lanes of `v` (no NaN among them).
#[inline(always)]
unsafe fn reduce8(v: __m256, max: bool) -> f32 {
    let (a, b) = (_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
    let pick = |x: __m128, y: __m128| {
        if max {
            _mm_max_ps(x, y)
        } else {
            _mm_min_ps(x, y)
        }
    };
    let m = pick(a, b);
    let m = pick(m, _mm_movehl_ps(m, m));
    let m = pick(m, _mm_shuffle_ps::<0b01>(m, m));
    _mm_cvtss_f32(m)
}

/// [`bound4`] for all eight children.
#[inline(always)]
unsafe fn bound8(row: &[f32; WIDTH], o: __m256, r: &[__m256; 2], far: bool) -> __m256 {
    let x = _mm256_sub_ps(_mm256_loadu_ps(row.as_ptr()), o);
    let (a, b) = (_mm256_mul_ps(x, r[0]), _mm256_mul_ps(x, r[1]));
    if far {
        _mm256_max_ps(a, b)
    } else {
        _mm256_min_ps(a, b)
    }
}

/// Triangle-test constants of eight rays sharing one shear frame: per lane the ray's origin
/// and shear constants in that frame's axis order.
#[derive(Clone, Copy)]
pub(crate) struct TPacket8 {
    o: [__m256; 3],
    s: [__m256; 3],
    k: [usize; 3],
}

/// Vertex `j` of triangle `l` relative to each ray's origin and sheared, as `vert4` per ray.
#[inline(always)]
unsafe fn vert_rays8(b: &TriBlock, p: &TPacket8, j: usize, l: usize) -> (__m256, __m256, __m256) {
    let x = _mm256_sub_ps(_mm256_set1_ps(b.v[j][p.k[0]][l]), p.o[0]);
    let y = _mm256_sub_ps(_mm256_set1_ps(b.v[j][p.k[1]][l]), p.o[1]);
    let z = _mm256_sub_ps(_mm256_set1_ps(b.v[j][p.k[2]][l]), p.o[2]);
    (
        _mm256_sub_ps(x, _mm256_mul_ps(p.s[0], z)),
        _mm256_sub_ps(y, _mm256_mul_ps(p.s[1], z)),
        z,
    )
}
