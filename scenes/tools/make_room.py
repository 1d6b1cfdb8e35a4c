#!/usr/bin/env python3
"""Generate the flagship interior scene of pfx-bake: scenes/room.scene.toml,
scenes/room.materials.toml and the glTF 2.0 binaries under scenes/meshes/.

Python 3 standard library only (struct, json, math, hashlib), so a fresh checkout
can regenerate everything with

    python3 scenes/tools/make_room.py

The output is deterministic: the same script writes the same bytes. Ids are derived
as the spec's Id::derive does (the first 50 bits of the SHA-256 of a stable key,
here "<project-relative file>\\n<kind>\\n<name>"), so renaming an entry in this
script changes its id; record the old id in ID_OVERRIDES below to keep it.

Conventions (pfx-scene format 1): metres, Y up, the camera looks down -Z, a model
is T*R*S with rotation about X, then Y, then Z, in degrees. Every mesh part is one
glTF node with one primitive (mode 4, float32 POSITION/NORMAL, uint32 indices),
counter-clockwise front faces seen from outside, and a glTF material whose name is
the material library entry it resolves to, so most objects need no `material`.
"""

import hashlib
import json
import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)  # scenes/, the project root
MESH_DIR = os.path.join(ROOT, "meshes")

SCENE_FILE = "room.scene.toml"
MATERIALS_FILE = "room.materials.toml"

# Ids that must survive a rename: "<file>\n<kind>\n<name>" -> id. Empty so far.
ID_OVERRIDES = {}

CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def derive_id(file, kind, name):
    """10 Crockford base32 digits from the first 50 bits of SHA-256(key)."""
    key = "%s\n%s\n%s" % (file, kind, name)
    if key in ID_OVERRIDES:
        return ID_OVERRIDES[key]
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    bits = int.from_bytes(digest[:7], "big") >> (56 - 50)
    return "".join(CROCKFORD[(bits >> (45 - 5 * i)) & 31] for i in range(10))


# ---------------------------------------------------------------------------
# Small vector helpers
# ---------------------------------------------------------------------------


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def mul(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def length(a):
    return math.sqrt(dot(a, a))


def normalize(a):
    n = length(a)
    return (a[0] / n, a[1] / n, a[2] / n) if n > 0 else (0.0, 1.0, 0.0)


class Rng:
    """A tiny LCG so the book sizes and colours are the same on every run."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return self.state / 4294967296.0

    def uniform(self, lo, hi):
        return lo + (hi - lo) * self.next()

    def choice(self, items):
        return items[int(self.next() * len(items)) % len(items)]


# ---------------------------------------------------------------------------
# Mesh building
# ---------------------------------------------------------------------------


class Part:
    """One glTF node: triangles of one material, with per-vertex normals."""

    def __init__(self, name, material):
        self.name = name
        self.material = material
        self.pos = []
        self.nrm = []
        self.idx = []

    def vertex(self, p, n):
        self.pos.append(tuple(float(c) for c in p))
        self.nrm.append(tuple(float(c) for c in n))
        return len(self.pos) - 1

    def tri(self, a, b, c):
        self.idx.append((a, b, c))

    def merge(self, other):
        base = len(self.pos)
        self.pos.extend(other.pos)
        self.nrm.extend(other.nrm)
        self.idx.extend((a + base, b + base, c + base) for a, b, c in other.idx)
        return self

    def transformed(self, fn_pos, fn_nrm):
        out = Part(self.name, self.material)
        out.pos = [fn_pos(p) for p in self.pos]
        out.nrm = [normalize(fn_nrm(n)) for n in self.nrm]
        out.idx = list(self.idx)
        return out

    def translated(self, t):
        return self.transformed(lambda p: add(p, t), lambda n: n)

    def rotated_y(self, deg):
        c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        f = lambda v: (c * v[0] + s * v[2], v[1], -s * v[0] + c * v[2])
        return self.transformed(f, f)

    def rotated_x(self, deg):
        c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        f = lambda v: (v[0], c * v[1] - s * v[2], s * v[1] + c * v[2])
        return self.transformed(f, f)

    def rotated_z(self, deg):
        c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
        f = lambda v: (c * v[0] - s * v[1], s * v[0] + c * v[1], v[2])
        return self.transformed(f, f)


def quad(part, a, b, c, d, n):
    """A flat quad a-b-c-d, counter-clockwise seen from the side n points to."""
    ia, ib, ic, id_ = (part.vertex(p, n) for p in (a, b, c, d))
    part.tri(ia, ib, ic)
    part.tri(ia, ic, id_)


def box(name, material, lo, hi):
    """An axis-aligned box with flat normals (24 vertices, 12 triangles)."""
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


def rounded_box(name, material, lo, hi, radius, steps=4, flat_step=0.25):
    """A box with edges and corners rounded by `radius` (a cushion, a table top).

    Each face is an (n x n) grid of a cube, pushed out to the rounded shape: a point
    is clamped to the inner box and moved `radius` along the direction from the clamp.
    """
    p = Part(name, material)
    c = mul(add(lo, hi), 0.5)
    h = mul(sub(hi, lo), 0.5)
    inner = tuple(max(h[i] - radius, 0.0) for i in range(3))
    # grid lines along each axis: the flat middle plus `steps` rows in each rounded band
    def lines(i):
        out = []
        for k in range(steps + 1):  # rounded band, -h .. -inner
            a = (math.pi / 2) * (1 - k / steps)
            out.append(-inner[i] - radius * math.sin(a))
        flat = max(1, int(math.ceil(2 * inner[i] / flat_step)))
        for k in range(1, flat):
            out.append(-inner[i] + 2 * inner[i] * k / flat)
        for k in range(steps + 1):
            a = (math.pi / 2) * (k / steps)
            out.append(inner[i] + radius * math.sin(a))
        dedup = [out[0]]
        for v in out[1:]:
            if v - dedup[-1] > 1e-9:  # a fully rounded axis repeats its middle line
                dedup.append(v)
        return dedup

    def shape(q):
        cl = tuple(min(max(q[i], -inner[i]), inner[i]) for i in range(3))
        d = sub(q, cl)
        if length(d) < 1e-12:
            return None
        n = normalize(d)
        return add(add(cl, mul(n, radius)), c), n

    # (fixed axis, sign, axis u, axis v) with u x v = outward normal
    faces = [(0, 1, 1, 2), (0, -1, 2, 1), (1, 1, 2, 0), (1, -1, 0, 2), (2, 1, 0, 1), (2, -1, 1, 0)]
    for axis, sign, ua, va in faces:
        lu, lv = lines(ua), lines(va)
        grid = []
        for u in lu:
            row = []
            for v in lv:
                q = [0.0, 0.0, 0.0]
                q[axis] = sign * h[axis]
                q[ua] = u
                q[va] = v
                sp = shape(q)
                if sp is None:  # the flat middle of a face
                    nn = [0.0, 0.0, 0.0]
                    nn[axis] = float(sign)
                    sp = (add(tuple(q), c), tuple(nn))
                row.append(p.vertex(sp[0], sp[1]))
            grid.append(row)
        for i in range(len(lu) - 1):
            for j in range(len(lv) - 1):
                a, b, cc, d = grid[i][j], grid[i + 1][j], grid[i + 1][j + 1], grid[i][j + 1]
                p.tri(a, b, cc)
                p.tri(a, cc, d)
    return p


def lathe(name, material, profile, segments, y_axis=True):
    """A surface of revolution about +Y from a profile of (radius, height) points.

    Walk the profile with the material on the left-hand side looking along +theta
    (outside surfaces go up, inside surfaces come down). A point listed twice makes a
    hard edge; points on the axis (radius 0) close the surface. Normals are smooth
    along the profile between hard edges, and each triangle is wound so its front
    faces away from the material.
    """
    p = Part(name, material)
    rows = []
    for r, y in profile:
        row = []
        for k in range(segments):
            t = 2 * math.pi * k / segments
            row.append((r * math.cos(t), y, -r * math.sin(t)))
        rows.append(row)
    # per profile point 2D normal from the neighbouring segments (hard edge at duplicates)
    n2 = []
    for j in range(len(profile)):
        acc = [0.0, 0.0]
        for a, b in ((j - 1, j), (j, j + 1)):
            if a < 0 or b >= len(profile):
                continue
            dr = profile[b][0] - profile[a][0]
            dy = profile[b][1] - profile[a][1]
            seg = math.hypot(dr, dy)
            if seg < 1e-12:
                continue
            acc[0] += dy / seg
            acc[1] += -dr / seg
        norm = math.hypot(acc[0], acc[1])
        n2.append((acc[0] / norm, acc[1] / norm) if norm > 0 else (0.0, 1.0))
    idx = []
    for j, row in enumerate(rows):
        ir = []
        for k, v in enumerate(row):
            t = 2 * math.pi * k / segments
            nr, ny = n2[j]
            ir.append(p.vertex(v, (nr * math.cos(t), ny, -nr * math.sin(t))))
        idx.append(ir)
    for j in range(len(rows) - 1):
        dr = profile[j + 1][0] - profile[j][0]
        dy = profile[j + 1][1] - profile[j][1]
        if math.hypot(dr, dy) < 1e-12:
            continue  # a hard edge
        for k in range(segments):
            k1 = (k + 1) % segments
            tm = 2 * math.pi * (k + 0.5) / segments
            expect = (dy * math.cos(tm), -dr, -dy * math.sin(tm))
            for tri in ((idx[j][k], idx[j + 1][k], idx[j + 1][k1]), (idx[j][k], idx[j + 1][k1], idx[j][k1])):
                a, b, c = (p.pos[i] for i in tri)
                fn = cross(sub(b, a), sub(c, a))
                if length(fn) < 1e-14:
                    continue  # degenerate at the axis
                if dot(fn, expect) < 0:
                    tri = (tri[0], tri[2], tri[1])
                p.tri(*tri)
    return p


def cylinder(name, material, radius, y0, y1, segments=32):
    """A closed cylinder about +Y from y0 to y1 with flat caps."""
    return lathe(name, material, [(0, y0), (radius, y0), (radius, y0), (radius, y1), (radius, y1), (0, y1)], segments)


def icosphere(name, material, radius, subdivisions, center=(0.0, 0.0, 0.0), squash=(1.0, 1.0, 1.0)):
    """A geodesic sphere (an icosahedron subdivided, pushed onto the sphere)."""
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
        pos = (v[0] * radius * squash[0] + center[0], v[1] * radius * squash[1] + center[1],
               v[2] * radius * squash[2] + center[2])
        n = normalize((v[0] / squash[0], v[1] / squash[1], v[2] / squash[2]))
        p.vertex(pos, n)
    for f in faces:
        p.tri(*f)
    return p


def merged(name, material, parts):
    out = Part(name, material)
    for q in parts:
        out.merge(q)
    return out


def shell(name, material, surf, nu, nv, thickness):
    """A thin closed plate around the parametric surface surf(u, v), u and v in [0, 1]:
    a front face offset by thickness/2 along the surface normal (du x dv), a back face
    offset against it, and the four edges stitched between them (a curtain, a leaf).
    """
    p = Part(name, material)
    eps = 1e-4
    P = [[surf(i / nu, j / nv) for j in range(nv + 1)] for i in range(nu + 1)]

    def normal(i, j):
        u, v = i / nu, j / nv
        du = sub(surf(min(u + eps, 1), v), surf(max(u - eps, 0), v))
        dv = sub(surf(u, min(v + eps, 1)), surf(u, max(v - eps, 0)))
        return normalize(cross(du, dv))

    N = [[normal(i, j) for j in range(nv + 1)] for i in range(nu + 1)]
    h = thickness / 2
    for side in (1, -1):
        ids = [[p.vertex(add(P[i][j], mul(N[i][j], side * h)), mul(N[i][j], side)) for j in range(nv + 1)]
               for i in range(nu + 1)]
        for i in range(nu):
            for j in range(nv):
                quad_ids = (ids[i][j], ids[i + 1][j], ids[i + 1][j + 1], ids[i][j + 1])
                expect = mul(add(add(N[i][j], N[i + 1][j]), add(N[i + 1][j + 1], N[i][j + 1])), side)
                for tri in ((quad_ids[0], quad_ids[1], quad_ids[2]), (quad_ids[0], quad_ids[2], quad_ids[3])):
                    a, b, c = (p.pos[k] for k in tri)
                    if dot(cross(sub(b, a), sub(c, a)), expect) < 0:
                        tri = (tri[0], tri[2], tri[1])
                    p.tri(*tri)
    # the edges: each boundary segment a quad between the two faces, facing outwards
    loops = ([((i, 0), (i + 1, 0)) for i in range(nu)] + [((i, nv), (i + 1, nv)) for i in range(nu)]
             + [((0, j), (0, j + 1)) for j in range(nv)] + [((nu, j), (nu, j + 1)) for j in range(nv)])
    for (i0, j0), (i1, j1) in loops:
        a_top = add(P[i0][j0], mul(N[i0][j0], h))
        b_top = add(P[i1][j1], mul(N[i1][j1], h))
        a_bot = add(P[i0][j0], mul(N[i0][j0], -h))
        b_bot = add(P[i1][j1], mul(N[i1][j1], -h))
        edge = sub(P[i1][j1], P[i0][j0])
        nrm = normalize(cross(edge, add(N[i0][j0], N[i1][j1])))
        # outwards: away from the next grid line inside the plate
        if j0 == j1:
            inward = sub(P[i0][1 if j0 == 0 else nv - 1], P[i0][j0])
        else:
            inward = sub(P[1 if i0 == 0 else nu - 1][j0], P[i0][j0])
        if dot(nrm, inward) > 0:
            nrm = mul(nrm, -1)
        ia, ib, ic, id_ = (p.vertex(q, nrm) for q in (a_top, b_top, b_bot, a_bot))
        for tri in ((ia, ib, ic), (ia, ic, id_)):
            a, b, c = (p.pos[k] for k in tri)
            fn = cross(sub(b, a), sub(c, a))
            if length(fn) < 1e-14:
                continue
            if dot(fn, nrm) < 0:
                tri = (tri[0], tri[2], tri[1])
            p.tri(*tri)
    return p


def tube(name, material, points, radius, segments=8):
    """A closed tube of constant radius along a polyline (a stem, a rod), flat end caps."""
    p = Part(name, material)
    rings = []
    for k, c in enumerate(points):
        t = normalize(sub(points[min(k + 1, len(points) - 1)], points[max(k - 1, 0)]))
        ref = (1.0, 0.0, 0.0) if abs(t[0]) < 0.9 else (0.0, 1.0, 0.0)
        a = normalize(cross(t, ref))
        b = cross(t, a)
        ring = []
        for s in range(segments):
            th = 2 * math.pi * s / segments
            n = add(mul(a, math.cos(th)), mul(b, math.sin(th)))
            ring.append((add(c, mul(n, radius)), n))
        rings.append(ring)
    ids = [[p.vertex(q, n) for q, n in ring] for ring in rings]
    for k in range(len(points) - 1):
        for s in range(segments):
            s1 = (s + 1) % segments
            quad_ids = (ids[k][s], ids[k + 1][s], ids[k + 1][s1], ids[k][s1])
            expect = add(rings[k][s][1], rings[k + 1][s1][1])
            for tri in ((quad_ids[0], quad_ids[1], quad_ids[2]), (quad_ids[0], quad_ids[2], quad_ids[3])):
                a, b, c = (p.pos[i] for i in tri)
                if dot(cross(sub(b, a), sub(c, a)), expect) < 0:
                    tri = (tri[0], tri[2], tri[1])
                p.tri(*tri)
    for k, sign in ((0, -1), (len(points) - 1, 1)):
        t = normalize(sub(points[min(k + 1, len(points) - 1)], points[max(k - 1, 0)]))
        n = mul(t, sign)
        centre = p.vertex(points[k], n)
        cap = [p.vertex(q, n) for q, _ in rings[k]]
        for s in range(segments):
            tri = (centre, cap[s], cap[(s + 1) % segments])
            a, b, c = (p.pos[i] for i in tri)
            if dot(cross(sub(b, a), sub(c, a)), n) < 0:
                tri = (tri[0], tri[2], tri[1])
            p.tri(*tri)
    return p


def prism(name, material, profile, w0, w1, axes):
    """A straight extrusion of a 2D profile, star-shaped about its first point, from w0 to
    w1 along axis axes[2]; profile points (a, b) map to a * axes[0] + b * axes[1] (a
    moulding along a wall). Flat normals throughout.
    """
    p = Part(name, material)
    ua, va, wa = axes

    def at(a, b, w):
        return add(add(mul(ua, a), mul(va, b)), mul(wa, w))

    n = len(profile)
    area = sum(profile[k][0] * profile[(k + 1) % n][1] - profile[(k + 1) % n][0] * profile[k][1] for k in range(n))
    orient = 1.0 if area > 0 else -1.0
    for k in range(n):
        (a0, b0), (a1, b1) = profile[k], profile[(k + 1) % n]
        # the outward normal of a counter-clockwise polygon's edge is (db, -da)
        side = normalize(add(mul(ua, orient * (b1 - b0)), mul(va, -orient * (a1 - a0))))
        quad_pts = (at(a0, b0, w0), at(a1, b1, w0), at(a1, b1, w1), at(a0, b0, w1))
        ids = [p.vertex(q, side) for q in quad_pts]
        for tri in ((ids[0], ids[1], ids[2]), (ids[0], ids[2], ids[3])):
            a, b, c = (p.pos[i] for i in tri)
            if dot(cross(sub(b, a), sub(c, a)), side) < 0:
                tri = (tri[0], tri[2], tri[1])
            p.tri(*tri)
    for w, sign in ((w0, -1), (w1, 1)):
        nn = mul(wa, sign)
        ids = [p.vertex(at(a, b, w), nn) for a, b in profile]
        for k in range(1, n - 1):
            tri = (ids[0], ids[k], ids[k + 1])
            a, b, c = (p.pos[i] for i in tri)
            fn = cross(sub(b, a), sub(c, a))
            if length(fn) < 1e-14:
                continue
            if dot(fn, nn) < 0:
                tri = (tri[0], tri[2], tri[1])
            p.tri(*tri)
    return p


# ---------------------------------------------------------------------------
# glTF 2.0 binary writer and checker
# ---------------------------------------------------------------------------


def write_glb(path, parts, materials):
    """Write `parts` as one glb: one node, mesh and primitive per part."""
    bin_ = bytearray()
    accessors, views, meshes, nodes, mats = [], [], [], [], []
    mat_index = {}

    def view(data, target):
        while len(bin_) % 4:
            bin_.append(0)
        views.append({"buffer": 0, "byteOffset": len(bin_), "byteLength": len(data), "target": target})
        bin_.extend(data)
        return len(views) - 1

    for part in parts:
        if part.material not in mat_index:
            m = materials[part.material]
            gm = {"name": part.material,
                  "pbrMetallicRoughness": {"baseColorFactor": list(m["base"]) + [1.0],
                                           "metallicFactor": m.get("metalness", 0.0),
                                           "roughnessFactor": m.get("roughness", 0.5)}}
            e = m.get("emission")
            if e and max(e) > 0:
                peak = max(e)
                gm["emissiveFactor"] = [c / peak for c in e]
                gm["extensions"] = {"KHR_materials_emissive_strength": {"emissiveStrength": peak}}
            mat_index[part.material] = len(mats)
            mats.append(gm)
        pos = b"".join(struct.pack("<3f", *v) for v in part.pos)
        nrm = b"".join(struct.pack("<3f", *v) for v in part.nrm)
        idx = b"".join(struct.pack("<3I", *t) for t in part.idx)
        # min/max from the float32 values actually stored
        stored = [struct.unpack("<3f", struct.pack("<3f", *v)) for v in part.pos]
        lo = [min(v[i] for v in stored) for i in range(3)]
        hi = [max(v[i] for v in stored) for i in range(3)]
        vp = view(pos, 34962)
        vn = view(nrm, 34962)
        vi = view(idx, 34963)
        a0 = len(accessors)
        accessors.append({"bufferView": vp, "componentType": 5126, "count": len(part.pos), "type": "VEC3",
                          "min": lo, "max": hi})
        accessors.append({"bufferView": vn, "componentType": 5126, "count": len(part.nrm), "type": "VEC3"})
        accessors.append({"bufferView": vi, "componentType": 5125, "count": 3 * len(part.idx), "type": "SCALAR"})
        meshes.append({"name": part.name, "primitives": [
            {"attributes": {"POSITION": a0, "NORMAL": a0 + 1}, "indices": a0 + 2, "mode": 4,
             "material": mat_index[part.material]}]})
        nodes.append({"name": part.name, "mesh": len(meshes) - 1})
    while len(bin_) % 4:
        bin_.append(0)
    doc = {"asset": {"version": "2.0", "generator": "scenes/tools/make_room.py"},
           "scene": 0, "scenes": [{"name": os.path.basename(path)[:-4], "nodes": list(range(len(nodes)))}],
           "nodes": nodes, "meshes": meshes, "materials": mats, "accessors": accessors,
           "bufferViews": views, "buffers": [{"byteLength": len(bin_)}]}
    if any("extensions" in m for m in mats):
        doc["extensionsUsed"] = ["KHR_materials_emissive_strength"]
    js = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode("utf-8")
    while len(js) % 4:
        js += b" "
    total = 12 + 8 + len(js) + 8 + len(bin_)
    out = struct.pack("<III", 0x46546C67, 2, total)
    out += struct.pack("<II", len(js), 0x4E4F534A) + js
    out += struct.pack("<II", len(bin_), 0x004E4942) + bytes(bin_)
    with open(path, "wb") as f:
        f.write(out)


def check_glb(path):
    """Re-read a glb and check what a strict loader checks. Returns the triangle count."""
    data = open(path, "rb").read()
    magic, version, total = struct.unpack_from("<III", data, 0)
    assert magic == 0x46546C67 and version == 2 and total == len(data), path
    jlen, jtype = struct.unpack_from("<II", data, 12)
    assert jtype == 0x4E4F534A and jlen % 4 == 0, path
    doc = json.loads(data[20:20 + jlen].decode("utf-8"))
    off = 20 + jlen
    blen, btype = struct.unpack_from("<II", data, off)
    assert btype == 0x004E4942 and blen % 4 == 0 and off + 8 + blen == len(data), path
    binary = data[off + 8:off + 8 + blen]
    assert doc["buffers"][0]["byteLength"] <= blen
    tris = 0
    for mesh in doc["meshes"]:
        for prim in mesh["primitives"]:
            assert prim["mode"] == 4
            acc = {k: doc["accessors"][v] for k, v in prim["attributes"].items()}
            ia = doc["accessors"][prim["indices"]]
            n = acc["POSITION"]["count"]
            assert acc["NORMAL"]["count"] == n

            def floats(a):
                bv = doc["bufferViews"][a["bufferView"]]
                assert bv["byteOffset"] % 4 == 0 and bv["byteOffset"] + bv["byteLength"] <= blen
                assert bv["byteLength"] == 12 * a["count"]
                return list(struct.iter_unpack("<3f", binary[bv["byteOffset"]:bv["byteOffset"] + bv["byteLength"]]))

            pos = floats(acc["POSITION"])
            nrm = floats(acc["NORMAL"])
            for i in range(3):
                assert min(v[i] for v in pos) == acc["POSITION"]["min"][i], path
                assert max(v[i] for v in pos) == acc["POSITION"]["max"][i], path
            for v in nrm:
                assert abs(length(v) - 1) < 1e-3, path
            bv = doc["bufferViews"][ia["bufferView"]]
            assert ia["componentType"] == 5125 and ia["count"] % 3 == 0
            assert bv["byteLength"] == 4 * ia["count"]
            idx = struct.unpack_from("<%dI" % ia["count"], binary, bv["byteOffset"])
            assert max(idx) < n, path
            # every triangle's winding agrees with the normals of its corners
            for t in range(0, len(idx), 3):
                a, b, c = (pos[i] for i in idx[t:t + 3])
                fn = cross(sub(b, a), sub(c, a))
                assert length(fn) > 0, "degenerate triangle in %s" % mesh["name"]
                ns = add(add(nrm[idx[t]], nrm[idx[t + 1]]), nrm[idx[t + 2]])
                assert dot(fn, ns) > 0, "winding against normals in %s" % mesh["name"]
            # closed parts wound outwards enclose a positive volume (the panel is one open quad)
            vol = sum(dot(pos[idx[t]], cross(pos[idx[t + 1]], pos[idx[t + 2]])) for t in range(0, len(idx), 3)) / 6
            assert vol > 0 or mesh["name"] == "panel", "inside-out part %s" % mesh["name"]
            tris += ia["count"] // 3
    return tris


# ---------------------------------------------------------------------------
# The room: dimensions in metres
# ---------------------------------------------------------------------------

# Inside of the room: x -3..3, y 0..2.8, z -2.5..2.5. Walls 0.15 thick outside it.
RX, RY, RZ, WALL = 3.0, 2.8, 2.5, 0.15
# The window in the left wall (x = -3): z from WZ0 to WZ1, y from WY0 (sill) to WY1.
WZ0, WZ1, WY0, WY1 = -1.55, 0.35, 0.8, 2.3


def build_room():
    parts = []
    # the floor is the parquet tile layer (build_parquet); under it a subfloor slab
    parts.append(box("subfloor", "subfloor", (-RX - WALL, -0.12, -RZ - WALL), (RX + WALL, -0.02, RZ + WALL)))
    parts.append(box("ceiling", "plaster", (-RX - WALL, RY, -RZ - WALL), (RX + WALL, RY + 0.12, RZ + WALL)))
    parts.append(box("wall_back", "plaster", (-RX - WALL, 0, -RZ - WALL), (RX + WALL, RY, -RZ)))
    parts.append(box("wall_front", "plaster", (-RX - WALL, 0, RZ), (RX + WALL, RY, RZ + WALL)))
    parts.append(box("wall_right", "plaster", (RX, 0, -RZ), (RX + WALL, RY, RZ)))
    # the left wall: four boxes around the window opening
    left = [box("", "plaster", (-RX - WALL, 0, -RZ), (-RX, WY0, RZ)),
            box("", "plaster", (-RX - WALL, WY1, -RZ), (-RX, RY, RZ)),
            box("", "plaster", (-RX - WALL, WY0, -RZ), (-RX, WY1, WZ0)),
            box("", "plaster", (-RX - WALL, WY0, WZ1), (-RX, WY1, RZ))]
    parts.append(merged("wall_left", "plaster", left))
    # window: a painted frame in the opening, a mullion and a transom (no glass), a sill
    f = 0.05
    xo, xi = -RX - WALL + 0.04, -RX - WALL + 0.10
    frame = [box("", "trim", (xo, WY0, WZ0), (xi, WY0 + f, WZ1)),
             box("", "trim", (xo, WY1 - f, WZ0), (xi, WY1, WZ1)),
             box("", "trim", (xo, WY0 + f, WZ0), (xi, WY1 - f, WZ0 + f)),
             box("", "trim", (xo, WY0 + f, WZ1 - f), (xi, WY1 - f, WZ1)),
             box("", "trim", (xo, WY0 + f, 0.5 * (WZ0 + WZ1) - 0.025), (xi, WY1 - f, 0.5 * (WZ0 + WZ1) + 0.025)),
             box("", "trim", (xo, WY0 + 0.62 * (WY1 - WY0) - 0.02, WZ0 + f), (xi, WY0 + 0.62 * (WY1 - WY0) + 0.02, WZ1 - f))]
    parts.append(merged("window_frame", "trim", frame))
    # the sill's top stands 1 cm above the reveal so no two faces share a plane
    parts.append(box("window_sill", "trim", (-RX - 0.06, WY0 - 0.03, WZ0 - 0.08), (-RX + 0.06, WY0 + 0.01, WZ1 + 0.08)))
    # skirting boards
    h, t = 0.09, 0.015
    skirt = [box("", "trim", (-RX, 0, -RZ), (RX, h, -RZ + t)),
             box("", "trim", (-RX, 0, RZ - t), (RX, h, RZ)),
             box("", "trim", (RX - t, 0, -RZ + t), (RX, h, RZ - t)),
             box("", "trim", (-RX, 0, -RZ + t), (-RX + t, h, RZ - t))]
    parts.append(merged("skirting", "trim", skirt))
    # a cove cornice where the walls meet the ceiling: a profile 9 cm each way, star-shaped
    # about the corner it fills, run along the four walls (the runs overlap in the corners)
    prof = [(0.0, 0.0), (0.0, -0.09), (0.012, -0.09), (0.012, -0.075)]
    for k in range(1, 9):
        a = (math.pi / 2) * k / 9
        prof.append((0.012 + 0.066 * (1 - math.cos(a)), -0.075 + 0.066 * math.sin(a)))
    prof += [(0.078, -0.009), (0.09, -0.009), (0.09, 0.0)]
    runs = [prism("", "trim", [(a, RY + b) for a, b in prof], -RX, RX, ((0, 0, 1), (0, 1, 0), (1, 0, 0)))
            .translated((0, 0, -RZ)),
            prism("", "trim", [(-a, RY + b) for a, b in prof], -RX, RX, ((0, 0, 1), (0, 1, 0), (1, 0, 0)))
            .translated((0, 0, RZ)),
            prism("", "trim", [(a, RY + b) for a, b in prof], -RZ, RZ, ((1, 0, 0), (0, 1, 0), (0, 0, 1)))
            .translated((-RX, 0, 0)),
            prism("", "trim", [(-a, RY + b) for a, b in prof], -RZ, RZ, ((1, 0, 0), (0, 1, 0), (0, 0, 1)))
            .translated((RX, 0, 0))]
    parts.append(merged("cornice", "trim", runs))
    # a ceiling light panel: a frame, and a downward-facing emissive quad
    cx, cz, hw, hd = 0.4, -0.3, 0.45, 0.45
    pf = [box("", "trim", (cx - hw - 0.03, RY - 0.04, cz - hd - 0.03), (cx + hw + 0.03, RY, cz - hd)),
          box("", "trim", (cx - hw - 0.03, RY - 0.04, cz + hd), (cx + hw + 0.03, RY, cz + hd + 0.03)),
          box("", "trim", (cx - hw - 0.03, RY - 0.04, cz - hd), (cx - hw, RY, cz + hd)),
          box("", "trim", (cx + hw, RY - 0.04, cz - hd), (cx + hw + 0.03, RY, cz + hd))]
    parts.append(merged("panel_frame", "trim", pf))
    panel = Part("panel", "panel_light")
    y = RY - 0.02
    quad(panel, (cx - hw, y, cz - hd), (cx + hw, y, cz - hd), (cx + hw, y, cz + hd), (cx - hw, y, cz + hd), (0, -1, 0))
    parts.append(panel)
    return parts


def build_table():
    """A dining table, 1.6 x 0.9 m, 0.75 m high, long side along X, centred at the origin."""
    top = rounded_box("table_top", "oak", (-0.8, 0.71, -0.45), (0.8, 0.75, 0.45), 0.012, 3)
    apron = [box("", "oak", (-0.7, 0.62, -0.37), (0.7, 0.71, -0.35)),
             box("", "oak", (-0.7, 0.62, 0.35), (0.7, 0.71, 0.37)),
             box("", "oak", (-0.72, 0.62, -0.35), (-0.70, 0.71, 0.35)),
             box("", "oak", (0.70, 0.62, -0.35), (0.72, 0.71, 0.35))]
    legs = []
    for sx in (-1, 1):
        for sz in (-1, 1):
            # a leg tapering from 6 cm at the top to 4 cm at the foot
            prof = [(0.0, 0.0), (0.02, 0.0), (0.02, 0.0), (0.03, 0.71), (0.03, 0.71), (0.0, 0.71)]
            leg = lathe("", "oak", prof, 12).translated((sx * 0.68, 0, sz * 0.33))
            legs.append(leg)
    return [top, merged("table_apron", "oak", apron), merged("table_legs", "oak", legs)]


def build_chair():
    """A chair facing +Z, seat 0.45 m high, centred on its seat."""
    parts = []
    seat = rounded_box("chair_seat", "chair_paint", (-0.22, 0.42, -0.21), (0.22, 0.46, 0.21), 0.01, 2)
    legs = []
    for sx in (-1, 1):
        for sz in (-1, 1):
            top = 0.42 if sz > 0 else 0.95
            legs.append(cylinder("", "chair_paint", 0.017, 0.0, top, 12).translated((sx * 0.19, 0, sz * 0.18)))
    rails = [box("", "chair_paint", (-0.19, 0.85, -0.195), (0.19, 0.93, -0.17)),
             box("", "chair_paint", (-0.19, 0.62, -0.19), (0.19, 0.66, -0.175)),
             box("", "chair_paint", (-0.19, 0.16, -0.19), (0.19, 0.19, -0.17)),
             box("", "chair_paint", (-0.19, 0.16, 0.17), (0.19, 0.19, 0.19))]
    for k in range(3):
        x = -0.09 + 0.09 * k
        rails.append(box("", "chair_paint", (x - 0.012, 0.66, -0.188), (x + 0.012, 0.85, -0.177)))
    parts.append(seat)
    parts.append(merged("chair_frame", "chair_paint", legs + rails))
    return parts


def build_bookshelf():
    """A bookcase 1.2 m wide, 1.9 m high, 0.32 m deep, standing on y = 0 against z = 0 (its back)."""
    W, H, D, T = 1.2, 1.9, 0.32, 0.025
    hw = W / 2
    frame = [box("", "walnut", (-hw, 0, 0), (-hw + T, H, D)),
             box("", "walnut", (hw - T, 0, 0), (hw, H, D)),
             box("", "walnut", (-hw + T, H - T, 0), (hw - T, H, D)),
             box("", "walnut", (-hw + T, 0, 0.02), (hw - T, 0.08, D - 0.01)),
             box("", "walnut", (-hw + T, 0.0, 0.0), (hw - T, H - T, 0.012))]
    levels = [0.08, 0.50, 0.92, 1.34]
    for y in levels[1:]:
        frame.append(box("", "walnut", (-hw + T, y - T, 0.012), (hw - T, y, D)))
    parts = [merged("bookshelf", "walnut", frame)]
    rng = Rng(2024)
    colours = ["book_red", "book_blue", "book_green", "book_cream", "book_black", "book_ochre"]
    books = {c: [] for c in colours}
    for li, y in enumerate(levels):
        x = -hw + T + 0.01
        end = hw - T - (0.35 if li == 2 else 0.02)
        if li == 1:
            x += 0.35  # leave room for the ornaments
        while True:
            w = rng.uniform(0.022, 0.05)
            h = rng.uniform(0.22, 0.34) if li != 0 else rng.uniform(0.28, 0.38)
            d = rng.uniform(0.17, 0.24)
            if x + w > end:
                break
            c = rng.choice(colours)
            if rng.next() < 0.12:
                # a book leaning against its neighbour
                b = box("", c, (-w / 2, 0, -d / 2), (w / 2, h, d / 2)).rotated_z(-8.0)
                books[c].append(b.translated((x + w / 2 + h * math.sin(math.radians(8)), y, 0.03 + d / 2)))
                x += w + h * math.sin(math.radians(8)) + 0.005
            else:
                books[c].append(box("", c, (x, y, 0.03), (x + w, y + h, 0.03 + d)))
                x += w + 0.002
        if li == 2:
            # a lying stack at the right end of this shelf
            yy = y
            for k in range(4):
                hh = rng.uniform(0.025, 0.045)
                c = colours[(k * 2 + 1) % len(colours)]
                books[c].append(box("", c, (end + 0.04 + 0.01 * k, yy, 0.05), (hw - T - 0.02 - 0.005 * k, yy + hh, 0.27)))
                yy += hh
    for c in colours:
        if books[c]:
            parts.append(merged(c.replace("book_", "books_"), c, books[c]))
    return parts


def build_sofa():
    """A three-seat sofa 2.0 m wide facing +Z, its back at z = 0, seat 0.43 m high."""
    parts = []
    base = rounded_box("sofa_base", "sofa_fabric", (-0.86, 0.12, 0.0), (0.86, 0.32, 0.88), 0.03, 3)
    back = rounded_box("sofa_back", "sofa_fabric", (-0.86, 0.12, 0.0), (0.86, 0.80, 0.2), 0.05, 4)
    arms = [rounded_box("", "sofa_fabric", (-1.0, 0.12, 0.0), (-0.82, 0.62, 0.9), 0.06, 4),
            rounded_box("", "sofa_fabric", (0.82, 0.12, 0.0), (1.0, 0.62, 0.9), 0.06, 4)]
    seats = [rounded_box("", "sofa_fabric", (-0.82 + 0.547 * k + 0.005, 0.32, 0.2), (-0.82 + 0.547 * (k + 1) - 0.005, 0.45, 0.9), 0.05, 6, 0.06)
             for k in range(3)]
    backs = [rounded_box("", "sofa_fabric", (-0.80 + 0.533 * k + 0.01, 0.45, 0.17), (-0.80 + 0.533 * (k + 1) - 0.01, 0.86, 0.36), 0.07, 6, 0.06)
             for k in range(3)]
    parts.append(merged("sofa_body", "sofa_fabric", [base, back] + arms + seats + backs))
    # two cushions of another fabric, leaning on the back
    pillows = []
    for x, rot in ((-0.6, 12), (0.62, -10)):
        c = rounded_box("", "cushion_fabric", (-0.2, -0.2, -0.06), (0.2, 0.2, 0.06), 0.06, 6, 0.05)
        c = c.rotated_z(rot).rotated_x(-15).translated((x, 0.66, 0.42))
        pillows.append(c)
    parts.append(merged("cushions", "cushion_fabric", pillows))
    legs = [lathe("", "walnut", [(0, 0), (0.018, 0), (0.018, 0), (0.025, 0.12), (0.025, 0.12), (0, 0.12)], 12)
            .translated((sx * 0.9, 0, z)) for sx in (-1, 1) for z in (0.08, 0.8)]
    parts.append(merged("sofa_legs", "walnut", legs))
    return parts


def build_floor_lamp():
    """A floor lamp: a metal base and stand, a linen shade 1.35..1.65 m (bulb at 1.5 m)."""
    base = lathe("lamp_base", "brushed_steel",
                 [(0, 0), (0.16, 0), (0.16, 0), (0.16, 0.015), (0.15, 0.025), (0.03, 0.035), (0.0, 0.035)], 48)
    pole = cylinder("lamp_pole", "brushed_steel", 0.012, 0.035, 1.46, 16)
    arms = []
    for k in range(3):
        a = k * 120.0
        spoke = box("", "brushed_steel", (0.0, 1.455, -0.004), (0.187, 1.463, 0.004)).rotated_y(a)  # reaches the shade
        arms.append(spoke)
    holder = cylinder("", "brushed_steel", 0.022, 1.44, 1.47, 16)
    # the shade: a truncated cone open at both ends, with a thickness of 3 mm
    r0, r1, y0, y1, t = 0.22, 0.15, 1.34, 1.64, 0.003
    shade = lathe("lamp_shade", "lampshade",
                  [(r0 - t, y0), (r0, y0), (r0, y0), (r1, y1), (r1, y1), (r1 - t, y1), (r1 - t, y1), (r0 - t, y0)], 64)
    return [base, merged("lamp_stand", "brushed_steel", [pole, holder] + arms), shade]


def build_props():
    """Things on the table, the shelf and the floor; each a node a [mesh] picks by name."""
    parts = []
    # a vase: a lathe with a wall thickness of 6 mm
    outer = [(0.0, 0.0), (0.06, 0.0), (0.06, 0.0), (0.075, 0.02), (0.095, 0.08), (0.10, 0.13), (0.09, 0.19),
             (0.06, 0.25), (0.04, 0.29), (0.036, 0.32), (0.042, 0.35)]
    inner = [(r - 0.006, y) for r, y in reversed(outer[3:])]
    inner[-1] = (0.06 - 0.006, 0.006)
    vase = lathe("vase", "ceramic_white", outer + [(0.036, 0.35)] + inner + [(0.0, 0.006)], 64)
    parts.append(vase)
    # a bowl
    bowl_out = [(0.0, 0.0), (0.05, 0.0), (0.05, 0.0), (0.055, 0.008), (0.10, 0.03), (0.13, 0.06), (0.14, 0.075)]
    bowl_in = [(0.134, 0.075), (0.124, 0.06), (0.095, 0.036), (0.05, 0.016), (0.0, 0.014)]
    parts.append(lathe("bowl", "ceramic_blue", bowl_out + bowl_in, 64))
    # a piece of fruit, 7 cm across, slightly squashed
    parts.append(icosphere("fruit", "fruit_orange", 0.036, 3, (0, 0.033, 0), (1.0, 0.92, 1.0)))
    # a mug with a handle
    mug_out = [(0.0, 0.0), (0.038, 0.0), (0.038, 0.0), (0.04, 0.005), (0.04, 0.095), (0.04, 0.095)]
    mug_in = [(0.035, 0.095), (0.035, 0.01), (0.0, 0.01)]
    mug = lathe("mug", "ceramic_white", mug_out + mug_in, 48)
    # the handle: a half torus in the XY plane on the +X side
    handle = Part("", "ceramic_white")
    R, r, nu, nv = 0.028, 0.007, 16, 10
    ring = []
    for i in range(nu + 1):
        u = -math.pi / 2 + math.pi * i / nu
        row = []
        for j in range(nv):
            v = 2 * math.pi * j / nv
            cu, su, cv, sv = math.cos(u), math.sin(u), math.cos(v), math.sin(v)
            n = (cv * cu, cv * su, sv)
            pnt = (0.035 + (R + r * cv) * cu, 0.05 + (R + r * cv) * su, r * sv)
            row.append(handle.vertex(pnt, n))
        ring.append(row)
    for i in range(nu):
        for j in range(nv):
            j1 = (j + 1) % nv
            a, b, c, d = ring[i][j], ring[i + 1][j], ring[i + 1][j1], ring[i][j1]
            handle.tri(a, b, c)
            handle.tri(a, c, d)
    parts.append(mug.merge(handle))
    # a polished copper ball for the shelf, and a small marble sphere
    parts.append(icosphere("ball", "copper", 0.06, 4, (0, 0.06, 0)))
    # a toy ball a game rolls about (dynamic: the plates leave it out)
    parts.append(icosphere("toy_ball", "toy_red", 0.1, 3, (0, 0.1, 0)))
    return parts


# The parquet: basket-weave blocks of four boards, 0.5 m square, centred on their cell's
# origin, 2 cm thick with their top at y = 0. A block's boards run along X or along Z; each
# block is one oak shade, as if cut from one plank. One node per (direction, shade).
PARQUET_CELL = 0.5
PARQUET_SHADES = ("floor_oak_a", "floor_oak_b", "floor_oak_c")


def build_parquet():
    parts = []
    n, gap = 4, 0.0015
    w = PARQUET_CELL / n
    for along in ("x", "z"):
        for shade in PARQUET_SHADES:
            boards = []
            for k in range(n):
                lo_w, hi_w = -PARQUET_CELL / 2 + k * w + gap, -PARQUET_CELL / 2 + (k + 1) * w - gap
                lo_l, hi_l = -PARQUET_CELL / 2 + gap, PARQUET_CELL / 2 - gap
                if along == "x":
                    lo, hi = (lo_l, -0.02, lo_w), (hi_l, 0.0, hi_w)
                else:
                    lo, hi = (lo_w, -0.02, lo_l), (hi_w, 0.0, hi_l)
                # a 2 mm bevel on every edge, so the joints catch the light
                boards.append(rounded_box("", shade, lo, hi, 0.002, 2))
            parts.append(merged("%s_%s" % (along, shade.replace("floor_oak_", "oak_")), shade, boards))
    return parts


# Curtains: two linen panels drawn open either side of the window, hanging from a rod.
ROD_Y, ROD_X = 2.5, -RX + 0.11


def curtain(name, z0, z1, folds, seed):
    rng = Rng(seed)
    phase = rng.uniform(0, 2 * math.pi)
    top, bottom = ROD_Y - 0.03, 0.015
    width = z1 - z0

    def surf(u, v):
        # u across (z), v from the top down; folds deepen and flare a little towards the hem
        y = top + (bottom - top) * v
        amp = 0.035 + 0.02 * v
        z = z0 + width * u
        x = ROD_X - 0.04 + amp * (0.5 + 0.5 * math.sin(2 * math.pi * folds * u + phase + 0.6 * v))
        return (x, y, z)

    return shell(name, "curtain", surf, int(folds * 14), 60, 0.004)


def build_curtains():
    left = curtain("curtain_back", WZ0 - 0.5, WZ0 + 0.12, 5, 11)
    right = curtain("curtain_front", WZ1 - 0.12, WZ1 + 0.5, 5, 12)
    rod = tube("", "brushed_steel", [(ROD_X, ROD_Y, WZ0 - 0.62), (ROD_X, ROD_Y, WZ1 + 0.62)], 0.012, 16)
    finials = [icosphere("", "brushed_steel", 0.022, 2, (ROD_X, ROD_Y, z)) for z in (WZ0 - 0.64, WZ1 + 0.64)]
    brackets = [box("", "brushed_steel", (-RX, ROD_Y - 0.01, z - 0.008), (ROD_X, ROD_Y + 0.008, z + 0.008))
                for z in (WZ0 - 0.55, WZ1 + 0.55)]
    return [left, right, merged("curtain_rod", "brushed_steel", [rod] + finials + brackets)]


def build_sideboard():
    """A walnut sideboard 1.0 m long (along Z), 0.42 deep, 0.72 high, its back at x = 0,
    facing +X: three doors with brass knobs, on four tapered legs."""
    L, D, H, leg = 1.0, 0.42, 0.72, 0.16
    body = [rounded_box("", "walnut", (0.0, leg, -L / 2), (D, H, L / 2), 0.01, 2)]
    doors, knobs = [], []
    for k in range(3):
        z0 = -L / 2 + 0.02 + k * (L - 0.04) / 3 + 0.004
        z1 = -L / 2 + 0.02 + (k + 1) * (L - 0.04) / 3 - 0.004
        doors.append(rounded_box("", "walnut_light", (D, leg + 0.03, z0), (D + 0.012, H - 0.03, z1), 0.004, 2))
        knobs.append(icosphere("", "brass", 0.012, 2, (D + 0.024, H - 0.12, z0 + 0.04 if k == 2 else z1 - 0.04)))
    legs = [lathe("", "walnut", [(0, 0), (0.012, 0), (0.012, 0), (0.02, leg), (0.02, leg), (0, leg)], 12)
            .translated((x, 0, z)) for x in (0.05, D - 0.05) for z in (-L / 2 + 0.06, L / 2 - 0.06)]
    return [merged("sideboard_body", "walnut", body + legs), merged("sideboard_doors", "walnut_light", doors),
            merged("sideboard_knobs", "brass", knobs)]


def build_side_table():
    """A round side table, 0.48 m across, 0.55 m high: a walnut top on a brass pedestal."""
    top = lathe("side_table_top", "walnut",
                [(0, 0.52), (0.23, 0.52), (0.24, 0.53), (0.24, 0.54), (0.23, 0.55), (0, 0.55)], 64)
    stand = lathe("side_table_stand", "brass",
                  [(0, 0), (0.17, 0), (0.17, 0), (0.17, 0.01), (0.15, 0.02), (0.03, 0.03), (0.018, 0.06),
                   (0.018, 0.52), (0.0, 0.52)], 48)
    return [top, stand]


def build_fan():
    """A ceiling fan hanging from the ceiling (y = 0 here is the ceiling): a canopy, a
    downrod and a motor, which stay, and five blades, which a mover turns."""
    canopy = lathe("", "brushed_steel", [(0, -0.06), (0.02, -0.06), (0.07, -0.04), (0.075, 0), (0.075, 0), (0, 0)], 32)
    rod = cylinder("", "brushed_steel", 0.011, -0.30, -0.05, 12)
    motor = lathe("", "brushed_steel", [(0, -0.41), (0.05, -0.41), (0.09, -0.39), (0.1, -0.35), (0.09, -0.31),
                                        (0.05, -0.29), (0, -0.29)], 40)
    blades = []
    for k in range(5):
        iron = box("", "brushed_steel", (0.06, -0.39, -0.012), (0.2, -0.375, 0.012))
        blade = rounded_box("", "walnut_light", (0.16, -0.392, -0.06), (0.68, -0.38, 0.06), 0.005, 2)
        blade = blade.translated((0, 0.386, 0)).rotated_x(8.0).translated((0, -0.386, 0))  # pitched
        blades.append(merged("", "walnut_light", [blade]).rotated_y(72 * k))
        blades.append(iron.rotated_y(72 * k))
    wood = [b for b in blades if b.material == "walnut_light"]
    irons = [b for b in blades if b.material == "brushed_steel"]
    return [merged("fan_body", "brushed_steel", [canopy, rod, motor]),
            merged("fan_blades", "walnut_light", wood), merged("fan_irons", "brushed_steel", irons)]


def build_table_lamp():
    """The table lamp of the prefab: a glazed ceramic gourd, brass fittings, and a linen
    shade open at both ends (0.34..0.5 m), so its bulb, a globe 8 cm across at 0.43 m, lights down and up."""
    body = lathe("lamp_body", "lamp_ceramic",
                 [(0, 0), (0.06, 0), (0.06, 0), (0.075, 0.015), (0.095, 0.07), (0.1, 0.12), (0.085, 0.18),
                  (0.05, 0.23), (0.028, 0.26), (0.028, 0.27), (0.0, 0.27)], 48)
    socket = cylinder("", "lamp_brass", 0.016, 0.27, 0.385, 16)
    harp = [box("", "lamp_brass", (-0.07, 0.33, -0.004), (0.07, 0.338, 0.004)),
            box("", "lamp_brass", (-0.074, 0.33, -0.004), (-0.066, 0.49, 0.004)),
            box("", "lamp_brass", (0.066, 0.33, -0.004), (0.074, 0.49, 0.004)),
            box("", "lamp_brass", (-0.074, 0.49, -0.004), (0.074, 0.498, 0.004))]
    finial = icosphere("", "lamp_brass", 0.012, 2, (0.0, 0.51, 0.0))
    r0, r1, y0, y1, t = 0.19, 0.15, 0.34, 0.5, 0.003
    shade = lathe("lamp_shade", "lamp_linen",
                  [(r0 - t, y0), (r0, y0), (r0, y0), (r1, y1), (r1, y1), (r1 - t, y1), (r1 - t, y1), (r0 - t, y0)], 64)
    return [body, merged("lamp_fittings", "lamp_brass", [socket] + harp + [finial]), shade]


def leaf(length, width, seed):
    """One leaf along +X from the origin, its blade up (+Y), drooping towards the tip."""
    rng = Rng(seed)
    droop = rng.uniform(0.15, 0.35)
    fold = rng.uniform(0.15, 0.35)

    def surf(u, v):
        s = 2 * u - 1  # across, -1..1
        w = width * 0.5 * math.sin(math.pi * (0.04 + 0.92 * v)) ** 0.7 * (1.15 - 0.3 * v)
        x = length * v
        y = -droop * length * v * v + fold * width * s * s * 0.5
        return (x, y, -w * s)

    return shell("", "leaf", surf, 4, 10, 0.0012)


def build_plant():
    """A rubber-plant-like bush: four stems from the pot, each with leaves along it."""
    rng = Rng(99)
    leaves, stems = [], []
    for k in range(5):
        a = 2 * math.pi * k / 5 + rng.uniform(-0.3, 0.3)
        lean = rng.uniform(0.06, 0.2)
        height = rng.uniform(0.95, 1.35)
        pts = []
        for i in range(13):
            t = i / 12
            r = lean * t * t + 0.01
            pts.append((r * math.cos(a), 0.3 + (height - 0.3) * t, r * math.sin(a)))
        stems.append(tube("", "stem", pts, 0.009 - 0.003 * (k % 2), 8))
        count = 18
        for j in range(count):
            t = 0.25 + 0.75 * j / (count - 1)
            i = min(int(t * 12), 11)
            f = t * 12 - i
            base = add(mul(pts[i], 1 - f), mul(pts[i + 1], f))
            size = 0.11 + 0.12 * (1 - abs(t - 0.55) * 1.4) + rng.uniform(-0.02, 0.02)
            lf = leaf(size, size * 0.45, 1000 + 37 * k + j)
            lf = lf.rotated_z(rng.uniform(15, 50) - 30 * max(0, t - 0.8))  # pitched up
            lf = lf.rotated_y(math.degrees(-a) + 137.5 * j + rng.uniform(-20, 20))
            leaves.append(lf.translated(base))
    pot_out = [(0.0, 0.0), (0.12, 0.0), (0.12, 0.0), (0.17, 0.34), (0.17, 0.34), (0.185, 0.345), (0.185, 0.38),
               (0.185, 0.38), (0.165, 0.38), (0.165, 0.38), (0.155, 0.34)]
    pot = lathe("pot", "terracotta", pot_out + [(0.155, 0.30), (0.0, 0.30)], 48)
    return [pot, merged("foliage", "leaf", leaves), merged("stems", "stem", stems)]


def build_rug():
    """A rug, 2.4 x 1.7 m, 1.2 cm thick: a terracotta field, a cream border stripe inlaid
    a hair above it, and a cotton fringe at both short ends."""
    field = rounded_box("rug", "rug", (-1.2, 0.0, -0.85), (1.2, 0.012, 0.85), 0.005, 1)
    b, t0 = 0.12, 0.04
    stripes = [rounded_box("", "rug_border", (-1.2 + b, 0.0, -0.85 + b), (1.2 - b, 0.0125, -0.85 + b + t0), 0.0004, 1),
               rounded_box("", "rug_border", (-1.2 + b, 0.0, 0.85 - b - t0), (1.2 - b, 0.0125, 0.85 - b), 0.0004, 1),
               rounded_box("", "rug_border", (-1.2 + b, 0.0, -0.85 + b + t0), (-1.2 + b + t0, 0.0125, 0.85 - b - t0), 0.0004, 1),
               rounded_box("", "rug_border", (1.2 - b - t0, 0.0, -0.85 + b + t0), (1.2 - b, 0.0125, 0.85 - b - t0), 0.0004, 1)]
    rng = Rng(5)
    fringe = []
    for side in (-1, 1):
        for k in range(85):
            z = -0.84 + 1.68 * (k + 0.5) / 85
            ln = rng.uniform(0.06, 0.08)
            sway = rng.uniform(-0.012, 0.012)
            x0 = side * 1.195
            pts = [(x0, 0.004, z), (x0 + side * ln * 0.5, 0.003, z + sway * 0.5), (x0 + side * ln, 0.0022, z + sway)]
            fringe.append(tube("", "rug_border", pts, 0.002, 5))
    return [field, merged("rug_border", "rug_border", stripes), merged("rug_fringe", "rug_border", fringe)]


def build_picture():
    """A framed abstract print, 0.9 x 0.65 m, hanging on a wall at z = 0, facing +Z."""
    W, H, F, D = 0.9, 0.65, 0.04, 0.03
    hw, hh = W / 2, H / 2
    frame = [box("", "frame_black", (-hw, -hh, 0), (hw, -hh + F, D)),
             box("", "frame_black", (-hw, hh - F, 0), (hw, hh, D)),
             box("", "frame_black", (-hw, -hh + F, 0), (-hw + F, hh - F, D)),
             box("", "frame_black", (hw - F, -hh + F, 0), (hw, hh - F, D))]
    canvas = box("canvas", "canvas", (-hw + F, -hh + F, 0.0), (hw - F, hh - F, 0.012))
    blocks = {"paint_red": [(-0.36, -0.02, -0.08, 0.24)], "paint_blue": [(0.02, 0.34, -0.26, 0.02)],
              "paint_yellow": [(-0.36, -0.14, -0.26, -0.08), (0.16, 0.34, 0.08, 0.24)]}
    parts = [merged("picture_frame", "frame_black", frame), canvas]
    for mat, rects in blocks.items():
        parts.append(merged(mat.replace("paint_", "print_"), mat,
                            [box("", mat, (x0, y0, 0.012), (x1, y1, 0.014)) for x0, x1, y0, y1 in rects]))
    return parts


# ---------------------------------------------------------------------------
# Materials (all of family "plain" for now)
# ---------------------------------------------------------------------------

# name: (comment, keys). base is linear RGB albedo (or a metal's F0 colour).
MATERIALS = [
    ("plaster", "walls and ceiling: matte off-white plaster",
     dict(base=[0.78, 0.76, 0.72], roughness=0.9, specular=0.02)),
    ("trim", "skirting, window frame and sill: satin white paint",
     dict(base=[0.82, 0.82, 0.80], roughness=0.35, specular=0.04)),
    ("subfloor", "the slab under the boards (seen nowhere)",
     dict(base=[0.2, 0.2, 0.2], roughness=1.0, specular=0.0)),
    ("oak", "table: lighter oak, a little glossier than the floor",
     dict(base=[0.52, 0.35, 0.20], roughness=0.45, specular=0.04)),
    ("walnut", "bookcase, sideboard, side table top and sofa legs",
     dict(base=[0.17, 0.09, 0.05], roughness=0.5, specular=0.04)),
    ("walnut_light", "sideboard doors and fan blades: a paler, oiled walnut",
     dict(base=[0.3, 0.18, 0.1], roughness=0.45, specular=0.04)),
    ("brass", "knobs and the side table's pedestal: brushed brass",
     dict(base=[0.91, 0.78, 0.42], roughness=0.35, metalness=1.0, specular=0.04)),
    ("curtain", "curtains: dusty blue linen",
     dict(base=[0.3, 0.38, 0.46], roughness=1.0, specular=0.0)),
    ("chair_paint", "chairs: sage green paint",
     dict(base=[0.22, 0.30, 0.20], roughness=0.5, specular=0.04)),
    ("sofa_fabric", "sofa: navy wool, no specular reflection",
     dict(base=[0.09, 0.13, 0.26], roughness=1.0, specular=0.0)),
    ("cushion_fabric", "cushions: mustard linen",
     dict(base=[0.60, 0.40, 0.08], roughness=1.0, specular=0.0)),
    ("rug", "rug: terracotta wool",
     dict(base=[0.42, 0.13, 0.08], roughness=1.0, specular=0.0)),
    ("rug_border", "the rug's border stripe and fringe: cream cotton",
     dict(base=[0.7, 0.64, 0.52], roughness=1.0, specular=0.0)),
    ("toy_red", "a child's rubber ball",
     dict(base=[0.55, 0.05, 0.04], roughness=0.4, specular=0.05)),
    ("brushed_steel", "lamp base and stand: brushed steel",
     dict(base=[0.62, 0.62, 0.60], roughness=0.3, metalness=1.0, specular=0.04)),
    ("lampshade", "lamp shade: linen, matte",
     dict(base=[0.85, 0.79, 0.66], roughness=1.0, specular=0.0)),
    ("ceramic_white", "vase and mug: glazed white ceramic",
     dict(base=[0.80, 0.78, 0.74], roughness=0.12, specular=0.05)),
    ("ceramic_blue", "bowl: glazed cobalt ceramic",
     dict(base=[0.05, 0.10, 0.35], roughness=0.15, specular=0.05)),
    ("fruit_orange", "fruit", dict(base=[0.80, 0.28, 0.02], roughness=0.45, specular=0.04)),
    ("fruit_apple", None, dict(base=[0.50, 0.04, 0.03], roughness=0.35, specular=0.04)),
    ("fruit_lime", None, dict(base=[0.22, 0.42, 0.04], roughness=0.4, specular=0.04)),
    ("copper", "a polished copper ball on the shelf",
     dict(base=[0.95, 0.64, 0.54], roughness=0.2, metalness=1.0, specular=0.04)),
    ("terracotta", "plant pot", dict(base=[0.55, 0.24, 0.13], roughness=0.85, specular=0.03)),
    ("leaf", "plant leaves and stems", dict(base=[0.07, 0.20, 0.04], roughness=0.6, specular=0.04)),
    ("stem", None, dict(base=[0.12, 0.16, 0.05], roughness=0.7, specular=0.03)),
    ("book_red", "book covers", dict(base=[0.42, 0.05, 0.04], roughness=0.7, specular=0.04)),
    ("book_blue", None, dict(base=[0.05, 0.10, 0.30], roughness=0.7, specular=0.04)),
    ("book_green", None, dict(base=[0.06, 0.22, 0.10], roughness=0.7, specular=0.04)),
    ("book_cream", None, dict(base=[0.72, 0.65, 0.50], roughness=0.7, specular=0.04)),
    ("book_black", None, dict(base=[0.03, 0.03, 0.03], roughness=0.6, specular=0.04)),
    ("book_ochre", None, dict(base=[0.55, 0.36, 0.08], roughness=0.7, specular=0.04)),
    ("frame_black", "picture: a black frame, an off-white print with coloured blocks",
     dict(base=[0.03, 0.03, 0.03], roughness=0.4, specular=0.04)),
    ("canvas", None, dict(base=[0.82, 0.80, 0.75], roughness=0.9, specular=0.02)),
    ("paint_red", None, dict(base=[0.60, 0.06, 0.04], roughness=0.9, specular=0.02)),
    ("paint_blue", None, dict(base=[0.04, 0.12, 0.45], roughness=0.9, specular=0.02)),
    ("paint_yellow", None, dict(base=[0.80, 0.62, 0.06], roughness=0.9, specular=0.02)),
    ("panel_light", "ceiling panel: a diffuser whose front (downward) face emits warm white;\n"
     "0.81 m² of it, so about pi * 12 * 0.81 = 31 W in all",
     dict(base=[0.8, 0.8, 0.8], roughness=1.0, specular=0.0, emission=[12.0, 11.4, 10.4])),
]
MATERIAL_KEYS = ("base", "roughness", "metalness", "specular", "emission")

# The parquet's own library (a tile's prefab is self-contained: its materials resolve among
# its own libraries). These three were in room.materials.toml; their ids are kept.
PARQUET_LIB = "tiles/parquet.materials.toml"
PARQUET_MATERIALS = [
    ("floor_oak_a", "parquet: three shades of oiled oak",
     dict(base=[0.42, 0.26, 0.14], roughness=0.6, specular=0.04)),
    ("floor_oak_b", None, dict(base=[0.39, 0.24, 0.125], roughness=0.6, specular=0.04)),
    ("floor_oak_c", None, dict(base=[0.45, 0.285, 0.16], roughness=0.6, specular=0.04)),
]

# The table lamp prefab's library: its defaults, and the shades and glaze the placements
# choose through [object.set].
LAMP_PREFAB = "props/table_lamp.prefab.toml"
LAMP_LIB = "props/table_lamp.materials.toml"
LAMP_MATERIALS = [
    ("lamp_ceramic", "the lamp's body: a cream glaze (the default)",
     dict(base=[0.78, 0.74, 0.66], roughness=0.15, specular=0.05)),
    ("lamp_ceramic_blue", "a cobalt glaze",
     dict(base=[0.06, 0.12, 0.38], roughness=0.15, specular=0.05)),
    ("lamp_brass", "fittings: brushed brass",
     dict(base=[0.91, 0.78, 0.42], roughness=0.35, metalness=1.0, specular=0.04)),
    ("lamp_linen", "shades: white linen (the default), sage and rust",
     dict(base=[0.86, 0.82, 0.72], roughness=1.0, specular=0.0)),
    ("lamp_sage", None, dict(base=[0.36, 0.46, 0.34], roughness=1.0, specular=0.0)),
    ("lamp_rust", None, dict(base=[0.6, 0.25, 0.12], roughness=1.0, specular=0.0)),
]

ALL_MATERIALS = {name: keys for lib in (MATERIALS, PARQUET_MATERIALS, LAMP_MATERIALS) for name, _, keys in lib}
MATERIALS_BY_NAME = ALL_MATERIALS


# ---------------------------------------------------------------------------
# The scene: room.scene.toml (the room, its lights, the parquet, the dynamic things) and
# its include room.furniture.scene.toml (the furniture), a prefab and the tile prefabs
# ---------------------------------------------------------------------------

FURNITURE_FILE = "room.furniture.scene.toml"
# The room's shell, lamps, parquet and what moves: included by both scenes of the room.
SHELL_FILE = "room.shell.scene.toml"
# The same room by daylight: the analytic sky and the daylight sun through the window.
DAYLIGHT_FILE = "daylight.scene.toml"

# Entries first written in room.scene.toml keep the ids derived there when they move to
# another file: an id never changes (the spec).
LEGACY_MESHES = {"room", "table", "chair", "bookshelf", "sofa", "floor_lamp", "picture", "vase", "bowl", "fruit",
                 "mug", "ball", "pot", "foliage", "stems", "rug"}
LEGACY_OBJECTS = {"room", "rug", "table", "chair_east", "chair_east_2", "chair_west", "bookshelf", "sofa", "picture",
                  "floor_lamp", "plant_pot", "plant_foliage", "plant_stems", "vase", "bowl", "orange_1", "orange_2",
                  "apple", "lime", "mug", "copper_ball", "small_vase"}


def entry_id(file, kind, name):
    legacy = {"mesh": LEGACY_MESHES, "object": LEGACY_OBJECTS}.get(kind, set())
    if file in (SCENE_FILE, FURNITURE_FILE) and name in legacy:
        return derive_id(SCENE_FILE, kind, name)
    # The shell's entries were first written in room.scene.toml: their ids stay.
    if file == SHELL_FILE:
        return entry_id(SCENE_FILE, kind, name)
    if file == PARQUET_LIB:
        return derive_id(MATERIALS_FILE, kind, name)
    return derive_id(file, kind, name)


TABLE = (-1.2, 0.0, -0.5)  # where the table stands; its top is at y = 0.75
TOP = 0.75
FAN = (TABLE[0], RY, TABLE[2])  # the ceiling fan hangs above the table
SIDEBOARD = (-RX, 0.0, 1.95)  # against the window wall, near the front
SIDE_TABLE = (0.15, 0.0, -2.15)  # at the sofa's left arm
FLOOR_LAMP = (-2.5, 0.0, -2.1)  # in the back left corner, beside the curtain
PLANT = (-2.45, 0.0, 1.0)

# mesh name -> (file, node or None, comment), per scene file
FURNITURE_MESHES = [
    ("table", "meshes/table.glb", None, "dining table, 1.6 x 0.9 m"),
    ("chair", "meshes/chair.glb", None, "a chair facing +Z"),
    ("bookshelf", "meshes/bookshelf.glb", None, "a bookcase full of books, its back at z = 0"),
    ("sofa", "meshes/sofa.glb", None, "a three-seat sofa facing +Z, its back at z = 0"),
    ("picture", "meshes/picture.glb", None, "a framed print facing +Z"),
    ("sideboard", "meshes/sideboard.glb", None, "a walnut sideboard facing +X, its back at x = 0"),
    ("side_table", "meshes/side_table.glb", None, "a round side table"),
    ("curtains", "meshes/curtains.glb", None, "two linen curtains on a rod, in place beside the window"),
    ("rug", "meshes/rug.glb", None, "a rug with a border stripe and a fringe"),
    ("vase", "meshes/props.glb", "vase", None),
    ("bowl", "meshes/props.glb", "bowl", None),
    ("fruit", "meshes/props.glb", "fruit", None),
    ("mug", "meshes/props.glb", "mug", None),
    ("ball", "meshes/props.glb", "ball", None),
    ("pot", "meshes/plant.glb", "pot", "a rubber plant: pot, leaves and stems"),
    ("foliage", "meshes/plant.glb", "foliage", None),
    ("stems", "meshes/plant.glb", "stems", None),
]
ROOM_MESHES = [
    ("room", "meshes/room.glb", None, "walls with a window, ceiling with a light panel and a cornice, a subfloor"),
    ("floor_lamp", "meshes/floor_lamp.glb", None, "floor lamp; the bulb is the emitter \"bulb\""),
    ("fan_body", "meshes/fan.glb", "fan_body", "a ceiling fan: the canopy, rod and motor stay; the blades turn"),
    ("fan_blades", "meshes/fan.glb", "fan_blades", None),
    ("fan_irons", "meshes/fan.glb", "fan_irons", None),
    ("toy_ball", "meshes/props.glb", "toy_ball", None),
]


def obj(name, mesh=None, at=(0, 0, 0), rotate=None, scale=None, material=None, comment=None, **kw):
    d = dict(name=name, mesh=mesh, at=at, rotate=rotate, scale=scale, material=material, comment=comment)
    d.update(kw)
    return d


FURNITURE_OBJECTS = [
    obj("rug", "rug", (TABLE[0], 0.0, TABLE[2]), (0, 90, 0), comment="under the table"),
    obj("table", "table", (TABLE[0], 0.012, TABLE[2]), (0, 90, 0), comment="long side along Z, in the sunlight"),
    obj("chair_east", "chair", (TABLE[0] + 0.62, 0.012, TABLE[2] - 0.3), (0, -90, 0),
        comment="facing -X, towards the table"),
    obj("chair_east_2", "chair", (TABLE[0] + 0.62, 0.012, TABLE[2] + 0.38), (0, -97, 0)),
    obj("chair_west", "chair", (TABLE[0] - 0.66, 0.012, TABLE[2] + 0.05), (0, 84, 0),
        comment="facing +X, pulled out a little"),
    obj("bookshelf", "bookshelf", (-1.45, 0.0, -RZ), comment="against the back wall, left of centre"),
    obj("sofa", "sofa", (1.45, 0.0, -RZ + 0.02), comment="against the back wall"),
    obj("picture", "picture", (1.45, 1.55, -RZ), comment="above the sofa"),
    obj("side_table", "side_table", SIDE_TABLE, comment="at the sofa's left arm; a table lamp stands on it"),
    obj("sideboard", "sideboard", SIDEBOARD, comment="against the window wall, near the front; a table lamp on it"),
    obj("curtains", "curtains", comment="drawn open either side of the window"),
    obj("plant_pot", "pot", PLANT, comment="by the window"),
    obj("plant_foliage", "foliage", PLANT),
    obj("plant_stems", "stems", PLANT),
    obj("vase", "vase", (TABLE[0] - 0.1, TOP + 0.012, TABLE[2] - 0.35), comment="on the table"),
    obj("bowl", "bowl", (TABLE[0] + 0.08, TOP + 0.012, TABLE[2] + 0.12)),
    obj("orange_1", "fruit", (TABLE[0] + 0.05, TOP + 0.012 + 0.016, TABLE[2] + 0.10), comment="fruit in the bowl"),
    obj("orange_2", "fruit", (TABLE[0] + 0.13, TOP + 0.012 + 0.02, TABLE[2] + 0.15), (0, 40, 0), 0.95),
    obj("apple", "fruit", (TABLE[0] + 0.07, TOP + 0.012 + 0.022, TABLE[2] + 0.2), None, 1.1, "fruit_apple",
        comment="an apple: the fruit mesh with another material"),
    obj("lime", "fruit", (TABLE[0] + 0.16, TOP + 0.012 + 0.052, TABLE[2] + 0.06), None, 0.8, "fruit_lime"),
    obj("mug", "mug", (TABLE[0] + 0.2, TOP + 0.012, TABLE[2] + 0.55), (0, 150, 0)),
    obj("copper_ball", "ball", (-1.75, 0.50, -RZ + 0.17), comment="on the bookcase's second shelf"),
    obj("small_vase", "vase", (-1.94, 0.50, -RZ + 0.17), None, 0.55),
]

# The table lamp's bulb, as the prefab writes it; the placements override some of it.
LAMP_BULB = dict(position=(0.0, 0.43, 0.0), radius=0.04, color=(1.0, 0.8, 0.58), intensity=1.6)

ROOM_OBJECTS = [
    obj("room", "room", comment="the room itself"),
    obj("floor_lamp", "floor_lamp", FLOOR_LAMP, comment="in the back left corner"),
    obj("fan_body", "fan_body", FAN, comment="the ceiling fan over the table"),
    obj("fan_blades", "fan_blades", FAN,
        comment="turned by the mover \"fan\", so dynamic: the plates leave it out and a live renderer draws it"),
    obj("fan_irons", "fan_irons", parent="fan_blades", comment="rides on the blades: dynamic through its parent"),
    obj("toy_ball", "toy_ball", (0.7, 0.0, -0.75), dynamic=True,
        comment="a ball a game rolls about: marked dynamic, so the plates leave it out"),
    # the table lamp prefab, placed three times; [object.set] keys are "<inner entry>.<key>"
    obj("lamp_sofa", prefab=LAMP_PREFAB, parent="side_table", at=(0.0, 0.55, 0.0),
        set=[("stand.material", "lamp_ceramic_blue"), ("bulb.intensity", 2.0)],
        comment="on the side table: a cobalt body, a brighter bulb"),
    obj("lamp_sideboard", prefab=LAMP_PREFAB, parent="sideboard", at=(0.22, 0.72, -0.3), rotate=(0, 30, 0),
        set=[("shade.material", "lamp_rust"), ("bulb.color", (1.0, 0.68, 0.42))],
        comment="on the sideboard: a rust shade, a warmer bulb"),
    obj("lamp_shelf", prefab=LAMP_PREFAB, parent="bookshelf", at=(0.3, 1.9, 0.17), scale=0.8,
        set=[("shade.material", "lamp_sage"), ("bulb.intensity", 0.8)],
        comment="on top of the bookcase, smaller: a sage shade, a dimmer bulb"),
]

SUN = dict(toward=(-1.0, 0.58, 0.12), color=(1.0, 0.93, 0.82), irradiance=10.0)
BULB = dict(position=(FLOOR_LAMP[0], 1.52, FLOOR_LAMP[2]), radius=0.045, color=(1.0, 0.78, 0.52), intensity=5.0)
CAMERA = dict(at=(2.45, 1.45, 2.35), look_at=(-0.9, 0.85, -1.0), fov=60.0)
SKY = dict(path="assets/noon_grass_1k.hdr", intensity=2.5, rotation_deg=0.0)
# The daylight scene's sun and sky (daylight.scene.toml).
DAYLIGHT = dict(latitude=48.0, day=100.0, hour=9.0, heading=215.0, turbidity=3.0, ground_albedo=(0.12, 0.16, 0.08))
FAN_MOVER = dict(period=1.5)

# A light room haze (docs/haze.md): uniform fog only, so free paths are sampled in closed
# form and shadow rays take Beer-Lambert exactly (no tracking), the cheapest haze there is.
# 0.04 per metre is a mean free path of 25 m: the back wall, 5 to 6 m from the camera,
# keeps about 80 % of its own light (the haze's glow, lit by the lamps, makes up most of the
# rest), and the sunbeam through the window (a column of about 1.5 m seen across) adds about
# 0.06 W/(m² sr) where the camera looks through it (sigma_s E p l = 0.04 x 10 x 0.1 x 1.5),
# which reads against the dark bookcase and the shaded floor behind it. White (gold 1: the haze absorbs nothing), and one forward lobe, g = 0.3
# (back = 0): the camera sees the beam 62 degrees off the sun's direction, where g = 0.3
# scatters the most (25 % more than an isotropic haze; a larger g scatters less there).
# No ambient term: every light that lights the haze is in the scene, so the format's
# default ambient (light the bake does not simulate) would add light that is not there.
HAZE = dict(lo=(-RX, 0.0, -RZ), hi=(RX, RY, RZ), fog=0.04, phase=0.3, back=0.0, ambient=(0.0, 0.0, 0.0))

# Text: a line of lettering painted on the back wall between the bookcase and the print
# (static, lit: shaded as the wall's paint is), and a clock over the sideboard whose time a
# game changes (dynamic: recorded in the plate's manifest, drawn live). DejaVu Sans (the
# Bitstream Vera licence, scenes/assets/fonts/) has a kern table, which the bake reads.
FONT = "assets/fonts/DejaVuSans.ttf"
TEXTS = [
    dict(name="motto", text="make yourself\nat home", size=0.18, color=(0.12, 0.17, 0.14, 1.0),
         at=(0.07, 1.95, -RZ + 0.003), rotate=None, lit=True, dynamic=False,
         comment="painted on the back wall above the side table: dark green, shaded by the room's light"),
    dict(name="clock", text="16:45", size=0.09, color=(1.0, 0.45, 0.2, 1.0),
         at=(-RX + 0.003, 1.3, SIDEBOARD[2]), rotate=(0, 90, 0), lit=False, dynamic=True,
         comment="a clock's glowing digits on the window wall over the sideboard, facing +X; the game sets the time"),
]

# The finish of the preview (docs/finish.md): AgX, a faint bloom where the bulbs and the
# sunlit patches pass 1, and a mild vignette, the look of a game's final frame.
FINISH = dict(tone="agx", bloom=0.06, vignette=0.25)

# The plates' proxies (room.proxies.toml): boxes in world space standing in for the large
# static objects when the live renderer shadows what moves (casters = "proxies"), and for
# picking them. The room's walls and ceiling are in it: without them the sun would reach a
# dynamic object through the walls.
PROXIES_FILE = "room.proxies.toml"


def proxy_boxes():
    """(object, comment, lo, hi) world-space boxes, from the same constants the meshes use."""
    W = WALL
    out = [
        ("room", "the window wall, around the opening", (-RX - W, 0.0, -RZ), (-RX, WY0, RZ)),
        ("room", None, (-RX - W, WY1, -RZ), (-RX, RY, RZ)),
        ("room", None, (-RX - W, WY0, -RZ), (-RX, WY1, WZ0)),
        ("room", None, (-RX - W, WY0, WZ1), (-RX, WY1, RZ)),
        ("room", "the other walls and the ceiling", (-RX - W, 0.0, -RZ - W), (RX + W, RY, -RZ)),
        ("room", None, (-RX - W, 0.0, RZ), (RX + W, RY, RZ + W)),
        ("room", None, (RX, 0.0, -RZ), (RX + W, RY, RZ)),
        ("room", None, (-RX - W, RY, -RZ - W), (RX + W, RY + 0.12, RZ + W)),
    ]
    # the table turned 90 degrees: its top and apron 0.9 x 1.6, 0.62..0.75 high (plus the
    # 12 mm it stands above the floor), and its four legs, 6 cm square
    tx, tz, ty = TABLE[0], TABLE[2], 0.012
    out.append(("table", "the table's top and apron, and its legs",
                (tx - 0.45, ty + 0.62, tz - 0.8), (tx + 0.45, ty + TOP, tz + 0.8)))
    for sx in (-1, 1):
        for sz in (-1, 1):
            lx, lz = tx + sx * 0.33, tz + sz * 0.68
            out.append(("table", None, (lx - 0.03, 0.0, lz - 0.03), (lx + 0.03, ty + 0.62, lz + 0.03)))
    sx0, sz0 = 1.45, -RZ + 0.02
    out.append(("sofa", "the sofa: its seat block (arms included) and its back",
                (sx0 - 1.0, 0.0, sz0), (sx0 + 1.0, 0.45, sz0 + 0.9)))
    out.append(("sofa", None, (sx0 - 1.0, 0.45, sz0), (sx0 + 1.0, 0.86, sz0 + 0.36)))
    out.append(("bookshelf", "the bookcase, books and all", (-1.45 - 0.6, 0.0, -RZ), (-1.45 + 0.6, 1.9, -RZ + 0.32)))
    bx, bz = SIDEBOARD[0], SIDEBOARD[2]
    out.append(("sideboard", "the sideboard, on its legs", (bx, 0.0, bz - 0.5), (bx + 0.432, 0.72, bz + 0.5)))
    return out

# The parquet tile layer: 12 x 10 cells of 0.5 m in the floor plane, alternating direction
# (basket weave), each block's shade from a fixed-seed generator.
PARQUET_ORIGIN = (-RX + PARQUET_CELL / 2, 0.0, RZ - PARQUET_CELL / 2)
PARQUET_KEYS = {("x", "floor_oak_a"): "a", ("x", "floor_oak_b"): "b", ("x", "floor_oak_c"): "c",
                ("z", "floor_oak_a"): "p", ("z", "floor_oak_b"): "q", ("z", "floor_oak_c"): "r"}


def parquet_prefab(along, shade):
    return "tiles/parquet_%s_%s.prefab.toml" % (along, shade.replace("floor_oak_", ""))


def parquet_rows():
    cols, rows = int(round(2 * RX / PARQUET_CELL)), int(round(2 * RZ / PARQUET_CELL))
    rng = Rng(31)
    grid = {}
    for j in range(rows):
        for i in range(cols):
            along = "x" if (i + j) % 2 == 0 else "z"
            grid[(i, j)] = PARQUET_KEYS[(along, rng.choice(PARQUET_SHADES))]
    # the last string is row j = 0 (the front, +Z); rows above it run towards -Z
    return ["".join(grid[(i, j)] for i in range(cols)) for j in reversed(range(rows))]


def fmt(v):
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(fmt(c) for c in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        r = repr(round(v, 6))
        return r
    if isinstance(v, int):
        return repr(float(v))
    return json.dumps(v)


def write_library(path, entries, header):
    out = ["format = 1", ""] + ["# " + line for line in header] + [""]
    for name, comment, keys in entries:
        if comment:
            out.extend("# " + line for line in comment.split("\n"))
        out.append("[materials.%s]" % name)
        out.append("id = \"%s\"" % entry_id(path, "material", name))
        out.append("family = \"plain\"")
        for k in MATERIAL_KEYS:
            if k in keys:
                out.append("%s = %s" % (k, fmt(keys[k])))
        out.append("")
    write_text(path, out)


def write_text(rel, lines):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def mesh_lines(file, meshes):
    o = []
    for name, mfile, node, comment in meshes:
        if comment:
            o.append("# " + comment)
        o.append("[mesh.%s]" % name)
        o.append("id = \"%s\"" % entry_id(file, "mesh", name))
        o.append("file = \"%s\"" % mfile)
        if node:
            o.append("node = \"%s\"" % node)
        o.append("")
    return o


def object_lines(file, objects):
    o = []
    for d in objects:
        if d.get("comment"):
            o.append("# " + d["comment"])
        o.append("[[object]]")
        o.append("id = \"%s\"" % entry_id(file, "object", d["name"]))
        o.append("name = \"%s\"" % d["name"])
        if d.get("prefab"):
            o.append("prefab = \"%s\"" % d["prefab"])
        else:
            o.append("mesh = \"%s\"" % d["mesh"])
        o.append("at = %s" % fmt(tuple(float(c) for c in d["at"])))
        if d.get("rotate"):
            o.append("rotate = %s" % fmt(tuple(float(c) for c in d["rotate"])))
        if d.get("scale") is not None:
            o.append("scale = %s" % fmt(float(d["scale"])))
        if d.get("parent"):
            o.append("parent = \"%s\"" % d["parent"])
        if d.get("material"):
            o.append("material = \"%s\"" % d["material"])
        if d.get("dynamic") is not None:
            o.append("dynamic = %s" % fmt(d["dynamic"]))
        if d.get("set"):
            o.append("")
            o.append("[object.set]")
            for k, v in d["set"]:
                o.append("%s = %s" % (json.dumps(k), fmt(v)))
        o.append("")
    return o


def lum(c):
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def scene_head(file, comment):
    return ["format = 1", "include = [\"%s\", \"%s\"]" % (SHELL_FILE, FURNITURE_FILE),
            "materials = [\"%s\"]" % MATERIALS_FILE, ""] + comment


def camera_lines():
    return ["[camera]", "projection = \"perspective\"", "at = %s" % fmt(CAMERA["at"]),
            "look_at = %s" % fmt(CAMERA["look_at"]), "up = [0.0, 1.0, 0.0]", "fov = %s" % fmt(CAMERA["fov"]), ""]


def write_scene():
    o = scene_head(SCENE_FILE, [
         "# A living room on a sunny afternoon, written by scenes/tools/make_room.py (edit the",
         "# script, not this file). Metres, Y up. The room's inside spans x -3..3, y 0..2.8,",
         "# z -2.5..2.5; the window is in the left wall (x = -3), the sun shines through it onto",
         "# the floor and the table. The camera stands in the front right corner looking at the",
         "# back left one. This file holds the light from outside, the camera and the plates; the",
         "# room, its lamps, the parquet (a tile layer) and what moves are in the include",
         "# %s, the furniture in %s." % (SHELL_FILE, FURNITURE_FILE), ""])
    tw = SUN["toward"]
    elev = math.degrees(math.atan2(tw[1], math.hypot(tw[0], tw[2])))
    oak = lum(PARQUET_MATERIALS[0][2]["base"])
    plaster = lum(ALL_MATERIALS["plaster"]["base"])
    lit = oak * SUN["irradiance"] * math.sin(math.radians(elev)) / math.pi
    o += ["# Light levels (radiance in W/(m² sr), which the preview shows through the AgX tone map): the sun's",
          "# %g W/m² reaches the floor at %.0f degrees of elevation, so oak of albedo %.2f reads %.2f there;"
          % (SUN["irradiance"], elev, oak, lit),
          "# the floor lamp's bulb, %g W/sr, makes plaster (albedo %.2f) 1 m away facing it read %.2f;"
          % (BULB["intensity"], plaster, plaster * BULB["intensity"] / math.pi),
          "# the three table lamps (0.8 to 2 W/sr) light their corners; the ceiling panel, the sky",
          "# through the window and the bounced sunlight fill in.", ""]
    o += ["[sun]", "model = \"authored\"", "toward = %s" % fmt(SUN["toward"]),
          "color = %s" % fmt(SUN["color"]), "irradiance = %s" % fmt(SUN["irradiance"]), ""]
    o += ["# Poly Haven's noon_grass (CC0), seen through the window. Its own sun stands 86 degrees",
          "# high and the window's reveal hides it from the room, so it does not double [sun].",
          "[sky]", "kind = \"hdr\"", "path = \"%s\"" % SKY["path"],
          "rotation_deg = %s" % fmt(SKY["rotation_deg"]), "intensity = %s" % fmt(SKY["intensity"]), ""]
    h = HAZE
    o += ["# A light haze fills the room, so the sunbeam through the window reads (docs/scenes.md).",
          "# Uniform fog of %g per metre (a mean free path of %.0f m), scattering white light a little"
          % (h["fog"], 1.0 / h["fog"]),
          "# forwards; no ambient term, since every light the haze sees is in the scene.",
          "[haze]", "lo = %s" % fmt(h["lo"]), "hi = %s" % fmt(h["hi"]), "fog = %s" % fmt(h["fog"]),
          "phase = %s" % fmt(h["phase"]), "back = %s" % fmt(h["back"]), "ambient = %s" % fmt(h["ambient"]), ""]
    o += text_lines()
    o += camera_lines()
    f = FINISH
    o += ["# The preview's finish: the AgX tone map, a faint bloom and a mild vignette. beauty.exr",
          "# stays the unfinished radiance; the manifest records the chain for the live renderer.",
          "[finish]", "bloom = %s" % fmt(f["bloom"]), "tone = \"%s\"" % f["tone"],
          "vignette = %s" % fmt(f["vignette"]), ""]
    o += ["# The plates hold the static part; the fan's blades, the toy ball and the clock's digits",
          "# are drawn live. The proxies (boxes for the walls and the large furniture) stand in for",
          "# the static objects when the live renderer shadows what moves, and for picking them.",
          "[plates]", "dir = \"plates/room\"", "proxies = \"%s\"" % PROXIES_FILE, "casters = \"proxies\"", ""]
    write_text(SCENE_FILE, o)


def text_lines():
    o = []
    for t in TEXTS:
        o.append("# " + t["comment"])
        o.append("[text.%s]" % t["name"])
        o.append("id = \"%s\"" % derive_id(SCENE_FILE, "text", t["name"]))
        o.append("text = %s" % json.dumps(t["text"]))
        o.append("font = \"%s\"" % FONT)
        o.append("size = %s" % fmt(t["size"]))
        o.append("color = %s" % fmt(t["color"]))
        o.append("at = %s" % fmt(t["at"]))
        if t["rotate"]:
            o.append("rotate = %s" % fmt(tuple(float(c) for c in t["rotate"])))
        o.append("lit = %s" % fmt(t["lit"]))
        o.append("dynamic = %s" % fmt(t["dynamic"]))
        o.append("")
    return o


def write_proxies():
    o = ["format = 1", "",
         "# The living room's proxies, named by %s's [plates] proxies and written by" % SCENE_FILE,
         "# scenes/tools/make_room.py (edit the script, not this file). World space, metres: each",
         "# box the unit cube scaled by size and moved to at. Never drawn; with casters = \"proxies\"",
         "# they are what shadows the dynamic objects in the live renderer, and a pick ray that meets",
         "# one picks its object.", ""]
    count = {}
    for name, comment, lo, hi in proxy_boxes():
        k = count.get(name, 0)
        count[name] = k + 1
        if comment:
            o.append("# " + comment)
        o += ["[[proxy]]", "id = \"%s\"" % derive_id(PROXIES_FILE, "proxy", "%s %d" % (name, k)),
              "object = \"%s\"" % name, "kind = \"box\"", "at = %s" % fmt(mul(add(lo, hi), 0.5)),
              "size = %s" % fmt(sub(hi, lo)), ""]
    write_text(PROXIES_FILE, o)


def write_daylight():
    d = DAYLIGHT
    o = scene_head(DAYLIGHT_FILE, [
         "# The living room of %s by daylight, written by scenes/tools/make_room.py (edit the" % SCENE_FILE,
         "# script, not this file): the same room, furniture and lamps, lit from outside by the",
         "# Hosek-Wilkie sky and the daylight sun at latitude %g, day %g (early April), %g h apparent"
         % (d["latitude"], d["day"], d["hour"]),
         "# solar time. The room's -Z axis points to the bearing %g (heading), so the morning sun"
         % d["heading"],
         "# comes in through the window in the left wall (x = -3).", ""])
    o += ["[sun]", "model = \"daylight\"", "hour = %s" % fmt(d["hour"]), "day = %s" % fmt(d["day"]),
          "latitude = %s" % fmt(d["latitude"]), "heading = %s" % fmt(d["heading"]), "radius = 0.27", ""]
    o += ["# A clear spring sky over grass, in the model's units, which the daylight sun shares.",
          "[sky]", "kind = \"analytic\"", "turbidity = %s" % fmt(d["turbidity"]),
          "ground_albedo = %s" % fmt(d["ground_albedo"]), ""]
    o += camera_lines()
    o += ["[plates]", "dir = \"plates/daylight\"", ""]
    write_text(DAYLIGHT_FILE, o)


def write_shell():
    o = ["format = 1", "",
         "# The living room's shell, lamps, parquet and what moves, included by %s and %s" % (SCENE_FILE, DAYLIGHT_FILE),
         "# and written by scenes/tools/make_room.py (edit the script, not this file). Its",
         "# materials resolve among the libraries of the scene that includes it.", ""]
    o += mesh_lines(SHELL_FILE, ROOM_MESHES)
    o += object_lines(SHELL_FILE, ROOM_OBJECTS)
    palette = ", ".join("%s = \"%s\"" % (k, parquet_prefab(al, sh)) for (al, sh), k in PARQUET_KEYS.items())
    o += ["# The floor: basket-weave parquet, a tile layer of 0.5 m blocks in the XZ plane (i along",
          "# +X, j along -Z; the last row is the front, j = 0). a, b, c are blocks whose boards run",
          "# along X, p, q, r along Z, each in one of three oak shades.",
          "[[tiles]]", "id = \"%s\"" % entry_id(SCENE_FILE, "tiles", "parquet"), "name = \"parquet\"",
          "cell = %s" % fmt(PARQUET_CELL), "origin = %s" % fmt(PARQUET_ORIGIN), "plane = \"xz\"",
          "palette = { %s }" % palette, "rows = ["]
    o += ["  \"%s\"," % r for r in parquet_rows()]
    o += ["]", ""]
    o += ["# The floor lamp's bulb: a glowing sphere inside the open shade, warm white, %g W/sr."
          % BULB["intensity"],
          "[[emitter]]", "id = \"%s\"" % derive_id(SCENE_FILE, "emitter", "bulb"), "name = \"bulb\"",
          "position = %s" % fmt(BULB["position"]), "radius = %s" % fmt(BULB["radius"]),
          "color = %s" % fmt(BULB["color"]), "intensity = %s" % fmt(BULB["intensity"]), ""]
    o += ["# The fan turns a full circle every %g s, about its rod." % FAN_MOVER["period"],
          "[[mover]]", "id = \"%s\"" % entry_id(SCENE_FILE, "mover", "fan"), "name = \"fan\"",
          "objects = [\"fan_blades\"]", "kind = \"turn\"", "pivot = %s" % fmt(FAN), "axis = [0.0, 1.0, 0.0]",
          "travel = [0.0, 360.0]", "period = %s" % fmt(FAN_MOVER["period"]), "motion = \"loop\"", ""]
    write_text(SHELL_FILE, o)


def write_furniture():
    o = ["format = 1", "",
         "# The living room's furniture, included by %s and written by" % SCENE_FILE,
         "# scenes/tools/make_room.py (edit the script, not this file). Its materials resolve among",
         "# the libraries of the scene that includes it.", ""]
    o += mesh_lines(FURNITURE_FILE, FURNITURE_MESHES)
    o += object_lines(FURNITURE_FILE, FURNITURE_OBJECTS)
    write_text(FURNITURE_FILE, o)


def write_lamp_prefab():
    f = LAMP_PREFAB
    o = ["format = 1", "materials = [\"%s\"]" % LAMP_LIB, "",
         "# A table lamp, written by scenes/tools/make_room.py: a glazed body, brass fittings, a",
         "# shade open at both ends, and a bulb (a sphere light) inside it. Placed three times in",
         "# room.scene.toml, each placement choosing its glaze, shade or bulb through [object.set].",
         "# The lamp stands on its origin; y is up.", ""]
    o += mesh_lines(f, [("lamp_stand", "meshes/table_lamp.glb", "lamp_body", None),
                        ("lamp_fittings", "meshes/table_lamp.glb", "lamp_fittings", None),
                        ("lamp_shade", "meshes/table_lamp.glb", "lamp_shade", None)])
    o += object_lines(f, [obj("stand", "lamp_stand"), obj("fittings", "lamp_fittings"),
                          obj("shade", "lamp_shade", material="lamp_linen")])
    o += ["# the bulb: a visible sphere %g cm across, lighting like %g W/sr"
          % (200 * LAMP_BULB["radius"], LAMP_BULB["intensity"]),
          "[[light]]", "id = \"%s\"" % entry_id(f, "light", "bulb"), "name = \"bulb\"",
          "position = %s" % fmt(LAMP_BULB["position"]), "color = %s" % fmt(LAMP_BULB["color"]),
          "intensity = %s" % fmt(LAMP_BULB["intensity"]), "radius = %s" % fmt(LAMP_BULB["radius"]), ""]
    write_text(f, o)
    write_library(LAMP_LIB, LAMP_MATERIALS, ["The table lamp prefab's materials, written by scenes/tools/make_room.py."])


def write_parquet_prefabs():
    for (along, shade), key in PARQUET_KEYS.items():
        f = parquet_prefab(along, shade)
        o = ["format = 1", "materials = [\"%s\"]" % PARQUET_LIB, "",
             "# A parquet block, 0.5 m square, four boards along %s in %s, centred on its origin with"
             % (along.upper(), shade),
             "# its top at y = 0: the tile \"%s\" of room.scene.toml's parquet layer. Written by" % key,
             "# scenes/tools/make_room.py.", ""]
        o += mesh_lines(f, [("block", "meshes/parquet.glb", "%s_%s" % (along, shade.replace("floor_oak_", "oak_")),
                             None)])
        o += object_lines(f, [obj("block", "block")])
        write_text(f, o)
    write_library(PARQUET_LIB, PARQUET_MATERIALS,
                  ["The parquet tiles' materials, written by scenes/tools/make_room.py."])


MESH_BUILDERS = [
    ("room.glb", build_room),
    ("parquet.glb", build_parquet),
    ("table.glb", build_table),
    ("chair.glb", build_chair),
    ("bookshelf.glb", build_bookshelf),
    ("sofa.glb", build_sofa),
    ("floor_lamp.glb", build_floor_lamp),
    ("picture.glb", build_picture),
    ("props.glb", build_props),
    ("plant.glb", build_plant),
    ("rug.glb", build_rug),
    ("curtains.glb", build_curtains),
    ("sideboard.glb", build_sideboard),
    ("side_table.glb", build_side_table),
    ("fan.glb", build_fan),
    ("table_lamp.glb", build_table_lamp),
]


def check_ids():
    """Every id well formed and unique across the files written, every name unique per kind
    and file group (a scene with its include; each prefab; each library)."""
    ids = [entry_id(MATERIALS_FILE, "material", m[0]) for m in MATERIALS]
    ids += [entry_id(PARQUET_LIB, "material", m[0]) for m in PARQUET_MATERIALS]
    ids += [entry_id(LAMP_LIB, "material", m[0]) for m in LAMP_MATERIALS]
    ids += [entry_id(SCENE_FILE, "mesh", m[0]) for m in ROOM_MESHES]
    ids += [entry_id(FURNITURE_FILE, "mesh", m[0]) for m in FURNITURE_MESHES]
    ids += [entry_id(SCENE_FILE, "object", o["name"]) for o in ROOM_OBJECTS]
    ids += [entry_id(FURNITURE_FILE, "object", o["name"]) for o in FURNITURE_OBJECTS]
    ids += [derive_id(SCENE_FILE, "emitter", "bulb"), entry_id(SCENE_FILE, "mover", "fan"),
            entry_id(SCENE_FILE, "tiles", "parquet")]
    for name in ("lamp_stand", "lamp_fittings", "lamp_shade"):
        ids.append(entry_id(LAMP_PREFAB, "mesh", name))
    for name in ("stand", "fittings", "shade"):
        ids.append(entry_id(LAMP_PREFAB, "object", name))
    ids.append(entry_id(LAMP_PREFAB, "light", "bulb"))
    for al, sh in PARQUET_KEYS:
        ids += [entry_id(parquet_prefab(al, sh), "mesh", "block"), entry_id(parquet_prefab(al, sh), "object", "block")]
    ids += [derive_id(SCENE_FILE, "text", t["name"]) for t in TEXTS]
    count = {}
    for name, _, lo, hi in proxy_boxes():
        ids.append(derive_id(PROXIES_FILE, "proxy", "%s %d" % (name, count.get(name, 0))))
        count[name] = count.get(name, 0) + 1
        assert all(hi[i] > lo[i] for i in range(3)), (name, lo, hi)
    assert len(set(ids)) == len(ids), "duplicate id"
    assert all(len(i) == 10 and all(c in CROCKFORD for c in i) for i in ids)
    mats = [m[0] for lib in (MATERIALS, PARQUET_MATERIALS, LAMP_MATERIALS) for m in lib]
    for names in (mats, [m[0] for m in ROOM_MESHES + FURNITURE_MESHES],
                  [o["name"] for o in ROOM_OBJECTS + FURNITURE_OBJECTS]):
        assert len(set(names)) == len(names), "duplicate name"
    return ids


def main():
    os.makedirs(MESH_DIR, exist_ok=True)
    total = 0
    for file, build in MESH_BUILDERS:
        parts = build()
        for p in parts:
            assert p.material in ALL_MATERIALS, p.material
        names = [p.name for p in parts]
        assert len(set(names)) == len(names) and all(names), file
        path = os.path.join(MESH_DIR, file)
        write_glb(path, parts, ALL_MATERIALS)
        tris = check_glb(path)
        total += tris
        print("%-16s %6d triangles, %2d nodes, %8d bytes" % (file, tris, len(parts), os.path.getsize(path)))
    # every node a [mesh] names exists in its file
    for name, file, node, _ in ROOM_MESHES + FURNITURE_MESHES:
        if node:
            doc = glb_json(os.path.join(ROOT, file))
            assert node in [n["name"] for n in doc["nodes"]], (name, node)
    check_ids()
    write_library(MATERIALS_FILE, MATERIALS,
                  ["Materials of the room scene, written by scenes/tools/make_room.py (edit the script, not",
                   "this file). All of family \"plain\": base is linear RGB albedo (a metal's F0 colour when",
                   "metalness = 1), specular the dielectric reflectance at normal incidence, emission the",
                   "radiance of a triangle's front face in W/(m² sr) per channel."])
    write_scene()
    write_proxies()
    write_shell()
    write_daylight()
    write_furniture()
    write_lamp_prefab()
    write_parquet_prefabs()
    print("total %d triangles in the glb files" % total)


def glb_json(path):
    data = open(path, "rb").read()
    jlen = struct.unpack_from("<I", data, 12)[0]
    return json.loads(data[20:20 + jlen].decode("utf-8"))


if __name__ == "__main__":
    main()
