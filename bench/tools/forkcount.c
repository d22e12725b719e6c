/* forkcount: a QEMU TCG plugin that counts executed instructions per
 * process.  It counts as insncount's mode=cb (/work/shared/tools/insncount:
 * every executed translation block adds its instructions, atomically) and
 * writes the same "insns: N" line at exit, but a forked child starts again
 * from 0 (a pthread_atfork handler: qemu-user forks with the C library's
 * fork), where insncount's child goes on from the parent's count at the
 * fork.  The lines of a run that forks are then each one process's own
 * work and their sum is the run's; a child's line also says the parent's
 * count at the fork ("insns: N forked_at: M"), so that the parent's
 * instructions from one fork to the next are a difference of two
 * children's lines.  With first_thread=1 it counts only
 * qemu's vCPU 0: the program's first thread and, in a child it forked,
 * that thread's copy; other threads' instructions, which depend on how
 * long they ran, are left out.  bench/run's fork suite uses it.
 *   gcc -O2 -fPIC -shared -I/work/shared/tools/insncount -o forkcount.so forkcount.c
 *   qemu-aarch64 -plugin ./forkcount.so,outfile=FILE[,first_thread=1] prog... */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qplugin_min.h"

QP_EXPORT int qemu_plugin_version = 1;

static uint64_t g_total;
static const char *g_outfile;
static int g_first_thread;

static void on_exec(unsigned int vcpu, void *udata) {
  if (g_first_thread && vcpu != 0) return;
  __atomic_fetch_add(&g_total, (uint64_t)(uintptr_t)udata, __ATOMIC_RELAXED);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS,
                                       (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static uint64_t g_forked_at;  /* the parent's count at the fork, in a child */
static int g_forked;

static void in_child(void) {
  g_forked_at = __atomic_exchange_n(&g_total, 0, __ATOMIC_RELAXED);
  g_forked = 1;
}

static void at_exit(qemu_plugin_id_t id, void *udata) {
  (void)id;
  (void)udata;
  const unsigned long long total = __atomic_load_n(&g_total, __ATOMIC_RELAXED);
  FILE *f = g_outfile ? fopen(g_outfile, "a") : NULL;
  if (g_outfile && !f) fprintf(stderr, "forkcount: cannot open %s: %s\n", g_outfile, strerror(errno));
  if (g_forked)
    fprintf(f ? f : stderr, "insns: %llu forked_at: %llu\n", total, (unsigned long long)g_forked_at);
  else
    fprintf(f ? f : stderr, "insns: %llu\n", total);
  if (f) fclose(f);
}

QP_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
  (void)info;
  for (int i = 0; i < argc; i++) {
    if (strncmp(argv[i], "outfile=", 8) == 0) {
      g_outfile = strdup(argv[i] + 8);
    } else if (strcmp(argv[i], "first_thread=1") == 0) {
      g_first_thread = 1;
    } else {
      fprintf(stderr, "forkcount: unknown argument '%s' (expected outfile=PATH or first_thread=1)\n", argv[i]);
      return -1;
    }
  }
  pthread_atfork(NULL, NULL, in_child);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
