// XMM commit regions (x86/xmm_regions.cpp): a run of SSE instructions that
// write only XMM registers holds its register writes back to its end, one
// SetXmm per register, and numbers its instructions for the fault path
// (ir::Inst::replay).  Encodings checked with `as --64` / `objdump -d`.
#include <gtest/gtest.h>

#include <vector>

#include "guest_code.h"

namespace phybin::x86 {
namespace {

using ir::Block;
using ir::Inst;
using ir::Opcode;

// movsd xmm0,[rdi]; addsd xmm0,xmm1; mulsd xmm2,xmm0; addsd xmm0,[rsi+8]
#define RUN_OF_FOUR 0xf2, 0x0f, 0x10, 0x07, 0xf2, 0x0f, 0x58, 0xc1, 0xf2, 0x0f, 0x59, 0xd0, 0xf2, 0x0f, 0x58, 0x46, 0x08

std::vector<unsigned> replays(const Block& b) {
  std::vector<unsigned> out;
  for (const Inst& in : b.insts)
    if (in.insn_start) out.push_back(in.replay);
  return out;
}

// The SetXmm of each register, by position in the block.
std::vector<std::pair<size_t, unsigned>> xmm_writes(const Block& b) {
  std::vector<std::pair<size_t, unsigned>> out;
  for (size_t i = 0; i < b.insts.size(); ++i)
    if (b.insts[i].op == Opcode::SetXmm) out.emplace_back(i, b.insts[i].aux);
  return out;
}

size_t last_insn_start(const Block& b) {
  size_t last = 0;
  for (size_t i = 0; i < b.insts.size(); ++i)
    if (b.insts[i].insn_start) last = i;
  return last;
}

TEST(XmmRegion, WritesEachRegisterOnceAtTheEnd) {
  const GuestCode code{RUN_OF_FOUR};
  const Block b = code.translate({}, 4);
  EXPECT_EQ(replays(b), (std::vector<unsigned>{1, 2, 3, 4}));
  const auto writes = xmm_writes(b);
  ASSERT_EQ(writes.size(), 2u) << ir::print_block(b);
  EXPECT_EQ(writes[0].second, 0u);
  EXPECT_EQ(writes[1].second, 2u);
  for (const auto& [at, xmm] : writes) EXPECT_GT(at, last_insn_start(b)) << "xmm" << xmm;
  // xmm0 is written before it is read: no read of the register itself.
  for (const Inst& in : b.insts) EXPECT_FALSE(in.op == Opcode::GetXmm && in.aux == 0);
  EXPECT_TRUE(b.xmm_regions);
}

TEST(XmmRegion, OffWritesAtEachInstruction) {
  const GuestCode code{RUN_OF_FOUR};
  FrontendOptions options;
  options.fp_regions = false;
  const Block b = code.translate(options, 4);
  EXPECT_EQ(replays(b), (std::vector<unsigned>{0, 0, 0, 0}));
  EXPECT_EQ(xmm_writes(b).size(), 4u);
  EXPECT_FALSE(b.xmm_regions);
}

TEST(XmmRegion, EndsAtAnInstructionThatWritesAGpr) {
  // RUN_OF_FOUR, add rax, 1, then movapd xmm3, xmm0 alone; and again with
  // cvttsd2si eax, xmm0 (an SSE instruction writing a GPR) in between.
  const GuestCode with_add{RUN_OF_FOUR, 0x48, 0x83, 0xc0, 0x01, 0x66, 0x0f, 0x28, 0xd8};
  Block b = with_add.translate({}, 6);
  EXPECT_EQ(replays(b), (std::vector<unsigned>{1, 2, 3, 4, 0, 0}));
  const GuestCode with_cvt{RUN_OF_FOUR, 0xf2, 0x0f, 0x2c, 0xc0, 0x66, 0x0f, 0x28, 0xd8};
  b = with_cvt.translate({}, 6);
  EXPECT_EQ(replays(b), (std::vector<unsigned>{1, 2, 3, 4, 0, 0}));
  // The region's writes come before the instruction that ends it.
  size_t cvt_start = 0;
  for (size_t i = 0, k = 0; i < b.insts.size(); ++i)
    if (b.insts[i].insn_start && ++k == 5) cvt_start = i;
  for (const auto& [at, xmm] : xmm_writes(b)) {
    if (xmm == 3) continue;
    EXPECT_LT(at, cvt_start) << "xmm" << xmm;
  }
}

TEST(XmmRegion, OneInstructionIsNoRegion) {
  const GuestCode code{0xf2, 0x0f, 0x58, 0xc1};  // addsd xmm0, xmm1
  const Block b = code.translate({}, 1);
  EXPECT_EQ(replays(b), (std::vector<unsigned>{0}));
  EXPECT_FALSE(b.xmm_regions);
}

}  // namespace
}  // namespace phybin::x86
