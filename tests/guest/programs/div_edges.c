// div and idiv of every width at the edges of their range: dividends wider
// than the quotient (rdx:rax beyond rax's own extension), quotients that
// just fit and just do not (#DE, caught as SIGFPE and printed), and a
// divisor of -1, whose negation overflows only for some dividends (a
// dividend of 2^63 by -1 fits in 64 bits; -2^127 by -1 does not).  The
// native run is the reference.
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static sigjmp_buf on_fpe;

static void fpe_handler(int sig) {
  (void)sig;
  siglongjmp(on_fpe, 1);
}

struct Case {
  uint64_t rdx, rax, divisor;
};

// Each width divides rdx:rax (ah:al for 8 bits, whose dividend is ax) by the
// divisor's low bits and returns the new rdx and rax.
#define DIVIDE(insn, reg_constraint, cast)                                           \
  static void insn##_##reg_constraint(struct Case *c) {                             \
    uint64_t rax = c->rax, rdx = c->rdx;                                            \
    __asm__ volatile(#insn " %2" : "+a"(rax), "+d"(rdx) : reg_constraint((cast)c->divisor)); \
    c->rax = rax;                                                                   \
    c->rdx = rdx;                                                                   \
  }

#define r8 "q"
#define r16 "r"
DIVIDE(divb, r8, uint8_t)
DIVIDE(idivb, r8, uint8_t)
DIVIDE(divw, r16, uint16_t)
DIVIDE(idivw, r16, uint16_t)
DIVIDE(divl, r16, uint32_t)
DIVIDE(idivl, r16, uint32_t)
DIVIDE(divq, r16, uint64_t)
DIVIDE(idivq, r16, uint64_t)

static void run(const char *name, void (*divide)(struct Case *), struct Case c) {
  printf("%-6s %016llx:%016llx / %016llx -> ", name, (unsigned long long)c.rdx,
         (unsigned long long)c.rax, (unsigned long long)c.divisor);
  if (sigsetjmp(on_fpe, 1)) {
    printf("#DE\n");
    return;
  }
  divide(&c);
  printf("rdx %016llx rax %016llx\n", (unsigned long long)c.rdx, (unsigned long long)c.rax);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = fpe_handler;
  sigaction(SIGFPE, &sa, NULL);
  const uint64_t top = 1ull << 63, ones = ~0ull;
  // The high halves sit above the width's own bits too: they must be ignored or kept.
  const struct Case cases[] = {
      {0, 100, 7},
      {0, 0x80, ones},                       // 8: 128 / -1 = -128 fits
      {0, 0xff80, ones},                     // 8: -128 / -1 = 128 does not
      {0, 0x7fff, 0x80},                     // 8: 32767 / -128
      {0, 0x7f00, 2},                        // 8 unsigned: 0x3f80 does not fit
      {0xabcd0000, 0x12340080, ones},        // 16: dx:ax = 0x0000:0x0080
      {0, 0x8000, ones},                     // 16: 32768 / -1 fits
      {0xffff, 0x8000, ones},                // 16: -32768 / -1 does not
      {0, 0x80000000, ones},                 // 32: 2^31 / -1 = -2^31 fits
      {0xffffffff, 0x80000000, ones},        // 32: -2^31 / -1 does not
      {0x3fffffff, 0xffffffff, 0x80000000},  // 32: quotient 0x7fffffff fits
      {0x40000000, 0, 0x80000000},           // 32 signed: 2^31 does not
      {0x12345678, 0x9abcdef0, 0x87654321},  // 32: a wide dividend, as unsigned and signed
      {0, top, ones},                        // 64: 2^63 / -1 = -2^63 fits
      {ones, top, ones},                     // 64: -2^63 / -1 does not
      {top, 0, ones},                        // 64: -2^127 / -1 does not
      {0, top, 2},                           // 64: 2^63 / 2, dividend beyond int64
      {ones, 0, 4},                          // 64: -2^64 / 4 = -2^62 fits
      {ones, 0, 1},                          // 64: -2^64 / 1 does not
      {0x3fffffffffffffffull, ones, top},    // 64 unsigned: fits (2^63 - 1 .. as quotient)
      {0x123456789abcdefull, 0xfedcba9876543210ull, 0x0fedcba987654321ull},
      {5, 0, 5},                             // 64 unsigned: rdx == divisor does not fit
      {4, 7, 5},                             // 64 unsigned: rdx just below the divisor
      {0, 12345, 0},                         // divide by zero
      {ones, ones, 3},                       // -1 / 3 (signed), huge / 3 (unsigned)
  };
  static const struct {
    const char *name;
    void (*divide)(struct Case *);
  } insns[] = {
      {"div8", divb_r8},   {"idiv8", idivb_r8},   {"div16", divw_r16},  {"idiv16", idivw_r16},
      {"div32", divl_r16}, {"idiv32", idivl_r16}, {"div64", divq_r16}, {"idiv64", idivq_r16},
  };
  for (size_t i = 0; i < sizeof insns / sizeof insns[0]; i++)
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) run(insns[i].name, insns[i].divide, cases[k]);
  return 0;
}
