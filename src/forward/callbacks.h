// Guest functions a native library calls: a guest function pointer handed
// to a forwarded call (clBuildProgram's notification, a destructor
// callback...) becomes a host function of its own (a stub, made once per
// guest function and signature, never freed: no fixed number), which moves
// its AAPCS64 arguments to SysV places and runs the guest function on the
// calling thread's guest state, then gives its result back.
//
// On a guest thread (which runs native code only inside a forwarded call:
// the library calls back before it returns), on that thread's guest state
// (sys::ProcessConfig::current_guest_state); on a thread the library
// created, on a guest thread of its own (callback_threads.h).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/guest_state.h"
#include "forward/callback_threads.h"
#include "forward/marshal.h"

namespace phybin::forward {

class Callbacks {
 public:
  Callbacks() = default;
  Callbacks(const Callbacks&) = delete;
  Callbacks& operator=(const Callbacks&) = delete;
  ~Callbacks();

  // The host function that calls `guest_fn` with `signature` ("RESULT :
  // ARG..."); `via` names the forwarded function it was handed to.
  uint64_t host_function(uint64_t guest_fn, const std::string& signature, const char* via);
  // The guest function a host function of ours stands for; else
  // `host_fn` itself.
  uint64_t guest_function(uint64_t host_fn);

  struct Slot {
    uint64_t guest_fn;
    CallPlan plan;
    const char* via;
    Callbacks* owner;
  };

  CallbackThreads& threads() { return threads_; }
  // Its lock around a guest fork (Forwarder::on_fork).
  void on_fork(sys::ForkStage stage);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, uint64_t> by_key_;  // "fn@signature" -> its stub
  std::unordered_map<uint64_t, uint64_t> guest_of_;    // stub -> its guest function
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::pair<uint32_t*, size_t>> pages_;  // executable stub pages, bytes
  uint32_t* next_ = nullptr;  // the next free stub in the last page
  size_t left_ = 0;           // stubs left there
  CallbackThreads threads_;
};

// Runs guest function `fn` on `st`, nested (the runtime's dispatcher until
// it returns), then puts `st` back as it was.  With a plan, its arguments
// come from `frame` (AAPCS64 places to SysV ones) and its result goes
// there; the result is also returned (RAX).
uint64_t call_guest(GuestState& st, uint64_t fn, const CallPlan* plan, NativeCall* frame);

// What a stub's entry does (native_call.cpp's assembly calls it): runs the
// guest function of `slot` with the arguments in `frame` (x0-x7, d0-d7 as
// NativeCall lays them out), the result back in frame x[0] / d[0].
void run_callback(const Callbacks::Slot& slot, NativeCall& frame);

}  // namespace phybin::forward
