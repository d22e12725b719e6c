// Moving a call's arguments from where x86-64 SysV puts them to where
// AAPCS64 wants them, and the result back.  The guest-side library's entry
// (a private system call, forwarder.h) leaves the guest registers as the
// caller set them, but for RCX, which the entry moved to R10 (syscall
// overwrites RCX), and RSP, which points at the return address.  Where
// each argument goes is worked out once per function (CallPlan); a call
// then only copies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/guest_state.h"
#include "forward/signature.h"
#include "ir/native_call.h"

namespace phybin::forward {

// Stack words a native call passes; a guest call may have more (a Mem
// record is copied there, hsa_ext_program_finalize's is 144 bytes).
inline constexpr unsigned kMaxStackWords = 16;
inline constexpr unsigned kMaxGuestStackWords = 64;

// A native call as native_call() makes it: x0-x7, d0-d7 (a float in the
// low 32 bits), the stack words above them, the function, and the results.
// The layout is the assembly's (native_call.cpp).
struct NativeCall {
  uint64_t x[8] = {};              // 0
  uint64_t d[8] = {};              // 64
  uint64_t stack_words = 0;        // 128
  const void* fn = nullptr;        // 136
  uint64_t x0 = 0, d0 = 0;         // 144, 152: the results
  uint64_t x1 = 0;                 // 160: a record's second result word
  uint64_t x8 = 0;                 // 168: where a large record result goes
  uint64_t stack[kMaxStackWords];  // 176
};

// Where one argument word comes from and where it goes, as byte offsets:
// a call then copies without looking at any class but for widening.  A
// record in registers is a move per word; a Mem record is one move of
// class StackAddress: the address of its copy on the guest stack.
struct ArgMove {
  static constexpr uint16_t kFromStack = 0x8000;  // + k: guest stack word k
  uint16_t from;  // in GuestState (an argument register, XMM0-7), or kFromStack + k
  uint16_t to;    // in NativeCall (x0-x7, d0-d7, a stack word)
  ArgClass cls;
};

struct CallPlan {
  std::vector<ArgMove> moves;
  std::vector<uint16_t> first_move;  // per argument: its (first) move's index
  // Where argument `arg` (a pointer or function: one word) goes.
  uint16_t native_place(size_t arg) const { return moves[first_move[arg]].to; }
  uint32_t guest_stack_words = 0, native_stack_words = 0;
  uint32_t guest_words_read = 0;  // the guest stack words moves read (not Mem copies)
  ArgClass result = ArgClass::Void;
  uint16_t result_bytes = 0;  // a Rec or Mem result's size
};

// nullopt (and `why`) for a signature whose arguments need more stack
// than kMaxStackWords natively or kMaxGuestStackWords in the guest.
std::optional<CallPlan> plan_call(const Signature& sig, std::string& why);

// Reads `n` bytes of guest memory at `address` into `out`; false when that
// memory is not readable.
using ReadGuest = bool (*)(void* out, uint64_t address, size_t n);

// The arguments from the guest's registers and stack into `call` (a guest
// function pointer as it is: Forwarder::call gives the library a host one);
// false with `why` when the stack cannot be read.
bool gather_args(const CallPlan& plan, const GuestState& st, ReadGuest read, NativeCall& call, std::string& why);

// Whether a function of `sig` can be called straight from translated code
// (ir CallNative): every argument a scalar in a register on both ABIs
// (at most 6 integers, 8 floats), no guest function among them, a scalar
// result; true with its shape (the index left 0).
bool direct_shape(const Signature& sig, ir::NativeCallShape& shape);

// The native result into RAX or XMM0 as SysV returns it.
void deliver_result(const CallPlan& plan, const NativeCall& call, GuestState& st);

}  // namespace phybin::forward
