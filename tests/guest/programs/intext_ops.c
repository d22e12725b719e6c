// ADX (adcx/adox carry chains), MOVBE, CMPXCHG8B/CMPXCHG16B (with and
// without lock: results, ZF and the RDX:RAX update), LAHF/SAHF, PAUSE,
// fences and prefetches.  Ends with a cmpxchg16b on a misaligned address,
// which is #GP: the program dies by SIGSEGV like the native run.
// Built with -madx -mmovbe -mcx16.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <x86intrin.h>

#include "guest_common.h"

#define FLAG_BITS 0x8d5u

static uint64_t digest = FNV_INIT;

// adcx then adox on the same operands, each starting from both values of
// its own carry flag, the other flags set to a pattern that must survive.
static void adx(uint64_t a, uint64_t b, int print) {
  static const uint64_t flag_inputs[] = {0x202, 0x202 | FLAG_BITS, 0x202 | 0x001, 0x202 | 0x800, 0x202 | 0x0d4};
  for (int i = 0; i < 5; i++) {
    uint64_t r1 = a, r2 = a, f1, f2;
    uint32_t r3 = (uint32_t)a, r4 = (uint32_t)a;
    uint64_t f3, f4;
    __asm__ volatile("pushq %3; popfq; adcx %2, %0; pushfq; popq %1" : "+r"(r1), "=&r"(f1) : "rm"(b), "r"(flag_inputs[i]) : "cc");
    __asm__ volatile("pushq %3; popfq; adox %2, %0; pushfq; popq %1" : "+r"(r2), "=&r"(f2) : "rm"(b), "r"(flag_inputs[i]) : "cc");
    __asm__ volatile("pushq %3; popfq; adcx %2, %0; pushfq; popq %1" : "+r"(r3), "=&r"(f3) : "rm"((uint32_t)b), "r"(flag_inputs[i]) : "cc");
    __asm__ volatile("pushq %3; popfq; adox %2, %0; pushfq; popq %1" : "+r"(r4), "=&r"(f4) : "rm"((uint32_t)b), "r"(flag_inputs[i]) : "cc");
    uint64_t v[] = {r1, f1 & FLAG_BITS, r2, f2 & FLAG_BITS, r3, f3 & FLAG_BITS, r4, f4 & FLAG_BITS};
    digest = fnv1a(digest, v, sizeof v);
    if (print)
      printf("adx %016" PRIx64 " %016" PRIx64 " fl %03" PRIx64 ": %016" PRIx64 " %03" PRIx64 " %016" PRIx64
             " %03" PRIx64 " %08" PRIx64 " %03" PRIx64 " %08" PRIx64 " %03" PRIx64 "\n",
             a, b, flag_inputs[i], v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]);
  }
}

// A 256-bit addition the way multi-precision code interleaves two chains.
static void wide_add(void) {
  unsigned long long x[4] = {~0ull, ~0ull, 5, ~0ull}, y[4] = {1, 0, ~0ull, 1}, r[4];
  unsigned char c = 0;
  for (int i = 0; i < 4; i++) c = _addcarryx_u64(c, x[i], y[i], &r[i]);
  printf("addcarryx %llx %llx %llx %llx carry %u\n", r[3], r[2], r[1], r[0], c);
}

static void movbe_all(uint64_t v) {
  uint64_t m64 = v, r64;
  uint32_t m32 = (uint32_t)v, r32;
  uint16_t m16 = (uint16_t)v;
  uint64_t r16_full = 0xabcdabcdabcdabcdull;  // movbe r16 keeps the upper bits
  __asm__("movbe %1, %0" : "=r"(r64) : "m"(m64));
  __asm__("movbe %1, %0" : "=r"(r32) : "m"(m32));
  __asm__("movbe %1, %w0" : "+r"(r16_full) : "m"(m16));
  uint64_t s64;
  uint32_t s32;
  uint16_t s16;
  __asm__("movbe %1, %0" : "=m"(s64) : "r"(v));
  __asm__("movbe %1, %0" : "=m"(s32) : "r"((uint32_t)v));
  __asm__("movbe %w1, %0" : "=m"(s16) : "r"(v));
  printf("movbe %016" PRIx64 ": %016" PRIx64 " %08" PRIx32 " %016" PRIx64 " | %016" PRIx64 " %08" PRIx32 " %04x\n", v,
         r64, r32, r16_full, s64, s32, s16);
}

static void cmpxchg8b_case(uint64_t mem, uint64_t rax, uint64_t rdx, int lock, uint64_t flags_in) {
  uint64_t rbx = 0xffffffff33333333ull, rcx = 0xeeeeeeee44444444ull, fl;
  if (lock)
    __asm__ volatile("pushq %6; popfq; lock cmpxchg8b %0; pushfq; popq %3"
                     : "+m"(mem), "+a"(rax), "+d"(rdx), "=r"(fl) : "b"(rbx), "c"(rcx), "r"(flags_in) : "cc");
  else
    __asm__ volatile("pushq %6; popfq; cmpxchg8b %0; pushfq; popq %3"
                     : "+m"(mem), "+a"(rax), "+d"(rdx), "=r"(fl) : "b"(rbx), "c"(rcx), "r"(flags_in) : "cc");
  printf("cmpxchg8b%s mem %016" PRIx64 " rax %016" PRIx64 " rdx %016" PRIx64 " fl %03" PRIx64 "\n", lock ? " lock" : "",
         mem, rax, rdx, fl & FLAG_BITS);
}

static union {
  unsigned __int128 whole;
  uint64_t half[2];
  char bytes[32];
} slot;
#define pair slot.half

static void cmpxchg16b_case(uint64_t lo, uint64_t hi, uint64_t rax, uint64_t rdx, int lock, uint64_t flags_in) {
  pair[0] = lo, pair[1] = hi;
  uint64_t rbx = 0x1111111111111111ull, rcx = 0x2222222222222222ull, fl;
  if (lock)
    __asm__ volatile("pushq %6; popfq; lock cmpxchg16b %0; pushfq; popq %3"
                     : "+m"(slot.whole), "+a"(rax), "+d"(rdx), "=r"(fl) : "b"(rbx), "c"(rcx), "r"(flags_in) : "cc");
  else
    __asm__ volatile("pushq %6; popfq; cmpxchg16b %0; pushfq; popq %3"
                     : "+m"(slot.whole), "+a"(rax), "+d"(rdx), "=r"(fl) : "b"(rbx), "c"(rcx), "r"(flags_in) : "cc");
  printf("cmpxchg16b%s mem %016" PRIx64 " %016" PRIx64 " rax %016" PRIx64 " rdx %016" PRIx64 " fl %03" PRIx64 "\n",
         lock ? " lock" : "", pair[1], pair[0], rax, rdx, fl & FLAG_BITS);
}

static void lahf_sahf(uint64_t flags_in) {
  uint64_t rax = 0x1234567890abcdefull, fl;
  __asm__ volatile("pushq %1; popfq; lahf" : "+a"(rax) : "r"(flags_in) : "cc");
  uint64_t after_lahf = rax;
  rax = (flags_in & 0xff) << 8 ^ 0xd500;  // the complement of the flags in AH
  __asm__ volatile("pushq %2; popfq; sahf; pushfq; popq %1" : "+a"(rax), "=r"(fl) : "r"(flags_in) : "cc");
  printf("lahf %03" PRIx64 " -> rax %016" PRIx64 "; sahf -> fl %03" PRIx64 "\n", flags_in, after_lahf, fl & FLAG_BITS);
}

int main(void) {
  static const uint64_t edges[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffffull,
                                   0x8000000000000000ull, 0xfffffffffffffffeull, 0xffffffffffffffffull};
  for (int i = 0; i < 9; i++)
    for (int j = 0; j < 9; j += 2) adx(edges[i], edges[j], 1);
  rng_seed(7);
  for (int i = 0; i < 2000; i++) adx(rng_next(), rng_next(), 0);
  printf("adx digest %016" PRIx64 "\n", digest);
  wide_add();
  for (int i = 0; i < 9; i++) movbe_all(edges[i] ^ 0x0102030405060708ull);

  for (int lock = 0; lock < 2; lock++) {
    for (int f = 0; f < 2; f++) {
      uint64_t flags_in = f ? 0x202 | FLAG_BITS : 0x202;
      cmpxchg8b_case(0x1111111122222222ull, 0xdeadbeef22222222ull, 0xcafef00d11111111ull, lock, flags_in);  // equal
      cmpxchg8b_case(0x1111111122222222ull, 0xdeadbeef22222223ull, 0xcafef00d11111111ull, lock, flags_in);  // low differs
      cmpxchg8b_case(0x1111111122222222ull, 0x22222222ull, 0x11111110ull, lock, flags_in);  // high differs
      cmpxchg16b_case(5, 6, 5, 6, lock, flags_in);
      cmpxchg16b_case(5, 6, 5, 7, lock, flags_in);
      cmpxchg16b_case(5, 6, 4, 6, lock, flags_in);
      cmpxchg16b_case(~0ull, 0, ~0ull, 0, lock, flags_in);
    }
  }
  // What compilers make of a 16-byte compare-and-swap with -mcx16.
  unsigned __int128 *p = &slot.whole, expected = 12, desired = ((unsigned __int128)3 << 64) | 4;
  *p = 12;
  int ok = __sync_bool_compare_and_swap(p, expected, desired);
  printf("sync cas %d %016" PRIx64 " %016" PRIx64 "\n", ok, pair[1], pair[0]);
  ok = __sync_bool_compare_and_swap(p, expected, desired);
  printf("sync cas again %d\n", ok);

  static const uint64_t flag_sets[] = {0x202, 0x202 | FLAG_BITS, 0x203, 0x246, 0x296, 0xa13};
  for (int i = 0; i < 6; i++) lahf_sahf(flag_sets[i]);

  __asm__ volatile("pause; lfence; mfence; sfence");
  _mm_prefetch((const char *)pair, _MM_HINT_T0);
  _mm_prefetch((const char *)pair, _MM_HINT_T1);
  _mm_prefetch((const char *)pair, _MM_HINT_T2);
  _mm_prefetch((const char *)pair, _MM_HINT_NTA);
  __builtin_prefetch(pair, 1);
  printf("fences and prefetches done\n");
  fflush(stdout);

  // #GP: a cmpxchg16b operand must be 16-byte aligned.
  char *misaligned = slot.bytes + 8;
  __asm__ volatile("" : "+r"(misaligned));
  uint64_t rax = 0, rdx = 0;
  __asm__ volatile("lock cmpxchg16b (%2)" : "+a"(rax), "+d"(rdx) : "r"(misaligned), "b"(1ull), "c"(2ull) : "cc", "memory");
  printf("not reached\n");
  return 0;
}
