//! Piecewise-constant distributions for sampling lights and sky maps.

/// A piecewise-constant 1D distribution over `[0, 1)` with `n` equal cells.
#[derive(Clone, Debug)]
pub struct Distribution1D {
    /// The cells' (non-negative) weights.
    pub func: Vec<f32>,
    /// Running sums normalised to end at 1, `func.len() + 1` entries.
    cdf: Vec<f32>,
    /// The integral of `func` over [0, 1).
    pub integral: f32,
    /// A guide table (Chen and Asau's cut points) for `find`: for `u` in bucket
    /// `j = ⌊u·len⌋`, `guide[j]` is the last cell whose cdf start is at most `j/len`. The
    /// search starts there and walks the few cells to the answer, instead of a binary search
    /// over a whole sky map's row; it gives the same cell bit for bit. Empty for short
    /// distributions, where the binary search is as fast.
    guide: Vec<u32>,
}

/// Distributions shorter than this search their cdf directly.
const GUIDE_MIN_CELLS: usize = 16;

impl Distribution1D {
    /// A distribution proportional to `func`; negative and non-finite weights count as 0, and
    /// all-zero weights give the uniform distribution.
    pub fn new(func: &[f32]) -> Self {
        let n = func.len().max(1);
        let func: Vec<f32> = (0..n)
            .map(|i| {
                func.get(i)
                    .copied()
                    .filter(|v| v.is_finite() && *v > 0.0)
                    .unwrap_or(0.0)
            })
            .collect();
        let mut cdf = Vec::with_capacity(n + 1);
        cdf.push(0.0f64);
        // f64 running sums: a million-texel sky in f32 would lose its last cells to rounding.
        for (i, f) in func.iter().enumerate() {
            cdf.push(cdf[i] + *f as f64 / n as f64);
        }
        let total = cdf[n];
        let (func, cdf) = if total > 0.0 {
            (
                func,
                cdf.iter().map(|c| (c / total) as f32).collect::<Vec<f32>>(),
            )
        } else {
            (vec![1.0; n], (0..=n).map(|i| i as f32 / n as f32).collect())
        };
        let integral = if total > 0.0 { total as f32 } else { 1.0 };
        let guide = if n >= GUIDE_MIN_CELLS {
            let mut guide = Vec::with_capacity(n);
            let mut i = 0usize;
            for j in 0..n {
                let edge = j as f32 / n as f32;
                while i + 1 < n && cdf[i + 1] <= edge {
                    i += 1;
                }
                guide.push(i as u32);
            }
            guide
        } else {
            Vec::new()
        };
        Distribution1D {
            func,
            cdf,
            integral,
            guide,
        }
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.func.len()
    }

    /// Whether there are no cells (never: an empty input gives one uniform cell).
    pub fn is_empty(&self) -> bool {
        self.func.is_empty()
    }

    /// The probability of picking cell `i` in a discrete draw.
    pub fn discrete_pdf(&self, i: usize) -> f32 {
        self.func
            .get(i)
            .map_or(0.0, |f| f / (self.integral * self.len() as f32))
    }

    /// Picks a cell with probability proportional to its weight; returns it and its probability.
    pub fn sample_discrete(&self, u: f32) -> (usize, f32) {
        let i = self.find(u);
        (i, self.discrete_pdf(i))
    }

    /// Samples a continuous position in [0, 1); returns it, its density and its cell.
    pub fn sample_continuous(&self, u: f32) -> (f32, f32, usize) {
        let i = self.find(u);
        let (c0, c1) = (self.cdf[i], self.cdf[i + 1]);
        let du = if c1 > c0 { (u - c0) / (c1 - c0) } else { 0.5 };
        // du below 1 keeps x inside cell i, so pdf(x) reads the cell that was sampled.
        let x = ((i as f32 + du.clamp(0.0, 0.999_99)) / self.len() as f32).min(1.0 - f32::EPSILON);
        (x, self.func[i] / self.integral, i)
    }

    /// The density at `x` in [0, 1).
    pub fn pdf(&self, x: f32) -> f32 {
        let i = ((x * self.len() as f32) as usize).min(self.len() - 1);
        self.func[i] / self.integral
    }

    /// The last cell whose cdf start is ≤ `u` (0 when none is), by the cdf alone.
    fn search(&self, u: f32) -> usize {
        self.cdf
            .partition_point(|c| *c <= u)
            .saturating_sub(1)
            .min(self.len() - 1)
    }

    /// [`Self::search`] started from the guide table: the same cell.
    #[inline]
    fn guided_search(&self, u: f32) -> usize {
        let n = self.len();
        if self.guide.len() != n || !(0.0..1.0).contains(&u) {
            return self.search(u);
        }
        let mut i = self.guide[((u * n as f32) as usize).min(n - 1)] as usize;
        // The bucket of `u·n` as rounded may be one off its exact bucket: walk either way.
        while i > 0 && self.cdf[i] > u {
            i -= 1;
        }
        while i + 1 < n && self.cdf[i + 1] <= u {
            i += 1;
        }
        i
    }

    fn find(&self, u: f32) -> usize {
        // The last cell whose cdf start is ≤ u, skipping zero-weight cells at the boundary.
        let n = self.len();
        let i = self.guided_search(u);
        if self.func[i] > 0.0 {
            return i;
        }
        // u landed on the edge of an empty cell: move to the nearest cell with weight.
        (i..n)
            .chain((0..i).rev())
            .find(|&j| self.func[j] > 0.0)
            .unwrap_or(i)
    }
}

/// A piecewise-constant 2D distribution over [0,1)², rows (v) then columns (u).
#[derive(Clone, Debug)]
pub struct Distribution2D {
    rows: Vec<Distribution1D>,
    marginal: Distribution1D,
}

impl Distribution2D {
    /// `func` is row-major, `width` × `height`.
    pub fn new(func: &[f32], width: usize, height: usize) -> Self {
        let rows: Vec<Distribution1D> = (0..height)
            .map(|y| Distribution1D::new(&func[y * width..(y + 1) * width]))
            .collect();
        // The marginal weighs each row by its raw sum: an all-zero row becomes uniform inside,
        // but must weigh nothing.
        let marg: Vec<f32> = (0..height)
            .map(|y| {
                func[y * width..(y + 1) * width]
                    .iter()
                    .filter(|v| v.is_finite() && **v > 0.0)
                    .sum::<f32>()
                    / width as f32
            })
            .collect();
        Distribution2D {
            rows,
            marginal: Distribution1D::new(&marg),
        }
    }

    /// Samples (u, v) in [0,1)² and returns it with its density over [0,1)².
    pub fn sample(&self, u: glam::Vec2) -> (glam::Vec2, f32) {
        let (v, pdf_v, row) = self.marginal.sample_continuous(u.y);
        let (x, pdf_u, _) = self.rows[row].sample_continuous(u.x);
        (glam::Vec2::new(x, v), pdf_u * pdf_v)
    }

    /// The density at (u, v).
    pub fn pdf(&self, p: glam::Vec2) -> f32 {
        let h = self.rows.len();
        let row = ((p.y * h as f32) as usize).min(h - 1);
        self.marginal.pdf(p.y) * self.rows[row].pdf(p.x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guided_search_finds_the_binary_searchs_cell() {
        let mut rng = crate::sampling::testutil::Rng::new(11);
        let mut shapes: Vec<Vec<f32>> = vec![
            vec![1.0; 16],
            (0..300)
                .map(|i| if i % 7 == 0 { 5.0 } else { 0.0 })
                .collect(),
            (0..64).map(|i| if i < 40 { 0.0 } else { 1.0 }).collect(),
            (0..64).map(|i| if i > 3 { 0.0 } else { 1.0 }).collect(),
            (0..1000)
                .map(|i| (i as f32 * 0.01).sin().abs().powi(8))
                .collect(),
            (0..4096)
                .map(|i| if i == 2000 { 1e9 } else { 1e-3 })
                .collect(),
            vec![0.0; 40],
        ];
        for _ in 0..20 {
            let n = 16 + (rng.u64() % 2000) as usize;
            shapes.push((0..n).map(|_| rng.f32().powi(6)).collect());
        }
        for f in &shapes {
            let d = Distribution1D::new(f);
            let n = d.len();
            let mut us: Vec<f32> = (0..4000).map(|_| rng.f32()).collect();
            // Every cdf value, its neighbours, and the bucket edges.
            for &c in &d.cdf {
                us.extend([c, f32::from_bits(c.to_bits().wrapping_sub(1)), c.next_up()]);
            }
            for j in 0..=n {
                let e = j as f32 / n as f32;
                us.extend([e, e.next_down(), e.next_up()]);
            }
            us.extend([
                0.0,
                -0.0,
                1.0,
                0.999_999_94,
                -1.0,
                2.0,
                f32::NAN,
                f32::INFINITY,
            ]);
            for u in us {
                assert_eq!(d.guided_search(u), d.search(u), "n {n} u {u:e}");
            }
        }
    }

    #[test]
    fn discrete_matches_weights() {
        let d = Distribution1D::new(&[1.0, 0.0, 3.0]);
        assert!((d.discrete_pdf(0) - 0.25).abs() < 1e-6);
        assert_eq!(d.discrete_pdf(1), 0.0);
        assert_eq!(d.sample_discrete(0.1).0, 0);
        assert_eq!(d.sample_discrete(0.25).0, 2);
        assert_eq!(d.sample_discrete(0.9999).0, 2);
    }

    #[test]
    fn continuous_density_integrates_to_one() {
        let d = Distribution2D::new(&[0.0, 1.0, 2.0, 5.0, 0.0, 1.0], 3, 2);
        let n = 300;
        let mut sum = 0.0;
        for j in 0..n {
            for i in 0..n {
                let p = glam::Vec2::new((i as f32 + 0.5) / n as f32, (j as f32 + 0.5) / n as f32);
                sum += d.pdf(p) / (n * n) as f32;
            }
        }
        assert!((sum - 1.0).abs() < 1e-3, "{sum}");
        let (p, pdf) = d.sample(glam::Vec2::new(0.3, 0.7));
        assert!((pdf - d.pdf(p)).abs() < 1e-4 * pdf);
    }
}
