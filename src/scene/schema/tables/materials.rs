//! Material libraries: a material, its sub-tables, the families and the noise kinds.

use super::*;

// ---------------------------------------------------------------------------------------------
// material libraries

/// A `*.materials.toml`'s top level.
pub static LIBRARY: TableSchema = t(&[
    FORMAT,
    k("materials", Ty::Tables(&MATERIAL)).m("one material each"),
    AUTHORING,
]);

/// The family names, in the spec's order.
pub const FAMILIES: &[&str] = &[
    "plain", "paper", "plaster", "stone", "cloth", "metal", "occluder", "petal", "leaf", "bark",
    "cord", "wood", "lacquer", "glass", "liquid", "emissive", "chrome",
];

/// The families drawn with their own model (or with `plain`'s as their own, `wood` and
/// `bark`); every other family renders as `plain` with a note.
pub const DRAWN_FAMILIES: &[&str] = &[
    "plain", "paper", "plaster", "stone", "cloth", "metal", "occluder", "petal", "leaf", "bark",
    "cord", "wood", "lacquer", "glass", "liquid", "emissive", "chrome",
];
/// The conductors: reflectance is `base`, nothing is transmitted.
const CONDUCTORS: &[&str] = &["metal", "chrome"];
/// The dielectric bodies: an interface of index `ior` around a medium.
const GLASS: &[&str] = &["glass", "liquid"];
/// The thin diffuse-transmitting sheets.
const SHEETS: &[&str] = &["paper", "petal", "leaf"];
const EMISSIVE: &[&str] = &["emissive"];
/// The holdout.
const OCCLUDER: &[&str] = &["occluder"];
const HOLDOUT: &str = "has no effect: {family} is a holdout, drawn as nothing";
/// The families with no specular layer (the rough diffuse EON and the sheen of cloth and
/// cord; under a coat, plain).
const ROUGH_DIFFUSE: &[&str] = &["plaster", "stone", "cloth", "cord"];
const EON: &str = "has no effect: {family} has no specular layer unless coated";
/// The families that draw no sheen: all but cloth and cord and the sheen layer's.
const NO_SHEEN: &[&str] = &[
    "paper", "occluder", "petal", "leaf", "lacquer", "glass", "liquid", "emissive",
];
/// The sheen layer's families that transmit with `transmission > 0` (the conductors do not).
const SHEENED_TRANSMITTING: &[&str] = &["plain", "wood", "bark", "plaster", "stone"];
/// The sheen layer's families that draw a thin film.
const SHEENED_FILMED: &[&str] = &["plain", "wood", "bark", "metal", "chrome"];
/// The families whose sheen a clear coat hides (a coated family is `plain` under the coat).
const SHEEN_UNDER_COAT: &[&str] = &[
    "plain", "wood", "bark", "plaster", "stone", "metal", "chrome", "cloth", "cord",
];
const SHEEN_COATED: &str = "is not rendered yet on {family} under a clear coat: a sheen is drawn on the uncoated \"cloth\" and \"cord\", and as a layer over the uncoated, opaque bases of \"plain\", \"wood\", \"bark\", \"plaster\", \"stone\", \"metal\" and \"chrome\"";
const SHEEN_TRANSMITS: &str = "is not rendered yet on {family} with transmission or subsurface: the sheen layer is drawn over opaque bases";
const SHEEN_FILM: &str = "is not rendered yet on {family} with a thin film: the sheen layer is drawn over bases without a film";
/// The families that enclose no medium (the reflecting families that transmit do where they
/// transmit, `lacquer` among them).
const NO_MEDIUM: &[&str] = &[
    "paper", "metal", "occluder", "petal", "leaf", "emissive", "chrome",
];
/// The families drawn with `plain`'s own model when uncoated: transmission and subsurface
/// scattering are drawn on them (`materials::Translucent`, `media::Subsurface`).
const TRANSLUCENT: &[&str] = &["plain", "wood", "bark"];
/// The reflecting families on which `transmission` is drawn when uncoated: `plain`'s and the
/// rough diffuse families and sheens (`materials::Translucent` over each base).
const TRANSMITTING: &[&str] = &["plain", "wood", "bark", "plaster", "stone", "cloth", "cord"];
/// The reflecting families on which `transmission` is drawn, coated or not: [`TRANSMITTING`]
/// and `lacquer` (under a coat each is `plain` over `materials::Translucent`,
/// `materials::CoatedTranslucent`).
const COATABLE_TRANSMITTING: &[&str] = &[
    "plain", "wood", "bark", "plaster", "stone", "cloth", "cord", "lacquer",
];
/// The families drawn as `plain` only under a coat, whose metalness is then read: a coated
/// rough diffuse family or sheen, and `lacquer`.
const PLAIN_UNDER_COAT: &[&str] = &["plaster", "stone", "cloth", "cord", "lacquer"];
/// `plain`'s families and `lacquer`, whose thickness is not drawn under a coat.
const COATED_TRANSLUCENT: &[&str] = &["plain", "wood", "bark", "lacquer"];
const NO_MEDIUM_METAL: &str =
    "has no effect: {family} at metalness 1 does not transmit, and encloses no medium";
const METAL_OPAQUE: &str =
    "has no effect: {family} at metalness 1 is a conductor and does not transmit";
/// `metalness` and `fresnel_power` on a transmitting rough diffuse or sheen: its one
/// specular lobe is the interface's.
const NO_METAL: &str = "has no effect: {family} has no metal (its transmission's interface is a dielectric of specular's index)";
const LACQUER: &[&str] = &["lacquer"];
/// The families drawn with `plain`'s model: every family but the conductors, the dielectric
/// bodies, the sheets and `emissive` (`lacquer` is `plain` under a coat at full weight).
const PLAIN_DRAWN: &[&str] = &[
    "plain", "plaster", "stone", "cloth", "occluder", "bark", "cord", "wood", "lacquer",
];
const SHEET: &str = "has no effect: {family} is a thin diffuse sheet (base and transmission)";
const BLACK: &str = "has no effect: {family} draws its emission and reflects nothing";
const DIELECTRIC: &str = "has no effect: {family} is a dielectric of index ior";
const NO_COAT: &str = "has no effect: {family} has no clear coat";

/// The families whose film is drawn: the uncoated `plain` model and the conductors, and the
/// smooth solid bodies.
const FILMED: &str = "is not rendered yet on {family}: a thin film is drawn on the uncoated families \"plain\", \"wood\", \"bark\", \"metal\" and \"chrome\", and on the smooth uncoated bodies \"glass\" and \"liquid\"";
/// The roughness below which a glass interface is smooth (`α < 10⁻³`, the dielectric's delta
/// threshold): `√10⁻³`.
const SMOOTH_ROUGHNESS: f64 = 0.031_622_776_601_683_79;
/// Where a thin film (`thin_film`, `thin_film_ior`, `thin_film_amount`) is not drawn.
const FILM_CASES: [Unread; 10] = [
    Unread {
        when: When::Is("family", OCCLUDER),
        agrees: None,
        why: HOLDOUT,
    },
    Unread {
        when: When::Is("family", SHEETS),
        agrees: None,
        why: SHEET,
    },
    Unread {
        when: When::Over(TRANSMITTING, "transmission", 0.0),
        agrees: None,
        why: "is not rendered yet on {family} with transmission: a thin film is drawn on opaque surfaces",
    },
    Unread {
        when: When::Uncoated(ROUGH_DIFFUSE),
        agrees: None,
        why: EON,
    },
    Unread {
        when: When::Uncoated(EMISSIVE),
        agrees: None,
        why: BLACK,
    },
    Unread {
        when: When::Over(GLASS, "thickness", 0.0),
        agrees: None,
        why: "is not rendered yet on a thin-walled {family} (thickness > 0): a thin film is drawn on a solid body's smooth interface",
    },
    Unread {
        when: When::Over(GLASS, "dispersion", 0.0),
        agrees: None,
        why: "is not rendered yet on a dispersive {family} (dispersion > 0): a thin film is drawn on a solid body's smooth interface",
    },
    Unread {
        when: When::Over(GLASS, "roughness", SMOOTH_ROUGHNESS),
        agrees: None,
        why: "is not rendered yet on a rough {family} (roughness ≥ 0.0316): a thin film is drawn on a smooth interface",
    },
    Unread {
        when: When::Coated(FAMILIES),
        agrees: None,
        why: FILMED,
    },
    Unread {
        when: When::Over(TRANSLUCENT, "subsurface", 0.0),
        agrees: None,
        why: "is not rendered yet on {family} with subsurface: a thin film is drawn on opaque surfaces",
    },
];

/// Where subsurface scattering is not drawn: it is drawn on the uncoated `plain`, `wood` and
/// `bark` (`media::Subsurface`, docs/materials.md "Subsurface scattering").
const NO_SUBSURFACE: &str = "is not rendered yet on {family}: subsurface scattering is drawn on the uncoated families \"plain\", \"wood\" and \"bark\"";
/// When `subsurface` and `subsurface_tint` have no effect, or are not drawn.
const SUBSURFACE_CASES: [Unread; 9] = [
    Unread {
        when: When::Is("family", OCCLUDER),
        agrees: None,
        why: HOLDOUT,
    },
    Unread {
        when: When::Is("family", CONDUCTORS),
        agrees: None,
        why: "has no effect: {family} is a conductor and does not transmit",
    },
    Unread {
        when: When::Is("family", EMISSIVE),
        agrees: None,
        why: BLACK,
    },
    Unread {
        when: When::Is("family", SHEETS),
        agrees: None,
        why: NO_SUBSURFACE,
    },
    Unread {
        when: When::Is("family", GLASS),
        agrees: None,
        why: NO_SUBSURFACE,
    },
    Unread {
        when: When::Uncoated(ROUGH_DIFFUSE),
        agrees: None,
        why: NO_SUBSURFACE,
    },
    Unread {
        when: When::Coated(PLAIN_DRAWN),
        agrees: None,
        why: NO_SUBSURFACE,
    },
    Unread {
        when: When::At(TRANSLUCENT, "metalness", 1.0),
        agrees: None,
        why: "has no effect: {family} at metalness 1 is a conductor and does not transmit",
    },
    Unread {
        when: When::At(TRANSLUCENT, "subsurface", 0.0),
        agrees: None,
        why: "has no effect: subsurface is 0",
    },
];

/// `[materials.<name>]`.
pub static MATERIAL: TableSchema = entry(
    &[
        ID,
        k("family", Ty::Enum(FAMILIES)).ds("plain").m("the model the material is drawn with"),
        k("base", V3).dv(HALF3).u("linear RGB").m("the albedo, or a conductor's reflectance").clamp(within(0.0, 1.0)),
        k("roughness", NUM).d(0.5).m("the microfacet roughness; α = roughness²").clamp(within(0.0, 1.0))
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread { when: When::Is("family", SHEETS), agrees: None, why: SHEET },
                Unread { when: When::Is("family", EMISSIVE), agrees: None, why: BLACK },
            ]),
        k("metalness", NUM).d(0.0).m("the blend towards a conductor tinted by base")
            .clamp(within(0.0, 1.0))
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread { when: When::Is("family", SHEETS), agrees: None, why: SHEET },
                Unread { when: When::Over(ROUGH_DIFFUSE, "transmission", 0.0), agrees: None, why: NO_METAL },
                Unread { when: When::Uncoated(ROUGH_DIFFUSE), agrees: None, why: EON },
                Unread { when: When::Is("family", EMISSIVE), agrees: None, why: BLACK },
                Unread {
                    when: When::Is("family", CONDUCTORS),
                    agrees: Some(1.0),
                    why: "has no effect: {family} is a conductor at any metalness",
                },
                Unread {
                    when: When::Is("family", GLASS),
                    agrees: None,
                    why: DIELECTRIC,
                },
            ]),
        k("specular", NUM).d(0.04).m("the dielectric reflectance at normal incidence")
            .clamp(within(0.0, 1.0))
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread { when: When::Is("family", SHEETS), agrees: None, why: SHEET },
                // Transmitting, the interface's index is specular's.
                Unread { when: When::UncoatedAt(ROUGH_DIFFUSE, "transmission", 0.0), agrees: None, why: EON },
                Unread { when: When::Is("family", EMISSIVE), agrees: None, why: BLACK },
                Unread {
                    when: When::Is("family", CONDUCTORS),
                    agrees: None,
                    why: "has no effect: {family} is a conductor, its reflectance is base",
                },
                Unread {
                    when: When::Is("family", GLASS),
                    agrees: None,
                    why: DIELECTRIC,
                },
                Unread {
                    when: When::At(PLAIN_DRAWN, "metalness", 1.0),
                    agrees: None,
                    why: "has no effect: {family} at metalness 1 is a conductor, its reflectance is base",
                },
            ]),
        k("clearcoat", NUM).d(0.0).m("the clear coat's weight")
            .clamp(within(0.0, 1.0))
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread {
                    when: When::Is("family", LACQUER),
                    agrees: Some(1.0),
                    why: "has no effect: {family} is a clear coat at full weight",
                },
                Unread { when: When::Is("family", SHEETS), agrees: None, why: SHEET },
            ]),
        k("clearcoat_roughness", NUM).d(0.05).m("the clear coat's roughness")
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread { when: When::Is("family", SHEETS), agrees: None, why: SHEET },
                Unread {
                    when: When::Uncoated(FAMILIES),
                    agrees: None,
                    why: NO_COAT,
                },
            ]),
        k("sheen", NUM).d(0.0).m("the sheen's weight")
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread {
                    when: When::Is("family", NO_SHEEN),
                    agrees: None,
                    why: "is not rendered yet on {family}: a sheen is drawn on \"cloth\" and \"cord\", and as a layer over the uncoated, opaque \"plain\", \"wood\", \"bark\", \"plaster\", \"stone\", \"metal\" and \"chrome\"",
                },
                Unread { when: When::Coated(SHEEN_UNDER_COAT), agrees: None, why: SHEEN_COATED },
                Unread { when: When::Over(SHEENED_TRANSMITTING, "transmission", 0.0), agrees: None, why: SHEEN_TRANSMITS },
                Unread { when: When::Over(TRANSLUCENT, "subsurface", 0.0), agrees: None, why: SHEEN_TRANSMITS },
                Unread { when: When::Over(SHEENED_FILMED, "thin_film", 0.0), agrees: None, why: SHEEN_FILM },
            ]),
        k("transmission", NUM).d(0.0).m("the share of light transmitted")
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread {
                    when: When::Is("family", CONDUCTORS),
                    agrees: None,
                    why: "has no effect: {family} is a conductor and does not transmit",
                },
                Unread {
                    when: When::Is("family", GLASS),
                    agrees: Some(1.0),
                    why: "has no effect: {family} transmits at any transmission",
                },
                Unread { when: When::Is("family", EMISSIVE), agrees: None, why: BLACK },
                Unread { when: When::At(TRANSLUCENT, "metalness", 1.0), agrees: None, why: METAL_OPAQUE },
                Unread { when: When::CoatedAt(PLAIN_UNDER_COAT, "metalness", 1.0), agrees: None, why: METAL_OPAQUE },
                Unread {
                    when: When::Over(TRANSLUCENT, "subsurface", 0.0),
                    agrees: None,
                    why: "has no effect: {family} with subsurface > 0 is a scattering body, its surface's interface leads into the medium",
                },
            ]),
        k("ior", NUM).d(1.5).m("the index of refraction")
            .clamp(within(1.0, 4.0))
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread { when: When::Is("family", SHEETS), agrees: None, why: SHEET },
                Unread { when: When::Uncoated(EMISSIVE), agrees: None, why: BLACK },
                Unread {
                    when: When::Uncoated(CONDUCTORS),
                    agrees: None,
                    why: NO_COAT,
                },
                Unread {
                    when: When::Uncoated(PLAIN_DRAWN),
                    agrees: None,
                    why: "has no effect: {family}'s reflectance at normal incidence is specular, and it has no clear coat",
                },
            ]),
        k("dispersion", NUM).d(0.0).m("the spread of the index over wavelength: 20/V, V the Abbe number").clamp(within(0.0, 20.0))
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread {
                    when: When::Coated(GLASS),
                    agrees: None,
                    why: "is not rendered yet on {family} under a clear coat: dispersion is drawn on the uncoated bodies",
                },
                Unread {
                    when: When::Over(GLASS, "thickness", 0.0),
                    agrees: None,
                    why: "has no effect: a thin-walled {family} (thickness > 0) does not bend light",
                },
                Unread {
                    when: When::Is("family", COATABLE_TRANSMITTING),
                    agrees: None,
                    why: "is not rendered yet on {family}: dispersion is drawn on the bodies \"glass\" and \"liquid\"",
                },
                Unread {
                    when: When::Is("family", NO_MEDIUM),
                    agrees: None,
                    why: "has no effect: {family} refracts no light",
                },
            ]),
        k("thickness", NUM).d(0.0).u("scene units").m("a thin-walled transmitter's thickness").clamp(ge(0.0))
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread {
                    when: When::Coated(GLASS),
                    agrees: None,
                    why: "is not rendered yet on {family} under a clear coat: thin walls are drawn on the uncoated bodies",
                },
                Unread {
                    when: When::Coated(COATED_TRANSLUCENT),
                    agrees: None,
                    why: "is not rendered yet on {family} under a clear coat: thin walls are drawn on the bodies \"glass\" and \"liquid\"",
                },
                Unread {
                    when: When::At(TRANSLUCENT, "subsurface", 0.0),
                    agrees: None,
                    why: "is not rendered yet on {family}: thin walls are drawn on the bodies \"glass\" and \"liquid\" (with subsurface > 0 it is the mean free path)",
                },
                Unread {
                    when: When::At(TRANSLUCENT, "metalness", 1.0),
                    agrees: None,
                    why: "is not rendered yet on {family}: thin walls are drawn on the bodies \"glass\" and \"liquid\"",
                },
                Unread {
                    when: When::Is("family", ROUGH_DIFFUSE),
                    agrees: None,
                    why: "is not rendered yet on {family}: thin walls are drawn on the bodies \"glass\" and \"liquid\"",
                },
                Unread {
                    when: When::Is("family", NO_MEDIUM),
                    agrees: None,
                    why: "has no effect: {family} is not a dielectric body",
                },
            ]),
        k("subsurface", NUM).d(0.0).m("the share of light entering a scattering body (a random walk inside the mesh)")
            .clamp(within(0.0, 1.0))
            .unread(&SUBSURFACE_CASES),
        k("subsurface_tint", V3).dv(ONE3).u("linear RGB").m("the subsurface body's colour, times base: its multiple-scattering albedo")
            .clamp(within(0.0, 1.0))
            .unread(&SUBSURFACE_CASES),
        k("absorption", NUM).d(0.0).u("per scene unit").m("the absorption inside a transmitting body: base is reached after 1/absorption")
            .unread(&[
                Unread {
                    when: When::Is("family", NO_MEDIUM),
                    agrees: None,
                    why: "has no effect: {family} encloses no medium",
                },
                Unread {
                    when: When::Over(TRANSLUCENT, "subsurface", 0.0),
                    agrees: None,
                    why: "has no effect: {family} with subsurface > 0 absorbs by its medium's albedo (base · subsurface_tint)",
                },
                Unread {
                    when: When::At(COATABLE_TRANSMITTING, "transmission", 0.0),
                    agrees: None,
                    why: "has no effect: {family} encloses no medium at transmission 0",
                },
                Unread {
                    when: When::At(TRANSLUCENT, "metalness", 1.0),
                    agrees: None,
                    why: NO_MEDIUM_METAL,
                },
                Unread {
                    when: When::CoatedAt(PLAIN_UNDER_COAT, "metalness", 1.0),
                    agrees: None,
                    why: NO_MEDIUM_METAL,
                },
            ]),
        k("thin_film", NUM).d(0.0).u("nm").m("the thin film's thickness").clamp(within(0.0, 20000.0))
            .unread(&[
                FILM_CASES[0], FILM_CASES[1], FILM_CASES[2], FILM_CASES[3], FILM_CASES[4], FILM_CASES[5], FILM_CASES[6], FILM_CASES[7], FILM_CASES[8], FILM_CASES[9],
                Unread { when: When::At(FAMILIES, "thin_film_amount", 0.0), agrees: None, why: "has no effect: thin_film_amount is 0" },
            ]),
        k("thin_film_ior", NUM).d(1.5).m("the thin film's index of refraction").clamp(within(1.0, 4.0))
            .unread(&[
                FILM_CASES[0], FILM_CASES[1], FILM_CASES[2], FILM_CASES[3], FILM_CASES[4], FILM_CASES[5], FILM_CASES[6], FILM_CASES[7], FILM_CASES[8], FILM_CASES[9],
                Unread { when: When::At(FAMILIES, "thin_film", 0.0), agrees: None, why: "has no effect: thin_film (the film's thickness) is 0" },
                Unread { when: When::At(FAMILIES, "thin_film_amount", 0.0), agrees: None, why: "has no effect: thin_film_amount is 0" },
            ]),
        k("thin_film_amount", NUM).d(0.0).m("the thin film's weight").clamp(within(0.0, 1.0))
            .unread(&[
                FILM_CASES[0], FILM_CASES[1], FILM_CASES[2], FILM_CASES[3], FILM_CASES[4], FILM_CASES[5], FILM_CASES[6], FILM_CASES[7], FILM_CASES[8], FILM_CASES[9],
                Unread { when: When::At(FAMILIES, "thin_film", 0.0), agrees: None, why: "has no effect: thin_film (the film's thickness) is 0" },
            ]),
        k("emission", V3).dv(ZERO3).u("W·m⁻²·sr⁻¹, linear RGB").m("the radiance leaving the front face").clamp(ge(0.0)),
        k("fresnel_power", NUM).d(5.0).m("the Schlick exponent of the conductor's Fresnel")
            .unread(&[
                Unread { when: When::Is("family", OCCLUDER), agrees: None, why: HOLDOUT },
                Unread { when: When::Is("family", SHEETS), agrees: None, why: SHEET },
                Unread { when: When::Over(ROUGH_DIFFUSE, "transmission", 0.0), agrees: None, why: NO_METAL },
                Unread { when: When::Uncoated(ROUGH_DIFFUSE), agrees: None, why: EON },
                Unread { when: When::Is("family", EMISSIVE), agrees: None, why: BLACK },
                Unread {
                    when: When::Is("family", GLASS),
                    agrees: None,
                    why: DIELECTRIC,
                },
                Unread {
                    when: When::At(PLAIN_DRAWN, "metalness", 0.0),
                    agrees: None,
                    why: "has no effect: {family} reads it for its metal part only, and metalness is 0",
                },
            ]),
        k("normal", Ty::Table(&NORMAL)).said("{ source = \"flat\", strength = 0 }").m("where the shading normal comes from").uses(Use::NotYet),
        k("maps", Ty::Table(&MAPS)).said("{ layer = -1, tile = 1, normal = 1, albedo = 1 }").m("the texture maps' layer, tiling and strengths").uses(Use::NotYet),
        k(
            "content",
            Ty::Enum(&[
                "none", "ink", "decal", "screen", "photo", "scroll", "print", "field",
            ]),
        )
        .ds("none").m("the kind of content the material's content layer shows").uses(Use::NotYet),
        k("content_layer", Ty::Table(&CONTENT_LAYER)).m("how the content slot is composited").uses(Use::NotYet),
        k("layers", Ty::List(&NOISE_LAYER)).m("noise layers, at most four").uses(Use::NotYet),
        k("ageing", Ty::Table(&AGEING)).said("every key 0").m("fade, yellowing, scratches, dust and patina").uses(Use::NotYet),
        AUTHORING,
    ],
    Kind::Material,
    Some(Rule::Material),
);

/// `[materials.<name>.normal]`.
pub static NORMAL: TableSchema = t(&[
    k("source", Ty::Enum(&["flat", "bump", "map"]))
        .needed()
        .ds("flat")
        .m("flat, bump or map"),
    k("strength", NUM)
        .needed()
        .d(0.0)
        .m("the normal's strength"),
]);

/// `[materials.<name>.maps]`.
pub static MAPS: TableSchema = t(&[
    k("layer", NUM)
        .needed()
        .d(-1.0)
        .m("the texture layer; -1 is none"),
    k("tile", NUM).needed().d(1.0).m("the tiling"),
    k("normal", NUM)
        .needed()
        .d(1.0)
        .m("the normal map's strength"),
    k("albedo", NUM)
        .needed()
        .d(1.0)
        .m("the albedo map's strength"),
]);

/// `[materials.<name>.content_layer]`.
pub static CONTENT_LAYER: TableSchema = t(&[
    k("slot", Ty::Int).d(-1.0).m("the content slot; -1 is none"),
    k("blend", Ty::Enum(&["over", "multiply", "emit"]))
        .ds("over")
        .m("over, multiply or emit"),
    k("ink_roughness", NUM)
        .d(-1.0)
        .m("the ink's roughness; -1 keeps the surface's"),
    k("emboss", NUM).d(0.0).m("the emboss depth"),
    k("strength", NUM).d(1.0).m("the layer's strength"),
]);

/// `[materials.<name>.ageing]`.
pub static AGEING: TableSchema = t(&[
    k("fade", NUM).needed().m("fading"),
    k("yellow", NUM).needed().m("yellowing"),
    k("ink", NUM).needed().m("ink wear"),
    k("scratch", NUM).needed().m("scratches"),
    k("edge", NUM).needed().m("edge wear"),
    k("dust", NUM).needed().m("dust"),
    k("patina", NUM).needed().m("patina"),
    k("seed", Ty::UInt).needed().m("the pattern's seed"),
]);

/// The noise kinds.
pub const NOISE_KINDS: &[&str] = &[
    "none",
    "fibre",
    "crinkle",
    "plank_wood",
    "wall_mottle",
    "grime",
    "leaf",
    "bark",
    "flow",
    "value",
    "fbm",
    "scratch",
    "coat_wobble",
];

/// `[[materials.<name>.layers]]`.
pub static NOISE_LAYER: TableSchema = t(&[
    k("kind", Ty::Enum(NOISE_KINDS))
        .needed()
        .m("the noise kind"),
    k("frequency", NUM).needed().m("the pattern's frequency"),
    k("amplitude", NUM)
        .needed()
        .m("its amplitude; 0 does nothing"),
    k("seed", Ty::UInt).needed().m("its seed"),
    k("params", Ty::Vec(12))
        .said("twelve zeros")
        .m("twelve numbers whose meaning is the kind's"),
]);
