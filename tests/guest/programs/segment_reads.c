// Reading segment registers in a 64-bit process: mov from CS, SS, DS, ES,
// FS and GS into 16-, 32- and 64-bit registers (a word register keeps its
// upper bits, wider ones get the selector zero-extended) and into memory
// (one word), and push fs / push gs with and without the operand-size
// prefix (how far RSP moves, what lands on the stack).
#include <inttypes.h>
#include <stdio.h>

#define FILL 0xdeadbeefcafef00dull

#define READS(seg)                                                                              \
  static void read_##seg(void) {                                                                \
    uint64_t r16 = FILL, r32 = FILL, r64 = FILL, mem = FILL;                                    \
    __asm__("movw %%" #seg ", %w0" : "+r"(r16));                                                \
    __asm__("movl %%" #seg ", %k0" : "+r"(r32));                                                \
    __asm__("movq %%" #seg ", %0" : "+r"(r64));                                                 \
    __asm__("movw %%" #seg ", %0" : "+m"(mem));                                                 \
    printf("%s: r16 %016" PRIx64 " r32 %016" PRIx64 " r64 %016" PRIx64 " m16 %016" PRIx64 "\n", \
           #seg, r16, r32, r64, mem);                                                           \
  }
READS(cs)
READS(ss)
READS(ds)
READS(es)
READS(fs)
READS(gs)

#define PUSHES(seg)                                                                                \
  static void push_##seg(void) {                                                                   \
    uint64_t before, after, word, quad;                                                            \
    __asm__ volatile("movq $-1, -16(%%rsp)\n mov %%rsp, %0\n pushw %%" #seg "\n mov %%rsp, %1\n"   \
                     " movzwq (%%rsp), %2\n add $2, %%rsp"                                         \
                     : "=&r"(before), "=&r"(after), "=&r"(word) : : "memory");                     \
    printf("pushw %s: rsp -%" PRIu64 ", word %04" PRIx64 "\n", #seg, before - after, word);        \
    __asm__ volatile("movq $-1, -16(%%rsp)\n mov %%rsp, %0\n pushq %%" #seg "\n mov %%rsp, %1\n"   \
                     " movq (%%rsp), %2\n add $8, %%rsp"                                           \
                     : "=&r"(before), "=&r"(after), "=&r"(quad) : : "memory");                     \
    printf("pushq %s: rsp -%" PRIu64 ", quad %016" PRIx64 "\n", #seg, before - after, quad);       \
  }
PUSHES(fs)
PUSHES(gs)

int main(void) {
  read_cs(), read_ss(), read_ds(), read_es(), read_fs(), read_gs();
  push_fs(), push_gs();
  return 0;
}
