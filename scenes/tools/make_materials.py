#!/usr/bin/env python3
"""Writes scenes/materials.scene.toml and scenes/families.materials.toml: one object per
material family and per key that changes the look, lit so each reads (docs/materials.md).

Two rows of balls (radius 0.25) on a grey diffuse ground, and behind them three thin sheets
(paper, petal, leaf) with a light behind each row of sheets so their transmission shows; a dim
constant sky and a key light in front. Standard library only; ids are derived as the format's
migration derives them, so rerunning writes the same bytes.

Usage: python3 scenes/tools/make_materials.py   (from the repository root)
"""

import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "scenes"
CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
SCENE = "materials.scene.toml"
LIBRARY = "families.materials.toml"


def derive_id(key: str) -> str:
    bits = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 14
    return "".join(CROCKFORD[(bits >> (45 - 5 * k)) & 31] for k in range(10))


def fmt(v):
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return '"' + v + '"'
    return str(v)


# (name, comment, keys). Families with their own defaults are written with the family alone.
MATERIALS = [
    ("ground", "the diffuse ground", dict(family="plain", base=[0.45, 0.45, 0.45], specular=0.0)),
    ("plain", "plain: red plastic", dict(family="plain", base=[0.7, 0.1, 0.08], roughness=0.35)),
    ("metal", "metal: rough gold", dict(family="metal", base=[1.0, 0.78, 0.34], roughness=0.35)),
    ("chrome", "chrome: its own defaults (a chromium mirror)", dict(family="chrome")),
    ("glass", "glass: clear, smooth", dict(family="glass", base=[1.0, 1.0, 1.0], roughness=0.0)),
    (
        "amber",
        "glass with absorption: amber by depth (base reached at 1/absorption)",
        dict(family="glass", base=[0.85, 0.45, 0.1], roughness=0.0, absorption=4.0),
    ),
    ("water", "liquid: its own defaults (ior 1.33, smooth, clear)", dict(family="liquid")),
    (
        "juice",
        "liquid with absorption",
        dict(family="liquid", base=[0.9, 0.35, 0.05], absorption=3.0),
    ),
    (
        "lacquer",
        "lacquer: a clear coat over blue plastic",
        dict(family="lacquer", base=[0.05, 0.15, 0.6], roughness=0.6),
    ),
    ("wood", "wood: plain with wood's defaults", dict(family="wood", base=[0.45, 0.26, 0.12])),
    ("bark", "bark: plain with bark's defaults", dict(family="bark", base=[0.25, 0.18, 0.12])),
    ("plaster", "plaster: rough diffuse (EON)", dict(family="plaster", base=[0.85, 0.82, 0.75])),
    ("stone", "stone: rough diffuse (EON)", dict(family="stone", base=[0.5, 0.5, 0.48])),
    (
        "lamp",
        "emissive: emission only",
        dict(family="emissive", base=[0.9, 0.9, 0.9], emission=[4.0, 3.2, 2.0]),
    ),
    ("cloth", "cloth: not drawn on its own lobe yet (plain)", dict(family="cloth", base=[0.2, 0.4, 0.2])),
    ("cord", "cord: the sheen of its fibres over a diffuse body (cloth's lobe)", dict(family="cord", base=[0.6, 0.5, 0.3])),
    ("occluder", "occluder: not drawn on its own lobe yet (plain)", dict(family="occluder")),
    ("paper", "paper: a thin sheet, transmission by default 0.3", dict(family="paper", base=[0.95, 0.93, 0.88])),
    ("petal", "petal: a thin sheet, transmission by default 0.5", dict(family="petal", base=[0.95, 0.45, 0.6])),
    ("leaf", "leaf: a thin sheet, transmission by default 0.4", dict(family="leaf", base=[0.35, 0.7, 0.15])),
]

FRONT = ["plain", "metal", "chrome", "glass", "amber", "water", "juice", "lacquer"]
BACK = ["wood", "bark", "plaster", "stone", "lamp", "cloth", "cord", "occluder"]
SHEETS = ["paper", "petal", "leaf"]


def library() -> str:
    out = ["format = 1", "", "# Written by scenes/tools/make_materials.py.", ""]
    for name, comment, keys in MATERIALS:
        out.append(f"# {comment}")
        out.append(f"[materials.{name}]")
        out.append(f'id = "{derive_id(LIBRARY + chr(10) + "materials" + chr(10) + name)}"')
        for k, v in keys.items():
            out.append(f"{k} = {fmt(v)}")
        out.append("")
    return "\n".join(out)


def scene() -> str:
    def i(kind, name):
        return derive_id(f"{SCENE}\n{kind}\n{name}")

    out = [
        "format = 1",
        f'materials = ["{LIBRARY}"]',
        "",
        "# Every material family, and the keys that change a family's look, one object each:",
        "# front row " + ", ".join(FRONT) + ";",
        "# back row " + ", ".join(BACK) + ";",
        "# behind them the thin sheets " + ", ".join(SHEETS) + ", lit from behind.",
        "# Written by scenes/tools/make_materials.py.",
        "",
    ]
    for node in ("ground", "sphere"):
        out += [f"[mesh.{node}]", f'id = "{i("mesh", node)}"', 'file = "meshes/shapes.glb"', f'node = "{node}"', ""]

    def obj(name, mesh, at, scale, material, rotate=None):
        o = ["[[object]]", f'id = "{i("object", name)}"', f'name = "{name}"', f'mesh = "{mesh}"', f"at = {fmt(at)}"]
        if rotate:
            o.append(f"rotate = {fmt(rotate)}")
        o += [f"scale = {fmt(scale)}", f'material = "{material}"', ""]
        return o

    out += obj("ground", "ground", [0.0, 0.0, 0.0], 1.0, "ground")
    for row, z in ((FRONT, 0.6), (BACK, -0.1)):
        for k, m in enumerate(row):
            out += obj(f"{m}_ball", "sphere", [round(-2.1 + 0.6 * k, 3), 0.25, z], 0.25, m)
    for k, m in enumerate(SHEETS):
        # The ground quad (30 x 30, normal +Y) at 0.8 x 0.8, stood up facing the camera.
        out += obj(f"{m}_sheet", "ground", [round(-1.2 + 1.2 * k, 3), 0.9, -0.9], 0.8 / 30.0, m, [90.0, 0.0, 0.0])
    lights = [
        ("key", [1.5, 3.0, 3.5], [1.0, 0.95, 0.88], 14.0),
        ("back", [0.0, 1.2, -3.0], [1.0, 0.97, 0.9], 10.0),
    ]
    for name, p, c, e in lights:
        out += [
            "[[light]]",
            f'id = "{i("light", name)}"',
            f'name = "{name}"',
            f"position = {fmt(p)}",
            f"color = {fmt(c)}",
            f"intensity = {fmt(e)}",
            "radius = 0.0",
            "range = 1000.0",
            "",
        ]
    out += [
        "[sky]",
        'kind = "hdr"',
        'path = "sky/constant.hdr"',
        "rotation_deg = 0.0",
        "intensity = 0.5",
        "",
        "[trace]",
        "transmissive_shadows = true",
        "",
        "[camera]",
        'projection = "perspective"',
        "at = [0.0, 1.6, 3.6]",
        "look_at = [0.0, 0.35, 0.0]",
        "up = [0.0, 1.0, 0.0]",
        "fov = 38.0",
        "",
    ]
    return "\n".join(out)


def main():
    (SCENES / LIBRARY).write_text(library())
    (SCENES / SCENE).write_text(scene())


if __name__ == "__main__":
    main()
