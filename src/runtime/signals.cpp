// The synchronous signals of traps and helpers, and of code fetches:
// described by the Linux layer (linux/signal_delivery.h), which delivers
// them; the runtime leaves translated code for the dispatcher.  The host
// signal handlers are in host_signals.cpp.
#include "runtime/signals.h"

#include "common/log.h"
#include "linux/signal_delivery.h"
#include "linux/syscalls.h"
#include "runtime/guest_thread.h"
#include "x86/sse.h"

namespace phybin::runtime {

void raise_guest_signal(GuestState* state, int signal) {
  GuestThread* thread = GuestThread::of(state);
  if (thread && (signal & kTrapReplay)) {  // RIP is the region's start (GuestThread::request_replay)
    if (signal & kReplayCheckFailed) thread->note_region_check_failed(state->rip);
    thread->request_replay(static_cast<unsigned>(signal & 0xff));
    thread->leave_to_dispatcher();
  }
  uint64_t error_code = 0;  // of a #GP
  if (signal & kTrapGpError) {
    error_code = static_cast<uint64_t>(signal & 0xffff);
    signal = SIGSEGV;
  }
  logf(LogLevel::Info, "phybin: guest signal %d at %#llx", signal, static_cast<unsigned long long>(state->rip));
  if (!thread) sys::die_of_signal(signal);
  if (signal == kTrapUntranslatable) {
    thread->untranslatable();
    signal = SIGILL;
  }
  // #DE, #XM and the other traps of translated code and helpers: the flags
  // as at the instruction.
  if (const uint64_t start = thread->process().block_start_holding(state->rip)) thread->repair_fault_flags(start);
  if (signal == kTrapCodeFetch) {
    thread->raise_fetch_fault();
  } else {
    const auto mxcsr = static_cast<uint32_t>(x86::sse::helper_stmxcsr(state, 0, 0));
    sys::GuestSignal g = signal == kTrapSimdFp ? sys::simd_fp_signal(state->rip, mxcsr) : sys::trap_signal(signal, state->rip);
    if (signal == SIGSEGV) g.err = error_code;
    sys::queue_sync_signal(g);
  }
  thread->leave_to_dispatcher();
}

void raise_exec_fault(GuestState& st, uint64_t address, bool mapped) {
  logf(LogLevel::Info, "phybin: guest code at %#llx runs into %#llx, which is %s",
       static_cast<unsigned long long>(st.rip), static_cast<unsigned long long>(address),
       mapped ? "not executable" : "not mapped");
  sys::queue_sync_signal(sys::exec_fault_signal(address, mapped));
}

void save_fpu_state(GuestState& st, void* image) { x86::sse::helper_fxsave(&st, reinterpret_cast<uint64_t>(image), 0); }
void restore_fpu_state(GuestState& st, const void* image) {
  x86::sse::helper_fxrstor(&st, reinterpret_cast<uint64_t>(image), 0);
}
void set_guest_mxcsr(GuestState& st, uint32_t value) { x86::sse::helper_ldmxcsr(&st, value, 0); }

}  // namespace phybin::runtime
