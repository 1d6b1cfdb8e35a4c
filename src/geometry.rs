//! Rays, frames and the scene's transform convention, shared by every stage below the scene.

use glam::{Mat4, Quat, Vec3};

/// A ray `o + t·d` for `t` in `(0, t_max)`. `d` need not be normalised; `t` is in units of `|d|`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Origin, world units.
    pub o: Vec3,
    /// Direction.
    pub d: Vec3,
    /// Far end of the segment, in units of `|d|`.
    pub t_max: f32,
}

impl Ray {
    /// A ray with an unbounded far end.
    pub fn new(o: Vec3, d: Vec3) -> Self {
        Ray {
            o,
            d,
            t_max: f32::INFINITY,
        }
    }

    /// The point at parameter `t`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.o + self.d * t
    }
}

/// An orthonormal frame; `n` is the local +Z axis, so `to_local(n) == (0, 0, 1)`.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// Local X.
    pub s: Vec3,
    /// Local Y.
    pub t: Vec3,
    /// Local Z.
    pub n: Vec3,
}

impl Frame {
    /// A frame around the unit vector `n` (Duff et al. 2017, branchless and continuous).
    pub fn from_normal(n: Vec3) -> Self {
        let sign = 1.0f32.copysign(n.z);
        let a = -1.0 / (sign + n.z);
        let b = n.x * n.y * a;
        let s = Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x);
        let t = Vec3::new(b, sign + n.y * n.y * a, -n.y);
        Frame { s, t, n }
    }

    /// World to local.
    pub fn to_local(&self, v: Vec3) -> Vec3 {
        Vec3::new(v.dot(self.s), v.dot(self.t), v.dot(self.n))
    }

    /// Local to world.
    pub fn to_world(&self, v: Vec3) -> Vec3 {
        self.s * v.x + self.t * v.y + self.n * v.z
    }
}

/// The format's model matrix `T·R·S`, with `R = Rz·Ry·Rx`: a point is turned about X first,
/// then Y, then Z. Angles in degrees.
///
/// glam's `EulerRot::ZYX` names the same product `Rz·Ry·Rx` (the first letter is the outermost
/// rotation); the test below pins that down so a glam upgrade cannot silently flip it.
pub fn model_matrix(at: [f32; 3], rotate_deg: [f32; 3], scale: [f32; 3]) -> Mat4 {
    let r = rotation(rotate_deg);
    Mat4::from_scale_rotation_translation(Vec3::from(scale), r, Vec3::from(at))
}

/// `Rz·Ry·Rx` for angles in degrees.
pub fn rotation(rotate_deg: [f32; 3]) -> Quat {
    let [x, y, z] = rotate_deg.map(f32::to_radians);
    Quat::from_euler(glam::EulerRot::ZYX, z, y, x)
}

/// The nearest ray parameter `t > 0` at which the ray `o + t·d` (`d` unit) meets the sphere
/// of centre `c` and radius `r`, or `None`. An origin inside the sphere meets its far side.
#[inline]
pub fn sphere_hit(o: Vec3, d: Vec3, c: Vec3, r: f32) -> Option<f32> {
    let oc = o - c;
    let b = oc.dot(d);
    // Hearn & Baker's form: the discriminant from the perpendicular distance keeps its
    // precision for small spheres far away.
    let perp = oc - d * b;
    let disc = r * r - perp.length_squared();
    if disc < 0.0 {
        return None;
    }
    let s = disc.sqrt();
    let c0 = oc.length_squared() - r * r;
    let q = -b - s.copysign(b);
    let (t0, t1) = if q != 0.0 {
        (c0 / q, q)
    } else {
        (-b - s, -b + s)
    };
    let (t0, t1) = if t0 < t1 { (t0, t1) } else { (t1, t0) };
    if t0 > 0.0 {
        Some(t0)
    } else if t1 > 0.0 {
        Some(t1)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn euler_order_turns_about_x_first() {
        // Rx(90) takes +Y to +Z; Ry(90) then takes +Z to +X. The opposite order would give +Z...
        // (Ry first leaves +Y alone, Rx then takes it to +Z).
        let m = model_matrix([0.0; 3], [90.0, 90.0, 0.0], [1.0; 3]);
        let p = m.transform_point3(Vec3::Y);
        assert!((p - Vec3::X).length() < 1e-5, "got {p}");
        // Explicit product Rz·Ry·Rx against the matrix.
        let (x, y, z) = (0.3f32, -1.1f32, 2.0f32);
        let explicit =
            Mat4::from_rotation_z(z) * Mat4::from_rotation_y(y) * Mat4::from_rotation_x(x);
        let ours = model_matrix(
            [0.0; 3],
            [x.to_degrees(), y.to_degrees(), z.to_degrees()],
            [1.0; 3],
        );
        assert!(explicit.abs_diff_eq(ours, 1e-5));
    }

    #[test]
    fn trs_scales_before_turning_and_moving() {
        let m = model_matrix([1.0, 2.0, 3.0], [0.0, 0.0, 90.0], [2.0, 1.0, 1.0]);
        // (1,0,0) scaled to (2,0,0), turned about Z to (0,2,0), moved by (1,2,3).
        let p = m.transform_point3(Vec3::X);
        assert!((p - Vec3::new(1.0, 4.0, 3.0)).length() < 1e-5, "got {p}");
    }

    #[test]
    fn frame_is_orthonormal() {
        for n in [
            Vec3::Z,
            -Vec3::Z,
            Vec3::new(0.3, -0.5, 0.8).normalize(),
            Vec3::X,
        ] {
            let f = Frame::from_normal(n);
            assert!(
                f.s.dot(f.t).abs() < 1e-5 && f.s.dot(f.n).abs() < 1e-5 && f.t.dot(f.n).abs() < 1e-5
            );
            assert!((f.to_local(n) - Vec3::Z).length() < 1e-5);
            assert!(f.s.cross(f.t).dot(f.n) > 0.99);
        }
    }
}
