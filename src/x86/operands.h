// Reading and writing x86 operands as IR values: register views (AL, AH,
// AX, EAX), memory operands with every addressing form, immediates.
#pragma once

#include "x86/context.h"

namespace phybin::x86 {

ir::Type type_of_size(unsigned bits);
ir::Type operand_type(const ZydisDecodedOperand& op);

// Guest GPR number (0..15) of a general-purpose register of any width.
uint8_t gpr_index(ZydisRegister reg);
bool is_high_byte(ZydisRegister reg);

ir::Value effective_address(Ctx& c, int index);
ir::Value read_operand(Ctx& c, int index);
// Reads operand `index` and widens it to `to` with sign or zero extension.
ir::Value read_operand_ext(Ctx& c, int index, ir::Type to, bool sign);
void write_operand(Ctx& c, int index, ir::Value v);

// A lock-prefixed instruction, or xchg with a memory operand (locked
// whatever its prefixes): its read-modify-write of operand 0 is atomic.
bool is_locked(const Ctx& c);
// Memory operand `index` becomes old OP v in one atomic (ir AtomicRmw);
// returns the old value.
ir::Value atomic_rmw(Ctx& c, int index, ir::AtomicOp op, ir::Value v);

// Register access by Zydis register, with x86's partial-write rules:
// 32-bit writes zero the upper half, 8/16-bit writes merge.
ir::Value read_gpr(Ctx& c, ZydisRegister reg);
void write_gpr(Ctx& c, ZydisRegister reg, ir::Value v);

// The stack: push and pop move RSP by the width of the value (8 bytes, or 2
// for the 16-bit forms with a 66 prefix).
void push_stack(Ctx& c, ir::Value v);
// Ends the block with the guest signal `signal` raised at guest address
// `at` (a fault: the instruction's own address; int3: the next one).
void end_with_trap(Ctx& c, uint64_t at, int signal);
ir::Value pop_stack(Ctx& c, ir::Type t);
inline void push64(Ctx& c, ir::Value v) { push_stack(c, v); }
inline ir::Value pop64(Ctx& c) { return pop_stack(c, ir::Type::I64); }

}  // namespace phybin::x86
