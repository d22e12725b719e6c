// XMM commit regions (FrontendOptions::fp_regions).  SSE code writes an
// XMM register at nearly every instruction (`addss xmm0, [mem]` four times
// in a row), and each write is a commit the backend must carry out in
// order: the value goes to the guest register's home, and its NaN check
// cannot wait for the next operation, since a fault at the next memory
// operand shows the register to a signal handler.  A run of instructions
// that write nothing but XMM registers instead commits its writes once, at
// its end; in between the values stay IR values.  A fault inside the run
// (a memory operand, a misaligned movaps) then finds the guest registers as
// they were at the run's first instruction, which is where it is reported
// to the runtime (ir::Inst::replay): the runtime runs the instructions
// again from there one at a time, translated alone, and the fault comes
// again at its own instruction with every register as the CPU leaves it.
#include <algorithm>

#include "ir/builder.h"
#include "x86/frontend.h"

namespace phybin::x86 {

namespace {

// IR an instruction of a region may hold: nothing that writes guest state
// other than XMM registers (held back by the builder), no exit, no call.
bool allowed_in_region(const ir::Inst& in) {
  switch (in.op) {
    case ir::Opcode::SetReg: case ir::Opcode::SetFlag: case ir::Opcode::SetFlags: case ir::Opcode::LazyFlags:
    case ir::Opcode::StoreState: case ir::Opcode::Store: case ir::Opcode::VStore: case ir::Opcode::AtomicRmw:
    case ir::Opcode::AtomicCas: case ir::Opcode::Fence: case ir::Opcode::CallHelper: case ir::Opcode::CallNative:
    case ir::Opcode::Trap: case ir::Opcode::SideExit: case ir::Opcode::FpTrapBegin: case ir::Opcode::FpTrapCheck:
      return false;
    default: return !ir::in_family(in, ir::VecFamily::Mxcsr);
  }
}

// The SSE arithmetic whose results x86's NaN rules are checked for.
bool is_fp_arithmetic(ZydisMnemonic m) {
  switch (m) {
    case ZYDIS_MNEMONIC_ADDSS: case ZYDIS_MNEMONIC_ADDSD: case ZYDIS_MNEMONIC_ADDPS: case ZYDIS_MNEMONIC_ADDPD:
    case ZYDIS_MNEMONIC_SUBSS: case ZYDIS_MNEMONIC_SUBSD: case ZYDIS_MNEMONIC_SUBPS: case ZYDIS_MNEMONIC_SUBPD:
    case ZYDIS_MNEMONIC_MULSS: case ZYDIS_MNEMONIC_MULSD: case ZYDIS_MNEMONIC_MULPS: case ZYDIS_MNEMONIC_MULPD:
    case ZYDIS_MNEMONIC_DIVSS: case ZYDIS_MNEMONIC_DIVSD: case ZYDIS_MNEMONIC_DIVPS: case ZYDIS_MNEMONIC_DIVPD:
    case ZYDIS_MNEMONIC_SQRTSS: case ZYDIS_MNEMONIC_SQRTSD: case ZYDIS_MNEMONIC_SQRTPS: case ZYDIS_MNEMONIC_SQRTPD:
      return true;
    default: return false;
  }
}

bool is_sse(const ZydisDecodedInstruction& info) {
  switch (info.meta.isa_ext) {
    case ZYDIS_ISA_EXT_SSE: case ZYDIS_ISA_EXT_SSE2: case ZYDIS_ISA_EXT_SSE3: case ZYDIS_ISA_EXT_SSSE3:
    case ZYDIS_ISA_EXT_SSE4:
      return true;
    default: return false;
  }
}

}  // namespace

// An SSE instruction whose only write is its first operand, an XMM
// register, and which leaves RFLAGS alone.  What the decoder says; the
// IR the instruction turns into is checked too (emit_insns).
bool Frontend::commits_only_xmm(const DecodedInsn& insn) const {
  const ZydisDecodedInstruction& info = insn.info;
  if (!is_sse(info) || info.operand_count == 0) return false;
  if (flags_maybe_written(info) != 0) return false;
  const ZydisDecodedOperand& dest = insn.ops[0];
  if (dest.type != ZYDIS_OPERAND_TYPE_REGISTER || ZydisRegisterGetClass(dest.reg.value) != ZYDIS_REGCLASS_XMM ||
      !(dest.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
    return false;
  // Hidden operands are not always decoded (x86/decoder.h); what they write
  // (xmm0 of pcmpestrm, ECX of pcmpestri) comes with flags or shows in the
  // IR, which emit_insns checks.
  for (unsigned i = 0; i < info.operand_count_visible; ++i) {
    const ZydisDecodedOperand& op = insn.ops[i];
    if (op.type == ZYDIS_OPERAND_TYPE_REGISTER && ZydisRegisterGetClass(op.reg.value) == ZYDIS_REGCLASS_MMX)
      return false;  // MMX forms change the x87 state too
    if (i > 0 && (op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)) return false;
  }
  return true;
}

// Which instructions of the block go into regions: runs of two or more
// that write only XMM registers (and save no flag input for the fault
// path) with SSE floating-point arithmetic among them.  Runs of moves and
// integer vector operations alone gain nothing: without NaN checks to
// group, writing each register where it stands costs no more (the
// backend computes into the register and follows copies), while a region
// ended by an integer instruction between them commits with moves.
void Frontend::plan_regions(const DecodedInsn* insns, size_t count, const FaultSpills& spills, size_t lazy_at) const {
  bool* planned = region_.planned;
  std::fill_n(planned, count, false);
  for (size_t i = 0; i < count;) {
    size_t end = i;
    bool arithmetic = false;
    // is_sse first: most instructions of most blocks are not (start-up).
    while (end < count && is_sse(insns[end].info) && spills.reg[end] < 0 && end != lazy_at &&
           commits_only_xmm(insns[end])) {
      arithmetic |= is_fp_arithmetic(insns[end].info.mnemonic);
      ++end;
    }
    if (end - i >= 2 && arithmetic) std::fill(planned + i, planned + end, true);
    i = end == i ? i + 1 : end;
  }
}

// Commits the region's writes, and numbers its instructions for the
// fault path when it holds two or more (one alone is its own start).
void Frontend::close_region(ir::Builder& b, XmmRegion& region) const {
  const unsigned count = region.count;
  ir::Block& block = b.block();
  // The first instruction is where a fault is reported: it must have code.
  const bool numbered = count >= 2 && region.first_inst[0] != ~0u;
  if (numbered) {
    const uint64_t start = block.guest_start + block.insts[region.first_inst[0]].guest_offset;
    if (!hooks_.region_check_failed || !hooks_.region_check_failed(start))
      b.emit(ir::Opcode::FpRegionCheck, ir::Type::Void, ir::kNoValue, ir::kNoValue, ir::kNoValue, count);
  }
  b.commit_xmm_writes();
  region.count = 0;
  if (count < 2) return;
  if (!numbered) {
    region.failed = true;
    return;
  }
  block.xmm_regions = true;
  for (unsigned k = 0; k < count; ++k)
    if (region.first_inst[k] != ~0u) block.insts[region.first_inst[k]].replay = static_cast<uint8_t>(k + 1);
}

// Called after instruction `insn` was emitted from IR index `first` on,
// inside a region: false when its IR does more than a region allows.
bool Frontend::note_region_insn(const ir::Block& block, size_t first) const {
  for (size_t i = first; i < block.insts.size(); ++i)
    if (!allowed_in_region(block.insts[i])) return false;
  XmmRegion& region = region_;
  region.first_inst[region.count++] = block.insts.size() > first ? static_cast<uint32_t>(first) : ~0u;
  return true;
}

}  // namespace phybin::x86
