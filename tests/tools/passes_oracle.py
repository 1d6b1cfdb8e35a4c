#!/usr/bin/env python3
"""Independent reader of a plate folder's passes.exr (tests/passes.rs runs it).

Reads the EXR with OpenEXR's own Python bindings (PyPI `OpenEXR`), the Cryptomatte masks
with `cryptomatte-api` (PyPI), and hashes names with `mmh3` (PyPI), none of them sharing code
with the bake; checks them against manifest.json and beauty.exr's alpha, and the light groups
against the manifest and the beauty. Exits non-zero with
a message on the first failure; prints "masks ok: N objects, M materials" at the end.

Usage: passes_oracle.py PLATE_DIR
"""
import json
import struct
import sys
from pathlib import Path

import numpy as np
import OpenEXR
import cryptomatte_api
import mmh3


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def crypto_id_hex(name):
    # The Cryptomatte specification's reference: MurmurHash3_32 of the UTF-8 name, an
    # exponent of all zeros or all ones fixed by flipping bit 23.
    h = mmh3.hash(name.encode("utf-8"), 0, signed=False)
    e = (h >> 23) & 255
    if e == 0 or e == 255:
        h ^= 1 << 23
    return "%08x" % h


def main():
    plate = Path(sys.argv[1])
    manifest = json.loads((plate / "manifest.json").read_text())
    passes = OpenEXR.File(str(plate / "passes.exr"), separate_channels=True)
    ch = passes.channels()
    beauty = OpenEXR.File(str(plate / "beauty.exr"), separate_channels=True).channels()
    alpha = beauty["A"].pixels.astype(np.float64)
    h, w = alpha.shape

    want_types = {"N.X": np.float16, "albedo.R": np.float16, "roughness.X": np.float16,
                  "pick.X": np.uint32, "samples.X": np.uint32, "variance.R": np.float32,
                  "CryptoObject00.R": np.float32, "CryptoMaterial02.A": np.float32}
    for name, t in want_types.items():
        if name not in ch:
            fail(f"no channel {name}; have {sorted(ch)}")
        if ch[name].pixels.dtype != t:
            fail(f"{name} is {ch[name].pixels.dtype}, want {t}")
        if ch[name].pixels.shape != (h, w):
            fail(f"{name} is {ch[name].pixels.shape}, want {(h, w)}")

    # Every layer the manifest lists is in the file, and nothing else is.
    listed = set()
    for layer in manifest["files"]["passes.exr"]["layers"].values():
        listed.update(layer["channels"])
    if listed != set(ch):
        fail(f"manifest channels {sorted(listed ^ set(ch))} differ from the file's")

    samples = ch["samples.X"].pixels
    if not (samples == manifest["spp"]).all():
        fail(f"sample counts {np.unique(samples)} are not spp {manifest['spp']}")

    objects = [o for o in manifest["objects"] if not o["dynamic"] and not o["hidden"]]
    picks = {o["key"]: o["pick"] for o in objects}
    pick = ch["pick.X"].pixels
    allowed = set(picks.values()) | {0}
    if not set(np.unique(pick).tolist()) <= allowed:
        fail(f"pick ids {np.unique(pick)} are not the manifest's {sorted(allowed)}")
    if (pick[alpha == 0] != 0).any():
        fail("a pixel that sees only sky has a pick id")

    mattes = {m.metadata().name(): m for m in cryptomatte_api.Cryptomatte.load(str(plate / "passes.exr"))}
    if set(mattes) != {"CryptoObject", "CryptoMaterial"}:
        fail(f"Cryptomattes found: {sorted(mattes)}")
    header = passes.header()
    masks = {}
    for layer, m in mattes.items():
        key = [k for k in header if k.endswith("/name") and header[k] == layer][0].split("/")[1]
        if key != ("%08x" % mmh3.hash(layer, 0, signed=False))[:7]:
            fail(f"{layer}'s key {key}")
        manifest_json = json.loads(header[f"cryptomatte/{key}/manifest"])
        for name, hx in manifest_json.items():
            if hx != crypto_id_hex(name):
                fail(f"{layer}: {name} hashes to {crypto_id_hex(name)}, the file says {hx}")
        ms = {k: v.astype(np.float64) for k, v in m.masks().items()}
        if set(ms) != set(manifest_json):
            fail(f"{layer}: masks for {sorted(ms)}, manifest {sorted(manifest_json)}")
        # The masks sum to alpha, but where an emitter (a light, not an object: no id) covers
        # part of the pixel.
        total = sum(ms.values())
        if (total > alpha + 1e-5).any():
            fail(f"{layer}: the masks sum past alpha by {(total - alpha).max()}")
        if (np.abs(total - alpha) < 1e-5).mean() < 0.97:
            fail(f"{layer}: the masks sum to alpha in only {(np.abs(total - alpha) < 1e-5).mean()} of the pixels")
        masks[layer] = ms

    # Each object's mask covers the pixels whose centre picks it.
    for name, p in picks.items():
        mask = masks["CryptoObject"].get(name)
        if mask is None:
            fail(f"no mask for object {name}")
        at = pick == p
        if at.sum() == 0:
            fail(f"object {name} (pick {p}) is nowhere")
        if mask[at].mean() < 0.85 or (mask[at] > 0.5).mean() < 0.9:
            fail(f"{name}: mask where it is picked has mean {mask[at].mean()}")
        if mask[~at].sum() > 0.25 * mask.sum():
            fail(f"{name}: {mask[~at].sum()} of the mask's {mask.sum()} lies where others are picked")
    # One material per object in the spheres scene: the masks are the same pixels.
    pairs = {"grey_ball": "grey", "metal_ball": "copper", "red_ball": "red", "ground": "ground"}
    for o, mat in pairs.items():
        if o in masks["CryptoObject"] and np.abs(masks["CryptoObject"][o] - masks["CryptoMaterial"][mat]).max() > 1e-6:
            fail(f"object {o} and material {mat} masks differ")
    print(f"masks ok: {len(masks['CryptoObject'])} objects, {len(masks['CryptoMaterial'])} materials")

    # Light groups: a float32 light.<key> and a half shadow.<key> per group the manifest
    # names, `other` last; the spheres scene's point light `key` and emitter `glow` each have
    # one. Direct light is part of the beauty, so the groups sum to no more than it.
    layers = manifest["files"]["passes.exr"]["layers"]
    groups = sorted(k[len("light."):] for k in layers if k.startswith("light."))
    if sorted(k[len("shadow."):] for k in layers if k.startswith("shadow.")) != groups:
        fail(f"light and shadow layers differ: {sorted(layers)}")
    want = {"key": "[[light]]", "glow": "[[emitter]]"}
    for key, table in want.items():
        if key not in groups or layers[f"light.{key}"]["light_group"] != {"table": table, "name": key}:
            fail(f"no light group for {table} {key}: {groups}")
    if "other" not in groups:
        fail(f"no `other` light group: {groups}")
    total = np.zeros((h, w, 3))
    for key in groups:
        for c, name in enumerate("RGB"):
            px = ch[f"light.{key}.{name}"].pixels
            if px.dtype != np.float32:
                fail(f"light.{key}.{name} is {px.dtype}, want float32")
            if not np.isfinite(px).all() or (px < 0).any():
                fail(f"light.{key}.{name} holds negative or non-finite values")
            total[..., c] += px
        m = ch[f"shadow.{key}.X"].pixels
        if m.dtype != np.float16:
            fail(f"shadow.{key}.X is {m.dtype}, want float16")
        if (m < 0).any() or (m > 1).any():
            fail(f"shadow.{key}.X leaves [0, 1]: {m.min()}..{m.max()}")
    for c, name in enumerate("RGB"):
        b = beauty[name].pixels.astype(np.float64)
        if (total[..., c] > b * (1 + 1e-3) + 1e-4).any():
            fail(f"the light groups' {name} exceeds the beauty's by {(total[..., c] - b).max()}")
    lit = total.sum(axis=2) > 0
    if lit.mean() < 0.5:
        fail(f"only {lit.mean()} of the pixels get direct light")
    # The point light `key` shadows the ground behind the balls: some matte is 1, most is 0.
    m = ch["shadow.key.X"].pixels
    if not ((m == 1).any() and (m == 0).mean() > 0.5):
        fail(f"shadow.key.X: {(m == 1).sum()} pixels at 1, {(m == 0).mean()} at 0")
    print(f"light groups ok: {', '.join(groups)}")


if __name__ == "__main__":
    main()
