// What all guest threads of the process share: the code cache and what is
// known about the translations in it (block table, write protection of
// guest code, links between blocks), and their invalidation when guest
// code changes.  The threads themselves are GuestThread (guest_thread.h).
#pragma once

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <unordered_set>
#include <vector>

#include "arm64/backend.h"
#include "arm64/helper_table.h"
#include "common/mxcsr.h"
#include "runtime/block_table.h"
#include "runtime/code_cache.h"
#include "runtime/code_protect.h"
#include "runtime/fork_hints.h"
#include "runtime/perf_map.h"
#include "runtime/profile.h"
#include "common/shared_lock.h"
#include "runtime/translation_file.h"
#include "x86/frontend.h"

namespace phybin::runtime {

// Process::flush with other guest threads running (see there).
struct CacheFullWithThreads {};

class GuestThread;

// The lock of what the threads share in the Process: the code cache, the
// block table, code protection, links and invalidation (common/shared_lock.h:
// the host signal handlers take it too; one that interrupted its own
// thread's table work defers instead).
struct TablesTag;
using TablesLock = SharedLock<TablesTag>;
using TablesGuard = LockGuard<TablesLock>;

// The persistent translation cache (process_persist.cpp).
struct PersistOptions {
  std::string dir;  // empty: translations are neither loaded nor saved
  std::string guest_path;  // the program: its translations are one file
};

// A translation file loaded into the code cache: its blocks wait, dormant
// in the block table, until the guest runs code of their file; then they
// wake at the address the file has in this run (process_persist.cpp).
struct SavedCode {
  TranslationImage image;
  BlockTable::Index first = 0;  // the table index of image.blocks[0]
  struct File {
    bool woken = false;
    uint64_t file_start = 0;  // where it woke
    uint32_t entries_begin = 0, entries_end = 0;  // in image.entries
    uint32_t pages_begin = 0, pages_end = 0;    // in image.pages
    uint32_t links_begin = 0, links_end = 0;    // in image.links
  };
  std::vector<File> files;
  size_t waiting = 0;  // files not woken
};

// PHYBIN_TSO: when translated code keeps x86's memory order.
enum class TsoMode : uint8_t {
  Auto,    // from the second guest thread on (the cache is flushed then)
  Strict,  // always
  Off,     // never: threads may see each other's accesses out of order
};

struct RuntimeOptions {
  size_t cache_bytes = 64u << 20;
  bool strict_flags = false;
  bool host_crc32 = true;  // use the host's CRC32 instructions when it has them
  bool exact_mxcsr = false;  // PHYBIN_EXACT_MXCSR: MXCSR.DE for denormal inputs
  bool verify_ir = false;    // PHYBIN_IR_VERIFY: every block through ir::verify (the tests)
  bool host_pmull = true;  // its 64x64-bit PMULL
  bool host_aes = true;    // its AES instructions
  bool superblocks = true;  // x86::FrontendOptions::side_exits
  bool fp_regions = true;   // x86::FrontendOptions::fp_regions
  bool host_lse = true;    // its LSE atomics (ARMv8.1)
  TsoMode tso = TsoMode::Auto;
  unsigned max_block_insns = 48;
  bool perf_map = false;         // PHYBIN_PERF_MAP: /tmp/perf-PID.map
  bool perf_map_append = false;  // ...appended to: this process ran phybin before (an execve)
  std::string profile;           // PHYBIN_PROFILE: "1" (standard error) or a file; empty: off
  PersistOptions persist;
};

struct LookupEntry {
  uint64_t guest;
  const void* host;
};
inline constexpr size_t kLookupEntries = 1u << 16;  // the indirect-branch table

struct FreeDeleter {
  void operator()(LookupEntry* p) const { std::free(p); }
};
using LookupTable = std::unique_ptr<LookupEntry[], FreeDeleter>;
// Tables start and are cleared empty: no guest address matches an entry,
// so a guest jump to address 0 (or anywhere without code) misses and gets
// its SIGSEGV in the dispatcher.
LookupTable new_lookup_table();
void clear_lookup_table(LookupEntry* table, const void* empty_entry);
void set_unmatched_slots(LookupEntry* table, const void* empty_entry);

class Process {
 public:
  explicit Process(const RuntimeOptions& options);
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  const RuntimeOptions& options() const { return options_; }
  // What every thread's frontend may use of the host (its HWCAPs).
  const x86::FrontendOptions& frontend_options() const { return frontend_options_; }
  // The MXCSR modes of a guest thread's initial MXCSR.
  ir::FpMode initial_fp_mode() const { return ir::FpMode::of_mxcsr(mxcsr::kDefault, options_.exact_mxcsr); }
  CodeProtect& protect() { return protect_; }
  const arm64::HelperTable& helpers() const { return helpers_; }
  const BlockTable& blocks() const { return blocks_; }
  const arm64::Stubs& stubs() const { return cache_.stubs(); }
  bool in_code_cache(const void* pc) const { return cache_.contains(pc); }
  unsigned flush_count() const { return cache_.flush_count(); }
  // All misses: a thread's translated code looks here after force_exit or
  // an MXCSR mode change, so that its every indirect branch comes back to
  // the dispatcher.  Also what a thread's own table is emptied from.
  const LookupEntry* empty_lookup() const { return empty_lookup_.get(); }

  // ---- the guest threads (GuestThread registers itself)
  void add_thread(GuestThread& thread);
  void remove_thread(GuestThread& thread);
  // A guest thread calls exit: true when it is the last one running (the
  // process then ends), else it is no longer counted.
  bool last_thread_leaves();
  // In the child of a fork, under the tables' lock: `self` (the forking
  // thread) is the only guest thread (the others' objects stay, unused),
  // and the perf map is the child's own, naming every block there is.
  void in_forked_child(GuestThread& self);
  // What this process's forked children translated (GuestThread::
  // translate_for_children), and where a child tells its parent.
  ForkHints& fork_hints() { return fork_hints_; }
  // The parent translates its children's code only into a cache that
  // stays at most three quarters full: never a flush for a hint.
  bool room_for_hints() const { return cache_.free_words() * 4 > cache_.capacity_bytes() / 4; }
  // Written out at exit (PHYBIN_PERF_MAP).
  void flush_perf_map() { perf_map_.flush(); }
  // PHYBIN_PROFILE: the counters and the report at exit, for `program`.
  Profile& profile() { return profile_; }
  void report_profile(const std::string& program);
  // A second guest thread is about to start (the caller is the only one):
  // under PHYBIN_TSO=auto, code is translated in x86's memory order from
  // now on and what exists is flushed.  True when it flushed: the caller
  // must leave translated code before running more of it.
  bool order_memory_for_threads();
  // The lock of the tables (TablesLock).  Every method below takes it;
  // a thread's dispatcher holds it across a lookup, translation and link.
  TablesLock& tables() const { return tables_; }

  // ---- translation (GuestThread::translate builds the block)
  struct Emitted {
    const uint32_t* code;
    uint32_t words;
    arm64::AddressPool pool;
  };
  // Compiles `block` into the code cache, flushing the cache once when it
  // is full; `marks` and `indirect_entry` receive what the backend says of
  // the code (see arm64::compile_block).
  Emitted emit(const ir::Block& block, std::vector<arm64::InsnMark>& marks, uint32_t& indirect_entry);
  // Registers a block emit() just made: the block table, write protection
  // of the guest pages it was made from (its own and the frontend's
  // `lookahead`), the lookup table of every thread.
  BlockTable::Index add_block(const ir::Block& block, Emitted code, const std::vector<arm64::InsnMark>& marks,
                              uint32_t indirect_entry, const std::vector<std::pair<uint64_t, uint64_t>>& lookahead);
  // Patches the exit branch at `site` to jump straight to `target`.
  void link(uint32_t* site, BlockTable::Index target);
  // Drops every translation (code cache full).  With other guest threads
  // it throws CacheFullWithThreads instead: the dispatcher, out of the
  // tables' lock, then calls flush_with_threads_stopped.
  void flush();
  // Drops every translation while other guest threads run: they are kept
  // out of translated code until it is done (exits unlinked, lookups
  // emptied; each checks stopping() before it enters code and when a
  // system call returns).  The caller holds no lock and runs no
  // translated code.  `fp_mode`: translate in that mode from now on.
  void flush_with_threads_stopped(GuestThread& self, const ir::FpMode* fp_mode = nullptr);
  bool stopping() const { return stopping_.load(); }
  void wait_while_stopping() const;
  // A thread's MXCSR asks for translations of another kind (SSE exceptions
  // unmasked or masked again, another flush mode): everything made so far
  // goes.  `fp_mode` is the mode of what is translated from now on.
  void flush_for_fp_mode(const ir::FpMode& fp_mode);

  // ---- for signal handlers: safe there, allocate nothing
  // The guest instruction whose translated code holds `pc`, and where its
  // block's guest code begins and ends.
  struct RunningInsn {
    uint64_t guest_pc, block_start, block_end;
    // Nonzero: guest_pc is the start of an XMM commit region, to be run
    // again for `replay` instructions (ir::Inst::replay), FPSR first put
    // back to GuestState::region_fpsr when restores_fpsr.
    unsigned replay = 0;
    bool restores_fpsr = false;
  };
  bool running_insn(const void* pc, RunningInsn& out) const;
  // The start of a translated block whose guest code holds `rip`, or 0
  // (for a trap raised by a helper, where no host pc tells).
  uint64_t block_start_holding(uint64_t rip) const;
  // Puts back to the dispatcher the linked exits of the code a thread runs
  // at host `pc` (guest `rip`): see GuestThread::force_exit.
  void unlink_running(const void* pc, uint64_t rip);

  // ---- guest code changes
  // SIGSEGV handler: a write at `address`.  True when it hit a guest code
  // page phybin protected: the page is writable again and its translations
  // are dropped (now, or at the next dispatch when the tables are busy).
  bool handle_code_write(uint64_t address);
  bool invalidations_deferred() const { return deferred_count_ || deferred_overflow_; }
  // The dispatcher: drops what handle_code_write could not.
  void run_deferred_invalidations();
  // ProcessConfig::invalidate_code: guest memory [start, start + length)
  // was unmapped, remapped or changed protection.
  void invalidate(uint64_t start, uint64_t length);
  // The check at the end of the XMM commit region that starts at `start`
  // failed (ir FpRegionCheck): the blocks holding it are dropped, and from
  // now on it is translated with each operation checked (the frontend asks
  // region_check_failed, under the tables' lock).
  void note_region_check_failed(uint64_t start);
  bool region_check_failed(uint64_t start) const { return failed_region_checks_.contains(start); }
  // A system call failed with EFAULT: makes every protected guest page
  // writable again (dropping its code), as the host kernel cannot write
  // them.  False when none was protected.
  bool unprotect_all_code();

  // ---- persistent translations (process_persist.cpp)
  // Fills the empty code cache with the translations a previous run of the
  // same program saved (if any, and if they match).  Before the guest runs.
  void load_translations();
  // The dispatcher found no block at `pc`: if `pc` lies in a file whose
  // saved blocks still wait, they wake (moved to where the file is now) and
  // true is returned.  Under the tables' lock.
  bool wake_saved_code(uint64_t pc);
  // Saves the translations made from the program file's code for the next
  // run, unless nothing new was translated.  At exit.
  void save_translations();

  // ---- statistics
  // One line of translation statistics for PHYBIN_LOG_LEVEL >= 2.
  void log_stats() const;
  uint64_t blocks_translated() const { return blocks_translated_; }

 private:
  // Under the tables lock.
  template <typename Fn>
  void for_each_thread(Fn&& fn) {
    for (GuestThread* thread : threads_) fn(*thread);
  }
  bool other_threads() const;
  // What a flush does, under the tables' lock.
  void drop_everything();
  void enter_in_lookups(BlockTable::Index index);
  void protect_and_register(BlockTable::Index index, const ir::Block& block,
                            const std::vector<std::pair<uint64_t, uint64_t>>& lookahead);
  const uint32_t* try_emit(const ir::Block& block, std::vector<arm64::InsnMark>& marks, uint32_t& indirect_entry,
                           arm64::AddressPool& pool);
  // Drops the translations made from guest bytes in [begin, end).
  void drop_code(uint64_t begin, uint64_t end);
  bool in_indirect_lookup(const void* pc) const;
  // Persistent translations (process_persist.cpp).
  void setup_persistence();
  uint64_t settings_fingerprint() const;
  void place_saved_blocks(TranslationImage image);
  static void index_saved_files(SavedCode& saved, const TranslationImage& image);
  void wake_saved_file(uint32_t file, uint64_t file_start, const std::string& name);
  TranslationImage saved_image() const;

  RuntimeOptions options_;
  x86::FrontendOptions frontend_options_;
  CodeCache cache_;
  arm64::HelperTable helpers_;
  arm64::BackendConfig backend_;
  BlockTable blocks_;
  CodeProtect protect_;
  PerfMap perf_map_;  // PHYBIN_PERF_MAP
  ForkHints fork_hints_;
  Profile profile_;   // PHYBIN_PROFILE
  LookupTable empty_lookup_;
  // The mode the code in the cache was made for (save_translations).
  ir::FpMode fp_mode_;
  mutable TablesLock tables_;
  std::vector<GuestThread*> threads_;
  size_t live_threads_ = 0;  // threads_ less those that called exit
  std::atomic<bool> stopping_{false};  // flush_with_threads_stopped runs
  // Code pages written while the tables were busy (fault in the
  // dispatcher's own work): dropped at the next dispatch.
  static constexpr size_t kMaxDeferred = 64;
  uint64_t deferred_pages_[kMaxDeferred] = {};
  volatile sig_atomic_t deferred_count_ = 0;
  volatile sig_atomic_t deferred_overflow_ = 0;
  // Persistent translations: where and under which key, and what was
  // loaded (until a flush empties the cache).
  std::string persist_dir_, persist_name_;
  TranslationKey persist_key_;
  std::unique_ptr<SavedCode> saved_;
  uint64_t blocks_loaded_ = 0;
  uint64_t blocks_translated_ = 0;
  uint64_t guest_insns_translated_ = 0;
  // In a forked child: blocks_translated_ at the fork.  The parent saves
  // those when it exits; the child saves only when it adds enough of its
  // own (save_translations), or every child that exits would write the
  // whole image again.
  uint64_t blocks_at_fork_ = 0;
  std::unordered_set<uint64_t> failed_region_checks_;  // note_region_check_failed
};

}  // namespace phybin::runtime
