// rdfsbase, rdgsbase, wrfsbase, wrgsbase, which Linux (5.9 and later) lets
// user code run on a CPU that has them: the 64- and 32-bit forms (a 32-bit read
// gives the low half, a 32-bit write zero-extends), agreement with
// arch_prctl both ways, a GS-relative load through a base written by
// wrgsbase, a TLS switch with wrfsbase that %fs loads see at once, and a
// non-canonical base, which is #GP(0): SIGSEGV with SI_KERNEL, trap 13,
// error 0, at the instruction, and nothing written.  Whether AT_HWCAP2 and
// CPUID advertise them is cpuid_agrees' to check: a virtual machine may
// hide them from both and still execute them.  A native run where they
// raise SIGILL (an older kernel) is no reference (fsgsbase.native-unfit).
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static volatile int seen_sig, seen_code;
static volatile uint64_t seen_trapno, seen_err, seen_rip;

static void on_segv(int sig, siginfo_t *info, void *ctx) {
  greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
  seen_sig = sig;
  seen_code = info->si_code;
  seen_trapno = (uint64_t)g[REG_TRAPNO];
  seen_err = (uint64_t)g[REG_ERR];
  seen_rip = (uint64_t)g[REG_RIP];
  g[REG_RIP] = g[REG_RCX];  // resume at the label after the instruction
}

static sigjmp_buf no_fsgsbase;
static void on_ill(int sig) {
  (void)sig;
  siglongjmp(no_fsgsbase, 1);
}

static uint64_t arch_get(int code) {
  uint64_t v = 0;
  syscall(SYS_arch_prctl, code, &v);
  return v;
}

static uint64_t rdfs(void) {
  uint64_t v;
  __asm__ volatile("rdfsbase %0" : "=r"(v));
  return v;
}

static uint64_t rdgs(void) {
  uint64_t v;
  __asm__ volatile("rdgsbase %0" : "=r"(v));
  return v;
}

static uint64_t gs_slot[4] = {0x1111, 0x2222, 0x3333, 0x4444};
static uint64_t other_tcb[4];

int main(void) {
  signal(SIGILL, on_ill);
  if (sigsetjmp(no_fsgsbase, 1)) {
    printf("rdfsbase raised SIGILL: the kernel leaves FSGSBASE off\n");
    return 0;
  }
  const uint64_t fs = rdfs();
  signal(SIGILL, SIG_DFL);
  printf("rdfsbase is arch_prctl's FS: %d\n", fs == arch_get(ARCH_GET_FS));
  uint32_t low;
  __asm__ volatile("rdfsbase %0" : "=r"(low));
  uint64_t low64;
  __asm__ volatile("mov $-1, %0\n\trdfsbase %k0" : "=r"(low64));
  printf("rdfsbase r32 low half: %d, upper cleared: %d\n", low == (uint32_t)fs, low64 == (uint32_t)fs);

  __asm__ volatile("wrgsbase %0" : : "r"((uint64_t)gs_slot));
  uint64_t via_gs;
  __asm__ volatile("mov %%gs:16, %0" : "=r"(via_gs));
  printf("wrgsbase: rdgsbase %d, arch_prctl %d, gs:16 = %#llx\n", rdgs() == (uint64_t)gs_slot,
         arch_get(ARCH_GET_GS) == (uint64_t)gs_slot, (unsigned long long)via_gs);
  __asm__ volatile("wrgsbase %k0" : : "r"(0xffffffff12345678ull));
  printf("wrgsbase r32: %#llx\n", (unsigned long long)rdgs());
  syscall(SYS_arch_prctl, ARCH_SET_GS, 0x7000);
  printf("after ARCH_SET_GS: %#llx\n", (unsigned long long)rdgs());

  other_tcb[0] = (uint64_t)other_tcb;
  other_tcb[1] = 0xabcd;
  uint64_t self, word;
  __asm__ volatile(
      "wrfsbase %[other]\n\t"
      "mov %%fs:0, %[self]\n\t"
      "mov %%fs:8, %[word]\n\t"
      "wrfsbase %[fs]"
      : [self] "=&r"(self), [word] "=&r"(word)
      : [other] "r"((uint64_t)other_tcb), [fs] "r"(fs)
      : "memory");
  printf("wrfsbase TLS switch: fs:0 is the new TCB %d, fs:8 %#llx, restored %d\n", self == (uint64_t)other_tcb,
         (unsigned long long)word, rdfs() == fs);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  const uint64_t bad[] = {0x0000800000000000ull, 0x8000000000000000ull, 0xffff7fffffffffffull};
  for (int i = 0; i < 3; i++) {
    uint64_t at;
    seen_sig = 0;
    __asm__ volatile(
        "lea 2f(%%rip), %%rcx\n\t"
        "lea 1f(%%rip), %[at]\n\t"
        "1: wrgsbase %[v]\n\t"
        "2:"
        : [at] "=&r"(at)
        : [v] "r"(bad[i])
        : "rcx", "memory");
    printf("wrgsbase %#llx: signal %d code %#x trapno %llu err %llu at the instruction %d, base kept %d\n",
           (unsigned long long)bad[i], seen_sig, seen_code, (unsigned long long)seen_trapno,
           (unsigned long long)seen_err, seen_rip == at, rdgs() == 0x7000);
  }
  const uint64_t good = 0xffff800000001000ull;  // canonical, high half
  __asm__ volatile("wrgsbase %0" : : "r"(good));
  printf("wrgsbase %#llx: %d\n", (unsigned long long)good, rdgs() == good);
  return 0;
}
