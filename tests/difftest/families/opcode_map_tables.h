// The x86-64 opcode maps as the opcode_map family needs them: how long an
// encoding is after its opcode, what the family leaves out, which flags an
// opcode leaves undefined and where phybin may answer with SIGILL.  Written
// from the Intel SDM volume 2 (opcode map appendix A) and the AMD APM
// volume 3; README.md ("opcode_map") lists the exclusions with reasons.
#pragma once

#include <cstdint>

namespace difftest::opmap {

enum class Map { One, Two, Three38, Three3A };

// The prefixes of one encoding (legacy prefixes and REX.W).
struct Prefixes {
  bool lock = false, p66 = false, f2 = false, f3 = false, p67 = false, rex_w = false;
  // The SSE mandatory prefix: F2/F3 win over 66.
  uint8_t mandatory() const { return f3 ? 0xf3 : f2 ? 0xf2 : p66 ? 0x66 : 0; }
};

// What follows the opcode (a letter per opcode in the tables):
//   '.' nothing          'M' ModRM            'B' ModRM, imm8
//   'Z' ModRM, imm16/32 (iz)                  'b' imm8
//   'z' imm16/32 (iz)    'v' imm16/32/64 (B8+r: iv)
//   'o' moffs (8 bytes, 4 with 67)            'e' imm16, imm8 (enter)
//   'G' ModRM, imm8 for /0 and /1 (F6)        'H' ModRM, iz for /0 and /1 (F7)
//   'R' ModRM, register form only (mov CRn/DRn ignore mod)
//   '2' ModRM, two imm8 (0F 78: AMD extrq/insertq)
//   'V' VEX (C4/C5)      'E' EVEX (62)
//   'x' left out (control transfers, nondeterministic; README.md)
//   'p' a prefix, not an opcode of its own
//   'e' and '0' (escape to the next map) are not generated as opcodes
char shape(Map map, uint8_t op);

// Immediate bytes of a shape (after ModRM/SIB/displacement).
int immediate_bytes(char shape, const Prefixes& p, int reg);

// Encodings the family leaves out (README.md lists why): mod 3 is the
// register form, reg/rm the ModRM fields (-1 without ModRM).
bool excluded(Map map, uint8_t op, const Prefixes& p, int mod, int reg, int rm, bool model_vendor);

// Flags the encoding leaves undefined in either manual; vendor_undefined:
// the ones phybin computes as Intel CPUs do (compared on Intel only).
struct FlagRule {
  uint32_t undefined = 0;
  uint32_t vendor_undefined = 0;
};
FlagRule flag_rule(Map map, uint8_t op, const Prefixes& p, int mod, int reg);

// Encodings of extensions phybin does not advertise in its CPUID (or only
// a CPU of another vendor has): phybin may answer SIGILL (the CPU it
// models would), or it must agree.
bool phybin_may_sigill(Map map, uint8_t op, const Prefixes& p, int mod, int reg, int rm, bool model_vendor);

// x87 (D8-DF): whether the encoding defines C0-C3 (compares, fxam) and
// whether it is a transcendental (compared within one ulp).
bool x87_defines_condition_codes(uint8_t op, int mod, int reg, int rm);
bool x87_transcendental(uint8_t op, int mod, int reg, int rm);

// VEX: the BMI1/BMI2 encodings phybin translates (compared strictly).
bool vex_bmi(int vex_map, uint8_t op);
// VEX/EVEX opcodes of a map that the family generates and the shape
// after the opcode ('M' or 'B'; '.' for vzeroupper/vzeroall; 0: not used).
char vex_shape(int vex_map, uint8_t op, bool evex);

}  // namespace difftest::opmap
