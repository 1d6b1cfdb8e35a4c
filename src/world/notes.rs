//! What a bake notes about a scene it can read but does not fully draw: every table, key and
//! value this version does not render, named in a capability note.

use super::*;

use crate::scene::{self, Family, Location, Scene, SkyKind, SunModel};

/// The schema paths a bake draws; any other key the scene holds is named in a capability note.
pub(super) const DRAWN: &[&str] = &[
    "format",
    "materials",
    "fallback",
    "mesh",
    "mesh.id",
    "mesh.file",
    "mesh.node",
    "mesh.nodes",
    "mesh.nodes.material",
    "mesh.nodes.hidden",
    "mesh.nodes.shadow",
    "mesh.nodes.two_sided",
    "mesh.authoring",
    "include",
    "tiles",
    "object",
    "object.prefab",
    "object.set",
    "object.id",
    "object.name",
    "object.mesh",
    "object.at",
    "object.rotate",
    "object.scale",
    "object.parent",
    "object.material",
    "object.materials",
    "object.shadow",
    "object.two_sided",
    "object.hidden",
    "object.dynamic",
    "object.pick",
    "object.authoring",
    "object.clip",
    "object.alpha_cutoff",
    "light",
    "light.id",
    "light.name",
    "light.position",
    "light.color",
    "light.intensity",
    "light.radius",
    "light.range",
    "light.shadow",
    "light.authoring",
    "emitter",
    "emitter.id",
    "emitter.name",
    "emitter.position",
    "emitter.radius",
    "emitter.color",
    "emitter.intensity",
    "emitter.authoring",
    "camera",
    "camera.projection",
    "camera.at",
    "camera.look_at",
    "camera.up",
    "camera.fov",
    "camera.focal",
    "camera.sensor",
    "camera.height",
    "camera.near",
    "camera.far",
    "camera.shift",
    "camera.fstop",
    "camera.focus",
    "sun",
    "sun.model",
    "sun.toward",
    "sun.color",
    "sun.irradiance",
    "sun.radius",
    "sun.reference_hour",
    "sun.hour",
    "sun.day",
    "sun.latitude",
    "sun.heading",
    "sky",
    "sky.kind",
    "sky.path",
    "sky.intensity",
    "sky.rotation_deg",
    "sky.turbidity",
    "sky.ground_albedo",
    "sky.ambient",
    "sky.prepare",
    "sky.room",
    "sky.layer",
    "sky.layer.kind",
    "sky.layer.weight",
    "sky.layer.path",
    "sky.layer.intensity",
    "sky.layer.rotation_deg",
    "sky.layer.prepare",
    "sky.layer.room",
    "plates",
    "plates.dir",
    "trace",
    "trace.clamp_indirect",
    "trace.filter_glossy",
    "trace.transmissive_shadows",
    "authoring",
    "project",
    "project.name",
    "project.scene",
    "project.ignore",
    "tunables",
    "layers",
    "materials.id",
    "materials.family",
    "materials.base",
    "materials.roughness",
    "materials.metalness",
    "materials.specular",
    // Read by some families and not others: `unread_keys` names a value a family ignores.
    "materials.ior",
    "materials.transmission",
    "materials.fresnel_power",
    "materials.clearcoat",
    "materials.clearcoat_roughness",
    "materials.emission",
    "materials.authoring",
    // Movers, rigs, physics, sounds and play-mode tables only make objects dynamic or belong
    // to play mode; a plate has nothing to draw for them.
    "mover",
    "rig",
    "physics",
    "sound",
    "object.body",
    "object.character",
    "object.trigger",
    "object.animation",
    "object.face_camera",
];

/// The keys only an analytic sky layer takes: drawn with the layer.
pub(super) const ANALYTIC_LAYER_KEYS: &[&str] = &[
    "sky.layer.turbidity",
    "sky.layer.ground_albedo",
    "sky.layer.ambient",
];

/// Schema paths whose own children are all covered by the parent's entry above.
pub(super) const DRAWN_PREFIXES: &[&str] = &[
    "tiles.",
    "mover.",
    "rig.",
    "physics.",
    "sound.",
    "tunables.",
    "layers.",
    "authoring.",
    "object.body.",
    "object.character.",
    "object.trigger.",
    "object.animation.",
    "project.",
    "object.authoring.",
    "mesh.authoring.",
    "light.authoring.",
    "emitter.authoring.",
    "materials.authoring.",
    "sky.prepare.",
    "sky.room.",
    "sky.layer.prepare.",
    "sky.layer.room.",
];

/// The families this version draws with their own model; the others render as `plain`.
pub(super) const MODELLED_FAMILIES: [Family; 5] = [
    Family::Plain,
    Family::Metal,
    Family::Chrome,
    Family::Glass,
    Family::Lacquer,
];

/// The material keys a family's model does not read, with the value this material gives them,
/// where that value differs from the spec's default (a default value changes nothing, so it
/// needs no note). A family that is one lobe takes it at full weight: the weight that blends
/// that lobe into `plain` (`metalness` for `metal` and `chrome`, `transmission` for `glass`,
/// `clearcoat` for `lacquer`) is not read by it, and 1 agrees with it as well as 0.
pub(super) fn unread_keys(m: &scene::Material) -> Vec<(&'static str, String)> {
    let d = scene::Material::default();
    let family = format!("family {:?}", m.family.name());
    // (key, value, default, a value that agrees with the family, why it is not read)
    let mut checks: Vec<(&'static str, f32, f32, Option<f32>, String)> = Vec::new();
    let coated = m.family == Family::Lacquer || m.clearcoat > 0.0;
    let not_glass = format!("is not rendered yet on {family}: only family \"glass\" transmits");
    match m.family {
        Family::Metal | Family::Chrome => {
            let conductor = format!("has no effect: {family} is a conductor");
            checks.push((
                "metalness",
                m.metalness,
                d.metalness,
                Some(1.0),
                format!("{conductor} at any metalness"),
            ));
            checks.push((
                "specular",
                m.specular,
                d.specular,
                None,
                format!("{conductor}, its reflectance is base"),
            ));
            checks.push((
                "transmission",
                m.transmission,
                d.transmission,
                None,
                format!("{conductor} and does not transmit"),
            ));
        }
        Family::Glass => {
            let why = format!("has no effect: {family} is a dielectric of index ior");
            checks.push((
                "transmission",
                m.transmission,
                d.transmission,
                Some(1.0),
                format!("has no effect: {family} transmits at any transmission"),
            ));
            checks.push(("metalness", m.metalness, d.metalness, None, why.clone()));
            checks.push(("specular", m.specular, d.specular, None, why.clone()));
            checks.push(("fresnel_power", m.fresnel_power, d.fresnel_power, None, why));
        }
        Family::Lacquer => {
            checks.push((
                "clearcoat",
                m.clearcoat,
                d.clearcoat,
                Some(1.0),
                format!("has no effect: {family} is a clear coat at full weight"),
            ));
            checks.push((
                "transmission",
                m.transmission,
                d.transmission,
                None,
                not_glass,
            ));
        }
        _ => checks.push((
            "transmission",
            m.transmission,
            d.transmission,
            None,
            not_glass,
        )),
    }
    if !coated {
        let why = if matches!(m.family, Family::Metal | Family::Chrome) {
            Some(format!("has no effect: {family} has no clear coat"))
        } else if m.family == Family::Glass {
            None
        } else {
            Some(format!(
                "has no effect: {family}'s reflectance at normal incidence is specular, and it \
                 has no clear coat"
            ))
        };
        if let Some(why) = why {
            checks.push(("ior", m.ior, d.ior, None, why));
        }
        checks.push((
            "clearcoat_roughness",
            m.clearcoat_roughness,
            d.clearcoat_roughness,
            None,
            format!("has no effect: {family} has no clear coat"),
        ));
    }
    checks
        .into_iter()
        .filter(|&(_, value, default, agrees, _)| {
            value != default && Some(value) != agrees && !(value.is_nan() && default.is_nan())
        })
        .map(|(key, value, _, _, why)| (key, format!("{key} = {value} {why}")))
        .collect()
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
    for p in &scene.present {
        let drawn = DRAWN.contains(&p.path.as_str())
            || DRAWN_PREFIXES.iter().any(|pre| p.path.starts_with(pre));
        if drawn || ANALYTIC_LAYER_KEYS.contains(&p.path.as_str()) {
            continue;
        }
        let message = match p.path.as_str() {
            path if !path.contains('.') => format!("[{path}] is not rendered yet"),
            path => format!("{path} is not rendered yet"),
        };
        add(p.path.clone(), message, &p.at);
    }
    let scene_at = Location {
        file: scene.file.clone(),
        line: 1,
        column: 1,
    };
    for m in &scene.materials {
        if !MODELLED_FAMILIES.contains(&m.family) {
            add(
                format!("family {}", m.family.name()),
                format!(
                    "family {:?} renders as plain until the materials work",
                    m.family.name()
                ),
                &m.at,
            );
        }
        for (key, message) in unread_keys(m) {
            add(
                format!("materials.{key} on family {}", m.family.name()),
                message,
                &m.at,
            );
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
