// AArch64 emitter: logical immediates, constant materialisation, labels,
// branch patching, buffer overflow and operand checks.  (Instruction
// encodings are compared with objdump in emitter_{int,mem,simd}_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "arm64/emitter.h"
#include "common/error.h"

namespace phybin::arm64 {
namespace {

uint64_t ones(unsigned n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// Every logical immediate, built from the definition (a rotated run of
// 1..e-1 ones in an element of e = 2..64 bits, replicated), independently
// of the emitter's encoder and decoder.
std::set<uint64_t> all_logical_immediates(bool is64) {
  std::set<uint64_t> values;
  for (unsigned esize = 2; esize <= (is64 ? 64u : 32u); esize *= 2) {
    for (unsigned run = 1; run < esize; ++run) {
      for (unsigned rot = 0; rot < esize; ++rot) {
        const uint64_t run_bits = ones(run);
        const uint64_t elem =
            rot == 0 ? run_bits : ((run_bits >> rot) | (run_bits << (esize - rot))) & ones(esize);
        uint64_t value = 0;
        for (unsigned i = 0; i < 64; i += esize) value |= elem << i;
        values.insert(is64 ? value : value & ones(32));
      }
    }
  }
  return values;
}

// DecodeBitMasks of the Arm ARM, written out again for the test.
uint64_t reference_decode(unsigned n, unsigned immr, unsigned imms, bool is64) {
  unsigned len = 6;
  const unsigned combined = (n << 6) | (~imms & 0x3F);
  while (len > 0 && !(combined & (1u << len))) --len;
  const unsigned esize = 1u << len, s = imms & (esize - 1), r = immr & (esize - 1);
  uint64_t elem = ones(s + 1);
  if (r) elem = ((elem >> r) | (elem << (esize - r))) & ones(esize);
  uint64_t value = 0;
  for (unsigned i = 0; i < 64; i += esize) value |= elem << i;
  return is64 ? value : value & ones(32);
}

TEST(EmitterLogicalImm, CountsOfEncodableValues) {
  const auto all64 = all_logical_immediates(true);
  const auto all32 = all_logical_immediates(false);
  // 5334 = sum over e in {2..64} of e*(e-1).  For 32-bit registers the
  // element sizes stop at 32, which leaves 2+12+56+240+992 = 1302 values
  // (not half of 5334: the 64-bit-only element size holds 4032 of them).
  EXPECT_EQ(all64.size(), 5334u);
  EXPECT_EQ(all32.size(), 1302u);
  // The emitter's decoder, over every N:immr:imms field, yields exactly
  // these sets.
  for (bool is64 : {true, false}) {
    std::set<uint64_t> decoded;
    for (uint32_t field = 0; field < 8192; ++field) {
      if (auto v = Assembler::decode_logical_imm(field, is64)) decoded.insert(*v);
    }
    EXPECT_EQ(decoded, is64 ? all64 : all32) << (is64 ? "64-bit" : "32-bit");
  }
}

TEST(EmitterLogicalImm, EveryValueEncodesAndRoundTrips) {
  for (bool is64 : {true, false}) {
    for (uint64_t value : all_logical_immediates(is64)) {
      const auto field = Assembler::encode_logical_imm(value, is64);
      ASSERT_TRUE(field.has_value()) << std::hex << value;
      const unsigned n = (*field >> 12) & 1, immr = (*field >> 6) & 0x3F, imms = *field & 0x3F;
      if (!is64) {
        EXPECT_EQ(n, 0u);
      }
      EXPECT_EQ(reference_decode(n, immr, imms, is64), value) << std::hex << value;
      EXPECT_EQ(Assembler::decode_logical_imm(*field, is64), value);
    }
  }
}

TEST(EmitterLogicalImm, OtherValuesDoNotEncode) {
  const auto all64 = all_logical_immediates(true);
  const auto all32 = all_logical_immediates(false);
  const std::vector<uint64_t> valid(all64.begin(), all64.end());
  std::mt19937_64 rng(1234);
  for (int i = 0; i < 200000; ++i) {
    // Random values, sparse values and near-misses of valid patterns.
    uint64_t v = rng();
    if (i % 3 == 1) v &= rng() & rng();
    if (i % 3 == 2) v = valid[rng() % valid.size()] ^ (uint64_t{1} << (rng() % 64));
    EXPECT_EQ(Assembler::encode_logical_imm(v, true).has_value(), all64.count(v) == 1)
        << std::hex << v;
    const uint64_t w = v & ones(32);
    EXPECT_EQ(Assembler::encode_logical_imm(w, false).has_value(), all32.count(w) == 1)
        << std::hex << w;
  }
  EXPECT_FALSE(Assembler::encode_logical_imm(0, true));
  EXPECT_FALSE(Assembler::encode_logical_imm(~uint64_t{0}, true));
  EXPECT_FALSE(Assembler::encode_logical_imm(0xFFFFFFFF, false));
  EXPECT_FALSE(Assembler::encode_logical_imm(0x100000000, false));  // wider than 32 bits
}

TEST(EmitterLogicalImm, HandWorkedFields) {
  // N:immr:imms worked out by hand from the definition.
  EXPECT_EQ(Assembler::encode_logical_imm(0x5555555555555555, true), 0x03Cu);  // e=2, 1 one
  EXPECT_EQ(Assembler::encode_logical_imm(0xFF, true), 0x1007u);               // e=64, 8 ones
  EXPECT_EQ(Assembler::encode_logical_imm(0xFFFFFFFE, false), 0x7DEu);         // ror 31
  EXPECT_EQ(Assembler::encode_logical_imm(0x8000000000000001, true), 0x1041u); // ror 1, 2 ones
  EXPECT_EQ(Assembler::encode_logical_imm(0x0F0F0F0F0F0F0F0F, true), 0x033u);  // e=8, 4 ones
}

// ---- mov_imm, checked by emulating the words it emits ------------------------

struct MovResult {
  uint64_t value = 0;
  bool ok = true;
};

// Executes MOVZ/MOVN/MOVK/ORR-immediate words writing register `rd`.
MovResult emulate_moves(const uint32_t* words, size_t count, unsigned rd, bool is64) {
  MovResult r;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t w = words[i];
    const bool sf = (w >> 31) != 0;
    if (sf != is64 || (w & 31) != rd) return MovResult{0, false};
    const unsigned shift = 16 * ((w >> 21) & 3);
    const uint64_t imm16 = (w >> 5) & 0xFFFF;
    switch (w & 0x7F800000) {
      case 0x52800000: r.value = imm16 << shift; break;                                  // MOVZ
      case 0x12800000: r.value = ~(imm16 << shift); break;                               // MOVN
      case 0x72800000: r.value = (r.value & ~(uint64_t{0xFFFF} << shift)) | (imm16 << shift); break;
      default:
        // ORR rd, zr, #imm: opcode 0x32000000 and rn = 31.
        if ((w & 0x7F800000) != 0x32000000 || ((w >> 5) & 31) != 31) return MovResult{0, false};
        r.value = reference_decode((w >> 22) & 1, (w >> 16) & 0x3F, (w >> 10) & 0x3F, is64);
    }
    if (!is64) r.value &= ones(32);
  }
  return r;
}

std::vector<uint64_t> interesting_constants() {
  std::vector<uint64_t> values = {0, 1, 0xFFFF, 0x10000, 0xFFFFFFFF, 0x100000000,
                                  ~uint64_t{0}, 0x8000000000000000, 0x7FFFFFFFFFFFFFFF,
                                  0x123456789ABCDEF0, 0xFFFF0000FFFF0000, 0x0000FFFF0000FFFF};
  std::mt19937_64 rng(42);
  const uint16_t pieces[] = {0, 0xFFFF, 0x5555, 0x00FF, 0x8000};
  for (int i = 0; i < 20000; ++i) {
    uint64_t v = 0;
    for (int h = 0; h < 4; ++h) {
      const uint64_t piece = (rng() % 3 == 0) ? static_cast<uint16_t>(rng()) : pieces[rng() % 5];
      v |= piece << (16 * h);
    }
    values.push_back(v);
    values.push_back(rng());
  }
  for (uint64_t imm : all_logical_immediates(true)) {
    values.push_back(imm);
    values.push_back(imm ^ (uint64_t{0x1234} << (16 * (imm % 4))));  // one halfword off
  }
  return values;
}

TEST(EmitterMovImm, EmulatedSequencesProduceTheValue) {
  std::vector<uint32_t> buf(8);
  size_t total = 0, count = 0;
  for (uint64_t value : interesting_constants()) {
    for (Size s : {Size::X, Size::W}) {
      const bool is64 = s == Size::X;
      for (unsigned rd : {0u, 17u, 30u}) {
        Assembler a(buf.data(), buf.size());
        a.mov_imm(s, X(rd), value);
        ASSERT_FALSE(a.overflowed());
        ASSERT_LE(a.size_words(), is64 ? 4u : 2u) << std::hex << value;
        EXPECT_EQ(a.size_words(), Assembler::mov_imm_length(s, value));
        const MovResult r = emulate_moves(buf.data(), a.size_words(), rd, is64);
        ASSERT_TRUE(r.ok) << "unexpected instruction for " << std::hex << value;
        ASSERT_EQ(r.value, is64 ? value : value & ones(32)) << std::hex << value;
        total += a.size_words();
        ++count;
      }
    }
  }
  EXPECT_GT(count, 100000u);
  RecordProperty("average_length_x1000", static_cast<int>(total * 1000 / count));
}

// The shortest "ORR base + MOVKs" form, searched without shortcuts: the
// bases with one halfword replaced (by another halfword, 0 or 0xFFFF) and
// the replicated halfwords and words.  mov_imm skips bases that cannot be
// logical immediates; it must find the same length.
unsigned reference_mov_length(uint64_t value) {
  auto half = [](uint64_t v, unsigned i) { return static_cast<uint16_t>(v >> (16 * i)); };
  auto differing = [&](uint64_t a, uint64_t b) {
    unsigned n = 0;
    for (unsigned i = 0; i < 4; ++i) n += half(a, i) != half(b, i);
    return n;
  };
  unsigned best = std::max(1u, std::min(differing(value, 0), differing(value, ~uint64_t{0})));
  if (best == 1) return 1;
  if (Assembler::encode_logical_imm(value, true)) return 1;
  auto consider = [&](uint64_t base) {
    if (Assembler::encode_logical_imm(base, true)) best = std::min(best, 1 + differing(value, base));
  };
  const uint16_t fill[] = {half(value, 0), half(value, 1), half(value, 2), half(value, 3), 0, 0xFFFF};
  for (unsigned i = 0; i < 4; ++i)
    for (uint16_t h : fill) consider((value & ~(uint64_t{0xFFFF} << (16 * i))) | (uint64_t{h} << (16 * i)));
  for (unsigned j = 0; j < 4; ++j) {
    uint64_t r = half(value, j);
    consider(r | r << 16 | r << 32 | r << 48);
  }
  consider((value & 0xFFFFFFFF) | value << 32);
  consider(value >> 32 | (value >> 32) << 32);
  return best;
}

TEST(EmitterMovImm, SkippedBasesLoseNothing) {
  std::vector<uint64_t> values = interesting_constants();
  std::mt19937_64 rng(42);
  for (int i = 0; i < 20000; ++i) {
    values.push_back(rng() & 0x00007FFFFFFFFFFF);  // user-space addresses
    values.push_back((rng() & 0xFFFF) << (16 * (i % 4)) | 0x0000FFFFFFFF0000);
  }
  for (uint64_t value : values)
    ASSERT_EQ(Assembler::mov_imm_length(Size::X, value), reference_mov_length(value)) << std::hex << value;
}

TEST(EmitterMovImm, ShortestForms) {
  EXPECT_EQ(Assembler::mov_imm_length(Size::X, 0), 1u);
  EXPECT_EQ(Assembler::mov_imm_length(Size::X, ~uint64_t{0}), 1u);
  EXPECT_EQ(Assembler::mov_imm_length(Size::X, 0xFFFFFFFFFFFF1234), 1u);        // movn
  EXPECT_EQ(Assembler::mov_imm_length(Size::X, 0x0000123400000000), 1u);        // movz
  EXPECT_EQ(Assembler::mov_imm_length(Size::X, 0x00FF00FF00FF00FF), 1u);        // orr
  EXPECT_EQ(Assembler::mov_imm_length(Size::X, 0x00FF00FF00FF1234), 2u);        // orr + movk
  EXPECT_EQ(Assembler::mov_imm_length(Size::X, 0x1234567800FF00FF), 3u);        // orr + 2 movk
  EXPECT_EQ(Assembler::mov_imm_length(Size::X, 0x123456789ABCDEF0), 4u);
  EXPECT_EQ(Assembler::mov_imm_length(Size::W, 0xFFFFFFFF), 1u);
  EXPECT_EQ(Assembler::mov_imm_length(Size::W, 0x12345678), 2u);
  EXPECT_EQ(Assembler::mov_imm_length(Size::W, 0x1234567800000000), 1u);       // upper half ignored
}

// ---- Labels ------------------------------------------------------------------

TEST(EmitterLabel, ForwardAndBackwardOffsets) {
  std::vector<uint32_t> buf(64);
  Assembler a(buf.data(), buf.size());
  Label top, end;
  a.bind(top);
  a.b(end);                      // 0: forward +4
  a.cbz(Size::X, x3, end);       // 1: forward +3
  a.tbnz(x5, 40, end);           // 2: forward +2
  a.b(top);                      // 3: back -3
  EXPECT_EQ(a.unresolved_fixups(), 3u);
  a.bind(end);                   // at 4
  EXPECT_EQ(a.unresolved_fixups(), 0u);
  a.b(Cond::NE, top);            // 4: back -4
  a.adr(x0, end);                // 5: back -1 word = -4 bytes
  EXPECT_EQ(buf[0], 0x14000004u);
  EXPECT_EQ(buf[1], 0xB4000000u | (3u << 5) | 3u);
  EXPECT_EQ(buf[2], 0xB7000000u | (8u << 19) | (2u << 5) | 5u);
  EXPECT_EQ(buf[3], 0x14000000u | (0x3FFFFFFu & static_cast<uint32_t>(-3)));
  EXPECT_EQ(buf[4], 0x54000000u | ((0x7FFFFu & static_cast<uint32_t>(-4)) << 5) | 1u);
  EXPECT_EQ(buf[5], 0x10000000u | (0x7FFFFu << 5));  // -4 bytes: immlo 0, immhi -1
  EXPECT_TRUE(top.bound());
  EXPECT_EQ(end.position_words(), 4u);
}

TEST(EmitterLabel, BindingTwiceAndOutOfRangeThrow) {
  std::vector<uint32_t> buf(20000);
  Assembler a(buf.data(), buf.size());
  Label l;
  a.bind(l);
  EXPECT_THROW(a.bind(l), Error);
  Label far;
  a.tbz(x0, 1, far);
  for (int i = 0; i < 8192; ++i) a.nop();  // TBZ reaches 8191 words forward
  EXPECT_THROW(a.bind(far), Error);
  Label near;
  a.tbz(x0, 1, near);
  for (int i = 0; i < 8190; ++i) a.nop();
  EXPECT_FALSE(a.overflowed());
  EXPECT_NO_THROW(a.bind(near));
}

TEST(EmitterLabel, StaleLabelsAreCaught) {
  std::vector<uint32_t> buf(16), other(16);
  Assembler a(buf.data(), buf.size());
  Label l;
  a.nop();
  a.bind(l);
  EXPECT_EQ(a.address_of(l), buf.data() + 1);
  Label pending;
  a.b(pending);
  a.reset();
  EXPECT_THROW(a.b(l), Error);        // bound before the reset
  EXPECT_THROW(a.bind(pending), Error);
  Assembler b(other.data(), other.size());
  Label mine;
  a.b(mine);
  EXPECT_THROW(b.bind(mine), Error);  // belongs to `a`
  EXPECT_THROW(a.address_of(mine), Error);  // not bound yet
}

// ---- Branch encoding and patching helpers ------------------------------------

const void* address(uintptr_t a) { return reinterpret_cast<const void*>(a); }

TEST(EmitterPatch, BranchRanges) {
  const uintptr_t from = 0x40000000;
  const uintptr_t max_fwd = from + 4 * ((uintptr_t{1} << 25) - 1);
  const uintptr_t max_back = from - 4 * (uintptr_t{1} << 25);
  EXPECT_TRUE(Assembler::is_b_in_range(address(from), address(max_fwd)));
  EXPECT_FALSE(Assembler::is_b_in_range(address(from), address(max_fwd + 4)));
  EXPECT_TRUE(Assembler::is_b_in_range(address(from), address(max_back)));
  EXPECT_FALSE(Assembler::is_b_in_range(address(from), address(max_back - 4)));
  EXPECT_FALSE(Assembler::is_b_in_range(address(from), address(from + 2)));  // misaligned
  EXPECT_EQ(Assembler::encode_b(address(from), address(max_fwd)), 0x15FFFFFFu);
  EXPECT_EQ(Assembler::encode_b(address(from), address(max_back)), 0x16000000u);
  EXPECT_EQ(Assembler::encode_bl(address(from), address(from - 4)), 0x97FFFFFFu);
  EXPECT_FALSE(Assembler::encode_bl(address(from), address(max_fwd + 4)));
  EXPECT_EQ(Assembler::encode_b_cond(address(from), address(from + 8), Cond::GE), 0x5400004Au);
  EXPECT_TRUE(Assembler::is_b_cond_in_range(address(from), address(from + 0xFFFFC)));
  EXPECT_FALSE(Assembler::is_b_cond_in_range(address(from), address(from + 0x100000)));
  EXPECT_FALSE(Assembler::encode_b_cond(address(from), address(from - 0x100004), Cond::EQ));
  EXPECT_TRUE(Assembler::is_adrp_in_range(address(from), address(from + 0xFFFFF000)));
  EXPECT_FALSE(Assembler::is_adrp_in_range(address(from), address(from + 0x100000000)));
}

TEST(EmitterPatch, PatchWritesOnlyInRange) {
  std::vector<uint32_t> buf(16, 0xD503201F);
  EXPECT_TRUE(Assembler::patch_b(&buf[2], &buf[10]));
  EXPECT_EQ(buf[2], 0x14000008u);
  EXPECT_TRUE(Assembler::patch_bl(&buf[10], &buf[2]));
  EXPECT_EQ(buf[10], 0x97FFFFF8u);
  const void* far = address(reinterpret_cast<uintptr_t>(&buf[3]) + (uintptr_t{1} << 28));
  EXPECT_FALSE(Assembler::patch_b(&buf[3], far));
  EXPECT_EQ(buf[3], 0xD503201Fu);  // untouched
}

// Exit sites: B, B.cond, CBZ/CBNZ keep their kind, condition and register
// when re-pointed; words worked out by hand from the ARM ARM encodings.
TEST(EmitterPatch, PatchBranchKeepsKindConditionAndRegister) {
  std::vector<uint32_t> buf(64, 0xD503201F);
  buf[4] = 0x5400004Au;  // b.ge +8 (to buf[6])
  EXPECT_TRUE(Assembler::is_conditional_branch(buf[4]));
  EXPECT_EQ(Assembler::branch_target(&buf[4]), &buf[6]);
  EXPECT_TRUE(Assembler::patch_branch(&buf[4], &buf[1]));  // backwards 3 words
  EXPECT_EQ(buf[4], 0x54FFFFAAu);                         // b.ge -12
  EXPECT_EQ(Assembler::branch_target(&buf[4]), &buf[1]);
  buf[8] = 0x35000043u;  // cbnz w3, +8
  EXPECT_TRUE(Assembler::is_conditional_branch(buf[8]));
  EXPECT_TRUE(Assembler::patch_branch(&buf[8], &buf[40]));
  EXPECT_EQ(buf[8], 0x35000403u);  // cbnz w3, +128
  buf[9] = 0xB4000025u;            // cbz x5, +4
  EXPECT_TRUE(Assembler::is_conditional_branch(buf[9]));
  EXPECT_EQ(Assembler::branch_target(&buf[9]), &buf[10]);
  buf[12] = 0x14000001u;  // b +4: not conditional, patched as a B
  EXPECT_FALSE(Assembler::is_conditional_branch(buf[12]));
  EXPECT_TRUE(Assembler::patch_branch(&buf[12], &buf[2]));
  EXPECT_EQ(buf[12], 0x17FFFFF6u);
  EXPECT_EQ(Assembler::branch_target(&buf[12]), &buf[2]);
  EXPECT_FALSE(Assembler::is_conditional_branch(0x94000000u));  // bl
  EXPECT_FALSE(Assembler::is_conditional_branch(0x36000000u));  // tbz: another kind
  const void* far = address(reinterpret_cast<uintptr_t>(&buf[4]) + (uintptr_t{1} << 20));
  const uint32_t before = buf[4];
  EXPECT_FALSE(Assembler::patch_branch(&buf[4], far));
  EXPECT_EQ(buf[4], before);
}

// ---- Buffer overflow ---------------------------------------------------------

TEST(EmitterBuffer, OverflowStopsWritingAndResetRecovers) {
  uint32_t buf[6] = {0, 0, 0, 0, 0xAAAAAAAA, 0xBBBBBBBB};
  Assembler a(buf, 4);
  Label l;
  a.b(l);
  for (int i = 0; i < 3; ++i) a.nop();
  EXPECT_FALSE(a.overflowed());
  EXPECT_EQ(a.remaining_words(), 0u);
  a.nop();
  a.b(l);
  a.mov_imm(Size::X, x0, 0x123456789ABCDEF0);
  a.b(a.begin());
  EXPECT_TRUE(a.overflowed());
  EXPECT_EQ(a.size_words(), 4u);
  EXPECT_EQ(a.cursor(), buf + 4);
  EXPECT_NO_THROW(a.bind(l));
  EXPECT_EQ(buf[4], 0xAAAAAAAAu);
  EXPECT_EQ(buf[5], 0xBBBBBBBBu);
  a.reset();
  EXPECT_FALSE(a.overflowed());
  EXPECT_EQ(a.size_words(), 0u);
  EXPECT_EQ(a.unresolved_fixups(), 0u);
  a.ret();
  EXPECT_EQ(buf[0], 0xD65F03C0u);
}

// ---- Operand checks ----------------------------------------------------------

TEST(EmitterChecks, BadOperandsThrow) {
  std::vector<uint32_t> buf(64);
  Assembler a(buf.data(), buf.size());
  EXPECT_THROW(a.add(Size::X, x0, x1, 4096u), Error);
  EXPECT_THROW(a.add(Size::X, x0, x1, x2, Shift::ROR, 1), Error);
  EXPECT_THROW(a.add(Size::W, x0, x1, x2, Shift::LSL, 32), Error);
  EXPECT_THROW(a.add(Size::X, x0, x1, x2, Extend::UXTX, 5), Error);
  EXPECT_THROW(a.and_(Size::X, x0, x1, uint64_t{0x1234}), Error);
  EXPECT_THROW(a.orr(Size::W, x0, x1, uint64_t{0x100000000}), Error);
  EXPECT_THROW(a.movz(Size::W, x0, 1, 32), Error);
  EXPECT_THROW(a.movz(Size::X, x0, 1, 8), Error);
  EXPECT_THROW(a.ubfx(Size::W, x0, x1, 30, 3), Error);
  EXPECT_THROW(a.lsl(Size::X, x0, x1, 64u), Error);
  EXPECT_THROW(a.cset(Size::X, x0, Cond::AL), Error);
  EXPECT_THROW(a.ccmp(Size::X, x0, 32u, 0, Cond::EQ), Error);
  EXPECT_THROW(a.ccmp(Size::X, x0, x1, 16, Cond::EQ), Error);
  EXPECT_THROW(a.add(Size::X, Reg{32}, x1, x2), Error);
  EXPECT_THROW(a.add(VArr::S4, VReg{40}, v1, v2), Error);
  EXPECT_THROW(a.ldr(Size::X, x0, mem(x1, 32768)), Error);
  EXPECT_THROW(a.ldr(Size::X, x0, mem(x1, 257)), Error);
  EXPECT_THROW(a.ldr(Size::X, x0, mem_pre(x1, 256)), Error);
  EXPECT_THROW(a.ldur(Size::X, x0, mem_pre(x1, 8)), Error);
  EXPECT_THROW(a.ldr(Size::X, x0, mem(x1, x2, Extend::UXTB)), Error);
  EXPECT_THROW(a.ldp(Size::X, x0, x1, mem(x2, 4)), Error);
  EXPECT_THROW(a.ldp(Size::X, x0, x1, mem(x2, 512)), Error);
  EXPECT_THROW(a.ldp(FSize::B, v0, v1, mem(x2)), Error);
  EXPECT_THROW(a.load_signed(Size::W, MemSize::W, x0, mem(x1)), Error);
  EXPECT_THROW(a.add(VArr::D1, v0, v1, v2), Error);
  EXPECT_THROW(a.mul(VArr::D2, v0, v1, v2), Error);
  EXPECT_THROW(a.and_(VArr::S4, v0, v1, v2), Error);
  EXPECT_THROW(a.shl(VArr::S4, v0, v1, 32), Error);
  EXPECT_THROW(a.ushr(VArr::S4, v0, v1, 0), Error);
  EXPECT_THROW(a.xtn(VArr::D2, v0, v1), Error);
  EXPECT_THROW(a.ins(FSize::S, v0, 4, x1), Error);
  EXPECT_THROW(a.smov(Size::W, FSize::S, x0, v1, 0), Error);
  EXPECT_THROW(a.fadd(FSize::Q, v0, v1, v2), Error);
  EXPECT_THROW(a.fadd(VArr::H8, v0, v1, v2), Error);
  EXPECT_THROW(a.movi(VArr::D2, v0, 0x0102), Error);
  EXPECT_THROW(a.tbl(VArr::B16, v0, v1, 5, v2), Error);
  EXPECT_THROW(a.ext(VArr::B8, v0, v1, v2, 8), Error);
  EXPECT_THROW(a.b(address(reinterpret_cast<uintptr_t>(a.begin()) + (uintptr_t{1} << 28))), Error);
  EXPECT_THROW(a.add_imm(Size::X, x0, x0, 0x12345678), Error);  // needs a scratch
  Label unused;
  EXPECT_THROW(a.tbz(x0, 64, unused), Error);
  EXPECT_EQ(a.size_words(), 0u) << "a rejected instruction must not be emitted";
}

}  // namespace
}  // namespace phybin::arm64
