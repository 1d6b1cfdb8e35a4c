//! `[haze]` as the integrator draws it: the box, its densities, phase function, albedo and
//! ambient light (docs/haze.md). A haze whose densities are all 0 is clear: the world then holds
//! no medium and every ray is traced as without `[haze]`.

use glam::Vec3;

use super::{rgb, Capability};
use crate::media::density::FLOOR_HEIGHT_SHARE;
use crate::media::{Density, Medium, Phase};
use crate::scene::{Location, Scene};

/// A number from the scene, 0 where it is not finite or below 0.
fn non_negative(x: f32) -> f32 {
    if x.is_finite() {
        x.max(0.0)
    } else {
        0.0
    }
}

/// The medium `[haze]` describes, `None` without `[haze]` or where it is clear; a `gold`
/// channel above 1 (which would make light in the haze grow) is drawn as 1 and noted.
pub(super) fn medium(scene: &Scene, notes: &mut Vec<Capability>) -> Option<Medium> {
    let h = scene.haze.as_ref()?;
    let lo = Vec3::from(h.lo);
    let hi = Vec3::from(h.hi);
    if !(lo.is_finite() && hi.is_finite() && lo.cmplt(hi).all()) {
        return None;
    }
    let density = Density {
        fog: non_negative(h.fog),
        mist: non_negative(h.mist),
        smoke: non_negative(h.smoke),
        floor: non_negative(h.floor),
        floor_y: lo.y,
        floor_height: (hi.y - lo.y) * FLOOR_HEIGHT_SHARE,
        seed: h.seed,
    };
    let majorant = density.majorant();
    if !(majorant > 0.0 && majorant.is_finite()) {
        return None;
    }
    let gold = rgb(h.gold);
    if gold.max_element() > 1.0 {
        let at = scene
            .present
            .iter()
            .find(|p| p.path == "haze.gold")
            .map(|p| p.at.clone())
            .unwrap_or(Location {
                file: scene.file.clone(),
                line: 1,
                column: 1,
            });
        let used = gold.min(Vec3::ONE);
        notes.push(Capability {
            what: "haze.gold clamped".into(),
            message: format!(
                "haze.gold = [{}, {}, {}] is drawn as [{}, {}, {}]: the haze's albedo is at most 1",
                gold.x, gold.y, gold.z, used.x, used.y, used.z
            ),
            at,
            count: 1,
        });
    }
    Some(Medium {
        lo,
        hi,
        density,
        phase: Phase::new(h.phase, non_negative(h.back)),
        albedo: gold.min(Vec3::ONE),
        ambient: rgb(h.ambient),
    })
}
