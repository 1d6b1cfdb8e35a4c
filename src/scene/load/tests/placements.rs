//! Placements: the spec's lamp, overrides checked against the prefab and applied,
//! nested placements namespaced, hidden and dynamic reaching down, tile layers, rigs and
//! proxies reaching placed objects.

use super::*;

#[test]
fn lamp_placements_resolve_as_the_spec_says() {
    let s = load(&data("lamp/desk.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    assert!(s.warnings.is_empty(), "{:#?}", s.warnings);
    let keys: Vec<(&str, Option<&str>, Option<&str>)> = s
        .objects
        .iter()
        .map(|o| (o.key.as_str(), o.id.as_deref(), o.parent.as_deref()))
        .collect();
    assert_eq!(
        keys,
        [
            ("desk", Some("desk000001"), None),
            (
                "left lamp/shade",
                Some("q8w2e6r4ty/shade00001"),
                Some("left lamp")
            ),
            (
                "left lamp/stem",
                Some("q8w2e6r4ty/stem000001"),
                Some("left lamp/shade")
            ),
            (
                "right lamp/shade",
                Some("r8ght0amp0/shade00001"),
                Some("right lamp")
            ),
            (
                "right lamp/stem",
                Some("r8ght0amp0/stem000001"),
                Some("right lamp/shade")
            ),
        ]
    );
    let groups: Vec<(&str, &Path, Option<&str>)> = s
        .groups
        .iter()
        .map(|g| (g.key.as_str(), g.prefab.as_path(), g.parent.as_deref()))
        .collect();
    let lamp = Path::new("props/lamp.prefab.toml");
    assert_eq!(
        groups,
        [
            ("left lamp", lamp, Some("desk")),
            ("right lamp", lamp, Some("desk"))
        ]
    );
    assert_eq!(
        (s.groups[0].at, s.groups[0].rotate, s.groups[1].scale),
        ([-1.2, 0.0, 0.4], [0.0, 30.0, 0.0], [2.0; 3])
    );
    // Placed meshes are the placement's, keyed under it.
    let mesh_of = |k: &str| s.objects.iter().find(|o| o.key == k).unwrap();
    assert_eq!(mesh_of("left lamp/shade").mesh, "left lamp/shade");
    assert_eq!(mesh_of("right lamp/stem").mesh, "right lamp/shade");
    assert!(s
        .meshes
        .iter()
        .any(|m| m.key == "right lamp/shade" && m.file == Path::new("meshes/lamp.glb")));
    // The overrides: a material reference resolved inside the prefab, a light's intensity,
    // a material of the prefab's library for one placement, a scale.
    assert_eq!(
        mesh_of("left lamp/shade").material.as_deref(),
        Some("brass")
    );
    assert_eq!(
        mesh_of("right lamp/shade").material.as_deref(),
        Some("right lamp/cloth")
    );
    assert_eq!(mesh_of("right lamp/stem").scale, [0.5; 3]);
    assert_eq!(mesh_of("left lamp/stem").scale, [0.1, 1.0, 0.1]);
    let mat = |k: &str| s.materials.iter().find(|m| m.key == k).unwrap();
    assert_eq!(mat("cloth").base, [0.9, 0.85, 0.7]);
    assert_eq!(
        (
            mat("right lamp/cloth").base,
            mat("right lamp/cloth").roughness
        ),
        ([1.0, 0.0, 0.0], 0.9)
    );
    assert_eq!(
        mat("right lamp/cloth").library,
        PathBuf::from("props/lamp.materials.toml")
    );
    let lights: Vec<(&str, Option<&str>, f32)> = s
        .lights
        .iter()
        .map(|l| (l.key.as_str(), l.parent.as_deref(), l.intensity))
        .collect();
    assert_eq!(
        lights,
        [
            ("left lamp/bulb", Some("left lamp"), 3.0),
            ("right lamp/bulb", Some("right lamp"), 1.0)
        ]
    );
    assert_eq!(s.lights[0].id.as_deref(), Some("q8w2e6r4ty/b8bb000001"));
    assert!(s.files.contains(&PathBuf::from("props/lamp.prefab.toml")));
    assert!(s
        .files
        .contains(&PathBuf::from("props/lamp.materials.toml")));
    assert!(s.objects.iter().all(|o| !o.dynamic && !o.hidden));
}

const LAMP: &str = "format = 1\nmaterials = [\"lib.materials.toml\"]\n[mesh.shade]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n[[object]]\nid = \"aaaaaaaa01\"\nname = \"shade\"\nmesh = \"shade\"\nmaterial = \"white\"\n[[light]]\nid = \"hhhhhhhh01\"\nname = \"bulb\"\nposition = [0, 1, 0]\nintensity = 1\n";
const LIB: &str = "format = 1\n[materials.white]\nid = \"wwwwwwww01\"\n";

/// A scene placing lamp.prefab.toml once, with `set` lines (line 6 on).
fn placed(set: &str) -> tempfile::TempDir {
    tree(&[
        ("lamp.prefab.toml", LAMP),
        ("lib.materials.toml", LIB),
        (
            "t.scene.toml",
            &format!("format = 1\n[[object]]\nid = \"pppppppp01\"\nname = \"l\"\nprefab = \"lamp.prefab.toml\"\n[object.set]\n{set}"),
        ),
    ])
}

/// A crate with a body placed inside a rig: a shelf (an ordinary object), the crate's
/// placement at the root, and a mover of the shelf; the scene places the rig with `set`
/// lines (line 6 on).
fn rig_placed(set: &str) -> tempfile::TempDir {
    let body = "[object.body]\nkind = \"dynamic\"\nshape = \"box\"\nhalf = [0.5, 0.5, 0.5]\n";
    tree(&[
        (
            "crate.prefab.toml",
            &format!("format = 1\n[mesh.m]\nid = \"mmmmmmmm02\"\nfile = \"m.glb\"\n[[object]]\nid = \"cccccccc01\"\nname = \"crate\"\nmesh = \"m\"\n{body}"),
        ),
        (
            "rig.prefab.toml",
            "format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n[[object]]\nid = \"ssssssss01\"\nname = \"shelf\"\nmesh = \"m\"\n[[object]]\nid = \"nnnnnnnn01\"\nname = \"inner\"\nprefab = \"crate.prefab.toml\"\n[[mover]]\nid = \"vvvvvvvv01\"\nname = \"spin\"\nobjects = [\"shelf\"]\nkind = \"turn\"\npivot = [0.0, 3.0, 0.0]\naxis = [0.0, 1.0, 0.0]\ntravel = [0.0, 360.0]\nperiod = 4.0\n",
        ),
        (
            "t.scene.toml",
            &format!("format = 1\n[[object]]\nid = \"pppppppp01\"\nname = \"r\"\nprefab = \"rig.prefab.toml\"\n[object.set]\n{set}"),
        ),
    ])
}

#[test]
fn a_body_an_override_misplaces_is_the_overrides_fault() {
    // As written, the body sits under placements no mover moves: clean.
    let dir = rig_placed("");
    let r = load(&dir.path().join("t.scene.toml"));
    assert!(r.is_ok(), "{:#?}", r.err());

    let loc = |d: &Diagnostic| -> Vec<(String, u32, u32)> {
        d.related
            .iter()
            .map(|r| (r.file.display().to_string(), r.line, r.column))
            .collect()
    };
    // An override puts the crate's placement under the ordinary shelf.
    let dir = rig_placed("\"inner.parent\" = \"shelf\"\n");
    let d = errs_of(&dir, "t.scene.toml");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "bad-override");
    assert_eq!(d[0].file, Path::new("t.scene.toml"));
    assert_eq!(
        at(&d[0]),
        ("object.pppppppp01.set.\"inner.parent\"", 7, 1, 7, 15)
    );
    assert!(
        d[0].message.contains("\"r/shelf\" is an ordinary object"),
        "{}",
        d[0].message
    );
    assert_eq!(
        loc(&d[0]),
        [
            ("crate.prefab.toml".into(), 5, 1),
            ("rig.prefab.toml".into(), 5, 1)
        ]
    );

    // An override has the mover move the crate's placement.
    let dir = rig_placed("\"spin.objects\" = [\"inner\"]\n");
    let d = errs_of(&dir, "t.scene.toml");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, "bad-override");
    assert_eq!(d[0].file, Path::new("t.scene.toml"));
    assert_eq!(
        at(&d[0]),
        ("object.pppppppp01.set.\"spin.objects\"", 7, 1, 7, 15)
    );
    assert!(d[0].message.contains("moved placement"), "{}", d[0].message);
    assert_eq!(
        loc(&d[0]),
        [
            ("crate.prefab.toml".into(), 5, 1),
            ("rig.prefab.toml".into(), 9, 1)
        ]
    );

    // Written in the prefab itself, it stays the body's bad-value.
    let dir = tree(&[(
        "p.prefab.toml",
        "format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n[[object]]\nid = \"ssssssss01\"\nname = \"shelf\"\nmesh = \"m\"\n[[object]]\nid = \"cccccccc01\"\nname = \"crate\"\nmesh = \"m\"\nparent = \"shelf\"\n[object.body]\nkind = \"dynamic\"\nshape = \"box\"\nhalf = [0.5, 0.5, 0.5]\n",
    )]);
    let d = load_prefab(&dir.path().join("p.prefab.toml"));
    let e: Vec<&Diagnostic> = errors(&d);
    assert_eq!(e.len(), 1, "{d:#?}");
    assert_eq!(
        (e[0].code, e[0].key.as_str()),
        ("bad-value", "object.cccccccc01.body")
    );
    assert_eq!(e[0].file, Path::new("p.prefab.toml"));
    assert_eq!(at(e[0]), ("object.cccccccc01.body", 14, 9, 14, 13));
}

#[test]
fn a_body_a_scene_misplaces_is_reported_at_the_scenes_key() {
    let body = "[object.body]\nkind = \"dynamic\"\nshape = \"box\"\nhalf = [0.5, 0.5, 0.5]\n";
    let crate_prefab = format!("format = 1\n[mesh.m]\nid = \"mmmmmmmm02\"\nfile = \"m.glb\"\n[[object]]\nid = \"cccccccc01\"\nname = \"crate\"\nmesh = \"m\"\n{body}");
    let scene = |tail: &str| {
        format!("format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n[[object]]\nid = \"ssssssss01\"\nname = \"shelf\"\nmesh = \"m\"\n[[object]]\nid = \"pppppppp01\"\nname = \"c\"\nprefab = \"crate.prefab.toml\"\n{tail}")
    };
    // The placement's own `parent` puts the prefab's body under the ordinary shelf.
    let dir = tree(&[
        ("crate.prefab.toml", &crate_prefab),
        ("t.scene.toml", &scene("parent = \"shelf\"\n")),
    ]);
    let d = errs_of(&dir, "t.scene.toml");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        (d[0].code, d[0].file.as_path()),
        ("bad-value", Path::new("t.scene.toml"))
    );
    assert_eq!(at(&d[0]), ("object.pppppppp01.parent", 13, 1, 13, 7));
    let rel: Vec<(String, u32)> = d[0]
        .related
        .iter()
        .map(|r| (r.file.display().to_string(), r.line))
        .collect();
    assert_eq!(
        rel,
        [("crate.prefab.toml".into(), 5), ("t.scene.toml".into(), 5)]
    );

    // A mover of the scene moves the placement above the body.
    let dir = tree(&[
        ("crate.prefab.toml", &crate_prefab),
        ("t.scene.toml", &scene("[[mover]]\nid = \"vvvvvvvv01\"\nname = \"spin\"\nobjects = [\"c\"]\nkind = \"turn\"\npivot = [0.0, 3.0, 0.0]\naxis = [0.0, 1.0, 0.0]\ntravel = [0.0, 360.0]\nperiod = 4.0\n")),
    ]);
    let d = errs_of(&dir, "t.scene.toml");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(
        (d[0].code, d[0].file.as_path()),
        ("bad-value", Path::new("t.scene.toml"))
    );
    assert_eq!(at(&d[0]), ("mover.vvvvvvvv01.objects.0", 16, 12, 16, 15));
    assert!(d[0].message.contains("moved placement"), "{}", d[0].message);
}

#[test]
fn overrides_are_checked_against_the_prefab() {
    let code = |set: &str| {
        let dir = placed(set);
        let d = errs_of(&dir, "t.scene.toml");
        assert_eq!(errors(&d).len(), 1, "{set}: {d:#?}");
        let e = d[0].clone();
        (e.code, e.key, e.line, e.column, e.message)
    };
    let (c, k, l, col, m) = code("\"lamp.intensity\" = 2\n");
    assert_eq!(
        (c, k.as_str(), l, col),
        (
            "bad-override",
            "object.pppppppp01.set.\"lamp.intensity\"",
            7,
            1
        )
    );
    assert!(m.contains("no entry of `lamp.prefab.toml`"), "{m}");
    let (c, _, l, _, m) = code("\"bulb.glow\" = 2\n");
    assert_eq!((c, l), ("bad-override", 7));
    assert!(
        m.contains("takes no key `glow`") && m.contains("intensity"),
        "{m}"
    );
    let (c, _, l, col, _) = code("\"bulb.intensity\" = \"bright\"\n");
    assert_eq!((c, l, col), ("bad-override", 7, 20));
    let (c, _, _, _, m) = code("\"bulb.intensity\" = -1\n");
    assert!(c == "bad-override" && m.contains("≥ 0"), "{m}");
    // A reference in an override resolves inside the prefab: the scene's names are not seen.
    let (c, _, _, _, m) = code("\"shade.material\" = \"gold\"\n");
    assert!(
        c == "bad-override" && m.contains("inside the prefab"),
        "{m}"
    );
    let (c, _, _, _, _) = code("\"shade.name\" = \"x\"\n");
    assert_eq!(c, "bad-override");
    let (c, _, _, _, _) = code("shade = 1\n");
    assert_eq!(c, "bad-override");
    // Key paths into sub-tables and maps; a key the entry takes but doesn't hold yet.
    let dir = placed("\"shade.materials.lid\" = \"white\"\n\"shade.two_sided\" = true\n\"shade.body.kind\" = \"fixed\"\n\"bulb.color\" = [1, 0, 0]\n");
    let s = scene_of(&dir, "t.scene.toml");
    assert_eq!(
        s.objects[0].materials,
        [("lid".to_string(), "white".to_string())]
    );
    assert!(s.objects[0].two_sided);
    assert_eq!(s.lights[0].color, [1.0, 0.0, 0.0]);
    assert_eq!(s.lights[0].position, [0.0, 1.0, 0.0]);
}

#[test]
fn nested_placements_namespace_and_override_through() {
    let outer = "format = 1\n[[object]]\nid = \"nnnnnnnn01\"\nname = \"inner\"\nprefab = \"lamp.prefab.toml\"\nat = [0, 2, 0]\n[object.set]\n\"bulb.intensity\" = 5\n";
    let dir = tree(&[
        ("lamp.prefab.toml", LAMP),
        ("lib.materials.toml", LIB),
        ("outer.prefab.toml", outer),
        (
            "t.scene.toml",
            "format = 1\n[[object]]\nid = \"pppppppp01\"\nname = \"o\"\nprefab = \"outer.prefab.toml\"\ndynamic = true\n[object.set]\n\"nnnnnnnn01/hhhhhhhh01.radius\" = 0.5\n\"inner.at\" = [0, 3, 0]\n[[mover]]\nid = \"vvvvvvvv01\"\nname = \"m\"\nobjects = [\"pppppppp01/nnnnnnnn01/aaaaaaaa01\"]\nkind = \"slide\"\naxis = [0, 1, 0]\ntravel = [0, 1]\n",
        ),
    ]);
    let s = scene_of(&dir, "t.scene.toml");
    let g: Vec<(&str, Option<&str>, [f32; 3], bool)> = s
        .groups
        .iter()
        .map(|g| (g.key.as_str(), g.id.as_deref(), g.at, g.dynamic))
        .collect();
    assert_eq!(
        g,
        [
            ("o", Some("pppppppp01"), [0.0; 3], true),
            (
                "o/inner",
                Some("pppppppp01/nnnnnnnn01"),
                [0.0, 3.0, 0.0],
                true
            )
        ]
    );
    let o = &s.objects[0];
    assert_eq!(
        (
            o.key.as_str(),
            o.id.as_deref(),
            o.parent.as_deref(),
            o.dynamic
        ),
        (
            "o/inner/shade",
            Some("pppppppp01/nnnnnnnn01/aaaaaaaa01"),
            Some("o/inner"),
            true
        )
    );
    let l = &s.lights[0];
    assert_eq!(
        (l.key.as_str(), l.parent.as_deref(), l.intensity, l.radius),
        ("o/inner/bulb", Some("o/inner"), 5.0, 0.5)
    );
    assert!(s.materials.iter().any(|m| m.key == "white"));
}

#[test]
fn hidden_and_dynamic_reach_down() {
    let dir = tree(&[
        ("lamp.prefab.toml", &format!("{LAMP}[[object]]\nid = \"aaaaaaaa02\"\nname = \"still\"\nmesh = \"shade\"\ndynamic = false\n")),
        ("lib.materials.toml", LIB),
        (
            "t.scene.toml",
            &format!(
                "format = 1\n[mesh.m]\nid = \"mmmmmmmm09\"\nfile = \"m.glb\"\n[[object]]\nid = \"pppppppp01\"\nname = \"a\"\nprefab = \"lamp.prefab.toml\"\nhidden = true\ndynamic = true\n{}{}",
                obj("bbbbbbbb01", "box", "hidden = true\n"),
                obj("bbbbbbbb02", "lid", "parent = \"box\"\n")
            ),
        ),
    ]);
    let s = scene_of(&dir, "t.scene.toml");
    let got: Vec<(&str, bool, bool)> = s
        .objects
        .iter()
        .map(|o| (o.key.as_str(), o.hidden, o.dynamic))
        .collect();
    // A placement's hidden hides all it places; an ordinary parent's hides only itself.
    assert_eq!(
        got,
        [
            ("box", true, false),
            ("lid", false, false),
            ("a/shade", true, true),
            ("a/still", true, false)
        ]
    );
}

#[test]
fn tile_layers_of_the_spec_place_their_cells() {
    let pre = |n: &str| {
        format!(
            "format = 1\n[mesh.m]\nfile = \"m.glb\"\n[[object]]\nname = \"{n}\"\nmesh = \"m\"\n"
        )
    };
    let dir = tree(&[
        ("tiles/brick.prefab.toml", &pre("b")),
        ("tiles/spike.prefab.toml", &pre("s")),
        ("tiles/wall.prefab.toml", &pre("w")),
        (
            "t.scene.toml",
            "format = 1\n\n[[tiles]]\nid = \"gr0nd00001\"\nname = \"ground\"\ncell = 0.5\norigin = [-4.0, 0.0, 0.0]\npalette = { \"#\" = \"tiles/brick.prefab.toml\", \"^\" = \"tiles/spike.prefab.toml\" }\nrows = [\n  \"....^...\",\n  \"########\",\n]\n\n[[tiles]]\nid = \"f100r00001\"\nname = \"floor plan\"\ncell = [2.0, 3.0]\nplane = \"xz\"\npalette = { wall = \"tiles/wall.prefab.toml\" }\ncells = [{ at = [0, 0], tile = \"wall\" }, { at = [-1, 2], tile = \"wall\" }]\n",
        ),
    ]);
    let s = load(&dir.path().join("t.scene.toml")).unwrap_or_else(|d| panic!("{d:#?}"));
    let ground = &s.tiles[0];
    assert_eq!(
        (ground.key.as_str(), ground.cell, ground.plane),
        ("ground", [0.5, 0.5], Plane::Xy)
    );
    assert_eq!(ground.cells[0], ([4, 1], "^".to_string()));
    assert_eq!(ground.cells.len(), 9);
    assert_eq!(ground.position([4, 1]), [-2.0, 0.5, 0.0]);
    assert_eq!(ground.position([7, 0]), [-0.5, 0.0, 0.0]);
    assert_eq!(
        ground.palette[1],
        ("^".to_string(), PathBuf::from("tiles/spike.prefab.toml"))
    );
    let plan = &s.tiles[1];
    assert_eq!((plan.cell, plan.plane), ([2.0, 3.0], Plane::Xz));
    assert_eq!(plan.position([-1, 2]), [-2.0, 0.0, -6.0]);
    let yz = Tiles {
        cell: [2.0, 3.0],
        origin: [1.0, 2.0, 3.0],
        plane: Plane::Yz,
        ..Tiles::default()
    };
    assert_eq!(yz.position([1, 1]), [1.0, 5.0, 1.0]);
    // Each filled cell is a group at its position, unturned, unscaled, with no id.
    let groups: Vec<(&str, [f32; 3])> = s.groups.iter().map(|g| (g.key.as_str(), g.at)).collect();
    assert_eq!(groups.len(), 11);
    assert_eq!(groups[0], ("ground/4,1", [-2.0, 0.5, 0.0]));
    assert_eq!(groups[1], ("ground/0,0", [-4.0, 0.0, 0.0]));
    assert_eq!(groups[9], ("floor plan/0,0", [0.0; 3]));
    assert_eq!(groups[10], ("floor plan/-1,2", [-2.0, 0.0, -6.0]));
    assert!(s
        .groups
        .iter()
        .all(|g| g.id.is_none() && g.rotate == [0.0; 3] && g.scale == [1.0; 3]));
    let spike = s.objects.iter().find(|o| o.key == "ground/4,1/s").unwrap();
    assert_eq!(
        (
            spike.parent.as_deref(),
            spike.id.as_deref(),
            spike.mesh.as_str()
        ),
        (Some("ground/4,1"), None, "ground/4,1/m")
    );
    assert_eq!(s.objects.len(), 11);
    assert!(s.files.contains(&PathBuf::from("tiles/wall.prefab.toml")));
}

#[test]
fn a_prefab_includes_prefabs_and_proxies_reach_placed_objects() {
    let dir = tree(&[
        ("lamp.prefab.toml", &format!("{}include = [\"base.prefab.toml\"]\n{}", &LAMP[..11], &LAMP[11..])),
        ("base.prefab.toml", &format!("format = 1\n{}", light("base"))),
        ("lib.materials.toml", LIB),
        ("t.proxies.toml", "format = 1\n[[proxy]]\nid = \"xxxxxxxx01\"\nobject = \"l/shade\"\nkind = \"box\"\nsize = [1, 1, 1]\n[[proxy]]\nid = \"xxxxxxxx02\"\nobject = \"pppppppp01/aaaaaaaa01\"\nkind = \"box\"\nsize = [1, 1, 1]\n[[proxy]]\nid = \"xxxxxxxx03\"\nobject = \"l\"\nkind = \"box\"\nsize = [1, 1, 1]\n"),
        (
            "t.scene.toml",
            "format = 1\n[[object]]\nid = \"pppppppp01\"\nname = \"l\"\nprefab = \"lamp.prefab.toml\"\n[plates]\ndir = \"plates\"\nproxies = \"t.proxies.toml\"\n",
        ),
    ]);
    let d = errs_of(&dir, "t.scene.toml");
    // The first two name the placed shade; the third names the placement itself.
    let e = one(&d, "bad-reference");
    assert_eq!(
        (e.file.clone(), e.line, e.key.as_str()),
        (
            PathBuf::from("t.proxies.toml"),
            14,
            "proxy.xxxxxxxx03.object"
        )
    );
    assert_eq!(errors(&d).len(), 1, "{d:#?}");
    std::fs::write(dir.path().join("t.proxies.toml"), "format = 1\n").unwrap();
    let s = scene_of(&dir, "t.scene.toml");
    let keys: Vec<&str> = s.lights.iter().map(|l| l.key.as_str()).collect();
    assert_eq!(keys, ["l/base", "l/bulb"]);
}

#[test]
fn rigs_proxies_and_layers_reach_the_model() {
    let dir = tree(&[
        ("project.toml", "format = 1\n[project]\nname = \"t\"\n[layers]\nworld = [\"world\", \"hero\"]\nhero = [\"world\"]\n"),
        ("lamp.prefab.toml", LAMP),
        ("lib.materials.toml", LIB),
        (
            "t.proxies.toml",
            "format = 1\n[[proxy]]\nobject = \"hero\"\nkind = \"box\"\nat = [1, 2, 3]\nrotate = [0, 90, 0]\nsize = [0.5, 1, 2]\n[[proxy]]\nobject = \"pppppppp01/aaaaaaaa01\"\nkind = \"hull\"\npoints = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]\ntriangles = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]\n[[proxy]]\nid = \"xxxxxxxx01\"\nobject = \"l/shade\"\nkind = \"box\"\nsize = [1, 1, 1]\n",
        ),
        (
            "t.scene.toml",
            "format = 1\nmaterials = [\"lib.materials.toml\"]\n[mesh.box]\nfile = \"m.glb\"\n[[object]]\nid = \"her0000001\"\nname = \"hero\"\nmesh = \"box\"\n[[object]]\nid = \"pppppppp01\"\nname = \"l\"\nprefab = \"lamp.prefab.toml\"\n\n[[rig]]\nid = \"s1dec4m001\"\nname = \"side\"\nkind = \"follow\"\ntarget = \"hero\"\noffset = [0.0, 1.0, 10.0]\ndead_zone = [0.5, 0.25]\nlook_ahead = 1.5\nbounds = { min = [-20.0, 0.0, 10.0], max = [20.0, 8.0, 10.0] }\northographic = 9.0\nsnap = 16.0\n\n[[rig]]\nname = \"eyes\"\nkind = \"first-person\"\ntarget = \"her0000001\"\n[[rig]]\nname = \"chase\"\nkind = \"follow\"\n[[rig]]\nname = \"trail\"\nkind = \"follow\"\ntarget = \"hero\"\n[camera]\nat = [1.0, 2.0, 8.0]\nlook_at = [0.0, 1.0, 0.0]\n[plates]\ndir = \"plates\"\nproxies = \"t.proxies.toml\"\n",
        ),
    ]);
    let s = scene_of(&dir, "t.scene.toml");

    // The spec's follow rig, its target rewritten to the object's key.
    let side = &s.rigs[0];
    assert_eq!(
        (side.key.as_str(), side.id.as_deref(), side.kind),
        ("side", Some("s1dec4m001"), RigKind::Follow)
    );
    assert_eq!(side.target.as_deref(), Some("hero"));
    assert_eq!(side.offset, Some([0.0, 1.0, 10.0]));
    assert_eq!((side.dead_zone, side.look_ahead), ([0.5, 0.25], 1.5));
    assert_eq!(side.bounds, Some(([-20.0, 0.0, 10.0], [20.0, 8.0, 10.0])));
    assert_eq!((side.orthographic, side.snap), (Some(9.0), Some(16.0)));
    assert_eq!(side.damping, [0.0; 3]);
    // A target by id becomes the key too; a first-person rig's defaults are the spec's.
    let eyes = &s.rigs[1];
    assert_eq!(
        (eyes.kind, eyes.target.as_deref(), eyes.offset),
        (RigKind::FirstPerson, Some("hero"), Some([0.0; 3]))
    );
    assert_eq!(
        (
            eyes.sensitivity,
            eyes.invert,
            eyes.smoothing,
            eyes.pitch,
            eyes.head_bob
        ),
        (1.0, false, 0.0, [-85.0, 85.0], 0.0)
    );
    // A follow rig without offset and target has no default to give; with a target, its
    // default is `[camera] at` less the target's place at rest (hero at the origin).
    assert_eq!(
        (s.rigs[2].target.as_deref(), s.rigs[2].offset),
        (None, None)
    );
    assert_eq!(
        (s.rigs[3].target.as_deref(), s.rigs[3].offset),
        (Some("hero"), Some([1.0, 2.0, 8.0]))
    );
    assert_eq!(s.rigs.len(), 4);

    // Proxies keyed by place, each object rewritten to its key in the scene.
    let keys: Vec<(usize, &str)> = s
        .proxies
        .iter()
        .map(|p| (p.key, p.object.as_str()))
        .collect();
    assert_eq!(keys, [(0, "hero"), (1, "l/shade"), (2, "l/shade")]);
    let b = &s.proxies[0];
    assert_eq!(
        (b.kind, b.at, b.rotate, b.size),
        (
            ProxyKind::Box,
            [1.0, 2.0, 3.0],
            [0.0, 90.0, 0.0],
            [0.5, 1.0, 2.0]
        )
    );
    let h = &s.proxies[1];
    assert_eq!(
        (h.kind, h.points.len(), h.points[3]),
        (ProxyKind::Hull, 4, [0.0, 0.0, 1.0])
    );
    assert_eq!(h.triangles, [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]);
    assert_eq!(s.proxies[2].id.as_deref(), Some("xxxxxxxx01"));
    assert_eq!(s.proxies[2].at_loc.line, 13);

    // The project's layers, as written.
    let layers: Vec<(&str, Vec<&str>)> = s
        .layers
        .iter()
        .map(|(k, v)| (k.as_str(), v.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        layers,
        [("hero", vec!["world"]), ("world", vec!["world", "hero"])]
    );

    // Without [layers], none.
    std::fs::write(
        dir.path().join("project.toml"),
        "format = 1\n[project]\nname = \"t\"\n",
    )
    .unwrap();
    assert!(scene_of(&dir, "t.scene.toml").layers.is_empty());
}
