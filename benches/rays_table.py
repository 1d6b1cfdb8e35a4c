#!/usr/bin/env python3
"""Tables of `cargo bench --bench rays` against the rays harness's Embree 4 (and tinybvh) lines.

    python3 benches/rays_table.py OURS.jsonl HARNESS.jsonl [--threads 1] [--best]

OURS.jsonl: the JSON lines `cargo bench --bench rays` printed (other lines are ignored): per
scene and set a single-ray line (`Accel::closest_hit` / `any_hit`) and a packet line
(`Accel::*_packet`, `"packet": 8`); "ours" is the faster of the two per scene and set (our best
API, as Embree's anchor is its best API), and both are printed.
HARNESS.jsonl: the harness's `results/results.jsonl` (or the lines one `run.sh bench` appended);
a later line for the same engine, API, build, scene, set and thread count overrides an earlier
one, as in the harness's own `table.py`; with `--best` the fastest line is kept instead (for
several rounds concatenated: the best of rounds, for pfx-bake too). Embree's anchor per scene and set is its best API, the
maximum over `rtcIntersect1/4/8/16` (`rtcOccluded*` for shadow rays) of the MEDIUM build of
Embree 4.4 from C; the summary is the geometric mean over the scenes of the ratio to it.
Embree's bytes per triangle are its memory monitor's figure (BVH and primitive data, the shared
vertex and index buffers not counted) over the triangle count; ours exclude the mesh as given.
Standard library only.
"""

import argparse
import json
import math

SETS = ("primary", "secondary", "shadow")


def lines(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                yield json.loads(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ours")
    ap.add_argument("harness")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--best", action="store_true", help="keep the fastest line, not the latest")
    a = ap.parse_args()

    def keep(table, key, r):
        if not a.best or key not in table or r["mrays"] > table[key]["mrays"]:
            table[key] = r

    ours, ours1, oursp = {}, {}, {}
    for r in lines(a.ours):
        if r.get("engine") == "pfx-bake":
            packet = "packet" in r.get("api", "")
            keep(oursp if packet else ours1, (r["scene"], r["set"]), r)
    for k in list(ours1) + list(oursp):
        cands = [t[k] for t in (ours1, oursp) if k in t]
        ours[k] = max(cands, key=lambda r: r["mrays"])
    latest = {}
    for r in lines(a.harness):
        if r.get("threads") == a.threads:
            keep(latest, (r["engine"], r["api"], r.get("build"), r["scene"], r["set"]), r)
    embree, single, tiny, emb_mb, emb_ms = {}, {}, {}, {}, {}
    for (eng, api, build, scene, st), r in latest.items():
        k = (scene, st)
        if eng == "embree4.4 (C)" and build == "medium":
            embree[k] = max(embree.get(k, 0.0), r["mrays"])
            emb_mb[scene], emb_ms[scene] = r.get("accel_mb"), r.get("build_ms")
            if api in ("rtcIntersect1", "rtcOccluded1"):
                single[k] = r["mrays"]
        if eng.startswith("tinybvh") and build == "medium":
            tiny[k] = r["mrays"]
    scenes = list(dict.fromkeys(s for s, _ in ours))
    print("| scene | set | pfx-bake single | pfx-bake packet | pfx-bake best | Embree 4 best API | ratio "
          "| Embree 4 single ray | ratio | tinybvh | ratio | mismatch | build ms (Embree) | bytes/tri (Embree) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    ratios = {st: [] for st in SETS}
    ratios_s = {st: [] for st in SETS}
    ratios_p = {st: [] for st in SETS}
    ratios1 = {st: [] for st in SETS}
    ratiot = {st: [] for st in SETS}
    for s in scenes:
        for st in SETS:
            r = ours.get((s, st))
            if r is None:
                continue
            e, e1, t = embree.get((s, st)), single.get((s, st)), tiny.get((s, st))
            r1, rp = ours1.get((s, st)), oursp.get((s, st))
            cells = [f"{x['mrays']:.3g}" if x else "—" for x in (r1, rp)] + [f"{r['mrays']:.3g}"]
            for x, acc in ((r1, ratios_s), (rp, ratios_p)):
                if x and e:
                    acc[st].append(x["mrays"] / e)
            for ref, acc in ((e, ratios), (e1, ratios1), (t, ratiot)):
                if ref:
                    acc[st].append(r["mrays"] / ref)
                    cells += [f"{ref:.3g}", f"{r['mrays'] / ref:.3f}"]
                else:
                    cells += ["—", "—"]
            mb, ms = emb_mb.get(s), emb_ms.get(s)
            ebpt = f"{mb * 1048576 / r['triangles']:.1f}" if mb else "—"
            ems = f"{ms:.0f}" if ms else "—"
            cells += [str(r["mismatch"]), f"{r['build_ms']:.0f} ({ems})", f"{r['bytes_per_tri']:.1f} ({ebpt})"]
            print(f"| {s} | {st} | " + " | ".join(cells) + " |")
    print()
    print("Geometric mean over the scenes of pfx-bake (best API unless said) ÷ the engine:")
    print()
    print("| against | " + " | ".join(SETS) + " |")
    print("|---|" + "---:|" * len(SETS))

    def gm(xs):
        return f"{math.exp(sum(map(math.log, xs)) / len(xs)):.3f} ({len(xs)})" if xs else "—"

    for name, acc in (("Embree 4 best API", ratios), ("Embree 4 best API, our single-ray API only", ratios_s),
                      ("Embree 4 best API, our packet API only", ratios_p), ("Embree 4 single ray", ratios1), ("tinybvh BVH8_CPU", ratiot)):
        print(f"| {name} | " + " | ".join(gm(acc[st]) for st in SETS) + " |")


if __name__ == "__main__":
    main()
