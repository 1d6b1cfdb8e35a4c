//! Texture images and their lookups: the RGBA8 images glTF materials shade with
//! ([`TextureImage`], decoded once per image of a file and shared), and cut-out coverage (the
//! alpha of glTF materials whose `alphaMode` is MASK or BLEND, kept as one byte per texel).
//!
//! Decoding is the `image` crate's (PNG and JPEG, the two formats core glTF allows), with the
//! image's size checked against [`MAX_TEXTURE_SIDE`] before any texel is allocated. Texels
//! are kept as the file stores them (8 bits a channel; a 16-bit PNG is rounded to 8) and
//! decoded at lookup: sRGB for colour textures, linear for data textures, each texel decoded
//! before the bilinear blend, so filtering happens in linear light.
//!
//! Minified lookups are filtered by their footprint ([`UvFootprint`], the texture coordinate's
//! change across one pixel, from the integrator's ray differentials): a box-filtered mip
//! pyramid per image and decoding ([`MipPyramid`], built once and shared by every slot that
//! reads the image) and trilinear probes, several along the footprint's long axis where it is
//! anisotropic (docs/assets.md, "Texture filtering").

use std::io::Cursor;
use std::sync::{Arc, OnceLock, Weak};

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
/// their channels copied and alpha 255), row 0 at the top (glTF's v = 0), with the mip
/// pyramids its lookups have asked for (one per [`Decode`], built on first use and kept).
#[derive(Clone, Debug, PartialEq)]
pub struct TextureImage {
    /// Texels per row, at least 1.
    pub width: u32,
    /// Rows, at least 1.
    pub height: u32,
    /// `width × height` texels, as stored (sRGB-encoded for colour, linear for data).
    pub texels: Vec<[u8; 4]>,
    /// The pyramids of the sRGB and the linear decoding, in that order.
    pyramids: [OnceLock<Arc<MipPyramid>>; 2],
}

impl TextureImage {
    /// An image of `width × height` texels (`texels` row by row from the top).
    pub fn new(width: u32, height: u32, texels: Vec<[u8; 4]>) -> TextureImage {
        TextureImage {
            width,
            height,
            texels,
            pyramids: Default::default(),
        }
    }

    /// The mip pyramid of the image as `decode` reads it, built on the first call (any
    /// thread; every call gets the same levels) and shared by every slot reading the image.
    pub fn pyramid(&self, decode: Decode) -> &MipPyramid {
        let i = match decode {
            Decode::Srgb => 0,
            Decode::Linear => 1,
        };
        self.pyramids[i].get_or_init(|| Arc::new(MipPyramid::build(self, decode)))
    }
}

/// Decodes a PNG or JPEG image into RGBA8 texels.
pub fn decode_rgba(bytes: &[u8]) -> Result<TextureImage, String> {
    let img = decode_image(bytes)?;
    let (width, height) = (img.width(), img.height());
    let texels = img.into_rgba8().pixels().map(|p| p.0).collect();
    Ok(TextureImage::new(width, height, texels))
}

/// The process's texture cache: every image decoded by [`decode_rgba_shared`] and still in
/// use, by the SHA-256 of its encoded bytes. Entries are weak: an image lives as long as a
/// mesh holds it, and the cache never keeps one alive.
fn texture_cache(
) -> &'static std::sync::Mutex<std::collections::HashMap<[u8; 32], Weak<TextureImage>>> {
    static CACHE: OnceLock<
        std::sync::Mutex<std::collections::HashMap<[u8; 32], Weak<TextureImage>>>,
    > = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// [`decode_rgba`] through the process's texture cache: the same image bytes, in any file of
/// any mesh loaded while an earlier decoding of them is still held, give that decoding (and
/// its mip pyramids) rather than a new one. The result is the same either way; only the work
/// and the memory differ.
pub fn decode_rgba_shared(bytes: &[u8]) -> Result<Arc<TextureImage>, String> {
    use sha2::{Digest, Sha256};
    let key: [u8; 32] = Sha256::digest(bytes).into();
    let cached = texture_cache()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .and_then(Weak::upgrade);
    if let Some(img) = cached {
        return Ok(img);
    }
    // Decoded outside the lock: two threads meeting a new image at once each decode it, and
    // the later insert wins; both results are the same texels.
    let img = Arc::new(decode_rgba(bytes)?);
    let mut cache = texture_cache().lock().unwrap_or_else(|e| e.into_inner());
    cache.retain(|_, w| w.strong_count() > 0);
    cache.insert(key, Arc::downgrade(&img));
    Ok(img)
}

/// One level of a [`MipPyramid`]: decoded (linear) RGBA, 16 bits a channel (1/65535 steps:
/// finer than the 8-bit source's, so averaging loses nothing visible).
#[derive(Clone, Debug, PartialEq)]
pub struct MipLevel {
    /// Texels per row, at least 1.
    pub width: u32,
    /// Rows, at least 1.
    pub height: u32,
    /// `width × height` texels, row 0 at the top, each channel × 65535.
    pub texels: Vec<[u16; 4]>,
}

impl MipLevel {
    /// The texel at integer coordinates (already wrapped), linear RGBA in [0, 1].
    fn at(&self, x: usize, y: usize) -> Vec4 {
        let t = self.texels[y * self.width as usize + x];
        Vec4::new(
            f32::from(t[0]),
            f32::from(t[1]),
            f32::from(t[2]),
            f32::from(t[3]),
        ) / 65535.0
    }

    /// The level's mean texel, linear RGBA.
    pub fn mean(&self) -> Vec4 {
        let sum = self.texels.iter().fold([0f64; 4], |mut s, t| {
            for c in 0..4 {
                s[c] += f64::from(t[c]);
            }
            s
        });
        let n = self.texels.len().max(1) as f64 * 65535.0;
        Vec4::new(
            (sum[0] / n) as f32,
            (sum[1] / n) as f32,
            (sum[2] / n) as f32,
            (sum[3] / n) as f32,
        )
    }
}

/// The mip pyramid of one image under one decoding: level 1 (half the image's size, rounded
/// down, at least 1) to the 1 × 1 level; level 0 is the image itself, read from its bytes.
/// Each level is the box filter of the one above: every texel the exact area-weighted mean of
/// the texels its square covers (odd sizes give fractional weights), so every level keeps the
/// image's mean.
#[derive(Clone, Debug, PartialEq)]
pub struct MipPyramid {
    /// Levels 1, 2, … (empty for a 1 × 1 image).
    pub levels: Vec<MipLevel>,
}

/// The box filter of `n` samples onto `m ≤ n`, as taps (source index, weight): output `i` is
/// the mean over `[i·n/m, (i+1)·n/m)`, partial texels weighted by their overlap.
fn box_weights(n: usize, m: usize) -> Vec<Vec<(usize, f64)>> {
    let scale = n as f64 / m as f64;
    (0..m)
        .map(|i| {
            let (a, b) = (i as f64 * scale, (i + 1) as f64 * scale);
            let mut w = Vec::new();
            let mut j = a.floor() as usize;
            while (j as f64) < b && j < n {
                let lo = a.max(j as f64);
                let hi = b.min(j as f64 + 1.0);
                if hi > lo {
                    w.push((j, (hi - lo) / scale));
                }
                j += 1;
            }
            w
        })
        .collect()
}

impl MipPyramid {
    /// The pyramid of `image` under `decode`. Each level is made row by row from the level
    /// above read in place (bytes decoded on the fly for level 0), so the memory beyond the
    /// levels themselves is one row of accumulators: a 16384² image needs no float copy.
    fn build(image: &TextureImage, decode: Decode) -> MipPyramid {
        let mut levels: Vec<MipLevel> = Vec::new();
        let (mut w, mut h) = (image.width as usize, image.height as usize);
        while w > 1 || h > 1 {
            let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
            let above = levels.last();
            let fetch = |x: usize, y: usize| -> [f32; 4] {
                match above {
                    Some(l) => l.at(x, y).to_array(),
                    None => decode.texel(image.texels[y * w + x]),
                }
            };
            let (wx, wy) = (box_weights(w, nw), box_weights(h, nh));
            let mut texels = Vec::with_capacity(nw * nh);
            let mut acc = vec![[0f64; 4]; nw];
            for taps_y in &wy {
                acc.iter_mut().for_each(|a| *a = [0.0; 4]);
                for &(j, wt_y) in taps_y {
                    for (x, taps_x) in wx.iter().enumerate() {
                        for &(i, wt_x) in taps_x {
                            let t = fetch(i, j);
                            let wt = wt_x * wt_y;
                            for c in 0..4 {
                                acc[x][c] += f64::from(t[c]) * wt;
                            }
                        }
                    }
                }
                texels.extend(
                    acc.iter()
                        .map(|t| t.map(|v| (v.clamp(0.0, 1.0) * 65535.0).round() as u16)),
                );
            }
            levels.push(MipLevel {
                width: nw as u32,
                height: nh as u32,
                texels,
            });
            (w, h) = (nw, nh);
        }
        MipPyramid { levels }
    }
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

impl Decode {
    /// A stored texel decoded: linear RGBA in [0, 1].
    fn texel(self, t: [u8; 4]) -> [f32; 4] {
        let lin = |b: u8| f32::from(b) / 255.0;
        match self {
            Decode::Srgb => {
                let s = srgb_table();
                [
                    s[t[0] as usize],
                    s[t[1] as usize],
                    s[t[2] as usize],
                    lin(t[3]),
                ]
            }
            Decode::Linear => t.map(lin),
        }
    }
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

    /// A change of texture coordinate transformed (the linear part alone).
    #[inline]
    pub fn apply_vector(&self, d: Vec2) -> Vec2 {
        Vec2::new(
            self.m[0][0] * d.x + self.m[0][1] * d.y,
            self.m[1][0] * d.x + self.m[1][1] * d.y,
        )
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

/// How a minified lookup uses the mip pyramid (the mip part of a glTF sampler's `minFilter`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mip {
    /// No pyramid: the image itself at every distance (`minFilter` NEAREST or LINEAR).
    Off,
    /// The nearest level (`*_MIPMAP_NEAREST`).
    Nearest,
    /// The two nearest levels, blended (`*_MIPMAP_LINEAR`, and no `minFilter`: trilinear).
    #[default]
    Linear,
}

/// The most trilinear probes one lookup takes along an anisotropic footprint's long axis.
pub const MAX_ANISOTROPY: u32 = 8;

/// A texture coordinate's change across one pixel, ∂uv/∂x and ∂uv/∂y (texture-coordinate
/// units per pixel, already narrowed for the pixel's sample count), from the integrator's ray
/// differentials. Zero where no footprint is known: the lookup then reads the image itself.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UvFootprint {
    /// ∂uv/∂x: along the image's rows.
    pub dx: Vec2,
    /// ∂uv/∂y: along its columns.
    pub dy: Vec2,
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
    /// Texel filter where the texture is magnified (the sampler's `magFilter`).
    pub filter: Filter,
    /// Texel filter within a level where it is minified (the texel part of `minFilter`).
    pub minify: Filter,
    /// How minified lookups use the pyramid (the mip part of `minFilter`).
    pub mip: Mip,
    /// The TEXCOORD_n set read (the extension's `texCoord` when it gives one).
    pub tex_coord: u32,
    /// The transform applied to the texture coordinate before the lookup.
    pub transform: UvTransform,
}

/// `filter` over a `w × h` grid of texels read by `fetch` (wrapped indices) at texture
/// coordinate `uv`.
fn filtered(
    w: u32,
    h: u32,
    uv: Vec2,
    filter: Filter,
    wraps: (Wrap, Wrap),
    fetch: impl Fn(usize, usize) -> Vec4,
) -> Vec4 {
    let at = |x: i64, y: i64| fetch(wraps.0.texel(x, w), wraps.1.texel(y, h));
    let x = texel_coord(uv.x, w);
    let y = texel_coord(uv.y, h);
    match filter {
        Filter::Nearest => at(x.floor() as i64, y.floor() as i64),
        Filter::Bilinear => {
            // Texel centres sit at half-integers.
            let (x, y) = (x - 0.5, y - 0.5);
            let (x0, y0) = (x.floor(), y.floor());
            let (fx, fy) = ((x - x0) as f32, (y - y0) as f32);
            let (x0, y0) = (x0 as i64, y0 as i64);
            let top = at(x0, y0) * (1.0 - fx) + at(x0 + 1, y0) * fx;
            let bottom = at(x0, y0 + 1) * (1.0 - fx) + at(x0 + 1, y0 + 1) * fx;
            top * (1.0 - fy) + bottom * fy
        }
    }
}

impl TextureRef {
    /// Level `level` of the pyramid (0: the image) read with `filter` at transformed `uv`.
    fn level(&self, level: usize, uv: Vec2, filter: Filter, decode: Decode) -> Vec4 {
        let img = &*self.image;
        let wraps = (self.wrap_s, self.wrap_t);
        if level == 0 {
            return filtered(img.width, img.height, uv, filter, wraps, |x, y| {
                let t = img.texels.get(y * img.width as usize + x).copied();
                Vec4::from(decode.texel(t.unwrap_or([255; 4])))
            });
        }
        let pyramid = img.pyramid(decode);
        match pyramid.levels.get(level - 1) {
            Some(l) => filtered(l.width, l.height, uv, filter, wraps, |x, y| l.at(x, y)),
            None => Vec4::ONE,
        }
    }

    /// The texture's RGBA at (untransformed) texture coordinate `uv` of its set, each channel
    /// in [0, 1], decoded by `decode` before filtering, reading the image itself (no
    /// footprint: the magnified lookup). glTF convention: (0, 0) is the top-left corner of the
    /// image.
    pub fn sample(&self, uv: Vec2, decode: Decode) -> Vec4 {
        self.level(0, self.transform.apply(uv), self.filter, decode)
    }

    /// [`Self::sample`] filtered over the pixel footprint `fp` (of the untransformed
    /// coordinate): where the footprint covers more than one texel, trilinear probes of the
    /// mip pyramid (up to [`MAX_ANISOTROPY`] of them spread along the footprint's long axis,
    /// each at the level of the long axis over their count), else the magnified lookup.
    pub fn sample_footprint(&self, uv: Vec2, fp: UvFootprint, decode: Decode) -> Vec4 {
        let uv = self.transform.apply(uv);
        let img = &*self.image;
        let size = Vec2::new(img.width as f32, img.height as f32);
        // The footprint's axes in level-0 texels.
        let dx = self.transform.apply_vector(fp.dx) * size;
        let dy = self.transform.apply_vector(fp.dy) * size;
        let (lx, ly) = (dx.length(), dy.length());
        let (major, minor, axis) = if lx >= ly { (lx, ly, dx) } else { (ly, lx, dy) };
        // A magnified lookup, or an unknown (NaN) footprint, reads the image itself.
        if major.is_nan() || major <= 1.0 {
            return self.level(0, uv, self.filter, decode);
        }
        if self.mip == Mip::Off {
            return self.level(0, uv, self.minify, decode);
        }
        let levels = img.pyramid(decode).levels.len() as f32;
        let probes = if minor > 0.0 {
            (major / minor).ceil().clamp(1.0, MAX_ANISOTROPY as f32)
        } else {
            MAX_ANISOTROPY as f32
        };
        let lod = (major / probes).log2().clamp(0.0, levels);
        // Probes spread evenly along the long axis, in texture-coordinate units.
        let step = if major.is_finite() {
            axis / size / probes
        } else {
            Vec2::ZERO
        };
        let n = probes as u32;
        let mut sum = Vec4::ZERO;
        for i in 0..n {
            let at = uv + step * (i as f32 + 0.5 - probes * 0.5);
            sum += match self.mip {
                Mip::Nearest => self.level(lod.round() as usize, at, self.minify, decode),
                _ => {
                    let l0 = lod.floor();
                    let f = lod - l0;
                    let a = self.level(l0 as usize, at, self.minify, decode);
                    if f > 0.0 {
                        let b = self.level(l0 as usize + 1, at, self.minify, decode);
                        a * (1.0 - f) + b * f
                    } else {
                        a
                    }
                }
            };
        }
        sum / probes
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
            image: Arc::new(TextureImage::new(w, h, texels)),
            wrap_s: wrap,
            wrap_t: wrap,
            filter,
            minify: filter,
            mip: Mip::Linear,
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

    /// A `w × h` image whose texels are a fixed hash of their position.
    fn hashed(w: u32, h: u32) -> TextureImage {
        let texels = (0..w * h)
            .map(|i| {
                let x = i.wrapping_mul(0x9E37_79B9) ^ (i >> 3);
                [x as u8, (x >> 8) as u8, (x >> 16) as u8, (x >> 24) as u8]
            })
            .collect();
        TextureImage::new(w, h, texels)
    }

    #[test]
    fn every_mip_level_keeps_the_image_mean() {
        // Odd sizes on both axes take the box filter's fractional weights.
        let img = hashed(37, 23);
        for decode in [Decode::Srgb, Decode::Linear] {
            let mut mean = [0f64; 4];
            for t in &img.texels {
                let d = decode.texel(*t);
                for c in 0..4 {
                    mean[c] += f64::from(d[c]) / img.texels.len() as f64;
                }
            }
            let p = img.pyramid(decode);
            let sizes: Vec<(u32, u32)> = p.levels.iter().map(|l| (l.width, l.height)).collect();
            assert_eq!(sizes, [(18, 11), (9, 5), (4, 2), (2, 1), (1, 1)]);
            for (k, l) in p.levels.iter().enumerate() {
                let m = l.mean();
                for c in 0..4 {
                    // Each level rounds to 1/65535 once more.
                    let err = (f64::from(m[c]) - mean[c]).abs();
                    assert!(
                        err < 2e-5 * (k + 1) as f64,
                        "{decode:?} level {}: {m} {mean:?}",
                        k + 1
                    );
                }
            }
            // Built once: the same levels at the same address.
            assert!(std::ptr::eq(p, img.pyramid(decode)));
        }
        // A 1 × 1 image has no level past itself.
        assert!(hashed(1, 1).pyramid(Decode::Linear).levels.is_empty());
    }

    /// An 8 × 8 checker of single texels, black and white, repeating.
    fn checker(mip: Mip) -> TextureRef {
        let texels = (0..64)
            .map(|i| {
                if (i % 8 + i / 8) % 2 == 0 {
                    [0, 0, 0, 255]
                } else {
                    [255; 4]
                }
            })
            .collect();
        TextureRef {
            mip,
            ..texture(8, 8, texels, Wrap::Repeat, Filter::Bilinear)
        }
    }

    #[test]
    fn a_minified_lookup_reads_the_footprints_mean() {
        let t = checker(Mip::Linear);
        let centre = Vec2::new(2.5 / 8.0, 3.5 / 8.0);
        let red = |fp: UvFootprint| t.sample_footprint(centre, fp, Decode::Srgb).x;
        // No footprint, or one under a texel: the texel itself (2 + 3 is odd: white).
        assert_eq!(red(UvFootprint::default()), 1.0);
        let small = UvFootprint {
            dx: Vec2::new(0.5 / 8.0, 0.0),
            dy: Vec2::new(0.0, 0.5 / 8.0),
        };
        assert_eq!(red(small), 1.0);
        // A footprint of the whole image: level 3, the 1 × 1 mean, 0.5 in linear light.
        let whole = UvFootprint {
            dx: Vec2::new(1.0, 0.0),
            dy: Vec2::new(0.0, 1.0),
        };
        assert!((red(whole) - 0.5).abs() < 1e-4, "{}", red(whole));
        // Two texels: level 1, whose 2 × 2 boxes each hold two of each.
        let two = UvFootprint {
            dx: Vec2::new(2.0 / 8.0, 0.0),
            dy: Vec2::new(0.0, 2.0 / 8.0),
        };
        assert!((red(two) - 0.5).abs() < 1e-4, "{}", red(two));
        // Anisotropic, eight texels long and one wide: eight level-0 probes a texel apart
        // along u, four black and four white.
        let long = UvFootprint {
            dx: Vec2::new(1.0, 0.0),
            dy: Vec2::new(0.0, 1.0 / 8.0),
        };
        assert!((red(long) - 0.5).abs() < 1e-4, "{}", red(long));
        // minFilter without mipmaps reads the image itself whatever the footprint.
        let off = checker(Mip::Off);
        assert_eq!(off.sample_footprint(centre, whole, Decode::Srgb).x, 1.0);
        // A footprint that is not finite never yields NaN.
        let inf = UvFootprint {
            dx: Vec2::new(f32::INFINITY, 0.0),
            dy: Vec2::new(f32::NAN, 0.0),
        };
        assert!(t.sample_footprint(centre, inf, Decode::Srgb).is_finite());
    }

    #[test]
    fn the_same_image_bytes_decode_once_while_held() {
        let bytes = png(image::DynamicImage::ImageRgba8(
            image::RgbaImage::from_pixel(3, 5, image::Rgba([1, 2, 3, 4])),
        ));
        let a = decode_rgba_shared(&bytes).unwrap();
        let b = decode_rgba_shared(&bytes).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        // Other bytes are another image.
        let other = png(image::DynamicImage::ImageRgba8(
            image::RgbaImage::from_pixel(3, 5, image::Rgba([1, 2, 3, 5])),
        ));
        let c = decode_rgba_shared(&other).unwrap();
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(c.texels[0], [1, 2, 3, 5]);
        // The cache holds no image alive: once dropped, the bytes decode afresh.
        let weak = Arc::downgrade(&a);
        drop((a, b));
        assert_eq!(weak.strong_count(), 0);
        let d = decode_rgba_shared(&bytes).unwrap();
        assert_eq!(d.texels, vec![[1, 2, 3, 4]; 15]);
        assert!(decode_rgba_shared(b"junk").is_err());
    }
}
