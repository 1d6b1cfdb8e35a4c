//! Denoising the beauty with Intel Open Image Denoise 2.x (OIDN), loaded at run time.
//!
//! The stage sits between the film and the plates: it takes the film's mean radiance and its
//! auxiliary images (albedo and normal at each path's first non-specular vertex, see
//! [`crate::integrator::Aux`]), prefilters the auxiliaries (they are averages of a few
//! samples, so noisy where the pixel sees depth of field or rough reflections) and filters
//! the radiance with them, as OIDN's documentation recommends for final frames (`RT`
//! filter, `hdr`, `cleanAux`, quality high).
//!
//! The library is found, in order: the file or folder named by `PFX_OIDN`; the dynamic
//! loader's own search (`LD_LIBRARY_PATH`, the system folders) for `libOpenImageDenoise.so.2`;
//! the `pyoidn` package of the `python3` on `PATH` (`pip install pyoidn` ships the official
//! OIDN 2.5 libraries in `pyoidn/oidn/lib`). No build-time dependency: a bake that does not
//! denoise never loads it. docs/rendering.md, "Denoising", gives the reasons and the plate
//! files.

mod oidn;

use std::path::{Path, PathBuf};
use std::process::Command;

use glam::Vec3;

use crate::film::AuxImages;

/// The environment variable naming the OIDN library (a file, or a folder holding
/// `libOpenImageDenoise.so.2`).
pub const LIBRARY_ENV: &str = "PFX_OIDN";

/// The library's file name the search looks for.
const LIBRARY_FILE: &str = "libOpenImageDenoise.so.2";

/// What to tell a user who has no OIDN.
const HOW_TO_INSTALL: &str = "install it with `pip install pyoidn` (its wheel carries the \
     official OIDN 2.5 libraries), or set PFX_OIDN to libOpenImageDenoise.so.2 or the folder \
     holding it";

/// A loaded OIDN library, ready to filter.
pub struct Denoiser {
    oidn: oidn::Oidn,
    version: i32,
}

/// The images of one denoising.
#[derive(Clone, Debug)]
pub struct Denoised {
    /// The filtered radiance, W·m⁻²·sr⁻¹, linear RGB, row-major from the top row.
    pub beauty: Vec<Vec3>,
    /// The prefiltered albedo the filter used, linear RGB.
    pub albedo: Vec<Vec3>,
    /// The prefiltered normal the filter used, world space.
    pub normal: Vec<Vec3>,
}

impl Denoiser {
    /// Finds and loads OIDN (see the module documentation for where it looks); the error
    /// says what was tried and how to install it.
    pub fn find() -> Result<Denoiser, String> {
        if let Some(v) = std::env::var_os(LIBRARY_ENV) {
            let p = PathBuf::from(&v);
            let file = if p.is_dir() { p.join(LIBRARY_FILE) } else { p };
            return Denoiser::load(&file).map_err(|e| {
                format!(
                    "--denoise: {LIBRARY_ENV}={}: cannot load Intel Open Image Denoise from {}: {e}; {HOW_TO_INSTALL}",
                    v.to_string_lossy(),
                    file.display()
                )
            });
        }
        let mut tried = vec![format!("{LIBRARY_FILE} on the loader's path")];
        if let Ok(d) = Denoiser::load(Path::new(LIBRARY_FILE)) {
            return Ok(d);
        }
        if let Some(dir) = pyoidn_lib_dir() {
            let file = dir.join(LIBRARY_FILE);
            match Denoiser::load(&file) {
                Ok(d) => return Ok(d),
                Err(e) => tried.push(format!("{} ({e})", file.display())),
            }
        } else {
            tried.push("the pyoidn package of python3 (none found)".into());
        }
        Err(format!(
            "--denoise needs Intel Open Image Denoise 2.x, which was not found (tried {}): {HOW_TO_INSTALL}",
            tried.join(", ")
        ))
    }

    fn load(file: &Path) -> Result<Denoiser, String> {
        let oidn = oidn::Oidn::load(file)?;
        let version = oidn.device(1)?.version();
        if version / 10000 != 2 {
            return Err(format!(
                "version {} found, 2.x needed",
                version_string(version)
            ));
        }
        Ok(Denoiser { oidn, version })
    }

    /// The file the library was loaded from.
    pub fn library(&self) -> &Path {
        &self.oidn.path
    }

    /// The library's version, e.g. `2.5.1`.
    pub fn version(&self) -> String {
        version_string(self.version)
    }

    /// Filters `width × height` radiance `beauty` with its auxiliaries on `threads` threads
    /// (0: every core): the auxiliaries are prefiltered first, then the radiance is filtered
    /// with the prefiltered ones. Every output value is finite (a non-finite one is refused).
    pub fn denoise(
        &self,
        width: u32,
        height: u32,
        beauty: &[Vec3],
        aux: &AuxImages,
        threads: usize,
    ) -> Result<Denoised, String> {
        let (w, h) = (width as usize, height as usize);
        let n = w * h;
        if beauty.len() != n || aux.albedo.len() != n || aux.normal.len() != n {
            return Err(format!("denoise: images of {n} pixels expected"));
        }
        let arr = |v: &[Vec3]| v.iter().map(|c| c.to_array()).collect::<Vec<_>>();
        let dev = self.oidn.device(threads)?;
        let prefilter = |name: &'static str, input: &[Vec3]| -> Result<Vec<[f32; 3]>, String> {
            let mut data = arr(input);
            let mut out = vec![[0.0f32; 3]; n];
            dev.rt(
                w,
                h,
                &mut [
                    oidn::Plane {
                        name,
                        data: &mut data,
                    },
                    oidn::Plane {
                        name: "output",
                        data: &mut out,
                    },
                ],
                false,
                false,
            )?;
            Ok(out)
        };
        let mut albedo = prefilter("albedo", &aux.albedo)?;
        let mut normal = prefilter("normal", &aux.normal)?;
        let mut color = arr(beauty);
        let mut out = vec![[0.0f32; 3]; n];
        dev.rt(
            w,
            h,
            &mut [
                oidn::Plane {
                    name: "color",
                    data: &mut color,
                },
                oidn::Plane {
                    name: "albedo",
                    data: &mut albedo,
                },
                oidn::Plane {
                    name: "normal",
                    data: &mut normal,
                },
                oidn::Plane {
                    name: "output",
                    data: &mut out,
                },
            ],
            true,
            true,
        )?;
        let back = |v: Vec<[f32; 3]>| v.into_iter().map(Vec3::from_array).collect::<Vec<_>>();
        let d = Denoised {
            beauty: back(out),
            albedo: back(albedo),
            normal: back(normal),
        };
        if let Some(i) = d
            .beauty
            .iter()
            .chain(&d.albedo)
            .chain(&d.normal)
            .position(|c| !c.is_finite())
        {
            return Err(format!(
                "OIDN returned a non-finite value (pixel {} of an image)",
                i % n
            ));
        }
        // Radiance is never negative; the filter may undershoot slightly near edges.
        Ok(Denoised {
            beauty: d.beauty.into_iter().map(|c| c.max(Vec3::ZERO)).collect(),
            ..d
        })
    }
}

/// `major.minor.patch` of OIDN's `major·10000 + minor·100 + patch`.
fn version_string(v: i32) -> String {
    format!("{}.{}.{}", v / 10000, v / 100 % 100, v % 100)
}

/// The `oidn/lib` folder of the `pyoidn` package of the `python3` on `PATH`, if any.
fn pyoidn_lib_dir() -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import importlib.util as u, os; s = u.find_spec('pyoidn'); \
             print(os.path.join(os.path.dirname(s.origin), 'oidn', 'lib') if s else '')",
        ])
        .output()
        .ok()?;
    let s = String::from_utf8(out.stdout).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| PathBuf::from(s))
}
