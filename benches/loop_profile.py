#!/usr/bin/env python3
"""Where the instructions of the path loop go, line by line of `li_met`.

The path loop is one inlined function (`render_samples_v3`), so callgrind's per-function
figures lump most of a sample together and its per-line figures lose the inlining chain.
This reads a callgrind profile taken with `--dump-instr=yes`, keeps the instructions of one
function, asks `addr2line -i` for each one's inlining chain, and sums the counts by the line
of `li_met` (or of another frame) that the instruction was inlined from.

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=/tmp/cg.out \\
        target/release/bake scenes/cornell/cornell.scene.toml --threads 1 --size 64x64 \\
        --spp 16 --out /tmp/cg --quiet
    python3 benches/loop_profile.py /tmp/cg.out target/release/bake            # by li_met line
    python3 benches/loop_profile.py /tmp/cg.out target/release/bake --line mod.rs:592
                                                        # what one line's inlined code does

Needs valgrind and binutils (addr2line); no Python package beyond the standard library.
"""

import argparse
import collections
import re
import subprocess


def instruction_costs(profile, function):
    """{address: instructions executed} of the instructions of `function` (self cost)."""
    names, costs = {}, collections.Counter()
    current, addr, line, skip = None, 0, 0, False

    def position(tok, prev):
        if tok == "*":
            return prev
        if tok[0] in "+-":
            return prev + int(tok, 0)
        return int(tok, 0)

    with open(profile) as f:
        for raw in f:
            l = raw.rstrip("\n")
            m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", l)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if m.group(1) == "fn":
                    current = names.get(m.group(2))
                continue
            if l.startswith("calls="):
                skip = True  # the next cost line is the call's inclusive cost
                continue
            if l and (l[0].isdigit() or l[0] in "+-*"):
                toks = l.split()
                addr = position(toks[0], addr)
                if len(toks) > 1:
                    line = position(toks[1], line)
                cost = int(toks[-1]) if len(toks) > 2 else 0
                if skip:
                    skip = False
                    continue
                if current and function in current:
                    costs[addr] += cost
    return costs


def chains(binary, addresses):
    """{address: [(function, file:line), ...]} innermost frame first."""
    out = subprocess.run(
        ["addr2line", "-a", "-f", "-C", "-i", "-e", binary] + [hex(a) for a in addresses],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    result, cur, i = {}, None, 0
    while i < len(out):
        l = out[i]
        if l.startswith("0x"):
            cur = int(l, 16)
            result[cur] = []
            i += 1
        elif not l:
            i += 1
        else:
            loc = out[i + 1] if i + 1 < len(out) else ""
            result[cur].append((l, loc.split("/")[-1].split(" ")[0]))
            i += 2
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("profile")
    ap.add_argument("binary")
    ap.add_argument("--function", default="render_samples_v3")
    ap.add_argument("--frame", default="li_met", help="the inlined frame to sum by")
    ap.add_argument("--line", help="break this frame line down by its inlined callees")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    costs = instruction_costs(a.profile, a.function)
    ch = chains(a.binary, sorted(costs))
    total = sum(costs.values())
    by = collections.Counter()
    for addr, c in costs.items():
        frames = ch.get(addr, [])
        idx = next((j for j, (fn, _) in enumerate(frames) if a.frame in fn), None)
        if idx is None:
            if a.line:
                continue
            key = "(outside %s) %s" % (a.frame, frames[-1][1] if frames else "?")
        else:
            key = frames[idx][1]
            if a.line:
                if key != a.line:
                    continue
                key = " <- ".join(
                    "%s@%s" % (fn.split("<")[0].split("::")[-1], loc) for fn, loc in frames[:idx]
                ) or "(the line itself)"
        by[key] += c
    print("%s: %d instructions" % (a.function, total))
    for k, v in by.most_common(a.top):
        print("%12d %5.1f%%  %s" % (v, 100.0 * v / total, k))


if __name__ == "__main__":
    main()
