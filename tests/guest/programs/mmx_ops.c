// MMX, run through inline assembly (GCC lowers MMX intrinsics to SSE on
// x86-64): every MMX and SSSE3-on-MMX arithmetic, logic, shift, unpack and pack instruction
// with register and memory sources over edge and pseudo-random values; the
// SSE additions on MM registers (pshufw, pmovmskb, pextrw, pinsrw, psadbw,
// pavg, pmin/pmax, pmuludq); the moves between MM, general and XMM
// registers; the conversions cvtpi2ps/cvtpi2pd/cvt(t)ps2pi/cvt(t)pd2pi
// under each rounding mode with the MXCSR flags they raise; and the x87
// side: what fnstenv and fxsave show after MMX code, after emms, and an
// x87 push without emms (stack overflow).
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static const uint64_t edges[] = {
    0, ~0ull, 0x8000000000000000ull, 0x7fffffffffffffffull, 0x0001000100010001ull, 0x8000800080008000ull,
    0x7fff7fff7fff7fffull, 0x00ff00ff00ff00ffull, 0x8080808080808080ull, 0x7f7f7f7f7f7f7f7full,
    0x0123456789abcdefull, 0xfedcba9876543210ull, 0x80000000ffffffffull, 0x000000017fffffffull,
};
#define NEDGES (sizeof edges / sizeof edges[0])

// A two-operand instruction: mm0 = op(mm0, mm1), and the m64-source form.
#define MMX_BIN(fn, insn)                                                                        \
  static uint64_t fn(uint64_t a, uint64_t b) {                                                   \
    uint64_t r;                                                                                  \
    __asm__ volatile("movq %1, %%mm0\n\tmovq %2, %%mm1\n\t" insn " %%mm1, %%mm0\n\tmovq %%mm0, %0" \
                     : "=r"(r) : "r"(a), "r"(b) : "mm0", "mm1");                                 \
    return r;                                                                                    \
  }                                                                                              \
  static uint64_t fn##_mem(uint64_t a, uint64_t b) {                                             \
    uint64_t r;                                                                                  \
    __asm__ volatile("movq %1, %%mm2\n\t" insn " %2, %%mm2\n\tmovq %%mm2, %0"                    \
                     : "=r"(r) : "r"(a), "m"(b) : "mm2");                                        \
    return r;                                                                                    \
  }

#define MMX_OPS(X)                                                                          \
  X(paddb) X(paddw) X(paddd) X(paddq) X(psubb) X(psubw) X(psubd) X(psubq) X(paddsb)        \
  X(paddsw) X(paddusb) X(paddusw) X(psubsb) X(psubsw) X(psubusb) X(psubusw) X(pcmpeqb)     \
  X(pcmpeqw) X(pcmpeqd) X(pcmpgtb) X(pcmpgtw) X(pcmpgtd) X(pmullw) X(pmulhw) X(pmaddwd)    \
  X(pand) X(pandn) X(por) X(pxor) X(psllw) X(pslld) X(psllq) X(psrlw) X(psrld) X(psrlq)    \
  X(psraw) X(psrad) X(punpcklbw) X(punpcklwd) X(punpckldq) X(punpckhbw) X(punpckhwd)      \
  X(punpckhdq) X(packsswb) X(packssdw) X(packuswb) X(pavgb) X(pavgw) X(pminub) X(pmaxub)  \
  X(pminsw) X(pmaxsw) X(pmulhuw) X(psadbw) X(pmuludq) X(pshufb) X(phaddw) X(phaddd)         \
  X(phaddsw) X(phsubw) X(phsubd) X(phsubsw) X(pmaddubsw) X(pmulhrsw) X(psignb) X(psignw)    \
  X(psignd) X(pabsb) X(pabsw) X(pabsd)

#define DEFINE_OP(name) MMX_BIN(op_##name, #name)
MMX_OPS(DEFINE_OP)

struct mmx_op {
  const char *name;
  uint64_t (*reg)(uint64_t, uint64_t);
  uint64_t (*mem)(uint64_t, uint64_t);
};
#define LIST_OP(name) {#name, op_##name, op_##name##_mem},
static const struct mmx_op ops[] = {MMX_OPS(LIST_OP)};

// Shift counts: the register forms take a 64-bit count, so large counts too.
static uint64_t shift_count(uint64_t r) {
  static const uint64_t counts[] = {0, 1, 7, 8, 15, 16, 31, 32, 63, 64, 65, 0x100000001ull};
  return counts[r % (sizeof counts / sizeof counts[0])];
}

static int is_shift(const char *name) { return name[0] == 'p' && name[1] == 's' && (name[2] == 'l' || name[2] == 'r'); }

static void test_binary_ops(void) {
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
    uint64_t h_reg = 0, h_mem = 0;
    for (int i = 0; i < 400; i++) {
      uint64_t a = i < (int)(NEDGES * NEDGES) ? edges[i % NEDGES] : next_random();
      uint64_t b = i < (int)(NEDGES * NEDGES) ? edges[(i / NEDGES) % NEDGES] : next_random();
      if (is_shift(ops[k].name)) b = shift_count(b);
      uint64_t r = ops[k].reg(a, b), m = ops[k].mem(a, b);
      h_reg = h_reg * 1000003u ^ r;
      h_mem = h_mem * 1000003u ^ m;
      if (i % 97 == 0) printf("%-10s %016llx %016llx -> %016llx\n", ops[k].name, (unsigned long long)a,
                              (unsigned long long)b, (unsigned long long)r);
    }
    printf("%-10s hash reg %016llx mem %016llx\n", ops[k].name, (unsigned long long)h_reg, (unsigned long long)h_mem);
  }
  __asm__ volatile("emms");
}

// Immediate shifts and pshufw, for every immediate.
#define SHIFT_IMM(insn, imm, a, r) \
  __asm__ volatile("movq %1, %%mm3\n\t" insn " $" #imm ", %%mm3\n\tmovq %%mm3, %0" : "=r"(r) : "r"(a) : "mm3")

static void test_immediates(void) {
  uint64_t a = 0x8123456789abcdefull, r;
  SHIFT_IMM("psllw", 3, a, r); printf("psllw $3 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("psllw", 16, a, r); printf("psllw $16 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("pslld", 5, a, r); printf("pslld $5 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("psllq", 63, a, r); printf("psllq $63 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("psrlw", 9, a, r); printf("psrlw $9 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("psrld", 31, a, r); printf("psrld $31 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("psrlq", 200, a, r); printf("psrlq $200 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("psraw", 4, a, r); printf("psraw $4 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("psraw", 99, a, r); printf("psraw $99 %016llx\n", (unsigned long long)r);
  SHIFT_IMM("psrad", 17, a, r); printf("psrad $17 %016llx\n", (unsigned long long)r);
  uint64_t h = 0;
  for (int imm = 0; imm < 256; imm++) {
    uint64_t src = next_random(), out;
    // pshufw needs its immediate in the instruction: go through a table.
    switch (imm & 3) {
      case 0: __asm__ volatile("pshufw $0x1b, %1, %%mm4\n\tmovq %%mm4, %0" : "=r"(out) : "m"(src) : "mm4"); break;
      case 1: __asm__ volatile("movq %1, %%mm5\n\tpshufw $0xe4, %%mm5, %%mm4\n\tmovq %%mm4, %0" : "=r"(out) : "r"(src) : "mm4", "mm5"); break;
      case 2: __asm__ volatile("movq %1, %%mm5\n\tpshufw $0x00, %%mm5, %%mm4\n\tmovq %%mm4, %0" : "=r"(out) : "r"(src) : "mm4", "mm5"); break;
      default: __asm__ volatile("movq %1, %%mm5\n\tpshufw $0x9c, %%mm5, %%mm4\n\tmovq %%mm4, %0" : "=r"(out) : "r"(src) : "mm4", "mm5"); break;
    }
    h = h * 31 + out;
  }
  printf("pshufw hash %016llx\n", (unsigned long long)h);
  // palignr mm: every shift count a program could use, and beyond.
  uint64_t dst = 0x0706050403020100ull, src = 0x0f0e0d0c0b0a0908ull, out;
#define PALIGNR(imm)                                                                                      \
  __asm__ volatile("movq %1, %%mm1\n\tmovq %2, %%mm2\n\tpalignr $" #imm ", %%mm2, %%mm1\n\tmovq %%mm1, %0" \
                   : "=r"(out) : "r"(dst), "r"(src) : "mm1", "mm2");                                     \
  printf("palignr $%d %016llx\n", imm, (unsigned long long)out);
  PALIGNR(0) PALIGNR(1) PALIGNR(5) PALIGNR(8) PALIGNR(9) PALIGNR(15) PALIGNR(16) PALIGNR(200)
  __asm__ volatile("emms");
}

static void test_moves(void) {
  uint64_t v = 0x8899aabbccddeeffull, q, d64;
  uint32_t d, mask, w0, w3;
  uint64_t m64 = 0;
  uint32_t m32 = 0x12345678;
  __asm__ volatile(
      "movq %[v], %%mm6\n\t"
      "movd %%mm6, %[d]\n\t"          // low dword to r32
      "movq %%mm6, %[q]\n\t"          // mm to r64
      "movq %%mm6, %[m64]\n\t"        // mm to m64
      "pmovmskb %%mm6, %[mask]\n\t"
      "pextrw $0, %%mm6, %[w0]\n\t"
      "pextrw $3, %%mm6, %[w3]\n\t"
      "movd %[m32], %%mm7\n\t"        // m32 to mm, zero-extended
      "movq %%mm7, %[d64]\n\t"
      : [d] "=r"(d), [q] "=r"(q), [m64] "=m"(m64), [mask] "=r"(mask), [w0] "=r"(w0), [w3] "=r"(w3), [d64] "=r"(d64)
      : [v] "r"(v), [m32] "m"(m32)
      : "mm6", "mm7");
  printf("movd %08x movq %016llx m64 %016llx pmovmskb %x pextrw %x %x movd-m32 %016llx\n", d, (unsigned long long)q,
         (unsigned long long)m64, mask, w0, w3, (unsigned long long)d64);
  uint64_t ins;
  uint16_t word = 0xbeef;
  __asm__ volatile("movq %1, %%mm1\n\tpinsrw $2, %2, %%mm1\n\tmovl $0xcafe, %%eax\n\tpinsrw $0, %%eax, %%mm1\n\t"
                   "movq %%mm1, %0"
                   : "=r"(ins) : "r"(v), "m"(word) : "mm1", "eax");
  printf("pinsrw %016llx\n", (unsigned long long)ins);
  // movq2dq / movdq2q and movd r32 -> mm (zero-extends)
  uint64_t lo, hi, back;
  __asm__ volatile("movl $-1, %%eax\n\tmovd %%eax, %%mm2\n\tmovq2dq %%mm2, %%xmm1\n\tmovq %%xmm1, %0\n\t"
                   "movhlps %%xmm1, %%xmm1\n\tmovq %%xmm1, %1\n\tmovq %3, %%xmm2\n\tmovdq2q %%xmm2, %%mm3\n\tmovq %%mm3, %2"
                   : "=r"(lo), "=r"(hi), "=r"(back) : "r"(v) : "eax", "mm2", "mm3", "xmm1", "xmm2");
  printf("movq2dq %016llx %016llx movdq2q %016llx\n", (unsigned long long)lo, (unsigned long long)hi,
         (unsigned long long)back);
  uint64_t nt = 0;
  __asm__ volatile("movq %1, %%mm0\n\tmovntq %%mm0, %0\n\tsfence" : "=m"(nt) : "r"(v) : "mm0");
  printf("movntq %016llx\n", (unsigned long long)nt);
  unsigned char buf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint64_t byte_mask = 0x80007f80ff000180ull;
  __asm__ volatile("movq %1, %%mm0\n\tmovq %2, %%mm1\n\tmaskmovq %%mm1, %%mm0"
                   : : "D"(buf), "r"(v), "r"(byte_mask) : "mm0", "mm1", "memory");
  printf("maskmovq");
  for (int i = 0; i < 8; i++) printf(" %02x", buf[i]);
  printf("\n");
  __asm__ volatile("emms");
}

static uint32_t get_mxcsr(void) {
  uint32_t m;
  __asm__ volatile("stmxcsr %0" : "=m"(m));
  return m;
}
static void set_mxcsr(uint32_t m) { __asm__ volatile("ldmxcsr %0" : : "m"(m)); }

static void test_conversions(void) {
  static const int32_t ints[][2] = {{0, -1}, {16777217, -16777219}, {2147483647, -2147483647 - 1}, {123456789, 7}};
  static const float floats[][2] = {{1.5f, -2.5f}, {2.5f, -0.5f}, {3e9f, -3e9f}, {1.0f / 0.0f, 0.0f / 0.0f},
                                    {-0.0f, 1e-40f}, {2147483520.0f, -2147483648.0f}};
  static const double doubles[][2] = {{1.5, -2.5}, {2147483647.5, -2147483648.5}, {1e300, -0.0}, {0.5, -1.5}};
  for (unsigned rc = 0; rc < 4; rc++) {
    for (unsigned i = 0; i < sizeof ints / sizeof ints[0]; i++) {
      set_mxcsr(0x1f80 | rc << 13);
      float out[4] = {9, 9, 9, 9};
      __asm__ volatile("movups %1, %%xmm3\n\tmovq %2, %%mm1\n\tcvtpi2ps %%mm1, %%xmm3\n\tmovups %%xmm3, %0"
                       : "=m"(out) : "m"(out), "m"(ints[i]) : "xmm3", "mm1");
      uint32_t flags_ps = get_mxcsr() & 0x3f;
      set_mxcsr(0x1f80 | rc << 13);
      double d[2];
      __asm__ volatile("cvtpi2pd %1, %%xmm4\n\tmovupd %%xmm4, %0" : "=m"(d) : "m"(ints[i]) : "xmm4");
      printf("rc%u cvtpi2ps %a %a %a %a flags %x cvtpi2pd %a %a\n", rc, out[0], out[1], out[2], out[3], flags_ps, d[0],
             d[1]);
    }
    for (unsigned i = 0; i < sizeof floats / sizeof floats[0]; i++) {
      set_mxcsr(0x1f80 | rc << 13);
      int32_t r[2], t[2];
      __asm__ volatile("movq %1, %%xmm5\n\tcvtps2pi %%xmm5, %%mm2\n\tmovq %%mm2, %0" : "=m"(r) : "m"(floats[i]) : "xmm5", "mm2");
      uint32_t f1 = get_mxcsr() & 0x3f;
      set_mxcsr(0x1f80 | rc << 13);
      __asm__ volatile("cvttps2pi %1, %%mm3\n\tmovq %%mm3, %0" : "=m"(t) : "m"(floats[i]) : "mm3");
      uint32_t f2 = get_mxcsr() & 0x3f;
      printf("rc%u cvtps2pi %d %d flags %x cvttps2pi %d %d flags %x\n", rc, r[0], r[1], f1, t[0], t[1], f2);
    }
    for (unsigned i = 0; i < sizeof doubles / sizeof doubles[0]; i++) {
      set_mxcsr(0x1f80 | rc << 13);
      int32_t r[2], t[2];
      __asm__ volatile("movupd %1, %%xmm6\n\tcvtpd2pi %%xmm6, %%mm4\n\tmovq %%mm4, %0" : "=m"(r) : "m"(doubles[i]) : "xmm6", "mm4");
      uint32_t f1 = get_mxcsr() & 0x3f;
      set_mxcsr(0x1f80 | rc << 13);
      __asm__ volatile("movupd %1, %%xmm6\n\tcvttpd2pi %%xmm6, %%mm5\n\tmovq %%mm5, %0" : "=m"(t) : "m"(doubles[i]) : "xmm6", "mm5");
      uint32_t f2 = get_mxcsr() & 0x3f;
      printf("rc%u cvtpd2pi %d %d flags %x cvttpd2pi %d %d flags %x\n", rc, r[0], r[1], f1, t[0], t[1], f2);
    }
  }
  set_mxcsr(0x1f80);
  __asm__ volatile("emms");
}

struct fpu_env {
  uint16_t fcw, pad0, fsw, pad1, ftw, pad2;
  uint32_t rest[4];
};

// FSW without C3/C2/C0, which fld and the MMX instructions leave undefined.
static void print_env(const char *when) {
  struct fpu_env env;
  __asm__ volatile("fnstenv %0\n\tfldcw %0" : "=m"(env));  // fnstenv masks exceptions: restore FCW
  printf("%-22s fsw %04x (top %u) ftw %04x\n", when, env.fsw & ~0x4500u, (env.fsw >> 11) & 7, env.ftw);
}

static void test_x87_interplay(void) {
  print_env("start");
  __asm__ volatile("fld1\n\tfldpi" ::: "st", "st(1)");
  print_env("x87 two pushed");
  uint64_t v = 0x0123456789abcdefull;
  __asm__ volatile("movq %0, %%mm5" : : "r"(v) : "mm5");
  print_env("after mmx write");
  unsigned char area[512] __attribute__((aligned(16)));
  memset(area, 0, sizeof area);
  __asm__ volatile("fxsave %0" : "=m"(area));
  printf("fxsave fsw %02x%02x abridged tags %02x mm5 ", area[3] & ~0x45u, area[2], area[4]);
  for (int i = 9; i >= 0; i--) printf("%02x", area[32 + 16 * 5 + i]);
  printf("\n");
  __asm__ volatile("emms");
  print_env("after emms");
  // No emms: every tag in use, so an x87 push overflows (masked: a NaN).
  __asm__ volatile("movq %0, %%mm0" : : "r"(v) : "mm0");
  long double x;
  __asm__ volatile("fld1\n\tfstpt %0" : "=m"(x));
  print_env("push without emms");
  printf("pushed value %Lf\n", x);
  __asm__ volatile("fninit");
  // emms with values on the x87 stack (no MMX before it): TOP goes to 0
  // as well, so the registers fxsave shows as ST0.. move.
  __asm__ volatile("fld1\n\tfldpi\n\tfldl2e" ::: "st", "st(1)", "st(2)");
  __asm__ volatile("emms");
  print_env("emms after three pushes");
  memset(area, 0, sizeof area);
  __asm__ volatile("fxsave %0" : "=m"(area));
  printf("fxsave fsw %02x%02x abridged tags %02x st0 ", area[3] & ~0x45u, area[2], area[4]);
  for (int i = 9; i >= 0; i--) printf("%02x", area[32 + i]);
  printf("\n");
  __asm__ volatile("fninit");
  long double y = 2.0L;
  __asm__ volatile("fsqrt" : "+t"(y));
  printf("x87 after fninit sqrt(2) %.18Lf\n", y);
}

int main(void) {
  test_binary_ops();
  test_immediates();
  test_moves();
  test_conversions();
  test_x87_interplay();
  return 0;
}
