// A small stack-based bytecode virtual machine with a switch dispatch
// loop: a two-pass assembler for a textual program, then programs for
// factorials, GCD, a prime count and a Collatz search, run and traced.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { PUSH, POP, DUP, SWAP, OVER, ADD, SUB, MUL, DIV, MOD, LT, EQ, JMP, JZ, LOAD, STORE, PRINT, HALT, NOP };
static const char *const op_names[] = {"push", "pop", "dup", "swap", "over", "add", "sub", "mul", "div", "mod",
                                       "lt", "eq", "jmp", "jz", "load", "store", "print", "halt", "nop"};
#define NOPS (sizeof op_names / sizeof op_names[0])

struct insn {
  enum op op;
  int64_t arg;
};

static int assemble(const char *src, struct insn *code, int max) {
  char labels[32][16];
  int label_pc[32], nlabels = 0;
  for (int pass = 0; pass < 2; pass++) {
    int pc = 0;
    char *text = strdup(src), *save;
    for (char *tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
      size_t len = strlen(tok);
      if (tok[len - 1] == ':') {
        if (pass == 0) {
          snprintf(labels[nlabels], sizeof labels[0], "%.*s", (int)(len - 1), tok);
          label_pc[nlabels++] = pc;
        }
        continue;
      }
      size_t op = 0;
      while (op < NOPS && strcmp(op_names[op], tok) != 0) op++;
      if (op == NOPS || pc >= max) { free(text); return -1; }
      code[pc].op = (enum op)op;
      code[pc].arg = 0;
      if (op == PUSH || op == JMP || op == JZ || op == LOAD || op == STORE) {
        char *arg = strtok_r(NULL, " \n", &save);
        if (pass == 1 && (op == JMP || op == JZ)) {
          for (int l = 0; l < nlabels; l++)
            if (strcmp(labels[l], arg) == 0) code[pc].arg = label_pc[l];
        } else if (op != JMP && op != JZ) {
          code[pc].arg = strtoll(arg, NULL, 0);
        }
      }
      pc++;
    }
    free(text);
    if (pass == 1) return pc;
  }
  return -1;
}

static int64_t run(const struct insn *code, int64_t *steps_out) {
  int64_t stack[256], mem[16] = {0};
  int sp = 0, pc = 0;
  int64_t steps = 0, last = 0;
  for (;;) {
    const struct insn *in = &code[pc++];
    steps++;
    switch (in->op) {
      case PUSH: stack[sp++] = in->arg; break;
      case POP: sp--; break;
      case DUP: stack[sp] = stack[sp - 1]; sp++; break;
      case SWAP: { int64_t t = stack[sp - 1]; stack[sp - 1] = stack[sp - 2]; stack[sp - 2] = t; break; }
      case OVER: stack[sp] = stack[sp - 2]; sp++; break;
      case ADD: sp--; stack[sp - 1] += stack[sp]; break;
      case SUB: sp--; stack[sp - 1] -= stack[sp]; break;
      case MUL: sp--; stack[sp - 1] *= stack[sp]; break;
      case DIV: sp--; stack[sp - 1] /= stack[sp]; break;
      case MOD: sp--; stack[sp - 1] %= stack[sp]; break;
      case LT: sp--; stack[sp - 1] = stack[sp - 1] < stack[sp]; break;
      case EQ: sp--; stack[sp - 1] = stack[sp - 1] == stack[sp]; break;
      case JMP: pc = (int)in->arg; break;
      case JZ: if (stack[--sp] == 0) pc = (int)in->arg; break;
      case LOAD: stack[sp++] = mem[in->arg]; break;
      case STORE: mem[in->arg] = stack[--sp]; break;
      case PRINT: last = stack[--sp]; printf("  out %" PRId64 "\n", last); break;
      case HALT: *steps_out = steps; return last;
      case NOP: break;
    }
  }
}

static const char *const programs[] = {
    // factorial of 20
    "push 1 store 0 push 20 store 1\n"
    "loop: load 1 jz done load 0 load 1 mul store 0 load 1 push 1 sub store 1 jmp loop\n"
    "done: load 0 print halt",
    // gcd(1071, 462) and gcd(2^40, 6^15)
    "push 1071 push 462 jmp gcd\n"
    "gcd: dup jz end swap over mod jmp gcd\n"
    "end: pop print push 1099511627776 push 470184984576\n"
    "g2: dup jz e2 swap over mod jmp g2\n"
    "e2: pop print halt",
    // count primes below 3000 by trial division
    "push 0 store 2 push 2 store 0\n"
    "outer: load 0 push 3000 lt jz fin push 2 store 1\n"
    "inner: load 0 load 1 load 1 mul lt push 0 eq jz prime load 0 load 1 mod jz next load 1 push 1 add store 1 jmp inner\n"
    "prime: load 2 push 1 add store 2\n"
    "next: load 0 push 1 add store 0 jmp outer\n"
    "fin: load 2 print halt",
    // longest Collatz chain start below 2000
    "push 1 store 0 push 0 store 3 push 0 store 4\n"
    "start: load 0 push 2000 lt jz out load 0 store 1 push 0 store 2\n"
    "step: load 1 push 1 eq push 0 eq jz chain load 1 push 2 mod jz even load 1 push 3 mul push 1 add store 1 jmp count\n"
    "even: load 1 push 2 div store 1\n"
    "count: load 2 push 1 add store 2 jmp step\n"
    "chain: load 3 load 2 lt jz skip load 2 store 3 load 0 store 4\n"
    "skip: load 0 push 1 add store 0 jmp start\n"
    "out: load 4 print load 3 print halt"};

int main(void) {
  struct insn code[256];
  for (size_t p = 0; p < sizeof programs / sizeof programs[0]; p++) {
    int n = assemble(programs[p], code, 256);
    printf("program %zu: %d instructions\n", p, n);
    if (n < 0) continue;
    int64_t steps = 0;
    int64_t result = run(code, &steps);
    printf("  result %" PRId64 " after %" PRId64 " steps\n", result, steps);
  }
  return 0;
}
