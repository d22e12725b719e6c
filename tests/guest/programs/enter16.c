// enter and leave with a 16-bit operand size (66 prefix): enterw pushes BP,
// copies level-1 words of the display from RBP-2*i, pushes the new BP and
// replaces only BP (RBP's upper 48 bits stay), RSP moving in 64 bits;
// leavew sets RSP from all of RBP and pops a word into BP.  Every result is
// printed relative to the arrays or the stack, so the run under phybin must
// match the CPU's.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

// 64 KiB aligned: the low 16 bits of an address in it are its offset, so
// the words enterw pushes from it are the same in every run.
static uint16_t words[0x10000] __attribute__((aligned(65536)));
static const uint64_t kWordsBytes = sizeof words;

static uint64_t digest = FNV_INIT;

static void record(uint64_t v) { digest = fnv1a_u64(digest, v); }

// ---- enterw ----------------------------------------------------------------

// enterw_test_N(out, old_frame): with RBP = old_frame runs `enterw N+6, N`;
// out[0] = the new RBP, out[1] = the new RSP, out[2] = the RSP before, and
// the bytes it built (new RSP up to the RSP before) from out[5] on.  Then a
// round trip on the stack (RBP = RSP-8: enterw, pushw, leavew): out[3] and
// out[4] = how far RSP and RBP ended from where they were (0 and 0).
#define ENTER_LEVELS X(0) X(1) X(2) X(3) X(5) X(8) X(16) X(30) X(31) X(32) X(33) X(63)

#define X(n)                                                                   \
  "enterw_test_" #n ":\n"                                                      \
  "  push %rbp\n  push %rbx\n"                                                 \
  "  mov %rdi, %r8\n  mov %rsi, %rbp\n  mov %rsp, %rbx\n"                      \
  "  enterw $(" #n "+6), $" #n "\n"                                            \
  "  mov %rbp, (%r8)\n  mov %rsp, 8(%r8)\n  mov %rbx, 16(%r8)\n"               \
  "  mov %rbx, %rcx\n  sub %rsp, %rcx\n  mov %rsp, %rsi\n"                     \
  "  lea 40(%r8), %rdi\n  cld\n  rep movsb\n"                                  \
  "  mov %rbx, %rsp\n  lea -8(%rbx), %rbp\n"                                   \
  "  enterw $(" #n "+6), $" #n "\n  pushw $0x1234\n  leavew\n"                  \
  "  mov %rsp, %rax\n  sub %rbx, %rax\n  mov %rax, 24(%r8)\n"                  \
  "  lea -8(%rbx), %rax\n  sub %rbp, %rax\n  mov %rax, 32(%r8)\n"              \
  "  mov %rbx, %rsp\n  pop %rbx\n  pop %rbp\n  ret\n"
__asm__(".text\n" ENTER_LEVELS);
#undef X

#define X(n) void enterw_test_##n(uint64_t *out, void *old_frame);
ENTER_LEVELS
#undef X

static void enter_one(int level, void (*fn)(uint64_t *, void *), uint64_t frame_offset) {
  uint64_t out[64];
  memset(out, 0, sizeof out);
  uint64_t old_frame = (uint64_t)words + frame_offset;
  fn(out, (void *)old_frame);
  uint64_t rbp = out[0], rsp = out[1], before = out[2];
  int64_t rsp_rel = (int64_t)(rsp - before);
  // Only BP changes: the upper bits are the old frame's, BP the new frame's.
  int upper_kept = rbp >> 16 == old_frame >> 16;
  int bp_is_frame = (uint16_t)rbp == (uint16_t)(before - 2);
  printf("enterw %d,%d rbp@%05" PRIx64 ": upper kept %d bp=frame %d rsp %+" PRId64 " round trip %" PRId64
         " %" PRId64 " frame:",
         level + 6, level, frame_offset, upper_kept, bp_is_frame, rsp_rel, (int64_t)out[3], (int64_t)out[4]);
  record(frame_offset);
  record((uint64_t)upper_kept << 1 | (uint64_t)bp_is_frame);
  record((uint64_t)rsp_rel);
  record(out[3]);
  record(out[4]);
  const uint8_t *bytes = (const uint8_t *)&out[5];
  size_t total = (size_t)-rsp_rel;
  // The lowest level+6 bytes are locals enterw does not write.
  for (size_t at = (size_t)level + 6; at + 1 < total && at < 300; at += 2) {
    uint16_t w = (uint16_t)(bytes[at] | bytes[at + 1] << 8);
    // The new BP, pushed last at a nesting level, is a stack address.
    if ((level & 31) != 0 && at == (size_t)level + 6) {
      int is_frame = w == (uint16_t)(before - 2);
      printf(is_frame ? " sp" : " not-sp");
      record((uint64_t)is_frame);
    } else {
      printf(" %04x", w);
      record(w);
    }
  }
  printf("\n");
}

static void enters(void) {
  for (uint64_t i = 0; i < kWordsBytes / 2; i++) words[i] = (uint16_t)(0x1000 + i * 0x9e37);
  static const uint64_t offsets[] = {0x200, 0x1001, 0x10010, 0x1fff1};
#define X(n)                                                                       \
  for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++)                  \
    enter_one(n, enterw_test_##n, offsets[k]);
  ENTER_LEVELS
#undef X
}

// ---- leavew ------------------------------------------------------------------

// leavew_test(out, frame): with RBP = frame, leavew; out[0] = RBP, out[1] = RSP.
void leavew_test(uint64_t *out, void *frame);
__asm__(
    ".text\n"
    "leavew_test:\n"
    "  push %rbp\n  push %rbx\n  mov %rsp, %rbx\n"
    "  mov %rsi, %rbp\n  leavew\n"
    "  mov %rbp, (%rdi)\n  mov %rsp, 8(%rdi)\n"
    "  mov %rbx, %rsp\n  pop %rbx\n  pop %rbp\n  ret\n");

static void leaves(void) {
  // Near the end of a 64 KiB page too: RSP + 2 carries into bit 16.
  static const uint64_t offsets[] = {0x40, 0x1235, 0xfffe, 0xffff, 0x1fffe};
  for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
    uint64_t out[2];
    uint64_t base = (uint64_t)words;
    leavew_test(out, (void *)(base + offsets[k]));
    uint64_t rbp_rel = out[0] - base, rsp_rel = out[1] - base;
    printf("leavew rbp@%05" PRIx64 ": rbp @%05" PRIx64 " rsp @%05" PRIx64 "\n", offsets[k], rbp_rel, rsp_rel);
    record(rbp_rel);
    record(rsp_rel);
  }
}

int main(void) {
  enters();
  leaves();
  printf("digest %016" PRIx64 "\n", digest);
  return 0;
}
