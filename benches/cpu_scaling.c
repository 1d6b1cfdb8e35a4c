// What the machine gives two threads on work that shares nothing, no memory traffic, in two
// shapes; docs/performance.md (steps 5 and 9) compares the bake against them:
//   gcc -O2 -fno-tree-vectorize -pthread -o /tmp/cpu_scaling benches/cpu_scaling.c
//   /tmp/cpu_scaling 1 chain && /tmp/cpu_scaling 2 chain && /tmp/cpu_scaling 1 wide && /tmp/cpu_scaling 2 wide
// "chain": one dependent floating-point chain per thread, bound by the latency of a multiply
// and an add, so it leaves most of a core's execution ports idle: two such threads scale even
// on two hardware threads of one core. "wide": eight independent chains per thread, bound by
// the core's floating-point throughput, as a path tracer mostly is: two threads scale to 2x
// only if the two vCPUs are two cores, not two hardware threads sharing one.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
static void *chain(void *a) { volatile double s = 0; double x = 1.0001; for (long i = 0; i < 400000000L; i++) { x = x * 1.0000001 + 1e-9; if (x > 2) x -= 1; } s = x; return NULL; }
static void *wide(void *a) {
  volatile double s = 0;
  double x0 = 1.0, x1 = 1.001, x2 = 1.002, x3 = 1.003, x4 = 1.004, x5 = 1.005, x6 = 1.006, x7 = 1.007;
  for (long i = 0; i < 200000000L; i++) {
#define STEP(x) x = x * 0.9999999 + 1e-7
    STEP(x0); STEP(x1); STEP(x2); STEP(x3); STEP(x4); STEP(x5); STEP(x6); STEP(x7);
  }
  s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
  return NULL;
}
int main(int c, char **v) { int n = atoi(v[1]); void *(*f)(void *) = (c > 2 && !strcmp(v[2], "wide")) ? wide : chain;
 pthread_t t[8]; struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
 for (int i = 0; i < n; i++) pthread_create(&t[i], 0, f, 0); for (int i = 0; i < n; i++) pthread_join(t[i], 0);
 clock_gettime(CLOCK_MONOTONIC, &b); printf("%d threads, %s: %.3f s\n", n, f == wide ? "wide" : "chain", (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec)); }
