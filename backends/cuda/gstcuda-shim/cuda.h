/* gst-avhw: the <cuda.h> that GStreamer's gst/cuda/gstcudacontext.h
 * includes, from ffnvcodec, the headers FFmpeg and this backend use.
 *
 * gstreamer-cuda-1.0 (1.22) loads the CUDA driver at run time but its
 * installed headers still include the CUDA toolkit's <cuda.h>, which a
 * machine without the toolkit lacks. The types gstcudacontext.h uses
 * (CUcontext, CUdevice) are the driver API's own in both, so this folder is
 * on the cuda backend's include path only. Nothing but gstcudacontext.h is
 * included through it: gstcudautils.h and gstcudaloader.h need more
 * (cudaGL.h) and are not used.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <ffnvcodec/dynlink_cuda.h>
