// The architectural state of one guest x86-64 thread, as the runtime, the
// Linux layer and helpers see it in memory.  Translated code keeps the GPRs,
// RFLAGS and XMM registers in host registers and writes them back here
// whenever C++ code needs to look (helper calls, system calls, exits).
// Offsets are fixed: the backend addresses fields by these constants.
#pragma once

#include <cstddef>
#include <cstdint>

namespace phybin {

// x86-64 register numbers, in the ModRM/REX encoding order.
enum GuestReg : uint8_t {
  RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI,
  R8, R9, R10, R11, R12, R13, R14, R15,
  kNumGuestGprs
};

// What raise_signal reports besides plain signal numbers: an unmasked SSE
// floating-point exception (#XM: SIGFPE with the si_code of the exception).
constexpr int kTrapSimdFp = 0x108;
// An instruction that runs into memory that cannot be fetched (unmapped or
// not executable): SIGSEGV with the first such byte as the address.  Below
// 256, as it travels in a Trap's 8-bit aux, and above every signal number.
constexpr int kTrapCodeFetch = 0xC0;
// An instruction phybin does not translate: SIGILL when the guest handles
// it (as a CPU without the instruction), else PHYBIN_ERR_ILLEGAL_INSTR.
constexpr int kTrapUntranslatable = 0xC1;
// The traps of `int 4` (#OF: SIGSEGV) and of icebp (#DB without a
// debug-register reason: SIGTRAP, TRAP_BRKPT), reported after the
// instruction as the CPU does.
constexpr int kTrapOverflow = 0xC2;
constexpr int kTrapDebug = 0xC3;
// #GP with an error code, raised by a helper: kTrapGpError | code.  A
// selector that cannot be loaded reports its index and TI bit (the
// selector with RPL cleared) in the signal frame's err; SIGSEGV.
constexpr int kTrapGpError = 0x10000;
constexpr int gp_error(uint16_t selector) { return kTrapGpError | (selector & 0xfffc); }
// A trap inside an XMM commit region (ir::Inst::replay): no signal yet.
// RIP is the region's start; the runtime runs the first `count` of its
// instructions again one at a time, and the trap comes from the last.
constexpr int kTrapReplay = 0x20000;
constexpr int replay_trap(unsigned count) { return kTrapReplay | static_cast<int>(count); }
// With kTrapReplay: the region's check at its end failed (ir FpRegionCheck).
constexpr int kReplayCheckFailed = 0x100;
// `int n` through a gate user code may not pass: #GP whose error code names
// the IDT entry (vector << 3, and bit 1 for "IDT").
constexpr int gp_error_idt(uint8_t vector) { return kTrapGpError | (vector << 3) | 2; }

// Bit positions in RFLAGS.
enum FlagBit : uint8_t { kCF = 0, kPF = 2, kAF = 4, kZF = 6, kSF = 7, kDF = 10, kOF = 11 };
constexpr uint64_t kFlagMask(FlagBit bit) { return uint64_t{1} << bit; }
constexpr uint64_t kArithFlags = (1u << kCF) | (1u << kPF) | (1u << kAF) | (1u << kZF) |
                                 (1u << kSF) | (1u << kOF);

// Segment registers in the order of the ModRM Sreg field (and of Zydis'
// ZYDIS_REGISTER_ES..GS).
enum SegReg : uint8_t { kES, kCS, kSS, kDS, kFS, kGS, kNumSegRegs };
// The selectors Linux starts a 64-bit process with: __USER_CS, __USER_DS
// in SS, null in the others.
constexpr uint16_t kUserCodeSelector = 0x33;
constexpr uint16_t kUserDataSelector = 0x2b;

struct alignas(16) Vec128 {
  uint64_t lo, hi;
};

struct alignas(16) GuestState {
  uint64_t gpr[kNumGuestGprs];  // 0
  uint64_t rip;                 // 128
  uint64_t rflags;              // 136: bit 1 always set
  uint64_t fs_base;             // 144
  uint64_t gs_base;             // 152
  uint32_t mxcsr;               // 160
  // 164: FPSR exception bits of the MXCSR exceptions the guest unmasked (0
  // when all are masked, as almost always); translated code then checks
  // its SSE floating-point instructions (FpTrapCheck).
  uint32_t sse_trap_fpsr;
  uint64_t fpsr_outer;          // 168: FPSR flags from before the instruction being checked
  Vec128 xmm[16];               // 176 .. 432

  // x87 / MMX, kept in memory; all x87 work is done in helpers
  // (src/x86/x87_state.h).  fsw holds TOP in bits 11-13, mirrored in
  // x87_top; ftw is the full tag word (3 = empty, 0 = in use).
  uint8_t st[8][16];            // 432: 80-bit values, physical registers
  uint16_t fcw, fsw, ftw, fop;  // 560
  uint32_t x87_top;             // 568
  uint32_t x87_fip;             // 572: low 32 bits of the last x87 instruction's address

  // Runtime-owned fields used by translated code.
  uint64_t exit_target;         // 576: guest RIP the block wants to go to
  uint64_t host_sp;             // 584: host stack pointer at entry
  uint64_t lookup_table;        // 592: indirect-branch table (see runtime)
  uint64_t lookup_mask;         // 600
  uint64_t exit_link;           // 608: address of the branch to patch
  uint64_t scratch[8];          // 616: spill slots for the backend
  void* thread;                 // 680: the runtime's GuestThread (hooks find it here)
  // 688: the C++ functions translated code calls, by slot (arm64's
  // HelperTable): code holds slot numbers, not phybin's randomised
  // addresses, so a later run can reuse it.
  const uint64_t* helper_table;
  // 696: the MXCSR modes translated code must be made for (ir::FpMode
  // bits, set with MXCSR): changing them means translating anew.
  uint32_t fp_mode;
  // 700: the segment selectors, by Sreg number (SegReg): what mov Sreg,
  // pop fs/gs and lss/lfs/lgs loaded (helper_load_segment), read by mov
  // r/m, Sreg and push fs/gs.  CS holds 0x33 and never changes (phybin
  // runs no 32-bit code; reads of CS are the constant).
  uint16_t selector[kNumSegRegs];
  // 712: flags an indirect jump left unevaluated (x86/lazy_flags.h): the
  // last flag writer's operands when not in guest registers, and the record
  // that describes them (0: nothing pending).
  uint64_t lazy_flags_a;
  uint64_t lazy_flags_b;
  uint64_t lazy_flags_record;
  // 736: a flag writer's destination as it was, for the fault path
  // (x86/fault_flags.h).
  uint64_t fault_spill;
  // 744: the Linux layer's, per thread: where the thread's TID is cleared
  // (and a futex woken) when it exits (set_tid_address,
  // CLONE_CHILD_CLEARTID); 0 for none.
  uint64_t clear_child_tid;
  // 752: the forwarded libraries' functions that translated code calls
  // directly (ir CallNative), by forwarded-call index; an empty slot means
  // the system call path.  Owned by src/forward's Forwarder.
  const void* const* forward_table;
  // 760: 1 while translated code is in such a call (the native_call stub);
  // a flush by another thread that does not wait for it sets 2, and the
  // stub then leaves for the dispatcher instead of returning.
  uint32_t native_call;
  // 764: FPSR (32 bits wide in practice) as an XMM commit region checked
  // at its end found it (arm64 compile_vector_nan.cpp): when the check
  // fails, the region runs again, and the flags its first run raised on
  // AArch64's NaNs must not stay (a float lane read as part of a double
  // can overflow where x86's NaN does not).
  uint32_t region_fpsr;
};

static_assert(offsetof(GuestState, rip) == 128);
static_assert(offsetof(GuestState, rflags) == 136);
static_assert(offsetof(GuestState, fs_base) == 144);
static_assert(offsetof(GuestState, mxcsr) == 160);
static_assert(offsetof(GuestState, sse_trap_fpsr) == 164);
static_assert(offsetof(GuestState, xmm) == 176);
static_assert(offsetof(GuestState, st) == 432);
static_assert(offsetof(GuestState, fcw) == 560);
static_assert(offsetof(GuestState, exit_target) == 576);
static_assert(offsetof(GuestState, scratch) == 616);
static_assert(offsetof(GuestState, helper_table) == 688);
static_assert(offsetof(GuestState, fp_mode) == 696);
static_assert(offsetof(GuestState, selector) == 700);
static_assert(offsetof(GuestState, lazy_flags_a) == 712);
static_assert(offsetof(GuestState, fault_spill) == 736);

// The selectors of a new process (execve): SS and CS as Linux sets them.
inline void init_selectors(GuestState& s) {
  for (uint16_t& sel : s.selector) sel = 0;
  s.selector[kCS] = kUserCodeSelector;
  s.selector[kSS] = kUserDataSelector;
}

}  // namespace phybin
