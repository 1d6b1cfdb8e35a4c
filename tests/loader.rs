//! The loader's own diagnostics (docs/loader.md): assets the spec's checker accepts as paths
//! but that will not load are refused by `bake SCENE` with exit 1, a code of the loader's own,
//! located at the key that names the asset, and nothing written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A project in a temporary folder: the Cornell box floor as `meshes/floor.glb`, the given
/// extra files, and the scene text as `t.scene.toml`.
fn project(scene_text: &str, extra: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("meshes")).expect("mkdir");
    std::fs::copy(
        repo().join("scenes/cornell/meshes/floor.glb"),
        dir.path().join("meshes/floor.glb"),
    )
    .expect("copy floor.glb");
    std::fs::write(
        dir.path().join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .expect("write project.toml");
    for (name, bytes) in extra {
        std::fs::write(dir.path().join(name), bytes).expect("write extra file");
    }
    std::fs::write(dir.path().join("t.scene.toml"), scene_text).expect("write scene");
    dir
}

/// Runs `bake SCENE --json` into `<project>/out` and returns the output.
fn bake(dir: &Path) -> Output {
    let out = dir.join("out");
    Command::new(env!("CARGO_BIN_EXE_bake"))
        .args([
            dir.join("t.scene.toml").to_str().expect("utf-8 path"),
            "--out",
            out.to_str().expect("utf-8 path"),
            "--size",
            "8x8",
            "--spp",
            "1",
            "--json",
        ])
        .output()
        .expect("bake runs")
}

/// The 1-based line of the first line of `text` that starts with `start`.
fn line_of(text: &str, start: &str) -> u64 {
    text.lines()
        .position(|l| l.starts_with(start))
        .expect("line present") as u64
        + 1
}

/// Asserts a refused bake: exit 1, exactly one diagnostic with `code` and `key` in
/// `t.scene.toml` at (`line`, 1) spanning the key's name, and no output folder.
fn assert_refused(dir: &Path, o: &Output, code: &str, key: &str, line: u64, key_chars: u64) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("--json prints JSON");
    assert_eq!(v["ok"], false);
    assert_eq!(v["exit"], 1);
    let ds = v["diagnostics"].as_array().expect("diagnostics list");
    assert_eq!(ds.len(), 1, "{ds:#?}");
    let d = &ds[0];
    assert_eq!(d["code"], code, "{d:#}");
    assert_eq!(d["key"], key, "{d:#}");
    assert_eq!(d["file"], "t.scene.toml", "{d:#}");
    assert_eq!(d["severity"], "error", "{d:#}");
    assert_eq!(d["line"], line, "{d:#}");
    assert_eq!(d["column"], 1, "{d:#}");
    assert_eq!(d["end_line"], line, "{d:#}");
    assert_eq!(d["end_column"], 1 + key_chars, "{d:#}");
    // The human form carries the code too.
    assert!(stderr.contains(code), "{stderr}");
    assert!(!dir.join("out").exists(), "a refused bake wrote its output");
}

const HEAD: &str = "format = 1\n\n[mesh.floor]\nid = \"c92frwa2fx\"\n";
const TAIL: &str = "\n[[object]]\nid = \"fdjavdz6xh\"\nname = \"floor\"\nmesh = \"floor\"\n\n\
                    [[light]]\nid = \"ymd945rcwk\"\nname = \"key\"\nposition = [0.3, 0.4, 0.3]\nintensity = 0.2\n";

#[test]
fn a_node_not_in_the_file_is_gltf_node_at_the_node_key() {
    let text = format!("{HEAD}file = \"meshes/floor.glb\"\nnode = \"no such node\"\n{TAIL}");
    let p = project(&text, &[]);
    let o = bake(p.path());
    assert_refused(
        p.path(),
        &o,
        "gltf-node",
        "mesh.floor.node",
        line_of(&text, "node ="),
        4,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let m = v["diagnostics"][0]["message"].as_str().expect("message");
    assert!(m.contains("'no such node' is not in the file"), "{m}");
}

#[test]
fn an_unsupported_required_extension_is_gltf_extension_at_the_file_key() {
    // The Box with KHR_draco_mesh_compression required (IridescenceSuzanne, which requires
    // KHR_materials_iridescence, was this test's file until the film was drawn).
    let glb = std::fs::read(repo().join("tests/data/gltf/Box/Box.glb")).expect("read");
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let json = std::str::from_utf8(&glb[20..20 + json_len]).expect("JSON chunk");
    let mut json = json.replacen(
        '{',
        r#"{"extensionsRequired":["KHR_draco_mesh_compression"],"#,
        1,
    );
    while json.len() % 4 != 0 {
        json.push(' ');
    }
    let rest = &glb[20 + json_len..];
    let mut patched = Vec::new();
    patched.extend_from_slice(&glb[0..8]);
    patched.extend_from_slice(&((20 + json.len() + rest.len()) as u32).to_le_bytes());
    patched.extend_from_slice(&(json.len() as u32).to_le_bytes());
    patched.extend_from_slice(&glb[16..20]);
    patched.extend_from_slice(json.as_bytes());
    patched.extend_from_slice(rest);
    let text = format!("{HEAD}file = \"meshes/box.glb\"\n{TAIL}");
    let p = project(&text, &[("meshes/box.glb", &patched)]);
    let o = bake(p.path());
    assert_refused(
        p.path(),
        &o,
        "gltf-extension",
        "mesh.floor.file",
        line_of(&text, "file ="),
        4,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let m = v["diagnostics"][0]["message"].as_str().expect("message");
    assert!(m.contains("KHR_draco_mesh_compression"), "{m}");
}

#[test]
fn a_corrupt_glb_is_gltf_invalid_at_the_file_key() {
    let mut glb = std::fs::read(repo().join("scenes/cornell/meshes/floor.glb")).expect("read");
    // The header's total length below the 12-byte header itself.
    glb[8..12].copy_from_slice(&5u32.to_le_bytes());
    let text = format!("{HEAD}file = \"meshes/bad.glb\"\n{TAIL}");
    let p = project(&text, &[("meshes/bad.glb", &glb)]);
    let o = bake(p.path());
    assert_refused(
        p.path(),
        &o,
        "gltf-invalid",
        "mesh.floor.file",
        line_of(&text, "file ="),
        4,
    );
}

#[test]
fn an_undecodable_sky_is_hdr_invalid_at_the_path_key() {
    let text = format!(
        "{HEAD}file = \"meshes/floor.glb\"\n{TAIL}\n[sky]\nkind = \"hdr\"\npath = \"sky.hdr\"\n"
    );
    let p = project(&text, &[("sky.hdr", b"this is not a Radiance file\n")]);
    let o = bake(p.path());
    assert_refused(
        p.path(),
        &o,
        "hdr-invalid",
        "sky.path",
        line_of(&text, "path ="),
        4,
    );
}

#[test]
fn mesh_and_sky_failures_are_reported_together() {
    let text = format!(
        "{HEAD}file = \"meshes/floor.glb\"\nnode = \"absent\"\n{TAIL}\n[sky]\nkind = \"hdr\"\n\
         path = \"sky.hdr\"\n"
    );
    let p = project(&text, &[("sky.hdr", b"#?RADIANCE\nnothing else\n")]);
    let o = bake(p.path());
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let found: Vec<(&str, &str, u64)> = v["diagnostics"]
        .as_array()
        .expect("diagnostics list")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().expect("code"),
                d["key"].as_str().expect("key"),
                d["line"].as_u64().expect("line"),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("gltf-node", "mesh.floor.node", line_of(&text, "node =")),
            ("hdr-invalid", "sky.path", line_of(&text, "path =")),
        ]
    );
    assert!(!p.path().join("out").exists());
}

#[test]
fn a_placed_prefabs_broken_mesh_is_reported_in_the_prefab_file() {
    let prefab = "format = 1\n\n[mesh.shade]\nid = \"shademesh1\"\nfile = \"meshes/floor.glb\"\n\
                  node = \"missing\"\n\n[[object]]\nid = \"shade00001\"\nname = \"shade\"\n\
                  mesh = \"shade\"\n";
    let text = format!(
        "{HEAD}file = \"meshes/floor.glb\"\n{TAIL}\n[[object]]\nid = \"q8w2e6r4ty\"\n\
         name = \"lamp\"\nprefab = \"lamp.prefab.toml\"\n\n[[object]]\nid = \"r8ght0amp0\"\n\
         name = \"lamp 2\"\nprefab = \"lamp.prefab.toml\"\nat = [1.0, 0.0, 0.0]\n"
    );
    let p = project(&text, &[("lamp.prefab.toml", prefab.as_bytes())]);
    let o = bake(p.path());
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let ds = v["diagnostics"].as_array().expect("diagnostics list");
    // Two placements of one broken (file, node): one diagnostic, where the key is written.
    assert_eq!(ds.len(), 1, "{ds:#?}");
    let d = &ds[0];
    assert_eq!(d["code"], "gltf-node", "{d:#}");
    assert_eq!(d["file"], "lamp.prefab.toml", "{d:#}");
    assert_eq!(d["key"], "mesh.shade.node", "{d:#}");
    assert_eq!(d["line"], line_of(prefab, "node ="), "{d:#}");
    assert_eq!(d["column"], 1, "{d:#}");
    assert!(!p.path().join("out").exists());
}
