#!/usr/bin/env python3
"""Generate tests/data/golden/cutout.glb, the cut-out card of the alpha_cutoff golden scene.

Python 3 standard library only, deterministic: `python3 tests/data/golden/make_cutout.py`
writes the same bytes every time (the PNG is written with stored deflate blocks, so the bytes
do not depend on the zlib version). Metres, Y up, counter-clockwise front faces.

One root node:
  card   a 1 x 1 m quad in the plane z = 0 (x -0.5..0.5, y 0..1), facing +Z, standing on
         y = 0; TEXCOORD_0 (0, 0) at its top-left corner (-0.5, 1) to (1, 1) at its
         bottom-right (0.5, 0).
Its material "cutout" is alphaMode MASK (no alphaCutoff written: the object's alpha_cutoff
decides) with a baseColorTexture, a 4 x 4 RGBA PNG embedded in the GLB's binary chunk, read
with NEAREST filtering and CLAMP_TO_EDGE. Texel (column c, row r from the top) has the alpha
LEVELS[(c + 2 r) % 4], so each row of the card holds all four levels:
  row 0 and 2:  1.0  0.2  0.4  0.65
  row 1 and 3:  0.4  0.65 1.0  0.2
(as bytes 255, 51, 102, 166). A cutoff of 0.3 drops only the 0.2 texels, the default 0.5 the
0.2 and 0.4 texels, 0.8 all but the 1.0 texels. Its RGB is white; only the alpha is read.
"""

import json
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

LEVELS = [255, 51, 102, 166]
SIDE = 4


def alpha(c, r):
    return LEVELS[(c + 2 * r) % 4]


def png_rgba(width, height, pixel):
    """A PNG of 8-bit RGBA, `pixel(x, y)` giving (r, g, b, a), rows top to bottom."""
    raw = bytearray()
    for y in range(height):
        raw.append(0)  # filter type None
        for x in range(width):
            raw.extend(pixel(x, y))
    # zlib stream of one stored (uncompressed) deflate block: header, BFINAL=1 BTYPE=00,
    # LEN, NLEN, the bytes, Adler-32. Fixed by the format, whatever the zlib version.
    assert len(raw) < 65536
    data = bytes(raw)
    stream = (b"\x78\x01" + b"\x01" + struct.pack("<HH", len(data), len(data) ^ 0xFFFF) + data
              + struct.pack(">I", zlib.adler32(data)))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", stream) + chunk(b"IEND", b"")


def write_glb(path):
    # The card: positions, normals, texture coordinates, two triangles.
    pos = [(-0.5, 0.0, 0.0), (0.5, 0.0, 0.0), (0.5, 1.0, 0.0), (-0.5, 1.0, 0.0)]
    nrm = [(0.0, 0.0, 1.0)] * 4
    uv = [(0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)]
    idx = [0, 1, 2, 0, 2, 3]
    png = png_rgba(SIDE, SIDE, lambda x, y: (255, 255, 255, alpha(x, y)))

    bin_ = bytearray()
    views = []

    def view(data, target=None):
        while len(bin_) % 4:
            bin_.append(0)
        v = {"buffer": 0, "byteOffset": len(bin_), "byteLength": len(data)}
        if target is not None:
            v["target"] = target
        views.append(v)
        bin_.extend(data)
        return len(views) - 1

    accessors = [
        {"bufferView": view(b"".join(struct.pack("<3f", *p) for p in pos), 34962),
         "componentType": 5126, "count": 4, "type": "VEC3",
         "min": [-0.5, 0.0, 0.0], "max": [0.5, 1.0, 0.0]},
        {"bufferView": view(b"".join(struct.pack("<3f", *n) for n in nrm), 34962),
         "componentType": 5126, "count": 4, "type": "VEC3"},
        {"bufferView": view(b"".join(struct.pack("<2f", *t) for t in uv), 34962),
         "componentType": 5126, "count": 4, "type": "VEC2"},
        {"bufferView": view(struct.pack("<6I", *idx), 34963),
         "componentType": 5125, "count": 6, "type": "SCALAR"},
    ]
    image_view = view(png)
    while len(bin_) % 4:
        bin_.append(0)
    doc = {
        "asset": {"version": "2.0", "generator": "tests/data/golden/make_cutout.py"},
        "scene": 0,
        "scenes": [{"name": "cutout", "nodes": [0]}],
        "nodes": [{"name": "card", "mesh": 0}],
        "meshes": [{"name": "card", "primitives": [
            {"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2}, "indices": 3,
             "mode": 4, "material": 0}]}],
        "materials": [{"name": "cutout", "alphaMode": "MASK",
                       "pbrMetallicRoughness": {"baseColorFactor": [1.0, 1.0, 1.0, 1.0],
                                                "baseColorTexture": {"index": 0},
                                                "metallicFactor": 0.0, "roughnessFactor": 1.0}}],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [{"magFilter": 9728, "minFilter": 9728, "wrapS": 33071, "wrapT": 33071}],
        "images": [{"name": "levels", "bufferView": image_view, "mimeType": "image/png"}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(bin_)}],
    }
    js = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode("utf-8")
    while len(js) % 4:
        js += b" "
    out = struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(js) + 8 + len(bin_))
    out += struct.pack("<II", len(js), 0x4E4F534A) + js
    out += struct.pack("<II", len(bin_), 0x004E4942) + bytes(bin_)
    with open(path, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    write_glb(os.path.join(HERE, "cutout.glb"))
    print("wrote", os.path.join(HERE, "cutout.glb"))
