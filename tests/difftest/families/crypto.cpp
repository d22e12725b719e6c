// Crypto families on XMM registers: AES-NI, PCLMULQDQ and the SHA
// extensions.  None of them touches the flags or MXCSR; the state they
// work on is the random XMM registers and memory of the case.
#include <string>

#include "families.h"
#include "table.h"

namespace difftest {
namespace {

const std::vector<const char*> kPacked = {"{x}, {x}", "{x}, {m128}"};
const std::vector<const char*> kPackedImm = {"{x}, {x}, {u8}", "{x}, {m128}, {u8}"};

// A chain of rounds on one register, as a cipher runs them: each round's
// output is the next one's state, with a different round key each time.
void emit_round_chain(Gen& g, const std::vector<const char*>& rounds) {
  const std::string state = g.xmm();
  const int length = static_cast<int>(g.range(2, 6));
  for (int i = 0; i < length; ++i) {
    const std::string key = g.chance(70) ? g.xmm() : g.mem(128, 16);
    g.emit(std::string(g.pick(rounds)) + " " + state + ", " + key, 0, 0, 0);
  }
}

}  // namespace

void step_aes(Gen& g) {
  static const std::vector<const char*> encrypt = {"aesenc", "aesenc", "aesenc", "aesenclast"};
  static const std::vector<const char*> decrypt = {"aesdec", "aesdec", "aesdec", "aesdeclast"};
  static const std::vector<OpGroup> groups = {
      {{"aesenc", "aesenclast", "aesdec", "aesdeclast", "aesimc"}, kPacked},
      {{"aeskeygenassist"}, kPackedImm},
  };
  if (g.chance(30)) emit_round_chain(g, g.chance(50) ? encrypt : decrypt);
  else emit_from(g, groups);
}

// Only imm8 bits 0 and 4 select the halves; the four canonical values
// and random others (the other bits must be ignored).
void step_pclmul(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"pclmulqdq"},
       {"{x}, {x}, 0x00", "{x}, {x}, 0x01", "{x}, {x}, 0x10", "{x}, {x}, 0x11", "{x}, {m128}, 0x00",
        "{x}, {m128}, 0x01", "{x}, {m128}, 0x10", "{x}, {m128}, 0x11", "{x}, {x}, {u8}", "{x}, {m128}, {u8}"}},
  };
  emit_from(g, groups);
}

// sha1rnds4 uses imm8 bits 1:0; sha256rnds2 reads XMM0 implicitly (the
// round constants plus message words).
void step_sha(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"sha1rnds4"},
       {"{x}, {x}, 0", "{x}, {x}, 1", "{x}, {x}, 2", "{x}, {x}, 3", "{x}, {m128}, 0", "{x}, {m128}, 1",
        "{x}, {m128}, 2", "{x}, {m128}, 3", "{x}, {x}, {u8}", "{x}, {m128}, {u8}"}},
      {{"sha1nexte", "sha1msg1", "sha1msg2", "sha256msg1", "sha256msg2"}, kPacked},
      {{"sha256rnds2"}, {"{x}, {x}, xmm0", "{x}, {m128}, xmm0"}},
  };
  emit_from(g, groups);
}

}  // namespace difftest
