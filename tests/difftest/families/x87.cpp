// x87 families: loads and stores in every format, arithmetic, compares,
// fxam/frndint/fscale/fprem..., stack manipulation, control word changes,
// on random stacks (depth, TOP, precision and rounding control) holding
// special values (NaNs, infinities, denormals, signed zeros).
// Transcendentals have their own family, compared within 1 ulp.
#include <string>

#include "families.h"
#include "table.h"

namespace difftest {
namespace {

// fldcw of a valid control word with all exceptions masked.
void emit_control_word(Gen& g) {
  static const unsigned precision[] = {0, 2, 3};
  const unsigned cw = 0x37f & ~0x300u;
  const unsigned value = cw | precision[g.below(3)] << 8 | static_cast<unsigned>(g.below(4)) << 10;
  const std::string slot = g.mem_at(16, static_cast<int>(g.below(DT_OPERAND_SIZE / 2)) * 2);
  g.setup("mov " + slot + ", " + std::to_string(value));
  g.emit("fldcw " + slot, 0, 0, 0);
}

}  // namespace

void init_x87(Gen& g) { g.random_x87(); }

void step_x87(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"fld"}, {"{m32}", "{m64}", "{m80}", "{st}"}},
      {{"fild"}, {"{m16}", "{m32}", "{m64}"}},
      {{"fst"}, {"{m32}", "{m64}", "{st}"}},
      {{"fstp"}, {"{m32}", "{m64}", "{m80}", "{st}"}},
      {{"fist"}, {"{m16}", "{m32}"}},
      {{"fistp", "fisttp"}, {"{m16}", "{m32}", "{m64}"}},
      {{"fbstp"}, {"{m80}"}},
      {{"fadd", "fsub", "fsubr", "fmul", "fdiv", "fdivr"}, {"st, {st}", "{st}, st", "{m32}", "{m64}"}},
      {{"faddp", "fsubp", "fsubrp", "fmulp", "fdivp", "fdivrp"}, {"{st}, st"}},
      {{"fiadd", "fisub", "fisubr", "fimul", "fidiv", "fidivr"}, {"{m16}", "{m32}"}},
      {{"fchs", "fabs", "fsqrt", "frndint", "fscale", "fprem", "fprem1", "fxtract", "ftst", "fxam"}, {""}},
      {{"fld1", "fldz", "fldpi", "fldl2e", "fldl2t", "fldlg2", "fldln2"}, {""}},
      {{"fxch", "ffree"}, {"{st}"}},
      {{"fincstp", "fdecstp", "fnop", "fcompp", "fucompp", "fnclex", "fwait"}, {""}},
      {{"fcom", "fcomp"}, {"{st}", "{m32}", "{m64}"}},
      {{"fucom", "fucomp"}, {"{st}"}},
      {{"ficom", "ficomp"}, {"{m16}", "{m32}"}},
      {{"fcomi", "fcomip", "fucomi", "fucomip"}, {"st, {st}"}, 0, ALL_FLAGS, 0},
      {{"fnstsw"}, {"ax", "{m16}"}},
      {{"fnstcw"}, {"{m16}"}},
  };
  static const std::vector<OpGroup> moves = {
      {{"fcmovb", "fcmovnb"}, {"st, {st}"}, CF, 0, 0},
      {{"fcmove", "fcmovne"}, {"st, {st}"}, ZF, 0, 0},
      {{"fcmovbe", "fcmovnbe"}, {"st, {st}"}, CF | ZF, 0, 0},
      {{"fcmovu", "fcmovnu"}, {"st, {st}"}, PF, 0, 0},
  };
  const unsigned choice = static_cast<unsigned>(g.below(100));
  if (choice < 4) emit_control_word(g);
  else if (choice < 12) emit_from(g, moves);
  else emit_from(g, groups);
}

// A few loads, then one transcendental: a chain of them would add up
// their 1-ulp differences.
void step_x87_transcendental(Gen& g) {
  g.current().tolerance.x87_one_ulp = true;
  static const std::vector<OpGroup> loads = {{{"fld"}, {"{m32}", "{m64}", "{m80}", "{st}"}}};
  static const std::vector<OpGroup> functions = {
      {{"fsin", "fcos", "fsincos", "fptan", "fpatan", "fyl2x", "fyl2xp1", "f2xm1"}, {""}}};
  for (uint64_t n = g.below(3); n > 0; --n) emit_from(g, loads);
  emit_from(g, functions);
}

}  // namespace difftest
