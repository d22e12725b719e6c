// movdqu and movups accept any address; movaps on an address that is not
// a multiple of 16 raises #GP, which Linux delivers as SIGSEGV: the
// program dies by that signal after printing its first lines.
#include <emmintrin.h>
#include <inttypes.h>
#include <stdio.h>

static __attribute__((aligned(16))) float data[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

int main(void) {
  __m128 v;
  __asm__ volatile("movups %1, %0" : "=x"(v) : "m"(data[1]));
  printf("movups %d\n", (int)_mm_cvtss_f32(v));
  __asm__ volatile("movaps %1, %0" : "=x"(v) : "m"(data[4]));
  printf("movaps aligned %d\n", (int)_mm_cvtss_f32(v));
  fflush(stdout);
  float *p = data + 2;
  __asm__ volatile("" : "+r"(p));
  __asm__ volatile("movaps (%1), %0" : "=x"(v) : "r"(p) : "memory");
  printf("not reached %d\n", (int)_mm_cvtss_f32(v));
  return 0;
}
