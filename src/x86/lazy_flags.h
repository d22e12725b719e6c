// Flags kept unevaluated across an indirect jump.  x86 code may read
// flags after `jmp reg` / `jmp [mem]` (interpreter dispatch, hand-written
// assembly), but the instruction before such a jump is almost always an
// add or cmp whose flags nobody reads (gcc's switch tables end in
// `add rax, rdx; jmp rax`).  Computing all six flags there costs more than
// the dispatch itself, so the block instead stores the last flag writer's
// operands and kind in GuestState (LazyFlags in the IR); a target that
// reads flags on entry applies them (materialise_lazy_flags) when it is
// entered through the indirect-branch table or the dispatcher.
#pragma once

#include <cstdint>

#include "common/guest_state.h"

namespace phybin::x86 {

enum class LazyOp : uint8_t { Add = 1, Sub, Logic, Inc, Dec };

// GuestState::lazy_flags_kind: the operation in bits 0-3, log2 of the
// operand size in bytes in bits 4-5; 0 = nothing pending.
constexpr uint32_t lazy_kind(LazyOp op, unsigned bytes) {
  const uint32_t log2 = bytes == 8 ? 3 : bytes == 4 ? 2 : bytes == 2 ? 1 : 0;
  return static_cast<uint32_t>(op) | (log2 << 4);
}

// The RFLAGS bits a pending record of `kind` defines (inc/dec keep CF).
uint64_t lazy_defined_flags(uint32_t kind);

// Those bits for operands a, b (b unused by Logic, whose a is the result).
uint64_t lazy_flags_value(uint32_t kind, uint64_t a, uint64_t b);

// Applies a pending record to s->rflags and clears it; nothing when none
// is pending.
void materialise_lazy_flags(GuestState* s);

// CF, PF, AF, ZF, SF and OF of a + b and of a - b in `bytes` bytes.
uint64_t add_flags(uint64_t a, uint64_t b, unsigned bytes);
uint64_t sub_flags(uint64_t a, uint64_t b, unsigned bytes);
// PF, ZF and SF of result r (CF, OF and AF zero, phybin's model for AF).
uint64_t logic_flags(uint64_t r, unsigned bytes);

}  // namespace phybin::x86
