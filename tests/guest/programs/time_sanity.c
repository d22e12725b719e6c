// Clock and time functions, printing only facts that hold on every run:
// CLOCK_MONOTONIC never goes backwards over many reads, CLOCK_REALTIME
// agrees with time() and gettimeofday(), nanosleep sleeps at least as long
// as asked, clock_getres answers, CPU-time clocks advance with work, and
// gmtime/strftime/mktime convert a fixed date the same way.
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static long long ns(struct timespec t) { return (long long)t.tv_sec * 1000000000ll + t.tv_nsec; }

static const char *ok(int cond) { return cond ? "ok" : "FAILED"; }

int main(void) {
  struct timespec prev, now;
  clock_gettime(CLOCK_MONOTONIC, &prev);
  int backwards = 0, bad_nsec = 0;
  for (int i = 0; i < 20000; i++) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (ns(now) < ns(prev)) backwards++;
    if (now.tv_nsec < 0 || now.tv_nsec >= 1000000000) bad_nsec++;
    prev = now;
  }
  printf("monotonic non-decreasing: %s\n", ok(backwards == 0 && bad_nsec == 0));

  struct timespec real;
  clock_gettime(CLOCK_REALTIME, &real);
  time_t t = time(NULL);
  struct timeval tv;
  gettimeofday(&tv, NULL);
  printf("realtime after 2020: %s\n", ok(real.tv_sec > 1577836800));
  // time() reads the kernel's seconds as of the last tick, which lag the
  // clock_gettime reading by up to a tick at a second boundary.
  printf("time() agrees with clock_gettime: %s\n", ok(t >= real.tv_sec - 1 && t - real.tv_sec < 5));
  printf("gettimeofday agrees: %s\n", ok(tv.tv_sec >= real.tv_sec && tv.tv_sec - real.tv_sec < 5 && tv.tv_usec < 1000000));

  struct timespec before, after, req = {0, 2000000};  // 2 ms
  clock_gettime(CLOCK_MONOTONIC, &before);
  int r = nanosleep(&req, NULL);
  clock_gettime(CLOCK_MONOTONIC, &after);
  printf("nanosleep returns 0: %s, slept >= 2ms: %s\n", ok(r == 0), ok(ns(after) - ns(before) >= 2000000));

  struct timespec res;
  printf("clock_getres monotonic: %s\n", ok(clock_getres(CLOCK_MONOTONIC, &res) == 0 && ns(res) > 0 && ns(res) <= 10000000));

  struct timespec c0, c1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  volatile double x = 0;
  for (int i = 0; i < 300000; i++) x = x + i * 0.5;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  printf("cpu time advances: %s\n", ok(ns(c1) >= ns(c0)));
  clock_t ct = clock();
  printf("clock() non-negative: %s\n", ok(ct >= 0));

  // Pure calendar arithmetic on a fixed instant (no time zone: TZ unset is UTC).
  time_t fixed = 1700000000;
  struct tm tm;
  gmtime_r(&fixed, &tm);
  char buf[64];
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %a %j", &tm);
  printf("gmtime(1700000000) = %s\n", buf);
  tm.tm_mday += 40;  // normalised by timegm
  time_t later = timegm(&tm);
  strftime(buf, sizeof buf, "%Y-%m-%d %A", &tm);
  printf("+40 days = %s (%lld)\n", buf, (long long)later);
  printf("difftime %.1f\n", difftime(later, fixed));
  return 0;
}
