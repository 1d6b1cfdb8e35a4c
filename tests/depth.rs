//! The depth plate agrees with `[camera] near` and `far` (issue 14): a point beyond `far`
//! reads as far as the sky, one nearer than `near` reads `near`, where a rasteriser's clip
//! planes would put what it draws over the plate.

use std::path::PathBuf;

use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene;
use pfx_bake::world::World;

fn cornell() -> World {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/cornell/cornell.scene.toml");
    World::build(&scene::load(&file).unwrap(), [24, 24]).unwrap()
}

fn depths(world: &World) -> Vec<Option<f32>> {
    let s = Settings {
        spp: 1,
        ..Settings::default()
    };
    integrator::render(world, &s, &NoProgress).depth
}

#[test]
fn depth_is_clamped_to_the_cameras_range() {
    let mut world = cornell();
    let free = depths(&world);
    let (lo, hi) = free
        .iter()
        .flatten()
        .fold((f32::MAX, f32::MIN), |(a, b), &d| (a.min(d), b.max(d)));
    assert!(lo < hi);
    assert!(
        lo >= world.camera.near && hi <= world.camera.far,
        "{lo}..{hi}"
    );
    // A far plane inside the box: what lies beyond it reads exactly `far`, the sky's value;
    // a near plane inside it: what lies before it reads exactly `near`.
    let (near, far) = (lo + 0.25 * (hi - lo), lo + 0.75 * (hi - lo));
    world.camera.near = near;
    world.camera.far = far;
    let clamped = depths(&world);
    for (f, c) in free.iter().zip(&clamped) {
        // The sky stays the sky (written as `far` by the bake).
        assert_eq!(*c, f.map(|f| f.clamp(near, far)));
    }
    assert!(clamped.contains(&Some(far)) && clamped.contains(&Some(near)));
}
