//! Every glTF model of the project's copy of the Khronos sample models (`tests/data/gltf`, with
//! their licences; a subset of the shared assets chosen small) through a whole bake: a tiny project per model in a temporary folder (the model's
//! folder copied in, a scene placing it, framed by a camera and lit by a sun and a point light
//! at the camera), baked at 32×32 and 1 sample per pixel. Each model either bakes, with finite
//! pixels of which some are lit (the model is seen), or is refused with the loader's
//! diagnostic naming the reason; the set of refused models and their reasons is asserted
//! exactly.
//!
//! The models are part of the repository, so the test runs on every machine; nothing here reads
//! the shared folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use glam::Vec3;
use pfx_bake::assets::SUPPORTED_REQUIRED_EXTENSIONS;
use pfx_bake::bake::{bake, BakeError, BakeOptions};
use pfx_bake::integrator::{NoProgress, Settings};
use pfx_bake::plates::{read_exr_rgb, BEAUTY_FILE};

fn project_gltf() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gltf")
}

/// Every `.gltf` and `.glb` under `root`, sorted.
fn model_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
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
    files
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let p = entry.path();
        let dst = to.join(entry.file_name());
        if p.is_dir() {
            copy_dir(&p, &dst);
        } else {
            std::fs::copy(&p, &dst).unwrap();
        }
    }
}

/// World bounds of a model as the loader places its parts, or `None` when it is refused.
fn model_bounds(file: &Path) -> Option<(Vec3, Vec3)> {
    let m = pfx_bake::assets::load_gltf(file, None).ok()?;
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for part in &m.parts {
        for p in &m.geometries[part.geometry].positions {
            let w = part.transform.transform_point3(*p);
            lo = lo.min(w);
            hi = hi.max(w);
        }
    }
    Some((lo, hi))
}

/// The scene text placing `mesh_file` (root-relative), seen from the front-right-above at a
/// distance that frames a bounding sphere of `centre` and `radius`.
fn scene_text(mesh_file: &str, centre: Vec3, radius: f32) -> String {
    let dir = Vec3::new(0.4, 0.5, 1.0).normalize();
    // A 40° field of view holds the sphere at 3 radii from its centre.
    let dist = 3.0 * radius;
    let at = centre + dir * dist;
    let f = |v: Vec3| format!("[{:?}, {:?}, {:?}]", v.x, v.y, v.z);
    format!(
        "format = 1\n\n[camera]\nat = {}\nlook_at = {}\nfov = 40.0\nnear = {:?}\nfar = {:?}\n\n\
         [sun]\nmodel = \"authored\"\ntoward = [0.3, 1.0, 0.5]\nirradiance = 2.0\n\n\
         [[light]]\nname = \"flash\"\nposition = {}\nintensity = {:?}\n\n\
         [mesh.model]\nfile = \"{mesh_file}\"\n\n[[object]]\nname = \"model\"\nmesh = \"model\"\n",
        f(at),
        f(centre),
        radius * 1e-3,
        dist + 4.0 * radius,
        f(at),
        dist * dist,
    )
}

/// What a model came to: baked, or refused with (code, message).
#[derive(Debug)]
enum Outcome {
    Baked,
    Refused(&'static str, String),
}

fn bake_model(root: &Path, file: &Path) -> Outcome {
    let rel = file.strip_prefix(root).unwrap();
    let folder = rel.components().next().unwrap().as_os_str();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("project.toml"),
        "format = 1\n\n[project]\nname = \"gltf model\"\n",
    )
    .unwrap();
    copy_dir(&root.join(folder), &p.join("models").join(folder));
    let mesh_file = Path::new("models")
        .join(rel)
        .to_string_lossy()
        .replace('\\', "/");
    let (centre, radius) = match model_bounds(file) {
        Some((lo, hi)) => ((lo + hi) * 0.5, (0.5 * (hi - lo).length()).max(1e-3)),
        None => (Vec3::ZERO, 1.0),
    };
    let scene = p.join("model.scene.toml");
    let text = scene_text(&mesh_file, centre, radius);
    std::fs::write(&scene, &text).unwrap();
    let options = BakeOptions {
        scene: scene.clone(),
        out: Some(p.join("plates")),
        size: [32, 32],
        settings: Settings {
            spp: 1,
            ..Settings::default()
        },
        plan: Default::default(),
        threads: Some(1),
        denoise: false,
        guiding: false,
    };
    let name = rel.display();
    match bake(&options, &NoProgress) {
        Ok(report) => {
            assert_eq!(report.dropped_samples, 0, "{name}: samples dropped");
            let (w, h, rgb) = read_exr_rgb(&p.join("plates").join(BEAUTY_FILE)).unwrap();
            assert_eq!((w, h), (32, 32), "{name}");
            assert!(
                rgb.iter().flatten().all(|v| v.is_finite() && *v >= 0.0),
                "{name}: a pixel is not finite and non-negative"
            );
            let lit = rgb.iter().filter(|c| c.iter().any(|&v| v > 0.0)).count();
            assert!(lit > 0, "{name}: nothing of the model is seen lit");
            eprintln!("{name}: baked, {lit} of 1024 pixels lit");
            Outcome::Baked
        }
        Err(BakeError::Input(diags)) => {
            assert_eq!(diags.len(), 1, "{name}: {diags:?}");
            let d = &diags[0];
            // The finding sits at the `file` key of the scene's [mesh.model].
            let line = text.lines().position(|l| l.starts_with("file = ")).unwrap() as u32 + 1;
            assert_eq!(
                (d.file.as_path(), d.line, d.key.as_str()),
                (Path::new("model.scene.toml"), line, "mesh.model.file"),
                "{name}: {d:?}"
            );
            eprintln!("{name}: refused: {} {}", d.code, d.message);
            Outcome::Refused(d.code, d.message.clone())
        }
        Err(e) => panic!("{name}: bake failed: {e}"),
    }
}

#[test]
fn every_project_model_bakes_or_is_refused_by_name() {
    let root = project_gltf();
    let files = model_files(&root);
    assert_eq!(files.len(), 27, "models found: {files:?}");
    let mut refused: BTreeMap<String, (&'static str, String)> = BTreeMap::new();
    let mut baked = 0;
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        match bake_model(&root, file) {
            Outcome::Baked => baked += 1,
            Outcome::Refused(code, message) => {
                refused.insert(rel, (code, message));
            }
        }
    }
    // The refusals: each model requires an extension the loader does not implement
    // (docs/assets.md, Extensions), and its diagnostic names it.
    // None now: IridescenceSuzanne, which requires KHR_materials_iridescence, bakes since the
    // film is drawn on glTF materials.
    let expected: [(&str, &str); 0] = [];
    assert_eq!(
        refused.keys().map(String::as_str).collect::<Vec<_>>(),
        expected.iter().map(|(f, _)| *f).collect::<Vec<_>>(),
        "the refused models"
    );
    for (file, extension) in expected {
        let (code, message) = &refused[file];
        assert_eq!(*code, "gltf-extension", "{file}");
        assert_eq!(
            *message,
            format!(
                "cannot load models/{file}: the file requires the glTF extension {extension}, \
                 which pfx-bake does not support (supported required extensions: {})",
                SUPPORTED_REQUIRED_EXTENSIONS.join(", ")
            ),
            "{file}"
        );
    }
    assert_eq!(baked + refused.len(), files.len());
}
