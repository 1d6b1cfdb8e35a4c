//! The finish's randomness: every value a pure function of (pixel, seed, frame, pass, channel),
//! so the preview's bytes never depend on the thread count or the order pixels are finished.

/// A well-mixed 32-bit hash (Chris Wellons' `lowbias32`, bias ≈ 0.17).
fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// What a noise value is keyed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoiseKey {
    /// The chain's `seed`.
    pub seed: u64,
    /// The chain's `frame`.
    pub frame: u64,
    /// The pass's place in the chain, so two grain passes draw different grain.
    pub pass: u32,
}

impl NoiseKey {
    /// A uniform value in [0, 1) for pixel (`x`, `y`) and `stream` (a channel or a draw).
    pub fn uniform(&self, x: u32, y: u32, stream: u32) -> f32 {
        let mut h = mix(self.seed as u32 ^ 0x9e37_79b9);
        h = mix(h ^ (self.seed >> 32) as u32);
        h = mix(h ^ self.frame as u32);
        h = mix(h ^ (self.frame >> 32) as u32);
        h = mix(h ^ self.pass);
        h = mix(h ^ x);
        h = mix(h ^ y);
        h = mix(h ^ stream);
        // The top 24 bits, exactly representable in f32.
        (h >> 8) as f32 / (1u32 << 24) as f32
    }

    /// A triangular value in (−1, 1): the sum of two uniforms, less 1 (TPDF dither).
    pub fn triangular(&self, x: u32, y: u32, stream: u32) -> f32 {
        self.uniform(x, y, 2 * stream) + self.uniform(x, y, 2 * stream + 1) - 1.0
    }

    /// Smooth value noise in [0, 1) at (`x`, `y`) in lattice cells: the uniform values of the
    /// four lattice points around it (keyed by `stream`), blended by smoothstep weights.
    pub fn value(&self, x: f32, y: f32, stream: u32) -> f32 {
        let (fx, fy) = (x.floor(), y.floor());
        let (tx, ty) = (x - fx, y - fy);
        let (sx, sy) = (tx * tx * (3.0 - 2.0 * tx), ty * ty * (3.0 - 2.0 * ty));
        // Lattice coordinates as wrapping integers: negative cells hash too.
        let (ix, iy) = (fx as i64 as u32, fy as i64 as u32);
        let at = |dx: u32, dy: u32| self.uniform(ix.wrapping_add(dx), iy.wrapping_add(dy), stream);
        let top = at(0, 0) + (at(1, 0) - at(0, 0)) * sx;
        let bottom = at(0, 1) + (at(1, 1) - at(0, 1)) * sx;
        top + (bottom - top) * sy
    }

    /// Fractal value noise in [0, 1): `octaves` layers of [`NoiseKey::value`], each of half the
    /// cell and half the weight of the one before, the first of cells `cell` pixels wide, at
    /// pixel (`x`, `y`)'s centre.
    pub fn fbm(&self, x: u32, y: u32, cell: f32, octaves: u32, stream: u32) -> f32 {
        let (mut sum, mut total, mut weight, mut size) = (0.0, 0.0, 1.0, cell.max(0.25));
        for o in 0..octaves.max(1) {
            let (px, py) = ((x as f32 + 0.5) / size, (y as f32 + 0.5) / size);
            sum += weight * self.value(px, py, stream.wrapping_mul(16).wrapping_add(o));
            total += weight;
            weight *= 0.5;
            size = (size * 0.5).max(0.25);
        }
        sum / total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_is_uniform_and_keyed() {
        let k = NoiseKey {
            seed: 7,
            frame: 0,
            pass: 0,
        };
        let n = 256 * 256;
        let mut bins = [0u32; 16];
        let mut sum = 0.0f64;
        for y in 0..256 {
            for x in 0..256 {
                let u = k.uniform(x, y, 0);
                assert!((0.0..1.0).contains(&u));
                bins[(u * 16.0) as usize] += 1;
                sum += u as f64;
            }
        }
        // χ² with 15 degrees of freedom: 37.7 is the 0.1 % point.
        let e = n as f64 / 16.0;
        let chi2: f64 = bins.iter().map(|&b| (b as f64 - e).powi(2) / e).sum();
        assert!(chi2 < 37.7, "χ² = {chi2}");
        assert!((sum / n as f64 - 0.5).abs() < 0.005);
        let other = NoiseKey { seed: 8, ..k };
        assert_ne!(k.uniform(3, 4, 0), other.uniform(3, 4, 0));
        assert_ne!(k.uniform(3, 4, 0), k.uniform(4, 3, 0));
        assert_eq!(k.uniform(3, 4, 1), k.uniform(3, 4, 1));
    }
}
