// Encodings of the emitter's loads, stores, pairs, exclusive/ordered
// accesses and LSE atomics, checked against aarch64-linux-gnu-objdump.
#include "emitter_disasm.h"

namespace phybin::arm64 {
namespace {

using testing::DisasmBatch;

// The cases are a table: expected text, then the call.
// clang-format off

void general_loads_stores(DisasmBatch& t) {
  t.group("LoadStore");
  Assembler& a = t.assembler();
  // Offset: scaled unsigned, else unscaled signed (ldur).
  E("ldr x0, [x1]");                      a.ldr(Size::X, x0, mem(x1));
  E("ldr x0, [x1, #8]");                  a.ldr(Size::X, x0, mem(x1, 8));
  E("ldr x0, [sp, #32760]");              a.ldr(Size::X, x0, mem(sp, 32760));
  E("ldr w0, [x1, #16380]");              a.ldr(Size::W, w0, mem(x1, 16380));
  E("ldr xzr, [x30]");                    a.ldr(Size::X, xzr, mem(x30));
  E("ldur x0, [x1, #-8]");                a.ldr(Size::X, x0, mem(x1, -8));
  E("ldur x0, [x1, #1]");                 a.ldr(Size::X, x0, mem(x1, 1));
  E("ldur w0, [x1, #255]");               a.ldr(Size::W, w0, mem(x1, 255));
  E("ldur x0, [x1, #-256]");              a.ldr(Size::X, x0, mem(x1, -256));
  E("ldur x2, [x3, #8]");                 a.ldur(Size::X, x2, mem(x3, 8));
  E("str x0, [x1, #8]");                  a.str(Size::X, x0, mem(x1, 8));
  E("str wzr, [sp, #4]");                 a.str(Size::W, wzr, mem(sp, 4));
  E("stur x0, [x1, #-1]");                a.str(Size::X, x0, mem(x1, -1));
  E("stur w3, [x4, #4]");                 a.stur(Size::W, w3, mem(x4, 4));
  // Pre- and post-index.
  E("ldr x0, [x1, #8]!");                 a.ldr(Size::X, x0, mem_pre(x1, 8));
  E("ldr x0, [x1], #-256");               a.ldr(Size::X, x0, mem_post(x1, -256));
  E("str x0, [sp, #-16]!");               a.str(Size::X, x0, mem_pre(sp, -16));
  E("str w0, [x1], #255");                a.str(Size::W, w0, mem_post(x1, 255));
  // Register offset.
  E("ldr x0, [x1, x2]");                  a.ldr(Size::X, x0, mem(x1, x2));
  E("ldr x0, [x1, x2, lsl #3]");          a.ldr(Size::X, x0, mem(x1, x2, Extend::UXTX, true));
  E("ldr w0, [x1, w2, uxtw]");            a.ldr(Size::W, w0, mem(x1, w2, Extend::UXTW));
  E("ldr w0, [x1, w2, sxtw #2]");         a.ldr(Size::W, w0, mem(x1, w2, Extend::SXTW, true));
  E("ldr x0, [x1, x2, sxtx]");            a.ldr(Size::X, x0, mem(x1, x2, Extend::SXTX));
  E("str x0, [sp, x30, sxtx #3]");        a.str(Size::X, x0, mem(sp, x30, Extend::SXTX, true));
  // Bytes and halfwords, zero- and sign-extending.
  E("ldrb w0, [x1]");                     a.ldrb(w0, mem(x1));
  E("ldrb w0, [x1, #4095]");              a.ldrb(w0, mem(x1, 4095));
  E("ldrb w0, [x1, x2]");                 a.ldrb(w0, mem(x1, x2));
  E("ldrb w0, [x1, x2, lsl #0]");         a.ldrb(w0, mem(x1, x2, Extend::UXTX, true));
  E("ldrb w0, [x1, w2, uxtw]");           a.ldrb(w0, mem(x1, w2, Extend::UXTW));
  E("ldurb w0, [x1, #-1]");               a.ldrb(w0, mem(x1, -1));
  E("ldrh w0, [x1, #8190]");              a.ldrh(w0, mem(x1, 8190));
  E("ldurh w0, [x1, #1]");                a.ldrh(w0, mem(x1, 1));
  E("ldrh w0, [x1, x2, lsl #1]");         a.ldrh(w0, mem(x1, x2, Extend::UXTX, true));
  E("strb w0, [x1, #1]");                 a.strb(w0, mem(x1, 1));
  E("strh w0, [x1, #2]");                 a.strh(w0, mem(x1, 2));
  E("sturh w0, [x1, #-2]");               a.strh(w0, mem(x1, -2));
  E("strb w0, [x1], #1");                 a.strb(w0, mem_post(x1, 1));
  E("ldrsb x0, [x1]");                    a.ldrsb(Size::X, x0, mem(x1));
  E("ldrsb w0, [x1, #1]");                a.ldrsb(Size::W, w0, mem(x1, 1));
  E("ldrsb x0, [x1, #-1]!");              a.ldrsb(Size::X, x0, mem_pre(x1, -1));
  E("ldrsh x0, [x1, #2]");                a.ldrsh(Size::X, x0, mem(x1, 2));
  E("ldrsh w0, [x1, x2, lsl #1]");        a.ldrsh(Size::W, w0, mem(x1, x2, Extend::UXTX, true));
  E("ldursh w0, [x1, #-3]");              a.ldrsh(Size::W, w0, mem(x1, -3));
  E("ldrsw x0, [x1, #4]");                a.ldrsw(x0, mem(x1, 4));
  E("ldursw x0, [x1, #-4]");              a.ldrsw(x0, mem(x1, -4));
  E("ldrsw x0, [x1, w2, sxtw #2]");       a.ldrsw(x0, mem(x1, w2, Extend::SXTW, true));
  // Width-generic forms.
  E("ldrh w0, [x1, #6]");                 a.load(MemSize::H, x0, mem(x1, 6));
  E("ldr x0, [x1, #48]");                 a.load(MemSize::X, x0, mem(x1, 48));
  E("ldur x0, [x1, #6]");                 a.load(MemSize::X, x0, mem(x1, 6));
  E("ldrsb w0, [x1, #7]");                a.load_signed(Size::W, MemSize::B, w0, mem(x1, 7));
  E("ldrsh x0, [x1, #6]");                a.load_signed(Size::X, MemSize::H, x0, mem(x1, 6));
  E("strh w2, [x3, #6]");                 a.store(MemSize::H, w2, mem(x3, 6));
  E("stur w2, [x3, #6]");                 a.store(MemSize::W, w2, mem(x3, 6));
  E("ldurh w2, [x3, #6]");                a.load_unscaled(MemSize::H, w2, mem(x3, 6));
  E("sturb w2, [x3]");                    a.store_unscaled(MemSize::B, w2, mem(x3));
}

void pairs(DisasmBatch& t) {
  t.group("Pair");
  Assembler& a = t.assembler();
  E("ldp x0, x1, [sp]");                  a.ldp(Size::X, x0, x1, mem(sp));
  E("ldp x0, x1, [sp, #16]");             a.ldp(Size::X, x0, x1, mem(sp, 16));
  E("stp x29, x30, [sp, #-16]!");         a.stp(Size::X, x29, x30, mem_pre(sp, -16));
  E("ldp x29, x30, [sp], #16");           a.ldp(Size::X, x29, x30, mem_post(sp, 16));
  E("ldp w0, w1, [x2, #-256]");           a.ldp(Size::W, w0, w1, mem(x2, -256));
  E("stp w0, w1, [x2, #252]");            a.stp(Size::W, w0, w1, mem(x2, 252));
  E("ldp x0, x1, [x2, #504]");            a.ldp(Size::X, x0, x1, mem(x2, 504));
  E("stp x0, x1, [x2, #-512]");           a.stp(Size::X, x0, x1, mem(x2, -512));
  E("stp xzr, xzr, [x0]");                a.stp(Size::X, xzr, xzr, mem(x0));
  E("ldp q0, q1, [x0, #1008]");           a.ldp(FSize::Q, v0, v1, mem(x0, 1008));
  E("stp q30, q31, [sp, #-1024]!");       a.stp(FSize::Q, v30, v31, mem_pre(sp, -1024));
  E("ldp d8, d9, [sp], #64");             a.ldp(FSize::D, v8, v9, mem_post(sp, 64));
  E("stp s0, s1, [x0, #-4]");             a.stp(FSize::S, v0, v1, mem(x0, -4));
  E("stp d14, d15, [sp, #48]");           a.stp(FSize::D, v14, v15, mem(sp, 48));
}

void fp_loads_stores(DisasmBatch& t) {
  t.group("FpLoadStore");
  Assembler& a = t.assembler();
  E("ldr b0, [x1]");                      a.ldr(FSize::B, v0, mem(x1));
  E("ldr b0, [x1, #4095]");               a.ldr(FSize::B, v0, mem(x1, 4095));
  E("ldr h1, [x2, #8190]");               a.ldr(FSize::H, v1, mem(x2, 8190));
  E("ldr s2, [x3, #16380]");              a.ldr(FSize::S, v2, mem(x3, 16380));
  E("ldr d3, [x4, #32760]");              a.ldr(FSize::D, v3, mem(x4, 32760));
  E("ldr q4, [x5, #65520]");              a.ldr(FSize::Q, v4, mem(x5, 65520));
  E("str q31, [sp, #16]");                a.str(FSize::Q, v31, mem(sp, 16));
  E("str b5, [x0, #1]");                  a.str(FSize::B, v5, mem(x0, 1));
  E("ldur q0, [x1, #-1]");                a.ldr(FSize::Q, v0, mem(x1, -1));
  E("ldur d0, [x1, #4]");                 a.ldr(FSize::D, v0, mem(x1, 4));
  E("stur s0, [x1, #-4]");                a.str(FSize::S, v0, mem(x1, -4));
  E("ldur q7, [x8, #16]");                a.ldur(FSize::Q, v7, mem(x8, 16));
  E("stur h7, [x8, #2]");                 a.stur(FSize::H, v7, mem(x8, 2));
  E("ldr q0, [x1, #-16]!");               a.ldr(FSize::Q, v0, mem_pre(x1, -16));
  E("str d0, [x1], #8");                  a.str(FSize::D, v0, mem_post(x1, 8));
  E("ldr q0, [x1, x2, lsl #4]");          a.ldr(FSize::Q, v0, mem(x1, x2, Extend::UXTX, true));
  E("ldr s0, [x1, w2, sxtw #2]");         a.ldr(FSize::S, v0, mem(x1, w2, Extend::SXTW, true));
  E("str d0, [x1, x2]");                  a.str(FSize::D, v0, mem(x1, x2));
  E("ldr b0, [x1, x2, lsl #0]");          a.ldr(FSize::B, v0, mem(x1, x2, Extend::UXTX, true));
  E("ldr h0, [x1, w2, uxtw #1]");         a.ldr(FSize::H, v0, mem(x1, w2, Extend::UXTW, true));
  // Single lanes.
  E("ld1 {v0.b}[15], [x1]");              a.ld1(FSize::B, v0, 15, x1);
  E("ld1 {v1.h}[5], [x2]");               a.ld1(FSize::H, v1, 5, x2);
  E("ld1 {v2.s}[3], [sp]");               a.ld1(FSize::S, v2, 3, sp);
  E("ld1 {v3.d}[1], [x4]");               a.ld1(FSize::D, v3, 1, x4);
  E("st1 {v4.b}[0], [x5]");               a.st1(FSize::B, v4, 0, x5);
  E("st1 {v5.h}[7], [x6]");               a.st1(FSize::H, v5, 7, x6);
  E("st1 {v6.s}[1], [x7]");               a.st1(FSize::S, v6, 1, x7);
  E("st1 {v31.d}[0], [x0]");              a.st1(FSize::D, v31, 0, x0);
  // PC-relative literals.
  Label lit;
  const std::string lit_at = DisasmBatch::addr(t.here() + 4 * 4);
  E("ldr q0, " + lit_at);                 a.ldr(FSize::Q, v0, lit);
  E("ldr d1, " + lit_at);                 a.ldr(FSize::D, v1, lit);
  E("ldr s2, " + lit_at);                 a.ldr(FSize::S, v2, lit);
  E("ldr w3, " + lit_at);                 a.ldr(Size::W, w3, lit);
  a.bind(lit);
  E("nop");                               a.nop();
}

void exclusive_ordered(DisasmBatch& t) {
  t.group("Exclusive");
  Assembler& a = t.assembler();
  E("ldxr x0, [x1]");                     a.ldxr(MemSize::X, x0, x1);
  E("ldxr w0, [x1]");                     a.ldxr(MemSize::W, w0, x1);
  E("ldxrb w0, [x1]");                    a.ldxr(MemSize::B, w0, x1);
  E("ldxrh w0, [sp]");                    a.ldxr(MemSize::H, w0, sp);
  E("ldaxr x0, [x1]");                    a.ldaxr(MemSize::X, x0, x1);
  E("ldaxrb w2, [x3]");                   a.ldaxr(MemSize::B, w2, x3);
  E("stxr w2, x0, [x1]");                 a.stxr(MemSize::X, w2, x0, x1);
  E("stxr w2, w0, [x1]");                 a.stxr(MemSize::W, w2, w0, x1);
  E("stxrb w2, w0, [x1]");                a.stxr(MemSize::B, w2, w0, x1);
  E("stxrh w30, w29, [x28]");             a.stxr(MemSize::H, w30, w29, x28);
  E("stlxr w2, x0, [sp]");                a.stlxr(MemSize::X, w2, x0, sp);
  E("stlxrh w2, w0, [x1]");               a.stlxr(MemSize::H, w2, w0, x1);
  E("ldxp x0, x1, [x2]");                 a.ldxp(Size::X, x0, x1, x2);
  E("ldxp w0, w1, [x2]");                 a.ldxp(Size::W, w0, w1, x2);
  E("ldaxp x0, x1, [x2]");                a.ldaxp(Size::X, x0, x1, x2);
  E("stxp w3, x0, x1, [x2]");             a.stxp(Size::X, w3, x0, x1, x2);
  E("stlxp w3, w0, w1, [x2]");            a.stlxp(Size::W, w3, w0, w1, x2);
  E("ldar x0, [x1]");                     a.ldar(MemSize::X, x0, x1);
  E("ldar w0, [x1]");                     a.ldar(MemSize::W, w0, x1);
  E("ldarb w0, [x1]");                    a.ldar(MemSize::B, w0, x1);
  E("ldarh w0, [x1]");                    a.ldar(MemSize::H, w0, x1);
  E("stlr x0, [x1]");                     a.stlr(MemSize::X, x0, x1);
  E("stlr w0, [sp]");                     a.stlr(MemSize::W, w0, sp);
  E("stlrb w0, [x1]");                    a.stlr(MemSize::B, w0, x1);
  E("stlrh w0, [x1]");                    a.stlr(MemSize::H, w0, x1);
  E("ldapr x0, [x1]");                    a.ldapr(MemSize::X, x0, x1);
  E("ldapr w0, [x1]");                    a.ldapr(MemSize::W, w0, x1);
  E("ldaprb w0, [x1]");                   a.ldapr(MemSize::B, w0, x1);
  E("ldaprh w0, [sp]");                   a.ldapr(MemSize::H, w0, sp);
}

void atomics(DisasmBatch& t) {
  t.group("Atomic");
  Assembler& a = t.assembler();
  E("cas x0, x1, [x2]");                  a.cas(MemSize::X, x0, x1, x2);
  E("casa w0, w1, [x2]");                 a.casa(MemSize::W, w0, w1, x2);
  E("casl x0, x1, [x2]");                 a.casl(MemSize::X, x0, x1, x2);
  E("casal x0, x1, [sp]");                a.casal(MemSize::X, x0, x1, sp);
  E("casal w3, w4, [x5]");                a.casal(MemSize::W, w3, w4, x5);
  E("casb w0, w1, [x2]");                 a.cas(MemSize::B, w0, w1, x2);
  E("casalb w0, w1, [x2]");               a.casal(MemSize::B, w0, w1, x2);
  E("casalh w0, w1, [x2]");               a.casal(MemSize::H, w0, w1, x2);
  E("caslh w0, w1, [x2]");                a.casl(MemSize::H, w0, w1, x2);
  E("ldaddal x0, x1, [x2]");              a.ldaddal(MemSize::X, x0, x1, x2);
  E("ldaddal w0, w1, [x2]");              a.ldaddal(MemSize::W, w0, w1, x2);
  E("ldaddalb w0, w1, [x2]");             a.ldaddal(MemSize::B, w0, w1, x2);
  E("ldaddalh w0, wzr, [sp]");            a.ldaddal(MemSize::H, w0, wzr, sp);
  E("ldclral x0, x1, [x2]");              a.ldclral(MemSize::X, x0, x1, x2);
  E("ldclralb w0, w1, [x2]");             a.ldclral(MemSize::B, w0, w1, x2);
  E("ldeoral w0, w1, [x2]");              a.ldeoral(MemSize::W, w0, w1, x2);
  E("ldeoralh w0, w1, [x2]");             a.ldeoral(MemSize::H, w0, w1, x2);
  E("ldsetal x0, x1, [x2]");              a.ldsetal(MemSize::X, x0, x1, x2);
  E("ldsetalb w0, w1, [x2]");             a.ldsetal(MemSize::B, w0, w1, x2);
  E("swpal x0, x1, [x2]");                a.swpal(MemSize::X, x0, x1, x2);
  E("swpalb w0, w1, [x2]");               a.swpal(MemSize::B, w0, w1, x2);
  E("swpalh w30, w29, [x28]");            a.swpal(MemSize::H, w30, w29, x28);
}

// clang-format on

class EmitterMemDisasm : public testing::DisasmSuite<EmitterMemDisasm> {
 public:
  static void Build(DisasmBatch& t) {
    general_loads_stores(t);
    pairs(t);
    fp_loads_stores(t);
    exclusive_ordered(t);
    atomics(t);
  }
};

TEST_F(EmitterMemDisasm, LoadStore) { check("LoadStore", __FILE__); }
TEST_F(EmitterMemDisasm, Pair) { check("Pair", __FILE__); }
TEST_F(EmitterMemDisasm, FpLoadStore) { check("FpLoadStore", __FILE__); }
TEST_F(EmitterMemDisasm, Exclusive) { check("Exclusive", __FILE__); }
TEST_F(EmitterMemDisasm, Atomic) { check("Atomic", __FILE__); }

}  // namespace
}  // namespace phybin::arm64
