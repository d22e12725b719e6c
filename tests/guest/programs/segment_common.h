// Shared by the segment-load programs (segment_loads, segment_pops): a
// SIGSEGV handler that records the #GP and resumes at `seg_resume`, which
// each test sets to the label after the instruction that may fault.  It
// touches no TLS and calls nothing: FS may hold a null base when it runs.
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "guest_common.h"

#define FILL 0xdeadbeefcafef00dull
#define ARCH_SET_GS_S "0x1001"
#define ARCH_SET_FS_S "0x1002"
#define ARCH_GET_FS_S "0x1003"
#define ARCH_GET_GS_S "0x1004"

static volatile uint64_t seg_resume;
static volatile int seg_faults;
static volatile long seg_code, seg_trapno, seg_err;
static volatile uint64_t seg_addr;

static void seg_on_segv(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  ucontext_t *uc = ctx;
  seg_faults++;
  seg_code = si->si_code;
  seg_addr = (uint64_t)si->si_addr;
  seg_trapno = uc->uc_mcontext.gregs[REG_TRAPNO];
  seg_err = uc->uc_mcontext.gregs[REG_ERR];
  uc->uc_mcontext.gregs[REG_RIP] = (greg_t)seg_resume;
}

static void seg_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = seg_on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
}

// What the last test did: "loaded", or the fault as the kernel reports
// it (a #GP: SI_KERNEL, address 0, trap 13, the selector as error code).
static const char *seg_outcome(int faults_before) {
  static char text[96];
  if (seg_faults == faults_before) return "loaded";
  snprintf(text, sizeof text, "SIGSEGV code %ld addr %" PRIx64 " trap %ld err %#lx", seg_code, seg_addr,
           seg_trapno, seg_err);
  return text;
}

// Two words a segment base of 0 or 8 tells apart: seg:[&a] reads a with
// base 0, b with base 8.
static struct {
  uint64_t a, b;
} seg_probe = {0x1111111111111111ull, 0x8888888888888888ull};

static const char *seg_base_seen(uint64_t word) {
  return word == seg_probe.a ? "base 0" : word == seg_probe.b ? "base 8" : "base ?";
}
