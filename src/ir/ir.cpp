#include "ir/ir.h"

#include <cinttypes>
#include <cstdio>

#include "ir/builder.h"

namespace phybin::ir {
namespace {

struct OpInfo {
  const char* name;
  int nargs;
  uint8_t props;
};

constexpr OpInfo kOps[] = {
#define X(name, nargs, props) {#name, nargs, props},
#include "ir/opcodes.inc"
#undef X
};

const OpInfo& info(Opcode op) { return kOps[static_cast<int>(op)]; }

}  // namespace

const char* opcode_name(Opcode op) { return info(op).name; }
int opcode_arg_count(Opcode op) { return info(op).nargs; }
bool opcode_has_side_effect(Opcode op) { return (info(op).props & (kSideEffect | kCall)) != 0; }
bool opcode_is_call(Opcode op) { return (info(op).props & kCall) != 0; }

const char* vecop_name(VecOp op) {
  static const char* const kNames[] = {
#define V(name, nargs) #name,
#include "ir/vecops.inc"
#undef V
  };
  return op < VecOp::Count ? kNames[static_cast<int>(op)] : "?";
}

const char* type_name(Type t) {
  static const char* const kNames[] = {"void", "i1", "i8", "i16", "i32", "i64", "v128"};
  return kNames[static_cast<int>(t)];
}

int type_bits(Type t) {
  static const int kBits[] = {0, 1, 8, 16, 32, 64, 128};
  return kBits[static_cast<int>(t)];
}

Type int_type_of_bits(int bits) {
  switch (bits) {
    case 8: return Type::I8;
    case 16: return Type::I16;
    case 32: return Type::I32;
    default: return Type::I64;
  }
}

const char* cond_name(Cond c) {
  static const char* const kNames[] = {"eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge"};
  return kNames[static_cast<int>(c)];
}

Cond invert(Cond c) {
  switch (c) {
    case Cond::EQ: return Cond::NE;
    case Cond::NE: return Cond::EQ;
    case Cond::ULT: return Cond::UGE;
    case Cond::ULE: return Cond::UGT;
    case Cond::UGT: return Cond::ULE;
    case Cond::UGE: return Cond::ULT;
    case Cond::SLT: return Cond::SGE;
    case Cond::SLE: return Cond::SGT;
    case Cond::SGT: return Cond::SLE;
    case Cond::SGE: return Cond::SLT;
  }
  return c;
}

Value Builder::emit(Opcode op, Type type, Value a, Value b, Value c, uint64_t imm, uint8_t aux) {
  Inst inst;
  inst.op = op;
  inst.type = type;
  inst.aux = aux;
  inst.args[0] = a;
  inst.args[1] = b;
  inst.args[2] = c;
  inst.imm = imm;
  block_.insts.push_back(inst);
  return static_cast<Value>(block_.insts.size() - 1);
}

Value Builder::zext(Type to, Value v) {
  Type from = type_of(v);
  if (from == to) return v;
  if (is_const(v)) {
    uint64_t x = const_value(v);
    if (type_bits(from) < 64) x &= (uint64_t{1} << type_bits(from)) - 1;
    return constant(to, x);
  }
  return emit(Opcode::ZExt, to, v);
}

Value Builder::sext(Type to, Value v) {
  if (type_of(v) == to) return v;
  return emit(Opcode::SExt, to, v);
}

Value Builder::trunc(Type to, Value v) {
  if (type_of(v) == to) return v;
  if (is_const(v)) return constant(to, const_value(v));
  return emit(Opcode::Trunc, to, v);
}

std::string print_block(const Block& block) {
  std::string out;
  char line[160];
  std::snprintf(line, sizeof line, "block %#" PRIx64 "..%#" PRIx64 " (%u insns)\n", block.guest_start,
                block.guest_end, block.guest_insns);
  out += line;
  for (size_t i = 0; i < block.insts.size(); ++i) {
    const Inst& in = block.insts[i];
    if (in.dead) continue;
    int n = std::snprintf(line, sizeof line, "  %%%zu:%s = %s", i, type_name(in.type), opcode_name(in.op));
    for (int a = 0; a < 3; ++a)
      if (in.args[a] != kNoValue) n += std::snprintf(line + n, sizeof line - n, " %%%u", in.args[a]);
    if (in.op == Opcode::VUnary || in.op == Opcode::VBinary || in.op == Opcode::VTernary)
      n += std::snprintf(line + n, sizeof line - n, " %s.%u", vecop_name(static_cast<VecOp>(in.aux)), 8u << in.lane);
    else if (in.aux)
      n += std::snprintf(line + n, sizeof line - n, " aux=%u", in.aux);
    if (in.imm) std::snprintf(line + n, sizeof line - n, " imm=%#" PRIx64, in.imm);
    out += line;
    out += '\n';
  }
  const Exit& e = block.exit;
  switch (e.kind) {
    case ExitKind::Jump: std::snprintf(line, sizeof line, "  exit jump %#" PRIx64, e.target); break;
    case ExitKind::Branch:
      std::snprintf(line, sizeof line, "  exit branch %%%u ? %#" PRIx64 " : %#" PRIx64, e.cond, e.target,
                    e.fallthrough);
      break;
    case ExitKind::Indirect: std::snprintf(line, sizeof line, "  exit indirect %%%u", e.address); break;
    case ExitKind::Return: std::snprintf(line, sizeof line, "  exit return %%%u", e.address); break;
  }
  out += line;
  std::snprintf(line, sizeof line, " (live flags %#" PRIx64 ")\n", e.live_flags & 0xfff);
  out += line;
  return out;
}

}  // namespace phybin::ir
