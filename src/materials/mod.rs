//! Materials: the BSDF interface and its families.
//!
//! A [`Bxdf`] lives in local shading space; a [`Bsdf`] wraps one with the shading frame, the
//! two-sidedness of surfaces and the geometric-normal checks, in world space. Families form the
//! closed enum [`Bxdfs`] so per-ray code dispatches with a `match`, never through `dyn`.
//! Decisions are written up in `docs/materials.md`.

mod albedo;
pub mod coat;
pub mod conductor;
pub mod dielectric;
pub mod dispersive;
pub mod eon;
pub mod film;
pub mod film_glass;
pub mod fresnel;
pub mod ggx;
pub mod glass;
pub mod iridescent;
mod plain;
pub mod sheen;
mod sheen_albedo;
pub mod sheen_layer;
pub mod sheet;
#[cfg(test)]
pub(crate) mod testutil;
pub mod thin_wall;
pub mod translucent;
pub mod varying_film;

pub use coat::Coated;
pub use conductor::Conductor;
pub use dispersive::Dispersive;
pub use eon::Eon;
pub use film::ThinFilm;
pub use film_glass::FilmedGlass;
pub use glass::Glass;
pub use iridescent::Iridescent;
pub use plain::Plain;
pub use sheen::Sheen;
pub use sheen_layer::{SheenBase, Sheened};
pub use sheet::ThinSheet;
pub use thin_wall::ThinWall;
pub use translucent::{CoatedTranslucent, Translucent};
pub use varying_film::{UnderFilm, VaryingFilm};

use crate::geometry::Frame;
use crate::sampling::warp;
use glam::{Vec2, Vec3};

/// `x > 0`, false for NaN: the guard that keeps NaN inputs out of the formulas (written as a
/// function because `!(x > 0.0)` reads as a mistake).
#[inline]
pub(crate) fn positive(x: f32) -> bool {
    x > 0.0
}

/// A direction drawn by [`Bxdf::sample_f`] or [`Bsdf::sample_f`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BsdfSample {
    /// The sampled incident direction, unit, pointing away from the surface.
    pub wi: Vec3,
    /// The BSDF value at `(wo, wi)`, per steradian, cosine excluded.
    pub f: Vec3,
    /// The density with which `wi` was drawn, per steradian: the full mixture density over all
    /// of the BSDF's non-delta lobes, equal to `pdf(wo, wi)`, so it is right for MIS. For a
    /// delta lobe it is the discrete probability of having picked that lobe.
    pub pdf: f32,
    /// `wi` comes from a delta lobe (a perfect mirror or glass): MIS must not weight it, and
    /// `f`/`pdf` evaluated at `wi` would not reproduce it.
    pub specular: bool,
    /// `wi` was drawn by the cosine strategy (a base's diffuse lobe, or a conductor's
    /// diffuse-shaped multiple scattering): the path has bounced off a diffuse surface, after
    /// which `[trace] filter_glossy` roughens sharper lobes.
    pub diffuse: bool,
}

/// A BSDF in local shading space.
///
/// Conventions, shared by every implementation:
/// - local shading space has the shading normal on +Z;
/// - `wo` (towards the viewer) and `wi` (towards the light) are unit vectors pointing away
///   from the surface;
/// - `f` excludes the cosine factor: reflected radiance is `∫ f(wo, wi) Li(wi) |cos θi| dωi`;
/// - pdfs are per unit solid angle of `wi`;
/// - no method returns NaN or Inf, for any input.
pub trait Bxdf {
    /// The BSDF value for the pair `(wo, wi)`, per steradian.
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3;
    /// Draws `wi` given `wo`; `uc` picks a lobe and `u` the direction, all uniform in
    /// `[0, 1)`. `None` when nothing is reflected that way (the drawn direction is below the
    /// surface, or `f` is zero there); that outcome's probability is `1 − ∫ pdf`.
    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample>;
    /// The density, per steradian, with which [`Bxdf::sample_f`] draws `wi` given `wo`,
    /// excluding delta lobes. Integrates to at most 1.
    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32;
    /// `(f(wo, wi), pdf(wo, wi))` at once: what a light sample needs for MIS. Families
    /// override it to share the work (the half vector, albedo lookups).
    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        (self.f(wo, wi), self.pdf(wo, wi))
    }
}

/// The direction [`sample_cosine_or_ggx`] draws: the cosine strategy where `diffuse`, else the
/// mirror of `wo` about a GGX visible normal (possibly below the surface).
#[inline]
pub(crate) fn cosine_or_ggx_dir(wo: Vec3, diffuse: bool, ggx: &ggx::Ggx, u: Vec2) -> Vec3 {
    if diffuse {
        warp::cosine_hemisphere(u)
    } else {
        let m = ggx.sample_visible_normal(wo, u);
        2.0 * wo.dot(m) * m - wo
    }
}

/// A draw from a two-strategy reflection lobe (a cosine lobe and GGX visible normals, as
/// `plain` and `Conductor` mix them): `diffuse` picks the cosine strategy, `eval` gives
/// `(f, mixture pdf)` at the drawn direction. `None` below the surface or where nothing is
/// reflected.
pub(crate) fn sample_cosine_or_ggx(
    wo: Vec3,
    diffuse: bool,
    ggx: &ggx::Ggx,
    u: Vec2,
    eval: impl FnOnce(Vec3) -> (Vec3, f32),
) -> Option<BsdfSample> {
    let wi = cosine_or_ggx_dir(wo, diffuse, ggx, u);
    if !positive(wi.z) {
        return None;
    }
    let (f, pdf) = eval(wi);
    if !positive(pdf) || f == Vec3::ZERO || !f.is_finite() {
        return None;
    }
    Some(BsdfSample {
        wi,
        f,
        pdf,
        specular: false,
        diffuse,
    })
}

/// Every material family's BxDF: the closed set the integrator dispatches over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Bxdfs {
    /// The `plain` family: a dielectric layer over a Lambertian base, blended by metalness
    /// to a conductor.
    Plain(Plain),
    /// The `metal` and `chrome` families: a conductor.
    Conductor(Conductor),
    /// A clear coat over a `plain` base: the `lacquer` family, and any reflecting family
    /// with `clearcoat > 0`.
    Coated(Coated),
    /// The `glass` and `liquid` families: a tinted dielectric interface bounding a body.
    Glass(Glass),
    /// The `paper`, `petal` and `leaf` families: a thin sheet that reflects and transmits
    /// diffusely.
    ThinSheet(ThinSheet),
    /// The `plaster` and `stone` families: an energy-preserving rough diffuse (EON).
    RoughDiffuse(Eon),
    /// The `cloth` family: a sheen over a diffuse base.
    Cloth(Sheen),
    /// `plain` (and the conductors, as `plain` at metalness 1) under a thin film.
    Iridescent(Iridescent),
    /// `plain` (and every family drawn with it), the rough diffuse families and the sheens
    /// with `transmission > 0`: the base's reflection blended with a dielectric transmission
    /// into the body it bounds.
    Translucent(Translucent),
    /// `glass` and `liquid` with `dispersion > 0` (uncoated): one interface per colour
    /// channel.
    Dispersive(Dispersive),
    /// `glass` and `liquid` with `thickness > 0` (uncoated): a thin-walled dielectric, smooth
    /// or rough.
    ThinWall(ThinWall),
    /// Smooth uncoated `glass` and `liquid` under a thin film.
    FilmedGlass(FilmedGlass),
    /// Uncoated, opaque `plain`, `wood`, `bark`, `plaster`, `stone`, `metal` and `chrome` with
    /// `sheen > 0`: a Charlie sheen over the family's own base.
    Sheened(Sheened),
    /// The reflecting families drawn as `plain` under a clear coat (`lacquer`, or
    /// `clearcoat > 0`) with a share transmitted: the coat over a [`Translucent`] base.
    CoatedTranslucent(CoatedTranslucent),
}

impl Bxdfs {
    /// Whether light passes through the surface: its two sides are then different media, and
    /// [`Bsdf`] keeps the front face's orientation instead of reflecting on both sides.
    #[inline]
    pub fn transmits(&self) -> bool {
        matches!(
            self,
            Bxdfs::Glass(_)
                | Bxdfs::ThinSheet(_)
                | Bxdfs::Translucent(_)
                | Bxdfs::Dispersive(_)
                | Bxdfs::ThinWall(_)
                | Bxdfs::FilmedGlass(_)
                | Bxdfs::CoatedTranslucent(_)
        )
    }

    /// Whether the surface is the interface of a body: a transmission through it enters or
    /// leaves a medium (and scales radiance by the index ratio), and shadow rays may pass it
    /// (`[trace] transmissive_shadows`). A thin sheet transmits without bounding a body.
    #[inline]
    pub fn bounds_body(&self) -> bool {
        matches!(
            self,
            Bxdfs::Glass(_)
                | Bxdfs::Translucent(_)
                | Bxdfs::Dispersive(_)
                | Bxdfs::ThinWall(_)
                | Bxdfs::FilmedGlass(_)
                | Bxdfs::CoatedTranslucent(_)
        )
    }

    /// What a shadow ray keeps crossing the surface at cosine `cos` to its normal when
    /// `[trace] transmissive_shadows` lets it pass a body's interface; `None` for a surface
    /// that blocks it (see [`Glass::shadow_transmittance`]).
    #[inline]
    pub fn shadow_transmittance(&self, cos: f32) -> Option<Vec3> {
        match self {
            Bxdfs::Glass(g) => Some(g.shadow_transmittance(cos)),
            Bxdfs::Translucent(t) => Some(t.shadow_transmittance(cos)),
            Bxdfs::Dispersive(d) => Some(d.shadow_transmittance(cos)),
            Bxdfs::ThinWall(w) => Some(w.shadow_transmittance(cos)),
            Bxdfs::FilmedGlass(g) => Some(g.shadow_transmittance(cos)),
            Bxdfs::CoatedTranslucent(t) => Some(t.shadow_transmittance(cos)),
            _ => None,
        }
    }

    /// The surface's colour for a denoiser's albedo image (linear RGB, each channel in
    /// `[0, 1]`): the base colour of `plain` and of a coated base (the diffuse albedo and its
    /// metal's F0 are both the base), a conductor's reflectance at normal incidence, and a
    /// glass's tint (what it passes of what lies behind it, as OIDN advises for
    /// transmitters).
    pub fn albedo(&self) -> Vec3 {
        match self {
            Bxdfs::Plain(p) => p.base(),
            Bxdfs::Conductor(c) => c.fresnel(1.0).clamp(Vec3::ZERO, Vec3::ONE),
            Bxdfs::Coated(c) => c.base().base(),
            Bxdfs::Glass(g) => g.tint().clamp(Vec3::ZERO, Vec3::ONE),
            Bxdfs::ThinSheet(t) => t.base(),
            Bxdfs::RoughDiffuse(e) => e.base(),
            Bxdfs::Cloth(c) => c.base(),
            Bxdfs::Iridescent(i) => i.base(),
            Bxdfs::Translucent(t) => t.base().albedo(),
            Bxdfs::Dispersive(d) => d.tint(),
            // What the wall passes head on.
            Bxdfs::ThinWall(w) => w.split(1.0).1.clamp(Vec3::ZERO, Vec3::ONE),
            Bxdfs::FilmedGlass(g) => g.tint(),
            Bxdfs::Sheened(s) => s.base().albedo(),
            Bxdfs::CoatedTranslucent(t) => t.translucent().base().albedo(),
        }
    }

    /// The roughness the surface is drawn with, in `[0, 1]`: `√α` of its GGX lobe (the
    /// format's `roughness`, after the model's clamp); for a coated surface its base's, the
    /// coat having its own. What the plate's roughness pass writes.
    pub fn roughness(&self) -> f32 {
        let alpha = match self {
            Bxdfs::Plain(p) => p.alpha(),
            Bxdfs::Conductor(c) => c.alpha(),
            Bxdfs::Coated(c) => c.base().alpha(),
            Bxdfs::Glass(g) => g.alpha(),
            // Not GGX lobes: the format's `roughness` as each model reads it (a thin sheet
            // scatters diffusely, as rough as a surface gets).
            Bxdfs::ThinSheet(_) => return 1.0,
            Bxdfs::RoughDiffuse(e) => return e.roughness(),
            Bxdfs::Cloth(c) => c.alpha(),
            Bxdfs::Iridescent(i) => i.alpha(),
            Bxdfs::Translucent(t) => return t.base().roughness(),
            Bxdfs::Dispersive(d) => d.interface().alpha(),
            // 0 for smooth faces.
            Bxdfs::ThinWall(w) => w.alpha(),
            // A smooth interface.
            Bxdfs::FilmedGlass(_) => return 0.0,
            // The base's, as for the bare base (the sheen's own roughness is fixed or glTF's).
            Bxdfs::Sheened(s) => return s.base().roughness(),
            // The base's, as for a coated opaque base.
            Bxdfs::CoatedTranslucent(t) => return t.translucent().base().roughness(),
        };
        alpha.clamp(0.0, 1.0).sqrt()
    }
}

/// What Beer–Lambert absorption of coefficient `sigma` (per scene unit and channel) keeps over
/// `dist` scene units: `exp(−sigma·dist)`, 1 where a channel does not absorb (also over an
/// infinite distance), 0 where it does and `dist` is infinite.
#[inline]
pub fn beer_lambert(sigma: Vec3, dist: f32) -> Vec3 {
    let keep = |s: f32| if s > 0.0 { (-s * dist).exp() } else { 1.0 };
    Vec3::new(keep(sigma.x), keep(sigma.y), keep(sigma.z))
}

/// Forwards one `Bxdf` method to the variant's own.
macro_rules! dispatch {
    ($self:ident, $b:ident => $e:expr) => {
        match $self {
            Bxdfs::Plain($b) => $e,
            Bxdfs::Conductor($b) => $e,
            Bxdfs::Coated($b) => $e,
            Bxdfs::Glass($b) => $e,
            Bxdfs::ThinSheet($b) => $e,
            Bxdfs::RoughDiffuse($b) => $e,
            Bxdfs::Cloth($b) => $e,
            Bxdfs::Iridescent($b) => $e,
            Bxdfs::Translucent($b) => $e,
            Bxdfs::Dispersive($b) => $e,
            Bxdfs::ThinWall($b) => $e,
            Bxdfs::FilmedGlass($b) => $e,
            Bxdfs::Sheened($b) => $e,
            Bxdfs::CoatedTranslucent($b) => $e,
        }
    };
}

impl Bxdf for Bxdfs {
    #[inline]
    fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        dispatch!(self, b => b.f(wo, wi))
    }

    #[inline]
    fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        dispatch!(self, b => b.sample_f(wo, uc, u))
    }

    #[inline]
    fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        dispatch!(self, b => b.pdf(wo, wi))
    }

    #[inline]
    fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        dispatch!(self, b => b.f_pdf(wo, wi))
    }
}

impl Bxdfs {
    /// `f_pdf` with a clear coat's own shading normal `coat_n` (unit, in the local frame of
    /// the base's): a [`Coated`] evaluates its coat in that frame (`coat::tilted`,
    /// docs/materials.md "A coat's own normal"); every other BxDF has no coat and ignores it.
    pub fn f_pdf_coat_normal(&self, wo: Vec3, wi: Vec3, coat_n: Vec3) -> (Vec3, f32) {
        match self {
            Bxdfs::Coated(c) => c.f_pdf_tilted(wo, wi, coat_n),
            _ => self.f_pdf(wo, wi),
        }
    }

    /// `sample_f` with a clear coat's own shading normal `coat_n` (see
    /// [`Bxdfs::f_pdf_coat_normal`]).
    pub fn sample_f_coat_normal(
        &self,
        wo: Vec3,
        uc: f32,
        u: Vec2,
        coat_n: Vec3,
    ) -> Option<BsdfSample> {
        match self {
            Bxdfs::Coated(c) => c.sample_f_tilted(wo, uc, u, coat_n),
            _ => self.sample_f(wo, uc, u),
        }
    }
}

/// The least cosine between `wo` and the shading normal: a shading normal that `wo` is
/// below, or nearly so (interpolated normals at silhouettes), is bent towards `wo` until this
/// cosine is reached, so that such points are shaded rather than black.
const SHADING_COS_MIN: f32 = 1e-2;

/// A [`Bxdf`] in world space at one surface point.
///
/// A reflecting surface reflects on both sides: the geometric normal is flipped to the viewer's
/// side and the shading normal to the geometric normal's, and light from below the (flipped)
/// geometric normal is never reflected, whatever the shading normal says, so nothing leaks
/// through a surface. A transmitting one ([`Bxdfs::transmits`]) keeps the front face's
/// orientation, since its sides are different media (the front is the outside): the local
/// BxDF sees `wo` on either side, and a pair counts only when the geometry and the shading
/// frame agree on whether it is a reflection or a transmission. The integrator weights `f` by
/// `|wi · shading_normal()|`.
#[derive(Clone, Copy, Debug)]
pub struct Bsdf<'a> {
    /// Geometric normal: on `wo`'s side for a reflecting BxDF, the front face's for a
    /// transmitting one.
    ng: Vec3,
    /// Shading frame; its `n` is on `ng`'s side.
    frame: Frame,
    /// The local BxDF, borrowed from its material (a `Bxdfs` is up to 248 bytes: copying it
    /// per path vertex showed in the profile).
    bxdf: &'a Bxdfs,
    /// `bxdf.transmits()`, kept to choose the geometric test without a `match`.
    transmits: bool,
    /// A clear coat's own shading normal in `frame` (unit), where it is not the frame's
    /// (see [`Bsdf::with_coat_normal`]).
    coat_n: Option<Vec3>,
}

impl<'a> Bsdf<'a> {
    /// `ng`: geometric normal of the front face, `ns`: shading normal (both unit, world),
    /// `wo`: towards the viewer. A reflecting BxDF has both normals flipped to `wo`'s side of
    /// `ng`; `ns` is always flipped to `ng`'s side. A zero or non-finite `ns` is replaced by
    /// `ng`, and a zero or non-finite `ng` by `ns` (by +Z if both are).
    // Inlined into the path loop, whatever other callers exist (measured: out of line,
    // a Cornell sample takes 1.6 % more instructions).
    #[inline(always)]
    pub fn new(ng: Vec3, ns: Vec3, wo: Vec3, bxdf: &'a Bxdfs) -> Bsdf<'a> {
        let ng_ok = ng.normalize_or_zero();
        let ns_ok = ns.normalize_or_zero();
        let ng = if ng_ok != Vec3::ZERO {
            ng_ok
        } else if ns_ok != Vec3::ZERO {
            ns_ok
        } else {
            Vec3::Z
        };
        let ns = if ns_ok != Vec3::ZERO { ns_ok } else { ng };
        Bsdf::from_unit(ng, ns, wo.normalize_or_zero(), bxdf)
    }

    /// [`Bsdf::new`] for normals that are already unit and finite (`ng`, `ns`, as the
    /// integrator's surface query gives them) and a `wo` that is unit or zero: the same
    /// flips and bend, without renormalising what is normalised already (three
    /// normalisations were a twentieth of a Cornell vertex's instructions).
    #[inline(always)]
    pub fn from_unit(mut ng: Vec3, mut ns: Vec3, wo: Vec3, bxdf: &'a Bxdfs) -> Bsdf<'a> {
        let transmits = bxdf.transmits();
        if !transmits && ng.dot(wo) < 0.0 {
            ng = -ng;
        }
        if ns.dot(ng) < 0.0 {
            ns = -ns;
        }
        // Bend: ns + t·s·wo, with s = ±1 the side of ng that wo is on, and t chosen so the
        // (unnormalised) cosine s·(ns·wo) is SHADING_COS_MIN. It is continuous (t = 0 at the
        // threshold) and stays on ng's side, as ns and s·wo both are.
        let side = if ng.dot(wo) < 0.0 { -1.0 } else { 1.0 };
        let c = side * ns.dot(wo);
        if c < SHADING_COS_MIN && wo != Vec3::ZERO {
            ns = (ns + (side * (SHADING_COS_MIN - c)) * wo).normalize_or(ng);
        }
        Bsdf {
            ng,
            frame: Frame::from_normal(ns),
            bxdf,
            transmits,
            coat_n: None,
        }
    }

    /// This BSDF with a clear coat of world shading normal `n` (unit) unlike the base's: a
    /// coated BxDF evaluates its coat in `n`'s frame (glTF's `clearcoatNormalTexture`, or a
    /// base normal map under a coat that keeps the geometry's normal). `n` is flipped to the
    /// shading normal's side, as the shading normal is to the viewer's; a BxDF without a coat,
    /// or an `n` that is the shading normal or degenerate, leaves the BSDF as it is.
    pub fn with_coat_normal(mut self, n: Vec3) -> Bsdf<'a> {
        if !matches!(self.bxdf, Bxdfs::Coated(_)) {
            return self;
        }
        let n = if n.dot(self.frame.n) < 0.0 { -n } else { n };
        let local = self.frame.to_local(n).normalize_or_zero();
        if local == Vec3::ZERO || !local.is_finite() || local.z >= 1.0 {
            return self;
        }
        self.coat_n = Some(local);
        self
    }

    /// The local BxDF's `f_pdf` (with the coat's own normal where it has one).
    #[inline]
    fn local_f_pdf(&self, lo: Vec3, li: Vec3) -> (Vec3, f32) {
        match self.coat_n {
            None => self.bxdf.f_pdf(lo, li),
            Some(n) => self.bxdf.f_pdf_coat_normal(lo, li, n),
        }
    }

    /// The local BxDF's `f` (with the coat's own normal where it has one).
    #[inline]
    fn local_f(&self, lo: Vec3, li: Vec3) -> Vec3 {
        match self.coat_n {
            None => self.bxdf.f(lo, li),
            Some(n) => self.bxdf.f_pdf_coat_normal(lo, li, n).0,
        }
    }

    /// The geometric normal: flipped to the viewer's side for a reflecting BxDF, the front
    /// face's for a transmitting one.
    pub fn geometric_normal(&self) -> Vec3 {
        self.ng
    }

    /// The shading normal in use (flipped to the geometric normal's side, and bent if the
    /// viewer was below it): the cosine factor of the rendering equation is taken against it.
    pub fn shading_normal(&self) -> Vec3 {
        self.frame.n
    }

    /// Whether the BxDF transmits ([`Bxdfs::transmits`], kept from construction).
    #[inline]
    pub fn transmits(&self) -> bool {
        self.transmits
    }

    /// The local BxDF.
    pub fn bxdf(&self) -> &'a Bxdfs {
        self.bxdf
    }

    /// Whether the pair `(wo, wi)` may scatter as the geometry sees it: `wi` above the plane
    /// for a reflecting BxDF; for a transmitting one, both off the plane and on the same sides
    /// of the geometric plane as of the shading plane (a shading normal tilted from the
    /// geometric one must not turn a reflection into a transmission, or the reverse).
    #[inline]
    fn admits(&self, wo: Vec3, wi: Vec3, lo: Vec3, li: Vec3) -> bool {
        let gi = wi.dot(self.ng);
        if !self.transmits {
            return positive(gi);
        }
        let go = wo.dot(self.ng);
        go != 0.0 && gi != 0.0 && (go * gi > 0.0) == (lo.z * li.z > 0.0)
    }

    /// The BSDF value, per steradian, cosine excluded; zero for a pair the geometry does not
    /// admit (see [`Bsdf::new`]).
    pub fn f(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        if !self.transmits && !positive(wi.dot(self.ng)) {
            return Vec3::ZERO;
        }
        let (lo, li) = (self.frame.to_local(wo), self.frame.to_local(wi));
        if !self.admits(wo, wi, lo, li) {
            return Vec3::ZERO;
        }
        self.local_f(lo, li)
    }

    /// Whether `wi` is at or below the geometric plane of a reflecting BxDF: [`Bsdf::f`] is
    /// zero there (see [`Bsdf::new`]).
    #[inline]
    pub fn below_horizon(&self, wi: Vec3) -> bool {
        !self.transmits && !positive(wi.dot(self.ng))
    }

    /// The reflecting BxDF's value for `wi` below the geometric plane but above the shading
    /// hemisphere (the lobe's own test), for the smooth-triangle terminator fix alone
    /// (docs/materials.md, "Shadow terminator"): its caller lifts the shadow ray's origin to
    /// the smooth surface. Zero for a transmitting BxDF and for `wi` below the shading plane.
    pub fn f_shading(&self, wo: Vec3, wi: Vec3) -> Vec3 {
        if self.transmits {
            return Vec3::ZERO;
        }
        self.local_f(self.frame.to_local(wo), self.frame.to_local(wi))
    }

    /// Draws a world-space `wi`; `None` when the drawn direction is not scattered (including
    /// any the geometry does not admit).
    // Inlined into the path loop, whatever other callers exist (measured: out of line,
    // a Cornell sample takes 1.6 % more instructions).
    #[inline(always)]
    pub fn sample_f(&self, wo: Vec3, uc: f32, u: Vec2) -> Option<BsdfSample> {
        let lo = self.frame.to_local(wo);
        let s = match self.coat_n {
            None => self.bxdf.sample_f(lo, uc, u)?,
            Some(n) => self.bxdf.sample_f_coat_normal(lo, uc, u, n)?,
        };
        let wi = self.frame.to_world(s.wi);
        if !self.admits(wo, wi, lo, s.wi) {
            return None;
        }
        Some(BsdfSample { wi, ..s })
    }

    /// `(f(wo, wi), pdf(wo, wi))` at once, at about the cost of one of them.
    // Inlined into the path loop's next-event estimation (its frame changes and geometric
    // test are shared with the loop's own), as `sample_f` is.
    #[inline(always)]
    pub fn f_pdf(&self, wo: Vec3, wi: Vec3) -> (Vec3, f32) {
        if !self.transmits && !positive(wi.dot(self.ng)) {
            return (Vec3::ZERO, 0.0);
        }
        let (lo, li) = (self.frame.to_local(wo), self.frame.to_local(wi));
        if !self.admits(wo, wi, lo, li) {
            return (Vec3::ZERO, 0.0);
        }
        self.local_f_pdf(lo, li)
    }

    /// The density of [`Bsdf::sample_f`] returning `wi`, per steradian: zero where the
    /// geometry does not admit the pair, where it never returns one.
    pub fn pdf(&self, wo: Vec3, wi: Vec3) -> f32 {
        if !self.transmits && !positive(wi.dot(self.ng)) {
            return 0.0;
        }
        let (lo, li) = (self.frame.to_local(wo), self.frame.to_local(wi));
        if !self.admits(wo, wi, lo, li) {
            return 0.0;
        }
        match self.coat_n {
            None => self.bxdf.pdf(lo, li),
            Some(n) => self.bxdf.f_pdf_coat_normal(lo, li, n).1,
        }
    }

    /// `η_i/η_o` of a transmission from `wo` to `wi` (1 for a reflection or a BxDF that does
    /// not transmit): the factor by whose square radiance throughput shrank at this vertex
    /// (see [`dielectric::Dielectric::relative_eta`]).
    pub fn relative_eta(&self, wo: Vec3, wi: Vec3) -> f32 {
        match self.bxdf {
            Bxdfs::Glass(g) => g
                .interface()
                .relative_eta(self.frame.to_local(wo), self.frame.to_local(wi)),
            Bxdfs::Translucent(t) => t
                .interface()
                .relative_eta(self.frame.to_local(wo), self.frame.to_local(wi)),
            Bxdfs::Dispersive(d) => d
                .interface()
                .relative_eta(self.frame.to_local(wo), self.frame.to_local(wi)),
            Bxdfs::FilmedGlass(g) => g
                .interface()
                .relative_eta(self.frame.to_local(wo), self.frame.to_local(wi)),
            _ => 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::{chi2_test, Rng};
    use super::*;

    /// A plastic BxDF that outlives the test (a `Bsdf` borrows its BxDF).
    fn plastic() -> &'static Bxdfs {
        Box::leak(Box::new(Bxdfs::Plain(Plain::new(
            Vec3::new(0.8, 0.5, 0.2),
            0.4,
            0.0,
            0.04,
        ))))
    }

    /// `from_unit` (the path loop's constructor) is `new` without the renormalising: for unit
    /// inputs the same flips, bend and frame, so the same values up to rounding.
    #[test]
    fn from_unit_is_new_for_unit_normals() {
        let mut rng = Rng::new(23);
        for k in 0..4000 {
            let ng = rng.sphere_dir();
            // Shading normals near the geometric one, some beyond it, on either side.
            let ns = (ng + 0.6 * rng.sphere_dir()).normalize();
            let ns = if k % 5 == 0 { -ns } else { ns };
            let wo = rng.sphere_dir();
            let (a, b) = (
                Bsdf::new(ng, ns, wo, plastic()),
                Bsdf::from_unit(ng, ns, wo, plastic()),
            );
            assert!(
                (a.shading_normal() - b.shading_normal()).length() < 1e-6,
                "{k}"
            );
            assert_eq!(a.below_horizon(wo), b.below_horizon(wo));
            let wi = rng.sphere_dir();
            let ((fa, pa), (fb, pb)) = (a.f_pdf(wo, wi), b.f_pdf(wo, wi));
            assert!(
                (fa - fb).abs().max_element() <= 1e-5 * fa.max_element().max(1.0),
                "{k}"
            );
            assert!((pa - pb).abs() <= 1e-5 * pa.max(1.0), "{k}");
        }
    }

    #[test]
    fn matches_the_local_bxdf_in_a_rotated_frame() {
        let mut rng = Rng::new(21);
        for _ in 0..2000 {
            let n = rng.sphere_dir();
            let frame = Frame::from_normal(n);
            // Views within SHADING_COS_MIN of the horizon are bent; keep clear of them here.
            let (lo, li) = (rng.upper_dir(), rng.upper_dir());
            if lo.z < 2.0 * SHADING_COS_MIN {
                continue;
            }
            let (wo, wi) = (frame.to_world(lo), frame.to_world(li));
            let bsdf = Bsdf::new(n, n, wo, plastic());
            let (a, b) = (bsdf.f(wo, wi), plastic().f(lo, li));
            assert!(
                (a - b).abs().max_element() <= 1e-4 * b.max_element().max(1e-6),
                "{a} vs {b}"
            );
            let (pa, pb) = (bsdf.pdf(wo, wi), plastic().pdf(lo, li));
            assert!((pa - pb).abs() <= 1e-4 * pb.max(1e-6));
        }
    }

    #[test]
    fn both_sides_reflect_and_nothing_leaks_through() {
        let ng = Vec3::Z;
        let below = Vec3::new(0.3, 0.1, -0.9).normalize();
        let below_too = Vec3::new(-0.4, 0.2, -0.7).normalize();
        let above = Vec3::new(0.2, -0.3, 0.8).normalize();
        // Viewed from below: the surface reflects into the lower half and nothing from above.
        let bsdf = Bsdf::new(ng, ng, below, plastic());
        assert_eq!(bsdf.geometric_normal(), -Vec3::Z);
        assert_eq!(bsdf.shading_normal(), -Vec3::Z);
        let from_below = bsdf.f(below, below_too);
        let mirrored = Bsdf::new(ng, ng, -below, plastic()).f(-below, -below_too);
        assert!(from_below.max_element() > 0.0);
        assert!((from_below - mirrored).abs().max_element() < 1e-6 * mirrored.max_element());
        assert_eq!(bsdf.f(below, above), Vec3::ZERO);
        assert_eq!(bsdf.pdf(below, above), 0.0);
        // A shading normal given on the far side is flipped too.
        let flipped = Bsdf::new(ng, -ng, above, plastic());
        assert_eq!(flipped.shading_normal(), Vec3::Z);
        assert!(flipped.f(above, Vec3::new(0.0, 0.6, 0.8)).max_element() > 0.0);
    }

    #[test]
    fn tilted_shading_normal_never_reflects_from_below_the_geometry() {
        // The shading normal leans 60° from the geometric one: some directions are above the
        // shading hemisphere but below the surface, and must get nothing.
        let ng = Vec3::Z;
        let ns = Vec3::new(0.866, 0.0, 0.5);
        let wo = Vec3::new(0.5, 0.0, 0.866);
        let bsdf = Bsdf::new(ng, ns, wo, plastic());
        let leak = Vec3::new(0.9, 0.0, -0.1).normalize();
        assert!(leak.dot(bsdf.shading_normal()) > 0.0);
        assert_eq!(bsdf.f(wo, leak), Vec3::ZERO);
        assert_eq!(bsdf.pdf(wo, leak), 0.0);
        let mut rng = Rng::new(4);
        let mut kept = 0;
        for _ in 0..100_000 {
            if let Some(s) = bsdf.sample_f(wo, rng.f32(), rng.vec2()) {
                assert!(s.wi.dot(ng) > 0.0 && s.f.is_finite() && s.pdf.is_finite());
                // Equal up to the rounding of a local→world→local round trip.
                let (f, pdf) = (bsdf.f(wo, s.wi), bsdf.pdf(wo, s.wi));
                assert_eq!(bsdf.f_pdf(wo, s.wi), (f, pdf));
                assert!(
                    (s.f - f).abs().max_element() <= 1e-4 * f.max_element(),
                    "{} vs {f}",
                    s.f
                );
                assert!((s.pdf - pdf).abs() <= 1e-4 * pdf, "{} vs {pdf}", s.pdf);
                kept += 1;
            }
        }
        assert!(kept > 50_000, "{kept}");
    }

    /// The terminator fix's own evaluation: below the geometric plane `f` stays zero, while
    /// `f_shading` is the lobe about the shading normal (the local BxDF's value), zero below the
    /// shading plane and for a transmitting BxDF.
    #[test]
    fn below_the_horizon_only_f_shading_reflects() {
        let ng = Vec3::Z;
        let ns = Vec3::new(0.5, 0.0, 0.866).normalize();
        let wo = Vec3::new(-0.3, 0.2, 0.9).normalize();
        let bsdf = Bsdf::new(ng, ns, wo, plastic());
        let band = Vec3::new(0.95, 0.0, -0.1).normalize();
        assert!(band.dot(bsdf.shading_normal()) > 0.0 && bsdf.below_horizon(band));
        assert_eq!(bsdf.f(wo, band), Vec3::ZERO);
        let frame = Frame::from_normal(bsdf.shading_normal());
        let want = plastic().f(frame.to_local(wo), frame.to_local(band));
        assert!(want.max_element() > 0.0);
        assert_eq!(bsdf.f_shading(wo, band), want);
        let under = Vec3::new(-0.2, 0.0, -0.98).normalize();
        assert!(bsdf.below_horizon(under) && bsdf.f_shading(wo, under) == Vec3::ZERO);
        assert!(!bsdf.below_horizon(wo));
        let glass: &'static Bxdfs = Box::leak(Box::new(Bxdfs::Glass(
            crate::materials::Glass::new(1.5, 0.3, Vec3::ONE),
        )));
        let through = Bsdf::new(ng, ns, wo, glass);
        assert!(!through.below_horizon(band));
        assert_eq!(through.f_shading(wo, band), Vec3::ZERO);
    }

    #[test]
    fn viewer_below_the_shading_normal_is_bent_not_black() {
        let ng = Vec3::Z;
        let ns = Vec3::new(0.6, 0.0, 0.8);
        // Perpendicular to ns, then pushed below it; still above ng.
        let wo = (Vec3::new(-0.8, 0.0, 0.6) - 0.05 * ns).normalize();
        assert!(wo.dot(ns) < 0.0 && wo.dot(ng) > 0.0);
        let bsdf = Bsdf::new(ng, ns, wo, plastic());
        let c = wo.dot(bsdf.shading_normal());
        // δ/|ns + t·wo|, and |ns + t·wo| ≥ √(1 − c²) is close to 1 here.
        assert!(
            c > 0.5 * SHADING_COS_MIN && c <= 1.1 * SHADING_COS_MIN,
            "{c}"
        );
        assert!(bsdf.shading_normal().dot(ng) > 0.0);
        assert!(bsdf.f(wo, Vec3::Z).max_element() > 0.0);
    }

    #[test]
    fn degenerate_normals_and_directions_stay_finite() {
        let bad = [
            Vec3::ZERO,
            Vec3::NAN,
            Vec3::INFINITY,
            Vec3::new(1e-30, 0.0, 0.0),
            Vec3::Z,
            -Vec3::X,
        ];
        let mut rng = Rng::new(8);
        for &ng in &bad {
            for &ns in &bad {
                for &wo in &bad {
                    let bsdf = Bsdf::new(ng, ns, wo, plastic());
                    assert!(
                        bsdf.shading_normal().is_finite() && bsdf.geometric_normal().is_finite()
                    );
                    for &wi in &bad {
                        assert!(bsdf.f(wo, wi).is_finite() && bsdf.pdf(wo, wi).is_finite());
                    }
                    for _ in 0..16 {
                        if let Some(s) = bsdf.sample_f(wo, rng.f32(), rng.vec2()) {
                            assert!(s.wi.is_finite() && s.f.is_finite() && s.pdf.is_finite());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn world_sampling_passes_chi2_with_a_tilted_shading_normal() {
        // The wrapper's cut at the geometric normal must show in both the samples and the pdf.
        let ng = Vec3::Z;
        let ns = Vec3::new(0.5, 0.0, 0.866);
        let wo = Vec3::new(-0.3, 0.4, 0.866).normalize();
        let configs = [
            Bxdfs::Plain(Plain::new(Vec3::splat(0.6), 0.5, 0.0, 0.04)),
            Bxdfs::Plain(Plain::new(Vec3::new(0.95, 0.64, 0.54), 0.4, 1.0, 0.04)),
        ];
        for (i, b) in configs.into_iter().enumerate() {
            let bsdf = Bsdf::new(ng, ns, wo, &b);
            let integral = chi2_test(
                &format!("world {i}"),
                |u, uc| bsdf.sample_f(wo, uc, u).map(|s| s.wi),
                |wi| bsdf.pdf(wo, wi) as f64,
                400_000,
                2,
                40 + i as u64,
            );
            assert!(integral < 1.0, "{integral}");
        }
    }

    /// A glass BxDF that outlives the test.
    fn glass(roughness: f32) -> &'static Bxdfs {
        Box::leak(Box::new(Bxdfs::Glass(Glass::new(
            1.5,
            roughness,
            Vec3::ONE,
        ))))
    }

    #[test]
    fn glass_keeps_the_front_face_and_sees_wo_from_both_sides() {
        let ng = Vec3::Z;
        let outside = Vec3::new(0.3, 0.1, 0.9).normalize();
        let inside = Vec3::new(-0.2, 0.3, -0.9).normalize();
        for wo in [outside, inside] {
            let bsdf = Bsdf::new(ng, ng, wo, glass(0.4));
            assert_eq!(bsdf.geometric_normal(), Vec3::Z);
            assert_eq!(bsdf.shading_normal(), Vec3::Z);
            // The world wrapper equals the local interface: no flip for either side.
            let g = glass(0.4);
            for wi in [outside, inside, -outside, -inside] {
                assert_eq!(bsdf.f_pdf(wo, wi), g.f_pdf(wo, wi));
            }
        }
        // Entering: η_i/η_o = 1.5; leaving: 1/1.5; reflecting: 1.
        let bsdf = Bsdf::new(ng, ng, outside, glass(0.4));
        assert_eq!(bsdf.relative_eta(outside, inside), 1.5);
        assert_eq!(bsdf.relative_eta(inside, outside), 1.0 / 1.5);
        assert_eq!(bsdf.relative_eta(outside, outside), 1.0);
        // A reflecting family viewed from below is flipped as before.
        let plain = Bsdf::new(ng, ng, inside, plastic());
        assert_eq!(plain.geometric_normal(), -Vec3::Z);
    }

    #[test]
    fn a_tilted_shading_normal_never_swaps_reflection_and_transmission() {
        // The shading normal leans 60°: directions exist that the shading frame calls a
        // transmission and the geometry a reflection, or the reverse; they must get nothing.
        let ng = Vec3::Z;
        let ns = Vec3::new(0.866, 0.0, 0.5);
        let mut rng = Rng::new(17);
        for wo in [
            Vec3::new(0.5, 0.0, 0.866),
            Vec3::new(-0.3, 0.2, -0.9).normalize(),
        ] {
            let bsdf = Bsdf::new(ng, ns, wo, glass(0.5));
            let sn = bsdf.shading_normal();
            let mut checked = 0;
            for _ in 0..20_000 {
                let wi = rng.sphere_dir();
                let geometric = wo.dot(ng) * wi.dot(ng) > 0.0;
                let shading = wo.dot(sn) * wi.dot(sn) > 0.0;
                if geometric != shading {
                    assert_eq!(bsdf.f(wo, wi), Vec3::ZERO);
                    assert_eq!(bsdf.pdf(wo, wi), 0.0);
                    checked += 1;
                }
            }
            assert!(checked > 1000, "{checked}");
            for _ in 0..20_000 {
                if let Some(s) = bsdf.sample_f(wo, rng.f32(), rng.vec2()) {
                    let geometric = wo.dot(ng) * s.wi.dot(ng) > 0.0;
                    let shading = wo.dot(sn) * s.wi.dot(sn) > 0.0;
                    assert_eq!(geometric, shading);
                    assert!(s.f.is_finite() && s.pdf.is_finite());
                }
            }
        }
    }

    #[test]
    fn world_glass_sampling_passes_chi2_from_both_sides() {
        let ng = Vec3::Z;
        let ns = Vec3::new(0.3, 0.0, 0.954).normalize();
        let views = [
            Vec3::new(-0.3, 0.4, 0.866).normalize(),
            Vec3::new(0.4, -0.2, -0.894).normalize(),
        ];
        for (i, wo) in views.into_iter().enumerate() {
            let bsdf = Bsdf::new(ng, ns, wo, glass(0.5));
            let integral = chi2_test(
                &format!("world glass {i}"),
                |u, uc| bsdf.sample_f(wo, uc, u).map(|s| s.wi),
                |wi| bsdf.pdf(wo, wi) as f64,
                400_000,
                2,
                60 + i as u64,
            );
            assert!(integral <= 1.0 + 1e-3, "{integral}");
        }
    }

    #[test]
    fn every_family_bxdf_stays_finite_in_the_world_wrapper() {
        let bad = [
            Vec3::ZERO,
            Vec3::NAN,
            Vec3::Z,
            -Vec3::X,
            Vec3::new(1e-30, 0.0, -1.0),
        ];
        let models = [
            plastic(),
            &Bxdfs::Conductor(Conductor::new(Vec3::new(1.0, 0.7, 0.3), 0.3)),
            glass(0.0),
            glass(0.4),
            &Bxdfs::ThinSheet(ThinSheet::new(Vec3::new(0.8, 0.6, 0.3), 0.4)),
            &Bxdfs::RoughDiffuse(Eon::new(Vec3::new(0.8, 0.6, 0.3), 0.7)),
            &Bxdfs::Cloth(Sheen::new(Vec3::new(0.8, 0.6, 0.3), 1.0, 0.6)),
            &Bxdfs::Translucent(
                Translucent::sheen(Vec3::new(0.8, 0.6, 0.3), 1.0, 0.6, 0.04, 0.5, Vec3::ONE)
                    .unwrap(),
            ),
            &Bxdfs::Translucent(
                Translucent::rough_diffuse(Vec3::new(0.8, 0.6, 0.3), 0.7, 0.04, 0.5, Vec3::ONE)
                    .unwrap(),
            ),
            &Bxdfs::ThinWall(ThinWall::new(1.5, Vec3::ZERO, 0.01, Vec3::ONE, 0.4)),
            &Bxdfs::FilmedGlass(
                FilmedGlass::new(
                    1.5,
                    0.0,
                    Vec3::ONE,
                    ThinFilm::new(300.0, 1.33, 1.0).unwrap(),
                )
                .unwrap(),
            ),
        ];
        let mut rng = Rng::new(23);
        for b in models {
            for &ng in &bad {
                for &wo in &bad {
                    let bsdf = Bsdf::new(ng, Vec3::Y, wo, b);
                    for &wi in &bad {
                        assert!(bsdf.f(wo, wi).is_finite() && bsdf.pdf(wo, wi).is_finite());
                        assert!(bsdf.relative_eta(wo, wi).is_finite());
                    }
                    for _ in 0..16 {
                        if let Some(s) = bsdf.sample_f(wo, rng.f32(), rng.vec2()) {
                            assert!(s.wi.is_finite() && s.f.is_finite() && s.pdf.is_finite());
                        }
                    }
                }
            }
        }
    }
}
