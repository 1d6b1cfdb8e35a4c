#!/usr/bin/env python3
"""relMSE and channel means of plates against a reference, as tests/reference.rs scores them:
mean over pixels and channels of (a - r)^2 / (r^2 + 0.01), and mean(a)/mean(r) per channel.

    python3 benches/relmse.py REFERENCE.exr IMAGE.exr [IMAGE.exr ...]

Reads EXRs with Mitsuba 3's Bitmap (pip install mitsuba==3.9.1). Prints one JSON line per image.
"""
import json
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    import mitsuba as mi
    import numpy as np

    mi.set_variant("scalar_rgb")

    def read(path):
        bmp = mi.Bitmap(path)
        names = [bmp.struct_()[i].name for i in range(bmp.channel_count())]
        a = np.array(bmp, dtype=np.float64)
        return a[:, :, [names.index(c) for c in "RGB"]]

    ref = read(sys.argv[1])
    for path in sys.argv[2:]:
        img = read(path)
        if img.shape != ref.shape:
            sys.exit(f"{path}: {img.shape} differs from the reference's {ref.shape}")
        rel = float(np.mean((img - ref) ** 2 / (ref**2 + 1e-2)))
        ratio = [round(float(img[..., c].mean() / ref[..., c].mean()), 5) for c in range(3)]
        print(json.dumps({"image": path, "relmse": rel, "mean_ratio": ratio}))


if __name__ == "__main__":
    main()
