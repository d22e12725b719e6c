// The rare base-integer instructions: 16-bit shld/shrd (imm and CL, register
// and memory destinations, every count 0..63), enter at nesting levels 0..31
// and beyond (the level is taken modulo 32), 16-bit push/pop of registers,
// memory and immediates, pushfw/popfw.  Results and flags are printed, so
// the run under phybin must match the CPU's.  Of shld/shrd only what the
// SDM and the APM define is compared with the native run; the masked
// counts 17..31, where both leave the result and the flags undefined and
// AMD differs from Intel, go on model lines (see guest_common.h).
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define FLAG_BITS 0x8d5u

static uint64_t digest = FNV_INIT, model_digest = FNV_INIT;

static void record(const uint64_t *v, size_t n) { digest = fnv1a(digest, v, n * sizeof *v); }
static void record_model(const uint64_t *v, size_t n) { model_digest = fnv1a(model_digest, v, n * sizeof *v); }

// Flags of shld/shrd by c = count & 31 the manuals define: all for 0 (none
// change), CF SF ZF PF for 1..16 and OF for 1; for 17..31 none, and phybin
// gives Intel's result and CF/SF/ZF/PF (model values; OF and AF masked).
static unsigned shift_flags(unsigned c) { return c == 0 ? FLAG_BITS : c == 1 ? 0x8c5u : 0x0c5u; }

// ---- 16-bit shld/shrd ----------------------------------------------------

#define SHIFT_CL(insn, dest_constraint)                                                                    \
  __asm__ volatile("pushq %[fl]; popfq; " insn " %%cl, %[s], %[d]; pushfq; popq %[fl]"                    \
                   : [d] dest_constraint(d), [fl] "+r"(fl)                                                 \
                   : [s] "r"(s), "c"(count)                                                                \
                   : "cc")

// One shift with the count in CL; `memory` picks a memory destination.
static void shift_cl(int left, int memory, uint16_t d0, uint16_t s, uint8_t count, uint64_t flags_in) {
  uint16_t d = d0;
  uint64_t fl = flags_in;
  if (left && memory) SHIFT_CL("shldw", "+m");
  else if (left) SHIFT_CL("shldw", "+r");
  else if (memory) SHIFT_CL("shrdw", "+m");
  else SHIFT_CL("shrdw", "+r");
  unsigned c = count & 31;
  uint64_t v[] = {d, fl & shift_flags(c)};
  (c > 16 ? record_model : record)(v, 2);
  if (count % 7 == 0 || count == 16 || count == 17 || count == 31)
    printf("%s%s%s %04x,%04x cl=%2u fl=%03" PRIx64 ": %04" PRIx64 " fl=%03" PRIx64 "\n", model_if(c > 16),
           left ? "shld" : "shrd", memory ? " mem" : "", d0, s, count, flags_in & FLAG_BITS, v[0], v[1]);
}

#define SHIFT_IMM(n)                                                                                       \
  do {                                                                                                     \
    uint16_t a = d0, b = d0;                                                                               \
    uint64_t fa = flags_in, fb = flags_in;                                                                 \
    __asm__ volatile("pushq %[fl]; popfq; shldw $" #n ", %[s], %[d]; pushfq; popq %[fl]"                  \
                     : [d] "+r"(a), [fl] "+r"(fa) : [s] "r"(s) : "cc");                                    \
    __asm__ volatile("pushq %[fl]; popfq; shrdw $" #n ", %[s], %[d]; pushfq; popq %[fl]"                  \
                     : [d] "+m"(b), [fl] "+r"(fb) : [s] "r"(s) : "cc");                                    \
    unsigned c = (n) & 31;                                                                                 \
    uint64_t v[] = {a, fa & shift_flags(c), b, fb & shift_flags(c)};                                       \
    (c > 16 ? record_model : record)(v, 4);                                                                \
    printf("%simm %2d %04x,%04x: shld %04" PRIx64 " %03" PRIx64 " shrd %04" PRIx64 " %03" PRIx64 "\n",     \
           model_if(c > 16), n, d0, s, v[0], v[1], v[2], v[3]);                                            \
  } while (0)

static void shifts(void) {
  rng_seed(16);
  for (int i = 0; i < 40; i++) {
    uint16_t d = (uint16_t)rng_next(), s = (uint16_t)rng_next();
    uint64_t flags_in = 0x202 | (rng_next() & FLAG_BITS);
    for (unsigned count = 0; count < 64; count++)
      for (int form = 0; form < 4; form++) shift_cl(form & 1, form >> 1, d, s, (uint8_t)count, flags_in);
  }
  static const uint16_t edges[][2] = {{0x8000, 0x0001}, {0x7fff, 0xffff}, {0x0000, 0x0000}, {0xc001, 0x8003}};
  for (int i = 0; i < 4; i++) {
    uint16_t d0 = edges[i][0], s = edges[i][1];
    uint64_t flags_in = 0x202 | FLAG_BITS;
    SHIFT_IMM(0); SHIFT_IMM(1); SHIFT_IMM(2); SHIFT_IMM(15); SHIFT_IMM(16);
    SHIFT_IMM(17); SHIFT_IMM(24); SHIFT_IMM(31); SHIFT_IMM(33);
  }
}

// ---- enter ---------------------------------------------------------------

// enter_test_N(out, old_frame): with RBP = old_frame, runs `enter 24, N` and
// copies the frame it built (from the new RSP up to the RSP before it) to
// out[2..]; out[0] = new RBP and out[1] = new RSP, both relative to the RSP
// before the enter, and out[40] = the RSP before it (to make the copied
// frame pointers relative).  Written in assembly: enter moves RBP and RSP.
#define ENTER_LEVELS X(0) X(1) X(2) X(3) X(4) X(7) X(8) X(15) X(16) X(30) X(31) X(32) X(33) X(63) X(255)

#define X(n)                                                         \
  "enter_test_" #n ":\n"                                             \
  "  push %rbp\n  push %rbx\n"                                       \
  "  mov %rsi, %rbp\n  mov %rsp, %rbx\n"                             \
  "  enter $24, $" #n "\n"                                           \
  "  mov %rbp, %rax\n  sub %rbx, %rax\n  mov %rax, (%rdi)\n"         \
  "  mov %rsp, %rax\n  sub %rbx, %rax\n  mov %rax, 8(%rdi)\n"        \
  "  mov %rbx, 320(%rdi)\n"                                          \
  "  mov %rbx, %rcx\n  sub %rsp, %rcx\n  shr $3, %rcx\n"             \
  "  mov %rsp, %rsi\n  add $16, %rdi\n  cld\n  rep movsq\n"          \
  "  mov %rbx, %rsp\n  pop %rbx\n  pop %rbp\n  ret\n"
__asm__(".text\n" ENTER_LEVELS);
#undef X

#define X(n) void enter_test_##n(uint64_t *out, uint64_t *old_frame);
ENTER_LEVELS
#undef X

static uint64_t old_frames[40];

static void enter_one(const char *name, void (*fn)(uint64_t *, uint64_t *)) {
  uint64_t out[41];
  memset(out, 0, sizeof out);
  uint64_t *old_rbp = &old_frames[36];
  fn(out, old_rbp);
  uint64_t rsp_before = out[40];
  int64_t rbp_rel = (int64_t)out[0], rsp_rel = (int64_t)out[1];
  size_t words = (size_t)(-rsp_rel / 8);
  printf("%s: rbp %+" PRId64 " rsp %+" PRId64 " frame:", name, rbp_rel, rsp_rel);
  // The lowest three words are the 24 bytes of locals enter does not write.
  for (size_t i = 3; i < words && i < 38; i++) {
    uint64_t w = out[2 + i];
    // Pointers into the old frame or the new stack, as offsets.
    uint64_t kind = 0, value = w;
    if (w >= (uint64_t)old_frames && w < (uint64_t)(old_frames + 40)) {
      kind = 1;
      value = w - (uint64_t)old_rbp;
      printf(" old%+" PRId64, (int64_t)value);
    } else if (w >= rsp_before - 512 && w <= rsp_before) {
      kind = 2;
      value = w - rsp_before;
      printf(" sp%+" PRId64, (int64_t)value);
    } else {
      printf(" %" PRIx64, w);
    }
    uint64_t v[] = {kind, value};
    record(v, 2);
  }
  printf("\n");
  uint64_t v[] = {(uint64_t)rbp_rel, (uint64_t)rsp_rel};
  record(v, 2);
}

static void enters(void) {
  for (int i = 0; i < 40; i++) old_frames[i] = 0x1111111111111111ull * (uint64_t)(i % 15 + 1);
#define X(n) enter_one("enter 24," #n, enter_test_##n);
  ENTER_LEVELS
#undef X
}

// ---- 16-bit push/pop, pushfw/popfw ------------------------------------------

static void push_pop16(uint64_t a, uint16_t m, uint64_t flags_in) {
  uint64_t b = ~a, depth, fl_out, from_flags;
  // cells[0] is pushed, the others receive pops (m16 forms); addressed
  // through a register because RSP moves.
  uint16_t cells[4] = {m, 0, 0, 0};
  // Below the red zone, so that the pushes cannot clobber the compiler's locals.
  __asm__ volatile(
      "lea -128(%%rsp), %%rsp\n"
      "mov %%rsp, %[depth]\n"
      "pushw %w[a]\n"            // push r16
      "pushw (%[p])\n"           // push m16
      "popw 2(%[p])\n"           // pop m16
      "popw %w[b]\n"             // pop r16: merges into the low 16 bits
      "pushw $0x8765\n"
      "popw 4(%[p])\n"
      "pushw $-3\n"
      "popw 6(%[p])\n"
      "pushq %[fl]\n popfq\n"
      "pushfw\n"
      "pushw $0x0ed5\n popfw\n"  // every status flag and DF, then back
      "pushfq\n popq %[flo]\n"
      "popfw\n"
      "pushfq\n popq %[ff]\n"
      "cld\n"
      "sub %%rsp, %[depth]\n"
      "lea 128(%%rsp), %%rsp\n"
      : [b] "+r"(b), [depth] "=&r"(depth), [flo] "=&r"(fl_out), [ff] "=&r"(from_flags)
      : [a] "r"(a), [p] "r"(cells), [fl] "r"(flags_in)
      : "cc", "memory");
  uint64_t v[] = {b, depth, cells[1], cells[2], cells[3], fl_out & 0xfd5, from_flags & 0xfd5};
  record(v, 7);
  printf("push16 %016" PRIx64 " %04x fl=%03" PRIx64 ": b %016" PRIx64 " depth %" PRIu64 " m %04" PRIx64
         " imm %04" PRIx64 " %04" PRIx64 " popfw %03" PRIx64 " back %03" PRIx64 "\n",
         a, m, flags_in & FLAG_BITS, v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
}

int main(void) {
  shifts();
  enters();
  rng_seed(7);
  for (int i = 0; i < 6; i++) push_pop16(rng_next(), (uint16_t)rng_next(), 0x202 | (rng_next() & FLAG_BITS));
  printf("digest %016" PRIx64 "\n", digest);
  model_printf("shld/shrd 17..31 digest %016" PRIx64 "\n", model_digest);
  return 0;
}
