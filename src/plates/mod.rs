//! The plate folder: what a bake leaves behind for a live renderer to composite.
//!
//! A plate folder holds four files, five in adaptive or time-limited bakes, and
//! `casters.glb` when the scene has casters or proxies (see `docs/plates.md` for the full
//! contract):
//!
//! | file | contents |
//! | --- | --- |
//! | `beauty.exr` | linear radiance R, G, B (W·m⁻²·sr⁻¹, linear Rec.709) and alpha A, float32, ZIP |
//! | `depth.exr` | one float32 channel `Z`: planar view-space depth at the pixel centre (scene units) |
//! | `preview.png` | 8-bit sRGB RGB of the beauty finished by the scene's chain (`docs/finish.md`) |
//! | `samples.exr` | one uint32 channel `N`: camera samples per pixel (only when counts may differ) |
//! | `passes.exr` | only with `--passes`: the data passes in one multi-layer EXR ([`PassPlates`], [`write_plate_folder_with`]) |
//! | `casters.glb` | the static objects' shadow casters and their proxies, world space ([`CasterFile`], [`write_plate_folder_casting`]) |
//! | `manifest.json` | the bake's manifest with a `"files"` object describing the images |
//!
//! Every byte depends only on the pixels and the manifest: the EXRs carry no time stamps and
//! their blocks are always written in increasing scanline order, whatever the thread count,
//! and the PNG has no time chunk. The folder is written beside the target and renamed into place
//! ([`write_plate_folder`]), so a reader finds the old folder or the new one, never a mix.

mod atomic;
pub mod casters;
pub mod cryptomatte;
mod exr_io;
mod glb;
mod passes;
mod preview;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

pub use casters::{CasterFile, CasterNode, CASTERS_FILE};
pub use exr_io::{read_exr_rgb, MAX_READ_PIXELS};
pub use passes::{light_group_keys, LightGroupPlate, PassPlates, OTHER_LIGHT_GROUP, PASSES_FILE};
pub use preview::{encode_rgb8_png, finished_rgb8, preview_rgb8};

use crate::finish::Chain;

/// The name of the beauty image inside a plate folder.
pub const BEAUTY_FILE: &str = "beauty.exr";
/// The name of the depth image inside a plate folder.
pub const DEPTH_FILE: &str = "depth.exr";
/// The name of the preview image inside a plate folder.
pub const PREVIEW_FILE: &str = "preview.png";
/// The name of the sample-count image inside a plate folder (adaptive or time-limited bakes).
pub const SAMPLES_FILE: &str = "samples.exr";
/// The denoised beauty, when the bake denoised.
pub const DENOISED_FILE: &str = "denoised.exr";
/// The denoiser's albedo auxiliary, when the bake denoised.
pub const ALBEDO_FILE: &str = "albedo.exr";
/// The denoiser's normal auxiliary, when the bake denoised.
pub const NORMAL_FILE: &str = "normal.exr";
/// The name of the manifest inside a plate folder.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The images of one plate, as the film resolved them.
#[derive(Clone, Debug, PartialEq)]
pub struct PlateImages {
    /// Image width in pixels (at least 1).
    pub width: u32,
    /// Image height in pixels (at least 1).
    pub height: u32,
    /// row-major, top row first: `width × height` pixels of linear radiance R, G, B
    /// (W·m⁻²·sr⁻¹, linear Rec.709) and the alpha A the bake chose, all finite.
    pub beauty: Vec<[f32; 4]>,
    /// row-major, top row first: `width × height` planar view-space depths at the pixel
    /// centres, in scene units, all finite (the bake writes a finite value for sky).
    pub depth: Vec<f32>,
    /// row-major, top row first: `width × height` camera samples per pixel, written as
    /// `samples.exr` when given (a bake gives them when adaptive sampling or a time limit
    /// may leave pixels with different counts).
    pub samples: Option<Vec<u32>>,
    /// The denoiser's output and auxiliaries, written as `denoised.exr`, `albedo.exr` and
    /// `normal.exr` when given (and then the preview shows the denoised beauty).
    pub denoised: Option<DenoisedImages>,
    /// row-major, top row first: `width × height` mean shading normals of the first drawn
    /// surface in the camera's space (x right, y up, z towards the camera; zero for the sky),
    /// given when the finish reads them ([`Chain::reads_normal`]); not written as a file.
    pub view_normal: Option<Vec<[f32; 3]>>,
}

/// What a denoised bake adds to the plate folder, each `width × height`, row-major from
/// the top row, all finite.
#[derive(Clone, Debug, PartialEq)]
pub struct DenoisedImages {
    /// Denoised radiance R, G, B (W·m⁻²·sr⁻¹, linear Rec.709) and the beauty's alpha.
    pub beauty: Vec<[f32; 4]>,
    /// The prefiltered albedo the denoiser used, linear RGB in `[0, 1]`.
    pub albedo: Vec<[f32; 3]>,
    /// The prefiltered world-space normal the denoiser used (not renormalised).
    pub normal: Vec<[f32; 3]>,
}

/// What a plate error was doing when it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlateOp {
    /// Writing a plate folder or one of its files.
    Write,
    /// Reading an image back.
    Read,
}

/// A plate folder or image could not be written (or read back).
#[derive(Debug)]
pub struct PlateError {
    /// The file or folder the failing step was about.
    pub path: PathBuf,
    /// What went wrong; `ErrorKind::InvalidData` for a non-finite value or an unreadable
    /// image, `ErrorKind::InvalidInput` for inconsistent sizes or an unusable target path.
    pub source: io::Error,
    /// Whether it failed writing or reading.
    pub op: PlateOp,
}

impl PlateError {
    fn write(path: impl Into<PathBuf>, source: io::Error) -> PlateError {
        PlateError {
            path: path.into(),
            source,
            op: PlateOp::Write,
        }
    }

    fn read(path: impl Into<PathBuf>, source: io::Error) -> PlateError {
        PlateError {
            path: path.into(),
            source,
            op: PlateOp::Read,
        }
    }
}

impl fmt::Display for PlateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = match self.op {
            PlateOp::Write => "write",
            PlateOp::Read => "read",
        };
        write!(f, "cannot {verb} {}: {}", self.path.display(), self.source)
    }
}

impl std::error::Error for PlateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Writes one frame of a progressive preview (`bake --preview`): `images` finished by
/// `chain` and encoded as `preview.png` is (the denoised beauty when given), replacing the file at `path`
/// atomically (a viewer that reloads sees the previous frame or this one). The frame file
/// lives outside the plate folder, which stays atomic.
pub fn write_preview_frame(
    path: &Path,
    images: &PlateImages,
    chain: &Chain,
) -> Result<(), PlateError> {
    check_images(path, images)?;
    let png = preview::encode_preview_png(images, chain).map_err(|e| PlateError::write(path, e))?;
    atomic::write_file_atomically(path, &png)
}

/// Writes the plate folder at `dir` atomically; returns the list of files written (relative names).
///
/// `manifest` must be a JSON object; its `"files"` key is replaced by a description of each
/// image (channels, sample type, size, compression, byte count, SHA-256). Everything is
/// checked and encoded in memory first, then written into `.<name>.tmp-<pid>-<n>` beside
/// `dir`, flushed to disk, and renamed into place; an existing folder at `dir` is renamed
/// aside to `.<name>.old-<pid>-<n>` and removed once the new one is in place. Missing parent
/// folders are created. On any error the temporary folder is removed and `dir` is left as it
/// was. Refuses (with `ErrorKind::InvalidData`) any non-finite value: the integrator must
/// never produce one, and this is the last guard before it reaches a compositor.
pub fn write_plate_folder(
    dir: &Path,
    images: &PlateImages,
    manifest: Value,
) -> Result<Vec<String>, PlateError> {
    write_plate_folder_with(dir, images, None, &Chain::standard(), manifest)
}

/// [`write_plate_folder`], with `preview.png` finished by `chain` (the scene's resolved
/// `[finish]`; the manifest's `"finish"` is set to the chain as [`Chain::to_json`] records
/// it), also writing the data passes as [`PASSES_FILE`] when given (checked and encoded with
/// the rest before anything is written).
pub fn write_plate_folder_with(
    dir: &Path,
    images: &PlateImages,
    passes: Option<&PassPlates>,
    chain: &Chain,
    manifest: Value,
) -> Result<Vec<String>, PlateError> {
    write_plate_folder_casting(dir, images, passes, None, chain, manifest)
}

/// [`write_plate_folder_with`], also writing `casters` as [`CASTERS_FILE`] when it is given
/// and holds anything ([`CasterFile::is_empty`]), encoded with the rest before anything is
/// written and described in the manifest's `"files"` like the images.
pub fn write_plate_folder_casting(
    dir: &Path,
    images: &PlateImages,
    passes: Option<&PassPlates>,
    casters: Option<&CasterFile>,
    chain: &Chain,
    manifest: Value,
) -> Result<Vec<String>, PlateError> {
    check_images(dir, images)?;
    let Value::Object(mut manifest) = manifest else {
        return Err(PlateError::write(
            dir.join(MANIFEST_FILE),
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the manifest must be a JSON object",
            ),
        ));
    };

    let encode_error = |name: &str, e: io::Error| PlateError::write(dir.join(name), e);
    let beauty = exr_io::encode_beauty(images).map_err(|e| encode_error(BEAUTY_FILE, e))?;
    let depth = exr_io::encode_depth(images).map_err(|e| encode_error(DEPTH_FILE, e))?;
    let preview =
        preview::encode_preview_png(images, chain).map_err(|e| encode_error(PREVIEW_FILE, e))?;
    let samples = exr_io::encode_samples(images).map_err(|e| encode_error(SAMPLES_FILE, e))?;
    let denoised = exr_io::encode_denoised(images).map_err(|e| encode_error(DENOISED_FILE, e))?;
    let pass_bytes = passes
        .map(|p| passes::encode_passes(images.width, images.height, p))
        .transpose()
        .map_err(|e| encode_error(PASSES_FILE, e))?;
    let casters = casters.filter(|c| !c.is_empty());
    let caster_bytes = casters
        .map(CasterFile::encode)
        .transpose()
        .map_err(|e| encode_error(CASTERS_FILE, e))?;

    let (w, h) = (images.width, images.height);
    let files = json!({
        BEAUTY_FILE: {
            "channels": ["R", "G", "B", "A"],
            "type": "float32",
            "width": w,
            "height": h,
            "compression": "zip",
            "description": "linear radiance R, G, B in W·m⁻²·sr⁻¹ (linear Rec.709) and alpha A; rows top to bottom",
            "bytes": beauty.len(),
            "sha256": sha256_hex(&beauty),
        },
        DEPTH_FILE: {
            "channels": ["Z"],
            "type": "float32",
            "width": w,
            "height": h,
            "compression": "zip",
            "description": "planar view-space depth at the pixel centre in scene units; rows top to bottom",
            "bytes": depth.len(),
            "sha256": sha256_hex(&depth),
        },
        PREVIEW_FILE: {
            "channels": ["R", "G", "B"],
            "type": "uint8",
            "width": w,
            "height": h,
            "encoding": "sRGB",
            "finish": "the chain in the manifest's \"finish\"",
            "description": "the beauty's R, G, B finished by the chain in \"finish\" (a scene without [finish] gets the standard finish: the AgX tone map), clamped to [0, 1], sRGB-encoded and rounded to 8 bits",
            "bytes": preview.len(),
            "sha256": sha256_hex(&preview),
        },
    });
    let mut files = files;
    if let Some(bytes) = &samples {
        files[SAMPLES_FILE] = json!({
            "channels": ["N"],
            "type": "uint32",
            "width": w,
            "height": h,
            "compression": "zip",
            "description": "camera samples taken per pixel (the beauty is their mean); rows top to bottom",
            "bytes": bytes.len(),
            "sha256": sha256_hex(bytes),
        });
    }
    if let Some([d, a, n]) = &denoised {
        let entry = |channels: &[&str], bytes: &Vec<u8>, what: &str| {
            json!({
                "channels": channels,
                "type": "float32",
                "width": w,
                "height": h,
                "compression": "zip",
                "description": what,
                "bytes": bytes.len(),
                "sha256": sha256_hex(bytes),
            })
        };
        files[DENOISED_FILE] = entry(
            &["R", "G", "B", "A"],
            d,
            "the beauty denoised by Intel Open Image Denoise (see \"denoise\"): linear radiance R, G, B in W·m⁻²·sr⁻¹ and the beauty's alpha A; rows top to bottom",
        );
        files[ALBEDO_FILE] = entry(
            &["R", "G", "B"],
            a,
            "albedo at each sample's first non-specular vertex, pixel mean, prefiltered by the denoiser; linear RGB; rows top to bottom",
        );
        files[NORMAL_FILE] = entry(
            &["R", "G", "B"],
            n,
            "world-space shading normal (X, Y, Z in R, G, B) at each sample's first non-specular vertex, facing the camera's path, pixel mean, prefiltered by the denoiser; rows top to bottom",
        );
        files[PREVIEW_FILE]["description"] =
            json!("the denoised beauty's R, G, B finished by the chain in \"finish\", clamped to [0, 1], sRGB-encoded and rounded to 8 bits");
    }
    if let (Some(p), Some(bytes)) = (passes, &pass_bytes) {
        files[PASSES_FILE] = json!({
            "layers": p.layers_json(),
            "width": w,
            "height": h,
            "compression": "zip",
            "description": "the data passes, one multi-layer EXR (layer.channel names): see \"layers\"; rows top to bottom",
            "bytes": bytes.len(),
            "sha256": sha256_hex(bytes),
        });
    }
    if let (Some(c), Some(bytes)) = (casters, &caster_bytes) {
        let mut entry = c.file_json();
        entry["bytes"] = json!(bytes.len());
        entry["sha256"] = json!(sha256_hex(bytes));
        files[CASTERS_FILE] = entry;
    }
    manifest.insert("files".to_owned(), files);
    manifest.insert("finish".to_owned(), chain.to_json());
    let mut manifest_bytes = serde_json::to_vec_pretty(&Value::Object(manifest)).map_err(|e| {
        PlateError::write(
            dir.join(MANIFEST_FILE),
            io::Error::new(io::ErrorKind::InvalidData, e),
        )
    })?;
    manifest_bytes.push(b'\n');

    let mut contents = vec![
        (BEAUTY_FILE, beauty),
        (DEPTH_FILE, depth),
        (PREVIEW_FILE, preview),
    ];
    if let Some(bytes) = samples {
        contents.push((SAMPLES_FILE, bytes));
    }
    if let Some([d, a, n]) = denoised {
        contents.push((DENOISED_FILE, d));
        contents.push((ALBEDO_FILE, a));
        contents.push((NORMAL_FILE, n));
    }
    if let Some(bytes) = pass_bytes {
        contents.push((PASSES_FILE, bytes));
    }
    if let Some(bytes) = caster_bytes {
        contents.push((CASTERS_FILE, bytes));
    }
    contents.push((MANIFEST_FILE, manifest_bytes));
    atomic::write_folder_atomically(dir, &contents)?;
    Ok(contents
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .collect())
}

/// Checks the sizes and refuses non-finite values, naming the first offending pixel.
fn check_images(dir: &Path, images: &PlateImages) -> Result<(), PlateError> {
    let (w, h) = (images.width, images.height);
    let invalid_input =
        |msg: String| PlateError::write(dir, io::Error::new(io::ErrorKind::InvalidInput, msg));
    if w == 0 || h == 0 {
        return Err(invalid_input(format!(
            "a plate needs at least 1×1 pixels, not {w}×{h}"
        )));
    }
    let area = u64::from(w) * u64::from(h);
    if let Some(n) = images.samples.as_ref().map(Vec::len) {
        if n as u64 != area {
            return Err(invalid_input(format!(
                "a {w}×{h} plate needs {area} sample counts, got {n}"
            )));
        }
    }
    if images.beauty.len() as u64 != area || images.depth.len() as u64 != area {
        return Err(invalid_input(format!(
            "a {w}×{h} plate needs {area} pixels, got {} beauty and {} depth",
            images.beauty.len(),
            images.depth.len()
        )));
    }
    // (x, y) of a row-major index, row 0 at the top.
    let position = |i: usize| (i as u64 % u64::from(w), i as u64 / u64::from(w));
    let describe = |v: f32| if v.is_nan() { "NaN" } else { "infinite" };
    if let Some((i, c)) = images
        .beauty
        .iter()
        .enumerate()
        .find_map(|(i, px)| px.iter().position(|v| !v.is_finite()).map(|c| (i, c)))
    {
        let (x, y) = position(i);
        let value = images.beauty[i][c];
        return Err(PlateError::write(
            dir.join(BEAUTY_FILE),
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "pixel ({x}, {y}) channel {} is {}",
                    ["R", "G", "B", "A"][c],
                    describe(value)
                ),
            ),
        ));
    }
    if let Some(d) = &images.denoised {
        if d.beauty.len() as u64 != area
            || d.albedo.len() as u64 != area
            || d.normal.len() as u64 != area
        {
            return Err(invalid_input(format!(
                "a {w}×{h} plate needs {area} pixels in each denoised image"
            )));
        }
        let bad = d.beauty.iter().any(|p| p.iter().any(|v| !v.is_finite()))
            || d.albedo
                .iter()
                .chain(&d.normal)
                .any(|p| p.iter().any(|v| !v.is_finite()));
        if bad {
            return Err(PlateError::write(
                dir.join(DENOISED_FILE),
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "a denoised image holds a non-finite value",
                ),
            ));
        }
    }
    if let Some(i) = images.depth.iter().position(|v| !v.is_finite()) {
        let (x, y) = position(i);
        return Err(PlateError::write(
            dir.join(DEPTH_FILE),
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("pixel ({x}, {y}) depth is {}", describe(images.depth[i])),
            ),
        ));
    }
    Ok(())
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A small plate with values that exercise the float bits: negatives, subnormals,
    /// large values, and a different value in every channel.
    pub(super) fn test_images(width: u32, height: u32) -> PlateImages {
        let n = (width * height) as usize;
        let beauty = (0..n)
            .map(|i| {
                let t = i as f32;
                [
                    t * 0.37,
                    1.0 / (t + 1.0),
                    (t * 0.1).sin() * 5.0,
                    if i % 3 == 0 { 1.0 } else { 0.0 },
                ]
            })
            .collect::<Vec<_>>();
        let mut depth = (0..n).map(|i| 0.5 + i as f32 * 1.25e-3).collect::<Vec<_>>();
        depth[0] = 1.0e-40; // a subnormal survives bit-exactly
        depth[n - 1] = 1.0e9;
        PlateImages {
            width,
            height,
            beauty,
            depth,
            samples: None,
            denoised: None,
            view_normal: None,
        }
    }

    fn manifest() -> Value {
        json!({"scene": "scenes/test.scene.toml", "samples": 64, "seed": 7})
    }

    /// Every entry of `parent` other than `keep`.
    fn strays(parent: &Path, keep: &[&str]) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(parent)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !keep.contains(&n.as_str()))
            .collect();
        names.sort();
        names
    }

    fn read_tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (
                    e.file_name().to_string_lossy().into_owned(),
                    fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn round_trips_beauty_and_depth_bit_exactly() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("a/b/plates"); // missing parents are created
        let images = test_images(37, 23);
        let written = write_plate_folder(&dir, &images, manifest()).unwrap();
        assert_eq!(
            written,
            [BEAUTY_FILE, DEPTH_FILE, PREVIEW_FILE, MANIFEST_FILE]
        );

        // Read back with the exr crate's generic reader, independent of our own reader.
        use exr::prelude::*;
        let image = read_all_flat_layers_from_file(dir.join(BEAUTY_FILE)).unwrap();
        let layer = &image.layer_data[0];
        assert_eq!(layer.size, Vec2(37, 23));
        let names: Vec<String> = layer
            .channel_data
            .list
            .iter()
            .map(|c| c.name.to_string())
            .collect();
        assert_eq!(names, ["A", "B", "G", "R"]); // EXR stores channels sorted by name
        for (k, channel) in layer.channel_data.list.iter().enumerate() {
            let c = [3, 2, 1, 0][k];
            let FlatSamples::F32(samples) = &channel.sample_data else {
                panic!("channel {} is not float32", channel.name);
            };
            let expected: Vec<u32> = images.beauty.iter().map(|p| p[c].to_bits()).collect();
            let got: Vec<u32> = samples.iter().map(|v| v.to_bits()).collect();
            assert_eq!(got, expected, "channel {}", channel.name);
        }

        let image = read_all_flat_layers_from_file(dir.join(DEPTH_FILE)).unwrap();
        let layer = &image.layer_data[0];
        assert_eq!(layer.channel_data.list.len(), 1);
        assert_eq!(layer.channel_data.list[0].name.to_string(), "Z");
        let FlatSamples::F32(z) = &layer.channel_data.list[0].sample_data else {
            panic!("depth is not float32");
        };
        let got: Vec<u32> = z.iter().map(|v| v.to_bits()).collect();
        let expected: Vec<u32> = images.depth.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, expected);
        assert_eq!(layer.encoding.compression, Compression::ZIP16);

        // Our own reader agrees (top row first, R G B in order).
        let (w, h, rgb) = read_exr_rgb(&dir.join(BEAUTY_FILE)).unwrap();
        assert_eq!((w, h), (37, 23));
        let expected: Vec<[f32; 3]> = images.beauty.iter().map(|p| [p[0], p[1], p[2]]).collect();
        assert_eq!(rgb, expected);

        // The preview decodes to the standard finish's pixels.
        let png = image::open(dir.join(PREVIEW_FILE)).unwrap().into_rgb8();
        assert_eq!(png.dimensions(), (37, 23));
        assert_eq!(png.into_raw(), finished_rgb8(&images, &Chain::standard()));
    }

    #[test]
    fn identical_input_gives_identical_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let images = test_images(64, 48);
        write_plate_folder(&tmp.path().join("one"), &images, manifest()).unwrap();
        write_plate_folder(&tmp.path().join("two"), &images.clone(), manifest()).unwrap();
        let one = read_tree(&tmp.path().join("one"));
        let two = read_tree(&tmp.path().join("two"));
        assert_eq!(one.len(), 4);
        assert_eq!(one, two);

        // And one changed pixel changes the beauty's bytes (the comparison can fail).
        let mut changed = images.clone();
        changed.beauty[100][1] += 1.0;
        write_plate_folder(&tmp.path().join("three"), &changed, manifest()).unwrap();
        let three = read_tree(&tmp.path().join("three"));
        assert_ne!(one[0], three[0]);
        assert_eq!(one[1].0, DEPTH_FILE);
        assert_eq!(one[1], three[1], "depth.exr does not depend on the beauty");
    }

    #[test]
    fn replaces_an_existing_folder_and_leaves_nothing_beside_it() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plates");
        fs::create_dir(&dir).unwrap();
        fs::write(dir.join("stale.txt"), b"from an older bake").unwrap();
        fs::write(dir.join(BEAUTY_FILE), b"not an exr").unwrap();

        let images = test_images(8, 4);
        write_plate_folder(&dir, &images, manifest()).unwrap();
        let names: Vec<String> = read_tree(&dir).into_iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            [BEAUTY_FILE, DEPTH_FILE, MANIFEST_FILE, PREVIEW_FILE]
        );
        assert_eq!(read_exr_rgb(&dir.join(BEAUTY_FILE)).unwrap().0, 8);
        assert_eq!(strays(tmp.path(), &["plates"]), Vec::<String>::new());

        // A second bake over the first also leaves nothing beside it.
        write_plate_folder(&dir, &images, manifest()).unwrap();
        assert_eq!(strays(tmp.path(), &["plates"]), Vec::<String>::new());
    }

    #[test]
    fn failures_leave_the_target_untouched() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plates");
        let images = test_images(6, 5);
        write_plate_folder(&dir, &images, manifest()).unwrap();
        let before = read_tree(&dir);

        // A NaN, an infinity, a wrong size, a manifest that is not an object.
        let mut nan = images.clone();
        nan.beauty[13][2] = f32::NAN;
        let e = write_plate_folder(&dir, &nan, manifest()).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::InvalidData);
        assert_eq!(e.path, dir.join(BEAUTY_FILE));
        assert_eq!(
            e.to_string(),
            format!(
                "cannot write {}: pixel (1, 2) channel B is NaN",
                dir.join(BEAUTY_FILE).display()
            )
        );
        let mut inf = images.clone();
        inf.depth[29] = f32::NEG_INFINITY;
        let e = write_plate_folder(&dir, &inf, manifest()).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::InvalidData);
        assert!(
            e.to_string().ends_with("pixel (5, 4) depth is infinite"),
            "{e}"
        );
        let mut short = images.clone();
        short.depth.pop();
        let e = write_plate_folder(&dir, &short, manifest()).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::InvalidInput);
        let e = write_plate_folder(&dir, &images, json!([1, 2])).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::InvalidInput);
        let empty = PlateImages {
            width: 0,
            height: 3,
            beauty: vec![],
            depth: vec![],
            samples: None,
            denoised: None,
            view_normal: None,
        };
        assert!(write_plate_folder(&dir, &empty, manifest()).is_err());

        assert_eq!(read_tree(&dir), before);
        assert_eq!(strays(tmp.path(), &["plates"]), Vec::<String>::new());

        // A parent that is a file: nothing is created, the file is unchanged.
        let file = tmp.path().join("a-file");
        fs::write(&file, b"keep me").unwrap();
        let e = write_plate_folder(&file.join("plates"), &images, manifest()).unwrap_err();
        assert_eq!(e.path, file);
        assert_eq!(fs::read(&file).unwrap(), b"keep me");

        // A target that is a file is refused, not replaced by a folder.
        let e = write_plate_folder(&file, &images, manifest()).unwrap_err();
        assert_eq!(e.path, file);
        assert_eq!(fs::read(&file).unwrap(), b"keep me");
        assert_eq!(
            strays(tmp.path(), &["plates", "a-file"]),
            Vec::<String>::new()
        );
        assert_eq!(read_tree(&dir), before);
    }

    #[test]
    fn manifest_gains_a_files_entry() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plates");
        let images = test_images(5, 3);
        let mut m = manifest();
        m["files"] = json!("replaced by the writer");
        write_plate_folder(&dir, &images, m).unwrap();
        let text = fs::read_to_string(dir.join(MANIFEST_FILE)).unwrap();
        assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
        assert!(
            text.contains("\n  \"samples\": 64"),
            "pretty-printed with two spaces"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["seed"], 7);
        assert_eq!(v["scene"], "scenes/test.scene.toml");
        let files = v["files"].as_object().unwrap();
        assert_eq!(files.len(), 3);
        assert_eq!(files[BEAUTY_FILE]["channels"], json!(["R", "G", "B", "A"]));
        assert_eq!(files[BEAUTY_FILE]["type"], "float32");
        assert_eq!(files[DEPTH_FILE]["channels"], json!(["Z"]));
        assert_eq!(files[PREVIEW_FILE]["channels"], json!(["R", "G", "B"]));
        assert_eq!(files[PREVIEW_FILE]["type"], "uint8");
        for name in [BEAUTY_FILE, DEPTH_FILE, PREVIEW_FILE] {
            let bytes = fs::read(dir.join(name)).unwrap();
            assert_eq!(files[name]["bytes"], bytes.len(), "{name}");
            assert_eq!(files[name]["sha256"], sha256_hex(&bytes), "{name}");
            assert_eq!(files[name]["width"], 5);
            assert_eq!(files[name]["height"], 3);
        }
        // SHA-256 of "abc" (FIPS 180-2 appendix B.1): the digest is spelled as expected.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
