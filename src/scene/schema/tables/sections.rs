//! The tables one file of a scene holds: sun, sky, haze, camera, trace, plates and physics.

use super::*;

// ---------------------------------------------------------------------------------------------
// the one-file tables

/// `[sun]`.
pub static SUN: TableSchema = tr(
    &[
        k("model", Ty::Enum(&["daylight", "authored"])).needed().m("the daylight model, or a sun as authored"),
        k("hour", NUM)
            .r(within(0.0, 24.0))
            .needed_when("model", &["daylight"])
            .said("authored: reference_hour").u("hours").m("local apparent solar time"),
        k("day", NUM).r(within(1.0, 365.0)).d(172.0).u("day of the year").m("the day, 1 to 365")
            .unread(&[Unread {
                when: When::Is("model", &["authored"]),
                agrees: None,
                why: "has no effect on an authored sun: it turns and dims from reference_hour by hour, latitude and heading",
            }]),
        k("latitude", NUM).r(within(-90.0, 90.0)).d(45.0).u("degrees").m("north positive"),
        k("heading", NUM).r(within(0.0, 360.0)).d(180.0).u("degrees").m("the compass heading of the scene's −Z"),
        k("reference_hour", NUM).r(within(0.0, 24.0)).d(12.0).u("hours").m("an authored sun's hour of intensity 1")
            .unread(&[Unread {
                when: When::Is("model", &["daylight"]),
                agrees: None,
                why: "has no effect on a daylight sun: its light is the daylight model's at hour",
            }]),
        k("toward", V3)
            .needed_when("model", &["authored"])
            .only("model", &["authored"]).m("the direction towards the sun at reference_hour"),
        k("color", V3)
            .r(ge(0.0))
            .dv(ONE3)
            .only("model", &["authored"]).u("linear RGB").m("an authored sun's colour"),
        k("irradiance", NUM)
            .r(ge(0.0))
            .needed_when("model", &["authored"])
            .only("model", &["authored"]).u("W/m²").m("an authored sun's irradiance on a plane facing it"),
        k("radius", NUM).r(within(0.0, 10.0)).d(0.0).u("degrees").m("the sun's angular radius: a soft sun"),
    ],
    Rule::Sun,
);

const HDR_ROOM: &[&str] = &["hdr", "room"];
const ANALYTIC: &[&str] = &["analytic"];

/// The keys of a sky and of a sky layer, less `kind`, `layer` and `weight`.
const SKY_KEYS: &[Key] = &[
    k("path", Ty::Path(EXISTS))
        .needed_when("kind", &["hdr"])
        .only("kind", &["hdr"])
        .m("the Radiance .hdr file"),
    k("rotation_deg", NUM)
        .d(0.0)
        .only("kind", HDR_ROOM)
        .u("degrees")
        .m("turns the sky by its negative"),
    k("intensity", NUM)
        .r(ge(0.0))
        .d(1.0)
        .only("kind", HDR_ROOM)
        .m("scales the sky's radiance"),
    k("turbidity", NUM)
        .r(within(1.0, 10.0))
        .d(3.0)
        .only("kind", ANALYTIC)
        .m("atmospheric turbidity"),
    k("ground_albedo", V3)
        .r(ge(0.0))
        .dv(&[0.2, 0.2, 0.2])
        .only("kind", ANALYTIC)
        .u("linear RGB")
        .m("the ground's albedo under the analytic sky"),
    k("ambient", NUM)
        .r(ge(0.0))
        .d(1.0)
        .only("kind", ANALYTIC)
        .m("the analytic sky's level with an authored sun"),
    k("prepare", Ty::Table(&PREPARE))
        .only("kind", &["hdr"])
        .m("prepares the HDR before it turns"),
    k("room", Ty::Table(&ROOM))
        .needed_when("kind", &["room"])
        .only("kind", &["room"])
        .m("a room lit by lamps, rendered into the sky"),
];

/// `[sky]`.
pub static SKY: TableSchema = TableSchema {
    keys: &[
        k("kind", Ty::Enum(&["analytic", "hdr", "room", "mix"]))
            .needed()
            .m("analytic, hdr, room or a mix"),
        k("layer", Ty::List(&SKY_LAYER))
            .only("kind", &["mix"])
            .m("the layers of a mix"),
    ],
    more: SKY_KEYS,
    entry: None,
    rule: Some(Rule::Sky),
    bake: None,
};

/// `[[sky.layer]]`.
pub static SKY_LAYER: TableSchema = TableSchema {
    keys: &[
        k("kind", Ty::Enum(&["analytic", "hdr", "room"]))
            .needed()
            .m("analytic, hdr or room"),
        k("weight", NUM)
            .r(ge(0.0))
            .d(1.0)
            .m("the layer's share of the mix, not renormalised"),
    ],
    more: SKY_KEYS,
    entry: None,
    rule: None,
    bake: None,
};

/// `[sky.prepare]`.
pub static PREPARE: TableSchema = tr(
    &[
        k("cap", NUM)
            .r(gt(0.0))
            .u("W·m⁻²·sr⁻¹")
            .m("caps the luminance"),
        k("balance", V3)
            .r(gt(0.0))
            .u("linear RGB")
            .m("balances the mean colour to this"),
        k("mean", NUM)
            .r(gt(0.0))
            .u("W·m⁻²·sr⁻¹")
            .m("scales to this mean luminance"),
    ],
    Rule::Prepare,
);

/// `[sky.room]`.
pub static ROOM: TableSchema = t(&[
    k("width", Ty::Int)
        .r(within(2.0, 8192.0))
        .d(64.0)
        .u("texels")
        .m("the sky's width; its height is half"),
    k("floor", V3)
        .r(ge(0.0))
        .dv(HALF3)
        .u("W·m⁻²·sr⁻¹, linear RGB")
        .m("the floor's radiance"),
    k("wall", V3)
        .r(ge(0.0))
        .dv(HALF3)
        .u("W·m⁻²·sr⁻¹, linear RGB")
        .m("the walls' radiance"),
    k("ceiling", V3)
        .r(ge(0.0))
        .dv(HALF3)
        .u("W·m⁻²·sr⁻¹, linear RGB")
        .m("the ceiling's radiance"),
    k("lights", Ty::List(&ROOM_LIGHT)).m("the room's lamps"),
]);

/// `[[sky.room.lights]]`.
pub static ROOM_LIGHT: TableSchema = t(&[
    k("name", Ty::Str).ds("").m("a label").uses(Use::Ignored),
    k("az", NUM).d(0.0).u("degrees").m("the lamp's azimuth"),
    k("el", NUM).d(0.0).u("degrees").m("the lamp's elevation"),
    k("power", NUM)
        .r(ge(0.0))
        .d(1.0)
        .u("W/m²")
        .m("radiance over the lamp's solid angle, per unit of color"),
    k("color", V3)
        .r(ge(0.0))
        .dv(ONE3)
        .u("linear RGB")
        .m("the lamp's colour"),
    k("width", NUM)
        .r(open(0.0, 180.0))
        .d(45.0)
        .u("degrees")
        .m("the lamp's width in azimuth"),
    k("height", NUM)
        .r(open(0.0, 180.0))
        .d(45.0)
        .u("degrees")
        .m("the lamp's height in elevation"),
    k("soft", NUM)
        .r(ge(0.0))
        .d(0.1)
        .m("edge softness, a fraction of the width and height"),
    k("slats", NUM)
        .r(ge(0.0))
        .d(0.0)
        .m("blind slats across the lamp"),
    k("open", NUM).d(1.0).m("how open the slats are, 0 to 1"),
]);

/// `[haze]`.
pub static HAZE: TableSchema = tr(
    &[
        k("lo", V3)
            .needed()
            .u("scene units")
            .m("the haze's lower bounds"),
        k("hi", V3).needed().u("scene units").m("its upper bounds"),
        k("amount", NUM)
            .r(within(0.0, 1.0))
            .d(0.0)
            .m("sets the four densities below"),
        k("fog", NUM)
            .r(ge(0.0))
            .said("amount / 6")
            .u("per scene unit")
            .m("the fog density"),
        k("smoke", NUM)
            .r(ge(0.0))
            .said("amount · 20")
            .u("per scene unit")
            .m("the smoke density"),
        k("mist", NUM)
            .r(ge(0.0))
            .said("amount · 0.2")
            .u("per scene unit")
            .m("the mist density"),
        k("floor", NUM)
            .r(ge(0.0))
            .said("amount · 2")
            .u("per scene unit")
            .m("the floor haze density"),
        k("phase", NUM)
            .r(within(-0.9, 0.9))
            .d(0.3)
            .m("the phase function's asymmetry"),
        k("back", NUM)
            .r(ge(0.0))
            .d(0.5)
            .m("the back-scattering share"),
        k("reach", NUM)
            .r(ge(0.0))
            .d(3.0)
            .u("scene units")
            .m("how far the light reaches (the live renderer's; recorded in the manifest's haze)")
            .uses(Use::Recorded),
        k("gold", V3)
            .r(ge(0.0))
            .dv(ONE3)
            .u("linear RGB")
            .m("the haze's tint"),
        k("ambient", V3)
            .r(ge(0.0))
            .dv(&[0.03, 0.03, 0.03])
            .u("linear RGB")
            .m("the haze's ambient light"),
        k("unmapped", NUM)
            .r(ge(0.0))
            .d(0.0)
            .m("the haze that no light map reaches (the live renderer's; recorded in the manifest's haze)")
            .uses(Use::Recorded),
        k("seed", Ty::UInt).d(0.0).m("the noise seed"),
    ],
    Rule::Haze,
)
.uses(Use::Drawn);

const PERSP: &[&str] = &["perspective"];

/// `[camera]`.
pub static CAMERA: TableSchema = tr(
    &[
        k("projection", Ty::Enum(&["perspective", "orthographic"]))
            .ds("perspective")
            .m("perspective or orthographic"),
        k("at", V3)
            .dv(&[0.0, 0.0, 5.0])
            .u("scene units")
            .m("the eye"),
        k("look_at", V3)
            .dv(ZERO3)
            .u("scene units")
            .m("the point it looks at"),
        k("up", V3).dv(&[0.0, 1.0, 0.0]).m("the up direction"),
        k("fov", NUM)
            .r(open(0.0, 180.0))
            .d(40.0)
            .only("projection", PERSP)
            .u("degrees")
            .m("the vertical field of view"),
        k("focal", NUM)
            .r(gt(0.0))
            .only("projection", PERSP)
            .u("mm")
            .m("the focal length, instead of fov"),
        k("sensor", NUM)
            .r(gt(0.0))
            .d(24.0)
            .only("projection", PERSP)
            .u("mm")
            .m("the sensor height, with focal"),
        k("height", NUM)
            .r(gt(0.0))
            .needed_when("projection", &["orthographic"])
            .only("projection", &["orthographic"])
            .u("scene units")
            .m("an orthographic view's height"),
        k("near", NUM)
            .r(gt(0.0))
            .d(0.05)
            .u("scene units")
            .m("the near clip distance"),
        k("far", NUM)
            .d(100.0)
            .u("scene units")
            .m("the far clip distance"),
        k("shift", V2)
            .dv(&[0.0, 0.0])
            .u("halves of the view")
            .m("lens shift, right and up"),
        k("fstop", NUM)
            .r(gt(0.0))
            .only("projection", PERSP)
            .m("depth of field at this f-number"),
        k("focus", NUM)
            .said("the distance from at to look_at")
            .only("projection", PERSP)
            .u("scene units")
            .m("the focus distance"),
        k("preset", Ty::Table(&PRESET)).m("the camera director's tuning"),
    ],
    Rule::Camera,
);

/// `[camera.preset]`.
pub static PRESET: TableSchema = t(&[
    k("gain", NUM).d(1.0).m("a factor on the director's moves"),
    k("orbit", Ty::Table(&PRESET_ORBIT)).m("the orbit's tuning"),
    k("look", Ty::Table(&PRESET_LOOK)).m("the look's tuning"),
    k("zoom", Ty::Table(&PRESET_ZOOM)).m("the zoom's tuning"),
    k("wander", Ty::Table(&PRESET_WANDER)).m("the wander's tuning"),
    k("nudge", Ty::Table(&PRESET_NUDGE)).m("the nudge's tuning"),
    k("hush", Ty::Table(&PRESET_HUSH)).m("the hush, off unless given"),
    k("depth", Ty::Table(&PRESET_DEPTH)).m("the depth of field's tuning, off unless given"),
])
.uses(Use::NotYet);

/// `[camera.preset.orbit]`.
pub static PRESET_ORBIT: TableSchema = t(&[
    k("stiffness", NUM).d(4.0).m("how fast it follows"),
    k("yaw", NUM).d(0.5).u("degrees").m("its yaw"),
    k("pitch", NUM).d(0.25).u("degrees").m("its pitch"),
    k("hold", NUM).d(2.0).u("seconds").m("how long it holds"),
]);
/// `[camera.preset.look]`.
pub static PRESET_LOOK: TableSchema = t(&[
    k("stiffness", NUM).d(3.0).m("how fast it follows"),
    k("lean", NUM).d(0.2).m("its lean"),
    k("yaw", NUM).d(0.6).u("degrees").m("its yaw"),
    k("pitch", NUM).d(0.4).u("degrees").m("its pitch"),
    k("sign", NUM).d(1.0).m("its direction"),
]);
/// `[camera.preset.zoom]`.
pub static PRESET_ZOOM: TableSchema = t(&[
    k("stiffness", NUM).d(3.0).m("how fast it follows"),
    k("hold", NUM).d(2.0).u("seconds").m("how long it holds"),
    k("max", NUM).d(2.0).m("the largest zoom"),
    k("rate", NUM).d(1.1).m("the zoom's rate"),
]);
/// `[camera.preset.wander]`.
pub static PRESET_WANDER: TableSchema = t(&[
    k("idle", NUM)
        .d(8.0)
        .u("seconds")
        .m("idle time before it wanders"),
    k("every", NUM)
        .d(12.0)
        .u("seconds")
        .m("how often it wanders"),
    k("hold", NUM).d(3.0).u("seconds").m("how long it holds"),
]);
/// `[camera.preset.nudge]`.
pub static PRESET_NUDGE: TableSchema = t(&[
    k("stiffness", NUM).d(30.0).m("how fast it follows"),
    k("pitch", NUM).d(0.1).u("degrees").m("its pitch"),
    k("hold", NUM).d(0.2).u("seconds").m("how long it holds"),
    k("floor", NUM).d(0.0).m("its floor"),
]);
/// `[camera.preset.hush]`: off unless given, then all three keys.
pub static PRESET_HUSH: TableSchema = t(&[
    k("floor", NUM).needed().m("its floor"),
    k("stiffness", NUM).needed().m("how fast it follows"),
    k("blocks_cursor", Ty::Bool)
        .needed()
        .m("whether it blocks the cursor"),
]);
/// `[camera.preset.depth]`: off unless given, then all three keys.
pub static PRESET_DEPTH: TableSchema = t(&[
    k("focus", NUM)
        .needed()
        .u("scene units")
        .m("the focus distance"),
    k("blur", NUM).needed().m("the blur"),
    k("floor", NUM).needed().m("its floor"),
]);

// ---------------------------------------------------------------------------------------------
// trace, plates, physics

/// `[trace]`.
pub static TRACE: TableSchema = t(&[
    k("transmissive_shadows", Ty::Bool)
        .db(false)
        .m("shadow rays pass glass and liquid, tinted"),
    k("clamp_indirect", NUM)
        .r(within(0.0, 10000.0))
        .d(0.0)
        .u("luminance")
        .m("the cap on each light contribution after the first bounce; 0 is off"),
    k("filter_glossy", NUM)
        .r(within(0.0, 1.0))
        .d(0.0)
        .m("the least roughness after a diffuse bounce; 0 is off"),
]);

/// `[plates]`.
pub static PLATES: TableSchema = tr(
    &[
        k(
            "dir",
            Ty::Path(PathRule {
                exists: false,
                suffix: None,
            }),
        )
        .needed()
        .m("the plate folder a bake writes"),
        k("proxies", Ty::Path(path_to(".proxies.toml")))
            .m("the static objects' invisible stand-ins")
            .uses(Use::Recorded),
        k("casters", Ty::Enum(&["meshes", "proxies", "none"]))
            .ds("meshes")
            .m("what casts shadows on the dynamic objects in the static objects' place")
            .uses(Use::Recorded),
    ],
    Rule::Plates,
);

/// `[physics]`.
pub static PHYSICS: TableSchema = t(&[
    k("gravity", V3)
        .dv(&[0.0, -9.81, 0.0])
        .u("scene units per second²")
        .m("gravity"),
    k("rate", NUM)
        .r(within(1.0, 1000.0))
        .d(60.0)
        .u("ticks per second")
        .m("the play clock's and the rigid world's rate"),
    k("substeps", Ty::Int)
        .r(within(1.0, 16.0))
        .d(1.0)
        .m("solver steps per step"),
    k("iterations", Ty::Int)
        .r(within(1.0, 64.0))
        .d(4.0)
        .m("solver iterations per substep"),
])
.uses(Use::Ignored);
