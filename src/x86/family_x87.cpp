// The x87 FPU.  Control and status words are inline loads and stores of
// the guest state (glibc reads the rounding mode from FCW in SSE code);
// every other x87 instruction becomes one call of helper_x87 with the
// memory operand's address and a packed X87Desc (x87_helpers.h): x87 code
// is rare in compute programs, and its semantics (stack, tags, 80-bit
// soft float) live in C++.
#include <cstddef>

#include "x86/flags.h"
#include "x86/operands.h"
#include "x86/x87_helpers.h"
#include "x86/x87_state.h"
#include "x86/x87_float80.h"

namespace phybin::x86 {

using ir::Type;
using ir::Value;

namespace {

constexpr uint32_t kFcw = offsetof(GuestState, fcw);
constexpr uint32_t kFsw = offsetof(GuestState, fsw);
constexpr uint32_t kFtw = offsetof(GuestState, ftw);
constexpr uint32_t kTop = offsetof(GuestState, x87_top);
constexpr uint32_t kFip = offsetof(GuestState, x87_fip);

// ---- Operands -------------------------------------------------------------

int visible_count(const Ctx& c) { return c.d.info.operand_count_visible; }

// Index of the visible memory operand, or -1.
int memory_operand(const Ctx& c) {
  for (int i = 0; i < visible_count(c); ++i)
    if (c.op(i).type == ZYDIS_OPERAND_TYPE_MEMORY) return i;
  return -1;
}

bool is_st(const ZydisDecodedOperand& op) {
  return op.type == ZYDIS_OPERAND_TYPE_REGISTER && op.reg.value >= ZYDIS_REGISTER_ST0 &&
         op.reg.value <= ZYDIS_REGISTER_ST7;
}
uint8_t st_index(const ZydisDecodedOperand& op) { return static_cast<uint8_t>(op.reg.value - ZYDIS_REGISTER_ST0); }

X87Mem float_format(unsigned bits) {
  return bits == 32 ? X87Mem::F32 : bits == 64 ? X87Mem::F64 : bits == 80 ? X87Mem::F80 : X87Mem::None;
}
X87Mem int_format(unsigned bits) {
  return bits == 16 ? X87Mem::I16 : bits == 32 ? X87Mem::I32 : bits == 64 ? X87Mem::I64 : X87Mem::None;
}

// Emits the helper call; `mem` is the memory operand's index or -1.
void emit_call(Ctx& c, X87Desc d, int mem, const void* fn = reinterpret_cast<const void*>(&helper_x87)) {
  Value addr = mem >= 0 ? effective_address(c, mem) : c.b.constant(Type::I64, 0);
  c.b.call(Type::Void, fn, addr, c.b.constant(Type::I64, d.pack()));
}

// Fills d.mem (by `format`) from the memory operand, or d.reg from the
// one visible ST(i) operand.  False for forms we do not know.
bool memory_or_st(Ctx& c, X87Desc& d, X87Mem (*format)(unsigned), int& mem) {
  mem = memory_operand(c);
  if (mem >= 0) {
    d.mem = format(c.op(mem).size);
    return d.mem != X87Mem::None;
  }
  if (visible_count(c) < 1 || !is_st(c.op(0))) return false;
  d.reg = st_index(c.op(0));
  return true;
}

// ---- Handlers -------------------------------------------------------------

bool load_float(Ctx& c) {
  X87Desc d{X87Op::Load};
  int mem;
  if (!memory_or_st(c, d, float_format, mem)) return false;
  emit_call(c, d, mem);
  return true;
}

template <X87Mem (*kFormat)(unsigned)>
bool load_memory(Ctx& c) {
  X87Desc d{X87Op::Load};
  int mem = memory_operand(c);
  if (mem < 0) return false;
  d.mem = kFormat(c.op(mem).size);
  if (d.mem == X87Mem::None) return false;
  emit_call(c, d, mem);
  return true;
}

X87Mem bcd_format(unsigned bits) { return bits == 80 ? X87Mem::Bcd : X87Mem::None; }

template <x87::Constant kConstant>
bool load_constant(Ctx& c) {
  X87Desc d{X87Op::LoadConst};
  d.reg = static_cast<uint8_t>(kConstant);
  emit_call(c, d, -1);
  return true;
}

// fst/fstp to memory or ST(i); kFlags: kX87Pop, and kX87NoUnderflow for
// FSTP1.  The other undocumented aliases (FSTP8/9 df d0+i/d8+i, FCOM2,
// FCOMP3/5, FXCH4/7, FFREEP) reach their documented twins' handlers:
// Zydis decodes them as fstp, fcom, fcomp, fxch and ffreep.
template <uint8_t kFlags>
bool store_float(Ctx& c) {
  X87Desc d{X87Op::Store};
  d.flags = kFlags;
  int mem;
  if (!memory_or_st(c, d, float_format, mem)) return false;
  emit_call(c, d, mem);
  return true;
}

template <X87Op kOp, bool kPop, X87Mem (*kFormat)(unsigned)>
bool store_memory(Ctx& c) {
  X87Desc d{kOp};
  d.flags = kPop ? kX87Pop : 0;
  int mem = memory_operand(c);
  if (mem < 0) return false;
  d.mem = kFormat(c.op(mem).size);
  if (d.mem == X87Mem::None) return false;
  emit_call(c, d, mem);
  return true;
}

// fadd/fsub/fsubr/fmul/fdiv/fdivr in all forms: "m" (ST0 op= m), "st0,
// st(i)" (ST0 op= ST(i)), "st(i), st0" (ST(i) op= ST0, maybe popping).
template <X87Op kOp, bool kPop, bool kInteger>
bool arith(Ctx& c) {
  X87Desc d{kOp};
  d.flags = kPop ? kX87Pop : 0;
  int mem = memory_operand(c);
  if (mem >= 0) {
    d.mem = kInteger ? int_format(c.op(mem).size) : float_format(c.op(mem).size);
    if (d.mem == X87Mem::None || d.mem == X87Mem::F80 || d.mem == X87Mem::I64) return false;
  } else if (visible_count(c) == 2 && is_st(c.op(0)) && is_st(c.op(1))) {
    if (st_index(c.op(0)) == 0 && !kPop) {
      d.reg = st_index(c.op(1));
    } else if (st_index(c.op(1)) == 0) {
      d.reg = st_index(c.op(0));
      d.flags |= kX87ToReg;
    } else {
      return false;
    }
  } else {
    return false;
  }
  emit_call(c, d, mem);
  return true;
}

// fcom/fcomp/fucom/fucomp/ficom/ficomp; fcompp/fucompp compare with ST1.
template <uint8_t kFlags, bool kInteger>
bool compare(Ctx& c) {
  X87Desc d{X87Op::Compare};
  d.flags = kFlags;
  int mem = memory_operand(c);
  if (mem >= 0) {
    d.mem = kInteger ? int_format(c.op(mem).size) : float_format(c.op(mem).size);
    if (d.mem == X87Mem::None || d.mem == X87Mem::F80 || d.mem == X87Mem::I64) return false;
  } else if (visible_count(c) >= 1 && is_st(c.op(visible_count(c) - 1))) {
    d.reg = st_index(c.op(visible_count(c) - 1));  // "fucomp st0, st(i)" lists ST0 too
  } else {
    d.reg = 1;
  }
  emit_call(c, d, mem);
  return true;
}

// fcomi/fcomip/fucomi/fucomip: ZF, PF, CF from the helper; OF, SF, AF 0.
template <uint8_t kFlags>
bool compare_flags(Ctx& c) {
  if (visible_count(c) != 2 || !is_st(c.op(1))) return false;
  X87Desc d{X87Op::Compare};
  d.flags = kFlags;
  d.reg = st_index(c.op(1));
  Value r = c.b.call(Type::I64, reinterpret_cast<const void*>(&helper_x87_comi), c.b.constant(Type::I64, 0),
                     c.b.constant(Type::I64, d.pack()));
  auto bit = [&](uint8_t flag) {
    return c.b.icmp(ir::Cond::NE, c.b.binary(ir::Opcode::And, Type::I64, r, c.b.constant(Type::I64, kFlagMask(FlagBit(flag)))),
                    c.b.constant(Type::I64, 0));
  };
  Value zero = c.b.constant(Type::I1, 0);
  if (c.flag_live(kZF)) put_flag(c, kZF, bit(kZF));
  if (c.flag_live(kPF)) put_flag(c, kPF, bit(kPF));
  if (c.flag_live(kCF)) put_flag(c, kCF, bit(kCF));
  put_flag(c, kOF, zero);
  put_flag(c, kSF, zero);
  put_flag(c, kAF, zero);
  return true;
}

// Instructions with no explicit operand (fchs, fsin, fxch's default...).
template <X87Op kOp>
bool simple(Ctx& c) {
  X87Desc d{kOp};
  emit_call(c, d, -1);
  return true;
}

// fxch st(i), ffree st(i), ffreep st(i): the register (ST1 when absent).
template <X87Op kOp, bool kPop>
bool with_register(Ctx& c) {
  X87Desc d{kOp};
  d.flags = kPop ? kX87Pop : 0;
  d.reg = visible_count(c) >= 1 && is_st(c.op(0)) ? st_index(c.op(0)) : 1;
  emit_call(c, d, -1);
  return true;
}

// fcmovcc st0, st(i): the condition is evaluated inline and passed in.
template <unsigned kCond>
bool cond_move(Ctx& c) {
  if (visible_count(c) != 2 || !is_st(c.op(1))) return false;
  X87Desc d{X87Op::CondMove};
  d.reg = st_index(c.op(1));
  Value cond = c.b.zext(Type::I64, condition(c, kCond));
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_x87), cond, c.b.constant(Type::I64, d.pack()));
  return true;
}

// fnstenv/fldenv (28 bytes) and fnsave/frstor (108 bytes), or with the
// operand-size prefix the 16-bit layouts (14 and 94 bytes).
template <X87Op kOp, unsigned kBytes>
bool environment(Ctx& c) {
  int mem = memory_operand(c);
  if (mem < 0) return false;
  const unsigned bits = c.op(mem).size;
  const bool env16 = bits == (kBytes - 14) * 8;
  if (bits != kBytes * 8 && !env16) return false;
  X87Desc d{kOp};
  if (env16) d.flags = kX87Env16;
  emit_call(c, d, mem);
  return true;
}

bool fnstcw(Ctx& c) {
  write_operand(c, 0, c.b.load_state(Type::I16, kFcw));
  return true;
}

// An exception flag the new control word unmasks becomes pending: FSW's
// ES and B are set, and the next waiting x87 instruction delivers it.
bool fldcw(Ctx& c) {
  using ir::Opcode;
  Value cw = c.b.binary(Opcode::Or, Type::I16,
                        c.b.binary(Opcode::And, Type::I16, read_operand(c, 0), c.b.constant(Type::I16, kFcwWritable)),
                        c.b.constant(Type::I16, kFcwAlwaysSet));
  c.b.store_state(kFcw, cw);
  Value fsw = c.b.load_state(Type::I16, kFsw);
  Value unmasked = c.b.binary(Opcode::And, Type::I16, c.b.binary(Opcode::AndNot, Type::I16, fsw, cw),
                              c.b.constant(Type::I16, 0x3f));
  Value pending = c.b.icmp(ir::Cond::NE, unmasked, c.b.constant(Type::I16, 0));
  Value summary = c.b.select(Type::I16, pending, c.b.constant(Type::I16, 0x8080), c.b.constant(Type::I16, 0));
  Value kept = c.b.binary(Opcode::And, Type::I16, fsw, c.b.constant(Type::I16, 0x7f7f));
  c.b.store_state(kFsw, c.b.binary(Opcode::Or, Type::I16, kept, summary));
  return true;
}

// FSW keeps TOP in bits 11-13, so it can be read as it is.
bool fnstsw(Ctx& c) {
  write_operand(c, 0, c.b.load_state(Type::I16, kFsw));
  return true;
}

// fninit: control word 0x37F (all exceptions masked, 64-bit precision,
// round to nearest), empty stack.
bool fninit(Ctx& c) {
  c.b.store_state(kFcw, c.b.constant(Type::I16, 0x37f));
  c.b.store_state(kFsw, c.b.constant(Type::I16, 0));
  c.b.store_state(kFtw, c.b.constant(Type::I16, 0xffff));
  c.b.store_state(kTop, c.b.constant(Type::I32, 0));
  c.b.store_state(kFip, c.b.constant(Type::I32, 0));
  return true;
}

bool fnclex(Ctx& c) {
  Value fsw = c.b.load_state(Type::I16, kFsw);
  c.b.store_state(kFsw, c.b.binary(ir::Opcode::And, Type::I16, fsw, c.b.constant(Type::I16, 0x7f00)));
  return true;
}

bool nop(Ctx&) { return true; }

void register_loads_stores(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_FLD, load_float);
  t.add(ZYDIS_MNEMONIC_FILD, load_memory<int_format>);
  t.add(ZYDIS_MNEMONIC_FBLD, load_memory<bcd_format>);
  t.add(ZYDIS_MNEMONIC_FLD1, load_constant<x87::Constant::One>);
  t.add(ZYDIS_MNEMONIC_FLDZ, load_constant<x87::Constant::Zero>);
  t.add(ZYDIS_MNEMONIC_FLDPI, load_constant<x87::Constant::Pi>);
  t.add(ZYDIS_MNEMONIC_FLDL2E, load_constant<x87::Constant::L2e>);
  t.add(ZYDIS_MNEMONIC_FLDL2T, load_constant<x87::Constant::L2t>);
  t.add(ZYDIS_MNEMONIC_FLDLG2, load_constant<x87::Constant::Lg2>);
  t.add(ZYDIS_MNEMONIC_FLDLN2, load_constant<x87::Constant::Ln2>);
  t.add(ZYDIS_MNEMONIC_FST, store_float<0>);
  t.add(ZYDIS_MNEMONIC_FSTP, store_float<kX87Pop>);
  t.add(ZYDIS_MNEMONIC_FSTPNCE, store_float<kX87Pop | kX87NoUnderflow>);  // FSTP1, d9 d8+i
  t.add(ZYDIS_MNEMONIC_FIST, store_memory<X87Op::Store, false, int_format>);
  t.add(ZYDIS_MNEMONIC_FISTP, store_memory<X87Op::Store, true, int_format>);
  t.add(ZYDIS_MNEMONIC_FISTTP, store_memory<X87Op::StoreTrunc, true, int_format>);
  t.add(ZYDIS_MNEMONIC_FBSTP, store_memory<X87Op::Store, true, bcd_format>);
}

void register_arithmetic(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_FADD, arith<X87Op::Add, false, false>);
  t.add(ZYDIS_MNEMONIC_FADDP, arith<X87Op::Add, true, false>);
  t.add(ZYDIS_MNEMONIC_FIADD, arith<X87Op::Add, false, true>);
  t.add(ZYDIS_MNEMONIC_FSUB, arith<X87Op::Sub, false, false>);
  t.add(ZYDIS_MNEMONIC_FSUBP, arith<X87Op::Sub, true, false>);
  t.add(ZYDIS_MNEMONIC_FISUB, arith<X87Op::Sub, false, true>);
  t.add(ZYDIS_MNEMONIC_FSUBR, arith<X87Op::SubR, false, false>);
  t.add(ZYDIS_MNEMONIC_FSUBRP, arith<X87Op::SubR, true, false>);
  t.add(ZYDIS_MNEMONIC_FISUBR, arith<X87Op::SubR, false, true>);
  t.add(ZYDIS_MNEMONIC_FMUL, arith<X87Op::Mul, false, false>);
  t.add(ZYDIS_MNEMONIC_FMULP, arith<X87Op::Mul, true, false>);
  t.add(ZYDIS_MNEMONIC_FIMUL, arith<X87Op::Mul, false, true>);
  t.add(ZYDIS_MNEMONIC_FDIV, arith<X87Op::Div, false, false>);
  t.add(ZYDIS_MNEMONIC_FDIVP, arith<X87Op::Div, true, false>);
  t.add(ZYDIS_MNEMONIC_FIDIV, arith<X87Op::Div, false, true>);
  t.add(ZYDIS_MNEMONIC_FDIVR, arith<X87Op::DivR, false, false>);
  t.add(ZYDIS_MNEMONIC_FDIVRP, arith<X87Op::DivR, true, false>);
  t.add(ZYDIS_MNEMONIC_FIDIVR, arith<X87Op::DivR, false, true>);
  t.add(ZYDIS_MNEMONIC_FCHS, simple<X87Op::Chs>);
  t.add(ZYDIS_MNEMONIC_FABS, simple<X87Op::Abs>);
  t.add(ZYDIS_MNEMONIC_FSQRT, simple<X87Op::Sqrt>);
  t.add(ZYDIS_MNEMONIC_FRNDINT, simple<X87Op::RoundInt>);
  t.add(ZYDIS_MNEMONIC_FSCALE, simple<X87Op::Scale>);
  t.add(ZYDIS_MNEMONIC_FXTRACT, simple<X87Op::Extract>);
  t.add(ZYDIS_MNEMONIC_FPREM, simple<X87Op::Prem>);
  t.add(ZYDIS_MNEMONIC_FPREM1, simple<X87Op::Prem1>);
  t.add(ZYDIS_MNEMONIC_F2XM1, simple<X87Op::Exp2m1>);
  t.add(ZYDIS_MNEMONIC_FYL2X, simple<X87Op::Yl2x>);
  t.add(ZYDIS_MNEMONIC_FYL2XP1, simple<X87Op::Yl2xp1>);
  t.add(ZYDIS_MNEMONIC_FPATAN, simple<X87Op::Atan>);
  t.add(ZYDIS_MNEMONIC_FSIN, simple<X87Op::Sin>);
  t.add(ZYDIS_MNEMONIC_FCOS, simple<X87Op::Cos>);
  t.add(ZYDIS_MNEMONIC_FSINCOS, simple<X87Op::SinCos>);
  t.add(ZYDIS_MNEMONIC_FPTAN, simple<X87Op::Tan>);
}

void register_compares(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_FCOM, compare<0, false>);
  t.add(ZYDIS_MNEMONIC_FCOMP, compare<kX87Pop, false>);
  t.add(ZYDIS_MNEMONIC_FCOMPP, compare<kX87Pop2, false>);
  t.add(ZYDIS_MNEMONIC_FUCOM, compare<kX87Quiet, false>);
  t.add(ZYDIS_MNEMONIC_FUCOMP, compare<kX87Quiet | kX87Pop, false>);
  t.add(ZYDIS_MNEMONIC_FUCOMPP, compare<kX87Quiet | kX87Pop2, false>);
  t.add(ZYDIS_MNEMONIC_FICOM, compare<0, true>);
  t.add(ZYDIS_MNEMONIC_FICOMP, compare<kX87Pop, true>);
  t.add(ZYDIS_MNEMONIC_FCOMI, compare_flags<0>);
  t.add(ZYDIS_MNEMONIC_FCOMIP, compare_flags<kX87Pop>);
  t.add(ZYDIS_MNEMONIC_FUCOMI, compare_flags<kX87Quiet>);
  t.add(ZYDIS_MNEMONIC_FUCOMIP, compare_flags<kX87Quiet | kX87Pop>);
  t.add(ZYDIS_MNEMONIC_FTST, simple<X87Op::Test>);
  t.add(ZYDIS_MNEMONIC_FXAM, simple<X87Op::Examine>);
}

void register_stack_and_control(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_FXCH, with_register<X87Op::Exchange, false>);
  t.add(ZYDIS_MNEMONIC_FFREE, with_register<X87Op::Free, false>);
  t.add(ZYDIS_MNEMONIC_FFREEP, with_register<X87Op::Free, true>);
  t.add(ZYDIS_MNEMONIC_FINCSTP, simple<X87Op::IncTop>);
  t.add(ZYDIS_MNEMONIC_FDECSTP, simple<X87Op::DecTop>);
  t.add(ZYDIS_MNEMONIC_FCMOVB, cond_move<2>);
  t.add(ZYDIS_MNEMONIC_FCMOVNB, cond_move<3>);
  t.add(ZYDIS_MNEMONIC_FCMOVE, cond_move<4>);
  t.add(ZYDIS_MNEMONIC_FCMOVNE, cond_move<5>);
  t.add(ZYDIS_MNEMONIC_FCMOVBE, cond_move<6>);
  t.add(ZYDIS_MNEMONIC_FCMOVNBE, cond_move<7>);
  t.add(ZYDIS_MNEMONIC_FCMOVU, cond_move<10>);
  t.add(ZYDIS_MNEMONIC_FCMOVNU, cond_move<11>);
  t.add(ZYDIS_MNEMONIC_FNSTENV, environment<X87Op::StoreEnv, 28>);
  t.add(ZYDIS_MNEMONIC_FLDENV, environment<X87Op::LoadEnv, 28>);
  t.add(ZYDIS_MNEMONIC_FNSAVE, environment<X87Op::Save, 108>);
  t.add(ZYDIS_MNEMONIC_FRSTOR, environment<X87Op::Restore, 108>);
  t.add(ZYDIS_MNEMONIC_FNSTCW, fnstcw);
  t.add(ZYDIS_MNEMONIC_FLDCW, fldcw);
  t.add(ZYDIS_MNEMONIC_FNSTSW, fnstsw);
  t.add(ZYDIS_MNEMONIC_FNINIT, fninit);
  t.add(ZYDIS_MNEMONIC_FNCLEX, fnclex);
  // fwait and fnop deliver a pending unmasked exception.
  t.add(ZYDIS_MNEMONIC_FWAIT, simple<X87Op::Wait>);
  t.add(ZYDIS_MNEMONIC_FNOP, simple<X87Op::Wait>);
  t.add(ZYDIS_MNEMONIC_FDISI8087_NOP, nop);
  t.add(ZYDIS_MNEMONIC_FENI8087_NOP, nop);
  t.add(ZYDIS_MNEMONIC_FSETPM287_NOP, nop);
}

}  // namespace

void register_x87(HandlerTable& t) {
  register_loads_stores(t);
  register_arithmetic(t);
  register_compares(t);
  register_stack_and_control(t);
}

}  // namespace phybin::x86
