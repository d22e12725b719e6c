// A lock for what guest threads share, cheap while there is one thread.
//
// A spin lock, re-entrant for the thread that holds it (a count per thread
// and per Tag: each Tag names one lock of the process).  Host signal
// handlers may take it, which a mutex does not allow: a handler that
// interrupted its own thread inside the lock sees held_here() and must not
// change what the lock guards.  Holders never wait for another thread, so
// a handler spinning here is not a deadlock.  Until share() (a second
// guest thread is about to start) it only counts: a single-threaded
// program pays no atomic operation for it.
#pragma once

#include <sched.h>

#include <atomic>

namespace phybin {

template <typename Tag>
class SharedLock {
 public:
  static bool held_here() { return depth_ > 0; }
  void lock() {
    if (depth_++ > 0 || !shared_.load(std::memory_order_relaxed)) return;
    while (flag_.test_and_set(std::memory_order_acquire)) sched_yield();
  }
  void unlock() {
    if (--depth_ == 0 && shared_.load(std::memory_order_relaxed)) flag_.clear(std::memory_order_release);
  }
  // From now on it locks.  Called by the only thread, not holding it,
  // before it starts another: no lock taken before is released after.
  void share() { shared_.store(true, std::memory_order_relaxed); }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
  std::atomic<bool> shared_{false};
  static inline thread_local int depth_ = 0;
};

template <typename Lock>
class LockGuard {
 public:
  explicit LockGuard(Lock& lock) : lock_(lock) { lock_.lock(); }
  ~LockGuard() { lock_.unlock(); }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  Lock& lock_;
};

}  // namespace phybin
