// ldmxcsr and fxrstor with MXCSR bits outside MXCSR_MASK (bits 16-31):
// #GP, a SIGSEGV at the instruction, with MXCSR and the other state left
// as they were; with valid values both load as usual.  MXCSR_MASK itself
// (FXSAVE bytes 28-31) is printed too.  MXCSR_MASK and bit 17 are the
// vendor's (model lines).
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "guest_common.h"

static sigjmp_buf back;
static void *fault_rip, *fault_addr;
static int fault_sig, fault_code;
// The start of each line: "model: " for MXCSR bit 17, which AMD CPUs with
// misaligned SSE mode accept (their MXCSR_MASK has it: MM) and Intel CPUs
// refuse; bits 18-31 are reserved on both.
static const char *pre = "";

static void on_segv(int sig, siginfo_t *si, void *ctx) {
  fault_rip = (void *)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
  fault_sig = sig, fault_code = si->si_code, fault_addr = si->si_addr;
  siglongjmp(back, 1);
}

static uint32_t get_mxcsr(void) {
  uint32_t v;
  __asm__ volatile("stmxcsr %0" : "=m"(v));
  return v;
}

extern char ldmxcsr_at[], fxrstor_at[];

static void try_ldmxcsr(uint32_t v) {
  static volatile uint32_t value;
  value = v;
  printf("%sldmxcsr %08x:\n", pre, v);
  if (sigsetjmp(back, 1) == 0) {
    __asm__ volatile(".globl ldmxcsr_at\nldmxcsr_at: ldmxcsr %0" : : "m"(value));
    printf("%s  loaded\n", pre);
  } else {
    printf("%s  signal %d code %d addr %p, at the instruction: %d\n", pre, fault_sig, fault_code, fault_addr,
           fault_rip == (void *)ldmxcsr_at);
  }
  printf("%s  mxcsr now %08x\n", pre, get_mxcsr());
  __asm__ volatile("ldmxcsr %0" : : "m"((uint32_t){0x1f80}));
}

static void try_fxrstor(uint32_t v) {
  static uint8_t area[512] __attribute__((aligned(16)));
  __asm__ volatile("fxsave %0" : "=m"(area));
  memcpy(area + 24, &v, 4);
  printf("%sfxrstor with mxcsr %08x:\n", pre, v);
  if (sigsetjmp(back, 1) == 0) {
    __asm__ volatile(".globl fxrstor_at\nfxrstor_at: fxrstor %0" : : "m"(area));
    printf("%s  loaded\n", pre);
  } else {
    printf("%s  signal %d code %d addr %p, at the instruction: %d\n", pre, fault_sig, fault_code, fault_addr,
           fault_rip == (void *)fxrstor_at);
  }
  printf("%s  mxcsr now %08x\n", pre, get_mxcsr());
  __asm__ volatile("ldmxcsr %0" : : "m"((uint32_t){0x1f80}));
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  static uint8_t area[512] __attribute__((aligned(16)));
  __asm__ volatile("fxsave %0" : "=m"(area));
  uint32_t mask;
  memcpy(&mask, area + 28, 4);
  model_printf("MXCSR_MASK %08x\n", mask);
  const uint32_t values[] = {0x1f80, 0x9fc0, 0x0040, 0x10000, 0x80001f80, 0xffff, 0x20000};
  for (unsigned i = 0; i < sizeof values / sizeof values[0]; i++) {
    pre = values[i] == 0x20000 ? MODEL_PREFIX : "";
    try_ldmxcsr(values[i]);
    try_fxrstor(values[i]);
  }
  return 0;
}
