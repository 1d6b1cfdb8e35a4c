#!/usr/bin/env python3
"""Rendering speed and efficiency of pfx-bake against Mitsuba 3 on the reference projects.

    cargo build --release
    python3 benches/vs_mitsuba.py [--bake target/release/bake] [--refs ../shared/references]
        [--scenes cornell,spheres] [--size 256] [--spp 64] [--cpu 1] [--mitsuba-threads 2]
        [--rounds 1] [--json]

For each scene (`scenes/<name>/<name>.scene.toml`), one after the other, in this order:
1. `bake` with one thread, pinned: `taskset -c CPU bake SCENE --threads 1 --size 256x256
   --spp 64 --max-depth 16 --out TMP --json --quiet`;
2. `bake` with two threads on CPUs 0 and 1 (`taskset -c 0,1`, `--threads 2`), for the speed-up;
3. Mitsuba 3 (`llvm_ad_rgb`, path tracer, max depth 16, RR from 5, independent sampler) through
   `tests/tools/mitsuba_convert.py`'s scene conversion, in a worker process pinned with
   `taskset -c CPU` and given 2 Dr.Jit threads (Dr.Jit's LLVM backend hangs with one).

What is timed ("render seconds"):
- bake: its `--json` report's `render_seconds`, the path tracing of all samples (the render loop).
  Not timed: reading the scene and glTF files, the world and BVH build, writing the plates.
- Mitsuba: `mi.render(...)` of the whole image at the same spp, up to `dr.sync_thread()`, on a
  second call. The first call (seed 0, same spp) is a warm-up that includes the LLVM JIT
  compilation of the kernel; it is reported as `first_seconds`. Not timed: the conversion,
  `mi.load_dict` (scene load, Mitsuba's BVH build). The scored image is the timed render's.
Samples per second = width·height·spp / render seconds. With `--rounds N` the three runs of a
scene are repeated N times, interleaved, and each keeps its fastest round (the machine's load
moves single runs by up to 2x; the images do not change between rounds).

Against the references `REFS/images/<scene>_ref.exr` (Mitsuba 3.9.1 at 16384 spp, see
`REFS/README.md`), over the RGB channels of every pixel (alpha ignored):

    relMSE = mean over pixels p and channels c of (x[p,c] - ref[p,c])^2 / (ref[p,c]^2 + 1e-2)
    efficiency = 1 / (relMSE * render seconds)

The table gives, per scene, each renderer's seconds, samples/s, relMSE, efficiency and mean
ratio x/ref per channel, then the ratios bake(1 thread)/Mitsuba of samples/s and of
efficiency, and bake's 2-thread speed-up over 1 thread. Needs python3 with `mitsuba` (3.9.1)
and `numpy`, libLLVM >= 16 for `llvm_ad_rgb`, `taskset`, the release `bake` and the references;
exits 2 with a message naming what is missing.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Not named mitsuba.py: the script's folder comes first on sys.path and would shadow the package.
REPO = Path(__file__).resolve().parent.parent
CONVERTER = REPO / "tests" / "tools" / "mitsuba_convert.py"


def fail(msg):
    print(f"vs_mitsuba.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def worker(args):
    """Runs in the pinned Mitsuba process: convert, load, warm-up render, timed render."""
    import drjit as dr
    import mitsuba as mi
    import numpy as np

    dr.set_thread_count(args.mitsuba_threads)
    try:
        mi.set_variant(args.variant)
    except Exception as e:
        fail(f"Mitsuba {mi.__version__}: cannot set variant {args.variant} "
             f"(llvm_ad_rgb needs libLLVM >= 16): {e}")
    sys.path.insert(0, str(CONVERTER.parent))
    import mitsuba_convert

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        d = mitsuba_convert.build(mi, Path(args.worker).resolve(), Path(tmp), [args.size] * 2, args.spp, 0)
        scene = mi.load_dict(d)
        load_s = time.perf_counter() - t0
        times = []
        for seed in (0, 1):
            t0 = time.perf_counter()
            img = mi.render(scene, seed=seed, spp=args.spp)
            dr.eval(img)
            dr.sync_thread()
            times.append(time.perf_counter() - t0)
        mi.Bitmap(np.array(img, dtype=np.float32), pixel_format=mi.Bitmap.PixelFormat.RGB).write(args.out_exr)
    info = {"load_seconds": load_s, "first_seconds": times[0], "render_seconds": times[1],
            "threads": dr.thread_count(), "mitsuba": mi.__version__, "variant": args.variant}
    print(json.dumps(info))


def read_rgb(mi, np, path):
    bmp = mi.Bitmap(str(path))
    names = [bmp.struct_()[i].name for i in range(bmp.channel_count())]
    a = np.array(bmp, dtype=np.float64)
    if a.ndim != 3 or not all(c in names for c in "RGB"):
        fail(f"{path}: expected an RGB(A) image, found channels {names}")
    return a[:, :, [names.index(c) for c in "RGB"]]


def score(np, img, ref):
    if img.shape != ref.shape:
        fail(f"image {img.shape} and reference {ref.shape} differ in size")
    rel = float(np.mean((img - ref) ** 2 / (ref**2 + 1e-2)))
    ratio = [float(img[..., c].mean() / ref[..., c].mean()) for c in range(3)]
    return rel, ratio


def bake(args, scene_file, out, threads, cpus):
    cmd = ["taskset", "-c", cpus, str(args.bake), str(scene_file), "--threads", str(threads),
           "--size", f"{args.size}x{args.size}", "--spp", str(args.spp), "--max-depth", "16",
           "--out", str(out), "--json", "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr}{p.stdout}")
    r = json.loads(p.stdout)["report"]
    return {"render_seconds": r["render_seconds"], "seconds": r["seconds"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bake", type=Path, default=REPO / "target" / "release" / "bake")
    ap.add_argument("--refs", type=Path, default=REPO.parent / "shared" / "references")
    ap.add_argument("--scenes", default="cornell,spheres")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--spp", type=int, default=64)
    ap.add_argument("--cpu", default="1", help="the CPU the 1-thread runs are pinned to")
    ap.add_argument("--two-cpus", default="0,1", help="the CPUs of the 2-thread bake")
    ap.add_argument("--mitsuba-threads", type=int, default=2)
    ap.add_argument("--variant", default="llvm_ad_rgb")
    ap.add_argument("--rounds", type=int, default=1, help="repeat each render, keep the fastest")
    ap.add_argument("--json", action="store_true", help="also print one JSON line per scene")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out-exr", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    if args.rounds < 1:
        fail("--rounds must be at least 1")

    try:
        import mitsuba as mi
        import numpy as np
    except ImportError as e:
        fail(f"{e}: this needs Mitsuba 3 and numpy in {sys.executable} (pip install mitsuba numpy)")
    try:
        mi.set_variant("scalar_rgb")  # only for reading EXRs here; the worker checks its variant
    except Exception as e:
        fail(f"Mitsuba {mi.__version__}: cannot set the scalar_rgb variant: {e}")
    if shutil.which("taskset") is None:
        fail("taskset not found (util-linux)")
    if not args.bake.is_file():
        fail(f"{args.bake} not found: build it with `cargo build --release` or pass --bake")
    scenes = [s for s in args.scenes.split(",") if s]
    for s in scenes:
        if not (args.refs / "images" / f"{s}_ref.exr").is_file():
            fail(f"reference {args.refs / 'images' / (s + '_ref.exr')} not found (see --refs)")
        if not (REPO / "scenes" / s / f"{s}.scene.toml").is_file():
            fail(f"scene scenes/{s}/{s}.scene.toml not found")

    n = args.size * args.size * args.spp
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for s in scenes:
            scene_file = REPO / "scenes" / s / f"{s}.scene.toml"
            ref = read_rgb(mi, np, args.refs / "images" / f"{s}_ref.exr")
            best = {}
            for _ in range(args.rounds):
                b1 = bake(args, scene_file, tmp / f"{s}_1t", 1, args.cpu)
                b1["relmse"], b1["mean_ratio"] = score(np, read_rgb(mi, np, tmp / f"{s}_1t" / "beauty.exr"), ref)
                b2 = bake(args, scene_file, tmp / f"{s}_2t", 2, args.two_cpus)
                b2["relmse"], b2["mean_ratio"] = score(np, read_rgb(mi, np, tmp / f"{s}_2t" / "beauty.exr"), ref)
                exr = tmp / f"{s}_mitsuba.exr"
                cmd = ["taskset", "-c", args.cpu, sys.executable, __file__, "--worker", str(scene_file),
                       "--out-exr", str(exr), "--size", str(args.size), "--spp", str(args.spp),
                       "--mitsuba-threads", str(args.mitsuba_threads), "--variant", args.variant]
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
                if p.returncode != 0:
                    fail(f"the Mitsuba render of {s} exited {p.returncode}:\n{p.stderr}")
                m = json.loads(p.stdout.strip().splitlines()[-1])
                m["relmse"], m["mean_ratio"] = score(np, read_rgb(mi, np, exr), ref)
                for k, r in (("b1", b1), ("b2", b2), ("m", m)):
                    runs = best.get(k, {}).get("rounds_seconds", []) + [r["render_seconds"]]
                    if k not in best or r["render_seconds"] < best[k]["render_seconds"]:
                        best[k] = r
                    best[k]["rounds_seconds"] = runs
            b1, b2, m = best["b1"], best["b2"], best["m"]
            for r in (b1, b2, m):
                r["sps"] = n / r["render_seconds"]
                r["efficiency"] = 1.0 / (r["relmse"] * r["render_seconds"])
            rows.append((s, b1, b2, m))

    print(f"{args.size}x{args.size}, {args.spp} spp, max depth 16; 1 thread pinned to CPU {args.cpu}; "
          f"Mitsuba {m['mitsuba']} {args.variant} with {m['threads']} Dr.Jit threads on CPU {args.cpu}; "
          f"fastest of {args.rounds} round(s)")
    print()
    print("| scene | renderer | render s | M samples/s | relMSE | efficiency 1/(relMSE·s) | mean ratio R, G, B |")
    print("|---|---|---:|---:|---:|---:|---|")
    for s, b1, b2, m in rows:
        for name, r in (("bake 1 thread", b1), ("bake 2 threads", b2), ("Mitsuba", m)):
            ratio = ", ".join(f"{x:.4f}" for x in r["mean_ratio"])
            print(f"| {s} | {name} | {r['render_seconds']:.2f} | {r['sps'] / 1e6:.3f} | {r['relmse']:.4f} | "
                  f"{r['efficiency']:.2f} | {ratio} |")
    print()
    print("| scene | Mitsuba first render s (JIT) | samples/s bake/Mitsuba | efficiency bake/Mitsuba | bake 2T/1T |")
    print("|---|---:|---:|---:|---:|")
    for s, b1, b2, m in rows:
        print(f"| {s} | {m['first_seconds']:.2f} | {b1['sps'] / m['sps']:.2f} | "
              f"{b1['efficiency'] / m['efficiency']:.2f} | {b1['render_seconds'] / b2['render_seconds']:.2f} |")
    if args.json:
        for s, b1, b2, m in rows:
            print(json.dumps({"scene": s, "size": args.size, "spp": args.spp, "bake_1t": b1, "bake_2t": b2,
                              "mitsuba": m, "sps_ratio": b1["sps"] / m["sps"],
                              "efficiency_ratio": b1["efficiency"] / m["efficiency"],
                              "bake_speedup_2t": b1["render_seconds"] / b2["render_seconds"]}))


if __name__ == "__main__":
    main()
