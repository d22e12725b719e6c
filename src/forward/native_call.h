// Calls a native AArch64 function with arguments placed as AAPCS64 wants
// them (marshal.h's NativeCall): x0-x7, d0-d7, then the stack words.
#pragma once

#include <cstdint>

#include "forward/marshal.h"

namespace phybin::forward {

// Calls call.fn, leaving its x0 and d0 in call.x0 and call.d0.  Only on
// AArch64 hosts (elsewhere nothing is forwarded).
void native_call(NativeCall& call);

}  // namespace phybin::forward
