/* gst-avhw: CUDA backend, frame transfers (upload, download, device copy)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>

#include "gstavhwcudainterop.h"

/*
 * FFmpeg's own CUDA transfer (5.1 to 7.1, hwcontext_cuda.c) copies
 * height >> log2_chroma_h rows of each chroma plane: the last chroma row of
 * a frame of odd height is never copied, so it comes back with garbage in
 * its last chroma row, silently. These transfers copy AV_CEIL_RSHIFT rows,
 * and row widths from av_image_get_linesize() (which rounds up too), on the
 * frames' stream.
 *
 * One layout cannot be helped: FFmpeg lays out CUDA YUV420P frames for
 * NVENC (V before U, each height / 2 rows, rounded down), so at an odd
 * height the last row of V is the first row of U. Such frames are refused
 * with an error instead of being corrupted.
 */

static gboolean
cuda_layout_holds (const AVHWFramesContext * fc, int height, GError ** error)
{
  if (fc->sw_format != AV_PIX_FMT_YUV420P || !(height & 1))
    return TRUE;
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
      "cuda: FFmpeg's CUDA I420 frames cannot hold an odd height (%d): their "
      "chroma planes overlap by a row; use NV12 or an even height", height);
  return FALSE;
}

static const AVHWFramesContext *
cuda_frames_of (const AVFrame * frame, const gchar * what, GError ** error)
{
  if (frame->format != AV_PIX_FMT_CUDA || !frame->hw_frames_ctx) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: the %s frame is not a CUDA frame (format %s%s)", what,
        av_get_pix_fmt_name (frame->format) ? av_get_pix_fmt_name
        (frame->format) : "none",
        frame->hw_frames_ctx ? "" : ", no hw_frames_ctx");
    return NULL;
  }
  return (const AVHWFramesContext *) frame->hw_frames_ctx->data;
}

static void
cuda_plane_side (const AVFrame * f, int plane, CUmemorytype * type,
    CUdeviceptr * dev, const void **host, size_t *pitch)
{
  *pitch = f->linesize[plane];
  if (f->format == AV_PIX_FMT_CUDA) {
    *type = CU_MEMORYTYPE_DEVICE;
    *dev = (CUdeviceptr) f->data[plane];
  } else {
    *type = CU_MEMORYTYPE_HOST;
    *host = f->data[plane];
  }
}

/* Copies @width x @height pixels of @fc's software format from @src to
 * @dst, each a CUDA frame (device memory) or a system frame, with @fc's
 * context current, on its stream. */
gboolean
cuda_copy_frame (const AVHWFramesContext * fc, AVFrame * dst,
    const AVFrame * src, int width, int height, GError ** error)
{
  enum AVPixelFormat fmt = fc->sw_format;
  const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get (fmt);
  const AVCUDADeviceContext *hwctx = fc->device_ctx->hwctx;
  const CudaFunctions *cu = cuda_ensure_probed (NULL);
  int i, planes = av_pix_fmt_count_planes (fmt);
  CUcontext dummy;
  gboolean ok = FALSE;

  if (!cuda_layout_holds (fc, height, error))
    return FALSE;
  if (!cu || !desc || planes <= 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: no CUDA driver, or no layout for %s", av_get_pix_fmt_name (fmt));
    return FALSE;
  }
  if (!CUDA_CHECK (cu->cuCtxPushCurrent (hwctx->cuda_ctx)))
    return FALSE;
  for (i = 0; i < planes; i++) {
    CUDA_MEMCPY2D cpy = { 0, };
    gboolean chroma = i == 1 || i == 2;
    int bytes = av_image_get_linesize (fmt, width, i);

    cuda_plane_side (src, i, &cpy.srcMemoryType, &cpy.srcDevice,
        &cpy.srcHost, &cpy.srcPitch);
    cuda_plane_side (dst, i, &cpy.dstMemoryType, &cpy.dstDevice,
        (const void **) &cpy.dstHost, &cpy.dstPitch);
    cpy.WidthInBytes = bytes > 0 ? bytes : 0;
    cpy.Height = chroma ? AV_CEIL_RSHIFT (height, desc->log2_chroma_h) : height;
    if (!CUDA_CHECK (cu->cuMemcpy2DAsync (&cpy, hwctx->stream)))
      goto out;
  }
  ok = CUDA_CHECK (cu->cuStreamSynchronize (hwctx->stream));

out:
  /* Report a failed pop only when nothing failed before it. */
  ok = CUDA_CHECK_ERR (cu->cuCtxPopCurrent (&dummy), ok ? error : NULL) && ok;
  return ok;
}

static gboolean
cuda_copy (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  const AVHWFramesContext *sf, *df;

  if (!(sf = cuda_frames_of (src, "source", error))
      || !(df = cuda_frames_of (dst, "destination", error)))
    return FALSE;
  if (sf->sw_format != df->sw_format || dst->width < src->width
      || dst->height < src->height) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: copy: a %dx%d %s frame does not fit a %dx%d %s frame",
        src->width, src->height, av_get_pix_fmt_name (sf->sw_format),
        dst->width, dst->height, av_get_pix_fmt_name (df->sw_format));
    return FALSE;
  }
  return cuda_copy_frame (df, dst, src, src->width, src->height, error);
}

/* Between CUDA frame @hw and system frame @sw: the smaller of the two
 * sizes (a decoded frame's surface can be larger than the picture). */
static gboolean
cuda_host_transfer (AVFrame * dst, const AVFrame * src, AVFrame * hw,
    const AVFrame * sw, const gchar * what, GError ** error)
{
  const AVHWFramesContext *fc = cuda_frames_of (hw, "device", error);

  if (!fc)
    return FALSE;
  if (sw->format != fc->sw_format) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: %s: a %s frame into %s device frames", what,
        av_get_pix_fmt_name (sw->format), av_get_pix_fmt_name (fc->sw_format));
    return FALSE;
  }
  return cuda_copy_frame (fc, dst, src, MIN (sw->width, hw->width),
      MIN (sw->height, hw->height), error);
}

static gboolean
cuda_upload (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  return cuda_host_transfer (dst, src, dst, src, "upload", error);
}

static gboolean
cuda_download (GstAvhwBackend * backend, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  /* dst has planes (gst_avhw_backend_download() gives them); src is only
   * read: FFmpeg's transfer API takes it const as well. */
  return cuda_host_transfer (dst, src, (AVFrame *) src, dst, "download", error);
}

void
cuda_transfer_class_init (GstAvhwBackendClass * bclass)
{
  bclass->upload = cuda_upload;
  bclass->download = cuda_download;
  bclass->copy = cuda_copy;
}
