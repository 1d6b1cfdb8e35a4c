#!/usr/bin/env python3
"""Mitsuba 3's white furnace for the `surfaces` references: the directional albedo of the
BSDFs tests/tools/mitsuba_convert.py maps our rough metal and rough glass to, at the view
cosines of tests/reference_surfaces.rs's tables (which hold this script's output).

Albedo = the mean sample weight of Mitsuba's own BSDF sampling, 2^21 samples per angle, in
importance transport (energy: no η² radiance factor on refraction). Ours is 1 for the white
metal and the clear glass at every angle (Kulla–Conty compensated); Mitsuba's is lower by the
energy single scattering misses.

    python3 tests/tools/mitsuba_furnace.py   (needs mitsuba and numpy; ~1 minute on 2 cores)
"""

import drjit as dr
import mitsuba as mi
import numpy as np

mi.set_variant("llvm_ad_rgb")
N = 1 << 21
MUS = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.25, 0.2, 0.15, 0.1, 0.05]


def albedo(bsdf, mu, inside=False):
    sampler = mi.load_dict({"type": "independent"})
    sampler.seed(7, N)
    si = dr.zeros(mi.SurfaceInteraction3f, N)
    si.wi = mi.Vector3f(float(np.sqrt(1 - mu * mu)), 0.0, -mu if inside else mu)
    si.sh_frame = mi.Frame3f(mi.Vector3f(0, 0, 1))
    si.n = mi.Vector3f(0, 0, 1)
    ctx = mi.BSDFContext(mi.TransportMode.Importance)
    _, w = bsdf.sample(ctx, si, sampler.next_1d(), sampler.next_2d())
    w = dr.select(dr.isfinite(w[0]) & dr.isfinite(w[1]) & dr.isfinite(w[2]), w, 0)
    return np.array(w).reshape(3, -1).mean(axis=1)


def rgb(v):
    return {"type": "rgb", "value": v}


metal = mi.load_dict(
    {"type": "principled", "base_color": rgb([1, 1, 1]), "metallic": 1.0, "roughness": 0.5}
)
gold = mi.load_dict(
    {"type": "principled", "base_color": rgb([1, 0.78, 0.34]), "metallic": 1.0, "roughness": 0.5}
)
glass = mi.load_dict(
    {"type": "roughdielectric", "distribution": "ggx", "alpha": 0.09, "int_ior": 1.5, "ext_ior": 1.0}
)
smooth = mi.load_dict({"type": "dielectric", "int_ior": 1.5, "ext_ior": 1.0})

print("mu    white_metal  gold(R G B)              glass_out  glass_in  smooth_glass")
for mu in MUS:
    g = albedo(gold, mu)
    print(
        f"{mu:.2f}  {albedo(metal, mu)[1]:.4f}       {g[0]:.4f} {g[1]:.4f} {g[2]:.4f}   "
        f"{albedo(glass, mu)[1]:.4f}     {albedo(glass, mu, True)[1]:.4f}    {albedo(smooth, mu)[1]:.4f}"
    )
