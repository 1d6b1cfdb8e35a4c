//! The camera: `[camera]` turned into rays, and the view and projection matrices the manifest
//! records for the live renderer.

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::geometry::Ray;
// The lens and the diffuse lobe share one disk warp.
use crate::sampling::warp::concentric_disk;
use crate::scene::{self, Projection};

/// A camera ready to make rays for an image of `width` × `height` pixels.
#[derive(Clone, Debug)]
pub struct Camera {
    /// Eye position, world units.
    pub origin: Vec3,
    /// Unit view direction (towards `look_at`).
    pub forward: Vec3,
    /// Unit right vector of the image.
    pub right: Vec3,
    /// Unit up vector of the image (orthogonal to `forward`).
    pub up: Vec3,
    /// Perspective or orthographic.
    pub projection: Projection,
    /// Half the view's height: `tan(fov/2)` for perspective, scene units for orthographic.
    pub half_height: f32,
    /// Width over height.
    pub aspect: f32,
    /// Lens shift in halves of the view, right and up.
    pub shift: Vec2,
    /// Thin-lens radius, scene units; 0 is a pinhole.
    pub lens_radius: f32,
    /// Distance along `forward` to the plane in focus, scene units.
    pub focus: f32,
    /// Near plane, scene units.
    pub near: f32,
    /// Far plane, scene units.
    pub far: f32,
    /// Image size, pixels.
    pub size: [u32; 2],
    /// Vertical field of view, degrees (perspective).
    pub fov_deg: f32,
}

impl Camera {
    /// The camera of a scene's `[camera]` (its defaults when absent) for an image of `size`.
    pub fn new(c: &scene::Camera, size: [u32; 2]) -> Camera {
        let origin = Vec3::from(c.at);
        let forward = (Vec3::from(c.look_at) - origin).normalize_or(Vec3::NEG_Z);
        let right = forward.cross(Vec3::from(c.up)).normalize_or(Vec3::X);
        let up = right.cross(forward);
        let aspect = size[0] as f32 / size[1].max(1) as f32;
        let (half_height, fov_deg) = match c.projection {
            Projection::Perspective => {
                let fov = match c.focal {
                    // The reader refuses fov with focal, so focal here means it was given.
                    Some(f) => 2.0 * (c.sensor / (2.0 * f)).atan().to_degrees(),
                    None => c.fov,
                };
                ((fov.to_radians() * 0.5).tan(), fov)
            }
            Projection::Orthographic => (0.5 * c.height.unwrap_or(1.0), 0.0),
        };
        let focus_default = (Vec3::from(c.look_at) - origin).length();
        let focus = c.focus.unwrap_or(focus_default).max(1e-4);
        // A thin lens of the camera's focal length (from the sensor when fov was given) at
        // f-number N has an aperture diameter of focal / N. Focal length and sensor are in mm and
        // scene units are metres by the format's convention.
        let lens_radius = match (c.projection, c.fstop) {
            (Projection::Perspective, Some(n)) => {
                let focal_mm = c.focal.unwrap_or(c.sensor / (2.0 * half_height));
                0.5 * focal_mm / n * 1e-3
            }
            _ => 0.0,
        };
        Camera {
            origin,
            forward,
            right,
            up,
            projection: c.projection,
            half_height,
            aspect,
            shift: Vec2::from(c.shift),
            lens_radius,
            focus,
            near: c.near,
            far: c.far,
            size,
            fov_deg,
        }
    }

    /// The point on the image plane for film coordinates `film` in pixels (x right, y down),
    /// as offsets along `right` and `up` at unit distance (perspective) or in scene units
    /// (orthographic).
    fn screen(&self, film: Vec2) -> Vec2 {
        let ndc_x = 2.0 * film.x / self.size[0] as f32 - 1.0;
        let ndc_y = 1.0 - 2.0 * film.y / self.size[1] as f32;
        Vec2::new(
            (ndc_x + self.shift.x) * self.half_height * self.aspect,
            (ndc_y + self.shift.y) * self.half_height,
        )
    }

    /// The ray through film position `film` (pixels); `lens` in [0,1)² picks the lens point.
    pub fn ray(&self, film: Vec2, lens: Vec2) -> Ray {
        let s = self.screen(film);
        match self.projection {
            Projection::Perspective => {
                let d = (self.forward + self.right * s.x + self.up * s.y).normalize();
                if self.lens_radius <= 0.0 {
                    return Ray::new(self.origin, d);
                }
                let p_lens = concentric_disk(lens) * self.lens_radius;
                let t_focus = self.focus / d.dot(self.forward);
                let p_focus = self.origin + d * t_focus;
                let o = self.origin + self.right * p_lens.x + self.up * p_lens.y;
                Ray::new(o, (p_focus - o).normalize())
            }
            Projection::Orthographic => {
                Ray::new(self.origin + self.right * s.x + self.up * s.y, self.forward)
            }
        }
    }

    /// Whether the projection is orthographic (parallel rays).
    pub fn is_orthographic(&self) -> bool {
        self.projection == Projection::Orthographic
    }

    /// Planar view-space depth of a world point: its distance along `forward`.
    pub fn depth(&self, p: Vec3) -> f32 {
        (p - self.origin).dot(self.forward)
    }

    /// World-to-view matrix, right-handed, the camera looking down −Z (OpenGL/glTF convention).
    pub fn view_matrix(&self) -> Mat4 {
        let (r, u, f, o) = (self.right, self.up, self.forward, self.origin);
        Mat4::from_cols(
            Vec4::new(r.x, u.x, -f.x, 0.0),
            Vec4::new(r.y, u.y, -f.y, 0.0),
            Vec4::new(r.z, u.z, -f.z, 0.0),
            Vec4::new(-r.dot(o), -u.dot(o), f.dot(o), 1.0),
        )
    }

    /// View-to-clip matrix, OpenGL convention (clip z in −1..1), including the lens shift.
    pub fn projection_matrix(&self) -> Mat4 {
        let (n, f) = (self.near, self.far);
        let base = match self.projection {
            Projection::Perspective => {
                let g = 1.0 / self.half_height;
                Mat4::from_cols(
                    Vec4::new(g / self.aspect, 0.0, 0.0, 0.0),
                    Vec4::new(0.0, g, 0.0, 0.0),
                    Vec4::new(0.0, 0.0, (f + n) / (n - f), -1.0),
                    Vec4::new(0.0, 0.0, 2.0 * f * n / (n - f), 0.0),
                )
            }
            Projection::Orthographic => {
                let h = self.half_height;
                let w = h * self.aspect;
                Mat4::from_cols(
                    Vec4::new(1.0 / w, 0.0, 0.0, 0.0),
                    Vec4::new(0.0, 1.0 / h, 0.0, 0.0),
                    Vec4::new(0.0, 0.0, -2.0 / (f - n), 0.0),
                    Vec4::new(0.0, 0.0, -(f + n) / (f - n), 1.0),
                )
            }
        };
        // The ray through NDC n looks where an unshifted camera sees n + s: the view window
        // moves by s halves of the view, so the matrix takes s back off.
        Mat4::from_translation(Vec3::new(-self.shift.x, -self.shift.y, 0.0)) * base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The manifest's matrices must put a world point where the ray through its pixel starts.
    #[test]
    fn matrices_agree_with_rays() {
        let c = scene::Camera {
            at: [1.0, 2.0, 3.0],
            look_at: [0.0, 0.5, -1.0],
            fov: 50.0,
            shift: [0.1, -0.2],
            ..Default::default()
        };
        let cam = Camera::new(&c, [64, 32]);
        let film = Vec2::new(40.5, 10.25);
        let ray = cam.ray(film, Vec2::splat(0.5));
        let p = ray.at(7.0);
        let clip = cam.projection_matrix() * cam.view_matrix() * p.extend(1.0);
        let ndc = clip.truncate() / clip.w;
        let px = Vec2::new((ndc.x + 1.0) * 0.5 * 64.0, (1.0 - ndc.y) * 0.5 * 32.0);
        assert!((px - film).length() < 1e-3, "{px} vs {film}");
        let depth = -(cam.view_matrix() * p.extend(1.0)).z;
        assert!((depth - cam.depth(p)).abs() < 1e-4);
    }

    #[test]
    fn focal_and_sensor_give_the_fov() {
        let c = scene::Camera {
            focal: Some(50.0),
            sensor: 24.0,
            ..Default::default()
        };
        let cam = Camera::new(&c, [10, 10]);
        assert!((cam.fov_deg - 2.0 * (12.0f32 / 50.0).atan().to_degrees()).abs() < 1e-4);
    }
}
