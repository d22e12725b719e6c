// Flags kept unevaluated across an indirect jump.  x86 code may read
// flags after `jmp reg` / `jmp [mem]` (interpreter dispatch, hand-written
// assembly), but the instruction before such a jump is almost always an
// add or cmp whose flags nobody reads (gcc's switch tables end in
// `add rax, rdx; jmp rax`).  Computing all six flags there costs more than
// the dispatch itself, so the block instead describes the last flag
// writer in a record (LazyFlags in the IR); a target that reads flags on
// entry applies it (materialise_lazy_flags) when entered through the
// indirect-branch table or the dispatcher.  The record names guest
// registers that still hold the operands (or the result) at the jump, so
// that the common case costs no instruction at all; otherwise the block
// stores the operands in GuestState::lazy_flags_a/b.
#pragma once

#include <cstdint>

#include "common/guest_state.h"

namespace phybin::x86 {

enum class LazyOp : uint8_t { Add = 1, Sub, Logic, Inc, Dec, Neg, Test };

// A record (GuestState::lazy_flags_record; 0 = none):
//   bits 0-3   LazyOp          bits 4-5   log2 of the operand size in bytes
//   bit 6      operands in lazy_flags_a/b (then nothing else below)
//   bit 7      guest GPR x holds the result, not the first operand
//   bit 8      b is the immediate in bits 32-63 (sign-extended), not GPR y
//   bits 12-15 x               bits 16-19 y
// Logic: a is the result (in memory or x).  Test: a & b is the result.
namespace lazy_record {
constexpr uint64_t kInMemory = 1u << 6, kResultInX = 1u << 7, kImmediate = 1u << 8;
constexpr uint64_t of(LazyOp op, unsigned bytes) {
  const uint64_t log2 = bytes == 8 ? 3 : bytes == 4 ? 2 : bytes == 2 ? 1 : 0;
  return static_cast<uint64_t>(op) | (log2 << 4);
}
constexpr uint64_t with_x(uint64_t record, unsigned gpr) { return record | (uint64_t{gpr} << 12); }
constexpr uint64_t with_y(uint64_t record, unsigned gpr) { return record | (uint64_t{gpr} << 16); }
constexpr uint64_t with_immediate(uint64_t record, uint64_t imm) {
  return record | kImmediate | (imm << 32);
}
}  // namespace lazy_record

// The RFLAGS bits a record defines (inc/dec keep CF).
uint64_t lazy_defined_flags(uint64_t record);

// Those bits of op (the record's low six bits: op and size) on operands a
// and b (Logic: a is the result).
uint64_t lazy_flags_value(uint64_t op, uint64_t a, uint64_t b);

// Applies a pending record to s->rflags and clears it; nothing when none
// is pending.  The guest registers must be those at the indirect jump.
void materialise_lazy_flags(GuestState* s);

// CF, PF, AF, ZF, SF and OF of a + b and of a - b in `bytes` bytes.
uint64_t add_flags(uint64_t a, uint64_t b, unsigned bytes);
uint64_t sub_flags(uint64_t a, uint64_t b, unsigned bytes);
// PF, ZF and SF of result r (CF, OF and AF zero, phybin's model for AF).
uint64_t logic_flags(uint64_t r, unsigned bytes);

}  // namespace phybin::x86
