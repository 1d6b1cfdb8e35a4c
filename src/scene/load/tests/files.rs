//! One file at a time: the spec's example scenes as written, unknown keys, types, ranges,
//! ids, names, references, paths and formats, each at its place.

use super::*;

#[test]
fn cornell_loads_as_written() {
    let s = load(&data("cornell/cornell.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    assert!(s.warnings.is_empty(), "{:#?}", s.warnings);
    assert!(s.root.is_absolute());
    assert_eq!(s.file, PathBuf::from("cornell.scene.toml"));
    assert_eq!(
        s.files,
        [
            "project.toml",
            "cornell.scene.toml",
            "cornell.materials.toml"
        ]
        .map(PathBuf::from)
        .to_vec()
    );
    assert_eq!(s.meshes.len(), 8);
    assert_eq!(s.meshes[0].file, PathBuf::from("meshes/floor.glb"));
    assert_eq!(s.objects.len(), 8);
    let names: Vec<&str> = s.objects.iter().map(|o| o.key.as_str()).collect();
    assert_eq!(
        names,
        [
            "floor",
            "ceiling",
            "back_wall",
            "left_wall",
            "right_wall",
            "short_box",
            "tall_box",
            "light"
        ]
    );
    let left = &s.objects[3];
    assert_eq!(
        (left.mesh.as_str(), left.material.as_deref()),
        ("left_wall", Some("red"))
    );
    assert_eq!(left.at, [0.278, 0.0, 0.2796]);
    assert_eq!(left.rotate, [0.0, 180.0, 0.0]);
    assert_eq!(left.scale, [1.0; 3]);
    assert_eq!(left.pick, 4);
    assert!(s
        .objects
        .iter()
        .all(|o| !o.dynamic && o.shadow == Shadow::Cast && o.alpha_cutoff == 0.5));
    assert_eq!(s.materials.len(), 4);
    let light = s.materials.iter().find(|m| m.key == "light").unwrap();
    assert_eq!(light.emission, [18.387, 13.9873, 6.75357]);
    assert_eq!(light.library, PathBuf::from("cornell.materials.toml"));
    assert_eq!(
        (light.roughness, light.specular, light.ior),
        (1.0, 0.0, 1.5)
    );
    let red = s.materials.iter().find(|m| m.key == "red").unwrap();
    assert_eq!(red.base, [0.570068, 0.0430135, 0.0443706]);
    let cam = s.camera.as_ref().unwrap();
    assert_eq!(cam.projection, Projection::Perspective);
    assert_eq!(cam.at, [0.0, 0.273, 1.0796]);
    assert_eq!(cam.look_at, [0.0, 0.273, 0.0]);
    assert_eq!(cam.fov, 39.3076);
    assert_eq!((cam.near, cam.far, cam.sensor), (0.05, 100.0, 24.0));
    assert!(s.lights.is_empty() && s.emitters.is_empty() && s.sun.is_none() && s.sky.is_none());
    let first = &s.objects[0].at_loc;
    assert_eq!((first.line, first.column), (41, 1));
    assert!(s
        .present
        .iter()
        .any(|p| p.path == "object.rotate" && p.key == "object.fdjavdz6xh.rotate"));
    assert!(s
        .present
        .iter()
        .any(|p| p.path == "materials.emission" && p.key == "materials.light.emission"));
}

#[test]
fn spheres_loads_as_written() {
    let s = load(&data("spheres/spheres.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    assert!(s.warnings.is_empty(), "{:#?}", s.warnings);
    assert_eq!(
        s.meshes
            .iter()
            .map(|m| m.node.as_deref())
            .collect::<Vec<_>>(),
        [Some("ground"), Some("sphere")]
    );
    let metal = s.objects.iter().find(|o| o.key == "metal_ball").unwrap();
    assert_eq!(
        (metal.mesh.as_str(), metal.material.as_deref()),
        ("sphere", Some("copper"))
    );
    assert_eq!(metal.rotate, [90.0, 30.0, 0.0]);
    assert_eq!(metal.scale, [0.5; 3]);
    let copper = s.materials.iter().find(|m| m.key == "copper").unwrap();
    assert_eq!(
        (copper.roughness, copper.metalness, copper.base),
        (0.2, 1.0, [0.95, 0.64, 0.54])
    );
    assert_eq!(s.lights.len(), 1);
    let l = &s.lights[0];
    assert_eq!(
        (l.key.as_str(), l.id.as_deref()),
        ("key", Some("ymd945rcwk"))
    );
    assert_eq!(
        (l.position, l.color, l.intensity, l.radius),
        ([2.5, 4.0, 3.0], [1.0, 0.95, 0.85], 60.0, 0.0)
    );
    assert_eq!((l.range, l.shadow), (10.0, true));
    let e = &s.emitters[0];
    assert_eq!(
        (e.key.as_str(), e.position, e.radius, e.color, e.intensity),
        ("glow", [-0.9, 1.45, -0.9], 0.25, [0.5, 0.7, 1.0], 4.0)
    );
    let cam = s.camera.as_ref().unwrap();
    assert_eq!(
        (cam.at, cam.look_at, cam.fov),
        ([0.0, 1.4, 5.0], [0.0, 0.45, 0.0], 35.0)
    );
}

#[test]
fn unknown_key_lists_the_allowed_keys() {
    let d = run(&format!("{HEAD}[camera]\nbogus = 1\n"));
    let d = one(&d, "unknown-key");
    assert_eq!(at(&d), ("camera.bogus", 7, 1, 7, 6));
    assert_eq!(d.file, PathBuf::from("t.scene.toml"));
    assert!(
        d.message
            .contains("allowed keys: projection, at, look_at, up, fov, focal"),
        "{}",
        d.message
    );
}

#[test]
fn wrong_type_and_out_of_range() {
    let light = |body: &str| format!("{HEAD}[[light]]\nid = \"hhhhhhhh01\"\nname = \"l\"\n{body}");
    let d = run(&light("position = \"up\"\nintensity = 1\n"));
    assert_eq!(
        at(&one(&d, "bad-type")),
        ("light.hhhhhhhh01.position", 9, 12, 9, 16)
    );
    let d = run(&light("position = [0, 1, 0]\nintensity = -1\n"));
    let e = one(&d, "bad-value");
    assert_eq!(at(&e), ("light.hhhhhhhh01.intensity", 10, 13, 10, 15));
    assert!(e.message.contains("≥ 0"), "{}", e.message);
    let d = run(&light(
        "position = [0, 1, 0]\nintensity = 1\ncolor = [1, 1]\n",
    ));
    let e = one(&d, "bad-type");
    assert_eq!(at(&e), ("light.hhhhhhhh01.color", 11, 9, 11, 15));
    assert!(
        e.message.contains("3 numbers") && e.message.contains("2 values"),
        "{}",
        e.message
    );
    let d = run(&format!("{HEAD}[camera]\nfov = 180\n"));
    let e = one(&d, "bad-value");
    assert_eq!(at(&e), ("camera.fov", 7, 7, 7, 10));
    assert!(e.message.contains("above 0 and below 180"), "{}", e.message);
    let d = run(&format!("{HEAD}[[emitter]]\nid = \"eeeeeeee01\"\nname = \"e\"\nposition = [0, 0, 0]\nradius = 0\nintensity = 1\n"));
    assert_eq!(
        at(&one(&d, "bad-value")),
        ("emitter.eeeeeeee01.radius", 10, 10, 10, 11)
    );
}

#[test]
fn missing_key_points_at_the_header() {
    let d = run(&format!(
        "{HEAD}[[light]]\nid = \"hhhhhhhh01\"\nname = \"l\"\nintensity = 1\n"
    ));
    let e = one(&d, "missing-key");
    assert_eq!(at(&e), ("light.hhhhhhhh01.position", 6, 1, 6, 10));
    let d = run(&format!(
        "{HEAD}[[object]]\nid = \"oooooooo01\"\nname = \"o\"\n"
    ));
    assert!(errors(&d).iter().any(|e| e.code == "bad-id"));
    let d = run(&format!(
        "{HEAD}[[object]]\nid = \"aaaaaaaa01\"\nname = \"o\"\n"
    ));
    assert_eq!(
        at(&one(&d, "missing-key")),
        ("object.aaaaaaaa01.mesh", 6, 1, 6, 11)
    );
}

#[test]
fn ids_bad_missing_and_twice() {
    let d = run(&format!(
        "{HEAD}[[light]]\nid = \"ABC\"\nname = \"l\"\nposition = [0, 0, 0]\nintensity = 1\n"
    ));
    let e = one(&d, "bad-id");
    assert_eq!(at(&e), ("light.ABC.id", 7, 6, 7, 11));
    let d = run(&format!(
        "{HEAD}[[light]]\nname = \"l\"\nposition = [0, 0, 0]\nintensity = 1\n"
    ));
    let w = one(&d, "missing-id");
    assert_eq!(
        (w.severity, at(&w)),
        (Severity::Warning, ("light.0", 6, 1, 6, 10))
    );
    assert!(errors(&d).is_empty());
    let l = |n: &str| {
        format!(
            "[[light]]\nid = \"hhhhhhhh01\"\nname = \"{n}\"\nposition = [0, 0, 0]\nintensity = 1\n"
        )
    };
    let d = run(&format!("{HEAD}{}{}", l("a"), l("b")));
    let e = one(&d, "duplicate-id");
    assert_eq!(at(&e), ("light.hhhhhhhh01.id", 12, 6, 12, 18));
    assert_eq!(e.related.len(), 1);
    assert_eq!((e.related[0].line, e.related[0].column), (7, 6));
    assert_eq!(e.related[0].file, PathBuf::from("t.scene.toml"));
    // Across files: a material's id taken by a mesh.
    let d = run(&format!(
        "{HEAD}[mesh.n]\nid = \"wwwwwwww01\"\nfile = \"m.glb\"\n"
    ));
    let e = one(&d, "duplicate-id");
    assert_eq!(e.file, PathBuf::from("lib.materials.toml"));
    assert_eq!(e.related[0].file, PathBuf::from("t.scene.toml"));
}

#[test]
fn references_resolve_to_keys() {
    let head = HEAD.replacen(
        "materials = [",
        "fallback = \"wwwwwwww02\"\nmaterials = [",
        1,
    );
    let text = format!(
        "{head}{}{}",
        obj(
            "aaaaaaaa01",
            "a",
            "material = \"wwwwwwww01\"\nmaterials = { leg = \"red\" }\n"
        ),
        obj("aaaaaaaa02", "b", "parent = \"aaaaaaaa01\"\n")
    );
    let dir = project(&text);
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    assert_eq!(s.fallback.as_deref(), Some("red"));
    assert_eq!(s.objects[0].material.as_deref(), Some("white"));
    assert_eq!(
        s.objects[0].materials,
        vec![("leg".to_string(), "red".to_string())]
    );
    assert_eq!(s.objects[1].parent.as_deref(), Some("a"));
    assert_eq!(s.objects[1].mesh, "m");
    let d = run(&format!(
        "{HEAD}{}",
        obj("aaaaaaaa01", "a", "").replace("mesh = \"m\"", "mesh = \"nope\"")
    ));
    let e = one(&d, "bad-reference");
    assert_eq!(at(&e), ("object.aaaaaaaa01.mesh", 9, 8, 9, 14));
    assert!(
        e.message.contains("no mesh has the id or name \"nope\""),
        "{}",
        e.message
    );
}

#[test]
fn names_twice_and_ambiguous() {
    let d = run(&format!(
        "{HEAD}{}{}{}",
        obj("aaaaaaaa01", "a", ""),
        obj("aaaaaaaa02", "a", ""),
        obj("aaaaaaaa03", "c", "parent = \"a\"\n")
    ));
    let e = one(&d, "duplicate-name");
    assert_eq!(at(&e), ("object.aaaaaaaa02.name", 12, 8, 12, 11));
    assert_eq!(e.related[0].line, 8);
    let e = one(&d, "ambiguous-reference");
    assert_eq!(at(&e), ("object.aaaaaaaa03.parent", 18, 10, 18, 13));
    assert_eq!(
        e.related.iter().map(|r| r.line).collect::<Vec<_>>(),
        [8, 12]
    );
    // A material in two libraries.
    let dir = project(&HEAD.replace(
        "[\"lib.materials.toml\"]",
        "[\"lib.materials.toml\", \"b.materials.toml\"]",
    ));
    std::fs::write(
        dir.path().join("b.materials.toml"),
        "format = 1\n[materials.red]\nid = \"wwwwwwww03\"\n",
    )
    .unwrap();
    let d = load(&dir.path().join("t.scene.toml")).unwrap_err();
    let e = one(&d, "duplicate-name");
    assert_eq!(e.file, PathBuf::from("b.materials.toml"));
    assert_eq!((e.key.as_str(), e.line, e.column), ("materials.red", 2, 1));
    assert!(
        e.message.contains("lib.materials.toml") && e.message.contains("b.materials.toml"),
        "{}",
        e.message
    );
    assert_eq!(e.related[0].file, PathBuf::from("lib.materials.toml"));
}

#[test]
fn bad_names() {
    let d = run(&format!("{HEAD}{}", obj("aaaaaaaa01", " a", "")));
    assert_eq!(
        at(&one(&d, "bad-name")),
        ("object.aaaaaaaa01.name", 8, 8, 8, 12)
    );
}

#[test]
fn bad_paths() {
    let mesh = |p: &str| format!("format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"{p}\"\n");
    for (p, code) in [
        ("/m.glb", "bad-path"),
        ("a\\\\m.glb", "bad-path"),
        ("", "bad-path"),
        ("../m.glb", "outside-root"),
        ("nope.glb", "missing-file"),
    ] {
        let d = run(&mesh(p));
        let e = one(&d, code);
        let len = p.chars().count() as u32 + 2;
        assert_eq!(at(&e), ("mesh.m.file", 4, 8, 4, 8 + len), "{p}: {e:#?}");
    }
    // A .. that stays inside the root is allowed, and normalised.
    let dir = project(&mesh("x/../m.glb"));
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    assert_eq!(s.meshes[0].file, PathBuf::from("m.glb"));
}

#[test]
fn path_case_is_refused_on_every_os() {
    let dir = project("format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"sub/mesh.glb\"\n");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/Mesh.glb"), "x").unwrap();
    let d = load(&dir.path().join("t.scene.toml")).unwrap_err();
    let e = one(&d, "path-case");
    assert_eq!(at(&e), ("mesh.m.file", 4, 8, 4, 22));
    assert!(e.message.contains("sub/Mesh.glb"), "{}", e.message);
    // A folder of another case too.
    let dir = project("format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"SUB/Mesh.glb\"\n");
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/Mesh.glb"), "x").unwrap();
    assert_eq!(
        one(
            &load(&dir.path().join("t.scene.toml")).unwrap_err(),
            "path-case"
        )
        .key,
        "mesh.m.file"
    );
}

#[test]
fn formats() {
    let d = run("format = 2\n");
    let e = one(&d, "newer-format");
    assert_eq!(at(&e), ("format", 1, 10, 1, 11));
    assert!(e.message.contains("format 1"));
    // Format 0 is read through the migration (scene::migrate): one warning, no error.
    let d = run("[camera]\nfov = 30\n");
    let e = one(&d, "old-format");
    assert_eq!(at(&e), ("format", 1, 1, 1, 1));
    assert_eq!(e.severity, Severity::Warning);
    assert_eq!(errors(&d).len(), 0);
}

#[test]
fn unreadable_syntax_not_utf8() {
    let dir = project("format = 1\n");
    let d = load(&dir.path().join("none.scene.toml")).unwrap_err();
    let e = one(&d, "unreadable");
    assert_eq!(
        (e.line, e.column, e.file.clone()),
        (1, 1, PathBuf::from("none.scene.toml"))
    );
    let d = run("format = 1\n[camera\n");
    let e = one(&d, "syntax");
    assert_eq!((e.line, e.file.clone()), (2, PathBuf::from("t.scene.toml")));
    let dir = project("");
    std::fs::write(
        dir.path().join("t.scene.toml"),
        b"format = 1\nx = \"\xff\"\n",
    )
    .unwrap();
    let d = load(&dir.path().join("t.scene.toml")).unwrap_err();
    assert_eq!(at(&one(&d, "not-utf8")), ("", 2, 6, 2, 7));
    // A library that does not parse is reported in its own file.
    let dir = project(HEAD);
    std::fs::write(
        dir.path().join("lib.materials.toml"),
        "format = 1\n[materials.a\n",
    )
    .unwrap();
    let e = one(
        &load(&dir.path().join("t.scene.toml")).unwrap_err(),
        "syntax",
    );
    assert_eq!(
        (e.file.clone(), e.line),
        (PathBuf::from("lib.materials.toml"), 2)
    );
}
