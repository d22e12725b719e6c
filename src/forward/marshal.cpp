#include "forward/marshal.h"

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

}  // namespace

std::optional<CallPlan> plan_call(const Signature& sig, std::string& why) {
  CallPlan plan;
  plan.result = sig.result;
  unsigned guest_ints = 0, guest_floats = 0, native_ints = 0, native_floats = 0;
  for (ArgClass c : sig.args) {
    const bool fp = is_float(c);
    size_t from, to;
    if (fp ? guest_floats < 8 : guest_ints < 6)
      from = fp ? offsetof(GuestState, xmm) + sizeof(GuestState::xmm[0]) * guest_floats++
                : offsetof(GuestState, gpr) + 8 * kIntArgRegs[guest_ints++];
    else
      from = ArgMove::kFromStack + plan.guest_stack_words++;
    if (fp ? native_floats < 8 : native_ints < 8)
      to = fp ? offsetof(NativeCall, d) + 8 * native_floats++ : offsetof(NativeCall, x) + 8 * native_ints++;
    else
      to = offsetof(NativeCall, stack) + 8 * plan.native_stack_words++;
    plan.moves.push_back(ArgMove{static_cast<uint16_t>(from), static_cast<uint16_t>(to), c});
  }
  if (plan.guest_stack_words > kMaxStackWords || plan.native_stack_words > kMaxStackWords) {
    why = std::to_string(sig.args.size()) + " arguments are more than phybin passes";
    return std::nullopt;
  }
  return plan;
}

bool gather_args(const CallPlan& plan, const GuestState& st, ReadGuest read, NativeCall& call, std::string& why) {
  uint64_t stack[kMaxStackWords];
  if (plan.guest_stack_words && !read(stack, st.gpr[RSP] + 8, plan.guest_stack_words * 8)) {  // past the return address
    why = "its stack arguments lie in unreadable memory";
    return false;
  }
  call.stack_words = plan.native_stack_words;
  const auto* guest = reinterpret_cast<const uint8_t*>(&st);
  auto* native = reinterpret_cast<uint8_t*>(&call);
  for (const ArgMove& m : plan.moves) {
    uint64_t v;
    if (m.from < ArgMove::kFromStack) std::memcpy(&v, guest + m.from, sizeof v);
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
  if (plan.result != ArgClass::Void) st.gpr[RAX] = widen(plan.result, call.x0);
}

}  // namespace phybin::forward
