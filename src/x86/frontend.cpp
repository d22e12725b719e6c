#include "x86/frontend.h"

#include <cinttypes>
#include <csignal>
#include <cstdio>

#include "common/error.h"

namespace phybin::x86 {

namespace {
constexpr size_t kMaxInsnLength = 15;
constexpr uint64_t kAllArith = kArithFlags;

const uint8_t* guest_code(uint64_t address) { return reinterpret_cast<const uint8_t*>(address); }
}  // namespace

Frontend::Frontend(const Hooks& hooks) : hooks_(hooks) {
  register_alu(handlers_);
  register_data(handlers_);
  register_branch(handlers_);
  register_shift(handlers_);
  register_muldiv(handlers_);
  register_bits(handlers_);
  register_string(handlers_);
  register_system(handlers_);
  register_sse(handlers_);
}

bool Frontend::can_translate(const DecodedInsn& insn) const {
  return handlers_.find(insn.info.mnemonic) != nullptr;
}

bool Frontend::translate_one(ir::Builder& b, const DecodedInsn& insn, FlagSource& flags, bool& ends) const {
  Handler h = handlers_.find(insn.info.mnemonic);
  if (!h) return false;
  size_t mark = b.block().insts.size();
  FlagSource saved = flags;
  Ctx c{b, insn, hooks_, flags, insn.address, insn.address + insn.info.length};
  if (!h(c)) {
    b.block().insts.resize(mark);  // the handler gave up part-way: drop what it emitted
    flags = saved;
    return false;
  }
  // An instruction that writes flags without recording itself as the flag
  // source invalidates fusion with an earlier one.
  bool writes_flags = insn.info.cpu_flags &&
                      (insn.info.cpu_flags->modified | insn.info.cpu_flags->set_0 |
                       insn.info.cpu_flags->set_1 | insn.info.cpu_flags->undefined) != 0;
  if (writes_flags && flags.result == saved.result && flags.kind == saved.kind) flags.kind = FlagSource::None;
  ends = c.ends_block;
  return true;
}

ir::Block Frontend::translate(uint64_t rip, unsigned max_insns) const {
  ir::Block block;
  block.guest_start = rip;
  ir::Builder b(block);
  FlagSource flags;
  uint64_t pc = rip;
  bool ends = false;
  while (!ends && block.guest_insns < max_insns) {
    DecodedInsn insn;
    if (!decoder_.decode(guest_code(pc), kMaxInsnLength, pc, insn)) {
      if (block.guest_insns > 0) break;
      // Natively an undecodable instruction raises SIGILL: so does the guest.
      b.emit(ir::Opcode::Trap, ir::Type::Void, ir::kNoValue, ir::kNoValue, ir::kNoValue, pc, SIGILL);
      block.guest_insns = 1;
      block.exit = ir::Exit{ir::ExitKind::Jump, ir::kNoValue, ir::kNoValue, pc, 0, 0};
      block.guest_end = pc + 1;
      return block;
    }
    if (!translate_one(b, insn, flags, ends)) {
      if (block.guest_insns == 0) report_untranslatable(insn, guest_code(pc));
      break;
    }
    ++block.guest_insns;
    pc += insn.info.length;
  }
  block.guest_end = pc;
  if (!ends) block.exit = ir::Exit{ir::ExitKind::Jump, ir::kNoValue, ir::kNoValue, pc, 0, 0};
  set_exit_liveness(block);
  return block;
}

// Flags the code at `rip` may read before writing them.  Follows direct
// jumps and both sides of conditional branches (within a small budget);
// flags are dead at a call or return (ABI), live at anything unknown.
uint64_t Frontend::flags_read_after(uint64_t rip, int budget) const {
  uint64_t live = 0, written = 0;
  uint64_t pc = rip;
  auto unknown_rest = [&] { return (live | (kAllArith & ~written)) & kAllArith; };
  while ((written & kAllArith) != kAllArith) {
    if (--budget < 0) return unknown_rest();
    DecodedInsn insn;
    if (!decoder_.decode(guest_code(pc), kMaxInsnLength, pc, insn) || !handlers_.find(insn.info.mnemonic))
      return unknown_rest();
    if (const ZydisAccessedFlags* f = insn.info.cpu_flags) {
      live |= f->tested & ~written;
      written |= f->modified | f->set_0 | f->set_1 | f->undefined;
    }
    uint64_t next = pc + insn.info.length;
    const ZydisDecodedOperand& op0 = insn.ops[0];
    bool direct = op0.type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op0.imm.is_relative;
    uint64_t target = next + static_cast<uint64_t>(op0.imm.value.s);
    switch (insn.info.mnemonic) {
      case ZYDIS_MNEMONIC_CALL:
      case ZYDIS_MNEMONIC_RET: return live & kAllArith;
      case ZYDIS_MNEMONIC_JMP:
        if (!direct) return unknown_rest();
        pc = target;
        continue;
      default: break;
    }
    if (insn.info.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE) {
      if (!direct) return unknown_rest();
      live |= flags_read_after(target, budget / 2) & ~written;
      budget /= 2;
    }
    pc = next;
  }
  return live & kAllArith;
}

void Frontend::set_exit_liveness(ir::Block& block) const {
  constexpr int kBudget = 24;
  ir::Exit& e = block.exit;
  if (e.abi_boundary) {
    e.live_flags = 0;
  } else {
    switch (e.kind) {
      case ir::ExitKind::Jump: e.live_flags = flags_read_after(e.target, kBudget); break;
      case ir::ExitKind::Branch:
        e.live_flags = flags_read_after(e.target, kBudget) | flags_read_after(e.fallthrough, kBudget);
        break;
      default: e.live_flags = kAllArith; break;
    }
  }
  e.live_flags |= kFlagMask(kDF);
}

void Frontend::report_untranslatable(const DecodedInsn& insn, const uint8_t* code) const {
  char where[64];
  std::snprintf(where, sizeof where, "at guest address %#" PRIx64 ": ", insn.address);
  throw Error(ErrorCode::PHYBIN_ERR_ILLEGAL_INSTR,
              std::string(where) + "cannot translate '" + decoder_.format(insn) + "' (" +
                  isa_extension_name(insn) + ", bytes " + bytes_hex(code, insn.info.length) +
                  "); phybin does not support this instruction set extension yet");
}

std::string Frontend::disassemble(uint64_t start, uint64_t end) const {
  std::string out;
  for (uint64_t pc = start; pc < end;) {
    DecodedInsn insn;
    if (!decoder_.decode(guest_code(pc), kMaxInsnLength, pc, insn)) break;
    char head[32];
    std::snprintf(head, sizeof head, "  %#" PRIx64 ": ", pc);
    out += head + decoder_.format(insn) + "\n";
    pc += insn.info.length;
  }
  return out;
}

}  // namespace phybin::x86
