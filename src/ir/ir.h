// phybin's intermediate representation: one guest basic block as a list of
// typed SSA values in program order, followed by one exit.  Values are
// referred to by their index in the block.  Guest registers and flags are
// read and written explicitly, so passes can see what is dead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace phybin::ir {

enum class Opcode : uint8_t {
#define X(name, nargs, props, result, arg0, arg1, arg2) name,
#include "ir/opcodes.inc"
#undef X
  Count
};

// What a VUnary/VBinary/VTernary computes (Inst::aux); see ir/vecops.inc.
enum class VecOp : uint8_t {
#define V(name, nargs, family, result, arg0, arg1, arg2) name,
#include "ir/vecops.inc"
#undef V
  Count
};
const char* vecop_name(VecOp op);

// The backend lowering of a VecOp (vecops.inc's Family column).  The
// backend's switch over the family has no default, nor has each family's
// switch over its operations (src/arm64/compile_vector_ops.h).
enum class VecFamily : uint8_t {
  Move,     // between vectors and general registers (compile_vector.cpp)
  Int,      // SSE2 integer: arithmetic, shifts, packs, shuffles (compile_vector_int.cpp)
  IntExt,   // SSSE3 and SSE4.1 integer (compile_vector_ext.cpp)
  Crypto,   // AES rounds and carry-less multiply (compile_vector_ext.cpp)
  FpArith,  // FP arithmetic with x86's NaN rules checked (compile_vector_fp.cpp, _nan.cpp)
  Fp,       // the other FP operations and the conversions (compile_vector_fp.cpp)
  Mxcsr,    // MXCSR modes without an FPCR bit (compile_vector_mxcsr.cpp)
};

inline constexpr VecFamily kVecFamilies[] = {
#define V(name, nargs, family, result, arg0, arg1, arg2) VecFamily::family,
#include "ir/vecops.inc"
#undef V
};
constexpr VecFamily vecop_family(VecOp op) { return kVecFamilies[static_cast<int>(op)]; }

enum OpProps : uint8_t { kPure = 1, kSideEffect = 2, kCall = 4 };

const char* opcode_name(Opcode op);
int opcode_arg_count(Opcode op);
bool opcode_has_side_effect(Opcode op);
bool opcode_is_call(Opcode op);

// What an AtomicRmw computes from the old memory value and its operand.
enum class AtomicOp : uint8_t { Add, And, Or, Xor, Swap, Neg };
const char* atomic_op_name(AtomicOp op);

enum class Type : uint8_t { Void, I1, I8, I16, I32, I64, V128 };
const char* type_name(Type t);
int type_bits(Type t);
Type int_type_of_bits(int bits);

// Comparison of two integers of the operands' width.
enum class Cond : uint8_t { EQ, NE, ULT, ULE, UGT, UGE, SLT, SLE, SGT, SGE };
const char* cond_name(Cond c);
Cond invert(Cond c);

using Value = uint32_t;
constexpr Value kNoValue = 0xFFFFFFFF;

struct Inst {
  Opcode op;
  Type type = Type::Void;
  uint8_t aux = 0;
  uint8_t lane = 0;  // vector ops: log2 of the element size in bytes
  Value args[3] = {kNoValue, kNoValue, kNoValue};
  uint64_t imm = 0;
  bool dead = false;  // removed by a pass; kept in place so indices stay valid
  // The first IR instruction of a guest instruction, which starts at
  // Block::guest_start + guest_offset; the guest code from there on may
  // read the RFLAGS bits in flags_live_in.  The backend maps host code back
  // to guest instructions with these (for faults), and a fault must find
  // those flags in place.  Kept in the instruction, not in a table of its
  // own: no allocation, no extra IR for passes.
  bool insn_start = false;
  // On an insn_start: 0, or this instruction is the replay-th of an XMM
  // commit region (Builder::defer_xmm_writes), which holds its XMM writes
  // back to the region's end.  A fault inside the region finds the guest
  // registers as they were at the region's first instruction; the runtime
  // then runs the region again from there, one instruction at a time, for
  // `replay` instructions, so that the fault comes again where it belongs.
  uint8_t replay = 0;
  uint16_t guest_offset = 0;
  uint16_t flags_live_in = 0;
};

// Whether `in` is a vector operation of family f.
inline bool in_family(const Inst& in, VecFamily f) {
  const bool vector = in.op == Opcode::VUnary || in.op == Opcode::VBinary || in.op == Opcode::VTernary;
  const auto op = static_cast<VecOp>(in.aux);
  return vector && op < VecOp::Count && vecop_family(op) == f;
}

enum class ExitKind : uint8_t {
  Jump,          // to target (a constant guest address): linkable
  Branch,        // cond ? target : fallthrough, both constant: linkable
  Indirect,      // to the guest address in `address`
  Return,        // like Indirect, from a RET
};

struct Exit {
  ExitKind kind = ExitKind::Jump;
  Value cond = kNoValue;
  Value address = kNoValue;
  uint64_t target = 0;
  uint64_t fallthrough = 0;
  // RFLAGS bits that may be read after the exit (set by the frontend from
  // what the successor blocks read; all arithmetic bits when unknown).
  uint64_t live_flags = ~uint64_t{0};
  // A call or return: the System V ABI gives flags no meaning across it,
  // so no arithmetic flag is live after it.
  bool abi_boundary = false;
  // Indirect exits: nonzero when the block's last flags are kept lazily
  // (the frontend's record, see its LazyFlags): a target that reads flags
  // applies it first.
  uint64_t lazy_flags_record = 0;
};

// Where a SideExit leaves to, and the RFLAGS bits the code there may read.
struct SideExitInfo {
  uint64_t target = 0;
  uint64_t live_flags = ~uint64_t{0};
};

struct Block {
  uint64_t guest_start = 0;
  uint64_t guest_end = 0;   // address after the last instruction
  uint32_t guest_insns = 0;
  // RFLAGS bits the block reads before writing them: entered through an
  // indirect jump, it must first apply a pending lazy record.
  uint64_t flags_live_in = 0;
  bool xmm_regions = false;  // some instructions have a replay count (Inst::replay)
  std::vector<Inst> insts;
  std::vector<SideExitInfo> side_exits;  // of the SideExit instructions, by their aux
  Exit exit;

  const Inst& at(Value v) const { return insts[v]; }
  Inst& at(Value v) { return insts[v]; }
};

std::string print_block(const Block& block);

// Checks a block against the opcode table (argument counts and types, the
// result type) and SSA order (arguments defined before use, live where
// used, the exit's values too).  Returns "" when the block is well formed,
// else what is wrong, naming the instruction.
std::string verify(const Block& block);
// verify(), throwing Error(PHYBIN_ERR_INTERNAL) with the block printed;
// the runtime calls it for every block with PHYBIN_IR_VERIFY=1, which
// every test that runs phybin sets.
void verify_or_throw(const Block& block);

}  // namespace phybin::ir
