// The undocumented x87 encodings that every Intel and AMD CPU runs as a
// documented instruction: d9 d8+i (FSTP1), df d0+i and df d8+i (FSTP8,
// FSTP9) as fstp st(i); dc d0+i (FCOM2) as fcom; dc d8+i and de d0+i
// (FCOMP3, FCOMP5) as fcomp; dd c8+i and df c8+i (FXCH4, FXCH7) as fxch;
// df c0+i (FFREEP) as ffree st(i) then a pop.  Each runs as raw bytes on
// ST(0..2) of four register stacks (full, with a NaN, one value, empty:
// stack underflow), C1 set beforehand, set with frstor and read back with
// fnsave: FSW (C0, C2, C3 masked where the instruction leaves them
// undefined), the tag word and all eight registers; and whether the
// documented form gives the same.  FSTP1 of an empty ST0 differs from
// fstp on Intel CPUs (a pop, C1 cleared, no underflow, nothing stored);
// no manual says so, and AMD CPUs were not measured: model lines.
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory"
#define RUN(fn, bytes)                                                                             \
  static void fn(const unsigned char *in, unsigned char *out) {                                    \
    __asm__ volatile("frstor %[in]\n .byte " bytes "\n fnsave %[out]\n"                            \
                     : [out] "=m"(*(unsigned char(*)[108])out)                                     \
                     : [in] "m"(*(const unsigned char(*)[108])in)                                  \
                     : CLOBBERS);                                                                  \
  }
// The alias on ST(0), ST(1), ST(2), and the documented form (`tail`
// follows its ModRM byte).
#define ALIAS(name, alias, twin, tail)                                                             \
  RUN(name##_a0, alias "+0") RUN(name##_a1, alias "+1") RUN(name##_a2, alias "+2")                 \
  RUN(name##_t0, twin "+0" tail) RUN(name##_t1, twin "+1" tail) RUN(name##_t2, twin "+2" tail)
ALIAS(fstp1, "0xd9, 0xd8", "0xdd, 0xd8", "")
ALIAS(fstp8, "0xdf, 0xd0", "0xdd, 0xd8", "")
ALIAS(fstp9, "0xdf, 0xd8", "0xdd, 0xd8", "")
ALIAS(fcom2, "0xdc, 0xd0", "0xd8, 0xd0", "")
ALIAS(fcomp3, "0xdc, 0xd8", "0xd8, 0xd8", "")
ALIAS(fcomp5, "0xde, 0xd0", "0xd8, 0xd8", "")
ALIAS(fxch4, "0xdd, 0xc8", "0xd9, 0xc8", "")
ALIAS(fxch7, "0xdf, 0xc8", "0xd9, 0xc8", "")
// ffreep st(i): ffree st(i), ffree st(0), fincstp.
ALIAS(ffreep, "0xdf, 0xc0", "0xdd, 0xc0", ", 0xdd, 0xc0, 0xd9, 0xf7")

typedef void (*run_fn)(const unsigned char *, unsigned char *);
#define ENTRY(name, compare) {#name, compare, {name##_a0, name##_a1, name##_a2}, {name##_t0, name##_t1, name##_t2}}
static const struct {
  const char *name;
  int compare;  // a compare defines C0, C2, C3
  run_fn alias[3], twin[3];
} kAliases[] = {ENTRY(fstp1, 0),  ENTRY(fstp8, 0),  ENTRY(fstp9, 0), ENTRY(fcom2, 1), ENTRY(fcomp3, 1),
                ENTRY(fcomp5, 1), ENTRY(fxch4, 0), ENTRY(fxch7, 0), ENTRY(ffreep, 0)};

// An FNSAVE image: FCW 0x37f, TOP and C1, the first n stack registers in use
// with `values`, the others empty but holding 100 + i (stale contents
// show where a store or an exchange lands).
static void make_image(unsigned char img[108], const long double *values, int n, unsigned top) {
  memset(img, 0, 108);
  const unsigned short fcw = 0x37f, fsw = (unsigned short)(top << 11 | 0x200);
  unsigned short ftw = 0xffff;
  for (int i = 0; i < 8; i++) {
    const long double v = i < n ? values[i] : 100 + i;
    memcpy(img + 28 + 10 * i, &v, 10);
    if (i < n) ftw &= (unsigned short)~(3u << (2 * ((top + i) & 7)));
  }
  memcpy(img, &fcw, 2);
  memcpy(img + 4, &fsw, 2);
  memcpy(img + 8, &ftw, 2);
}

// FSW, tag word, ST(0..7) of an image as text.
static void describe(const unsigned char img[108], int compare, char *text) {
  unsigned short fsw, ftw;
  memcpy(&fsw, img + 4, 2);
  memcpy(&ftw, img + 8, 2);
  if (!compare) fsw &= (unsigned short)~0x4500;
  text += sprintf(text, "fsw %04x ftw %04x", fsw, ftw);
  for (int i = 0; i < 8; i++) {
    text += sprintf(text, i ? " " : " st");
    for (int b = 9; b >= 0; b--) text += sprintf(text, "%02x", img[28 + 10 * i + b]);
  }
}

int main(void) {
  const long double nan = __builtin_nanl("");
  const long double full[] = {1.5L, -2.25L, 1.5L}, with_nan[] = {-2.25L, nan, 1.5L};
  const struct {
    const char *name;
    const long double *values;
    int n;
    unsigned top;
  } kStacks[] = {{"full", full, 3, 5}, {"nan", with_nan, 3, 0}, {"one", full, 1, 7}, {"empty", full, 0, 3}};
  for (unsigned a = 0; a < sizeof kAliases / sizeof kAliases[0]; a++) {
    for (int i = 0; i < 3; i++) {
      for (unsigned s = 0; s < sizeof kStacks / sizeof kStacks[0]; s++) {
        unsigned char in[108], out[108], twin_out[108];
        char text[256], twin_text[256];
        make_image(in, kStacks[s].values, kStacks[s].n, kStacks[s].top);
        kAliases[a].alias[i](in, out);
        kAliases[a].twin[i](in, twin_out);
        describe(out, kAliases[a].compare, text);
        describe(twin_out, kAliases[a].compare, twin_text);
        const int same = strcmp(text, twin_text) == 0;
        const int model = kAliases[a].alias[0] == fstp1_a0 && kStacks[s].n == 0;
        printf("%s%-6s st%d %-5s: %s%s%s\n", model_if(model), kAliases[a].name, i, kStacks[s].name, text,
               same ? " = documented" : "; documented: ", same ? "" : twin_text);
      }
    }
  }
  return 0;
}
