// Helper calls, traps, block exits (with linkable branches and the inline
// indirect-branch lookup) and the enter/exit stubs.
#include <cstddef>

#include "arm64/compile_vector.h"
#include "arm64/compiler.h"
#include "ir/native_call.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Opcode;
using ir::Type;
using ir::Value;
using regmap::kState;
using regmap::kTmp0;
using regmap::kTmp1;

namespace {

constexpr int64_t kOffRip = offsetof(GuestState, rip);
constexpr int64_t kOffFlags = offsetof(GuestState, rflags);
constexpr int64_t kOffXmm = offsetof(GuestState, xmm);
constexpr int64_t kOffHostSp = offsetof(GuestState, host_sp);
constexpr int64_t kOffLookup = offsetof(GuestState, lookup_table);
constexpr int64_t kOffExitLink = offsetof(GuestState, exit_link);
constexpr int64_t kOffHelperTable = offsetof(GuestState, helper_table);
constexpr int64_t kOffFpsrOuter = offsetof(GuestState, fpsr_outer);
constexpr int64_t kOffSseTraps = offsetof(GuestState, sse_trap_fpsr);
constexpr int64_t kOffLazyRecord = offsetof(GuestState, lazy_flags_record);
constexpr int64_t kOffForwardTable = offsetof(GuestState, forward_table);
constexpr int64_t kOffNativeCall = offsetof(GuestState, native_call);
constexpr int64_t gpr_offset(int reg) { return static_cast<int64_t>(offsetof(GuestState, gpr)) + 8 * reg; }

void emit_save_guest(Assembler& a) {
  for (unsigned i = 0; i < 16; i += 2)
    a.stp(Size::X, regmap::kGuestGpr[i], regmap::kGuestGpr[i + 1], mem(kState, static_cast<int64_t>(i) * 8));
  a.str(Size::X, regmap::kFlags, mem(kState, kOffFlags));
  for (unsigned i = 0; i < 16; i += 2)
    a.stp(FSize::Q, regmap::guest_xmm(i), regmap::guest_xmm(i + 1), mem(kState, kOffXmm + i * 16));
}

void emit_load_guest(Assembler& a) {
  for (unsigned i = 0; i < 16; i += 2)
    a.ldp(Size::X, regmap::kGuestGpr[i], regmap::kGuestGpr[i + 1], mem(kState, static_cast<int64_t>(i) * 8));
  a.ldr(Size::X, regmap::kFlags, mem(kState, kOffFlags));
  for (unsigned i = 0; i < 16; i += 2)
    a.ldp(FSize::Q, regmap::guest_xmm(i), regmap::guest_xmm(i + 1), mem(kState, kOffXmm + i * 16));
}

}  // namespace

Stubs emit_stubs(Assembler& a) {
  Stubs stubs;
  // enter(GuestState* x0, const void* code x1)
  stubs.enter = reinterpret_cast<void (*)(GuestState*, const void*)>(a.cursor());
  a.stp(Size::X, x29, x30, mem_pre(sp, -160));
  a.stp(Size::X, x19, x20, mem(sp, 16));
  a.stp(Size::X, x21, x22, mem(sp, 32));
  a.stp(Size::X, x23, x24, mem(sp, 48));
  a.stp(Size::X, x25, x26, mem(sp, 64));
  a.stp(Size::X, x27, x28, mem(sp, 80));
  a.stp(FSize::D, v8, v9, mem(sp, 96));
  a.stp(FSize::D, v10, v11, mem(sp, 112));
  a.stp(FSize::D, v12, v13, mem(sp, 128));
  a.stp(FSize::D, v14, v15, mem(sp, 144));
  a.mov(Size::X, kState, x0);
  a.mov_sp(kTmp0, sp);
  a.str(Size::X, kTmp0, mem(kState, kOffHostSp));
  emit_load_guest(a);
  a.br(x1);

  // exit: x17 = next guest RIP, x16 = branch site to link (or 0).
  stubs.exit = a.cursor();
  a.str(Size::X, kTmp1, mem(kState, kOffRip));
  a.str(Size::X, kTmp0, mem(kState, kOffExitLink));
  emit_save_guest(a);
  Label to_host;
  a.bind(to_host);
  a.ldr(Size::X, kTmp0, mem(kState, kOffHostSp));
  a.mov_sp(sp, kTmp0);
  a.ldp(Size::X, x19, x20, mem(sp, 16));
  a.ldp(Size::X, x21, x22, mem(sp, 32));
  a.ldp(Size::X, x23, x24, mem(sp, 48));
  a.ldp(Size::X, x25, x26, mem(sp, 64));
  a.ldp(Size::X, x27, x28, mem(sp, 80));
  a.ldp(FSize::D, v8, v9, mem(sp, 96));
  a.ldp(FSize::D, v10, v11, mem(sp, 112));
  a.ldp(FSize::D, v12, v13, mem(sp, 128));
  a.ldp(FSize::D, v14, v15, mem(sp, 144));
  a.ldp(Size::X, x29, x30, mem_post(sp, 160));
  a.ret();

  // leave(GuestState* x0): the guest state is in memory already; drop
  // whatever ran since enter() (translated code, helpers, their frames).
  stubs.leave = reinterpret_cast<void (*)(GuestState*)>(a.cursor());
  a.mov(Size::X, kState, x0);
  a.b(to_host);

  // native_call(x16 = the function): see Stubs::native_call.  The mark
  // is taken back with an exclusive pair, so that a flusher's 1 -> 2
  // cannot slip between reading and clearing it.
  stubs.native_call = a.cursor();
  Label retry, flushed;
  a.stp(Size::X, x29, x30, mem_pre(sp, -16));
  a.mov_sp(x29, sp);
  a.add(Size::X, kTmp1, kState, static_cast<uint32_t>(kOffNativeCall));
  a.mov_imm(Size::W, x30, 1);
  a.stlr(MemSize::W, x30, kTmp1);
  a.blr(kTmp0);
  a.add(Size::X, kTmp1, kState, static_cast<uint32_t>(kOffNativeCall));
  a.bind(retry);
  a.ldaxr(MemSize::W, kTmp0, kTmp1);
  a.stlxr(MemSize::W, x30, wzr, kTmp1);
  a.cbnz(Size::W, x30, retry);
  a.cmp(Size::W, kTmp0, 1);
  a.b(Cond::NE, flushed);
  a.ldp(Size::X, x29, x30, mem_post(sp, 16));
  a.ret();
  // The code to return to may be gone: the guest goes on from the state
  // (RIP, RBX, RSP and RBP are there already; the other caller-saved
  // registers are undefined after a SysV call).
  a.bind(flushed);
  a.ldp(Size::X, x29, x30, mem_post(sp, 16));
  a.str(Size::X, x0, mem(kState, gpr_offset(RAX)));
  a.str(FSize::Q, v0, mem(kState, kOffXmm));
  a.stp(Size::X, x19, x20, mem(kState, gpr_offset(R12)));
  a.stp(Size::X, x21, x22, mem(kState, gpr_offset(R14)));
  a.str(Size::X, regmap::kFlags, mem(kState, kOffFlags));
  a.b(to_host);

  // empty_entry: where empty table entries point (never reached, see
  // empty_lookup_key).
  stubs.empty_entry = a.cursor();
  a.movz(Size::X, kTmp1, static_cast<uint16_t>(kEmptyLookupKey >> 48), 48);
  a.movz(Size::X, kTmp0, 0);
  a.b(stubs.exit);
  return stubs;
}

void BlockCompiler::save_guest_state() { emit_save_guest(a_); }
void BlockCompiler::load_guest_state() { emit_load_guest(a_); }

void BlockCompiler::call_host(uint64_t fn) {
  const uint32_t slot = cfg_.helpers->slot_of(fn);
  a_.ldr(Size::X, regmap::kTmp2, mem(kState, kOffHelperTable));
  a_.ldr(Size::X, regmap::kTmp2, mem(regmap::kTmp2, int64_t{slot} * 8));
  a_.blr(regmap::kTmp2);
}

void BlockCompiler::lower_call(Value v) {
  const Inst& in = b_.at(v);
  evacuate_all_guest(v);
  preserve_caller_saved(v);
  vec_.copy_of.fill(ir::kNoValue);
  // The helper may raise a guest signal (a divide error) or deliver one (a
  // system call): the frame needs the address of this instruction.
  load_guest_address(kTmp0, current_rip_);
  a_.str(Size::X, kTmp0, mem(kState, kOffRip));
  // Arguments go through the temporaries: they may sit in x1/x2 themselves.
  if (in.args[0] != ir::kNoValue) a_.mov(Size::X, kTmp0, use(in.args[0], kTmp0));
  if (in.args[1] != ir::kNoValue) a_.mov(Size::X, kTmp1, use(in.args[1], kTmp1));
  save_guest_state();
  a_.mov(Size::X, x0, kState);
  a_.mov(Size::X, x1, kTmp0);
  a_.mov(Size::X, x2, kTmp1);
  call_host(in.imm);
  if (in.type != Type::Void) a_.mov(Size::X, kTmp0, x0);
  load_guest_state();
  if (in.type != Type::Void) a_.mov(Size::X, def_gpr(v), kTmp0);
}

namespace {

// x86-64 SysV's integer argument registers, with RCX's value in R10 (the
// forwarded function's entry moved it there).
constexpr int kSysvIntArgs[ir::NativeCallShape::kMaxInts] = {RDI, RSI, RDX, R10, R8, R9};
constexpr uint64_t kSyscallBytes = 2;  // 0f 05: the guest goes on after it

// rd = rn widened as `w` says (AAPCS64 leaves narrow values' upper bits
// undefined; SysV promotes to 32 bits only).
void move_widened(Assembler& a, Reg rd, Reg rn, ir::Widen w) {
  switch (w) {
    case ir::Widen::None: a.mov(Size::X, rd, rn); return;
    case ir::Widen::S8: a.sbfm(Size::X, rd, rn, 0, 7); return;
    case ir::Widen::U8: a.ubfm(Size::X, rd, rn, 0, 7); return;
    case ir::Widen::S16: a.sbfm(Size::X, rd, rn, 0, 15); return;
    case ir::Widen::U16: a.ubfm(Size::X, rd, rn, 0, 15); return;
    case ir::Widen::S32: a.sbfm(Size::X, rd, rn, 0, 31); return;
    case ir::Widen::U32: a.mov(Size::W, rd, rn); return;
  }
}

}  // namespace

// A forwarded function called from translated code (ir CallNative): the
// guest's argument registers to AAPCS64's, the call through the
// native_call stub, the result to RAX or XMM0.  Guest RBX, RSP and RBP
// live in caller-saved host registers: they wait in the guest state, where
// a callback's nested guest run finds RSP; the guest's next RIP goes there
// too, for the stub's way out after a flush.  While the function's slot
// is empty the system call helper runs, as for any syscall.
void BlockCompiler::lower_native_call(Value v) {
  const ir::NativeCallShape shape = ir::NativeCallShape::unpack(b_.at(v).imm);
  evacuate_all_guest(v);
  preserve_caller_saved(v);
  vec_.copy_of.fill(ir::kNoValue);
  Label slow, done;
  a_.ldr(Size::X, kTmp0, mem(kState, kOffForwardTable));
  a_.mov_imm(Size::X, kTmp1, uint64_t{shape.index} * 8);
  a_.ldr(Size::X, kTmp0, mem(kTmp0, kTmp1));
  a_.cbz(Size::X, kTmp0, slow);
  const auto guest = [](int reg) { return regmap::kGuestGpr[static_cast<size_t>(reg)]; };
  a_.stp(Size::X, guest(RBX), guest(RSP), mem(kState, gpr_offset(RBX)));
  a_.str(Size::X, guest(RBP), mem(kState, gpr_offset(RBP)));
  load_guest_address(kTmp1, current_rip_ + kSyscallBytes);
  a_.str(Size::X, kTmp1, mem(kState, kOffRip));
  for (unsigned i = 0; i < shape.ints; ++i) move_widened(a_, Reg{static_cast<uint8_t>(i)}, guest(kSysvIntArgs[i]), shape.widen[i]);
  for (unsigned i = 0; i < shape.floats; ++i) a_.fmov(FSize::D, VReg{static_cast<uint8_t>(i)}, regmap::guest_xmm(i));
  a_.bl(cfg_.stubs.native_call);
  switch (shape.result) {
    case ir::NativeResult::Void: break;
    case ir::NativeResult::Int: move_widened(a_, guest(RAX), x0, shape.result_widen); break;
    case ir::NativeResult::F32: a_.fmov(FSize::S, regmap::guest_xmm(0), v0); break;
    case ir::NativeResult::F64: a_.fmov(FSize::D, regmap::guest_xmm(0), v0); break;
  }
  a_.ldp(Size::X, guest(RBX), guest(RSP), mem(kState, gpr_offset(RBX)));
  a_.ldr(Size::X, guest(RBP), mem(kState, gpr_offset(RBP)));
  a_.b(done);
  a_.bind(slow);
  load_guest_address(kTmp0, current_rip_);
  a_.str(Size::X, kTmp0, mem(kState, kOffRip));
  save_guest_state();
  a_.mov(Size::X, x0, kState);
  call_host(reinterpret_cast<uint64_t>(cfg_.syscall));
  load_guest_state();
  a_.bind(done);
}

void BlockCompiler::lower_trap(Value v) {
  const Inst& in = b_.at(v);
  raise_at(in.imm, in.aux);
}

// The guest state goes to memory and raise_signal(state, code) delivers
// the signal of the instruction at guest `rip`.
void BlockCompiler::raise_at(uint64_t rip, int code) {
  load_guest_address(kTmp0, rip);
  a_.str(Size::X, kTmp0, mem(kState, kOffRip));
  save_guest_state();
  a_.mov(Size::X, x0, kState);
  a_.mov_imm(Size::W, x1, static_cast<uint64_t>(code));
  call_host(reinterpret_cast<uint64_t>(cfg_.raise_signal));
  load_guest_state();
}

// Checked SSE instructions (unmasked exceptions): FPSR's cumulative flags
// are set aside before the instruction so that its own show afterwards.
// No NZCV is touched: a fused compare may be waiting for its branch.
void BlockCompiler::lower_fp_trap(Value v) {
  const Inst& in = b_.at(v);
  a_.mrs(kTmp0, SysReg::FPSR);
  if (in.op == Opcode::FpTrapBegin) {
    a_.str(Size::X, kTmp0, mem(kState, kOffFpsrOuter));
    a_.msr(SysReg::FPSR, xzr);
    return;
  }
  a_.ldr(Size::X, kTmp1, mem(kState, kOffFpsrOuter));
  a_.orr(Size::X, kTmp1, kTmp1, kTmp0);
  a_.msr(SysReg::FPSR, kTmp1);  // MXCSR shows the old flags and the new ones
  a_.ldr(Size::W, kTmp1, mem(kState, kOffSseTraps));
  a_.and_(Size::X, kTmp0, kTmp0, kTmp1);
  Label fine;
  a_.cbz(Size::X, kTmp0, fine);
  raise_at(in.imm, kTrapSimdFp);
  a_.bind(fine);
}

// A linkable exit: the first branch goes to the code right after it until
// the runtime patches it to jump straight to the target block.  The taken
// side of a conditional exit names the conditional branch as its site
// (`link_site`): the runtime patches that one when the target is within its
// reach, so a taken loop branch costs one branch, and else this B.
void BlockCompiler::exit_to(uint64_t target, const uint32_t* link_site) {
  uint32_t* site = a_.cursor();
  Label stub;
  a_.b(stub);
  a_.bind(stub);
  load_guest_address(kTmp1, target);
  a_.adr(kTmp0, link_site ? link_site : site);
  a_.b(cfg_.stubs.exit);
}

Label& BlockCompiler::pooled_guest_address(uint64_t guest) {
  for (PooledAddress& p : pool_)
    if (p.guest == guest) return p.literal;
  PooledAddress& added = pool_.emplace_back();
  added.guest = guest;
  return added.literal;
}

// After all code: a padding word where needed (LDR of 8 bytes wants them
// aligned), then the addresses.
void BlockCompiler::emit_address_pool() {
  if (pool_.empty()) return;
  if (reinterpret_cast<uintptr_t>(a_.cursor()) & 4) a_.emit(0);
  pool_layout_ = AddressPool{static_cast<uint32_t>(a_.cursor() - block_begin_), static_cast<uint32_t>(pool_.size())};
  for (PooledAddress& p : pool_) {
    a_.bind(p.literal);
    a_.emit(static_cast<uint32_t>(p.guest));
    a_.emit(static_cast<uint32_t>(p.guest >> 32));
  }
}

// Looks the guest target up in the indirect-branch table inline; only a
// miss goes back to the dispatcher.  A block that reads flags on entry is
// found by the second compare (lookup_key), which first sets the lazy
// flags record: this block's, or 0 when its flags are in RFLAGS.
// The table lookup reads the target where it is (x0..x2 excepted, which
// it uses); the dispatcher wants it in x17 on a miss.
void BlockCompiler::exit_indirect(Reg target, uint64_t lazy_record) {
  if (target.code <= 2) {
    a_.mov(Size::X, kTmp1, target);
    target = kTmp1;
  }
  a_.ldr(Size::X, x0, mem(kState, kOffLookup));
  if (cfg_.lookup_mask == 0xffff) {  // the table's size: one extended add
    a_.add(Size::X, x0, x0, target, Extend::UXTH, 4);
  } else {
    a_.and_(Size::X, x1, target, cfg_.lookup_mask);
    a_.add(Size::X, x0, x0, x1, Shift::LSL, 4);
  }
  a_.ldp(Size::X, x1, x2, mem(x0, 0));
  a_.cmp(Size::X, x1, target);
  Label other_key, miss;
  a_.b(Cond::NE, other_key);
  a_.br(x2);
  a_.bind(other_key);
  a_.mvn(Size::X, x1, x1);
  a_.cmp(Size::X, x1, target);
  a_.b(Cond::NE, miss);
  store_lazy_record(lazy_record);
  a_.br(x2);
  a_.bind(miss);
  if (target != kTmp1) a_.mov(Size::X, kTmp1, target);
  if (lazy_record) store_lazy_record(lazy_record);
  a_.movz(Size::X, kTmp0, lazy_record ? kExitLazyFlags : 0);
  a_.b(cfg_.stubs.exit);
}

void BlockCompiler::store_lazy_record(uint64_t record) {
  if (record == 0) {
    a_.str(Size::X, xzr, mem(kState, kOffLazyRecord));
    return;
  }
  a_.mov_imm(Size::X, kTmp0, record);
  a_.str(Size::X, kTmp0, mem(kState, kOffLazyRecord));
}

// The table's way into a block that reads flags: a record the jump here
// left is applied first (out of line: rare), then the block runs as when
// entered directly.
void BlockCompiler::emit_indirect_entry() {
  indirect_entry_ = a_.cursor();
  a_.ldr(Size::X, kTmp0, mem(kState, kOffLazyRecord));
  a_.cbz(Size::X, kTmp0, main_entry_);
  save_guest_state();
  a_.mov(Size::X, x0, kState);
  call_host(reinterpret_cast<uint64_t>(cfg_.materialise_flags));
  load_guest_state();
  a_.b(main_entry_);
}

// The exit's compare when it is "x == 0" or "x != 0" of a value whose
// register holds exactly x in a W or X register: one cbz/cbnz (dec ecx;
// jnz, test eax, eax; jz).  Returns false, emitting nothing, otherwise.
bool BlockCompiler::branch_on_zero(Value cmp, Label& taken, const uint32_t*& branch) {
  const Inst& in = b_.at(cmp);
  const auto cond = static_cast<ir::Cond>(in.aux);
  const Value x = in.args[0], y = in.args[1];
  if ((cond != ir::Cond::EQ && cond != ir::Cond::NE) || is_const(x) || !is_const(y)) return false;
  const int bits = type_bits(b_.at(x).type);
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if ((const_of(y) & mask) != 0 || (bits < 32 && bits_valid_[x] > bits)) return false;
  const Reg r = use(x, kTmp0);
  const Size s = bits == 64 ? Size::X : Size::W;
  branch = a_.cursor();
  if (cond == ir::Cond::EQ) a_.cbz(s, r, taken);
  else a_.cbnz(s, r, taken);
  return true;
}

// A conditional branch inside a superblock: to an out-of-line exit when
// taken (its branch is the link site: linked, it goes straight to the
// target block), on with the block when not.
void BlockCompiler::lower_side_exit(Value v) {
  const Inst& in = b_.at(v);
  const Value c = in.args[0];
  if (is_const(c) && !(const_of(c) & 1)) return;
  SideStub& stub = side_stubs_.emplace_back();
  stub.target = b_.side_exits[in.aux].target;
  if (is_const(c)) {
    stub.site = a_.cursor();
    a_.b(stub.entry);
  } else if (side_cond_[c]) {
    if (!branch_on_zero(c, stub.entry, stub.site)) {
      lower_icmp(c, true);
      stub.site = a_.cursor();
      a_.b(fused_arm_cond_, stub.entry);
    }
  } else {
    const Reg r = use(c, kTmp0);
    stub.site = a_.cursor();
    a_.cbnz(Size::W, r, stub.entry);
  }
}

void BlockCompiler::emit_side_exit_stubs() {
  for (SideStub& stub : side_stubs_) {
    a_.bind(stub.entry);
    exit_to(stub.target, stub.site);
  }
}

void BlockCompiler::lower_exit() {
  const ir::Exit& e = b_.exit;
  switch (e.kind) {
    case ir::ExitKind::Jump: exit_to(e.target); return;
    case ir::ExitKind::Branch: {
      Label taken;
      const uint32_t* branch = nullptr;
      Cond fcmp_cond;
      if (fused_cond_ != ir::kNoValue && VectorLowering::fcmp_branch_cond(b_.at(fused_cond_), fcmp_cond)) {
        VectorLowering(*this).lower_fcmp_for_branch(fused_cond_);
        branch = a_.cursor();
        a_.b(fcmp_cond, taken);
      } else if (fused_cond_ != ir::kNoValue) {
        if (!branch_on_zero(fused_cond_, taken, branch)) {
          lower_icmp(fused_cond_, true);
          branch = a_.cursor();
          a_.b(fused_arm_cond_, taken);
        }
      } else if (is_const(e.cond)) {
        exit_to(const_of(e.cond) & 1 ? e.target : e.fallthrough);
        return;
      } else {
        Reg cond = use(e.cond, kTmp0);
        branch = a_.cursor();
        a_.cbnz(Size::W, cond, taken);
      }
      exit_to(e.fallthrough);
      a_.bind(taken);
      exit_to(e.target, branch);
      return;
    }
    case ir::ExitKind::Indirect:
    case ir::ExitKind::Return: exit_indirect(use(e.address, kTmp1), e.lazy_flags_record); return;
  }
}

void write_host_stub(uint32_t* at, const void* entry, const void* data) {
  Assembler a(at, kHostStubWords);
  Label entry_word, data_word;
  a.ldr(Size::X, x16, entry_word);
  a.ldr(Size::X, x17, data_word);
  a.br(x16);
  a.emit(0xd503201f);  // nop: the literals 8-byte aligned
  a.bind(entry_word);
  a.emit(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(entry)));
  a.emit(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(entry) >> 32));
  a.bind(data_word);
  a.emit(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(data)));
  a.emit(static_cast<uint32_t>(reinterpret_cast<uintptr_t>(data) >> 32));
}

}  // namespace phybin::arm64
