#!/usr/bin/env python3
"""Writes tests/data/sun/spa.csv: the sun's position by NREL's SPA (pvlib) at (latitude, day,
hour) points spread over both hemispheres, the year and the day, for the tests of
src/lights/sun.rs.

What "day" and "hour" mean, on both sides: `day` is the day of the year of 2026 (a common year;
day 1 = 1 January) and `hour` is local apparent solar time (12 = the sun on the meridian). SPA
wants an instant (UTC) and a place, so the place is taken at longitude 0, where apparent solar
time = UTC + the equation of time; the UTC instant of each point is found by fixed-point
iteration with SPA's own equation of time, and then checked: pvlib's hour angle at that instant
must be 15°·(hour − 12) to within 1e-6° (else this script stops).

Elevation is SPA's geometric (topocentric, unrefracted) elevation; azimuth is from north,
clockwise towards east, degrees.

Run (pvlib from PyPI in a venv, not committed):
    python3 -m venv /tmp/spavenv && /tmp/spavenv/bin/pip install pvlib
    /tmp/spavenv/bin/python tests/tools/make_spa_table.py > tests/data/sun/spa.csv
It also prints to stderr how far the same points move between the years 2024 and 2027 (the
scene format names no year).
"""

import sys

import numpy as np
import pandas as pd
import pvlib
from pvlib import solarposition

YEAR = 2026
DELTA_T = 69.0  # TT − UT in 2026, seconds (IERS); changes SPA's answer by ~1e-4° at most.


def points():
    """(latitude, day, hour) points: a spread grid plus named edge cases."""
    lats = [-80.0, -62.5, -35.0, -12.0, 0.0, 18.0, 45.0, 66.5, 80.0]
    days = [1, 32, 60, 79, 105, 141, 172, 200, 232, 266, 290, 320, 355, 365]
    hours = [0.0, 5.25, 7.5, 9.0, 10.75, 12.0, 13.5, 15.0, 16.25, 18.0, 20.5, 24.0]
    out = []
    # Spread deterministically: every latitude meets several days and hours, and every day
    # and hour occurs at several latitudes.
    for i, lat in enumerate(lats):
        for j in range(6):
            day = days[(3 * i + 5 * j) % len(days)]
            hour = hours[(7 * i + 5 * j) % len(hours)]
            out.append((lat, day, hour))
    # Named cases: the doc example, polar day and polar night at both poles, the equator at
    # the equinoxes, the solstice noons.
    out += [
        (45.0, 172, 12.0),
        (80.0, 172, 0.0),    # midnight sun
        (80.0, 355, 12.0),   # polar night at noon
        (-80.0, 355, 0.0),   # southern midnight sun
        (-80.0, 172, 12.0),  # southern polar night
        (0.0, 79, 12.0),
        (0.0, 266, 6.0),
        (-45.0, 172, 12.0),
        (-45.0, 355, 12.0),
        (23.44, 172, 12.0),  # near the zenith: azimuth is ill-defined, direction is not
    ]
    return out


def spa_at(lat, day, hour, year):
    """SPA at the UTC instant whose apparent solar time at longitude 0 is `hour` of `day`."""
    local = pd.Timestamp(f"{year}-01-01", tz="UTC") + pd.Timedelta(days=day - 1, hours=hour)
    t = pd.DatetimeIndex([local])
    for _ in range(4):
        sp = solarposition.spa_python(t, lat, 0.0, delta_t=DELTA_T)
        eot_min = float(sp["equation_of_time"].iloc[0])
        t = pd.DatetimeIndex([local - pd.Timedelta(minutes=eot_min)])
    sp = solarposition.spa_python(t, lat, 0.0, delta_t=DELTA_T)
    eot_min = float(sp["equation_of_time"].iloc[0])
    ha = float(solarposition.hour_angle(t, 0.0, np.array([eot_min]))[0])
    want = 15.0 * (hour - 12.0)
    diff = (ha - want + 180.0) % 360.0 - 180.0
    if abs(diff) > 1e-6:
        sys.exit(f"hour angle {ha} for hour {hour} (day {day}): the time conversion is wrong")
    return float(sp["elevation"].iloc[0]), float(sp["azimuth"].iloc[0])


def main():
    pts = points()
    print(
        f"# NREL SPA via pvlib {pvlib.__version__} solarposition.spa_python (how=numpy, "
        f"delta_t={DELTA_T} s), year {YEAR} (day 1 = 1 January), longitude 0, altitude 0; "
        "hour = local apparent solar time (UTC = hour - SPA equation of time, hour angle "
        "checked = 15*(hour-12)); elevation geometric (no refraction); azimuth from north, "
        "clockwise to east; made by tests/tools/make_spa_table.py"
    )
    print("latitude,day,hour,elevation_deg,azimuth_deg")
    for lat, day, hour in pts:
        el, az = spa_at(lat, day, hour, YEAR)
        print(f"{lat},{day},{hour},{el:.6f},{az:.6f}")
    # How much the unnamed year matters: elevation spread over a leap cycle.
    worst = 0.0
    for lat, day, hour in pts:
        els = [spa_at(lat, day, hour, y)[0] for y in (2024, 2025, 2026, 2027)]
        worst = max(worst, max(els) - min(els))
    print(f"elevation spread over 2024..2027 at the same (day, hour): {worst:.4f} deg",
          file=sys.stderr)


if __name__ == "__main__":
    main()
