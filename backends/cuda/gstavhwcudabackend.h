/* gst-avhw: CUDA backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend-impl.h>

G_BEGIN_DECLS

/**
 * GstAvhwCudaBackend:
 *
 * The `cuda` backend: NVIDIA GPUs through FFmpeg's cuda hwcontext (NVDEC
 * decoders, NVENC encoders). Device `cuda:N` is CUDA device ordinal N as
 * the driver numbers them after `CUDA_VISIBLE_DEVICES`.
 *
 * The CUDA driver (libcuda.so.1) is loaded at run time; without it the
 * backend loads, reports zero devices and says why.
 *
 * Opened devices use the device's primary context, the one the CUDA runtime
 * (PyTorch, CuPy...) uses too: one CUDA context per GPU per process. The
 * option `primary_ctx=0` asks FFmpeg for a private context instead.
 *
 * gst_avhw_device_wrap() takes a `CUcontext` as @native. The caller owns it
 * and keeps it alive (not destroyed, primary context retained) until the
 * last device made from it, and every frame allocated on that device, is
 * released. FFmpeg uses that context's default stream.
 */
#define GST_TYPE_AVHW_CUDA_BACKEND (gst_avhw_cuda_backend_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwCudaBackend, gst_avhw_cuda_backend, GST,
    AVHW_CUDA_BACKEND, GstAvhwBackend);

G_END_DECLS
