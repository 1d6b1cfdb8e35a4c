//! Watertight ray/triangle intersection (Woop, Benthin, Wald 2013, "Watertight Ray/Triangle
//! Intersection", JCGT 2(1)).
//!
//! The ray is turned into a frame where it runs along +Z from the origin (axis permutation plus
//! shear). Every vertex is transformed by the same per-ray arithmetic whichever triangle it is
//! met in, so two triangles sharing an edge compute bit-identical 2-D edge functions of opposite
//! sign: a ray through the edge is inside exactly one of them (or both, on the edge itself),
//! never neither. Edge functions that round to exactly zero are recomputed in `f64`, where the
//! product of two `f32` values is exact, so their sign is right too.

use glam::Vec3;

/// Per-ray constants of the watertight test, built once per ray (and once per instance visit,
/// in that instance's object space).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TriRay {
    /// Ray origin, the space the triangles are in.
    pub o: Vec3,
    /// Axis along which the direction is largest in magnitude: the sheared ray runs along it.
    pub kz: usize,
    /// The two other axes, ordered so the permutation keeps handedness when `d[kz] < 0`.
    pub kx: usize,
    /// See `kx`.
    pub ky: usize,
    /// Shear constants `d[kx]/d[kz]`, `d[ky]/d[kz]`, `1/d[kz]`.
    pub sx: f32,
    /// See `sx`.
    pub sy: f32,
    /// See `sx`.
    pub sz: f32,
}

/// A triangle hit in the units of the ray the [`TriRay`] was made from. The barycentrics are
/// as computed (callers clamp them into `[0, 1]`), so that every SIMD path can return the
/// same raw lanes and share one clamp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TriHit {
    /// Ray parameter, in units of the ray's direction length.
    pub t: f32,
    /// Barycentric weight of the second vertex.
    pub b1: f32,
    /// Barycentric weight of the third vertex.
    pub b2: f32,
}

impl TriRay {
    /// Constants for the ray `o + t·d`. `d` must be finite and not zero (callers check); then
    /// `d[kz] != 0` because it is the largest component in magnitude.
    #[inline(always)]
    pub(crate) fn new(o: Vec3, d: Vec3) -> TriRay {
        let a = d.abs();
        let kz = if a.x >= a.y && a.x >= a.z {
            0
        } else if a.y >= a.z {
            1
        } else {
            2
        };
        let mut kx = (kz + 1) % 3;
        let mut ky = (kx + 1) % 3;
        let dz = d[kz];
        if dz < 0.0 {
            std::mem::swap(&mut kx, &mut ky);
        }
        TriRay {
            o,
            kz,
            kx,
            ky,
            sx: d[kx] / dz,
            sy: d[ky] / dz,
            sz: 1.0 / dz,
        }
    }

    /// Intersects the triangle `(v0, v1, v2)` (either side) for `t` in `(0, t_lim]` (callers
    /// turn the API's open `t_max` into an inclusive limit with `node::below`).
    ///
    /// This is the reference arithmetic: the SIMD leaf kernels perform exactly these IEEE
    /// operations in this order on each lane (and fall back to this function for a leaf in
    /// which an edge function is exactly zero), so every path returns the same bits.
    #[inline(always)]
    pub(crate) fn intersect(&self, v: &[Vec3; 3], t_lim: f32) -> Option<TriHit> {
        let a = v[0] - self.o;
        let b = v[1] - self.o;
        let c = v[2] - self.o;
        let (kx, ky, kz) = (self.kx, self.ky, self.kz);
        // Shear and scale of the vertices; the same expression for every vertex keeps it
        // watertight (Rust never contracts these into FMAs, so no vertex is rounded differently).
        let ax = a[kx] - self.sx * a[kz];
        let ay = a[ky] - self.sy * a[kz];
        let bx = b[kx] - self.sx * b[kz];
        let by = b[ky] - self.sy * b[kz];
        let cx = c[kx] - self.sx * c[kz];
        let cy = c[ky] - self.sy * c[kz];

        let mut u = cx * by - cy * bx;
        let mut v_ = ax * cy - ay * cx;
        let mut w = bx * ay - by * ax;
        if u == 0.0 || v_ == 0.0 || w == 0.0 {
            // Exact products in f64; the rounded difference keeps its sign.
            let (ax, ay, bx, by, cx, cy) = (
                ax as f64, ay as f64, bx as f64, by as f64, cx as f64, cy as f64,
            );
            u = (cx * by - cy * bx) as f32;
            v_ = (ax * cy - ay * cx) as f32;
            w = (bx * ay - by * ax) as f32;
        }
        if (u < 0.0 || v_ < 0.0 || w < 0.0) && (u > 0.0 || v_ > 0.0 || w > 0.0) {
            return None;
        }
        let det = u + v_ + w;
        // Also rejects NaN (non-finite vertices).
        if !(det != 0.0 && det.is_finite()) {
            return None;
        }
        let az = self.sz * a[kz];
        let bz = self.sz * b[kz];
        let cz = self.sz * c[kz];
        let t_scaled = u * az + v_ * bz + w * cz;
        let rcp = 1.0 / det;
        let t = t_scaled * rcp;
        if !(t > 0.0 && t <= t_lim) {
            return None;
        }
        Some(TriHit {
            t,
            b1: v_ * rcp,
            b2: w * rcp,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_point_and_barycentrics_match_closed_form() {
        // Triangle in the plane z = 2; the ray from the origin towards (0.25, 0.5, 2) has
        // direction twice that point, so t = 0.5 and the point has b1 = 0.25, b2 = 0.5.
        let tri = [
            Vec3::new(0.0, 0.0, 2.0),
            Vec3::new(1.0, 0.0, 2.0),
            Vec3::new(0.0, 1.0, 2.0),
        ];
        let d = Vec3::new(0.5, 1.0, 4.0);
        let r = TriRay::new(Vec3::ZERO, d);
        let h = r.intersect(&tri, f32::INFINITY).expect("hit");
        assert!((h.t - 0.5).abs() < 1e-6, "{h:?}");
        assert!(
            (h.b1 - 0.25).abs() < 1e-6 && (h.b2 - 0.5).abs() < 1e-6,
            "{h:?}"
        );
        // Either winding and a negative-axis direction give the same parameter.
        let flipped = [tri[0], tri[2], tri[1]];
        let h2 = r.intersect(&flipped, f32::INFINITY).expect("hit back side");
        assert!((h2.t - 0.5).abs() < 1e-6 && (h2.b1 - 0.5).abs() < 1e-6);
        let r3 = TriRay::new(Vec3::new(0.25, 0.5, 4.0), Vec3::new(0.0, 0.0, -1.0));
        let h3 = r3.intersect(&tri, f32::INFINITY).expect("hit from above");
        assert!((h3.t - 2.0).abs() < 1e-6);
    }

    #[test]
    fn open_interval_and_degenerate_inputs_miss() {
        let tri = [
            Vec3::new(0.0, 0.0, 2.0),
            Vec3::new(1.0, 0.0, 2.0),
            Vec3::new(0.0, 1.0, 2.0),
        ];
        let r = TriRay::new(Vec3::new(0.1, 0.1, 0.0), Vec3::Z);
        assert!(
            r.intersect(&tri, crate::accel::node::below(2.0)).is_none(),
            "t == t_max is outside (0, t_max)"
        );
        assert!(r.intersect(&tri, 2.0).is_some(), "t_lim is inclusive");
        // Behind the origin.
        let back = TriRay::new(Vec3::new(0.1, 0.1, 3.0), Vec3::Z);
        assert!(back.intersect(&tri, f32::INFINITY).is_none());
        // Zero-area and NaN triangles never hit.
        let flat = [Vec3::ZERO, Vec3::X, Vec3::X * 2.0];
        assert!(TriRay::new(Vec3::new(0.5, 0.0, -1.0), Vec3::Z)
            .intersect(&flat, f32::INFINITY)
            .is_none());
        let nan = [Vec3::NAN, Vec3::X, Vec3::Y];
        assert!(r.intersect(&nan, f32::INFINITY).is_none());
    }
}
