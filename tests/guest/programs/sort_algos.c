// Classic sorting algorithms on the same pseudo-random data: insertion,
// shell, merge (top-down, malloc'd buffer), heap, quick (Hoare, median of
// three), LSD radix and counting sort; every result checked against the
// others and summarised.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

#define N 2500

static void insertion(uint32_t *a, int n) {
  for (int i = 1; i < n; i++) {
    uint32_t v = a[i];
    int j = i - 1;
    while (j >= 0 && a[j] > v) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = v;
  }
}

static void shell(uint32_t *a, int n) {
  static const int gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
  for (int g = 0; g < 8; g++) {
    int gap = gaps[g];
    for (int i = gap; i < n; i++) {
      uint32_t v = a[i];
      int j = i;
      for (; j >= gap && a[j - gap] > v; j -= gap) a[j] = a[j - gap];
      a[j] = v;
    }
  }
}

static void merge_rec(uint32_t *a, uint32_t *tmp, int lo, int hi) {
  if (hi - lo < 2) return;
  int mid = lo + (hi - lo) / 2;
  merge_rec(a, tmp, lo, mid);
  merge_rec(a, tmp, mid, hi);
  int i = lo, j = mid, k = lo;
  while (i < mid && j < hi) tmp[k++] = a[i] <= a[j] ? a[i++] : a[j++];
  while (i < mid) tmp[k++] = a[i++];
  while (j < hi) tmp[k++] = a[j++];
  memcpy(a + lo, tmp + lo, (size_t)(hi - lo) * sizeof *a);
}

static void merge_sort(uint32_t *a, int n) {
  uint32_t *tmp = malloc((size_t)n * sizeof *tmp);
  merge_rec(a, tmp, 0, n);
  free(tmp);
}

static void sift(uint32_t *a, int start, int end) {
  int root = start;
  while (2 * root + 1 < end) {
    int child = 2 * root + 1;
    if (child + 1 < end && a[child] < a[child + 1]) child++;
    if (a[root] >= a[child]) return;
    uint32_t t = a[root];
    a[root] = a[child];
    a[child] = t;
    root = child;
  }
}

static void heap_sort(uint32_t *a, int n) {
  for (int s = n / 2 - 1; s >= 0; s--) sift(a, s, n);
  for (int end = n - 1; end > 0; end--) {
    uint32_t t = a[0];
    a[0] = a[end];
    a[end] = t;
    sift(a, 0, end);
  }
}

static void quick(uint32_t *a, int lo, int hi) {
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    uint32_t x = a[lo], y = a[mid], z = a[hi];
    uint32_t pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
    int i = lo - 1, j = hi + 1;
    for (;;) {
      do i++; while (a[i] < pivot);
      do j--; while (a[j] > pivot);
      if (i >= j) break;
      uint32_t t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    if (j - lo < hi - j) {
      quick(a, lo, j);
      lo = j + 1;
    } else {
      quick(a, j + 1, hi);
      hi = j;
    }
  }
}

static void radix(uint32_t *a, int n) {
  uint32_t *tmp = malloc((size_t)n * sizeof *tmp);
  for (int shift = 0; shift < 32; shift += 8) {
    int count[257] = {0};
    for (int i = 0; i < n; i++) count[((a[i] >> shift) & 0xff) + 1]++;
    for (int b = 0; b < 256; b++) count[b + 1] += count[b];
    for (int i = 0; i < n; i++) tmp[count[(a[i] >> shift) & 0xff]++] = a[i];
    memcpy(a, tmp, (size_t)n * sizeof *a);
  }
  free(tmp);
}

static void counting(uint32_t *a, int n) {  // values are < 65536 for this one
  int *count = calloc(65536, sizeof *count);
  for (int i = 0; i < n; i++) count[a[i]]++;
  int k = 0;
  for (uint32_t v = 0; v < 65536; v++)
    while (count[v]--) a[k++] = v;
  free(count);
}

static void quick_sort(uint32_t *a, int n) { quick(a, 0, n - 1); }

int main(void) {
  static uint32_t orig[N], work[N], ref[N];
  static const char *names[] = {"insertion", "shell", "merge", "heap", "quick", "radix", "counting"};
  static void (*const sorts[])(uint32_t *, int) = {insertion, shell, merge_sort, heap_sort, quick_sort, radix, counting};
  for (int dataset = 0; dataset < 4; dataset++) {
    rng_seed((uint64_t)dataset + 10);
    for (int i = 0; i < N; i++) {
      switch (dataset) {
        case 0: orig[i] = rng_u32() & 0xffff; break;
        case 1: orig[i] = (uint32_t)i; break;
        case 2: orig[i] = (uint32_t)(N - i); break;
        default: orig[i] = rng_u32() % 17; break;
      }
    }
    for (int s = 0; s < 7; s++) {
      memcpy(work, orig, sizeof work);
      sorts[s](work, N);
      if (s == 0) memcpy(ref, work, sizeof ref);
      printf("set %d %-9s same %d first %u last %u hash %016" PRIx64 "\n", dataset, names[s],
             memcmp(work, ref, sizeof ref) == 0, work[0], work[N - 1], fnv1a(FNV_INIT, work, sizeof work));
    }
  }
  return 0;
}
