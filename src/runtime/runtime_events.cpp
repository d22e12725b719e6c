// The runtime's side of events that interrupt translated code: guest
// system calls (with rt_sigreturn and signal delivery at them), writes to
// guest code (self-modifying code, munmap/mprotect of code) and the stop
// requests of asynchronous signals.
#include <cerrno>
#include <cstring>

#include "common/log.h"
#include "linux/signal_frame.h"
#include "linux/syscalls.h"
#include "linux/x86_abi.h"
#include "runtime/runtime.h"
#include "runtime/signals.h"

namespace phybin::runtime {

namespace {

constexpr uint64_t kSyscallInsnBytes = 2;  // 0f 05

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

[[noreturn]] void leave_to_dispatcher(GuestState* s) {
  s->exit_link = 0;
  Runtime::current()->stubs().leave(s);
  __builtin_unreachable();
}

}  // namespace

bool Runtime::running_insn(const void* pc, RunningInsn& out) const {
  BlockTable::Index b = blocks_.find_host(pc);
  if (b == BlockTable::kNone) return false;
  out = RunningInsn{blocks_.guest_pc_at(b, pc), blocks_.at(b).guest_start, blocks_.at(b).guest_end};
  return true;
}

uint64_t Runtime::block_start_holding(uint64_t rip) const {
  // Blocks are at most a few hundred bytes of guest code: look back that far.
  constexpr uint64_t kLookBack = 1024;
  for (uint64_t k = 0; k <= kLookBack && k <= rip; ++k) {
    const BlockTable::Index b = blocks_.find_guest(rip - k);
    if (b != BlockTable::kNone && blocks_.at(b).valid && blocks_.at(b).guest_end > rip) return rip - k;
  }
  return 0;
}


// Reached from the SIGSEGV handler.  When the tables are not busy the
// fault came from a guest store (translated code, a helper, the Linux
// layer writing guest memory), never from inside malloc: dropping the
// translations here, which frees table nodes, is safe.
bool Runtime::handle_code_write(uint64_t address) {
  if (!protect_.unprotect_on_write(address)) return false;
  const uint64_t page = address & ~(protect_.page_size() - 1);
  logf(LogLevel::Debug, "phybin: guest wrote its code page %#llx: translations dropped",
       static_cast<unsigned long long>(page));
  if (thread_flags().busy) {
    const sig_atomic_t n = deferred_count_;
    if (n < static_cast<sig_atomic_t>(kMaxDeferred)) {
      deferred_pages_[n] = page;
      deferred_count_ = n + 1;
    } else {
      deferred_overflow_ = 1;
    }
    return true;
  }
  drop_code(page, page + protect_.page_size());
  return true;
}

void Runtime::drop_code(uint64_t begin, uint64_t end) {
  GuestThreadFlags& flags = thread_flags();
  const sig_atomic_t was_busy = flags.busy;
  flags.busy = 1;
  size_t n = blocks_.invalidate(begin, end, [&](const BlockInfo& info) {
    const size_t slot = info.guest_start & (kLookupEntries - 1);
    LookupEntry& e = lookup_[slot];
    if (e.guest == info.lookup_key() && e.host == info.indirect_entry()) e = empty_lookup_entry(slot);
  });
  if (n) forget_code_pending_ = true;
  flags.busy = was_busy;
}

void Runtime::run_deferred_invalidations() {
  if (deferred_overflow_) {
    deferred_overflow_ = 0;
    deferred_count_ = 0;
    drop_code(0, ~uint64_t{0});
    return;
  }
  while (deferred_count_ > 0) {
    const sig_atomic_t n = deferred_count_ - 1;
    const uint64_t page = deferred_pages_[n];
    deferred_count_ = n;
    drop_code(page, page + protect_.page_size());
  }
}

void Runtime::invalidate(uint64_t start, uint64_t length) {
  GuestThreadFlags& flags = thread_flags();
  const sig_atomic_t was_busy = flags.busy;
  flags.busy = 1;
  protect_.forget(start, length);
  const uint64_t end = start + length < start ? ~uint64_t{0} : start + length;
  forget_pristine_code(start, end);
  if (blocks_.has_code_in(start, end)) drop_code(start, end);
  flags.busy = was_busy;
}

void invalidate_guest_code(uint64_t start, uint64_t length) {
  if (Runtime* rt = Runtime::current()) rt->invalidate(start, length);
}

// Every indirect branch now misses (the empty table) and every linked exit
// of the running block goes back to the dispatcher: the guest comes back
// within one block.  Inside a helper the running blocks are those whose
// guest range holds the helper's instruction; anywhere else (the stubs,
// the dispatcher about to enter) any block may be next: unlink them all.
// So too when the block is inside its indirect-branch lookup, past the
// load of the table: it may still jump to a block found in the real one.
void Runtime::force_exit(const void* pc) {
  state_->lookup_table = reinterpret_cast<uint64_t>(empty_lookup_.get());
  BlockTable::Index b = blocks_.find_host(pc);
  if (b != BlockTable::kNone && !in_indirect_lookup(pc)) blocks_.unlink_exits_of(b);
  else if (!cache_.contains(pc)) blocks_.unlink_exits_of_blocks_at(state_->rip);
  else blocks_.unlink_all();
}

// The inline lookup (compile_exit.cpp, exit_indirect) ends with `br x2`
// five instructions after the load of the table, or at most eleven on
// its second compare (which writes a lazy flags record of up to four
// instructions).  Seen a little early, the cost is unlinking everything.
bool Runtime::in_indirect_lookup(const void* pc) const {
  constexpr uint32_t kBrX2 = 0xd61f0040;
  const auto* w = static_cast<const uint32_t*>(pc);
  for (int i = 0; i < 12 && cache_.contains(w + i); ++i)
    if (w[i] == kBrX2) return true;
  return false;
}

// The vsyscall page of old x86-64 binaries: Linux (vsyscall=xonly, its
// default) has no code there but emulates a call to one of its three
// entries: the system call, then the return to the caller, every register
// but RAX kept.  Any other address in the page faults as usual.
bool Runtime::emulate_vsyscall(GuestState& st) {
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
  if (!guest_read(&return_address, st.gpr[RSP], sizeof return_address)) return false;
  const GuestState before = st;
  st.gpr[RAX] = nr;
  host_call(st, false);
  const uint64_t result = st.gpr[RAX];
  st = before;
  st.gpr[RAX] = result;
  st.gpr[RSP] += 8;
  st.rip = return_address;
  return true;
}

// The Linux layer's call, marked for the host signal handlers.  An
// interruptible call does not start while a guest signal is pending.
void Runtime::host_call(GuestState& s, bool interruptible) {
  GuestThreadFlags& flags = thread_flags();
  set_temporary_mask_syscall(has_temporary_mask(s.gpr[RAX] & 0xffffffff));
  flags.in_syscall = 1;
  sys::handle_syscall(s, interruptible ? &flags.pending : nullptr);
  flags.in_syscall = 0;
  set_temporary_mask_syscall(false);
}

uint64_t Runtime::syscall_entry(GuestState* s, uint64_t, uint64_t) {
  current()->system_call(*s);
  return 0;
}

// s.rip is the syscall instruction (translated code stores it before every
// helper call).  A signal that arrived before the call is taken first: its
// handler returns to the syscall instruction, which then runs.
void Runtime::system_call(GuestState& s) {
  if (signals_pending() && deliver_pending_signals(s)) leave_to_dispatcher(&s);
  const uint64_t nr = s.gpr[RAX] & 0xffffffff;
  if (nr == sys::X86_NR_rt_sigreturn) {
    sigreturn(s);
    leave_to_dispatcher(&s);
  }
  const uint64_t saved_rax = s.gpr[RAX];
  host_call(s, true);
  // The host kernel cannot write to a page phybin protected: it answers
  // EFAULT.  Give back every protected page and try once more.
  if (static_cast<int64_t>(s.gpr[RAX]) == -EFAULT && protect_.any_protected()) {
    protect_.unprotect_all([&](uint64_t page) { drop_code(page, page + protect_.page_size()); });
    s.gpr[RAX] = saved_rax;
    host_call(s, true);
  }
  if (static_cast<int64_t>(s.gpr[RAX]) == sys::kSyscallNotStarted) {
    // A signal came just before the call started: as natively, its
    // handler runs first and returns to the syscall instruction.
    s.gpr[RAX] = saved_rax;
    if (deliver_pending_signals(s)) leave_to_dispatcher(&s);
    host_call(s, false);  // nothing to deliver after all (blocked, ignored)
  }
  if (!signals_pending() && !signals_held()) return;
  // Deliver now, after what the syscall instruction does: RCX = the next
  // address, R11 = RFLAGS.  An interrupted call runs again after the
  // handler when the handler has SA_RESTART.
  const GuestState before = s;
  const bool restart = static_cast<int64_t>(s.gpr[RAX]) == -EINTR && !never_restarted(nr) &&
                       (first_pending_signal_flags() & sys::kX86SaRestart);
  s.gpr[RCX] = s.rip + kSyscallInsnBytes;
  s.gpr[R11] = s.rflags;
  if (restart) s.gpr[RAX] = saved_rax;
  else s.rip += kSyscallInsnBytes;
  if (deliver_pending_signals(s)) leave_to_dispatcher(&s);
  s = before;  // nothing delivered (blocked or ignored): the block goes on
}

}  // namespace phybin::runtime
