// One guest thread: its guest state, its own frontend and translation
// scratch, its indirect-branch table, and the dispatcher loop that runs it.
// What the threads share is the Process (process.h).
//
// Signal handlers and the hooks of translated code find the thread without
// a global: the hooks get the GuestState, whose `thread` field points here
// (GuestThread::of); a host signal handler takes the thread it interrupted
// (GuestThread::current, a thread_local pointer: async-signal-safe, as the
// executable's own TLS needs no allocation).
#pragma once

#include <atomic>
#include <csignal>
#include <cstdint>
#include <vector>

#include "arm64/backend.h"
#include "common/guest_state.h"
#include "ir/ir.h"
#include "linux/syscalls.h"
#include "runtime/process.h"
#include "x86/frontend.h"

namespace phybin::runtime {

// The length of the syscall instruction (0f 05): where a system call
// returns to, and what RCX then holds.
inline constexpr uint64_t kSyscallInsnBytes = 2;

// The two ways into the kernel: syscall, and int 0x80 (the i386 call),
// which is two bytes long too but keeps RCX and R11.
enum class SyscallInsn : uint8_t { Syscall, Int80 };

// What the instruction does besides the call, for a guest that goes on
// from the dispatcher after it: RIP moves past it; syscall's RCX holds the
// next address and R11 RFLAGS.
inline void finish_syscall_instruction(GuestState& s, SyscallInsn insn = SyscallInsn::Syscall) {
  s.rip += kSyscallInsnBytes;
  if (insn == SyscallInsn::Int80) return;
  s.gpr[RCX] = s.rip;
  s.gpr[R11] = s.rflags;
}

class GuestThread {
 public:
  // Registers with `process` and points state.thread here.
  GuestThread(Process& process, GuestState& state);
  ~GuestThread();
  GuestThread(const GuestThread&) = delete;
  GuestThread& operator=(const GuestThread&) = delete;

  // Runs the guest from its state's rip; returns when the guest thread
  // calls exit while other threads go on (see end()).
  void run();
  void run_until(uint64_t stop);
  // The guest thread's exit (not the last one's): leaves translated code
  // for good; run() returns.
  [[noreturn]] void end();

  Process& process() const { return process_; }
  // Where the thread is, for a flush under threads
  // (Process::flush_with_threads_stopped): in translated code (or a
  // helper it called), in a guest system call, or outside both.
  enum class Where : int { Outside, InCache, InSyscall };
  Where where() const { return where_.load(); }
  // A flusher's question about a thread seen in translated code: true when
  // it is in a forwarded library's function called from there (ir
  // CallNative), which may block for long; the thread then leaves for
  // the dispatcher when the call returns, not back into the cache.
  bool leaves_native_call();
  GuestState& state() const { return *state_; }
  // The thread running on this host thread (inside run()), or nullptr.
  static GuestThread* current();
  // The thread whose guest state `state` is.
  static GuestThread* of(const GuestState* state) { return static_cast<GuestThread*>(state->thread); }
  // The hooks of translated code and helpers (x86::Hooks); they reach the
  // thread through the GuestState they get.
  static x86::Hooks hooks();
  // The helper of the syscall instruction (a guest system call or a
  // forwarded call), also ir CallNative's while its slot is empty.
  static uint64_t syscall_entry(GuestState* s, uint64_t, uint64_t);
  // The helper of `int 0x80` (x86::Hooks::int80).
  static uint64_t int80_entry(GuestState* s, uint64_t, uint64_t);

  // ---- for signal handlers and traps
  // Signal handler, for a guest fault at state().rip inside the block that
  // starts at block_start: the status flags the guest's handler must see
  // (fault_flags.cpp).  Allocates nothing.
  void repair_fault_flags(uint64_t block_start);
  // The next dispatch runs the instruction at the guest RIP once from a
  // translation that protects nothing: a store into code further on in its
  // own block (handle_code_write dropped the block) must take effect before
  // that code runs, and the store must not fault again.
  void request_unprotected_step() { unprotected_step_ = 1; }
  // A fault inside an XMM commit region, which starts at the guest RIP
  // (ir::Inst::replay): the next dispatches run `count` instructions from
  // there one at a time, each translated alone, so that the fault comes
  // again at its own instruction with the registers as the CPU leaves them.
  void request_replay(unsigned count) { replay_steps_ = count; }
  // ...because the check at the region's end failed: the next dispatch
  // has the region translated with each operation checked.
  void note_region_check_failed(uint64_t start) { failed_region_ = start; }
  // Whether host `pc` is in the one-instruction translation running now
  // (unprotected step or replay, not in the block table), and its guest pc.
  bool step_holds(const void* pc, uint64_t& guest_pc) const;
  // Async signal handler: makes the translated code running at host `pc`
  // come back to the dispatcher at its next block exit.
  void force_exit(const void* pc);
  // The guest instruction at rip runs into memory it cannot fetch: queues
  // its SIGSEGV.
  void raise_fetch_fault();
  // The instruction at rip is one phybin does not translate: stops with
  // PHYBIN_ERR_ILLEGAL_INSTR unless the guest handles SIGILL (then the
  // caller delivers it, as a CPU without the instruction would).
  void untranslatable() const;
  // Abandons translated code (and the helper it called) for the
  // dispatcher; the guest state must be in memory.
  [[noreturn]] void leave_to_dispatcher();

  // ---- for Process: its code changed (inline: run for every new block)
  void enter_in_lookup(const BlockInfo& info) {
    lookup_[info.guest_start & (kLookupEntries - 1)] = LookupEntry{info.lookup_key(), info.indirect_entry()};
  }
  // Any thread may drop an entry of this one's table while this one runs
  // translated code that reads it with one LDP, whose two halves are not
  // read as one: only the key changes (one 64-bit store), so a torn read
  // either misses or pairs the old key with the old code, which stays in
  // the cache until a flush (that stops every thread).
  void drop_from_lookup(const BlockInfo& info) {
    const size_t slot = info.guest_start & (kLookupEntries - 1);
    LookupEntry& e = lookup_[slot];
    if (e.guest == info.lookup_key() && e.host == info.indirect_entry())
      std::atomic_ref<uint64_t>(e.guest).store(process_.empty_lookup()[slot].guest, std::memory_order_relaxed);
  }
  void clear_lookup();
  // The frontend's caches may hold changed guest code: they are emptied
  // before the next translation (not here: a signal handler may call this).
  void code_changed() { forget_code_pending_ = true; }

 private:
  // The block at pc, found or translated, in this thread's lookup table;
  // kNone when guest code at pc is not mapped (the guest then gets
  // SIGSEGV).  Under the tables lock, as the use of what it returns.
  BlockTable::Index lookup_or_translate(uint64_t pc);
  BlockTable::Index translate(uint64_t pc);
  BlockTable::Index translate_block(uint64_t pc);
 public:
  // Before a fork (its Prepare stage, no lock held): translates what the
  // children of earlier forks translated and this process lacks (see
  // ForkHints), so that this fork's child finds it.
  void translate_for_children();

 private:
  ir::Block& build_block(uint64_t pc, unsigned max_insns);
  Process::Emitted emit(const ir::Block& block);
  const uint32_t* translate_unregistered(uint64_t pc);
  void log_block(const ir::Block& block, Process::Emitted code) const;
  void start_state();
  bool fp_mode_changed() const;
  void change_fp_mode();
  void enter(const uint32_t* code);
  // Guest system calls (guest_thread_events.cpp).
  static void fp_traps_changed(GuestState* state);
  void system_call();
  void ia32_system_call();
  // A call into the x86-64 vsyscall page: emulated as Linux does; false
  // when rip is not one of its entries (or the return address cannot be
  // read), which then faults as any code fetch there.
  bool emulate_vsyscall();
  void host_call(bool interruptible);
  // Back from a system call made by translated code: goes on in that code,
  // unless it was flushed since `generation` (or is about to be).
  void back_from_system_call(unsigned generation, SyscallInsn insn = SyscallInsn::Syscall);
  // Enters `code`, made at flush `generation`, unless a flush came since
  // or is under way; false then (look it up again).
  bool enter_if_current(const uint32_t* code, unsigned generation);
  void forwarded_call(uint32_t index);
  void dispatch(uint64_t stop);

  Process& process_;
  GuestState* state_;
  x86::Frontend frontend_;
  ir::Block block_scratch_;             // scratch of translate
  std::vector<arm64::InsnMark> marks_;  // scratch of emit
  uint32_t indirect_entry_ = 0;         // emit's block's, in words
  // The indirect-branch table this thread's translated code searches
  // (GuestState::lookup_table, unless switched to the empty one).
  LookupTable lookup_;
  bool forget_code_pending_ = false;  // frontend caches hold changed code
  bool ending_ = false;               // exit called: run() returns
  volatile sig_atomic_t unprotected_step_ = 0;
  volatile sig_atomic_t replay_steps_ = 0;  // request_replay
  uint64_t failed_region_ = 0;              // note_region_check_failed
  struct Step {
    const uint32_t* code = nullptr;
    uint32_t words = 0;
    uint64_t pc = 0;
  };
  Step step_;  // the one-instruction translation being run (step_holds)
  std::atomic<Where> where_{Where::Outside};
};

// ProcessConfig::invalidate_code: the process of the calling guest thread.
void invalidate_guest_code(uint64_t start, uint64_t length);
// sys::ProcessConfig::hold_code_readers.
void hold_code_readers(bool hold);
// sys::ProcessConfig::run_guest_call: GuestThread::run_until on the thread
// whose state this is.
void run_guest_call(GuestState& state, uint64_t stop);
// sys::ProcessConfig::current_guest_state.
GuestState* current_guest_state();
// sys::ProcessConfig::on_fork, on the forking guest thread.
void guest_fork_stage(sys::ForkStage stage);

}  // namespace phybin::runtime
