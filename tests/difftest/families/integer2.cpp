// Integer families: multiply/divide, bit operations, flag consumers
// (setcc/cmovcc/jcc), the stack (push/pop/pushf/popf/enter/leave) and
// string instructions.
#include <cctype>
#include <string>

#include "families.h"
#include "table.h"

namespace difftest {
namespace {

const char* const kWidthName[] = {"8", "16", "32", "64"};

std::string imm_for(Gen& g, int width, uint64_t v) {
  (void)g;
  if (width < 64) v &= (1ull << width) - 1;
  return std::to_string(v);
}

struct Condition {
  const char* cc;
  uint32_t reads;
};
const Condition kConditions[] = {{"o", OF},  {"no", OF},  {"b", CF},       {"ae", CF},      {"e", ZF},  {"ne", ZF},
                                 {"be", CF | ZF}, {"a", CF | ZF}, {"s", SF}, {"ns", SF}, {"p", PF},  {"np", PF},
                                 {"l", SF | OF}, {"ge", SF | OF}, {"le", ZF | SF | OF}, {"g", ZF | SF | OF}};

// A register for div/idiv operands: never rax/rdx (the dividend), never
// reserved.
std::string divisor_register(Gen& g, int width) {
  for (;;) {
    std::string r = g.expand(std::string("{R") + kWidthName[width == 8 ? 0 : width == 16 ? 1 : width == 32 ? 2 : 3] + "}");
    if (r.find('a') == std::string::npos && r.find('d') == std::string::npos) return r;
    if (r[0] == 'r' && r.size() > 2 && std::isdigit(static_cast<unsigned char>(r[1])) && r.back() != 'd') return r;
  }
}

void emit_divide(Gen& g) {
  static const int widths[] = {8, 16, 32, 64};
  const int width = widths[g.below(4)];
  const bool is_signed = g.chance(50);
  uint64_t divisor = g.gpr_value();
  if (width < 64) divisor &= (1ull << width) - 1;
  if (divisor == 0) divisor = 7;
  std::string operand;
  if (g.chance(30)) {
    operand = g.mem_at(width, static_cast<int>(g.below(DT_OPERAND_SIZE / 8)) * 8);
    if (width == 64) {  // an imm32, sign-extended
      int32_t low = static_cast<int32_t>(divisor);
      divisor = static_cast<uint64_t>(static_cast<int64_t>(low == 0 ? 7 : low));
      g.setup("mov " + operand + ", " + std::to_string(static_cast<int64_t>(divisor)));
    } else {
      g.setup("mov " + operand + ", " + imm_for(g, width, divisor));
    }
  } else {
    operand = divisor_register(g, width);
    g.setup((width == 64 ? "movabs " : "mov ") + operand + ", " + imm_for(g, width, divisor));
  }
  if (!g.chance(5)) {  // else: whatever the dividend is (mostly #DE, compared as a signal)
    static const char* const sign_extend[] = {"cbw", "cwd", "cdq", "cqo"};
    static const char* const high[] = {"ah", "dx", "edx", "rdx"};
    const int wi = width == 8 ? 0 : width == 16 ? 1 : width == 32 ? 2 : 3;
    // A signed dividend beyond rax's own extension: the quotient may still fit (2^63 / -2).
    if (is_signed && g.chance(25)) g.setup(std::string("mov ") + high[wi] + (g.chance(50) ? ", 0" : ", -1"));
    else if (is_signed) g.setup(sign_extend[wi]);
    else g.setup(std::string(width == 64 ? "movabs " : "mov ") + high[wi] + ", " + std::to_string(g.below(divisor)));
  }
  g.emit(std::string(is_signed ? "idiv " : "div ") + operand, 0, 0, ALL_FLAGS);
}

// A frame: rbp near the top of the stack, enter, a push, leave.
void emit_frame(Gen& g, int level) {
  g.setup("lea rbp, [rsp-" + std::to_string(8 * g.below(4)) + "]");
  g.emit("enter " + std::to_string(8 * g.below(6)) + ", " + std::to_string(level), 0, 0, 0);
  g.emit(g.expand("push {r64}"), 0, 0, 0);
  g.emit("leave", 0, 0, 0);
}

// A 16-bit frame: enterw pushes words (BP, the display read at RBP-2*i, the
// new BP) and replaces only BP; leavew or now and then a 64-bit leave (a
// frame of the other width: RSP moves 6 bytes, inside the stack half).
void emit_frame16(Gen& g, int level) {
  g.setup("lea rbp, [rsp-" + std::to_string(g.below(8)) + "]");
  g.emit("enterw " + std::to_string(g.below(48)) + ", " + std::to_string(level), 0, 0, 0);
  g.emit(g.expand("push {r16}"), 0, 0, 0);
  g.emit(g.chance(85) ? "leavew" : "leave", 0, 0, 0);
}

// enterw with an RBP far from the stack (random upper bits, which it keeps):
// levels that read no display, then RSP back where it was.
void emit_far_frame16(Gen& g) {
  const int level = static_cast<int>(g.below(2) + 32 * g.below(2));
  const uint64_t size = g.below(48);
  g.setup("movabs rbp, " + std::to_string(g.bits()));
  g.emit("enterw " + std::to_string(size) + ", " + std::to_string(level), 0, 0, 0);
  g.setup("lea rsp, [rsp+" + std::to_string(size + 2 + 2 * (level & 1)) + "]");
}

}  // namespace

void step_muldiv(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"mul", "imul"}, {"{r8}", "{m8}", "{r16}", "{m16}", "{r32}", "{m32}", "{r64}", "{m64}"}, 0, CF | OF, SZP | AF},
      {{"imul"},
       {"{R16}, {r16}", "{R16}, {m16}", "{R32}, {r32}", "{R32}, {m32}", "{R64}, {r64}", "{R64}, {m64}",
        "{R16}, {r16}, {i8}", "{R16}, {m16}, {i16}", "{R32}, {r32}, {i32}", "{R32}, {m32}, {i8}",
        "{R64}, {r64}, {i32}", "{R64}, {m64}, {i8}"},
       0, CF | OF, SZP | AF},
  };
  if (g.chance(35)) emit_divide(g);
  else emit_from(g, groups);
}

// bsf/bsr dst, src.  A zero source sets ZF and leaves the destination
// undefined in the SDM, unchanged in the APM (which says nothing of the
// upper half of a 64-bit register under a 32-bit destination); Intel CPUs
// keep all 64 bits, and so does phybin.  On a build CPU of another vendor
// the destination gets a defined value (0) after a zero source.
void emit_bit_scan(Gen& g) {
  static const char* const forms[] = {"{R16}, {r16}", "{R16}, {m16}", "{R32}, {r32}",
                                      "{R32}, {m32}", "{R64}, {r64}", "{R64}, {m64}"};
  const std::string operands = g.expand(forms[g.below(6)]);
  g.emit(std::string(g.chance(50) ? "bsf " : "bsr ") + operands, 0, ZF, CF | OF | SF | AF | PF);
  if (g.model_vendor()) return;
  const std::string dst = operands.substr(0, operands.find(','));
  g.emit("jnz 1f\n  mov " + dst + ", 0\n1:", ZF, 0, 0);
}

void step_bits(Gen& g) {
  // bt*: CF is the bit; the SDM has ZF unaffected (older editions, like
  // the APM, undefined): compared on the model's vendor only
  static const std::vector<OpGroup> groups = {
      {{"bt", "bts", "btr", "btc"},
       {"{R16}, {r16}", "{R32}, {r32}", "{R64}, {r64}", "{R16}, {u8}", "{R32}, {u8}", "{R64}, {u8}", "{m16}, {u8}",
        "{m32}, {u8}", "{m64}, {u8}"},
       0, CF, OF | SF | AF | PF, ZF},
      {{"bswap"}, {"{R32}", "{R64}"}, 0, 0, 0},
  };
  if (g.chance(25)) {
    // memory bit string with a register bit offset (may be negative)
    static const int widths[] = {16, 32, 64};
    static const char* const ops[] = {"bt", "bts", "btr", "btc"};
    const int width = widths[g.below(3)];
    const int offset = static_cast<int>(g.range(32, DT_OPERAND_SIZE - 40));
    // the CPU accesses the operand-size unit holding the bit: keep a unit
    // of margin on both sides
    const int64_t bit = g.range(-(offset - width / 8) * 8, (DT_OPERAND_SIZE - offset - 2 * width / 8) * 8);
    std::string reg;
    do reg = g.expand("{R" + std::to_string(width) + "}"); while (reg == "ah" || reg == "bh");
    g.setup("mov " + reg + ", " + std::to_string(bit));
    g.emit(std::string(ops[g.below(4)]) + " " + g.mem_at(width, offset) + ", " + reg, 0, CF, OF | SF | AF | PF, ZF);
    return;
  }
  if (g.chance(30)) emit_bit_scan(g);
  else emit_from(g, groups);
}

void step_popcnt(Gen& g) {
  static const std::vector<OpGroup> groups = {
      {{"popcnt"}, {"{R16}, {r16}", "{R16}, {m16}", "{R32}, {r32}", "{R32}, {m32}", "{R64}, {r64}", "{R64}, {m64}"},
       0, ALL_FLAGS, 0},
  };
  emit_from(g, g.chance(50) ? groups : flag_producers());
}

void emit_flag_consumer(Gen& g) {
  const Condition& c = kConditions[g.below(16)];
  const std::string cc = c.cc;
  switch (g.below(3)) {
    case 0:
      g.emit(g.expand("set" + cc + (g.chance(70) ? " {R8}" : " {m8}")), c.reads, 0, 0);
      break;
    case 1: {
      static const char* const forms[] = {"{R16}, {r16}", "{R16}, {m16}", "{R32}, {r32}",
                                          "{R32}, {m32}", "{R64}, {r64}", "{R64}, {m64}"};
      g.emit(g.expand("cmov" + cc + " " + forms[g.below(6)]), c.reads, 0, 0);
      break;
    }
    default:
      g.emit(g.expand("j" + cc + " 1f\n  mov {R32}, {i32}\n1:"), c.reads, 0, 0);
      break;
  }
}

// Flag producers followed by setcc, cmovcc or a jcc over a mov.
void step_condition(Gen& g) {
  if (g.chance(45)) emit_from(g, flag_producers());
  else emit_flag_consumer(g);
}

// Push/pop in all forms with the depth kept inside the stack area,
// pushf/popf, enter/leave frames.
void step_stack(Gen& g) {
  int& depth = g.scratch();  // bytes pushed so far
  const unsigned choice = static_cast<unsigned>(g.below(10));
  if (choice < 4 && depth < 0x60) {
    static const char* const pushes[] = {"push {r64}", "push {m64}", "push {i8}", "push {i32}"};
    const char* form = pushes[g.below(4)];
    g.emit(g.expand(form), 0, 0, 0);
    depth += 8;
  } else if (choice < 7 && depth >= 8) {
    static const char* const pops[] = {"pop {R64}", "pop {m64}"};
    const char* form = pops[g.below(2)];
    g.emit(g.expand(form), 0, 0, 0);
    depth -= 8;
  } else if (choice == 7) {
    // popf of a value with only status flags and DF (TF/AC would trap)
    const uint64_t flags = 0x202 | (g.bits() & (ALL_FLAGS | DF));
    g.setup("push " + std::to_string(flags));
    g.emit("popfq", 0, ALL_FLAGS, 0);
  } else if (choice == 8) {
    g.setup("pushfq");
    g.emit(g.expand("pop {R64}"), ALL_FLAGS, 0, 0);
  } else {
    // a frame as compilers build it, left with leave
    g.setup("push rbp");
    g.setup("mov rbp, rsp");
    g.emit(g.expand("sub rsp, " + std::to_string(8 * g.below(6))), 0, ALL_FLAGS, 0);
    g.emit(g.expand("push {r64}"), 0, 0, 0);
    g.emit("leave", 0, 0, 0);
  }
}

// enter and enterw at every nesting level (also levels above 31, which the
// CPU takes modulo 32), leave/leavew, 16-bit push/pop, pushfw/popfw.
void step_stack_rare(Gen& g) {
  const unsigned choice = static_cast<unsigned>(g.below(10));
  if (choice < 5) {
    int level = static_cast<int>(g.below(32));
    if (g.chance(10)) level += 32 * static_cast<int>(g.range(1, 7));
    if (g.chance(50)) emit_frame(g, level);
    else if (g.chance(80)) emit_frame16(g, level);
    else emit_far_frame16(g);
  } else if (choice < 9) {
    static const char* const pushes[] = {"push {r16}", "push {m16}", "pushw {i16}", "pushw {i8}"};
    static const char* const pops[] = {"pop {R16}", "pop {m16}"};
    g.emit(g.expand(pushes[g.below(4)]), 0, 0, 0);
    g.emit(g.expand(pops[g.below(2)]), 0, 0, 0);
  } else if (g.chance(50)) {
    // popfw of a value with only status flags and DF (TF would trap)
    const uint64_t flags = 0x202 | (g.bits() & (ALL_FLAGS | DF));
    g.setup("pushw " + std::to_string(flags));
    g.emit("popfw", 0, ALL_FLAGS, 0);
  } else {
    g.emit("pushfw", ALL_FLAGS, 0, 0);
    g.emit(g.expand("pop {R16}"), 0, 0, 0);
  }
}

// String instructions with and without rep/repe/repne, both directions, on
// small counts inside the operand area.
void step_string(Gen& g) {
  static const char sizes[] = {'b', 'w', 'd', 'q'};
  const char size = sizes[g.below(4)];
  g.setup(g.chance(50) ? "std" : "cld");
  g.setup("mov esi, " + std::to_string(DT_DATA_BASE + g.range(72, 184)));
  g.setup("mov edi, " + std::to_string(DT_DATA_BASE + g.range(72, 184)));
  g.setup("mov ecx, " + std::to_string(g.below(9)));
  static const char* const moves[] = {"movs", "stos", "lods"};
  static const char* const compares[] = {"cmps", "scas"};
  if (g.chance(50)) {
    std::string op = std::string(moves[g.below(3)]) + size;
    g.emit((g.chance(70) ? "rep " : "") + op, 0, 0, 0);
  } else {
    static const char* const prefixes[] = {"", "repe ", "repne "};
    std::string op = std::string(prefixes[g.below(3)]) + compares[g.below(2)] + size;
    g.emit(op, 0, ALL_FLAGS, 0);
  }
}

}  // namespace difftest
