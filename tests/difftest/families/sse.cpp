// SSE/SSE2 families: packed and scalar integer, floating point, conversions
// under every MXCSR rounding mode (with DAZ+FTZ), shuffles and moves.
#include <cstdio>
#include <string>

#include "families.h"
#include "table.h"

namespace difftest {
namespace {

const std::vector<const char*> kPacked = {"{x}, {x}", "{x}, {m128}"};

}  // namespace

// ldmxcsr of a valid value (all exceptions masked; when `flush`, any of
// DAZ and FTZ).  (No stmxcsr: with --default-mxcsr it would copy MXCSR.DE,
// which is then not compared, into memory.)
void emit_mxcsr_change(Gen& g, bool flush) {
  using namespace phybin::mxcsr;
  static constexpr uint32_t kFlushModes[] = {0, kFtz, kDaz, kFtz | kDaz};
  uint32_t mxcsr = g.masked_mxcsr();
  if (flush) mxcsr |= kFlushModes[g.below(4)];
  const std::string slot = g.mem_at(32, static_cast<int>(g.below(DT_OPERAND_SIZE / 4)) * 4);
  g.setup("mov " + slot + ", " + std::to_string(mxcsr));
  g.emit("ldmxcsr " + slot, 0, 0, 0);
}

namespace {

// Whether the case started with DAZ or FTZ (the flush families).
bool flush_enabled(Gen& g) { return (g.current().init.fx[25] & 0x80) != 0 || (g.current().init.fx[24] & 0x40) != 0; }

void set_flush_bits(Gen& g, bool ftz, bool daz) {
  g.random_mxcsr(false);
  if (ftz) g.current().init.fx[25] |= 0x80;  // FTZ (bit 15)
  if (daz) g.current().init.fx[24] |= 0x40;  // DAZ (bit 6)
}

}  // namespace

void init_sse(Gen& g) { g.random_mxcsr(true); }
void init_sse_no_flush(Gen& g) { g.random_mxcsr(false); }
void init_sse_convert(Gen& g) { g.random_mxcsr(false); }
void init_sse_flush(Gen& g) { set_flush_bits(g, true, true); }
void init_sse_ftz(Gen& g) { set_flush_bits(g, true, false); }
void init_sse_daz(Gen& g) { set_flush_bits(g, false, true); }

void step_sse_int(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"paddb", "paddw", "paddd", "paddq", "psubb", "psubw", "psubd", "psubq", "paddsb", "paddsw", "paddusb",
        "paddusw", "psubsb", "psubsw", "psubusb", "psubusw"},
       kPacked},
      {{"pmullw", "pmulhw", "pmulhuw", "pmuludq", "pmaddwd", "psadbw", "pavgb", "pavgw", "pminub", "pmaxub", "pminsw",
        "pmaxsw"},
       kPacked},
      {{"pcmpeqb", "pcmpeqw", "pcmpeqd", "pcmpgtb", "pcmpgtw", "pcmpgtd", "pand", "pandn", "por", "pxor"}, kPacked},
      {{"packsswb", "packssdw", "packuswb", "punpcklbw", "punpcklwd", "punpckldq", "punpcklqdq", "punpckhbw",
        "punpckhwd", "punpckhdq", "punpckhqdq"},
       kPacked},
      {{"psllw", "pslld", "psllq", "psrlw", "psrld", "psrlq", "psraw", "psrad"}, {"{x}, {x}", "{x}, {m128}", "{x}, {u8}"}},
      {{"pslldq", "psrldq"}, {"{x}, {u8}"}},
      {{"pshufd", "pshuflw", "pshufhw"}, {"{x}, {x}, {u8}", "{x}, {m128}, {u8}"}},
      {{"pmovmskb"}, {"{R32}, {x}", "{R64}, {x}"}},
      {{"pextrw"}, {"{R32}, {x}, {u8}"}},
      {{"pinsrw"}, {"{x}, {r32}, {u8}", "{x}, {m16}, {u8}"}},
      {{"movd"}, {"{x}, {r32}", "{R32}, {x}", "{x}, {m32}", "{m32}, {x}"}},
      {{"movq"}, {"{x}, {r64}", "{R64}, {x}", "{x}, {m64}", "{m64}, {x}", "{x}, {x}"}},
      {{"movdqa"}, {"{x}, {x}", "{x}, {m128}", "{m128}, {x}"}},
      {{"movdqu"}, {"{x}, {u128}", "{u128}, {x}"}},
  };
  emit_from(g, groups);
}

void step_sse_fp(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"addps", "subps", "mulps", "divps", "minps", "maxps", "sqrtps", "addpd", "subpd", "mulpd", "divpd", "minpd",
        "maxpd", "sqrtpd"},
       kPacked},
      {{"addss", "subss", "mulss", "divss", "minss", "maxss", "sqrtss"}, {"{x}, {x}", "{x}, {m32}"}},
      {{"addsd", "subsd", "mulsd", "divsd", "minsd", "maxsd", "sqrtsd"}, {"{x}, {x}", "{x}, {m64}"}},
      {{"andps", "andpd", "andnps", "andnpd", "orps", "orpd", "xorps", "xorpd"}, kPacked},
      {{"cmpps", "cmppd"}, {"{x}, {x}, {cmp}", "{x}, {m128}, {cmp}"}},
      {{"cmpss"}, {"{x}, {x}, {cmp}", "{x}, {m32}, {cmp}"}},
      {{"cmpsd"}, {"{x}, {x}, {cmp}", "{x}, {m64}, {cmp}"}},
      {{"comiss", "ucomiss"}, {"{x}, {x}", "{x}, {m32}"}, 0, ALL_FLAGS, 0},
      {{"comisd", "ucomisd"}, {"{x}, {x}", "{x}, {m64}"}, 0, ALL_FLAGS, 0},
  };
  if (g.chance(5)) emit_mxcsr_change(g, flush_enabled(g));
  else emit_from(g, groups);
}

// sse_chain: SSE arithmetic, conversions and moves on xmm0..xmm2 only, in
// long sequences, so that results feed each other and are overwritten
// before anything else reads them: what phybin's XMM forwarding, dead
// register writes and shared NaN checks (ir/passes.cpp,
// arm64/compile_vector_nan.cpp) act on.
void init_sse_chain(Gen& g) {
  g.random_mxcsr(false);
  g.current().init.fx[24] &= static_cast<uint8_t>(~phybin::mxcsr::kFlags);  // flags clear: each one raised shows
  g.limit_xmm(3);
}

void step_sse_chain(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"addps", "subps", "mulps", "divps", "sqrtps", "addpd", "subpd", "mulpd", "divpd", "sqrtpd"}, kPacked},
      {{"addss", "subss", "mulss", "divss", "sqrtss"}, {"{x}, {x}", "{x}, {m32}"}},
      {{"addsd", "subsd", "mulsd", "divsd", "sqrtsd"}, {"{x}, {x}", "{x}, {m64}"}},
      {{"minps", "maxpd", "minsd", "maxss", "xorps", "andpd", "unpcklpd", "unpckhps"}, {"{x}, {x}"}},
      {{"movaps", "movapd"}, {"{x}, {x}", "{m128}, {x}"}},
      {{"movss"}, {"{x}, {x}", "{m32}, {x}"}},
      {{"movsd"}, {"{x}, {x}", "{m64}, {x}"}},
      {{"cvtsi2sd", "cvtsi2ss"}, {"{x}, {r64}", "{x}, {r32}"}},
      {{"cvtdq2ps", "cvtps2pd", "cvtpd2ps", "cvtss2sd", "cvtsd2ss"}, {"{x}, {x}"}},
      {{"cvttsd2si", "cvtss2si"}, {"{R64}, {x}", "{R32}, {x}"}},
      {{"ucomisd", "comiss"}, {"{x}, {x}"}, 0, ALL_FLAGS, 0},
  };
  emit_from(g, groups);
}

void step_sse_shuffle(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"shufps", "shufpd"}, {"{x}, {x}, {u8}", "{x}, {m128}, {u8}"}},
      {{"unpcklps", "unpckhps", "unpcklpd", "unpckhpd"}, kPacked},
      {{"movss"}, {"{x}, {x}", "{x}, {m32}", "{m32}, {x}"}},
      {{"movsd"}, {"{x}, {x}", "{x}, {m64}", "{m64}, {x}"}},
      {{"movaps", "movapd"}, {"{x}, {x}", "{x}, {m128}", "{m128}, {x}"}},
      {{"movups", "movupd"}, {"{x}, {u128}", "{u128}, {x}"}},
      {{"movhps", "movlps", "movhpd", "movlpd"}, {"{x}, {m64}", "{m64}, {x}"}},
      {{"movhlps", "movlhps"}, {"{x}, {x}"}},
      {{"movmskps", "movmskpd"}, {"{R32}, {x}", "{R64}, {x}"}},
  };
  emit_from(g, groups);
}

void step_sse_convert(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"cvtsi2ss", "cvtsi2sd"}, {"{x}, {r32}", "{x}, {r64}", "{x}, {m32}", "{x}, {m64}"}},
      {{"cvtss2si", "cvttss2si"}, {"{R32}, {x}", "{R64}, {x}", "{R32}, {m32}", "{R64}, {m32}"}},
      {{"cvtsd2si", "cvttsd2si"}, {"{R32}, {x}", "{R64}, {x}", "{R32}, {m64}", "{R64}, {m64}"}},
      {{"cvtss2sd"}, {"{x}, {x}", "{x}, {m32}"}},
      {{"cvtsd2ss"}, {"{x}, {x}", "{x}, {m64}"}},
      {{"cvtps2pd", "cvtdq2pd"}, {"{x}, {x}", "{x}, {m64}"}},
      {{"cvtpd2ps", "cvtpd2dq", "cvttpd2dq", "cvtdq2ps", "cvtps2dq", "cvttps2dq"}, kPacked},
  };
  if (g.chance(15)) emit_mxcsr_change(g, flush_enabled(g));
  else emit_from(g, groups);
}

}  // namespace difftest
