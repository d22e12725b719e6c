// The RFLAGS a guest's fault handler sees.  Translated code computes a
// flag only where something reads it, so at an instruction that faults
// the flags of an earlier one, overwritten unread later in the block, may
// never have been computed.  Computing every flag before every access that
// may fault costs 1.9x (measured); instead the two sides share one rule:
//  - the fault path works out, from the registers and memory at the fault,
//    the flags of the block's last flag writer before the faulting
//    instruction when that writer's inputs can still be told (nothing
//    since wrote them; its result and one operand give the other).  For a
//    writer whose result does not give its input back (shifts, imul r,
//    r/m) translated code saves the destination's old value first: one
//    store, where computing CF and OF costs ten instructions or more;
//  - the frontend keeps in RFLAGS, before every instruction that may
//    fault, the flags written earlier in the block that the fault path
//    cannot work out (another writer's, or flags of a class it cannot
//    redo: adc, bt, bsf, popcnt...): of those, by default only the ones
//    read later (a handler that returns resumes with them), all of them
//    with PHYBIN_STRICT_FLAGS (Frontend::translate).
// FaultFlagTracker is that rule, walked over a block's instructions by
// both.  Flags from before the block are what the code before left in
// RFLAGS: exact except where the flags were dead there (across a call or
// return, and flags the next block overwrites unread), see the README;
// PHYBIN_STRICT_FLAGS counts an instruction that may fault as reading
// every flag, so that they are live there too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "x86/decoder.h"

namespace phybin::x86 {

// The guest at the fault, as the fault path sees it.
struct FaultView {
  const uint64_t* gpr;  // RAX..R15
  uint64_t fs_base, gs_base;
  uint64_t spill;       // GuestState::fault_spill
  bool (*read)(void* out, uint64_t address, size_t n);  // false: unreadable
};

// Whether the instruction may raise a signal the guest can handle and
// return from: memory operands (hidden ones too), #DE, segment loads, x87
// exceptions, and SSE exceptions when some are unmasked (fp_traps).
bool may_fault(const DecodedInsn& insn, bool fp_traps);

// What the rule needs of one instruction, from one pass over its operands.
struct InsnEffects {
  uint32_t gprs_written = 0;  // bit n: GPR n
  bool writes_memory = false;
  bool may_fault = false;     // as may_fault()
};
InsnEffects effects_of(const DecodedInsn& insn, bool fp_traps);

class FaultFlagTracker {
 public:
  // After instruction `insn` has run; true when it writes status flags.
  // The tracker keeps a pointer to it while it is one of the last two
  // writers (holds()).
  bool step(const DecodedInsn& insn);
  bool step(const DecodedInsn& insn, const InsnEffects& effects);  // effects_of(insn)
  bool holds(const DecodedInsn* insn) const { return last_.insn == insn || prev_.insn == insn; }
  // Status flags written in the block so far that reconstruct() cannot
  // restore: translated code must have them in RFLAGS if the next
  // instruction faults.
  uint64_t unrecoverable() const;
  // The GPR reconstruct() would read from GuestState::fault_spill for the
  // last writer (-1: none): translated code must save it there, as it was
  // before the writer ran (`before`: a shift, imul r, r/m, add r, r, whose
  // result does not give that back) or after (an input overwritten later).
  int spill_wanted(bool& before) const;
  // Sets in rflags the flags reconstruct() can restore, from the guest at
  // the fault (before the next instruction).
  void reconstruct(const FaultView& at, uint64_t& rflags) const;

 private:
  struct Writer {
    const DecodedInsn* insn = nullptr;  // null: none
    bool intact = false;        // nothing since wrote its inputs
    bool destroys = false;      // its destination's old value is in the spill
    int spill_reg = -1;         // the GPR whose value the spill holds
    uint32_t input_gprs = 0;    // bit n: GPR n
    bool input_memory = false;
    int64_t rsp_moved = 0;      // by pushes and pops since
    uint64_t written_before = 0;  // status flags written before it
  };
  Writer last_, prev_;          // the last flag writer and the one before
  uint64_t written_ = 0;        // status flags any instruction so far writes

  static bool disturbs_inputs(Writer& w, const InsnEffects& effects, int64_t stack_moved);
  static void restore(const Writer& w, const FaultView& at, uint64_t& rflags);
  bool previous_counts() const;
};

}  // namespace phybin::x86
