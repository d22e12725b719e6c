// Integer extensions: BMI1 (with lzcnt/tzcnt), BMI2, ADX and MOVBE.  Flags
// as the Intel SDM gives them per instruction; flag producers and
// consumers (setcc, cmovcc, jcc) are mixed in so that the flags are used
// where they are made, and instructions which leave the flags alone
// (BMI2, movbe, the other carry of adcx/adox) are seen keeping them.
#include <string>

#include "families.h"
#include "table.h"

namespace difftest {
namespace {

// VEX three-operand forms "dst, src1, src2" with src1 or src2 in memory.
const std::vector<const char*> kRegRegMem = {"{R32}, {r32}, {r32}", "{R32}, {r32}, {m32}", "{R64}, {r64}, {r64}",
                                             "{R64}, {r64}, {m64}"};
const std::vector<const char*> kRegMemReg = {"{R32}, {r32}, {r32}", "{R32}, {m32}, {r32}", "{R64}, {r64}, {r64}",
                                             "{R64}, {m64}, {r64}"};
const std::vector<const char*> kRegRm = {"{R32}, {r32}", "{R32}, {m32}", "{R64}, {r64}", "{R64}, {m64}"};
const std::vector<const char*> kRegRm16 = {"{R16}, {r16}", "{R16}, {m16}", "{R32}, {r32}",
                                           "{R32}, {m32}", "{R64}, {r64}", "{R64}, {m64}"};

// A register holding a bextr control (start in bits 7:0, length in 15:8)
// or a bzhi index (bits 7:0): mostly near the operand width, sometimes
// beyond it, with random upper bits that must be ignored.
std::string control_register(Gen& g, int width, bool with_length) {
  const std::string reg = g.gpr(width, true);
  auto field = [&] { return static_cast<uint64_t>(g.chance(80) ? g.below(72) : g.below(256)); };
  uint64_t v = field() | (with_length ? field() << 8 : 0);
  if (g.chance(30)) v |= g.bits() << 16;
  if (width == 32) v &= 0xffffffffu;
  g.setup((width == 64 ? "movabs " : "mov ") + reg + ", " + std::to_string(v));
  return reg;
}

// bextr dst, src, control / bzhi dst, src, index with a chosen control.
void emit_bit_field(Gen& g, bool is_bextr) {
  const int width = g.chance(50) ? 32 : 64;
  const std::string w = std::to_string(width);
  const std::string control = control_register(g, width, is_bextr);
  const std::string src = g.chance(70) ? g.gpr(width, false) : g.mem(width);
  const std::string dst = g.gpr(width, true);
  if (is_bextr) g.emit("bextr " + dst + ", " + src + ", " + control, 0, ZF | CF | OF, AF | SF | PF);
  else g.emit("bzhi " + dst + ", " + src + ", " + control, 0, ZF | CF | SF | OF, AF | PF);
}

// mulx hi, lo, src; hi and lo are the same register now and then (it then
// gets the high half).
void emit_mulx(Gen& g) {
  const int width = g.chance(50) ? 32 : 64;
  const std::string hi = g.gpr(width, true);
  const std::string lo = g.chance(15) ? hi : g.gpr(width, true);
  const std::string src = g.chance(70) ? g.gpr(width, false) : g.mem(width);
  g.emit("mulx " + hi + ", " + lo + ", " + src, 0, 0, 0);
}

}  // namespace

void step_bmi1(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"andn"}, kRegRegMem, 0, SF | ZF | OF | CF, AF | PF},
      {{"blsi", "blsmsk", "blsr"}, kRegRm, 0, SF | ZF | OF | CF, AF | PF},
      {{"bextr"}, kRegMemReg, 0, ZF | CF | OF, AF | SF | PF},
      {{"tzcnt", "lzcnt"}, kRegRm16, 0, CF | ZF, OF | SF | PF | AF},
  };
  if (g.chance(15)) emit_from(g, flag_producers());
  else if (g.chance(20)) emit_flag_consumer(g);
  else if (g.chance(15)) emit_bit_field(g, true);
  else emit_from(g, groups);
}

void step_bmi2(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"bzhi"}, kRegMemReg, 0, ZF | CF | SF | OF, AF | PF},
      {{"pdep", "pext"}, kRegRegMem},
      {{"rorx"}, {"{R32}, {r32}, {u8}", "{R32}, {m32}, {u8}", "{R64}, {r64}, {u8}", "{R64}, {m64}, {u8}"}},
      {{"sarx", "shlx", "shrx"}, kRegMemReg},
  };
  if (g.chance(15)) emit_from(g, flag_producers());
  else if (g.chance(15)) emit_flag_consumer(g);
  else if (g.chance(15)) emit_bit_field(g, false);
  else if (g.chance(20)) emit_mulx(g);
  else emit_from(g, groups);
}

// Two interleaved carry chains (CF through adcx, OF through adox) next to
// adc/add and other flag producers.
void step_adx(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"adcx"}, kRegRm, CF, CF, 0},
      {{"adox"}, kRegRm, OF, OF, 0},
      {{"adcx"}, kRegRm, CF, CF, 0},
      {{"adox"}, kRegRm, OF, OF, 0},
      {{"adc"}, {"{R32}, {r32}", "{R32}, {m32}", "{R64}, {r64}", "{R64}, {m64}"}, CF, ALL_FLAGS, 0},
      {{"stc", "clc", "cmc"}, {""}, CF, CF, 0},
  };
  if (g.chance(15)) emit_from(g, flag_producers());
  else if (g.chance(15)) emit_flag_consumer(g);
  else emit_from(g, groups);
}

void step_movbe(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"movbe"}, {"{R16}, {m16}", "{m16}, {r16}", "{R32}, {m32}", "{m32}, {r32}", "{R64}, {m64}", "{m64}, {r64}"}},
  };
  if (g.chance(15)) emit_from(g, flag_producers());
  else if (g.chance(10)) emit_flag_consumer(g);
  else emit_from(g, groups);
}

}  // namespace difftest
