// An integer compute kernel (a saxpy and a dot product over int32 arrays)
// for phybin scan's tests, built several ways (tests/guest/CMakeLists.txt):
//   -mavx2:             vectorised with AVX2 everywhere: will not run;
//   KERNEL_CLONES:      GCC target_clones("avx2", "default"): an IFUNC
//                       resolver picks the AVX2 clone only where CPUID has it;
//   KERNEL_CPU_CHECK:   __builtin_cpu_supports("avx2") chooses a function
//                       built with target("avx2").
// Integer arithmetic gives the same result on every path, so the output
// under phybin is compared with the native one.
#include <stdint.h>
#include <stdio.h>

enum { kN = 4096 };
static int32_t x[kN], y[kN];

#if defined(KERNEL_CLONES)
#define KERNEL_ATTR __attribute__((target_clones("avx2", "default"), noinline))
#else
#define KERNEL_ATTR __attribute__((noinline))
#endif

KERNEL_ATTR static int64_t saxpy_dot(int32_t a, int32_t* restrict out, const int32_t* restrict in, int n) {
  int64_t dot = 0;
  for (int i = 0; i < n; ++i) {
    out[i] = a * in[i] + out[i];
    dot += (int64_t)out[i] * in[i];
  }
  return dot;
}

#if defined(KERNEL_CPU_CHECK)
__attribute__((target("avx2"), noinline)) static int64_t saxpy_dot_avx2(int32_t a, int32_t* restrict out,
                                                                          const int32_t* restrict in, int n) {
  int64_t dot = 0;
  for (int i = 0; i < n; ++i) {
    out[i] = a * in[i] + out[i];
    dot += (int64_t)out[i] * in[i];
  }
  return dot;
}
#endif

int main(void) {
  for (int i = 0; i < kN; ++i) {
    x[i] = (i * 7919) % 1000 - 500;
    y[i] = (i * 104729) % 777;
  }
  int64_t total = 0;
  for (int round = 1; round <= 50; ++round) {
#if defined(KERNEL_CPU_CHECK)
    if (__builtin_cpu_supports("avx2"))
      total += saxpy_dot_avx2(round, y, x, kN);
    else
#endif
      total += saxpy_dot(round, y, x, kN);
    for (int i = 0; i < kN; ++i) y[i] %= 100000;
  }
  printf("total %lld y[17] %d y[4095] %d\n", (long long)total, y[17], y[kN - 1]);
  return 0;
}
