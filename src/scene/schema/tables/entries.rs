//! The entries of scenes and prefabs: their top levels, meshes, objects (bodies, characters,
//! triggers, animations), lights, emitters, movers, content, text, sounds, rigs and tile layers.

use super::*;

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
            .m("the pick id: the manifest's objects, and passes.exr's pick layer (--passes)"),
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
            .m("drawn live over a plate, or baked into it")
            .uses(Use::Recorded),
        AUTHORING,
    ],
    Kind::Text,
    None,
);

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
