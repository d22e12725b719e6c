// Encodings of the emitter's SIMD, floating-point and crypto instructions,
// checked against aarch64-linux-gnu-objdump (see emitter_disasm.h).
#include "emitter_disasm.h"

namespace phybin::arm64 {
namespace {

using testing::DisasmBatch;

// The cases are a table: expected text, then the call.
// clang-format off

void moves(DisasmBatch& t) {
  t.group("SimdMove");
  Assembler& a = t.assembler();
  E("fmov s0, s1");                       a.fmov(FSize::S, v0, v1);
  E("fmov d31, d0");                      a.fmov(FSize::D, v31, v0);
  E("fmov s0, w1");                       a.fmov(FSize::S, v0, w1);
  E("fmov w0, s1");                       a.fmov(FSize::S, w0, v1);
  E("fmov d0, x1");                       a.fmov(FSize::D, v0, x1);
  E("fmov x0, d1");                       a.fmov(FSize::D, x0, v1);
  E("fmov d2, xzr");                      a.fmov(FSize::D, v2, xzr);
  E("fmov v0.d[1], x1");                  a.fmov_to_high(v0, x1);
  E("fmov x0, v1.d[1]");                  a.fmov_from_high(x0, v1);
  E("mov v0.s[1], w1");                   a.ins(FSize::S, v0, 1, w1);
  E("mov v0.d[1], x1");                   a.ins(FSize::D, v0, 1, x1);
  E("mov v0.b[15], w1");                  a.ins(FSize::B, v0, 15, w1);
  E("mov v31.h[7], w30");                 a.ins(FSize::H, v31, 7, w30);
  E("mov v0.h[3], v1.h[7]");              a.ins(FSize::H, v0, 3, v1, 7);
  E("mov v0.b[0], v1.b[15]");             a.ins(FSize::B, v0, 0, v1, 15);
  E("mov v0.s[3], v1.s[0]");              a.ins(FSize::S, v0, 3, v1, 0);
  E("mov v0.d[1], v1.d[0]");              a.ins(FSize::D, v0, 1, v1, 0);
  E("umov w0, v1.b[3]");                  a.umov(FSize::B, w0, v1, 3);
  E("umov w0, v1.h[7]");                  a.umov(FSize::H, w0, v1, 7);
  E("mov w0, v1.s[3]");                   a.umov(FSize::S, w0, v1, 3);
  E("mov x0, v1.d[1]");                   a.umov(FSize::D, x0, v1, 1);
  E("smov x0, v1.b[0]");                  a.smov(Size::X, FSize::B, x0, v1, 0);
  E("smov w0, v1.h[1]");                  a.smov(Size::W, FSize::H, w0, v1, 1);
  E("smov x0, v1.s[3]");                  a.smov(Size::X, FSize::S, x0, v1, 3);
  E("dup v0.4s, v1.s[3]");                a.dup(VArr::S4, v0, v1, 3);
  E("dup v0.8b, v1.b[15]");               a.dup(VArr::B8, v0, v1, 15);
  E("dup v0.2d, v1.d[1]");                a.dup(VArr::D2, v0, v1, 1);
  E("dup v0.16b, w1");                    a.dup(VArr::B16, v0, w1);
  E("dup v0.4h, w1");                     a.dup(VArr::H4, v0, w1);
  E("dup v0.2d, x1");                     a.dup(VArr::D2, v0, x1);
  E("mov s0, v1.s[2]");                   a.dup(FSize::S, v0, v1, 2);
  E("mov d0, v1.d[1]");                   a.dup(FSize::D, v0, v1, 1);
  E("mov v0.16b, v1.16b");                a.mov(VArr::B16, v0, v1);
  E("mov v0.8b, v31.8b");                 a.mov(VArr::B8, v0, v31);
  E("movi v0.16b, #0xff");                a.movi(VArr::B16, v0, 0xff);
  E("movi v1.8b, #0x1");                  a.movi(VArr::B8, v1, 1);
  E("movi v0.2d, #0x0");                  a.movi(VArr::D2, v0, 0);
  E("movi v2.2d, #0xff00ff00ff00ff00");   a.movi(VArr::D2, v2, 0xff00ff00ff00ff00);
  E("movi d3, #0xffffffffffffffff");      a.movi(VArr::D1, v3, ~uint64_t{0});
}

void integer_vector(DisasmBatch& t) {
  t.group("SimdInt");
  Assembler& a = t.assembler();
  E("add v0.8b, v1.8b, v2.8b");           a.add(VArr::B8, v0, v1, v2);
  E("add v0.16b, v1.16b, v2.16b");        a.add(VArr::B16, v0, v1, v2);
  E("add v0.4h, v1.4h, v2.4h");           a.add(VArr::H4, v0, v1, v2);
  E("add v0.8h, v1.8h, v2.8h");           a.add(VArr::H8, v0, v1, v2);
  E("add v0.2s, v1.2s, v2.2s");           a.add(VArr::S2, v0, v1, v2);
  E("add v0.4s, v1.4s, v2.4s");           a.add(VArr::S4, v0, v1, v2);
  E("add v29.2d, v30.2d, v31.2d");        a.add(VArr::D2, v29, v30, v31);
  E("sub v0.16b, v1.16b, v2.16b");        a.sub(VArr::B16, v0, v1, v2);
  E("sub v0.2d, v1.2d, v2.2d");           a.sub(VArr::D2, v0, v1, v2);
  E("mul v0.8h, v1.8h, v2.8h");           a.mul(VArr::H8, v0, v1, v2);
  E("mul v0.4s, v1.4s, v2.4s");           a.mul(VArr::S4, v0, v1, v2);
  E("addp v0.2d, v1.2d, v2.2d");          a.addp(VArr::D2, v0, v1, v2);
  E("addp v0.16b, v1.16b, v2.16b");       a.addp(VArr::B16, v0, v1, v2);
  E("cmeq v0.16b, v1.16b, v2.16b");       a.cmeq(VArr::B16, v0, v1, v2);
  E("cmeq v0.2d, v1.2d, v2.2d");          a.cmeq(VArr::D2, v0, v1, v2);
  E("cmgt v0.4s, v1.4s, v2.4s");          a.cmgt(VArr::S4, v0, v1, v2);
  E("cmge v0.8h, v1.8h, v2.8h");          a.cmge(VArr::H8, v0, v1, v2);
  E("cmhi v0.2d, v1.2d, v2.2d");          a.cmhi(VArr::D2, v0, v1, v2);
  E("cmhs v0.8b, v1.8b, v2.8b");          a.cmhs(VArr::B8, v0, v1, v2);
  E("cmtst v0.4s, v1.4s, v2.4s");         a.cmtst(VArr::S4, v0, v1, v2);
  E("sqadd v0.16b, v1.16b, v2.16b");      a.sqadd(VArr::B16, v0, v1, v2);
  E("uqadd v0.8h, v1.8h, v2.8h");         a.uqadd(VArr::H8, v0, v1, v2);
  E("sqsub v0.4s, v1.4s, v2.4s");         a.sqsub(VArr::S4, v0, v1, v2);
  E("uqsub v0.16b, v1.16b, v2.16b");      a.uqsub(VArr::B16, v0, v1, v2);
  E("sshl v0.2d, v1.2d, v2.2d");          a.sshl(VArr::D2, v0, v1, v2);
  E("ushl v0.4s, v1.4s, v2.4s");          a.ushl(VArr::S4, v0, v1, v2);
  E("smin v0.4s, v1.4s, v2.4s");          a.smin(VArr::S4, v0, v1, v2);
  E("smax v0.8h, v1.8h, v2.8h");          a.smax(VArr::H8, v0, v1, v2);
  E("umin v0.16b, v1.16b, v2.16b");       a.umin(VArr::B16, v0, v1, v2);
  E("umax v0.2s, v1.2s, v2.2s");          a.umax(VArr::S2, v0, v1, v2);
  E("sminp v0.8h, v1.8h, v2.8h");         a.sminp(VArr::H8, v0, v1, v2);
  E("smaxp v0.4s, v1.4s, v2.4s");         a.smaxp(VArr::S4, v0, v1, v2);
  E("uminp v0.16b, v1.16b, v2.16b");      a.uminp(VArr::B16, v0, v1, v2);
  E("umaxp v0.4h, v1.4h, v2.4h");         a.umaxp(VArr::H4, v0, v1, v2);
  E("urhadd v0.16b, v1.16b, v2.16b");     a.urhadd(VArr::B16, v0, v1, v2);
  E("urhadd v0.8h, v1.8h, v2.8h");        a.urhadd(VArr::H8, v0, v1, v2);
  E("and v0.16b, v1.16b, v2.16b");        a.and_(VArr::B16, v0, v1, v2);
  E("orr v0.8b, v1.8b, v2.8b");           a.orr(VArr::B8, v0, v1, v2);
  E("eor v0.16b, v1.16b, v2.16b");        a.eor(VArr::B16, v0, v1, v2);
  E("bic v0.16b, v1.16b, v2.16b");        a.bic(VArr::B16, v0, v1, v2);
  E("orn v0.16b, v1.16b, v2.16b");        a.orn(VArr::B16, v0, v1, v2);
  E("bsl v0.16b, v1.16b, v2.16b");        a.bsl(VArr::B16, v0, v1, v2);
  E("bit v0.16b, v1.16b, v2.16b");        a.bit(VArr::B16, v0, v1, v2);
  E("bif v0.8b, v1.8b, v2.8b");           a.bif(VArr::B8, v0, v1, v2);
  // One source.
  E("cmeq v0.16b, v1.16b, #0");           a.cmeq0(VArr::B16, v0, v1);
  E("cmeq v0.2d, v1.2d, #0");             a.cmeq0(VArr::D2, v0, v1);
  E("cmge v0.4s, v1.4s, #0");             a.cmge0(VArr::S4, v0, v1);
  E("cmgt v0.8h, v1.8h, #0");             a.cmgt0(VArr::H8, v0, v1);
  E("cmle v0.2s, v1.2s, #0");             a.cmle0(VArr::S2, v0, v1);
  E("cmlt v0.2d, v1.2d, #0");             a.cmlt0(VArr::D2, v0, v1);
  E("mvn v0.16b, v1.16b");                a.mvn(VArr::B16, v0, v1);
  E("mvn v0.8b, v1.8b");                  a.mvn(VArr::B8, v0, v1);
  E("neg v0.4s, v1.4s");                  a.neg(VArr::S4, v0, v1);
  E("neg v0.2d, v1.2d");                  a.neg(VArr::D2, v0, v1);
  E("abs v0.16b, v1.16b");                a.abs(VArr::B16, v0, v1);
  E("abs v0.8h, v1.8h");                  a.abs(VArr::H8, v0, v1);
  E("cnt v0.8b, v1.8b");                  a.cnt(VArr::B8, v0, v1);
  E("cnt v0.16b, v1.16b");                a.cnt(VArr::B16, v0, v1);
  E("rev16 v0.16b, v1.16b");              a.rev16(VArr::B16, v0, v1);
  E("rev32 v0.8h, v1.8h");                a.rev32(VArr::H8, v0, v1);
  E("rev64 v0.4s, v1.4s");                a.rev64(VArr::S4, v0, v1);
  E("rev64 v0.16b, v1.16b");              a.rev64(VArr::B16, v0, v1);
  // Across lanes.
  E("addv b0, v1.16b");                   a.addv(VArr::B16, v0, v1);
  E("addv h0, v1.4h");                    a.addv(VArr::H4, v0, v1);
  E("addv s0, v1.4s");                    a.addv(VArr::S4, v0, v1);
  E("uaddlv h0, v1.16b");                 a.uaddlv(VArr::B16, v0, v1);
  E("uaddlv s0, v1.8h");                  a.uaddlv(VArr::H8, v0, v1);
  E("uaddlv d0, v1.4s");                  a.uaddlv(VArr::S4, v0, v1);
  E("saddlv h0, v1.8b");                  a.saddlv(VArr::B8, v0, v1);
  E("uminv b0, v1.16b");                  a.uminv(VArr::B16, v0, v1);
  E("umaxv h0, v1.8h");                   a.umaxv(VArr::H8, v0, v1);
  E("sminv s0, v1.4s");                   a.sminv(VArr::S4, v0, v1);
  E("smaxv b0, v1.8b");                   a.smaxv(VArr::B8, v0, v1);
}

void widen_narrow_shift(DisasmBatch& t) {
  t.group("SimdShift");
  Assembler& a = t.assembler();
  E("xtn v0.8b, v1.8h");                  a.xtn(VArr::B8, v0, v1);
  E("xtn2 v0.16b, v1.8h");                a.xtn(VArr::B16, v0, v1);
  E("xtn v0.2s, v1.2d");                  a.xtn(VArr::S2, v0, v1);
  E("sqxtn v0.4h, v1.4s");                a.sqxtn(VArr::H4, v0, v1);
  E("sqxtn2 v0.16b, v1.8h");              a.sqxtn(VArr::B16, v0, v1);
  E("uqxtn v0.8b, v1.8h");                a.uqxtn(VArr::B8, v0, v1);
  E("uqxtn2 v0.8h, v1.4s");               a.uqxtn(VArr::H8, v0, v1);
  E("sqxtun v0.2s, v1.2d");               a.sqxtun(VArr::S2, v0, v1);
  E("sqxtun2 v0.16b, v1.8h");             a.sqxtun(VArr::B16, v0, v1);
  E("shrn v0.8b, v1.8h, #4");             a.shrn(VArr::B8, v0, v1, 4);
  E("shrn2 v0.4s, v1.2d, #32");           a.shrn(VArr::S4, v0, v1, 32);
  E("rshrn v0.4h, v1.4s, #15");           a.rshrn(VArr::H4, v0, v1, 15);
  E("rshrn2 v2.8h, v3.4s, #15");          a.rshrn(VArr::H8, v2, v3, 15);
  E("rshrn v0.8b, v1.8h, #1");            a.rshrn(VArr::B8, v0, v1, 1);
  E("ushll v0.8h, v1.8b, #3");            a.ushll(VArr::B8, v0, v1, 3);
  E("ushll2 v0.2d, v1.4s, #31");          a.ushll(VArr::S4, v0, v1, 31);
  E("sshll v0.4s, v1.4h, #15");           a.sshll(VArr::H4, v0, v1, 15);
  E("uxtl v0.8h, v1.8b");                 a.uxtl(VArr::B8, v0, v1);
  E("uxtl2 v0.4s, v1.8h");                a.uxtl(VArr::H8, v0, v1);
  E("sxtl v0.2d, v1.2s");                 a.sxtl(VArr::S2, v0, v1);
  E("sxtl2 v0.2d, v1.4s");                a.sxtl(VArr::S4, v0, v1);
  E("smull v0.8h, v1.8b, v2.8b");         a.smull(VArr::B8, v0, v1, v2);
  E("smull2 v0.4s, v1.8h, v2.8h");        a.smull(VArr::H8, v0, v1, v2);
  E("umull v0.2d, v1.2s, v2.2s");         a.umull(VArr::S2, v0, v1, v2);
  E("umull2 v0.2d, v1.4s, v2.4s");        a.umull(VArr::S4, v0, v1, v2);
  E("shl v0.4s, v1.4s, #3");              a.shl(VArr::S4, v0, v1, 3);
  E("shl v0.16b, v1.16b, #0");            a.shl(VArr::B16, v0, v1, 0);
  E("shl v0.2d, v1.2d, #63");             a.shl(VArr::D2, v0, v1, 63);
  E("ushr v0.2d, v1.2d, #64");            a.ushr(VArr::D2, v0, v1, 64);
  E("ushr v0.8h, v1.8h, #1");             a.ushr(VArr::H8, v0, v1, 1);
  E("sshr v0.8h, v1.8h, #16");            a.sshr(VArr::H8, v0, v1, 16);
  E("sshr v0.2s, v1.2s, #31");            a.sshr(VArr::S2, v0, v1, 31);
  E("usra v0.16b, v1.16b, #7");           a.usra(VArr::B16, v0, v1, 7);
  E("ssra v0.4s, v1.4s, #1");             a.ssra(VArr::S4, v0, v1, 1);
  E("sshl v0.16b, v1.16b, v2.16b");       a.sshl(VArr::B16, v0, v1, v2);
}

void permutes(DisasmBatch& t) {
  t.group("SimdPermute");
  Assembler& a = t.assembler();
  E("zip1 v0.16b, v1.16b, v2.16b");       a.zip1(VArr::B16, v0, v1, v2);
  E("zip2 v0.8h, v1.8h, v2.8h");          a.zip2(VArr::H8, v0, v1, v2);
  E("uzp1 v0.4s, v1.4s, v2.4s");          a.uzp1(VArr::S4, v0, v1, v2);
  E("uzp2 v0.2d, v1.2d, v2.2d");          a.uzp2(VArr::D2, v0, v1, v2);
  E("trn1 v0.8b, v1.8b, v2.8b");          a.trn1(VArr::B8, v0, v1, v2);
  E("trn2 v0.2s, v1.2s, v2.2s");          a.trn2(VArr::S2, v0, v1, v2);
  E("zip1 v0.2d, v1.2d, v2.2d");          a.zip1(VArr::D2, v0, v1, v2);
  E("ext v0.16b, v1.16b, v2.16b, #3");    a.ext(VArr::B16, v0, v1, v2, 3);
  E("ext v0.16b, v1.16b, v2.16b, #15");   a.ext(VArr::B16, v0, v1, v2, 15);
  E("ext v0.8b, v1.8b, v2.8b, #7");       a.ext(VArr::B8, v0, v1, v2, 7);
  E("tbl v0.16b, {v1.16b}, v2.16b");      a.tbl(VArr::B16, v0, v1, 1, v2);
  E("tbl v0.16b, {v1.16b, v2.16b}, v3.16b");
                                          a.tbl(VArr::B16, v0, v1, 2, v3);
  E("tbl v0.8b, {v31.16b, v0.16b}, v1.8b");
                                          a.tbl(VArr::B8, v0, v31, 2, v1);
  // objdump writes lists of three or more registers as a range unless they wrap.
  E("tbl v0.16b, {v4.16b-v7.16b}, v3.16b"); a.tbl(VArr::B16, v0, v4, 4, v3);
  E("tbx v0.8b, {v30.16b, v31.16b, v0.16b}, v3.8b");
                                          a.tbx(VArr::B8, v0, v30, 3, v3);
  E("tbx v0.16b, {v1.16b}, v2.16b");      a.tbx(VArr::B16, v0, v1, 1, v2);
}

void fp_scalar(DisasmBatch& t) {
  t.group("FpScalar");
  Assembler& a = t.assembler();
  E("fadd s0, s1, s2");                   a.fadd(FSize::S, v0, v1, v2);
  E("fadd d0, d1, d2");                   a.fadd(FSize::D, v0, v1, v2);
  E("fsub s31, s30, s29");                a.fsub(FSize::S, v31, v30, v29);
  E("fmul d0, d1, d2");                   a.fmul(FSize::D, v0, v1, v2);
  E("fdiv s0, s1, s2");                   a.fdiv(FSize::S, v0, v1, v2);
  E("fmin d0, d1, d2");                   a.fmin(FSize::D, v0, v1, v2);
  E("fmax s0, s1, s2");                   a.fmax(FSize::S, v0, v1, v2);
  E("fminnm d0, d1, d2");                 a.fminnm(FSize::D, v0, v1, v2);
  E("fmaxnm s0, s1, s2");                 a.fmaxnm(FSize::S, v0, v1, v2);
  E("fsqrt d0, d1");                      a.fsqrt(FSize::D, v0, v1);
  E("fsqrt s0, s1");                      a.fsqrt(FSize::S, v0, v1);
  E("fabs s0, s1");                       a.fabs(FSize::S, v0, v1);
  E("fneg d0, d1");                       a.fneg(FSize::D, v0, v1);
  E("frintn s0, s1");                     a.frintn(FSize::S, v0, v1);
  E("frintm d0, d1");                     a.frintm(FSize::D, v0, v1);
  E("frintp s0, s1");                     a.frintp(FSize::S, v0, v1);
  E("frintz d0, d1");                     a.frintz(FSize::D, v0, v1);
  E("frinta s0, s1");                     a.frinta(FSize::S, v0, v1);
  E("frintx d0, d1");                     a.frintx(FSize::D, v0, v1);
  E("frinti s0, s1");                     a.frinti(FSize::S, v0, v1);
  E("frecpe s0, s1");                     a.frecpe(FSize::S, v0, v1);
  E("frsqrte d0, d1");                    a.frsqrte(FSize::D, v0, v1);
  E("frecps s0, s1, s2");                 a.frecps(FSize::S, v0, v1, v2);
  E("frsqrts d0, d1, d2");                a.frsqrts(FSize::D, v0, v1, v2);
  E("fcmp s0, s1");                       a.fcmp(FSize::S, v0, v1);
  E("fcmp d30, d31");                     a.fcmp(FSize::D, v30, v31);
  E("fcmp d0, #0.0");                     a.fcmp0(FSize::D, v0);
  E("fcmpe s0, s1");                      a.fcmpe(FSize::S, v0, v1);
  E("fcmpe s2, #0.0");                    a.fcmpe0(FSize::S, v2);
  E("fccmp s0, s1, #0x0, eq");            a.fccmp(FSize::S, v0, v1, 0, Cond::EQ);
  E("fccmp d0, d1, #0xf, vs");            a.fccmp(FSize::D, v0, v1, 15, Cond::VS);
  E("fccmpe d0, d1, #0x4, ne");           a.fccmpe(FSize::D, v0, v1, 4, Cond::NE);
  E("fcsel d0, d1, d2, gt");              a.fcsel(FSize::D, v0, v1, v2, Cond::GT);
  E("fcsel s0, s1, s2, mi");              a.fcsel(FSize::S, v0, v1, v2, Cond::MI);
  E("fcmeq s0, s1, s2");                  a.fcmeq(FSize::S, v0, v1, v2);
  E("fcmge d0, d1, d2");                  a.fcmge(FSize::D, v0, v1, v2);
  E("fcmgt s0, s1, s2");                  a.fcmgt(FSize::S, v0, v1, v2);
  E("fcvt d0, s1");                       a.fcvt(FSize::D, v0, FSize::S, v1);
  E("fcvt s0, d1");                       a.fcvt(FSize::S, v0, FSize::D, v1);
  E("fcvt h0, s1");                       a.fcvt(FSize::H, v0, FSize::S, v1);
  E("fcvt d0, h1");                       a.fcvt(FSize::D, v0, FSize::H, v1);
  // To and from general registers.
  E("fcvtzs w0, d1");                     a.fcvtzs(Size::W, w0, FSize::D, v1);
  E("fcvtzs x0, s1");                     a.fcvtzs(Size::X, x0, FSize::S, v1);
  E("fcvtzs x0, d1");                     a.fcvtzs(Size::X, x0, FSize::D, v1);
  E("fcvtzu w0, s1");                     a.fcvtzu(Size::W, w0, FSize::S, v1);
  E("fcvtns x0, d1");                     a.fcvtns(Size::X, x0, FSize::D, v1);
  E("fcvtms w0, s1");                     a.fcvtms(Size::W, w0, FSize::S, v1);
  E("fcvtps x0, s31");                    a.fcvtps(Size::X, x0, FSize::S, v31);
  E("fcvtas w30, d1");                    a.fcvtas(Size::W, w30, FSize::D, v1);
  E("scvtf d0, x1");                      a.scvtf(FSize::D, v0, Size::X, x1);
  E("scvtf s0, w1");                      a.scvtf(FSize::S, v0, Size::W, w1);
  E("scvtf d0, w1");                      a.scvtf(FSize::D, v0, Size::W, w1);
  E("ucvtf s0, x1");                      a.ucvtf(FSize::S, v0, Size::X, x1);
  E("ucvtf d0, wzr");                     a.ucvtf(FSize::D, v0, Size::W, wzr);
}

void fp_vector(DisasmBatch& t) {
  t.group("FpVector");
  Assembler& a = t.assembler();
  E("fadd v0.4s, v1.4s, v2.4s");          a.fadd(VArr::S4, v0, v1, v2);
  E("fadd v0.2d, v1.2d, v2.2d");          a.fadd(VArr::D2, v0, v1, v2);
  E("fadd v0.2s, v1.2s, v2.2s");          a.fadd(VArr::S2, v0, v1, v2);
  E("fsub v0.2d, v1.2d, v2.2d");          a.fsub(VArr::D2, v0, v1, v2);
  E("fmul v0.4s, v1.4s, v2.4s");          a.fmul(VArr::S4, v0, v1, v2);
  E("fdiv v0.2d, v1.2d, v2.2d");          a.fdiv(VArr::D2, v0, v1, v2);
  E("fmin v0.4s, v1.4s, v2.4s");          a.fmin(VArr::S4, v0, v1, v2);
  E("fmax v0.2d, v1.2d, v2.2d");          a.fmax(VArr::D2, v0, v1, v2);
  E("fminnm v0.2s, v1.2s, v2.2s");        a.fminnm(VArr::S2, v0, v1, v2);
  E("fmaxnm v0.4s, v1.4s, v2.4s");        a.fmaxnm(VArr::S4, v0, v1, v2);
  E("faddp v0.4s, v1.4s, v2.4s");         a.faddp(VArr::S4, v0, v1, v2);
  E("fcmeq v0.4s, v1.4s, v2.4s");         a.fcmeq(VArr::S4, v0, v1, v2);
  E("fcmge v0.2d, v1.2d, v2.2d");         a.fcmge(VArr::D2, v0, v1, v2);
  E("fcmgt v0.2s, v1.2s, v2.2s");         a.fcmgt(VArr::S2, v0, v1, v2);
  E("frecps v0.4s, v1.4s, v2.4s");        a.frecps(VArr::S4, v0, v1, v2);
  E("frsqrts v0.2d, v1.2d, v2.2d");       a.frsqrts(VArr::D2, v0, v1, v2);
  E("fsqrt v0.4s, v1.4s");                a.fsqrt(VArr::S4, v0, v1);
  E("fabs v0.2d, v1.2d");                 a.fabs(VArr::D2, v0, v1);
  E("fneg v0.4s, v1.4s");                 a.fneg(VArr::S4, v0, v1);
  E("frintn v0.2d, v1.2d");               a.frintn(VArr::D2, v0, v1);
  E("frintm v0.4s, v1.4s");               a.frintm(VArr::S4, v0, v1);
  E("frintp v0.2s, v1.2s");               a.frintp(VArr::S2, v0, v1);
  E("frintz v0.2d, v1.2d");               a.frintz(VArr::D2, v0, v1);
  E("frinta v0.4s, v1.4s");               a.frinta(VArr::S4, v0, v1);
  E("frintx v0.2d, v1.2d");               a.frintx(VArr::D2, v0, v1);
  E("frinti v0.4s, v1.4s");               a.frinti(VArr::S4, v0, v1);
  E("frecpe v0.4s, v1.4s");               a.frecpe(VArr::S4, v0, v1);
  E("frsqrte v0.2d, v1.2d");              a.frsqrte(VArr::D2, v0, v1);
  E("fcmeq v0.4s, v1.4s, #0.0");          a.fcmeq0(VArr::S4, v0, v1);
  E("fcmge v0.2d, v1.2d, #0.0");          a.fcmge0(VArr::D2, v0, v1);
  E("fcmgt v0.2s, v1.2s, #0.0");          a.fcmgt0(VArr::S2, v0, v1);
  E("fcmle v0.4s, v1.4s, #0.0");          a.fcmle0(VArr::S4, v0, v1);
  E("fcmlt v0.2d, v1.2d, #0.0");          a.fcmlt0(VArr::D2, v0, v1);
  E("fcvtzs v0.4s, v1.4s");               a.fcvtzs(VArr::S4, v0, v1);
  E("fcvtzs v0.2d, v1.2d");               a.fcvtzs(VArr::D2, v0, v1);
  E("fcvtzu v0.2s, v1.2s");               a.fcvtzu(VArr::S2, v0, v1);
  E("fcvtns v0.4s, v1.4s");               a.fcvtns(VArr::S4, v0, v1);
  E("scvtf v0.4s, v1.4s");                a.scvtf(VArr::S4, v0, v1);
  E("scvtf v0.2d, v1.2d");                a.scvtf(VArr::D2, v0, v1);
  E("ucvtf v0.2s, v1.2s");                a.ucvtf(VArr::S2, v0, v1);
  E("fcvtn v0.2s, v1.2d");                a.fcvtn(VArr::S2, v0, v1);
  E("fcvtn2 v0.4s, v1.2d");               a.fcvtn(VArr::S4, v0, v1);
  E("fcvtl v0.2d, v1.2s");                a.fcvtl(VArr::S2, v0, v1);
  E("fcvtl2 v0.2d, v1.4s");               a.fcvtl(VArr::S4, v0, v1);
}

void crypto(DisasmBatch& t) {
  t.group("Crypto");
  Assembler& a = t.assembler();
  E("aese v0.16b, v1.16b");               a.aese(v0, v1);
  E("aesd v0.16b, v1.16b");               a.aesd(v0, v1);
  E("aesmc v0.16b, v1.16b");              a.aesmc(v0, v1);
  E("aesimc v31.16b, v30.16b");           a.aesimc(v31, v30);
  E("pmull v0.1q, v1.1d, v2.1d");         a.pmull(VArr::D1, v0, v1, v2);
  E("pmull2 v0.1q, v1.2d, v2.2d");        a.pmull(VArr::D2, v0, v1, v2);
  E("pmull v0.8h, v1.8b, v2.8b");         a.pmull(VArr::B8, v0, v1, v2);
  E("pmull2 v0.8h, v1.16b, v2.16b");      a.pmull(VArr::B16, v0, v1, v2);
  E("sha1c q0, s1, v2.4s");               a.sha1c(v0, v1, v2);
  E("sha1p q0, s1, v2.4s");               a.sha1p(v0, v1, v2);
  E("sha1m q0, s1, v2.4s");               a.sha1m(v0, v1, v2);
  E("sha1h s0, s1");                      a.sha1h(v0, v1);
  E("sha1su0 v0.4s, v1.4s, v2.4s");       a.sha1su0(v0, v1, v2);
  E("sha1su1 v0.4s, v1.4s");              a.sha1su1(v0, v1);
  E("sha256h q0, q1, v2.4s");             a.sha256h(v0, v1, v2);
  E("sha256h2 q0, q1, v2.4s");            a.sha256h2(v0, v1, v2);
  E("sha256su0 v0.4s, v1.4s");            a.sha256su0(v0, v1);
  E("sha256su1 v0.4s, v1.4s, v2.4s");     a.sha256su1(v0, v1, v2);
}

void sse_extras(DisasmBatch& t) {
  t.group("SimdExtra");
  Assembler& a = t.assembler();
  E("uabd v0.16b, v1.16b, v2.16b");       a.uabd(VArr::B16, v0, v1, v2);
  E("uabd v0.4s, v1.4s, v2.4s");          a.uabd(VArr::S4, v0, v1, v2);
  E("uaddlp v0.8h, v1.16b");              a.uaddlp(VArr::B16, v0, v1);
  E("uaddlp v0.2d, v1.4s");               a.uaddlp(VArr::S4, v0, v1);
  E("uaddlp v0.1d, v1.2s");               a.uaddlp(VArr::S2, v0, v1);
  E("fmaxv s0, v1.4s");                   a.fmaxv(v0, v1);
  E("fmaxp s0, v1.2s");                   a.fmaxp(FSize::S, v0, v1);
  E("fmaxp d0, v1.2d");                   a.fmaxp(FSize::D, v0, v1);
  E("movi v0.2s, #0x1");                  a.movi_s(VArr::S2, v0, 1, 0);
  E("movi v0.4s, #0xff, lsl #8");         a.movi_s(VArr::S4, v0, 0xff, 8);
  E("movi v31.4s, #0x80, lsl #24");       a.movi_s(VArr::S4, v31, 0x80, 24);
  E("mvni v0.4s, #0x80, lsl #24");        a.mvni_s(VArr::S4, v0, 0x80, 24);
  E("mvni v0.2s, #0x0");                  a.mvni_s(VArr::S2, v0, 0, 0);
  E("fmov v0.4s, #1.000000000000000000e+00");
                                          a.fmov_imm(VArr::S4, v0, 0x70);
  E("fmov v0.2d, #-2.000000000000000000e+00");
                                          a.fmov_imm(VArr::D2, v0, 0x80);
  E("fmov s0, #1.000000000000000000e+00");
                                          a.fmov_imm(FSize::S, v0, 0x70);
  E("fmov d1, #5.000000000000000000e-01");
                                          a.fmov_imm(FSize::D, v1, 0x60);
}

// clang-format on

class EmitterSimdDisasm : public testing::DisasmSuite<EmitterSimdDisasm> {
 public:
  static void Build(DisasmBatch& t) {
    moves(t);
    integer_vector(t);
    widen_narrow_shift(t);
    permutes(t);
    fp_scalar(t);
    fp_vector(t);
    crypto(t);
    sse_extras(t);
  }
};

TEST_F(EmitterSimdDisasm, SimdMove) { check("SimdMove", __FILE__); }
TEST_F(EmitterSimdDisasm, SimdInt) { check("SimdInt", __FILE__); }
TEST_F(EmitterSimdDisasm, SimdShift) { check("SimdShift", __FILE__); }
TEST_F(EmitterSimdDisasm, SimdPermute) { check("SimdPermute", __FILE__); }
TEST_F(EmitterSimdDisasm, FpScalar) { check("FpScalar", __FILE__); }
TEST_F(EmitterSimdDisasm, FpVector) { check("FpVector", __FILE__); }
TEST_F(EmitterSimdDisasm, Crypto) { check("Crypto", __FILE__); }
TEST_F(EmitterSimdDisasm, SimdExtra) { check("SimdExtra", __FILE__); }

}  // namespace
}  // namespace phybin::arm64
