// PHYBIN_WATCHDOG: a forwarded call that has not returned after the set
// number of seconds (a kernel that never ends, a wait on an event nobody
// completes) is reported once, with the function, its first arguments and
// the guest's return addresses; with PHYBIN_WATCHDOG_ACTION=abort the
// program then stops with PHYBIN_ERR_WATCHDOG.  One host thread, started
// with the first watched call, watches every thread's innermost call.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "common/guest_state.h"
#include "linux/syscalls.h"

namespace phybin::forward {

class Watchdog {
 public:
  // Off when `seconds` is 0.
  Watchdog(unsigned seconds, bool abort) : seconds_(seconds), abort_(abort) {}
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  bool on() const { return seconds_ != 0; }
  // Around a guest fork: its lock; in the child its thread and the other
  // threads' calls are gone (the next watched call starts a thread again).
  void on_fork(sys::ForkStage stage);

  // What is known of a thread's call in progress.
  struct Record {
    int64_t since_ns = 0;  // 0: none
    const char* function = nullptr;
    uint64_t args[6] = {};
    uint64_t rsp = 0, rbp = 0;  // the guest's at the call
    bool reported = false;
  };

  // One thread's forwarded call, watched while the scope lives; calls
  // nest (a callback's own calls), the outer one is watched again after.
  class Call {
   public:
    Call(Watchdog& dog, const char* function, const uint64_t* args, const GuestState& st);
    ~Call();
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;

   private:
    Watchdog& dog_;
    Record outer_;
  };

 private:
  struct Slot {
    std::mutex mutex;
    Record record;
  };
  Slot& slot_of_this_thread();
  static inline thread_local Slot* t_slot = nullptr;
  void watch();
  void check(Slot& slot, int64_t now);

  unsigned seconds_;
  bool abort_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Slot*> slots_;  // never freed: a slot per thread that made a call
  std::thread thread_;
  bool stopping_ = false;
};

}  // namespace phybin::forward
