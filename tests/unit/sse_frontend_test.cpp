// Tests of the SSE..SSE4.1 handlers of src/x86 (family_sse*.cpp, family_ssse3.cpp): the IR they
// make for one instruction each, from machine code in a buffer of this
// process (guest address == host address).  What the IR computes is tested
// by running guest programs (tests/guest/programs/sse_*.c); here: which
// vector op, element size, immediate and operand order, the string forms
// of MOVSD/CMPSD, the alignment check of the aligned moves, zeroing idioms,
// (the MMX forms: mmx_frontend_test.cpp).  Encodings checked with `as --64` and
// `objdump -d -M intel`.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <initializer_list>
#include <vector>

#include "common/error.h"
#include "common/guest_state.h"
#include "ir/ir.h"
#include "ir/passes.h"
#include "x86/aes_helpers.h"
#include "x86/frontend.h"
#include "x86/sse.h"

namespace phybin::x86 {
namespace {

using ir::Block;
using ir::Inst;
using ir::Opcode;
using ir::Type;
using ir::Value;
using ir::VecOp;

// One instruction followed by int3 (which ends the block untranslated).
class Insn {
 public:
  Insn(std::initializer_list<uint8_t> code) {
    bytes_.fill(0xcc);
    std::copy(code.begin(), code.end(), bytes_.begin());
  }
  uint64_t addr() const { return reinterpret_cast<uint64_t>(bytes_.data()); }
  Block translate(bool host_pmull = true, bool host_aes = true) const {
    Hooks hooks;
    hooks.syscall = [](GuestState*, uint64_t, uint64_t) -> uint64_t { return 0; };
    FrontendOptions options;
    options.host_pmull = host_pmull;
    options.host_aes = host_aes;
    return Frontend(hooks, options).translate(addr(), 1);
  }

 private:
  alignas(16) std::array<uint8_t, 64> bytes_;
};

std::vector<const Inst*> live(const Block& b, Opcode op) {
  std::vector<const Inst*> out;
  for (const Inst& in : b.insts)
    if (!in.dead && in.op == op) out.push_back(&in);
  return out;
}

const Inst* only_vec(const Block& b) {
  std::vector<const Inst*> ops = live(b, Opcode::VBinary), un = live(b, Opcode::VUnary);
  ops.insert(ops.end(), un.begin(), un.end());
  EXPECT_EQ(ops.size(), 1u) << ir::print_block(b);
  return ops.empty() ? nullptr : ops[0];
}

bool is_get_xmm(const Block& b, Value v, unsigned xmm) {
  return b.at(v).op == Opcode::GetXmm && b.at(v).aux == xmm;
}

TEST(SseFrontend, PxorOfItselfIsZero) {
  Block b = Insn({0x66, 0x0f, 0xef, 0xc0}).translate();  // pxor xmm0, xmm0
  auto sets = live(b, Opcode::SetXmm);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(b.at(sets[0]->args[0]).op, Opcode::VZero);
  EXPECT_TRUE(live(b, Opcode::GetXmm).empty());
}

TEST(SseFrontend, MovsdAndCmpsdKeepTheirStringForms) {
  Block rep_movsd = Insn({0xf3, 0xa5}).translate();
  EXPECT_EQ(live(rep_movsd, Opcode::CallHelper).size(), 1u);
  Block cmpsd = Insn({0xa7}).translate();
  EXPECT_EQ(live(cmpsd, Opcode::CallHelper).size(), 1u);

  Block movsd = Insn({0xf2, 0x0f, 0x10, 0xc1}).translate();  // movsd xmm0, xmm1
  const Inst* m = only_vec(movsd);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(static_cast<VecOp>(m->aux), VecOp::InsertLane);
  EXPECT_EQ(m->lane, 3);
  EXPECT_EQ(m->imm, 0u);
  EXPECT_TRUE(is_get_xmm(movsd, m->args[0], 0));
  EXPECT_TRUE(is_get_xmm(movsd, m->args[1], 1));

  Block cmpltsd = Insn({0xf2, 0x0f, 0xc2, 0xc1, 0x01}).translate();  // cmpltsd xmm0, xmm1
  const Inst* c = only_vec(cmpltsd);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(static_cast<VecOp>(c->aux), VecOp::FCmpScalar);
  EXPECT_EQ(c->lane, 3);
  EXPECT_EQ(c->imm, 1u);
}

TEST(SseFrontend, AlignedMovesCheckTheAddress) {
  Insn movaps({0x0f, 0x28, 0x00});  // movaps xmm0, [rax]
  Block b = movaps.translate();
  auto checks = live(b, Opcode::VCheckAlign);
  auto loads = live(b, Opcode::VLoad);
  ASSERT_EQ(checks.size(), 1u);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(checks[0]->imm, movaps.addr());  // the fault reports this instruction
  EXPECT_EQ(checks[0]->args[0], loads[0]->args[0]);
  EXPECT_LT(checks[0], loads[0]);
  EXPECT_EQ(loads[0]->imm, 16u);

  Block store = Insn({0x66, 0x0f, 0x7f, 0x50, 0x10}).translate();  // movdqa [rax+16], xmm2
  EXPECT_EQ(live(store, Opcode::VCheckAlign).size(), 1u);
  EXPECT_EQ(live(store, Opcode::VStore).size(), 1u);

  Block movups = Insn({0x0f, 0x10, 0x00}).translate();  // movups xmm0, [rax]
  EXPECT_TRUE(live(movups, Opcode::VCheckAlign).empty());
  EXPECT_EQ(live(movups, Opcode::VLoad).size(), 1u);
}

TEST(SseFrontend, PandnComplementsTheDestination) {
  Block b = Insn({0x66, 0x0f, 0xdf, 0xc1}).translate();  // pandn xmm0, xmm1: ~xmm0 & xmm1
  const Inst* v = only_vec(b);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(static_cast<VecOp>(v->aux), VecOp::AndNot);  // a & ~b
  EXPECT_TRUE(is_get_xmm(b, v->args[0], 1));
  EXPECT_TRUE(is_get_xmm(b, v->args[1], 0));
}

TEST(SseFrontend, GprMovesAndInserts) {
  Block pinsrw = Insn({0x66, 0x0f, 0xc4, 0xc8, 0x03}).translate();  // pinsrw xmm1, eax, 3
  const Inst* p = only_vec(pinsrw);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(static_cast<VecOp>(p->aux), VecOp::InsertGpr);
  EXPECT_EQ(p->lane, 1);
  EXPECT_EQ(p->imm, 3u);
  EXPECT_EQ(pinsrw.at(p->args[1]).type, Type::I16);

  Block movd = Insn({0x66, 0x0f, 0x7e, 0xc0}).translate();  // movd eax, xmm0
  const Inst* e = only_vec(movd);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(static_cast<VecOp>(e->aux), VecOp::Extract);
  EXPECT_EQ(e->type, Type::I32);

  Block movq = Insn({0x66, 0x48, 0x0f, 0x6e, 0xc0}).translate();  // movq xmm0, rax
  const Inst* f = only_vec(movq);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(static_cast<VecOp>(f->aux), VecOp::FromGpr);
  EXPECT_EQ(movq.at(f->args[0]).type, Type::I64);
}

TEST(SseFrontend, ConversionsToIntegerNameWidthAndRounding) {
  Block t = Insn({0xf2, 0x0f, 0x2c, 0xc0}).translate();  // cvttsd2si eax, xmm0
  const Inst* a = only_vec(t);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(static_cast<VecOp>(a->aux), VecOp::CvtFToInt);
  EXPECT_EQ(a->type, Type::I32);
  EXPECT_EQ(a->lane, 3);
  EXPECT_EQ(a->imm, 1u);  // truncates
  Block r = Insn({0xf2, 0x48, 0x0f, 0x2d, 0xc0}).translate();  // cvtsd2si rax, xmm0
  const Inst* b = only_vec(r);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->type, Type::I64);
  EXPECT_EQ(b->imm, 0u);  // rounds by MXCSR
}

TEST(SseFrontend, UcomisdSetsZfPfCfAndClearsTheOthers) {
  Block b = Insn({0x66, 0x0f, 0x2e, 0xc1}).translate();  // ucomisd xmm0, xmm1
  unsigned compares = 0;
  for (const Inst* v : live(b, Opcode::VBinary))
    if (static_cast<VecOp>(v->aux) == VecOp::FCmpFlag) {
      ++compares;
      EXPECT_EQ(v->imm & 0x100, 0u);  // quiet compare
    }
  EXPECT_EQ(compares, 3u);
  std::vector<uint8_t> flags;
  for (const Inst* s : live(b, Opcode::SetFlag)) flags.push_back(s->aux);
  std::sort(flags.begin(), flags.end());
  EXPECT_EQ(flags, (std::vector<uint8_t>{kCF, kPF, kAF, kZF, kSF, kOF}));
}

// ---- SSE3, SSSE3, SSE4.1

const Inst* vec_op(const Block& b, VecOp op) {
  for (const Inst& in : b.insts)
    if (!in.dead && (in.op == Opcode::VUnary || in.op == Opcode::VBinary || in.op == Opcode::VTernary) &&
        static_cast<VecOp>(in.aux) == op)
      return &in;
  ADD_FAILURE() << "no " << ir::vecop_name(op) << "\n" << ir::print_block(b);
  return nullptr;
}

TEST(Sse4Frontend, PshufbIndexesTheDestinationWithTheSource) {
  Block b = Insn({0x66, 0x0f, 0x38, 0x00, 0xca}).translate();  // pshufb xmm1, xmm2
  const Inst* v = vec_op(b, VecOp::ByteTable);
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(is_get_xmm(b, v->args[0], 1));  // the table
  EXPECT_TRUE(is_get_xmm(b, v->args[1], 2));  // the indexes
}

TEST(Sse4Frontend, PalignrPutsTheDestinationHigh) {
  Block b = Insn({0x66, 0x0f, 0x3a, 0x0f, 0xca, 0x05}).translate();  // palignr xmm1, xmm2, 5
  const Inst* v = vec_op(b, VecOp::AlignRight);
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(is_get_xmm(b, v->args[0], 1));
  EXPECT_TRUE(is_get_xmm(b, v->args[1], 2));
  EXPECT_EQ(v->imm, 5u);
}

TEST(Sse4Frontend, PmovzxbqFromMemoryLoadsTwoBytes) {
  Block b = Insn({0x66, 0x0f, 0x38, 0x32, 0x08}).translate();  // pmovzxbq xmm1, word [rax]
  auto loads = live(b, Opcode::VLoad);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0]->imm, 2u);
  const Inst* v = vec_op(b, VecOp::ExtendU);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->lane, 3);  // to quadwords
  EXPECT_EQ(v->imm, 0u);  // from bytes
}

TEST(Sse4Frontend, PtestSetsZfAndCfAndClearsTheOthers) {
  Block b = Insn({0x66, 0x0f, 0x38, 0x17, 0xca}).translate();  // ptest xmm1, xmm2
  std::vector<uint64_t> kinds;
  for (const Inst* v : live(b, Opcode::VBinary))
    if (static_cast<VecOp>(v->aux) == VecOp::TestZero) {
      kinds.push_back(v->imm);
      EXPECT_EQ(v->type, Type::I1);
      EXPECT_TRUE(is_get_xmm(b, v->args[0], 1));
      EXPECT_TRUE(is_get_xmm(b, v->args[1], 2));
    }
  std::sort(kinds.begin(), kinds.end());
  EXPECT_EQ(kinds, (std::vector<uint64_t>{0, 1}));  // ZF: a & b, CF: b & ~a
  std::vector<uint8_t> flags;
  for (const Inst* s : live(b, Opcode::SetFlag)) flags.push_back(s->aux);
  std::sort(flags.begin(), flags.end());
  EXPECT_EQ(flags, (std::vector<uint8_t>{kCF, kPF, kAF, kZF, kSF, kOF}));
}

TEST(Sse4Frontend, BlendvReadsXmm0AsTheMask) {
  Block b = Insn({0x66, 0x0f, 0x38, 0x15, 0xdc}).translate();  // blendvpd xmm3, xmm4, <xmm0>
  const Inst* v = vec_op(b, VecOp::BlendVar);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->op, Opcode::VTernary);
  EXPECT_EQ(v->lane, 3);
  EXPECT_TRUE(is_get_xmm(b, v->args[0], 3));
  EXPECT_TRUE(is_get_xmm(b, v->args[1], 4));
  EXPECT_TRUE(is_get_xmm(b, v->args[2], 0));
}

TEST(Sse4Frontend, InsertpsMovesOneFloatThenZeroes) {
  Block b = Insn({0x66, 0x0f, 0x3a, 0x21, 0xca, 0x9a}).translate();  // insertps xmm1, xmm2, 0x9a
  const Inst* ins = vec_op(b, VecOp::InsertLane);
  const Inst* zero = vec_op(b, VecOp::BlendImm);
  ASSERT_NE(ins, nullptr);
  ASSERT_NE(zero, nullptr);
  EXPECT_EQ(ins->imm, 1u | 2u << 8);  // element 2 of xmm2 into element 1
  EXPECT_EQ(zero->imm, 0x5u);         // keeps elements 0 and 2 (zmask 0xa)
  EXPECT_EQ(b.at(zero->args[0]).op, Opcode::VZero);
}

TEST(Sse4Frontend, RoundssKeepsTheImmediate) {
  Block b = Insn({0x66, 0x0f, 0x3a, 0x0a, 0xca, 0x09}).translate();  // roundss xmm1, xmm2, 9
  const Inst* v = only_vec(b);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(static_cast<VecOp>(v->aux), VecOp::FRoundScalar);
  EXPECT_EQ(v->lane, 2);
  EXPECT_EQ(v->imm, 9u);
}

TEST(Sse4Frontend, HorizontalOpsPairEvenWithOddElements) {
  Block phsubw = Insn({0x66, 0x0f, 0x38, 0x05, 0xca}).translate();  // phsubw xmm1, xmm2
  const Inst* sub = vec_op(phsubw, VecOp::Sub);
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(static_cast<VecOp>(phsubw.at(sub->args[0]).aux), VecOp::UnzipEven);
  EXPECT_EQ(static_cast<VecOp>(phsubw.at(sub->args[1]).aux), VecOp::UnzipOdd);

  Block haddps = Insn({0xf2, 0x0f, 0x7c, 0xca}).translate();  // haddps xmm1, xmm2
  const Inst* add = vec_op(haddps, VecOp::FAdd);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(haddps.at(add->args[0]).imm, 0x88u);  // elements 0, 2 of each operand first
  EXPECT_EQ(haddps.at(add->args[1]).imm, 0xDDu);
}

TEST(Sse4Frontend, PextrbToMemoryStoresOneByte) {
  Block b = Insn({0x66, 0x0f, 0x3a, 0x14, 0x08, 0x11}).translate();  // pextrb [rax], xmm1, 17
  const Inst* e = vec_op(b, VecOp::Extract);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->imm, 1u);  // index modulo 16
  EXPECT_EQ(e->type, Type::I8);
  EXPECT_EQ(live(b, Opcode::Store).size(), 1u);
}

TEST(Sse4Frontend, MpsadbwCallsTheVectorHelper) {
  Block b = Insn({0x66, 0x0f, 0x3a, 0x42, 0x08, 0x05}).translate();  // mpsadbw xmm1, [rax], 5
  auto calls = live(b, Opcode::CallHelper);
  ASSERT_EQ(calls.size(), 1u);
  const Inst& desc = b.at(calls[0]->args[0]);
  ASSERT_EQ(desc.op, Opcode::Const);
  EXPECT_EQ(desc.imm, uint64_t{1} << 8 | uint64_t{1} << 24 | uint64_t{5} << 32);  // xmm1, memory source, imm 5
}

TEST(Sse4Frontend, PclmulqdqIsInlineOnlyWithPmull) {
  Insn pclmul({0x66, 0x0f, 0x3a, 0x44, 0xca, 0x11});  // pclmulqdq xmm1, xmm2, 0x11
  Block inline_form = pclmul.translate(true);
  const Inst* v = vec_op(inline_form, VecOp::ClMul);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->imm, 0x11u);
  EXPECT_TRUE(live(inline_form, Opcode::CallHelper).empty());
  Block helper_form = pclmul.translate(false);
  EXPECT_EQ(live(helper_form, Opcode::CallHelper).size(), 1u);
}

TEST(Sse4Frontend, AesRoundsTakeStateThenKey) {
  Block b = Insn({0x66, 0x0f, 0x38, 0xdc, 0xca}).translate();  // aesenc xmm1, xmm2
  const Inst* v = vec_op(b, VecOp::AesEnc);
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(is_get_xmm(b, v->args[0], 1));
  EXPECT_TRUE(is_get_xmm(b, v->args[1], 2));
}

// Without the host's AES instructions each round is one helper call whose
// descriptor names the step (imm) and the operands.
TEST(Sse4Frontend, AesRoundsUseTheHelperWithoutHostAes) {
  struct Case {
    Insn insn;
    VecOp inline_op;
    uint64_t desc;
  };
  const uint64_t op = static_cast<uint64_t>(sse::VectorHelperOp::AesRound);
  const Case cases[] = {
      {Insn({0x66, 0x0f, 0x38, 0xdf, 0x08}), VecOp::AesDecLast,  // aesdeclast xmm1, [rax]
       op | 1u << 8 | 1u << 24 | uint64_t{static_cast<uint8_t>(sse::AesStep::DecLast)} << 32},
      {Insn({0x66, 0x0f, 0x38, 0xdb, 0xca}), VecOp::AesImc,  // aesimc xmm1, xmm2
       op | 1u << 8 | 2u << 16 | uint64_t{static_cast<uint8_t>(sse::AesStep::Imc)} << 32},
  };
  for (const Case& c : cases) {
    EXPECT_NE(vec_op(c.insn.translate(true, true), c.inline_op), nullptr);
    Block b = c.insn.translate(true, false);
    EXPECT_TRUE(live(b, Opcode::VBinary).empty() && live(b, Opcode::VUnary).empty());
    auto calls = live(b, Opcode::CallHelper);
    ASSERT_EQ(calls.size(), 1u);
    const Inst& desc = b.at(calls[0]->args[0]);
    ASSERT_EQ(desc.op, Opcode::Const);
    EXPECT_EQ(desc.imm, c.desc);
  }
}

}  // namespace
}  // namespace phybin::x86
