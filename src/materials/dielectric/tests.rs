use super::multiscatter::*;
use super::*;
use crate::materials::testutil::{chi2_test, odd_dirs, spherical_dir, Rng, ODD_VALUES};
use std::f64::consts::{PI, TAU};

/// The single-scattering energy albedo `E(μ)` (reflected plus transmitted power, no radiance
/// factor) of a rough interface of index `eta` and width `alpha`, seen from signed `mu`
/// (outside when positive): [`single_scattering_power`] with a weight of 1.
fn ss_albedo_quadrature(eta: f32, alpha: f32, mu: f64, n_phi: usize, n_v: usize) -> f64 {
    single_scattering_power(eta, &Ggx::new(alpha), mu, |_| 1.0, n_phi, n_v)
}

fn dir(cos_theta: f32, phi: f32) -> Vec3 {
    spherical_dir(cos_theta as f64, phi as f64)
}

/// The index on `w`'s side.
fn side_index(d: &Dielectric, w: Vec3) -> f32 {
    if w.z > 0.0 {
        1.0
    } else {
        d.eta()
    }
}

/// Textbook Fresnel in f64 from indices on either side, total internal reflection
/// included: an independent reference.
fn fresnel_reference(cos_i: f64, n_i: f64, n_t: f64) -> f64 {
    let sin_t = n_i / n_t * (1.0 - cos_i * cos_i).max(0.0).sqrt();
    if sin_t >= 1.0 {
        return 1.0;
    }
    let cos_t = (1.0 - sin_t * sin_t).sqrt();
    let rs = (n_i * cos_i - n_t * cos_t) / (n_i * cos_i + n_t * cos_t);
    let rp = (n_t * cos_i - n_i * cos_t) / (n_t * cos_i + n_i * cos_t);
    0.5 * (rs * rs + rp * rp)
}

/// The sampled estimate at `wo` of the power albedo `∫ f (η_i/η_o)² |μi| dωi` (the
/// fraction of the power arriving along `wo` that leaves, reflected or transmitted: at most
/// 1) and of the radiance-mode albedo `∫ f |μi| dωi`, with the standard error of the first.
fn albedo(d: &Dielectric, wo: Vec3, n: usize, seed: u64) -> (f64, f64, f64) {
    let mut rng = Rng::new(seed);
    let (mut sum, mut sum2, mut radiance) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..n {
        if let Some(s) = d.sample_f(wo, rng.f32(), rng.vec2()) {
            let w = (s.f.x * s.wi.z.abs() / s.pdf) as f64;
            let e = d.relative_eta(wo, s.wi) as f64;
            sum += w * e * e;
            sum2 += (w * e * e).powi(2);
            radiance += w;
        }
    }
    let mean = sum / n as f64;
    let var = (sum2 / n as f64 - mean * mean).max(0.0);
    (mean, (var / n as f64).sqrt(), radiance / n as f64)
}

/// The (η, roughness, signed μ) at fractional table coordinates (in node units): index
/// `k`, roughness `j`, `x = √|μ|` node `i`, `inside` for the −Z side.
fn coord_params(k: f64, j: f64, i: f64, inside: bool) -> (f32, f32, f64) {
    let t = ETA_T_MIN as f64 + (1.0 - ETA_T_MIN as f64) * k / (N_ETA - 1) as f64;
    let s = t * t * SQRT_F0_MAX as f64;
    let eta = (1.0 + s) / (1.0 - s);
    let tr = j / (N_ROUGH - 1) as f64;
    let r = ROUGHNESS_MIN as f64 + (1.0 - ROUGHNESS_MIN as f64) * tr * tr;
    let x = i / (N_MU - 1) as f64;
    let mu = if inside { -x * x } else { x * x };
    (eta as f32, r as f32, mu)
}

/// Index of node (side, k, j, i) in `E_TABLE`.
fn node_index(inside: bool, k: usize, j: usize, i: usize) -> usize {
    ((inside as usize * N_ETA + k) * N_ROUGH + j) * N_MU + i
}

/// Computes every node (quadrature on 256 azimuths × 256), then raises nodes until the
/// trilinear interpolant (index, roughness, √|μ|) is at least the true `E` (128 × 128, plus
/// 3·10⁻⁴ for that quadrature's own error) at nine points inside every cell: its centre and
/// the eight points a quarter in from its corners. The compensation restores `1 − E_table`, so a table below the
/// truth would return more than was lost (furnace above 1). Raising a cell's eight corners
/// by the shortfall raises its interpolant by exactly that everywhere in it and never lowers
/// a neighbour, so one pass suffices. The μ = 0 nodes (left at 0 by the quadrature; `E`
/// tends to a positive limit there) are set from the cells above them, raising only them
/// (by the shortfall over their weight), so the true value at the first node above the
/// horizon is kept. Values are capped at 1.
fn compute_table() -> Vec<f32> {
    let mut t = vec![0.0f32; 2 * N_ROWS * N_MU];
    for inside in [false, true] {
        for k in 0..N_ETA {
            for j in 0..N_ROUGH {
                for i in 1..N_MU {
                    let (eta, r, mu) = coord_params(k as f64, j as f64, i as f64, inside);
                    t[node_index(inside, k, j, i)] =
                        ss_albedo_quadrature(eta, r * r, mu, 128, 256).min(1.0) as f32;
                }
            }
        }
    }
    let before = t.clone();
    let mut offsets = vec![(0.5f64, 0.5f64, 0.5f64)];
    for a in [0.25, 0.75] {
        for b in [0.25, 0.75] {
            for c in [0.25, 0.75] {
                offsets.push((a, b, c));
            }
        }
    }
    for inside in [false, true] {
        for k in 0..N_ETA - 1 {
            for j in 0..N_ROUGH - 1 {
                for i in 0..N_MU - 1 {
                    for &(a, b, c) in &offsets {
                        let (eta, r, mu) =
                            coord_params(k as f64 + a, j as f64 + b, i as f64 + c, inside);
                        let truth = ss_albedo_quadrature(eta, r * r, mu, 64, 128) + 3e-4;
                        let mut interp = 0.0f64;
                        for (dk, wa) in [(0, 1.0 - a), (1, a)] {
                            for (dj, wb) in [(0, 1.0 - b), (1, b)] {
                                for (di, wc) in [(0, 1.0 - c), (1, c)] {
                                    let node = node_index(inside, k + dk, j + dj, i + di);
                                    interp += wa * wb * wc * t[node] as f64;
                                }
                            }
                        }
                        let d = truth.min(1.0) - interp;
                        if d <= 0.0 {
                            continue;
                        }
                        let (dis, wi) = if i == 0 {
                            (&[0usize][..], 1.0 - c)
                        } else {
                            (&[0usize, 1][..], 1.0)
                        };
                        let raise = (d / wi) as f32;
                        for dk in 0..2 {
                            for dj in 0..2 {
                                for &di in dis {
                                    let v = &mut t[node_index(inside, k + dk, j + dj, i + di)];
                                    *v = (*v + raise).min(1.0);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let raised = t
        .iter()
        .zip(&before)
        .enumerate()
        .filter(|(n, _)| n % N_MU != 0)
        .map(|(_, (a, b))| a - b)
        .fold(0.0f32, f32::max);
    eprintln!("dielectric albedo table: largest raise of a node above the horizon {raised:.5}");
    t
}

#[test]
#[ignore = "writes dielectric_albedo_table.rs; run by hand after changing the single-scattering model"]
fn regenerate_dielectric_albedo_table() {
    let table = compute_table();
    let mut src = format!(
        "// Generated by materials::dielectric::tests::regenerate_dielectric_albedo_table\n\
         // (cargo test --lib regenerate_dielectric_albedo_table -- --ignored); do\n\
         // not edit. E(μ): the single-scattering energy albedo (reflected + transmitted\n\
         // power) of the rough dielectric interface, by quadrature over visible normals\n\
         // (256 azimuths × 256), raised so that the trilinear interpolant bounds it from above, in units\n\
         // of 1/65535 rounded up. Indexed [((side * {N_ETA} + index node) * {N_ROUGH} +\n\
         // roughness node) * {N_MU} + √|μ| node], side 0 outside (+Z), 1 inside.\n\
         /// The tabulated single-scattering energy albedo (see the parent module for the axes).\n\
         #[rustfmt::skip]\n\
         pub static E_TABLE: [u16; {}] = [\n",
        table.len()
    );
    for row in table.chunks(N_MU / 2) {
        let cells: Vec<String> = row
            .iter()
            .map(|v| {
                format!(
                    "{}",
                    (*v as f64 * 65535.0).ceil().clamp(0.0, 65535.0) as u16
                )
            })
            .collect();
        src.push_str("    ");
        src.push_str(&cells.join(", "));
        src.push_str(",\n");
    }
    src.push_str("];\n");
    let path = std::path::Path::new(file!()).with_file_name("dielectric_albedo_table.rs");
    std::fs::write(&path, src).expect("dielectric_albedo_table.rs is writable");
}

#[test]
fn smooth_splits_into_fresnel_r_and_t_at_every_angle() {
    for ior in [1.33f32, 1.5, 2.4, 4.0] {
        let d = Dielectric::new(ior, 0.0);
        assert!(d.is_specular());
        for k in 1..=400 {
            // Both sides, never exactly on the horizon.
            let cos_o = -1.0 + (k as f32 - 0.5) / 200.0;
            let wo = dir(cos_o, 0.4 + k as f32);
            let (n_o, n_t) = if cos_o > 0.0 {
                (1.0, ior as f64)
            } else {
                (ior as f64, 1.0)
            };
            let expect_r = fresnel_reference(cos_o.abs() as f64, n_o, n_t);
            let refl = d.sample_f(wo, 0.0, Vec2::ZERO).unwrap();
            assert!(refl.specular);
            assert!((refl.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-6);
            assert!(
                (refl.pdf as f64 - expect_r).abs() < 2e-6,
                "η {ior} cos {cos_o}: R {} vs {expect_r}",
                refl.pdf
            );
            // Mirror: f |μi| / pdf = 1 exactly in power and in radiance.
            assert!((refl.f.x * refl.wi.z.abs() / refl.pdf - 1.0).abs() < 1e-6);
            match d.sample_f(wo, 0.999_999_9, Vec2::ZERO) {
                Some(tr) if tr.wi.z * wo.z < 0.0 => {
                    assert!(tr.specular);
                    // R + T = 1 to f32 rounding.
                    assert!((refl.pdf + tr.pdf - 1.0).abs() <= 1.2e-7, "{}", tr.pdf);
                    // Snell: η_o sin θo = η_i sin θi, azimuth turned by π, unit length.
                    let (sin_o, sin_i) = (wo.truncate().length(), tr.wi.truncate().length());
                    let n_i = side_index(&d, tr.wi);
                    assert!(
                        (side_index(&d, wo) * sin_o - n_i * sin_i).abs() < 1e-5,
                        "η {ior} cos {cos_o}: {sin_o} {sin_i}"
                    );
                    assert!(tr.wi.truncate().dot(wo.truncate()) <= 0.0);
                    assert!((tr.wi.length() - 1.0).abs() < 1e-6);
                    // Power weight 1; radiance weight (η_o/η_i)².
                    let e = d.relative_eta(wo, tr.wi);
                    let w = tr.f.x * tr.wi.z.abs() / tr.pdf;
                    assert!((w * e * e - 1.0).abs() < 2e-6, "{w} {e}");
                    assert_eq!(e, n_i / side_index(&d, wo));
                }
                // Only total internal reflection may refuse to transmit.
                other => assert!(
                    expect_r == 1.0 || (1.0 - expect_r) < 1e-6,
                    "η {ior} cos {cos_o}: {other:?}, R {expect_r}"
                ),
            }
        }
    }
}

#[test]
fn smooth_sampling_frequencies_match_fresnel() {
    let d = Dielectric::new(1.5, 0.02);
    assert!(d.is_specular());
    let n = 100_000;
    for (i, cos_o) in [1.0f32, 0.5, 0.1, -1.0, -0.8, -0.75]
        .into_iter()
        .enumerate()
    {
        let wo = dir(cos_o, 1.0);
        let mut rng = Rng::new(50 + i as u64);
        let (mut reflected, mut transmitted) = (0usize, 0usize);
        for _ in 0..n {
            let s = d.sample_f(wo, rng.f32(), rng.vec2()).unwrap();
            assert!(s.specular);
            if s.wi.z * wo.z > 0.0 {
                reflected += 1;
            } else {
                transmitted += 1;
            }
        }
        assert_eq!(reflected + transmitted, n);
        let (n_o, n_t) = if cos_o > 0.0 { (1.0, 1.5) } else { (1.5, 1.0) };
        let r = fresnel_reference(cos_o.abs() as f64, n_o, n_t);
        let sigma = (r * (1.0 - r) / n as f64).sqrt();
        let got = reflected as f64 / n as f64;
        assert!(
            (got - r).abs() <= 5.0 * sigma + 1e-6,
            "cos {cos_o}: {got} vs {r}"
        );
    }
}

#[test]
fn total_internal_reflection_beyond_the_critical_angle() {
    for ior in [1.33f32, 1.5, 2.4] {
        let cos_c = (1.0 - 1.0 / (ior * ior)).sqrt();
        for roughness in [0.0f32, 0.02] {
            let d = Dielectric::new(ior, roughness);
            // From inside, beyond the critical angle (|μ| < cos θc): every sample reflects.
            for k in 1..20 {
                let cos_o = -(k as f32 / 20.0) * cos_c * 0.999;
                let wo = dir(cos_o, 2.0);
                for uc in [0.0f32, 0.5, 0.999_999_9] {
                    let s = d.sample_f(wo, uc, Vec2::ZERO).unwrap();
                    assert_eq!(s.pdf, 1.0, "η {ior} cos {cos_o}");
                    assert!((s.wi - Vec3::new(-wo.x, -wo.y, wo.z)).length() < 1e-6);
                    assert!((s.f.x * s.wi.z.abs() - 1.0).abs() < 1e-6);
                }
            }
            // Just inside the critical angle it transmits again.
            let wo = dir(-(cos_c + 0.01).min(1.0), 2.0);
            let s = d.sample_f(wo, 0.999_999_9, Vec2::ZERO).unwrap();
            assert!(s.wi.z > 0.0 && s.pdf > 0.0);
        }
    }
}

/// (ior, roughness, cos θo): both sides, normal incidence, beyond the critical angle from
/// inside, grazing.
const CHI2_CONFIGS: [(f32, f32, f32); 10] = [
    (1.5, 0.3, 0.8),
    (1.5, 0.3, -0.8),
    (1.5, 0.6, 0.3),
    (1.5, 0.6, -0.5),
    (1.33, 1.0, 0.95),
    (2.4, 0.4, -0.2),
    (1.5, 1.0, -0.05),
    (1.1, 0.5, 0.6),
    (1.5, 0.45, 1.0),
    (1.5, 0.45, -1.0),
];

#[test]
fn rough_sampling_passes_chi2_over_the_sphere() {
    let mut report = String::from("\n∫ pdf over the sphere (rough dielectric)\n");
    for (i, (ior, r, cos_o)) in CHI2_CONFIGS.into_iter().enumerate() {
        let d = Dielectric::new(ior, r);
        let wo = dir(cos_o, 0.7);
        let name = format!("dielectric η {ior} roughness {r} cos θo {cos_o}");
        let integral = chi2_test(
            &name,
            |u, uc| d.sample_f(wo, uc, u).map(|s| s.wi),
            |wi| d.pdf(wo, wi) as f64,
            400_000,
            CHI2_CONFIGS.len(),
            300 + i as u64,
        );
        // The missing mass is the reflections sent below and refractions sent back: it is
        // checked against the samples' misses inside chi2_test.
        assert!(integral <= 1.0 + 2e-3, "{name}: ∫ pdf = {integral}");
        assert!(integral > 0.5, "{name}: ∫ pdf = {integral}");
        report.push_str(&format!("{name}: {integral:.4}\n"));
    }
    eprintln!("{report}");
}

/// The power albedo at `wo` as [`albedo`] does, with the draws stratified (jittered) on a
/// 16 × 16 × 16 grid over `(uc, u)`: each of four independent replicas is unbiased, and the
/// strata remove most of the noise of the lobe choices. Returns the mean of the replicas
/// and its standard error (from their spread).
fn albedo_stratified(d: &Dielectric, wo: Vec3, seed: u64) -> (f64, f64) {
    let mut rng = Rng::new(seed);
    let n = 16;
    let mut means = [0.0f64; 4];
    for m in &mut means {
        let mut sum = 0.0f64;
        for a in 0..n {
            for b in 0..n {
                for c in 0..n {
                    let uc = (a as f32 + rng.f32()) / n as f32;
                    let u = Vec2::new(
                        (b as f32 + rng.f32()) / n as f32,
                        (c as f32 + rng.f32()) / n as f32,
                    );
                    if let Some(s) = d.sample_f(wo, uc.min(0.999_999_94), u) {
                        let e = d.relative_eta(wo, s.wi) as f64;
                        sum += (s.f.x * s.wi.z.abs() / s.pdf) as f64 * e * e;
                    }
                }
            }
        }
        *m = sum / (n * n * n) as f64;
    }
    let mean = means.iter().sum::<f64>() / 4.0;
    let var = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / 3.0;
    (mean, (var / 4.0).sqrt())
}

const FURNACE_ROUGHNESS: [f32; 9] = [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 0.85, 1.0];
/// Signed μo: outside, and inside (for η ≥ 1.33 every |μ| ≤ 0.66 is beyond the critical
/// angle, in total internal reflection).
const FURNACE_COS: [f32; 14] = [
    1.0, 0.8, 0.6, 0.4, 0.2, 0.1, 0.05, -1.0, -0.8, -0.6, -0.4, -0.2, -0.1, -0.05,
];

#[test]
fn rough_white_furnace_is_one_from_both_sides() {
    // Power albedo (reflected + transmitted fraction of the power arriving along wo) of
    // the compensated BSDF, sampled, within 1 % of 1 at every roughness, angle and side,
    // and at most 1 + 0.002 (Monte Carlo slack: deterministically it is E_true + 1 −
    // E_table ≤ 1, which `table_bounds_single_scattering_from_above` checks without
    // noise). Prints the single-scattering albedo (quadrature, independent of the table)
    // beside it for the docs.
    let mut report = String::new();
    let mut max_se = 0.0f64;
    for (ei, eta) in [1.33f32, 1.5, 2.0].into_iter().enumerate() {
        report.push_str(&format!(
            "\nrough dielectric η {eta}: single scattering (quadrature) → compensated (sampled, 16k stratified)\n\
             roughness | μo = 1, 0.6, 0.2, 0.05 | inside μo = -1, -0.6, -0.2, -0.05 | compensated min, max | p_out\n"
        ));
        for (ri, &r) in FURNACE_ROUGHNESS.iter().enumerate() {
            let d = Dielectric::new(eta, r);
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            let mut row = format!("{r:9.2} |");
            for (k, &cos_o) in FURNACE_COS.iter().enumerate() {
                let wo = dir(cos_o, 0.3);
                let seed = ((ei * 16 + ri) * 16 + k) as u64;
                let (e, se) = albedo_stratified(&d, wo, seed);
                max_se = max_se.max(se);
                assert!(
                    (e - 1.0).abs() < 0.01,
                    "η {eta} roughness {r} cos {cos_o}: {e} ± {se}"
                );
                assert!(
                    e <= 1.002,
                    "η {eta} roughness {r} cos {cos_o}: {e} ± {se} above 1"
                );
                lo = lo.min(e);
                hi = hi.max(e);
                if [1.0, 0.6, 0.2, 0.05].contains(&cos_o.abs()) {
                    let single = ss_albedo_quadrature(eta, r * r, cos_o as f64, 64, 128);
                    row.push_str(&format!(" {single:.4}→{e:.4}"));
                }
                if k == 6 {
                    row.push_str(" |");
                }
            }
            report.push_str(&format!(
                "{row} | {lo:.4} {hi:.4} | p_out {:.3}\n",
                d.ms.p_out
            ));
        }
    }
    eprintln!("{report}largest standard error {max_se:.5}");
}

#[test]
fn table_bounds_single_scattering_from_above() {
    // Off-node (index, roughness, μ) against fresh quadrature, over the whole range of
    // the table and both sides: the compensated albedo is E_true + 1 − E_table, so
    // E_table ≥ E_true is "never above 1" without Monte Carlo noise, and E_table − E_true
    // is the energy still lost.
    let mut rng = Rng::new(23);
    let (mut worst_under, mut worst_over, mut worst_over_all) = (0.0f64, 0.0f64, 0.0f64);
    for n in 0..600 {
        let eta = if n % 2 == 0 {
            1.001 + 2.999 * rng.f32()
        } else {
            1.3 + 0.7 * rng.f32()
        };
        let r = 0.0317 + (1.0 - 0.0317) * rng.f32();
        let mu = (0.02 + 0.98 * rng.f32()) * if n % 4 < 2 { 1.0 } else { -1.0 };
        let d = Dielectric::new(eta, r);
        let truth = ss_albedo_quadrature(d.eta(), d.alpha(), mu as f64, 64, 256);
        let tab = d.ms.e(mu) as f64;
        if truth - tab > 3e-4 || tab - truth > 5e-3 {
            eprintln!("η {eta} r {r} μ {mu}: table {tab:.5} truth {truth:.5}");
        }
        worst_under = worst_under.max(truth - tab);
        worst_over_all = worst_over_all.max(tab - truth);
        if (1.3..=2.0).contains(&eta) && mu.abs() >= 0.05 {
            worst_over = worst_over.max(tab - truth);
        }
    }
    eprintln!(
        "dielectric table: worst underestimate {worst_under:.2e}, worst overestimate \
         {worst_over:.2e} (η 1.3–2, |μ| ≥ 0.05), {worst_over_all:.2e} (anywhere)"
    );
    assert!(worst_under < 5e-4, "{worst_under}");
    assert!(worst_over < 1e-2, "{worst_over}");
}

#[test]
fn table_nodes_bound_fresh_quadrature() {
    // A spread of nodes recomputed with a different sample count: the file and the model
    // agree (a stale table after a model change fails here). Nodes are only ever raised.
    let mut rng = Rng::new(12);
    for _ in 0..60 {
        let inside = rng.f32() < 0.5;
        let k = (rng.u64() % N_ETA as u64) as usize;
        let j = (rng.u64() % N_ROUGH as u64) as usize;
        let i = 1 + (rng.u64() % (N_MU as u64 - 1)) as usize;
        let (eta, r, mu) = coord_params(k as f64, j as f64, i as f64, inside);
        let fresh = ss_albedo_quadrature(eta, r * r, mu, 96, 200);
        let stored = E_TABLE[node_index(inside, k, j, i)] as f64 / 65535.0;
        assert!(
            fresh - stored < 5e-4,
            "node {inside} {k},{j},{i}: {stored} below {fresh}"
        );
    }
    // The axis ends: η = 1.001 is coordinate 0, η = 4 is 1.
    assert!(eta_coord(IOR_MATCHED_BELOW).abs() < 1e-5);
    assert!((eta_coord(IOR_MAX) - 1.0).abs() < 1e-6);
    let (eta, _, _) = coord_params(0.0, 0.0, 0.0, false);
    assert!((eta - IOR_MATCHED_BELOW).abs() < 1e-6, "{eta}");
}

/// The compensation lobe alone, read from the struct.
fn f_ms(d: &Dielectric, wo: Vec3, wi: Vec3) -> f64 {
    let (e_o, e_i) = (d.ms.e(wo.z) as f64, d.ms.e(wi.z) as f64);
    let n_o = side_index(d, wo) as f64;
    n_o * n_o * (1.0 - e_o) * (1.0 - e_i) * d.ms.inv_d as f64
}

#[test]
fn compensation_restores_exactly_the_tabulated_loss() {
    // ∫ f_ms (η_i/η_o)² |μi| dωi = 1 − E_table(μo) by quadrature, from both sides, and the
    // share that leaves on the outside is p_out whichever side wo is on.
    for (ior, r, cos_o) in [
        (1.5f32, 0.3f32, 0.7f32),
        (1.5, 0.3, -0.7),
        (1.5, 1.0, -0.3),
        (2.4, 0.6, 0.2),
        (1.01, 0.8, -0.9),
        (4.0, 1.0, 0.05),
    ] {
        let d = Dielectric::new(ior, r);
        let wo = dir(cos_o, 0.2);
        let energy = |w: Vec3| {
            let e = d.relative_eta(wo, w) as f64;
            f_ms(&d, wo, w) * w.z.abs() as f64 * e * e
        };
        let total = sphere_integral(energy);
        let outside = sphere_integral(|w| if w.z > 0.0 { energy(w) } else { 0.0 });
        let expect = 1.0 - d.ms.e(cos_o) as f64;
        assert!(expect > 1e-3, "η {ior} r {r} cos {cos_o}: {expect}");
        assert!(
            (total - expect).abs() < 2e-5 + 1e-4 * expect,
            "η {ior} r {r} cos {cos_o}: {total} vs {expect}"
        );
        // The compensation draw's density integrates to 1: ∫ over both sides in μ = x²
        // (dω = 2π dμ = 4π x dx), midpoint rule with 64 nodes inside every table segment.
        let pdf_ms = |mu: f32| {
            let n = side_index(&d, Vec3::new(0.0, 0.0, mu)) as f64;
            n * n * d.ms.e_and_segment_mean(mu).1 as f64 * mu.abs() as f64 * d.ms.inv_d as f64
        };
        let nodes = 64 * (N_MU - 1);
        let mut pdf_total = 0.0;
        for k in 0..nodes {
            let x = (k as f64 + 0.5) / nodes as f64;
            let mu = (x * x) as f32;
            pdf_total += (pdf_ms(mu) + pdf_ms(-mu)) * 4.0 * PI * x / nodes as f64;
        }
        assert!(
            (pdf_total - 1.0).abs() < 1e-5,
            "η {ior} r {r}: ∫ pdf_ms = {pdf_total}"
        );
        let share = outside / total;
        assert!(
            (share - d.ms.p_out as f64).abs() < 1e-4,
            "η {ior} r {r} cos {cos_o}: {share} vs {}",
            d.ms.p_out
        );
    }
}

#[test]
fn compensation_sampling_passes_chi2_alone() {
    // Only the compensation branch (uc below 1 − E(wo)), against its own density
    // η_i² (segment mean of 1 − E) |μi| / D: low roughness puts its mass near the horizon,
    // from inside most of it stays inside.
    let configs = [
        (1.5f32, 0.1f32, 0.05f32),
        (1.5, 0.7, -0.5),
        (1.01, 0.5, 0.8),
        (2.4, 0.3, -0.9),
    ];
    for (i, (ior, r, cos_o)) in configs.into_iter().enumerate() {
        let d = Dielectric::new(ior, r);
        let wo = dir(cos_o, 0.4);
        let p_ms = 1.0 - d.ms.e(cos_o);
        assert!(p_ms > 1e-4, "{p_ms}");
        let name = format!("dielectric compensation η {ior} roughness {r} cos θo {cos_o}");
        let integral = chi2_test(
            &name,
            |u, uc| {
                let s = d.sample_f(wo, uc * p_ms * 0.999_999, u)?;
                assert!(s.diffuse && !s.specular);
                Some(s.wi)
            },
            |wi| {
                let n_i = side_index(&d, wi) as f64;
                let mean = d.ms.e_and_segment_mean(wi.z).1 as f64;
                n_i * n_i * mean * wi.z.abs() as f64 * d.ms.inv_d as f64
            },
            200_000,
            configs.len(),
            700 + i as u64,
        );
        // The bins' quadrature cannot resolve the density's steps (table segments 10⁻³
        // wide in μ at the horizon); the exact normalisation is checked, aligned with the
        // segments, in compensation_restores_exactly_the_tabulated_loss.
        assert!((integral - 1.0).abs() < 1e-2, "{name}: ∫ pdf = {integral}");
    }
}

#[test]
fn compensation_is_reciprocal() {
    // The lobe alone (the full f is tested in generalised_reciprocity): reflection
    // f(wo, wi) = f(wi, wo) on either side, transmission f(wo, wi)/η_o² = f(wi, wo)/η_i².
    let mut rng = Rng::new(78);
    for i in 0..20_000 {
        let ior = [1.33f32, 1.5, 2.4, 1.0 + 3.0 * rng.f32()][i % 4];
        let d = Dielectric::new(ior, 0.05 + 0.95 * rng.f32());
        let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
        let (n_o, n_i) = (side_index(&d, wo), side_index(&d, wi));
        let a = f_ms(&d, wo, wi) / (n_o * n_o) as f64;
        let b = f_ms(&d, wi, wo) / (n_i * n_i) as f64;
        assert!((a - b).abs() <= 1e-6 * a.max(b), "{d:?} {wo} {wi}: {a} {b}");
        // And the BSDF itself contains it: f ≥ f_ms (single scattering is ≥ 0).
        assert!(d.f(wo, wi).x as f64 >= f_ms(&d, wo, wi) * (1.0 - 1e-6));
    }
}

/// `∫ g(wi) dωi` over the sphere by the midpoint rule in (θ, φ), the horizon a cell edge.
fn sphere_integral(g: impl Fn(Vec3) -> f64) -> f64 {
    let (nt, np) = (2000, 256);
    let mut sum = 0.0;
    for i in 0..nt {
        let theta = (i as f64 + 0.5) / nt as f64 * PI;
        let mut ring = 0.0;
        for j in 0..np {
            let phi = (j as f64 + 0.5) / np as f64 * TAU;
            ring += g(spherical_dir(theta.cos(), phi));
        }
        sum += ring * theta.sin();
    }
    sum * (PI / nt as f64) * (TAU / np as f64)
}

#[test]
fn furnace_estimate_matches_quadrature_of_f() {
    // The sampled albedo against a quadrature of f itself, which does not go through the
    // sampler: checks that f, pdf and the samples' f/pdf agree in magnitude.
    for (i, (ior, r, cos_o)) in [(1.5f32, 0.7f32, 0.6f32), (1.5, 0.7, -0.6), (2.0, 1.0, 0.3)]
        .into_iter()
        .enumerate()
    {
        let d = Dielectric::new(ior, r);
        let wo = dir(cos_o, 1.1);
        let quad = sphere_integral(|wi| {
            let e = d.relative_eta(wo, wi) as f64;
            d.f(wo, wi).x as f64 * wi.z.abs() as f64 * e * e
        });
        let (mc, se, _) = albedo(&d, wo, 200_000, 900 + i as u64);
        assert!(
            (quad - mc).abs() < 4.0 * se + 2e-3,
            "η {ior} r {r} cos {cos_o}: quadrature {quad} vs sampled {mc} ± {se}"
        );
        let pdf_quad = sphere_integral(|wi| d.pdf(wo, wi) as f64);
        assert!(pdf_quad <= 1.0 + 2e-3, "{pdf_quad}");
    }
}

/// Walter et al. 2007, eqs. 20–21 (BRDF and radiance BTDF) in f64 with the textbook `Λ`
/// and `D` in terms of `tan θ`: an independent formulation of `f`.
fn walter_reference(eta: f64, alpha: f64, wo: Vec3, wi: Vec3) -> f64 {
    let (wo, wi) = (wo.as_dvec3(), wi.as_dvec3());
    let a2 = alpha * alpha;
    let tan2 = |w: glam::DVec3| (1.0 - w.z * w.z).max(0.0) / (w.z * w.z);
    let lambda = |w: glam::DVec3| ((1.0 + a2 * tan2(w)).sqrt() - 1.0) / 2.0;
    let d = |m: glam::DVec3| {
        let c2 = m.z * m.z;
        a2 / (PI * c2 * c2 * (a2 + tan2(m)).powi(2))
    };
    let g = 1.0 / (1.0 + lambda(wo) + lambda(wi));
    let index = |w: glam::DVec3| if w.z > 0.0 { 1.0 } else { eta };
    let (n_o, n_i) = (index(wo), index(wi));
    if wo.z * wi.z > 0.0 {
        let mut h = (wo + wi).normalize();
        if h.z < 0.0 {
            h = -h;
        }
        let other = if wo.z > 0.0 { eta } else { 1.0 };
        let f = fresnel_reference(wo.dot(h).abs(), n_o, other);
        f * g * d(h) / (4.0 * (wo.z * wi.z).abs())
    } else {
        let mut h = -(n_o * wo + n_i * wi).normalize();
        if h.z < 0.0 {
            h = -h;
        }
        if wo.dot(h) * wo.z <= 0.0 || wi.dot(h) * wi.z <= 0.0 {
            return 0.0;
        }
        let f = fresnel_reference(wo.dot(h).abs(), n_o, n_i);
        let denom = n_i * wi.dot(h) + n_o * wo.dot(h);
        (wi.dot(h) * wo.dot(h)).abs() / (wi.z * wo.z).abs() * n_o * n_o * (1.0 - f) * g * d(h)
            / (denom * denom)
    }
}

#[test]
fn matches_walter_in_f64() {
    let mut rng = Rng::new(31);
    let mut nonzero = 0;
    for _ in 0..50_000 {
        let d = Dielectric::new(1.05 + 2.5 * rng.f32(), 0.1 + 0.9 * rng.f32());
        let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
        if wo.z.abs() < 1e-3 || wi.z.abs() < 1e-3 {
            continue;
        }
        let ours = d.single_scattering(wo, wi).0 as f64;
        let reference = walter_reference(d.eta() as f64, d.alpha() as f64, wo, wi);
        // Relative to 10⁻³, or 10⁻⁵ absolute below 10⁻²: facets seen nearly edge-on lose
        // digits in f32 (|w·m| from a rounded m) and only there is f that small. Measured
        // worst: 1.7·10⁻⁴ with this floor, 6·10⁻⁶ relative where f ≥ 1.
        assert!(
            (ours - reference).abs() <= 1e-3 * reference.max(1e-2),
            "η {} α {} wo {wo} wi {wi}: {ours} vs {reference}",
            d.eta(),
            d.alpha()
        );
        nonzero += (reference > 0.0) as usize;
    }
    assert!(nonzero > 30_000, "{nonzero}");
}

#[test]
fn generalised_reciprocity() {
    // f(wo, wi)/η_o² = f(wi, wo)/η_i², η_o and η_i the indices on wo's and wi's sides.
    let mut rng = Rng::new(77);
    let (mut transmitting, mut reflecting) = (0, 0);
    for i in 0..100_000 {
        let ior = [1.33f32, 1.5, 2.4, 1.0 + 3.0 * rng.f32()][i % 4];
        let d = Dielectric::new(ior, 0.05 + 0.95 * rng.f32());
        let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
        let (n_o, n_i) = (side_index(&d, wo), side_index(&d, wi));
        let a = d.f(wo, wi).x / (n_o * n_o);
        let b = d.f(wi, wo).x / (n_i * n_i);
        // f32 rounding: near-critical angles (Fresnel's slope is infinite there) and
        // facets seen edge-on (|w·m| ≈ 0) lose digits; values below 10⁻⁴ (typical f is
        // 0.1 to 10⁴) are compared to 10⁻⁷ absolute. Measured worst: 5·10⁻⁴ in 10⁶ pairs.
        assert!(
            (a - b).abs() <= 1e-3 * a.max(b).max(1e-4),
            "η {} α {}: wo {wo} wi {wi}: {a} vs {b}",
            d.eta(),
            d.alpha()
        );
        if a > 0.0 {
            if wo.z * wi.z < 0.0 {
                transmitting += 1;
            } else {
                reflecting += 1;
            }
        }
    }
    assert!(
        transmitting > 10_000 && reflecting > 10_000,
        "{transmitting} {reflecting}"
    );
}

#[test]
fn index_matched_is_a_pass_through() {
    let mut rng = Rng::new(5);
    for (ior, r) in [
        (1.0f32, 0.0f32),
        (1.0, 0.5),
        (0.5, 1.0),
        (1.0009, 0.3),
        (-3.0, 0.2),
    ] {
        let d = Dielectric::new(ior, r);
        assert_eq!(d.eta(), 1.0);
        assert!(d.is_specular());
        for _ in 0..10_000 {
            let (wo, wi) = (rng.sphere_dir(), rng.sphere_dir());
            assert_eq!(d.f_pdf(wo, wi), (Vec3::ZERO, 0.0));
            let s = d.sample_f(wo, rng.f32(), rng.vec2()).unwrap();
            assert!(s.specular && s.pdf == 1.0);
            assert!((s.wi + wo.normalize()).length() < 1e-6);
            assert!((s.f.x * s.wi.z.abs() - 1.0).abs() < 1e-5);
            assert_eq!(d.relative_eta(wo, s.wi), 1.0);
        }
    }
}

#[test]
fn sample_values_equal_evaluation() {
    let mut rng = Rng::new(9);
    let (mut checked, mut diffuse) = ([0; 2], 0);
    for _ in 0..50_000 {
        let d = Dielectric::new(1.01 + 3.0 * rng.f32(), 0.04 + 0.96 * rng.f32());
        let wo = rng.sphere_dir();
        if let Some(s) = d.sample_f(wo, rng.f32(), rng.vec2()) {
            let (f, pdf) = d.f_pdf(wo, s.wi);
            assert_eq!((f, pdf), (d.f(wo, s.wi), d.pdf(wo, s.wi)));
            assert_eq!((s.f, s.pdf), (f, pdf), "{d:?} {wo} {s:?}");
            assert!(!s.specular && s.pdf > 0.0 && (s.wi.length() - 1.0).abs() < 1e-5);
            checked[(s.wi.z * wo.z < 0.0) as usize] += 1;
            diffuse += s.diffuse as usize;
        }
    }
    assert!(checked[0] > 2_000 && checked[1] > 20_000, "{checked:?}");
    // The compensation lobe's cosine draws are among them, and marked diffuse.
    assert!(diffuse > 1_000, "{diffuse}");
}

#[test]
fn odd_inputs_never_give_nan_or_inf() {
    let dirs = [
        Vec3::Z,
        -Vec3::Z,
        Vec3::X,
        Vec3::new(1.0, 0.0, 1e-30).normalize(),
        Vec3::new(1.0, 0.0, -1e-30).normalize(),
        Vec3::new(-1.0, 0.0, 1e-30).normalize(),
        Vec3::new(1.0, 0.0, 2e-9).normalize(),
        Vec3::new(-1.0, 0.0, 2e-9).normalize(),
        Vec3::new(-1.0, 0.0, -2e-9).normalize(),
        dir(1e-4, 0.0),
        dir(-1e-4, 3.0),
        dir(0.745, 0.5),
        dir(-0.745, 0.5),
        Vec3::new(1e-30, 0.0, 0.0),
        Vec3::new(0.0, 0.0, 1e30),
        Vec3::ZERO,
        Vec3::NAN,
        Vec3::INFINITY,
        Vec3::new(0.3, f32::NAN, 0.9),
    ];
    let iors = [
        f32::NAN,
        -1.0,
        0.0,
        1.0,
        1.001,
        1.0011,
        1.5,
        4.0,
        1e30,
        f32::INFINITY,
    ];
    let roughnesses = [f32::NAN, -1.0, 0.0, 0.0316, 0.0317, 0.5, 1.0, 7.0];
    let mut rng = Rng::new(17);
    let ok = |f: Vec3, pdf: f32| {
        f.is_finite()
            && f.min_element() >= 0.0
            && pdf.is_finite()
            && pdf >= 0.0
            && (pdf * pdf).is_finite()
    };
    // Plus the shared odd values and directions every BxDF is tested with.
    let dirs: Vec<Vec3> = dirs.into_iter().chain(odd_dirs()).collect();
    for &ior in iors.iter().chain(&ODD_VALUES) {
        for &r in roughnesses.iter().chain(&ODD_VALUES) {
            let d = Dielectric::new(ior, r);
            assert!((1.0..=IOR_MAX).contains(&d.eta()));
            for &wo in &dirs {
                for &wi in &dirs {
                    let (f, pdf) = d.f_pdf(wo, wi);
                    assert!(ok(f, pdf), "η {ior} r {r} {wo} {wi}: {f} {pdf}");
                    assert!(d.relative_eta(wo, wi).is_finite());
                }
                let mut draws = vec![
                    (0.0f32, Vec2::ZERO),
                    (0.999_999_94, Vec2::ONE * 0.999_999_94),
                ];
                draws.push((f32::NAN, Vec2::NAN));
                draws.extend((0..32).map(|_| (rng.f32(), rng.vec2())));
                for (uc, u) in draws {
                    if let Some(s) = d.sample_f(wo, uc, u) {
                        assert!(ok(s.f, s.pdf) && s.pdf > 0.0 && s.wi.is_finite());
                        assert!((s.wi.length() - 1.0).abs() < 1e-5);
                    }
                }
            }
        }
    }
}

#[test]
fn parameters_clamp() {
    assert_eq!(Dielectric::new(f32::NAN, 0.5).eta(), IOR_DEFAULT);
    assert_eq!(Dielectric::new(9.0, 0.5).eta(), IOR_MAX);
    assert_eq!(Dielectric::new(0.3, 0.5).eta(), 1.0);
    assert_eq!(Dielectric::new(1.001, 0.5).eta(), 1.001);
    assert_eq!(Dielectric::new(1.5, f32::NAN).alpha(), 1e-4);
    assert_eq!(Dielectric::new(1.5, 3.0).alpha(), 1.0);
    assert!(Dielectric::new(1.5, 0.0316).is_specular());
    assert!(!Dielectric::new(1.5, 0.0317).is_specular());
    assert!(!Dielectric::new(1.5, 0.5).is_specular());
}
