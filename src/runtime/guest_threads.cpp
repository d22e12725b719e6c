// Guest threads: clone with CLONE_THREAD starts a host thread of its own
// for the new guest thread, and exit ends it.
//
// The host thread is a pthread of phybin's libc (its TLS holds the
// runtime's per-thread state), so the kernel's CLONE_*TID services, which
// would act on the host thread, are done here for the guest's addresses:
// the TIDs are stored before clone returns in the parent, and the guest's
// clear_child_tid word is zeroed and woken (as the kernel does at a
// thread's exit) once the guest thread will touch its memory no more.
#include "runtime/guest_threads.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>

#include "common/log.h"
#include "linux/syscalls.h"
#include "runtime/guest_thread.h"
#include "runtime/signals.h"

namespace phybin::runtime {

namespace {

// Host stack of a guest thread's dispatcher and translator (the guest's
// own stack is guest memory).
constexpr size_t kHostStackBytes = size_t{2} << 20;

void store_tid(uint64_t address, int32_t tid) { std::memcpy(reinterpret_cast<void*>(address), &tid, sizeof tid); }

long futex(void* word, int op, int value) {
  return syscall(SYS_futex, word, op, value, nullptr, nullptr, 0);
}

// What the parent hands the child, on the parent's stack: the parent
// waits until the child has taken it and said its TID.
struct StartBlock {
  Process* process = nullptr;
  GuestState* state = nullptr;  // the child's, owned by the child from now on
  sys::ThreadStart start;
  std::atomic<int32_t> tid{0};  // the child's TID once it runs
};

// The kernel's work at a thread's exit, for the guest: clear_child_tid.
void clear_child_tid(uint64_t address) {
  if (!address) return;
  auto* word = reinterpret_cast<std::atomic<int32_t>*>(address);
  word->store(0, std::memory_order_release);
  futex(word, FUTEX_WAKE, 1);
}

void* host_thread_main(void* arg) {
  auto* block = static_cast<StartBlock*>(arg);
  Process& process = *block->process;
  std::unique_ptr<GuestState> state(block->state);
  const sys::ThreadStart start = block->start;
  const auto tid = static_cast<int32_t>(syscall(SYS_gettid));
  if (start.flags & CLONE_PARENT_SETTID) store_tid(start.parent_tid, tid);
  if (start.flags & CLONE_CHILD_SETTID) store_tid(start.child_tid, tid);
  state->clear_child_tid = (start.flags & CLONE_CHILD_CLEARTID) ? start.child_tid : 0;
  {
    GuestThread thread(process, *state);
    // From here the parent may return and its StartBlock be gone.
    block->tid.store(tid, std::memory_order_release);
    futex(&block->tid, FUTEX_WAKE_PRIVATE, 1);
    thread.run();
  }
  clear_child_tid(state->clear_child_tid);
  return nullptr;
}

// The child's registers: the parent's after its syscall instruction, with
// RAX 0, RCX and R11 as syscall leaves them, its own stack and TLS.
GuestState* child_state(const GuestState& parent, const sys::ThreadStart& start) {
  auto* child = new GuestState(parent);
  child->rip = parent.rip + kSyscallInsnBytes;
  child->gpr[RAX] = 0;
  child->gpr[RCX] = child->rip;
  child->gpr[R11] = parent.rflags;
  if (start.stack) child->gpr[RSP] = start.stack;
  if (start.flags & CLONE_SETTLS) {  // as arch_prctl(ARCH_SET_FS)
    child->fs_base = start.tls;
    child->selector[kFS] = 0;
  }
  child->thread = nullptr;
  child->exit_link = 0;
  child->lazy_flags_record = 0;
  child->clear_child_tid = 0;
  return child;
}

}  // namespace

int64_t start_guest_thread(GuestState& parent, const sys::ThreadStart& start) {
  GuestThread* self = GuestThread::of(&parent);
  if (!self) return -ENOSYS;
  // Before the child exists: the flush is safe while one thread runs, and
  // the parent then leaves the flushed block (below).
  const bool flushed = self->process().order_memory_for_threads();
  self->process().tables().share();
  StartBlock block;
  block.process = &self->process();
  block.start = start;
  block.state = child_state(parent, start);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, kHostStackBytes);
  pthread_t host;
  const int error = pthread_create(&host, &attr, host_thread_main, &block);
  pthread_attr_destroy(&attr);
  if (error) {
    delete block.state;
    return -EAGAIN;  // what clone says when no thread can be made
  }
  int32_t tid;
  while ((tid = block.tid.load(std::memory_order_acquire)) == 0) futex(&block.tid, FUTEX_WAIT_PRIVATE, 0);
  logf(LogLevel::Info, "phybin: guest thread %d started", tid);
  if (flushed) {  // as the syscall instruction ends, then to the dispatcher
    parent.gpr[RAX] = static_cast<uint64_t>(tid);
    finish_syscall_instruction(parent);
    self->leave_to_dispatcher();
  }
  return tid;
}

void exit_guest_thread(GuestState& st) {
  GuestThread* thread = GuestThread::of(&st);
  if (!thread || thread->process().last_thread_leaves()) return;
  thread->end();
}

void finish_main_thread(GuestState& st) {
  clear_child_tid(st.clear_child_tid);
  pthread_exit(nullptr);
}

}  // namespace phybin::runtime
