// Shared by the SSE/SSE2 family files: XMM operands as IR vector values,
// the per-family registration functions, and the C++ helpers for the rare
// SSE instructions (MXCSR, FXSAVE, MASKMOVDQU).
#pragma once

#include "x86/context.h"

namespace phybin::x86::sse {

bool is_xmm(const ZydisDecodedOperand& op);
uint8_t xmm_index(const ZydisDecodedOperand& op);
// True when every register operand among the first `count` is an XMM or a
// general register (the MMX forms of the same mnemonics are not handled).
bool no_mmx(const Ctx& c);

// Operand `index` as a vector: an XMM register, or a load of the operand's
// size (4, 8 or 16 bytes, zero-extended).  `aligned` adds x86's #GP check
// of the aligned moves.
ir::Value read_vec(Ctx& c, int index, bool aligned = false);
// Writes an XMM register, or stores the operand's size of low bytes.
void write_vec(Ctx& c, int index, ir::Value v, bool aligned = false);
void check_align(Ctx& c, ir::Value addr);

// dst = op(dst, src): the shape of most two-operand SSE instructions.
bool binary(Ctx& c, ir::VecOp op, unsigned lane, uint64_t imm = 0);

// A handler for a plain two-operand vector operation on lanes kLane.
template <ir::VecOp kOp, unsigned kLane>
bool bin(Ctx& c) {
  return binary(c, kOp, kLane);
}
// dst = op(src).
bool unary(Ctx& c, ir::VecOp op, unsigned lane, uint64_t imm = 0);

void register_moves(HandlerTable& t);
void register_integer(HandlerTable& t);
void register_float(HandlerTable& t);
void register_sse3(HandlerTable& t);
void register_ssse3(HandlerTable& t);
void register_sse41(HandlerTable& t);
void register_sse41_float(HandlerTable& t);

// XMM0 as a vector: the implicit mask of blendvps/blendvpd/pblendvb.
ir::Value read_xmm0(Ctx& c);
// The operations of helper_vector (rare SSE4.1 instructions, and AES/PCLMUL
// on hosts without the AArch64 crypto instructions; AesRound's imm is an
// AesStep).
enum class VectorHelperOp : uint8_t { Mpsadbw, Phminposuw, AesKeygenAssist, Clmul, AesRound };
// Calls helper_vector for `op` on operands 0 (XMM) and 1 (XMM or m128).
bool call_vector_helper(Ctx& c, VectorHelperOp op, uint64_t imm);

// Helpers (sse_helpers.cpp), called through CallHelper.
uint64_t helper_ldmxcsr(GuestState* s, uint64_t value, uint64_t);
uint64_t helper_stmxcsr(GuestState* s, uint64_t, uint64_t);
uint64_t helper_fxsave(GuestState* s, uint64_t addr, uint64_t);
uint64_t helper_fxrstor(GuestState* s, uint64_t addr, uint64_t);
// a = data XMM | mask XMM << 8; stores to [RDI] the bytes whose mask byte is negative.
uint64_t helper_maskmovdqu(GuestState* s, uint64_t regs, uint64_t);
// desc = VectorHelperOp | dst XMM << 8 | src XMM << 16 | (1 << 24 when the
// source is the m128 at `addr`) | imm << 32; writes the destination XMM.
uint64_t helper_vector(GuestState* s, uint64_t desc, uint64_t addr);
// PHYBIN_EXACT_MXCSR: denormal inputs raise MXCSR.DE (checks in translated
// code, ir/fp_mode.h).  Before the guest runs.
void set_exact_flags(bool on);
// Applies MXCSR's rounding mode and flush-to-zero to the host FPCR.
void apply_mxcsr(uint32_t mxcsr);

}  // namespace phybin::x86::sse
