// Allocator workout: thousands of malloc/calloc/realloc/free of mixed sizes
// in a random order (small bins, large chunks, mmap-sized blocks), each
// block filled with a pattern that is checked before it is freed.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

#define SLOTS 512

struct slot {
  unsigned char *p;
  size_t size;
  unsigned char fill;
};

static size_t random_size(void) {
  uint32_t r = rng_below(1000);
  if (r < 700) return rng_below(64) + 1;
  if (r < 960) return rng_below(4096) + 1;
  if (r < 997) return rng_below(65536) + 1;
  return 140000 + rng_below(160000);  // above the mmap threshold
}

static int check(const struct slot *s) {
  for (size_t i = 0; i < s->size; i++)
    if (s->p[i] != (unsigned char)(s->fill + i)) return 0;
  return 1;
}

static void fill(struct slot *s, size_t from) {
  for (size_t i = from; i < s->size; i++) s->p[i] = (unsigned char)(s->fill + i);
}

int main(void) {
  static struct slot slots[SLOTS];
  rng_seed(555);
  unsigned long allocs = 0, frees = 0, reallocs = 0, corrupt = 0, nonzero_calloc = 0;
  for (int step = 0; step < 12000; step++) {
    struct slot *s = &slots[rng_below(SLOTS)];
    uint32_t action = rng_below(10);
    if (!s->p) {
      s->size = random_size();
      s->fill = (unsigned char)rng_below(256);
      if (action < 3) {
        s->p = calloc(1, s->size);
        for (size_t i = 0; i < s->size; i++) nonzero_calloc += s->p[i] != 0;
      } else {
        s->p = malloc(s->size);
      }
      fill(s, 0);
      allocs++;
    } else if (action < 4) {
      size_t keep = s->size;
      size_t size = random_size();
      s->p = realloc(s->p, size);
      s->size = size;
      struct slot prefix = {s->p, keep < size ? keep : size, s->fill};
      corrupt += !check(&prefix);
      if (size > keep) fill(s, keep);
      reallocs++;
    } else {
      corrupt += !check(s);
      free(s->p);
      s->p = NULL;
      frees++;
    }
  }
  uint64_t h = FNV_INIT;
  size_t live = 0, bytes = 0;
  for (int i = 0; i < SLOTS; i++) {
    if (!slots[i].p) continue;
    corrupt += !check(&slots[i]);
    h = fnv1a(h, slots[i].p, slots[i].size);
    live++;
    bytes += slots[i].size;
    free(slots[i].p);
  }
  printf("allocs %lu frees %lu reallocs %lu\n", allocs, frees, reallocs);
  printf("live %zu bytes %zu hash %016" PRIx64 "\n", live, bytes, h);
  printf("corrupt %lu nonzero_calloc %lu\n", corrupt, nonzero_calloc);
  // Many tiny blocks, freed in reverse order.
  void **tiny = malloc(20000 * sizeof *tiny);
  for (int i = 0; i < 20000; i++) {
    tiny[i] = malloc((size_t)(i % 40) + 1);
    memset(tiny[i], i & 0xff, (size_t)(i % 40) + 1);
  }
  unsigned long sum = 0;
  for (int i = 19999; i >= 0; i--) {
    sum += ((unsigned char *)tiny[i])[0];
    free(tiny[i]);
  }
  free(tiny);
  printf("tiny sum %lu\n", sum);
  return 0;
}
