// The x86-64 signal frame as the Linux kernel builds it on the user stack
// (arch/x86/kernel/signal.c, 64-bit, FXSAVE floating-point state) and
// rt_sigreturn reads it back.  Pure layout work on host-side copies: the
// runtime copies the image to and from guest memory (that may fault) and
// decides when to deliver.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/guest_state.h"
#include "linux/x86_abi.h"

namespace phybin::sys {

// siginfo_t: 128 bytes, the same layout on x86-64 and AArch64 (signo,
// errno, code, then a union from offset 16: si_addr for faults, si_pid and
// si_uid for kill...).  Host siginfo is copied byte for byte.
struct X86SigInfo {
  int32_t si_signo;
  int32_t si_errno;
  int32_t si_code;
  int32_t pad;
  uint64_t fields[14];  // fields[0] is si_addr for SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGTRAP
};
static_assert(sizeof(X86SigInfo) == 128);

// uc_mcontext.gregs indices (glibc's REG_R8 ... REG_CR2), then the pointer
// to the FXSAVE area and 8 reserved words: the kernel's struct sigcontext.
enum X86Greg : uint8_t {
  kGregR8, kGregR9, kGregR10, kGregR11, kGregR12, kGregR13, kGregR14, kGregR15,
  kGregRdi, kGregRsi, kGregRbp, kGregRbx, kGregRdx, kGregRax, kGregRcx, kGregRsp,
  kGregRip, kGregEfl, kGregCsgsfs, kGregErr, kGregTrapno, kGregOldmask, kGregCr2,
  kNumX86Gregs
};

struct X86SigContext {
  uint64_t gregs[kNumX86Gregs];
  uint64_t fpstate;  // guest address of the 512-byte FXSAVE area, or 0
  uint64_t reserved[8];
};
static_assert(sizeof(X86SigContext) == 256);

// The kernel's struct ucontext (its sigset is 8 bytes; glibc's ucontext_t
// declares 128, of which a handler may only rely on the first 8).
struct X86UContext {
  uint64_t uc_flags;
  uint64_t uc_link;
  X86StackT uc_stack;
  X86SigContext uc_mcontext;
  uint64_t uc_sigmask;
};
static_assert(offsetof(X86UContext, uc_mcontext) == 40);
static_assert(offsetof(X86UContext, uc_sigmask) == 296);

// struct rt_sigframe: what RSP points to when the handler starts.  The
// handler's `ret` pops pretcode (sa_restorer), which calls rt_sigreturn
// with RSP = the frame + 8.
struct X86RtSigFrame {
  uint64_t pretcode;
  X86UContext uc;
  X86SigInfo info;
};
static_assert(offsetof(X86RtSigFrame, uc) == 8);
static_assert(offsetof(X86RtSigFrame, info) == 312);

constexpr size_t kX86FxsaveBytes = 512;
constexpr uint64_t kX86SaSiginfo = 0x4;
constexpr uint64_t kX86SaOnstack = 0x08000000;
constexpr uint64_t kX86SaRestart = 0x10000000;
constexpr uint64_t kX86SaNodefer = 0x40000000;
constexpr uint64_t kX86SaResethand = 0x80000000;
// uc_flags the 64-bit kernel sets when it saves SS (no XSAVE: no UC_FP_XSTATE).
constexpr uint64_t kX86UcSigcontextSs = 0x2, kX86UcStrictRestoreSs = 0x4;
// User code and stack segment selectors of x86-64 Linux, in CSGSFS.
constexpr uint64_t kX86UserCs = 0x33, kX86UserSs = 0x2b;
// RFLAGS bits rt_sigreturn takes from the frame (FIX_EFLAGS): AC OF DF TF
// SF ZF AF PF CF NT RF.  IF and the reserved bit 1 stay as they are.
constexpr uint64_t kX86SigreturnFlags = 0x40000 | 0x800 | 0x400 | 0x100 | 0x80 | 0x40 | 0x10 | 0x4 | 0x1 |
                                        0x4000 | 0x10000;

// x86 exception numbers reported in uc_mcontext.gregs[REG_TRAPNO].
constexpr uint64_t kX86TrapDivide = 0, kX86TrapDebug = 1, kX86TrapBreakpoint = 3, kX86TrapOverflow = 4,
                   kX86TrapInvalidOp = 6,
                   kX86TrapGeneralProtection = 13, kX86TrapPageFault = 14, kX86TrapSimdFp = 19;
// Page-fault error code bits (REG_ERR): present, write, user, fetch.
constexpr uint64_t kX86PfProtection = 0x1, kX86PfWrite = 0x2, kX86PfUser = 0x4, kX86PfFetch = 0x10;

// One signal on its way to a guest handler: what goes into siginfo and the
// exception fields of the context.
struct GuestSignal {
  int sig = 0;
  X86SigInfo info{};
  uint64_t trapno = 0;
  uint64_t err = 0;
  uint64_t cr2 = 0;
};

// Where the kernel puts a frame: the FXSAVE area (64-byte aligned) first,
// below the stack pointer's red zone or at the top of the alternate stack,
// then struct rt_sigframe below it, placed so that RSP + 8 is 16-byte
// aligned at the handler's entry, as right after a call.
struct FramePlacement {
  uint64_t frame = 0;
  uint64_t fxsave = 0;
  bool on_alt_stack = false;  // the frame is on the sigaltstack
};
FramePlacement place_signal_frame(uint64_t rsp, uint64_t sa_flags, const X86StackT& alt);

// True when `sp` lies on the alternate stack `alt` (an enabled one).
bool on_alt_stack(const X86StackT& alt, uint64_t sp);

// The uc_stack the frame records: the alternate stack as it is before the
// delivery, flagged SS_ONSTACK while running on it, SS_DISABLE when off.
X86StackT saved_alt_stack(const X86StackT& alt, uint64_t sp);

// Fills the frame image from the guest registers (which still hold the
// interrupted context) and the signal.  `old_mask` is the blocked mask the
// handler's return restores.
void fill_signal_frame(X86RtSigFrame& frame, const GuestState& st, const GuestSignal& signal, uint64_t restorer,
                       uint64_t old_mask, const X86StackT& saved_alt, uint64_t fxsave_address);

// The registers on entry to the handler: RDI = signal, RSI = &siginfo,
// RDX = &ucontext, RAX = 0, RSP = the frame, RIP = handler; DF, TF and RF
// cleared.
void enter_signal_handler(GuestState& st, const FramePlacement& where, int sig, uint64_t handler);

// rt_sigreturn: general registers, RIP and the RFLAGS bits a handler may
// change, from a frame's ucontext.  (Floating point, mask and sigaltstack
// are the caller's: they need the host.)
void restore_signal_context(GuestState& st, const X86UContext& uc);

// The frame rt_sigreturn reads: at RSP - 8 (the handler popped pretcode).
inline uint64_t sigreturn_frame_address(const GuestState& st) { return st.gpr[RSP] - 8; }

}  // namespace phybin::sys
