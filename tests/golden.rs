//! Golden images: each case in [`CASES`] is rendered at a seed of its own and compared with
//! the image blessed into `reference-images/`, by rules that know how noisy the case is, so
//! a real change fails and noise does not. The rules, the figures behind the thresholds and
//! how to bless are in `docs/golden.md`; in short:
//!
//! - everything is compared in the *comparison domain*: linear RGB clamped to [0, 1], what
//!   the preview shows (the clamp keeps a rare firefly from deciding a comparison);
//! - relMSE (the 1 % largest per-pixel errors left out) at most [`K_REL_MSE`] × the baseline
//!   measured at bless time between renders of other seeds and the golden image;
//! - the mean of each channel: the difference's z-score (its sum over its own noise, read
//!   from the same pixels) at most [`Z_MEAN`]; the same in every 16×16 block at most
//!   [`Z_BLOCK`];
//! - FLIP (`nv-flip`) between the previews at most [`K_FLIP`] × its bless-time baseline;
//! - every case also proves that a 3 % brighter or darker render would fail it, and the
//!   feature scenes assert, region by region, what each scene key must do.
//!
//! `PFX_BLESS=1 cargo test --test golden [-- NAME]` re-blesses (see `docs/golden.md`);
//! `PFX_GOLDEN_SPREAD=N` prints how the figures of N more seeds spread around the baselines.

use std::path::{Path, PathBuf};

use glam::{Vec3, Vec4};
use pfx_bake::film::Image;
use pfx_bake::integrator::{self, NoProgress, Settings};
use pfx_bake::plates::{preview_rgb8, read_exr_rgb, PlateImages};
use pfx_bake::scene::{self, Scene};
use pfx_bake::world::World;
use serde_json::{json, Value};

/// One golden image: a scene, the size and samples it is rendered at, and what its own
/// keys must show (`None` for the whole-scene cases).
struct Case {
    name: &'static str,
    scene: &'static str,
    size: [u32; 2],
    spp: u32,
    check: Option<fn(&Shot)>,
}

/// The cases; each gets a `#[test]` of its name. Adding one is one line here, then a bless.
macro_rules! cases {
    ($($name:ident: $scene:literal, $w:literal x $h:literal, $spp:literal spp, $check:expr;)*) => {
        const CASES: &[Case] = &[$(Case {
            name: stringify!($name),
            scene: $scene,
            size: [$w, $h],
            spp: $spp,
            check: $check,
        }),*];
        $(
            #[test]
            fn $name() {
                run(stringify!($name));
            }
        )*
    };
}

cases! {
    cornell: "scenes/cornell/cornell.scene.toml", 160 x 120, 16 spp, None;
    spheres: "scenes/spheres/spheres.scene.toml", 160 x 120, 16 spp, None;
    flagship: "scenes/room.scene.toml", 160 x 90, 32 spp, None;
    daylight: "scenes/daylight.scene.toml", 160 x 90, 128 spp, None;
    nodes: "tests/data/golden/nodes.scene.toml", 128 x 96, 16 spp, Some(check_nodes);
    materials: "tests/data/golden/materials.scene.toml", 128 x 96, 16 spp, Some(check_materials);
    dynamic: "tests/data/golden/dynamic.scene.toml", 128 x 96, 16 spp, Some(check_dynamic);
    mirror: "tests/data/golden/mirror.scene.toml", 128 x 96, 16 spp, Some(check_mirror);
    shadow: "tests/data/golden/shadow.scene.toml", 128 x 96, 16 spp, Some(check_shadow);
    two_sided: "tests/data/golden/two_sided.scene.toml", 128 x 96, 64 spp, Some(check_two_sided);
    clip: "tests/data/golden/clip.scene.toml", 128 x 96, 16 spp, Some(check_clip);
    alpha_cutoff: "tests/data/golden/alpha_cutoff.scene.toml", 128 x 96, 16 spp, Some(check_alpha_cutoff);
    families: "tests/data/golden/families.scene.toml", 128 x 96, 16 spp, Some(check_families);
    every_family: "scenes/materials.scene.toml", 320 x 180, 16 spp, None;
}

/// The seed of the golden image.
const GOLDEN_SEED: u64 = 1;
/// The seeds whose renders measure the baseline at bless time.
const BASELINE_SEEDS: [u64; 2] = [101, 102];
/// The seed the test renders: never the golden's, so the comparison always sees noise.
const TEST_SEED: u64 = 3;
/// relMSE may reach this multiple of its baseline.
const K_REL_MSE: f64 = 1.25;
/// FLIP's mean may reach this multiple of its baseline.
const K_FLIP: f64 = 1.25;
/// Largest z-score of a channel's mean difference over the whole image.
const Z_MEAN: f64 = 4.0;
/// Largest z-score of a channel's mean difference in one block.
const Z_BLOCK: f64 = 5.5;
/// A per-pixel difference this small (in [0, 1]; a quarter of an 8-bit step at mid-grey) is
/// never significant, however noise-free the pixel.
const Z_FLOOR: f64 = 1e-3;
/// Block edge, pixels.
const BLOCK: usize = 16;
/// Share of the largest per-pixel errors left out of relMSE.
const TRIM: f64 = 0.01;
/// Share of the largest |differences| left out of each z-score.
const Z_TRIM: f64 = 0.05;
/// relMSE's denominator is golden² + EPS, so black pixels do not divide by zero.
const EPS: f64 = 0.01;
/// The brightness change every case must catch.
const BRIGHTNESS_STEP: f32 = 0.03;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden_dir() -> PathBuf {
    root().join("reference-images")
}

fn diff_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("golden-diff")
}

fn case(name: &str) -> &'static Case {
    CASES
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no golden case {name}"))
}

fn load(case: &Case) -> Scene {
    scene::load(&root().join(case.scene)).unwrap_or_else(|d| panic!("{}: {d:#?}", case.scene))
}

/// A render and the world it came from, for the feature checks.
struct Shot {
    world: World,
    image: Image,
}

impl Shot {
    fn new(scene: &Scene, size: [u32; 2], spp: u32, seed: u64) -> Shot {
        let world = World::build(scene, size).unwrap_or_else(|e| panic!("{:#?}", e.0));
        let settings = Settings {
            spp,
            seed,
            ..Settings::default()
        };
        let image = integrator::render(&world, &settings, &NoProgress);
        assert_eq!(image.dropped, 0, "non-finite samples were dropped");
        Shot { world, image }
    }

    fn rgb(&self) -> Vec<[f32; 3]> {
        self.image.radiance.iter().map(|c| c.to_array()).collect()
    }

    /// The pixel a world point projects to (column, row from the top).
    fn pixel(&self, p: [f32; 3]) -> (usize, usize) {
        let cam = &self.world.camera;
        let clip = cam.projection_matrix() * cam.view_matrix() * Vec4::from((Vec3::from(p), 1.0));
        let ndc = clip.truncate() / clip.w;
        let [w, h] = cam.size;
        let x = ((ndc.x + 1.0) * 0.5 * w as f32).floor();
        let y = ((1.0 - ndc.y) * 0.5 * h as f32).floor();
        assert!(
            clip.w > 0.0 && x >= 0.0 && y >= 0.0 && x < w as f32 && y < h as f32,
            "{p:?} is outside the view"
        );
        (x as usize, y as usize)
    }

    /// Mean radiance of the (2r+1)² pixels around a world point.
    fn mean_at(&self, p: [f32; 3], r: usize) -> [f64; 3] {
        let (cx, cy) = self.pixel(p);
        let w = self.image.width as usize;
        let mut m = [0.0; 3];
        let mut n = 0.0;
        for y in cy.saturating_sub(r)..=(cy + r).min(self.image.height as usize - 1) {
            for x in cx.saturating_sub(r)..=(cx + r).min(w - 1) {
                let c = self.image.radiance[y * w + x];
                for (k, v) in c.to_array().iter().enumerate() {
                    m[k] += *v as f64;
                }
                n += 1.0;
            }
        }
        m.map(|v| v / n)
    }

    fn lum_at(&self, p: [f32; 3], r: usize) -> f64 {
        let m = self.mean_at(p, r);
        0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]
    }

    /// The point of a ball of `radius` about `center` nearest the camera.
    fn facing(&self, center: [f32; 3], radius: f32) -> [f32; 3] {
        let c = Vec3::from(center);
        (c + radius * (self.world.camera.origin - c).normalize()).to_array()
    }

    /// Whether the camera ray through the pixel of `p` meets a surface at `p`'s depth: `p`
    /// is drawn (within `tol` scene units), not hidden, left out or behind something else.
    fn drawn_at(&self, p: [f32; 3], tol: f32) -> bool {
        let (x, y) = self.pixel(p);
        let expected = self.world.camera.depth(Vec3::from(p));
        match self.image.depth[y * self.image.width as usize + x] {
            Some(d) => (d - expected).abs() <= tol,
            None => false,
        }
    }
}

// ---------------------------------------------------------------------------------------
// The feature checks: each assertion fails when its key is ignored. Points are world
// coordinates in the kit's layout (tests/data/golden/make_kit.py); regions are 5×5 pixels.
// ---------------------------------------------------------------------------------------

/// `[mesh.*.nodes."<node>"]` material, hidden, shadow and two_sided.
fn check_nodes(s: &Shot) {
    // material = "red" on box_a: its sunlit top is red, not white.
    let top = s.mean_at([-0.9, 0.4, 0.0], 2);
    assert!(top[0] > 4.0 * top[1], "box_a's top is not red: {top:?}");
    // hidden on box_b: the floor behind it is seen, and its shadow is gone.
    assert!(!s.drawn_at([-0.3, 0.2, 0.2], 0.05), "box_b is drawn");
    let lit = s.lum_at([0.0, 0.0, 0.8], 2);
    let b_shadow = s.lum_at([-0.02, 0.0, 0.05], 2);
    assert!(
        b_shadow > 0.8 * lit,
        "box_b casts a shadow: {b_shadow} vs {lit}"
    );
    // shadow = "only" on box_c: not drawn, its shadow is there.
    assert!(!s.drawn_at([0.3, 0.2, 0.2], 0.05), "box_c is drawn");
    let c_shadow = s.lum_at([0.58, 0.0, 0.05], 1);
    assert!(
        c_shadow < 0.3 * lit,
        "box_c casts no shadow: {c_shadow} vs {lit}"
    );
    // two_sided on panel_d, which faces away from the camera: its back glows (radiance 2).
    let back = s.lum_at([0.9, 0.25, 0.0], 2);
    assert!(back > 1.8, "panel_d's back does not glow: {back}");
}

/// `[[object]] materials` per node over `material`, and `material` over the node override
/// and the glTF material.
fn check_materials(s: &Shot) {
    let a = s.mean_at([-0.9, 0.4, 0.0], 2);
    assert!(a[2] > 4.0 * a[0], "box_a's top is not blue: {a:?}");
    let b = s.mean_at([-0.3, 0.4, 0.0], 2);
    assert!(
        (b[0] / b[2] - 1.0).abs() < 0.2,
        "box_b's top is not white: {b:?}"
    );
    let d = s.lum_at([0.9, 0.25, 0.0], 2);
    assert!(d < 0.5, "panel_d glows through its glTF material: {d}");
}

/// `dynamic`, set and derived (a mover, a parent), and `dynamic = false` on a moved object.
fn check_dynamic(s: &Shot) {
    for (name, p) in [
        ("moved (by a mover)", [-1.0, 0.25, 0.25]),
        ("rider (child of moved)", s.facing([-1.0, 0.75, 0.0], 0.25)),
        (
            "flagged (dynamic = true)",
            s.facing([-0.35, 0.25, 0.0], 0.25),
        ),
    ] {
        assert!(!s.drawn_at(p, 0.05), "{name} is in the plate");
    }
    for (name, p) in [
        ("pinned (dynamic = false)", [0.35, 0.5, 0.0]),
        ("still", [1.0, 0.5, 0.0]),
    ] {
        assert!(s.drawn_at(p, 0.05), "{name} is not in the plate");
    }
    // Left out means out of the light too: no shadow right of "flagged".
    let lit = s.lum_at([0.0, 0.0, 0.8], 2);
    let shade = s.lum_at([-0.2, 0.0, 0.1], 1);
    assert!(
        shade > 0.8 * lit,
        "a dynamic object casts a shadow: {shade} vs {lit}"
    );
}

/// Negative and non-uniform scale: normals by the inverse transpose, front faces kept.
fn check_mirror(s: &Shot) {
    let expected = 0.8 * 3.0 / (5.0f64.sqrt() * std::f64::consts::PI);
    for (name, p) in [
        ("ramp [1, 2, 1]", [-0.9, 0.5, 0.0]),
        ("ramp [-1, 2, 1]", [-0.3, 0.5, 0.0]),
    ] {
        let m = s.mean_at(p, 2);
        for c in m {
            assert!(
                (c / expected - 1.0).abs() < 0.03,
                "{name}: radiance {m:?}, expected {expected:.4} (normal by the inverse transpose)"
            );
        }
    }
    let panel = s.lum_at([1.0, 0.25, 0.6], 2);
    assert!(
        (panel / 2.0 - 1.0).abs() < 0.02,
        "the mirrored panel's front does not face the camera: {panel}"
    );
}

/// Metal, chrome, glass and lacquer balls under a sun from behind them, with transmissive
/// shadows: the glass ball's shadow passes most of the sun (two crossings, about 0.92), the
/// gold ball's stops it.
fn check_families(s: &Shot) {
    // A floor point well inside each ball's shadow (0.08 from the shadow line through the
    // ball's centre, radius 0.25), and an open one in front of it.
    let shade = |x: f32| s.lum_at([x - 0.12, 0.0, 0.24], 1) / s.lum_at([x - 0.12, 0.0, 0.8], 1);
    let (gold, glass) = (shade(-0.9), shade(0.3));
    assert!(
        glass > 0.6,
        "the glass ball's shadow keeps {glass:.3} of the sun"
    );
    assert!(
        gold < 0.35,
        "the gold ball's shadow keeps {gold:.3} of the sun"
    );
    for (name, x) in [
        ("gold", -0.9),
        ("chrome", -0.3),
        ("glass", 0.3),
        ("lacquer", 0.9),
    ] {
        assert!(
            s.drawn_at(s.facing([x, 0.25, 0.0], 0.25), 0.05),
            "the {name} ball is not drawn"
        );
    }
}

/// `hidden`, `shadow = "only"` and `shadow = "none"` on objects, beside a plain cube.
fn check_shadow(s: &Shot) {
    let lit = s.lum_at([0.0, 0.0, 0.9], 2);
    // Each cube's shadow would lie 0.1 to 0.25 right of its right face (x + 0.25).
    let shade = |x: f32| s.lum_at([x + 0.4, 0.0, 0.1], 1) / lit;
    let front = |x: f32| [x, 0.25, 0.25];
    assert!(
        s.drawn_at(front(-1.2), 0.05),
        "the control cube is not drawn"
    );
    assert!(shade(-1.2) < 0.3, "the control cube casts no shadow");
    assert!(!s.drawn_at(front(-0.4), 0.05), "the hidden cube is drawn");
    assert!(shade(-0.4) > 0.8, "the hidden cube casts a shadow");
    assert!(
        !s.drawn_at(front(0.4), 0.05),
        "the shadow-only cube is drawn"
    );
    assert!(shade(0.4) < 0.3, "the shadow-only cube casts no shadow");
    assert!(
        s.drawn_at(front(1.2), 0.05),
        "the shadow-none cube is not drawn"
    );
    assert!(shade(1.2) > 0.8, "the shadow-none cube casts a shadow");
}

/// `two_sided` on an emissive surface: the back glows and lights what is behind it.
fn check_two_sided(s: &Shot) {
    let one = s.lum_at([-0.5, 0.25, 0.0], 2);
    let two = s.lum_at([0.5, 0.25, 0.0], 2);
    assert!(one < 0.3, "a one-sided panel's back glows: {one}");
    assert!(
        (two / 2.0 - 1.0).abs() < 0.05,
        "the two-sided back: {two}, not 2"
    );
    // The floor on the camera's side is lit by the two-sided panel only.
    let f_one = s.lum_at([-0.5, 0.0, 0.3], 2);
    let f_two = s.lum_at([0.5, 0.0, 0.3], 2);
    assert!(
        f_two > 3.0 * f_one,
        "the two-sided panel does not light the floor before it: {f_two} vs {f_one}"
    );
}

/// `[[object]] clip`, one plane and two, in the object's model frame: the cut part is not
/// drawn, the inside shows and reflects, and the shadow loses what the cut part cast. The
/// points were found by casting rays at the analytic scene (the kit's ball is a subdivided
/// icosphere, within 1 % of its radius), each inside a region of its kind at least 3×3 pixels.
fn check_clip(s: &Shot) {
    let lit = s.lum_at([0.0, 0.0, 0.5], 2);
    // "half": the ball (radius 0.4, centre (-0.7, 0.4, 0)) less its front half.
    assert!(
        !s.drawn_at(s.facing([-0.7, 0.4, 0.0], 0.4), 0.05),
        "half: the front of the ball is drawn (clip ignored)"
    );
    let inside = [-0.755, 0.034, -0.152];
    assert!(
        s.drawn_at(inside, 0.05),
        "half: the inside of its back half is not seen through the cut"
    );
    let inner = s.lum_at(inside, 2);
    assert!(
        inner > 0.5 * lit,
        "half: the sunlit inside does not reflect: {inner} vs {lit}"
    );
    let cut_shadow = s.lum_at([-0.264, 0.0, 0.034], 2);
    assert!(
        cut_shadow > 0.8 * lit,
        "half: the cut front half still casts its shadow: {cut_shadow} vs {lit}"
    );
    let kept_shadow = s.lum_at([-0.217, 0.0, -0.371], 2);
    assert!(
        kept_shadow < 0.3 * lit,
        "half: the kept back half casts no shadow: {kept_shadow} vs {lit}"
    );
    // "ring": the ball (radius 0.35, centre (0.6, 0.35, 0)) cut to a band across the sun.
    assert!(
        s.drawn_at([0.728, 0.404, 0.321], 0.05),
        "ring: the band is not drawn"
    );
    assert!(
        !s.drawn_at(s.facing([0.6, 0.35, 0.0], 0.35), 0.05),
        "ring: the ball's front is drawn (clip ignored)"
    );
    assert!(
        s.drawn_at([0.523, 0.455, -0.325], 0.05),
        "ring: the inside of the band's far side is not seen"
    );
    assert!(
        s.drawn_at([0.777, 0.0, -0.371], 0.05),
        "ring: the floor behind is not seen through the ring"
    );
    let through = s.lum_at([1.098, 0.0, -0.158], 1);
    assert!(
        through > 0.8 * lit,
        "ring: no sun through the ring onto the middle of its shadow: {through} vs {lit}"
    );
}

/// The alpha of texel (column, row from the top) of `cutout.glb`'s card
/// (tests/data/golden/make_cutout.py).
fn card_alpha(c: usize, r: usize) -> f32 {
    [255.0, 51.0, 102.0, 166.0][(c + 2 * r) % 4] / 255.0
}

/// `alpha_cutoff` on a cut-out glTF material: the same card at 0.3 and at 0.8 keeps the
/// texels whose alpha reaches its cutoff, and its shadow shows the same pattern.
fn check_alpha_cutoff(s: &Shot) {
    let lit = s.lum_at([0.0, 0.0, 0.4], 2);
    for (name, x0, cutoff) in [("low", -0.6f32, 0.3f32), ("high", 0.6, 0.8)] {
        for r in 0..4 {
            for c in 0..4 {
                let a = card_alpha(c, r);
                let kept = a >= cutoff;
                // The texel's centre on the card, and where the sun (from behind, 1 up for
                // 0.8 towards the camera) casts it on the floor.
                let x = x0 - 0.375 + 0.25 * c as f32;
                let y = 0.875 - 0.25 * r as f32;
                assert_eq!(
                    s.drawn_at([x, y, 0.0], 0.05),
                    kept,
                    "{name} (alpha_cutoff {cutoff}): texel ({c}, {r}) of alpha {a:.2} drawn: {}",
                    !kept
                );
                // Rows 1 and 2: their shadows lie well inside the view, 7 pixels deep.
                if r == 1 || r == 2 {
                    let shade = s.lum_at([x, 0.0, 0.8 * y], 1) / lit;
                    assert!(
                        if kept { shade < 0.3 } else { shade > 0.8 },
                        "{name} (alpha_cutoff {cutoff}): the shadow of texel ({c}, {r}) of alpha {a:.2}: {shade:.3} of the lit floor"
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The comparison.
// ---------------------------------------------------------------------------------------

/// A render in the comparison domain: linear RGB clamped to [0, 1].
fn domain(rgb: &[[f32; 3]]) -> Vec<[f32; 3]> {
    rgb.iter().map(|p| p.map(|c| c.clamp(0.0, 1.0))).collect()
}

/// The figures of one comparison, `a` (a render) against `g` (the golden image), both in
/// the comparison domain.
#[derive(Clone, Copy, Debug)]
struct Figures {
    rel_mse: f64,
    flip: f64,
    /// The largest |z| of a channel's mean difference over the image.
    z_mean: f64,
    /// The largest |z| over blocks and channels, and that block's (column, row).
    z_block: f64,
    block: (usize, usize),
}

/// relMSE: the mean over pixels of (1/3)·Σ_c (a−g)²/(g² + EPS), leaving out the TRIM share
/// of pixels with the largest error.
fn rel_mse(a: &[[f32; 3]], g: &[[f32; 3]]) -> f64 {
    let mut e: Vec<f64> = a
        .iter()
        .zip(g)
        .map(|(x, y)| {
            (0..3)
                .map(|c| {
                    let d = (x[c] - y[c]) as f64;
                    d * d / ((y[c] as f64).powi(2) + EPS)
                })
                .sum::<f64>()
                / 3.0
        })
        .collect();
    e.sort_by(f64::total_cmp);
    let keep = e.len() - (e.len() as f64 * TRIM) as usize;
    e[..keep].iter().sum::<f64>() / keep as f64
}

/// z = Σd / √(Σd² + n·Z_FLOOR²) of the differences d of one channel over some pixels, the
/// Z_TRIM share with the largest |d| left out. Under noise alone the render and the golden
/// image are two draws of one distribution, so each d is symmetric about 0 (trimming by |d|
/// keeps that) and Σd² estimates the variance of Σd: z is about N(0, 1) whatever the noise
/// level. Trimming drops the fireflies, whose number need not fall with more samples (the
/// flagship's did not). The floor keeps a noise-free region (a delta sun on a flat floor)
/// from turning a last-bit difference (another libm) into a large z.
fn z_score(mut d: Vec<f64>) -> f64 {
    d.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
    let keep = d.len() - (d.len() as f64 * Z_TRIM) as usize;
    let (mut s, mut s2) = (0.0, 0.0);
    for v in &d[..keep] {
        s += v;
        s2 += v * v;
    }
    let var = s2 + keep as f64 * Z_FLOOR * Z_FLOOR;
    if var > 0.0 {
        s.abs() / var.sqrt()
    } else {
        0.0
    }
}

fn preview(rgb: &[[f32; 3]], w: u32, h: u32) -> Vec<u8> {
    preview_rgb8(&PlateImages {
        width: w,
        height: h,
        beauty: rgb.iter().map(|c| [c[0], c[1], c[2], 1.0]).collect(),
        depth: vec![0.0; rgb.len()],
        samples: None,
        denoised: None,
        view_normal: None,
    })
}

fn flip_map(test: &[u8], golden: &[u8], w: u32, h: u32) -> nv_flip::FlipImageFloat {
    nv_flip::flip(
        nv_flip::FlipImageRgb8::with_data(w, h, golden),
        nv_flip::FlipImageRgb8::with_data(w, h, test),
        nv_flip::DEFAULT_PIXELS_PER_DEGREE,
    )
}

fn compare(a: &[[f32; 3]], g: &[[f32; 3]], w: u32, h: u32) -> Figures {
    let (a, g) = (domain(a), domain(g));
    let (wu, hu) = (w as usize, h as usize);
    let z_mean = (0..3)
        .map(|c| {
            z_score(
                a.iter()
                    .zip(&g)
                    .map(|(x, y)| (x[c] - y[c]) as f64)
                    .collect(),
            )
        })
        .fold(0.0, f64::max);
    let (mut z_block, mut block) = (0.0, (0, 0));
    for by in 0..hu.div_ceil(BLOCK) {
        for bx in 0..wu.div_ceil(BLOCK) {
            for c in 0..3 {
                let idx = (by * BLOCK..((by + 1) * BLOCK).min(hu)).flat_map(|y| {
                    (bx * BLOCK..((bx + 1) * BLOCK).min(wu)).map(move |x| y * wu + x)
                });
                let z = z_score(idx.map(|i| (a[i][c] - g[i][c]) as f64).collect());
                if z > z_block {
                    (z_block, block) = (z, (bx, by));
                }
            }
        }
    }
    let map = flip_map(&preview(&a, w, h), &preview(&g, w, h), w, h);
    Figures {
        rel_mse: rel_mse(&a, &g),
        flip: nv_flip::FlipPool::from_image(&map).mean() as f64,
        z_mean,
        z_block,
        block,
    }
}

/// The golden image's bless-time baselines.
struct Golden {
    rgb: Vec<[f32; 3]>,
    preview: Vec<u8>,
    rel_mse: f64,
    flip: f64,
}

/// What fails in a comparison; empty when it passes.
fn verdict(f: &Figures, g: &Golden) -> Vec<String> {
    let mut out = Vec::new();
    if f.rel_mse > K_REL_MSE * g.rel_mse {
        out.push(format!(
            "relMSE {:.5} > {K_REL_MSE} × baseline {:.5}",
            f.rel_mse, g.rel_mse
        ));
    }
    if f.z_mean > Z_MEAN {
        out.push(format!(
            "mean brightness differs: z {:.2} > {Z_MEAN}",
            f.z_mean
        ));
    }
    if f.z_block > Z_BLOCK {
        out.push(format!(
            "block ({}, {}) of {BLOCK}×{BLOCK} px differs: z {:.2} > {Z_BLOCK}",
            f.block.0, f.block.1, f.z_block
        ));
    }
    if f.flip > K_FLIP * g.flip {
        out.push(format!(
            "FLIP mean {:.4} > {K_FLIP} × baseline {:.4}",
            f.flip, g.flip
        ));
    }
    out
}

fn scaled(rgb: &[[f32; 3]], s: f32) -> Vec<[f32; 3]> {
    rgb.iter().map(|p| p.map(|c| c * s)).collect()
}

// ---------------------------------------------------------------------------------------
// Files: the golden EXR (float16 RGB, ZIP), its preview PNG and its JSON metadata.
// ---------------------------------------------------------------------------------------

fn write_exr(path: &Path, rgb: &[[f32; 3]], w: u32, h: u32) {
    use exr::prelude::*;
    // float32, as the beauty plate: a render of the golden's own seed would match it bit for
    // bit, and a float16 golden's rounding (a relative 1/2048) is a systematic difference in
    // noise-free regions that the z-scores and FLIP would see.
    let channels = SpecificChannels::rgb(|p: Vec2<usize>| {
        let c = rgb[p.y() * w as usize + p.x()];
        (c[0], c[1], c[2])
    });
    let mut layer = Layer::new(
        (w as usize, h as usize),
        LayerAttributes::default(),
        Encoding::SMALL_LOSSLESS,
        channels,
    );
    layer.encoding.line_order = LineOrder::Increasing;
    Image::from_layer(layer)
        .write()
        .non_parallel()
        .to_file(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn write_png(path: &Path, rgb8: &[u8], w: u32, h: u32) {
    image::save_buffer(path, rgb8, w, h, image::ExtendedColorType::Rgb8)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn read_golden(case: &Case) -> Golden {
    let dir = golden_dir();
    let meta_path = dir.join(format!("{}.json", case.name));
    let text = std::fs::read_to_string(&meta_path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; bless it with PFX_BLESS=1 cargo test --test golden -- {}",
            meta_path.display(),
            case.name
        )
    });
    let meta: Value = serde_json::from_str(&text).expect("golden metadata is JSON");
    let [w, h] = case.size;
    let same = meta["scene"] == case.scene
        && meta["size"] == json!(case.size)
        && meta["spp"] == case.spp
        && meta["seed"] == GOLDEN_SEED
        && meta["test_seed"] == TEST_SEED;
    assert!(
        same,
        "{}: blessed for another scene, size, spp or seed; bless it again",
        meta_path.display()
    );
    let (gw, gh, rgb) =
        read_exr_rgb(&dir.join(format!("{}.exr", case.name))).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((gw, gh), (w, h), "{}.exr has the wrong size", case.name);
    let png = image::open(dir.join(format!("{}.png", case.name)))
        .unwrap_or_else(|e| panic!("{}.png: {e}", case.name))
        .into_rgb8();
    assert_eq!(
        png.dimensions(),
        (w, h),
        "{}.png has the wrong size",
        case.name
    );
    let base = &meta["baseline"];
    Golden {
        rgb,
        preview: png.into_raw(),
        rel_mse: base["rel_mse"].as_f64().expect("baseline.rel_mse"),
        flip: base["flip"].as_f64().expect("baseline.flip"),
    }
}

/// Today's date (UTC), YYYY-MM-DD, from the system clock.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // Days to civil date (Howard Hinnant's algorithm).
    let z = (secs / 86400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + (m <= 2) as i64;
    format!("{y:04}-{m:02}-{d:02}")
}

fn commit() -> String {
    std::process::Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=12"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or("unknown".into(), |o| {
            String::from_utf8_lossy(&o.stdout).trim().to_owned()
        })
}

/// Whether `PFX_BLESS` asks for this case: `1` or `all` for every case the test filter
/// runs, or a comma-separated list of names.
fn bless_requested(name: &str) -> bool {
    match std::env::var("PFX_BLESS") {
        Ok(v) if v == "1" || v == "all" => true,
        Ok(v) => v.split(',').any(|n| n.trim() == name),
        Err(_) => false,
    }
}

fn bless(case: &Case, scene: &Scene) {
    let [w, h] = case.size;
    let golden = Shot::new(scene, case.size, case.spp, GOLDEN_SEED);
    if let Some(check) = case.check {
        check(&golden);
    }
    let g = golden.rgb();
    let gd = domain(&g);
    let mut rel = Vec::new();
    let mut flips = Vec::new();
    for seed in BASELINE_SEEDS {
        let f = compare(&Shot::new(scene, case.size, case.spp, seed).rgb(), &g, w, h);
        rel.push(f.rel_mse);
        flips.push(f.flip);
        eprintln!("{}: baseline seed {seed}: {f:?}", case.name);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let dir = golden_dir();
    std::fs::create_dir_all(&dir).unwrap();
    write_exr(&dir.join(format!("{}.exr", case.name)), &g, w, h);
    write_png(
        &dir.join(format!("{}.png", case.name)),
        &preview(&gd, w, h),
        w,
        h,
    );
    let meta = json!({
        "case": case.name,
        "scene": case.scene,
        "size": case.size,
        "spp": case.spp,
        "seed": GOLDEN_SEED,
        "test_seed": TEST_SEED,
        "files": {
            "exr": "linear beauty R, G, B (float32, ZIP), rows top to bottom",
            "png": "the preview: the beauty clamped to [0, 1], sRGB 8-bit",
        },
        "baseline": {
            "seeds": BASELINE_SEEDS,
            "rel_mse": mean(&rel),
            "rel_mse_each": rel,
            "flip": mean(&flips),
            "flip_each": flips,
            "rel_mse_definition": format!("mean over pixels of (1/3) sum_c (a-g)^2/(g^2 + {EPS}), the {}% largest per-pixel errors left out, on linear RGB clamped to [0, 1]", TRIM * 100.0),
            "flip_definition": "mean of nv-flip's error map between the previews, default pixels per degree",
        },
        "blessed": {
            "date": today(),
            "commit": commit(),
        },
    });
    let text = serde_json::to_string_pretty(&meta).unwrap() + "\n";
    std::fs::write(dir.join(format!("{}.json", case.name)), text).unwrap();
    eprintln!("{}: blessed into {}", case.name, dir.display());
}

/// Writes the evidence of a failed comparison; returns the folder.
fn write_diff(case: &Case, render: &[[f32; 3]], golden: &Golden) -> PathBuf {
    let [w, h] = case.size;
    let dir = diff_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let (a, g) = (domain(render), domain(&golden.rgb));
    let test_preview = preview(&a, w, h);
    write_png(
        &dir.join(format!("{}-render.png", case.name)),
        &test_preview,
        w,
        h,
    );
    write_exr(&dir.join(format!("{}-render.exr", case.name)), render, w, h);
    // |a − g| per channel in the comparison domain, times 4, as sRGB bytes: grey is noise,
    // a shape or a colour is a change.
    let diff: Vec<[f32; 3]> = a
        .iter()
        .zip(&g)
        .map(|(x, y)| [0, 1, 2].map(|c| 4.0 * (x[c] - y[c]).abs()))
        .collect();
    write_png(
        &dir.join(format!("{}-diff.png", case.name)),
        &preview(&diff, w, h),
        w,
        h,
    );
    let map = flip_map(&test_preview, &golden.preview, w, h);
    let heat = map.apply_color_lut(&nv_flip::magma_lut());
    write_png(
        &dir.join(format!("{}-flip.png", case.name)),
        &heat.to_vec(),
        w,
        h,
    );
    dir
}

/// Renders a case at [`TEST_SEED`] and holds it to its golden image; blesses it first when
/// `PFX_BLESS` asks; prints the spread of more seeds when `PFX_GOLDEN_SPREAD` asks.
fn run(name: &str) {
    let case = case(name);
    let [w, h] = case.size;
    let scene = load(case);
    if bless_requested(name) {
        bless(case, &scene);
    }
    let golden = read_golden(case);
    let shot = Shot::new(&scene, case.size, case.spp, TEST_SEED);
    if let Some(check) = case.check {
        check(&shot);
    }
    let render = shot.rgb();
    let f = compare(&render, &golden.rgb, w, h);
    eprintln!(
        "{name}: relMSE {:.5} ({:.2} × baseline), FLIP {:.4} ({:.2} × baseline), z mean {:.2}, z block {:.2}",
        f.rel_mse,
        f.rel_mse / golden.rel_mse,
        f.flip,
        f.flip / golden.flip,
        f.z_mean,
        f.z_block
    );
    if let Some(n) = std::env::var("PFX_GOLDEN_SPREAD")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        spread(case, &scene, &golden, n);
    }
    let failures = verdict(&f, &golden);
    if !failures.is_empty() {
        let dir = write_diff(case, &render, &golden);
        panic!(
            "{name} differs from reference-images/{name}.exr:\n  {}\nthe render, |difference| ×4 and the FLIP map are in {}/{name}-*.png; if the change is meant, bless it (docs/golden.md)",
            failures.join("\n  "),
            dir.display()
        );
    }
    // The case must be able to see a 3 % change of brightness at its noise.
    for s in [1.0 + BRIGHTNESS_STEP, 1.0 - BRIGHTNESS_STEP] {
        let f = compare(&scaled(&render, s), &golden.rgb, w, h);
        eprintln!(
            "{name}: ×{s}: z mean {:.2}, relMSE {:.2} × baseline, FLIP {:.2} × baseline",
            f.z_mean,
            f.rel_mse / golden.rel_mse,
            f.flip / golden.flip
        );
        assert!(
            !verdict(&f, &golden).is_empty(),
            "{name}: a render ×{s} passes ({f:?}); the case is too noisy to see a {}% change: raise its spp or size",
            BRIGHTNESS_STEP * 100.0
        );
    }
}

/// The evidence for the thresholds: the figures of `n` more seeds against the baselines.
fn spread(case: &Case, scene: &Scene, golden: &Golden, n: u64) {
    let [w, h] = case.size;
    let mut worst = [0.0f64; 4];
    for seed in 200..200 + n {
        let f = compare(
            &Shot::new(scene, case.size, case.spp, seed).rgb(),
            &golden.rgb,
            w,
            h,
        );
        let row = [
            f.rel_mse / golden.rel_mse,
            f.flip / golden.flip,
            f.z_mean,
            f.z_block,
        ];
        for (m, v) in worst.iter_mut().zip(row) {
            *m = m.max(v);
        }
        eprintln!(
            "{}: seed {seed}: relMSE {:.3} × baseline, FLIP {:.3} × baseline, z mean {:.2}, z block {:.2}",
            case.name, row[0], row[1], row[2], row[3]
        );
    }
    eprintln!(
        "{}: worst of {n} seeds: relMSE {:.3} ×, FLIP {:.3} ×, z mean {:.2}, z block {:.2}",
        case.name, worst[0], worst[1], worst[2], worst[3]
    );
}

// ---------------------------------------------------------------------------------------
// The comparison itself is tested: real changes fail it.
// ---------------------------------------------------------------------------------------

fn fails_with(name: &str, what: &str, edit: impl FnOnce(&mut Scene)) {
    let case = case(name);
    let [w, h] = case.size;
    let mut scene = load(case);
    edit(&mut scene);
    let golden = read_golden(case);
    let render = Shot::new(&scene, case.size, case.spp, TEST_SEED).rgb();
    let f = compare(&render, &golden.rgb, w, h);
    let failures = verdict(&f, &golden);
    eprintln!("{name} with {what}: {f:?}\n  {}", failures.join("\n  "));
    assert!(!failures.is_empty(), "{name} with {what} passes: {f:?}");
}

#[test]
fn a_removed_object_fails() {
    fails_with("cornell", "the short box removed", |s| {
        s.objects.retain(|o| o.key != "short_box")
    });
}

#[test]
fn a_moved_camera_fails() {
    // 1 cm to the right at 1.08 m from a 0.55 m box: about 2 pixels at 160 across.
    fails_with("cornell", "the camera 1 cm to the right", |s| {
        let c = s.camera.as_mut().unwrap();
        c.at[0] += 0.01;
        c.look_at[0] += 0.01;
    });
}

#[test]
fn a_changed_material_fails() {
    // The red ball 10 % darker: a change of colour in a fifth of the image.
    fails_with("spheres", "the red ball's base 10 % darker", |s| {
        let m = s.materials.iter_mut().find(|m| m.key == "red").unwrap();
        m.base = m.base.map(|c| c * 0.9);
    });
}

/// The relMSE, z and FLIP figures of identical images are zero.
#[test]
fn identical_images_compare_as_zero() {
    let img: Vec<[f32; 3]> = (0..64 * 48)
        .map(|i| [(i % 64) as f32 / 64.0, 0.5, 2.0])
        .collect();
    let f = compare(&img, &img, 64, 48);
    assert_eq!(
        (f.rel_mse, f.z_mean, f.z_block, f.flip),
        (0.0, 0.0, 0.0, 0.0)
    );
}
