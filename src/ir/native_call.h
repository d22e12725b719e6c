// A call from translated code straight into a native library's function
// (src/forward's forwarded calls whose arguments all travel in registers):
// what the backend needs to know, packed into the CallNative op's imm.
// The function's address is not in it: translated code reads it from the
// thread's forward table (GuestState::forward_table) at the call, so that
// saved translations stay valid in a later run, and takes the system call
// path while the slot is empty.
#pragma once

#include <array>
#include <cstdint>

namespace phybin::ir {

// How a narrow integer argument or result is widened (AAPCS64's callee and
// caller may leave the upper bits undefined; SysV only promotes to 32).
enum class Widen : uint8_t { None, S8, U8, S16, U16, S32, U32 };
enum class NativeResult : uint8_t { Void, Int, F32, F64 };

struct NativeCallShape {
  static constexpr unsigned kMaxInts = 6, kMaxFloats = 8;
  uint16_t index = 0;  // the forwarded call's number less sys::ForwardedCalls::kFirst
  uint8_t ints = 0;    // integer arguments: RDI, RSI, RDX, R10, R8, R9 to x0-x5
  uint8_t floats = 0;  // float arguments: XMM0.. to d0..
  std::array<Widen, kMaxInts> widen{};
  NativeResult result = NativeResult::Void;
  Widen result_widen = Widen::None;

  uint64_t pack() const {
    uint64_t v = index | uint64_t{ints} << 16 | uint64_t{floats} << 19 | uint64_t(result) << 23 |
                 uint64_t(result_widen) << 25;
    for (unsigned i = 0; i < kMaxInts; ++i) v |= uint64_t(widen[i]) << (28 + 3 * i);
    return v;
  }
  static NativeCallShape unpack(uint64_t v) {
    NativeCallShape s;
    s.index = static_cast<uint16_t>(v);
    s.ints = static_cast<uint8_t>((v >> 16) & 7);
    s.floats = static_cast<uint8_t>((v >> 19) & 15);
    s.result = static_cast<NativeResult>((v >> 23) & 3);
    s.result_widen = static_cast<Widen>((v >> 25) & 7);
    for (unsigned i = 0; i < kMaxInts; ++i) s.widen[i] = static_cast<Widen>((v >> (28 + 3 * i)) & 7);
    return s;
  }
};

}  // namespace phybin::ir
