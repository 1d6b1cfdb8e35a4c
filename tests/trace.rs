//! `[trace]` keys a path tracer reads: `clamp_indirect` caps what lights a vertex past the
//! first hit and leaves the first hit's own light alone; `filter_glossy` roughens sharp
//! lobes after a diffuse bounce, which takes the caustic noise out and keeps the energy.

use std::path::Path;

use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene;
use pfx_bake::world::World;

/// The golden kit's floor and a cube in a low sun, with `trace` as the `[trace]` table.
fn scene_with(dir: &Path, trace: &str) -> scene::Scene {
    let kit = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    for f in ["kit.glb", "golden.materials.toml"] {
        std::fs::copy(kit.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(
        dir.join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    let text = format!(
        "format = 1\nmaterials = [\"golden.materials.toml\"]\n\n[mesh.floor]\nfile = \"kit.glb\"\nnode = \"floor\"\n\n[mesh.cube]\nfile = \"kit.glb\"\nnode = \"cube\"\n\n[[object]]\nname = \"floor\"\nmesh = \"floor\"\n\n[[object]]\nname = \"cube\"\nmesh = \"cube\"\nscale = [2.0, 1.5, 2.0]\n\n[sun]\nmodel = \"authored\"\ntoward = [-1.0, 0.6, 0.4]\nirradiance = 3.0\n\n[camera]\nat = [0.0, 2.4, 3.0]\nlook_at = [0.0, 0.15, 0.0]\nfov = 40.0\n{trace}"
    );
    let file = dir.join("t.scene.toml");
    std::fs::write(&file, text).unwrap();
    scene::load(&file).unwrap()
}

fn mean(world: &World, max_depth: u32) -> f64 {
    let img = integrator::render(
        world,
        &Settings {
            spp: 16,
            max_depth,
            seed: 3,
            ..Settings::default()
        },
        &NoProgress,
    );
    img.radiance
        .iter()
        .map(|p| (p.x + p.y + p.z) as f64)
        .sum::<f64>()
        / img.radiance.len() as f64
}

#[test]
fn clamp_indirect_caps_only_light_past_the_first_hit() {
    let dir = tempfile::tempdir().unwrap();
    let size = [48, 36];
    let plain = World::build(&scene_with(dir.path(), ""), size)
        .map_err(|e| e.0)
        .unwrap();
    let tiny = World::build(
        &scene_with(dir.path(), "\n[trace]\nclamp_indirect = 0.000001\n"),
        size,
    )
    .map_err(|e| e.0)
    .unwrap();
    let huge = World::build(
        &scene_with(dir.path(), "\n[trace]\nclamp_indirect = 10000\n"),
        size,
    )
    .map_err(|e| e.0)
    .unwrap();
    assert!(tiny.capabilities.is_empty(), "{:?}", tiny.capabilities);
    // Two segments: the first hit's direct light alone (light sampling and the BSDF ray's
    // MIS half), which no cap touches.
    let direct = mean(&plain, 2);
    let full = mean(&plain, 16);
    let capped = mean(&tiny, 16);
    println!("direct {direct:.5} full {full:.5} capped {capped:.5}");
    // The floor beside the sunlit cube and the cube beside the sunlit floor get bounced light.
    assert!(full > 1.05 * direct, "{full} vs {direct}");
    // A cap of 1e-6 leaves at most ~1e-6 per contribution past the first hit.
    assert!((capped / direct - 1.0).abs() < 1e-3, "{capped} vs {direct}");
    // A cap above every contribution changes nothing, to the bit.
    let a = integrator::render(
        &plain,
        &Settings {
            spp: 4,
            ..Settings::default()
        },
        &NoProgress,
    );
    let b = integrator::render(
        &huge,
        &Settings {
            spp: 4,
            ..Settings::default()
        },
        &NoProgress,
    );
    assert_eq!(a.radiance, b.radiance);
}

#[test]
fn every_trace_key_is_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let w = World::build(
        &scene_with(dir.path(), "\n[trace]\ntransmissive_shadows = true\n"),
        [8, 8],
    )
    .map_err(|e| e.0)
    .unwrap();
    let notes: Vec<&str> = w.capabilities.iter().map(|c| c.message.as_str()).collect();
    assert!(notes.is_empty(), "{notes:?}");
}

/// A near-mirror metal floor, a small bright sphere light above it and a white wall: the wall
/// is lit directly and by the light's caustic off the floor, a sharp reflection seen in
/// diffuse light.
fn caustic_scene(dir: &Path, trace: &str) -> scene::Scene {
    let kit = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    std::fs::copy(kit.join("kit.glb"), dir.join("kit.glb")).unwrap();
    std::fs::write(
        dir.join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("m.materials.toml"),
        "format = 1\n\n[materials.mirror]\nbase = [0.9, 0.9, 0.9]\nroughness = 0.05\nmetalness = 1.0\n\n[materials.white]\nbase = [0.8, 0.8, 0.8]\nroughness = 1.0\nspecular = 0.0\n",
    )
    .unwrap();
    let text = format!(
        "format = 1\nmaterials = [\"m.materials.toml\"]\n\n[mesh.floor]\nfile = \"kit.glb\"\nnode = \"floor\"\n\n[mesh.panel]\nfile = \"kit.glb\"\nnode = \"panel\"\n\n[[object]]\nname = \"floor\"\nmesh = \"floor\"\nmaterial = \"mirror\"\n\n[[object]]\nname = \"wall\"\nmesh = \"panel\"\nmaterial = \"white\"\nat = [0.0, 0.0, -0.5]\nscale = [6.0, 4.0, 1.0]\n\n[[light]]\nname = \"bulb\"\nposition = [0.0, 0.25, 1.2]\nradius = 0.03\nintensity = 2.0\n\n[camera]\nat = [0.0, 1.0, 3.0]\nlook_at = [0.0, 1.2, -0.5]\nfov = 40.0\n{trace}"
    );
    let file = dir.join("c.scene.toml");
    std::fs::write(&file, text).unwrap();
    scene::load(&file).unwrap()
}

/// Mean over pixels of the squared difference of two renders, over the squared mean: the
/// noise the two seeds disagree by.
fn seed_noise(world: &World) -> (f64, f64) {
    let render = |seed| {
        integrator::render(
            world,
            &Settings {
                spp: 16,
                seed,
                ..Settings::default()
            },
            &NoProgress,
        )
    };
    let (a, b) = (render(1), render(2));
    let n = a.radiance.len() as f64;
    let lum = |p: glam::Vec3| (p.x + p.y + p.z) as f64 / 3.0;
    let mean = a
        .radiance
        .iter()
        .zip(&b.radiance)
        .map(|(x, y)| lum(*x) + lum(*y))
        .sum::<f64>()
        / (2.0 * n);
    let diff = a
        .radiance
        .iter()
        .zip(&b.radiance)
        .map(|(x, y)| (lum(*x) - lum(*y)).powi(2))
        .sum::<f64>()
        / n;
    (mean, diff / (mean * mean))
}

#[test]
fn filter_glossy_takes_out_caustic_noise_and_keeps_the_energy() {
    let dir = tempfile::tempdir().unwrap();
    let size = [48, 36];
    let sharp = World::build(&caustic_scene(dir.path(), ""), size)
        .map_err(|e| e.0)
        .unwrap();
    let soft = World::build(
        &caustic_scene(dir.path(), "\n[trace]\nfilter_glossy = 0.5\n"),
        size,
    )
    .map_err(|e| e.0)
    .unwrap();
    assert!(soft.capabilities.is_empty(), "{:?}", soft.capabilities);
    // The mirror's filtered model is rougher; the rough white wall's is itself.
    let mirror = soft
        .trace
        .materials
        .iter()
        .find(|m| m.key == "mirror")
        .unwrap();
    assert_ne!(mirror.filtered, mirror.bxdf);
    let white = soft
        .trace
        .materials
        .iter()
        .find(|m| m.key == "white")
        .unwrap();
    assert_eq!(white.filtered, white.bxdf);

    let (m_sharp, noise_sharp) = seed_noise(&sharp);
    let (m_soft, noise_soft) = seed_noise(&soft);
    println!("sharp: mean {m_sharp:.5} noise {noise_sharp:.4}; soft: mean {m_soft:.5} noise {noise_soft:.4}");
    assert!(
        noise_soft < 0.5 * noise_sharp,
        "{noise_soft} vs {noise_sharp}"
    );
    assert!(
        (m_soft / m_sharp - 1.0).abs() < 0.05,
        "{m_soft} vs {m_sharp}"
    );
}
