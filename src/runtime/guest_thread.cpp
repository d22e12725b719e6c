#include "runtime/guest_thread.h"

#include <time.h>

#include <atomic>
#include <cstring>
#include <string>

#include "common/error.h"
#include "common/log.h"
#include "ir/passes.h"
#include "linux/signal_delivery.h"
#include "linux/syscalls.h"
#include "runtime/host_disasm.h"
#include "runtime/signals.h"
#include "x86/lazy_flags.h"

namespace phybin::runtime {

namespace {

// A plain pointer in the executable's static TLS: a signal handler reads
// it without allocation or locks.
thread_local GuestThread* t_current = nullptr;

// Sets the current thread for the duration of run().
struct CurrentScope {
  explicit CurrentScope(GuestThread* thread) { t_current = thread; }
  ~CurrentScope() { t_current = nullptr; }
};

Error cannot_allocate(uint64_t pc) {
  return Error(ErrorCode::PHYBIN_ERR_INTERNAL, "cannot allocate registers for the instruction at " + std::to_string(pc));
}

// The x86::Hooks::native_call of forwarded functions (src/forward).
bool native_call_shape(uint64_t nr, ir::NativeCallShape& shape) {
  sys::ForwardedCalls* forwarded = sys::process().config.forwarded;
  return forwarded && nr - sys::ForwardedCalls::kFirst < sys::ForwardedCalls::kCount &&
         forwarded->direct_shape(static_cast<uint32_t>(nr - sys::ForwardedCalls::kFirst), shape);
}

// Every slot empty: the table of a process without forwarded libraries.
const void* const kNoForwardTable[sys::ForwardedCalls::kCount] = {};

}  // namespace

GuestThread* GuestThread::current() { return t_current; }

namespace {

// Hooks::region_check_failed, asked while translating.
bool region_check_failed(uint64_t guest) {
  GuestThread* thread = GuestThread::current();
  return thread && thread->process().region_check_failed(guest);
}

// PHYBIN_PROFILE's counter for the block being translated.
uint64_t* profile_block_counter(uint64_t guest) {
  GuestThread* thread = GuestThread::current();
  return thread && thread->process().profile().on() ? thread->process().profile().new_counter(guest) : nullptr;
}

}  // namespace

x86::Hooks GuestThread::hooks() {
  x86::Hooks hooks;
  hooks.block_counter = &profile_block_counter;
  hooks.syscall = &GuestThread::syscall_entry;
  hooks.int80 = &GuestThread::int80_entry;
  hooks.native_call = &native_call_shape;
  hooks.raise_signal = &raise_guest_signal;
  hooks.fp_traps_changed = &GuestThread::fp_traps_changed;
  hooks.region_check_failed = &region_check_failed;
  return hooks;
}

GuestThread::GuestThread(Process& process, GuestState& state)
    : process_(process), state_(&state), frontend_(hooks(), process.frontend_options()), lookup_(new_lookup_table()) {
  frontend_.set_fp_mode(process.initial_fp_mode());
  frontend_.set_code_memory(&process.protect());
  set_unmatched_slots(lookup_.get(), process.stubs().empty_entry);
  state.thread = this;
  process.add_thread(*this);
}

GuestThread::~GuestThread() {
  process_.remove_thread(*this);
  state_->thread = nullptr;
}

// A copy of the empty table, made once: cheaper than its loop (start-up).
void GuestThread::clear_lookup() {
  clear_lookup_table(lookup_.get(), process_.stubs().empty_entry);
}

BlockTable::Index GuestThread::lookup_or_translate(uint64_t pc) {
  BlockTable::Index b = process_.blocks().find_guest(pc);
  if (b == BlockTable::kNone && process_.wake_saved_code(pc)) b = process_.blocks().find_guest(pc);
  if (b == BlockTable::kNone) return translate(pc);
  // Made by another thread (only the translating thread's table gets a new
  // block), or dropped from this table by a slot collision.
  enter_in_lookup(process_.blocks().at(b));
  return b;
}

// The frontend's block at pc, optimised (and checked): what the backend gets.
ir::Block& GuestThread::build_block(uint64_t pc, unsigned max_insns) {
  if (forget_code_pending_) {
    frontend_.forget_code();
    forget_code_pending_ = false;
  }
  ir::Block& block = block_scratch_;
  frontend_.translate(pc, max_insns, block);
  ir::optimize(block);
  if (process_.options().verify_ir) ir::verify_or_throw(block);
  return block;
}

Process::Emitted GuestThread::emit(const ir::Block& block) {
  const Process::Emitted code = process_.emit(block, marks_, indirect_entry_);
  log_block(block, code);
  return code;
}

BlockTable::Index GuestThread::translate(uint64_t pc) {
  if (!process_.profile().on()) return translate_block(pc);
  timespec start{}, end{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  const BlockTable::Index index = translate_block(pc);
  clock_gettime(CLOCK_MONOTONIC, &end);
  process_.profile().add_translation_ns(static_cast<uint64_t>((end.tv_sec - start.tv_sec) * 1000000000LL +
                                                              (end.tv_nsec - start.tv_nsec)));
  return index;
}

BlockTable::Index GuestThread::translate_block(uint64_t pc) {
  // Code the guest cannot read is code it cannot run: SIGSEGV, as natively.
  CodeProtect& protect = process_.protect();
  if (!protect.prepare_page(pc & ~(protect.page_size() - 1))) return BlockTable::kNone;
  unsigned max_insns = process_.options().max_block_insns;
  for (;;) {
    ir::Block& block = build_block(pc, max_insns);
    try {
      const Process::Emitted code = emit(block);
      return process_.add_block(block, code, marks_, indirect_entry_, frontend_.lookahead());
    } catch (const arm64::BlockTooComplex&) {
      if (block.guest_insns <= 1) throw cannot_allocate(pc);
      max_insns = block.guest_insns / 2;
    }
  }
}

// One instruction, translated for a single run: not registered, so its
// page stays writable (see request_unprotected_step).
const uint32_t* GuestThread::translate_unregistered(uint64_t pc) {
  const TablesGuard guard(process_.tables());  // reads guest code (hold_code_readers)
  try {
    const Process::Emitted code = emit(build_block(pc, 1));
    step_ = Step{code.code, code.words, pc};
    return code.code;
  } catch (const arm64::BlockTooComplex&) {
    throw cannot_allocate(pc);
  }
}

bool GuestThread::step_holds(const void* pc, uint64_t& guest_pc) const {
  const auto* word = static_cast<const uint32_t*>(pc);
  if (!step_.code || word < step_.code || word >= step_.code + step_.words) return false;
  guest_pc = step_.pc;
  return true;
}

void GuestThread::translate_for_children() {
  ForkHints& hints = process_.fork_hints();
  try {
    hints.take([&](uint64_t pc, uint32_t* site, unsigned generation) {
      const TablesGuard guard(process_.tables());
      if (!process_.room_for_hints()) return false;
      // As the dispatcher: no link while a flush waits for threads to leave.
      const bool linkable = process_.flush_count() == generation && !process_.stopping();
      if (site && !linkable) return true;
      const BlockTable::Index block = lookup_or_translate(pc);
      if (site && block != BlockTable::kNone) process_.link(site, block);
      return true;
    });
  } catch (const CacheFullWithThreads&) {  // a block too big for the room: the next miss flushes
  }
  hints.prepare(process_.flush_count());
}

void GuestThread::raise_fetch_fault() {
  CodeProtect& protect = process_.protect();
  const uint64_t end = protect.executable_end(state_->rip);
  raise_exec_fault(*state_, end, protect.is_mapped(end));
}

void GuestThread::untranslatable() const {
  const std::string message = frontend_.untranslatable_message(state_->rip);
  if (!sys::guest_handles_fault(SIGILL)) fatal(ErrorCode::PHYBIN_ERR_ILLEGAL_INSTR, message);
  logf(LogLevel::Warn, "phybin: %s: the guest's SIGILL handler runs, as on a CPU without it", message.c_str());
}

void GuestThread::log_block(const ir::Block& block, Process::Emitted code) const {
  if (!log_enabled(LogLevel::Debug)) return;
  std::string text = "phybin: block " + std::to_string(process_.blocks_translated()) + "\n" +
                     frontend_.disassemble(block.guest_start, block.guest_end) + ir::print_block(block) +
                     disassemble_host(code.code, code.words);
  log_line(LogLevel::Debug, text);
}

bool GuestThread::leaves_native_call() {
  uint32_t in_call = 1;
  std::atomic_ref<uint32_t> mark(state_->native_call);
  if (mark.compare_exchange_strong(in_call, 2)) {
    logf(LogLevel::Info, "phybin: a guest thread is in a forwarded call: it goes to the dispatcher when it returns");
    return true;
  }
  return in_call == 2;
}

void GuestThread::start_state() {
  GuestState& state = *state_;
  state.lookup_mask = kLookupEntries - 1;
  state.helper_table = process_.helpers().entries();
  sys::ForwardedCalls* forwarded = sys::process().config.forwarded;
  state.forward_table = forwarded ? forwarded->direct_table() : kNoForwardTable;
  state.native_call = 0;
  state.exit_link = 0;
  state.fp_mode = ir::FpMode::of_mxcsr(state.mxcsr, process_.options().exact_mxcsr).bits();
}

// SSE exceptions unmasked or masked again, or another flush mode:
// translations change kind.
bool GuestThread::fp_mode_changed() const {
  return (state_->sse_trap_fpsr != 0) != frontend_.fp_traps() || state_->fp_mode != frontend_.fp_mode().bits();
}

void GuestThread::change_fp_mode() {
  const ir::FpMode mode = ir::FpMode::of_bits(state_->fp_mode);
  process_.flush_for_fp_mode(mode);
  frontend_.set_fp_traps(state_->sse_trap_fpsr != 0);
  frontend_.set_fp_mode(mode);
}

// Runs translated code from `code` until it leaves to the dispatcher: at
// a block exit, or through leave() from anywhere (a system call
// delivering a signal, a fault).
void GuestThread::enter(const uint32_t* code) {
  GuestThreadFlags& flags = thread_flags();
  flags.busy = 0;
  flags.in_guest = 1;
  // A signal that came while busy: its handler saw no code to stop.
  if (!sys::signals_pending()) process_.stubs().enter(state_, code);
  flags.in_guest = 0;
  flags.in_syscall = 0;
}

void GuestThread::run() {
  const CurrentScope scope(this);
  install_fault_handlers();
  start_state();
  dispatch(0);
}

// A guest function that native code calls on this thread (a forwarded
// library's callback, from inside the forwarded call): runs from
// state.rip until it returns to `stop`.  The thread is then back where it
// was, in the forwarded call.
//
// When the thread was in a forwarded function called from translated code
// (GuestState::native_call), the nested run is translated code like any
// other (the mark is 0 meanwhile, so flushes wait for it); afterwards the
// mark says 2 when a flush came or comes before the function returns, so
// that the native_call stub does not return into code that may be gone.
// The order matters: back in the cache first, then stopping is looked at.
void GuestThread::run_until(uint64_t stop) {
  const Where where = where_.load();
  std::atomic_ref<uint32_t> mark(state_->native_call);
  const uint32_t outer = mark.exchange(0);
  const unsigned generation = process_.flush_count();
  dispatch(stop);
  where_.store(where);
  if (outer != 0)
    mark.store(outer == 2 || process_.stopping() || process_.flush_count() != generation ? 2 : outer);
}

// The dispatcher: until the guest ends, or (stop != 0) reaches `stop`.
void GuestThread::dispatch(uint64_t stop) {
  GuestState& state = *state_;
  GuestThreadFlags& flags = thread_flags();
  unsigned generation = process_.flush_count();  // of the code the last exit left
  while (!ending_ && (stop == 0 || state.rip != stop)) {
    flags.busy = 1;
    // An indirect exit that missed the table with flags left lazy: they
    // become RFLAGS before anything (a handler, a system call) sees them.
    if (state.exit_link == arm64::kExitLazyFlags) {
      x86::materialise_lazy_flags(&state);
      state.exit_link = 0;
    }
    auto* site = reinterpret_cast<uint32_t*>(state.exit_link);
    state.exit_link = 0;
    if (process_.invalidations_deferred()) process_.run_deferred_invalidations();
    if (failed_region_) {
      process_.note_region_check_failed(failed_region_);
      failed_region_ = 0;
    }
    // A handler now runs instead of the exit's target: nothing to link
    // (and no replay of a region the handler interrupts).
    if ((sys::signals_pending() || sys::signals_held()) && sys::deliver_pending_signals(state)) {
      site = nullptr;
      replay_steps_ = 0;
    }
    if (fp_mode_changed()) {
      change_fp_mode();
      site = nullptr;
    }
    const uint32_t* code = nullptr;
    try {
      if (unprotected_step_ || replay_steps_) {
        const unsigned made = process_.flush_count();
        const uint32_t* step = translate_unregistered(state.rip);
        const bool ran = enter_if_current(step, made);
        step_ = Step{};
        if (ran) {
          if (unprotected_step_) unprotected_step_ = 0;
          else replay_steps_ = replay_steps_ - 1;
        }
        generation = process_.flush_count() + 1;  // its exit is not worth linking
        continue;
      }
      const TablesGuard guard(process_.tables());
      const BlockTable::Index block = lookup_or_translate(state.rip);
      if (block != BlockTable::kNone) {
        // Link the exit we came from, unless a flush threw its code away
        // (or is under way: the others must find their way out).
        if (site && process_.flush_count() == generation && !process_.stopping()) process_.link(site, block);
        generation = process_.flush_count();
        code = process_.blocks().at(block).host;
      }
    } catch (const CacheFullWithThreads&) {  // the tables' lock is let go by now
      process_.flush_with_threads_stopped(*this);
      continue;
    }
    if (!code) {
      if (!emulate_vsyscall()) raise_fetch_fault();
      continue;
    }
    enter_if_current(code, generation);
    sys::set_temporary_mask_syscall(false);
  }
}

// Stored before the check, both sequentially consistent, as the flusher
// sets `stopping` before it looks where the others are: either it sees
// this thread in the cache (and waits for it to come out), or this thread
// sees the flush (and waits for its end).
bool GuestThread::enter_if_current(const uint32_t* code, unsigned generation) {
  // Not in a forwarded function now, whatever a fault that left one said:
  // cleared before the thread shows in the cache, so that a flusher that
  // sees it there sees the 0 too.
  std::atomic_ref<uint32_t>(state_->native_call).store(0);
  where_.store(Where::InCache);
  if (process_.stopping() || process_.flush_count() != generation) {
    where_.store(Where::Outside);
    process_.wait_while_stopping();
    return false;
  }
  state_->lookup_table = reinterpret_cast<uint64_t>(lookup_.get());
  enter(code);
  where_.store(Where::Outside);
  return true;
}

void GuestThread::end() {
  ending_ = true;
  leave_to_dispatcher();
}

void run_guest_call(GuestState& state, uint64_t stop) {
  GuestThread* thread = GuestThread::of(&state);
  if (!thread) fatal(ErrorCode::PHYBIN_ERR_INTERNAL, "a guest call on a thread without guest state");
  thread->run_until(stop);
}

GuestState* current_guest_state() {
  GuestThread* thread = GuestThread::current();
  return thread ? &thread->state() : nullptr;
}

void guest_fork_stage(sys::ForkStage stage) {
  GuestThread* thread = GuestThread::current();
  if (!thread) fatal(ErrorCode::PHYBIN_ERR_INTERNAL, "a fork on a thread without guest state");
  Process& process = thread->process();
  switch (stage) {
    case sys::ForkStage::Prepare:
      thread->translate_for_children();
      process.tables().lock();
      break;
    case sys::ForkStage::Parent: process.tables().unlock(); break;
    case sys::ForkStage::Child:
      process.in_forked_child(*thread);
      process.tables().unlock();
      break;
  }
}

void invalidate_guest_code(uint64_t start, uint64_t length) {
  if (GuestThread* thread = GuestThread::current()) thread->process().invalidate(start, length);
}

// Translation reads guest code under the tables' lock (GuestThread::run),
// so holding it keeps every reader out.
void hold_code_readers(bool hold) {
  GuestThread* thread = GuestThread::current();
  if (!thread) return;
  if (hold) thread->process().tables().lock();
  else thread->process().tables().unlock();
}

}  // namespace phybin::runtime
