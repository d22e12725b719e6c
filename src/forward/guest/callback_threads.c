/* Part of every forwarded library's guest side, compiled for x86-64 and
   run translated: guest threads for the callbacks a native library makes
   on threads of its own (PoCL's event callbacks, HIP stream callbacks).
   Such a callback needs a real guest thread (TLS, the stack protector's
   canary, errno, a signal mask), and only the guest's C library can make
   one: phybin asks for the first through `start_callback_thread` (called
   on a guest thread inside a forwarded call), each thread then waits in
   phybin for a library thread to adopt it, and starts the next before it
   serves (see src/forward/callback_threads.h).

   It also tells phybin where the guest's `environ` is: the variables the
   native libraries read (HSA_*, POCL_* ...) reach them as the guest set
   them.

   No C library is linked: pthread_create, pthread_detach and environ are
   found in the program's own (weak references; without them phybin says
   so), and no header of it is needed. */
#include "forward/guest_calls.h"

typedef unsigned long guest_pthread_t;
extern int pthread_create(guest_pthread_t*, const void*, void* (*)(void*), void*) __attribute__((weak));
extern int pthread_detach(guest_pthread_t) __attribute__((weak));
extern char** environ __attribute__((weak));

static long phybin_call(long nr, long arg, long arg2) {
  long result;
  __asm__ volatile("syscall" : "=a"(result) : "a"(nr), "D"(arg), "S"(arg2) : "rcx", "r11", "memory");
  return result;
}

static int start_callback_thread(void);

static void* serve(void* unused) {
  (void)unused;
  long error = 0;
  while (phybin_call(PHYBIN_GUEST_CALL_SERVE, error, 0) == PHYBIN_SERVE_START_ANOTHER)
    error = start_callback_thread();
  return 0;
}

static int start_callback_thread(void) {
  if (!pthread_create || !pthread_detach) return 38; /* ENOSYS: a C library without them */
  guest_pthread_t thread;
  const int error = pthread_create(&thread, 0, serve, 0);
  if (error == 0) pthread_detach(thread);
  return error;
}

__attribute__((constructor)) static void register_with_phybin(void) {
  phybin_call(PHYBIN_GUEST_CALL_REGISTER, (long)&start_callback_thread, (long)&environ);
}
