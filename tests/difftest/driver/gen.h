// The case generator: random instruction sequences of one family with a
// random initial state.  A family (families/*.cpp) is a function that appends
// instructions through Gen; Gen expands operand placeholders, keeps the
// chosen memory base registers intact and tracks which flags are undefined.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/mxcsr.h"

extern "C" {
#include "layout.h"
}

namespace difftest {

// RFLAGS status bits.
constexpr uint32_t CF = 1u << 0, PF = 1u << 2, AF = 1u << 4, ZF = 1u << 6, SF = 1u << 7, DF = 1u << 10,
                   OF = 1u << 11;
constexpr uint32_t ALL_FLAGS = CF | PF | AF | ZF | SF | OF;
constexpr uint32_t SZP = SF | ZF | PF;

// x87 condition codes in FSW.
constexpr uint16_t C0 = 1u << 8, C1 = 1u << 9, C2 = 1u << 10, C3 = 1u << 14;
constexpr uint16_t ALL_CC = C0 | C1 | C2 | C3;

// phybin models one vendor's CPUs: where the manuals leave something
// undefined, or Intel's and AMD's manuals (or CPUs) disagree, it does what
// Intel CPUs do (README.md, "Vendors").
constexpr const char* kModelVendor = "GenuineIntel";

// One instruction (or a line of setup instructions) of a sequence and what
// it does to the status flags: `defines` are written with a value both the
// Intel SDM and the AMD APM define, `undefines` are written with a value
// either leaves undefined; other flags are either kept or computed from
// defined inputs (a shift by CL may or may not change CF: either way its
// value is defined when it was before).  `vendor_undefines` are flags that
// phybin computes as Intel CPUs do but AMD's manual (or CPUs) do not
// define the same way: compared only when the build CPU is of the model's
// vendor (Gen::emit turns them into `undefines` otherwise).  The fsw_*
// masks do the same for the x87 condition codes C0-C3: the manuals leave
// them undefined after most x87 instructions, phybin keeps them as Intel
// CPUs do, so they count only on a build CPU of another vendor.
struct Insn {
  std::string text;
  uint32_t reads = 0;
  uint32_t defines = 0;
  uint32_t undefines = 0;
  uint32_t vendor_undefines = 0;
  uint16_t fsw_reads = 0;       // fnstsw: stores C0-C3 where they are compared bit for bit
  uint16_t fsw_defines = 0;
  uint16_t fsw_undefines = 0;
};

// How the final states of a case are compared beyond bit equality.
struct Tolerance {
  bool x87_one_ulp = false;  // transcendentals: ST registers within 1 ulp, FSW.C1 free
  // and, on a build CPU not of the model's vendor, FSW.PE/UE free where an
  // ST register is one ulp off (they describe that rounding; Intel CPUs
  // agree with phybin there, README.md)
  bool x87_ulp_flags = false;
  // MXCSR bits not compared: DE with --default-mxcsr (README.md)
  uint32_t mxcsr_ignored = 0;
  // phybin may end the case with SIGILL whatever the CPU did: encodings of
  // extensions phybin does not advertise (opcode_map, README.md); a
  // completed case is compared as usual.
  bool phybin_sigill_ok = false;
};

struct Case {
  std::vector<Insn> insns;
  dt_state init{};
  Tolerance tolerance;
  uint64_t seed = 0;  // the case's own seed: --case-seed reproduces it alone
};

// The flags whose final value is defined after `insns` (all are defined on
// entry: the initial RFLAGS is known).
uint32_t defined_flags_after(const std::vector<Insn>& insns, size_t count);
// The same for the x87 condition codes (the initial FSW is known).
uint16_t defined_fsw_after(const std::vector<Insn>& insns, size_t count);

class Gen {
 public:
  // model_vendor: the build CPU is of phybin's model vendor (or the run
  // is not forced vendor-neutral), so vendor-specific results are compared.
  Gen(uint64_t seed, bool model_vendor);

  bool model_vendor() const { return model_vendor_; }

  // Random numbers.
  uint64_t bits();
  uint64_t below(uint64_t n);
  int64_t range(int64_t lo, int64_t hi);  // inclusive
  bool chance(unsigned percent);
  template <typename T>
  const T& pick(const std::vector<T>& v) { return v[below(v.size())]; }

  // Interesting values.
  uint64_t gpr_value();
  uint32_t float_bits();
  uint64_t double_bits();
  void x87_value(uint8_t out[10]);

  // Operand text.  Writable registers never include RSP or the case's
  // memory base/index registers.
  std::string gpr(int size, bool writable);
  std::string mem(int size, int align = 1);  // "DWORD PTR [rbx+12]", inside the operand area
  std::string mem_at(int size, int offset);  // absolute address in the operand area
  std::string xmm() { return "xmm" + std::to_string(below(xmm_count_)); }
  // {x} picks among xmm0..xmm(n-1) for the rest of the case (sse_chain:
  // few registers, so results are overwritten soon and chains form).
  void limit_xmm(unsigned n) { xmm_count_ = n; }

  // Expands a template: {R8} {R16} {R32} {R64} writable registers, {r8}...
  // {r64} any register, {m8} {m16} {m32} {m64} {m80} {m128} (aligned)
  // {u128} (unaligned) memory, {i8} {i16} {i32} immediates (sign-extended
  // ranges), {u8} 0..255 ({u4} 0..15, {u7} 0..127: any {uN} below 2^N),
  // {x} an XMM register, {mm} an MMX register, {cmp} an SSE compare
  // predicate 0..7, {st} an x87 register st(0)..st(7).
  std::string expand(const std::string& tmpl);

  // Appends an instruction; when it reads a flag an earlier instruction
  // left undefined, a cmp that defines all flags is put before it (and an
  // fxam, which defines C0-C3, before one that stores undefined condition
  // codes).
  void emit(const Insn& insn);
  void emit(const std::string& text, uint32_t reads, uint32_t defines, uint32_t undefines,
            uint32_t vendor_undefines = 0) {
    emit(Insn{text, reads, defines, undefines, vendor_undefines});
  }
  void setup(const std::string& text) { emit(Insn{text, 0, 0, 0}); }  // flag-neutral setup
  uint32_t undefined_flags() const { return undefined_; }
  // The memory operand registers of the case (families that encode
  // addresses themselves, opcode_map): base = DT_DATA_BASE + base_offset,
  // index = index_value.
  int base_reg() const { return base_reg_; }
  int base_offset() const { return base_offset_; }
  int index_reg() const { return index_reg_; }
  int index_value() const { return index_value_; }

  Case& current() { return case_; }
  int& scratch() { return scratch_; }  // per-case counter a family may keep (stack depth)
  // Starts a case: random GPRs (RSP in the stack area, a base and an index
  // register for memory operands), flags, memory, XMM, MXCSR and x87 state
  // in their defaults unless the family asks for random ones.
  void begin_case(uint64_t case_seed);
  void random_mxcsr(bool flush);  // flush: DAZ+FTZ in a quarter of the cases
  uint32_t masked_mxcsr();        // all exceptions masked, random flags and RC
  void random_x87();
  void set_df(bool on);
  Case finish();

 private:
  bool reserved(int reg) const;
  std::string mem_operand(int size, int align);

  std::mt19937_64 rng_;
  bool model_vendor_;
  Case case_;
  uint32_t undefined_ = 0;
  uint16_t undefined_fsw_ = 0;
  int scratch_ = 0;
  unsigned xmm_count_ = 16;
  int base_reg_ = 3;
  int index_reg_ = -1;
  int index_value_ = 0;
  int base_offset_ = 128;
};

using FamilyFn = void (*)(Gen&);

struct Family {
  const char* name;
  const char* cpu_feature;   // __builtin_cpu_supports name, or nullptr for x86-64 baseline
  bool in_default_list;      // false: phybin does not translate it yet (see README.md)
  void (*init)(Gen&);        // random state beyond the defaults (MXCSR, x87), may be null
  FamilyFn step;             // appends one or a few instructions
  int min_steps, max_steps;
  const char* note;
};

const std::vector<Family>& all_families();
const Family* find_family(const std::string& name);

// The case for (family, seed, index, model_vendor): the same arguments
// give the same case.
Case generate_case(const Family& family, uint64_t seed, uint64_t index, bool model_vendor);

}  // namespace difftest
