#!/usr/bin/env python3
"""Writes hall.scene.toml: the light tree's many-lights scene (tests/light_tree.rs).

A 24 x 21 m floor under a grid of 16 x 14 small sphere lamps 0.6 m above it, a row of six
pillars and a back wall. Each lamp lights mostly the floor beneath it, so picking lamps by
power spends nearly every sample on a lamp far from the shading point.
"""

out = ["""format = 1
materials = ["golden.materials.toml"]

# Written by make_hall.py (edit it, not this file): 224 sphere lamps over a hall floor,
# a row of pillars and a back wall. The light tree's many-lights scene (tests/light_tree.rs).

[mesh.floor]
file = "kit.glb"
node = "floor"

[mesh.cube]
file = "kit.glb"
node = "cube"

[[object]]
name = "floor"
mesh = "floor"
scale = [4.0, 1.0, 3.5]

[[object]]
name = "back_wall"
mesh = "cube"
at = [0.0, 0.0, -10.6]
scale = [48.0, 8.0, 0.4]
"""]
for i in range(6):
    x = -10.0 + 4.0 * i
    out.append(f"""
[[object]]
name = "pillar{i}"
mesh = "cube"
at = [{x:.1f}, 0.0, -1.0]
scale = [0.8, 6.0, 0.8]
""")
out.append("""
[camera]
at = [0.0, 4.0, 11.0]
look_at = [0.0, 0.0, -3.0]
fov = 60.0
""")
k = 0
for j in range(14):
    for i in range(16):
        x = -11.25 + 1.5 * i
        z = -9.75 + 1.5 * j
        # Three colours and three strengths (W/sr), in a fixed pattern.
        c = [[1.0, 0.85, 0.7], [0.9, 0.95, 1.0], [1.0, 1.0, 1.0]][k % 3]
        inten = [0.1, 0.15, 0.25][(k * 7) % 3]
        out.append(f"""
[[light]]
name = "lamp{k}"
position = [{x:.2f}, 0.6, {z:.2f}]
radius = 0.05
color = [{c[0]}, {c[1]}, {c[2]}]
intensity = {inten}
""")
        k += 1
open("hall.scene.toml", "w").write("".join(out))
