//! Asset loading: triangle meshes from glTF 2.0 files ([`load_gltf`]), equirectangular
//! Radiance HDR sky maps ([`load_hdr`]) and TrueType/OpenType fonts ([`load_font`]).
//!
//! Both loaders read untrusted files: every size read from a file is checked before it sizes an
//! allocation, malformed input is an [`AssetError`], never a panic, and every number handed on is
//! finite. The decisions where neither the pfx-scene spec nor glTF settles a question are written
//! down in `docs/assets.md`.
//!
//! Units: glTF files are in metres (glTF 2.0 §3.3), and positions are passed on unscaled. HDR
//! texels are linear RGB radiance in the file's own (relative) units, W·sr⁻¹·m⁻² by Radiance
//! convention.

use glam::{Mat4, Vec2, Vec3, Vec4};
use std::fmt;
use std::path::{Path, PathBuf};

pub mod font;
mod gltf;
mod hdr;
mod material;
mod texture;

pub use self::font::{load_font, Font};
pub use self::gltf::{load_gltf, SUPPORTED_REQUIRED_EXTENSIONS};
pub use self::hdr::{load_hdr, MAX_HDR_HEIGHT, MAX_HDR_WIDTH};
pub use self::material::{GltfMaterial, NormalTexture, DEFAULT_IOR};
pub use self::texture::{
    decode_alpha, decode_rgba, decode_rgba_shared, AlphaTexture, Coverage, Decode, Filter, Mip,
    MipLevel, MipPyramid, TextureImage, TextureRef, UvFootprint, UvTransform, Wrap, MAX_ANISOTROPY,
    MAX_TEXTURE_SIDE,
};

/// The most TEXCOORD_n sets a primitive keeps (TEXCOORD_0 to TEXCOORD_3); a texture reading a
/// higher set is named and drawn without its texture.
pub const MAX_TEX_COORD_SETS: u32 = 4;

/// One glTF primitive's triangles, kept once however many nodes (or GPU instances) place it.
///
/// Every array is per vertex and as long as `positions`, except `indices` and the optional
/// ones (`more_uvs`' sets, `colors`, `tangents`), which are empty or as long. Every index is below
/// `positions.len()`, every triangle has three distinct indices, and every value is finite.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    /// Vertex positions in the geometry's own frame, metres.
    pub positions: Vec<Vec3>,
    /// Unit vertex normals. Computed smooth and area-weighted when the file has none.
    pub normals: Vec<Vec3>,
    /// TEXCOORD_0, glTF convention ((0, 0) is the top-left of an image); zero when absent.
    pub uvs: Vec<Vec2>,
    /// TEXCOORD_1, TEXCOORD_2, ... in order, as far as the file has them (at most
    /// [`MAX_TEX_COORD_SETS`] − 1).
    pub more_uvs: Vec<Vec<Vec2>>,
    /// COLOR_0 as linear RGBA in [0, 1] (alpha 1 for a VEC3 accessor); empty without one.
    pub colors: Vec<Vec4>,
    /// Unit tangents (xyz) with the bitangent's sign (w = ±1, bitangent = w · normal ×
    /// tangent), from the file's TANGENT, or MikkTSpace-generated where the primitive's
    /// material has a normal texture (its own or its clear coat's) and the file gives none;
    /// empty otherwise.
    pub tangents: Vec<Vec4>,
    /// Triangles as vertex indices, counter-clockwise seen from the front (glTF winding).
    pub indices: Vec<[u32; 3]>,
}

impl Geometry {
    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len()
    }
}

/// A placement of a geometry inside the mesh.
///
/// The material sits here and not on [`Geometry`]: glTF files commonly point several meshes
/// with different materials at the same accessors (MetalRoughSpheresNoTextures places one
/// 10,600-triangle sphere 98 times with 98 materials), and keeping the material on the geometry
/// would store that sphere 98 times.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// Index into [`MeshAsset::geometries`].
    pub geometry: usize,
    /// Mesh-root-from-geometry transform (metres to metres). Its determinant may be negative
    /// (a mirroring node scale), which reverses the triangles' winding in the mesh frame; the
    /// geometry itself is stored as the file has it.
    pub transform: Mat4,
    /// Names of the nodes from the mesh's root down to the node holding the primitive, root
    /// first; an unnamed node is "". This is what `[mesh.<name>.nodes."<node name>"]` and an
    /// object's `materials` match against.
    pub node_path: Vec<String>,
    /// The glTF material's name, when the primitive has a material and that material a name.
    pub material: Option<String>,
    /// The glTF material's `doubleSided` (false without a material, glTF's default). Reported
    /// only: the world builder decides how it combines with `two_sided` overrides.
    pub double_sided: bool,
    /// Index into [`MeshAsset::coverages`] when the glTF material is a cut-out (alphaMode
    /// MASK or BLEND); `None` for an opaque one.
    pub coverage: Option<usize>,
    /// Index into [`MeshAsset::materials`]: the primitive's glTF material, `None` for the
    /// glTF default material (no `material` on the primitive).
    pub gltf_material: Option<usize>,
}

/// The triangles of one `[mesh.<name>]`: each distinct geometry once, and its placements.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshAsset {
    /// Distinct geometries, in the order they were first met.
    pub geometries: Vec<Geometry>,
    /// Placements, in node pre-order (a node's parts, then its children's).
    pub parts: Vec<Part>,
    /// The cut-out materials the parts use, each once.
    pub coverages: Vec<Coverage>,
    /// The glTF materials the parts use, each once, with their textures (an image read by
    /// several materials is decoded once and shared).
    pub materials: Vec<GltfMaterial>,
    /// Things the loader dropped or could not honour (skins, cameras, line primitives, ...),
    /// one sentence each, for the caller to report.
    pub warnings: Vec<String>,
}

impl MeshAsset {
    /// Triangles stored (each geometry counted once).
    pub fn stored_triangles(&self) -> usize {
        self.geometries.iter().map(Geometry::triangle_count).sum()
    }

    /// Triangles placed in the mesh (each geometry counted once per part).
    pub fn placed_triangles(&self) -> usize {
        self.parts
            .iter()
            .map(|p| {
                self.geometries
                    .get(p.geometry)
                    .map_or(0, Geometry::triangle_count)
            })
            .sum()
    }
}

/// What kind of failure an [`AssetError`] is: each kind is one of the loader's own diagnostic
/// codes ([`AssetErrorKind::code`]), distinct from the pfx-scene spec's codes, because the
/// spec's checker never reads an asset's contents (see `docs/loader.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssetErrorKind {
    /// The file (or a glTF's external buffer) cannot be opened or read, or is over the size
    /// limit.
    Unreadable,
    /// The glTF is malformed: not glTF 2.0 JSON or GLB, fails validation, or its data is out of
    /// range.
    GltfInvalid,
    /// `[mesh] node` names no node of the file, or more than one.
    GltfNode,
    /// The file lists in `extensionsRequired` an extension this loader does not implement.
    GltfExtension,
    /// The glTF (or the chosen node's subtree) holds no triangles to draw.
    GltfEmpty,
    /// The sky file is not a decodable Radiance HDR image of an accepted size.
    HdrInvalid,
    /// The `[text] font` file is not a TrueType or OpenType font the reader takes, or a glyph's
    /// outline cannot be filled.
    FontInvalid,
    /// The text holds a character the font has no glyph for, or one that is not drawn.
    FontGlyph,
}

impl AssetErrorKind {
    /// The diagnostic code `bake SCENE` reports for this kind.
    pub fn code(self) -> &'static str {
        match self {
            AssetErrorKind::Unreadable => "asset-unreadable",
            AssetErrorKind::GltfInvalid => "gltf-invalid",
            AssetErrorKind::GltfNode => "gltf-node",
            AssetErrorKind::GltfExtension => "gltf-extension",
            AssetErrorKind::GltfEmpty => "gltf-empty",
            AssetErrorKind::HdrInvalid => "hdr-invalid",
            AssetErrorKind::FontInvalid => "font-invalid",
            AssetErrorKind::FontGlyph => "font-glyph",
        }
    }
}

/// A file that could not be loaded: which file, what kind of failure, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetError {
    /// The file as the caller named it.
    pub file: PathBuf,
    /// The kind of failure, which picks the diagnostic code.
    pub kind: AssetErrorKind,
    /// What is wrong, one sentence, naming the offending item (node, extension, accessor).
    pub message: String,
}

impl AssetError {
    pub(crate) fn new(file: &Path, kind: AssetErrorKind, message: impl Into<String>) -> Self {
        AssetError {
            file: file.to_path_buf(),
            kind,
            message: message.into(),
        }
    }
}

impl fmt::Display for AssetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

impl std::error::Error for AssetError {}

/// An equirectangular HDR sky map: linear RGB radiance, row-major from the top row, every texel
/// finite and non-negative.
#[derive(Clone, Debug, PartialEq)]
pub struct HdrMap {
    /// Texels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// `width * height` texels, row 0 first (the top of the image, +Y up the sky).
    pub texels: Vec<[f32; 3]>,
}

impl HdrMap {
    /// The texel at column `x`, row `y` (row 0 at the top), or `None` outside the map.
    pub fn texel(&self, x: u32, y: u32) -> Option<[f32; 3]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = y as usize * self.width as usize + x as usize;
        self.texels.get(i).copied()
    }
}

/// Area-weighted smooth vertex normals: each vertex gets the normalised sum of the unnormalised
/// cross products (twice the area times the unit normal) of the triangles that use it.
///
/// Smoothing is over triangles sharing a vertex *index*; positions are not welded, so an exporter
/// that split vertices along a hard edge keeps that edge hard. A vertex no triangle with area
/// uses gets +Z, so that no normal is ever NaN.
pub fn smooth_normals(positions: &[Vec3], indices: &[[u32; 3]]) -> Vec<Vec3> {
    let mut sums = vec![Vec3::ZERO; positions.len()];
    for tri in indices {
        let [a, b, c] = tri.map(|i| i as usize);
        let (Some(&pa), Some(&pb), Some(&pc)) =
            (positions.get(a), positions.get(b), positions.get(c))
        else {
            continue;
        };
        let n = (pb - pa).cross(pc - pa);
        if !n.is_finite() {
            continue;
        }
        for i in [a, b, c] {
            if let Some(s) = sums.get_mut(i) {
                *s += n;
            }
        }
    }
    sums.into_iter()
        .map(|s| {
            let n = s.normalize_or_zero();
            if n == Vec3::ZERO {
                Vec3::Z
            } else {
                n
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smooth_normals_are_area_weighted() {
        // Two triangles share the edge (0,1); triangle A (vertices 0,1,2) lies in z = 0 with
        // area 2 and faces +Z, triangle B (0,3,1) lies in x = 0 with area 1 and faces -X. At the
        // shared vertices the normal is (2·ẑ - 1·x̂)/|…| (area weights 2:1), not the
        // equal-weight (ẑ - x̂)/√2.
        let positions = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::new(-2.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ];
        let indices = vec![[0, 1, 2], [0, 3, 1]];
        let n = smooth_normals(&positions, &indices);
        // Triangle A: (p1-p0)×(p2-p0) = (0,2,0)×(-2,0,0) = (0,0,4) → +Z, area 2.
        // Triangle B: (p3-p0)×(p1-p0) = (0,0,1)×(0,2,0) = (-2,0,0) → -X, area 1.
        let expected = Vec3::new(-2.0, 0.0, 4.0).normalize();
        assert!((n[0] - expected).length() < 1e-6, "{:?}", n[0]);
        assert!((n[1] - expected).length() < 1e-6, "{:?}", n[1]);
        assert!((n[2] - Vec3::Z).length() < 1e-6);
        assert!((n[3] - Vec3::NEG_X).length() < 1e-6);
        // The equal-weight answer would differ visibly.
        let equal = Vec3::new(-1.0, 0.0, 1.0).normalize();
        assert!((n[0] - equal).length() > 0.2);
    }

    #[test]
    fn smooth_normals_never_nan() {
        // A degenerate triangle and an unused vertex both fall back to +Z.
        let positions = vec![Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, Vec3::ONE];
        let n = smooth_normals(&positions, &[[0, 1, 2]]);
        assert_eq!(n, vec![Vec3::Z; 4]);
    }

    #[test]
    fn error_display_names_file() {
        let e = AssetError::new(
            Path::new("a/b.glb"),
            AssetErrorKind::GltfInvalid,
            "bad thing",
        );
        assert_eq!(e.to_string(), "a/b.glb: bad thing");
        assert_eq!(e.kind.code(), "gltf-invalid");
    }
}
