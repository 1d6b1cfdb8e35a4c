//! The acceleration structure: a two-level wide BVH over triangle meshes.
//!
//! One bottom-level tree per mesh placed two or more times, in that mesh's object space, one
//! world-space tree per mask over the meshes placed once (flattened), and one top-level tree
//! over the world boxes of those. Every tree is our own 8-wide BVH (binned SAH, full-precision
//! child boxes in SoA, leaves of four triangles in SoA), walked by SIMD kernels chosen at run
//! time (AVX2, SSE4.1, or portable scalar code) that return the same bits on every path.
//! A ray visiting an instance is moved into object space with the instance's cached inverse
//! matrix; its direction is not renormalised, so `t` is the same parameter in both spaces.
//! Every triangle is tested with the watertight test of Woop, Benthin and Wald (2013), so rays
//! never slip through shared edges or vertices of a mesh. See docs/accel.md for the layout,
//! the choices and the measured figures.
//!
//! Internally each ray's direction is scaled by a power of two so that its largest component is
//! in `[1, 2)`; `t` scales by the inverse power of two, which is exact, so reported `t` values
//! are unchanged while reciprocals in the box test stay well-conditioned.

mod build;
mod frustum;
mod node;
mod packet;
mod simd;
pub mod spheres;
#[cfg(test)]
mod tests;
mod traverse;
mod triangle;

use glam::{Affine3A, Mat4, Vec3, Vec3A};
use rayon::prelude::*;

use crate::geometry::Ray;
use build::Aabb;
use node::{Node8, TriBlock, LEAF_TRIS};
pub use packet::PACKET_SIZE;

/// One mesh's triangles, object space; kept once however many instances use it.
#[derive(Clone, Debug, Default)]
pub struct TriangleMesh {
    /// Vertex positions, object-space units.
    pub positions: Vec<Vec3>,
    /// Triangles as indices into `positions`. A triangle with an index out of range or a
    /// non-finite vertex is left out of the BVH (it can never be hit) but keeps its number.
    pub indices: Vec<[u32; 3]>,
}

/// A placement of a mesh.
#[derive(Clone, Copy, Debug)]
pub struct Instance {
    /// Index into the mesh list given to [`Accel::build`].
    pub mesh: u32,
    /// Object space to world space. Only the affine part is used (the bottom row is taken as
    /// `0 0 0 1`); the format's transforms are all `T·R·S`.
    pub world_from_object: Mat4,
    /// Visibility bits; a ray sees the instance when `instance.mask & ray_mask != 0`.
    pub mask: u32,
}

/// A hit: t along the ray's (unnormalised) direction, world ray parameter;
/// p = (1-b1-b2)·v0 + b1·v1 + b2·v2.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Ray parameter of the hit, in units of `|ray.d|`, in `(0, ray.t_max)`.
    pub t: f32,
    /// Index of the instance hit, into [`Accel::instances`].
    pub instance: u32,
    /// Index of the triangle hit, into that instance's mesh `indices`.
    pub prim: u32,
    /// Barycentric weight of the triangle's second vertex, in `[0, 1]`.
    pub b1: f32,
    /// Barycentric weight of the triangle's third vertex, in `[0, 1]`.
    pub b2: f32,
}

/// Bottom level: one mesh's tree; each leaf is one block of up to four triangles copied
/// into it (so a leaf's triangles are one contiguous 160-byte record).
struct Blas {
    /// Interior nodes, root first; leaf references index `blocks`.
    nodes: Vec<Node8>,
    /// The leaves' triangles.
    blocks: Vec<TriBlock>,
    /// Union of the triangles' boxes, object space.
    bounds: Aabb,
    /// Triangles held (the blocks' used lanes).
    tris: usize,
}

/// Top level: a tree whose leaves are single entries of [`Accel::instance_data`].
struct Tlas {
    /// Interior nodes, root first.
    nodes: Vec<Node8>,
    /// Per leaf, its index into `instance_data`.
    leaf_inst: Vec<u32>,
}

/// An instruction-set path of the ray queries. Every path returns bit-identical results (the
/// same `Hit`: `t`, instance, primitive, barycentrics), so the choice only changes speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Plain scalar code, on every target.
    Portable,
    /// 4-wide SSE4.1 kernels (x86-64).
    Sse41,
    /// 8-wide AVX2 node tests, 4-wide leaf tests in VEX encoding (x86-64).
    Avx2,
}

impl Isa {
    /// Whether the running CPU can execute this path (run-time detection).
    pub fn is_available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Sse41 => std::arch::is_x86_feature_detected!("sse4.1"),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The paths this CPU can run, slowest first.
    pub fn available() -> Vec<Isa> {
        [Isa::Portable, Isa::Sse41, Isa::Avx2]
            .into_iter()
            .filter(|i| i.is_available())
            .collect()
    }

    /// The fastest path this CPU can run.
    pub fn best() -> Isa {
        Isa::available().pop().unwrap_or(Isa::Portable)
    }
}

/// What a top-level leaf stands for.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// One instance of a shared mesh, traced in its object space.
    Instance(u32),
    /// A group of single-use instances of one mask, flattened into world space: index into
    /// [`Accel::origins`].
    Merged(u32),
}

/// Per top-level leaf data used during traversal.
#[derive(Clone, Copy, Debug)]
struct InstanceData {
    /// Inverse of the instance's affine transform (identity for a merged group).
    object_from_world: Affine3A,
    /// The instance's mask, kept beside the matrix it is used with.
    mask: u32,
    /// Index of the [`Blas`]: a mesh's, or past the meshes a merged group's.
    mesh: u32,
    /// What a hit in this leaf reports.
    source: Source,
}

/// The scene's acceleration structure. Immutable after [`Accel::build`]; queries take `&self`
/// and can run from many threads at once.
pub struct Accel {
    meshes: Vec<TriangleMesh>,
    instances: Vec<Instance>,
    /// Per instance: flattened into a merged world-space tree.
    flattened: Vec<bool>,
    /// One per mesh (`None` for a mesh with no usable triangle), then one per merged group.
    blas: Vec<Option<Blas>>,
    /// One per top-level leaf.
    instance_data: Vec<InstanceData>,
    /// Per merged group, per flattened triangle: the (instance, triangle) it came from.
    origins: Vec<Vec<(u32, u32)>>,
    /// Top level over the usable leaves; `None` when there are none.
    tlas: Option<Tlas>,
    /// World bounds of all usable instances.
    bounds: (Vec3, Vec3),
    /// The path the plain queries take: [`Isa::best`], detected once at build.
    isa: Isa,
    /// Per [`Isa`] (in declaration order), whether this CPU runs it; detected once at build.
    runnable: [bool; 3],
}

/// Largest/smallest direction magnitude accepted, as powers of two: beyond these a ray is
/// treated as degenerate and hits nothing (its `t` values would not be representable anyway).
const DIR_EXP_RANGE: i32 = 100;

/// Scales `d` by a power of two so that its largest component magnitude lies in `[1, 2)`.
/// Returns the scaled direction and the factor `s` (so `t_scaled = t / s`), or `None` for a
/// direction that is zero, non-finite or outside `2^±100`.
#[inline(always)]
fn normalise_pow2(d: Vec3) -> Option<(Vec3, f32)> {
    let m = d.abs().max_element();
    if !m.is_finite() || m == 0.0 {
        return None;
    }
    let exp = ((m.to_bits() >> 23) & 0xff) as i32 - 127;
    if !(-DIR_EXP_RANGE..=DIR_EXP_RANGE).contains(&exp) {
        return None;
    }
    // 2^-exp as a float, built from its exponent bits (in range by the check above).
    let s = f32::from_bits(((127 - exp) as u32) << 23);
    Some((d * s, s))
}

/// World box of an object box under an affine map: the eight transformed corners, widened by a
/// relative margin so the rounding of the corner transform and of the ray's inverse transform
/// can never cull a real hit.
fn transformed_box(m: &Affine3A, b: &Aabb) -> Aabb {
    let mut out = Aabb::EMPTY;
    for i in 0..8 {
        let c = Vec3A::new(
            if i & 1 == 0 { b.min.x } else { b.max.x },
            if i & 2 == 0 { b.min.y } else { b.max.y },
            if i & 4 == 0 { b.min.z } else { b.max.z },
        );
        let w = m.transform_point3a(c);
        out.min = out.min.min(w);
        out.max = out.max.max(w);
    }
    let pad = (out.max - out.min) * 1e-5 + out.min.abs().max(out.max.abs()) * 1e-6;
    Aabb::new(out.min - pad, out.max + pad)
}

/// Builds one mesh's bottom level, or `None` when no triangle is usable.
fn build_blas(mesh: &TriangleMesh) -> Option<Blas> {
    let mut boxes = Vec::with_capacity(mesh.indices.len());
    let mut ids = Vec::with_capacity(mesh.indices.len());
    for (i, idx) in mesh.indices.iter().enumerate() {
        let Some(v) = triangle_vertices(mesh, idx) else {
            continue;
        };
        let (lo, hi) = (v[0].min(v[1]).min(v[2]), v[0].max(v[1]).max(v[2]));
        boxes.push(Aabb::new(lo.into(), hi.into()));
        // Triangle counts above u32::MAX cannot occur: `indices` would exceed memory first,
        // and a prim index must fit the u32 of `Hit::prim` anyway.
        ids.push(i as u32);
    }
    if boxes.is_empty() {
        return None;
    }
    let wide = build::build(&boxes, &ids, LEAF_TRIS);
    let blocks = wide
        .leaves
        .iter()
        .map(|&(start, count)| {
            let mut b = TriBlock {
                v: [[[f32::NAN; LEAF_TRIS]; 3]; 3],
                prim: [u32::MAX; LEAF_TRIS],
            };
            let ids = &wide.order[start as usize..(start + count) as usize];
            for (lane, &id) in ids.iter().enumerate() {
                // Every id in the tree came from a usable triangle above.
                if let Some(v) = triangle_vertices(mesh, &mesh.indices[id as usize]) {
                    for (j, p) in v.iter().enumerate() {
                        for k in 0..3 {
                            b.v[j][k][lane] = p[k];
                        }
                    }
                    b.prim[lane] = id;
                }
            }
            b
        })
        .collect();
    Some(Blas {
        nodes: wide.nodes,
        blocks,
        bounds: wide.bounds,
        tris: ids.len(),
    })
}

/// The vertices of a triangle, or `None` when an index is out of range or a vertex is not
/// finite.
fn triangle_vertices(mesh: &TriangleMesh, idx: &[u32; 3]) -> Option<[Vec3; 3]> {
    let get = |i: u32| {
        mesh.positions
            .get(i as usize)
            .copied()
            .filter(|p| p.is_finite())
    };
    Some([get(idx[0])?, get(idx[1])?, get(idx[2])?])
}

/// Whether an instance's matrix can place a mesh: finite, with a non-zero determinant and a
/// finite inverse (the test [`Accel::instance_data`] makes, without needing a tree).
fn usable_transform(m: &Mat4) -> bool {
    let a = Affine3A::from_mat4(*m);
    let det = a.matrix3.determinant();
    det != 0.0 && det.is_finite() && a.is_finite() && a.inverse().is_finite()
}

/// The triangles a mesh's placements may hold together and still be flattened into world
/// space by the bake ([`Accel::build_flattening`]): 64 Ki, a few MB of copies per mesh at
/// most, for meshes whose own trees are shallow anyway.
pub const FLATTEN_TRIANGLES: usize = 65_536;

impl Accel {
    /// Whether instance `i` was flattened into a merged world-space tree (a mesh placed once,
    /// or within [`Accel::build_flattening`]'s budget): its hits are computed on world-space
    /// copies of the mesh's vertices (`Mat4::transform_point3`, as a shader computes them).
    pub fn is_flattened(&self, i: u32) -> bool {
        self.flattened.get(i as usize).copied().unwrap_or(false)
    }

    /// Builds the bottom levels (one per mesh, in parallel; each build is single-threaded and
    /// deterministic, so the result does not depend on thread timing) and the top level.
    ///
    /// Instances left out of the top level, and so never hit: those whose `mesh` is out of
    /// range or has no usable triangle, and those whose matrix has a zero or non-finite
    /// determinant, or whose inverse is not finite (the world builder refuses such matrices
    /// earlier; here they are skipped rather than trusted).
    pub fn build(meshes: Vec<TriangleMesh>, instances: Vec<Instance>) -> Accel {
        Accel::build_flattening(meshes, instances, 0)
    }

    /// [`Accel::build`], flattening into world space, besides every mesh placed once, every
    /// mesh whose placements hold at most `budget` triangles together (placements × the
    /// mesh's triangles): a small mesh placed a few times (the bake's default is
    /// [`FLATTEN_TRIANGLES`]) then costs no ray transform, top-level leaf or second walk per
    /// visit, and the merged tree separates its copies better than overlapping instance
    /// boxes do, at the price of one copy of its triangles per placement.
    pub fn build_flattening(
        meshes: Vec<TriangleMesh>,
        instances: Vec<Instance>,
        budget: usize,
    ) -> Accel {
        // A mesh placed once gains nothing from its own tree and costs a ray transform and a
        // top-level leaf per visit: such instances are flattened into world space, one tree
        // per mask, and the mesh gets no tree of its own (building one would only cost time
        // and memory). World vertices are computed exactly as a shader computes them from
        // the mesh (`Mat4::transform_point3`), so both agree to the bit.
        let mut uses = vec![0u32; meshes.len()];
        for inst in &instances {
            if let Some(u) = uses.get_mut(inst.mesh as usize) {
                if usable_transform(&inst.world_from_object) {
                    *u += 1;
                }
            }
        }
        let flat: Vec<bool> = meshes
            .iter()
            .zip(&uses)
            .map(|(m, &u)| u == 1 || (u as usize).saturating_mul(m.indices.len()) <= budget)
            .collect();
        let mut blas: Vec<Option<Blas>> = meshes
            .par_iter()
            .zip(uses.par_iter().zip(flat.par_iter()))
            .map(|(m, (&u, &f))| if u >= 1 && !f { build_blas(m) } else { None })
            .collect();
        let mut groups: std::collections::BTreeMap<u32, (TriangleMesh, Vec<(u32, u32)>)> =
            std::collections::BTreeMap::new();
        let mut merged_instance = vec![false; instances.len()];
        for (i, inst) in instances.iter().enumerate() {
            let m = inst.mesh as usize;
            if flat.get(m) != Some(&true) || !usable_transform(&inst.world_from_object) {
                continue;
            }
            merged_instance[i] = true;
            let (mesh, origin) = groups.entry(inst.mask).or_default();
            let src = &meshes[m];
            let base = mesh.positions.len() as u32;
            mesh.positions.extend(
                src.positions
                    .iter()
                    .map(|p| inst.world_from_object.transform_point3(*p)),
            );
            for (t, idx) in src.indices.iter().enumerate() {
                // An index past the source mesh must stay invalid, not reach another
                // instance's vertices.
                mesh.indices.push(idx.map(|v| {
                    if (v as usize) < src.positions.len() {
                        v + base
                    } else {
                        u32::MAX
                    }
                }));
                origin.push((i as u32, t as u32));
            }
        }
        let mut origins = Vec::new();
        let mut merged_entries = Vec::new();
        for (mask, (mesh, origin)) in groups {
            let b = build_blas(&mesh);
            let world_box = b.as_ref().map(|b| {
                let bb = b.bounds;
                let pad = (bb.max - bb.min) * 1e-5 + bb.min.abs().max(bb.max.abs()) * 1e-6;
                Aabb::new(bb.min - pad, bb.max + pad)
            });
            blas.push(b);
            if let Some(world_box) = world_box {
                merged_entries.push((
                    InstanceData {
                        object_from_world: Affine3A::IDENTITY,
                        mask,
                        mesh: (blas.len() - 1) as u32,
                        source: Source::Merged(origins.len() as u32),
                    },
                    world_box,
                ));
            }
            origins.push(origin);
        }

        let mut instance_data = Vec::with_capacity(instances.len());
        let mut boxes = Vec::new();
        let mut ids = Vec::new();
        let mut total = Aabb::EMPTY;
        let shared = instances
            .iter()
            .enumerate()
            .filter(|(i, _)| !merged_instance[*i])
            .filter_map(|(i, inst)| Self::instance_data(inst, &blas, i as u32));
        for (d, world_box) in shared.chain(merged_entries) {
            boxes.push(world_box);
            ids.push(instance_data.len() as u32);
            total.min = total.min.min(world_box.min);
            total.max = total.max.max(world_box.max);
            instance_data.push(d);
        }
        let (tlas, bounds) = if boxes.is_empty() {
            (None, (Vec3::ZERO, Vec3::ZERO))
        } else {
            // Leaves of one instance: instance boxes overlap too much for grouping to pay.
            let wide = build::build(&boxes, &ids, 1);
            let leaf_inst = wide
                .leaves
                .iter()
                .map(|&(start, _)| wide.order[start as usize])
                .collect();
            (
                Some(Tlas {
                    nodes: wide.nodes,
                    leaf_inst,
                }),
                (Vec3::from(total.min), Vec3::from(total.max)),
            )
        };
        let runnable = [Isa::Portable, Isa::Sse41, Isa::Avx2].map(Isa::is_available);
        Accel {
            meshes,
            instances,
            flattened: merged_instance,
            blas,
            instance_data,
            origins,
            tlas,
            bounds,
            isa: Isa::best(),
            runnable,
        }
    }

    /// Traversal data and world box of a usable instance of a mesh with a tree.
    fn instance_data(
        inst: &Instance,
        blas: &[Option<Blas>],
        index: u32,
    ) -> Option<(InstanceData, Aabb)> {
        let b = blas.get(inst.mesh as usize)?.as_ref()?;
        let world_from_object = Affine3A::from_mat4(inst.world_from_object);
        let det = world_from_object.matrix3.determinant();
        if det == 0.0 || !det.is_finite() || !world_from_object.is_finite() {
            return None;
        }
        let object_from_world = world_from_object.inverse();
        if !object_from_world.is_finite() {
            return None;
        }
        let world_box = transformed_box(&world_from_object, &b.bounds);
        if !(world_box.min.is_finite() && world_box.max.is_finite()) {
            return None;
        }
        Some((
            InstanceData {
                object_from_world,
                mask: inst.mask,
                mesh: inst.mesh,
                source: Source::Instance(index),
            },
            world_box,
        ))
    }

    /// The meshes, as given to [`Accel::build`].
    pub fn meshes(&self) -> &[TriangleMesh] {
        &self.meshes
    }

    /// The instances, as given to [`Accel::build`] (including any it left out).
    pub fn instances(&self) -> &[Instance] {
        &self.instances
    }

    /// Triangles held in the bottom-level trees' tree-ordered copies: a mesh placed two or
    /// more times counts once however many instances place it, and the world-space copies of
    /// meshes placed once (flattened, see docs/accel.md) count too. This is the storage the
    /// instancing tests and benchmarks compare with the triangles the instances place.
    pub fn tree_triangles(&self) -> usize {
        self.blas.iter().flatten().map(|b| b.tris).sum()
    }

    /// Nearest hit with t in (0, ray.t_max) among instances with (instance.mask & mask) != 0.
    ///
    /// A ray with a non-finite origin or direction, a zero direction, or a `t_max` that is NaN
    /// or not positive hits nothing. Ties in `t` go to the lower `(instance, prim)`, whatever
    /// order the walk meets them in, so results are deterministic and the same on every
    /// [`Isa`].
    pub fn closest_hit(&self, ray: &Ray, mask: u32) -> Option<Hit> {
        self.dispatch::<false, _>(self.isa, ray, mask, |_| true)
    }

    /// As closest_hit, but a candidate hit is kept only when filter returns true (cut-outs
    /// later). The filter sees each candidate that beats the best accepted hit so far (by `t`,
    /// then the tie-break); only accepted hits shorten the ray.
    pub fn closest_hit_filtered<F: FnMut(&Hit) -> bool>(
        &self,
        ray: &Ray,
        mask: u32,
        filter: F,
    ) -> Option<Hit> {
        self.dispatch::<false, _>(self.isa, ray, mask, filter)
    }

    /// Whether anything accepted by filter lies in (0, t_max) — shadow rays; stops at the first.
    pub fn any_hit<F: FnMut(&Hit) -> bool>(&self, ray: &Ray, mask: u32, filter: F) -> bool {
        self.dispatch::<true, _>(self.isa, ray, mask, filter)
            .is_some()
    }

    /// The path the plain queries take ([`Isa::best`] when the accel was built).
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// [`Accel::closest_hit_filtered`] on a chosen path (for tests and benchmarks); a path
    /// this CPU cannot run falls back to [`Isa::Portable`]. The result is the same bits on
    /// every path.
    pub fn closest_hit_isa<F: FnMut(&Hit) -> bool>(
        &self,
        isa: Isa,
        ray: &Ray,
        mask: u32,
        filter: F,
    ) -> Option<Hit> {
        self.dispatch::<false, _>(isa, ray, mask, filter)
    }

    /// [`Accel::any_hit`] on a chosen path, as [`Accel::closest_hit_isa`].
    pub fn any_hit_isa<F: FnMut(&Hit) -> bool>(
        &self,
        isa: Isa,
        ray: &Ray,
        mask: u32,
        filter: F,
    ) -> bool {
        self.dispatch::<true, _>(isa, ray, mask, filter).is_some()
    }

    /// World AABB of everything, world units: the union of the instances' boxes (each widened
    /// by a relative 1e-5 so it is conservative). An empty scene gives `(0, 0, 0)` twice.
    pub fn bounds(&self) -> (Vec3, Vec3) {
        self.bounds
    }

    /// Bytes held: the meshes as given (positions and indices), the trees' nodes (256 bytes
    /// each) and triangle blocks (160 bytes per four triangles), the top level's leaf table,
    /// the instances and their cached data.
    pub fn memory_bytes(&self) -> usize {
        use std::mem::size_of;
        let meshes: usize = self
            .meshes
            .iter()
            .map(|m| {
                m.positions.len() * size_of::<Vec3>() + m.indices.len() * size_of::<[u32; 3]>()
            })
            .sum();
        let blas: usize = self
            .blas
            .iter()
            .flatten()
            .map(|b| b.nodes.len() * size_of::<Node8>() + b.blocks.len() * size_of::<TriBlock>())
            .sum();
        let tlas = self.tlas.as_ref().map_or(0, |t| {
            t.nodes.len() * size_of::<Node8>() + t.leaf_inst.len() * size_of::<u32>()
        });
        let instances = self.instances.len() * (size_of::<Instance>() + size_of::<InstanceData>());
        meshes + blas + tlas + instances
    }

    /// Runs a query on `isa`, or on the portable path when this CPU cannot run `isa`.
    #[inline]
    fn dispatch<const ANY: bool, F: FnMut(&Hit) -> bool>(
        &self,
        isa: Isa,
        ray: &Ray,
        mask: u32,
        filter: F,
    ) -> Option<Hit> {
        match isa {
            // SAFETY: `runnable` holds the run-time detection of each path's instructions.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 if self.runnable[2] => unsafe {
                traverse::trace_avx2::<ANY, F>(self, ray, mask, filter)
            },
            #[cfg(target_arch = "x86_64")]
            Isa::Sse41 if self.runnable[1] => unsafe {
                traverse::trace_sse41::<ANY, F>(self, ray, mask, filter)
            },
            _ => traverse::trace_portable::<ANY, F>(self, ray, mask, filter),
        }
    }
}
