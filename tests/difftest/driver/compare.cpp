#include "compare.h"

#include "batch.h"

#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace difftest {
namespace {

const char* const kGprNames[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                   "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

// fxsave image offsets
constexpr int kFcw = 0, kFsw = 2, kFtw = 4, kMxcsr = 24, kSt = 32, kXmm = 160;
constexpr uint16_t kFswC1 = 1u << 9, kFswUe = 1u << 4, kFswPe = 1u << 5;

template <typename T>
T field(const dt_state& s, int offset) {
  T v;
  std::memcpy(&v, s.fx + offset, sizeof v);
  return v;
}

std::string hexbytes(const uint8_t* p, int n) {
  std::string out;
  char buf[4];
  for (int i = n - 1; i >= 0; --i) {  // most significant first
    std::snprintf(buf, sizeof buf, "%02x", p[i]);
    out += buf;
  }
  return out;
}

std::string line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string line(const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

// 80-bit values equal or neighbours (same sign, exponent:mantissa apart by 1).
bool within_one_ulp(const uint8_t* a, const uint8_t* b) {
  uint64_t ma, mb;
  uint16_t ea, eb;
  std::memcpy(&ma, a, 8);
  std::memcpy(&mb, b, 8);
  std::memcpy(&ea, a + 8, 2);
  std::memcpy(&eb, b + 8, 2);
  if (ea == eb && ma == mb) return true;
  if ((ea ^ eb) & 0x8000) return false;
  unsigned __int128 va = (static_cast<unsigned __int128>(ea & 0x7fff) << 63) | (ma & ~(1ull << 63));
  unsigned __int128 vb = (static_cast<unsigned __int128>(eb & 0x7fff) << 63) | (mb & ~(1ull << 63));
  return va + 1 == vb || vb + 1 == va;
}

void compare_fpu(const Case& c, size_t count, const dt_state& n, const dt_state& p, std::vector<std::string>& diffs) {
  const bool ulp = c.tolerance.x87_one_ulp;
  if (field<uint16_t>(n, kFcw) != field<uint16_t>(p, kFcw))
    diffs.push_back(line("FCW native %04x phybin %04x", field<uint16_t>(n, kFcw), field<uint16_t>(p, kFcw)));
  bool one_ulp_apart = false;
  for (int i = 0; i < 8; ++i) {
    const uint8_t* a = n.fx + kSt + 16 * i;
    const uint8_t* b = p.fx + kSt + 16 * i;
    if (std::memcmp(a, b, 10) == 0) continue;
    if (ulp && within_one_ulp(a, b)) one_ulp_apart = true;
    else diffs.push_back(line("ST%d native %s phybin %s", i, hexbytes(a, 10).c_str(), hexbytes(b, 10).c_str()));
  }
  uint16_t fsw_mask = static_cast<uint16_t>(~(ALL_CC & ~defined_fsw_after(c.insns, count)));
  if (ulp) fsw_mask &= static_cast<uint16_t>(~kFswC1);
  if (one_ulp_apart && c.tolerance.x87_ulp_flags) fsw_mask &= static_cast<uint16_t>(~(kFswUe | kFswPe));
  if ((field<uint16_t>(n, kFsw) ^ field<uint16_t>(p, kFsw)) & fsw_mask)
    diffs.push_back(line("FSW native %04x phybin %04x (compared bits %04x)", field<uint16_t>(n, kFsw),
                         field<uint16_t>(p, kFsw), fsw_mask));
  if (n.fx[kFtw] != p.fx[kFtw]) diffs.push_back(line("FTW native %02x phybin %02x", n.fx[kFtw], p.fx[kFtw]));
  const uint32_t mxcsr_mask = ~c.tolerance.mxcsr_ignored;
  if ((field<uint32_t>(n, kMxcsr) ^ field<uint32_t>(p, kMxcsr)) & mxcsr_mask)
    diffs.push_back(line("MXCSR native %08x phybin %08x", field<uint32_t>(n, kMxcsr), field<uint32_t>(p, kMxcsr)));
  for (int i = 0; i < 16; ++i) {
    const uint8_t* a = n.fx + kXmm + 16 * i;
    const uint8_t* b = p.fx + kXmm + 16 * i;
    if (std::memcmp(a, b, 16) != 0)
      diffs.push_back(line("XMM%d native %s phybin %s", i, hexbytes(a, 16).c_str(), hexbytes(b, 16).c_str()));
  }
}

}  // namespace

std::vector<std::string> compare_states(const Case& c, size_t count, const dt_state& n, const dt_state& p) {
  std::vector<std::string> diffs;
  if (n.signal != p.signal) {
    if (c.tolerance.phybin_sigill_ok && p.signal == SIGILL) return diffs;
    if (p.signal == kPhybinDied) {
      diffs.push_back(line("signal native %d phybin died (crash, hang or error: <tag>.deaths in the workdir)",
                           static_cast<int>(n.signal)));
      return diffs;
    }
    diffs.push_back(line("signal native %d phybin %d", static_cast<int>(n.signal), static_cast<int>(p.signal)));
    return diffs;
  }
  if (n.signal != 0) return diffs;  // both faulted the same way: the state at the fault is not saved
  for (int r = 0; r < 16; ++r)
    if (n.gpr[r] != p.gpr[r])
      diffs.push_back(line("%s native %016llx phybin %016llx", kGprNames[r], static_cast<unsigned long long>(n.gpr[r]),
                           static_cast<unsigned long long>(p.gpr[r])));
  const uint64_t flag_mask = defined_flags_after(c.insns, count) | DF;
  if ((n.rflags ^ p.rflags) & flag_mask)
    diffs.push_back(line("rflags native %llx phybin %llx (compared bits %llx)", static_cast<unsigned long long>(n.rflags),
                         static_cast<unsigned long long>(p.rflags), static_cast<unsigned long long>(flag_mask)));
  compare_fpu(c, count, n, p, diffs);
  for (int i = 0; i < DT_DATA_SIZE; i += 8)
    if (std::memcmp(n.mem + i, p.mem + i, 8) != 0)
      diffs.push_back(line("mem[0x%x] native %s phybin %s", DT_DATA_BASE + i, hexbytes(n.mem + i, 8).c_str(),
                           hexbytes(p.mem + i, 8).c_str()));
  return diffs;
}

bool ignored_mxcsr_difference(const Case& c, const dt_state& n, const dt_state& p) {
  return n.signal == 0 && p.signal == 0 &&
         ((field<uint32_t>(n, kMxcsr) ^ field<uint32_t>(p, kMxcsr)) & c.tolerance.mxcsr_ignored) != 0;
}

std::string format_state(const dt_state& s, const dt_state* reference) {
  std::string out;
  for (int r = 0; r < 16; ++r)
    out += line("  %-3s %016llx%s", kGprNames[r], static_cast<unsigned long long>(s.gpr[r]), r % 4 == 3 ? "\n" : "");
  out += line("  rflags %llx  signal %d\n", static_cast<unsigned long long>(s.rflags), static_cast<int>(s.signal));
  out += line("  FCW %04x FSW %04x FTW %02x MXCSR %08x\n", field<uint16_t>(s, kFcw), field<uint16_t>(s, kFsw), s.fx[kFtw],
              field<uint32_t>(s, kMxcsr));
  for (int i = 0; i < 8; ++i)
    out += line("  ST%d %s%s", i, hexbytes(s.fx + kSt + 16 * i, 10).c_str(), i % 4 == 3 ? "\n" : "");
  for (int i = 0; i < 16; ++i)
    out += line("  xmm%-2d %s%s", i, hexbytes(s.fx + kXmm + 16 * i, 16).c_str(), i % 2 == 1 ? "\n" : "");
  for (int i = 0; i < DT_DATA_SIZE; i += 8)
    if (!reference || std::memcmp(s.mem + i, reference->mem + i, 8) != 0)
      out += line("  mem[0x%x] %s\n", DT_DATA_BASE + i, hexbytes(s.mem + i, 8).c_str());
  return out;
}

}  // namespace difftest
