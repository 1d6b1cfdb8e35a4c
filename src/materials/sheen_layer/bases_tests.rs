//! The sheen layer over the rough diffuse EON (`plaster`, `stone`) and the conductor (`metal`,
//! `chrome`): the same checks as over `plain` (`super::tests`), per base.

use super::super::testutil::{
    albedo, assert_finite_on_odd_dirs, assert_reciprocal, assert_sample_is_evaluation, chi2_bxdf,
    dir, Rng, ODD_VALUES,
};
use super::*;

/// The lossless bases: white EON (exactly lossless at every angle and roughness) and a white
/// conductor (lossless up to its Kulla–Conty table, within 1 %).
fn lossless_bases() -> Vec<(String, SheenBase)> {
    let mut bases = Vec::new();
    for sigma in [0.0f32, 0.6, 1.0] {
        bases.push((format!("EON σ {sigma}"), Eon::new(Vec3::ONE, sigma).into()));
    }
    for r in [0.05f32, 0.3, 0.7] {
        bases.push((format!("metal r {r}"), Conductor::new(Vec3::ONE, r).into()));
    }
    bases
}

/// White sheen of several roughnesses over each lossless base: never above 1 at any angle,
/// and the loss the glTF coupling costs measured against the bare base (docs/materials.md,
/// "Sheen layer"; `--nocapture` prints the table).
#[test]
fn white_furnace_over_eon_and_conductor_never_above_one() {
    let mut worst: Vec<(String, f32)> = Vec::new();
    for (bi, (name, base)) in lossless_bases().into_iter().enumerate() {
        let mut least = f32::INFINITY;
        for (ri, roughness) in [0.3f32, 0.5, 1.0].into_iter().enumerate() {
            let c = Sheened::new(base, 1.0, Vec3::ONE, roughness);
            for (k, mu) in [1.0f32, 0.6, 0.25, 0.05].into_iter().enumerate() {
                let seed = 600 + (bi * 100 + ri * 10 + k) as u64;
                let (a, se) = albedo(&c, dir(mu, 0.7), 200_000, seed);
                let (b, _) = albedo(&base, dir(mu, 0.7), 200_000, seed);
                let m = a.max_element();
                eprintln!(
                    "{name}, sheen r {roughness}, μ {mu}: {m:.4} ± {se:.4} (bare {:.4})",
                    b.max_element()
                );
                assert!(
                    m <= 1.0 + 3.0 * se + 2e-3,
                    "{name} r {roughness} μ {mu}: {m} ± {se}"
                );
                // The bare bases are lossless: the furnace's check of the test itself.
                assert!(
                    (b.max_element() - 1.0).abs() < 0.01,
                    "{name} μ {mu}: bare {b}"
                );
                least = least.min(m / b.max_element());
            }
        }
        worst.push((name, least));
    }
    eprintln!("least albedo relative to the bare base: {worst:?}");
    for (name, least) in worst {
        assert!(least > 0.85, "{name}: {least}");
    }
}

/// Over a black EON (whose `f` is exactly 0) the layer is the sheen lobe alone: its albedo is
/// the layer's tabulated `s m E(μo)` within 1 % or 1.5·10⁻³ (the table bounds the lobe's
/// quadrature from above, by up to 10⁻³ head on where a sharp lobe's `E` is 10⁻⁵), the
/// coupling taking nothing from it.
#[test]
fn over_a_black_eon_the_layer_reflects_its_tabulated_albedo() {
    let base = Eon::new(Vec3::ZERO, 0.5);
    for (ri, roughness) in [0.3f32, 0.7].into_iter().enumerate() {
        let c = Sheened::new(base, 1.0, Vec3::ONE, roughness);
        for (k, mu) in [1.0f32, 0.5, 0.15].into_iter().enumerate() {
            let (a, se) = albedo(&c, dir(mu, 0.2), 200_000, 700 + (ri * 10 + k) as u64);
            let e = c.sheen_albedo(mu);
            let m = a.max_element();
            eprintln!("black EON, sheen r {roughness}, μ {mu}: {m:.4} ± {se:.4}, table {e:.4}");
            assert!(
                m <= e + 3.0 * se && e - m <= 0.01 * e + 1.5e-3 + 3.0 * se,
                "r {roughness} μ {mu}: {m} ± {se} vs {e}"
            );
        }
    }
}

/// Coloured bases and sheens: chi-square of the draws against the pdf (`∫ pdf ≤ 1`) at a
/// steep and a grazing view, reciprocity on 2000 pairs, and every draw equal to its
/// evaluation. (Chrome's α = 0.0025 peak is too sharp for the chi-square's grid, whose
/// integral of the bare conductor's pdf reads 1.01 there; it is checked below.)
#[test]
fn sampling_over_eon_and_conductor_passes_chi2_and_is_reciprocal() {
    let bases: [(&str, SheenBase); 4] = [
        ("EON", Eon::new(Vec3::new(0.7, 0.5, 0.3), 0.8).into()),
        ("smooth EON", Eon::new(Vec3::new(0.2, 0.4, 0.6), 0.1).into()),
        (
            "gold",
            Conductor::new(Vec3::new(1.0, 0.78, 0.34), 0.35).into(),
        ),
        (
            "sharp metal",
            Conductor::new(Vec3::new(0.9, 0.9, 0.8), 0.15).into(),
        ),
    ];
    for (bi, (name, base)) in bases.into_iter().enumerate() {
        let c = Sheened::new(base, 0.8, Vec3::new(1.0, 0.7, 0.4), 0.5);
        for (k, mu) in [0.85f32, 0.2].into_iter().enumerate() {
            chi2_bxdf(
                &format!("sheened {name} μ {mu}"),
                &c,
                dir(mu, 0.4),
                300_000,
                4,
                800 + (2 * bi + k) as u64,
            );
        }
        let mut rng = Rng::new(820 + bi as u64);
        for _ in 0..2000 {
            let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
            assert_reciprocal(&c, wo, wi);
            if let Some(s) = c.sample_f(wo, rng.f32(), rng.vec2()) {
                assert_sample_is_evaluation(&c, wo, &s);
            }
        }
    }
}

/// Over chrome (its own defaults: F0 of chromium, roughness 0.05): reciprocity and every draw
/// equal to its evaluation, and head on the mirror's light scaled by `1 − E(1)` with at most
/// the sheen's `E(1)` added.
#[test]
fn over_chrome_draws_are_evaluations_and_the_mirror_stays() {
    let chrome = Conductor::new(Vec3::new(0.549, 0.556, 0.554), 0.05);
    let c = Sheened::new(chrome, 1.0, Vec3::ONE, 0.5);
    let mut rng = Rng::new(840);
    for _ in 0..4000 {
        let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
        assert_reciprocal(&c, wo, wi);
        if let Some(s) = c.sample_f(wo, rng.f32(), rng.vec2()) {
            assert_sample_is_evaluation(&c, wo, &s);
        }
    }
    // Head on the mirror keeps `1 − E(1)` of its light and the sheen adds at most `E(1)`.
    let (a, se) = albedo(&c, dir(1.0, 0.0), 100_000, 841);
    let (b, _) = albedo(&chrome, dir(1.0, 0.0), 100_000, 841);
    let e = c.sheen_albedo(1.0);
    eprintln!("chrome head on: {a} ± {se} (bare {b}, E(1) {e})");
    let lo = b * (1.0 - e) - Vec3::splat(3.0 * se + 1e-3);
    let hi = b * (1.0 - e) + Vec3::splat(e + 3.0 * se + 1e-3);
    assert!(a.cmpge(lo).all() && a.cmple(hi).all(), "{a} vs {b}, E {e}");
}

/// The layer reports its base's colour and roughness (what the plates' albedo and roughness
/// passes write), as the bare base does.
#[test]
fn the_layer_reports_its_bases_albedo_and_roughness() {
    let eon = Eon::new(Vec3::new(0.6, 0.5, 0.4), 0.7);
    let metal = Conductor::new(Vec3::new(0.9, 0.6, 0.3), 0.4);
    for (base, bare) in [
        (SheenBase::from(eon), super::super::Bxdfs::RoughDiffuse(eon)),
        (
            SheenBase::from(metal),
            super::super::Bxdfs::Conductor(metal),
        ),
    ] {
        let s = super::super::Bxdfs::Sheened(Sheened::new(base, 1.0, Vec3::ONE, 0.5));
        assert_eq!(s.albedo(), bare.albedo());
        assert_eq!(s.roughness(), bare.roughness());
    }
}

#[test]
fn odd_inputs_over_eon_and_conductor_stay_finite() {
    let mut rng = Rng::new(830);
    for &x in &ODD_VALUES {
        for base in [
            SheenBase::from(Eon::new(Vec3::splat(x), x)),
            SheenBase::from(Conductor::new(Vec3::splat(x), x)),
        ] {
            let c = Sheened::new(base, x, Vec3::splat(x), x);
            assert_finite_on_odd_dirs(&c, &mut rng);
        }
    }
}

/// Prints the sizes that bound the layers (`--nocapture`).
#[test]
#[ignore]
fn print_sizes() {
    use std::mem::size_of;
    eprintln!(
        "Bxdfs {} Plain {} Conductor {} Eon {} SheenBase {} Sheened {} Coated {}",
        size_of::<super::super::Bxdfs>(),
        size_of::<Plain>(),
        size_of::<Conductor>(),
        size_of::<Eon>(),
        size_of::<SheenBase>(),
        size_of::<Sheened>(),
        size_of::<super::super::Coated>()
    );
}
