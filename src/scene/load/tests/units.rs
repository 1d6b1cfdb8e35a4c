//! Units: includes merged in order, one-file tables held twice, include and prefab chains
//! 64 deep read and 65 refused without recursion, and cycles named with their chain.

use super::*;

#[test]
fn includes_merge_first_in_order_depth_first() {
    let dir = tree(&[
        (
            "t.scene.toml",
            &format!(
                "format = 1\ninclude = [\"a.scene.toml\", \"b.scene.toml\"]\n{}",
                light("t")
            ),
        ),
        (
            "a.scene.toml",
            &format!("format = 1\ninclude = [\"c.scene.toml\"]\n{}", light("a")),
        ),
        ("b.scene.toml", &format!("format = 1\n{}", light("b"))),
        ("c.scene.toml", &format!("format = 1\n{}", light("c"))),
    ]);
    let s = scene_of(&dir, "t.scene.toml");
    let keys: Vec<&str> = s.lights.iter().map(|l| l.key.as_str()).collect();
    assert_eq!(keys, ["c", "a", "b", "t"]);
    for f in ["a.scene.toml", "b.scene.toml", "c.scene.toml"] {
        assert!(s.files.contains(&PathBuf::from(f)), "{f} in {:?}", s.files);
    }
    // Names, references and ids across the files of a scene and its includes.
    let dir = tree(&[
        (
            "t.scene.toml",
            "format = 1\ninclude = [\"a.scene.toml\"]\n[[object]]\nid = \"aaaaaaaa01\"\nname = \"o\"\nmesh = \"m\"\n",
        ),
        (
            "a.scene.toml",
            "format = 1\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n",
        ),
    ]);
    let s = scene_of(&dir, "t.scene.toml");
    assert_eq!(s.objects[0].mesh, "m");
    let dir = tree(&[
        (
            "t.scene.toml",
            &format!("format = 1\ninclude = [\"a.scene.toml\"]\n{}", light("x")),
        ),
        ("a.scene.toml", &format!("format = 1\n{}", light("x"))),
    ]);
    let d = errs_of(&dir, "t.scene.toml");
    let e = one(&d, "duplicate-name");
    assert_eq!((e.file.clone(), e.line), (PathBuf::from("t.scene.toml"), 4));
    assert_eq!(rel(&e), [("a.scene.toml".to_string(), 3, 8)]);
    let dir = tree(&[
        (
            "t.scene.toml",
            "format = 1\ninclude = [\"a.scene.toml\"]\n[mesh.m]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n",
        ),
        (
            "a.scene.toml",
            "format = 1\n[mesh.n]\nid = \"mmmmmmmm01\"\nfile = \"m.glb\"\n",
        ),
    ]);
    // Ids are the project's: the second in the order read (the scene before its includes).
    let e = one(&errs_of(&dir, "t.scene.toml"), "duplicate-id");
    assert_eq!((e.file.clone(), e.line), (PathBuf::from("a.scene.toml"), 3));
    assert_eq!(rel(&e), [("t.scene.toml".to_string(), 4, 6)]);
}

#[test]
fn one_file_tables_held_twice() {
    let dir = tree(&[
        (
            "t.scene.toml",
            "format = 1\ninclude = [\"a.scene.toml\"]\n[camera]\nfov = 30\n",
        ),
        ("a.scene.toml", "format = 1\n\n[camera]\nfov = 50\n"),
    ]);
    let d = errs_of(&dir, "t.scene.toml");
    let e = one(&d, "held-twice");
    assert_eq!(
        (e.file.clone(), at(&e)),
        (PathBuf::from("t.scene.toml"), ("camera", 3, 2, 3, 8))
    );
    assert_eq!(rel(&e), [("a.scene.toml".to_string(), 3, 2)]);
    assert_eq!(errors(&d).len(), 1, "{d:#?}");
    // Held once across the files: read from the file that holds it.
    let dir = tree(&[
        ("t.scene.toml", "format = 1\ninclude = [\"a.scene.toml\"]\n"),
        ("a.scene.toml", "format = 1\n[camera]\nfov = 50\n"),
    ]);
    assert_eq!(scene_of(&dir, "t.scene.toml").camera.unwrap().fov, 50.0);
}

#[test]
fn include_cycle_names_the_chain() {
    let dir = tree(&[
        ("t.scene.toml", "format = 1\ninclude = [\"a.scene.toml\"]\n"),
        ("a.scene.toml", "format = 1\ninclude = [\"t.scene.toml\"]\n"),
    ]);
    let d = errs_of(&dir, "t.scene.toml");
    let e = one(&d, "include-cycle");
    assert_eq!(
        (e.file.clone(), at(&e)),
        (PathBuf::from("a.scene.toml"), ("include.0", 2, 12, 2, 26))
    );
    assert_eq!(
        rel(&e),
        [
            ("t.scene.toml".to_string(), 2, 12),
            ("a.scene.toml".to_string(), 2, 12)
        ]
    );
    assert!(
        e.message
            .contains("t.scene.toml → a.scene.toml → t.scene.toml"),
        "{}",
        e.message
    );
    assert_eq!(errors(&d).len(), 1, "{d:#?}");
}

/// A chain of `n` includes (`n` + 1 files): i0 includes i1 … includes i`n`.
fn include_chain(n: usize) -> tempfile::TempDir {
    let dir = tree(&[]);
    for i in 0..=n {
        let inc = if i < n {
            format!("include = [\"i{}.scene.toml\"]\n", i + 1)
        } else {
            String::new()
        };
        std::fs::write(
            dir.path().join(format!("i{i}.scene.toml")),
            format!("format = 1\n{inc}{}", light(&format!("l{i}"))),
        )
        .unwrap();
    }
    dir
}

/// A chain of `n` placements: t places p1, p1 places p2 … p`n-1` places p`n`.
fn prefab_chain(n: usize) -> tempfile::TempDir {
    let place = |i: usize| {
        format!("[[object]]\nname = \"p{i}\"\nprefab = \"p{i}.prefab.toml\"\nat = [1, 0, 0]\n")
    };
    let dir = tree(&[("t.scene.toml", &format!("format = 1\n{}", place(1)))]);
    for i in 1..=n {
        let next = if i < n { place(i + 1) } else { String::new() };
        std::fs::write(
            dir.path().join(format!("p{i}.prefab.toml")),
            format!("format = 1\n{}{next}", light("l")),
        )
        .unwrap();
    }
    dir
}

/// Runs `f` on a thread with a 2 MB stack, as the spec's depth tests do.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn includes_64_deep_read_65_refused() {
    let dir = include_chain(64);
    let s = scene_of(&dir, "i0.scene.toml");
    assert_eq!(s.lights.len(), 65);
    assert_eq!(s.lights[0].key, "l64");
    let dir = include_chain(65);
    let d = errs_of(&dir, "i0.scene.toml");
    let e = one(&d, "include-depth");
    assert_eq!(
        (e.file.clone(), e.key.as_str(), e.line),
        (PathBuf::from("i64.scene.toml"), "include.0", 2)
    );
    assert_eq!(e.related.len(), 65);
    assert_eq!(e.related[0].file, PathBuf::from("i0.scene.toml"));
    assert_eq!(e.related[64].file, PathBuf::from("i64.scene.toml"));
    assert!(
        e.message.contains("i0.scene.toml → i1.scene.toml"),
        "{}",
        e.message
    );
    assert!(
        e.message.ends_with("i64.scene.toml → i65.scene.toml"),
        "{}",
        e.message
    );
    assert_eq!(errors(&d).len(), 1);
}

#[test]
fn placements_64_deep_placed_65_refused() {
    let dir = prefab_chain(64);
    let s = scene_of(&dir, "t.scene.toml");
    assert_eq!(s.groups.len(), 64);
    assert_eq!(s.lights.len(), 64);
    let deepest = (1..=64).map(|i| format!("p{i}/")).collect::<String>() + "l";
    assert_eq!(s.lights[63].key, deepest);
    let dir = prefab_chain(65);
    let d = errs_of(&dir, "t.scene.toml");
    let e = one(&d, "prefab-depth");
    assert_eq!(
        (e.file.clone(), e.key.as_str(), e.line),
        (PathBuf::from("p64.prefab.toml"), "object.0.prefab", 8)
    );
    assert_eq!(e.related.len(), 65);
    assert_eq!(
        (e.related[0].file.clone(), e.related[0].line),
        (PathBuf::from("t.scene.toml"), 4)
    );
    assert!(
        e.message.ends_with("p64.prefab.toml → p65.prefab.toml"),
        "{}",
        e.message
    );
    assert_eq!(errors(&d).len(), 1);
}

/// The chain lives on the heap: 64 deep reads and 1000 deep is refused on a 2 MB stack
/// (the test profile optimises, but a recursion per link would still need ~1000 frames).
#[test]
fn depth_needs_no_stack() {
    let codes = on_small_stack(|| {
        let inc64 = include_chain(64);
        let ok = load(&inc64.path().join("i0.scene.toml")).is_ok();
        let pre64 = prefab_chain(64);
        let ok2 = load(&pre64.path().join("t.scene.toml")).is_ok();
        let inc = include_chain(1000);
        let a = load(&inc.path().join("i0.scene.toml")).unwrap_err();
        let pre = prefab_chain(1000);
        let b = load(&pre.path().join("t.scene.toml")).unwrap_err();
        let first = |d: &[Diagnostic]| {
            d.iter()
                .filter(|d| d.is_error())
                .map(|d| (d.code, d.related.len()))
                .collect::<Vec<_>>()
        };
        (ok, ok2, first(&a), first(&b))
    });
    assert_eq!(
        codes,
        (
            true,
            true,
            vec![("include-depth", 65)],
            vec![("prefab-depth", 65)]
        )
    );
}

#[test]
fn prefab_cycle_names_the_placements() {
    let dir = tree(&[
        (
            "t.scene.toml",
            "format = 1\n[[object]]\nname = \"a\"\nprefab = \"p.prefab.toml\"\n",
        ),
        (
            "p.prefab.toml",
            "format = 1\n[[object]]\nname = \"b\"\nprefab = \"q.prefab.toml\"\n",
        ),
        (
            "q.prefab.toml",
            "format = 1\n[[object]]\nname = \"c\"\nprefab = \"p.prefab.toml\"\n",
        ),
    ]);
    let d = errs_of(&dir, "t.scene.toml");
    let e = one(&d, "prefab-cycle");
    assert_eq!(
        (e.file.clone(), at(&e)),
        (
            PathBuf::from("q.prefab.toml"),
            ("object.0.prefab", 4, 10, 4, 25)
        )
    );
    assert_eq!(
        rel(&e),
        [
            ("t.scene.toml".to_string(), 4, 10),
            ("p.prefab.toml".to_string(), 4, 10),
            ("q.prefab.toml".to_string(), 4, 10)
        ]
    );
    assert!(
        e.message
            .contains("t.scene.toml → p.prefab.toml → q.prefab.toml → p.prefab.toml"),
        "{}",
        e.message
    );
    // Missing ids are warnings; the cycle is the one error.
    assert_eq!(errors(&d).len(), 1, "{d:#?}");
}
