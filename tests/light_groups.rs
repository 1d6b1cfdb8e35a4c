//! Light groups and shadow mattes of `passes.exr` (docs/plates.md, "Light groups"), each
//! against something independent of the code that made them: the groups sum to the beauty of
//! the same render cut to two path segments (the beauty's direct light, computed by the path
//! loop, not by the groups' estimator); the mattes are 1 in the umbra a square casts under a
//! point light and a sun, 0 outside it, and between under a sphere light as a quadrature of
//! the blocked share of its solid angle says; one or two threads give the same values.

use std::path::{Path, PathBuf};

use glam::{Vec2, Vec3};
use pfx_bake::film::PassImages;
use pfx_bake::integrator::{self, LightGroups, LightSource, NoProgress, Plan, Settings};
use pfx_bake::scene;
use pfx_bake::world::World;

/// The occluder's half extents (the Cornell floor quad, 0.5528 × 0.5592, centred) and height.
const HALF: [f32; 2] = [0.2764, 0.2796];
const OCCLUDER_Y: f32 = 1.0;
/// The point light, the sphere light (radius `AREA_R`) and the sun's direction (unnormalised).
const BULB: [f32; 3] = [0.0, 3.0, 0.0];
const AREA: [f32; 3] = [1.6, 3.0, 0.0];
const AREA_R: f32 = 0.6;
const SUN: [f32; 3] = [-0.5, 1.0, 0.0];

/// A ground plane (y = 0), a shadow-only square at y = 1 over the origin, a point light, a
/// sphere light, an authored delta sun and a light with `shadow = false`, seen from above.
fn occluder_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let p = dir.path();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::create_dir_all(p.join("meshes")).unwrap();
    std::fs::copy(
        repo.join("scenes/cornell/meshes/floor.glb"),
        p.join("meshes/floor.glb"),
    )
    .unwrap();
    std::fs::write(
        p.join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    std::fs::write(
        p.join("t.materials.toml"),
        "format = 1\n[materials.white]\nid = \"w1t2e3r4y5\"\nfamily = \"plain\"\n\
         base = [0.8, 0.8, 0.8]\nroughness = 1.0\nmetalness = 0.0\nspecular = 0.0\n",
    )
    .unwrap();
    let v = |a: [f32; 3]| format!("[{:?}, {:?}, {:?}]", a[0], a[1], a[2]);
    std::fs::write(
        p.join("t.scene.toml"),
        format!(
            "format = 1\nmaterials = [\"t.materials.toml\"]\n\
             [mesh.quad]\nid = \"c92frwa2fx\"\nfile = \"meshes/floor.glb\"\n\
             [[object]]\nid = \"fdjavdz6xh\"\nname = \"ground\"\nmesh = \"quad\"\n\
             at = [-8.0, 0.0, -8.0]\nscale = 30.0\nmaterial = \"white\"\n\
             [[object]]\nid = \"q8kd0h3m2c\"\nname = \"square\"\nmesh = \"quad\"\n\
             at = [{}, {OCCLUDER_Y:?}, {}]\nshadow = \"only\"\nmaterial = \"white\"\n\
             [[light]]\nid = \"b7m8k9b0aa\"\nname = \"bulb\"\nposition = {}\nintensity = 20.0\n\
             [[light]]\nid = \"a7r8e9a0bb\"\nname = \"area\"\nposition = {}\nintensity = 20.0\nradius = {AREA_R:?}\n\
             [[light]]\nid = \"f7j8k9h0cc\"\nname = \"fill\"\nposition = [0.0, 5.0, 3.0]\nintensity = 5.0\nshadow = false\n\
             [sun]\nmodel = \"authored\"\ntoward = {}\nirradiance = 3.0\n\
             [camera]\nat = [0.0, 8.0, 0.0]\nlook_at = [0.0, 0.0, 0.0]\nup = [0.0, 0.0, -1.0]\nfov = 40.0\n",
            -HALF[0],
            -HALF[1],
            v(BULB),
            v(AREA),
            v(SUN),
        ),
    )
    .unwrap();
    dir
}

fn world_of(scene_file: &Path, size: [u32; 2]) -> World {
    let scene = scene::load(scene_file).unwrap_or_else(|d| panic!("{d:#?}"));
    World::build(&scene, size).unwrap_or_else(|e| panic!("{:#?}", e.0))
}

fn render(world: &World, spp: u32, max_depth: u32) -> (integrator::Rendered, PassImages) {
    let plan = Plan {
        passes: true,
        ..Plan::default()
    };
    let s = Settings {
        spp,
        max_depth,
        ..Settings::default()
    };
    let r = integrator::render_planned(world, &s, &plan, &NoProgress);
    let p = r.image.passes.clone().expect("passes asked for");
    (r, p)
}

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Where the pixel-film point `f` looks onto the ground plane y = 0.
fn on_ground(world: &World, f: Vec2) -> Vec3 {
    let ray = world.camera.ray(f, Vec2::splat(0.5));
    let t = -ray.o.y / ray.d.y;
    ray.o + ray.d * t
}

/// Whether the segment from `p` along `d` (not unit) reaches the square at y = 1.
fn blocked(p: Vec3, d: Vec3) -> bool {
    if d.y <= 0.0 {
        return false;
    }
    let q = p + d * ((OCCLUDER_Y - p.y) / d.y);
    q.x.abs() < HALF[0] && q.z.abs() < HALF[1]
}

/// The pixel's four corners on the ground.
fn corners(world: &World, i: usize) -> [Vec3; 4] {
    let w = world.camera.size[0] as usize;
    let (x, y) = ((i % w) as f32, (i / w) as f32);
    [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]
        .map(|(a, b)| on_ground(world, Vec2::new(x + a, y + b)))
}

fn group(world: &World, want: LightSource) -> usize {
    LightGroups::of(&world.trace)
        .groups
        .iter()
        .position(|g| *g == want)
        .unwrap_or_else(|| panic!("no group {want:?}"))
}

/// The groups sum, pixel by pixel, to what the path loop gathers over paths of two segments
/// (camera, first drawn surface, light), where the camera sees no light itself.
fn assert_groups_sum_to_the_two_segment_beauty(world: &World, spp: u32) -> usize {
    let (r, p) = render(world, spp, 2);
    assert_eq!(p.light_groups.len(), LightGroups::of(&world.trace).len());
    let mut checked = 0;
    let mut worst = 0.0f32;
    let groups = LightGroups::of(&world.trace);
    // Only pixels wholly on objects that do not glow (emitters have no object id, and an
    // emissive object's own emission is seen, not direct light).
    let glowing = |o: u32| groups.groups.contains(&LightSource::Object(o));
    for i in 0..p.objects.len() {
        if p.objects[i].len() != 1 || p.objects[i][0].1 != 1.0 || glowing(p.objects[i][0].0) {
            continue;
        }
        let sum: Vec3 = p.light_groups.iter().map(|g| g.light[i]).sum();
        let beauty = r.image.radiance[i];
        let err = (sum - beauty).abs().max_element() / beauty.max_element().max(1e-3);
        worst = worst.max(err);
        checked += 1;
    }
    assert!(
        worst < 2e-5,
        "groups differ from the beauty by {worst} (relative)"
    );
    checked
}

#[test]
fn the_groups_sum_to_the_beauty_of_two_segment_paths() {
    // Point, sphere and no-shadow lights and a delta sun.
    let dir = occluder_project();
    let world = world_of(&dir.path().join("t.scene.toml"), [40, 40]);
    assert!(assert_groups_sum_to_the_two_segment_beauty(&world, 16) > 1000);
    // A glossy metal, an emitter met by BSDF rays (MIS), a point light.
    let world = world_of(
        &data("tests/data/scenes/spheres/spheres.scene.toml"),
        [48, 30],
    );
    assert!(assert_groups_sum_to_the_two_segment_beauty(&world, 16) > 800);
    // An emissive mesh: its triangles are one group, MIS-weighted both ways.
    let world = world_of(
        &data("tests/data/scenes/cornell/cornell.scene.toml"),
        [32, 32],
    );
    let groups = LightGroups::of(&world.trace);
    assert_eq!(groups.groups.len(), 1, "{groups:?}");
    assert!(assert_groups_sum_to_the_two_segment_beauty(&world, 16) > 700);
}

#[test]
fn with_indirect_light_the_groups_stay_below_the_beauty_and_one_or_two_threads_agree() {
    let world = world_of(
        &data("tests/data/scenes/cornell/cornell.scene.toml"),
        [24, 24],
    );
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (r1, p1) = pool(1).install(|| render(&world, 8, 16));
    let (_, p2) = pool(2).install(|| render(&world, 8, 16));
    assert!(p1 == p2, "light groups depend on the thread count");
    let mut more = 0;
    for i in 0..p1.objects.len() {
        let sum: Vec3 = p1.light_groups.iter().map(|g| g.light[i]).sum();
        let b = r1.image.radiance[i];
        assert!(sum.cmple(b * (1.0 + 1e-5) + 1e-6).all(), "{i}: {sum} > {b}");
        more += (b.x > sum.x * 1.05) as usize;
    }
    // The Cornell box's walls light each other: most pixels get more than direct light.
    assert!(more > p1.objects.len() / 2, "{more}");
}

#[test]
fn mattes_are_one_in_the_umbra_zero_outside_and_the_penumbra_s_blocked_share() {
    let dir = occluder_project();
    let world = world_of(&dir.path().join("t.scene.toml"), [96, 96]);
    let (_, p) = render(&world, 256, 16);
    let other = LightGroups::of(&world.trace).groups.len();
    let bulb = group(&world, LightSource::Placed(0));
    let area = group(&world, LightSource::Placed(1));
    let sun = group(&world, LightSource::Sun);
    // The light with shadow = false is in `other`, and nothing shadows it.
    assert_eq!(p.light_groups.len(), other + 1);
    assert!(p.light_groups[other].shadow.iter().all(|&m| m == 0.0));
    let ground = world
        .objects
        .iter()
        .position(|o| o.key == "ground")
        .unwrap() as u32;
    let on = |i: usize| p.objects[i] == [(ground, 1.0)];
    assert!((0..p.objects.len())
        .filter(|&i| on(i))
        .all(|i| p.light_groups[other].light[i].x > 0.0));
    let sun_dir = Vec3::from(SUN).normalize();
    for (g, towards) in [
        (
            bulb,
            Box::new(|q: Vec3| Vec3::from(BULB) - q) as Box<dyn Fn(Vec3) -> Vec3>,
        ),
        (sun, Box::new(move |_| sun_dir)),
    ] {
        let (mut umbra, mut lit) = (0, 0);
        for i in (0..p.objects.len()).filter(|&i| on(i)) {
            let c = corners(&world, i);
            let m = p.light_groups[g].shadow[i];
            if c.iter().all(|&q| blocked(q, towards(q))) {
                assert_eq!(m, 1.0, "group {g}, pixel {i} in the umbra");
                assert_eq!(p.light_groups[g].light[i], Vec3::ZERO);
                umbra += 1;
            } else if c.iter().all(|&q| !blocked(q, towards(q))) {
                assert_eq!(m, 0.0, "group {g}, pixel {i} in the light");
                lit += 1;
            }
        }
        assert!(
            umbra > 40 && lit > 5000,
            "group {g}: {umbra} umbra, {lit} lit pixels"
        );
    }
    // The sphere light: the cosine-weighted share of its solid angle the square hides, by a
    // quadrature over 3 × 3 points of the pixel and 48 × 48 directions of the light's cone.
    let centre = Vec3::from(AREA);
    let reference = |i: usize| {
        let w = world.camera.size[0] as usize;
        let (x, y) = ((i % w) as f32, (i / w) as f32);
        let (mut hidden, mut all) = (0.0f64, 0.0f64);
        for a in 0..3 {
            for b in 0..3 {
                let f = Vec2::new(x + (a as f32 + 0.5) / 3.0, y + (b as f32 + 0.5) / 3.0);
                let q = on_ground(&world, f);
                let axis = (centre - q).normalize();
                let cos_max = (1.0 - AREA_R * AREA_R / (centre - q).length_squared()).sqrt();
                let (t, s) = axis.any_orthonormal_pair();
                const N: usize = 48;
                for u in 0..N {
                    for v in 0..N {
                        // Uniform in solid angle over the cone.
                        let ct = 1.0 - (1.0 - cos_max) * (u as f32 + 0.5) / N as f32;
                        let st = (1.0 - ct * ct).max(0.0).sqrt();
                        let phi = std::f32::consts::TAU * (v as f32 + 0.5) / N as f32;
                        let d = axis * ct + (t * phi.cos() + s * phi.sin()) * st;
                        let cos = d.y.max(0.0) as f64;
                        all += cos;
                        if blocked(q, d) {
                            hidden += cos;
                        }
                    }
                }
            }
        }
        hidden / all
    };
    let (mut n, mut sum_err, mut sum_sq, mut inside) = (0usize, 0.0f64, 0.0f64, 0usize);
    for i in (0..p.objects.len()).filter(|&i| on(i)) {
        let want = reference(i);
        let got = p.light_groups[area].shadow[i] as f64;
        if want == 0.0 || want == 1.0 {
            // The quadrature's nine points may miss a sliver of penumbra at the pixel's edge.
            assert!((got - want).abs() < 0.1, "area, pixel {i}: {got} vs {want}");
            continue;
        }
        n += 1;
        sum_err += got - want;
        sum_sq += (got - want) * (got - want);
        inside += (0.1..0.9).contains(&got) as usize;
    }
    let (bias, rms) = (sum_err / n as f64, (sum_sq / n as f64).sqrt());
    eprintln!("penumbra: {n} pixels, mean error {bias:.4}, rms {rms:.4}");
    assert!(
        n > 300 && inside > 200,
        "{n} penumbra pixels, {inside} in (0.1, 0.9)"
    );
    assert!(bias.abs() < 0.01 && rms < 0.08, "bias {bias}, rms {rms}");
}

#[test]
fn past_the_cap_the_weakest_lights_join_other() {
    let dir = occluder_project();
    let p = dir.path();
    // Ten more shadow-casting point lights of intensities 1 … 10 W/sr: with the bulb (20),
    // the sphere light (20) and the sun, the eight groups are the five strongest of them
    // and those three; the rest, and the light with shadow = false, are in `other`.
    let mut text = std::fs::read_to_string(p.join("t.scene.toml")).unwrap();
    for k in 0..10 {
        text += &format!(
            "[[light]]\nname = \"l{k}\"\nposition = [{:?}, 4.0, 1.0]\nintensity = {:?}\n",
            k as f32 * 0.3 - 1.5,
            (k + 1) as f32
        );
    }
    std::fs::write(p.join("t.scene.toml"), text).unwrap();
    let world = world_of(&p.join("t.scene.toml"), [16, 16]);
    let groups = LightGroups::of(&world.trace);
    assert_eq!(groups.groups.len(), integrator::MAX_LIGHT_GROUPS);
    let placed = |k: u32| LightSource::Placed(k);
    // [[light]] order: bulb 0, area 1, fill 2 (no shadow), l0 … l9 at 3 … 12.
    let mut want = vec![placed(0), placed(1)];
    want.extend((8..13).map(placed));
    want.push(LightSource::Sun);
    assert_eq!(groups.groups, want);
    assert_eq!(groups.capped, (3..8).map(placed).collect::<Vec<_>>());
    let (_, img) = render(&world, 4, 2);
    assert_eq!(img.light_groups.len(), integrator::MAX_LIGHT_GROUPS + 1);
}
