// The 16-bit x87 environment (the operand-size prefix): fnstenv, fldenv,
// fnsave and frstor with their 14- and 94-byte images.  Printed: control,
// status and tag words of the images (the instruction and data pointers
// depend on the program's addresses and, for the selectors, on the CPU
// model), what fldenv/frstor load, and the registers of a 16-bit fnsave.
#include <stdio.h>
#include <string.h>

static void show(const char *what, const unsigned char *img, int n) {
  printf("%-22s", what);
  for (int i = 0; i < n; i++) printf(" %02x", img[i]);
  printf("\n");
}

int main(void) {
  unsigned char env[14], save[94], load[14];
  unsigned short cw, sw;
  memset(env, 0xaa, sizeof env);
  __asm__ volatile("fninit\n fld1\n fldpi\n fldz\n data16 fnstenv %0\n fldcw %0\n fninit" : "=m"(env) : : "memory");
  show("fnstenv16 cw sw tw", env, 6);
  memset(load, 0, sizeof load);
  load[0] = 0x7f, load[1] = 0x0c;  // RC toward zero, all masked
  load[2] = 0x00, load[3] = 0x38;  // TOP 7
  load[4] = 0xff, load[5] = 0x3f;  // ST(7) (physical 7) valid, the rest empty
  __asm__ volatile("fninit\n data16 fldenv %2\n fnstcw %0\n fnstsw %1\n fninit" : "=m"(cw), "=m"(sw) : "m"(load));
  printf("fldenv16: cw %04x sw %04x\n", cw, sw);
  memset(save, 0x55, sizeof save);
  __asm__ volatile("fninit\n fld1\n fldl2t\n data16 fnsave %0\n fnstcw %1" : "=m"(save), "=m"(cw) : : "memory");
  show("fnsave16 cw sw tw", save, 6);
  show("fnsave16 st0", save + 14, 10);
  show("fnsave16 st1", save + 24, 10);
  printf("after fnsave16: cw %04x\n", cw);
  long double a, b;
  __asm__ volatile("data16 frstor %2\n fstpt %0\n fstpt %1\n fninit" : "=m"(a), "=m"(b) : "m"(save));
  show("frstor16 st0", (unsigned char *)&a, 10);
  show("frstor16 st1", (unsigned char *)&b, 10);
  return 0;
}
