//! The Charlie sheen's directional albedo `E(μ, α)` (the weight-1 lobe of [`super::sheen`]:
//! `∫ D V cos θi dωi`), tabulated over the view cosine and the sheen's roughness, so that a
//! sheen layer is built with a row lookup rather than an integral (about a millisecond): a
//! glTF material's KHR_materials_sheen layer is built at each hit where its base varies.
//!
//! Axes: `x = √μ` (32 nodes, [`N_MU`], the per-material table's own) and roughness `r` from
//! 0.1 (`α = r² = ALPHA_MIN`) to 1 ([`N_ROUGH`] nodes, uniform in `r`); lookups are linear in
//! `r` between two rows. The data lives in `sheen_albedo_table.rs`, written by the ignored test
//! `regenerate_sheen_albedo_table`
//! (`cargo test --locked --lib regenerate_sheen_albedo_table -- --ignored`) with the lobe's
//! own quadrature ([`super::sheen::directional_albedo`], 96 × 96 nodes), then raised so that
//! the bilinear interpolant is at least that quadrature (plus 10⁻⁴) at five points inside
//! every cell: a sheen layer takes `E` from its base, so a table that read low would let the
//! pair reflect more than it receives.

use super::sheen::{ALPHA_MIN, N_MU};

/// Nodes along the sheen's roughness `r`, from `√ALPHA_MIN` = 0.1 to 1.
pub const N_ROUGH: usize = 32;

#[allow(clippy::excessive_precision, clippy::unreadable_literal)]
mod table {
    include!("sheen_albedo_table.rs");
}
use table::SHEEN_E_TABLE;

const _: () = assert!(SHEEN_E_TABLE.len() == N_ROUGH * N_MU);

/// The least roughness of the table (`α = ALPHA_MIN`).
fn r_min() -> f32 {
    ALPHA_MIN.sqrt()
}

/// The roughness of node `j`.
#[cfg(test)]
fn node_roughness(j: usize) -> f32 {
    r_min() + (1.0 - r_min()) * j as f32 / (N_ROUGH - 1) as f32
}

/// `μ` of node `i` (`x = i/(N_MU − 1)`, `μ = x²`, at least 10⁻⁴ as the per-material table).
#[cfg(test)]
fn node_mu(i: usize) -> f32 {
    let x = i as f32 / (N_MU - 1) as f32;
    (x * x).max(1e-4)
}

/// `E(μ_k, α)` at the `N_MU` nodes `μ_k = (k/(N_MU − 1))²` for sheen roughness `roughness`
/// (`α = roughness²`; clamped to `[0.1, 1]`, NaN to 0.1), linear in roughness between the
/// table's rows.
pub fn albedo_row(roughness: f32) -> [f32; N_MU] {
    let r = if roughness.is_nan() {
        r_min()
    } else {
        roughness.clamp(r_min(), 1.0)
    };
    let f = (r - r_min()) / (1.0 - r_min()) * (N_ROUGH - 1) as f32;
    let j = (f as usize).min(N_ROUGH - 2);
    let t = (f - j as f32).clamp(0.0, 1.0);
    let (a, b) = (
        &SHEEN_E_TABLE[j * N_MU..(j + 1) * N_MU],
        &SHEEN_E_TABLE[(j + 1) * N_MU..(j + 2) * N_MU],
    );
    std::array::from_fn(|i| (1.0 - t) * a[i] + t * b[i])
}

#[cfg(test)]
mod tests {
    use super::super::sheen::directional_albedo;
    use super::*;

    /// The table's value at fractional node coordinates (`jf` along roughness, `xf` along
    /// `√μ`, both in node units), bilinear, as [`albedo_row`] and the layer's `μ` lerp read it.
    fn interpolated(t: &[f32], jf: f64, xf: f64) -> f64 {
        let (j, i) = ((jf as usize).min(N_ROUGH - 2), (xf as usize).min(N_MU - 2));
        let (a, c) = (jf - j as f64, xf - i as f64);
        let at = |j: usize, i: usize| t[j * N_MU + i] as f64;
        (1.0 - a) * ((1.0 - c) * at(j, i) + c * at(j, i + 1))
            + a * ((1.0 - c) * at(j + 1, i) + c * at(j + 1, i + 1))
    }

    /// The quadrature at fractional node coordinates.
    fn truth(jf: f64, xf: f64) -> f64 {
        let r = r_min() as f64 + (1.0 - r_min() as f64) * jf / (N_ROUGH - 1) as f64;
        let x = xf / (N_MU - 1) as f64;
        directional_albedo((r * r) as f32, ((x * x) as f32).max(1e-4)) as f64
    }

    const OFFSETS: [(f64, f64); 5] = [
        (0.5, 0.5),
        (0.25, 0.25),
        (0.25, 0.75),
        (0.75, 0.25),
        (0.75, 0.75),
    ];

    /// Every node by quadrature, then each cell's corners raised by the largest shortfall of
    /// its interpolant below the quadrature (+10⁻⁴) at `OFFSETS` (raising all four corners by
    /// `d` raises the bilinear interpolant by `d` everywhere in the cell; raises never lower
    /// a neighbour, so one pass suffices).
    fn compute_table() -> Vec<f32> {
        let mut t = vec![0.0f32; N_ROUGH * N_MU];
        for j in 0..N_ROUGH {
            let r = node_roughness(j);
            for i in 0..N_MU {
                t[j * N_MU + i] = directional_albedo(r * r, node_mu(i));
            }
        }
        for j in 0..N_ROUGH - 1 {
            for i in 0..N_MU - 1 {
                let mut d = 0.0f64;
                for (a, c) in OFFSETS {
                    let (jf, xf) = (j as f64 + a, i as f64 + c);
                    d = d.max(truth(jf, xf) + 1e-4 - interpolated(&t, jf, xf));
                }
                if d > 0.0 {
                    for (dj, di) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        t[(j + dj) * N_MU + i + di] += d as f32;
                    }
                }
            }
        }
        t
    }

    #[test]
    #[ignore = "writes src/materials/sheen_albedo_table.rs"]
    fn regenerate_sheen_albedo_table() {
        let table = compute_table();
        let mut src = String::from(
            "// Generated by materials::sheen_albedo::tests::regenerate_sheen_albedo_table; do not\n\
             // edit. E(μ) of the weight-1 Charlie sheen lobe, indexed\n\
             // [roughness node * N_MU + √μ node] (see the parent module for the axes).\n\
             /// The tabulated sheen albedo.\n\
             #[rustfmt::skip]\n",
        );
        src.push_str(&format!(
            "pub static SHEEN_E_TABLE: [f32; {}] = [\n",
            table.len()
        ));
        for row in table.chunks(N_MU) {
            let cells: Vec<String> = row.iter().map(|v| format!("{v:.6}")).collect();
            src.push_str("    ");
            src.push_str(&cells.join(", "));
            src.push_str(",\n");
        }
        src.push_str("];\n");
        let path = std::path::Path::new(file!()).with_file_name("sheen_albedo_table.rs");
        std::fs::write(&path, src).expect("sheen_albedo_table.rs is writable");
    }

    /// Off its nodes (cell points other than those the raise used, and roughnesses between
    /// rows as `albedo_row` reads them), the table is never below the direct quadrature by more
    /// than the quadrature's own 10⁻³, and reads at most 0.03 above it (the raise's price); at
    /// the nodes it is the quadrature or above.
    #[test]
    fn the_table_bounds_the_direct_integral_off_its_nodes() {
        let t = &SHEEN_E_TABLE[..];
        let mut worst = (0.0f64, 0.0f64);
        for (jf, xf) in [
            (0.4, 3.3),
            (2.7, 0.6),
            (5.5, 17.2),
            (9.1, 28.9),
            (15.6, 30.4),
            (20.3, 1.8),
            (27.8, 12.5),
            (30.6, 24.1),
        ] {
            let (want, got) = (truth(jf, xf), interpolated(t, jf, xf));
            eprintln!("node ({jf}, {xf}): table {got:.5} quadrature {want:.5}");
            assert!(got >= want - 1e-3, "({jf}, {xf}): {got} < {want}");
            assert!(got <= want + 0.03, "({jf}, {xf}): {got} ≫ {want}");
            worst = (worst.0.min(got - want), worst.1.max(got - want));
        }
        eprintln!("table − quadrature in [{:.5}, {:.5}]", worst.0, worst.1);
        // `albedo_row` between rows is the same interpolant.
        let r = 0.37f32;
        let jf = ((r - r_min()) / (1.0 - r_min()) * (N_ROUGH - 1) as f32) as f64;
        let row = albedo_row(r);
        for i in [0usize, 7, 19, 31] {
            let want = interpolated(t, jf, i as f64);
            assert!(
                (row[i] as f64 - want).abs() < 1e-6,
                "{i}: {} vs {want}",
                row[i]
            );
        }
        for j in [0usize, 13, 31] {
            for i in [1usize, 16, 31] {
                let q = directional_albedo(node_roughness(j).powi(2), node_mu(i));
                assert!(t[j * N_MU + i] >= q - 1e-6, "node ({j}, {i})");
            }
        }
    }
}
