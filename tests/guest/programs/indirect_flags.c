// Flags live across an indirect jump: the last flag writer before
// `jmp reg` or `jmp [mem]` (add, sub, cmp, and, or, xor, test, inc, dec,
// neg in every width, register, immediate and memory operands), read by
// the target with pushf, lahf/seto, setcc or jcc.  Also the cases where a
// lazily kept record must not be used: a target that overwrites the flags
// and jumps on indirectly with flags from a shift, a target that passes
// the flags through to another indirect jump, and a direct jump between.
// Each function runs for many operand pairs, so the first run goes through
// phybin's dispatcher and the later ones through its indirect-branch table.
#include <stdint.h>
#include <stdio.h>

#define STATUS 0x8d5ull   // CF PF AF ZF SF OF
#define NO_AF 0x8c5ull    // logic ops and shifts leave AF undefined

// uint64_t name(uint64_t a, uint64_t b): rax = a, rsi = b, `insn` sets the
// flags (b also at -16(%rsp), in the red zone), `jump` goes to label 1
// (its address in rcx and at -8(%rsp)), where pushf returns RFLAGS.
#define LAZY(name, setup, insn, jump)                                              \
  uint64_t name(uint64_t, uint64_t);                                               \
  __asm__(".text\n.globl " #name "\n" #name ":\n" setup "\n"                       \
          " mov %rdi, %rax\n lea 1f(%rip), %rcx\n mov %rcx, -8(%rsp)\n"            \
          " mov %rsi, -16(%rsp)\n"                                                   \
          insn "\n" jump "\n"                                                      \
          "1: pushfq\n pop %rax\n ret\n");

LAZY(add64_reg, "", "addq %rsi, %rax", "jmp *%rcx")
LAZY(add32_mem, "", "addl -16(%rsp), %eax", "jmp *-8(%rsp)")
LAZY(add16_reg, "", "addw %si, %ax", "jmp *%rcx")
LAZY(add8_imm, "", "addb $0x7f, %al", "jmp *%rcx")
LAZY(sub64_reg, "", "subq %rsi, %rax", "jmp *-8(%rsp)")
LAZY(sub32_imm, "", "subl $1, %eax", "jmp *%rcx")
LAZY(sub8_reg, "", "subb %sil, %al", "jmp *%rcx")
LAZY(cmp64_mem, "", "cmpq -16(%rsp), %rax", "jmp *%rcx")
LAZY(cmp16_imm, "", "cmpw $0x8000, %ax", "jmp *-8(%rsp)")
LAZY(cmp8_reg, "", "cmpb %sil, %al", "jmp *%rcx")
LAZY(and64_reg, "", "andq %rsi, %rax", "jmp *%rcx")
LAZY(or32_reg, "", "orl %esi, %eax", "jmp *-8(%rsp)")
LAZY(xor8_imm, "", "xorb $0x81, %al", "jmp *%rcx")
LAZY(test64_reg, "", "testq %rsi, %rax", "jmp *%rcx")
LAZY(test16_imm, "", "testw $0x8001, %ax", "jmp *%rcx")
LAZY(inc32_stc, "stc", "incl %eax", "jmp *%rcx")
LAZY(inc8_clc, "clc", "incb %al", "jmp *-8(%rsp)")
LAZY(dec64_stc, "stc", "decq %rax", "jmp *%rcx")
LAZY(dec16_clc, "clc", "decw %ax", "jmp *%rcx")
LAZY(neg64, "", "negq %rax", "jmp *%rcx")
LAZY(neg8, "", "negb %al", "jmp *-8(%rsp)")

// The target reads the flags with lahf and seto: AH = SF ZF - AF - PF - CF,
// AL = OF.
uint64_t sub_lahf(uint64_t, uint64_t);
__asm__(".text\n.globl sub_lahf\nsub_lahf:\n mov %rdi, %rax\n lea 1f(%rip), %rcx\n"
        " subq %rsi, %rax\n jmp *%rcx\n"
        "1: lahf\n seto %al\n movzwl %ax, %eax\n ret\n");

// The target branches on CF (jb) and on ZF|SF (jle).
uint64_t cmp_jcc(uint64_t, uint64_t);
__asm__(".text\n.globl cmp_jcc\ncmp_jcc:\n lea 1f(%rip), %rcx\n xor %eax, %eax\n"
        " cmpq %rsi, %rdi\n jmp *%rcx\n"
        "1: jb 2f\n 3: jle 4f\n ret\n"
        "2: or $1, %eax\n jmp 3b\n"
        "4: or $2, %eax\n ret\n");

// A target that writes the flags itself (cmp), then shifts and jumps on
// indirectly: the final reader sees the shift's flags, not the first add's.
uint64_t stale_after_shift(uint64_t, uint64_t);
__asm__(".text\n.globl stale_after_shift\nstale_after_shift:\n mov %rdi, %rax\n"
        " lea 1f(%rip), %rcx\n lea 2f(%rip), %r8\n addq %rsi, %rax\n jmp *%rcx\n"
        "1: cmpq %rdi, %rsi\n shlq $1, %rax\n jmp *%r8\n"
        "2: pushfq\n pop %rax\n ret\n");

// A target that touches no flags passes them on to a second indirect jump.
uint64_t pass_through(uint64_t, uint64_t);
__asm__(".text\n.globl pass_through\npass_through:\n mov %rdi, %rax\n"
        " lea 1f(%rip), %rcx\n lea 2f(%rip), %r8\n subq %rsi, %rax\n jmp *%rcx\n"
        "1: mov %rax, %rdx\n jmp *%r8\n"
        "2: pushfq\n pop %rax\n ret\n");

// The target jumps directly to the reader.
uint64_t then_direct(uint64_t, uint64_t);
__asm__(".text\n.globl then_direct\nthen_direct:\n mov %rdi, %rax\n"
        " lea 1f(%rip), %rcx\n xorq %rsi, %rax\n jmp *%rcx\n"
        "1: mov %rax, %rdx\n jmp 2f\n nop\n"
        "2: pushfq\n pop %rax\n ret\n");

struct test {
  const char *name;
  uint64_t (*fn)(uint64_t, uint64_t);
  uint64_t mask;
};

static const struct test kTests[] = {
    {"add64_reg", add64_reg, STATUS},   {"add32_mem", add32_mem, STATUS},   {"add16_reg", add16_reg, STATUS},
    {"add8_imm", add8_imm, STATUS},     {"sub64_reg", sub64_reg, STATUS},   {"sub32_imm", sub32_imm, STATUS},
    {"sub8_reg", sub8_reg, STATUS},     {"cmp64_mem", cmp64_mem, STATUS},   {"cmp16_imm", cmp16_imm, STATUS},
    {"cmp8_reg", cmp8_reg, STATUS},     {"and64_reg", and64_reg, NO_AF},    {"or32_reg", or32_reg, NO_AF},
    {"xor8_imm", xor8_imm, NO_AF},      {"test64_reg", test64_reg, NO_AF},  {"test16_imm", test16_imm, NO_AF},
    {"inc32_stc", inc32_stc, STATUS},   {"inc8_clc", inc8_clc, STATUS},     {"dec64_stc", dec64_stc, STATUS},
    {"dec16_clc", dec16_clc, STATUS},   {"neg64", neg64, STATUS},           {"neg8", neg8, STATUS},
    {"sub_lahf", sub_lahf, 0xd5ff},     {"cmp_jcc", cmp_jcc, 3},            {"stale_after_shift", stale_after_shift, NO_AF},
    {"pass_through", pass_through, STATUS}, {"then_direct", then_direct, NO_AF},
};

static const uint64_t kValues[] = {0, 1, 2, 0x0f, 0x10, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff,
                                   0x80000000, 0xffffffff, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                   0xffffffffffffffffull, 0x123456789abcdef0ull};

int main(void) {
  const size_t n = sizeof kValues / sizeof kValues[0];
  for (size_t t = 0; t < sizeof kTests / sizeof kTests[0]; ++t) {
    printf("%s:", kTests[t].name);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; j += 3) printf(" %llx", (unsigned long long)(kTests[t].fn(kValues[i], kValues[j]) & kTests[t].mask));
    printf("\n");
  }
  return 0;
}
