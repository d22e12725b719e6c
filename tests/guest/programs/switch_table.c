// Switch statements: dense ones compiled to jump tables (indirect jmp
// through a table of offsets, position-independent in the PIE build),
// sparse ones compiled to compare trees, a switch on characters driving a
// tiny lexer, and GCC's computed goto (&&label) as a threaded dispatcher.
#include <inttypes.h>
#include <stdio.h>

#include "guest_common.h"

static int dense(int x) {
  switch (x) {
    case 0: return 11;
    case 1: return 23;
    case 2: return 37;
    case 3: return 41;
    case 4: return 59;
    case 5: return 61;
    case 6: return 79;
    case 7: return 83;
    case 8: return 97;
    case 9: return 101;
    case 10: return 113;
    case 11: return 127;
    case 12: return 131;
    case 13: return 149;
    case 14: return 151;
    case 15: return 167;
    default: return -1;
  }
}

static const char *sparse(unsigned x) {
  switch (x) {
    case 1: return "one";
    case 100: return "hundred";
    case 1000: return "thousand";
    case 4096: return "page";
    case 65535: return "u16max";
    case 1000000: return "million";
    case 0xdeadbeef: return "beef";
    default: return "other";
  }
}

// Fall-through and shared bodies.
static unsigned fallthrough(unsigned x) {
  unsigned r = 0;
  switch (x & 7) {
    case 0: r += 1; /* fall through */
    case 1: r += 2; /* fall through */
    case 2: r += 4; break;
    case 3:
    case 4: r += 8; /* fall through */
    case 5: r += 16; break;
    default: r = 99;
  }
  return r;
}

static void lex(const char *s) {
  int ident = 0, number = 0, ops = 0, space = 0, other = 0;
  for (; *s; s++) {
    switch (*s) {
      case 'a' ... 'z': case 'A' ... 'Z': case '_': ident++; break;
      case '0' ... '9': number++; break;
      case '+': case '-': case '*': case '/': case '=': case '<': case '>': ops++; break;
      case ' ': case '\t': case '\n': space++; break;
      default: other++;
    }
  }
  printf("lex: ident %d number %d ops %d space %d other %d\n", ident, number, ops, space, other);
}

static int64_t threaded(const unsigned char *code, int64_t acc) {
  static void *const labels[] = {&&op_halt, &&op_inc, &&op_dbl, &&op_neg, &&op_sq};
  const unsigned char *pc = code;
#define NEXT goto *labels[*pc++]
  NEXT;
op_inc:
  acc += 1;
  NEXT;
op_dbl:
  acc = acc * 2 % 1000003;
  NEXT;
op_neg:
  acc = -acc;
  NEXT;
op_sq:
  acc = acc * acc % 1000003;
  NEXT;
op_halt:
  return acc;
#undef NEXT
}

int main(void) {
  for (int x = -2; x < 18; x++) printf("dense(%d) = %d\n", x, dense(x));
  static const unsigned keys[] = {0, 1, 2, 100, 1000, 4096, 4097, 65535, 1000000, 0xdeadbeef, 0xffffffff};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) printf("sparse(%u) = %s\n", keys[i], sparse(keys[i]));
  for (unsigned x = 0; x < 8; x++) printf("fall(%u) = %u\n", x, fallthrough(x));
  lex("int main(void) { return x + 42 * y_1 - (z <= 7); }\n\tdone");
  uint64_t h = FNV_INIT;
  rng_seed(8);
  for (int i = 0; i < 50000; i++) {
    uint32_t r = rng_u32();
    h = fnv1a_u64(h, (uint64_t)dense((int)(r % 20)) + fallthrough(r) + (uint64_t)sparse(r % 5 ? r : 4096)[0]);
  }
  printf("hash %016" PRIx64 "\n", h);
  unsigned char prog[64];
  for (int i = 0; i < 63; i++) prog[i] = (unsigned char)(1 + (i * 7) % 4);
  prog[63] = 0;
  printf("threaded %" PRId64 " %" PRId64 "\n", threaded(prog, 3), threaded((const unsigned char *)"\1\1\2\4\3\0", 5));
  return 0;
}
