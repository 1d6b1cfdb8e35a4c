#!/usr/bin/env python3
"""Writes the textured and normal-mapped planes of the `surfaces` reference project
(tests/data/references/surfaces/): `meshes/maps.glb` and two scenes.

Each scene is the `surfaces` set-up (checkered diffuse ground, constant sky, the point light
`key`) with one 1.2 x 1.2 quad standing 0.9 above the ground, facing the camera (+Z). The
quad has no `material`: it is drawn with its glTF material, the loader's default
(docs/assets.md, "glTF materials"):

  plane_textured.scene.toml       `checker_tex`: a 6 x 6 texel sRGB base-colour texture,
                                  sampler NEAREST / NEAREST, REPEAT; at 64 x 64 pixels a texel
                                  covers about 7 x 7 pixels, so no filtering question arises
                                  (texel edges fall inside pixels, which both renderers'
                                  one-pixel box filters average alike)
  plane_normal_mapped.scene.toml  `bumps`: a uniform base colour under a 16 x 8 tangent-space
                                  normal texture (NEAREST, linear 8-bit), its normals tilted
                                  up to 25 degrees about the bitangent and up to 12 degrees
                                  about the tangent, with explicit TANGENT (1, 0, 0, +1)

Both materials are Lambertian: metallic 0, roughness 1, KHR_materials_ior ior = 1 (F0 = 0, no
specular layer), so Mitsuba's `diffuse` is the same model. The texture coordinates run u along
+X and v downwards (-Y), glTF's image orientation, so texel row 0 is the quad's top edge.

Standard library only; rerunning writes the same bytes (ids as make_surfaces.py derives them).

Usage: python3 tests/tools/make_surface_maps.py   (from the repository root)
"""

import json
import math
import struct
import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_surfaces import COLOURS, MATERIALS, OUT, derive_id  # noqa: E402

HALF = 0.6
# sRGB 8-bit texels of the base-colour texture, rows top first: no two neighbours alike and
# no symmetry (a flip in u or v, or a linear reading of the sRGB values, changes the image).
PALETTE = [
    (200, 60, 40),
    (30, 120, 200),
    (230, 230, 230),
    (40, 40, 40),
    (250, 200, 60),
    (90, 180, 90),
]
TEX_N = 6
NRM_W, NRM_H = 16, 8
BUMP_BASE = [0.8, 0.8, 0.8]


def texel(i, j):
    return PALETTE[(i + 2 * j + (j * j) // 3) % len(PALETTE)]


def tilt(i, j):
    """The tangent-space normal of texel (column i, row j): tilted by up to 25 degrees
    towards +T (about the bitangent) along u and by up to 12 degrees towards +B along v."""
    a = math.radians(25.0) * math.sin(2.0 * math.pi * (i + 0.5) / 8.0)
    b = math.radians(12.0) * (1.0 if (j // 2) % 2 == 0 else -1.0)
    n = (math.sin(a) * math.cos(b), math.sin(b), math.cos(a) * math.cos(b))
    return n


def png(w, h, pixel):
    raw = b"".join(b"\0" + bytes(c for x in range(w) for c in pixel(x, y)) for y in range(h))

    def chunk(kind, body):
        c = struct.pack(">I", len(body)) + kind + body
        return c + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    out = b"\x89PNG\r\n\x1a\n"
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    out += chunk(b"IDAT", zlib.compress(raw, 9))
    out += chunk(b"IEND", b"")
    return out


def normal_png():
    def px(x, y):
        n = tilt(x, y)
        return tuple(int(round((c * 0.5 + 0.5) * 255.0)) for c in n)

    return png(NRM_W, NRM_H, px)


def write_maps_glb(path: Path):
    buf = bytearray()
    views, accessors = [], []

    def view(data: bytes, target=None):
        buf.extend(b"\0" * (-len(buf) % 4))
        v = {"buffer": 0, "byteOffset": len(buf), "byteLength": len(data)}
        if target is not None:
            v["target"] = target
        buf.extend(data)
        views.append(v)
        return len(views) - 1

    def acc(values, fmt, typ, comp, target, minmax=False):
        data = b"".join(struct.pack(fmt, *v) for v in values)
        a = {
            "bufferView": view(data, target),
            "componentType": comp,
            "count": len(values),
            "type": typ,
        }
        if minmax:
            a["min"] = [min(p[k] for p in values) for k in range(3)]
            a["max"] = [max(p[k] for p in values) for k in range(3)]
        accessors.append(a)
        return len(accessors) - 1

    # One quad, counter-clockwise seen from +Z; u along +X, v downwards.
    pos = [(-HALF, -HALF, 0.0), (HALF, -HALF, 0.0), (HALF, HALF, 0.0), (-HALF, HALF, 0.0)]
    uv = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
    p = acc(pos, "<3f", "VEC3", 5126, 34962, True)
    n = acc([(0.0, 0.0, 1.0)] * 4, "<3f", "VEC3", 5126, 34962)
    t = acc(uv, "<2f", "VEC2", 5126, 34962)
    tg = acc([(1.0, 0.0, 0.0, 1.0)] * 4, "<4f", "VEC4", 5126, 34962)
    ix = acc([(0,), (1,), (2,), (0,), (2,), (3,)], "<I", "SCALAR", 5125, 34963)
    attrs = {"POSITION": p, "NORMAL": n, "TEXCOORD_0": t, "TANGENT": tg}
    colour = view(png(TEX_N, TEX_N, lambda x, y: texel(x, y)))
    bumps = view(normal_png())
    lambert = {"KHR_materials_ior": {"ior": 1.0}}
    doc = {
        "asset": {"version": "2.0", "generator": "tests/tools/make_surface_maps.py"},
        "extensionsUsed": ["KHR_materials_ior"],
        "buffers": [{"byteLength": 0}],
        "bufferViews": views,
        "accessors": accessors,
        "images": [
            {"bufferView": colour, "mimeType": "image/png", "name": "checker_tex"},
            {"bufferView": bumps, "mimeType": "image/png", "name": "bumps"},
        ],
        # NEAREST (9728) both ways, REPEAT (10497).
        "samplers": [{"magFilter": 9728, "minFilter": 9728, "wrapS": 10497, "wrapT": 10497}],
        "textures": [{"source": 0, "sampler": 0}, {"source": 1, "sampler": 0}],
        "materials": [
            {
                "name": "checker_tex",
                "pbrMetallicRoughness": {
                    "baseColorTexture": {"index": 0},
                    "metallicFactor": 0.0,
                    "roughnessFactor": 1.0,
                },
                "extensions": lambert,
            },
            {
                "name": "bumps",
                "pbrMetallicRoughness": {
                    "baseColorFactor": BUMP_BASE + [1.0],
                    "metallicFactor": 0.0,
                    "roughnessFactor": 1.0,
                },
                "normalTexture": {"index": 1, "scale": 1.0},
                "extensions": lambert,
            },
        ],
        "meshes": [
            {"name": "textured", "primitives": [{"attributes": attrs, "indices": ix, "material": 0}]},
            {"name": "bumped", "primitives": [{"attributes": attrs, "indices": ix, "material": 1}]},
        ],
        "nodes": [{"mesh": 0, "name": "textured"}, {"mesh": 1, "name": "bumped"}],
        "scenes": [{"nodes": [0, 1]}],
        "scene": 0,
    }
    buf.extend(b"\0" * (-len(buf) % 4))
    doc["buffers"][0]["byteLength"] = len(buf)
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    total = 12 + 8 + len(js) + 8 + len(buf)
    out = struct.pack("<III", 0x46546C67, 2, total)
    out += struct.pack("<II", len(js), 0x4E4F534A) + js
    out += struct.pack("<II", len(buf), 0x004E4942) + bytes(buf)
    path.write_bytes(out)


def scene_toml(scene: str, node: str, comment: str) -> str:
    path = f"{scene}.scene.toml"

    def i(kind, name):
        return derive_id(f"{path}\n{kind}\n{name}")

    out = [
        "format = 1",
        f'materials = ["{MATERIALS}"]',
        "",
        f"# One 1.2 x 1.2 quad, {comment}, facing the camera, its centre 0.9 above a checkered",
        "# diffuse ground; drawn with its glTF material (no `material`); a constant sky and one",
        "# point light. Written by tests/tools/make_surface_maps.py.",
        "",
    ]
    for name, _ in COLOURS:
        out += [
            f"[mesh.{name}]",
            f'id = "{i("mesh", name)}"',
            'file = "meshes/checker.glb"',
            f'node = "{name}"',
            "",
        ]
    out += [
        f"[mesh.{node}]",
        f'id = "{i("mesh", node)}"',
        'file = "meshes/maps.glb"',
        f'node = "{node}"',
        "",
    ]
    for name, _ in COLOURS:
        out += [
            "[[object]]",
            f'id = "{i("object", name)}"',
            f'name = "{name}"',
            f'mesh = "{name}"',
            "at = [0.0, 0.0, 0.0]",
            f'material = "{name}"',
            "",
        ]
    out += [
        "[[object]]",
        f'id = "{i("object", "plane")}"',
        'name = "plane"',
        f'mesh = "{node}"',
        "at = [0.0, 0.9, 0.0]",
        "",
        "[[light]]",
        f'id = "{i("light", "key")}"',
        'name = "key"',
        "position = [2.0, 4.0, 2.5]",
        "color = [1.0, 0.95, 0.85]",
        "intensity = 20.0",
        "radius = 0.0",
        "range = 1000.0",
        "",
        "[sky]",
        'kind = "hdr"',
        'path = "sky/constant.hdr"',
        "rotation_deg = 0.0",
        "intensity = 1.0",
        "",
        "[camera]",
        'projection = "perspective"',
        "at = [0.0, 1.5, 3.2]",
        "look_at = [0.0, 0.75, 0.0]",
        "up = [0.0, 1.0, 0.0]",
        "fov = 32.0",
        "",
    ]
    return "\n".join(out)


PLANES = {
    "plane_textured": ("textured", "its glTF base colour a 6 x 6 sRGB texture (nearest)"),
    "plane_normal_mapped": ("bumped", "grey under a tangent-space normal texture (nearest)"),
}


def main():
    write_maps_glb(OUT / "meshes/maps.glb")
    for scene, (node, comment) in PLANES.items():
        (OUT / f"{scene}.scene.toml").write_text(scene_toml(scene, node, comment))


if __name__ == "__main__":
    main()
