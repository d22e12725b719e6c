// glibc's pseudo-random generators are fully determined by their seeds:
// rand/srand (the additive feedback generator), random/srandom with
// initstate/setstate, rand_r, and the 48-bit family drand48/lrand48/
// mrand48/erand48/seed48; plus div/ldiv/llabs/imaxabs helpers.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  srand(1);
  printf("rand seed 1:");
  for (int i = 0; i < 8; i++) printf(" %d", rand());
  printf("\n");
  srand(12345);
  long long sum = 0;
  for (int i = 0; i < 100000; i++) sum += rand() % 1000;
  printf("rand seed 12345 sum of 100000 %% 1000: %lld\n", sum);

  static char state[256];
  initstate(42, state, sizeof state);
  printf("random with 256-byte state:");
  for (int i = 0; i < 6; i++) printf(" %ld", random());
  printf("\n");
  static char small_state[8];
  char *old = setstate(state);
  (void)old;
  initstate(7, small_state, sizeof small_state);  // 8 bytes: a plain LCG
  printf("random with 8-byte state:");
  for (int i = 0; i < 6; i++) printf(" %ld", random());
  printf("\n");

  unsigned seed = 2024;
  printf("rand_r:");
  for (int i = 0; i < 6; i++) printf(" %d", rand_r(&seed));
  printf("\n");

  srand48(987654321);
  // One call per statement: the generators share state and printf's
  // arguments are evaluated in an unspecified order.
  double d1 = drand48();
  double d2 = drand48();
  long l1 = lrand48();
  long m1 = mrand48();
  printf("drand48 %.17g %.17g lrand48 %ld mrand48 %ld\n", d1, d2, l1, m1);
  unsigned short xsubi[3] = {1, 2, 3};
  double e1 = erand48(xsubi);
  long n1 = nrand48(xsubi);
  long j1 = jrand48(xsubi);
  printf("erand48 %.17g nrand48 %ld jrand48 %ld\n", e1, n1, j1);
  unsigned short newseed[3] = {0x1234, 0x5678, 0x9abc};
  seed48(newseed);
  double acc = 0;
  for (int i = 0; i < 10000; i++) acc += drand48();
  printf("seed48 sum of 10000 drand48 %.17g\n", acc);

  div_t d = div(-17, 5);
  ldiv_t ld = ldiv(17L, -5L);
  lldiv_t lld = lldiv(-9000000000000000000LL, 7LL);
  printf("div %d %d ldiv %ld %ld lldiv %lld %lld\n", d.quot, d.rem, ld.quot, ld.rem, lld.quot, lld.rem);
  printf("abs %d labs %ld llabs %lld imaxabs %jd\n", abs(-5), labs(-7L), llabs(-9000000000000000000LL), imaxabs(-3));
  return 0;
}
