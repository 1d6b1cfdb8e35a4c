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
pub const SUPPORTED_REQUIRED_EXTENSIONS: &[&str] =
    &["EXT_mesh_gpu_instancing", "KHR_mesh_quantization"];

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
            // normal texture reads.
            let tangents_from = gltf_material
                .and_then(|m| self.asset.materials[m].normal_texture.as_ref())
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
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::PathBuf;

    fn data(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/gltf")
            .join(rel)
    }

    fn load_ok(rel: &str, node: Option<&str>) -> MeshAsset {
        match load_gltf(&data(rel), node) {
            Ok(m) => m,
            Err(e) => panic!("{rel} failed: {e}"),
        }
    }

    /// Every invariant the world builder relies on.
    fn check_invariants(m: &MeshAsset) {
        for (gi, g) in m.geometries.iter().enumerate() {
            let n = g.positions.len();
            assert_eq!(g.normals.len(), n, "geometry {gi}");
            assert_eq!(g.uvs.len(), n, "geometry {gi}");
            assert!(!g.indices.is_empty(), "geometry {gi} is empty");
            for t in &g.indices {
                assert!(t.iter().all(|&i| (i as usize) < n), "geometry {gi} index");
                assert!(t[0] != t[1] && t[1] != t[2] && t[0] != t[2]);
            }
            assert!(g.positions.iter().all(|p| p.is_finite()));
            assert!(g.uvs.iter().all(|p| p.is_finite()));
            for nrm in &g.normals {
                assert!((nrm.length() - 1.0).abs() < 1e-4, "normal {nrm:?}");
            }
            for set in &g.more_uvs {
                assert!(set.len() == n && set.iter().all(|p| p.is_finite()));
            }
            assert!(g.colors.is_empty() || g.colors.len() == n);
            assert!(g.colors.iter().all(|c| c.is_finite()));
            assert!(g.tangents.is_empty() || g.tangents.len() == n);
            for t in &g.tangents {
                assert!((t.truncate().length() - 1.0).abs() < 1e-4 && t.w.abs() == 1.0);
            }
        }
        for p in &m.parts {
            assert!(p.gltf_material.is_none_or(|i| i < m.materials.len()));
        }
        for p in &m.parts {
            assert!(p.geometry < m.geometries.len());
            assert!(p.transform.is_finite());
        }
    }

    /// Positions as the `gltf` crate's own reader returns them: an independent reference for
    /// the accessor code above (fine on the valid sample files).
    fn reference_positions(path: &Path, mesh: usize, prim: usize) -> Vec<Vec3> {
        let (doc, buffers, _) = ::gltf::import(path).expect("gltf::import");
        let mesh = doc.meshes().nth(mesh).expect("mesh");
        let prim = mesh.primitives().nth(prim).expect("primitive");
        let reader = prim.reader(|b| Some(&buffers[b.index()]));
        reader
            .read_positions()
            .expect("positions")
            .map(Vec3::from)
            .collect()
    }

    fn write_temp(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        f.write_all(bytes).expect("write");
        f.flush().expect("flush");
        f
    }

    fn base64(data: &[u8]) -> String {
        const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut s = String::new();
        for c in data.chunks(3) {
            let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            s.push(T[(n >> 18) as usize & 63] as char);
            s.push(T[(n >> 12) as usize & 63] as char);
            s.push(if c.len() > 1 {
                T[(n >> 6) as usize & 63] as char
            } else {
                '='
            });
            s.push(if c.len() > 2 {
                T[n as usize & 63] as char
            } else {
                '='
            });
        }
        s
    }

    /// A .gltf with `bin` as one data-URI buffer and one bufferView over all of it; the other
    /// top-level members come from `rest` (JSON members without the outer braces).
    fn gltf_with(bin: &[u8], rest: &str) -> String {
        format!(
            r#"{{"asset":{{"version":"2.0"}},
               "buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
               "bufferViews":[{{"buffer":0,"byteLength":{n}}}],
               {rest}}}"#,
            n = bin.len(),
            b = base64(bin)
        )
    }

    fn f32_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    const ONE_TRIANGLE: [f32; 9] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    const TRIANGLE_ACCESSOR: &str = r#""accessors":[{"bufferView":0,"componentType":5126,
        "count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}]"#;

    #[test]
    fn box_glb_applies_root_matrix() {
        let m = load_ok("Box/Box.glb", None);
        check_invariants(&m);
        assert_eq!(m.geometries.len(), 1);
        assert_eq!(m.stored_triangles(), 12);
        assert_eq!(m.parts.len(), 1);
        let part = &m.parts[0];
        assert_eq!(part.node_path, vec![String::new(), String::new()]);
        assert_eq!(part.material.as_deref(), Some("Red"));
        assert!(!part.double_sided);
        // The root's column-major matrix maps (x, y, z) to (x, z, -y) (Z-up to Y-up).
        let expected = Mat4::from_cols_array(&[
            1.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]);
        assert_eq!(part.transform, expected);
        let g = &m.geometries[0];
        assert_eq!(g.positions, reference_positions(&data("Box/Box.glb"), 0, 0));
        let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for p in &g.positions {
            let w = part.transform.transform_point3(*p);
            assert_eq!(w, Vec3::new(p.x, p.z, -p.y));
            lo = lo.min(w);
            hi = hi.max(w);
        }
        assert_eq!((lo, hi), (Vec3::splat(-0.5), Vec3::splat(0.5)));
        // Normals come from the file (axis-aligned), not computed.
        for n in &g.normals {
            assert_eq!(n.abs().max_element(), 1.0, "{n:?}");
        }
    }

    #[test]
    fn triangle_gets_computed_normal_and_zero_uvs() {
        let m = load_ok("Triangle/glTF/Triangle.gltf", None);
        check_invariants(&m);
        assert_eq!(m.stored_triangles(), 1);
        let g = &m.geometries[0];
        let [a, b, c] = g.indices[0].map(|i| g.positions[i as usize]);
        let face = (b - a).cross(c - a).normalize();
        // The sample triangle lies in z = 0, counter-clockwise from +Z.
        assert!((face - Vec3::Z).length() < 1e-6);
        assert!(g.normals.iter().all(|n| (*n - face).length() < 1e-6));
        assert!(g.uvs.iter().all(|uv| *uv == Vec2::ZERO));
        assert_eq!(m.parts[0].material, None);
        assert!(!m.parts[0].double_sided);
    }

    #[test]
    fn triangle_without_indices_is_sequential() {
        let m = load_ok(
            "TriangleWithoutIndices/glTF/TriangleWithoutIndices.gltf",
            None,
        );
        check_invariants(&m);
        assert_eq!(m.geometries.len(), 1);
        assert_eq!(m.geometries[0].indices, vec![[0, 1, 2]]);
        assert_eq!(m.geometries[0].positions.len(), 3);
    }

    #[test]
    fn simple_meshes_share_one_geometry() {
        let m = load_ok("SimpleMeshes/glTF/SimpleMeshes.gltf", None);
        check_invariants(&m);
        assert_eq!(m.geometries.len(), 1);
        assert_eq!(m.parts.len(), 2);
        assert_eq!(m.parts[0].geometry, m.parts[1].geometry);
        assert_eq!(m.parts[0].transform, Mat4::IDENTITY);
        assert_eq!(
            m.parts[1].transform,
            Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0))
        );
    }

    #[test]
    fn multiple_scenes_uses_default_scene_one() {
        // Scene 0 holds the triangle (1 tri), scene 1 (the default) the square (2 tris).
        let external = load_ok("MultipleScenes/glTF/MultipleScenes.gltf", None);
        check_invariants(&external);
        assert_eq!(external.parts.len(), 1);
        assert_eq!(external.stored_triangles(), 2);
        // The embedded variant reads the same data from base64 data URIs.
        let embedded = load_ok("MultipleScenes/glTF-Embedded/MultipleScenes.gltf", None);
        assert_eq!(embedded, external);
    }

    #[test]
    fn primitive_modes_convert_strips_fans_and_warn_lines() {
        let m = load_ok("MeshPrimitiveModes/glTF/MeshPrimitiveModes.gltf", None);
        check_invariants(&m);
        // TRIANGLES 18 indices → 6, TRIANGLE_STRIP 6 → 4, TRIANGLE_FAN 8 → 6.
        let counts: Vec<usize> = m.geometries.iter().map(Geometry::triangle_count).collect();
        assert_eq!(counts, vec![6, 4, 6]);
        assert_eq!(m.parts.len(), 3);
        for mode in ["POINTS", "LINES", "LINE_LOOP", "LINE_STRIP"] {
            let hit = m
                .warnings
                .iter()
                .any(|w| w.contains(&format!("'mesh with {mode}'")) && w.contains(mode));
            assert!(hit, "no warning for {mode}: {:?}", m.warnings);
        }
        assert_eq!(m.warnings.len(), 4, "{:?}", m.warnings);
        // All three shapes face the viewer (+Z) in the sample: a wrong strip parity would
        // flip every odd strip triangle.
        for (gi, g) in m.geometries.iter().enumerate() {
            for t in &g.indices {
                let [a, b, c] = t.map(|i| g.positions[i as usize]);
                assert!((b - a).cross(c - a).z > 0.0, "geometry {gi} triangle {t:?}");
            }
        }
    }

    #[test]
    fn strip_and_fan_winding_follow_gltf() {
        assert_eq!(
            assemble(Mode::TriangleStrip, &[0, 1, 2, 3, 4]),
            vec![[0, 1, 2], [1, 3, 2], [2, 3, 4]]
        );
        assert_eq!(
            assemble(Mode::TriangleFan, &[0, 1, 2, 3]),
            vec![[0, 1, 2], [0, 2, 3]]
        );
        // Degenerate strip joins are dropped, leftovers of a bad TRIANGLES count ignored.
        assert_eq!(
            assemble(Mode::TriangleStrip, &[0, 1, 1, 2]),
            Vec::<[u32; 3]>::new()
        );
        assert_eq!(assemble(Mode::Triangles, &[0, 1, 2, 3, 4]), vec![[0, 1, 2]]);
        assert!(assemble(Mode::TriangleFan, &[]).is_empty());
    }

    #[test]
    fn metal_rough_spheres_store_the_sphere_once() {
        let path = data("MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb");
        let m = load_ok(
            "MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb",
            None,
        );
        check_invariants(&m);
        // 98 meshes point at one sphere's accessors with 98 materials; 4 label meshes hold
        // 25 further primitives.
        let sphere = m.parts[0].geometry;
        let sphere_parts: Vec<&Part> = m.parts.iter().filter(|p| p.geometry == sphere).collect();
        assert_eq!(sphere_parts.len(), 98);
        assert_eq!(m.parts.len(), 98 + 25);
        assert_eq!(m.geometries.len(), 1 + 25);
        let materials: HashSet<_> = sphere_parts.iter().map(|p| p.material.clone()).collect();
        assert_eq!(materials.len(), 98);
        assert_eq!(
            m.geometries[sphere].positions,
            reference_positions(&path, 0, 0)
        );
        let sphere_tris = m.geometries[sphere].triangle_count();
        assert_eq!(sphere_tris, 10_600);
        assert!(m.stored_triangles() < 20_000, "{}", m.stored_triangles());
        // The shared README's count of the flattened scene.
        assert_eq!(m.placed_triangles(), 1_040_409);
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    }

    #[test]
    fn unlit_is_refused_by_name() {
        let e = load_gltf(&data("UnlitTest/UnlitTest.glb"), None).expect_err("refused");
        assert!(e.message.contains("KHR_materials_unlit"), "{e}");
        assert!(e.to_string().contains("UnlitTest.glb: "), "{e}");
        assert_eq!(e.kind, AssetErrorKind::GltfExtension);
    }

    #[test]
    fn instancing_expands_into_parts() {
        let path = data("SimpleInstancing/SimpleInstancing.glb");
        let m = load_ok("SimpleInstancing/SimpleInstancing.glb", None);
        check_invariants(&m);
        assert_eq!(m.geometries.len(), 1);
        assert_eq!(m.parts.len(), 125);
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        // Reference: the crate's own accessor iterator over accessors 3, 4, 5 (TRANSLATION,
        // ROTATION, SCALE of the file's one instanced node, which has no transform itself).
        let (doc, buffers, _) = ::gltf::import(&path).expect("import");
        let get = |b: ::gltf::Buffer| Some(&buffers[b.index()].0[..]);
        let acc = |i| doc.accessors().nth(i).expect("accessor");
        let t: Vec<[f32; 3]> = ::gltf::accessor::Iter::new(acc(3), get)
            .expect("t")
            .collect();
        let r: Vec<[f32; 4]> = ::gltf::accessor::Iter::new(acc(4), get)
            .expect("r")
            .collect();
        let s: Vec<[f32; 3]> = ::gltf::accessor::Iter::new(acc(5), get)
            .expect("s")
            .collect();
        for (i, part) in m.parts.iter().enumerate() {
            let q = Quat::from_array(r[i]).normalize();
            let expected = Mat4::from_scale_rotation_translation(s[i].into(), q, t[i].into());
            assert!(
                part.transform.abs_diff_eq(expected, 1e-6),
                "instance {i}: {:?} vs {expected:?}",
                part.transform
            );
        }
    }

    #[test]
    fn skin_and_cameras_are_warned() {
        let m = load_ok("SimpleSkin/glTF/SimpleSkin.gltf", None);
        check_invariants(&m);
        assert_eq!(m.parts.len(), 1);
        assert!(
            m.warnings
                .iter()
                .any(|w| w.contains("skin") && w.contains("rest pose")),
            "{:?}",
            m.warnings
        );
        let m = load_ok("Cameras/glTF/Cameras.gltf", None);
        check_invariants(&m);
        assert_eq!(m.parts.len(), 1);
        let cams = m.warnings.iter().filter(|w| w.contains("camera")).count();
        assert_eq!(cams, 2, "{:?}", m.warnings);
    }

    #[test]
    fn punctual_lights_are_warned() {
        let json = gltf_with(
            &f32_bytes(&ONE_TRIANGLE),
            &format!(
                r#"{TRIANGLE_ACCESSOR},
                "extensionsUsed":["KHR_lights_punctual"],
                "extensions":{{"KHR_lights_punctual":{{"lights":[{{"type":"point"}}]}}}},
                "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
                "nodes":[{{"name":"lamp","extensions":{{"KHR_lights_punctual":{{"light":0}}}}}},
                         {{"mesh":0}}],
                "scenes":[{{"nodes":[0,1]}}]"#
            ),
        );
        let f = write_temp(json.as_bytes());
        let m = load_gltf(f.path(), None).expect("loads");
        assert_eq!(m.parts.len(), 1);
        assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
        assert!(m.warnings[0].starts_with("node 'lamp': KHR_lights_punctual light ignored"));
    }

    fn arm_and_hand() -> tempfile::NamedTempFile {
        let json = gltf_with(
            &f32_bytes(&ONE_TRIANGLE),
            &format!(
                r#"{TRIANGLE_ACCESSOR},
                "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
                "nodes":[{{"name":"arm","translation":[5,0,0],"scale":[2,2,2],"children":[1]}},
                         {{"name":"hand","translation":[0,1,0],"mesh":0}},
                         {{"name":"other","translation":[0,0,9],"mesh":0}}],
                "scenes":[{{"nodes":[0,2]}}]"#
            ),
        );
        write_temp(json.as_bytes())
    }

    #[test]
    fn node_selection_drops_own_transform_keeps_childrens() {
        let f = arm_and_hand();
        let whole = load_gltf(f.path(), None).expect("loads");
        assert_eq!(whole.geometries.len(), 1);
        assert_eq!(whole.parts.len(), 2);
        let arm_hand = Mat4::from_translation(Vec3::new(5.0, 0.0, 0.0))
            * Mat4::from_scale(Vec3::splat(2.0))
            * Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
        assert!(whole.parts[0].transform.abs_diff_eq(arm_hand, 1e-6));
        assert_eq!(whole.parts[0].node_path, vec!["arm", "hand"]);
        assert_eq!(
            whole.parts[1].transform,
            Mat4::from_translation(Vec3::new(0.0, 0.0, 9.0))
        );
        assert_eq!(whole.parts[1].node_path, vec!["other"]);

        let arm = load_gltf(f.path(), Some("arm")).expect("loads");
        assert_eq!(arm.parts.len(), 1);
        assert_eq!(
            arm.parts[0].transform,
            Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0))
        );
        assert_eq!(arm.parts[0].node_path, vec!["arm", "hand"]);

        let hand = load_gltf(f.path(), Some("hand")).expect("loads");
        assert_eq!(hand.parts.len(), 1);
        assert_eq!(hand.parts[0].transform, Mat4::IDENTITY);
        assert_eq!(hand.parts[0].node_path, vec!["hand"]);
    }

    #[test]
    fn unknown_or_ambiguous_node_is_refused_by_name() {
        let f = arm_and_hand();
        let e = load_gltf(f.path(), Some("leg")).expect_err("refused");
        assert!(
            e.message.starts_with("node 'leg' is not in the file"),
            "{e}"
        );
        assert!(e.message.contains("'arm'"), "{e}");
        assert_eq!(e.kind, AssetErrorKind::GltfNode);
        let e = load_gltf(&data("Box/Box.glb"), Some("Box")).expect_err("refused");
        assert!(e.message.contains("'Box'"), "{e}");

        let json = gltf_with(
            &f32_bytes(&ONE_TRIANGLE),
            &format!(
                r#"{TRIANGLE_ACCESSOR},
                "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
                "nodes":[{{"name":"twin","mesh":0}},{{"name":"twin","mesh":0}}],
                "scenes":[{{"nodes":[0,1]}}]"#
            ),
        );
        let f = write_temp(json.as_bytes());
        let e = load_gltf(f.path(), Some("twin")).expect_err("refused");
        assert!(e.message.contains("'twin' names 2 nodes"), "{e}");
        assert_eq!(e.kind, AssetErrorKind::GltfNode);
    }

    #[test]
    fn loader_computes_area_weighted_normals() {
        // The two triangles of mod.rs's closed-form case: areas 2 (+Z) and 1 (-X).
        let pos = [0.0, 0.0, 0.0, 0.0, 2.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 1.0];
        let mut bin = f32_bytes(&pos);
        bin.extend([0u16, 1, 2, 0, 3, 1].iter().flat_map(|i| i.to_le_bytes()));
        let json = gltf_with(
            &bin,
            r#""accessors":[
                {"bufferView":0,"componentType":5126,"count":4,"type":"VEC3",
                 "min":[-2,0,0],"max":[0,2,1]},
                {"bufferView":0,"byteOffset":48,"componentType":5123,"count":6,"type":"SCALAR"}],
              "meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
              "nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}],"scene":0"#,
        );
        let f = write_temp(json.as_bytes());
        let m = load_gltf(f.path(), None).expect("loads");
        let g = &m.geometries[0];
        let shared = Vec3::new(-2.0, 0.0, 4.0).normalize();
        assert!(
            (g.normals[0] - shared).length() < 1e-6,
            "{:?}",
            g.normals[0]
        );
        assert!((g.normals[1] - shared).length() < 1e-6);
        assert!((g.normals[2] - Vec3::Z).length() < 1e-6);
        assert!((g.normals[3] - Vec3::NEG_X).length() < 1e-6);
    }

    #[test]
    fn quantized_and_sparse_attributes_are_read() {
        // POSITION as normalised i16 (KHR_mesh_quantization): (1,0,0), (0,1,0), (0,0,0), then
        // a sparse substitution (values of the same i16 type) moving vertex 2 to
        // (0, 16384/32767, 0).
        let mut bin: Vec<u8> = [32767i16, 0, 0, 0, 32767, 0, 0, 0, 0, 0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(); // 3 VEC3 of i16 = 18 bytes, padded to 20
        let sparse_at = bin.len();
        bin.extend(2u16.to_le_bytes()); // sparse index
        bin.extend([0i16, 16384, 0].iter().flat_map(|v| v.to_le_bytes())); // sparse value
        let json = gltf_with(
            &bin,
            &format!(
                r#""extensionsUsed":["KHR_mesh_quantization"],
                "extensionsRequired":["KHR_mesh_quantization"],
                "accessors":[{{"bufferView":0,"componentType":5122,"normalized":true,
                 "count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0],
                 "sparse":{{"count":1,"indices":{{"bufferView":0,"byteOffset":{sparse_at},
                   "componentType":5123}},"values":{{"bufferView":0,"byteOffset":{v}}}}}}}],
                "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],
                "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#,
                v = sparse_at + 2
            ),
        );
        let f = write_temp(json.as_bytes());
        let m = load_gltf(f.path(), None).expect("loads");
        let p = &m.geometries[0].positions;
        assert_eq!(p[0], Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(p[1], Vec3::new(0.0, 1.0, 0.0));
        assert_eq!(p[2], Vec3::new(0.0, 16384.0 / 32767.0, 0.0));

        // The same file requiring an extension nobody implements is refused by its name.
        let other = json.replace(
            r#""extensionsRequired":["KHR_mesh_quantization"]"#,
            r#""extensionsRequired":["KHR_mesh_quantization","KHR_draco_mesh_compression"]"#,
        );
        let f = write_temp(other.as_bytes());
        let e = load_gltf(f.path(), None).expect_err("refused");
        assert!(e.message.contains("KHR_draco_mesh_compression"), "{e}");
    }

    /// Each case is a complete .gltf that must be refused, with a word the message must hold.
    #[test]
    fn malformed_gltf_json_is_refused() {
        let tri = f32_bytes(&ONE_TRIANGLE);
        let mesh = r#""meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}]"#;
        let cases: Vec<(String, &str)> = vec![
            // Index 7 of a 3-vertex primitive.
            (
                {
                    let mut bin = tri.clone();
                    bin.extend([0u16, 1, 7, 0].iter().flat_map(|v| v.to_le_bytes()));
                    gltf_with(
                        &bin,
                        r#""accessors":[{"bufferView":0,"componentType":5126,"count":3,
                          "type":"VEC3","min":[0,0,0],"max":[1,1,0]},
                         {"bufferView":0,"byteOffset":36,"componentType":5123,"count":3,
                          "type":"SCALAR"}],
                        "meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],
                        "nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]"#,
                    )
                },
                "index 7",
            ),
            // An accessor claiming more elements than its view holds.
            (
                gltf_with(
                    &tri,
                    &format!(
                        r#""accessors":[{{"bufferView":0,"componentType":5126,
                          "count":1000000,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
                        {mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                    ),
                ),
                "overrun",
            ),
            // Zero elements (the crate's reader would underflow count - 1).
            (
                gltf_with(
                    &tri,
                    &format!(
                        r#""accessors":[{{"bufferView":0,"componentType":5126,"count":0,
                          "type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
                        {mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                    ),
                ),
                "no triangles",
            ),
            // POSITION pointing past the accessor array (the crate's validation indexes it).
            (
                gltf_with(
                    &tri,
                    &format!(
                        r#"{TRIANGLE_ACCESSOR},
                        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":5}}}}]}}],
                        "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                    ),
                ),
                "accessor 5",
            ),
            // A cycle in the node graph.
            (
                gltf_with(
                    &tri,
                    &format!(
                        r#"{TRIANGLE_ACCESSOR},{mesh},
                        "nodes":[{{"name":"a","children":[1]}},{{"name":"b","children":[0],"mesh":0}}],
                        "scenes":[{{"nodes":[0]}}]"#
                    ),
                ),
                "reached twice",
            ),
            // A translation that overflows f32, and a zero quaternion.
            (
                gltf_with(
                    &tri,
                    &format!(
                        r#"{TRIANGLE_ACCESSOR},{mesh},
                        "nodes":[{{"translation":[1e39,0,0],"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                    ),
                ),
                "non-finite",
            ),
            (
                gltf_with(
                    &tri,
                    &format!(
                        r#"{TRIANGLE_ACCESSOR},{mesh},
                        "nodes":[{{"rotation":[0,0,0,0],"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#
                    ),
                ),
                "quaternion",
            ),
            // A byteStride smaller than the element, and a view outside its buffer.
            (
                gltf_with(&tri, &format!(r#"{TRIANGLE_ACCESSOR},{mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#))
                    .replacen(r#""byteLength":36}"#, r#""byteLength":36,"byteStride":4}"#, 1),
                "byteStride 4",
            ),
            (
                gltf_with(&tri, &format!(r#"{TRIANGLE_ACCESSOR},{mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#))
                    .replacen(r#""buffer":0,"byteLength":36"#, r#""buffer":0,"byteOffset":40,"byteLength":36"#, 1),
                "outside buffer",
            ),
            // Missing external buffer, unsupported scheme, bad escape.
            (
                format!(
                    r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":36,"uri":"nope.bin"}}],
                    "bufferViews":[{{"buffer":0,"byteLength":36}}],{TRIANGLE_ACCESSOR},{mesh},
                    "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#
                ),
                "nope.bin",
            ),
            (
                format!(
                    r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":36,"uri":"http://x/y.bin"}}],
                    "bufferViews":[{{"buffer":0,"byteLength":36}}],{TRIANGLE_ACCESSOR},{mesh},
                    "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#
                ),
                "scheme",
            ),
            (
                format!(
                    r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":36,"uri":"a%FFb.bin"}}],
                    "bufferViews":[{{"buffer":0,"byteLength":36}}],{TRIANGLE_ACCESSOR},{mesh},
                    "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#
                ),
                "malformed URI",
            ),
            // A buffer shorter than its byteLength; glTF 1.0; not JSON at all.
            (
                gltf_with(&tri, &format!(r#"{TRIANGLE_ACCESSOR},{mesh},"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]"#))
                    .replacen(r#""byteLength":36,"uri""#, r#""byteLength":80,"uri""#, 1),
                "fewer than its byteLength",
            ),
            (
                r#"{"asset":{"version":"1.0"}}"#.to_string(),
                "version 1.0",
            ),
            ("solid cube\nendsolid".to_string(), "not a glTF JSON"),
        ];
        for (i, (json, word)) in cases.iter().enumerate() {
            let f = write_temp(json.as_bytes());
            match load_gltf(f.path(), None) {
                Ok(_) => panic!("case {i} ({word}) accepted"),
                Err(e) => assert!(e.message.contains(word), "case {i}: {e}"),
            }
        }
    }

    #[test]
    fn truncated_or_corrupt_glb_never_panics() {
        let good = std::fs::read(data("Box/Box.glb")).expect("read");
        // Every truncation is an error.
        for cut in 0..good.len() {
            let f = write_temp(&good[..cut]);
            assert!(load_gltf(f.path(), None).is_err(), "cut at {cut} accepted");
        }
        // Header and chunk lengths that lie.
        let mut bad = good.clone();
        bad[8..12].copy_from_slice(&5u32.to_le_bytes());
        let e = load_gltf(write_temp(&bad).path(), None).expect_err("refused");
        assert!(e.message.contains("below 12"), "{e}");
        assert_eq!(e.kind, AssetErrorKind::GltfInvalid);
        let mut bad = good.clone();
        bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = load_gltf(write_temp(&bad).path(), None).expect_err("refused");
        assert!(e.message.contains("truncated GLB"), "{e}");
        // Deterministic byte corruption anywhere: any answer but a panic is fine.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..600 {
            let mut bytes = good.clone();
            for _ in 0..(1 + next() % 4) {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = next() as u8;
            }
            let _ = load_gltf(write_temp(&bytes).path(), None);
        }
    }

    /// A 2 × 1 RGBA PNG with alphas 10 and 250.
    fn two_texel_png() -> Vec<u8> {
        let mut img = image::RgbaImage::new(2, 1);
        img.put_pixel(0, 0, image::Rgba([1, 2, 3, 10]));
        img.put_pixel(1, 0, image::Rgba([1, 2, 3, 250]));
        let mut out = Vec::new();
        image::DynamicImage::ImageRgba8(img)
            .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    }

    /// One triangle with TEXCOORD_0 and one material (`material`, JSON), plus `more` top-level
    /// members (textures, images, samplers, extra bufferViews); `extra_bin` is appended to the
    /// buffer after the vertex data, at byte 60.
    fn textured_triangle(material: &str, more: &str, extra_bin: &[u8]) -> (Vec<u8>, String) {
        let mut bin = f32_bytes(&ONE_TRIANGLE);
        bin.extend(f32_bytes(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0]));
        bin.extend_from_slice(extra_bin);
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1}},"material":0}}]}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
              {{"bufferView":0,"byteOffset":36,"componentType":5126,"count":3,"type":"VEC2"}}],
            "materials":[{material}]{more}"#
        );
        (bin, json)
    }

    /// Wraps a JSON document's text (without its closing brace) and a buffer into the GLB
    /// container.
    fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
        let mut j = json.as_bytes().to_vec();
        while j.len() % 4 != 0 {
            j.push(b' ');
        }
        let mut b = bin.to_vec();
        while b.len() % 4 != 0 {
            b.push(0);
        }
        let total = 12 + 8 + j.len() + 8 + b.len();
        let mut out = Vec::new();
        out.extend_from_slice(b"glTF");
        out.extend(2u32.to_le_bytes());
        out.extend((total as u32).to_le_bytes());
        out.extend((j.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend(j);
        out.extend((b.len() as u32).to_le_bytes());
        out.extend_from_slice(b"BIN\0");
        out.extend(b);
        out
    }

    const MASK_LEAF: &str = r#"{"name":"leaf","alphaMode":"MASK","alphaCutoff":0.3,
        "pbrMetallicRoughness":{"baseColorFactor":[1,1,1,0.5],"baseColorTexture":{"index":0}}}"#;

    fn assert_two_texel_coverage(m: &MeshAsset, wrap_s: Wrap, filter: Filter) {
        assert_eq!(m.coverages.len(), 1, "{:?}", m.warnings);
        assert_eq!(m.parts[0].coverage, Some(0));
        let c = &m.coverages[0];
        assert_eq!(c.material, "leaf");
        assert!(!c.blend);
        assert_eq!((c.factor, c.file_cutoff), (0.5, 0.3));
        let t = c.texture.as_ref().expect("texture alpha");
        assert_eq!(
            (t.width, t.height, t.alpha.as_slice()),
            (2, 1, &[10u8, 250][..])
        );
        assert_eq!(
            (t.wrap_s, t.wrap_t, t.filter),
            (wrap_s, Wrap::Repeat, filter)
        );
        // The same image shades the material: decoded once, as RGBA.
        let mat = &m.materials[m.parts[0].gltf_material.expect("material")];
        let t = mat
            .base_color_texture
            .as_ref()
            .expect("base colour texture");
        assert_eq!(t.image.texels, [[1, 2, 3, 10], [1, 2, 3, 250]]);
        assert_eq!((t.wrap_s, t.filter, t.tex_coord), (wrap_s, filter, 0));
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    }

    #[test]
    fn mask_texture_alpha_is_read_from_a_data_uri() {
        let png = two_texel_png();
        let (bin, json) = textured_triangle(
            MASK_LEAF,
            &format!(
                r#","textures":[{{"source":0,"sampler":0}}],
                "samplers":[{{"magFilter":9728,"wrapS":33648}}],
                "images":[{{"uri":"data:image/png;base64,{}"}}]"#,
                base64(&png)
            ),
            &[],
        );
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(doc.as_bytes());
        let m = load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"));
        check_invariants(&m);
        assert_two_texel_coverage(&m, Wrap::MirroredRepeat, Filter::Nearest);
    }

    #[test]
    fn mask_texture_alpha_is_read_from_a_glb_buffer_view() {
        let png = two_texel_png();
        let (bin, json) = textured_triangle(
            MASK_LEAF,
            &format!(
                r#","textures":[{{"source":0}}],
                "images":[{{"bufferView":1,"mimeType":"image/png"}}],
                "buffers":[{{"byteLength":{n}}}],
                "bufferViews":[{{"buffer":0,"byteLength":60}},{{"buffer":0,"byteOffset":60,"byteLength":{p}}}]}}"#,
                n = 60 + png.len(),
                p = png.len()
            ),
            &png,
        );
        let f = write_temp(&glb(&json, &bin));
        let m = load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"));
        // No sampler: glTF's defaults, REPEAT and (no magFilter) bilinear.
        assert_two_texel_coverage(&m, Wrap::Repeat, Filter::Bilinear);
    }

    #[test]
    fn mask_texture_alpha_is_read_from_a_file_beside_the_gltf() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("leaf alpha.png"), two_texel_png()).unwrap();
        std::fs::write(dir.path().join("bad.png"), b"\x89PNG\r\n\x1a\nbroken").unwrap();
        let write = |name: &str, image_uri: &str| {
            let (bin, json) = textured_triangle(
                MASK_LEAF,
                &format!(
                    r#","textures":[{{"source":0,"sampler":0}}],
                    "samplers":[{{"wrapS":33071,"magFilter":9729}}],
                    "images":[{{"uri":"{image_uri}","name":"leafimg"}}]"#
                ),
                &[],
            );
            let doc = format!(
                r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
                "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
                n = bin.len(),
                b = base64(&bin)
            );
            let path = dir.path().join(name);
            std::fs::write(&path, doc).unwrap();
            path
        };
        let m = load_gltf(&write("ok.gltf", "leaf%20alpha.png"), None)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_two_texel_coverage(&m, Wrap::ClampToEdge, Filter::Bilinear);
        // A missing image is unreadable, a broken one invalid; both name the material and
        // the image.
        let e = load_gltf(&write("missing.gltf", "nope.png"), None).unwrap_err();
        assert_eq!(e.kind, AssetErrorKind::Unreadable, "{e}");
        assert!(
            e.message
                .contains("material 'leaf': base colour texture image 0 'leafimg'"),
            "{e}"
        );
        let e = load_gltf(&write("broken.gltf", "bad.png"), None).unwrap_err();
        assert_eq!(e.kind, AssetErrorKind::GltfInvalid, "{e}");
        assert!(e.message.contains("image 0 'leafimg'"), "{e}");
        let e = load_gltf(&write("http.gltf", "http://example.com/a.png"), None).unwrap_err();
        assert!(e.message.contains("not supported"), "{e}");
    }

    #[test]
    fn other_texcoord_sets_blend_and_opaque_materials() {
        let png = two_texel_png();
        let images = format!(
            r#","textures":[{{"source":0}}],"images":[{{"uri":"data:image/png;base64,{}"}}]"#,
            base64(&png)
        );
        let load = |material: &str| {
            let (bin, json) = textured_triangle(material, &images, &[]);
            let doc = format!(
                r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
                "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
                n = bin.len(),
                b = base64(&bin)
            );
            let f = write_temp(doc.as_bytes());
            load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"))
        };
        // TEXCOORD_1: warned by name, the factor alone is the alpha.
        let m = load(
            r#"{"name":"leaf","alphaMode":"MASK","pbrMetallicRoughness":{"baseColorFactor":[1,1,1,0.25],
            "baseColorTexture":{"index":0,"texCoord":1}}}"#,
        );
        let c = &m.coverages[0];
        assert_eq!(
            (c.factor, c.file_cutoff, c.texture.is_none()),
            (0.25, 0.5, true)
        );
        assert!(
            m.warnings.iter().any(|w| {
                w.starts_with(
                "material 'leaf': its base colour texture reads TEXCOORD_1; only TEXCOORD_0 is read"
            )
            }),
            "{:?}",
            m.warnings
        );
        // BLEND is a cut-out too, marked as such.
        let m = load(
            r#"{"name":"glass","alphaMode":"BLEND","pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}"#,
        );
        assert!(m.coverages[0].blend && m.coverages[0].texture.is_some());
        assert_eq!(m.coverages[0].factor, 1.0);
        // OPAQUE: no coverage; the texture shades the material, without a warning.
        let m = load(r#"{"name":"wall","pbrMetallicRoughness":{"baseColorTexture":{"index":0}}}"#);
        assert!(m.coverages.is_empty() && m.parts[0].coverage.is_none());
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert!(m.materials[0].base_color_texture.is_some());
    }

    /// Factors, texture slots with their sets, samplers and KHR_texture_transform, emissive
    /// strength and ior, read as written; undrawn extensions and occlusion named once per
    /// file, however many materials hold them.
    #[test]
    fn material_parameters_are_read_and_undrawn_ones_named_once() {
        let png = two_texel_png();
        let images = format!(
            r#","textures":[{{"source":0,"sampler":0}},{{"source":0,"sampler":1}}],
            "samplers":[{{"magFilter":9728,"wrapS":33071,"wrapT":33648}},{{"minFilter":9987}}],
            "images":[{{"uri":"data:image/png;base64,{}"}}]"#,
            base64(&png)
        );
        let material = r#"{"name":"a","emissiveFactor":[0.1,0.2,0.3],
            "pbrMetallicRoughness":{"baseColorFactor":[0.8,0.4,0.2,1],"metallicFactor":0.25,
              "roughnessFactor":0.75,"baseColorTexture":{"index":0,"texCoord":1},
              "metallicRoughnessTexture":{"index":1,"extensions":{"KHR_texture_transform":
                {"offset":[0.5,0.25],"rotation":1.5707964,"scale":[2,3],"texCoord":2}}}},
            "normalTexture":{"index":0,"scale":0.5},"emissiveTexture":{"index":1},
            "occlusionTexture":{"index":0},
            "extensions":{"KHR_materials_emissive_strength":{"emissiveStrength":4},
              "KHR_materials_ior":{"ior":2.0},"KHR_materials_clearcoat":{},"KHR_materials_sheen":{}}},
            {"name":"b","occlusionTexture":{"index":0},"extensions":{"KHR_materials_clearcoat":{}}}"#;
        let (mut bin, json) = textured_triangle(material, &images, &[]);
        // A second primitive with material 1 on the same accessors.
        let json = json.replace(
            r#""material":0}]"#,
            r#""material":0},{"attributes":{"POSITION":0,"TEXCOORD_0":1},"material":1}]"#,
        );
        bin.extend([0u8; 0]);
        let doc = format!(
            r#"{json},"buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(doc.as_bytes());
        let m = load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.materials.len(), 2);
        let a = &m.materials[0];
        assert_eq!(a.label, "material 'a'");
        assert_eq!(a.base_color, [0.8, 0.4, 0.2, 1.0]);
        assert_eq!((a.metallic, a.roughness, a.ior), (0.25, 0.75, 2.0));
        // emissiveFactor × emissiveStrength.
        let e = a.emissive;
        assert!(
            (e[0] - 0.4).abs() < 1e-6 && (e[1] - 0.8).abs() < 1e-6 && (e[2] - 1.2).abs() < 1e-6
        );
        let bc = a.base_color_texture.as_ref().unwrap();
        assert_eq!(
            (bc.tex_coord, bc.wrap_s, bc.wrap_t, bc.filter),
            (1, Wrap::ClampToEdge, Wrap::MirroredRepeat, Filter::Nearest)
        );
        let mr = a.metallic_roughness_texture.as_ref().unwrap();
        // The extension's texCoord wins over the slot's; sampler 1 has glTF's defaults.
        assert_eq!(
            (mr.tex_coord, mr.wrap_s, mr.filter),
            (2, Wrap::Repeat, Filter::Bilinear)
        );
        // T·R·S: (1, 0) scaled to (2, 0), turned a quarter (the extension's R maps (x, 0) to
        // (0, −x)), offset: (0.5, 0.25 − 2).
        let q = mr.transform.apply(Vec2::new(1.0, 0.0));
        assert!((q - Vec2::new(0.5, -1.75)).length() < 1e-5, "{q}");
        // One image, shared by every slot.
        assert!(Arc::ptr_eq(&bc.image, &mr.image));
        assert_eq!(a.normal_texture.as_ref().unwrap().scale, 0.5);
        let b = &m.materials[1];
        assert_eq!(
            (b.metallic, b.roughness, b.ior, b.base_color),
            (1.0, 1.0, 1.5, [1.0; 4])
        );
        let count = |needle: &str| m.warnings.iter().filter(|w| w.contains(needle)).count();
        assert_eq!(
            count("KHR_materials_clearcoat is not rendered yet"),
            1,
            "{:?}",
            m.warnings
        );
        assert_eq!(
            count("KHR_materials_sheen is not rendered yet"),
            1,
            "{:?}",
            m.warnings
        );
        assert_eq!(
            count("occlusion textures are not used"),
            1,
            "{:?}",
            m.warnings
        );
        assert_eq!(
            count("mip-mapped minFilter is not applied yet"),
            1,
            "{:?}",
            m.warnings
        );
        assert_eq!(count("emissive_strength"), 0);
        assert_eq!(count("KHR_materials_ior"), 0);
        // The normal texture needs tangents: MikkTSpace made them, unit and orthogonal to the
        // normal, for the one geometry (the file has no TANGENT).
        let g = &m.geometries[m.parts[0].geometry];
        assert_eq!(g.tangents.len(), 3);
        for (t, n) in g.tangents.iter().zip(&g.normals) {
            assert!(
                (t.truncate().length() - 1.0).abs() < 1e-5 && t.truncate().dot(*n).abs() < 1e-5
            );
            assert!(t.w.abs() == 1.0);
        }
    }

    /// MikkTSpace on a quad in z = 0 whose u runs along +X and v down −Y (glTF: v = 0 at the
    /// top of the image): the tangent is +X, and the bitangent w · n × t is +Y, up the image,
    /// as a normal texture's +Y is.
    #[test]
    fn generated_tangents_follow_u_and_up_the_image() {
        let positions = [
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ];
        let normals = [Vec3::Z; 4];
        let uvs = [
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 0.0),
        ];
        let (t, ok) = mikktspace_tangents(&positions, &normals, &uvs, &[[0, 1, 2], [0, 2, 3]]);
        assert!(ok);
        for t in t {
            assert!((t.truncate() - Vec3::X).length() < 1e-5, "{t}");
            let b = Vec3::Z.cross(t.truncate()) * t.w;
            assert!((b - Vec3::Y).length() < 1e-5, "{b}");
        }
        // The u axis mirrored: the tangent turns to −X and the sign keeps the bitangent up.
        let mirrored: Vec<Vec2> = uvs.iter().map(|uv| Vec2::new(1.0 - uv.x, uv.y)).collect();
        let (t, _) = mikktspace_tangents(&positions, &normals, &mirrored, &[[0, 1, 2], [0, 2, 3]]);
        for t in t {
            assert!((t.truncate() + Vec3::X).length() < 1e-5, "{t}");
            assert!((Vec3::Z.cross(t.truncate()) * t.w - Vec3::Y).length() < 1e-5);
        }
    }

    /// A COLOR_0 of normalised bytes (VEC4) and a TEXCOORD_1 are kept per vertex.
    #[test]
    fn vertex_colours_and_second_texcoords_are_kept() {
        let mut bin = f32_bytes(&ONE_TRIANGLE);
        bin.extend(f32_bytes(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0]));
        bin.extend([255u8, 0, 51, 255, 0, 255, 0, 128, 0, 0, 255, 0]);
        let json = format!(
            r#"{{"asset":{{"version":"2.0"}},"scenes":[{{"nodes":[0]}}],"nodes":[{{"mesh":0}}],
            "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_1":1,"TEXCOORD_0":1,"COLOR_0":2}}}}]}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}},
              {{"bufferView":0,"byteOffset":36,"componentType":5126,"count":3,"type":"VEC2"}},
              {{"bufferView":0,"byteOffset":60,"componentType":5121,"normalized":true,"count":3,"type":"VEC4"}}],
            "buffers":[{{"byteLength":{n},"uri":"data:application/octet-stream;base64,{b}"}}],
            "bufferViews":[{{"buffer":0,"byteLength":{n}}}]}}"#,
            n = bin.len(),
            b = base64(&bin)
        );
        let f = write_temp(json.as_bytes());
        let m = load_gltf(f.path(), None).unwrap_or_else(|e| panic!("{e}"));
        let g = &m.geometries[0];
        assert_eq!(g.more_uvs.len(), 1);
        assert_eq!(g.more_uvs[0], g.uvs);
        assert_eq!(g.colors[0], Vec4::new(1.0, 0.0, 0.2, 1.0));
        assert!((g.colors[1].w - 128.0 / 255.0).abs() < 1e-6);
        assert!(g.tangents.is_empty());
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
    }

    /// Khronos' AlphaBlendModeTest (the project's copy): four cut-out materials reading one
    /// PNG, decoded once; the JPEG textures of its opaque materials are never decoded.
    #[test]
    fn alpha_blend_mode_test_reads_its_cutouts() {
        let file = data("AlphaBlendModeTest/AlphaBlendModeTest.glb");
        let m = load_gltf(&file, None).unwrap_or_else(|e| panic!("{e}"));
        let mut got: Vec<(&str, bool, f32)> = m
            .coverages
            .iter()
            .map(|c| (c.material.as_str(), c.blend, c.file_cutoff))
            .collect();
        got.sort_by(|a, b| a.0.cmp(b.0));
        assert_eq!(
            got,
            [
                ("MatBlend", true, 0.5),
                ("MatCutoff25", false, 0.25),
                ("MatCutoff75", false, 0.75),
                ("MatCutoffDefault", false, 0.5)
            ]
        );
        let t = m.coverages[0].texture.as_ref().expect("the PNG has alpha");
        assert!(m
            .coverages
            .iter()
            .all(|c| c.texture.as_ref().is_some_and(|u| Arc::ptr_eq(t, u))));
        let (lo, hi) = (t.alpha.iter().min().unwrap(), t.alpha.iter().max().unwrap());
        assert!(*lo < 64 && *hi > 192, "alpha range {lo}..{hi}");
    }

    /// Every model of the project's copy (`tests/data/gltf`) loads with the invariants held,
    /// or is refused for a required extension, and the refused set is exactly the two models
    /// that require one the loader does not implement.
    #[test]
    fn every_project_model_loads_or_is_refused_with_a_reason() {
        let root = data("");
        let mut files = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(&d).expect("read_dir").flatten() {
                let p = entry.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if matches!(
                    p.extension().and_then(|e| e.to_str()),
                    Some("gltf") | Some("glb")
                ) {
                    files.push(p);
                }
            }
        }
        files.sort();
        assert_eq!(files.len(), 21, "models found: {files:?}");
        // Triangles placed by the default scene, counted by an independent Python walk of the
        // JSON (indices/3 for TRIANGLES, n-2 for strips and fans, once per node reaching a
        // mesh); MetalRoughSpheres matches the asset README.
        let placed: HashMap<&str, usize> = [
            ("NegativeScaleTest/NegativeScaleTest.glb", 7724),
            ("TextureTransformTest/glTF/TextureTransformTest.gltf", 24),
            ("OrientationTest/OrientationTest.glb", 524),
            (
                "MetalRoughSpheresNoTextures/MetalRoughSpheresNoTextures.glb",
                1_040_409,
            ),
            ("Box/Box.glb", 12),
        ]
        .into_iter()
        .collect();
        let mut refused = Vec::new();
        let mut loaded = 0;
        for file in &files {
            let name = file
                .strip_prefix(&root)
                .unwrap_or(file)
                .display()
                .to_string();
            match load_gltf(file, None) {
                Ok(m) => {
                    check_invariants(&m);
                    assert!(!m.parts.is_empty(), "{name}: no parts");
                    if let Some(&n) = placed.get(name.as_str()) {
                        assert_eq!(m.placed_triangles(), n, "{name}");
                    }
                    loaded += 1;
                    eprintln!(
                        "{name}: ok, {} geometries, {} parts, {} stored / {} placed triangles, \
                         {} warnings{}",
                        m.geometries.len(),
                        m.parts.len(),
                        m.stored_triangles(),
                        m.placed_triangles(),
                        m.warnings.len(),
                        m.warnings
                            .first()
                            .map_or(String::new(), |w| format!(" (first: {w})"))
                    );
                }
                Err(e) => {
                    eprintln!("{name}: refused: {}", e.message);
                    assert!(
                        e.message.contains("requires the glTF extension"),
                        "{name}: unexpected refusal: {e}"
                    );
                    refused.push(name);
                }
            }
        }
        assert_eq!(
            refused,
            [
                "IridescenceSuzanne/IridescenceSuzanne.glb",
                "UnlitTest/UnlitTest.glb"
            ]
        );
        assert_eq!(loaded, files.len() - 2);
    }
}
