// The step functions of all families (one file per group of families).
#pragma once

#include "../driver/gen.h"

namespace difftest {

void step_alu(Gen& g);
void step_carry(Gen& g);
void step_extend(Gen& g);
void step_exchange(Gen& g);
void step_cmpxchg16b(Gen& g);

}  // namespace difftest
