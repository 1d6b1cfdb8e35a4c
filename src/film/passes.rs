//! The film's data passes: per-pixel sums of what each camera sample's first drawn surface is
//! (shading normal, albedo, roughness, which object and which material), the radiance's
//! squares for its variance, the object at the pixel centre for the pick id, and the light
//! groups' direct light and shadow sums ([`LightSample`]).
//!
//! Summed only when a bake asks for passes ([`FilmTile::with_passes`](super::FilmTile)); a
//! tile without them carries an empty vector and the render loop never calls in here. Like
//! the radiance, each pixel's sums are made in sample order, so they are the same whatever
//! the thread count or tile order.

use glam::Vec3;

/// What one camera sample's first drawn surface is: the data passes' per-sample values.
/// A sample that sees the sky gives [`PassSample::default`] (all zero, no object).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassSample {
    /// Shading normal, world space, unit, turned towards the camera; zero for the sky.
    pub normal: Vec3,
    /// The surface's albedo (the material's albedo), linear
    /// RGB in `[0, 1]`; zero for the sky and for an emitter (it glows, it reflects nothing).
    pub albedo: Vec3,
    /// The surface's roughness (the material's roughness),
    /// in `[0, 1]`; zero for the sky and an emitter.
    pub roughness: f32,
    /// Index into the world's objects of the object met.
    pub object: Option<u32>,
    /// Index into the trace scene's materials of the
    /// material met.
    pub material: Option<u32>,
}

/// One camera sample's share of one light group: the direct light the group's lights give the
/// sample's first drawn surface, and its next-event estimate's luminance without and with the
/// shadow rays' verdict, for the shadow matte. All zero where the group gave nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LightSample {
    /// Direct light from the group, W·m⁻²·sr⁻¹ per linear RGB channel (light sampling and the
    /// BSDF-sampled ray that meets the light, each with its MIS weight).
    pub light: Vec3,
    /// Luminance of the light-sampled estimate as if nothing stood between the surface and the
    /// light (no MIS weight), W·m⁻²·sr⁻¹.
    pub unshadowed: f32,
    /// The part of `unshadowed` the shadow ray found blocked (all of it behind an opaque
    /// occluder, `1 − transmittance` of it behind glass), W·m⁻²·sr⁻¹.
    pub shadowed: f32,
}

/// One pixel's pass sums.
#[derive(Clone, Debug, Default)]
pub(super) struct PassSum {
    /// Sums of normal (0..3), albedo (3..6) and roughness (6).
    values: [f64; 7],
    /// Sums of the squares of the radiance's R, G, B, W²·m⁻⁴·sr⁻².
    squares: [f64; 3],
    /// (object index, samples that met it), in the order first met.
    objects: Vec<(u32, u32)>,
    /// (material index, samples that met it), in the order first met.
    materials: Vec<(u32, u32)>,
    /// The object the ray through the pixel centre meets first.
    centre_object: Option<u32>,
    /// Per light group: sums of the direct light's R, G, B, then of `unshadowed` and
    /// `shadowed` ([`LightSample`]), W·m⁻²·sr⁻¹. Float32: 20 bytes a group and pixel (a
    /// pixel's few thousand samples lose at most a few units of 10⁻⁵ of relative precision,
    /// below what the float32 and half channels written from them keep).
    groups: Vec<[f32; 5]>,
}

fn count(list: &mut Vec<(u32, u32)>, id: Option<u32>) {
    let Some(id) = id else { return };
    match list.iter_mut().find(|(k, _)| *k == id) {
        Some((_, n)) => *n += 1,
        None => list.push((id, 1)),
    }
}

impl PassSum {
    /// Adds one sample: its pass values and its radiance (W·m⁻²·sr⁻¹, as the film summed it).
    pub(super) fn add(&mut self, s: &PassSample, radiance: Vec3) {
        let v = &mut self.values;
        for k in 0..3 {
            v[k] += s.normal[k] as f64;
            v[3 + k] += s.albedo[k] as f64;
            self.squares[k] += radiance[k] as f64 * radiance[k] as f64;
        }
        v[6] += s.roughness as f64;
        count(&mut self.objects, s.object);
        count(&mut self.materials, s.material);
    }

    pub(super) fn set_centre_object(&mut self, object: Option<u32>) {
        self.centre_object = object;
    }

    /// Makes room for `n` light groups' sums.
    pub(super) fn with_light_groups(n: usize) -> PassSum {
        PassSum {
            groups: vec![[0.0; 5]; n],
            ..PassSum::default()
        }
    }

    /// Adds one sample's light groups, `groups[g]` to group `g` (extra entries are ignored).
    pub(super) fn add_light_groups(&mut self, groups: &[LightSample]) {
        for (sum, g) in self.groups.iter_mut().zip(groups) {
            sum[0] += g.light.x;
            sum[1] += g.light.y;
            sum[2] += g.light.z;
            sum[3] += g.unshadowed;
            sum[4] += g.shadowed;
        }
    }
}

/// The data passes of a whole image, each `width × height`, row-major from the top row.
/// Every mean is over all of the pixel's samples, those that saw the sky adding zero (as
/// Cycles' data passes do), so a pixel on an edge against the sky is scaled by its alpha.
#[derive(Clone, Debug, PartialEq)]
pub struct PassImages {
    /// Mean shading normal, world space (shorter than 1 where samples disagree or see sky).
    pub normal: Vec<Vec3>,
    /// Mean albedo, linear RGB in `[0, 1]`.
    pub albedo: Vec<Vec3>,
    /// Mean roughness, in `[0, 1]`.
    pub roughness: Vec<f32>,
    /// The object (index into the world's objects) the ray
    /// through the pixel centre meets first, as depth is sampled; `None` for the sky or an
    /// emitter.
    pub centre_object: Vec<Option<u32>>,
    /// The variance of the pixel's mean radiance per channel (the samples' unbiased variance
    /// over their count), W²·m⁻⁴·sr⁻²; 0 below two samples.
    pub variance: Vec<Vec3>,
    /// Per pixel: (object index, share of the pixel's samples that met it), the largest
    /// share first (ties by index), for Cryptomatte.
    pub objects: Vec<Vec<(u32, f32)>>,
    /// Per pixel: (material index, share of samples), ordered as `objects`.
    pub materials: Vec<Vec<(u32, f32)>>,
    /// One image pair per light group, in the groups' order (empty when the render made none).
    pub light_groups: Vec<LightGroupImage>,
}

/// One light group's images, `width × height`, row-major from the top row.
#[derive(Clone, Debug, PartialEq)]
pub struct LightGroupImage {
    /// Mean direct light from the group over all the pixel's samples, W·m⁻²·sr⁻¹ per linear
    /// RGB channel.
    pub light: Vec<Vec3>,
    /// The shadow matte, in [0, 1]: the share of the group's unshadowed light-sampled
    /// estimate the shadow rays found blocked (Σ shadowed / Σ unshadowed over the pixel's
    /// samples); 0 where the group's lights sent the pixel nothing to block.
    pub shadow: Vec<f32>,
}

/// The light groups' images from the pixels' sums and sample counts.
fn light_group_images(sums: &[PassSum], samples: &[u32]) -> Vec<LightGroupImage> {
    let n = sums.first().map_or(0, |p| p.groups.len());
    (0..n)
        .map(|g| LightGroupImage {
            light: sums
                .iter()
                .zip(samples)
                .map(|(p, &s)| {
                    let [r, gr, b, ..] = p.groups.get(g).copied().unwrap_or_default();
                    Vec3::new(r, gr, b) / s.max(1) as f32
                })
                .collect(),
            shadow: sums
                .iter()
                .map(|p| {
                    let [.., lit, blocked] = p.groups.get(g).copied().unwrap_or_default();
                    if lit > 0.0 {
                        (blocked / lit).clamp(0.0, 1.0)
                    } else {
                        0.0
                    }
                })
                .collect(),
        })
        .collect()
}

/// `(id, count)` pairs as coverage shares of `n` samples, the largest first, ties by id.
fn shares(list: &[(u32, u32)], n: u32) -> Vec<(u32, f32)> {
    let mut v: Vec<(u32, u32)> = list.to_vec();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let n = n.max(1) as f64;
    v.into_iter()
        .map(|(id, c)| (id, (c as f64 / n) as f32))
        .collect()
}

/// The pass images of pixels whose sample counts are `samples` and radiance sums `radiance`.
pub(super) fn resolve(sums: &[PassSum], samples: &[u32], radiance: &[[f64; 3]]) -> PassImages {
    let mean = |p: &PassSum, n: u32, k: usize| (p.values[k] / n.max(1) as f64) as f32;
    let it = || sums.iter().zip(samples);
    PassImages {
        normal: it()
            .map(|(p, &n)| Vec3::new(mean(p, n, 0), mean(p, n, 1), mean(p, n, 2)))
            .collect(),
        albedo: it()
            .map(|(p, &n)| Vec3::new(mean(p, n, 3), mean(p, n, 4), mean(p, n, 5)))
            .collect(),
        roughness: it().map(|(p, &n)| mean(p, n, 6)).collect(),
        centre_object: sums.iter().map(|p| p.centre_object).collect(),
        variance: it()
            .zip(radiance)
            .map(|((p, &n), sum)| {
                if n < 2 {
                    return Vec3::ZERO;
                }
                let nf = n as f64;
                let var = |k: usize| {
                    let m = sum[k] / nf;
                    (((p.squares[k] - sum[k] * m) / (nf - 1.0)).max(0.0) / nf) as f32
                };
                Vec3::new(var(0), var(1), var(2))
            })
            .collect(),
        objects: it().map(|(p, &n)| shares(&p.objects, n)).collect(),
        materials: it().map(|(p, &n)| shares(&p.materials, n)).collect(),
        light_groups: light_group_images(sums, samples),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_resolve_to_means_shares_and_the_variance_of_the_mean() {
        let mut p = PassSum::default();
        let hit = |o: u32| PassSample {
            normal: Vec3::Z,
            albedo: Vec3::new(0.5, 0.25, 1.0),
            roughness: 0.5,
            object: Some(o),
            material: Some(7),
        };
        let values = [1.0f32, 3.0, 2.0, 6.0];
        p.add(&hit(4), Vec3::splat(values[0]));
        p.add(&hit(2), Vec3::splat(values[1]));
        p.add(&hit(4), Vec3::splat(values[2]));
        p.add(&PassSample::default(), Vec3::splat(values[3])); // the sky
        p.set_centre_object(Some(4));
        let sum: f64 = values.iter().map(|&v| v as f64).sum();
        let img = resolve(&[p], &[4], &[[sum; 3]]);
        assert_eq!(img.normal[0], Vec3::new(0.0, 0.0, 0.75));
        assert_eq!(img.albedo[0], Vec3::new(0.375, 0.1875, 0.75));
        assert_eq!(img.roughness[0], 0.375);
        assert_eq!(img.centre_object[0], Some(4));
        assert_eq!(img.objects[0], vec![(4, 0.5), (2, 0.25)]);
        assert_eq!(img.materials[0], vec![(7, 0.75)]);
        // Unbiased variance of 1, 3, 2, 6 is 14/3; of their mean, 14/12.
        let want = 14.0 / 12.0;
        assert!(
            (img.variance[0].x - want).abs() < 1e-6,
            "{}",
            img.variance[0]
        );
        // Ties are ordered by id, so the order does not depend on which came first.
        assert_eq!(shares(&[(9, 2), (3, 2), (5, 1)], 5)[0], (3, 0.4));
    }
}
