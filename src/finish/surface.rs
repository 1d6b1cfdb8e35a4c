//! The passes that read the plate's surfaces beside its picture: the camera-space shading
//! normal ([`Surfaces::normal`](super::Surfaces)) and the depth. Cavity shading (`cavity`,
//! `cavity_distance`), the cel specular (`cel_spec`, `cel_spec_roughness`,
//! `cel_spec_threshold`), the rim light (`rim`, `rim_color`, `rim_width`) and the outline's
//! crease test (`crease_angle`, in `ink.rs`) all read the normal; without one (a chain applied
//! by a renderer that has none) they draw nothing, and the manifest says what they need.
//!
//! The camera space is the one a view matrix makes: x to the image's right, y up, z towards
//! the camera (the view direction is −z). The view vector is taken as +z at every pixel (the
//! orthographic approximation screen-space toon shaders make), so a pass needs no projection.

use serde_json::{json, Value};

use super::ops::srgb_encode;
use super::{Image, DEPTH_STEP};

/// World-space normals (`world`, each pixel's mean shading normal, any length) in the camera
/// space of a camera whose unit basis is `right`, `up` and `forward` (the view direction),
/// world space: (n · right, n · up, −n · forward). A zero normal (the sky) stays zero.
pub fn camera_normals(
    world: &[[f32; 3]],
    right: [f32; 3],
    up: [f32; 3],
    forward: [f32; 3],
) -> Vec<[f32; 3]> {
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    world
        .iter()
        .map(|&n| {
            let c = [dot(n, right), dot(n, up), -dot(n, forward)];
            if c.iter().all(|v| v.is_finite()) {
                c
            } else {
                [0.0; 3]
            }
        })
        .collect()
}

/// A direction in world space (`toward`, towards a light) in the camera space of the basis
/// `right`, `up`, `forward`, unit length; `None` when it is not a direction.
pub fn camera_direction(
    toward: [f32; 3],
    right: [f32; 3],
    up: [f32; 3],
    forward: [f32; 3],
) -> Option<[f32; 3]> {
    unit(camera_normals(&[toward], right, up, forward)[0])
}

/// `v` at unit length, or `None` when it is (nearly) zero or not finite.
pub(super) fn unit(v: [f32; 3]) -> Option<[f32; 3]> {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (l.is_finite() && l > 1e-3).then(|| v.map(|c| c / l))
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    if e1 <= e0 {
        return if x >= e0 { 1.0 } else { 0.0 };
    }
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Finite and at least `lo`, else `fallback`.
fn finite_or(v: f32, fallback: f32) -> f32 {
    if v.is_finite() {
        v
    } else {
        fallback
    }
}

// ---------------------------------------------------------------------------------------------
// Cavity

/// Cavity shading, as Blender's Workbench draws its screen-space curvature: the camera-space
/// normal's divergence across ±`distance` pixels, (n→.x − n←.x) + (n↑.y − n↓.y), is positive
/// on a ridge and negative in a valley; the colour is scaled by 1 + `strength` · s(divergence),
/// s a soft clamp (slope 1 at 0, ±1 from ±2 on), at least 0. A neighbour across a depth step
/// (another surface: a silhouette is no valley) or on the sky counts as the pixel itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cavity {
    /// How much a ridge brightens and a valley darkens (1: a right-angle valley at 1 px
    /// darkens to ¼).
    pub strength: f32,
    /// The neighbours' distance, pixels (rounded; 1 to 64).
    pub distance: f32,
}

impl Default for Cavity {
    fn default() -> Self {
        Cavity {
            strength: 1.0,
            distance: 1.0,
        }
    }
}

impl Cavity {
    pub(super) fn to_json(self) -> Value {
        json!({
            "strength": self.strength, "distance": self.distance,
            "needs": "the camera-space normal; the depth",
            "curvature": "(n_right.x - n_left.x) + (n_up.y - n_down.y) at +-distance px, normals unit; a neighbour across a depth step (> 0.05 x distance of the nearer) or on the sky reads as the pixel",
            "shade": "colour x max(0, 1 + strength * s(curvature)), s(x) = sign(x) (|x| - x^2/4) for |x| < 2, else sign(x)",
        })
    }

    /// The soft clamp of a divergence: slope 1 at 0, ±1 from ±2 on.
    pub fn soft(x: f32) -> f32 {
        let a = x.abs().min(2.0);
        (a - a * a / 4.0).copysign(x)
    }
}

/// Draws the cavity shading; without a normal, nothing.
pub(super) fn cavity(
    img: &mut Image,
    c: &Cavity,
    depth: Option<&[f32]>,
    normal: Option<&[[f32; 3]]>,
) {
    let Some(normal) = normal else { return };
    let (w, h) = (img.width, img.height);
    let d = finite_or(c.distance, 1.0).round().clamp(1.0, 64.0) as isize;
    let strength = finite_or(c.strength, 0.0);
    let step = DEPTH_STEP * d as f32;
    img.map(|i, col| {
        let Some(nc) = unit(normal[i]) else {
            return col;
        };
        let (x, y) = ((i % w) as isize, (i / w) as isize);
        // The neighbour's unit normal, or the pixel's own across a depth step or off the image.
        let at = |dx: isize, dy: isize| -> [f32; 3] {
            let (xx, yy) = (x + dx, y + dy);
            if xx < 0 || yy < 0 || xx >= w as isize || yy >= h as isize {
                return nc;
            }
            let j = yy as usize * w + xx as usize;
            if let Some(z) = depth {
                let (a, b) = (z[i], z[j]);
                if (a - b).abs() > step * a.min(b).abs().max(1e-6) {
                    return nc;
                }
            }
            unit(normal[j]).unwrap_or(nc)
        };
        // Image rows run down; the camera's y runs up.
        let div = (at(d, 0)[0] - at(-d, 0)[0]) + (at(0, -d)[1] - at(0, d)[1]);
        let f = (1.0 + strength * Cavity::soft(div)).max(0.0);
        col.map(|v| v * f)
    });
}

// ---------------------------------------------------------------------------------------------
// Cel specular

/// The key light the cel specular is lit by without the scene's sun: camera space, towards
/// the light, unit: above and to the left of the camera (30° up, 35° left of the view axis),
/// the painter's and the studio's key.
pub const KEY_LIGHT: [f32; 3] = [-0.5, 0.5, std::f32::consts::FRAC_1_SQRT_2];

/// Where the cel specular's light comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LightFrom {
    /// [`KEY_LIGHT`], fixed to the camera.
    Key,
    /// The scene's sun (the bake tells the chain its direction).
    Sun,
}

/// The cel specular: a Blinn–Phong highlight (n · h)^e, h halfway between the light and the
/// view (+z), e = 2/r⁴ − 2 for `roughness` r (the Blinn–Phong exponent of a Beckmann lobe of
/// α = r²), thresholded at `threshold` by a smoothstep as wide as the cel's softness, and
/// added as white light × `strength`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CelSpec {
    /// The highlight's brightness added (linear, or code units after the encode pass).
    pub strength: f32,
    /// The lobe's roughness, 0 to 1 (read within [0.02, 1]).
    pub roughness: f32,
    /// The lobe's value above which the highlight is drawn, 0 to 1.
    pub threshold: f32,
    /// Towards the light, camera space, unit.
    pub light: [f32; 3],
    /// Where `light` came from.
    pub from: LightFrom,
}

impl Default for CelSpec {
    fn default() -> Self {
        CelSpec {
            strength: 1.0,
            roughness: 0.3,
            threshold: 0.5,
            light: KEY_LIGHT,
            from: LightFrom::Key,
        }
    }
}

impl CelSpec {
    pub(super) fn to_json(self) -> Value {
        json!({
            "strength": self.strength, "roughness": self.roughness, "threshold": self.threshold,
            "light": self.light,
            "light_space": "camera (x right, y up, z towards the camera), towards the light",
            "light_from": match self.from { LightFrom::Key => "the fixed key light", LightFrom::Sun => "the scene's sun" },
            "lobe": "Blinn-Phong (n.h)^(2/r^4 - 2), h = normalize(light + (0, 0, 1)); smoothstep over the cel's softness about threshold; added as white x strength",
            "needs": "the camera-space normal",
        })
    }

    /// The highlight's mask (0 to 1) at unit camera-space normal `n`, with the steps' width
    /// `softness`.
    pub fn mask(&self, n: [f32; 3], softness: f32) -> f32 {
        let Some(h) = unit([self.light[0], self.light[1], self.light[2] + 1.0]) else {
            return 0.0;
        };
        let r = finite_or(self.roughness, 0.3).clamp(0.02, 1.0);
        let e = 2.0 / r.powi(4) - 2.0;
        let nh = (n[0] * h[0] + n[1] * h[1] + n[2] * h[2]).max(0.0);
        // The lobe lit only where the light reaches the surface.
        let nl = n[0] * self.light[0] + n[1] * self.light[1] + n[2] * self.light[2];
        if nl <= 0.0 || nh <= 0.0 {
            return 0.0;
        }
        let lobe = if e > 0.0 { nh.powf(e) } else { 1.0 };
        let t = finite_or(self.threshold, 0.5);
        let s = finite_or(softness, 0.0).max(0.0);
        smoothstep(t - 0.5 * s, t + 0.5 * s, lobe)
    }
}

/// The cel highlight added to each pixel of the cel's output (`img` after the bands), on the
/// surfaces `normal` gives; the sky has none.
pub(super) fn cel_spec(img: &mut Image, s: &CelSpec, softness: f32, normal: &[[f32; 3]]) {
    let add = finite_or(s.strength, 0.0);
    img.map(|i, c| match unit(normal[i]) {
        Some(n) => {
            let m = s.mask(n, softness) * add;
            c.map(|v| v + m)
        }
        None => c,
    });
}

// ---------------------------------------------------------------------------------------------
// Rim light

/// The rim light: light of `color` × `strength` added where the surface turns away from the
/// view, t = 1 − n · v (v = +z) above 1 − `width`, ramped by smoothstep(1 − width,
/// 1 − width/2, t): full over the outer half of the band, as toon shaders' fresnel rims.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rim {
    /// The light's strength (0 none).
    pub strength: f32,
    /// The light's colour, linear RGB.
    pub color: [f32; 3],
    /// The band's width in 1 − n · v, 0 to 1 (0.3: the outer ~45° of a sphere's slope).
    pub width: f32,
}

impl Default for Rim {
    fn default() -> Self {
        Rim {
            strength: 1.0,
            color: [1.0; 3],
            width: 0.3,
        }
    }
}

impl Rim {
    pub(super) fn to_json(self) -> Value {
        json!({
            "strength": self.strength, "color": self.color, "width": self.width,
            "mask": "t = 1 - n.z (camera space, unit n); smoothstep(1 - width, 1 - width/2, t)",
            "adds": "color x strength x mask",
            "needs": "the camera-space normal",
        })
    }

    /// The rim's mask (0 to 1) at unit camera-space normal `n`.
    pub fn mask(&self, n: [f32; 3]) -> f32 {
        let w = finite_or(self.width, 0.3).clamp(0.0, 1.0);
        if w <= 0.0 {
            return 0.0;
        }
        smoothstep(1.0 - w, 1.0 - 0.5 * w, 1.0 - n[2])
    }
}

/// Draws the rim light; without a normal, nothing.
pub(super) fn rim(img: &mut Image, r: &Rim, normal: Option<&[[f32; 3]]>, encoded: bool) {
    let Some(normal) = normal else { return };
    let s = finite_or(r.strength, 0.0);
    let color = if encoded {
        r.color.map(srgb_encode)
    } else {
        r.color
    };
    img.map(|i, c| match unit(normal[i]) {
        Some(n) => {
            let m = r.mask(n) * s;
            [0, 1, 2].map(|k| c[k] + color[k] * m)
        }
        None => c,
    });
}

/// Whether two pixels' normals meet at more than the crease whose cosine is `cos_max`
/// (either on the sky: no crease).
pub(super) fn creased(a: [f32; 3], b: [f32; 3], cos_max: f32) -> bool {
    match (unit(a), unit(b)) {
        (Some(a), Some(b)) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2] < cos_max,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn img(w: usize, h: usize) -> Image {
        Image {
            width: w,
            height: h,
            px: vec![[0.5; 3]; w * h],
        }
    }

    #[test]
    fn camera_normals_turn_the_basis() {
        // A camera looking down −z with y up: the world is the camera space.
        let n = camera_normals(
            &[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0; 3]],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, -1.0],
        );
        assert_eq!(n, [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0; 3]]);
        // Looking along +x, up +z: a normal facing −x faces the camera.
        let n = camera_normals(
            &[[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0],
        );
        assert_eq!(n, [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]);
    }

    #[test]
    fn cavity_darkens_valleys_brightens_ridges_and_leaves_flats() {
        let (w, h) = (9, 3);
        // A valley down column 4: normals lean towards it from both sides.
        let lean = |x: usize, sign: f32| {
            let t = (x as f32 - 4.0).signum() * sign * 0.5;
            unit([t, 0.0, 1.0]).unwrap()
        };
        for (sign, darker) in [(-1.0f32, true), (1.0, false)] {
            let normal: Vec<[f32; 3]> = (0..w * h).map(|i| lean(i % w, sign)).collect();
            let mut im = img(w, h);
            cavity(&mut im, &Cavity::default(), None, Some(&normal));
            let v = im.px[w + 4][0];
            assert!(if darker { v < 0.4 } else { v > 0.6 }, "{sign}: {v}");
            // Far from the fold, the surface is flat: untouched.
            assert_eq!(im.px[w][0], 0.5);
            assert_eq!(im.px[w + 8][0], 0.5);
        }
        // The same fold across a depth step is a silhouette, not a valley.
        let normal: Vec<[f32; 3]> = (0..w * h).map(|i| lean(i % w, -1.0)).collect();
        let depth: Vec<f32> = (0..w * h)
            .map(|i| if i % w < 4 { 1.0 } else { 2.0 })
            .collect();
        let mut im = img(w, h);
        cavity(&mut im, &Cavity::default(), Some(&depth), Some(&normal));
        assert!(im.px[w + 4][0] >= 0.45, "{}", im.px[w + 4][0]);
        // Without a normal, nothing.
        let mut im = img(w, h);
        cavity(&mut im, &Cavity::default(), Some(&depth), None);
        assert!(im.px.iter().all(|p| *p == [0.5; 3]));
        assert_eq!(Cavity::soft(0.0), 0.0);
        assert_eq!(Cavity::soft(5.0), 1.0);
        assert_eq!(Cavity::soft(-2.0), -1.0);
    }

    #[test]
    fn the_cel_highlight_sits_at_the_half_vector() {
        let s = CelSpec::default();
        let h = unit([KEY_LIGHT[0], KEY_LIGHT[1], KEY_LIGHT[2] + 1.0]).unwrap();
        assert_eq!(s.mask(h, 0.0), 1.0);
        // Facing away from the light: none; facing the viewer: outside a 0.3-rough lobe.
        assert_eq!(s.mask([0.5, -0.5, -0.7], 0.0), 0.0);
        assert_eq!(s.mask([0.0, 0.0, 1.0], 0.0), 0.0);
        // Rougher lobes are wider.
        let rough = CelSpec {
            roughness: 0.8,
            ..s
        };
        assert_eq!(rough.mask([0.0, 0.0, 1.0], 0.0), 1.0);
    }

    #[test]
    fn the_rim_lights_the_silhouette_only() {
        let r = Rim::default();
        assert_eq!(r.mask([0.0, 0.0, 1.0]), 0.0);
        assert_eq!(r.mask([1.0, 0.0, 0.0]), 1.0);
        let mid = r.mask(unit([1.0, 0.0, 0.3]).unwrap());
        assert!(mid > 0.0 && mid < 1.0, "{mid}");
        assert!(creased([1.0, 0.0, 0.0], [0.0, 0.0, 1.0], 0.5));
        assert!(!creased([0.0, 0.0, 1.0], [0.1, 0.0, 1.0], 0.5));
        assert!(!creased([0.0; 3], [1.0, 0.0, 0.0], 0.5));
    }
}
