// Guest threads for the callbacks a native library makes on threads of its
// own (PoCL runs event callbacks and native kernels on its workers, HIP
// its stream callbacks on a runtime thread).  Guest code needs a real
// guest thread there: TLS through FS (the stack protector's canary at
// %fs:0x28, errno), a stack, a signal mask.  Only the guest's own C
// library can make one, so the guest side (guest/callback_threads.c)
// makes them with pthread_create, and they wait in phybin for work:
//
//  - the first is started, on a guest thread inside a forwarded call, when
//    a guest function the library may call on its own threads is handed
//    over (`ensure_started`);
//  - a library thread's first callback adopts an idle one for the rest of
//    its life: callbacks of one library thread see one guest thread (its
//    thread-locals persist between them), those of two threads run
//    concurrently, as natively; the adopted thread first starts the next
//    idle one;
//  - the library thread waits while its guest thread runs the function;
//    when it exits, its guest thread returns.
//
// No fixed number of threads or callbacks.  While a guest thread waits,
// the host delivers asynchronous signals to other threads (it blocks
// them), so that a signal to the process reaches a guest thread that
// runs.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "common/guest_state.h"
#include "linux/syscalls.h"

namespace phybin::forward {

class CallbackThreads {
 public:
  CallbackThreads() = default;
  CallbackThreads(const CallbackThreads&) = delete;
  CallbackThreads& operator=(const CallbackThreads&) = delete;

  // PHYBIN_GUEST_CALL_REGISTER: the guest side's start function.
  void set_starter(uint64_t guest_fn);

  // On guest thread `st`, inside a forwarded call: the first callback
  // thread is started if it was not (a nested guest call).  `via` names
  // the forwarded function, for errors.
  void ensure_started(GuestState& st, const char* via);

  // PHYBIN_GUEST_CALL_SERVE on callback thread `st`: waits for work and
  // runs it; answers PHYBIN_SERVE_END or PHYBIN_SERVE_START_ANOTHER.
  uint64_t serve(GuestState& st, int64_t start_error);

  // A job for a callback thread: runs on its guest state.
  struct Job {
    void (*run)(GuestState& st, void* data);
    void* data;
    const char* via;  // the forwarded function the callback was handed to
  };
  // On a library thread (no guest state): runs `job` on this thread's
  // callback thread, adopting one on the first call, and waits for it.
  void run_on_callback_thread(const Job& job);

  // Around a guest fork: its lock; in the child the waiting guest threads
  // are gone, and the next callback handed over starts one again.
  void on_fork(sys::ForkStage stage);

  struct Server;

 private:
  void release(Server* server);
  friend struct Adoption;

  std::mutex mutex_;
  std::condition_variable idle_ready_;
  std::vector<Server*> idle_;
  uint64_t starter_ = 0;
  bool started_ = false;
};

}  // namespace phybin::forward
