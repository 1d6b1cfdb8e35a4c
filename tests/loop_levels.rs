//! The render loop is compiled twice, for baseline x86-64 and for x86-64-v3, and the faster
//! copy the CPU runs is chosen at run time (docs/performance.md, step 9). Both copies must
//! give the same bytes: a farm of mixed machines merges its shards into one plate.

use std::path::PathBuf;

use pfx_bake::integrator::{self, NoProgress, PathTracer, Plan, Settings};
use pfx_bake::scene;
use pfx_bake::world::World;

fn world(file: &str, size: [u32; 2]) -> World {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let s = scene::load(&root.join(file)).unwrap_or_else(|d| panic!("{d:#?}"));
    World::build(&s, size).unwrap_or_else(|e| panic!("{:#?}", e.0))
}

/// Everything the render gives (radiance, coverage, depth, sample counts, the denoiser's
/// auxiliaries and the data passes), every float by its bits: `Debug` prints the shortest
/// decimal that reads back as the same `f32`, so two strings are equal exactly when the bits
/// are (NaN aside, which a render never writes).
fn render(w: &World, spp: u32, baseline: bool) -> String {
    let settings = Settings {
        spp,
        seed: 7,
        ..Settings::default()
    };
    let tracer = PathTracer::new(&w.trace, &w.camera, settings);
    let tracer = if baseline {
        tracer.with_baseline_loop()
    } else {
        tracer
    };
    let plan = Plan {
        auxiliaries: true,
        passes: true,
        ..Plan::default()
    };
    let r = integrator::render_plan_with(&tracer, &w.camera, &plan, &NoProgress);
    format!("{:?}", r.image)
}

#[test]
fn every_loop_level_bakes_the_same_bytes() {
    // The machines this project runs on have AVX2; without it this test would compare the
    // baseline copy with itself and show nothing.
    assert!(
        integrator::v3_available(),
        "this CPU lacks the x86-64-v3 features the render loop's second copy needs"
    );
    for (file, size, spp) in [
        ("scenes/cornell/cornell.scene.toml", [24, 24], 8),
        ("scenes/spheres/spheres.scene.toml", [24, 24], 8),
        // glTF surfaces, textures, the sun, an HDR sky, instancing, many lights.
        ("scenes/room.scene.toml", [40, 24], 4),
        ("tests/data/haze/cornell_haze.scene.toml", [20, 20], 4),
        // The random walk inside a subsurface body.
        (
            "tests/data/references/surfaces/subsurface_wax.scene.toml",
            [20, 20],
            4,
        ),
    ] {
        let w = world(file, size);
        let (v3, baseline) = (render(&w, spp, false), render(&w, spp, true));
        assert!(v3.len() > 1000, "{file}: {} bytes of output", v3.len());
        assert!(v3 == baseline, "{file}: the two copies of the loop differ");
    }
}
