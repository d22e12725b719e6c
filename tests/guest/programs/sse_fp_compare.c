// SSE/SSE2 floating-point compares: cmpps/cmppd/cmpss/cmpsd with all eight
// predicates (masks printed in hex, scalar forms keep the upper elements),
// comiss/comisd/ucomiss/ucomisd (ZF, PF, CF, and OF, SF, AF cleared, read
// back with pushf), and the C comparisons GCC builds on them (a < b,
// a != b with NaN operands, isless, isunordered...).
#include <emmintrin.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#define HIDE(v) __asm__ volatile("" : "+x"(v))

static const float fvals[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f};
static const double dvals[] = {0.0, -0.0, 1.0, -1.0, 2.5, INFINITY, -INFINITY, NAN, -NAN, 5e-324};
#define NV (int)(sizeof fvals / sizeof fvals[0])

static void show4(const char *name, int p, int i, int j, __m128 v) {
  uint32_t u[4];
  _mm_storeu_ps((float *)u, v);
  printf("%s%d %d %d %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", name, p, i, j, u[0], u[1], u[2], u[3]);
}

// The predicate is an immediate: one asm per predicate.
#define CMP_ALL(insn, name, a, b, i, j)                                \
  do {                                                                  \
    __m128 r;                                                           \
    r = a; __asm__(insn " $0, %1, %0" : "+x"(r) : "x"(b)); show4(name, 0, i, j, r); \
    r = a; __asm__(insn " $1, %1, %0" : "+x"(r) : "x"(b)); show4(name, 1, i, j, r); \
    r = a; __asm__(insn " $2, %1, %0" : "+x"(r) : "x"(b)); show4(name, 2, i, j, r); \
    r = a; __asm__(insn " $3, %1, %0" : "+x"(r) : "x"(b)); show4(name, 3, i, j, r); \
    r = a; __asm__(insn " $4, %1, %0" : "+x"(r) : "x"(b)); show4(name, 4, i, j, r); \
    r = a; __asm__(insn " $5, %1, %0" : "+x"(r) : "x"(b)); show4(name, 5, i, j, r); \
    r = a; __asm__(insn " $6, %1, %0" : "+x"(r) : "x"(b)); show4(name, 6, i, j, r); \
    r = a; __asm__(insn " $7, %1, %0" : "+x"(r) : "x"(b)); show4(name, 7, i, j, r); \
  } while (0)

static void masks(void) {
  for (int i = 0; i < NV; i++)
    for (int j = 0; j < NV; j++) {
      __m128 a = _mm_setr_ps(fvals[i], fvals[j], fvals[(i + 1) % NV], fvals[(j + 2) % NV]);
      __m128 b = _mm_setr_ps(fvals[j], fvals[i], fvals[(j + 3) % NV], fvals[(i + 4) % NV]);
      __m128d da = _mm_setr_pd(dvals[i], dvals[(j + 1) % NV]), db = _mm_setr_pd(dvals[j], dvals[(i + 2) % NV]);
      __m128 pda = _mm_castpd_ps(da), pdb = _mm_castpd_ps(db);
      HIDE(a);
      HIDE(b);
      HIDE(pda);
      HIDE(pdb);
      CMP_ALL("cmpps", "cmpps", a, b, i, j);
      CMP_ALL("cmpss", "cmpss", a, b, i, j);
      CMP_ALL("cmppd", "cmppd", pda, pdb, i, j);
      CMP_ALL("cmpsd", "cmpsd", pda, pdb, i, j);
    }
}

// The arithmetic flags after a (u)comis, as pushf sees them.
#define FLAGS_OF(insn, a, b, out)                                                          \
  __asm__("xor %%eax, %%eax\n\tdec %%eax\n\t" insn " %2, %1\n\tpushfq\n\tpopq %0"          \
          : "=r"(out) : "x"(a), "x"(b) : "rax", "cc")

static void flags(void) {
  for (int i = 0; i < NV; i++)
    for (int j = 0; j < NV; j++) {
      __m128 a = _mm_set_ss(fvals[i]), b = _mm_set_ss(fvals[j]);
      __m128d da = _mm_set_sd(dvals[i]), db = _mm_set_sd(dvals[j]);
      HIDE(a);
      HIDE(b);
      HIDE(da);
      HIDE(db);
      uint64_t f1, f2, f3, f4;
      FLAGS_OF("comiss", a, b, f1);
      FLAGS_OF("ucomiss", a, b, f2);
      FLAGS_OF("comisd", da, db, f3);
      FLAGS_OF("ucomisd", da, db, f4);
      const uint64_t arith = 0x8d5;
      printf("comis %d %d %03" PRIx64 " %03" PRIx64 " %03" PRIx64 " %03" PRIx64 "\n", i, j, f1 & arith, f2 & arith,
             f3 & arith, f4 & arith);
    }
}

// Back to back on one register pair: a float and a double compare, quiet
// and signalling, are four different compares (1.0 and 2.0 as doubles
// have equal low floats, 0.0f).
static void same_pair(void) {
  __m128d one = _mm_set_sd(1.0), two = _mm_set_sd(2.0);
  HIDE(one);
  HIDE(two);
  uint64_t f[4];
  __asm__("ucomiss %5, %4\n\tpushfq\n\tpopq %0\n\tucomisd %5, %4\n\tpushfq\n\tpopq %1\n\t"
          "ucomisd %4, %5\n\tcomisd %4, %5\n\tpushfq\n\tpopq %2\n\tucomiss %4, %5\n\tucomisd %4, %5\n\t"
          "pushfq\n\tpopq %3"
          : "=&r"(f[0]), "=&r"(f[1]), "=&r"(f[2]), "=&r"(f[3]) : "x"(one), "x"(two) : "cc");
  printf("same pair %03" PRIx64 " %03" PRIx64 " %03" PRIx64 " %03" PRIx64 "\n", f[0] & 0x8d5, f[1] & 0x8d5,
         f[2] & 0x8d5, f[3] & 0x8d5);
}

__attribute__((noipa)) static int c_compares(double a, double b, float fa, float fb) {
  int r = 0, k = 0;
  r |= (a < b) << k++;
  r |= (a <= b) << k++;
  r |= (a > b) << k++;
  r |= (a >= b) << k++;
  r |= (a == b) << k++;
  r |= (a != b) << k++;
  r |= isless(a, b) << k++;
  r |= islessgreater(a, b) << k++;
  r |= isunordered(a, b) << k++;
  r |= (fa < fb) << k++;
  r |= (fa == fb) << k++;
  r |= (fa != fb) << k++;
  r |= (fa >= fb) << k++;
  r |= (!(fa < fb)) << k++;
  return r;
}

static void c_level(void) {
  for (int i = 0; i < NV; i++) {
    for (int j = 0; j < NV; j++) printf(" %04x", c_compares(dvals[i], dvals[j], fvals[i], fvals[j]));
    printf("\n");
  }
}

int main(void) {
  masks();
  flags();
  same_pair();
  c_level();
  return 0;
}
