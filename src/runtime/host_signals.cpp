// phybin's host signal handlers.  SIGSEGV and SIGBUS are always ours: a
// write to a write-protected guest code page (self-modifying code), a
// fault while copying a signal frame, a fault of the guest in translated
// code or in a helper, or phybin's own bug.  Other signals reach
// host_signal_handler only when the guest has a handler for them.
#include <dlfcn.h>
#include <setjmp.h>
#include <ucontext.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "arm64/regmap.h"
#include "common/log.h"
#include "linux/signal_delivery.h"
#include "linux/syscalls.h"
#include "runtime/guest_thread.h"
#include "runtime/signals.h"

namespace phybin::runtime {

namespace {

// Records of the AArch64 signal frame's __reserved area (the kernel's
// <asm/sigcontext.h>; written out to stay clear of libc's definitions).
struct ContextRecord {
  uint32_t magic;
  uint32_t size;
};
struct FpsimdRecord {
  ContextRecord head;
  uint32_t fpsr;
  uint32_t fpcr;
  unsigned __int128 vregs[32];
};
struct EsrRecord {
  ContextRecord head;
  uint64_t esr;
};
constexpr uint32_t kFpsimdMagic = 0x46508001;
constexpr uint32_t kEsrMagic = 0x45535201;

const ContextRecord* find_record(const mcontext_t& mc, uint32_t magic) {
  const auto* p = reinterpret_cast<const uint8_t*>(mc.__reserved);
  const uint8_t* end = p + sizeof mc.__reserved;
  while (p + sizeof(ContextRecord) <= end) {
    const auto* r = reinterpret_cast<const ContextRecord*>(p);
    if (r->magic == 0 || r->size < sizeof(ContextRecord)) return nullptr;
    if (r->magic == magic) return r;
    p += r->size;
  }
  return nullptr;
}

// Whether the faulting access wrote: the ESR's WnR bit when the kernel
// gives it, else the L bit (22) of the load/store instruction.
bool fault_was_write(const mcontext_t& mc) {
  if (const auto* esr = reinterpret_cast<const EsrRecord*>(find_record(mc, kEsrMagic))) {
    const uint64_t ec = (esr->esr >> 26) & 0x3f;
    if (ec == 0x24 || ec == 0x25) return (esr->esr >> 6) & 1;
  }
  const uint32_t insn = *reinterpret_cast<const uint32_t*>(mc.pc);
  return !((insn >> 22) & 1);
}

// The guest registers live in fixed host registers inside translated code.
void capture_guest_registers(GuestState& st, const mcontext_t& mc) {
  for (unsigned i = 0; i < kNumGuestGprs; ++i) st.gpr[i] = mc.regs[arm64::regmap::kGuestGpr[i].code];
  st.rflags = mc.regs[arm64::regmap::kFlags.code];
  if (const auto* fp = reinterpret_cast<const FpsimdRecord*>(find_record(mc, kFpsimdMagic)))
    for (unsigned i = 0; i < 16; ++i) std::memcpy(&st.xmm[i], &fp->vregs[arm64::regmap::guest_xmm(i).code], 16);
}

sys::GuestSignal fault_signal(int sig, const siginfo_t* info, bool write) {
  sys::GuestSignal g;
  static_assert(sizeof(siginfo_t) == sizeof(sys::X86SigInfo));
  std::memcpy(&g.info, info, sizeof g.info);
  g.sig = sig;
  g.trapno = sys::kX86TrapPageFault;
  g.cr2 = reinterpret_cast<uint64_t>(info->si_addr);
  g.err = sys::kX86PfUser | (write ? sys::kX86PfWrite : 0) |
          (sig == SIGSEGV && info->si_code == SEGV_ACCERR ? sys::kX86PfProtection : 0);
  return g;
}

// On return from the handler the thread runs leave(state): translated code
// (or the helper) is abandoned and the dispatcher delivers the signal.
void divert_to_dispatcher(ucontext_t* uc, GuestThread& thread) {
  GuestState& st = thread.state();
  st.exit_link = 0;
  uc->uc_mcontext.pc = reinterpret_cast<uint64_t>(thread.process().stubs().leave);
  uc->uc_mcontext.regs[0] = reinterpret_cast<uint64_t>(&st);
}

// A fault of the guest: in translated code (registers in the host
// context, the instruction from the block's side table) or in a helper
// (guest state in memory, RIP stored before the call).  A jump to guest
// code that is not there never faults here: the dispatcher finds it.
bool divert_guest_fault(int sig, siginfo_t* info, ucontext_t* uc, GuestThread& thread) {
  GuestThreadFlags& flags = thread_flags();
  if (!flags.in_guest || flags.busy) return false;
  GuestState& st = thread.state();
  const Process& process = thread.process();
  const mcontext_t& mc = uc->uc_mcontext;
  const auto* pc = reinterpret_cast<const void*>(mc.pc);
  const bool in_translated_code = mc.regs[arm64::regmap::kState.code] == reinterpret_cast<uint64_t>(&st);
  Process::RunningInsn at;
  if (in_translated_code && process.running_insn(pc, at)) {
    capture_guest_registers(st, mc);
    st.rip = at.guest_pc;
    thread.repair_fault_flags(at.block_start);
    // In an XMM commit region the registers are those of its start:
    // running it again brings the fault back where it belongs.
    if (at.replay) {
      thread.request_replay(at.replay);
      // The kernel loads FPSR from the frame when the handler returns.
      const auto* record = at.restores_fpsr ? find_record(uc->uc_mcontext, kFpsimdMagic) : nullptr;
      if (record) reinterpret_cast<FpsimdRecord*>(const_cast<ContextRecord*>(record))->fpsr = st.region_fpsr;
    } else {
      sys::queue_sync_signal(fault_signal(sig, info, fault_was_write(mc)));
    }
  } else if (in_translated_code && thread.step_holds(pc, at.guest_pc)) {
    capture_guest_registers(st, mc);
    st.rip = at.guest_pc;
    thread.repair_fault_flags(at.guest_pc);
    sys::queue_sync_signal(fault_signal(sig, info, fault_was_write(mc)));
  } else if (!process.in_code_cache(pc)) {
    sys::queue_sync_signal(fault_signal(sig, info, fault_was_write(mc)));
  } else {
    return false;  // in a stub: phybin's own
  }
  divert_to_dispatcher(uc, thread);
  return true;
}

// A write to a guest code page phybin protected.  Usually the store runs
// again on the writable page.  When it writes code further on in its own
// block, which must not run stale, the guest resumes at the store from a
// fresh translation instead (GuestThread::request_unprotected_step).
bool handle_code_write(GuestThread& thread, siginfo_t* info, ucontext_t* uc) {
  const auto address = reinterpret_cast<uint64_t>(info->si_addr);
  const mcontext_t& mc = uc->uc_mcontext;
  GuestThreadFlags& flags = thread_flags();
  GuestState& st = thread.state();
  Process& process = thread.process();
  Process::RunningInsn store{};
  const bool in_block = flags.in_guest && !flags.busy &&
                        mc.regs[arm64::regmap::kState.code] == reinterpret_cast<uint64_t>(&st) &&
                        process.running_insn(reinterpret_cast<const void*>(mc.pc), store);
  if (!process.handle_code_write(address)) return false;
  if (in_block && address >= store.guest_pc && address < store.block_end) {
    capture_guest_registers(st, mc);
    st.rip = store.guest_pc;
    thread.request_unprotected_step();
    divert_to_dispatcher(uc, thread);
  }
  return true;
}

// A fault phybin cannot give the guest: the default action, when the
// faulting instruction runs again.
void fault_kills(int sig) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
}

// Asks translated code to come back to the dispatcher, unless the thread
// is somewhere that reaches a delivery point anyway.  In a guest system
// call that has not started yet, the call gives up (see
// sys::rewind_unstarted_syscall); one that has started returns EINTR.
void request_delivery(ucontext_t* uc) {
  GuestThreadFlags& flags = thread_flags();
  GuestThread* thread = GuestThread::current();
  if (!thread || !flags.in_guest || flags.busy) return;
  if (flags.in_syscall) {
    uint64_t pc = uc->uc_mcontext.pc;
    if (sys::rewind_unstarted_syscall(pc, uc->uc_mcontext.regs)) uc->uc_mcontext.pc = pc;
    return;
  }
  thread->force_exit(reinterpret_cast<const void*>(uc->uc_mcontext.pc));
}

// The native libraries' actions for SIGSEGV and SIGBUS
// (keep_native_fault_action), read by the fault handler.
struct sigaction g_native_fault_action[2];

struct sigaction& native_fault_action(int sig) { return g_native_fault_action[sig == SIGBUS ? 1 : 0]; }

// Runs a native library's handler for a fault that is not the guest's;
// false when the library set none.
bool run_native_fault_handler(int sig, siginfo_t* info, void* context) {
  const struct sigaction& act = native_fault_action(sig);
  if (act.sa_flags & SA_SIGINFO) {
    if (!act.sa_sigaction) return false;
    act.sa_sigaction(sig, info, context);
    return true;
  }
  if (act.sa_handler == SIG_DFL || act.sa_handler == SIG_IGN) return false;
  act.sa_handler(sig);
  return true;
}

void fault_handler(int sig, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  if (info->si_code <= 0) {  // sent with kill() & co., not a fault
    sys::record_async_signal(sig, info);
    request_delivery(uc);
    return;
  }
  GuestThread* thread = GuestThread::current();
  if (thread && sig == SIGSEGV && info->si_code == SEGV_ACCERR && handle_code_write(*thread, info, uc))
    return;
  if (sigjmp_buf* guard = sys::copy_guard()) siglongjmp(*guard, 1);
  if (thread && divert_guest_fault(sig, info, uc, *thread)) return;
  // Not in translated code or phybin's stubs: a native library's fault.
  const bool in_cache =
      thread && thread->process().in_code_cache(reinterpret_cast<const void*>(uc->uc_mcontext.pc));
  if (!in_cache && run_native_fault_handler(sig, info, context)) return;
  // phybin's own: say where, for the bug report (the process dies anyway,
  // so dladdr's locks do not matter).
  const auto* pc = reinterpret_cast<const void*>(uc->uc_mcontext.pc);
  Dl_info where{};
  const bool named = !in_cache && dladdr(pc, &where) && where.dli_fname;
  logf(LogLevel::Error, "phybin: internal fault: signal %d at pc %p (%s+%#llx), address %#llx, guest thread %s", sig,
       pc, in_cache ? "translated code" : named ? where.dli_fname : "phybin",
       named ? static_cast<unsigned long long>(static_cast<const char*>(pc) - static_cast<const char*>(where.dli_fbase))
             : 0ull,
       static_cast<unsigned long long>(reinterpret_cast<uint64_t>(info->si_addr)), thread ? "yes" : "none");
  fault_kills(sig);
}

}  // namespace

int keep_native_fault_action(int sig, const struct sigaction* act, struct sigaction* old) {
  if (!is_fault_signal_kept_aside(sig)) {
    errno = EINVAL;
    return -1;
  }
  struct sigaction& kept = native_fault_action(sig);
  if (old) *old = kept;
  if (act) {
    kept = *act;
    logf(LogLevel::Info, "phybin: a native library's handler for signal %d is kept aside: phybin's stays installed",
         sig);
  }
  return 0;
}

bool is_fault_signal_kept_aside(int sig) { return sig == SIGSEGV || sig == SIGBUS; }

void host_signal_handler(int sig, siginfo_t* info, void* context) {
  // SIGILL, SIGFPE and SIGTRAP from the kernel are phybin's own faults
  // (translated code raises the guest's through raise_guest_signal).
  if ((sig == SIGILL || sig == SIGFPE || sig == SIGTRAP) && info->si_code > 0) {
    fault_kills(sig);
    return;
  }
  sys::record_async_signal(sig, info);
  request_delivery(static_cast<ucontext_t*>(context));
}

void install_fault_handlers() {
  // Its own stack, one per thread: the guest's stack is not the host's,
  // but a deep host recursion should still report its fault.
  static thread_local char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = fault_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigfillset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
}

}  // namespace phybin::runtime
