/* gst-avhw tests: a stand-in for libcuda.so.1 that runs the CUDA
 * backend's kernel source (backends/cuda/kernels/avhw-convert.cu) on the
 * CPU, compiled as host C++, one call per thread of each launch.
 *
 * Device memory is host memory (what cuMemAlloc gives is a malloc()ed
 * pointer, and a CUdeviceptr is that pointer), a module is the
 * compiled-in kernels (any image "loads"), the device is one "sm_90"
 * with its primary context, streams and events are synchronous. That is
 * enough for libs/cuda-kernels (the kernel against the test's CPU
 * reference) and for FFmpeg's hwcontext_cuda and the CUDA backend on top
 * (contexts pushed and popped per thread, frames allocated, 2D copies both
 * ways, the texture alignment attribute): elements/convertscale-cuda-
 * emulated runs avhwupload device=cuda ! avhwconvertscale ! avhwdownload
 * through it. Every other symbol ffnvcodec's loader looks up is a stub
 * that fails with CUDA_ERROR_NOT_SUPPORTED and says its name on stderr
 * (stubs.py); NVDEC and NVENC (libnvcuvid, libnvidia-encode) are not
 * emulated. What the CUDA compilers make of the kernel source is checked
 * only on a device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ffnvcodec/dynlink_cuda.h>

#include "avhw-convert.cu"

/* The driver's results as plain ints here (ffnvcodec's CUresult is an
 * enum, which C++ does not make from an int); the ABI is the same. */
#define CUresult int

avhw_dim3 avhw_emu_thread, avhw_emu_block, avhw_emu_block_dim;

typedef void (*EmuKernel) (AvhwConvertParams);

#define EMU_NOT_FOUND 500
#define EMU_INVALID_VALUE 1
#define EMU_OUT_OF_MEMORY 2
#define EMU_INVALID_CONTEXT 201
/* the texture alignment H200s report (FFmpeg aligns frame planes to it) */
#define EMU_TEXTURE_ALIGNMENT 512
#define EMU_MAX_STACK 16

/* The primary context, and those cuCtxCreate makes: a flag word each. */
struct CUctx_st
{
  unsigned flags;
};
static struct CUctx_st emu_primary;
static int emu_primary_refs;
static int emu_primary_flags_set;

/* Each thread's stack of current contexts. */
static __thread CUcontext emu_stack[EMU_MAX_STACK];
static __thread int emu_depth;

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

  CUresult cuDeviceGetAttribute (int *value, int attrib, int)
  {
    switch (attrib) {
      case 14:                 /* CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT */
        *value = EMU_TEXTURE_ALIGNMENT;
        break;
      case 75:                 /* ..._COMPUTE_CAPABILITY_MAJOR */
        *value = 9;
        break;
      case 76:                 /* ..._COMPUTE_CAPABILITY_MINOR */
        *value = 0;
        break;
      case 16:                 /* ..._MULTIPROCESSOR_COUNT */
        *value = 1;
        break;
      default:
        *value = 0;
        break;
    }
    return 0;
  }

  CUresult cuDeviceTotalMem_v2 (size_t *bytes, int)
  {
    *bytes = (size_t) 1 << 30;
    return 0;
  }

  CUresult cuDeviceGetUuid (CUuuid * uuid, int)
  {
    memset (uuid, 0xa5, sizeof (*uuid));
    return 0;
  }

  CUresult cuDeviceGetUuid_v2 (CUuuid * uuid, int dev)
  {
    return cuDeviceGetUuid (uuid, dev);
  }

  CUresult cuDriverGetVersion (int *version)
  {
    *version = 12000;
    return 0;
  }

  CUresult cuDevicePrimaryCtxGetState (int, unsigned *flags, int *active)
  {
    *flags = emu_primary.flags;
    *active = emu_primary_refs > 0;
    return 0;
  }

  CUresult cuDevicePrimaryCtxSetFlags (int, unsigned flags)
  {
    emu_primary.flags = flags;
    emu_primary_flags_set = 1;
    return 0;
  }

  CUresult cuDevicePrimaryCtxSetFlags_v2 (int dev, unsigned flags)
  {
    return cuDevicePrimaryCtxSetFlags (dev, flags);
  }

  CUresult cuDevicePrimaryCtxRetain (CUcontext * ctx, int)
  {
    __atomic_add_fetch (&emu_primary_refs, 1, __ATOMIC_SEQ_CST);
    *ctx = &emu_primary;
    return 0;
  }

  CUresult cuDevicePrimaryCtxRelease (int)
  {
    if (__atomic_sub_fetch (&emu_primary_refs, 1, __ATOMIC_SEQ_CST) < 0)
      return EMU_INVALID_CONTEXT;
    return 0;
  }

  CUresult cuDevicePrimaryCtxRelease_v2 (int dev)
  {
    return cuDevicePrimaryCtxRelease (dev);
  }

  CUresult cuDevicePrimaryCtxReset (int)
  {
    return 0;
  }

  /* A new context is made current, as the driver does. */
  CUresult cuCtxCreate_v2 (CUcontext * ctx, unsigned flags, int)
  {
    if (emu_depth >= EMU_MAX_STACK)
      return EMU_OUT_OF_MEMORY;
    *ctx = (CUcontext) calloc (1, sizeof (struct CUctx_st));
    if (!*ctx)
      return EMU_OUT_OF_MEMORY;
    (*ctx)->flags = flags;
    emu_stack[emu_depth++] = *ctx;
    return 0;
  }

  CUresult cuCtxDestroy_v2 (CUcontext ctx)
  {
    if (ctx == &emu_primary)
      return EMU_INVALID_CONTEXT;
    free (ctx);
    return 0;
  }

  CUresult cuCtxPushCurrent_v2 (CUcontext ctx)
  {
    if (!ctx)
      return EMU_INVALID_CONTEXT;
    if (emu_depth >= EMU_MAX_STACK)
      return EMU_OUT_OF_MEMORY;
    emu_stack[emu_depth++] = ctx;
    return 0;
  }

  CUresult cuCtxPopCurrent_v2 (CUcontext * ctx)
  {
    if (emu_depth == 0)
      return EMU_INVALID_CONTEXT;
    emu_depth--;
    if (ctx)
      *ctx = emu_stack[emu_depth];
    return 0;
  }

  CUresult cuCtxGetCurrent (CUcontext * ctx)
  {
    *ctx = emu_depth ? emu_stack[emu_depth - 1] : NULL;
    return 0;
  }

  CUresult cuCtxGetDevice (int *dev)
  {
    *dev = 0;
    return 0;
  }

  CUresult cuCtxSetLimit (int, size_t)
  {
    return 0;
  }

  CUresult cuCtxSynchronize (void)
  {
    return 0;
  }

  CUresult cuModuleLoadData (CUmodule * module, const void *)
  {
    *module = (CUmodule) & avhw_emu_block;
    return 0;
  }

  CUresult cuModuleUnload (CUmodule)
  {
    return 0;
  }

  CUresult cuModuleGetFunction (CUfunction * f, CUmodule, const char *name)
  {
    if (strcmp (name, AVHW_CONVERT_ENTRY_NV12) == 0)
      *f = (CUfunction) avhw_convert_nv12;
    else if (strcmp (name, AVHW_CONVERT_ENTRY_P010) == 0)
      *f = (CUfunction) avhw_convert_p010;
    else if (strcmp (name, AVHW_CONVERT_ENTRY_I420) == 0)
      *f = (CUfunction) avhw_convert_i420;
    else
      return EMU_NOT_FOUND;
    return 0;
  }

  /* Runs every thread of the launch in turn, at once (the stream is
   * synchronous). A kernel with no current context fails as on a GPU. */
  CUresult cuLaunchKernel (CUfunction f, unsigned gx, unsigned gy,
      unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned, CUstream,
      void **args, void **)
  {
    AvhwConvertParams p = *(AvhwConvertParams *) args[0];

    if (emu_depth == 0)
      return EMU_INVALID_CONTEXT;
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

  /* Aligned as the driver's allocations are (256 bytes at least). */
  CUresult cuMemAlloc_v2 (CUdeviceptr * ptr, size_t size)
  {
    void *p = NULL;

    if (posix_memalign (&p, 256, size ? size : 1) != 0)
      return EMU_OUT_OF_MEMORY;
    *ptr = (CUdeviceptr) p;
    return 0;
  }

  CUresult cuMemFree_v2 (CUdeviceptr ptr)
  {
    free ((void *) ptr);
    return 0;
  }

  CUresult cuMemcpyHtoD_v2 (CUdeviceptr dst, const void *src, size_t size)
  {
    memcpy ((void *) dst, src, size);
    return 0;
  }

  CUresult cuMemcpyHtoDAsync_v2 (CUdeviceptr dst, const void *src,
      size_t size, CUstream)
  {
    return cuMemcpyHtoD_v2 (dst, src, size);
  }

  CUresult cuMemcpyDtoH_v2 (void *dst, CUdeviceptr src, size_t size)
  {
    memcpy (dst, (const void *) src, size);
    return 0;
  }

  CUresult cuMemcpyDtoHAsync_v2 (void *dst, CUdeviceptr src, size_t size,
      CUstream)
  {
    return cuMemcpyDtoH_v2 (dst, src, size);
  }

  CUresult cuMemcpyDtoD_v2 (CUdeviceptr dst, CUdeviceptr src, size_t size)
  {
    memmove ((void *) dst, (const void *) src, size);
    return 0;
  }

  CUresult cuMemcpyDtoDAsync_v2 (CUdeviceptr dst, CUdeviceptr src,
      size_t size, CUstream)
  {
    return cuMemcpyDtoD_v2 (dst, src, size);
  }

  CUresult cuMemcpy (CUdeviceptr dst, CUdeviceptr src, size_t size)
  {
    return cuMemcpyDtoD_v2 (dst, src, size);
  }

  CUresult cuMemcpyAsync (CUdeviceptr dst, CUdeviceptr src, size_t size,
      CUstream)
  {
    return cuMemcpyDtoD_v2 (dst, src, size);
  }

  /* Host and device memory are both host memory here; arrays are not
   * emulated. */
  CUresult cuMemcpy2D_v2 (const CUDA_MEMCPY2D * c)
  {
    const unsigned char *src;
    unsigned char *dst;

    if (c->srcMemoryType == CU_MEMORYTYPE_ARRAY
        || c->dstMemoryType == CU_MEMORYTYPE_ARRAY
        || c->WidthInBytes > c->srcPitch || c->WidthInBytes > c->dstPitch)
      return EMU_INVALID_VALUE;
    src = c->srcMemoryType == CU_MEMORYTYPE_HOST ?
        (const unsigned char *) c->srcHost : (const unsigned char *)
        c->srcDevice;
    dst = c->dstMemoryType == CU_MEMORYTYPE_HOST ?
        (unsigned char *) c->dstHost : (unsigned char *) c->dstDevice;
    src += c->srcY * c->srcPitch + c->srcXInBytes;
    dst += c->dstY * c->dstPitch + c->dstXInBytes;
    for (size_t y = 0; y < c->Height; y++)
      memcpy (dst + y * c->dstPitch, src + y * c->srcPitch, c->WidthInBytes);
    return 0;
  }

  CUresult cuMemcpy2DAsync_v2 (const CUDA_MEMCPY2D * c, CUstream)
  {
    return cuMemcpy2D_v2 (c);
  }

  CUresult cuMemsetD8Async (CUdeviceptr dst, unsigned char v, size_t size,
      CUstream)
  {
    memset ((void *) dst, v, size);
    return 0;
  }

  CUresult cuStreamCreate (CUstream * stream, unsigned)
  {
    static struct CUstream_st *next = (struct CUstream_st *) 0x1000;

    *stream = next;
    next = (struct CUstream_st *) ((char *) next + 16);
    return 0;
  }

  CUresult cuStreamDestroy_v2 (CUstream)
  {
    return 0;
  }

  CUresult cuStreamQuery (CUstream)
  {
    return 0;
  }

  CUresult cuStreamSynchronize (CUstream)
  {
    return 0;
  }

  CUresult cuStreamWaitEvent (CUstream, CUevent, unsigned)
  {
    return 0;
  }

  CUresult cuEventCreate (CUevent * event, unsigned)
  {
    static struct CUevent_st *next = (struct CUevent_st *) 0x2000;

    *event = next;
    next = (struct CUevent_st *) ((char *) next + 16);
    return 0;
  }

  CUresult cuEventDestroy_v2 (CUevent)
  {
    return 0;
  }

  CUresult cuEventRecord (CUevent, CUstream)
  {
    return 0;
  }

  CUresult cuEventQuery (CUevent)
  {
    return 0;
  }

  CUresult cuEventSynchronize (CUevent)
  {
    return 0;
  }

  CUresult cuGetErrorName (CUresult res, const char **name)
  {
    switch (res) {
      case EMU_NOT_FOUND:
        *name = "CUDA_ERROR_NOT_FOUND";
        break;
      case EMU_INVALID_VALUE:
        *name = "CUDA_ERROR_INVALID_VALUE";
        break;
      case EMU_OUT_OF_MEMORY:
        *name = "CUDA_ERROR_OUT_OF_MEMORY";
        break;
      case EMU_INVALID_CONTEXT:
        *name = "CUDA_ERROR_INVALID_CONTEXT";
        break;
      default:
        *name = "CUDA_ERROR_NOT_SUPPORTED";
        break;
    }
    return 0;
  }

  CUresult cuGetErrorString (CUresult res, const char **desc)
  {
    *desc = res == EMU_NOT_FOUND ? "named symbol not found" :
        res == 801 ? "not in the CPU emulation" : "the CPU emulation refused it";
    return 0;
  }
}
