// Atomic read-modify-write operations in one thread: lock xadd, lock
// cmpxchg (strong and weak, success and failure), xchg, lock or/and/xor,
// fetch_or/and/xor/nand at 8, 16, 32 and 64 bits, the __sync and __atomic
// builtins, fences, and a spin lock built on test-and-set.
#include <inttypes.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static _Atomic uint64_t counter64;
static _Atomic uint32_t counter32;
static _Atomic uint16_t counter16;
static _Atomic uint8_t counter8;
static atomic_flag lock = ATOMIC_FLAG_INIT;

int main(void) {
  for (int i = 0; i < 1000; i++) {
    atomic_fetch_add(&counter64, (uint64_t)i * 1000003);
    atomic_fetch_sub(&counter32, 7);
    atomic_fetch_add_explicit(&counter16, 300, memory_order_relaxed);
    atomic_fetch_add(&counter8, 3);
  }
  printf("add/sub: %" PRIu64 " %" PRIu32 " %u %u\n", atomic_load(&counter64), atomic_load(&counter32),
         (unsigned)atomic_load(&counter16), (unsigned)atomic_load(&counter8));
  uint64_t expected = 5;
  atomic_store(&counter64, 5);
  int ok1 = atomic_compare_exchange_strong(&counter64, &expected, 99);
  expected = 5;
  int ok2 = atomic_compare_exchange_strong(&counter64, &expected, 123);
  printf("cas success %d fail %d (saw %" PRIu64 ") now %" PRIu64 "\n", ok1, ok2, expected, atomic_load(&counter64));
  uint32_t e32 = atomic_load(&counter32);
  int tries = 0;
  while (!atomic_compare_exchange_weak(&counter32, &e32, e32 * 3 + 1)) tries++;
  printf("weak cas result %" PRIu32 " (retries bounded: %d)\n", atomic_load(&counter32), tries < 100);
  // Each operation is its own statement: printf's argument order is unspecified.
  uint64_t old = atomic_exchange(&counter64, 0xfeedfacecafebeefull);
  printf("exchange old %" PRIu64 " new %016" PRIx64 "\n", old, atomic_load(&counter64));
  uint64_t r_or = atomic_fetch_or(&counter64, 0xff);
  uint64_t r_and = atomic_fetch_and(&counter64, 0xffff0000ffff0000ull);
  uint64_t r_xor = atomic_fetch_xor(&counter64, 0x0f0f0f0f0f0f0f0full);
  printf("fetch_or %016" PRIx64 " fetch_and %016" PRIx64 " fetch_xor %016" PRIx64 " final %016" PRIx64 "\n", r_or,
         r_and, r_xor, atomic_load(&counter64));

  // GCC __sync and __atomic builtins on plain variables.
  int64_t plain = 10;
  int64_t r1 = __sync_add_and_fetch(&plain, 5);
  int64_t r2 = __sync_fetch_and_sub(&plain, 20);
  int r3 = __sync_bool_compare_and_swap(&plain, -5, 77);
  int64_t r4 = __sync_val_compare_and_swap(&plain, 1, 2);
  printf("sync add_and_fetch %" PRId64 " fetch_and_sub %" PRId64 " cas %d val_cas %" PRId64 " now %" PRId64 "\n", r1,
         r2, r3, r4, plain);
  unsigned char byte = 0x0f;
  unsigned b1 = __atomic_fetch_or(&byte, 0x30, __ATOMIC_SEQ_CST);
  unsigned b2 = __atomic_fetch_nand(&byte, 0x33, __ATOMIC_SEQ_CST);
  printf("atomic byte or %02x nand %02x now %02x\n", b1, b2, byte);
  short half = -1;
  __atomic_add_fetch(&half, 2, __ATOMIC_ACQ_REL);
  unsigned char flag = 0;
  int t1 = __atomic_test_and_set(&flag, __ATOMIC_SEQ_CST);
  int t2 = __atomic_test_and_set(&flag, __ATOMIC_SEQ_CST);
  printf("atomic short %d test_and_set %d %d\n", half, t1, t2);

  long guarded = 0;
  for (int i = 0; i < 10000; i++) {
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire)) {
    }
    guarded += i;
    atomic_flag_clear_explicit(&lock, memory_order_release);
  }
  atomic_thread_fence(memory_order_seq_cst);
  __sync_synchronize();
  printf("spinlock guarded sum %ld\n", guarded);
  // An atomic field at offset 4 inside a struct.
  struct {
    char pad[4];
    _Atomic uint32_t field;
  } s = {{0}, 0};
  for (int i = 0; i < 100; i++) atomic_fetch_add(&s.field, (uint32_t)i);
  printf("struct field %" PRIu32 "\n", atomic_load(&s.field));
  return 0;
}
