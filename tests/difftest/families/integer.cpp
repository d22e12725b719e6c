// Integer families: binary ALU, carry chains and unary operations,
// conversions and moves with extension, exchanges.
#include "families.h"
#include "table.h"

namespace difftest {

void step_alu(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"add", "sub", "cmp"}, binary_forms(), 0, ALL_FLAGS, 0},
      {{"adc", "sbb"}, binary_forms(), CF, ALL_FLAGS, 0},
      {{"and", "or", "xor"}, binary_forms(), 0, CF | OF | SZP, AF},
      {{"test"}, {"{r8}, {r8}", "{m8}, {r8}", "{r8}, {i8}", "{m8}, {i8}", "{r16}, {r16}", "{m16}, {i16}",
                  "{r32}, {r32}", "{m32}, {r32}", "{r32}, {i32}", "{r64}, {r64}", "{m64}, {r64}", "{r64}, {i32}"},
       0, CF | OF | SZP, AF},
  };
  emit_from(g, groups);
}

// adc/sbb chains (multi-word arithmetic) with inc/dec/neg/not between them.
void step_carry(Gen& g) {
  static const std::vector<const char*> unary = {"{R8}", "{m8}", "{R16}", "{m16}", "{R32}", "{m32}", "{R64}", "{m64}"};
  static const std::vector<OpGroup> groups = {
      {{"adc", "sbb"}, binary_forms(), CF, ALL_FLAGS, 0},
      {{"adc", "sbb"}, binary_forms(), CF, ALL_FLAGS, 0},
      {{"inc", "dec"}, unary, 0, ALL_FLAGS & ~CF, 0},
      {{"neg"}, unary, 0, ALL_FLAGS, 0},
      {{"not"}, unary, 0, 0, 0},
      {{"stc", "clc", "cmc"}, {""}, CF, CF, 0},
  };
  emit_from(g, groups);
}

// Sign and zero extension, lea, lahf/sahf.
void step_extend(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"cbw", "cwde", "cdqe", "cwd", "cdq", "cqo"}, {""}, 0, 0, 0},
      {{"movsx", "movzx"},
       {"{R16}, {r8}", "{R32}, {r8}", "{R64}, {r8}", "{R32}, {r16}", "{R64}, {r16}", "{R16}, {m8}",
        "{R32}, {m8}", "{R64}, {m8}", "{R32}, {m16}", "{R64}, {m16}"},
       0, 0, 0},
      {{"movsxd"}, {"{R64}, {r32}", "{R64}, {m32}"}, 0, 0, 0},
      {{"lea"},
       {"{R64}, [{r64}+{R64}*2+{i8}]", "{R32}, [{r64}+{R64}*4+{i32}]", "{R16}, [{r64}+{i8}]", "{R64}, [{R64}*8+{i32}]",
        "{R64}, [{r64}+{R64}]", "{R32}, [{r32}+{R32}*8-{u8}]", "{R64}, [rip+{i32}]"},
       0, 0, 0},
      {{"mov"}, {"{R8}, {r8}", "{R16}, {r16}", "{R32}, {r32}", "{R64}, {r64}", "{R8}, {i8}", "{R16}, {i16}",
                 "{R32}, {i32}", "{R64}, {i32}", "{m8}, {i8}", "{m16}, {r16}", "{m64}, {i32}", "{R32}, {m32}"},
       0, 0, 0},
      {{"lahf"}, {""}, SZP | AF | CF, 0, 0},
      {{"sahf"}, {""}, 0, SZP | AF | CF, 0},
  };
  emit_from(g, groups);
}

// xchg, cmpxchg (also set up to succeed), xadd.
void step_exchange(Gen& g) {
  static const std::vector<const char*> rm = {"{R8}, {R8}", "{m8}, {R8}", "{R16}, {R16}", "{m16}, {R16}",
                                              "{R32}, {R32}", "{m32}, {R32}", "{R64}, {R64}", "{m64}, {R64}"};
  static const std::vector<const char*> mem_only = {"{m8}, {R8}", "{m16}, {R16}", "{m32}, {R32}", "{m64}, {R64}"};
  static const std::vector<OpGroup> groups = {
      {{"xchg"}, rm, 0, 0, 0},
      {{"cmpxchg"}, rm, 0, ALL_FLAGS, 0},
      {{"lock cmpxchg"}, mem_only, 0, ALL_FLAGS, 0},
      {{"xadd"}, rm, 0, ALL_FLAGS, 0},
      {{"lock xadd"}, mem_only, 0, ALL_FLAGS, 0},
  };
  if (g.chance(15)) {
    // make the compare succeed: rax holds what memory holds
    static const char* const acc[] = {"al", "ax", "eax", "rax"};
    int w = static_cast<int>(g.below(4));
    std::string m = g.mem(8 << w);
    g.setup(std::string("mov ") + acc[w] + ", " + m);
    g.emit(g.expand("lock cmpxchg " + m + ", {R" + std::to_string(8 << w) + "}"), 0, ALL_FLAGS, 0);
    return;
  }
  emit_from(g, groups);
  // cmpxchg r32, r32 that fails: the SDM's pseudo-code writes the
  // destination back (which would clear its upper half), the APM only
  // loads the accumulator; Intel CPUs (and phybin) keep the destination's
  // 64 bits.  Elsewhere a 32-bit mov gives its upper half a defined value.
  const std::string& text = g.current().insns.back().text;
  if (!g.model_vendor() && text.rfind("cmpxchg e", 0) == 0 && text.find(',') == 11) {
    const std::string dst = text.substr(8, 3);
    g.setup("mov " + dst + ", " + dst);
  } else if (!g.model_vendor() && text.rfind("cmpxchg r", 0) == 0) {
    const std::string dst = text.substr(8, text.find(',') - 8);
    if (dst.back() == 'd') g.setup("mov " + dst + ", " + dst);
  }
}

}  // namespace difftest

namespace difftest {

// cmpxchg8b and cmpxchg16b (CX16): phybin does not translate them yet.
void step_cmpxchg16b(Gen& g) {
  if (g.chance(50)) {
    g.emit(g.chance(50) ? "cmpxchg8b " + g.mem(64) : "lock cmpxchg8b " + g.mem(64), 0, ZF, 0);
    return;
  }
  const std::string m = g.mem(128, 16);
  const std::string address = m.substr(m.find('['));
  if (g.chance(50)) g.setup("mov rax, QWORD PTR " + address);
  g.emit("lock cmpxchg16b OWORD PTR " + address, 0, ZF, 0);
}

}  // namespace difftest
