use super::*;
use std::io::Write;
use std::path::PathBuf;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gltf")
        .join(rel)
}

fn load_ok(rel: &str, node: Option<&str>) -> MeshAsset {
    match load_gltf(&data(rel), node) {
        Ok(m) => m,
        Err(e) => panic!("{rel} failed: {e}"),
    }
}

/// Every invariant the world builder relies on.
fn check_invariants(m: &MeshAsset) {
    for (gi, g) in m.geometries.iter().enumerate() {
        let n = g.positions.len();
        assert_eq!(g.normals.len(), n, "geometry {gi}");
        assert_eq!(g.uvs.len(), n, "geometry {gi}");
        assert!(!g.indices.is_empty(), "geometry {gi} is empty");
        for t in &g.indices {
            assert!(t.iter().all(|&i| (i as usize) < n), "geometry {gi} index");
            assert!(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
        }
        assert!(g.positions.iter().all(|p| p.is_finite()));
        assert!(g.uvs.iter().all(|p| p.is_finite()));
        for nrm in &g.normals {
            assert!((nrm.length() - 1.0).abs() < 1e-4, "normal {nrm:?}");
        }
        for set in &g.more_uvs {
            assert!(set.len() == n && set.iter().all(|p| p.is_finite()));
        }
        assert!(g.colors.is_empty() || g.colors.len() == n);
        assert!(g.colors.iter().all(|c| c.is_finite()));
        assert!(g.tangents.is_empty() || g.tangents.len() == n);
        for t in &g.tangents {
            assert!((t.truncate().length() - 1.0).abs() < 1e-4 && t.w.abs() == 1.0);
        }
    }
    for p in &m.parts {
        assert!(p.gltf_material.is_none_or(|i| i < m.materials.len()));
    }
    for p in &m.parts {
        assert!(p.geometry < m.geometries.len());
        assert!(p.transform.is_finite());
    }
}

/// Positions as the `gltf` crate's own reader returns them: an independent reference for
/// the accessor code above (fine on the valid sample files).
fn reference_positions(path: &Path, mesh: usize, prim: usize) -> Vec<Vec3> {
    let (doc, buffers, _) = ::gltf::import(path).expect("gltf::import");
    let mesh = doc.meshes().nth(mesh).expect("mesh");
    let prim = mesh.primitives().nth(prim).expect("primitive");
    let reader = prim.reader(|b| Some(&buffers[b.index()]));
    reader
        .read_positions()
        .expect("positions")
        .map(Vec3::from)
        .collect()
}

fn write_temp(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().expect("temp file");
    f.write_all(bytes).expect("write");
    f.flush().expect("flush");
    f
}

fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        s.push(T[(n >> 18) as usize & 63] as char);
        s.push(T[(n >> 12) as usize & 63] as char);
        s.push(if c.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        s.push(if c.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
    s
}

/// A .gltf with `bin` as one data-URI buffer and one bufferView over all of it; the other
/// top-level members come from `rest` (JSON members without the outer braces).
fn gltf_with(bin: &[u8], rest: &str) -> String {
    format!(
        r#"{{"asset":{{"version":"2.0"}},
           "buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
           "bufferViews":[{{"buffer":0,"byteLength":{n}}}],
           {rest}}}"#,
        n = bin.len(),
        b = base64(bin)
    )
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const ONE_TRIANGLE: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
const TRIANGLE_ACCESSOR: &str = r#""accessors":[{"bufferView":0,"componentType":5126,
    "count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}]"#;

#[test]
fn box_glb_applies_root_matrix() {
    let m = load_ok("Box/Box.glb", None);
    check_invariants(&m);
    assert_eq!(m.geometries.len(), 1);
    assert_eq!(m.stored_triangles(), 12);
    assert_eq!(m.parts.len(), 1);
    let part = &m.parts[0];
    assert_eq!(part.node_path, vec![String::new(), String::new()]);
    assert_eq!(part.material.as_deref(), Some("Red"));
    assert!(!part.double_sided);
    // The root's column-major matrix maps (x, y, z) to (x, z, -y) (Z-up to Y-up).
    let expected = Mat4::from_cols_array(&[
        1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ]);
    assert_eq!(part.transform, expected);
    let g = &m.geometries[0];
    assert_eq!(g.positions, reference_positions(&data("Box/Box.glb"), 0, 0));
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for p in &g.positions {
        let w = part.transform.transform_point3(*p);
        assert_eq!(w, Vec3::new(p.x, p.z, -p.y));
        lo = lo.min(w);
        hi = hi.max(w);
    }
    assert_eq!((lo, hi), (Vec3::splat(-0.5), Vec3::splat(0.5)));
    // Normals come from the file (axis-aligned), not computed.
    for n in &g.normals {
        assert_eq!(n.abs().max_element(), 1.0, "{n:?}");
    }
}

#[test]
fn triangle_gets_computed_normal_and_zero_uvs() {
    let m = load_ok("Triangle/glTF/Triangle.gltf", None);
    check_invariants(&m);
    assert_eq!(m.stored_triangles(), 1);
    let g = &m.geometries[0];
    let [a, b, c] = g.indices[0].map(|i| g.positions[i as usize]);
    let face = (b - a).cross(c - a).normalize();
    // The sample triangle lies in z = 0, counter-clockwise from +Z.
    assert!((face - Vec3::Z).length() < 1e-6);
    assert!(g.normals.iter().all(|n| (*n - face).length() < 1e-6));
    assert!(g.uvs.iter().all(|uv| *uv == Vec2::ZERO));
    assert_eq!(m.parts[0].material, None);
    assert!(!m.parts[0].double_sided);
}

#[test]
fn triangle_without_indices_is_sequential() {
    let m = load_ok(
        "TriangleWithoutIndices/glTF/TriangleWithoutIndices.gltf",
        None,
    );
    check_invariants(&m);
    assert_eq!(m.geometries.len(), 1);
    assert_eq!(m.geometries[0].indices, vec![[0, 1, 2]]);
    assert_eq!(m.geometries[0].positions.len(), 3);
}

#[test]
fn simple_meshes_share_one_geometry() {
    let m = load_ok("SimpleMeshes/glTF/SimpleMeshes.gltf", None);
    check_invariants(&m);
    assert_eq!(m.geometries.len(), 1);
    assert_eq!(m.parts.len(), 2);
    assert_eq!(m.parts[0].geometry, m.parts[1].geometry);
    assert_eq!(m.parts[0].transform, Mat4::IDENTITY);
    assert_eq!(
        m.parts[1].transform,
        Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0))
    );
}

#[test]
fn multiple_scenes_uses_default_scene_one() {
    // Scene 0 holds the triangle (1 tri), scene 1 (the default) the square (2 tris).
    let external = load_ok("MultipleScenes/glTF/MultipleScenes.gltf", None);
    check_invariants(&external);
    assert_eq!(external.parts.len(), 1);
    assert_eq!(external.stored_triangles(), 2);
    // The embedded variant reads the same data from base64 data URIs.
    let embedded = load_ok("MultipleScenes/glTF-Embedded/MultipleScenes.gltf", None);
    assert_eq!(embedded, external);
}

#[test]
fn primitive_modes_convert_strips_fans_and_warn_lines() {
    let m = load_ok("MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf", None);
    check_invariants(&m);
    // TRIANGLES 18 indices → 6, TRIANGLE_STRIP 6 → 4, TRIANGLE_FAN 8 → 6.
    let counts: Vec<usize> = m.geometries.iter().map(Geometry::triangle_count).collect();
    assert_eq!(counts, vec![6, 4, 6]);
    assert_eq!(m.parts.len(), 3);
    for mode in ["POINTS", "LINES", "LINE_LOOP", "LINE_STRIP"] {
        let hit = m
            .warnings
            .iter()
            .any(|w| w.contains(&format!("'mesh with {mode}'")) && w.contains(mode));
        assert!(hit, "no warning for {mode}: {:?}", m.warnings);
    }
    assert_eq!(m.warnings.len(), 4, "{:?}", m.warnings);
    // All three shapes face the viewer (+Z) in the sample: a wrong strip parity would
    // flip every odd strip triangle.
    for (gi, g) in m.geometries.iter().enumerate() {
        for t in &g.indices {
            let [a, b, c] = t.map(|i| g.positions[i as usize]);
            assert!((b - a).cross(c - a).z > 0.0, "geometry {gi} triangle {t:?}");
        }
    }
}

#[test]
fn strip_and_fan_winding_follow_gltf() {
    assert_eq!(
        assemble(Mode::TriangleStrip, &[0, 1, 2, 3, 4]),
        vec![[0, 1, 2], [1, 3, 2], [2, 3, 4]]
    );
    assert_eq!(
        assemble(Mode::TriangleFan, &[0, 1, 2, 3]),
        vec![[0, 1, 2], [0, 2, 3]]
    );
    // Degenerate strip joins are dropped, leftovers of a bad TRIANGLES count ignored.
    assert_eq!(
        assemble(Mode::TriangleStrip, &[0, 1, 1, 2]),
        Vec::<[u32; 3]>::new()
    );
    assert_eq!(assemble(Mode::Triangles, &[0, 1, 2, 3, 4]), vec![[0, 1, 2]]);
    assert!(assemble(Mode::TriangleFan, &[]).is_empty());
}

#[test]
fn metal_rough_spheres_store_the_sphere_once() {
    let path = data("MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb");
    let m = load_ok(
        "MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb",
        None,
    );
    check_invariants(&m);
    // 98 meshes point at one sphere's accessors with 98 materials; 4 label meshes hold
    // 25 further primitives.
    let sphere = m.parts[0].geometry;
    let sphere_parts: Vec<&Part> = m.parts.iter().filter(|p| p.geometry == sphere).collect();
    assert_eq!(sphere_parts.len(), 98);
    assert_eq!(m.parts.len(), 98 + 25);
    assert_eq!(m.geometries.len(), 1 + 25);
    let materials: HashSet<_> = sphere_parts.iter().map(|p| p.material.clone()).collect();
    assert_eq!(materials.len(), 98);
    assert_eq!(
        m.geometries[sphere].positions,
        reference_positions(&path, 0, 0)
    );
    let sphere_tris = m.geometries[sphere].triangle_count();
    assert_eq!(sphere_tris, 10_600);
    assert!(m.stored_triangles() < 20_000, "{}", m.stored_triangles());
    // The shared README's count of the flattened scene.
    assert_eq!(m.placed_triangles(), 1_040_409);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

/// UnlitTest requires KHR_materials_unlit: it loads, its two materials unlit with their base
/// colour factors (sRGB #FF7F00 and #007FFF, stored linear) and nothing else set.
#[test]
fn unlit_materials_load_with_their_base_colour_alone() {
    let m = load_ok("UnlitTest/UnlitTest.glb", None);
    check_invariants(&m);
    assert_eq!(m.parts.len(), 2);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    let labels: Vec<&str> = m.materials.iter().map(|g| g.label.as_str()).collect();
    assert_eq!(labels, ["material 'Orange'", "material 'Blue'"]);
    let want = [[1.0, 0.217_637_64, 0.0, 1.0], [0.0, 0.217_637_64, 1.0, 1.0]];
    for (g, want) in m.materials.iter().zip(want) {
        assert!(g.unlit, "{}", g.label);
        assert_eq!(g.base_color, want, "{}", g.label);
        assert!(!g.textured(), "{}", g.label);
        assert_eq!(g.emissive, [0.0; 3]);
        assert_eq!(g.transmission, 0.0);
    }
    // A material without the extension is not unlit.
    let lit = load_ok("Box/Box.glb", None);
    assert!(lit.materials.iter().all(|g| !g.unlit));
}

#[test]
fn instancing_expands_into_parts() {
    let path = data("SimpleInstancing/SimpleInstancing.glb");
    let m = load_ok("SimpleInstancing/SimpleInstancing.glb", None);
    check_invariants(&m);
    assert_eq!(m.geometries.len(), 1);
    assert_eq!(m.parts.len(), 125);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    // Reference: the crate's own accessor iterator over accessors 3, 4, 5 (TRANSLATION,
    // ROTATION, SCALE of the file's one instanced node, which has no transform itself).
    let (doc, buffers, _) = ::gltf::import(&path).expect("import");
    let get = |b: ::gltf::Buffer| Some(&buffers[b.index()].0[..]);
    let acc = |i| doc.accessors().nth(i).expect("accessor");
    let t: Vec<[f32; 3]> = ::gltf::accessor::Iter::new(acc(3), get)
        .expect("t")
        .collect();
    let r: Vec<[f32; 4]> = ::gltf::accessor::Iter::new(acc(4), get)
        .expect("r")
        .collect();
    let s: Vec<[f32; 3]> = ::gltf::accessor::Iter::new(acc(5), get)
        .expect("s")
        .collect();
    for (i, part) in m.parts.iter().enumerate() {
        let q = Quat::from_array(r[i]).normalize();
        let expected = Mat4::from_scale_rotation_translation(s[i].into(), q, t[i].into());
        assert!(
            part.transform.abs_diff_eq(expected, 1e-6),
            "instance {i}: {:?} vs {expected:?}",
            part.transform
        );
    }
}

#[test]
fn skin_and_cameras_are_warned() {
    let m = load_ok("SimpleSkin/glTF/SimpleSkin.gltf", None);
    check_invariants(&m);
    assert_eq!(m.parts.len(), 1);
    assert!(
        m.warnings
            .iter()
            .any(|w| w.contains("skin") && w.contains("rest pose")),
        "{:?}",
        m.warnings
    );
    let m = load_ok("Cameras/glTF/Cameras.gltf", None);
    check_invariants(&m);
    assert_eq!(m.parts.len(), 1);
    let cams = m.warnings.iter().filter(|w| w.contains("camera")).count();
    assert_eq!(cams, 2, "{:?}", m.warnings);
}

#[test]
fn punctual_lights_are_warned() {
    let json = gltf_with(
        &f32_bytes(&ONE_TRIANGLE),
        &format!(
            r#"{TRIANGLE_ACCESSOR},
            "extensionsUsed":["KHR_lights_punctual"],
            "extensions":{{"KHR_lights_punctual":{{"lights":[{{"type":"point"}}]}}}},
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
            "nodes":[{{"name":"lamp","extensions":{{"KHR_lights_punctual":{{"light":0}}}}}},
                     {{"mesh":0}}],
            "scenes":[{{"nodes":[0,1]}}]"#
        ),
    );
    let f = write_temp(json.as_bytes());
    let m = load_gltf(f.path(), None).expect("loads");
    assert_eq!(m.parts.len(), 1);
    assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
    assert!(m.warnings[0].starts_with("node 'lamp': KHR_lights_punctual light ignored"));
}

fn arm_and_hand() -> tempfile::NamedTempFile {
    let json = gltf_with(
        &f32_bytes(&ONE_TRIANGLE),
        &format!(
            r#"{TRIANGLE_ACCESSOR},
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
            "nodes":[{{"name":"arm","translation":[5,0,0],"scale":[2,2,2],"children":[1]}},
                     {{"name":"hand","translation":[0,1,0],"mesh":0}},
                     {{"name":"other","translation":[0,0,9],"mesh":0}}],
            "scenes":[{{"nodes":[0,2]}}]"#
        ),
    );
    write_temp(json.as_bytes())
}

#[test]
fn node_selection_drops_own_transform_keeps_childrens() {
    let f = arm_and_hand();
    let whole = load_gltf(f.path(), None).expect("loads");
    assert_eq!(whole.geometries.len(), 1);
    assert_eq!(whole.parts.len(), 2);
    let arm_hand = Mat4::from_translation(Vec3::new(5.0, 0.0, 0.0))
        * Mat4::from_scale(Vec3::splat(2.0))
        * Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
    assert!(whole.parts[0].transform.abs_diff_eq(arm_hand, 1e-6));
    assert_eq!(whole.parts[0].node_path, vec!["arm", "hand"]);
    assert_eq!(
        whole.parts[1].transform,
        Mat4::from_translation(Vec3::new(0.0, 0.0, 9.0))
    );
    assert_eq!(whole.parts[1].node_path, vec!["other"]);

    let arm = load_gltf(f.path(), Some("arm")).expect("loads");
    assert_eq!(arm.parts.len(), 1);
    assert_eq!(
        arm.parts[0].transform,
        Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0))
    );
    assert_eq!(arm.parts[0].node_path, vec!["arm", "hand"]);

    let hand = load_gltf(f.path(), Some("hand")).expect("loads");
    assert_eq!(hand.parts.len(), 1);
    assert_eq!(hand.parts[0].transform, Mat4::IDENTITY);
    assert_eq!(hand.parts[0].node_path, vec!["hand"]);
}

#[test]
fn unknown_or_ambiguous_node_is_refused_by_name() {
    let f = arm_and_hand();
    let e = load_gltf(f.path(), Some("leg")).expect_err("refused");
    assert!(
        e.message.starts_with("node 'leg' is not in the file"),
        "{e}"
    );
    assert!(e.message.contains("'arm'"), "{e}");
    assert_eq!(e.kind, AssetErrorKind::GltfNode);
    let e = load_gltf(&data("Box/Box.glb"), Some("Box")).expect_err("refused");
    assert!(e.message.contains("'Box'"), "{e}");

    let json = gltf_with(
        &f32_bytes(&ONE_TRIANGLE),
        &format!(
            r#"{TRIANGLE_ACCESSOR},
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
            "nodes":[{{"name":"twin","mesh":0}},{{"name":"twin","mesh":0}}],
            "scenes":[{{"nodes":[0,1]}}]"#
        ),
    );
    let f = write_temp(json.as_bytes());
    let e = load_gltf(f.path(), Some("twin")).expect_err("refused");
    assert!(e.message.contains("'twin' names 2 nodes"), "{e}");
    assert_eq!(e.kind, AssetErrorKind::GltfNode);
}

#[test]
fn loader_computes_area_weighted_normals() {
    // The two triangles of mod.rs's closed-form case: areas 2 (+Z) and 1 (-X).
    let pos = [0.0, 0.0, 0.0, 0.0, 2.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let mut bin = f32_bytes(&pos);
    bin.extend([0u16, 1, 2, 0, 3, 1].iter().flat_map(|i| i.to_le_bytes()));
    let json = gltf_with(
        &bin,
        r#""accessors":[
            {"bufferView":0,"componentType":5126,"count":4,"type":"VEC3",
             "min":[-2,0,0],"max":[0,2,1]},
            {"bufferView":0,"byteOffset":48,"componentType":5123,"count":6,"type":"SCALAR"}],
          "meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
          "nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0"#,
    );
    let f = write_temp(json.as_bytes());
    let m = load_gltf(f.path(), None).expect("loads");
    let g = &m.geometries[0];
    let shared = Vec3::new(-2.0, 0.0, 4.0).normalize();
    assert!(
        (g.normals[0] - shared).length() < 1e-6,
        "{:?}",
        g.normals[0]
    );
    assert!((g.normals[1] - shared).length() < 1e-6);
    assert!((g.normals[2] - Vec3::Z).length() < 1e-6);
    assert!((g.normals[3] - Vec3::NEG_X).length() < 1e-6);
}

#[test]
fn quantized_and_sparse_attributes_are_read() {
    // POSITION as normalised i16 (KHR_mesh_quantization): (1,0,0), (0,1,0), (0,0,0), then
    // a sparse substitution (values of the same i16 type) moving vertex 2 to
    // (0, 16384/32767, 0).
    let mut bin: Vec<u8> = [32767i16, 0, 0, 0, 32767, 0, 0, 0, 0, 0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect(); // 3 VEC3 of i16 = 18 bytes, padded to 20
    let sparse_at = bin.len();
    bin.extend(2u16.to_le_bytes()); // sparse index
    bin.extend([0i16, 16384, 0].iter().flat_map(|v| v.to_le_bytes())); // sparse value
    let json = gltf_with(
        &bin,
        &format!(
            r#""extensionsUsed":["KHR_mesh_quantization"],
            "extensionsRequired":["KHR_mesh_quantization"],
            "accessors":[{{"bufferView":0,"componentType":5122,"normalized":true,
             "count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0],
             "sparse":{{"count":1,"indices":{{"bufferView":0,"byteOffset":{sparse_at},
               "componentType":5123}},"values":{{"bufferView":0,"byteOffset":{v}}}}}}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
            "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#,
            v = sparse_at + 2
        ),
    );
    let f = write_temp(json.as_bytes());
    let m = load_gltf(f.path(), None).expect("loads");
    let p = &m.geometries[0].positions;
    assert_eq!(p[0], Vec3::new(1.0, 0.0, 0.0));
    assert_eq!(p[1], Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(p[2], Vec3::new(0.0, 16384.0 / 32767.0, 0.0));

    // The same file requiring an extension nobody implements is refused by its name.
    let other = json.replace(
        r#""extensionsRequired":["KHR_mesh_quantization"]"#,
        r#""extensionsRequired":["KHR_mesh_quantization","KHR_draco_mesh_compression"]"#,
    );
    let f = write_temp(other.as_bytes());
    let e = load_gltf(f.path(), None).expect_err("refused");
    assert!(e.message.contains("KHR_draco_mesh_compression"), "{e}");
}

/// A 2 × 1 RGBA PNG with alphas 10 and 250.
fn two_texel_png() -> Vec<u8> {
    let mut img = image::RgbaImage::new(2, 1);
    img.put_pixel(0, 0, image::Rgba([1, 2, 3, 10]));
    img.put_pixel(1, 0, image::Rgba([1, 2, 3, 250]));
    let mut out = Vec::new();
    image::DynamicImage::ImageRgba8(img)
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// One triangle with TEXCOORD_0 and one material (`material`, JSON), plus `more` top-level
/// members (textures, images, samplers, extra bufferViews); `extra_bin` is appended to the
/// buffer after the vertex data, at byte 60.
fn textured_triangle(material: &str, more: &str, extra_bin: &[u8]) -> (Vec<u8>, String) {
    let mut bin = f32_bytes(&ONE_TRIANGLE);
    bin.extend(f32_bytes(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0]));
    bin.extend_from_slice(extra_bin);
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1}},"material":0}}]}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
          {{"bufferView":0,"byteOffset":36,"componentType":5126,"count":3,"type":"VEC2"}}],
        "materials":[{material}]{more}"#
    );
    (bin, json)
}

/// Wraps a JSON document's text (without its closing brace) and a buffer into the GLB
/// container.
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while b.len() % 4 != 0 {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend(j);
    out.extend((b.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend(b);
    out
}

const MASK_LEAF: &str = r#"{"name":"leaf","alphaMode":"MASK","alphaCutoff":0.3,
    "pbrMetallicRoughness":{"baseColorFactor":[1,1,1,0.5],"baseColorTexture":{"index":0}}}"#;

fn assert_two_texel_coverage(m: &MeshAsset, wrap_s: Wrap, filter: Filter) {
    assert_eq!(m.coverages.len(), 1, "{:?}", m.warnings);
    assert_eq!(m.parts[0].coverage, Some(0));
    let c = &m.coverages[0];
    assert_eq!(c.material, "leaf");
    assert!(!c.blend);
    assert_eq!((c.factor, c.file_cutoff), (0.5, 0.3));
    let t = c.texture.as_ref().expect("texture alpha");
    assert_eq!(
        (t.width, t.height, t.alpha.as_slice()),
        (2, 1, &[10u8, 250][..])
    );
    assert_eq!(
        (t.wrap_s, t.wrap_t, t.filter),
        (wrap_s, Wrap::Repeat, filter)
    );
    // The same image shades the material: decoded once, as RGBA.
    let mat = &m.materials[m.parts[0].gltf_material.expect("material")];
    let t = mat
        .base_color_texture
        .as_ref()
        .expect("base colour texture");
    assert_eq!(t.image.texels, [[1, 2, 3, 10], [1, 2, 3, 250]]);
    assert_eq!((t.wrap_s, t.filter, t.tex_coord), (wrap_s, filter, 0));
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

#[test]
fn mask_texture_alpha_is_read_from_a_data_uri() {
    let png = two_texel_png();
    let (bin, json) = textured_triangle(
        MASK_LEAF,
        &format!(
            r#","textures":[{{"source":0,"sampler":0}}],
            "samplers":[{{"magFilter":9728,"wrapS":33648}}],
            "images":[{{"uri":"data:image/png;base64,{}"}}]"#,
            base64(&png)
        ),
        &[],
    );
    let doc = format!(
        r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
        n = bin.len(),
        b = base64(&bin)
    );
    let f = write_temp(doc.as_bytes());
    let m = load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"));
    check_invariants(&m);
    assert_two_texel_coverage(&m, Wrap::MirroredRepeat, Filter::Nearest);
}

#[test]
fn mask_texture_alpha_is_read_from_a_glb_buffer_view() {
    let png = two_texel_png();
    let (bin, json) = textured_triangle(
        MASK_LEAF,
        &format!(
            r#","textures":[{{"source":0}}],
            "images":[{{"bufferView":1,"mimeType":"image/png"}}],
            "buffers":[{{"byteLength":{n}}}],
            "bufferViews":[{{"buffer":0,"byteLength":60}},{{"buffer":0,"byteOffset":60,"byteLength":{p}}}]}}"#,
            n = 60 + png.len(),
            p = png.len()
        ),
        &png,
    );
    let f = write_temp(&glb(&json, &bin));
    let m = load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"));
    // No sampler: glTF's defaults, REPEAT and (no magFilter) bilinear.
    assert_two_texel_coverage(&m, Wrap::Repeat, Filter::Bilinear);
}

#[test]
fn mask_texture_alpha_is_read_from_a_file_beside_the_gltf() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("leaf alpha.png"), two_texel_png()).unwrap();
    std::fs::write(dir.path().join("bad.png"), b"\x89PNG\r\n\x1a\nbroken").unwrap();
    let write = |name: &str, image_uri: &str| {
        let (bin, json) = textured_triangle(
            MASK_LEAF,
            &format!(
                r#","textures":[{{"source":0,"sampler":0}}],
                "samplers":[{{"wrapS":33071,"magFilter":9729}}],
                "images":[{{"uri":"{image_uri}","name":"leafimg"}}]"#
            ),
            &[],
        );
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let path = dir.path().join(name);
        std::fs::write(&path, doc).unwrap();
        path
    };
    let m =
        load_gltf(&write("ok.gltf", "leaf%20alpha.png"), None).unwrap_or_else(|e| panic!("{e}"));
    assert_two_texel_coverage(&m, Wrap::ClampToEdge, Filter::Bilinear);
    // A missing image is unreadable, a broken one invalid; both name the material and
    // the image.
    let e = load_gltf(&write("missing.gltf", "nope.png"), None).unwrap_err();
    assert_eq!(e.kind, AssetErrorKind::Unreadable, "{e}");
    assert!(
        e.message
            .contains("material 'leaf': base colour texture image 0 'leafimg'"),
        "{e}"
    );
    let e = load_gltf(&write("broken.gltf", "bad.png"), None).unwrap_err();
    assert_eq!(e.kind, AssetErrorKind::GltfInvalid, "{e}");
    assert!(e.message.contains("image 0 'leafimg'"), "{e}");
    let e = load_gltf(&write("http.gltf", "http://example.com/a.png"), None).unwrap_err();
    assert!(e.message.contains("not supported"), "{e}");
}

#[test]
fn other_texcoord_sets_blend_and_opaque_materials() {
    let png = two_texel_png();
    let images = format!(
        r#","textures":[{{"source":0}}],"images":[{{"uri":"data:image/png;base64,{}"}}]"#,
        base64(&png)
    );
    let load = |material: &str| {
        let (bin, json) = textured_triangle(material, &images, &[]);
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(doc.as_bytes());
        load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"))
    };
    // TEXCOORD_1: warned by name, the factor alone is the alpha.
    let m = load(
        r#"{"name":"leaf","alphaMode":"MASK","pbrMetallicRoughness":{"baseColorFactor":[1,1,1,0.25],
        "baseColorTexture":{"index":0,"texCoord":1}}}"#,
    );
    let c = &m.coverages[0];
    assert_eq!(
        (c.factor, c.file_cutoff, c.texture.is_none()),
        (0.25, 0.5, true)
    );
    assert!(
        m.warnings.iter().any(|w| {
            w.starts_with(
            "material 'leaf': its base colour texture reads TEXCOORD_1; only TEXCOORD_0 is read"
        )
        }),
        "{:?}",
        m.warnings
    );
    // BLEND is a cut-out too, marked as such.
    let m = load(
        r#"{"name":"glass","alphaMode":"BLEND","pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}"#,
    );
    assert!(m.coverages[0].blend && m.coverages[0].texture.is_some());
    assert_eq!(m.coverages[0].factor, 1.0);
    // OPAQUE: no coverage; the texture shades the material, without a warning.
    let m = load(r#"{"name":"wall","pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}"#);
    assert!(m.coverages.is_empty() && m.parts[0].coverage.is_none());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    assert!(m.materials[0].base_color_texture.is_some());
}

/// Factors, texture slots with their sets, samplers and KHR_texture_transform, emissive
/// strength and ior, read as written; undrawn extensions and occlusion named once per
/// file, however many materials hold them.
#[test]
fn material_parameters_are_read_and_undrawn_ones_named_once() {
    let png = two_texel_png();
    let images = format!(
        r#","textures":[{{"source":0,"sampler":0}},{{"source":0,"sampler":1}}],
        "samplers":[{{"magFilter":9728,"wrapS":33071,"wrapT":33648}},{{"minFilter":9987}}],
        "images":[{{"uri":"data:image/png;base64,{}"}}]"#,
        base64(&png)
    );
    let material = r#"{"name":"a","emissiveFactor":[0.1,0.2,0.3],
        "pbrMetallicRoughness":{"baseColorFactor":[0.8,0.4,0.2,1],"metallicFactor":0.25,
          "roughnessFactor":0.75,"baseColorTexture":{"index":0,"texCoord":1},
          "metallicRoughnessTexture":{"index":1,"extensions":{"KHR_texture_transform":
            {"offset":[0.5,0.25],"rotation":1.5707964,"scale":[2,3],"texCoord":2}}}},
        "normalTexture":{"index":0,"scale":0.5},"emissiveTexture":{"index":1},
        "occlusionTexture":{"index":0},
        "extensions":{"KHR_materials_emissive_strength":{"emissiveStrength":4},
          "KHR_materials_ior":{"ior":2.0},"KHR_materials_clearcoat":{},"KHR_materials_iridescence":{},
          "KHR_materials_anisotropy":{}}},
        {"name":"b","occlusionTexture":{"index":0},"extensions":{"KHR_materials_clearcoat":{}}}"#;
    let (mut bin, json) = textured_triangle(material, &images, &[]);
    // A second primitive with material 1 on the same accessors.
    let json = json.replace(
        r#""material":0}]"#,
        r#""material":0},{"attributes":{"POSITION":0,"TEXCOORD_0":1},"material":1}]"#,
    );
    bin.extend([0u8; 0]);
    let doc = format!(
        r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
        n = bin.len(),
        b = base64(&bin)
    );
    let f = write_temp(doc.as_bytes());
    let m = load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.materials.len(), 2);
    let a = &m.materials[0];
    assert_eq!(a.label, "material 'a'");
    assert_eq!(a.base_color, [0.8, 0.4, 0.2, 1.0]);
    assert_eq!((a.metallic, a.roughness, a.ior), (0.25, 0.75, 2.0));
    // emissiveFactor × emissiveStrength.
    let e = a.emissive;
    assert!((e[0] - 0.4).abs() < 1e-6 && (e[1] - 0.8).abs() < 1e-6 && (e[2] - 1.2).abs() < 1e-6);
    let bc = a.base_color_texture.as_ref().unwrap();
    assert_eq!(
        (bc.tex_coord, bc.wrap_s, bc.wrap_t, bc.filter),
        (1, Wrap::ClampToEdge, Wrap::MirroredRepeat, Filter::Nearest)
    );
    let mr = a.metallic_roughness_texture.as_ref().unwrap();
    // The extension's texCoord wins over the slot's; sampler 1 has glTF's defaults.
    assert_eq!(
        (mr.tex_coord, mr.wrap_s, mr.filter),
        (2, Wrap::Repeat, Filter::Bilinear)
    );
    // minFilter LINEAR_MIPMAP_LINEAR (sampler 1) and none (sampler 0) are both trilinear.
    assert_eq!(
        (mr.minify, mr.mip),
        (Filter::Bilinear, crate::assets::Mip::Linear)
    );
    assert_eq!(
        (bc.minify, bc.mip),
        (Filter::Bilinear, crate::assets::Mip::Linear)
    );
    // T·R·S: (1, 0) scaled to (2, 0), turned a quarter (the extension's R maps (x, 0) to
    // (0, −x)), offset: (0.5, 0.25 − 2).
    let q = mr.transform.apply(Vec2::new(1.0, 0.0));
    assert!((q - Vec2::new(0.5, -1.75)).length() < 1e-5, "{q}");
    // One image, shared by every slot.
    assert!(Arc::ptr_eq(&bc.image, &mr.image));
    assert_eq!(a.normal_texture.as_ref().unwrap().scale, 0.5);
    let b = &m.materials[1];
    assert_eq!(
        (b.metallic, b.roughness, b.ior, b.base_color),
        (1.0, 1.0, 1.5, [1.0; 4])
    );
    let count = |needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
    // An empty KHR_materials_clearcoat is a coat of factor 0: no coat, nothing to name.
    assert_eq!(count("clearcoat"), 0, "{:?}", m.warnings);
    assert_eq!((a.clearcoat, b.clearcoat), (0.0, 0.0));
    // An empty KHR_materials_iridescence is a film of factor 0: no effect, nothing named.
    assert_eq!(count("iridescence"), 0, "{:?}", m.warnings);
    assert_eq!(a.iridescence, 0.0);
    assert_eq!(
        count("KHR_materials_anisotropy is not rendered yet"),
        1,
        "{:?}",
        m.warnings
    );
    assert_eq!(
        count("occlusion textures are not used"),
        1,
        "{:?}",
        m.warnings
    );
    // Mip-mapped minFilters are applied (docs/assets.md, "Texture filtering"): nothing named.
    assert_eq!(count("minFilter"), 0, "{:?}", m.warnings);
    assert_eq!(count("emissive_strength"), 0);
    assert_eq!(count("KHR_materials_ior"), 0);
    // The normal texture needs tangents: MikkTSpace made them, unit and orthogonal to the
    // normal, for the one geometry (the file has no TANGENT).
    let g = &m.geometries[m.parts[0].geometry];
    assert_eq!(g.tangents.len(), 3);
    for (t, n) in g.tangents.iter().zip(&g.normals) {
        assert!((t.truncate().length() - 1.0).abs() < 1e-5 && t.truncate().dot(*n).abs() < 1e-5);
        assert!(t.w.abs() == 1.0);
    }
}

/// MikkTSpace on a quad in z = 0 whose u runs along +X and v down −Y (glTF: v = 0 at the
/// top of the image): the tangent is +X, and the bitangent w · n × t is +Y, up the image,
/// as a normal texture's +Y is.
#[test]
fn generated_tangents_follow_u_and_up_the_image() {
    let positions = [
        Vec3::new(-1.0, -1.0, 0.0),
        Vec3::new(1.0, -1.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(-1.0, 1.0, 0.0),
    ];
    let normals = [Vec3::Z; 4];
    let uvs = [
        Vec2::new(0.0, 1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 0.0),
    ];
    let (t, ok) = mikktspace_tangents(&positions, &normals, &uvs, &[[0, 1, 2], [0, 2, 3]]);
    assert!(ok);
    for t in t {
        assert!((t.truncate() - Vec3::X).length() < 1e-5, "{t}");
        let b = Vec3::Z.cross(t.truncate()) * t.w;
        assert!((b - Vec3::Y).length() < 1e-5, "{b}");
    }
    // The u axis mirrored: the tangent turns to −X and the sign keeps the bitangent up.
    let mirrored: Vec<Vec2> = uvs.iter().map(|uv| Vec2::new(1.0 - uv.x, uv.y)).collect();
    let (t, _) = mikktspace_tangents(&positions, &normals, &mirrored, &[[0, 1, 2], [0, 2, 3]]);
    for t in t {
        assert!((t.truncate() + Vec3::X).length() < 1e-5, "{t}");
        assert!((Vec3::Z.cross(t.truncate()) * t.w - Vec3::Y).length() < 1e-5);
    }
}

/// A COLOR_0 of normalised bytes (VEC4) and a TEXCOORD_1 are kept per vertex.
#[test]
fn vertex_colours_and_second_texcoords_are_kept() {
    let mut bin = f32_bytes(&ONE_TRIANGLE);
    bin.extend(f32_bytes(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0]));
    bin.extend([255u8, 0, 51, 255, 0, 255, 0, 128, 0, 0, 255, 0]);
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_1":1,"TEXCOORD_0":1,"COLOR_0":2}}}}]}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
          {{"bufferView":0,"byteOffset":36,"componentType":5126,"count":3,"type":"VEC2"}},
          {{"bufferView":0,"byteOffset":60,"componentType":5121,"normalized":true,"count":3,"type":"VEC4"}}],
        "buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
        n = bin.len(),
        b = base64(&bin)
    );
    let f = write_temp(json.as_bytes());
    let m = load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"));
    let g = &m.geometries[0];
    assert_eq!(g.more_uvs.len(), 1);
    assert_eq!(g.more_uvs[0], g.uvs);
    assert_eq!(g.colors[0], Vec4::new(1.0, 0.0, 0.2, 1.0));
    assert!((g.colors[1].w - 128.0 / 255.0).abs() < 1e-6);
    assert!(g.tangents.is_empty());
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

/// Khronos' AlphaBlendModeTest (the project's copy): four cut-out materials reading one
/// PNG, decoded once; the JPEG textures of its opaque materials are never decoded.
#[test]
fn alpha_blend_mode_test_reads_its_cutouts() {
    let file = data("AlphaBlendModeTest/AlphaBlendModeTest.glb");
    let m = load_gltf(&file, None).unwrap_or_else(|e| panic!("{e}"));
    let mut got: Vec<(&str, bool, f32)> = m
        .coverages
        .iter()
        .map(|c| (c.material.as_str(), c.blend, c.file_cutoff))
        .collect();
    got.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(
        got,
        [
            ("MatBlend", true, 0.5),
            ("MatCutoff25", false, 0.25),
            ("MatCutoff75", false, 0.75),
            ("MatCutoffDefault", false, 0.5)
        ]
    );
    let t = m.coverages[0].texture.as_ref().expect("the PNG has alpha");
    assert!(m
        .coverages
        .iter()
        .all(|c| c.texture.as_ref().is_some_and(|u| Arc::ptr_eq(t, u))));
    let (lo, hi) = (t.alpha.iter().min().unwrap(), t.alpha.iter().max().unwrap());
    assert!(*lo < 64 && *hi > 192, "alpha range {lo}..{hi}");
}

/// Every model of the project's copy (`tests/data/gltf`) loads with the invariants held,
/// or is refused for a required extension, and the refused set is exactly the two models
/// that require one the loader does not implement.
#[test]
fn every_project_model_loads_or_is_refused_with_a_reason() {
    let root = data("");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("gltf") | Some("glb")
            ) {
                files.push(p);
            }
        }
    }
    files.sort();
    assert_eq!(files.len(), 27, "models found: {files:?}");
    // Triangles placed by the default scene, counted by an independent Python walk of the
    // JSON (indices/3 for TRIANGLES, n-2 for strips and fans, once per node reaching a
    // mesh); MetalRoughSpheres matches the asset README.
    let placed: HashMap<&str, usize> = [
        ("NegativeScaleTest/NegativeScaleTest.glb", 7724),
        ("TextureTransformTest/glTF/TextureTransformTest.gltf", 24),
        ("OrientationTest/OrientationTest.glb", 524),
        (
            "MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb",
            1_040_409,
        ),
        ("Box/Box.glb", 12),
    ]
    .into_iter()
    .collect();
    let mut refused = Vec::new();
    let mut loaded = 0;
    for file in &files {
        let name = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        match load_gltf(file, None) {
            Ok(m) => {
                check_invariants(&m);
                assert!(!m.parts.is_empty(), "{name}: no parts");
                if let Some(&n) = placed.get(name.as_str()) {
                    assert_eq!(m.placed_triangles(), n, "{name}");
                }
                loaded += 1;
                eprintln!(
                    "{name}: ok, {} geometries, {} parts, {} stored / {} placed triangles, \
                     {} warnings{}",
                    m.geometries.len(),
                    m.parts.len(),
                    m.stored_triangles(),
                    m.placed_triangles(),
                    m.warnings.len(),
                    m.warnings
                        .first()
                        .map_or(String::new(), |w| format!(" (first: {w})"))
                );
            }
            Err(e) => {
                eprintln!("{name}: refused: {}", e.message);
                assert!(
                    e.message.contains("requires the glTF extension"),
                    "{name}: unexpected refusal: {e}"
                );
                refused.push(name);
            }
        }
    }
    // IridescenceSuzanne, which requires KHR_materials_iridescence, was refused before the
    // film was drawn on glTF materials.
    assert!(refused.is_empty(), "{refused:?}");
    assert_eq!(loaded, files.len());
}

/// Two loads of one file, held at once (two meshes naming it), share each decoded image and
/// its pyramids through the process's texture cache.
#[test]
fn an_image_met_again_in_another_load_is_not_decoded_again() {
    let file = data("TwoSidedPlane/glTF/TwoSidedPlane.gltf");
    let a = load_gltf(&file, None).unwrap_or_else(|e| panic!("{e}"));
    let b = load_gltf(&file, None).unwrap_or_else(|e| panic!("{e}"));
    let image = |m: &MeshAsset| {
        m.materials[0]
            .base_color_texture
            .as_ref()
            .expect("a base colour texture")
            .image
            .clone()
    };
    assert!(Arc::ptr_eq(&image(&a), &image(&b)));
    let normal = |m: &MeshAsset| {
        m.materials[0]
            .normal_texture
            .as_ref()
            .unwrap()
            .texture
            .image
            .clone()
    };
    assert!(Arc::ptr_eq(&normal(&a), &normal(&b)));
    assert!(!Arc::ptr_eq(&image(&a), &normal(&a)));
}

/// KHR_materials_iridescence as read.
mod iridescence;

/// The other KHR_materials extensions as read.
mod extensions;

/// Files the loader refuses.
mod malformed;
