//! The glTF 2.0 binary container (`.glb`, glTF 2.0 specification §4.4): a 12-byte header,
//! a JSON chunk padded with spaces and a BIN chunk padded with zeros, each to 4 bytes.
//!
//! Hand-written rather than a dependency: the container is three little-endian words and two
//! chunks, and the `gltf` crate the loader uses reads glTF but does not write it.

use std::io;

/// `glTF`, read as a little-endian `u32`.
const MAGIC: u32 = 0x4654_6C67;
/// The container version.
const VERSION: u32 = 2;
/// Chunk types: `JSON` and `BIN\0`, little-endian.
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The `.glb` bytes of the glTF document `json` with `bin` as its buffer 0 (no BIN chunk when
/// `bin` is empty). The JSON is written compact, in `serde_json`'s key order, so the bytes
/// depend only on the document. Refuses a file past 4 GiB, the container's limit.
pub fn encode(json: &serde_json::Value, bin: &[u8]) -> io::Result<Vec<u8>> {
    let mut text =
        serde_json::to_vec(json).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let bin_padded = bin.len().div_ceil(4) * 4;
    let total = 12 + 8 + text.len() + if bin.is_empty() { 0 } else { 8 + bin_padded };
    let word = |n: usize| {
        u32::try_from(n).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a .glb holds at most 4 GiB; this one would be {n} bytes"),
            )
        })
    };
    let mut out = Vec::with_capacity(total);
    for w in [MAGIC, VERSION, word(total)?, word(text.len())?, CHUNK_JSON] {
        out.extend_from_slice(&w.to_le_bytes());
    }
    out.extend_from_slice(&text);
    if !bin.is_empty() {
        for w in [word(bin_padded)?, CHUNK_BIN] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(bin);
        out.resize(total, 0);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header's length is the file's, each chunk starts on a 4-byte boundary with its
    /// padded length, and the JSON pads with spaces, the buffer with zeros.
    #[test]
    fn chunks_are_aligned_and_lengths_match() {
        let json = serde_json::json!({ "asset": { "version": "2.0" }, "x": 1 });
        let bytes = encode(&json, &[1, 2, 3, 4, 5]).unwrap();
        let u = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap()) as usize;
        assert_eq!(&bytes[0..4], b"glTF");
        assert_eq!(u(4), 2);
        assert_eq!(u(8), bytes.len());
        let jl = u(12);
        assert_eq!(jl % 4, 0);
        assert_eq!(&bytes[16..20], b"JSON");
        let text = std::str::from_utf8(&bytes[20..20 + jl]).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(text.trim_end()).unwrap(),
            json
        );
        let b = 20 + jl;
        assert_eq!(u(b), 8);
        assert_eq!(&bytes[b + 4..b + 8], b"BIN\0");
        assert_eq!(&bytes[b + 8..], &[1, 2, 3, 4, 5, 0, 0, 0]);
        assert_eq!(bytes.len() % 4, 0);
        // No buffer, no BIN chunk.
        let bare = encode(&json, &[]).unwrap();
        assert_eq!(bare.len(), 20 + jl);
    }
}
