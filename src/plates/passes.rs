//! `passes.exr`: the plate's data passes in one multi-layer EXR, `layer.channel` names as
//! Nuke and Blender read them, each channel in the sample type its precision needs (half
//! only for unit-range data; float32 for the variance and Cryptomatte; uint32 for ids and
//! counts).
//!
//! The `exr` crate writes custom header attributes in its hash map's order, which changes
//! from run to run; so the encoded header's attributes are put in name order afterwards
//! ([`sort_header_attributes`]): the same length, so every offset stays valid, and the same
//! bytes on every run.

use std::io::{self, Cursor};

use exr::meta::attribute::{AttributeValue, Text};
use exr::prelude::{
    f16, AnyChannel, AnyChannels, FlatSamples, Image, Layer, LayerAttributes, SmallVec,
    WritableImage,
};
use serde_json::{json, Value};

use super::cryptomatte::Cryptomatte;
use super::exr_io::{plate_encoding, to_io, Threads};

/// The name of the data passes' image inside a plate folder (only with `--passes`).
pub const PASSES_FILE: &str = "passes.exr";

/// The data passes of a plate, each `width × height`, row-major from the top row, all
/// finite (see `docs/plates.md`, "Passes").
#[derive(Clone, Debug, PartialEq)]
pub struct PassPlates {
    /// Mean shading normal, world space X, Y, Z, facing the camera (zero on the sky).
    pub normal: Vec<[f32; 3]>,
    /// Mean albedo, linear RGB in `[0, 1]`.
    pub albedo: Vec<[f32; 3]>,
    /// Mean roughness, `[0, 1]`.
    pub roughness: Vec<f32>,
    /// The pick id of the object the ray through the pixel centre meets first; 0 for the
    /// sky and an emitter.
    pub pick: Vec<u32>,
    /// Camera samples the pixel took.
    pub samples: Vec<u32>,
    /// Variance of the pixel's mean radiance per channel, W²·m⁻⁴·sr⁻².
    pub variance: Vec<[f32; 3]>,
    /// The Cryptomattes (objects, materials).
    pub cryptomattes: Vec<Cryptomatte>,
    /// The light groups, `other` last (empty: none written).
    pub light_groups: Vec<LightGroupPlate>,
}

/// One light group of `passes.exr`: layers `light.<key>` (R, G, B, float32) and
/// `shadow.<key>` (X, float16).
#[derive(Clone, Debug, PartialEq)]
pub struct LightGroupPlate {
    /// The layers' key: [`light_group_keys`] makes them unique.
    pub key: String,
    /// What the group holds, for the manifest: `{"table": "[[light]]", "name": "key"}` and
    /// the like.
    pub source: Value,
    /// Mean direct light from the group, W·m⁻²·sr⁻¹ per linear Rec.709 channel.
    pub light: Vec<[f32; 3]>,
    /// The shadow matte in [0, 1]: the share of the group's unshadowed light the shadow rays
    /// found blocked.
    pub shadow: Vec<f32>,
}

/// The name `other`'s layers take: the light no group holds.
pub const OTHER_LIGHT_GROUP: &str = "other";

/// Unique layer keys for light groups named `(table, name)`, in order: each its name, but
/// for a name an earlier group (or `other`) already took, which becomes `<table>:<name>`
/// (names are unique only within their table: a `[[light]]` and an object may both be
/// `lamp`). `table` is `light`, `emitter`, `object`, `sun` or `sky`.
pub fn light_group_keys(names: &[(&str, &str)]) -> Vec<String> {
    let mut taken: Vec<String> = vec![OTHER_LIGHT_GROUP.to_owned()];
    let mut out = Vec::with_capacity(names.len());
    for (table, name) in names {
        let mut key = (*name).to_owned();
        if taken.contains(&key) {
            key = format!("{table}:{name}");
        }
        let mut n = 2;
        while taken.contains(&key) {
            key = format!("{table}:{name}#{n}");
            n += 1;
        }
        taken.push(key.clone());
        out.push(key);
    }
    out
}

/// One channel of `passes.exr`: its name, its samples, and the manifest's words for it.
struct Channel {
    name: String,
    samples: FlatSamples,
}

fn half(v: impl Iterator<Item = f32>) -> FlatSamples {
    FlatSamples::F16(v.map(f16::from_f32).collect())
}

impl PassPlates {
    fn check(&self, area: usize) -> Result<(), String> {
        let lens = [
            self.normal.len(),
            self.albedo.len(),
            self.roughness.len(),
            self.pick.len(),
            self.samples.len(),
            self.variance.len(),
        ];
        if lens.iter().any(|&n| n != area)
            || self.cryptomattes.iter().any(|c| c.pixels.len() != area)
            || self
                .light_groups
                .iter()
                .any(|g| g.light.len() != area || g.shadow.len() != area)
        {
            return Err(format!("each pass needs {area} pixels"));
        }
        let finite = self
            .normal
            .iter()
            .chain(&self.albedo)
            .chain(&self.variance)
            .flatten()
            .chain(&self.roughness)
            .all(|v| v.is_finite())
            && self
                .cryptomattes
                .iter()
                .flat_map(|c| c.pixels.iter().flatten())
                .all(|(_, v)| v.is_finite())
            && self.light_groups.iter().all(|g| {
                g.light.iter().flatten().all(|v| v.is_finite())
                    && g.shadow.iter().all(|v| v.is_finite())
            });
        if !finite {
            return Err("a pass holds a non-finite value".into());
        }
        Ok(())
    }

    fn channels(&self) -> Vec<Channel> {
        let mut out = Vec::new();
        let mut push = |name: String, samples: FlatSamples| out.push(Channel { name, samples });
        for (c, axis) in ["X", "Y", "Z"].iter().enumerate() {
            push(format!("N.{axis}"), half(self.normal.iter().map(|v| v[c])));
        }
        for (c, ch) in ["R", "G", "B"].iter().enumerate() {
            push(
                format!("albedo.{ch}"),
                half(self.albedo.iter().map(|v| v[c])),
            );
        }
        push("roughness.X".into(), half(self.roughness.iter().copied()));
        push("pick.X".into(), FlatSamples::U32(self.pick.clone()));
        push("samples.X".into(), FlatSamples::U32(self.samples.clone()));
        for (c, ch) in ["R", "G", "B"].iter().enumerate() {
            push(
                format!("variance.{ch}"),
                FlatSamples::F32(self.variance.iter().map(|v| v[c]).collect()),
            );
        }
        for crypto in &self.cryptomattes {
            for (name, values) in crypto.channels() {
                push(name, FlatSamples::F32(values));
            }
        }
        for g in &self.light_groups {
            for (c, ch) in ["R", "G", "B"].iter().enumerate() {
                push(
                    format!("light.{}.{ch}", g.key),
                    FlatSamples::F32(g.light.iter().map(|v| v[c]).collect()),
                );
            }
            push(
                format!("shadow.{}.X", g.key),
                half(g.shadow.iter().copied()),
            );
        }
        out
    }

    /// The manifest's description of `passes.exr`'s layers (its `"layers"` key).
    pub(super) fn layers_json(&self) -> Value {
        let mut layers = json!({
            "N": { "channels": ["N.X", "N.Y", "N.Z"], "type": "float16", "space": "world",
                   "description": "shading normal, unit, turned towards the camera, of the first drawn surface each camera sample meets, pixel mean (0 on the sky; shorter than 1 on edges)" },
            "albedo": { "channels": ["albedo.R", "albedo.G", "albedo.B"], "type": "float16", "space": "linear Rec.709",
                   "description": "base colour (albedo in [0, 1]) of the first drawn surface, pixel mean (0 on the sky and emitters)" },
            "roughness": { "channels": ["roughness.X"], "type": "float16",
                   "description": "roughness in [0, 1] (sqrt of the GGX alpha drawn) of the first drawn surface, pixel mean" },
            "pick": { "channels": ["pick.X"], "type": "uint32",
                   "description": "pick id ([[object]] pick, see \"objects\") of the object the ray through the pixel centre meets first, as depth; 0 for the sky and emitters" },
            "samples": { "channels": ["samples.X"], "type": "uint32",
                   "description": "camera samples the pixel took (the beauty is their mean)" },
            "variance": { "channels": ["variance.R", "variance.G", "variance.B"], "type": "float32", "units": "(W/(m^2 sr))^2",
                   "description": "variance of the pixel's mean radiance per channel: the samples' unbiased variance over their count" },
        });
        for c in &self.cryptomattes {
            let channels: Vec<String> = c.channels().into_iter().map(|(n, _)| n).collect();
            layers[&c.layer] = json!({
                "channels": channels,
                "type": "float32",
                "cryptomatte": {
                    "key": super::cryptomatte::key(&c.layer),
                    "hash": "MurmurHash3_32",
                    "conversion": "uint32_to_float32",
                    "ranks": super::cryptomatte::RANKS,
                },
                "description": "Cryptomatte 1.2: per rank an id (the name's MurmurHash3_32 as float32 bits) and its coverage (share of the pixel's camera samples), largest first; the manifest is in the header",
            });
        }
        for g in &self.light_groups {
            let k = &g.key;
            layers[format!("light.{k}")] = json!({
                "channels": [format!("light.{k}.R"), format!("light.{k}.G"), format!("light.{k}.B")],
                "type": "float32", "space": "linear Rec.709", "units": "W/(m^2 sr)",
                "light_group": g.source,
                "description": "direct light from this group at the first drawn surface, pixel mean: light sampling and the BSDF-sampled ray that meets the light, each MIS-weighted; the groups sum to the beauty's direct light (paths of two segments), the rest of the beauty is emission seen and indirect light",
            });
            layers[format!("shadow.{k}")] = json!({
                "channels": [format!("shadow.{k}.X")],
                "type": "float16",
                "light_group": g.source,
                "description": "shadow matte in [0, 1]: the share of this group's unshadowed light-sampled direct light that shadow rays found blocked (1 in the umbra, 0 where lit or where the group sends nothing)",
            });
        }
        layers
    }
}

/// The bytes of `passes.exr` for a `width × height` plate.
pub(super) fn encode_passes(width: u32, height: u32, passes: &PassPlates) -> io::Result<Vec<u8>> {
    passes
        .check(width as usize * height as usize)
        .map_err(|m| io::Error::new(io::ErrorKind::InvalidData, m))?;
    let list: SmallVec<[AnyChannel<FlatSamples>; 4]> = passes
        .channels()
        .into_iter()
        .map(|c| AnyChannel::new(c.name.as_str(), c.samples))
        .collect();
    let mut attributes = LayerAttributes::default();
    for c in &passes.cryptomattes {
        for (name, value) in c.attributes() {
            // Raw UTF-8 bytes, as OpenEXR's C++ library stores a std::string: names may hold
            // any character, which `Text::from` (Latin-1 only) would refuse.
            attributes.other.insert(
                Text::from_bytes_unchecked(SmallVec::from_vec(name.into_bytes())),
                AttributeValue::Text(Text::from_bytes_unchecked(SmallVec::from_vec(
                    value.into_bytes(),
                ))),
            );
        }
    }
    let layer = Layer::new(
        (width as usize, height as usize),
        attributes,
        plate_encoding(),
        AnyChannels::sort(list),
    );
    let mut bytes = Cursor::new(Vec::new());
    // Blocks are written in increasing y whichever thread finishes first (exr_io.rs).
    let image = Image::from_layer(layer);
    match Threads::for_height(height) {
        Threads::One => image.write().non_parallel().to_buffered(&mut bytes),
        Threads::Many => image.write().to_buffered(&mut bytes),
    }
    .map_err(to_io)?;
    let mut bytes = bytes.into_inner();
    sort_header_attributes(&mut bytes)?;
    Ok(bytes)
}

/// Puts the attributes of a single-part EXR's header in name order, in place. The header's
/// length does not change, so the offset table and the blocks after it stay where they are.
pub(super) fn sort_header_attributes(bytes: &mut [u8]) -> io::Result<()> {
    let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidData, m.to_owned());
    // Magic number, then the version field; bit 12 marks a multi-part file.
    if bytes.len() < 8 || bytes[..4] != [0x76, 0x2f, 0x31, 0x01] || bytes[5] & 0x10 != 0 {
        return Err(bad("not a single-part EXR"));
    }
    let cstr_end = |from: usize| -> io::Result<usize> {
        bytes[from..]
            .iter()
            .position(|&b| b == 0)
            .map(|n| from + n)
            .ok_or_else(|| bad("unterminated header"))
    };
    let start = 8;
    let mut at = start;
    let mut attrs: Vec<(Vec<u8>, std::ops::Range<usize>)> = Vec::new();
    loop {
        let name_end = cstr_end(at)?;
        if name_end == at {
            break; // the header's terminating null
        }
        let type_end = cstr_end(name_end + 1)?;
        let size_at = type_end + 1;
        let size = bytes
            .get(size_at..size_at + 4)
            .map(|s| i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
            .ok_or_else(|| bad("truncated header"))?;
        let end = usize::try_from(size)
            .ok()
            .and_then(|s| (size_at + 4).checked_add(s))
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| bad("bad attribute size"))?;
        attrs.push((bytes[at..name_end].to_vec(), at..end));
        at = end;
    }
    let mut sorted: Vec<&(Vec<u8>, std::ops::Range<usize>)> = attrs.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::with_capacity(at - start);
    for (_, range) in sorted {
        out.extend_from_slice(&bytes[range.clone()]);
    }
    bytes[start..at].copy_from_slice(&out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plates(w: u32, h: u32) -> PassPlates {
        let n = (w * h) as usize;
        let f = |i: usize| (i % 17) as f32 / 16.0;
        PassPlates {
            normal: (0..n).map(|i| [f(i), -f(i + 3), 0.5]).collect(),
            albedo: (0..n).map(|i| [f(i), f(i + 1), f(i + 2)]).collect(),
            roughness: (0..n).map(f).collect(),
            pick: (0..n).map(|i| (i % 5) as u32).collect(),
            samples: vec![16; n],
            variance: (0..n).map(|i| [1e5 * f(i), 1e-9, 0.0]).collect(),
            cryptomattes: ["CryptoObject", "CryptoMaterial"]
                .iter()
                .map(|layer| Cryptomatte {
                    layer: (*layer).into(),
                    names: vec!["a".into(), "bé".into(), "c".into()],
                    pixels: (0..n)
                        .map(|i| vec![((i % 3) as u32, 0.75), (((i + 1) % 3) as u32, 0.25)])
                        .collect(),
                })
                .collect(),
            light_groups: light_group_keys(&[("light", "key"), ("emitter", "key")])
                .into_iter()
                .chain([OTHER_LIGHT_GROUP.to_owned()])
                .enumerate()
                .map(|(g, key)| LightGroupPlate {
                    key,
                    source: json!({ "group": g }),
                    light: (0..n).map(|i| [f(i + g), 1e5 * f(i), 0.0]).collect(),
                    shadow: (0..n).map(|i| f(i + g)).collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn light_group_keys_are_the_names_unless_taken() {
        let keys = light_group_keys(&[
            ("light", "lamp"),
            ("object", "lamp"),
            ("light", "other"),
            ("sun", "sun"),
            ("light", "sun"),
        ]);
        assert_eq!(
            keys,
            ["lamp", "object:lamp", "light:other", "sun", "light:sun"]
        );
        // A light literally named `light:x` comes before one whose `x` is taken.
        let keys = light_group_keys(&[("light", "x"), ("light", "object:x"), ("object", "x")]);
        assert_eq!(keys, ["x", "object:x", "object:x#2"]);
    }

    #[test]
    fn the_bytes_are_the_same_every_time_and_the_header_holds_the_cryptomatte() {
        // Tall enough to compress on several threads; each encoding's attribute map has its
        // own hash order, which the sort takes away.
        let p = plates(5, 300);
        let a = encode_passes(5, 300, &p).unwrap();
        for _ in 0..3 {
            assert!(a == encode_passes(5, 300, &p).unwrap());
        }
        let meta = exr::meta::MetaData::read_from_buffered(Cursor::new(&a), false).unwrap();
        let other = &meta.headers[0].own_attributes.other;
        let text = |k: &str| match other.get(&Text::from(k)) {
            Some(AttributeValue::Text(t)) => String::from_utf8(t.bytes().to_vec()).unwrap(),
            v => panic!("{k}: {v:?}"),
        };
        let key = super::super::cryptomatte::key("CryptoObject");
        assert_eq!(text(&format!("cryptomatte/{key}/name")), "CryptoObject");
        assert_eq!(text(&format!("cryptomatte/{key}/hash")), "MurmurHash3_32");
        assert!(text(&format!("cryptomatte/{key}/manifest")).contains("\"bé\":"));
        let names: Vec<&str> = meta.headers[0]
            .channels
            .list
            .iter()
            .map(|c| std::str::from_utf8(c.name.bytes()).unwrap())
            .collect();
        assert!(names.contains(&"pick.X") && names.contains(&"CryptoMaterial02.A"));
        for name in ["light.key.R", "light.emitter:key.B", "shadow.other.X"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        let ty = |n: &str| {
            let c = meta.headers[0].channels.list.iter();
            c.clone()
                .find(|c| c.name.bytes() == n.as_bytes())
                .map(|c| c.sample_type)
        };
        assert_eq!(
            ty("light.key.G"),
            Some(exr::meta::attribute::SampleType::F32)
        );
        assert_eq!(
            ty("shadow.key.X"),
            Some(exr::meta::attribute::SampleType::F16)
        );
        // A wrong size or a non-finite value is refused before anything is encoded.
        assert!(encode_passes(5, 299, &p).is_err());
        let mut bad = p.clone();
        bad.variance[7][1] = f32::NAN;
        assert!(encode_passes(5, 300, &bad).is_err());
        let mut bad = p.clone();
        bad.light_groups[1].light[3][2] = f32::INFINITY;
        assert!(encode_passes(5, 300, &bad).is_err());
        let mut bad = p.clone();
        bad.light_groups[0].shadow.pop();
        assert!(encode_passes(5, 300, &bad).is_err());
        assert!(sort_header_attributes(&mut [0u8; 12]).is_err());
    }
}
