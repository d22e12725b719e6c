#include "ir/ir.h"

#include <cinttypes>
#include <cstdio>
#include <iterator>

#include "common/error.h"
#include "ir/builder.h"

namespace phybin::ir {
namespace {

// What an opcode's result and arguments may be (opcodes.inc).
enum class Rule : uint8_t { None, Opt, Void, I1, I32, I64, V128, Int, I32or64, Scalar, Data, Any, Same, Arg0 };

struct OpInfo {
  const char* name;
  int nargs;
  uint8_t props;
  Rule result;
  Rule args[3];
};

constexpr OpInfo kOps[] = {
#define X(name, nargs, props, result, arg0, arg1, arg2) \
  {#name, nargs, props, Rule::result, {Rule::arg0, Rule::arg1, Rule::arg2}},
#include "ir/opcodes.inc"
#undef X
};
static_assert(std::size(kOps) == static_cast<size_t>(Opcode::Count));

// The same for the VecOp in the aux of a vector opcode (vecops.inc).
constexpr OpInfo kVecOps[] = {
#define V(name, nargs, family, result, arg0, arg1, arg2) \
  {#name, nargs, 0, Rule::result, {Rule::arg0, Rule::arg1, Rule::arg2}},
#include "ir/vecops.inc"
#undef V
};
static_assert(std::size(kVecOps) == static_cast<size_t>(VecOp::Count));

bool is_vector_op(Opcode op) { return op == Opcode::VUnary || op == Opcode::VBinary || op == Opcode::VTernary; }

const OpInfo& info(Opcode op) { return kOps[static_cast<int>(op)]; }

bool is_int(Type t) { return t == Type::I8 || t == Type::I16 || t == Type::I32 || t == Type::I64; }

// Whether type t satisfies rule r; `result` and `arg0` for Same and Arg0.
bool satisfies(Rule r, Type t, Type result, Type arg0) {
  switch (r) {
    case Rule::None: return false;  // an argument where none may be
    case Rule::Opt: case Rule::Any: return true;
    case Rule::Void: return t == Type::Void;
    case Rule::I1: return t == Type::I1;
    case Rule::I32: return t == Type::I32;
    case Rule::I64: return t == Type::I64;
    case Rule::V128: return t == Type::V128;
    case Rule::Int: return is_int(t);
    case Rule::I32or64: return t == Type::I32 || t == Type::I64;
    case Rule::Scalar: return t == Type::I1 || is_int(t);
    case Rule::Data: return t != Type::Void;
    case Rule::Same: return t == result;
    case Rule::Arg0: return t == arg0;
  }
  return false;
}

std::string problem(const Block& block, Value v, const std::string& what) {
  char head[48];
  std::snprintf(head, sizeof head, "%%%u %s: ", v, opcode_name(block.at(v).op));
  return head + what;
}

// Whether `arg`, used at index `user` (kNoValue: by the exit), names a live
// value defined before it.
bool defined_before(const Block& block, Value arg, size_t user) {
  return arg < block.insts.size() && arg < user && !block.at(arg).dead;
}

// What is wrong with instruction v by table row `op`, or nullptr; `arg`
// says which argument.
const char* check_row(const Block& block, Value v, const OpInfo& op, int& arg) {
  const Inst& in = block.at(v);
  arg = -1;
  if (!satisfies(op.result, in.type, in.type, Type::Void)) return "result type";
  const Type arg0 = in.args[0] != kNoValue && in.args[0] < block.insts.size() ? block.at(in.args[0]).type : Type::Void;
  for (int i = 0; i < 3; ++i) {
    const Value a = in.args[i];
    arg = i;
    if (a == kNoValue) {
      if (i < op.nargs && op.args[i] != Rule::Opt) return "missing";
      continue;
    }
    if (i >= op.nargs) return "beyond the argument count";
    if (!defined_before(block, a, v)) return "is not a live earlier value";
    if (!satisfies(op.args[i], block.at(a).type, in.type, arg0)) return "has the wrong type";
  }
  return nullptr;
}

// What is wrong with instruction v, or nullptr: by its opcode's row, then
// a vector opcode by its VecOp's (`by_vecop` says which rejected it).
// No allocation: the runtime checks every block it translates.
const char* check_inst(const Block& block, Value v, int& arg, bool& by_vecop) {
  const Inst& in = block.at(v);
  arg = -1;
  by_vecop = false;
  if (static_cast<size_t>(in.op) >= std::size(kOps)) return "unknown opcode";
  if (const char* what = check_row(block, v, info(in.op), arg)) return what;
  if (in.op == Opcode::AtomicRmw && in.aux > static_cast<uint8_t>(AtomicOp::Neg)) return "has an unknown AtomicOp";
  if (!is_vector_op(in.op)) return nullptr;
  by_vecop = true;
  arg = -1;
  if (in.aux >= std::size(kVecOps)) return "unknown vector op";
  return check_row(block, v, kVecOps[in.aux], arg);
}

std::string verify_inst(const Block& block, Value v) {
  int arg;
  bool by_vecop;
  const char* what = check_inst(block, v, arg, by_vecop);
  if (!what) return "";
  const Inst& in = block.at(v);
  const std::string row = by_vecop && in.aux < std::size(kVecOps) ? std::string(kVecOps[in.aux].name) + ": " : "";
  if (arg < 0) return problem(block, v, row + what + (what[0] == 'r' ? std::string(" ") + type_name(in.type) : ""));
  const std::string which = row + "argument " + std::to_string(arg) + " ";
  const bool typed = in.args[arg] != kNoValue && in.args[arg] < block.insts.size();
  return problem(block, v, which + what + (typed ? std::string(" (") + type_name(block.at(in.args[arg]).type) + ")" : ""));
}

// A lazy record stands for flags RFLAGS does not hold: nothing after it
// may read RFLAGS or hand it to C++, and only an exit that tells the
// target about the record may follow it.
const char* check_lazy_flags(const Block& block) {
  bool pending = false;
  for (const Inst& in : block.insts) {
    if (in.dead) continue;
    if (in.op == Opcode::LazyFlags) pending = true;
    else if (pending && (in.op == Opcode::GetFlag || in.op == Opcode::GetFlags || opcode_is_call(in.op) ||
                         in.op == Opcode::Trap || in.op == Opcode::FpTrapCheck))
      return "RFLAGS read after a LazyFlags";
  }
  const bool lazy_exit = block.exit.lazy_flags_record != 0;
  if (pending != lazy_exit) return pending ? "a LazyFlags before an exit that drops it" : "a lazy exit without LazyFlags";
  if (lazy_exit && block.exit.kind != ExitKind::Indirect && block.exit.kind != ExitKind::Return)
    return "a lazy record at a direct exit";
  return nullptr;
}

}  // namespace

std::string verify(const Block& block) {
  for (Value v = 0; v < block.insts.size(); ++v) {
    int arg;
    bool by_vecop;
    if (!block.at(v).dead && check_inst(block, v, arg, by_vecop)) return verify_inst(block, v);
    if (!block.at(v).dead && block.at(v).op == Opcode::SideExit && block.at(v).aux >= block.side_exits.size())
      return problem(block, v, "a side exit of no Block::side_exits entry");
  }
  const Exit& e = block.exit;
  const size_t end = block.insts.size();
  if (e.kind == ExitKind::Branch && e.cond != kNoValue &&
      (!defined_before(block, e.cond, end) || block.at(e.cond).type != Type::I1))
    return "exit: the branch condition is not a live I1 value";
  if ((e.kind == ExitKind::Indirect || e.kind == ExitKind::Return) &&
      (!defined_before(block, e.address, end) || block.at(e.address).type != Type::I64))
    return "exit: the target address is not a live I64 value";
  if (const char* lazy = check_lazy_flags(block)) return std::string("lazy flags: ") + lazy;
  return "";
}

void verify_or_throw(const Block& block) {
  const std::string p = verify(block);
  if (!p.empty()) throw Error(ErrorCode::PHYBIN_ERR_INTERNAL, "malformed IR: " + p + "\n" + print_block(block));
}

const char* opcode_name(Opcode op) { return info(op).name; }
int opcode_arg_count(Opcode op) { return info(op).nargs; }
bool opcode_has_side_effect(Opcode op) { return (info(op).props & (kSideEffect | kCall)) != 0; }
bool opcode_is_call(Opcode op) { return (info(op).props & kCall) != 0; }

const char* vecop_name(VecOp op) { return op < VecOp::Count ? kVecOps[static_cast<int>(op)].name : "?"; }

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

const char* atomic_op_name(AtomicOp op) {
  static const char* const kNames[] = {"add", "and", "or", "xor", "swap", "neg"};
  const auto i = static_cast<size_t>(op);
  return i < std::size(kNames) ? kNames[i] : "unknown";
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

Value Builder::get_xmm(uint8_t xmm) {
  if (held_xmm_mask_ & (1u << xmm)) return held_xmm_[xmm];
  return emit(Opcode::GetXmm, Type::V128, kNoValue, kNoValue, kNoValue, 0, xmm);
}

void Builder::set_xmm(uint8_t xmm, Value v) {
  if (!deferring_xmm_) {
    emit(Opcode::SetXmm, Type::Void, v, kNoValue, kNoValue, 0, xmm);
    return;
  }
  held_xmm_[xmm] = v;
  held_xmm_mask_ = static_cast<uint16_t>(held_xmm_mask_ | (1u << xmm));
}

void Builder::commit_xmm_writes() {
  deferring_xmm_ = false;
  for (uint8_t x = 0; x < 16; ++x)
    if (held_xmm_mask_ & (1u << x)) emit(Opcode::SetXmm, Type::Void, held_xmm_[x], kNoValue, kNoValue, 0, x);
  held_xmm_mask_ = 0;
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
    else if (in.op == Opcode::AtomicRmw)
      n += std::snprintf(line + n, sizeof line - n, " %s", atomic_op_name(static_cast<AtomicOp>(in.aux)));
    else if (in.op == Opcode::SideExit && in.aux < block.side_exits.size())
      n += std::snprintf(line + n, sizeof line - n, " to %#" PRIx64 " (live flags %#" PRIx64 ")",
                         block.side_exits[in.aux].target, block.side_exits[in.aux].live_flags & 0xfff);
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
  const int n = std::snprintf(line, sizeof line, " (live flags %#" PRIx64, e.live_flags & 0xfff);
  if (e.lazy_flags_record)
    std::snprintf(line + n, sizeof line - n, ", lazy record %#" PRIx64, e.lazy_flags_record);
  out += line;
  std::snprintf(line, sizeof line, ")\n");
  out += line;
  return out;
}

}  // namespace phybin::ir
