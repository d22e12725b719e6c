#include "x86/helpers.h"

#include <csignal>
#include <cstring>
#include <ctime>
#include <iterator>

#include "x86/lazy_flags.h"

namespace phybin::x86 {

namespace {

Hooks g_hooks;

[[noreturn]] void divide_error(GuestState* s) {
  g_hooks.raise_signal(s, SIGFPE);
  __builtin_unreachable();
}

uint64_t width_mask(unsigned bytes) { return bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (bytes * 8)) - 1; }

uint64_t load_n(uint64_t addr, unsigned size) {
  uint64_t v = 0;
  std::memcpy(&v, reinterpret_cast<const void*>(addr), size);
  return v;
}

void store_n(uint64_t addr, uint64_t v, unsigned size) { std::memcpy(reinterpret_cast<void*>(addr), &v, size); }

void set_arith_flags(GuestState* s, uint64_t f) { s->rflags = (s->rflags & ~kArithFlags) | f; }

void write_acc(GuestState* s, uint64_t v, unsigned size) {
  uint64_t& rax = s->gpr[RAX];
  if (size == 8) rax = v;
  else if (size == 4) rax = v & 0xffffffff;
  else rax = (rax & ~width_mask(size)) | (v & width_mask(size));
}

// The rest of iret's frame (below, with the descriptor checks it needs).
void interrupt_return_stack(GuestState* s, uint64_t at, unsigned size);

}  // namespace

void set_helper_hooks(const Hooks& hooks) { g_hooks = hooks; }

void helper_raise_signal(GuestState* s, int signal) { g_hooks.raise_signal(s, signal); }

void helper_fp_traps_changed(GuestState* s) {
  if (g_hooks.fp_traps_changed) g_hooks.fp_traps_changed(s);
}

namespace {

// The registers a string instruction steps.  With the address-size prefix
// (0x67) they are ESI, EDI and ECX: addresses wrap at 4 GiB and what is
// written back is zero-extended, as any 32-bit register write.
struct StringRegs {
  uint64_t rsi, rdi, rcx, mask;
  void step(uint64_t& reg, int64_t by) const { reg = (reg + static_cast<uint64_t>(by)) & mask; }
};

// Fast paths for the forms memcpy/memset use: forward, non-overlapping,
// 64-bit addresses.  False when the general loop must run.
bool string_fast_path(GuestState* s, StringOp::Kind kind, unsigned size, StringRegs& r) {
  if (kind == StringOp::Stos && size == 1) {
    std::memset(reinterpret_cast<void*>(r.rdi), static_cast<int>(s->gpr[RAX] & 0xff), r.rcx);
    r.rdi += r.rcx;
    r.rcx = 0;
    return true;
  }
  if (kind == StringOp::Movs && (r.rdi + r.rcx * size <= r.rsi || r.rsi + r.rcx * size <= r.rdi)) {
    std::memcpy(reinterpret_cast<void*>(r.rdi), reinterpret_cast<const void*>(r.rsi), r.rcx * size);
    r.rdi += r.rcx * size;
    r.rsi += r.rcx * size;
    r.rcx = 0;
    return true;
  }
  return false;
}

}  // namespace

uint64_t helper_string(GuestState* s, uint64_t op, uint64_t) {
  auto kind = static_cast<StringOp::Kind>(op & 0xff);
  auto rep = static_cast<StringOp::RepKind>((op >> 8) & 0xff);
  unsigned size = static_cast<unsigned>((op >> 16) & 0xff);
  const bool addr32 = (op >> 24) & 1;
  int64_t step = (s->rflags & kFlagMask(kDF)) ? -int64_t(size) : int64_t(size);
  const uint64_t mask = addr32 ? 0xffffffffu : ~uint64_t{0};
  StringRegs r{s->gpr[RSI] & mask, s->gpr[RDI] & mask, s->gpr[RCX] & mask, mask};
  const bool fast = rep != StringOp::None && step > 0 && !addr32 && string_fast_path(s, kind, size, r);
  // Only the registers the instruction steps are written, after every
  // element: a fault leaves them where the CPU would (the handler sees how
  // far it got, and returning resumes there).
  auto write_back = [&] {
    if (kind != StringOp::Stos && kind != StringOp::Scas) s->gpr[RSI] = r.rsi;
    if (kind != StringOp::Lods) s->gpr[RDI] = r.rdi;
    if (rep != StringOp::None) s->gpr[RCX] = r.rcx;
  };
  while (!fast && (rep == StringOp::None || r.rcx != 0)) {
    bool stop = false;
    switch (kind) {
      case StringOp::Movs: store_n(r.rdi, load_n(r.rsi, size), size); r.step(r.rsi, step); r.step(r.rdi, step); break;
      case StringOp::Stos: store_n(r.rdi, s->gpr[RAX], size); r.step(r.rdi, step); break;
      case StringOp::Lods: write_acc(s, load_n(r.rsi, size), size); r.step(r.rsi, step); break;
      case StringOp::Cmps: {
        uint64_t f = sub_flags(load_n(r.rsi, size), load_n(r.rdi, size), size);
        set_arith_flags(s, f);
        r.step(r.rsi, step);
        r.step(r.rdi, step);
        stop = (rep == StringOp::RepE && !(f & kFlagMask(kZF))) || (rep == StringOp::RepNE && (f & kFlagMask(kZF)));
        break;
      }
      case StringOp::Scas: {
        uint64_t f = sub_flags(s->gpr[RAX], load_n(r.rdi, size), size);
        set_arith_flags(s, f);
        r.step(r.rdi, step);
        stop = (rep == StringOp::RepE && !(f & kFlagMask(kZF))) || (rep == StringOp::RepNE && (f & kFlagMask(kZF)));
        break;
      }
    }
    if (rep == StringOp::None) break;
    r.step(r.rcx, -1);
    write_back();
    if (stop) break;
  }
  write_back();
  return 0;
}

uint64_t helper_far_transfer(GuestState* s, uint64_t address, uint64_t packed) {
  const unsigned size = packed & 0xff;
  const auto kind = static_cast<FarTransfer::Kind>((packed >> 8) & 0xff);
  const uint64_t length = (packed >> 16) & 0xff, ret_imm = packed >> 32;
  uint64_t& rsp = s->gpr[RSP];
  const bool pops = kind == FarTransfer::Return || kind == FarTransfer::InterruptReturn;
  const uint64_t from = pops ? rsp : address;
  const uint64_t offset = load_n(from, size);
  const auto selector = static_cast<uint16_t>(load_n(from + size, 2));
  if (selector != kUserCodeSelector) helper_raise_signal(s, gp_error(selector));
  if (kind == FarTransfer::Call) {
    store_n(rsp - size, kUserCodeSelector, size);
    store_n(rsp - 2 * size, s->rip + length, size);
    rsp -= 2 * size;
  } else if (kind == FarTransfer::Return) {
    rsp += 2 * size + ret_imm;
  } else if (kind == FarTransfer::InterruptReturn) {
    interrupt_return_stack(s, from + 2 * size, size);
  }
  return offset;
}

namespace {

// The entries of Linux's 64-bit GDT (16 of them, arch/x86/include/asm/
// segment.h) that code at CPL 3 can load, all with DPL 3 and base 0.  The
// rest are kernel segments, the TSS, and the three TLS slots (12-14),
// which stay empty: phybin has no set_thread_area, nor an LDT.
enum class Descriptor : uint8_t { None, ReadableCode, WritableData, ReadOnlyData };

Descriptor user_descriptor(unsigned index) {
  switch (index) {
    case 4: return Descriptor::ReadableCode;   // 0x23, __USER32_CS
    case 5: return Descriptor::WritableData;   // 0x2b, __USER_DS
    case 6: return Descriptor::ReadableCode;   // 0x33, __USER_CS
    case 15: return Descriptor::ReadOnlyData;  // 0x7b, the CPU and node number (lsl)
    default: return Descriptor::None;
  }
}

// The checks of MOV/POP/LSS to a segment register in 64-bit mode (Intel
// SDM) at CPL 3.  Every user descriptor has DPL 3, so DPL >= max(RPL, CPL)
// holds for any RPL; SS needs RPL = DPL = CPL and a writable data segment.
bool loadable(uint16_t selector, unsigned sreg) {
  constexpr unsigned kCpl = 3;
  const unsigned index = selector >> 3, rpl = selector & 3;
  const bool in_ldt = selector & 4;
  if (sreg == kSS) return !in_ldt && rpl == kCpl && user_descriptor(index) == Descriptor::WritableData;
  if (in_ldt) return false;
  // A null selector (index 0, any RPL) loads as it is into DS, ES, FS, GS.
  return index == 0 || user_descriptor(index) != Descriptor::None;
}

// iret's RFLAGS, RSP and SS at `at`.  Only the bits popf could change
// change (IOPL, IF, VM and the rest stay as they are at CPL 3).
void interrupt_return_stack(GuestState* s, uint64_t at, unsigned size) {
  constexpr uint64_t kWritable = kArithFlags | kFlagMask(kDF);
  const uint64_t flags = load_n(at, size);
  const uint64_t rsp = load_n(at + size, size);
  const auto ss = static_cast<uint16_t>(load_n(at + 2 * size, 2));
  if (!loadable(ss, kSS)) helper_raise_signal(s, gp_error(ss));
  s->rflags = (s->rflags & ~kWritable) | (flags & kWritable);
  s->gpr[RSP] = rsp;
  s->selector[kSS] = ss;
}

}  // namespace

uint64_t helper_load_segment(GuestState* s, uint64_t selector, uint64_t sreg) {
  const auto sel = static_cast<uint16_t>(selector);
  if (!loadable(sel, static_cast<unsigned>(sreg))) helper_raise_signal(s, gp_error(sel));
  s->selector[sreg] = sel;
  // Every loadable descriptor has base 0, and Intel CPUs clear the base on
  // a null load (AMD keeps it): a program that loads FS loses its TLS.
  if (sreg == kFS) s->fs_base = 0;
  if (sreg == kGS) s->gs_base = 0;
  return 0;
}

uint64_t helper_raise_gp(GuestState* s, uint64_t vector, uint64_t) {
  helper_raise_signal(s, gp_error_idt(static_cast<uint8_t>(vector)));
  return 0;
}

uint64_t helper_write_segment_base(GuestState* s, uint64_t base, uint64_t sreg) {
  // Canonical: bits 63..47 all equal (48-bit virtual addresses, CPUID 0x80000008).
  const auto high = static_cast<int64_t>(base) >> 47;
  if (high != 0 && high != -1) helper_raise_signal(s, gp_error(0));
  (sreg == kFS ? s->fs_base : s->gs_base) = base;
  return 0;
}

namespace {

struct Division {
  uint64_t quotient, remainder;
};

// A dividend of 2 * bits bits (bits <= 32) fits the host's 64-bit division.  False when the quotient
// does not fit in bits (the CPU's #DE).
bool divide_narrow(uint64_t n, uint64_t divisor, unsigned bits, bool is_signed, Division& out) {
  const uint64_t m = width_mask(bits / 8);
  if (!is_signed) {
    const uint64_t d = divisor & m;
    out = {n / d, n % d};
    return out.quotient <= m;
  }
  const unsigned wide = 64 - 2 * bits, narrow = 64 - bits;
  const int64_t sn = static_cast<int64_t>(n << wide) >> wide;
  const int64_t sd = static_cast<int64_t>(divisor << narrow) >> narrow;
  // n / -1 is a negation, done unsigned: INT64_MIN / -1 is undefined in C++ (and out of range anyway).
  const int64_t q = sd == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(sn)) : sn / sd;
  const int64_t limit = int64_t{1} << (bits - 1);
  out = {static_cast<uint64_t>(q) & m, static_cast<uint64_t>(sd == -1 ? 0 : sn % sd) & m};
  return q < limit && q >= -limit;
}

// rdx:rax by a 64-bit divisor; the 128-bit division only when rdx holds more than rax's extension.
bool divide_wide(uint64_t rdx, uint64_t rax, uint64_t divisor, bool is_signed, Division& out) {
  if (!is_signed) {
    if (rdx == 0) {
      out = {rax / divisor, rax % divisor};
      return true;
    }
    if (rdx >= divisor) return false;
    const unsigned __int128 n = (static_cast<unsigned __int128>(rdx) << 64) | rax;
    out = {static_cast<uint64_t>(n / divisor), static_cast<uint64_t>(n % divisor)};
    return true;
  }
  const auto sd = static_cast<int64_t>(divisor);
  const auto low = static_cast<int64_t>(rax);
  if (rdx == static_cast<uint64_t>(low >> 63)) {
    if (sd == -1) {
      out = {0 - rax, 0};
      return low != INT64_MIN;
    }
    out = {static_cast<uint64_t>(low / sd), static_cast<uint64_t>(low % sd)};
    return true;
  }
  // rdx:rax lies outside int64 here: by -1 only 2^63 gives a quotient that fits (INT64_MIN), and
  // INT128_MIN / -1 must not reach the C++ division.
  if (sd == -1) {
    out = {0 - rax, 0};
    return rdx == 0 && rax == uint64_t{1} << 63;
  }
  const auto sn = static_cast<__int128>((static_cast<unsigned __int128>(rdx) << 64) | rax);
  const __int128 sq = sn / sd;
  const __int128 limit = static_cast<__int128>(1) << 63;
  out = {static_cast<uint64_t>(sq), static_cast<uint64_t>(sn % sd)};
  return sq < limit && sq >= -limit;
}

}  // namespace

uint64_t helper_div(GuestState* s, uint64_t divisor, uint64_t kind) {
  const unsigned bits = kind & 0xff;
  const bool is_signed = kind & 0x100;
  if (divisor == 0) divide_error(s);
  uint64_t& rax = s->gpr[RAX];
  uint64_t& rdx = s->gpr[RDX];
  Division r;
  bool fits;
  if (bits == 64) fits = divide_wide(rdx, rax, divisor, is_signed, r);
  else if (bits == 8) fits = divide_narrow(rax & 0xffff, divisor, bits, is_signed, r);
  else fits = divide_narrow(((rdx & width_mask(bits / 8)) << bits) | (rax & width_mask(bits / 8)), divisor, bits, is_signed, r);
  if (!fits) divide_error(s);
  if (bits == 8) {
    rax = (rax & ~uint64_t{0xffff}) | (r.remainder << 8) | r.quotient;
  } else if (bits == 16) {
    rax = (rax & ~uint64_t{0xffff}) | r.quotient;
    rdx = (rdx & ~uint64_t{0xffff}) | r.remainder;
  } else {
    rax = r.quotient;
    rdx = r.remainder;
  }
  return 0;
}

uint64_t helper_rotate_carry(GuestState* s, uint64_t value, uint64_t b) {
  unsigned bits = b & 0xff;
  bool left = b & 0x100;
  unsigned count = static_cast<unsigned>(b >> 16) & (bits == 64 ? 63 : 31);
  if (bits < 32) count %= bits + 1;
  if (count == 0) return value;
  uint64_t mask = width_mask(bits / 8);
  uint64_t cf = s->rflags & 1;
  value &= mask;
  for (unsigned i = 0; i < count; ++i) {
    if (left) {
      uint64_t out = (value >> (bits - 1)) & 1;
      value = ((value << 1) | cf) & mask;
      cf = out;
    } else {
      uint64_t out = value & 1;
      value = (value >> 1) | (cf << (bits - 1));
      cf = out;
    }
  }
  uint64_t msb = (value >> (bits - 1)) & 1;
  uint64_t of = left ? (msb ^ cf) : (msb ^ ((value >> (bits - 2)) & 1));
  s->rflags = (s->rflags & ~(kFlagMask(kCF) | kFlagMask(kOF))) | cf | (of << kOF);
  return value;
}

namespace {

struct CpuidResult {
  uint32_t a, b, c, d;
};

// CPUID.1:EDX: FPU TSC CX8 CMOV CLFSH MMX FXSR SSE SSE2 — the x86-64
// baseline.  Nothing beyond what phybin translates.
constexpr uint32_t kLeaf1Edx = (1u << 0) | (1u << 4) | (1u << 8) | (1u << 15) | (1u << 19) | (1u << 23) |
                               (1u << 24) | (1u << 25) | (1u << 26);
// CPUID.1:EAX: family 6, model 0x2C (Westmere), stepping 2: a CPU without
// AVX, like what phybin translates.  glibc tunes its string functions by
// model: for Westmere it prefers the unaligned-load versions, which cost
// fewer AArch64 instructions than the SSSE3 ones that realign data with
// palignr and jump tables (measured: bench/run strings 805M -> 550M
// instructions, most of it strstr).  An unknown model without AVX would get
// no such preference.
constexpr uint32_t kLeaf1Eax = 0x000206C2;
// CPUID.1:ECX: SSE3 (bit 0), PCLMULQDQ (1), SSSE3 (9), CX16 (13), SSE4.1
// (19), MOVBE (22), POPCNT (23), AES (25).  AES runs on the AArch64 crypto
// extension of phybin's baseline; pclmulqdq has a C++ fallback where PMULL
// is missing.
constexpr uint32_t kLeaf1Ecx = (1u << 0) | (1u << 1) | (1u << 9) | (1u << 13) | (1u << 19) | (1u << 22) |
                               (1u << 23) | (1u << 25);
// SSE4.2 (bit 20) is advertised only together with SSSE3 (9) and SSE4.1
// (19): a real CPU never has it without them, and glibc's SSE4.2 string
// routines use pshufb and palignr as well.
constexpr uint32_t kSse42Needs = (1u << 9) | (1u << 19);
constexpr uint32_t kLeaf1EcxAdvertised = kLeaf1Ecx | ((kLeaf1Ecx & kSse42Needs) == kSse42Needs ? 1u << 20 : 0);
// CPUID.(7,0):EBX: FSGSBASE (0), BMI1 (3), BMI2 (8), ADX (19), CLFLUSHOPT
// (23), CLWB (24), SHA (29).  The cache-line flushes cost nothing to
// translate: the guest's memory is coherent, so they only order memory.
constexpr uint32_t kLeaf7EbxFsgsbase = 1u << 0;
constexpr uint32_t kLeaf7Ebx =
    kLeaf7EbxFsgsbase | (1u << 3) | (1u << 8) | (1u << 19) | (1u << 23) | (1u << 24) | (1u << 29);
// CPUID.(7,0):ECX: RDPID (22).
constexpr uint32_t kLeaf7Ecx = 1u << 22;
// CPUID.80000001h:ECX: LAHF/SAHF in 64-bit mode (0), ABM/LZCNT (5),
// PREFETCHW (8; 0F 0D is a hint, translated as nothing).
constexpr uint32_t kExtLeaf1Ecx = (1u << 0) | (1u << 5) | (1u << 8);
// CPUID.80000001h:EDX: SYSCALL (11), NX (20), RDTSCP (27), long mode (29).
constexpr uint32_t kExtLeaf1Edx = (1u << 11) | (1u << 20) | (1u << 27) | (1u << 29);

uint32_t chars(const char* s) {
  uint32_t v;
  std::memcpy(&v, s, 4);
  return v;
}

// Deterministic caches so glibc sizes its memcpy thresholds sensibly: 32K
// L1d/L1i, 1M L2, 8M L3, 64-byte lines.  Leaf 4 describes them all; leaf
// 0x80000006 repeats the L2 (OpenBLAS and others size their blocking from
// it alone), and /proc/cpuinfo's "cache size" is the last level.
struct CacheLevel {
  uint32_t type, level, ways, size;
};
constexpr CacheLevel kCacheLevels[] = {
    {1, 1, 8, 32 << 10}, {2, 1, 8, 32 << 10}, {3, 2, 16, 1 << 20}, {3, 3, 16, 8 << 20}};
constexpr uint32_t kCacheLine = 64;
constexpr const CacheLevel& kL2 = kCacheLevels[2];

CpuidResult cache_leaf(uint32_t sub) {
  if (sub >= std::size(kCacheLevels)) return {0, 0, 0, 0};
  const CacheLevel& l = kCacheLevels[sub];
  uint32_t sets = l.size / (l.ways * kCacheLine);
  return {l.type | (l.level << 5) | (1u << 8), ((l.ways - 1) << 22) | (kCacheLine - 1), sets - 1, 0};
}

// Leaf 0x80000006's associativity field (Intel SDM, CPUID: 6 for 8 ways,
// 8 for 16, 0xF for fully associative).
constexpr uint32_t l2_ways_code(uint32_t ways) {
  switch (ways) {
    case 1: return 1;
    case 2: return 2;
    case 4: return 4;
    case 8: return 6;
    case 16: return 8;
    default: return 0xf;
  }
}

CpuidResult l2_leaf() {
  return {0, 0, ((kL2.size >> 10) << 16) | (l2_ways_code(kL2.ways) << 12) | kCacheLine, 0};
}

CpuidResult cpuid(uint32_t leaf, uint32_t sub) {
  static const char kBrand[] = "phybin x86-64 on AArch64                        ";
  switch (leaf) {
    case 0: return {7, chars("Genu"), chars("ntel"), chars("ineI")};
    case 1: return {kLeaf1Eax, 0x00010800, kLeaf1EcxAdvertised, kLeaf1Edx};  // 1 logical CPU
    case 2: return {0x0000FF01, 0, 0, 0};                           // "use leaf 4"
    case 4: return cache_leaf(sub);
    case 7: return sub == 0 ? CpuidResult{0, kLeaf7Ebx, kLeaf7Ecx, 0} : CpuidResult{0, 0, 0, 0};
    case 0x80000000: return {0x80000008, 0, 0, 0};
    case 0x80000001: return {0, 0, kExtLeaf1Ecx, kExtLeaf1Edx};
    case 0x80000002:
    case 0x80000003:
    case 0x80000004: {
      const char* p = kBrand + (leaf - 0x80000002) * 16;
      return {chars(p), chars(p + 4), chars(p + 8), chars(p + 12)};
    }
    case 0x80000006: return l2_leaf();
    case 0x80000008: return {0x3030, 0, 0, 0};  // 48-bit addresses
    default: return {0, 0, 0, 0};
  }
}

}  // namespace

uint32_t cpuid_leaf1_edx() { return kLeaf1Edx; }

uint32_t at_hwcap2() {
  constexpr uint32_t kHwcap2Fsgsbase = 1u << 1;  // Linux's HWCAP2_FSGSBASE
  return (kLeaf7Ebx & kLeaf7EbxFsgsbase) ? kHwcap2Fsgsbase : 0;
}

uint64_t helper_cpuid(GuestState* s, uint64_t, uint64_t) {
  CpuidResult r = cpuid(static_cast<uint32_t>(s->gpr[RAX]), static_cast<uint32_t>(s->gpr[RCX]));
  s->gpr[RAX] = r.a;
  s->gpr[RBX] = r.b;
  s->gpr[RCX] = r.c;
  s->gpr[RDX] = r.d;
  return 0;
}

uint64_t helper_rdtsc(GuestState* s, uint64_t, uint64_t) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  uint64_t t = static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
  s->gpr[RAX] = t & 0xffffffff;
  s->gpr[RDX] = t >> 32;
  return 0;
}

// IA32_TSC_AUX as Linux sets it: the CPU number in bits 11:0, the NUMA
// node above.  The guest's machine has one CPU, as CPUID leaf 1 says.
uint64_t helper_tsc_aux(GuestState*, uint64_t, uint64_t) { return 0; }

uint64_t helper_rdtscp(GuestState* s, uint64_t, uint64_t) {
  helper_rdtsc(s, 0, 0);
  s->gpr[RCX] = helper_tsc_aux(s, 0, 0);
  return 0;
}

}  // namespace phybin::x86
