//! A light BVH (light tree): every light with a position — points, spheres, emissive
//! triangles, those of instanced meshes included — in a binary tree whose nodes bound their
//! lights' positions, emission directions and power, sampled from a shading point by an
//! importance that bounds each node's contribution there (after pbrt-v4's `BVHLightSampler`,
//! Conty Estevez and Kulla's "Importance Sampling of Many Lights with Adaptive Tree Splitting",
//! which Cycles' light tree also follows).
//!
//! The sun and the sky have no position: they are not in the tree, and [`super::choice`]
//! gives them their probability. Everything here is a function of the lights alone, built in
//! a fixed order, so the same scene gives the same tree and the same picks on any thread.
//!
//! The probability the tree gives a light depends on the shading point, so the MIS weight of
//! a light a BSDF-sampled ray finds needs it again at the previous vertex: each light keeps
//! its bit trail (the child taken at each level, root first), and [`LightTree::pmf`] walks the
//! same nodes and multiplies the same ratios in the same order as [`LightTree::sample`], so
//! the two agree bit for bit.

use std::f32::consts::PI;

use glam::Vec3;

use super::Light;

mod pair;

/// Buckets per axis of the split search (pbrt-v4's choice).
const BUCKETS: usize = 12;
/// From this depth on the build splits at the median, so no trail is longer than 64 levels
/// (32 more median levels hold 2³² lights, more than a `u32` light index names).
const SAH_DEPTH: u32 = 32;
/// The least squared distance (square scene units) the importance divides by: a shading
/// point on a point light would otherwise give an infinite importance.
const MIN_D2: f32 = 1e-8;
/// The largest importance a node is given, so the sum of two stays finite.
const MAX_IMPORTANCE: f32 = 1e30;

/// Where a light is chosen for: the shading point and what its BSDF can receive.
#[derive(Clone, Copy, Debug)]
pub struct LightContext {
    /// World position, scene units.
    pub p: Vec3,
    /// Unit shading normal: the receiver's cosine is bounded about it (either side); zero for
    /// a scattering point in a medium, which has no cosine.
    pub ns: Vec3,
    /// Unit normal of a reflecting receiver's horizon (light from below it is never
    /// reflected: the integrator gives the shading normal, or the geometric one under a bent
    /// normal, on the viewer's side); `None` when the BSDF transmits, or for a point in no
    /// surface.
    pub ng: Option<Vec3>,
    /// The receiver's BSDF has a narrow lobe (glass, a clear coat, a near-mirror): where a
    /// light lies in that lobe its contribution dwarfs what the tree's BSDF-blind importance
    /// expects, so [`super::LightChoice`] keeps its point-independent half there. The tree
    /// itself does not read it.
    pub narrow: bool,
}

/// A bound on the lights under a node: where they are, which way they emit, how much.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    /// Box corners, scene units.
    lo: Vec3,
    hi: Vec3,
    /// Unit axis of the cone holding every emitter's normal.
    w: Vec3,
    /// Emitted power, W (luminance-weighted, [`Light::power`]); 0 for an empty bound.
    phi: f32,
    /// Cosine of the normal cone's half-angle θo (−1: any direction).
    cos_o: f32,
    /// Cosine of the emission spread θe past the normals (0: a hemisphere about each normal).
    cos_e: f32,
    /// Some emitter emits on both sides of its normal.
    two_sided: bool,
    /// Derived from the fields above once, when the bound is made ([`Bounds::sealed`]), as
    /// `importance` would compute them per query: `sin θo`, the box's centre and its
    /// bounding sphere's squared radius (the same arithmetic, so the same bits).
    sin_o: f32,
    centre: Vec3,
    r2: f32,
}

impl Bounds {
    const EMPTY: Bounds = Bounds {
        lo: Vec3::splat(f32::INFINITY),
        hi: Vec3::splat(f32::NEG_INFINITY),
        w: Vec3::Z,
        phi: 0.0,
        cos_o: 1.0,
        cos_e: 1.0,
        two_sided: false,
        sin_o: 0.0,
        centre: Vec3::ZERO,
        r2: 0.0,
    };

    /// The bound with its derived fields computed from the others.
    fn sealed(mut self) -> Bounds {
        self.sin_o = (1.0 - self.cos_o * self.cos_o).max(0.0).sqrt();
        self.centre = self.centroid();
        self.r2 = 0.25 * (self.hi - self.lo).length_squared();
        self
    }

    /// The bound of one light with power `phi`; `None` for the sun and sky (no position).
    fn of(light: &Light, phi: f32) -> Option<Bounds> {
        let all = |lo: Vec3, hi: Vec3| Bounds {
            lo,
            hi,
            w: Vec3::Z,
            phi,
            cos_o: -1.0,
            cos_e: 0.0,
            two_sided: false,
            ..Bounds::EMPTY
        };
        let b = match light {
            Light::Point { position, .. } => Some(all(*position, *position)),
            // A sphere's normals cover every direction.
            Light::Sphere { center, radius, .. } => Some(all(
                *center - Vec3::splat(*radius),
                *center + Vec3::splat(*radius),
            )),
            Light::Triangle {
                p, n, two_sided, ..
            } => Some(Bounds {
                lo: p[0].min(p[1]).min(p[2]),
                hi: p[0].max(p[1]).max(p[2]),
                w: if n.is_normalized() { *n } else { Vec3::Z },
                phi,
                cos_o: 1.0,
                cos_e: 0.0,
                two_sided: *two_sided,
                ..Bounds::EMPTY
            }),
            Light::Sun { .. } | Light::Sky(_) => None,
        };
        b.map(Bounds::sealed)
    }

    fn centroid(&self) -> Vec3 {
        0.5 * (self.lo + self.hi)
    }

    /// The bound of both (pbrt-v4's `Union` of light bounds): an empty one adds nothing.
    fn union(&self, b: &Bounds) -> Bounds {
        if self.phi <= 0.0 {
            return *b;
        }
        if b.phi <= 0.0 {
            return *self;
        }
        let (w, cos_o) = cone_union(self.w, self.cos_o, b.w, b.cos_o);
        Bounds {
            lo: self.lo.min(b.lo),
            hi: self.hi.max(b.hi),
            w,
            phi: self.phi + b.phi,
            cos_o,
            cos_e: self.cos_e.min(b.cos_e),
            two_sided: self.two_sided | b.two_sided,
            ..Bounds::EMPTY
        }
        .sealed()
    }

    /// An upper bound, up to a constant, of what the lights under this bound give a receiver
    /// at `ctx`: power × the largest emission cosine any of them can have towards the point ×
    /// the largest receiver cosine / squared distance to the box's centre (clamped to the
    /// box's bounding sphere). Zero only where none of them can light the point: it is behind
    /// every emitter, or below the reflecting surface's horizon.
    #[inline]
    fn importance(&self, ctx: &LightContext) -> f32 {
        if self.phi <= 0.0 {
            return 0.0;
        }
        let d = ctx.p - self.centre;
        let d2 = d.length_squared();
        let r2 = self.r2;
        let d2c = d2.max(r2).max(MIN_D2);
        if d2 <= r2 || !d2.is_finite() {
            // Inside the bounding sphere every direction is possible: no cone says anything.
            return (self.phi / d2c).min(MAX_IMPORTANCE);
        }
        // From the lights towards the point.
        let wi = d / d2.sqrt();
        // The directions to the box from the point lie within θb of −wi.
        let sin2_b = (r2 / d2).min(1.0);
        let (sin_b, cos_b) = (sin2_b.sqrt(), (1.0 - sin2_b).sqrt());

        // Emission: θ' = max(0, θw − θo − θb) is the least angle between an emitter's normal
        // and a direction to the point; past θe nothing leaves towards it.
        let mut cos_w = self.w.dot(wi);
        if self.two_sided {
            cos_w = cos_w.abs();
        }
        let sin_w = (1.0 - cos_w * cos_w).max(0.0).sqrt();
        let (cos_x, sin_x) = sub_clamped(cos_w, sin_w, self.cos_o, self.sin_o);
        let (cos_p, _) = sub_clamped(cos_x, sin_x, cos_b, sin_b);
        if cos_p <= self.cos_e {
            return 0.0;
        }
        let mut importance = self.phi * cos_p / d2c;

        // The receiver's cosine, either side of the shading normal, at its largest over the
        // box's directions; a point in a medium (no normal) has none.
        if ctx.ns != Vec3::ZERO {
            let cos_i = wi.dot(ctx.ns).abs().min(1.0);
            let sin_i = (1.0 - cos_i * cos_i).max(0.0).sqrt();
            importance *= sub_clamped(cos_i, sin_i, cos_b, sin_b).0;
        }

        // A reflecting BSDF receives nothing from below its geometric horizon.
        if let Some(ng) = ctx.ng {
            let cos_h = (-wi).dot(ng).clamp(-1.0, 1.0);
            let sin_h = (1.0 - cos_h * cos_h).max(0.0).sqrt();
            if sub_clamped(cos_h, sin_h, cos_b, sin_b).0 <= 0.0 {
                return 0.0;
            }
        }
        if importance.is_finite() {
            importance.clamp(0.0, MAX_IMPORTANCE)
        } else {
            0.0
        }
    }
}

/// `(cos, sin)` of `max(0, a − b)` from the cosines and sines of angles `a` and `b` in [0, π].
#[inline(always)]
fn sub_clamped(cos_a: f32, sin_a: f32, cos_b: f32, sin_b: f32) -> (f32, f32) {
    if cos_a > cos_b {
        (1.0, 0.0)
    } else {
        (cos_a * cos_b + sin_a * sin_b, sin_a * cos_b - cos_a * sin_b)
    }
}

/// The smallest cone (axis, cosine of half-angle) holding the cones `(a, cos_a)` and
/// `(b, cos_b)` (pbrt-v4's `Union` of direction cones).
fn cone_union(a: Vec3, cos_a: f32, b: Vec3, cos_b: f32) -> (Vec3, f32) {
    let theta_a = cos_a.clamp(-1.0, 1.0).acos();
    let theta_b = cos_b.clamp(-1.0, 1.0).acos();
    let theta_d = a.dot(b).clamp(-1.0, 1.0).acos();
    if (theta_d + theta_b).min(PI) <= theta_a {
        return (a, cos_a);
    }
    if (theta_d + theta_a).min(PI) <= theta_b {
        return (b, cos_b);
    }
    let theta_o = 0.5 * (theta_a + theta_d + theta_b);
    if theta_o >= PI {
        return (Vec3::Z, -1.0);
    }
    // Turn `a` towards `b` by θo − θa about their common perpendicular.
    let axis = a.cross(b);
    if axis.length_squared() < 1e-12 {
        return (Vec3::Z, -1.0);
    }
    let axis = axis.normalize();
    let theta_r = theta_o - theta_a;
    let w = a * theta_r.cos() + axis.cross(a) * theta_r.sin();
    (w.normalize(), theta_o.cos())
}

/// pbrt-v4's split cost of a bound: power × the solid-angle measure of its emission cones
/// × its box's surface area × how elongated the box is along the split axis. The area is
/// floored at `min_area` so that a group of point lights (a box of no area) still costs
/// what its power and spread say, and the split does not peel them off one by one.
fn split_cost(b: &Bounds, extent: Vec3, dim: usize, min_area: f32) -> f32 {
    if b.phi <= 0.0 {
        return 0.0;
    }
    let theta_o = b.cos_o.clamp(-1.0, 1.0).acos();
    let theta_e = b.cos_e.clamp(-1.0, 1.0).acos();
    let theta_w = (theta_o + theta_e).min(PI);
    let sin_o = theta_o.sin();
    let m_omega = 2.0 * PI * (1.0 - b.cos_o)
        + PI / 2.0
            * (2.0 * theta_w * sin_o - (theta_o - 2.0 * theta_w).cos() - 2.0 * theta_o * sin_o
                + b.cos_o);
    let e = b.hi - b.lo;
    let area = 2.0 * (e.x * e.y + e.y * e.z + e.z * e.x);
    let kr = extent.max_element() / extent[dim].max(1e-30);
    b.phi * m_omega * kr * area.max(min_area)
}

/// One node: its bound, and either its second child (the first follows it) or its light.
#[derive(Clone, Copy, Debug)]
struct Node {
    bounds: Bounds,
    /// Interior: index of the second child. Leaf: index of the light in the scene's list.
    child_or_light: u32,
    leaf: bool,
}

/// The light tree over a scene's lights (see the module doc).
#[derive(Clone, Debug, Default)]
pub struct LightTree {
    /// Depth-first, root at 0, an interior node's first child right after it.
    nodes: Vec<Node>,
    /// Per light in the scene's list: its bit trail (bit k: the second child at depth k), or
    /// `None` for a light not in the tree (sun, sky, no power).
    trails: Vec<Option<u64>>,
}

impl LightTree {
    /// The tree over every light of `lights` with a position and positive power (`powers`,
    /// W luminance-weighted, in `lights` order, as [`Light::power`] gives them).
    pub fn build(lights: &[Light], powers: &[f32]) -> LightTree {
        let mut items: Vec<(u32, Bounds)> = lights
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                let phi = powers.get(i).copied().unwrap_or(0.0);
                if !(phi > 0.0 && phi.is_finite()) {
                    return None;
                }
                let b = Bounds::of(l, phi)?;
                (b.lo.is_finite() && b.hi.is_finite()).then_some((i as u32, b))
            })
            .collect();
        let mut tree = LightTree {
            nodes: Vec::with_capacity(2 * items.len()),
            trails: vec![None; lights.len()],
        };
        if !items.is_empty() {
            let n = items.len();
            tree.build_node(&mut items, 0, n, 0, 0);
        }
        tree
    }

    /// Builds the node over `items[start..end]` at `depth` with trail `trail`; returns its
    /// bound.
    fn build_node(
        &mut self,
        items: &mut [(u32, Bounds)],
        start: usize,
        end: usize,
        trail: u64,
        depth: u32,
    ) -> Bounds {
        if end - start == 1 {
            let (light, b) = items[start];
            self.nodes.push(Node {
                bounds: b,
                child_or_light: light,
                leaf: true,
            });
            self.trails[light as usize] = Some(trail);
            return b;
        }
        let mid = split(&mut items[start..end], depth) + start;
        let index = self.nodes.len();
        self.nodes.push(Node {
            bounds: Bounds::EMPTY,
            child_or_light: 0,
            leaf: false,
        });
        let b0 = self.build_node(items, start, mid, trail, depth + 1);
        let second = self.nodes.len() as u32;
        let b1 = self.build_node(items, mid, end, trail | (1u64 << depth), depth + 1);
        let b = b0.union(&b1);
        self.nodes[index] = Node {
            bounds: b,
            child_or_light: second,
            leaf: false,
        };
        b
    }

    /// Number of nodes (2n − 1 for n lights in the tree).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Whether light `light` (index in the scene's list) is in the tree.
    pub fn contains(&self, light: usize) -> bool {
        matches!(self.trails.get(light), Some(Some(_)))
    }

    /// Whether no light is in the tree.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The weights of an interior node's two children at `ctx` and the second's index:
    /// their importances, or, below the root, their powers where both importances are 0 (the
    /// node's looser bound let the walk in, its children's rule every light out: a pick by
    /// power there keeps the pmf a distribution that sums to 1, and costs nothing over
    /// giving up, since that sample finds no light either way). `None` at the root when both
    /// are 0: nothing in the tree can light the point.
    #[inline(always)]
    fn child_weights(&self, index: usize, ctx: &LightContext) -> Option<(f32, f32, usize)> {
        let second = self.nodes[index].child_or_light as usize;
        let (c0, c1) = (&self.nodes[index + 1].bounds, &self.nodes[second].bounds);
        let (a, b) = pair::importance_pair(c0, c1, ctx);
        if a + b > 0.0 {
            Some((a, b, second))
        } else if index == 0 {
            None
        } else {
            Some((c0.phi, c1.phi, second))
        }
    }

    /// Picks a light for `ctx` with `u` in [0, 1): the light's index in the scene's list and
    /// the probability of picking it, the product of each level's importance share. `None`
    /// when the root's children say no light in the tree can light the point.
    pub fn sample(&self, ctx: &LightContext, mut u: f32) -> Option<(usize, f32)> {
        let root = self.nodes.first()?;
        if root.leaf {
            return (root.bounds.importance(ctx) > 0.0)
                .then_some((root.child_or_light as usize, 1.0));
        }
        let mut index = 0usize;
        let mut pmf = 1.0f32;
        loop {
            let node = &self.nodes[index];
            if node.leaf {
                return Some((node.child_or_light as usize, pmf));
            }
            let (a, b, second) = self.child_weights(index, ctx)?;
            let sum = a + b;
            let p0 = a / sum;
            if u < p0 {
                pmf *= p0;
                u = (u / p0).min(ONE_MINUS_EPSILON);
                index += 1;
            } else {
                let p1 = b / sum;
                pmf *= p1;
                u = ((u - p0) / p1).clamp(0.0, ONE_MINUS_EPSILON);
                index = second;
            }
        }
    }

    /// The probability that [`Self::sample`] at `ctx` picks light `light` (index in the
    /// scene's list); 0 for a light not in the tree or one that cannot light the point.
    pub fn pmf(&self, ctx: &LightContext, light: usize) -> f32 {
        let Some(Some(mut trail)) = self.trails.get(light).copied() else {
            return 0.0;
        };
        let Some(root) = self.nodes.first() else {
            return 0.0;
        };
        if root.leaf {
            return if root.bounds.importance(ctx) > 0.0 {
                1.0
            } else {
                0.0
            };
        }
        let mut index = 0usize;
        let mut pmf = 1.0f32;
        loop {
            if self.nodes[index].leaf {
                return pmf;
            }
            let Some((a, b, second)) = self.child_weights(index, ctx) else {
                return 0.0;
            };
            let sum = a + b;
            if trail & 1 == 0 {
                pmf *= a / sum;
                index += 1;
            } else {
                pmf *= b / sum;
                index = second;
            }
            if pmf <= 0.0 {
                return 0.0;
            }
            trail >>= 1;
        }
    }
}

/// The largest f32 below 1.
const ONE_MINUS_EPSILON: f32 = 1.0 - f32::EPSILON / 2.0;

/// Orders `items` so that the first `k` go to the first child and returns `k` (0 < k < len):
/// the bucketed split of least [`split_cost`] over the three axes, or the median of the
/// longest centroid axis where no split is better or the tree is deep.
fn split(items: &mut [(u32, Bounds)], depth: u32) -> usize {
    let n = items.len();
    let mut bounds = Bounds::EMPTY;
    let (mut clo, mut chi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for (_, b) in items.iter() {
        bounds = bounds.union(b);
        clo = clo.min(b.centroid());
        chi = chi.max(b.centroid());
    }
    let extent = (bounds.hi - bounds.lo).max(Vec3::ZERO);
    let cext = (chi - clo).max(Vec3::ZERO);
    // A hundredth of the node's size, squared: the least area a bucket's box is costed at.
    let min_area = 1e-4 * extent.length_squared();
    let bucket = |c: Vec3, dim: usize| -> usize {
        let t = (c[dim] - clo[dim]) / cext[dim];
        ((t * BUCKETS as f32) as usize).min(BUCKETS - 1)
    };

    let mut best: Option<(f32, usize, usize)> = None;
    if depth < SAH_DEPTH {
        for dim in 0..3 {
            if cext[dim] <= 0.0 {
                continue;
            }
            let mut buckets = [Bounds::EMPTY; BUCKETS];
            for (_, b) in items.iter() {
                let k = bucket(b.centroid(), dim);
                buckets[k] = buckets[k].union(b);
            }
            // Bounds below and above each split, by sweeps from both ends.
            let mut below = [Bounds::EMPTY; BUCKETS];
            let mut acc = Bounds::EMPTY;
            for k in 0..BUCKETS {
                acc = acc.union(&buckets[k]);
                below[k] = acc;
            }
            let mut above = Bounds::EMPTY;
            for k in (0..BUCKETS - 1).rev() {
                above = above.union(&buckets[k + 1]);
                if below[k].phi <= 0.0 || above.phi <= 0.0 {
                    continue;
                }
                let cost = split_cost(&below[k], extent, dim, min_area)
                    + split_cost(&above, extent, dim, min_area);
                if cost.is_finite() && best.is_none_or(|(c, _, _)| cost < c) {
                    best = Some((cost, dim, k));
                }
            }
        }
    }
    if let Some((_, dim, k)) = best {
        let mut first = 0;
        for i in 0..n {
            if bucket(items[i].1.centroid(), dim) <= k {
                items.swap(first, i);
                first += 1;
            }
        }
        if first > 0 && first < n {
            return first;
        }
    }
    // The median along the longest centroid axis, ties by light index, so the order is fixed.
    let dim = if cext.x >= cext.y && cext.x >= cext.z {
        0
    } else if cext.y >= cext.z {
        1
    } else {
        2
    };
    let mid = n / 2;
    items.select_nth_unstable_by(mid, |a, b| {
        a.1.centroid()[dim]
            .total_cmp(&b.1.centroid()[dim])
            .then(a.0.cmp(&b.0))
    });
    mid
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::testutil::{chi2_p_value, Rng};

    /// A mix of every positioned kind: triangles facing all ways (some two-sided), points,
    /// spheres, a dark light and a sky, spread over a hall.
    fn lights(rng: &mut Rng, n: usize) -> Vec<Light> {
        let mut out = Vec::new();
        for i in 0..n {
            let c = Vec3::new(
                20.0 * rng.f32() - 10.0,
                4.0 * rng.f32(),
                20.0 * rng.f32() - 10.0,
            );
            let l = match i % 4 {
                0 => Light::Point {
                    position: c,
                    intensity: Vec3::splat(0.1 + rng.f32()),
                    casts: true,
                },
                1 => Light::Sphere {
                    center: c,
                    radius: 0.05 + 0.2 * rng.f32(),
                    radiance: Vec3::splat(1.0 + rng.f32()),
                    casts: true,
                },
                _ => {
                    let a = c + 0.3 * rng.sphere_dir();
                    let b = c + 0.3 * rng.sphere_dir();
                    let p = [c, a, b];
                    let x = (a - c).cross(b - c);
                    Light::Triangle {
                        p,
                        n: x.normalize(),
                        area: 0.5 * x.length(),
                        radiance: Vec3::splat(2.0 * rng.f32() + 0.1),
                        two_sided: i % 8 == 2,
                    }
                }
            };
            out.push(l);
        }
        out.push(Light::Point {
            position: Vec3::ZERO,
            intensity: Vec3::ZERO,
            casts: true,
        });
        out.push(Light::Sun {
            toward: Vec3::Y,
            irradiance: Vec3::ONE,
            cos_max: 1.0,
        });
        out
    }

    fn context(rng: &mut Rng, reflecting: bool) -> LightContext {
        let p = Vec3::new(
            24.0 * rng.f32() - 12.0,
            5.0 * rng.f32() - 0.5,
            24.0 * rng.f32() - 12.0,
        );
        let ns = rng.sphere_dir();
        LightContext {
            p,
            ns,
            ng: reflecting.then(|| (ns + 0.2 * rng.sphere_dir()).normalize()),
            narrow: false,
        }
    }

    fn setup(n: usize) -> (Vec<Light>, LightTree) {
        let mut rng = Rng::new(7);
        let lights = lights(&mut rng, n);
        let powers: Vec<f32> = lights.iter().map(|l| l.power(20.0)).collect();
        let tree = LightTree::build(&lights, &powers);
        (lights, tree)
    }

    /// The two-lane importance is the scalar one's bits, at every node of a tree of every
    /// light kind, at random points (reflecting, transmitting, in a medium) and at points
    /// inside the nodes' bounds.
    #[test]
    fn pair_matches_the_scalar_importance() {
        let (_, tree) = setup(301);
        let mut rng = Rng::new(23);
        let mut checked = 0;
        for k in 0..300 {
            let mut ctx = context(&mut rng, k % 3 == 0);
            if k % 3 == 1 {
                ctx.ns = Vec3::ZERO;
            }
            if k % 5 == 0 {
                // Inside a node's bound: at a light's own box centre.
                ctx.p = tree.nodes[(7 * k) % tree.nodes.len()].bounds.centre;
            }
            for (i, n) in tree.nodes.iter().enumerate() {
                if n.leaf {
                    continue;
                }
                let (a, b) = (
                    &tree.nodes[i + 1].bounds,
                    &tree.nodes[n.child_or_light as usize].bounds,
                );
                let (pa, pb) = pair::importance_pair(a, b, &ctx);
                assert_eq!(
                    pa.to_bits(),
                    a.importance(&ctx).to_bits(),
                    "node {i}, point {k}"
                );
                assert_eq!(
                    pb.to_bits(),
                    b.importance(&ctx).to_bits(),
                    "node {i}, point {k}"
                );
                checked += 1;
            }
        }
        assert!(checked > 80_000, "{checked}");
        // An empty bound is 0 in its lane whatever the other's.
        let ctx = context(&mut rng, true);
        let b = &tree.nodes[0].bounds;
        assert_eq!(pair::importance_pair(&Bounds::EMPTY, b, &ctx).0, 0.0);
    }

    #[test]
    fn holds_every_positioned_light_with_power() {
        let (lights, tree) = setup(301);
        let inside = (0..lights.len()).filter(|&i| tree.contains(i)).count();
        // The dark point and the sun stay out.
        assert_eq!(inside, 301);
        assert_eq!(tree.node_count(), 2 * 301 - 1);
        assert!(!tree.contains(301) && !tree.contains(302));
    }

    /// At random shading points the pmf over all lights sums to 1 (or is 0 everywhere where
    /// nothing can light the point), and each sample's pmf is exactly `pmf` of its light.
    #[test]
    fn pmf_sums_to_one_and_matches_each_sample() {
        let (lights, tree) = setup(301);
        let mut rng = Rng::new(11);
        let mut lit = 0;
        for k in 0..400 {
            let ctx = context(&mut rng, k % 2 == 0);
            let sum: f64 = (0..lights.len()).map(|l| tree.pmf(&ctx, l) as f64).sum();
            let first = tree.sample(&ctx, 0.5);
            if first.is_none() {
                assert_eq!(sum, 0.0, "nothing can be sampled, yet pmfs sum to {sum}");
                continue;
            }
            lit += 1;
            assert!((sum - 1.0).abs() < 1e-4, "point {k}: pmfs sum to {sum}");
            for _ in 0..50 {
                let (l, pmf) = tree.sample(&ctx, rng.f32()).unwrap();
                assert!(pmf > 0.0);
                assert_eq!(pmf.to_bits(), tree.pmf(&ctx, l).to_bits(), "light {l}");
            }
        }
        assert!(lit > 300, "only {lit} of 400 points lit");
    }

    /// Sampling frequencies match the pmf (chi-square over the lights, the rare ones pooled).
    #[test]
    fn sampling_frequencies_match_the_pmf() {
        let (lights, tree) = setup(301);
        let mut rng = Rng::new(3);
        let n = 400_000usize;
        let mut tested = 0;
        for k in 0..6 {
            let ctx = context(&mut rng, k % 2 == 1);
            if tree.sample(&ctx, 0.5).is_none() {
                continue;
            }
            tested += 1;
            let mut counts = vec![0usize; lights.len()];
            for i in 0..n {
                // Stratified in [0, 1), shuffled by a hash: every sample a distinct u.
                let u = (i as f32 + rng.f32()) / n as f32;
                let (l, _) = tree.sample(&ctx, u).unwrap();
                counts[l] += 1;
            }
            let expected: Vec<f64> = (0..lights.len())
                .map(|l| tree.pmf(&ctx, l) as f64 * n as f64)
                .collect();
            // A light sampled that the pmf says cannot be is a failure on its own.
            for l in 0..lights.len() {
                assert!(
                    counts[l] == 0 || expected[l] > 0.0,
                    "light {l} sampled at pmf 0"
                );
            }
            let (mut stat, mut dof) = (0.0f64, 0usize);
            let (mut pooled_o, mut pooled_e) = (0.0f64, 0.0f64);
            for l in 0..lights.len() {
                if expected[l] < 5.0 {
                    pooled_o += counts[l] as f64;
                    pooled_e += expected[l];
                    continue;
                }
                stat += (counts[l] as f64 - expected[l]).powi(2) / expected[l];
                dof += 1;
            }
            if pooled_e >= 5.0 {
                stat += (pooled_o - pooled_e).powi(2) / pooled_e;
                dof += 1;
            }
            let p = chi2_p_value(stat, dof.saturating_sub(1).max(1));
            assert!(
                p > 1e-4,
                "point {k}: chi2 {stat:.1} with {dof} cells, p = {p:.2e}"
            );
        }
        assert!(tested >= 4);
    }

    /// The importance never rules out a light that lights the point: wherever a light's own
    /// sample gives something to a receiver, its pmf is positive.
    #[test]
    fn every_light_that_can_light_a_point_is_pickable() {
        let (lights, tree) = setup(120);
        let mut rng = Rng::new(5);
        for k in 0..300 {
            let ctx = context(&mut rng, k % 2 == 0);
            for (l, light) in lights.iter().enumerate() {
                if !tree.contains(l) {
                    continue;
                }
                let Some(s) = light.sample_li(ctx.p, rng.vec2()) else {
                    continue;
                };
                let receives = s.wi.dot(ctx.ns).abs() > 1e-3
                    && ctx.ng.is_none_or(|ng| s.wi.dot(ng) > 1e-3)
                    && s.li.max_element() > 0.0
                    && s.pdf > 0.0;
                if receives {
                    assert!(tree.pmf(&ctx, l) > 0.0, "light {l} at point {k}");
                }
            }
        }
    }

    #[test]
    fn one_light_and_none() {
        let l = [Light::Point {
            position: Vec3::Y,
            intensity: Vec3::ONE,
            casts: true,
        }];
        let tree = LightTree::build(&l, &[1.0]);
        let ctx = LightContext {
            p: Vec3::ZERO,
            ns: Vec3::Y,
            ng: Some(Vec3::Y),
            narrow: false,
        };
        assert_eq!(tree.sample(&ctx, 0.3), Some((0, 1.0)));
        assert_eq!(tree.pmf(&ctx, 0), 1.0);
        // Below a reflecting floor facing down, the lamp above cannot light it.
        let below = LightContext {
            ng: Some(Vec3::NEG_Y),
            ..ctx
        };
        assert_eq!(tree.sample(&below, 0.3), None);
        assert_eq!(tree.pmf(&below, 0), 0.0);
        let empty = LightTree::build(&[], &[]);
        assert!(empty.is_empty() && empty.sample(&ctx, 0.5).is_none());
    }

    #[test]
    fn nearer_lights_get_more_picks() {
        // Two equal lamps: the one beside the point takes nearly all picks.
        let l = [
            Light::Point {
                position: Vec3::new(0.0, 1.0, 0.0),
                intensity: Vec3::ONE,
                casts: true,
            },
            Light::Point {
                position: Vec3::new(10.0, 1.0, 0.0),
                intensity: Vec3::ONE,
                casts: true,
            },
        ];
        let tree = LightTree::build(&l, &[1.0, 1.0]);
        let ctx = LightContext {
            p: Vec3::ZERO,
            ns: Vec3::Y,
            ng: Some(Vec3::Y),
            narrow: false,
        };
        assert!(tree.pmf(&ctx, 0) > 0.95, "{}", tree.pmf(&ctx, 0));
    }
}
