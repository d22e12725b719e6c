// The explicit list of families.  A family phybin cannot translate yet is
// listed with in_default_list = false: `--family NAME` still runs it, the
// default list and ctest do not (README.md: "Adding a family").
#include "families.h"

namespace difftest {

const std::vector<Family>& all_families() {
  static const std::vector<Family> families = {
      {"alu", nullptr, true, nullptr, step_alu, 1, 12, "add/or/adc/sbb/and/sub/xor/cmp/test, all forms and widths"},
      {"carry", nullptr, true, nullptr, step_carry, 2, 12, "adc/sbb chains, inc/dec/neg/not, stc/clc/cmc"},
      {"extend", nullptr, true, nullptr, step_extend, 1, 10, "cbw..cqo, movsx/movzx/movsxd, lea, mov, lahf/sahf"},
      {"exchange", nullptr, true, nullptr, step_exchange, 1, 8, "xchg, cmpxchg (lock), xadd"},
      {"shift", nullptr, true, nullptr, step_shift, 1, 8, "shl/sal/shr/sar/rol/ror/rcl/rcr/shld/shrd, imm and CL, all counts"},
      {"shld16", nullptr, true, nullptr, step_shld16, 1, 4, "16-bit shld/shrd, counts 0..31 (above 16 as Intel CPUs do; 0..16 vendor-neutral)"},
      {"muldiv", nullptr, true, nullptr, step_muldiv, 1, 6, "mul/imul (1, 2, 3 operands), div/idiv (faults compared)"},
      {"bits", nullptr, true, nullptr, step_bits, 1, 8, "bt/bts/btr/btc (memory with register offsets), bsf/bsr, bswap"},
      {"popcnt", "popcnt", true, nullptr, step_popcnt, 1, 8, "popcnt"},
      {"condition", nullptr, true, nullptr, step_condition, 2, 12, "setcc, cmovcc, jcc after flag producers"},
      {"stack", nullptr, true, nullptr, step_stack, 1, 12, "push/pop all forms, pushf/popf, enter/leave"},
      {"stack_rare", nullptr, true, nullptr, step_stack_rare, 1, 3, "enter and enterw (levels 0..255), leavew, 16-bit push/pop, pushfw/popfw"},
      {"string", nullptr, true, nullptr, step_string, 1, 4, "movs/stos/lods/cmps/scas with rep/repe/repne, both directions"},
      {"sse_int", nullptr, true, init_sse, step_sse_int, 1, 10, "SSE2 packed integer, movd/movq/movdq*"},
      {"sse_fp", nullptr, true, init_sse_no_flush, step_sse_fp, 1, 10, "SSE/SSE2 packed and scalar float arithmetic, compares, comis, ldmxcsr"},
      {"sse_fp_flush", nullptr, true, init_sse_flush, step_sse_fp, 1, 10, "sse_fp starting with DAZ+FTZ (ldmxcsr to any flush mode)"},
      {"sse_fp_ftz", nullptr, true, init_sse_ftz, step_sse_fp, 1, 10, "sse_fp starting with FTZ alone (flushed in software)"},
      {"sse_fp_daz", nullptr, true, init_sse_daz, step_sse_fp, 1, 10, "sse_fp starting with DAZ alone (flushed in software)"},
      {"sse_shuffle", nullptr, true, init_sse, step_sse_shuffle, 1, 10, "shufps/pd, unpck*, movss/sd/aps/ups/hps/lps/hlps/lhps/msk"},
      {"sse_convert", nullptr, true, init_sse_convert, step_sse_convert, 1, 8, "cvt* under every rounding mode"},
      {"sse_convert_flush", nullptr, true, init_sse_flush, step_sse_convert, 1, 8, "cvt* starting with DAZ+FTZ (ldmxcsr to any flush mode)"},
      {"x87", nullptr, true, init_x87, step_x87, 1, 10, "x87 loads/stores, arithmetic, compares, fxam, frndint, fscale, fprem, fcmov, fldcw"},
      {"x87_transcendental", nullptr, true, init_x87, step_x87_transcendental, 1, 1, "fsin/fcos/fsincos/fptan/fpatan/fyl2x/fyl2xp1/f2xm1 (1 ulp)"},
      {"cmpxchg8b16b", "cx16", true, nullptr, step_cmpxchg16b, 1, 4, "cmpxchg8b, cmpxchg16b"},
      {"sse3", "sse3", true, init_sse_no_flush, step_sse3, 1, 10, "addsub/hadd/hsub ps/pd, movshdup/sldup/ddup, lddqu"},
      {"ssse3", "ssse3", true, nullptr, step_ssse3, 1, 10, "pabs/psign/pshufb/phadd/phsub/pmaddubsw/pmulhrsw/palignr (XMM)"},
      {"sse41_int", "sse4.1", true, nullptr, step_sse41_int, 1, 10, "SSE4.1 integer: blends, pmovsx/zx, min/max, ptest, mpsadbw, pextr/pinsr"},
      {"sse41_fp", "sse4.1", true, init_sse_no_flush, step_sse41_fp, 1, 10, "blend(v)ps/pd, round*, dpps/dppd under every rounding mode"},
      {"sse42", "sse4.2", true, nullptr, step_sse42, 1, 8, "pcmpgtq, pcmpestri/estrm/istri/istrm (all imm8), crc32"},
      {"mmx", "ssse3", true, init_mmx, step_mmx, 1, 10, "MMX, SSE and SSSE3 on MM registers, movq2dq/movdq2q, cvt*pi*, emms"},
      {"aes", "aes", true, nullptr, step_aes, 1, 8, "aesenc/aesenclast/aesdec/aesdeclast (chains), aesimc, aeskeygenassist"},
      {"pclmul", "pclmul", true, nullptr, step_pclmul, 1, 6, "pclmulqdq, every imm8 (bits 0 and 4 select)"},
      {"sha", "sha", true, nullptr, step_sha, 1, 8, "sha1rnds4/nexte/msg1/msg2, sha256rnds2 (implicit xmm0)/msg1/msg2"},
      {"bmi1", "bmi", true, nullptr, step_bmi1, 1, 10, "andn, bextr, blsi/blsmsk/blsr, tzcnt, lzcnt (ABM)"},
      {"bmi2", "bmi2", true, nullptr, step_bmi2, 1, 10, "bzhi, mulx, pdep/pext, rorx, sarx/shlx/shrx"},
      {"adx", "adx", true, nullptr, step_adx, 2, 12, "adcx/adox chains with adc/add and other flag producers"},
      {"movbe", "movbe", true, nullptr, step_movbe, 1, 8, "movbe 16/32/64 loads and stores"},
      {"sse_chain", nullptr, true, init_sse_chain, step_sse_chain, 4, 16, "SSE arithmetic, conversions, moves on xmm0-2: chained, overwritten results"},
      {"opcode_map", nullptr, true, init_opcode_map, step_opcode_map, 1, 1,
       "single instructions from raw bytes: one-byte, 0F, 0F 38, 0F 3A maps, VEX/EVEX; all prefixes and ModRM forms"},
  };
  return families;
}

const Family* find_family(const std::string& name) {
  for (const Family& f : all_families())
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace difftest
