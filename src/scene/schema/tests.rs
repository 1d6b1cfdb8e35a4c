//! The schema against the checker: every table refuses an unknown key at its own place.

use super::*;
use crate::scene::load::check_file;
use std::collections::VecDeque;
use std::path::Path;

/// Every distinct table of the schema, with the first (shallowest) path that reaches it,
/// root by root.
fn every_table() -> Vec<(FileKind, String, &'static TableSchema)> {
    let mut out: Vec<(FileKind, String, &'static TableSchema)> = Vec::new();
    let roots = [
        FileKind::Project,
        FileKind::Scene,
        FileKind::Materials,
        FileKind::Proxies,
        FileKind::Prefab,
        FileKind::Finish,
    ];
    for root in roots {
        let mut queue: VecDeque<(String, &'static TableSchema)> = VecDeque::new();
        queue.push_back((String::new(), root.schema()));
        while let Some((path, s)) = queue.pop_front() {
            if out.iter().any(|(_, _, t)| std::ptr::eq(*t, s)) {
                continue;
            }
            out.push((root, path.clone(), s));
            for k in s.all() {
                let p = if path.is_empty() {
                    k.name.to_string()
                } else {
                    format!("{path}.{}", k.name)
                };
                let mut tys: Vec<&'static Ty> = vec![&k.ty];
                while let Some(ty) = tys.pop() {
                    match ty {
                        Ty::Table(t) | Ty::Tables(t) | Ty::List(t) => {
                            queue.push_back((p.clone(), t))
                        }
                        Ty::OneOf(v) => tys.extend(v.iter()),
                        _ => {}
                    }
                }
            }
        }
    }
    out
}

const OBJ: &str = "[[object]]\nid = \"aaaaaaaa02\"\nname = \"o\"\nmesh = \"m\"\n";
const LIB: &str = "format = 1\n[materials.w]\nid = \"aaaaaaaa11\"\n";

/// A minimal valid instance of each table, `@` marking where `bogus_key = 1` goes, and the
/// dotted key of that table.
fn fixture(kind: FileKind, path: &str) -> Option<(String, String)> {
    let f = |body: &str| format!("format = 1\n{body}");
    let obj = |rest: &str| f(&format!("{OBJ}{rest}"));
    let o = "object.aaaaaaaa02";
    let (text, key) = match (kind, path) {
        (FileKind::Project, "") => ("format = 1\n@\n[project]\nname = \"t\"\n".into(), ""),
        (FileKind::Project, "project") => ("format = 1\n[project]\nname = \"t\"\n@\n".into(), "project"),
        (FileKind::Project, "tunables") => (
            "format = 1\n[project]\nname = \"t\"\n[tunables.jump]\ntype = \"float\"\ndefault = 1.0\n@\n".into(),
            "tunables.jump",
        ),
        (FileKind::Scene, "") => (f("@\n"), ""),
        (FileKind::Scene, "mesh") => (f("[mesh.m]\nid = \"aaaaaaaa01\"\nfile = \"m.glb\"\n@\n"), "mesh.m"),
        (FileKind::Scene, "mesh.nodes") => (
            f("[mesh.m]\nid = \"aaaaaaaa01\"\nfile = \"m.glb\"\n[mesh.m.nodes.n]\nhidden = true\n@\n"),
            "mesh.m.nodes.n",
        ),
        (FileKind::Scene, "object") => (obj("@\n"), o),
        (FileKind::Scene, "object.body") => (obj("[object.body]\nkind = \"fixed\"\n@\n"), "object.aaaaaaaa02.body"),
        (FileKind::Scene, "object.character") => {
            (obj("[object.character]\nkind = \"3d\"\n@\n"), "object.aaaaaaaa02.character")
        }
        (FileKind::Scene, "object.trigger") => {
            (obj("[object.trigger]\nshape = \"box\"\n@\n"), "object.aaaaaaaa02.trigger")
        }
        (FileKind::Scene, "object.animation") => {
            (obj("[object.animation]\nclip = \"Walk\"\n@\n"), "object.aaaaaaaa02.animation")
        }
        (FileKind::Scene, "object.animation.blend") => (
            obj("[object.animation]\n[[object.animation.blend]]\nclip = \"Walk\"\n@\n"),
            "object.aaaaaaaa02.animation.blend.0",
        ),
        (FileKind::Scene, "object.animation.events") => (
            obj("[object.animation]\nclip = \"Walk\"\n[[object.animation.events]]\nname = \"step\"\ntime = 0.5\n@\n"),
            "object.aaaaaaaa02.animation.events.0",
        ),
        (FileKind::Scene, "object.animation.clips") => (
            obj("[object.animation]\natlas = \"a.png\"\ngrid = [2, 2]\n[object.animation.clips.idle]\nfrom = 0\nto = 1\n@\n"),
            "object.aaaaaaaa02.animation.clips.idle",
        ),
        (FileKind::Scene, "light") => (
            f("[[light]]\nid = \"aaaaaaaa03\"\nname = \"l\"\nposition = [0, 1, 0]\nintensity = 1\n@\n"),
            "light.aaaaaaaa03",
        ),
        (FileKind::Scene, "emitter") => (
            f("[[emitter]]\nid = \"aaaaaaaa04\"\nname = \"e\"\nposition = [0, 1, 0]\nradius = 0.1\nintensity = 1\n@\n"),
            "emitter.aaaaaaaa04",
        ),
        (FileKind::Scene, "mover") => (
            obj("[[mover]]\nid = \"aaaaaaaa05\"\nname = \"mv\"\nobjects = [\"o\"]\nkind = \"slide\"\naxis = [1, 0, 0]\ntravel = [0, 1]\n@\n"),
            "mover.aaaaaaaa05",
        ),
        (FileKind::Scene, "content") => (f("[content.c]\nid = \"aaaaaaaa06\"\nimage = \"a.png\"\n@\n"), "content.c"),
        (FileKind::Scene, "text") => (
            f("[text.t]\nid = \"aaaaaaaa07\"\ntext = \"hi\"\nfont = \"f.ttf\"\nsize = 1\n@\n"),
            "text.t",
        ),
        (FileKind::Scene, "sound") => (f("[sound.s]\nid = \"aaaaaaaa08\"\nfile = \"s.wav\"\n@\n"), "sound.s"),
        (FileKind::Scene, "rig") => {
            (f("[[rig]]\nid = \"aaaaaaaa09\"\nname = \"r\"\nkind = \"follow\"\n@\n"), "rig.aaaaaaaa09")
        }
        (FileKind::Scene, "rig.bounds") => (
            f("[[rig]]\nid = \"aaaaaaaa09\"\nname = \"r\"\nkind = \"follow\"\n[rig.bounds]\nmin = [0, 0, 0]\nmax = [1, 1, 1]\n@\n"),
            "rig.aaaaaaaa09.bounds",
        ),
        (FileKind::Scene, "tiles") => (f("[[tiles]]\nid = \"aaaaaaaa10\"\nname = \"g\"\n@\n"), "tiles.aaaaaaaa10"),
        (FileKind::Scene, "tiles.cells") => (
            f("[[tiles]]\nid = \"aaaaaaaa10\"\nname = \"g\"\npalette = { w = \"p.prefab.toml\" }\n[[tiles.cells]]\nat = [0, 0]\ntile = \"w\"\n@\n"),
            "tiles.aaaaaaaa10.cells.0",
        ),
        (FileKind::Scene, "sun") => (f("[sun]\nmodel = \"daylight\"\nhour = 10\n@\n"), "sun"),
        (FileKind::Scene, "sky") => (f("[sky]\nkind = \"analytic\"\n@\n"), "sky"),
        (FileKind::Scene, "sky.layer") => (
            f("[sky]\nkind = \"mix\"\n[[sky.layer]]\nkind = \"analytic\"\n@\n[[sky.layer]]\nkind = \"analytic\"\n"),
            "sky.layer.0",
        ),
        (FileKind::Scene, "sky.prepare") => {
            (f("[sky]\nkind = \"hdr\"\npath = \"sky.hdr\"\n[sky.prepare]\ncap = 10\n@\n"), "sky.prepare")
        }
        (FileKind::Scene, "sky.room") => (f("[sky]\nkind = \"room\"\n[sky.room]\nwidth = 8\n@\n"), "sky.room"),
        (FileKind::Scene, "sky.room.lights") => (
            f("[sky]\nkind = \"room\"\n[sky.room]\n[[sky.room.lights]]\npower = 2\n@\n"),
            "sky.room.lights.0",
        ),
        (FileKind::Scene, "haze") => (f("[haze]\nlo = [0, 0, 0]\nhi = [1, 1, 1]\n@\n"), "haze"),
        (FileKind::Scene, "camera") => (f("[camera]\nfov = 30\n@\n"), "camera"),
        (FileKind::Scene, "camera.preset") => (f("[camera.preset]\ngain = 1\n@\n"), "camera.preset"),
        (FileKind::Scene, "camera.preset.orbit") => (f("[camera.preset.orbit]\nyaw = 1\n@\n"), "camera.preset.orbit"),
        (FileKind::Scene, "camera.preset.look") => (f("[camera.preset.look]\nlean = 1\n@\n"), "camera.preset.look"),
        (FileKind::Scene, "camera.preset.zoom") => (f("[camera.preset.zoom]\nmax = 1\n@\n"), "camera.preset.zoom"),
        (FileKind::Scene, "camera.preset.wander") => {
            (f("[camera.preset.wander]\nidle = 1\n@\n"), "camera.preset.wander")
        }
        (FileKind::Scene, "camera.preset.nudge") => (f("[camera.preset.nudge]\nfloor = 0\n@\n"), "camera.preset.nudge"),
        (FileKind::Scene, "camera.preset.hush") => (
            f("[camera.preset.hush]\nfloor = 0\nstiffness = 1\nblocks_cursor = true\n@\n"),
            "camera.preset.hush",
        ),
        (FileKind::Scene, "camera.preset.depth") => {
            (f("[camera.preset.depth]\nfocus = 1\nblur = 1\nfloor = 0\n@\n"), "camera.preset.depth")
        }
        (FileKind::Scene, "finish") => (f("[finish]\nexposure = 1\n@\n"), "finish"),
        (FileKind::Scene, "finish.bloom") => (f("[finish.bloom]\nstrength = 1\n@\n"), "finish.bloom"),
        (FileKind::Scene, "finish.grain") => (f("[finish.grain]\nstrength = 1\n@\n"), "finish.grain"),
        (FileKind::Scene, "finish.lut") => (
            f(&format!("[finish.lut]\nsize = 2\nvalues = [{}]\n@\n", vec!["0.5"; 24].join(", "))),
            "finish.lut",
        ),
        (FileKind::Scene, "finish.outline") => (f("[finish.outline]\nenabled = true\n@\n"), "finish.outline"),
        (FileKind::Scene, "finish.scratches") => (f("[finish.scratches]\ncount = 3\n@\n"), "finish.scratches"),
        (FileKind::Scene, "finish.tape") => (f("[finish.tape]\ndirection = \"forward\"\n@\n"), "finish.tape"),
        (FileKind::Scene, "finish.tone") => (f("[finish.tone]\nkind = \"aces\"\n@\n"), "finish.tone"),
        (FileKind::Scene, "finish.vignette") => (f("[finish.vignette]\nstrength = 1\n@\n"), "finish.vignette"),
        (FileKind::Scene, "finish.warmth") => (f("[finish.warmth]\namount = 1\n@\n"), "finish.warmth"),
        (FileKind::Scene, "finish.pass") => (f("[finish]\n[[finish.pass]]\nwarmth = 0.2\n@\n"), "finish.pass.0"),
        (FileKind::Scene, "trace") => (f("[trace]\nfilter_glossy = 0.25\n@\n"), "trace"),
        (FileKind::Scene, "plates") => (f("[plates]\ndir = \"plates\"\n@\n"), "plates"),
        (FileKind::Scene, "physics") => (f("[physics]\nrate = 60\n@\n"), "physics"),
        (FileKind::Materials, "") => (f("@\n"), ""),
        (FileKind::Materials, "materials") => (format!("{LIB}@\n"), "materials.w"),
        (FileKind::Materials, "materials.normal") => (
            format!("{LIB}[materials.w.normal]\nsource = \"flat\"\nstrength = 0\n@\n"),
            "materials.w.normal",
        ),
        (FileKind::Materials, "materials.maps") => (
            format!("{LIB}[materials.w.maps]\nlayer = -1\ntile = 1\nnormal = 1\nalbedo = 1\n@\n"),
            "materials.w.maps",
        ),
        (FileKind::Materials, "materials.content_layer") => {
            (format!("{LIB}[materials.w.content_layer]\nslot = 1\n@\n"), "materials.w.content_layer")
        }
        (FileKind::Materials, "materials.layers") => (
            format!("{LIB}[[materials.w.layers]]\nkind = \"fbm\"\nfrequency = 1\namplitude = 1\nseed = 1\n@\n"),
            "materials.w.layers.0",
        ),
        (FileKind::Materials, "materials.ageing") => (
            format!("{LIB}[materials.w.ageing]\nfade = 0\nyellow = 0\nink = 0\nscratch = 0\nedge = 0\ndust = 0\npatina = 0\nseed = 0\n@\n"),
            "materials.w.ageing",
        ),
        (FileKind::Proxies, "") => (f("@\n"), ""),
        (FileKind::Proxies, "proxy") => (
            f("[[proxy]]\nid = \"aaaaaaaa12\"\nobject = \"o\"\nkind = \"box\"\nsize = [1, 1, 1]\n@\n"),
            "proxy.aaaaaaaa12",
        ),
        (FileKind::Prefab, "") => (f("@\n"), ""),
        (FileKind::Finish, "") => ("@\nexposure = 1\n".into(), ""),
        _ => return None,
    };
    Some((text, key.to_string()))
}

fn name_of(kind: FileKind) -> &'static str {
    match kind {
        FileKind::Project => "project.toml",
        FileKind::Scene => "t.scene.toml",
        FileKind::Prefab => "t.prefab.toml",
        FileKind::Materials => "t.materials.toml",
        FileKind::Proxies => "t.proxies.toml",
        FileKind::Finish => "t.finish.toml",
    }
}

/// Every table of the schema refuses an unknown key, at its own key path and place; and
/// the schema holds a table for every fixture, and a fixture for every table.
#[test]
fn every_table_refuses_an_unknown_key() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("project.toml"),
        "format = 1\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    for f in [
        "m.glb",
        "a.png",
        "f.ttf",
        "s.wav",
        "sky.hdr",
        "p.prefab.toml",
    ] {
        std::fs::write(root.join(f), "x").unwrap();
    }
    let tables = every_table();
    assert!(tables.len() >= 65, "only {} tables", tables.len());
    for (kind, path, _) in &tables {
        let (text, key) =
            fixture(*kind, path).unwrap_or_else(|| panic!("no fixture for {kind:?} `{path}`"));
        let rel = Path::new(name_of(*kind));
        let clean = check_file(root, rel, *kind, text.replace('@', "").as_bytes());
        let errors: Vec<_> = clean.iter().filter(|d| d.is_error()).collect();
        assert!(
            errors.is_empty(),
            "{kind:?} `{path}` fixture is not valid: {errors:#?}"
        );
        let bogus = check_file(
            root,
            rel,
            *kind,
            text.replace('@', "bogus_key = 1").as_bytes(),
        );
        let errors: Vec<_> = bogus.iter().filter(|d| d.is_error()).collect();
        assert_eq!(errors.len(), 1, "{kind:?} `{path}`: {errors:#?}");
        let d = errors[0];
        let want = if key.is_empty() {
            "bogus_key".to_string()
        } else {
            format!("{key}.bogus_key")
        };
        assert_eq!(
            (d.code, d.key.as_str()),
            ("unknown-key", want.as_str()),
            "{kind:?} `{path}`"
        );
        let line = text[..text.find('@').unwrap()].matches('\n').count() as u32 + 1;
        assert_eq!(
            (d.line, d.column, d.end_line, d.end_column),
            (line, 1, line, 10),
            "{kind:?} `{path}`"
        );
        assert_eq!(d.file, rel);
        assert!(d.message.contains("allowed keys:"), "{}", d.message);
    }
}

/// `docs/scene.md`'s key table is the schema's: regenerate it with
/// `PFX_BLESS_DOCS=1 cargo test --lib scene::schema`.
#[test]
fn the_docs_key_table_is_the_schemas() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scene.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let want = key_table();
    let (Some(a), Some(b)) = (text.find(doc::BEGIN), text.find(doc::END)) else {
        panic!("docs/scene.md lacks the generated key table's markers");
    };
    let b = b + doc::END.len() + 1;
    let have = &text[a..b.min(text.len())];
    if have != want {
        if std::env::var_os("PFX_BLESS_DOCS").is_some() {
            let new = format!("{}{want}{}", &text[..a], &text[b.min(text.len())..]);
            std::fs::write(&file, new).unwrap();
        } else {
            panic!(
                "docs/scene.md's key table differs from the schema's; run \
                 `PFX_BLESS_DOCS=1 cargo test --lib scene::schema` and commit the file"
            );
        }
    }
}

/// `docs/keys-summary.md` (the note's short table: every key a renderer reads, and whether it
/// is drawn, recorded or named as not drawn yet) is the schema's, whole.
#[test]
fn the_keys_summary_is_the_schemas() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/keys-summary.md");
    let want = keys_summary();
    let have = std::fs::read_to_string(&file).unwrap_or_default();
    if have != want {
        if std::env::var_os("PFX_BLESS_DOCS").is_some() {
            std::fs::write(&file, &want).unwrap();
        } else {
            panic!(
                "docs/keys-summary.md differs from the schema's; run \
                 `PFX_BLESS_DOCS=1 cargo test --lib scene::schema` and commit the file"
            );
        }
    }
    // What it says agrees with the table: a drawn, a recorded and a not-yet key each sit in
    // their column, and an ignored table is listed only at the end.
    let row = |start: &str| {
        want.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no row {start}"))
            .split(" | ")
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let light = row("| [light] |");
    assert!(light[1].contains("`intensity`"), "{light:?}");
    assert!(light[2].contains("`id`"), "{light:?}");
    let mats = row("| [materials] |");
    assert!(mats[3].contains("`content`"), "{mats:?}");
    assert!(mats[1].contains("`subsurface`†"), "{mats:?}");
    assert!(!mats[3].contains("`subsurface`"), "{mats:?}");
    assert!(mats[1].contains("`fresnel_power`†"), "{mats:?}");
    assert!(!want.contains("| [physics] |"));
    assert!(want.contains("[physics]"));
}

/// Every key of every table has a meaning; every table the docs list is one the checker
/// walks.
#[test]
fn every_key_has_a_meaning() {
    let places = doc::places();
    assert_eq!(places.len(), every_table().len());
    for p in &places {
        for key in p.table.all() {
            assert!(
                !key.doc.is_empty(),
                "[{}] {} has no meaning",
                p.path,
                key.name
            );
        }
    }
}

/// What the bake does with a key comes from the key, else its table, else the key above.
#[test]
fn uses_inherit_down_the_path() {
    let u = |p: &str| use_of(p).map(|(_, u)| u);
    assert_eq!(u("object.at"), Some(Use::Drawn));
    assert_eq!(u("object.id"), Some(Use::Recorded));
    assert_eq!(u("object.body"), Some(Use::Ignored));
    assert_eq!(u("object.body.kind"), Some(Use::Ignored));
    assert_eq!(u("haze"), Some(Use::Drawn));
    assert_eq!(u("haze.amount"), Some(Use::Drawn));
    assert_eq!(u("haze.reach"), Some(Use::Recorded));
    assert_eq!(u("haze.unmapped"), Some(Use::Recorded));
    assert_eq!(u("text.id"), Some(Use::Recorded));
    assert_eq!(u("finish.bloom.strength"), Some(Use::Drawn));
    assert_eq!(u("finish.bloom.radii"), Some(Use::Drawn));
    assert_eq!(u("finish.bloom.linear_taps"), Some(Use::Recorded));
    assert_eq!(u("finish.pass.scanlines"), Some(Use::Drawn));
    assert_eq!(u("finish.pass.rim"), Some(Use::Drawn));
    assert_eq!(u("finish.pass.bloom.soft"), Some(Use::Drawn));
    assert_eq!(u("finish.pass.tone"), Some(Use::Drawn));
    assert_eq!(u("materials.subsurface"), Some(Use::Drawn));
    assert_eq!(u("materials.subsurface_tint"), Some(Use::Drawn));
    assert_eq!(u("materials.content"), Some(Use::NotYet));
    assert_eq!(u("materials.thickness"), Some(Use::Drawn));
    assert_eq!(u("materials.dispersion"), Some(Use::Drawn));
    assert_eq!(u("materials.layers.kind"), Some(Use::NotYet));
    assert_eq!(u("materials.roughness"), Some(Use::Drawn));
    assert_eq!(u("sky.layer.turbidity"), Some(Use::Drawn));
    assert_eq!(u("project.name"), Some(Use::Ignored));
    assert_eq!(u("exposure"), Some(Use::Drawn));
    assert_eq!(u("rim"), Some(Use::Drawn));
    assert_eq!(u("physics.rate"), Some(Use::Ignored));
    assert_eq!(u("no.such.key"), None);
}

/// The accessors the model reads through refuse a name the table does not hold.
#[test]
#[should_panic(expected = "no key `roughnes`")]
fn a_misspelt_key_fails_a_test() {
    let _ = default_f32(&MATERIAL, "roughnes");
}

/// Every key name the reader and the checker read a table by is a key of the schema: a
/// misspelt name (`v.f32("roughnes")`) would read a default unseen, so it fails here. (Reads
/// through `View` are checked against their own table by a debug assertion as well.)
#[test]
fn every_key_read_by_name_is_in_the_schema() {
    let mut names: Vec<&str> = doc::places()
        .iter()
        .flat_map(|p| p.table.all().map(|k| k.name))
        .collect();
    names.sort_unstable();
    names.dedup();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/scene");
    let readers = [
        ".str(\"",
        ".get(\"",
        ".num(\"",
        ".nums(\"",
        ".bool(\"",
        ".has(\"",
        ".f32(\"",
        ".opt(\"",
        ".opt_bool(\"",
        ".v3(\"",
        ".v2(\"",
        ".string(\"",
        ".path(\"",
        ".node(\"",
        ".tables(\"",
    ];
    let mut seen = 0;
    // The reader's code: every file of `load/` and `check/` but their tests.
    let mut files: Vec<String> = Vec::new();
    for sub in ["load", "check"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".rs") && name != "tests.rs" {
                files.push(format!("{sub}/{name}"));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "the reader's files: {files:?}");
    for file in &files {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        // The tests at the bottom build their own inputs; only the code reads the model.
        let code = text.split("#[cfg(test)]").next().unwrap_or(&text);
        for r in readers {
            for (i, _) in code.match_indices(r) {
                let rest = &code[i + r.len()..];
                let name = &rest[..rest.find('"').unwrap_or(0)];
                seen += 1;
                assert!(
                    names.binary_search(&name).is_ok(),
                    "src/scene/{file} reads a key `{name}` that no table of the schema holds"
                );
            }
        }
    }
    assert!(
        seen > 100,
        "only {seen} reads found: has the reader's shape changed?"
    );
}
