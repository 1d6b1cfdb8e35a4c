//! Helpers that several test crates share for reading a plate folder: its manifest, the
//! scenes of its `casters.glb` (through the `gltf` crate, an independent reader) and the
//! SHA-256 the manifest records. Each test crate that says `mod common;` compiles its own
//! copy, and not every crate uses every helper.
#![allow(dead_code)]

use std::path::Path;

use glam::{Mat4, Vec3};
use serde_json::Value;

/// The plate folder's `manifest.json`.
pub fn manifest(out: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap()
}

/// A node of a glTF scene as the `gltf` crate reads it: its extras and world triangles.
pub struct Node {
    /// The node's `extras` (object, id, pick, from, proxy, cutout).
    pub extras: Value,
    /// Its triangles, world space, scene units.
    pub triangles: Vec<[Vec3; 3]>,
}

/// The nodes of `casters.glb`'s scene named `name` (`"casters"` or `"proxies"`), none when
/// the file has no such scene.
pub fn read_scene(glb: &Path, name: &str) -> Vec<Node> {
    let (doc, buffers, _) = gltf::import(glb).unwrap_or_else(|e| panic!("{}: {e}", glb.display()));
    let Some(s) = doc.scenes().find(|s| s.name() == Some(name)) else {
        return Vec::new();
    };
    // The casters are the default scene.
    if name == "casters" {
        assert_eq!(doc.default_scene().map(|d| d.index()), Some(s.index()));
    }
    s.nodes()
        .map(|n| {
            // World space: the nodes carry no transform.
            assert_eq!(
                Mat4::from_cols_array_2d(&n.transform().matrix()),
                Mat4::IDENTITY
            );
            let extras: Value = serde_json::from_str(n.extras().as_ref().unwrap().get()).unwrap();
            let mut triangles = Vec::new();
            for p in n.mesh().unwrap().primitives() {
                assert_eq!(p.mode(), gltf::mesh::Mode::Triangles);
                let r = p.reader(|b| Some(&buffers[b.index()]));
                let pos: Vec<Vec3> = r.read_positions().unwrap().map(Vec3::from).collect();
                let idx: Vec<u32> = r.read_indices().unwrap().into_u32().collect();
                for t in idx.chunks(3) {
                    triangles.push([pos[t[0] as usize], pos[t[1] as usize], pos[t[2] as usize]]);
                }
            }
            Node { extras, triangles }
        })
        .collect()
}

/// Lower-case hex SHA-256 of `bytes`, as the manifest writes it.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
