//! The film: receives camera samples and turns them into pixels.
//!
//! The render loop hands the film whole tiles ([`FilmTile`]): each pixel's samples are summed
//! there in sample order, in `f64`, so a pixel's value depends only on its own samples, never
//! on the thread count or the order tiles finish in. The film knows nothing of how samples are
//! made.

mod passes;

use glam::Vec3;

use crate::color::luminance_f64;
use passes::PassSum;
pub use passes::{LightGroupImage, LightSample, PassImages, PassSample};

/// The smallest mean luminance [`FilmTile::relative_error`] divides by, W·m⁻²·sr⁻¹: about
/// the darkest step an 8-bit sRGB display shows at exposure 1 (1/255 encoded is
/// 1/(255·12.92) ≈ 3·10⁻⁴ linear). Below it a pixel shows as black.
pub const ERROR_FLOOR: f64 = 3e-4;

/// The rendered images.
#[derive(Clone, Debug)]
pub struct Image {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// Mean radiance per pixel, W·m⁻²·sr⁻¹, row-major from the top row.
    pub radiance: Vec<Vec3>,
    /// Share of the pixel's camera samples that met a drawn object (0 is sky).
    pub coverage: Vec<f32>,
    /// Planar view-space depth at the pixel centre, scene units; `None` where the centre sees
    /// the sky.
    pub depth: Vec<Option<f32>>,
    /// Camera samples each pixel took (all `spp` unless adaptive sampling or a time limit
    /// stopped it sooner).
    pub samples: Vec<u32>,
    /// Rays traced.
    pub rays: u64,
    /// Samples dropped for a non-finite value (should stay 0).
    pub dropped: u64,
    /// The denoiser's auxiliaries, when the render made them: per pixel the mean albedo
    /// (linear RGB) and the mean normal (world space, not renormalised) of its samples.
    pub aux: Option<AuxImages>,
    /// The data passes, when the render made them ([`FilmTile::with_passes`]).
    pub passes: Option<PassImages>,
}

/// Per-pixel means of the samples' auxiliaries, row-major from the top row.
#[derive(Clone, Debug, PartialEq)]
pub struct AuxImages {
    /// Mean albedo, linear RGB in `[0, 1]`.
    pub albedo: Vec<Vec3>,
    /// Mean unit normal, world space (shorter than 1 where the samples disagree).
    pub normal: Vec<Vec3>,
}

/// A rectangle of pixels, the unit of work the render loop hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileRect {
    /// Left column, pixels.
    pub x0: u32,
    /// Top row, pixels.
    pub y0: u32,
    /// Width, pixels.
    pub w: u32,
    /// Height, pixels.
    pub h: u32,
}

/// The tiles of edge `edge` covering a `width` × `height` image, row by row from the top left
/// (the last column and row of tiles are cut to the image).
pub fn tiles(width: u32, height: u32, edge: u32) -> Vec<TileRect> {
    let edge = edge.max(1);
    let mut out = Vec::new();
    for y0 in (0..height).step_by(edge as usize) {
        for x0 in (0..width).step_by(edge as usize) {
            out.push(TileRect {
                x0,
                y0,
                w: edge.min(width - x0),
                h: edge.min(height - y0),
            });
        }
    }
    out
}

/// One pixel's running sums.
#[derive(Clone, Copy, Debug, Default)]
struct PixelSum {
    radiance: [f64; 3],
    /// Sums of the samples' luminance and of its square, for the error estimate.
    luminance: [f64; 2],
    samples: u32,
    covered: u32,
    depth: Option<f32>,
}

/// The samples of one tile, accumulated pixel by pixel.
#[derive(Clone, Debug)]
pub struct FilmTile {
    rect: TileRect,
    pixels: Vec<PixelSum>,
    /// Per pixel: sums of the samples' albedo and normal (empty unless asked for).
    aux: Vec<[f64; 6]>,
    /// Per pixel: the data passes' sums (empty unless asked for).
    passes: Vec<PassSum>,
}

impl FilmTile {
    /// An empty tile over `rect`.
    pub fn new(rect: TileRect) -> FilmTile {
        FilmTile {
            rect,
            pixels: vec![PixelSum::default(); (rect.w * rect.h) as usize],
            aux: Vec::new(),
            passes: Vec::new(),
        }
    }

    /// `self`, also summing the data passes ([`FilmTile::add_pass`]).
    pub fn with_passes(self) -> FilmTile {
        let n = self.pixels.len();
        FilmTile {
            passes: vec![PassSum::default(); n],
            ..self
        }
    }

    /// Whether the tile sums the data passes (made by [`FilmTile::with_passes`]).
    pub fn sums_passes(&self) -> bool {
        !self.passes.is_empty()
    }

    /// `self` (made by [`FilmTile::with_passes`]), also summing `n` light groups per pixel
    /// ([`FilmTile::add_light_groups`]); a tile without passes is returned as it is.
    pub fn with_light_groups(mut self, n: usize) -> FilmTile {
        for p in &mut self.passes {
            *p = PassSum::with_light_groups(n);
        }
        self
    }

    /// Adds one sample's light groups (`groups[g]` for group `g`) to `pixel`, in sample order;
    /// ignored by a tile without passes.
    #[inline]
    pub fn add_light_groups(&mut self, pixel: [u32; 2], groups: &[LightSample]) {
        if let Some(p) = self.index(pixel).and_then(|i| self.passes.get_mut(i)) {
            p.add_light_groups(groups);
        }
    }

    /// Adds one sample's pass values and its radiance (W·m⁻²·sr⁻¹, the value given to
    /// [`FilmTile::add_sample`]) to `pixel`, in sample order; ignored by a tile without passes.
    #[inline]
    pub fn add_pass(&mut self, pixel: [u32; 2], sample: &PassSample, radiance: Vec3) {
        if let Some(p) = self.index(pixel).and_then(|i| self.passes.get_mut(i)) {
            p.add(sample, radiance);
        }
    }

    /// Sets the object (index into the world's objects) the ray through `pixel`'s centre
    /// meets first, for the pick pass; ignored by a tile without passes.
    pub fn set_centre_object(&mut self, pixel: [u32; 2], object: Option<u32>) {
        if let Some(p) = self.index(pixel).and_then(|i| self.passes.get_mut(i)) {
            p.set_centre_object(object);
        }
    }

    /// An empty tile over `rect` that also sums the samples' auxiliaries
    /// ([`FilmTile::add_aux`]).
    pub fn with_aux(rect: TileRect) -> FilmTile {
        FilmTile {
            aux: vec![[0.0; 6]; (rect.w * rect.h) as usize],
            ..FilmTile::new(rect)
        }
    }

    /// Whether the tile sums auxiliaries (made by [`FilmTile::with_aux`]).
    pub fn sums_aux(&self) -> bool {
        !self.aux.is_empty()
    }

    /// Adds one sample's albedo (linear RGB) and normal (world space) to `pixel`, in sample
    /// order as [`FilmTile::add_sample`]; ignored by a tile made without auxiliaries.
    #[inline]
    pub fn add_aux(&mut self, pixel: [u32; 2], albedo: Vec3, normal: Vec3) {
        if let Some(a) = self.index(pixel).and_then(|i| self.aux.get_mut(i)) {
            for (k, v) in albedo
                .to_array()
                .into_iter()
                .chain(normal.to_array())
                .enumerate()
            {
                a[k] += v as f64;
            }
        }
    }

    fn pixel(&mut self, pixel: [u32; 2]) -> Option<&mut PixelSum> {
        let i = self.index(pixel)?;
        self.pixels.get_mut(i)
    }

    /// Adds one camera sample of `pixel` (image coordinates): its radiance, W·m⁻²·sr⁻¹, and
    /// whether it met a drawn object. Samples of one pixel must come in sample order for the
    /// sum to be the same whatever the thread count. A pixel outside the tile is ignored.
    #[inline]
    pub fn add_sample(&mut self, pixel: [u32; 2], radiance: Vec3, covered: bool) {
        if let Some(p) = self.pixel(pixel) {
            p.radiance[0] += radiance.x as f64;
            p.radiance[1] += radiance.y as f64;
            p.radiance[2] += radiance.z as f64;
            let y = luminance_f64([radiance.x as f64, radiance.y as f64, radiance.z as f64]);
            p.luminance[0] += y;
            p.luminance[1] += y * y;
            p.samples += 1;
            p.covered += covered as u32;
        }
    }

    /// The tile's rectangle.
    pub fn rect(&self) -> TileRect {
        self.rect
    }

    /// Samples added to `pixel` so far (0 outside the tile).
    pub fn samples(&self, pixel: [u32; 2]) -> u32 {
        self.index(pixel).map_or(0, |i| self.pixels[i].samples)
    }

    /// The estimated relative error of `pixel`'s mean luminance: the standard error of the
    /// mean over the mean, dimensionless. The mean is floored at [`ERROR_FLOOR`], so a pixel
    /// too dark to show is not chased to full precision. Infinite below two samples.
    ///
    /// The samples of a pixel are stratified (Owen-scrambled Sobol), so the spread of the
    /// samples overestimates the error of their mean: a pixel stopped by this estimate is at
    /// least as converged as it says.
    pub fn relative_error(&self, pixel: [u32; 2]) -> f64 {
        let Some(p) = self.index(pixel).map(|i| &self.pixels[i]) else {
            return f64::INFINITY;
        };
        if p.samples < 2 {
            return f64::INFINITY;
        }
        let n = p.samples as f64;
        let mean = p.luminance[0] / n;
        let var = ((p.luminance[1] - p.luminance[0] * mean) / (n - 1.0)).max(0.0);
        (var / n).sqrt() / mean.max(ERROR_FLOOR)
    }

    fn index(&self, pixel: [u32; 2]) -> Option<usize> {
        let (x, y) = (
            pixel[0].checked_sub(self.rect.x0)?,
            pixel[1].checked_sub(self.rect.y0)?,
        );
        (x < self.rect.w && y < self.rect.h).then_some((y * self.rect.w + x) as usize)
    }

    /// Sets the planar depth of `pixel`, scene units (`None`: the sky).
    pub fn set_depth(&mut self, pixel: [u32; 2], depth: Option<f32>) {
        if let Some(p) = self.pixel(pixel) {
            p.depth = depth;
        }
    }
}

/// The whole image being made: tiles are merged into it as they finish.
#[derive(Clone, Debug)]
pub struct Film {
    width: u32,
    height: u32,
    pixels: Vec<PixelSum>,
    /// Auxiliary sums per pixel, once a tile with them is merged.
    aux: Vec<[f64; 6]>,
    /// Pass sums per pixel, once a tile with them is merged.
    passes: Vec<PassSum>,
}

impl Film {
    /// An empty film of `width` × `height` pixels.
    pub fn new(width: u32, height: u32) -> Film {
        Film {
            width,
            height,
            pixels: vec![PixelSum::default(); width as usize * height as usize],
            aux: Vec::new(),
            passes: Vec::new(),
        }
    }

    /// Puts a finished tile's pixels in place (a tile outside the film is cut to it).
    pub fn merge(&mut self, mut tile: FilmTile) {
        let r = tile.rect;
        for y in 0..r.h {
            for x in 0..r.w {
                let (fx, fy) = (r.x0 + x, r.y0 + y);
                if fx < self.width && fy < self.height {
                    let (fi, ti) = ((fy * self.width + fx) as usize, (y * r.w + x) as usize);
                    self.pixels[fi] = tile.pixels[ti];
                    if let Some(a) = tile.aux.get(ti) {
                        if self.aux.is_empty() {
                            self.aux = vec![[0.0; 6]; self.pixels.len()];
                        }
                        self.aux[fi] = *a;
                    }
                    if let Some(p) = tile.passes.get_mut(ti) {
                        if self.passes.is_empty() {
                            self.passes = vec![PassSum::default(); self.pixels.len()];
                        }
                        self.passes[fi] = std::mem::take(p);
                    }
                }
            }
        }
    }

    /// The mean of each pixel's samples (0 for a pixel with none), with the ray counters.
    pub fn into_image(self, rays: u64, dropped: u64) -> Image {
        let radiance = self
            .pixels
            .iter()
            .map(|p| {
                let n = p.samples.max(1) as f64;
                Vec3::new(
                    (p.radiance[0] / n) as f32,
                    (p.radiance[1] / n) as f32,
                    (p.radiance[2] / n) as f32,
                )
            })
            .collect();
        let coverage = self
            .pixels
            .iter()
            .map(|p| p.covered as f32 / p.samples.max(1) as f32)
            .collect();
        let depth = self.pixels.iter().map(|p| p.depth).collect();
        let samples = self.pixels.iter().map(|p| p.samples).collect();
        let aux = (!self.aux.is_empty()).then(|| {
            let mean = |p: &PixelSum, a: &[f64; 6], k: usize| {
                let n = p.samples.max(1) as f64;
                Vec3::new(
                    (a[k] / n) as f32,
                    (a[k + 1] / n) as f32,
                    (a[k + 2] / n) as f32,
                )
            };
            let pa = || self.pixels.iter().zip(&self.aux);
            AuxImages {
                albedo: pa().map(|(p, a)| mean(p, a, 0)).collect(),
                normal: pa().map(|(p, a)| mean(p, a, 3)).collect(),
            }
        });
        let passes = (!self.passes.is_empty()).then(|| {
            let samples: Vec<u32> = self.pixels.iter().map(|p| p.samples).collect();
            let sums: Vec<[f64; 3]> = self.pixels.iter().map(|p| p.radiance).collect();
            passes::resolve(&self.passes, &samples, &sums)
        });
        Image {
            aux,
            passes,
            samples,
            width: self.width,
            height: self.height,
            radiance,
            coverage,
            depth,
            rays,
            dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_relative_error_is_the_standard_error_over_the_mean() {
        let mut t = FilmTile::new(TileRect {
            x0: 2,
            y0: 3,
            w: 2,
            h: 1,
        });
        assert_eq!(t.relative_error([2, 3]), f64::INFINITY);
        // Grey samples, so the luminance is the value itself (the weights sum to 1).
        let values = [0.5f64, 1.5, 1.0, 3.0, 0.25];
        for v in values {
            t.add_sample([2, 3], Vec3::splat(v as f32), true);
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
        let want = (var / n).sqrt() / mean;
        let got = t.relative_error([2, 3]);
        assert!((got - want).abs() < 1e-6 * want, "{got} vs {want}");
        assert_eq!(t.samples([2, 3]), 5);
        // Identical samples: no spread. Black samples: no error either (the floor).
        for _ in 0..3 {
            t.add_sample([3, 3], Vec3::ZERO, false);
        }
        assert_eq!(t.relative_error([3, 3]), 0.0);
        // Outside the tile: no samples, infinite error.
        assert_eq!(t.samples([0, 0]), 0);
        assert_eq!(t.relative_error([4, 3]), f64::INFINITY);
        // A dim pixel is measured against the floor, not its own tiny mean.
        let mut d = FilmTile::new(TileRect {
            x0: 0,
            y0: 0,
            w: 1,
            h: 1,
        });
        for v in [1e-6f32, 3e-6] {
            d.add_sample([0, 0], Vec3::splat(v), true);
        }
        let e = d.relative_error([0, 0]);
        assert!((e - 1e-6 / ERROR_FLOOR).abs() < 1e-3 * e, "{e}");
    }

    #[test]
    fn tiles_cover_the_image_once() {
        let t = tiles(37, 20, 16);
        assert_eq!(t.len(), 3 * 2);
        let area: u32 = t.iter().map(|r| r.w * r.h).sum();
        assert_eq!(area, 37 * 20);
        assert_eq!(
            t[2],
            TileRect {
                x0: 32,
                y0: 0,
                w: 5,
                h: 16
            }
        );
    }

    #[test]
    fn a_pixel_is_the_mean_of_its_samples_and_merges_in_place() {
        let rect = TileRect {
            x0: 2,
            y0: 1,
            w: 2,
            h: 2,
        };
        let mut tile = FilmTile::new(rect);
        tile.add_sample([3, 2], Vec3::new(1.0, 2.0, 3.0), true);
        tile.add_sample([3, 2], Vec3::new(3.0, 2.0, 1.0), false);
        tile.add_sample([9, 9], Vec3::ONE, true); // outside: ignored
        tile.set_depth([3, 2], Some(4.5));
        let mut film = Film::new(4, 3);
        film.merge(tile);
        let img = film.into_image(7, 0);
        let i = 2 * 4 + 3;
        assert_eq!(img.radiance[i], Vec3::splat(2.0));
        assert_eq!(img.coverage[i], 0.5);
        assert_eq!(img.depth[i], Some(4.5));
        assert_eq!(img.radiance[0], Vec3::ZERO);
        assert_eq!(img.depth[0], None);
        assert_eq!(img.rays, 7);
    }
}
