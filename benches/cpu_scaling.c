// What the machine gives two threads on work that shares nothing: one floating-point chain
// per thread, no memory traffic. docs/performance.md (step 5) compares the bake against it:
//   gcc -O2 -pthread -o /tmp/cpu_scaling benches/cpu_scaling.c && /tmp/cpu_scaling 1 && /tmp/cpu_scaling 2
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <time.h>
static void *work(void *a) { volatile double s = 0; double x = 1.0001; for (long i = 0; i < 400000000L; i++) { x = x * 1.0000001 + 1e-9; if (x > 2) x -= 1; } s = x; return NULL; }
int main(int c, char **v) { int n = atoi(v[1]); pthread_t t[8]; struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
 for (int i = 0; i < n; i++) pthread_create(&t[i], 0, work, 0); for (int i = 0; i < n; i++) pthread_join(t[i], 0);
 clock_gettime(CLOCK_MONOTONIC, &b); printf("%d threads: %.3f s\n", n, (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec)); }
