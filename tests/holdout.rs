//! The `occluder` family in renders (issue 15): a holdout, seen through the integrator (an
//! integration test, since the world's own tests do not name later stages).

use glam::Vec3;
use pfx_bake::integrator;
use pfx_bake::scene;
use pfx_bake::world::World;

/// An `occluder` is a holdout: where the camera sees it the pixel is uncovered and black; it
/// still casts its shadow, and it lights nothing even with an emission.
#[test]
fn an_occluder_is_a_holdout() {
    let kit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    let dir = tempfile::tempdir().unwrap();
    for f in ["kit.glb", "project.toml"] {
        std::fs::copy(kit.join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(
        dir.path().join("h.materials.toml"),
        "format = 1\n[materials.hole]\nid = \"aaaaaaaa11\"\nfamily = \"occluder\"\n\
         emission = [5.0, 5.0, 5.0]\n[materials.white]\nid = \"aaaaaaaa12\"\nbase = [0.8, 0.8, 0.8]\n",
    )
    .unwrap();
    let file = dir.path().join("h.scene.toml");
    std::fs::write(
        &file,
        "format = 1\nmaterials = [\"h.materials.toml\"]\n\
         [mesh.floor]\nid = \"aaaaaaaa13\"\nfile = \"kit.glb\"\nnode = \"floor\"\n\
         [mesh.ball]\nid = \"aaaaaaaa14\"\nfile = \"kit.glb\"\nnode = \"ball\"\n\
         [[object]]\nid = \"aaaaaaaa15\"\nname = \"floor\"\nmesh = \"floor\"\nmaterial = \"white\"\n\
         [[object]]\nid = \"aaaaaaaa16\"\nname = \"ball\"\nmesh = \"ball\"\nmaterial = \"hole\"\n\
         [[light]]\nid = \"aaaaaaaa17\"\nname = \"l\"\nposition = [0.0, 3.0, 0.0]\nintensity = 10.0\n\
         [camera]\nat = [0.0, 0.25, 2.0]\nlook_at = [0.0, 0.25, 0.0]\nfov = 20.0\n",
    )
    .unwrap();
    let scene = scene::load(&file).unwrap_or_else(|d| panic!("{d:#?}"));
    let world = World::build(&scene, [16, 16]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let hole = world
        .trace
        .materials
        .iter()
        .find(|m| m.key == "hole")
        .unwrap();
    assert!(hole.holdout && hole.emission == Vec3::ZERO);
    let settings = integrator::Settings {
        spp: 4,
        ..Default::default()
    };
    let image = integrator::render(&world, &settings, &integrator::NoProgress);
    // The image's centre is the ball: uncovered and black.
    let c = 8 * 16 + 8;
    assert_eq!(image.coverage[c], 0.0);
    assert_eq!(image.radiance[c], Vec3::ZERO);
    // The floor below it is covered and lit where the ball does not shade it.
    let floor = 15 * 16 + 1;
    assert_eq!(image.coverage[floor], 1.0);
    assert!(image.radiance[floor].max_element() > 0.0);
}
