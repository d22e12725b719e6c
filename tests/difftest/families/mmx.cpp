// The MMX family: MMX instructions, their SSE and SSSE3 extensions on MM
// registers, the moves between MM, XMM, GPRs and memory, and the MM
// conversions.  MM registers alias the x87 registers: the compared state
// (ST0..7 with exponent 0xFFFF after an MMX write, tag word, FSW.TOP) shows
// whether the MMX/x87 transitions are right.
#include "families.h"
#include "table.h"

namespace difftest {
namespace {

const std::vector<const char*> kMm = {"{mm}, {mm}", "{mm}, {m64}"};
const std::vector<const char*> kMmImm = {"{mm}, {mm}, {u8}", "{mm}, {m64}, {u8}"};

}  // namespace

// Conversions under a random MXCSR; half of the cases start with a
// random x87 state (any TOP, tags, values) that the first MMX instruction
// takes over.
void init_mmx(Gen& g) {
  init_sse_convert(g);
  if (g.chance(50)) g.random_x87();
}

void step_mmx(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"paddb", "paddw", "paddd", "paddq", "psubb", "psubw", "psubd", "psubq", "paddsb", "paddsw", "paddusb",
        "paddusw", "psubsb", "psubsw", "psubusb", "psubusw"},
       kMm},
      {{"pmullw", "pmulhw", "pmaddwd", "pmulhuw", "pmuludq", "pavgb", "pavgw", "pminub", "pmaxub", "pminsw",
        "pmaxsw", "psadbw"},
       kMm},
      {{"pcmpeqb", "pcmpeqw", "pcmpeqd", "pcmpgtb", "pcmpgtw", "pcmpgtd", "pand", "pandn", "por", "pxor"}, kMm},
      {{"packsswb", "packssdw", "packuswb", "punpckhbw", "punpckhwd", "punpckhdq"}, kMm},
      {{"punpcklbw", "punpcklwd", "punpckldq"}, {"{mm}, {mm}", "{mm}, {m32}"}},  // the low halves: m32
      {{"psllw", "pslld", "psllq", "psrlw", "psrld", "psrlq", "psraw", "psrad"}, {"{mm}, {mm}", "{mm}, {m64}", "{mm}, {u8}"}},
      {{"movd"}, {"{mm}, {r32}", "{R32}, {mm}", "{mm}, {m32}", "{m32}, {mm}"}},
      {{"movq"}, {"{mm}, {r64}", "{R64}, {mm}", "{mm}, {m64}", "{m64}, {mm}", "{mm}, {mm}"}},
      {{"movq2dq"}, {"{x}, {mm}"}},
      {{"movdq2q"}, {"{mm}, {x}"}},
      {{"pmovmskb"}, {"{R32}, {mm}", "{R64}, {mm}"}},
      {{"pextrw"}, {"{R32}, {mm}, {u8}"}},
      {{"pinsrw"}, {"{mm}, {r32}, {u8}", "{mm}, {m16}, {u8}"}},
      {{"pshufw"}, kMmImm},
      {{"pshufb", "phaddw", "phaddd", "phaddsw", "phsubw", "phsubd", "phsubsw", "pabsb", "pabsw", "pabsd", "psignb",
        "psignw", "psignd", "pmulhrsw", "pmaddubsw"},
       kMm},
      {{"palignr"}, kMmImm},
      {{"cvtps2pi", "cvttps2pi"}, {"{mm}, {x}", "{mm}, {m64}"}},
      {{"cvtpd2pi", "cvttpd2pi"}, {"{mm}, {x}", "{mm}, {m128}"}},
  };
  // emms now and then: a case may end in MMX state or back in x87 state,
  // and MMX after emms takes the x87 stack again; an x87 push or pop sees
  // the stack MMX left (full without emms: a masked stack fault)
  // (C0, C2 and C3 are undefined after an x87 load or store: compared on
  // the model's vendor only, x87.cpp)
  static const std::vector<const char*> x87 = {"fld1", "fldz", "fstp st(0)"};
  if (g.chance(8)) {
    g.emit("emms", 0, 0, 0);
  } else if (g.chance(4)) {
    Insn insn{g.pick(x87)};
    insn.fsw_defines = C1;
    insn.fsw_undefines = C0 | C2 | C3;
    g.emit(insn);
  } else if (g.chance(5)) {
    // The SDM has cvtpi2ps/pd enter MMX mode with a memory source too;
    // Intel CPUs (and phybin) do it only for an MM source.  The m64 forms
    // are compared on the model's vendor only.
    const bool memory = g.model_vendor() && g.chance(50);
    g.emit(g.expand(std::string(g.chance(50) ? "cvtpi2ps" : "cvtpi2pd") + (memory ? " {x}, {m64}" : " {x}, {mm}")), 0,
           0, 0);
  } else {
    emit_from(g, groups);
  }
}

}  // namespace difftest
