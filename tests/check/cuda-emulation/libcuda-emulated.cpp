/* gst-avhw tests: a stand-in for libcuda.so.1 that runs the CUDA
 * backend's kernel source (backends/cuda/kernels/avhw-convert.cu) on the
 * CPU, compiled as host C++, one call per thread of each launch.
 *
 * It implements the few driver calls libs/cuda-kernels makes: memory is
 * host memory, a module is the compiled-in kernels (any image "loads"),
 * the device is "sm_90". Every other symbol ffnvcodec's loader looks up
 * is a stub that fails (stubs.py). With LD_LIBRARY_PATH pointing here,
 * libs/cuda-kernels-emulated checks the kernel's arithmetic, geometry and
 * stores against the test's CPU reference on machines without a GPU; what
 * the CUDA compilers make of that source is checked only on a device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avhw-convert.cu"

avhw_dim3 avhw_emu_thread, avhw_emu_block, avhw_emu_block_dim;

typedef int CUresult;
typedef void (*EmuKernel) (AvhwConvertParams);

#define EMU_NOT_FOUND 500

extern "C"
{
  CUresult cuInit (unsigned)
  {
    return 0;
  }

  CUresult cuDeviceGetCount (int *count)
  {
    *count = 1;
    return 0;
  }

  CUresult cuDeviceGet (int *dev, int)
  {
    *dev = 0;
    return 0;
  }

  CUresult cuDeviceGetName (char *name, int len, int)
  {
    snprintf (name, len, "CPU emulation of avhw-convert.cu");
    return 0;
  }

  CUresult cuDeviceComputeCapability (int *major, int *minor, int)
  {
    *major = 9;
    *minor = 0;
    return 0;
  }

  CUresult cuDevicePrimaryCtxRetain (void **ctx, int)
  {
    *ctx = (void *) &avhw_emu_thread;
    return 0;
  }

  CUresult cuDevicePrimaryCtxRelease (int)
  {
    return 0;
  }

  CUresult cuDevicePrimaryCtxRelease_v2 (int)
  {
    return 0;
  }

  CUresult cuCtxPushCurrent_v2 (void *)
  {
    return 0;
  }

  CUresult cuCtxPopCurrent_v2 (void **ctx)
  {
    *ctx = (void *) &avhw_emu_thread;
    return 0;
  }

  CUresult cuCtxGetDevice (int *dev)
  {
    *dev = 0;
    return 0;
  }

  CUresult cuModuleLoadData (void **module, const void *)
  {
    *module = (void *) &avhw_emu_block;
    return 0;
  }

  CUresult cuModuleUnload (void *)
  {
    return 0;
  }

  CUresult cuModuleGetFunction (void **f, void *, const char *name)
  {
    if (strcmp (name, AVHW_CONVERT_ENTRY_NV12) == 0)
      *f = (void *) avhw_convert_nv12;
    else if (strcmp (name, AVHW_CONVERT_ENTRY_P010) == 0)
      *f = (void *) avhw_convert_p010;
    else if (strcmp (name, AVHW_CONVERT_ENTRY_I420) == 0)
      *f = (void *) avhw_convert_i420;
    else
      return EMU_NOT_FOUND;
    return 0;
  }

  CUresult cuLaunchKernel (void *f, unsigned gx, unsigned gy, unsigned gz,
      unsigned bx, unsigned by, unsigned bz, unsigned, void *, void **args,
      void **)
  {
    AvhwConvertParams p = *(AvhwConvertParams *) args[0];

    if (gz != 1 || bz != 1)
      return 1;
    avhw_emu_block_dim.x = bx;
    avhw_emu_block_dim.y = by;
    for (unsigned j = 0; j < gy; j++)
      for (unsigned i = 0; i < gx; i++)
        for (unsigned ty = 0; ty < by; ty++)
          for (unsigned tx = 0; tx < bx; tx++) {
            avhw_emu_block.x = i;
            avhw_emu_block.y = j;
            avhw_emu_thread.x = tx;
            avhw_emu_thread.y = ty;
            ((EmuKernel) f) (p);
          }
    return 0;
  }

  CUresult cuMemAlloc_v2 (unsigned long long *ptr, size_t size)
  {
    *ptr = (unsigned long long) malloc (size);
    return *ptr ? 0 : 2;
  }

  CUresult cuMemFree_v2 (unsigned long long ptr)
  {
    free ((void *) ptr);
    return 0;
  }

  CUresult cuMemcpyHtoD_v2 (unsigned long long dst, const void *src,
      size_t size)
  {
    memcpy ((void *) dst, src, size);
    return 0;
  }

  CUresult cuMemcpyDtoH_v2 (void *dst, unsigned long long src, size_t size)
  {
    memcpy (dst, (const void *) src, size);
    return 0;
  }

  CUresult cuMemsetD8Async (unsigned long long dst, unsigned char v,
      size_t size, void *)
  {
    memset ((void *) dst, v, size);
    return 0;
  }

  CUresult cuStreamSynchronize (void *)
  {
    return 0;
  }

  CUresult cuGetErrorName (CUresult res, const char **name)
  {
    *name = res == EMU_NOT_FOUND ? "CUDA_ERROR_NOT_FOUND" :
        "CUDA_ERROR_NOT_SUPPORTED";
    return 0;
  }

  CUresult cuGetErrorString (CUresult res, const char **desc)
  {
    *desc = res == EMU_NOT_FOUND ? "named symbol not found" :
        "not in the CPU emulation";
    return 0;
  }
}
