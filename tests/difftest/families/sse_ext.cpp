// SSE3, SSSE3, SSE4.1 and SSE4.2 families (XMM forms; the MMX forms of
// SSSE3 are in mmx.cpp).
#include <string>

#include "families.h"
#include "table.h"

namespace difftest {
namespace {

const std::vector<const char*> kXmm = {"{x}, {x}", "{x}, {m128}"};
const std::vector<const char*> kXmmImm = {"{x}, {x}, {u8}", "{x}, {m128}, {u8}"};
// The variable blends read their mask from XMM0 (written out as gas wants).
const std::vector<const char*> kXmmBlendv = {"{x}, {x}, xmm0", "{x}, {m128}, xmm0"};

// A value for pcmpestr*'s EAX/EDX (RAX/RDX with REX.W): mostly lengths
// around 0..16 (the absolute value is used, saturated to 16), sometimes
// anything; the upper 32 bits zero, a sign extension or random.
std::string explicit_length(Gen& g) {
  const int64_t low = g.chance(80) ? g.range(-20, 20) : static_cast<int32_t>(g.gpr_value());
  switch (g.below(3)) {
    case 0: return std::to_string(static_cast<uint32_t>(low));
    case 1: return std::to_string(low);
    default: return std::to_string(g.bits() << 32 | static_cast<uint32_t>(low));
  }
}

}  // namespace

void step_sse3(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"addsubps", "addsubpd", "haddps", "haddpd", "hsubps", "hsubpd"}, kXmm},
      {{"movshdup", "movsldup"}, kXmm},
      {{"movddup"}, {"{x}, {x}", "{x}, {m64}"}},
      {{"lddqu"}, {"{x}, {u128}"}},
  };
  if (g.chance(5)) emit_mxcsr_change(g, false);
  else emit_from(g, groups);
}

void step_ssse3(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"pabsb", "pabsw", "pabsd", "psignb", "psignw", "psignd"}, kXmm},
      {{"pshufb", "pmaddubsw", "pmulhrsw"}, kXmm},
      {{"phaddw", "phaddd", "phaddsw", "phsubw", "phsubd", "phsubsw"}, kXmm},
      {{"palignr"}, kXmmImm},
  };
  emit_from(g, groups);
}

void step_sse41_int(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"pblendw", "mpsadbw"}, kXmmImm},
      {{"pblendvb"}, kXmmBlendv},
      {{"pmovsxbw", "pmovzxbw", "pmovsxwd", "pmovzxwd", "pmovsxdq", "pmovzxdq"}, {"{x}, {x}", "{x}, {m64}"}},
      {{"pmovsxbd", "pmovzxbd", "pmovsxwq", "pmovzxwq"}, {"{x}, {x}", "{x}, {m32}"}},
      {{"pmovsxbq", "pmovzxbq"}, {"{x}, {x}", "{x}, {m16}"}},
      {{"pminsb", "pminsd", "pminuw", "pminud", "pmaxsb", "pmaxsd", "pmaxuw", "pmaxud"}, kXmm},
      {{"pmuldq", "pmulld", "pcmpeqq", "packusdw", "phminposuw"}, kXmm},
      {{"ptest"}, kXmm, 0, ALL_FLAGS, 0},
      {{"pextrb"}, {"{R32}, {x}, {u8}", "{R64}, {x}, {u8}", "{m8}, {x}, {u8}"}},
      {{"pextrw"}, {"{R32}, {x}, {u8}", "{R64}, {x}, {u8}", "{m16}, {x}, {u8}"}},
      {{"pextrd", "extractps"}, {"{R32}, {x}, {u8}", "{m32}, {x}, {u8}"}},
      {{"pextrq"}, {"{R64}, {x}, {u8}", "{m64}, {x}, {u8}"}},
      {{"pinsrb"}, {"{x}, {r32}, {u8}", "{x}, {m8}, {u8}"}},
      {{"pinsrd"}, {"{x}, {r32}, {u8}", "{x}, {m32}, {u8}"}},
      {{"pinsrq"}, {"{x}, {r64}, {u8}", "{x}, {m64}, {u8}"}},
      {{"insertps"}, {"{x}, {x}, {u8}", "{x}, {m32}, {u8}"}},
      {{"movntdqa"}, {"{x}, {m128}"}},
  };
  emit_from(g, groups);
}

// dpps/dppd with a NaN operand: which NaN comes out is not the same on
// every CPU (Intel's follows its pseudo-code's order of adds, as phybin's
// does; AMD CPUs return another one).  On a build CPU not of the model's
// vendor their operands are registers whose NaN lanes are first cleared
// to +0.0 (cmpord gives all ones in the ordered lanes), so that only the
// default NaN of an invalid operation can come out.
void emit_dot_product(Gen& g) {
  const bool single = g.chance(50);
  const std::string mnemonic = single ? "dpps " : "dppd ";
  const std::string imm = std::to_string(g.below(256));
  if (g.model_vendor()) {
    g.emit(mnemonic + (g.chance(50) ? g.xmm() + ", " + g.xmm() : g.xmm() + ", " + g.mem(128, 16)) + ", " + imm, 0, 0, 0);
    return;
  }
  const std::string dst = g.xmm(), src = g.xmm();
  std::string mask;
  do mask = g.xmm(); while (mask == dst || mask == src);
  const char* const ps = single ? "ps " : "pd ";
  for (const std::string& r : {dst, src}) {
    g.setup(std::string("movap") + ps[1] + " " + mask + ", " + r);
    g.setup(std::string("cmpord") + ps + mask + ", " + r);
    g.setup(std::string("andp") + ps[1] + " " + r + ", " + mask);
  }
  g.emit(mnemonic + dst + ", " + src + ", " + imm, 0, 0, 0);
}

void step_sse41_fp(Gen& g) {
  // roundXX: imm bits 7..4 are reserved, so 0..15 is every meaningful value
  static const std::vector<OpGroup> groups = {
      {{"blendps", "blendpd"}, kXmmImm},
      {{"blendvps", "blendvpd"}, kXmmBlendv},
      {{"roundps", "roundpd"}, {"{x}, {x}, {u4}", "{x}, {m128}, {u4}"}},
      {{"roundss"}, {"{x}, {x}, {u4}", "{x}, {m32}, {u4}"}},
      {{"roundsd"}, {"{x}, {x}, {u4}", "{x}, {m64}, {u4}"}},
  };
  if (g.chance(15)) emit_mxcsr_change(g, false);
  else if (g.chance(30)) emit_dot_product(g);
  else emit_from(g, groups);
}

void step_sse42(Gen& g) {
  // pcmpXstrX: imm bit 7 is reserved, 0..127 are the meaningful values; they
  // define CF ZF SF OF and clear AF PF
  static const std::vector<OpGroup> implicit_length = {
      {{"pcmpistri", "pcmpistrm"}, {"{x}, {x}, {u7}", "{x}, {u128}, {u7}"}, 0, ALL_FLAGS, 0},
  };
  static const std::vector<OpGroup> explicit_length_ops = {
      {{"pcmpestri", "pcmpestrm", "pcmpestriq", "pcmpestrmq"}, {"{x}, {x}, {u7}", "{x}, {u128}, {u7}"}, 0, ALL_FLAGS, 0},
  };
  static const std::vector<OpGroup> others = {
      {{"pcmpgtq"}, kXmm},
      {{"crc32"},
       {"{R32}, {r8}", "{R32}, {r16}", "{R32}, {r32}", "{R64}, {r8}", "{R64}, {r64}", "{R32}, {m8}", "{R32}, {m16}",
        "{R32}, {m32}", "{R64}, {m8}", "{R64}, {m64}"}},
  };
  switch (g.below(3)) {
    case 0: emit_from(g, implicit_length); break;
    case 1:
      g.setup("mov rax, " + explicit_length(g));
      g.setup("mov rdx, " + explicit_length(g));
      emit_from(g, explicit_length_ops);
      break;
    default: emit_from(g, others); break;
  }
}

}  // namespace difftest
