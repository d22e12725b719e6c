#include "forward/callback_threads.h"

#include <pthread.h>
#include <signal.h>

#include <cstring>
#include <new>
#include <string>

#include "common/error.h"
#include "common/log.h"
#include "forward/callbacks.h"
#include "forward/guest_calls.h"

namespace phybin::forward {

// A callback thread's mailbox, guarded by the owner's mutex.
struct CallbackThreads::Server {
  std::condition_variable wake;
  const Job* job = nullptr;     // set by the adopting library thread
  bool done = false;            // the job ran
  bool start_another = false;   // adopted when no other was idle
  bool end = false;             // the library thread exited
};

namespace {

// On a callback thread: its mailbox (made by its first serve).
thread_local CallbackThreads::Server* t_server = nullptr;

}  // namespace

// On a library thread: the callback thread it adopted, given back when the
// thread exits (a thread_local's destructor runs then).
struct Adoption {
  CallbackThreads* owner = nullptr;
  CallbackThreads::Server* server = nullptr;
  ~Adoption() {
    if (server) owner->release(server);
  }
};

namespace {

thread_local Adoption t_adoption;

// While a callback thread waits: the host's asynchronous signals go to
// threads that run guest code (a fault in phybin still reaches it).
class AsyncSignalsBlocked {
 public:
  AsyncSignalsBlocked() {
    sigset_t all;
    sigfillset(&all);
    for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP}) sigdelset(&all, sig);
    pthread_sigmask(SIG_BLOCK, &all, &saved_);
  }
  ~AsyncSignalsBlocked() { pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }
  AsyncSignalsBlocked(const AsyncSignalsBlocked&) = delete;
  AsyncSignalsBlocked& operator=(const AsyncSignalsBlocked&) = delete;

 private:
  sigset_t saved_;
};

}  // namespace

void CallbackThreads::set_starter(uint64_t guest_fn) {
  const std::lock_guard<std::mutex> guard(mutex_);
  if (!starter_) starter_ = guest_fn;  // every guest side has one; any serves
}

void CallbackThreads::ensure_started(GuestState& st, const char* via) {
  uint64_t starter;
  {
    const std::lock_guard<std::mutex> guard(mutex_);
    if (started_) return;
    if (!starter_)
      fatal(ErrorCode::PHYBIN_ERR_FORWARD,
            std::string(via) + ": the guest side did not register its callback threads (not phybin's own build?)");
    started_ = true;
    starter = starter_;
  }
  const auto error = static_cast<int>(call_guest(st, starter, nullptr, nullptr));
  if (error != 0)
    fatal(ErrorCode::PHYBIN_ERR_FORWARD, std::string(via) +
                                             ": no guest thread for callbacks on the library's threads: "
                                             "the guest's pthread_create failed: " + std::strerror(error));
  logf(LogLevel::Debug, "phybin: %s: a guest thread waits for callbacks on the library's threads", via);
}

uint64_t CallbackThreads::serve(GuestState& st, int64_t start_error) {
  if (start_error != 0)
    fatal(ErrorCode::PHYBIN_ERR_FORWARD, std::string("no further guest thread for callbacks on the library's "
                                                     "threads: the guest's pthread_create failed: ") +
                                             std::strerror(static_cast<int>(start_error)));
  std::unique_lock<std::mutex> lock(mutex_);
  Server*& me = t_server;
  if (!me) {
    me = new Server;
    idle_.push_back(me);
    idle_ready_.notify_all();
  }
  for (;;) {
    {
      const AsyncSignalsBlocked blocked;
      me->wake.wait(lock, [me] { return me->job || me->start_another || me->end; });
    }
    if (me->start_another) {
      me->start_another = false;
      return PHYBIN_SERVE_START_ANOTHER;
    }
    if (me->end) {
      delete me;
      me = nullptr;
      return PHYBIN_SERVE_END;
    }
    const Job* job = me->job;
    lock.unlock();
    job->run(st, job->data);
    lock.lock();
    me->job = nullptr;
    me->done = true;
    me->wake.notify_all();
  }
}

void CallbackThreads::run_on_callback_thread(const Job& job) {
  std::unique_lock<std::mutex> lock(mutex_);
  Server*& server = t_adoption.server;
  if (!server) {
    if (!started_)
      fatal(ErrorCode::PHYBIN_ERR_FORWARD,
            std::string(job.via) + ": the library called a guest function back on a thread of its own, "
                                   "which its description does not allow (a 'callback' line of its notes)");
    idle_ready_.wait(lock, [this] { return !idle_.empty(); });
    server = idle_.back();
    idle_.pop_back();
    t_adoption.owner = this;
    server->start_another = idle_.empty();
    logf(LogLevel::Debug, "phybin: %s: a library thread adopts a guest thread for its callbacks", job.via);
  }
  server->job = &job;
  server->done = false;
  server->wake.notify_all();
  server->wake.wait(lock, [server] { return server->done; });
}

void CallbackThreads::on_fork(sys::ForkStage stage) {
  if (stage == sys::ForkStage::Prepare) {
    mutex_.lock();
    return;
  }
  if (stage == sys::ForkStage::Child) {
    idle_.clear();  // their threads are not in the child
    started_ = false;
    // Waiters the child lacks may be counted in it.
    new (&idle_ready_) std::condition_variable;
  }
  mutex_.unlock();
}

void CallbackThreads::release(Server* server) {
  const std::lock_guard<std::mutex> guard(mutex_);
  server->end = true;
  server->wake.notify_all();
}

}  // namespace phybin::forward
