// Large allocations: a 64 MB malloc touched on every page (mmap'd by
// glibc), a 64 MB calloc sampled for zeros, realloc growth of a big block
// (mremap), and freeing everything; prints sums, not addresses.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB (1024u * 1024u)

int main(void) {
  size_t size = 64 * MB;
  unsigned char *p = malloc(size);
  if (!p) {
    printf("malloc failed\n");
    return 1;
  }
  for (size_t i = 0; i < size; i += 4096) p[i] = (unsigned char)(i >> 12);
  p[size - 1] = 0x5a;
  uint64_t sum = 0;
  for (size_t i = 0; i < size; i += 4096) sum += p[i];
  printf("malloc 64MB page sum %llu last %02x\n", (unsigned long long)sum, p[size - 1]);

  unsigned char *z = calloc(size, 1);
  size_t nonzero = 0;
  for (size_t i = 0; i < size; i += 65521) nonzero += z[i] != 0;
  printf("calloc 64MB nonzero samples %zu\n", nonzero);
  free(z);

  unsigned char *q = malloc(4 * MB);
  memset(q, 0xa5, 4 * MB);
  q = realloc(q, 24 * MB);
  size_t kept = 0;
  for (size_t i = 0; i < 4 * MB; i += 4096) kept += q[i] == 0xa5;
  for (size_t i = 4 * MB; i < 24 * MB; i += 4096) q[i] = 0x11;
  q[24 * MB - 1] = 0x11;
  printf("realloc 4MB->24MB kept %zu pages, tail %02x\n", kept, q[24 * MB - 1]);
  q = realloc(q, 1 * MB);
  printf("shrunk, first %02x\n", q[0]);
  free(q);
  free(p);
  // Many medium blocks at once: 200 x 256 KB.
  unsigned char *blocks[200];
  for (int i = 0; i < 200; i++) {
    blocks[i] = malloc(256 * 1024);
    blocks[i][0] = (unsigned char)i;
    blocks[i][256 * 1024 - 1] = (unsigned char)(i * 3);
  }
  unsigned long check = 0;
  for (int i = 0; i < 200; i++) {
    check += blocks[i][0] + blocks[i][256 * 1024 - 1];
    free(blocks[i]);
  }
  printf("200 blocks check %lu\n", check);
  return 0;
}
