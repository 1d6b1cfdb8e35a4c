//! Radiance RGBE (.hdr) sky maps.

use super::{AssetError, AssetErrorKind, HdrMap};
use image::codecs::hdr::HdrDecoder;
use image::ImageDecoder;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

/// The widest sky map accepted, texels. 16384×8192 is 1.5 GiB of `[f32; 3]`; anything larger
/// is far beyond what a baked plate can resolve and is refused before any allocation.
pub const MAX_HDR_WIDTH: u32 = 16384;
/// The tallest sky map accepted, texels.
pub const MAX_HDR_HEIGHT: u32 = 8192;

/// Loads an equirectangular Radiance .hdr file as linear RGB radiance.
///
/// The header's size is checked against [`MAX_HDR_WIDTH`]×[`MAX_HDR_HEIGHT`] before the texels
/// are allocated. An `EXPOSURE=` header (the factor the writer multiplied the radiance by) is
/// divided back out. Negative or non-finite texels (RGBE cannot encode them, but an EXPOSURE
/// of 0 or a damaged file could produce them) are clamped to 0, so every texel is finite and
/// non-negative. Only the standard `-Y <height> +X <width>` orientation is read (the decoder
/// refuses the others), so row 0 is the top of the image.
pub fn load_hdr(path: &Path) -> Result<HdrMap, AssetError> {
    let file = File::open(path).map_err(|e| {
        AssetError::new(
            path,
            AssetErrorKind::Unreadable,
            format!("cannot open the HDR file: {e}"),
        )
    })?;
    let decoder = HdrDecoder::new(BufReader::new(file)).map_err(|e| {
        AssetError::new(
            path,
            AssetErrorKind::HdrInvalid,
            format!("not a Radiance HDR file: {e}"),
        )
    })?;
    let (width, height) = decoder.dimensions();
    if width == 0 || height == 0 {
        return Err(AssetError::new(
            path,
            AssetErrorKind::HdrInvalid,
            format!("the HDR image is empty ({width}×{height} texels)"),
        ));
    }
    if width > MAX_HDR_WIDTH || height > MAX_HDR_HEIGHT {
        return Err(AssetError::new(
            path,
            AssetErrorKind::HdrInvalid,
            format!(
                "the HDR image is {width}×{height} texels, larger than the \
                 {MAX_HDR_WIDTH}×{MAX_HDR_HEIGHT} accepted"
            ),
        ));
    }
    // Exposure multiplies the stored values; radiance is stored / exposure. A missing or
    // unusable exposure leaves the values as stored.
    let scale = match decoder.metadata().exposure {
        Some(e) if e.is_finite() && e > 0.0 => 1.0 / e,
        _ => 1.0,
    };
    let texel_count = width as usize * height as usize;
    // Both factors were bounded above, so this product (≤ 1.6e9) cannot overflow usize on
    // the 64-bit targets this crate builds for; checked anyway for 32-bit ones.
    let byte_count = texel_count
        .checked_mul(3 * std::mem::size_of::<f32>())
        .ok_or_else(|| {
            AssetError::new(
                path,
                AssetErrorKind::HdrInvalid,
                "the HDR image is too large to address",
            )
        })?;
    let mut bytes = vec![0u8; byte_count];
    decoder.read_image(&mut bytes).map_err(|e| {
        AssetError::new(
            path,
            AssetErrorKind::HdrInvalid,
            format!("cannot decode the HDR texels: {e}"),
        )
    })?;
    let clamp = |v: f32| {
        let v = v * scale;
        if v.is_finite() && v > 0.0 {
            v
        } else {
            0.0
        }
    };
    let texels = bytes
        .chunks_exact(12)
        .map(|t| {
            let c = |k: usize| f32::from_ne_bytes([t[k], t[k + 1], t[k + 2], t[k + 3]]);
            // chunks_exact(12) hands out exactly 12 bytes, so k + 3 ≤ 11 is in range.
            [clamp(c(0)), clamp(c(4)), clamp(c(8))]
        })
        .collect();
    Ok(HdrMap {
        width,
        height,
        texels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::PathBuf;

    fn data(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name)
    }

    #[test]
    fn noon_grass_small_loads_finite() {
        let map = load_hdr(&data("hdr/noon_grass_128x64_flat.hdr")).expect("loads");
        assert_eq!((map.width, map.height), (128, 64));
        assert_eq!(map.texels.len(), 128 * 64);
        assert!(map
            .texels
            .iter()
            .flatten()
            .all(|v| v.is_finite() && *v >= 0.0));
        // A daylight sky: the top rows (sky) are brighter on average than the bottom (grass).
        let row_mean = |y: u32| {
            (0..map.width)
                .filter_map(|x| map.texel(x, y))
                .map(|t| t[0] + t[1] + t[2])
                .sum::<f32>()
                / map.width as f32
        };
        let sky: f32 = (0..8).map(row_mean).sum();
        let ground: f32 = (56..64).map(row_mean).sum();
        assert!(sky > ground, "sky {sky} ground {ground}");
    }

    /// Writes a flat (uncompressed) RGBE file: header, then `w*h` 4-byte texels.
    fn write_rgbe(header_extra: &str, w: u32, h: u32, texel: [u8; 4]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        // Header lines, a blank line ending the header, then the size line.
        let mut header = String::from("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n");
        if !header_extra.is_empty() {
            header.push_str(header_extra);
            header.push('\n');
        }
        write!(f, "{header}\n-Y {h} +X {w}\n").expect("write");
        for _ in 0..(w * h) {
            f.write_all(&texel).expect("write");
        }
        f.flush().expect("flush");
        f
    }

    #[test]
    fn decodes_rgbe_and_divides_exposure() {
        // RGBE (128, 64, 32, e=129): value = m / 256 · 2^(129-128) = m / 128.
        let f = write_rgbe("", 3, 2, [128, 64, 32, 129]);
        let map = load_hdr(f.path()).expect("loads");
        assert_eq!((map.width, map.height), (3, 2));
        for t in &map.texels {
            assert_eq!(*t, [1.0, 0.5, 0.25]);
        }
        let f = write_rgbe("EXPOSURE=2.0", 3, 2, [128, 64, 32, 129]);
        let map = load_hdr(f.path()).expect("loads");
        assert_eq!(map.texels[0], [0.5, 0.25, 0.125]);
    }

    #[test]
    fn refuses_oversized_before_allocating() {
        // Header claims 100000×60000 texels but holds none: refused by size, not by a failed
        // 72 GB allocation or a truncation error.
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        write!(
            f,
            "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 60000 +X 100000\n"
        )
        .expect("write");
        f.flush().expect("flush");
        let e = load_hdr(f.path()).expect_err("refused");
        assert!(e.message.contains("100000×60000"), "{e}");
        assert_eq!(e.kind, AssetErrorKind::HdrInvalid);
    }

    #[test]
    fn truncated_and_garbage_files_are_errors() {
        let good = std::fs::read(data("hdr/noon_grass_128x64_flat.hdr")).expect("read");
        for cut in [0, 5, 30, 60, good.len() / 2, good.len() - 1] {
            let mut f = tempfile::NamedTempFile::new().expect("temp file");
            f.write_all(&good[..cut]).expect("write");
            f.flush().expect("flush");
            let e = load_hdr(f.path()).expect_err("cut accepted");
            assert_eq!(e.kind, AssetErrorKind::HdrInvalid, "cut at {cut}: {e}");
        }
        let e = load_hdr(Path::new("/nonexistent/sky.hdr")).expect_err("missing");
        assert!(e.to_string().starts_with("/nonexistent/sky.hdr: "), "{e}");
        assert_eq!(e.kind, AssetErrorKind::Unreadable);
    }
    /// A 1k map of the project's copy decodes (run-length encoded scanlines, a header that
    /// repeats its `#?RADIANCE` signature line) with the peak the shared asset README measured
    /// with an independent decoder; the flat 128×64 map beside it is its neighbour's box
    /// filter, so its mean stays that of a daylit sky (the README's 3.0 for noon_grass_1k).
    #[test]
    fn project_maps_match_their_readme_figures() {
        let map = load_hdr(&data("hdr/kloppenheim_05_1k.hdr")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((map.width, map.height), (1024, 512));
        let max = map.texels.iter().flatten().fold(0.0f32, |a, &b| a.max(b));
        assert!((max / 8.3e4 - 1.0).abs() < 0.1, "max {max}, README 8.3e4");
        let header = std::fs::read(data("hdr/kloppenheim_05_1k.hdr")).expect("read");
        let signatures = header
            .split(|&b| b == b'\n')
            .take(8)
            .filter(|l| l.starts_with(b"#?RADIANCE"))
            .count();
        assert_eq!(signatures, 2, "the header repeats its signature line");
        let flat = load_hdr(&data("hdr/noon_grass_128x64_flat.hdr")).expect("flat map");
        let mean = flat
            .texels
            .iter()
            .flatten()
            .map(|&v| f64::from(v))
            .sum::<f64>()
            / (flat.texels.len() * 3) as f64;
        assert!((mean / 3.0 - 1.0).abs() < 0.1, "mean {mean}, README 3.0");
    }
}
