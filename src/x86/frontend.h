// The x86-64 frontend: decodes one guest block with Zydis and turns it into
// IR through the per-family handlers.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/fp_mode.h"
#include "ir/ir.h"
#include "x86/context.h"
#include "x86/decoder.h"

namespace phybin::x86 {

inline constexpr unsigned kMaxBlockInsns = 64;

struct FrontendOptions {
  // Keep flags across calls and returns, which the System V ABI lets
  // compilers ignore (hand-written assembly may return results in flags).
  bool strict_flags = false;
  // The host has the AArch64 CRC32 instructions (HWCAP_CRC32): x86 crc32
  // becomes one crc32c instruction, else a helper call.
  bool host_crc32 = true;
  // The host has the 64x64-bit PMULL (HWCAP_PMULL): pclmulqdq inline, else
  // through a C++ helper.
  bool host_pmull = true;
  // The host has the AArch64 AES instructions (HWCAP_AES): the x86 AES
  // rounds and aesimc inline, else through a C++ helper.
  bool host_aes = true;
  // Superblocks: a block goes on past a conditional branch, which leaves
  // through a side exit when taken.  The fall-through path then costs no
  // branch and keeps its values in registers.
  bool side_exits = true;
  // XMM commit regions: a run of SSE instructions that write nothing but
  // XMM registers keeps its register writes in IR values and commits them
  // at its end (ir::Builder::defer_xmm_writes), so that a value nobody
  // reads is never written, and the NaN checks of the SSE arithmetic
  // group over the run (arm64/compile_vector_nan.cpp).  A fault inside
  // the run is replayed from its start (ir::Inst::replay).
  bool fp_regions = true;
};

// Where guest code may be fetched from.  The translator never reads guest
// memory beyond it: code may sit at the end of a mapping, next to memory
// that is unmapped or not executable, and a fetch there is the guest's
// SIGSEGV, not phybin's.
class CodeMemory {
 public:
  virtual ~CodeMemory() = default;
  // The end of the executable guest memory that holds `pc` (through
  // adjacent executable mappings), or `pc` itself when `pc` is not in
  // executable memory.
  virtual uint64_t executable_end(uint64_t pc) = 0;
};

class Frontend {
 public:
  explicit Frontend(const Hooks& hooks, const FrontendOptions& options = {});

  // Translates the block starting at `rip` (guest memory is readable at the
  // same host address), at most `max_insns` instructions.  When the first
  // instruction is one phybin cannot translate, the block is a Trap with
  // kTrapUntranslatable; a later one just ends the block before it.
  ir::Block translate(uint64_t rip, unsigned max_insns) const;
  // The same into `block`, whose storage is reused (the runtime's way).
  void translate(uint64_t rip, unsigned max_insns, ir::Block& block) const;

  // With SSE exceptions unmasked (GuestState::sse_trap_fpsr), each SSE
  // instruction that can raise one is checked: it raises SIGFPE when it
  // raised an unmasked exception.  Off: no checks, the code as usual.
  void set_fp_traps(bool on) { fp_traps_ = on; }
  bool fp_traps() const { return fp_traps_; }
  // The MXCSR modes FPCR cannot hold (DAZ or FTZ alone, exact DE).
  void set_fp_mode(const ir::FpMode& mode) { fp_mode_ = mode; }
  const ir::FpMode& fp_mode() const { return fp_mode_; }

  // Without one (unit tests), all guest memory counts as executable.
  void set_code_memory(CodeMemory* memory) { code_memory_ = memory; }

  // What PHYBIN_ERR_ILLEGAL_INSTR says about the instruction at `rip`.
  std::string untranslatable_message(uint64_t rip) const;
  // Guest code of [start, end) as text, one instruction a line.
  std::string disassemble(uint64_t start, uint64_t end) const;

  // True when the instruction at `rip` decodes and has a handler.
  bool can_translate(const DecodedInsn& insn) const;
  // Whether can_translate looks at the operands of an instruction with this
  // mnemonic (an MMX form has a handler of its own): else it needs only
  // DecodedInsn::info, and a decoder may skip the operands (phybin scan).
  bool needs_operands(ZydisMnemonic mnemonic) const { return mmx_handlers_.find(mnemonic) != nullptr; }
  const Decoder& decoder() const { return decoder_; }
  const FrontendOptions& options() const { return options_; }
  // Forgets what it learnt about guest code (after the code changed).
  void forget_code() const {
    live_in_.clear();
    for (size_t i = 0; i < kPeekedInsns; ++i) peeked_[i].pc = kNoPeek;
  }
  // Guest code outside the block that the last translate() looked at (to
  // decide which flags are dead at the exits), as [begin, end) ranges: the
  // translation depends on it as much as on the block's own bytes.
  const std::vector<std::pair<uint64_t, uint64_t>>& lookahead() const { return lookahead_; }

 private:
  // Whether to keep an instruction's flags lazily (x86/lazy_flags.h), and
  // the record when its operands stay in registers (0: stored).
  struct LazyRequest {
    bool wanted = false;
    uint64_t record = 0;
  };
  // lazy: in, what is asked; out, wanted cleared if the handler could not,
  // and the record made.
  // Registers flag writers save in GuestState::fault_spill for the fault
  // path (x86/fault_flags.h): by instruction, -1 for none.
  struct FaultSpills {
    int8_t reg[kMaxBlockInsns];
    bool before[kMaxBlockInsns];
  };
  bool translate_one(ir::Builder& b, const DecodedInsn& insn, uint64_t live_flags, FlagSource& flags, bool& ends,
                     LazyRequest& lazy) const;
  // Flags live around each instruction; `taken` after the conditional
  // branches a block goes on past, at their targets.
  struct Liveness {
    uint64_t after[kMaxBlockInsns], before[kMaxBlockInsns], taken[kMaxBlockInsns];
  };
  bool continues_after(const ZydisDecodedInstruction& insn) const;
  uint64_t live_in_for_others(const DecodedInsn* insns, size_t count, const Liveness& liveness,
                              const uint64_t* kept_for_fault, uint64_t live_in) const;
  bool emit_insns(ir::Builder& b, const DecodedInsn* insns, size_t count, const Liveness& live,
                  const FaultSpills& spills, size_t lazy_at, LazyRequest lazy) const;
  // XMM commit regions (FrontendOptions::fp_regions) in the block being
  // emitted: whether they are on, and the instructions of the open one.
  struct XmmRegion {
    bool on = false;
    bool failed = false;  // an instruction did more than expected: emit again without
    unsigned count = 0;
    uint32_t first_inst[kMaxBlockInsns];  // by instruction of the region; ~0u: no IR
    bool planned[kMaxBlockInsns];         // by instruction of the block (plan_regions)
  };
  void plan_regions(const DecodedInsn* insns, size_t count, const FaultSpills& spills, size_t lazy_at) const;
  bool commits_only_xmm(const DecodedInsn& insn) const;
  void close_region(ir::Builder& b, XmmRegion& region) const;
  bool note_region_insn(const ir::Block& block, size_t first) const;
  static constexpr unsigned kMaxReplay = 31;  // the fault path's marks have five bits for it
  void restart_block(ir::Builder& b) const;
  uint64_t exit_liveness(const DecodedInsn& last, uint64_t next) const;
  void flags_kept_for_faults(const DecodedInsn* insns, size_t count, uint64_t* kept, FaultSpills& spills) const;
  uint64_t flags_read_after(uint64_t rip, int budget) const;
  struct PeekInfo {
    // FlagsEnd: a call, return or indirect jump, past which no flag is live
    // to the code before it (unless strict_flags).
    enum Kind : uint8_t { Plain, FlagsEnd, Jump, Branch, Unknown } kind = Plain;
    uint8_t length = 0;
    // maybe: written unless a count is 0 (shifts by CL), so the flags
    // before show through.  keeps_flags: an indirect jump, across which
    // its block keeps what it computed, those flags included.
    uint16_t tested = 0, killed = 0, maybe = 0;
    bool keeps_flags = false;
    uint64_t target = 0;
  };
  bool peek(uint64_t pc, PeekInfo& out) const;
  // How many bytes from `pc` on may be fetched, at most one instruction's.
  size_t fetchable(uint64_t pc) const;
  void trap_block(ir::Builder& b, uint64_t pc, unsigned length, int code) const;
  void note_lookahead(uint64_t begin, uint64_t end) const {
    if (!lookahead_.empty() && lookahead_.back().first <= begin && begin <= lookahead_.back().second) {
      if (end > lookahead_.back().second) lookahead_.back().second = end;
      return;
    }
    new_lookahead_range(begin, end);
  }
  void new_lookahead_range(uint64_t begin, uint64_t end) const;

  Decoder decoder_;
  HandlerTable handlers_;
  bool fp_traps_ = false;
  ir::FpMode fp_mode_;
  mutable XmmRegion region_;
  HandlerTable mmx_handlers_;  // for instructions with MM register operands
  Handler handler_for(const DecodedInsn& insn) const;
  Hooks hooks_;
  FrontendOptions options_;
  CodeMemory* code_memory_ = nullptr;
  // The executable range fetchable() found last: [fetch_begin_, fetch_end_).
  mutable uint64_t fetch_begin_ = 0, fetch_end_ = 0;
  // Translation scratch and knowledge, not part of the frontend's meaning.
  mutable std::unique_ptr<DecodedInsn[]> decode_buffer_;
  mutable unsigned decode_capacity_ = 0;
  // Flags read on entry to each translated block start, which is exact and
  // saves decoding ahead when another block jumps there.
  mutable std::unordered_map<uint64_t, uint64_t> live_in_;
  // The instructions peek() decoded, by address (direct-mapped): what
  // looking ahead needs of each, and, as a block looked at ahead is usually
  // translated soon after, what finishing its decoding needs.
  static constexpr uint64_t kNoPeek = ~uint64_t{0};
  static constexpr size_t kPeekedInsns = 1024;
  struct PeekedInsn {
    uint64_t pc = kNoPeek;
    PeekInfo peek;
    ZydisDecodedInstruction info;
    ZydisDecoderContext context;
    uint8_t bytes[ZYDIS_MAX_INSTRUCTION_LENGTH];  // what was decoded: code may change without forget_code()
  };
  mutable std::unique_ptr<PeekedInsn[]> peeked_{new PeekedInsn[kPeekedInsns]};
  bool decode_at(uint64_t pc, size_t available, DecodedInsn& out) const;
  bool may_fault_at(uint64_t pc, const PeekedInsn& peeked) const;
  mutable std::vector<std::pair<uint64_t, uint64_t>> lookahead_;
};

}  // namespace phybin::x86
