// Hot-patching the program's own code: a function in the text segment is
// called, its page made writable with mprotect, the function rewritten to
// return another value, and called again.  Translations made before the
// patch must be dropped; with the persistent translation cache (the
// guest.warm tests) those made from the patched page must not be saved
// for the next run, which starts from the unpatched file again.
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline, aligned(64))) int answer(int x) { return x + 41; }

int main(void) {
  int (*volatile call)(int) = answer;
  printf("before: %d %d\n", call(0), call(1));
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  unsigned char *code = (unsigned char *)(uintptr_t)answer;
  unsigned char *first = (unsigned char *)((uintptr_t)code & ~(page - 1));
  if (mprotect(first, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
    perror("mprotect");
    return 1;
  }
  // lea eax, [rdi + 1234]; ret
  static const unsigned char patch[] = {0x8d, 0x87, 0xd2, 0x04, 0x00, 0x00, 0xc3};
  memcpy(code, patch, sizeof patch);
  mprotect(first, 2 * page, PROT_READ | PROT_EXEC);
  printf("after: %d %d\n", call(0), call(1));
  return 0;
}
