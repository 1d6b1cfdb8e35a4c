//! Sine and cosine for the warps, in our own arithmetic.
//!
//! glibc picks its `sinf`/`cosf` by the CPU (`__sincosf_fma` where FMA is present), so a bake
//! calling them could differ in the last bit between machines of a farm (docs/performance.md,
//! step 9); and the call was 2 % of a Cornell sample. The warps need the sine and cosine of
//! an angle that is a sample value times a constant, so these take the angle as a fraction of
//! a turn or of an eighth of one, reduce it exactly, and evaluate the Cephes minimax
//! polynomials of `sinf`/`cosf` on [−π/4, π/4] (absolute error below 2·10⁻⁷) with plain
//! multiplies and adds in a fixed order: the same bits on every x86-64 and every instruction
//! set (Rust never contracts them into FMAs).

use std::f32::consts::FRAC_PI_4;

/// `(sin φ, cos φ)` for `φ` in [−π/4, π/4] (Cephes' `sinf` and `cosf` kernels).
#[inline(always)]
fn kernel(phi: f32) -> (f32, f32) {
    let z = phi * phi;
    let s = phi + phi * z * (-1.666_665_5e-1 + z * (8.332_161e-3 + z * -1.951_529_6e-4));
    let c = 1.0 - 0.5 * z + z * z * (4.166_664_6e-2 + z * (-1.388_731_6e-3 + z * 2.443_315_7e-5));
    (s, c)
}

/// `(sin, cos)` of `t · π/4` for `t` in [−1, 1]: the angle of the concentric disk's wedges.
#[inline(always)]
pub fn sin_cos_eighth(t: f32) -> (f32, f32) {
    kernel(t * FRAC_PI_4)
}

/// `(sin, cos)` of the angle `2π · u` for `u` in [0, 1] (a fraction of a turn; values
/// outside are reduced as well, exactly for `|u| < 2²²`).
#[inline(always)]
pub fn sin_cos_turn(u: f32) -> (f32, f32) {
    // Quarter turns: the nearest one `q` and the rest `r` in [−½, ½] of a quarter, both exact
    // (multiplying by 4 and subtracting an integer near the value lose no bits).
    let v = u * 4.0;
    let q = v.round();
    let r = v - q;
    let (s, c) = kernel(r * (2.0 * FRAC_PI_4));
    match (q as i32) & 3 {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_matches_the_double_precision_functions() {
        let mut worst = 0.0f64;
        for i in 0..=1_000_000u32 {
            let u = i as f32 / 1_000_000.0;
            let (s, c) = sin_cos_turn(u);
            let a = std::f64::consts::TAU * f64::from(u);
            worst = worst
                .max((f64::from(s) - a.sin()).abs())
                .max((f64::from(c) - a.cos()).abs());
        }
        assert!(worst < 3e-7, "worst absolute error {worst:e}");
    }

    #[test]
    fn an_eighth_matches_the_double_precision_functions() {
        let mut worst = 0.0f64;
        for i in 0..=200_000u32 {
            let t = i as f32 / 100_000.0 - 1.0;
            let (s, c) = sin_cos_eighth(t);
            let a = std::f64::consts::FRAC_PI_4 * f64::from(t);
            worst = worst
                .max((f64::from(s) - a.sin()).abs())
                .max((f64::from(c) - a.cos()).abs());
            // Never beyond the unit circle by more than rounding.
            assert!(s.abs() <= 1.0 && c.abs() <= 1.0);
        }
        assert!(worst < 2e-7, "worst absolute error {worst:e}");
    }

    #[test]
    fn the_quarter_turns_are_exact() {
        assert_eq!(sin_cos_turn(0.0), (0.0, 1.0));
        assert_eq!(sin_cos_turn(0.25), (1.0, -0.0));
        assert_eq!(sin_cos_turn(0.5), (-0.0, -1.0));
        assert_eq!(sin_cos_turn(0.75), (-1.0, 0.0));
        assert_eq!(sin_cos_turn(1.0), (0.0, 1.0));
        assert_eq!(sin_cos_eighth(0.0), (0.0, 1.0));
    }
}
