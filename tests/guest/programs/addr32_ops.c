// The address-size prefix (0x67) in 64-bit code: string instructions with
// and without rep step ESI/EDI/ECX and wrap at 4 GiB, loop/loope/loopne
// count in ECX, jecxz tests ECX, xlat reads [EBX + AL]; every register the
// instruction writes is checked whole (upper halves included).  Buffers
// come from MAP_32BIT, so their addresses fit in 32 bits in every build.
// With ECX 0 the upper halves are the vendor's choice (a model line).
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "guest_common.h"

#define HI 0xdead000000000000ull  // upper bits the 32-bit forms must clear

static unsigned char *buf;
// Set while a case runs whose registers the vendors leave differently: a
// rep string instruction with the 0x67 prefix and ECX 0 does nothing, and
// Intel CPUs still clear the upper halves of RCX/RSI/RDI, AMD ones do not.
static int vendor_case;

static void show(const char *what, uint64_t rsi, uint64_t rdi, uint64_t rcx, uint64_t rax, uint64_t fl) {
  // Addresses as upper half and offset from the buffer in the lower half,
  // so every build prints the same.
  const uint32_t b = (uint32_t)(uintptr_t)buf;
  printf("%s%-22s rsi %08" PRIx64 ":%+d rdi %08" PRIx64 ":%+d rcx %016" PRIx64 " rax %016" PRIx64 " fl %03" PRIx64 " sum %08" PRIx64 "\n",
         model_if(vendor_case), what, rsi >> 32, (int)((uint32_t)rsi - b), rdi >> 32, (int)((uint32_t)rdi - b), rcx, rax,
         fl & 0x8d5, fnv1a(FNV_INIT, buf, 256) & 0xffffffff);
}

// One string instruction with the given RSI/RDI/RCX/RAX and DF.
#define STRING(name, insn, df)                                                                        \
  static void name(uint64_t si, uint64_t di, uint64_t cx) {                                           \
    uint64_t rsi = si, rdi = di, rcx = cx, rax = HI | 0x41, fl;                                       \
    __asm__ volatile("pushq $0x202\n popfq\n" df "\n" insn "\n pushfq\n popq %4\n cld"                                         \
                     : "+S"(rsi), "+D"(rdi), "+c"(rcx), "+a"(rax), "=r"(fl) : : "memory", "cc");      \
    show(#name, rsi, rdi, rcx, rax, fl);                                                              \
  }
STRING(movsb_a32, "addr32 movsb", "cld")
STRING(rep_movsb_a32, "addr32 rep movsb", "cld")
STRING(rep_movsd_a32_back, "addr32 rep movsl", "std")
STRING(rep_stosq_a32, "addr32 rep stosq", "cld")
STRING(lodsw_a32, "addr32 lodsw", "cld")
STRING(rep_lodsb_a32, "addr32 rep lodsb", "cld")
STRING(repe_cmpsb_a32, "addr32 repe cmpsb", "cld")
STRING(repne_scasb_a32, "addr32 repne scasb", "cld")
STRING(scasw_a32, "addr32 scasw", "cld")
STRING(rep_movsb_a64, "rep movsb", "cld")

static void loops(void) {
  uint64_t rcx, n;
  rcx = HI | 5, n = 0;
  __asm__ volatile("1: inc %1\n addr32 loop 1b" : "+c"(rcx), "+r"(n) : : "cc");
  printf("addr32 loop: rcx %016" PRIx64 " iterations %" PRIu64 "\n", rcx, n);
  rcx = HI | 0, n = 0;  // ECX 0: wraps to 0xffffffff, so stop after 3 with loope
  __asm__ volatile("1: inc %1\n cmp $3, %1\n addr32 loopne 1b" : "+c"(rcx), "+r"(n) : : "cc");
  printf("addr32 loopne: rcx %016" PRIx64 " iterations %" PRIu64 "\n", rcx, n);
  rcx = HI | 9, n = 0;
  __asm__ volatile("1: inc %1\n cmp %1, %1\n addr32 loope 1b" : "+c"(rcx), "+r"(n) : : "cc");
  printf("addr32 loope: rcx %016" PRIx64 " iterations %" PRIu64 "\n", rcx, n);
  for (int k = 0; k < 3; k++) {
    const uint64_t values[3] = {HI, 0x100000000ull, 1};
    uint64_t taken = 0;
    rcx = values[k];
    __asm__ volatile("jecxz 1f\n jmp 2f\n 1: mov $1, %1\n 2:" : "+c"(rcx), "+r"(taken));
    uint64_t taken64 = 0;
    __asm__ volatile("jrcxz 1f\n jmp 2f\n 1: mov $1, %1\n 2:" : "+c"(rcx), "+r"(taken64));
    printf("jecxz %016" PRIx64 ": %" PRIu64 ", jrcxz: %" PRIu64 "\n", rcx, taken, taken64);
  }
}

static void xlats(void) {
  for (int i = 0; i < 256; i++) buf[i] = (unsigned char)(i * 7 + 3);
  uint64_t rax = HI | 0x1234f0, rbx = (uintptr_t)buf;
  __asm__ volatile("xlat" : "+a"(rax) : "b"(rbx) : "memory");
  printf("xlat: rax %016" PRIx64 "\n", rax);
  rax = 0x77, rbx = HI | (uintptr_t)buf;  // upper bits of RBX dropped by 0x67
  __asm__ volatile("addr32 xlat" : "+a"(rax) : "b"(rbx) : "memory");
  printf("addr32 xlat: rax %016" PRIx64 "\n", rax);
}

int main(void) {
  buf = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (buf == MAP_FAILED) return 1;
  const uint64_t b = (uintptr_t)buf;
  for (int i = 0; i < 256; i++) buf[i] = (unsigned char)i;
  movsb_a32(HI | (b + 10), HI | (b + 100), HI | 77);
  rep_movsb_a32(HI | (b + 10), HI | (b + 100), HI | 20);
  rep_movsd_a32_back(HI | (b + 60), HI | (b + 160), HI | 8);
  rep_stosq_a32(HI | b, HI | (b + 128), HI | 4);
  lodsw_a32(HI | (b + 4), HI | b, HI | 3);
  rep_lodsb_a32(HI | (b + 4), HI | b, HI | 3);
  memset(buf + 200, 'x', 8);
  buf[205] = 'y';
  repe_cmpsb_a32(HI | (b + 200), HI | (b + 200), HI | 8);
  buf[30] = 0x41;
  repne_scasb_a32(HI | b, HI | (b + 16), HI | 100);
  scasw_a32(HI | b, HI | (b + 16), 5);
  vendor_case = 1;
  rep_stosq_a32(HI | b, HI | (b + 64), HI | 0);  // ECX 0: nothing is stored
  vendor_case = 0;
  rep_movsb_a64(b + 1, b + 2, 30);
  loops();
  xlats();
  return 0;
}
