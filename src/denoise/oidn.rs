//! Intel Open Image Denoise 2.x through its C API, loaded at run time.
//!
//! Only the calls the bake needs are bound: a CPU device, the `RT` filter on shared host
//! images, its `hdr`, `cleanAux` and `quality` parameters, and the device's error. The names
//! are OIDN's own (note `cleanAux`: the `oidn` crate sends `clean_aux`, which OIDN ignores,
//! one reason this binding is ours).

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};

use libloading::Library;

/// `OIDN_DEVICE_TYPE_CPU`.
const DEVICE_CPU: c_int = 1;
/// `OIDN_FORMAT_FLOAT3`.
const FORMAT_FLOAT3: c_int = 3;
/// `OIDN_QUALITY_HIGH` (final-frame rendering).
const QUALITY_HIGH: c_int = 6;

type Device = *mut c_void;
type Filter = *mut c_void;

/// The entry points, resolved once when the library loads.
struct Api {
    new_device: unsafe extern "C" fn(c_int) -> Device,
    commit_device: unsafe extern "C" fn(Device),
    release_device: unsafe extern "C" fn(Device),
    set_device_int: unsafe extern "C" fn(Device, *const c_char, c_int),
    get_device_int: unsafe extern "C" fn(Device, *const c_char) -> c_int,
    get_device_error: unsafe extern "C" fn(Device, *mut *const c_char) -> c_int,
    new_filter: unsafe extern "C" fn(Device, *const c_char) -> Filter,
    #[allow(clippy::type_complexity)]
    set_shared_filter_image: unsafe extern "C" fn(
        Filter,
        *const c_char,
        *mut c_void,
        c_int,
        usize,
        usize,
        usize,
        usize,
        usize,
    ),
    set_filter_bool: unsafe extern "C" fn(Filter, *const c_char, bool),
    set_filter_int: unsafe extern "C" fn(Filter, *const c_char, c_int),
    commit_filter: unsafe extern "C" fn(Filter),
    execute_filter: unsafe extern "C" fn(Filter),
    release_filter: unsafe extern "C" fn(Filter),
}

/// A loaded OIDN library.
pub(super) struct Oidn {
    api: Api,
    /// Kept loaded while `api`'s pointers are in use.
    _lib: Library,
    /// Where it was loaded from.
    pub path: PathBuf,
}

/// Resolves `name` in `lib` as a function pointer of type `T`.
///
/// # Safety
/// `T` must be the symbol's true signature.
unsafe fn sym<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    let c = format!("{name}\0");
    lib.get::<T>(c.as_bytes())
        .map(|s| *s)
        .map_err(|e| format!("{name}: {e}"))
}

impl Oidn {
    /// Loads the library at `path` (a file, or a name the dynamic loader searches for).
    pub(super) fn load(path: &Path) -> Result<Oidn, String> {
        // SAFETY: loading runs the library's initialisers; OIDN's only set up its own state.
        let lib = unsafe { Library::new(path) }.map_err(|e| e.to_string())?;
        // SAFETY: the signatures are those of OIDN 2.x's `oidn.h`.
        let api = unsafe {
            Api {
                new_device: sym(&lib, "oidnNewDevice")?,
                commit_device: sym(&lib, "oidnCommitDevice")?,
                release_device: sym(&lib, "oidnReleaseDevice")?,
                set_device_int: sym(&lib, "oidnSetDeviceInt")?,
                get_device_int: sym(&lib, "oidnGetDeviceInt")?,
                get_device_error: sym(&lib, "oidnGetDeviceError")?,
                new_filter: sym(&lib, "oidnNewFilter")?,
                set_shared_filter_image: sym(&lib, "oidnSetSharedFilterImage")?,
                set_filter_bool: sym(&lib, "oidnSetFilterBool")?,
                set_filter_int: sym(&lib, "oidnSetFilterInt")?,
                commit_filter: sym(&lib, "oidnCommitFilter")?,
                execute_filter: sym(&lib, "oidnExecuteFilter")?,
                release_filter: sym(&lib, "oidnReleaseFilter")?,
            }
        };
        Ok(Oidn {
            api,
            _lib: lib,
            path: path.to_path_buf(),
        })
    }

    /// A committed CPU device running `threads` worker threads (0: OIDN's choice), with its
    /// version (`major·10000 + minor·100 + patch`).
    pub(super) fn device(&self, threads: usize) -> Result<CpuDevice<'_>, String> {
        let a = &self.api;
        // SAFETY: calls of the C API in its documented order; the device is released by
        // `CpuDevice`'s drop.
        unsafe {
            let d = (a.new_device)(DEVICE_CPU);
            if d.is_null() {
                return Err("OIDN could not create a CPU device".into());
            }
            let dev = CpuDevice { oidn: self, d };
            let name = CString::new("numThreads").unwrap_or_default();
            (a.set_device_int)(d, name.as_ptr(), threads.min(c_int::MAX as usize) as c_int);
            (a.commit_device)(d);
            dev.check()?;
            Ok(dev)
        }
    }
}

/// A committed OIDN CPU device.
pub(super) struct CpuDevice<'a> {
    oidn: &'a Oidn,
    d: Device,
}

impl Drop for CpuDevice<'_> {
    fn drop(&mut self) {
        // SAFETY: `d` came from `oidnNewDevice` and is released once.
        unsafe { (self.oidn.api.release_device)(self.d) }
    }
}

/// One filter input or output: `width × height` RGB float pixels, row-major.
pub(super) struct Plane<'b> {
    /// OIDN's image name: `color`, `albedo`, `normal` or `output`.
    pub name: &'static str,
    /// The pixels; OIDN reads inputs and writes the output in place.
    pub data: &'b mut [[f32; 3]],
}

impl CpuDevice<'_> {
    /// The library's version, `major·10000 + minor·100 + patch`.
    pub(super) fn version(&self) -> i32 {
        let name = CString::new("version").unwrap_or_default();
        // SAFETY: a committed device; `version` is a read-only device parameter.
        unsafe { (self.oidn.api.get_device_int)(self.d, name.as_ptr()) }
    }

    /// The device's pending error, as a message.
    fn check(&self) -> Result<(), String> {
        let mut msg: *const c_char = std::ptr::null();
        // SAFETY: OIDN returns a pointer to a message it owns, valid until the next call.
        let code = unsafe { (self.oidn.api.get_device_error)(self.d, &mut msg) };
        if code == 0 {
            return Ok(());
        }
        let text = if msg.is_null() {
            String::from("unknown error")
        } else {
            // SAFETY: a NUL-terminated string from OIDN.
            unsafe { CStr::from_ptr(msg) }
                .to_string_lossy()
                .into_owned()
        };
        Err(format!("OIDN error {code}: {text}"))
    }

    /// Runs the `RT` filter on `width × height` images: `planes` are the inputs and the
    /// output (the output may not alias an input); `hdr` for radiance, `clean_aux` when the
    /// auxiliary images are noise-free (prefiltered).
    pub(super) fn rt(
        &self,
        width: usize,
        height: usize,
        planes: &mut [Plane<'_>],
        hdr: bool,
        clean_aux: bool,
    ) -> Result<(), String> {
        let a = &self.oidn.api;
        for p in planes.iter() {
            if p.data.len() != width * height {
                return Err(format!(
                    "OIDN image {}: {} pixels for {width}×{height}",
                    p.name,
                    p.data.len()
                ));
            }
        }
        let c = |s: &str| CString::new(s).unwrap_or_default();
        // SAFETY: the C API in its documented order; every image is `width × height` packed
        // float3 pixels that outlive the execution; the filter is released before returning.
        unsafe {
            let f = (a.new_filter)(self.d, c("RT").as_ptr());
            if f.is_null() {
                self.check()?;
                return Err("OIDN could not create the RT filter".into());
            }
            let stride = std::mem::size_of::<[f32; 3]>();
            for p in planes.iter_mut() {
                (a.set_shared_filter_image)(
                    f,
                    c(p.name).as_ptr(),
                    p.data.as_mut_ptr() as *mut c_void,
                    FORMAT_FLOAT3,
                    width,
                    height,
                    0,
                    stride,
                    stride * width,
                );
            }
            (a.set_filter_bool)(f, c("hdr").as_ptr(), hdr);
            (a.set_filter_bool)(f, c("cleanAux").as_ptr(), clean_aux);
            (a.set_filter_int)(f, c("quality").as_ptr(), QUALITY_HIGH);
            (a.commit_filter)(f);
            let r = self.check();
            if r.is_ok() {
                (a.execute_filter)(f);
            }
            (a.release_filter)(f);
            r.and_then(|_| self.check())
        }
    }
}
