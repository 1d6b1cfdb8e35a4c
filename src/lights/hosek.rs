//! The Hošek–Wilkie analytic daylight: the 2012 sky-dome model from its RGB dataset, and the
//! 2013 solar radiance function integrated over the sun's disk for the daylight sun.
//!
//! A port of the authors' sample implementation, version 1.4a (`ArHosekSkyModel.c`), with its
//! coefficient tables in `hosek_data.rs` under their 3-clause BSD licence. See docs/sky.md for
//! the units, how the sun and sky keep their ratio, and the measured agreement with the C code.
//!
//! Frame: +Y is up. Angles follow the paper: `theta` is a view direction's zenith angle and
//! `gamma` its angle to the sun's centre.
//!
//! Units. The sky's RGB radiance is the RGB dataset's own output: linear sRGB (Rec. 709
//! primaries, D65 white) of the CIE 1931 tristimulus values `∫ L_λ x̄ dλ, ∫ L_λ ȳ dλ, ∫ L_λ z̄ dλ`
//! of the spectral radiance L_λ in W·m⁻²·sr⁻¹·nm⁻¹, without the 683 lm/W factor; 683 × the
//! luminance of a value is cd/m². The daylight sun's irradiance is in the same units,
//! per m² of a plane facing the sun instead of per m²·sr.

use std::f64::consts::PI;

use glam::Vec3;

#[rustfmt::skip]
#[path = "hosek_data.rs"]
mod data;

use data::{CIE_1931, LIMB_DARKENING, RGB_RAD, RGB_SKY, SOLAR};

/// The angular radius of the sun's disk the solar tables were fitted with, in radians
/// (`TERRESTRIAL_SOLAR_RADIUS`, 0.51°/2 = 0.255°; the mean real value is about 0.2667°).
pub const MODEL_SUN_RADIUS: f64 = 0.51 * PI / 180.0 / 2.0;

/// The turbidity an authored sun's warming and dimming follows (the `[sky]` default).
pub const AUTHORED_SUN_TURBIDITY: f32 = 3.0;

/// The first and last wavelengths, in nm, of the spectral solar tables.
const WL_FIRST: f64 = 320.0;
const WL_LAST: f64 = 720.0;
/// The CIE table's first wavelength and step, in nm.
const CIE_FIRST: f64 = 360.0;
const CIE_STEP: f64 = 1.0;

/// CIE XYZ to linear sRGB (Rec. 709 primaries, D65 white), IEC 61966-2-1: the conversion the
/// RGB dataset was made with (the model's notes: "sRGB primaries with a linear gamma ramp").
const XYZ_TO_RGB: [[f64; 3]; 3] = [
    [3.2404542, -1.5371385, -0.4985314],
    [-0.9692660, 1.8760108, 0.0415560],
    [0.0556434, -0.2040259, 1.0572252],
];

/// The analytic sky of one turbidity, ground albedo and sun elevation, in the RGB dataset's
/// units (see the module notes).
#[derive(Clone, Debug)]
pub struct HosekSky {
    /// The nine distribution parameters A…I per channel.
    configs: [[f64; 9]; 3],
    /// The overall radiance scale per channel.
    radiances: [f64; 3],
    /// False when the sun is at or below the horizon, where the model is undefined: black.
    lit: bool,
}

impl HosekSky {
    /// The sky for `turbidity` (clamped to [1, 10]; NaN reads as 3), `ground_albedo` per
    /// channel (each clamped to [0, 1]; NaN reads as 0.2) and the sun's elevation in radians
    /// above the horizon (above π/2 reads as π/2). At or below the horizon, or NaN, the sky is
    /// black.
    pub fn new(turbidity: f32, ground_albedo: Vec3, sun_elevation: f32) -> HosekSky {
        let turbidity = clean_turbidity(turbidity);
        let elevation = f64::from(sun_elevation);
        let lit = elevation > 0.0;
        let elevation = if lit { elevation.min(PI / 2.0) } else { 0.0 };
        let mut configs = [[0.0; 9]; 3];
        let mut radiances = [0.0; 3];
        for c in 0..3 {
            let a = ground_albedo[c];
            let albedo = if a.is_nan() {
                0.2
            } else {
                f64::from(a.clamp(0.0, 1.0))
            };
            for (i, config) in configs[c].iter_mut().enumerate() {
                *config = cook(&RGB_SKY[c], 9, i, turbidity, albedo, elevation);
            }
            radiances[c] = cook(&RGB_RAD[c], 1, 0, turbidity, albedo, elevation);
        }
        HosekSky {
            configs,
            radiances,
            lit,
        }
    }

    /// Whether the sun is above the horizon; otherwise every radiance is zero.
    pub fn is_lit(&self) -> bool {
        self.lit
    }

    /// The model's radiance per channel at zenith angle `theta` and angle `gamma` to the sun,
    /// exactly `arhosek_tristim_skymodel_radiance` of the reference code (not clamped; zero
    /// when the sun is down, and for `theta` beyond π/2: the model has no ground).
    pub fn radiance_theta_gamma(&self, theta: f64, gamma: f64) -> [f64; 3] {
        self.eval(theta.cos(), gamma.cos(), gamma)
    }

    /// The sky's radiance towards the unit direction `d` with the sun towards the unit vector
    /// `sun` (whose elevation should be the one this sky was made with), W·m⁻²·sr⁻¹ in the RGB
    /// dataset's units. Black for `d` at or below the horizon and when the sun is down;
    /// negative channels (never seen in the reference grid) read as zero; never NaN.
    pub fn radiance(&self, d: Vec3, sun: Vec3) -> Vec3 {
        let d = d.as_dvec3();
        let s = sun.as_dvec3();
        let (dl, sl) = (d.length(), s.length());
        // Written so that NaN anywhere fails it.
        let visible = self.lit && dl > 0.0 && sl > 0.0 && d.y > 0.0;
        if !visible {
            return Vec3::ZERO;
        }
        let (d, s) = (d / dl, s / sl);
        let cos_theta = d.y.min(1.0);
        // atan2 keeps gamma accurate next to the sun, where acos of the dot loses digits.
        let gamma = d.cross(s).length().atan2(d.dot(s));
        let cos_gamma = d.dot(s).clamp(-1.0, 1.0);
        let l = self.eval(cos_theta, cos_gamma, gamma);
        let v = Vec3::new(l[0] as f32, l[1] as f32, l[2] as f32);
        if v.is_finite() {
            v.max(Vec3::ZERO)
        } else {
            Vec3::ZERO
        }
    }

    /// `ArHosekSkyModel_GetRadianceInternal` times the radiance scale, per channel.
    fn eval(&self, cos_theta: f64, cos_gamma: f64, gamma: f64) -> [f64; 3] {
        // Below the horizon (or NaN) the model's √cos θ has no value: black.
        if !self.lit || cos_theta.is_nan() || cos_theta < 0.0 || gamma.is_nan() {
            return [0.0; 3];
        }
        let mut out = [0.0; 3];
        for (c, o) in out.iter_mut().enumerate() {
            let k = &self.configs[c];
            let exp_m = (k[4] * gamma).exp();
            let ray_m = cos_gamma * cos_gamma;
            let mie_m = (1.0 + cos_gamma * cos_gamma)
                / (1.0 + k[8] * k[8] - 2.0 * k[8] * cos_gamma).powf(1.5);
            let zenith = cos_theta.sqrt();
            *o = (1.0 + k[0] * (k[1] / (cos_theta + 0.01)).exp())
                * (k[2] + k[3] * exp_m + k[5] * ray_m + k[6] * mie_m + k[7] * zenith)
                * self.radiances[c];
        }
        out
    }
}

/// Turbidity as the model takes it: [1, 10], NaN as the spec's default 3.
fn clean_turbidity(turbidity: f32) -> f64 {
    if turbidity.is_nan() {
        3.0
    } else {
        f64::from(turbidity.clamp(1.0, 10.0))
    }
}

/// One configuration value, `ArHosekSkyModel_CookConfiguration` (stride 9, index i) or
/// `ArHosekSkyModel_CookRadianceConfiguration` (stride 1): a quintic Bézier in the cube root of
/// the normalised elevation, blended linearly in turbidity and albedo.
fn cook(
    dataset: &[f64],
    stride: usize,
    i: usize,
    turbidity: f64,
    albedo: f64,
    elevation: f64,
) -> f64 {
    let int_turbidity = turbidity as usize; // 1..=10
    let turbidity_rem = turbidity - int_turbidity as f64;
    let t = (elevation / (PI / 2.0)).powf(1.0 / 3.0);
    let bezier = |offset: usize| -> f64 {
        let m = &dataset[offset..];
        (1.0 - t).powf(5.0) * m[i]
            + 5.0 * (1.0 - t).powf(4.0) * t * m[i + stride]
            + 10.0 * (1.0 - t).powf(3.0) * t.powf(2.0) * m[i + 2 * stride]
            + 10.0 * (1.0 - t).powf(2.0) * t.powf(3.0) * m[i + 3 * stride]
            + 5.0 * (1.0 - t) * t.powf(4.0) * m[i + 4 * stride]
            + t.powf(5.0) * m[i + 5 * stride]
    };
    let block = 6 * stride;
    let albedo1 = 10 * block;
    let mut res = (1.0 - albedo) * (1.0 - turbidity_rem) * bezier(block * (int_turbidity - 1))
        + albedo * (1.0 - turbidity_rem) * bezier(albedo1 + block * (int_turbidity - 1));
    if int_turbidity == 10 {
        return res;
    }
    res += (1.0 - albedo) * turbidity_rem * bezier(block * int_turbidity)
        + albedo * turbidity_rem * bezier(albedo1 + block * int_turbidity);
    res
}

/// `arhosekskymodel_sr_internal`: the sun's centre radiance at band `wl` (0 = 320 nm … 10 =
/// 720 nm) for turbidity index `turbidity` (0 = turbidity 1), a piecewise cubic in elevation.
fn solar_band(turbidity: usize, wl: usize, elevation: f64) -> f64 {
    const PIECES: usize = 45;
    const ORDER: usize = 4;
    let pos = (((2.0 * elevation / PI).powf(1.0 / 3.0) * PIECES as f64) as usize).min(PIECES - 1);
    let break_x = (pos as f64 / PIECES as f64).powf(3.0) * (PI * 0.5);
    let c = &SOLAR[wl][ORDER * PIECES * turbidity + ORDER * pos..][..ORDER];
    let x = elevation - break_x;
    // Coefficients run from the highest power down, as the reference reads them backwards.
    c[3] + x * c[2] + x * x * c[1] + x * x * x * c[0]
}

/// The solar tables' turbidity index (0 = turbidity 1) and blend weight for a turbidity in
/// [1, 10], as the reference takes them (turbidity 10 is index 8 at weight 1).
fn turbidity_weights(turbidity: f64) -> (usize, f64) {
    let low = (turbidity as usize).clamp(1, 10) - 1;
    if low == 9 {
        (8, 1.0)
    } else {
        (low, turbidity - (low + 1) as f64)
    }
}

/// Turbidity and wavelength indices with their blend weights, as the solar function takes
/// them; `None` outside 320–720 nm.
fn solar_weights(turbidity: f64, wavelength: f64) -> Option<(usize, f64, usize, f64)> {
    if !(WL_FIRST..=WL_LAST).contains(&wavelength) {
        return None;
    }
    let (turb_low, turb_frac) = turbidity_weights(turbidity);
    let mut wl_low = ((wavelength - WL_FIRST) / 40.0) as usize;
    let mut wl_frac = (wavelength % 40.0) / 40.0;
    if wl_low == 10 {
        wl_low = 9;
        wl_frac = 1.0;
    }
    Some((turb_low, turb_frac, wl_low, wl_frac))
}

/// The radiance at the centre of the sun's disk before limb darkening, W·m⁻²·sr⁻¹·nm⁻¹.
fn solar_centre(
    turb_low: usize,
    turb_frac: f64,
    wl_low: usize,
    wl_frac: f64,
    elevation: f64,
) -> f64 {
    let band = |t: usize| {
        (1.0 - wl_frac) * solar_band(t, wl_low, elevation)
            + wl_frac * solar_band(t, wl_low + 1, elevation)
    };
    (1.0 - turb_frac) * band(turb_low) + turb_frac * band(turb_low + 1)
}

/// The limb-darkening quintic's coefficients at the blend `wl_low`, `wl_frac`.
fn limb_coefficients(wl_low: usize, wl_frac: f64) -> [f64; 6] {
    let mut ld = [0.0; 6];
    for (i, v) in ld.iter_mut().enumerate() {
        *v = (1.0 - wl_frac) * LIMB_DARKENING[wl_low][i] + wl_frac * LIMB_DARKENING[wl_low + 1][i];
    }
    ld
}

/// The sun's direct spectral radiance, W·m⁻²·sr⁻¹·nm⁻¹, at `wavelength` nm (320 to 720, else
/// zero), for `turbidity` (clamped to [1, 10]) and a point of the disk at `elevation` radians
/// above the horizon and `gamma` radians from the disk's centre (zero outside the model's disk
/// of radius [`MODEL_SUN_RADIUS`]): `arhosekskymodel_solar_radiance` less its in-scattered sky
/// term, which the sky already supplies behind the disk. Zero at or below the horizon, where
/// the model is undefined; never negative.
pub fn solar_radiance(turbidity: f64, elevation: f64, wavelength: f64, gamma: f64) -> f64 {
    let turbidity = if turbidity.is_nan() {
        3.0
    } else {
        turbidity.clamp(1.0, 10.0)
    };
    if elevation.is_nan() || elevation < 0.0 {
        return 0.0;
    }
    let Some((tl, tf, wl, wf)) = solar_weights(turbidity, wavelength) else {
        return 0.0;
    };
    let sin_r = MODEL_SUN_RADIUS.sin();
    let sin_g = gamma.sin();
    let sc2 = (1.0 - sin_g * sin_g / (sin_r * sin_r)).max(0.0);
    let mu = sc2.sqrt();
    if mu == 0.0 {
        return 0.0;
    }
    let ld = limb_coefficients(wl, wf);
    let darkening = ld[0]
        + ld[1] * mu
        + ld[2] * mu.powf(2.0)
        + ld[3] * mu.powf(3.0)
        + ld[4] * mu.powf(4.0)
        + ld[5] * mu.powf(5.0);
    let l = solar_centre(tl, tf, wl, wf, elevation.min(PI / 2.0)) * darkening;
    if l.is_finite() {
        l.max(0.0)
    } else {
        0.0
    }
}

/// Gauss–Legendre nodes and weights on [0, 1], 12 points.
const GL12: [(f64, f64); 12] = [
    (0.009219682876640378, 0.023587668193255706),
    (0.0479413718147626, 0.05346966299765953),
    (0.11504866290284765, 0.08003916427167321),
    (0.20634102285669126, 0.10158371336153287),
    (0.31608425050090994, 0.1167462682691773),
    (0.43738329574426554, 0.12457352290670134),
    (0.5626167042557344, 0.12457352290670134),
    (0.6839157494990901, 0.1167462682691773),
    (0.7936589771433087, 0.10158371336153287),
    (0.8849513370971523, 0.08003916427167321),
    (0.9520586281852375, 0.05346966299765953),
    (0.9907803171233596, 0.023587668193255706),
];

/// Azimuths per ring of the disk quadrature, over the visible part of half the disk (the disk
/// is symmetric about the vertical through its centre).
const DISK_AZIMUTHS: usize = 24;

/// A quadrature point of the sun's disk: its weight (cos γ dω, sr), elevation, angle γ from
/// the centre and solar-surface cosine μ.
#[derive(Clone, Copy, Debug)]
struct DiskPoint {
    weight: f64,
    elevation: f64,
    gamma: f64,
    mu: f64,
}

/// Quadrature points over the model's disk for a centre at `elevation` (> 0), each at its own
/// elevation, the part below the horizon left out. With sin γ = s·sin R, the disk's cos γ dω
/// is sin²R·μ dμ dφ in the solar-surface cosine μ = √(1 − s²), in which limb darkening is a
/// quintic: Gauss–Legendre in μ, split where the rings start to meet the horizon (γ = e₀),
/// and midpoints in φ over each ring's visible arc.
fn disk_points(elevation: f64) -> Vec<DiskPoint> {
    let sin_r = MODEL_SUN_RADIUS.sin();
    let (sin_e, cos_e) = elevation.sin_cos();
    // μ where the ring γ = e₀ lies, if the horizon cuts the disk.
    let split = if elevation < MODEL_SUN_RADIUS {
        let s = elevation.sin() / sin_r;
        (1.0 - s * s).max(0.0).sqrt()
    } else {
        0.0
    };
    let spans: &[(f64, f64)] = if split > 0.0 {
        &[(0.0, split), (split, 1.0)]
    } else {
        &[(0.0, 1.0)]
    };
    let mut points = Vec::with_capacity(spans.len() * GL12.len() * DISK_AZIMUTHS);
    for &(a, b) in spans {
        for (x, w) in GL12 {
            let mu = a + (b - a) * x;
            let sin_g = sin_r * (1.0 - mu * mu).max(0.0).sqrt();
            let gamma = sin_g.asin();
            let cos_g = gamma.cos();
            // The ring's visible points: sin e₀ cos γ + cos e₀ sin γ cos φ ≥ 0.
            let phi_max = if sin_g > 0.0 {
                (-(sin_e * cos_g) / (cos_e * sin_g)).clamp(-1.0, 1.0).acos()
            } else {
                PI
            };
            // Both halves of the ring: 2 · φ_max / N per azimuth.
            let weight = sin_r * sin_r * (b - a) * w * mu * 2.0 * phi_max / DISK_AZIMUTHS as f64;
            for j in 0..DISK_AZIMUTHS {
                let phi = (j as f64 + 0.5) / DISK_AZIMUTHS as f64 * phi_max;
                let el = (sin_e * cos_g + cos_e * sin_g * phi.cos())
                    .clamp(-1.0, 1.0)
                    .asin();
                points.push(DiskPoint {
                    weight,
                    elevation: el.max(0.0),
                    gamma,
                    mu,
                });
            }
        }
    }
    points
}

/// The sun's spectral irradiance, W·m⁻²·nm⁻¹ on a plane facing it, at `wavelength` nm, with
/// the disk's centre at `elevation` radians: [`solar_radiance`] integrated over the model's
/// disk, each point at its own elevation (the solar function's air mass is the view ray's),
/// so a low sun's lower limb is dimmer and a setting sun's part below the horizon is dark.
pub fn solar_irradiance(turbidity: f64, elevation: f64, wavelength: f64) -> f64 {
    if elevation.is_nan() || elevation <= 0.0 {
        return 0.0;
    }
    let e: f64 = disk_points(elevation.min(PI / 2.0))
        .iter()
        .map(|p| p.weight * solar_radiance(turbidity, p.elevation, wavelength, p.gamma))
        .sum();
    if e.is_finite() {
        e.max(0.0)
    } else {
        0.0
    }
}

/// The daylight sun's irradiance on a plane facing it, per linear sRGB channel, in the sky's
/// units (CIE-weighted W/m², see the module notes), for `turbidity` (clamped to [1, 10]; NaN
/// reads as 3) and the sun's elevation in radians: the spectral irradiance of
/// [`solar_irradiance`] from 360 to 720 nm against the CIE 1931 2° functions at 1 nm
/// (trapezoids), then XYZ to linear sRGB, the conversion the RGB sky dataset was made with, so
/// the sun and sky keep the model's ratio. Channels a very low, red sun puts outside the sRGB
/// gamut (negative) read as zero; zero at or below the horizon.
///
/// The irradiance is the physical disk's whatever `[sun] radius` says: a soft sun spreads it
/// over the authored disk, a radius of 0 makes it a delta sun of this irradiance.
pub fn daylight_sun(turbidity: f32, elevation: f32) -> Vec3 {
    let turbidity = clean_turbidity(turbidity);
    let elevation = f64::from(elevation);
    if elevation.is_nan() || elevation <= 0.0 {
        return Vec3::ZERO;
    }
    // Per disk point, the eleven bands' radiance and limb darkening, then every wavelength
    // by the same linear blends `solar_radiance` makes: the same value, 22 band evaluations
    // per point instead of 4 per point and wavelength.
    let (turb_low, turb_frac) = turbidity_weights(turbidity);
    let mut xyz = [0.0f64; 3];
    let last = CIE_1931.len() - 1;
    for p in disk_points(elevation.min(PI / 2.0)) {
        let mut band = [0.0f64; 11];
        let mut dark = [0.0f64; 11];
        for (k, (b, d)) in band.iter_mut().zip(dark.iter_mut()).enumerate() {
            *b = (1.0 - turb_frac) * solar_band(turb_low, k, p.elevation)
                + turb_frac * solar_band(turb_low + 1, k, p.elevation);
            let ld = &LIMB_DARKENING[k];
            *d = ld[0]
                + ld[1] * p.mu
                + ld[2] * p.mu.powf(2.0)
                + ld[3] * p.mu.powf(3.0)
                + ld[4] * p.mu.powf(4.0)
                + ld[5] * p.mu.powf(5.0);
        }
        for (i, cmf) in CIE_1931.iter().enumerate() {
            let wavelength = CIE_FIRST + CIE_STEP * i as f64;
            let Some((_, _, wl, wf)) = solar_weights(turbidity, wavelength) else {
                continue;
            };
            let centre = (1.0 - wf) * band[wl] + wf * band[wl + 1];
            let darkening = (1.0 - wf) * dark[wl] + wf * dark[wl + 1];
            let l = (centre * darkening).max(0.0);
            let step = if i == 0 || i == last { 0.5 } else { 1.0 } * CIE_STEP;
            let e = p.weight * l * step;
            for c in 0..3 {
                xyz[c] += e * cmf[c];
            }
        }
    }
    let mut rgb = Vec3::ZERO;
    for c in 0..3 {
        let m = XYZ_TO_RGB[c];
        rgb[c] = (m[0] * xyz[0] + m[1] * xyz[1] + m[2] * xyz[2]) as f32;
    }
    if rgb.is_finite() {
        rgb.max(Vec3::ZERO)
    } else {
        Vec3::ZERO
    }
}

/// How an authored sun warms and dims as it moves from `reference_elevation` (the elevation it
/// is authored at, where it is exactly as authored) to `elevation`, both in radians: per channel,
/// the daylight sun's irradiance at turbidity [`AUTHORED_SUN_TURBIDITY`] at `elevation` over
/// that at `reference_elevation`. Zero when the sun is down; `None` when the reference sun
/// gives nothing in some channel (down, or so low that its blue is out of gamut), where no
/// ratio exists and the caller must choose.
pub fn authored_sun_scale(elevation: f32, reference_elevation: f32) -> Option<Vec3> {
    let reference = daylight_sun(AUTHORED_SUN_TURBIDITY, reference_elevation);
    if reference.min_element() <= 0.0 {
        return None;
    }
    let s = daylight_sun(AUTHORED_SUN_TURBIDITY, elevation) / reference;
    s.is_finite().then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses a reference CSV (header line, then numbers) into rows.
    fn rows(text: &str) -> Vec<Vec<f64>> {
        text.lines()
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                l.split(',')
                    .map(|v| v.trim().parse::<f64>().unwrap())
                    .collect()
            })
            .collect()
    }

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs().max(1e-30)
    }

    /// +Y-up unit vector at elevation `el` and azimuth `az` (radians), as the C generator
    /// builds them.
    fn dir(el: f64, az: f64) -> Vec3 {
        Vec3::new(
            (el.cos() * az.cos()) as f32,
            el.sin() as f32,
            (el.cos() * az.sin()) as f32,
        )
    }

    #[test]
    fn sky_matches_reference_code() {
        let data = rows(include_str!("../../tests/data/hosek/radiance.csv"));
        assert_eq!(data.len(), 6 * 2 * 6 * 12);
        let (mut worst_tg, mut worst_vec) = (0.0f64, 0.0f64);
        for r in &data {
            let sky = HosekSky::new(
                r[0] as f32,
                Vec3::splat(r[1] as f32),
                r[2].to_radians() as f32,
            );
            let l = sky.radiance_theta_gamma(r[5], r[6]);
            // The vector form, from f32 directions: the single-precision sun elevation and
            // directions are the only difference from the reference's inputs.
            let d = dir(r[3].to_radians(), r[4].to_radians());
            let s = dir(r[2].to_radians(), 0.0);
            let lv = sky.radiance(d, s);
            for c in 0..3 {
                worst_tg = worst_tg.max(rel(l[c], r[7 + c]));
                worst_vec = worst_vec.max(rel(f64::from(lv[c]), r[7 + c]));
            }
        }
        assert!(
            worst_tg <= 1e-6,
            "theta/gamma worst relative error {worst_tg:e}"
        );
        assert!(
            worst_vec <= 1e-6,
            "vector worst relative error {worst_vec:e}"
        );
    }

    #[test]
    fn solar_radiance_matches_reference_code() {
        let data = rows(include_str!("../../tests/data/hosek/solar.csv"));
        assert_eq!(data.len(), 6 * 9 * 8 * 3);
        let mut worst = 0.0f64;
        for r in &data {
            let l = solar_radiance(r[0], r[1].to_radians(), r[2], r[3]);
            if r[4] == 0.0 {
                assert_eq!(l, 0.0, "row {r:?}");
            } else {
                worst = worst.max(rel(l, r[4]));
            }
        }
        assert!(worst <= 1e-12, "worst relative error {worst:e}");
        // Outside the disk, outside the tables' wavelengths and below the horizon: nothing.
        assert_eq!(
            solar_radiance(3.0, 0.5, 550.0, MODEL_SUN_RADIUS * 1.01),
            0.0
        );
        assert_eq!(solar_radiance(3.0, 0.5, 300.0, 0.0), 0.0);
        assert_eq!(solar_radiance(3.0, 0.5, 750.0, 0.0), 0.0);
        assert_eq!(solar_radiance(3.0, -0.1, 550.0, 0.0), 0.0);
    }

    /// The disk quadrature against a plain polar grid in γ and φ over the whole disk, each
    /// point at its own elevation; the last case is a sun fading out (turbidity 10 at 1.15°,
    /// where the tables reach zero across the disk, at 10⁻⁵ of the noon sun's irradiance).
    #[test]
    fn disk_integral_matches_polar_grid() {
        let r = MODEL_SUN_RADIUS;
        for &(t, el, wl) in &[
            (2.0, 0.1f64, 400.0),
            (3.0, 0.6, 550.0),
            (7.3, 1.2, 613.0),
            (10.0, 0.02, 700.0),
        ] {
            let (ng, nphi) = (2000, 64);
            let mut e = 0.0;
            for i in 0..ng {
                let g = (i as f64 + 0.5) / ng as f64 * r;
                for j in 0..nphi {
                    let phi = (j as f64 + 0.5) / nphi as f64 * 2.0 * PI;
                    let pel = (el.sin() * g.cos() + el.cos() * g.sin() * phi.cos()).asin();
                    e += solar_radiance(t, pel, wl, g) * g.sin() * g.cos();
                }
            }
            e *= (r / ng as f64) * (2.0 * PI / nphi as f64);
            let quad = solar_irradiance(t, el, wl);
            assert!(rel(quad, e) < 2e-5, "{t} {el} {wl}: {quad} vs {e}");
        }
        // A sun partly set (centre 0.057° up, radius 0.255°: 36% of the disk below the
        // horizon), against the C code's radiance on an 8000 × 4096 polar grid over the disk,
        // points below the horizon left out (converged to 1e-6 from 4000 × 1024).
        let half = solar_irradiance(3.0, 0.001, 650.0);
        assert!(rel(half, 0.021_783_773_55) < 5e-4, "{half}");
    }

    /// The RGB irradiance against the C code's solar radiance integrated over the disk with
    /// each point's own elevation, at 1 nm against the 1 nm CIE table (tests/data/hosek).
    #[test]
    fn daylight_sun_matches_reference_integration() {
        let data = rows(include_str!("../../tests/data/hosek/sun_rgb.csv"));
        assert_eq!(data.len(), 6 * 9);
        let mut worst = 0.0f64;
        for r in &data {
            let e = daylight_sun(r[0] as f32, r[1].to_radians() as f32);
            for c in 0..3 {
                if r[2 + c] <= 0.0 {
                    assert_eq!(e[c], 0.0, "row {r:?}");
                } else {
                    worst = worst.max(rel(f64::from(e[c]), r[2 + c]));
                }
            }
        }
        assert!(worst <= 1e-4, "worst relative error {worst:e}");
    }

    #[test]
    fn daylight_is_plausible() {
        // A high sun at turbidity 3: 683 × its luminance near 10⁵ lx, the sky's zenith near
        // 683 × 5–10 cd/m², and the sun's colour a little warmer than white.
        let sun = daylight_sun(3.0, 60f32.to_radians());
        let y = crate::lights::luminance(sun);
        assert!((100.0..160.0).contains(&y), "sun {sun}");
        assert!(sun.x > sun.y && sun.y > sun.z, "sun {sun}");
        let up = Vec3::new(0.0, 60f32.to_radians().sin(), 60f32.to_radians().cos());
        let sky = HosekSky::new(3.0, Vec3::splat(0.2), 60f32.to_radians());
        let zenith = sky.radiance(Vec3::Y, up);
        let zy = crate::lights::luminance(zenith);
        assert!((2.0..20.0).contains(&zy), "zenith {zenith}");
        // The overhead sun's spectral irradiance over the tables' 320–720 nm, about 0.36 kW/m²:
        // the visible share of a clear day's ~0.9 kW/m² direct normal irradiance.
        let band: f64 = (320..=720)
            .map(|l| solar_irradiance(3.0, PI / 2.0, f64::from(l)))
            .sum();
        assert!((250.0..500.0).contains(&band), "{band} W/m²");
        // A clear sky (turbidity 2) is bluer than a hazy one (10).
        let clear = HosekSky::new(2.0, Vec3::splat(0.2), 45f32.to_radians())
            .radiance(Vec3::Y, dir(0.785, 0.0));
        let hazy = HosekSky::new(10.0, Vec3::splat(0.2), 45f32.to_radians())
            .radiance(Vec3::Y, dir(0.785, 0.0));
        assert!(
            clear.z / clear.x > 1.2 * hazy.z / hazy.x,
            "clear {clear} hazy {hazy}"
        );
        // The sun warms and dims as it sets.
        let low = daylight_sun(3.0, 5f32.to_radians());
        assert!(
            low.x < sun.x && low.z / low.x < 0.5 * sun.z / sun.x,
            "low {low} high {sun}"
        );
        // The sky's irradiance on the ground is a fraction of the sun's at noon.
        let mut sky_e = 0.0;
        let n = 64;
        for i in 0..n {
            for j in 0..2 * n {
                let ct = (i as f32 + 0.5) / n as f32;
                let phi = (j as f32 + 0.5) / (2 * n) as f32 * std::f32::consts::TAU;
                let st = (1.0 - ct * ct).sqrt();
                let d = Vec3::new(st * phi.cos(), ct, st * phi.sin());
                sky_e += crate::lights::luminance(sky.radiance(d, up)) * ct;
            }
        }
        sky_e *= std::f32::consts::TAU / (n * 2 * n) as f32;
        let sun_e = y * 60f32.to_radians().sin();
        assert!(
            sky_e > 0.05 * sun_e && sky_e < 0.5 * sun_e,
            "sky {sky_e} sun {sun_e}"
        );
    }

    #[test]
    fn black_below_the_horizon_and_without_sun() {
        let sky = HosekSky::new(3.0, Vec3::splat(0.2), 0.3);
        let sun = dir(0.3, 0.0);
        assert_eq!(sky.radiance(Vec3::NEG_Y, sun), Vec3::ZERO);
        assert_eq!(sky.radiance(dir(-0.01, 1.0), sun), Vec3::ZERO);
        assert_eq!(sky.radiance(Vec3::new(1.0, 0.0, 0.0), sun), Vec3::ZERO);
        assert!(sky.radiance(dir(0.01, 1.0), sun).min_element() > 0.0);
        let down = HosekSky::new(3.0, Vec3::splat(0.2), -0.1);
        assert!(!down.is_lit());
        assert_eq!(down.radiance(Vec3::Y, dir(-0.1, 0.0)), Vec3::ZERO);
        assert_eq!(daylight_sun(3.0, -0.1), Vec3::ZERO);
        assert_eq!(daylight_sun(3.0, 0.0), Vec3::ZERO);
        assert_eq!(sky.radiance_theta_gamma(1.7, 1.0), [0.0; 3]);
    }

    #[test]
    fn odd_inputs_stay_finite() {
        let sun = dir(0.5, 0.0);
        for &(t, a, el) in &[
            (f32::NAN, 0.2, 0.5),
            (0.0, -1.0, 0.5),
            (50.0, 3.0, 0.5),
            (3.0, f32::NAN, 0.5),
            (3.0, 0.2, f32::NAN),
            (3.0, 0.2, 9.0),
            (3.0, 0.2, f32::INFINITY),
        ] {
            let sky = HosekSky::new(t, Vec3::splat(a), el);
            for d in [
                Vec3::Y,
                dir(0.001, 0.0),
                sun,
                Vec3::ZERO,
                Vec3::splat(f32::NAN),
            ] {
                let l = sky.radiance(d, sun);
                assert!(
                    l.is_finite() && l.min_element() >= 0.0,
                    "{t} {a} {el} {d}: {l}"
                );
            }
            let e = daylight_sun(t, el);
            assert!(e.is_finite() && e.min_element() >= 0.0);
        }
        // Clamping: turbidity 50 is 10, albedo 3 is 1.
        let a = HosekSky::new(50.0, Vec3::splat(3.0), 0.5).radiance(Vec3::Y, sun);
        let b = HosekSky::new(10.0, Vec3::ONE, 0.5).radiance(Vec3::Y, sun);
        assert_eq!(a, b);
    }

    #[test]
    fn albedo_is_per_channel() {
        let sun = dir(0.4, 0.0);
        let d = dir(0.2, 2.0);
        let mixed = HosekSky::new(4.0, Vec3::new(0.1, 0.5, 0.9), 0.4).radiance(d, sun);
        for (c, a) in [0.1, 0.5, 0.9].into_iter().enumerate() {
            let gray = HosekSky::new(4.0, Vec3::splat(a), 0.4).radiance(d, sun);
            assert_eq!(mixed[c], gray[c]);
        }
    }

    #[test]
    fn authored_sun_scale_is_one_at_reference_and_warms_lower() {
        let r = 50f32.to_radians();
        let same = authored_sun_scale(r, r).unwrap();
        assert!((same - Vec3::ONE).abs().max_element() < 1e-6, "{same}");
        let low = authored_sun_scale(8f32.to_radians(), r).unwrap();
        assert!(low.x < 1.0 && low.z < low.y && low.y < low.x, "{low}");
        assert_eq!(authored_sun_scale(-0.1, r).unwrap(), Vec3::ZERO);
        assert!(authored_sun_scale(r, -0.1).is_none());
    }
}
