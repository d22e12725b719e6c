#include "runtime/runtime.h"

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/log.h"
#include "ir/passes.h"
#include "linux/syscalls.h"
#include "runtime/signals.h"
#include "x86/helpers.h"

namespace phybin::runtime {

namespace {

constexpr size_t kLookupEntries = 1u << 16;
Runtime* g_runtime = nullptr;

uint64_t syscall_entry(GuestState* s, uint64_t, uint64_t) {
  sys::handle_syscall(*s);
  return 0;
}

x86::Hooks make_hooks() {
  x86::Hooks hooks;
  hooks.syscall = &syscall_entry;
  hooks.raise_signal = &raise_guest_signal;
  return hooks;
}

}  // namespace

Runtime* Runtime::current() { return g_runtime; }

Runtime::Runtime(const RuntimeOptions& options)
    : options_(options), cache_(options.cache_bytes), frontend_(make_hooks(), x86::FrontendOptions{options.strict_flags}) {
  x86::set_helper_hooks(make_hooks());
  backend_.stubs = cache_.stubs();
  backend_.raise_signal = &raise_guest_signal;
  backend_.lookup_mask = kLookupEntries - 1;
  // Zero-filled pages: an empty entry {0, nullptr} sends a guest jump to
  // address 0 to host address 0, which faults just as the jump does natively.
  lookup_.reset(static_cast<LookupEntry*>(std::calloc(kLookupEntries, sizeof(LookupEntry))));
  g_runtime = this;
}

void Runtime::flush() {
  cache_.flush();
  blocks_.clear();
  std::memset(lookup_.get(), 0, kLookupEntries * sizeof(LookupEntry));
  logf(LogLevel::Info, "phybin: code cache flushed (%u so far)", cache_.flush_count());
}

void Runtime::link(uint32_t* site, const void* target) {
  if (arm64::Assembler::patch_b(site, target)) CodeCache::sync_icache(site, site + 1);
}

const void* Runtime::lookup_or_translate(uint64_t pc) {
  auto it = blocks_.find(pc);
  if (it != blocks_.end()) return it->second;
  return translate(pc);
}

const void* Runtime::emit_block(const ir::Block& block) {
  arm64::Assembler a(cache_.free_begin(), cache_.free_words());
  if (!arm64::compile_block(block, a, backend_)) return nullptr;
  const void* code = cache_.free_begin();
  log_block(block, code, a.size_words());
  cache_.commit(a.cursor());
  return code;
}

const void* Runtime::translate(uint64_t pc) {
  unsigned max_insns = options_.max_block_insns;
  for (;;) {
    ir::Block block = frontend_.translate(pc, max_insns);
    ir::optimize(block);
    try {
      const void* code = emit_block(block);
      if (!code) {
        // Cache full: start over with an empty cache.
        flush();
        code = emit_block(block);
        if (!code)
          throw Error(ErrorCode::PHYBIN_ERR_USAGE,
                      "PHYBIN_CACHE_SIZE is too small to hold a single block; raise it");
      }
      blocks_[pc] = code;
      lookup_[pc & (kLookupEntries - 1)] = LookupEntry{pc, code};
      ++blocks_translated_;
      guest_insns_translated_ += block.guest_insns;
      return code;
    } catch (const arm64::BlockTooComplex&) {
      if (block.guest_insns <= 1)
        throw Error(ErrorCode::PHYBIN_ERR_INTERNAL, "cannot allocate registers for the instruction at " +
                                                         std::to_string(pc));
      max_insns = block.guest_insns / 2;
    }
  }
}

void Runtime::log_stats() const {
  logf(LogLevel::Info, "phybin: %llu blocks translated (%llu guest instructions), code cache %zu of %zu KiB used, %u flushes",
       static_cast<unsigned long long>(blocks_translated_), static_cast<unsigned long long>(guest_insns_translated_),
       cache_.used_bytes() >> 10, cache_.capacity_bytes() >> 10, cache_.flush_count());
}

void Runtime::log_block(const ir::Block& block, const void* code, size_t words) const {
  if (!log_enabled(LogLevel::Debug)) return;
  std::string text = "phybin: block " + std::to_string(blocks_translated_) + "\n" +
                     frontend_.disassemble(block.guest_start, block.guest_end) + ir::print_block(block);
  char line[64];
  const auto* w = static_cast<const uint32_t*>(code);
  for (size_t i = 0; i < words; ++i) {
    std::snprintf(line, sizeof line, "  %p: %08x\n", static_cast<const void*>(w + i), w[i]);
    text += line;
  }
  log_line(LogLevel::Debug, text);
}

void Runtime::run(GuestState& state) {
  state.lookup_table = reinterpret_cast<uint64_t>(lookup_.get());
  state.lookup_mask = kLookupEntries - 1;
  state.exit_link = 0;
  for (;;) {
    unsigned flushes = cache_.flush_count();
    const void* code = lookup_or_translate(state.rip);
    // Link the exit we came from, unless a flush threw its code away.
    if (state.exit_link && cache_.flush_count() == flushes)
      link(reinterpret_cast<uint32_t*>(state.exit_link), code);
    cache_.stubs().enter(&state, code);
  }
}

}  // namespace phybin::runtime
