// Lowering of x86's locked read-modify-writes and of mfence (ir AtomicRmw,
// AtomicCas, Fence), and of memory accesses in x86's order (TSO) while
// guest threads share memory.
//
// On the ARMv8.0 baseline an atomic is a load-acquire-exclusive /
// store-release-exclusive loop; with FEAT_LSE (BackendConfig::lse, chosen
// from HWCAP_ATOMICS) it is one acquire-release atomic instruction, except
// for neg, which LSE has no form of.  Both fault on an address that is not
// aligned to the access size, where x86 does not: such an access (a split
// lock, which Linux may refuse as well) takes a cold path that does the
// operation with plain accesses, so it is not atomic.
#include <array>
#include <memory>

#include "arm64/compiler.h"

namespace phybin::arm64 {

using ir::AtomicOp;
using ir::Inst;
using ir::Opcode;
using ir::Type;
using ir::Value;
using regmap::kTmp0;
using regmap::kTmp1;
using regmap::kTmp2;

namespace {

// The value an AtomicRmw stores, computed from the old one into `out`
// (Swap stores its operand as it is).
Reg rmw_result(Assembler& a, AtomicOp op, Size sz, Reg out, Reg old, Reg operand) {
  switch (op) {
    case AtomicOp::Add: a.add(sz, out, old, operand); return out;
    case AtomicOp::And: a.and_(sz, out, old, operand); return out;
    case AtomicOp::Or: a.orr(sz, out, old, operand); return out;
    case AtomicOp::Xor: a.eor(sz, out, old, operand); return out;
    case AtomicOp::Neg: a.neg(sz, out, old); return out;
    case AtomicOp::Swap: return operand;
  }
  return operand;
}

// new = old == expected ? desired : old, compared in the access width
// (the expected value's bits above it are not known to be zero).
void cas_result(Assembler& a, unsigned log2, Reg out, Reg old, Reg expected, Reg desired) {
  const Size sz = log2 == 3 ? Size::X : Size::W;
  if (log2 == 0) a.cmp(Size::W, old, expected, Extend::UXTB);
  else if (log2 == 1) a.cmp(Size::W, old, expected, Extend::UXTH);
  else a.cmp(sz, old, expected);
  a.csel(sz, out, desired, old, Cond::EQ);
}

// One LSE instruction for the operation; false when LSE has none.
bool emit_lse_rmw(Assembler& a, AtomicOp op, MemSize ms, Size sz, Reg old, Reg operand, Reg addr) {
  switch (op) {
    case AtomicOp::Add: a.ldaddal(ms, operand, old, addr); return true;
    case AtomicOp::Or: a.ldsetal(ms, operand, old, addr); return true;
    case AtomicOp::Xor: a.ldeoral(ms, operand, old, addr); return true;
    case AtomicOp::Swap: a.swpal(ms, operand, old, addr); return true;
    case AtomicOp::And:  // LDCLR clears the bits set in its operand
      a.mvn(sz, kTmp2, operand);
      a.ldclral(ms, kTmp2, old, addr);
      return true;
    case AtomicOp::Neg: return false;
  }
  return false;
}

}  // namespace

// Registers for one atomic's operands.  A constant goes to the scratch
// register given, or to a register taken from the allocator for the
// lowering only (given back at the end).
class AtomicOperands {
 public:
  explicit AtomicOperands(BlockCompiler& c) : c_(c) {}
  ~AtomicOperands() {
    for (unsigned i = 0; i < taken_; ++i) c_.gpr_busy_[taken_regs_[i].code] = false;
  }
  AtomicOperands(const AtomicOperands&) = delete;
  AtomicOperands& operator=(const AtomicOperands&) = delete;
  Reg get(Value v, Reg tmp) { return c_.use(v, tmp); }
  Reg get(Value v) { return c_.is_const(v) ? c_.use(v, take()) : c_.use(v, xzr); }
  Reg take() { return taken_regs_[taken_++] = c_.alloc_gpr(); }

 private:
  BlockCompiler& c_;
  std::array<Reg, 2> taken_regs_{};
  unsigned taken_ = 0;
};

// The cold path an access of 1 << log2 bytes at `addr` takes when the
// address is not aligned to it (nothing for a byte); the caller binds its
// resume and gives it a body.
std::unique_ptr<ColdPath> BlockCompiler::branch_if_misaligned(Reg addr, unsigned log2) {
  if (log2 == 0) return nullptr;
  auto path = new_cold_path();
  a_.tst(Size::X, addr, (uint64_t{1} << log2) - 1);
  a_.b(Cond::NE, path->entry);
  return path;
}

void BlockCompiler::lower_atomic(Value v) {
  const Inst& in = b_.at(v);
  if (in.op == Opcode::Fence) {
    a_.dmb(Barrier::ISH);
    return;
  }
  const unsigned log2 = log2_bytes(in.type);
  const auto ms = static_cast<MemSize>(log2);
  const Size sz = log2 == 3 ? Size::X : Size::W;
  const bool cas = in.op == Opcode::AtomicCas;
  const auto op = static_cast<AtomicOp>(in.aux);
  AtomicOperands regs(*this);
  const Reg addr = regs.get(in.args[0], kTmp0);
  const Reg operand = regs.get(in.args[1], kTmp1);  // cas: the expected value
  const Reg desired = cas ? regs.get(in.args[2]) : xzr;
  const Reg old = def_gpr(v);

  std::unique_ptr<ColdPath> misaligned = branch_if_misaligned(addr, log2);
  if (cfg_.lse && cas) {
    a_.mov(sz, old, operand);
    a_.casal(ms, old, desired, addr);
  } else if (!(cfg_.lse && !cas && emit_lse_rmw(a_, op, ms, sz, old, operand, addr))) {
    const Reg status = regs.take();
    Label retry;
    a_.bind(retry);
    a_.ldaxr(ms, old, addr);
    Reg stored = kTmp2;
    if (cas) cas_result(a_, log2, kTmp2, old, operand, desired);
    else stored = rmw_result(a_, op, sz, kTmp2, old, operand);
    a_.stlxr(ms, status, stored, addr);
    a_.cbnz(Size::W, status, retry);
  }
  // A locked instruction is a full barrier: with RCpc loads (LDAPR) a
  // later load could pass its release.
  if (cfg_.tso) a_.dmb(Barrier::ISH);
  if (!misaligned) return;
  a_.bind(misaligned->resume);
  misaligned->body = [=](Assembler& a, Label&) {
    a.load(ms, old, mem(addr, 0));
    Reg stored = kTmp2;
    if (cas) cas_result(a, log2, kTmp2, old, operand, desired);
    else stored = rmw_result(a, op, sz, kTmp2, old, operand);
    a.store(ms, stored, mem(addr, 0));
  };
  vec_.cold.push_back(std::move(misaligned));
}

// x86-64 keeps loads in order with loads and stores, and stores in order
// with stores: what AArch64 gives acquire loads and release stores.  A
// thread's own stack (addresses from RSP) needs none of it.
bool BlockCompiler::ordered_access(Value v) const {
  if (!cfg_.tso) return false;
  const Inst& in = b_.at(v);
  if (in.op != Opcode::Load && in.op != Opcode::Store && in.op != Opcode::VLoad && in.op != Opcode::VStore)
    return false;
  // RSP, or RSP plus constants: a run of pushes steps from the last
  // push's address, not from a GetReg.
  Value addr = in.args[0];
  for (int steps = 0; steps < 8; ++steps) {
    const Inst& x = b_.at(addr);
    if (x.op == Opcode::GetReg && x.aux == RSP) return false;
    if ((x.op != Opcode::Add && x.op != Opcode::Sub) || is_const(x.args[0]) || !is_const(x.args[1])) return true;
    addr = x.args[0];
  }
  return true;
}

// Integer accesses: LDAPR/LDAR and STLR, which take a base register alone
// (ordered accesses get no folded address).  They fault on an address not
// aligned to the access size, where x86 does not: such an access takes a
// cold path, plain between barriers (after a load, later accesses wait
// for it; before a store, earlier ones complete).  Vector accesses are
// fenced that way where they are lowered (VectorLowering::lower_memory).
void BlockCompiler::lower_ordered_memory(Value v) {
  const Inst& in = b_.at(v);
  const bool load = in.op == Opcode::Load;
  const Value value = load ? ir::kNoValue : in.args[1];
  const unsigned log2 = log2_bytes(load ? in.type : b_.at(value).type);
  const auto ms = static_cast<MemSize>(log2);
  const Reg addr = use(in.args[0], kTmp0);
  const Reg reg = load ? def_gpr(v) : is_const(value) && const_of(value) == 0 ? xzr : use(value, kTmp1);
  std::unique_ptr<ColdPath> misaligned = branch_if_misaligned(addr, log2);
  if (!load) a_.stlr(ms, reg, addr);
  else if (cfg_.lrcpc) a_.ldapr(ms, reg, addr);
  else a_.ldar(ms, reg, addr);
  if (!misaligned) return;
  a_.bind(misaligned->resume);
  misaligned->body = [=](Assembler& a, Label&) {
    if (load) {
      a.load(ms, reg, mem(addr, 0));
      a.dmb(Barrier::ISHLD);
    } else {
      a.dmb(Barrier::ISH);
      a.store(ms, reg, mem(addr, 0));
    }
  };
  vec_.cold.push_back(std::move(misaligned));
}

}  // namespace phybin::arm64
