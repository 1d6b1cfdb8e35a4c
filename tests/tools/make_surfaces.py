#!/usr/bin/env python3
"""Writes the `surfaces` reference project (tests/data/references/surfaces/).

One glass or metal ball of radius 0.5, centre 0.9 above a checkered diffuse ground, under a constant sky and
(but for the rough glass) one point light; one scene per ball, so a difference is easy to place:

  glass_smooth.scene.toml  family "glass", ior 1.5, roughness 0 (a delta interface), clear
  glass_rough.scene.toml   family "glass", ior 1.5, roughness 0.3 (GGX alpha 0.09), clear;
                           no point light: its caustic through rough glass (sampled by
                           light sampling at the ball's far side) is too noisy for a test
  metal_rough.scene.toml   family "metal", roughness 0.5 (alpha 0.25), F0 gold
  sheen_cloth.scene.toml   family "cloth", sheen 1, roughness 0.7 (Charlie alpha 0.49), red base
  subsurface_wax.scene.toml  family "plain", subsurface 1, roughness 0: a smooth interface
                           around a scattering medium (mean free path `thickness` = 0.1)
  metal_plain.scene.toml   the same ball as `plain` with metalness 1 (Schlick GGX with
                           Kulla-Conty multiple scattering, as `metal` is specified): renders
                           today, against the metal reference

Standard library only. The ball mesh is the `spheres` project's (`shapes.glb`, node
"sphere", unit radius, 4753 vertices with normals), copied; the ground is written here as
`checker.glb`, one node per tile colour. Ids are derived as the format's migration derives
them (first 50 bits of the SHA-256 of "<project-relative path>\\n<kind>\\n<name>", Crockford
base32), so rerunning writes the same bytes.

Usage: python3 tests/tools/make_surfaces.py   (from the repository root)
"""

import hashlib
import json
import shutil
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/data/references/surfaces"
CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"

TILE = 0.5
X_RANGE = (-4.0, 4.0)
Z_RANGE = (-6.0, 4.0)
# Tile colours (diffuse albedo): light, dark, red, blue. Tile (i, j) takes colour
# (i + j) % 2 + 2 * ((i // 2 + j // 2) % 2): a light/dark checker whose 2×2 super-tiles
# alternate between grey and colour, so refraction shows in hue as well as in brightness.
COLOURS = [
    ("tile_light", [0.75, 0.75, 0.75]),
    ("tile_dark", [0.12, 0.12, 0.12]),
    ("tile_red", [0.70, 0.22, 0.15]),
    ("tile_blue", [0.15, 0.30, 0.70]),
]
SKY = [0.5, 0.625, 0.8125]


def derive_id(key: str) -> str:
    bits = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") >> 14
    return "".join(CROCKFORD[(bits >> (45 - 5 * k)) & 31] for k in range(10))


def write_checker_glb(path: Path):
    """One mesh and one node per tile colour; quads wound counter-clockwise seen from +Y."""
    buf = bytearray()
    views, accessors, meshes, nodes = [], [], [], []
    nx = round((X_RANGE[1] - X_RANGE[0]) / TILE)
    nz = round((Z_RANGE[1] - Z_RANGE[0]) / TILE)
    for colour, (name, _) in enumerate(COLOURS):
        pos, idx = [], []
        for i in range(nx):
            for j in range(nz):
                if (i + j) % 2 + 2 * ((i // 2 + j // 2) % 2) != colour:
                    continue
                x0, z0 = X_RANGE[0] + i * TILE, Z_RANGE[0] + j * TILE
                x1, z1 = x0 + TILE, z0 + TILE
                b = len(pos)
                pos += [(x0, 0.0, z0), (x0, 0.0, z1), (x1, 0.0, z1), (x1, 0.0, z0)]
                idx += [b, b + 1, b + 2, b, b + 2, b + 3]
        base = len(accessors)
        for data, fmt, typ, comp, target in (
            (pos, "<3f", "VEC3", 5126, 34962),
            ([(0.0, 1.0, 0.0)] * len(pos), "<3f", "VEC3", 5126, 34962),
            (idx, "<I", "SCALAR", 5125, 34963),
        ):
            off = len(buf)
            for d in data:
                buf += struct.pack(fmt, *(d if isinstance(d, tuple) else (d,)))
            views.append(
                {"buffer": 0, "byteOffset": off, "byteLength": len(buf) - off, "target": target}
            )
            acc = {
                "bufferView": len(views) - 1,
                "byteOffset": 0,
                "componentType": comp,
                "count": len(data),
                "type": typ,
            }
            if typ == "VEC3" and len(accessors) == base:
                acc["min"] = [min(p[k] for p in data) for k in range(3)]
                acc["max"] = [max(p[k] for p in data) for k in range(3)]
            accessors.append(acc)
        meshes.append(
            {
                "name": name,
                "primitives": [
                    {
                        "attributes": {"POSITION": base, "NORMAL": base + 1},
                        "indices": base + 2,
                        "mode": 4,
                    }
                ],
            }
        )
        nodes.append({"mesh": colour, "name": name})
    doc = {
        "asset": {"version": "2.0", "generator": "tests/tools/make_surfaces.py"},
        "buffers": [{"byteLength": len(buf)}],
        "bufferViews": views,
        "accessors": accessors,
        "meshes": meshes,
        "nodes": nodes,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "scene": 0,
    }
    js = json.dumps(doc, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    buf += b"\0" * (-len(buf) % 4)
    total = 12 + 8 + len(js) + 8 + len(buf)
    out = struct.pack("<III", 0x46546C67, 2, total)
    out += struct.pack("<II", len(js), 0x4E4F534A) + js
    out += struct.pack("<II", len(buf), 0x004E4942) + bytes(buf)
    path.write_bytes(out)


def write_sky_hdr(path: Path):
    """A flat (uncompressed) Radiance RGBE map of one colour, 4×2 texels (below 8 wide, so
    every reader takes it as flat)."""
    import math

    m = max(SKY)
    e = math.frexp(m)[1]
    scale = 256.0 / 2.0**e
    texel = bytes([int(c * scale) for c in SKY] + [e + 128])
    # The values are chosen so the RGBE encoding is exact.
    for c, b in zip(SKY, texel):
        assert b / scale == c, (c, b / scale)
    header = b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 4\n"
    path.write_bytes(header + texel * 8)


def fmt(v):
    if isinstance(v, list):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


MATERIALS = "surfaces.materials.toml"

BALLS = {
    "glass_smooth": ("clear_glass", "smooth clear glass, ior 1.5"),
    "glass_rough": ("rough_glass", "rough clear glass, ior 1.5, GGX alpha 0.09"),
    "metal_rough": ("rough_gold", "rough gold metal, GGX alpha 0.25, Schlick F0 = base"),
    "metal_plain": (
        "rough_gold_plain",
        "the rough gold as plain with metalness 1 (the same model as the metal family)",
    ),
    "glass_absorbing": (
        "amber_glass",
        "smooth amber glass, ior 1.5, Beer-Lambert absorption inside (base at depth 1/absorption)",
    ),
    "sheen_cloth": (
        "velvet",
        "cloth (Charlie sheen, weight 1, alpha 0.49, over a Lambertian base coupled by its albedo)",
    ),
    "sheet_thin": (
        "thin_paper",
        "thin paper (diffuse reflection and diffuse transmission), lit from behind",
    ),
    "subsurface_wax": (
        "wax",
        "wax: plain at subsurface 1, a smooth interface of ior 1.5 around a scattering medium (mean free path 0.1)",
    ),
}
# The scenes whose object is the thin sheet: the `ground` quad of shapes.glb (30 x 30, normal
# +Y) scaled to 0.6 x 0.6 and stood up facing the camera (+Z), with the light behind it.
SHEETS = {"sheet_thin"}


def materials_toml() -> str:
    lines = ["format = 1", ""]

    def mat(name, comment, **keys):
        lines.append(f"# {comment}")
        lines.append(f"[materials.{name}]")
        lines.append(f'id = "{derive_id(MATERIALS + chr(10) + "materials" + chr(10) + name)}"')
        for k, v in keys.items():
            lines.append(f"{k} = {fmt(v)}")
        lines.append("")

    for name, rgb in COLOURS:
        mat(
            name,
            "diffuse ground tile",
            family="plain",
            base=rgb,
            roughness=1.0,
            metalness=0.0,
            specular=0.0,
        )
    mat(
        "clear_glass",
        "smooth glass: a delta dielectric interface, outside index 1 on the front side",
        family="glass",
        base=[1.0, 1.0, 1.0],
        roughness=0.0,
        ior=1.5,
    )
    mat(
        "rough_glass",
        "rough glass: GGX alpha = roughness^2 = 0.09",
        family="glass",
        base=[1.0, 1.0, 1.0],
        roughness=0.3,
        ior=1.5,
    )
    mat(
        "rough_gold",
        "rough metal: GGX alpha 0.25, Schlick Fresnel with F0 = base, exponent 5",
        family="metal",
        base=[1.0, 0.78, 0.34],
        roughness=0.5,
        fresnel_power=5.0,
    )
    mat(
        "rough_gold_plain",
        "the same metal through plain's metalness (Schlick GGX + Kulla-Conty)",
        family="plain",
        base=[1.0, 0.78, 0.34],
        roughness=0.5,
        metalness=1.0,
        specular=0.04,
    )
    mat(
        "amber_glass",
        "smooth glass coloured by depth: sigma = -absorption ln(base) per unit, clear interfaces",
        family="glass",
        base=[0.9, 0.55, 0.25],
        roughness=0.0,
        ior=1.5,
        absorption=1.5,
    )
    mat(
        "thin_paper",
        "a thin sheet: reflectance (1 - transmission) base, transmittance transmission base",
        family="paper",
        base=[0.9, 0.8, 0.6],
        transmission=0.4,
    )
    mat(
        "wax",
        "subsurface 1: a smooth interface (ior 1.5 from specular 0.04) around a homogeneous "
        "medium, sigma_t = 1/thickness, multiple-scattering albedo base * subsurface_tint",
        family="plain",
        base=[0.9, 0.7, 0.5],
        roughness=0.0,
        specular=0.04,
        subsurface=1.0,
        subsurface_tint=[0.9, 0.75, 0.6],
        thickness=0.1,
    )
    mat(
        "velvet",
        "cloth: Charlie sheen of weight `sheen`, alpha = roughness^2, over a Lambertian base",
        family="cloth",
        base=[0.55, 0.2, 0.25],
        sheen=1.0,
        roughness=0.7,
    )
    return "\n".join(lines)


def scene_toml(scene: str, material: str, comment: str) -> str:
    path = f"{scene}.scene.toml"

    def i(kind, name):
        return derive_id(f"{path}\n{kind}\n{name}")

    out = [
        "format = 1",
        f'materials = ["{MATERIALS}"]',
        "",
        (
            f"# One sheet of {comment}, 0.6 x 0.6, its centre 0.9 above a checkered diffuse ground;"
            if scene in SHEETS
            else f"# One ball of {comment}, radius 0.5, floating 0.4 above a checkered diffuse ground"
        ),
        (
            "# the light behind it shines through it towards the camera;"
            if scene in SHEETS
            else "# (no contact, so little of the light the ground gets comes from the ball);"
        ),
        "# a constant sky"
        + ("" if scene == "glass_rough" else " and one point light")
        + ". Written by tests/tools/make_surfaces.py.",
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
    sheet = scene in SHEETS
    node = "ground" if sheet else "sphere"
    out += [
        f"[mesh.{node}]",
        f'id = "{i("mesh", node)}"',
        'file = "meshes/shapes.glb"',
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
    if sheet:
        out += [
            "[[object]]",
            f'id = "{i("object", "sheet")}"',
            'name = "sheet"',
            'mesh = "ground"',
            "at = [0.0, 0.9, 0.0]",
            "rotate = [90.0, 0.0, 0.0]",
            "scale = 0.02",
            f'material = "{material}"',
            "",
            "[[light]]",
            f'id = "{i("light", "back")}"',
            'name = "back"',
            "position = [0.6, 1.8, -2.0]",
            "color = [1.0, 0.95, 0.85]",
            "intensity = 20.0",
            "radius = 0.0",
            "range = 1000.0",
            "",
        ]
    else:
        out += [
            "[[object]]",
            f'id = "{i("object", "ball")}"',
            'name = "ball"',
            'mesh = "sphere"',
            "at = [0.0, 0.9, 0.0]",
            "rotate = [90.0, 30.0, 0.0]",
            "scale = 0.5",
            f'material = "{material}"',
            "",
        ]
    if scene != "glass_rough" and not sheet:
        out += [
        "[[light]]",
        f'id = "{i("light", "key")}"',
        'name = "key"',
        "position = [2.0, 4.0, 2.5]",
        "color = [1.0, 0.95, 0.85]",
        "intensity = 20.0",
        "radius = 0.0",
        "range = 1000.0",
        "",
        ]
    out += [
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


def main():
    (OUT / "meshes").mkdir(parents=True, exist_ok=True)
    (OUT / "sky").mkdir(exist_ok=True)
    shutil.copyfile(ROOT / "scenes/spheres/meshes/shapes.glb", OUT / "meshes/shapes.glb")
    write_checker_glb(OUT / "meshes/checker.glb")
    write_sky_hdr(OUT / "sky/constant.hdr")
    (OUT / "project.toml").write_text('format = 1\n\n[project]\nname = "surfaces"\n')
    (OUT / MATERIALS).write_text(materials_toml())
    for scene, (material, comment) in BALLS.items():
        (OUT / f"{scene}.scene.toml").write_text(scene_toml(scene, material, comment))


if __name__ == "__main__":
    main()
