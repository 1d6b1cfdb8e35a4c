//! `casters.glb`: what a live renderer needs to shadow its dynamic objects in the static
//! objects' place and to pick the static objects by their proxies (`[plates] casters` and
//! `proxies`; docs/plates.md, "Casters and proxies").
//!
//! One glTF 2.0 binary file, world space, no materials: the scene `"casters"` (the default
//! scene) holds the shadow casters `casters` names — each static object's own mesh, or the
//! proxies — and the scene `"proxies"` holds every proxy, for picking; a scene with no node
//! is left out (glTF gives each scene at least one). With `casters = "proxies"` the two
//! scenes share the proxies' nodes. Each node is one object's
//! triangles, named by the object's key, its `extras` carrying the object's key, id and pick.

use std::io;

use serde_json::{json, Value};

use super::glb;
use crate::scene::Casters;

/// The name of the caster file inside a plate folder.
pub const CASTERS_FILE: &str = "casters.glb";

/// One node of the caster file: one object's triangles, in world space.
#[derive(Clone, Debug, Default)]
pub struct CasterNode {
    /// The key of the object it stands for (its name; `"<placement>/<inner>"` when placed).
    pub object: String,
    /// The object's id, when written.
    pub id: Option<String>,
    /// The object's pick id (`[[object]] pick`).
    pub pick: u32,
    /// `Some(k)`: the `[[proxy]]` at 0-based place `k` of the proxies file; `None`: the
    /// object's own mesh.
    pub proxy: Option<usize>,
    /// Vertex positions, world space, scene units.
    pub positions: Vec<[f32; 3]>,
    /// Triangles: indices into `positions`, counter-clockwise seen from the front.
    pub triangles: Vec<[u32; 3]>,
    /// Some triangles are cut further by a cut-out material and are written whole.
    pub cutout: bool,
}

/// The contents of [`CASTERS_FILE`].
#[derive(Clone, Debug)]
pub struct CasterFile {
    /// `[plates] casters`.
    pub mode: Casters,
    /// With [`Casters::Meshes`]: the static objects' own meshes (empty otherwise).
    pub meshes: Vec<CasterNode>,
    /// Every proxy of `[plates] proxies`, in the order written.
    pub proxies: Vec<CasterNode>,
}

/// The words of `casters` in the format.
pub fn mode_words(mode: Casters) -> &'static str {
    match mode {
        Casters::Meshes => "meshes",
        Casters::Proxies => "proxies",
        Casters::None => "none",
    }
}

impl CasterFile {
    /// Whether the file has anything to hold: casters, or proxies to pick by. A plate with
    /// neither has no caster file.
    pub fn is_empty(&self) -> bool {
        self.casting().is_empty() && self.proxies.is_empty()
    }

    /// The glTF scene indices of the casters and of the proxies, each `None` when it would
    /// hold no node: glTF gives a scene at least one node, so an empty one is left out.
    pub fn scenes(&self) -> (Option<usize>, Option<usize>) {
        let casting = !self.casting().is_empty();
        (
            casting.then_some(0),
            (!self.proxies.is_empty()).then_some(usize::from(casting)),
        )
    }

    /// The nodes of the casters' scene: what casts on the dynamic objects.
    fn casting(&self) -> &[CasterNode] {
        match self.mode {
            Casters::Meshes => &self.meshes,
            Casters::Proxies => &self.proxies,
            Casters::None => &[],
        }
    }

    /// The `.glb` bytes: deterministic, a function of the nodes alone. Refuses (with
    /// `InvalidData`) a non-finite position or a corner past the node's last vertex.
    pub fn encode(&self) -> io::Result<Vec<u8>> {
        // Nodes: the meshes' (meshes mode only), then the proxies'.
        let meshes: &[CasterNode] = if self.mode == Casters::Meshes {
            &self.meshes
        } else {
            &[]
        };
        let all: Vec<&CasterNode> = meshes.iter().chain(&self.proxies).collect();
        let mut bin: Vec<u8> = Vec::new();
        let (mut nodes, mut gl_meshes, mut accessors, mut views) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (i, n) in all.iter().enumerate() {
            check(n)?;
            let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
            let start = bin.len();
            for p in &n.positions {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                    bin.extend_from_slice(&p[k].to_le_bytes());
                }
            }
            views.push(json!({
                "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start,
                "target": 34962,
            }));
            let start = bin.len();
            for t in &n.triangles {
                for c in t {
                    bin.extend_from_slice(&c.to_le_bytes());
                }
            }
            views.push(json!({
                "buffer": 0, "byteOffset": start, "byteLength": bin.len() - start,
                "target": 34963,
            }));
            accessors.push(json!({
                "bufferView": 2 * i, "componentType": 5126, "count": n.positions.len(),
                "type": "VEC3", "min": lo, "max": hi,
            }));
            accessors.push(json!({
                "bufferView": 2 * i + 1, "componentType": 5125,
                "count": 3 * n.triangles.len(), "type": "SCALAR",
            }));
            let name = match n.proxy {
                Some(k) => format!("{} (proxy {k})", n.object),
                None => n.object.clone(),
            };
            gl_meshes.push(json!({
                "name": name,
                "primitives": [{
                    "attributes": { "POSITION": 2 * i },
                    "indices": 2 * i + 1,
                    "mode": 4,
                }],
            }));
            let mut extras = json!({
                "object": n.object,
                "id": n.id,
                "pick": n.pick,
                "from": if n.proxy.is_some() { "proxy" } else { "mesh" },
            });
            if let Some(k) = n.proxy {
                extras["proxy"] = json!(k);
            }
            if n.cutout {
                extras["cutout"] = json!(true);
            }
            nodes.push(json!({ "name": name, "mesh": i, "extras": extras }));
        }
        let first_proxy = meshes.len();
        let casting = match self.mode {
            Casters::Meshes => 0..first_proxy,
            Casters::Proxies => first_proxy..all.len(),
            Casters::None => 0..0,
        };
        let mut scenes = Vec::new();
        for (name, range) in [("casters", casting), ("proxies", first_proxy..all.len())] {
            if !range.is_empty() {
                scenes.push(json!({ "name": name, "nodes": range.collect::<Vec<_>>() }));
            }
        }
        let mut doc = json!({
            "asset": {
                "version": "2.0",
                "generator": concat!("pfx-bake ", env!("CARGO_PKG_VERSION")),
            },
            "scenes": scenes,
            "extras": {
                "casters": mode_words(self.mode),
                "space": "world, scene units, +Y up, right-handed",
            },
        });
        // The casters are the default scene; a file of proxies alone names none.
        if let (Some(c), _) = self.scenes() {
            doc["scene"] = json!(c);
        }
        if !all.is_empty() {
            doc["nodes"] = json!(nodes);
            doc["meshes"] = json!(gl_meshes);
            doc["accessors"] = json!(accessors);
            doc["bufferViews"] = json!(views);
            doc["buffers"] = json!([{ "byteLength": bin.len() }]);
        }
        glb::encode(&doc, &bin)
    }

    /// The manifest's `files["casters.glb"]` entry for these bytes (the writer adds `bytes`
    /// and `sha256`).
    pub(super) fn file_json(&self) -> Value {
        let tris = |v: &[CasterNode]| v.iter().map(|n| n.triangles.len()).sum::<usize>();
        let (c, p) = self.scenes();
        json!({
            "format": "glTF 2.0 binary",
            "casters": mode_words(self.mode),
            "scenes": {
                "casters": { "scene": c, "nodes": self.casting().len(), "triangles": tris(self.casting()) },
                "proxies": { "scene": p, "nodes": self.proxies.len(), "triangles": tris(&self.proxies) },
            },
            "description": "world-space triangles, scene units: the scene named \"casters\" (the default scene) casts the static objects' shadows on dynamic objects, the one named \"proxies\" picks the static objects; a scene with nothing to hold is left out; each node is one object, its extras holding the object's key, id and pick",
        })
    }
}

/// Refuses what would make a broken file.
fn check(n: &CasterNode) -> io::Result<()> {
    let bad = |m: String| Err(io::Error::new(io::ErrorKind::InvalidData, m));
    if let Some(p) = n
        .positions
        .iter()
        .find(|p| p.iter().any(|c| !c.is_finite()))
    {
        return bad(format!(
            "object {:?}: non-finite caster vertex {p:?}",
            n.object
        ));
    }
    let count = n.positions.len();
    if n.triangles.is_empty() || n.triangles.iter().flatten().any(|&c| c as usize >= count) {
        return bad(format!(
            "object {:?}: a caster needs triangles whose corners are among its {count} vertices",
            n.object
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(object: &str, proxy: Option<usize>) -> CasterNode {
        CasterNode {
            object: object.into(),
            id: Some("aaaaaaaa01".into()),
            pick: 7,
            proxy,
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, -2.0]],
            triangles: vec![[0, 1, 2]],
            cutout: false,
        }
    }

    /// The same nodes give the same bytes; the JSON names each scene's nodes as the mode says.
    #[test]
    fn scenes_follow_the_mode_and_bytes_are_stable() {
        for (mode, casting) in [
            (Casters::Meshes, Some(vec![0])),
            (Casters::Proxies, Some(vec![0])),
            (Casters::None, None),
        ] {
            let f = CasterFile {
                mode,
                meshes: vec![node("table", None)],
                proxies: vec![node("table", Some(0))],
            };
            let a = f.encode().unwrap();
            assert_eq!(a, f.encode().unwrap());
            let jl = u32::from_le_bytes(a[12..16].try_into().unwrap()) as usize;
            let doc: Value = serde_json::from_slice(&a[20..20 + jl]).unwrap();
            let ids = |s: &Value| {
                s.get("nodes").map(|n| {
                    n.as_array()
                        .unwrap()
                        .iter()
                        .map(|i| i.as_u64().unwrap())
                        .collect::<Vec<_>>()
                })
            };
            let want_proxies = if mode == Casters::Meshes {
                vec![1]
            } else {
                vec![0]
            };
            let (c, p) = f.scenes();
            assert_eq!(
                c.map(|c| ids(&doc["scenes"][c])),
                casting.map(Some),
                "{mode:?}"
            );
            assert_eq!(
                ids(&doc["scenes"][p.unwrap()]),
                Some(want_proxies),
                "{mode:?}"
            );
            assert_eq!(
                doc.get("scene").and_then(Value::as_u64),
                c.map(|c| c as u64)
            );
            assert_eq!(doc["nodes"][0]["extras"]["pick"], 7);
        }
    }

    /// A non-finite vertex or a corner past the end is refused, not written.
    #[test]
    fn broken_nodes_are_refused() {
        let mut n = node("a", None);
        n.positions[1][2] = f32::NAN;
        let f = |n: CasterNode| {
            CasterFile {
                mode: Casters::Meshes,
                meshes: vec![n],
                proxies: vec![],
            }
            .encode()
        };
        assert_eq!(f(n).unwrap_err().kind(), io::ErrorKind::InvalidData);
        let mut n = node("a", None);
        n.triangles[0][2] = 3;
        assert_eq!(f(n).unwrap_err().kind(), io::ErrorKind::InvalidData);
    }
}
