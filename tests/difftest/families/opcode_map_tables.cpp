#include "opcode_map_tables.h"

#include "../driver/gen.h"

namespace difftest::opmap {
namespace {

// One letter per opcode, a row of 16 per string (shape() explains the
// letters).  In 64-bit mode 06/07/0E/16/17/1E/1F/27/2F/37/3F/60/61/82/9A/
// CE/D4/D5/D6/EA are #UD: they are generated as '.' (or their ModRM/imm
// shape) so that the #UD is compared.
const char* const kOneByte[16] = {
    "MMMMbz..MMMMbz.0",  // 00: add, or, push/pop es (#UD), 0F escape
    "MMMMbz..MMMMbz..",  // 10: adc, sbb
    "MMMMbzp.MMMMbzp.",  // 20: and, sub, ES/CS prefixes, daa/das (#UD)
    "MMMMbzp.MMMMbzp.",  // 30: xor, cmp, SS/DS prefixes, aaa/aas (#UD)
    "pppppppppppppppp",  // 40: REX
    "................",  // 50: push/pop r64
    "..EMppppzZbB....",  // 60: pusha/popa (#UD), EVEX, movsxd, FS/GS/66/67, push, imul, ins/outs
    "xxxxxxxxxxxxxxxx",  // 70: jcc rel8
    "BZBBMMMMMMMMMMMM",  // 80: group 1, test, xchg, mov, mov sreg, lea, pop r/m
    "................",  // 90: xchg, cbw.., callf (#UD), fwait, pushf/popf, sahf/lahf
    "oooo....bz......",  // A0: mov moffs, string ops, test
    "bbbbbbbbvvvvvvvv",  // B0: mov r, imm
    "BBxxVVBZe.xxxxxx",  // C0: shifts imm, ret, VEX, mov imm, enter, leave, retf, int, iret
    "MMMM....MMMMMMMM",  // D0: shifts 1/CL, aam/aad/salc (#UD), xlat, x87
    "xxxxbbbbxxxx....",  // E0: loop/jrcxz, in/out imm, call/jmp, in/out dx
    "pxpp..GH......MM",  // F0: lock, int1, rep, hlt, cmc, group 3, flags, group 4/5
};

const char* const kTwoByte[16] = {
    "MMxx.x.x.....M.B",  // 00: groups 6/7, lar/lsl, syscall, clts, sysret, invd, wbinvd, ud2, prefetchw, femms, 3DNow!
    "MMMMMMMMMMMMMMMM",  // 10: SSE moves, hint nops (prefetch, MPX, cldemote, endbr)
    "RRRR....MMMMMMMM",  // 20: mov CR/DR, SSE
    ".x.xxx..0.0.....",  // 30: wrmsr, rdtsc, rdmsr, rdpmc, sysenter/exit, getsec, escapes
    "MMMMMMMMMMMMMMMM",  // 40: cmovcc
    "MMMMMMMMMMMMMMMM",  // 50: SSE
    "MMMMMMMMMMMMMMMM",  // 60: MMX/SSE2
    "BBBBMMM.2M..MMMM",  // 70: pshuf, shift groups, pcmpeq, emms, vmread/extrq, vmwrite, haddpd
    "xxxxxxxxxxxxxxxx",  // 80: jcc rel32
    "MMMMMMMMMMMMMMMM",  // 90: setcc
    ".xxMBM...x.MBMMM",  // A0: push/pop fs, cpuid, bt, shld, push/pop gs, rsm, bts, shrd, group 15, imul
    "MMMMxxMMMMBMMMMM",  // B0: cmpxchg, lss, btr, lfs/lgs, movzx, popcnt, ud1, group 8, btc, bsf/bsr, movsx
    "MMBMBBBM........",  // C0: xadd, cmpps, movnti, pinsrw, pextrw, shufps, group 9, bswap
    "MMMMMMMMMMMMMMMM",  // D0
    "MMMMMMMMMMMMMMMM",  // E0
    "MMMMMMMMMMMMMMMM",  // F0: ... ud0
};

bool in(uint8_t v, uint8_t lo, uint8_t hi) { return v >= lo && v <= hi; }

}  // namespace

char shape(Map map, uint8_t op) {
  switch (map) {
    case Map::One: return kOneByte[op >> 4][op & 15];
    case Map::Two: return kTwoByte[op >> 4][op & 15];
    case Map::Three38: return 'M';  // every 0F 38 opcode has a ModRM and no immediate
    case Map::Three3A: return 'B';  // every 0F 3A opcode has a ModRM and an imm8
  }
  return 'x';
}

int immediate_bytes(char s, const Prefixes& p, int reg) {
  // iz: 16 bits under 66 unless REX.W asks for 64 (then 32, sign-extended)
  const int iz = p.p66 && !p.rex_w ? 2 : 4;
  switch (s) {
    case 'B': case 'b': return 1;
    case 'Z': case 'z': return iz;
    case 'v': return p.rex_w ? 8 : iz;
    case 'o': return p.p67 ? 4 : 8;
    case 'e': return 3;
    case '2': return p.p66 || p.f2 ? 2 : 0;  // vmread/vmwrite have none
    case 'G': return reg <= 1 ? 1 : 0;
    case 'H': return reg <= 1 ? iz : 0;
    default: return 0;
  }
}

bool excluded(Map map, uint8_t op, const Prefixes& p, int mod, int reg, int rm, bool model_vendor) {
  const uint8_t mp = p.mandatory();
  if (map == Map::One) {
    if (op == 0x8e && (reg == 4 || reg == 5)) return true;        // mov fs/gs: the harness's TLS
    // f3 REX.B 90: Intel runs pause, AMD xchg r8d, eax (found on an EPYC);
    // REX is chosen later, so every f3 90 is left out
    if (op == 0x90 && mp == 0xf3 && !model_vendor) return true;
    if (op == 0xc7 && reg == 7) return true;                      // xbegin: a control transfer
    if (op == 0xc6 && reg == 7 && mod == 3) return true;          // xabort: RTM, which the build CPU may have
    if (op == 0xff && reg >= 2 && reg <= 5) return true;          // call/jmp (far) r/m
    return false;
  }
  if (map == Map::Two) {
    switch (op) {
      case 0x00: return reg <= 1 || reg == 4 || reg == 5;  // sldt/str (UMIP), verr/verw (host GDT)
      case 0x01:
        if (mod != 3) return reg == 0 || reg == 1 || reg == 4;  // sgdt/sidt/smsw: host tables, UMIP
        {
          // register forms: only those that fault or are stateless at CPL 3
          // (vmcall and friends exit to the hypervisor; xgetbv, rdtscp,
          // rdpkru, rdpru read machine state; wrpkru, clzero, uiret change it)
          const int modrm = 0xc0 | reg << 3 | rm;
          return !(in(static_cast<uint8_t>(modrm), 0xc8, 0xcb) || modrm == 0xcf || modrm == 0xd1 || modrm == 0xd5 ||
                   modrm == 0xd6 || modrm == 0xe8 || modrm == 0xe9 || in(static_cast<uint8_t>(modrm), 0xf0, 0xf8));
        }
      // lock mov cr0 is AMD's mov cr8 (#GP at CPL 3), #UD on Intel
      case 0x20: case 0x22: return mod != 3 || (p.lock && !model_vendor);
      case 0x21: case 0x23: return mod != 3;
      // 0f 0d with a register: a NOP on Intel, #UD on AMD (found on an EPYC)
      case 0x0d: return mod == 3 && !model_vendor;
      case 0x52: case 0x53: return true;  // rsqrt/rcp: approximations differ by CPU model
      // bt/bts/btr/btc m, r: the random register's bit offset reaches
      // non-canonical addresses, which phybin does not fault on (README)
      case 0xa3: case 0xab: case 0xb3: case 0xbb: return mod != 3;
      case 0xae:
        if (mod != 3) {
          if (reg == 0 || reg == 1 || reg == 4 || reg == 5) return true;  // fxsave/xsave: 512+ bytes
          return reg == 6 && mp == 0;                                       // xsaveopt
        }
        if (mp == 0xf3 && reg <= 3) return true;           // rd/wrfsbase, rd/wrgsbase
        return reg == 6 && mp != 0;                        // tpause/umonitor/umwait: time
      case 0xc7:
        if (mod == 3) return reg >= 6;  // rdrand, rdseed, rdpid
        return reg == 4;                // xsavec: variable size
      case 0xa4: case 0xa5: case 0xac: case 0xad:
        // 16-bit shld/shrd by 17..31: undefined result except on Intel
        return !model_vendor && p.p66 && !p.rex_w;
      case 0xbc: case 0xbd:
        // bsf/bsr of zero: the destination differs by vendor
        return !model_vendor && mp != 0xf3;
      case 0xb2:
        // lss with REX.W: Intel reads m16:64, AMD m16:32 (lfs/lgs are not walked)
        return !model_vendor && p.rex_w;
      default: return false;
    }
  }
  if (map == Map::Three3A) return op == 0xf0;  // hreset: processor history
  return false;
}

FlagRule flag_rule(Map map, uint8_t op, const Prefixes& p, int mod, int reg) {
  (void)mod;
  const uint8_t mp = p.mandatory();
  if (map == Map::One) {
    if (op < 0x40 && (op & 7) <= 5) {
      const int alu = op >> 3;  // or, and, xor: AF undefined
      return {alu == 1 || alu == 4 || alu == 6 ? AF : 0u, 0};
    }
    switch (op) {
      case 0x80: case 0x81: case 0x82: case 0x83:
        return {reg == 1 || reg == 4 || reg == 6 ? AF : 0u, 0};
      case 0x84: case 0x85: case 0xa8: case 0xa9: return {AF, 0};
      case 0x69: case 0x6b: return {SZP | AF, 0};
      case 0xc0: case 0xc1: case 0xd2: case 0xd3:
        // rotates: OF for counts other than 1; shifts also AF, and CF for
        // counts of the width or more
        return {reg <= 3 ? OF : OF | AF | CF, 0};
      case 0xd0: case 0xd1: return {reg <= 3 ? 0u : AF, 0};
      case 0xf6: case 0xf7:
        if (reg <= 1) return {AF, 0};
        if (reg <= 3) return {0, 0};
        if (reg <= 5) return {SZP | AF, 0};
        return {ALL_FLAGS, 0};
      default: return {0, 0};
    }
  }
  if (map == Map::Two) {
    switch (op) {
      case 0x00: case 0x01: case 0x37: case 0x78: case 0x79: case 0xae: return {ALL_FLAGS, 0};  // not sure
      case 0xa3: case 0xab: case 0xb3: case 0xbb: case 0xba: return {OF | SF | AF | PF, ZF};
      case 0xa4: case 0xa5: case 0xac: case 0xad:
        if (p.p66 && !p.rex_w) return {OF | AF, CF | SZP};  // 16-bit: counts 17..31 Intel-defined
        return {OF | AF, 0};
      case 0xaf: return {SZP | AF, 0};
      case 0xbc: case 0xbd:
        if (mp == 0xf3) return {OF | SF | AF | PF, 0};  // tzcnt/lzcnt
        return {CF | OF | SF | AF | PF, 0};
      case 0xc7: return {reg == 1 ? 0u : ALL_FLAGS, 0};
      default: return {0, 0};  // SIMD, moves, setcc/cmovcc, hints: flags kept or defined
    }
  }
  if (map == Map::Three38) {
    if (op == 0xf6 || op == 0xf0 || op == 0xf1) return {0, 0};  // adcx/adox, movbe, crc32
    if (in(op, 0x00, 0x41) || in(op, 0xc8, 0xcf) || in(op, 0xdb, 0xdf)) {
      if (mp == 0xf3 && in(op, 0xd8, 0xdf)) return {ALL_FLAGS, 0};  // Key Locker
      return {0, 0};
    }
    return {ALL_FLAGS, 0};  // not sure
  }
  return {0, 0};  // 0F 3A: flags kept, or all defined (pcmpXstrX)
}

bool phybin_may_sigill(Map map, uint8_t op, const Prefixes& p, int mod, int reg, int rm, bool model_vendor) {
  const uint8_t mp = p.mandatory();
  if (map == Map::One) {
    if (op == 0xc4 || op == 0xc5 || op == 0x62) return true;     // AVX, AVX-512 (VEX BMI: see vex_bmi)
    if (op == 0x8f && reg != 0) return !model_vendor;            // AMD XOP
    return false;
  }
  if (map == Map::Two) {
    switch (op) {
      case 0x01:
        if (mod == 3) {
          const int modrm = 0xc0 | reg << 3 | rm;
          // xsetbv (XSAVE), xend/xtest (RTM), serialize, tsxldtrk, the
          // SMAP/MONITOR/SGX forms: none advertised by phybin
          return modrm != 0xf8 && (modrm < 0xf0 || modrm > 0xf7);
        }
        return reg == 5;  // rstorssp (CET)
      case 0x0e: case 0x0f: return !model_vendor;            // 3DNow!
      case 0x78: case 0x79: return !model_vendor && (mp == 0x66 || mp == 0xf2);  // SSE4a
      case 0x2b: return !model_vendor && (mp == 0xf2 || mp == 0xf3);             // movntss/sd
      case 0x1e: return mp == 0xf3 && mod == 3 && reg == 1;  // rdssp (CET; a nop when off)
      case 0xae:
        if (mp == 0xf3) return true;  // ptwrite, incssp, clrssbsy, fsgsbase
        return false;
      case 0xc7: return mod != 3 && (reg == 3 || reg == 5);  // xrstors/xsaves
      default: return false;
    }
  }
  if (map == Map::Three38) {
    if (op == 0xcf) return true;                          // GFNI
    if (mp == 0xf3 && (in(op, 0xd8, 0xdf) || op == 0xfa || op == 0xfb)) return true;  // Key Locker
    if (in(op, 0x80, 0x82)) return true;                  // invept/invvpid/invpcid
    if (op == 0xf5 || op == 0xf8 || op == 0xf9 || op == 0xfc) return true;  // CET, movdir*, enqcmd, RAO-INT
    if (op == 0xf6 && mp == 0) return true;               // wrss
    return false;
  }
  return op == 0xce || op == 0xcf;  // 0F 3A: GFNI
}

bool x87_defines_condition_codes(uint8_t op, int mod, int reg, int rm) {
  if (mod != 3) return (op == 0xd8 || op == 0xdc || op == 0xda || op == 0xde) && (reg == 2 || reg == 3);
  const int modrm = 0xc0 | reg << 3 | rm;
  switch (op) {
    case 0xd8: case 0xdc: return reg == 2 || reg == 3;  // fcom/fcomp
    case 0xd9: return modrm == 0xe4 || modrm == 0xe5;   // ftst, fxam
    case 0xda: return modrm == 0xe9;                    // fucompp
    case 0xdd: return reg == 4 || reg == 5;             // fucom/fucomp
    case 0xde: return modrm == 0xd9;                    // fcompp
    default: return false;
  }
}

bool x87_transcendental(uint8_t op, int mod, int reg, int rm) {
  if (op != 0xd9 || mod != 3) return false;
  const int modrm = 0xc0 | reg << 3 | rm;
  // f2xm1 fyl2x fptan fpatan, fyl2xp1, fsincos, fsin, fcos
  return (modrm >= 0xf0 && modrm <= 0xf3) || modrm == 0xf9 || modrm == 0xfb || modrm == 0xfe || modrm == 0xff;
}

bool vex_bmi(int vex_map, uint8_t op) {
  if (vex_map == 2) return op == 0xf2 || op == 0xf3 || op == 0xf5 || op == 0xf6 || op == 0xf7;
  return vex_map == 3 && op == 0xf0;  // rorx
}

char vex_shape(int vex_map, uint8_t op, bool evex) {
  if (vex_map == 2) {
    // EVEX scatters (and the gather/scatter prefetches) write through a
    // vector of random indices
    if (evex && (in(op, 0xa0, 0xa3) || op == 0xc6 || op == 0xc7)) return 0;
    return 'M';
  }
  if (vex_map == 3) return 'B';
  // map 0F: the SIMD rows (the integer opcodes of the map are #UD with VEX)
  if (op == 0x77) return evex ? 0 : '.';  // vzeroupper/vzeroall
  if (in(op, 0x10, 0x17) || in(op, 0x28, 0x2f) || in(op, 0x50, 0x76) || in(op, 0x7c, 0x7f) ||
      in(op, 0xd0, 0xff) || op == 0xc2 || in(op, 0xc4, 0xc6))
    return op == 0x70 || in(op, 0x71, 0x73) || op == 0xc2 || in(op, 0xc4, 0xc6) ? 'B' : 'M';
  return 0;
}

}  // namespace difftest::opmap
