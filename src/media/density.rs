//! The haze's density: the extinction coefficient σt at a point, 1/scene unit, the sum of four
//! layers (docs/haze.md says why each means what it does):
//!
//! - **fog**: uniform over the box;
//! - **mist**: broad, soft variation: `mist · 2·n(p / MIST_PERIOD)`, mean ≈ `mist`;
//! - **smoke**: sparse wisps: `smoke · w(n(p / SMOKE_PERIOD))`, 0 over most of the box and
//!   `smoke` at a wisp's core;
//! - **floor**: a layer on the box's floor that falls off with height,
//!   `floor · exp(−(y − lo.y) / h)` with `h` a tenth of the box's height.
//!
//! `n` is a three-octave value noise in [0, 1], a pure function of the point and `[haze] seed`
//! (no state, no random numbers from the sampler), so the medium is the same for every ray,
//! thread and sample. Every layer is bounded, so [`Density::majorant`] bounds their sum.

use glam::Vec3;

/// Feature size of the mist's noise, scene units.
pub const MIST_PERIOD: f32 = 2.0;
/// Feature size of the smoke's noise, scene units.
pub const SMOKE_PERIOD: f32 = 0.6;
/// The smoke's noise values at which a wisp starts and reaches full density.
const SMOKE_EDGE: (f32, f32) = (0.58, 0.78);
/// The floor layer's scale height as a share of the box's height.
pub const FLOOR_HEIGHT_SHARE: f32 = 0.1;

/// The four layers' strengths and the noise seed, as `[haze]` gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Density {
    /// Uniform extinction, 1/scene unit.
    pub fog: f32,
    /// Mean extinction of the mist layer, 1/scene unit (its peak is twice this).
    pub mist: f32,
    /// Extinction at a smoke wisp's core, 1/scene unit.
    pub smoke: f32,
    /// Extinction at the box's floor, 1/scene unit, falling by `e` every `floor_height`.
    pub floor: f32,
    /// The box's lower y, scene units: where the floor layer is densest.
    pub floor_y: f32,
    /// The floor layer's scale height, scene units (above 0).
    pub floor_height: f32,
    /// `[haze] seed`.
    pub seed: u64,
}

impl Density {
    /// Whether σt is the same everywhere in the box (only fog): free paths and transmittance
    /// then have closed forms.
    pub fn is_uniform(&self) -> bool {
        self.mist == 0.0 && self.smoke == 0.0 && self.floor == 0.0
    }

    /// An upper bound of σt over the box, 1/scene unit.
    pub fn majorant(&self) -> f32 {
        self.fog + 2.0 * self.mist + self.smoke + self.floor
    }

    /// σt at `p` (a point in the box), 1/scene unit; in [0, majorant].
    #[inline]
    pub fn sigma_t(&self, p: Vec3) -> f32 {
        let mut s = self.fog;
        let seed = self.seed as u32 ^ (self.seed >> 32) as u32;
        if self.mist > 0.0 {
            s += self.mist * 2.0 * fbm(p * (1.0 / MIST_PERIOD), seed);
        }
        if self.smoke > 0.0 {
            let n = fbm(p * (1.0 / SMOKE_PERIOD), seed ^ 0x5bd1_e995);
            let w = ((n - SMOKE_EDGE.0) / (SMOKE_EDGE.1 - SMOKE_EDGE.0)).clamp(0.0, 1.0);
            s += self.smoke * w * w * (3.0 - 2.0 * w);
        }
        if self.floor > 0.0 {
            let above = (p.y - self.floor_y).max(0.0);
            s += self.floor * (-above / self.floor_height).exp();
        }
        s.clamp(0.0, self.majorant())
    }
}

/// A 32-bit hash of a lattice point and a seed (the `lowbias32` finaliser, C. Wellons 2018).
#[inline]
fn lattice_hash(x: i32, y: i32, z: i32, seed: u32) -> u32 {
    let mix = |mut h: u32| {
        h ^= h >> 16;
        h = h.wrapping_mul(0x7feb_352d);
        h ^= h >> 15;
        h = h.wrapping_mul(0x846c_a68b);
        h ^ (h >> 16)
    };
    mix((x as u32) ^ mix((y as u32) ^ mix((z as u32) ^ mix(seed))))
}

/// Value noise in [0, 1]: lattice values hashed from the integer points, blended with the
/// quintic fade (C² continuous). Bounded by its corner values, so never outside [0, 1].
#[inline]
pub fn value_noise(p: Vec3, seed: u32) -> f32 {
    let f = p.floor();
    let (x, y, z) = (f.x as i32, f.y as i32, f.z as i32);
    let t = p - f;
    let fade = |t: f32| t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
    let (u, v, w) = (fade(t.x), fade(t.y), fade(t.z));
    let val = |dx: i32, dy: i32, dz: i32| {
        (lattice_hash(
            x.wrapping_add(dx),
            y.wrapping_add(dy),
            z.wrapping_add(dz),
            seed,
        ) >> 8) as f32
            * (1.0 / (1u32 << 24) as f32)
    };
    let lerp = |a: f32, b: f32, t: f32| a + (b - a) * t;
    let x00 = lerp(val(0, 0, 0), val(1, 0, 0), u);
    let x10 = lerp(val(0, 1, 0), val(1, 1, 0), u);
    let x01 = lerp(val(0, 0, 1), val(1, 0, 1), u);
    let x11 = lerp(val(0, 1, 1), val(1, 1, 1), u);
    lerp(lerp(x00, x10, v), lerp(x01, x11, v), w).clamp(0.0, 1.0)
}

/// Three octaves of [`value_noise`] (frequency ×2, amplitude ×½ each), normalised to [0, 1].
#[inline]
pub fn fbm(p: Vec3, seed: u32) -> f32 {
    let a = value_noise(p, seed);
    let b = value_noise(p * 2.0 + Vec3::splat(17.3), seed.wrapping_add(0x9e37_79b9));
    let c = value_noise(p * 4.0 + Vec3::splat(-31.7), seed.wrapping_add(0x3c6e_f372));
    ((a + 0.5 * b + 0.25 * c) * (1.0 / 1.75)).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn haze(seed: u64) -> Density {
        Density {
            fog: 0.1,
            mist: 0.2,
            smoke: 4.0,
            floor: 0.5,
            floor_y: 0.0,
            floor_height: 0.3,
            seed,
        }
    }

    #[test]
    fn density_stays_under_its_majorant_and_depends_on_the_seed() {
        let (a, b) = (haze(1), haze(2));
        let mut differ = 0;
        let mut smoky = 0;
        let n = 20_000;
        for i in 0..n {
            let p = Vec3::new(
                (i % 37) as f32 * 0.173 - 3.0,
                (i % 11) as f32 * 0.29,
                (i / 37) as f32 * 0.0191 - 5.0,
            );
            let s = a.sigma_t(p);
            assert!(s.is_finite() && s >= a.fog && s <= a.majorant(), "{s}");
            assert_eq!(s, a.sigma_t(p), "a pure function");
            if s != b.sigma_t(p) {
                differ += 1;
            }
            if s > a.fog + 2.0 * a.mist + a.floor + 1e-3 {
                smoky += 1;
            }
        }
        assert!(differ > n * 9 / 10, "{differ}");
        // Smoke is sparse: wisps fill a small part of the box, not none of it.
        assert!(smoky > n / 200 && smoky < n / 4, "{smoky}");
    }

    #[test]
    fn noise_is_continuous_and_spans_its_range() {
        let (mut lo, mut hi) = (1.0f32, 0.0f32);
        for i in 0..10_000 {
            let p = Vec3::new(i as f32 * 0.0371, (i % 97) as f32 * 0.11, 0.5);
            let v = fbm(p, 9);
            lo = lo.min(v);
            hi = hi.max(v);
            let d = (fbm(p + Vec3::splat(1e-3), 9) - v).abs();
            assert!(d < 0.02, "jump {d} at {p}");
        }
        assert!(lo < 0.3 && hi > 0.7, "{lo} {hi}");
    }

    #[test]
    fn floor_layer_falls_by_e_per_scale_height() {
        let d = Density {
            fog: 0.0,
            mist: 0.0,
            smoke: 0.0,
            floor: 2.0,
            floor_y: 1.0,
            floor_height: 0.5,
            seed: 0,
        };
        assert!((d.sigma_t(Vec3::new(0.0, 1.0, 0.0)) - 2.0).abs() < 1e-6);
        let r = d.sigma_t(Vec3::new(3.0, 1.5, -2.0)) / 2.0;
        assert!((r - (-1.0f32).exp()).abs() < 1e-6, "{r}");
    }
}
