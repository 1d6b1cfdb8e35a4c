//! The Khronos glTF sample models (`tests/data/gltf`, with their licences) baked and measured
//! on pixels: each test asserts the property its model exists to test (its README), not only
//! that it bakes.
//!
//! Flat test boards (TextureCoordinateTest, TextureTransformTest, TextureSettingsTest,
//! VertexColorTest, BoxTextured, BoxVertexColors) are checked against an independent
//! reference: the file read again with the `gltf` crate's own importer (its own image
//! decoding), rasterised here along the orthographic camera's axis, each pixel's expected base
//! colour computed from the spec (sRGB decode, the sampler's wrap modes, KHR_texture_transform
//! as its README writes it, COLOR_0). Under a uniform white sky a front-facing opaque
//! surface's radiance is a fixed affine function of its albedo (k·albedo + c: the specular
//! layer adds the same to every texel), so the render must fit the reference with a high R²;
//! each test also fits a wrong hypothesis (the transform ignored, the wrap modes replaced, no
//! vertex colours, v flipped) and asserts it fits clearly worse, which shows the measurement
//! can fail.

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2, Vec3, Vec4};
use pfx_bake::camera::Camera;
use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene::{self, Projection, Scene, Sky, SkyKind};
use pfx_bake::world::World;

fn model_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gltf")
        .join(rel)
}

/// How a view is lit.
#[derive(Clone, Copy)]
enum Lighting {
    /// A uniform sky of radiance 1 (RGBE-exact), nothing else.
    WhiteSky,
    /// A point light at the camera of `intensity` W·sr⁻¹, black sky.
    Flash(f32),
    /// An authored sun of irradiance 2 towards `toward`, black sky.
    Sun([f32; 3]),
    /// Nothing: only emitters are seen.
    Dark,
}

/// A camera: perspective (`ortho_height` None, `fov` degrees) or orthographic.
#[derive(Clone, Copy)]
struct View {
    at: Vec3,
    look_at: Vec3,
    up: Vec3,
    fov: f32,
    ortho_height: Option<f32>,
}

impl View {
    /// Orthographic, looking down −Z at `centre`, `height` world units tall.
    fn front(centre: Vec2, height: f32) -> View {
        View {
            at: Vec3::new(centre.x, centre.y, 50.0),
            look_at: Vec3::new(centre.x, centre.y, 0.0),
            up: Vec3::Y,
            fov: 40.0,
            ortho_height: Some(height),
        }
    }
}

/// A render of one model, with the camera that made it.
struct Render {
    image: Image,
    camera: Camera,
}

impl Render {
    fn px(&self, x: u32, y: u32) -> Vec3 {
        assert!(
            x < self.image.width && y < self.image.height,
            "pixel {x}, {y} is outside"
        );
        self.image.radiance[(y * self.image.width + x) as usize]
    }

    /// The pixel a world point projects to (x right, y down, fractional).
    fn project(&self, p: Vec3) -> Vec2 {
        let clip = self.camera.projection_matrix() * self.camera.view_matrix() * p.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        Vec2::new(
            (ndc.x + 1.0) * 0.5 * self.image.width as f32,
            (1.0 - ndc.y) * 0.5 * self.image.height as f32,
        )
    }

    /// Mean radiance of the pixels whose centres lie within `r` pixels of `c`.
    fn disk_mean(&self, c: Vec2, r: f32) -> Vec3 {
        self.ring_mean(c, 0.0, r)
    }

    /// Mean radiance of the pixels whose centres lie between `r0` and `r1` pixels of `c`.
    fn ring_mean(&self, c: Vec2, r0: f32, r1: f32) -> Vec3 {
        let (mut sum, mut n) = (Vec3::ZERO, 0);
        for y in 0..self.image.height {
            for x in 0..self.image.width {
                let d = (Vec2::new(x as f32 + 0.5, y as f32 + 0.5) - c).length();
                if d >= r0 && d <= r1 {
                    sum += self.px(x, y);
                    n += 1;
                }
            }
        }
        assert!(n > 0, "no pixel within {r1} of {c}");
        sum / n as f32
    }
}

/// Renders the model at `rel` (under tests/data/gltf) placed as the file has it.
fn render(rel: &str, view: View, size: [u32; 2], spp: u32, lighting: Lighting) -> Render {
    let dir = tempfile::tempdir().unwrap();
    let hdr = dir.path().join("white.hdr");
    let file = std::fs::File::create(&hdr).unwrap();
    image::codecs::hdr::HdrEncoder::new(file)
        .encode(&[image::Rgb([1.0f32; 3]); 8], 4, 2)
        .unwrap();
    let dist = (view.at - view.look_at).length();
    let mut scene = Scene {
        root: dir.path().to_path_buf(),
        file: "pixels.scene.toml".into(),
        meshes: vec![scene::Mesh {
            key: "model".into(),
            file: model_path(rel),
            ..Default::default()
        }],
        objects: vec![scene::Object {
            key: "model".into(),
            mesh: "model".into(),
            scale: [1.0; 3],
            alpha_cutoff: 0.5,
            pick: 1,
            ..Default::default()
        }],
        camera: Some(scene::Camera {
            projection: if view.ortho_height.is_some() {
                Projection::Orthographic
            } else {
                Projection::Perspective
            },
            at: view.at.into(),
            look_at: view.look_at.into(),
            up: view.up.into(),
            fov: view.fov,
            height: view.ortho_height,
            near: dist * 1e-4,
            far: dist * 10.0,
            ..Default::default()
        }),
        ..Default::default()
    };
    match lighting {
        Lighting::WhiteSky => {
            scene.sky = Some(Sky {
                kind: SkyKind::Hdr,
                path: Some(hdr),
                rotation_deg: 0.0,
                intensity: 1.0,
                ..Default::default()
            })
        }
        Lighting::Flash(intensity) => scene.lights.push(scene::Light {
            key: "flash".into(),
            id: None,
            position: view.at.into(),
            parent: None,
            color: [1.0; 3],
            intensity,
            radius: 0.0,
            range: 0.0,
            shadow: true,
        }),
        Lighting::Sun(toward) => {
            scene.sun = Some(scene::Sun {
                model: scene::SunModel::Authored,
                hour: 12.0,
                day: 172.0,
                latitude: 45.0,
                heading: 180.0,
                reference_hour: 12.0,
                toward: Some(toward),
                color: [1.0; 3],
                irradiance: Some(2.0),
                radius: 0.0,
            })
        }
        Lighting::Dark => {}
    }
    let world = World::build(&scene, size).unwrap_or_else(|e| panic!("{rel}: {:#?}", e.0));
    let image = integrator::render(
        &world,
        &Settings {
            spp,
            seed: 7,
            ..Settings::default()
        },
        &NoProgress,
    );
    assert_eq!(image.dropped, 0, "{rel}: non-finite samples");
    assert!(
        image
            .radiance
            .iter()
            .all(|c| c.is_finite() && c.min_element() >= 0.0),
        "{rel}: a pixel is not finite and non-negative"
    );
    let camera = Camera::new(scene.camera.as_ref().unwrap(), size);
    Render { image, camera }
}

// ---------------------------------------------------------------------------------------------
// The independent reference: the file's triangles, materials and images as the `gltf` crate
// imports them, and the base colour the glTF spec gives at a point.

/// A wrap mode of the reference sampler.
#[derive(Clone, Copy, PartialEq, Debug)]
enum RefWrap {
    Repeat,
    Clamp,
    Mirror,
}

fn ref_wrap(m: gltf::texture::WrappingMode) -> RefWrap {
    match m {
        gltf::texture::WrappingMode::Repeat => RefWrap::Repeat,
        gltf::texture::WrappingMode::ClampToEdge => RefWrap::Clamp,
        gltf::texture::WrappingMode::MirroredRepeat => RefWrap::Mirror,
    }
}

/// The texel index for texel coordinate `i` of `n` (the glTF spec's wrap definitions).
fn wrap_index(w: RefWrap, i: i64, n: i64) -> usize {
    (match w {
        RefWrap::Repeat => i.rem_euclid(n),
        RefWrap::Clamp => i.clamp(0, n - 1),
        RefWrap::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m < n {
                m
            } else {
                2 * n - 1 - m
            }
        }
    }) as usize
}

fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

struct RefTexture {
    width: i64,
    height: i64,
    /// sRGB-encoded RGBA in [0, 1] as stored.
    texels: Vec<[f32; 4]>,
    wrap: [RefWrap; 2],
    tex_coord: usize,
    /// KHR_texture_transform: offset, rotation, scale.
    transform: Option<(Vec2, f32, Vec2)>,
}

struct RefMaterial {
    factor: Vec4,
    texture: Option<RefTexture>,
    /// Some(cutoff) for alphaMode MASK.
    mask: Option<f32>,
    blend: bool,
}

struct RefTriangle {
    p: [Vec3; 3],
    uv: [[Vec2; 3]; 2],
    color: [Vec4; 3],
    material: usize,
}

struct Reference {
    triangles: Vec<RefTriangle>,
    materials: Vec<RefMaterial>,
}

/// What the reference gets wrong on purpose, to show a measurement can fail.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Hypothesis {
    /// The glTF spec.
    Spec,
    /// KHR_texture_transform ignored.
    NoTransform,
    /// Every wrap mode replaced by REPEAT.
    RepeatOnly,
    /// COLOR_0 ignored.
    NoVertexColours,
    /// v measured from the bottom of the image (the OpenGL habit glTF does not have).
    FlipV,
}

/// The raw JSON of a .gltf or .glb (the importer's document keeps no unknown extensions).
fn raw_json(path: &Path) -> serde_json::Value {
    let bytes = std::fs::read(path).unwrap();
    if bytes.starts_with(b"glTF") {
        let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        serde_json::from_slice(&bytes[20..20 + len]).unwrap()
    } else {
        serde_json::from_slice(&bytes).unwrap()
    }
}

impl Reference {
    fn load(rel: &str) -> Reference {
        let path = model_path(rel);
        let raw = raw_json(&path);
        let (doc, buffers, images) = gltf::import(&path).unwrap();
        let materials = doc
            .materials()
            .map(|m| {
                let pbr = m.pbr_metallic_roughness();
                let texture = pbr.base_color_texture().map(|info| {
                    let tex = info.texture();
                    let img = &images[tex.source().index()];
                    let n = (img.width * img.height) as usize;
                    let texels = (0..n)
                        .map(|i| {
                            let g = |c: usize, k: usize| f32::from(img.pixels[i * k + c]) / 255.0;
                            match img.format {
                                gltf::image::Format::R8G8B8A8 => [g(0, 4), g(1, 4), g(2, 4), g(3, 4)],
                                gltf::image::Format::R8G8B8 => [g(0, 3), g(1, 3), g(2, 3), 1.0],
                                gltf::image::Format::R8 => [g(0, 1), g(0, 1), g(0, 1), 1.0],
                                gltf::image::Format::R8G8 => [g(0, 2), g(0, 2), g(0, 2), g(1, 2)],
                                f => panic!("{rel}: reference reads 8-bit images only, not {f:?}"),
                            }
                        })
                        .collect();
                    let xf = m.index().and_then(|i| {
                        raw.pointer(&format!(
                            "/materials/{i}/pbrMetallicRoughness/baseColorTexture/extensions/KHR_texture_transform"
                        ))
                    });
                    let pair = |x: &serde_json::Value, k: &str, d: f32| {
                        x.get(k).map_or(Vec2::splat(d), |v| {
                            Vec2::new(v[0].as_f64().unwrap() as f32, v[1].as_f64().unwrap() as f32)
                        })
                    };
                    let transform = xf.map(|x| {
                        (
                            pair(x, "offset", 0.0),
                            x.get("rotation").and_then(|r| r.as_f64()).unwrap_or(0.0) as f32,
                            pair(x, "scale", 1.0),
                        )
                    });
                    let tex_coord = xf
                        .and_then(|x| x.get("texCoord"))
                        .and_then(|t| t.as_u64())
                        .map_or(info.tex_coord() as usize, |t| t as usize);
                    RefTexture {
                        width: img.width as i64,
                        height: img.height as i64,
                        texels,
                        wrap: [ref_wrap(tex.sampler().wrap_s()), ref_wrap(tex.sampler().wrap_t())],
                        tex_coord,
                        transform,
                    }
                });
                RefMaterial {
                    factor: Vec4::from(pbr.base_color_factor()),
                    texture,
                    mask: (m.alpha_mode() == gltf::material::AlphaMode::Mask)
                        .then(|| m.alpha_cutoff().unwrap_or(0.5)),
                    blend: m.alpha_mode() == gltf::material::AlphaMode::Blend,
                }
            })
            .collect::<Vec<_>>();
        let default_material = materials.len();
        let mut materials = materials;
        materials.push(RefMaterial {
            factor: Vec4::ONE,
            texture: None,
            mask: None,
            blend: false,
        });
        let mut triangles = Vec::new();
        let scene = doc.default_scene().or_else(|| doc.scenes().next()).unwrap();
        let mut stack: Vec<(gltf::Node, Mat4)> =
            scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
        while let Some((node, parent)) = stack.pop() {
            let m = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
            for child in node.children() {
                stack.push((child, m));
            }
            let Some(mesh) = node.mesh() else { continue };
            for prim in mesh.primitives() {
                if prim.mode() != gltf::mesh::Mode::Triangles {
                    continue;
                }
                let r = prim.reader(|b| Some(&buffers[b.index()]));
                let pos: Vec<Vec3> = r
                    .read_positions()
                    .unwrap()
                    .map(|p| m.transform_point3(Vec3::from(p)))
                    .collect();
                let uvs: Vec<Vec<Vec2>> = (0..2)
                    .map(|s| {
                        r.read_tex_coords(s)
                            .map(|t| t.into_f32().map(Vec2::from).collect())
                            .unwrap_or_else(|| vec![Vec2::ZERO; pos.len()])
                    })
                    .collect();
                let colors: Vec<Vec4> = r
                    .read_colors(0)
                    .map(|c| c.into_rgba_f32().map(Vec4::from).collect())
                    .unwrap_or_else(|| vec![Vec4::ONE; pos.len()]);
                let indices: Vec<u32> = r
                    .read_indices()
                    .map(|i| i.into_u32().collect())
                    .unwrap_or_else(|| (0..pos.len() as u32).collect());
                let material = prim.material().index().unwrap_or(default_material);
                for t in indices.chunks_exact(3) {
                    let v = [t[0] as usize, t[1] as usize, t[2] as usize];
                    triangles.push(RefTriangle {
                        p: v.map(|i| pos[i]),
                        uv: [v.map(|i| uvs[0][i]), v.map(|i| uvs[1][i])],
                        color: v.map(|i| colors[i]),
                        material,
                    });
                }
            }
        }
        Reference {
            triangles,
            materials,
        }
    }

    /// The base colour (linear RGBA, alpha = factor × texel alpha) of material `m` at the
    /// interpolated attributes, nearest texel, as hypothesis `h` reads it.
    fn base_colour(&self, m: usize, uvs: [Vec2; 2], color: Vec4, h: Hypothesis) -> Vec4 {
        let mat = &self.materials[m];
        let mut c = mat.factor;
        if let Some(t) = &mat.texture {
            let mut uv = uvs[t.tex_coord.min(1)];
            if let (Some((o, r, s)), false) = (t.transform, h == Hypothesis::NoTransform) {
                // KHR_texture_transform's README: uv' = T · R · S · uv with
                // R = [[cos, sin], [−sin, cos]].
                let su = uv * s;
                uv = Vec2::new(
                    r.cos() * su.x + r.sin() * su.y,
                    -r.sin() * su.x + r.cos() * su.y,
                ) + o;
            }
            if h == Hypothesis::FlipV {
                uv.y = 1.0 - uv.y;
            }
            let wrap = if h == Hypothesis::RepeatOnly {
                [RefWrap::Repeat; 2]
            } else {
                t.wrap
            };
            let x = (uv.x as f64 * t.width as f64).floor() as i64;
            let y = (uv.y as f64 * t.height as f64).floor() as i64;
            let i = wrap_index(wrap[1], y, t.height) * t.width as usize
                + wrap_index(wrap[0], x, t.width);
            let s = t.texels[i];
            c *= Vec4::new(
                srgb_to_linear(s[0]),
                srgb_to_linear(s[1]),
                srgb_to_linear(s[2]),
                s[3],
            );
        }
        if h != Hypothesis::NoVertexColours {
            c *= color;
        }
        c
    }

    /// What an orthographic camera looking down −Z sees at world (x, y): the front-most
    /// triangle there that is not cut away by its MASK cut-off, as (material, base colour,
    /// z). `None` where nothing is, or where the front-most surface is BLEND.
    fn seen(&self, x: f32, y: f32, h: Hypothesis) -> Option<(usize, Vec4, f32)> {
        let mut hits: Vec<(f32, usize, Vec4)> = Vec::new();
        for t in &self.triangles {
            let [a, b, c] = t.p;
            let d = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
            if d.abs() < 1e-12 {
                continue;
            }
            let w1 = ((x - a.x) * (c.y - a.y) - (c.x - a.x) * (y - a.y)) / d;
            let w2 = ((b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y)) / d;
            let w0 = 1.0 - w1 - w2;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            let z = w0 * a.z + w1 * b.z + w2 * c.z;
            let uvs = [0, 1].map(|s| t.uv[s][0] * w0 + t.uv[s][1] * w1 + t.uv[s][2] * w2);
            let col = t.color[0] * w0 + t.color[1] * w1 + t.color[2] * w2;
            hits.push((z, t.material, self.base_colour(t.material, uvs, col, h)));
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (z, m, c) in hits {
            let mat = &self.materials[m];
            if mat.blend {
                return None;
            }
            if let Some(cut) = mat.mask {
                if c.w < cut {
                    continue;
                }
            }
            return Some((m, c, z));
        }
        None
    }
}

/// How a board's render fits one hypothesis.
#[derive(Debug)]
struct BoardFit {
    /// The worst R² of a material's own fit (its factor constant over it), over the
    /// materials whose rendered pixels vary.
    worst_r2: f64,
    /// The slope of the whole board's fit (≈ 1 for a diffuse board: radiance ≈ albedo).
    k: f64,
    /// The pixels measured.
    n: usize,
    /// For a wrong hypothesis: of the pixels where it and the spec predict colours more than
    /// 0.15 apart, the share whose rendered colour is nearer the spec's (through the spec's
    /// fit), and their count.
    nearer_spec: f64,
    discriminating: usize,
}

/// A flat board seen from the front under the white sky, against the reference, for each
/// hypothesis (the first must be the spec), over the pixels whose expected colour is steady
/// across the pixel (texel and triangle edges left out). `keep` picks the reference's
/// materials measured.
fn board(
    rel: &str,
    centre: Vec2,
    height: f32,
    size: u32,
    spp: u32,
    hypotheses: &[Hypothesis],
    keep: &dyn Fn(usize) -> bool,
) -> Vec<BoardFit> {
    assert_eq!(hypotheses[0], Hypothesis::Spec);
    let r = render(
        rel,
        View::front(centre, height),
        [size, size],
        spp,
        Lighting::WhiteSky,
    );
    let reference = Reference::load(rel);
    let px = height / size as f32;
    let world = |x: f32, y: f32| {
        Vec2::new(
            centre.x + (x / size as f32 - 0.5) * height,
            centre.y + (0.5 - y / size as f32) * height,
        )
    };
    // Per hypothesis, per pixel: (material, expected colour) where steady.
    let tables: Vec<Vec<Option<(usize, Vec3)>>> = hypotheses
        .iter()
        .map(|&h| {
            (0..size * size)
                .map(|i| {
                    let c = world((i % size) as f32 + 0.5, (i / size) as f32 + 0.5);
                    let (m, want, _) = reference.seen(c.x, c.y, h)?;
                    if !keep(m) {
                        return None;
                    }
                    let steady = [(-0.6f32, -0.6f32), (0.6, -0.6), (-0.6, 0.6), (0.6, 0.6)]
                        .iter()
                        .all(|&(dx, dy)| {
                            reference.seen(c.x + dx * px, c.y + dy * px, h).is_some_and(
                                |(m2, w2, _)| m2 == m && (w2 - want).abs().max_element() < 0.02,
                            )
                        });
                    steady.then_some((m, want.truncate()))
                })
                .collect()
        })
        .collect();
    let rendered = |i: usize| r.px(i as u32 % size, i as u32 / size);
    // The materials whose texels vary over the board, as the spec reads them: each is fitted
    // on its own (its factor constant over it), so that the factors alone cannot carry a fit.
    let mut varying = Vec::new();
    for m in 0..reference.materials.len() {
        let own: Vec<Vec3> = tables[0]
            .iter()
            .flatten()
            .filter(|e| e.0 == m)
            .map(|e| e.1)
            .collect();
        if own.len() < 100 {
            continue;
        }
        let mean = own.iter().copied().sum::<Vec3>() / own.len() as f32;
        let var = own
            .iter()
            .map(|e| (*e - mean).length_squared())
            .sum::<f32>()
            / own.len() as f32;
        if var > 1e-3 {
            varying.push(m);
        }
    }
    let mut spec_fit = (0.0, 0.0);
    hypotheses
        .iter()
        .zip(&tables)
        .map(|(&h, table)| {
            let pairs: Vec<(usize, Vec3, Vec3)> = table
                .iter()
                .enumerate()
                .filter_map(|(i, e)| e.map(|(m, want)| (m, want, rendered(i))))
                .collect();
            let all: Vec<(Vec3, Vec3)> = pairs.iter().map(|p| (p.1, p.2)).collect();
            let (_, k, c) = fit(&all);
            if h == Hypothesis::Spec {
                spec_fit = (k, c);
            }
            let mut worst = 1.0f64;
            for &m in &varying {
                let own: Vec<(Vec3, Vec3)> = pairs
                    .iter()
                    .filter(|p| p.0 == m)
                    .map(|p| (p.1, p.2))
                    .collect();
                if own.len() >= 100 {
                    worst = worst.min(fit(&own).0);
                }
            }
            // Where this hypothesis and the spec disagree, which one the render follows.
            let (sk, sc) = spec_fit;
            let (mut nearer, mut disc) = (0usize, 0usize);
            if h != Hypothesis::Spec {
                for (i, (a, b)) in tables[0].iter().zip(table).enumerate() {
                    let (Some((_, s)), Some((_, w))) = (a, b) else {
                        continue;
                    };
                    if (*s - *w).abs().max_element() <= 0.15 {
                        continue;
                    }
                    let v = rendered(i);
                    let predict = |e: Vec3| e * sk as f32 + Vec3::splat(sc as f32);
                    disc += 1;
                    nearer += usize::from(
                        (v - predict(*s)).length_squared() < (v - predict(*w)).length_squared(),
                    );
                }
            }
            let f = BoardFit {
                worst_r2: worst,
                k,
                n: pairs.len(),
                nearer_spec: nearer as f64 / disc.max(1) as f64,
                discriminating: disc,
            };
            eprintln!("{rel} {h:?}: {f:?}");
            f
        })
        .collect()
}

/// R² of the least-squares fit `rendered ≈ k · expected + c` over every channel of `pairs`,
/// k and c.
fn fit(pairs: &[(Vec3, Vec3)]) -> (f64, f64, f64) {
    let xs: Vec<(f64, f64)> = pairs
        .iter()
        .flat_map(|(e, r)| (0..3).map(move |i| (e[i] as f64, r[i] as f64)))
        .collect();
    let n = xs.len() as f64;
    let mx = xs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = xs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = xs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = xs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let syy: f64 = xs.iter().map(|p| (p.1 - my).powi(2)).sum();
    let k = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    let c = my - k * mx;
    let sse: f64 = xs.iter().map(|p| (p.1 - (k * p.0 + c)).powi(2)).sum();
    (1.0 - sse / syy.max(1e-12), k, c)
}

/// Asserts the spec's reading fits (each material's R² ≥ `good`, the slope of a diffuse
/// board) and that where a wrong reading predicts other colours, at least 95% of those
/// pixels follow the spec.
fn assert_spec_fits(rel: &str, fits: &[BoardFit], good: f64) {
    let spec = &fits[0];
    assert!(spec.n > 200, "{rel}: only {} steady pixels", spec.n);
    assert!(
        spec.worst_r2 >= good,
        "{rel}: the spec's texels fit with R² {}",
        spec.worst_r2
    );
    assert!((0.8..=1.05).contains(&spec.k), "{rel}: slope {}", spec.k);
    for (i, wrong) in fits.iter().enumerate().skip(1) {
        assert!(
            wrong.discriminating >= 50,
            "{rel}: hypothesis {i} differs from the spec at {} pixels only",
            wrong.discriminating
        );
        assert!(
            wrong.nearer_spec >= 0.95,
            "{rel}: where hypothesis {i} differs, only {} of the pixels follow the spec",
            wrong.nearer_spec
        );
    }
}

#[test]
fn texture_coordinate_test_shows_each_quadrant_of_its_texture() {
    // Four quads, each showing the quarter of one image its name says (TopLeft reads
    // u, v in [0, 0.4]: the image's top-left, v = 0 at the top).
    let rel = "TextureCoordinateTest/TextureCoordinateTest.glb";
    let fits = board(
        rel,
        Vec2::ZERO,
        2.6,
        400,
        4,
        &[Hypothesis::Spec, Hypothesis::FlipV],
        &|_| true,
    );
    assert_spec_fits(rel, &fits, 0.95);
}

#[test]
fn texture_transform_test_offsets_rotates_and_scales() {
    // Six quads: offsets (0.5, 0), (0, 0.5), (0.5, 0.5), a rotation of 22.5°, a scale of 1.5
    // and all three, clamped; the markers on top show where the arrow must point.
    let rel = "TextureTransformTest/glTF/TextureTransformTest.gltf";
    let fits = board(
        rel,
        Vec2::ZERO,
        3.4,
        160,
        8,
        &[
            Hypothesis::Spec,
            Hypothesis::NoTransform,
            Hypothesis::RepeatOnly,
        ],
        &|_| true,
    );
    assert_spec_fits(rel, &fits, 0.85);
}

#[test]
fn texture_settings_test_wraps_repeat_clamp_and_mirror() {
    // The test column (x from 0 to 3.05): REPEAT, CLAMP_TO_EDGE and MIRRORED_REPEAT along S
    // and T. Every box must show its green check (clamp: solid green), no red X.
    let rel = "TextureSettingsTest/TextureSettingsTest.glb";
    let reference = Reference::load(rel);
    let textured = |m: usize| reference.materials[m].texture.is_some();
    let fits = board(
        rel,
        Vec2::new(0.0, -0.6),
        10.6,
        256,
        8,
        &[Hypothesis::Spec, Hypothesis::RepeatOnly],
        &textured,
    );
    assert_spec_fits(rel, &fits, 0.93);
    // And on the colours themselves: in the six wrap boxes, no pixel is red-dominant (an X
    // or a solid red fail), and each shows green.
    let r = render(
        rel,
        View::front(Vec2::new(1.528, -2.124), 6.6),
        [192, 192],
        8,
        Lighting::WhiteSky,
    );
    let boxes = [
        ("clamp S", 0.017, 0.917),
        ("clamp T", -1.02, -0.12),
        ("repeat S", -2.054, -1.154),
        ("repeat T", -3.091, -2.191),
        ("mirror S", -4.128, -3.228),
        ("mirror T", -5.165, -4.265),
    ];
    for (name, y0, y1) in boxes {
        let a = r.project(Vec3::new(0.1, y1 - 0.05, 0.0));
        let b = r.project(Vec3::new(2.95, y0 + 0.05, 0.0));
        let (mut red, mut green, mut n) = (0, 0, 0);
        for y in a.y.ceil() as u32..b.y.floor() as u32 {
            for x in a.x.ceil() as u32..b.x.floor() as u32 {
                let c = r.px(x, y);
                n += 1;
                if c.x > 2.0 * c.y && c.x > 0.1 {
                    red += 1;
                }
                if c.y > 2.0 * c.x && c.y > 0.1 {
                    green += 1;
                }
            }
        }
        eprintln!("{name}: {n} pixels, {red} red, {green} green");
        assert!(n > 300, "{name}: {n}");
        assert!(red * 100 <= n, "{name}: {red} of {n} pixels are red");
        assert!(
            green * 20 >= n,
            "{name}: only {green} of {n} pixels are green"
        );
    }
}

#[test]
fn vertex_color_test_multiplies_the_base_colour_by_color_0() {
    // The top row's checks are multiplied by red, green and blue vertex colours; without
    // them cyan, magenta and yellow Xs show.
    let rel = "VertexColorTest/VertexColorTest.glb";
    let fits = board(
        rel,
        Vec2::ZERO,
        2.1,
        160,
        8,
        &[Hypothesis::Spec, Hypothesis::NoVertexColours],
        &|_| true,
    );
    assert_spec_fits(rel, &fits, 0.93);
}

#[test]
fn box_textured_and_box_vertex_colors_show_their_front_faces() {
    let rel = "BoxTextured/BoxTextured.glb";
    let fits = board(
        rel,
        Vec2::ZERO,
        1.2,
        96,
        8,
        &[Hypothesis::Spec, Hypothesis::FlipV],
        &|_| true,
    );
    assert_spec_fits(rel, &fits, 0.9);
    let rel = "BoxVertexColors/BoxVertexColors.glb";
    let fits = board(
        rel,
        Vec2::splat(0.5),
        1.6,
        96,
        8,
        &[Hypothesis::Spec, Hypothesis::NoVertexColours],
        &|_| true,
    );
    assert_spec_fits(rel, &fits, 0.9);
}

/// World bounds of each part of a model as the loader places it, with its node path.
fn parts(rel: &str) -> Vec<(Vec<String>, Vec3, Vec3)> {
    let m = pfx_bake::assets::load_gltf(&model_path(rel), None).unwrap();
    m.parts
        .iter()
        .map(|part| {
            let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
            for p in &m.geometries[part.geometry].positions {
                let w = part.transform.transform_point3(*p);
                lo = lo.min(w);
                hi = hi.max(w);
            }
            (part.node_path.clone(), lo, hi)
        })
        .collect()
}

/// The part whose node is named `name`: (centre, half extent).
fn part(all: &[(Vec<String>, Vec3, Vec3)], name: &str) -> (Vec3, Vec3) {
    let (_, lo, hi) = all
        .iter()
        .find(|(path, _, _)| path.last().is_some_and(|n| n == name))
        .unwrap_or_else(|| panic!("no node {name}"));
    ((*lo + *hi) * 0.5, (*hi - *lo) * 0.5)
}

#[test]
fn metal_rough_spheres_turn_from_dielectric_to_metal_along_the_grid() {
    // A grid of grey spheres (base 0.6): metallic 0 to 1 up the grid, roughness 0 to 1
    // across. Lit by a point light at the camera, a dielectric sphere is lit all over its
    // disk (Lambert), a metal one only where its lobe reflects the light back: towards the
    // rim of a smooth sphere, the radiance falls as 1 − metallic (glTF's linear blend).
    let rel = "MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb";
    let all = parts(rel);
    let (c0, _) = part(&all, "m0%_r0%");
    let (c1, _) = part(&all, "m100%_r100%");
    let centre = (c0 + c1) * 0.5;
    let dist = 12.0 * (c1 - c0).length();
    let view = View {
        at: centre + Vec3::Z * dist,
        look_at: centre,
        up: Vec3::Y,
        fov: 4.2,
        ortho_height: None,
    };
    let r = render(rel, view, [320, 320], 16, Lighting::Flash(dist * dist));
    let metals = ["0", "16", "33", "50", "66", "83", "100"];
    for rough in ["0", "16"] {
        let rings: Vec<f32> = metals
            .iter()
            .map(|m| {
                let (c, e) = part(&all, &format!("m{m}%_r{rough}%"));
                let pc = r.project(c);
                let rad = (r.project(c + Vec3::X * e.x) - pc).length();
                // Between 45% and 85% of the disk's radius: clear of a smooth lobe's highlight
                // at the centre, inside the silhouette.
                let v = r.ring_mean(pc, 0.45 * rad, 0.85 * rad);
                (v.x + v.y + v.z) / 3.0
            })
            .collect();
        eprintln!("roughness {rough}%: ring means {rings:?}");
        assert!(rings[0] > 0.05, "the dielectric sphere is dark: {rings:?}");
        // Darker at every step up the grid.
        assert!(rings.windows(2).all(|w| w[1] < w[0]), "{rings:?}");
        assert!(
            rings[6] < 0.06 * rings[0],
            "the metal sphere's rim is lit: {rings:?}"
        );
        if rough == "0" {
            // Mirror-smooth: the rim sees only the diffuse part, (1 − metallic) of it.
            for (i, m) in [0.0f32, 1.0 / 6.0, 2.0 / 6.0, 0.5, 4.0 / 6.0, 5.0 / 6.0, 1.0]
                .iter()
                .enumerate()
            {
                let got = rings[i] / rings[0];
                assert!(
                    (got - (1.0 - m)).abs() < 0.06,
                    "metallic {m}: {got} of the dielectric's, want {}",
                    1.0 - m
                );
            }
        }
    }
}

#[test]
fn emissive_strength_test_cubes_are_brighter_by_their_strength() {
    // Five cubes emitting [0.1, 0.5, 0.9] times 1, 2, 4, 8 and 16, base colour black, in the
    // dark: each front face's radiance is its emission.
    let rel = "EmissiveStrengthTest/EmissiveStrengthTest.glb";
    let r = render(
        rel,
        View::front(Vec2::ZERO, 4.0),
        [240, 64],
        4,
        Lighting::Dark,
    );
    let all = parts(rel);
    let faces: Vec<Vec3> = ["Cube1", "Cube2", "Cube4", "Cube8", "Cube16"]
        .iter()
        .map(|n| {
            let (c, e) = part(&all, n);
            let pc = r.project(c + Vec3::Z * e.z);
            let rad = (r.project(c + Vec3::X * e.x) - r.project(c)).length();
            r.disk_mean(pc, 0.6 * rad)
        })
        .collect();
    eprintln!("front faces: {faces:?}");
    let base = Vec3::new(0.1, 0.5, 0.9);
    assert!(
        (faces[0] - base).abs().max_element() < 0.02,
        "strength 1: {}",
        faces[0]
    );
    for (k, s) in [1.0f32, 2.0, 4.0, 8.0, 16.0].iter().enumerate() {
        let ratio = faces[k].y / faces[0].y;
        assert!(
            (ratio / s - 1.0).abs() < 0.02,
            "strength {s}: ratio {ratio}"
        );
        assert!(((faces[k] / *s) - base).abs().max_element() < 0.03 * s.max(1.0));
    }
}

#[test]
fn alpha_blend_mode_test_cuts_at_each_materials_cutoff() {
    // Five test boards share one texture whose alpha ramps from 0 to 1: OPAQUE ignores the
    // alpha, MASK cuts below 0.25, 0.5 (the default) and 0.75, BLEND keeps a point with
    // probability alpha. Seen orthographically from the front, the depth at each pixel centre
    // says which surface is seen (the board at z = 0, or what is behind it); the reference
    // says which should be.
    let rel = "AlphaBlendModeTest/AlphaBlendModeTest.glb";
    let size = 384;
    let (centre, height) = (Vec2::new(0.0, 1.0), 7.4);
    let r = render(
        rel,
        View::front(centre, height),
        [size, size / 2],
        4,
        Lighting::WhiteSky,
    );
    let reference = Reference::load(rel);
    let boards = [
        ("opaque", -3.0f32, None),
        ("cutoff 0.25", 0.0, Some(0.25f32)),
        ("cutoff default", 1.5, Some(0.5)),
        ("cutoff 0.75", 3.0, Some(0.75)),
    ];
    let width = size as f32;
    let rows = (size / 2) as f32;
    let world = |x: f32, y: f32| {
        Vec2::new(
            centre.x + (x / width - 0.5) * height * 2.0,
            centre.y + (0.5 - y / rows) * height,
        )
    };
    let mut shares = Vec::new();
    for (name, bx, cut) in boards {
        let (mut agree, mut n, mut kept) = (0, 0, 0);
        for y in 0..size / 2 {
            for x in 0..size {
                let c = world(x as f32 + 0.5, y as f32 + 0.5);
                // Well inside the board's texture (x ±0.45 of its centre, y from 0.2 to 1.85).
                if (c.x - bx).abs() > 0.45 || c.y < 0.2 || c.y > 1.85 {
                    continue;
                }
                let Some((_, want, z)) = reference.seen(c.x, c.y, Hypothesis::Spec) else {
                    continue;
                };
                // Leave out pixels at the cut's edge (the alpha within 0.03 of the cutoff).
                if let Some(cut) = cut {
                    if z.abs() < 1e-3 && (want.w - cut).abs() < 0.03 {
                        continue;
                    }
                }
                let i = (y * size + x) as usize;
                let Some(depth) = r.image.depth[i] else {
                    continue;
                };
                // The camera sits at z = 50 looking down −Z.
                let seen_z = 50.0 - depth;
                n += 1;
                agree += usize::from((seen_z - z).abs() < 0.02);
                kept += usize::from(seen_z.abs() < 0.02);
            }
        }
        eprintln!("{name}: {agree} of {n} pixels agree, {kept} show the board");
        assert!(n > 500, "{name}: {n}");
        assert!(agree * 100 >= n * 98, "{name}: {agree} of {n} agree");
        shares.push(kept as f32 / n as f32);
    }
    // OPAQUE keeps the whole board; each higher cutoff keeps less of the ramp.
    assert!(shares[0] > 0.99, "{shares:?}");
    assert!(
        shares[1] > shares[2] + 0.1 && shares[2] > shares[3] + 0.1,
        "{shares:?}"
    );
}

#[test]
fn negative_scale_test_spheres_are_lit_alike_mirrored_or_not() {
    // Each pair of spheres, one under a mirroring node scale (determinant −1), must look the
    // same: the mirrored one's normals turned back out, lit from the same side.
    let rel = "NegativeScaleTest/NegativeScaleTest.glb";
    let r = render(
        rel,
        View::front(Vec2::new(2.0, -2.25), 4.4),
        [160, 160],
        16,
        Lighting::Sun([-0.5, 0.6, 0.7]),
    );
    let all = parts(rel);
    for (a, b) in [
        ("NotShiny1", "NotShinyMinus1"),
        ("Shiny1", "ShinyMinus1"),
        ("Dark1", "DarkMinus1"),
    ] {
        let (ca, ea) = part(&all, a);
        let (cb, _) = part(&all, b);
        let (pa, pb) = (r.project(ca), r.project(cb));
        let rad = (r.project(ca + Vec3::X * ea.x) - pa).length() * 0.9;
        let (mut diff, mut sum, mut sum_b, mut n) = (0.0f32, 0.0f32, 0.0f32, 0);
        let (mut lit, mut shaded) = (Vec3::ZERO, Vec3::ZERO);
        for dy in -(rad as i32)..=rad as i32 {
            for dx in -(rad as i32)..=rad as i32 {
                if ((dx * dx + dy * dy) as f32) > rad * rad {
                    continue;
                }
                let at = |p: Vec2| {
                    let (x, y) = (p.x as i32 + dx, p.y as i32 + dy);
                    assert!(x >= 0 && y >= 0, "{a}: the sphere leaves the image");
                    r.px(x as u32, y as u32)
                };
                let (va, vb) = (at(pa), at(pb));
                diff += (va - vb).abs().element_sum();
                sum += va.element_sum();
                sum_b += vb.element_sum();
                n += 1;
                // The sun is up and to the left: that side must be the bright one, on both.
                if dx < 0 && dy < 0 {
                    lit += va + vb;
                } else if dx > 0 && dy > 0 {
                    shaded += va + vb;
                }
            }
        }
        let rel_diff = diff / sum.max(1e-6);
        let mean_diff = (sum - sum_b).abs() / sum.max(1e-6);
        eprintln!(
            "{a} / {b}: {n} pixels, mean {:.4}, means differ by {mean_diff:.4}, pixels by \
             {rel_diff:.4}",
            sum / n as f32 / 3.0
        );
        assert!(n > 200, "{a}: {n}");
        // Pixel by pixel where the spheres are diffuse (the white pair). The shiny and the
        // dark pairs are mostly what they mirror, and their surroundings differ between the
        // two places (one has the board's edge beside it): their means are compared loosely.
        if !a.starts_with("NotShiny") {
            assert!(mean_diff < 0.3, "{a} and {b}: means differ by {mean_diff}");
        } else {
            assert!(mean_diff < 0.05, "{a} and {b}: means differ by {mean_diff}");
            assert!(rel_diff < 0.08, "{a} and {b} differ by {rel_diff}");
            assert!(
                lit.element_sum() > 2.0 * shaded.element_sum(),
                "{a}, {b}: lit side {lit}, shaded side {shaded}"
            );
        }
    }
}

#[test]
fn two_sided_plane_shows_both_faces_alike() {
    // One textured plane (y = 0, facing +Y): seen from below it reflects the sky as from
    // above (a path tracer draws both faces; docs/rendering.md).
    let rel = "TwoSidedPlane/glTF/TwoSidedPlane.gltf";
    let view = |y: f32| View {
        at: Vec3::new(0.0, y, 0.0),
        look_at: Vec3::ZERO,
        up: Vec3::Z,
        fov: 40.0,
        ortho_height: Some(1.8),
    };
    let top = render(rel, view(5.0), [64, 64], 16, Lighting::WhiteSky);
    let bottom = render(rel, view(-5.0), [64, 64], 16, Lighting::WhiteSky);
    let mean = |r: &Render| {
        assert!(
            r.image.coverage.iter().all(|&c| c == 1.0),
            "the plane fills the view"
        );
        r.image.radiance.iter().copied().sum::<Vec3>() / r.image.radiance.len() as f32
    };
    let (a, b) = (mean(&top), mean(&bottom));
    eprintln!("from above {a}, from below {b}");
    assert!(a.min_element() > 0.05, "{a}");
    assert!(((b - a).abs() / a).max_element() < 0.05, "{a} against {b}");
}

/// Pearson correlation of two equally long series.
fn correlation(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len() as f32;
    let (ma, mb) = (a.iter().sum::<f32>() / n, b.iter().sum::<f32>() / n);
    let cov: f32 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f32 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f32 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt().max(1e-12)
}

#[test]
fn normal_tangent_test_lighting_follows_the_generated_tangents() {
    // Pairs of cells: on the left real bumps and dents, on the right flat quads whose normal
    // map (no TANGENT in the file: MikkTSpace tangents) draws the same shapes. Lit by a sun
    // from the upper left, each mapped cell must be shaded like its real twin; mirrored top
    // to bottom (a flipped green channel or bitangent) it would be lit from below.
    let rel = "NormalTangentTest/NormalTangentTest.glb";
    let r = render(
        rel,
        View::front(Vec2::new(0.0, -0.125), 2.4),
        [240, 240],
        16,
        Lighting::Sun([-0.6, 0.6, 0.5]),
    );
    // The cells' pixel columns and rows in this view (30 pixels a side): the pink and the
    // blue columns of pairs (the third, metal, mirrors the black sky and shows little).
    let pairs = [(9, 41), (89, 121)];
    let rows = [12u32, 52, 92, 132, 172];
    let blocks = |x0: u32, y0: u32, flip: bool| -> Vec<f32> {
        // 5 × 5 blocks of 5 pixels over the cell's inner 25 pixels.
        let mut out = Vec::new();
        for by in 0..5u32 {
            for bx in 0..5u32 {
                let by = if flip { 4 - by } else { by };
                let mut sum = 0.0;
                for y in 0..5 {
                    for x in 0..5 {
                        let c = r.px(x0 + 3 + bx * 5 + x, y0 + 3 + by * 5 + y);
                        sum += c.x + c.y + c.z;
                    }
                }
                out.push(sum);
            }
        }
        out
    };
    for (real_x, mapped_x) in pairs {
        for &y in &rows {
            let real = blocks(real_x, y, false);
            let same = correlation(&real, &blocks(mapped_x, y, false));
            let flipped = correlation(&real, &blocks(mapped_x, y, true));
            eprintln!("cell at {real_x}, {y}: correlation {same:.3}, flipped {flipped:.3}");
            assert!(same > 0.75, "cell at {real_x}, {y}: correlation {same}");
            assert!(
                flipped < same - 0.3,
                "cell at {real_x}, {y}: flipped {flipped}"
            );
        }
    }
}

/// UnlitTest (KHR_materials_unlit): its orange (sRGB #FF7F00) and blue (#007FFF) objects must
/// show a uniform colour, "so much so that the 3D effect is intentionally lost" (its README):
/// seen from above a corner, so that three faces of each show, every pixel wholly on an object
/// is its base colour factor exactly (linear radiance, within 10⁻⁴), in the dark, under a sun
/// from the side, a flash at the camera and a white sky; and with the extension stripped from
/// the file the same pixels vary by face under the sun (the measurement can fail).
#[test]
fn unlit_test_objects_show_their_base_colour_whatever_the_light() {
    let rel = "UnlitTest/UnlitTest.glb";
    let view = View {
        at: Vec3::new(2.5, 3.0, 6.0),
        look_at: Vec3::ZERO,
        up: Vec3::Y,
        fov: 40.0,
        ortho_height: None,
    };
    let size = [128, 64];
    let sun = Lighting::Sun([-0.8, 0.3, 0.5]);
    let dark = render(rel, view, size, 4, Lighting::Dark);
    // The factors as the file stores them (linear), and the README's sRGB colours (the
    // stored 0.2176 encodes to 128.5 of 255, the README's 127 within a byte and a half).
    let raw = raw_json(&model_path(rel));
    let factor = |i: usize| {
        let f = &raw["materials"][i]["pbrMetallicRoughness"]["baseColorFactor"];
        Vec3::new(
            f[0].as_f64().unwrap() as f32,
            f[1].as_f64().unwrap() as f32,
            f[2].as_f64().unwrap() as f32,
        )
    };
    let (orange, blue) = (factor(0), factor(1));
    let encode = |c: f32| {
        if c <= 0.003_130_8 {
            c * 12.92
        } else {
            1.055 * c.powf(1.0 / 2.4) - 0.055
        }
    };
    for (c, want) in [(orange, [255.0, 127.0, 0.0]), (blue, [0.0, 127.0, 255.0])] {
        let got = [encode(c.x), encode(c.y), encode(c.z)].map(|v| v * 255.0);
        assert!(
            got.iter().zip(want).all(|(g, w)| (g - w).abs() <= 1.5),
            "{got:?} vs {want:?}"
        );
    }
    // A pixel wholly on one object: it and its 5 × 5 neighbourhood are of its colour's class
    // in the dark render (covered, the dominant channel the same), so a one-pixel box filter
    // holds nothing else.
    let class = |c: Vec3| {
        if c.max_element() <= 0.0 {
            0
        } else if c.x > c.z {
            1
        } else {
            2
        }
    };
    let (w, h) = (size[0] as i32, size[1] as i32);
    let mut inside = Vec::new();
    for y in 2..h - 2 {
        for x in 2..w - 2 {
            let k = class(dark.px(x as u32, y as u32));
            let whole = k != 0
                && (-2..=2).all(|dy| {
                    (-2..=2).all(|dx| class(dark.px((x + dx) as u32, (y + dy) as u32)) == k)
                });
            if whole {
                inside.push((x as u32, y as u32, if k == 1 { orange } else { blue }));
            }
        }
    }
    let count = |c: Vec3| inside.iter().filter(|p| p.2 == c).count();
    eprintln!(
        "wholly covered pixels: orange {}, blue {}",
        count(orange),
        count(blue)
    );
    assert!(
        count(orange) > 300 && count(blue) > 300,
        "the objects are not seen"
    );
    for (name, r) in [
        ("dark", &dark),
        ("sun", &render(rel, view, size, 4, sun)),
        ("flash", &render(rel, view, size, 4, Lighting::Flash(40.0))),
        ("white sky", &render(rel, view, size, 4, Lighting::WhiteSky)),
    ] {
        let worst = inside
            .iter()
            .map(|&(x, y, c)| (r.px(x, y) - c).abs().max_element())
            .fold(0.0f32, f32::max);
        eprintln!("{name}: largest difference from the base colour {worst:.2e}");
        assert!(worst <= 1e-4, "{name}: a pixel differs by {worst}");
    }
    // The same file without the extension (a rough metal of the same base colour, the
    // extension's fallback): lit by the sun its faces differ.
    let bytes = std::fs::read(model_path(rel)).unwrap();
    let mut json = raw.clone();
    for m in json["materials"].as_array_mut().unwrap() {
        m.as_object_mut().unwrap().remove("extensions");
    }
    let root = json.as_object_mut().unwrap();
    root.remove("extensionsUsed");
    root.remove("extensionsRequired");
    let mut text = serde_json::to_vec(&json).unwrap();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let bin = &bytes[20 + json_len..];
    let mut glb = Vec::new();
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&((12 + 8 + text.len() + bin.len()) as u32).to_le_bytes());
    glb.extend_from_slice(&(text.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&text);
    glb.extend_from_slice(bin);
    let dir = tempfile::tempdir().unwrap();
    let lit_file = dir.path().join("lit.glb");
    std::fs::write(&lit_file, glb).unwrap();
    let lit = render(lit_file.to_str().unwrap(), view, size, 4, sun);
    let spread = |c: Vec3| {
        let ys = inside
            .iter()
            .filter(|p| p.2 == c)
            .map(|&(x, y, _)| lit.px(x, y).max_element());
        let (lo, hi) = ys.fold((f32::MAX, 0.0f32), |(lo, hi), v| (lo.min(v), hi.max(v)));
        hi - lo
    };
    let (so, sb) = (spread(orange), spread(blue));
    eprintln!(
        "lit without the extension: brightest minus darkest pixel, orange {so:.3}, blue {sb:.3}"
    );
    assert!(
        so > 0.1 && sb > 0.1,
        "the lit reading is not told apart: {so}, {sb}"
    );
}

#[test]
fn clear_coat_test_adds_the_coats_reflection_to_its_base() {
    // ClearCoatTest's first row: a red base (0.5, 0.02, 0.01; roughness 0.44), the same base
    // under KHR_materials_clearcoat (factor 1, roughness 0.03), and the coat alone (a black
    // base of roughness 0.03). Under a uniform white sky a coat reflects the sky by its
    // Fresnel, rising towards the rim, and lets the rest through to the base: in green and
    // blue, where the base absorbs, the coated sphere shows about the base's own reflection
    // plus the coat-only sphere's; in red, where the base reflects half, the coat takes
    // roughly what it reflects from what reaches the base (a lossless coat adds no light).
    let rel = "ClearCoatTest/ClearCoatTest.glb";
    let all = parts(rel);
    let (row, _) = part(&all, "ClearCoatSample");
    let r = render(
        rel,
        View::front(Vec2::new(row.x, row.y), 2.0),
        [330, 100],
        64,
        Lighting::WhiteSky,
    );
    let disks: Vec<(Vec3, Vec3)> = ["BaseLayerSample", "ClearCoatSample", "CoatOnlySample"]
        .iter()
        .map(|n| {
            let (c, e) = part(&all, n);
            let pc = r.project(c);
            let rad = (r.project(c + Vec3::X * e.x) - pc).length();
            (
                r.disk_mean(pc, 0.5 * rad),
                r.ring_mean(pc, 0.7 * rad, 0.92 * rad),
            )
        })
        .collect();
    eprintln!("base, coated, coat only (centre, rim): {disks:?}");
    let [(base_c, base_r), (coat_c, coat_r), (only_c, only_r)] = [disks[0], disks[1], disks[2]];
    // The coat alone reflects the sky: about its F0 of 0.04 (ior 1.5).
    for only in [only_c, only_r] {
        assert!(only.y > 0.03 && only.y < 0.07, "coat only: {only}");
    }
    for (what, base, coated, only) in [
        ("centre", base_c, coat_c, only_c),
        ("rim", base_r, coat_r, only_r),
    ] {
        // Brighter than the base in green and blue by most of the coat's own reflection.
        assert!(
            coated.y > base.y + 0.6 * only.y && coated.z > base.z + 0.6 * only.z,
            "{what}: coated {coated} vs base {base} + coat only {only}"
        );
        // Layered by the coat's reflectance E: E of the sky plus (1 − E) of the base's
        // reflection, within 10 % per channel (measured: 2 % low in red, 5–7 % in green,
        // the base's glossy lobe losing a little more under the coat than a mean E says).
        let want = only + (Vec3::ONE - only) * base;
        let err = ((coated - want) / want).abs().max_element();
        assert!(err < 0.1, "{what}: coated {coated}, layered {want} ({err})");
    }
}

/// ClearCoatTest's spheres of row `row` ("R1" …) rendered orthographically, and for each of
/// its three spheres (base layer, coated, coating only) the render's pixel at an offset from
/// the sphere's centre, `(base, coated, only)` over every whole-pixel offset within 0.85 of the
/// radius, with the world (x, y) of the coated sphere's pixel centre and the pixel's size in
/// world units.
fn clear_coat_row(row: &str, lighting: Lighting) -> (Vec<(Vec3, Vec3, Vec3, Vec2)>, f32) {
    let rel = "ClearCoatTest/ClearCoatTest.glb";
    let all = parts(rel);
    // The first row's nodes have no prefix.
    let name = |n: &str| {
        if row == "R0" {
            n.to_string()
        } else {
            format!("{row}_{n}")
        }
    };
    let (centre, _) = part(&all, &name("ClearCoatSample"));
    let r = render(
        rel,
        View::front(Vec2::new(centre.x, centre.y), 2.0),
        [330, 100],
        64,
        lighting,
    );
    let spheres = ["BaseLayerSample", "ClearCoatSample", "CoatOnlySample"].map(|n| {
        let (c, e) = part(&all, &name(n));
        let pc = r.project(c);
        (pc.floor(), (r.project(c + Vec3::X * e.x) - pc).length())
    });
    // Whole-pixel offsets, so that every row and sphere reads the same set.
    let reach = (0.85 * spheres[1].1).floor() as i32;
    let (c, _) = part(&all, &name("ClearCoatSample"));
    let (pc, per_unit) = (r.project(c), (r.project(c + Vec3::X) - r.project(c)).x);
    let world = |p: Vec2| {
        let d = (p - pc) / per_unit;
        Vec2::new(c.x + d.x, c.y - d.y)
    };
    let mut out = Vec::new();
    for dy in -reach..=reach {
        for dx in -reach..=reach {
            if ((dx * dx + dy * dy) as f32).sqrt() > reach as f32 {
                continue;
            }
            // The mean of the 3 × 3 pixels about it, a third of one pixel's noise.
            let at = |s: usize| {
                let p = spheres[s].0 + Vec2::new(dx as f32, dy as f32);
                let mut sum = Vec3::ZERO;
                for (ox, oy) in (-1..=1).flat_map(|y| (-1..=1).map(move |x| (x, y))) {
                    sum += r.px((p.x as i32 + ox) as u32, (p.y as i32 + oy) as u32);
                }
                sum / 9.0
            };
            let centre = spheres[1].0 + Vec2::new(dx as f32 + 0.5, dy as f32 + 0.5);
            out.push((at(0), at(1), at(2), world(centre)));
        }
    }
    (out, 1.0 / per_unit)
}

/// The R of material `material`'s `clearcoatTexture` (the file's image `image`, nearest texel,
/// repeating) at world (x, y) seen down −Z, through the `gltf` crate's importer: `None` where
/// the material is not seen, or where the texel changes within `half` world units of (x, y).
fn coat_texel(
    rel: &str,
    material: usize,
    image: usize,
    points: &[Vec2],
    half: f32,
) -> Vec<Option<f32>> {
    let reference = Reference::load(rel);
    let (_, _, images) = gltf::import(model_path(rel)).unwrap();
    let img = &images[image];
    let k = match img.format {
        gltf::image::Format::R8G8B8A8 => 4,
        gltf::image::Format::R8G8B8 => 3,
        f => panic!("{rel}: 8-bit RGB(A) expected, not {f:?}"),
    };
    let (w, h) = (img.width as i64, img.height as i64);
    let tris: Vec<&RefTriangle> = reference
        .triangles
        .iter()
        .filter(|t| t.material == material)
        .collect();
    let texel = |x: f32, y: f32| -> Option<f32> {
        let mut best: Option<(f32, Vec2)> = None;
        for t in &tris {
            let [a, b, c] = t.p;
            let d = (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y);
            if d.abs() < 1e-12 {
                continue;
            }
            let w1 = ((x - a.x) * (c.y - a.y) - (c.x - a.x) * (y - a.y)) / d;
            let w2 = ((b.x - a.x) * (y - a.y) - (x - a.x) * (b.y - a.y)) / d;
            let w0 = 1.0 - w1 - w2;
            if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                continue;
            }
            let z = w0 * a.z + w1 * b.z + w2 * c.z;
            if best.is_none_or(|(bz, _)| z > bz) {
                best = Some((z, t.uv[0][0] * w0 + t.uv[0][1] * w1 + t.uv[0][2] * w2));
            }
        }
        let (_, uv) = best?;
        let tx = wrap_index(RefWrap::Repeat, (uv.x as f64 * w as f64).floor() as i64, w);
        let ty = wrap_index(RefWrap::Repeat, (uv.y as f64 * h as f64).floor() as i64, h);
        Some(f32::from(img.pixels[(ty * w as usize + tx) * k]) / 255.0)
    };
    points
        .iter()
        .map(|p| {
            let v = texel(p.x, p.y)?;
            let steady = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
                .iter()
                .all(|&(sx, sy)| texel(p.x + sx * half, p.y + sy * half) == Some(v));
            steady.then_some(v)
        })
        .collect()
}

#[test]
fn clear_coat_test_textured_rows_follow_their_textures() {
    // Partial coating (clearcoatTexture R), under a white sky: where the texture turns the
    // coat off, the coated sphere reads its base sphere's pixel; where on, the base plus the
    // coat's reflection (green, where the dark blue base absorbs). Which it is must follow the
    // texture at that pixel, read through the `gltf` crate (material 4, Partial_Coated; image
    // 0, PartialCoating), wherever its texel is the same 4 pixels around (the bands are
    // narrow, and the render's mip-mapped lookups blur them over their footprint).
    let rel = "ClearCoatTest/ClearCoatTest.glb";
    let (px, pixel) = clear_coat_row("R1", Lighting::WhiteSky);
    let points: Vec<Vec2> = px.iter().map(|p| p.3).collect();
    let texels = coat_texel(rel, 4, 0, &points, 4.0 * pixel);
    // (texture on, texture off) counts: of the pixels, and of those the render agrees with.
    let (mut steady, mut agree) = ([0usize; 2], [0usize; 2]);
    for (&(base, coated, _, _), texel) in px.iter().zip(&texels) {
        let Some(t) = *texel else { continue };
        let d = coated.y - base.y;
        if t > 0.9 {
            steady[0] += 1;
            agree[0] += usize::from(d > 0.02);
        } else if t < 0.1 {
            steady[1] += 1;
            agree[1] += usize::from(d.abs() < 0.008);
        }
    }
    eprintln!(
        "partial coating, {} pixels: texture 1 at {}, the render coated at {}; texture 0 at {}, \
         the render the base's at {}",
        px.len(),
        steady[0],
        agree[0],
        steady[1],
        agree[1]
    );
    for i in 0..2 {
        assert!(steady[i] > 30, "{steady:?}");
        assert!(
            agree[i] as f32 >= 0.97 * steady[i] as f32,
            "{agree:?} of {steady:?}"
        );
    }

    // Roughness variations (clearcoatRoughnessTexture G), under a sun behind the camera (the
    // three spheres side by side see the same light): the coat's share of the coated sphere
    // (its red less the uncoated base's; the base is dark blue) follows the coating-only
    // sphere, a black base of the same roughness texture, pixel by pixel; the wrong reading, a
    // smooth untextured coat (the first row's coating-only sphere), follows it clearly worse.
    let sun = Lighting::Sun([0.0, 0.0, 1.0]);
    let (plain, _) = clear_coat_row("R0", sun);
    let smooth: Vec<f32> = plain.iter().map(|(_, _, o, _)| o.x).collect();
    let (px, _) = clear_coat_row("R2", sun);
    let coat: Vec<f32> = px.iter().map(|(b, c, _, _)| c.x - b.x).collect();
    let only: Vec<f32> = px.iter().map(|(_, _, o, _)| o.x).collect();
    let (good, wrong) = (correlation(&coat, &only), correlation(&coat, &smooth));
    eprintln!(
        "roughness: the coat's share against the coating only {good:.3}, a smooth coat {wrong:.3}"
    );
    assert!(good > 0.9, "{good}");
    assert!(good > wrong + 0.2, "{good} vs {wrong}");
    // The coat-normal row is not asserted here: its glints under a sun are too sharp for
    // pixel agreement at 64 samples, and the spheres also mirror the emissive labels;
    // tests/gltf_clearcoat.rs measures the coat's own normal on a quad.
}
