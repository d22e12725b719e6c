// A store into the instructions that follow it in the same straight run of
// code takes effect before they execute (x86 guarantees it): code on a
// writable and executable page patches the immediate of an instruction a
// few bytes on, through a RIP-relative store and through a register, and
// also one just after itself; run twice, so the second run executes the
// already patched code, then patched back.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

typedef int (*fn)(uint8_t *where, int value);

// mov byte [rip + d], sil ; (nop ...) ; mov eax, imm32 ; ret
static const uint8_t kRipForm[] = {
    0x40, 0x88, 0x35, 0x03, 0x00, 0x00, 0x00,  // mov [rip+3], sil: the mov's first immediate byte
    0x90, 0x90,                                // nop; nop
    0xb8, 0x01, 0x00, 0x00, 0x00,              // mov eax, 1   (offset 9; immediate at 10)
    0xc3};
// mov byte [rdi], sil ; add eax... ; mov eax, imm32 ; ret   (rdi points at the immediate)
static const uint8_t kRegForm[] = {
    0x40, 0x88, 0x37,                          // mov [rdi], sil
    0x31, 0xc0,                                // xor eax, eax
    0x83, 0xc0, 0x05,                          // add eax, 5
    0x05, 0x01, 0x00, 0x00, 0x00,              // add eax, imm32 (immediate at 9)
    0xc3};

int main(void) {
  uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  memcpy(page, kRipForm, sizeof kRipForm);
  memcpy(page + 64, kRegForm, sizeof kRegForm);
  for (int round = 0; round < 3; round++) {
    const int v = 7 + 10 * round;
    printf("round %d: rip form %d", round, ((fn)page)(NULL, v));
    printf(", again %d", ((fn)page)(NULL, v + 1));
    printf(", register form %d", ((fn)(page + 64))(page + 64 + 9, v));
    printf(", again %d\n", ((fn)(page + 64))(page + 64 + 9, v + 2));
  }
  return 0;
}
