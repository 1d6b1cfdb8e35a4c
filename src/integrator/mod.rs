//! Unidirectional path tracing with next-event estimation, multiple importance sampling
//! (power heuristic) and Russian roulette.
//!
//! Path length counts segments, the camera ray included: with `max_depth = 16` a path has at
//! most 16 segments, so emission seen directly is depth 1 and a light sampled from the first
//! hit is depth 2. Russian roulette starts once a path has 5 segments.

mod guide;

use glam::{Vec2, Vec3};

use crate::accel::Hit;
use crate::film::sampler::Sampler;
use crate::geometry::Ray;
use crate::lights::{luminance, sphere_hit, Light};
use crate::materials::{Bsdf, Bxdfs};
use crate::world::{mask, World};

/// Settings of one render.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Samples per pixel.
    pub spp: u32,
    /// Most path segments, the camera ray included.
    pub max_depth: u32,
    /// Segments after which Russian roulette may end a path.
    pub rr_depth: u32,
    /// Seed of every random number.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            spp: 64,
            max_depth: 16,
            rr_depth: 5,
            seed: 0,
        }
    }
}

/// Counters of one sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    /// Rays traced: camera, bounce and shadow rays.
    pub rays: u64,
    /// Samples whose radiance was not finite and was dropped (should stay 0).
    pub dropped: u64,
}

/// What a ray meets first.
enum Meet {
    Surface(Hit),
    Sphere { light: u32, t: f32 },
    Nothing,
}

/// A surface point ready to shade.
struct Surface {
    p: Vec3,
    /// Geometric normal of the front face (counter-clockwise), unit.
    ng_front: Vec3,
    ns: Vec3,
    instance: u32,
    prim: u32,
}

const SAMPLES_PER_BOUNCE: u32 = 8;
const FIRST_BOUNCE_DIM: u32 = 4;

fn power_heuristic(a: f32, b: f32) -> f32 {
    let (a2, b2) = (a * a, b * b);
    if a2 + b2 > 0.0 {
        a2 / (a2 + b2)
    } else {
        0.0
    }
}

/// An offset that moves a ray origin off the surface it leaves, scaled with the magnitude of
/// the coordinates so it stays above f32 rounding far from the origin.
fn offset_origin(p: Vec3, n: Vec3, w: Vec3) -> Vec3 {
    let eps = 1e-5 * (1.0 + p.abs().max_element());
    let n = if n.dot(w) < 0.0 { -n } else { n };
    p + n * eps
}

/// Barycentric weights `(b1, b2)` of point `q` in triangle `p`, projected onto its plane.
fn barycentric(p: &[Vec3; 3], q: Vec3) -> (f32, f32) {
    let (e1, e2, d) = (p[1] - p[0], p[2] - p[0], q - p[0]);
    let (d11, d12, d22) = (e1.dot(e1), e1.dot(e2), e2.dot(e2));
    let (d1, d2) = (d.dot(e1), d.dot(e2));
    let den = d11 * d22 - d12 * d12;
    if den == 0.0 || !den.is_finite() {
        return (0.0, 0.0);
    }
    ((d22 * d1 - d12 * d2) / den, (d11 * d2 - d12 * d1) / den)
}

impl World {
    /// TEXCOORD_0 at barycentric `(b1, b2)` of triangle `prim` of `instance`'s mesh.
    fn uv_at(&self, instance: u32, prim: u32, b1: f32, b2: f32) -> Vec2 {
        let Some(inst) = self.accel.instances().get(instance as usize) else {
            return Vec2::ZERO;
        };
        let (Some(mesh), Some(shading)) = (
            self.accel.meshes().get(inst.mesh as usize),
            self.shading.get(inst.mesh as usize),
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
        let Some(c) = self.instances.get(h.instance as usize).and_then(|i| i.cut) else {
            return true;
        };
        self.cuts[c as usize].keeps(ray.at(h.t), || self.uv_at(h.instance, h.prim, h.b1, h.b2))
    }

    /// The nearest surface a ray meets, past the cuts. A world with no cut takes the plain
    /// query, so scenes without clip planes or cut-outs pay nothing for them.
    #[inline(always)]
    fn closest(&self, ray: &Ray, m: u32) -> Option<Hit> {
        if self.cuts.is_empty() {
            self.accel.closest_hit(ray, m)
        } else {
            self.closest_past_cuts(ray, m)
        }
    }

    /// Kept out of line, so that the code a world without cuts runs stays as it was.
    #[inline(never)]
    fn closest_past_cuts(&self, ray: &Ray, m: u32) -> Option<Hit> {
        self.accel
            .closest_hit_filtered(ray, m, |h| self.kept(ray, h))
    }

    /// Whether a shadow ray meets a kept surface; out of line as [`Self::closest_past_cuts`].
    #[inline(never)]
    fn blocked_past_cuts(&self, ray: &Ray) -> bool {
        self.accel.any_hit(ray, mask::CASTS, |h| self.kept(ray, h))
    }

    /// Whether the point `q` that light sampling chose on triangle light `light` is cut away
    /// (it then emits nothing; rejecting it keeps light sampling unbiased, since the cut part
    /// of the triangle has no emission to find).
    #[inline(always)]
    fn light_point_cut(&self, light: usize, q: Vec3) -> bool {
        !self.cuts.is_empty() && self.light_point_cut_slow(light, q)
    }

    /// [`Self::light_point_cut`] in a world with cuts, out of line.
    #[inline(never)]
    fn light_point_cut_slow(&self, light: usize, q: Vec3) -> bool {
        let Some(&ii) = self.light_instance.get(light) else {
            return false;
        };
        let Some(info) = self.instances.get(ii as usize) else {
            return false;
        };
        let (Some(c), Some(first)) = (info.cut, info.first_light) else {
            return false;
        };
        let prim = (light as u32).wrapping_sub(first);
        let Light::Triangle { p, .. } = &self.lights[light] else {
            return false;
        };
        !self.cuts[c as usize].keeps(q, || {
            let (b1, b2) = barycentric(p, q);
            self.uv_at(ii, prim, b1, b2)
        })
    }

    fn meet(&self, ray: &Ray, m: u32, spheres_all: bool) -> Meet {
        let hit = self.closest(ray, m);
        let mut t_best = hit.map_or(ray.t_max, |h| h.t);
        let mut best = hit.map_or(Meet::Nothing, Meet::Surface);
        let dn = ray.d.length();
        let du = ray.d / dn;
        let candidates = if spheres_all {
            &self.all_spheres
        } else {
            &self.spheres
        };
        for &i in candidates {
            if let Light::Sphere { center, radius, .. } = &self.lights[i as usize] {
                if let Some(t) = sphere_hit(ray.o, du, *center, *radius) {
                    let t = t / dn;
                    if t < t_best {
                        t_best = t;
                        best = Meet::Sphere { light: i, t };
                    }
                }
            }
        }
        best
    }

    fn occluded(&self, ray: &Ray) -> bool {
        let blocked = if self.cuts.is_empty() {
            self.accel.any_hit(ray, mask::CASTS, |_| true)
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
    fn shadow(&self, ray: &Ray) -> Option<(Vec3, bool)> {
        if !self.transmissive_shadows {
            return (!self.occluded(ray)).then_some((Vec3::ONE, false));
        }
        self.shadow_through_glass(ray)
    }

    /// [`Self::shadow`] with transmissive shadows on, out of line.
    #[inline(never)]
    fn shadow_through_glass(&self, ray: &Ray) -> Option<(Vec3, bool)> {
        let mut t = Vec3::ONE;
        let mut crossed = false;
        let d = ray.d.normalize_or_zero();
        let blocked = self.accel.any_hit(ray, mask::CASTS, |h| {
            if !self.cuts.is_empty() && !self.kept(ray, h) {
                return false;
            }
            let info = &self.instances[h.instance as usize];
            let Bxdfs::Glass(g) = &self.materials[info.material as usize].bxdf else {
                return true;
            };
            t *= g.shadow_transmittance(self.face_normal(h).dot(d));
            crossed = true;
            t == Vec3::ZERO
        });
        if blocked || self.spheres_block(ray) {
            return None;
        }
        Some((t, crossed))
    }

    /// Whether a sphere emitter that casts shadows lies on the shadow ray.
    fn spheres_block(&self, ray: &Ray) -> bool {
        let dn = ray.d.length();
        self.spheres
            .iter()
            .any(|&i| match &self.lights[i as usize] {
                Light::Sphere { center, radius, .. } => {
                    sphere_hit(ray.o, ray.d / dn, *center, *radius)
                        .is_some_and(|t| t / dn < ray.t_max)
                }
                _ => false,
            })
    }

    /// The unit world normal of the face a hit is on (its winding's, mirrored transforms
    /// accounted for).
    fn face_normal(&self, hit: &Hit) -> Vec3 {
        let inst = &self.accel.instances()[hit.instance as usize];
        let mesh = &self.accel.meshes()[inst.mesh as usize];
        let tri = mesh.indices[hit.prim as usize];
        let xf = inst.world_from_object;
        let p = tri.map(|v| xf.transform_point3(mesh.positions[v as usize]));
        let o = self.instances[hit.instance as usize].orientation;
        ((p[1] - p[0]).cross(p[2] - p[0]) * o).normalize_or_zero()
    }

    fn surface(&self, hit: &Hit, ray: &Ray) -> Surface {
        let inst = &self.accel.instances()[hit.instance as usize];
        let info = &self.instances[hit.instance as usize];
        let mesh = &self.accel.meshes()[inst.mesh as usize];
        let tri = mesh.indices[hit.prim as usize];
        let xf = inst.world_from_object;
        let p = tri.map(|v| xf.transform_point3(mesh.positions[v as usize]));
        let ng_front = ((p[1] - p[0]).cross(p[2] - p[0]) * info.orientation).normalize_or(Vec3::Y);
        let b0 = 1.0 - hit.b1 - hit.b2;
        let shading = &self.shading[inst.mesh as usize];
        let ns = if shading.normals.len() == mesh.positions.len() {
            let n = shading.normals[tri[0] as usize] * b0
                + shading.normals[tri[1] as usize] * hit.b1
                + shading.normals[tri[2] as usize] * hit.b2;
            let n = (info.normal_matrix * n).normalize_or_zero();
            if n == Vec3::ZERO {
                ng_front
            } else {
                n
            }
        } else {
            ng_front
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

    /// Radiance emitted by the surface towards `wo`.
    fn surface_emission(&self, s: &Surface, wo: Vec3) -> Vec3 {
        let info = &self.instances[s.instance as usize];
        let e = self.materials[info.material as usize].emission;
        if e == Vec3::ZERO {
            return Vec3::ZERO;
        }
        if wo.dot(s.ng_front) > 0.0 || info.two_sided {
            e
        } else {
            Vec3::ZERO
        }
    }

    /// A light contribution as `[trace] clamp_indirect` leaves it: one that lights a vertex
    /// past the first hit (`indirect`) is scaled down, hue kept, to the cap's luminance.
    /// Light at the first hit (emission seen, and the first hit's direct light, by light
    /// sampling or by its BSDF ray) is never clamped.
    #[inline(always)]
    fn clamped(&self, c: Vec3, indirect: bool) -> Vec3 {
        if !indirect || self.clamp_indirect <= 0.0 {
            return c;
        }
        let y = luminance(c);
        if y > self.clamp_indirect {
            c * (self.clamp_indirect / y)
        } else {
            c
        }
    }

    fn light_pick_pdf(&self, light: u32) -> f32 {
        self.light_choice.discrete_pdf(light as usize)
    }

    /// One sample of the radiance arriving at the camera through film point `film`.
    /// Returns the radiance and whether the camera ray met something drawn.
    pub fn li(
        &self,
        sampler: &Sampler,
        pixel: [u32; 2],
        index: u32,
        film: Vec2,
        settings: &Settings,
        counters: &mut Counters,
    ) -> (Vec3, bool) {
        let lens = sampler.get_2d(pixel, index, 2);
        let mut ray = self.camera.ray(film, lens);
        let mut l = Vec3::ZERO;
        let mut beta = Vec3::ONE;
        let mut covered = false;
        // The previous vertex, for MIS when a BSDF-sampled ray finds a light.
        let mut prev_p = ray.o;
        let mut prev_pdf = 0.0f32;
        let mut prev_specular = true;
        // The path has bounced off a diffuse surface: `[trace] filter_glossy` applies from
        // here on (the first hit and a chain of sharp bounces from the camera keep theirs).
        let mut after_diffuse = false;
        // `[trace] transmissive_shadows` bookkeeping: the segment being traced left a vertex
        // whose next-event estimation sent shadow rays through glass (a non-specular
        // scattering, then only glass transmissions: `from_nee`), and it has crossed glass
        // since (`via_glass`). Light such a path finds directly was already counted by those
        // shadow rays, so it is not counted again.
        let mut from_nee = false;
        let mut via_glass = false;
        // The product of (η_i/η_o)² over transmissions: radiance throughput shrinks by its
        // inverse entering glass; Russian roulette looks at the throughput without it.
        let mut eta_scale = 1.0f32;
        let max_depth = settings.max_depth.max(1);
        let mut segment = 0u32;
        loop {
            let dim = FIRST_BOUNCE_DIM + SAMPLES_PER_BOUNCE * segment;
            counters.rays += 1;
            let m = if segment == 0 {
                mask::DRAWN
            } else {
                mask::CASTS
            };
            let meet = self.meet(&ray, m, segment == 0);
            let wo = -ray.d.normalize();
            let shadowed_already = from_nee && via_glass;
            let hit = match meet {
                Meet::Nothing => {
                    for &i in &self.infinite {
                        let le = self.lights[i as usize].le_infinite(-wo);
                        if le == Vec3::ZERO || shadowed_already {
                            continue;
                        }
                        let w = if prev_specular {
                            1.0
                        } else {
                            let pl = self.light_pick_pdf(i)
                                * self.lights[i as usize].pdf_li(prev_p, -wo, f32::INFINITY);
                            power_heuristic(prev_pdf, pl)
                        };
                        l += self.clamped(beta * le * w, segment >= 2);
                    }
                    break;
                }
                Meet::Sphere { light, t } => {
                    if segment == 0 {
                        covered = true;
                    }
                    if let (
                        Light::Sphere {
                            radiance, casts, ..
                        },
                        false,
                    ) = (&self.lights[light as usize], shadowed_already)
                    {
                        let w = if prev_specular || !casts {
                            1.0
                        } else {
                            let dist = t * ray.d.length();
                            let pl = self.light_pick_pdf(light)
                                * self.lights[light as usize].pdf_li(prev_p, -wo, dist);
                            power_heuristic(prev_pdf, pl)
                        };
                        l += self.clamped(beta * *radiance * w, segment >= 2);
                    }
                    // Emitters glow and do not reflect.
                    break;
                }
                Meet::Surface(h) => h,
            };
            let info = &self.instances[hit.instance as usize];
            if segment == 0 {
                covered = true;
            }
            // A shadow-only object met by a bounce ray is an occluder with no surface to show.
            if self.accel.instances()[hit.instance as usize].mask & mask::DRAWN == 0 {
                break;
            }
            let s = self.surface(&hit, &ray);
            let le = self.surface_emission(&s, wo);
            if le != Vec3::ZERO && !shadowed_already {
                let w = if prev_specular {
                    1.0
                } else if let Some(first) = info.first_light {
                    let li = first + s.prim;
                    let dist = hit.t * ray.d.length();
                    let pl = self.light_pick_pdf(li)
                        * self.lights[li as usize].pdf_li(prev_p, -wo, dist);
                    power_heuristic(prev_pdf, pl)
                } else {
                    1.0
                };
                l += self.clamped(beta * le * w, segment >= 2);
            }
            if segment + 1 >= max_depth {
                break;
            }
            let material = &self.materials[info.material as usize];
            let bxdf = if after_diffuse {
                material.filtered
            } else {
                material.bxdf
            };
            let bsdf = Bsdf::new(s.ng_front, s.ns, wo, bxdf);
            let ng_out = if s.ng_front.dot(wo) >= 0.0 {
                s.ng_front
            } else {
                -s.ng_front
            };

            // Next-event estimation.
            let u_pick = sampler.get_2d(pixel, index, dim);
            if !self.lights.is_empty() {
                let (li_index, pick_pdf) = self.light_choice.sample_discrete(u_pick.x);
                let light = &self.lights[li_index];
                let u_light = sampler.get_2d(pixel, index, dim + 2);
                if let Some(ls) = light
                    .sample_li(s.p, u_light)
                    .filter(|ls| !self.light_point_cut(li_index, s.p + ls.wi * ls.dist))
                {
                    // A transmission towards the light continues a path whose earlier shadow
                    // ray already passed this glass (see `from_nee`).
                    let covered = from_nee
                        && bsdf.bxdf().transmits()
                        && (ls.wi.dot(s.ng_front) > 0.0) != (wo.dot(s.ng_front) > 0.0);
                    if ls.pdf > 0.0 && pick_pdf > 0.0 && ls.li != Vec3::ZERO && !covered {
                        let f = bsdf.f(wo, ls.wi);
                        let cos = ls.wi.dot(s.ns).abs();
                        if f != Vec3::ZERO && cos > 0.0 {
                            let casts = match light {
                                Light::Point { casts, .. } | Light::Sphere { casts, .. } => *casts,
                                _ => true,
                            };
                            let o = offset_origin(s.p, ng_out, ls.wi);
                            let visible = if casts {
                                counters.rays += 1;
                                let t_max = if ls.dist.is_finite() {
                                    ((ls.dist - (o - s.p).length()) * (1.0 - 1e-4)).max(0.0)
                                } else {
                                    f32::INFINITY
                                };
                                self.shadow(&Ray { o, d: ls.wi, t_max })
                            } else {
                                Some((Vec3::ONE, false))
                            };
                            if let Some((tr, crossed)) = visible {
                                let light_pdf = pick_pdf * ls.pdf;
                                // Through glass only this strategy counts the light (the BSDF
                                // path's is dropped, see `from_nee`), so it takes all the weight.
                                let w = if ls.delta || !casts || crossed {
                                    1.0
                                } else {
                                    power_heuristic(light_pdf, bsdf.pdf(wo, ls.wi))
                                };
                                l += self.clamped(
                                    beta * f * tr * ls.li * (cos * w / light_pdf),
                                    segment >= 1,
                                );
                            }
                        }
                    }
                }
            }

            // Continue the path by sampling the BSDF.
            let uc = sampler.get_2d(pixel, index, dim + 4).x;
            let u = sampler.get_2d(pixel, index, dim + 6);
            let Some(bs) = bsdf.sample_f(wo, uc, u) else {
                break;
            };
            if bs.pdf <= 0.0 || bs.f == Vec3::ZERO {
                break;
            }
            beta *= bs.f * (bs.wi.dot(s.ns).abs() / bs.pdf);
            if !beta.is_finite() {
                counters.dropped += 1;
                return (Vec3::ZERO, covered);
            }
            let transmitted = bsdf.bxdf().transmits()
                && (bs.wi.dot(s.ng_front) > 0.0) != (wo.dot(s.ng_front) > 0.0);
            if transmitted {
                let e = bsdf.relative_eta(wo, bs.wi);
                eta_scale *= e * e;
            }
            if self.transmissive_shadows {
                if transmitted {
                    via_glass = true;
                } else {
                    from_nee = !bs.specular;
                    via_glass = false;
                }
            }
            prev_p = s.p;
            prev_pdf = bs.pdf;
            prev_specular = bs.specular;
            after_diffuse |= bs.diffuse;
            segment += 1;
            if segment >= settings.rr_depth {
                let q = (beta * eta_scale).max_element().min(0.95);
                if u_pick.y >= q {
                    break;
                }
                beta /= q;
            }
            ray = Ray::new(offset_origin(s.p, ng_out, bs.wi), bs.wi);
        }
        if l.is_finite() {
            (l.max(Vec3::ZERO), covered)
        } else {
            counters.dropped += 1;
            (Vec3::ZERO, covered)
        }
    }

    /// Planar depth of what the camera ray through film point `film` meets first, or `None`
    /// for the sky.
    pub fn depth_at(&self, film: Vec2) -> Option<f32> {
        let ray = self.camera.ray(film, Vec2::splat(0.5));
        match self.meet(&ray, mask::DRAWN, true) {
            Meet::Surface(h) => Some(self.camera.depth(ray.at(h.t))),
            Meet::Sphere { t, .. } => Some(self.camera.depth(ray.at(t))),
            Meet::Nothing => None,
        }
    }
}

/// Luminance of a colour, re-exported for reports.
pub fn lum(c: Vec3) -> f32 {
    luminance(c)
}
