// An access through a register that a later instruction of the block steps
// (mov eax, [rsi]; add rdx, 1; add rsi, 4): phybin folds the step into the
// access (post-index) when nothing in between reads the register or can
// fault.  Checks loops of integer and SSE loads and stores of every size in
// that shape, in-between instructions that read the old value (lea, mov,
// a compare), and a fault in the access itself, whose handler must see the
// register not yet stepped.  The native run is the reference.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static uint8_t data[512];
static uint8_t out[512];

static uint64_t sum_loads(void) {
  uint64_t sum = 0, p = (uint64_t)data, n = 0, t = 0;
  __asm__ volatile(
      "1:\n"
      " movzbl (%[p]), %k[t]\n add $1, %[n]\n add $1, %[p]\n add %[t], %[s]\n"
      " movzwl (%[p]), %k[t]\n xor $3, %[n]\n add $2, %[p]\n add %[t], %[s]\n"
      " movl (%[p]), %k[t]\n add $5, %[n]\n add $4, %[p]\n add %[t], %[s]\n"
      " movq (%[p]), %[t]\n imul $3, %[n], %[n]\n add $8, %[p]\n add %[t], %[s]\n"
      " sub $1, %[p]\n cmp $200, %[n]\n jb 1b\n"
      : [s] "+r"(sum), [p] "+r"(p), [n] "+r"(n), [t] "=&r"(t)
      :
      : "cc", "memory");
  return sum ^ (p - (uint64_t)data) << 32;
}

static uint64_t copy_stores(void) {
  uint64_t src = (uint64_t)data, dst = (uint64_t)out, k = 0, t = 0;
  __asm__ volatile(
      "1:\n"
      " movq (%[src]), %[t]\n add $1, %[k]\n add $8, %[src]\n"
      " movl %k[t], (%[dst])\n lea 7(%[k]), %[t]\n add $4, %[dst]\n"
      " movw %w[t], (%[dst])\n add $2, %[dst]\n"
      " movb %b[k], (%[dst])\n add $1, %[dst]\n"
      " cmp $40, %[k]\n jb 1b\n"
      : [src] "+r"(src), [dst] "+r"(dst), [k] "+r"(k), [t] "=&r"(t)
      :
      : "cc", "memory");
  return (src - (uint64_t)data) | (dst - (uint64_t)out) << 16;
}

// matmul's inner loop: movsd through rsi, rax stepped in between.
static double sse_loop(void) {
  double acc[32];
  for (int i = 0; i < 32; i++) acc[i] = i * 0.5;
  const double scale = 1.25;
  uint64_t a = (uint64_t)acc, b = (uint64_t)data, end = a + sizeof acc;
  __asm__ volatile(
      "movsd %[scale], %%xmm1\n"
      "1:\n"
      " movsd (%[b]), %%xmm0\n add $8, %[a]\n add $8, %[b]\n mulsd %%xmm1, %%xmm0\n"
      " addsd -8(%[a]), %%xmm0\n movsd %%xmm0, -8(%[a])\n cmp %[a], %[end]\n jnz 1b\n"
      : [a] "+r"(a), [b] "+r"(b)
      : [end] "r"(end), [scale] "m"(scale)
      : "xmm0", "xmm1", "cc", "memory");
  double s = 0;
  for (int i = 0; i < 32; i++) s += acc[i];
  return s;
}

// 16-byte and 4-byte SSE stores and loads stepping their pointers later.
static uint64_t sse_copy(void) {
  uint64_t src = (uint64_t)data, dst = (uint64_t)out, n = 0;
  __asm__ volatile(
      "1:\n"
      " movdqu (%[src]), %%xmm2\n add $1, %[n]\n add $16, %[src]\n"
      " movups %%xmm2, (%[dst])\n inc %[n]\n add $16, %[dst]\n"
      " movss (%[src]), %%xmm3\n add $3, %[n]\n add $4, %[src]\n"
      " movss %%xmm3, (%[dst])\n add $4, %[dst]\n"
      " cmp $60, %[n]\n jb 1b\n"
      : [src] "+r"(src), [dst] "+r"(dst), [n] "+r"(n)
      :
      : "xmm2", "xmm3", "cc", "memory");
  return (src - (uint64_t)data) | (dst - (uint64_t)out) << 16 | n << 32;
}

// In between, something reads the register's old value: no folding, same result.
static uint64_t old_value_read(void) {
  uint64_t p = (uint64_t)data, q = 0, r = 0, t = 0;
  __asm__ volatile(
      " movl (%[p]), %k[t]\n lea 4(%[p]), %[q]\n add $8, %[p]\n"
      " movl (%[p]), %k[t]\n mov %[p], %[r]\n add $8, %[p]\n"
      " movl (%[p]), %k[t]\n cmp %[r], %[p]\n adc $0, %[t]\n add $8, %[p]\n"
      : [p] "+r"(p), [q] "=&r"(q), [r] "=&r"(r), [t] "=&r"(t)
      :
      : "cc", "memory");
  return (p - (uint64_t)data) ^ (q - (uint64_t)data) << 8 ^ (r - (uint64_t)data) << 16 ^ t << 24;
}

static sigjmp_buf on_segv;
static uint64_t seen_rsi, seen_rax;

static void segv_handler(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)si;
  ucontext_t *uc = ctx;
  seen_rsi = (uint64_t)uc->uc_mcontext.gregs[REG_RSI];
  seen_rax = (uint64_t)uc->uc_mcontext.gregs[REG_RAX];
  siglongjmp(on_segv, 1);
}

int main(void) {
  for (int i = 0; i < 512; i++) data[i] = (uint8_t)(i * 37 + 11);
  printf("loads %016llx\n", (unsigned long long)sum_loads());
  printf("stores %016llx", (unsigned long long)copy_stores());
  uint64_t h = 0;
  for (int i = 0; i < 512; i++) h = h * 31 + out[i];
  printf(" %016llx\n", (unsigned long long)h);
  printf("sse loop %.17g\n", sse_loop());
  memset(out, 0, sizeof out);
  printf("sse copy %016llx", (unsigned long long)sse_copy());
  h = 0;
  for (int i = 0; i < 512; i++) h = h * 31 + out[i];
  printf(" %016llx\n", (unsigned long long)h);
  printf("old value %016llx\n", (unsigned long long)old_value_read());

  uint8_t *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mprotect(page + 4096, 4096, PROT_NONE);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = segv_handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  static const char *const kinds[] = {"load", "store", "sse load", "sse store"};
  for (int kind = 0; kind < 4; kind++) {
    if (sigsetjmp(on_segv, 1) == 0) {
      uint64_t p = (uint64_t)(page + 4096 - 16), n = 0;
      // Steps through the last 16 bytes into the protected page.
      if (kind == 0)
        __asm__ volatile("mov %[p], %%rsi\n xor %%eax, %%eax\n 1: mov (%%rsi), %%rdx\n add $1, %%rax\n add $8, %%rsi\n jmp 1b\n"
                         : : [p] "r"(p) : "rsi", "rax", "rdx", "cc", "memory");
      else if (kind == 1)
        __asm__ volatile("mov %[p], %%rsi\n xor %%eax, %%eax\n 1: mov %%rax, (%%rsi)\n add $1, %%rax\n add $8, %%rsi\n jmp 1b\n"
                         : : [p] "r"(p) : "rsi", "rax", "cc", "memory");
      else if (kind == 2)
        __asm__ volatile("mov %[p], %%rsi\n xor %%eax, %%eax\n 1: movsd (%%rsi), %%xmm0\n add $1, %%rax\n add $8, %%rsi\n jmp 1b\n"
                         : : [p] "r"(p) : "rsi", "rax", "xmm0", "cc", "memory");
      else
        __asm__ volatile("mov %[p], %%rsi\n xor %%eax, %%eax\n 1: movups %%xmm0, (%%rsi)\n add $1, %%rax\n add $4, %%rsi\n jmp 1b\n"
                         : : [p] "r"(p) : "rsi", "rax", "xmm0", "cc", "memory");
      printf("%s: no fault %llu\n", kinds[kind], (unsigned long long)n);
    } else {
      printf("%s fault: rsi page+%lld rax %llu\n", kinds[kind], (long long)(seen_rsi - (uint64_t)page),
             (unsigned long long)seen_rax);
    }
  }
  return 0;
}
