//! The plate's EXR files: encoding the beauty and depth, and reading RGB images back.
//!
//! Both images are single-part scanline EXRs of float32 channels with ZIP compression in
//! blocks of 16 scanlines (OpenEXR's `ZIP_COMPRESSION`): lossless, read by every EXR
//! reader. The blocks are compressed in parallel but always written in increasing y (the
//! `exr` crate stashes blocks that finish early until their turn), and no attribute carries
//! a time or a host, so the bytes depend only on the pixels, not on the thread count (and on
//! this build's `exr` and `miniz_oxide`, which a `Cargo.lock` pins).

use std::io::{self, Cursor};
use std::path::Path;

use exr::prelude::{
    AnyChannel, AnyChannels, Blocks, Compression, Encoding, FlatSamples, Image, Layer,
    LayerAttributes, LineOrder, ReadChannels, ReadLayers, SmallVec, WritableImage,
};

use super::{PlateError, PlateImages};

/// The largest image [`read_exr_rgb`] accepts, in pixels (2^27: 16384 × 8192), so a
/// corrupt or hostile header cannot ask for an arbitrary allocation.
pub const MAX_READ_PIXELS: u64 = 1 << 27;

/// The encoding of every plate EXR: see the module documentation.
pub(super) fn plate_encoding() -> Encoding {
    Encoding {
        compression: Compression::ZIP16,
        blocks: Blocks::ScanLines,
        line_order: LineOrder::Increasing,
    }
}

/// Converts the `exr` crate's error to an `io::Error`, keeping real I/O errors as they are.
pub(super) fn to_io(e: exr::error::Error) -> io::Error {
    match e {
        exr::error::Error::Io(e) => e,
        other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
    }
}

/// Whether to compress an EXR's blocks on several threads; the bytes are the same either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Threads {
    One,
    Many,
}

impl Threads {
    /// Many threads pay for starting them only with several blocks per thread: up to 128
    /// rows (8 blocks of 16) one thread compresses the image about as fast.
    pub(super) fn for_height(height: u32) -> Threads {
        if height <= 128 {
            Threads::One
        } else {
            Threads::Many
        }
    }
}

/// Encodes channels (float32 or uint32) of a `width × height` image, each row-major with the top row
/// first, into the bytes of an EXR file.
fn encode_channels(
    width: u32,
    height: u32,
    channels: Vec<(&str, FlatSamples)>,
    threads: Threads,
) -> io::Result<Vec<u8>> {
    let list: SmallVec<[AnyChannel<FlatSamples>; 4]> = channels
        .into_iter()
        .map(|(name, samples)| AnyChannel::new(name, samples))
        .collect();
    let layer = Layer::new(
        (width as usize, height as usize),
        LayerAttributes::default(),
        plate_encoding(),
        AnyChannels::sort(list),
    );
    let mut bytes = Cursor::new(Vec::new());
    let image = Image::from_layer(layer);
    let result = match threads {
        Threads::One => image.write().non_parallel().to_buffered(&mut bytes),
        Threads::Many => image.write().to_buffered(&mut bytes),
    };
    result.map_err(to_io)?;
    Ok(bytes.into_inner())
}

/// The bytes of `beauty.exr`: channels R, G, B, A, float32.
pub(super) fn encode_beauty(images: &PlateImages) -> io::Result<Vec<u8>> {
    encode_beauty_with(images, Threads::for_height(images.height))
}

fn encode_beauty_with(images: &PlateImages, threads: Threads) -> io::Result<Vec<u8>> {
    encode_float_pixels(images.width, images.height, &images.beauty, threads)
}

/// Float32 channels R, G, B (and A for four-channel pixels) of row-major pixels.
fn encode_float_pixels<const N: usize>(
    width: u32,
    height: u32,
    pixels: &[[f32; N]],
    threads: Threads,
) -> io::Result<Vec<u8>> {
    let channel = |c: usize| pixels.iter().map(|px| px[c]).collect::<Vec<f32>>();
    let names = ["R", "G", "B", "A"];
    encode_channels(
        width,
        height,
        (0..N.min(4))
            .map(|c| (names[c], FlatSamples::F32(channel(c))))
            .collect(),
        threads,
    )
}

/// The bytes of `denoised.exr` (R, G, B, A like the beauty), `albedo.exr` and `normal.exr`
/// (R, G, B), float32, when the images carry a denoising.
pub(super) fn encode_denoised(images: &PlateImages) -> io::Result<Option<[Vec<u8>; 3]>> {
    let Some(d) = &images.denoised else {
        return Ok(None);
    };
    let (w, h) = (images.width, images.height);
    let t = Threads::for_height(h);
    Ok(Some([
        encode_float_pixels(w, h, &d.beauty, t)?,
        encode_float_pixels(w, h, &d.albedo, t)?,
        encode_float_pixels(w, h, &d.normal, t)?,
    ]))
}

/// The bytes of `depth.exr`: one channel Z, float32.
pub(super) fn encode_depth(images: &PlateImages) -> io::Result<Vec<u8>> {
    encode_channels(
        images.width,
        images.height,
        vec![("Z", FlatSamples::F32(images.depth.clone()))],
        Threads::for_height(images.height),
    )
}

/// The bytes of `samples.exr` (one channel N, uint32), when the images carry sample counts.
pub(super) fn encode_samples(images: &PlateImages) -> io::Result<Option<Vec<u8>>> {
    let Some(n) = &images.samples else {
        return Ok(None);
    };
    encode_channels(
        images.width,
        images.height,
        vec![("N", FlatSamples::U32(n.clone()))],
        Threads::for_height(images.height),
    )
    .map(Some)
}

/// Reads an RGB(A) float EXR back (used by tests that compare against references). Returns (width, height, rgb pixels).
///
/// The pixels are row-major with the top row first; R, G and B are required (float16,
/// float32 or uint32 samples, converted to f32), A and any other channel are ignored. Only
/// the first layer is read, at its largest resolution level. Images over
/// [`MAX_READ_PIXELS`] are refused with `ErrorKind::InvalidData` before any pixel is
/// allocated.
pub fn read_exr_rgb(path: &Path) -> Result<(u32, u32, Vec<[f32; 3]>), PlateError> {
    let fail = |e: io::Error| PlateError::read(path, e);

    // Check the size in the header before letting the reader allocate for it.
    let meta = exr::meta::MetaData::read_from_file(path, false).map_err(|e| fail(to_io(e)))?;
    let header = meta.headers.first().ok_or_else(|| {
        fail(io::Error::new(
            io::ErrorKind::InvalidData,
            "the file has no image",
        ))
    })?;
    let (w, h) = (header.layer_size.width(), header.layer_size.height());
    let too_big = (w as u64)
        .checked_mul(h as u64)
        .is_none_or(|area| area > MAX_READ_PIXELS);
    if too_big || u32::try_from(w).is_err() || u32::try_from(h).is_err() {
        return Err(fail(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{w}×{h} pixels is more than the {MAX_READ_PIXELS} this reader accepts"),
        )));
    }

    let image = exr::prelude::read()
        .no_deep_data()
        .largest_resolution_level()
        .rgba_channels(
            |size, _| {
                // A later header could differ from the one checked above; an image past the
                // limit gets no buffer here and is refused below.
                let area = size.width() as u64 * size.height() as u64;
                let pixels = if area <= MAX_READ_PIXELS {
                    size.area()
                } else {
                    0
                };
                (size.width(), vec![[0.0f32; 3]; pixels])
            },
            |(width, pixels): &mut (usize, Vec<[f32; 3]>),
             pos,
             (r, g, b, _a): (f32, f32, f32, f32)| {
                if let Some(px) = pixels.get_mut(pos.y() * *width + pos.x()) {
                    *px = [r, g, b];
                }
            },
        )
        .first_valid_layer()
        .all_attributes()
        .non_parallel()
        .from_file(path)
        .map_err(|e| fail(to_io(e)))?;

    let size = image.layer_data.size;
    let (_, pixels) = image.layer_data.channel_data.pixels;
    match (u32::try_from(size.width()), u32::try_from(size.height())) {
        (Ok(w), Ok(h)) if pixels.len() as u64 == u64::from(w) * u64::from(h) => Ok((w, h, pixels)),
        _ => Err(fail(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{}×{} pixels is more than this reader accepts",
                size.width(),
                size.height()
            ),
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(name: &str) -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/references")
            .join(name)
    }

    /// Mean of each channel.
    fn channel_means(pixels: &[[f32; 3]]) -> [f64; 3] {
        let mut sum = [0.0f64; 3];
        for px in pixels {
            for c in 0..3 {
                sum[c] += f64::from(px[c]);
            }
        }
        sum.map(|s| s / pixels.len() as f64)
    }

    #[test]
    fn reads_the_independent_references() {
        for name in ["cornell_ref.exr", "spheres_ref.exr"] {
            let (w, h, rgb) = read_exr_rgb(&reference(name)).unwrap();
            assert_eq!((w, h), (256, 256), "{name}");
            assert_eq!(rgb.len(), 256 * 256);
            assert!(
                rgb.iter().flatten().all(|v| v.is_finite() && *v >= 0.0),
                "{name}"
            );
            let mean = channel_means(&rgb);
            assert!(
                mean.iter().all(|&m| m > 0.01 && m < 10.0),
                "{name}: mean {mean:?}"
            );
        }

        // The Cornell box: lit walls, red on the left and green on the right. Rows are
        // top first, so the top-left quarter is left wall and ceiling, not floor.
        let (_, _, rgb) = read_exr_rgb(&reference("cornell_ref.exr")).unwrap();
        let at = |x: usize, y: usize| rgb[y * 256 + x];
        let left = at(20, 128);
        let right = at(235, 128);
        assert!(left[0] > 2.0 * left[1], "left wall is red: {left:?}");
        assert!(right[1] > 2.0 * right[0], "right wall is green: {right:?}");
        // The emitter in the ceiling's centre is the brightest thing in the picture.
        let brightest = (0..rgb.len())
            .max_by(|&a, &b| rgb[a][1].total_cmp(&rgb[b][1]))
            .unwrap_or(0);
        assert!(
            brightest / 256 < 40,
            "the brightest pixel (row {}) is near the top",
            brightest / 256
        );
    }

    #[test]
    fn bytes_do_not_depend_on_the_thread_count() {
        // Tall enough for many 16-line blocks, so parallel compression finishes them out of
        // order and the writer has to put them back in order.
        let images = super::super::tests::test_images(97, 301);
        let one = encode_beauty_with(&images, Threads::One).unwrap();
        let many = encode_beauty_with(&images, Threads::Many).unwrap();
        assert!(one == many, "{} and {} bytes differ", one.len(), many.len());
        // The ZIP compression is real: this image's floats shrink.
        assert!(one.len() < 97 * 301 * 16, "{} bytes", one.len());
    }

    #[test]
    fn refuses_what_is_not_an_rgb_exr() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing.exr");
        let e = read_exr_rgb(&missing).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::NotFound);
        assert_eq!(
            e.to_string(),
            format!("cannot read {}: {}", missing.display(), e.source)
        );

        let garbage = tmp.path().join("garbage.exr");
        std::fs::write(&garbage, b"v/1\x01 this is not an EXR file at all").unwrap();
        assert_eq!(
            read_exr_rgb(&garbage).unwrap_err().source.kind(),
            io::ErrorKind::InvalidData
        );

        // A depth-only EXR has no R, G, B.
        let images = PlateImages {
            width: 2,
            height: 2,
            beauty: vec![[0.0; 4]; 4],
            depth: vec![1.0, 2.0, 3.0, 4.0],
            samples: None,
            denoised: None,
            view_normal: None,
        };
        let depth = tmp.path().join("depth.exr");
        std::fs::write(&depth, encode_depth(&images).unwrap()).unwrap();
        assert_eq!(
            read_exr_rgb(&depth).unwrap_err().source.kind(),
            io::ErrorKind::InvalidData
        );

        // A truncated beauty.
        let beauty = encode_beauty(&super::super::tests::test_images(16, 16)).unwrap();
        let cut = tmp.path().join("cut.exr");
        std::fs::write(&cut, &beauty[..beauty.len() / 2]).unwrap();
        assert!(read_exr_rgb(&cut).is_err());
    }
}
