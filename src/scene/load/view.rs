//! Typed reads of a checked table for the model: each key read through its schema entry
//! (a default from the table), and the tables the model takes whole (a material, a sky
//! layer, a rig).

use super::*;

/// `[materials.<name>]` read with its defaults.
pub(super) fn material(t: Tbl, key: String, library: PathBuf, at: Location) -> Material {
    let v = View {
        t,
        s: &schema::MATERIAL,
    };
    let fam = v.str("family").unwrap_or("plain");
    Material {
        key,
        id: v.string("id"),
        library,
        family: Family::ALL
            .iter()
            .copied()
            .find(|f| f.name() == fam)
            .unwrap_or_default(),
        base: v.v3("base"),
        roughness: v.f32("roughness"),
        metalness: v.f32("metalness"),
        specular: v.f32("specular"),
        clearcoat: v.f32("clearcoat"),
        clearcoat_roughness: v.f32("clearcoat_roughness"),
        sheen: v.f32("sheen"),
        transmission: v.f32("transmission"),
        ior: v.f32("ior"),
        dispersion: v.f32("dispersion"),
        thickness: v.f32("thickness"),
        subsurface: v.f32("subsurface"),
        subsurface_tint: v.v3("subsurface_tint"),
        absorption: v.f32("absorption"),
        thin_film: v.f32("thin_film"),
        thin_film_ior: v.f32("thin_film_ior"),
        thin_film_amount: v.f32("thin_film_amount"),
        emission: v.v3("emission"),
        fresnel_power: v.f32("fresnel_power"),
        noise: v
            .tables("layers", &schema::NOISE_LAYER)
            .iter()
            .filter_map(|l| l.string("kind"))
            .collect(),
        at,
    }
}

/// Reads a table's keys with the schema's defaults filled in. Used on checked tables only;
/// a value of the wrong type (already refused) reads as the default. Every read names a key
/// of the view's schema: a name the schema does not hold fails a debug assertion (so a test),
/// rather than reading a default unseen.
pub(super) struct View<'a> {
    pub(super) t: Tbl<'a>,
    pub(super) s: &'static TableSchema,
}

impl<'a> View<'a> {
    pub(super) fn default(&self, name: &str) -> Dflt {
        schema::key_of(self.s, name).default
    }

    /// The key's raw value, its name checked against the schema.
    pub(super) fn node(&self, name: &str) -> Option<Node<'a>> {
        let _ = schema::key_of(self.s, name);
        self.t.get(name)
    }

    /// The sub-table (or each table of an array of tables) at `name`, read through `s`.
    pub(super) fn tables(&self, name: &str, s: &'static TableSchema) -> Vec<View<'a>> {
        self.node(name)
            .map(|n| match n.tbl() {
                Some(t) => vec![t],
                None => n.tables(),
            })
            .unwrap_or_default()
            .into_iter()
            .map(|t| View { t, s })
            .collect()
    }

    pub(super) fn opt_bool(&self, name: &str) -> Option<bool> {
        let _ = schema::key_of(self.s, name);
        self.t.bool(name)
    }

    pub(super) fn nums(&self, name: &str) -> Option<Vec<f64>> {
        let _ = schema::key_of(self.s, name);
        self.t.nums(name)
    }

    pub(super) fn f32(&self, name: &str) -> f32 {
        let v = self.t.num(name).or(match self.default(name) {
            Dflt::Num(d) => Some(d),
            _ => None,
        });
        finite(v.unwrap_or(0.0))
    }

    pub(super) fn opt(&self, name: &str) -> Option<f32> {
        let _ = schema::key_of(self.s, name);
        self.t.num(name).map(finite)
    }

    pub(super) fn bool(&self, name: &str) -> bool {
        self.t
            .bool(name)
            .unwrap_or(matches!(self.default(name), Dflt::Bool(true)))
    }

    pub(super) fn str(&self, name: &str) -> Option<&str> {
        self.t.str(name).or(match self.default(name) {
            Dflt::Str(s) => Some(s),
            _ => None,
        })
    }

    pub(super) fn string(&self, name: &str) -> Option<String> {
        let _ = schema::key_of(self.s, name);
        self.t.str(name).map(str::to_string)
    }

    pub(super) fn vec(&self, name: &str, n: usize) -> Vec<f32> {
        match self.t.nums(name) {
            Some(v) if v.len() == n => v.into_iter().map(finite).collect(),
            _ => match self.default(name) {
                Dflt::Vec(d) if d.len() == n => d.iter().map(|x| *x as f32).collect(),
                _ => vec![0.0; n],
            },
        }
    }

    pub(super) fn v3(&self, name: &str) -> [f32; 3] {
        let v = self.vec(name, 3);
        [v[0], v[1], v[2]]
    }

    pub(super) fn v2(&self, name: &str) -> [f32; 2] {
        let v = self.vec(name, 2);
        [v[0], v[1]]
    }

    pub(super) fn path(&self, name: &str) -> PathBuf {
        let _ = schema::key_of(self.s, name);
        self.t
            .str(name)
            .and_then(|p| normalize(p).ok())
            .unwrap_or_default()
    }
}

/// The keys a sky and a sky layer share, read from `t` under schema `s` (`SKY` or
/// `SKY_LAYER`), defaults filled in. A kind the layer schema does not know (`mix`) reads as
/// analytic here; the caller sets a sky's own kind.
pub(super) fn sky_layer(t: Tbl, s: &'static TableSchema) -> SkyLayer {
    let v = View { t, s };
    let kind = match v.str("kind") {
        Some("hdr") => SkyKind::Hdr,
        Some("room") => SkyKind::Room,
        _ => SkyKind::Analytic,
    };
    let sub = |name: &str| t.get(name).and_then(|n| n.tbl());
    let prepare = sub("prepare").map(|p| {
        let v = View {
            t: p,
            s: &schema::PREPARE,
        };
        Prepare {
            cap: v.opt("cap"),
            balance: p
                .nums("balance")
                .filter(|b| b.len() == 3)
                .map(|b| [finite(b[0]), finite(b[1]), finite(b[2])]),
            mean: v.opt("mean"),
        }
    });
    let room = sub("room").map(|r| {
        let v = View {
            t: r,
            s: &schema::ROOM,
        };
        Room {
            width: v.f32("width").clamp(2.0, 8192.0) as u32,
            floor: v.v3("floor"),
            wall: v.v3("wall"),
            ceiling: v.v3("ceiling"),
            lights: r
                .get("lights")
                .map(|n| n.tables())
                .unwrap_or_default()
                .into_iter()
                .map(|lt| {
                    let v = View {
                        t: lt,
                        s: &schema::ROOM_LIGHT,
                    };
                    RoomLight {
                        name: v.str("name").unwrap_or_default().to_string(),
                        az: v.f32("az"),
                        el: v.f32("el"),
                        power: v.f32("power"),
                        color: v.v3("color"),
                        width: v.f32("width"),
                        height: v.f32("height"),
                        soft: v.f32("soft"),
                        slats: v.f32("slats"),
                        open: v.f32("open"),
                    }
                })
                .collect(),
        }
    });
    SkyLayer {
        // `[sky]` has no weight: its schema gives no default, so it reads 1 here, unused.
        weight: if s.key("weight").is_some() {
            v.f32("weight")
        } else {
            1.0
        },
        kind,
        path: v.string("path").and_then(|p| normalize(&p).ok()),
        rotation_deg: v.f32("rotation_deg"),
        intensity: v.f32("intensity"),
        turbidity: v.f32("turbidity"),
        ground_albedo: v.v3("ground_albedo"),
        ambient: v.f32("ambient"),
        prepare,
        room,
    }
}

/// A rig as the model holds it, its kind's defaults filled in.
pub(super) fn rig(
    t: Tbl,
    key: String,
    id: Option<String>,
    target: Option<String>,
    at_loc: Location,
) -> Rig {
    let v = View { t, s: &schema::RIG };
    let kind = match v.str("kind") {
        Some("first-person") => RigKind::FirstPerson,
        Some("third-person") => RigKind::ThirdPerson,
        _ => RigKind::Follow,
    };
    let offset = match v.nums("offset") {
        Some(o) if o.len() == 3 => Some([finite(o[0]), finite(o[1]), finite(o[2])]),
        // A follow rig's default needs the target's world position: the loader's to fill.
        _ if kind == RigKind::Follow => None,
        _ => Some([0.0; 3]),
    };
    let bounds = v.node("bounds").and_then(|b| b.tbl()).map(|b| {
        let corner = |k: &str| match b.nums(k) {
            Some(c) if c.len() == 3 => [finite(c[0]), finite(c[1]), finite(c[2])],
            _ => [0.0; 3],
        };
        (corner("min"), corner("max"))
    });
    Rig {
        key,
        id,
        kind,
        target,
        offset,
        dead_zone: v.v2("dead_zone"),
        look_ahead: v.f32("look_ahead"),
        damping: v.v3("damping"),
        bounds,
        orthographic: v.opt("orthographic"),
        snap: v.opt("snap"),
        sensitivity: v.f32("sensitivity"),
        invert: v.bool("invert"),
        smoothing: v.f32("smoothing"),
        pitch: v.v2("pitch"),
        head_bob: v.f32("head_bob"),
        distance: v.f32("distance"),
        collide: v.bool("collide"),
        at_loc,
    }
}

/// An f64 as a finite f32 (a refused non-finite value reads as 0; huge ones saturate).
pub(super) fn finite(v: f64) -> f32 {
    if v.is_finite() {
        (v as f32).clamp(f32::MIN, f32::MAX)
    } else {
        0.0
    }
}

pub(super) fn shadow(s: &str) -> Shadow {
    match s {
        "only" => Shadow::Only,
        "none" => Shadow::None,
        _ => Shadow::Cast,
    }
}
