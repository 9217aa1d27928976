/* gst-avhw: CUDA backend, interop with GStreamer's CUDA elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw.h>
#include <ffnvcodec/dynlink_loader.h>
#include <libavutil/hwcontext_cuda.h>

G_BEGIN_DECLS

/* From gstavhwcudabackend.c. */
G_GNUC_INTERNAL
const CudaFunctions * cuda_ensure_probed (gchar ** reason);

G_GNUC_INTERNAL
AVBufferRef * cuda_wrap_context (CUcontext ctx,
    void (*free_cb) (AVHWDeviceContext *), void *user_opaque,
    GError ** error);

/* From gstavhwcudainterop.c: sets the foreign-context vfuncs
 * (gst.cuda.context) on @bclass. */
G_GNUC_INTERNAL
void cuda_interop_class_init (GstAvhwBackendClass * bclass);

G_END_DECLS
