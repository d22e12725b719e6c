// Tests of src/ir/passes: blocks built by hand with ir::Builder, then each
// pass is checked for exactly which instructions it marks dead and which
// arguments it rewrites.  The last tests run the whole pipeline on what the
// x86 frontend makes of a short real instruction sequence.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/guest_state.h"
#include "ir/builder.h"
#include "ir/ir.h"
#include "ir/passes.h"
#include "x86/frontend.h"

namespace phybin::ir {
namespace {

// Any address will do as a helper: the passes only look at the opcode.
uint64_t dummy_helper(GuestState*, uint64_t, uint64_t) { return 0; }

// A block under construction plus small queries on it.
struct Fixture {
  Block block;
  Builder b{block};

  Value const64(uint64_t v) { return b.constant(Type::I64, v); }
  Value call() { return b.call(Type::Void, reinterpret_cast<const void*>(&dummy_helper)); }
  bool dead(Value v) const { return block.at(v).dead; }
  const Inst& at(Value v) const { return block.at(v); }
};

std::vector<Value> live_of(const Block& block, Opcode op) {
  std::vector<Value> out;
  for (Value i = 0; i < block.insts.size(); ++i)
    if (!block.insts[i].dead && block.insts[i].op == op) out.push_back(i);
  return out;
}

size_t live_count(const Block& block) {
  size_t n = 0;
  for (const Inst& in : block.insts) n += !in.dead;
  return n;
}

// ---------------------------------------------------------------------------
// forward_state

TEST(IrForwardState, GetRegAfterSetRegReadsTheWrittenValue) {
  Fixture f;
  Value v = f.const64(42);
  f.b.set_reg(RAX, v);
  Value g = f.b.get_reg(RAX);
  Value sum = f.b.binary(Opcode::Add, Type::I64, g, g);
  f.b.set_reg(RBX, sum);
  forward_state(f.block);
  EXPECT_TRUE(f.dead(g));
  EXPECT_EQ(f.at(sum).args[0], v);
  EXPECT_EQ(f.at(sum).args[1], v);
  EXPECT_FALSE(f.dead(sum));
}

TEST(IrForwardState, LatestSetRegWins) {
  Fixture f;
  Value v1 = f.const64(1), v2 = f.const64(2);
  f.b.set_reg(RCX, v1);
  f.b.set_reg(RCX, v2);
  Value g = f.b.get_reg(RCX);
  f.b.set_reg(RDX, g);
  forward_state(f.block);
  EXPECT_TRUE(f.dead(g));
  EXPECT_EQ(f.at(g + 1).args[0], v2);
}

TEST(IrForwardState, SecondGetRegSharesTheFirst) {
  Fixture f;
  Value g1 = f.b.get_reg(RSI);
  Value g2 = f.b.get_reg(RSI);
  Value x = f.b.binary(Opcode::Xor, Type::I64, g1, g2);
  forward_state(f.block);
  EXPECT_FALSE(f.dead(g1));
  EXPECT_TRUE(f.dead(g2));
  EXPECT_EQ(f.at(x).args[0], g1);
  EXPECT_EQ(f.at(x).args[1], g1);
}

TEST(IrForwardState, OtherRegisterIsNotForwarded) {
  Fixture f;
  f.b.set_reg(RAX, f.const64(7));
  Value g = f.b.get_reg(RBX);
  Value use = f.b.unary(Opcode::Not, Type::I64, g);
  forward_state(f.block);
  EXPECT_FALSE(f.dead(g));
  EXPECT_EQ(f.at(use).args[0], g);
}

TEST(IrForwardState, CallHelperIsABarrierForRegistersAndFlags) {
  Fixture f;
  Value v = f.const64(5);
  Value one = f.b.constant(Type::I1, 1);
  f.b.set_reg(RAX, v);
  f.b.set_flag(kCF, one);
  f.call();  // the helper may change RAX and CF in the guest state
  Value g = f.b.get_reg(RAX);
  Value cf = f.b.get_flag(kCF);
  Value use_g = f.b.unary(Opcode::Not, Type::I64, g);
  Value use_cf = f.b.unary(Opcode::Not, Type::I1, cf);
  forward_state(f.block);
  EXPECT_FALSE(f.dead(g));
  EXPECT_FALSE(f.dead(cf));
  EXPECT_EQ(f.at(use_g).args[0], g);
  EXPECT_EQ(f.at(use_cf).args[0], cf);
}

TEST(IrForwardState, ReadsBeforeAndAfterACallAreNotMerged) {
  Fixture f;
  Value g1 = f.b.get_reg(RDI);
  f.call();
  Value g2 = f.b.get_reg(RDI);
  Value x = f.b.binary(Opcode::Sub, Type::I64, g1, g2);
  forward_state(f.block);
  EXPECT_FALSE(f.dead(g2));
  EXPECT_EQ(f.at(x).args[1], g2);
}

TEST(IrForwardState, GetFlagAfterSetFlagReadsTheWrittenValue) {
  Fixture f;
  Value cmp = f.b.icmp(Cond::EQ, f.b.get_reg(RAX), f.const64(0));
  f.b.set_flag(kZF, cmp);
  Value zf = f.b.get_flag(kZF);
  Value sf = f.b.get_flag(kSF);  // not written in the block: stays
  Value both = f.b.binary(Opcode::Or, Type::I1, zf, sf);
  f.block.exit = Exit{ExitKind::Branch, zf, kNoValue, 0x1000, 0x2000};
  forward_state(f.block);
  EXPECT_TRUE(f.dead(zf));
  EXPECT_FALSE(f.dead(sf));
  EXPECT_EQ(f.at(both).args[0], cmp);
  EXPECT_EQ(f.at(both).args[1], sf);
  EXPECT_EQ(f.block.exit.cond, cmp);  // the exit is rewritten too
}

// AF is set from bit 0 of an I32 (ExtractBits): a GetFlag, an I1, must not
// be replaced by it (a Select would then take a mistyped argument).
TEST(IrForwardState, FlagSetFromAWiderValueIsNotForwarded) {
  Fixture f;
  Value wide = f.b.emit(Opcode::ExtractBits, Type::I32, f.b.trunc(Type::I32, f.b.get_reg(RAX)), kNoValue, kNoValue, 1, 4);
  f.b.set_flag(kAF, wide);
  Value af = f.b.get_flag(kAF);
  Value pick = f.b.select(Type::I1, f.b.icmp(Cond::EQ, f.b.get_reg(RCX), f.const64(0)), af, af);
  f.b.set_flag(kAF, pick);
  forward_state(f.block);
  EXPECT_FALSE(f.dead(af));
  EXPECT_EQ(f.at(pick).args[1], af);
  EXPECT_EQ(verify(f.block), "");
}

TEST(IrForwardState, SetFlagsForgetsSingleFlagsButNotRegisters) {
  Fixture f;
  Value v = f.const64(9);
  f.b.set_reg(RAX, v);
  f.b.set_flag(kCF, f.b.constant(Type::I1, 1));
  f.b.emit(Opcode::SetFlags, Type::Void, f.const64(0x202));
  Value cf = f.b.get_flag(kCF);
  Value g = f.b.get_reg(RAX);
  Value use = f.b.select(Type::I64, cf, g, g);
  forward_state(f.block);
  EXPECT_FALSE(f.dead(cf));
  EXPECT_TRUE(f.dead(g));
  EXPECT_EQ(f.at(use).args[0], cf);
  EXPECT_EQ(f.at(use).args[1], v);
}

TEST(IrForwardState, IndirectExitAddressIsRewritten) {
  Fixture f;
  Value target = f.b.load(Type::I64, f.b.get_reg(RSP));
  f.b.set_reg(RAX, target);
  Value g = f.b.get_reg(RAX);
  f.block.exit = Exit{ExitKind::Indirect, kNoValue, g};
  forward_state(f.block);
  EXPECT_TRUE(f.dead(g));
  EXPECT_EQ(f.block.exit.address, target);
}

// ---------------------------------------------------------------------------
// eliminate_dead_flags

TEST(IrDeadFlags, FlagOverwrittenBeforeAnyReadIsDead) {
  Fixture f;
  Value t = f.b.constant(Type::I1, 1), z = f.b.constant(Type::I1, 0);
  f.b.set_flag(kCF, t);
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  f.b.set_flag(kCF, z);
  Value second = first + 1;
  f.block.exit.live_flags = kFlagMask(kCF);
  eliminate_dead_flags(f.block);
  EXPECT_TRUE(f.dead(first));
  EXPECT_FALSE(f.dead(second));
}

TEST(IrDeadFlags, OnlyFlagsLiveAtTheExitSurvive) {
  Fixture f;
  Value one = f.b.constant(Type::I1, 1);
  f.b.set_flag(kCF, one);
  Value cf = static_cast<Value>(f.block.insts.size() - 1);
  f.b.set_flag(kZF, one);
  f.b.set_flag(kOF, one);
  f.block.exit.live_flags = kFlagMask(kZF);
  eliminate_dead_flags(f.block);
  EXPECT_TRUE(f.dead(cf));
  EXPECT_FALSE(f.dead(cf + 1));  // ZF
  EXPECT_TRUE(f.dead(cf + 2));   // OF
  EXPECT_FALSE(f.dead(one));     // not this pass's business
}

TEST(IrDeadFlags, AllFlagsLiveByDefault) {
  Fixture f;
  Value one = f.b.constant(Type::I1, 1);
  for (FlagBit bit : {kCF, kPF, kAF, kZF, kSF, kOF}) f.b.set_flag(bit, one);
  eliminate_dead_flags(f.block);  // Exit::live_flags defaults to everything
  EXPECT_EQ(live_of(f.block, Opcode::SetFlag).size(), 6u);
}

TEST(IrDeadFlags, GetFlagKeepsTheEarlierWriteAlive) {
  Fixture f;
  Value one = f.b.constant(Type::I1, 1);
  f.b.set_flag(kCF, one);
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  Value read = f.b.get_flag(kCF);
  f.b.set_reg(RAX, f.b.zext(Type::I64, read));
  f.b.set_flag(kCF, one);
  Value last = static_cast<Value>(f.block.insts.size() - 1);
  f.block.exit.live_flags = 0;
  eliminate_dead_flags(f.block);
  EXPECT_FALSE(f.dead(first));
  EXPECT_TRUE(f.dead(last));
}

TEST(IrDeadFlags, GetFlagOfAnotherFlagDoesNotKeepItAlive) {
  Fixture f;
  Value one = f.b.constant(Type::I1, 1);
  f.b.set_flag(kCF, one);
  Value cf = static_cast<Value>(f.block.insts.size() - 1);
  f.b.get_flag(kZF);
  f.block.exit.live_flags = 0;
  eliminate_dead_flags(f.block);
  EXPECT_TRUE(f.dead(cf));
}

TEST(IrDeadFlags, CallHelperMakesEveryFlagLive) {
  Fixture f;
  Value one = f.b.constant(Type::I1, 1);
  f.b.set_flag(kCF, one);
  Value before_cf = static_cast<Value>(f.block.insts.size() - 1);
  f.b.set_flag(kPF, one);
  f.call();
  f.b.set_flag(kCF, one);
  Value after_cf = static_cast<Value>(f.block.insts.size() - 1);
  f.block.exit.live_flags = 0;
  eliminate_dead_flags(f.block);
  EXPECT_FALSE(f.dead(before_cf));
  EXPECT_FALSE(f.dead(before_cf + 1));  // PF
  EXPECT_TRUE(f.dead(after_cf));
}

TEST(IrDeadFlags, GetFlagsMakesEveryFlagLive) {
  Fixture f;
  f.b.set_flag(kAF, f.b.constant(Type::I1, 0));
  Value af = static_cast<Value>(f.block.insts.size() - 1);
  f.b.set_reg(R11, f.b.emit(Opcode::GetFlags, Type::I64));
  f.block.exit.live_flags = 0;
  eliminate_dead_flags(f.block);
  EXPECT_FALSE(f.dead(af));
}

TEST(IrDeadFlags, SetFlagsOverwritesEarlierSingleFlags) {
  Fixture f;
  f.b.set_flag(kZF, f.b.constant(Type::I1, 1));
  Value zf = static_cast<Value>(f.block.insts.size() - 1);
  f.b.emit(Opcode::SetFlags, Type::Void, f.const64(0x202));
  Value all = static_cast<Value>(f.block.insts.size() - 1);
  eliminate_dead_flags(f.block);  // everything live at the exit
  EXPECT_TRUE(f.dead(zf));
  EXPECT_FALSE(f.dead(all));
}

// A Trap hands the guest state to a signal handler (guest ucontext), so
// every flag is observable there, as every register is (see
// eliminate_dead_register_writes, which already treats Trap that way).
TEST(IrDeadFlags, TrapMakesEveryFlagLive) {
  Fixture f;
  f.b.set_flag(kZF, f.b.constant(Type::I1, 1));
  Value zf = static_cast<Value>(f.block.insts.size() - 1);
  f.b.emit(Opcode::Trap, Type::Void, kNoValue, kNoValue, kNoValue, 0x1000, 4 /* SIGILL */);
  f.b.set_flag(kZF, f.b.constant(Type::I1, 0));
  f.block.exit.live_flags = 0;
  eliminate_dead_flags(f.block);
  EXPECT_FALSE(f.dead(zf));
}

// A handler that returns from a fault runs the faulting instruction again,
// reading RFLAGS: the flags the guest code from there on reads (the
// frontend's flags_live_in on the instruction's first IR instruction) must
// be there, even when the IR handed them to their reader as a value.
TEST(IrDeadFlags, InstructionThatMayFaultKeepsTheFlagsItsCodeReads) {
  for (bool with_load : {true, false}) {
    Fixture f;
    f.b.set_flag(kZF, f.b.constant(Type::I1, 1));  // cmp
    Value zf = static_cast<Value>(f.block.insts.size() - 1);
    Value first = f.b.get_reg(RSI);                // mov rax, [rsi] (or a plain mov)
    f.block.at(first).insn_start = true;
    f.block.at(first).flags_live_in = static_cast<uint16_t>(kFlagMask(kZF));
    f.b.set_reg(RAX, with_load ? f.b.load(Type::I64, first) : first);
    f.b.set_flag(kZF, f.b.constant(Type::I1, 0));  // a later flag write
    f.block.exit.live_flags = 0;
    eliminate_dead_flags(f.block);
    EXPECT_EQ(f.dead(zf), !with_load) << (with_load ? "load" : "no load");
  }
}

// ---------------------------------------------------------------------------
// eliminate_dead_register_writes

TEST(IrDeadRegs, WriteOverwrittenBeforeAnyReadIsDead) {
  Fixture f;
  f.b.set_reg(RAX, f.const64(1));
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  f.b.set_reg(RAX, f.const64(2));
  Value last = static_cast<Value>(f.block.insts.size() - 1);
  eliminate_dead_register_writes(f.block);
  EXPECT_TRUE(f.dead(first));
  EXPECT_FALSE(f.dead(last));  // registers are all live at the exit
}

TEST(IrDeadRegs, ReadBetweenKeepsTheWrite) {
  Fixture f;
  f.b.set_reg(RAX, f.const64(1));
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  Value g = f.b.get_reg(RAX);
  f.b.set_reg(RAX, f.b.binary(Opcode::Add, Type::I64, g, f.const64(1)));
  eliminate_dead_register_writes(f.block);
  EXPECT_FALSE(f.dead(first));
  EXPECT_EQ(live_of(f.block, Opcode::SetReg).size(), 2u);
}

TEST(IrDeadRegs, ReadOfAnotherRegisterDoesNotKeepTheWrite) {
  Fixture f;
  f.b.set_reg(RAX, f.const64(1));
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  f.b.set_reg(RBX, f.b.get_reg(RCX));
  f.b.set_reg(RAX, f.const64(2));
  eliminate_dead_register_writes(f.block);
  EXPECT_TRUE(f.dead(first));
  EXPECT_EQ(live_of(f.block, Opcode::SetReg).size(), 2u);  // RBX and the last RAX
}

TEST(IrDeadRegs, WritesToDifferentRegistersStay) {
  Fixture f;
  for (uint8_t r : {RAX, RCX, R8, R15}) f.b.set_reg(r, f.const64(r));
  eliminate_dead_register_writes(f.block);
  EXPECT_EQ(live_of(f.block, Opcode::SetReg).size(), 4u);
}

TEST(IrDeadRegs, HighRegisterOverwriteIsFound) {
  Fixture f;
  f.b.set_reg(R15, f.const64(1));
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  f.b.set_reg(R15, f.const64(2));
  eliminate_dead_register_writes(f.block);
  EXPECT_TRUE(f.dead(first));
}

TEST(IrDeadRegs, CallHelperReadsEveryRegister) {
  Fixture f;
  f.b.set_reg(RDI, f.const64(1));
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  f.call();
  f.b.set_reg(RDI, f.const64(2));
  eliminate_dead_register_writes(f.block);
  EXPECT_FALSE(f.dead(first));
}

TEST(IrDeadRegs, TrapReadsEveryRegister) {
  Fixture f;
  f.b.set_reg(RDI, f.const64(1));
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  f.b.emit(Opcode::Trap, Type::Void, kNoValue, kNoValue, kNoValue, 0x1000, 4);
  f.b.set_reg(RDI, f.const64(2));
  eliminate_dead_register_writes(f.block);
  EXPECT_FALSE(f.dead(first));
}

// A load or store may fault: the guest's SIGSEGV handler must find every
// register as the instructions before the faulting one left it.
TEST(IrDeadRegs, MemoryAccessBetweenKeepsTheWrite) {
  for (Opcode op : {Opcode::Load, Opcode::Store, Opcode::VLoad, Opcode::VStore}) {
    Fixture f;
    Value addr = f.b.get_reg(RSI);
    f.b.set_reg(RAX, f.const64(1));
    Value first = static_cast<Value>(f.block.insts.size() - 1);
    if (op == Opcode::Load) f.b.load(Type::I64, addr);
    else if (op == Opcode::Store) f.b.store(addr, f.const64(5));
    else if (op == Opcode::VLoad) f.b.vload(addr, 16);
    else f.b.vstore(addr, f.b.emit(Opcode::VZero, Type::V128), 16);
    f.b.set_reg(RAX, f.const64(2));
    eliminate_dead_register_writes(f.block);
    EXPECT_FALSE(f.dead(first)) << opcode_name(op);
  }
}

// ---------------------------------------------------------------------------
// eliminate_redundant_align_checks

// ---------------------------------------------------------------------------
// XMM registers: forwarded and dead-written like GPRs (movdqa xmm3, xmm1;
// paddd xmm3, xmm4 then adds xmm1 and xmm4 without the copy)

struct XmmFixture : Fixture {
  Value get(uint8_t x) { return b.emit(Opcode::GetXmm, Type::V128, kNoValue, kNoValue, kNoValue, 0, x); }
  Value set(uint8_t x, Value v) { return b.emit(Opcode::SetXmm, Type::Void, v, kNoValue, kNoValue, 0, x); }
  Value add(Value a, Value c) { return b.vec(VecOp::Add, Type::V128, 2, a, c); }
};

TEST(IrXmmState, CopyThenOperateReadsTheSourceAndDropsTheCopy) {
  XmmFixture f;
  Value x1 = f.get(1);
  Value copy = f.set(3, x1);
  Value x3 = f.get(3);
  Value x4 = f.get(4);
  Value sum = f.add(x3, x4);
  Value result = f.set(3, sum);
  optimize(f.block);
  EXPECT_TRUE(f.dead(x3));
  EXPECT_EQ(f.at(sum).args[0], x1);
  EXPECT_TRUE(f.dead(copy));
  EXPECT_FALSE(f.dead(result));
}

TEST(IrXmmState, CallHelperIsABarrier) {
  XmmFixture f;
  Value v = f.add(f.get(0), f.get(1));
  Value first = f.set(2, v);
  f.call();
  Value after = f.get(2);
  f.set(2, f.add(after, after));
  optimize(f.block);
  EXPECT_FALSE(f.dead(after));  // the helper may have changed XMM2
  EXPECT_FALSE(f.dead(first));  // ... or read it
}

TEST(IrXmmState, MemoryAccessKeepsTheWriteForAFault) {
  XmmFixture f;
  Value first = f.set(0, f.add(f.get(0), f.get(1)));
  Value loaded = f.b.vload(f.b.get_reg(RSI), 16);
  f.set(0, loaded);
  eliminate_dead_register_writes(f.block);
  EXPECT_FALSE(f.dead(first));  // a fault of the load must see it
}

TEST(IrXmmState, OtherRegisterIsNotForwarded) {
  XmmFixture f;
  f.set(5, f.get(6));
  Value other = f.get(7);
  Value use = f.add(other, other);
  f.set(7, use);
  forward_state(f.block);
  EXPECT_FALSE(f.dead(other));
  EXPECT_EQ(f.at(use).args[0], other);
}

// ---------------------------------------------------------------------------
// reassociate_offsets

TEST(IrReassociate, InnerSumUsedOnlyHereIsFolded) {
  Fixture f;
  Value rsp = f.b.get_reg(RSP);
  Value popped = f.b.binary(Opcode::Add, Type::I64, rsp, f.const64(8));
  Value released = f.b.binary(Opcode::Sub, Type::I64, popped, f.const64(24));
  f.b.set_reg(RSP, released);
  reassociate_offsets(f.block);
  EXPECT_EQ(f.at(released).args[0], rsp);
  EXPECT_EQ(f.at(released).op, Opcode::Sub);
  EXPECT_EQ(f.at(f.at(released).args[1]).imm, 16u);
}

// add $8, %rax; movsd -8(%rax), %xmm0: the bumped pointer is written back
// anyway, so the load keeps addressing through it, not through the old
// RAX (which would have to outlive the register write).
TEST(IrReassociate, InnerSumWithOtherUsersIsLeftAlone) {
  Fixture f;
  Value rax = f.b.get_reg(RAX);
  Value bumped = f.b.binary(Opcode::Add, Type::I64, rax, f.const64(8));
  f.b.set_reg(RAX, bumped);
  Value back = f.b.binary(Opcode::Sub, Type::I64, bumped, f.const64(8));
  f.b.load(Type::I64, back);
  reassociate_offsets(f.block);
  EXPECT_EQ(f.at(back).args[0], bumped);
  EXPECT_EQ(f.at(f.at(back).args[1]).imm, 8u);
}

TEST(IrAlignChecks, SameBaseAndOffsetModulo16NeedsOneCheck) {
  Fixture f;
  auto check = [&](Value addr) {
    return f.b.emit(Opcode::VCheckAlign, Type::Void, addr, kNoValue, kNoValue, 0x1000);
  };
  Value rsi = f.b.get_reg(RSI), rdi = f.b.get_reg(RDI);
  Value first = check(f.b.binary(Opcode::Add, Type::I64, rsi, f.const64(0x10)));
  Value same = check(f.b.binary(Opcode::Add, Type::I64, rsi, f.const64(0x30)));
  Value bare = check(rsi);  // offset 0 is 0x10 modulo 16 too
  Value other_offset = check(f.b.binary(Opcode::Add, Type::I64, rsi, f.const64(0x18)));
  Value below = check(f.b.binary(Opcode::Sub, Type::I64, rsi, f.const64(8)));  // -8 = 0x18 modulo 16
  Value other_base = check(f.b.binary(Opcode::Add, Type::I64, rdi, f.const64(0x10)));
  Value chained = check(f.b.binary(Opcode::Add, Type::I64, f.b.binary(Opcode::Add, Type::I64, rdi, f.const64(4)),
                                   f.const64(12)));
  eliminate_redundant_align_checks(f.block);
  EXPECT_FALSE(f.dead(first));
  EXPECT_EQ(f.at(first).args[0], rsi);  // base + 0x10: the base is checked
  EXPECT_TRUE(f.dead(same));
  EXPECT_TRUE(f.dead(bare));
  EXPECT_FALSE(f.dead(other_offset));
  EXPECT_NE(f.at(other_offset).args[0], rsi);
  EXPECT_TRUE(f.dead(below));
  EXPECT_FALSE(f.dead(other_base));
  EXPECT_TRUE(f.dead(chained));
}

TEST(IrDeadRegs, ForwardedReadNoLongerKeepsTheWrite) {
  // After forward_state the GetReg is dead: it read the SetReg's value
  // directly, so the SetReg itself is only needed if nothing overwrites it.
  Fixture f;
  Value v = f.const64(3);
  f.b.set_reg(RAX, v);
  Value first = static_cast<Value>(f.block.insts.size() - 1);
  Value g = f.b.get_reg(RAX);
  f.b.set_reg(RBX, g);
  f.b.set_reg(RAX, f.const64(4));
  forward_state(f.block);
  eliminate_dead_register_writes(f.block);
  EXPECT_TRUE(f.dead(g));
  EXPECT_TRUE(f.dead(first));
  EXPECT_EQ(f.at(g + 1).args[0], v);  // RBX gets the value itself
}

// ---------------------------------------------------------------------------
// fold_constants

struct FoldCase {
  const char* name;
  Opcode op;
  Type type;
  uint64_t a, b;  // b unused by unary ops
  uint64_t expected;
};

class IrFoldConstants : public ::testing::TestWithParam<FoldCase> {};

TEST_P(IrFoldConstants, FoldsAndMasksToTheResultType) {
  const FoldCase& c = GetParam();
  Fixture f;
  Value a = f.b.constant(c.type, c.a);
  Value r = opcode_arg_count(c.op) == 2 ? f.b.binary(c.op, c.type, a, f.b.constant(c.type, c.b))
                                        : f.b.unary(c.op, c.type, a);
  f.b.set_reg(RAX, r);
  fold_constants(f.block);
  EXPECT_EQ(f.at(r).op, Opcode::Const);
  EXPECT_EQ(f.at(r).type, c.type);
  EXPECT_EQ(f.at(r).imm, c.expected);
  EXPECT_EQ(f.at(r).args[0], kNoValue);
  EXPECT_EQ(f.at(r).args[1], kNoValue);
  EXPECT_EQ(f.at(r + 1).args[0], r);  // the user still points at it
}

INSTANTIATE_TEST_SUITE_P(
    IrFold, IrFoldConstants,
    ::testing::Values(FoldCase{"Add64", Opcode::Add, Type::I64, 0xffffffffffffffff, 2, 1},
                      FoldCase{"Add32Wraps", Opcode::Add, Type::I32, 0xffffffff, 2, 1},
                      FoldCase{"Add8Wraps", Opcode::Add, Type::I8, 0xff, 0x02, 0x01},
                      FoldCase{"Sub64", Opcode::Sub, Type::I64, 1, 2, 0xffffffffffffffff},
                      FoldCase{"Sub32", Opcode::Sub, Type::I32, 1, 2, 0xffffffff},
                      FoldCase{"Sub16", Opcode::Sub, Type::I16, 0, 1, 0xffff},
                      FoldCase{"And", Opcode::And, Type::I64, 0xff00ff00ff00ff00, 0x0ff00ff00ff00ff0,
                               0x0f000f000f000f00},
                      FoldCase{"Or32", Opcode::Or, Type::I32, 0xf0f00000, 0x00000f0f, 0xf0f00f0f},
                      FoldCase{"Xor16", Opcode::Xor, Type::I16, 0xffff, 0x0ff0, 0xf00f},
                      FoldCase{"XorI1", Opcode::Xor, Type::I1, 1, 1, 0},
                      FoldCase{"Not8", Opcode::Not, Type::I8, 0x0f, 0, 0xf0},
                      FoldCase{"Not32", Opcode::Not, Type::I32, 0, 0, 0xffffffff},
                      FoldCase{"Not64", Opcode::Not, Type::I64, 0, 0, 0xffffffffffffffff},
                      FoldCase{"NotI1", Opcode::Not, Type::I1, 0, 0, 1},
                      FoldCase{"Neg16", Opcode::Neg, Type::I16, 1, 0, 0xffff},
                      FoldCase{"Neg64", Opcode::Neg, Type::I64, 5, 0, 0xfffffffffffffffb},
                      FoldCase{"NegZero", Opcode::Neg, Type::I32, 0, 0, 0}),
    [](const ::testing::TestParamInfo<FoldCase>& info) { return std::string(info.param.name); });

TEST(IrFoldConstantsConv, ZExtMasksByTheSourceType) {
  Fixture f;
  // A constant whose stored bits exceed its type: ZExt must drop them.
  Value a = f.b.constant(Type::I8, 0x1ff);
  Value z = f.b.emit(Opcode::ZExt, Type::I64, a);
  fold_constants(f.block);
  EXPECT_EQ(f.at(z).op, Opcode::Const);
  EXPECT_EQ(f.at(z).type, Type::I64);
  EXPECT_EQ(f.at(z).imm, 0xffu);
}

TEST(IrFoldConstantsConv, ZExtOf32BitAllOnes) {
  Fixture f;
  Value z = f.b.emit(Opcode::ZExt, Type::I64, f.b.constant(Type::I32, 0xffffffff));
  fold_constants(f.block);
  EXPECT_EQ(f.at(z).imm, 0xffffffffu);
}

TEST(IrFoldConstantsConv, TruncMasksByTheResultType) {
  Fixture f;
  Value a = f.const64(0x123456789abcdef0);
  Value t8 = f.b.emit(Opcode::Trunc, Type::I8, a);
  Value t16 = f.b.emit(Opcode::Trunc, Type::I16, a);
  Value t32 = f.b.emit(Opcode::Trunc, Type::I32, a);
  Value t1 = f.b.emit(Opcode::Trunc, Type::I1, f.const64(3));
  fold_constants(f.block);
  EXPECT_EQ(f.at(t8).op, Opcode::Const);
  EXPECT_EQ(f.at(t8).imm, 0xf0u);
  EXPECT_EQ(f.at(t16).imm, 0xdef0u);
  EXPECT_EQ(f.at(t32).imm, 0x9abcdef0u);
  EXPECT_EQ(f.at(t1).imm, 1u);
  EXPECT_EQ(f.at(t1).type, Type::I1);
}

TEST(IrFoldConstantsConv, ChainsFoldInOnePass) {
  Fixture f;
  Value s = f.b.binary(Opcode::Add, Type::I64, f.const64(10), f.const64(20));
  Value d = f.b.binary(Opcode::Sub, Type::I64, s, f.const64(5));
  Value t = f.b.emit(Opcode::Trunc, Type::I8, d);
  fold_constants(f.block);
  EXPECT_EQ(f.at(s).imm, 30u);
  EXPECT_EQ(f.at(d).op, Opcode::Const);
  EXPECT_EQ(f.at(d).imm, 25u);
  EXPECT_EQ(f.at(t).op, Opcode::Const);
  EXPECT_EQ(f.at(t).imm, 25u);
}

TEST(IrFoldConstantsConv, NonConstantOperandIsLeftAlone) {
  Fixture f;
  Value g = f.b.get_reg(RAX);
  Value c = f.const64(1);
  Value l = f.b.binary(Opcode::Add, Type::I64, g, c);
  Value r = f.b.binary(Opcode::Add, Type::I64, c, g);
  fold_constants(f.block);
  EXPECT_EQ(f.at(l).op, Opcode::Add);
  EXPECT_EQ(f.at(l).args[0], g);
  EXPECT_EQ(f.at(l).args[1], c);
  EXPECT_EQ(f.at(r).op, Opcode::Add);
}

TEST(IrFoldConstantsConv, OpsWithoutAFoldRuleAreLeftAlone) {
  Fixture f;
  Value a = f.const64(3), b = f.const64(4);
  Value ror = f.b.binary(Opcode::Ror, Type::I64, a, b);
  Value clz = f.b.unary(Opcode::Clz, Type::I64, a);
  Value sel = f.b.select(Type::I64, f.b.constant(Type::I1, 1), a, b);
  f.b.store(a, b);  // two constant arguments, a side effect
  Value store = static_cast<Value>(f.block.insts.size() - 1);
  f.b.set_reg(RAX, a);
  Value set = store + 1;
  fold_constants(f.block);
  EXPECT_EQ(f.at(ror).op, Opcode::Ror);
  EXPECT_EQ(f.at(clz).op, Opcode::Clz);
  EXPECT_EQ(f.at(sel).op, Opcode::Select);
  EXPECT_EQ(f.at(store).op, Opcode::Store);
  EXPECT_EQ(f.at(set).op, Opcode::SetReg);
}

// ---------------------------------------------------------------------------
// eliminate_dead_code

TEST(IrDeadCode, UnusedPureChainIsRemoved) {
  Fixture f;
  Value g = f.b.get_reg(RAX);
  Value c = f.const64(1);
  Value s = f.b.binary(Opcode::Add, Type::I64, g, c);
  Value t = f.b.trunc(Type::I32, s);
  Value z = f.b.zext(Type::I64, t);
  eliminate_dead_code(f.block);
  for (Value v : {g, c, s, t, z}) EXPECT_TRUE(f.dead(v)) << "value %" << v;
  EXPECT_EQ(live_count(f.block), 0u);
}

TEST(IrDeadCode, SideEffectsAndWhatTheyUseStay) {
  Fixture f;
  Value addr = f.b.get_reg(RSI);
  Value loaded = f.b.load(Type::I64, addr);  // unused, but may fault
  Value v = f.b.binary(Opcode::Add, Type::I64, f.b.get_reg(RCX), f.const64(8));
  f.b.store(addr, v);
  Value store = static_cast<Value>(f.block.insts.size() - 1);
  Value seven = f.const64(7);
  f.b.set_reg(RDX, seven);
  Value set = store + 2;
  Value helper = f.b.call(Type::I64, reinterpret_cast<const void*>(&dummy_helper));
  Value unused = f.b.binary(Opcode::Mul, Type::I64, v, v);
  eliminate_dead_code(f.block);
  EXPECT_FALSE(f.dead(loaded));
  EXPECT_FALSE(f.dead(addr));
  EXPECT_FALSE(f.dead(store));
  EXPECT_FALSE(f.dead(v));
  EXPECT_FALSE(f.dead(set));
  EXPECT_FALSE(f.dead(seven));
  EXPECT_FALSE(f.dead(helper));
  EXPECT_TRUE(f.dead(unused));
}

TEST(IrDeadCode, StateWritesAndTrapsStay) {
  Fixture f;
  f.b.set_flag(kCF, f.b.constant(Type::I1, 0));
  f.b.store_state(144, f.const64(0));
  f.b.emit(Opcode::SetFlags, Type::Void, f.const64(0x202));
  f.b.emit(Opcode::Trap, Type::Void, kNoValue, kNoValue, kNoValue, 0x1000, 4);
  eliminate_dead_code(f.block);
  EXPECT_EQ(live_of(f.block, Opcode::SetFlag).size(), 1u);
  EXPECT_EQ(live_of(f.block, Opcode::StoreState).size(), 1u);
  EXPECT_EQ(live_of(f.block, Opcode::SetFlags).size(), 1u);
  EXPECT_EQ(live_of(f.block, Opcode::Trap).size(), 1u);
  EXPECT_EQ(live_of(f.block, Opcode::Const).size(), 3u);
}

TEST(IrDeadCode, ExitConditionAndAddressKeepTheirValues) {
  Fixture f;
  Value cmp = f.b.icmp(Cond::SLT, f.b.get_reg(RDI), f.b.get_reg(RSI));
  f.block.exit = Exit{ExitKind::Branch, cmp, kNoValue, 0x1000, 0x2000};
  eliminate_dead_code(f.block);
  EXPECT_EQ(live_count(f.block), 3u);

  Fixture g;
  Value target = g.b.binary(Opcode::And, Type::I64, g.b.get_reg(RAX), g.const64(~uint64_t{15}));
  g.block.exit = Exit{ExitKind::Indirect, kNoValue, target};
  eliminate_dead_code(g.block);
  EXPECT_EQ(live_count(g.block), 3u);
}

TEST(IrDeadCode, UsesByDeadInstructionsDoNotCount) {
  Fixture f;
  Value g = f.b.get_reg(RAX);
  f.b.set_reg(RBX, g);
  Value set = g + 1;
  f.block.at(set).dead = true;  // removed by an earlier pass
  eliminate_dead_code(f.block);
  EXPECT_TRUE(f.dead(g));
}

TEST(IrDeadCode, PartlyUsedValueStays) {
  Fixture f;
  Value g = f.b.get_reg(RAX);
  Value used = f.b.unary(Opcode::Not, Type::I64, g);
  Value unused = f.b.unary(Opcode::Neg, Type::I64, g);
  f.b.set_reg(RAX, used);
  eliminate_dead_code(f.block);
  EXPECT_FALSE(f.dead(g));
  EXPECT_FALSE(f.dead(used));
  EXPECT_TRUE(f.dead(unused));
}

// ---------------------------------------------------------------------------
// optimize() on what the frontend makes of real x86-64 code

// Translates `code` (guest address == host address) into a block.  The
// copy is padded with int3 so no scan can read past the buffer.
Block translate(const std::vector<uint8_t>& code) {
  std::vector<uint8_t> padded = code;
  padded.resize(code.size() + 32, 0xcc);
  x86::FrontendOptions one_exit;  // these tests look at the block's one exit
  one_exit.side_exits = false;
  x86::Frontend fe{x86::Hooks{}, one_exit};
  return fe.translate(reinterpret_cast<uint64_t>(padded.data()), 64);
}

// add rax, rbx; sub rax, 1; jz +1; ret; ret -- both successors return,
// so no flag is live at the exit (ABI) and only the fused jz survives.
const std::vector<uint8_t> kAddSubJz = {0x48, 0x01, 0xd8,        // add rax, rbx
                                        0x48, 0x83, 0xe8, 0x01,  // sub rax, 1
                                        0x74, 0x01,              // jz +1
                                        0xc3,                    // ret (fallthrough)
                                        0xc3};                   // ret (target)

TEST(IrOptimize, AddSubJzKeepsOnlyTheResultAndTheFusedCompare) {
  Block block = translate(kAddSubJz);
  ASSERT_EQ(block.guest_insns, 3u);
  ASSERT_EQ(block.exit.kind, ExitKind::Branch);
  EXPECT_EQ(block.exit.live_flags & kArithFlags, 0u);
  optimize(block);
  SCOPED_TRACE(print_block(block));

  EXPECT_TRUE(live_of(block, Opcode::SetFlag).empty());
  std::vector<Value> sets = live_of(block, Opcode::SetReg);
  ASSERT_EQ(sets.size(), 1u);  // RAX, written once: the add's write is dead
  const Inst& set = block.at(sets[0]);
  EXPECT_EQ(set.aux, RAX);

  const Inst& sub = block.at(set.args[0]);
  ASSERT_EQ(sub.op, Opcode::Sub);
  EXPECT_EQ(sub.type, Type::I64);
  const Inst& add = block.at(sub.args[0]);  // forwarded: no GetReg RAX in between
  ASSERT_EQ(add.op, Opcode::Add);
  const Inst& one = block.at(sub.args[1]);
  EXPECT_EQ(one.op, Opcode::Const);
  EXPECT_EQ(one.imm, 1u);
  EXPECT_EQ(block.at(add.args[0]).op, Opcode::GetReg);
  EXPECT_EQ(block.at(add.args[0]).aux, RAX);
  EXPECT_EQ(block.at(add.args[1]).op, Opcode::GetReg);
  EXPECT_EQ(block.at(add.args[1]).aux, RBX);

  // jz after sub tests the difference the sub writes.
  const Inst& cond = block.at(block.exit.cond);
  ASSERT_EQ(cond.op, Opcode::ICmp);
  EXPECT_EQ(static_cast<Cond>(cond.aux), Cond::EQ);
  EXPECT_EQ(cond.args[0], set.args[0]);
  EXPECT_EQ(block.at(cond.args[1]).op, Opcode::Const);
  EXPECT_EQ(block.at(cond.args[1]).imm, 0u);

  // GetReg RAX, GetReg RBX, Add, Const 1, Sub, SetReg, Const 0, ICmp.
  EXPECT_EQ(live_count(block), 8u);
}

TEST(IrOptimize, FlagReadBySuccessorSurvives) {
  // add rax, rbx; sub rax, 1; jz +3; ret; adc rcx, rdx -- the taken side
  // reads CF, so the sub's CF write must stay and nothing else.
  std::vector<uint8_t> code = {0x48, 0x01, 0xd8, 0x48, 0x83, 0xe8, 0x01, 0x74, 0x01, 0xc3,
                               0x48, 0x11, 0xd1, 0xc3};
  Block block = translate(code);
  EXPECT_EQ(block.exit.live_flags & kArithFlags, kFlagMask(kCF));
  optimize(block);
  SCOPED_TRACE(print_block(block));
  std::vector<Value> flags = live_of(block, Opcode::SetFlag);
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(block.at(flags[0]).aux, kCF);
  const Inst& cf = block.at(block.at(flags[0]).args[0]);  // ICmp ULT a, b of the sub
  EXPECT_EQ(cf.op, Opcode::ICmp);
  EXPECT_EQ(static_cast<Cond>(cf.aux), Cond::ULT);
}

TEST(IrOptimize, OptimizeIsIdempotent) {
  Block block = translate(kAddSubJz);
  optimize(block);
  std::string once = print_block(block);
  optimize(block);
  EXPECT_EQ(print_block(block), once);
}

// ---------------------------------------------------------------------------
// print_block

TEST(IrPrint, MentionsOpsTypesAndExit) {
  Fixture f;
  f.block.guest_start = 0x401000;
  f.block.guest_end = 0x401009;
  f.block.guest_insns = 3;
  Value g = f.b.get_reg(RBX);
  Value s = f.b.binary(Opcode::Sub, Type::I32, f.b.trunc(Type::I32, g), f.b.constant(Type::I32, 0x10));
  f.b.set_reg(RAX, f.b.zext(Type::I64, s));
  Value cmp = f.b.icmp(Cond::SLT, g, f.const64(0));
  f.block.exit = Exit{ExitKind::Branch, cmp, kNoValue, 0x402000, 0x401009, kFlagMask(kCF)};
  std::string text = print_block(f.block);
  for (const char* word : {"0x401000", "0x401009", "3 insns", "GetReg", "Trunc", "Sub", "ZExt", "SetReg",
                           "ICmp", "i32", "i64", "imm=0x10", "exit branch", "0x402000", "live flags 0x1"})
    EXPECT_NE(text.find(word), std::string::npos) << "missing '" << word << "' in\n" << text;
}

TEST(IrPrint, DeadInstructionsAreNotPrinted) {
  Fixture f;
  f.b.get_reg(RBX);
  f.b.emit(Opcode::Popcount, Type::I64, f.b.get_reg(RCX));
  f.block.exit = Exit{ExitKind::Return, kNoValue, 0};
  eliminate_dead_code(f.block);
  std::string text = print_block(f.block);
  EXPECT_EQ(text.find("Popcount"), std::string::npos) << text;
  EXPECT_NE(text.find("GetReg"), std::string::npos) << text;  // %0, the return address
  EXPECT_NE(text.find("exit return %0"), std::string::npos) << text;
}

}  // namespace
}  // namespace phybin::ir
