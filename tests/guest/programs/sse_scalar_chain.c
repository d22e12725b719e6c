// Chains of scalar SSE operations on one register (mulsd xmm1, xmm3;
// addsd xmm1, xmm0; ...): each keeps the elements above its own from its
// operand a, so the chain's result carries those of its first operand a.
// phybin merges them in once, at the chain's end; these check what the
// register holds after chains whose upper elements are not zero, with the
// first operand's register overwritten, an intermediate result read whole,
// NaN operands, element sizes mixed, and a fault in the middle (the
// handler prints the registers).  The native run is the reference.
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

typedef struct {
  uint64_t q[2];
} Xmm;

static void print(const char *name, const Xmm *x, int n) {
  printf("%-14s", name);
  for (int i = 0; i < n; i++) printf(" %016llx:%016llx", (unsigned long long)x[i].q[1], (unsigned long long)x[i].q[0]);
  printf("\n");
}

static Xmm vec(double lo, double hi) {
  Xmm x;
  memcpy(&x.q[0], &lo, 8);
  memcpy(&x.q[1], &hi, 8);
  return x;
}

static Xmm vecf(float a, float b, float c, float d) {
  float f[4] = {a, b, c, d};
  Xmm x;
  memcpy(&x, f, 16);
  return x;
}

// in[0..3] -> xmm0, xmm2, xmm3, xmm4; out[0] xmm1, out[1] xmm3, out[2] the extra result.
#define CHAIN(name, body)                                                                    \
  static void name(const Xmm *in, Xmm *out) {                                                \
    __asm__ volatile("movupd (%0), %%xmm0\n movupd 16(%0), %%xmm2\n movupd 32(%0), %%xmm3\n" \
                     "movupd 48(%0), %%xmm4\n" body                                          \
                     "movupd %%xmm1, (%1)\n movupd %%xmm3, 16(%1)\n movupd %%xmm5, 32(%1)\n" \
                     :                                                                       \
                     : "r"(in), "r"(out)                                                     \
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "memory");            \
  }

// nbody's: the chain's first operand a is a copy of a packed result.
CHAIN(chain_sd, "movapd %%xmm3, %%xmm1\n mulsd %%xmm3, %%xmm1\n addsd %%xmm0, %%xmm1\n addsd %%xmm2, %%xmm1\n"
                "addsd %%xmm4, %%xmm1\n pxor %%xmm5, %%xmm5\n")
// The register the chain started from is overwritten in the middle.
CHAIN(chain_overwritten, "movapd %%xmm3, %%xmm1\n mulsd %%xmm0, %%xmm1\n movapd %%xmm4, %%xmm3\n"
                         "subsd %%xmm2, %%xmm1\n divsd %%xmm3, %%xmm1\n pxor %%xmm5, %%xmm5\n")
// An intermediate result is also read whole (copied out).
CHAIN(chain_read_whole, "movapd %%xmm2, %%xmm1\n addsd %%xmm0, %%xmm1\n movapd %%xmm1, %%xmm5\n"
                        "mulsd %%xmm4, %%xmm1\n sqrtsd %%xmm1, %%xmm1\n")
// Single precision, and a sqrt link.
CHAIN(chain_ss, "movaps %%xmm3, %%xmm1\n mulss %%xmm0, %%xmm1\n sqrtss %%xmm1, %%xmm1\n addss %%xmm2, %%xmm1\n"
                "subss %%xmm4, %%xmm1\n pxor %%xmm5, %%xmm5\n")
// Element sizes mixed: no chain through a double after a float.
CHAIN(chain_mixed, "movaps %%xmm3, %%xmm1\n mulss %%xmm0, %%xmm1\n addsd %%xmm2, %%xmm1\n mulss %%xmm4, %%xmm1\n"
                   "pxor %%xmm5, %%xmm5\n")
// The chain continues in another register (xmm5 from xmm1's result).
CHAIN(chain_moved, "movapd %%xmm3, %%xmm1\n addsd %%xmm0, %%xmm1\n movapd %%xmm1, %%xmm5\n addsd %%xmm2, %%xmm1\n"
                   "mulsd %%xmm4, %%xmm5\n addsd %%xmm0, %%xmm5\n")

static sigjmp_buf on_segv;
static Xmm seen[3];

static void segv_handler(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)si;
  ucontext_t *uc = ctx;
  memcpy(&seen[0], &uc->uc_mcontext.fpregs->_xmm[1], 16);
  memcpy(&seen[1], &uc->uc_mcontext.fpregs->_xmm[3], 16);
  memcpy(&seen[2], &uc->uc_mcontext.fpregs->_xmm[5], 16);
  siglongjmp(on_segv, 1);
}

// A load from an unmapped page in the middle of the chain: the handler sees
// xmm1 as the instructions before left it.
static void chain_fault(const Xmm *in, const void *bad) {
  __asm__ volatile("movupd (%0), %%xmm0\n movupd 16(%0), %%xmm2\n movupd 32(%0), %%xmm3\n"
                   "movapd %%xmm3, %%xmm1\n mulsd %%xmm3, %%xmm1\n addsd %%xmm0, %%xmm1\n"
                   "addsd (%1), %%xmm1\n addsd %%xmm2, %%xmm1\n"
                   :
                   : "r"(in), "r"(bad)
                   : "xmm0", "xmm1", "xmm2", "xmm3", "memory");
}

int main(void) {
  static void (*const chains[])(const Xmm *, Xmm *) = {chain_sd, chain_overwritten, chain_read_whole,
                                                      chain_ss, chain_mixed, chain_moved};
  static const char *const names[] = {"sd", "overwritten", "read_whole", "ss", "mixed", "moved"};
  const double qnan = __builtin_nan(""), snan = __builtin_nans("");
  const Xmm inputs[][4] = {
      {vec(1.5, 3.25), vec(-2.0, 7.0), vec(0.75, -1e300), vec(4.0, 9.5)},
      {vec(1e308, 1.0), vec(1e308, 2.0), vec(-3.0, 5e-324), vec(0.0, 6.0)},
      {vec(qnan, 1.0), vec(2.0, -qnan), vec(snan, 3.0), vec(-qnan, 4.0)},
      {vec(INFINITY, 1.0), vec(-INFINITY, 2.0), vec(0.0, 3.0), vec(INFINITY, 4.0)},
      {vecf(1.5f, 2.f, 3.f, 4.f), vecf(-2.f, 5.f, 6.f, 7.f), vecf(0.25f, -8.f, 9.f, 1e30f),
       vecf(3.f, 11.f, -12.f, 13.f)},
      {vecf(-1.f, 2.f, 3.f, 4.f), vecf(__builtin_nanf("1"), 5.f, 6.f, 7.f), vecf(-4.f, -8.f, 9.f, 1e30f),
       vecf(INFINITY, 11.f, -12.f, 13.f)},
  };
  for (size_t c = 0; c < sizeof chains / sizeof chains[0]; c++)
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
      Xmm out[3];
      unsigned mxcsr = 0x1f80;
      __asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
      chains[c](inputs[i], out);
      __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
      char name[32];
      snprintf(name, sizeof name, "%s/%zu %04x", names[c], i, mxcsr);
      print(name, out, 3);
    }
  void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = segv_handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  for (size_t i = 0; i < 4; i++) {
    if (sigsetjmp(on_segv, 1) == 0) {
      chain_fault(inputs[i], page);
      printf("fault/%zu not taken\n", i);
    } else {
      print("fault", seen, 2);
    }
  }
  return 0;
}
