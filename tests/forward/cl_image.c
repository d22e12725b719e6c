// Images through forwarded OpenCL: a 2D RGBA8 image made from host data
// (cl_image_format and cl_image_desc by pointer), a kernel that reads it
// with a sampler and writes each pixel's channel sum to a buffer, and the
// image read back in a region.  Checked against the host's values; the
// AArch64 build prints the same.
#include <string.h>

#include "cl_common.h"

#define W 64
#define H 48

static const char *kSource =
    "__constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "__kernel void channel_sum(__read_only image2d_t img, __global uint *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  uint4 p = read_imageui(img, s, (int2)(x, y));\n"
    "  out[y * get_image_width(img) + x] = p.x + p.y + p.z + p.w;\n"
    "}\n";

int main(void) {
  struct cl_setup cl = cl_open();
  cl_context context = cl.context;
  cl_command_queue queue = cl.queue;
  cl_int err;
  cl_bool images = CL_FALSE;
  check(clGetDeviceInfo(cl.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL), "clGetDeviceInfo");
  printf("image support: %s\n", images ? "yes" : "no");
  if (!images) return 0;

  static unsigned char pixels[H][W][4];
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < 4; ++c) pixels[y][x][c] = (unsigned char)(x * 3 + y * 5 + c * 61);
  const cl_image_format format = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = W;
  desc.image_height = H;
  cl_mem image = clCreateImage(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc, pixels, &err);
  check(err, "clCreateImage");
  cl_image_format got;
  check(clGetImageInfo(image, CL_IMAGE_FORMAT, sizeof got, &got, NULL), "clGetImageInfo");
  printf("image %dx%d, order %#x, type %#x\n", W, H, got.image_channel_order, got.image_channel_data_type);

  cl_program program = cl_build(&cl, kSource, NULL, NULL);
  cl_kernel kernel = cl_kernel_named(program, "channel_sum");
  cl_mem sums = clCreateBuffer(context, CL_MEM_WRITE_ONLY, W * H * sizeof(cl_uint), NULL, &err);
  check(err, "clCreateBuffer");
  check(clSetKernelArg(kernel, 0, sizeof image, &image), "clSetKernelArg 0");
  check(clSetKernelArg(kernel, 1, sizeof sums, &sums), "clSetKernelArg 1");
  const size_t global[2] = {W, H};
  check(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  static cl_uint result[H * W];
  check(clEnqueueReadBuffer(queue, sums, CL_TRUE, 0, sizeof result, result, 0, NULL, NULL), "clEnqueueReadBuffer");
  int wrong = 0;
  unsigned long long total = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      unsigned want = 0;
      for (int c = 0; c < 4; ++c) want += pixels[y][x][c];
      wrong += result[y * W + x] != want;
      total += result[y * W + x];
    }
  static unsigned char region_pixels[8][16][4];
  const size_t origin[3] = {10, 20, 0}, region[3] = {16, 8, 1};
  check(clEnqueueReadImage(queue, image, CL_TRUE, origin, region, 0, 0, region_pixels, 0, NULL, NULL),
        "clEnqueueReadImage");
  int region_wrong = 0;
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 16; ++x) region_wrong += memcmp(region_pixels[y][x], pixels[20 + y][10 + x], 4) != 0;
  printf("channel sums: %d wrong, total %llu; region read back: %d wrong\n", wrong, total, region_wrong);
  cl_release(&cl, program, kernel, (cl_mem[]){sums, image}, 2);
  return wrong != 0 || region_wrong != 0;
}
