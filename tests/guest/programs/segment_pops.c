// pop fs/gs and lss/lfs/lgs in a 64-bit process under Linux.  pop fs/gs
// takes 8 bytes (also with 66+REX.W) or 2 with 66, and moves RSP only when
// the selector loads (a #GP leaves it); push fs/gs reads the new selector
// back.  lss/lfs/lgs r, m16:16 / m16:32 / m16:64 read the offset in the
// operand size and the selector after it (the pointer ends right before an
// unmapped page: nothing more is read), write the register only when the
// selector loads; REX.W reads m16:64 on Intel CPUs, m16:32 on AMD ones
// (model lines).  FS and GS bases are set to 8 first and restored inside
// the same asm (glibc's TLS is FS): what addressing through the segment
// uses afterwards shows whether the load reset the base.
#include "segment_common.h"

#include <sys/mman.h>

// Saves the FS or GS base in %[saved] and sets it to 8; BASE_END reads
// through the segment into %[seen], the selector into %[got] and puts the
// base back.
#define BASE_BEGIN(SET, GET) \
  "mov $158, %%eax\n mov $" GET ", %%edi\n lea %[saved], %%rsi\n syscall\n" \
  "mov $158, %%eax\n mov $" SET ", %%edi\n mov $8, %%esi\n syscall\n"
#define BASE_END(seg, SET)                                                            \
  "mov %%" #seg ":(%[probe]), %[seen]\n mov %%" #seg ", %k[got]\n"                  \
  "mov $158, %%eax\n mov $" SET ", %%edi\n mov %[saved], %%rsi\n syscall\n"
#define RESUME_AT_1 "lea 1f(%%rip), %%r11\n mov %%r11, %[resume]\n"
#define CLOBBERS "rax", "rdi", "rsi", "rcx", "r10", "r11", "memory"

// Faults of the cases printed on model lines: how many there are is the
// vendor's too, so the count of the others is printed apart.
static int model_faults;
static void count_model_faults(int model, int before) {
  if (model) model_faults += seg_faults - before;
}

// push `push` (the selector in the low word of a value whose other bits
// are set), then `pop`; how far RSP moved in all, and push fs/gs after.
#define POP(name, seg, SET, GET, push, pop)                                                              \
  static void name(uint16_t sel) {                                                                       \
    uint64_t saved = FILL, got = FILL, seen = FILL, moved = FILL, pushed = FILL;                         \
    const int before = seg_faults;                                                                       \
    __asm__ volatile(BASE_BEGIN(SET, GET) "mov %%rsp, %%r10\n " push "\n" RESUME_AT_1 " " pop "\n"       \
                     "1: mov %%rsp, %[moved]\n sub %%r10, %[moved]\n pushq %%" #seg "\n popq %[pushed]\n" \
                     " mov %%r10, %%rsp\n" BASE_END(seg, SET)                                            \
                     : [got] "+&r"(got), [seen] "+&r"(seen), [moved] "+&r"(moved), [pushed] "+&r"(pushed), \
                       [saved] "+m"(saved), [resume] "=m"(seg_resume)                                    \
                     : [sel] "r"((uint64_t)sel | 0xffffffffffff0000ull), [probe] "r"(&seg_probe.a)        \
                     : CLOBBERS);                                                                        \
    const int model = seg_faults == before && (sel & ~3) == 0;                                           \
    printf("%s%-20s %04x: %s, rsp %+" PRId64 ", reads %04" PRIx64 ", push %016" PRIx64 ", %s\n",         \
           model_if(model), #name, sel, seg_outcome(before), (int64_t)moved, got, pushed,                \
           seg_base_seen(seen));                                                                         \
    count_model_faults(model, before);                                                                   \
  }
POP(popq_fs, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, "pushq %[sel]", "popq %%fs")
POP(popw_fs, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, "pushw %w[sel]", "popw %%fs")
POP(pop_66_rexw_fs, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, "pushq %[sel]", ".byte 0x66, 0x48, 0x0f, 0xa1")
POP(popq_gs, gs, ARCH_SET_GS_S, ARCH_GET_GS_S, "pushq %[sel]", "popq %%gs")
POP(popw_gs, gs, ARCH_SET_GS_S, ARCH_GET_GS_S, "pushw %w[sel]", "popw %%gs")

// A far pointer of `size` offset bytes at the end of the page: offset
// 0x8877665544332211 cut to size, then the selector.
static unsigned char *far_at(unsigned char *page_end, unsigned size, uint16_t sel) {
  unsigned char *p = page_end - size - 2;
  const uint64_t offset = 0x8877665544332211ull;
  memcpy(p, &offset, size);
  memcpy(p + size, &sel, 2);
  return p;
}

// lfs/lgs (`insn`, destination %[dst]) with the base dance; lss without.
#define FAR(name, seg, SET, GET, size, insn)                                                            \
  static void name(unsigned char *end, uint16_t sel, int model) {                                       \
    uint64_t saved = FILL, got = FILL, seen = FILL, dst = FILL;                                         \
    const unsigned char *p = far_at(end, size, sel);                                                    \
    const int before = seg_faults;                                                                      \
    __asm__ volatile(BASE_BEGIN(SET, GET) RESUME_AT_1 " " insn "\n1:\n" BASE_END(seg, SET)              \
                     : [got] "+&r"(got), [seen] "+&r"(seen), [dst] "+&r"(dst), [saved] "+m"(saved),      \
                       [resume] "=m"(seg_resume)                                                        \
                     : [p] "r"(p), [probe] "r"(&seg_probe.a)                                            \
                     : CLOBBERS);                                                                       \
    model |= seg_faults == before && (sel & ~3) == 0;                                                   \
    printf("%s%-8s %04x: %s, dst %016" PRIx64 ", reads %04" PRIx64 ", %s\n", model_if(model), #name,    \
           sel, seg_outcome(before), dst, got, seg_base_seen(seen));                                    \
    count_model_faults(model, before);                                                                  \
  }
FAR(lfs16, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, 2, "lfs (%[p]), %w[dst]")
FAR(lfs32, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, 4, "lfs (%[p]), %k[dst]")
FAR(lfs64, fs, ARCH_SET_FS_S, ARCH_GET_FS_S, 8, "rex.w lfs (%[p]), %k[dst]")
FAR(lgs16, gs, ARCH_SET_GS_S, ARCH_GET_GS_S, 2, "lgs (%[p]), %w[dst]")
FAR(lgs32, gs, ARCH_SET_GS_S, ARCH_GET_GS_S, 4, "lgs (%[p]), %k[dst]")
FAR(lgs64, gs, ARCH_SET_GS_S, ARCH_GET_GS_S, 8, "rex.w lgs (%[p]), %k[dst]")

#define LSS(name, size, insn)                                                                            \
  static void name(unsigned char *end, uint16_t sel, int model) {                                        \
    uint64_t got = FILL, dst = FILL;                                                                     \
    const unsigned char *p = far_at(end, size, sel);                                                     \
    const int before = seg_faults;                                                                       \
    __asm__ volatile(RESUME_AT_1 " " insn "\n1: mov %%ss, %k[got]\n"                                     \
                     : [got] "+&r"(got), [dst] "+&r"(dst), [resume] "=m"(seg_resume)                     \
                     : [p] "r"(p)                                                                        \
                     : "r11", "memory");                                                                 \
    printf("%s%-8s %04x: %s, dst %016" PRIx64 ", reads %04" PRIx64 "\n", model_if(model), #name, sel,   \
           seg_outcome(before), dst, got);                                                               \
    count_model_faults(model, before);                                                                   \
  }
LSS(lss16, 2, "lss (%[p]), %w[dst]")
LSS(lss32, 4, "lss (%[p]), %k[dst]")
LSS(lss64, 8, "rex.w lss (%[p]), %k[dst]")

typedef void (*far_fn)(unsigned char *, uint16_t, int);

int main(void) {
  seg_install();
  static const uint16_t pops[] = {0, 3, 0x2b, 0x7b, 0x33, 0x63, 0x10, 0x2f};
  for (unsigned i = 0; i < sizeof pops / sizeof pops[0]; i++) {
    popq_fs(pops[i]);
    popw_fs(pops[i]);
    pop_66_rexw_fs(pops[i]);
    popq_gs(pops[i]);
    popw_gs(pops[i]);
  }
  unsigned char *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (pages == MAP_FAILED || munmap(pages + 4096, 4096) != 0) return 1;
  unsigned char *end = pages + 4096;
  static const far_fn fars[] = {lfs16, lfs32, lfs64, lgs16, lgs32, lgs64, lss16, lss32, lss64};
  static const uint16_t sels[] = {0x2b, 0x23, 0, 0x63, 0x33};
  for (unsigned f = 0; f < sizeof fars / sizeof fars[0]; f++)
    for (unsigned i = 0; i < sizeof sels / sizeof sels[0]; i++) fars[f](end, sels[i], f % 3 == 2);
  printf("%d faults\n", seg_faults - model_faults);
  model_printf("%d faults on model lines\n", model_faults);
  return 0;
}
