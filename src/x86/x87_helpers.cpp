// helper_x87: one x87 instruction on the guest state, after the packed
// X87Desc the frontend made of it.  Arithmetic is the soft-float core
// (x87_float80.h); this file adds the register stack, memory operands,
// and which FSW condition bits each instruction defines.
#include "x86/x87_helpers.h"

#include <csignal>

#include "x86/x87_state.h"

namespace phybin::x86 {

void x87_environment(Fpu& f, X87Op op, uint64_t addr, bool env16);  // x87_env.cpp
void x87_raise_pending(GuestState* s);                  // x87_env.cpp

namespace {

using namespace x87;

constexpr uint16_t kC1 = kRoundedUp;

template <typename T>
T load(uint64_t addr) {
  T v;
  std::memcpy(&v, reinterpret_cast<const void*>(addr), sizeof v);
  return v;
}

template <typename T>
void store(uint64_t addr, T v) {
  std::memcpy(reinterpret_cast<void*>(addr), &v, sizeof v);
}

// fld/fild/fbld's memory operand.
Float80 load_value(FpEnv& env, uint64_t addr, X87Mem mem) {
  switch (mem) {
    case X87Mem::F32: return from_f32(env, load<uint32_t>(addr));
    case X87Mem::F64: return from_f64(env, load<uint64_t>(addr));
    case X87Mem::I16: return from_int(load<int16_t>(addr));
    case X87Mem::I32: return from_int(load<int32_t>(addr));
    case X87Mem::I64: return from_int(load<int64_t>(addr));
    case X87Mem::Bcd: return from_bcd(reinterpret_cast<const uint8_t*>(addr));
    default: {
      Float80 v;
      std::memcpy(&v.sig, reinterpret_cast<const void*>(addr), 8);
      std::memcpy(&v.se, reinterpret_cast<const uint8_t*>(addr) + 8, 2);
      return v;
    }
  }
}

// The memory operand of arithmetic and compares: exact, and remembered
// as operand `which` being a denormal when it was one in its own format.
Float80 operand_value(FpEnv& env, uint64_t addr, X87Mem mem, int which) {
  bool denormal = false;
  Float80 v;
  switch (mem) {
    case X87Mem::F32: v = widen_f32(load<uint32_t>(addr), denormal); break;
    case X87Mem::F64: v = widen_f64(load<uint64_t>(addr), denormal); break;
    case X87Mem::I16: v = from_int(load<int16_t>(addr)); break;
    default: v = from_int(load<int32_t>(addr)); break;
  }
  if (denormal) env.denormal_source = static_cast<uint8_t>(env.denormal_source | (1 << which));
  return v;
}

void store_value(FpEnv& env, uint64_t addr, X87Mem mem, Float80 v, bool truncate) {
  switch (mem) {
    case X87Mem::F32: store(addr, to_f32(env, v)); break;
    case X87Mem::F64: store(addr, to_f64(env, v)); break;
    case X87Mem::I16: store(addr, static_cast<uint16_t>(to_int(env, v, 16, truncate))); break;
    case X87Mem::I32: store(addr, static_cast<uint32_t>(to_int(env, v, 32, truncate))); break;
    case X87Mem::I64: store(addr, to_int(env, v, 64, truncate)); break;
    case X87Mem::Bcd: {
      uint8_t bcd[10];
      to_bcd(env, v, bcd);
      std::memcpy(reinterpret_cast<void*>(addr), bcd, 10);
      break;
    }
    default:
      std::memcpy(reinterpret_cast<void*>(addr), &v.sig, 8);
      std::memcpy(reinterpret_cast<uint8_t*>(addr) + 8, &v.se, 2);
      break;
  }
}

void pop_as_asked(Fpu& f, const X87Desc& d) {
  if (d.flags & (kX87Pop | kX87Pop2)) f.pop();
  if (d.flags & kX87Pop2) f.pop();
}

void do_load(Fpu& f, const X87Desc& d, uint64_t addr) {
  FpEnv env = f.env(false);
  Float80 v = kIndefinite;
  const bool from_register = d.op == X87Op::Load && d.mem == X87Mem::None;
  if (from_register && f.empty(d.reg)) {
    // An empty source register is reported (underflow, C1 = 0) even when
    // the stack is also full.
    env.raise(kStackUnderflow);
    f.set_top(f.top() - 1);
    f.put(0, v);
    f.finish(env.status, kC1);
    return;
  }
  // A full stack (the new ST0 in use) is checked before a memory source is
  // read, so that source raises no denormal or invalid exception then.
  if (!f.empty(7)) {
  } else if (d.op == X87Op::LoadConst) {
    v = load_constant(env.rc, static_cast<Constant>(d.reg));
  } else if (d.mem == X87Mem::None) {
    v = f.read(d.reg, env);
  } else {
    v = load_value(env, addr, d.mem);
  }
  f.push(v, env);
  f.finish(env.status, kC1);
}

void do_store(Fpu& f, const X87Desc& d, uint64_t addr) {
  if ((d.flags & kX87NoUnderflow) && f.empty(0)) {  // measured: C1 cleared, no exception, ST(i) untouched
    f.pop();
    f.finish(0, kC1);
    return;
  }
  FpEnv env = f.env(false);
  Float80 v = f.read(0, env);
  if (d.mem == X87Mem::None) f.put(d.reg, v);  // register copy: exact
  else store_value(env, addr, d.mem, v, d.op == X87Op::StoreTrunc);
  pop_as_asked(f, d);
  f.finish(env.status, kC1);
}

Float80 binary(FpEnv& env, X87Op op, Float80 a, Float80 b) {
  switch (op) {
    case X87Op::Add: return add(env, a, b);
    case X87Op::Mul: return mul(env, a, b);
    case X87Op::Sub: return sub(env, a, b);
    case X87Op::SubR: return sub(env, b, a);
    case X87Op::Div: return div(env, a, b);
    default: return x87::div(env, b, a);
  }
}

void do_arith(Fpu& f, const X87Desc& d, uint64_t addr) {
  FpEnv env = f.env(true);
  unsigned dest = (d.flags & kX87ToReg) ? d.reg : 0;
  Float80 result;
  if (f.empty(dest) || (d.mem == X87Mem::None && f.empty(dest == 0 ? d.reg : 0))) {
    env.raise(kStackUnderflow);
    result = kIndefinite;
  } else {
    // The memory operand is b, or a for the reversed forms.
    bool reversed = d.op == X87Op::SubR || d.op == X87Op::DivR;
    Float80 src = d.mem != X87Mem::None ? operand_value(env, addr, d.mem, reversed ? 0 : 1)
                                         : f.get(dest == 0 ? d.reg : 0);
    result = binary(env, d.op, f.get(dest), src);
  }
  f.put(dest, result);
  pop_as_asked(f, d);
  f.finish(env.status, kC1);
}

// fcom/fucom/ficom/ftst: C3 C2 C0 (and C1 = 0).
void do_compare(Fpu& f, const X87Desc& d, uint64_t addr) {
  FpEnv env = f.env(false);
  Order order = Order::Unordered;
  if (f.empty(0) || (d.op == X87Op::Compare && d.mem == X87Mem::None && f.empty(d.reg))) {
    env.raise(kStackUnderflow);
  } else {
    Float80 other = d.op == X87Op::Test ? Float80{}
                    : d.mem != X87Mem::None ? operand_value(env, addr, d.mem, 1)
                                            : f.get(d.reg);
    order = compare(env, f.get(0), other, d.flags & kX87Quiet);
  }
  env.raise(condition_bits(order));
  pop_as_asked(f, d);
  f.finish(env.status, kFswConditions);
}

void do_examine(Fpu& f) {
  uint16_t bits = f.empty(0) ? static_cast<uint16_t>(kC3 | kC0 | (f.get(0).sign() ? kC1 : 0)) : examine(f.get(0));
  f.finish(bits, kFswConditions);
}

// ST0 = fn(ST0), and the x87's C2 for the trigonometric range check.
void do_unary(Fpu& f, const X87Desc& d) {
  bool pc = d.op == X87Op::Sqrt;
  FpEnv env = f.env(pc);
  if (f.empty(0)) {
    env.raise(kStackUnderflow);
    f.put(0, kIndefinite);
    f.finish(env.status, d.op == X87Op::Sin || d.op == X87Op::Cos ? kC1 | kC2 : kC1);
    return;
  }
  Float80 a = f.get(0), r = a;
  uint16_t defined = kC1;
  switch (d.op) {
    case X87Op::Chs: r = negate(a); break;
    case X87Op::Abs: r = absolute(a); break;
    case X87Op::Sqrt: r = x87::sqrt(env, a); break;
    case X87Op::RoundInt: r = round_to_int(env, a); break;
    case X87Op::Exp2m1: r = exp2m1(env, a); break;
    case X87Op::Sin:
    case X87Op::Cos: {
      defined |= kC2;
      bool in_range = d.op == X87Op::Sin ? x87::sin(env, a, r) : x87::cos(env, a, r);
      if (!in_range) {
        f.finish(kC2, kC2);  // operand left alone, C1 unchanged
        return;
      }
      break;
    }
    default: break;
  }
  f.put(0, r);
  f.finish(env.status, defined);
}

// fsincos, fptan, fxtract: replace ST0, then push a second result.
void do_unary_push(Fpu& f, const X87Desc& d) {
  FpEnv env = f.env(false);
  Float80 first = kIndefinite, second = kIndefinite;
  uint16_t defined = kC1 | (d.op == X87Op::Extract ? 0 : kC2);
  const bool underflow = f.empty(0);
  if (underflow) {
    env.raise(kStackUnderflow);
  } else if (!f.empty(7)) {
    env.raise(kStackOverflow);
  } else {
    Float80 a = f.get(0);
    if (d.op == X87Op::Extract) {
      Extracted e = extract(env, a);
      first = e.exponent;
      second = e.significand;
    } else {
      bool in_range = d.op == X87Op::SinCos ? x87::sincos(env, a, first, second) : x87::tan(env, a, first);
      if (!in_range) {
        f.finish(kC2, kC2);
        return;
      }
      // fptan pushes 1.0, or the NaN result again.
      if (d.op == X87Op::Tan) second = is_nan(first) ? first : make80(false, kBias, kIntBit);
    }
  }
  f.put(0, first);
  if (underflow) {
    // the underflow is what is reported (C1 = 0), even on a full stack
    f.set_top(f.top() - 1);
    f.put(0, second);
  } else {
    f.push(second, env);
  }
  f.finish(env.status, defined);
}

bool has_quotient(Float80 a, Float80 b) {
  Class ca = classify(a), cb = classify(b);
  auto bad = [](Class c) { return c == Class::QNaN || c == Class::SNaN || c == Class::Unsupported; };
  return !bad(ca) && !bad(cb) && ca != Class::Infinity && cb != Class::Zero;
}

// ST0 op ST1 -> ST0 (fscale, fprem, fprem1) and f(ST1, ST0) -> ST1 with
// a pop (fpatan, fyl2x, fyl2xp1).
void do_two_operand(Fpu& f, const X87Desc& d) {
  FpEnv env = f.env(false);
  bool to_st1 = d.op == X87Op::Atan || d.op == X87Op::Yl2x || d.op == X87Op::Yl2xp1;
  uint16_t defined = kC1;
  Float80 r = kIndefinite;
  if (f.empty(0) || f.empty(1)) {
    env.raise(kStackUnderflow);
    // fprem/fprem1 report the (indefinite) result as complete: C2 = 0
    if (d.op == X87Op::Prem || d.op == X87Op::Prem1) defined = kC1 | kC2;
  } else {
    Float80 a = f.get(0), b = f.get(1);
    switch (d.op) {
      case X87Op::Scale: r = scale(env, a, b); break;
      case X87Op::Prem:
      case X87Op::Prem1:
        r = remainder(env, a, b, d.op == X87Op::Prem1);
        // C2 and C1 always; C0/C3 (quotient bits) only when there is a
        // quotient: a NaN or invalid result leaves them alone.
        defined = has_quotient(a, b) ? kFswConditions : kC1 | kC2;
        break;
      case X87Op::Atan: r = atan2(env, b, a); break;
      case X87Op::Yl2x: r = ylog2x(env, b, a); break;
      default: r = ylog2xp1(env, b, a); break;
    }
  }
  f.put(to_st1 ? 1 : 0, r);
  if (to_st1) f.pop();
  f.finish(env.status, defined);
}

void do_stack(Fpu& f, const X87Desc& d, uint64_t cond) {
  FpEnv env = f.env(false);
  switch (d.op) {
    case X87Op::Exchange: {
      Float80 a = f.read(0, env), b = f.read(d.reg, env);
      f.put(0, b);
      f.put(d.reg, a);
      break;
    }
    case X87Op::IncTop: f.set_top(f.top() + 1); break;
    case X87Op::DecTop: f.set_top(f.top() - 1); break;
    case X87Op::Free:
      f.set_phys_tag(f.phys(d.reg), true);
      pop_as_asked(f, d);
      break;
    default: {  // CondMove
      if (f.empty(0) || f.empty(d.reg)) {
        // the CPU answers an empty operand with the indefinite whether or
        // not the condition holds
        env.raise(kStackUnderflow);
        f.put(0, kIndefinite);
      } else if (cond) {
        f.put(0, f.get(d.reg));
      }
      f.finish(env.status, 0);
      return;
    }
  }
  f.finish(env.status, kC1);
}

}  // namespace

uint64_t helper_x87(GuestState* s, uint64_t a, uint64_t packed) {
  X87Desc d = X87Desc::unpack(packed);
  Fpu f(s);
  // fnstenv and fnsave do not wait; everything else first delivers an
  // exception an earlier instruction left pending (unmasked).
  if (d.op != X87Op::StoreEnv && d.op != X87Op::Save) {
    if (s->fsw & 0x80) x87_raise_pending(s);
    if (d.op != X87Op::Wait && d.op != X87Op::LoadEnv && d.op != X87Op::Restore) s->x87_fip = static_cast<uint32_t>(s->rip);
  }
  switch (d.op) {
    case X87Op::Load:
    case X87Op::LoadConst: do_load(f, d, a); break;
    case X87Op::Store:
    case X87Op::StoreTrunc: do_store(f, d, a); break;
    case X87Op::Add: case X87Op::Mul: case X87Op::Sub: case X87Op::SubR: case X87Op::Div: case X87Op::DivR:
      do_arith(f, d, a);
      break;
    case X87Op::Compare:
    case X87Op::Test: do_compare(f, d, a); break;
    case X87Op::Examine: do_examine(f); break;
    case X87Op::Chs: case X87Op::Abs: case X87Op::Sqrt: case X87Op::RoundInt: case X87Op::Exp2m1:
    case X87Op::Sin: case X87Op::Cos:
      do_unary(f, d);
      break;
    case X87Op::SinCos:
    case X87Op::Tan:
    case X87Op::Extract: do_unary_push(f, d); break;
    case X87Op::Scale: case X87Op::Prem: case X87Op::Prem1: case X87Op::Atan: case X87Op::Yl2x:
    case X87Op::Yl2xp1:
      do_two_operand(f, d);
      break;
    case X87Op::Exchange: case X87Op::IncTop: case X87Op::DecTop: case X87Op::Free: case X87Op::CondMove:
      do_stack(f, d, a);
      break;
    case X87Op::Wait: break;
    default: x87_environment(f, d.op, a, (d.flags & kX87Env16) != 0); break;
  }
  return 0;
}

uint64_t helper_x87_comi(GuestState* s, uint64_t, uint64_t packed) {
  X87Desc d = X87Desc::unpack(packed);
  Fpu f(s);
  if (s->fsw & 0x80) x87_raise_pending(s);
  s->x87_fip = static_cast<uint32_t>(s->rip);
  FpEnv env = f.env(false);
  Order order = Order::Unordered;
  if (f.empty(0) || f.empty(d.reg)) env.raise(kStackUnderflow);
  else order = compare(env, f.get(0), f.get(d.reg), d.flags & kX87Quiet);
  pop_as_asked(f, d);
  f.finish(env.status, 0);  // FSW's condition bits stay (C1 too, seen on Intel)
  switch (order) {
    case Order::Less: return kFlagMask(kCF);
    case Order::Equal: return kFlagMask(kZF);
    case Order::Greater: return 0;
    default: return kFlagMask(kZF) | kFlagMask(kPF) | kFlagMask(kCF);
  }
}

}  // namespace phybin::x86
