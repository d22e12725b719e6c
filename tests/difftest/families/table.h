// Table-driven families: groups of mnemonics that share operand forms and
// flag behaviour.  A step picks a group, a mnemonic and a form at random.
#pragma once

#include <vector>

#include "../driver/gen.h"

namespace difftest {

struct OpGroup {
  std::vector<const char*> mnemonics;
  std::vector<const char*> forms;  // Gen::expand templates; "" for no operands
  uint32_t reads = 0, defines = 0, undefines = 0;
  uint32_t vendor_undefines = 0;  // Insn::vendor_undefines
  uint16_t fsw_defines = 0, fsw_undefines = 0;  // x87 C0-C3 (Insn)
};

inline void emit_from(Gen& g, const std::vector<OpGroup>& groups) {
  const OpGroup& grp = groups[g.below(groups.size())];
  std::string text = grp.mnemonics[g.below(grp.mnemonics.size())];
  const char* form = grp.forms[g.below(grp.forms.size())];
  if (*form) text += " " + g.expand(form);
  Insn insn{text, grp.reads, grp.defines, grp.undefines, grp.vendor_undefines};
  insn.fsw_defines = grp.fsw_defines;
  insn.fsw_undefines = grp.fsw_undefines;
  g.emit(insn);
}

// Operand forms of a two-operand integer instruction at every width:
// register/register, register/memory, memory/register, immediates.
inline const std::vector<const char*>& binary_forms() {
  static const std::vector<const char*> forms = {
      "{R8}, {r8}",   "{R8}, {m8}",   "{m8}, {r8}",   "{R8}, {i8}",   "{m8}, {i8}",   "al, {i8}",
      "{R16}, {r16}", "{R16}, {m16}", "{m16}, {r16}", "{R16}, {i8}",  "{R16}, {i16}", "{m16}, {i16}", "ax, {i16}",
      "{R32}, {r32}", "{R32}, {m32}", "{m32}, {r32}", "{R32}, {i8}",  "{R32}, {i32}", "{m32}, {i32}", "eax, {i32}",
      "{R64}, {r64}", "{R64}, {m64}", "{m64}, {r64}", "{R64}, {i8}",  "{R64}, {i32}", "{m64}, {i8}",  "rax, {i32}"};
  return forms;
}

// Flag producers for families that test flag consumers.
inline const std::vector<OpGroup>& flag_producers() {
  static const std::vector<OpGroup> groups = {
      {{"add", "sub", "cmp"}, binary_forms(), 0, ALL_FLAGS, 0},
      {{"and", "or", "xor", "test"}, binary_forms(), 0, CF | OF | SZP, AF},
  };
  return groups;
}

// A setcc, cmovcc or jcc over a mov on a random condition (integer2.cpp).
void emit_flag_consumer(Gen& g);

}  // namespace difftest
