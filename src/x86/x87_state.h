// The x87 register stack as the helpers see it in GuestState: physical
// registers st[0..7], TOP in FSW bits 11-13 (mirrored in x87_top for
// fxsave/fxrstor), the tag word with 3 = empty, and the masked responses
// to stack overflow and underflow.
#pragma once

#include <cstring>

#include "common/guest_state.h"
#include "x86/x87_float80.h"

namespace phybin::x86 {

using x87::Float80;
using x87::FpEnv;

constexpr uint16_t kFswTopMask = 0x3800;
constexpr uint16_t kFswConditions = x87::kC0 | x87::kRoundedUp | x87::kC2 | x87::kC3;
constexpr uint16_t kFswExceptions = 0x3f;
constexpr uint16_t kFswErrorSummary = 0x8080;  // B and ES
// What a loaded FCW keeps (fldcw, fldenv, frstor, fxrstor): the masks, PC,
// RC and the infinity bit; bit 6 always reads 1, bits 7 and 13-15 as 0.
constexpr uint16_t kFcwWritable = 0x1f3f, kFcwAlwaysSet = 0x0040;
constexpr uint16_t loaded_fcw(uint16_t v) { return static_cast<uint16_t>((v & kFcwWritable) | kFcwAlwaysSet); }
constexpr uint16_t kStackUnderflow = x87::kInvalid | x87::kStackFault;
constexpr uint16_t kStackOverflow = x87::kInvalid | x87::kStackFault | x87::kRoundedUp;

class Fpu {
 public:
  explicit Fpu(GuestState* s) : s_(s) {}

  unsigned top() const { return (s_->fsw >> 11) & 7; }
  void set_top(unsigned t) {
    s_->fsw = static_cast<uint16_t>((s_->fsw & ~kFswTopMask) | ((t & 7) << 11));
    s_->x87_top = t & 7;
  }
  unsigned phys(unsigned i) const { return (top() + i) & 7; }
  bool phys_empty(unsigned p) const { return ((s_->ftw >> (2 * p)) & 3) == 3; }
  bool empty(unsigned i) const { return phys_empty(phys(i)); }
  void set_phys_tag(unsigned p, bool empty) {
    s_->ftw = static_cast<uint16_t>((s_->ftw & ~(3u << (2 * p))) | (empty ? 3u << (2 * p) : 0));
  }

  Float80 phys_get(unsigned p) const {
    Float80 v;
    std::memcpy(&v.sig, s_->st[p], 8);
    std::memcpy(&v.se, s_->st[p] + 8, 2);
    return v;
  }
  void phys_put(unsigned p, Float80 v) {
    std::memcpy(s_->st[p], &v.sig, 8);
    std::memcpy(s_->st[p] + 8, &v.se, 2);
  }
  Float80 get(unsigned i) const { return phys_get(phys(i)); }
  // Writes ST(i) and marks it in use.
  void put(unsigned i, Float80 v) {
    phys_put(phys(i), v);
    set_phys_tag(phys(i), false);
  }

  // ST(i), or the indefinite with a stack underflow when it is empty.
  Float80 read(unsigned i, FpEnv& env) const {
    if (!empty(i)) return get(i);
    env.raise(kStackUnderflow);
    return x87::kIndefinite;
  }
  // Push: on overflow (the new ST0 is in use) the indefinite is pushed.
  void push(Float80 v, FpEnv& env) {
    set_top(top() - 1);
    if (!empty(0)) {
      env.raise(kStackOverflow);
      v = x87::kIndefinite;
    }
    put(0, v);
  }
  void pop() {
    set_phys_tag(phys(0), true);
    set_top(top() + 1);
  }

  FpEnv env(bool precision_control) const { return FpEnv::from_fcw(s_->fcw, precision_control); }

  // Folds an operation's status into FSW: exception bits accumulate; the
  // condition bits in `defined` take the operation's values (C1 is 0 on
  // a stack underflow, 1 on an overflow).  Unmasked exceptions set ES/B.
  void finish(uint16_t status, uint16_t defined) {
    if (status & x87::kStackFault) {
      defined |= x87::kRoundedUp;
      if ((status & kStackOverflow) != kStackOverflow) status &= static_cast<uint16_t>(~x87::kRoundedUp);
    }
    uint16_t fsw = static_cast<uint16_t>((s_->fsw & ~defined) | (status & defined) | (status & 0x7f));
    if (fsw & kFswExceptions & ~s_->fcw) fsw |= kFswErrorSummary;
    s_->fsw = fsw;
  }

  GuestState* state() const { return s_; }

 private:
  GuestState* s_;
};

}  // namespace phybin::x86
