//! Malformed, truncated and corrupt glTF files are refused with a reason, never a panic.

use super::*;

/// Each case is a complete .gltf that must be refused, with a word the message must hold.
#[test]
fn malformed_gltf_json_is_refused() {
    let tri = f32_bytes(&ONE_TRIANGLE);
    let mesh = r#""meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}]"#;
    let cases: Vec<(String, &str)> = vec![
        // Index 7 of a 3-vertex primitive.
        (
            {
                let mut bin = tri.clone();
                bin.extend([0u16, 1, 7, 0].iter().flat_map(|v| v.to_le_bytes()));
                gltf_with(
                    &bin,
                    r#""accessors":[{"bufferView":0,"componentType":5126,"count":3,
                      "type":"VEC3","min":[0,0,0],"max":[1,1,0]},
                     {"bufferView":0,"byteOffset":36,"componentType":5123,"count":3,
                      "type":"SCALAR"}],
                    "meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
                    "nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]"#,
                )
            },
            "index 7",
        ),
        // An accessor claiming more elements than its view holds.
        (
            gltf_with(
                &tri,
                &format!(
                    r#""accessors":[{{"bufferView":0,"componentType":5126,
                      "count":1000000,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
                    {mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                ),
            ),
            "overrun",
        ),
        // Zero elements (the crate's reader would underflow count - 1).
        (
            gltf_with(
                &tri,
                &format!(
                    r#""accessors":[{{"bufferView":0,"componentType":5126,"count":0,
                      "type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
                    {mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                ),
            ),
            "no triangles",
        ),
        // POSITION pointing past the accessor array (the crate's validation indexes it).
        (
            gltf_with(
                &tri,
                &format!(
                    r#"{TRIANGLE_ACCESSOR},
                    "meshes":[{{"primitives":[{{"attributes":{{"POSITION":5}}}}]}}],
                    "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                ),
            ),
            "accessor 5",
        ),
        // A cycle in the node graph.
        (
            gltf_with(
                &tri,
                &format!(
                    r#"{TRIANGLE_ACCESSOR},{mesh},
                    "nodes":[{{"name":"a","children":[1]}},{{"name":"b","children":[0],"mesh":0}}],
                    "scenes":[{{"nodes":[0]}}]"#
                ),
            ),
            "reached twice",
        ),
        // A translation that overflows f32, and a zero quaternion.
        (
            gltf_with(
                &tri,
                &format!(
                    r#"{TRIANGLE_ACCESSOR},{mesh},
                    "nodes":[{{"translation":[1e39,0,0],"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                ),
            ),
            "non-finite",
        ),
        (
            gltf_with(
                &tri,
                &format!(
                    r#"{TRIANGLE_ACCESSOR},{mesh},
                    "nodes":[{{"rotation":[0,0,0,0],"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                ),
            ),
            "quaternion",
        ),
        // A byteStride smaller than the element, and a view outside its buffer.
        (
            gltf_with(&tri, &format!(r#"{TRIANGLE_ACCESSOR},{mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#))
                .replacen(r#""byteLength":36}"#, r#""byteLength":36,"byteStride":4}"#, 1),
            "byteStride 4",
        ),
        (
            gltf_with(&tri, &format!(r#"{TRIANGLE_ACCESSOR},{mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#))
                .replacen(r#""buffer":0,"byteLength":36"#, r#""buffer":0,"byteOffset":40,"byteLength":36"#, 1),
            "outside buffer",
        ),
        // Missing external buffer, unsupported scheme, bad escape.
        (
            format!(
                r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":36,"uri":"nope.bin"}}],
                "bufferViews":[{{"buffer":0,"byteLength":36}}],{TRIANGLE_ACCESSOR},{mesh},
                "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#
            ),
            "nope.bin",
        ),
        (
            format!(
                r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":36,"uri":"http://x/y.bin"}}],
                "bufferViews":[{{"buffer":0,"byteLength":36}}],{TRIANGLE_ACCESSOR},{mesh},
                "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#
            ),
            "scheme",
        ),
        (
            format!(
                r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":36,"uri":"a%FFb.bin"}}],
                "bufferViews":[{{"buffer":0,"byteLength":36}}],{TRIANGLE_ACCESSOR},{mesh},
                "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#
            ),
            "malformed URI",
        ),
        // A buffer shorter than its byteLength; glTF 1.0; not JSON at all.
        (
            gltf_with(&tri, &format!(r#"{TRIANGLE_ACCESSOR},{mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#))
                .replacen(r#""byteLength":36,"uri""#, r#""byteLength":80,"uri""#, 1),
            "fewer than its byteLength",
        ),
        (
            r#"{"asset":{"version":"1.0"}}"#.to_string(),
            "version 1.0",
        ),
        ("solid cube\nendsolid".to_string(), "not a glTF JSON"),
    ];
    for (i, (json, word)) in cases.iter().enumerate() {
        let f = write_temp(json.as_bytes());
        match load_gltf(f.path(), None) {
            Ok(_) => panic!("case {i} ({word}) accepted"),
            Err(e) => assert!(e.message.contains(word), "case {i}: {e}"),
        }
    }
}

#[test]
fn truncated_or_corrupt_glb_never_panics() {
    let good = std::fs::read(data("Box/Box.glb")).expect("read");
    // Every truncation is an error.
    for cut in 0..good.len() {
        let f = write_temp(&good[..cut]);
        assert!(load_gltf(f.path(), None).is_err(), "cut at {cut} accepted");
    }
    // Header and chunk lengths that lie.
    let mut bad = good.clone();
    bad[8..12].copy_from_slice(&5u32.to_le_bytes());
    let e = load_gltf(write_temp(&bad).path(), None).expect_err("refused");
    assert!(e.message.contains("below 12"), "{e}");
    assert_eq!(e.kind, AssetErrorKind::GltfInvalid);
    let mut bad = good.clone();
    bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = load_gltf(write_temp(&bad).path(), None).expect_err("refused");
    assert!(e.message.contains("truncated GLB"), "{e}");
    // Deterministic byte corruption anywhere: any answer but a panic is fine.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..600 {
        let mut bytes = good.clone();
        for _ in 0..(1 + next() % 4) {
            let at = (next() % bytes.len() as u64) as usize;
            bytes[at] = next() as u8;
        }
        let _ = load_gltf(write_temp(&bytes).path(), None);
    }
}
