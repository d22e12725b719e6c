// The runtime: owns the code cache and the translation map, runs the
// dispatcher loop of the guest thread, and links blocks to each other.
#pragma once

#include <csignal>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <unordered_map>
#include <cstdlib>
#include <vector>

#include "arm64/backend.h"
#include "common/mxcsr.h"
#include "runtime/block_table.h"
#include "runtime/code_cache.h"
#include "runtime/code_protect.h"
#include "runtime/translation_file.h"
#include "x86/frontend.h"

namespace phybin::runtime {

// The persistent translation cache (runtime_persist.cpp).
struct PersistOptions {
  std::string dir;  // empty: translations are neither loaded nor saved
  std::string guest_path;
  uint64_t load_bias = 0;
  // The program file's code the guest cannot write: only blocks made from
  // these bytes are saved, as only they are the same in the next run.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
};

struct RuntimeOptions {
  size_t cache_bytes = 64u << 20;
  bool strict_flags = false;
  bool host_crc32 = true;  // use the host's CRC32 instructions when it has them
  bool exact_mxcsr = false;  // PHYBIN_EXACT_MXCSR: MXCSR.DE for denormal inputs
  bool verify_ir = false;    // PHYBIN_IR_VERIFY: every block through ir::verify (the tests)
  bool host_pmull = true;  // its 64x64-bit PMULL
  bool host_aes = true;    // its AES instructions
  unsigned max_block_insns = 48;
  PersistOptions persist;
};

struct LookupEntry {
  uint64_t guest;
  const void* host;
};
inline constexpr size_t kLookupEntries = 1u << 16;  // the indirect-branch table

class Runtime {
 public:
  explicit Runtime(const RuntimeOptions& options);
  // Runs the guest from state.rip; returns only if the guest thread ends
  // without exiting the process (never for now: exit_group exits).
  void run(GuestState& state);
  // Drops every translation (code cache full).
  void flush();

  static Runtime* current();
  // Fills the empty code cache with the translations a previous run of the
  // same program saved (if any, and if they match).  Before run().
  void load_translations();
  // Saves the translations made from the program file's code for the next
  // run, unless nothing new was translated.  At exit.
  void save_translations();
  // One line of translation statistics for PHYBIN_LOG_LEVEL >= 2.
  void log_stats() const;

  // ---- for signals and guest code changes (runtime_events.cpp)
  GuestState* guest_state() const { return state_; }
  const arm64::Stubs& stubs() const { return cache_.stubs(); }
  bool in_code_cache(const void* pc) const { return cache_.contains(pc); }
  // SIGSEGV handler: a write at `address`.  True when it hit a guest code
  // page phybin protected: the page is writable again and its translations
  // are dropped (now, or at the next dispatch when the tables are busy).
  bool handle_code_write(uint64_t address);
  // Safe in a signal handler: the guest instruction whose translated code
  // holds `pc`, and where its block's guest code begins and ends.
  struct RunningInsn {
    uint64_t guest_pc, block_start, block_end;
  };
  bool running_insn(const void* pc, RunningInsn& out) const;
  // Signal handler, for a guest fault at st.rip inside the block that
  // starts at block_start: the status flags the guest's handler must see
  // (fault_flags.cpp).  Allocates nothing.
  void repair_fault_flags(GuestState& st, uint64_t block_start) const;
  // The start of a translated block whose guest code holds `rip`, or 0
  // (for a trap raised by a helper, where no host pc tells).
  uint64_t block_start_holding(uint64_t rip) const;
  // The next dispatch runs the instruction at the guest RIP once from a
  // translation that protects nothing: a store into code further on in its
  // own block (handle_code_write dropped the block) must take effect before
  // that code runs, and the store must not fault again.
  void request_unprotected_step() { unprotected_step_ = 1; }
  // Async signal handler: makes the translated code running at host `pc`
  // come back to the dispatcher at its next block exit.
  void force_exit(const void* pc);
  // The guest instruction at st.rip runs into memory it cannot fetch:
  // queues its SIGSEGV.
  void raise_fetch_fault(GuestState& st);
  // The instruction at st.rip is one phybin does not translate: stops with
  // PHYBIN_ERR_ILLEGAL_INSTR unless the guest handles SIGILL (then the
  // caller delivers it, as a CPU without the instruction would).
  void untranslatable(const GuestState& st) const;
  // ProcessConfig::invalidate_code: guest memory [start, start + length)
  // was unmapped, remapped or changed protection.
  void invalidate(uint64_t start, uint64_t length);
  // The guest's `syscall` (CallHelper hook): the Linux layer's call, plus
  // rt_sigreturn and signal delivery at system calls.
  static uint64_t syscall_entry(GuestState* s, uint64_t, uint64_t);
  // Hooks::fp_traps_changed: MXCSR changed the translation mode.
  static void fp_traps_changed(GuestState* state);
  // The MXCSR modes of a guest thread's initial MXCSR.
  ir::FpMode initial_fp_mode() const { return ir::FpMode::of_mxcsr(mxcsr::kDefault, options_.exact_mxcsr); }

 private:
  // kNone when guest code at pc is not mapped (the guest then gets SIGSEGV).
  BlockTable::Index lookup_or_translate(uint64_t pc);
  BlockTable::Index translate(uint64_t pc);
  LookupEntry empty_lookup_entry(size_t slot) const;
  // Makes the indirect-branch table lead to the block.
  void enter_in_lookup(BlockTable::Index index);
  void clear_lookup(LookupEntry* table) const;
  const uint32_t* emit_block(const ir::Block& block);
  void link(uint32_t* site, BlockTable::Index target);
  void log_block(const ir::Block& block, const void* code, size_t words) const;
  void protect_and_register(BlockTable::Index index, const ir::Block& block);
  // Drops the translations made from guest bytes in [begin, end).
  void drop_code(uint64_t begin, uint64_t end);
  void run_deferred_invalidations();
  void system_call(GuestState& st);
  // A call into the x86-64 vsyscall page: emulated as Linux does; false
  // when st.rip is not one of its entries (or the return address cannot
  // be read), which then faults as any code fetch there.
  bool emulate_vsyscall(GuestState& st);
  void host_call(GuestState& st, bool interruptible);
  bool in_indirect_lookup(const void* pc) const;
  // Persistent translations (runtime_persist.cpp).
  void setup_persistence();
  uint64_t settings_fingerprint() const;
  bool persistable(BlockTable::Index block) const;
  bool pristine_page(uint64_t page) const;
  // The guest remapped or re-protected [begin, end): the program file's
  // code there may change, so translations made from it are not saved.
  void forget_pristine_code(uint64_t begin, uint64_t end);
  void place_saved_blocks(const TranslationImage& image);
  TranslationImage saved_image() const;

  RuntimeOptions options_;
  CodeCache cache_;
  x86::Frontend frontend_;
  arm64::HelperTable helpers_;
  arm64::BackendConfig backend_;
  BlockTable blocks_;
  CodeProtect protect_;
  std::vector<arm64::InsnMark> marks_;  // scratch of emit_block
  uint32_t indirect_entry_ = 0;          // emit_block's block's, in words
  ir::Block block_scratch_;             // scratch of translate
  struct FreeDeleter {
    void operator()(LookupEntry* p) const { std::free(p); }
  };
  std::unique_ptr<LookupEntry[], FreeDeleter> lookup_;
  // All misses: translated code looks here after force_exit(), so every
  // indirect branch comes back to the dispatcher.
  std::unique_ptr<LookupEntry[], FreeDeleter> empty_lookup_;
  GuestState* state_ = nullptr;
  // Code pages written while the tables were busy (fault in the
  // dispatcher's own work): dropped at the next dispatch.
  static constexpr size_t kMaxDeferred = 64;
  uint64_t deferred_pages_[kMaxDeferred] = {};
  volatile sig_atomic_t deferred_count_ = 0;
  volatile sig_atomic_t deferred_overflow_ = 0;
  bool forget_code_pending_ = false;  // frontend caches hold changed code
  volatile sig_atomic_t unprotected_step_ = 0;
  const uint32_t* translate_unregistered(uint64_t pc);
  ir::Block& build_block(uint64_t pc, unsigned max_insns);
  const uint32_t* emit_block_or_flush(const ir::Block& block);
  // Persistent translations: where and under which key; the program's
  // code ranges, each until the guest may have changed it.
  struct PersistRange {
    uint64_t begin, end;
    bool pristine;
  };
  static constexpr size_t kMaxPersistRanges = 8;
  static constexpr size_t kMaxDirtyPages = 64;  // more: whole ranges dirty
  uint64_t dirty_pages_[kMaxDirtyPages] = {};
  size_t dirty_page_count_ = 0;
  std::string persist_dir_, persist_name_;
  TranslationKey persist_key_;
  PersistRange persist_ranges_[kMaxPersistRanges] = {};
  size_t persist_range_count_ = 0;
  uint64_t blocks_loaded_ = 0;
  uint64_t blocks_translated_ = 0;
  uint64_t guest_insns_translated_ = 0;
};

// ProcessConfig::invalidate_code for the current runtime.
void invalidate_guest_code(uint64_t start, uint64_t length);

}  // namespace phybin::runtime
