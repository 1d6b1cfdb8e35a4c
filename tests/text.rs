//! `[text.*]`: static text filled into triangles and baked, against an independent
//! rasterisation of the same font at the same size (`ab_glyph`, its own curve flattening and
//! exact-area coverage); unlit text glows without lighting anything, lit text is shaded,
//! alpha is coverage, dynamic text is recorded and not drawn, and bad fonts or missing glyphs
//! are refused where they are named.
//!
//! The fonts are the project's copies in `tests/data/fonts` (DejaVu Sans and Fira Mono with
//! TrueType quadratic outlines, EB Garamond with CFF cubic ones), each with its licence.

use std::path::{Path, PathBuf};

use ab_glyph::{Font as _, FontRef, PxScale, ScaleFont as _};
use glam::Vec3;
use pfx_bake::geometry::Ray;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::scene;
use pfx_bake::world::{mask, World};

const FONTS: [&str; 3] = [
    "DejaVuSans.ttf",
    "FiraMono-Medium.ttf",
    "EBGaramond12-Regular.otf",
];

fn fonts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fonts")
}

/// A project in a temporary folder: project.toml, the three fonts under `fonts/`, and
/// `t.scene.toml` holding `body`.
fn project(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("project.toml"),
        "format = 1\n\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("fonts")).unwrap();
    for f in FONTS {
        std::fs::copy(fonts_dir().join(f), dir.path().join("fonts").join(f)).unwrap();
    }
    std::fs::write(
        dir.path().join("t.scene.toml"),
        format!("format = 1\n{body}"),
    )
    .unwrap();
    dir
}

fn load(dir: &Path) -> scene::Scene {
    scene::load(&dir.join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"))
}

fn build(dir: &Path, size: [u32; 2]) -> World {
    World::build(&load(dir), size)
        .map_err(|e| e.0)
        .unwrap_or_else(|d| panic!("{d:#?}"))
}

/// Pixels per em of the coverage test, and sub-samples per pixel side.
const PPEM: f32 = 40.0;
const SUB: usize = 16;

/// The words of the coverage test: two lines, kerned pairs (AV, To, Wa), descenders,
/// counters (o, e, a, g, B) and a curly quote; all in each of the three fonts.
const WORDS: &str = "AVATAR To Wag\nBog qué «ß» 0@&";

/// Coverage per pixel of the text block the bake built, by rays straight down −Z through a
/// `SUB`×`SUB` grid in each pixel, over a `w`×`h` pixel window centred on the block's centre
/// (the world origin), `PPEM` pixels per scene unit (the block's em is one scene unit).
fn traced_coverage(world: &World, w: usize, h: usize) -> Vec<f32> {
    let p = 1.0 / PPEM;
    let (x0, y1) = (-(w as f32) * p / 2.0, h as f32 * p / 2.0);
    let accel = &world.trace.accel;
    let mut out = vec![0.0f32; w * h];
    for j in 0..h {
        for i in 0..w {
            let mut n = 0;
            for sj in 0..SUB {
                for si in 0..SUB {
                    let x = x0 + (i as f32 + (si as f32 + 0.5) / SUB as f32) * p;
                    let y = y1 - (j as f32 + (sj as f32 + 0.5) / SUB as f32) * p;
                    let ray = Ray::new(Vec3::new(x, y, 1.0), Vec3::new(0.0, 0.0, -1.0));
                    if accel.closest_hit(&ray, mask::DRAWN).is_some() {
                        n += 1;
                    }
                }
            }
            out[j * w + i] = n as f32 / (SUB * SUB) as f32;
        }
    }
    out
}

/// The same window rasterised by ab_glyph from the font file alone: its own layout of the
/// words by the rules of docs/text.md (advance widths, the `kern` table, lines
/// ascender − descender + line gap apart, each line centred, the block centred on its
/// advance box), its own outlines' flattening and its exact-area coverage.
///
/// It rasterises at `OVER` times the size and averages each `OVER`×`OVER` block: its
/// flattening of curves is coarse (chords a few tenths of its pixel inside a tight curve), and
/// at four times the size that error is a quarter of a test pixel.
fn reference_coverage(font_file: &Path, words: &str, w: usize, h: usize) -> Vec<f32> {
    const OVER: usize = 4;
    let (wo, ho) = (w * OVER, h * OVER);
    let fine = raster(font_file, words, wo, ho, PPEM * OVER as f32);
    let mut out = vec![0.0f32; w * h];
    for j in 0..ho {
        for i in 0..wo {
            out[(j / OVER) * w + i / OVER] += fine[j * wo + i] / (OVER * OVER) as f32;
        }
    }
    out
}

/// ab_glyph's coverage of the words at `ppem` pixels per em in a `w`×`h` window centred on
/// the block.
fn raster(font_file: &Path, words: &str, w: usize, h: usize, ppem: f32) -> Vec<f32> {
    let bytes = std::fs::read(font_file).unwrap();
    let font = FontRef::try_from_slice(&bytes).unwrap();
    let upem = font.units_per_em().unwrap();
    // ab_glyph's scale is the pixel height of ascent − descent.
    let scale = PxScale::from(ppem * font.height_unscaled() / upem);
    let sf = font.as_scaled(scale);
    let line_height = sf.ascent() - sf.descent() + sf.line_gap().max(0.0);
    let lines: Vec<&str> = words.split('\n').collect();
    let block_h = (lines.len() as f32 - 1.0) * line_height + (sf.ascent() - sf.descent());
    // Raster coordinates: pixels, y down, the window's top-left at (0, 0), its centre at the
    // block's centre.
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    let top = cy - block_h / 2.0;
    let mut out = vec![0.0f32; w * h];
    for (li, line) in lines.iter().enumerate() {
        let mut pen = 0.0f32;
        let mut placed = Vec::new();
        let mut prev = None;
        for ch in line.chars() {
            let id = font.glyph_id(ch);
            assert_ne!(id.0, 0, "{ch:?} missing from {}", font_file.display());
            if let Some(p) = prev {
                pen += sf.kern(p, id);
            }
            placed.push((id, pen));
            pen += sf.h_advance(id);
            prev = Some(id);
        }
        let baseline = top + sf.ascent() + li as f32 * line_height;
        for (id, x) in placed {
            let g =
                id.with_scale_and_position(scale, ab_glyph::point(cx - pen / 2.0 + x, baseline));
            let Some(og) = font.outline_glyph(g) else {
                continue;
            };
            let b = og.px_bounds();
            og.draw(|x, y, c| {
                let (px, py) = (b.min.x as i32 + x as i32, b.min.y as i32 + y as i32);
                if px >= 0 && py >= 0 && (px as usize) < w && (py as usize) < h {
                    let v = &mut out[py as usize * w + px as usize];
                    *v = (*v + c).min(1.0);
                }
            });
        }
    }
    out
}

/// The exact area of the words' glyphs, square pixels at `PPEM`, from the font's own curves
/// (Green's theorem over each contour's lines, quadratics and cubics, no flattening): what
/// total coverage converges to. Glyph contours of these fonts do not overlap, so each
/// glyph's area is the magnitude of its contours' signed sum.
fn exact_area(font_file: &Path, words: &str) -> f64 {
    struct Green {
        start: (f64, f64),
        last: (f64, f64),
        sum: f64,
    }
    fn cr(a: (f64, f64), b: (f64, f64)) -> f64 {
        a.0 * b.1 - a.1 * b.0
    }
    impl ttf_parser::OutlineBuilder for Green {
        fn move_to(&mut self, x: f32, y: f32) {
            self.start = (x as f64, y as f64);
            self.last = self.start;
        }
        fn line_to(&mut self, x: f32, y: f32) {
            let p = (x as f64, y as f64);
            self.sum += cr(self.last, p) / 2.0;
            self.last = p;
        }
        fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
            let (p0, p1, p2) = (self.last, (x1 as f64, y1 as f64), (x as f64, y as f64));
            self.sum += cr(p0, p1) / 3.0 + cr(p1, p2) / 3.0 + cr(p0, p2) / 6.0;
            self.last = p2;
        }
        fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
            let p = [
                self.last,
                (x1 as f64, y1 as f64),
                (x2 as f64, y2 as f64),
                (x as f64, y as f64),
            ];
            self.sum += (6.0 * cr(p[0], p[1])
                + 3.0 * cr(p[0], p[2])
                + cr(p[0], p[3])
                + 3.0 * cr(p[1], p[2])
                + 3.0 * cr(p[1], p[3])
                + 6.0 * cr(p[2], p[3]))
                / 20.0;
            self.last = p[3];
        }
        fn close(&mut self) {
            let s = self.start;
            self.line_to(s.0 as f32, s.1 as f32);
        }
    }
    let bytes = std::fs::read(font_file).unwrap();
    let face = ttf_parser::Face::parse(&bytes, 0).unwrap();
    let k = PPEM as f64 / face.units_per_em() as f64;
    let mut total = 0.0;
    for ch in words.chars().filter(|c| *c != '\n') {
        let mut g = Green {
            start: (0.0, 0.0),
            last: (0.0, 0.0),
            sum: 0.0,
        };
        face.outline_glyph(face.glyph_index(ch).unwrap(), &mut g);
        total += g.sum.abs() * k * k;
    }
    total
}

/// For each font: the block baked unlit with `size = 1` (one scene unit per em) covers the
/// same pixels as ab_glyph's rasterisation of the same words at the same size, within the
/// ray grid's own resolution (1/16 of a pixel side).
#[test]
fn glyph_coverage_matches_an_independent_rasterisation() {
    let (w, h) = (560usize, 120usize);
    for font in FONTS {
        let words = WORDS.replace('\n', "\\n");
        let dir = project(&format!(
            "[text.sign]\ntext = \"{words}\"\nfont = \"fonts/{font}\"\nsize = 1\n"
        ));
        let world = build(dir.path(), [16, 16]);
        let ours = traced_coverage(&world, w, h);
        let theirs = reference_coverage(&fonts_dir().join(font), WORDS, w, h);
        let total = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>();
        let (a, b) = (total(&ours), total(&theirs));
        let exact = exact_area(&fonts_dir().join(font), WORDS);
        // Nothing lies outside the window: the border rows and columns are empty.
        for (name, v) in [("bake", &ours), ("ab_glyph", &theirs)] {
            let border: f32 = (0..w).map(|i| v[i] + v[(h - 1) * w + i]).sum::<f32>()
                + (0..h).map(|j| v[j * w] + v[j * w + w - 1]).sum::<f32>();
            assert_eq!(
                border, 0.0,
                "{font}: {name}'s text touches the window's edge"
            );
        }
        let diffs: Vec<f32> = ours
            .iter()
            .zip(&theirs)
            .map(|(x, y)| (x - y).abs())
            .collect();
        let worst = diffs.iter().cloned().fold(0.0f32, f32::max);
        let edge: Vec<f32> = ours
            .iter()
            .zip(&theirs)
            .zip(&diffs)
            .filter(|((x, y), _)| (**x > 0.0 && **x < 1.0) || (**y > 0.0 && **y < 1.0))
            .map(|(_, d)| *d)
            .collect();
        let edge_mean = edge.iter().sum::<f32>() / edge.len().max(1) as f32;
        let over_tenth = diffs.iter().filter(|&&d| d > 0.1).count();
        let at = diffs.iter().position(|&d| d == worst).unwrap_or(0);
        eprintln!(
            "{font}: coverage bake {a:.2} px ({:+.4} % of the exact {exact:.2}), ab_glyph \
             {b:.2} px ({:+.4} %), {} edge pixels, mean |diff| {edge_mean:.4}, worst {worst:.4} \
             at ({}, {}) (bake {:.3}, ab_glyph {:.3}), {over_tenth} over 0.1",
            100.0 * (a - exact) / exact,
            100.0 * (b - exact) / exact,
            edge.len(),
            at % w,
            at / w,
            ours[at],
            theirs[at],
        );
        assert!(b > 2000.0, "{font}: the reference drew {b} px");
        assert!(
            ((a - exact) / exact).abs() < 0.002,
            "{font}: total coverage {a} against the exact {exact}"
        );
        assert!(
            ((a - b) / b).abs() < 0.003,
            "{font}: total coverage {a} against ab_glyph's {b}"
        );
        // Measured: mean 0.0017 to 0.0027, worst 0.040 to 0.047 (a 16 × 16 ray grid resolves
        // an edge to 1/16 of a pixel).
        assert!(
            edge_mean < 0.006,
            "{font}: mean edge difference {edge_mean}"
        );
        assert!(worst < 0.08, "{font}: worst pixel difference {worst}");
    }
}

/// The layout's kerning is the `kern` table's, as ab_glyph reads it: "AV" is as wide as "A"
/// and "V" apart plus ab_glyph's kerning of the pair, in each font; DejaVu Sans kerns the pair
/// (so the coverage test's layout tests kerning too), and EB Garamond, which kerns through
/// GPOS alone, is named in the bake's notes.
#[test]
fn kerning_follows_the_kern_table() {
    use pfx_bake::assets::Font;
    let mut kerned = Vec::new();
    for name in FONTS {
        let bytes = std::fs::read(fonts_dir().join(name)).unwrap();
        let ours = Font::from_bytes(bytes.clone()).unwrap();
        let width = |s: &str| ours.lay_out(s).unwrap().size.x;
        let theirs = FontRef::try_from_slice(&bytes).unwrap();
        let upem = theirs.units_per_em().unwrap();
        let kern = theirs.kern_unscaled(theirs.glyph_id('A'), theirs.glyph_id('V')) / upem;
        let (av, a, v) = (width("AV"), width("A"), width("V"));
        assert!(
            (av - (a + v + kern)).abs() < 1e-6,
            "{name}: AV {av}, A {a}, V {v}, kern {kern}"
        );
        if kern != 0.0 {
            kerned.push(name);
        }
    }
    assert!(kerned.contains(&"DejaVuSans.ttf"), "{kerned:?}");
    let dir = project(
        "[text.sign]\ntext = \"AV\"\nfont = \"fonts/EBGaramond12-Regular.otf\"\nsize = 1\n",
    );
    let notes: Vec<String> = build(dir.path(), [8, 8])
        .capabilities
        .iter()
        .map(|c| c.what.clone())
        .collect();
    assert!(
        notes.contains(&"text.font kerning of fonts/EBGaramond12-Regular.otf".to_string()),
        "{notes:?}"
    );
}

/// Renders `world` at `spp` samples per pixel with a fixed seed; linear radiance per pixel.
fn render(world: &World, spp: u32) -> Vec<Vec3> {
    integrator::render(
        world,
        &Settings {
            spp,
            seed: 7,
            ..Settings::default()
        },
        &NoProgress,
    )
    .radiance
}

/// The golden kit's floor under an orthographic camera looking at the block from +Z, slightly
/// from above, and `text` as the block's keys (`text`, `font`, `size` and `at` given).
fn floor_and_text(text: &str, extra: &str) -> tempfile::TempDir {
    let dir = project(&format!(
        "materials = [\"golden.materials.toml\"]\n\n[mesh.floor]\nfile = \"kit.glb\"\n\
         node = \"floor\"\n\n[[object]]\nname = \"floor\"\nmesh = \"floor\"\n\n\
         [text.sign]\ntext = \"HI\"\nfont = \"fonts/DejaVuSans.ttf\"\nsize = 1\n\
         at = [0, 0.6, 0]\n{text}\n\n[camera]\nprojection = \"orthographic\"\nheight = 1.6\n\
         at = [0, 1.2, 6]\nlook_at = [0, 0.5, 0]\n{extra}"
    ));
    let kit = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden");
    for f in ["kit.glb", "golden.materials.toml"] {
        std::fs::copy(kit.join(f), dir.path().join(f)).unwrap();
    }
    dir
}

/// Unlit text glows its colour and lights nothing: in a scene with no light, every pixel is
/// the text's colour times the share of the pixel it covers (the floor below it stays
/// exactly black), and the full pixels are the colour itself.
#[test]
fn unlit_text_glows_without_lighting_anything() {
    let colour = Vec3::new(0.25, 0.5, 2.0);
    let dir = floor_and_text("color = [0.25, 0.5, 2.0, 1.0]", "");
    let world = build(dir.path(), [64, 48]);
    assert!(world.trace.lights.is_empty(), "unlit text made a light");
    let img = render(&world, 16);
    let mut full = 0;
    for (i, p) in img.iter().enumerate() {
        // The share of the colour this pixel shows, from its blue channel.
        let k = p.z / colour.z;
        assert!(
            (p - colour * k).abs().max_element() < 1e-5 && (-1e-6..=1.0 + 1e-5).contains(&k),
            "pixel {i} is {p}, not a share of {colour}"
        );
        if (k - 1.0).abs() < 1e-6 {
            full += 1;
        }
    }
    assert!(full > 100, "only {full} pixels show the whole colour");
}

/// Lit text is a Lambertian surface of its colour: facing a sun of irradiance 3 straight on,
/// with nothing else in the scene, a covered pixel shows albedo · 3 / π; at alpha 0.5 the
/// same pixels show half of it on average (stochastic coverage), and the text casts a shadow
/// on the floor behind it.
#[test]
fn lit_text_is_shaded_and_alpha_is_coverage() {
    let body = |alpha: f32| {
        project(&format!(
            "[text.sign]\ntext = \"HI\"\nfont = \"fonts/FiraMono-Medium.ttf\"\nsize = 1\n\
             color = [0.8, 0.4, 0.2, {alpha}]\nlit = true\n\n[sun]\nmodel = \"authored\"\n\
             toward = [0, 0, 1]\nirradiance = 3.0\n\n[camera]\nprojection = \"orthographic\"\n\
             height = 1.6\nat = [0, 0, 5]\nlook_at = [0, 0, 0]\n"
        ))
    };
    let opaque = body(1.0);
    let world = build(opaque.path(), [64, 48]);
    let img = render(&world, 16);
    let expected = Vec3::new(0.8, 0.4, 0.2) * 3.0 / std::f32::consts::PI;
    let full: Vec<usize> = (0..img.len())
        .filter(|&i| (img[i] - expected).abs().max_element() < 2e-3 * expected.max_element())
        .collect();
    assert!(
        full.len() > 100,
        "only {} pixels show albedo · E / π",
        full.len()
    );
    // Every pixel is the text's shade times its coverage: no pixel is brighter.
    assert!(img.iter().all(|p| p.x <= expected.x * 1.002));
    let half = body(0.5);
    let img_half = render(&build(half.path(), [64, 48]), 64);
    let mean = |v: &[Vec3]| full.iter().map(|&i| v[i].x as f64).sum::<f64>() / full.len() as f64;
    let ratio = mean(&img_half) / mean(&img);
    assert!(
        (ratio - 0.5).abs() < 0.03,
        "alpha 0.5 shows {ratio} of the opaque text"
    );
}

/// A dynamic block is recorded in the manifest (key, font, world transform, no triangles)
/// and changes no byte of the plate; a static one is recorded with its triangles.
#[test]
fn dynamic_text_is_recorded_and_not_drawn() {
    let bake = |dir: &Path| {
        let out = dir.join("out");
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_bake"))
            .arg(dir.join("t.scene.toml"))
            .args(["--size", "24x16", "--spp", "2", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        (std::fs::read(out.join("beauty.exr")).unwrap(), manifest)
    };
    let sun = "\n[sun]\nmodel = \"authored\"\ntoward = [0, 1, 1]\nirradiance = 3.0\n";
    let none = floor_and_text("", sun);
    // The same scene without the block: the text table cut out.
    let scene = std::fs::read_to_string(none.path().join("t.scene.toml")).unwrap();
    let start = scene.find("[text.sign]").unwrap();
    let end = scene.find("[camera]").unwrap();
    let without = format!("{}{}", &scene[..start], &scene[end..]);
    std::fs::write(none.path().join("t.scene.toml"), without).unwrap();
    let dynamic = floor_and_text("dynamic = true\nrotate = [0, 90, 0]", sun);
    let static_ = floor_and_text("", sun);
    let (plain, m0) = bake(none.path());
    let (dyn_beauty, m1) = bake(dynamic.path());
    let (static_beauty, m2) = bake(static_.path());
    assert_eq!(m0["text"], serde_json::json!([]));
    assert!(plain == dyn_beauty, "a dynamic block changed the plate");
    assert!(
        plain != static_beauty,
        "a static block left the plate as it was"
    );
    let t = &m1["text"][0];
    assert_eq!(t["key"], "sign");
    assert_eq!(t["dynamic"], true);
    assert_eq!(t["triangles"], 0);
    assert_eq!(t["font"], "fonts/DejaVuSans.ttf");
    // Turned 90° about Y: +X goes to −Z; the centre at (0, 0.6, 0).
    let w = &t["world"];
    let near = |v: &serde_json::Value, x: f64| (v.as_f64().unwrap() - x).abs() < 1e-5;
    assert!(near(&w[0][0], 0.0) && near(&w[0][2], -1.0), "{w}");
    assert!(near(&w[3][1], 0.6), "{w}");
    assert!(m1["inputs"]["fonts/DejaVuSans.ttf"].is_string());
    let s = &m2["text"][0];
    assert_eq!(s["dynamic"], false);
    // H and I: three and one rectangles, ten and two triangles.
    assert_eq!(s["triangles"], 12, "{s}");
}

/// The diagnostics of building the world, as (code, key, line).
fn refused(dir: &Path) -> Vec<(String, String, u32)> {
    match World::build(&load(dir), [8, 8]) {
        Ok(_) => panic!("the world built"),
        Err(e) => {
            e.0.into_iter()
                .map(|d| (d.code.to_string(), d.key, d.line))
                .collect()
        }
    }
}

/// A character the font lacks is `font-glyph` at the `text` key; a file that is no font is
/// `font-invalid` at the `font` key; both together are both reported.
#[test]
fn missing_glyphs_and_bad_fonts_are_refused_where_named() {
    let dir = project(
        "[text.sign]\ntext = \"ok \\U0010FFFD\"\nfont = \"fonts/FiraMono-Medium.ttf\"\nsize = 1\n\n\
         [text.bad]\ntext = \"x\"\nfont = \"fonts/bad.ttf\"\nsize = 1\n",
    );
    std::fs::write(
        dir.path().join("fonts/bad.ttf"),
        b"this is not a font at all",
    )
    .unwrap();
    assert_eq!(
        refused(dir.path()),
        [
            ("font-glyph".to_string(), "text.sign.text".to_string(), 3),
            ("font-invalid".to_string(), "text.bad.font".to_string(), 9),
        ]
    );
    // A tab is no glyph either.
    let tab = project("[text.sign]\ntext = \"a\\tb\"\nfont = \"fonts/DejaVuSans.ttf\"\nsize = 1\n");
    assert_eq!(refused(tab.path())[0].0, "font-glyph");
}

/// Damaged fonts never panic: every prefix of a font's first 64 KiB in 1 KiB steps, and
/// copies with bytes overwritten through the file, load, lay out and fill to an error or to
/// finite triangles.
#[test]
fn damaged_fonts_are_errors_not_panics() {
    use pfx_bake::assets::Font;
    for name in FONTS {
        let bytes = std::fs::read(fonts_dir().join(name)).unwrap();
        let mut cases: Vec<Vec<u8>> = (1..64)
            .map(|k| bytes[..(k * 1024).min(bytes.len())].to_vec())
            .collect();
        for seed in 0..24u64 {
            let mut b = bytes.clone();
            // A fixed walk through the file, overwriting one byte in 97 with a scrambled value.
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut i = (seed as usize * 131) % 97;
            while i < b.len() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b[i] = x as u8;
                i += 97;
            }
            cases.push(b);
        }
        for b in cases {
            let Ok(font) = Font::from_bytes(b) else {
                continue;
            };
            let Ok(layout) = font.lay_out("Hamburgefonstiv 0123 &@ß") else {
                continue;
            };
            for g in &layout.glyphs {
                if let Ok(tris) = font.glyph_triangles(g.glyph) {
                    assert!(tris.iter().flatten().all(|p| p.is_finite()));
                }
            }
        }
    }
}

/// A block in a prefab is placed through its placement: keyed `"<placement>/<name>"`, its
/// centre and axes carried by the placement's transform (here turned 90° about Z and moved
/// 2 along X), and its triangles drawn there.
#[test]
fn a_prefabs_text_follows_its_placement() {
    let dir = project(
        "[[object]]\nname = \"p\"\nprefab = \"p.prefab.toml\"\nat = [2, 0, 0]\n\
         rotate = [0, 0, 90]\n",
    );
    std::fs::write(
        dir.path().join("p.prefab.toml"),
        "format = 1\n[text.label]\ntext = \"I\"\nfont = \"fonts/DejaVuSans.ttf\"\nsize = 0.5\n\
         at = [1, 0, 0]\n",
    )
    .unwrap();
    let world = build(dir.path(), [8, 8]);
    let t = &world.texts[0];
    assert_eq!(t.key, "p/label");
    let m = glam::Mat4::from_cols_array_2d(&t.world);
    // The centre: (1, 0, 0) turned to (0, 1, 0), then moved to (2, 1, 0); +X reads along +Y.
    assert!(
        (m.w_axis.truncate() - Vec3::new(2.0, 1.0, 0.0)).length() < 1e-5,
        "{m}"
    );
    assert!((m.x_axis.truncate() - Vec3::Y).length() < 1e-5, "{m}");
    // The I's bar is hit where the block stands, and not where it would stand unplaced.
    let hits = |p: Vec3| {
        let ray = Ray::new(p + Vec3::Z, -Vec3::Z);
        world.trace.accel.closest_hit(&ray, mask::DRAWN).is_some()
    };
    assert!(hits(Vec3::new(2.0, 1.0, 0.0)));
    assert!(!hits(Vec3::new(1.0, 0.0, 0.0)));
}
