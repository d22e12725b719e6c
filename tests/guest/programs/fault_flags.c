// The RFLAGS a SIGSEGV or SIGFPE handler finds in its context are those
// at the faulting instruction, also where the code after it overwrites
// them before reading (the translator may leave such flags uncomputed):
// an arithmetic op, then a faulting load, store or divide, then a compare
// that sets every flag again.  Every class of flag writer: those the fault
// path redoes from the registers (add, logic, inc/dec, rotates, one- and
// three-operand multiplies, memory operands), those whose input the
// translation saves first (shifts' CF and OF, imul r, r/m, add r, r, an
// input overwritten before the fault, imul r, r, imm on itself), a shift
// by CL of 0 (the flags of the writer before), and those whose flags the
// translation keeps computed (adc, bt, bsf, popcnt).  The handler prints
// the status flags of its context that the manuals define for the case
// and skips the faulting instruction.  Run with PHYBIN_STRICT_FLAGS=1
// (fault_flags.env): the default keeps exact only what fault_flags_live.c
// checks, and a writer in an earlier block is exact only in strict mode.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static sigjmp_buf back;
__attribute__((used)) uint64_t mem_slot;  // the memory operand of the *_mem cases
static volatile uint64_t seen, defined;  // the flags the op before the fault defines
static const char *volatile current;     // the case

static void on_fault(int sig, siginfo_t *si, void *ctx) {
  (void)si;
  seen = ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] & defined;
  printf("  %-22s signal %d, flags %03llx\n", current, sig, (unsigned long long)seen);
  siglongjmp(back, 1);
}

#define CASE(name, mask, setup, fault)                                                  \
  static void name(uint64_t a, uint64_t b) {                                           \
    volatile uint64_t out = 0;                                                         \
    defined = mask;                                                                    \
    current = #name;                                                                   \
    if (sigsetjmp(back, 1) == 0) {                                                     \
      uint64_t x = a, y = b, z = 0;                                                    \
      __asm__ volatile(setup "\n" fault "\n cmp %1, %0\n setne %b2"                    \
                       : "+r"(x), "+r"(y), "+r"(z) : : "cc", "memory", "rax", "rcx", "rdx"); \
      out = x + y + z;                                                                 \
    }                                                                                  \
    (void)out;                                                                         \
  }
// Masks: CF PF AF ZF SF OF = 0x8d5; logic ops leave AF undefined, shifts
// by more than 1 AF and OF.
CASE(add_then_load, 0x8d5, "add %1, %0", "movq 0, %%rax")
CASE(sub_then_store, 0x8d5, "sub %1, %0", "movq %%rax, 8")
CASE(xor_then_load, 0x8c5, "xor %1, %0", "movl 16, %%eax")
CASE(add_then_div, 0x8d5, "xor %%edx, %%edx\n xor %%eax, %%eax\n add %1, %0", "divq %2")
CASE(neg_then_load, 0x8d5, "neg %0", "addq 24, %%rax")
// inc/dec keep CF, which comes from code before the case: not compared.
CASE(inc_then_load, 0x8d4, "inc %0", "movq 0, %%rax")
CASE(dec_then_store, 0x8d4, "decl %k0", "movq %%rax, 8")
CASE(rol_then_load, 0x001, "rol $3, %0", "movq 0, %%rax")
CASE(ror1_then_load, 0x801, "ror $1, %0", "movq 0, %%rax")
CASE(shl_then_load, 0x0c4, "shl $5, %0", "movq 0, %%rax")
CASE(sar1_then_load, 0x8c4, "sar $1, %0", "movq 0, %%rax")
CASE(mul_then_load, 0x801, "mov %0, %%rax\n mulq %1", "movl 16, %%eax")
CASE(imul3_then_load, 0x801, "imul $1000003, %1, %0", "movq 0, %%rax")
CASE(add_mem_src, 0x8d5, "mov %1, mem_slot(%%rip)\n add mem_slot(%%rip), %0", "movq 0, %%rax")
CASE(add_mem_dst, 0x8d5, "mov %1, mem_slot(%%rip)\n add %0, mem_slot(%%rip)", "movq 0, %%rax")
CASE(cmp_mem_imm, 0x8d5, "mov %1, mem_slot(%%rip)\n cmpq $77, mem_slot(%%rip)", "movq 0, %%rax")
CASE(test_mem_reg, 0x8c5, "mov %1, mem_slot(%%rip)\n test %0, mem_slot(%%rip)", "movq 0, %%rax")
// Redone from a saved input.
CASE(shl_cf_then_load, 0x0c5, "shl $5, %0", "movq 0, %%rax")
CASE(shr1_then_store, 0x8c5, "shrl $1, %k0", "movq %%rax, 8")
CASE(sar_then_load, 0x0c5, "sarw $3, %w0", "movq 0, %%rax")
CASE(shl_cl_then_load, 0x0c5, "mov %k1, %%ecx\n or $1, %%ecx\n shl %%cl, %0", "movq 0, %%rax")
CASE(imul2_then_store, 0x801, "imul %1, %0", "movq %%rax, 8")
CASE(imul2_mem_then_load, 0x801, "mov %1, mem_slot(%%rip)\n imull mem_slot(%%rip), %k0", "movq 0, %%rax")
CASE(imul3_self_then_load, 0x801, "imul $1000003, %0, %0", "movq 0, %%rax")
CASE(add_self_then_load, 0x8d5, "add %0, %0", "movq 0, %%rax")
CASE(add_input_overwritten, 0x8d5, "add %1, %0\n mov $5, %1", "movq 0, %%rax")
CASE(sub_result_overwritten, 0x8d5, "sub %1, %0\n lea 3(%1), %0", "movq 0, %%rax")
// A shift by CL = 0 keeps the compare's flags; by more, its own.
CASE(shr_cl_after_cmp, 0x0c5, "mov %0, %%rdx\n mov %k1, %%ecx\n and $7, %%ecx\n cmp %1, %0\n shr %%cl, %%rdx",
     "movq 0, %%rax")
// The writer in an earlier block (PHYBIN_STRICT_FLAGS, fault_flags.env):
// past a direct jump, a conditional branch, an indirect jump, and a shift
// by CL of 0 before a jump.
CASE(add_jmp_then_load, 0x8d5, "add %1, %0\n jmp 1f\n .skip 5, 0x90\n 1:", "movq 0, %%rax")
CASE(sub_jcc_then_store, 0x8d5, "sub %1, %0\n jne 1f\n nop\n 1:", "movq %%rax, 8")
CASE(add_jmp_reg_then_load, 0x8d5, "lea 1f(%%rip), %%rcx\n add %1, %0\n jmp *%%rcx\n 1:", "movq 0, %%rax")
CASE(add_shl0_jmp_then_load, 0x8d5, "xor %%ecx, %%ecx\n add %1, %0\n shl %%cl, %%rdx\n jmp 1f\n 1:",
     "movq 0, %%rax")
// Kept computed.
CASE(adc_then_load, 0x8d5, "stc\n adc %1, %0", "movq 0, %%rax")
CASE(sbb_then_store, 0x8d5, "cmp %0, %1\n sbb %1, %0", "movq %%rax, 8")
CASE(bt_then_load, 0x001, "bt %1, %0", "movq 0, %%rax")
CASE(bsf_then_load, 0x040, "bsf %1, %0", "movq 0, %%rax")
CASE(popcnt_then_load, 0x8d5, "popcnt %1, %0", "movq 0, %%rax")

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
  const uint64_t vals[][2] = {{1, 2}, {0, 0}, {0x7fffffffffffffff, 1}, {0x8000000000000000, 0x8000000000000000},
                              {0xff, 1}, {5, 5}, {0xffffffff, 0x80000001}, {0x0f0f0f0f0f0f0f0f, 77},
                              {0xfffffffffffffffe, 3}};
  for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    printf("a %016llx b %016llx\n", (unsigned long long)vals[i][0], (unsigned long long)vals[i][1]);
    add_then_load(vals[i][0], vals[i][1]);
    sub_then_store(vals[i][0], vals[i][1]);
    xor_then_load(vals[i][0], vals[i][1]);
    add_then_div(vals[i][0], vals[i][1]);
    neg_then_load(vals[i][0], vals[i][1]);
    inc_then_load(vals[i][0], vals[i][1]);
    dec_then_store(vals[i][0], vals[i][1]);
    rol_then_load(vals[i][0], vals[i][1]);
    ror1_then_load(vals[i][0], vals[i][1]);
    shl_then_load(vals[i][0], vals[i][1]);
    sar1_then_load(vals[i][0], vals[i][1]);
    mul_then_load(vals[i][0], vals[i][1]);
    imul3_then_load(vals[i][0], vals[i][1]);
    add_mem_src(vals[i][0], vals[i][1]);
    add_mem_dst(vals[i][0], vals[i][1]);
    cmp_mem_imm(vals[i][0], vals[i][1]);
    test_mem_reg(vals[i][0], vals[i][1]);
    shl_cf_then_load(vals[i][0], vals[i][1]);
    shr1_then_store(vals[i][0], vals[i][1]);
    sar_then_load(vals[i][0], vals[i][1]);
    shl_cl_then_load(vals[i][0], vals[i][1]);
    imul2_then_store(vals[i][0], vals[i][1]);
    imul2_mem_then_load(vals[i][0], vals[i][1]);
    imul3_self_then_load(vals[i][0], vals[i][1]);
    add_self_then_load(vals[i][0], vals[i][1]);
    add_input_overwritten(vals[i][0], vals[i][1]);
    sub_result_overwritten(vals[i][0], vals[i][1]);
    shr_cl_after_cmp(vals[i][0], vals[i][1]);
    add_jmp_then_load(vals[i][0], vals[i][1]);
    sub_jcc_then_store(vals[i][0], vals[i][1]);
    add_jmp_reg_then_load(vals[i][0], vals[i][1]);
    add_shl0_jmp_then_load(vals[i][0], vals[i][1]);
    adc_then_load(vals[i][0], vals[i][1]);
    sbb_then_store(vals[i][0], vals[i][1]);
    bt_then_load(vals[i][0], vals[i][1]);
    bsf_then_load(vals[i][0], vals[i][1]);
    popcnt_then_load(vals[i][0], vals[i][1]);
  }
  return 0;
}
