// Faults in the middle of runs of SSE instructions that write only XMM
// registers (phybin commits such a run's register writes at its end and
// replays it from its start when something inside faults): the handler
// must see RIP at the faulting instruction and every XMM register as the
// instructions before it left them, and a handler that repairs the fault
// and returns must see the run finish as natively.  Loads from a page
// that is not readable (the handler makes it readable), a misaligned
// movaps (the handler skips it), a fault at a run's first instruction, an
// accumulator the run reads and writes, packed and scalar, float and
// double, and NaNs the run makes on its way.
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

// Each case: rdi = readable data (64 bytes, 16-aligned), rsi = the page
// that faults.  Inputs in xmm registers come from `in` (set by run_case).
// Labels name the instructions the handler may see.
void case_scalar(const void *data, const void *page);
void case_packed(const void *data, const void *page);
void case_first(const void *data, const void *page);
void case_accumulate(const void *data, const void *page);
void case_misaligned(const void *data, const void *page);
void case_nan(const void *data, const void *page);
void case_punned(const void *data, const void *page);
extern const char scalar_fault[], packed_fault[], first_fault[], accumulate_fault[], misaligned_fault[],
    misaligned_next[], nan_fault[], punned_fault[];
__asm__(
    ".text\n"
    ".globl case_scalar\n"
    "case_scalar:\n"
    "  movsd (%rdi), %xmm0\n"
    "  addsd %xmm1, %xmm0\n"
    "  mulsd %xmm0, %xmm2\n"
    "  movapd %xmm2, %xmm5\n"
    ".globl scalar_fault\n"
    "scalar_fault:\n"
    "  addsd 8(%rsi), %xmm0\n"
    "  subsd %xmm0, %xmm3\n"
    "  movsd %xmm0, %xmm4\n"
    "  ret\n"
    ".globl case_packed\n"
    "case_packed:\n"
    "  movaps 16(%rdi), %xmm5\n"
    "  addps %xmm6, %xmm5\n"
    "  mulps %xmm5, %xmm6\n"
    "  shufps $0x1b, %xmm6, %xmm6\n"
    ".globl packed_fault\n"
    "packed_fault:\n"
    "  addps 32(%rsi), %xmm5\n"
    "  movaps %xmm5, %xmm7\n"
    "  ret\n"
    ".globl case_first\n"
    "case_first:\n"
    ".globl first_fault\n"
    "first_fault:\n"
    "  movsd (%rsi), %xmm0\n"
    "  addsd %xmm0, %xmm1\n"
    "  mulsd %xmm1, %xmm2\n"
    "  ret\n"
    ".globl case_accumulate\n"
    "case_accumulate:\n"
    "  mulsd %xmm1, %xmm2\n"
    "  addsd %xmm2, %xmm4\n"
    "  addsd (%rdi), %xmm4\n"
    ".globl accumulate_fault\n"
    "accumulate_fault:\n"
    "  mulsd 16(%rsi), %xmm4\n"
    "  addsd %xmm4, %xmm3\n"
    "  ret\n"
    ".globl case_misaligned\n"
    "case_misaligned:\n"
    "  addpd %xmm1, %xmm0\n"
    "  mulpd %xmm0, %xmm2\n"
    ".globl misaligned_fault\n"
    "misaligned_fault:\n"
    "  movaps 8(%rdi), %xmm3\n"
    ".globl misaligned_next\n"
    "misaligned_next:\n"
    "  addpd %xmm2, %xmm3\n"
    "  ret\n"
    ".globl case_nan\n"
    "case_nan:\n"
    "  subsd %xmm1, %xmm0\n"  // inf - inf: x86's negative default NaN
    "  mulsd %xmm2, %xmm2\n"
    "  addsd %xmm0, %xmm2\n"
    ".globl nan_fault\n"
    "nan_fault:\n"
    "  addsd 24(%rsi), %xmm2\n"
    "  sqrtsd %xmm3, %xmm3\n"  // sqrt(-1): the default NaN again
    "  ret\n"
    // x86's NaN of sqrtps (ffc00000) read as the top half of a double is
    // -2^1021, AArch64's (7fc00000) +2^1021, which overflows when added to
    // 1.7e308; then a fault.  The handler sees MXCSR without OE, as the CPU
    // shows it, and so after the run.
    ".globl case_punned\n"
    "case_punned:\n"
    "  sqrtps %xmm1, %xmm1\n"
    "  unpcklpd %xmm1, %xmm1\n"
    "  addsd %xmm2, %xmm1\n"
    "  addsd %xmm1, %xmm3\n"
    ".globl punned_fault\n"
    "punned_fault:\n"
    "  addsd 8(%rsi), %xmm3\n"
    "  ret\n");

static volatile uint64_t in[8][2], out[8][2];
static char *page;
static const char *skip_from, *skip_to;

static void print_xmm(const char *what, const struct _libc_fpstate *fp) {
  printf("  %s:", what);
  for (int i = 0; i < 8; i++) {
    uint64_t lanes[2];
    memcpy(lanes, &fp->_xmm[i], sizeof lanes);
    printf(" %d=%016llx:%016llx", i, (unsigned long long)lanes[1], (unsigned long long)lanes[0]);
  }
  printf("\n");
}

static const char *const fault_labels[] = {scalar_fault, packed_fault, first_fault, accumulate_fault,
                                           misaligned_fault, nan_fault, punned_fault};
static const char *const fault_names[] = {"scalar_fault", "packed_fault", "first_fault", "accumulate_fault",
                                          "misaligned_fault", "nan_fault", "punned_fault"};

static void on_segv(int sig, siginfo_t *si, void *ctx) {
  ucontext_t *uc = ctx;
  const char *rip = (const char *)uc->uc_mcontext.gregs[REG_RIP];
  const char *name = "elsewhere";
  for (unsigned i = 0; i < sizeof fault_labels / sizeof fault_labels[0]; i++)
    if (rip == fault_labels[i]) name = fault_names[i];
  const char *addr = si->si_addr;
  long offset = addr >= page && addr < page + 4096 ? addr - page : -1;
  printf("  signal %d code %d at %s, page offset %ld, mxcsr flags %02x\n", sig, si->si_code, name, offset,
         uc->uc_mcontext.fpregs->mxcsr & 0x3d);  // DE is exact only with PHYBIN_EXACT_MXCSR
  print_xmm("in handler", uc->uc_mcontext.fpregs);
  if (rip == skip_from) uc->uc_mcontext.gregs[REG_RIP] = (greg_t)skip_to;
  else mprotect(page, 4096, PROT_READ);
}

static void run_case(const char *name, void (*fn)(const void *, const void *)) {
  static double data[8] __attribute__((aligned(16))) = {1.5, -2.25, 3.0, 0.125, 1e300, -7.0, 2.0, 0.5};
  printf("%s\n", name);
  mprotect(page, 4096, PROT_NONE);
  const unsigned clean = 0x1f80;
  __asm__ volatile("ldmxcsr %0" : : "m"(clean));
  __asm__ volatile(
      "movdqu 0(%0), %%xmm0\n movdqu 16(%0), %%xmm1\n movdqu 32(%0), %%xmm2\n movdqu 48(%0), %%xmm3\n"
      "movdqu 64(%0), %%xmm4\n movdqu 80(%0), %%xmm5\n movdqu 96(%0), %%xmm6\n movdqu 112(%0), %%xmm7\n"
      "mov %2, %%rdi\n mov %3, %%rsi\n call *%4\n"
      "movdqu %%xmm0, 0(%1)\n movdqu %%xmm1, 16(%1)\n movdqu %%xmm2, 32(%1)\n movdqu %%xmm3, 48(%1)\n"
      "movdqu %%xmm4, 64(%1)\n movdqu %%xmm5, 80(%1)\n movdqu %%xmm6, 96(%1)\n movdqu %%xmm7, 112(%1)\n"
      :
      : "r"(in), "r"(out), "r"(data), "r"(page), "r"(fn)
      : "rdi", "rsi", "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
        "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory", "cc");
  unsigned mxcsr;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  printf("  after:");
  for (int i = 0; i < 8; i++)
    printf(" %d=%016llx:%016llx", i, (unsigned long long)out[i][1], (unsigned long long)out[i][0]);
  printf(" mxcsr flags %02x\n", mxcsr & 0x3d);
}

static void set_in(const double (*v)[2]) {
  for (int i = 0; i < 8; i++) memcpy((void *)in[i], v[i], 16);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const double page_values[8] = {0.75, 10.0, 100.0, -3.5, 1e-300, 4.0, 0.0, -0.0};
  memcpy(page, page_values, sizeof page_values);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  const double plain[8][2] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}, {13, 14}, {15, 16}};
  set_in(plain);
  run_case("scalar", case_scalar);
  run_case("packed", case_packed);
  run_case("first", case_first);
  run_case("accumulate", case_accumulate);
  skip_from = misaligned_fault;
  skip_to = misaligned_next;
  run_case("misaligned", case_misaligned);
  skip_from = NULL;
  const double inf = __builtin_inf();
  const double nans[8][2] = {{inf, 1}, {inf, 2}, {3, 4}, {-1, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}};
  set_in(nans);
  run_case("nan", case_nan);
  const double punned[8][2] = {{1, 2}, {-4, -9}, {1.7e308, 3}, {0.5, 4}, {6, 7}, {8, 9}, {10, 11}, {12, 13}};
  set_in(punned);
  for (int i = 0; i < 3; i++) run_case("punned", case_punned);
  return 0;
}
