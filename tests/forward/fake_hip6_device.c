// An AArch64 stand-in for libamdhip64.so.6 that answers hipGetProcAddress
// as ROCm 6 does on a machine with a GPU (the real one, without a GPU,
// answers hipErrorNoDevice first): it hands out its own exports, and for
// hipGetDeviceProperties at version 600 or later the R0600 function, the
// name ROCm 6's headers use.  Only what hip6_proc_address.c calls.
#include <stdint.h>
#include <string.h>

typedef int hipError_t;
enum { kSuccess = 0, kInvalidValue = 1, kNotFound = 500 };
enum { kSymbolFound = 0, kSymbolNotFound = 1, kVersionNotSufficient = 2 };

hipError_t hipRuntimeGetVersion(int *version) {
  if (!version) return kInvalidValue;
  *version = 60443484;
  return kSuccess;
}

// The record is the guest's hipDeviceProp_t; its first field is the name.
hipError_t hipGetDevicePropertiesR0600(char *prop, int device) {
  if (!prop || device != 0) return kInvalidValue;
  strcpy(prop, "stand-in gfx1030");
  return kSuccess;
}

hipError_t hipGetProcAddress(const char *symbol, void **fn, int version, uint64_t flags, int *status) {
  (void)flags;
  if (!symbol || !fn) return kInvalidValue;
  *fn = NULL;
  if (strcmp(symbol, "hipRuntimeGetVersion") == 0) {
    *fn = (void *)hipRuntimeGetVersion;
  } else if (strcmp(symbol, "hipGetDeviceProperties") == 0) {
    if (version < 600) {
      if (status) *status = kVersionNotSufficient;
      return kNotFound;
    }
    *fn = (void *)hipGetDevicePropertiesR0600;
  } else {
    if (status) *status = kSymbolNotFound;
    return kNotFound;
  }
  if (status) *status = kSymbolFound;
  return kSuccess;
}
