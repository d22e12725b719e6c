#include "gen.h"

#include <cstring>
#include <regex>
#include <stdexcept>

namespace difftest {
namespace {

const char* const kGpr64[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
const char* const kGpr32[16] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
                                "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"};
const char* const kGpr16[16] = {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di",
                                "r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w"};
const char* const kGpr8[16] = {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil",
                               "r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b"};
const char* const kHigh8[4] = {"ah", "ch", "dh", "bh"};
constexpr int kRsp = 4;

const char* size_ptr(int size) {
  switch (size) {
    case 8: return "BYTE PTR ";
    case 16: return "WORD PTR ";
    case 32: return "DWORD PTR ";
    case 64: return "QWORD PTR ";
    case 80: return "TBYTE PTR ";
    case 128: return "XMMWORD PTR ";
    default: return "";
  }
}

// AH..BH cannot be encoded with a REX prefix: an instruction mixing them
// with a register that needs REX is regenerated.
bool needs_rex_with_high8(const std::string& text) {
  static const std::regex high8("\\b[abcd]h\\b");
  if (!std::regex_search(text, high8)) return false;
  static const std::regex rex_reg("\\b(r[0-9]+[dwb]?|sil|dil|spl|bpl|xmm(8|9|1[0-5]))\\b");
  if (std::regex_search(text, rex_reg)) return true;
  // 64-bit operands outside the memory brackets need REX.W
  std::string outside = std::regex_replace(text, std::regex("\\[[^\\]]*\\]"), "[]");
  static const std::regex wide("\\br(ax|bx|cx|dx|si|di|sp|bp)\\b");
  return std::regex_search(outside, wide);
}

}  // namespace

uint32_t defined_flags_after(const std::vector<Insn>& insns, size_t count) {
  uint32_t undefined = 0;
  for (size_t i = 0; i < count && i < insns.size(); ++i)
    undefined = (undefined & ~insns[i].defines) | insns[i].undefines;
  return ALL_FLAGS & ~undefined;
}

uint16_t defined_fsw_after(const std::vector<Insn>& insns, size_t count) {
  uint16_t undefined = 0;
  for (size_t i = 0; i < count && i < insns.size(); ++i)
    undefined = static_cast<uint16_t>((undefined & ~insns[i].fsw_defines) | insns[i].fsw_undefines);
  return static_cast<uint16_t>(ALL_CC & ~undefined);
}

Gen::Gen(uint64_t seed, bool model_vendor) : rng_(seed), model_vendor_(model_vendor) {}

uint64_t Gen::bits() { return rng_(); }
uint64_t Gen::below(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
int64_t Gen::range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(below(static_cast<uint64_t>(hi - lo) + 1)); }
bool Gen::chance(unsigned percent) { return below(100) < percent; }

uint64_t Gen::gpr_value() {
  static const uint64_t special[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                     0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
                                     0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, ~0ull - 1};
  switch (below(4)) {
    case 0: return special[below(sizeof special / sizeof special[0])];
    case 1: return below(64);
    case 2: return bits() >> below(64);
    default: return bits();
  }
}

uint32_t Gen::float_bits() {
  static const uint32_t special[] = {0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
                                     0x7fa00001, 0xff800123, 0x00000001, 0x807fffff, 0x00400000, 0x00800000,
                                     0x3f800000, 0xbf800000, 0x7f7fffff, 0x3f000000, 0x40200000, 0xc0600000,
                                     0x4f000000, 0xcf000000, 0x5f000000, 0xdf000000, 0x4effffff, 0x3fc00000};
  const uint32_t sign = static_cast<uint32_t>(below(2)) << 31;
  switch (below(4)) {
    case 0: return special[below(sizeof special / sizeof special[0])];
    case 1: return sign | static_cast<uint32_t>(range(0x3e000000, 0x4f800000));  // moderate values
    case 2: return sign | (static_cast<uint32_t>(range(120, 160)) << 23) | static_cast<uint32_t>(below(8) << 20);
    default: return static_cast<uint32_t>(bits());
  }
}

uint64_t Gen::double_bits() {
  static const uint64_t special[] = {0, 1ull << 63, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                     0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff4000000000001ull,
                                     0x0000000000000001ull, 0x800fffffffffffffull, 0x0010000000000000ull,
                                     0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull,
                                     0x3fe0000000000000ull, 0x4004000000000000ull, 0xc00c000000000000ull,
                                     0x41e0000000000000ull, 0xc1e0000000000000ull, 0x43e0000000000000ull,
                                     0xc3e0000000000000ull, 0x41dfffffffc00000ull, 0x3810000000000000ull,
                                     0x36a0000000000000ull};
  const uint64_t sign = below(2) << 63;
  switch (below(4)) {
    case 0: return special[below(sizeof special / sizeof special[0])];
    case 1: return sign | (static_cast<uint64_t>(range(0x3c0, 0x43f)) << 52) | (bits() >> 12);
    case 2: return sign | (static_cast<uint64_t>(range(1013, 1085)) << 52) | (below(16) << 47);
    default: return bits();
  }
}

void Gen::x87_value(uint8_t out[10]) {
  uint64_t mant = 0;
  uint16_t se = 0;
  const uint16_t sign = static_cast<uint16_t>(below(2) << 15);
  switch (below(7)) {
    case 0: mant = 0; se = 0; break;                                           // zero
    case 1: mant = 1ull << 63; se = 0x7fff; break;                            // infinity
    case 2: mant = (3ull << 62) | (bits() >> 20 & (chance(50) ? 0 : ~0ull)); se = 0x7fff; break;  // QNaN
    case 3: mant = (1ull << 63) | (bits() >> 2 | 1) >> 1; se = 0x7fff; break; // SNaN (or QNaN)
    case 4: mant = bits() >> 1; se = 0; break;                                 // denormal
    case 5: mant = (1ull << 63) | (below(8) << 58); se = static_cast<uint16_t>(range(16383 - 3, 16383 + 70)); break;
    default: mant = (1ull << 63) | bits(); se = static_cast<uint16_t>(range(16383 - 80, 16383 + 80)); break;
  }
  se |= sign;
  std::memcpy(out, &mant, 8);
  std::memcpy(out + 8, &se, 2);
}

bool Gen::reserved(int reg) const { return reg == kRsp || reg == base_reg_ || reg == index_reg_; }

std::string Gen::gpr(int size, bool writable) {
  for (;;) {
    if (size == 8 && below(5) == 0) {
      int r = static_cast<int>(below(4));  // ah..bh are bits 8-15 of rax..rbx
      if (!writable || !reserved(r)) return kHigh8[r];
      continue;
    }
    int r = static_cast<int>(below(16));
    if (writable && reserved(r)) continue;
    switch (size) {
      case 8: return kGpr8[r];
      case 16: return kGpr16[r];
      case 32: return kGpr32[r];
      default: return kGpr64[r];
    }
  }
}

// A memory operand inside [0, DT_OPERAND_SIZE) of the data area: absolute,
// base+disp or base+index*scale+disp, aligned to `align` bytes.
std::string Gen::mem_operand(int size, int align) {
  const int bytes = size == 80 ? 10 : size / 8;
  const int offset = static_cast<int>(below((DT_OPERAND_SIZE - bytes) / align + 1)) * align;
  char buf[96];
  switch (below(3)) {
    case 0:
      std::snprintf(buf, sizeof buf, "[0x%x]", DT_DATA_BASE + offset);
      break;
    case 1:
      std::snprintf(buf, sizeof buf, "[%s%+d]", kGpr64[base_reg_], offset - base_offset_);
      break;
    default: {
      static const int scales[] = {1, 2, 4, 8};
      int scale = scales[below(4)];
      std::snprintf(buf, sizeof buf, "[%s+%s*%d%+d]", kGpr64[base_reg_], kGpr64[index_reg_], scale,
                    offset - base_offset_ - index_value_ * scale);
      break;
    }
  }
  return std::string(size_ptr(size)) + buf;
}

std::string Gen::mem(int size, int align) { return mem_operand(size, align); }

std::string Gen::mem_at(int size, int offset) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "[0x%x]", DT_DATA_BASE + offset);
  return std::string(size_ptr(size)) + buf;
}

std::string Gen::expand(const std::string& tmpl) {
  for (int attempt = 0;; ++attempt) {
    std::string out;
    for (size_t i = 0; i < tmpl.size(); ++i) {
      if (tmpl[i] != '{') {
        out += tmpl[i];
        continue;
      }
      size_t end = tmpl.find('}', i);
      std::string key = tmpl.substr(i + 1, end - i - 1);
      i = end;
      if (key == "mm") {  // {mm}: an MMX register
        out += "mm" + std::to_string(below(8));
        continue;
      }
      char kind = key[0];
      int size = key.size() > 1 ? std::atoi(key.c_str() + 1) : 0;
      switch (kind) {
        case 'R': out += gpr(size, true); break;
        case 'r': out += gpr(size, false); break;
        case 'm': out += mem_operand(size, size == 128 ? 16 : 1); break;
        case 's': out += "st(" + std::to_string(below(8)) + ")"; break;  // {st}: an x87 register
        case 'u': out += key == "u128" ? mem_operand(128, 1) : std::to_string(below(1u << (size ? size : 8))); break;
        case 'x': out += xmm(); break;
        case 'c': out += std::to_string(below(8)); break;  // {cmp}: SSE compare predicate
        case 'i': {
          int64_t v = size == 8 ? range(-128, 127) : size == 16 ? range(-32768, 32767)
                                                               : static_cast<int32_t>(gpr_value());
          out += std::to_string(v);
          break;
        }
        default: throw std::runtime_error("bad template key {" + key + "} in " + tmpl);
      }
    }
    if (!needs_rex_with_high8(out) || attempt > 50) return out;
  }
}

void Gen::emit(const Insn& given) {
  Insn insn = given;
  if (model_vendor_) {
    // what phybin does as Intel CPUs do is compared as if defined
    insn.fsw_defines = static_cast<uint16_t>(insn.fsw_defines | insn.fsw_undefines);
    insn.fsw_undefines = 0;
  } else {
    insn.undefines |= insn.vendor_undefines;
    insn.defines &= ~insn.vendor_undefines;
  }
  insn.vendor_undefines = 0;
  if (insn.reads & undefined_) {
    std::string a = gpr(64, false), b = gpr(64, false);
    case_.insns.push_back(Insn{"cmp " + a + ", " + b, 0, ALL_FLAGS, 0});
    undefined_ = 0;
  }
  if (insn.fsw_reads & undefined_fsw_) {
    // fxam sets C0-C3 from ST0 (also when empty) and raises nothing
    Insn fxam{"fxam"};
    fxam.fsw_defines = ALL_CC;
    case_.insns.push_back(fxam);
    undefined_fsw_ = 0;
  }
  case_.insns.push_back(insn);
  undefined_ = (undefined_ & ~insn.defines) | insn.undefines;
  undefined_fsw_ = static_cast<uint16_t>((undefined_fsw_ & ~insn.fsw_defines) | insn.fsw_undefines);
}

void Gen::begin_case(uint64_t case_seed) {
  rng_.seed(case_seed);
  case_ = Case{};
  case_.seed = case_seed;
  undefined_ = 0;
  undefined_fsw_ = 0;
  scratch_ = 0;
  xmm_count_ = 16;
  dt_state& s = case_.init;
  // memory operands: base register near the middle of the operand area,
  // index register with a small value
  // (never a register an instruction writes implicitly: rax, rcx, rdx,
  // rsi, rdi, rbp)
  static const int bases[] = {3, 8, 9, 10, 11, 12, 13, 14, 15};
  constexpr size_t nbases = sizeof bases / sizeof bases[0];
  base_reg_ = bases[below(nbases)];
  do index_reg_ = bases[below(nbases)]; while (index_reg_ == base_reg_);
  base_offset_ = static_cast<int>(range(64, 192));
  index_value_ = static_cast<int>(below(8));
  for (int r = 0; r < 16; ++r) s.gpr[r] = gpr_value();
  s.gpr[base_reg_] = DT_DATA_BASE + base_offset_;
  s.gpr[index_reg_] = static_cast<uint64_t>(index_value_);
  s.gpr[kRsp] = DT_STACK_TOP;
  s.rflags = 0x202 | (bits() & ALL_FLAGS);
  for (int i = 0; i < DT_DATA_SIZE; i += 8) {
    uint64_t v = below(3) == 0 ? gpr_value() : chance(50) ? double_bits() : (uint64_t{float_bits()} << 32 | float_bits());
    std::memcpy(s.mem + i, &v, 8);
  }
  // FPU defaults: FCW 0x37f, MXCSR 0x1f80, x87 stack empty; XMM random
  uint16_t fcw = 0x37f;
  uint32_t mxcsr = phybin::mxcsr::kDefault;
  std::memcpy(s.fx + 0, &fcw, 2);
  std::memcpy(s.fx + 24, &mxcsr, 4);
  for (int r = 0; r < 16; ++r) {
    for (int lane = 0; lane < 2; ++lane) {
      uint64_t v = below(3) == 0 ? gpr_value() : chance(50) ? double_bits() : (uint64_t{float_bits()} << 32 | float_bits());
      std::memcpy(s.fx + 160 + 16 * r + 8 * lane, &v, 8);
    }
  }
}

uint32_t Gen::masked_mxcsr() {
  const auto flags = static_cast<uint32_t>(below(64));
  return phybin::mxcsr::kDefault | flags | static_cast<uint32_t>(below(4) << phybin::mxcsr::kRoundingShift);
}

void Gen::random_mxcsr(bool flush) {
  // DAZ and FTZ together (the flush families try each alone)
  uint32_t mxcsr = masked_mxcsr();
  if (flush && chance(25)) mxcsr |= phybin::mxcsr::kFtz | phybin::mxcsr::kDaz;
  std::memcpy(case_.init.fx + 24, &mxcsr, 4);
}

void Gen::random_x87() {
  dt_state& s = case_.init;
  static const uint16_t precision[] = {0, 2, 3, 3, 3};
  uint16_t fcw = 0x37f & ~0x300;
  fcw |= static_cast<uint16_t>(precision[below(5)] << 8) | static_cast<uint16_t>(below(4) << 10);
  const unsigned top = static_cast<unsigned>(below(8));
  const unsigned depth = static_cast<unsigned>(below(9));
  uint16_t fsw = static_cast<uint16_t>((top << 11) | (bits() & 0x4700) | (bits() & 0x3f & (chance(50) ? 0 : 0x3f)));
  uint8_t ftw = 0;
  for (unsigned i = 0; i < depth; ++i) ftw |= static_cast<uint8_t>(1u << ((top + i) & 7));
  std::memcpy(s.fx + 0, &fcw, 2);
  std::memcpy(s.fx + 2, &fsw, 2);
  s.fx[4] = ftw;
  for (int i = 0; i < 8; ++i) x87_value(s.fx + 32 + 16 * i);
}

void Gen::set_df(bool on) {
  case_.init.rflags = (case_.init.rflags & ~uint64_t{DF}) | (on ? uint64_t{DF} : uint64_t{0});
}

Case Gen::finish() { return case_; }

Case generate_case(const Family& family, uint64_t seed, uint64_t index, bool model_vendor) {
  uint64_t case_seed = seed * 0x9e3779b97f4a7c15ull ^ (index + 1) * 0xbf58476d1ce4e5b9ull;
  for (const char* p = family.name; *p; ++p) case_seed = (case_seed ^ static_cast<uint8_t>(*p)) * 0x100000001b3ull;
  Gen gen(case_seed, model_vendor);
  gen.begin_case(case_seed);
  if (family.init) family.init(gen);
  const int steps = static_cast<int>(gen.range(family.min_steps, family.max_steps));
  for (int i = 0; i < steps; ++i) family.step(gen);
  return gen.finish();
}

}  // namespace difftest
