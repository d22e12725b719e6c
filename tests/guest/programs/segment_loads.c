// mov Sreg, r/m in a 64-bit process under Linux: each selector of the list
// loaded into DS, ES, SS, FS and GS: a null selector (any RPL) and the
// user descriptors of Linux's GDT (0x23, 0x2b, 0x33, 0x7b, any RPL) load
// into DS/ES/FS/GS, only 0x2b into SS; kernel, empty TLS, unused, beyond
// the GDT and LDT selectors give #GP (SIGSEGV, SI_KERNEL, the selector as
// error code) and change nothing.  What each segment reads back after,
// and for FS and GS the base that addressing through them uses (set to 8
// beforehand: a load makes it the descriptor's, 0; Intel also clears it
// for a null selector, AMD CPUs may keep it: model lines).  The operand
// forms: r16 (66), r32, r64 (REX.W) and a word in memory right before an
// unmapped page (only two bytes are read).
#include "segment_common.h"

#include <sys/mman.h>

static const uint16_t kSelectors[] = {0,    3,    0x2b, 0x28, 0x33, 0x31, 0x23, 0x7b, 0x78,
                                      0x63, 0x73, 0x10, 0x3b, 0x2f, 0x0c, 0x04, 0x83, 0xfffb};
#define NSEL (sizeof kSelectors / sizeof kSelectors[0])

// One load of DS, ES or SS in the form `insn` (the source is %[sel], a
// register, or %[mem]); then the segment read back and restored.
#define LOAD(name, seg, insn, reset)                                                              \
  static void name(uint16_t sel, const volatile uint16_t *mem, const char *form) {                \
    uint64_t got = FILL;                                                                          \
    const int before = seg_faults;                                                                \
    __asm__ volatile("lea 1f(%%rip), %%r11\n mov %%r11, %[resume]\n " insn "\n"                   \
                     "1: mov %%" #seg ", %k[got]\n mov $" #reset ", %%r11d\n mov %%r11d, %%" #seg \
                     : [got] "+r"(got), [resume] "=m"(seg_resume)                                 \
                     : [sel] "r"((uint64_t)sel | 0xffffffffffff0000ull), [mem] "m"(*mem)          \
                     : "r11", "memory");                                                          \
    printf("%s %-5s <- %04x: %s, reads %04" PRIx64 "\n", #seg, form, sel, seg_outcome(before), got); \
  }
LOAD(ds_r32, ds, "mov %k[sel], %%ds", 0)
LOAD(ds_r16, ds, "data16 mov %k[sel], %%ds", 0)
LOAD(ds_r64, ds, "rex.w mov %k[sel], %%ds", 0)
LOAD(ds_m16, ds, "mov %[mem], %%ds", 0)
LOAD(es_r32, es, "mov %k[sel], %%es", 0)
LOAD(es_m16, es, "mov %[mem], %%es", 0)
LOAD(ss_r32, ss, "mov %k[sel], %%ss", 0x2b)
LOAD(ss_r64, ss, "rex.w mov %k[sel], %%ss", 0x2b)
LOAD(ss_m16, ss, "mov %[mem], %%ss", 0x2b)

// FS or GS: the base set to 8 (arch_prctl), the load, a read through the
// segment (seg_probe.a or .b), the selector read back, the base as
// arch_prctl reports it, then the old base again, all inside one asm:
// glibc's TLS is FS, so no C code may run in between.
#define BASE_LOAD(name, seg, SET, GET, insn)                                                            \
  static void name(uint16_t sel, const volatile uint16_t *mem, const char *form) {                      \
    uint64_t saved = FILL, got = FILL, seen = FILL, base = FILL;                                        \
    const int before = seg_faults;                                                                      \
    __asm__ volatile("mov $158, %%eax\n mov $" GET ", %%edi\n lea %[saved], %%rsi\n syscall\n"         \
                     "mov $158, %%eax\n mov $" SET ", %%edi\n mov $8, %%esi\n syscall\n"               \
                     "lea 1f(%%rip), %%r11\n mov %%r11, %[resume]\n " insn "\n"                         \
                     "1: mov %%" #seg ":(%[probe]), %[seen]\n mov %%" #seg ", %k[got]\n"                \
                     "mov $158, %%eax\n mov $" GET ", %%edi\n lea %[base], %%rsi\n syscall\n"          \
                     "mov $158, %%eax\n mov $" SET ", %%edi\n mov %[saved], %%rsi\n syscall\n"         \
                     : [got] "+&r"(got), [seen] "+&r"(seen), [base] "+m"(base), [saved] "+m"(saved),    \
                       [resume] "=m"(seg_resume)                                                        \
                     : [sel] "r"((uint64_t)sel | 0xffffffffffff0000ull), [mem] "m"(*mem),               \
                       [probe] "r"(&seg_probe.a)                                                        \
                     : "rax", "rdi", "rsi", "rcx", "r11", "memory");                                    \
    /* Whether a null load clears the base differs by vendor. */                                        \
    const int model = seg_faults == before && (sel & ~3) == 0;                                          \
    printf("%s%s %-5s <- %04x: %s, reads %04" PRIx64 ", %s, arch_prctl %" PRIx64 "\n", model_if(model), \
           #seg, form, sel, seg_outcome(before), got, seg_base_seen(seen), base);                       \
  }
BASE_LOAD(fs_r32, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, "mov %k[sel], %%fs")
BASE_LOAD(fs_r16, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, "data16 mov %k[sel], %%fs")
BASE_LOAD(fs_m16, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, "mov %[mem], %%fs")
BASE_LOAD(gs_r32, gs, ARCH_SET_GS_S, ARCH_GET_GS_S, "mov %k[sel], %%gs")
BASE_LOAD(gs_r64, gs, ARCH_SET_GS_S, ARCH_GET_GS_S, "rex.w mov %k[sel], %%gs")
BASE_LOAD(gs_m16, gs, ARCH_SET_GS_S, ARCH_GET_GS_S, "mov %[mem], %%gs")

typedef void (*load_fn)(uint16_t, const volatile uint16_t *, const char *);

// Every selector through `all`, then a valid and a faulting one through
// each other form.
static void run(load_fn all, const load_fn *forms, const char *const *names, int nforms,
                volatile uint16_t *word, uint16_t valid) {
  for (unsigned i = 0; i < NSEL; i++) {
    *word = kSelectors[i];
    all(kSelectors[i], word, "r32");
  }
  for (int f = 0; f < nforms; f++) {
    const uint16_t two[] = {valid, 0x63};
    for (int k = 0; k < 2; k++) {
      *word = two[k];
      forms[f](two[k], word, names[f]);
    }
  }
}

int main(void) {
  seg_install();
  // The memory operand: the last word of a page before an unmapped one.
  char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED || munmap(pages + 4096, 4096) != 0) return 1;
  volatile uint16_t *word = (volatile uint16_t *)(pages + 4094);
  const char *const r16_r64_m16[] = {"r16", "r64", "m16"};
  const char *const m16[] = {"m16"};
  const char *const r64_m16[] = {"r64", "m16"};
  const char *const r16_m16[] = {"r16", "m16"};
  run(ds_r32, (const load_fn[]){ds_r16, ds_r64, ds_m16}, r16_r64_m16, 3, word, 0x7b);
  run(es_r32, (const load_fn[]){es_m16}, m16, 1, word, 0x2b);
  run(ss_r32, (const load_fn[]){ss_r64, ss_m16}, r64_m16, 2, word, 0x2b);
  run(fs_r32, (const load_fn[]){fs_r16, fs_m16}, r16_m16, 2, word, 0x2b);
  run(gs_r32, (const load_fn[]){gs_r64, gs_m16}, r64_m16, 2, word, 0x23);
  printf("%d faults\n", seg_faults);
  return 0;
}
