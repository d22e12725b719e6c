// int 0x80 from 64-bit code: the i386 system call, as an x86-64 kernel with
// IA32 emulation (Debian's default) runs it.  The number is EAX (the upper
// half of RAX ignored), the arguments EBX, ECX, EDX, ESI, EDI, EBP taken as
// 32 bits, the result sign-extended into RAX, every other register and the
// flags kept (RCX and R11 too, unlike syscall).  getpid, write and read
// (buffers below 4 GiB), close of a bad descriptor, an unknown number
// (-ENOSYS), and exit_group at the end.  A kernel without IA32 emulation
// answers #GP instead: that native run is no reference
// (int80_syscalls.native-unfit), and phybin's output is compared with
// int80_syscalls.expected, worked out from the kernel's ABI.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct regs {
  uint64_t rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15, flags;
};

// Loads every register from *in, runs int 0x80, stores them into *out.
static void int80(const struct regs *in, struct regs *out) {
  __asm__ volatile(
      "push %%rbp\n\t"
      "push %%rbx\n\t"
      "push %%r12\n\t"
      "push %%r13\n\t"
      "push %%r14\n\t"
      "push %%r15\n\t"
      "push %1\n\t"  // out
      "mov %0, %%rax\n\t"
      "push 120(%%rax)\n\t"
      "popf\n\t"
      "mov 8(%%rax), %%rbx\n\t"
      "mov 16(%%rax), %%rcx\n\t"
      "mov 24(%%rax), %%rdx\n\t"
      "mov 32(%%rax), %%rsi\n\t"
      "mov 40(%%rax), %%rdi\n\t"
      "mov 48(%%rax), %%rbp\n\t"
      "mov 56(%%rax), %%r8\n\t"
      "mov 64(%%rax), %%r9\n\t"
      "mov 72(%%rax), %%r10\n\t"
      "mov 80(%%rax), %%r11\n\t"
      "mov 88(%%rax), %%r12\n\t"
      "mov 96(%%rax), %%r13\n\t"
      "mov 104(%%rax), %%r14\n\t"
      "mov 112(%%rax), %%r15\n\t"
      "mov (%%rax), %%rax\n\t"
      "int $0x80\n\t"
      "pushf\n\t"
      "push %%rax\n\t"
      "mov 16(%%rsp), %%rax\n\t"  // out
      "pop (%%rax)\n\t"
      "pop 120(%%rax)\n\t"
      "mov %%rbx, 8(%%rax)\n\t"
      "mov %%rcx, 16(%%rax)\n\t"
      "mov %%rdx, 24(%%rax)\n\t"
      "mov %%rsi, 32(%%rax)\n\t"
      "mov %%rdi, 40(%%rax)\n\t"
      "mov %%rbp, 48(%%rax)\n\t"
      "mov %%r8, 56(%%rax)\n\t"
      "mov %%r9, 64(%%rax)\n\t"
      "mov %%r10, 72(%%rax)\n\t"
      "mov %%r11, 80(%%rax)\n\t"
      "mov %%r12, 88(%%rax)\n\t"
      "mov %%r13, 96(%%rax)\n\t"
      "mov %%r14, 104(%%rax)\n\t"
      "mov %%r15, 112(%%rax)\n\t"
      "add $8, %%rsp\n\t"
      "pop %%r15\n\t"
      "pop %%r14\n\t"
      "pop %%r13\n\t"
      "pop %%r12\n\t"
      "pop %%rbx\n\t"
      "pop %%rbp"
      :
      : "r"(in), "r"(out)
      : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "cc", "memory");
}

// A call with fixed filler in every register it does not use, and every
// arithmetic flag set (with IF and the reserved bit 1, as pushf shows them).
static uint64_t call(uint64_t nr, uint64_t a, uint64_t b, uint64_t c, const char *what, int show_rax) {
  struct regs in = {nr, a, b, c, 0x5151515151515151, 0xd1d1d1d1d1d1d1d1, 0xb0b0b0b0b0b0b0b0, 8, 9, 10, 11, 12, 13,
                    14, 15, 0xad7};
  struct regs out;
  int80(&in, &out);
  const uint64_t *i = &in.rbx, *o = &out.rbx;
  int kept = 1;
  for (int k = 0; k < 15; k++) kept &= i[k] == o[k];
  printf("%-28s rax %#llx, other registers and flags kept: %s\n", what,
         show_rax ? (unsigned long long)out.rax : 0ull, kept ? "yes" : "no");
  return out.rax;
}

static sigjmp_buf no_ia32;
static void on_segv(int sig) {
  (void)sig;
  siglongjmp(no_ia32, 1);
}

int main(void) {
  signal(SIGSEGV, on_segv);
  if (sigsetjmp(no_ia32, 1)) {
    printf("int 0x80 raised SIGSEGV: this kernel has no IA32 emulation\n");
    return 0;
  }
  const uint64_t pid = call(20, 0, 0, 0, "getpid (rax not shown)", 0);
  signal(SIGSEGV, SIG_DFL);
  printf("getpid is the process's: %s\n", pid == (uint64_t)getpid() ? "yes" : "no");
  if (call(0xffffffff00000000ull | 20, 0, 0, 0, "getpid, RAX's upper half set", 0) != pid) printf("another pid\n");
  char *low = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  strcpy(low, "written by int 0x80\n");
  fflush(stdout);
  call(4, 0xabcdef0000000001ull, (uint64_t)low, 20, "write(1, low, 20)", 1);
  int fds[2];
  pipe(fds);
  write(fds[1], "pipe!", 5);
  call(3, (uint64_t)fds[0], (uint64_t)low + 100, 64, "read(pipe, low, 64)", 1);
  printf("read: %.5s\n", low + 100);
  call(6, 999, 0, 0, "close(999)", 1);
  call(6, (uint64_t)fds[1], 0, 0, "close(pipe)", 1);
  call(9999, 0, 0, 0, "number 9999", 1);
  call(0xffffffff, 0, 0, 0, "number -1", 1);
  fflush(stdout);
  struct regs in = {252, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x202}, out;
  int80(&in, &out);
  printf("exit_group returned\n");
  return 1;
}
