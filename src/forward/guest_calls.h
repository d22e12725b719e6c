/* The private system calls of phybin's own code inside every forwarded
   library's guest side (guest/callback_threads.c, x86-64 C), and what they
   answer.  Plain C: the guest side includes it too.  Numbered below the
   handed-out functions' entries (forwarder.cpp), past every library's. */
#ifndef PHYBIN_FORWARD_GUEST_CALLS_H
#define PHYBIN_FORWARD_GUEST_CALLS_H

/* 0x70680000 + 14 * 4096: the guest side tells phybin the address of its
   function that starts a callback thread (int start(void): 0 or an
   errno), and of the guest C library's `environ` (0 if none). */
#define PHYBIN_GUEST_CALL_REGISTER 0x7068E000
/* A callback thread waits for work (argument: the errno of its last start
   of another thread, or 0).  Answers PHYBIN_SERVE_END (the thread's work
   is over: it returns) or PHYBIN_SERVE_START_ANOTHER (start one more, then
   call again). */
#define PHYBIN_GUEST_CALL_SERVE 0x7068E001

#define PHYBIN_SERVE_END 0
#define PHYBIN_SERVE_START_ANOTHER 1

#endif
