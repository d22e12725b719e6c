// The step functions of all families (one file per group of families).
#pragma once

#include "../driver/gen.h"

namespace difftest {

void step_alu(Gen& g);
void step_carry(Gen& g);
void step_extend(Gen& g);
void step_exchange(Gen& g);
void step_cmpxchg16b(Gen& g);
void step_shift(Gen& g);
void step_shld16(Gen& g);
void step_muldiv(Gen& g);
void step_bits(Gen& g);
void step_popcnt(Gen& g);
void step_condition(Gen& g);
void step_stack(Gen& g);
void step_stack_rare(Gen& g);
void step_string(Gen& g);
void init_sse(Gen& g);
void init_sse_no_flush(Gen& g);
void init_sse_flush(Gen& g);
void init_sse_ftz(Gen& g);
void init_sse_daz(Gen& g);
void init_sse_convert(Gen& g);
void step_sse_int(Gen& g);
void step_sse_fp(Gen& g);
void step_sse_shuffle(Gen& g);
void init_sse_chain(Gen& g);
void step_sse_chain(Gen& g);
void step_sse_convert(Gen& g);
void emit_mxcsr_change(Gen& g, bool flush);  // ldmxcsr of a random valid value
void step_sse3(Gen& g);
void step_ssse3(Gen& g);
void step_sse41_int(Gen& g);
void step_sse41_fp(Gen& g);
void step_sse42(Gen& g);
void init_mmx(Gen& g);
void step_mmx(Gen& g);
void init_x87(Gen& g);
void step_x87(Gen& g);
void step_x87_transcendental(Gen& g);
void step_aes(Gen& g);
void step_pclmul(Gen& g);
void step_sha(Gen& g);
void step_bmi1(Gen& g);
void step_bmi2(Gen& g);
void step_adx(Gen& g);
void step_movbe(Gen& g);
void init_opcode_map(Gen& g);
void step_opcode_map(Gen& g);

}  // namespace difftest
