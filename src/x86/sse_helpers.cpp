// C++ side of the rare SSE instructions: MXCSR (which lives in the host's
// FPCR/FPSR while the guest runs), FXSAVE/FXRSTOR, MASKMOVDQU, and the
// vector helper (MPSADBW, PHMINPOSUW, AESKEYGENASSIST, PCLMULQDQ without PMULL).
#include <csignal>
#include <cstring>

#include "common/mxcsr.h"
#include "ir/fp_mode.h"
#include "x86/helpers.h"
#include "x86/aes_helpers.h"
#include "x86/sse.h"
#include "x86/x87_state.h"

namespace phybin::x86::sse {

namespace {

// FPCR.RMode (bits 22-23) for MXCSR.RC 0..3 (nearest, down, up, zero).
constexpr uint64_t kRModeOfRc[4] = {0, 2, 1, 3};
constexpr uint64_t kFpcrRMode = uint64_t{3} << 22;
constexpr uint64_t kFpcrFz = uint64_t{1} << 24;
constexpr uint64_t kFpsrUfc = 1u << 3, kFpsrIdc = 1u << 7;

// MXCSR exception flags (IE ZE OE UE PE) against FPSR's cumulative ones
// (IOC 0, DZC 1, OFC 2, UFC 3, IXC 4).  DE has no partner: FPSR.IDC means
// an input was flushed, which x86 never reports (DAZ raises nothing).  DE
// is kept in GuestState::mxcsr, where exact mode's checks set it.
struct FlagPair {
  uint32_t mxcsr, fpsr;
};
constexpr FlagPair kFlagPairs[] = {{mxcsr::kIe, 1u << 0}, {mxcsr::kZe, 1u << 1}, {mxcsr::kOe, 1u << 2},
                                   {mxcsr::kUe, 1u << 3}, {mxcsr::kPe, 1u << 4}};

bool g_exact_flags = false;

#if defined(__aarch64__)
uint64_t read_fpcr() {
  uint64_t v;
  asm volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
void write_fpcr(uint64_t v) { asm volatile("msr fpcr, %0" : : "r"(v)); }
uint64_t read_fpsr() {
  uint64_t v;
  asm volatile("mrs %0, fpsr" : "=r"(v));
  return v;
}
void write_fpsr(uint64_t v) { asm volatile("msr fpsr, %0" : : "r"(v)); }
#else
// Host builds (unit tests) keep the registers in memory.
uint64_t g_fpcr = 0, g_fpsr = 0;
uint64_t read_fpcr() { return g_fpcr; }
void write_fpcr(uint64_t v) { g_fpcr = v; }
uint64_t read_fpsr() { return g_fpsr; }
void write_fpsr(uint64_t v) { g_fpsr = v; }
#endif

uint32_t mxcsr_flags_from_fpsr(uint64_t fpsr) {
  uint32_t f = 0;
  for (const FlagPair& p : kFlagPairs)
    if (fpsr & p.fpsr) f |= p.mxcsr;
  return f;
}

uint64_t fpsr_from_mxcsr_flags(uint32_t mxcsr) {
  uint64_t f = 0;
  for (const FlagPair& p : kFlagPairs)
    if (mxcsr & p.mxcsr) f |= p.fpsr;
  return f;
}

void write_mxcsr(GuestState* s, uint32_t value) {
  s->mxcsr = value & 0xffff;
  // An unmasked DE shows as FPSR.IDC, which the DE check sets (ir/fp_mode.h);
  // the hardware sets IDC only under FZ, that is with DAZ, which has no DE.
  const bool de_traps = !(value & mxcsr::kDm) && !(value & mxcsr::kDaz);
  const auto traps = static_cast<uint32_t>(fpsr_from_mxcsr_flags(~(value >> mxcsr::kMaskShift) & mxcsr::kFlags)) |
                     (de_traps ? kFpsrIdc : 0);
  bool changed = (traps != 0) != (s->sse_trap_fpsr != 0);
  s->sse_trap_fpsr = traps;
  const uint32_t mode = ir::FpMode::of_mxcsr(value, g_exact_flags).bits();
  if (mode != s->fp_mode) changed = true;
  s->fp_mode = mode;
  if (changed) helper_fp_traps_changed(s);
  apply_mxcsr(s->mxcsr);
  // A loaded UE stays in memory only: UFC in FPSR means an underflow since,
  // which brings PE (current_mxcsr).
  const uint64_t all_flags = fpsr_from_mxcsr_flags(mxcsr::kFlags);
  write_fpsr((read_fpsr() & ~all_flags) | fpsr_from_mxcsr_flags(value & ~mxcsr::kUe));
}

// The flags the guest loaded and those software raised (DE, and UE|PE of
// a flush by FTZ alone) are in GuestState::mxcsr; the hardware's are in
// FPSR.  A masked underflow is inexact on x86 even when the result is
// exact but flushed (FZ): UFC brings PE with it.
uint32_t current_mxcsr(const GuestState* s) {
  const uint64_t fpsr = read_fpsr();
  return s->mxcsr | mxcsr_flags_from_fpsr(fpsr) | ((fpsr & kFpsrUfc) ? mxcsr::kPe : 0);
}

}  // namespace

void set_exact_flags(bool on) { g_exact_flags = on; }

// AArch64 has one flush-to-zero bit for inputs and outputs: it is set when
// the guest asks for both FTZ and DAZ; one of them alone is done in
// software (ir/fp_mode.h), with FZ clear.  FPCR's trap enables stay off (they
// are optional in the architecture): unmasked SSE exceptions are found by
// checks in the translated code instead (GuestState::sse_trap_fpsr).
void apply_mxcsr(uint32_t value) {
  uint64_t fpcr = read_fpcr() & ~(kFpcrRMode | kFpcrFz);
  fpcr |= kRModeOfRc[(value >> mxcsr::kRoundingShift) & 3] << 22;
  if ((value & (mxcsr::kFtz | mxcsr::kDaz)) == (mxcsr::kFtz | mxcsr::kDaz)) fpcr |= kFpcrFz;
  write_fpcr(fpcr);
}

namespace {

// What FXSAVE reports as MXCSR_MASK: the bits MXCSR has (DAZ included).
// Loading any other bit is #GP(0), with MXCSR left as it was.
constexpr uint32_t kMxcsrMask = 0xffff;

void check_mxcsr(GuestState* s, uint32_t value) {
  if (value & ~kMxcsrMask) helper_raise_signal(s, SIGSEGV);
}

}  // namespace

uint64_t helper_ldmxcsr(GuestState* s, uint64_t value, uint64_t) {
  check_mxcsr(s, static_cast<uint32_t>(value));
  write_mxcsr(s, static_cast<uint32_t>(value));
  return 0;
}

uint64_t helper_stmxcsr(GuestState* s, uint64_t, uint64_t) { return current_mxcsr(s); }

// The 512-byte FXSAVE area (64-bit layout): FCW 0, FSW 2, abridged FTW 4,
// FOP 6, FIP 8, FDP 16, MXCSR 24, MXCSR_MASK 28, ST0-ST7 at 32 (16 bytes
// each, the 80-bit value in the low 10), XMM0-15 at 160.  The x87 part
// comes from the x87 fields of the guest state: the full tag word (2 bits
// per physical register, 3 = empty) and the stack top.
uint64_t helper_fxsave(GuestState* s, uint64_t addr, uint64_t) {
  auto* area = reinterpret_cast<uint8_t*>(addr);
  std::memset(area, 0, 160);
  unsigned top = s->x87_top & 7;
  uint16_t fsw = static_cast<uint16_t>((s->fsw & ~0x3800u) | (top << 11));
  uint8_t ftw = 0;
  for (unsigned i = 0; i < 8; ++i)
    if (((s->ftw >> (2 * i)) & 3) != 3) ftw |= static_cast<uint8_t>(1u << i);
  uint32_t mxcsr = current_mxcsr(s), mask = kMxcsrMask;
  std::memcpy(area + 0, &s->fcw, 2);
  std::memcpy(area + 2, &fsw, 2);
  area[4] = ftw;
  std::memcpy(area + 6, &s->fop, 2);
  std::memcpy(area + 24, &mxcsr, 4);
  std::memcpy(area + 28, &mask, 4);
  for (unsigned i = 0; i < 8; ++i) std::memcpy(area + 32 + 16 * i, s->st[(top + i) & 7], 10);
  std::memcpy(area + 160, s->xmm, sizeof s->xmm);
  return 0;
}

uint64_t helper_fxrstor(GuestState* s, uint64_t addr, uint64_t) {
  const auto* area = reinterpret_cast<const uint8_t*>(addr);
  uint16_t fsw;
  uint32_t mxcsr;
  std::memcpy(&mxcsr, area + 24, 4);
  check_mxcsr(s, mxcsr);  // before anything changes
  std::memcpy(&s->fcw, area + 0, 2);
  s->fcw = loaded_fcw(s->fcw);
  std::memcpy(&fsw, area + 2, 2);
  std::memcpy(&s->fop, area + 6, 2);
  unsigned top = (fsw >> 11) & 7;
  s->x87_top = top;
  s->fsw = fsw;
  uint16_t ftw = 0;
  for (unsigned i = 0; i < 8; ++i)
    if (!(area[4] & (1u << i))) ftw |= static_cast<uint16_t>(3u << (2 * i));
  s->ftw = ftw;
  for (unsigned i = 0; i < 8; ++i) {
    std::memset(s->st[(top + i) & 7], 0, 16);
    std::memcpy(s->st[(top + i) & 7], area + 32 + 16 * i, 10);
  }
  std::memcpy(s->xmm, area + 160, sizeof s->xmm);
  write_mxcsr(s, mxcsr);
  return 0;
}

uint64_t helper_maskmovdqu(GuestState* s, uint64_t regs, uint64_t) {
  uint8_t data[16], mask[16];
  std::memcpy(data, &s->xmm[regs & 15], 16);
  std::memcpy(mask, &s->xmm[(regs >> 8) & 15], 16);
  auto* dst = reinterpret_cast<uint8_t*>(((regs >> 16) & 1) ? s->gpr[RDI] & 0xffffffffu : s->gpr[RDI]);
  for (unsigned i = 0; i < 16; ++i)
    if (mask[i] & 0x80) dst[i] = data[i];
  return 0;
}

namespace {

// mpsadbw: word i = sum over j < 4 of |a[ao + i + j] - b[bo + j]|, with the
// 4-byte block offsets ao (imm bit 2) and bo (imm bits 0-1).
void mpsadbw(uint8_t* r, const uint8_t* a, const uint8_t* b, unsigned imm) {
  const unsigned ao = (imm >> 2 & 1) * 4, bo = (imm & 3) * 4;
  for (unsigned i = 0; i < 8; ++i) {
    unsigned sum = 0;
    for (unsigned j = 0; j < 4; ++j) {
      int d = a[ao + i + j] - b[bo + j];
      sum += static_cast<unsigned>(d < 0 ? -d : d);
    }
    auto w = static_cast<uint16_t>(sum);
    std::memcpy(r + 2 * i, &w, 2);
  }
}

// phminposuw: the smallest word of b and the index of its first occurrence.
void phminposuw(uint8_t* r, const uint8_t* b) {
  uint16_t words[8];
  std::memcpy(words, b, 16);
  unsigned best = 0;
  for (unsigned i = 1; i < 8; ++i)
    if (words[i] < words[best]) best = i;
  std::memset(r, 0, 16);
  uint32_t low = words[best] | best << 16;
  std::memcpy(r, &low, 4);
}

}  // namespace

uint64_t helper_vector(GuestState* s, uint64_t desc, uint64_t addr) {
  uint8_t a[16], b[16], r[16];
  const unsigned dst = desc >> 8 & 15, src = desc >> 16 & 15;
  std::memcpy(a, &s->xmm[dst], 16);
  std::memcpy(b, desc >> 24 & 1 ? reinterpret_cast<const void*>(addr) : &s->xmm[src], 16);
  const auto imm = static_cast<unsigned>(desc >> 32);
  switch (static_cast<VectorHelperOp>(desc & 0xff)) {
    case VectorHelperOp::Mpsadbw: mpsadbw(r, a, b, imm); break;
    case VectorHelperOp::Phminposuw: phminposuw(r, b); break;
    case VectorHelperOp::AesKeygenAssist: aes_keygen_assist(r, b, imm); break;
    case VectorHelperOp::Clmul: carryless_multiply(r, a, b, imm); break;
    case VectorHelperOp::AesRound: aes_round(r, a, b, static_cast<AesStep>(imm)); break;
  }
  std::memcpy(&s->xmm[dst], r, 16);
  return 0;
}

}  // namespace phybin::x86::sse
