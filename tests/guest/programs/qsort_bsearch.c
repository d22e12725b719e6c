// qsort and bsearch from libc with malloc/realloc/free-heavy workloads:
// arrays grown by realloc, sorted by several comparators (all total
// orders, so the result does not depend on which sort glibc picks),
// records with strings, and many bsearch lookups.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

struct record {
  int key;
  double weight;
  char *name;
};

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int cmp_int_desc(const void *a, const void *b) { return cmp_int(b, a); }

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_record(const void *a, const void *b) {
  const struct record *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (c) return c;
  return (x->key > y->key) - (x->key < y->key);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *random_name(void) {
  size_t len = 1 + rng_below(12);
  char *s = malloc(len + 1);
  for (size_t i = 0; i < len; i++) s[i] = (char)('a' + rng_below(6));
  s[len] = 0;
  return s;
}

int main(void) {
  rng_seed(2024);
  size_t cap = 1, n = 0;
  int *v = malloc(cap * sizeof *v);
  for (int i = 0; i < 30000; i++) {
    if (n == cap) {
      cap = cap * 3 / 2 + 1;
      v = realloc(v, cap * sizeof *v);
    }
    v[n++] = (int)(rng_u32() % 100000) - 50000;
  }
  qsort(v, n, sizeof *v, cmp_int);
  uint64_t h = fnv1a(FNV_INIT, v, n * sizeof *v);
  printf("ints n=%zu min %d max %d median %d hash %016" PRIx64 "\n", n, v[0], v[n - 1], v[n / 2], h);
  int found = 0, missing = 0;
  for (int k = -50000; k < 50000; k += 7) {
    int *p = bsearch(&k, v, n, sizeof *v, cmp_int);
    if (p && *p == k) found++;
    else missing++;
  }
  printf("bsearch found %d missing %d\n", found, missing);
  qsort(v, n, sizeof *v, cmp_int_desc);
  printf("desc first %d last %d\n", v[0], v[n - 1]);
  free(v);

  uint64_t *w = malloc(5000 * sizeof *w);
  for (int i = 0; i < 5000; i++) w[i] = rng_next();
  qsort(w, 5000, sizeof *w, cmp_u64);
  int sorted = 1;
  for (int i = 1; i < 5000; i++) sorted &= w[i - 1] <= w[i];
  printf("u64 sorted %d first %016" PRIx64 " last %016" PRIx64 "\n", sorted, w[0], w[4999]);
  free(w);

  size_t nr = 3000;
  struct record *recs = malloc(nr * sizeof *recs);
  for (size_t i = 0; i < nr; i++) {
    recs[i].key = (int)rng_below(1000);
    recs[i].weight = recs[i].key / 7.0;
    recs[i].name = random_name();
  }
  qsort(recs, nr, sizeof *recs, cmp_record);
  for (size_t i = 0; i < nr; i += 500)
    printf("rec %zu %s %d %.6f\n", i, recs[i].name, recs[i].key, recs[i].weight);
  struct record probe = {recs[1234].key, 0, recs[1234].name};
  struct record *hit = bsearch(&probe, recs, nr, sizeof *recs, cmp_record);
  printf("record lookup %s %d\n", hit ? hit->name : "(none)", hit ? hit->key : -1);

  char **names = malloc(nr * sizeof *names);
  for (size_t i = 0; i < nr; i++) names[i] = recs[i].name;
  qsort(names, nr, sizeof *names, cmp_str);
  size_t unique = 1;
  for (size_t i = 1; i < nr; i++) unique += strcmp(names[i - 1], names[i]) != 0;
  printf("names unique %zu first %s last %s\n", unique, names[0], names[nr - 1]);
  for (size_t i = 0; i < nr; i++) free(recs[i].name);
  free(names);
  free(recs);

  // Shrinking reallocs must keep the prefix.
  char *buf = malloc(100000);
  for (int i = 0; i < 100000; i++) buf[i] = (char)(i * 7);
  for (size_t size = 100000; size > 10; size /= 3) {
    buf = realloc(buf, size);
    printf("realloc %zu prefix hash %016" PRIx64 "\n", size, fnv1a(FNV_INIT, buf, size < 1000 ? size : 1000));
  }
  free(buf);
  return 0;
}
