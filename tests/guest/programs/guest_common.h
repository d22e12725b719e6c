// Helpers shared by the guest programs: a deterministic pseudo-random
// generator and a checksum, so that a program can work on large inputs and
// print a short digest instead of megabytes of output.  Everything here is
// plain C with no dependence on the machine, the time or addresses.
#ifndef GUEST_COMMON_H
#define GUEST_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static inline void rng_seed(uint64_t seed) { rng_state = seed ? seed : 1; }

// xorshift64*: good enough to make varied test data, fully deterministic.
static inline uint64_t rng_next(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t rng_u32(void) { return (uint32_t)(rng_next() >> 32); }

// Uniform-ish value in [0, n).
static inline uint32_t rng_below(uint32_t n) { return (uint32_t)(rng_next() % n); }

#define FNV_INIT 0xcbf29ce484222325ull

static inline uint64_t fnv1a(uint64_t hash, const void *data, size_t len) {
  const unsigned char *p = (const unsigned char *)data;
  for (size_t i = 0; i < len; i++) {
    hash ^= p[i];
    hash *= 0x100000001b3ull;
  }
  return hash;
}

static inline uint64_t fnv1a_u64(uint64_t hash, uint64_t value) {
  return fnv1a(hash, &value, sizeof value);
}

// Whether the CPU says GenuineIntel (phybin's does).  For cases that run
// only on the model's vendor: an AMD CPU would crash on them (far jumps
// through m16:64), so there the program prints the model line without
// running the case; its model lines are not compared there.
static inline int cpu_is_intel(void) {
  unsigned a = 0, b, c, d;
  __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "=c"(c), "=d"(d));
  return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;  // "Genu" "ineI" "ntel"
}

// A vendor-model line: for a value that Intel and AMD compute differently,
// or that the manuals leave open and phybin computes as Intel CPUs do.
// run_guest_test.sh compares these lines with programs/<prog>.model, and
// the native run's only on a GenuineIntel build machine (README.md,
// "Vendor-model lines").  A whole line: the format ends with a newline.
#define MODEL_PREFIX "model: "
#define model_printf(...) printf(MODEL_PREFIX __VA_ARGS__)

// The start of a line that is a model line when `model` is set, for code
// that prints both kinds through one format ("%s...").
static inline const char *model_if(int model) { return model ? MODEL_PREFIX : ""; }

#endif
