// Tests of src/x86/fault_flags: the register arithmetic the rule relies
// on, and what FaultFlagTracker asks of translated code for each class of
// flag writer (the flag values themselves are compared with the CPU by the
// guest test fault_flags).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "common/guest_state.h"
#include "x86/decoder.h"
#include "x86/fault_flags.h"

namespace phybin::x86 {
namespace {

TEST(FaultFlags, GprHoldingMatchesZydis) {
  for (int r = ZYDIS_REGISTER_NONE; r <= ZYDIS_REGISTER_MAX_VALUE; ++r) {
    const auto reg = static_cast<ZydisRegister>(r);
    const ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
    const int want = full >= ZYDIS_REGISTER_RAX && full <= ZYDIS_REGISTER_R15 ? full - ZYDIS_REGISTER_RAX : -1;
    EXPECT_EQ(gpr_holding(reg), want) << ZydisRegisterGetString(reg);
  }
}

// Walks `code` (instructions ending with one that may fault) and returns
// what the tracker says before the last one.
struct AtFault {
  uint64_t unrecoverable;
  int spill;
  bool before;
};

AtFault walk(std::vector<uint8_t> code) {
  Decoder decoder;
  std::vector<DecodedInsn> insns;
  for (size_t pc = 0; pc < code.size();) {
    DecodedInsn d;
    EXPECT_TRUE(decoder.decode(code.data() + pc, code.size() - pc, pc, d));
    insns.push_back(d);
    pc += d.info.length;
  }
  FaultFlagTracker tracker;
  for (size_t i = 0; i + 1 < insns.size(); ++i) tracker.step(insns[i]);
  EXPECT_TRUE(may_fault(insns.back(), false));
  AtFault at{tracker.unrecoverable(), -1, false};
  at.spill = tracker.spill_wanted(at.before);
  return at;
}

const std::vector<uint8_t> kLoad = {0x48, 0x8b, 0x06};  // mov rax, [rsi]

std::vector<uint8_t> then_load(std::vector<uint8_t> code) {
  code.insert(code.end(), kLoad.begin(), kLoad.end());
  return code;
}

TEST(FaultFlags, AddIsRedoneFromItsRegisters) {
  const AtFault at = walk(then_load({0x48, 0x01, 0xd9}));  // add rcx, rbx
  EXPECT_EQ(at.unrecoverable, 0u);
  EXPECT_EQ(at.spill, -1);
}

TEST(FaultFlags, ShiftSavesItsDestinationFirst) {
  const AtFault at = walk(then_load({0x48, 0xc1, 0xe1, 0x05}));  // shl rcx, 5
  EXPECT_EQ(at.unrecoverable, 0u);
  EXPECT_EQ(at.spill, RCX);
  EXPECT_TRUE(at.before);
}

TEST(FaultFlags, OverwrittenInputIsSavedAfterTheWriter) {
  // sub rcx, rbx; mov ebx, 5
  const AtFault at = walk(then_load({0x48, 0x29, 0xd9, 0xbb, 0x05, 0x00, 0x00, 0x00}));
  EXPECT_EQ(at.unrecoverable, 0u);
  EXPECT_EQ(at.spill, RBX);
  EXPECT_FALSE(at.before);
}

TEST(FaultFlags, TwoOverwrittenInputsKeepTheFlags) {
  // sub rcx, rbx; mov ebx, 5; mov ecx, 6
  const AtFault at =
      walk(then_load({0x48, 0x29, 0xd9, 0xbb, 0x05, 0x00, 0x00, 0x00, 0xb9, 0x06, 0x00, 0x00, 0x00}));
  EXPECT_EQ(at.unrecoverable, kArithFlags);
}

TEST(FaultFlags, AdcKeepsItsFlags) {
  const AtFault at = walk(then_load({0x48, 0x11, 0xd9}));  // adc rcx, rbx
  EXPECT_EQ(at.unrecoverable, kArithFlags);
  EXPECT_EQ(at.spill, -1);
}

TEST(FaultFlags, IncKeepsTheCarryOfTheWriterBefore) {
  const AtFault at = walk(then_load({0x48, 0x29, 0xd9, 0x48, 0xff, 0xc1}));  // sub rcx, rbx; inc rcx
  EXPECT_EQ(at.unrecoverable, kFlagMask(kCF));
}

TEST(FaultFlags, PopsAreUndoneForTheEpilogue) {
  // add rsp, 0x38; pop rbx; pop rbp
  const AtFault at = walk(then_load({0x48, 0x83, 0xc4, 0x38, 0x5b, 0x5d}));
  EXPECT_EQ(at.unrecoverable, 0u);
}

TEST(FaultFlags, ShiftByClFallsBackToTheCompareBefore) {
  // cmp rsi, rdi; shr rdx, cl
  const AtFault at = walk(then_load({0x48, 0x39, 0xfe, 0x48, 0xd3, 0xea}));
  EXPECT_EQ(at.unrecoverable, 0u);
  EXPECT_EQ(at.spill, RDX);
}

TEST(FaultFlags, HintsAndRegisterMovesDoNotFault) {
  Decoder decoder;
  DecodedInsn d;
  const uint8_t nop[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};  // nop [rax+rax]
  ASSERT_TRUE(decoder.decode(nop, sizeof nop, 0, d));
  EXPECT_FALSE(may_fault(d, true));
  const uint8_t mov[] = {0x48, 0x89, 0xd8};  // mov rax, rbx
  ASSERT_TRUE(decoder.decode(mov, sizeof mov, 0, d));
  EXPECT_FALSE(may_fault(d, true));
  const uint8_t push[] = {0x53};  // push rbx: a hidden stack store
  ASSERT_TRUE(decoder.decode(push, sizeof push, 0, d));
  EXPECT_TRUE(may_fault(d, false));
}

}  // namespace
}  // namespace phybin::x86
