//! The finish chain (issue 16): the tone maps against their published definitions, the
//! spec's order rules, the standard finish, a golden image per drawn style and chain, and a
//! bake whose preview is finished while its beauty stays the radiance.
//!
//! Golden images live in `tests/data/finish/*.png`; a missing one fails. `PFX_BLESS_FINISH=1`
//! writes them; a failure writes the actual image to `target/finish-golden/` and names it.

use std::path::{Path, PathBuf};

use pfx_bake::finish::{self, tone, Chain, Pass, Tone, ToneKind};
use pfx_bake::plates::{self, encode_rgb8_png};
use pfx_bake::scene::{self, Finish, FinishKey, FinishValue, Location};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------------------------------------
// The tone maps, each computed here independently in f64 from its published text.

/// The Khronos PBR Neutral specification's equations (KhronosGroup/ToneMapping,
/// PBR_Neutral/README.md), in its own form: g = 1 / (Kd (p − pn) + 1) weights the colour.
fn neutral_spec(c: [f64; 3]) -> [f64; 3] {
    let (f90, kd) = (0.04, 0.15);
    let ks = 0.8 - f90;
    let x = c[0].min(c[1]).min(c[2]);
    let f = if x <= 2.0 * f90 {
        x - x * x / (4.0 * f90)
    } else {
        f90
    };
    let p = (c[0] - f).max(c[1] - f).max(c[2] - f);
    if p <= ks {
        return c.map(|v| v - f);
    }
    let pn = 1.0 - (1.0 - ks) * (1.0 - ks) / (p + 1.0 - 2.0 * ks);
    let g = 1.0 / (kd * (p - pn) + 1.0);
    c.map(|v| (v - f) * pn / p * g + pn * (1.0 - g))
}

/// Multiplies by a matrix given as GLSL writes it: its columns.
fn cols(m: [[f64; 3]; 3], v: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|i| m[0][i] * v[0] + m[1][i] * v[1] + m[2][i] * v[2])
}

/// Hill's fitted ACES (BakingLab ACES.hlsl; the matrices as three.js transposes them).
fn aces_hill(c: [f64; 3]) -> [f64; 3] {
    let input = [
        [0.59719, 0.07600, 0.02840],
        [0.35458, 0.90834, 0.13383],
        [0.04823, 0.01566, 0.83777],
    ];
    let output = [
        [1.60475, -0.10208, -0.00327],
        [-0.53108, 1.10813, -0.07276],
        [-0.07367, -0.00605, 1.07602],
    ];
    let v = cols(input, c)
        .map(|v| (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.4329510) + 0.238081));
    cols(output, v).map(|v| v.clamp(0.0, 1.0))
}

/// AgX as Filament and three.js publish it (GLSL, column by column).
#[allow(clippy::excessive_precision)] // the published digits, as written
fn agx_filament(c: [f64; 3]) -> [f64; 3] {
    let to2020 = [
        [0.6274, 0.0691, 0.0164],
        [0.3293, 0.9195, 0.0880],
        [0.0433, 0.0113, 0.8956],
    ];
    let to709 = [
        [1.6605, -0.1246, -0.0182],
        [-0.5876, 1.1329, -0.1006],
        [-0.0728, -0.0083, 1.1187],
    ];
    let inset = [
        [0.856627153315983, 0.137318972929847, 0.11189821299995],
        [0.0951212405381588, 0.761241990602591, 0.0767994186031903],
        [0.0482516061458583, 0.101439036467562, 0.811302368396859],
    ];
    let outset = [
        [
            1.1271005818144368,
            -0.1413297634984383,
            -0.14132976349843826,
        ],
        [
            -0.11060664309660323,
            1.157823702216272,
            -0.11060664309660294,
        ],
        [
            -0.016493938717834573,
            -0.016493938717834257,
            1.2519364065950405,
        ],
    ];
    let (lo, hi) = (-12.47393, 4.026069);
    let v = cols(inset, cols(to2020, c)).map(|v| {
        let x = ((v.max(1e-10).log2() - lo) / (hi - lo)).clamp(0.0, 1.0);
        15.5 * x.powi(6) - 40.14 * x.powi(5) + 31.96 * x.powi(4) - 6.868 * x.powi(3)
            + 0.4298 * x * x
            + 0.1191 * x
            - 0.00232
    });
    let v = cols(outset, v).map(|v| v.max(0.0).powf(2.2));
    cols(to709, v).map(|v| v.clamp(0.0, 1.0))
}

/// Colours over 16 stops and every hue, and a few hostile ones.
fn probe_colours() -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for e in -10..=6 {
        let s = (e as f32).exp2();
        for c in [
            [1.0, 1.0, 1.0],
            [1.0, 0.2, 0.05],
            [0.1, 0.9, 0.3],
            [0.05, 0.1, 1.0],
            [0.18, 0.18, 0.18],
            [0.9, 0.8, 0.0],
        ] {
            out.push(c.map(|v: f32| v * s));
        }
    }
    out.extend([
        [0.0; 3],
        [0.08, 0.5, 0.8],
        [1e6, 1e6, 1e6],
        [0.0, 0.0, 50.0],
    ]);
    out
}

fn close(a: [f32; 3], b: [f64; 3], tol: f64, what: &str, c: [f32; 3]) {
    for k in 0..3 {
        assert!(
            (a[k] as f64 - b[k]).abs() <= tol,
            "{what}({c:?}) = {a:?}, the published definition gives {b:?}"
        );
    }
}

#[test]
fn tone_maps_match_their_published_definitions() {
    for c in probe_colours() {
        let c64 = c.map(f64::from);
        close(
            Tone::of(ToneKind::Neutral).map(c),
            neutral_spec(c64),
            2e-5,
            "neutral",
            c,
        );
        close(
            Tone::of(ToneKind::Aces).map(c),
            aces_hill(c64),
            2e-5,
            "aces",
            c,
        );
        close(
            Tone::of(ToneKind::Agx).map(c),
            agx_filament(c64),
            5e-5,
            "agx",
            c,
        );
    }
    // Published anchors: Neutral reproduces base colours in [0.08, 0.8] less F90 = 0.04;
    // Hill's fit maps middle grey 0.18 to 0.10559 and 1 to 0.61912 (numpy, f64, from the same
    // constants); AgX maps 0.18 to 0.21455, about 0.5 once sRGB-encoded.
    close(
        Tone::of(ToneKind::Neutral).map([0.08, 0.5, 0.8]),
        [0.04, 0.46, 0.76],
        1e-6,
        "neutral",
        [0.08, 0.5, 0.8],
    );
    close(
        Tone::of(ToneKind::Aces).map([0.18; 3]),
        [0.105591; 3],
        1e-5,
        "aces",
        [0.18; 3],
    );
    close(
        Tone::of(ToneKind::Aces).map([1.0; 3]),
        [0.619115; 3],
        1e-5,
        "aces",
        [1.0; 3],
    );
    close(
        Tone::of(ToneKind::Agx).map([0.18; 3]),
        [0.214549, 0.214502, 0.214499],
        3e-5,
        "agx",
        [0.18; 3],
    );
    // The parameters: gain scales ACES's input, clamp clamps Neutral's output, start moves
    // Neutral's knee (a start of 0.5 compresses 0.5).
    let mut t = Tone::of(ToneKind::Aces);
    t.gain = 2.0;
    close(
        t.map([0.09; 3]),
        aces_hill([0.18; 3]),
        1e-6,
        "aces gain 2",
        [0.09; 3],
    );
    let mut n = Tone::of(ToneKind::Neutral);
    n.clamp = true;
    for c in [[-1.0, 0.5, 0.5], [1e30, 0.0, 0.0], [0.0, 0.0, 0.0]] {
        assert!(n.map(c).iter().all(|v| (0.0..=1.0).contains(v)), "{c:?}");
    }
    n.start = 0.5;
    assert!(n.map([0.6; 3])[0] < 0.56);
    // The largest start accepted still gives a finite curve inside [0, 1].
    n.start = tone::NEUTRAL_START_MAX;
    for x in [0.5, 0.99, 1.0, 4.0, 1e6] {
        let y = n.map([x; 3]);
        assert!(y.iter().all(|v| (0.0..=1.0).contains(v)), "{x} → {y:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// The order rules.

fn at(line: u32) -> Location {
    Location {
        file: "t.scene.toml".into(),
        line,
        column: 1,
    }
}

fn key(name: &str, value: FinishValue) -> FinishKey {
    FinishKey {
        name: name.into(),
        value,
        at: at(1),
    }
}

fn num(name: &str, v: f64) -> FinishKey {
    key(name, FinishValue::Num(v))
}

fn text(name: &str, v: &str) -> FinishKey {
    key(name, FinishValue::Text(v.into()))
}

fn chain(base: Vec<FinishKey>, passes: Vec<Vec<FinishKey>>) -> Chain {
    finish::resolve(Some(&Finish {
        file: None,
        base,
        passes,
        at: at(1),
    }))
    .unwrap()
}

fn names(c: &Chain) -> Vec<&'static str> {
    c.passes.iter().map(Pass::name).collect()
}

#[test]
fn inline_keys_build_in_name_order_not_the_order_written() {
    let c = chain(
        vec![
            text("tone", "agx"),
            num("saturation", 1.2),
            num("exposure", 1.0),
            num("contrast", 0.1),
        ],
        vec![],
    );
    assert_eq!(names(&c), ["contrast", "exposure", "saturation", "tone"]);
    let c = chain(
        vec![
            num("exposure", 1.0),
            num("contrast", 0.1),
            num("saturation", 1.2),
            text("tone", "agx"),
        ],
        vec![],
    );
    assert_eq!(names(&c), ["contrast", "exposure", "saturation", "tone"]);
}

#[test]
fn a_style_comes_first_and_keys_tune_its_passes() {
    let c = chain(
        vec![
            num("vignette", 0.8),
            text("style", "vignette"),
            num("exposure", 0.5),
        ],
        vec![],
    );
    assert_eq!(names(&c), ["tone", "vignette", "exposure"]);
    let Pass::Vignette(v) = &c.passes[1] else {
        panic!()
    };
    assert_eq!(
        v.strength, 0.8,
        "the key tunes the style's vignette, it adds none"
    );
    // `tone` tunes the style's tone pass.
    let c = chain(vec![text("style", "bw"), text("tone", "neutral")], vec![]);
    assert_eq!(names(&c), ["tone", "bw"]);
    assert!(matches!(
        c.passes[0],
        Pass::Tone(Tone {
            kind: ToneKind::Neutral,
            ..
        })
    ));
    // `gain` comes before `tone` in name order, and still tunes the ACES map `tone` asks for.
    let c = chain(vec![text("tone", "aces"), num("gain", 1.5)], vec![]);
    assert_eq!(names(&c), ["tone"]);
    assert!(
        matches!(c.passes[0], Pass::Tone(Tone { kind: ToneKind::Aces, gain, .. }) if gain == 1.5)
    );
    // Every style is drawn: the comic's passes come first too.
    let c = chain(vec![text("style", "comic"), num("exposure", 0.5)], vec![]);
    assert_eq!(names(&c), ["tone", "comic", "exposure"]);
    assert!(c.not_drawn.is_empty());
    // The film style's halation comes before its tone map, and `radius` tunes it.
    let c = chain(vec![text("style", "film"), num("radius", 5.0)], vec![]);
    assert_eq!(
        names(&c),
        ["halation", "tone", "weave", "flicker", "grain", "dust"]
    );
    assert!(matches!(c.passes[0], Pass::Halation(h) if h.radius == Some(5)));
    // `shadow` and `highlight` tune the gradient map's ends; an ink colour the halftone's.
    let c = chain(
        vec![
            text("style", "gradient_map"),
            text("shadow", "#000000"),
            key("highlight", FinishValue::Nums(vec![1.0, 0.0, 0.0])),
        ],
        vec![vec![text("ink", "#ff0000"), num("dot", 4.0)]],
    );
    assert_eq!(names(&c), ["tone", "gradient_map", "halftone"]);
    let Pass::GradientMap { stops } = &c.passes[1] else {
        panic!()
    };
    assert_eq!((stops[0], stops[4]), ([0.0; 3], [1.0, 0.0, 0.0]));
    assert!(matches!(c.passes[2], Pass::Halftone(h) if h.dot == 4.0 && h.ink == [1.0, 0.0, 0.0]));
    // A number for `ink` is the comic's ink: it tunes the comic, or adds a classic one.
    let c = chain(vec![num("ink", 0.5)], vec![]);
    assert!(
        matches!(&c.passes[..], [Pass::Comic(k)] if k.ink == 0.5 && k.kind == finish::ComicKind::Classic)
    );
    let c = chain(
        vec![
            text("style", "modern_comic"),
            num("ink", 0.5),
            num("line_weight", 4.0),
            num("levels", 6.0),
        ],
        vec![],
    );
    assert!(
        matches!(&c.passes[..], [Pass::Tone(_), Pass::Comic(k)] if k.ink == 0.5 && k.line_weight == 4.0 && k.levels == 6 && k.kind == finish::ComicKind::Modern)
    );
    // The modern comic's keys alone add a modern comic; `palette` tunes the pixel pass (it
    // sorts before `pixel`, yet the palette applies to the blocks).
    let c = chain(vec![num("tone_steps", 5.0)], vec![]);
    assert!(
        matches!(&c.passes[..], [Pass::Comic(k)] if k.tone_steps == 5 && k.kind == finish::ComicKind::Modern)
    );
    let c = chain(
        vec![key("palette", FinishValue::Bool(true)), num("pixel", 3.0)],
        vec![],
    );
    assert_eq!(
        c.passes,
        [Pass::Pixel {
            size: 3,
            palette: true
        }]
    );
    let c = chain(
        vec![
            text("style", "pixel"),
            key("palette", FinishValue::Bool(false)),
        ],
        vec![],
    );
    assert_eq!(
        c.passes[1],
        Pass::Pixel {
            size: 4,
            palette: false
        }
    );
    let c = chain(vec![key("palette", FinishValue::Bool(false))], vec![]);
    assert!(c.passes.is_empty());
}

#[test]
fn passes_apply_in_the_order_written_after_the_base_each_from_nothing() {
    // The spec's example.
    let c = chain(
        vec![num("exposure", 1.1)],
        vec![vec![num("warmth", 0.2)], vec![text("tone", "agx")]],
    );
    assert_eq!(names(&c), ["exposure", "warmth", "tone"]);
    // A pass builds from nothing: its exposure is a second pass, the base's stays.
    let c = chain(
        vec![num("exposure", 1.0), text("tone", "aces")],
        vec![
            vec![num("exposure", -1.0)],
            vec![
                key("encode", FinishValue::Bool(true)),
                key("dither", FinishValue::Bool(true)),
            ],
        ],
    );
    assert_eq!(
        names(&c),
        ["exposure", "tone", "exposure", "dither", "encode"]
    );
    assert_eq!(c.passes[0], Pass::Exposure { stops: 1.0 });
    assert_eq!(c.passes[2], Pass::Exposure { stops: -1.0 });
    // Within a pass, keys are in name order too, and `radius` tunes its bloom.
    let c = chain(
        vec![],
        vec![vec![
            num("radius", 7.0),
            num("bloom", 0.3),
            num("threshold", 2.0),
        ]],
    );
    assert_eq!(names(&c), ["bloom"]);
    let Pass::Bloom(b) = &c.passes[0] else {
        panic!()
    };
    assert_eq!((b.strength, b.threshold, b.radius), (0.3, 2.0, Some(7)));
    // `radius` with nothing to tune is a Kuwahara pass.
    assert_eq!(
        names(&chain(vec![num("radius", 3.0)], vec![])),
        ["kuwahara"]
    );
}

#[test]
fn bad_chains_are_refused_at_their_key() {
    let refuse = |base: Vec<FinishKey>| {
        finish::resolve(Some(&Finish {
            file: None,
            base,
            passes: vec![],
            at: at(1),
        }))
        .unwrap_err()
    };
    let e = refuse(vec![text("tone", "agx"), num("gain", 1.5)]);
    assert_eq!((e[0].code, e[0].key.as_str()), ("bad-value", "finish.gain"));
    let e = refuse(vec![key(
        "tone",
        FinishValue::Table(vec![
            ("kind".into(), FinishValue::Text("neutral".into())),
            ("start".into(), FinishValue::Num(2.0)),
        ]),
    )]);
    assert_eq!(e[0].key, "finish.tone.start");
    let e = refuse(vec![num("levels", 1.0)]);
    assert_eq!(e[0].key, "finish.levels");
    let e = refuse(vec![key(
        "lut",
        FinishValue::Table(vec![
            ("size".into(), FinishValue::Num(2.0)),
            ("values".into(), FinishValue::Nums(vec![0.5; 23])),
        ]),
    )]);
    assert_eq!(e[0].key, "finish.lut.values");
}

#[test]
fn without_finish_the_standard_finish_is_a_tone_map() {
    let c = finish::resolve(None).unwrap();
    assert!(c.standard);
    assert_eq!(c.passes, [Pass::Tone(Tone::of(ToneKind::Agx))]);
    // Not a clamp: 4 and 16 stay apart, and 0.18 is near the middle of the codes.
    let px = c.apply(3, 1, &[[4.0; 3], [16.0; 3], [0.18; 3]]);
    assert!(px[0] < px[3] && px[3] < 255, "{px:?}");
    assert!((110..=140).contains(&px[6]), "{px:?}");
}

// ---------------------------------------------------------------------------------------------
// Golden images: a fixed synthetic HDR image through each drawn style and chain.

/// 48 × 32: exposure from 2^−8 to 2^4 across, eight hues down, a 4 × 4 spot of 40 top right.
fn hdr() -> (u32, u32, Vec<[f32; 3]>) {
    let (w, h) = (48u32, 32u32);
    let hues = [
        [1.0, 1.0, 1.0],
        [1.0, 0.1, 0.05],
        [1.0, 0.5, 0.05],
        [0.9, 0.9, 0.1],
        [0.1, 0.8, 0.2],
        [0.1, 0.7, 0.9],
        [0.1, 0.2, 1.0],
        [0.8, 0.1, 0.9],
    ];
    let mut px = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let s = (x as f32 / (w - 1) as f32 * 12.0 - 8.0).exp2();
            let c = hues[(y / 4) as usize];
            px.push(if x >= 42 && (2..6).contains(&y) {
                [40.0; 3]
            } else {
                c.map(|v: f32| v * s)
            });
        }
    }
    (w, h, px)
}

fn golden(name: &str, c: &Chain) {
    let (w, h, px) = hdr();
    let got = c.apply(w, h, &px);
    compare_golden(name, &got, w, h);
}

/// Compares `got` (`w × h` 8-bit RGB) with `tests/data/finish/{name}.png`.
fn compare_golden(name: &str, got: &[u8], w: u32, h: u32) {
    let got = got.to_vec();
    let path = repo().join(format!("tests/data/finish/{name}.png"));
    if std::env::var_os("PFX_BLESS_FINISH").is_some() {
        std::fs::write(&path, encode_rgb8_png(&got, w, h).unwrap()).unwrap();
        return;
    }
    let want = image::open(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with PFX_BLESS_FINISH=1)", path.display()))
        .into_rgb8()
        .into_raw();
    if got != want {
        let dir = repo().join("target/finish-golden");
        std::fs::create_dir_all(&dir).unwrap();
        let actual = dir.join(format!("{name}.png"));
        std::fs::write(&actual, encode_rgb8_png(&got, w, h).unwrap()).unwrap();
        let differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();
        panic!(
            "{name}: {differ} bytes differ from {}; actual at {}",
            path.display(),
            actual.display()
        );
    }
}

#[test]
fn each_drawn_style_matches_its_golden_image() {
    for s in finish::DRAWN_STYLES {
        golden(
            &format!("style-{s}"),
            &chain(vec![text("style", s)], vec![]),
        );
    }
    // Every style is drawn or named: the rest are not drawn yet.
    for s in scene::schema::STYLES {
        let c = chain(vec![text("style", s)], vec![]);
        assert_eq!(
            c.not_drawn.is_empty(),
            finish::DRAWN_STYLES.contains(s),
            "{s}"
        );
    }
}

fn everything() -> Chain {
    let lut: Vec<f64> = (0..27)
        .flat_map(|i| {
            let (r, g, b) = (i % 3, (i / 3) % 3, i / 9);
            // A gentle warm grade: red lifted, blue lowered.
            [
                (r as f64 / 2.0).powf(0.9),
                g as f64 / 2.0,
                (b as f64 / 2.0).powf(1.1),
            ]
        })
        .collect();
    chain(
        vec![
            num("exposure", 0.5),
            num("contrast", 0.15),
            num("saturation", 1.1),
            num("warmth", 0.3),
            num("vignette", 0.4),
            key(
                "bloom",
                FinishValue::Table(vec![
                    ("strength".into(), FinishValue::Num(0.3)),
                    ("sigma".into(), FinishValue::Num(2.0)),
                ]),
            ),
            text("tone", "agx"),
        ],
        vec![
            vec![num("grain", 0.05)],
            vec![key("encode", FinishValue::Bool(true))],
            vec![key(
                "lut",
                FinishValue::Table(vec![
                    ("size".into(), FinishValue::Num(3.0)),
                    ("values".into(), FinishValue::Nums(lut)),
                ]),
            )],
            vec![num("black", 0.02)],
            vec![key("dither", FinishValue::Bool(true))],
        ],
    )
}

#[test]
fn tone_maps_and_passes_match_their_golden_images() {
    golden("standard", &Chain::standard());
    for t in ["aces", "agx", "neutral"] {
        golden(&format!("tone-{t}"), &chain(vec![text("tone", t)], vec![]));
    }
    golden("clamp", &chain(vec![num("exposure", 0.0)], vec![]));
    golden("everything", &everything());
}

#[test]
fn the_finish_does_not_depend_on_the_thread_count() {
    let (w, h, px) = hdr();
    let c = everything();
    let run = |n: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(|| {
                let mut out = c.apply(w, h, &px);
                for s in [
                    "kuwahara",
                    "film",
                    "halftone",
                    "watercolor",
                    "tilt_shift",
                    "crt",
                    "neon",
                ] {
                    out.extend(chain(vec![text("style", s)], vec![]).apply(w, h, &px));
                }
                out.extend(
                    chain(
                        vec![text("style", "one_bit"), text("dither_kind", "blue")],
                        vec![],
                    )
                    .apply(w, h, &px),
                );
                out
            })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
    // The seed changes the grain (the comparison can fail).
    let mut seeded = everything();
    seeded.seed = 9;
    assert_ne!(seeded.apply(w, h, &px), c.apply(w, h, &px));
}

// ---------------------------------------------------------------------------------------------
// A bake: the preview is finished, the beauty stays the radiance, the manifest says how.

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

fn bake(scene: &Path, out: &Path) -> pfx_bake::bake::BakeReport {
    let options = pfx_bake::bake::BakeOptions {
        scene: scene.to_path_buf(),
        out: Some(out.to_path_buf()),
        size: [16, 12],
        settings: pfx_bake::integrator::Settings {
            spp: 2,
            ..Default::default()
        },
        plan: Default::default(),
        threads: Some(2),
        denoise: false,
        guiding: false,
    };
    pfx_bake::bake::bake(&options, &pfx_bake::integrator::NoProgress).unwrap()
}

#[test]
fn a_bake_finishes_its_preview_and_records_the_chain() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("cornell");
    copy_dir(&repo().join("scenes/cornell"), &project);
    let scene_file = project.join("cornell.scene.toml");
    let plain = tmp.path().join("plain");
    bake(&scene_file, &plain);

    let mut text = std::fs::read_to_string(&scene_file).unwrap();
    text.push_str("\n[finish]\nfile = \"looks/warm.finish.toml\"\n\n[[finish.pass]]\nvignette = 0.5\n\n[[finish.pass]]\nscanlines = 0.3\n\n[[finish.pass]]\ncavity = 1.0\nbloom = { soft = 0.5 }\n");
    std::fs::write(&scene_file, text).unwrap();
    std::fs::create_dir_all(project.join("looks")).unwrap();
    std::fs::write(
        project.join("looks/warm.finish.toml"),
        "tone = \"aces\"\nexposure = 0.5\nstyle = \"sepia\"\n",
    )
    .unwrap();
    let finished = tmp.path().join("finished");
    let report = bake(&scene_file, &finished);

    let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
    assert_eq!(
        read(&plain, plates::BEAUTY_FILE),
        read(&finished, plates::BEAUTY_FILE),
        "the beauty is never finished"
    );
    assert_ne!(
        read(&plain, plates::PREVIEW_FILE),
        read(&finished, plates::PREVIEW_FILE)
    );
    let m: serde_json::Value =
        serde_json::from_slice(&read(&finished, plates::MANIFEST_FILE)).unwrap();
    let f = &m["finish"];
    assert_eq!(f["source"], "file");
    assert_eq!(f["file"], "looks/warm.finish.toml");
    assert_eq!(f["style"], "sepia");
    let passes: Vec<&str> = f["passes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["pass"].as_str().unwrap())
        .collect();
    // The file's chain (the style's tone, tuned to ACES, and sepia; then exposure), then the
    // scene's passes.
    assert_eq!(
        passes,
        [
            "tone",
            "sepia",
            "exposure",
            "vignette",
            "scanlines",
            "bloom",
            "cavity"
        ]
    );
    assert_eq!(f["passes"][0]["kind"], "aces");
    // The cavity reads the normal: the bake made the data passes for it, and wrote none.
    assert!(!finished.join(plates::PASSES_FILE).exists());
    // The normal reaches the preview: the same chain without the cavity shows otherwise (the
    // box's corners are creases), and the beauty is the same.
    let mut text = std::fs::read_to_string(&scene_file).unwrap();
    text = text.replace("cavity = 1.0\n", "");
    std::fs::write(&scene_file, text).unwrap();
    let flat = tmp.path().join("flat");
    bake(&scene_file, &flat);
    assert_ne!(
        read(&flat, plates::PREVIEW_FILE),
        read(&finished, plates::PREVIEW_FILE)
    );
    assert_eq!(
        read(&flat, plates::BEAUTY_FILE),
        read(&finished, plates::BEAUTY_FILE)
    );
    // The finish file is an input; every finish key is drawn, so none is named; the bloom's
    // table is recorded with `soft`.
    assert!(
        m["inputs"].get("looks/warm.finish.toml").is_some(),
        "{}",
        m["inputs"]
    );
    assert!(
        !report
            .capabilities
            .iter()
            .any(|c| c.what.starts_with("finish")),
        "{:?}",
        report.capabilities
    );
    assert_eq!(f["passes"][5]["soft"], 0.5);
    // Without [finish], the manifest records the standard finish.
    let m: serde_json::Value =
        serde_json::from_slice(&read(&plain, plates::MANIFEST_FILE)).unwrap();
    assert_eq!(m["finish"]["source"], "standard");
    assert_eq!(m["finish"]["passes"][0]["kind"], "agx");
}

#[test]
fn the_valid_projects_finish_file_and_passes_resolve() {
    // The diagnostics corpus's valid project: a finish file with a style, every table, and
    // three passes (the last of cel keys).
    let s = scene::load(&repo().join("tests/data/diagnostics/valid/main.scene.toml")).unwrap();
    let f = s.finish.as_ref().expect("[finish] is in the model");
    assert_eq!(f.file.as_deref(), Some(Path::new("looks/warm.finish.toml")));
    assert_eq!(f.passes.len(), 3);
    assert!(s.files.contains(&PathBuf::from("looks/warm.finish.toml")));
    let c = finish::resolve(Some(f)).unwrap();
    assert_eq!(c.file.as_deref(), Some("looks/warm.finish.toml"));
    assert_eq!((c.seed, c.frame, c.style.as_deref()), (3, 0, Some("film")));
    // Style film's passes; the file's keys in name order, `grain` and `tone` tuning the
    // style's; then the passes (the last of the cel keys: a cel pass).
    assert_eq!(
        names(&c),
        [
            "halation",
            "tone",
            "weave",
            "flicker",
            "grain",
            "dust",
            "bloom",
            "exposure",
            "lut",
            "outline",
            "scratches",
            "tape",
            "vignette",
            "warmth",
            "warmth",
            "tone",
            "cel"
        ]
    );
    assert!(c.not_drawn.is_empty(), "{:?}", c.not_drawn);
    let Pass::Bloom(b) = &c.passes[6] else {
        panic!()
    };
    assert_eq!(
        (b.strength, b.radius, b.kind),
        (0.2, Some(4), finish::BloomKind::Tent)
    );
    assert!(matches!(
        c.passes[1],
        Pass::Tone(Tone {
            kind: ToneKind::Neutral,
            ..
        })
    ));
    assert!(matches!(
        c.passes[4],
        Pass::Grain { strength, clamp: true, .. } if strength == 0.1
    ));
}

// ---------------------------------------------------------------------------------------------
// The styles' stated properties.

/// A flat image of linear grey `v`.
fn flat(w: u32, h: u32, v: f32) -> Vec<[f32; 3]> {
    vec![[v; 3]; (w * h) as usize]
}

/// The sRGB code of a linear value, in [0, 1].
fn code(v: f32) -> f32 {
    finish::srgb_encode(v)
}

#[test]
fn one_bit_has_two_values_and_lights_the_share_of_its_grey() {
    let (w, h, px) = hdr();
    for kind in ["ordered", "blue"] {
        let c = chain(
            vec![text("style", "one_bit"), text("dither_kind", kind)],
            vec![],
        );
        let out = c.apply(w, h, &px);
        assert!(out.iter().all(|&b| b == 0 || b == 255), "{kind}");
        assert!(out.contains(&0) && out.contains(&255), "{kind}");
        // Without the tone map: a flat grey of code v lights a share v of the pixels.
        let c = chain(vec![], vec![vec![text("dither_kind", kind)]]);
        for v in [0.05f32, 0.2, 0.5, 0.8] {
            let out = c.apply(64, 64, &flat(64, 64, v));
            let lit = out.iter().filter(|&&b| b == 255).count() as f32 / out.len() as f32;
            assert!((lit - code(v)).abs() < 0.01, "{kind} {v}: {lit}");
        }
    }
}

#[test]
fn gradient_map_maps_black_and_white_to_its_ends() {
    let c = chain(vec![text("style", "gradient_map")], vec![]);
    let Pass::GradientMap { stops } = &c.passes[1] else {
        panic!()
    };
    let end = |s: [f32; 3]| s.map(|v| (code(v) * 255.0).round() as u8);
    let (first, last) = (end(stops[0]), end(stops[stops.len() - 1]));
    // The map alone (the style's tone map keeps white just under 1).
    let alone = Chain {
        passes: vec![c.passes[1].clone()],
        ..c.clone()
    };
    let out = alone.apply(2, 1, &[[0.0; 3], [1.0; 3]]);
    assert_eq!(out[..3], first);
    assert_eq!(out[3..], last);
    assert_eq!(first, [0x0b, 0x06, 0x23]);
    assert_eq!(last, [0xff, 0xf4, 0xd6]);
    // The ramp's luminance rises all along: a rising grey stays rising.
    let ramp: Vec<[f32; 3]> = (0..64).map(|i| [i as f32 / 63.0; 3]).collect();
    let out = chain(vec![text("style", "gradient_map")], vec![]).apply(64, 1, &ramp);
    let luma: Vec<f32> = out
        .chunks(3)
        .map(|p| 0.2126 * p[0] as f32 + 0.7152 * p[1] as f32 + 0.0722 * p[2] as f32)
        .collect();
    assert!(luma.windows(2).all(|p| p[1] >= p[0] - 1.0), "{luma:?}");
}

#[test]
fn halftone_coverage_tracks_the_luminance() {
    let c = chain(vec![], vec![vec![num("dot", 6.0)]]);
    for v in [0.02f32, 0.1, 0.3, 0.5, 0.9] {
        let (w, h) = (120, 120);
        let out = c.apply(w, h, &flat(w, h, v));
        assert!(out.iter().all(|&b| b == 0 || b == 255));
        let ink = out.iter().filter(|&&b| b == 0).count() as f32 / out.len() as f32;
        assert!((ink - (1.0 - code(v))).abs() < 0.03, "{v}: ink {ink}");
    }
    // A coloured ink prints that colour on white.
    let c = chain(vec![], vec![vec![text("ink", "#ff0000")]]);
    let out = c.apply(16, 16, &flat(16, 16, 0.2));
    assert!(out
        .chunks(3)
        .all(|p| p == [255, 0, 0] || p == [255, 255, 255]));
}

#[test]
fn tilt_shift_keeps_its_band_sharp_and_blurs_outside() {
    // A checkerboard: blur lowers its contrast.
    let (w, h) = (40u32, 60u32);
    let px: Vec<[f32; 3]> = (0..w * h)
        .map(|i| {
            if (i % w + i / w) % 2 == 0 {
                [0.8; 3]
            } else {
                [0.1; 3]
            }
        })
        .collect();
    let plain = chain(vec![num("exposure", 0.0)], vec![]).apply(w, h, &px);
    let c = chain(
        vec![],
        vec![vec![num("focus", 0.5), num("tilt_range", 0.1)]],
    );
    let out = c.apply(w, h, &px);
    let row = |img: &[u8], y: u32| img[(y * w * 3) as usize..((y + 1) * w * 3) as usize].to_vec();
    let spread = |r: &[u8]| *r.iter().max().unwrap() as i32 - *r.iter().min().unwrap() as i32;
    for y in 0..h {
        let d = ((y as f32 + 0.5) / h as f32 - 0.5).abs();
        if d <= 0.1 {
            assert_eq!(row(&out, y), row(&plain, y), "row {y} is in focus");
        } else if d > 0.2 {
            assert!(
                spread(&row(&out, y)) < spread(&row(&plain, y)) / 2,
                "row {y}"
            );
        }
    }
}

#[test]
fn crt_scanlines_darken_between_the_lines() {
    let (w, h) = (12u32, 30u32);
    let c = chain(vec![], vec![vec![num("scanlines", 0.6)]]);
    let out = c.apply(w, h, &flat(w, h, 0.5));
    let at = |y: u32| out[(y * w * 3) as usize];
    // A pitch of 3: rows 1, 4, 7, … are the lines' centres.
    for y in (0..h).step_by(3) {
        assert!(at(y + 1) > at(y) && at(y) == at(y + 2), "{y}");
    }
    assert_eq!(finish::scanline_pitch(h as usize), 3);
}

#[test]
fn film_moves_with_the_frame_and_repeats_for_the_same_one() {
    let (w, h, px) = hdr();
    let at = |frame: u64| {
        let mut c = chain(vec![text("style", "film")], vec![]);
        c.frame = frame;
        c.apply(w, h, &px)
    };
    assert_eq!(at(3), at(3));
    assert_ne!(at(3), at(4));
    // The paper grain is the sheet's: it stays from frame to frame.
    let paper = |frame: u64| {
        let mut c = chain(vec![text("style", "paper_grain")], vec![]);
        c.frame = frame;
        c.apply(w, h, &px)
    };
    assert_eq!(paper(0), paper(9));
}

#[test]
fn hostile_values_never_make_nan_or_panic() {
    let (w, h, mut px) = hdr();
    px[5] = [f32::NAN, f32::INFINITY, -1e30];
    for s in finish::DRAWN_STYLES {
        for (k, v) in [
            ("dot", 0.0),
            ("angle", 1e9),
            ("curvature", 50.0),
            ("weave", 1e9),
            ("dust", 1e9),
            ("tilt_range", -3.0),
            ("focus", 1e9),
            ("scale", 0.0),
            ("radius", 1e9),
        ] {
            let c = chain(vec![text("style", s), num(k, v)], vec![]);
            assert_eq!(c.apply(w, h, &px).len(), (w * h * 3) as usize, "{s} {k}");
        }
    }
}

#[test]
fn cel_outlines_follow_the_depth_when_given() {
    // A flat grey with a depth step down the middle: the outline is the step, two pixels wide
    // (one each side); without the depth, a flat picture has no edges.
    let (w, h) = (10u32, 6u32);
    let px = flat(w, h, 0.3);
    let depth: Vec<f32> = (0..w * h)
        .map(|i| if i % w < 5 { 1.0 } else { 3.0 })
        .collect();
    let c = chain(vec![text("style", "cel")], vec![]);
    let with = c.apply_with(w, h, &px, Some(&depth));
    let without = c.apply(w, h, &px);
    for i in 0..(w * h) as usize {
        let x = i as u32 % w;
        let inked = with[3 * i] == 0x10;
        assert_eq!(inked, x == 4 || x == 5, "{i}: {}", with[3 * i]);
        assert_ne!(without[3 * i], 0x10);
    }
    // `outline = false` turns the style's outline off; cel bands count.
    let c = chain(
        vec![
            text("style", "cel"),
            key("outline", FinishValue::Bool(false)),
            num("cel_bands", 4.0),
            num("cel_softness", 0.0),
        ],
        vec![],
    );
    assert_eq!(names(&c), ["tone", "cel"]);
    let ramp: Vec<[f32; 3]> = (0..256)
        .map(|i| [(i as f32 / 255.0).powi(3) * 8.0; 3])
        .collect();
    let out = c.apply(256, 1, &ramp);
    let mut levels: Vec<u8> = out.chunks(3).map(|p| p[0]).collect();
    // (A tone-mapped grey is not exactly neutral: a band may hold codes a step apart.)
    levels.dedup_by(|a, b| a.abs_diff(*b) <= 1);
    assert_eq!(levels.len(), 4, "{levels:?}");
}

// ---------------------------------------------------------------------------------------------
// The passes that read the surfaces: a synthetic plate with its depth and camera-space normal.

/// A 64 × 48 plate drawn analytically (orthographic, pixels 0.01 units wide, camera space: x
/// right, y up, z towards the camera): a wall at depth 10 facing the camera; a sphere of
/// 13 px at depth 5; a ridge (two faces meeting at 90°, no depth step) down x = 44 at depth 6
/// and a V-groove (a valley) down x = 44 below y = 34 at depth 7; lit by `finish::KEY_LIGHT` (Lambert, albedo
/// per object, ambient 0.1, × 2 so the highlights pass 1).
struct Plate {
    w: u32,
    h: u32,
    rgb: Vec<[f32; 3]>,
    depth: Vec<f32>,
    normal: Vec<[f32; 3]>,
}

const SPHERE: (f32, f32, f32) = (18.0, 22.0, 13.0);
const RIDGE_X: f32 = 44.0;
const GROOVE_Y: u32 = 34;

fn plate() -> Plate {
    let (w, h) = (64u32, 48u32);
    let l = finish::KEY_LIGHT;
    let norm = |v: [f32; 3]| {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / n)
    };
    let (mut rgb, mut depth, mut normal) = (Vec::new(), Vec::new(), Vec::new());
    for y in 0..h {
        for x in 0..w {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let (cx, cy, r) = SPHERE;
            let (dx, dy) = ((px - cx) / r, (py - cy) / r);
            let (n, z, albedo) = if dx * dx + dy * dy < 1.0 {
                let nz = (1.0 - dx * dx - dy * dy).sqrt();
                ([dx, -dy, nz], 5.0 - 0.13 * nz, [0.8, 0.25, 0.1])
            } else if (30.0..58.0).contains(&px) && (6.0..44.0).contains(&py) {
                let off = px - RIDGE_X;
                if y < GROOVE_Y {
                    // The ridge: faces turned away from its crest.
                    (
                        norm([off.signum(), 0.0, 1.0]),
                        6.0 + 0.01 * off.abs(),
                        [0.2, 0.5, 0.8],
                    )
                } else {
                    // The groove: faces turned towards its floor.
                    (
                        norm([-off.signum(), 0.0, 1.0]),
                        7.0 - 0.01 * off.abs(),
                        [0.3, 0.7, 0.3],
                    )
                }
            } else {
                ([0.0, 0.0, 1.0], 10.0, [0.6, 0.6, 0.55])
            };
            let lambert = (n[0] * l[0] + n[1] * l[1] + n[2] * l[2]).max(0.0);
            rgb.push(albedo.map(|a| 2.0 * a * (0.1 + lambert)));
            depth.push(z);
            normal.push(n);
        }
    }
    Plate {
        w,
        h,
        rgb,
        depth,
        normal,
    }
}

impl Plate {
    fn apply(&self, c: &Chain) -> Vec<u8> {
        c.apply_to(
            self.w,
            self.h,
            &self.rgb,
            &finish::Surfaces {
                depth: Some(&self.depth),
                normal: Some(&self.normal),
            },
        )
    }

    fn at(&self, out: &[u8], x: u32, y: u32) -> [u8; 3] {
        let i = 3 * (y * self.w + x) as usize;
        [out[i], out[i + 1], out[i + 2]]
    }
}

fn golden_plate(name: &str, c: &Chain) {
    let p = plate();
    let got = p.apply(c);
    compare_golden(name, &got, p.w, p.h);
}

#[test]
fn the_surface_styles_and_keys_match_their_golden_images() {
    for s in ["cel", "comic", "modern_comic", "rubber_hose"] {
        golden_plate(
            &format!("surface-{s}"),
            &chain(vec![text("style", s)], vec![]),
        );
    }
    golden_plate(
        "surface-cel-lit",
        &chain(
            vec![
                text("style", "cel"),
                num("cavity", 1.0),
                num("cel_spec", 0.6),
                num("crease_angle", 30.0),
                num("rim", 0.4),
                text("rim_color", "#ffd8a0"),
            ],
            vec![],
        ),
    );
}

#[test]
fn creases_are_inked_only_with_an_angle_and_a_normal() {
    let p = plate();
    let plain = chain(vec![], vec![vec![key("outline", FinishValue::Bool(true))]]);
    let creased = chain(vec![], vec![vec![num("crease_angle", 30.0)]]);
    let (a, b) = (p.apply(&plain), p.apply(&creased));
    let ink = [0x10; 3];
    // The ridge's crest (no depth step there): inked only with the crease angle.
    for y in [12, 20, 28] {
        for x in [RIDGE_X as u32 - 1, RIDGE_X as u32] {
            assert_ne!(p.at(&a, x, y), ink, "{x} {y}");
            assert_eq!(p.at(&b, x, y), ink, "{x} {y}");
        }
        // The faces either side are no crease.
        assert_ne!(p.at(&b, RIDGE_X as u32 - 5, y), ink);
        assert_ne!(p.at(&b, RIDGE_X as u32 + 5, y), ink);
    }
    // A 100° crease angle passes the 90° ridge.
    let wide = chain(vec![], vec![vec![num("crease_angle", 100.0)]]);
    assert_ne!(p.at(&p.apply(&wide), RIDGE_X as u32, 20), ink);
    // Without the normal, the crease angle adds nothing to the depth's lines.
    let depth_only = |c: &Chain| c.apply_with(p.w, p.h, &p.rgb, Some(&p.depth));
    assert_eq!(depth_only(&plain), depth_only(&creased));
    assert!(creased.reads_normal() && !plain.reads_normal());
}

#[test]
fn cavity_darkens_the_valley_brightens_the_ridge_and_leaves_flat_faces() {
    let p = plate();
    let base = chain(vec![num("exposure", 0.0)], vec![]);
    let cav = chain(vec![num("exposure", 0.0)], vec![vec![num("cavity", 1.0)]]);
    let (a, b) = (p.apply(&base), p.apply(&cav));
    let luma = |c: [u8; 3]| c.iter().map(|&v| v as u32).sum::<u32>();
    let (rx, gy) = (RIDGE_X as u32, GROOVE_Y + 5);
    assert!(
        luma(p.at(&b, rx, 20)) > luma(p.at(&a, rx, 20)) + 20,
        "ridge"
    );
    assert!(
        luma(p.at(&b, rx, gy)) + 20 < luma(p.at(&a, rx, gy)),
        "valley"
    );
    // Flat faces, the wall and the silhouettes (depth steps) are left as they are.
    for (x, y) in [
        (rx - 6, 20),
        (rx + 6, gy),
        (2, 2),
        (60, 46),
        (29, 40),
        (45, 6),
        (30, 40),
    ] {
        assert_eq!(p.at(&b, x, y), p.at(&a, x, y), "{x} {y}");
    }
    // The distance widens the shaded band.
    let wide = chain(
        vec![num("exposure", 0.0)],
        vec![vec![num("cavity", 1.0), num("cavity_distance", 3.0)]],
    );
    let c = p.apply(&wide);
    assert_eq!(p.at(&b, rx - 2, gy), p.at(&a, rx - 2, gy));
    assert!(luma(p.at(&c, rx - 2, gy)) < luma(p.at(&a, rx - 2, gy)));
}

#[test]
fn the_cel_highlight_follows_the_light() {
    let p = plate();
    let lit = |sun: Option<[f32; 3]>| {
        let mut c = chain(
            vec![
                text("style", "cel"),
                key("outline", FinishValue::Bool(false)),
                num("cel_spec", 0.5),
                num("cel_spec_roughness", 0.2),
            ],
            vec![],
        );
        if let Some(s) = sun {
            c.light_by_sun(s);
        }
        (c.clone(), p.apply(&c))
    };
    let (c, key_lit) = lit(None);
    let (_, plain) = (
        (),
        p.apply(&chain(
            vec![
                text("style", "cel"),
                key("outline", FinishValue::Bool(false)),
            ],
            vec![],
        )),
    );
    // The highlight is where the sphere's normal is the half vector of the light and the
    // view: for the key light, up and to the left of its centre.
    let spot = |l: [f32; 3]| {
        let hv = [l[0], l[1], l[2] + 1.0];
        let n = (hv[0] * hv[0] + hv[1] * hv[1] + hv[2] * hv[2]).sqrt();
        let (cx, cy, r) = SPHERE;
        ((cx + r * hv[0] / n) as u32, (cy - r * hv[1] / n) as u32)
    };
    let (hx, hy) = spot(finish::KEY_LIGHT);
    let sum = |c: [u8; 3]| c.iter().map(|&v| v as u32).sum::<u32>();
    assert!(sum(p.at(&key_lit, hx, hy)) > sum(p.at(&plain, hx, hy)) + 60);
    // Elsewhere on the sphere (its lower right), no highlight.
    let sun = [0.5, -0.5, std::f32::consts::FRAC_1_SQRT_2];
    let (lx, ly) = spot(sun);
    assert_eq!(p.at(&key_lit, lx, ly), p.at(&plain, lx, ly));
    // A sun from the lower right moves it there; the manifest says where the light is from.
    let (sc, sun_lit) = lit(Some(sun));
    assert!(sum(p.at(&sun_lit, lx, ly)) > sum(p.at(&plain, lx, ly)) + 60);
    assert_eq!(p.at(&sun_lit, hx, hy), p.at(&plain, hx, hy));
    let j = |c: &Chain| c.to_json()["passes"][1]["spec"]["light_from"].clone();
    assert_eq!(j(&c), "the fixed key light");
    assert_eq!(j(&sc), "the scene's sun");
}

#[test]
fn the_rim_lights_silhouettes_and_not_faces_turned_to_the_view() {
    let p = plate();
    let base = chain(vec![num("exposure", 0.0)], vec![]);
    let rim = chain(
        vec![num("exposure", 0.0)],
        vec![vec![num("rim", 0.5), num("rim_width", 0.3)]],
    );
    let (a, b) = (p.apply(&base), p.apply(&rim));
    let (cx, cy, r) = SPHERE;
    // The sphere's rim (the edge pixel's centre, n_z small) brightens; its centre and the
    // wall do not.
    let edge = ((cx + r - 1.0) as u32, cy as u32);
    assert!(p.at(&b, edge.0, edge.1)[0] > p.at(&a, edge.0, edge.1)[0]);
    assert_eq!(
        p.at(&b, cx as u32, cy as u32),
        p.at(&a, cx as u32, cy as u32)
    );
    assert_eq!(p.at(&b, 2, 2), p.at(&a, 2, 2));
}

#[test]
fn the_comics_ink_their_lines_and_flatten_their_tones() {
    let p = plate();
    let classic = chain(vec![text("style", "comic")], vec![]);
    let out = p.apply(&classic);
    // The sphere's silhouette against the wall is inked black, `line_weight` (3) wide.
    let (cx, cy, r) = SPHERE;
    let x_edge = (cx + r) as u32;
    assert_eq!(p.at(&out, x_edge, cy as u32), [0, 0, 0]);
    assert_eq!(p.at(&out, x_edge - 1, cy as u32), [0, 0, 0]);
    // `ink = 0` draws no ink at all: the flat colours alone; half ink is between.
    let no_ink = p.apply(&chain(
        vec![text("style", "comic"), num("ink", 0.0)],
        vec![],
    ));
    assert_ne!(p.at(&no_ink, x_edge, cy as u32), [0, 0, 0]);
    // The classic's channels are posterized: each code is one of `levels` (4) values where no
    // line or dot falls (the wall's lit middle).
    let levels = p.apply(&chain(
        vec![text("style", "comic"), num("levels", 3.0)],
        vec![],
    ));
    for v in p.at(&levels, 4, 4) {
        assert!([0, 128, 255].contains(&v), "{v}");
    }
    // The modern comic: flat tone steps; at most black, three steps and the highlight a hue.
    let modern = chain(vec![text("style", "modern_comic"), num("ink", 0.0)], vec![]);
    let ramp: Vec<[f32; 3]> = (0..256)
        .map(|i| [(i as f32 / 255.0).powi(3) * 8.0; 3])
        .collect();
    let out = modern.apply(256, 1, &ramp);
    let mut steps: Vec<u8> = out.chunks(3).map(|p| p[1]).collect();
    steps.dedup_by(|a, b| a.abs_diff(*b) <= 1);
    assert!(steps.len() <= 5 && steps.len() >= 4, "{steps:?}");
    let four = chain(
        vec![
            text("style", "modern_comic"),
            num("ink", 0.0),
            num("tone_steps", 5.0),
        ],
        vec![],
    )
    .apply(256, 1, &ramp);
    let mut more: Vec<u8> = four.chunks(3).map(|p| p[1]).collect();
    more.dedup_by(|a, b| a.abs_diff(*b) <= 1);
    assert_eq!(more.len(), steps.len() + 2, "{more:?}");
    // Interior lines: the ridge's crease is inked at half strength in the modern comic, not
    // at all at strength 0.
    let m = p.apply(&chain(vec![text("style", "modern_comic")], vec![]));
    let m0 = p.apply(&chain(
        vec![
            text("style", "modern_comic"),
            num("interior_line_strength", 0.0),
        ],
        vec![],
    ));
    let rx = RIDGE_X as u32;
    assert!(p.at(&m, rx, 20)[2] < p.at(&m0, rx, 20)[2]);
    assert_ne!(p.at(&m, rx, 20), [0, 0, 0]);
}

#[test]
fn a_chain_without_the_surface_keys_does_not_read_the_normal() {
    let p = plate();
    for s in finish::DRAWN_STYLES {
        let c = chain(vec![text("style", s)], vec![]);
        if *s == "comic" || *s == "modern_comic" {
            continue;
        }
        assert!(!c.reads_normal(), "{s}");
        let with = p.apply(&c);
        let without = c.apply_with(p.w, p.h, &p.rgb, Some(&p.depth));
        assert_eq!(with, without, "{s}");
    }
}

#[test]
fn the_lens_tape_and_palette_keys_match_their_golden_images() {
    golden(
        "keys-lens",
        &chain(
            vec![num("aberration", 40.0), num("distortion", 0.25)],
            vec![],
        ),
    );
    golden(
        "keys-tape",
        &chain(
            vec![
                text("tape", "forward"),
                key(
                    "scratches",
                    FinishValue::Table(vec![
                        ("count".into(), FinishValue::Num(4.0)),
                        ("strength".into(), FinishValue::Num(0.8)),
                    ]),
                ),
            ],
            vec![vec![text("tape", "rewind")]],
        ),
    );
    golden(
        "keys-palette",
        &chain(
            vec![num("pixel", 2.0), key("palette", FinishValue::Bool(true))],
            vec![],
        ),
    );
}

#[test]
fn the_palette_leaves_only_its_colours() {
    let (w, h, px) = hdr();
    let c = chain(
        vec![
            text("style", "pixel"),
            key("palette", FinishValue::Bool(true)),
        ],
        vec![],
    );
    let out = c.apply(w, h, &px);
    let colours: Vec<[u8; 3]> = finish::PALETTE.to_vec();
    let mut seen = std::collections::BTreeSet::new();
    for p in out.chunks(3) {
        let p = [p[0], p[1], p[2]];
        assert!(colours.contains(&p), "{p:?}");
        seen.insert(p);
    }
    // A picture of every hue and 12 stops uses many of them, and the 4-px blocks stay.
    assert!(seen.len() >= 8, "{seen:?}");
    for y in 0..h as usize {
        for x in 0..w as usize {
            let i = 3 * (y * w as usize + x);
            let j = 3 * ((y / 4 * 4) * w as usize + x / 4 * 4);
            assert_eq!(out[i..i + 3], out[j..j + 3]);
        }
    }
    // Black and white are their own colours; Oklab's white is L = 1.
    let bw = chain(vec![key("palette", FinishValue::Bool(true))], vec![]);
    assert_eq!(
        bw.apply(2, 1, &[[0.0; 3], [1.0; 3]]),
        [0, 0, 0, 0xff, 0xf1, 0xe8]
    );
    assert!((finish::oklab([1.0; 3])[0] - 1.0).abs() < 1e-3);
}

#[test]
fn aberration_and_distortion_keep_the_centre_and_a_grey() {
    let (w, h) = (41u32, 31u32);
    // A grey picture stays grey through the aberration (the channels agree everywhere).
    let grey = chain(
        vec![num("exposure", 0.0)],
        vec![vec![num("aberration", 20.0)]],
    );
    let out = grey.apply(w, h, &flat(w, h, 0.3));
    assert!(out.chunks(3).all(|p| p[0] == p[1] && p[1] == p[2]));
    // A white square on black: the centre pixel stays, the fringes split red from blue at
    // the square's right edge, away from the centre.
    let px: Vec<[f32; 3]> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            if (25..35).contains(&x) && (10..21).contains(&y) {
                [1.0; 3]
            } else {
                [0.0; 3]
            }
        })
        .collect();
    let ab = chain(
        vec![num("exposure", 0.0)],
        vec![vec![num("aberration", 40.0)]],
    );
    let out = ab.apply(w, h, &px);
    let at = |x: u32, y: u32| {
        let i = 3 * (y * w + x) as usize;
        [out[i], out[i + 1], out[i + 2]]
    };
    assert_eq!(at(20, 15), [0, 0, 0]);
    let edge = at(35, 15);
    assert!(edge[0] > edge[2], "{edge:?}");
    // Barrel distortion with the corners kept magnifies the middle: the square's right edge
    // moves outwards; pincushion pulls it in.
    let lit = |k: f64, x: u32| {
        let d = chain(vec![num("exposure", 0.0)], vec![vec![num("distortion", k)]]);
        d.apply(w, h, &px)[3 * (15 * w + x) as usize]
    };
    assert_eq!((lit(0.0, 34), lit(0.0, 36)), (255, 0));
    assert_eq!((lit(0.5, 20), lit(0.5, 36), lit(0.5, 40)), (0, 255, 0));
    assert_eq!(lit(-0.25, 34), 0);
}

#[test]
fn scratches_and_tape_move_with_the_frame() {
    let (w, h, px) = hdr();
    for c in [
        chain(vec![num("scratches", 0.8)], vec![]),
        chain(vec![text("tape", "rewind")], vec![]),
        chain(vec![num("tape", 0.7)], vec![]),
    ] {
        let at = |frame: u64| {
            let mut c = c.clone();
            c.frame = frame;
            c.apply(w, h, &px)
        };
        assert_eq!(at(2), at(2));
        assert_ne!(at(2), at(3));
    }
    // The tape's strength 0 is the picture as it is.
    let plain = chain(vec![num("exposure", 0.0)], vec![]);
    let none = chain(vec![num("exposure", 0.0), num("tape", 0.0)], vec![]);
    assert_eq!(plain.apply(w, h, &px), none.apply(w, h, &px));
    // Rewinding tears more rows than playing.
    let torn = |dir: &str| {
        let c = chain(
            vec![num("exposure", 0.0)],
            vec![vec![key(
                "tape",
                FinishValue::Table(vec![
                    ("direction".into(), FinishValue::Text(dir.into())),
                    ("echo".into(), FinishValue::Num(0.0)),
                    ("grain".into(), FinishValue::Num(0.0)),
                    ("smear".into(), FinishValue::Num(0.0)),
                    ("split".into(), FinishValue::Num(0.0)),
                    ("wash".into(), FinishValue::Num(0.0)),
                    ("bands".into(), FinishValue::Num(1.0)),
                ]),
            )]],
        );
        let (a, b) = (plain.apply(w, h, &px), c.apply(w, h, &px));
        (0..h as usize)
            .filter(|&y| {
                let r = 3 * w as usize;
                a[y * r..(y + 1) * r] != b[y * r..(y + 1) * r]
            })
            .count()
    };
    assert!(
        torn("rewind") > torn("forward"),
        "{} {}",
        torn("rewind"),
        torn("forward")
    );
}

#[test]
fn the_new_passes_do_not_depend_on_the_thread_count_nor_make_nan() {
    let p = plate();
    let (w, h, mut px) = hdr();
    px[7] = [f32::NAN, f32::INFINITY, -1e30];
    let chains = [
        chain(vec![text("style", "comic")], vec![]),
        chain(vec![text("style", "modern_comic")], vec![]),
        chain(vec![text("style", "rubber_hose")], vec![]),
        chain(
            vec![
                text("style", "cel"),
                num("cavity", 1e9),
                num("cavity_distance", 1e9),
                num("cel_spec", 1e9),
                num("cel_spec_roughness", 0.0),
                num("crease_angle", -5.0),
                num("rim", 1e9),
                num("rim_width", 7.0),
            ],
            vec![],
        ),
        chain(
            vec![
                num("aberration", 1e9),
                num("distortion", -1e9),
                num("tape", 1e9),
                num("scratches", 1e9),
                num("line_weight", 1e9),
                num("black_threshold", -4.0),
            ],
            vec![],
        ),
    ];
    let run = |n: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(|| {
                let mut out = Vec::new();
                for c in &chains {
                    out.extend(p.apply(c));
                    out.extend(c.apply(w, h, &px));
                }
                out
            })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert_eq!(one, run(3));
}

#[test]
fn the_bloom_tables_extras_reduce_to_the_single_bloom() {
    let (w, h, px) = hdr();
    let bloom = |keys: Vec<(&str, FinishValue)>| {
        let t = keys
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect::<Vec<_>>();
        chain(
            vec![num("exposure", 0.0)],
            vec![vec![key("bloom", FinishValue::Table(t))]],
        )
        .apply(w, h, &px)
    };
    let n = FinishValue::Num;
    let four = |v: [f64; 4]| FinishValue::Nums(v.to_vec());
    // One ring of gain 1 is the single Gaussian of the same reach.
    assert_eq!(
        bloom(vec![
            ("strength", n(0.5)),
            ("radii", four([6.0, 3.0, 3.0, 3.0])),
            ("gains", four([1.0, 0.0, 0.0, 0.0])),
        ]),
        bloom(vec![
            ("strength", n(0.5)),
            ("sigma", n(2.0)),
            ("radius", n(6.0))
        ])
    );
    // The rings' default radii and gains: wider than the single bloom, so different.
    let single = bloom(vec![("strength", n(0.5))]);
    let rings = bloom(vec![
        ("strength", n(0.5)),
        ("kind", FinishValue::Text("rings".into())),
    ]);
    assert_ne!(single, rings);
    // `unit` scales the sizes: σ 1 in units of 3 px is σ 3 px.
    assert_eq!(
        bloom(vec![("sigma", n(1.0)), ("unit", n(3.0))]),
        bloom(vec![("sigma", n(3.0))])
    );
    // `knee_width` is the whole knee: 2 · knee · threshold.
    assert_eq!(
        bloom(vec![("knee_width", n(1.0)), ("threshold", n(1.0))]),
        bloom(vec![("knee", n(0.5)), ("threshold", n(1.0))])
    );
    // `soft` makes the part below the threshold glow too.
    let plain = chain(vec![num("exposure", 0.0)], vec![]).apply(w, h, &px);
    assert_eq!(bloom(vec![("threshold", n(1e6))]), plain);
    assert_ne!(bloom(vec![("threshold", n(1e6)), ("soft", n(1.0))]), plain);
    // `down` blurs at a lower resolution: nearly the same picture, not the same bytes.
    let down = bloom(vec![("strength", n(0.5)), ("down", n(2.0))]);
    assert_ne!(down, single);
    let mean: f64 = down
        .iter()
        .zip(&single)
        .map(|(a, b)| (*a as f64 - *b as f64).abs())
        .sum::<f64>()
        / down.len() as f64;
    assert!(mean < 2.0, "{mean}");
    // `linear_taps` is the same kernel: the same bytes, recorded for a live renderer.
    assert_eq!(
        bloom(vec![
            ("strength", n(0.5)),
            ("linear_taps", FinishValue::Bool(true))
        ]),
        single
    );
}
