// The lock of what guest threads share in the Process: the code cache, the
// block table, code protection, links and invalidation.
//
// A spin lock, re-entrant for the thread that holds it: the host signal
// handlers take it too (a fault of translated code looks its block up, a
// write to a code page drops translations), which a mutex does not allow.
// A handler on a thread that already holds it interrupted the dispatcher's
// own table work: it must not change the tables then, and asks
// held_here() first (code writes are deferred, see Process).  The holder
// never waits for another thread, so a handler spinning here is not a
// deadlock.
#pragma once

#include <sched.h>

#include <atomic>

namespace phybin::runtime {

class TablesLock {
 public:
  // Whether the calling thread holds the lock (a thread_local count: a
  // plain load in a signal handler).  There is one lock per process.
  static bool held_here() { return depth_ > 0; }
  void lock() {
    if (depth_++ > 0) return;
    while (flag_.test_and_set(std::memory_order_acquire)) sched_yield();
  }
  void unlock() {
    if (--depth_ == 0) flag_.clear(std::memory_order_release);
  }

 private:
  std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
  static inline thread_local int depth_ = 0;
};

class TablesGuard {
 public:
  explicit TablesGuard(TablesLock& lock) : lock_(lock) { lock_.lock(); }
  ~TablesGuard() { lock_.unlock(); }
  TablesGuard(const TablesGuard&) = delete;
  TablesGuard& operator=(const TablesGuard&) = delete;

 private:
  TablesLock& lock_;
};

}  // namespace phybin::runtime
