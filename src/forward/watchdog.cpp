#include "forward/watchdog.h"

#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <new>
#include <string>

#include "common/error.h"
#include "common/log.h"
#include "linux/signal_delivery.h"

namespace phybin::forward {

namespace {

int64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

constexpr uint64_t kUserLimit = uint64_t{1} << 47;  // a return address is below it

// The guest's return addresses: the caller's (at RSP, where the call into
// the library's entry left it), then along the RBP chain while it looks
// like frames (code built without frame pointers ends it early).
std::string guest_backtrace(uint64_t rsp, uint64_t rbp) {
  std::string out;
  uint64_t ret = 0;
  if (!sys::guest_read(&ret, rsp, 8)) return " (stack unreadable)";
  char line[48];
  std::snprintf(line, sizeof line, " #0 %#" PRIx64, ret);
  out += line;
  for (int depth = 1; depth < 8 && rbp > rsp && rbp - rsp < (64u << 20); ++depth) {
    uint64_t frame[2];
    if (!sys::guest_read(frame, rbp, sizeof frame) || frame[1] < 0x1000 || frame[1] >= kUserLimit) break;
    std::snprintf(line, sizeof line, " #%d %#" PRIx64, depth, frame[1]);
    out += line;
    if (frame[0] <= rbp) break;
    rbp = frame[0];
  }
  return out;
}

}  // namespace

Watchdog::~Watchdog() {
  {
    const std::lock_guard<std::mutex> guard(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Watchdog::Slot& Watchdog::slot_of_this_thread() {
  if (t_slot) return *t_slot;
  t_slot = new Slot;
  const std::lock_guard<std::mutex> guard(mutex_);
  slots_.push_back(t_slot);
  if (!thread_.joinable()) thread_ = std::thread([this] { watch(); });
  return *t_slot;
}

void Watchdog::on_fork(sys::ForkStage stage) {
  if (stage == sys::ForkStage::Prepare) {
    mutex_.lock();
    return;
  }
  if (stage == sys::ForkStage::Child) {
    if (thread_.joinable()) thread_.detach();  // not in the child
    std::erase_if(slots_, [](const Slot* slot) { return slot != t_slot; });
    new (&wake_) std::condition_variable;  // the watcher may be counted as waiting
  }
  mutex_.unlock();
}

Watchdog::Call::Call(Watchdog& dog, const char* function, const uint64_t* args, const GuestState& st) : dog_(dog) {
  Slot& slot = dog_.slot_of_this_thread();
  Record now;
  now.since_ns = now_ns();
  now.function = function;
  for (int i = 0; i < 6; ++i) now.args[i] = args[i];
  now.rsp = st.gpr[RSP];
  now.rbp = st.gpr[RBP];
  const std::lock_guard<std::mutex> guard(slot.mutex);
  outer_ = slot.record;
  slot.record = now;
}

Watchdog::Call::~Call() {
  Slot& slot = dog_.slot_of_this_thread();
  const std::lock_guard<std::mutex> guard(slot.mutex);
  slot.record = outer_;
  if (slot.record.since_ns) slot.record.since_ns = now_ns();  // the outer call goes on from now
}

void Watchdog::check(Slot& slot, int64_t now) {
  Record r;
  {
    const std::lock_guard<std::mutex> guard(slot.mutex);
    if (!slot.record.since_ns || slot.record.reported || now - slot.record.since_ns < int64_t{seconds_} * 1000000000)
      return;
    slot.record.reported = true;
    r = slot.record;
  }
  char head[256];
  std::snprintf(head, sizeof head,
                "forwarded call %s(%#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64 ", %#" PRIx64
                ") has not returned after %u s; guest return addresses:",
                r.function, r.args[0], r.args[1], r.args[2], r.args[3], r.args[4], r.args[5], seconds_);
  const std::string message = head + guest_backtrace(r.rsp, r.rbp);
  if (abort_) fatal(ErrorCode::PHYBIN_ERR_WATCHDOG, message + " (PHYBIN_WATCHDOG_ACTION=abort)");
  log_line(LogLevel::Error, "phybin: watchdog: " + message);
}

void Watchdog::watch() {
  const auto period = std::chrono::milliseconds(seconds_ >= 4 ? 1000 : 250);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    const std::vector<Slot*> slots = slots_;
    lock.unlock();
    const int64_t now = now_ns();
    for (Slot* slot : slots) check(*slot, now);
    lock.lock();
  }
}

}  // namespace phybin::forward
