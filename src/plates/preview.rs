//! The plate's preview: an 8-bit sRGB picture of the beauty, finished by the scene's chain
//! (`crate::finish`), for people; alpha is left out (opaque RGB, the beauty over black).
//!
//! [`preview_rgb8`] is the plain picture the golden images compare: each of R, G, B clamped
//! to [0, 1], encoded with the sRGB transfer function (IEC 61966-2-1) and rounded to the
//! nearest of 0..=255, with no finish, so that a comparison judges the radiance alone.

use std::io;

use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{ExtendedColorType, ImageEncoder};

use super::PlateImages;
use crate::finish::Chain;

/// The sRGB transfer function (linear → encoded) of a value in [0, 1].
fn srgb_encode(linear: f32) -> f32 {
    if linear <= 0.003_130_8 {
        12.92 * linear
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    }
}

/// One linear channel value to its 8-bit sRGB code: clamped to [0, 1] first, so any value
/// above 1 is white, anything at or below 0 is black, and NaN (which a plate never holds)
/// is black too.
fn to_srgb8(linear: f32) -> u8 {
    if linear.is_nan() {
        return 0;
    }
    let v = srgb_encode(linear.clamp(0.0, 1.0));
    // `v` lies in [0, 1], so the rounded product lies in [0, 255] and the cast is exact.
    (v * 255.0).round() as u8
}

/// The preview's pixels (sRGB 8-bit RGB), exposed for tests and golden images.
///
/// Row-major, top row first, three bytes per pixel; the alpha channel is not used.
pub fn preview_rgb8(images: &PlateImages) -> Vec<u8> {
    // A denoised bake previews its denoised beauty: what an artist wants to judge.
    images
        .denoised
        .as_ref()
        .map_or(&images.beauty, |d| &d.beauty)
        .iter()
        .flat_map(|px| [to_srgb8(px[0]), to_srgb8(px[1]), to_srgb8(px[2])])
        .collect()
}

/// The preview's pixels finished by `chain` (sRGB 8-bit RGB, row-major, top row first): the
/// denoised beauty when the bake denoised, else the beauty.
pub fn finished_rgb8(images: &PlateImages, chain: &Chain) -> Vec<u8> {
    let beauty = images
        .denoised
        .as_ref()
        .map_or(&images.beauty, |d| &d.beauty);
    let rgb: Vec<[f32; 3]> = beauty.iter().map(|p| [p[0], p[1], p[2]]).collect();
    // The depth lets the outline draw the depth's steps; the normal, creases and shading.
    let surfaces = crate::finish::Surfaces {
        depth: Some(&images.depth),
        normal: images.view_normal.as_deref(),
    };
    chain.apply_to(images.width, images.height, &rgb, &surfaces)
}

/// The bytes of `preview.png` finished by `chain`: 8-bit RGB, no gamma, colour-profile or
/// time chunks (a reader takes untagged 8-bit PNG as sRGB), default deflate level and
/// adaptive filtering.
pub(super) fn encode_preview_png(images: &PlateImages, chain: &Chain) -> io::Result<Vec<u8>> {
    encode_rgb8_png(&finished_rgb8(images, chain), images.width, images.height)
}

/// 8-bit RGB pixels as PNG bytes, as `preview.png` is written.
pub fn encode_rgb8_png(rgb: &[u8], width: u32, height: u32) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    PngEncoder::new_with_quality(&mut bytes, CompressionType::Default, FilterType::Adaptive)
        .write_image(rgb, width, height, ExtendedColorType::Rgb8)
        .map_err(|e| match e {
            image::ImageError::IoError(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidData, other.to_string()),
        })?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_pixel(rgb: [f32; 3]) -> PlateImages {
        PlateImages {
            width: 1,
            height: 1,
            beauty: vec![[rgb[0], rgb[1], rgb[2], 1.0]],
            depth: vec![1.0],
            samples: None,
            denoised: None,
            view_normal: None,
        }
    }

    #[test]
    fn tone_maps_by_clamp_and_srgb() {
        // 0.5 encodes to 0.735357…, 187.52 → 188 (IEC 61966-2-1).
        assert_eq!(preview_rgb8(&one_pixel([0.0, 1.0, 0.5])), [0, 255, 188]);
        assert_eq!(preview_rgb8(&one_pixel([2.0, -1.0, 1e30])), [255, 0, 255]);
        assert_eq!(
            preview_rgb8(&one_pixel([f32::NAN, f32::INFINITY, f32::NEG_INFINITY])),
            [0, 255, 0]
        );
        // The linear segment: 0.001 × 12.92 × 255 = 3.29 → 3; just above the knee,
        // 0.0031308 ↦ 0.04045 ↦ 10.31 → 10 from either side.
        assert_eq!(to_srgb8(0.001), 3);
        assert_eq!(to_srgb8(0.003_130_8), 10);
        assert_eq!(to_srgb8(0.003_131), 10);
        // 18% grey is code 118 in sRGB.
        assert_eq!(to_srgb8(0.18), 118);
        // Monotone over the whole range.
        let codes: Vec<u8> = (0..=4096).map(|i| to_srgb8(i as f32 / 4096.0)).collect();
        assert!(codes.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!((codes[0], codes[4096]), (0, 255));
    }

    #[test]
    fn png_holds_the_preview_pixels_top_row_first() {
        let images = PlateImages {
            width: 2,
            height: 2,
            beauty: vec![
                [1.0, 0.0, 0.0, 1.0],
                [0.0, 1.0, 0.0, 1.0],
                [0.0, 0.0, 1.0, 0.0],
                [0.5; 4],
            ],
            depth: vec![1.0; 4],
            samples: None,
            denoised: None,
            view_normal: None,
        };
        // The clamp finish (an empty chain) shows the radiance as it is.
        let clamp = Chain {
            standard: false,
            passes: Vec::new(),
            ..Chain::standard()
        };
        let png = encode_preview_png(&images, &clamp).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let decoded = image::load_from_memory(&png).unwrap();
        assert_eq!(decoded.color(), image::ColorType::Rgb8);
        let rgb = decoded.into_rgb8();
        assert_eq!(rgb.get_pixel(0, 0).0, [255, 0, 0]);
        assert_eq!(rgb.get_pixel(1, 0).0, [0, 255, 0]);
        assert_eq!(rgb.get_pixel(0, 1).0, [0, 0, 255]);
        assert_eq!(rgb.get_pixel(1, 1).0, [188, 188, 188]);
    }
}
