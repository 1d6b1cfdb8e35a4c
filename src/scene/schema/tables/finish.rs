//! The finish: its keys, shared by `[finish]`, `[[finish.pass]]` and a finish file, and their tables.

use super::*;

// ---------------------------------------------------------------------------------------------
// finish

const COLOUR: Ty = Ty::OneOf(&[Ty::Hex, Ty::Vec(3)]);
const WHOLE: Range = ge(0.0);

/// The finish style names.
pub const STYLES: &[&str] = &[
    "cel",
    "bw",
    "noir",
    "vignette",
    "neon",
    "rubber_hose",
    "sepia",
    "film",
    "crt",
    "one_bit",
    "halftone",
    "comic",
    "modern_comic",
    "watercolor",
    "paper_grain",
    "pixel",
    "duotone",
    "gradient_map",
    "posterize",
    "kuwahara",
    "tilt_shift",
];

const BLOOM_T: &[Ty] = &[Ty::Num, Ty::Table(&BLOOM)];
const GRAIN_T: &[Ty] = &[Ty::Num, Ty::Table(&GRAIN)];
const OUTLINE_T: &[Ty] = &[Ty::Bool, Ty::Table(&OUTLINE)];
const SCRATCHES_T: &[Ty] = &[Ty::Num, Ty::Table(&SCRATCHES)];
const TAPE_T: &[Ty] = &[Ty::Enum(&["forward", "rewind"]), Ty::Num, Ty::Table(&TAPE)];
const TONE_T: &[Ty] = &[Ty::Enum(&["aces", "agx", "neutral"]), Ty::Table(&TONE)];
const VIGNETTE_T: &[Ty] = &[Ty::Num, Ty::Table(&VIGNETTE)];
const WARMTH_T: &[Ty] = &[Ty::Num, Ty::Table(&WARMTH)];

/// The finish keys: `[finish]` inline, each `[[finish.pass]]`, and a finish file's top level.
pub const FINISH_KEYS: &[Key] = &[
    k("aberration", NUM).m("chromatic aberration"),
    k("angle", NUM).u("degrees").m("the halftone screen angle"),
    k("black", NUM).m("the black level"),
    k("black_threshold", NUM).m("modern comic: black threshold"),
    k("bloom", Ty::OneOf(BLOOM_T)).m("the bloom's strength, or its table"),
    k("cavity", NUM).m("cavity shading's strength"),
    k("cavity_distance", NUM).m("cavity shading's distance"),
    k("cel_bands", NUM).r(WHOLE).m("cel shading's bands"),
    k("cel_shadow", NUM).m("cel shading's shadow"),
    k("cel_softness", NUM).m("cel shading's softness"),
    k("cel_spec", NUM).m("cel shading's specular"),
    k("cel_spec_roughness", NUM).m("cel shading's specular roughness"),
    k("cel_spec_threshold", NUM).m("cel shading's specular threshold"),
    k("cel_threshold", NUM).m("cel shading's threshold"),
    k("contrast", NUM).m("contrast"),
    k("crease_angle", NUM)
        .u("degrees")
        .m("the outline's crease angle"),
    k("crush", NUM).m("noir: black crush"),
    k("curvature", NUM).m("screen curvature"),
    k("darkening", NUM).m("watercolour edge darkening"),
    k("dither", Ty::OneOf(&[Ty::Bool, Ty::Num]))
        .u("8-bit code steps")
        .m("dither amplitude; true is 1, false is 0"),
    k("dither_kind", Ty::Enum(&["blue", "ordered"])).m("the one-bit dither pattern"),
    k("distortion", NUM).m("lens distortion"),
    k("dot", NUM).u("pixels").m("the halftone cell size"),
    k("dust", NUM).m("film dust: tens of specks a frame"),
    k("encode", Ty::Bool).m("true adds the encode pass"),
    k("exposure", NUM).u("stops").m("exposure: × 2^exposure"),
    k("flicker", NUM).m("film flicker"),
    k("focus", NUM)
        .m("tilt-shift focus: the sharp band's centre, a fraction of the height from the top"),
    k("frame", Ty::UInt).m("the frame for animated passes"),
    k("gain", NUM).m("ACES tone gain"),
    k("grain", Ty::OneOf(GRAIN_T)).m("the grain's strength, or its table"),
    k("halation", NUM).m("halation strength"),
    k("highlight", COLOUR).m("duotone highlight"),
    k("highlight_threshold", NUM).m("modern comic: highlight threshold"),
    k("ink", Ty::OneOf(&[Ty::Num, Ty::Hex, Ty::Vec(3)])).m("comic ink, or a halftone ink colour"),
    k("interior_line_strength", NUM).m("modern comic: interior lines"),
    k("keep", COLOUR).m("noir: the colour kept"),
    k("keep_range", NUM).m("noir: how much of it"),
    k("levels", NUM).m("posterize (or comic) levels"),
    k("line_weight", NUM).m("modern comic: line weight"),
    k("lut", Ty::Table(&LUT)).m("a colour lookup table"),
    k("mask", NUM).m("aperture grille"),
    k("outline", Ty::OneOf(OUTLINE_T)).m("the outline on or off, or its table"),
    k("outline_alpha", NUM).m("the outline's opacity"),
    k("outline_color", COLOUR).m("the outline's colour"),
    k("outline_thickness", NUM).m("the outline's thickness"),
    k("palette", Ty::Bool).m("pixel art: palette on or off"),
    k("paper_grain", NUM).m("paper (or watercolour) grain strength"),
    k("pixel", Ty::UInt)
        .u("pixels")
        .m("the pixel size; 0 reads as 1"),
    k("posterize", NUM).m("the same as levels"),
    k("radius", NUM).m("the radius of the bloom, kuwahara, halation, neon or tilt-shift pass"),
    k("rim", NUM).m("rim light strength"),
    k("rim_color", COLOUR).m("rim light colour"),
    k("rim_width", NUM).m("rim light width"),
    k("saturation", NUM).m("saturation"),
    k("saturation_lift", NUM).m("modern comic: saturation lift"),
    k("scale", NUM)
        .u("pixels")
        .m("paper grain or watercolour scale: the texture's cell"),
    k("scanlines", NUM).m("scanline strength"),
    k("scratches", Ty::OneOf(SCRATCHES_T)).m("the scratches' strength, or their table"),
    k("seed", Ty::UInt).m("the chain's seed"),
    k("sepia", NUM).m("sepia"),
    k("shadow", COLOUR).m("duotone shadow"),
    k("style", Ty::Enum(STYLES)).m("a style's passes first"),
    k("tape", Ty::OneOf(TAPE_T))
        .r(ge(0.0))
        .m("a tape look: a direction, a strength or its table"),
    k("threshold", NUM).m("bloom threshold"),
    k("tilt_range", NUM)
        .m("tilt-shift range: the sharp band's half-height, a fraction of the height"),
    k("tone", Ty::OneOf(TONE_T)).m("the tone map"),
    k("tone_steps", NUM)
        .r(within(3.0, 5.0))
        .m("modern comic tone steps"),
    k("vignette", Ty::OneOf(VIGNETTE_T)).m("the vignette's strength, or its table"),
    k("warmth", Ty::OneOf(WARMTH_T)).m("the warmth's amount, or its table"),
    k("weave", NUM)
        .u("pixels")
        .m("film weave: the frame's largest shift"),
    k("weights", V3).m("black-and-white or saturation weights"),
];

/// `[finish]`: the finish keys inline, or `file`, and `[[finish.pass]]`.
pub static FINISH: TableSchema = TableSchema {
    keys: FINISH_KEYS,
    more: &[
        k("file", Ty::Path(EXISTS)).m("a finish file"),
        k("pass", Ty::List(&FINISH_PASS)).m("passes applied in the order written, after the base"),
    ],
    entry: None,
    rule: Some(Rule::Finish),
    bake: None,
};

/// `[[finish.pass]]`.
pub static FINISH_PASS: TableSchema = tr(FINISH_KEYS, Rule::FinishPass);

/// A finish file's top level: the finish keys and nothing else.
pub static FINISH_FILE: TableSchema = t(FINISH_KEYS);

/// `bloom = { … }`.
pub static BLOOM: TableSchema = t(&[
    k("strength", NUM).m("the bloom's strength"),
    k("threshold", NUM).m("the luminance it starts at"),
    k("knee", NUM).m("the threshold's knee"),
    k("knee_width", NUM).m("the knee's width"),
    k("soft", NUM).m("the threshold's softness"),
    k("sigma", NUM)
        .u("pixels")
        .m("the Gaussian blur's standard deviation"),
    k("clamp", NUM).m("the brightest input"),
    k("unit", NUM).m("the size unit"),
    k("radius", NUM).r(WHOLE).u("pixels").m("the blur's radius"),
    k("down", NUM)
        .r(WHOLE)
        .m("the downsampling factor; 0 reads as 1"),
    k("linear_taps", Ty::Bool)
        .m("linear-filtered taps: the same kernel, for a live renderer")
        .uses(Use::Recorded),
    k("radii", Ty::Vec(4)).m("the four levels' radii"),
    k("gains", Ty::Vec(4)).m("the four levels' gains"),
    k("kind", Ty::Enum(&["box", "rings", "tent"])).m("box, rings or tent"),
]);
/// `grain = { … }`.
pub static GRAIN: TableSchema = t(&[
    k("strength", NUM).m("the grain's strength"),
    k("response", NUM).m("its response to brightness"),
    k("clamp", Ty::Bool).m("clamps the result"),
]);
/// `lut = { … }`.
pub static LUT: TableSchema = tr(
    &[
        k("size", Ty::Int)
            .r(within(2.0, 32.0))
            .needed()
            .m("entries per axis"),
        k("values", Ty::Nums)
            .needed()
            .m("size³ · 3 numbers, red, green and blue per entry"),
    ],
    Rule::Lut,
);
/// `outline = { … }`.
pub static OUTLINE: TableSchema = t(&[
    k("enabled", Ty::Bool).m("the outline on or off"),
    k("local_color", Ty::Bool).m("takes the surface's colour"),
    k("thickness", NUM).m("its thickness"),
    k("alpha", NUM).m("its opacity"),
    k("crease_angle", NUM).u("degrees").m("its crease angle"),
    k("color", COLOUR).m("its colour"),
]);
/// `scratches = { … }`.
pub static SCRATCHES: TableSchema = t(&[
    k("count", Ty::UInt).m("how many"),
    k("strength", NUM).m("their strength"),
]);
/// `tape = { … }`.
pub static TAPE: TableSchema = t(&[
    k("direction", Ty::Enum(&["forward", "rewind"])).m("forward or rewind"),
    k("strength", NUM)
        .r(ge(0.0))
        .m("the look's strength, read up to 1"),
    k("bands", NUM).r(ge(0.0)).m("the bands' strength"),
    k("echo", NUM).r(ge(0.0)).m("the echo's strength"),
    k("grain", NUM).r(ge(0.0)).m("the grain's strength"),
    k("smear", NUM).r(ge(0.0)).m("the smear's strength"),
    k("split", NUM).r(ge(0.0)).m("the colour split's strength"),
    k("wash", NUM).r(ge(0.0)).m("the wash's strength"),
]);
/// `tone = { … }`.
pub static TONE: TableSchema = t(&[
    k("kind", Ty::Enum(&["aces", "agx", "neutral"]))
        .needed()
        .m("aces, agx or neutral"),
    k("start", NUM)
        .d(1.0)
        .only("kind", &["neutral"])
        .m("neutral: where the curve starts"),
    k("clamp", Ty::Bool)
        .db(false)
        .only("kind", &["neutral"])
        .m("neutral: clamps the result"),
]);
/// `vignette = { … }`.
pub static VIGNETTE: TableSchema = t(&[
    k("strength", NUM).m("its strength"),
    k("power", NUM).m("its falloff's power"),
    k("aspect", NUM).m("its aspect"),
    k("scale", NUM).m("its size"),
    k("inner", NUM).m("the inner radius"),
    k("outer", NUM).m("the outer radius"),
    k("kind", Ty::Enum(&["power", "smoothstep"])).m("power or smoothstep"),
]);
/// `warmth = { … }`.
pub static WARMTH: TableSchema = t(&[
    k("amount", NUM).m("the warmth's amount"),
    k("shadow", NUM).m("in the shadows"),
    k("highlight", NUM).m("in the highlights"),
    k("low", V2).m("the low end"),
    k("high", V2).m("the high end"),
    k("kind", Ty::Enum(&["linear", "luma_curve"])).m("linear or luma_curve"),
]);
