//! What the path tracer asks of the scene: the nearest surface or emitter a ray meets (past
//! clip planes and cut-outs), what a shadow ray keeps, and the shading point of a hit.

use glam::{Vec2, Vec3};

use super::PathTracer;
use crate::accel::Hit;
use crate::geometry::Ray;
use crate::lights::Light;
use crate::world::mask;

/// What a ray meets first.
#[derive(Clone, Copy, Debug)]
pub(super) enum Meet {
    /// A triangle of the accel.
    Surface(Hit),
    /// A sphere light (an `[[emitter]]`, or a `[[light]]` with a radius), at ray parameter `t`.
    Sphere { light: u32, t: f32 },
    /// Nothing: the ray escapes to the sky.
    Nothing,
}

/// A surface point ready to shade.
pub(super) struct Surface {
    /// World position.
    pub p: Vec3,
    /// Geometric normal of the front face (counter-clockwise), unit.
    pub ng_front: Vec3,
    /// Shading normal (interpolated vertex normals), unit.
    pub ns: Vec3,
    /// Index of the accel instance.
    pub instance: u32,
    /// Triangle index in that instance's mesh.
    pub prim: u32,
}

/// An offset that moves a ray origin off the surface it leaves, scaled with the magnitude of
/// the coordinates so it stays above f32 rounding far from the origin.
pub(super) fn offset_origin(p: Vec3, n: Vec3, w: Vec3) -> Vec3 {
    let eps = 1e-5 * (1.0 + p.abs().max_element());
    let n = if n.dot(w) < 0.0 { -n } else { n };
    p + n * eps
}

/// The shadow ray from origin `o` (offset from the shading point `p`) to the point light
/// sample `ls` chose: aimed at that point, `p + wi·dist`, and stopping just short of it
/// (`t_max` in world units along a unit direction), as pbrt-v4's `SpawnRayTo` does. Aiming
/// from `p` instead and shortening by `|o − p|` is not enough: the offset moves a ray that
/// meets a curved or steeply seen light surface obliquely by more than the offset itself
/// (on a sphere light near its silhouette, several times more), so the light would shadow
/// itself (docs/references.md, "A glowing sphere…"). Lights at infinity keep `wi`.
pub(super) fn shadow_ray_to(o: Vec3, p: Vec3, wi: Vec3, dist: f32) -> Ray {
    if !dist.is_finite() {
        return Ray {
            o,
            d: wi,
            t_max: f32::INFINITY,
        };
    }
    let d = p + wi * dist - o;
    let len = d.length();
    if !(len > 0.0 && len.is_finite()) {
        return Ray {
            o,
            d: wi,
            t_max: 0.0,
        };
    }
    Ray {
        o,
        d: d / len,
        t_max: len * (1.0 - 1e-4),
    }
}

/// Barycentric weights `(b1, b2)` of point `q` in triangle `p`, projected onto its plane.
pub(super) fn barycentric(p: &[Vec3; 3], q: Vec3) -> (f32, f32) {
    let (e1, e2, d) = (p[1] - p[0], p[2] - p[0], q - p[0]);
    let (d11, d12, d22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (d1, d2) = (d.dot(e1), d.dot(e2));
    let den = d11 * d22 - d12 * d12;
    if den == 0.0 || !den.is_finite() {
        return (0.0, 0.0);
    }
    ((d22 * d1 - d12 * d2) / den, (d11 * d2 - d12 * d1) / den)
}

impl PathTracer<'_> {
    /// TEXCOORD_0 at barycentric `(b1, b2)` of triangle `prim` of `instance`'s mesh.
    fn uv_at(&self, instance: u32, prim: u32, b1: f32, b2: f32) -> Vec2 {
        let Some(inst) = self.scene.accel.instances().get(instance as usize) else {
            return Vec2::ZERO;
        };
        let (Some(mesh), Some(shading)) = (
            self.scene.accel.meshes().get(inst.mesh as usize),
            self.scene.shading.get(inst.mesh as usize),
        ) else {
            return Vec2::ZERO;
        };
        let Some(tri) = mesh.indices.get(prim as usize) else {
            return Vec2::ZERO;
        };
        let uv = |v: u32| shading.uvs.get(v as usize).copied().unwrap_or(Vec2::ZERO);
        uv(tri[0]) * (1.0 - b1 - b2) + uv(tri[1]) * b1 + uv(tri[2]) * b2
    }

    /// Whether a candidate hit survives its instance's [`Cut`](crate::world::Cut), if any.
    #[inline]
    fn kept(&self, ray: &Ray, h: &Hit) -> bool {
        let Some(c) = self
            .scene
            .instances
            .get(h.instance as usize)
            .and_then(|i| i.cut)
        else {
            return true;
        };
        self.scene.cuts[c as usize]
            .keeps(ray.at(h.t), || self.uv_at(h.instance, h.prim, h.b1, h.b2))
    }

    /// The nearest surface a ray meets, past the cuts. A world with no cut takes the plain
    /// query, so scenes without clip planes or cut-outs pay nothing for them.
    #[inline(always)]
    fn closest(&self, ray: &Ray, m: u32) -> Option<Hit> {
        if self.scene.cuts.is_empty() {
            self.scene.accel.closest_hit(ray, m)
        } else {
            self.closest_past_cuts(ray, m)
        }
    }

    /// Kept out of line, so that the code a world without cuts runs stays as it was.
    #[inline(never)]
    fn closest_past_cuts(&self, ray: &Ray, m: u32) -> Option<Hit> {
        self.scene
            .accel
            .closest_hit_filtered(ray, m, |h| self.kept(ray, h))
    }

    /// Whether a shadow ray meets a kept surface; out of line as [`Self::closest_past_cuts`].
    #[inline(never)]
    fn blocked_past_cuts(&self, ray: &Ray) -> bool {
        self.scene
            .accel
            .any_hit(ray, mask::CASTS, |h| self.kept(ray, h))
    }

    /// Whether the point `q` that light sampling chose on triangle light `light` is cut away
    /// (it then emits nothing; rejecting it keeps light sampling unbiased, since the cut part
    /// of the triangle has no emission to find).
    #[inline(always)]
    pub(super) fn light_point_cut(&self, light: usize, q: Vec3) -> bool {
        !self.scene.cuts.is_empty() && self.light_point_cut_slow(light, q)
    }

    /// [`Self::light_point_cut`] in a world with cuts, out of line.
    #[inline(never)]
    fn light_point_cut_slow(&self, light: usize, q: Vec3) -> bool {
        let Some(&ii) = self.scene.light_instance.get(light) else {
            return false;
        };
        let Some(info) = self.scene.instances.get(ii as usize) else {
            return false;
        };
        let (Some(c), Some(first)) = (info.cut, info.first_light) else {
            return false;
        };
        let prim = (light as u32).wrapping_sub(first);
        let Light::Triangle { p, .. } = &self.scene.lights[light] else {
            return false;
        };
        !self.scene.cuts[c as usize].keeps(q, || {
            let (b1, b2) = barycentric(p, q);
            self.uv_at(ii, prim, b1, b2)
        })
    }

    pub(super) fn meet(&self, ray: &Ray, m: u32, spheres_all: bool) -> Meet {
        let hit = self.closest(ray, m);
        self.with_spheres(ray, hit, spheres_all)
    }

    /// What `ray` meets first given the nearest surface `hit` it meets: a sphere light in
    /// front of it, or the surface (or nothing).
    #[inline(always)]
    fn with_spheres(&self, ray: &Ray, hit: Option<Hit>, spheres_all: bool) -> Meet {
        if self.scene.sphere_tree.is_empty() {
            return hit.map_or(Meet::Nothing, Meet::Surface);
        }
        let t_best = hit.map_or(ray.t_max, |h| h.t);
        let dn = ray.d.length();
        let du = ray.d / dn;
        // The camera sees every sphere light; other rays only those that cast shadows.
        let sphere_mask = if spheres_all {
            mask::DRAWN
        } else {
            mask::CASTS
        };
        if let Some((light, t)) = self
            .scene
            .sphere_tree
            .closest(ray.o, du, dn, t_best, sphere_mask)
        {
            return Meet::Sphere { light, t };
        }
        hit.map_or(Meet::Nothing, Meet::Surface)
    }

    /// What each camera ray meets first: `out[i]` is `meet(&rays[i], mask::DRAWN, true)`.
    /// The rays of one pixel's samples nearly coincide, so they are traced together.
    pub(super) fn camera_meets(&self, rays: &[Ray], out: &mut [Meet]) {
        const N: usize = 8;
        if !self.scene.cuts.is_empty() || rays.len() > N || rays.len() != out.len() {
            // Cuts filter hits, which the packet query does not take.
            for (r, o) in rays.iter().zip(out) {
                *o = self.meet(r, mask::DRAWN, true);
            }
            return;
        }
        let mut hits = [None; N];
        let masks = [mask::DRAWN; N];
        let n = rays.len();
        // The same hits, bit for bit, as `closest_hit` one ray at a time; walked as one
        // bundle, since they nearly coincide.
        self.scene
            .accel
            .closest_hit_bundle(rays, &masks[..n], &mut hits[..n]);
        for ((r, h), o) in rays.iter().zip(&hits).zip(out) {
            *o = self.with_spheres(r, *h, true);
        }
    }

    #[inline(always)]
    fn occluded(&self, ray: &Ray) -> bool {
        let blocked = if self.scene.cuts.is_empty() {
            self.scene.accel.any_hit(ray, mask::CASTS, |_| true)
        } else {
            self.blocked_past_cuts(ray)
        };
        blocked || self.spheres_block(ray)
    }

    /// What a shadow ray keeps on its way: `None` when something opaque blocks it, else its
    /// transmittance and whether it crossed glass. Without `[trace] transmissive_shadows`
    /// glass blocks like anything else; with it, each glass surface crossed multiplies by
    /// [`Glass::shadow_transmittance`](crate::materials::Glass::shadow_transmittance) (the
    /// product does not depend on the order the tree reports the crossings in).
    #[inline(always)]
    pub(super) fn shadow(&self, ray: &Ray) -> Option<(Vec3, bool)> {
        if !self.scene.transmissive_shadows {
            return (!self.occluded(ray)).then_some((Vec3::ONE, false));
        }
        self.shadow_through_glass(ray)
    }

    /// [`Self::shadow`] with transmissive shadows on, out of line.
    #[inline(never)]
    fn shadow_through_glass(&self, ray: &Ray) -> Option<(Vec3, bool)> {
        let mut t = Vec3::ONE;
        let mut crossed = false;
        // Beer–Lambert inside absorbing bodies, order-free: entering at distance a and leaving
        // at b keeps exp(−σ(b − a)), the sum of +σa at the entry and −σb at the exit (a ray
        // that starts inside has no entry). Summed as an exponent so no factor overflows.
        let mut exponent = Vec3::ZERO;
        let d = ray.d.normalize_or_zero();
        let len = ray.d.length();
        let blocked = self.scene.accel.any_hit(ray, mask::CASTS, |h| {
            if !self.scene.cuts.is_empty() && !self.kept(ray, h) {
                return false;
            }
            let info = &self.scene.instances[h.instance as usize];
            let material = &self.scene.materials[info.material as usize];
            let cos = self.face_normal(h).dot(d);
            let Some(kept) = material.bxdf.shadow_transmittance(cos) else {
                return true;
            };
            t *= kept;
            // A subsurface body lets through what crosses it unscattered: exp(−σt·length).
            let sigma = match &material.subsurface {
                Some(b) => Vec3::splat(b.sigma_t()),
                None => material.absorption,
            };
            if sigma != Vec3::ZERO {
                let side = if cos < 0.0 { 1.0 } else { -1.0 };
                exponent += sigma * (side * h.t * len);
            }
            crossed = true;
            t == Vec3::ZERO
        });
        if blocked || self.spheres_block(ray) {
            return None;
        }
        if exponent != Vec3::ZERO {
            let e = exponent.min(Vec3::ZERO);
            t *= Vec3::new(e.x.exp(), e.y.exp(), e.z.exp());
        }
        Some((t, crossed))
    }

    /// Whether a sphere emitter that casts shadows lies on the shadow ray.
    fn spheres_block(&self, ray: &Ray) -> bool {
        if self.scene.sphere_tree.is_empty() {
            return false;
        }
        let dn = ray.d.length();
        self.scene
            .sphere_tree
            .any(ray.o, ray.d / dn, dn, ray.t_max, mask::CASTS)
    }

    /// The unit world normal of the face a hit is on (its winding's, mirrored transforms
    /// accounted for).
    pub(super) fn face_normal(&self, hit: &Hit) -> Vec3 {
        let inst = &self.scene.accel.instances()[hit.instance as usize];
        let mesh = &self.scene.accel.meshes()[inst.mesh as usize];
        let tri = mesh.indices[hit.prim as usize];
        let xf = inst.world_from_object;
        let p = tri.map(|v| xf.transform_point3(mesh.positions[v as usize]));
        let o = self.scene.instances[hit.instance as usize].orientation;
        ((p[1] - p[0]).cross(p[2] - p[0]) * o).normalize_or_zero()
    }

    // Inlined into each copy of the render loop (render.rs, `LoopLevel`): its transforms and
    // normalisations are a tenth of a Cornell sample's instructions.
    #[inline(always)]
    pub(super) fn surface(&self, hit: &Hit, ray: &Ray) -> Surface {
        let inst = &self.scene.accel.instances()[hit.instance as usize];
        let info = &self.scene.instances[hit.instance as usize];
        let mesh = &self.scene.accel.meshes()[inst.mesh as usize];
        let tri = mesh.indices[hit.prim as usize];
        let b0 = 1.0 - hit.b1 - hit.b2;
        let (p, ng_front, n) = match self.scene.world_geometry.get(hit.instance as usize) {
            // A mesh placed once: its world geometry was computed when the world was built.
            Some(Some(w)) => {
                let p = tri.map(|v| w.positions[v as usize]);
                let n = (w.normals.len() == w.positions.len()).then(|| {
                    w.normals[tri[0] as usize] * b0
                        + w.normals[tri[1] as usize] * hit.b1
                        + w.normals[tri[2] as usize] * hit.b2
                });
                (p, w.face_normals[hit.prim as usize], n)
            }
            _ => {
                let xf = inst.world_from_object;
                let p = tri.map(|v| xf.transform_point3(mesh.positions[v as usize]));
                let ng_front =
                    ((p[1] - p[0]).cross(p[2] - p[0]) * info.orientation).normalize_or(Vec3::Y);
                let shading = &self.scene.shading[inst.mesh as usize];
                let n = (shading.normals.len() == mesh.positions.len()).then(|| {
                    info.normal_matrix
                        * (shading.normals[tri[0] as usize] * b0
                            + shading.normals[tri[1] as usize] * hit.b1
                            + shading.normals[tri[2] as usize] * hit.b2)
                });
                (p, ng_front, n)
            }
        };
        let ns = match n.map(Vec3::normalize_or_zero) {
            Some(n) if n != Vec3::ZERO => n,
            _ => ng_front,
        };
        // The barycentric point is more accurate than o + t·d far along the ray.
        let pb = p[0] * b0 + p[1] * hit.b1 + p[2] * hit.b2;
        let p = if pb.is_finite() { pb } else { ray.at(hit.t) };
        Surface {
            p,
            ng_front,
            ns,
            instance: hit.instance,
            prim: hit.prim,
        }
    }
}
