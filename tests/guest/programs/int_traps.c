// The software interrupts a user program can execute, each caught by a
// handler that then resumes: int3 in its one-byte (cc) and two-byte (cd 03)
// forms and icebp (f1), which trap with SIGTRAP after the instruction;
// int 4, the overflow trap; and int n through a gate user code may not use,
// #GP at the instruction with the IDT entry in the error code.  The handler
// prints signal, si_code, si_addr and RIP relative to the instruction,
// trapno, err, and the arithmetic flags set just before.  Then iretq, iretd
// back to this program on a new stack with new flags, and iretq with a bad
// SS or CS (#GP naming the selector).
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static volatile int seen_sig, seen_code;
static volatile uint64_t seen_addr, seen_rip, seen_trapno, seen_err, seen_flags;

static void on_signal(int sig, siginfo_t *info, void *ctx) {
  greg_t *g = ((ucontext_t *)ctx)->uc_mcontext.gregs;
  seen_sig = sig;
  seen_code = info->si_code;
  seen_addr = (uint64_t)info->si_addr;
  seen_rip = (uint64_t)g[REG_RIP];
  seen_trapno = (uint64_t)g[REG_TRAPNO];
  seen_err = (uint64_t)g[REG_ERR];
  seen_flags = (uint64_t)g[REG_EFL] & 0x8d5;
  g[REG_RIP] = g[REG_R11];  // resume after the instruction
}

static void show(const char *name, uint64_t at) {
  printf("%-10s signal %2d code %#5x addr %s rip %s trapno %2llu err %#6llx flags %#llx\n", name, seen_sig,
         seen_code, seen_addr == 0 ? "0" : seen_addr == at ? "insn" : "+len",
         seen_rip == at ? "insn" : "+len", (unsigned long long)seen_trapno, (unsigned long long)seen_err,
         (unsigned long long)seen_flags);
}

// Runs the instruction bytes TEXT at label 1 (R10 = its address, R11 = the
// next one), after flags set by `inc` (OF SF AF, ZF and PF clear) and an
// earlier `add` (CF, which inc leaves) in the same block.
#define TRAP(name, text)                                                            \
  do {                                                                              \
    uint64_t at;                                                                    \
    seen_sig = 0;                                                                   \
    __asm__ volatile("lea 1f(%%rip), %%r10\n\t"                                     \
                     "lea 2f(%%rip), %%r11\n\t"                                     \
                     "mov $-1, %%eax\n\t"                                           \
                     "add $2, %%eax\n\t"                                            \
                     "mov $0x7f, %%ecx\n\t"                                         \
                     "inc %%cl\n\t"                                                 \
                     "1: " text "\n\t"                                              \
                     "2: mov %%r10, %0"                                             \
                     : "=r"(at) : : "rax", "rcx", "r10", "r11", "cc", "memory");    \
    show(name, at);                                                                 \
  } while (0)

// iret back to label 2 on the stack `top` with RFLAGS 0xc41 (OF, DF, ZF,
// CF) and the selectors cs and ss; R12 keeps the old RSP, which label 2
// restores (also when a handler resumes there after a #GP).  QUAD: iretq
// with 8-byte slots, else iretd with 4-byte ones (the code and the stack
// below 4 GiB).
static void iret_to(const char *name, uint64_t top, uint64_t cs, uint64_t ss, int quad) {
  uint64_t rsp_seen = 0, flags_seen = 0, at;
  seen_sig = 0;
  if (quad)
    __asm__ volatile(
        "mov %%rsp, %%r12\n\t"
        "lea 2f(%%rip), %%r11\n\t"
        "lea 1f(%%rip), %%r10\n\t"
        "push %[ss]\n\tpush %[top]\n\tpush $0xc41\n\tpush %[cs]\n\tpush %%r11\n\t"
        "1: iretq\n\t"
        "2: pushf\n\t"
        "pop %[flags]\n\t"
        "cld\n\t"
        "mov %%rsp, %[rsp]\n\t"
        "mov %%r12, %%rsp\n\t"
        "mov %%r10, %[at]"
        : [rsp] "+&r"(rsp_seen), [flags] "+&r"(flags_seen), [at] "=&r"(at)
        : [top] "r"(top), [cs] "r"(cs), [ss] "r"(ss)
        : "r10", "r11", "r12", "cc", "memory");
  else
    __asm__ volatile(
        "mov %%rsp, %%r12\n\t"
        "lea 2f(%%rip), %%r11\n\t"
        "lea 1f(%%rip), %%r10\n\t"
        "sub $20, %%rsp\n\t"
        "mov %k[ss], 16(%%rsp)\n\tmov %k[top], 12(%%rsp)\n\tmovl $0xc41, 8(%%rsp)\n\t"
        "mov %k[cs], 4(%%rsp)\n\tmov %%r11d, (%%rsp)\n\t"
        "1: iretl\n\t"
        "2: pushf\n\t"
        "pop %[flags]\n\t"
        "cld\n\t"
        "mov %%rsp, %[rsp]\n\t"
        "mov %%r12, %%rsp\n\t"
        "mov %%r10, %[at]"
        : [rsp] "+&r"(rsp_seen), [flags] "+&r"(flags_seen), [at] "=&r"(at)
        : [top] "r"(top), [cs] "r"(cs), [ss] "r"(ss)
        : "r10", "r11", "r12", "cc", "memory");
  if (seen_sig) {
    seen_flags = 0;  // the flags the compiler's code left before the asm
    show(name, at);
  }
  else
    printf("%-10s rsp is the new stack %d, flags %#llx\n", name, rsp_seen == top,
           (unsigned long long)(flags_seen & 0xcd5));
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_signal;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGTRAP, &sa, NULL);
  sigaction(SIGSEGV, &sa, NULL);
  TRAP("int3", "int3");
  TRAP("int $3", ".byte 0xcd, 0x03");
  TRAP("icebp", ".byte 0xf1");
  TRAP("int $4", ".byte 0xcd, 0x04");
  TRAP("int $0", ".byte 0xcd, 0x00");
  TRAP("int $1", ".byte 0xcd, 0x01");
  TRAP("int $0x21", ".byte 0xcd, 0x21");
  TRAP("int $0x2e", ".byte 0xcd, 0x2e");
  TRAP("int $0x81", ".byte 0xcd, 0x81");
  TRAP("int $0xff", ".byte 0xcd, 0xff");
  TRAP("hlt", "hlt");

  uint8_t *low = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  const uint64_t top = (uint64_t)(low + 8192);
  iret_to("iretq", top, 0x33, 0x2b, 1);
  iret_to("iretq ss 0", top, 0x33, 0, 1);     // a null SS at CPL 3: #GP(0)
  iret_to("iretq ss 28", top, 0x33, 0x28, 1);  // RPL 0: #GP(0x28)
  iret_to("iretq ss 33", top, 0x33, 0x33, 1);  // a code segment: #GP(0x30)
  iret_to("iretq cs 2b", top, 0x2b, 0x2b, 1);  // a data segment: #GP(0x28)
  if ((uint64_t)&main < 0x100000000ull)
    iret_to("iretd", top, 0x33, 0x2b, 0);
  else
    printf("iretd      skipped: the code lies above 4 GiB\n");
  return 0;
}
