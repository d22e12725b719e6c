#include "runtime/runtime.h"

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <iterator>
#include <string>

#include <sys/auxv.h>
#include <unistd.h>

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "common/error.h"
#include "common/log.h"
#include "ir/passes.h"
#include "linux/syscalls.h"
#include "runtime/host_disasm.h"
#include "x86/sse.h"
#include "runtime/signals.h"
#include "x86/helpers.h"
#include "x86/lazy_flags.h"

namespace phybin::runtime {

namespace {

Runtime* g_runtime = nullptr;

uint64_t host_page_size() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<uint64_t>(page) : 4096;
}

LookupEntry* new_lookup_table() {
  return static_cast<LookupEntry*>(std::malloc(kLookupEntries * sizeof(LookupEntry)));
}

// What the frontend may use of the host: the CRC32 instructions, the AES
// instructions and the 64x64-bit PMULL of the crypto extension are optional
// in ARMv8.0.  The settings can only turn them off (to test the helpers).
x86::FrontendOptions frontend_options(const RuntimeOptions& options) {
  x86::FrontendOptions out;
  out.strict_flags = options.strict_flags;
#if defined(__aarch64__)
  constexpr unsigned long kHwcapAes = 1ul << 3, kHwcapPmull = 1ul << 4, kHwcapCrc32 = 1ul << 7;
  const unsigned long hwcap = getauxval(AT_HWCAP);
  out.host_crc32 = options.host_crc32 && (hwcap & kHwcapCrc32) != 0;
  out.host_pmull = options.host_pmull && (hwcap & kHwcapPmull) != 0;
  out.host_aes = options.host_aes && (hwcap & kHwcapAes) != 0;
#else
  out.host_crc32 = options.host_crc32;
  out.host_pmull = options.host_pmull;
  out.host_aes = options.host_aes;
#endif
  return out;
}

x86::Hooks make_hooks() {
  x86::Hooks hooks;
  hooks.syscall = &Runtime::syscall_entry;
  hooks.raise_signal = &raise_guest_signal;
  hooks.fp_traps_changed = &Runtime::fp_traps_changed;
  return hooks;
}

}  // namespace

Runtime* Runtime::current() { return g_runtime; }

Runtime::Runtime(const RuntimeOptions& options)
    : options_(options),
      cache_(options.cache_bytes),
      frontend_(make_hooks(), frontend_options(options)),
      blocks_(host_page_size()),
      protect_(host_page_size()) {
  x86::set_helper_hooks(make_hooks());
  x86::sse::set_exact_flags(options.exact_mxcsr);
  frontend_.set_fp_mode(initial_fp_mode());
  frontend_.set_code_memory(&protect_);
  backend_.stubs = cache_.stubs();
  backend_.helpers = &helpers_;
  backend_.raise_signal = &raise_guest_signal;
  backend_.materialise_flags = &x86::materialise_lazy_flags;
  backend_.lookup_mask = kLookupEntries - 1;
  lookup_.reset(new_lookup_table());
  empty_lookup_.reset(new_lookup_table());
  LookupEntry* empty = empty_lookup_.get();
  for (size_t slot = 0; slot < kLookupEntries; ++slot) empty[slot] = empty_lookup_entry(slot);
  clear_lookup(lookup_.get());
  g_runtime = this;
}

void Runtime::flush() {
  cache_.flush();
  blocks_.clear();
  clear_lookup(lookup_.get());
  logf(LogLevel::Info, "phybin: code cache flushed (%u so far)", cache_.flush_count());
}

// An empty entry matches no guest address: a guest jump to address 0 (or
// anywhere without code) misses and gets its SIGSEGV in the dispatcher.
LookupEntry Runtime::empty_lookup_entry(size_t slot) const {
  return LookupEntry{arm64::empty_lookup_key(slot, kLookupEntries - 1), cache_.stubs().empty_entry};
}

// A copy of the empty table, made once: cheaper than its loop (start-up).
void Runtime::clear_lookup(LookupEntry* table) const {
  std::memcpy(static_cast<void*>(table), empty_lookup_.get(), kLookupEntries * sizeof(LookupEntry));
}

void Runtime::enter_in_lookup(BlockTable::Index index) {
  const BlockInfo& info = blocks_.at(index);
  lookup_[info.guest_start & (kLookupEntries - 1)] = LookupEntry{info.lookup_key(), info.indirect_entry()};
}

// `site` is an exit's B, or the conditional branch of a taken exit: that is
// patched when the target is within its reach, else the B its stub begins
// with (see exit_to).  Either way the branch's unlinked target is kept.
void Runtime::link(uint32_t* site, BlockTable::Index target) {
  const uint32_t* host = blocks_.at(target).host;
  for (;;) {
    auto* unlinked = const_cast<uint32_t*>(arm64::Assembler::branch_target(site));
    if (arm64::Assembler::patch_branch(site, host)) {
      CodeCache::sync_icache(site, site + 1);
      blocks_.add_link(site, unlinked, target);
      return;
    }
    if (!arm64::Assembler::is_conditional_branch(*site)) return;
    site = unlinked;
  }
}

BlockTable::Index Runtime::lookup_or_translate(uint64_t pc) {
  BlockTable::Index b = blocks_.find_guest(pc);
  return b != BlockTable::kNone ? b : translate(pc);
}

const uint32_t* Runtime::emit_block(const ir::Block& block) {
  arm64::Assembler a(cache_.free_begin(), cache_.free_words());
  if (!arm64::compile_block(block, a, backend_, &marks_, &indirect_entry_)) return nullptr;
  const uint32_t* code = cache_.free_begin();
  log_block(block, code, a.size_words());
  cache_.commit(a.cursor());
  return code;
}

// The pages the translation read (the block and the code looked at
// beyond it) are write-protected if the guest may write them, and the
// block is dropped when they change.
void Runtime::protect_and_register(BlockTable::Index index, const ir::Block& block) {
  const uint64_t size = protect_.page_size();
  uint64_t pages[16];
  size_t n = 0;
  auto add = [&](uint64_t begin, uint64_t end) {
    for (uint64_t p = begin & ~(size - 1); p < end; p += size) {
      bool known = false;
      for (size_t i = 0; i < n && !known; ++i) known = pages[i] == p;
      if (known) continue;
      if (n == std::size(pages)) {  // never in practice: register what we have
        for (size_t i = 0; i < n; ++i) blocks_.depends_on_page(index, pages[i]);
        n = 0;
      }
      pages[n++] = p;
      protect_.prepare_page(p);
    }
  };
  add(block.guest_start, block.guest_end);
  for (const auto& [begin, end] : frontend_.lookahead()) add(begin, end);
  for (size_t i = 0; i < n; ++i) blocks_.depends_on_page(index, pages[i]);
}

namespace {

Error cannot_allocate(uint64_t pc) {
  return Error(ErrorCode::PHYBIN_ERR_INTERNAL, "cannot allocate registers for the instruction at " + std::to_string(pc));
}

}  // namespace

// The frontend's block at pc, optimised (and checked): what the backend gets.
ir::Block& Runtime::build_block(uint64_t pc, unsigned max_insns) {
  if (forget_code_pending_) {
    frontend_.forget_code();
    forget_code_pending_ = false;
  }
  ir::Block& block = block_scratch_;
  frontend_.translate(pc, max_insns, block);
  ir::optimize(block);
  if (options_.verify_ir) ir::verify_or_throw(block);
  return block;
}

// Cache full: start over with an empty cache, once.
const uint32_t* Runtime::emit_block_or_flush(const ir::Block& block) {
  const uint32_t* code = emit_block(block);
  if (code) return code;
  flush();
  code = emit_block(block);
  if (!code) throw Error(ErrorCode::PHYBIN_ERR_USAGE, "PHYBIN_CACHE_SIZE is too small to hold a single block; raise it");
  return code;
}

BlockTable::Index Runtime::translate(uint64_t pc) {
  // Code the guest cannot read is code it cannot run: SIGSEGV, as natively.
  if (!protect_.prepare_page(pc & ~(protect_.page_size() - 1))) return BlockTable::kNone;
  unsigned max_insns = options_.max_block_insns;
  for (;;) {
    ir::Block& block = build_block(pc, max_insns);
    try {
      const uint32_t* code = emit_block_or_flush(block);
      const auto words = static_cast<uint32_t>(cache_.free_begin() - code);
      BlockTable::Index index = blocks_.add(block.guest_start, block.guest_end, code, words, marks_);
      blocks_.set_indirect_entry(index, indirect_entry_);
      protect_and_register(index, block);
      enter_in_lookup(index);
      ++blocks_translated_;
      guest_insns_translated_ += block.guest_insns;
      return index;
    } catch (const arm64::BlockTooComplex&) {
      if (block.guest_insns <= 1) throw cannot_allocate(pc);
      max_insns = block.guest_insns / 2;
    }
  }
}

void Runtime::raise_fetch_fault(GuestState& st) {
  const uint64_t end = protect_.executable_end(st.rip);
  raise_exec_fault(st, end, protect_.is_mapped(end));
}

void Runtime::untranslatable(const GuestState& st) const {
  const std::string message = frontend_.untranslatable_message(st.rip);
  if (!guest_handles_fault(SIGILL)) fatal(ErrorCode::PHYBIN_ERR_ILLEGAL_INSTR, message);
  logf(LogLevel::Warn, "phybin: %s: the guest's SIGILL handler runs, as on a CPU without it", message.c_str());
}

// One instruction, translated for a single run: not registered, so its
// page stays writable (see request_unprotected_step).
const uint32_t* Runtime::translate_unregistered(uint64_t pc) {
  try {
    return emit_block_or_flush(build_block(pc, 1));
  } catch (const arm64::BlockTooComplex&) {
    throw cannot_allocate(pc);
  }
}

// The block that changed MXCSR ends with an indirect exit (family_sse.cpp):
// with an empty table that exit comes back to the dispatcher, which then
// retranslates in the other mode.
void Runtime::fp_traps_changed(GuestState* state) {
  if (Runtime* rt = current()) state->lookup_table = reinterpret_cast<uint64_t>(rt->empty_lookup_.get());
}

void Runtime::log_stats() const {
  logf(LogLevel::Info,
       "phybin: %llu blocks translated (%llu guest instructions), %llu loaded, code cache %zu of %zu KiB used, "
       "%u flushes",
       static_cast<unsigned long long>(blocks_translated_), static_cast<unsigned long long>(guest_insns_translated_),
       static_cast<unsigned long long>(blocks_loaded_),
       cache_.used_bytes() >> 10, cache_.capacity_bytes() >> 10, cache_.flush_count());
}

void Runtime::log_block(const ir::Block& block, const void* code, size_t words) const {
  if (!log_enabled(LogLevel::Debug)) return;
  std::string text = "phybin: block " + std::to_string(blocks_translated_) + "\n" +
                     frontend_.disassemble(block.guest_start, block.guest_end) + ir::print_block(block) +
                     disassemble_host(static_cast<const uint32_t*>(code), words);
  log_line(LogLevel::Debug, text);
}

void Runtime::run(GuestState& state) {
  state_ = &state;
  install_fault_handlers();
  state.lookup_mask = kLookupEntries - 1;
  state.helper_table = helpers_.entries();
  state.exit_link = 0;
  state.fp_mode = ir::FpMode::of_mxcsr(state.mxcsr, options_.exact_mxcsr).bits();
  GuestThreadFlags& flags = thread_flags();
  unsigned generation = cache_.flush_count();  // of the code the last exit left
  for (;;) {
    flags.busy = 1;
    // An indirect exit that missed the table with flags left lazy: they
    // become RFLAGS before anything (a handler, a system call) sees them.
    if (state.exit_link == arm64::kExitLazyFlags) {
      x86::materialise_lazy_flags(&state);
      state.exit_link = 0;
    }
    auto* site = reinterpret_cast<uint32_t*>(state.exit_link);
    state.exit_link = 0;
    if (deferred_count_ || deferred_overflow_) run_deferred_invalidations();
    // A handler now runs instead of the exit's target: nothing to link.
    if ((signals_pending() || signals_held()) && deliver_pending_signals(state)) site = nullptr;
    // SSE exceptions unmasked or masked again, or another flush mode:
    // translations change kind.
    if ((state.sse_trap_fpsr != 0) != frontend_.fp_traps() || state.fp_mode != frontend_.fp_mode().bits()) {
      flush();
      frontend_.set_fp_traps(state.sse_trap_fpsr != 0);
      frontend_.set_fp_mode(ir::FpMode::of_bits(state.fp_mode));
      site = nullptr;
    }
    if (unprotected_step_) {
      unprotected_step_ = 0;
      const uint32_t* code = translate_unregistered(state.rip);
      flags.busy = 0;
      flags.in_guest = 1;
      if (!signals_pending()) cache_.stubs().enter(&state, code);
      flags.in_guest = 0;
      flags.in_syscall = 0;
      generation = cache_.flush_count() + 1;  // its exit is not worth linking
      continue;
    }
    BlockTable::Index block = lookup_or_translate(state.rip);
    if (block == BlockTable::kNone) {
      if (!emulate_vsyscall(state)) raise_fetch_fault(state);
      continue;
    }
    // Link the exit we came from, unless a flush threw its code away.
    if (site && cache_.flush_count() == generation) link(site, block);
    state.lookup_table = reinterpret_cast<uint64_t>(lookup_.get());
    generation = cache_.flush_count();
    flags.busy = 0;
    flags.in_guest = 1;
    // A signal that came while busy: its handler saw no code to stop.
    if (!signals_pending()) cache_.stubs().enter(&state, blocks_.at(block).host);
    // Back from a block exit, or from leave() out of anywhere (a system
    // call delivering a signal, a fault).
    flags.in_guest = 0;
    flags.in_syscall = 0;
    set_temporary_mask_syscall(false);
  }
}

}  // namespace phybin::runtime
