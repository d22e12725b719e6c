// What an instruction-family handler sees while it turns one decoded x86
// instruction into IR, and how families register their handlers.
#pragma once

#include <array>

#include "common/guest_state.h"
#include "ir/builder.h"
#include "ir/native_call.h"
#include "x86/decoder.h"

namespace phybin::x86 {

// Functions outside the frontend that translated code calls; the runtime
// fills them in (the frontend must not depend on the Linux layer).
// Every C++ function translated code calls has this shape (CallHelper).
using HelperFn = uint64_t (*)(GuestState*, uint64_t, uint64_t);

struct Hooks {
  HelperFn syscall = nullptr;
  // `int 0x80`: the i386 system call from 64-bit code.  Without it the
  // instruction is #GP, as on a kernel without IA32 emulation.
  HelperFn int80 = nullptr;
  // Delivers a synchronous guest signal (SIGFPE of a divide, SIGILL...);
  // does not return when the signal kills the guest.
  void (*raise_signal)(GuestState*, int signal) = nullptr;
  // The guest unmasked its first SSE exception or masked its last one: code
  // must be translated with (or without) exception checks from the next
  // instruction on.  Called by the MXCSR helpers.
  void (*fp_traps_changed)(GuestState*) = nullptr;
  // A syscall whose RAX is the known number `nr` of a forwarded function
  // whose arguments all travel in registers: true with its shape, and the
  // translation calls it directly (ir CallNative).
  bool (*native_call)(uint64_t nr, ir::NativeCallShape& shape) = nullptr;
  // PHYBIN_PROFILE: a counter the block at `guest` increments as it
  // starts (its run count), or nullptr.
  uint64_t* (*block_counter)(uint64_t guest) = nullptr;
  // True when the XMM commit region starting at `guest` found x86's NaN
  // rules broken at its end before (ir FpRegionCheck): its operations are
  // then checked one by one, so that a program making NaNs of invalid
  // operations all the time does not replay the region every time.
  bool (*region_check_failed)(uint64_t guest) = nullptr;
};

// The last instruction that set the arithmetic flags in this block, so a
// following jcc/setcc/cmovcc can compare its operands directly instead of
// rebuilding the condition from individual flags.
struct FlagSource {
  // FCmp: comis/ucomis of vectors a and b (lane, signaling in `fcmp_imm`).
  enum Kind : uint8_t { None, Sub, Logic, Add, IncDec, FCmp } kind = None;
  ir::Type type = ir::Type::I64;
  ir::Value a = ir::kNoValue, b = ir::kNoValue, result = ir::kNoValue;
  uint8_t lane = 0;
  uint16_t fcmp_imm = 0;
  // Sub: the difference is written to the destination (sub, not cmp), so
  // ZF tests it rather than comparing the operands again.
  bool result_kept = false;
};

struct Ctx {
  ir::Builder& b;
  const DecodedInsn& d;
  const Hooks& hooks;
  FlagSource& flags;
  uint64_t rip;                // address of this instruction
  uint64_t next;               // address of the next one
  uint64_t live_flags = ~uint64_t{0};  // RFLAGS bits read after this instruction
  bool ends_block = false;     // set by control transfers, which fill block.exit
  // This instruction's flags are to be kept as a LazyFlags record for the
  // block's indirect exit (x86/lazy_flags.h): lazy_record is the record
  // when its operands stay in guest registers, else 0 and the handler's
  // flag code makes an in-memory one; lazy_recorded once it did either.
  bool lazy_flags = false;
  bool lazy_recorded = false;
  uint64_t lazy_record = 0;
  std::array<ir::Value, 4> address_cache{ir::kNoValue, ir::kNoValue, ir::kNoValue, ir::kNoValue};

  const ZydisDecodedOperand& op(int i) const { return d.ops[i]; }
  ZydisMnemonic mnemonic() const { return d.info.mnemonic; }
  ir::Exit& exit() { return b.block().exit; }
  bool flag_live(uint8_t bit) const { return (live_flags >> bit) & 1; }
};

// Returns false when the instruction cannot be translated (the caller then
// reports it with its text and ISA extension).
using Handler = bool (*)(Ctx&);

class HandlerTable {
 public:
  void add(ZydisMnemonic m, Handler h) { table_[m] = h; }
  Handler find(ZydisMnemonic m) const { return table_[m]; }

 private:
  std::array<Handler, ZYDIS_MNEMONIC_MAX_VALUE + 1> table_{};
};

// One registration function per family file.
void register_alu(HandlerTable& t);
void register_data(HandlerTable& t);
void register_branch(HandlerTable& t);
void register_shift(HandlerTable& t);
void register_muldiv(HandlerTable& t);
void register_bits(HandlerTable& t);
void register_string(HandlerTable& t);
void register_system(HandlerTable& t);
void register_sse(HandlerTable& t);
void register_x87(HandlerTable& t);
// Instructions with MM register operands get their own table (the same
// mnemonics as SSE); emms goes to the main one.
void register_mmx(HandlerTable& mmx, HandlerTable& main);
void register_bmi(HandlerTable& t);
void register_intext(HandlerTable& t);
void register_sse42(HandlerTable& t, bool host_crc32);
// AES-NI and PCLMULQDQ (the rounds inline on the host's AES instructions,
// pclmulqdq on its PMULL, else helpers).
void register_aes(HandlerTable& t, bool host_pmull, bool host_aes);
void register_sha(HandlerTable& t);

// String forms of the mnemonics MOVSD/CMPSD (see family_string.cpp).
bool string_movsd(Ctx& c);
bool string_cmpsd(Ctx& c);

}  // namespace phybin::x86
