/* gst-avhw: the few device builtins the CUDA kernels use, for the two
 * compilers that build them: clang's CUDA mode without the CUDA toolkit's
 * headers (-nocudainc -nocudalib, as FFmpeg's --enable-cuda-llvm does),
 * and nvcc, whose own headers define these; and a host emulation for
 * the tests.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if defined(__NVCC__)

#define AVHW_THREAD_X threadIdx.x
#define AVHW_THREAD_Y threadIdx.y
#define AVHW_BLOCK_X blockIdx.x
#define AVHW_BLOCK_Y blockIdx.y
#define AVHW_BLOCK_DIM_X blockDim.x
#define AVHW_BLOCK_DIM_Y blockDim.y
#define avhw_floorf(x) floorf (x)
#define avhw_ceilf(x) ceilf (x)

#elif defined(__clang__) && defined(__CUDA__)

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __forceinline__ __inline__ __attribute__((always_inline))

#define AVHW_THREAD_X __nvvm_read_ptx_sreg_tid_x ()
#define AVHW_THREAD_Y __nvvm_read_ptx_sreg_tid_y ()
#define AVHW_BLOCK_X __nvvm_read_ptx_sreg_ctaid_x ()
#define AVHW_BLOCK_Y __nvvm_read_ptx_sreg_ctaid_y ()
#define AVHW_BLOCK_DIM_X __nvvm_read_ptx_sreg_ntid_x ()
#define AVHW_BLOCK_DIM_Y __nvvm_read_ptx_sreg_ntid_y ()
/* cvt.rmi / cvt.rpi */
#define avhw_floorf(x) __builtin_floorf (x)
#define avhw_ceilf(x) __builtin_ceilf (x)

#elif defined(AVHW_CUDA_HOST_EMULATION)

/* The kernels as plain host C++, one call per thread
 * (tests/check/cuda-emulation): the emulator defines these three. */
struct avhw_dim3
{
  unsigned x, y, z;
};
extern avhw_dim3 avhw_emu_thread, avhw_emu_block, avhw_emu_block_dim;
#define __global__
#define __device__
#define __forceinline__ inline
#define AVHW_THREAD_X avhw_emu_thread.x
#define AVHW_THREAD_Y avhw_emu_thread.y
#define AVHW_BLOCK_X avhw_emu_block.x
#define AVHW_BLOCK_Y avhw_emu_block.y
#define AVHW_BLOCK_DIM_X avhw_emu_block_dim.x
#define AVHW_BLOCK_DIM_Y avhw_emu_block_dim.y
#define avhw_floorf(x) __builtin_floorf (x)
#define avhw_ceilf(x) __builtin_ceilf (x)

#else
#error "avhw-cuda-device.h: built by clang (CUDA mode) or nvcc only"
#endif
