//! glTF 2.0 meshes (.gltf with its buffers beside it or in data URIs, and .glb).
//!
//! The `gltf` crate parses and validates the JSON (indices in range, enums known). Everything
//! that touches bytes is done here instead: the GLB container, buffer URIs and accessor reads,
//! because the crate's own readers panic (debug overflow checks, asserts) on a malformed file,
//! and this loader must answer every file with a mesh or an error.

mod materials;
mod tangents;

use super::texture::{decode_alpha, AlphaTexture, Coverage, Filter, TextureImage, Wrap};
use super::{
    smooth_normals, AssetError, AssetErrorKind, Geometry, MeshAsset, Part, MAX_TEX_COORD_SETS,
};
use ::gltf::accessor::{DataType, Dimensions};
use ::gltf::buffer::Source;
use ::gltf::material::AlphaMode;
use ::gltf::mesh::Mode;
use ::gltf::scene::Transform;
use ::gltf::texture::{MagFilter, WrappingMode};
use ::gltf::{Accessor, Document, Node, Primitive, Semantic};
use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use tangents::{mikktspace_tangents, tangent_frame};

/// glTF extensions that a file may list in `extensionsRequired` and still be loaded: the ones
/// this loader really implements. Any other required extension is refused by name.
///
/// - `EXT_mesh_gpu_instancing`: the per-instance TRANSLATION/ROTATION/SCALE become parts.
/// - `KHR_mesh_quantization`: integer and normalised-integer attributes are read and converted.
/// - `KHR_materials_unlit`: the material shows its base colour (`GltfMaterial::unlit`).
/// - `KHR_materials_iridescence`: a thin film over the material's specular layer
///   (`GltfMaterial::iridescence`; where it is not drawn yet, the material is drawn without it
///   and that is named, as an undrawn optional extension is).
pub const SUPPORTED_REQUIRED_EXTENSIONS: &[&str] = &[
    "EXT_mesh_gpu_instancing",
    "KHR_mesh_quantization",
    "KHR_materials_unlit",
    "KHR_materials_iridescence",
];

/// The largest .gltf/.glb or external buffer read, bytes (2 GiB, the GLB format's own limit's
/// half, far beyond any mesh a plate needs).
const MAX_FILE_BYTES: u64 = 1 << 31;
/// The most elements an accessor without a bufferView (sparse over zeros) may claim: its count
/// is not bounded by any data in the file, so it is bounded here.
const MAX_UNBACKED_ELEMENTS: usize = 1 << 24;
/// The most parts one mesh may produce (node instances × primitives × GPU instances).
const MAX_PARTS: usize = 1 << 22;
/// The most vertices and triangles one mesh may store, summed over its geometries. Many
/// accessors may read the same bytes, so the file's size alone does not bound what decoding
/// it allocates; this does (about 2 GiB of vertex data).
const MAX_STORED_VERTICES: usize = 1 << 26;
const MAX_STORED_TRIANGLES: usize = 1 << 27;
/// How many of the crate's validation errors an error message quotes.
const MAX_VALIDATION_ERRORS_SHOWN: usize = 5;

/// Loads the triangles of a glTF 2.0 file, as one `[mesh.<name>]` of a pfx scene.
///
/// `path` is absolute or relative to the working directory; a .gltf's relative buffer URIs are
/// read beside it. With `node`, the mesh is that node's subtree and the node's own transform is
/// replaced by the identity (its children keep theirs, relative to it). Without `node`, it is
/// every root node of the default scene (`scene`, else scene 0), each with its transform.
///
/// Geometry is kept once per distinct primitive data (POSITION, NORMAL, TEXCOORD_0, indices
/// accessors and mode) and placed by [`Part`]s. See `docs/assets.md` for what is dropped with a
/// warning (non-triangle modes, skins, cameras, lights, vertex colours, morph targets) and what
/// is refused (unsupported required extensions, malformed data).
pub fn load_gltf(path: &Path, node: Option<&str>) -> Result<MeshAsset, AssetError> {
    load(path, node).map_err(|f| AssetError::new(path, f.kind, f.message))
}

/// A refusal inside this module: the message with its kind. Most refusals are malformed data,
/// so a plain `String` error converts to [`AssetErrorKind::GltfInvalid`] through `?`; the few
/// other kinds are set where they arise.
struct Failure {
    kind: AssetErrorKind,
    message: String,
}

impl Failure {
    fn new(kind: AssetErrorKind, message: String) -> Self {
        Failure { kind, message }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::new(AssetErrorKind::GltfInvalid, message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Self {
        Failure::new(AssetErrorKind::GltfInvalid, message.to_string())
    }
}

fn load(path: &Path, node: Option<&str>) -> Result<MeshAsset, Failure> {
    let bytes = read_limited(path, "the glTF file")?;
    let (json_bytes, bin) = if bytes.starts_with(b"glTF") {
        split_glb(&bytes)?
    } else {
        (&bytes[..], None)
    };
    let raw: Value =
        serde_json::from_slice(json_bytes).map_err(|e| format!("not a glTF JSON document: {e}"))?;
    let mut root = ::gltf::json::Root::from_slice(json_bytes)
        .map_err(|e| format!("not a glTF 2.0 document: {e}"))?;
    if !root.asset.version.starts_with("2.") {
        return Err(format!(
            "glTF version {} is not supported (only 2.x)",
            root.asset.version
        )
        .into());
    }
    if let Some(ext) = root
        .extensions_required
        .iter()
        .find(|e| !SUPPORTED_REQUIRED_EXTENSIONS.contains(&e.as_str()))
    {
        return Err(Failure::new(
            AssetErrorKind::GltfExtension,
            format!(
                "the file requires the glTF extension {ext}, which pfx-bake does not support \
                 (supported required extensions: {})",
                SUPPORTED_REQUIRED_EXTENSIONS.join(", ")
            ),
        ));
    }
    // Every required extension left is one this loader implements itself; the crate's
    // validation would refuse those it was not built to know.
    root.extensions_required.clear();
    precheck(&root)?;
    let doc = Document::from_json(root).map_err(describe_gltf_error)?;
    let base = path.parent().unwrap_or_else(|| Path::new("."));
    let buffers = load_buffers(&doc, base, bin)?;
    let mut loader = Loader {
        doc: &doc,
        raw: &raw,
        buffers: &buffers,
        base,
        coverage_of: HashMap::new(),
        alpha_of: HashMap::new(),
        material_of: HashMap::new(),
        images: HashMap::new(),
        texels_decoded: 0,
        named: HashSet::new(),
        asset: MeshAsset::default(),
        geometry_of: HashMap::new(),
        warned: HashSet::new(),
        stored_vertices: 0,
        stored_triangles: 0,
    };
    loader.run(node)?;
    if loader.asset.parts.is_empty() {
        // A mesh that draws nothing is a mistake in the scene (wrong node, a file of lines);
        // say so here rather than let an object silently vanish.
        let why = if loader.asset.warnings.is_empty() {
            String::new()
        } else {
            format!(" ({})", loader.asset.warnings.join("; "))
        };
        return Err(Failure::new(
            AssetErrorKind::GltfEmpty,
            format!("the mesh has no triangles{why}"),
        ));
    }
    Ok(loader.asset)
}

/// Reads a whole file, refusing one larger than [`MAX_FILE_BYTES`] without reading past it.
fn read_limited(path: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    let unreadable = |m: String| Failure::new(AssetErrorKind::Unreadable, m);
    let file =
        std::fs::File::open(path).map_err(|e| unreadable(format!("cannot open {what}: {e}")))?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(unreadable(format!(
            "{what} is larger than {MAX_FILE_BYTES} bytes"
        )));
    }
    Ok(bytes)
}

fn le_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Splits a GLB container into its JSON chunk and its BIN chunk, if any (glTF 2.0 §4.4).
/// Unknown chunk types are skipped, as the format requires.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>), String> {
    let (Some(version), Some(length)) = (le_u32(bytes, 4), le_u32(bytes, 8)) else {
        return Err(format!(
            "truncated GLB: {} bytes, shorter than the 12-byte header",
            bytes.len()
        ));
    };
    if version != 2 {
        return Err(format!("GLB container version {version} is not 2"));
    }
    let length = length as usize;
    if length > bytes.len() {
        return Err(format!(
            "truncated GLB: the header says {length} bytes, the file has {}",
            bytes.len()
        ));
    }
    if length < 12 {
        return Err(format!("malformed GLB: header length {length} is below 12"));
    }
    // length ≤ bytes.len() was checked just above.
    let body = &bytes[..length];
    let mut at = 12usize;
    let mut json = None;
    let mut bin = None;
    while at < body.len() {
        let (Some(chunk_len), Some(chunk_type)) = (le_u32(body, at), le_u32(body, at + 4)) else {
            return Err(format!(
                "truncated GLB: chunk header at byte {at} is cut off"
            ));
        };
        let start = at + 8;
        let end = start
            .checked_add(chunk_len as usize)
            .filter(|&e| e <= body.len())
            .ok_or_else(|| {
                format!(
                    "truncated GLB: the chunk at byte {at} claims {chunk_len} bytes, \
                     past the end of the file"
                )
            })?;
        // start ≤ end ≤ body.len() by the filter above.
        let data = &body[start..end];
        match &chunk_type.to_le_bytes() {
            b"JSON" if json.is_none() && at == 12 => json = Some(data),
            b"JSON" => return Err("malformed GLB: the JSON chunk is not the first chunk".into()),
            b"BIN\0" if bin.is_none() => bin = Some(data),
            b"BIN\0" => return Err("malformed GLB: more than one BIN chunk".into()),
            _ => {}
        }
        // Chunks are 4-byte aligned; a file whose last chunk is unpadded simply ends here.
        at = end.saturating_add(3) & !3;
    }
    let json = json.ok_or("malformed GLB: no JSON chunk")?;
    Ok((json, bin))
}

/// Checks what the `gltf` crate's validation reads without checking first: the POSITION
/// accessor index (its validation indexes the accessor array with it).
fn precheck(root: &::gltf::json::Root) -> Result<(), String> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            for index in prim.attributes.values() {
                if index.value() >= root.accessors.len() {
                    return Err(format!(
                        "mesh {m} primitive {p} names accessor {}, but the file has {}",
                        index.value(),
                        root.accessors.len()
                    ));
                }
            }
        }
    }
    Ok(())
}

fn describe_gltf_error(e: ::gltf::Error) -> String {
    match e {
        ::gltf::Error::Validation(errors) => {
            let mut s = String::from("invalid glTF:");
            for (path, error) in errors.iter().take(MAX_VALIDATION_ERRORS_SHOWN) {
                s.push_str(&format!(" {path}: {error};"));
            }
            if errors.len() > MAX_VALIDATION_ERRORS_SHOWN {
                s.push_str(&format!(
                    " and {} more",
                    errors.len() - MAX_VALIDATION_ERRORS_SHOWN
                ));
            }
            s
        }
        other => format!("invalid glTF: {other}"),
    }
}

/// Decodes %XX escapes of a relative URI (RFC 3986); `None` for a bad escape or non-UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Reads the file a relative or `file:` URI names, beside the glTF (`base`); `what` names the
/// buffer or image in messages. Other schemes (http:) are refused.
fn read_file_uri(base: &Path, uri: &str, what: &str) -> Result<Vec<u8>, Failure> {
    let rel = if let Some(p) = uri.strip_prefix("file://") {
        p.to_string()
    } else if let Some(p) = uri.strip_prefix("file:") {
        p.to_string()
    } else if uri.contains(':') {
        return Err(format!(
            "{what}: URI scheme of \"{uri}\" is not supported (only relative paths, file: and \
             data:)"
        )
        .into());
    } else {
        percent_decode(uri).ok_or_else(|| format!("{what}: malformed URI \"{uri}\""))?
    };
    let file = base.join(rel);
    read_limited(&file, &format!("{what} ({})", file.display()))
}

/// Loads every buffer: the GLB BIN chunk, a base64 data URI, or a file beside the glTF.
fn load_buffers<'b>(
    doc: &Document,
    base: &Path,
    bin: Option<&'b [u8]>,
) -> Result<Vec<Cow<'b, [u8]>>, Failure> {
    let mut out = Vec::new();
    for buffer in doc.buffers() {
        let i = buffer.index();
        let data: Cow<[u8]> = match buffer.source() {
            Source::Bin => Cow::Borrowed(bin.ok_or_else(|| {
                format!("buffer {i} is the GLB binary chunk, but the file has none")
            })?),
            Source::Uri(uri) if uri.starts_with("data:") => {
                // The crate's data-URI path is only base64 decoding, which cannot panic.
                let data = ::gltf::buffer::Data::from_source(Source::Uri(uri), None)
                    .map_err(|e| format!("buffer {i}: bad data URI: {e}"))?;
                Cow::Owned(data.0)
            }
            Source::Uri(uri) => Cow::Owned(read_file_uri(base, uri, &format!("buffer {i}"))?),
        };
        if data.len() < buffer.length() {
            return Err(format!(
                "buffer {i} holds {} bytes, fewer than its byteLength {}",
                data.len(),
                buffer.length()
            )
            .into());
        }
        out.push(data);
    }
    Ok(out)
}

/// One glTF primitive's data identity: the accessors it reads and its mode. Primitives of
/// different meshes with the same key share one [`Geometry`].
/// What makes two primitives one geometry: POSITION, NORMAL, every TEXCOORD_n, COLOR_0,
/// TANGENT and indices accessors, the mode, and the TEXCOORD_n set tangents are generated
/// from (`None` when none are).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct GeometryKey {
    accessors: Vec<Option<usize>>,
    mode: u32,
    tangents_from: Option<u32>,
}

struct Loader<'a> {
    doc: &'a Document,
    /// The same JSON, untyped: node extensions (instancing, lights) that the crate, built
    /// without its `extensions` feature, does not expose.
    raw: &'a Value,
    buffers: &'a [Cow<'a, [u8]>],
    /// The glTF's folder, where relative image URIs point.
    base: &'a Path,
    /// Per glTF material index: its [`MeshAsset::coverages`] slot, `None` when opaque.
    coverage_of: HashMap<usize, Option<usize>>,
    /// Per glTF texture index: its decoded alpha (`None` when the image has no alpha channel).
    alpha_of: HashMap<usize, Option<Arc<AlphaTexture>>>,
    /// Per glTF material index: its [`MeshAsset::materials`] slot.
    material_of: HashMap<usize, usize>,
    /// Per glTF image index: the image decoded as RGBA8, shared by every slot reading it.
    images: HashMap<usize, Arc<TextureImage>>,
    /// Texels decoded so far into `images`, against the file's limit.
    texels_decoded: u64,
    /// What has been named once for the file (an extension, occlusion), by topic: the
    /// message names the first material met, the topic does not.
    named: HashSet<String>,
    asset: MeshAsset,
    /// Geometry index per primitive key; `None` for a primitive skipped (warned once).
    geometry_of: HashMap<GeometryKey, Option<usize>>,
    warned: HashSet<String>,
    /// Running totals over `asset.geometries`, against the storage limits.
    stored_vertices: usize,
    stored_triangles: usize,
}

fn node_label(node: &Node) -> String {
    match node.name() {
        Some(name) => format!("node '{name}'"),
        None => format!("node #{}", node.index()),
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Points => "POINTS",
        Mode::Lines => "LINES",
        Mode::LineLoop => "LINE_LOOP",
        Mode::LineStrip => "LINE_STRIP",
        Mode::Triangles => "TRIANGLES",
        Mode::TriangleStrip => "TRIANGLE_STRIP",
        Mode::TriangleFan => "TRIANGLE_FAN",
    }
}

/// Converts one component to f32 as glTF 2.0 §3.11 maps normalised integers (signed ones
/// clamped at -1); unnormalised integers keep their value (KHR_mesh_quantization).
fn component_f32(b: &[u8], t: DataType, normalized: bool) -> Option<f32> {
    let two = |b: &[u8]| -> Option<[u8; 2]> { b.get(..2)?.try_into().ok() };
    let four = |b: &[u8]| -> Option<[u8; 4]> { b.get(..4)?.try_into().ok() };
    let (v, max) = match t {
        DataType::I8 => (f32::from(*b.first()? as i8), 127.0),
        DataType::U8 => (f32::from(*b.first()?), 255.0),
        DataType::I16 => (f32::from(i16::from_le_bytes(two(b)?)), 32767.0),
        DataType::U16 => (f32::from(u16::from_le_bytes(two(b)?)), 65535.0),
        DataType::U32 => (u32::from_le_bytes(four(b)?) as f32, u32::MAX as f32),
        DataType::F32 => return Some(f32::from_le_bytes(four(b)?)),
    };
    Some(if normalized { (v / max).max(-1.0) } else { v })
}

fn component_u32(b: &[u8], t: DataType) -> Option<u32> {
    match t {
        DataType::U8 => b.first().map(|&v| u32::from(v)),
        DataType::U16 => Some(u32::from(u16::from_le_bytes(b.get(..2)?.try_into().ok()?))),
        DataType::U32 => Some(u32::from_le_bytes(b.get(..4)?.try_into().ok()?)),
        _ => None,
    }
}

impl<'a> Loader<'a> {
    fn warn(&mut self, message: String) {
        if self.warned.insert(message.clone()) {
            self.asset.warnings.push(message);
        }
    }

    /// The bytes of `count` elements of `elem` bytes each, `stride` apart, starting `offset`
    /// bytes into `view`; every bound checked.
    fn view_bytes(
        &self,
        view: &::gltf::buffer::View,
        offset: usize,
        count: usize,
        elem: usize,
        stride: usize,
        what: &str,
    ) -> Result<&'a [u8], String> {
        let b = view.buffer().index();
        let buffer = self
            .buffers
            .get(b)
            .ok_or_else(|| format!("{what}: buffer {b} is missing"))?;
        let start = view.offset();
        let view_data = start
            .checked_add(view.length())
            .and_then(|end| buffer.get(start..end))
            .ok_or_else(|| {
                format!(
                    "{what}: bufferView {} ({} bytes at {start}) lies outside buffer {b} \
                     ({} bytes)",
                    view.index(),
                    view.length(),
                    buffer.len()
                )
            })?;
        if count == 0 {
            return Ok(&[]);
        }
        let end = (count - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(elem))
            .and_then(|x| x.checked_add(offset))
            .filter(|&end| end <= view_data.len())
            .ok_or_else(|| {
                format!(
                    "{what}: {count} elements of {elem} bytes (stride {stride}) from byte \
                     {offset} overrun bufferView {} ({} bytes)",
                    view.index(),
                    view.length()
                )
            })?;
        // offset ≤ end ≤ view_data.len() by the filter above.
        Ok(&view_data[offset..end])
    }

    /// Reads an accessor component by component (`count × dims` values, element-major),
    /// applying its sparse substitution. `conv` turns one component's bytes into a value.
    fn read_accessor<T: Copy + Default>(
        &self,
        acc: &Accessor,
        dims: Dimensions,
        what: &str,
        conv: impl Fn(&[u8]) -> Option<T>,
    ) -> Result<Vec<T>, String> {
        let what = format!("{what} (accessor {})", acc.index());
        if acc.dimensions() != dims {
            return Err(format!(
                "{what} is {:?}, expected {dims:?}",
                acc.dimensions()
            ));
        }
        let n = dims.multiplicity();
        let csize = acc.data_type().size();
        let elem = n * csize;
        let count = acc.count();
        let total = count
            .checked_mul(n)
            .ok_or_else(|| format!("{what}: count {count} is too large"))?;
        let short = || format!("{what}: short read");
        let mut out = match acc.view() {
            Some(view) => {
                let stride = view.stride().unwrap_or(elem);
                if stride < elem {
                    return Err(format!(
                        "{what}: byteStride {stride} is smaller than its {elem}-byte elements"
                    ));
                }
                let data = self.view_bytes(&view, acc.offset(), count, elem, stride, &what)?;
                // view_bytes proved data holds (count-1)·stride + elem bytes, so the capacity
                // is bounded by the file's own size.
                let mut out = Vec::with_capacity(total);
                for i in 0..count {
                    for c in 0..n {
                        let at = i * stride + c * csize;
                        let bytes = data.get(at..).ok_or_else(short)?;
                        out.push(conv(bytes).ok_or_else(short)?);
                    }
                }
                out
            }
            None => {
                if count > MAX_UNBACKED_ELEMENTS {
                    return Err(format!(
                        "{what}: {count} elements without a bufferView (at most \
                         {MAX_UNBACKED_ELEMENTS})"
                    ));
                }
                vec![T::default(); total]
            }
        };
        if let Some(sparse) = acc.sparse() {
            let sc = sparse.count();
            if sc > count {
                return Err(format!("{what}: {sc} sparse values for {count} elements"));
            }
            let idx = sparse.indices();
            let itype = match idx.index_type() {
                ::gltf::accessor::sparse::IndexType::U8 => DataType::U8,
                ::gltf::accessor::sparse::IndexType::U16 => DataType::U16,
                ::gltf::accessor::sparse::IndexType::U32 => DataType::U32,
            };
            let isize = itype.size();
            let idata = self.view_bytes(&idx.view(), idx.offset(), sc, isize, isize, &what)?;
            let vals = sparse.values();
            let vdata = self.view_bytes(&vals.view(), vals.offset(), sc, elem, elem, &what)?;
            for k in 0..sc {
                let target = idata
                    .get(k * isize..)
                    .and_then(|b| component_u32(b, itype))
                    .ok_or_else(short)? as usize;
                if target >= count {
                    return Err(format!(
                        "{what}: sparse index {target} is not below its count {count}"
                    ));
                }
                for c in 0..n {
                    let v = vdata
                        .get(k * elem + c * csize..)
                        .and_then(&conv)
                        .ok_or_else(short)?;
                    // target < count, so target·n + c < total = out.len().
                    out[target * n + c] = v;
                }
            }
        }
        Ok(out)
    }

    fn read_f32s(&self, acc: &Accessor, dims: Dimensions, what: &str) -> Result<Vec<f32>, String> {
        let (t, norm) = (acc.data_type(), acc.normalized());
        let v = self.read_accessor(acc, dims, what, |b| component_f32(b, t, norm))?;
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(format!(
                "{what} (accessor {}) holds a non-finite value at element {}",
                acc.index(),
                i / dims.multiplicity()
            ));
        }
        Ok(v)
    }

    fn read_vec3s(&self, acc: &Accessor, what: &str) -> Result<Vec<Vec3>, String> {
        let v = self.read_f32s(acc, Dimensions::Vec3, what)?;
        Ok(v.chunks_exact(3).map(Vec3::from_slice).collect())
    }

    fn read_indices(&self, acc: &Accessor, what: &str) -> Result<Vec<u32>, String> {
        let t = acc.data_type();
        if !matches!(t, DataType::U8 | DataType::U16 | DataType::U32) {
            return Err(format!(
                "{what} (accessor {}) has component type {t:?}; indices must be unsigned \
                 integers",
                acc.index()
            ));
        }
        self.read_accessor(acc, Dimensions::Scalar, what, |b| component_u32(b, t))
    }

    /// Collects the roots and walks their subtrees in pre-order, producing parts.
    fn run(&mut self, select: Option<&str>) -> Result<(), Failure> {
        let doc = self.doc;
        let roots: Vec<(Node<'a>, bool)> = match select {
            Some(name) => {
                let hits: Vec<Node> = doc.nodes().filter(|n| n.name() == Some(name)).collect();
                match hits.as_slice() {
                    [one] => vec![(one.clone(), true)],
                    [] => {
                        let names: Vec<&str> = doc.nodes().filter_map(|n| n.name()).collect();
                        let shown: Vec<String> =
                            names.iter().take(8).map(|n| format!("'{n}'")).collect();
                        let more = if names.len() > 8 { ", …" } else { "" };
                        return Err(Failure::new(
                            AssetErrorKind::GltfNode,
                            format!(
                                "node '{name}' is not in the file (its named nodes: {}{more})",
                                if shown.is_empty() {
                                    "none".to_string()
                                } else {
                                    shown.join(", ")
                                }
                            ),
                        ));
                    }
                    many => {
                        return Err(Failure::new(
                            AssetErrorKind::GltfNode,
                            format!(
                                "node '{name}' names {} nodes in the file; it must name one",
                                many.len()
                            ),
                        ))
                    }
                }
            }
            None => match doc.default_scene().or_else(|| doc.scenes().next()) {
                Some(scene) => scene.nodes().map(|n| (n, false)).collect(),
                None => {
                    self.warn(
                        "the file has no scene; its parentless nodes are used as roots".into(),
                    );
                    let mut is_child = vec![false; doc.nodes().len()];
                    for n in doc.nodes() {
                        for c in n.children() {
                            if let Some(f) = is_child.get_mut(c.index()) {
                                *f = true;
                            }
                        }
                    }
                    doc.nodes()
                        .filter(|n| !is_child.get(n.index()).copied().unwrap_or(true))
                        .map(|n| (n, false))
                        .collect()
                }
            },
        };

        let mut visited = vec![false; doc.nodes().len()];
        let mut stack: Vec<(Node<'a>, Mat4, Vec<String>, bool)> = roots
            .into_iter()
            .rev()
            .map(|(n, selected)| (n, Mat4::IDENTITY, Vec::new(), selected))
            .collect();
        while let Some((node, parent, mut path, selected)) = stack.pop() {
            let label = node_label(&node);
            // glTF requires a strict tree; a node met twice is a cycle or a shared child, and
            // following it would loop forever or multiply parts without bound.
            match visited.get_mut(node.index()) {
                Some(v) if !*v => *v = true,
                _ => {
                    return Err(
                        format!("{label} is reached twice; glTF nodes must form a tree").into(),
                    )
                }
            }
            let local = if selected {
                Mat4::IDENTITY
            } else {
                local_matrix(&node)?
            };
            let world = parent * local;
            if !world.is_finite() {
                return Err(format!("{label}: its transform overflows").into());
            }
            path.push(node.name().unwrap_or("").to_string());
            self.visit(&node, world, &path)?;
            for child in node.children().collect::<Vec<_>>().into_iter().rev() {
                stack.push((child, world, path.clone(), false));
            }
        }
        Ok(())
    }

    /// One node: warnings for what it carries that a mesh drops, parts for its primitives.
    fn visit(&mut self, node: &Node<'a>, world: Mat4, path: &[String]) -> Result<(), Failure> {
        let label = node_label(node);
        if node.camera().is_some() {
            self.warn(format!(
                "{label}: camera ignored (a mesh file's cameras are not used)"
            ));
        }
        let raw_ext = self
            .raw
            .get("nodes")
            .and_then(|n| n.get(node.index()))
            .and_then(|n| n.get("extensions"));
        if raw_ext.and_then(|e| e.get("KHR_lights_punctual")).is_some() {
            self.warn(format!(
                "{label}: KHR_lights_punctual light ignored (scene lights come from the scene file)"
            ));
        }
        let Some(mesh) = node.mesh() else {
            return Ok(());
        };
        if let Some(skin) = node.skin() {
            let skin_name = skin.name().map_or(String::new(), |n| format!(" '{n}'"));
            self.warn(format!(
                "{label}: skin{skin_name} not applied; the mesh is used in its rest pose"
            ));
        }
        let instances = match raw_ext.and_then(|e| e.get("EXT_mesh_gpu_instancing")) {
            Some(ext) => self.instances(&label, ext)?,
            None => vec![Mat4::IDENTITY],
        };
        for prim in mesh.primitives() {
            let material = prim.material();
            let gltf_material = self.material(&material)?;
            // Tangents are generated (when the file has none) from the set the material's
            // normal texture reads, or its clear coat's (one tangent frame per vertex: where
            // the two read different sets, the base's).
            let tangents_from = gltf_material
                .and_then(|m| {
                    let m = &self.asset.materials[m];
                    m.normal_texture
                        .as_ref()
                        .or(m.clearcoat_normal_texture.as_ref())
                })
                .map(|n| n.texture.tex_coord);
            let Some(geometry) = self.geometry(&mesh, &prim, tangents_from)? else {
                continue;
            };
            let name = material.name().map(str::to_string);
            let double_sided = material.double_sided();
            let coverage = self.coverage(&material)?;
            if self.asset.parts.len().saturating_add(instances.len()) > MAX_PARTS {
                return Err(format!("the mesh has more than {MAX_PARTS} parts").into());
            }
            for inst in &instances {
                self.asset.parts.push(Part {
                    geometry,
                    transform: world * *inst,
                    node_path: path.to_vec(),
                    material: name.clone(),
                    double_sided,
                    coverage,
                    gltf_material,
                });
            }
        }
        Ok(())
    }

    /// The cut-out coverage of a primitive's material, built on first use: `None` for an
    /// opaque material (and the default material, which is opaque).
    fn coverage(&mut self, material: &::gltf::Material<'a>) -> Result<Option<usize>, Failure> {
        let Some(index) = material.index() else {
            return Ok(None);
        };
        if let Some(&c) = self.coverage_of.get(&index) {
            return Ok(c);
        }
        let label = match material.name() {
            Some(n) => format!("material '{n}'"),
            None => format!("material {index}"),
        };
        let pbr = material.pbr_metallic_roughness();
        let blend = match material.alpha_mode() {
            AlphaMode::Opaque => {
                self.coverage_of.insert(index, None);
                return Ok(None);
            }
            AlphaMode::Mask => false,
            AlphaMode::Blend => true,
        };
        let a = pbr.base_color_factor()[3];
        let factor = if a.is_finite() {
            a.clamp(0.0, 1.0)
        } else {
            1.0
        };
        let texture = match pbr.base_color_texture() {
            None => None,
            Some(info) if info.tex_coord() != 0 => {
                self.warn(format!(
                    "{label}: its base colour texture reads TEXCOORD_{}; only TEXCOORD_0 is \
                     read, so the texture's alpha is not applied (the cut-out uses \
                     baseColorFactor's alpha alone)",
                    info.tex_coord()
                ));
                None
            }
            Some(info) => {
                let transformed = self
                    .raw
                    .pointer(&format!(
                        "/materials/{index}/pbrMetallicRoughness/baseColorTexture/extensions/\
                         KHR_texture_transform"
                    ))
                    .is_some();
                if transformed {
                    self.warn(format!(
                        "{label}: KHR_texture_transform on its base colour texture is not \
                         applied; the cut-out reads TEXCOORD_0 as it is"
                    ));
                }
                self.alpha_texture(&info.texture(), &label)?
            }
        };
        let file_cutoff = material.alpha_cutoff().unwrap_or(0.5);
        self.asset.coverages.push(Coverage {
            material: material
                .name()
                .map_or_else(|| format!("material {index}"), str::to_string),
            blend,
            factor,
            texture,
            file_cutoff: if file_cutoff.is_finite() {
                file_cutoff
            } else {
                0.5
            },
        });
        let slot = Some(self.asset.coverages.len() - 1);
        self.coverage_of.insert(index, slot);
        Ok(slot)
    }

    /// The alpha of a texture's image, decoded once per texture (its sampler's wrap modes and
    /// filter go with it). The image comes from a bufferView (GLB), a data URI or a file beside
    /// the glTF.
    fn alpha_texture(
        &mut self,
        texture: &::gltf::Texture<'a>,
        label: &str,
    ) -> Result<Option<Arc<AlphaTexture>>, Failure> {
        if let Some(t) = self.alpha_of.get(&texture.index()) {
            return Ok(t.clone());
        }
        let image = texture.source();
        let what = match image.name() {
            Some(n) => format!("{label}: base colour texture image {} '{n}'", image.index()),
            None => format!("{label}: base colour texture image {}", image.index()),
        };
        let bytes = self.image_bytes(&image, &what)?;
        let sampler = texture.sampler();
        let wrap = |m: WrappingMode| match m {
            WrappingMode::Repeat => Wrap::Repeat,
            WrappingMode::ClampToEdge => Wrap::ClampToEdge,
            WrappingMode::MirroredRepeat => Wrap::MirroredRepeat,
        };
        let filter = match sampler.mag_filter() {
            Some(MagFilter::Nearest) => Filter::Nearest,
            _ => Filter::Bilinear,
        };
        let decoded = decode_alpha(
            &bytes,
            wrap(sampler.wrap_s()),
            wrap(sampler.wrap_t()),
            filter,
        )
        .map_err(|e| format!("{what}: {e}"))?
        .map(Arc::new);
        self.alpha_of.insert(texture.index(), decoded.clone());
        Ok(decoded)
    }

    /// EXT_mesh_gpu_instancing: one instance transform (T·R·S, applied before the node's
    /// global transform) per element of its TRANSLATION / ROTATION / SCALE accessors.
    fn instances(&self, label: &str, ext: &Value) -> Result<Vec<Mat4>, String> {
        let what = format!("{label}: EXT_mesh_gpu_instancing");
        let attrs = ext
            .get("attributes")
            .and_then(Value::as_object)
            .ok_or_else(|| format!("{what} has no attributes"))?;
        let accessor = |key: &str| -> Result<Option<Accessor<'a>>, String> {
            let Some(v) = attrs.get(key) else {
                return Ok(None);
            };
            v.as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .and_then(|i| self.doc.accessors().nth(i))
                .map(Some)
                .ok_or_else(|| format!("{what} {key} is not an accessor index"))
        };
        let what_t = format!("{what} TRANSLATION");
        let what_r = format!("{what} ROTATION");
        let what_s = format!("{what} SCALE");
        let t = match accessor("TRANSLATION")? {
            Some(a) => Some(self.read_vec3s(&a, &what_t)?),
            None => None,
        };
        let r = match accessor("ROTATION")? {
            Some(a) => Some(self.read_f32s(&a, Dimensions::Vec4, &what_r)?),
            None => None,
        };
        let s = match accessor("SCALE")? {
            Some(a) => Some(self.read_vec3s(&a, &what_s)?),
            None => None,
        };
        let counts = [
            t.as_ref().map(Vec::len),
            r.as_ref().map(|r| r.len() / 4),
            s.as_ref().map(Vec::len),
        ];
        let mut present = counts.iter().flatten();
        let Some(&count) = present.next() else {
            return Err(format!("{what} has none of TRANSLATION, ROTATION, SCALE"));
        };
        if present.any(|&c| c != count) {
            return Err(format!("{what}: its attributes differ in count"));
        }
        let mut out = Vec::with_capacity(count);
        for i in 0..count {
            let ti = t
                .as_ref()
                .and_then(|t| t.get(i))
                .copied()
                .unwrap_or(Vec3::ZERO);
            let si = s
                .as_ref()
                .and_then(|s| s.get(i))
                .copied()
                .unwrap_or(Vec3::ONE);
            let ri = match &r {
                Some(r) => {
                    let q = r
                        .get(4 * i..4 * i + 4)
                        .map(Quat::from_slice)
                        .unwrap_or(Quat::IDENTITY);
                    unit_quat(q).ok_or_else(|| {
                        format!("{what}: instance {i} has a zero rotation quaternion")
                    })?
                }
                None => Quat::IDENTITY,
            };
            out.push(Mat4::from_scale_rotation_translation(si, ri, ti));
        }
        Ok(out)
    }

    /// The geometry of a primitive, built on first use and shared after; `None` when the
    /// primitive has no triangles (line and point modes are warned about here, once).
    fn geometry(
        &mut self,
        mesh: &::gltf::Mesh,
        prim: &Primitive,
        tangents_from: Option<u32>,
    ) -> Result<Option<usize>, String> {
        let label = match mesh.name() {
            Some(n) => format!("mesh '{n}' primitive {}", prim.index()),
            None => format!("mesh #{} primitive {}", mesh.index(), prim.index()),
        };
        let pos = prim
            .get(&Semantic::Positions)
            .ok_or_else(|| format!("{label} has no POSITION"))?;
        let has_tangents = prim.get(&Semantic::Tangents).is_some();
        let tangents_from = tangents_from.filter(|_| !has_tangents);
        let mut accessors = vec![
            Some(pos.index()),
            prim.get(&Semantic::Normals).map(|a| a.index()),
            prim.get(&Semantic::Colors(0)).map(|a| a.index()),
            prim.get(&Semantic::Tangents).map(|a| a.index()),
            prim.indices().map(|a| a.index()),
        ];
        accessors.extend(
            (0..MAX_TEX_COORD_SETS).map(|n| prim.get(&Semantic::TexCoords(n)).map(|a| a.index())),
        );
        let key = GeometryKey {
            accessors,
            mode: prim.mode().as_gl_enum(),
            tangents_from,
        };
        if let Some(&g) = self.geometry_of.get(&key) {
            return Ok(g);
        }
        let built = self.build(prim, &pos, &label, tangents_from)?;
        let slot = built.map(|g| {
            self.asset.geometries.push(g);
            self.asset.geometries.len() - 1
        });
        self.geometry_of.insert(key, slot);
        Ok(slot)
    }

    fn build(
        &mut self,
        prim: &Primitive,
        pos: &Accessor,
        label: &str,
        tangents_from: Option<u32>,
    ) -> Result<Option<Geometry>, String> {
        let mode = prim.mode();
        if !matches!(
            mode,
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan
        ) {
            self.warn(format!(
                "{label}: {} primitive skipped (only triangles are rendered)",
                mode_name(mode)
            ));
            return Ok(None);
        }
        // Checked before reading: the accessor counts bound what reading allocates.
        let index_count = prim.indices().map_or(pos.count(), |a| a.count());
        let triangle_bound = match mode {
            Mode::Triangles => index_count / 3,
            _ => index_count.saturating_sub(2),
        };
        if self.stored_vertices.saturating_add(pos.count()) > MAX_STORED_VERTICES
            || self.stored_triangles.saturating_add(triangle_bound) > MAX_STORED_TRIANGLES
        {
            return Err(format!(
                "{label}: the mesh would store more than {MAX_STORED_VERTICES} vertices or \
                 {MAX_STORED_TRIANGLES} triangles"
            ));
        }
        let positions = self.read_vec3s(pos, &format!("{label} POSITION"))?;
        let n = positions.len();
        if u32::try_from(n).is_err() {
            return Err(format!("{label}: {n} vertices exceed the u32 index range"));
        }
        let flat: Vec<u32> = match prim.indices() {
            Some(acc) => {
                let idx = self.read_indices(&acc, &format!("{label} indices"))?;
                if let Some(&bad) = idx.iter().find(|&&i| i as usize >= n) {
                    return Err(format!(
                        "{label}: index {bad} is not below its {n} vertices"
                    ));
                }
                idx
            }
            // n fits u32, checked above.
            None => (0..n as u32).collect(),
        };
        if mode == Mode::Triangles && flat.len() % 3 != 0 {
            self.warn(format!(
                "{label}: {} indices is not a multiple of 3; the last {} ignored",
                flat.len(),
                flat.len() % 3
            ));
        }
        let indices = assemble(mode, &flat);
        if indices.is_empty() {
            self.warn(format!("{label}: no triangles with area; skipped"));
            return Ok(None);
        }
        let normals = match prim.get(&Semantic::Normals) {
            Some(acc) => {
                let given = self.read_vec3s(&acc, &format!("{label} NORMAL"))?;
                if given.len() != n {
                    return Err(format!(
                        "{label}: NORMAL has {} elements, POSITION {n}",
                        given.len()
                    ));
                }
                let mut normals: Vec<Vec3> = given.iter().map(|v| v.normalize_or_zero()).collect();
                // A zero normal cannot be normalised; such a vertex takes the computed one.
                if normals.contains(&Vec3::ZERO) {
                    let computed = smooth_normals(&positions, &indices);
                    for (v, c) in normals.iter_mut().zip(computed) {
                        if *v == Vec3::ZERO {
                            *v = c;
                        }
                    }
                }
                normals
            }
            None => smooth_normals(&positions, &indices),
        };
        let uvs = self
            .tex_coords(prim, 0, n, label)?
            .unwrap_or(vec![Vec2::ZERO; n]);
        let mut more_uvs = Vec::new();
        for set in 1..MAX_TEX_COORD_SETS {
            match self.tex_coords(prim, set, n, label)? {
                Some(v) => more_uvs.push(v),
                None => break,
            }
        }
        if prim.get(&Semantic::TexCoords(MAX_TEX_COORD_SETS)).is_some() {
            self.warn(format!(
                "{label}: TEXCOORD_{MAX_TEX_COORD_SETS} and above are not read"
            ));
        }
        let colors = match prim.get(&Semantic::Colors(0)) {
            Some(acc) => {
                let dims = acc.dimensions();
                let what = format!("{label} COLOR_0");
                let v = self.read_f32s(&acc, dims, &what)?;
                let k = if dims == Dimensions::Vec4 { 4 } else { 3 };
                if dims != Dimensions::Vec3 && dims != Dimensions::Vec4 {
                    return Err(format!("{what} is not VEC3 or VEC4"));
                }
                if v.len() / k != n {
                    return Err(format!("{what} has {} elements, POSITION {n}", v.len() / k));
                }
                let c = |x: f32| {
                    if x.is_finite() {
                        x.clamp(0.0, 1.0)
                    } else {
                        1.0
                    }
                };
                v.chunks_exact(k)
                    .map(|e| Vec4::new(c(e[0]), c(e[1]), c(e[2]), e.get(3).map_or(1.0, |&a| c(a))))
                    .collect()
            }
            None => Vec::new(),
        };
        if prim.get(&Semantic::Colors(1)).is_some() {
            self.warn(format!(
                "{label}: COLOR_1 and above are not read (COLOR_0 is)"
            ));
        }
        let tangents = match prim.get(&Semantic::Tangents) {
            Some(acc) => {
                let what = format!("{label} TANGENT");
                let v = self.read_f32s(&acc, Dimensions::Vec4, &what)?;
                if v.len() / 4 != n {
                    return Err(format!("{what} has {} elements, POSITION {n}", v.len() / 4));
                }
                v.chunks_exact(4)
                    .zip(&normals)
                    .map(|(t, nrm)| tangent_frame(Vec3::new(t[0], t[1], t[2]), t[3], *nrm))
                    .collect()
            }
            None => match tangents_from {
                Some(set) => {
                    let set_uvs = if set == 0 {
                        Some(&uvs)
                    } else {
                        more_uvs.get(set as usize - 1)
                    };
                    match set_uvs {
                        Some(t) => {
                            let (tangents, ok) =
                                mikktspace_tangents(&positions, &normals, t, &indices);
                            if !ok {
                                self.warn(format!(
                                    "{label}: MikkTSpace could not build tangents; the normal \
                                     texture is drawn in an arbitrary frame"
                                ));
                            }
                            tangents
                        }
                        None => {
                            self.warn(format!(
                                "{label}: its normal texture reads TEXCOORD_{set}, which the \
                                 primitive lacks; the normal texture is drawn in an arbitrary \
                                 frame"
                            ));
                            normals
                                .iter()
                                .map(|nrm| tangent_frame(Vec3::ZERO, 1.0, *nrm))
                                .collect()
                        }
                    }
                }
                None => Vec::new(),
            },
        };
        if prim.morph_targets().len() > 0 {
            self.warn(format!(
                "{label}: morph targets not applied; the base shape is used"
            ));
        }
        self.stored_vertices += positions.len();
        self.stored_triangles += indices.len();
        Ok(Some(Geometry {
            positions,
            normals,
            uvs,
            more_uvs,
            colors,
            tangents,
            indices,
        }))
    }

    /// TEXCOORD_`set` of a primitive of `n` vertices, `None` when it has none.
    fn tex_coords(
        &self,
        prim: &Primitive,
        set: u32,
        n: usize,
        label: &str,
    ) -> Result<Option<Vec<Vec2>>, String> {
        let Some(acc) = prim.get(&Semantic::TexCoords(set)) else {
            return Ok(None);
        };
        let what = format!("{label} TEXCOORD_{set}");
        let v = self.read_f32s(&acc, Dimensions::Vec2, &what)?;
        if v.len() / 2 != n {
            return Err(format!("{what} has {} elements, POSITION {n}", v.len() / 2));
        }
        Ok(Some(v.chunks_exact(2).map(Vec2::from_slice).collect()))
    }
}

/// A normalised copy of `q`, or `None` when it has no usable length.
fn unit_quat(q: Quat) -> Option<Quat> {
    let len = q.length();
    (len.is_finite() && len > 1e-6).then(|| q / len)
}

/// A node's local transform: its `matrix`, or T·R·S (glTF 2.0 §3.5.3).
fn local_matrix(node: &Node) -> Result<Mat4, String> {
    let m = match node.transform() {
        Transform::Matrix { matrix } => Mat4::from_cols_array_2d(&matrix),
        Transform::Decomposed {
            translation,
            rotation,
            scale,
        } => {
            let q = unit_quat(Quat::from_array(rotation)).ok_or_else(|| {
                format!(
                    "{}: rotation {rotation:?} is not a usable quaternion",
                    node_label(node)
                )
            })?;
            Mat4::from_scale_rotation_translation(scale.into(), q, translation.into())
        }
    };
    if !m.is_finite() {
        return Err(format!("{}: non-finite transform", node_label(node)));
    }
    Ok(m)
}

/// Triangle lists from TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN indices, with glTF's
/// winding (§3.7.2.1): strip triangle i is (vᵢ, vᵢ₊₁, vᵢ₊₂) for even i and (vᵢ, vᵢ₊₂, vᵢ₊₁)
/// for odd i, fan triangle i is (v₀, vᵢ₊₁, vᵢ₊₂) (the spec's (vᵢ₊₁, vᵢ₊₂, v₀) rotated).
/// Triangles repeating an index (zero area, strip joins) are dropped.
fn assemble(mode: Mode, idx: &[u32]) -> Vec<[u32; 3]> {
    let tris: Vec<[u32; 3]> = match mode {
        Mode::Triangles => idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect(),
        Mode::TriangleStrip => idx
            .windows(3)
            .enumerate()
            .map(|(i, w)| {
                if i % 2 == 0 {
                    [w[0], w[1], w[2]]
                } else {
                    [w[0], w[2], w[1]]
                }
            })
            .collect(),
        Mode::TriangleFan => match idx.split_first() {
            Some((&first, rest)) => rest.windows(2).map(|w| [first, w[0], w[1]]).collect(),
            None => Vec::new(),
        },
        _ => Vec::new(),
    };
    tris.into_iter()
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .collect()
}

#[cfg(test)]
mod tests;
