// atexit and on_exit handlers run in reverse order of registration, after
// main returns; a handler registering another handler; a handler that
// calls exit() again (glibc then runs the remaining handlers and the new
// status wins); output buffered in stdio is flushed after all handlers.
#include <stdio.h>
#include <stdlib.h>

static void first(void) { printf("handler 1 (registered first, runs last)\n"); }
static void second(void) { printf("handler 2\n"); }

static void late(void) { printf("late handler (registered by handler 3)\n"); }

static void third(void) {
  printf("handler 3 registers another\n");
  atexit(late);
}

static void exiter(void) {
  printf("handler 4 calls exit(17)\n");
  exit(17);
}

static void with_arg(int status, void *arg) { printf("on_exit handler: status %d arg %s\n", status, (const char *)arg); }

int main(void) {
  atexit(first);
  atexit(second);
  atexit(exiter);
  atexit(third);
  on_exit(with_arg, "hello");
  printf("main returns 5\n");
  return 5;
}
