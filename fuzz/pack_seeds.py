#!/usr/bin/env python3
"""Packs the repository's scene projects into seed inputs for the scene_load fuzz target.

Each *.scene.toml (and format 0 scene.toml) becomes one input in the layout harness.rs
unpacks: NUL-separated segments of "relative/path\\n" + contents, the scene first, then the
other files under its project root (TOML texts whole, assets such as .glb and .hdr as empty
files: the reader checks that they exist, never what they hold). Usage:

    python3 fuzz/pack_seeds.py OUT_DIR
"""
import hashlib
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_FILES = 16
PLAIN = re.compile(r"^[A-Za-z0-9_.\-]+$")


def root_of(path):
    """The nearest folder upward (inside the repository) holding a project.toml, else the
    scene's own folder: the reader's rule."""
    d = os.path.dirname(path)
    while d.startswith(REPO) and d != REPO:
        if os.path.isfile(os.path.join(d, "project.toml")):
            return d
        d = os.path.dirname(d)
    return os.path.dirname(path)


def usable(rel):
    parts = rel.split("/")
    return len(rel) <= 100 and len(parts) <= 4 and all(
        PLAIN.match(p) and p not in (".", "..") for p in parts)


def files_under(root):
    """Files under root, skipping nested projects, dot-names and target folders."""
    out = []
    for d, dirs, names in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "target"
                         and not os.path.isfile(os.path.join(d, x, "project.toml")))
        for n in sorted(names):
            out.append(os.path.relpath(os.path.join(d, n), root))
    return out


def pack(scene):
    root = root_of(scene)
    first = os.path.relpath(scene, root)
    rest = [f for f in files_under(root) if f != first and usable(f)]
    rest.sort(key=lambda f: (not f.endswith(".toml"), f))
    segs = []
    for rel in [first] + rest[: MAX_FILES - 1]:
        body = b""
        if rel.endswith(".toml"):
            with open(os.path.join(root, rel), "rb") as fh:
                body = fh.read().replace(b"\0", b"")
        segs.append(rel.encode() + b"\n" + body)
    return b"\0".join(segs)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for d, dirs, names in os.walk(REPO):
        dirs[:] = [x for x in dirs if x not in ("target", ".git", "fuzz")]
        for name in names:
            if name.endswith(".scene.toml") or name == "scene.toml":
                data = pack(os.path.join(d, name))
                with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as fh:
                    fh.write(data)
                n += 1
    print(f"{n} seeds in {out}")


if __name__ == "__main__":
    main()
