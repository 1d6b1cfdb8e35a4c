//! The finish: the chain of post passes that turns the beauty's radiance into the preview's
//! picture. A stage between the film and the plates: it reads the scene's `[finish]` (through
//! [`resolve`]) and the plate's images, and the plates call [`Chain::apply`] to make
//! `preview.png`. `beauty.exr` is never finished: it stays the radiance a live renderer
//! composites, and the manifest's `"finish"` ([`Chain::to_json`]) tells that renderer the
//! chain to apply after compositing.
//!
//! What each pass does, its units and defaults, and the order rules are in `docs/finish.md`.

mod chain;
mod cine;
mod comic;
mod crt;
mod ink;
mod lens;
mod neon;
mod noise;
mod ops;
mod palette;
mod paper;
mod screen;
mod spatial;
mod styles;
mod surface;
mod tape;
mod tilt;
pub mod tone;

use rayon::prelude::*;
use serde_json::{json, Value};

use crate::scene::Location;

pub use chain::{resolve, STANDARD_TONE};
pub use cine::{Halation, HALATION_TINT};
pub use comic::{Comic, ComicKind};
pub use crt::{scanline_factor, scanline_pitch};
pub use ink::{Cel, Outline, DEPTH_STEP, LUMA_EDGE};
pub use lens::{ABERRATION_SCALE, DISTORTION_RANGE};
pub use neon::Neon;
pub use noise::NoiseKey;
pub use ops::{srgb_decode, srgb_encode, Lut, Warmth, WarmthKind};
pub use palette::{oklab, PALETTE};
pub use paper::Watercolor;
pub use screen::{DitherKind, Halftone};
pub use spatial::{Bloom, BloomKind, Rings, Vignette, VignetteKind, RING_GAINS};
pub use styles::DRAWN_STYLES;
pub use surface::{camera_direction, camera_normals, Cavity, CelSpec, LightFrom, Rim, KEY_LIGHT};
pub use tape::{Scratches, Tape, TapeDirection};
pub use tilt::TiltShift;
pub use tone::{Tone, ToneKind};

/// Rec.709 luminance weights: the default `weights`.
pub const REC709_WEIGHTS: [f32; 3] = [0.2126, 0.7152, 0.0722];

/// One pass of the chain, with its parameters resolved.
#[derive(Clone, Debug, PartialEq)]
pub enum Pass {
    /// `exposure`: × 2^stops.
    Exposure {
        /// Stops (EV).
        stops: f32,
    },
    /// `contrast`: a power about middle grey, 0 is none.
    Contrast {
        /// The power's excess over 1.
        amount: f32,
    },
    /// `saturation`: the distance from grey scaled, 1 is none.
    Saturation {
        /// The factor.
        factor: f32,
        /// The grey's weights.
        weights: [f32; 3],
    },
    /// `warmth`: a white balance toward amber (positive) or blue (negative).
    Warmth(Warmth),
    /// `vignette`: the corners darkened.
    Vignette(Vignette),
    /// `bloom`: the bright parts blurred and added back.
    Bloom(Bloom),
    /// `grain`: film grain, noise that grows with the square root of the luminance.
    Grain {
        /// Its strength: the noise's amplitude at luminance 1.
        strength: f32,
        /// The power of the luminance the amplitude follows (0.5: photon shot noise).
        response: f32,
        /// Clamps the result to [0, 1].
        clamp: bool,
    },
    /// `dither`: triangular noise of ± `amplitude` 8-bit code steps, on the encoded signal.
    Dither {
        /// 8-bit code steps.
        amplitude: f32,
    },
    /// `lut`: a 3D colour lookup table, trilinear.
    Lut(Lut),
    /// `tone`: a tone map.
    Tone(Tone),
    /// `encode = true`: the sRGB transfer function; passes after it see encoded values.
    Encode,
    /// `black`: the black level lifted: v ↦ black + (1 − black) · v.
    Black {
        /// The level.
        level: f32,
    },
    /// `sepia`: the sepia matrix mixed in.
    Sepia {
        /// 0 none, 1 all.
        amount: f32,
    },
    /// Style `bw` (or `weights` alone): grey by `weights`.
    Mono {
        /// The grey's weights.
        weights: [f32; 3],
    },
    /// `posterize` / `levels`: each encoded channel rounded to `levels` values.
    Posterize {
        /// At least 2.
        levels: u32,
    },
    /// `pixel`: the image in blocks of `size` × `size` pixels, each its mean; with `palette`,
    /// each block then the nearest colour (Oklab) of [`PALETTE`].
    Pixel {
        /// Pixels; 1 is none.
        size: u32,
        /// `palette = true`.
        palette: bool,
    },
    /// `shadow`, `highlight`: the luminance mapped from one colour to the other.
    Duotone {
        /// At luminance 0, linear RGB.
        shadow: [f32; 3],
        /// At luminance 1, linear RGB.
        highlight: [f32; 3],
    },
    /// `radius` without another pass to tune: the Kuwahara filter.
    Kuwahara {
        /// Pixels: each quadrant is (radius + 1)².
        radius: u32,
    },
    /// Style `noir`: grey, blacks crushed, one colour kept.
    Noir {
        /// The grey's weights.
        weights: [f32; 3],
        /// `crush`: the level below which all is black (linear).
        crush: f32,
        /// `keep`: the colour kept, linear RGB, when given.
        keep: Option<[f32; 3]>,
        /// `keep_range`: how far in hue (0 to 1 of a half turn) from `keep` colour stays.
        keep_range: f32,
    },
    /// Style `one_bit` (or `dither_kind`): black or white by a threshold pattern.
    OneBit {
        /// The pattern.
        kind: DitherKind,
    },
    /// Style `gradient_map`: the luminance's code through a ramp of colours.
    GradientMap {
        /// The ramp's stops, linear RGB, evenly spaced from black (the first) to white (the
        /// last); interpolated between their sRGB codes.
        stops: Vec<[f32; 3]>,
    },
    /// Style `halftone` (or `dot`, `angle`, an `ink` colour): a round-dot screen.
    Halftone(Halftone),
    /// `halation`: a red-orange halo around highlights.
    Halation(Halation),
    /// `weave`: gate weave, the frame moved by up to ± `pixels` (a draw per frame).
    Weave {
        /// Pixels.
        pixels: f32,
    },
    /// `flicker`: the frame's brightness × (1 ± up to `amount`), a draw per frame.
    Flicker {
        /// A fraction of the brightness.
        amount: f32,
    },
    /// `dust`: dark specks, round(10 · `amount`) a frame, drawn afresh each frame.
    Dust {
        /// Tens of specks a frame.
        amount: f32,
    },
    /// `scanlines`: a 240-line raster's dark gaps.
    Scanlines {
        /// 0 none, 1 black between the lines.
        strength: f32,
    },
    /// `mask`: an aperture grille's red, green and blue columns.
    Mask {
        /// 0 none, 1 each column passes its phosphor's channel only.
        strength: f32,
    },
    /// `curvature`: the tube's barrel distortion.
    Curvature {
        /// The barrel's coefficient (the picture at r · (1 + amount · r²) shows at r).
        amount: f32,
    },
    /// `focus`, `tilt_range`: the tilt-shift blur.
    TiltShift(TiltShift),
    /// `paper_grain`, `scale`: the picture on a paper's texture.
    Paper {
        /// The darkening at the texture's peaks, 0 to 1.
        strength: f32,
        /// The texture's cell, pixels.
        scale: f32,
    },
    /// `darkening` (style `watercolor`): watercolour pigment.
    Watercolor(Watercolor),
    /// Style `neon`: the edges as glowing tubes of their colour.
    Neon(Neon),
    /// `cel_bands`, `cel_shadow`, `cel_threshold`, `cel_softness`: cel bands.
    Cel(Cel),
    /// `outline`: lines at depth steps (or, without a depth, luminance edges), and creases.
    Outline(Outline),
    /// `cavity`, `cavity_distance`: ridges brightened and valleys darkened, from the normal.
    Cavity(Cavity),
    /// `rim`, `rim_color`, `rim_width`: light added where surfaces turn from the view.
    Rim(Rim),
    /// Styles `comic` and `modern_comic` (or `ink` as a number and the modern comic's keys).
    Comic(Comic),
    /// `aberration`: lateral chromatic aberration.
    Aberration {
        /// Units of [`ABERRATION_SCALE`]: red and blue scaled apart about the centre.
        amount: f32,
    },
    /// `distortion`: radial lens distortion, barrel (positive) or pincushion (negative).
    Distortion {
        /// Brown's k₁ over half-diagonals, read within [`DISTORTION_RANGE`].
        amount: f32,
    },
    /// `scratches`: bright film scratches, drawn afresh each frame.
    Scratches(Scratches),
    /// `tape`: a video tape's look.
    Tape(Tape),
}

impl Pass {
    /// The pass's name in the manifest.
    pub fn name(&self) -> &'static str {
        match self {
            Pass::Exposure { .. } => "exposure",
            Pass::Contrast { .. } => "contrast",
            Pass::Saturation { .. } => "saturation",
            Pass::Warmth(_) => "warmth",
            Pass::Vignette(_) => "vignette",
            Pass::Bloom(_) => "bloom",
            Pass::Grain { .. } => "grain",
            Pass::Dither { .. } => "dither",
            Pass::Lut(_) => "lut",
            Pass::Tone(_) => "tone",
            Pass::Encode => "encode",
            Pass::Black { .. } => "black",
            Pass::Sepia { .. } => "sepia",
            Pass::Mono { .. } => "bw",
            Pass::Posterize { .. } => "posterize",
            Pass::Pixel { .. } => "pixel",
            Pass::Duotone { .. } => "duotone",
            Pass::Kuwahara { .. } => "kuwahara",
            Pass::Noir { .. } => "noir",
            Pass::OneBit { .. } => "one_bit",
            Pass::GradientMap { .. } => "gradient_map",
            Pass::Halftone(_) => "halftone",
            Pass::Halation(_) => "halation",
            Pass::Weave { .. } => "weave",
            Pass::Flicker { .. } => "flicker",
            Pass::Dust { .. } => "dust",
            Pass::Scanlines { .. } => "scanlines",
            Pass::Mask { .. } => "mask",
            Pass::Curvature { .. } => "curvature",
            Pass::TiltShift(_) => "tilt_shift",
            Pass::Paper { .. } => "paper_grain",
            Pass::Watercolor(_) => "watercolor",
            Pass::Neon(_) => "neon",
            Pass::Cel(_) => "cel",
            Pass::Outline(_) => "outline",
            Pass::Cavity(_) => "cavity",
            Pass::Rim(_) => "rim",
            Pass::Comic(_) => "comic",
            Pass::Aberration { .. } => "aberration",
            Pass::Distortion { .. } => "distortion",
            Pass::Scratches(_) => "scratches",
            Pass::Tape(_) => "tape",
        }
    }

    /// The pass and its parameters, for the manifest.
    pub fn to_json(&self) -> Value {
        let mut v = match self {
            Pass::Exposure { stops } => json!({ "stops": stops }),
            Pass::Contrast { amount } => json!({ "amount": amount, "pivot_linear": 0.18 }),
            Pass::Saturation { factor, weights } => {
                json!({ "factor": factor, "weights": weights })
            }
            Pass::Warmth(w) => w.to_json(),
            Pass::Vignette(v) => v.to_json(),
            Pass::Bloom(b) => b.to_json(),
            Pass::Grain {
                strength,
                response,
                clamp,
            } => json!({ "strength": strength, "response": response, "clamp": clamp }),
            Pass::Dither { amplitude } => {
                json!({ "amplitude": amplitude, "unit": "8-bit code steps, triangular" })
            }
            Pass::Lut(l) => {
                json!({ "size": l.size, "values": l.values, "order": "red fastest, then green, then blue" })
            }
            Pass::Tone(t) => match t.kind {
                ToneKind::Aces => json!({ "kind": "aces", "gain": t.gain }),
                ToneKind::Agx => json!({ "kind": "agx" }),
                ToneKind::Neutral => {
                    json!({ "kind": "neutral", "start": t.start, "clamp": t.clamp })
                }
            },
            Pass::Encode => json!({ "transfer": "sRGB (IEC 61966-2-1)" }),
            Pass::Black { level } => json!({ "level": level }),
            Pass::Sepia { amount } => json!({ "amount": amount }),
            Pass::Mono { weights } => json!({ "weights": weights }),
            Pass::Posterize { levels } => json!({ "levels": levels }),
            Pass::Pixel { size, palette } => {
                let mut v = json!({ "size": size, "palette": palette });
                if *palette {
                    v["colors"] = json!(PALETTE
                        .iter()
                        .map(|c| format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]))
                        .collect::<Vec<_>>());
                    v["nearest"] = json!(
                        "each block's mean to the nearest colour in Oklab (PICO-8's palette)"
                    );
                }
                v
            }
            Pass::Duotone { shadow, highlight } => {
                json!({ "shadow": shadow, "highlight": highlight })
            }
            Pass::Kuwahara { radius } => json!({ "radius": radius }),
            Pass::Noir {
                weights,
                crush,
                keep,
                keep_range,
            } => {
                json!({ "weights": weights, "crush": crush, "keep": keep, "keep_range": keep_range })
            }
            Pass::OneBit { kind } => json!({
                "kind": kind.name(),
                "input": "the Rec.709 luminance's sRGB code",
                "pattern": match kind {
                    DitherKind::Ordered => "Bayer 8x8",
                    DitherKind::Blue => "void-and-cluster 64x64, sigma 1.5",
                },
            }),
            Pass::GradientMap { stops } => json!({
                "stops": stops,
                "input": "the Rec.709 luminance's sRGB code",
                "interpolation": "between the stops' sRGB codes, evenly spaced",
            }),
            Pass::Halftone(h) => json!({
                "dot": h.dot, "angle": h.angle, "ink": h.ink, "paper": h.paper,
                "screen": "round dot, threshold = the dot's area at the pixel; ink where 1 - luminance code exceeds it",
            }),
            Pass::Halation(h) => h.to_json(),
            Pass::Weave { pixels } => json!({ "pixels": pixels }),
            Pass::Flicker { amount } => json!({ "amount": amount }),
            Pass::Dust { amount } => {
                json!({ "amount": amount, "specks_per_frame": "round(10 x amount), at most 1000" })
            }
            Pass::Scanlines { strength } => {
                json!({ "strength": strength, "pitch": "max(3, round(height / 240)) pixels", "beam": "cos^2" })
            }
            Pass::Mask { strength } => {
                json!({ "strength": strength, "kind": "aperture grille, RGB columns one pixel wide" })
            }
            Pass::Curvature { amount } => {
                json!({ "amount": amount, "kind": "barrel, r * (1 + amount * r^2)" })
            }
            Pass::TiltShift(t) => t.to_json(),
            Pass::Paper { strength, scale } => {
                json!({ "strength": strength, "scale": scale, "octaves": 3 })
            }
            Pass::Watercolor(w) => w.to_json(),
            Pass::Neon(n) => n.to_json(),
            Pass::Cel(c) => c.to_json(),
            Pass::Outline(o) => o.to_json(),
            Pass::Cavity(c) => c.to_json(),
            Pass::Rim(r) => r.to_json(),
            Pass::Comic(c) => c.to_json(),
            Pass::Aberration { amount } => json!({
                "amount": amount,
                "kind": "lateral: red shown at scale 1/(1 - s), blue at 1/(1 + s), s = 0.0025 x amount, about the centre; bilinear, edges repeated",
            }),
            Pass::Scratches(x) => x.to_json(),
            Pass::Tape(t) => t.to_json(),
            Pass::Distortion { amount } => json!({
                "amount": amount,
                "kind": "radial, the picture at p (1 + k r^2) / (1 + k) shown at p, r in half-diagonals, k within [-0.3, 1]; bilinear, edges repeated",
            }),
        };
        v["pass"] = json!(self.name());
        v
    }
}

/// Something a finish holds that this version does not draw: named in the bake's notes.
#[derive(Clone, Debug, PartialEq)]
pub struct NotDrawn {
    /// The key or style, in the format's words (`scanlines`, `style "crt"`).
    pub what: String,
    /// The note.
    pub message: String,
    /// Where it is written.
    pub at: Location,
}

/// The resolved chain: the passes in the order they apply, and what they draw with.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The passes, in order.
    pub passes: Vec<Pass>,
    /// `seed`: the grain's and dither's seed.
    pub seed: u64,
    /// `frame`: the frame animated passes draw.
    pub frame: u64,
    /// `style`, when given.
    pub style: Option<String>,
    /// The finish file, when `[finish] file` named one (root-relative).
    pub file: Option<String>,
    /// Whether this is the engine's standard finish (the scene has no `[finish]`).
    pub standard: bool,
    /// What the finish holds that is not drawn.
    pub not_drawn: Vec<NotDrawn>,
}

impl Chain {
    /// The engine's standard finish, for a scene without `[finish]`: the AgX tone map, then
    /// the sRGB encoding.
    pub fn standard() -> Chain {
        Chain {
            passes: vec![Pass::Tone(Tone::of(STANDARD_TONE))],
            seed: 0,
            frame: 0,
            style: None,
            file: None,
            standard: true,
            not_drawn: Vec::new(),
        }
    }

    /// Whether the chain holds its own encode pass (else the writer encodes at the end).
    pub fn encodes(&self) -> bool {
        self.passes.contains(&Pass::Encode)
    }

    /// The chain as the manifest records it, for a live renderer to apply the same.
    pub fn to_json(&self) -> Value {
        json!({
            "source": if self.standard { "standard" } else if self.file.is_some() { "file" } else { "scene" },
            "file": self.file,
            "style": self.style,
            "seed": self.seed,
            "frame": self.frame,
            "passes": self.passes.iter().map(Pass::to_json).collect::<Vec<_>>(),
            "input": "the beauty (the denoised beauty when the bake denoised): linear Rec.709 radiance, W/(m^2 sr)",
            "output": if self.encodes() {
                "the last pass's values, clamped to [0, 1] and rounded to 8 bits"
            } else {
                "the last pass's values, clamped to [0, 1], encoded with the sRGB transfer function (IEC 61966-2-1) and rounded to 8 bits"
            },
            "not_drawn": self.not_drawn.iter().map(|n| json!({ "what": n.what, "message": n.message })).collect::<Vec<_>>(),
        })
    }

    /// Applies the chain to `rgb` (`width × height` linear Rec.709 pixels, row-major from the
    /// top row), and returns the preview's 8-bit sRGB
    /// pixels: three bytes each, row-major from the top row. Never writes NaN: a non-finite
    /// value a pass makes reads as black.
    pub fn apply(&self, width: u32, height: u32, rgb: &[[f32; 3]]) -> Vec<u8> {
        self.apply_with(width, height, rgb, None)
    }

    /// [`Chain::apply`] with the plate's depth (`width × height` planar view-space depths in
    /// scene units, row-major from the top row), which the outline reads: its lines are then
    /// the depth's steps, not the luminance's edges. A depth of another size is not read.
    pub fn apply_with(
        &self,
        width: u32,
        height: u32,
        rgb: &[[f32; 3]],
        depth: Option<&[f32]>,
    ) -> Vec<u8> {
        self.apply_to(
            width,
            height,
            rgb,
            &Surfaces {
                depth,
                normal: None,
            },
        )
    }

    /// Whether a pass of the chain reads the normal pass (so a bake must give it).
    pub fn reads_normal(&self) -> bool {
        self.passes.iter().any(|p| match p {
            Pass::Cavity(_) | Pass::Rim(_) | Pass::Comic(_) => true,
            Pass::Cel(c) => c.spec.is_some(),
            Pass::Outline(o) => o.crease_angle.is_some(),
            _ => false,
        })
    }

    /// Lights the cel specular by the scene's sun: `toward` is the direction towards it in
    /// camera space ([`camera_direction`]). A pass whose light is the fixed key light takes it.
    pub fn light_by_sun(&mut self, toward: [f32; 3]) {
        let Some(l) = surface::unit(toward) else {
            return;
        };
        for p in &mut self.passes {
            if let Pass::Cel(Cel { spec: Some(s), .. }) = p {
                s.light = l;
                s.from = LightFrom::Sun;
            }
        }
    }

    /// [`Chain::apply`] with the plate's surfaces: the outline and cavity read the depth, the
    /// passes of `surface.rs` the normal. A buffer of another size than the image is not read.
    pub fn apply_to(
        &self,
        width: u32,
        height: u32,
        rgb: &[[f32; 3]],
        surfaces: &Surfaces<'_>,
    ) -> Vec<u8> {
        let n = width as usize * height as usize;
        let depth = surfaces.depth.filter(|d| d.len() == n);
        let normal = surfaces.normal.filter(|d| d.len() == n);
        let mut img = Image {
            width: width as usize,
            height: height as usize,
            px: rgb.to_vec(),
        };
        let mut encoded = false;
        for (i, pass) in self.passes.iter().enumerate() {
            let key = NoiseKey {
                seed: self.seed,
                frame: self.frame,
                pass: i as u32,
            };
            match pass {
                Pass::Encode => {
                    if !encoded {
                        img.map(|_, c| c.map(srgb_encode));
                        encoded = true;
                    }
                }
                Pass::Vignette(v) => spatial::vignette(&mut img, v),
                Pass::Bloom(b) => spatial::bloom(&mut img, b),
                Pass::Pixel { size, palette } => {
                    spatial::pixelate(&mut img, *size);
                    if *palette {
                        img.map(|_, c| palette::apply(c, encoded));
                    }
                }
                Pass::Kuwahara { radius } => spatial::kuwahara(&mut img, *radius),
                Pass::OneBit { kind } => screen::one_bit(&mut img, *kind, encoded),
                Pass::Halftone(h) => screen::halftone(&mut img, h, encoded),
                Pass::Halation(h) => cine::halation(&mut img, h),
                Pass::Weave { pixels } => cine::weave(&mut img, *pixels, &key),
                Pass::Flicker { amount } => {
                    let f = cine::flicker_factor(*amount, &key);
                    img.map(|_, c| c.map(|v| v * f));
                }
                Pass::Dust { amount } => cine::dust(&mut img, *amount, &key),
                Pass::Scanlines { strength } => crt::scanlines(&mut img, *strength),
                Pass::Mask { strength } => crt::mask(&mut img, *strength),
                Pass::Curvature { amount } => crt::curvature(&mut img, *amount),
                Pass::TiltShift(t) => tilt::tilt_shift(&mut img, t),
                Pass::Paper { strength, scale } => {
                    paper::paper_grain(&mut img, *strength, *scale, &key)
                }
                Pass::Watercolor(w) => paper::watercolor(&mut img, w, encoded, &key),
                Pass::Neon(n) => neon::neon(&mut img, n, encoded),
                Pass::Outline(o) => ink::outline(&mut img, o, depth, normal, encoded),
                Pass::Cavity(c) => surface::cavity(&mut img, c, depth, normal),
                Pass::Rim(r) => surface::rim(&mut img, r, normal, encoded),
                Pass::Comic(c) => comic::comic(&mut img, c, depth, normal, encoded),
                Pass::Aberration { amount } => lens::aberration(&mut img, *amount),
                Pass::Distortion { amount } => lens::distortion(&mut img, *amount),
                Pass::Scratches(x) => tape::scratches(&mut img, x, &key),
                Pass::Tape(t) => tape::tape(&mut img, t, &key),
                Pass::Cel(c) => {
                    let w = img.width;
                    img.map(|i, col| {
                        ops::pixel(pass, col, encoded, &key, (i % w) as u32, (i / w) as u32)
                    });
                    if let (Some(s), Some(n)) = (&c.spec, normal) {
                        surface::cel_spec(&mut img, s, c.softness, n);
                    }
                }
                p => {
                    let w = img.width;
                    img.map(|i, c| ops::pixel(p, c, encoded, &key, (i % w) as u32, (i / w) as u32))
                }
            }
        }
        let to8 = |v: f32| -> u8 {
            if !v.is_finite() {
                return if v == f32::INFINITY { 255 } else { 0 };
            }
            let e = if encoded {
                v
            } else {
                srgb_encode(v.clamp(0.0, 1.0))
            };
            // Clamped to [0, 1], so the rounded product lies in [0, 255] and the cast is exact.
            (e.clamp(0.0, 1.0) * 255.0).round() as u8
        };
        img.px.iter().flat_map(|c| c.map(to8)).collect()
    }
}

/// What the chain reads beside the picture: the plate's surfaces, each `width × height`,
/// row-major from the top row. Plain buffers, so the finish needs nothing of the renderer.
#[derive(Clone, Copy, Debug, Default)]
pub struct Surfaces<'a> {
    /// Planar view-space depths at the pixel centres, scene units (the plate's `depth.exr`).
    pub depth: Option<&'a [f32]>,
    /// The first drawn surface's mean shading normal, camera space ([`camera_normals`]: x to
    /// the image's right, y up, z towards the camera), dimensionless: shorter than 1 where a
    /// pixel's samples disagree, zero where it sees the sky.
    pub normal: Option<&'a [[f32; 3]]>,
}

/// A working image: linear (or, after the encode pass, encoded) RGB, row-major from the top.
pub(crate) struct Image {
    pub(crate) width: usize,
    pub(crate) height: usize,
    pub(crate) px: Vec<[f32; 3]>,
}

impl Image {
    /// Maps each pixel by its index, in parallel (each pixel on its own: any order is the same).
    fn map(&mut self, f: impl Fn(usize, [f32; 3]) -> [f32; 3] + Sync) {
        self.px
            .par_iter_mut()
            .enumerate()
            .for_each(|(i, c)| *c = f(i, *c));
    }
}
