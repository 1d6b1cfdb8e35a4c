//! Cryptomatte (Psyop's specification, v1.2): per pixel the ids of the things it shows with
//! their coverage, ranked by coverage, in float32 channels `<Type>00.R…A`, `<Type>01…`, each
//! RGBA holding two (id, coverage) pairs, and the header attributes
//! `cryptomatte/<key>/{name,hash,conversion,manifest}` that Nuke's, Blender's and Houdini's
//! readers look for.
//!
//! An id is the MurmurHash3_32 (x86, seed 0) of the thing's name in UTF-8, read as the bits
//! of a float32 after the specification's fix-up (an exponent of all zeros or all ones has
//! its lowest bit flipped, so no id is a denormal, an infinity or a NaN); the manifest maps
//! each name to those bits as 8 hex digits.

/// Ranks (id, coverage pairs) written per pixel: six, in three RGBA layers, as Blender's
/// default Cryptomatte levels. A pixel showing more things drops the smallest shares.
pub const RANKS: usize = 6;

/// MurmurHash3's 32-bit x86 variant (Austin Appleby, SMHasher `MurmurHash3_x86_32`) of
/// `data` with `seed`.
pub fn murmur3_32(data: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h = seed;
    let mut blocks = data.chunks_exact(4);
    for b in &mut blocks {
        let k = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        h ^= k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut k = 0u32;
        for (i, &b) in tail.iter().enumerate() {
            k |= (b as u32) << (8 * i);
        }
        h ^= k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    }
    h ^= data.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// The bits of `name`'s Cryptomatte id: its MurmurHash3_32 with an exponent of all zeros or
/// all ones made ordinary by flipping its lowest bit (bit 23).
pub fn id_bits(name: &str) -> u32 {
    let h = murmur3_32(name.as_bytes(), 0);
    let exponent = (h >> 23) & 0xff;
    if exponent == 0 || exponent == 0xff {
        h ^ (1 << 23)
    } else {
        h
    }
}

/// `name`'s Cryptomatte id as the float32 the channels store (always finite and normal).
pub fn id(name: &str) -> f32 {
    f32::from_bits(id_bits(name))
}

/// The key of a Cryptomatte named `layer` in the header's attribute names: the first seven
/// hex digits of the name's MurmurHash3_32, as the reference implementations make it.
pub fn key(layer: &str) -> String {
    format!("{:08x}", murmur3_32(layer.as_bytes(), 0))[..7].to_owned()
}

/// One Cryptomatte of a plate: what its ids name and, per pixel, what the pixel shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Cryptomatte {
    /// The layer's name, the channels' prefix: `CryptoObject`, `CryptoMaterial`.
    pub layer: String,
    /// The names the pixels' indices refer to (an object's or material's name).
    pub names: Vec<String>,
    /// Per pixel, row-major from the top row: (index into `names`, coverage in `[0, 1]`),
    /// the largest coverage first; at most [`RANKS`] are written.
    pub pixels: Vec<Vec<(u32, f32)>>,
}

impl Cryptomatte {
    /// The float32 channels `<layer>00.R` … `<layer>02.A`, each one value per pixel: rank
    /// `2·l` in `<layer>0l.R` (id) and `.G` (coverage), rank `2·l + 1` in `.B` and `.A`.
    /// An empty rank is id 0, coverage 0.
    pub fn channels(&self) -> Vec<(String, Vec<f32>)> {
        let ids: Vec<f32> = self.names.iter().map(|n| id(n)).collect();
        let mut out = Vec::new();
        for level in 0..RANKS.div_ceil(2) {
            for (c, channel) in ["R", "G", "B", "A"].iter().enumerate() {
                let rank = 2 * level + c / 2;
                let values = self
                    .pixels
                    .iter()
                    .map(|px| match (px.get(rank), c % 2) {
                        (Some(&(i, _)), 0) => ids.get(i as usize).copied().unwrap_or(0.0),
                        (Some(&(_, coverage)), _) => coverage,
                        (None, _) => 0.0,
                    })
                    .collect();
                out.push((format!("{}{level:02}.{channel}", self.layer), values));
            }
        }
        out
    }

    /// The header attributes, (name, text value): `name`, `hash`, `conversion` and
    /// `manifest` under `cryptomatte/<key>/`. The manifest is a JSON object of each name
    /// the pixels show (sorted, so the bytes do not depend on the scene's order) to its id's
    /// bits in hex.
    pub fn attributes(&self) -> Vec<(String, String)> {
        let prefix = format!("cryptomatte/{}/", key(&self.layer));
        // The names some pixel shows: a manifest of what the image holds.
        let mut shown = vec![false; self.names.len()];
        for (i, _) in self.pixels.iter().flat_map(|px| px.iter().take(RANKS)) {
            if let Some(s) = shown.get_mut(*i as usize) {
                *s = true;
            }
        }
        let mut names: Vec<&String> = self
            .names
            .iter()
            .zip(&shown)
            .filter_map(|(n, s)| s.then_some(n))
            .collect();
        names.sort();
        names.dedup();
        let entries: Vec<String> = names
            .iter()
            .map(|n| {
                let quoted = serde_json::Value::String((*n).clone()).to_string();
                format!("{quoted}:\"{:08x}\"", id_bits(n))
            })
            .collect();
        vec![
            (format!("{prefix}conversion"), "uint32_to_float32".into()),
            (format!("{prefix}hash"), "MurmurHash3_32".into()),
            (
                format!("{prefix}manifest"),
                format!("{{{}}}", entries.join(",")),
            ),
            (format!("{prefix}name"), self.layer.clone()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn murmur3_matches_published_test_vectors() {
        // SMHasher's MurmurHash3_x86_32 vectors (as listed with the reference code and on
        // Wikipedia): every tail length and a seed.
        assert_eq!(murmur3_32(b"", 0), 0);
        assert_eq!(murmur3_32(b"", 1), 0x514e_28b7);
        assert_eq!(murmur3_32(b"", 0xffff_ffff), 0x81f1_6f39);
        assert_eq!(murmur3_32(b"\0\0\0\0", 0), 0x2362_f9de);
        assert_eq!(murmur3_32(b"aaaa", 0x9747_b28c), 0x5a97_808a);
        assert_eq!(murmur3_32(b"aaa", 0x9747_b28c), 0x283e_0130);
        assert_eq!(murmur3_32(b"aa", 0x9747_b28c), 0x5d21_1726);
        assert_eq!(murmur3_32(b"a", 0x9747_b28c), 0x7fa0_9ea6);
        assert_eq!(murmur3_32(b"Hello, world!", 0x9747_b28c), 0x2488_4cba);
        assert_eq!(
            murmur3_32(b"The quick brown fox jumps over the lazy dog", 0x9747_b28c),
            0x2fa8_26cd
        );
    }

    #[test]
    fn ids_are_finite_normal_floats() {
        for i in 0..2000 {
            let v = id(&format!("object {i}"));
            assert!(v.is_finite() && v.is_normal(), "{i}: {v}");
        }
        // The fix-up flips exactly bit 23 where it applies.
        let name = (0..100_000)
            .map(|i| format!("n{i}"))
            .find(|n| (murmur3_32(n.as_bytes(), 0) >> 23) & 0xff == 0)
            .unwrap();
        assert_eq!(id_bits(&name), murmur3_32(name.as_bytes(), 0) ^ (1 << 23));
    }

    #[test]
    fn channels_hold_ranked_pairs_and_the_manifest_names_them() {
        let c = Cryptomatte {
            layer: "CryptoObject".into(),
            names: vec!["b\"all".into(), "floor".into()],
            pixels: vec![vec![(1, 0.75), (0, 0.25)], vec![]],
        };
        let ch = c.channels();
        assert_eq!(ch.len(), 12);
        assert_eq!(ch[0].0, "CryptoObject00.R");
        assert_eq!(ch[0].1, vec![id("floor"), 0.0]);
        assert_eq!(ch[1].1, vec![0.75, 0.0]);
        assert_eq!(ch[2].1, vec![id("b\"all"), 0.0]);
        assert_eq!(ch[3].1, vec![0.25, 0.0]);
        assert_eq!(ch[11].0, "CryptoObject02.A");
        let attrs = c.attributes();
        let k = key("CryptoObject");
        assert_eq!(
            attrs[3],
            (format!("cryptomatte/{k}/name"), "CryptoObject".into())
        );
        let manifest: serde_json::Value = serde_json::from_str(&attrs[2].1).unwrap();
        assert_eq!(
            manifest["floor"],
            serde_json::json!(format!("{:08x}", id("floor").to_bits()))
        );
        assert_eq!(manifest["b\"all"].as_str().map(str::len), Some(8));
    }
}
