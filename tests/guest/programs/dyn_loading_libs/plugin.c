// Loaded by dyn_loading with dlopen: thread-local data of a dlopen'ed
// library (dynamic TLS), an IFUNC chosen by what CPUID reports, and a call
// back into the program that loaded it.
#include <stdio.h>

static __thread int calls;

static long sum_plain(const int* v, int n) {
  long s = 0;
  for (int i = 0; i < n; ++i) s += v[i];
  return s;
}

// The same sum through another path: which one the resolver takes depends
// on the CPU, the result does not.
static long sum_unrolled(const int* v, int n) {
  long a = 0, b = 0;
  int i = 0;
  for (; i + 1 < n; i += 2) {
    a += v[i];
    b += v[i + 1];
  }
  if (i < n) a += v[i];
  return a + b;
}

static long (*resolve_sum(void))(const int*, int) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2") ? sum_unrolled : sum_plain;
}

long plugin_sum(const int* v, int n) __attribute__((ifunc("resolve_sum")));

int plugin_count(void) { return ++calls; }

const char* plugin_name(void) { return "phybin test plugin"; }
