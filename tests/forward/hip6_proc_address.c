// Functions the HIP runtime hands out through a pointer
// (hipGetProcAddress): the guest gets entries it can call, bound to the
// descriptions of the exports they are, even under another name
// (hipGetDeviceProperties at 600 is hipGetDevicePropertiesR0600).  Runs
// against fake_hip6_device.c's stand-in for the runtime of a machine with
// a GPU; the same source built for AArch64 and run natively against it
// prints the same.
#include <hip/hip_runtime_api.h>
#include <stdio.h>

typedef hipError_t (*version_fn)(int *);
typedef hipError_t (*properties_fn)(hipDeviceProp_t *, int);

static void *look_up(const char *symbol, int version) {
  void *fn = (void *)1;
  hipDriverProcAddressQueryResult status = HIP_GET_PROC_ADDRESS_SUCCESS;
  const hipError_t e = hipGetProcAddress(symbol, &fn, version, 0, &status);
  printf("hipGetProcAddress(%s, %d): %d, status %d, %s\n", symbol, version, (int)e, (int)status,
         fn == NULL ? "no function" : fn == (void *)1 ? "left as it was" : "a function");
  return e == hipSuccess ? fn : NULL;
}

int main(void) {
  version_fn get_version = (version_fn)look_up("hipRuntimeGetVersion", 600);
  int version = 0;
  if (get_version) {
    const hipError_t e = get_version(&version);
    printf("through it: %d, version %d\n", (int)e, version);
  }
  properties_fn get_properties = (properties_fn)look_up("hipGetDeviceProperties", 600);
  static hipDeviceProp_t prop;
  if (get_properties) {
    const hipError_t e = get_properties(&prop, 0);
    printf("through it: %d, name '%s'\n", (int)e, prop.name);
  }
  look_up("hipGetDeviceProperties", 500);
  look_up("hipNoSuchFunction", 600);
  // Asked again: the same entry.
  printf("same entry again: %s\n", look_up("hipRuntimeGetVersion", 600) == (void *)get_version ? "yes" : "no");
  return 0;
}
