// Tests of src/linux/signal_frame: the x86-64 signal frame phybin builds
// for guest handlers.  The layout is checked against glibc's own x86-64
// definitions and against a frame the real kernel builds for a handler in
// this very process (the unit tests run on x86-64); placement, register
// setup and rt_sigreturn's restore against hand-worked values.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/ucontext.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "linux/signal_frame.h"

namespace phybin::sys {
namespace {

#if defined(__x86_64__)

TEST(SignalFrameLayout, GregsFollowGlibcsRegOrder) {
  EXPECT_EQ(REG_R8, kGregR8);
  EXPECT_EQ(REG_R15, kGregR15);
  EXPECT_EQ(REG_RDI, kGregRdi);
  EXPECT_EQ(REG_RSI, kGregRsi);
  EXPECT_EQ(REG_RBP, kGregRbp);
  EXPECT_EQ(REG_RBX, kGregRbx);
  EXPECT_EQ(REG_RDX, kGregRdx);
  EXPECT_EQ(REG_RAX, kGregRax);
  EXPECT_EQ(REG_RCX, kGregRcx);
  EXPECT_EQ(REG_RSP, kGregRsp);
  EXPECT_EQ(REG_RIP, kGregRip);
  EXPECT_EQ(REG_EFL, kGregEfl);
  EXPECT_EQ(REG_CSGSFS, kGregCsgsfs);
  EXPECT_EQ(REG_ERR, kGregErr);
  EXPECT_EQ(REG_TRAPNO, kGregTrapno);
  EXPECT_EQ(REG_OLDMASK, kGregOldmask);
  EXPECT_EQ(REG_CR2, kGregCr2);
  EXPECT_EQ(NGREG, kNumX86Gregs);
}

TEST(SignalFrameLayout, UcontextMatchesGlibc) {
  EXPECT_EQ(offsetof(ucontext_t, uc_flags), offsetof(X86UContext, uc_flags));
  EXPECT_EQ(offsetof(ucontext_t, uc_link), offsetof(X86UContext, uc_link));
  EXPECT_EQ(offsetof(ucontext_t, uc_stack), offsetof(X86UContext, uc_stack));
  EXPECT_EQ(offsetof(ucontext_t, uc_mcontext), offsetof(X86UContext, uc_mcontext));
  EXPECT_EQ(offsetof(ucontext_t, uc_mcontext.fpregs),
            offsetof(X86UContext, uc_mcontext) + offsetof(X86SigContext, fpstate));
  EXPECT_EQ(offsetof(ucontext_t, uc_sigmask), offsetof(X86UContext, uc_sigmask));
  EXPECT_EQ(sizeof(stack_t), sizeof(X86StackT));
  EXPECT_EQ(offsetof(stack_t, ss_flags), offsetof(X86StackT, ss_flags));
  EXPECT_EQ(offsetof(stack_t, ss_size), offsetof(X86StackT, ss_size));
  EXPECT_EQ(sizeof(siginfo_t), sizeof(X86SigInfo));
  EXPECT_EQ(offsetof(siginfo_t, si_code), offsetof(X86SigInfo, si_code));
  EXPECT_EQ(offsetof(siginfo_t, si_addr), offsetof(X86SigInfo, fields));
  // The FXSAVE area the frame points to (glibc's struct _libc_fpstate).
  EXPECT_EQ(offsetof(struct _libc_fpstate, mxcsr), 24u);
  EXPECT_EQ(offsetof(struct _libc_fpstate, _st), 32u);
  EXPECT_EQ(offsetof(struct _libc_fpstate, _xmm), 160u);
  EXPECT_EQ(sizeof(struct _libc_fpstate), kX86FxsaveBytes);
}

// What the host kernel gave a real handler.
struct SeenByHandler {
  uintptr_t info, uc, pretcode, return_address, rsp_at_signal, fpregs;
  uint64_t uc_flags, csgsfs;
  int signo;
};
SeenByHandler g_seen;

__attribute__((noinline)) void record_frame(int sig, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  g_seen.signo = sig;
  g_seen.info = reinterpret_cast<uintptr_t>(info);
  g_seen.uc = reinterpret_cast<uintptr_t>(uc);
  std::memcpy(&g_seen.pretcode, reinterpret_cast<const char*>(uc) - 8, 8);
  g_seen.rsp_at_signal = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
  g_seen.fpregs = reinterpret_cast<uintptr_t>(uc->uc_mcontext.fpregs);
  g_seen.uc_flags = uc->uc_flags;
  g_seen.csgsfs = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_CSGSFS]);
}

// The handler itself must be what the kernel called: its return address
// is the frame's pretcode.
__attribute__((noinline)) void real_handler(int sig, siginfo_t* info, void* context) {
  record_frame(sig, info, context);
  g_seen.return_address = reinterpret_cast<uintptr_t>(__builtin_extract_return_addr(__builtin_return_address(0)));
}

TEST(SignalFrameLayout, RealKernelFrameHasTheSameShape) {
  struct sigaction sa {}, old {};
  sa.sa_sigaction = real_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR2, &sa, &old), 0);
  raise(SIGUSR2);
  sigaction(SIGUSR2, &old, nullptr);
  ASSERT_EQ(g_seen.signo, SIGUSR2);
  const uintptr_t frame = g_seen.uc - offsetof(X86RtSigFrame, uc);
  EXPECT_EQ(g_seen.info - frame, offsetof(X86RtSigFrame, info));
  EXPECT_EQ(g_seen.pretcode, g_seen.return_address);
  EXPECT_EQ((frame + 8) % 16, 0u) << "RSP + 8 is 16-byte aligned at the handler's entry";
  EXPECT_EQ(g_seen.fpregs % 64, 0u);
  EXPECT_GE(g_seen.fpregs, frame + sizeof(X86RtSigFrame));
  EXPECT_LE(g_seen.fpregs + kX86FxsaveBytes, g_seen.rsp_at_signal - 128) << "below the red zone";
  EXPECT_EQ(g_seen.uc_flags & (kX86UcSigcontextSs | kX86UcStrictRestoreSs), kX86UcSigcontextSs | kX86UcStrictRestoreSs);
  EXPECT_EQ(g_seen.csgsfs & 0xffff, kX86UserCs);
  EXPECT_EQ(g_seen.csgsfs >> 48, kX86UserSs);
}

#endif  // __x86_64__

TEST(SignalFramePlacement, BelowTheRedZone) {
  const X86StackT no_alt{0, kX86SsDisable, 0, 0};
  const uint64_t rsp = 0x7ffff000'1238;
  FramePlacement p = place_signal_frame(rsp, kX86SaSiginfo | kX86SaRestorer, no_alt);
  EXPECT_FALSE(p.on_alt_stack);
  EXPECT_EQ(p.fxsave, (rsp - 128 - 512) & ~uint64_t{63});
  EXPECT_EQ(p.frame, ((p.fxsave - sizeof(X86RtSigFrame)) & ~uint64_t{15}) - 8);
  EXPECT_EQ((p.frame + 8) % 16, 0u);
  EXPECT_LE(p.frame + sizeof(X86RtSigFrame), p.fxsave);
}

TEST(SignalFramePlacement, OnTheAlternateStackWhenAsked) {
  const X86StackT alt{0x10000, 0, 0, 0x4000};
  FramePlacement p = place_signal_frame(0x7fff0000, kX86SaOnstack | kX86SaRestorer, alt);
  EXPECT_TRUE(p.on_alt_stack);
  EXPECT_EQ(p.fxsave, 0x14000u - 512);
  EXPECT_GE(p.frame, 0x10000u);
  // Without SA_ONSTACK the alternate stack is not used.
  EXPECT_FALSE(place_signal_frame(0x7fff0000, kX86SaRestorer, alt).on_alt_stack);
  // Already on it (a nested signal): the frame goes below the current RSP.
  FramePlacement nested = place_signal_frame(0x13000, kX86SaOnstack | kX86SaRestorer, alt);
  EXPECT_FALSE(nested.on_alt_stack);
  EXPECT_LT(nested.fxsave, 0x13000u - 128);
}

TEST(SignalFramePlacement, SavedAltStackFlags) {
  const X86StackT alt{0x10000, kX86SsAutodisarm, 0, 0x4000};
  EXPECT_EQ(saved_alt_stack(alt, 0x7fff0000).ss_flags, kX86SsAutodisarm);
  EXPECT_EQ(saved_alt_stack(alt, 0x12000).ss_flags, kX86SsOnstack | kX86SsAutodisarm);
  EXPECT_EQ(saved_alt_stack(X86StackT{0, kX86SsDisable, 0, 0}, 0x12000).ss_flags, kX86SsDisable);
  EXPECT_TRUE(on_alt_stack(alt, 0x14000));  // the top counts, as in the kernel
  EXPECT_FALSE(on_alt_stack(alt, 0x10000));
}

GuestState numbered_state() {
  GuestState st{};
  for (unsigned r = 0; r < kNumGuestGprs; ++r) st.gpr[r] = 0x1000 + r;
  st.rip = 0x401234;
  st.rflags = 0x202 | 0x400 | 0x1;  // IF, DF, CF
  return st;
}

TEST(SignalFrameContents, RegistersMasksAndSiginfo) {
  GuestState st = numbered_state();
  GuestSignal sig;
  sig.sig = 11;
  sig.info.si_code = 2;
  sig.info.fields[0] = 0xdead0;
  sig.trapno = kX86TrapPageFault;
  sig.err = kX86PfUser | kX86PfWrite;
  sig.cr2 = 0xdead0;
  const X86StackT saved{0x10000, kX86SsOnstack, 0, 0x4000};
  X86RtSigFrame f;
  fill_signal_frame(f, st, sig, 0x401800, 0x5, saved, 0x7000);
  const X86SigContext& mc = f.uc.uc_mcontext;
  EXPECT_EQ(f.pretcode, 0x401800u);
  EXPECT_EQ(mc.gregs[kGregRax], 0x1000u + RAX);
  EXPECT_EQ(mc.gregs[kGregRcx], 0x1000u + RCX);
  EXPECT_EQ(mc.gregs[kGregRsp], 0x1000u + RSP);
  EXPECT_EQ(mc.gregs[kGregRdi], 0x1000u + RDI);
  EXPECT_EQ(mc.gregs[kGregR8], 0x1000u + R8);
  EXPECT_EQ(mc.gregs[kGregR15], 0x1000u + R15);
  EXPECT_EQ(mc.gregs[kGregRip], 0x401234u);
  EXPECT_EQ(mc.gregs[kGregEfl], 0x603u);
  EXPECT_EQ(mc.gregs[kGregTrapno], 14u);
  EXPECT_EQ(mc.gregs[kGregErr], 6u);
  EXPECT_EQ(mc.gregs[kGregCr2], 0xdead0u);
  EXPECT_EQ(mc.gregs[kGregOldmask], 0x5u);
  EXPECT_EQ(mc.fpstate, 0x7000u);
  EXPECT_EQ(f.uc.uc_sigmask, 0x5u);
  EXPECT_EQ(f.uc.uc_stack.ss_flags, kX86SsOnstack);
  EXPECT_EQ(f.info.si_signo, 11);
  EXPECT_EQ(f.info.si_code, 2);
  EXPECT_EQ(f.info.fields[0], 0xdead0u);
}

TEST(SignalFrameContents, HandlerEntryRegisters) {
  GuestState st = numbered_state();
  FramePlacement where{0x7fffe008, 0x7ffff000, false};
  enter_signal_handler(st, where, 10, 0x401500);
  EXPECT_EQ(st.gpr[RDI], 10u);
  EXPECT_EQ(st.gpr[RSI], 0x7fffe008u + offsetof(X86RtSigFrame, info));
  EXPECT_EQ(st.gpr[RDX], 0x7fffe008u + offsetof(X86RtSigFrame, uc));
  EXPECT_EQ(st.gpr[RAX], 0u);
  EXPECT_EQ(st.gpr[RSP], 0x7fffe008u);
  EXPECT_EQ(st.rip, 0x401500u);
  EXPECT_EQ(st.rflags, 0x203u) << "DF cleared, the rest kept";
  EXPECT_EQ(st.gpr[RBX], 0x1000u + RBX);
}

TEST(SignalFrameContents, SigreturnRestoresWhatTheHandlerLeft) {
  GuestState st = numbered_state();
  X86RtSigFrame f;
  fill_signal_frame(f, st, GuestSignal{}, 0, 0, X86StackT{0, kX86SsDisable, 0, 0}, 0);
  // A handler changes RIP, RBX and the flags; it cannot clear IF.
  f.uc.uc_mcontext.gregs[kGregRip] = 0x401300;
  f.uc.uc_mcontext.gregs[kGregRbx] = 77;
  f.uc.uc_mcontext.gregs[kGregEfl] = 0x40 | 0x800;  // ZF, OF; IF and bit 1 absent
  GuestState after{};
  after.rflags = 0x202;
  restore_signal_context(after, f.uc);
  EXPECT_EQ(after.rip, 0x401300u);
  EXPECT_EQ(after.gpr[RBX], 77u);
  EXPECT_EQ(after.gpr[R12], 0x1000u + R12);
  EXPECT_EQ(after.rflags, 0x202u | 0x40 | 0x800);
  st.gpr[RSP] = 0x7fffe010;
  EXPECT_EQ(sigreturn_frame_address(st), 0x7fffe008u);
}

}  // namespace
}  // namespace phybin::sys
