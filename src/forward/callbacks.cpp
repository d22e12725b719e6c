#include "forward/callbacks.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "arm64/backend.h"
#include "common/error.h"
#include "linux/syscalls.h"

namespace phybin::forward {

namespace {

// Where a callback's guest function returns to: no guest code can be at a
// non-canonical address, and the dispatcher stops there.
constexpr uint64_t kCallbackReturn = 0x7068600000000000ull;

constexpr size_t kStubBytes = arm64::kHostStubWords * 4;

}  // namespace

extern "C" void phybin_callback_entry();  // native_call.cpp

Callbacks::~Callbacks() {
  for (const auto& [page, bytes] : pages_) munmap(page, bytes);
}

void Callbacks::on_fork(sys::ForkStage stage) {
  if (stage == sys::ForkStage::Prepare) {
    mutex_.lock();
    threads_.on_fork(stage);
    return;
  }
  threads_.on_fork(stage);
  mutex_.unlock();
}

uint64_t Callbacks::guest_function(uint64_t host_fn) {
  const std::lock_guard<std::mutex> guard(mutex_);
  const auto it = guest_of_.find(host_fn);
  return it == guest_of_.end() ? host_fn : it->second;
}

uint64_t Callbacks::host_function(uint64_t guest_fn, const std::string& signature, const char* via) {
  const std::lock_guard<std::mutex> guard(mutex_);
  char key[32];
  std::snprintf(key, sizeof key, "%" PRIx64 "@", guest_fn);
  const std::string full_key = key + signature;
  if (auto it = by_key_.find(full_key); it != by_key_.end()) return it->second;
  std::string why = "a callback's signature phybin cannot read";
  const std::optional<Signature> sig = parse_signature(signature);
  std::optional<CallPlan> plan = sig ? plan_call(*sig, why) : std::nullopt;
  if (plan && (plan->guest_stack_words || plan->native_stack_words)) {
    plan.reset();
    why = "a callback with arguments on the stack";
  } else if (plan && (plan->result == ArgClass::Rec || plan->result == ArgClass::Mem)) {
    plan.reset();
    why = "a callback that returns a record";
  }
  if (!plan) fatal(ErrorCode::PHYBIN_ERR_FORWARD, std::string(via) + ": " + why + " (not forwarded yet)");
  if (left_ == 0) {
    const size_t bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* page = mmap(nullptr, bytes, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
      fatal(ErrorCode::PHYBIN_ERR_HOST_MMAP, std::string(via) + ": no executable memory for a callback stub");
    pages_.emplace_back(static_cast<uint32_t*>(page), bytes);
    next_ = static_cast<uint32_t*>(page);
    left_ = bytes / kStubBytes;
  }
  slots_.push_back(std::make_unique<Slot>(Slot{guest_fn, std::move(*plan), via, this}));
  uint32_t* stub = next_;
  arm64::write_host_stub(stub, reinterpret_cast<const void*>(&phybin_callback_entry), slots_.back().get());
  __builtin___clear_cache(reinterpret_cast<char*>(stub), reinterpret_cast<char*>(stub + arm64::kHostStubWords));
  next_ += arm64::kHostStubWords;
  --left_;
  by_key_.emplace(full_key, reinterpret_cast<uint64_t>(stub));
  guest_of_.emplace(reinterpret_cast<uint64_t>(stub), guest_fn);
  return reinterpret_cast<uint64_t>(stub);
}

// The arguments go where SysV puts them (the plan's `from`), taken from
// where AAPCS64 put them (its `to`); the guest function returns to
// kCallbackReturn, pushed on the guest stack below the red zone.
uint64_t call_guest(GuestState& st, uint64_t fn, const CallPlan* plan, NativeCall* frame) {
  const GuestState saved = st;
  auto* guest = reinterpret_cast<uint8_t*>(&st);
  const auto* native = reinterpret_cast<const uint8_t*>(frame);
  if (plan)
    for (const ArgMove& m : plan->moves) std::memcpy(guest + m.from, native + m.to, 8);
  uint64_t rsp = ((st.gpr[RSP] - 128) & ~uint64_t{15}) - 8;
  std::memcpy(reinterpret_cast<void*>(rsp), &kCallbackReturn, 8);  // guest addresses are host addresses
  st.gpr[RSP] = rsp;
  st.rip = fn;
  sys::process().config.run_guest_call(st, kCallbackReturn);
  const uint64_t result = st.gpr[RAX];
  if (frame) {
    frame->x0 = frame->x[0] = result;
    std::memcpy(&frame->d[0], &st.xmm[0], 8);
  }
  // All but the native-call mark, which the run left as it must be now
  // (GuestThread::run_until) and a flushing thread may change meanwhile
  // (and region_fpsr after it, which lives within one block's run).
  static_assert(offsetof(GuestState, region_fpsr) + sizeof(uint32_t) == sizeof(GuestState));
  std::memcpy(static_cast<void*>(&st), &saved, offsetof(GuestState, native_call));
  return result;
}

namespace {

struct PendingCallback {
  const Callbacks::Slot* slot;
  NativeCall* frame;
};

void run_pending(GuestState& st, void* data) {
  const auto* pending = static_cast<const PendingCallback*>(data);
  call_guest(st, pending->slot->guest_fn, &pending->slot->plan, pending->frame);
}

}  // namespace

void run_callback(const Callbacks::Slot& slot, NativeCall& frame) {
  const auto current = sys::process().config.current_guest_state;
  if (GuestState* st = current ? current() : nullptr) {
    call_guest(*st, slot.guest_fn, &slot.plan, &frame);
    return;
  }
  PendingCallback pending{&slot, &frame};
  slot.owner->threads().run_on_callback_thread({&run_pending, &pending, slot.via});
}

extern "C" void phybin_callback_dispatch(const Callbacks::Slot* slot, NativeCall* frame) { run_callback(*slot, *frame); }

}  // namespace phybin::forward
