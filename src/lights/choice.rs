//! Which light next-event estimation picks at a shading point, and with what probability
//! (the same probability MIS needs when a BSDF-sampled ray finds that light).
//!
//! Two pieces combine. A point-independent distribution over every light (by power, or the
//! integrator's guided one, which knows what lights the view and so knows occlusion) gives
//! the sun and sky their probability, and the positioned lights theirs as a whole. Within the
//! positioned lights, a share `tree_share` follows the [`LightTree`]'s point-dependent pmf
//! (distance, orientation, the receiver's hemisphere) and the rest the fixed distribution
//! (its visibility knowledge, which the tree has not). For a positioned light `l`:
//!
//! `pmf(l | x) = q · ((1 − s) · fixed(l) / q + s · tree(l | x))`, with `q` the fixed
//! distribution's total over positioned lights and `s` the tree share, which is smaller at a
//! receiver whose BSDF has a narrow lobe ([`LightContext::narrow`]; the integrator decides);
//!
//! for the sun or sky `pmf(l | x) = fixed(l)`. Every light with power keeps a positive
//! probability where it can light the point, so the estimator is unbiased; the mixture
//! decides only the noise (docs/rendering.md gives the measurements behind `s`).

use super::tree::{LightContext, LightTree};
use super::Light;
use crate::sampling::Distribution1D;

/// The light choice of one render: a fixed distribution, optionally refined by a tree.
#[derive(Clone, Debug)]
pub struct LightChoice {
    /// Over every light of the scene, point-independent.
    fixed: Distribution1D,
    /// The share `s` of the positioned lights' probability that follows the tree; 0 keeps
    /// the fixed distribution alone.
    tree_share: f32,
    /// The share at a receiver with a narrow lobe ([`LightContext::narrow`]).
    narrow_share: f32,
    /// The fixed distribution's total over the lights in the tree (`q`).
    in_tree: f32,
    /// The fixed distribution restricted to the lights in the tree, and their indices.
    local: Option<(Distribution1D, Vec<u32>)>,
    /// The fixed distribution restricted to the lights not in the tree, and their indices.
    other: Option<(Distribution1D, Vec<u32>)>,
    /// Per light: its index in `local` or in `other` (whichever holds it).
    slot: Vec<u32>,
}

impl LightChoice {
    /// Picks from `fixed` alone (over every light of the scene), whatever the point.
    pub fn fixed(fixed: Distribution1D) -> LightChoice {
        LightChoice {
            fixed,
            tree_share: 0.0,
            narrow_share: 0.0,
            in_tree: 0.0,
            local: None,
            other: None,
            slot: Vec::new(),
        }
    }

    /// `fixed` (over every light of `lights`) with a share `tree_share` in [0, 1] of the
    /// positioned lights' probability following `tree` (built over the same `lights`).
    ///
    /// Scenes with fewer than [`MIN_TREE_LIGHTS`] positioned lights keep `fixed` alone.
    pub fn with_tree(
        fixed: Distribution1D,
        lights: &[Light],
        tree: &LightTree,
        tree_share: f32,
    ) -> LightChoice {
        LightChoice::with_tree_from(fixed, lights, tree, [tree_share; 2], MIN_TREE_LIGHTS)
    }

    /// [`Self::with_tree`] with the tree shares `[s, s_narrow]` (`s_narrow` at receivers with
    /// a narrow lobe, `s` elsewhere), the tree used from `min_lights` positioned lights on
    /// (`MIN_TREE_LIGHTS` is the default; for measuring the choice on scenes with fewer).
    pub fn with_tree_from(
        fixed: Distribution1D,
        lights: &[Light],
        tree: &LightTree,
        tree_shares: [f32; 2],
        min_lights: usize,
    ) -> LightChoice {
        let clamp = |s: f32| {
            if s.is_finite() {
                s.clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        let (s, s_narrow) = (clamp(tree_shares[0]), clamp(tree_shares[1]));
        if s.max(s_narrow) <= 0.0 || tree.is_empty() || fixed.len() != lights.len() {
            return LightChoice::fixed(fixed);
        }
        let restrict = |keep: &dyn Fn(usize) -> bool| {
            let idx: Vec<u32> = (0..lights.len() as u32)
                .filter(|&i| keep(i as usize))
                .collect();
            let w: Vec<f32> = idx
                .iter()
                .map(|&i| fixed.discrete_pdf(i as usize))
                .collect();
            let total: f64 = w.iter().map(|&v| v as f64).sum();
            (!idx.is_empty() && total > 0.0).then(|| (total as f32, (Distribution1D::new(&w), idx)))
        };
        let in_tree_count = (0..lights.len()).filter(|&i| tree.contains(i)).count();
        if in_tree_count < min_lights.max(1) {
            return LightChoice::fixed(fixed);
        }
        let local = restrict(&|i| tree.contains(i));
        let other = restrict(&|i| !tree.contains(i));
        let Some((q_local, local)) = local else {
            return LightChoice::fixed(fixed);
        };
        let q_other = other.as_ref().map_or(0.0, |o| o.0);
        // The two parts' shares, from the same weights, summing to 1.
        let in_tree = q_local / (q_local + q_other);
        let mut slot = vec![0u32; lights.len()];
        for part in [Some(&local), other.as_ref().map(|o| &o.1)]
            .into_iter()
            .flatten()
        {
            for (k, &l) in part.1.iter().enumerate() {
                slot[l as usize] = k as u32;
            }
        }
        LightChoice {
            fixed,
            tree_share: s,
            narrow_share: s_narrow,
            in_tree,
            local: Some(local),
            other: other.map(|o| o.1),
            slot,
        }
    }

    /// The point-independent distribution this choice starts from, over every light.
    pub fn fixed_distribution(&self) -> &Distribution1D {
        &self.fixed
    }

    /// Whether the pick depends on the shading point (a tree share above 0).
    pub fn uses_tree(&self) -> bool {
        self.local.is_some()
    }

    /// Picks a light for `ctx` with `u` in [0, 1): its index in the scene's list and the
    /// probability of the pick ([`Self::pmf`] of it, bit for bit). `None` when the pick finds
    /// no light that can light the point.
    #[inline]
    pub fn sample(&self, tree: &LightTree, ctx: &LightContext, u: f32) -> Option<(usize, f32)> {
        let Some((local, local_idx)) = &self.local else {
            let (i, p) = self.fixed.sample_discrete(u);
            return Some((i, p));
        };
        // The first stretch of `u` picks among the lights outside the tree.
        let q = self.in_tree;
        if u >= q {
            let (d, idx) = self.other.as_ref()?;
            let v = ((u - q) / (1.0 - q)).clamp(0.0, ONE_MINUS_EPSILON);
            let (k, _) = d.sample_discrete(v);
            let l = idx[k] as usize;
            return Some((l, self.pmf(tree, ctx, l)));
        }
        let v = (u / q).clamp(0.0, ONE_MINUS_EPSILON);
        let s = self.share(ctx);
        let pmf = if v < s {
            // The walk's own product is bit for bit `LightTree::pmf` of the light it picked
            // (tested in tree.rs), so the tree is walked once, not twice.
            let (l, p_tree) = tree.sample(ctx, (v / s).min(ONE_MINUS_EPSILON))?;
            let k = *self.slot.get(l)? as usize;
            (
                l,
                self.in_tree * ((1.0 - s) * local.discrete_pdf(k) + s * p_tree),
            )
        } else {
            let (k, _) = local.sample_discrete(((v - s) / (1.0 - s)).clamp(0.0, ONE_MINUS_EPSILON));
            let l = local_idx[k] as usize;
            (l, self.pmf(tree, ctx, l))
        };
        (pmf.1 > 0.0).then_some(pmf)
    }

    /// The probability that [`Self::sample`] at `ctx` picks light `light`.
    #[inline]
    pub fn pmf(&self, tree: &LightTree, ctx: &LightContext, light: usize) -> f32 {
        let Some((local, _)) = &self.local else {
            return self.fixed.discrete_pdf(light);
        };
        let Some(&k) = self.slot.get(light) else {
            return 0.0;
        };
        if !tree.contains(light) {
            return match &self.other {
                Some((d, _)) => (1.0 - self.in_tree) * d.discrete_pdf(k as usize),
                None => 0.0,
            };
        }
        let s = self.share(ctx);
        self.in_tree * ((1.0 - s) * local.discrete_pdf(k as usize) + s * tree.pmf(ctx, light))
    }

    /// The tree's share at `ctx`.
    #[inline(always)]
    fn share(&self, ctx: &LightContext) -> f32 {
        if ctx.narrow {
            self.narrow_share
        } else {
            self.tree_share
        }
    }
}

/// Fewer positioned lights than this keep the fixed distribution: one emissive quad (the
/// Cornell box's 2 triangles) gains nothing from the tree's walk and pays for it (the same
/// relMSE, 1.3·10⁻² at 16 spp, for 16 % more instructions per sample), while the flagship's
/// 6 positioned lights (4 bulbs and a panel's 2 triangles) get 1.8× less relMSE at equal
/// samples from the tree than from the guided distribution alone (docs/rendering.md,
/// "Issue 13's flagship figure"). Before that measurement it was 8.
pub const MIN_TREE_LIGHTS: usize = 3;

/// The largest f32 below 1.
const ONE_MINUS_EPSILON: f32 = 1.0 - f32::EPSILON / 2.0;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::testutil::Rng;
    use glam::Vec3;

    fn scene() -> Vec<Light> {
        let mut l: Vec<Light> = (0..40)
            .map(|i| Light::Point {
                position: Vec3::new(i as f32 * 0.5, 2.0, (i % 5) as f32),
                intensity: Vec3::splat(1.0 + (i % 3) as f32),
                casts: true,
            })
            .collect();
        l.push(Light::Sun {
            toward: Vec3::Y,
            irradiance: Vec3::splat(2.0),
            cos_max: 1.0,
        });
        l
    }

    /// The mixture's pmf sums to 1 over every light at points some light can reach, and the
    /// pmf each sample reports is the one `pmf` gives.
    #[test]
    fn mixture_pmf_sums_to_one_and_matches_samples() {
        let lights = scene();
        let powers: Vec<f32> = lights.iter().map(|l| l.power(10.0)).collect();
        let tree = LightTree::build(&lights, &powers);
        let mut rng = Rng::new(9);
        for s in [0.25f32, 0.5, 1.0] {
            let choice = LightChoice::with_tree(Distribution1D::new(&powers), &lights, &tree, s);
            assert!(choice.uses_tree());
            for _ in 0..100 {
                let ctx = LightContext {
                    p: Vec3::new(20.0 * rng.f32(), 0.0, 5.0 * rng.f32()),
                    ns: Vec3::Y,
                    ng: Some(Vec3::Y),
                    narrow: false,
                };
                let sum: f64 = (0..lights.len())
                    .map(|l| choice.pmf(&tree, &ctx, l) as f64)
                    .sum();
                assert!((sum - 1.0).abs() < 1e-4, "share {s}: sum {sum}");
                for _ in 0..20 {
                    let (l, p) = choice.sample(&tree, &ctx, rng.f32()).unwrap();
                    assert_eq!(p.to_bits(), choice.pmf(&tree, &ctx, l).to_bits());
                }
                // The sun keeps its fixed probability.
                let sun = lights.len() - 1;
                let fixed = choice.fixed_distribution().discrete_pdf(sun);
                assert!((choice.pmf(&tree, &ctx, sun) - fixed).abs() < 1e-6 * fixed);
            }
        }
        // Shares that differ at receivers with a narrow lobe: each context's pmf is the
        // mixture at its own share, sums to 1, and is what its samples report.
        let choice = LightChoice::with_tree_from(
            Distribution1D::new(&powers),
            &lights,
            &tree,
            [1.0, 0.5],
            3,
        );
        for k in 0..100 {
            let narrow = k % 2 == 0;
            let ctx = LightContext {
                p: Vec3::new(20.0 * rng.f32(), 0.0, 5.0 * rng.f32()),
                ns: Vec3::Y,
                ng: Some(Vec3::Y),
                narrow,
            };
            let share = if narrow { 0.5 } else { 1.0 };
            let uniform =
                LightChoice::with_tree(Distribution1D::new(&powers), &lights, &tree, share);
            let sum: f64 = (0..lights.len())
                .map(|l| {
                    let p = choice.pmf(&tree, &ctx, l);
                    assert_eq!(p.to_bits(), uniform.pmf(&tree, &ctx, l).to_bits());
                    p as f64
                })
                .sum();
            assert!((sum - 1.0).abs() < 1e-4, "narrow {narrow}: sum {sum}");
            for _ in 0..20 {
                let (l, p) = choice.sample(&tree, &ctx, rng.f32()).unwrap();
                assert_eq!(p.to_bits(), choice.pmf(&tree, &ctx, l).to_bits());
            }
        }
        // No share: the fixed distribution as it is.
        let plain = LightChoice::with_tree(Distribution1D::new(&powers), &lights, &tree, 0.0);
        assert!(!plain.uses_tree());
    }
}
