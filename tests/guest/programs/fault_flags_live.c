// Flags the code reads after a faulting instruction are those of the CPU
// when a SIGSEGV handler repairs the fault and returns: the instruction
// runs again and the code goes on with the flags it had computed before.
// (A handler that only looks sees such flags exact too; flags overwritten
// unread are exact only with PHYBIN_STRICT_FLAGS, see fault_flags.c.)
// Every case writes flags, then loads from (or stores to) a page the
// handler makes accessible, then reads the flags: all of them (pushf), or
// one (setc, setz, seto, adc).  Writers of every class: those the fault
// path redoes (add, logic, shifts, imul), those it cannot (adc, sbb, bt,
// bsf, popcnt) and a writer whose memory input a store overwrote.
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static uint8_t *page;  // PROT_NONE before each case
static volatile int faults;
__attribute__((used)) uint64_t slot, other;

static void on_fault(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  (void)ctx;
  if ((uint8_t *)si->si_addr < page || (uint8_t *)si->si_addr >= page + 4096) _exit(3);
  ++faults;
  mprotect(page, 4096, PROT_READ | PROT_WRITE);
}

// Runs `body` (which faults once at page) with x = a, y = b; prints the
// flags in `mask` from pushf (or the byte the body leaves in z).
#define CASE(name, mask, body)                                                              \
  static void name(uint64_t a, uint64_t b) {                                               \
    uint64_t x = a, y = b, z = 0, fl = 0;                                                  \
    mprotect(page, 4096, PROT_NONE);                                                       \
    const int before = faults;                                                             \
    __asm__ volatile(body                                                                  \
                     : "+r"(x), "+r"(y), "+r"(z), "=&r"(fl)                                \
                     : "r"(page)                                                           \
                     : "cc", "memory", "rax", "rcx");                                      \
    printf("  %-18s faults %d, x %016llx, z %02llx, flags %03llx\n", #name, faults - before, \
           (unsigned long long)x, (unsigned long long)z, (unsigned long long)(fl & (mask))); \
  }
#define LOAD " movq (%4), %%rax\n"
#define STORE " movq %%rcx, 8(%4)\n"
#define ALL " pushfq\n popq %3\n"

// Masks: CF PF AF ZF SF OF = 0x8d5; logic ops leave AF undefined.
CASE(add_load_pushf, 0x8d5, "add %1, %0\n" LOAD ALL)
CASE(sub_store_pushf, 0x8d5, "sub %1, %0\n mov %0, %%rcx\n" STORE ALL)
CASE(and_load_setz, 0, "and %1, %0\n" LOAD " setz %b2\n")
CASE(adc_load_pushf, 0x8d5, "stc\n adc %1, %0\n" LOAD ALL)
CASE(sbb_load_setc, 0, "clc\n sbb %1, %0\n" LOAD " setc %b2\n")
CASE(sbb_self_load_pushf, 0x8d5, "cmp %1, %0\n sbb %0, %0\n" LOAD ALL)
CASE(bt_load_setc, 0, "bt $3, %1\n" LOAD " setc %b2\n")
CASE(bsf_load_setz, 0, "bsf %1, %0\n" LOAD " setz %b2\n")
CASE(popcnt_load_pushf, 0x8d5, "popcnt %1, %0\n" LOAD ALL)
CASE(shl_load_setc, 0, "shl $7, %0\n" LOAD " setc %b2\n")
CASE(sar1_load_seto, 0, "sar $1, %0\n" LOAD " seto %b2\n")
CASE(imul_load_setc, 0, "imul %1, %0\n" LOAD " setc %b2\n")
CASE(add_mem_then_store_pushf, 0x8d5,
     "mov %0, slot(%%rip)\n add %1, slot(%%rip)\n movq $7, slot(%%rip)\n" LOAD ALL)
CASE(inc_load_adc, 0, "add %1, %0\n inc %1\n" LOAD " adc $0, %2\n")
CASE(sub_load_jcc, 0, "sub %1, %0\n" LOAD " jbe 1f\n mov $1, %2\n 1:\n")

int main(void) {
  page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  static const uint64_t inputs[][2] = {
      {1, 2},
      {0x7fffffffffffffffull, 1},
      {0x8000000000000000ull, 0x8000000000000000ull},
      {0xff, 0xff},
      {0, 0x10},
      {0x0123456789abcdefull, 0xfedcba9876543210ull},
      {5, 0},
  };
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; ++i) {
    const uint64_t a = inputs[i][0], b = inputs[i][1];
    printf("a %016llx b %016llx\n", (unsigned long long)a, (unsigned long long)b);
    add_load_pushf(a, b);
    sub_store_pushf(a, b);
    and_load_setz(a, b);
    adc_load_pushf(a, b);
    sbb_load_setc(a, b);
    sbb_self_load_pushf(a, b);
    bt_load_setc(a, b);
    if (b != 0) bsf_load_setz(a, b);  // bsf's destination is undefined for 0
    popcnt_load_pushf(a, b);
    shl_load_setc(a, b);
    sar1_load_seto(a, b);
    imul_load_setc(a, b);
    add_mem_then_store_pushf(a, b);
    inc_load_adc(a, b);
    sub_load_jcc(a, b);
  }
  printf("faults %d\n", faults);
  return 0;
}
