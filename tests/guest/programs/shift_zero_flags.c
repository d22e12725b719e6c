// A shift or rotate whose count is zero at run time (in CL, or an
// immediate that masks to zero) changes no flag: every flag stays as the
// instruction before left it, also when that instruction is in the same
// block and overwrote older flags.  Every shift and rotate (shl, sal, shr,
// sar, rol, ror, rcl, rcr), shld and shrd, in every operand size, in
// registers and memory; the flags before come from add (all six), from inc
// over an older add's CF, and from popf (all six set, and none).  The
// flags are read back by setcc on each and by pushf, in the same block,
// after a direct jump and past an indirect one.
#include <stdint.h>
#include <stdio.h>

#define ARITH 0x8d5ull

// The count: 0, loaded from memory so that no translator can see it.
static volatile uint64_t zero = 0;

// Flags left by `prefix`, then OP with CL = 0 (or with the immediate),
// read by pushf, and by setc/setz/sets/seto/setp into a bit mask.
#define CASE_VIA(prefix, op, via)                                                          \
  do {                                                                                     \
    uint64_t flags, mem = 0x8000000000000001ull, d = 0x8000000000000001ull;                \
    uint8_t c, z, s, o, p;                                                                 \
    __asm__ volatile(prefix "\n\t"                                                         \
                     "mov %[zero], %%rcx\n\t"                                              \
                     op "\n\t"                                                             \
                     via "\n\t"                                                            \
                     "setc %[c]\n\t"                                                       \
                     "setz %[z]\n\t"                                                       \
                     "sets %[s]\n\t"                                                       \
                     "seto %[o]\n\t"                                                       \
                     "setp %[p]\n\t"                                                       \
                     "pushf\n\t"                                                           \
                     "pop %[f]"                                                            \
                     : [f] "=&r"(flags), [c] "=m"(c), [z] "=m"(z), [s] "=m"(s), [o] "=m"(o), \
                       [p] "=m"(p), [m] "+m"(mem), [d] "+r"(d)                             \
                     : [zero] "m"(zero)                                                    \
                     : "rax", "rcx", "rdx", "r8", "cc");                                   \
    printf("%-30s after %-12s %-8s flags %#05llx setcc %d%d%d%d%d  d %#llx m %#llx\n", op,   \
           #prefix, #via, (unsigned long long)(flags & ARITH), c, z, s, o, p,              \
           (unsigned long long)d, (unsigned long long)mem);                                \
  } while (0)

// Read where the shift is, after a direct jump, and past an indirect jump
// (across which a block keeps the flags it computes).
#define DIRECT "jmp 1f\n1:"
#define INDIRECT "lea 1f(%%rip), %%r8\n\tjmp *%%r8\n1:"
#define CASE(prefix, op)            \
  do {                              \
    CASE_VIA(prefix, op, "");       \
    CASE_VIA(prefix, op, DIRECT);   \
    CASE_VIA(prefix, op, INDIRECT); \
  } while (0)

#define ALL_FLAGS "push $0x8d7\n\tpopf"
#define NO_FLAGS "push $0x2\n\tpopf"
#define ADD_ALL "mov $0x80, %%al\n\tadd %%al, %%al"      /* CF ZF PF OF, SF AF clear */
#define INC_OVER_ADD "mov $-1, %%eax\n\tadd $2, %%eax\n\tmov $0x7f, %%dl\n\tinc %%dl" /* CF from add; OF SF AF from inc */

#define FOR_PREFIXES(op)      \
  CASE(ALL_FLAGS, op);        \
  CASE(NO_FLAGS, op);         \
  CASE(ADD_ALL, op);          \
  CASE(INC_OVER_ADD, op)

#define SIZES(mn)                     \
  FOR_PREFIXES(mn "b %%cl, %b[d]");   \
  FOR_PREFIXES(mn "w %%cl, %w[d]");   \
  FOR_PREFIXES(mn "l %%cl, %k[d]");   \
  FOR_PREFIXES(mn "q %%cl, %q[d]");   \
  FOR_PREFIXES(mn "q %%cl, %[m]");    \
  FOR_PREFIXES(mn "b %%cl, %[m]")

int main(void) {
  SIZES("shl");
  SIZES("sal");
  SIZES("shr");
  SIZES("sar");
  SIZES("rol");
  SIZES("ror");
  SIZES("rcl");
  SIZES("rcr");
  // Counts that mask to zero: 32 for 8/16/32-bit operands, 64 for 64-bit.
  FOR_PREFIXES("mov $32, %%cl\n\tshll %%cl, %k[d]");
  FOR_PREFIXES("mov $64, %%cl\n\tshlq %%cl, %q[d]");
  FOR_PREFIXES("mov $32, %%cl\n\trolb %%cl, %b[d]");
  FOR_PREFIXES("shlq $64, %q[d]");
  FOR_PREFIXES("rorl $32, %k[d]");
  FOR_PREFIXES("shldw %%cl, %w[d], %%dx");
  FOR_PREFIXES("shldl %%cl, %k[d], %%edx");
  FOR_PREFIXES("shldq %%cl, %q[d], %%rdx");
  FOR_PREFIXES("shrdw %%cl, %w[d], %%dx");
  FOR_PREFIXES("shrdl %%cl, %k[d], %%edx");
  FOR_PREFIXES("shrdq %%cl, %q[d], %[m]");
  FOR_PREFIXES("shldq $0, %q[d], %%rdx");
  FOR_PREFIXES("shrdl $32, %k[d], %%edx");
  return 0;
}
