/* difftest harness: runs every case of a case file and writes the final
 * states.  Built as a static x86-64 program; the driver runs it natively and
 * under phybin and compares the two result files.
 *
 *   harness CASES RESULTS
 *
 * All cases' code is placed at DT_CODE_BASE and made read+exec once, so the
 * translator sees ordinary code (no self-modifying-code path per case).  A
 * case that faults (#DE, #GP...) ends with the signal's number recorded. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "layout.h"

void run_case(uintptr_t entry);

static sigjmp_buf fault_return;

static void on_fault(int sig) { siglongjmp(fault_return, sig); }

static void die(const char *what) {
  fprintf(stderr, "harness: %s\n", what);
  exit(2);
}

static void read_exact(FILE *f, void *buf, size_t n) {
  if (fread(buf, 1, n, f) != n) die("case file is truncated");
}

static void map_fixed(uintptr_t addr, size_t size, int prot) {
  void *p = mmap((void *)addr, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p != (void *)addr) die("cannot map the fixed case areas");
}

/* The handler runs on its own stack: the case's RSP points into the small
 * memory area, whose contents are compared. */
static void install_fault_handlers(void) {
  static const int signals[] = {SIGFPE, SIGSEGV, SIGBUS, SIGILL, SIGTRAP};
  static char alt_stack[1 << 16] __attribute__((aligned(16)));
  stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) die("sigaltstack failed");
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fault;
  sa.sa_flags = SA_NODEFER | SA_ONSTACK;
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i) sigaction(signals[i], &sa, NULL);
}

/* Runs one case: its initial state goes to the control page and the memory
 * area, its final state comes back from there. */
static void run_one(uint32_t entry, const struct dt_state *in, struct dt_state *out) {
  uint8_t *ctl = (uint8_t *)DT_CTL_BASE;
  memcpy(ctl + DT_CTL_IN_FX, in->fx, sizeof in->fx);
  memcpy(ctl + DT_CTL_IN_GPR, in->gpr, sizeof in->gpr);
  memcpy(ctl + DT_CTL_IN_FLAGS, &in->rflags, 8);
  memcpy((void *)DT_DATA_BASE, in->mem, DT_DATA_SIZE);
  memset(out, 0, sizeof *out);
  int sig = sigsetjmp(fault_return, 1);
  if (sig == 0) {
    run_case(DT_CODE_BASE + entry);
    memcpy(out->fx, ctl + DT_CTL_OUT_FX, sizeof out->fx);
    memcpy(out->gpr, ctl + DT_CTL_OUT_GPR, sizeof out->gpr);
    memcpy(&out->rflags, ctl + DT_CTL_OUT_FLAGS, 8);
  } else {
    __asm__ volatile("cld\n\tfninit" ::: "memory");
    out->signal = (uint64_t)sig;
  }
  memcpy(out->mem, (void *)DT_DATA_BASE, DT_DATA_SIZE);
}

int main(int argc, char **argv) {
  if (argc != 3) die("usage: harness CASES RESULTS");
  map_fixed(DT_CODE_BASE, DT_CODE_RESERVE, PROT_READ | PROT_WRITE);
  map_fixed(DT_DATA_BASE, 0x2000, PROT_READ | PROT_WRITE);
  FILE *in = fopen(argv[1], "rb");
  if (!in) die("cannot open the case file");
  uint32_t head[3];
  read_exact(in, head, sizeof head);
  if (head[0] != DT_CASE_MAGIC) die("not a case file");
  uint32_t ncases = head[1], code_size = head[2];
  size_t code_map = (code_size + 0xfffu) & ~(size_t)0xfff;
  if (code_map == 0) code_map = 0x1000;
  if (code_map > DT_CODE_RESERVE) die("too much code in the case file: use smaller batches");
  read_exact(in, (void *)DT_CODE_BASE, code_size);
  if (mprotect((void *)DT_CODE_BASE, code_map, PROT_READ | PROT_EXEC) != 0) die("mprotect failed");

  FILE *out = fopen(argv[2], "wb");
  if (!out) die("cannot create the result file");
  uint32_t rhead[2] = {DT_RESULT_MAGIC, ncases};
  fwrite(rhead, sizeof rhead, 1, out);
  fflush(out);
  install_fault_handlers();
  static struct dt_state state_in __attribute__((aligned(16)));
  static struct dt_state state_out __attribute__((aligned(16)));
  for (uint32_t i = 0; i < ncases; ++i) {
    uint32_t entry;
    read_exact(in, &entry, sizeof entry);
    read_exact(in, &state_in, sizeof state_in);
    run_one(entry, &state_in, &state_out);
    /* flushed per case: when phybin dies in a case, the driver keeps the
     * states before it and goes on after it (driver/batch.cpp) */
    if (fwrite(&state_out, sizeof state_out, 1, out) != 1 || fflush(out) != 0) die("cannot write the result file");
  }
  fclose(in);
  if (fclose(out) != 0) die("cannot write the result file");
  return 0;
}
