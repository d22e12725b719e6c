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
  // What an empty entry of the indirect-branch table points at.  No
  // lookup ever matches an empty key; were one to, it would land here and
  // go to the dispatcher, never on a host address that is not code.
  const uint32_t* empty_entry = nullptr;
  // Calls x16, a forwarded library's function, with its arguments in
  // place (ir CallNative), marking the thread as in a native call
  // (GuestState::native_call); returns, or when a flush happened
  // meanwhile, leaves for the dispatcher with the result in the guest
  // state and RIP already set.
  const uint32_t* native_call = nullptr;
};

// The indirect-branch table (exit_indirect in compile_exit.cpp): entry
// `guest & mask` holds {key, host code}.  The key is the block's guest
// address, or its complement for a block that reads flags on entry: the
// lookup's first compare then fails, and its second, on the complement,
// writes the lazy flags record's kind (x86/lazy_flags.h) before entering.
// So an indirect jump costs a record only where the target reads it.
inline constexpr uint64_t lookup_key(uint64_t guest, bool reads_flags) { return reads_flags ? ~guest : guest; }

// A key no guest address matches in either compare: non-canonical and
// of another slot, with a complement of another slot too (mask + 1 is
// even).  Empty slots hold 0 but for the two where 0 could match (the
// runtime's new_lookup_table).
inline constexpr uint64_t kEmptyLookupKey = uint64_t{0x8000} << 48;
inline constexpr uint64_t empty_lookup_key(uint64_t slot, uint64_t mask) {
  return kEmptyLookupKey | ((slot + 2) & mask);
}

// GuestState::exit_link after an indirect exit with a lazy flags record
// that missed the table: no branch to link, and the dispatcher applies
// the record first.
inline constexpr uint64_t kExitLazyFlags = 1;

// Where the code of one guest instruction begins in a compiled block:
// offset in 32-bit words from the block's first word, and the instruction's
// guest address.  An instruction that produced no code shares the offset
// of the next one and is left out.  An instruction of an XMM commit region
// (ir::Inst::replay) is marked with the region's first instruction and
// `replay`, the how-manieth of the region it is (at most 31): a fault there
// is run again from the region's start.
struct InsnMark {
  uint32_t host_offset;
  uint64_t guest;
  uint8_t replay = 0;
  // In a region checked at its end: FPSR goes back to GuestState::region_fpsr
  // before the replay (the region's first run may have computed on
  // AArch64's NaNs).
  bool restores_fpsr = false;
};

// Every guest address a block's code uses (exit targets, return
// addresses, RIP-relative operands, the RIP of helper calls and traps) is
// a 64-bit literal in the pool at the block's end, loaded with LDR
// (literal): `count` values, 8-byte aligned, from `offset_words` words
// after the block's first word.  The pool holds nothing else, so a block
// translated from code at guest address A runs for the same code at A + d
// once every pool value is increased by d; no instruction changes (the
// pool is data: no instruction-cache maintenance either).
struct AddressPool {
  uint32_t offset_words = 0;
  uint32_t count = 0;
};

struct BackendConfig {
  Stubs stubs;
  // Where helper calls get their slot numbers (required).
  HelperTable* helpers = nullptr;
  void (*raise_signal)(GuestState*, int) = nullptr;
  // The system call helper: what ir CallNative does while its slot is empty.
  uint64_t (*syscall)(GuestState*, uint64_t, uint64_t) = nullptr;
  // Applies a pending lazy flags record (GuestState::lazy_flags_record) to
  // RFLAGS and clears it: called where a block that reads flags is entered
  // through the indirect-branch table.
  void (*materialise_flags)(GuestState*) = nullptr;
  uint64_t lookup_mask = 0;  // indirect-branch table entries - 1
  // SSE arithmetic gives x86's NaNs (negative default NaN, first operand's
  // NaN first): 2-3 more instructions per FP operation; without it the
  // default NaN is AArch64's positive one (compile_vector_fp.cpp).
  bool exact_fp_nan = true;
  // FEAT_LSE: locked x86 instructions become one atomic instruction
  // instead of an exclusive load/store loop (compile_atomic.cpp).
  bool lse = false;
  // x86's memory order (TSO) for guest threads that share memory: loads
  // acquire (LDAPR with FEAT_LRCPC, else LDAR), stores release (STLR),
  // vector accesses fenced, atomics followed by a full barrier.  Accesses
  // through RSP stay plain: a thread's stack is its own.
  bool tso = false;
  bool lrcpc = false;  // FEAT_LRCPC: LDAPR for TSO's loads
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
// increasing offset order (from the IR's insn_start marks);
// `indirect_entry`, where the indirect-branch table must enter it (words
// from its start: blocks that read flags first apply a lazy record).
// `pool`, where the block's guest address pool lies (AddressPool).
bool compile_block(const ir::Block& block, Assembler& a, const BackendConfig& config,
                   std::vector<InsnMark>* marks = nullptr, uint32_t* indirect_entry = nullptr,
                   AddressPool* pool = nullptr);

// A host function that jumps to `entry` with x17 = `data` and every
// argument register as it was: a native library calls a guest function
// through one (src/forward's callbacks).  kHostStubWords words at `at`
// (8-byte aligned); the caller makes them executable and syncs the
// instruction cache.
inline constexpr size_t kHostStubWords = 8;
void write_host_stub(uint32_t* at, const void* entry, const void* data);

}  // namespace phybin::arm64
