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

/// The device depths `docs/plates.md` ("Depth to a depth buffer") gives for a planar depth
/// `d` in `[near, far]`: OpenGL's window depth (glDepthRange 0..1), which is also Direct3D's
/// and Vulkan's [0, 1] depth for the same frustum, and reversed Z (near 1, far 0).
fn gl_window_depth(d: f32, n: f32, f: f32) -> f32 {
    f * (d - n) / (d * (f - n))
}
fn reversed_z(d: f32, n: f32, f: f32) -> f32 {
    n * (f - d) / (d * (f - n))
}

/// A rasteriser at the manifest's matrices (the camera's `view_matrix` and
/// `projection_matrix`, which the manifest writes): every drawn triangle projected to clip
/// space, divided by w, NDC z interpolated linearly in screen space at each pixel centre (a
/// rasteriser's rule: z/w is affine in screen space), the nearest kept. Triangles that reach
/// behind the near plane are left out (no clipper), and so are the pixels they would cover.
fn rasterise(world: &World) -> Vec<Option<f32>> {
    let cam = &world.camera;
    let [w, h] = cam.size;
    let m = cam.projection_matrix() * cam.view_matrix();
    let accel = &world.trace.accel;
    let mut z = vec![None::<f32>; (w * h) as usize];
    for inst in accel.instances() {
        if inst.mask & pfx_bake::world::mask::DRAWN == 0 {
            continue;
        }
        let mesh = &accel.meshes()[inst.mesh as usize];
        for tri in &mesh.indices {
            let clip = tri.map(|v| {
                m * inst
                    .world_from_object
                    .transform_point3(mesh.positions[v as usize])
                    .extend(1.0)
            });
            if clip.iter().any(|c| c.w <= cam.near) {
                continue;
            }
            // Screen positions in pixels (row 0 at the top) and NDC z.
            let s = clip.map(|c| {
                let ndc = c.truncate() / c.w;
                glam::Vec3::new(
                    (ndc.x + 1.0) * 0.5 * w as f32,
                    (1.0 - ndc.y) * 0.5 * h as f32,
                    ndc.z,
                )
            });
            let area =
                (s[1].x - s[0].x) * (s[2].y - s[0].y) - (s[2].x - s[0].x) * (s[1].y - s[0].y);
            if area.abs() < 1e-12 {
                continue;
            }
            let (x0, x1) = (
                s.iter().map(|p| p.x).fold(f32::MAX, f32::min),
                s.iter().map(|p| p.x).fold(f32::MIN, f32::max),
            );
            let (y0, y1) = (
                s.iter().map(|p| p.y).fold(f32::MAX, f32::min),
                s.iter().map(|p| p.y).fold(f32::MIN, f32::max),
            );
            for py in (y0.floor().max(0.0) as u32)..(y1.ceil().min(h as f32) as u32) {
                for px in (x0.floor().max(0.0) as u32)..(x1.ceil().min(w as f32) as u32) {
                    let (cx, cy) = (px as f32 + 0.5, py as f32 + 0.5);
                    let edge = |a: glam::Vec3, b: glam::Vec3| {
                        (b.x - a.x) * (cy - a.y) - (cx - a.x) * (b.y - a.y)
                    };
                    let b0 = edge(s[1], s[2]) / area;
                    let b1 = edge(s[2], s[0]) / area;
                    let b2 = 1.0 - b0 - b1;
                    if b0 < 0.0 || b1 < 0.0 || b2 < 0.0 {
                        continue;
                    }
                    let zn = b0 * s[0].z + b1 * s[1].z + b2 * s[2].z;
                    let cell = &mut z[(py * w + px) as usize];
                    if cell.is_none_or(|c| zn < c) {
                        *cell = Some(zn);
                    }
                }
            }
        }
    }
    z
}

#[test]
fn depth_converts_to_the_depth_buffer_a_rasteriser_writes() {
    let world = cornell();
    let (n, f) = (world.camera.near, world.camera.far);
    let plate = depths(&world);
    let raster = rasterise(&world);
    let (mut compared, mut agree) = (0usize, 0usize);
    for (d, r) in plate.iter().zip(&raster) {
        let (Some(d), Some(zn)) = (d, r) else {
            continue;
        };
        compared += 1;
        let window = (zn + 1.0) * 0.5; // glDepthRange(0, 1)
        let ours = gl_window_depth(*d, n, f);
        // Reversed Z is one minus the forward [0, 1] depth for the same near and far.
        assert!((reversed_z(*d, n, f) - (1.0 - ours)).abs() < 1e-6);
        // Pixels whose centre lies on an edge between two surfaces may differ; elsewhere the
        // two agree to float precision (2·10⁻⁵ in window depth is about 4·10⁻⁴ of the depth
        // at the Cornell box's distance), and the inverse gives the depth back.
        if (ours - window).abs() < 2e-5 {
            agree += 1;
            let back = n * f / (f - ours * (f - n));
            assert!((back - d).abs() < 1e-4 * d, "{back} vs {d}");
        }
    }
    let total = plate.iter().filter(|d| d.is_some()).count();
    assert!(compared * 10 >= total * 9, "{compared} of {total} compared");
    assert!(agree * 100 >= compared * 98, "{agree} of {compared} agree");
    // The sky's value, far, is the far plane: window depth 1, reversed 0.
    assert_eq!(gl_window_depth(f, n, f), 1.0);
    assert_eq!(reversed_z(f, n, f), 0.0);
    assert_eq!(gl_window_depth(n, n, f), 0.0);
}
