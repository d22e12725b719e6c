// Code changed by every kind of writer after it ran: a function that keeps
// its counter on its own code page (each call writes the page it runs
// from), code copied with rep movsb (a string instruction), code read()
// into place by the kernel, and code on the stack (an executable stack
// page that also holds the caller's data).
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int (*fn_int)(int);

// mov eax, [rip + counter]; add eax, edi; mov [rip + counter], eax; ret
// with the counter at offset 64 of the function.
static void emit_counter(unsigned char *p) {
  static const unsigned char code[] = {0x8b, 0x05, 0x3a, 0x00, 0x00, 0x00,   // mov eax, [rip+58] (-> 64)
                                       0x01, 0xf8,                           // add eax, edi
                                       0x89, 0x05, 0x32, 0x00, 0x00, 0x00,   // mov [rip+50], eax (-> 64)
                                       0xc3};
  memcpy(p, code, sizeof code);
  memset(p + 64, 0, 4);
}

static void emit_return_const(unsigned char *p, int32_t value) {
  p[0] = 0xb8;  // mov eax, imm32
  memcpy(p + 1, &value, 4);
  p[5] = 0xc3;
}

static void copy_with_movsb(unsigned char *dst, const unsigned char *src, size_t n) {
  __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

int main(void) {
  unsigned char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  emit_counter(page);
  fn_int counter = (fn_int)(void *)page;
  int last = 0;
  for (int i = 1; i <= 200; i++) last = counter(i);
  printf("counter on its own code page: %d\n", last);

  fn_int f = (fn_int)(void *)(page + 1024);
  unsigned char fresh[8];
  long sum = 0;
  for (int i = 0; i < 20; i++) {
    emit_return_const(fresh, 1000 + i);
    copy_with_movsb(page + 1024, fresh, sizeof fresh);
    sum += f(0);
  }
  printf("rep movsb rewrites: %ld\n", sum);

  int fds[2];
  if (pipe(fds) != 0) return 1;
  sum = 0;
  for (int i = 0; i < 10; i++) {
    emit_return_const(fresh, 50 * i);
    if (write(fds[1], fresh, sizeof fresh) != (ssize_t)sizeof fresh) return 1;
    if (read(fds[0], page + 1024, sizeof fresh) != (ssize_t)sizeof fresh) return 1;
    sum += f(0);
  }
  printf("read() rewrites: %ld\n", sum);

  // Code on an executable stack page, next to data written all the time.
  unsigned char *stack_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack_page == MAP_FAILED) return 1;
  volatile int *data = (volatile int *)(stack_page + 2048);
  fn_int g = (fn_int)(void *)stack_page;
  sum = 0;
  for (int i = 0; i < 50; i++) {
    emit_return_const(stack_page, i);
    *data = i;
    sum += g(0) + *data;
  }
  printf("code next to data: %ld\n", sum);
  munmap(stack_page, 4096);
  munmap(page, 4096);
  return 0;
}
