// Waiting on descriptors: poll, select, epoll, eventfd.  AArch64 has only
// ppoll, pselect6 and epoll_pwait, and its struct epoll_event is 16 bytes
// where x86-64's is packed into 12.
#include <sys/epoll.h>
#include <sys/time.h>

#include <algorithm>
#include <climits>
#include <ctime>

#include "linux/abi_convert.h"
#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

int64_t sys_poll(const SyscallArgs& s) {
  const int timeout_ms = static_cast<int>(s.a[2]);
  struct timespec timeout {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  // A negative timeout waits for ever.
  struct timespec* timeout_ptr = timeout_ms < 0 ? nullptr : &timeout;
  return interruptible_syscall(s, SYS_ppoll, s.a[0], s.a[1], timeout_ptr, nullptr, kX86SigsetSize);
}

// select takes a timeval and, like the kernel's, writes back what remains.
int64_t sys_select(const SyscallArgs& s) {
  struct timespec timeout {};
  struct timespec* timeout_ptr = nullptr;
  struct timeval* guest_tv = guest_ptr<struct timeval>(s.a[4]);
  if (guest_tv != nullptr) {
    if (unmapped_guest_ptr(s.a[4])) return -EFAULT;
    if (guest_tv->tv_sec < 0 || guest_tv->tv_usec < 0) return -EINVAL;
    timeout.tv_sec = guest_tv->tv_sec + guest_tv->tv_usec / 1000000;
    timeout.tv_nsec = (guest_tv->tv_usec % 1000000) * 1000;
    timeout_ptr = &timeout;
  }
  const int64_t r = interruptible_syscall(s, SYS_pselect6, s.a[0], s.a[1], s.a[2], s.a[3], timeout_ptr, nullptr);
  if (guest_tv != nullptr) {
    guest_tv->tv_sec = timeout.tv_sec;
    guest_tv->tv_usec = timeout.tv_nsec / 1000;
  }
  return r;
}

int64_t sys_epoll_create(const SyscallArgs& s) {
  if (static_cast<int>(s.a[0]) <= 0) return -EINVAL;
  return host_syscall(SYS_epoll_create1, 0);
}

int64_t sys_epoll_ctl(const SyscallArgs& s) {
  const int op = static_cast<int>(s.a[1]);
  struct epoll_event host {};
  struct epoll_event* host_ptr = nullptr;
  if (op != EPOLL_CTL_DEL) {
    if (unmapped_guest_ptr(s.a[3])) return -EFAULT;
    host = epoll_event_from_x86(*guest_ptr<const X86EpollEvent>(s.a[3]));
    host_ptr = &host;
  }
  return host_syscall(SYS_epoll_ctl, s.a[0], op, s.a[2], host_ptr);
}

// Waits with the host's struct and copies the events out in x86's layout.
// `timeout` is epoll_pwait's milliseconds or epoll_pwait2's timespec
// pointer; both pass through.  At most kBatch events come back per call,
// which epoll allows: the others stay ready for the next call.
int64_t epoll_wait_into_guest(long host_nr, const SyscallArgs& s, uint64_t timeout,
                              uint64_t sigmask, uint64_t sigsetsize) {
  constexpr int kBatch = 256;
  const int max_events = static_cast<int>(s.a[2]);
  if (max_events <= 0 || max_events > static_cast<int>(INT_MAX / sizeof(X86EpollEvent))) {
    return -EINVAL;
  }
  if (unmapped_guest_ptr(s.a[1])) return -EFAULT;
  struct epoll_event host[kBatch];
  const int64_t r = interruptible_syscall(s, host_nr, s.a[0], host, std::min(max_events, kBatch), timeout,
                                         sigmask, sigsetsize);
  X86EpollEvent* guest = guest_ptr<X86EpollEvent>(s.a[1]);
  for (int64_t i = 0; i < r; ++i) guest[i] = epoll_event_to_x86(host[i]);
  return r;
}

int64_t sys_epoll_wait(const SyscallArgs& s) {
  return epoll_wait_into_guest(SYS_epoll_pwait, s, s.a[3], 0, kX86SigsetSize);
}
int64_t sys_epoll_pwait(const SyscallArgs& s) {
  return epoll_wait_into_guest(SYS_epoll_pwait, s, s.a[3], s.a[4], s.a[5]);
}
int64_t sys_epoll_pwait2(const SyscallArgs& s) {
  return epoll_wait_into_guest(SYS_epoll_pwait2, s, s.a[3], s.a[4], s.a[5]);
}

int64_t sys_eventfd(const SyscallArgs& s) { return host_syscall(SYS_eventfd2, s.a[0], 0); }

// The old forms, without flags, exist on AArch64 only as the new ones.
int64_t sys_signalfd(const SyscallArgs& s) { return host_syscall(SYS_signalfd4, s.a[0], s.a[1], s.a[2], 0); }
int64_t sys_inotify_init(const SyscallArgs&) { return host_syscall(SYS_inotify_init1, 0); }

}  // namespace

void register_event_syscalls(SyscallTable& t) {
  t.add(X86_NR_poll, sys_poll);
  t.pass(X86_NR_ppoll, SYS_ppoll);
  t.add(X86_NR_select, sys_select);
  t.pass(X86_NR_pselect6, SYS_pselect6);
  t.add(X86_NR_epoll_create, sys_epoll_create);
  t.pass(X86_NR_epoll_create1, SYS_epoll_create1);
  t.add(X86_NR_epoll_ctl, sys_epoll_ctl);
  t.add(X86_NR_epoll_wait, sys_epoll_wait);
  t.add(X86_NR_epoll_pwait, sys_epoll_pwait);
  t.add(X86_NR_epoll_pwait2, sys_epoll_pwait2);
  t.add(X86_NR_eventfd, sys_eventfd);
  t.pass(X86_NR_eventfd2, SYS_eventfd2);
  // struct itimerspec, signalfd_siginfo, inotify_event and struct sigevent
  // are the same on both; signal numbers too.
  t.pass(X86_NR_timerfd_create, SYS_timerfd_create);
  t.pass(X86_NR_timerfd_settime, SYS_timerfd_settime);
  t.pass(X86_NR_timerfd_gettime, SYS_timerfd_gettime);
  t.add(X86_NR_signalfd, sys_signalfd);
  t.pass(X86_NR_signalfd4, SYS_signalfd4);
  t.add(X86_NR_inotify_init, sys_inotify_init);
  t.pass(X86_NR_inotify_init1, SYS_inotify_init1);
  t.pass(X86_NR_inotify_add_watch, SYS_inotify_add_watch);
  t.pass(X86_NR_inotify_rm_watch, SYS_inotify_rm_watch);
  t.pass(X86_NR_timer_create, SYS_timer_create);
  t.pass(X86_NR_timer_settime, SYS_timer_settime);
  t.pass(X86_NR_timer_gettime, SYS_timer_gettime);
  t.pass(X86_NR_timer_getoverrun, SYS_timer_getoverrun);
  t.pass(X86_NR_timer_delete, SYS_timer_delete);
}

}  // namespace phybin::sys
