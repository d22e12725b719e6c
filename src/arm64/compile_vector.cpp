// Lowering of the vector (XMM) IR to NEON: guest XMM access, destination
// hints, loads and stores, cold paths, the dispatch of VUnary/VBinary/
// VTernary to their VecOp's family and the Move family (between register
// files).  The other families are in compile_vector_int.cpp, _ext.cpp,
// _fp.cpp and _mxcsr.cpp (ir::VecFamily).
#include "arm64/compile_vector.h"

#include <array>
#include <csignal>
#include <cstddef>
#include <string>

#include "common/error.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Opcode;
using ir::Type;
using ir::Value;
using ir::VecFamily;
using ir::VecOp;
using regmap::kTmp0;
using regmap::kVTmp0;

namespace {

bool may_observe_guest_state(Opcode op) {
  switch (op) {
    case Opcode::Load: case Opcode::Store: case Opcode::VLoad: case Opcode::VStore:
    case Opcode::VCheckAlign: case Opcode::CallHelper: case Opcode::CallNative: case Opcode::Trap:
    case Opcode::AtomicRmw: case Opcode::AtomicCas: case Opcode::SideExit:
      return true;
    default: return false;
  }
}

// The scalar operations whose result is element 0 computed, the rest
// copied from operand a (merge_low): a can be computed straight into the
// guest register the result goes to.
// The scalar operations of scalar_regs: AArch64's scalar instruction
// writes the whole register, zero above the element.
bool scalar_fp_writes_whole(const Inst& in) {
  const auto op = static_cast<VecOp>(in.aux);
  return in.op == Opcode::VBinary && op >= VecOp::FAddScalar && op <= VecOp::FRsqrtScalar &&
         op != VecOp::FMinScalar && op != VecOp::FMaxScalar;
}

bool merges_into_operand(const Inst& in) {
  if (in.op != Opcode::VBinary) return false;
  switch (static_cast<VecOp>(in.aux)) {
    case VecOp::FAddScalar: case VecOp::FSubScalar: case VecOp::FMulScalar: case VecOp::FDivScalar:
    case VecOp::FMinScalar: case VecOp::FMaxScalar: case VecOp::FSqrtScalar: case VecOp::FRecipScalar:
    case VecOp::FRsqrtScalar: case VecOp::FCmpScalar: case VecOp::FRoundScalar: case VecOp::CvtIntToFScalar:
    case VecOp::CvtFToFScalar:
      return true;
    default: return false;
  }
}

}  // namespace

// The XMM commit region of each instruction (ir::Inst::replay), numbered
// from 1; 0 outside them.  A region's commits follow its last instruction.
void BlockCompiler::find_xmm_regions() {
  vec_.region.clear();
  vec_.regions.clear();
  if (!b_.xmm_regions) return;
  vec_.region.assign(n_, 0);
  vec_.regions.assign(1, XmmRegionInfo{});
  std::array<Value, 16> content;  // what each guest XMM register holds here (as far as known)
  content.fill(ir::kNoValue);
  uint16_t current = 0;
  for (Value i = 0; i < n_; ++i) {
    const Inst& in = b_.at(i);
    if (in.insn_start && in.replay <= 1) {
      current = in.replay == 0 ? 0 : static_cast<uint16_t>(vec_.regions.size());
      if (in.replay == 1) {
        vec_.regions.push_back(XmmRegionInfo{});
        vec_.regions.back().entry = content;
      }
    }
    vec_.region[i] = current;
    if (in.dead) continue;
    if (current != 0) note_region_inst(vec_.regions[current], in, i);
    if (in.op == Opcode::GetXmm && content[in.aux] == ir::kNoValue) content[in.aux] = i;
    if (in.op == Opcode::SetXmm) content[in.aux] = in.args[0];
    if (opcode_is_call(in.op)) content.fill(ir::kNoValue);
  }
}

// What a region's instruction tells of it: its check, and
// the registers whose values at the region's start it reads (a GetXmm in
// the region is that value too).
void BlockCompiler::note_region_inst(XmmRegionInfo& r, const Inst& in, Value i) {
  if (in.op == Opcode::FpRegionCheck) r.check = true;
  if (in.op == Opcode::GetXmm && r.entry[in.aux] == ir::kNoValue && !(r.written & (1u << in.aux))) {
    r.entry[in.aux] = i;
    r.entry_read |= static_cast<uint16_t>(1u << in.aux);
  }
  if (in.op == Opcode::SetXmm) r.written |= static_cast<uint16_t>(1u << in.aux);
  for (Value a : in.args)
    for (unsigned g = 0; g < 16 && a != ir::kNoValue; ++g)
      if (r.entry[g] == a) r.entry_read |= static_cast<uint16_t>(1u << g);
}

// A fault (or a failed check) inside a region runs it again from the guest
// registers as they were at its start: a register whose value there the
// region reads keeps it, in its own host register, up to the region's
// last point that can leave for a replay.  So that value lives that long:
// no result takes its register over before (a dying operand's register is
// a result's first choice), and no result is computed into the register
// before (analyse_vectors' hints).
void BlockCompiler::keep_replayed_registers() {
  for (Value i = 0; i < n_; ++i) {
    const Inst& in = b_.at(i);
    const unsigned r = vec_.region[i];
    if (r == 0 || in.dead) continue;
    if (may_observe_guest_state(in.op) || (in.op == Opcode::FpRegionCheck && vec_.regions[r].checked_at_end))
      vec_.regions[r].last_exit = i;
  }
  for (const XmmRegionInfo& info : vec_.regions) {
    if (info.last_exit == ir::kNoValue) continue;
    for (unsigned g = 0; g < 16; ++g) {
      if (!(info.entry_read & (1u << g))) continue;
      Value& last = last_use_[rep_[info.entry[g]]];
      last = std::max(last, info.last_exit);
    }
  }
}

// A vector result may be computed straight into the guest XMM register a
// SetXmm later writes it to, saving the move: allowed when that register's
// old value is not needed after the defining instruction and nothing in
// between reads the register or may fault (a fault must see the old value).
// The same holds for operand a of a scalar operation that is itself
// computed into a guest register (addss; mulss on one register, whose
// intermediate sum no SetXmm keeps): then it is merged in place.
void BlockCompiler::analyse_vectors() {
  vec_.hint_guest.assign(n_, -1);
  for (auto& h : vec_.holders) h.clear();
  vec_.copy_of.fill(ir::kNoValue);
  vec_.cold.clear();
  vec_.fcmp_end = nullptr;
  std::array<std::vector<Value>, 16> reads;  // GetXmm of each register, in order
  for (Value i = 0; i < n_; ++i)
    if (!b_.at(i).dead && b_.at(i).op == Opcode::GetXmm) reads[b_.at(i).aux].push_back(i);
  // v into guest register g, which instruction j (after v) makes it hold.
  auto try_hint = [&](Value v, Value j, unsigned g) {
    const Inst& def = b_.at(v);
    if (def.type != Type::V128 || def.op == Opcode::GetXmm || vec_.hint_guest[v] >= 0) return false;
    // A fault between v and j must find the register as it was, except
    // inside an XMM commit region, where a fault runs the region again
    // from its start (ir::Inst::replay): there only a register the region
    // reads must keep the value it had at the start.
    const unsigned region = vec_.region_of(v);
    const bool old_value_replayed =
        region == 0 || vec_.region_of(j) != region || (vec_.regions[region].entry_read & (1u << g));
    for (Value r : reads[g]) {
      if (r > v) break;
      if (last_use_[r] > v) return false;  // the old value is still needed
    }
    for (Value i = v + 1; i < j; ++i) {
      const Inst& x = b_.at(i);
      if (x.dead) continue;
      bool same_reg = (x.op == Opcode::GetXmm || x.op == Opcode::SetXmm) && x.aux == g;
      const bool observes = may_observe_guest_state(x.op) ||
                            (x.op == Opcode::FpRegionCheck && vec_.region_checked_at_end(i));
      if (same_reg || (observes && old_value_replayed)) return false;
    }
    vec_.hint_guest[v] = static_cast<int8_t>(g);
    return true;
  };
  bool any_hint = false;
  for (Value j = 0; j < n_; ++j) {
    const Inst& set = b_.at(j);
    if (!set.dead && set.op == Opcode::SetXmm) any_hint |= try_hint(set.args[0], j, set.aux);
  }
  if (!any_hint) return;
  for (Value w = static_cast<Value>(n_); w-- > 0;) {
    const Inst& in = b_.at(w);
    if (in.dead || vec_.hint_guest[w] < 0 || !merges_into_operand(in)) continue;
    const Value base = vec_.upper_source(w, in);
    if (vec_.zero_above(in.args[0], in.lane) && scalar_fp_writes_whole(in)) continue;  // no merge (scalar_regs)
    if (rep_[base] == base && last_use_[base] == w) try_hint(base, w, static_cast<unsigned>(vec_.hint_guest[w]));
  }
}

namespace {

// How many bytes from the bottom `user` reads of its operand `k`, or 16.
unsigned low_bytes_read(const Inst& user, unsigned k) {
  const auto op = static_cast<VecOp>(user.aux);
  switch (user.op) {
    case Opcode::VStore: return k == 1 ? static_cast<unsigned>(user.imm) : 16;
    case Opcode::VUnary:
      return op == VecOp::CvtFToInt ? 1u << user.lane : 16;
    case Opcode::VBinary:
      if (op == VecOp::FCmpCond || op == VecOp::FCmpFlag) return 1u << user.lane;
      if (op == VecOp::CvtFToFScalar) return k == 1 ? 1u << (user.lane ^ 1) : 16;
      if (merges_into_operand(user) && op != VecOp::CvtIntToFScalar) return k == 1 ? 1u << user.lane : 16;
      return 16;
    default: return 16;
  }
}

}  // namespace

// VectorState::width, forward: a scalar FP operation keeps operand a's
// bytes above its element.
void BlockCompiler::find_widths() {
  vec_.width.assign(n_, 16);
  for (Value v = 0; v < n_; ++v) {
    const Inst& in = b_.at(v);
    if (in.dead) continue;
    if (in.op == Opcode::VZero) vec_.width[v] = 0;
    else if (in.op == Opcode::VLoad) vec_.width[v] = static_cast<uint8_t>(std::min<uint64_t>(in.imm, 16));
    else if (scalar_fp_writes_whole(in)) vec_.width[v] = std::max<uint8_t>(static_cast<uint8_t>(1u << in.lane), vec_.width[in.args[0]]);
  }
}

// The scalar FP operations (lower_fp_scalar) whose every user reads no
// more than the element they compute.
void BlockCompiler::find_low_only() {
  // Tables are sized only for blocks with SSE arithmetic (most have none).
  vec_.low_only.clear();
  vec_.upper_from.clear();
  vec_.any_fp_arith = false;
  vec_.width.clear();
  const auto candidate = scalar_fp_writes_whole;
  bool any = false;
  for (Value v = 0; v < n_; ++v) {
    const Inst& in = b_.at(v);
    if (in.dead || (in.op != Opcode::VBinary && in.op != Opcode::VUnary)) continue;
    const auto op = static_cast<VecOp>(in.aux);
    if (op >= VecOp::FAdd && op <= VecOp::FRsqrtScalar) vec_.any_fp_arith = true;
    any |= candidate(in);
  }
  if (!any) return;
  find_widths();
  vec_.low_only.assign(n_, 0);
  for (Value v = 0; v < n_; ++v) vec_.low_only[v] = !b_.at(v).dead && candidate(b_.at(v));
  auto full = [&](Value a) {
    if (a != ir::kNoValue) vec_.low_only[a] = 0;
  };
  full(b_.exit.cond);
  full(b_.exit.address);
  // A scalar operation of the same element size reading the result as its
  // operand a only passes the elements above through: it can take them from
  // where that result took its own (find_upper_sources).
  auto passes_upper = [&](const Inst& user, unsigned k, Value a) {
    return k == 0 && candidate(user) && user.lane == b_.at(a).lane;
  };
  for (Value u = 0; u < n_; ++u) {
    const Inst& in = b_.at(u);
    if (in.dead) continue;
    for (unsigned k = 0; k < 3; ++k) {
      const Value a = in.args[k];
      if (a == ir::kNoValue || !vec_.low_only[a] || passes_upper(in, k, a)) continue;
      if (low_bytes_read(in, k) > (1u << b_.at(a).lane)) full(a);
    }
  }
  find_upper_sources();
}

// A chain of scalar operations on one register (addsd xmm1, xmm0; addsd
// xmm1, xmm2; ...) merges the elements above only once, at its end: the
// links before are computed whole (low_only), and the last takes the
// elements above from the chain's first operand a, which lives until then.
void BlockCompiler::find_upper_sources() {
  vec_.upper_from.clear();
  for (Value w = 0; w < n_; ++w) {
    const Inst& in = b_.at(w);
    if (in.dead || !scalar_fp_writes_whole(in)) continue;
    const Value link = in.args[0];
    if (!vec_.low_only[link] || !scalar_fp_writes_whole(b_.at(link)) || b_.at(link).lane != in.lane) continue;
    if (vec_.upper_from.empty()) vec_.upper_from.assign(n_, ir::kNoValue);
    const Value source = vec_.upper_source(link, b_.at(link));
    vec_.upper_from[w] = source;
    last_use_[rep_[source]] = std::max(last_use_[rep_[source]], w);
  }
}

void BlockCompiler::emit_cold_paths() {
  for (auto& p : vec_.cold) {
    mark_reported(p->guest, p->reported, p->replay, p->restores_fpsr);
    a_.bind(p->entry);
    p->body(a_, p->resume);
    a_.b(p->resume);
  }
  vec_.cold.clear();
  if (vec_.segv_used) {
    // x86 raises #GP before the instruction does anything; a guest handler
    // that returns runs the instruction again, so leave to its address.
    a_.bind(vec_.segv_stub);
    a_.str(Size::X, regmap::kTmp0, mem(regmap::kState, offsetof(GuestState, rip)));
    save_guest_state();
    a_.mov(Size::X, x0, regmap::kState);
    a_.mov(Size::W, x1, regmap::kTmp1);  // SIGSEGV, or kTrapReplay
    call_host(reinterpret_cast<uint64_t>(cfg_.raise_signal));
    load_guest_state();
    a_.ldr(Size::X, regmap::kTmp1, mem(regmap::kState, offsetof(GuestState, rip)));
    a_.movz(Size::X, regmap::kTmp0, 0);
    a_.b(cfg_.stubs.exit);
    vec_.segv_used = false;
  }
}

void BlockCompiler::lower_vector(Value v) {
  if (v != fused_cond_) VectorLowering(*this).lower(v);  // else compared by the exit branch
}

void VectorLowering::lower(Value v) {
  const Inst& in = inst(v);
  switch (in.op) {
    case Opcode::GetXmm:
      c_.loc_[v] = Loc{Loc::Vreg, regmap::guest_xmm(in.aux).code, static_cast<int8_t>(in.aux)};
      c_.vec_.holders[in.aux].push_back(v);
      break;
    case Opcode::SetXmm: lower_set_xmm(v); break;
    case Opcode::VZero: a_.movi(VArr::D2, def(v), 0); break;
    case Opcode::VLoad:
    case Opcode::VStore: lower_memory(v); break;
    case Opcode::VCheckAlign: lower_check_align(v); break;
    case Opcode::FpRegionCheck: end_checked_region(v); break;
    case Opcode::VUnary:
    case Opcode::VBinary:
    case Opcode::VTernary: lower_vecop(v); break;
    default:
      throw Error(ErrorCode::PHYBIN_ERR_INTERNAL, std::string("no lowering for IR opcode ") + ir::opcode_name(in.op));
  }
  for (VReg s : scratch_) c_.vreg_busy_[s.code] = false;
}

// The family first, then the operation within it; neither switch has a
// default, so what the backend does not lower does not build
// (compile_vector_ops.h).
void VectorLowering::lower_vecop(Value v) {
  const auto op = static_cast<VecOp>(inst(v).aux);
  if (op >= VecOp::Count)  // only a damaged block (ir::verify says so too)
    throw Error(ErrorCode::PHYBIN_ERR_INTERNAL, "no vector op " + std::to_string(inst(v).aux));
  switch (ir::vecop_family(op)) {
    case VecFamily::Move: return lower_move(v, family_op<MoveOp>(op));
    case VecFamily::Int: return lower_int(v, family_op<IntOp>(op));
    case VecFamily::IntExt: return lower_int_ext(v, family_op<IntExtOp>(op));
    case VecFamily::Crypto: return lower_crypto(v, family_op<CryptoOp>(op));
    case VecFamily::FpArith: return lower_fp_arith(v, family_op<FpArithOp>(op));
    case VecFamily::Fp: return lower_fp(v, family_op<FpOp>(op));
    case VecFamily::Mxcsr: return lower_mxcsr(v, family_op<MxcsrOp>(op));
  }
}

VReg VectorLowering::def(Value v) {
  int8_t g = c_.vec_.hint_guest[v];
  if (g < 0) return c_.def_vreg(v);
  evacuate_xmm(static_cast<unsigned>(g), v, v);
  VReg r = regmap::guest_xmm(static_cast<unsigned>(g));
  c_.loc_[v] = Loc{Loc::Vreg, r.code, g};
  c_.vec_.holders[static_cast<unsigned>(g)].push_back(v);
  return r;
}

VReg VectorLowering::scratch() {
  VReg r = c_.alloc_vreg();
  scratch_.push_back(r);
  return r;
}

// Before guest XMM `guest` changes at `at`, values that still need its old
// contents move to a register of their own.
void VectorLowering::evacuate_xmm(unsigned guest, Value at, Value keep) {
  std::vector<Value>& holders = c_.vec_.holders[guest];
  c_.vec_.copy_of[guest] = ir::kNoValue;
  bool keep_here = false;
  for (Value r : holders) {
    Loc& l = c_.loc_[r];
    if (l.kind != Loc::Vreg || l.guest != static_cast<int8_t>(guest)) continue;  // moved away since
    if (r == keep) {
      keep_here = true;
      continue;
    }
    if (c_.last_use_[r] <= at) {
      l.guest = -1;
      l.kind = Loc::None;
      continue;
    }
    if (move_to_copy(r)) continue;
    VReg fresh = c_.alloc_vreg();
    a_.mov(VArr::B16, fresh, VReg{l.reg});
    l = Loc{Loc::Vreg, fresh.code, -1};
  }
  holders.clear();
  if (keep_here) holders.push_back(keep);
}

bool VectorLowering::move_to_copy(Value r) {
  for (unsigned h = 0; h < 16; ++h) {
    if (c_.vec_.copy_of[h] != r) continue;
    c_.loc_[r] = Loc{Loc::Vreg, regmap::guest_xmm(h).code, static_cast<int8_t>(h)};
    c_.vec_.holders[h].push_back(r);
    return true;
  }
  return false;
}

void VectorLowering::cold(Cond cond, std::function<void(Assembler&, Label&)> body) {
  auto p = c_.new_cold_path();
  a_.b(cond, p->entry);
  a_.bind(p->resume);
  p->body = std::move(body);
  c_.vec_.cold.push_back(std::move(p));
}

void VectorLowering::lower_set_xmm(Value v) {
  const Inst& in = inst(v);
  Value src = in.args[0];
  VReg dst = regmap::guest_xmm(in.aux);
  Loc& sl = c_.loc_[c_.rep_[src]];
  if (sl.kind == Loc::Vreg && sl.reg == dst.code) {  // computed in place (hint) or xmm <- itself
    sl.guest = static_cast<int8_t>(in.aux);
    return;
  }
  VReg s = vreg_of(src);
  evacuate_xmm(in.aux, v, src);
  a_.mov(VArr::B16, dst, s);
  c_.vec_.copy_of[in.aux] = c_.rep_[src];
}

namespace {
FSize access_fsize(uint64_t bytes) {
  switch (bytes) {
    case 2: return FSize::H;  // pmovsxbq/pmovzxbq m16
    case 4: return FSize::S;
    case 8: return FSize::D;
    default: return FSize::Q;
  }
}
}  // namespace

void VectorLowering::lower_memory(Value v) {
  if (c_.access_update_[v] != ir::kNoValue) c_.lower_access_with_update(v, c_.access_update_[v]);
  else lower_memory_at(v, c_.address_of(inst(v).args[0]));
}

// m: the access's address, or its base register with the step done by the
// access (find_writeback_accesses).
void VectorLowering::lower_memory_at(Value v, const Mem& m) {
  const Inst& in = inst(v);
  // TSO (BackendConfig::tso): a plain access between barriers.  After a
  // load, later accesses wait for it; before a store, earlier ones finish.
  const bool ordered = c_.ordered_access(v);
  FSize fs = access_fsize(in.imm);
  if (in.op == Opcode::VLoad) {
    a_.ldr(fs, def(v), m);
    if (ordered) a_.dmb(Barrier::ISHLD);
  } else {
    if (ordered) a_.dmb(Barrier::ISH);
    a_.str(fs, vreg_of(in.args[1]), m);
  }
}

// movaps/movdqa...: x86 raises #GP (SIGSEGV) for a misaligned operand.
void VectorLowering::lower_check_align(Value v) {
  const Inst& in = inst(v);
  Reg addr = c_.use(in.args[0], kTmp0);
  a_.tst(Size::X, addr, uint64_t{15});
  // In an XMM commit region the registers are those of the region's
  // start: the runtime runs the region again up to here (kTrapReplay).
  const bool replay = c_.replay_ != 0;
  const uint64_t rip = replay ? c_.reported_rip_ : in.imm;
  const auto code = static_cast<uint64_t>(replay ? kTrapReplay | c_.replay_ : SIGSEGV);
  const bool restore = c_.restores_fpsr_;  // a region checked at its end (InsnMark)
  Label* stub = &c_.vec_.segv_stub;
  c_.vec_.segv_used = true;
  Label* literal = &c_.pooled_guest_address(rip);
  cold(Cond::NE, [stub, literal, code, restore](Assembler& a, Label&) {
    if (restore) {
      a.ldr(Size::W, kTmp0, mem(regmap::kState, offsetof(GuestState, region_fpsr)));
      a.msr(SysReg::FPSR, kTmp0);
    }
    a.ldr(Size::X, kTmp0, *literal);
    a.mov_imm(Size::W, regmap::kTmp1, code);
    a.b(*stub);
  });
}

void VectorLowering::lower_move(Value v, MoveOp op) {
  switch (op) {
    case MoveOp::FromGpr: return lower_from_gpr(v);
    case MoveOp::Extract: return lower_extract(v);
    case MoveOp::InsertGpr: return lower_insert_gpr(v);
    case MoveOp::InsertLane: return lower_insert_lane(v);
    case MoveOp::LowOnly: return lower_low_only(v);
    case MoveOp::MovMask: return lower_movmask(v);
  }
}

void VectorLowering::lower_from_gpr(Value v) {
  const Inst& in = inst(v);
  Reg r = c_.use(in.args[0], kTmp0);
  VReg d = def(v);
  if (inst(in.args[0]).type == Type::I64) a_.fmov(FSize::D, d, r);
  else a_.fmov(FSize::S, d, r);
}

void VectorLowering::lower_extract(Value v) {
  const Inst& in = inst(v);
  const auto lane = static_cast<FSize>(in.lane);
  const auto index = static_cast<unsigned>(in.imm);
  VReg x = vreg_of(in.args[0]);
  Reg d = c_.def_gpr(v);
  if (lane == FSize::D && index == 1) a_.fmov_from_high(d, x);
  else if ((lane == FSize::D || lane == FSize::S) && index == 0) a_.fmov(lane, d, x);
  else a_.umov(lane, d, x, index);
}

void VectorLowering::lower_insert_gpr(Value v) {
  const Inst& in = inst(v);
  Reg r = c_.use(in.args[1], kTmp0);
  VReg x = vreg_of(in.args[0]);
  VReg d = def(v);
  copy(d, x);
  a_.ins(static_cast<FSize>(in.lane), d, static_cast<unsigned>(in.imm), r);
}

void VectorLowering::lower_insert_lane(Value v) {
  const Inst& in = inst(v);
  const auto lane = static_cast<FSize>(in.lane);
  const auto index = static_cast<unsigned>(in.imm);
  VReg x = vreg_of(in.args[0]), y = vreg_of(in.args[1]);
  VReg d = def(v);
  unsigned to = index & 0xff, from = index >> 8;
  if (d == y && d != x) {
    a_.mov(VArr::B16, kVTmp0, x);
    a_.ins(lane, kVTmp0, to, y, from);
    a_.mov(VArr::B16, d, kVTmp0);
    return;
  }
  copy(d, x);
  a_.ins(lane, d, to, y, from);
}

void VectorLowering::lower_low_only(Value v) {
  const Inst& in = inst(v);
  VReg x = vreg_of(in.args[0]);
  a_.fmov(static_cast<FSize>(in.lane) == FSize::D ? FSize::D : FSize::S, def(v), x);
}

// Sign bits of the elements into a general register.  Bytes: each byte's
// sign bit shifted to bit 0, then shift-and-accumulate folds 8 bytes into
// the low byte of each doubleword: 6 instructions and no constants.
void VectorLowering::lower_movmask(Value v) {
  const Inst& in = inst(v);
  VReg x = vreg_of(in.args[0]);
  Reg d = c_.def_gpr(v);
  switch (in.lane) {
    case 0:
      a_.ushr(VArr::B16, kVTmp0, x, 7);
      a_.usra(VArr::H8, kVTmp0, kVTmp0, 7);
      a_.usra(VArr::S4, kVTmp0, kVTmp0, 14);
      a_.usra(VArr::D2, kVTmp0, kVTmp0, 28);
      a_.ins(FSize::B, kVTmp0, 1, kVTmp0, 8);
      a_.umov(FSize::H, d, kVTmp0, 0);
      return;
    case 2:
      a_.ushr(VArr::S4, kVTmp0, x, 31);
      a_.usra(VArr::D2, kVTmp0, kVTmp0, 31);  // bits 0-1 of each doubleword
      a_.xtn(VArr::S2, kVTmp0, kVTmp0);
      a_.fmov(FSize::D, regmap::kTmp1, kVTmp0);
      a_.orr(Size::X, regmap::kTmp1, regmap::kTmp1, regmap::kTmp1, Shift::LSR, 30);
      a_.and_(Size::W, d, regmap::kTmp1, uint64_t{0xf});
      return;
    default:
      a_.ushr(VArr::D2, kVTmp0, x, 63);
      a_.fmov(FSize::D, kTmp0, kVTmp0);
      a_.fmov_from_high(regmap::kTmp1, kVTmp0);
      a_.orr(Size::W, d, kTmp0, regmap::kTmp1, Shift::LSL, 1);
      return;
  }
}

}  // namespace phybin::arm64
