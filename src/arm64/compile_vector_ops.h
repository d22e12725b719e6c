// The vector operations of each lowering family (ir::VecFamily) as an enum
// of their own, generated from ir/vecops.inc.  The backend switches first
// over the family, then each family's lowering over its enum, both without
// a default: an operation added to the table, or a family added to
// VecFamily, that the backend does not lower fails the build
// (-Werror=switch), as an IR opcode does.
#pragma once

#include <array>
#include <cstdint>

#include "ir/ir.h"

namespace phybin::arm64 {

// A row V(Name, ..., Family, ...) becomes PHYBIN_VEC_IN_<Family>(Name):
// `Name,` while that family's enum is written, nothing otherwise.  A
// family without its block below does not compile (PHYBIN_VEC_IN_<Family>
// is then an unknown name in every enum).
#define V(name, nargs, family, result, arg0, arg1, arg2) PHYBIN_VEC_IN_##family(name)
#define PHYBIN_VEC_IN_Move(name)
#define PHYBIN_VEC_IN_Int(name)
#define PHYBIN_VEC_IN_IntExt(name)
#define PHYBIN_VEC_IN_Crypto(name)
#define PHYBIN_VEC_IN_FpArith(name)
#define PHYBIN_VEC_IN_Fp(name)
#define PHYBIN_VEC_IN_Mxcsr(name)

#undef PHYBIN_VEC_IN_Move
#define PHYBIN_VEC_IN_Move(name) name,
enum class MoveOp : uint8_t {
#include "ir/vecops.inc"
};
#undef PHYBIN_VEC_IN_Move
#define PHYBIN_VEC_IN_Move(name)

#undef PHYBIN_VEC_IN_Int
#define PHYBIN_VEC_IN_Int(name) name,
enum class IntOp : uint8_t {
#include "ir/vecops.inc"
};
#undef PHYBIN_VEC_IN_Int
#define PHYBIN_VEC_IN_Int(name)

#undef PHYBIN_VEC_IN_IntExt
#define PHYBIN_VEC_IN_IntExt(name) name,
enum class IntExtOp : uint8_t {
#include "ir/vecops.inc"
};
#undef PHYBIN_VEC_IN_IntExt
#define PHYBIN_VEC_IN_IntExt(name)

#undef PHYBIN_VEC_IN_Crypto
#define PHYBIN_VEC_IN_Crypto(name) name,
enum class CryptoOp : uint8_t {
#include "ir/vecops.inc"
};
#undef PHYBIN_VEC_IN_Crypto
#define PHYBIN_VEC_IN_Crypto(name)

#undef PHYBIN_VEC_IN_FpArith
#define PHYBIN_VEC_IN_FpArith(name) name,
enum class FpArithOp : uint8_t {
#include "ir/vecops.inc"
};
#undef PHYBIN_VEC_IN_FpArith
#define PHYBIN_VEC_IN_FpArith(name)

#undef PHYBIN_VEC_IN_Fp
#define PHYBIN_VEC_IN_Fp(name) name,
enum class FpOp : uint8_t {
#include "ir/vecops.inc"
};
#undef PHYBIN_VEC_IN_Fp
#define PHYBIN_VEC_IN_Fp(name)

#undef PHYBIN_VEC_IN_Mxcsr
#define PHYBIN_VEC_IN_Mxcsr(name) name,
enum class MxcsrOp : uint8_t {
#include "ir/vecops.inc"
};
#undef PHYBIN_VEC_IN_Mxcsr
#define PHYBIN_VEC_IN_Mxcsr(name)

#undef PHYBIN_VEC_IN_Move
#undef PHYBIN_VEC_IN_Int
#undef PHYBIN_VEC_IN_IntExt
#undef PHYBIN_VEC_IN_Crypto
#undef PHYBIN_VEC_IN_FpArith
#undef PHYBIN_VEC_IN_Fp
#undef PHYBIN_VEC_IN_Mxcsr
#undef V

namespace vecops_detail {

// Each VecOp's position among the operations of its family, in table order:
// its value in the family's enum.
constexpr auto kIndexInFamily = [] {
  constexpr auto n = static_cast<size_t>(ir::VecOp::Count);
  std::array<uint8_t, n> index{};
  std::array<uint8_t, 256> next{};  // per family
  for (size_t op = 0; op < n; ++op) index[op] = next[static_cast<size_t>(ir::kVecFamilies[op])]++;
  return index;
}();

}  // namespace vecops_detail

// `op` as an operation of its family, whose enum is F (the caller has
// switched over ir::vecop_family(op)).
template <class F>
constexpr F family_op(ir::VecOp op) {
  return static_cast<F>(vecops_detail::kIndexInFamily[static_cast<size_t>(op)]);
}

// Every row maps to the enumerator of its own name in its family's enum.
#define V(name, nargs, family, result, arg0, arg1, arg2) \
  static_assert(family_op<family##Op>(ir::VecOp::name) == family##Op::name);
#include "ir/vecops.inc"
#undef V

}  // namespace phybin::arm64
