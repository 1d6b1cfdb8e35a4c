#!/usr/bin/env python3
"""Generate tests/data/golden/kit.glb, the small meshes of the golden feature scenes, and
print the ids their scene files use.

Python 3 standard library only, deterministic: `python3 tests/data/golden/make_kit.py`
writes the same bytes every time. Metres, Y up, counter-clockwise front faces.

Root nodes, one primitive each, no transform of their own:
  floor     a 6 x 6 m quad at y = 0 facing +Y
  cube      a 0.5 m box standing on y = 0, centred on x = z = 0
  ball      a sphere of radius 0.25 resting on y = 0 (smooth normals)
  ramp      a 0.5 x 0.7 m quad rising 45 degrees towards -Z, facing (0, 1, 1)/sqrt 2
  panel     a 0.5 x 0.5 m quad in the plane z = 0 (y 0..0.5), facing +Z
A group with children, for node overrides and per-node materials:
  props     no mesh; children box_a, box_b, box_c (0.4 m boxes standing on y = 0 at
            x = -0.9, -0.3, 0.3) and panel_d (a 0.5 m quad at x = 0.9 facing -Z, away
            from a camera on +Z), each placed by its node's translation.
glTF material names are "white" for all but panel and panel_d ("glow").
"""

import hashlib
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def mul(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def normalize(a):
    n = math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])
    return (a[0] / n, a[1] / n, a[2] / n)


class Part:
    def __init__(self, name, material):
        self.name, self.material = name, material
        self.pos, self.nrm, self.idx = [], [], []

    def vertex(self, p, n):
        self.pos.append(tuple(float(c) for c in p))
        self.nrm.append(tuple(float(c) for c in n))
        return len(self.pos) - 1


def quad(part, a, b, c, d, n):
    """A flat quad a-b-c-d, counter-clockwise seen from the side n points to."""
    ia, ib, ic, id_ = (part.vertex(p, n) for p in (a, b, c, d))
    part.idx += [(ia, ib, ic), (ia, ic, id_)]


def box(name, material, lo, hi):
    p = Part(name, material)
    x0, y0, z0 = lo
    x1, y1, z1 = hi
    quad(p, (x1, y0, z1), (x1, y0, z0), (x1, y1, z0), (x1, y1, z1), (1, 0, 0))
    quad(p, (x0, y0, z0), (x0, y0, z1), (x0, y1, z1), (x0, y1, z0), (-1, 0, 0))
    quad(p, (x0, y1, z1), (x1, y1, z1), (x1, y1, z0), (x0, y1, z0), (0, 1, 0))
    quad(p, (x0, y0, z0), (x1, y0, z0), (x1, y0, z1), (x0, y0, z1), (0, -1, 0))
    quad(p, (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1), (0, 0, 1))
    quad(p, (x1, y0, z0), (x0, y0, z0), (x0, y1, z0), (x1, y1, z0), (0, 0, -1))
    return p


def sphere(name, material, radius, center, subdivisions):
    t = (1 + math.sqrt(5)) / 2
    verts = [normalize(v) for v in [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
                                    (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]]
    faces = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
             (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5),
             (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(subdivisions):
        cache = {}

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in cache:
                verts.append(normalize(mul(add(verts[a], verts[b]), 0.5)))
                cache[key] = len(verts) - 1
            return cache[key]

        nf = []
        for a, b, c in faces:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        faces = nf
    p = Part(name, material)
    for v in verts:
        p.vertex(add(mul(v, radius), center), v)
    p.idx = faces
    return p


def parts():
    floor = Part("floor", "white")
    quad(floor, (-3, 0, 3), (3, 0, 3), (3, 0, -3), (-3, 0, -3), (0, 1, 0))
    ramp = Part("ramp", "white")
    s = math.sqrt(0.5)
    quad(ramp, (-0.25, 0, 0.25), (0.25, 0, 0.25), (0.25, 0.5, -0.25), (-0.25, 0.5, -0.25), (0, s, s))
    panel = Part("panel", "glow")
    quad(panel, (-0.25, 0, 0), (0.25, 0, 0), (0.25, 0.5, 0), (-0.25, 0.5, 0), (0, 0, 1))
    panel_d = Part("panel_d", "glow")
    quad(panel_d, (0.25, 0, 0), (-0.25, 0, 0), (-0.25, 0.5, 0), (0.25, 0.5, 0), (0, 0, -1))
    roots = [floor, box("cube", "white", (-0.25, 0, -0.25), (0.25, 0.5, 0.25)),
             sphere("ball", "white", 0.25, (0, 0.25, 0), 3), ramp, panel]
    children = [(box("box_a", "white", (-0.2, 0, -0.2), (0.2, 0.4, 0.2)), -0.9),
                (box("box_b", "white", (-0.2, 0, -0.2), (0.2, 0.4, 0.2)), -0.3),
                (box("box_c", "white", (-0.2, 0, -0.2), (0.2, 0.4, 0.2)), 0.3),
                (panel_d, 0.9)]
    return roots, children


def write_glb(path):
    roots, children = parts()
    bin_ = bytearray()
    accessors, views, meshes, nodes, mats = [], [], [], [], []
    mat_index = {}

    def view(data, target):
        while len(bin_) % 4:
            bin_.append(0)
        views.append({"buffer": 0, "byteOffset": len(bin_), "byteLength": len(data), "target": target})
        bin_.extend(data)
        return len(views) - 1

    def mesh_node(part, translation=None):
        if part.material not in mat_index:
            mat_index[part.material] = len(mats)
            mats.append({"name": part.material,
                         "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.8, 0.8, 1.0],
                                                  "metallicFactor": 0.0, "roughnessFactor": 1.0}})
        stored = [struct.unpack("<3f", struct.pack("<3f", *v)) for v in part.pos]
        a0 = len(accessors)
        accessors.append({"bufferView": view(b"".join(struct.pack("<3f", *v) for v in part.pos), 34962),
                          "componentType": 5126, "count": len(part.pos), "type": "VEC3",
                          "min": [min(v[i] for v in stored) for i in range(3)],
                          "max": [max(v[i] for v in stored) for i in range(3)]})
        accessors.append({"bufferView": view(b"".join(struct.pack("<3f", *v) for v in part.nrm), 34962),
                          "componentType": 5126, "count": len(part.nrm), "type": "VEC3"})
        accessors.append({"bufferView": view(b"".join(struct.pack("<3I", *t) for t in part.idx), 34963),
                          "componentType": 5125, "count": 3 * len(part.idx), "type": "SCALAR"})
        meshes.append({"name": part.name, "primitives": [
            {"attributes": {"POSITION": a0, "NORMAL": a0 + 1}, "indices": a0 + 2, "mode": 4,
             "material": mat_index[part.material]}]})
        node = {"name": part.name, "mesh": len(meshes) - 1}
        if translation is not None:
            node["translation"] = [translation, 0.0, 0.0]
        nodes.append(node)
        return len(nodes) - 1

    root_ids = [mesh_node(p) for p in roots]
    child_ids = [mesh_node(p, x) for p, x in children]
    nodes.append({"name": "props", "children": child_ids})
    root_ids.append(len(nodes) - 1)
    while len(bin_) % 4:
        bin_.append(0)
    doc = {"asset": {"version": "2.0", "generator": "tests/data/golden/make_kit.py"},
           "scene": 0, "scenes": [{"name": "kit", "nodes": root_ids}],
           "nodes": nodes, "meshes": meshes, "materials": mats, "accessors": accessors,
           "bufferViews": views, "buffers": [{"byteLength": len(bin_)}]}
    js = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode("utf-8")
    while len(js) % 4:
        js += b" "
    out = struct.pack("<III", 0x46546C67, 2, 12 + 8 + len(js) + 8 + len(bin_))
    out += struct.pack("<II", len(js), 0x4E4F534A) + js
    out += struct.pack("<II", len(bin_), 0x004E4942) + bytes(bin_)
    with open(path, "wb") as f:
        f.write(out)


CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def derive_id(key):
    """The spec's Id::derive: 10 Crockford base32 digits of the first 50 bits of SHA-256."""
    bits = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:7], "big") >> 6
    return "".join(CROCKFORD[(bits >> (45 - 5 * i)) & 31] for i in range(10))


if __name__ == "__main__":
    write_glb(os.path.join(HERE, "kit.glb"))
    print("wrote", os.path.join(HERE, "kit.glb"))
