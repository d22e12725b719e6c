#include "x86/frontend.h"

#include <cinttypes>
#include <csignal>
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "x86/fault_flags.h"
#include "x86/lazy_flags.h"

namespace phybin::x86 {

namespace {
constexpr size_t kMaxInsnLength = 15;
constexpr uint64_t kAllArith = kArithFlags;

const uint8_t* guest_code(uint64_t address) { return reinterpret_cast<const uint8_t*>(address); }
}  // namespace

Frontend::Frontend(const Hooks& hooks, const FrontendOptions& options) : hooks_(hooks), options_(options) {
  register_alu(handlers_);
  register_data(handlers_);
  register_branch(handlers_);
  register_shift(handlers_);
  register_muldiv(handlers_);
  register_bits(handlers_);
  register_string(handlers_);
  register_system(handlers_);
  register_x87(handlers_);
  register_sse(handlers_);
  register_mmx(mmx_handlers_, handlers_);
  register_bmi(handlers_);
  register_intext(handlers_);
  register_sse42(handlers_, options.host_crc32);
  register_aes(handlers_, options.host_pmull, options.host_aes);
  register_sha(handlers_);
}

// MMX forms share their mnemonics with the SSE ones; a mnemonic only the
// MMX table knows (cvtpi2ps xmm, m64) goes there too.
Handler Frontend::handler_for(const DecodedInsn& insn) const {
  const Handler main = handlers_.find(insn.info.mnemonic);
  const Handler mmx = mmx_handlers_.find(insn.info.mnemonic);
  if (!mmx) return main;  // most instructions: no operand scan
  for (unsigned i = 0; i < insn.info.operand_count_visible; ++i)
    if (insn.ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
        ZydisRegisterGetClass(insn.ops[i].reg.value) == ZYDIS_REGCLASS_MMX)
      return mmx;
  return main ? main : mmx;
}

bool Frontend::can_translate(const DecodedInsn& insn) const { return handler_for(insn) != nullptr; }

namespace {

// Intel's exception types 2 and 3: the SSE instructions that can raise
// SIMD floating-point exceptions.
bool may_raise_simd_fp_exception(const ZydisDecodedInstruction& insn) {
  return insn.meta.exception_class == ZYDIS_EXCEPTION_CLASS_SSE2 ||
         insn.meta.exception_class == ZYDIS_EXCEPTION_CLASS_SSE3;
}

}  // namespace

bool Frontend::translate_one(ir::Builder& b, const DecodedInsn& insn, uint64_t live_flags, FlagSource& flags,
                             bool& ends, LazyRequest& lazy) const {
  Handler h = handler_for(insn);
  if (!h) return false;
  size_t mark = b.block().insts.size();
  FlagSource saved = flags;
  Ctx c{b, insn, hooks_, flags, insn.address, insn.address + insn.info.length};
  // Kept lazily, the instruction computes none of its own flags.
  c.live_flags = lazy.wanted ? live_flags & ~kAllArith : live_flags;
  c.lazy_flags = lazy.wanted;
  c.lazy_record = lazy.record;
  const bool checked = fp_traps_ && may_raise_simd_fp_exception(insn.info);
  if (checked) b.emit(ir::Opcode::FpTrapBegin, ir::Type::Void);
  const bool done = h(c);
  if (!done || (lazy.wanted && !c.lazy_recorded)) {
    b.block().insts.resize(mark);  // the handler gave up part-way: drop what it emitted
    flags = saved;
    if (!done) return false;
    lazy = LazyRequest{};  // its flags are not made by the shared flag code: compute them
    return translate_one(b, insn, live_flags, flags, ends, lazy);
  }
  lazy.record = c.lazy_record;
  if (checked) b.emit(ir::Opcode::FpTrapCheck, ir::Type::Void, ir::kNoValue, ir::kNoValue, ir::kNoValue, insn.address);

  // An instruction that writes flags without recording itself as the flag
  // source invalidates fusion with an earlier one.
  bool writes_flags = insn.info.cpu_flags &&
                      (insn.info.cpu_flags->modified | insn.info.cpu_flags->set_0 |
                       insn.info.cpu_flags->set_1 | insn.info.cpu_flags->undefined) != 0;
  if (writes_flags && flags.result == saved.result && flags.kind == saved.kind) flags.kind = FlagSource::None;
  ends = c.ends_block;
  return true;
}

namespace {

// Instructions looked at past a block's end for the flags it leaves live
// (SSE runs touch no flags: looked past).
constexpr int kLookaheadBudget = 40;
// Conditional branches a block goes on past (FrontendOptions::side_exits).
constexpr unsigned kMaxSideExits = 1;

// The flags live before `insn`, from those live after it (and those a
// fault at it shows, which count as read).
uint64_t live_before(const ZydisDecodedInstruction& insn, uint64_t live_after, uint64_t kept_for_fault) {
  return (live_after & ~flags_killed(insn)) | flags_tested(insn) | kept_for_fault;
}

bool ends_block(const ZydisDecodedInstruction& insn) {
  return insn.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE || always_traps(insn);
}

uint64_t relative_target(const ZydisDecodedInstruction& insn, uint64_t pc) {
  return pc + insn.length + static_cast<uint64_t>(insn.raw.imm[0].value.s);
}

bool is_direct(const ZydisDecodedInstruction& insn) { return insn.raw.imm[0].is_relative; }

// Which instruction's flags a block ending in `jmp reg|mem` keeps lazily
// (x86/lazy_flags.h): the last one writing flags, when its flags come from
// the shared add/sub/logic/inc/dec code and nothing after it reads flags;
// `count` when none.
size_t lazy_flag_source(const DecodedInsn* insns, size_t count) {
  const ZydisDecodedInstruction& last = insns[count - 1].info;
  if (last.mnemonic != ZYDIS_MNEMONIC_JMP || is_direct(last)) return count;
  for (size_t i = count - 1; i-- > 0;) {
    const ZydisDecodedInstruction& insn = insns[i].info;
    if (flags_tested(insn)) return count;
    if (!(flags_killed(insn) & kAllArith)) {
      // A shift or rotate by CL writes its flags only when the count is not
      // 0: then neither it nor a writer before it stands for the flags at
      // the jump.
      if (flags_maybe_written(insn) & kAllArith) return count;
      continue;
    }
    switch (insn.mnemonic) {
      case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_CMP: case ZYDIS_MNEMONIC_AND:
      case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_TEST: case ZYDIS_MNEMONIC_INC:
      case ZYDIS_MNEMONIC_DEC: case ZYDIS_MNEMONIC_NEG:
        return i;
      default: return count;
    }
  }
  return count;
}

// The lazy record of insns[i] whose operands (or result) are in guest
// registers that nothing after it in the block writes: the record then
// costs no instruction.  0 when memory operands or later writes forbid it.
uint64_t register_record(const DecodedInsn* insns, size_t i, size_t count) {
  const DecodedInsn& d = insns[i];
  LazyOp op;
  bool result_in_x = true, has_b = true;
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ADD: op = LazyOp::Add; break;
    case ZYDIS_MNEMONIC_SUB: op = LazyOp::Sub; break;
    case ZYDIS_MNEMONIC_CMP: op = LazyOp::Sub, result_in_x = false; break;
    case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR: op = LazyOp::Logic; break;
    case ZYDIS_MNEMONIC_TEST: op = LazyOp::Test, result_in_x = false; break;
    case ZYDIS_MNEMONIC_INC: op = LazyOp::Inc, has_b = false; break;
    case ZYDIS_MNEMONIC_DEC: op = LazyOp::Dec, has_b = false; break;
    case ZYDIS_MNEMONIC_NEG: op = LazyOp::Neg, has_b = false; break;
    default: return 0;
  }
  const int x = d.ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ? whole_gpr_number(d.ops[0].reg.value) : -1;
  if (x < 0) return 0;
  uint64_t record = lazy_record::with_x(lazy_record::of(op, d.info.operand_width / 8), static_cast<unsigned>(x));
  if (result_in_x) record |= lazy_record::kResultInX;
  int y = -1;
  if (has_b && d.ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
    record = lazy_record::with_immediate(record, d.ops[1].imm.value.u & 0xffffffff);
  } else if (has_b) {
    y = d.ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER ? whole_gpr_number(d.ops[1].reg.value) : -1;
    if (y < 0 || (y == x && result_in_x)) return 0;
    record = lazy_record::with_y(record, static_cast<unsigned>(y));
  }
  for (size_t j = i + 1; j < count; ++j)
    if (writes_gpr(insns[j], x) || (y >= 0 && writes_gpr(insns[j], y))) return 0;
  return record;
}

// Whether IR from `first` on reads RFLAGS or hands it to C++ (which a
// lazy record must not be followed by).
bool reads_rflags(const ir::Block& block, size_t first) {
  for (size_t v = first; v < block.insts.size(); ++v) {
    switch (block.insts[v].op) {
      case ir::Opcode::GetFlag: case ir::Opcode::GetFlags: case ir::Opcode::CallHelper: case ir::Opcode::CallNative:
      case ir::Opcode::Trap:
      case ir::Opcode::FpTrapCheck:
        return true;
      default: break;
    }
  }
  return false;
}

}  // namespace

// Decodes the block first, then knows for every instruction which flags
// are read after it, so handlers only compute flags somebody reads.
ir::Block Frontend::translate(uint64_t rip, unsigned max_insns) const {
  ir::Block block;
  translate(rip, max_insns, block);
  return block;
}

void Frontend::translate(uint64_t rip, unsigned max_insns, ir::Block& block) const {
  max_insns = std::min(max_insns, kMaxBlockInsns);
  lookahead_.clear();
  block.insts.clear();  // keeps its capacity: no allocation per block
  block.guest_start = rip;
  block.guest_end = 0;
  block.guest_insns = 0;
  block.flags_live_in = 0;
  block.xmm_regions = false;
  block.exit = ir::Exit{};
  block.side_exits.clear();
  block.insts.reserve(max_insns * 16);
  ir::Builder b(block);
  b.set_fp_mode(fp_mode_);
  if (uint64_t* counter = hooks_.block_counter ? hooks_.block_counter(rip) : nullptr) {
    const ir::Value at = b.constant(ir::Type::I64, reinterpret_cast<uint64_t>(counter));
    b.store(at, b.binary(ir::Opcode::Add, ir::Type::I64, b.load(ir::Type::I64, at), b.constant(ir::Type::I64, 1)));
  }
  // Decoded instructions are big (operands included): one buffer, reused.
  if (max_insns > decode_capacity_) {
    decode_buffer_.reset(new DecodedInsn[max_insns]);
    decode_capacity_ = max_insns;
  }
  DecodedInsn* insns_begin = decode_buffer_.get();
  size_t count = 0;
  unsigned side_exits = 0;
  uint64_t pc = rip;
  fetch_begin_ = fetch_end_ = 0;  // the guest's mappings may have changed since the last block
  while (count < max_insns) {
    DecodedInsn& insn = insns_begin[count++];
    const size_t available = fetchable(pc);
    if (available == 0 || !decode_at(pc, available, insn)) {
      --count;
      if (count) break;
      // Natively an undecodable instruction raises SIGILL, and one that runs
      // into memory it cannot fetch raises SIGSEGV: so does the guest.
      const int signal = available < kMaxInsnLength && insn.truncated ? kTrapCodeFetch : SIGILL;
      trap_block(b, pc, 1, signal);
      return;
    }
    if (!can_translate(insn)) {
      --count;
      if (count) break;
      trap_block(b, pc, insn.info.length, kTrapUntranslatable);
      return;
    }
    pc += insn.info.length;
    // Past a conditional branch only into code no block starts at yet
    // (else that block's code would be translated twice), and only once:
    // code jumped into later is translated again from there, and past
    // more branches that duplication cost more translation (start-up)
    // than the side exits saved (measured on bench/run and python3).
    if (ends_block(insn.info) &&
        !(continues_after(insn.info) && !live_in_.contains(pc) && ++side_exits <= kMaxSideExits))
      break;
  }
  const DecodedInsn* insns = insns_begin;
  // Flags live after each instruction, from the exit backwards; a branch
  // inside the block adds what its target reads.
  Liveness liveness;
  // A fault handler sees RFLAGS: as if read by each instruction that may
  // fault, of the flags the fault path cannot work out.  By default only
  // those read later (live there: a handler that returns resumes with
  // them), so that they are exactly as on the CPU; a flag overwritten
  // unread may show the value from before in a handler.  Keeping every
  // flag exact cost python3's start-up 7% (3.7M instructions of 53M).
  // With PHYBIN_STRICT_FLAGS=1 a handler sees every flag exact.
  uint64_t kept_for_fault[kMaxBlockInsns];
  FaultSpills spills;
  flags_kept_for_faults(insns, count, kept_for_fault, spills);
  const uint64_t* kept = options_.strict_flags ? kept_for_fault : nullptr;
  uint64_t live = exit_liveness(insns[count - 1], pc);
  for (size_t i = count; i-- > 0;) {
    liveness.taken[i] = 0;
    if (i + 1 < count && continues_after(insns[i].info))
      liveness.taken[i] = flags_read_after(relative_target(insns[i].info, insns[i].address), kLookaheadBudget);
    liveness.after[i] = live | liveness.taken[i];
    live = liveness.before[i] = live_before(insns[i].info, liveness.after[i], kept ? kept[i] : 0);
  }
  // Live flags are live before every instruction before too: masking
  // after the pass leaves the liveness as it is.
  if (!kept)
    for (size_t i = 0; i < count; ++i) kept_for_fault[i] &= liveness.before[i];
  block.flags_live_in = live & kAllArith;
  live_in_[rip] = live_in_for_others(insns, count, liveness, kept_for_fault, live);
  // PHYBIN_STRICT_FLAGS computes the flags before an indirect jump: a
  // fault in the target before it reads flags shows them all.
  size_t lazy_at = options_.strict_flags ? count : lazy_flag_source(insns, count);
  // A lazy writer computes none of its flags: not when a fault after it needs them.
  for (size_t j = lazy_at + 1; j < count; ++j)
    if (kept_for_fault[j] & flags_killed(insns[lazy_at].info)) {
      lazy_at = count;
      break;
    }
  const LazyRequest lazy{lazy_at < count, lazy_at < count ? register_record(insns, lazy_at, count) : 0};
  region_.on = options_.fp_regions && !fp_traps_ && !fp_mode_.any();
  // emit_insns fails when an instruction of a region made IR a region
  // cannot hold (then without regions) or when the lazy record did not
  // work out (then computing the flags): emitted again.
  for (bool lazy_on = lazy_at < count;;) {
    region_.failed = false;
    if (emit_insns(b, insns, count, liveness, spills, lazy_on ? lazy_at : count, lazy_on ? lazy : LazyRequest{}))
      return;
    restart_block(b);
    if (region_.failed) region_.on = false;
    else if (lazy_on) lazy_on = false;
    else return;  // no other way to fail
  }
}

void Frontend::restart_block(ir::Builder& b) const {
  ir::Block& block = b.block();
  if (b.deferring_xmm_writes()) b.commit_xmm_writes();
  block.insts.clear();
  block.side_exits.clear();
  block.guest_insns = 0;
  block.xmm_regions = false;
  block.exit = ir::Exit{};
}

// The IR of insns[0..count), with flags live after each as given; the
// instruction at lazy_at (< count) keeps its flags in a lazy record for the
// indirect exit, as `lazy` asks.  False when that could not be done.
bool Frontend::emit_insns(ir::Builder& b, const DecodedInsn* insns, size_t count, const Liveness& live,
                          const FaultSpills& spills, size_t lazy_at, LazyRequest lazy_request) const {
  ir::Block& block = b.block();
  FlagSource flags;
  bool ends = false, lazy_recorded = false;
  uint64_t record = 0;
  size_t after_lazy = block.insts.size();
  XmmRegion& region = region_;
  region.count = 0;
  if (region.on) plan_regions(insns, count, spills, lazy_at);
  for (size_t i = 0; i < count && !ends; ++i) {
    // At most kMaxReplay instructions: the fault path's marks count them.
    const bool in_region = region.on && region.planned[i];
    if (b.deferring_xmm_writes() && (!in_region || region.count == kMaxReplay)) close_region(b, region);
    if (in_region && !b.deferring_xmm_writes()) b.defer_xmm_writes();
    const size_t first = block.insts.size();
    LazyRequest lazy = i == lazy_at ? lazy_request : LazyRequest{};
    const auto save_spill = [&] {
      b.store_state(offsetof(GuestState, fault_spill), b.get_reg(static_cast<uint8_t>(spills.reg[i])));
    };
    if (spills.reg[i] >= 0 && spills.before[i]) save_spill();
    if (!translate_one(b, insns[i], live.after[i] | kFlagMask(kDF), flags, ends, lazy)) {
      // What it held back may be half an instruction's: again without regions.
      if (in_region) {
        region.failed = true;
        return false;
      }
      block.insts.resize(first);
      if (i == 0) {
        trap_block(b, insns[0].address, insns[0].info.length, kTrapUntranslatable);
        return true;
      }
      break;
    }
    if (in_region && !note_region_insn(block, first)) {
      region.failed = true;  // the caller emits the block again without regions
      return false;
    }
    if (spills.reg[i] >= 0 && !spills.before[i]) save_spill();
    if (ends && i + 1 < count && block.exit.kind == ir::ExitKind::Branch) {
      // A branch the block goes on past: its taken side leaves here.
      b.side_exit(block.exit.cond, block.exit.target, live.taken[i] | kFlagMask(kDF));
      block.exit = ir::Exit{};
      ends = false;
    }
    if (lazy.wanted) {
      lazy_recorded = true;
      record = lazy.record;
      after_lazy = block.insts.size();
    }
    ++block.guest_insns;
    // Where this instruction's IR begins: lets a fault be mapped back to it.
    if (block.insts.size() > first) {
      ir::Inst& start = block.insts[first];
      start.insn_start = true;
      start.guest_offset = static_cast<uint16_t>(insns[i].address - block.guest_start);
      start.flags_live_in = static_cast<uint16_t>(live.before[i] & kAllArith);
    }
  }
  if (b.deferring_xmm_writes()) close_region(b, region);
  if (region.failed) return false;
  const DecodedInsn& last = insns[block.guest_insns - 1];
  block.guest_end = last.address + last.info.length;
  if (!ends) block.exit = ir::Exit{ir::ExitKind::Jump, ir::kNoValue, ir::kNoValue, block.guest_end, 0, 0};
  ir::Exit& exit = block.exit;
  exit.live_flags = live.after[block.guest_insns - 1] | kFlagMask(kDF);
  if (lazy_at < count && (!lazy_recorded || exit.kind != ir::ExitKind::Indirect || reads_rflags(block, after_lazy)))
    return false;
  if (lazy_recorded) exit.lazy_flags_record = record;
  return true;
}

// Before each of insns[0..count), the flags a fault there must find in
// RFLAGS because the fault path cannot work them out (x86/fault_flags.h).
// Fills `spills` with the registers writers save for it.
void Frontend::flags_kept_for_faults(const DecodedInsn* insns, size_t count, uint64_t* kept, FaultSpills& spills) const {
  FaultFlagTracker tracker;
  size_t last_writer = 0;
  uint64_t killed = 0;  // by the instructions so far (strict_flags only)
  for (size_t i = 0; i < count; ++i) {
    kept[i] = 0;
    spills.reg[i] = -1;
    const InsnEffects effects = effects_of(insns[i], fp_traps_);
    if (effects.may_fault) {
      // PHYBIN_STRICT_FLAGS: flags from before the block too, which the
      // code before computes when this block reads them (live-in).
      kept[i] = tracker.unrecoverable() | (options_.strict_flags ? kAllArith & ~killed : 0);
      bool before;
      const int r = tracker.spill_wanted(before);
      if (r >= 0) {
        spills.reg[last_writer] = static_cast<int8_t>(r);
        spills.before[last_writer] = before;
      }
    }
    if (tracker.step(insns[i], effects)) last_writer = i;
    if (options_.strict_flags) killed |= flags_killed(insns[i].info);
    // Past a conditional branch the block goes on as a new one would
    // start: with the flags its exits leave in RFLAGS (only those the
    // targets read), not with every flag a fault there could show.
    if (i + 1 < count && continues_after(insns[i].info)) tracker = FaultFlagTracker{};
  }
}

// What other blocks' look-ahead takes this block to read of the flags they
// leave.  An indirect jump keeps the flags this block computes (lazily,
// for an interpreter's dispatch or hand-written assembly), but flags from
// before the block are dead past it, as across calls and returns: compiled
// code never carries flags through a switch table, a tail call or a
// computed goto, and keeping them cost every block before one all six
// flags computed.  PHYBIN_STRICT_FLAGS=1 keeps them all.  A shift by CL
// that no later instruction overwrites is computed here too: with a count
// of 0 its flags are those from before, which are then live.
uint64_t Frontend::live_in_for_others(const DecodedInsn* insns, size_t count, const Liveness& liveness,
                                      const uint64_t* kept_for_fault, uint64_t live_in) const {
  const ZydisDecodedInstruction& last = insns[count - 1].info;
  if (options_.strict_flags || last.mnemonic != ZYDIS_MNEMONIC_JMP || is_direct(last)) return live_in;
  uint64_t live = 0, killed_after = 0;
  for (size_t i = count; i-- > 0;) {
    const ZydisDecodedInstruction& insn = insns[i].info;
    live = live_before(insn, live | liveness.taken[i], kept_for_fault[i]);
    live |= flags_maybe_written(insn) & ~flags_killed(insn) & ~killed_after;
    killed_after |= flags_killed(insn);
  }
  return live;
}

bool Frontend::continues_after(const ZydisDecodedInstruction& insn) const {
  return options_.side_exits && insn.meta.category == ZYDIS_CATEGORY_COND_BR && is_direct(insn);
}

// Flags read after the block's last instruction `last`, which ends at `next`.
uint64_t Frontend::exit_liveness(const DecodedInsn& last, uint64_t next) const {
  const ZydisDecodedInstruction& info = last.info;
  if (always_traps(info)) return kAllArith;  // a signal handler sees every flag
  switch (info.mnemonic) {
    case ZYDIS_MNEMONIC_CALL:
    case ZYDIS_MNEMONIC_RET:
      // System V: flags mean nothing across calls.  PHYBIN_STRICT_FLAGS=1
      // keeps them for assembly that returns results in flags.
      return options_.strict_flags ? kAllArith : 0;
    case ZYDIS_MNEMONIC_JMP:
      if (is_direct(info)) return flags_read_after(relative_target(info, last.address), kLookaheadBudget);
      // Interpreter dispatch and hand-written assembly may read flags after
      // an indirect jump; kept lazily where cheap (emit_insns).
      return kAllArith;
    default: break;
  }
  if (info.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE)
    return is_direct(info) ? flags_read_after(relative_target(info, last.address), kLookaheadBudget) |
                                 flags_read_after(next, kLookaheadBudget)
                           : kAllArith;
  return flags_read_after(next, kLookaheadBudget);
}

// What looking ahead needs of one instruction, kept (peeked_) so that
// code is rarely decoded for look-ahead twice.  A copy: a later peek may
// reuse the slot.
bool Frontend::peek(uint64_t pc, PeekInfo& out) const {
  PeekedInsn& peeked = peeked_[pc % kPeekedInsns];
  if (peeked.pc == pc) {
    out = peeked.peek;
    return true;
  }
  const ZydisDecodedInstruction& insn = peeked.info;
  const size_t available = fetchable(pc);
  peeked.pc = kNoPeek;
  if (available == 0 || !decoder_.decode_instruction(guest_code(pc), available, peeked.info, peeked.context) ||
      !handlers_.find(insn.mnemonic))
    return false;
  PeekInfo& info = peeked.peek;
  info = PeekInfo{};
  info.tested = static_cast<uint16_t>(flags_tested(insn));
  info.killed = static_cast<uint16_t>(flags_killed(insn));
  info.maybe = static_cast<uint16_t>(flags_maybe_written(insn) & ~flags_killed(insn));
  info.length = insn.length;
  const bool indirect_jump = insn.mnemonic == ZYDIS_MNEMONIC_JMP && !is_direct(insn);
  if ((insn.mnemonic == ZYDIS_MNEMONIC_CALL || insn.mnemonic == ZYDIS_MNEMONIC_RET || indirect_jump) &&
      !options_.strict_flags) {
    info.kind = PeekInfo::FlagsEnd;
    info.keeps_flags = indirect_jump;
  }
  else if (insn.mnemonic == ZYDIS_MNEMONIC_JMP) info.kind = is_direct(insn) ? PeekInfo::Jump : PeekInfo::Unknown;
  else if (insn.meta.branch_type != ZYDIS_BRANCH_TYPE_NONE) info.kind = is_direct(insn) ? PeekInfo::Branch : PeekInfo::Unknown;
  info.target = is_direct(insn) ? relative_target(insn, pc) : 0;
  // PHYBIN_STRICT_FLAGS: a handler of a fault here sees every flag.
  if (options_.strict_flags && may_fault_at(pc, peeked)) info.tested = kAllArith;
  // Without a CodeMemory (unit tests) nothing tells how far the code goes:
  // no copy, and decode_at does not reuse the decode.
  if (code_memory_) std::memcpy(peeked.bytes, guest_code(pc), insn.length);
  peeked.pc = pc;
  out = info;
  return true;
}

// Flags the code at `rip` may read before writing them.  Follows direct
// jumps and both sides of conditional branches (within a small budget);
// flags are dead at a call or return (ABI) and at an indirect jump (see
// live_in_for_others), live at anything unknown.
uint64_t Frontend::flags_read_after(uint64_t rip, int budget) const {
  auto known = live_in_.find(rip);
  if (known != live_in_.end()) {
    note_lookahead(rip, rip + 1);  // a block start: its translation is registered there
    return known->second;
  }
  uint64_t live = 0, written = 0;
  uint64_t shown_through = 0;  // flags a shift by CL of 0 would leave as they come in
  uint64_t pc = rip;
  uint64_t run = rip;  // start of the straight run of code being read (for lookahead())
  bool flags_end = false;
  while ((written & kAllArith) != kAllArith) {
    if (--budget < 0) break;
    PeekInfo peeked;
    if (!peek(pc, peeked)) break;
    const PeekInfo* insn = &peeked;
    live |= insn->tested & ~written;
    shown_through = (shown_through | (insn->maybe & ~written)) & ~insn->killed;
    written |= insn->killed;
    if (insn->kind == PeekInfo::FlagsEnd) {
      flags_end = true;
      if (insn->keeps_flags) live |= shown_through;
      pc += insn->length - 1;  // the scan read up to the end of the call
      break;
    }
    if (insn->kind == PeekInfo::Unknown) break;
    if (insn->kind == PeekInfo::Jump) {
      note_lookahead(run, pc + insn->length);
      pc = run = insn->target;
      continue;
    }
    if (insn->kind == PeekInfo::Branch) {
      note_lookahead(run, pc + insn->length);
      run = pc + insn->length;
      live |= flags_read_after(insn->target, budget / 2) & ~written;
      budget /= 2;
    }
    pc += insn->length;
  }
  note_lookahead(run, pc + 1);  // up to (the first byte of) what stopped the scan
  if (flags_end) return live;
  return (live | (kAllArith & ~written)) & kAllArith;
}

// Whether the instruction peeked at `pc` may fault (fault_flags.h).
bool Frontend::may_fault_at(uint64_t pc, const PeekedInsn& peeked) const {
  DecodedInsn insn;
  insn.info = peeked.info;
  insn.truncated = false;
  return !decoder_.finish(peeked.context, pc, insn) || may_fault(insn, fp_traps_);
}

bool Frontend::decode_at(uint64_t pc, size_t available, DecodedInsn& out) const {
  // A page the guest may write (being written now: no protection tells)
  // can hold other code than when it was looked at: reuse only the same bytes.
  const PeekedInsn& peeked = peeked_[pc % kPeekedInsns];
  if (!code_memory_ || peeked.pc != pc || peeked.info.length > available ||
      std::memcmp(peeked.bytes, guest_code(pc), peeked.info.length) != 0)
    return decoder_.decode(guest_code(pc), available, pc, out);
  out.info = peeked.info;
  out.truncated = false;
  return decoder_.finish(peeked.context, pc, out);
}

size_t Frontend::fetchable(uint64_t pc) const {
  if (!code_memory_) return kMaxInsnLength;
  if (pc < fetch_begin_ || pc >= fetch_end_) {
    fetch_begin_ = pc;
    fetch_end_ = code_memory_->executable_end(pc);  // == pc: nothing, asked again next time
  }
  return static_cast<size_t>(std::min<uint64_t>(kMaxInsnLength, fetch_end_ - pc));
}

void Frontend::new_lookahead_range(uint64_t begin, uint64_t end) const { lookahead_.emplace_back(begin, end); }

// The block of one instruction that traps: the runtime delivers what the
// CPU would (SIGILL, SIGSEGV) or, for an instruction phybin does not
// translate and a guest without a SIGILL handler, stops with
// PHYBIN_ERR_ILLEGAL_INSTR.
void Frontend::trap_block(ir::Builder& b, uint64_t pc, unsigned length, int code) const {
  ir::Block& block = b.block();
  block.insts.clear();
  block.side_exits.clear();
  b.emit(ir::Opcode::Trap, ir::Type::Void, ir::kNoValue, ir::kNoValue, ir::kNoValue, pc, code);
  block.guest_insns = 1;
  block.flags_live_in = kAllArith;  // the signal handler sees them all
  block.exit = ir::Exit{ir::ExitKind::Jump, ir::kNoValue, ir::kNoValue, pc, 0, 0};
  block.guest_end = pc + length;
}

std::string Frontend::untranslatable_message(uint64_t rip) const {
  char where[64];
  std::snprintf(where, sizeof where, "at guest address %#" PRIx64 ": ", rip);
  DecodedInsn insn;
  const size_t available = fetchable(rip);
  if (available == 0 || !decoder_.decode(guest_code(rip), available, rip, insn))
    return std::string(where) + "cannot translate the instruction";
  return std::string(where) + "cannot translate '" + decoder_.format(insn) + "' (" + isa_extension_name(insn) +
         ", bytes " + bytes_hex(guest_code(rip), insn.info.length) +
         "); phybin does not support this instruction set extension yet";
}

std::string Frontend::disassemble(uint64_t start, uint64_t end) const {
  std::string out;
  for (uint64_t pc = start; pc < end;) {
    DecodedInsn insn;
    const size_t available = fetchable(pc);
    if (available == 0 || !decoder_.decode(guest_code(pc), available, pc, insn)) break;
    char head[32];
    std::snprintf(head, sizeof head, "  %#" PRIx64 ": ", pc);
    out += head + decoder_.format(insn) + "\n";
    pc += insn.info.length;
  }
  return out;
}

}  // namespace phybin::x86
