// x86's NaN rules in runs of SSE arithmetic (phybin checks a run's
// arithmetic for invalid operations once, at its end, and runs it again
// one instruction at a time when it finds one; after the first time the
// run is translated with each operation checked).  Each case is a run of
// scalar and packed arithmetic on operands with QNaNs, SNaNs, infinities,
// zeros and negative numbers, so that some operations make x86's default
// NaN (negative) or pass a NaN on (the first operand's when both are), with
// MXCSR's flags read after every run; repeated, so that the runs are also
// taken after they were translated again.  Also: MXCSR.IE raised before a
// run (by comisd on a NaN) stays raised through it, and cleared with
// ldmxcsr it stays clear through a run that raises nothing.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  uint64_t x[4][2];
} Regs;

static uint32_t get_mxcsr(void) {
  uint32_t m;
  __asm__ volatile("stmxcsr %0" : "=m"(m));
  return m;
}

static void set_mxcsr(uint32_t m) { __asm__ volatile("ldmxcsr %0" : : "m"(m)); }

// xmm0..3 in, a run of arithmetic, xmm0..3 out.
static void run_scalar(Regs *r) {
  __asm__ volatile(
      "movdqu 0(%0), %%xmm0\n movdqu 16(%0), %%xmm1\n movdqu 32(%0), %%xmm2\n movdqu 48(%0), %%xmm3\n"
      "subsd %%xmm1, %%xmm0\n"
      "mulsd %%xmm2, %%xmm1\n"
      "addsd %%xmm0, %%xmm2\n"
      "divsd %%xmm3, %%xmm0\n"
      "sqrtsd %%xmm3, %%xmm3\n"
      "addsd %%xmm1, %%xmm3\n"
      "movdqu %%xmm0, 0(%0)\n movdqu %%xmm1, 16(%0)\n movdqu %%xmm2, 32(%0)\n movdqu %%xmm3, 48(%0)\n"
      :
      : "r"(r)
      : "xmm0", "xmm1", "xmm2", "xmm3", "memory");
}

static void run_packed(Regs *r) {
  __asm__ volatile(
      "movdqu 0(%0), %%xmm0\n movdqu 16(%0), %%xmm1\n movdqu 32(%0), %%xmm2\n movdqu 48(%0), %%xmm3\n"
      "mulps %%xmm1, %%xmm0\n"
      "subps %%xmm2, %%xmm1\n"
      "addpd %%xmm3, %%xmm2\n"
      "divps %%xmm0, %%xmm3\n"
      "sqrtps %%xmm1, %%xmm1\n"
      "mulpd %%xmm2, %%xmm0\n"
      "movdqu %%xmm0, 0(%0)\n movdqu %%xmm1, 16(%0)\n movdqu %%xmm2, 32(%0)\n movdqu %%xmm3, 48(%0)\n"
      :
      : "r"(r)
      : "xmm0", "xmm1", "xmm2", "xmm3", "memory");
}

// x86's NaN of sqrtps (ffc00000) read as the top half of a double is
// -2^1021, AArch64's (7fc00000) +2^1021, which overflows when added to
// 1.7e308: MXCSR must show no OE.
static void run_punned(Regs *r) {
  __asm__ volatile(
      "movdqu 0(%0), %%xmm0\n movdqu 16(%0), %%xmm1\n movdqu 32(%0), %%xmm2\n movdqu 48(%0), %%xmm3\n"
      "sqrtps %%xmm1, %%xmm1\n"
      "unpcklpd %%xmm1, %%xmm1\n"
      "addsd %%xmm2, %%xmm1\n"
      "addsd %%xmm1, %%xmm3\n"
      "mulsd %%xmm3, %%xmm0\n"
      "movdqu %%xmm0, 0(%0)\n movdqu %%xmm1, 16(%0)\n movdqu %%xmm2, 32(%0)\n movdqu %%xmm3, 48(%0)\n"
      :
      : "r"(r)
      : "xmm0", "xmm1", "xmm2", "xmm3", "memory");
}

static uint64_t d(double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  return u;
}

static uint64_t f2(float lo, float hi) {
  uint32_t a, b;
  memcpy(&a, &lo, 4);
  memcpy(&b, &hi, 4);
  return (uint64_t)b << 32 | a;
}

static void show(const char *what, const Regs *r, uint32_t mxcsr) {
  printf("  %s:", what);
  for (int i = 0; i < 4; i++) printf(" %016llx:%016llx", (unsigned long long)r->x[i][1], (unsigned long long)r->x[i][0]);
  printf(" mxcsr %04x\n", mxcsr & 0x3d);  // IE ZE OE UE PE (DE is not compared)
}

int main(void) {
  const uint64_t qnan = 0x7ff8000000000123ull, snan = 0x7ff0000000000456ull, nqnan = 0xfff8000000000789ull;
  const double inf = __builtin_inf();
  const uint64_t values[] = {d(1.5), d(-2.0), d(0.0), d(-0.0), d(inf), d(-inf), qnan, snan, nqnan, d(4.0)};
  const unsigned n = sizeof values / sizeof values[0];
  const float finf = __builtin_inff();
  const uint64_t fvalues[] = {f2(1.5f, -2.0f), f2(0.0f, finf), f2(-finf, 4.0f), 0x7fc00001ff800000ull,
                              0x7fa00002bf800000ull, f2(-1.0f, 0.0f)};
  const unsigned fn = sizeof fvalues / sizeof fvalues[0];
  for (int pass = 0; pass < 3; pass++) {
    printf("pass %d\n", pass);
    for (unsigned i = 0; i < n; i++)
      for (unsigned j = 0; j < n; j += 3) {
        Regs r = {{{values[i], 0x1111}, {values[j], 0x2222}, {values[(i + j) % n], 0x3333}, {values[(i * 7 + j) % n], 0x4444}}};
        set_mxcsr(0x1f80);
        run_scalar(&r);
        char what[32];
        snprintf(what, sizeof what, "scalar %u %u", i, j);
        show(what, &r, get_mxcsr());
      }
    for (unsigned i = 0; i < fn; i++)
      for (unsigned j = 0; j < fn; j++) {
        Regs r = {{{fvalues[i], fvalues[j]}, {fvalues[j], fvalues[(i + 1) % fn]}, {values[(i * 3) % n], values[j % n]},
                   {fvalues[(i + j) % fn], fvalues[(i * 5 + j) % fn]}}};
        set_mxcsr(0x1f80);
        run_packed(&r);
        char what[32];
        snprintf(what, sizeof what, "packed %u %u", i, j);
        show(what, &r, get_mxcsr());
      }
  }
  for (int i = 0; i < 3; i++) {
    Regs p = {{{d(1.0), 0}, {d(-4.0), d(-9.0)}, {d(1.7e308), 0}, {d(0.5), 0}}};
    set_mxcsr(0x1f80);
    run_punned(&p);
    show("punned", &p, get_mxcsr());
  }
  // IE from before a run that raises nothing of its own.
  Regs r = {{{d(1.0), 0}, {d(2.0), 0}, {d(3.0), 0}, {d(4.0), 0}}};
  set_mxcsr(0x1f80);
  double nan_value;
  memcpy(&nan_value, &qnan, 8);
  int below = 0;
  __asm__ volatile("comisd %1, %2\n setb %b0" : "+r"(below) : "x"(nan_value), "x"(1.0) : "cc");
  run_scalar(&r);
  show("after comisd on a NaN", &r, get_mxcsr());
  set_mxcsr(0x1f80);
  run_scalar(&r);
  show("after ldmxcsr", &r, get_mxcsr());
  return 0;
}
