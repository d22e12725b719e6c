#include "linux/signal_frame.h"

namespace phybin::sys {
namespace {

// gregs index of each guest GPR (RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI,
// R8..R15).
constexpr X86Greg kGregOfGpr[kNumGuestGprs] = {
    kGregRax, kGregRcx, kGregRdx, kGregRbx, kGregRsp, kGregRbp, kGregRsi, kGregRdi,
    kGregR8,  kGregR9,  kGregR10, kGregR11, kGregR12, kGregR13, kGregR14, kGregR15};

constexpr uint64_t kRedZone = 128;
constexpr uint64_t kFlagTf = 0x100, kFlagDf = 0x400, kFlagRf = 0x10000;

}  // namespace

bool on_alt_stack(const X86StackT& alt, uint64_t sp) {
  if (alt.ss_flags & kX86SsDisable || alt.ss_size == 0) return false;
  // As the kernel's on_sig_stack(): the top itself counts as on the stack.
  return sp > alt.ss_sp && sp - alt.ss_sp <= alt.ss_size;
}

X86StackT saved_alt_stack(const X86StackT& alt, uint64_t sp) {
  X86StackT saved = alt;
  const int32_t autodisarm = alt.ss_flags & kX86SsAutodisarm;
  if (alt.ss_flags & kX86SsDisable || alt.ss_size == 0) saved.ss_flags = kX86SsDisable | autodisarm;
  else saved.ss_flags = (on_alt_stack(alt, sp) ? kX86SsOnstack : 0) | autodisarm;
  return saved;
}

FramePlacement place_signal_frame(uint64_t rsp, uint64_t sa_flags, const X86StackT& alt) {
  FramePlacement where;
  uint64_t sp = rsp - kRedZone;
  const bool alt_usable = !(alt.ss_flags & kX86SsDisable) && alt.ss_size != 0;
  if ((sa_flags & kX86SaOnstack) && alt_usable && !on_alt_stack(alt, sp)) {
    sp = alt.ss_sp + alt.ss_size;
    where.on_alt_stack = true;
  }
  where.fxsave = (sp - kX86FxsaveBytes) & ~uint64_t{63};
  where.frame = ((where.fxsave - sizeof(X86RtSigFrame)) & ~uint64_t{15}) - 8;
  return where;
}

void fill_signal_frame(X86RtSigFrame& frame, const GuestState& st, const GuestSignal& signal, uint64_t restorer,
                       uint64_t old_mask, const X86StackT& saved_alt, uint64_t fxsave_address) {
  frame = X86RtSigFrame{};
  frame.pretcode = restorer;
  X86UContext& uc = frame.uc;
  uc.uc_flags = kX86UcSigcontextSs | kX86UcStrictRestoreSs;
  uc.uc_stack = saved_alt;
  X86SigContext& mc = uc.uc_mcontext;
  for (unsigned r = 0; r < kNumGuestGprs; ++r) mc.gregs[kGregOfGpr[r]] = st.gpr[r];
  mc.gregs[kGregRip] = st.rip;
  mc.gregs[kGregEfl] = st.rflags;
  mc.gregs[kGregCsgsfs] = kX86UserCs | (kX86UserSs << 48);
  mc.gregs[kGregErr] = signal.err;
  mc.gregs[kGregTrapno] = signal.trapno;
  mc.gregs[kGregOldmask] = old_mask;
  mc.gregs[kGregCr2] = signal.cr2;
  mc.fpstate = fxsave_address;
  uc.uc_sigmask = old_mask;
  frame.info = signal.info;
  frame.info.si_signo = signal.sig;
}

void enter_signal_handler(GuestState& st, const FramePlacement& where, int sig, uint64_t handler) {
  st.gpr[RDI] = static_cast<uint64_t>(sig);
  st.gpr[RSI] = where.frame + offsetof(X86RtSigFrame, info);
  st.gpr[RDX] = where.frame + offsetof(X86RtSigFrame, uc);
  st.gpr[RAX] = 0;  // no vector registers for a variadic handler
  st.gpr[RSP] = where.frame;
  st.rip = handler;
  st.rflags &= ~(kFlagDf | kFlagTf | kFlagRf);
}

void restore_signal_context(GuestState& st, const X86UContext& uc) {
  const X86SigContext& mc = uc.uc_mcontext;
  for (unsigned r = 0; r < kNumGuestGprs; ++r) st.gpr[r] = mc.gregs[kGregOfGpr[r]];
  st.rip = mc.gregs[kGregRip];
  st.rflags = (st.rflags & ~kX86SigreturnFlags) | (mc.gregs[kGregEfl] & kX86SigreturnFlags);
}

}  // namespace phybin::sys
