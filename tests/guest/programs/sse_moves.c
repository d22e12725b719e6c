// SSE/SSE2 data movement and permutes, lanes printed in hex: movd/movq
// between XMM, general registers and memory (and the zeroing movq xmm,xmm),
// movss/movsd merges, loads and stores, movhps/movlps/movhpd/movlpd,
// movhlps/movlhps, unaligned 16-byte loads and stores at every offset,
// pinsrw/pextrw at every index, movmskps/movmskpd, unpck*ps/pd, shufps
// and shufpd, pshufd/pshuflw/pshufhw with every immediate, movnti,
// movntdq, maskmovdqu, and fxsave/fxrstor of the XMM registers and MXCSR.
#include <emmintrin.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define HIDE(v) __asm__ volatile("" : "+x"(v))

static void show(const char *name, int k, __m128i v) {
  uint64_t q[2];
  _mm_storeu_si128((__m128i *)q, v);
  printf("%-8s %3d %016" PRIx64 "%016" PRIx64 "\n", name, k, q[1], q[0]);
}
#define SHOWF(name, k, v) show(name, k, _mm_castps_si128(v))
#define SHOWD(name, k, v) show(name, k, _mm_castpd_si128(v))

static __m128i A, B;

static void gpr_moves(void) {
  __m128i a = A;
  HIDE(a);
  uint64_t q = 0x8877665544332211ull, out64;
  uint32_t d = 0xcafef00d, out32;
  __m128i r;
  __asm__("movd %1, %0" : "=x"(r) : "r"(d));
  show("movd r", 0, r);
  __asm__("movq %1, %0" : "=x"(r) : "r"(q));
  show("movq r", 0, r);
  __asm__("movd %1, %0" : "=r"(out32) : "x"(a));
  __asm__("movq %1, %0" : "=r"(out64) : "x"(a));
  printf("to gpr %08" PRIx32 " %016" PRIx64 "\n", out32, out64);
  __asm__("movd %1, %0" : "=x"(r) : "m"(d));
  show("movd m", 0, r);
  __asm__("movq %1, %0" : "=x"(r) : "m"(q));
  show("movq m", 0, r);
  __asm__("movq %1, %0" : "=x"(r) : "x"(a));
  show("movq x", 0, r);
  __asm__("movd %1, %0" : "=m"(out32) : "x"(B));
  __asm__("movq %1, %0" : "=m"(out64) : "x"(B));
  printf("to mem %08" PRIx32 " %016" PRIx64 "\n", out32, out64);
  uint32_t wide;
  __asm__("movd %1, %k0" : "=r"(wide) : "x"(B));
  printf("movd r32 %08" PRIx32 "\n", wide);
}

static void scalar_moves(void) {
  __m128 fa = _mm_castsi128_ps(A), fb = _mm_castsi128_ps(B);
  HIDE(fa);
  HIDE(fb);
  SHOWF("movss xx", 0, _mm_move_ss(fa, fb));
  SHOWD("movsd xx", 0, _mm_move_sd(_mm_castps_pd(fa), _mm_castps_pd(fb)));
  float f = 1.25f;
  double dd = -2.5;
  __m128 r = fa;
  __asm__("movss %1, %0" : "+x"(r) : "m"(f));
  SHOWF("movss m", 0, r);
  __m128d rd = _mm_castps_pd(fa);
  __asm__("movsd %1, %0" : "+x"(rd) : "m"(dd));
  SHOWD("movsd m", 0, rd);
  uint64_t mem[2] = {0x1111111111111111ull, 0x2222222222222222ull};
  __asm__("movss %1, %0" : "=m"(mem[0]) : "x"(fb));
  __asm__("movsd %1, %0" : "=m"(mem[1]) : "x"(fb));
  printf("stores %016" PRIx64 " %016" PRIx64 "\n", mem[0], mem[1]);
  double pair[2] = {3.0, 4.0};
  __m128d h = _mm_castps_pd(fa), l = _mm_castps_pd(fa);
  __asm__("movhpd %1, %0" : "+x"(h) : "m"(pair[1]));
  __asm__("movlpd %1, %0" : "+x"(l) : "m"(pair[0]));
  SHOWD("movhpd", 0, h);
  SHOWD("movlpd", 0, l);
  __m128 hp = fa, lp = fa;
  __asm__("movhps %1, %0" : "+x"(hp) : "m"(mem[0]));
  __asm__("movlps %1, %0" : "+x"(lp) : "m"(mem[1]));
  SHOWF("movhps", 0, hp);
  SHOWF("movlps", 0, lp);
  __asm__("movhps %1, %0" : "=m"(mem[0]) : "x"(fa));
  __asm__("movlps %1, %0" : "=m"(mem[1]) : "x"(fb));
  printf("hl stores %016" PRIx64 " %016" PRIx64 "\n", mem[0], mem[1]);
  SHOWF("movhlps", 0, _mm_movehl_ps(fa, fb));
  SHOWF("movlhps", 0, _mm_movelh_ps(fa, fb));
  SHOWF("unpcklps", 0, _mm_unpacklo_ps(fa, fb));
  SHOWF("unpckhps", 0, _mm_unpackhi_ps(fa, fb));
  SHOWD("unpcklpd", 0, _mm_unpacklo_pd(_mm_castps_pd(fa), _mm_castps_pd(fb)));
  SHOWD("unpckhpd", 0, _mm_unpackhi_pd(_mm_castps_pd(fa), _mm_castps_pd(fb)));
  printf("movmskps %x %x movmskpd %x %x\n", _mm_movemask_ps(fa), _mm_movemask_ps(fb),
         _mm_movemask_pd(_mm_castps_pd(fa)), _mm_movemask_pd(_mm_castps_pd(fb)));
}

static void unaligned(void) {
  static uint8_t buf[64];
  for (int i = 0; i < 64; i++) buf[i] = (uint8_t)(i * 7 + 3);
  for (int off = 0; off < 32; off++) {
    __m128i v = _mm_loadu_si128((const __m128i *)(buf + off));
    HIDE(v);
    show("loadu", off, v);
    __m128i w = _mm_xor_si128(v, A);
    _mm_storeu_si128((__m128i *)(buf + 32 - off / 2), w);
  }
  uint64_t h = 0;
  for (int i = 0; i < 64; i++) h = h * 31 + buf[i];
  printf("storeu hash %016" PRIx64 "\n", h);
  __attribute__((aligned(16))) uint8_t al[32];
  __m128i a = A;
  HIDE(a);
  __asm__("movdqa %1, %0" : "=m"(*(__m128i *)al) : "x"(a));
  __asm__("movaps %1, %0" : "=m"(*(__m128i *)(al + 16)) : "x"(B));
  __m128i x, y;
  __asm__("movapd %1, %0" : "=x"(x) : "m"(*(__m128i *)(al + 16)));
  __asm__("lddqu %1, %0" : "=x"(y) : "m"(*(__m128i *)(al + 3)));
  show("aligned", 0, x);
  show("lddqu", 0, y);
  _mm_stream_si128((__m128i *)al, B);
  int *pi = (int *)(al + 4);
  _mm_stream_si32(pi, 0x5a5a5a5a);
  show("movntdq", 0, _mm_load_si128((const __m128i *)al));
  __m128i mask = _mm_setr_epi8(-1, 0, 0, -128, 127, 1, -1, -1, 0, 0, 0, -2, 0, 0, 0, -1);
  HIDE(mask);
  _mm_maskmoveu_si128(A, mask, (char *)al + 1);
  show("maskmov", 0, _mm_loadu_si128((const __m128i *)al));
  show("maskmov", 1, _mm_loadu_si128((const __m128i *)(al + 16)));
}

static void words(void) {
  __m128i a = A;
  HIDE(a);
  int gp = 0x12345abc;
  __asm__ volatile("" : "+r"(gp));
#define WORD(n)                                                                        \
  show("pinsrw", n, _mm_insert_epi16(a, gp, n));                                       \
  printf("pextrw %d %x %x\n", n, _mm_extract_epi16(a, n), _mm_extract_epi16(B, n));
  WORD(0) WORD(1) WORD(2) WORD(3) WORD(4) WORD(5) WORD(6) WORD(7)
  uint16_t m16 = 0xbeef;
  __m128i r = a;
  __asm__("pinsrw $5, %1, %0" : "+x"(r) : "m"(m16));
  show("pinsrw m", 5, r);
}

#define R4(f, b) f(b) f((b) + 1) f((b) + 2) f((b) + 3)
#define R16(f, b) R4(f, b) R4(f, (b) + 4) R4(f, (b) + 8) R4(f, (b) + 12)
#define R256(f) R16(f, 0) R16(f, 16) R16(f, 32) R16(f, 48) R16(f, 64) R16(f, 80) R16(f, 96) R16(f, 112) \
    R16(f, 128) R16(f, 144) R16(f, 160) R16(f, 176) R16(f, 192) R16(f, 208) R16(f, 224) R16(f, 240)

static void shuffles(void) {
  __m128i a = A, b = B;
  __m128 fa = _mm_castsi128_ps(A), fb = _mm_castsi128_ps(B);
  __m128d da = _mm_castsi128_pd(A), db = _mm_castsi128_pd(B);
  HIDE(a);
  HIDE(b);
  HIDE(fa);
  HIDE(fb);
  HIDE(da);
  HIDE(db);
#define PSHUFD(n) show("pshufd", n, _mm_shuffle_epi32(a, n));
#define PSHUFLW(n) show("pshuflw", n, _mm_shufflelo_epi16(a, n));
#define PSHUFHW(n) show("pshufhw", n, _mm_shufflehi_epi16(b, n));
#define SHUFPS(n) SHOWF("shufps", n, _mm_shuffle_ps(fa, fb, n));
#define SHUFPS1(n) SHOWF("shufps1", n, _mm_shuffle_ps(fb, fb, n));
  R256(PSHUFD)
  R256(PSHUFLW)
  R256(PSHUFHW)
  R256(SHUFPS)
  R256(SHUFPS1)
  SHOWD("shufpd", 0, _mm_shuffle_pd(da, db, 0));
  SHOWD("shufpd", 1, _mm_shuffle_pd(da, db, 1));
  SHOWD("shufpd", 2, _mm_shuffle_pd(da, db, 2));
  SHOWD("shufpd", 3, _mm_shuffle_pd(da, db, 3));
  SHOWD("shufpd", 4, _mm_shuffle_pd(db, db, 1));
  // In place: the destination is also the shuffled source.
  __m128i r = a;
  __asm__("pshufd $0x1b, %0, %0" : "+x"(r));
  show("inplace", 0, r);
  __m128 s = fa;
  __asm__("shufps $0x27, %1, %0" : "+x"(s) : "x"(fb));
  SHOWF("inplace", 1, s);
  __asm__("shufps $0x72, %0, %0" : "+x"(s));
  SHOWF("inplace", 2, s);
}

// fxsave/fxrstor: the XMM registers and MXCSR survive a round trip, and
// the area holds them where the architecture says.
static void fxsave(void) {
  static __attribute__((aligned(16))) uint8_t area[512], area2[512];
  __m128i x = A;
  HIDE(x);
  __asm__ volatile("movdqa %0, %%xmm7\n\tfxsave %1" : : "x"(x), "m"(area) : "xmm7");
  uint32_t mxcsr;
  memcpy(&mxcsr, area + 24, 4);
  uint64_t q[2];
  memcpy(q, area + 160 + 7 * 16, 16);
  printf("fxsave mxcsr %08" PRIx32 " fcw %04x xmm7 %016" PRIx64 "%016" PRIx64 "\n", mxcsr & ~0x3fu,
         area[0] | area[1] << 8, q[1], q[0]);
  memcpy(area2, area, sizeof area);
  memcpy(area2 + 160 + 3 * 16, &B, 16);
  mxcsr = 0x3f80;  // round down
  memcpy(area2 + 24, &mxcsr, 4);
  __m128i back;
  unsigned csr;
  // Results go to memory: the second fxrstor reloads every XMM register.
  __asm__ volatile("fxrstor %2\n\tmovdqu %%xmm3, %0\n\tstmxcsr %1\n\tfxrstor %3"
                   : "=m"(back), "=m"(csr)
                   : "m"(area2), "m"(area)
                   : "xmm3", "xmm7");
  show("fxrstor", 3, back);
  printf("fxrstor csr %08x now %08x\n", csr & ~0x3fu, _mm_getcsr() & ~0x3fu);
}

int main(void) {
  A = _mm_set_epi64x((long long)0xfedcba9876543210ull, (long long)0x8091a2b3c4d5e6f7ull);
  B = _mm_set_epi64x(0x0123456789abcdefll, (long long)0xff00ee11dd22cc33ull);
  gpr_moves();
  scalar_moves();
  unaligned();
  words();
  shuffles();
  fxsave();
  return 0;
}
