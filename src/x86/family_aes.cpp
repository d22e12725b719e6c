// AES-NI and PCLMULQDQ on XMM registers.  The rounds map onto the AArch64
// AES instructions in the backend; aeskeygenassist (key expansion only) is
// a C++ helper, and so is pclmulqdq on a host without the 64x64 PMULL.
#include "x86/sse.h"

namespace phybin::x86 {

using ir::VecOp;

namespace {

using sse::bin;

bool aesimc(Ctx& c) { return sse::unary(c, VecOp::AesImc, 0); }

bool aeskeygenassist(Ctx& c) {
  return sse::call_vector_helper(c, sse::VectorHelperOp::AesKeygenAssist, c.op(2).imm.value.u & 0xff);
}

// On PMULL, or a helper where the host lacks it.
template <bool kHostPmull>
bool pclmulqdq(Ctx& c) {
  const uint64_t imm = c.op(2).imm.value.u & 0x11;
  if (!kHostPmull) return sse::call_vector_helper(c, sse::VectorHelperOp::Clmul, imm);
  return sse::binary(c, VecOp::ClMul, 3, imm);
}

}  // namespace

void register_aes(HandlerTable& t, bool host_pmull) {
  t.add(ZYDIS_MNEMONIC_AESENC, sse::bin<VecOp::AesEnc, 0>);
  t.add(ZYDIS_MNEMONIC_AESENCLAST, sse::bin<VecOp::AesEncLast, 0>);
  t.add(ZYDIS_MNEMONIC_AESDEC, sse::bin<VecOp::AesDec, 0>);
  t.add(ZYDIS_MNEMONIC_AESDECLAST, sse::bin<VecOp::AesDecLast, 0>);
  t.add(ZYDIS_MNEMONIC_AESIMC, aesimc);
  t.add(ZYDIS_MNEMONIC_AESKEYGENASSIST, aeskeygenassist);
  t.add(ZYDIS_MNEMONIC_PCLMULQDQ, host_pmull ? pclmulqdq<true> : pclmulqdq<false>);
}
}  // namespace phybin::x86
