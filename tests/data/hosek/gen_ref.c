/* Reference values for pfx-bake's Hosek-Wilkie port (src/lights/hosek.rs), from the authors'
   C code, version 1.4a, as distributed in pbrt-v3 (github.com/mmp/pbrt-v3, commit
   13d871faae88233b327d04cda24022b8bb0093ee, src/ext/ArHosekSkyModel*; pbrt's only change to
   the model is that the solar radiance is zero outside the solar disk). The C model is not
   committed here; this generator is, so the values can be made again:

     cp pbrt-v3/src/ext/ArHosekSkyModel* .
     # cie1nm.h: static const double CIE1[471][4] = {{lambda, xbar, ybar, zbar}, ...}, the
     # CIE 1931 2-degree table at 1 nm from 360 to 830 nm (pbrt-v3 src/core/spectrum.cpp).
     gcc -O2 -o gen_ref gen_ref.c ArHosekSkyModel.c -lm && ./gen_ref

   It writes radiance.csv, solar.csv and sun_rgb.csv (docs/sky.md describes them). */
#include "ArHosekSkyModel.h"
#include <stdio.h>
#include <math.h>
#include "cie1nm.h"
double arhosekskymodel_solar_radiance_internal2(ArHosekSkyModelState*, double, double, double);
static const double D2R = M_PI / 180.0;
static void dir(double el, double az, double *v) { /* +Y up; azimuth about Y from +X toward +Z */
  v[0] = cos(el) * cos(az); v[1] = sin(el); v[2] = cos(el) * sin(az); }
static double angle(const double *a, const double *b) {
  double c[3] = {a[1]*b[2]-a[2]*b[1], a[2]*b[0]-a[0]*b[2], a[0]*b[1]-a[1]*b[0]};
  return atan2(sqrt(c[0]*c[0]+c[1]*c[1]+c[2]*c[2]), a[0]*b[0]+a[1]*b[1]+a[2]*b[2]); }
static void xyz2rgb(const double*x,double*r){
 r[0]= 3.2404542*x[0]-1.5371385*x[1]-0.4985314*x[2];
 r[1]=-0.9692660*x[0]+1.8760108*x[1]+0.0415560*x[2];
 r[2]= 0.0556434*x[0]-0.2040259*x[1]+1.0572252*x[2];}
int main(void) {
  double turbs[] = {1, 2, 3, 4.5, 6, 10};
  double albs[] = {0.1, 0.3};
  double elevs[] = {5, 10, 20, 30, 45, 70};
  /* view directions: elevation, azimuth relative to the sun's azimuth (degrees) */
  double views[12][2] = {{89,0},{60,0},{30,0},{12,0},{2,0},{45,45},{20,90},{70,90},
                         {5,135},{30,180},{60,180},{1,270}};
  FILE *f = fopen("radiance.csv", "w");
  fprintf(f, "turbidity,albedo,sun_elevation_deg,view_elevation_deg,view_azimuth_deg,theta,gamma,r,g,b\n");
  for (int t = 0; t < 6; t++) for (int a = 0; a < 2; a++) for (int e = 0; e < 6; e++) {
    ArHosekSkyModelState *s = arhosek_rgb_skymodelstate_alloc_init(turbs[t], albs[a], elevs[e] * D2R);
    double sun[3]; dir(elevs[e] * D2R, 0.0, sun);
    for (int v = 0; v < 12; v++) {
      double d[3]; dir(views[v][0] * D2R, views[v][1] * D2R, d);
      double theta = M_PI / 2 - views[v][0] * D2R, gamma = angle(d, sun);
      fprintf(f, "%g,%g,%g,%g,%g,%.17g,%.17g", turbs[t], albs[a], elevs[e], views[v][0], views[v][1], theta, gamma);
      for (int c = 0; c < 3; c++) fprintf(f, ",%.17g", arhosek_tristim_skymodel_radiance(s, theta, gamma, c));
      fprintf(f, "\n");
    }
    arhosekskymodelstate_free(s);
  }
  fclose(f);

  /* direct solar radiance (the solar function less the in-scattered sky) */
  double selevs[] = {1, 2, 5, 10, 20, 30, 45, 70, 89};
  double wls[] = {320, 360, 400, 455, 550, 613, 680, 720};
  double R = (0.51 * D2R) / 2.0;
  double gfr[] = {0, 0.5, 0.9};
  f = fopen("solar.csv", "w");
  fprintf(f, "turbidity,elevation_deg,wavelength_nm,gamma,radiance\n");
  for (int t = 0; t < 6; t++) for (int e = 0; e < 9; e++) {
    ArHosekSkyModelState *s = arhosekskymodelstate_alloc_init(selevs[e] * D2R, turbs[t], 0.3);
    for (int w = 0; w < 8; w++) for (int g = 0; g < 3; g++) {
      double gamma = gfr[g] * R, el = selevs[e] * D2R;
      double direct = arhosekskymodel_solar_radiance_internal2(s, wls[w], el, gamma);
      /* cross-check the split: full solar function = direct + in-scattered sky */
      double full = arhosekskymodel_solar_radiance(s, M_PI / 2 - el, gamma, wls[w]);
      double sky = arhosekskymodel_radiance(s, M_PI / 2 - el, gamma, wls[w]);
      if (fabs(full - direct - sky) > 1e-9 * full) { fprintf(stderr, "split mismatch\n"); return 1; }
      fprintf(f, "%g,%g,%g,%.17g,%.17g\n", turbs[t], selevs[e], wls[w], gamma, direct);
    }
    arhosekskymodelstate_free(s);
  }
  fclose(f);

  /* sun irradiance on a plane facing the sun, linear sRGB: the direct solar radiance
     integrated over the disk with each point's own elevation (Gauss-Legendre in the
     solar-surface cosine mu, midpoint in the azimuth phi around the centre), then over
     wavelength at 1 nm against the CIE 1931 2-degree functions, then XYZ -> sRGB. */
  static const double gx[8] = {0.0950125098376374, 0.2816035507792589, 0.4580167776572274,
    0.6178762444026438, 0.7554044083550030, 0.8656312023878318, 0.9445750230732326, 0.9894009349916499};
  static const double gw[8] = {0.1894506104550685, 0.1826034150449236, 0.1691565193950025,
    0.1495959888165767, 0.1246289712555339, 0.0951585116824928, 0.0622535239386479, 0.0271524594117541};
  double ielevs[] = {1, 2, 5, 10, 20, 30, 45, 70, 90};
  f = fopen("sun_rgb.csv", "w");
  fprintf(f, "turbidity,elevation_deg,r,g,b\n");
  for (int t = 0; t < 6; t++) for (int e = 0; e < 9; e++) {
    ArHosekSkyModelState *s = arhosekskymodelstate_alloc_init(ielevs[e] * D2R, turbs[t], 0.3);
    double el0 = ielevs[e] * D2R, sinR = sin(R);
    double xyz[3] = {0, 0, 0};
    const int NPHI = 48;
    for (int i = 0; i < 361; i++) {  /* 360..720 nm */
      double lambda = CIE1[i][0];
      double E = 0;
      for (int k = 0; k < 16; k++) {
        double mu = 0.5 + (k < 8 ? -gx[7 - k] : gx[k - 8]) * 0.5;
        double wmu = 0.5 * gw[k < 8 ? 7 - k : k - 8];
        double sing = sinR * sqrt(1 - mu * mu), gamma = asin(sing);
        for (int p = 0; p < NPHI; p++) {
          double phi = (p + 0.5) * 2 * M_PI / NPHI;
          /* point at angle gamma from the centre, toward azimuth phi in the sun's frame:
             its elevation */
          double sel = asin(sin(el0) * cos(gamma) + cos(el0) * sin(gamma) * cos(phi));
          if (sel > M_PI / 2) sel = M_PI / 2;
          double L = arhosekskymodel_solar_radiance_internal2(s, lambda, sel, gamma);
          E += L * mu * wmu * (2 * M_PI / NPHI);
        }
      }
      E *= sinR * sinR;
      double wt = (i == 0 || i == 360) ? 0.5 : 1.0;  /* trapezoid, 1 nm */
      for (int c = 0; c < 3; c++) xyz[c] += wt * E * CIE1[i][c + 1];
    }
    double rgb[3]; xyz2rgb(xyz, rgb);
    fprintf(f, "%g,%g,%.17g,%.17g,%.17g\n", turbs[t], ielevs[e], rgb[0], rgb[1], rgb[2]);
    arhosekskymodelstate_free(s);
  }
  fclose(f);
  return 0;
}
