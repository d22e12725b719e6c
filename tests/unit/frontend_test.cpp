// Tests of src/x86: the frontend translates x86-64 machine code that sits in
// a buffer of this (x86-64 host) process -- guest address == host address --
// and the tests check the IR it makes: block boundaries and exits, operand
// widths and extensions, partial register writes, flag fusion, flag
// liveness at exits, and what happens with code it cannot translate.
// The backend emits AArch64, so nothing is executed here; every encoding
// below was checked with `as --64` and `objdump -d -M intel`.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/guest_state.h"
#include "ir/ir.h"
#include "ir/passes.h"
#include "x86/frontend.h"
#include "x86/lazy_flags.h"

namespace phybin::x86 {
namespace {

using ir::Block;
using ir::Cond;
using ir::ExitKind;
using ir::Inst;
using ir::Opcode;
using ir::Type;
using ir::Value;

constexpr uint64_t kDFOnly = kFlagMask(kDF);
constexpr uint64_t kAllLive = kArithFlags | kFlagMask(kDF);

// Guest code in a buffer of this process.  Bytes not set are int3, which
// the flag-liveness scan walks through as "unknown", so falling off a
// test's code keeps flags live instead of making them dead by accident.
class Code {
 public:
  Code() { bytes_.fill(0xcc); }
  Code(std::initializer_list<uint8_t> code) : Code() { put(0, code); }

  Code& put(size_t offset, std::initializer_list<uint8_t> code) {
    EXPECT_LE(offset + code.size(), bytes_.size());
    std::copy(code.begin(), code.end(), bytes_.begin() + offset);
    return *this;
  }
  uint64_t addr(size_t offset = 0) const { return reinterpret_cast<uint64_t>(bytes_.data()) + offset; }
  // Every block the tests translate must pass the IR verifier, before and
  // after the passes.  Blocks end at their first branch unless asked
  // (the tests of one exit; superblocks have their own).
  Block translate(unsigned max_insns = 64, bool side_exits = false) const {
    return check(Frontend(Hooks{}, options(side_exits)).translate(addr(), max_insns));
  }
  static FrontendOptions options(bool side_exits) {
    FrontendOptions o;
    o.side_exits = side_exits;
    return o;
  }
  static Block check(Block b) {
    EXPECT_EQ(ir::verify(b), "") << ir::print_block(b);
    Block optimized = b;
    ir::optimize(optimized);
    EXPECT_EQ(ir::verify(optimized), "") << ir::print_block(optimized);
    return b;
  }

 private:
  alignas(16) std::array<uint8_t, 512> bytes_;
};

std::vector<Value> live_of(const Block& block, Opcode op) {
  std::vector<Value> out;
  for (Value i = 0; i < block.insts.size(); ++i)
    if (!block.insts[i].dead && block.insts[i].op == op) out.push_back(i);
  return out;
}

// The value the last live SetReg of `reg` writes; kNoValue when none does.
Value written(const Block& block, uint8_t reg) {
  Value v = ir::kNoValue;
  for (const Inst& in : block.insts)
    if (!in.dead && in.op == Opcode::SetReg && in.aux == reg) v = in.args[0];
  return v;
}

// Checks that `v` is a GetReg of `reg`.
::testing::AssertionResult IsGetReg(const Block& block, Value v, uint8_t reg) {
  if (v == ir::kNoValue) return ::testing::AssertionFailure() << "no value";
  const Inst& in = block.at(v);
  if (in.op != Opcode::GetReg || in.aux != reg)
    return ::testing::AssertionFailure() << "%" << v << " is " << ir::opcode_name(in.op) << " aux " << int(in.aux)
                                         << ", not GetReg " << int(reg) << "\n" << ir::print_block(block);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult IsConst(const Block& block, Value v, Type type, uint64_t imm) {
  if (v == ir::kNoValue) return ::testing::AssertionFailure() << "no value";
  const Inst& in = block.at(v);
  if (in.op != Opcode::Const || in.type != type || in.imm != imm)
    return ::testing::AssertionFailure() << "%" << v << " is " << ir::opcode_name(in.op) << ":"
                                         << ir::type_name(in.type) << " imm " << std::hex << in.imm
                                         << ", want Const:" << ir::type_name(type) << " " << imm << "\n"
                                         << ir::print_block(block);
  return ::testing::AssertionSuccess();
}

// A guest address derived from the instruction's own (relocatable).
::testing::AssertionResult IsGuestAddr(const Block& block, Value v, uint64_t address) {
  if (v == ir::kNoValue) return ::testing::AssertionFailure() << "no value";
  const Inst& in = block.at(v);
  if (in.op != Opcode::GuestAddr || in.type != Type::I64 || in.imm != address)
    return ::testing::AssertionFailure() << "%" << v << " is " << ir::opcode_name(in.op) << " imm " << std::hex
                                         << in.imm << ", want GuestAddr " << address << "\n" << ir::print_block(block);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult IsOp(const Block& block, Value v, Opcode op, Type type) {
  if (v == ir::kNoValue) return ::testing::AssertionFailure() << "no value";
  const Inst& in = block.at(v);
  if (in.op != op || in.type != type)
    return ::testing::AssertionFailure() << "%" << v << " is " << ir::opcode_name(in.op) << ":"
                                         << ir::type_name(in.type) << ", want " << ir::opcode_name(op) << ":"
                                         << ir::type_name(type) << "\n" << ir::print_block(block);
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// Block boundaries and exits

TEST(FrontendBlock, EndsAtJmpWithTheTargetFromTheBufferAddress) {
  Code code{0x89, 0xd8,   // mov eax, ebx
            0xeb, 0x05,   // jmp +5
            0x48, 0x01, 0xd8};  // add rax, rbx: not part of the block
  Block b = code.translate();
  EXPECT_EQ(b.guest_start, code.addr());
  EXPECT_EQ(b.guest_end, code.addr(4));
  EXPECT_EQ(b.guest_insns, 2u);
  EXPECT_EQ(b.exit.kind, ExitKind::Jump);
  EXPECT_EQ(b.exit.target, code.addr(9));
  EXPECT_FALSE(b.exit.abi_boundary);
  EXPECT_TRUE(live_of(b, Opcode::Add).empty());
}

TEST(FrontendBlock, BackwardJumpToItselfTerminatesTheLivenessScan) {
  Code code{0x90, 0x90, 0xeb, 0xfc};  // nop; nop; jmp -4 (to the first nop)
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 3u);
  EXPECT_EQ(b.exit.target, code.addr());
  EXPECT_EQ(b.exit.live_flags, kAllLive);  // a loop with no flag writer: unknown
}

TEST(FrontendBlock, EndsAtJccWithTargetAndFallthrough) {
  Code code{0x48, 0x39, 0xf7,  // cmp rdi, rsi
            0x7c, 0x10};       // jl +0x10
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 2u);
  EXPECT_EQ(b.guest_end, code.addr(5));
  ASSERT_EQ(b.exit.kind, ExitKind::Branch);
  EXPECT_EQ(b.exit.target, code.addr(0x15));
  EXPECT_EQ(b.exit.fallthrough, code.addr(5));
  EXPECT_NE(b.exit.cond, ir::kNoValue);
}

TEST(FrontendBlock, Rel32JccTarget) {
  Code code{0x0f, 0x8c, 0x00, 0x01, 0x00, 0x00};  // jl +0x100
  Block b = code.translate();
  ASSERT_EQ(b.exit.kind, ExitKind::Branch);
  EXPECT_EQ(b.exit.target, code.addr(0x106));
  EXPECT_EQ(b.exit.fallthrough, code.addr(6));
}

TEST(FrontendBlock, DirectCallPushesTheReturnAddress) {
  Code code{0xe8, 0x10, 0x00, 0x00, 0x00};  // call +0x10
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 1u);
  EXPECT_EQ(b.exit.kind, ExitKind::Jump);
  EXPECT_EQ(b.exit.target, code.addr(0x15));
  EXPECT_TRUE(b.exit.abi_boundary);
  EXPECT_EQ(b.exit.live_flags, kDFOnly);

  std::vector<Value> stores = live_of(b, Opcode::Store);
  ASSERT_EQ(stores.size(), 1u);
  const Inst& store = b.at(stores[0]);
  EXPECT_TRUE(IsGuestAddr(b, store.args[1], code.addr(5)));
  Value sp = written(b, RSP);
  EXPECT_EQ(store.args[0], sp);
  ASSERT_TRUE(IsOp(b, sp, Opcode::Sub, Type::I64));
  EXPECT_TRUE(IsGetReg(b, b.at(sp).args[0], RSP));
  EXPECT_TRUE(IsConst(b, b.at(sp).args[1], Type::I64, 8));
}

TEST(FrontendBlock, IndirectCall) {
  Code code{0xff, 0xd0};  // call rax
  Block b = code.translate();
  EXPECT_EQ(b.exit.kind, ExitKind::Indirect);
  EXPECT_TRUE(IsGetReg(b, b.exit.address, RAX));
  EXPECT_TRUE(b.exit.abi_boundary);
  EXPECT_EQ(b.exit.live_flags, kDFOnly);
  ASSERT_EQ(live_of(b, Opcode::Store).size(), 1u);
  EXPECT_TRUE(IsGuestAddr(b, b.at(live_of(b, Opcode::Store)[0]).args[1], code.addr(2)));
}

TEST(FrontendBlock, RetPopsTheTarget) {
  Code code{0xc3};
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 1u);
  EXPECT_EQ(b.guest_end, code.addr(1));
  ASSERT_EQ(b.exit.kind, ExitKind::Return);
  EXPECT_TRUE(b.exit.abi_boundary);
  EXPECT_EQ(b.exit.live_flags, kDFOnly);
  ASSERT_TRUE(IsOp(b, b.exit.address, Opcode::Load, Type::I64));
  Value sp = b.at(b.exit.address).args[0];
  EXPECT_TRUE(IsGetReg(b, sp, RSP));
  Value new_sp = written(b, RSP);
  ASSERT_TRUE(IsOp(b, new_sp, Opcode::Add, Type::I64));
  EXPECT_EQ(b.at(new_sp).args[0], sp);
  EXPECT_TRUE(IsConst(b, b.at(new_sp).args[1], Type::I64, 8));
}

TEST(FrontendBlock, RetImmReleasesTheArguments) {
  Code code{0xc2, 0x10, 0x00};  // ret 16
  Block b = code.translate();
  ir::optimize(b);
  // The pop's RSP + 8 and the release of 16 are reassociated into one add.
  Value sp = written(b, RSP);
  ASSERT_TRUE(IsOp(b, sp, Opcode::Add, Type::I64));
  EXPECT_TRUE(IsConst(b, b.at(sp).args[1], Type::I64, 24));
  EXPECT_TRUE(IsGetReg(b, b.at(sp).args[0], RSP));
  EXPECT_EQ(live_of(b, Opcode::SetReg).size(), 1u);
}

// Compilers never carry flags across an indirect jump (switch tables, tail
// calls): by default no arithmetic flag is live there; PHYBIN_STRICT_FLAGS
// (FrontendOptions::strict_flags) keeps them all.
size_t count_op(const Block& b, Opcode op) {
  return static_cast<size_t>(
      std::count_if(b.insts.begin(), b.insts.end(), [op](const Inst& in) { return !in.dead && in.op == op; }));
}

const Inst* find_op(const Block& b, Opcode op) {
  for (const Inst& in : b.insts)
    if (!in.dead && in.op == op) return &in;
  return nullptr;
}

// Flags are live across `jmp reg`; a block that only passes them on reads
// them on entry.
TEST(FrontendBlock, IndirectJumpKeepsFlags) {
  Code code{0xff, 0xe0};  // jmp rax
  Block b = code.translate();
  EXPECT_EQ(b.exit.kind, ExitKind::Indirect);
  EXPECT_TRUE(IsGetReg(b, b.exit.address, RAX));
  EXPECT_FALSE(b.exit.abi_boundary);
  EXPECT_EQ(b.exit.live_flags, kAllLive);
  EXPECT_EQ(b.exit.lazy_flags_record, 0u);
  EXPECT_EQ(b.flags_live_in, kArithFlags);
}

// add rax, rdx; jmp rax (a switch table's dispatch): the add's flags are
// a lazy record, none computed.  The result is in RAX and b in RDX at the
// jump: the record names them and the block stores nothing.
TEST(FrontendBlock, IndirectJumpKeepsTheLastFlagsLazily) {
  Code code{0x48, 0x01, 0xd0, 0xff, 0xe0};
  Block b = code.translate();
  ir::optimize(b);
  const Inst* lazy = find_op(b, Opcode::LazyFlags);
  ASSERT_NE(lazy, nullptr) << ir::print_block(b);
  EXPECT_EQ(lazy->imm, kArithFlags);
  EXPECT_EQ(lazy->args[0], ir::kNoValue);
  EXPECT_EQ(count_op(b, Opcode::SetFlag), 0u) << ir::print_block(b);
  using namespace lazy_record;
  EXPECT_EQ(b.exit.lazy_flags_record, with_y(with_x(of(LazyOp::Add, 8), RAX), RDX) | kResultInX);
  EXPECT_EQ(b.flags_live_in, 0u);
}

// A memory operand, or a register written after the flag writer: the
// operands are stored.
TEST(FrontendBlock, LazyRecordStoresOperandsNotInRegisters) {
  for (Code code : {Code{0x48, 0x03, 0x02, 0xff, 0xe0},               // add rax, [rdx]; jmp rax
                    Code{0x48, 0x39, 0xd0, 0x48, 0x89, 0xc8, 0xff, 0xe0}}) {  // cmp rax, rdx; mov rax, rcx; jmp rax
    Block b = code.translate();
    ir::optimize(b);
    const Inst* lazy = find_op(b, Opcode::LazyFlags);
    ASSERT_NE(lazy, nullptr) << ir::print_block(b);
    EXPECT_NE(lazy->args[0], ir::kNoValue);
    EXPECT_NE(lazy->args[1], ir::kNoValue);
    EXPECT_TRUE(b.exit.lazy_flags_record & lazy_record::kInMemory);
  }
}

// inc keeps CF: the record stands for the other five, and CF comes in.
TEST(FrontendBlock, LazyIncKeepsCarryLive) {
  Code code{0xff, 0xc0, 0xff, 0xe0};  // inc eax; jmp rax
  Block b = code.translate();
  const Inst* lazy = find_op(b, Opcode::LazyFlags);
  ASSERT_NE(lazy, nullptr) << ir::print_block(b);
  EXPECT_EQ(lazy->imm, kArithFlags & ~kFlagMask(kCF));
  using namespace lazy_record;
  EXPECT_EQ(b.exit.lazy_flags_record, with_x(of(LazyOp::Inc, 4), RAX) | kResultInX);
  EXPECT_EQ(b.flags_live_in, kFlagMask(kCF));
}

// Flags from a shift, or read before the jump (pushf), are computed.
TEST(FrontendBlock, IndirectJumpComputesFlagsItCannotKeepLazily) {
  for (Code code : {Code{0x48, 0xd1, 0xe0, 0xff, 0xe0},           // shl rax, 1; jmp rax
                    Code{0x48, 0x01, 0xd0, 0x9c, 0x58, 0xff, 0xe1}}) {  // add; pushf; pop rax; jmp rcx
    Block b = code.translate();
    ir::optimize(b);
    EXPECT_EQ(count_op(b, Opcode::LazyFlags), 0u) << ir::print_block(b);
    EXPECT_EQ(b.exit.lazy_flags_record, 0u);
  }
}

// Calls and returns: no flag has a meaning across them (System V), unless
// PHYBIN_STRICT_FLAGS keeps them for assembly that returns flags.
TEST(FrontendBlock, ReturnFlagsDeadUnlessStrict) {
  Code code{0x48, 0x01, 0xd0, 0xc3};  // add rax, rdx; ret
  Block b = code.translate();
  EXPECT_EQ(b.exit.kind, ExitKind::Return);
  EXPECT_EQ(b.exit.live_flags, kDFOnly);
  EXPECT_EQ(b.exit.lazy_flags_record, 0u);
  Hooks hooks;
  Frontend strict(hooks, FrontendOptions{true});
  Block s = strict.translate(code.addr(), 64);
  EXPECT_EQ(s.exit.live_flags, kAllLive);
  EXPECT_EQ(s.exit.lazy_flags_record, 0u);
}

TEST(FrontendBlock, StopsAtMaxInsns) {
  Code code{0x90, 0x90, 0x90, 0xc3};
  Block b = code.translate(2);
  EXPECT_EQ(b.guest_insns, 2u);
  EXPECT_EQ(b.guest_end, code.addr(2));
  EXPECT_EQ(b.exit.kind, ExitKind::Jump);
  EXPECT_EQ(b.exit.target, code.addr(2));
}

TEST(FrontendBlock, StraightLineCodeRunsUpToTheBranch) {
  Code code{0x89, 0xd8, 0x48, 0x01, 0xd8, 0x48, 0x29, 0xd1, 0xc3};  // mov; add; sub; ret
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 4u);
  EXPECT_EQ(b.guest_end, code.addr(9));
  EXPECT_EQ(b.exit.kind, ExitKind::Return);
}

TEST(FrontendBlock, DisassemblesTheBlock) {
  Code code{0x89, 0xd8, 0xc3};
  Frontend fe{Hooks{}};
  std::string text = fe.disassemble(code.addr(), code.addr(3));
  EXPECT_NE(text.find("mov eax, ebx"), std::string::npos) << text;
  EXPECT_NE(text.find("ret"), std::string::npos) << text;
}

// ---------------------------------------------------------------------------
// IR of single instructions

TEST(FrontendIr, Mov32ZeroExtends) {
  Block b = Code{0x89, 0xd8, 0xc3}.translate();  // mov eax, ebx
  Value v = written(b, RAX);
  ASSERT_TRUE(IsOp(b, v, Opcode::ZExt, Type::I64));
  Value low = b.at(v).args[0];
  ASSERT_TRUE(IsOp(b, low, Opcode::Trunc, Type::I32));
  EXPECT_TRUE(IsGetReg(b, b.at(low).args[0], RBX));
}

TEST(FrontendIr, Mov64CopiesTheRegister) {
  Block b = Code{0x48, 0x89, 0xd8, 0xc3}.translate();  // mov rax, rbx
  EXPECT_TRUE(IsGetReg(b, written(b, RAX), RBX));
}

TEST(FrontendIr, ImmediateIsSignExtendedToTheOperandWidth64) {
  Block b = Code{0x48, 0x83, 0xe4, 0xf0}.translate(1);  // and rsp, -16
  Value v = written(b, RSP);
  ASSERT_TRUE(IsOp(b, v, Opcode::And, Type::I64));
  EXPECT_TRUE(IsGetReg(b, b.at(v).args[0], RSP));
  EXPECT_TRUE(IsConst(b, b.at(v).args[1], Type::I64, 0xfffffffffffffff0));
}

TEST(FrontendIr, ImmediateIsSignExtendedToTheOperandWidth32) {
  Block b = Code{0x83, 0xe4, 0xf0}.translate(1);  // and esp, -16
  Value v = written(b, RSP);
  ASSERT_TRUE(IsOp(b, v, Opcode::ZExt, Type::I64));
  Value op = b.at(v).args[0];
  ASSERT_TRUE(IsOp(b, op, Opcode::And, Type::I32));
  EXPECT_TRUE(IsConst(b, b.at(op).args[1], Type::I32, 0xfffffff0));
}

TEST(FrontendIr, ImmediateIsSignExtendedToTheOperandWidth16) {
  Block b = Code{0x66, 0x83, 0xc0, 0xff, 0xc3}.translate();  // add ax, -1
  Value v = written(b, RAX);
  ASSERT_TRUE(IsOp(b, v, Opcode::InsertBits, Type::I64));
  Value sum = b.at(v).args[1];
  ASSERT_TRUE(IsOp(b, sum, Opcode::Add, Type::I16));
  EXPECT_TRUE(IsConst(b, b.at(sum).args[1], Type::I16, 0xffff));
}

TEST(FrontendIr, MovImm32SignExtendsTo64) {
  Block b = Code{0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff, 0xc3}.translate();  // mov rax, -1
  EXPECT_TRUE(IsConst(b, written(b, RAX), Type::I64, ~uint64_t{0}));
}

TEST(FrontendIr, ByteMemoryOperandWithImmediate) {
  Block b = Code{0x80, 0x07, 0xff, 0xc3}.translate();  // add byte ptr [rdi], -1
  std::vector<Value> stores = live_of(b, Opcode::Store);
  ASSERT_EQ(stores.size(), 1u);
  const Inst& store = b.at(stores[0]);
  EXPECT_TRUE(IsGetReg(b, store.args[0], RDI));
  ASSERT_TRUE(IsOp(b, store.args[1], Opcode::Add, Type::I8));
  const Inst& sum = b.at(store.args[1]);
  ASSERT_TRUE(IsOp(b, sum.args[0], Opcode::Load, Type::I8));
  EXPECT_EQ(b.at(sum.args[0]).args[0], store.args[0]);  // same address value
  EXPECT_TRUE(IsConst(b, sum.args[1], Type::I8, 0xff));
}

// Partial writes keep the rest of the register: InsertBits into the old value.
void expect_merge(const Block& b, uint8_t reg, unsigned lsb, unsigned width, Type value_type) {
  Value v = written(b, reg);
  ASSERT_TRUE(IsOp(b, v, Opcode::InsertBits, Type::I64));
  const Inst& ins = b.at(v);
  EXPECT_TRUE(IsGetReg(b, ins.args[0], reg));
  EXPECT_EQ(ins.aux, lsb);
  EXPECT_EQ(ins.imm, width);
  EXPECT_EQ(b.at(ins.args[1]).type, value_type);
}

TEST(FrontendIr, MovAlMergesTheLowByte) {
  Block b = Code{0x88, 0xd8, 0xc3}.translate();  // mov al, bl
  expect_merge(b, RAX, 0, 8, Type::I8);
  Value src = b.at(written(b, RAX)).args[1];
  ASSERT_TRUE(IsOp(b, src, Opcode::Trunc, Type::I8));
  EXPECT_TRUE(IsGetReg(b, b.at(src).args[0], RBX));
}

TEST(FrontendIr, MovAhMergesBits8To15) {
  Block b = Code{0x88, 0xdc, 0xc3}.translate();  // mov ah, bl
  expect_merge(b, RAX, 8, 8, Type::I8);
}

TEST(FrontendIr, MovAxMergesTheLowWord) {
  Block b = Code{0x66, 0x89, 0xd8, 0xc3}.translate();  // mov ax, bx
  expect_merge(b, RAX, 0, 16, Type::I16);
}

TEST(FrontendIr, MovBhAhReadsAndWritesHighBytes) {
  Block b = Code{0x88, 0xe7, 0xc3}.translate();  // mov bh, ah
  expect_merge(b, RBX, 8, 8, Type::I8);
  Value src = b.at(written(b, RBX)).args[1];
  ASSERT_TRUE(IsOp(b, src, Opcode::Trunc, Type::I8));
  Value bits = b.at(src).args[0];
  ASSERT_TRUE(IsOp(b, bits, Opcode::ExtractBits, Type::I32));
  EXPECT_EQ(b.at(bits).aux, 8);
  EXPECT_EQ(b.at(bits).imm, 8u);
  EXPECT_TRUE(IsGetReg(b, b.at(bits).args[0], RAX));
}

TEST(FrontendIr, MovsxSignExtendsThenZeroExtends32) {
  Block b = Code{0x0f, 0xbe, 0xc3, 0xc3}.translate();  // movsx eax, bl
  Value v = written(b, RAX);
  ASSERT_TRUE(IsOp(b, v, Opcode::ZExt, Type::I64));
  Value s = b.at(v).args[0];
  ASSERT_TRUE(IsOp(b, s, Opcode::SExt, Type::I32));
  EXPECT_TRUE(IsOp(b, b.at(s).args[0], Opcode::Trunc, Type::I8));
}

TEST(FrontendIr, XorZeroingIdiomDoesNotReadTheRegister) {
  Block b = Code{0x31, 0xc0, 0xc3}.translate();  // xor eax, eax
  EXPECT_TRUE(IsConst(b, written(b, RAX), Type::I64, 0));
  for (Value g : live_of(b, Opcode::GetReg)) EXPECT_NE(b.at(g).aux, RAX);
}

TEST(FrontendIr, ScaledIndexAddress) {
  Block b = Code{0x48, 0x8b, 0x44, 0xcb, 0x10, 0xc3}.translate();  // mov rax, [rbx+rcx*8+0x10]
  Value v = written(b, RAX);
  ASSERT_TRUE(IsOp(b, v, Opcode::Load, Type::I64));
  Value addr = b.at(v).args[0];
  ASSERT_TRUE(IsOp(b, addr, Opcode::Add, Type::I64));
  EXPECT_TRUE(IsConst(b, b.at(addr).args[1], Type::I64, 0x10));
  Value base_index = b.at(addr).args[0];
  ASSERT_TRUE(IsOp(b, base_index, Opcode::Add, Type::I64));
  EXPECT_TRUE(IsGetReg(b, b.at(base_index).args[0], RBX));
  Value scaled = b.at(base_index).args[1];
  ASSERT_TRUE(IsOp(b, scaled, Opcode::Shl, Type::I64));
  EXPECT_TRUE(IsGetReg(b, b.at(scaled).args[0], RCX));
  EXPECT_TRUE(IsConst(b, b.at(scaled).args[1], Type::I64, 3));
}

TEST(FrontendIr, RipRelativeAddressIsAGuestAddress) {
  Code code{0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3};  // mov rax, [rip+0x100]
  Block b = code.translate();
  Value v = written(b, RAX);
  ASSERT_TRUE(IsOp(b, v, Opcode::Load, Type::I64));
  EXPECT_TRUE(IsGuestAddr(b, b.at(v).args[0], code.addr(7 + 0x100)));
}

// syscall's RCX is the next instruction's address, relocatable too.
TEST(FrontendIr, SyscallReturnAddressIsAGuestAddress) {
  Code code{0x0f, 0x05, 0xc3};  // syscall
  Hooks hooks;
  hooks.syscall = [](GuestState*, uint64_t, uint64_t) -> uint64_t { return 0; };
  Block b = Frontend(hooks).translate(code.addr(), 1);
  EXPECT_TRUE(IsGuestAddr(b, written(b, RCX), code.addr(2)));
}

TEST(FrontendIr, PushStoresBelowTheStackPointer) {
  Block b = Code{0x53, 0xc3}.translate(1);  // push rbx
  std::vector<Value> stores = live_of(b, Opcode::Store);
  ASSERT_EQ(stores.size(), 1u);
  const Inst& store = b.at(stores[0]);
  EXPECT_TRUE(IsGetReg(b, store.args[1], RBX));
  EXPECT_EQ(store.args[0], written(b, RSP));
  ASSERT_TRUE(IsOp(b, store.args[0], Opcode::Sub, Type::I64));
  EXPECT_TRUE(IsConst(b, b.at(store.args[0]).args[1], Type::I64, 8));
}

TEST(FrontendIr, Push16StoresAWordTwoBytesDown) {
  Block b = Code{0x66, 0x53, 0xc3}.translate(1);  // push bx
  std::vector<Value> stores = live_of(b, Opcode::Store);
  ASSERT_EQ(stores.size(), 1u);
  const Inst& store = b.at(stores[0]);
  EXPECT_EQ(b.at(store.args[1]).type, Type::I16);
  EXPECT_EQ(store.args[0], written(b, RSP));
  ASSERT_TRUE(IsOp(b, store.args[0], Opcode::Sub, Type::I64));
  EXPECT_TRUE(IsConst(b, b.at(store.args[0]).args[1], Type::I64, 2));
}

TEST(FrontendIr, EnterWithNestingCopiesTheOuterFramePointers) {
  Block b = Code{0xc8, 0x10, 0x00, 0x03, 0xc3}.translate(1);  // enter 16, 3
  // push rbp, two frame pointers read below the old rbp, the new frame
  // pointer; then the byte at the final RSP read and written back (the
  // CPU's write check of the frame)
  std::vector<Value> stores = live_of(b, Opcode::Store);
  ASSERT_EQ(stores.size(), 5u);
  std::vector<Value> loads = live_of(b, Opcode::Load);
  ASSERT_EQ(loads.size(), 3u);
  const Inst& probe = b.at(stores[4]);
  EXPECT_EQ(probe.args[0], written(b, RSP));
  EXPECT_EQ(probe.args[1], loads[2]);
  EXPECT_EQ(b.at(loads[2]).type, Type::I8);
  const Inst& second_display = b.at(b.at(loads[1]).args[0]);  // [old rbp - 16]
  EXPECT_TRUE(IsGetReg(b, second_display.args[0], RBP));
  EXPECT_TRUE(IsConst(b, second_display.args[1], Type::I64, 16));
  // RBP = RSP after pushing the old RBP, which is also the last value pushed
  Value frame = written(b, RBP);
  EXPECT_TRUE(IsGetReg(b, frame, RSP));
  EXPECT_EQ(b.at(stores[3]).args[1], frame);
}

TEST(FrontendIr, Enter16PushesWordsAndReplacesOnlyBp) {
  Block b = Code{0x66, 0xc8, 0x10, 0x00, 0x03, 0xc3}.translate(1);  // enterw 16, 3
  // bp, two words read below the old rbp, the new frame pointer: all
  // words; then the byte probe at the final RSP
  std::vector<Value> stores = live_of(b, Opcode::Store);
  ASSERT_EQ(stores.size(), 5u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(b.at(b.at(stores[i]).args[1]).type, Type::I16);
  std::vector<Value> loads = live_of(b, Opcode::Load);
  ASSERT_EQ(loads.size(), 3u);
  EXPECT_TRUE(IsOp(b, loads[1], Opcode::Load, Type::I16));
  const Inst& second_display = b.at(b.at(loads[1]).args[0]);  // [old rbp - 4]
  EXPECT_TRUE(IsGetReg(b, second_display.args[0], RBP));
  EXPECT_TRUE(IsConst(b, second_display.args[1], Type::I64, 4));
  // RBP keeps its upper 48 bits: the frame's low word goes into the old RBP
  Value rbp = written(b, RBP);
  ASSERT_TRUE(IsOp(b, rbp, Opcode::InsertBits, Type::I64));
  EXPECT_TRUE(IsGetReg(b, b.at(rbp).args[0], RBP));
  const Inst& new_bp = b.at(b.at(rbp).args[1]);
  const Inst& pushed_frame = b.at(b.at(stores[3]).args[1]);
  EXPECT_EQ(new_bp.op, Opcode::Trunc);
  EXPECT_EQ(pushed_frame.op, Opcode::Trunc);
  EXPECT_EQ(new_bp.args[0], pushed_frame.args[0]);
}

TEST(FrontendIr, Leave16SetsRspFromAllOfRbpAndPopsBp) {
  Block b = Code{0x66, 0xc9, 0xc3}.translate(1);  // leavew
  // RSP = RBP (all 64 bits), then a word popped from there
  std::vector<Value> sets = live_of(b, Opcode::SetReg);
  ASSERT_GE(sets.size(), 1u);
  EXPECT_EQ(b.at(sets[0]).aux, RSP);
  EXPECT_TRUE(IsGetReg(b, b.at(sets[0]).args[0], RBP));
  std::vector<Value> loads = live_of(b, Opcode::Load);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_TRUE(IsOp(b, loads[0], Opcode::Load, Type::I16));
  Value sp = b.at(loads[0]).args[0];
  EXPECT_TRUE(IsGetReg(b, sp, RSP));
  Value rsp = written(b, RSP);
  ASSERT_TRUE(IsOp(b, rsp, Opcode::Add, Type::I64));
  EXPECT_EQ(b.at(rsp).args[0], sp);
  EXPECT_TRUE(IsConst(b, b.at(rsp).args[1], Type::I64, 2));
  Value rbp = written(b, RBP);
  ASSERT_TRUE(IsOp(b, rbp, Opcode::InsertBits, Type::I64));
  EXPECT_TRUE(IsGetReg(b, b.at(rbp).args[0], RBP));
  EXPECT_EQ(b.at(rbp).args[1], loads[0]);
}

TEST(FrontendIr, Shld16AndShrd16Translate) {
  // shld bx, ax, 17 (a count the SDM leaves undefined); shrd bx, ax, cl
  Block b = Code{0x66, 0x0f, 0xa4, 0xc3, 0x11, 0x66, 0x0f, 0xad, 0xc3, 0xc3}.translate(2);
  EXPECT_EQ(b.guest_insns, 2u);
}

TEST(FrontendIr, AddWritesEveryArithmeticFlag) {
  // add rax, rbx, followed by int3 padding: nothing known kills the flags.
  Block b = Code{0x48, 0x01, 0xd8}.translate(1);
  uint64_t written_flags = 0;
  for (Value v : live_of(b, Opcode::SetFlag)) {
    written_flags |= kFlagMask(static_cast<FlagBit>(b.at(v).aux));
    // A flag value is an i1, or for AF a 1-bit ExtractBits (0 or 1 in an i32).
    const Inst& value = b.at(b.at(v).args[0]);
    EXPECT_TRUE(value.type == Type::I1 || (value.op == Opcode::ExtractBits && value.imm == 1))
        << "flag " << int(b.at(v).aux) << "\n" << ir::print_block(b);
    if (b.at(v).aux == kCF) {  // carry out: result below the first operand
      const Inst& cf = b.at(b.at(v).args[0]);
      ASSERT_TRUE(IsOp(b, b.at(v).args[0], Opcode::ICmp, Type::I1));
      EXPECT_EQ(static_cast<Cond>(cf.aux), Cond::ULT);
      EXPECT_EQ(cf.args[0], written(b, RAX));
      EXPECT_TRUE(IsGetReg(b, cf.args[1], RAX));
    }
  }
  EXPECT_EQ(written_flags, kArithFlags);
}

// x86 zero-extends a 32-bit destination even for a shift count of 0 (run
// natively on the host: `mov rax, -1; shl eax, 0` leaves 0xffffffff).
TEST(FrontendIr, ShiftByZero32StillZeroExtends) {
  Block b = Code{0xc1, 0xe0, 0x00, 0xc3}.translate(1);  // shl eax, 0
  ir::optimize(b);
  Value v = written(b, RAX);
  ASSERT_TRUE(IsOp(b, v, Opcode::ZExt, Type::I64));
  EXPECT_TRUE(live_of(b, Opcode::SetFlag).empty());  // flags unchanged by a zero count
}

// ---------------------------------------------------------------------------
// Flag fusion: a jcc after cmp compares the cmp's operands directly

enum class Fused { Operands, Result, Flag };

struct FusionCase {
  uint8_t cc;   // jcc opcode 0x70 + cc
  Fused how;    // the cmp's operands, the sign of its result, or a flag read
  Cond cond;    // for Operands and Result
  FlagBit flag;  // for Flag: OF and PF have no operand form
};

class FrontendFlagFusion : public ::testing::TestWithParam<FusionCase> {};

TEST_P(FrontendFlagFusion, CmpThenJcc) {
  const FusionCase& c = GetParam();
  Code code{0x48, 0x39, 0xf7,                          // cmp rdi, rsi
            static_cast<uint8_t>(0x70 + c.cc), 0x10};  // jcc +0x10
  Block b = code.translate();
  ASSERT_EQ(b.exit.kind, ExitKind::Branch);
  Value cond = b.exit.cond;
  ASSERT_NE(cond, ir::kNoValue);
  if (c.how == Fused::Flag) {
    // jo: GetFlag; jno: GetFlag xor 1.
    Value flag = b.at(cond).op == Opcode::Xor ? b.at(cond).args[0] : cond;
    ASSERT_TRUE(IsOp(b, flag, Opcode::GetFlag, Type::I1));
    EXPECT_EQ(b.at(flag).aux, c.flag);
    EXPECT_EQ(b.at(cond).op == Opcode::Xor, (c.cc & 1) != 0);
    return;
  }
  ASSERT_TRUE(IsOp(b, cond, Opcode::ICmp, Type::I1));
  EXPECT_EQ(static_cast<Cond>(b.at(cond).aux), c.cond) << ir::cond_name(static_cast<Cond>(b.at(cond).aux));
  if (c.how == Fused::Result) {
    ASSERT_TRUE(IsOp(b, b.at(cond).args[0], Opcode::Sub, Type::I64));
    EXPECT_TRUE(IsConst(b, b.at(cond).args[1], Type::I64, 0));
  } else {
    EXPECT_TRUE(IsGetReg(b, b.at(cond).args[0], RDI));
    EXPECT_TRUE(IsGetReg(b, b.at(cond).args[1], RSI));
  }
}

constexpr Fused kOps = Fused::Operands;

INSTANTIATE_TEST_SUITE_P(
    FrontendJcc, FrontendFlagFusion,
    ::testing::Values(FusionCase{0x0, Fused::Flag, Cond::EQ, kOF}, FusionCase{0x1, Fused::Flag, Cond::EQ, kOF},
                      FusionCase{0x2, kOps, Cond::ULT, kCF}, FusionCase{0x3, kOps, Cond::UGE, kCF},
                      FusionCase{0x4, kOps, Cond::EQ, kCF}, FusionCase{0x5, kOps, Cond::NE, kCF},
                      FusionCase{0x6, kOps, Cond::ULE, kCF}, FusionCase{0x7, kOps, Cond::UGT, kCF},
                      FusionCase{0x8, Fused::Result, Cond::SLT, kCF},
                      FusionCase{0x9, Fused::Result, Cond::SGE, kCF},
                      FusionCase{0xa, Fused::Flag, Cond::EQ, kPF}, FusionCase{0xb, Fused::Flag, Cond::EQ, kPF},
                      FusionCase{0xc, kOps, Cond::SLT, kCF}, FusionCase{0xd, kOps, Cond::SGE, kCF},
                      FusionCase{0xe, kOps, Cond::SLE, kCF}, FusionCase{0xf, kOps, Cond::SGT, kCF}),
    [](const ::testing::TestParamInfo<FusionCase>& info) { return "cc" + std::to_string(info.param.cc); });

TEST(FrontendFlagFusionMore, CmpJlSurvivesOptimize) {
  Block b = Code{0x48, 0x39, 0xf7, 0x7c, 0x10}.translate();  // cmp rdi, rsi; jl
  ir::optimize(b);
  const Inst& cond = b.at(b.exit.cond);
  EXPECT_FALSE(cond.dead);
  ASSERT_EQ(cond.op, Opcode::ICmp);
  EXPECT_EQ(static_cast<Cond>(cond.aux), Cond::SLT);
  EXPECT_TRUE(IsGetReg(b, cond.args[0], RDI));
  EXPECT_TRUE(IsGetReg(b, cond.args[1], RSI));
}

// test r, r is r & r = r: the register itself is compared with zero (the
// backend's cbz), no And.
TEST(FrontendFlagFusionMore, TestJzComparesTheRegisterWithZero) {
  Block b = Code{0x85, 0xc0, 0x74, 0x05}.translate();  // test eax, eax; jz
  Value cond = b.exit.cond;
  ASSERT_TRUE(IsOp(b, cond, Opcode::ICmp, Type::I1));
  EXPECT_EQ(static_cast<Cond>(b.at(cond).aux), Cond::EQ);
  const Value eax = b.at(cond).args[0];
  ASSERT_TRUE(IsOp(b, eax, Opcode::Trunc, Type::I32));
  EXPECT_TRUE(IsGetReg(b, b.at(eax).args[0], RAX));
  EXPECT_TRUE(IsConst(b, b.at(cond).args[1], Type::I32, 0));
  EXPECT_TRUE(live_of(b, Opcode::And).empty());
}

// test eax, ebx keeps its And.
TEST(FrontendFlagFusionMore, TestOfTwoRegistersComparesTheAnd) {
  Block b = Code{0x85, 0xd8, 0x74, 0x05}.translate();  // test eax, ebx; jz
  Value cond = b.exit.cond;
  ASSERT_TRUE(IsOp(b, cond, Opcode::ICmp, Type::I1));
  EXPECT_TRUE(IsOp(b, b.at(cond).args[0], Opcode::And, Type::I32));
}

// sub writes its difference: jz/jnz test it against zero; cmp (no
// difference kept) compares the operands.
TEST(FrontendFlagFusionMore, SubJnzTestsTheDifference) {
  Block b = Code{0x83, 0xe9, 0x01, 0x75, 0x05}.translate();  // sub ecx, 1; jnz
  const Inst& cond = b.at(b.exit.cond);
  ASSERT_EQ(cond.op, Opcode::ICmp);
  EXPECT_EQ(static_cast<Cond>(cond.aux), Cond::NE);
  EXPECT_TRUE(IsOp(b, cond.args[0], Opcode::Sub, Type::I32));
  EXPECT_TRUE(IsConst(b, cond.args[1], Type::I32, 0));
  Block cmp = Code{0x83, 0xf9, 0x01, 0x75, 0x05}.translate();  // cmp ecx, 1; jnz
  const Inst& cmp_cond = cmp.at(cmp.exit.cond);
  ASSERT_EQ(cmp_cond.op, Opcode::ICmp);
  EXPECT_TRUE(IsConst(cmp, cmp_cond.args[1], Type::I32, 1));
}

TEST(FrontendFlagFusionMore, AddJcComparesResultWithOperand) {
  Block b = Code{0x48, 0x01, 0xd8, 0x72, 0x05}.translate();  // add rax, rbx; jc
  Value cond = b.exit.cond;
  ASSERT_TRUE(IsOp(b, cond, Opcode::ICmp, Type::I1));
  EXPECT_EQ(static_cast<Cond>(b.at(cond).aux), Cond::ULT);
  EXPECT_TRUE(IsOp(b, b.at(cond).args[0], Opcode::Add, Type::I64));
  EXPECT_TRUE(IsGetReg(b, b.at(cond).args[1], RAX));
}

TEST(FrontendFlagFusionMore, MovInBetweenKeepsTheFusion) {
  // cmp rdi, rsi; mov rdi, rax; jl: compares the RDI the cmp read.
  Block b = Code{0x48, 0x39, 0xf7, 0x48, 0x89, 0xc7, 0x7c, 0x10}.translate();
  Value cond = b.exit.cond;
  ASSERT_TRUE(IsOp(b, cond, Opcode::ICmp, Type::I1));
  EXPECT_EQ(static_cast<Cond>(b.at(cond).aux), Cond::SLT);
  EXPECT_TRUE(IsGetReg(b, b.at(cond).args[0], RDI));
  EXPECT_LT(b.at(cond).args[0], live_of(b, Opcode::SetReg)[0]);  // read before the mov wrote RDI
}

TEST(FrontendFlagFusionMore, IncInBetweenRebuildsJlFromFlags) {
  // cmp rdi, rsi; inc rax; jl: inc sets SF and OF, so the cmp is stale.
  Block b = Code{0x48, 0x39, 0xf7, 0x48, 0xff, 0xc0, 0x7c, 0x10}.translate();
  Value cond = b.exit.cond;
  ASSERT_TRUE(IsOp(b, cond, Opcode::Xor, Type::I1));  // SF != OF
  uint64_t read = 0;
  for (Value a : b.at(cond).args)
    if (a != ir::kNoValue && b.at(a).op == Opcode::GetFlag) read |= kFlagMask(static_cast<FlagBit>(b.at(a).aux));
  EXPECT_EQ(read, kFlagMask(kSF) | kFlagMask(kOF));
}

TEST(FrontendFlagFusionMore, IncThenJzIsFusedOnTheResult) {
  Block b = Code{0x48, 0xff, 0xc0, 0x74, 0x10}.translate();  // inc rax; jz
  Value cond = b.exit.cond;
  ASSERT_TRUE(IsOp(b, cond, Opcode::ICmp, Type::I1));
  EXPECT_EQ(static_cast<Cond>(b.at(cond).aux), Cond::EQ);
  EXPECT_EQ(b.at(cond).args[0], written(b, RAX));
}

TEST(FrontendFlagFusionMore, FlagWriterThatDoesNotRecordBreaksTheFusion) {
  // cmp rdi, rsi; bt rax, 3; jl: bt writes CF and leaves the rest undefined.
  Block b = Code{0x48, 0x39, 0xf7, 0x48, 0x0f, 0xba, 0xe0, 0x03, 0x7c, 0x10}.translate();
  Value cond = b.exit.cond;
  ASSERT_NE(cond, ir::kNoValue);
  EXPECT_NE(b.at(cond).op, Opcode::ICmp) << ir::print_block(b);
  EXPECT_FALSE(live_of(b, Opcode::GetFlag).empty());
}

// ---------------------------------------------------------------------------
// Flag liveness at exits: what the successors read before writing

// add rax, rbx; jmp +0x0b (to offset 0x10), then `successor` at 0x10.
Block add_then_jump_to(std::initializer_list<uint8_t> successor, Code& code) {
  code.put(0, {0x48, 0x01, 0xd8, 0xeb, 0x0b}).put(0x10, successor);
  return code.translate();
}

size_t live_set_flags_after_optimize(Block b) {
  ir::optimize(b);
  return live_of(b, Opcode::SetFlag).size();
}

TEST(FrontendFlagLiveness, SuccessorOverwritingAllFlagsMakesThemDead) {
  Code code;
  Block b = add_then_jump_to({0x48, 0x29, 0xd1}, code);  // L: sub rcx, rdx
  EXPECT_EQ(b.exit.target, code.addr(0x10));
  EXPECT_EQ(b.exit.live_flags, kDFOnly);
  EXPECT_EQ(live_set_flags_after_optimize(b), 0u);
}

TEST(FrontendFlagLiveness, ReturnMakesFlagsDead) {
  Block b = Code{0x48, 0x01, 0xd8, 0xc3}.translate();  // add rax, rbx; ret
  EXPECT_EQ(b.exit.live_flags, kDFOnly);
  EXPECT_EQ(live_set_flags_after_optimize(b), 0u);
}

TEST(FrontendFlagLiveness, AdcInSuccessorKeepsCarryLive) {
  Code code;
  Block b = add_then_jump_to({0x48, 0x11, 0xd1}, code);  // L: adc rcx, rdx
  EXPECT_EQ(b.exit.live_flags, kFlagMask(kCF) | kDFOnly);
  ir::optimize(b);
  std::vector<Value> sets = live_of(b, Opcode::SetFlag);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(b.at(sets[0]).aux, kCF);
}

TEST(FrontendFlagLiveness, SetzThenSubKeepsOnlyZeroLive) {
  Code code;
  Block b = add_then_jump_to({0x0f, 0x94, 0xc0, 0x48, 0x29, 0xd1}, code);  // L: setz al; sub rcx, rdx
  EXPECT_EQ(b.exit.live_flags, kFlagMask(kZF) | kDFOnly);
}

TEST(FrontendFlagLiveness, FollowsChainsOfJumps) {
  Code code;
  code.put(0x20, {0x48, 0x11, 0xd1});               // adc rcx, rdx
  Block b = add_then_jump_to({0xeb, 0x0e}, code);  // L: jmp 0x20
  EXPECT_EQ(b.exit.live_flags, kFlagMask(kCF) | kDFOnly);
}

TEST(FrontendFlagLiveness, BranchUnitesBothSuccessors) {
  // add rax, rbx; jz +0x0b -> 0x10: sub rcx, rdx (kills all)
  // fallthrough 0x05: setc al; ... ret
  Code code;
  code.put(0, {0x48, 0x01, 0xd8, 0x74, 0x0b, 0x0f, 0x92, 0xc0, 0xc3}).put(0x10, {0x48, 0x29, 0xd1});
  Block b = code.translate();
  ASSERT_EQ(b.exit.kind, ExitKind::Branch);
  EXPECT_EQ(b.exit.live_flags, kFlagMask(kCF) | kDFOnly);
  ir::optimize(b);
  std::vector<Value> sets = live_of(b, Opcode::SetFlag);
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(b.at(sets[0]).aux, kCF);
}

TEST(FrontendFlagLiveness, CallInSuccessorMakesFlagsDead) {
  Code code;
  Block b = add_then_jump_to({0xe8, 0x00, 0x00, 0x00, 0x00}, code);  // L: call +0
  EXPECT_EQ(b.exit.live_flags, kDFOnly);
}

TEST(FrontendFlagLiveness, UntranslatableSuccessorKeepsEverythingLive) {
  Code code;
  Block b = add_then_jump_to({0xc5, 0xf5, 0xfe, 0xd0}, code);  // L: vpaddd ymm2, ymm1, ymm0
  EXPECT_EQ(b.exit.live_flags, kAllLive);
  EXPECT_EQ(live_set_flags_after_optimize(b), 6u);
}

TEST(FrontendFlagLiveness, EndlessLoopSuccessorKeepsEverythingLive) {
  Code code;
  Block b = add_then_jump_to({0xeb, 0xfe}, code);  // L: jmp L
  EXPECT_EQ(b.exit.live_flags, kAllLive);
}

// `shl rdx, cl` leaves every flag alone when CL is 0, so it may pass the
// add's flags on to the jc (Zydis lists them as written, not read).
TEST(FrontendFlagLiveness, ShiftByClPassesFlagsThrough) {
  Code code;
  Block b = add_then_jump_to({0x48, 0xd3, 0xe2, 0x72, 0x0e}, code);  // L: shl rdx, cl; jc +0x0e
  EXPECT_NE(b.exit.live_flags & kFlagMask(kCF), 0u);
  EXPECT_GE(live_set_flags_after_optimize(b), 1u);
}

TEST(FrontendFlagLiveness, ShiftByImmediateOverwritesTheFlags) {
  Code code;
  Block b = add_then_jump_to({0x48, 0xc1, 0xe2, 0x03, 0x72, 0x0d}, code);  // L: shl rdx, 3; jc +0x0d
  EXPECT_EQ(b.exit.live_flags, kDFOnly);
}

// Inside a block: the adc reads the add's carry, directly after optimize.
TEST(FrontendFlagLiveness, AdcReadsTheCarryOfTheAddBeforeIt) {
  Code code{0x48, 0x01, 0xd8,   // add rax, rbx
            0x48, 0x11, 0xd1,   // adc rcx, rdx
            0xc3};
  Block b = code.translate();
  ASSERT_EQ(b.guest_insns, 3u);
  std::vector<Value> sets = live_of(b, Opcode::SetFlag);
  ASSERT_FALSE(sets.empty());
  EXPECT_EQ(b.at(sets[0]).aux, kCF);  // the add's CF is computed: the adc reads it
  ir::optimize(b);
  EXPECT_TRUE(live_of(b, Opcode::GetFlag).empty()) << ir::print_block(b);
  Value rcx = written(b, RCX);
  ASSERT_TRUE(IsOp(b, rcx, Opcode::Add, Type::I64));
  Value carry = b.at(rcx).args[1];
  ASSERT_TRUE(IsOp(b, carry, Opcode::ZExt, Type::I64));
  Value cf = b.at(carry).args[0];
  ASSERT_TRUE(IsOp(b, cf, Opcode::ICmp, Type::I1));
  EXPECT_EQ(static_cast<Cond>(b.at(cf).aux), Cond::ULT);
  EXPECT_EQ(b.at(cf).args[0], written(b, RAX));  // the add's result
  EXPECT_TRUE(IsGetReg(b, b.at(cf).args[1], RAX));
  // The add's CF is forwarded, then dead, as are the adc's flags: nothing
  // reads them (a fault at the ret leaves them as they were before).
  EXPECT_TRUE(live_of(b, Opcode::SetFlag).empty()) << ir::print_block(b);
  // With PHYBIN_STRICT_FLAGS the adc's flags stay: the ret may fault, and
  // the fault path cannot work out an adc's flags again.
  FrontendOptions strict = Code::options(false);
  strict.strict_flags = true;
  Block s = Code::check(Frontend(Hooks{}, strict).translate(code.addr(), 64));
  ir::optimize(s);
  std::vector<Value> kept = live_of(s, Opcode::SetFlag);
  EXPECT_EQ(kept.size(), 6u) << ir::print_block(s);
}

// A flag the code reads after an instruction that may fault is kept
// computed before it when the fault path could not work it out: adc rcx,
// rdx; mov rax, [rbx]; setc al.  Flags read by nobody are not.
TEST(FrontendFlagLiveness, OnlyFlagsReadAfterAFaultAreComputed) {
  Code code{0x48, 0x11, 0xd1,   // adc rcx, rdx
            0x48, 0x8b, 0x03,   // mov rax, [rbx]
            0x0f, 0x92, 0xc0,   // setc al
            0x31, 0xc0,         // xor eax, eax (all flags overwritten)
            0xc3};
  Block b = code.translate();
  ir::optimize(b);
  std::vector<Value> sets = live_of(b, Opcode::SetFlag);
  ASSERT_EQ(sets.size(), 1u) << ir::print_block(b);
  EXPECT_EQ(b.at(sets[0]).aux, kCF);
}

// `syscall` copies RFLAGS into R11 (phybin: SetReg R11 <- GetFlags), and the
// kernel's sysret restores them: both read every flag.
TEST(FrontendFlagLiveness, SyscallInSuccessorReadsAllFlags) {
  Code code;
  Block b = add_then_jump_to({0x0f, 0x05}, code);  // L: syscall
  EXPECT_EQ(b.exit.live_flags, kAllLive);
}

// ---------------------------------------------------------------------------
// Code phybin cannot translate or that does not decode

// An instruction phybin does not translate, first in its block: the block
// is one Trap that the runtime turns into SIGILL (the guest handles it) or
// PHYBIN_ERR_ILLEGAL_INSTR with untranslatable_message().
void expect_untranslatable_trap(const Block& b, uint64_t at, unsigned length) {
  std::vector<Value> traps = live_of(b, Opcode::Trap);
  ASSERT_EQ(traps.size(), 1u);
  EXPECT_EQ(b.at(traps[0]).aux, kTrapUntranslatable);
  EXPECT_EQ(b.at(traps[0]).imm, at);
  EXPECT_EQ(b.guest_insns, 1u);
  EXPECT_EQ(b.guest_end, at + length);
}

TEST(FrontendErrors, UntranslatableFirstInstructionTraps) {
  Code code{0xc5, 0xf5, 0xfe, 0xd0};  // vpaddd ymm2, ymm1, ymm0 (AVX2)
  expect_untranslatable_trap(code.translate(), code.addr(), 4);
  const std::string msg = Frontend(Hooks{}).untranslatable_message(code.addr());
  EXPECT_NE(msg.find("AVX2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("vpaddd"), std::string::npos) << msg;
  EXPECT_NE(msg.find("c5 f5 fe d0"), std::string::npos) << msg;
  char where[32];
  std::snprintf(where, sizeof where, "%#llx", static_cast<unsigned long long>(code.addr()));
  EXPECT_NE(msg.find(where), std::string::npos) << msg;
}

TEST(FrontendErrors, HandlerThatRefusesTrapsToo) {
  Code code{0x0f, 0x05};  // syscall, which needs the runtime's hook (Hooks{} has none)
  expect_untranslatable_trap(code.translate(), code.addr(), 2);
}

// smsw as on a CPU without UMIP (the Westmere CPUID reports): CR0 as Linux
// sets it, PE MP ET NE WP AM PG.
TEST(FrontendSystem, SmswReadsLinuxCr0) {
  for (auto [code, want] : {std::pair<Code, uint64_t>{Code{0x0f, 0x01, 0xe0}, 0x80050033},         // smsw eax
                            std::pair<Code, uint64_t>{Code{0x48, 0x0f, 0x01, 0xe0}, 0x80050033},   // smsw rax
                            std::pair<Code, uint64_t>{Code{0x66, 0x0f, 0x01, 0xe0}, 0x0033}}) {    // smsw ax
    Block b = code.translate();
    const bool found = std::any_of(b.insts.begin(), b.insts.end(), [&](const ir::Inst& i) {
      return !i.dead && i.op == Opcode::Const && i.imm == want;
    });
    EXPECT_TRUE(found) << std::hex << want;
  }
}

TEST(FrontendErrors, UntranslatableLaterInstructionEndsTheBlockBeforeIt) {
  Code code{0x89, 0xd8, 0xc5, 0xf5, 0xfe, 0xd0};  // mov eax, ebx; vpaddd ...
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 1u);
  EXPECT_EQ(b.guest_end, code.addr(2));
  EXPECT_EQ(b.exit.kind, ExitKind::Jump);
  EXPECT_EQ(b.exit.target, code.addr(2));
  EXPECT_EQ(b.exit.live_flags, kAllLive);
  EXPECT_TRUE(live_of(b, Opcode::Trap).empty());
}

TEST(FrontendErrors, Ud2RaisesSigill) {
  Code code{0x0f, 0x0b, 0x48, 0x01, 0xd8};  // ud2; add rax, rbx
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 1u);
  EXPECT_EQ(b.guest_end, code.addr(2));
  std::vector<Value> traps = live_of(b, Opcode::Trap);
  ASSERT_EQ(traps.size(), 1u);
  EXPECT_EQ(b.at(traps[0]).aux, SIGILL);
  EXPECT_EQ(b.at(traps[0]).imm, code.addr());  // a fault: RIP stays on ud2
  EXPECT_EQ(b.exit.kind, ExitKind::Jump);
  EXPECT_EQ(b.exit.target, code.addr());
  EXPECT_TRUE(live_of(b, Opcode::Add).empty());
}

TEST(FrontendErrors, InvalidOpcodeIsASigillBlock) {
  Code code{0x06};  // push es: invalid in 64-bit mode
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 1u);
  EXPECT_EQ(b.guest_end, code.addr(1));
  ASSERT_EQ(b.insts.size(), 1u);
  EXPECT_EQ(b.insts[0].op, Opcode::Trap);
  EXPECT_EQ(b.insts[0].aux, SIGILL);
  EXPECT_EQ(b.insts[0].imm, code.addr());
  EXPECT_EQ(b.exit.kind, ExitKind::Jump);
  EXPECT_EQ(b.exit.target, code.addr());
}

TEST(FrontendErrors, InvalidOpcodeLaterEndsTheBlockBeforeIt) {
  Code code{0x89, 0xd8, 0x06};  // mov eax, ebx; (invalid)
  Block b = code.translate();
  EXPECT_EQ(b.guest_insns, 1u);
  EXPECT_EQ(b.exit.kind, ExitKind::Jump);
  EXPECT_EQ(b.exit.target, code.addr(2));
  EXPECT_TRUE(live_of(b, Opcode::Trap).empty());
}

TEST(FrontendErrors, HltRaisesSigsegvAtItsOwnAddress) {
  Code code{0xf4};  // hlt: privileged, #GP -> SIGSEGV with RIP on the hlt
  Block b = code.translate();
  std::vector<Value> traps = live_of(b, Opcode::Trap);
  ASSERT_EQ(traps.size(), 1u);
  EXPECT_EQ(b.at(traps[0]).aux, SIGSEGV);
  EXPECT_EQ(b.at(traps[0]).imm, code.addr());
}

// #BP is a trap, not a fault: natively the signal context's RIP is the
// address after the int3, and a handler that returns continues there.
TEST(FrontendErrors, Int3ReportsTheAddressAfterIt) {
  Code code{0xcc, 0xc3};
  Block b = code.translate();
  std::vector<Value> traps = live_of(b, Opcode::Trap);
  ASSERT_EQ(traps.size(), 1u);
  EXPECT_EQ(b.at(traps[0]).aux, SIGTRAP);
  EXPECT_EQ(b.at(traps[0]).imm, code.addr(1));
  EXPECT_EQ(b.exit.target, code.addr(1));
}

// The state a Trap hands to the signal machinery must be complete: the
// add's flags may not be dropped just because code after the ud2 would
// overwrite them.
TEST(FrontendErrors, TrapSeesTheFlagsOfEarlierInstructions) {
  Code code{0x48, 0x01, 0xd8, 0x0f, 0x0b, 0x48, 0x29, 0xd1, 0xc3};  // add; ud2; sub rcx, rdx; ret
  Block b = code.translate();
  EXPECT_EQ(live_set_flags_after_optimize(b), 6u);
}

// The first IR instruction of each guest instruction is marked with the
// instruction's offset in the block: the backend maps faults back to guest
// instructions with these marks.
TEST(FrontendBlock, MarksWhereEachInstructionsIrBegins) {
  Code code{0x48, 0x8b, 0x06, 0x48, 0x01, 0xd8, 0x50, 0xc3};  // mov rax, [rsi]; add rax, rbx; push rax; ret
  Block b = code.translate();
  std::vector<Value> starts;
  for (Value i = 0; i < b.insts.size(); ++i)
    if (b.at(i).insn_start) starts.push_back(i);
  ASSERT_EQ(starts.size(), 4u);
  EXPECT_EQ(starts[0], 0u);
  const uint16_t expected[] = {0, 3, 6, 7};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(b.at(starts[i]).guest_offset, expected[i]);
  // The load of the first instruction lies in its range; the push's store
  // in the third's.
  std::vector<Value> loads = live_of(b, Opcode::Load), stores = live_of(b, Opcode::Store);
  ASSERT_FALSE(loads.empty());
  ASSERT_FALSE(stores.empty());
  EXPECT_LT(loads[0], starts[1]);
  EXPECT_GE(stores[0], starts[2]);
  EXPECT_LT(stores[0], starts[3]);
}

// ---- superblocks: a block goes on past one conditional branch

std::vector<const Inst*> side_exits_of(const Block& b) {
  std::vector<const Inst*> out;
  for (const Inst& in : b.insts)
    if (!in.dead && in.op == Opcode::SideExit) out.push_back(&in);
  return out;
}

// cmp rdi, rsi; jl +0x10; add rax, 1; ret: the jl leaves through a side
// exit, the block ends at the ret.
TEST(FrontendSuperblock, GoesOnPastAConditionalBranch) {
  Code code{0x48, 0x39, 0xf7, 0x7c, 0x10, 0x48, 0x83, 0xc0, 0x01, 0xc3};
  Block b = code.translate(64, true);
  EXPECT_EQ(b.guest_insns, 4u);
  EXPECT_EQ(b.exit.kind, ir::ExitKind::Return);
  const auto sides = side_exits_of(b);
  ASSERT_EQ(sides.size(), 1u);
  ASSERT_LT(sides[0]->aux, b.side_exits.size());
  EXPECT_EQ(b.side_exits[sides[0]->aux].target, code.addr(5 + 0x10));
  const Inst& cond = b.at(sides[0]->args[0]);
  ASSERT_EQ(cond.op, Opcode::ICmp);  // fused with the cmp
  EXPECT_EQ(static_cast<Cond>(cond.aux), Cond::SLT);
  // Without superblocks the jl ends the block.
  Block one = code.translate(64, false);
  EXPECT_EQ(one.guest_insns, 2u);
  EXPECT_EQ(one.exit.kind, ir::ExitKind::Branch);
  EXPECT_TRUE(side_exits_of(one).empty());
}

// Only one branch is gone past: the second ends the block.
TEST(FrontendSuperblock, TheSecondBranchEndsTheBlock) {
  Code code{0x85, 0xc0, 0x74, 0x08, 0x85, 0xdb, 0x75, 0x04, 0x31, 0xc0, 0xc3};  // test; jz; test; jnz; xor; ret
  Block b = code.translate(64, true);
  EXPECT_EQ(b.guest_insns, 4u);
  EXPECT_EQ(b.exit.kind, ir::ExitKind::Branch);
  EXPECT_EQ(b.exit.target, code.addr(8 + 4));
  EXPECT_EQ(b.exit.fallthrough, code.addr(8));
  EXPECT_EQ(side_exits_of(b).size(), 1u);
}

// Code a block already starts at is not translated again into this one.
TEST(FrontendSuperblock, StopsWhereABlockStartsAlready) {
  Code code{0x48, 0x39, 0xf7, 0x7c, 0x10, 0x48, 0x83, 0xc0, 0x01, 0xc3};
  Frontend frontend(Hooks{}, Code::options(true));
  Code::check(frontend.translate(code.addr(5), 64));
  Block b = Code::check(frontend.translate(code.addr(), 64));
  EXPECT_EQ(b.guest_insns, 2u);
  EXPECT_EQ(b.exit.kind, ir::ExitKind::Branch);
  EXPECT_TRUE(side_exits_of(b).empty());
}

// The side exit keeps the flags its target reads: add rax, rbx; jz +2;
// ret; ...; target: adc rcx, 0 (reads CF).  CF is set for the side exit
// although the ret after it makes every flag dead on the fall-through side.
TEST(FrontendSuperblock, ASideExitKeepsTheFlagsItsTargetReads) {
  Code code{0x48, 0x01, 0xd8, 0x74, 0x01, 0xc3, 0x48, 0x83, 0xd1, 0x00, 0xc3};
  Block b = code.translate(64, true);
  const auto sides = side_exits_of(b);
  ASSERT_EQ(sides.size(), 1u);
  EXPECT_TRUE(b.side_exits[sides[0]->aux].live_flags & kFlagMask(kCF));
  ir::optimize(b);
  bool sets_cf = false;
  for (const Inst& in : b.insts) sets_cf |= !in.dead && in.op == Opcode::SetFlag && in.aux == kCF;
  EXPECT_TRUE(sets_cf) << ir::print_block(b);
}

// ---- flags across an indirect jump from an earlier block: dead, as
// across calls and returns (the jump's own block keeps its flags lazily)

// cmp rdi, rsi; jz +2; jmp rax; jmp rcx: both successors jump indirectly.
TEST(FrontendFlagLiveness, FlagsAreDeadAtAnIndirectJumpOfAnotherBlock) {
  Code code{0x48, 0x39, 0xf7, 0x74, 0x02, 0xff, 0xe0, 0xff, 0xe1};
  Block b = code.translate();
  ASSERT_EQ(b.exit.kind, ir::ExitKind::Branch);
  EXPECT_EQ(b.exit.live_flags & kArithFlags, 0u);
  FrontendOptions strict = Code::options(false);
  strict.strict_flags = true;
  Block kept = Code::check(Frontend(Hooks{}, strict).translate(code.addr(), 64));
  EXPECT_EQ(kept.exit.live_flags & kArithFlags, kArithFlags);
}

// The same when the block with the indirect jump was translated first (its
// entry in the look-ahead's table of block starts): mov rax, rbx; jmp rax.
TEST(FrontendFlagLiveness, ATranslatedIndirectJumpBlockReadsNoEarlierFlags) {
  Code code{0x48, 0x39, 0xf7, 0x74, 0x02, 0xeb, 0x03, 0x48, 0x89, 0xd8, 0xff, 0xe0};
  Frontend frontend(Hooks{}, Code::options(false));
  Block jumper = Code::check(frontend.translate(code.addr(7), 64));
  EXPECT_EQ(jumper.exit.kind, ir::ExitKind::Indirect);
  EXPECT_EQ(jumper.flags_live_in & kArithFlags, kArithFlags);  // its indirect entry still applies records
  Block b = Code::check(frontend.translate(code.addr(), 64));
  ASSERT_EQ(b.exit.kind, ir::ExitKind::Branch);
  EXPECT_EQ(b.exit.live_flags & kArithFlags, 0u);
}

}  // namespace
}  // namespace phybin::x86
