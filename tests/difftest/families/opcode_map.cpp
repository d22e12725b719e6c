// opcode_map: single instructions from raw bytes, walking the one-byte,
// 0F, 0F 38 and 0F 3A maps (and VEX/EVEX) with every prefix combination of
// kPrefixSets and every ModRM form: register forms with any reg/rm (group
// sub-opcodes /0../7 included) and memory forms whose address lands in the
// operand area through the case's base/index registers, an absolute
// disp32 or RIP.  The bytes go to gas as .byte directives; the lengths come
// from opcode_map_tables.cpp (README.md: "opcode_map").
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "families.h"
#include "opcode_map_tables.h"

namespace difftest {
namespace {

using opmap::Map;
using opmap::Prefixes;

constexpr int kRcx = 1, kRbx = 3, kRbp = 5, kRsi = 6, kRdi = 7;

// The prefix combinations walked: none, each of 66/F2/F3/67/REX.W/lock
// alone and the pairs that change meaning (66+REX.W operand size, F3+67
// string ops with 32-bit addresses, 66+F2 crc32 r, r/m16...).
const Prefixes kPrefixSets[] = {
    {},
    {false, true, false, false, false, false},
    {false, false, true, false, false, false},
    {false, false, false, true, false, false},
    {false, false, false, false, true, false},
    {false, false, false, false, false, true},
    {false, true, false, false, false, true},
    {false, false, false, true, true, false},
    {true, false, false, false, false, false},
    {true, true, false, false, false, false},
    {false, false, false, true, false, true},
    {false, false, true, false, false, true},
    {false, true, true, false, false, false},
    {false, true, false, true, false, false},
};
constexpr size_t kPrefixSetCount = sizeof kPrefixSets / sizeof kPrefixSets[0];

std::string prefix_name(const Prefixes& p) {
  std::string s;
  if (p.lock) s += "f0.";
  if (p.p66) s += "66.";
  if (p.f2) s += "f2.";
  if (p.f3) s += "f3.";
  if (p.p67) s += "67.";
  if (p.rex_w) s += "W.";
  if (s.empty()) return "-";
  s.pop_back();
  return s;
}

// A memory operand: ModRM mod/rm, SIB, displacement, REX.X/B, where in the
// operand area it points.
struct MemOperand {
  int mod = 0, rm = 0;
  int sib = -1;
  int disp_bytes = 0;
  int64_t disp = 0;
  bool rip = false;
  int target = 0;  // offset in the data area
  bool rex_x = false, rex_b = false;
  int kind = 0;
};

// A target offset in [lo, hi] (clamped to [0, 128]: the largest operand
// that is generated, frstor's 108 bytes, stays inside the compared area),
// 16-byte aligned most of the time: legacy SSE raises #GP for a misaligned
// m128, which phybin checks only in the aligned moves (README.md).
int pick_target(Gen& g, int lo, int hi) {
  lo = std::max(lo, 0);
  hi = std::min(hi, 128);
  if (g.chance(80)) {
    const int first = (lo + 15) & ~15;
    if (first <= hi) return first + 16 * static_cast<int>(g.below(static_cast<uint64_t>((hi - first) / 16 + 1)));
  }
  return static_cast<int>(g.range(lo, hi));
}

// Kinds: 0 [base], 1 [base+disp8], 2 [base+disp32], 3 [base+index*s+disp8],
// 4 [index*s+disp32], 5 [disp32] (SIB, no base), 6 [rip+disp32].
// no_disp8: EVEX scales disp8 by the operand size, so only disp32 (or a
// disp8 of 0) is used there.
MemOperand memory_operand(Gen& g, bool no_disp8) {
  MemOperand m;
  m.kind = static_cast<int>(g.below(7));
  if (no_disp8 && m.kind == 1) m.kind = 2;
  if (no_disp8 && m.kind == 3) m.kind = 4;
  const int base = g.base_reg(), b = base & 7, boff = g.base_offset();
  const int index = g.index_reg(), ival = g.index_value();
  const int ss = static_cast<int>(g.below(4)), scale = 1 << ss;
  switch (m.kind) {
    case 0:
      m.target = boff;
      m.rex_b = base >= 8;
      if (b == 4) { m.rm = 4; m.sib = 0x24; }                 // r12: SIB, no index
      else if (b == 5) { m.mod = 1; m.rm = 5; m.disp_bytes = 1; }  // r13: mod 0 would be RIP
      else m.rm = b;
      break;
    case 1:
    case 2:
      m.target = m.kind == 1 ? pick_target(g, boff - 128, boff + 127) : pick_target(g, 0, 128);
      m.mod = m.kind;
      m.rm = b;
      if (b == 4) m.sib = 0x24;
      m.disp_bytes = m.kind == 1 ? 1 : 4;
      m.disp = m.target - boff;
      m.rex_b = base >= 8;
      break;
    case 3:
      m.target = pick_target(g, boff + ival * scale - 128, boff + ival * scale + 127);
      m.mod = 1;
      m.rm = 4;
      m.sib = ss << 6 | (index & 7) << 3 | b;
      m.disp_bytes = 1;
      m.disp = m.target - boff - ival * scale;
      m.rex_b = base >= 8;
      m.rex_x = index >= 8;
      break;
    case 4:
      m.target = pick_target(g, 0, 128);
      m.rm = 4;
      m.sib = ss << 6 | (index & 7) << 3 | 5;  // base 101 with mod 0: none
      m.disp_bytes = 4;
      m.disp = DT_DATA_BASE + m.target - ival * scale;
      m.rex_x = index >= 8;
      break;
    case 5:
      m.target = pick_target(g, 0, 128);
      m.rm = 4;
      m.sib = 0x25;  // no index (REX.X must stay 0: it would make r12 the index), no base
      m.disp_bytes = 4;
      m.disp = DT_DATA_BASE + m.target;
      break;
    default:
      m.target = pick_target(g, 0, 128);
      m.rm = 5;
      m.rip = true;
      m.disp_bytes = 4;
      break;
  }
  return m;
}

struct Encoding {
  std::vector<uint8_t> head;  // prefixes .. ModRM/SIB
  int disp_bytes = 0;
  int64_t disp = 0;
  bool rip = false;
  int rip_target = 0;
  std::vector<uint8_t> tail;  // immediates
  std::string tag;
};

std::string hex_list(const std::vector<uint8_t>& bytes) {
  std::string s;
  char buf[8];
  for (uint8_t v : bytes) {
    std::snprintf(buf, sizeof buf, "%s0x%02x", s.empty() ? "" : ",", v);
    s += buf;
  }
  return s;
}

// The gas text: .byte for the bytes, a .long for a RIP displacement
// (relative to the label after the instruction; dt_epilogue is at the
// start of the code, which the harness maps at DT_CODE_BASE), and the tag
// as a comment for grouping the mismatches.
std::string text_of(const Encoding& e) {
  std::vector<uint8_t> head = e.head;
  std::string s;
  if (!e.rip) {
    for (int i = 0; i < e.disp_bytes; ++i) head.push_back(static_cast<uint8_t>(static_cast<uint64_t>(e.disp) >> (8 * i)));
    for (uint8_t v : e.tail) head.push_back(v);
    s = ".byte " + hex_list(head);
  } else {
    char buf[96];
    std::snprintf(buf, sizeof buf, "; .long 0x%x-(1f-dt_epilogue)", DT_DATA_BASE + e.rip_target - DT_CODE_BASE);
    s = ".byte " + hex_list(head) + buf;
    if (!e.tail.empty()) s += "; .byte " + hex_list(e.tail);
    s += "; 1:";
  }
  return s + " # " + e.tag;
}

// Legacy SSE instructions with a memory operand (the 0F rows of SSE, all
// of 0F 38 / 0F 3A): a misaligned m128 raises #GP on the CPU, while phybin
// checks alignment only in the aligned moves (README.md, by design).  Such
// cases with a misaligned target are not generated; the aligned moves
// keep them.
bool alignment_unchecked_sse(Map map, uint8_t op, const Prefixes& p) {
  const bool rep = p.f2 || p.f3;
  switch (map) {
    case Map::Two:
      if (op == 0x28 || op == 0x29 || op == 0x2b) return rep;  // movaps/movapd/movntps/movntpd
      if (op == 0x6f || op == 0x7f || op == 0xe7) return !p.p66 || rep;  // movdqa, movntdq
      return (op >= 0x10 && op <= 0x17) || (op >= 0x28 && op <= 0x2f) || (op >= 0x50 && op <= 0x7f) ||
             (op >= 0xc2 && op <= 0xc6) || op >= 0xd0;
    case Map::Three38: return !(op == 0x2a && p.p66 && !rep);  // movntdqa
    case Map::Three3A: return true;
    case Map::One: return false;
  }
  return false;
}

void random_bytes(Gen& g, std::vector<uint8_t>& out, int n) {
  for (int i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(g.bits()));
}

// Registers an implicit memory operand uses point into the data area.
void implicit_memory(Gen& g, Map map, uint8_t op) {
  uint64_t* gpr = g.current().init.gpr;
  auto area = [&](int lo, int hi) { return static_cast<uint64_t>(DT_DATA_BASE + g.range(lo, hi)); };
  if (map == Map::One) {
    if ((op >= 0xa4 && op <= 0xa7) || (op >= 0xaa && op <= 0xaf) || (op >= 0x6c && op <= 0x6f)) {
      // string ops: up to 16 elements of 8 bytes either way stay in the area
      gpr[kRsi] = area(128, 320);
      gpr[kRdi] = area(128, 320);
      gpr[kRcx] = g.below(17);
    } else if (op == 0xd7) {
      gpr[kRbx] = area(0, 256);  // xlat: [rbx+al]
    } else if (op == 0xc8) {
      gpr[kRbp] = DT_DATA_BASE + 0x100 + 8 * g.below(32);  // enter's display reads [rbp-8*i]
    } else if (op == 0xc9) {
      gpr[kRbp] = DT_DATA_BASE + 0x100 + 8 * g.below(31);  // leave pops from rbp
    } else if (op == 0x9d) {
      // popf: no TF (a trap after the instruction) and no AC (the harness's
      // C code would take alignment faults until the next case)
      const uint64_t off = DT_STACK_TOP - DT_DATA_BASE;
      uint64_t v;
      std::memcpy(&v, g.current().init.mem + off, 8);
      v &= ~((1ull << 8) | (1ull << 18));
      std::memcpy(g.current().init.mem + off, &v, 8);
    }
  } else if (map == Map::Two && op == 0xf7) {
    gpr[kRdi] = area(0, 128);  // maskmovq/maskmovdqu: [rdi]
  }
}

// One legacy/VEX/EVEX encoding; false when the pick is left out.
bool try_emit(Gen& g) {
  const uint64_t r = g.below(100);
  const bool model = g.model_vendor();
  Encoding e;
  Prefixes p = kPrefixSets[g.below(kPrefixSetCount)];
  Map map = Map::One;
  int vex = 0;  // 0 legacy, 2/3 VEX C5/C4, 4 EVEX
  int vex_map = 0;
  if (r < 34) map = Map::One;
  else if (r < 68) map = Map::Two;
  else if (r < 80) map = Map::Three38;
  else if (r < 90) map = Map::Three3A;
  else if (r < 97) vex = 3;
  else vex = 4;
  uint8_t op = static_cast<uint8_t>(g.bits());
  char shape;
  if (vex) {
    vex_map = static_cast<int>(g.range(1, 3));
    shape = opmap::vex_shape(vex_map, op, vex == 4);
    if (!shape) return false;
    // VEX/EVEX with legacy prefixes other than 67 is #UD: now and then
    if (!g.chance(10)) p = g.chance(85) ? Prefixes{} : Prefixes{false, false, false, false, true, false};
  } else {
    shape = opmap::shape(map, op);
    if (shape == 'x' || shape == 'p' || shape == '0') return false;
  }
  const bool has_modrm = shape == 'M' || shape == 'B' || shape == 'Z' || shape == 'G' || shape == 'H' ||
                         shape == 'R' || shape == '2';
  int mod = -1, reg = -1, rm = -1;
  MemOperand mem;
  bool rex_r = g.chance(30), rex_x = g.chance(20), rex_b = g.chance(30);
  if (shape == 'V' || shape == 'E') return false;  // VEX/EVEX: generated through the vex branch
  if (has_modrm) {
    reg = static_cast<int>(g.below(8));
    if (shape == 'R' || g.chance(50)) {
      mod = 3;
      rm = static_cast<int>(g.below(8));
    } else {
      mem = memory_operand(g, vex == 4);
      if (!vex && (mem.target & 15) && alignment_unchecked_sse(map, op, p)) return false;
      mod = mem.mod;
      rm = mem.rm;
      rex_x = mem.rex_x;
      rex_b = mem.rex_b;
    }
  }
  if (!vex && opmap::excluded(map, op, p, mod, reg, rm, model)) return false;
  // legacy prefixes, then REX or VEX/EVEX, then the opcode
  if (p.lock) e.head.push_back(0xf0);
  if (p.p66) e.head.push_back(0x66);
  if (p.f2) e.head.push_back(0xf2);
  if (p.f3) e.head.push_back(0xf3);
  if (p.p67) e.head.push_back(0x67);
  const bool uses_x = has_modrm && mod != 3 && (mem.kind == 3 || mem.kind == 4);
  const bool uses_b = has_modrm && mod != 3 && mem.kind <= 3;
  if (vex == 3) {
    // C5 has only R: memory operands through r8..r15 need C4
    const bool c5_ok = vex_map == 1 && !(uses_x && rex_x) && !(uses_b && rex_b) && g.chance(50);
    const uint8_t wvvvvlpp = static_cast<uint8_t>(g.bits());
    if (c5_ok) {
      e.head.push_back(0xc5);
      e.head.push_back(static_cast<uint8_t>((rex_r ? 0 : 0x80) | (wvvvvlpp & 0x7f)));
    } else {
      e.head.push_back(0xc4);
      e.head.push_back(static_cast<uint8_t>((rex_r ? 0 : 0x80) | (rex_x ? 0 : 0x40) | (rex_b ? 0 : 0x20) | vex_map));
      e.head.push_back(wvvvvlpp);
    }
    if (opmap::vex_bmi(vex_map, op) && g.chance(80)) {
      // BMI: L=0 (L=1 is #UD) most of the time, so that the result counts
      e.head.back() = static_cast<uint8_t>(e.head.back() & ~4);
    }
  } else if (vex == 4) {
    e.head.push_back(0x62);
    e.head.push_back(static_cast<uint8_t>((rex_r ? 0 : 0x80) | (rex_x ? 0 : 0x40) | (rex_b ? 0 : 0x20) |
                                          (g.chance(80) ? 0x10 : 0) | vex_map));
    e.head.push_back(static_cast<uint8_t>((g.bits() & 0xfb) | 4));  // bit 2 is 1 in every EVEX
    e.head.push_back(static_cast<uint8_t>(g.bits()));
  } else {
    const bool rex = p.rex_w || rex_r || (rex_x && has_modrm) || rex_b || g.chance(15);
    if (rex)
      e.head.push_back(static_cast<uint8_t>(0x40 | (p.rex_w ? 8 : 0) | (rex_r ? 4 : 0) | (rex_x && has_modrm ? 2 : 0) |
                                            (rex_b ? 1 : 0)));
    if (map != Map::One) e.head.push_back(0x0f);
    if (map == Map::Three38) e.head.push_back(0x38);
    if (map == Map::Three3A) e.head.push_back(0x3a);
  }
  e.head.push_back(op);
  if (has_modrm) {
    e.head.push_back(static_cast<uint8_t>(mod << 6 | reg << 3 | rm));
    if (mod != 3) {
      if (mem.sib >= 0) e.head.push_back(static_cast<uint8_t>(mem.sib));
      e.disp_bytes = mem.disp_bytes;
      e.disp = mem.disp;
      e.rip = mem.rip;
      e.rip_target = mem.target;
    }
  }
  const int imm = vex ? (shape == 'B' ? 1 : 0) : opmap::immediate_bytes(shape, p, reg);
  if (shape == 'o') {
    // moffs: an absolute address in the operand area
    const uint64_t addr = DT_DATA_BASE + static_cast<uint64_t>(pick_target(g, 0, 128));
    for (int i = 0; i < imm; ++i) e.tail.push_back(static_cast<uint8_t>(addr >> (8 * i)));
  } else {
    random_bytes(g, e.tail, imm);
  }

  // the tag: map, opcode, prefixes, form
  static const char* const kMapName[] = {"1", "0f", "0f38", "0f3a"};
  char tag[96];
  const char* form_kind = mod < 0 ? "-" : mod == 3 ? "r" : "m";
  if (vex)
    std::snprintf(tag, sizeof tag, "%s%d %02x %s %s/%d", vex == 4 ? "evex" : "vex", vex_map, op, prefix_name(p).c_str(),
                  form_kind, reg);
  else
    std::snprintf(tag, sizeof tag, "%s %02x %s %s/%d", kMapName[static_cast<int>(map)], op, prefix_name(p).c_str(),
                  form_kind, reg);
  e.tag = tag;
  if (has_modrm && mod == 3) e.tag += "," + std::to_string(rm);
  if (has_modrm && mod != 3) e.tag += " k" + std::to_string(mem.kind);

  Insn insn{text_of(e)};
  Tolerance& tol = g.current().tolerance;
  if (vex) {
    if (opmap::vex_bmi(vex_map, op)) insn.undefines = AF | PF | SF;  // andn/bls*/bextr/bzhi
    else {
      insn.undefines = ALL_FLAGS;
      tol.phybin_sigill_ok = true;
    }
  } else {
    const opmap::FlagRule rule = opmap::flag_rule(map, op, p, mod, reg);
    insn.undefines = rule.undefined;
    insn.vendor_undefines = rule.vendor_undefined;
    tol.phybin_sigill_ok = opmap::phybin_may_sigill(map, op, p, mod, reg, rm, model);
    if (map == Map::One && op >= 0xd8 && op <= 0xdf) {
      if (!opmap::x87_defines_condition_codes(op, mod, reg, rm)) insn.fsw_undefines = ALL_CC;
      else insn.fsw_defines = ALL_CC;
      if (opmap::x87_transcendental(op, mod, reg, rm)) {
        tol.x87_one_ulp = true;
        tol.x87_ulp_flags = !model;
      }
    }
    implicit_memory(g, map, op);
  }
  g.emit(insn);
  return true;
}

}  // namespace

void init_opcode_map(Gen& g) {
  g.random_mxcsr(true);
  g.random_x87();
}

// One instruction per case: an instruction may write any register (the
// memory base and index, RSP), so a second one could not rely on them.
void step_opcode_map(Gen& g) {
  while (!try_emit(g)) {
  }
}

}  // namespace difftest
