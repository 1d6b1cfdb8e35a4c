use glam::Vec3;

use super::*;
use crate::sampling::testutil::Rng;

fn medium(density: Density) -> Medium {
    Medium {
        lo: Vec3::new(-1.0, 0.0, -2.0),
        hi: Vec3::new(1.0, 2.0, 2.0),
        density,
        phase: Phase::new(0.3, 0.0),
        albedo: Vec3::ONE,
        ambient: Vec3::ZERO,
    }
}

fn uniform(sigma: f32) -> Medium {
    medium(Density {
        fog: sigma,
        mist: 0.0,
        smoke: 0.0,
        floor: 0.0,
        floor_y: 0.0,
        floor_height: 0.2,
        seed: 0,
    })
}

fn noisy(seed: u64) -> Medium {
    medium(Density {
        fog: 0.2,
        mist: 0.3,
        smoke: 3.0,
        floor: 1.5,
        floor_y: 0.0,
        floor_height: 0.2,
        seed,
    })
}

#[test]
fn clip_finds_the_part_inside_the_box() {
    let m = uniform(1.0);
    // From outside along +z through the whole depth (4 units).
    let (t0, t1) = m
        .clip(Vec3::new(0.0, 1.0, -5.0), Vec3::Z, f32::INFINITY)
        .unwrap();
    assert!(
        (t0 - 3.0).abs() < 1e-6 && (t1 - 7.0).abs() < 1e-6,
        "{t0} {t1}"
    );
    // From inside, stopped by a surface at t = 1.
    let (t0, t1) = m.clip(Vec3::new(0.0, 1.0, 0.0), Vec3::Z, 1.0).unwrap();
    assert_eq!((t0, t1), (0.0, 1.0));
    // Missing, and pointing away.
    assert!(m
        .clip(Vec3::new(0.0, 3.0, -5.0), Vec3::Z, f32::INFINITY)
        .is_none());
    assert!(m
        .clip(Vec3::new(0.0, 1.0, -5.0), -Vec3::Z, f32::INFINITY)
        .is_none());
    // Along a face's plane (a NaN slab) still clips by the other axes.
    let r = m.clip(Vec3::new(1.0, 1.0, -5.0), Vec3::Z, f32::INFINITY);
    assert!(
        r.is_some_and(|(a, b)| (a - 3.0).abs() < 1e-6 && (b - 7.0).abs() < 1e-6),
        "{r:?}"
    );
}

/// Beer–Lambert: T = exp(−σ·ℓ) over the length ℓ inside the box, exactly; and free-flight
/// sampling passes with that probability and collides with the exponential distribution's
/// conditional mean.
#[test]
fn uniform_haze_has_beer_lambert_transmittance() {
    let sigma = 0.35;
    let m = uniform(sigma);
    let o = Vec3::new(-3.0, 1.0, 0.0);
    let d = Vec3::new(1.0, 0.0, 0.0);
    // Inside for 2 units (x from −1 to 1).
    let t = m.transmittance(o, d, f32::INFINITY, |_| 0.5);
    let exact = (-sigma as f64 * 2.0).exp();
    assert!((t as f64 - exact).abs() < 1e-6, "{t} vs {exact}");
    // Stopped half-way in by a surface.
    let t = m.transmittance(o, d, 3.0, |_| 0.5);
    assert!((t as f64 - (-sigma as f64).exp()).abs() < 1e-6);
    // The quadrature agrees with the closed form.
    assert!((m.transmittance_quadrature(o, d, f32::INFINITY, 64) - exact).abs() < 1e-9);

    let mut rng = Rng::new(11);
    let n = 200_000;
    let (mut passed, mut sum_t) = (0u32, 0.0f64);
    for _ in 0..n {
        match m.sample_flight(o, d, f32::INFINITY, |_| rng.f32()) {
            Flight::Pass => passed += 1,
            Flight::Scatter { t } => {
                assert!((2.0..4.0).contains(&t), "{t}");
                sum_t += (t - 2.0) as f64;
            }
            Flight::Lost => panic!("lost"),
        }
    }
    let p = passed as f64 / n as f64;
    let se = (exact * (1.0 - exact) / n as f64).sqrt();
    assert!((p - exact).abs() < 4.0 * se, "pass {p} vs {exact}");
    let s = sigma as f64;
    let mean = 1.0 / s - 2.0 * exact / (1.0 - exact);
    let got = sum_t / (n - passed) as f64;
    assert!(
        (got - mean).abs() < 0.01 * mean,
        "mean free path {got} vs {mean}"
    );
}

/// Ratio tracking and delta tracking through the noisy layers agree with the transmittance
/// integrated numerically, within four standard errors, for rays through the floor layer, the
/// smoke and from inside the box.
#[test]
fn tracking_is_unbiased_in_noisy_haze() {
    let m = noisy(4);
    let rays = [
        (Vec3::new(-3.0, 0.05, 0.3), Vec3::X),
        (
            Vec3::new(0.2, 1.0, -4.0),
            Vec3::new(0.1, 0.3, 1.0).normalize(),
        ),
        (
            Vec3::new(0.0, 1.7, 0.0),
            Vec3::new(-0.5, -1.0, 0.2).normalize(),
        ),
    ];
    let mut rng = Rng::new(5);
    for (o, d) in rays {
        let exact = m.transmittance_quadrature(o, d, f32::INFINITY, 20_000);
        assert!(
            exact > 0.02 && exact < 0.98,
            "a test ray should see some haze: {exact}"
        );
        let n = 40_000;
        let (mut s, mut s2, mut passed) = (0.0f64, 0.0f64, 0u32);
        for _ in 0..n {
            let t = m.transmittance(o, d, f32::INFINITY, |_| rng.f32()) as f64;
            assert!((0.0..=1.0).contains(&t));
            s += t;
            s2 += t * t;
            if m.sample_flight(o, d, f32::INFINITY, |_| rng.f32()) == Flight::Pass {
                passed += 1;
            }
        }
        let mean = s / n as f64;
        let se = ((s2 / n as f64 - mean * mean).max(0.0) / n as f64).sqrt();
        assert!(
            (mean - exact).abs() < 4.0 * se + 1e-4,
            "ratio {mean} vs {exact} (se {se})"
        );
        let p = passed as f64 / n as f64;
        let se = (exact * (1.0 - exact) / n as f64).sqrt();
        assert!((p - exact).abs() < 4.0 * se, "delta {p} vs {exact}");
    }
}

#[test]
fn clear_haze_passes_everything() {
    let m = uniform(0.0);
    assert!(m.is_clear());
    assert_eq!(
        m.sample_flight(Vec3::new(0.0, 1.0, -5.0), Vec3::Z, f32::INFINITY, |_| 0.3),
        Flight::Pass
    );
    assert_eq!(
        m.transmittance(Vec3::new(0.0, 1.0, -5.0), Vec3::Z, f32::INFINITY, |_| 0.3),
        1.0
    );
}
