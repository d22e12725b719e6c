// ROCm 6's HIP runtime (libamdhip64.so.6) without a GPU, from a C program
// built against ROCm 6's own headers: the second soname of one library,
// forwarded by a description of its own (src/forward/libs/hip6.notes).
// Prints what each call answers.  It reaches what ROCm 6 changed: the
// versions, hipGetDeviceProperties as hipGetDevicePropertiesR0600 (a new
// hipDeviceProp_t) beside the old export, ROCm 6's new functions
// (hipExtGetLastError, hipGetProcAddress, hipDrvGetErrorName), records by
// value and a record result through the hidden pointer, and guest
// functions a runtime thread would call (hipLaunchHostFunc).  The same
// source built for AArch64 and run natively prints the same.
#include <hip/hip_runtime_api.h>
// After hip_runtime_api.h, which its declarations need.
#include <hip/hip_deprecated.h>
#include <hip/hiprtc.h>
#include <stdio.h>

unsigned short __gnu_f2h_ieee(float);
float __gnu_h2f_ieee(unsigned short);

static void report(const char *what, hipError_t e) {
  printf("%-30s %3d %s\n", what, (int)e, hipGetErrorName(e));
}

static void host_function(void *data) { ++*(int *)data; }

static void errors(void) {
  static const int codes[] = {0, 1, 2, 100, 101, 200, 209, 400, 500, 600, 700, 719, 801, 999, 1054, 12345};
  for (unsigned i = 0; i < sizeof codes / sizeof codes[0]; ++i) {
    const char *name = NULL, *text = NULL;
    const hipError_t e = (hipError_t)codes[i];
    const hipError_t n = hipDrvGetErrorName(e, &name);
    const hipError_t s = hipDrvGetErrorString(e, &text);
    printf("error %5d: %s / %s; driver: %d %s / %d %s\n", codes[i], hipGetErrorName(e), hipGetErrorString(e), (int)n,
           name ? name : "(null)", (int)s, text ? text : "(null)");
  }
}

int main(void) {
  int count = -1, runtime = 0, driver = 0;
  report("hipGetDeviceCount", hipGetDeviceCount(&count));
  printf("devices: %d\n", count);
  report("hipRuntimeGetVersion", hipRuntimeGetVersion(&runtime));
  report("hipDriverGetVersion", hipDriverGetVersion(&driver));
  printf("versions: runtime %d driver %d (HIP_VERSION of the headers %d)\n", runtime, driver, HIP_VERSION);
  report("hipExtGetLastError", hipExtGetLastError());
  report("hipGetLastError", hipGetLastError());

  hipDeviceProp_t prop;
  hipDeviceProp_tR0000 old_prop;
  printf("hipDeviceProp_t: %zu bytes, R0000: %zu bytes\n", sizeof prop, sizeof old_prop);
  report("hipGetDeviceProperties", hipGetDeviceProperties(&prop, 0));
  report("hipGetDevicePropertiesR0000", hipGetDevicePropertiesR0000(&old_prop, 0));
  int chosen = -1;
  report("hipChooseDevice", hipChooseDevice(&chosen, &prop));
  int attribute = -1;
  report("hipDeviceGetAttribute", hipDeviceGetAttribute(&attribute, hipDeviceAttributeWarpSize, 0));

  void *fn = NULL;
  hipDriverProcAddressQueryResult found = HIP_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  report("hipGetProcAddress", hipGetProcAddress("hipRuntimeGetVersion", &fn, 600, 0, &found));
  printf("hipGetProcAddress gave %s\n", fn ? "a function" : "nothing");

  hipPitchedPtr pitched = {0};
  const hipExtent extent = make_hipExtent(64, 8, 4);
  report("hipMalloc3D", hipMalloc3D(&pitched, extent));
  report("hipMemset3D", hipMemset3D(pitched, 0, extent));
  const hipChannelFormatDesc desc = hipCreateChannelDesc(8, 16, 0, 32, hipChannelFormatKindFloat);
  printf("channel desc: %d %d %d %d kind %d\n", desc.x, desc.y, desc.z, desc.w, (int)desc.f);

  int calls = 0;
  report("hipLaunchHostFunc", hipLaunchHostFunc(NULL, host_function, &calls));
  report("hipDeviceSynchronize", hipDeviceSynchronize());
  printf("host function ran %d times\n", calls);

  int major = -1, minor = -1;
  printf("hiprtcVersion: %d", (int)hiprtcVersion(&major, &minor));
  printf(" (%d.%d): %s\n", major, minor, hiprtcGetErrorString(HIPRTC_ERROR_COMPILATION));
  const unsigned short half = __gnu_f2h_ieee(-1.75f);
  printf("half of -1.75: 0x%04x, back: %g\n", half, (double)__gnu_h2f_ieee(half));
  errors();
  return count == 0 ? 3 : 0;
}
