//! The guided light choice (src/integrator/guide.rs) changes only the noise: a scene of
//! unequal lights renders to the same mean with the guided pick distribution as with picks by
//! power, and the guided one gives the lights that light the view more of the picks.

use std::path::Path;

use pfx_bake::integrator::{self, NoProgress, PathTracer, Settings};
use pfx_bake::sampling::Distribution1D;
use pfx_bake::scene;
use pfx_bake::world::World;

fn settings(seed: u64) -> Settings {
    Settings {
        spp: 256,
        seed,
        ..Settings::default()
    }
}

/// The mean radiance of the image `world`'s camera sees, lights picked by `choice`.
fn mean(world: &World, choice: &Distribution1D, seed: u64) -> [f64; 3] {
    let tracer = PathTracer::with_light_choice(&world.trace, choice.clone(), settings(seed));
    let img = integrator::render_with(&tracer, &world.camera, &NoProgress);
    let n = img.radiance.len() as f64;
    let mut m = [0.0; 3];
    for p in &img.radiance {
        m[0] += p.x as f64 / n;
        m[1] += p.y as f64 / n;
        m[2] += p.z as f64 / n;
    }
    m
}

#[test]
fn guided_light_choice_keeps_the_mean_and_favours_what_lights_the_view() {
    let s = scene::load(Path::new("tests/data/golden/lights.scene.toml")).unwrap();
    let w = World::build(&s, [48, 36]).map_err(|e| e.0).unwrap();
    let guided = PathTracer::new(&w.trace, &w.camera, settings(0))
        .light_choice()
        .clone();
    let (lo, hi) = w.trace.accel.bounds();
    let radius = (0.5 * (hi - lo).length()).max(1e-3);
    let powers: Vec<f32> = w.trace.lights.iter().map(|l| l.power(radius)).collect();
    let by_power = Distribution1D::new(&powers);
    let pick = |d: &Distribution1D| -> Vec<f32> {
        (0..w.trace.lights.len())
            .map(|i| d.discrete_pdf(i))
            .collect()
    };
    let (g, p) = (pick(&guided), pick(&by_power));
    println!("guided {g:?}\npower  {p:?}");
    // Lights: the panel's two triangles, far, near, dot, sun. The far light is the strongest
    // but the cube hides it from much of the view: the guide gives it fewer picks, and
    // the weak near light, which lights the front, more.
    assert_eq!(w.trace.lights.len(), 6);
    assert!(g[2] < 0.8 * p[2], "far: guided {} power {}", g[2], p[2]);
    assert!(g[3] > 2.0 * p[3], "near: guided {} power {}", g[3], p[3]);
    // Every light keeps at least the power share of the mixture.
    for (a, b) in g.iter().zip(&p) {
        assert!(*a >= 0.25 * b * 0.999, "{a} < a quarter of {b}");
    }

    // Same mean. Renders with the same seed share their sample points, so their difference is
    // far below the difference between seeds (0.9 % here): a bias of a light's share would
    // show well above the 0.3 % allowed, while the seeds' own spread could hide 1 %.
    let gm = [mean(&w, &guided, 1), mean(&w, &guided, 2)];
    let pm = [mean(&w, &by_power, 1), mean(&w, &by_power, 2)];
    for (g, p) in gm.iter().zip(&pm) {
        println!("guided {g:?} power {p:?}");
        for c in 0..3 {
            assert!(
                (g[c] / p[c] - 1.0).abs() < 0.003,
                "channel {c}: guided {} power {}",
                g[c],
                p[c]
            );
        }
    }
}

#[test]
fn many_lights_are_guided_on_a_subsampled_pass() {
    // 300 equal point lights in a row across the floor: the guide needs 300 groups, more than
    // its ray budget allows at every point, so it keeps every k-th point; the lights behind
    // the wall that hides half of them from the view still get fewer picks than the others.
    let dir = tempfile::tempdir().unwrap();
    let kit = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    for f in ["kit.glb", "golden.materials.toml"] {
        std::fs::copy(kit.join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(
        dir.path().join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    let mut text = String::from(
        "format = 1\nmaterials = [\"golden.materials.toml\"]\n\n[mesh.floor]\nfile = \"kit.glb\"\nnode = \"floor\"\n\n[mesh.cube]\nfile = \"kit.glb\"\nnode = \"cube\"\n\n[[object]]\nname = \"floor\"\nmesh = \"floor\"\n\n[[object]]\nname = \"wall\"\nmesh = \"cube\"\nat = [0.0, 0.0, -0.6]\nscale = [12.0, 3.0, 0.1]\n\n[camera]\nat = [0.0, 2.4, 3.0]\nlook_at = [0.0, 0.15, 0.0]\nfov = 40.0\n",
    );
    for i in 0..300 {
        // Even lights in front of the wall, odd ones behind it.
        let z = if i % 2 == 0 { 0.5 } else { -1.5 };
        let x = -2.5 + 5.0 * i as f32 / 299.0;
        text.push_str(&format!(
            "\n[[light]]\nname = \"l{i}\"\nposition = [{x}, 0.4, {z}]\nintensity = 0.01\n"
        ));
    }
    let file = dir.path().join("many.scene.toml");
    std::fs::write(&file, text).unwrap();
    let s = scene::load(&file).unwrap();
    let w = World::build(&s, [48, 36]).map_err(|e| e.0).unwrap();
    assert_eq!(w.trace.lights.len(), 300);
    let tracer = PathTracer::new(&w.trace, &w.camera, settings(0));
    let (front, back): (f32, f32) = (0..300).fold((0.0, 0.0), |(f, b), i| {
        let p = tracer.light_choice().discrete_pdf(i);
        if i % 2 == 0 {
            (f + p, b)
        } else {
            (f, b + p)
        }
    });
    println!("front {front:.4} back {back:.4}");
    // By power each half would get 0.5; the back half keeps little more than the power
    // share's quarter of that.
    assert!(back < 0.2, "front {front} back {back}");
    assert!((front + back - 1.0).abs() < 1e-4);
}
