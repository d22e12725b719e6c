// SHA extensions: sha1rnds4, sha1nexte, sha1msg1, sha1msg2, sha256rnds2,
// sha256msg1, sha256msg2, each one helper call (sha_helpers.cpp).  Rare
// outside hashing loops, and the AArch64 SHA instructions split the work
// differently (SHA1C/P/M take E separately, SHA256H/H2 produce halves).
#include "x86/operands.h"
#include "x86/sha.h"
#include "x86/sse.h"

namespace phybin::x86 {

namespace {

template <ShaOp kOp>
bool sha(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  ShaDesc d;
  d.op = kOp;
  d.dst = sse::xmm_index(c.op(0));
  if (kOp == ShaOp::Sha1Rnds4) d.imm = static_cast<uint8_t>(c.op(2).imm.value.u);
  ir::Value address = c.b.constant(ir::Type::I64, 0);
  if (sse::is_xmm(c.op(1))) {
    d.src_in_register = true;
    d.src = sse::xmm_index(c.op(1));
  } else {
    address = effective_address(c, 1);
  }
  c.b.call(ir::Type::Void, reinterpret_cast<const void*>(&helper_sha), c.b.constant(ir::Type::I64, d.pack()), address);
  return true;
}

}  // namespace

void register_sha(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_SHA1RNDS4, sha<ShaOp::Sha1Rnds4>);
  t.add(ZYDIS_MNEMONIC_SHA1NEXTE, sha<ShaOp::Sha1Nexte>);
  t.add(ZYDIS_MNEMONIC_SHA1MSG1, sha<ShaOp::Sha1Msg1>);
  t.add(ZYDIS_MNEMONIC_SHA1MSG2, sha<ShaOp::Sha1Msg2>);
  t.add(ZYDIS_MNEMONIC_SHA256RNDS2, sha<ShaOp::Sha256Rnds2>);
  t.add(ZYDIS_MNEMONIC_SHA256MSG1, sha<ShaOp::Sha256Msg1>);
  t.add(ZYDIS_MNEMONIC_SHA256MSG2, sha<ShaOp::Sha256Msg2>);
}

}  // namespace phybin::x86
