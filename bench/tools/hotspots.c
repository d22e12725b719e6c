/* hotspots: a QEMU TCG plugin that reports where an AArch64 program spends
 * its executed instructions, per translation block start address, so that
 * phybin's own code (translation) and the code it generates (JIT blocks)
 * can be told apart and optimised.  Developer tool, not part of phybin.
 *   gcc -O2 -fPIC -shared -I/work/shared/tools/insncount -o hotspots.so hotspots.c
 *   qemu-aarch64 -plugin ./hotspots.so,top=40 prog...      (report on stderr)
 * Map addresses to symbols with `nm -C` and the load base qemu used. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qplugin_min.h"

QP_EXPORT int qemu_plugin_version = 1;
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

struct site {
  uint64_t vaddr, insns, count;
};

static struct site *g_sites;
static size_t g_used, g_cap;
static int g_top = 30;

static void on_exec(unsigned int vcpu, void *udata) {
  (void)vcpu;
  g_sites[(uintptr_t)udata].count++;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  if (g_used == g_cap) {
    g_cap = g_cap ? g_cap * 2 : 4096;
    g_sites = realloc(g_sites, g_cap * sizeof *g_sites);
  }
  g_sites[g_used] = (struct site){qemu_plugin_tb_vaddr(tb), qemu_plugin_tb_n_insns(tb), 0};
  qemu_plugin_register_vcpu_tb_exec_cb(tb, on_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)g_used);
  ++g_used;
}

static int by_weight(const void *a, const void *b) {
  const struct site *x = a, *y = b;
  uint64_t wx = x->insns * x->count, wy = y->insns * y->count;
  return wx < wy ? 1 : wx > wy ? -1 : 0;
}

static void at_exit(qemu_plugin_id_t id, void *udata) {
  (void)id;
  (void)udata;
  /* Merge retranslations of the same address before ranking. */
  qsort(g_sites, g_used, sizeof *g_sites, by_weight);
  uint64_t total = 0;
  for (size_t i = 0; i < g_used; ++i) total += g_sites[i].insns * g_sites[i].count;
  fprintf(stderr, "hotspots: %llu instructions in %zu blocks\n", (unsigned long long)total, g_used);
  for (size_t i = 0; i < g_used && i < (size_t)g_top; ++i)
    fprintf(stderr, "  %#14llx  %12llu insns  %10llu runs x %llu\n", (unsigned long long)g_sites[i].vaddr,
            (unsigned long long)(g_sites[i].insns * g_sites[i].count), (unsigned long long)g_sites[i].count,
            (unsigned long long)g_sites[i].insns);
}

QP_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
  (void)info;
  for (int i = 0; i < argc; i++)
    if (strncmp(argv[i], "top=", 4) == 0) g_top = atoi(argv[i] + 4);
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, at_exit, NULL);
  return 0;
}
