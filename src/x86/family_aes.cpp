// AES-NI and PCLMULQDQ on XMM registers.  The rounds map onto the AArch64
// AES instructions in the backend where the host has them (optional in
// ARMv8.0), else onto a C++ helper; aeskeygenassist (key expansion only) is
// always a helper, and so is pclmulqdq on a host without the 64x64 PMULL.
#include "x86/aes_helpers.h"
#include "x86/sse.h"

namespace phybin::x86 {

using ir::VecOp;

namespace {

// One AES instruction: kOp inline on the host's AES instructions, else the
// helper's kStep.
template <VecOp kOp, sse::AesStep kStep, bool kHostAes>
bool aes_round(Ctx& c) {
  if (!kHostAes) return sse::call_vector_helper(c, sse::VectorHelperOp::AesRound, static_cast<uint64_t>(kStep));
  if (kOp == VecOp::AesImc) return sse::unary(c, kOp, 0);
  return sse::binary(c, kOp, 0);
}

template <bool kHostAes>
void register_rounds(HandlerTable& t) {
  using sse::AesStep;
  t.add(ZYDIS_MNEMONIC_AESENC, aes_round<VecOp::AesEnc, AesStep::Enc, kHostAes>);
  t.add(ZYDIS_MNEMONIC_AESENCLAST, aes_round<VecOp::AesEncLast, AesStep::EncLast, kHostAes>);
  t.add(ZYDIS_MNEMONIC_AESDEC, aes_round<VecOp::AesDec, AesStep::Dec, kHostAes>);
  t.add(ZYDIS_MNEMONIC_AESDECLAST, aes_round<VecOp::AesDecLast, AesStep::DecLast, kHostAes>);
  t.add(ZYDIS_MNEMONIC_AESIMC, aes_round<VecOp::AesImc, AesStep::Imc, kHostAes>);
}

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

void register_aes(HandlerTable& t, bool host_pmull, bool host_aes) {
  if (host_aes) register_rounds<true>(t);
  else register_rounds<false>(t);
  t.add(ZYDIS_MNEMONIC_AESKEYGENASSIST, aeskeygenassist);
  t.add(ZYDIS_MNEMONIC_PCLMULQDQ, host_pmull ? pclmulqdq<true> : pclmulqdq<false>);
}
}  // namespace phybin::x86
