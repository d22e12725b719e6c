// Shifts and rotates by immediates and by CL (all counts, also beyond the
// operand width), rcl/rcr, shld/shrd.  Flags follow the SDM per count:
// nothing changes for a masked count of 0, OF is defined for a count of 1
// only, AF is undefined, and SHL/SHR leave CF undefined for counts >= the
// operand width (8/16-bit operands).
#include <string>

#include "families.h"

namespace difftest {
namespace {

enum class Kind { Shift, ShiftLeftRight, Rotate, RotateCarry, Double };

struct ShiftOp {
  const char* mnemonic;
  Kind kind;
};

const ShiftOp kOps[] = {{"shl", Kind::ShiftLeftRight}, {"sal", Kind::ShiftLeftRight}, {"shr", Kind::ShiftLeftRight},
                        {"sar", Kind::Shift},          {"rol", Kind::Rotate},         {"ror", Kind::Rotate},
                        {"rcl", Kind::RotateCarry},    {"rcr", Kind::RotateCarry},    {"shld", Kind::Double},
                        {"shrd", Kind::Double}};

// Flag effects for a known count.
Insn known_count_flags(Kind kind, int width, unsigned count) {
  const unsigned masked = count & (width == 64 ? 63u : 31u);
  Insn f;
  f.reads = kind == Kind::RotateCarry ? uint32_t{CF} : 0;
  if (masked == 0) return f;
  const uint32_t of = masked == 1 ? OF : 0;
  switch (kind) {
    case Kind::Shift:
    case Kind::Double:
      f.defines = CF | SZP | of;
      break;
    case Kind::ShiftLeftRight:
      f.defines = SZP | of | (masked < static_cast<unsigned>(width) ? uint32_t{CF} : 0);
      break;
    case Kind::Rotate:
    case Kind::RotateCarry:
      f.defines = CF | of;
      f.undefines = OF & ~of;
      return f;
  }
  f.undefines = (AF | OF | CF) & ~f.defines;
  return f;
}

// Flag effects when CL holds whatever earlier instructions left there.
Insn unknown_count_flags(Kind kind, int width) {
  Insn f;
  f.reads = kind == Kind::RotateCarry ? uint32_t{CF} : 0;
  f.undefines = OF;
  if (kind == Kind::Shift || kind == Kind::ShiftLeftRight || kind == Kind::Double) f.undefines |= AF;
  if (kind == Kind::ShiftLeftRight && width <= 16) f.undefines |= CF;
  return f;
}

}  // namespace

namespace {

void emit_shift(Gen& g, const ShiftOp& op, int width) {
  const std::string w = std::to_string(width);
  unsigned count = static_cast<unsigned>(g.chance(50) ? g.below(66) : g.below(256));
  // shld/shrd of 16 bits: both manuals leave the result (and so CF, SF,
  // ZF, PF) of masked counts above 16 undefined; Intel CPUs shift the
  // 48-bit string dest:src:dest, which phybin does and this family compares
  // on a build CPU of that vendor.  Elsewhere (AMD CPUs do otherwise) the
  // masked count stays within 0..16 and CL never holds an unknown count.
  // OF stays undefined above a count of 1, as both manuals say (Intel CPUs
  // compute it as for a count of 1).
  const bool shld16 = op.kind == Kind::Double && width == 16;
  if (shld16) {
    const unsigned masked = static_cast<unsigned>(g.model_vendor() ? g.below(32) : g.below(17));
    count = masked | (g.chance(30) ? 32u : 0u);
  }
  const std::string operands =
      (g.chance(30) ? "{m" : "{R") + w + "}" + (op.kind == Kind::Double ? ", {r" + w + "}" : std::string());
  const int form = static_cast<int>(g.below(shld16 && !g.model_vendor() ? 2 : 3));
  Insn insn;
  if (form == 0) {
    insn = known_count_flags(op.kind, width, count);
    insn.text = g.expand(std::string(op.mnemonic) + " " + operands + ", " + std::to_string(count));
  } else if (form == 1) {  // CL set just before
    g.setup("mov cl, " + std::to_string(count));
    insn = known_count_flags(op.kind, width, count);
    insn.text = g.expand(std::string(op.mnemonic) + " " + operands + ", cl");
  } else {  // CL holds whatever earlier instructions left there
    insn = unknown_count_flags(op.kind, width);
    insn.text = g.expand(std::string(op.mnemonic) + " " + operands + ", cl");
  }
  g.emit(insn);
}

}  // namespace

void step_shift(Gen& g) {
  const ShiftOp& op = kOps[g.below(sizeof kOps / sizeof kOps[0])];
  static const int widths[] = {8, 16, 32, 64};
  int width = widths[g.below(4)];
  // shld/shrd have no 8-bit form; their 16-bit form is a family of its own
  if (op.kind == Kind::Double && width <= 16) width = 32;
  emit_shift(g, op, width);
}

// 16-bit shld/shrd, all 32 masked counts.
void step_shld16(Gen& g) { emit_shift(g, kOps[8 + g.below(2)], 16); }

}  // namespace difftest
