// The backend's address pool, what makes saved translations relocatable:
// every guest address a block's code uses (a RIP-relative operand, a call's
// return address, the exit's target) is one 8-byte literal after the code,
// loaded with LDR (literal), and the pool holds nothing else.  Expected
// values worked out from the guest bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "arm64/backend.h"
#include "ir/passes.h"
#include "guest_code.h"

namespace phybin::arm64 {
namespace {

void no_signal(GuestState*, int) {}

struct Compiled {
  std::vector<uint32_t> buffer = std::vector<uint32_t>(1 << 14);
  size_t begin = 0, words = 0;
  AddressPool pool;
};

// The block of `code`'s first `insns` instructions, compiled after the
// stubs in a buffer of this process.
void compile(const x86::GuestCode& code, unsigned insns, Compiled& out) {
  HelperTable helpers;
  BackendConfig config;
  Assembler stubs(out.buffer.data(), 1024);
  config.stubs = emit_stubs(stubs);
  config.helpers = &helpers;
  config.raise_signal = &no_signal;
  config.lookup_mask = 0xffff;
  ir::Block block = code.translate({}, insns);
  ir::optimize(block);
  out.begin = 1024 + 1;  // an odd word: the pool must align itself
  Assembler a(out.buffer.data() + out.begin, out.buffer.size() - out.begin);
  ASSERT_TRUE(compile_block(block, a, config, nullptr, nullptr, &out.pool));
  out.words = a.size_words();
}

uint64_t pool_value(const Compiled& c, uint32_t i) {
  uint64_t v;
  std::memcpy(&v, c.buffer.data() + c.begin + c.pool.offset_words + 2 * i, 8);
  return v;
}

TEST(AddressPool, HoldsEveryGuestAddressTheCodeUses) {
  // lea rax, [rip+0x100]; call +0x20
  x86::GuestCode code{0x48, 0x8d, 0x05, 0x00, 0x01, 0x00, 0x00, 0xe8, 0x20, 0x00, 0x00, 0x00};
  Compiled c;
  compile(code, 2, c);
  const uint64_t base = code.addr();
  const std::set<uint64_t> expected = {base + 7 + 0x100, base + 12, base + 12 + 0x20};
  ASSERT_EQ(c.pool.count, expected.size());
  ASSERT_LE(c.pool.offset_words + 2 * c.pool.count, c.words);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(c.buffer.data() + c.begin + c.pool.offset_words) % 8, 0u);
  std::set<uint64_t> pooled;
  for (uint32_t i = 0; i < c.pool.count; ++i) pooled.insert(pool_value(c, i));
  EXPECT_EQ(pooled, expected);
  // The code loads them with LDR (literal) from the pool, nowhere else.
  unsigned literal_loads = 0;
  for (size_t w = 0; w < c.pool.offset_words; ++w) {
    const uint32_t insn = c.buffer[c.begin + w];
    if ((insn & 0xff000000) != 0x58000000) continue;  // LDR Xt, label
    const int64_t imm19 = static_cast<int32_t>(insn << 8) >> 13;
    const int64_t target = static_cast<int64_t>(w) + imm19;
    EXPECT_GE(target, static_cast<int64_t>(c.pool.offset_words));
    EXPECT_LT(target, static_cast<int64_t>(c.pool.offset_words + 2 * c.pool.count));
    EXPECT_EQ((target - c.pool.offset_words) % 2, 0);
    ++literal_loads;
  }
  EXPECT_GE(literal_loads, expected.size());
}

TEST(AddressPool, ABlockWithoutAddressesHasNone) {
  x86::GuestCode code{0x48, 0x01, 0xd8};  // add rax, rbx, then int3 (a trap at its address)
  Compiled c;
  compile(code, 1, c);
  // The exit's target is the one address: the next instruction.
  ASSERT_EQ(c.pool.count, 1u);
  EXPECT_EQ(pool_value(c, 0), code.addr() + 3);
}

}  // namespace
}  // namespace phybin::arm64
