// Conversions between floating point and integers exactly as x86-64 does
// them: cvttsd2si returns the "integer indefinite" value (0x80000000 /
// 0x8000000000000000) for NaN and out-of-range inputs, unsigned
// conversions go through GCC's sequences, float<->double rounding and
// integer->float rounding of values above 2^24 / 2^53.  Out-of-range casts
// are undefined in C; what is printed is what this x86 binary does.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static uint32_t fbits(float f) {
  uint32_t b;
  memcpy(&b, &f, sizeof b);
  return b;
}

static uint64_t dbits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

int main(void) {
  volatile double zero = 0.0;
  const double inf = 1.0 / zero, nan = zero / zero;
  const double ds[] = {0.0, -0.0, 0.4, 0.5, 0.6, -0.5, -1.9, 1.9, 127.9, 128.0, 255.5, 256.0,
                       -129.0, 32767.5, 65535.9, 65536.0, 2147483647.0, 2147483647.9, 2147483648.0,
                       -2147483648.0, -2147483648.9, -2147483649.0, 4294967295.0, 4294967296.0,
                       9.2233720368547748e18, 9.2233720368547758e18, -9.2233720368547758e18,
                       1.8446744073709550e19, 1.8446744073709552e19, 1e20, -1e20, 1e300, 5e-324,
                       inf, -inf, nan, -nan};
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    volatile double d = ds[i];
    volatile float f = (float)d;
    printf("%-24.17g i8 %d u8 %u i16 %d u16 %u i32 %" PRId32 " u32 %" PRIu32 "\n", d, (int8_t)d,
           (uint8_t)d, (int16_t)d, (uint16_t)d, (int32_t)d, (uint32_t)d);
    printf("%24s i64 %" PRId64 " u64 %" PRIu64 " f %.9g (%08" PRIx32 ") fi32 %" PRId32 " fu64 %" PRIu64 "\n", "",
           (int64_t)d, (uint64_t)d, (double)f, fbits(f), (int32_t)f, (uint64_t)f);
  }
  // Integer -> floating point, with rounding at 2^24 and 2^53.
  const int64_t is[] = {0, 1, -1, 16777216, 16777217, 16777219, -16777217, 9007199254740992ll,
                        9007199254740993ll, 9007199254740995ll, INT64_MAX, INT64_MIN, 0x7ffffffffffffdffll};
  for (size_t i = 0; i < sizeof is / sizeof is[0]; i++) {
    volatile int64_t v = is[i];
    volatile uint64_t u = (uint64_t)is[i];
    volatile int32_t w = (int32_t)is[i];
    volatile uint32_t uw = (uint32_t)is[i];
    printf("%" PRId64 ": d %.17g f %.9g | u %" PRIu64 ": d %.17g f %.9g | i32 f %.9g u32 d %.17g f %.9g\n", v,
           (double)v, (double)(float)v, u, (double)u, (double)(float)u, (double)(float)w, (double)uw,
           (double)(float)uw);
  }
  // double -> float rounding: ties, overflow to inf, underflow to denormal/zero.
  const double to_f[] = {1.0000000596046448, 1.0000000596046449, 3.4028235677973366e38, 3.4028236e38,
                         1e39, 1.4012984643248171e-45, 7.006492321624085e-46, 7.0064923216240854e-46,
                         1e-46, -1e-46, 0.1};
  for (size_t i = 0; i < sizeof to_f / sizeof to_f[0]; i++) {
    volatile double d = to_f[i];
    float f = (float)d;
    double back = f;
    printf("(float)%.17g = %.9g %08" PRIx32 " back %016" PRIx64 "\n", d, (double)f, fbits(f), dbits(back));
  }
  volatile float fnan = (float)nan;
  printf("nan float bits %08" PRIx32 " double bits %016" PRIx64 " back %016" PRIx64 "\n", fbits(fnan),
         dbits(nan), dbits((double)fnan));
  // A signalling NaN is quieted by conversion.
  uint64_t snan_bits = 0x7ff0000000000001ull;
  double snan;
  memcpy(&snan, &snan_bits, sizeof snan);
  volatile double vs = snan;
  printf("snan -> float %08" PRIx32 "\n", fbits((float)vs));
  return 0;
}
