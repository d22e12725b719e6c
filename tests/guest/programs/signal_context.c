// Synchronous signals whose handlers read and change the interrupted
// context.  A load fault in the middle of straight-line code: the handler
// checks RIP, the registers as they were before the faulting instruction
// (including writes a later instruction would overwrite, and RSP after a
// push), XMM0, MXCSR reset at entry, trapno/err/cr2; then it resumes after
// the load with RDX, XMM1 and CF changed, which the code sees after
// rt_sigreturn (MXCSR comes back too).  Then ud2, int3, hlt, a divide
// error and a misaligned movaps, each handled and skipped.  Last, a load
// from a PROT_NONE page whose handler makes the page readable and returns:
// the load runs again, after a push and a compare whose flags a setg reads
// after the load.
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static volatile int seen_sig, seen_code;
static volatile uint64_t seen_addr, seen_rip_delta, seen_trapno, seen_err, seen_cr2;
static volatile uint64_t seen_rax, seen_r11, seen_rsp_delta, seen_mxcsr, seen_xmm0;

static void on_signal(int sig, siginfo_t *info, void *ctx) {
  ucontext_t *uc = ctx;
  greg_t *g = uc->uc_mcontext.gregs;
  uint32_t m;
  __asm__ volatile("stmxcsr %0" : "=m"(m));
  seen_sig = sig;
  seen_code = info->si_code;
  seen_addr = (uint64_t)info->si_addr;
  seen_rip_delta = (uint64_t)g[REG_RIP] - (uint64_t)g[REG_R8];  // R8 = the trapping instruction
  seen_trapno = (uint64_t)g[REG_TRAPNO];
  seen_err = (uint64_t)g[REG_ERR];
  seen_cr2 = (uint64_t)g[REG_CR2];
  seen_rax = (uint64_t)g[REG_RAX];
  seen_r11 = (uint64_t)g[REG_R11];
  seen_rsp_delta = (uint64_t)g[REG_R9] - (uint64_t)g[REG_RSP];  // R9 = RSP before the push
  seen_mxcsr = m & 0xffc0;
  memcpy((void *)&seen_xmm0, &uc->uc_mcontext.fpregs->_xmm[0], 8);
  // Resume at the address in R10, with new RDX, XMM1 and CF.
  g[REG_RIP] = g[REG_R10];
  g[REG_RDX] = 0x4444;
  g[REG_EFL] |= 1;
  uint64_t v = 0x5555;
  memcpy(&uc->uc_mcontext.fpregs->_xmm[1], &v, 8);
}

static void load_fault(void) {
  uint64_t rdx, xmm1, cf, x0 = 0x7777;
  uint32_t up = 0x5f80, after;
  __asm__ volatile(
      "ldmxcsr %[up]\n\t"
      "sub $128, %%rsp\n\t"  // the red zone is the compiler's
      "movq %[x0], %%xmm0\n\t"
      "pxor %%xmm1, %%xmm1\n\t"
      "mov %%rsp, %%r9\n\t"
      "mov $0x1111, %%rax\n\t"
      "push %%rax\n\t"
      "mov $0x2222, %%r11\n\t"
      "mov $0x18, %%rcx\n\t"
      "lea 1f(%%rip), %%r8\n\t"
      "lea 2f(%%rip), %%r10\n\t"
      "clc\n\t"
      "1: movq (%%rcx), %%rdx\n\t"
      "mov $0x3333, %%rax\n\t"
      "mov $0x6666, %%r11\n\t"
      "2: setc %%cl\n\t"
      "movzbq %%cl, %%rcx\n\t"
      "pop %%rax\n\t"
      "add $128, %%rsp\n\t"
      "movq %%xmm1, %[x1]\n\t"
      "stmxcsr %[after]\n\t"
      : "=d"(rdx), [x1] "=r"(xmm1), "=c"(cf), [after] "=m"(after)
      : [x0] "r"(x0), [up] "m"(up)
      : "rax", "r8", "r9", "r10", "r11", "xmm0", "xmm1", "memory", "cc");
  printf("load fault: sig %d code %d addr %#llx rip at the load %d trapno %llu err %llu cr2 %#llx\n", seen_sig,
         seen_code, (unsigned long long)seen_addr, seen_rip_delta == 0, (unsigned long long)seen_trapno,
         (unsigned long long)seen_err, (unsigned long long)seen_cr2);
  printf("  at the fault: rax %#llx r11 %#llx rsp moved by %llu xmm0 %#llx mxcsr %#llx\n",
         (unsigned long long)seen_rax, (unsigned long long)seen_r11, (unsigned long long)seen_rsp_delta,
         (unsigned long long)seen_xmm0, (unsigned long long)seen_mxcsr);
  printf("  after sigreturn: rdx %#llx xmm1 %#llx cf %llu mxcsr %#x\n", (unsigned long long)rdx,
         (unsigned long long)xmm1, (unsigned long long)cf, after & 0xffc0);
  uint32_t nearest = 0x1f80;
  __asm__ volatile("ldmxcsr %0" : : "m"(nearest));
}

static void report(const char *what) {
  printf("%s: sig %d code %#x addr %s rip %s trapno %llu err %llu\n", what, seen_sig, seen_code,
         seen_addr == 0 ? "0" : "at the instruction", seen_rip_delta == 0 ? "at it" : "after it",
         (unsigned long long)seen_trapno, (unsigned long long)seen_err);
  seen_sig = 0;
}

// Each trap sets R8 to the trapping instruction and R10 to where the
// handler resumes.
#define TRAP(setup, insn)                                                                   \
  __asm__ volatile(setup "lea 1f(%%rip), %%r8\n\tlea 2f(%%rip), %%r10\n\t1: " insn "\n\t2:\n\t" \
                   :                                                                        \
                   :                                                                        \
                   : "rax", "rcx", "rdx", "r8", "r9", "r10", "r11", "xmm0", "memory", "cc")

static char *locked;
static volatile int unlocks;
static void on_locked(int sig) {
  (void)sig;
  unlocks++;
  mprotect(locked, 4096, PROT_READ | PROT_WRITE);
}

static void restarted_load(void) {
  locked = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  *(int *)locked = 42;
  mprotect(locked, 4096, PROT_NONE);
  signal(SIGSEGV, on_locked);
  uint64_t greater, rcx, value, rsp_moved;
  __asm__ volatile(
      "sub $128, %%rsp\n\t"
      "mov %%rsp, %%r9\n\t"
      "mov $5, %%eax\n\t"
      "push %%rax\n\t"
      "mov $0x1111, %%rcx\n\t"
      "cmp $3, %%eax\n\t"
      "movl (%%rdx), %%esi\n\t"  // faults once; runs again after the handler
      "mov $0x2222, %%rcx\n\t"
      "setg %%al\n\t"
      "movzbl %%al, %%eax\n\t"
      "pop %%r10\n\t"
      "sub %%rsp, %%r9\n\t"
      "add $128, %%rsp\n\t"
      "mov %%r9, %[moved]\n\t"
      : "=a"(greater), "=c"(rcx), "=S"(value), [moved] "=r"(rsp_moved)
      : "d"(locked)
      : "r9", "r10", "memory", "cc");
  printf("restarted load: %llu unlock(s), value %llu, setg %llu, rcx %#llx, rsp balanced %d\n",
         (unsigned long long)unlocks, (unsigned long long)value, (unsigned long long)greater,
         (unsigned long long)rcx, rsp_moved == 0);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  int sigs[] = {SIGSEGV, SIGILL, SIGTRAP, SIGFPE};
  for (unsigned i = 0; i < sizeof sigs / sizeof sigs[0]; i++) sigaction(sigs[i], &sa, NULL);

  load_fault();
  TRAP("", "ud2");
  report("ud2");
  TRAP("", "int3");
  report("int3");
  TRAP("", "hlt");
  report("hlt");
  TRAP("xor %%edx, %%edx\n\tmov $7, %%eax\n\txor %%ecx, %%ecx\n\t", "div %%ecx");
  report("div by zero");
  static char buf[64] __attribute__((aligned(16)));
  __asm__ volatile("lea 1f(%%rip), %%r8\n\tlea 2f(%%rip), %%r10\n\t1: movaps (%%rax), %%xmm0\n\t2:\n\t"
                   :
                   : "a"(buf + 4)
                   : "rcx", "rdx", "r8", "r9", "r10", "r11", "xmm0", "memory", "cc");
  report("misaligned movaps");
  restarted_load();
  return 0;
}
