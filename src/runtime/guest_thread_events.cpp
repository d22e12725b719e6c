// The guest thread's side of events that interrupt translated code: guest
// system calls (with rt_sigreturn and signal delivery at them), the stop
// requests of asynchronous signals, and the hook of MXCSR mode changes.
// What guest code changes do to the translations is Process's.
#include <cerrno>

#include "linux/signal_delivery.h"
#include "linux/signal_frame.h"
#include "linux/syscalls.h"
#include "linux/x86_abi.h"
#include "runtime/guest_thread.h"
#include "runtime/signals.h"

namespace phybin::runtime {

namespace {


// Calls that a signal interrupts with EINTR even under SA_RESTART (the
// kernel's ERESTARTNOHAND and restart-block calls).
bool never_restarted(uint64_t nr) {
  switch (nr) {
    case sys::X86_NR_pause: case sys::X86_NR_rt_sigsuspend: case sys::X86_NR_select:
    case sys::X86_NR_pselect6: case sys::X86_NR_poll: case sys::X86_NR_ppoll:
    case sys::X86_NR_epoll_wait: case sys::X86_NR_epoll_pwait: case sys::X86_NR_nanosleep:
    case sys::X86_NR_clock_nanosleep: case sys::X86_NR_rt_sigtimedwait: case sys::X86_NR_io_getevents:
    case sys::X86_NR_semtimedop:
      return true;
    default: return false;
  }
}

// Calls that block with a signal mask of their own.
bool has_temporary_mask(uint64_t nr) {
  return nr == sys::X86_NR_rt_sigsuspend || nr == sys::X86_NR_pselect6 || nr == sys::X86_NR_ppoll ||
         nr == sys::X86_NR_epoll_pwait;
}

}  // namespace

void GuestThread::leave_to_dispatcher() {
  state_->exit_link = 0;
  process_.stubs().leave(state_);
  __builtin_unreachable();
}

// Every indirect branch now misses (the empty table) and the linked exits
// of the running code go back to the dispatcher: the guest comes back
// within one block.
void GuestThread::force_exit(const void* pc) {
  state_->lookup_table = reinterpret_cast<uint64_t>(process_.empty_lookup());
  process_.unlink_running(pc, state_->rip);
}

// The block that changed MXCSR ends with an indirect exit (family_sse.cpp):
// with an empty table that exit comes back to the dispatcher, which then
// retranslates in the other mode.
void GuestThread::fp_traps_changed(GuestState* state) {
  if (GuestThread* thread = of(state))
    state->lookup_table = reinterpret_cast<uint64_t>(thread->process_.empty_lookup());
}

// The vsyscall page of old x86-64 binaries: Linux (vsyscall=xonly, its
// default) has no code there but emulates a call to one of its three
// entries: the system call, then the return to the caller, every register
// but RAX kept.  Any other address in the page faults as usual.
bool GuestThread::emulate_vsyscall() {
  GuestState& st = *state_;
  constexpr uint64_t kPage = 0xffffffffff600000;
  if (st.rip - kPage >= 0x1000) return false;
  uint64_t nr;
  switch (st.rip - kPage) {
    case 0x000: nr = sys::X86_NR_gettimeofday; break;
    case 0x400: nr = sys::X86_NR_time; break;
    case 0x800: nr = sys::X86_NR_getcpu; break;
    default: return false;
  }
  uint64_t return_address;
  if (!sys::guest_read(&return_address, st.gpr[RSP], sizeof return_address)) return false;
  const GuestState before = st;
  st.gpr[RAX] = nr;
  host_call(false);
  const uint64_t result = st.gpr[RAX];
  st = before;
  st.gpr[RAX] = result;
  st.gpr[RSP] += 8;
  st.rip = return_address;
  return true;
}

// The Linux layer's call, marked for the host signal handlers.  An
// interruptible call does not start while a guest signal is pending.
void GuestThread::host_call(bool interruptible) {
  GuestState& s = *state_;
  GuestThreadFlags& flags = thread_flags();
  sys::set_temporary_mask_syscall(has_temporary_mask(s.gpr[RAX] & 0xffffffff));
  flags.in_syscall = 1;
  sys::handle_syscall(s, interruptible ? &sys::signal_pending_flag() : nullptr);
  flags.in_syscall = 0;
  sys::set_temporary_mask_syscall(false);
}

uint64_t GuestThread::syscall_entry(GuestState* s, uint64_t, uint64_t) {
  GuestThread& thread = *of(s);
  const unsigned generation = thread.process_.flush_count();
  thread.where_.store(Where::InSyscall);
  thread.system_call();
  thread.back_from_system_call(generation);
  return 0;
}

// A thread blocked in a system call does not hold up a flush by others:
// the code it would return to may be gone when the call ends.  Stored
// before the check (both sequentially consistent, as the flusher's): the
// flusher sees it in the cache, or it sees the flush.
void GuestThread::back_from_system_call(unsigned generation, SyscallInsn insn) {
  where_.store(Where::InCache);
  if (!process_.stopping() && process_.flush_count() == generation) return;
  where_.store(Where::Outside);
  finish_syscall_instruction(*state_, insn);
  leave_to_dispatcher();
}

uint64_t GuestThread::int80_entry(GuestState* s, uint64_t, uint64_t) {
  GuestThread& thread = *of(s);
  const unsigned generation = thread.process_.flush_count();
  thread.where_.store(Where::InSyscall);
  thread.ia32_system_call();
  thread.back_from_system_call(generation, SyscallInsn::Int80);
  return 0;
}

// int 0x80 at s.rip: the i386 call, run as the x86-64 call that does the
// same (sys::ia32_call_as_x86_64), or -ENOSYS.  Every register but RAX is
// kept.  Signals are taken as around syscall.
void GuestThread::ia32_system_call() {
  GuestState& s = *state_;
  if (sys::signals_pending() && sys::deliver_pending_signals(s)) leave_to_dispatcher();
  const GuestState before = s;
  GuestState call = before;
  const bool covered = sys::ia32_call_as_x86_64(call);
  auto run = [&](bool interruptible) {
    if (!covered) return static_cast<uint64_t>(-ENOSYS);
    s = call;
    host_call(interruptible);
    const uint64_t result = s.gpr[RAX];
    s = before;
    return result;
  };
  uint64_t result = run(true);
  if (static_cast<int64_t>(result) == sys::kSyscallNotStarted) {
    if (sys::deliver_pending_signals(s)) leave_to_dispatcher();
    result = run(false);
  }
  s.gpr[RAX] = result;
  if (!sys::signals_pending() && !sys::signals_held()) return;
  const GuestState after = s;
  const bool restart = static_cast<int64_t>(result) == -EINTR && covered && !never_restarted(call.gpr[RAX]) &&
                       (sys::first_pending_signal_flags() & sys::kX86SaRestart);
  if (restart) s.gpr[RAX] = before.gpr[RAX];
  else finish_syscall_instruction(s, SyscallInsn::Int80);
  if (sys::deliver_pending_signals(s)) leave_to_dispatcher();
  s = after;  // nothing delivered: the block goes on
}

// s.rip is the syscall instruction (translated code stores it before every
// helper call).  A signal that arrived before the call is taken first: its
// handler returns to the syscall instruction, which then runs.
void GuestThread::system_call() {
  GuestState& s = *state_;
  if (sys::signals_pending() && sys::deliver_pending_signals(s)) leave_to_dispatcher();
  const uint64_t nr = s.gpr[RAX] & 0xffffffff;
  if (nr == sys::X86_NR_rt_sigreturn) {
    sys::sigreturn(s);
    leave_to_dispatcher();
  }
  if (nr - sys::ForwardedCalls::kFirst < sys::ForwardedCalls::kCount && sys::process().config.forwarded) {
    forwarded_call(static_cast<uint32_t>(nr - sys::ForwardedCalls::kFirst));
    return;
  }
  const uint64_t saved_rax = s.gpr[RAX];
  host_call(true);
  // The host kernel cannot write to a page phybin protected: it answers
  // EFAULT.  Give back every protected page and try once more.
  if (static_cast<int64_t>(s.gpr[RAX]) == -EFAULT && process_.unprotect_all_code()) {
    s.gpr[RAX] = saved_rax;
    host_call(true);
  }
  if (static_cast<int64_t>(s.gpr[RAX]) == sys::kSyscallNotStarted) {
    // A signal came just before the call started: as natively, its
    // handler runs first and returns to the syscall instruction.
    s.gpr[RAX] = saved_rax;
    if (sys::deliver_pending_signals(s)) leave_to_dispatcher();
    host_call(false);  // nothing to deliver after all (blocked, ignored)
  }
  if (!sys::signals_pending() && !sys::signals_held()) return;
  // Deliver now, after what the syscall instruction does: RCX = the next
  // address, R11 = RFLAGS.  An interrupted call runs again after the
  // handler when the handler has SA_RESTART.
  const GuestState before = s;
  const bool restart = static_cast<int64_t>(s.gpr[RAX]) == -EINTR && !never_restarted(nr) &&
                       (sys::first_pending_signal_flags() & sys::kX86SaRestart);
  if (restart) {
    s.gpr[RCX] = s.rip + kSyscallInsnBytes;
    s.gpr[R11] = s.rflags;
    s.gpr[RAX] = saved_rax;
  } else {
    finish_syscall_instruction(s);
  }
  if (sys::deliver_pending_signals(s)) leave_to_dispatcher();
  s = before;  // nothing delivered (blocked or ignored): the block goes on
}

// A call into a forwarded native library (src/forward): its result is a
// function's, not -errno, so none of a system call's retries apply (an
// EFAULT or EINTR-looking result is the library's answer).  It is not
// interruptible: a signal that comes meanwhile is delivered after it.
void GuestThread::forwarded_call(uint32_t index) {
  GuestState& s = *state_;
  sys::process().config.forwarded->call(s, index);
  if (!sys::signals_pending() && !sys::signals_held()) return;
  const GuestState before = s;
  finish_syscall_instruction(s);
  if (sys::deliver_pending_signals(s)) leave_to_dispatcher();
  s = before;
}

}  // namespace phybin::runtime
