//! The rules that tie keys together (camera, sun and sky, objects, parents, `dynamic`),
//! defaults against the model, file order, and mutated inputs that must not panic.

use super::*;

#[test]
fn camera_rules() {
    let cam = |body: &str| run(&format!("{HEAD}[camera]\n{body}"));
    let d = cam("fov = 30\nfocal = 35\n");
    assert_eq!(at(&one(&d, "bad-value")), ("camera.focal", 8, 1, 8, 6));
    let d = cam("sensor = 36\n");
    assert_eq!(one(&d, "bad-value").key, "camera.sensor");
    let d = cam("projection = \"orthographic\"\nheight = 4\nfov = 30\nfstop = 2\n");
    let keys: Vec<&str> = errors(&d).iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["camera.fov", "camera.fstop"]);
    let d = cam("projection = \"orthographic\"\n");
    assert_eq!(at(&one(&d, "missing-key")), ("camera.height", 6, 1, 6, 9));
    let d = cam("height = 3\n");
    assert_eq!(one(&d, "bad-value").key, "camera.height");
    let d = cam("near = 1\nfar = 1\n");
    assert_eq!(one(&d, "bad-value").key, "camera.far");
    let d = cam("at = [1, 2, 3]\nlook_at = [1, 2, 3]\n");
    assert_eq!(one(&d, "bad-value").key, "camera.look_at");
    let d = cam("at = [0, 5, 0]\n");
    assert_eq!(one(&d, "bad-value").key, "camera.look_at");
    let d = cam("at = [0, 5, 0]\nup = [0, -2, 0]\n");
    assert_eq!(one(&d, "bad-value").key, "camera.up");
    // focal with the sensor gives the fov.
    let dir = project(&format!("{HEAD}[camera]\nfocal = 50\nsensor = 24\n"));
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    let c = s.camera.unwrap();
    let want = 2.0 * (12.0f32 / 50.0).atan().to_degrees();
    assert!((c.fov - want).abs() < 1e-4, "{} {}", c.fov, want);
    assert_eq!(c.focal, Some(50.0));
}

#[test]
fn sun_and_sky_rules() {
    let d = run(&format!(
        "{HEAD}[sun]\nmodel = \"daylight\"\nhour = 9\ntoward = [0, 1, 0]\n"
    ));
    assert_eq!(at(&one(&d, "bad-value")), ("sun.toward", 9, 1, 9, 7));
    let d = run(&format!("{HEAD}[sun]\nmodel = \"daylight\"\n"));
    assert_eq!(one(&d, "missing-key").key, "sun.hour");
    let d = run(&format!(
        "{HEAD}[sun]\nmodel = \"authored\"\ntoward = [0, 0, 0]\n"
    ));
    let keys: Vec<(&str, &str)> = errors(&d)
        .iter()
        .map(|e| (e.code, e.key.as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("missing-key", "sun.irradiance"),
            ("bad-value", "sun.toward")
        ]
    );
    let dir = project(&format!("{HEAD}[sun]\nmodel = \"authored\"\ntoward = [0, 1, 1]\nirradiance = 3\nreference_hour = 15\n"));
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    let sun = s.sun.unwrap();
    assert_eq!(
        (sun.model, sun.hour, sun.toward, sun.irradiance),
        (SunModel::Authored, 15.0, Some([0.0, 1.0, 1.0]), Some(3.0))
    );
    let d = run(&format!(
        "{HEAD}[sky]\nkind = \"analytic\"\npath = \"sky.hdr\"\n"
    ));
    let e = one(&d, "bad-value");
    assert_eq!(at(&e), ("sky.path", 8, 1, 8, 5));
    assert!(e.message.contains("\"hdr\""), "{}", e.message);
    let d = run(&format!("{HEAD}[sky]\nkind = \"hdr\"\nturbidity = 3\n"));
    assert_eq!(one(&d, "missing-key").key, "sky.path");
    assert_eq!(one(&d, "bad-value").key, "sky.turbidity");
    let dir = project(&format!(
        "{HEAD}[sky]\nkind = \"hdr\"\npath = \"sky.hdr\"\nrotation_deg = 90\n"
    ));
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    let sky = s.sky.unwrap();
    assert_eq!(
        (sky.kind, sky.path, sky.rotation_deg, sky.intensity),
        (SkyKind::Hdr, Some(PathBuf::from("sky.hdr")), 90.0, 1.0)
    );
}

/// Every `[sky]` key reaches the model, the spec's defaults filled in: an hdr sky with
/// `[sky.prepare]`, a room with its lamps, and a mix of layers with their own tables.
#[test]
fn sky_tables_fill_the_model() {
    let load_sky = |text: &str| {
        let dir = project(&format!("{HEAD}{text}"));
        let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
        s.sky.unwrap()
    };
    let sky = load_sky(
        "[sky]\nkind = \"hdr\"\npath = \"./sky.hdr\"\nintensity = 2\n[sky.prepare]\ncap = 5\nbalance = [1, 0.5, 0.25]\n",
    );
    assert_eq!(sky.kind, SkyKind::Hdr);
    assert_eq!(sky.path, Some(PathBuf::from("sky.hdr")));
    assert_eq!((sky.rotation_deg, sky.intensity), (0.0, 2.0));
    let prep = Prepare {
        cap: Some(5.0),
        balance: Some([1.0, 0.5, 0.25]),
        mean: None,
    };
    assert_eq!(sky.prepare, Some(prep));
    assert!(sky.room.is_none() && sky.layers.is_empty());

    let sky = load_sky(
        "[sky]\nkind = \"room\"\nrotation_deg = -30\n[sky.room]\nwidth = 33\nwall = [0.1, 0.2, 0.3]\n\
         [[sky.room.lights]]\nname = \"window\"\naz = 90\nel = 20\npower = 4\ncolor = [1, 0.9, 0.8]\n\
         width = 60\nheight = 40\nsoft = 0\nslats = 12\nopen = 0.25\n[[sky.room.lights]]\n",
    );
    assert_eq!(
        (sky.kind, sky.rotation_deg, sky.intensity),
        (SkyKind::Room, -30.0, 1.0)
    );
    let want = Room {
        width: 33,
        floor: [0.5; 3],
        wall: [0.1, 0.2, 0.3],
        ceiling: [0.5; 3],
        lights: vec![
            RoomLight {
                name: "window".into(),
                az: 90.0,
                el: 20.0,
                power: 4.0,
                color: [1.0, 0.9, 0.8],
                width: 60.0,
                height: 40.0,
                soft: 0.0,
                slats: 12.0,
                open: 0.25,
            },
            RoomLight::default(),
        ],
    };
    assert_eq!(sky.room, Some(want));
    assert_eq!(
        RoomLight::default(),
        RoomLight {
            name: String::new(),
            az: 0.0,
            el: 0.0,
            power: 1.0,
            color: [1.0; 3],
            width: 45.0,
            height: 45.0,
            soft: 0.1,
            slats: 0.0,
            open: 1.0,
        }
    );

    let sky = load_sky(
        "[sky]\nkind = \"mix\"\n[[sky.layer]]\nkind = \"analytic\"\nturbidity = 6\nground_albedo = [0.1, 0.2, 0.3]\n\
         [[sky.layer]]\nkind = \"hdr\"\nweight = 0.5\npath = \"sky.hdr\"\nrotation_deg = 45\n[sky.layer.prepare]\nmean = 2\n\
         [[sky.layer]]\nkind = \"room\"\nweight = 0\nintensity = 3\n[sky.layer.room]\n",
    );
    assert_eq!(sky.kind, SkyKind::Mix);
    let l = &sky.layers;
    assert_eq!(l.len(), 3);
    assert_eq!(
        (
            l[0].kind,
            l[0].weight,
            l[0].turbidity,
            l[0].ground_albedo,
            l[0].ambient
        ),
        (SkyKind::Analytic, 1.0, 6.0, [0.1, 0.2, 0.3], 1.0)
    );
    assert_eq!(
        (
            l[1].kind,
            l[1].weight,
            &l[1].path,
            l[1].rotation_deg,
            l[1].prepare
        ),
        (
            SkyKind::Hdr,
            0.5,
            &Some(PathBuf::from("sky.hdr")),
            45.0,
            Some(Prepare {
                mean: Some(2.0),
                ..Default::default()
            })
        )
    );
    assert_eq!(
        (l[2].kind, l[2].weight, l[2].intensity, &l[2].room),
        (SkyKind::Room, 0.0, 3.0, &Some(Room::default()))
    );

    let sky = load_sky("[sky]\nkind = \"analytic\"\nambient = 0.5\n");
    assert_eq!(
        (sky.kind, sky.turbidity, sky.ground_albedo, sky.ambient),
        (SkyKind::Analytic, 3.0, [0.2; 3], 0.5)
    );
}

#[test]
fn object_rules() {
    let d = run(&format!(
        "{HEAD}{}",
        obj(
            "aaaaaaaa01",
            "a",
            "clip = [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]]\n"
        )
    ));
    assert_eq!(one(&d, "bad-value").key, "object.aaaaaaaa01.clip");
    let place = "[[object]]\nid = \"aaaaaaaa01\"\nname = \"p\"\nprefab = \"p.prefab.toml\"\nmaterial = \"white\"\n";
    let dir = project(&format!("{HEAD}{place}"));
    std::fs::write(dir.path().join("p.prefab.toml"), "format = 1\n").unwrap();
    let d = load(&dir.path().join("t.scene.toml")).unwrap_err();
    assert_eq!(
        at(&one(&d, "placement-key")),
        ("object.aaaaaaaa01.material", 10, 1, 10, 9)
    );
    let d = run(&format!(
        "{HEAD}{}",
        obj("aaaaaaaa01", "a", "dynamic = false\n[object.character]\n")
    ));
    assert_eq!(one(&d, "bad-value").key, "object.aaaaaaaa01.dynamic");
    let d = run(&format!(
        "{HEAD}{}",
        obj("aaaaaaaa01", "a", "[object.body]\nlayer = \"sky\"\n")
    ));
    assert_eq!(one(&d, "bad-reference").key, "object.aaaaaaaa01.body.layer");
    let d = run(&format!(
        "{HEAD}{}",
        obj(
            "aaaaaaaa01",
            "a",
            "[object.body]\nshape = \"sphere\"\nhalf = [1, 1, 1]\n"
        )
    ));
    assert_eq!(one(&d, "bad-value").key, "object.aaaaaaaa01.body.half");
}

#[test]
fn parent_cycle() {
    let d = run(&format!(
        "{HEAD}{}{}{}",
        obj("aaaaaaaa01", "a", "parent = \"c\"\n"),
        obj("aaaaaaaa02", "b", "parent = \"a\"\n"),
        obj("aaaaaaaa03", "c", "parent = \"b\"\n")
    ));
    let e = one(&d, "parent-cycle");
    assert_eq!(at(&e), ("object.aaaaaaaa01.parent", 10, 10, 10, 13));
    // Related follows the chain of parents from the first object: a → c → b.
    assert_eq!(
        e.related.iter().map(|r| r.line).collect::<Vec<_>>(),
        [20, 15]
    );
    assert!(e.message.contains("a → c → b → a"), "{}", e.message);
}

#[test]
fn dynamic_is_derived() {
    let text = format!(
        "{HEAD}{}{}{}{}{}[[mover]]\nid = \"vvvvvvvv01\"\nname = \"door\"\nobjects = [\"a\"]\nkind = \"turn\"\naxis = [0, 1, 0]\ntravel = [0, 90]\n",
        obj("aaaaaaaa01", "a", ""),
        obj("aaaaaaaa02", "b", "parent = \"a\"\n"),
        obj("aaaaaaaa03", "c", "parent = \"b\"\ndynamic = false\n"),
        obj("aaaaaaaa04", "d", "face_camera = true\n"),
        obj("aaaaaaaa05", "e", "")
    );
    let dir = project(&text);
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    let dy: Vec<(&str, bool)> = s
        .objects
        .iter()
        .map(|o| (o.key.as_str(), o.dynamic))
        .collect();
    assert_eq!(
        dy,
        [
            ("a", true),
            ("b", true),
            ("c", false),
            ("d", true),
            ("e", false)
        ]
    );
}

#[test]
fn columns_are_characters_after_non_ascii() {
    let line = "light = [{ name = \"日本語\", position = \"x\", intensity = 1 }]\n[mesh.m]";
    let d = run(&HEAD.replacen("[mesh.m]", line, 1));
    let e = one(&d, "bad-type");
    assert_eq!(at(&e), ("light.0.position", 3, 37, 3, 40));
}

#[test]
fn unresolved_parts_are_recorded_not_dropped() {
    let dir = project(&HEAD.replacen(
        "materials = [",
        "include = [\"o.scene.toml\"]\nmaterials = [",
        1,
    ));
    std::fs::write(dir.path().join("o.scene.toml"), "format = 1\n").unwrap();
    let text = std::fs::read_to_string(dir.path().join("t.scene.toml")).unwrap();
    let text = format!("{text}[[tiles]]\nid = \"tttttttt01\"\nname = \"g\"\n[haze]\nlo = [0, 0, 0]\nhi = [1, 1, 1]\namount = 0.5\n[camera]\nfov = 30\nfstop = 2\n");
    std::fs::write(dir.path().join("t.scene.toml"), text).unwrap();
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    for p in [
        "include",
        "tiles",
        "tiles.name",
        "haze",
        "haze.amount",
        "camera.fstop",
        "mesh.file",
        "format",
    ] {
        assert!(s.present.iter().any(|x| x.path == p), "{p} not present");
    }
    let inc = s.present.iter().find(|x| x.path == "include").unwrap();
    assert_eq!(
        (inc.key.as_str(), inc.at.line, inc.at.column),
        ("include", 2, 1)
    );
    assert_eq!(s.camera.unwrap().fstop, Some(2.0));
}

#[test]
fn material_defaults_match_the_model() {
    let dir = project(HEAD);
    std::fs::write(
        dir.path().join("lib.materials.toml"),
        "format = 1\n[materials.bare]\nid = \"wwwwwwww01\"\n",
    )
    .unwrap();
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    let m = &s.materials[0];
    let d = Material::default();
    assert_eq!(
        (
            m.family,
            m.base,
            m.roughness,
            m.metalness,
            m.specular,
            m.clearcoat,
            m.clearcoat_roughness,
            m.sheen
        ),
        (
            d.family,
            d.base,
            d.roughness,
            d.metalness,
            d.specular,
            d.clearcoat,
            d.clearcoat_roughness,
            d.sheen
        )
    );
    assert_eq!(
        (
            m.transmission,
            m.ior,
            m.dispersion,
            m.thickness,
            m.subsurface,
            m.subsurface_tint,
            m.absorption
        ),
        (
            d.transmission,
            d.ior,
            d.dispersion,
            d.thickness,
            d.subsurface,
            d.subsurface_tint,
            d.absorption
        )
    );
    assert_eq!(
        (
            m.thin_film,
            m.thin_film_ior,
            m.thin_film_amount,
            m.emission,
            m.fresnel_power
        ),
        (
            d.thin_film,
            d.thin_film_ior,
            d.thin_film_amount,
            d.emission,
            d.fresnel_power
        )
    );
    let c = Camera::default();
    let dir = project(&format!("{HEAD}[camera]\n"));
    let got = load(&dir.path().join("t.scene.toml"))
        .unwrap()
        .camera
        .unwrap();
    assert_eq!(
        (
            got.at,
            got.look_at,
            got.up,
            got.fov,
            got.sensor,
            got.near,
            got.far
        ),
        (c.at, c.look_at, c.up, c.fov, c.sensor, c.near, c.far)
    );
}

#[test]
fn errors_come_in_file_order() {
    let d = run(&format!(
        "{HEAD}[camera]\nfov = 500\nbogus = 1\n[[light]]\nname = 3\n"
    ));
    let lines: Vec<u32> = d.iter().map(|d| d.line).collect();
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted);
    assert!(errors(&d).len() >= 4, "{d:#?}");
}

/// Nesting deeper than any stack could follow is refused by the parser, not recursed into.
#[test]
fn deep_nesting_is_refused_without_recursion() {
    let deep = format!(
        "format = 1\nauthoring = {}1{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let d = run(&deep);
    assert_eq!(errors(&d)[0].code, "syntax");
    let ok = format!(
        "format = 1\nauthoring = {}1{}\n",
        "[".repeat(20),
        "]".repeat(20)
    );
    assert!(errors(&run(&ok)).is_empty());
}

/// Thousands of mutated scenes (byte flips, truncations, spliced lines): none panics.
#[test]
fn mutated_inputs_never_panic() {
    let scene = data("spheres/spheres.scene.toml");
    let base = std::fs::read(&scene).unwrap();
    let rel = PathBuf::from("spheres.scene.toml");
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    let mut errs = 0;
    for i in 0..3000 {
        let b = mutate(&base, i, &mut next);
        let overlay = HashMap::from([(rel.clone(), b)]);
        if load_with(&scene, overlay).is_err() {
            errs += 1;
        }
    }
    // Most mutations break something; the test is that none panicked.
    assert!(errs > 1000, "{errs}");
}

/// The same over the lamp: its scene (placements, overrides by name and by id) and its
/// prefab, mutated in turn.
#[test]
fn mutated_placements_never_panic() {
    let scene = data("lamp/desk.scene.toml");
    let files = ["desk.scene.toml", "props/lamp.prefab.toml"];
    let bases: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(data("lamp").join(f)).unwrap())
        .collect();
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let mut errs = 0;
    for i in 0..2000 {
        let which = (i / 4) % 2;
        let b = mutate(&bases[which], i, &mut next);
        let overlay = HashMap::from([(PathBuf::from(files[which]), b)]);
        if load_with(&scene, overlay).is_err() {
            errs += 1;
        }
    }
    assert!(errs > 500, "{errs}");
}

/// xorshift64*: fixed seed, deterministic.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// One mutation of `base`, of kind `i % 4`: byte flips, a truncation, a splice, a deletion.
fn mutate(base: &[u8], i: usize, next: &mut impl FnMut() -> u64) -> Vec<u8> {
    const BYTES: &[u8] = b"[]{}\"'=.,#\n 0-9e+ax/\\\xff\xc3\xa9";
    let mut b = base.to_vec();
    match i % 4 {
        0 => {
            for _ in 0..1 + next() % 4 {
                let at = (next() as usize) % b.len();
                b[at] = BYTES[(next() as usize) % BYTES.len()];
            }
        }
        1 => b.truncate((next() as usize) % b.len()),
        2 => {
            let at = (next() as usize) % b.len();
            let len = (next() as usize) % 40;
            let end = (at + len).min(b.len());
            let piece = b[at..end].to_vec();
            let to = (next() as usize) % b.len();
            b.splice(to..to, piece);
        }
        _ => {
            let at = (next() as usize) % b.len();
            b.remove(at);
        }
    }
    b
}

// -----------------------------------------------------------------------------------------
// includes, prefabs
