//! Cut-out coverage: the alpha of glTF materials whose `alphaMode` is MASK or BLEND, and the
//! alpha channel of their base colour texture, kept as one byte per texel.
//!
//! Only the alpha is kept: a bake decides with it whether a ray passes through a texel (the
//! object's `alpha_cutoff`); base colour textures for shading are not read yet. Decoding is
//! the `image` crate's (PNG and JPEG, the two formats core glTF allows), with the image's
//! size checked against [`MAX_TEXTURE_SIDE`] before any texel is allocated.

use std::io::Cursor;
use std::sync::Arc;

use glam::Vec2;

/// The largest width or height of a texture decoded, texels (glTF's own viewers rarely take
/// more; 16384² bytes of alpha is 256 MiB).
pub const MAX_TEXTURE_SIDE: u32 = 16384;

/// A glTF sampler's wrap mode along one texture axis (glTF 2.0 §5.26).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Wrap {
    /// 10497, glTF's default: the texture tiles.
    #[default]
    Repeat,
    /// 33071: coordinates outside [0, 1] take the edge texel.
    ClampToEdge,
    /// 33648: the texture tiles, every other tile mirrored.
    MirroredRepeat,
}

impl Wrap {
    /// The texel index, in `0..n`, that integer texel coordinate `i` reads. `n` is at least 1.
    pub fn texel(self, i: i64, n: u32) -> usize {
        let n = i64::from(n.max(1));
        let k = match self {
            Wrap::Repeat => i.rem_euclid(n),
            Wrap::ClampToEdge => i.clamp(0, n - 1),
            Wrap::MirroredRepeat => {
                let m = i.rem_euclid(2 * n);
                if m < n {
                    m
                } else {
                    2 * n - 1 - m
                }
            }
        };
        k as usize
    }
}

/// How texels are combined at a lookup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Filter {
    /// The texel the point falls in (a sampler's `magFilter` NEAREST).
    Nearest,
    /// The four nearest texel centres, weighted bilinearly (any other `magFilter`, or none).
    #[default]
    Bilinear,
}

/// The alpha channel of a texture, with its sampler's wrap modes and filter.
#[derive(Clone, Debug, PartialEq)]
pub struct AlphaTexture {
    /// Texels per row, at least 1.
    pub width: u32,
    /// Rows, at least 1.
    pub height: u32,
    /// `width × height` alpha values, row 0 at the top (glTF's v = 0).
    pub alpha: Vec<u8>,
    /// Wrap along u (the sampler's `wrapS`).
    pub wrap_s: Wrap,
    /// Wrap along v (the sampler's `wrapT`).
    pub wrap_t: Wrap,
    /// Texel filter.
    pub filter: Filter,
}

/// A texel coordinate from a texture coordinate, finite and well inside `i64`. A non-finite
/// coordinate reads texel coordinate 0.
fn texel_coord(uv: f32, n: u32) -> f64 {
    let x = f64::from(uv) * f64::from(n);
    if x.is_finite() {
        x.clamp(-1e15, 1e15)
    } else {
        0.0
    }
}

impl AlphaTexture {
    fn at(&self, x: i64, y: i64) -> f32 {
        let i = self.wrap_t.texel(y, self.height) * self.width as usize
            + self.wrap_s.texel(x, self.width);
        f32::from(self.alpha.get(i).copied().unwrap_or(255)) / 255.0
    }

    /// The alpha, 0 to 1, at texture coordinate `uv` (glTF convention: (0, 0) is the top-left
    /// corner of the image, (1, 1) the bottom-right).
    pub fn sample(&self, uv: Vec2) -> f32 {
        let x = texel_coord(uv.x, self.width);
        let y = texel_coord(uv.y, self.height);
        match self.filter {
            Filter::Nearest => self.at(x.floor() as i64, y.floor() as i64),
            Filter::Bilinear => {
                // Texel centres sit at half-integers.
                let (x, y) = (x - 0.5, y - 0.5);
                let (x0, y0) = (x.floor(), y.floor());
                let (fx, fy) = ((x - x0) as f32, (y - y0) as f32);
                let (x0, y0) = (x0 as i64, y0 as i64);
                let top = self.at(x0, y0) * (1.0 - fx) + self.at(x0 + 1, y0) * fx;
                let bottom = self.at(x0, y0 + 1) * (1.0 - fx) + self.at(x0 + 1, y0 + 1) * fx;
                top * (1.0 - fy) + bottom * fy
            }
        }
    }
}

/// Decodes a PNG or JPEG image and keeps its alpha channel. `Ok(None)` for an image without
/// one (every JPEG, an RGB or grey PNG): its alpha is 1 everywhere and needs no storage.
pub fn decode_alpha(
    bytes: &[u8],
    wrap_s: Wrap,
    wrap_t: Wrap,
    filter: Filter,
) -> Result<Option<AlphaTexture>, String> {
    let reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| format!("cannot read the image: {e}"))?;
    match reader.format() {
        Some(image::ImageFormat::Png | image::ImageFormat::Jpeg) => {}
        Some(f) => return Err(format!("the image is {f:?}; glTF textures are PNG or JPEG")),
        None => return Err("the image is neither PNG nor JPEG".into()),
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_TEXTURE_SIDE);
    limits.max_image_height = Some(MAX_TEXTURE_SIDE);
    // Room for the largest accepted image as 16-bit RGBA, the widest the two formats decode to.
    limits.max_alloc = Some(u64::from(MAX_TEXTURE_SIDE).pow(2) * 8);
    let mut reader = reader;
    reader.limits(limits);
    let img = reader
        .decode()
        .map_err(|e| format!("cannot decode the image: {e}"))?;
    if img.width() == 0 || img.height() == 0 {
        return Err("the image is empty".into());
    }
    if !img.color().has_alpha() {
        return Ok(None);
    }
    let (width, height) = (img.width(), img.height());
    let alpha: Vec<u8> = match img {
        image::DynamicImage::ImageRgba8(rgba) => rgba.pixels().map(|p| p.0[3]).collect(),
        image::DynamicImage::ImageLumaA8(la) => la.pixels().map(|p| p.0[1]).collect(),
        other => other.to_luma_alpha8().pixels().map(|p| p.0[1]).collect(),
    };
    Ok(Some(AlphaTexture {
        width,
        height,
        alpha,
        wrap_s,
        wrap_t,
        filter,
    }))
}

/// How a cut-out glTF material (alphaMode MASK, or BLEND drawn as MASK) covers its surface:
/// alpha = `factor` × the texture's alpha at the point's TEXCOORD_0.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    /// The glTF material's name, or `material <index>` when it has none, for messages.
    pub material: String,
    /// The material's alphaMode is BLEND (the world builder draws it as MASK and says so).
    pub blend: bool,
    /// The alpha of `baseColorFactor`, in [0, 1].
    pub factor: f32,
    /// The alpha of `baseColorTexture`; `None` without a texture, or for one without an alpha
    /// channel (alpha 1 everywhere).
    pub texture: Option<Arc<AlphaTexture>>,
    /// The file's own `alphaCutoff` (0.5 when not written, glTF's default). Reported only: the
    /// object's `alpha_cutoff` is the threshold (docs/rendering.md).
    pub file_cutoff: f32,
}

impl Coverage {
    /// The alpha, 0 to 1, at texture coordinate `uv`.
    pub fn alpha(&self, uv: Vec2) -> f32 {
        match &self.texture {
            Some(t) => self.factor * t.sample(uv),
            None => self.factor,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4×1 ramp of alphas 0, 85, 170, 255 (0, 1/3, 2/3, 1) with the given wraps.
    fn ramp(wrap_s: Wrap, filter: Filter) -> AlphaTexture {
        AlphaTexture {
            width: 4,
            height: 1,
            alpha: vec![0, 85, 170, 255],
            wrap_s,
            wrap_t: Wrap::Repeat,
            filter,
        }
    }

    /// Nearest lookups at texel centres `i + 0.5` of the 4-texel ramp, i from -6 to 9.
    fn centres(t: &AlphaTexture) -> Vec<u8> {
        (-6..10)
            .map(|i| (t.sample(Vec2::new((i as f32 + 0.5) / 4.0, 0.5)) * 3.0).round() as u8)
            .collect()
    }

    #[test]
    fn repeat_tiles() {
        let t = ramp(Wrap::Repeat, Filter::Nearest);
        // Texel -6 is texel 2 (−6 mod 4), and so on.
        assert_eq!(
            centres(&t),
            [2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1]
        );
    }

    #[test]
    fn clamp_to_edge_holds_the_edge_texels() {
        let t = ramp(Wrap::ClampToEdge, Filter::Nearest);
        assert_eq!(
            centres(&t),
            [0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3]
        );
    }

    #[test]
    fn mirrored_repeat_mirrors_every_other_tile() {
        let t = ramp(Wrap::MirroredRepeat, Filter::Nearest);
        // Tile −2 (texels −8..−5) is plain, tile −1 mirrored, tile 0 plain, tile 1 mirrored,
        // tile 2 plain: ... 2 3 | 3 2 1 0 | 0 1 2 3 | 3 2 1 0 | 0 1
        assert_eq!(
            centres(&t),
            [2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1]
        );
    }

    #[test]
    fn bilinear_weights_neighbouring_centres() {
        let t = ramp(Wrap::ClampToEdge, Filter::Bilinear);
        // Halfway between the centres of texels 1 and 2 (u = 2/4): (1/3 + 2/3) / 2.
        assert!((t.sample(Vec2::new(0.5, 0.5)) - 0.5).abs() < 1e-6);
        // A quarter of the way from texel 0's centre to texel 1's.
        let a = t.sample(Vec2::new((0.5 + 0.25) / 4.0, 0.5));
        assert!((a - 0.25 / 3.0).abs() < 1e-6, "{a}");
        // At a centre the texel itself; past the clamped edge the edge texel.
        assert!((t.sample(Vec2::new(3.5 / 4.0, 0.5)) - 1.0).abs() < 1e-6);
        assert!((t.sample(Vec2::new(7.0, 0.5)) - 1.0).abs() < 1e-6);
        // Repeat blends the last texel into the first across the seam: u = 0 is halfway
        // between texel 3's centre (alpha 1) and texel 0's (alpha 0).
        let r = ramp(Wrap::Repeat, Filter::Bilinear);
        assert!((r.sample(Vec2::new(0.0, 0.5)) - 0.5).abs() < 1e-6);
        // Non-finite coordinates read texel coordinate 0, never NaN.
        assert!(r.sample(Vec2::new(f32::NAN, f32::INFINITY)).is_finite());
        assert!(r.sample(Vec2::new(1e30, -1e30)).is_finite());
    }

    fn png(img: image::DynamicImage) -> Vec<u8> {
        let mut out = Vec::new();
        img.write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn png_alpha_is_kept_and_rgb_has_none() {
        let mut rgba = image::RgbaImage::new(3, 2);
        for (x, y, p) in rgba.enumerate_pixels_mut() {
            *p = image::Rgba([200, 100, 50, (x * 40 + y * 100) as u8]);
        }
        let t = decode_alpha(
            &png(image::DynamicImage::ImageRgba8(rgba)),
            Wrap::Repeat,
            Wrap::ClampToEdge,
            Filter::Nearest,
        )
        .unwrap()
        .unwrap();
        assert_eq!((t.width, t.height), (3, 2));
        assert_eq!(t.alpha, [0, 40, 80, 100, 140, 180]);
        assert_eq!(t.wrap_t, Wrap::ClampToEdge);
        // 16-bit grey-alpha scales to 8 bits.
        let mut la = image::ImageBuffer::<image::LumaA<u16>, Vec<u16>>::new(1, 1);
        la.put_pixel(0, 0, image::LumaA([7, 65535]));
        let t = decode_alpha(
            &png(image::DynamicImage::ImageLumaA16(la)),
            Wrap::Repeat,
            Wrap::Repeat,
            Filter::Bilinear,
        )
        .unwrap()
        .unwrap();
        assert_eq!(t.alpha, [255]);
        let rgb = image::RgbImage::new(2, 2);
        let none = decode_alpha(
            &png(image::DynamicImage::ImageRgb8(rgb)),
            Wrap::Repeat,
            Wrap::Repeat,
            Filter::Bilinear,
        )
        .unwrap();
        assert_eq!(none, None);
    }

    #[test]
    fn jpeg_decodes_without_alpha() {
        let mut out = Vec::new();
        image::DynamicImage::ImageRgb8(image::RgbImage::new(8, 8))
            .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Jpeg)
            .unwrap();
        let r = decode_alpha(&out, Wrap::Repeat, Wrap::Repeat, Filter::Bilinear);
        assert_eq!(r, Ok(None));
        // A truncated JPEG is an error, not a panic.
        assert!(decode_alpha(&out[..40], Wrap::Repeat, Wrap::Repeat, Filter::Bilinear).is_err());
    }

    #[test]
    fn other_formats_and_garbage_are_refused() {
        let e = decode_alpha(
            b"not an image at all",
            Wrap::Repeat,
            Wrap::Repeat,
            Filter::Nearest,
        )
        .unwrap_err();
        assert!(e.contains("neither PNG nor JPEG"), "{e}");
        let mut bmp = Vec::new();
        image::DynamicImage::ImageRgb8(image::RgbImage::new(1, 1))
            .write_to(&mut Cursor::new(&mut bmp), image::ImageFormat::Bmp)
            .ok();
        if !bmp.is_empty() {
            assert!(decode_alpha(&bmp, Wrap::Repeat, Wrap::Repeat, Filter::Nearest).is_err());
        }
        // A PNG whose header claims more than the side limit is refused before decoding.
        let mut big = png(image::DynamicImage::ImageRgba8(image::RgbaImage::new(1, 1)));
        // IHDR data starts at byte 16: width, height (big-endian), then its CRC at 29..33.
        big[16..20].copy_from_slice(&(MAX_TEXTURE_SIDE + 1).to_be_bytes());
        let crc = crc32(&big[12..29]);
        big[29..33].copy_from_slice(&crc.to_be_bytes());
        let e = decode_alpha(&big, Wrap::Repeat, Wrap::Repeat, Filter::Nearest).unwrap_err();
        assert!(e.contains("limit") || e.contains("Limit"), "{e}");
    }

    /// CRC-32 (IEEE), as PNG chunks use, bit by bit.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0xEDB8_8320
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn coverage_multiplies_factor_and_texture() {
        let c = Coverage {
            material: "leaf".into(),
            blend: false,
            factor: 0.5,
            texture: Some(Arc::new(ramp(Wrap::Repeat, Filter::Nearest))),
            file_cutoff: 0.5,
        };
        assert!((c.alpha(Vec2::new(3.5 / 4.0, 0.0)) - 0.5).abs() < 1e-6);
        assert!((c.alpha(Vec2::new(1.5 / 4.0, 0.0)) - 0.5 / 3.0).abs() < 1e-6);
        let plain = Coverage { texture: None, ..c };
        assert_eq!(plain.alpha(Vec2::ZERO), 0.5);
    }
}
