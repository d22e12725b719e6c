#include "famcost.h"

#include <cstring>
#include <stdexcept>

#include "arm64/backend.h"
#include "common/error.h"
#include "ir/passes.h"
#include "x86/frontend.h"

// The table of famcost_samples.S: {family, text, first byte, end, jcc} per
// row; jcc is null or an assembled jcc whose condition reads the flags.
struct FamcostRow {
  const char* family;
  const char* text;
  const uint8_t* begin;
  const uint8_t* end;
  const uint8_t* jcc;
};
extern "C" const FamcostRow famcost_samples[];
extern "C" const FamcostRow famcost_samples_end[];

namespace phybin::famcost {
namespace {

// The assembler macro keeps operands as written without the blanks after
// commas; put them back for people.
std::string readable(const char* text) {
  std::string out;
  for (const char* p = text; *p; ++p) {
    out += *p;
    if (*p == ',' && p[1] != ' ') out += ' ';
  }
  return out;
}

uint64_t no_syscall(GuestState*, uint64_t, uint64_t) { return 0; }
void no_signal(GuestState*, int) { std::abort(); }

// The condition of the jcc `jcc` points at (short 7x or near 0F 8x).
uint8_t jcc_condition(const uint8_t* jcc) {
  return (jcc[0] == 0x0F ? jcc[1] : jcc[0]) & 0xF;
}

// The guest code of one measurement: the instruction, the terminator (a
// jmp, or a jcc of a condition), and successors that write every arithmetic
// flag (`cmp eax, eax; ret`), so the exit's flag liveness is exactly what
// the terminator reads.
constexpr int kJmp = -1;  // the terminator is jmp, not a jcc
constexpr uint8_t kKillFlagsThenRet[] = {0x39, 0xC0, 0xC3};

std::vector<uint8_t> guest_code(const std::vector<uint8_t>& insn, int cond) {
  std::vector<uint8_t> code(insn);
  const int32_t skip = sizeof kKillFlagsThenRet;  // the jcc skips the fall-through successor
  if (cond == kJmp) {
    code.insert(code.end(), {0xE9, 0, 0, 0, 0});  // jmp to the next byte
  } else {
    code.insert(code.end(), {0x0F, uint8_t(0x80 | cond)});
    for (int i = 0; i < 4; ++i) code.push_back(uint8_t(uint32_t(skip) >> (8 * i)));
    code.insert(code.end(), std::begin(kKillFlagsThenRet), std::end(kKillFlagsThenRet));
  }
  code.insert(code.end(), std::begin(kKillFlagsThenRet), std::end(kKillFlagsThenRet));
  return code;
}

// The AArch64 branch encodings fast_path_words tells apart.
bool is_b(uint32_t w) { return (w & 0xFC000000u) == 0x14000000u; }
bool is_br_or_ret(uint32_t w) { return (w & 0xFFBFFC1Fu) == 0xD61F0000u; }  // not BLR
int64_t b_offset_words(uint32_t w) {
  return int64_t(int32_t(w << 6) >> 6);  // imm26, sign-extended
}

}  // namespace

long fast_path_words(const std::vector<uint32_t>& code) {
  std::vector<bool> seen(code.size());
  long count = 0;
  for (int64_t pc = 0; pc >= 0 && size_t(pc) < code.size() && !seen[size_t(pc)];) {
    seen[size_t(pc)] = true;
    ++count;
    const uint32_t w = code[size_t(pc)];
    if (is_br_or_ret(w)) break;
    pc = is_b(w) ? pc + b_offset_words(w) : pc + 1;
  }
  return count;
}

const std::vector<Sample>& samples() {
  static const std::vector<Sample> all = [] {
    std::vector<Sample> rows;
    for (const FamcostRow* r = famcost_samples; r != famcost_samples_end; ++r)
      rows.push_back({r->family, readable(r->text), std::vector<uint8_t>(r->begin, r->end),
                      r->jcc ? jcc_condition(r->jcc) : kCondZ});
    return rows;
  }();
  return all;
}

const Sample* find_sample(const std::string& text) {
  for (const Sample& s : samples())
    if (s.text == text) return &s;
  return nullptr;
}

struct Meter::Impl {
  x86::Frontend frontend{x86::Hooks{.syscall = &no_syscall, .raise_signal = &no_signal}};
  std::vector<uint32_t> host = std::vector<uint32_t>(1u << 16);
  std::vector<uint8_t> guest = std::vector<uint8_t>(4096);
  arm64::HelperTable helpers;
  arm64::BackendConfig config;
  size_t stub_words = 0;
  size_t last_words = 0;

  Impl() {
    arm64::Assembler stubs(host.data(), 1024);
    config.stubs = arm64::emit_stubs(stubs);
    stub_words = 1024;
    config.helpers = &helpers;
    config.raise_signal = &no_signal;
    config.lookup_mask = 0xffff;
  }

  struct Words {
    long fast = 0, all = 0;
  };

  // Host words of the block at the start of `code`; sets `helper` when the
  // optimised IR still calls C++.
  Words block_words(const std::vector<uint8_t>& code, bool& helper) {
    std::memcpy(guest.data(), code.data(), code.size());
    frontend.forget_code();
    ir::Block block = frontend.translate(reinterpret_cast<uintptr_t>(guest.data()), x86::kMaxBlockInsns);
    ir::optimize(block);
    for (const ir::Inst& inst : block.insts)
      if (!inst.dead && inst.op == ir::Opcode::CallHelper) helper = true;
    arm64::Assembler a(host.data() + stub_words, host.size() - stub_words);
    if (!arm64::compile_block(block, a, config)) throw std::runtime_error("host buffer too small");
    last_words = a.size_words();
    const uint32_t* first = host.data() + stub_words;
    return {fast_path_words(std::vector<uint32_t>(first, first + last_words)), long(last_words)};
  }

  Words added_words(const std::vector<uint8_t>& insn, int cond, bool& helper) {
    bool baseline_helper = false;
    const Words base = block_words(guest_code({}, cond), baseline_helper);
    const Words with = block_words(guest_code(insn, cond), helper);
    return {with.fast - base.fast, with.all - base.all};
  }
};

Meter::Meter() : impl_(std::make_unique<Impl>()) {}
Meter::~Meter() = default;

std::vector<uint32_t> Meter::last_block() const {
  const uint32_t* first = impl_->host.data() + impl_->stub_words;
  return std::vector<uint32_t>(first, first + impl_->last_words);
}

Cost Meter::measure(const std::vector<uint8_t>& insn, uint8_t live_cond) const {
  Cost cost;
  try {
    cost.zf_live = impl_->added_words(insn, live_cond & 0xF, cost.helper).fast;
    const Impl::Words dead = impl_->added_words(insn, kJmp, cost.helper);
    cost.flags_dead = dead.fast;
    cost.emitted = dead.all;
    cost.translated = true;
  } catch (const Error& e) {
    cost.error = format_error(e.code(), e.what());
  } catch (const std::exception& e) {
    cost.error = e.what();
  }
  return cost;
}

}  // namespace phybin::famcost
