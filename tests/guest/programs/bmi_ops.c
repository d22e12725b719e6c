// LZCNT/TZCNT/POPCNT and the BMI1/BMI2 instructions on edge values and
// random operands, with the flags each defines (inline assembly, so both
// register and memory source forms run), plus the compiler's own use of
// them through the builtins.  Built with -mbmi -mbmi2 -mlzcnt -mpopcnt.
// Flags the SDM and the APM leave undefined are masked out (AMD sets PF
// where Intel clears it): only the defined ones are printed and digested.
#include <inttypes.h>
#include <stdio.h>
#include <x86intrin.h>

#include "guest_common.h"

#define FLAG_BITS 0x8d5u  // CF PF AF ZF SF OF
// The flags each instruction defines, by both manuals: LZCNT/TZCNT only CF
// and ZF; ANDN, BLSI, BLSMSK, BLSR and BZHI all but AF and PF; BEXTR CF, ZF
// and OF (SF is undefined too); POPCNT all (ZF, the others cleared); the
// BMI2 rest writes none, so all six must come out as they went in.
#define DEF_CNT 0x041u
#define DEF_BMI1 0x8c1u
#define DEF_BEXTR 0x841u
#define DEF_ALL FLAG_BITS

static uint64_t digest = FNV_INIT;
static int verbose, flags_set_before;

static void report(const char *name, uint64_t a, uint64_t b, uint64_t r, uint64_t flags, uint64_t defined) {
  flags &= defined;
  digest = fnv1a_u64(fnv1a_u64(digest, r), flags);
  // Edge values are printed once (with the flags clear before), the rest
  // only goes into the digest.
  if (verbose && !flags_set_before)
    printf("%-8s %016" PRIx64 " %016" PRIx64 " -> %016" PRIx64 " fl %03" PRIx64 "\n", name, a, b, r, flags);
}

// dst = op(src) and dst = op(src1, src2), 64/32/16-bit, flags in and out:
// every op runs once with all flags set before and once with all clear.
#define UNARY(name, insn, type, defined)                                                             \
  static void name(uint64_t a, uint64_t flags_in) {                                                  \
    type r = (type)0x5a5a5a5a5a5a5a5aull, src = (type)a;                                             \
    uint64_t fl;                                                                                     \
    __asm__ volatile("pushq %3; popfq; " insn " %2, %0; pushfq; popq %1"                             \
                     : "+&r"(r), "=&r"(fl) : "rm"(src), "r"(flags_in) : "cc");                       \
    report(#name, a, flags_in, (uint64_t)r, fl, defined);                                            \
  }
#define BINARY(name, insn, type, defined)                                                            \
  static void name(uint64_t a, uint64_t b, uint64_t flags_in) {                                      \
    type r = (type)0x5a5a5a5a5a5a5a5aull, x = (type)a, y = (type)b;                                  \
    uint64_t fl;                                                                                     \
    __asm__ volatile("pushq %4; popfq; " insn "; pushfq; popq %1"                                    \
                     : "+&r"(r), "=&r"(fl) : "r"(x), "rm"(y), "r"(flags_in) : "cc");                 \
    report(#name, a, b, (uint64_t)r, fl, defined);                                                   \
  }

UNARY(lzcnt64, "lzcnt", uint64_t, DEF_CNT)
UNARY(lzcnt32, "lzcnt", uint32_t, DEF_CNT)
UNARY(lzcnt16, "lzcnt", uint16_t, DEF_CNT)
UNARY(tzcnt64, "tzcnt", uint64_t, DEF_CNT)
UNARY(tzcnt32, "tzcnt", uint32_t, DEF_CNT)
UNARY(tzcnt16, "tzcnt", uint16_t, DEF_CNT)
UNARY(popcnt64, "popcnt", uint64_t, DEF_ALL)
UNARY(popcnt32, "popcnt", uint32_t, DEF_ALL)
UNARY(popcnt16, "popcnt", uint16_t, DEF_ALL)
UNARY(blsi64, "blsi", uint64_t, DEF_BMI1)
UNARY(blsi32, "blsi", uint32_t, DEF_BMI1)
UNARY(blsmsk64, "blsmsk", uint64_t, DEF_BMI1)
UNARY(blsmsk32, "blsmsk", uint32_t, DEF_BMI1)
UNARY(blsr64, "blsr", uint64_t, DEF_BMI1)
UNARY(blsr32, "blsr", uint32_t, DEF_BMI1)

// AT&T order: "andn src2, src1, dst" computes ~src1 & src2.
BINARY(andn64, "andn %3, %2, %0", uint64_t, DEF_BMI1)
BINARY(andn32, "andn %3, %2, %0", uint32_t, DEF_BMI1)
BINARY(bextr64, "bextr %2, %3, %0", uint64_t, DEF_BEXTR)
BINARY(bextr32, "bextr %2, %3, %0", uint32_t, DEF_BEXTR)
BINARY(bzhi64, "bzhi %2, %3, %0", uint64_t, DEF_BMI1)
BINARY(bzhi32, "bzhi %2, %3, %0", uint32_t, DEF_BMI1)
BINARY(pdep64, "pdep %3, %2, %0", uint64_t, DEF_ALL)
BINARY(pdep32, "pdep %3, %2, %0", uint32_t, DEF_ALL)
BINARY(pext64, "pext %3, %2, %0", uint64_t, DEF_ALL)
BINARY(pext32, "pext %3, %2, %0", uint32_t, DEF_ALL)
BINARY(sarx64, "sarx %2, %3, %0", uint64_t, DEF_ALL)
BINARY(sarx32, "sarx %2, %3, %0", uint32_t, DEF_ALL)
BINARY(shlx64, "shlx %2, %3, %0", uint64_t, DEF_ALL)
BINARY(shlx32, "shlx %2, %3, %0", uint32_t, DEF_ALL)
BINARY(shrx64, "shrx %2, %3, %0", uint64_t, DEF_ALL)
BINARY(shrx32, "shrx %2, %3, %0", uint32_t, DEF_ALL)

static void rorx_all(uint64_t a) {
  uint64_t r64;
  uint32_t r32;
  __asm__("rorx $0, %1, %0" : "=r"(r64) : "rm"(a));
  report("rorx0", a, 0, r64, 0, DEF_ALL);
  __asm__("rorx $13, %1, %0" : "=r"(r64) : "rm"(a));
  report("rorx13", a, 0, r64, 0, DEF_ALL);
  __asm__("rorx $63, %1, %0" : "=r"(r64) : "rm"(a));
  report("rorx63", a, 0, r64, 0, DEF_ALL);
  __asm__("rorx $77, %1, %0" : "=r"(r64) : "rm"(a));  // count masked to 6 bits
  report("rorx77", a, 0, r64, 0, DEF_ALL);
  __asm__("rorx $7, %1, %0" : "=r"(r32) : "rm"((uint32_t)a));
  report("rorx32_7", a, 0, r32, 0, DEF_ALL);
  __asm__("rorx $31, %1, %0" : "=r"(r32) : "rm"((uint32_t)a));
  report("rorx32_31", a, 0, r32, 0, DEF_ALL);
}

// mulx: RDX times the source; also the same register for both halves.
static void mulx_all(uint64_t a, uint64_t b) {
  uint64_t hi, lo, same;
  __asm__("mulx %3, %1, %0" : "=&r"(hi), "=&r"(lo) : "d"(a), "rm"(b));
  report("mulx64", a, b, hi, lo, ~0ull);  // the low half in the flags' place, whole
  uint32_t hi32, lo32;
  __asm__("mulx %3, %1, %0" : "=&r"(hi32), "=&r"(lo32) : "d"((uint32_t)a), "rm"((uint32_t)b));
  report("mulx32", a, b, hi32, lo32, ~0ull);
  __asm__("mulx %2, %0, %0" : "=&r"(same) : "d"(a), "r"(b));
  report("mulxsame", a, b, same, 0, DEF_ALL);
}

static void run_all(uint64_t a, uint64_t b) {
  uint64_t flag_inputs[2] = {0x202, 0x202 | FLAG_BITS};
  for (int i = 0; i < 2; i++) {
    uint64_t f = flag_inputs[i];
    flags_set_before = i;
    lzcnt64(a, f), lzcnt32(a, f), lzcnt16(a, f), tzcnt64(a, f), tzcnt32(a, f), tzcnt16(a, f);
    popcnt64(a, f), popcnt32(a, f), popcnt16(a, f);
    blsi64(a, f), blsi32(a, f), blsmsk64(a, f), blsmsk32(a, f), blsr64(a, f), blsr32(a, f);
    andn64(a, b, f), andn32(a, b, f), bextr64(a, b, f), bextr32(a, b, f), bzhi64(a, b, f), bzhi32(a, b, f);
    pdep64(a, b, f), pdep32(a, b, f), pext64(a, b, f), pext32(a, b, f);
    sarx64(a, b, f), sarx32(a, b, f), shlx64(a, b, f), shlx32(a, b, f), shrx64(a, b, f), shrx32(a, b, f);
  }
  flags_set_before = 0;
  rorx_all(a);
  mulx_all(a, b);
}

// What GCC makes of the builtins with these extensions enabled.
static void builtins(uint64_t a, uint64_t b) {
  uint32_t a32 = (uint32_t)a, b32 = (uint32_t)b;
  uint64_t vals[] = {(uint64_t)_lzcnt_u64(a), _lzcnt_u32(a32), (uint64_t)_tzcnt_u64(a), _tzcnt_u32(a32),
                     (uint64_t)__builtin_popcountll(a), _andn_u64(a, b), _bextr_u64(a, b & 63, (b >> 8) & 63),
                     _blsi_u64(a), _blsmsk_u64(a), _blsr_u64(a), _bzhi_u64(a, b & 0xff), _pdep_u64(a, b),
                     _pext_u64(a, b), _pdep_u32(a32, b32), _pext_u32(a32, b32), a >> (b & 63), a << (b & 63),
                     (uint64_t)((int64_t)a >> (b & 63)), (a >> 17) | (a << 47)};
  unsigned long long hi;
  uint64_t lo = _mulx_u64(a, b, &hi);
  digest = fnv1a(digest, vals, sizeof vals);
  digest = fnv1a_u64(fnv1a_u64(digest, lo), hi);
}

int main(void) {
  static const uint64_t edges[] = {0,
                                   1,
                                   2,
                                   0x80,
                                   0xff,
                                   0x100,
                                   0x8000,
                                   0xffff,
                                   0x10000,
                                   0x7fffffff,
                                   0x80000000,
                                   0xffffffff,
                                   0x100000000ull,
                                   0x0000ff00000000ffull,
                                   0x7fffffffffffffffull,
                                   0x8000000000000000ull,
                                   0xffffffffffffffffull,
                                   0x123456789abcdef0ull,
                                   0x0000000000001f08ull,  // bextr: start 8, length 31
                                   0x0000000000004020ull,  // bextr: start 32, length 64
                                   0x000000000000ff3full,
                                   0x0000000000000040ull,
                                   0x00000000000000c1ull};
  const int n = sizeof edges / sizeof edges[0];
  verbose = 1;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j += 4) run_all(edges[i], edges[j]);
  printf("edges digest %016" PRIx64 "\n", digest);
  verbose = 0;
  rng_seed(42);
  for (int i = 0; i < 3000; i++) {
    uint64_t a = rng_next(), b = rng_next();
    // Small counts and sparse masks are where the interesting cases are.
    if (i % 3 == 1) b &= 0xffff;
    if (i % 5 == 2) a &= rng_next() & rng_next();
    run_all(a, b);
    builtins(a, b);
  }
  printf("random digest %016" PRIx64 "\n", digest);
  return 0;
}
