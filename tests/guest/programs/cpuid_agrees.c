// CPUID and the instructions agree: for each extension an instruction is
// run under a SIGILL handler.  An advertised extension must execute; one
// CPUID leaves out must raise SIGILL (ILL_ILLOPN) at the instruction, as
// on a CPU without it.  Prints one line per extension that says only
// whether the two agree, so any x86-64 CPU (or phybin) prints the same.
#define _GNU_SOURCE
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <ucontext.h>

static sigjmp_buf back;
static volatile int ill_code;
static volatile uintptr_t ill_addr, ill_rip;

static void on_ill(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  ill_code = si->si_code;
  ill_addr = (uintptr_t)si->si_addr;
  ill_rip = (uintptr_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
  siglongjmp(back, 1);
}

static uint32_t reg(unsigned leaf, unsigned sub, int which) {
  unsigned r[4] = {0, 0, 0, 0}, max = __get_cpuid_max(leaf & 0x80000000u, NULL);
  if (max >= leaf) __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
  return r[which];
}
enum { EAX, EBX, ECX, EDX };
#define BIT(leaf, sub, r, b) ((reg(leaf, sub, r) >> (b)) & 1)

// Each probe runs SETUP, then the instruction at a label whose address is
// stored in *at, so the handler's RIP can be checked against it.
#define PROBE(name, setup, text)                                             \
  static void probe_##name(uintptr_t *at) {                                  \
    static char buf[4096] __attribute__((aligned(64)));                      \
    __asm__ volatile(setup "\n lea 1f(%%rip), %%rcx\n mov %%rcx, (%0)\n xor %%ecx, %%ecx\n 1: " text \
                     : : "r"(at), "r"(buf) : "rax", "rcx", "rdx", "xmm0", "xmm1", "xmm2", "memory"); \
  }
PROBE(avx, "", "vpaddd %%xmm0, %%xmm1, %%xmm2")
PROBE(avx2, "", "vpaddd %%ymm0, %%ymm1, %%ymm2\n vzeroupper")
PROBE(fma, "", "vfmadd231ps %%xmm0, %%xmm1, %%xmm2")
PROBE(f16c, "", "vcvtph2ps %%xmm0, %%xmm1")
PROBE(avx512, "", "vpaddd %%zmm0, %%zmm1, %%zmm2\n vzeroupper")
PROBE(xgetbv, "", "xgetbv")
PROBE(xsave, "xor %%eax, %%eax\n xor %%edx, %%edx", "xsave (%1)")
PROBE(rdrand, "", "rdrand %%eax")
PROBE(rdseed, "", "rdseed %%eax")
PROBE(rdtscp, "", "rdtscp")
PROBE(rdpid, "", "rdpid %%rax")
PROBE(clflush, "", "clflush (%1)")
PROBE(clflushopt, "", "clflushopt (%1)")
PROBE(clwb, "", "clwb (%1)")
PROBE(rdfsbase, "", "rdfsbase %%rax")
PROBE(serialize, "", ".byte 0x0f, 0x01, 0xe8")

struct check {
  const char *name;
  int advertised;
  void (*probe)(uintptr_t *);
};

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_ill;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGILL, &sa, NULL);
  const int osxsave = BIT(1, 0, ECX, 27);
  const struct check checks[] = {
      {"avx", osxsave && BIT(1, 0, ECX, 28), probe_avx},
      {"avx2", osxsave && BIT(7, 0, EBX, 5), probe_avx2},
      {"fma", osxsave && BIT(1, 0, ECX, 12), probe_fma},
      {"f16c", osxsave && BIT(1, 0, ECX, 29), probe_f16c},
      {"avx512f", osxsave && BIT(7, 0, EBX, 16), probe_avx512},
      {"xgetbv (osxsave)", osxsave, probe_xgetbv},
      {"xsave (osxsave)", osxsave, probe_xsave},
      {"rdrand", BIT(1, 0, ECX, 30), probe_rdrand},
      {"rdseed", BIT(7, 0, EBX, 18), probe_rdseed},
      {"rdtscp", BIT(0x80000001u, 0, EDX, 27), probe_rdtscp},
      {"rdpid", BIT(7, 0, ECX, 22), probe_rdpid},
      {"clflush", BIT(1, 0, EDX, 19), probe_clflush},
      {"clflushopt", BIT(7, 0, EBX, 23), probe_clflushopt},
      {"clwb", BIT(7, 0, EBX, 24), probe_clwb},
      {"fsgsbase (hwcap2)", (getauxval(AT_HWCAP2) & 2) != 0, probe_rdfsbase},
      {"fsgsbase (cpuid)", BIT(7, 0, EBX, 0), probe_rdfsbase},
      {"serialize", BIT(7, 0, EDX, 14), probe_serialize},
  };
  for (volatile size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
    const struct check *c = &checks[i];
    uintptr_t at = 0;
    int faulted = 0;
    if (sigsetjmp(back, 1) == 0) c->probe(&at);
    else faulted = 1;
    const int right = c->advertised ? !faulted : faulted && ill_code == ILL_ILLOPN && ill_rip == at && ill_addr == at;
    if (right) printf("%-18s agrees\n", c->name);
    else printf("%-18s DISAGREES: advertised %d, faulted %d (si_code %d, rip %+ld, addr %+ld)\n", c->name,
                c->advertised, faulted, ill_code, (long)(ill_rip - at), (long)(ill_addr - at));
  }
  return 0;
}
