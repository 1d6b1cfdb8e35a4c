//! Instancing at scale, through the whole reader → world → accel pipeline: a mesh placed many
//! times — by glTF nodes sharing a mesh, by prefab placements, by the cells of a tile layer —
//! keeps one copy of its triangles, and each placement costs a transform, not a mesh.
//!
//! "Stored" triangles are the accel's meshes as given ([`Accel::meshes`]); "placed" ones are
//! each instance's mesh counted once per instance. A mesh placed exactly once is flattened into
//! world space by the accel (docs/accel.md) and gets no tree of its own, so
//! [`Accel::tree_triangles`] counts every stored triangle exactly once.

use std::path::{Path, PathBuf};

use glam::Vec3;
use pfx_bake::accel::Accel;
use pfx_bake::geometry::Ray;
use pfx_bake::scene;
use pfx_bake::world::{mask, World};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A Khronos sample model of `tests/data/gltf/`, copied into `dir` under `to`.
fn copy_model(dir: &Path, from: &str, to: &str) {
    let dst = dir.join(to);
    std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
    std::fs::copy(repo().join("tests/data/gltf").join(from), dst).unwrap();
}

/// Writes `project.toml` and the given files into a fresh temporary project.
fn project(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("project.toml"),
        "format = 1\n\n[project]\nname = \"instancing\"\n",
    )
    .unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn build(scene_file: &Path) -> World {
    let scene = scene::load(scene_file).unwrap_or_else(|d| panic!("scene loads: {d:?}"));
    World::build(&scene, [32, 32]).unwrap_or_else(|e| panic!("world builds: {:?}", e.0))
}

/// Triangles of the accel's meshes as given: each distinct geometry once.
fn stored(accel: &Accel) -> usize {
    accel.meshes().iter().map(|m| m.indices.len()).sum()
}

/// Triangles placed: each instance's mesh once per instance.
fn placed(accel: &Accel) -> usize {
    accel
        .instances()
        .iter()
        .map(|i| accel.meshes()[i.mesh as usize].indices.len())
        .sum()
}

/// Triangles of the meshes exactly one instance places: those the accel flattens.
fn single_use(accel: &Accel) -> usize {
    let mut uses = vec![0usize; accel.meshes().len()];
    for i in accel.instances() {
        uses[i.mesh as usize] += 1;
    }
    accel
        .meshes()
        .iter()
        .zip(&uses)
        .filter(|(_, &u)| u == 1)
        .map(|(m, _)| m.indices.len())
        .sum()
}

const SCENE_HEAD: &str = "format = 1\n\n[camera]\nat = [0.0, 0.0, 5.0]\nlook_at = [0.0, 0.0, 0.0]\n\n[sun]\nmodel = \"authored\"\ntoward = [0.3, 1.0, 0.5]\nirradiance = 2.0\n";

/// MetalRoughSpheresNoTextures: 98 glTF meshes, each one primitive on the same sphere
/// accessors (10,600 triangles) with its own material, plus 25 label pieces. Placed by one
/// object, the world stores 12,209 triangles (docs/assets.md) and places 1,040,409.
#[test]
fn gltf_meshes_sharing_accessors_are_stored_once() {
    let scene = format!(
        "{SCENE_HEAD}\n[mesh.spheres]\nfile = \"meshes/spheres.glb\"\n\n[[object]]\nname = \"spheres\"\nmesh = \"spheres\"\n"
    );
    let dir = project(&[("t.scene.toml", scene)]);
    copy_model(
        dir.path(),
        "MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb",
        "meshes/spheres.glb",
    );
    let world = build(&dir.path().join("t.scene.toml"));
    let accel = &world.trace.accel;

    assert_eq!(accel.meshes().len(), 26, "the sphere and 25 label pieces");
    assert_eq!(stored(accel), 12_209);
    assert_eq!(accel.instances().len(), 123);
    assert_eq!(placed(accel), 1_040_409);
    assert_eq!(world.objects[0].triangles, 1_040_409);

    // The sphere: one mesh of 10,600 triangles, placed by 98 instances.
    let sphere = accel
        .meshes()
        .iter()
        .position(|m| m.indices.len() == 10_600)
        .expect("the sphere mesh") as u32;
    let sphere_instances: Vec<_> = accel
        .instances()
        .iter()
        .enumerate()
        .filter(|(_, i)| i.mesh == sphere)
        .collect();
    assert_eq!(sphere_instances.len(), 98);
    assert_eq!(
        accel
            .meshes()
            .iter()
            .filter(|m| m.indices.len() == 10_600)
            .count(),
        1,
        "one copy of the sphere"
    );

    // Tree storage: the sphere once, the labels (each placed once, so flattened) at most twice
    // (as given and flattened); nowhere near the placed count.
    let labels = single_use(accel);
    assert_eq!(labels, 12_209 - 10_600);
    let tree = accel.tree_triangles();
    assert_eq!(tree, 12_209, "{tree} triangles in the trees");
    let bytes = accel.memory_bytes();
    assert!(
        bytes < 100 * (12_209 + labels) + 512 * 123,
        "{bytes} bytes for {tree} stored triangles"
    );

    // Each sphere instance is really traced: a ray from an instance's centre (the spheres do
    // not touch) first meets that instance's own sphere, from inside, one radius away.
    let radius = accel.meshes()[sphere as usize]
        .positions
        .iter()
        .map(|p| p.length())
        .fold(0.0f32, f32::max);
    for &(k, inst) in &sphere_instances {
        let centre = inst.world_from_object.transform_point3(Vec3::ZERO);
        let scale = inst.world_from_object.transform_vector3(Vec3::Y).length();
        let hit = accel
            .closest_hit(&Ray::new(centre, Vec3::Y), mask::DRAWN)
            .unwrap_or_else(|| panic!("instance {k} missed"));
        assert_eq!(hit.instance as usize, k, "instance {k} hit");
        let expected = radius * scale;
        assert!(
            (hit.t - expected).abs() < 1e-3 * expected,
            "instance {k}: t {} against {expected}",
            hit.t
        );
    }
}

/// glTF nodes sharing a mesh inside one file: SimpleMeshes places one triangle mesh by two
/// nodes; SimpleInstancing places one box 125 times through EXT_mesh_gpu_instancing. Each is one
/// accel mesh, instanced (not flattened), with one instance per placement.
#[test]
fn gltf_nodes_sharing_a_mesh_are_stored_once() {
    let scene = format!(
        "{SCENE_HEAD}\n[mesh.two]\nfile = \"meshes/SimpleMeshes.gltf\"\n\n[mesh.many]\nfile = \"meshes/SimpleInstancing.glb\"\n\n\
         [[object]]\nname = \"two\"\nmesh = \"two\"\n\n[[object]]\nname = \"many\"\nmesh = \"many\"\nat = [0.0, 0.0, -20.0]\n"
    );
    let dir = project(&[("t.scene.toml", scene)]);
    copy_model(
        dir.path(),
        "SimpleMeshes/glTF/SimpleMeshes.gltf",
        "meshes/SimpleMeshes.gltf",
    );
    copy_model(
        dir.path(),
        "SimpleMeshes/glTF/triangle.bin",
        "meshes/triangle.bin",
    );
    copy_model(
        dir.path(),
        "SimpleInstancing/SimpleInstancing.glb",
        "meshes/SimpleInstancing.glb",
    );
    let world = build(&dir.path().join("t.scene.toml"));
    let accel = &world.trace.accel;
    assert_eq!(accel.meshes().len(), 2);
    assert_eq!(accel.instances().len(), 2 + 125);
    let per_mesh = |m: u32| accel.instances().iter().filter(|i| i.mesh == m).count();
    let counts = [per_mesh(0), per_mesh(1)];
    assert_eq!(counts, [2, 125]);
    assert_eq!(accel.meshes()[0].indices.len(), 1, "SimpleMeshes' triangle");
    let boxes = accel.meshes()[1].indices.len();
    assert_eq!(world.objects[0].triangles, 2);
    assert_eq!(world.objects[1].triangles, 125 * boxes);
    // Both meshes are shared, so no mesh is used once; but both are small (1 and 12
    // triangles), so their placements together stay within the bake's flattening budget and
    // the trees hold world-space copies (docs/accel.md, "Small meshes placed a few times"),
    // while the accel's meshes keep one object-space copy each.
    assert_eq!(single_use(accel), 0);
    assert!(2 + 125 * boxes <= pfx_bake::accel::FLATTEN_TRIANGLES);
    assert!((0..accel.instances().len() as u32).all(|i| accel.is_flattened(i)));
    assert_eq!(accel.tree_triangles(), 2 + 125 * boxes);
    // The two triangle instances are distinct placements (SimpleMeshes moves the second by
    // one unit along +X).
    let at: Vec<Vec3> = accel
        .instances()
        .iter()
        .filter(|i| i.mesh == 0)
        .map(|i| i.world_from_object.transform_point3(Vec3::ZERO))
        .collect();
    assert_eq!(at[1] - at[0], Vec3::X);
}

/// The cells of a 100×100 tile layer and 64 prefab placements, all placing one prefab of one
/// 10,600-triangle sphere: one mesh is stored, one instance per cell and placement, each at
/// the position the spec gives, and the memory per instance is a transform's, not a mesh's.
#[test]
fn tile_layer_and_prefab_placements_store_one_mesh() {
    let (dir, scene_file) = tile_project(100, 64);
    let world = build(&scene_file);
    let accel = &world.trace.accel;
    let cells = 100 * 100;

    assert_eq!(
        accel.meshes().len(),
        1,
        "one mesh for every cell and placement"
    );
    assert_eq!(stored(accel), 10_600);
    assert_eq!(accel.instances().len(), cells + 64);
    assert_eq!(placed(accel), (cells + 64) * 10_600);
    assert_eq!(accel.tree_triangles(), 10_600);
    assert_eq!(world.objects.len(), cells + 64);

    // Memory: the whole world against the same prefab placed twice; the difference is the
    // instances alone. A copy per instance would be ~700 kB each.
    let (_two_dir, two_file) = tile_project(1, 1);
    let two = build(&two_file);
    assert_eq!(two.trace.accel.instances().len(), 2);
    let per_instance =
        (accel.memory_bytes() - two.trace.accel.memory_bytes()) as f64 / (cells + 62) as f64;
    let mesh_bytes = two.trace.accel.memory_bytes() as f64;
    assert!(
        per_instance < 512.0,
        "{per_instance:.1} bytes per instance (the mesh alone is {mesh_bytes} bytes)"
    );

    // Cell [i, j] of an "xz" layer sits at origin + i·across·X − j·up·Z (spec, [[tiles]]).
    // Trace straight down at a few cells: each is hit on the top of its own sphere.
    let origin = Vec3::new(-50.0, 0.0, 10.0);
    let radius = 0.35;
    for (i, j) in [(0, 0), (99, 0), (0, 99), (99, 99), (37, 61)] {
        let centre = origin + Vec3::new(i as f32 * 1.0, 0.0, -(j as f32) * 1.0);
        let hit = accel
            .closest_hit(
                &Ray::new(centre + Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y),
                mask::DRAWN,
            )
            .unwrap_or_else(|| panic!("cell [{i}, {j}] missed"));
        let object = &world.objects[world.trace.instances[hit.instance as usize].object as usize];
        assert_eq!(object.key, format!("floor/{i},{j}/ball"), "cell [{i}, {j}]");
        assert!((hit.t - (10.0 - radius)).abs() < 1e-3, "t {}", hit.t);
        let xf = accel.instances()[hit.instance as usize].world_from_object;
        assert!((xf.transform_point3(Vec3::ZERO) - centre).length() < 1e-4);
    }
    // The placements sit in a row above the layer, 2 apart.
    for k in [0usize, 63] {
        let centre = Vec3::new(k as f32 * 2.0 - 60.0, 5.0, 0.0);
        let hit = accel
            .closest_hit(
                &Ray::new(centre + Vec3::new(0.0, 0.0, 10.0), Vec3::NEG_Z),
                mask::DRAWN,
            )
            .unwrap_or_else(|| panic!("placement {k} missed"));
        let object = &world.objects[world.trace.instances[hit.instance as usize].object as usize];
        assert_eq!(object.key, format!("p{k}/ball"));
    }
    drop(dir);
}

/// A project whose scene holds an `n`×`n` "xz" tile layer and `placements` placements of one
/// prefab: an object scaling MetalRoughSpheresNoTextures' first sphere node (radius 0.35 mm)
/// to 0.35 m.
fn tile_project(n: usize, placements: usize) -> (tempfile::TempDir, PathBuf) {
    let prefab = "format = 1\n\n[mesh.ball]\nfile = \"meshes/spheres.glb\"\nnode = \"m0%_r0%\"\n\n\
                  [[object]]\nname = \"ball\"\nmesh = \"ball\"\nscale = [1000.0, 1000.0, 1000.0]\n"
        .to_string();
    let mut scene = format!(
        "{SCENE_HEAD}\n[[tiles]]\nname = \"floor\"\ncell = 1.0\nplane = \"xz\"\norigin = [-50.0, 0.0, 10.0]\n\
         palette = {{ o = \"ball.prefab.toml\" }}\nrows = [\n"
    );
    for _ in 0..n {
        scene.push_str(&format!("  \"{}\",\n", "o".repeat(n)));
    }
    scene.push_str("]\n");
    for k in 0..placements {
        scene.push_str(&format!(
            "\n[[object]]\nname = \"p{k}\"\nprefab = \"ball.prefab.toml\"\nat = [{}, 5.0, 0.0]\n",
            k as f32 * 2.0 - 60.0
        ));
    }
    let dir = project(&[("t.scene.toml", scene), ("ball.prefab.toml", prefab)]);
    copy_model(
        dir.path(),
        "MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb",
        "meshes/spheres.glb",
    );
    let file = dir.path().join("t.scene.toml");
    (dir, file)
}
