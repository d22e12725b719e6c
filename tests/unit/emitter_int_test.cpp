// Encodings of the emitter's integer, system and branch instructions,
// checked against aarch64-linux-gnu-objdump (see emitter_disasm.h).  The
// expected texts are what the Arm ARM's preferred disassembly gives.
#include <cstdint>

#include "emitter_disasm.h"

namespace phybin::arm64 {
namespace {

using testing::DisasmBatch;

// The cases are a table: expected text, then the call.
// clang-format off

void add_sub(DisasmBatch& t) {
  t.group("AddSub");
  Assembler& a = t.assembler();
  E("add x0, x1, x2");                    a.add(Size::X, x0, x1, x2);
  E("add w3, w4, w5");                    a.add(Size::W, w3, w4, w5);
  E("add x30, x29, x28, lsl #63");        a.add(Size::X, x30, x29, x28, Shift::LSL, 63);
  E("add w0, w1, w2, lsr #31");           a.add(Size::W, w0, w1, w2, Shift::LSR, 31);
  E("add x0, xzr, x2");                   a.add(Size::X, x0, xzr, x2);
  E("adds x0, x1, x2, asr #7");           a.adds(Size::X, x0, x1, x2, Shift::ASR, 7);
  E("adds w7, w8, w9");                   a.adds(Size::W, w7, w8, w9);
  E("sub x0, x1, xzr");                   a.sub(Size::X, x0, x1, xzr);
  E("sub w10, w11, w12, asr #5");         a.sub(Size::W, w10, w11, w12, Shift::ASR, 5);
  E("subs w0, w1, w2, lsl #1");           a.subs(Size::W, w0, w1, w2, Shift::LSL, 1);
  E("subs x27, x28, x29");                a.subs(Size::X, x27, x28, x29);
  E("cmp x0, x1");                        a.cmp(Size::X, x0, x1);
  E("cmp w0, w1, asr #3");                a.cmp(Size::W, w0, w1, Shift::ASR, 3);
  E("cmn x0, x1");                        a.cmn(Size::X, x0, x1);
  E("cmn w5, w6, lsl #2");                a.cmn(Size::W, w5, w6, Shift::LSL, 2);
  E("neg x0, x1");                        a.neg(Size::X, x0, x1);
  E("neg w0, w1, lsl #2");                a.neg(Size::W, w0, w1, Shift::LSL, 2);
  E("negs x0, x1");                       a.negs(Size::X, x0, x1);
  E("negs w3, w4, lsr #1");               a.negs(Size::W, w3, w4, Shift::LSR, 1);
  // Extended register (the SP-capable form).
  E("add x0, sp, x1");                    a.add(Size::X, x0, sp, x1, Extend::UXTX);
  E("add sp, sp, x1, lsl #4");            a.add(Size::X, sp, sp, x1, Extend::UXTX, 4);
  E("add x0, x1, w2, uxtb");              a.add(Size::X, x0, x1, x2, Extend::UXTB);
  E("add x0, x1, w2, sxtw #2");           a.add(Size::X, x0, x1, x2, Extend::SXTW, 2);
  E("sub x0, x1, x2, sxtx #3");           a.sub(Size::X, x0, x1, x2, Extend::SXTX, 3);
  E("add w0, w1, w2, uxth #1");           a.add(Size::W, w0, w1, w2, Extend::UXTH, 1);
  E("add w0, wsp, w1");                   a.add(Size::W, w0, sp, w1, Extend::UXTW);
  E("subs x0, sp, w1, uxtw");             a.subs(Size::X, x0, sp, x1, Extend::UXTW);
  E("adds x0, x1, w2, sxth");             a.adds(Size::X, x0, x1, x2, Extend::SXTH);
  E("cmp sp, x1");                        a.cmp(Size::X, sp, x1, Extend::UXTX);
  E("sub sp, sp, x16");                   a.sub(Size::X, sp, sp, x16, Extend::UXTX);
  E("add x0, x1, x2, uxtx");              a.add(Size::X, x0, x1, x2, Extend::UXTX);
  // Immediate.
  E("add x0, x1, #0x0");                  a.add(Size::X, x0, x1, 0u);
  E("add x0, x1, #0xfff");                a.add(Size::X, x0, x1, 4095u);
  E("add x0, x1, #0x1, lsl #12");         a.add(Size::X, x0, x1, 1u, true);
  E("add w0, w1, #0xfff, lsl #12");       a.add(Size::W, w0, w1, 0xfffu, true);
  E("sub sp, sp, #0x10");                 a.sub(Size::X, sp, sp, 16u);
  E("add x29, sp, #0x10");                a.add(Size::X, x29, sp, 16u);
  E("subs w0, w1, #0x1");                 a.subs(Size::W, w0, w1, 1u);
  E("adds x0, x1, #0x2a");                a.adds(Size::X, x0, x1, 42u);
  E("cmp x0, #0x10");                     a.cmp(Size::X, x0, 16u);
  E("cmp sp, #0x8");                      a.cmp(Size::X, sp, 8u);
  E("cmp x0, #0x1, lsl #12");             a.cmp(Size::X, x0, 1u, true);
  E("cmn w0, #0x1");                      a.cmn(Size::W, w0, 1u);
  E("mov x0, sp");                        a.mov_sp(x0, sp);
  E("mov sp, x1");                        a.mov_sp(sp, x1);
  // With carry.
  E("adc x0, x1, x2");                    a.adc(Size::X, x0, x1, x2);
  E("adcs w0, w1, w2");                   a.adcs(Size::W, w0, w1, w2);
  E("sbc x3, x4, x5");                    a.sbc(Size::X, x3, x4, x5);
  E("sbcs w30, w29, w28");                a.sbcs(Size::W, w30, w29, w28);
  E("ngc x0, x1");                        a.sbc(Size::X, x0, xzr, x1);
}

void add_imm_sequences(DisasmBatch& t) {
  t.group("AddImm");
  Assembler& a = t.assembler();
  E("add x0, x1, #0x10");                 a.add_imm(Size::X, x0, x1, 16);
  E("sub x0, x1, #0x10");                 a.add_imm(Size::X, x0, x1, -16);
  E("add x0, x1, #0x5, lsl #12");         a.add_imm(Size::X, x0, x1, 0x5000);
  E("add x0, x1, #0x123, lsl #12\n"
    "add x0, x0, #0x456");                a.add_imm(Size::X, x0, x1, 0x123456);
  E("sub sp, sp, #0x1, lsl #12\n"
    "sub sp, sp, #0x10");                 a.sub_imm(Size::X, sp, sp, 0x1010);
  E("mov x0, #0x1000000\n"
    "add x0, x1, x0, uxtx");              a.add_imm(Size::X, x0, x1, 0x1000000);
  E("mov x16, #0x5678\n"
    "movk x16, #0x1234, lsl #16\n"
    "add sp, sp, x16");                   a.add_imm(Size::X, sp, sp, 0x12345678, x16);
  E("mov w16, #0x5678\n"
    "movk w16, #0x1234, lsl #16\n"
    "sub w0, w0, w16, uxtw");             a.sub_imm(Size::W, w0, w0, 0x12345678, w16);
  E("subs w0, w1, #0x1");                 a.subs_imm(Size::W, w0, w1, 1, w16);
  E("adds w0, w1, #0x1");                 a.subs_imm(Size::W, w0, w1, 0xFFFFFFFF, w16);
  E("adds x0, x1, #0x2, lsl #12");        a.adds_imm(Size::X, x0, x1, 0x2000, x16);
  E("cmn x0, #0x5");                      a.cmp_imm(Size::X, x0, -5, x16);
  E("cmp x0, #0x0");                      a.cmp_imm(Size::X, x0, 0, x16);
  E("mov x16, #0x8000000000000000\n"
    "cmp x0, x16, uxtx");                 a.cmp_imm(Size::X, x0, INT64_MIN, x16);
  E("mov w16, #0x80000000\n"
    "cmp w0, w16, uxtw");                 a.cmp_imm(Size::W, w0, INT32_MIN, w16);
  E("mov x2, #0x1000000\n"
    "adds x0, x1, x2, uxtx");             a.adds_imm(Size::X, x0, x1, 0x1000000, x2);
}

void logical(DisasmBatch& t) {
  t.group("Logical");
  Assembler& a = t.assembler();
  E("and x0, x1, x2");                    a.and_(Size::X, x0, x1, x2);
  E("and w0, w1, w2, lsl #31");           a.and_(Size::W, w0, w1, w2, Shift::LSL, 31);
  E("ands x0, x1, x2, ror #63");          a.ands(Size::X, x0, x1, x2, Shift::ROR, 63);
  E("orr x0, x1, x2, lsr #1");            a.orr(Size::X, x0, x1, x2, Shift::LSR, 1);
  E("eor w0, w1, w2, asr #2");            a.eor(Size::W, w0, w1, w2, Shift::ASR, 2);
  E("eor x30, x30, x30");                 a.eor(Size::X, x30, x30, x30);
  E("bic x0, x1, x2");                    a.bic(Size::X, x0, x1, x2);
  E("bics w0, w1, w2, ror #8");           a.bics(Size::W, w0, w1, w2, Shift::ROR, 8);
  E("orn x0, x1, x2");                    a.orn(Size::X, x0, x1, x2);
  E("eon w0, w1, w2, lsl #4");            a.eon(Size::W, w0, w1, w2, Shift::LSL, 4);
  E("tst x0, x1");                        a.tst(Size::X, x0, x1);
  E("tst w0, w1, lsl #3");                a.tst(Size::W, w0, w1, Shift::LSL, 3);
  E("mvn x0, x1");                        a.mvn(Size::X, x0, x1);
  E("mvn w0, w1, ror #3");                a.mvn(Size::W, w0, w1, Shift::ROR, 3);
  E("mov x0, x1");                        a.mov(Size::X, x0, x1);
  E("mov w30, wzr");                      a.mov(Size::W, w30, wzr);
  E("orr x0, xzr, x1, lsl #2");           a.orr(Size::X, x0, xzr, x1, Shift::LSL, 2);
  // Logical immediate.
  E("and x0, x1, #0xff");                 a.and_(Size::X, x0, x1, 0xff);
  E("and w0, w1, #0xfffffffe");           a.and_(Size::W, w0, w1, 0xfffffffe);
  E("and sp, x1, #0xfffffffffffffff0");   a.and_(Size::X, sp, x1, 0xfffffffffffffff0);
  E("and x0, x1, #0x7fffffffffffffff");   a.and_(Size::X, x0, x1, 0x7fffffffffffffff);
  E("orr w0, w1, #0x1");                  a.orr(Size::W, w0, w1, 1);
  E("orr x0, x1, #0xffff0000ffff0000");   a.orr(Size::X, x0, x1, 0xffff0000ffff0000);
  E("eor x0, x1, #0x5555555555555555");   a.eor(Size::X, x0, x1, 0x5555555555555555);
  E("eor w0, w1, #0xaaaaaaaa");           a.eor(Size::W, w0, w1, 0xaaaaaaaa);
  E("eor w2, w3, #0x80000000");           a.eor(Size::W, w2, w3, 0x80000000);
  E("ands x0, x1, #0x8000000000000000");  a.ands(Size::X, x0, x1, 0x8000000000000000);
  E("ands w0, w1, #0x7");                 a.ands(Size::W, w0, w1, 7);
  E("tst w0, #0x80");                     a.tst(Size::W, w0, 0x80);
  E("tst x0, #0x3");                      a.tst(Size::X, x0, 3);
  E("mov x0, #0x5555555555555555");       a.orr(Size::X, x0, xzr, 0x5555555555555555);
  E("orr x0, xzr, #0xff");                a.orr(Size::X, x0, xzr, 0xff);
  E("and x0, x1, #0x1e0000001e000000");   a.and_(Size::X, x0, x1, 0x1e0000001e000000);
  E("and x0, x1, #0xf00000000000000f");   a.and_(Size::X, x0, x1, 0xf00000000000000f);
}

void move_wide(DisasmBatch& t) {
  t.group("MoveWide");
  Assembler& a = t.assembler();
  E("mov x0, #0x1234");                   a.movz(Size::X, x0, 0x1234);
  E("mov x0, #0x12340000");               a.movz(Size::X, x0, 0x1234, 16);
  E("mov x0, #0x123400000000");           a.movz(Size::X, x0, 0x1234, 32);
  E("mov x0, #0x1234000000000000");       a.movz(Size::X, x0, 0x1234, 48);
  E("movz x0, #0x0, lsl #16");            a.movz(Size::X, x0, 0, 16);
  E("mov w0, #0xffff0000");               a.movz(Size::W, w0, 0xffff, 16);
  E("mov x0, #0x0");                      a.movz(Size::X, x0, 0);
  E("mov x0, #0xffffffffffffedcb");       a.movn(Size::X, x0, 0x1234);
  E("mov x0, #0xffffffffffffffff");       a.movn(Size::X, x0, 0);
  E("mov w0, #0xffffedcb");               a.movn(Size::W, w0, 0x1234);
  E("movn w0, #0xffff");                  a.movn(Size::W, w0, 0xffff);
  E("mov x0, #0xffffffffedcbffff");       a.movn(Size::X, x0, 0x1234, 16);
  E("movk x0, #0x1234");                  a.movk(Size::X, x0, 0x1234);
  E("movk x0, #0xffff, lsl #48");         a.movk(Size::X, x0, 0xffff, 48);
  E("movk w0, #0x1, lsl #16");            a.movk(Size::W, w0, 1, 16);
  E("movk x30, #0x8000, lsl #32");        a.movk(Size::X, x30, 0x8000, 32);
  // mov_imm picks the shortest sequence.
  E("mov x0, #0x0");                      a.mov_imm(Size::X, x0, 0);
  E("mov x0, #0xffffffffffffffff");       a.mov_imm(Size::X, x0, ~uint64_t{0});
  E("mov w0, #0xffffffff");               a.mov_imm(Size::W, w0, 0xffffffff);
  E("mov w0, #0x0");                      a.mov_imm(Size::W, w0, 0xffffffff00000000);
  E("mov x0, #0x5555555555555555");       a.mov_imm(Size::X, x0, 0x5555555555555555);
  E("mov w0, #0xf0f0f0f0");               a.mov_imm(Size::W, w0, 0xf0f0f0f0);
  E("mov x1, #0x5678\n"
    "movk x1, #0x1234, lsl #16");         a.mov_imm(Size::X, x1, 0x12345678);
  E("mov x2, #0xffffffffffff5678\n"
    "movk x2, #0x1234, lsl #32");         a.mov_imm(Size::X, x2, 0xffff1234ffff5678);
  E("mov x3, #0x567800000000\n"
    "movk x3, #0x1234, lsl #48");         a.mov_imm(Size::X, x3, 0x1234567800000000);
  E("mov w4, #0x5678\n"
    "movk w4, #0x1234, lsl #16");         a.mov_imm(Size::W, w4, 0x12345678);
  E("mov w4, #0xffff1234");               a.mov_imm(Size::W, w4, 0xffff1234);
  E("mov x5, #0x5555555555555555\n"
    "movk x5, #0x1234");                  a.mov_imm(Size::X, x5, 0x5555555555551234);
  E("mov x6, #0xdef0\n"
    "movk x6, #0x9abc, lsl #16\n"
    "movk x6, #0x5678, lsl #32\n"
    "movk x6, #0x1234, lsl #48");         a.mov_imm(Size::X, x6, 0x123456789abcdef0);
}

void shifts_bitfields(DisasmBatch& t) {
  t.group("ShiftBitfield");
  Assembler& a = t.assembler();
  E("lsl x0, x1, x2");                    a.lslv(Size::X, x0, x1, x2);
  E("lsr w0, w1, w2");                    a.lsrv(Size::W, w0, w1, w2);
  E("asr x0, x1, x2");                    a.asrv(Size::X, x0, x1, x2);
  E("ror w0, w1, w2");                    a.rorv(Size::W, w0, w1, w2);
  E("lsl w3, w4, w5");                    a.lsl(Size::W, w3, w4, w5);
  E("ror x3, x4, x5");                    a.ror(Size::X, x3, x4, x5);
  E("lsl x0, x1, #3");                    a.lsl(Size::X, x0, x1, 3u);
  E("lsl x0, x1, #63");                   a.lsl(Size::X, x0, x1, 63u);
  E("lsl w0, w1, #31");                   a.lsl(Size::W, w0, w1, 31u);
  E("lsr x0, x1, #0");                    a.lsl(Size::X, x0, x1, 0u);  // UBFM #0, #63 prints as LSR
  E("lsr x0, x1, #63");                   a.lsr(Size::X, x0, x1, 63u);
  E("lsr w0, w1, #1");                    a.lsr(Size::W, w0, w1, 1u);
  E("asr x0, x1, #32");                   a.asr(Size::X, x0, x1, 32u);
  E("asr w0, w1, #0");                    a.asr(Size::W, w0, w1, 0u);
  E("ror x0, x1, #7");                    a.ror(Size::X, x0, x1, 7u);
  E("ror w0, w1, #31");                   a.ror(Size::W, w0, w1, 31u);
  E("ubfx x0, x1, #4, #8");               a.ubfx(Size::X, x0, x1, 4, 8);
  E("ubfx w0, w1, #3, #5");               a.ubfx(Size::W, w0, w1, 3, 5);
  E("ubfx x0, x1, #0, #8");               a.ubfx(Size::X, x0, x1, 0, 8);
  E("ubfx x0, x1, #1, #62");              a.ubfx(Size::X, x0, x1, 1, 62);
  E("sbfx x0, x1, #8, #16");              a.sbfx(Size::X, x0, x1, 8, 16);
  E("sbfx w0, w1, #0, #1");               a.sbfx(Size::W, w0, w1, 0, 1);
  E("bfxil x0, x1, #0, #32");             a.bfxil(Size::X, x0, x1, 0, 32);
  E("bfxil w0, w1, #8, #8");              a.bfxil(Size::W, w0, w1, 8, 8);
  E("bfi w0, w1, #8, #8");                a.bfi(Size::W, w0, w1, 8, 8);
  E("bfi x0, x1, #63, #1");               a.bfi(Size::X, x0, x1, 63, 1);
  E("bfi x2, x3, #1, #63");               a.bfi(Size::X, x2, x3, 1, 63);
  E("ubfiz x0, x1, #4, #8");              a.ubfiz(Size::X, x0, x1, 4, 8);
  E("sbfiz w0, w1, #1, #3");              a.sbfiz(Size::W, w0, w1, 1, 3);
  E("sbfiz x0, x1, #32, #16");            a.sbfiz(Size::X, x0, x1, 32, 16);
  E("uxtb w0, w1");                       a.uxtb(w0, w1);
  E("uxth w2, w3");                       a.uxth(w2, w3);
  E("sxtb x0, w1");                       a.sxtb(Size::X, x0, w1);
  E("sxtb w0, w1");                       a.sxtb(Size::W, w0, w1);
  E("sxth x0, w1");                       a.sxth(Size::X, x0, w1);
  E("sxth w0, w30");                      a.sxth(Size::W, w0, w30);
  E("sxtw x0, w1");                       a.sxtw(x0, w1);
  E("ubfx x0, x1, #0, #32");              a.ubfm(Size::X, x0, x1, 0, 31);
  E("extr x0, x1, x2, #7");               a.extr(Size::X, x0, x1, x2, 7);
  E("extr w0, w1, w2, #31");              a.extr(Size::W, w0, w1, w2, 31);
  E("extr x0, x1, x2, #0");               a.extr(Size::X, x0, x1, x2, 0);
}

void multiply_divide_bits(DisasmBatch& t) {
  t.group("MulDivBits");
  Assembler& a = t.assembler();
  E("madd x0, x1, x2, x3");               a.madd(Size::X, x0, x1, x2, x3);
  E("madd w0, w1, w2, w3");               a.madd(Size::W, w0, w1, w2, w3);
  E("msub x0, x1, x2, x3");               a.msub(Size::X, x0, x1, x2, x3);
  E("msub w27, w28, w29, w30");           a.msub(Size::W, w27, w28, w29, w30);
  E("mul x0, x1, x2");                    a.mul(Size::X, x0, x1, x2);
  E("mul w0, w1, w2");                    a.mul(Size::W, w0, w1, w2);
  E("mneg x0, x1, x2");                   a.mneg(Size::X, x0, x1, x2);
  E("smaddl x0, w1, w2, x3");             a.smaddl(x0, w1, w2, x3);
  E("umaddl x0, w1, w2, x3");             a.umaddl(x0, w1, w2, x3);
  E("smsubl x0, w1, w2, x3");             a.smsubl(x0, w1, w2, x3);
  E("umsubl x0, w1, w2, x3");             a.umsubl(x0, w1, w2, x3);
  E("smull x0, w1, w2");                  a.smull(x0, w1, w2);
  E("umull x30, w29, w28");               a.umull(x30, w29, w28);
  E("smulh x0, x1, x2");                  a.smulh(x0, x1, x2);
  E("umulh x0, x1, x2");                  a.umulh(x0, x1, x2);
  E("sdiv x0, x1, x2");                   a.sdiv(Size::X, x0, x1, x2);
  E("sdiv w0, w1, w2");                   a.sdiv(Size::W, w0, w1, w2);
  E("udiv x0, x1, x2");                   a.udiv(Size::X, x0, x1, x2);
  E("udiv w0, w1, w2");                   a.udiv(Size::W, w0, w1, w2);
  E("clz x0, x1");                        a.clz(Size::X, x0, x1);
  E("clz w0, w1");                        a.clz(Size::W, w0, w1);
  E("cls x0, x1");                        a.cls(Size::X, x0, x1);
  E("cls w0, w1");                        a.cls(Size::W, w0, w1);
  E("rbit x0, x1");                       a.rbit(Size::X, x0, x1);
  E("rbit w0, w1");                       a.rbit(Size::W, w0, w1);
  E("rev x0, x1");                        a.rev(Size::X, x0, x1);
  E("rev w0, w1");                        a.rev(Size::W, w0, w1);
  E("rev16 x0, x1");                      a.rev16(Size::X, x0, x1);
  E("rev16 w0, w1");                      a.rev16(Size::W, w0, w1);
  E("rev32 x0, x1");                      a.rev32(x0, x1);
  E("crc32cb w0, w1, w2");                a.crc32c(0, w0, w1, w2);
  E("crc32ch w3, w4, w5");                a.crc32c(1, w3, w4, w5);
  E("crc32cw w6, w7, w8");                a.crc32c(2, w6, w7, w8);
  E("crc32cx w9, w10, x11");              a.crc32c(3, w9, w10, x11);
}

void conditional(DisasmBatch& t) {
  t.group("Conditional");
  Assembler& a = t.assembler();
  E("csel x0, x1, x2, eq");               a.csel(Size::X, x0, x1, x2, Cond::EQ);
  E("csel w0, w1, w2, al");               a.csel(Size::W, w0, w1, w2, Cond::AL);
  E("csinc x0, x1, x2, ne");              a.csinc(Size::X, x0, x1, x2, Cond::NE);
  E("csinv w0, w1, w2, cs");              a.csinv(Size::W, w0, w1, w2, Cond::HS);
  E("csneg x0, x1, x2, lt");              a.csneg(Size::X, x0, x1, x2, Cond::LT);
  E("csel x0, x1, x2, cc");               a.csel(Size::X, x0, x1, x2, Cond::LO);
  E("csel x0, x1, x2, mi");               a.csel(Size::X, x0, x1, x2, Cond::MI);
  E("csel x0, x1, x2, pl");               a.csel(Size::X, x0, x1, x2, Cond::PL);
  E("csel x0, x1, x2, vs");               a.csel(Size::X, x0, x1, x2, Cond::VS);
  E("csel x0, x1, x2, vc");               a.csel(Size::X, x0, x1, x2, Cond::VC);
  E("csel x0, x1, x2, hi");               a.csel(Size::X, x0, x1, x2, Cond::HI);
  E("csel x0, x1, x2, ls");               a.csel(Size::X, x0, x1, x2, Cond::LS);
  E("csel x0, x1, x2, ge");               a.csel(Size::X, x0, x1, x2, Cond::GE);
  E("csel x0, x1, x2, gt");               a.csel(Size::X, x0, x1, x2, Cond::GT);
  E("csel x0, x1, x2, le");               a.csel(Size::X, x0, x1, x2, Cond::LE);
  E("cset x0, eq");                       a.cset(Size::X, x0, Cond::EQ);
  E("cset w0, cc");                       a.cset(Size::W, w0, Cond::LO);
  E("csetm x0, gt");                      a.csetm(Size::X, x0, Cond::GT);
  E("csetm w1, vs");                      a.csetm(Size::W, w1, Cond::VS);
  E("cinc x0, x1, eq");                   a.cinc(Size::X, x0, x1, Cond::EQ);
  E("cinv w0, w1, le");                   a.cinv(Size::W, w0, w1, Cond::LE);
  E("cneg x0, x1, mi");                   a.cneg(Size::X, x0, x1, Cond::MI);
  E("ccmp x0, x1, #0x4, ne");             a.ccmp(Size::X, x0, x1, 4, Cond::NE);
  E("ccmp w0, #0x1f, #0xf, eq");          a.ccmp(Size::W, w0, 31u, 15, Cond::EQ);
  E("ccmn x0, x1, #0x0, hi");             a.ccmn(Size::X, x0, x1, 0, Cond::HI);
  E("ccmn w0, #0x0, #0x2, vs");           a.ccmn(Size::W, w0, 0u, 2, Cond::VS);
  E("ccmp x30, xzr, #0x8, le");           a.ccmp(Size::X, x30, xzr, 8, Cond::LE);
}

void system(DisasmBatch& t) {
  t.group("System");
  Assembler& a = t.assembler();
  E("mrs x0, nzcv");                      a.mrs(x0, SysReg::NZCV);
  E("msr nzcv, x1");                      a.msr(SysReg::NZCV, x1);
  E("mrs x2, fpcr");                      a.mrs(x2, SysReg::FPCR);
  E("msr fpcr, x3");                      a.msr(SysReg::FPCR, x3);
  E("mrs x4, fpsr");                      a.mrs(x4, SysReg::FPSR);
  E("msr fpsr, xzr");                     a.msr(SysReg::FPSR, xzr);
  E("mrs x6, tpidr_el0");                 a.mrs(x6, SysReg::TPIDR_EL0);
  E("msr tpidr_el0, x7");                 a.msr(SysReg::TPIDR_EL0, x7);
  E("mrs x8, cntvct_el0");                a.mrs(x8, SysReg::CNTVCT_EL0);
  E("mrs x9, cntfrq_el0");                a.mrs(x9, SysReg::CNTFRQ_EL0);
  E("mrs x10, dczid_el0");                a.mrs(x10, SysReg::DCZID_EL0);
  E("mrs x11, midr_el1");                 a.mrs(x11, SysReg::MIDR_EL1);
  E("dmb ish");                           a.dmb(Barrier::ISH);
  E("dmb ishld");                         a.dmb(Barrier::ISHLD);
  E("dmb ishst");                         a.dmb(Barrier::ISHST);
  E("dmb sy");                            a.dmb(Barrier::SY);
  E("dsb ish");                           a.dsb(Barrier::ISH);
  E("isb");                               a.isb();
  E("nop");                               a.nop();
  E("brk #0x0");                          a.brk(0);
  E("brk #0xffff");                       a.brk(0xffff);
  E("svc #0x0");                          a.svc(0);
  E("udf #1");                            a.udf(1);
}

void branches(DisasmBatch& t) {
  t.group("Branch");
  Assembler& a = t.assembler();
  const auto at = [&](uint64_t offset) { return DisasmBatch::addr(offset); };
  Label back;
  a.bind(back);
  const uint64_t back_at = t.here();
  E("b " + at(back_at));                  a.b(back);
  // Forward references: ten instructions, then the label.
  Label fwd;
  const uint64_t fwd_at = t.here() + 10 * 4;
  E("b " + at(fwd_at));                   a.b(fwd);
  E("bl " + at(fwd_at));                  a.bl(fwd);
  E("b.eq " + at(fwd_at));                a.b(Cond::EQ, fwd);
  E("b.cs " + at(fwd_at));                a.b(Cond::HS, fwd);
  E("cbz x0, " + at(fwd_at));             a.cbz(Size::X, x0, fwd);
  E("cbnz w1, " + at(fwd_at));            a.cbnz(Size::W, w1, fwd);
  E("tbz w2, #3, " + at(fwd_at));         a.tbz(w2, 3, fwd);
  E("tbnz x3, #63, " + at(fwd_at));       a.tbnz(x3, 63, fwd);
  E("adr x4, " + at(fwd_at));             a.adr(x4, fwd);
  E("ldr x5, " + at(fwd_at));             a.ldr(Size::X, x5, fwd);
  a.bind(fwd);
  // Backward references.
  E("b.nv " + at(back_at));               a.b(Cond::NV, back);
  E("b.le " + at(fwd_at));                a.b(Cond::LE, fwd);
  E("cbnz x30, " + at(back_at));          a.cbnz(Size::X, x30, back);
  E("tbz x1, #32, " + at(back_at));       a.tbz(x1, 32, back);
  E("tbnz w1, #0, " + at(fwd_at));        a.tbnz(w1, 0, fwd);
  E("adr x0, " + at(back_at));            a.adr(x0, back);
  E("ldr w6, " + at(back_at));            a.ldr(Size::W, w6, back);
  E("bl " + at(back_at));                 a.bl(back);
  // Absolute targets (the buffer is page-aligned and disassembled at 0).
  const uint8_t* base = reinterpret_cast<const uint8_t*>(a.begin());
  E("b 0x100");                           a.b(base + 0x100);
  E("bl 0x10000");                        a.bl(base + 0x10000);
  E("b.ne 0x8");                          a.b(Cond::NE, base + 8);
  E("adr x7, " + at(t.here() + 3));       a.adr(x7, base + t.here() + 3);
  E("adr x7, " + at(t.here() - 5));       a.adr(x7, base + t.here() - 5);
  const uintptr_t far = reinterpret_cast<uintptr_t>(base) + 0x123456;  // beyond the buffer
  E("adrp x1, 0x123000");                 a.adrp(x1, reinterpret_cast<const void*>(far));
  E("adrp x2, 0x0");                      a.adrp(x2, base + 0xfff);
  E("br x16");                            a.br(x16);
  E("blr x1");                            a.blr(x1);
  E("ret");                               a.ret();
  E("ret x2");                            a.ret(x2);
}

// clang-format on

class EmitterIntDisasm : public testing::DisasmSuite<EmitterIntDisasm> {
 public:
  static void Build(DisasmBatch& t) {
    add_sub(t);
    add_imm_sequences(t);
    logical(t);
    move_wide(t);
    shifts_bitfields(t);
    multiply_divide_bits(t);
    conditional(t);
    system(t);
    branches(t);
    EXPECT_EQ(t.assembler().unresolved_fixups(), 0u);
  }
};

TEST_F(EmitterIntDisasm, AddSub) { check("AddSub", __FILE__); }
TEST_F(EmitterIntDisasm, AddImm) { check("AddImm", __FILE__); }
TEST_F(EmitterIntDisasm, Logical) { check("Logical", __FILE__); }
TEST_F(EmitterIntDisasm, MoveWide) { check("MoveWide", __FILE__); }
TEST_F(EmitterIntDisasm, ShiftBitfield) { check("ShiftBitfield", __FILE__); }
TEST_F(EmitterIntDisasm, MulDivBits) { check("MulDivBits", __FILE__); }
TEST_F(EmitterIntDisasm, Conditional) { check("Conditional", __FILE__); }
TEST_F(EmitterIntDisasm, System) { check("System", __FILE__); }
TEST_F(EmitterIntDisasm, Branch) { check("Branch", __FILE__); }

}  // namespace
}  // namespace phybin::arm64
