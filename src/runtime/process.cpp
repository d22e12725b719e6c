#include "runtime/process.h"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <string>

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

#include "common/error.h"
#include "common/log.h"
#include "runtime/guest_symbols.h"
#include "runtime/guest_thread.h"
#include "runtime/host_features.h"
#include "runtime/signals.h"
#include "x86/helpers.h"
#include "x86/lazy_flags.h"
#include "x86/sse.h"

namespace phybin::runtime {

namespace {

uint64_t host_page_size() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<uint64_t>(page) : 4096;
}


// What the frontend may use of the host: the CRC32 instructions, the AES
// instructions and the 64x64-bit PMULL of the crypto extension are optional
// in ARMv8.0.  The settings can only turn them off (to test the helpers).
x86::FrontendOptions host_frontend_options(const RuntimeOptions& options) {
  x86::FrontendOptions out;
  out.strict_flags = options.strict_flags;
  out.host_crc32 = options.host_crc32 && host_has(HostFeature::Crc32);
  out.host_pmull = options.host_pmull && host_has(HostFeature::Pmull);
  out.host_aes = options.host_aes && host_has(HostFeature::Aes);
  out.side_exits = options.superblocks;
  out.fp_regions = options.fp_regions;
  return out;
}

}  // namespace

bool host_has(HostFeature feature) {
#if defined(__aarch64__)
  for (const HostFeatureInfo& f : kHostFeatures)
    if (f.feature == feature) return (getauxval(AT_HWCAP) >> f.hwcap_bit) & 1;
#else
  (void)feature;
#endif
  return false;
}

// An empty table is zeroes (calloc: fresh pages, nothing written) but for
// the two slots where key 0 could match: the first compare's for guest
// address 0, the second's (the complement) for ~0.  Those two hold keys
// that match nothing (arm64::empty_lookup_key).
LookupTable new_lookup_table() {
  LookupTable table(static_cast<LookupEntry*>(std::calloc(kLookupEntries, sizeof(LookupEntry))));
  if (!table) throw std::bad_alloc();
  return table;
}

void clear_lookup_table(LookupEntry* table, const void* empty_entry) {
  std::memset(static_cast<void*>(table), 0, kLookupEntries * sizeof(LookupEntry));
  set_unmatched_slots(table, empty_entry);
}

void set_unmatched_slots(LookupEntry* table, const void* empty_entry) {
  for (size_t slot : {size_t{0}, kLookupEntries - 1})
    table[slot] = LookupEntry{arm64::empty_lookup_key(slot, kLookupEntries - 1), empty_entry};
}

Process::Process(const RuntimeOptions& options)
    : options_(options),
      frontend_options_(host_frontend_options(options)),
      cache_(options.cache_bytes),
      blocks_(host_page_size()),
      protect_(host_page_size()),
      empty_lookup_(new_lookup_table()),
      fp_mode_(initial_fp_mode()) {
  x86::set_helper_hooks(GuestThread::hooks());
  x86::sse::set_exact_flags(options.exact_mxcsr);
  backend_.stubs = cache_.stubs();
  backend_.helpers = &helpers_;
  backend_.raise_signal = &raise_guest_signal;
  backend_.syscall = &GuestThread::syscall_entry;
  backend_.materialise_flags = &x86::materialise_lazy_flags;
  backend_.lookup_mask = kLookupEntries - 1;
  backend_.lse = options.host_lse && host_has(HostFeature::Lse);
  backend_.lrcpc = host_has(HostFeature::Lrcpc);
  backend_.tso = options.tso == TsoMode::Strict;
  set_unmatched_slots(empty_lookup_.get(), cache_.stubs().empty_entry);
  if (options.perf_map) perf_map_.open(options.perf_map_append);
  if (!options.profile.empty()) {
    profile_.enable(options.profile);
    sys::count_syscalls();
  }
}

void Process::report_profile(const std::string& program) {
  if (!profile_.on()) return;
  const TablesGuard guard(tables_);
  Profile::Facts facts;
  facts.program = program;
  facts.blocks = blocks_translated_;
  facts.guest_insns = guest_insns_translated_;
  facts.flushes = cache_.flush_count();
  facts.cache_used = cache_.used_bytes();
  facts.cache_bytes = cache_.capacity_bytes();
  if (const sys::ForwardedCalls* forwarded = sys::process().config.forwarded) facts.forwarded_calls = forwarded->call_counts();
  facts.syscalls = sys::syscall_counts();
  GuestSymbols symbols;
  profile_.report(facts, [&](uint64_t guest) { return symbols.name_of(guest, false); });
}

// A thread that starts while code exists (a later guest thread) finds all
// of it from its first indirect branch, as the threads already running do.
void Process::add_thread(GuestThread& thread) {
  const TablesGuard guard(tables_);
  threads_.push_back(&thread);
  ++live_threads_;
  for (BlockTable::Index b = 0; b < blocks_.size(); ++b)
    if (blocks_.at(b).valid) thread.enter_in_lookup(blocks_.at(b));
}

void Process::remove_thread(GuestThread& thread) {
  const TablesGuard guard(tables_);
  std::erase(threads_, &thread);
}

bool Process::order_memory_for_threads() {
  const TablesGuard guard(tables_);
  if (options_.tso != TsoMode::Auto || backend_.tso) return false;
  backend_.tso = true;
  flush();
  logf(LogLevel::Info, "phybin: a second guest thread starts: translating in x86's memory order (PHYBIN_TSO=auto)");
  return true;
}

void Process::in_forked_child(GuestThread& self) {
  threads_.assign(1, &self);
  live_threads_ = 1;
  stopping_.store(false, std::memory_order_relaxed);
  fork_hints_.in_child(cache_.free_begin());
  blocks_at_fork_ = blocks_translated_;
  if (!perf_map_.on()) return;
  perf_map_.open(false);
  for (BlockTable::Index b = 0; b < blocks_.size(); ++b) {
    const auto& block = blocks_.at(b);
    if (block.valid) perf_map_.add(block.host, block.host_words * 4u, block.guest_start);
  }
}

bool Process::last_thread_leaves() {
  const TablesGuard guard(tables_);
  if (live_threads_ <= 1) return true;
  --live_threads_;
  return false;
}

// Only the translating thread: another thread may be searching its table,
// and an entry half written (the new guest address with the old host code)
// would run the wrong code.  The others find the block on their next miss
// (GuestThread::lookup_or_translate).  Dropping entries is safe from any
// thread: either half of an empty entry misses.
void Process::enter_in_lookups(BlockTable::Index index) {
  if (GuestThread* thread = GuestThread::current()) thread->enter_in_lookup(blocks_.at(index));
}

bool Process::other_threads() const {
  const TablesGuard guard(tables_);
  return threads_.size() > 1;
}

void Process::flush() {
  const TablesGuard guard(tables_);
  if (threads_.size() > 1) throw CacheFullWithThreads{};
  drop_everything();
}

void Process::drop_everything() {
  cache_.flush();
  saved_.reset();
  blocks_.clear();
  for_each_thread([](GuestThread& thread) { thread.clear_lookup(); });
  logf(LogLevel::Info, "phybin: code cache flushed (%u so far)", cache_.flush_count());
}

void Process::flush_for_fp_mode(const ir::FpMode& fp_mode) {
  GuestThread* self = GuestThread::current();
  if (self && other_threads()) return flush_with_threads_stopped(*self, &fp_mode);
  const TablesGuard guard(tables_);
  drop_everything();
  fp_mode_ = fp_mode;
}

// Another thread's flush is the one this thread wanted too (a full cache
// is empty after it); an MXCSR mode must still be set by its own.
void Process::flush_with_threads_stopped(GuestThread& self, const ir::FpMode* fp_mode) {
  bool idle = false;
  while (!stopping_.compare_exchange_strong(idle, true)) {
    idle = false;
    wait_while_stopping();
    if (!fp_mode) return;
  }
  {
    const TablesGuard guard(tables_);
    blocks_.unlink_all();
    for_each_thread([&](GuestThread& thread) {
      if (&thread != &self) thread.state().lookup_table = reinterpret_cast<uint64_t>(empty_lookup());
    });
  }
  for (bool waiting = true; waiting;) {  // each leaves at its next block exit
    waiting = false;
    {
      const TablesGuard guard(tables_);
      for_each_thread([&](GuestThread& thread) {
        waiting |= &thread != &self && thread.where() == GuestThread::Where::InCache && !thread.leaves_native_call();
      });
    }
    if (waiting) sched_yield();
  }
  {
    const TablesGuard guard(tables_);
    logf(LogLevel::Info, "phybin: the other %zu guest threads are out of translated code", threads_.size() - 1);
    drop_everything();
    if (fp_mode) fp_mode_ = *fp_mode;
  }
  stopping_.store(false);
}

void Process::wait_while_stopping() const {
  while (stopping_.load()) sched_yield();
}

// `site` is an exit's B, or the conditional branch of a taken exit: that is
// patched when the target is within its reach, else the B its stub begins
// with (see exit_to).  Either way the branch's unlinked target is kept.
// Another thread that left through the same exit may have linked it
// already: an unlinked exit branches forward within its own block, a linked
// one anywhere else (back to its own start, for a loop).  Linking it again
// would record the first link's target as "unlinked", which a later unlink
// would jump back to when that block is gone.
void Process::link(uint32_t* site, BlockTable::Index target) {
  const TablesGuard guard(tables_);
  fork_hints_.note_link(site, blocks_.at(target).guest_start, cache_.flush_count());
  const uint32_t* host = blocks_.at(target).host;
  const BlockTable::Index from = blocks_.find_host(site);
  if (from == BlockTable::kNone) return;
  const uint32_t* from_end = blocks_.at(from).host + blocks_.at(from).host_words;
  for (;;) {
    auto* unlinked = const_cast<uint32_t*>(arm64::Assembler::branch_target(site));
    if (unlinked <= site || unlinked >= from_end) return;
    if (arm64::Assembler::patch_branch(site, host)) {
      CodeCache::sync_icache(site, site + 1);
      blocks_.add_link(site, unlinked, target);
      return;
    }
    if (!arm64::Assembler::is_conditional_branch(*site)) return;
    site = unlinked;
  }
}

const uint32_t* Process::try_emit(const ir::Block& block, std::vector<arm64::InsnMark>& marks,
                                  uint32_t& indirect_entry, arm64::AddressPool& pool) {
  arm64::Assembler a(cache_.free_begin(), cache_.free_words());
  if (!arm64::compile_block(block, a, backend_, &marks, &indirect_entry, &pool)) return nullptr;
  const uint32_t* code = cache_.free_begin();
  cache_.commit(a.cursor());
  return code;
}

// Cache full: start over with an empty cache, once.
Process::Emitted Process::emit(const ir::Block& block, std::vector<arm64::InsnMark>& marks,
                               uint32_t& indirect_entry) {
  const TablesGuard guard(tables_);
  arm64::AddressPool pool;
  const uint32_t* code = try_emit(block, marks, indirect_entry, pool);
  if (!code) {
    flush();
    code = try_emit(block, marks, indirect_entry, pool);
  }
  if (!code) throw Error(ErrorCode::PHYBIN_ERR_USAGE, "PHYBIN_CACHE_SIZE is too small to hold a single block; raise it");
  return Emitted{code, static_cast<uint32_t>(cache_.free_begin() - code), pool};
}

BlockTable::Index Process::add_block(const ir::Block& block, Emitted code,
                                     const std::vector<arm64::InsnMark>& marks, uint32_t indirect_entry,
                                     const std::vector<std::pair<uint64_t, uint64_t>>& lookahead) {
  const TablesGuard guard(tables_);
  BlockTable::Index index = blocks_.add(block.guest_start, block.guest_end, code.code, code.words, marks);
  blocks_.set_indirect_entry(index, indirect_entry);
  blocks_.set_address_pool(index, code.pool);
  protect_and_register(index, block, lookahead);
  enter_in_lookups(index);
  ++blocks_translated_;
  guest_insns_translated_ += block.guest_insns;
  fork_hints_.note_block(block.guest_start);
  if (perf_map_.on()) perf_map_.add(code.code, code.words * 4u, block.guest_start);
  if (profile_.on()) profile_.block_registered(block.guest_insns);
  return index;
}

// The pages the translation read (the block and the code looked at
// beyond it) are write-protected if the guest may write them, and the
// block is dropped when they change.
void Process::protect_and_register(BlockTable::Index index, const ir::Block& block,
                                   const std::vector<std::pair<uint64_t, uint64_t>>& lookahead) {
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
  for (const auto& [begin, end] : lookahead) add(begin, end);
  for (size_t i = 0; i < n; ++i) blocks_.depends_on_page(index, pages[i]);
}

bool Process::running_insn(const void* pc, RunningInsn& out) const {
  const TablesGuard guard(tables_);
  BlockTable::Index b = blocks_.find_host(pc);
  if (b == BlockTable::kNone) return false;
  out.guest_pc = blocks_.guest_pc_at(b, pc, &out.replay, &out.restores_fpsr);
  out.block_start = blocks_.at(b).guest_start;
  out.block_end = blocks_.at(b).guest_end;
  return true;
}

uint64_t Process::block_start_holding(uint64_t rip) const {
  // Blocks are at most a few hundred bytes of guest code: look back that far.
  constexpr uint64_t kLookBack = 1024;
  const TablesGuard guard(tables_);
  for (uint64_t k = 0; k <= kLookBack && k <= rip; ++k) {
    const BlockTable::Index b = blocks_.find_guest(rip - k);
    if (b != BlockTable::kNone && blocks_.at(b).valid && blocks_.at(b).guest_end > rip) return rip - k;
  }
  return 0;
}

// Inside a helper the running blocks are those whose guest range holds the
// helper's instruction; anywhere else (the stubs, the dispatcher about to
// enter) any block may be next: unlink them all.  So too when the block is
// inside its indirect-branch lookup, past the load of the table: it may
// still jump to a block found in the real one.
void Process::unlink_running(const void* pc, uint64_t rip) {
  const TablesGuard guard(tables_);
  BlockTable::Index b = blocks_.find_host(pc);
  if (b != BlockTable::kNone && !in_indirect_lookup(pc)) blocks_.unlink_exits_of(b);
  else if (!cache_.contains(pc)) blocks_.unlink_exits_of_blocks_at(rip);
  else blocks_.unlink_all();
}

// The inline lookup (compile_exit.cpp, exit_indirect) ends with `br x2`
// five instructions after the load of the table, or at most eleven on
// its second compare (which writes a lazy flags record of up to four
// instructions).  Seen a little early, the cost is unlinking everything.
bool Process::in_indirect_lookup(const void* pc) const {
  constexpr uint32_t kBrX2 = 0xd61f0040;
  const auto* w = static_cast<const uint32_t*>(pc);
  for (int i = 0; i < 12 && cache_.contains(w + i); ++i)
    if (w[i] == kBrX2) return true;
  return false;
}

// Reached from the SIGSEGV handler.  When the tables are not busy the
// fault came from a guest store (translated code, a helper, the Linux
// layer writing guest memory), never from inside malloc: dropping the
// translations here, which frees table nodes, is safe.
bool Process::handle_code_write(uint64_t address) {
  // Interrupting its own thread's table work, the handler only defers.
  const bool busy = TablesLock::held_here() || thread_flags().busy;
  const TablesGuard guard(tables_);
  if (!protect_.unprotect_on_write(address)) return false;
  const uint64_t page = address & ~(protect_.page_size() - 1);
  logf(LogLevel::Debug, "phybin: guest wrote its code page %#llx: translations dropped",
       static_cast<unsigned long long>(page));
  if (busy) {
    const sig_atomic_t n = deferred_count_;
    if (n < static_cast<sig_atomic_t>(kMaxDeferred)) {
      deferred_pages_[n] = page;
      deferred_count_ = n + 1;
    } else {
      deferred_overflow_ = 1;
    }
    return true;
  }
  drop_code(page, page + protect_.page_size());
  return true;
}

// The dropped blocks leave every thread's lookup table, and every frontend
// forgets what it learnt about the code before its next translation.
void Process::drop_code(uint64_t begin, uint64_t end) {
  GuestThreadFlags& flags = thread_flags();
  const sig_atomic_t was_busy = flags.busy;
  flags.busy = 1;
  size_t n = blocks_.invalidate(begin, end, [&](const BlockInfo& info) {
    for_each_thread([&](GuestThread& thread) { thread.drop_from_lookup(info); });
  });
  if (n) for_each_thread([](GuestThread& thread) { thread.code_changed(); });
  flags.busy = was_busy;
}

void Process::run_deferred_invalidations() {
  const TablesGuard guard(tables_);
  if (deferred_overflow_) {
    deferred_overflow_ = 0;
    deferred_count_ = 0;
    drop_code(0, ~uint64_t{0});
    return;
  }
  while (deferred_count_ > 0) {
    const sig_atomic_t n = deferred_count_ - 1;
    const uint64_t page = deferred_pages_[n];
    deferred_count_ = n;
    drop_code(page, page + protect_.page_size());
  }
}

void Process::invalidate(uint64_t start, uint64_t length) {
  const TablesGuard guard(tables_);
  GuestThreadFlags& flags = thread_flags();
  const sig_atomic_t was_busy = flags.busy;
  flags.busy = 1;
  protect_.forget(start, length);
  const uint64_t end = start + length < start ? ~uint64_t{0} : start + length;
  if (blocks_.has_code_in(start, end)) drop_code(start, end);
  flags.busy = was_busy;
}

void Process::note_region_check_failed(uint64_t start) {
  const TablesGuard guard(tables_);
  logf(LogLevel::Debug, "phybin: the XMM region at %#llx checks each operation from now on",
       static_cast<unsigned long long>(start));
  failed_region_checks_.insert(start);
  if (blocks_.has_code_in(start, start + 1)) drop_code(start, start + 1);
}

bool Process::unprotect_all_code() {
  const TablesGuard guard(tables_);
  if (!protect_.any_protected()) return false;
  protect_.unprotect_all([&](uint64_t page) { drop_code(page, page + protect_.page_size()); });
  return true;
}

void Process::log_stats() const {
  const TablesGuard guard(tables_);
  logf(LogLevel::Info,
       "phybin: %llu blocks translated (%llu guest instructions), %llu loaded, code cache %zu of %zu KiB used, "
       "%u flushes",
       static_cast<unsigned long long>(blocks_translated_), static_cast<unsigned long long>(guest_insns_translated_),
       static_cast<unsigned long long>(blocks_loaded_),
       cache_.used_bytes() >> 10, cache_.capacity_bytes() >> 10, cache_.flush_count());
}

}  // namespace phybin::runtime
