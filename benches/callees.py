"""Inclusive instructions of the calls one function makes, from a callgrind profile.

callgrind_annotate merges a function's records by source file, so the calls the path loop
makes from code inlined out of many files are hard to total. This sums the `calls=` records
of every `fn=` whose name contains FUNCTION, per callee, and the function's own cost:

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out target/release/bake \\
        scenes/spheres/spheres.scene.toml --threads 1 --size 64x64 --spp 16 --out /tmp/cg --quiet
    python3 benches/callees.py /tmp/cg.out render_samples_v3
"""
import collections
import re
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: callees.py PROFILE FUNCTION")
    names = {}

    def name(tok):
        m = re.match(r"\((\d+)\)(?: (.*))?", tok)
        if not m:
            return tok
        if m.group(2):
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    target = sys.argv[2]
    cur = cfn = None
    in_call = False
    inclusive = collections.Counter()
    calls = collections.Counter()
    own = 0
    with open(sys.argv[1]) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("fn="):
                cur = name(line[3:])
            elif line.startswith("cfn="):
                cfn = name(line[4:])
            elif line.startswith("calls="):
                in_call = True
                if cur and target in cur:
                    calls[cfn] += int(line[6:].split()[0])
            elif line and (line[0].isdigit() or line[0] in "+-*"):
                parts = line.split()
                if len(parts) >= 2 and cur and target in cur:
                    if in_call:
                        inclusive[cfn] += int(parts[-1])
                    else:
                        own += int(parts[-1])
                in_call = False
            elif line.startswith(("fl=", "fi=", "fe=", "cfi=", "cfl=", "ob=", "cob=")):
                # Names of files and objects: interned like functions, not needed here.
                pass
    print(f"own {own}")
    for k, v in inclusive.most_common(30):
        print(f"{v:12d} {calls[k]:9d}x {k[:150]}")


if __name__ == "__main__":
    main()
