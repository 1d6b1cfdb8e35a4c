#!/usr/bin/env python3
"""An independent reference for the haze: a from-scratch Monte Carlo random walk (numpy only)
through a scene of Lambertian triangles, one-sided emitting triangles and a box of uniform
haze, seen by a pinhole camera. It shares no light-transport code with pfx-bake or Mitsuba (it
borrows only the converter's readers for the scene TOML and the glTF geometry), so it can tell
which of the two is wrong where they disagree.

    python3 tests/tools/haze_randomwalk.py SCENE.scene.toml OUT.exr --spp 1024 \
        [--size 64 64] [--seed 1]

What it draws: `plain` materials with metalness 0 and specular 0 (Lambertian, albedo `base`;
anything else is refused), `emission` leaving the face the vertex normals point to, a uniform
`[haze]` (fog alone, no ambient light): σt = `fog`, albedo `gold`, phase
(HG(g) + back·HG(−g))/(1 + back) with g = `phase`; the `[camera]` (perspective, vertical
`fov`, pixel (x, y) covering film [x, x + 1) × [y, y + 1), y down, a one-pixel box filter);
a black background.

The estimator, per camera sample, a random walk: free paths in the haze drawn analytically
(t = −ln(1 − u)/σt, clipped by the nearest surface), the phase function and the cosine
hemisphere sampled exactly, each scattering multiplying the throughput by the albedo. Light
is counted only where the camera ray meets an emitter and by next-event estimation at every
vertex, surface or haze (a uniform point on the emitting triangles by area, a shadow ray
against every triangle, Beer–Lambert transmittance through the box); a sampled direction that
finds an emitter adds nothing, so nothing is counted twice and no MIS is needed. Russian
roulette from the 8th vertex on keeps it unbiased; there is no depth limit.

Writes OUT.exr (linear RGB float32, rows top first), OUT_var.exr (the variance of each pixel's
mean, per channel: what a test needs to take the reference's own noise out of an error) and
OUT.json (samples, seed, each channel's image mean and its standard error), after every batch
of samples, so an interrupted run leaves a usable image of fewer samples.
"""

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import mitsuba_convert as mc  # noqa: E402  (scene and glTF readers only)


class Scene:
    def __init__(self, scene_file: Path):
        root, scene, materials = mc.load_scene(scene_file)
        tris, albedo, emit = [], [], []
        for obj in scene.get("object", []):
            if obj.get("hidden", False):
                continue
            mesh = mc.by_name_or_id(scene["mesh"], obj["mesh"])
            mat = mc.by_name_or_id(materials, obj["material"])
            if mat.get("family", "plain") != "plain" or float(mat.get("metalness", 0)) != 0 \
                    or float(mat.get("specular", 0.5)) != 0:
                raise ValueError(f"material {obj['material']}: only Lambertian plain is drawn")
            xf = mc.object_matrix(obj)
            nm = np.linalg.inv(xf[:3, :3]).T
            for pos, nrm, faces in mc.glb_triangles(root / mesh["file"], mesh.get("node")):
                p = (np.c_[pos, np.ones(len(pos))] @ xf.T)[:, :3]
                t = p[faces]
                if np.linalg.det(xf[:3, :3]) < 0:
                    t = t[:, ::-1]
                ng = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
                if nrm is not None:
                    # The emitting side: the side the vertex normals point to.
                    vn = (nrm @ nm.T)[faces].sum(axis=1)
                    flip = (vn * ng).sum(axis=1) < 0
                    t[flip] = t[flip][:, ::-1]
                tris.append(t)
                albedo.append(np.tile([float(x) for x in mat.get("base", [0.8] * 3)], (len(t), 1)))
                emit.append(np.tile([float(x) for x in mat.get("emission", [0, 0, 0])], (len(t), 1)))
        self.tri = np.concatenate(tris)
        self.albedo = np.concatenate(albedo)
        self.emit = np.concatenate(emit)
        e1 = self.tri[:, 1] - self.tri[:, 0]
        e2 = self.tri[:, 2] - self.tri[:, 0]
        c = np.cross(e1, e2)
        self.area = 0.5 * np.linalg.norm(c, axis=1)
        self.n = c / np.linalg.norm(c, axis=1, keepdims=True)  # front (emitting) side
        self.lights = np.nonzero(self.emit.max(axis=1) > 0)[0]
        la = self.area[self.lights]
        self.light_cdf = np.cumsum(la) / la.sum()
        self.light_area = la.sum()
        haze = scene["haze"]
        for k in ("smoke", "mist", "floor", "amount"):
            if float(haze.get(k, 0.0)) != 0.0:
                raise ValueError(f"[haze] {k}: only a uniform haze (fog alone) is drawn")
        if any(float(a) != 0 for a in haze.get("ambient", [0.03] * 3)):
            raise ValueError("[haze] ambient: write ambient = [0, 0, 0]")
        self.sigma_t = float(haze["fog"])
        self.haze_albedo = np.array([float(x) for x in haze.get("gold", [1, 1, 1])])
        self.g = float(haze.get("phase", 0.3))
        back = float(haze.get("back", 0.5))
        self.back_weight = back / (1.0 + back)
        self.lo = np.array([float(x) for x in haze["lo"]])
        self.hi = np.array([float(x) for x in haze["hi"]])
        cam = scene["camera"]
        self.cam_o = np.array([float(x) for x in cam["at"]])
        fwd = np.array([float(x) for x in cam["look_at"]]) - self.cam_o
        self.fwd = fwd / np.linalg.norm(fwd)
        right = np.cross(self.fwd, np.array([float(x) for x in cam.get("up", [0, 1, 0])]))
        self.right = right / np.linalg.norm(right)
        self.up = np.cross(self.right, self.fwd)
        self.fov = float(cam["fov"])

    def intersect(self, o, d, t_max=None):
        """Nearest triangle hit (t, index) along o + t·d, t in (1e-6, t_max); (inf, -1) where
        none (Möller–Trumbore, both faces)."""
        n = len(o)
        best = np.full(n, np.inf) if t_max is None else t_max.copy()
        idx = np.full(n, -1)
        for k in range(len(self.tri)):
            v0, v1, v2 = self.tri[k]
            e1, e2 = v1 - v0, v2 - v0
            pv = np.cross(d, e2)
            det = pv @ e1
            with np.errstate(divide="ignore", invalid="ignore"):
                inv = 1.0 / det
                tv = o - v0
                u = (tv * pv).sum(axis=1) * inv
                qv = np.cross(tv, e1)
                v = (d * qv).sum(axis=1) * inv
                t = (qv @ e2) * inv
            ok = (np.abs(det) > 1e-12) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t > 1e-6) & (t < best)
            best = np.where(ok, t, best)
            idx = np.where(ok, k, idx)
        return np.where(idx >= 0, best, np.inf), idx

    def box_span(self, o, d):
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = 1.0 / d
            a = (self.lo - o) * inv
            b = (self.hi - o) * inv
        near = np.nan_to_num(np.minimum(a, b), nan=-np.inf)
        far = np.nan_to_num(np.maximum(a, b), nan=np.inf)
        return np.maximum(near.max(axis=1), 0.0), far.min(axis=1)

    def transmittance(self, o, d, dist):
        t0, t1 = self.box_span(o, d)
        return np.exp(-self.sigma_t * np.clip(np.minimum(t1, dist) - t0, 0.0, None))

    def phase(self, cos):
        def hg(c, g):
            q = 1.0 + g * g - 2.0 * g * c
            return (1.0 - g * g) / (4.0 * math.pi * q * np.sqrt(q))
        return (1.0 - self.back_weight) * hg(cos, self.g) + self.back_weight * hg(cos, -self.g)

    def sample_phase(self, d, rng):
        n = len(d)
        g = np.where(rng.random(n) < self.back_weight, -self.g, self.g)
        u = rng.random(n)
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (1.0 - g * g) / (1.0 - g + 2.0 * g * u)
            cos = (1.0 + g * g - s * s) / (2.0 * g)
        cos = np.clip(np.where(np.abs(g) < 1e-3, 1.0 - 2.0 * u, cos), -1.0, 1.0)
        return around(d, cos, rng)

    def sample_light(self, x, rng):
        """(direction, distance, radiance·cos_l·area-pdf⁻¹ / r², valid) for uniform points on
        the emitting triangles."""
        m = len(x)
        k = self.lights[np.minimum(np.searchsorted(self.light_cdf, rng.random(m)), len(self.lights) - 1)]
        u, v = rng.random(m), rng.random(m)
        su = np.sqrt(u)
        b0, b1 = 1.0 - su, su * (1.0 - v)
        t = self.tri[k]
        y = b0[:, None] * t[:, 0] + b1[:, None] * t[:, 1] + (1.0 - b0 - b1)[:, None] * t[:, 2]
        w = y - x
        r2 = (w * w).sum(axis=1)
        r = np.sqrt(r2)
        wi = w / r[:, None]
        cos_l = -(wi * self.n[k]).sum(axis=1)
        weight = np.where(cos_l > 0, cos_l * self.light_area / r2, 0.0)[:, None] * self.emit[k]
        return wi, r, weight

    def visible(self, x, wi, r):
        t, _ = self.intersect(x, wi, r * (1.0 - 1e-4))
        return ~np.isfinite(t)


def around(d, cos, rng):
    """Unit directions at angle acos(cos) from d (n×3), uniform in azimuth."""
    sin = np.sqrt(np.maximum(0.0, 1.0 - cos * cos))
    phi = 2.0 * math.pi * rng.random(len(d))
    sign = np.where(d[:, 2] >= 0.0, 1.0, -1.0)
    a = -1.0 / (sign + d[:, 2])
    b = d[:, 0] * d[:, 1] * a
    t1 = np.stack([1.0 + sign * d[:, 0] ** 2 * a, sign * b, -sign * d[:, 0]], axis=1)
    t2 = np.stack([b, sign + d[:, 1] ** 2 * a, -d[:, 1]], axis=1)
    out = (sin * np.cos(phi))[:, None] * t1 + (sin * np.sin(phi))[:, None] * t2 + cos[:, None] * d
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def radiance(sc: Scene, o, d, rng):
    n = len(o)
    L = np.zeros((n, 3))
    idx = np.arange(n)
    beta = np.ones((n, 3))
    vertex = 0
    while len(idx):
        t_s, tri = sc.intersect(o, d)
        t0, t1 = sc.box_span(o, d)
        t_m = t0 - np.log1p(-rng.random(len(idx))) / sc.sigma_t
        in_medium = (t0 < t1) & (t_m < np.minimum(t1, t_s))
        on_surface = ~in_medium & (tri >= 0)
        if vertex == 0:
            # Emission seen by the camera (through the haze, which it did not scatter in).
            front = on_surface & ((d * sc.n[np.maximum(tri, 0)]).sum(axis=1) < 0)
            L[idx[front]] += sc.emit[tri[front]]
        vertex += 1
        alive = in_medium | on_surface
        x = o + np.where(in_medium, t_m, np.where(on_surface, t_s, 0.0))[:, None] * d
        # Haze vertices.
        mi = np.nonzero(in_medium)[0]
        beta[mi] *= sc.haze_albedo
        wi, r, le = sc.sample_light(x[mi], rng)
        ok = sc.visible(x[mi], wi, r)
        tr = sc.transmittance(x[mi], wi, r)
        f = sc.phase((d[mi] * wi).sum(axis=1))
        L[idx[mi]] += beta[mi] * le * (f * tr * ok)[:, None]
        new_d = d.copy()
        new_d[mi] = sc.sample_phase(d[mi], rng)
        # Surface vertices: Lambertian, on the side the ray came from.
        si = np.nonzero(on_surface)[0]
        ng = sc.n[tri[si]]
        ng = np.where(((d[si] * ng).sum(axis=1) < 0)[:, None], ng, -ng)
        xs = x[si] + 1e-6 * ng
        x[si] = xs
        alb = sc.albedo[tri[si]]
        wi, r, le = sc.sample_light(xs, rng)
        cos_s = (wi * ng).sum(axis=1)
        ok = sc.visible(xs, wi, r) & (cos_s > 0)
        tr = sc.transmittance(xs, wi, r)
        L[idx[si]] += beta[si] * alb / math.pi * le * (np.maximum(cos_s, 0) * tr * ok)[:, None]
        beta[si] *= alb
        new_d[si] = around(ng, np.sqrt(rng.random(len(si))), rng)
        if vertex >= 8:
            q = np.minimum(beta.max(axis=1), 0.95)
            survive = rng.random(len(idx)) < q
            beta = beta / np.where(survive, q, 1.0)[:, None]
            alive &= survive
        alive &= beta.max(axis=1) > 0
        o, d, beta, idx = x[alive], new_d[alive], beta[alive], idx[alive]
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scene", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--spp", type=int, default=1024)
    ap.add_argument("--size", type=int, nargs=2, default=[64, 64])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    w, h = args.size
    rng = np.random.default_rng(args.seed)
    sc = Scene(args.scene)
    half = math.tan(math.radians(sc.fov) / 2.0)
    aspect = w / h
    px = np.arange(w * h)
    pxx, pxy = px % w, px // w
    acc = np.zeros((w * h, 3))
    acc2 = np.zeros((w * h, 3))
    batch = max(1, (1 << 16) // (w * h))
    done, passes = 0, []
    while done < args.spp:
        k = min(batch, args.spp - done)
        fx = np.tile(pxx, k) + rng.random(w * h * k)
        fy = np.tile(pxy, k) + rng.random(w * h * k)
        sx = (2.0 * fx / w - 1.0) * half * aspect
        sy = (1.0 - 2.0 * fy / h) * half
        d = sc.fwd + sx[:, None] * sc.right + sy[:, None] * sc.up
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        o = np.broadcast_to(sc.cam_o, d.shape).copy()
        L = radiance(sc, o, d, rng).reshape(k, w * h, 3)
        acc += L.sum(axis=0)
        acc2 += (L * L).sum(axis=0)
        # Each sample's image mean (independent across samples): the image mean's error.
        passes.append(L.mean(axis=1))
        done += k
        mean = acc / done
        # The variance of each pixel's mean (tests subtract the reference's own noise).
        var = np.maximum(acc2 / done - mean * mean, 0.0) / max(done - 1, 1)
        write(args, mean, var, passes, done)
        print(f"{args.out.name}: {done} spp", file=sys.stderr, flush=True)


def write(args, mean, var, passes, done):
    """The image so far (an interrupted run leaves a usable one) and its record."""
    import OpenEXR

    w, h = args.size
    img = mean.reshape(h, w, 3).astype(np.float32)
    per_sample = np.concatenate(passes)
    se = per_sample.std(axis=0, ddof=1) / math.sqrt(len(per_sample))
    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    channels = {c: img[:, :, i].copy() for i, c in enumerate("RGB")}
    OpenEXR.File(header, channels).write(str(args.out))
    v = var.reshape(h, w, 3).astype(np.float32)
    channels = {c: v[:, :, i].copy() for i, c in enumerate("RGB")}
    OpenEXR.File(header, channels).write(str(args.out.with_name(args.out.stem + "_var.exr")))
    meta = {
        "scene": str(args.scene),
        "spp": done,
        "seed": args.seed,
        "size": [w, h],
        "mean": img.reshape(-1, 3).mean(axis=0).tolist(),
        "mean_standard_error": se.tolist(),
    }
    args.out.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main()
