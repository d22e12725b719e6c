// SSE/SSE2: placeholder registration until the SSE families land.
#include "x86/context.h"

namespace phybin::x86 {

void register_sse(HandlerTable&) {}

}  // namespace phybin::x86
