// The RFLAGS a guest's fault handler sees: the flags the block's
// translation left in RFLAGS, completed by what the fault path can work out
// from the block's instructions before the fault (x86/fault_flags.h, whose
// rule the frontend follows too).
#include <cstdint>

#include "linux/signal_delivery.h"
#include "runtime/guest_thread.h"
#include "runtime/signals.h"
#include "x86/decoder.h"
#include "x86/fault_flags.h"

namespace phybin::runtime {

void GuestThread::repair_fault_flags(uint64_t block_start) {
  GuestState& st = *state_;
  constexpr unsigned kMaxInsns = x86::kMaxBlockInsns;
  const x86::Decoder& decoder = frontend_.decoder();
  x86::FaultFlagTracker tracker;
  x86::DecodedInsn insns[3];  // the tracker points at up to two of them
  unsigned count = 0;
  for (uint64_t pc = block_start; pc < st.rip;) {
    x86::DecodedInsn* insn = insns;
    while (tracker.holds(insn)) ++insn;
    const auto* code = reinterpret_cast<const uint8_t*>(pc);
    if (++count > kMaxInsns || !decoder.decode(code, st.rip - pc < 15 ? st.rip - pc : 15, pc, *insn)) return;
    tracker.step(*insn);
    pc += insn->info.length;
  }
  const x86::FaultView at{st.gpr, st.fs_base, st.gs_base, st.fault_spill,
                          [](void* out, uint64_t address, size_t n) { return sys::guest_read(out, address, n); }};
  tracker.reconstruct(at, st.rflags);
}

}  // namespace phybin::runtime
