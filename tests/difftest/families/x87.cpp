// x87 families: loads and stores in every format, arithmetic, compares,
// fxam/frndint/fscale/fprem..., stack manipulation, control word changes,
// on random stacks (depth, TOP, precision and rounding control) holding
// special values (NaNs, infinities, denormals, signed zeros).
// Transcendentals have their own family, compared within 1 ulp.
#include <string>

#include "families.h"
#include "table.h"

namespace difftest {

// The x87 condition codes per instruction, as both manuals give them: C1
// reports the rounding or a stack fault after loads, stores and
// arithmetic, where C0, C2 and C3 are undefined; compares and fxam set all
// four; ffree, fnop, fnclex, fwait, fnstsw, fnstcw and fldcw leave all four
// undefined.  phybin keeps the undefined ones as Intel CPUs do, so they
// are compared on the model's vendor only (Insn in gen.h).
constexpr uint16_t kC023 = C0 | C2 | C3;

namespace {

// fldcw of a valid control word with all exceptions masked.
void emit_control_word(Gen& g) {
  static const unsigned precision[] = {0, 2, 3};
  const unsigned cw = 0x37f & ~0x300u;
  const unsigned value = cw | precision[g.below(3)] << 8 | static_cast<unsigned>(g.below(4)) << 10;
  const std::string slot = g.mem_at(16, static_cast<int>(g.below(DT_OPERAND_SIZE / 2)) * 2);
  g.setup("mov " + slot + ", " + std::to_string(value));
  Insn fldcw{"fldcw " + slot};
  fldcw.fsw_undefines = ALL_CC;
  g.emit(fldcw);
}

}  // namespace

void init_x87(Gen& g) { g.random_x87(); }

void step_x87(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"fld"}, {"{m32}", "{m64}", "{m80}", "{st}"}, 0, 0, 0, 0, C1, kC023},
      {{"fild"}, {"{m16}", "{m32}", "{m64}"}, 0, 0, 0, 0, C1, kC023},
      {{"fst"}, {"{m32}", "{m64}", "{st}"}, 0, 0, 0, 0, C1, kC023},
      {{"fstp"}, {"{m32}", "{m64}", "{m80}", "{st}"}, 0, 0, 0, 0, C1, kC023},
      {{"fist"}, {"{m16}", "{m32}"}, 0, 0, 0, 0, C1, kC023},
      {{"fistp", "fisttp"}, {"{m16}", "{m32}", "{m64}"}, 0, 0, 0, 0, C1, kC023},
      {{"fbstp"}, {"{m80}"}, 0, 0, 0, 0, C1, kC023},
      {{"fadd", "fsub", "fsubr", "fmul", "fdiv", "fdivr"}, {"st, {st}", "{st}, st", "{m32}", "{m64}"}, 0, 0, 0, 0, C1,
       kC023},
      {{"faddp", "fsubp", "fsubrp", "fmulp", "fdivp", "fdivrp"}, {"{st}, st"}, 0, 0, 0, 0, C1, kC023},
      {{"fiadd", "fisub", "fisubr", "fimul", "fidiv", "fidivr"}, {"{m16}", "{m32}"}, 0, 0, 0, 0, C1, kC023},
      {{"fchs", "fabs", "fsqrt", "frndint", "fscale", "fxtract"}, {""}, 0, 0, 0, 0, C1, kC023},
      // C2 = reduction incomplete; the quotient bits C0, C3, C1 are not
      // defined for NaN, infinite or zero-divisor operands
      {{"fprem", "fprem1"}, {""}, 0, 0, 0, 0, C2, C0 | C1 | C3},
      {{"ftst", "fxam"}, {""}, 0, 0, 0, 0, ALL_CC, 0},
      {{"fld1", "fldz", "fldpi", "fldl2e", "fldl2t", "fldlg2", "fldln2"}, {""}, 0, 0, 0, 0, C1, kC023},
      {{"fxch"}, {"{st}"}, 0, 0, 0, 0, C1, kC023},
      {{"ffree"}, {"{st}"}, 0, 0, 0, 0, 0, ALL_CC},
      {{"fincstp", "fdecstp"}, {""}, 0, 0, 0, 0, C1, kC023},
      {{"fnop", "fnclex", "fwait"}, {""}, 0, 0, 0, 0, 0, ALL_CC},
      {{"fcompp", "fucompp"}, {""}, 0, 0, 0, 0, ALL_CC, 0},
      {{"fcom", "fcomp"}, {"{st}", "{m32}", "{m64}"}, 0, 0, 0, 0, ALL_CC, 0},
      {{"fucom", "fucomp"}, {"{st}"}, 0, 0, 0, 0, ALL_CC, 0},
      {{"ficom", "ficomp"}, {"{m16}", "{m32}"}, 0, 0, 0, 0, ALL_CC, 0},
      // C0, C2, C3 unaffected; the SDM sets C1 to 0, Intel CPUs (and
      // phybin) keep it
      {{"fcomi", "fcomip", "fucomi", "fucomip"}, {"st, {st}"}, 0, ALL_FLAGS, 0, 0, 0, C1},
      {{"fnstcw"}, {"{m16}"}, 0, 0, 0, 0, 0, ALL_CC},
  };
  // C1 = 0 after a stack underflow, otherwise kept by Intel CPUs; C0, C2,
  // C3 undefined
  static const std::vector<OpGroup> moves = {
      {{"fcmovb", "fcmovnb"}, {"st, {st}"}, CF, 0, 0, 0, 0, ALL_CC},
      {{"fcmove", "fcmovne"}, {"st, {st}"}, ZF, 0, 0, 0, 0, ALL_CC},
      {{"fcmovbe", "fcmovnbe"}, {"st, {st}"}, CF | ZF, 0, 0, 0, 0, ALL_CC},
      {{"fcmovu", "fcmovnu"}, {"st, {st}"}, PF, 0, 0, 0, 0, ALL_CC},
  };
  const unsigned choice = static_cast<unsigned>(g.below(100));
  if (choice < 4) {
    emit_control_word(g);
  } else if (choice < 12) {
    emit_from(g, moves);
  } else if (choice < 16) {
    // the stored C0-C3 are compared bit for bit: Gen puts an fxam before
    // when they are undefined
    Insn store{g.chance(50) ? "fnstsw ax" : "fnstsw " + g.mem(16)};
    store.fsw_reads = ALL_CC;
    store.fsw_undefines = ALL_CC;
    g.emit(store);
  } else {
    emit_from(g, groups);
  }
}

// A few loads, then one transcendental: a chain of them would add up
// their 1-ulp differences.
void step_x87_transcendental(Gen& g) {
  g.current().tolerance.x87_one_ulp = true;
  g.current().tolerance.x87_ulp_flags = !g.model_vendor();
  static const std::vector<OpGroup> loads = {{{"fld"}, {"{m32}", "{m64}", "{m80}", "{st}"}, 0, 0, 0, 0, C1, kC023}};
  // C2 reports an operand out of range for the trigonometric ones
  static const std::vector<OpGroup> functions = {
      {{"fsin", "fcos", "fsincos", "fptan"}, {""}, 0, 0, 0, 0, C1 | C2, C0 | C3},
      {{"fpatan", "fyl2x", "fyl2xp1", "f2xm1"}, {""}, 0, 0, 0, 0, C1, kC023}};
  for (uint64_t n = g.below(3); n > 0; --n) emit_from(g, loads);
  emit_from(g, functions);
}

}  // namespace difftest
