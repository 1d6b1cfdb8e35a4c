//! Ray-throughput benchmark against the Embree anchor: the ray sets of the `rays` harness
//! (`../shared/bench/rays`, see its README) traced through the public `Accel` API, one ray at
//! a time (`Accel::closest_hit` / `any_hit`) and in packets of eight consecutive rays of the
//! set (`Accel::closest_hit_packet` / `any_hit_packet`), single thread, each validated
//! against Embree's answers.
//!
//! ```sh
//! PFX_RAYS_DATA=/path/to/rays/data taskset -c 1 cargo bench --bench rays
//! ```
//!
//! `PFX_RAYS_DATA` names the folder `run.sh data` wrote (`<scene>/verts.npy`, `indices.npy`,
//! `rays_{primary,secondary,shadow}.npy`, `ref_*.npy`); unset or missing, the bench says it
//! skipped and exits 0. `SCENES` (comma list, default all five) and `REPS` (timed passes,
//! default 5) as in the harness; `SETS` (comma list of `primary`, `secondary`, `shadow`) and
//! `APIS` (`single`, `packet`) narrow a run, e.g. to profile one set under callgrind. Per scene: one `Accel` from one `TriangleMesh` and one
//! identity `Instance` (mask 1; a mesh placed once is flattened), its build timed. Per ray set:
//! a warm-up pass checked against `ref_*.npy` (closest hit within 1e-4 relative of Embree's t,
//! both-miss agrees; occlusion flags equal; at most 0.01 % of the rays may disagree), then
//! `REPS` timed passes, for each API. One JSON line per scene, set and API on stdout, with the harness's keys
//! (`mrays` is the best pass). Exit status 1 on a malformed file or a failed validation.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use glam::{Mat4, Vec3};
use pfx_bake::accel::{Accel, Instance, TriangleMesh, PACKET_SIZE};
use pfx_bake::geometry::Ray;

const ALL_SCENES: &str = "bunny,soup,cornell_bunny,sphere,instances";
const SETS: [&str; 3] = ["primary", "secondary", "shadow"];

/// A little-endian, C-order `.npy` array of 4-byte elements, as raw words.
struct Npy {
    words: Vec<u32>,
    shape: Vec<usize>,
}

/// The value of `'key':` in a `.npy` header dict, up to the next top-level comma or brace.
fn header_value<'a>(header: &'a str, key: &str) -> Result<&'a str, String> {
    let pat = format!("'{key}':");
    let start = header
        .find(&pat)
        .ok_or_else(|| format!("header has no '{key}'"))?
        + pat.len();
    let rest = header[start..].trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')').ok_or("unclosed shape tuple")? + 1
    } else {
        rest.find([',', '}'])
            .ok_or_else(|| format!("bad '{key}' value"))?
    };
    Ok(rest[..end].trim())
}

/// Reads a `.npy` file (format version 1, 2 or 3) whose dtype must be `descr` (`<f4`, `<u4`).
fn read_npy(path: &Path, descr: &str) -> Result<Npy, String> {
    let err = |m: String| format!("{}: {m}", path.display());
    let buf = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    if buf.len() < 10 || &buf[..6] != b"\x93NUMPY" {
        return Err(err("not a .npy file (bad magic)".into()));
    }
    let (hlen, start) = match buf[6] {
        1 => (u16::from_le_bytes([buf[8], buf[9]]) as usize, 10),
        2 | 3 if buf.len() >= 12 => (
            u32::from_le_bytes([buf[8], buf[9], buf[10], buf[11]]) as usize,
            12,
        ),
        v => return Err(err(format!("unsupported .npy version {v}"))),
    };
    let header = buf
        .get(start..start + hlen)
        .ok_or_else(|| err("truncated header".into()))?;
    let header = std::str::from_utf8(header).map_err(|_| err("header is not text".into()))?;
    let got = header_value(header, "descr").map_err(&err)?;
    if got.trim_matches(|c| c == '\'' || c == '"') != descr {
        return Err(err(format!("dtype {got}, expected '{descr}'")));
    }
    if header_value(header, "fortran_order").map_err(&err)? != "False" {
        return Err(err("Fortran-order arrays are not supported".into()));
    }
    let tuple = header_value(header, "shape").map_err(&err)?;
    let inner = tuple
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| err(format!("bad shape {tuple}")))?;
    let shape = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| err(format!("bad shape {tuple}")))?;
    let data = &buf[start + hlen..];
    let count = shape
        .iter()
        .try_fold(1usize, |a, &b| a.checked_mul(b))
        .ok_or_else(|| err("shape overflows".into()))?;
    if count.checked_mul(4) != Some(data.len()) {
        return Err(err(format!(
            "shape {shape:?} needs {count} elements of 4 bytes, the file holds {} bytes",
            data.len()
        )));
    }
    let words = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(Npy { words, shape })
}

/// Reads an `N×cols` array (`cols = None`: a vector of N) and returns its rows' count.
fn read_2d(path: &Path, descr: &str, cols: Option<usize>) -> Result<(Vec<u32>, usize), String> {
    let a = read_npy(path, descr)?;
    let want = match cols {
        Some(c) => a.shape.len() == 2 && a.shape[1] == c,
        None => a.shape.len() == 1,
    };
    if !want {
        return Err(format!(
            "{}: shape {:?}, expected N×{}",
            path.display(),
            a.shape,
            cols.map_or("-".into(), |c| c.to_string())
        ));
    }
    Ok((a.words, a.shape[0]))
}

fn floats(words: Vec<u32>) -> Vec<f32> {
    words.into_iter().map(f32::from_bits).collect()
}

/// Disagreements with Embree's reference, as the harness counts them.
fn mismatches(shadow: bool, got: &[f32], reference: &[f32]) -> usize {
    let bad = |(&g, &r): (&f32, &f32)| {
        if shadow {
            g != r
        } else if g.is_infinite() && r.is_infinite() {
            false
        } else {
            g.is_infinite() != r.is_infinite() || (g - r).abs() > 1e-4 * r.abs()
        }
    };
    got.iter().zip(reference).filter(|&p| bad(p)).count()
}

/// One pass over the rays: closest-hit t (+inf on a miss), or the occlusion flag as 0/1.
/// `packet`: through the packet API, [`PACKET_SIZE`] consecutive rays at a time (the
/// conversion of its results into `out` is timed too, as the single-ray loop's is).
fn trace(accel: &Accel, rays: &[Ray], out: &mut [f32], shadow: bool, packet: bool) -> f64 {
    let masks = [1u32; PACKET_SIZE];
    let t0 = Instant::now();
    if packet {
        let mut hits = [None; PACKET_SIZE];
        let mut any = [false; PACKET_SIZE];
        for (o, r) in out.chunks_mut(PACKET_SIZE).zip(rays.chunks(PACKET_SIZE)) {
            let n = r.len();
            if shadow {
                accel.any_hit_packet(r, &masks[..n], &mut any[..n]);
                for (o, a) in o.iter_mut().zip(&any) {
                    *o = *a as u32 as f32;
                }
            } else {
                accel.closest_hit_packet(r, &masks[..n], &mut hits[..n]);
                for (o, h) in o.iter_mut().zip(&hits) {
                    *o = h.map_or(f32::INFINITY, |h| h.t);
                }
            }
        }
    } else {
        for (o, r) in out.iter_mut().zip(rays) {
            *o = if shadow {
                accel.any_hit(r, 1, |_| true) as u32 as f32
            } else {
                accel.closest_hit(r, 1).map_or(f32::INFINITY, |h| h.t)
            };
        }
    }
    std::hint::black_box(&mut *out);
    t0.elapsed().as_secs_f64()
}

fn run_scene(dir: &Path, scene: &str, reps: usize) -> Result<bool, String> {
    let d = dir.join(scene);
    let (vw, nv) = read_2d(&d.join("verts.npy"), "<f4", Some(3))?;
    let (iw, nt) = read_2d(&d.join("indices.npy"), "<u4", Some(3))?;
    if let Some(&i) = iw.iter().find(|&&i| i as usize >= nv) {
        return Err(format!("{scene}: index {i} out of range of {nv} vertices"));
    }
    let v = floats(vw);
    let mesh = TriangleMesh {
        positions: v.chunks_exact(3).map(Vec3::from_slice).collect(),
        indices: iw.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
    };
    let input_bytes = nv * 12 + nt * 12;
    let instance = Instance {
        mesh: 0,
        world_from_object: Mat4::IDENTITY,
        mask: 1,
    };
    let t0 = Instant::now();
    let accel = Accel::build(vec![mesh], vec![instance]);
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    let accel_bytes = accel.memory_bytes();
    let bytes_per_tri = accel_bytes.saturating_sub(input_bytes) as f64 / nt.max(1) as f64;
    eprintln!(
        "rays: {scene}: {nt} triangles, build {build_ms:.1} ms, {accel_bytes} bytes \
         ({input_bytes} of them the mesh as given), {bytes_per_tri:.1} bytes/triangle besides"
    );
    let mut all_ok = true;
    let wanted = |var: &str, name: &str| {
        std::env::var(var).map_or(true, |v| v.split(',').any(|s| s.trim() == name))
    };
    for set in SETS.into_iter().filter(|s| wanted("SETS", s)) {
        let (rw, n) = read_2d(&d.join(format!("rays_{set}.npy")), "<f4", Some(8))?;
        let rv = floats(rw);
        let (refw, nref) = read_2d(&d.join(format!("ref_{set}.npy")), "<f4", None)?;
        if nref != n {
            return Err(format!(
                "{scene}/{set}: {n} rays but {nref} reference answers"
            ));
        }
        let reference = floats(refw);
        if let Some(k) = rv.chunks_exact(8).position(|c| c[3] != 0.0) {
            return Err(format!(
                "{scene}/{set}: ray {k} has tnear != 0 (the API has none)"
            ));
        }
        let rays: Vec<Ray> = rv
            .chunks_exact(8)
            .map(|c| Ray {
                o: Vec3::new(c[0], c[1], c[2]),
                d: Vec3::new(c[4], c[5], c[6]),
                t_max: c[7],
            })
            .collect();
        drop(rv);
        let shadow = set == "shadow";
        let apis = [false, true];
        for packet in apis
            .into_iter()
            .filter(|&p| wanted("APIS", if p { "packet" } else { "single" }))
        {
            let mut out = vec![f32::NAN; n];
            trace(&accel, &rays, &mut out, shadow, packet); // warm-up, validated
            let mismatch = mismatches(shadow, &out, &reference);
            let ok = mismatch <= n / 10_000;
            all_ok &= ok;
            let mut ts: Vec<f64> = (0..reps)
                .map(|_| trace(&accel, &rays, &mut out, shadow, packet))
                .collect();
            ts.sort_by(f64::total_cmp);
            let api = match (shadow, packet) {
                (false, false) => "Accel::closest_hit",
                (true, false) => "Accel::any_hit",
                (false, true) => "Accel::closest_hit_packet",
                (true, true) => "Accel::any_hit_packet",
            };
            let line = serde_json::json!({
                "engine": "pfx-bake",
                "api": api,
                "packet": if packet { PACKET_SIZE } else { 1 },
                "scene": scene,
                "set": set,
                "threads": 1,
                "n": n,
                "reps": reps,
                "mrays": round4(n as f64 / ts[0] / 1e6),
                "mrays_median": round4(n as f64 / ts[ts.len() / 2] / 1e6),
                "build_ms": round4(build_ms),
                "triangles": nt,
                "accel_bytes": accel_bytes,
                "input_bytes": input_bytes,
                "bytes_per_tri": round4(bytes_per_tri),
                "mismatch": mismatch,
                "ok": ok,
            });
            println!("{line}");
        }
    }
    Ok(all_ok)
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn main() -> ExitCode {
    let dir = std::env::var_os("PFX_RAYS_DATA").map(PathBuf::from);
    let Some(dir) = dir.filter(|d| d.is_dir()) else {
        println!(
            "rays: skipped: set PFX_RAYS_DATA to the data folder of the rays harness \
             (written by `./run.sh data`, e.g. /work/rays/data)"
        );
        return ExitCode::SUCCESS;
    };
    let reps = match std::env::var("REPS") {
        Err(_) => 5,
        Ok(s) => match s.trim().parse::<usize>() {
            Ok(r) if r >= 1 => r,
            _ => {
                eprintln!("rays: REPS={s}: expected a whole number of at least 1");
                return ExitCode::FAILURE;
            }
        },
    };
    let scenes = std::env::var("SCENES").unwrap_or_else(|_| ALL_SCENES.into());
    let mut ok = true;
    for scene in scenes.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match run_scene(&dir, scene, reps) {
            Ok(good) => ok &= good,
            Err(e) => {
                eprintln!("rays: error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if !ok {
        eprintln!("rays: validation failed: more than 0.01 % of some set's rays disagree");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
