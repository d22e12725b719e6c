// How a forwarded function's arguments and result travel, from its line in
// a library description (src/forward/libs/*.fwd, made by tools/fwdgen from
// the real headers): one class per argument, the same on x86-64 and on
// AArch64 (fwdgen checked that), only their places differ.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phybin::forward {

enum class ArgClass : uint8_t { Void, I8, U8, I16, U16, I32, U32, I64, U64, Ptr, FnPtr, F32, F64 };

// Which thread a native library calls a guest function pointer on.
enum class CallbackThread : uint8_t { Caller, Any };

struct Signature;

// An argument that is a guest function the library may call: its own
// signature (as text, "RESULT : ARG..."), and on which thread.
struct Callback {
  uint8_t arg;
  CallbackThread thread;
  std::string signature;
};

struct Signature {
  ArgClass result = ArgClass::Void;
  std::vector<ArgClass> args;  // a callback's is FnPtr
  std::vector<Callback> callbacks;
};

// "RESULT : ARG ARG... [@INDEX=caller|any]...", as fwdgen writes it: a
// callback argument is fn<RESULT,ARG,...>, on the caller's thread unless
// an @INDEX says any; nullopt for anything else.
std::optional<Signature> parse_signature(std::string_view text);

bool is_float(ArgClass c);

}  // namespace phybin::forward
