//! The sun and the analytic sky as this bake draws them (docs/sun.md, docs/sky.md).

use super::*;

use glam::Vec3;

use crate::lights::hosek::{self, HosekSky};
use crate::lights::{self, skymaps};
use crate::scene::{self, SkyKind, SunModel};

/// The turbidity the daylight sun is computed at: the analytic sky's (or the first analytic
/// mix layer's), so sun and sky agree; else the authored sun's [`hosek::AUTHORED_SUN_TURBIDITY`].
pub(super) fn daylight_turbidity(sky: Option<&scene::Sky>) -> f32 {
    match sky {
        Some(s) if s.kind == SkyKind::Analytic => s.turbidity,
        Some(s) => s
            .layers
            .iter()
            .find(|l| l.kind == SkyKind::Analytic)
            .map_or(hosek::AUTHORED_SUN_TURBIDITY, |l| l.turbidity),
        None => hosek::AUTHORED_SUN_TURBIDITY,
    }
}

/// The `[sun]` table as this bake draws it (docs/sun.md): a daylight sun from its position
/// and the Hošek–Wilkie solar radiance; an authored sun as authored at `reference_hour`, and
/// away from it turned about the celestial pole, dimmed and warmed as the daylight sun is
/// between its two elevations (kept as authored where the authored elevation gives no ratio,
/// dark below the horizon).
pub(super) fn resolve_sun(sun: &scene::Sun, turbidity: f32) -> ResolvedSun {
    let radius = if sun.radius.is_finite() {
        sun.radius.clamp(0.0, 10.0)
    } else {
        0.0
    };
    let cos_max = radius.to_radians().cos();
    match sun.model {
        SunModel::Daylight => {
            let toward = lights::sun::daylight_toward(sun.day, sun.hour, sun.latitude, sun.heading);
            let elevation = lights::sun::elevation_of(toward);
            ResolvedSun {
                toward,
                irradiance: hosek::daylight_sun(turbidity, elevation),
                cos_max,
                daylight: true,
            }
        }
        SunModel::Authored => {
            let authored = Vec3::from(sun.toward.unwrap_or([0.0, 1.0, 0.0])).normalize_or(Vec3::Y);
            let e = rgb(sun.color) * sun.irradiance.unwrap_or(0.0).max(0.0);
            let e = if e.is_finite() { e } else { Vec3::ZERO };
            let toward = lights::sun::authored_toward(
                authored,
                sun.reference_hour,
                sun.hour,
                sun.latitude,
                sun.heading,
            )
            .normalize_or(authored);
            let irradiance = if toward == authored {
                e
            } else {
                let (el, el0) = (
                    lights::sun::elevation_of(toward),
                    lights::sun::elevation_of(authored),
                );
                match hosek::authored_sun_scale(el, el0) {
                    Some(scale) => e * scale,
                    None if el > 0.0 => e,
                    None => Vec3::ZERO,
                }
            };
            ResolvedSun {
                toward,
                irradiance,
                cos_max,
                daylight: false,
            }
        }
    }
}

/// The analytic sky's radiance function (Hošek–Wilkie, docs/sky.md): it follows the resolved
/// sun; black without a sun or with the sun at or below the horizon (the model is fitted for
/// elevations from 0 to 90°), and below the horizon; `ambient` scales it under an authored sun.
pub(super) fn analytic_sky(
    turbidity: f32,
    ground_albedo: [f32; 3],
    ambient: f32,
    sun: Option<&ResolvedSun>,
) -> skymaps::RadianceFn<'static> {
    let Some(sun) = sun.copied() else {
        return Box::new(|_| Vec3::ZERO);
    };
    let elevation = lights::sun::elevation_of(sun.toward);
    if !crate::materials::positive(elevation) {
        return Box::new(|_| Vec3::ZERO);
    }
    let level = if sun.daylight || !ambient.is_finite() {
        1.0
    } else {
        ambient.max(0.0)
    };
    let model = HosekSky::new(turbidity, Vec3::from(ground_albedo), elevation);
    Box::new(move |d| model.radiance(d, sun.toward) * level)
}
