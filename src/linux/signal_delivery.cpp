// Guest signal delivery: the pending signals of each thread, frames at
// safe points, rt_sigreturn, and the signals of the CPU's traps as the
// x86-64 kernel describes them.
#include "linux/signal_delivery.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.h"
#include "common/mxcsr.h"
#include "linux/syscalls.h"

namespace phybin::sys {

namespace {

struct PendingSignals {
  uint64_t async = 0;                   // caught by the host handler (bit sig - 1)
  uint64_t through_temporary_mask = 0;  // of those, caught inside sigsuspend & co.
  // SIGSEGV and SIGBUS sent while the guest blocks them (the host never
  // blocks them): they wait here, without raising the pending flag.
  uint64_t held = 0;
  X86SigInfo info[kX86NumSignals + 1] = {};
  bool sync = false;  // a fault of the guest waits (there is at most one)
  GuestSignal sync_signal;
};

// Per guest thread (each runs on a host thread of its own): a host signal
// is recorded and delivered on the thread the kernel gave it to, a fault
// on the thread that made it.  Static TLS of the executable: plain loads
// in the handlers.
thread_local PendingSignals g_pending;
thread_local volatile sig_atomic_t g_pending_flag = 0;
thread_local volatile sig_atomic_t g_temporary_mask = 0;
thread_local sigjmp_buf* volatile g_copy_guard = nullptr;

constexpr uint64_t bit(int sig) { return uint64_t{1} << (sig - 1); }

// si_code values of the x86-64 kernel's traps.
constexpr int kSiKernel = 0x80, kFpeIntdiv = 1, kIllIllopn = 2, kSegvMaperr = 1, kSegvAccerr = 2, kTrapBrkpt = 1;

bool is_real_handler(uint64_t handler) { return handler != kX86SigDfl && handler != kX86SigIgn; }

bool ignored_by_default(int sig) { return sig == SIGCHLD || sig == SIGCONT || sig == SIGURG || sig == SIGWINCH; }

void update_pending_flag() {
  g_pending_flag = 0;
  if (__atomic_load_n(&g_pending.async, __ATOMIC_SEQ_CST) != 0 || g_pending.sync) g_pending_flag = 1;
}

// Copies to or from guest memory that may not be mapped; false when it is
// not (the SIGSEGV handler jumps back here).
bool guarded_copy(void* dst, const void* src, size_t n) {
  sigjmp_buf jb;
  if (sigsetjmp(jb, 1) != 0) {
    g_copy_guard = nullptr;
    return false;
  }
  g_copy_guard = &jb;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  std::memcpy(dst, src, n);
  std::atomic_signal_fence(std::memory_order_seq_cst);
  g_copy_guard = nullptr;
  return true;
}

// A stop signal stops us (the host disposition is the guest's SIG_DFL);
// any other default action ends the process.
void take_default_action(int sig) {
  if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
    syscall(SYS_tgkill, getpid(), gettid(), sig);
    return;
  }
  die_of_signal(sig);
}

// The kernel starts a handler with the floating-point state reset.
void reset_fpu_for_handler(GuestState& st) {
  if (process().config.set_mxcsr) process().config.set_mxcsr(st, mxcsr::kDefault);
  st.fcw = 0x37f;
  st.fsw = 0;
  st.ftw = 0xffff;
  st.x87_top = 0;
}

// Builds the frame of one signal and points the guest at the handler.
// False when the signal has no handler to run (ignored, default ignore).
bool deliver_one(GuestState& st, const GuestSignal& g, bool sync) {
  ProcessInfo& p = process();
  const X86KernelSigaction act = p.signal_actions[g.sig];
  const uint64_t mask = guest_signal_mask();
  if (act.handler == kX86SigIgn) {
    if (sync) die_of_signal(g.sig);  // a fault cannot be ignored
    return false;
  }
  if (act.handler == kX86SigDfl) {
    if (sync || !ignored_by_default(g.sig)) take_default_action(g.sig);
    return false;
  }
  if (sync && (mask & bit(g.sig))) die_of_signal(g.sig);  // a blocked fault kills
  // x86-64 frames need SA_RESTORER (the kernel gives SIGSEGV without it).
  if (!(act.flags & kX86SaRestorer)) die_of_signal(SIGSEGV);
  const uint64_t rsp = st.gpr[RSP];
  const FramePlacement where = place_signal_frame(rsp, act.flags, thread_signals().alt_stack);
  X86RtSigFrame frame;
  fill_signal_frame(frame, st, g, act.restorer, mask, saved_alt_stack(thread_signals().alt_stack, rsp), where.fxsave);
  alignas(16) uint8_t fx[kX86FxsaveBytes] = {};
  if (p.config.fxsave) p.config.fxsave(st, fx);
  if (!guarded_copy(reinterpret_cast<void*>(where.fxsave), fx, sizeof fx) ||
      !guarded_copy(reinterpret_cast<void*>(where.frame), &frame, sizeof frame)) {
    logf(LogLevel::Info, "phybin: cannot write the frame of signal %d below %#llx", g.sig,
         static_cast<unsigned long long>(where.frame));
    die_of_signal(SIGSEGV);
  }
  if (where.on_alt_stack && (thread_signals().alt_stack.ss_flags & kX86SsAutodisarm))
    thread_signals().alt_stack = X86StackT{0, kX86SsDisable, 0, 0};
  logf(LogLevel::Debug, "phybin: signal %d delivered at %#llx to handler %#llx", g.sig,
       static_cast<unsigned long long>(st.rip), static_cast<unsigned long long>(act.handler));
  enter_signal_handler(st, where, g.sig, act.handler);
  reset_fpu_for_handler(st);
  set_guest_signal_mask(mask | act.mask | ((act.flags & kX86SaNodefer) ? 0 : bit(g.sig)));
  if (act.flags & kX86SaResethand) reset_guest_signal_action(g.sig);
  return true;
}

// Pending asynchronous signals the guest may take now: those its mask
// lets through, and those caught while a call's temporary mask did.
uint64_t ready_signals(uint64_t async, uint64_t mask) { return async & (~mask | g_pending.through_temporary_mask); }

void take_async(int sig) {
  __atomic_fetch_and(&g_pending.async, ~bit(sig), __ATOMIC_SEQ_CST);
  g_pending.through_temporary_mask &= ~bit(sig);
  g_pending.held &= ~bit(sig);
  thread_signals().held_runtime_signals = g_pending.held;
}

// Signals caught while not blocked but blocked by the time of delivery
// (another handler's sa_mask, the guest blocking them) go back to the host
// kernel, which keeps them until the guest unblocks them.  SIGSEGV and
// SIGBUS are never blocked on the host: they are held here.
void requeue_blocked(uint64_t blocked) {
  while (blocked) {
    const int sig = __builtin_ctzll(blocked) + 1;
    blocked &= blocked - 1;
    X86SigInfo info = g_pending.info[sig];
    take_async(sig);
    if (sig == SIGSEGV || sig == SIGBUS) {
      g_pending.held |= bit(sig);
      thread_signals().held_runtime_signals = g_pending.held;
    } else {
      syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), sig, &info);
    }
  }
}

// Caught signals the guest may take now, lowest first (0 for none).
int first_ready_signal() {
  const uint64_t waiting = __atomic_load_n(&g_pending.async, __ATOMIC_SEQ_CST) | g_pending.held;
  if (!waiting) return 0;
  const uint64_t ready = ready_signals(waiting, guest_signal_mask());
  return ready ? __builtin_ctzll(ready) + 1 : 0;
}

}  // namespace

// #XM: the si_code names the first unmasked exception raised, in the
// order Linux tests them (invalid, divide, overflow, underflow or
// denormal, precision).
GuestSignal simd_fp_signal(uint64_t rip, uint32_t mxcsr) {
  constexpr int kFpeFltdiv = 3, kFpeFltovf = 4, kFpeFltund = 5, kFpeFltres = 6, kFpeFltinv = 7;
  const uint32_t raised = mxcsr & ~(mxcsr >> 7) & 0x3f;
  GuestSignal g;
  g.sig = SIGFPE;
  g.info.si_signo = SIGFPE;
  g.info.si_code = (raised & 0x01) ? kFpeFltinv
                   : (raised & 0x04) ? kFpeFltdiv
                   : (raised & 0x08) ? kFpeFltovf
                   : (raised & 0x12) ? kFpeFltund
                                     : kFpeFltres;
  g.info.fields[0] = rip;
  g.trapno = kX86TrapSimdFp;
  return g;
}

// What the CPU reports for the traps raise_guest_signal() stands for.
GuestSignal trap_signal(int sig, uint64_t rip) {
  GuestSignal g;
  g.sig = sig;
  switch (sig) {
    case kTrapDebug:  // icebp: the kernel's TRAP_BRKPT, at the next instruction
      g.sig = SIGTRAP;
      g.info.si_code = kTrapBrkpt;
      g.info.fields[0] = rip;
      g.trapno = kX86TrapDebug;
      break;
    case kTrapOverflow:  // int 4
      g.sig = SIGSEGV;
      g.info.si_code = kSiKernel;
      g.trapno = kX86TrapOverflow;
      break;
    case SIGFPE:  // #DE
      g.info.si_code = kFpeIntdiv;
      g.info.fields[0] = rip;
      g.trapno = kX86TrapDivide;
      break;
    case SIGILL:  // #UD
      g.info.si_code = kIllIllopn;
      g.info.fields[0] = rip;
      g.trapno = kX86TrapInvalidOp;
      break;
    case SIGTRAP:  // #BP
      g.info.si_code = kSiKernel;
      g.trapno = kX86TrapBreakpoint;
      break;
    default:  // SIGSEGV of #GP: hlt, misaligned SSE operand
      g.info.si_code = kSiKernel;
      g.trapno = kX86TrapGeneralProtection;
      break;
  }
  g.info.si_signo = g.sig;
  return g;
}

GuestSignal exec_fault_signal(uint64_t address, bool mapped) {
  GuestSignal g;
  g.sig = SIGSEGV;
  g.info.si_signo = SIGSEGV;
  g.info.si_code = mapped ? kSegvAccerr : kSegvMaperr;
  g.info.fields[0] = address;
  g.trapno = kX86TrapPageFault;
  g.err = kX86PfUser | kX86PfFetch | (mapped ? kX86PfProtection : 0);
  g.cr2 = address;
  return g;
}

volatile sig_atomic_t& signal_pending_flag() { return g_pending_flag; }

sigjmp_buf* copy_guard() { return g_copy_guard; }

bool guest_read(void* dst, uint64_t src, size_t n) { return guarded_copy(dst, reinterpret_cast<const void*>(src), n); }

bool guest_handles_fault(int sig) {
  return is_real_handler(process().signal_actions[sig].handler) && !(guest_signal_mask() & bit(sig));
}
bool signals_held() { return g_pending.held != 0; }

void set_temporary_mask_syscall(bool on) { g_temporary_mask = on; }

void queue_sync_signal(const GuestSignal& g) {
  g_pending.sync_signal = g;
  g_pending.sync = true;
  g_pending_flag = 1;
}

void record_async_signal(int sig, const void* host_info) {
  std::memcpy(&g_pending.info[sig], host_info, sizeof(X86SigInfo));
  if (g_temporary_mask) g_pending.through_temporary_mask |= bit(sig);
  __atomic_fetch_or(&g_pending.async, bit(sig), __ATOMIC_SEQ_CST);
  g_pending_flag = 1;
}

namespace {

// A host fault on memory phybin keeps reserved without a guest mapping
// there (the guard page below the stack) is, to the guest, an access to
// nothing: SEGV_MAPERR, no protection bit in the error code.
void describe_as_guest_memory(GuestSignal& g) {
  if (g.sig != SIGSEGV || g.trapno != kX86TrapPageFault || g.info.si_code != kSegvAccerr) return;
  if (process().address_space.find(g.cr2)) return;
  g.info.si_code = kSegvMaperr;
  g.err &= ~kX86PfProtection;
}

}  // namespace

bool deliver_pending_signals(GuestState& st) {
  bool started = false;
  if (g_pending.sync) {
    GuestSignal g = g_pending.sync_signal;
    describe_as_guest_memory(g);
    g_pending.sync = false;
    started = deliver_one(st, g, true);
  }
  // Lowest number first, as the kernel; each delivery changes the mask.
  for (;;) {
    const uint64_t async = __atomic_load_n(&g_pending.async, __ATOMIC_SEQ_CST);
    if (!async && !g_pending.held) break;
    const uint64_t mask = guest_signal_mask();
    const uint64_t ready = ready_signals(async | g_pending.held, mask);
    requeue_blocked(async & ~ready);
    if (!ready) break;
    const int sig = __builtin_ctzll(ready) + 1;
    GuestSignal g;
    g.sig = sig;
    g.info = g_pending.info[sig];
    take_async(sig);
    started |= deliver_one(st, g, false);
  }
  update_pending_flag();
  return started;
}

uint64_t first_pending_signal_flags() {
  const int sig = g_pending.sync ? g_pending.sync_signal.sig : first_ready_signal();
  if (!sig) return 0;
  const X86KernelSigaction& act = process().signal_actions[sig];
  return is_real_handler(act.handler) ? act.flags : 0;
}

void sigreturn(GuestState& st) {
  const uint64_t at = sigreturn_frame_address(st);
  X86RtSigFrame frame;
  if (!guarded_copy(&frame, reinterpret_cast<const void*>(at), sizeof frame)) die_of_signal(SIGSEGV);
  restore_signal_context(st, frame.uc);
  if (frame.uc.uc_mcontext.fpstate != 0) {
    alignas(16) uint8_t fx[kX86FxsaveBytes];
    if (!guarded_copy(fx, reinterpret_cast<const void*>(frame.uc.uc_mcontext.fpstate), sizeof fx))
      die_of_signal(SIGSEGV);
    if (process().config.fxrstor) process().config.fxrstor(st, fx);
  }
  set_guest_signal_mask(frame.uc.uc_sigmask);
  // As the kernel's restore_altstack(): ignored while running on it.
  const X86StackT& saved = frame.uc.uc_stack;
  if (!on_alt_stack(thread_signals().alt_stack, st.gpr[RSP])) {
    if (saved.ss_flags & kX86SsDisable) thread_signals().alt_stack = X86StackT{0, kX86SsDisable, 0, 0};
    else if (saved.ss_size >= kX86MinSigStkSz)
      thread_signals().alt_stack = X86StackT{saved.ss_sp, saved.ss_flags & kX86SsAutodisarm, 0, saved.ss_size};
  }
}

void die_of_signal(int sig) {
  logf(LogLevel::Info, "phybin: guest killed by signal %d", sig);
  before_process_exit(128 + sig);
  std::fflush(nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  syscall(SYS_tgkill, getpid(), gettid(), sig);
  // A signal whose default action is not to end the process must still end it.
  _exit(128 + sig);
}

}  // namespace phybin::sys
