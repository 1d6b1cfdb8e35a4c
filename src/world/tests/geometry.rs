//! `WorldGeometry`: what the shading point reads for a flattened instance is what the per-hit
//! transform gives (positions and face normals to the bit, vertex normals to rounding).

use super::super::WorldGeometry;
use super::*;
use crate::accel::TriangleMesh;
use glam::{Mat3, Mat4, Quat, Vec3};

#[test]
fn world_geometry_is_the_per_hit_transform() {
    let mesh = TriangleMesh {
        positions: vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.1, 0.0),
            Vec3::new(0.2, 1.0, 0.3),
            Vec3::new(1.1, 1.2, -0.4),
        ],
        indices: vec![[0, 1, 2], [1, 3, 2], [0, 1, 9]],
    };
    let shading = MeshShading {
        normals: vec![Vec3::Z, Vec3::new(0.0, 0.6, 0.8), Vec3::X, Vec3::Y],
        ..MeshShading::default()
    };
    // A mirroring placement: the front face flips with `orientation`.
    let xf = Mat4::from_scale_rotation_translation(
        Vec3::new(-1.5, 0.7, 2.0),
        Quat::from_rotation_y(0.7),
        Vec3::new(3.0, -1.0, 0.5),
    );
    let normal_matrix = Mat3::from_mat4(xf).inverse().transpose();
    let orientation = -1.0;
    let w = WorldGeometry::new(&mesh, &shading, &xf, normal_matrix, orientation);
    for (v, p) in mesh.positions.iter().zip(&w.positions) {
        assert_eq!(xf.transform_point3(*v).to_array(), p.to_array());
    }
    for (t, tri) in mesh.indices.iter().take(2).enumerate() {
        let p = tri.map(|v| xf.transform_point3(mesh.positions[v as usize]));
        let per_hit = ((p[1] - p[0]).cross(p[2] - p[0]) * orientation).normalize_or(Vec3::Y);
        assert_eq!(w.face_normals[t].to_array(), per_hit.to_array());
    }
    // A triangle with an index past the mesh gets a unit stand-in, not a panic.
    assert_eq!(w.face_normals[2], Vec3::Y);
    for (n, wn) in shading.normals.iter().zip(&w.normals) {
        assert!(((normal_matrix * *n) - *wn).length() < 1e-6);
    }
    // No normals in the mesh: none kept.
    let bare = WorldGeometry::new(&mesh, &MeshShading::default(), &xf, normal_matrix, 1.0);
    assert!(bare.normals.is_empty());
}
