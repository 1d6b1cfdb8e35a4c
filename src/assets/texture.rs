//! Texture images and their lookups: the RGBA8 images glTF materials shade with
//! ([`TextureImage`], decoded once per image of a file and shared), and cut-out coverage (the
//! alpha of glTF materials whose `alphaMode` is MASK or BLEND, kept as one byte per texel).
//!
//! Decoding is the `image` crate's (PNG and JPEG, the two formats core glTF allows), with the
//! image's size checked against [`MAX_TEXTURE_SIDE`] before any texel is allocated. Texels
//! are kept as the file stores them (8 bits a channel; a 16-bit PNG is rounded to 8) and
//! decoded at lookup: sRGB for colour textures, linear for data textures, each texel decoded
//! before the bilinear blend, so filtering happens in linear light.

use std::io::Cursor;
use std::sync::Arc;

use glam::{Vec2, Vec4};

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

/// Decodes a PNG or JPEG image, its size checked against [`MAX_TEXTURE_SIDE`] before any
/// texel is allocated.
fn decode_image(bytes: &[u8]) -> Result<image::DynamicImage, String> {
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
    Ok(img)
}

/// Decodes a PNG or JPEG image and keeps its alpha channel. `Ok(None)` for an image without
/// one (every JPEG, an RGB or grey PNG): its alpha is 1 everywhere and needs no storage.
pub fn decode_alpha(
    bytes: &[u8],
    wrap_s: Wrap,
    wrap_t: Wrap,
    filter: Filter,
) -> Result<Option<AlphaTexture>, String> {
    let img = decode_image(bytes)?;
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

/// An image as a glTF file holds it, 8 bits per channel, RGBA (grey and RGB images get
/// their channels copied and alpha 255), row 0 at the top (glTF's v = 0).
#[derive(Clone, Debug, PartialEq)]
pub struct TextureImage {
    /// Texels per row, at least 1.
    pub width: u32,
    /// Rows, at least 1.
    pub height: u32,
    /// `width × height` texels, as stored (sRGB-encoded for colour, linear for data).
    pub texels: Vec<[u8; 4]>,
}

/// Decodes a PNG or JPEG image into RGBA8 texels.
pub fn decode_rgba(bytes: &[u8]) -> Result<TextureImage, String> {
    let img = decode_image(bytes)?;
    let (width, height) = (img.width(), img.height());
    let texels = img.into_rgba8().pixels().map(|p| p.0).collect();
    Ok(TextureImage {
        width,
        height,
        texels,
    })
}

/// How a texture's stored values become numbers (glTF 2.0 §3.9: base colour and emissive
/// textures are sRGB-encoded, the others linear).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decode {
    /// The sRGB transfer function on R, G and B (IEC 61966-2-1); alpha stays linear.
    Srgb,
    /// Every channel linear: the byte over 255.
    Linear,
}

/// The sRGB electro-optical transfer function of each byte value, linear in [0, 1].
fn srgb_table() -> &'static [f32; 256] {
    static TABLE: std::sync::OnceLock<[f32; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|i| {
            let c = i as f64 / 255.0;
            let l = if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
            l as f32
        })
    })
}

/// KHR_texture_transform: `uv' = T · R · S · uv`, the extension's order, as a 2 × 3 affine
/// matrix. The identity when a texture has no transform.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvTransform {
    /// Rows of the 2 × 2 linear part.
    pub m: [[f32; 2]; 2],
    /// The translation added after it.
    pub offset: Vec2,
}

impl Default for UvTransform {
    fn default() -> Self {
        UvTransform {
            m: [[1.0, 0.0], [0.0, 1.0]],
            offset: Vec2::ZERO,
        }
    }
}

impl UvTransform {
    /// The transform of the extension's `offset`, `rotation` (radians, counter-clockwise in
    /// UV space as the extension draws it) and `scale`.
    pub fn new(offset: Vec2, rotation: f32, scale: Vec2) -> UvTransform {
        let (s, c) = rotation.sin_cos();
        // R = [[c, s], [-s, c]] (the extension's matrix), times diag(scale).
        UvTransform {
            m: [[c * scale.x, s * scale.y], [-s * scale.x, c * scale.y]],
            offset,
        }
    }

    /// `uv` transformed.
    #[inline]
    pub fn apply(&self, uv: Vec2) -> Vec2 {
        Vec2::new(
            self.m[0][0] * uv.x + self.m[0][1] * uv.y,
            self.m[1][0] * uv.x + self.m[1][1] * uv.y,
        ) + self.offset
    }
}

/// One texture slot of a glTF material: the shared image, its sampler, which TEXCOORD_n it
/// reads and its KHR_texture_transform.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureRef {
    /// The image, shared by every slot of the file that reads it.
    pub image: Arc<TextureImage>,
    /// Wrap along u (the sampler's `wrapS`).
    pub wrap_s: Wrap,
    /// Wrap along v (the sampler's `wrapT`).
    pub wrap_t: Wrap,
    /// Texel filter (the sampler's `magFilter`).
    pub filter: Filter,
    /// The TEXCOORD_n set read (the extension's `texCoord` when it gives one).
    pub tex_coord: u32,
    /// The transform applied to the texture coordinate before the lookup.
    pub transform: UvTransform,
}

impl TextureRef {
    fn texel(&self, x: i64, y: i64, decode: Decode) -> Vec4 {
        let img = &*self.image;
        let i =
            self.wrap_t.texel(y, img.height) * img.width as usize + self.wrap_s.texel(x, img.width);
        let t = img.texels.get(i).copied().unwrap_or([255; 4]);
        let lin = |b: u8| f32::from(b) / 255.0;
        match decode {
            Decode::Srgb => {
                let s = srgb_table();
                Vec4::new(
                    s[t[0] as usize],
                    s[t[1] as usize],
                    s[t[2] as usize],
                    lin(t[3]),
                )
            }
            Decode::Linear => Vec4::new(lin(t[0]), lin(t[1]), lin(t[2]), lin(t[3])),
        }
    }

    /// The texture's RGBA at (untransformed) texture coordinate `uv` of its set, each channel
    /// in [0, 1], decoded by `decode` before filtering. glTF convention: (0, 0) is the
    /// top-left corner of the image.
    pub fn sample(&self, uv: Vec2, decode: Decode) -> Vec4 {
        let uv = self.transform.apply(uv);
        let x = texel_coord(uv.x, self.image.width);
        let y = texel_coord(uv.y, self.image.height);
        match self.filter {
            Filter::Nearest => self.texel(x.floor() as i64, y.floor() as i64, decode),
            Filter::Bilinear => {
                let (x, y) = (x - 0.5, y - 0.5);
                let (x0, y0) = (x.floor(), y.floor());
                let (fx, fy) = ((x - x0) as f32, (y - y0) as f32);
                let (x0, y0) = (x0 as i64, y0 as i64);
                let top =
                    self.texel(x0, y0, decode) * (1.0 - fx) + self.texel(x0 + 1, y0, decode) * fx;
                let bottom = self.texel(x0, y0 + 1, decode) * (1.0 - fx)
                    + self.texel(x0 + 1, y0 + 1, decode) * fx;
                top * (1.0 - fy) + bottom * fy
            }
        }
    }
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

    /// A `TextureRef` over a `w × h` image of the given texels.
    fn texture(w: u32, h: u32, texels: Vec<[u8; 4]>, wrap: Wrap, filter: Filter) -> TextureRef {
        TextureRef {
            image: Arc::new(TextureImage {
                width: w,
                height: h,
                texels,
            }),
            wrap_s: wrap,
            wrap_t: wrap,
            filter,
            tex_coord: 0,
            transform: UvTransform::default(),
        }
    }

    #[test]
    fn colour_texels_decode_as_srgb_and_data_texels_linearly() {
        let t = texture(
            2,
            1,
            vec![[0, 10, 128, 128], [255, 188, 55, 255]],
            Wrap::ClampToEdge,
            Filter::Nearest,
        );
        let a = t.sample(Vec2::new(0.25, 0.5), Decode::Srgb);
        // IEC 61966-2-1: 10/255 is on the linear segment, 10/255/12.92; 128/255 on the power
        // segment, ((128/255 + 0.055)/1.055)^2.4 = 0.2158605; alpha stays linear.
        assert_eq!(a.x, 0.0);
        assert!((a.y - 0.003_035_27).abs() < 1e-7, "{a}");
        assert!((a.z - 0.215_860_5).abs() < 1e-6, "{a}");
        assert!((a.w - 128.0 / 255.0).abs() < 1e-7, "{a}");
        let b = t.sample(Vec2::new(0.75, 0.5), Decode::Srgb);
        assert!((b.x - 1.0).abs() < 1e-7);
        // 188 → 0.5028865, 55 → 0.0382043.
        assert!(
            (b.y - 0.502_886_5).abs() < 1e-6 && (b.z - 0.038_204_3).abs() < 1e-6,
            "{b}"
        );
        let l = t.sample(Vec2::new(0.25, 0.5), Decode::Linear);
        assert!((l.z - 128.0 / 255.0).abs() < 1e-7);
        // Bilinear filtering blends decoded (linear) values: halfway between texel 0's and
        // texel 1's red is (0 + 1)/2, not the sRGB decode of byte 127.5.
        let t = TextureRef {
            filter: Filter::Bilinear,
            ..t
        };
        let mid = t.sample(Vec2::new(0.5, 0.5), Decode::Srgb);
        assert!((mid.x - 0.5).abs() < 1e-6, "{mid}");
    }

    #[test]
    fn texture_transform_and_wraps_pick_the_expected_texels() {
        // A 4 × 1 ramp whose red byte is the texel index.
        let texels = (0..4u8).map(|i| [i, 0, 0, 255]).collect::<Vec<_>>();
        let red = |t: &TextureRef, u: f32| {
            (t.sample(Vec2::new(u, 0.5), Decode::Linear).x * 255.0).round() as u8
        };
        let mut t = texture(4, 1, texels, Wrap::Repeat, Filter::Nearest);
        // Offset 0.5 moves texel 0 (u in [0, 0.25)) to texel 2; repeat wraps 0.875 + 0.5.
        t.transform = UvTransform::new(Vec2::new(0.5, 0.0), 0.0, Vec2::ONE);
        assert_eq!(
            [0.125, 0.375, 0.625, 0.875].map(|u| red(&t, u)),
            [2, 3, 0, 1]
        );
        // Scale 2 with mirrored repeat: u' = 2u, tile 1 mirrored.
        t.transform = UvTransform::new(Vec2::ZERO, 0.0, Vec2::splat(2.0));
        t.wrap_s = Wrap::MirroredRepeat;
        assert_eq!(
            [0.0625, 0.1875, 0.5625, 0.9375].map(|u| red(&t, u)),
            [0, 1, 3, 0]
        );
        // Clamp holds the edge past the transformed range.
        t.wrap_s = Wrap::ClampToEdge;
        assert_eq!([0.45, 0.9].map(|u| red(&t, u)), [3, 3]);
        // The extension's matrix T·R·S written out as 3 × 3 products (its README, the row
        // order Cesium and three.js implement: u' = u cos r + v sin r, v' = −u sin r + v cos r).
        let (o, r, s) = (Vec2::new(0.25, -0.5), 0.7f32, Vec2::new(1.5, 0.5));
        let mul = |a: [[f32; 3]; 3], b: [[f32; 3]; 3]| {
            let mut c = [[0.0; 3]; 3];
            for i in 0..3 {
                for j in 0..3 {
                    c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
                }
            }
            c
        };
        let tr = [[1.0, 0.0, o.x], [0.0, 1.0, o.y], [0.0, 0.0, 1.0]];
        let ro = [
            [r.cos(), r.sin(), 0.0],
            [-r.sin(), r.cos(), 0.0],
            [0.0, 0.0, 1.0],
        ];
        let sc = [[s.x, 0.0, 0.0], [0.0, s.y, 0.0], [0.0, 0.0, 1.0]];
        let m = mul(mul(tr, ro), sc);
        let uv = Vec2::new(0.3, 0.8);
        let want = Vec2::new(
            m[0][0] * uv.x + m[0][1] * uv.y + m[0][2],
            m[1][0] * uv.x + m[1][1] * uv.y + m[1][2],
        );
        let got = UvTransform::new(o, r, s).apply(uv);
        assert!((got - want).length() < 1e-6, "{got} {want}");
    }

    #[test]
    fn rgba_decoding_expands_grey_and_keeps_bytes() {
        let mut grey = image::GrayImage::new(2, 1);
        grey.put_pixel(1, 0, image::Luma([77]));
        let t = decode_rgba(&png(image::DynamicImage::ImageLuma8(grey))).unwrap();
        assert_eq!(t.texels, [[0, 0, 0, 255], [77, 77, 77, 255]]);
        assert!(decode_rgba(b"junk").is_err());
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
