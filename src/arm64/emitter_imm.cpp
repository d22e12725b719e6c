// Immediates: logical (bitmask) immediates, constant materialisation
// (mov_imm) and add/sub of arbitrary constants.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "arm64/emitter.h"
#include "arm64/emitter_fields.h"

namespace phybin::arm64 {

using namespace fields;

namespace {

uint64_t ones(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// Rotate right within an element of `esize` bits.
uint64_t ror_elem(uint64_t x, unsigned amount, unsigned esize) {
  if (amount == 0) return x;
  return ((x >> amount) | (x << (esize - amount))) & ones(esize);
}

uint64_t replicate(uint64_t elem, unsigned esize) {
  uint64_t v = 0;
  for (unsigned i = 0; i < 64; i += esize) v |= elem << i;
  return v;
}

}  // namespace

// A logical immediate is an element of 2, 4, ..., 64 bits, replicated over
// the register, that holds one run of 1..esize-1 ones rotated right by immr.
// imms encodes the element size in its leading ones (N=1 for 64) and the run
// length minus one in the rest.
std::optional<uint32_t> Assembler::encode_logical_imm(uint64_t value, bool is64) {
  if (!is64) {
    if (value >> 32) return std::nullopt;
    value |= value << 32;
  }
  if (value == 0 || value == ~uint64_t{0}) return std::nullopt;
  unsigned esize = 64;
  while (esize > 2) {  // the smallest period of the value
    const unsigned half = esize / 2;
    if ((value & ones(half)) != ((value >> half) & ones(half))) break;
    esize = half;
  }
  const uint64_t elem = value & ones(esize);
  const unsigned run = static_cast<unsigned>(std::popcount(elem));
  unsigned immr;
  if ((elem & 1) == 0) {
    // The run starts at bit ctz and does not wrap.
    immr = (esize - static_cast<unsigned>(std::countr_zero(elem))) % esize;
  } else {
    // Ones at the bottom may continue from the top of the element.
    const unsigned low_ones = static_cast<unsigned>(std::countr_one(elem));
    immr = run - low_ones;
  }
  if (ror_elem(ones(run), immr, esize) != elem) return std::nullopt;  // not one run
  const uint32_t n = esize == 64 ? 1 : 0;
  const uint32_t imms = ((~(2 * esize - 1)) & 0x3F) | (run - 1);
  return (n << 12) | (immr << 6) | imms;
}

std::optional<uint64_t> Assembler::decode_logical_imm(uint32_t field, bool is64) {
  const unsigned n = (field >> 12) & 1, immr = (field >> 6) & 0x3F, imms = field & 0x3F;
  if (!is64 && n) return std::nullopt;
  const unsigned combined = (n << 6) | (~imms & 0x3F);
  if (combined == 0) return std::nullopt;
  const unsigned len = static_cast<unsigned>(std::bit_width(combined)) - 1;
  if (len == 0) return std::nullopt;
  const unsigned esize = 1u << len, levels = esize - 1;
  const unsigned s = imms & levels, r = immr & levels;
  if (s == levels) return std::nullopt;
  uint64_t value = replicate(ror_elem(ones(s + 1), r, esize), esize);
  if (!is64) value &= ones(32);
  return value;
}

bool Assembler::is_add_imm(uint64_t value) {
  return value < 4096 || ((value & 0xFFF) == 0 && value < (uint64_t{1} << 24));
}

bool Assembler::is_mem_offset_encodable(unsigned log2_size, int64_t offset) {
  const int64_t scale = int64_t{1} << log2_size;
  const bool scaled = offset >= 0 && offset % scale == 0 && offset / scale < 4096;
  return scaled || (offset >= -256 && offset <= 255);
}

// ---- mov_imm -----------------------------------------------------------------

namespace {

// How to build a constant: a first instruction that sets every halfword to
// those of `base`, then one MOVK per halfword where the value differs.
struct MovPlan {
  enum class First { Movz, Movn, Orr } first;
  uint64_t base;
  unsigned length;
};

uint16_t halfword(uint64_t v, unsigned i) { return static_cast<uint16_t>(v >> (16 * i)); }

unsigned differing_halfwords(uint64_t a, uint64_t b, unsigned count) {
  unsigned n = 0;
  for (unsigned i = 0; i < count; ++i) n += halfword(a, i) != halfword(b, i);
  return n;
}

// ORR bases worth trying: the value with one halfword replaced (by another
// of its halfwords, 0 or 0xFFFF) and the value's halfwords or words
// replicated.  Any of them that is a logical immediate costs 1 + MOVKs.
void consider_orr_bases(uint64_t value, MovPlan& best) {
  std::array<uint16_t, 6> fill = {halfword(value, 0), halfword(value, 1), halfword(value, 2),
                                  halfword(value, 3), 0x0000, 0xFFFF};
  auto consider = [&](uint64_t base) {
    const unsigned length = 1 + differing_halfwords(value, base, 4);
    if (length < best.length && Assembler::encode_logical_imm(base, true)) {
      best = MovPlan{MovPlan::First::Orr, base, length};
    }
  };
  // A logical immediate whose element is 32 or 64 bits is one (rotated)
  // run of ones, so each of its halfwords changes between 0 and 1 at most
  // twice; smaller elements repeat whole halfwords, which the replicated
  // bases below cover.  Only a halfword that changes more often is worth
  // replacing, and with two such halfwords no single replacement helps
  // (guest addresses usually have three: this keeps translation fast).
  unsigned rough = 0, rough_at = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const uint16_t h = halfword(value, i);
    if (std::popcount(static_cast<unsigned>((h ^ (h >> 1)) & 0x7FFF)) > 2) {
      ++rough;
      rough_at = i;
    }
  }
  for (unsigned i = 0; i < 4 && rough < 2; ++i) {
    if (rough == 1 && i != rough_at) continue;
    for (uint16_t h : fill) {
      consider((value & ~(uint64_t{0xFFFF} << (16 * i))) | (uint64_t{h} << (16 * i)));
    }
  }
  for (unsigned j = 0; j < 4; ++j) consider(replicate(halfword(value, j), 16));
  consider(replicate(value & 0xFFFFFFFF, 32));
  consider(replicate(value >> 32, 32));
}

MovPlan plan_mov(Size s, uint64_t value) {
  const unsigned count = is64(s) ? 4 : 2;
  if (!is64(s)) value &= 0xFFFFFFFF;
  const uint64_t all_ones = is64(s) ? ~uint64_t{0} : 0xFFFFFFFF;
  // MOVZ starts from zeros, MOVN from ones; an all-zero/all-one value still
  // takes one instruction.
  const unsigned movz = std::max(1u, differing_halfwords(value, 0, count));
  const unsigned movn = std::max(1u, differing_halfwords(value, all_ones, count));
  MovPlan best = movz <= movn ? MovPlan{MovPlan::First::Movz, 0, movz}
                              : MovPlan{MovPlan::First::Movn, all_ones, movn};
  if (best.length == 1) return best;
  if (Assembler::encode_logical_imm(value, is64(s))) {
    return MovPlan{MovPlan::First::Orr, value, 1};
  }
  if (is64(s) && best.length > 2) consider_orr_bases(value, best);
  return best;
}

}  // namespace

unsigned Assembler::mov_imm_length(Size s, uint64_t value) { return plan_mov(s, value).length; }

void Assembler::mov_imm(Size s, Reg rd, uint64_t value) {
  const unsigned count = is64(s) ? 4 : 2;
  if (!is64(s)) value &= 0xFFFFFFFF;
  // Fast path for the common constants (guest addresses, offsets): a 64-bit
  // value below 2^32 that is not one contiguous run of ones (the only
  // logical immediate such a value can be) needs exactly its non-zero
  // halfwords, so the general search is skipped.
  const uint64_t run_end = value + (value & (0 - value));
  if (is64(s) && value <= 0xFFFFFFFF && (value == 0 || (value & run_end) != 0 || (value & 0xFFFF) == 0 ||
                                         (value >> 16) == 0)) {
    if ((value >> 16) == 0) {
      movz(s, rd, static_cast<uint16_t>(value), 0);
    } else if ((value & 0xFFFF) == 0) {
      movz(s, rd, static_cast<uint16_t>(value >> 16), 16);
    } else {
      movz(s, rd, static_cast<uint16_t>(value), 0);
      movk(s, rd, static_cast<uint16_t>(value >> 16), 16);
    }
    return;
  }
  const MovPlan plan = plan_mov(s, value);
  unsigned first_movk = 0;
  switch (plan.first) {
    case MovPlan::First::Orr:
      orr(s, rd, xzr, plan.base);
      break;
    case MovPlan::First::Movz:
    case MovPlan::First::Movn: {
      // The first halfword that differs from the base (halfword 0 if none).
      unsigned i = 0;
      while (i < count && halfword(value, i) == halfword(plan.base, i)) ++i;
      if (i == count) i = 0;
      if (plan.first == MovPlan::First::Movz) {
        movz(s, rd, halfword(value, i), 16 * i);
      } else {
        movn(s, rd, static_cast<uint16_t>(~halfword(value, i)), 16 * i);
      }
      first_movk = i + 1;
      break;
    }
  }
  for (unsigned i = first_movk; i < count; ++i) {
    if (halfword(value, i) != halfword(plan.base, i)) movk(s, rd, halfword(value, i), 16 * i);
  }
}

// ---- add/sub of any constant -------------------------------------------------

namespace {
constexpr uint32_t kAddImm = 0x11000000;
constexpr uint32_t kSubBit = 1u << 30;
constexpr uint32_t kSetFlagsBit = 1u << 29;
}  // namespace

void Assembler::addsub_any_imm(uint32_t op, bool set_flags, Size s, Reg rd, Reg rn,
                               int64_t imm, std::optional<Reg> scratch) {
  bool sub = (op & kSubBit) != 0;
  // Work on the operand-size value, so that W callers may pass 0xFFFFFFFF.
  if (!is64(s)) imm = static_cast<int32_t>(static_cast<uint32_t>(imm));
  // x - (-k) and x + k set the same NZCV unless k is 0 (SUBS #0 sets C,
  // ADDS #0 clears it) or the most negative number (V differs), so any other
  // negative constant flips the operation.
  const int64_t most_negative = is64(s) ? INT64_MIN : INT32_MIN;
  if (imm < 0 && imm != most_negative) {
    sub = !sub;
    imm = -imm;
  }
  const uint64_t value = static_cast<uint64_t>(imm) & (is64(s) ? ~uint64_t{0} : 0xFFFFFFFF);
  const uint32_t base = kAddImm | (sub ? kSubBit : 0) | (set_flags ? kSetFlagsBit : 0);
  const uint32_t size_bit = sf(s);
  auto emit_imm = [&](Reg d, Reg n, uint64_t v) {
    const bool high = v >= 4096;
    emit(base | size_bit | (high ? 1u << 22 : 0) |
         static_cast<uint32_t>((high ? v >> 12 : v) << 10) | fields::rn(n) | fields::rd(d));
  };
  if (is_add_imm(value)) return emit_imm(rd, rn, value);
  if (!set_flags && value < (uint64_t{1} << 24)) {
    emit_imm(rd, rn, value & 0xFFF000);
    return emit_imm(rd, rd, value & 0xFFF);
  }
  Reg tmp = scratch.value_or(rd);
  require(scratch.has_value() || (rd != rn && rd.code != 31),
          "add/sub immediate needs a scratch register");
  require(tmp.code != 31 && tmp != rn, "scratch register must differ from rn and SP");
  mov_imm(s, tmp, value);
  // The extended-register form keeps rd/rn SP-capable like the immediate form.
  const Extend ext = is64(s) ? Extend::UXTX : Extend::UXTW;
  emit(0x0B200000 | (sub ? kSubBit : 0) | (set_flags ? kSetFlagsBit : 0) | size_bit |
       fields::rm(tmp) | (static_cast<uint32_t>(ext) << 13) | fields::rn(rn) | fields::rd(rd));
}

void Assembler::add_imm(Size s, Reg rd, Reg rn, int64_t imm, std::optional<Reg> scratch) {
  addsub_any_imm(0, false, s, rd, rn, imm, scratch);
}

void Assembler::sub_imm(Size s, Reg rd, Reg rn, int64_t imm, std::optional<Reg> scratch) {
  addsub_any_imm(kSubBit, false, s, rd, rn, imm, scratch);
}

void Assembler::adds_imm(Size s, Reg rd, Reg rn, int64_t imm, Reg scratch) {
  addsub_any_imm(0, true, s, rd, rn, imm, scratch);
}

void Assembler::subs_imm(Size s, Reg rd, Reg rn, int64_t imm, Reg scratch) {
  addsub_any_imm(kSubBit, true, s, rd, rn, imm, scratch);
}

void Assembler::cmp_imm(Size s, Reg rn, int64_t imm, Reg scratch) {
  addsub_any_imm(kSubBit, true, s, xzr, rn, imm, scratch);
}

}  // namespace phybin::arm64
