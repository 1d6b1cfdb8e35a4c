#!/usr/bin/env python3
"""Renders a pfx-scene format 1 scene with Mitsuba 3, as an independent reference.

Reads our scene TOML, its material libraries and its glTF binaries (.glb, parsed here), builds
the same scene as a Mitsuba scene dictionary and renders it with Mitsuba's path tracer. Needs
Python ≥ 3.11 (tomllib), `mitsuba` (3.9.1 used) and `numpy`; nothing else.

    python3 tests/tools/mitsuba_convert.py SCENE.scene.toml OUT.exr --spp 4096
        [--pass-spp 32] [--variant llvm_ad_rgb] [--seed 0] [--size 256 256] [--threads N]

writes OUT.exr (linear RGB float32, channels R, G, B, rows top first) and OUT.png (a clamped
sRGB preview for looking at, not for comparing). `--threads N` sets Dr.Jit's worker threads
(default: Dr.Jit's own choice, one per core); pinned to one CPU with `taskset -c`, give it 2:
Dr.Jit's LLVM backend hangs with a single thread. The EXR is rewritten after every pass, so an
interrupted render leaves a usable image of fewer samples; OUT.json records the samples done.

The mapping (docs/references.md says why each choice was made):
- Transforms: T·R·S, rotation about X first, then Y, then Z, in degrees; `scale` a number or a
  vector. A glTF node's own matrix (or TRS) applies beneath the object's transform, with its
  children's; a mesh without `node` takes the default scene's roots.
- Meshes: triangles with their vertex normals (Mitsuba interpolates them as we do), written as
  binary PLY files into a temporary folder.
- Materials: `plain` with metalness 0 and specular 0 is `diffuse` (albedo `base`). `plain`
  with metalness 1 and the `metal` family are `principled` with metallic 1: GGX with alpha =
  roughness², Schlick Fresnel from `base` (exponent 5; another `fresnel_power` is refused).
  `glass` is `dielectric` (roughness < 0.03) or `roughdielectric` (GGX, alpha = roughness²,
  visible-normal sampling), int_ior = `ior`, ext_ior = 1, specular_transmittance = `base`;
  with `absorption` > 0 the transmittance is 1 and the shape's interior a `homogeneous`
  medium of sigma_t = −absorption·ln(base), albedo 0 (the integrator is then `volpath`).
  `plain` with `subsurface` 1 (metalness 0, roughness < 0.03) is `dielectric` of int_ior
  (1 + √specular)/(1 − √specular), clear, around a `homogeneous` medium of sigma_t =
  1/thickness (0.01 where thickness is 0), albedo the Chiang–Kutz–Burley inversion of
  A₀ = A/(1 − Rᵢ + Rᵢ·A), A = base·subsurface_tint, Rᵢ the interface's internal diffuse
  reflectance (its own Fresnel quadrature here), `isotropic` phase; `volpath` with max_depth 4096 (our walk is one
  segment of the path; Mitsuba counts each scattering).
  `liquid` is the same, its ior, roughness and base written. `paper`, `petal` and `leaf`
  are `pfx_sheet` (registered here: Lambertian reflection (1 − transmission)·base and
  Lambertian transmission transmission·base; Mitsuba 3.9 ships no `difftrans`). `cloth` is
  `pfx_sheen` (registered here: our cloth model written again, its albedo tables by its own
  quadrature, sampled by the cosine; docs/references.md). An object without `material` takes
  each primitive's glTF material, converted where it is Lambertian (metallic 0,
  KHR_materials_ior 1): `diffuse` of baseColorFactor or a NEAREST/REPEAT `bitmap` of its
  baseColorTexture (sRGB), inside a `normalmap` for a normalTexture of scale 1, all inside
  `twosided` (ours reflects on both faces); TEXCOORD_0 is written to the PLY as (u, v)
  unchanged.
  `emission` adds an `area` emitter of that radiance. Any other material is refused by name.
- Lights: a point `[[light]]` (radius 0) is `point` of intensity color·intensity (W/sr); an
  `[[emitter]]` is a `sphere` with an `area` emitter of radiance color·intensity/(π r²) and a
  black `diffuse` BSDF. A `[sky]` of kind "hdr" is `envmap` of that file, `scale` = intensity,
  turned so that its texels land where ours do (our u = 0.5 + atan2(x, −z)/2π, Mitsuba's
  u = atan2(x, −z)/2π: a half turn about +Y, and −rotation_deg). Mitsuba interpolates the map
  bilinearly, we take the nearest texel: the same only for a map that is constant or smooth at
  the texel scale.
- Camera: `perspective`, vertical `fov`; look_at from `at`, `look_at`, `up`.
- Film: `hdrfilm` of the given size, `box` reconstruction filter (a one-pixel box), RGB float32.
- Haze: a uniform `[haze]` (fog alone, `ambient` 0, `gold` ≤ 1) is a `cube` over lo..hi with a
  `null` BSDF around a `homogeneous` medium: sigma_t = fog, albedo = gold, phase `hg` of g =
  `phase`, or with `back` > 0 a `blendphase` of hg(g) and hg(−g), weight back/(1 + back), and
  `sample_emitters` false unless `--haze-emitter-sampling` (see convert_haze); the integrator
  is then `volpath` (or `--haze-integrator volpathmis`). Noisy densities and ambient light are refused by name.
- Integrator: `path`, max_depth 16 (segments counting the camera ray), rr_depth 5; sampler
  `independent`, `pass_spp` samples per pass, seeds `seed`, `seed` + 1, … per pass.
"""

import argparse
import json
import math
import struct
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np


# --- glTF binary -------------------------------------------------------------------------------

COMPONENTS = {5120: "i1", 5121: "u1", 5122: "i2", 5123: "u2", 5125: "u4", 5126: "f4"}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def read_glb(path: Path):
    data = path.read_bytes()
    magic, version, _ = struct.unpack_from("<III", data, 0)
    if magic != 0x46546C67 or version != 2:
        raise ValueError(f"{path}: not a glTF 2.0 binary")
    off, doc, binary = 12, None, b""
    while off < len(data):
        length, kind = struct.unpack_from("<II", data, off)
        chunk = data[off + 8 : off + 8 + length]
        if kind == 0x4E4F534A:
            doc = json.loads(chunk)
        elif kind == 0x004E4942:
            binary = chunk
        off += 8 + length
    return doc, binary


def accessor(doc, binary, index):
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    dtype = np.dtype("<" + COMPONENTS[acc["componentType"]])
    width = WIDTH[acc["type"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    stride = view.get("byteStride", 0) or dtype.itemsize * width
    count = acc["count"]
    out = np.empty((count, width), dtype=dtype)
    for k in range(count):
        out[k] = np.frombuffer(binary, dtype=dtype, count=width, offset=start + k * stride)
    return out if width > 1 else out[:, 0]


def quat_matrix(q):
    x, y, z, w = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0],
            [0, 0, 0, 1],
        ]
    )


def node_matrix(node):
    if "matrix" in node:
        return np.array(node["matrix"], dtype=float).reshape(4, 4).T
    m = np.eye(4)
    t = node.get("translation", [0, 0, 0])
    s = node.get("scale", [1, 1, 1])
    r = quat_matrix(node.get("rotation", [0, 0, 0, 1]))
    m[:3, 3] = t
    return m @ r @ np.diag([s[0], s[1], s[2], 1.0])


def glb_triangles(path: Path, node_name):
    """(positions, normals or None, faces) pieces of the node (or the default scene's roots),
    in the node's space: one piece per primitive, each with its node matrix applied."""
    return [(p["pos"], p["nrm"], p["faces"]) for p in glb_primitives(path, node_name)[2]]


def glb_primitives(path: Path, node_name):
    """The file's (glTF document, binary chunk, pieces): one piece per primitive of the node
    (or the default scene's roots), a dict of `pos`, `nrm` (or None), `uv` (TEXCOORD_0 or None),
    `faces` and `material` (the primitive's material index or None), in the node's space."""
    doc, binary = read_glb(path)
    nodes = doc.get("nodes", [])
    if node_name is None:
        scene = doc["scenes"][doc.get("scene", 0)]
        roots = [(i, np.eye(4)) for i in scene["nodes"]]
    else:
        found = [i for i, n in enumerate(nodes) if n.get("name") == node_name]
        if len(found) != 1:
            raise ValueError(f"{path}: node {node_name!r} found {len(found)} times")
        # The named node's own transform applies (with its children's beneath it).
        roots = [(found[0], np.eye(4))]
    pieces = []
    stack = list(roots)
    while stack:
        i, parent = stack.pop()
        node = nodes[i]
        m = parent @ node_matrix(node)
        if "mesh" in node:
            for prim in doc["meshes"][node["mesh"]]["primitives"]:
                if prim.get("mode", 4) != 4:
                    raise ValueError(f"{path}: only triangle lists are converted")
                attrs = prim["attributes"]
                pos = accessor(doc, binary, attrs["POSITION"]).astype(float)
                nrm = None
                if "NORMAL" in attrs:
                    nrm = accessor(doc, binary, attrs["NORMAL"]).astype(float)
                uv = None
                if "TEXCOORD_0" in attrs:
                    uv = accessor(doc, binary, attrs["TEXCOORD_0"]).astype(float)
                if "indices" in prim:
                    idx = accessor(doc, binary, prim["indices"]).astype(np.uint32)
                else:
                    idx = np.arange(len(pos), dtype=np.uint32)
                pos = (np.c_[pos, np.ones(len(pos))] @ m.T)[:, :3]
                if nrm is not None:
                    nm = np.linalg.inv(m[:3, :3]).T
                    nrm = nrm @ nm.T
                    nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-30)
                # A mirroring node matrix turns the winding; keep the front face in front.
                faces = idx.reshape(-1, 3)
                if np.linalg.det(m[:3, :3]) < 0:
                    faces = faces[:, ::-1]
                pieces.append({"pos": pos, "nrm": nrm, "uv": uv, "faces": faces,
                               "material": prim.get("material")})
        for c in node.get("children", []):
            stack.append((c, m))
    return doc, binary, pieces


def write_ply(path: Path, pos, nrm, faces, uv=None):
    """A binary PLY of the triangles, with vertex normals and texture coordinates where given
    (glTF's (u, v) written unchanged: Mitsuba's bitmap reads v = 0 at the image's first row,
    as glTF does)."""
    has_n = nrm is not None
    header = ["ply", "format binary_little_endian 1.0", f"element vertex {len(pos)}"]
    header += [f"property float {a}" for a in "xyz"]
    if has_n:
        header += [f"property float {a}" for a in ("nx", "ny", "nz")]
    if uv is not None:
        header += [f"property float {a}" for a in ("u", "v")]
    header += [f"element face {len(faces)}", "property list uchar int vertex_indices", "end_header"]
    verts = np.c_[pos, nrm] if has_n else pos
    if uv is not None:
        verts = np.c_[verts, uv]
    with open(path, "wb") as f:
        f.write(("\n".join(header) + "\n").encode())
        f.write(verts.astype("<f4").tobytes())
        rec = np.zeros(len(faces), dtype=[("n", "u1"), ("i", "<i4", 3)])
        rec["n"] = 3
        rec["i"] = faces
        f.write(rec.tobytes())


# --- the scene ---------------------------------------------------------------------------------


def load_scene(scene_file: Path):
    """The scene and its includes merged (entries of includes first), and the project root."""
    root = scene_file.parent
    for d in [scene_file.parent, *scene_file.parent.parents]:
        if (d / "project.toml").exists():
            root = d
            break

    def read(path, depth=0):
        doc = tomllib.loads(path.read_text())
        merged = {"mesh": {}, "object": [], "light": [], "emitter": [], "materials": []}
        for inc in doc.get("include", []):
            sub = read(root / inc, depth + 1)
            merged["mesh"].update(sub["mesh"])
            for k in ("object", "light", "emitter", "materials"):
                merged[k] += sub[k]
            for k, v in sub.items():
                if k not in merged:
                    merged[k] = v
        merged["mesh"].update(doc.get("mesh", {}))
        for k in ("object", "light", "emitter", "materials"):
            merged[k] += doc.get(k, [])
        for k, v in doc.items():
            if k not in merged and k not in ("include", "format"):
                merged[k] = v
        return merged

    scene = read(scene_file)
    materials = {}
    for lib in scene["materials"]:
        for name, m in tomllib.loads((root / lib).read_text()).get("materials", {}).items():
            materials[name] = m
            if "id" in m:
                materials[m["id"]] = m
    return root, scene, materials


def by_name_or_id(table, key):
    if key in table:
        return table[key]
    for v in table.values():
        if isinstance(v, dict) and v.get("id") == key:
            return v
    raise KeyError(key)


def rgb(v):
    return {"type": "rgb", "value": [float(x) for x in v]}


def convert_material(name, m):
    family = m.get("family", "plain")
    base = m.get("base", [0.5, 0.5, 0.5])
    roughness = float(m.get("roughness", 0.5))
    metalness = float(m.get("metalness", 0.0))
    specular = float(m.get("specular", 0.04))
    if family in ("glass", "liquid"):
        if family == "liquid" and ("ior" not in m or "roughness" not in m or "base" not in m):
            raise ValueError(f"material {name}: write a liquid's ior, roughness and base")
        ior = float(m.get("ior", 1.5))
        # With absorption the colour is the medium's (`interior_medium`); the interface is clear.
        tint = [1.0, 1.0, 1.0] if float(m.get("absorption", 0.0)) > 0 else base
        common = {"int_ior": ior, "ext_ior": 1.0, "specular_transmittance": rgb(tint)}
        if roughness < 0.03:
            return {"type": "dielectric", **common}
        return {
            "type": "roughdielectric",
            "distribution": "ggx",
            "alpha": roughness * roughness,
            "sample_visible": True,
            **common,
        }
    if family == "plain" and float(m.get("subsurface", 0.0)) > 0:
        # A subsurface body (`subsurface_medium` gives its interior): at subsurface 1 the
        # surface is the interface alone, of index (1 + sqrt F0)/(1 - sqrt F0), clear.
        if float(m["subsurface"]) != 1.0 or metalness != 0.0:
            raise ValueError(f"material {name}: only subsurface 1 at metalness 0 is converted")
        if roughness >= 0.03:
            raise ValueError(f"material {name}: only a smooth subsurface interface is converted "
                             "(Mitsuba's roughdielectric loses what multiple scattering keeps)")
        f0 = math.sqrt(min(max(specular, 0.0), 1.0 - 1e-6))
        return {"type": "dielectric", "int_ior": (1.0 + f0) / (1.0 - f0), "ext_ior": 1.0}
    if family == "metal" or (family == "plain" and metalness == 1.0):
        if float(m.get("fresnel_power", 5.0)) != 5.0:
            raise ValueError(f"material {name}: Mitsuba's Schlick has exponent 5 only")
        return {
            "type": "principled",
            "base_color": rgb(base),
            "metallic": 1.0,
            "roughness": roughness,
        }
    if family == "plain" and metalness == 0.0 and specular == 0.0:
        return {"type": "diffuse", "reflectance": rgb(base)}
    if family in ("paper", "petal", "leaf"):
        if "transmission" not in m:
            raise ValueError(f"material {name}: write a sheet's transmission")
        t = float(m["transmission"])
        # (1 - t) base/pi reflected on either side, t base/pi transmitted (Mitsuba 3.9 ships no
        # `difftrans`; `register_sheet` defines the lobe pair).
        r = [(1.0 - t) * float(c) for c in base]
        tt = [t * float(c) for c in base]
        d = {"type": "pfx_sheet"}
        for k, v in zip(("r0", "r1", "r2", "t0", "t1", "t2"), r + tt):
            d[k] = v
        return d
    if family == "cloth":
        if "sheen" not in m or "roughness" not in m or "base" not in m:
            raise ValueError(f"material {name}: write a cloth's sheen, roughness and base")
        for k in ("clearcoat", "transmission", "metalness", "emission"):
            if k in m:
                raise ValueError(f"material {name}: {k} on cloth is not converted")
        d = {"type": "pfx_sheen", "sheen": float(m["sheen"]), "roughness": roughness}
        for k, v in zip(("b0", "b1", "b2"), base):
            d[k] = float(v)
        return d
    raise ValueError(f"material {name}: family {family!r} with these keys is not converted")


def gltf_image(doc, binary, tex_index, tmp: Path, raw: bool):
    """A glTF texture as a Mitsuba `bitmap` of nearest filtering and REPEAT wrapping (the only
    sampler converted: Mitsuba's bilinear filter is not glTF's LINEAR on every level, and it
    has no mip-maps). `raw`: read the 8-bit values as linear data (a normal map), else sRGB."""
    tex = doc["textures"][tex_index]
    sampler = doc.get("samplers", [{}])[tex["sampler"]] if "sampler" in tex else {}
    if sampler.get("magFilter") != 9728 or sampler.get("minFilter") != 9728:
        raise ValueError(f"texture {tex_index}: only NEAREST samplers are converted")
    if sampler.get("wrapS", 10497) != 10497 or sampler.get("wrapT", 10497) != 10497:
        raise ValueError(f"texture {tex_index}: only REPEAT wrapping is converted")
    image = doc["images"][tex["source"]]
    if image.get("mimeType") != "image/png" or "bufferView" not in image:
        raise ValueError(f"texture {tex_index}: only PNG images inside the .glb are converted")
    view = doc["bufferViews"][image["bufferView"]]
    start = view.get("byteOffset", 0)
    out = tmp / f"image{tex['source']}_{'raw' if raw else 'srgb'}.png"
    out.write_bytes(binary[start : start + view["byteLength"]])
    return {"type": "bitmap", "filename": str(out), "filter_type": "nearest",
            "wrap_mode": "repeat", "raw": raw}


def convert_gltf_material(doc, binary, index, tmp: Path):
    """A primitive's own glTF material (the loader's default where no library entry names it):
    converted only where it is Lambertian (metallic 0, KHR_materials_ior `ior` = 1, so F0 = 0:
    our `plain` with specular 0 is then Lambert), as `diffuse` of reflectance baseColorFactor ×
    baseColorTexture (sRGB), inside a `normalmap` for a normal texture of scale 1, inside
    `twosided`. Mitsuba's
    `normalmap` takes its tangent from dp/du, ours from TANGENT (or MikkTSpace): the two agree
    for a flat quad whose TANGENT is dp/du with w = +1 (docs/references.md)."""
    if index is None:
        raise ValueError("a primitive without a material is not converted")
    m = doc["materials"][index]
    label = m.get("name", f"material {index}")
    pbr = m.get("pbrMetallicRoughness", {})
    ext = m.get("extensions", {})
    if float(pbr.get("metallicFactor", 1.0)) != 0.0 or "metallicRoughnessTexture" in pbr:
        raise ValueError(f"glTF {label}: only metallicFactor 0 (no metallicRoughness texture) is converted")
    if float(ext.get("KHR_materials_ior", {}).get("ior", 1.5)) != 1.0:
        raise ValueError(f"glTF {label}: only KHR_materials_ior ior = 1 (no specular layer) is converted")
    for k in ext:
        if k != "KHR_materials_ior":
            raise ValueError(f"glTF {label}: {k} is not converted")
    if any(float(c) != 0.0 for c in m.get("emissiveFactor", [0, 0, 0])) or "occlusionTexture" in m:
        raise ValueError(f"glTF {label}: emission and occlusion are not converted")
    if m.get("alphaMode", "OPAQUE") != "OPAQUE":
        raise ValueError(f"glTF {label}: only OPAQUE is converted")
    factor = [float(c) for c in pbr.get("baseColorFactor", [1, 1, 1, 1])]
    if "baseColorTexture" in pbr:
        if pbr["baseColorTexture"].get("texCoord", 0) != 0 or factor[:3] != [1.0, 1.0, 1.0]:
            raise ValueError(f"glTF {label}: a base colour texture of TEXCOORD_0 and factor 1 only")
        reflectance = gltf_image(doc, binary, pbr["baseColorTexture"]["index"], tmp, raw=False)
    else:
        reflectance = rgb(factor[:3])
    bsdf = {"type": "diffuse", "reflectance": reflectance}
    if "normalTexture" in m:
        nt = m["normalTexture"]
        if float(nt.get("scale", 1.0)) != 1.0 or nt.get("texCoord", 0) != 0:
            raise ValueError(f"glTF {label}: a normal texture of scale 1 and TEXCOORD_0 only")
        bsdf = {"type": "normalmap", "normalmap": gltf_image(doc, binary, nt["index"], tmp, raw=True),
                "bsdf": bsdf}
    # Ours reflects on both faces (docs/materials.md, "World-space `Bsdf`"); Mitsuba's
    # `diffuse` is black seen from behind, which the ground behind a quad would show.
    return {"type": "twosided", "bsdf": bsdf}


def sheen_albedo_table(alpha, n=65):
    """E(μ) of the unscaled Charlie sheen with the Neubelt–Pettineo visibility, at μ_k =
    (k/(n−1))², by Gauss–Legendre quadrature (96 nodes in μi, 128 in φ over a half turn):
    computed here, not taken from ours (which uses a midpoint rule in √μi)."""
    xs, ws = np.polynomial.legendre.leggauss(96)
    mu_i = 0.5 * (xs + 1.0)
    w_mu = 0.5 * ws
    xp, wp = np.polynomial.legendre.leggauss(128)
    phi = 0.5 * math.pi * (xp + 1.0)
    w_phi = 0.5 * math.pi * wp
    out = []
    for k in range(n):
        mu_o = max((k / (n - 1)) ** 2, 1e-4)
        wo = np.array([math.sqrt(max(0.0, 1 - mu_o * mu_o)), 0.0, mu_o])
        s = np.sqrt(np.maximum(0.0, 1 - mu_i**2))
        wi = np.stack([np.outer(s, np.cos(phi)), np.outer(s, np.sin(phi)),
                       np.outer(mu_i, np.ones_like(phi))], axis=-1)
        h = wi + wo
        h /= np.linalg.norm(h, axis=-1, keepdims=True)
        sin2 = np.maximum(0.0, 1 - h[..., 2] ** 2)
        d = (2 + 1 / alpha) * sin2 ** (0.5 / alpha) / (2 * math.pi)
        f = d / (4 * (mu_o + wi[..., 2] - mu_o * wi[..., 2]))
        out.append(2.0 * float(np.sum(f * wi[..., 2] * np.outer(w_mu, w_phi))))
    return np.array(out)


def register_sheen(mi):
    """Registers `pfx_sheen`: the model of our `cloth` family written again here (the formulas
    of docs/materials.md, "Cloth"; none of our code or tables): the Charlie sheen
    s·D(h)/(4(μo + μi − μo μi)) scaled by 1/max E where E exceeds 1, plus a Lambertian base
    base/π·(1 − sE(μo))(1 − sE(μi))/(1 − sĒ), E and Ē by this file's own quadrature, sampled
    by the cosine alone (ours mixes uniform and cosine sampling)."""
    import drjit as dr

    class Sheen(mi.BSDF):
        def __init__(self, props):
            mi.BSDF.__init__(self, props)
            r = min(max(float(props["roughness"]), 0.0), 1.0)
            self.alpha = max(r * r, 0.01)
            weight = min(max(float(props["sheen"]), 0.0), 1.0)
            self.base = mi.Color3f(props["b0"], props["b1"], props["b2"])
            raw = sheen_albedo_table(self.alpha)
            self.scale = weight / max(1.0, float(raw.max()))
            e = np.clip(self.scale * raw, 0.0, 1.0)
            self.n = len(e)
            x = np.linspace(0.0, 1.0, self.n)
            # Ē = ∫ E(μ) 2μ dμ, with μ = x²: ∫ E 4x³ dx (fine trapezoid on the interpolant).
            xf = np.linspace(0.0, 1.0, 20001)
            ef = np.interp(xf, x, e)
            avg = float(np.trapezoid(ef * 4 * xf**3, xf))
            self.base_norm = 1.0 / (math.pi * (1.0 - avg)) if avg < 1.0 - 1e-6 else 0.0
            self.table = mi.Float(e.astype(np.float32))
            flags = mi.BSDFFlags.GlossyReflection | mi.BSDFFlags.FrontSide
            self.m_components = [flags]
            self.m_flags = flags

        def _albedo(self, mu):
            x = dr.sqrt(dr.clip(mu, 0.0, 1.0)) * (self.n - 1)
            i = mi.UInt32(dr.minimum(dr.floor(x), self.n - 2))
            t = x - mi.Float(i)
            e0 = dr.gather(mi.Float, self.table, i)
            e1 = dr.gather(mi.Float, self.table, i + 1)
            return (1.0 - t) * e0 + t * e1

        def _eval(self, si, wo):
            mu_o = mi.Frame3f.cos_theta(si.wi)
            mu_i = mi.Frame3f.cos_theta(wo)
            ok = (mu_o > 0) & (mu_i > 0)
            h = dr.normalize(si.wi + wo)
            sin2 = dr.maximum(0.0, 1.0 - h.z * h.z)
            d = (2.0 + 1.0 / self.alpha) * dr.power(sin2, 0.5 / self.alpha) * (0.5 / math.pi)
            sheen = self.scale * d / (4.0 * (mu_o + mu_i - mu_o * mu_i))
            b = self.base_norm * (1.0 - self._albedo(mu_o)) * (1.0 - self._albedo(mu_i))
            f = (mi.Color3f(sheen) + self.base * b) * mu_i
            pdf = dr.maximum(mu_i, 0.0) * dr.inv_pi
            return dr.select(ok, f, 0.0), dr.select(ok, pdf, 0.0)

        def sample(self, ctx, si, sample1, sample2, active):
            wo = mi.warp.square_to_cosine_hemisphere(sample2)
            f, pdf = self._eval(si, wo)
            bs = mi.BSDFSample3f()
            bs.wo = wo
            bs.pdf = pdf
            bs.eta = 1.0
            bs.sampled_component = mi.UInt32(0)
            bs.sampled_type = mi.UInt32(+mi.BSDFFlags.GlossyReflection)
            ok = active & (pdf > 0)
            return (bs, dr.select(ok, f / dr.maximum(pdf, 1e-20), 0.0))

        def eval(self, ctx, si, wo, active):
            return self._eval(si, wo)[0]

        def pdf(self, ctx, si, wo, active):
            return self._eval(si, wo)[1]

        def eval_pdf(self, ctx, si, wo, active):
            return self._eval(si, wo)

        def traverse(self, callback):
            pass

        def to_string(self):
            return "pfx_sheen"

    mi.register_bsdf("pfx_sheen", lambda props: Sheen(props))


def single_scattering_albedo(a):
    """Chiang, Kutz and Burley 2016: the single-scattering albedo whose half-space random walk
    returns the multiple-scattering albedo `a` (docs/materials.md, "Subsurface scattering")."""
    a = min(max(float(a), 0.0), 1.0)
    if a >= 1.0:
        return 1.0
    s = 4.09712 + 4.20863 * a - math.sqrt(9.59217 + 41.6808 * a + 17.7126 * a * a)
    return min(max(1.0 - s * s, 0.0), 1.0)


def fresnel_dielectric(cos_i, eta):
    """Unpolarised Fresnel reflectance from outside a dielectric of relative index eta >= 1."""
    sin_t2 = (1.0 - cos_i * cos_i) / (eta * eta)
    cos_t = math.sqrt(max(0.0, 1.0 - sin_t2))
    rs = (cos_i - eta * cos_t) / (cos_i + eta * cos_t)
    rp = (eta * cos_i - cos_t) / (eta * cos_i + cos_t)
    return 0.5 * (rs * rs + rp * rp)


def internal_diffuse_reflectance(eta, n=4096):
    """1 - (1 - Re)/eta^2, Re the interface's reflectance to diffuse light from outside."""
    if eta <= 1.0:
        return 0.0
    re = sum(fresnel_dielectric((i + 0.5) / n, eta) * 2.0 * (i + 0.5) / n / n for i in range(n))
    return 1.0 - (1.0 - re) / (eta * eta)


def subsurface_medium(m):
    """The scattering medium inside a `plain` with `subsurface` > 0, else None: sigma_t =
    1/thickness (thickness > 0, else the default mean free path 0.01), grey; albedo the
    inversion of A0 = A/(1 - Ri + Ri A) per channel, A = base * subsurface_tint, Ri the
    interface's internal diffuse reflectance; isotropic phase."""
    if m.get("family", "plain") != "plain" or not float(m.get("subsurface", 0.0)) > 0:
        return None
    base = m.get("base", [0.5, 0.5, 0.5])
    tint = m.get("subsurface_tint", [1.0, 1.0, 1.0])
    colour = [min(max(float(b), 0.0), 1.0) * min(max(float(t), 0.0), 1.0) for b, t in zip(base, tint)]
    thickness = float(m.get("thickness", 0.0))
    mfp = thickness if thickness > 0 else 0.01
    # The share leaving per arrival at the interface from inside, for `colour` to leave in all.
    f0 = math.sqrt(min(max(float(m.get("specular", 0.04)), 0.0), 1.0 - 1e-6))
    ri = internal_diffuse_reflectance((1.0 + f0) / (1.0 - f0))
    per_arrival = [c / (1.0 - ri + ri * c) for c in colour]
    return {
        "type": "homogeneous",
        "sigma_t": 1.0,
        "scale": 1.0 / mfp,
        "albedo": rgb([single_scattering_albedo(c) for c in per_arrival]),
        "phase": {"type": "isotropic"},
    }


def interior_medium(m):
    """The Beer-Lambert medium inside a glass or liquid with `absorption` > 0, or the scattering
    medium of a subsurface body (`subsurface_medium`), else None: sigma_t = -absorption ln(base)
    per unit (a black channel as 1e-4), albedo 0."""
    sss = subsurface_medium(m)
    if sss is not None:
        return sss
    a = float(m.get("absorption", 0.0))
    if m.get("family", "plain") not in ("glass", "liquid") or not a > 0:
        return None
    base = [min(max(float(c), 1e-4), 1.0) for c in m.get("base", [0.5, 0.5, 0.5])]
    sigma = [-a * math.log(c) for c in base]
    # Mitsuba reads an RGB sigma_t as a reflectance in [0, 1]: written over its largest
    # channel, with `scale` that channel.
    top = max(max(sigma), 1e-12)
    return {
        "type": "homogeneous",
        "sigma_t": rgb([x / top for x in sigma]),
        "scale": top,
        "albedo": rgb([0.0, 0.0, 0.0]),
    }


def register_sheet(mi):
    """Registers `pfx_sheet`: Lambertian reflection r/pi on the side of wi and Lambertian
    transmission t/pi to the other, sampled by lobe (probability by luminance) then cosine;
    a few lines of Mitsuba's Python BSDF interface, as its docs' example BSDF is written."""
    import drjit as dr

    class Sheet(mi.BSDF):
        def __init__(self, props):
            mi.BSDF.__init__(self, props)
            self.r = mi.Color3f(props["r0"], props["r1"], props["r2"])
            self.t = mi.Color3f(props["t0"], props["t1"], props["t2"])
            lum = lambda c: 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
            lr, lt = lum([props["r0"], props["r1"], props["r2"]]), lum([props["t0"], props["t1"], props["t2"]])
            self.p = lr / (lr + lt) if lr + lt > 0 else 0.5
            sides = mi.BSDFFlags.FrontSide | mi.BSDFFlags.BackSide
            refl = mi.BSDFFlags.DiffuseReflection | sides
            trans = mi.BSDFFlags.DiffuseTransmission | sides
            self.m_components = [refl, trans]
            self.m_flags = refl | trans

        def _lobe(self, si, wo):
            same = mi.Frame3f.cos_theta(si.wi) * mi.Frame3f.cos_theta(wo) > 0
            cos = dr.abs(mi.Frame3f.cos_theta(wo))
            f = dr.select(same, self.r, self.t) * (cos * dr.inv_pi)
            pdf = dr.select(same, self.p, 1.0 - self.p) * cos * dr.inv_pi
            return f, pdf

        def sample(self, ctx, si, sample1, sample2, active):
            reflect = sample1 < self.p
            wo = mi.warp.square_to_cosine_hemisphere(sample2)
            below = mi.Frame3f.cos_theta(si.wi) < 0
            flip = dr.eq(below, reflect) if hasattr(dr, "eq") else (below == reflect)
            wo = mi.Vector3f(wo.x, wo.y, dr.select(flip, -wo.z, wo.z))
            f, pdf = self._lobe(si, wo)
            bs = mi.BSDFSample3f()
            bs.wo = wo
            bs.pdf = pdf
            bs.eta = 1.0
            bs.sampled_component = dr.select(reflect, mi.UInt32(0), mi.UInt32(1))
            bs.sampled_type = dr.select(
                reflect,
                mi.UInt32(+mi.BSDFFlags.DiffuseReflection),
                mi.UInt32(+mi.BSDFFlags.DiffuseTransmission),
            )
            ok = active & (pdf > 0)
            return (bs, dr.select(ok, f / dr.maximum(pdf, 1e-20), 0.0))

        def eval(self, ctx, si, wo, active):
            return self._lobe(si, wo)[0]

        def pdf(self, ctx, si, wo, active):
            return self._lobe(si, wo)[1]

        def eval_pdf(self, ctx, si, wo, active):
            return self._lobe(si, wo)

        def traverse(self, callback):
            pass

        def to_string(self):
            return "pfx_sheet"

    mi.register_bsdf("pfx_sheet", lambda props: Sheet(props))


def euler_matrix(deg):
    rx, ry, rz = (math.radians(float(a)) for a in deg)
    cx, sx, cy, sy, cz, sz = (
        math.cos(rx),
        math.sin(rx),
        math.cos(ry),
        math.sin(ry),
        math.cos(rz),
        math.sin(rz),
    )
    X = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    Y = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    Z = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    return Z @ Y @ X


def object_matrix(obj):
    m = np.eye(4)
    s = obj.get("scale", 1.0)
    s = [float(s)] * 3 if isinstance(s, (int, float)) else [float(x) for x in s]
    m[:3, :3] = euler_matrix(obj.get("rotate", [0, 0, 0])) @ np.diag(s)
    m[:3, 3] = [float(x) for x in obj.get("at", [0, 0, 0])]
    return m


def build(mi, scene_file: Path, tmp: Path, size, spp, seed, haze_integrator="volpath",
          haze_emitter_sampling=False):
    root, scene, materials = load_scene(scene_file)
    T = mi.ScalarTransform4f
    d = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 16, "rr_depth": 5},
    }
    cam = scene["camera"]
    if cam.get("projection", "perspective") != "perspective":
        raise ValueError("only a perspective camera is converted")
    d["sensor"] = {
        "type": "perspective",
        "fov_axis": "y",
        "fov": float(cam["fov"]),
        "to_world": T().look_at(
            origin=[float(x) for x in cam["at"]],
            target=[float(x) for x in cam["look_at"]],
            up=[float(x) for x in cam.get("up", [0, 1, 0])],
        ),
        "film": {
            "type": "hdrfilm",
            "width": size[0],
            "height": size[1],
            "rfilter": {"type": "box"},
            "pixel_format": "rgb",
            "component_format": "float32",
        },
        "sampler": {"type": "independent", "sample_count": spp, "seed": seed},
    }
    n = 0
    for obj in scene["object"]:
        if obj.get("hidden", False):
            continue
        mesh = by_name_or_id(scene["mesh"], obj["mesh"])
        mname = obj.get("material")
        # Without `material` each primitive is drawn with its own glTF material.
        mat = by_name_or_id(materials, mname) if mname is not None else {}
        bsdf = convert_material(mname, mat) if mname is not None else None
        xf = object_matrix(obj)
        doc, binary, pieces = glb_primitives(root / mesh["file"], mesh.get("node"))
        for piece in pieces:
            ply = tmp / f"shape{n}.ply"
            write_ply(ply, piece["pos"], piece["nrm"], piece["faces"], piece["uv"])
            shape = {
                "type": "ply",
                "filename": str(ply),
                "to_world": T(xf.tolist()),
                "bsdf": bsdf if bsdf is not None
                else convert_gltf_material(doc, binary, piece["material"], tmp),
            }
            medium = interior_medium(mat)
            if medium is not None:
                shape["interior"] = medium
                # `path` ignores media; `volpath` is `path` where there are none.
                d["integrator"]["type"] = "volpath"
                if subsurface_medium(mat) is not None:
                    # Our walk inside a body is one path segment (of at most 256 scatterings);
                    # Mitsuba counts every scattering, so its depth is raised past any walk.
                    d["integrator"]["max_depth"] = 4096
            emission = mat.get("emission", [0, 0, 0])
            if any(float(c) > 0 for c in emission):
                shape["emitter"] = {"type": "area", "radiance": rgb(emission)}
            d[f"shape{n}"] = shape
            n += 1
    for i, light in enumerate(scene["light"]):
        if float(light.get("radius", 0.0)) != 0.0:
            raise ValueError(f"light {light['name']}: only point lights (radius 0) are converted")
        c = [float(x) * float(light["intensity"]) for x in light.get("color", [1, 1, 1])]
        d[f"light{i}"] = {
            "type": "point",
            "position": [float(x) for x in light["position"]],
            "intensity": rgb(c),
        }
    for i, e in enumerate(scene["emitter"]):
        r = float(e["radius"])
        c = [float(x) * float(e["intensity"]) / (math.pi * r * r) for x in e.get("color", [1, 1, 1])]
        d[f"emitter{i}"] = {
            "type": "sphere",
            "center": [float(x) for x in e["position"]],
            "radius": r,
            "bsdf": {"type": "diffuse", "reflectance": rgb([0, 0, 0])},
            "emitter": {"type": "area", "radiance": rgb(c)},
        }
    sky = scene.get("sky")
    if sky is not None:
        if sky.get("kind") != "hdr" or "prepare" in sky:
            raise ValueError("only an hdr sky without [sky.prepare] is converted")
        d["sky"] = {
            "type": "envmap",
            "filename": str(root / sky["path"]),
            "scale": float(sky.get("intensity", 1.0)),
            "to_world": T().rotate(axis=[0, 1, 0], angle=-(180.0 + float(sky.get("rotation_deg", 0.0)))),
        }
    if "sun" in scene:
        raise ValueError("[sun] is not converted")
    haze = scene.get("haze")
    if haze is not None:
        d["integrator"] = {"type": haze_integrator, "max_depth": 16, "rr_depth": 5}
        d["haze"] = convert_haze(mi, haze, haze_emitter_sampling)
    return d


def convert_haze(mi, haze, emitter_sampling=False):
    """[haze] as a `cube` with a `null` BSDF around a `homogeneous` medium: only a uniform haze
    (fog alone, no ambient light) has a Mitsuba counterpart; anything else is refused by name."""
    amount = float(haze.get("amount", 0.0))
    dens = {k: float(haze.get(k, amount * share))
            for k, share in (("fog", 1 / 6), ("smoke", 20.0), ("mist", 0.2), ("floor", 2.0))}
    for k in ("smoke", "mist", "floor"):
        if dens[k] != 0.0:
            raise ValueError(f"[haze] {k} = {dens[k]}: only a uniform haze (fog alone) is converted")
    ambient = [float(x) for x in haze.get("ambient", [0.03, 0.03, 0.03])]
    if any(a != 0.0 for a in ambient):
        raise ValueError("[haze] ambient: medium emission is not converted (write ambient = [0, 0, 0])")
    gold = [float(x) for x in haze.get("gold", [1, 1, 1])]
    if any(g > 1.0 for g in gold):
        raise ValueError("[haze] gold above 1 is not converted")
    lo = np.array([float(x) for x in haze["lo"]])
    hi = np.array([float(x) for x in haze["hi"]])
    g = float(haze.get("phase", 0.3))
    back = float(haze.get("back", 0.5))
    phase = {"type": "hg", "g": g}
    if back > 0.0:
        # Ours: (HG(g) + back·HG(−g)) / (1 + back); Mitsuba's blendphase weighs phase_1 by weight.
        phase = {"type": "blendphase", "weight": back / (1.0 + back),
                 "phase_0": {"type": "hg", "g": g}, "phase_1": {"type": "hg", "g": -g}}
    T = mi.ScalarTransform4f
    return {
        "type": "cube",
        "to_world": T().translate(((lo + hi) / 2).tolist()).scale(((hi - lo) / 2).tolist()),
        "bsdf": {"type": "null"},
        "interior": {
            "type": "homogeneous",
            "sigma_t": dens["fog"],
            "albedo": rgb(gold),
            "phase": phase,
            # Mitsuba 3.9.1's volpath and volpathmis lose most of the light they sample from a
            # point in a medium bounded by a null-BSDF shape (the haze at 14 % of an
            # independent random walk's in tests/data/haze/light_haze, docs/haze.md);
            # phase sampling alone (the default here) agrees with it there.
            "sample_emitters": emitter_sampling,
        },
    }


def write_png(path: Path, img):
    """A clamped sRGB preview, 8-bit, no dependencies beyond zlib."""
    import zlib

    x = np.clip(img, 0.0, 1.0)
    x = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    px = (x * 255 + 0.5).astype(np.uint8)
    h, w, _ = px.shape
    raw = b"".join(b"\0" + px[y].tobytes() for y in range(h))

    def chunk(kind, body):
        c = struct.pack(">I", len(body)) + kind + body
        return c + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9))
    png += chunk(b"IEND", b"")
    path.write_bytes(png)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scene", type=Path)
    ap.add_argument("out", type=Path, help="the .exr to write")
    ap.add_argument("--spp", type=int, default=1024)
    ap.add_argument("--pass-spp", type=int, default=32)
    ap.add_argument("--variant", default="llvm_ad_rgb")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", type=int, nargs=2, default=[256, 256])
    ap.add_argument("--threads", type=int, default=None, help="Dr.Jit worker threads")
    ap.add_argument("--haze-integrator", default="volpath", choices=["volpath", "volpathmis"],
                    help="the integrator of a scene with [haze]")
    ap.add_argument("--haze-emitter-sampling", action="store_true",
                    help="turn the haze medium's emitter sampling on (biased in Mitsuba 3.9.1)")
    args = ap.parse_args()

    import mitsuba as mi

    if args.threads is not None:
        import drjit as dr

        dr.set_thread_count(args.threads)
    mi.set_variant(args.variant)
    register_sheet(mi)
    register_sheen(mi)
    passes = max(1, -(-args.spp // args.pass_spp))
    with tempfile.TemporaryDirectory() as tmp:
        d = build(mi, args.scene.resolve(), Path(tmp), args.size, args.pass_spp, args.seed,
                  args.haze_integrator, args.haze_emitter_sampling)
        scene = mi.load_dict(d)
        acc = None
        t0 = time.time()
        for p in range(passes):
            img = np.array(mi.render(scene, seed=args.seed + p, spp=args.pass_spp), dtype=np.float64)
            acc = img if acc is None else acc + img
            done = (p + 1) * args.pass_spp
            last = p + 1 == passes
            if last or (p + 1) % max(1, passes // 16) == 0:
                mean = (acc / (p + 1)).astype(np.float32)
                mi.Bitmap(mean, pixel_format=mi.Bitmap.PixelFormat.RGB).write(str(args.out))
                write_png(args.out.with_suffix(".png"), mean)
                info = {
                    "scene": str(args.scene),
                    "spp": done,
                    "variant": args.variant,
                    "mitsuba": mi.__version__,
                    "seconds": round(time.time() - t0, 1),
                    "mean_rgb": [float(c) for c in mean.reshape(-1, 3).mean(axis=0)],
                }
                args.out.with_suffix(".json").write_text(json.dumps(info, indent=1) + "\n")
                print(f"{args.out.name}: {done} spp, {time.time() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
