// IR -> AArch64.  Compiles one optimised ir::Block into the code cache and
// generates the fixed stubs translated code needs to enter and leave.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "arm64/emitter.h"
#include "arm64/helper_table.h"
#include "common/guest_state.h"
#include "ir/ir.h"

namespace phybin::arm64 {

struct Stubs {
  // void enter(GuestState*, const void* code): runs translated code until a
  // block leaves to the dispatcher; returns then.
  void (*enter)(GuestState*, const void* code) = nullptr;
  // Where blocks go when they leave: x17 = guest target, x16 = address of
  // the branch to patch for linking (0 when not linkable).
  const uint32_t* exit = nullptr;
  // leave(GuestState*) abandons translated code (and any C++ helper it
  // called) and returns from enter(): guest state must already be in memory.
  // Used to divert the guest to a signal handler from a helper or a fault.
  void (*leave)(GuestState*) = nullptr;
  // What an empty entry of the indirect-branch table points at: a guest
  // target equal to the entry's key (kEmptyLookupKey) lands here and goes
  // to the dispatcher like any miss, so no guest address ever reaches a
  // host address that is not code.
  const uint32_t* empty_entry = nullptr;
};

// The key of an empty indirect-branch table entry: non-canonical, so no
// translated block is ever registered under it.
inline constexpr uint64_t kEmptyLookupKey = uint64_t{0x8000} << 48;

// Where the code of one guest instruction begins in a compiled block:
// offset in 32-bit words from the block's first word, and the instruction's
// guest address.  An instruction that produced no code shares the offset
// of the next one and is left out.
struct InsnMark {
  uint32_t host_offset;
  uint64_t guest;
};

struct BackendConfig {
  Stubs stubs;
  // Where helper calls get their slot numbers (required).
  HelperTable* helpers = nullptr;
  void (*raise_signal)(GuestState*, int) = nullptr;
  uint64_t lookup_mask = 0;  // indirect-branch table entries - 1
  // SSE arithmetic gives x86's NaNs (negative default NaN, first operand's
  // NaN first): 2-3 more instructions per FP operation; without it the
  // default NaN is AArch64's positive one (compile_vector_fp.cpp).
  bool exact_fp_nan = true;
};

// Thrown when a block needs more registers than the allocator has; the
// caller retranslates with fewer guest instructions.
struct BlockTooComplex : std::runtime_error {
  BlockTooComplex() : std::runtime_error("block too complex for the register allocator") {}
};

// Generates the stubs at the assembler's cursor.
Stubs emit_stubs(Assembler& a);

// Emits `block` at the assembler's cursor.  Returns false when the
// assembler ran out of space (the caller flushes the cache and retries).
// When `marks` is given, it receives the block's instruction marks in
// increasing offset order (from the IR's insn_start marks).
bool compile_block(const ir::Block& block, Assembler& a, const BackendConfig& config,
                   std::vector<InsnMark>* marks = nullptr);

}  // namespace phybin::arm64
