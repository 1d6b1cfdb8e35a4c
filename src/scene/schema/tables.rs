//! The statics: one [`TableSchema`] per table of the spec, in the spec's order.

use super::*;

const NUM: Ty = Ty::Num;
const V3: Ty = Ty::Vec(3);
const V2: Ty = Ty::Vec(2);
const EXISTS: PathRule = PathRule {
    exists: true,
    suffix: None,
};
const fn path_to(suffix: &'static str) -> PathRule {
    PathRule {
        exists: true,
        suffix: Some(suffix),
    }
}
const ZERO3: &[f64] = &[0.0, 0.0, 0.0];
const ONE3: &[f64] = &[1.0, 1.0, 1.0];
const HALF3: &[f64] = &[0.5, 0.5, 0.5];
const SHAPES: &[&str] = &["box", "sphere", "capsule", "cylinder"];
const LOOPS: &[&str] = &["loop", "once", "ping-pong"];
const SHADOWS: &[&str] = &["cast", "only", "none"];
const ID: Key = k("id", Ty::Id)
    .m("the entry's id: 10 Crockford base32 characters")
    .uses(Use::Recorded);
const AUTHORING: Key = k("authoring", Ty::Any)
    .m("the authoring tool's own data, kept byte for byte")
    .uses(Use::Ignored);
const FORMAT: Key = k("format", Ty::Int).d(0.0).m("the format version, 1");

// ---------------------------------------------------------------------------------------------
// project.toml

/// `project.toml`'s top level.
pub static PROJECT_FILE: TableSchema = t(&[
    FORMAT,
    k("project", Ty::Table(&PROJECT))
        .needed()
        .m("the project's name, first scene and skipped folders"),
    k("tunables", Ty::Tables(&TUNABLE)).m("the game's tunables"),
    k("layers", Ty::Map(&Ty::Layers)).m("the collision layers and which of them meet"),
    AUTHORING,
])
.uses(Use::Ignored);

/// `[project]`.
pub static PROJECT: TableSchema = t(&[
    k("name", Ty::Str).needed().m("the project's name"),
    k("scene", Ty::Path(path_to(".scene.toml"))).m("the scene an editor opens first"),
    k(
        "ignore",
        Ty::Paths(PathRule {
            exists: false,
            suffix: None,
        }),
    )
    .m("folders (or files) Project::open skips"),
]);

/// `[tunables.<name>]`.
pub static TUNABLE: TableSchema = tr(
    &[
        k("type", Ty::Enum(&["float", "int", "bool", "vector"]))
            .needed()
            .m("the tunable's type"),
        k("default", Ty::Any)
            .needed()
            .m("the value the game starts with"),
        k("min", Ty::Any).m("the least value"),
        k("max", Ty::Any).m("the greatest value"),
        k("group", Ty::Name).m("the heading an inspector lists it under"),
    ],
    Rule::Tunable,
);

// ---------------------------------------------------------------------------------------------
// scenes and prefabs

/// A `*.scene.toml`'s top level.
pub static SCENE: TableSchema = t(&[
    FORMAT,
    k("include", Ty::Paths(path_to(".scene.toml")))
        .m("scene files merged in, before this file's entries"),
    k("materials", Ty::Paths(EXISTS)).m("material libraries"),
    k("fallback", Ty::Ref(Kind::Material)).m("the material for a glTF material no library names"),
    k("mesh", Ty::Tables(&MESH)).m("meshes from glTF"),
    k("object", Ty::List(&OBJECT)).m("objects and prefab placements"),
    k("light", Ty::List(&LIGHT)).m("local lights"),
    k("emitter", Ty::List(&EMITTER)).m("glowing spheres"),
    k("mover", Ty::List(&MOVER))
        .m("preview motions")
        .uses(Use::Recorded),
    k("content", Ty::Tables(&CONTENT)).m("images shown in a material's content layer"),
    k("text", Ty::Tables(&TEXT)).m("text blocks"),
    k("sound", Ty::Tables(&SOUND)).m("sounds"),
    k("rig", Ty::List(&RIG)).m("camera rigs a game drives"),
    k("tiles", Ty::List(&TILES)).m("tile layers: grids of prefab placements"),
    k("sun", Ty::Table(&SUN)).m("the sun"),
    k("sky", Ty::Table(&SKY)).m("the sky"),
    k("haze", Ty::Table(&HAZE)).m("a room haze"),
    k("camera", Ty::Table(&CAMERA)).m("the camera"),
    k("finish", Ty::Table(&FINISH)).m("the image's post passes"),
    k("trace", Ty::Table(&TRACE)).m("settings only a path tracer reads"),
    k("plates", Ty::Table(&PLATES)).m("the baked plates of the static part"),
    k("physics", Ty::Table(&PHYSICS)).m("play mode's rigid world"),
    AUTHORING,
]);

/// A `*.prefab.toml`'s top level.
pub static PREFAB: TableSchema = t(&[
    FORMAT,
    k("include", Ty::Paths(path_to(".prefab.toml"))).m("prefab files merged in"),
    k("materials", Ty::Paths(EXISTS)).m("the prefab's material libraries"),
    k("mesh", Ty::Tables(&MESH)).m("meshes from glTF"),
    k("object", Ty::List(&OBJECT)).m("objects and prefab placements"),
    k("light", Ty::List(&LIGHT)).m("local lights"),
    k("emitter", Ty::List(&EMITTER)).m("glowing spheres"),
    k("mover", Ty::List(&MOVER))
        .m("preview motions")
        .uses(Use::Recorded),
    k("content", Ty::Tables(&CONTENT)).m("images shown in a material's content layer"),
    k("text", Ty::Tables(&TEXT)).m("text blocks"),
    k("sound", Ty::Tables(&SOUND)).m("sounds"),
    k("rig", Ty::List(&RIG)).m("camera rigs a game drives"),
    AUTHORING,
]);

/// `[mesh.<name>]`.
pub static MESH: TableSchema = entry(
    &[
        ID,
        k("file", Ty::Path(EXISTS))
            .needed()
            .m("the .gltf or .glb file"),
        k("node", Ty::Str).m("the node whose subtree this mesh is"),
        k("nodes", Ty::Tables(&NODE)).m("overrides of one glTF node each"),
        AUTHORING,
    ],
    Kind::Mesh,
    None,
);

/// `[mesh.<name>.nodes."<node>"]`.
pub static NODE: TableSchema = t(&[
    k("material", Ty::Ref(Kind::Material))
        .said("the glTF material's")
        .m("the node's material, over the glTF material's"),
    k("hidden", Ty::Bool).db(false).m("the node is not drawn"),
    k("shadow", Ty::Enum(SHADOWS))
        .said("the object's")
        .m("how the node takes part in shadows"),
    k("two_sided", Ty::Bool)
        .said("the object's")
        .m("the node is drawn from both sides"),
]);

/// The keys a prefab placement takes.
pub const PLACEMENT_KEYS: &[&str] = &[
    "id",
    "name",
    "prefab",
    "set",
    "at",
    "rotate",
    "scale",
    "parent",
    "hidden",
    "dynamic",
    "authoring",
];

/// `[[object]]`.
pub static OBJECT: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name)
            .needed()
            .m("the object's name, its key")
            .uses(Use::Recorded),
        k("mesh", Ty::Ref(Kind::Mesh)).m("the mesh it draws"),
        k("prefab", Ty::Prefab).m("the prefab it places"),
        k("set", Ty::Map(&Ty::Any)).m("a placement's overrides"),
        k("at", V3).dv(ZERO3).u("scene units").m("translation"),
        k("rotate", V3)
            .dv(ZERO3)
            .u("degrees")
            .m("rotation about X, then Y, then Z"),
        k("scale", Ty::OneOf(&[Ty::Num, Ty::Vec(3)]))
            .d(1.0)
            .m("per-axis scale, or one for all three"),
        k("parent", Ty::Ref(Kind::Object)).m("the object or placement whose frame this one is in"),
        k("material", Ty::Ref(Kind::Material)).m("the material of every part"),
        k("materials", Ty::Map(&Ty::Ref(Kind::Material))).m("per-node materials, over material"),
        k("shadow", Ty::Enum(SHADOWS))
            .ds("cast")
            .m("\"only\" casts and is not drawn; \"none\" is drawn and casts none"),
        k("two_sided", Ty::Bool)
            .db(false)
            .m("drawn from both sides"),
        k("hidden", Ty::Bool).db(false).m("not drawn"),
        k("clip", Ty::VecList(4))
            .u("scene units")
            .m("planes [nx, ny, nz, d] that cut where n·p > d"),
        k("content", Ty::Ref(Kind::Content))
            .m("the image shown in its material's content layer")
            .uses(Use::NotYet),
        k("pick", Ty::UInt)
            .said("its 1-based place among the objects")
            .m("the pick id")
            .uses(Use::Recorded),
        k("alpha_cutoff", NUM)
            .r(within(0.0, 1.0))
            .d(0.5)
            .m("cut-out texels below this alpha are dropped"),
        k("face_camera", Ty::Bool)
            .db(false)
            .m("a card that turns to face the camera: it makes the object dynamic")
            .uses(Use::Recorded),
        k("dynamic", Ty::Bool)
            .said("derived")
            .m("whether the object moves at run time: a plate leaves a dynamic object out")
            .uses(Use::Recorded),
        k("body", Ty::Table(&BODY)).m("its rigid body in play mode"),
        k("character", Ty::Table(&CHARACTER)).m("a character controller in play mode"),
        k("trigger", Ty::Table(&TRIGGER)).m("a volume that senses what enters it"),
        k("animation", Ty::Table(&ANIMATION))
            .m("the clips or sprite played on it: it makes the object dynamic"),
        AUTHORING,
    ],
    Kind::Object,
    Some(Rule::Object),
);

/// `[object.body]`.
pub static BODY: TableSchema = t(&[
    k("kind", Ty::Enum(&["dynamic", "kinematic", "fixed"]))
        .ds("dynamic")
        .m("simulated, moved by a game, or fixed"),
    k("shape", Ty::Enum(SHAPES))
        .ds("box")
        .m("the collision shape, upright along local Y"),
    k("half", V3)
        .r(gt(0.0))
        .said("half the mesh bounds")
        .only("shape", &["box"])
        .u("scene units")
        .m("a box's half sizes"),
    k("radius", NUM)
        .r(gt(0.0))
        .said("from the mesh bounds")
        .only("shape", &["sphere", "capsule", "cylinder"])
        .u("scene units")
        .m("a sphere's, capsule's or cylinder's radius"),
    k("half_height", NUM)
        .r(gt(0.0))
        .said("from the mesh bounds")
        .only("shape", &["capsule", "cylinder"])
        .u("scene units")
        .m("a capsule's or cylinder's half height"),
    k("offset", V3)
        .said("the centre of the mesh bounds")
        .u("scene units")
        .m("the shape's centre in the object's frame"),
    k("density", NUM)
        .r(gt(0.0))
        .d(1.0)
        .m("mass per unit volume"),
    k("friction", NUM)
        .r(ge(0.0))
        .d(0.5)
        .m("the friction coefficient"),
    k("restitution", NUM)
        .r(within(0.0, 1.0))
        .d(0.0)
        .m("bounciness, 0 to 1"),
    k("velocity", V3)
        .dv(ZERO3)
        .u("scene units per second")
        .m("the velocity at play"),
    k("spin", V3)
        .dv(ZERO3)
        .u("degrees per second")
        .m("the angular velocity at play"),
    k("gravity_scale", NUM).d(1.0).m("a factor on gravity"),
    k("damping", V2)
        .r(ge(0.0))
        .dv(&[0.0, 0.0])
        .m("linear and angular damping"),
    k("ccd", Ty::Bool)
        .db(false)
        .m("continuous collision detection"),
    k("layer", Ty::Layer).m("its collision layer"),
])
.uses(Use::Ignored);

/// `[object.character]`.
pub static CHARACTER: TableSchema = tr(
    &[
        k("kind", Ty::Enum(&["3d", "2d"]))
            .ds("3d")
            .m("a 3d character, or a 2d one held in a plane"),
        k("radius", NUM)
            .r(gt(0.0))
            .said("from the mesh bounds")
            .u("scene units")
            .m("the capsule's radius"),
        k("height", NUM)
            .r(gt(0.0))
            .said("from the mesh bounds")
            .u("scene units")
            .m("the capsule's whole height"),
        k("max_climb", NUM)
            .r(half_open(0.0, 90.0))
            .d(45.0)
            .u("degrees")
            .m("the steepest slope it walks up"),
        k("max_step", NUM)
            .r(ge(0.0))
            .d(0.3)
            .u("scene units")
            .m("the highest step it walks onto"),
        k("snap", NUM)
            .r(ge(0.0))
            .d(0.2)
            .u("scene units")
            .m("how far the ground may drop and it still keeps to it"),
        k("coyote", Ty::Int)
            .r(within(0.0, 1000.0))
            .d(6.0)
            .u("ticks")
            .m("ticks after leaving the ground in which a jump still takes off"),
        k("jump_buffer", Ty::Int)
            .r(within(0.0, 1000.0))
            .d(6.0)
            .u("ticks")
            .m("ticks before landing in which an early jump is kept"),
        k("jump_speed", NUM)
            .r(ge(0.0))
            .d(5.0)
            .u("scene units per second")
            .m("its upward speed at take-off"),
        k("layer", Ty::Layer).m("its collision layer"),
        k("plane", Ty::Enum(&["xy", "yz"]))
            .ds("xy")
            .only("kind", &["2d"])
            .m("2d: the plane it moves in"),
        k("variable_jump", NUM)
            .r(within(0.0, 1.0))
            .d(0.0)
            .only("kind", &["2d"])
            .m("2d: the share of upward speed lost when the jump is let go"),
        k("wall_slide", NUM)
            .r(ge(0.0))
            .only("kind", &["2d"])
            .u("scene units per second")
            .m("2d: the fastest it slides down a wall"),
        k("wall_jump", V2)
            .r(ge(0.0))
            .only("kind", &["2d"])
            .u("scene units per second")
            .m("2d: the speeds of a jump off a wall, away and up"),
    ],
    Rule::Character,
)
.uses(Use::Ignored);

/// `[object.trigger]`.
pub static TRIGGER: TableSchema = t(&[
    k("shape", Ty::Enum(SHAPES))
        .ds("box")
        .m("the volume's shape, upright along local Y"),
    k("half", V3)
        .r(gt(0.0))
        .said("half the mesh bounds")
        .only("shape", &["box"])
        .u("scene units")
        .m("a box's half sizes"),
    k("radius", NUM)
        .r(gt(0.0))
        .said("from the mesh bounds")
        .only("shape", &["sphere", "capsule", "cylinder"])
        .u("scene units")
        .m("a sphere's, capsule's or cylinder's radius"),
    k("half_height", NUM)
        .r(gt(0.0))
        .said("from the mesh bounds")
        .only("shape", &["capsule", "cylinder"])
        .u("scene units")
        .m("a capsule's or cylinder's half height"),
    k("offset", V3)
        .said("the centre of the mesh bounds")
        .u("scene units")
        .m("the shape's centre in the object's frame"),
    k("layer", Ty::Layer).m("its own layer"),
    k("mask", Ty::Layers)
        .said("the layers its layer lists")
        .m("the layers whose objects it senses"),
])
.uses(Use::Ignored);

/// `[object.animation]`.
pub static ANIMATION: TableSchema = tr(
    &[
        k("clip", Ty::Name).m("the clip it plays from the start"),
        k("speed", NUM)
            .r(ge(0.0))
            .d(1.0)
            .m("a factor on the clip's rate"),
        k("loop", Ty::Enum(LOOPS))
            .ds("loop")
            .m("what happens at the clip's end"),
        k("start", NUM)
            .r(ge(0.0))
            .d(0.0)
            .u("seconds")
            .m("where play starts in the clip"),
        k("blend", Ty::List(&BLEND)).m("glTF clips played together, weighted"),
        k("events", Ty::List(&EVENT)).m("marks a game is told of as play passes them"),
        k("atlas", Ty::Path(EXISTS)).m("a sprite's PNG atlas"),
        k("grid", Ty::IntVec(2))
            .r(ge(1.0))
            .m("the atlas cut into equal cells: columns, rows"),
        k("frames", Ty::IntVecList(4))
            .u("pixels")
            .m("the frames' rectangles [x, y, width, height]"),
        k("fps", NUM)
            .r(gt(0.0))
            .d(12.0)
            .u("frames per second")
            .m("a sprite's rate, for a clip that sets none"),
        k("clips", Ty::Tables(&CLIP)).m("a sprite's named clips"),
    ],
    Rule::Animation,
)
.uses(Use::Recorded);

/// An entry of `[object.animation] blend`.
pub static BLEND: TableSchema = t(&[
    k("clip", Ty::Name).needed().m("a glTF clip"),
    k("weight", NUM)
        .r(ge(0.0))
        .d(1.0)
        .m("its share of the blend"),
]);

/// An entry of `[object.animation] events`.
pub static EVENT: TableSchema = tr(
    &[
        k("name", Ty::Name).needed().m("what the game is told"),
        k("clip", Ty::Name)
            .said("the animation's clip")
            .m("the clip it marks"),
        k("time", NUM).r(ge(0.0)).u("seconds").m("into the clip"),
        k("frame", Ty::Int)
            .r(ge(0.0))
            .u("frames")
            .m("a sprite's frame of the clip"),
    ],
    Rule::Event,
);

/// `[object.animation.clips.<name>]`.
pub static CLIP: TableSchema = tr(
    &[
        k("from", Ty::Int).r(ge(0.0)).needed().m("its first frame"),
        k("to", Ty::Int).needed().m("its last frame, included"),
        k("fps", NUM)
            .r(gt(0.0))
            .said("the animation's fps")
            .u("frames per second")
            .m("its rate"),
        k("loop", Ty::Enum(LOOPS))
            .said("the animation's loop")
            .m("what happens at its end"),
    ],
    Rule::Clip,
);

/// `[[light]]`.
pub static LIGHT: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name)
            .needed()
            .m("the light's name")
            .uses(Use::Recorded),
        k("position", V3).needed().u("scene units").m("where it is"),
        k("color", V3)
            .r(ge(0.0))
            .dv(ONE3)
            .u("linear RGB")
            .m("multiplies intensity"),
        k("intensity", NUM)
            .r(ge(0.0))
            .needed()
            .u("W/sr")
            .m("radiant intensity per channel"),
        k("radius", NUM)
            .r(ge(0.0))
            .d(0.0)
            .u("scene units")
            .m("a sphere light's radius; 0 is a point"),
        k("range", NUM)
            .r(gt(0.0))
            .d(10.0)
            .u("scene units")
            .m("the live renderer's range; a bake does not attenuate by it")
            .uses(Use::Recorded),
        k("shadow", Ty::Bool).db(true).m("whether it casts shadows"),
        AUTHORING,
    ],
    Kind::Light,
    None,
);

/// `[[emitter]]`.
pub static EMITTER: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name)
            .needed()
            .m("the emitter's name")
            .uses(Use::Recorded),
        k("position", V3).needed().u("scene units").m("its centre"),
        k("radius", NUM)
            .r(gt(0.0))
            .needed()
            .u("scene units")
            .m("its radius"),
        k("color", V3)
            .r(ge(0.0))
            .dv(ONE3)
            .u("linear RGB")
            .m("multiplies intensity"),
        k("intensity", NUM)
            .r(ge(0.0))
            .needed()
            .u("W/sr")
            .m("it radiates intensity / (π radius²) per channel"),
        AUTHORING,
    ],
    Kind::Emitter,
    None,
);

/// `[[mover]]`.
pub static MOVER: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed().m("the mover's name"),
        k("objects", Ty::Refs(Kind::Object))
            .needed()
            .m("what it moves, with their children"),
        k("kind", Ty::Enum(&["turn", "slide"]))
            .needed()
            .m("turn about axis, or slide along it"),
        k("pivot", V3)
            .dv(ZERO3)
            .only("kind", &["turn"])
            .u("scene units")
            .m("a turn's pivot"),
        k("axis", V3)
            .needed()
            .m("the axis it turns about or slides along"),
        k("travel", V2)
            .needed()
            .u("degrees or scene units")
            .m("from, to"),
        k("period", NUM)
            .r(gt(0.0))
            .d(4.0)
            .u("seconds")
            .m("the length of a cycle"),
        k("motion", Ty::Enum(&["swing", "loop", "once"]))
            .ds("swing")
            .m("swing, loop or once"),
        k("offset", NUM).d(0.0).u("seconds").m("added to the time"),
        k("clip", Ty::VecList(4))
            .u("scene units")
            .m("world planes that cut what it moves"),
        AUTHORING,
    ],
    Kind::Mover,
    Some(Rule::Mover),
)
.uses(Use::Recorded);

/// `[content.<name>]`.
pub static CONTENT: TableSchema = entry(
    &[
        ID,
        k("image", Ty::Path(EXISTS)).needed().m("the PNG shown"),
        AUTHORING,
    ],
    Kind::Content,
    None,
)
.uses(Use::NotYet);

/// `[text.<name>]`.
pub static TEXT: TableSchema = entry(
    &[
        ID,
        k("text", Ty::Str).needed().m("the words"),
        k("font", Ty::Path(EXISTS)).needed().m("the .ttf or .otf"),
        k("size", NUM)
            .r(gt(0.0))
            .needed()
            .u("scene units per em")
            .m("the text's size"),
        k("color", Ty::Vec(4))
            .r(ge(0.0))
            .dv(&[1.0, 1.0, 1.0, 1.0])
            .u("linear RGB and alpha")
            .m("its colour"),
        k("at", V3)
            .dv(ZERO3)
            .u("scene units")
            .m("the block's centre"),
        k("rotate", V3).dv(ZERO3).u("degrees").m("as an object's"),
        k("lit", Ty::Bool)
            .db(false)
            .m("shaded by the scene, or glowing its colour"),
        k("dynamic", Ty::Bool)
            .db(false)
            .m("drawn live over a plate, or baked into it"),
        AUTHORING,
    ],
    Kind::Text,
    None,
)
.uses(Use::NotYet);

/// `[sound.<name>]`.
pub static SOUND: TableSchema = entry(
    &[
        ID,
        k("file", Ty::Path(EXISTS))
            .needed()
            .m("the WAV or Ogg Vorbis file"),
        k("volume", NUM)
            .r(ge(0.0))
            .d(1.0)
            .m("a factor on its level"),
        k("pan", NUM)
            .r(within(-1.0, 1.0))
            .d(0.0)
            .m("left (−1) to right (1)"),
        k("loop", Ty::Bool).db(false).m("loops as the music track"),
        k("play", Ty::Enum(&["start", "hit", "game"]))
            .ds("start")
            .m("when play starts"),
        k("object", Ty::Ref(Kind::Object))
            .needed_when("play", &["hit"])
            .only("play", &["hit"])
            .m("the object whose body's contacts play it"),
        AUTHORING,
    ],
    Kind::Sound,
    None,
)
.uses(Use::Ignored);

const FOLLOW: &[&str] = &["follow"];
const LOOKERS: &[&str] = &["first-person", "third-person"];

/// `[[rig]]`.
pub static RIG: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed().m("the rig's name"),
        k(
            "kind",
            Ty::Enum(&["follow", "first-person", "third-person"]),
        )
        .needed().m("follow, first-person or third-person"),
        k("target", Ty::Ref(Kind::Object)).m("the object it follows or looks from"),
        k("offset", V3).said("follow: [camera] at less the target's position; else [0, 0, 0]").u("scene units").m("the camera's place from the followed point, or the eye or orbit point from the target"),
        k("dead_zone", V2)
            .r(ge(0.0))
            .dv(&[0.0, 0.0])
            .only("kind", FOLLOW).u("scene units").m("how far the target moves before the camera follows"),
        k("look_ahead", NUM).r(ge(0.0)).d(0.0).only("kind", FOLLOW).u("scene units").m("how far ahead the followed point leads"),
        k("damping", V3).r(ge(0.0)).dv(ZERO3).only("kind", FOLLOW).u("seconds").m("per axis, how fast the camera closes its gap"),
        k("bounds", Ty::Table(&BOUNDS)).only("kind", FOLLOW).u("scene units").m("the box the camera never leaves"),
        k("orthographic", NUM).r(gt(0.0)).only("kind", FOLLOW).u("scene units").m("the orthographic view's height"),
        k("snap", NUM).r(gt(0.0)).only("kind", FOLLOW).u("art pixels per scene unit").m("the camera moves by whole art pixels"),
        k("sensitivity", NUM)
            .r(gt(0.0))
            .d(1.0)
            .only("kind", LOOKERS).m("a factor on the look input"),
        k("invert", Ty::Bool).db(false).only("kind", LOOKERS).m("looking up and down is turned over"),
        k("smoothing", NUM).r(ge(0.0)).d(0.0).only("kind", LOOKERS).u("seconds").m("how fast the look closes its gap"),
        k("pitch", V2)
            .r(within(-90.0, 90.0))
            .dv(&[-85.0, 85.0])
            .only("kind", LOOKERS).u("degrees").m("how far the look turns down and up"),
        k("head_bob", NUM)
            .r(ge(0.0))
            .d(0.0)
            .only("kind", &["first-person"]).u("scene units").m("the eye's bob height"),
        k("distance", NUM)
            .r(gt(0.0))
            .d(4.0)
            .only("kind", &["third-person"]).u("scene units").m("how far behind the orbited point"),
        k("collide", Ty::Bool)
            .db(true)
            .only("kind", &["third-person"]).m("the camera stops short of what is in the way"),
        AUTHORING,
    ],
    Kind::Rig,
    Some(Rule::Rig),
).uses(Use::Ignored);

/// `[[rig]] bounds`.
pub static BOUNDS: TableSchema = tr(
    &[
        k("min", V3).needed().u("scene units").m("the lower corner"),
        k("max", V3).needed().u("scene units").m("the upper corner"),
    ],
    Rule::Bounds,
);

/// `[[tiles]]`.
pub static TILES: TableSchema = entry(
    &[
        ID,
        k("name", Ty::Name).needed().m("the layer's name"),
        k("cell", Ty::OneOf(&[Ty::Num, Ty::Vec(2)]))
            .r(gt(0.0))
            .d(1.0)
            .u("scene units")
            .m("a cell's size along the plane's two axes"),
        k("origin", V3)
            .dv(ZERO3)
            .u("scene units")
            .m("where cell [0, 0] places its prefab"),
        k("plane", Ty::Enum(&["xy", "xz", "yz"]))
            .ds("xy")
            .m("the plane the layer lies in"),
        k("palette", Ty::Map(&Ty::Prefab)).m("each tile's key and the prefab it places"),
        k("rows", Ty::Strs).m("the cells as a picture"),
        k("cells", Ty::List(&CELL)).m("the filled cells as a list"),
        AUTHORING,
    ],
    Kind::Tiles,
    Some(Rule::Tiles),
);

/// An entry of `[[tiles]] cells`.
pub static CELL: TableSchema = t(&[
    k("at", Ty::IntVec(2)).needed().m("the cell [i, j]"),
    k("tile", Ty::Str).needed().m("the palette key"),
]);

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
            .m("how far the light reaches"),
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
            .m("the haze that no light map reaches"),
        k("seed", Ty::UInt).d(0.0).m("the noise seed"),
    ],
    Rule::Haze,
)
.uses(Use::NotYet);

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
    k("dither", Ty::OneOf(&[Ty::Bool, Ty::Num])).m("dither amplitude; true is 1, false is 0"),
    k("dither_kind", Ty::Enum(&["blue", "ordered"])).m("the one-bit dither pattern"),
    k("distortion", NUM).m("lens distortion"),
    k("dot", NUM).m("the halftone cell size"),
    k("dust", NUM).m("film dust"),
    k("encode", Ty::Bool).m("true adds the encode pass"),
    k("exposure", NUM).m("exposure"),
    k("flicker", NUM).m("film flicker"),
    k("focus", NUM).m("tilt-shift focus"),
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
    k("scale", NUM).m("paper grain or watercolour scale"),
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
    k("tilt_range", NUM).m("tilt-shift range"),
    k("tone", Ty::OneOf(TONE_T)).m("the tone map"),
    k("tone_steps", NUM)
        .r(within(3.0, 5.0))
        .m("modern comic tone steps"),
    k("vignette", Ty::OneOf(VIGNETTE_T)).m("the vignette's strength, or its table"),
    k("warmth", Ty::OneOf(WARMTH_T)).m("the warmth's amount, or its table"),
    k("weave", NUM).m("film weave"),
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
    bake: Some(Use::NotYet),
};

/// `[[finish.pass]]`.
pub static FINISH_PASS: TableSchema = tr(FINISH_KEYS, Rule::FinishPass).uses(Use::NotYet);

/// A finish file's top level: the finish keys and nothing else.
pub static FINISH_FILE: TableSchema = t(FINISH_KEYS).uses(Use::NotYet);

/// `bloom = { … }`.
pub static BLOOM: TableSchema = t(&[
    k("strength", NUM).m("the bloom's strength"),
    k("threshold", NUM).m("the luminance it starts at"),
    k("knee", NUM).m("the threshold's knee"),
    k("knee_width", NUM).m("the knee's width"),
    k("soft", NUM).m("the threshold's softness"),
    k("sigma", NUM).m("the blur's width"),
    k("clamp", NUM).m("the brightest input"),
    k("unit", NUM).m("the size unit"),
    k("radius", NUM).r(WHOLE).u("pixels").m("the blur's radius"),
    k("down", NUM)
        .r(WHOLE)
        .m("the downsampling factor; 0 reads as 1"),
    k("linear_taps", Ty::Bool).m("linear-filtered taps"),
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
            .uses(Use::NotYet),
        k("casters", Ty::Enum(&["meshes", "proxies", "none"]))
            .ds("meshes")
            .m("what casts shadows on the dynamic objects in the static objects' place")
            .uses(Use::NotYet),
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

/// The families drawn with their own model; every other family renders as `plain`.
pub const DRAWN_FAMILIES: &[&str] = &["plain", "metal", "chrome", "glass", "lacquer"];
/// The conductors: reflectance is `base`, nothing is transmitted.
const CONDUCTORS: &[&str] = &["metal", "chrome"];
const GLASS: &[&str] = &["glass"];
const LACQUER: &[&str] = &["lacquer"];
/// The families drawn with `plain`'s model: every family but the conductors and glass
/// (`lacquer` is `plain` under a coat at full weight).
const PLAIN_DRAWN: &[&str] = &[
    "plain", "paper", "plaster", "stone", "cloth", "occluder", "petal", "leaf", "bark", "cord",
    "wood", "lacquer", "liquid", "emissive",
];
const DIELECTRIC: &str = "has no effect: {family} is a dielectric of index ior";
const NO_COAT: &str = "has no effect: {family} has no clear coat";

/// `[materials.<name>]`.
pub static MATERIAL: TableSchema = entry(
    &[
        ID,
        k("family", Ty::Enum(FAMILIES)).ds("plain").m("the model the material is drawn with"),
        k("base", V3).dv(HALF3).u("linear RGB").m("the albedo, or a conductor's reflectance").clamp(within(0.0, 1.0)),
        k("roughness", NUM).d(0.5).m("the microfacet roughness; α = roughness²").clamp(within(0.0, 1.0)),
        k("metalness", NUM).d(0.0).m("the blend towards a conductor tinted by base")
            .clamp(within(0.0, 1.0))
            .unread(&[
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
            .unread(&[Unread {
                when: When::Is("family", LACQUER),
                agrees: Some(1.0),
                why: "has no effect: {family} is a clear coat at full weight",
            }]),
        k("clearcoat_roughness", NUM).d(0.05).m("the clear coat's roughness")
            .unread(&[Unread {
                when: When::Uncoated(FAMILIES),
                agrees: None,
                why: NO_COAT,
            }]),
        k("sheen", NUM).d(0.0).m("the sheen's weight").uses(Use::NotYet),
        k("transmission", NUM).d(0.0).m("the share of light transmitted")
            .unread(&[
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
                Unread {
                    when: When::Is("family", PLAIN_DRAWN),
                    agrees: None,
                    why: "is not rendered yet on {family}: only family \"glass\" transmits",
                },
            ]),
        k("ior", NUM).d(1.5).m("the index of refraction")
            .clamp(within(1.0, 4.0))
            .unread(&[
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
        k("dispersion", NUM).d(0.0).m("the spread of the index over wavelength").uses(Use::NotYet),
        k("thickness", NUM).d(0.0).u("scene units").m("a thin-walled transmitter's thickness").uses(Use::NotYet),
        k("subsurface", NUM).d(0.0).m("the subsurface scattering's weight").uses(Use::NotYet),
        k("subsurface_tint", V3).dv(ONE3).u("linear RGB").m("the subsurface scattering's colour").uses(Use::NotYet),
        k("absorption", NUM).d(0.0).u("per scene unit").m("the absorption inside a transmitter").uses(Use::NotYet),
        k("thin_film", NUM).d(0.0).u("nm").m("the thin film's thickness").uses(Use::NotYet),
        k("thin_film_ior", NUM).d(1.5).m("the thin film's index of refraction").uses(Use::NotYet),
        k("thin_film_amount", NUM).d(0.0).m("the thin film's weight").uses(Use::NotYet),
        k("emission", V3).dv(ZERO3).u("W·m⁻²·sr⁻¹, linear RGB").m("the radiance leaving the front face").clamp(ge(0.0)),
        k("fresnel_power", NUM).d(5.0).m("the Schlick exponent of the conductor's Fresnel")
            .unread(&[
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

// ---------------------------------------------------------------------------------------------
// proxies

/// A `*.proxies.toml`'s top level.
pub static PROXIES: TableSchema = t(&[
    FORMAT,
    k("proxy", Ty::List(&PROXY)).m("one stand-in each"),
    AUTHORING,
]);

/// `[[proxy]]`.
pub static PROXY: TableSchema = entry(
    &[
        ID,
        k("object", Ty::Ref(Kind::Object))
            .needed()
            .m("the static object it stands in for"),
        k("kind", Ty::Enum(&["box", "hull"]))
            .needed()
            .m("a box or a convex hull"),
        k("at", V3)
            .dv(ZERO3)
            .only("kind", &["box"])
            .u("scene units")
            .m("the box's centre"),
        k("rotate", V3)
            .dv(ZERO3)
            .only("kind", &["box"])
            .u("degrees")
            .m("the box's rotation"),
        k("size", V3)
            .r(gt(0.0))
            .needed_when("kind", &["box"])
            .only("kind", &["box"])
            .u("scene units")
            .m("the box's edge lengths"),
        k("points", Ty::VecList(3))
            .needed_when("kind", &["hull"])
            .only("kind", &["hull"])
            .u("scene units")
            .m("the hull's vertices"),
        k("triangles", Ty::IntVecList(3))
            .needed_when("kind", &["hull"])
            .only("kind", &["hull"])
            .m("the hull's faces, counter-clockwise from outside"),
        AUTHORING,
    ],
    Kind::Proxy,
    Some(Rule::Proxy),
)
.uses(Use::NotYet);

/// The kinds of files, each with its top-level table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `project.toml`.
    Project,
    /// `*.scene.toml`.
    Scene,
    /// `*.prefab.toml`.
    Prefab,
    /// `*.materials.toml` (or any file a scene's `materials` names).
    Materials,
    /// `*.proxies.toml`.
    Proxies,
    /// A finish file.
    Finish,
}

impl FileKind {
    /// The file's top-level table.
    pub fn schema(self) -> &'static TableSchema {
        match self {
            FileKind::Project => &PROJECT_FILE,
            FileKind::Scene => &SCENE,
            FileKind::Prefab => &PREFAB,
            FileKind::Materials => &LIBRARY,
            FileKind::Proxies => &PROXIES,
            FileKind::Finish => &FINISH_FILE,
        }
    }
}
