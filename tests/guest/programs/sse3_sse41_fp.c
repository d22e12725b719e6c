// SSE3 and SSE4.1 floating point through intrinsics (built with -msse3
// -msse4.1 -frounding-math): movddup/movsldup/movshdup, addsub, horizontal
// add/sub, dpps/dppd (also in every rounding mode), blends, insertps,
// extractps and lddqu (round* and fisttp: sse41_round.c).  Inputs include
// NaNs with payloads (to see which one wins), infinities, signed zeros,
// denormals and halfway cases; results are printed as bit patterns.  Which
// NaN a horizontal add or a dot product returns when several meet, the
// manuals leave open (they name the lanes of each sum, not which is the
// first operand of the NaN rule; AMD's dpps picks another NaN than Intel's):
// such lanes print as the default NaN, their bits on model lines.
#include <inttypes.h>
#include <pmmintrin.h>
#include <smmintrin.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"
#include "sse_values.h"

// v (four floats or, if wide, two doubles) with every NaN made the
// default NaN, in *out; returns whether there was one.
static int canon(void *out, const void *v, int wide) {
  int nans = 0, size = wide ? 8 : 4;
  memcpy(out, v, 16);
  for (unsigned char *p = out; p < (unsigned char *)out + 16; p += size) {
    uint64_t u = 0;
    memcpy(&u, p, size);
    int nan = wide ? (u & ~(1ull << 63)) > 0x7ff0000000000000ull : (u & 0x7fffffffu) > 0x7f800000u;
    if (nan) memcpy(p, wide ? (const void *)&(uint64_t){0xfff8000000000000ull} : &(uint32_t){0xffc00000u}, size);
    nans |= nan;
  }
  return nans;
}
// A horizontal add or dot product: NaNs as the default NaN, after the
// exact result on a model line if it had any.
#define SHOW_H(show, wide, label, value)                                                           \
  do {                                                                                             \
    __typeof__(value) v_ = (value), c_;                                                            \
    show(label, canon(&c_, &v_, wide) ? (printf(MODEL_PREFIX), show(label, v_), c_) : v_);         \
  } while (0)
#define show_ps_h(label, value) SHOW_H(show_ps, 0, label, value)
#define show_pd_h(label, value) SHOW_H(show_pd, 1, label, value)

__attribute__((noipa)) static __m128 ps(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return _mm_setr_ps(f_of(a), f_of(b), f_of(c), f_of(d));
}
__attribute__((noipa)) static __m128d pd(uint64_t a, uint64_t b) { return _mm_setr_pd(d_of(a), d_of(b)); }

// By inline asm, because GCC takes the intrinsics as commutative and may
// swap the operands, which changes the NaN a product returns.
#define DP(insn, x, y, IMM) ({ __typeof__(x) r_ = (x); __asm__(insn " %2, %1, %0" : "+x"(r_) : "x"(y), "i"(IMM)); r_; })
#define DPPS(IMM) show_ps_h("dpps " #IMM, DP("dpps", a, b, IMM))
#define DPPD(IMM) show_pd_h("dppd " #IMM, DP("dppd", c, d, IMM))

static void dot_products(void) {
  for (unsigned i = 0; i + 8 <= NF; i += 3) {
    __m128 a = ps(kFloats[i], kFloats[i + 1], kFloats[i + 2], kFloats[i + 3]);
    __m128 b = ps(kFloats[i + 4], kFloats[i + 7], kFloats[i + 5], kFloats[i + 6]);
    DPPS(0xff); DPPS(0xf1); DPPS(0x71); DPPS(0x3c); DPPS(0x55); DPPS(0x00); DPPS(0x1f); DPPS(0xe2);
  }
  for (unsigned i = 0; i + 4 <= ND; i += 1) {
    __m128d c = pd(kDoubles[i], kDoubles[i + 1]);
    __m128d d = pd(kDoubles[i + 3], kDoubles[i + 2]);
    DPPD(0x33); DPPD(0x31); DPPD(0x12); DPPD(0x23); DPPD(0x00);
  }
  // NaNs in the same element of both operands: the destination's wins in
  // the products, quiet or signalling.
  {
    __m128 a = ps(0x7fc00001, 0x7f800003, 0xffc00002, 0x3f800000);
    __m128 b = ps(0xffc00005, 0x7fc00006, 0x7f800007, 0xff800008);
    DPPS(0xff); DPPS(0x11); DPPS(0x22); DPPS(0x44); DPPS(0x8f); DPPS(0xe2); DPPS(0x73);
  }
  // Rounding of the intermediate sums in every mode.
  __m128 a = ps(0x3f800001, 0x33800000, 0xbf800000, 0x33000001);
  __m128 b = ps(0x3f800000, 0x3f800000, 0x3f800001, 0x3f800000);
  __m128d c = pd(0x3ff0000000000001, 0x3ca0000000000000);
  __m128d d = pd(0x3ff0000000000001, 0x3ff0000000000001);
  for (unsigned m = 0; m < 4; m++) {
    _MM_SET_ROUNDING_MODE(m << 13);
    DPPS(0xff);
    DPPD(0x33);
  }
  _MM_SET_ROUNDING_MODE(_MM_ROUND_NEAREST);
  uint64_t h = FNV_INIT, hm = FNV_INIT;
  rng_seed(7);
  for (int i = 0; i < 2000; i++) {
    __m128 x = ps(rng_u32() >> 2, rng_u32() | 0x30000000u, rng_u32() >> 1, rng_u32());
    __m128 y = ps(rng_u32() >> 2, rng_u32(), rng_u32() & 0xbfffffffu, rng_u32() >> 3);
    __m128 r = DP("dpps", x, y, 0xff), rc;
    canon(&rc, &r, 0);
    h = fnv1a(h, &rc, 16), hm = fnv1a(hm, &r, 16);
    __m128d xd = pd(rng_next() >> 2, rng_next()), yd = pd(rng_next(), rng_next() >> 3);
    __m128d rd = DP("dppd", xd, yd, 0x33), rdc;
    canon(&rdc, &rd, 1);
    h = fnv1a(h, &rdc, 16), hm = fnv1a(hm, &rd, 16);
  }
  printf("dp random %016" PRIx64 "\n", h);
  model_printf("dp random %016" PRIx64 "\n", hm);
}

#define INSERTPS(IMM) show_ps("insertps " #IMM, _mm_insert_ps(a, b, IMM))
#define BLENDPS(IMM) show_ps("blendps " #IMM, _mm_blend_ps(a, b, IMM))
#define BLENDPD(IMM) show_pd("blendpd " #IMM, _mm_blend_pd(c, d, IMM))

static void blends_and_inserts(void) {
  __m128 a = ps(0x3f800000, 0x40000000, 0x40400000, 0x40800000);
  __m128 b = ps(0xbf800000, 0xc0000000, 0xc0400000, 0x7fc00001);
  __m128d c = pd(0x3ff0000000000000, 0x4000000000000000), d = pd(0x8000000000000000, 0xfff8000000000002);
  BLENDPS(0x0); BLENDPS(0x1); BLENDPS(0x2); BLENDPS(0x6); BLENDPS(0x9); BLENDPS(0xe); BLENDPS(0xf);
  BLENDPD(0); BLENDPD(1); BLENDPD(2); BLENDPD(3);
  __m128 mask = ps(0x80000000, 0x00000000, 0xffffffff, 0x7fffffff);
  show_ps("blendvps", _mm_blendv_ps(a, b, mask));
  show_pd("blendvpd", _mm_blendv_pd(c, d, pd(0x8000000000000000, 1)));
  show_pd("blendvpd 2", _mm_blendv_pd(c, d, pd(1, 0xffffffffffffffff)));
  INSERTPS(0x00); INSERTPS(0x10); INSERTPS(0xe0); INSERTPS(0x30); INSERTPS(0x4f); INSERTPS(0x8a);
  INSERTPS(0xc5); INSERTPS(0x71); INSERTPS(0xff); INSERTPS(0x2c);
  float mem[4] = {9.5f, -7.25f, 3.0f, 1.0f};
  __m128 r = a;
  __asm__("insertps $0xd2, %1, %0" : "+x"(r) : "m"(mem[1]));
  show_ps("insertps m32", r);
  int e;
  __asm__("extractps $3, %1, %0" : "=r"(e) : "x"(b));
  printf("extractps 3      %08x\n", (unsigned)e);
}

static void sse3(void) {
  for (unsigned i = 0; i + 8 <= NF; i += 2) {
    __m128 a = ps(kFloats[i], kFloats[i + 1], kFloats[i + 2], kFloats[i + 3]);
    __m128 b = ps(kFloats[i + 5], kFloats[i + 4], kFloats[i + 7], kFloats[i + 6]);
    show_ps("addsubps", _mm_addsub_ps(a, b));
    show_ps_h("haddps", _mm_hadd_ps(a, b));
    show_ps_h("hsubps", _mm_hsub_ps(a, b));
    show_ps_h("haddps aa", _mm_hadd_ps(a, a));
    show_ps("movsldup", _mm_moveldup_ps(a));
    show_ps("movshdup", _mm_movehdup_ps(b));
  }
  for (unsigned i = 0; i + 4 <= ND; i++) {
    __m128d c = pd(kDoubles[i], kDoubles[i + 1]);
    __m128d d = pd(kDoubles[i + 3], kDoubles[i + 2]);
    show_pd("addsubpd", _mm_addsub_pd(c, d));
    show_pd_h("haddpd", _mm_hadd_pd(c, d));
    show_pd_h("hsubpd", _mm_hsub_pd(c, d));
    show_pd("movddup", _mm_movedup_pd(c));
    show_pd("movddup m", _mm_loaddup_pd((const double *)&kDoubles[i + 1]));
  }
  // inf - inf and the like make the default NaN; with rounding modes.
  __m128 inf = ps(0x7f800000, 0xff800000, 0x7f800000, 0x3f800000);
  for (unsigned m = 0; m < 4; m++) {
    _MM_SET_ROUNDING_MODE(m << 13);
    show_ps_h("haddps inf", _mm_hadd_ps(inf, ps(0x3f800001, 0x33800000, 0xff800000, 0xff800000)));
    show_ps("addsubps r", _mm_addsub_ps(ps(0x3f800001, 0x3f800001, 0x7f800000, 1), ps(0x33800000, 0x33800000, 0x7f800000, 1)));
  }
  _MM_SET_ROUNDING_MODE(_MM_ROUND_NEAREST);
  // Flags only from the elements each operation keeps: MAX + MAX (the add
  // of an even element, not kept) must not raise overflow.
  _mm_setcsr(_mm_getcsr() & ~0x3fu);
  show_ps("addsubps max", _mm_addsub_ps(ps(0x7f7fffff, 0x3f800000, 0x7f7fffff, 0x00800000),
                                        ps(0x7f7fffff, 0x00000000, 0x7f7fffff, 0x00800000)));
  printf("flags=%02x\n", _mm_getcsr() & 0x3d);
  _mm_setcsr(_mm_getcsr() & ~0x3fu);
  show_pd("addsubpd max", _mm_addsub_pd(pd(0x7fefffffffffffff, 0x3ff0000000000001), pd(0x7fefffffffffffff, 0)));
  printf("flags=%02x\n", _mm_getcsr() & 0x3d);
  _mm_setcsr(_mm_getcsr() & ~0x3fu);
  show_pd("addsubpd tiny", _mm_addsub_pd(pd(0x3ff0000000000000, 0x0010000000000001), pd(0, 0x8010000000000000)));
  printf("flags=%02x\n", _mm_getcsr() & 0x3d);
  unsigned char buf[40];
  for (int i = 0; i < 40; i++) buf[i] = (unsigned char)(i * 11 + 3);
  __m128i l = _mm_lddqu_si128((const __m128i *)(buf + 3));
  show_ps("lddqu", _mm_castsi128_ps(l));
}

int main(void) {
  sse3();
  blends_and_inserts();
  dot_products();
  return 0;
}
