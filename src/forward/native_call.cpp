#include "forward/native_call.h"

#include <cstddef>
#include <stdexcept>

namespace phybin::forward {

#if defined(__aarch64__)

namespace {

static_assert(sizeof(NativeCall) <= 304, "phybin_callback_entry's frame");
static_assert(offsetof(NativeCall, d) == 64 && offsetof(NativeCall, stack_words) == 128 &&
              offsetof(NativeCall, fn) == 136 && offsetof(NativeCall, x0) == 144 &&
              offsetof(NativeCall, d0) == 152 && offsetof(NativeCall, x1) == 160 &&
              offsetof(NativeCall, x8) == 168 && offsetof(NativeCall, stack) == 176);

extern "C" void phybin_native_call(NativeCall* call);

// x19 keeps the frame across the call, x20 the stack pointer before the
// arguments were pushed; the stack arguments go in 16-byte-aligned space.
asm(R"(
  .text
  .p2align 2
  .type phybin_native_call, %function
phybin_native_call:
  stp x29, x30, [sp, #-32]!
  mov x29, sp
  stp x19, x20, [sp, #16]
  mov x19, x0
  mov x20, sp
  ldr x9, [x19, #128]
  add x10, x9, #1
  and x10, x10, #-2
  sub sp, sp, x10, lsl #3
  add x11, x19, #176
  mov x12, #0
1:
  cmp x12, x9
  b.hs 2f
  ldr x13, [x11, x12, lsl #3]
  str x13, [sp, x12, lsl #3]
  add x12, x12, #1
  b 1b
2:
  ldp d0, d1, [x19, #64]
  ldp d2, d3, [x19, #80]
  ldp d4, d5, [x19, #96]
  ldp d6, d7, [x19, #112]
  ldr x16, [x19, #136]
  ldp x0, x1, [x19, #0]
  ldp x2, x3, [x19, #16]
  ldp x4, x5, [x19, #32]
  ldp x6, x7, [x19, #48]
  ldr x8, [x19, #168]
  blr x16
  str x0, [x19, #144]
  str d0, [x19, #152]
  str x1, [x19, #160]
  mov sp, x20
  ldp x19, x20, [sp, #16]
  ldp x29, x30, [sp], #32
  ret
  .size phybin_native_call, .-phybin_native_call

// A callback stub's target (arm64::write_host_stub, x17 = the slot): the
// argument registers into a NativeCall on the stack for
// phybin_callback_dispatch, the results from there.
  .globl phybin_callback_entry
  .p2align 2
  .type phybin_callback_entry, %function
phybin_callback_entry:
  sub sp, sp, #320
  stp x29, x30, [sp, #304]
  add x29, sp, #304
  stp x0, x1, [sp, #0]
  stp x2, x3, [sp, #16]
  stp x4, x5, [sp, #32]
  stp x6, x7, [sp, #48]
  stp d0, d1, [sp, #64]
  stp d2, d3, [sp, #80]
  stp d4, d5, [sp, #96]
  stp d6, d7, [sp, #112]
  mov x0, x17
  mov x1, sp
  bl phybin_callback_dispatch
  ldr x0, [sp, #0]
  ldr d0, [sp, #64]
  ldp x29, x30, [sp, #304]
  add sp, sp, #320
  ret
  .size phybin_callback_entry, .-phybin_callback_entry
)");

}  // namespace

void native_call(NativeCall& call) { phybin_native_call(&call); }

#else

extern "C" void phybin_callback_entry() { throw std::logic_error("callbacks need an AArch64 host"); }

void native_call(NativeCall&) {
  throw std::logic_error("native_call: forwarding needs an AArch64 host");
}

#endif

}  // namespace phybin::forward
