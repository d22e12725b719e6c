// Code written at run time: x86-64 machine code stored into an mmap'd
// buffer and called, then overwritten in place (a new immediate, then a
// different instruction sequence) and called again.  A translator caching
// translated code must notice the writes.  Also flips a page between
// writable and executable with mprotect, as JITs do.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef int (*fn_int)(int);

static void emit_return_const(unsigned char *p, int32_t value) {
  p[0] = 0xb8;  // mov eax, imm32
  memcpy(p + 1, &value, 4);
  p[5] = 0xc3;  // ret
}

static void emit_add_const(unsigned char *p, int32_t value) {
  p[0] = 0x8d;  // lea eax, [rdi + disp32]
  p[1] = 0x87;
  memcpy(p + 2, &value, 4);
  p[6] = 0xc3;
}

static void emit_loop_sum(unsigned char *p) {
  static const unsigned char code[] = {
      0x31, 0xc0,        // xor eax, eax
      0x85, 0xff,        // test edi, edi
      0x7e, 0x06,        // jle done
      0x01, 0xf8,        // loop: add eax, edi
      0xff, 0xcf,        // dec edi
      0x75, 0xfa,        // jnz loop
      0xc3};             // done: ret
  memcpy(p, code, sizeof code);
}

int main(void) {
  unsigned char *rwx = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (rwx == MAP_FAILED) {
    printf("mmap failed\n");
    return 1;
  }
  fn_int f = (fn_int)(void *)rwx;
  long total = 0;
  for (int i = 0; i < 50; i++) {
    emit_return_const(rwx, i * 1000 + 7);
    int r = f(0);
    total += r;
    if (i < 3 || i == 49) printf("const round %d -> %d\n", i, r);
  }
  printf("total %ld\n", total);
  emit_add_const(rwx, 100);
  printf("add_const(5) = %d\n", f(5));
  emit_loop_sum(rwx);
  printf("loop_sum(100) = %d\n", f(100));
  emit_add_const(rwx, -1);
  printf("add_const(5) after loop = %d\n", f(5));
  // Patch only the immediate inside an instruction already executed.
  int32_t imm = 12345;
  memcpy(rwx + 2, &imm, 4);
  printf("patched immediate: %d\n", f(5));

  // W^X style: write while RW, execute after switching to RX.
  unsigned char *wx = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  fn_int g = (fn_int)(void *)wx;
  for (int i = 0; i < 5; i++) {
    mprotect(wx, 4096, PROT_READ | PROT_WRITE);
    emit_return_const(wx + 64 * i, -i);
    emit_add_const(wx, i * 11);
    mprotect(wx, 4096, PROT_READ | PROT_EXEC);
    printf("w^x round %d: %d %d\n", i, g(1), ((fn_int)(void *)(wx + 64 * i))(0));
  }
  // Two functions on the same page: changing one must not break the other.
  emit_return_const(rwx + 2048, 777);
  emit_add_const(rwx, 1);
  fn_int h = (fn_int)(void *)(rwx + 2048);
  printf("neighbours %d %d\n", f(1), h(0));
  emit_return_const(rwx + 2048, 888);
  printf("neighbours %d %d\n", f(1), h(0));
  munmap(wx, 4096);
  munmap(rwx, 4096);
  return 0;
}
