/* gst-avhw: the <cudaGL.h> that GStreamer's gst/cuda/gstcudaloader.h
 * (included by gstcudamemory.h) wants, from ffnvcodec, which defines the
 * CUDA-GL interop types that header declares functions with. See cuda.h
 * beside it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <ffnvcodec/dynlink_cuda.h>
