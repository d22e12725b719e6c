#include "forward/marshal.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace phybin::forward {

namespace {

// SysV's integer argument registers, with RCX's value in R10 (the entry
// moved it there).
constexpr int kIntArgRegs[6] = {RDI, RSI, RDX, R10, R8, R9};

// A narrow integer widened as AAPCS64's callee may not assume it is, and
// as SysV's caller need not have done past 32 bits.
inline uint64_t widen(ArgClass c, uint64_t v) {
  switch (c) {
    case ArgClass::I8: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(v)));
    case ArgClass::U8: return v & 0xff;
    case ArgClass::I16: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(v)));
    case ArgClass::U16: return v & 0xffff;
    case ArgClass::I32: return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)));
    case ArgClass::U32:
    case ArgClass::F32: return v & 0xffffffff;
    default: return v;
  }
}

// Where arguments go, register by register, as each ABI assigns them.
struct Places {
  unsigned guest_ints = 0, guest_floats = 0, native_ints = 0, native_floats = 0;
};

void add_move(CallPlan& plan, size_t from, size_t to, ArgClass c) {
  plan.moves.push_back(ArgMove{static_cast<uint16_t>(from), static_cast<uint16_t>(to), c});
}

// A record of `words` integer words: in registers where both have enough
// left for all of it, else (each ABI on its own) on the stack.
void plan_record(CallPlan& plan, Places& p, unsigned words) {
  const bool guest_regs = p.guest_ints + words <= 6, native_regs = p.native_ints + words <= 8;
  if (!native_regs) p.native_ints = 8;  // AAPCS64: no later argument takes a register either
  for (unsigned w = 0; w < words; ++w) {
    const size_t from = guest_regs ? offsetof(GuestState, gpr) + 8 * kIntArgRegs[p.guest_ints++]
                                   : ArgMove::kFromStack + plan.guest_stack_words++;
    const size_t to = native_regs ? offsetof(NativeCall, x) + 8 * p.native_ints++
                                  : offsetof(NativeCall, stack) + 8 * plan.native_stack_words++;
    add_move(plan, from, to, ArgClass::U64);
  }
}

// A scalar, or the address of a Mem record's copy on the guest stack
// (SysV's caller made it: the callee may write it, as AAPCS64 allows).
void plan_scalar(CallPlan& plan, Places& p, ArgClass c, uint16_t bytes) {
  const bool fp = is_float(c);
  size_t from;
  if (c == ArgClass::Mem) {
    from = plan.guest_stack_words;
    plan.guest_stack_words += (bytes + 7u) / 8;
    c = ArgClass::StackAddress;
  } else if (fp ? p.guest_floats < 8 : p.guest_ints < 6) {
    from = fp ? offsetof(GuestState, xmm) + sizeof(GuestState::xmm[0]) * p.guest_floats++
              : offsetof(GuestState, gpr) + 8 * kIntArgRegs[p.guest_ints++];
  } else {
    from = ArgMove::kFromStack + plan.guest_stack_words++;
  }
  const size_t to = (fp ? p.native_floats < 8 : p.native_ints < 8)
                        ? (fp ? offsetof(NativeCall, d) + 8 * p.native_floats++ : offsetof(NativeCall, x) + 8 * p.native_ints++)
                        : offsetof(NativeCall, stack) + 8 * plan.native_stack_words++;
  add_move(plan, from, to, c);
}

}  // namespace

std::optional<CallPlan> plan_call(const Signature& sig, std::string& why) {
  CallPlan plan;
  plan.result = sig.result;
  plan.result_bytes = sig.result_bytes;
  Places places;
  if (sig.result == ArgClass::Mem) places.guest_ints = 1;  // RDI: the hidden result pointer (x8 natively)
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const uint16_t bytes = i < sig.bytes.size() ? sig.bytes[i] : 0;
    plan.first_move.push_back(static_cast<uint16_t>(plan.moves.size()));
    if (sig.args[i] == ArgClass::Rec) plan_record(plan, places, (bytes + 7u) / 8);
    else plan_scalar(plan, places, sig.args[i], bytes);
  }
  for (const ArgMove& m : plan.moves)
    if (m.cls != ArgClass::StackAddress && m.from >= ArgMove::kFromStack)
      plan.guest_words_read = std::max(plan.guest_words_read, m.from - ArgMove::kFromStack + 1u);
  if (plan.guest_stack_words > kMaxGuestStackWords || plan.native_stack_words > kMaxStackWords) {
    why = std::to_string(sig.args.size()) + " arguments are more than phybin passes";
    return std::nullopt;
  }
  return plan;
}

namespace {

ir::Widen widen_of(ArgClass c) {
  switch (c) {
    case ArgClass::I8: return ir::Widen::S8;
    case ArgClass::U8: return ir::Widen::U8;
    case ArgClass::I16: return ir::Widen::S16;
    case ArgClass::U16: return ir::Widen::U16;
    case ArgClass::I32: return ir::Widen::S32;
    case ArgClass::U32: return ir::Widen::U32;
    default: return ir::Widen::None;
  }
}

bool is_scalar(ArgClass c) { return c != ArgClass::Void && c != ArgClass::FnPtr && c < ArgClass::Rec; }

}  // namespace

bool direct_shape(const Signature& sig, ir::NativeCallShape& shape) {
  shape = {};
  if (!sig.callbacks.empty() || !sig.records.empty()) return false;
  for (ArgClass c : sig.args) {
    if (!is_scalar(c)) return false;
    if (is_float(c)) {
      if (shape.floats == ir::NativeCallShape::kMaxFloats) return false;
      ++shape.floats;
    } else {
      if (shape.ints == ir::NativeCallShape::kMaxInts) return false;
      shape.widen[shape.ints++] = widen_of(c);
    }
  }
  if (sig.result == ArgClass::Void) shape.result = ir::NativeResult::Void;
  else if (sig.result == ArgClass::F32) shape.result = ir::NativeResult::F32;
  else if (sig.result == ArgClass::F64) shape.result = ir::NativeResult::F64;
  else if (is_scalar(sig.result)) shape.result = ir::NativeResult::Int;
  else return false;
  shape.result_widen = widen_of(sig.result);
  return true;
}

bool gather_args(const CallPlan& plan, const GuestState& st, ReadGuest read, NativeCall& call, std::string& why) {
  uint64_t stack[kMaxGuestStackWords];
  if (plan.guest_words_read && !read(stack, st.gpr[RSP] + 8, plan.guest_words_read * 8)) {  // past the return address
    why = "its stack arguments lie in unreadable memory";
    return false;
  }
  call.stack_words = plan.native_stack_words;
  if (plan.result == ArgClass::Mem) call.x8 = st.gpr[RDI];
  const auto* guest = reinterpret_cast<const uint8_t*>(&st);
  auto* native = reinterpret_cast<uint8_t*>(&call);
  for (const ArgMove& m : plan.moves) {
    uint64_t v;
    if (m.cls == ArgClass::StackAddress) v = st.gpr[RSP] + 8 + 8 * m.from;  // past the return address
    else if (m.from < ArgMove::kFromStack) std::memcpy(&v, guest + m.from, sizeof v);
    else v = stack[m.from - ArgMove::kFromStack];
    v = widen(m.cls, v);
    std::memcpy(native + m.to, &v, sizeof v);
  }
  return true;
}

void deliver_result(const CallPlan& plan, const NativeCall& call, GuestState& st) {
  if (is_float(plan.result)) {
    std::memset(&st.xmm[0], 0, sizeof st.xmm[0]);
    const uint64_t v = widen(plan.result, call.d0);
    std::memcpy(&st.xmm[0], &v, sizeof v);
    return;
  }
  switch (plan.result) {
    case ArgClass::Void: return;
    case ArgClass::Mem: st.gpr[RAX] = call.x8; return;  // SysV returns the hidden pointer
    case ArgClass::Rec:
      st.gpr[RAX] = call.x0;
      if (plan.result_bytes > 8) st.gpr[RDX] = call.x1;
      return;
    default: st.gpr[RAX] = widen(plan.result, call.x0);
  }
}

}  // namespace phybin::forward
