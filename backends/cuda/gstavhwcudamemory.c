/* gst-avhw: CUDA backend, frames to and from GStreamer's CUDA memory
 * (memory:CUDAMemory of nvcodec's cudaupload, cudadownload, cudaconvert,
 * cudascale, nvh264enc...)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>

#include "gstavhwcudainterop.h"
/* Through gstcuda-shim: ffnvcodec's CUDA types. */
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudaloader.h>

GST_DEBUG_CATEGORY_STATIC (cuda_memory_debug);
#define GST_CAT_DEFAULT cuda_memory_debug

/*
 * Export (avhwdec -> memory:CUDAMemory). From GStreamer 1.24,
 * gst_cuda_allocator_alloc_wrapped() makes a GstCudaMemory on device memory
 * it did not allocate: the frame's planes are wrapped where they lie, and
 * the memory keeps a reference on the AVFrame (so on its decoder surface or
 * pool buffer) until GStreamer frees it. GStreamer 1.22 cannot wrap, so
 * there, and for a frame whose planes do not sit in one block in plane
 * order, the frame crosses with one device-to-device copy into a
 * GstCudaMemory of GStreamer's own.
 *
 * Import (memory:CUDAMemory -> avhwupload, avhwenc): where the GstCudaMemory
 * is on the device's own CUDA context and its planes lie as FFmpeg lays out
 * a frame of the frames context (plane after plane, each the frames
 * context's height apart, which NVENC relies on), the frame is made on the
 * memory itself, mapped for as long as the frame lives: no copy, on every
 * GStreamer version. Otherwise one copy on the device into a frame of the
 * frames context. Both sides are plain pitched device memory; the copy runs
 * on the frame's device stream and is synchronised before the buffer moves
 * on.
 *
 * This file is the one place that knows the GStreamer version difference.
 */
#define CUDA_CAN_WRAP GST_CHECK_VERSION (1, 24, 0)

/* Copies between CUDA frame @frame and GStreamer CUDA memory @mem, seen as
 * a CUDA frame of its own layout; @to_frame picks the direction. */
static gboolean
cuda_transfer (AVFrame * frame, GstMemory * mem, gboolean to_frame,
    GError ** error)
{
  const GstVideoInfo *info = &GST_CUDA_MEMORY_CAST (mem)->info;
  const AVHWFramesContext *fc;
  AVFrame view = { 0, };
  GstMapInfo map;
  gboolean ok;
  int w, h;
  guint p;

  if (!gst_cuda_load_library () || frame->format != AV_PIX_FMT_CUDA
      || !frame->hw_frames_ctx) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: not a CUDA frame, or no CUDA driver");
    return FALSE;
  }
  fc = (const AVHWFramesContext *) frame->hw_frames_ctx->data;
  if (!gst_memory_map (mem, &map, (to_frame ? GST_MAP_READ : GST_MAP_WRITE)
          | GST_MAP_CUDA)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: could not map the CUDA memory on the device");
    return FALSE;
  }
  view.format = AV_PIX_FMT_CUDA;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    view.data[p] = map.data + GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    view.linesize[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
  }
  w = MIN (GST_VIDEO_INFO_WIDTH (info), frame->width);
  h = MIN (GST_VIDEO_INFO_HEIGHT (info), frame->height);
  ok = to_frame ? cuda_copy_frame (fc, frame, &view, w, h, error) :
      cuda_copy_frame (fc, &view, frame, w, h, error);
  gst_memory_unmap (mem, &map);
  return ok;
}

static GstCudaAllocator *
cuda_allocator (void)
{
  gst_cuda_memory_init_once ();
  return (GstCudaAllocator *) gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
}

#if CUDA_CAN_WRAP
static void
cuda_frame_free (gpointer data)
{
  AVFrame *frame = data;

  av_frame_free (&frame);
}

/* The layout of @frame's planes as one block from data[0], into @winfo
 * (format and size from @info); FALSE when they are not one block in plane
 * order (a cropped frame, planes from separate allocations). */
static gboolean
cuda_frame_layout (const AVFrame * frame, const GstVideoInfo * info,
    GstVideoInfo * winfo)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gsize end = 0;
  guint p;

  *winfo = *info;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gsize rows;

    if (!frame->data[p] || frame->linesize[p] <= 0
        || frame->data[p] < frame->data[0]
        || (p > 0 && frame->data[p] < frame->data[p - 1]))
      return FALSE;
    gst_video_format_info_component (finfo, p, comp);
    rows = GST_VIDEO_FORMAT_INFO_SCALE_HEIGHT (finfo, comp[0],
        GST_VIDEO_INFO_HEIGHT (info));
    winfo->offset[p] = frame->data[p] - frame->data[0];
    winfo->stride[p] = frame->linesize[p];
    if (winfo->offset[p] < end)
      return FALSE;             /* overlaps the plane before it */
    end = winfo->offset[p] + rows * (gsize) frame->linesize[p];
  }
  winfo->size = end;
  return TRUE;
}

/* A GstCudaMemory on @frame's own planes, keeping a reference on @frame;
 * NULL when they cannot be wrapped. */
static GstMemory *
cuda_wrap_frame (GstCudaAllocator * alloc, GstCudaContext * gst_ctx,
    const AVFrame * frame, const GstVideoInfo * info)
{
  GstVideoInfo winfo;
  AVFrame *ref;
  GstMemory *mem;

  if (!cuda_frame_layout (frame, info, &winfo)) {
    GST_LOG ("frame planes are not one block; copying");
    return NULL;
  }
  if (!(ref = av_frame_clone (frame)))
    return NULL;
  mem = gst_cuda_allocator_alloc_wrapped (alloc, gst_ctx, NULL, &winfo,
      (CUdeviceptr) (uintptr_t) frame->data[0], ref, cuda_frame_free);
  if (!mem)
    av_frame_free (&ref);
  else
    GST_DEBUG ("wrapped a %dx%d frame's planes at %p, no copy",
        frame->width, frame->height, frame->data[0]);
  return mem;
}
#endif

/* A GstCudaMemory of GStreamer's own holding a device copy of @frame. */
static GstMemory *
cuda_copy_to_new_memory (GstCudaAllocator * alloc, GstCudaContext * gst_ctx,
    const AVFrame * frame, const GstVideoInfo * info, GError ** error)
{
  GstMemory *mem;

#if CUDA_CAN_WRAP
  mem = gst_cuda_allocator_alloc (alloc, gst_ctx, NULL, info);
#else
  mem = gst_cuda_allocator_alloc (alloc, gst_ctx, info);
#endif
  if (!mem) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: GStreamer could not allocate CUDA memory for a %dx%d %s frame",
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
    return NULL;
  }
  if (!cuda_transfer ((AVFrame *) frame, mem, FALSE, error)) {
    gst_memory_unref (mem);
    return NULL;
  }
  GST_DEBUG ("copied a %dx%d frame into GStreamer's CUDA memory",
      frame->width, frame->height);
  return mem;
}

static GstBuffer *
cuda_export_foreign_buffer (GstAvhwBackend * backend, GstAvhwDevice * device,
    const AVFrame * frame, const GstVideoInfo * info, GError ** error)
{
  GstCudaContext *gst_ctx = cuda_interop_get_gst_context (device);
  GstCudaAllocator *alloc;
  GstMemory *mem = NULL;
  GstBuffer *buf;
  GstVideoInfo *minfo;

  if (!gst_ctx) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: GStreamer could not wrap %s's CUDA context",
        gst_avhw_device_get_name (device));
    return NULL;
  }
  if (!(alloc = cuda_allocator ())) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: GStreamer has no CUDA memory allocator");
    return NULL;
  }
#if CUDA_CAN_WRAP
  mem = cuda_wrap_frame (alloc, gst_ctx, frame, info);
#endif
  if (!mem)
    mem = cuda_copy_to_new_memory (alloc, gst_ctx, frame, info, error);
  gst_object_unref (alloc);
  if (!mem)
    return NULL;
  minfo = &GST_CUDA_MEMORY_CAST (mem)->info;
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (minfo), GST_VIDEO_INFO_WIDTH (minfo),
      GST_VIDEO_INFO_HEIGHT (minfo), GST_VIDEO_INFO_N_PLANES (minfo),
      minfo->offset, minfo->stride);
  return buf;
}

static gboolean
cuda_import_foreign_buffer (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstBuffer * buffer, const GstVideoInfo * info, AVFrame * dst,
    GError ** error)
{
  GstMemory *mem = gst_buffer_n_memory (buffer) == 1 ?
      gst_buffer_peek_memory (buffer, 0) : NULL;

  if (!mem || !gst_is_cuda_memory (mem)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "cuda: the buffer is not one GStreamer CUDA memory");
    return FALSE;
  }
  return cuda_transfer (dst, mem, TRUE, error);
}

/* What a frame made on GStreamer's memory holds: the buffer, mapped. */
typedef struct
{
  GstBuffer *buffer;
  GstMemory *mem;
  GstMapInfo map;
} CudaWrapped;

static void
cuda_wrapped_free (void *opaque, uint8_t * data)
{
  CudaWrapped *w = opaque;

  gst_memory_unmap (w->mem, &w->map);
  gst_buffer_unref (w->buffer);
  g_free (w);
}

/* Whether @mem's planes (@minfo) lie as FFmpeg lays out a frame of @fc with
 * @minfo's first stride: same format, every plane's stride and offset. */
static gboolean
cuda_layout_fits (const AVHWFramesContext * fc, const GstVideoInfo * minfo)
{
  const AVPixFmtDescriptor *d = av_pix_fmt_desc_get (fc->sw_format);
  int linesizes[4];
  size_t sizes[4];
  ptrdiff_t ls[4];
  gsize offset = 0;
  guint p, n = GST_VIDEO_INFO_N_PLANES (minfo);

  if (!d || gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (minfo))
      != fc->sw_format || GST_VIDEO_INFO_WIDTH (minfo) != fc->width
      || GST_VIDEO_INFO_HEIGHT (minfo) != fc->height || d->comp[0].step <= 0
      || minfo->stride[0] % d->comp[0].step)
    return FALSE;
  if (av_image_fill_linesizes (linesizes, fc->sw_format,
          minfo->stride[0] / d->comp[0].step) < 0)
    return FALSE;
  for (p = 0; p < 4; p++)
    ls[p] = linesizes[p];
  if (av_image_fill_plane_sizes (sizes, fc->sw_format, fc->height, ls) < 0)
    return FALSE;
  for (p = 0; p < n; p++) {
    if (minfo->stride[p] != linesizes[p] || minfo->offset[p] != offset)
      return FALSE;
    offset += sizes[p];
  }
  return TRUE;
}

static AVFrame *
cuda_wrap_foreign_buffer (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstBuffer * buffer, const GstVideoInfo * info, AVBufferRef * frames_ctx,
    GError ** error)
{
  const AVHWFramesContext *fc = (const AVHWFramesContext *) frames_ctx->data;
  const AVCUDADeviceContext *hwctx = fc->device_ctx->hwctx;
  GstMemory *mem = gst_buffer_n_memory (buffer) == 1 ?
      gst_buffer_peek_memory (buffer, 0) : NULL;
  GstCudaMemory *cmem;
  CudaWrapped *w;
  AVFrame *frame;
  guint p;

  if (!mem || !gst_is_cuda_memory (mem) || fc->format != AV_PIX_FMT_CUDA)
    return NULL;
  cmem = GST_CUDA_MEMORY_CAST (mem);
  if (gst_cuda_context_get_handle (cmem->context) != hwctx->cuda_ctx) {
    GST_LOG ("CUDA memory of another CUcontext; copying");
    return NULL;
  }
  if (!cuda_layout_fits (fc, &cmem->info)) {
    GST_LOG ("CUDA memory laid out unlike %s frames of %dx%d; copying",
        av_get_pix_fmt_name (fc->sw_format), fc->width, fc->height);
    return NULL;
  }
  w = g_new0 (CudaWrapped, 1);
  if (!gst_memory_map (mem, &w->map, GST_MAP_READ | GST_MAP_CUDA)) {
    g_free (w);
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: could not map the CUDA memory on the device");
    return NULL;
  }
#if CUDA_CAN_WRAP
  /* From 1.24 memory may have pending work on its own stream. */
  gst_cuda_memory_sync (cmem);
#endif
  w->buffer = gst_buffer_ref (buffer);
  w->mem = mem;
  frame = av_frame_alloc ();
  frame->buf[0] = frame ? av_buffer_create (w->map.data, w->map.size,
      cuda_wrapped_free, w, AV_BUFFER_FLAG_READONLY) : NULL;
  if (!frame || !frame->buf[0]) {
    cuda_wrapped_free (w, NULL);
    av_frame_free (&frame);
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "cuda: out of memory");
    return NULL;
  }
  frame->hw_frames_ctx = av_buffer_ref (frames_ctx);
  frame->format = AV_PIX_FMT_CUDA;
  frame->width = fc->width;
  frame->height = fc->height;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&cmem->info); p++) {
    frame->data[p] = w->map.data + cmem->info.offset[p];
    frame->linesize[p] = cmem->info.stride[p];
  }
  GST_DEBUG ("made a %dx%d frame on GStreamer's CUDA memory at %p, no copy",
      frame->width, frame->height, frame->data[0]);
  return frame;
}

/* An application's look at GStreamer's CUDA memory, to use it in place
 * (GstAvhw.Frame in Python): the device pointer of each plane. */
static gboolean
cuda_foreign_buffer_plane (GstAvhwBackend * backend, GstBuffer * buffer,
    guint plane, guint64 * handle, gint * stride, gint * index)
{
  GstMemory *mem = gst_buffer_n_memory (buffer) == 1 ?
      gst_buffer_peek_memory (buffer, 0) : NULL;
  GstCudaMemory *cmem;
  GstMapInfo map;
  guint id = 0;

  if (!mem || !gst_is_cuda_memory (mem))
    return FALSE;
  cmem = GST_CUDA_MEMORY_CAST (mem);
  if (plane >= GST_VIDEO_INFO_N_PLANES (&cmem->info))
    return FALSE;
  /* The allocation does not move: the pointer outlives the mapping. */
  if (!gst_memory_map (mem, &map, GST_MAP_READ | GST_MAP_CUDA))
    return FALSE;
#if CUDA_CAN_WRAP
  gst_cuda_memory_sync (cmem);
#endif
  *handle = (guint64) (guintptr) (map.data + cmem->info.offset[plane]);
  gst_memory_unmap (mem, &map);
  *stride = cmem->info.stride[plane];
  g_object_get (cmem->context, "cuda-device-id", &id, NULL);
  *index = (gint) id;
  return TRUE;
}

void
cuda_memory_iface_init (GstAvhwForeignInteropInterface * iface)
{
  GST_DEBUG_CATEGORY_INIT (cuda_memory_debug, "avhwcudamemory", 0,
      "gst-avhw CUDA backend: frames to and from GStreamer's CUDA memory");
  iface->foreign_memory_feature = GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY;
  iface->export_foreign_buffer = cuda_export_foreign_buffer;
  iface->import_foreign_buffer = cuda_import_foreign_buffer;
  iface->wrap_foreign_buffer = cuda_wrap_foreign_buffer;
  iface->foreign_buffer_plane = cuda_foreign_buffer_plane;
}
