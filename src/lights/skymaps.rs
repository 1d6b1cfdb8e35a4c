//! Sky maps computed on load: `[sky.prepare]` applied to an HDR, a `[sky.room]` rendered into
//! an equirectangular map, and a mix's layers baked into one map. Each result becomes a
//! [`SkyMap`], importance-sampled and combined with BSDF sampling by MIS like any HDR sky.
//!
//! Maps here are in the orientation of `sky.rs` (unrotated): the centre column looks down −Z,
//! u grows towards +X, the top row is +Y. Azimuth φ and elevation ε of a map direction d are
//! `φ = atan2(d.x, −d.z)` and `ε = asin(d.y)`: azimuth 0 faces −Z (the map's centre) and
//! azimuth 90° faces +X; column x spans φ ∈ [360°·x/w − 180°, 360°·(x+1)/w − 180°] and row y
//! spans ε ∈ [90° − 180°·(y+1)/h, 90° − 180°·y/h].
//!
//! A texel's solid angle is exact: `Δφ · (sin ε_hi − sin ε_lo)`. The renderer samples a texel
//! uniformly in (u, v) with the density divided by sinθ, so a map integrates over the sphere
//! as the sum of its texels times these solid angles; every mean and integral here uses them.
//! The geometry and units are written out in docs/rendering.md ("Skies: hdr prepare, room,
//! mix").

use std::f64::consts::{FRAC_PI_2, PI, TAU};
use std::path::Path;

use glam::{Quat, Vec2, Vec3};

use super::{luminance, SkyMap};
use crate::assets::HdrMap;
use crate::scene::{Prepare, Room, RoomLight, Sky, SkyKind, SkyLayer};

/// Elevation where a room's walls end and its ceiling begins, degrees.
pub const CEILING_DEG: f64 = 45.0;

/// The size of a mix's map when it holds an analytic layer and no larger map: an analytic
/// sky has no texels of its own, so the mix chooses (`1024 × 512`, 0.35° texels).
pub const ANALYTIC_MIX_SIZE: (u32, u32) = (1024, 512);

/// A lamp with more slat edges than this in view has its slats averaged to their open
/// fraction: the stripes are then far finer than any map texel.
const MAX_SLAT_EDGES: f64 = 200_000.0;

/// The exact solid angle of one texel of row `y` in a `w` × `h` map, steradians.
pub fn texel_solid_angle(y: usize, w: usize, h: usize) -> f64 {
    let (t0, t1) = (PI * y as f64 / h as f64, PI * (y + 1) as f64 / h as f64);
    (t0.cos() - t1.cos()) * TAU / w as f64
}

// Luminance of a texel in f64, by the same Rec.709 weights as `luminance`.
use crate::color::luminance_f64 as lum;

/// Applies `[sky.prepare]` to a `w` × `h` map, in the spec's order: cap, then balance, then
/// mean. First every non-finite or negative channel becomes 0 (as [`SkyMap::new`] reads it).
///
/// - `cap`: a texel whose luminance exceeds `cap` is scaled down to luminance `cap`, its
///   three channels by one factor, so its hue and saturation are kept.
/// - `balance` = b: with M the map's solid-angle-weighted mean colour, each channel c is
///   scaled by `k_c = (b_c / M_c) · Y(M) / Y(b)`: the new mean colour is `b · Y(M)/Y(b)`, the
///   chromaticity of b at the unchanged mean luminance Y(M). A channel whose mean is 0 cannot
///   be balanced and stays 0.
/// - `mean`: the map is scaled so its solid-angle-weighted mean luminance is `mean`; a black
///   map stays black.
///
/// `intensity` and rotation apply after this (in [`SkyMap::new`]).
pub fn prepare(texels: &mut [[f32; 3]], w: usize, h: usize, p: &Prepare) {
    for t in texels.iter_mut() {
        for c in t.iter_mut() {
            if !(c.is_finite() && *c > 0.0) {
                *c = 0.0;
            }
        }
    }
    if w == 0 || h == 0 || texels.len() < w * h {
        return;
    }
    let texels = &mut texels[..w * h];
    if let Some(cap) = p.cap.filter(|c| c.is_finite() && *c > 0.0) {
        for t in texels.iter_mut() {
            let l = luminance(Vec3::from(*t));
            if l > cap {
                let k = cap / l;
                *t = t.map(|c| c * k);
            }
        }
    }
    if let Some(b) = p.balance {
        let m = mean_colour(texels, w, h);
        let b = b.map(|c| {
            if c.is_finite() {
                c.max(0.0) as f64
            } else {
                0.0
            }
        });
        let (ym, yb) = (lum(m), lum(b));
        if ym > 0.0 && yb > 0.0 {
            let k: [f64; 3] = std::array::from_fn(|c| {
                if m[c] > 0.0 {
                    b[c] / m[c] * ym / yb
                } else {
                    0.0
                }
            });
            for t in texels.iter_mut() {
                *t = std::array::from_fn(|c| finite((t[c] as f64 * k[c]) as f32));
            }
        }
    }
    if let Some(mean) = p.mean.filter(|m| m.is_finite() && *m > 0.0) {
        let y = lum(mean_colour(texels, w, h));
        if y > 0.0 {
            let k = mean as f64 / y;
            for t in texels.iter_mut() {
                *t = t.map(|c| finite((c as f64 * k) as f32));
            }
        }
    }
}

/// A finite f32: overflow saturates to the largest finite value.
fn finite(c: f32) -> f32 {
    if c.is_nan() {
        0.0
    } else {
        c.clamp(0.0, f32::MAX)
    }
}

/// The solid-angle-weighted mean colour of a `w` × `h` map, W·m⁻²·sr⁻¹.
pub fn mean_colour(texels: &[[f32; 3]], w: usize, h: usize) -> [f64; 3] {
    let mut sum = [0.0f64; 3];
    let mut total = 0.0f64;
    for y in 0..h {
        let sa = texel_solid_angle(y, w, h);
        for t in &texels[y * w..(y + 1) * w] {
            for c in 0..3 {
                sum[c] += t[c] as f64 * sa;
            }
            total += sa;
        }
    }
    if total > 0.0 {
        sum.map(|s| s / total)
    } else {
        [0.0; 3]
    }
}

/// Renders `[sky.room]` into an unrotated map `width` × `width / 2` (docs/rendering.md).
///
/// Surfaces: below the horizon (ε < 0) the floor, from the horizon to ε = 45° the walls,
/// above the ceiling; each colour is a radiance in W·m⁻²·sr⁻¹, and a texel that straddles a
/// boundary takes each surface's share by solid angle.
///
/// Lamps add to the surfaces. A lamp is a rectangle in (φ, ε) of `width` × `height` degrees
/// centred at (`az`, `el`) (`el` clamped to ±90°; the rectangle is cut off at the poles and
/// wraps in azimuth). Its profile is separable, `s_w(φ − az) · s_h(ε − el) · slats(ε − el)`:
/// each edge is a linear ramp of width `soft · width` (across φ) or `soft · height` (across ε)
/// centred on the nominal edge, so the half-maximum outline is the nominal rectangle, and
/// `soft = 0` is a hard edge. `slats` horizontal blinds of period `height / slats` cross it,
/// each period open over its centred fraction `open` (clamped to 0..1) and dark elsewhere.
/// The radiance is `power · color · profile / ∫ s_w s_h dω`: the lamp's radiance integrated
/// over its solid angle, slats fully open, is `power · color` in W/m² (the irradiance a small
/// lamp gives a plane facing it); slats open by `open` pass about that fraction of it.
/// Each texel holds the profile's exact integral over the texel divided by its solid angle.
pub fn render_room(room: &Room) -> HdrMap {
    let w = room.width.clamp(2, 8192) as usize;
    let h = (w / 2).max(1);
    let mut texels = vec![[0.0f32; 3]; w * h];
    let surfaces = [
        (-FRAC_PI_2, 0.0, room.floor),
        (0.0, CEILING_DEG.to_radians(), room.wall),
        (CEILING_DEG.to_radians(), FRAC_PI_2, room.ceiling),
    ];
    for y in 0..h {
        let (hi, lo) = row_elevations(y, h);
        let span = hi.sin() - lo.sin();
        let mut c = [0.0f64; 3];
        for &(b0, b1, colour) in &surfaces {
            let share = (hi.min(b1).sin() - lo.max(b0).sin()).max(0.0) / span;
            for k in 0..3 {
                c[k] += share * sane(colour[k]) as f64;
            }
        }
        for t in &mut texels[y * w..(y + 1) * w] {
            *t = c.map(|v| v as f32);
        }
    }
    for lamp in &room.lights {
        add_lamp(&mut texels, w, h, lamp);
    }
    HdrMap {
        width: w as u32,
        height: h as u32,
        texels,
    }
}

/// A colour channel or parameter as a finite non-negative value.
fn sane(v: f32) -> f32 {
    if v.is_finite() {
        v.max(0.0)
    } else {
        0.0
    }
}

/// Elevations (top, bottom) of row `y` of `h`, radians.
fn row_elevations(y: usize, h: usize) -> (f64, f64) {
    (
        FRAC_PI_2 - PI * y as f64 / h as f64,
        FRAC_PI_2 - PI * (y + 1) as f64 / h as f64,
    )
}

/// `∫₀ᵗ s(x) dx` for t ≥ 0 of the edge profile `s(x) = clamp((a − |x|)/r + ½, 0, 1)` of half
/// size `a` and ramp width `r` (a hard edge at `a` when r = 0).
fn ramp_integral(t: f64, a: f64, r: f64) -> f64 {
    if r <= 0.0 {
        return t.min(a);
    }
    let (y1, y2) = ((a - 0.5 * r).max(0.0), a + 0.5 * r);
    let mut g = t.min(y1);
    if t > y1 {
        let t2 = t.min(y2);
        g += ((y2 - y1) * (y2 - y1) - (y2 - t2) * (y2 - t2)) / (2.0 * r);
    }
    g
}

/// The antiderivative of the even edge profile, `F(x) = sign(x)·∫₀^|x| s`.
fn ramp_antiderivative(x: f64, a: f64, r: f64) -> f64 {
    ramp_integral(x.abs(), a, r).copysign(x)
}

/// Adds one lamp to a `w` × `h` room map (see [`render_room`]).
fn add_lamp(texels: &mut [[f32; 3]], w: usize, h: usize, lamp: &RoomLight) {
    let power = sane(lamp.power) as f64;
    let colour = lamp.color.map(|c| sane(c) as f64);
    let width = (sane(lamp.width) as f64)
        .clamp(1e-6, 179.999_999)
        .to_radians();
    let height = (sane(lamp.height) as f64)
        .clamp(1e-6, 179.999_999)
        .to_radians();
    let soft = sane(lamp.soft) as f64;
    let az0 = if lamp.az.is_finite() {
        (lamp.az as f64).to_radians()
    } else {
        0.0
    };
    let el0 = if lamp.el.is_finite() {
        (lamp.el as f64).to_radians().clamp(-FRAC_PI_2, FRAC_PI_2)
    } else {
        0.0
    };
    if power <= 0.0 || colour.iter().all(|c| *c <= 0.0) {
        return;
    }

    // Across azimuth: each column's share of the profile, on the circle.
    let (aw, rw) = (0.5 * width, soft * width);
    let dphi = TAU / w as f64;
    let az_col: Vec<f64> = (0..w)
        .map(|x| {
            let phi0 = -PI + dphi * x as f64;
            let x0 = (phi0 - az0 + PI).rem_euclid(TAU) - PI;
            let x1 = x0 + dphi;
            let f = |x: f64| ramp_antiderivative(x, aw, rw);
            if x1 <= PI {
                f(x1) - f(x0)
            } else {
                f(PI) - f(x0) + f(x1 - TAU) - f(-PI)
            }
        })
        .collect();
    let az_total = 2.0 * ramp_integral(PI, aw, rw);

    // Across elevation: the profile times cos ε (the solid angle), with and without slats.
    let (el_row, el_open) = elevation_integrals(h, el0, 0.5 * height, soft * height, lamp);
    let norm = az_total * el_open;
    if !(norm > 0.0 && norm.is_finite()) {
        return;
    }
    for (y, &er) in el_row.iter().enumerate() {
        if er <= 0.0 {
            continue;
        }
        let (hi, lo) = row_elevations(y, h);
        let omega = dphi * (hi.sin() - lo.sin());
        for (x, &ac) in az_col.iter().enumerate() {
            if ac <= 0.0 {
                continue;
            }
            let k = power * ac * er / (omega * norm);
            let t = &mut texels[y * w + x];
            for c in 0..3 {
                t[c] = finite(t[c] + (k * colour[c]) as f32);
            }
        }
    }
}

/// For each row, `∫ s_h(ε − el0) · slats(ε − el0) · cos ε dε` over the row, exactly (the
/// integrand is linear times cos on each piece between breakpoints); and the same over the
/// whole range without slats.
fn elevation_integrals(h: usize, el0: f64, a: f64, r: f64, lamp: &RoomLight) -> (Vec<f64>, f64) {
    let open = if lamp.open.is_finite() {
        (lamp.open as f64).clamp(0.0, 1.0)
    } else {
        1.0
    };
    let slats = sane(lamp.slats) as f64;
    let reach = if r > 0.0 { a + 0.5 * r } else { a };
    // Offsets from el0 that keep ε within [−90°, 90°].
    let (lo, hi) = ((-FRAC_PI_2 - el0).max(-reach), (FRAC_PI_2 - el0).min(reach));
    let mut rows = vec![0.0f64; h];
    if hi <= lo {
        return (rows, 0.0);
    }
    let mut points = vec![lo, hi, 0.0, a - 0.5 * r, -(a - 0.5 * r), a, -a];
    for y in 0..=h {
        points.push(FRAC_PI_2 - PI * y as f64 / h as f64 - el0);
    }
    // Slat period p: the open part of period k spans −a + p·(k + (1 ∓ open)/2).
    let period = if slats > 0.0 { 2.0 * a / slats } else { 0.0 };
    let striped = slats > 0.0 && open < 1.0 && period > 0.0;
    let averaged = striped && 2.0 * (hi - lo) / period > MAX_SLAT_EDGES;
    if striped && !averaged {
        let k0 = ((lo + a) / period).floor() as i64 - 1;
        let k1 = ((hi + a) / period).ceil() as i64 + 1;
        for k in k0..=k1 {
            let base = -a + period * k as f64;
            points.push(base + period * 0.5 * (1.0 - open));
            points.push(base + period * 0.5 * (1.0 + open));
        }
    }
    points.retain(|p| *p >= lo && *p <= hi);
    points.sort_by(f64::total_cmp);
    points.dedup();
    let slat = |y: f64| -> f64 {
        if !striped {
            1.0
        } else if averaged {
            open
        } else {
            let f = ((y + a) / period).rem_euclid(1.0);
            if (f - 0.5).abs() < 0.5 * open {
                1.0
            } else {
                0.0
            }
        }
    };
    let mut total_open = 0.0;
    for pair in points.windows(2) {
        let (y0, y1) = (pair[0], pair[1]);
        if y1 <= y0 {
            continue;
        }
        let ym = 0.5 * (y0 + y1);
        // s(y) = α + β·y on this piece.
        let (alpha, beta) = if r <= 0.0 {
            (if ym.abs() < a { 1.0 } else { 0.0 }, 0.0)
        } else {
            let v = (a - ym.abs()) / r + 0.5;
            if v >= 1.0 {
                (1.0, 0.0)
            } else if v <= 0.0 {
                (0.0, 0.0)
            } else {
                ((a + 0.5 * r) / r, -ym.signum() / r)
            }
        };
        if alpha == 0.0 && beta == 0.0 {
            continue;
        }
        let prim = |y: f64| (alpha + beta * y) * (el0 + y).sin() + beta * (el0 + y).cos();
        let piece = (prim(y1) - prim(y0)).max(0.0);
        total_open += piece;
        let row = (((FRAC_PI_2 - (el0 + ym)) / PI * h as f64) as usize).min(h - 1);
        rows[row] += piece * slat(ym);
    }
    (rows, total_open)
}

/// Radiance (W·m⁻²·sr⁻¹) arriving from a world direction: an analytic sky.
pub type RadianceFn<'a> = Box<dyn Fn(Vec3) -> Vec3 + 'a>;

/// One layer of a mix, as [`bake_mix`] takes it.
pub enum LayerSource<'a> {
    /// An equirectangular map (a prepared HDR), its intensity and its rotation in degrees.
    Map {
        /// The map, unrotated.
        map: HdrMap,
        /// Scales its radiance.
        intensity: f32,
        /// The layer turns by its negative.
        rotation_deg: f32,
    },
    /// A room, rendered by [`render_room`], its intensity and rotation.
    Room {
        /// The room.
        room: &'a Room,
        /// Scales its radiance.
        intensity: f32,
        /// The layer turns by its negative.
        rotation_deg: f32,
    },
    /// An analytic sky: radiance (W·m⁻²·sr⁻¹) arriving from a world direction.
    Analytic(RadianceFn<'a>),
}

/// Bakes a mix into one unrotated map: each texel is `Σ weight · layer radiance` at the
/// texel's centre direction (each layer turned by its own rotation and scaled by its own
/// intensity), not renormalised. The map has the largest width and height among the layers'
/// maps, at least [`ANALYTIC_MIX_SIZE`] when a layer is analytic; a layer of that very size
/// and a rotation of whole texels adds its texels exactly, others by nearest texel.
pub fn bake_mix(layers: &[(f32, LayerSource)]) -> HdrMap {
    let rendered: Vec<Option<HdrMap>> = layers
        .iter()
        .map(|(_, l)| match l {
            LayerSource::Room { room, .. } => Some(render_room(room)),
            _ => None,
        })
        .collect();
    let (mut w, mut h) = (1u32, 1u32);
    for ((_, l), r) in layers.iter().zip(&rendered) {
        let size = match (l, r) {
            (LayerSource::Map { map, .. }, _) | (_, Some(map)) => (map.width, map.height),
            _ => ANALYTIC_MIX_SIZE,
        };
        w = w.max(size.0);
        h = h.max(size.1);
    }
    let (wu, hu) = (w as usize, h as usize);
    // f32 sums: a mix of the largest HDRs is 134 M texels, and a few layers lose nothing.
    let mut sum = vec![[0.0f32; 3]; wu * hu];
    for ((weight, l), r) in layers.iter().zip(&rendered) {
        let weight = sane(*weight) as f64;
        if weight == 0.0 {
            continue;
        }
        let (map, intensity, rot) = match (l, r) {
            (
                LayerSource::Map {
                    map,
                    intensity,
                    rotation_deg,
                },
                _,
            ) => (Some(map), *intensity, *rotation_deg),
            (
                LayerSource::Room {
                    intensity,
                    rotation_deg,
                    ..
                },
                Some(map),
            ) => (Some(map), *intensity, *rotation_deg),
            _ => (None, 1.0, 0.0),
        };
        let scale = weight * sane(intensity) as f64;
        let to_map = Quat::from_rotation_y(if rot.is_finite() { rot } else { 0.0 }.to_radians());
        for y in 0..hu {
            for x in 0..wu {
                let uv = Vec2::new((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
                let d = SkyMap::direction_of(uv);
                let c: [f32; 3] = match (map, l) {
                    (Some(m), _) => nearest(m, SkyMap::uv_of(to_map * d)),
                    (None, LayerSource::Analytic(f)) => f(d).to_array(),
                    _ => [0.0; 3],
                };
                let s = &mut sum[y * wu + x];
                for k in 0..3 {
                    s[k] = finite(s[k] + (scale * sane(c[k]) as f64) as f32);
                }
            }
        }
    }
    HdrMap {
        width: w,
        height: h,
        texels: sum,
    }
}

/// The texel of `m` holding map coordinates `uv`.
fn nearest(m: &HdrMap, uv: Vec2) -> [f32; 3] {
    let (w, h) = (m.width as usize, m.height as usize);
    if w == 0 || h == 0 {
        return [0.0; 3];
    }
    let x = ((uv.x * w as f32) as usize).min(w - 1);
    let y = ((uv.y * h as f32) as usize).min(h - 1);
    m.texels.get(y * w + x).copied().unwrap_or([0.0; 3])
}

/// Builds the sky of `[sky]` as a sampled map: an hdr (loaded by `load`, prepared), a room, or
/// a mix baked from its layers. `load(path, schema_path, key)` reads the .hdr named at `key`
/// (`sky.path`, `sky.layer.<i>.path`) and reports its own failure; `analytic` gives the
/// radiance function of an analytic layer, or `None` to leave that layer out of the mix (the
/// caller names it in a capability note). `None` for an analytic sky, a mix with no layer
/// left, or an HDR that did not load.
pub fn build_sky<'a>(
    sky: &'a Sky,
    load: &mut dyn FnMut(&Path, &str, &str) -> Option<HdrMap>,
    analytic: &mut dyn FnMut(&SkyLayer) -> Option<RadianceFn<'a>>,
) -> Option<SkyMap> {
    let to_sky = |m: HdrMap, intensity: f32, rot: f32| {
        SkyMap::new(
            m.width as usize,
            m.height as usize,
            &m.texels,
            sane(intensity),
            if rot.is_finite() { rot } else { 0.0 },
        )
    };
    let hdr = |load: &mut dyn FnMut(&Path, &str, &str) -> Option<HdrMap>,
               path: &Option<std::path::PathBuf>,
               prep: &Option<Prepare>,
               schema_path: &str,
               key: &str| {
        let mut m = load(path.as_deref()?, schema_path, key)?;
        if let Some(p) = prep {
            prepare(&mut m.texels, m.width as usize, m.height as usize, p);
        }
        Some(m)
    };
    let default_room = Room::default();
    match sky.kind {
        SkyKind::Analytic => None,
        SkyKind::Hdr => {
            let m = hdr(load, &sky.path, &sky.prepare, "sky.path", "sky.path")?;
            Some(to_sky(m, sky.intensity, sky.rotation_deg))
        }
        SkyKind::Room => {
            let m = render_room(sky.room.as_ref().unwrap_or(&default_room));
            Some(to_sky(m, sky.intensity, sky.rotation_deg))
        }
        SkyKind::Mix => {
            let mut sources = Vec::new();
            let mut failed = false;
            for (i, l) in sky.layers.iter().enumerate() {
                let source = match l.kind {
                    SkyKind::Hdr => {
                        let key = format!("sky.layer.{i}.path");
                        match hdr(load, &l.path, &l.prepare, "sky.layer.path", &key) {
                            Some(map) => Some(LayerSource::Map {
                                map,
                                intensity: l.intensity,
                                rotation_deg: l.rotation_deg,
                            }),
                            None => {
                                failed = true;
                                None
                            }
                        }
                    }
                    SkyKind::Room => Some(LayerSource::Room {
                        room: l.room.as_ref().unwrap_or(&default_room),
                        intensity: l.intensity,
                        rotation_deg: l.rotation_deg,
                    }),
                    SkyKind::Analytic => analytic(l).map(LayerSource::Analytic),
                    // A layer is never a mix; the reader refuses one.
                    SkyKind::Mix => None,
                };
                if let Some(s) = source {
                    sources.push((l.weight, s));
                }
            }
            if failed || sources.is_empty() {
                return None;
            }
            Some(to_sky(bake_mix(&sources), 1.0, 0.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sampling::testutil::{chi2_test, Rng};

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-6)
    }

    fn assert_rgb(got: [f32; 3], want: [f32; 3], tol: f32) {
        for c in 0..3 {
            assert!(close(got[c], want[c], tol), "{got:?} vs {want:?}");
        }
    }

    /// Radiance of a map direction given by azimuth and elevation in degrees.
    fn dir(az: f32, el: f32) -> Vec3 {
        let (a, e) = (az.to_radians(), el.to_radians());
        Vec3::new(a.sin() * e.cos(), e.sin(), -a.cos() * e.cos())
    }

    fn lamp(az: f32, el: f32) -> RoomLight {
        RoomLight {
            az,
            el,
            ..RoomLight::default()
        }
    }

    fn dark_room(width: u32, lights: Vec<RoomLight>) -> Room {
        Room {
            width,
            floor: [0.0; 3],
            wall: [0.0; 3],
            ceiling: [0.0; 3],
            lights,
        }
    }

    /// Σ texel · solid angle, per channel.
    fn map_integral(m: &HdrMap) -> [f64; 3] {
        let (w, h) = (m.width as usize, m.height as usize);
        let mut s = [0.0; 3];
        for y in 0..h {
            let sa = texel_solid_angle(y, w, h);
            for t in &m.texels[y * w..(y + 1) * w] {
                for c in 0..3 {
                    s[c] += t[c] as f64 * sa;
                }
            }
        }
        s
    }

    /// ∫ L dω of a sampled sky by midpoint quadrature over (θ, φ) through `radiance`, which
    /// knows nothing of texel solid angles.
    fn quadrature(map: &SkyMap, n: usize) -> [f64; 3] {
        let mut s = [0.0f64; 3];
        for j in 0..n {
            let theta = PI * (j as f64 + 0.5) / n as f64;
            let dw = theta.sin() * (PI / n as f64) * (PI / n as f64);
            for i in 0..2 * n {
                let phi = PI * (i as f64 + 0.5) / n as f64;
                let d = Vec3::new(
                    (theta.sin() * phi.cos()) as f32,
                    theta.cos() as f32,
                    (theta.sin() * phi.sin()) as f32,
                );
                let l = map.radiance(d);
                for c in 0..3 {
                    s[c] += l[c] as f64 * dw;
                }
            }
        }
        s
    }

    #[test]
    fn cap_keeps_hue_and_spares_dim_texels() {
        let mut t = vec![
            [10.0, 10.0, 10.0],
            [4.0, 2.0, 1.0],
            [1.0, 0.0, 0.0],
            [-1.0, f32::NAN, 0.5],
        ];
        prepare(
            &mut t,
            2,
            2,
            &Prepare {
                cap: Some(2.0),
                ..Default::default()
            },
        );
        assert_rgb(t[0], [2.0, 2.0, 2.0], 1e-6);
        // Luminance 0.2126·4 + 0.7152·2 + 0.0722 = 2.353: scaled by 2/2.3532, hue kept.
        let k = 2.0 / 2.353;
        assert_rgb(t[1], [4.0 * k, 2.0 * k, k], 1e-5);
        assert_eq!(t[2], [1.0, 0.0, 0.0]);
        assert_eq!(t[3], [0.0, 0.0, 0.5]);
    }

    #[test]
    fn balance_gives_the_mean_the_colour_at_the_same_luminance() {
        // One row: both texels cover 2π sr, so the mean colour is the plain average.
        let mut t = vec![[1.0, 0.5, 0.25], [3.0, 0.5, 0.75]];
        prepare(
            &mut t,
            2,
            1,
            &Prepare {
                balance: Some([1.0, 1.0, 1.0]),
                ..Default::default()
            },
        );
        // M = [2, 0.5, 0.5], Y(M) = 0.4252 + 0.3576 + 0.0361 = 0.8189, Y(b) = 1:
        // k = [0.8189/2, 0.8189/0.5, 0.8189/0.5].
        let y = 0.8189;
        assert_rgb(t[0], [y / 2.0, y, y / 2.0], 1e-5);
        assert_rgb(t[1], [1.5 * y, y, 1.5 * y], 1e-5);
        let m = mean_colour(&t, 2, 1);
        assert!((m[0] - y as f64).abs() < 1e-6 && (m[2] - y as f64).abs() < 1e-6);
        // A warm balance: the mean's chromaticity is b's.
        let mut t = vec![[1.0, 0.5, 0.25], [3.0, 0.5, 0.75]];
        prepare(
            &mut t,
            2,
            1,
            &Prepare {
                balance: Some([2.0, 1.0, 0.5]),
                ..Default::default()
            },
        );
        let m = mean_colour(&t, 2, 1);
        assert!(
            (m[0] / m[1] - 2.0).abs() < 1e-6 && (m[2] / m[1] - 0.5).abs() < 1e-6,
            "{m:?}"
        );
        assert!((lum(m) - y as f64).abs() < 1e-6);
    }

    #[test]
    fn mean_is_weighted_by_solid_angle() {
        // 1 × 4: the top row spans θ in [0, 45°], 2π(1 − cos 45°) sr of the sphere's 4π.
        let mut t = vec![[1.0; 3], [0.0; 3], [0.0; 3], [0.0; 3]];
        prepare(
            &mut t,
            1,
            4,
            &Prepare {
                mean: Some(1.0),
                ..Default::default()
            },
        );
        let share = (1.0 - std::f32::consts::FRAC_1_SQRT_2) / 2.0;
        assert_rgb(t[0], [1.0 / share; 3], 1e-5);
        assert_eq!(t[1], [0.0; 3]);
    }

    #[test]
    fn prepare_runs_cap_then_balance_then_mean() {
        // Cap first: [10] → [1]; the mean of [1, 0.1] is 0.55, scaled to 1.
        let grey = |v: f32| [v; 3];
        let mut t = vec![grey(10.0), grey(0.1)];
        let p = Prepare {
            cap: Some(1.0),
            balance: Some([1.0, 0.5, 0.5]),
            mean: Some(1.0),
        };
        prepare(&mut t, 2, 1, &p);
        // Balance after cap: M = [0.55; 3], k = [1, 0.5, 0.5]·0.55/Y(b)/0.55 where
        // Y(b) = 0.2126 + 0.5·0.7874 = 0.6063; then mean rescales luminance to 1.
        let yb = 0.2126 + 0.5 * (0.7152 + 0.0722);
        let k = [1.0 / yb, 0.5 / yb, 0.5 / yb];
        let scale = 1.0 / 0.55;
        assert_rgb(t[0], [k[0] * scale, k[1] * scale, k[2] * scale], 1e-5);
        assert_rgb(
            t[1],
            [0.1 * k[0] * scale, 0.1 * k[1] * scale, 0.1 * k[2] * scale],
            1e-5,
        );
        // The mean is exact even though texel 0 now exceeds the cap: mean runs last.
        assert!((lum(mean_colour(&t, 2, 1)) - 1.0).abs() < 1e-6);
        assert!(luminance(Vec3::from(t[0])) > 1.5);
    }

    #[test]
    fn room_surfaces_by_elevation() {
        let room = Room {
            width: 64,
            floor: [1.0, 0.0, 0.0],
            wall: [0.0, 1.0, 0.0],
            ceiling: [0.0, 0.0, 1.0],
            lights: vec![],
        };
        let m = render_room(&room);
        assert_eq!((m.width, m.height), (64, 32));
        let sky = SkyMap::new(64, 32, &m.texels, 2.0, 0.0);
        assert_eq!(sky.radiance(dir(10.0, -30.0)), Vec3::new(2.0, 0.0, 0.0));
        assert_eq!(sky.radiance(dir(100.0, 20.0)), Vec3::new(0.0, 2.0, 0.0));
        assert_eq!(sky.radiance(dir(-70.0, 70.0)), Vec3::new(0.0, 0.0, 2.0));
        // Straddling texels split by solid angle: the sphere's integral is exact.
        let s = map_integral(&m);
        let sin45 = std::f64::consts::FRAC_1_SQRT_2;
        assert!((s[0] - TAU).abs() < 1e-5 && (s[1] - TAU * sin45).abs() < 1e-5);
        assert!((s[2] - TAU * (1.0 - sin45)).abs() < 1e-5, "{s:?}");
    }

    #[test]
    fn lamp_power_is_its_radiance_integrated_over_solid_angle() {
        let l = RoomLight {
            power: 2.0,
            color: [1.0, 0.5, 0.25],
            width: 40.0,
            height: 30.0,
            soft: 0.2,
            ..lamp(30.0, 20.0)
        };
        for width in [16, 64, 256] {
            let m = render_room(&dark_room(width, vec![l.clone()]));
            let s = map_integral(&m);
            for (c, want) in [2.0, 1.0, 0.5].into_iter().enumerate() {
                assert!((s[c] - want).abs() < 1e-5 * want, "{width}: {s:?}");
            }
        }
        // Through the sampled sky's radiance alone, at any rotation.
        let m = render_room(&dark_room(256, vec![l]));
        let sky = SkyMap::new(256, 128, &m.texels, 1.0, 37.0);
        let q = quadrature(&sky, 1024);
        assert!((q[0] - 2.0).abs() < 0.005 * 2.0, "{q:?}");
        // A lamp over the pole and one across the seam behind (az 180) keep their power.
        for (az, el) in [(0.0, 80.0), (180.0, 0.0), (-175.0, -60.0)] {
            let m = render_room(&dark_room(128, vec![lamp(az, el)]));
            let s = map_integral(&m);
            assert!((s[1] - 1.0).abs() < 1e-5, "{az} {el}: {s:?}");
        }
    }

    #[test]
    fn lamp_lands_at_its_azimuth_and_elevation() {
        let l = RoomLight {
            width: 20.0,
            height: 10.0,
            soft: 0.0,
            ..lamp(30.0, 20.0)
        };
        let m = render_room(&dark_room(512, vec![l]));
        let sky = SkyMap::new(512, 256, &m.texels, 1.0, 0.0);
        // Azimuth 30° is towards +X from −Z; elevation up.
        let centre = sky.radiance(Vec3::new(0.5 * 0.94, 0.342, -0.866 * 0.94).normalize());
        assert!(centre.x > 0.0);
        for (az, el) in [(21.0, 20.0), (39.0, 20.0), (30.0, 15.8), (30.0, 24.2)] {
            assert!(
                close(sky.radiance(dir(az, el)).x, centre.x, 1e-6),
                "{az} {el}"
            );
        }
        for (az, el) in [
            (-30.0, 20.0),
            (18.0, 20.0),
            (42.0, 20.0),
            (30.0, 13.0),
            (30.0, 27.0),
        ] {
            assert_eq!(sky.radiance(dir(az, el)).x, 0.0, "{az} {el}");
        }
        // rotation_deg = 90 carries the lamp to world azimuth 120°.
        let turned = SkyMap::new(512, 256, &m.texels, 1.0, 90.0);
        assert!(close(turned.radiance(dir(120.0, 20.0)).x, centre.x, 1e-6));
        assert_eq!(turned.radiance(dir(30.0, 20.0)).x, 0.0);
    }

    #[test]
    fn soft_edges_ramp_through_half_at_the_nominal_edge() {
        let l = RoomLight {
            width: 40.0,
            height: 40.0,
            soft: 0.25,
            ..lamp(0.0, 0.0)
        };
        let m = render_room(&dark_room(2048, vec![l.clone()]));
        let sky = SkyMap::new(2048, 1024, &m.texels, 1.0, 0.0);
        let top = sky.radiance(dir(0.0, 0.0)).x;
        // The ramp spans 20° ± 5° in azimuth, linear: within half a texel's step (0.176° of
        // a 10° ramp) of the ramp's value.
        let rel = |az: f32, el: f32| sky.radiance(dir(az, el)).x / top;
        assert!(close(rel(14.0, 0.0), 1.0, 1e-4));
        for (az, want) in [(20.0, 0.5), (-22.5, 0.25), (17.0, 0.8), (-24.0, 0.1)] {
            assert!((rel(az, 0.0) - want).abs() < 0.01, "{az}: {}", rel(az, 0.0));
        }
        assert_eq!(rel(26.0, 0.0), 0.0);
        // And in elevation.
        assert!((rel(0.0, -20.0) - 0.5).abs() < 0.01);
        assert!((rel(0.0, 22.5) - 0.25).abs() < 0.01);
        // The same power as a hard lamp: softness spreads it, the half-maximum box holds.
        let hard = RoomLight { soft: 0.0, ..l };
        let mh = render_room(&dark_room(2048, vec![hard]));
        let sh = SkyMap::new(2048, 1024, &mh.texels, 1.0, 0.0);
        assert!((map_integral(&m)[0] - map_integral(&mh)[0]).abs() < 1e-5);
        // Each ramp adds outside the box what it takes inside, so the soft lamp's plateau is
        // the hard lamp's radiance (to the cos ε weighting across the elevation ramps).
        assert!(close(top, sh.radiance(dir(0.0, 0.0)).x, 0.01));
    }

    #[test]
    fn slats_half_open_pass_half_the_power() {
        let l = RoomLight {
            slats: 8.0,
            open: 0.5,
            ..lamp(10.0, 10.0)
        };
        let m = render_room(&dark_room(512, vec![l.clone()]));
        let s = map_integral(&m)[1];
        assert!((s - 0.5).abs() < 0.005 * 0.5, "{s}");
        // Dark bands where the slats close: across the lamp's centre row of slats, half the
        // elevations see nothing. Period 45°/8 = 5.625°, open around each period's centre.
        let sky = SkyMap::new(512, 256, &m.texels, 1.0, 0.0);
        let p = 45.0 / 8.0;
        let at = |k: f32, f: f32| sky.radiance(dir(10.0, 10.0 - 22.5 + p * (k + f))).y;
        assert!(at(4.0, 0.5) > 0.0 && at(3.0, 0.5) > 0.0);
        assert_eq!(at(4.0, 0.05), 0.0);
        assert_eq!(at(3.0, 0.95), 0.0);
        // Closed slats pass nothing; open ones everything.
        let closed = render_room(&dark_room(
            64,
            vec![RoomLight {
                open: 0.0,
                ..l.clone()
            }],
        ));
        assert_eq!(map_integral(&closed)[1], 0.0);
        let full = render_room(&dark_room(
            64,
            vec![RoomLight {
                open: 1.0,
                ..l.clone()
            }],
        ));
        assert!((map_integral(&full)[1] - 1.0).abs() < 1e-5);
        // Slats far finer than a texel average to their open fraction.
        let fine = render_room(&dark_room(64, vec![RoomLight { slats: 1e7, ..l }]));
        assert!((map_integral(&fine)[1] - 0.5).abs() < 1e-4);
    }

    #[test]
    fn mix_is_the_weighted_sum() {
        let mut rng = Rng::new(5);
        let (w, h) = (64u32, 32u32);
        let texels: Vec<[f32; 3]> = (0..w * h)
            .map(|_| [rng.f32(), rng.f32(), 2.0 * rng.f32()])
            .collect();
        let room = Room {
            lights: vec![lamp(-40.0, 30.0)],
            ..Room::default()
        };
        let room_map = render_room(&room);
        let map = HdrMap {
            width: w,
            height: h,
            texels: texels.clone(),
        };
        let m = bake_mix(&[
            (
                0.5,
                LayerSource::Map {
                    map,
                    intensity: 2.0,
                    rotation_deg: 0.0,
                },
            ),
            (
                2.0,
                LayerSource::Room {
                    room: &room,
                    intensity: 1.5,
                    rotation_deg: 0.0,
                },
            ),
            (0.0, LayerSource::Analytic(Box::new(|_| Vec3::splat(1e6)))),
        ]);
        // The analytic layer asks for its own resolution; weight 0 adds nothing to it.
        assert_eq!((m.width, m.height), ANALYTIC_MIX_SIZE);
        let m = bake_mix(&[
            (
                0.5,
                LayerSource::Map {
                    map: HdrMap {
                        width: w,
                        height: h,
                        texels: texels.clone(),
                    },
                    intensity: 2.0,
                    rotation_deg: 0.0,
                },
            ),
            (
                2.0,
                LayerSource::Room {
                    room: &room,
                    intensity: 1.5,
                    rotation_deg: 0.0,
                },
            ),
        ]);
        assert_eq!((m.width, m.height), (w, h));
        for ((got, t), r) in m.texels.iter().zip(&texels).zip(&room_map.texels) {
            let want: [f32; 3] = std::array::from_fn(|c| t[c] + 3.0 * r[c]);
            assert_rgb(*got, want, 1e-5);
        }
        // A rotation of whole texels shifts the layer: −90° (16 columns) moves column x to x+16.
        let turned = bake_mix(&[(
            1.0,
            LayerSource::Map {
                map: HdrMap {
                    width: w,
                    height: h,
                    texels: texels.clone(),
                },
                intensity: 1.0,
                rotation_deg: -90.0,
            },
        )]);
        let plain = SkyMap::new(64, 32, &texels, 1.0, -90.0);
        let baked = SkyMap::new(64, 32, &turned.texels, 1.0, 0.0);
        let mut rng = Rng::new(9);
        for _ in 0..1000 {
            let d = rng.sphere_dir();
            assert_eq!(plain.radiance(d), baked.radiance(d), "{d}");
        }
        // An analytic layer is evaluated at each texel's world direction.
        let m = bake_mix(&[(
            3.0,
            LayerSource::Analytic(Box::new(|d: Vec3| Vec3::new(d.y.max(0.0), 0.0, 1.0))),
        )]);
        let sky = SkyMap::new(m.width as usize, m.height as usize, &m.texels, 1.0, 0.0);
        let l = sky.radiance(Vec3::new(0.0, 0.6, -0.8));
        assert!((l.x - 1.8).abs() < 0.01 && l.z == 3.0, "{l}");
    }

    /// The sampled directions of an hdr, a room and a mix sky follow `pdf`.
    #[test]
    fn chi_square_of_each_sky_kind() {
        let mut rng = Rng::new(11);
        let (w, h) = (48usize, 24usize);
        let mut hdr: Vec<[f32; 3]> = (0..w * h)
            .map(|i| {
                let y = i / w;
                let sun = if (i % w, y) == (30, 6) { 400.0 } else { 0.0 };
                [rng.f32() * 2.0 + sun, rng.f32() + sun, 0.5 + sun]
            })
            .collect();
        prepare(
            &mut hdr,
            w,
            h,
            &Prepare {
                cap: Some(50.0),
                balance: Some([1.0, 0.9, 0.8]),
                mean: Some(1.0),
            },
        );
        let room = Room {
            width: 64,
            lights: vec![
                RoomLight {
                    power: 20.0,
                    width: 30.0,
                    height: 20.0,
                    slats: 4.0,
                    open: 0.5,
                    ..lamp(60.0, 35.0)
                },
                RoomLight {
                    power: 5.0,
                    width: 90.0,
                    height: 10.0,
                    soft: 0.5,
                    ..lamp(-120.0, 5.0)
                },
            ],
            ..Room::default()
        };
        let room_map = render_room(&room);
        let mix = bake_mix(&[
            (
                0.7,
                LayerSource::Map {
                    map: HdrMap {
                        width: w as u32,
                        height: h as u32,
                        texels: hdr.clone(),
                    },
                    intensity: 1.0,
                    rotation_deg: 25.0,
                },
            ),
            (
                1.0,
                LayerSource::Room {
                    room: &room,
                    intensity: 0.5,
                    rotation_deg: -60.0,
                },
            ),
        ]);
        // The analytic sky as a bake draws it: Hošek–Wilkie towards a sun 20° up, baked.
        let sun = Vec3::new(0.3, 20f32.to_radians().sin(), -0.9).normalize();
        let model = crate::lights::hosek::HosekSky::new(3.0, Vec3::splat(0.2), sun.y.asin());
        let analytic = bake_mix(&[(
            1.0,
            LayerSource::Analytic(Box::new(move |d| model.radiance(d, sun))),
        )]);
        let skies = [
            ("hdr", SkyMap::new(w, h, &hdr, 1.0, 40.0)),
            (
                "analytic",
                SkyMap::new(
                    analytic.width as usize,
                    analytic.height as usize,
                    &analytic.texels,
                    1.0,
                    0.0,
                ),
            ),
            ("room", SkyMap::new(64, 32, &room_map.texels, 2.0, 15.0)),
            (
                "mix",
                SkyMap::new(
                    mix.width as usize,
                    mix.height as usize,
                    &mix.texels,
                    1.0,
                    0.0,
                ),
            ),
        ];
        for (i, (name, sky)) in skies.iter().enumerate() {
            let integral = chi2_test(
                name,
                |u, _| sky.sample(u).map(|s| s.0),
                |d| sky.pdf(d) as f64,
                400_000,
                skies.len(),
                100 + i as u64,
            );
            assert!((integral - 1.0).abs() < 2e-3, "{name}: ∫pdf = {integral}");
        }
    }

    /// Importance-sampled irradiance on an upward plane agrees with the map's own closed-form
    /// sum over texels, for a room with a lamp overhead.
    #[test]
    fn room_irradiance_by_sampling_matches_the_texel_sum() {
        let room = Room {
            lights: vec![RoomLight {
                power: 10.0,
                width: 20.0,
                height: 20.0,
                ..lamp(0.0, 60.0)
            }],
            ..Room::default()
        };
        let m = render_room(&room);
        let sky = SkyMap::new(64, 32, &m.texels, 1.0, 0.0);
        let mut exact = 0.0f64;
        for y in 0..16 {
            let (t0, t1) = (PI * y as f64 / 32.0, PI * (y + 1) as f64 / 32.0);
            let cos_sa = (t1.sin().powi(2) - t0.sin().powi(2)) / 2.0 * TAU / 64.0;
            for x in 0..64 {
                exact += m.texels[y * 64 + x][0] as f64 * cos_sa;
            }
        }
        let mut rng = Rng::new(3);
        let n = 200_000;
        let mut est = 0.0f64;
        for _ in 0..n {
            if let Some((d, l, pdf)) = sky.sample(rng.vec2()) {
                est += (l.x * d.y.max(0.0) / pdf) as f64;
            }
        }
        est /= n as f64;
        assert!((est - exact).abs() < 0.01 * exact, "{est} vs {exact}");
    }
}
