//! The shadow terminator of a coarse smooth-shaded mesh (docs/materials.md, "Shadow
//! terminator"): a 12 × 6 UV sphere with radial vertex normals, lit by a sun from the side,
//! must shade its terminator band by its interpolated normals, not black along its facets; the
//! same sphere flat-shaded keeps its facets.
//!
//! The sphere is a glTF file written here; the test casts its own rays through each pixel
//! centre against the same triangles to know, per pixel, the flat triangle's normal `ng` and
//! the interpolated normal `ns` there. The material is Lambertian (base 0.8, KHR_materials_ior
//! `ior = 1`: no specular layer), the sun's irradiance π, so the radiance the shading normal
//! asks for is `0.8 · max(0, ns · L)`.

use std::path::{Path, PathBuf};

use glam::Vec3;
use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene::{self, Projection, Scene, Sun, SunModel};
use pfx_bake::world::World;

const SIZE: u32 = 96;
const HEIGHT: f32 = 2.4;
const ALBEDO: f32 = 0.8;

fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= c.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The unit UV sphere's triangles (counter-clockwise seen from outside), each corner with its
/// radial normal: a fan at each pole, quads between `rings` latitude bands of `segments`.
fn sphere(segments: usize, rings: usize) -> Vec<[(Vec3, Vec3); 3]> {
    let at = |ring: usize, seg: usize| {
        let theta = std::f32::consts::PI * ring as f32 / rings as f32;
        let phi = std::f32::consts::TAU * (seg % segments) as f32 / segments as f32;
        let p = Vec3::new(
            theta.sin() * phi.cos(),
            theta.cos(),
            -theta.sin() * phi.sin(),
        );
        (p, p)
    };
    let mut tris = Vec::new();
    for ring in 0..rings {
        for seg in 0..segments {
            let (a, b) = (at(ring, seg), at(ring, seg + 1));
            let (c, d) = (at(ring + 1, seg), at(ring + 1, seg + 1));
            if ring > 0 {
                tris.push([a, c, b]);
            }
            if ring + 1 < rings {
                tris.push([b, c, d]);
            }
        }
    }
    tris
}

/// Writes the triangles as `<name>.gltf` (non-indexed), with the flat triangle's normal at
/// every corner when `flat`.
fn write_mesh(dir: &Path, name: &str, tris: &[[(Vec3, Vec3); 3]], flat: bool) -> PathBuf {
    let mut pos = Vec::new();
    let mut nrm = Vec::new();
    for t in tris {
        let ng = (t[1].0 - t[0].0).cross(t[2].0 - t[0].0).normalize();
        for (p, n) in t {
            pos.push(*p);
            nrm.push(if flat { ng } else { *n });
        }
    }
    let mut bin = Vec::new();
    for v in pos.iter().chain(&nrm) {
        for c in v.to_array() {
            bin.extend_from_slice(&c.to_le_bytes());
        }
    }
    let count = pos.len();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"scene":0,"scenes":[{{"nodes":[0]}}],
"nodes":[{{"mesh":0,"name":"ball"}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"NORMAL":1}},"material":0}}]}}],
"materials":[{{"pbrMetallicRoughness":{{"baseColorFactor":[{ALBEDO},{ALBEDO},{ALBEDO},1],"metallicFactor":0,"roughnessFactor":1}},"extensions":{{"KHR_materials_ior":{{"ior":1}}}}}}],
"buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{b64}"}}],
"bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":{half}}},{{"buffer":0,"byteOffset":{half},"byteLength":{half}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":{count},"type":"VEC3","min":[-1,-1,-1],"max":[1,1,1]}},
{{"bufferView":1,"componentType":5126,"count":{count},"type":"VEC3"}}]}}"#,
        len = bin.len(),
        half = bin.len() / 2,
        b64 = base64(&bin),
    );
    let path = dir.join(format!("{name}.gltf"));
    std::fs::write(&path, json).unwrap();
    path
}

/// The sun's direction: from the right, a little up and towards the camera, so the
/// terminator crosses the visible half near the image's centre line.
fn toward() -> Vec3 {
    Vec3::new(1.0, 0.25, 0.2).normalize()
}

/// The point lights of the tree variant: a key light far along [`toward`], giving the sphere's
/// centre irradiance π, and two faint ones elsewhere, so that the scene has the three
/// positioned lights from which light picks follow the light tree.
fn points() -> Vec<scene::Light> {
    let light = |key: &str, at: Vec3, intensity: f32| scene::Light {
        key: key.into(),
        id: None,
        position: at.to_array(),
        parent: None,
        color: [1.0; 3],
        intensity,
        radius: 0.0,
        range: 0.0,
        shadow: true,
    };
    vec![
        light(
            "key",
            toward() * KEY_DISTANCE,
            std::f32::consts::PI * KEY_DISTANCE * KEY_DISTANCE,
        ),
        light("fill", Vec3::new(-20.0, 5.0, 5.0), 0.01),
        light("rim", Vec3::new(0.0, -20.0, 3.0), 0.01),
    ]
}

/// The key point light's distance from the sphere's centre.
const KEY_DISTANCE: f32 = 20.0;

/// Renders `file` under the sun, or under [`points`] where `point_lights`.
fn render(file: &Path, spp: u32, threads: usize) -> Image {
    render_lit(file, spp, threads, false)
}

fn render_lit(file: &Path, spp: u32, threads: usize, point_lights: bool) -> Image {
    let scene = Scene {
        root: file.parent().unwrap().to_path_buf(),
        file: "ball.scene.toml".into(),
        meshes: vec![scene::Mesh {
            key: "ball".into(),
            file: file.to_path_buf(),
            ..Default::default()
        }],
        objects: vec![scene::Object {
            key: "ball".into(),
            mesh: "ball".into(),
            scale: [1.0; 3],
            alpha_cutoff: 0.5,
            ..Default::default()
        }],
        camera: Some(scene::Camera {
            projection: Projection::Orthographic,
            at: [0.0, 0.0, 5.0],
            height: Some(HEIGHT),
            ..Default::default()
        }),
        lights: if point_lights { points() } else { Vec::new() },
        sun: (!point_lights)
            .then_some(Sun {
                model: SunModel::Authored,
                hour: 12.0,
                day: 172.0,
                latitude: 0.0,
                heading: 0.0,
                reference_hour: 12.0,
                toward: Some(toward().to_array()),
                color: [1.0; 3],
                irradiance: Some(std::f32::consts::PI),
                radius: 0.0,
            })
            .filter(|_| !point_lights),
        ..Default::default()
    };
    let world = World::build(&scene, [SIZE, SIZE]).unwrap_or_else(|e| panic!("{:#?}", e.0));
    let image = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| {
            let settings = Settings {
                spp,
                max_depth: 2,
                seed: 3,
                ..Settings::default()
            };
            integrator::render(&world, &settings, &NoProgress)
        });
    assert_eq!(image.dropped, 0);
    image
}

/// Per pixel centre, the first triangle met by the camera's ray: (ng, ns, the point met).
fn cast(tris: &[[(Vec3, Vec3); 3]]) -> Vec<Option<(Vec3, Vec3, Vec3)>> {
    cast_at(tris, 0.5, 0.5)
}

/// Per pixel, the first triangle met by the camera's ray through the point `(fx, fy)` of the
/// pixel (0 to 1 right and down): (ng, ns, the point met).
fn cast_at(tris: &[[(Vec3, Vec3); 3]], fx: f32, fy: f32) -> Vec<Option<(Vec3, Vec3, Vec3)>> {
    let mut out = Vec::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let px = HEIGHT / SIZE as f32;
            let o = Vec3::new(
                (x as f32 + fx) * px - HEIGHT / 2.0,
                HEIGHT / 2.0 - (y as f32 + fy) * px,
                5.0,
            );
            let d = -Vec3::Z;
            let mut best: Option<(f32, Vec3, Vec3)> = None;
            let mut at = Vec3::ZERO;
            for t in tris {
                let (e1, e2) = (t[1].0 - t[0].0, t[2].0 - t[0].0);
                let pv = d.cross(e2);
                let det = e1.dot(pv);
                if det.abs() < 1e-12 {
                    continue;
                }
                let tv = o - t[0].0;
                let u = tv.dot(pv) / det;
                let qv = tv.cross(e1);
                let v = d.dot(qv) / det;
                let dist = e2.dot(qv) / det;
                if u < 0.0 || v < 0.0 || u + v > 1.0 || dist <= 0.0 {
                    continue;
                }
                if best.is_none_or(|b| dist < b.0) {
                    let ng = e1.cross(e2).normalize();
                    let ns = (t[0].1 * (1.0 - u - v) + t[1].1 * u + t[2].1 * v).normalize();
                    best = Some((dist, ng, ns));
                    at = o + d * dist;
                }
            }
            out.push(best.map(|(_, ng, ns)| (ng, ns, at)));
        }
    }
    out
}

/// Over the terminator band (pixels whose flat triangle faces away from the sun, `ng · L ≤
/// 0`, while the interpolated normal faces it, `ns · L ≥ 0.05`): the pixel count, the mean of
/// rendered over asked-for radiance, and the share of pixels below half of what is asked.
///
/// `point_lights`: the key point light's direction and falloff from the point met, rather than
/// the sun's (the faint lights are left out of what is asked: under 10⁻⁵ of it).
fn band(img: &Image, rays: &[Option<(Vec3, Vec3, Vec3)>], point_lights: bool) -> (usize, f32, f32) {
    let (mut n, mut ratio, mut dark) = (0, 0.0f32, 0);
    for (i, r) in rays.iter().enumerate() {
        let Some((ng, ns, p)) = r else { continue };
        let (l, e) = if point_lights {
            let d = toward() * KEY_DISTANCE - *p;
            (
                d.normalize(),
                KEY_DISTANCE * KEY_DISTANCE / d.length_squared(),
            )
        } else {
            (toward(), 1.0)
        };
        if ng.dot(l) > 0.0 || ns.dot(l) < 0.05 {
            continue;
        }
        let want = ALBEDO * e * ns.dot(l);
        let got = img.radiance[i].y;
        n += 1;
        ratio += got / want;
        if got < 0.5 * want {
            dark += 1;
        }
    }
    (n, ratio / n.max(1) as f32, dark as f32 / n.max(1) as f32)
}

#[test]
fn a_coarse_smooth_spheres_terminator_follows_its_shading_normals() {
    let dir = tempfile::tempdir().unwrap();
    let tris = sphere(12, 6);
    let rays = cast(&tris);
    let smooth = write_mesh(dir.path(), "smooth", &tris, false);
    let img = render(&smooth, 16, 2);
    let (n, ratio, dark) = band(&img, &rays, false);
    eprintln!("smooth: {n} band pixels, rendered / asked {ratio:.3}, dark share {dark:.3}");
    assert!(n > 150, "the band is {n} pixels");
    assert!((0.85..=1.05).contains(&ratio), "band ratio {ratio}");
    assert!(dark < 0.1, "dark share {dark}");
    // Under point lights picked through the light tree, the same.
    let img_points = render_lit(&smooth, 16, 2, true);
    let (n, ratio, dark) = band(&img_points, &rays, true);
    eprintln!(
        "smooth, point lights: {n} band pixels, rendered / asked {ratio:.3}, dark share {dark:.3}"
    );
    assert!(n > 100, "the band is {n} pixels");
    assert!((0.85..=1.05).contains(&ratio), "band ratio {ratio}");
    assert!(dark < 0.1, "dark share {dark}");
    // The same bytes on one thread and on four.
    let again = render(&smooth, 16, 1);
    let four = render(&smooth, 16, 4);
    assert!(again.radiance == img.radiance && four.radiance == img.radiance);
}

#[test]
fn a_flat_shaded_sphere_keeps_its_facets() {
    let dir = tempfile::tempdir().unwrap();
    let tris = sphere(12, 6);
    let rays = cast(&tris);
    let corners =
        [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].map(|(x, y)| cast_at(&tris, x, y));
    let flat = write_mesh(dir.path(), "flat", &tris, true);
    let img = render(&flat, 16, 2);
    // Every pixel wholly on one facet (its centre and corners meet the same triangle) that
    // faces away from the sun is black; every lit one is its facet's Lambert shade.
    let l = toward();
    let (mut away, mut lit) = (0, 0);
    for (i, r) in rays.iter().enumerate() {
        let Some((ng, _, _)) = r else { continue };
        if corners
            .iter()
            .any(|c| c[i].is_none_or(|(n, _, _)| n != *ng))
        {
            continue;
        }
        let got = img.radiance[i].y;
        if ng.dot(l) < -0.02 {
            away += 1;
            assert_eq!(got, 0.0, "pixel {i}: a facet away from the sun is lit");
        } else if ng.dot(l) > 0.05 {
            lit += 1;
            let want = ALBEDO * ng.dot(l);
            assert!(
                (got - want).abs() < 0.1 * want + 0.01,
                "pixel {i}: {got} vs {want}"
            );
        }
    }
    assert!(away > 1000 && lit > 1000, "{away} {lit}");
}

/// The lifted shadow rays are still shadow rays: a wall between the sun and the smooth sphere,
/// 0.3 units from it (ten times the lift, about 0.03 here), leaves every pixel of the sphere
/// black, the terminator band included (no origin is lifted past the wall, and no triangle is
/// skipped).
#[test]
fn a_wall_before_the_sun_still_shadows_the_terminator_band() {
    let dir = tempfile::tempdir().unwrap();
    let tris = sphere(12, 6);
    let rays = cast(&tris);
    let mut both = tris.clone();
    // A 20 × 20 wall at x = 1.3 facing the sphere (outside the view: the image is 2.4 wide).
    let (a, b, c, d) = (
        Vec3::new(1.3, -10.0, -10.0),
        Vec3::new(1.3, 10.0, -10.0),
        Vec3::new(1.3, 10.0, 10.0),
        Vec3::new(1.3, -10.0, 10.0),
    );
    let n = -Vec3::X;
    both.push([(a, n), (c, n), (b, n)]);
    both.push([(a, n), (d, n), (c, n)]);
    let file = write_mesh(dir.path(), "walled", &both, false);
    let img = render(&file, 16, 2);
    let (n, _, dark) = band(&img, &rays, false);
    assert!(n > 150 && dark == 1.0, "{n} band pixels, dark share {dark}");
    let lit = img
        .radiance
        .iter()
        .filter(|c| c.max_element() > 0.0)
        .count();
    assert_eq!(lit, 0, "{lit} pixels are lit behind the wall");
}
