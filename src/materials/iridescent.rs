//! `plain` (and a conductor, as `plain` at metalness 1) under a thin film: the film's Airy
//! reflectance ([`ThinFilm`]) blended into both Fresnel terms by the film's amount `a`.
//!
//! ```text
//! f = (1 − m) · [ D G2 F_d(wo·h) / (4 μo μi)  +  base/π · (1 − E(μo))(1 − E(μi)) / (1 − E_avg) ]
//!   +      m  · [ D G2 F_c(wo·h) / (4 μo μi)  +  Kulla–Conty multiple scattering of mean F_c ]
//! F_d = (1 − a) F_exact(η) + a F_film(η_film over η),   F_c = (1 − a) F_schlick(base) + a F_film(η_film over η(base))
//! ```
//!
//! `η` is the dielectric layer's index from `specular`; a conductor under a film is taken as
//! the dielectric of index `(1 + √F0)/(1 − √F0)` per channel (glTF's
//! `KHR_materials_iridescence` convention: the format gives a metal no extinction). `E` is the
//! film-covered specular layer's own directional albedo per channel, integrated when the
//! material is built (the film changes it, and the base must receive exactly what the layer
//! lets through, or a white base would reflect more than 1): 16 nodes in `√μ`, each a
//! quadrature over the visible normals, then raised until the piecewise-linear interpolant
//! bounds the quadrature from above at three points inside every segment (plus 2·10⁻³), so
//! the base term's albedo `base (1 − E(μo))` never lets the stack exceed 1. The conductor's
//! multiple scattering takes the cosine-weighted mean of `F_c` (a 1D quadrature) for Schlick's
//! closed-form one. Both Fresnel terms depend on `wo·h = wi·h` only and the base coupling is
//! symmetric, so `f` is reciprocal; sampling is `plain`'s (cosine or visible normals), so the
//! film changes only the weights.

use glam::{DVec3, Vec2, Vec3};
use std::f32::consts::FRAC_1_PI;

use super::albedo::{row_e_avg, ROUGHNESS_MIN};
use super::conductor::Conductor;
use super::film::{ior_from_f0, ThinFilm};
use super::ggx::Ggx;
use super::{fresnel, positive, warp, BsdfSample, Bxdf};

/// Nodes of the film-covered layer's albedo along `x = √μ`.
const N_MU: usize = 16;

/// The albedo table's fixed-point scale (`u16`, rounded up: an upper bound stays one).
const SCALE: f32 = 65535.0;

/// Added to each quadrature of the albedo so the table bounds the true albedo from above
/// (the 16 × 48 rule is within about 10⁻³ of a 64 × 512 one).
const MARGIN: f64 = 2e-3;

/// The least sampling weight of the metal's specular lobe (times metalness), as `plain`'s.
const CONDUCTOR_WEIGHT_MIN: f32 = 0.02;

/// `x` clamped to `[0, 1]`, NaN to 0.
fn unit(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// A `plain` BRDF (or a conductor) under a thin film, in local shading space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Iridescent {
    /// Base colour: the diffuse albedo and the conductor's F0, each channel in `[0, 1]`.
    base: Vec3,
    /// Metalness in `[0, 1]`.
    metalness: f32,
    /// `1/η` of the dielectric layer (the bare Fresnel's), in `[0, 1]`.
    inv_eta: f32,
    /// `η` of the dielectric layer under the film, in `[1, 10⁴]`.
    eta: f32,
    /// The conductor's F0 as dielectric indices per channel, in `[1, 10⁴]`.
    eta_metal: Vec3,
    /// The film.
    film: ThinFilm,
    /// The weight of the film's reflectance in both Fresnel terms, in `[0, 1]`: the film's
    /// own amount, except for the ends [`Iridescent::blend`] mixes between.
    amount: f32,
    /// The microfacet distribution both specular lobes share.
    ggx: Ggx,
    /// The film-covered dielectric layer's albedo per channel at the `√μ` nodes, times
    /// [`SCALE`], rounded up.
    albedo: [[u16; 3]; N_MU],
    /// `1 / (π (1 − E_avg))` per channel, 0 where the layer reflects everything.
    diffuse_norm: Vec3,
    /// The conductor's multiple scattering, with the film-covered Fresnel's mean.
    metal: Conductor,
}

impl Iridescent {
    /// `plain`'s model ([`super::Plain::with_power`]'s parameters, clamped alike) under
    /// `film`. Builds the layer's albedo table (about 800 film evaluations per node).
    pub fn new(
        base: Vec3,
        roughness: f32,
        metalness: f32,
        specular: f32,
        power: f32,
        film: ThinFilm,
    ) -> Iridescent {
        Iridescent::with_amount(
            base,
            roughness,
            metalness,
            specular,
            power,
            film,
            film.amount(),
        )
        .0
    }

    /// As [`Iridescent::new`] with the film's weight `amount` (in `[0, 1]`; 0 is the bare
    /// layer's tables, which [`Iridescent::blend`] needs) in place of the film's own, and the
    /// cosine-weighted mean of the film-covered conductor Fresnel per channel (the conductor's
    /// multiple scattering is built from it).
    pub(super) fn with_amount(
        base: Vec3,
        roughness: f32,
        metalness: f32,
        specular: f32,
        power: f32,
        film: ThinFilm,
        amount: f32,
    ) -> (Iridescent, Vec3) {
        let base = Vec3::new(unit(base.x), unit(base.y), unit(base.z));
        let roughness = unit(roughness).max(ROUGHNESS_MIN);
        let f0 = unit(specular);
        let inv_eta = fresnel::inv_eta_from_f0(f0);
        let power = fresnel::schlick_power(power);
        let eta_metal = Vec3::new(
            ior_from_f0(base.x),
            ior_from_f0(base.y),
            ior_from_f0(base.z),
        );
        let mut me = Iridescent {
            base,
            metalness: unit(metalness),
            inv_eta,
            eta: ior_from_f0(f0),
            eta_metal,
            film,
            amount: unit(amount),
            ggx: Ggx::new(roughness * roughness),
            albedo: [[0; 3]; N_MU],
            diffuse_norm: Vec3::ZERO,
            metal: Conductor::with_power(base, roughness, power),
        };
        me.tabulate();
        // ∫ F_c 2c dc by the midpoint rule (the film's oscillation in angle is at most a few
        // periods over the hemisphere for the thickest films that still interfere).
        let n = 256;
        let mut mean = DVec3::ZERO;
        for i in 0..n {
            let c = (i as f32 + 0.5) / n as f32;
            mean += (me.conductor_fresnel(c) * (2.0 * c)).as_dvec3();
        }
        let f_avg = (mean / n as f64).as_vec3();
        me.metal = Conductor::with_average(base, roughness, power, f_avg);
        (me, f_avg)
    }

    /// The film of `full` (built by [`Iridescent::with_amount`] at amount 1, `full_avg` its
    /// mean conductor Fresnel) at weight `a` in `[0, 1]`, from `bare` (the same material at
    /// amount 0, `bare_avg`), without a quadrature: both Fresnel terms are linear in the
    /// amount, and so are the layer's albedo, its `E_avg` and the conductor's mean, so the
    /// table is the ends' mix, rounded up (each end bounds its albedo from above, so the mix
    /// bounds the mix). At `a = 1` it is `full` bit for bit; below, its table is at or above
    /// the one [`Iridescent::new`] would integrate at amount `a` (the margins and the chord
    /// raise are the ends'), within the ends' margins. `roughness` and `power` are the ones
    /// both were built with.
    pub(super) fn blend(
        bare: (&Iridescent, Vec3),
        full: (&Iridescent, Vec3),
        a: f32,
        roughness: f32,
        power: f32,
    ) -> Iridescent {
        let a = unit(a);
        let mut me = *full.0;
        me.amount = a;
        for (i, row) in me.albedo.iter_mut().enumerate() {
            for (c, q) in row.iter_mut().enumerate() {
                let (b, f) = (bare.0.albedo[i][c] as f32, full.0.albedo[i][c] as f32);
                *q = ((1.0 - a) * b + a * f).ceil().min(SCALE) as u16;
            }
        }
        me.normalise();
        let f_avg = (1.0 - a) * bare.1 + a * full.1;
        me.metal = Conductor::with_average(
            me.base,
            unit(roughness).max(ROUGHNESS_MIN),
            fresnel::schlick_power(power),
            f_avg,
        );
        me
    }

    /// This material with the base colour `base` (each channel clamped to `[0, 1]`) where it
    /// has no metal part (`None` otherwise): the dielectric layer's tables do not depend on
    /// the base, the conductor's do (its F0 is the base), so only a metal-free material may
    /// change its base without a new build.
    pub(crate) fn with_dielectric_base(mut self, base: Vec3) -> Option<Iridescent> {
        if self.metalness > 0.0 {
            return None;
        }
        self.base = Vec3::new(unit(base.x), unit(base.y), unit(base.z));
        Some(self)
    }

    /// The base colour, linear RGB in `[0, 1]` per channel.
    pub fn base(&self) -> Vec3 {
        self.base
    }

    /// The GGX width `α` both specular lobes share.
    pub(crate) fn alpha(&self) -> f32 {
        self.ggx.alpha()
    }

    /// The film.
    pub(super) fn film(&self) -> ThinFilm {
        self.film
    }

    /// The film-covered dielectric Fresnel at the microfacet cosine `c`.
    pub(super) fn dielectric_fresnel(&self, c: f32) -> Vec3 {
        let a = self.amount;
        Vec3::splat((1.0 - a) * fresnel::dielectric(c, self.inv_eta))
            + a * self.film.reflectance(c, self.eta)
    }

    /// The film-covered conductor Fresnel at the microfacet cosine `c`.
    fn conductor_fresnel(&self, c: f32) -> Vec3 {
        let a = self.amount;
        (1.0 - a) * self.metal.fresnel(c) + a * self.film.reflectance_per_channel(c, self.eta_metal)
    }

    /// The film-covered dielectric layer's albedo at `mu` by quadrature over the visible
    /// normals (`n_phi` azimuths over half a turn, `n_v` cap heights, `u = 1 − v⁴` as
    /// `albedo::albedo_quadrature`).
    fn albedo_quadrature(&self, mu: f64, n_phi: usize, n_v: usize) -> DVec3 {
        if mu <= 0.0 {
            return DVec3::ZERO;
        }
        let g = &self.ggx;
        let wo = Vec3::new((1.0 - mu * mu).max(0.0).sqrt() as f32, 0.0, mu as f32);
        let so = g.s(wo);
        let mut sum = DVec3::ZERO;
        for b in 0..n_v {
            let v = (b as f64 + 0.5) / n_v as f64;
            let uy = 1.0 - v * v * v * v;
            let jacobian = 4.0 * v * v * v;
            let mut ring = DVec3::ZERO;
            for k in 0..n_phi {
                let u = Vec2::new(0.5 * (k as f32 + 0.5) / n_phi as f32, uy as f32);
                let m = g.sample_visible_normal(wo, u);
                let c = wo.dot(m);
                let wi = 2.0 * c * m - wo;
                if wi.z <= 0.0 || c <= 0.0 {
                    continue;
                }
                let si = g.s(wi);
                let g2_over_g1 = wi.z * (wo.z + so) / (wi.z * so + wo.z * si);
                ring += (self.dielectric_fresnel(c) * g2_over_g1).as_dvec3();
            }
            sum += ring * jacobian;
        }
        sum / (n_phi * n_v) as f64
    }

    /// Fills the albedo table: quadrature at the nodes, then each node raised until every
    /// segment's chord is at or above the quadrature (plus [`MARGIN`]) at a quarter, half and
    /// three quarters of it. Raising a segment's two ends raises no neighbouring chord's
    /// shortfall, so one pass suffices. The μ = 0 node starts from the next one.
    fn tabulate(&mut self) {
        const N_PHI: usize = 16;
        const N_V: usize = 48;
        let x = |t: f64| t / (N_MU - 1) as f64;
        let mut nodes = [DVec3::ZERO; N_MU];
        for (i, node) in nodes.iter_mut().enumerate().skip(1) {
            let xi = x(i as f64);
            *node = self.albedo_quadrature(xi * xi, N_PHI, N_V) + DVec3::splat(MARGIN);
        }
        nodes[0] = nodes[1];
        for i in 0..N_MU - 1 {
            for t in [0.25f64, 0.5, 0.75] {
                let xt = x(i as f64 + t);
                let truth = self.albedo_quadrature(xt * xt, N_PHI, N_V) + DVec3::splat(MARGIN);
                let chord = (1.0 - t) * nodes[i] + t * nodes[i + 1];
                let short = (truth - chord).max(DVec3::ZERO);
                nodes[i] += short;
                nodes[i + 1] += short;
            }
        }
        for (i, node) in nodes.iter().enumerate() {
            for c in 0..3 {
                let q = (node[c].clamp(0.0, 1.0) as f32 * SCALE).ceil().min(SCALE);
                self.albedo[i][c] = q as u16;
            }
        }
        self.normalise();
    }

    /// The base term's `1 / (π (1 − E_avg))` per channel from the albedo table.
    fn normalise(&mut self) {
        let mut rows = [[0.0f32; N_MU]; 3];
        for (i, node) in self.albedo.iter().enumerate() {
            for (c, row) in rows.iter_mut().enumerate() {
                row[i] = node[c] as f32 / SCALE;
            }
        }
        let avg = |c: usize| row_e_avg(&rows[c], 0, N_MU).clamp(0.0, 1.0);
        let norm = |e_avg: f32| {
            if 1.0 - e_avg > 1e-6 {
                FRAC_1_PI / (1.0 - e_avg)
            } else {
                0.0
            }
        };
        self.diffuse_norm = Vec3::new(norm(avg(0)), norm(avg(1)), norm(avg(2)));
    }

    /// The film-covered layer's albedo per channel at `mu` (clamped to `[0, 1]`).
    pub(crate) fn e(&self, mu: f32) -> Vec3 {
        let xv = if mu.is_nan() {
            0.0
        } else {
            mu.clamp(0.0, 1.0).sqrt()
        };
        let (i, t) = super::albedo::axis(xv, N_MU);
        let node = |k: usize| {
            let a = self.albedo[k];
            Vec3::new(a[0] as f32, a[1] as f32, a[2] as f32) * (1.0 / SCALE)
        };
        ((1.0 - t) * node(i) + t * node(i + 1)).clamp(Vec3::ZERO, Vec3::ONE)
    }

    /// Probabilities of the cosine strategy and of visible normals, from the lobes'
    /// approximate albedos at `wo` (the metal's by its bare Schlick reflectance).
    fn lobe_probabilities(&self, mu_o: f32, e_o: Vec3) -> (f32, f32) {
        let m = self.metalness;
        let mean = |v: Vec3| v.element_sum() / 3.0;
        let w_diffuse = (1.0 - m) * mean(self.base * (Vec3::ONE - e_o))
            + if m > 0.0 {
                m * self.metal.multi_weight(mu_o)
            } else {
                0.0
            };
        let w_conductor = if m > 0.0 {
            m * mean(self.metal.fresnel(mu_o)).max(CONDUCTOR_WEIGHT_MIN)
        } else {
            0.0
        };
        let w_specular = (1.0 - m) * mean(e_o) + w_conductor;
        let total = w_diffuse + w_specular;
        if total > 0.0 {
            let p_spec = (w_specular / total).clamp(0.0, 1.0);
            (1.0 - p_spec, p_spec)
        } else {
            (1.0, 0.0)
        }
    }

    /// `f` and the mixture pdf together.
    fn eval(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        if !(positive(wo.z) && positive(wi.z)) {
            return (Vec3::ZERO, 0.0);
        }
        let h = (wo + wi).normalize_or_zero();
        if !positive(h.z) {
            return (Vec3::ZERO, 0.0);
        }
        let m = self.metalness;
        let cos_h = wo.dot(h).clamp(0.0, 1.0);
        let spec = self.ggx.d(h) * self.ggx.g2_over_cosines(wo, wi);
        let (e_o, e_i) = (self.e(wo.z), self.e(wi.z));
        let mut f = Vec3::ZERO;
        if m < 1.0 {
            let diffuse = self.base * self.diffuse_norm * (Vec3::ONE - e_o) * (Vec3::ONE - e_i);
            f += (1.0 - m) * (self.dielectric_fresnel(cos_h) * spec + diffuse);
        }
        if m > 0.0 {
            f += m * (self.conductor_fresnel(cos_h) * spec + self.metal.multi(wo.z, wi.z));
        }
        let (p_diffuse, p_spec) = self.lobe_probabilities(wo.z, e_o);
        let pdf =
            p_diffuse * warp::cosine_hemisphere_pdf(wi.z) + p_spec * self.ggx.reflection_pdf(wo, h);
        (f, pdf)
    }
}

impl Bxdf for Iridescent {
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        self.eval(wo, wi).0
    }

    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        if !positive(wo.z) {
            return None;
        }
        let p_spec = self.lobe_probabilities(wo.z, self.e(wo.z)).1;
        super::sample_cosine_or_ggx(wo, uc >= p_spec, &self.ggx, u, |wi| self.eval(wo, wi))
    }

    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        self.eval(wo, wi).1
    }

    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        self.eval(wo, wi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::materials::testutil::{
        albedo, assert_reciprocal, assert_sample_is_evaluation, chi2_bxdf, dir, odd_dirs, Rng,
        ODD_VALUES,
    };
    use crate::materials::Plain;

    fn film(d: f32, n: f32, a: f32) -> ThinFilm {
        ThinFilm::new(d, n, a).unwrap()
    }

    /// Soap-like, oil-like and strong films over plastic and metal.
    fn configs() -> Vec<(String, Iridescent)> {
        let mut v = Vec::new();
        for &(r, m, s) in &[
            (0.05f32, 0.0f32, 0.04f32),
            (0.3, 0.0, 0.04),
            (0.7, 0.0, 0.08),
            (0.2, 1.0, 0.04),
            (0.6, 1.0, 0.04),
            (0.4, 0.5, 0.04),
        ] {
            for &(d, n, a) in &[
                (300.0f32, 1.33f32, 1.0f32),
                (550.0, 2.0, 1.0),
                (200.0, 1.8, 0.5),
            ] {
                v.push((
                    format!("r {r} m {m} s {s} film {d} nm n {n} a {a}"),
                    Iridescent::new(Vec3::ONE, r, m, s, 5.0, film(d, n, a)),
                ));
            }
        }
        v
    }

    #[test]
    fn white_furnace_is_one_and_never_above() {
        let mut worst_low = 1.0f32;
        for (k, (name, b)) in configs().into_iter().enumerate() {
            for (j, &c) in [1.0f32, 0.7, 0.4, 0.15, 0.05].iter().enumerate() {
                let (a, se) = albedo(&b, dir(c, 0.4), 60_000, (k * 10 + j) as u64);
                assert!(
                    a.max_element() <= 1.0 + 4.0 * se + 1e-3,
                    "{name} cos {c}: {a} ± {se}"
                );
                // Lossless: the dielectric layer's loss goes to the white base, the metal's
                // to its multiple scattering (at 0.05 the metal's own table loses up to 1 %).
                assert!(
                    a.min_element() >= 0.985 - 4.0 * se,
                    "{name} cos {c}: {a} ± {se}"
                );
                worst_low = worst_low.min(a.min_element());
            }
        }
        eprintln!("iridescent white furnace: least albedo {worst_low:.4}");
    }

    #[test]
    fn table_bounds_the_layers_albedo() {
        // Off the nodes, against a finer quadrature: never below (that would let the base
        // give more than the layer passes) beyond the finer rule's own error, and not far
        // above away from the horizon (the first segment copies its upper node, so it
        // overstates the albedo within a few degrees of grazing: energy lost there).
        let (mut below, mut above) = (0.0f64, 0.0f64);
        for (name, b) in configs() {
            for i in 1..40 {
                let mu = (i as f64 / 40.0).powi(2);
                let truth = b.albedo_quadrature(mu, 48, 256);
                let table = b.e(mu as f32).as_dvec3();
                let d = table - truth;
                below = below.min(d.min_element());
                assert!(
                    d.min_element() >= -1.5e-3,
                    "{name} μ {mu}: {table} vs {truth}"
                );
                if mu >= 0.05 {
                    above = above.max(d.max_element());
                    assert!(d.max_element() <= 0.03, "{name} μ {mu}: {table} vs {truth}");
                }
            }
        }
        eprintln!(
            "iridescent albedo table − quadrature: least {below:.5}, most (μ ≥ 0.05) {above:.5}"
        );
    }

    #[test]
    fn reciprocal() {
        let mut rng = Rng::new(5);
        for (_, b) in configs() {
            for _ in 0..500 {
                assert_reciprocal(&b, rng.upper_dir(), rng.upper_dir());
            }
        }
    }

    #[test]
    fn sampling_passes_chi2() {
        for (k, (name, b)) in configs().into_iter().enumerate().step_by(2) {
            chi2_bxdf(&name, &b, dir(0.6, 0.2), 200_000, 1, 300 + k as u64);
        }
    }

    #[test]
    fn samples_repeat_the_evaluation() {
        let mut rng = Rng::new(9);
        for (_, b) in configs() {
            for _ in 0..300 {
                let wo = rng.upper_dir();
                if let Some(s) = b.sample_f(wo, rng.f32(), rng.vec2()) {
                    assert_sample_is_evaluation(&b, wo, &s);
                }
            }
        }
    }

    #[test]
    fn a_film_of_the_layers_index_is_plain() {
        // specular 0.04 is η = 1.5: a film of index 1.5 adds no interface, so the Fresnel is
        // the bare one, and `f` is plain's up to the two albedo tables (the per-material one
        // has 16 nodes and a margin, so the base differs near the horizon).
        let base = Vec3::new(0.7, 0.4, 0.2);
        let p = Plain::new(base, 0.35, 0.0, 0.04);
        let b = Iridescent::new(base, 0.35, 0.0, 0.04, 5.0, film(400.0, 1.5, 1.0));
        for i in 1..=50 {
            let c = i as f32 / 50.0;
            let want = fresnel::dielectric(c, 1.0 / 1.5);
            assert!(
                (b.dielectric_fresnel(c) - Vec3::splat(want))
                    .abs()
                    .max_element()
                    < 1e-5
            );
        }
        let mut rng = Rng::new(3);
        let mut worst = 0.0f32;
        for _ in 0..2000 {
            let (wo, wi) = (rng.upper_dir(), rng.upper_dir());
            if wo.z < 0.3 || wi.z < 0.3 {
                continue;
            }
            let (x, y) = (b.f(wo, wi), p.f(wo, wi));
            worst = worst.max(((x - y).abs() / y).max_element());
            assert!(
                (x - y).abs().max_element() <= 0.03 * y.max_element(),
                "{x} vs {y}"
            );
        }
        eprintln!("film of the layer's index vs plain: largest relative difference {worst:.4}");
    }

    #[test]
    fn the_film_colours_a_smooth_mirror_as_its_reflectance() {
        // A smooth white metal under a film of a finite-index-over-glass reflects the film's
        // reflectance over the F0-derived index in the mirror direction (albedo ≈ F_c(μ)).
        let f = film(380.0, 1.4, 1.0);
        let b = Iridescent::new(Vec3::new(0.9, 0.6, 0.3), 0.02, 1.0, 0.04, 5.0, f);
        let eta = Vec3::new(ior_from_f0(0.9), ior_from_f0(0.6), ior_from_f0(0.3));
        for &c in &[1.0f32, 0.7, 0.4] {
            let (a, _) = albedo(&b, dir(c, 0.0), 20_000, 7);
            let want = f.reflectance_per_channel(c, eta);
            assert!(
                (a - want).abs().max_element() < 0.01,
                "cos {c}: {a} vs {want}"
            );
        }
    }

    #[test]
    fn stays_small() {
        assert!(
            std::mem::size_of::<Iridescent>() <= 248,
            "{}",
            std::mem::size_of::<Iridescent>()
        );
    }

    #[test]
    fn odd_inputs_never_give_nan_or_inf() {
        let dirs = odd_dirs();
        let mut rng = Rng::new(11);
        for &a in &ODD_VALUES {
            for &b in &[0.0f32, 0.5, 1.0, f32::NAN] {
                let Some(f) = ThinFilm::new(if a > 0.0 { a } else { 300.0 }, a, 1.0) else {
                    continue;
                };
                let m = Iridescent::new(Vec3::new(a, b, 0.5), b, a, a, a, f);
                for &wo in &dirs {
                    for &wi in &dirs {
                        let (f, pdf) = m.f_pdf(wo, wi);
                        assert!(
                            f.is_finite()
                                && f.min_element() >= 0.0
                                && pdf.is_finite()
                                && pdf >= 0.0
                        );
                    }
                    if let Some(s) = m.sample_f(wo, rng.f32(), rng.vec2()) {
                        assert!(s.f.is_finite() && s.pdf.is_finite() && s.pdf > 0.0);
                    }
                }
            }
        }
    }
}
