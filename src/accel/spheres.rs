//! Spheres (sphere lights and emitters) in a BVH of their own, so that a ray tests the few
//! spheres near it instead of every sphere in the scene.
//!
//! Each query gives exactly what a loop over the spheres in index order would: the same
//! sphere test, the same comparison of `t` against the running limit, and on equal `t` the
//! lower index (the loop's first). The tree only skips spheres whose padded box the ray
//! misses, so which instruction set or thread runs it changes nothing.

use glam::Vec3;

use crate::geometry::sphere_hit;

/// One sphere of the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sphere {
    /// Centre, world units.
    pub center: Vec3,
    /// Radius, world units; a sphere with a radius that is not positive and finite is left
    /// out (it can never be hit).
    pub radius: f32,
    /// Visibility bits; a ray sees the sphere when `sphere.mask & ray_mask != 0`.
    pub mask: u32,
    /// The caller's number for the sphere (a light index), reported with its hits and used to
    /// break ties: on equal `t` the lower id wins.
    pub id: u32,
}

/// A node: a box and either two children (`count == 0`: the left child follows the node,
/// the right is at `right`) or `count` spheres from `first` in the tree's order.
#[derive(Clone, Copy, Debug)]
struct Node {
    lo: Vec3,
    hi: Vec3,
    first: u32,
    count: u32,
    right: u32,
}

/// Most spheres in a leaf.
const LEAF: usize = 2;

/// A bounding-volume hierarchy over spheres, built by median splits; immutable once built.
#[derive(Clone, Debug, Default)]
pub struct SphereTree {
    nodes: Vec<Node>,
    /// The usable spheres in tree order.
    spheres: Vec<Sphere>,
}

impl SphereTree {
    /// Builds the tree. Deterministic: a function of the list alone.
    pub fn build(spheres: &[Sphere]) -> SphereTree {
        let mut usable: Vec<Sphere> = spheres
            .iter()
            .copied()
            .filter(|s| s.center.is_finite() && s.radius.is_finite() && s.radius > 0.0)
            .collect();
        let mut tree = SphereTree {
            nodes: Vec::with_capacity(2 * usable.len().div_ceil(LEAF)),
            spheres: Vec::new(),
        };
        if !usable.is_empty() {
            let n = usable.len();
            tree.build_node(&mut usable, 0, n);
        }
        tree.spheres = usable;
        tree
    }

    /// Builds the node over `s[a..b]` (reordering it) and returns the node's index.
    fn build_node(&mut self, s: &mut [Sphere], a: usize, b: usize) -> u32 {
        let (mut lo, mut hi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for sp in &s[a..b] {
            lo = lo.min(sp.center - Vec3::splat(sp.radius));
            hi = hi.max(sp.center + Vec3::splat(sp.radius));
        }
        // The box is padded so that rounding in the slab test can never cull a sphere the
        // exact test would hit.
        let pad = (hi - lo) * 1e-4 + lo.abs().max(hi.abs()) * 1e-5;
        let index = self.nodes.len() as u32;
        self.nodes.push(Node {
            lo: lo - pad,
            hi: hi + pad,
            first: a as u32,
            count: (b - a) as u32,
            right: 0,
        });
        if b - a <= LEAF {
            return index;
        }
        let (mut clo, mut chi) = (Vec3::INFINITY, Vec3::NEG_INFINITY);
        for sp in &s[a..b] {
            clo = clo.min(sp.center);
            chi = chi.max(sp.center);
        }
        let e = chi - clo;
        let axis = if e.x >= e.y && e.x >= e.z {
            0
        } else if e.y >= e.z {
            1
        } else {
            2
        };
        // Sort by centre along the axis, ids breaking ties, so the split is deterministic.
        s[a..b].sort_by(|p, q| {
            p.center[axis]
                .total_cmp(&q.center[axis])
                .then(p.id.cmp(&q.id))
        });
        let mid = a + (b - a) / 2;
        self.build_node(s, a, mid);
        let right = self.build_node(s, mid, b);
        let node = &mut self.nodes[index as usize];
        node.count = 0;
        node.right = right;
        index
    }

    /// Spheres held (the usable ones).
    pub fn len(&self) -> usize {
        self.spheres.len()
    }

    /// Whether the tree holds no sphere.
    pub fn is_empty(&self) -> bool {
        self.spheres.is_empty()
    }

    /// Bytes held by nodes and spheres.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node>()
            + self.spheres.len() * std::mem::size_of::<Sphere>()
    }

    /// Whether the ray from `o` along `du` (unit) can meet node `n` before unit distance
    /// `limit` (`inv`: the per-axis reciprocals of `du`).
    #[inline]
    fn enters(n: &Node, o: Vec3, inv: Vec3, limit: f32) -> bool {
        let t0 = (n.lo - o) * inv;
        let t1 = (n.hi - o) * inv;
        // NaN (a zero direction component on a slab plane) compares false and keeps the node.
        let near = t0.min(t1).max_element();
        let far = t0.max(t1).min_element();
        !(near > far || far < 0.0 || near > limit)
    }

    /// Visits the spheres of the leaves the ray may meet (in no particular order: the queries
    /// break ties by id); `visit` returns the unit distance beyond which nothing matters any
    /// more, or a negative value to stop.
    #[inline]
    fn walk(&self, o: Vec3, du: Vec3, mut limit: f32, mut visit: impl FnMut(&Sphere) -> f32) {
        if self.nodes.is_empty() {
            return;
        }
        let inv = du.recip();
        // Median splits make the tree at most ⌈log2 n⌉ + 1 deep, and the walk holds at most
        // one pending node per level plus one: 64 slots cover any sphere count.
        let mut stack = [0u32; 64];
        let mut top = 1usize;
        while top > 0 {
            top -= 1;
            let i = stack[top] as usize;
            let node = &self.nodes[i];
            if !Self::enters(node, o, inv, limit) {
                continue;
            }
            if node.count > 0 {
                let (a, b) = (node.first as usize, (node.first + node.count) as usize);
                for s in &self.spheres[a..b] {
                    limit = visit(s);
                    if limit < 0.0 {
                        return;
                    }
                }
            } else {
                stack[top] = node.right;
                stack[top + 1] = i as u32 + 1;
                top += 2;
            }
        }
    }

    /// The nearest sphere (among those with `mask` bits) that the ray `o + t·d` meets with
    /// `t < t_max`, where `d = du·dn` (`du` unit, `dn` its length: `t` is in units of the
    /// caller's direction, computed as `sphere_hit(o, du, …) / dn`). Ties go to the lower id.
    /// Returns `(id, t)`.
    pub fn closest(&self, o: Vec3, du: Vec3, dn: f32, t_max: f32, mask: u32) -> Option<(u32, f32)> {
        let mut best: Option<(u32, f32)> = None;
        let mut t_best = t_max;
        // The unit-distance bound for the boxes, widened so rounding of `t·dn` cannot cull.
        let unit_limit = |t: f32| {
            if t.is_finite() {
                t * dn * (1.0 + 1e-5)
            } else {
                f32::INFINITY
            }
        };
        self.walk(o, du, unit_limit(t_best), |s| {
            if s.mask & mask != 0 {
                if let Some(t) = sphere_hit(o, du, s.center, s.radius) {
                    let t = t / dn;
                    let better =
                        t < t_best || (t == t_best && best.is_some_and(|(id, _)| s.id < id));
                    if better {
                        t_best = t;
                        best = Some((s.id, t));
                    }
                }
            }
            unit_limit(t_best)
        });
        best
    }

    /// Whether any sphere with `mask` bits lies on the ray before `t_max` (units and test as
    /// [`SphereTree::closest`]).
    pub fn any(&self, o: Vec3, du: Vec3, dn: f32, t_max: f32, mask: u32) -> bool {
        let mut found = false;
        let limit = if t_max.is_finite() {
            t_max * dn * (1.0 + 1e-5)
        } else {
            f32::INFINITY
        };
        self.walk(o, du, limit, |s| {
            if s.mask & mask != 0
                && sphere_hit(o, du, s.center, s.radius).is_some_and(|t| t / dn < t_max)
            {
                found = true;
                return -1.0;
            }
            limit
        });
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random value in [0, 1) for test inputs.
    fn hash01(i: u64) -> f32 {
        let mut z = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    }

    #[test]
    fn queries_agree_with_a_loop_in_index_order() {
        // Spheres of mixed sizes and masks, some overlapping, some duplicated (ties), and
        // some unusable; rays from inside, outside, along axes and with long directions.
        let mut spheres = Vec::new();
        for i in 0..300u32 {
            let k = i as u64 * 7;
            let c = Vec3::new(hash01(k), hash01(k + 1), hash01(k + 2)) * 20.0 - 10.0;
            let r = 0.05 + 1.5 * hash01(k + 3);
            spheres.push(Sphere {
                center: c,
                radius: r,
                mask: 1 + (i % 2),
                id: i,
            });
        }
        spheres.push(Sphere {
            id: 300,
            ..spheres[5]
        }); // a duplicate: same t, higher id
        spheres.push(Sphere {
            radius: f32::NAN,
            id: 301,
            ..spheres[6]
        });
        spheres.push(Sphere {
            radius: 0.0,
            id: 302,
            ..spheres[7]
        });
        let tree = SphereTree::build(&spheres);
        assert_eq!(tree.len(), 301);
        let hits = agree_with_the_loop(&tree, &spheres);
        assert!(hits > 2000, "{hits} hits: the test must exercise hits");
        // Trees of one leaf (one or two spheres), with a tie between two equal spheres.
        for few in [vec![spheres[9]], vec![spheres[5], spheres[300]]] {
            let big: Vec<Sphere> = few
                .iter()
                .map(|s| Sphere {
                    radius: 6.0,
                    center: s.center * 0.2,
                    ..*s
                })
                .collect();
            let tree = SphereTree::build(&big);
            let hits = agree_with_the_loop(&tree, &big);
            assert!(hits > 500, "{hits} hits on {} spheres", big.len());
        }
    }

    /// Checks every query of `tree` against a loop over `spheres` on 4000 rays × 3 masks;
    /// returns how many met a sphere.
    fn agree_with_the_loop(tree: &SphereTree, spheres: &[Sphere]) -> u32 {
        let mut hits = 0;
        for j in 0..4000u64 {
            let k = 1000 + j * 11;
            let o = Vec3::new(hash01(k), hash01(k + 1), hash01(k + 2)) * 24.0 - 12.0;
            let mut d = Vec3::new(hash01(k + 3), hash01(k + 4), hash01(k + 5)) * 2.0 - 1.0;
            if j % 7 == 0 {
                d = Vec3::new(d.x, 0.0, 0.0);
            }
            let d = d * (0.01 + 10.0 * hash01(k + 6));
            let dn = d.length();
            if dn == 0.0 {
                continue;
            }
            let du = d / dn;
            let t_max = if j % 3 == 0 {
                f32::INFINITY
            } else {
                40.0 * hash01(k + 7) / dn
            };
            for mask in [1u32, 2, 3] {
                let mut want: Option<(u32, f32)> = None;
                let mut t_best = t_max;
                for s in spheres.iter().filter(|s| s.mask & mask != 0) {
                    if let Some(t) = sphere_hit(o, du, s.center, s.radius) {
                        let t = t / dn;
                        if t < t_best {
                            t_best = t;
                            want = Some((s.id, t));
                        }
                    }
                }
                let got = tree.closest(o, du, dn, t_max, mask);
                assert_eq!(got, want, "ray {j} mask {mask}");
                assert_eq!(tree.any(o, du, dn, t_max, mask), want.is_some(), "ray {j}");
                hits += want.is_some() as u32;
            }
        }
        hits
    }

    #[test]
    fn an_empty_tree_meets_nothing() {
        let tree = SphereTree::build(&[]);
        assert!(tree.is_empty());
        assert_eq!(
            tree.closest(Vec3::ZERO, Vec3::X, 1.0, f32::INFINITY, !0),
            None
        );
        assert!(!tree.any(Vec3::ZERO, Vec3::X, 1.0, f32::INFINITY, !0));
    }
}
