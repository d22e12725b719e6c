// Tests of src/ir/fp_mode: which MXCSR values need which software help,
// what the builder puts around floating-point vector operations in each
// mode, and that unused FP operations survive dead-code elimination for
// their flags.  (What the NEON code computes is checked against the CPU by
// the difftest families sse_fp_ftz, sse_fp_daz, sse_fp_flush and, for DE,
// every SSE family.)
#include <gtest/gtest.h>

#include <vector>

#include "common/guest_state.h"
#include "ir/builder.h"
#include "ir/fp_mode.h"
#include "ir/passes.h"

namespace phybin::ir {
namespace {

std::vector<VecOp> vecops_of(const Block& block) {
  std::vector<VecOp> out;
  for (const Inst& in : block.insts)
    if (!in.dead && (in.op == Opcode::VUnary || in.op == Opcode::VBinary)) out.push_back(static_cast<VecOp>(in.aux));
  return out;
}

struct Fixture {
  Block block;
  Builder b{block};
  Value x = b.emit(Opcode::GetXmm, Type::V128, kNoValue, kNoValue, kNoValue, 0, 1);
  Value y = b.emit(Opcode::GetXmm, Type::V128, kNoValue, kNoValue, kNoValue, 0, 2);
};

TEST(FpMode, OfMxcsr) {
  EXPECT_FALSE(FpMode::of_mxcsr(0x1f80, false).any());
  EXPECT_EQ(FpMode::of_mxcsr(0x1f80, true), (FpMode{false, false, false, true}));
  // Both: FPCR.FZ does it, except min/max's returned operand.
  EXPECT_EQ(FpMode::of_mxcsr(0x9fc0, true), (FpMode{false, false, true, false}));
  EXPECT_EQ(FpMode::of_mxcsr(0x9f80, false), (FpMode{false, true, false, false}));   // FTZ alone
  EXPECT_EQ(FpMode::of_mxcsr(0x1fc0, true), (FpMode{true, false, true, false}));     // DAZ alone: no DE
  for (uint32_t bits = 0; bits < 16; ++bits) EXPECT_EQ(FpMode::of_bits(bits).bits(), bits);
}

TEST(FpMode, DefaultModeAddsNothing) {
  Fixture f;
  f.b.vec(VecOp::FAdd, Type::V128, 2, f.x, f.y);
  EXPECT_EQ(vecops_of(f.block), std::vector<VecOp>{VecOp::FAdd});
}

TEST(FpMode, DazAloneFlushesInputsOfScalarsInElementZeroOnly) {
  Fixture f;
  f.b.set_fp_mode(FpMode::of_mxcsr(0x1fc0, false));
  Value r = f.b.vec(VecOp::FAddScalar, Type::V128, 3, f.x, f.y);
  EXPECT_EQ(vecops_of(f.block), (std::vector<VecOp>{VecOp::FlushDenorm, VecOp::FlushDenorm, VecOp::FAddScalar}));
  const Inst& add = f.block.at(r);
  for (Value in : {add.args[0], add.args[1]}) {
    EXPECT_EQ(static_cast<VecOp>(f.block.at(in).aux), VecOp::FlushDenorm);
    EXPECT_EQ(f.block.at(in).imm, 1u);  // a's upper elements pass through unflushed
    EXPECT_EQ(f.block.at(in).lane, 3u);
  }
}

TEST(FpMode, FtzAloneFlushesResultsNotComparesOrMinMax) {
  Fixture f;
  f.b.set_fp_mode(FpMode::of_mxcsr(0x9f80, false));
  Value r = f.b.vec(VecOp::FMul, Type::V128, 2, f.x, f.y);
  EXPECT_EQ(static_cast<VecOp>(f.block.at(r).aux), VecOp::FlushTiny);
  f.b.vec(VecOp::FCmp, Type::V128, 2, f.x, f.y, 1);
  f.b.vec(VecOp::FMin, Type::V128, 2, f.x, f.y);
  f.b.vec(VecOp::CvtF32ToF64, Type::V128, 3, f.x);  // cannot be tiny
  Value narrowed = f.b.vec(VecOp::CvtFToFScalar, Type::V128, 2, f.x, f.y);  // cvtsd2ss can
  EXPECT_EQ(static_cast<VecOp>(f.block.at(narrowed).aux), VecOp::FlushTiny);
  EXPECT_EQ(vecops_of(f.block), (std::vector<VecOp>{VecOp::FMul, VecOp::FlushTiny, VecOp::FCmp, VecOp::FMin,
                                                     VecOp::CvtF32ToF64, VecOp::CvtFToFScalar, VecOp::FlushTiny}));
}

TEST(FpMode, BothFlushOnlyMinMaxInputs) {
  Fixture f;
  f.b.set_fp_mode(FpMode::of_mxcsr(0x9fc0, false));
  f.b.vec(VecOp::FAdd, Type::V128, 2, f.x, f.y);
  f.b.vec(VecOp::FMaxScalar, Type::V128, 2, f.x, f.y);
  EXPECT_EQ(vecops_of(f.block), (std::vector<VecOp>{VecOp::FAdd, VecOp::FlushDenorm, VecOp::FlushDenorm,
                                                     VecOp::FMaxScalar}));
}

TEST(FpMode, ExactDeChecksTheOperandsTheOperationReads) {
  Fixture f;
  f.b.set_fp_mode(FpMode::of_mxcsr(0x1f80, true));
  f.b.vec(VecOp::FDiv, Type::V128, 3, f.x, f.y);
  f.b.vec(VecOp::FSqrtScalar, Type::V128, 2, f.x, f.y);
  f.b.vec(VecOp::CvtF32ToF64, Type::V128, 3, f.x);
  f.b.vec(VecOp::CvtFToInt, Type::I32, 2, f.x);  // cvtss2si raises no DE
  std::vector<const Inst*> checks;
  for (const Inst& in : f.block.insts)
    if (in.op == Opcode::VBinary || in.op == Opcode::VUnary)
      if (static_cast<VecOp>(in.aux) == VecOp::DenormCheck) checks.push_back(&in);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0]->imm, kCheckAll | kCheckDiv);
  EXPECT_EQ(checks[0]->args[1], f.y);
  EXPECT_EQ(checks[1]->imm, kCheckLow1 | kCheckSqrt);
  EXPECT_EQ(checks[1]->args[0], f.y);  // sqrtss reads b[0]
  EXPECT_EQ(checks[1]->args[1], kNoValue);
  EXPECT_EQ(checks[2]->imm, uint64_t{kCheckLow2});
  EXPECT_EQ(checks[2]->lane, 2u);  // the inputs are floats
}

TEST(FpMode, UnusedFloatingPointOperationsStayForTheirFlags) {
  Fixture f;
  Value add = f.b.vec(VecOp::FAdd, Type::V128, 2, f.x, f.y);
  Value shuffle = f.b.vec(VecOp::ZipLo, Type::V128, 2, f.x, f.y);
  Value flag = f.b.vec(VecOp::FCmpFlag, Type::I1, 2, f.x, f.y, kZF);
  Value kept = f.b.vec(VecOp::FCmpFlag, Type::I1, 2, f.x, f.y, kZF | kKeepCompare);
  // cvtsi2sd whose register is written again at once: still inexact (PE)
  Value from_int = f.b.vec(VecOp::CvtIntToFScalar, Type::V128, 3, f.x, f.b.constant(Type::I64, 3));
  Value from_ints = f.b.vec(VecOp::CvtI32ToF32, Type::V128, 2, f.x);  // cvtdq2ps
  eliminate_dead_code(f.block);
  EXPECT_FALSE(f.block.at(from_int).dead);
  EXPECT_FALSE(f.block.at(from_ints).dead);
  EXPECT_FALSE(f.block.at(add).dead);
  EXPECT_TRUE(f.block.at(shuffle).dead);
  EXPECT_TRUE(f.block.at(flag).dead);  // comis + jcc: the fused compare has its flags
  EXPECT_FALSE(f.block.at(kept).dead);
}

}  // namespace
}  // namespace phybin::ir
