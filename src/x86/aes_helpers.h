// The AES key-expansion step, the AES rounds and the carry-less multiply in
// C++ (for helper_vector in sse_helpers.cpp).
#pragma once

#include <cstdint>

namespace phybin::x86::sse {

// aeskeygenassist: SubWord of dwords 1 and 3 of `src`, each also rotated
// and XORed with `rcon`.
void aes_keygen_assist(uint8_t* r, const uint8_t* src, unsigned rcon);
// Which x86 AES instruction aes_round performs.
enum class AesStep : uint8_t { Enc, EncLast, Dec, DecLast, Imc };
// aesenc/aesenclast/aesdec/aesdeclast of `state` with round key `key`;
// aesimc of `key` (state unused).
void aes_round(uint8_t* r, const uint8_t* state, const uint8_t* key, AesStep step);
// pclmulqdq: qword imm bit 0 of a times qword imm bit 4 of b, carry-less.
void carryless_multiply(uint8_t* r, const uint8_t* a, const uint8_t* b, unsigned imm);

}  // namespace phybin::x86::sse
