// RFLAGS as IR: each arithmetic flag an instruction defines is written with
// its own SetFlag, so the dead-flag pass can drop what nobody reads.
#pragma once

#include "x86/context.h"

namespace phybin::x86 {

void flags_add(Ctx& c, ir::Value a, ir::Value b, ir::Value r);
void flags_sub(Ctx& c, ir::Value a, ir::Value b, ir::Value r);
void flags_adc(Ctx& c, ir::Value a, ir::Value b, ir::Value carry_in, ir::Value r);
void flags_sbb(Ctx& c, ir::Value a, ir::Value b, ir::Value borrow_in, ir::Value r);
void flags_logic(Ctx& c, ir::Value r);
void flags_inc_dec(Ctx& c, ir::Value a, ir::Value r, bool inc);
void flags_neg(Ctx& c, ir::Value a, ir::Value r);
// Writes flag `bit` only if something reads it after this instruction.
void put_flag(Ctx& c, uint8_t bit, ir::Value v);

// ZF, SF and PF from a result.
void flags_zsp(Ctx& c, ir::Value r);

// The value (I1) of x86 condition code `cc` (0 = O ... 15 = G).
ir::Value condition(Ctx& c, unsigned cc);
// Condition code of a jcc/setcc/cmovcc, from its opcode's low nibble.
unsigned condition_code(const Ctx& c);

}  // namespace phybin::x86
