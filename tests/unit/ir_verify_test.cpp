// Tests of ir::verify on the vector opcodes: besides its opcode's row, a
// VUnary/VBinary/VTernary is checked against its VecOp's row of
// ir/vecops.inc (argument count, result and argument types).
#include <gtest/gtest.h>

#include <string>

#include "ir/builder.h"
#include "ir/ir.h"

namespace phybin::ir {
namespace {

struct Fixture {
  Block block;
  Builder b{block};
  Value x = b.emit(Opcode::GetXmm, Type::V128, kNoValue, kNoValue, kNoValue, 0, 0);
  Value y = b.emit(Opcode::GetXmm, Type::V128, kNoValue, kNoValue, kNoValue, 0, 1);
  Value z = b.emit(Opcode::GetXmm, Type::V128, kNoValue, kNoValue, kNoValue, 0, 2);

  Value vec(Opcode op, VecOp v, Type t, Value a, Value c = kNoValue, Value d = kNoValue) {
    return b.emit(op, t, a, c, d, 0, static_cast<uint8_t>(v));
  }
  // The verifier's complaint, without the "%N Opcode: " head.
  std::string problem() {
    const std::string p = verify(block);
    const auto colon = p.find(": ");
    return colon == std::string::npos ? p : p.substr(colon + 2);
  }
};

TEST(IrVerifyVector, WellFormedOperationsPass) {
  Fixture f;
  f.vec(Opcode::VBinary, VecOp::FAdd, Type::V128, f.x, f.y);
  f.vec(Opcode::VUnary, VecOp::MovMask, Type::I32, f.x);
  f.vec(Opcode::VTernary, VecOp::BlendVar, Type::V128, f.x, f.y, f.z);
  f.vec(Opcode::VBinary, VecOp::TestZero, Type::I1, f.x, f.y);
  f.vec(Opcode::VUnary, VecOp::Extract, Type::I16, f.x);
  EXPECT_EQ(verify(f.block), "");
}

TEST(IrVerifyVector, ArgumentCountIsTheVecOps) {
  Fixture f;
  f.vec(Opcode::VUnary, VecOp::FAdd, Type::V128, f.x);
  EXPECT_EQ(f.problem(), "FAdd: argument 1 missing");
  Fixture g;
  g.vec(Opcode::VBinary, VecOp::FSqrt, Type::V128, g.x, g.y);
  EXPECT_EQ(g.problem(), "FSqrt: argument 1 beyond the argument count (v128)");
  Fixture h;
  h.vec(Opcode::VTernary, VecOp::Add, Type::V128, h.x, h.y, h.z);
  EXPECT_EQ(h.problem(), "Add: argument 2 beyond the argument count (v128)");
}

// DenormCheck checks one operand or two (Opt).
TEST(IrVerifyVector, OptionalArgumentMayBeAbsent) {
  Fixture f;
  f.vec(Opcode::VUnary, VecOp::DenormCheck, Type::Void, f.x);
  f.vec(Opcode::VBinary, VecOp::DenormCheck, Type::Void, f.x, f.y);
  EXPECT_EQ(verify(f.block), "");
}

TEST(IrVerifyVector, TypesAreTheVecOps) {
  Fixture f;
  f.vec(Opcode::VBinary, VecOp::TestZero, Type::V128, f.x, f.y);
  EXPECT_EQ(f.problem(), "TestZero: result type v128");
  Fixture g;
  g.vec(Opcode::VUnary, VecOp::FromGpr, Type::V128, g.b.constant(Type::I16, 1));
  EXPECT_EQ(g.problem(), "FromGpr: argument 0 has the wrong type (i16)");
  Fixture h;
  h.vec(Opcode::VUnary, VecOp::FromGpr, Type::V128, h.b.constant(Type::I32, 1));
  h.vec(Opcode::VUnary, VecOp::CvtFToInt, Type::I64, h.x);
  EXPECT_EQ(verify(h.block), "");
}

TEST(IrVerifyVector, UnknownVecOpIsReported) {
  Fixture f;
  f.b.emit(Opcode::VUnary, Type::V128, f.x, kNoValue, kNoValue, 0, static_cast<uint8_t>(VecOp::Count));
  EXPECT_EQ(f.problem(), "unknown vector op");
}

}  // namespace
}  // namespace phybin::ir
