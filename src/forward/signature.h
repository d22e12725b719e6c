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

// Rec: a record of at most 16 bytes whose eightbytes are all integers
// (hsa_agent_t, dim3): one or two integer registers on both ABIs.  Mem: a
// record of more than 16 bytes: SysV copies it onto the stack, AAPCS64
// passes the address of a copy; as a result, both return it through a
// hidden pointer (RDI / x8).  Their sizes are the signature's `bytes`.
// StackAddress is a plan's only (marshal.h): a Mem argument's address.
enum class ArgClass : uint8_t { Void, I8, U8, I16, U16, I32, U32, I64, U64, Ptr, FnPtr, F32, F64, Rec, Mem, StackAddress };

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

// A pointer argument to a record that holds guest functions (HIP's
// hipHostNodeParams.fn): the library gets a copy of the record, `bytes`
// long, with host functions in their places.  In-out (a record that is not
// const: the library may write it): after the call the copy's host
// functions become the guest functions they stand for, and it is copied
// back.  A field in a union holds a function only when the record's tag
// says so (hipGraphNodeParams.host when .type is hipGraphNodeTypeHost).
struct RecordFunctions {
  struct Field {
    uint16_t offset;
    std::string signature;  // the function's
    int16_t tag_offset = -1;  // >= 0: only when the 32-bit tag there...
    uint32_t tag_value = 0;   // ...has this value
    bool holds_function(const uint8_t* record) const;
  };
  uint8_t arg = 0;
  bool in_out = false;
  CallbackThread thread = CallbackThread::Caller;
  uint16_t bytes = 0;
  std::vector<Field> fields;
};
inline constexpr uint16_t kMaxRecordFunctionsBytes = 256;

struct Signature {
  ArgClass result = ArgClass::Void;
  std::vector<ArgClass> args;  // a callback's is FnPtr
  std::vector<Callback> callbacks;
  std::vector<RecordFunctions> records;  // their arguments are Ptr
  // The sizes of Rec and Mem records (else 0): one per argument, and the
  // result's.
  std::vector<uint16_t> bytes;
  uint16_t result_bytes = 0;
};

// "RESULT : ARG ARG... [@INDEX=caller|any]...", as fwdgen writes it: a
// callback argument is fn<RESULT,ARG,...>, on the caller's thread unless
// an @INDEX says any; records are recN (N <= 16) and memN (N > 16); a
// pointer to a record holding functions inN{OFFSET:fn<...>|...} (const)
// or ioN{...}, a field's tag after it (OFFSET:fn<...>?TAG_OFFSET=VALUE);
// nullopt for anything else.
std::optional<Signature> parse_signature(std::string_view text);

bool is_float(ArgClass c);

}  // namespace phybin::forward
