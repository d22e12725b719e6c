// Lowering of the vector (XMM) IR opcodes to NEON.
#include "arm64/compiler.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Opcode;
using ir::Value;

void BlockCompiler::lower_vector(Value v) {
  const Inst& in = b_.at(v);
  switch (in.op) {
    case Opcode::GetXmm:
      loc_[v] = Loc{Loc::Vreg, regmap::guest_xmm(in.aux).code, static_cast<int8_t>(in.aux)};
      return;
    case Opcode::SetXmm:
      a_.mov(VArr::B16, regmap::guest_xmm(in.aux), use_v(in.args[0]));
      return;
    default: throw BlockTooComplex();  // TODO(sse): remaining vector opcodes
  }
}

}  // namespace phybin::arm64
