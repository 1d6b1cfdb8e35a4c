//! Tangent frames for normal textures: the file's TANGENTs made orthonormal, and MikkTSpace
//! tangents where the file has none (docs/assets.md, "glTF materials").

use glam::{Vec2, Vec3, Vec4};

/// A unit tangent orthogonal to the unit normal `n`, from `t` (Gram–Schmidt), with the
/// bitangent sign `w` as ±1; an arbitrary tangent where `t` is unusable (zero, along `n`,
/// not finite), so that no tangent is ever NaN.
pub(super) fn tangent_frame(t: Vec3, w: f32, n: Vec3) -> Vec4 {
    let t = if t.is_finite() {
        t - n * n.dot(t)
    } else {
        Vec3::ZERO
    };
    let t = t.normalize_or(n.any_orthonormal_vector());
    let w = if w < 0.0 { -1.0 } else { 1.0 };
    t.extend(w)
}

/// MikkTSpace tangents (the reference algorithm glTF 2.0 §3.7.2.1 names, through the
/// `mikktspace` crate) of an indexed triangle list, per vertex; and whether the algorithm
/// succeeded. A vertex shared by faces that MikkTSpace gives different tangents keeps the last
/// face's (exporters split vertices at UV seams, where that matters).
pub(super) fn mikktspace_tangents(
    positions: &[Vec3],
    normals: &[Vec3],
    uvs: &[Vec2],
    indices: &[[u32; 3]],
) -> (Vec<Vec4>, bool) {
    struct Mesh<'m> {
        positions: &'m [Vec3],
        normals: &'m [Vec3],
        uvs: &'m [Vec2],
        indices: &'m [[u32; 3]],
        out: Vec<Vec4>,
    }
    impl Mesh<'_> {
        fn vertex(&self, face: usize, vert: usize) -> usize {
            self.indices[face][vert] as usize
        }
    }
    impl mikktspace::Geometry for Mesh<'_> {
        fn num_faces(&self) -> usize {
            self.indices.len()
        }
        fn num_vertices_of_face(&self, _face: usize) -> usize {
            3
        }
        fn position(&self, face: usize, vert: usize) -> [f32; 3] {
            self.positions[self.vertex(face, vert)].to_array()
        }
        fn normal(&self, face: usize, vert: usize) -> [f32; 3] {
            self.normals[self.vertex(face, vert)].to_array()
        }
        fn tex_coord(&self, face: usize, vert: usize) -> [f32; 2] {
            // v flipped: glTF's v runs down the image, and a normal texture's +Y is up it
            // (glTF 2.0 §3.9.3); on (u, 1 − v) the bitangent w · n × t points up the image, as
            // the TANGENTs exporters write do (docs/assets.md).
            let uv = self.uvs[self.vertex(face, vert)];
            [uv.x, 1.0 - uv.y]
        }
        fn set_tangent_encoded(&mut self, t: [f32; 4], face: usize, vert: usize) {
            let v = self.vertex(face, vert);
            self.out[v] = Vec4::from_array(t);
        }
    }
    let mut mesh = Mesh {
        positions,
        normals,
        uvs,
        indices,
        out: vec![Vec4::ZERO; positions.len()],
    };
    let ok = mikktspace::generate_tangents(&mut mesh);
    let out = mesh
        .out
        .iter()
        .zip(normals)
        .map(|(t, n)| tangent_frame(t.truncate(), t.w, *n))
        .collect();
    (out, ok)
}
