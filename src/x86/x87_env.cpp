// fnstenv/fldenv (28-byte environment) and fnsave/frstor (108 bytes with
// the registers), in the 32-bit protected-mode layout that 64-bit code
// gets without an operand-size prefix, or the 16-bit one (14 and 94 bytes)
// with it; and the delivery of a pending unmasked exception.
#include <csignal>

#include "x86/helpers.h"
#include "x86/x87_helpers.h"
#include "x86/x87_state.h"

namespace phybin::x86 {

namespace {

constexpr size_t kEnvBytes = 28, kEnv16Bytes = 14;
constexpr uint32_t kReservedHigh = 0xffff0000;  // what the CPU writes in the unused halves

void put32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }
uint16_t get16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

// The full tag of a register in use: valid 00, zero 01, special 10.
unsigned tag_of(Float80 v) {
  switch (x87::classify(v)) {
    case x87::Class::Normal: return 0;
    case x87::Class::Zero: return 1;
    default: return 2;
  }
}

uint16_t full_tag_word(const Fpu& f) {
  uint16_t tw = 0;
  for (unsigned p = 0; p < 8; ++p)
    tw = static_cast<uint16_t>(tw | (f.phys_empty(p) ? 3u : tag_of(f.phys_get(p))) << (2 * p));
  return tw;
}

void put16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }

// The 16-bit layout: FCW, FSW, FTW, FIP's low word, FCS, FDP, FDS; the
// pointers as in the 32-bit one (FCS, FDP and FDS are 0).
void store_env16(Fpu& f, uint8_t* out) {
  GuestState* s = f.state();
  put16(out + 0, s->fcw);
  put16(out + 2, s->fsw);
  put16(out + 4, full_tag_word(f));
  put16(out + 6, static_cast<uint16_t>(s->x87_fip));
  put16(out + 8, 0);
  put16(out + 10, 0);
  put16(out + 12, 0);
}

void store_env(Fpu& f, uint8_t* out) {
  GuestState* s = f.state();
  put32(out + 0, kReservedHigh | s->fcw);
  put32(out + 4, kReservedHigh | s->fsw);
  put32(out + 8, kReservedHigh | full_tag_word(f));
  put32(out + 12, s->x87_fip);
  put32(out + 16, 0);  // FCS, and FOP (this CPU family stores 0)
  put32(out + 20, 0);  // FDP: only kept for unmasked exceptions
  put32(out + 24, kReservedHigh);
}

// `stride`: 4 in the 32-bit layout, 2 in the 16-bit one.
void load_env(Fpu& f, const uint8_t* in, unsigned stride) {
  GuestState* s = f.state();
  s->fcw = loaded_fcw(get16(in + 0));
  uint16_t fsw = static_cast<uint16_t>(get16(in + stride) & ~kFswErrorSummary);
  if (fsw & kFswExceptions & ~s->fcw) fsw |= kFswErrorSummary;
  s->fsw = fsw;
  s->x87_top = (fsw >> 11) & 7;
  uint16_t tw = get16(in + 2 * stride);
  // Only "empty" survives a load; the rest is recomputed from contents.
  for (unsigned p = 0; p < 8; ++p) f.set_phys_tag(p, ((tw >> (2 * p)) & 3) == 3);
  if (stride == 4) std::memcpy(&s->x87_fip, in + 12, 4);
  else s->x87_fip = get16(in + 6);
}

void initialize(GuestState* s) {
  s->fcw = 0x37f;
  s->fsw = 0;
  s->ftw = 0xffff;
  s->x87_top = 0;
  s->x87_fip = 0;
  s->fop = 0;
}

}  // namespace

void x87_raise_pending(GuestState* s) { helper_raise_signal(s, SIGFPE); }

void x87_environment(Fpu& f, X87Op op, uint64_t addr, bool env16) {
  auto* mem = reinterpret_cast<uint8_t*>(addr);
  GuestState* s = f.state();
  const size_t env_bytes = env16 ? kEnv16Bytes : kEnvBytes;
  const unsigned stride = env16 ? 2 : 4;
  switch (op) {
    case X87Op::StoreEnv:
      env16 ? store_env16(f, mem) : store_env(f, mem);
      s->fcw |= kFswExceptions;  // fnstenv then masks all exceptions
      break;
    case X87Op::LoadEnv: load_env(f, mem, stride); break;
    case X87Op::Save:
      env16 ? store_env16(f, mem) : store_env(f, mem);
      for (unsigned i = 0; i < 8; ++i) {
        Float80 v = f.get(i);
        std::memcpy(mem + env_bytes + 10 * i, &v.sig, 8);
        std::memcpy(mem + env_bytes + 10 * i + 8, &v.se, 2);
      }
      initialize(s);
      break;
    default:  // Restore
      load_env(f, mem, stride);
      for (unsigned i = 0; i < 8; ++i) {
        Float80 v;
        std::memcpy(&v.sig, mem + env_bytes + 10 * i, 8);
        std::memcpy(&v.se, mem + env_bytes + 10 * i + 8, 2);
        f.phys_put(f.phys(i), v);
      }
      break;
  }
}

}  // namespace phybin::x86
