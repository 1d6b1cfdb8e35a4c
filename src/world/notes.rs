//! What a bake notes about a scene it can read but does not fully draw: every table, key and
//! value this version does not render, named in a capability note.
//!
//! Nothing here lists keys: what is drawn is the schema's `Use` column (`scene::schema`), and
//! when a drawn key has no effect is its `unread` cases and `clamp` range, read against the
//! values the scene resolved (written in a file, or set through a placement's `[object.set]`,
//! which the reader records as the same key).

use super::*;

use crate::scene::schema::{self, TableSchema, Unread, Use, When};
use crate::scene::{Location, Scene, SkyKind, SunModel};

/// The first case of `cases` that holds for a table whose selector keys read `sel` and whose
/// numbers read `num`.
fn case<'c>(
    cases: &'c [Unread],
    sel: &dyn Fn(&str) -> Option<&'static str>,
    num: &dyn Fn(&str) -> Option<f32>,
) -> Option<&'c Unread> {
    let unit = |x: f32| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    cases.iter().find(|c| match c.when {
        When::Is(key, vals) => sel(key).is_some_and(|v| vals.contains(&v)),
        When::Uncoated(fams) | When::Coated(fams) => {
            let fam = sel("family");
            let coated = fam == Some("lacquer") || num("clearcoat").is_some_and(|c| c > 0.0);
            fam.is_some_and(|f| fams.contains(&f)) && coated == matches!(c.when, When::Coated(_))
        }
        When::At(fams, key, v) => {
            sel("family").is_some_and(|f| fams.contains(&f))
                && num(key).is_some_and(|x| unit(x) as f64 == v)
        }
        When::Over(fams, key, v)
        | When::UncoatedAt(fams, key, v)
        | When::CoatedAt(fams, key, v) => {
            let coated =
                sel("family") == Some("lacquer") || num("clearcoat").is_some_and(|c| c > 0.0);
            let holds = |x: f32| match c.when {
                When::Over(..) => unit(x) as f64 > v,
                _ => unit(x) as f64 == v,
            };
            coated == matches!(c.when, When::CoatedAt(..))
                && sel("family").is_some_and(|f| fams.contains(&f))
                && num(key).is_some_and(holds)
        }
    })
}

/// The notes of one resolved table: each number key that has no effect at the value it holds
/// (a value equal to the default, or to the one that agrees with the case, changes nothing),
/// as `(key, "<key> = <value> <why>")`; and the keys the case leaves drawn, for the clamps.
/// `drawn` gives the numbers the cases are decided on: the values drawn (a material's with its
/// family's defaults, so a `liquid` is smooth at the spec's roughness), where `num` gives the
/// values written.
fn unread_notes(
    table: &'static TableSchema,
    family: &str,
    sel: &dyn Fn(&str) -> Option<&'static str>,
    num: &dyn Fn(&str) -> Option<f32>,
    drawn: &dyn Fn(&str) -> Option<f32>,
) -> (Vec<(&'static str, String)>, Vec<&'static str>) {
    let mut notes = Vec::new();
    let mut unread = Vec::new();
    for key in table.all().filter(|k| !k.unread.is_empty()) {
        let Some(c) = case(key.unread, sel, drawn) else {
            continue;
        };
        unread.push(key.name);
        let (Some(value), schema::Dflt::Num(d)) = (num(key.name), key.default) else {
            continue;
        };
        let d = d as f32;
        let agrees = c.agrees.map(|a| a as f32);
        if value != d && Some(value) != agrees && !(value.is_nan() && d.is_nan()) {
            let why = c.why.replace("{family}", &format!("family {family:?}"));
            notes.push((key.name, format!("{} = {value} {why}", key.name)));
        }
    }
    (notes, unread)
}

/// A value outside the range the bake clamps `key` to, with the value it draws instead.
fn clamped(key: &schema::Key, values: &[f32]) -> Option<String> {
    let r = key.clamp?;
    if values.iter().all(|&x| r.holds(x as f64)) {
        return None;
    }
    let used: Vec<f32> = values
        .iter()
        .map(|&x| (x as f64).clamp(r.min, r.max) as f32)
        .collect();
    let words = |v: &[f32]| match v {
        [x] => format!("{x}"),
        v => format!(
            "[{}]",
            v.iter()
                .map(|x| format!("{x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Some(format!(
        "{} = {} is drawn as {}: the bake clamps {} to {}",
        key.name,
        words(values),
        words(&used),
        key.name,
        r.words()
    ))
}

/// Names every table, key and value the scene holds that this version does not draw.
pub(super) fn capability_notes(scene: &Scene) -> Vec<Capability> {
    let mut notes: Vec<Capability> = Vec::new();
    let mut add = |what: String, message: String, at: &Location| {
        if let Some(n) = notes.iter_mut().find(|n| n.what == what) {
            n.count += 1;
        } else {
            notes.push(Capability {
                what,
                message,
                at: at.clone(),
                count: 1,
            });
        }
    };
    let kinds: Vec<&str> = {
        let mut k: Vec<&str> = scene
            .materials
            .iter()
            .flat_map(|m| m.noise.iter().map(String::as_str))
            .collect();
        k.sort_unstable();
        k.dedup();
        k
    };
    for p in &scene.present {
        // A path the schema does not hold is named as not drawn: the safe side of a bug.
        let u = schema::use_of(&p.path).map_or(Use::NotYet, |(_, u)| u);
        // A value written as its default changes nothing, so needs no note.
        if u != Use::NotYet || p.default {
            continue;
        }
        let message = match p.path.as_str() {
            path if !path.contains('.') => format!("[{path}] is not rendered yet"),
            "materials.layers" if !kinds.is_empty() => format!(
                "materials.layers is not rendered yet (noise kinds: {})",
                kinds
                    .iter()
                    .map(|k| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            path => format!("{path} is not rendered yet"),
        };
        add(p.path.clone(), message, &p.at);
    }
    for m in &scene.materials {
        let family = m.family.name();
        if !schema::DRAWN_FAMILIES.contains(&family) {
            add(
                format!("family {family}"),
                format!("family {family:?} renders as plain until the materials work"),
                &m.at,
            );
        }
        let sel = |k: &str| (k == "family").then_some(family);
        let num = |k: &str| m.number(k);
        let with_defaults = super::materials::with_family_defaults(m);
        let drawn = |k: &str| with_defaults.number(k);
        let (unread, unused) = unread_notes(&schema::MATERIAL, family, &sel, &num, &drawn);
        for (key, message) in unread {
            add(
                format!("materials.{key} on family {family}"),
                message,
                &m.at,
            );
        }
        for key in schema::MATERIAL.all().filter(|k| k.clamp.is_some()) {
            if unused.contains(&key.name) {
                continue;
            }
            let values = match (m.number(key.name), m.colour(key.name)) {
                (Some(x), _) => vec![x],
                (_, Some(c)) => c.to_vec(),
                _ => continue,
            };
            if let Some(message) = clamped(key, &values) {
                add(format!("materials.{} clamped", key.name), message, &m.at);
            }
        }
    }
    let scene_at = Location {
        file: scene.file.clone(),
        line: 1,
        column: 1,
    };
    if let Some(sun) = &scene.sun {
        let model = sun.model_name();
        let sel = |k: &str| (k == "model").then_some(model);
        let num = |k: &str| sun.number(k);
        for (key, message) in unread_notes(&schema::SUN, "", &sel, &num, &num).0 {
            let path = format!("sun.{key}");
            let at = scene
                .present
                .iter()
                .find(|p| p.path == path)
                .map_or(&scene_at, |p| &p.at);
            add(format!("{path} on the {model} model"), message, at);
        }
    }
    let analytic = scene.sky.as_ref().is_some_and(|s| {
        s.kind == SkyKind::Analytic || s.layers.iter().any(|l| l.kind == SkyKind::Analytic)
    });
    let daylight = scene
        .sun
        .as_ref()
        .is_some_and(|s| s.model == SunModel::Daylight);
    if daylight {
        // `ambient` sets the analytic sky's level under an authored sun only: under the daylight
        // sun the model's own ratio of sun to sky holds.
        let ambients = scene.sky.iter().flat_map(|s| {
            let own = (s.kind == SkyKind::Analytic).then_some(s.ambient);
            own.into_iter().chain(
                s.layers
                    .iter()
                    .filter(|l| l.kind == SkyKind::Analytic)
                    .map(|l| l.ambient),
            )
        });
        for a in ambients.filter(|&a| a != 1.0) {
            add(
                "sky.ambient under a daylight sun".into(),
                format!(
                    "ambient = {a} has no effect under a daylight sun: the sky keeps the \
                     Hosek-Wilkie model's ratio to the sun"
                ),
                &scene_at,
            );
        }
    }
    if analytic && scene.sun.is_none() {
        add(
            "sky analytic without sun".into(),
            "the analytic sky follows [sun], and this scene has none: the analytic sky is black"
                .into(),
            &scene_at,
        );
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The capability notes of `t.scene.toml` among `files`, as (what, message), sorted.
    fn notes(files: &[(&str, &str)]) -> Vec<(String, String)> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("project.toml"),
            "format = 1\n[project]\nname = \"t\"\n",
        )
        .unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let scene = crate::scene::load(&dir.path().join("t.scene.toml"))
            .unwrap_or_else(|d| panic!("{d:#?}"));
        let mut out: Vec<(String, String)> = capability_notes(&scene)
            .into_iter()
            .map(|c| (c.what, c.message))
            .collect();
        out.sort();
        out
    }

    fn with_library(materials: &str) -> Vec<(String, String)> {
        notes(&[
            (
                "t.scene.toml",
                "format = 1\nmaterials = [\"m.materials.toml\"]\n",
            ),
            ("m.materials.toml", &format!("format = 1\n{materials}")),
        ])
    }

    fn whats(notes: &[(String, String)]) -> Vec<&str> {
        notes.iter().map(|(w, _)| w.as_str()).collect()
    }

    /// `plain`'s model (and every family drawn with it) reads `fresnel_power` for its metal
    /// part only and `specular` for its dielectric part only: each is named where the
    /// metalness leaves it without effect, and only there.
    #[test]
    fn a_material_key_the_family_does_not_use_is_named() {
        let n = with_library(
            "[materials.a]\nfresnel_power = 3\n\
             [materials.b]\nfamily = \"bark\"\nfresnel_power = 3\n\
             [materials.c]\nmetalness = 1\nspecular = 0.2\n\
             [materials.d]\nmetalness = 0.5\nfresnel_power = 3\nspecular = 0.2\n",
        );
        let ours: Vec<&(String, String)> = n
            .iter()
            .filter(|(w, _)| w.contains("fresnel_power") || w.contains("specular"))
            .collect();
        assert_eq!(
            ours,
            [
                &(
                    "materials.fresnel_power on family bark".to_string(),
                    "fresnel_power = 3 has no effect: family \"bark\" reads it for its metal \
                     part only, and metalness is 0"
                        .to_string()
                ),
                &(
                    "materials.fresnel_power on family plain".to_string(),
                    "fresnel_power = 3 has no effect: family \"plain\" reads it for its metal \
                     part only, and metalness is 0"
                        .to_string()
                ),
                &(
                    "materials.specular on family plain".to_string(),
                    "specular = 0.2 has no effect: family \"plain\" at metalness 1 is a \
                     conductor, its reflectance is base"
                        .to_string()
                ),
            ]
        );
    }

    /// `reference_hour` sets an authored sun's hour of intensity 1 and `day` the daylight
    /// sun's date: each is named on the other model.
    #[test]
    fn sun_keys_without_effect_are_named() {
        let daylight = notes(&[(
            "t.scene.toml",
            "format = 1\n[sun]\nmodel = \"daylight\"\nhour = 10\nreference_hour = 9\nday = 100\n",
        )]);
        assert_eq!(
            daylight,
            [(
                "sun.reference_hour on the daylight model".to_string(),
                "reference_hour = 9 has no effect on a daylight sun: its light is the daylight \
                 model's at hour"
                    .to_string()
            )]
        );
        let authored = notes(&[(
            "t.scene.toml",
            "format = 1\n[sun]\nmodel = \"authored\"\ntoward = [0, 1, 0]\nirradiance = 1\n\
             reference_hour = 9\nday = 100\n",
        )]);
        assert_eq!(whats(&authored), ["sun.day on the authored model"]);
    }

    /// A key set through a placement's `[object.set]` is noted exactly as the same key
    /// written in the prefab's library.
    #[test]
    fn an_override_warns_as_the_same_key_in_the_file_does() {
        let prefab = "format = 1\nmaterials = [\"p.materials.toml\"]\n";
        let placed = |set: &str, key: &str| {
            notes(&[
                (
                    "t.scene.toml",
                    &format!(
                        "format = 1\n[[object]]\nname = \"a\"\nprefab = \"p.prefab.toml\"\n{set}"
                    ),
                ),
                ("p.prefab.toml", prefab),
                (
                    "p.materials.toml",
                    &format!("format = 1\n[materials.shiny]\n{key}"),
                ),
            ])
        };
        let written = placed("", "content = \"ink\"\n");
        let set = placed("[object.set]\n\"shiny.content\" = \"ink\"\n", "");
        assert_eq!(
            written,
            [(
                "materials.content".to_string(),
                "materials.content is not rendered yet".to_string()
            )]
        );
        assert_eq!(set, written);
        // A drawn key set through an override is no note; one set to its default neither.
        let drawn = placed(
            "[object.set]\n\"shiny.roughness\" = 0.1\n\"shiny.sheen\" = 0\n",
            "",
        );
        assert!(drawn.is_empty(), "{drawn:?}");
    }

    /// An id, a default `casters` and a flat normal change nothing, text is drawn, and the
    /// proxies go into the caster file: no note names them.
    #[test]
    fn the_false_alarms_are_gone() {
        let n = notes(&[
            (
                "t.scene.toml",
                "format = 1\nmaterials = [\"m.materials.toml\"]\n\
                 [mesh.m]\nid = \"aaaaaaaa01\"\nfile = \"m.glb\"\n\
                 [[object]]\nid = \"aaaaaaaa02\"\nname = \"o\"\nmesh = \"m\"\n\
                 [content.c]\nid = \"aaaaaaaa03\"\nimage = \"a.png\"\n\
                 [text.t]\nid = \"aaaaaaaa04\"\ntext = \"hi\"\nfont = \"f.ttf\"\nsize = 1\n\
                 [plates]\ndir = \"plates\"\ncasters = \"meshes\"\nproxies = \"p.proxies.toml\"\n",
            ),
            (
                "m.materials.toml",
                "format = 1\n[materials.w]\nid = \"aaaaaaaa05\"\n\
                 normal = { source = \"flat\", strength = 0 }\n",
            ),
            (
                "p.proxies.toml",
                "format = 1\n[[proxy]]\nid = \"aaaaaaaa06\"\nobject = \"o\"\nkind = \"box\"\n\
                 size = [1, 1, 1]\n",
            ),
            ("m.glb", "x"),
            ("a.png", "x"),
            ("f.ttf", "x"),
        ]);
        let w = whats(&n);
        for gone in [
            "content.id",
            "text",
            "text.id",
            "text.font",
            "proxy.id",
            "plates.casters",
            "plates.proxies",
            "proxy",
            "proxy.object",
            "proxy.size",
            "materials.normal",
            "materials.normal.source",
            "materials.normal.strength",
        ] {
            assert!(!w.contains(&gone), "{gone} in {w:?}");
        }
        for kept in ["content", "content.image"] {
            assert!(w.contains(&kept), "{kept} not in {w:?}");
        }
    }

    /// A value outside the range the bake clamps it to is named with the value drawn; a
    /// value a family does not read is named as such, not as clamped.
    #[test]
    fn clamped_values_are_named_with_the_value_used() {
        let n = with_library(
            "[materials.hot]\nbase = [1.2, 0.5, 0.5]\nemission = [-1, 0, 0]\nroughness = -0.2\n\
             clearcoat = 0.5\nior = 0.8\n\
             [materials.steel]\nfamily = \"metal\"\nmetalness = 1.5\n",
        );
        let clamps: Vec<&str> = n
            .iter()
            .filter(|(w, _)| w.ends_with("clamped"))
            .map(|(_, m)| m.as_str())
            .collect();
        assert_eq!(
            clamps,
            [
                "base = [1.2, 0.5, 0.5] is drawn as [1, 0.5, 0.5]: the bake clamps base to 0 to 1",
                "emission = [-1, 0, 0] is drawn as [0, 0, 0]: the bake clamps emission to ≥ 0",
                "ior = 0.8 is drawn as 1: the bake clamps ior to 1 to 4",
                "roughness = -0.2 is drawn as 0: the bake clamps roughness to 0 to 1",
            ]
        );
        assert!(whats(&n).contains(&"materials.metalness on family metal"));
    }

    /// A noise layer's note names the kinds the scene's layers use.
    #[test]
    fn layer_notes_name_the_noise_kind() {
        let n = with_library(
            "[materials.w]\n[[materials.w.layers]]\nkind = \"grime\"\nfrequency = 1\n\
             amplitude = 1\nseed = 1\n",
        );
        let layers = n.iter().find(|(w, _)| w == "materials.layers").unwrap();
        assert_eq!(
            layers.1,
            "materials.layers is not rendered yet (noise kinds: \"grime\")"
        );
    }
}
