//! The rough dielectric's multiple-scattering compensation (see the lobe's module
//! documentation and docs/materials.md, "Rough dielectric: multiple-scattering
//! compensation"): the tabulated single-scattering albedo `E` over (side, index,
//! roughness, √|μ|), its averages, and the lobe that returns `1 − E`.

use std::f32::consts::PI;

use super::super::albedo::{axis, rough_coord};
use super::super::positive;

/// Table nodes along `x = √|μ|`, on each side.
pub(super) const N_MU: usize = 32;
/// Table nodes along the roughness coordinate (`albedo::rough_coord`).
pub(super) const N_ROUGH: usize = 16;
/// Table nodes along the index coordinate ([`eta_coord`]).
pub(super) const N_ETA: usize = 16;
/// Rows (one roughness, one index) per side.
pub(super) const N_ROWS: usize = N_ETA * N_ROUGH;

#[allow(clippy::unreadable_literal)]
pub(super) mod table {
    include!("../dielectric_albedo_table.rs");
}
pub(super) use table::E_TABLE;

const _: () = assert!(E_TABLE.len() == 2 * N_ROWS * N_MU);

/// `E_TABLE` holds `E` in units of 1/65535 (rounded up, so the bound from above survives).
pub(super) const E_UNIT: f32 = 1.0 / 65535.0;

/// `√F0` at [`IOR_MAX`](super::IOR_MAX): `(4 − 1)/(4 + 1)`.
pub(super) const SQRT_F0_MAX: f32 = 0.6;
/// `√(√F0/SQRT_F0_MAX)` at [`IOR_MATCHED_BELOW`](super::IOR_MATCHED_BELOW), where the index
/// axis starts.
pub(super) const ETA_T_MIN: f32 = 0.028_860_3;

/// Index axis coordinate in `[0, 1]`: `t = √(√F0(η)/√F0(4))` (= F0^¼, scaled), then mapped so
/// that `η = 1.001` is 0 and `η = 4` is 1. Nodes are dense near `η = 1`, where the inside
/// albedo changes fastest, and at 1.3–2 (water, glass) they are about 0.05 in `η` apart.
pub(super) fn eta_coord(eta: f32) -> f32 {
    let s = ((eta - 1.0) / (eta + 1.0)).max(0.0);
    let t = (s / SQRT_F0_MAX).sqrt();
    (t - ETA_T_MIN) / (1.0 - ETA_T_MIN)
}

/// `E_avg = ∫ E(μ) 2μ dμ` of every (side, index, roughness) row, integrating its
/// piecewise-linear curve in `x = √μ` exactly (`2μ dμ = 4x³ dx`), as `albedo::row_e_avg` does
/// for `f32` rows. Linear in the row, so the bilinear blend of four rows' averages is the
/// average of the blended curve.
pub(super) static E_AVG: [f32; 2 * N_ROWS] = e_avg_table();

pub(super) const fn e_avg_table() -> [f32; 2 * N_ROWS] {
    let mut out = [0.0f32; 2 * N_ROWS];
    let h = 1.0 / (N_MU - 1) as f64;
    let mut row = 0;
    while row < 2 * N_ROWS {
        let mut sum = 0.0f64;
        let mut i = 0;
        while i + 1 < N_MU {
            let x0 = i as f64 * h;
            let x1 = x0 + h;
            let e0 = E_TABLE[row * N_MU + i] as f64 / 65535.0;
            let e1 = E_TABLE[row * N_MU + i + 1] as f64 / 65535.0;
            let b = (e1 - e0) / h;
            let a = e0 - b * x0;
            let (x0_4, x1_4) = (x0 * x0 * x0 * x0, x1 * x1 * x1 * x1);
            sum += a * (x1_4 - x0_4) + 0.8 * b * (x1_4 * x1 - x0_4 * x0);
            i += 1;
        }
        out[row] = sum as f32;
        row += 1;
    }
    out
}

/// The integration weights of the table's `√|μ|` segments: for `1 − E` linear in `x` on
/// segment `i` (`x0 = i h` to `x1 = x0 + h`), `∫ (1 − E(x)) 4x³ dx = (1 − E(x0)) c0[i] +
/// (1 − E(x1)) c1[i]` (`4x³ dx = 2μ dμ`, the cosine-weighted measure), `a[i] = x1⁴ − x0⁴` is
/// the segment's share of `∫ 2μ dμ = 1`, and `m0 = c0/a`, `m1 = c1/a` give the segment's mean
/// of `1 − E` without a division.
pub(super) struct Segments {
    pub(super) c0: [f32; N_MU - 1],
    pub(super) c1: [f32; N_MU - 1],
    pub(super) a: [f32; N_MU - 1],
    pub(super) m0: [f32; N_MU - 1],
    pub(super) m1: [f32; N_MU - 1],
}

pub(super) static SEGMENTS: Segments = segments();

pub(super) const fn segments() -> Segments {
    let mut out = Segments {
        c0: [0.0; N_MU - 1],
        c1: [0.0; N_MU - 1],
        a: [0.0; N_MU - 1],
        m0: [0.0; N_MU - 1],
        m1: [0.0; N_MU - 1],
    };
    let h = 1.0 / (N_MU - 1) as f64;
    let mut i = 0;
    while i + 1 < N_MU {
        let x0 = i as f64 * h;
        let x1 = x0 + h;
        let (x0_4, x1_4) = (x0 * x0 * x0 * x0, x1 * x1 * x1 * x1);
        // ∫ 4x³ dx and ∫ x 4x³ dx over the segment; the linear weights are (x1 − x)/h and
        // (x − x0)/h.
        let a = x1_4 - x0_4;
        let b = 0.8 * (x1_4 * x1 - x0_4 * x0);
        out.c0[i] = ((x1 * a - b) / h) as f32;
        out.c1[i] = ((b - x0 * a) / h) as f32;
        out.a[i] = a as f32;
        out.m0[i] = ((x1 * a - b) / h / a) as f32;
        out.m1[i] = ((b - x0 * a) / h / a) as f32;
        i += 1;
    }
    out
}

/// The multiple-scattering compensation of one interface: the table's four (index,
/// roughness) corner rows and their weights, found once so each `E(μ)` is eight lerped loads,
/// and the lobe's normalisation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct MultiScatter {
    /// Start of each corner's outside row in `E_TABLE`; the inside row is `N_ROWS · N_MU`
    /// further.
    pub(super) rows: [u32; 4],
    /// Bilinear weight of each corner.
    pub(super) weights: [f32; 4],
    /// `1/D`, `D = π (1 − E_avg,out) + η² π (1 − E_avg,in)`; 0 when the lobe is off (delta
    /// interfaces, or nothing to restore).
    pub(super) inv_d: f32,
    /// `π (1 − E_avg,out)/D`: the share of the lobe's energy that leaves on the outside, from
    /// either side, and the probability of sampling it there.
    pub(super) p_out: f32,
}

impl MultiScatter {
    /// No compensation.
    pub(super) const OFF: MultiScatter = MultiScatter {
        rows: [0; 4],
        weights: [0.0; 4],
        inv_d: 0.0,
        p_out: 0.0,
    };

    /// The compensation for index `eta` in `[IOR_MATCHED_BELOW, IOR_MAX]` and `roughness` in
    /// `[ROUGHNESS_MIN, 1]`.
    pub(super) fn new(eta: f32, roughness: f32) -> MultiScatter {
        let (k, wk) = axis(eta_coord(eta), N_ETA);
        let (j, wj) = axis(rough_coord(roughness), N_ROUGH);
        let row = |k: usize, j: usize| k * N_ROUGH + j;
        let corners = [row(k, j), row(k, j + 1), row(k + 1, j), row(k + 1, j + 1)];
        let weights = [
            (1.0 - wk) * (1.0 - wj),
            (1.0 - wk) * wj,
            wk * (1.0 - wj),
            wk * wj,
        ];
        let (mut avg_out, mut avg_in) = (0.0f32, 0.0f32);
        for (c, w) in corners.iter().zip(weights) {
            avg_out += w * E_AVG[*c];
            avg_in += w * E_AVG[N_ROWS + *c];
        }
        let d_out = PI * (1.0 - avg_out).max(0.0);
        let d_in = eta * eta * PI * (1.0 - avg_in).max(0.0);
        let d = d_out + d_in;
        // Below 10⁻⁶ there is nothing measurable to restore; 1/D stays ≤ 10⁶.
        if d.is_nan() || d <= 1e-6 {
            return MultiScatter::OFF;
        }
        MultiScatter {
            rows: corners.map(|c| (c * N_MU) as u32),
            weights,
            inv_d: 1.0 / d,
            p_out: (d_out / d).clamp(0.0, 1.0),
        }
    }

    /// `E` at node `i` of the blended row on side `side` (0 outside, `N_ROWS · N_MU`
    /// inside), in `[0, 1]`.
    pub(super) fn node(&self, side: usize, i: usize) -> f32 {
        let mut e = 0.0;
        for (row, w) in self.rows.iter().zip(self.weights) {
            e += w * E_TABLE[side + *row as usize + i] as f32;
        }
        (e * E_UNIT).clamp(0.0, 1.0)
    }

    /// The tabulated single-scattering energy albedo `E` at signed `mu` (outside when
    /// positive), in `[0, 1]`; at least the true one (the table bounds it from above). Also
    /// the mean of `1 − E` over `mu`'s table segment, cosine weighted (`∫ (1 − E) 2μ dμ /
    /// ∫ 2μ dμ` there): the compensation lobe is sampled piecewise by it.
    pub(super) fn e_and_segment_mean(&self, mu: f32) -> (f32, f32) {
        let side = if mu < 0.0 { N_ROWS * N_MU } else { 0 };
        let x = if mu.is_nan() {
            0.0
        } else {
            mu.abs().min(1.0).sqrt()
        };
        let (i, t) = axis(x, N_MU);
        // Both nodes of every corner in one pass (adjacent in the table).
        let (mut e0, mut e1) = (0.0f32, 0.0f32);
        for (row, w) in self.rows.iter().zip(self.weights) {
            let start = side + *row as usize + i;
            if let Some(&[a, b]) = E_TABLE.get(start..start + 2) {
                e0 += w * a as f32;
                e1 += w * b as f32;
            }
        }
        let e0 = (e0 * E_UNIT).clamp(0.0, 1.0);
        let e1 = (e1 * E_UNIT).clamp(0.0, 1.0);
        let e = ((1.0 - t) * e0 + t * e1).clamp(0.0, 1.0);
        let mean = (1.0 - e0) * SEGMENTS.m0[i] + (1.0 - e1) * SEGMENTS.m1[i];
        (e, mean.max(0.0))
    }

    /// `E` at signed `mu` (see [`MultiScatter::e_and_segment_mean`]).
    pub(super) fn e(&self, mu: f32) -> f32 {
        self.e_and_segment_mean(mu).0
    }

    /// Draws `|μ|` on side `side` with density `∝ (1 − E(μ)) μ` piecewise: a segment of the
    /// table by its weight `∫ (1 − E) 2μ dμ` (`u.x`), then `μ` within it by the cosine (the
    /// rest of `u.x`). `None` when the side has nothing to restore.
    pub(super) fn sample_mu(&self, side: usize, ux: f32) -> Option<f32> {
        let mut w = [0.0f32; N_MU - 1];
        let mut total = 0.0;
        let mut d0 = 1.0 - self.node(side, 0);
        for (i, wi) in w.iter_mut().enumerate() {
            let d1 = 1.0 - self.node(side, i + 1);
            *wi = (d0 * SEGMENTS.c0[i] + d1 * SEGMENTS.c1[i]).max(0.0);
            total += *wi;
            d0 = d1;
        }
        if !positive(total) {
            return None;
        }
        let mut target = ux.clamp(0.0, 1.0) * total;
        // The last segment with weight takes what rounding leaves over.
        let last = w.iter().rposition(|&v| v > 0.0)?;
        let mut i = 0;
        while i < last && target >= w[i] {
            target -= w[i];
            i += 1;
        }
        let frac = (target / w[i]).clamp(0.0, 1.0);
        let h = 1.0 / (N_MU - 1) as f32;
        let x0 = i as f32 * h;
        let x0_4 = (x0 * x0) * (x0 * x0);
        // x⁴ uniform on the segment is the cosine density in μ = x².
        let mu = (x0_4 + frac * SEGMENTS.a[i]).sqrt();
        Some(mu.min(1.0))
    }
}
