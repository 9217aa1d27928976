/* gst-avhw: CUDA backend, interop with GStreamer's CUDA elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>
#include <ffnvcodec/dynlink_loader.h>
#include <libavutil/hwcontext_cuda.h>

G_BEGIN_DECLS

/* From gstavhwcudabackend.c. */

/* Like FFmpeg's CHECK_CU: runs the CUDA call x; on failure logs the call's
 * own text, file and line, sets err (may be NULL) naming the CUDA error, and
 * yields FALSE. Needs `cu` in scope; CUDA_CHECK also `error`. */
#define CUDA_CHECK_ERR(x, err) \
  cuda_check (cu, (x), #x, __FILE__, __LINE__, G_STRFUNC, err)
#define CUDA_CHECK(x) CUDA_CHECK_ERR (x, error)

G_GNUC_INTERNAL
gboolean cuda_check (const CudaFunctions * cu, CUresult res,
    const gchar * call, const gchar * file, gint line, const gchar * func,
    GError ** error);

G_GNUC_INTERNAL
const CudaFunctions * cuda_ensure_probed (gchar ** reason);

/* 1 when GPU index's primary context is active, 0 when not, -1 unknown;
 * *flags gets its flags. */
G_GNUC_INTERNAL
gint cuda_primary_state (const CudaFunctions * cu, guint index,
    unsigned int *flags);

/* Lowers ctx's per-thread stack limit (GST_AVHW_CUDA_STACK_SIZE, default 0):
 * for contexts this backend activates. */
G_GNUC_INTERNAL
void cuda_set_stack_limit (const CudaFunctions * cu, CUcontext ctx,
    guint index);

/* From gstavhwcudacaps.c: drops the reference the capability query kept on
 * GPU index's primary context, once a device holds its own. */
G_GNUC_INTERNAL
void cuda_caps_release_kept (const CudaFunctions * cu, guint index);

G_GNUC_INTERNAL
AVBufferRef * cuda_wrap_context (CUcontext ctx,
    void (*free_cb) (AVHWDeviceContext *), void *user_opaque,
    GError ** error);

/* From gstavhwcudatransfer.c: sets upload, download and copy. */
G_GNUC_INTERNAL
void cuda_transfer_class_init (GstAvhwBackendClass * bclass);

/* From gstavhwcudatransfer.c: @width x @height pixels of @fc's frames from
 * @src to @dst, each a CUDA frame or a system frame, whole chroma rows. */
G_GNUC_INTERNAL
gboolean cuda_copy_frame (const AVHWFramesContext * fc, AVFrame * dst,
    const AVFrame * src, int width, int height, GError ** error);

/* From gstavhwcudainterop.c: the backend's GstAvhwForeignInterop, its
 * foreign-context vfuncs (gst.cuda.context) and, through
 * cuda_memory_iface_init(), its memory ones. */
G_GNUC_INTERNAL
void cuda_interop_iface_init (GstAvhwForeignInteropInterface * iface);

/* From gstavhwcudainterop.c: the GstCudaContext standing for @device
 * (transfer none), or NULL. */
typedef struct _GstCudaContext GstCudaContext;
G_GNUC_INTERNAL
GstCudaContext * cuda_interop_get_gst_context (GstAvhwDevice * device);

/* From gstavhwcudacaps.c: sets query_decoder (cuvidGetDecoderCaps). */
G_GNUC_INTERNAL
void cuda_caps_class_init (GstAvhwBackendClass * bclass);

/* From gstavhwcudascale.c: scale_filter = scale_cuda and what it makes. */
G_GNUC_INTERNAL
void cuda_scale_class_init (GstAvhwBackendClass * bclass);

/* From gstavhwcudaconverter.c: the convert-and-scale kernel as the
 * converter cuda-convert (query_converter, converter_open, convert,
 * converter_close). */
G_GNUC_INTERNAL
void cuda_converter_class_init (GstAvhwBackendClass * bclass);

/* From gstavhwcudamemory.c: sets the foreign-memory vfuncs
 * (memory:CUDAMemory) on @iface. */
G_GNUC_INTERNAL
void cuda_memory_iface_init (GstAvhwForeignInteropInterface * iface);

G_END_DECLS
