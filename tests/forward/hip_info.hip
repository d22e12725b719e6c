// ROCm's HIP runtime without a GPU, from a program hipcc built: its GPU
// code (for gfx1030) is registered at start-up (__hipRegisterFatBinary,
// __hipRegisterFunction), and kernel launches go through the launch
// configuration calls and hipLaunchKernel.  Prints what each call answers:
// hipGetDeviceCount says hipErrorNoDevice where no GPU is.  Records travel
// by value (dim3, hipExtent, hipPitchedPtr, a hipChannelFormatDesc result
// through a hidden pointer), floats too, and a stream callback is handed
// over (the runtime would call it on a thread of its own).  The same
// source built for AArch64 and run natively prints the same.
#include <hip/hip_runtime.h>

#include <cstdio>

extern "C" unsigned short __gnu_f2h_ieee(float);
extern "C" float __gnu_h2f_ieee(unsigned short);

__global__ void scale(float *x, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
}

static void report(const char *what, hipError_t e) {
  std::printf("%-28s %3d %s\n", what, static_cast<int>(e), hipGetErrorName(e));
}

static void on_done(hipStream_t, hipError_t, void *) {}

int main() {
  int count = -1, version = 0;
  report("hipGetDeviceCount", hipGetDeviceCount(&count));
  std::printf("devices: %d\n", count);
  report("hipRuntimeGetVersion", hipRuntimeGetVersion(&version));
  std::printf("runtime version: %d\n", version);
  report("hipSetDevice", hipSetDevice(0));
  hipDeviceProp_t prop;
  report("hipGetDeviceProperties", hipGetDeviceProperties(&prop, 0));
  float *device = nullptr;
  report("hipMalloc", hipMalloc(&device, 1024));
  void *pinned = nullptr;
  report("hipHostMalloc", hipHostMalloc(&pinned, 4096, 0));
  hipLaunchKernelGGL(scale, dim3(4), dim3(64), 0, 0, device, 2.0f, 256);
  report("hipLaunchKernelGGL", hipGetLastError());
  scale<<<dim3(2, 2), dim3(32, 2)>>>(device, 0.5f, 256);
  report("scale<<<...>>>", hipGetLastError());
  report("hipStreamAddCallback", hipStreamAddCallback(nullptr, on_done, nullptr, 0));
  hipPitchedPtr pitched = {};
  const hipExtent extent = make_hipExtent(64, 8, 4);
  report("hipMalloc3D", hipMalloc3D(&pitched, extent));
  report("hipMemset3D", hipMemset3D(pitched, 0, extent));
  report("hipTexRefSetMipmapLevelClamp", hipTexRefSetMipmapLevelClamp(nullptr, 0.5f, 2.0f));
  report("hipDeviceSynchronize", hipDeviceSynchronize());
  const hipChannelFormatDesc desc = hipCreateChannelDesc(8, 16, 0, 32, hipChannelFormatKindFloat);
  std::printf("channel desc: %d %d %d %d kind %d\n", desc.x, desc.y, desc.z, desc.w, static_cast<int>(desc.f));
  const unsigned short half = __gnu_f2h_ieee(-1.75f);
  std::printf("half of -1.75: 0x%04x, back: %g\n", half, static_cast<double>(__gnu_h2f_ieee(half)));
  std::printf("hipErrorNoDevice: %s\n", hipGetErrorString(hipErrorNoDevice));
  return count == 0 ? 3 : 0;
}
