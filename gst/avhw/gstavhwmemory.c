/* gst-avhw: GstMemory holding one hardware frame
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <libavutil/pixdesc.h>

#include "gstavhw-impl.h"
#include "gstavhwmemory.h"
#include "gstavhw-private.h"

GST_DEBUG_CATEGORY_STATIC (avhw_memory_debug);
#define GST_CAT_DEFAULT avhw_memory_debug

/**
 * SECTION:gstavhwmemory
 * @title: GstAvhwMemory
 * @short_description: a hardware frame as GstMemory
 *
 * A #GstAvhwMemory owns one reference to a hardware AVFrame, and through its
 * `hw_frames_ctx` to the frames context and device context: the frame, its
 * pool and its device live as long as the memory does, in any pipeline.
 *
 * Mapping with GST_MAP_READ downloads the frame once per map into a host
 * staging copy laid out as the #GstVideoInfo given at creation (the buffer's
 * GstVideoMeta says the same); GST_MAP_WRITE uploads the staging copy when
 * the last write map ends. GST_MAP_AVHW maps the AVFrame itself, with no
 * transfer.
 */

typedef struct
{
  gint refs;
  GDestroyNotify notify;
  gpointer data;
} Keeper;

struct _GstAvhwMemory
{
  GstMemory mem;

  GstAvhwDevice *device;
  AVFrame *frame;
  GstVideoInfo info;

  GMutex lock;
  guint8 *staging;
  Keeper *staging_keeper;       /* frees staging when FFmpeg is done too */
  guint n_maps;
  gboolean dirty;
};

typedef struct
{
  GstAllocator parent;
} GstAvhwAllocator;

typedef struct
{
  GstAllocatorClass parent_class;
} GstAvhwAllocatorClass;

static GType gst_avhw_allocator_get_type (void);
G_DEFINE_TYPE (GstAvhwAllocator, gst_avhw_allocator, GST_TYPE_ALLOCATOR);

static GstAllocator *avhw_allocator;

/* Keeps the memory behind a software AVFrame's planes alive for as long as
 * FFmpeg holds any of them: an upload may still read the source after
 * av_hwframe_transfer_data() returns (FFmpeg 5.1's vulkan hwcontext imports
 * host memory and does not wait), keeping a reference on the plane's
 * AVBufferRef until the device is done with it. */

static Keeper *
keeper_new (GDestroyNotify notify, gpointer data)
{
  Keeper *k = g_new0 (Keeper, 1);

  k->refs = 1;
  k->notify = notify;
  k->data = data;
  return k;
}

static void
keeper_unref (Keeper * k)
{
  if (k && g_atomic_int_dec_and_test (&k->refs)) {
    if (k->notify)
      k->notify (k->data);
    g_free (k);
  }
}

static void
keeper_av_free (void *opaque, uint8_t * data)
{
  keeper_unref (opaque);
}

/* Points @dst's plane @i at @data, with a buffer that holds @keeper, so
 * the memory lives while FFmpeg holds the plane. FFmpeg's
 * av_hwframe_transfer_data() also needs the buffer: it replaces a
 * destination frame without one by a frame it allocates. */
static gboolean
wrap_plane (AVFrame * dst, guint i, guint8 * data, gint stride, gint rows,
    Keeper * keeper)
{
  dst->data[i] = data;
  dst->linesize[i] = stride;
  g_atomic_int_inc (&keeper->refs);
  dst->buf[i] = av_buffer_create (data, (size_t) stride * rows,
      keeper_av_free, keeper, 0);
  if (!dst->buf[i])
    keeper_unref (keeper);
  return dst->buf[i] != NULL;
}

static gint
plane_rows (const GstVideoInfo * info, guint plane)
{
  guint c;

  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++)
    if (GST_VIDEO_INFO_COMP_PLANE (info, c) == plane)
      return GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  return GST_VIDEO_INFO_HEIGHT (info);
}

static gboolean
wrap_planes (AVFrame * dst, const GstVideoInfo * info, guint8 ** data,
    const gint * strides, Keeper * keeper)
{
  enum AVPixelFormat fmt = gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (info));
  guint i;

  if (fmt == AV_PIX_FMT_NONE)
    return FALSE;
  dst->format = fmt;
  dst->width = GST_VIDEO_INFO_WIDTH (info);
  dst->height = GST_VIDEO_INFO_HEIGHT (info);
  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (info); i++)
    if (!wrap_plane (dst, i, data[i], strides[i], plane_rows (info, i), keeper))
      return FALSE;
  return TRUE;
}

static void
mapped_frame_free (GstVideoFrame * vframe)
{
  gst_video_frame_unmap (vframe);
  g_free (vframe);
}

/**
 * gst_avhw_frame_wrap_buffer: (skip)
 * @dst: an empty AVFrame
 * @buffer: a system-memory buffer laid out as @info (or its video meta)
 * @info: its layout
 * @flags: how to map it (GST_MAP_READ for an upload source, GST_MAP_WRITE
 *   for a download destination)
 * @error: return location for a #GError
 *
 * Maps @buffer and points @dst's planes at it. The mapping (and a reference
 * on @buffer) lives as long as @dst's planes, including references FFmpeg
 * keeps while a transfer finishes on the device.
 *
 * Returns: %TRUE on success
 */
gboolean
gst_avhw_frame_wrap_buffer (AVFrame * dst, GstBuffer * buffer,
    const GstVideoInfo * info, GstMapFlags flags, GError ** error)
{
  GstVideoFrame *vframe = g_new0 (GstVideoFrame, 1);
  guint8 *data[GST_VIDEO_MAX_PLANES];
  Keeper *keeper;
  gboolean ok;
  guint i;

  if (!gst_video_frame_map (vframe, info, buffer, flags)) {
    g_free (vframe);
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "could not map the %s frame", (flags & GST_MAP_WRITE) ? "output" :
        "input");
    return FALSE;
  }
  keeper = keeper_new ((GDestroyNotify) mapped_frame_free, vframe);
  for (i = 0; i < GST_VIDEO_FRAME_N_PLANES (vframe); i++)
    data[i] = GST_VIDEO_FRAME_PLANE_DATA (vframe, i);
  ok = wrap_planes (dst, &vframe->info, data, vframe->info.stride, keeper);
  if (!ok)
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "format %s has no FFmpeg equivalent",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (info)));
  /* From here on the planes own the mapping. */
  keeper_unref (keeper);
  return ok;
}

/**
 * gst_avhw_transfer_buffer: (skip)
 * @backend: the backend of @hw's device
 * @hw: a hardware frame
 * @buffer: a system-memory buffer laid out as @info (or as its video meta)
 * @info: the software layout of @buffer
 * @download: %TRUE: @hw into @buffer; %FALSE: @buffer into @hw
 * @error: return location for a #GError
 *
 * Maps @buffer (for writing when downloading, reading when uploading) and
 * moves one frame with the backend's transfer, no other copy.
 *
 * Returns: %TRUE on success
 */
gboolean
gst_avhw_transfer_buffer (GstAvhwBackend * backend, AVFrame * hw,
    GstBuffer * buffer, const GstVideoInfo * info, gboolean download,
    GError ** error)
{
  AVFrame *sw = av_frame_alloc ();
  gboolean ok;

  if (!sw) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "out of memory for a frame");
    return FALSE;
  }
  ok = gst_avhw_frame_wrap_buffer (sw, buffer, info,
      download ? GST_MAP_WRITE : GST_MAP_READ, error);
  if (ok)
    ok = download ? gst_avhw_backend_download (backend, sw, hw, error) :
        gst_avhw_backend_upload (backend, hw, sw, error);
  /* Unmaps now, or when FFmpeg lets go of the planes. */
  av_frame_free (&sw);
  return ok;
}

/* Points a software AVFrame at the staging copy; its planes hold the
 * staging keeper. */
static void
wrap_staging (GstAvhwMemory * m, AVFrame * sw)
{
  guint8 *data[GST_VIDEO_MAX_PLANES];
  guint i;

  for (i = 0; i < GST_VIDEO_INFO_N_PLANES (&m->info); i++)
    data[i] = m->staging + GST_VIDEO_INFO_PLANE_OFFSET (&m->info, i);
  wrap_planes (sw, &m->info, data, m->info.stride, m->staging_keeper);
}

/* lock held */
static void
drop_staging (GstAvhwMemory * m)
{
  m->staging = NULL;
  g_clear_pointer (&m->staging_keeper, keeper_unref);
}

static gboolean
transfer (GstAvhwMemory * m, gboolean download)
{
  GstAvhwBackend *backend = gst_avhw_device_get_backend (m->device);
  AVFrame *sw = av_frame_alloc ();
  GError *err = NULL;
  gboolean ok;

  if (!sw)
    return FALSE;
  wrap_staging (m, sw);
  /* A decoded frame can be smaller than its surface (1080 in 1088). */
  sw->width = MIN (sw->width, m->frame->width);
  sw->height = MIN (sw->height, m->frame->height);
  ok = download ? gst_avhw_backend_download (backend, sw, m->frame, &err) :
      gst_avhw_backend_upload (backend, m->frame, sw, &err);
  if (!ok) {
    GST_ERROR ("%s: %s", gst_avhw_device_get_name (m->device), err->message);
    g_clear_error (&err);
  }
  av_frame_free (&sw);
  return ok;
}

static gpointer
avhw_mem_map (GstMemory * mem, gsize maxsize, GstMapFlags flags)
{
  GstAvhwMemory *m = (GstAvhwMemory *) mem;
  gpointer ret = NULL;

  if (flags & GST_MAP_AVHW)
    return m->frame;

  g_mutex_lock (&m->lock);
  if (!m->staging) {
    m->staging = g_malloc (GST_VIDEO_INFO_SIZE (&m->info));
    m->staging_keeper = keeper_new (g_free, m->staging);
  }
  if (m->n_maps == 0 && !m->dirty && (flags & GST_MAP_READ)
      && !transfer (m, TRUE))
    goto out;
  m->n_maps++;
  if (flags & GST_MAP_WRITE)
    m->dirty = TRUE;
  ret = m->staging;
out:
  g_mutex_unlock (&m->lock);
  return ret;
}

static void
avhw_mem_unmap_full (GstMemory * mem, GstMapInfo * info)
{
  GstAvhwMemory *m = (GstAvhwMemory *) mem;

  if (info->flags & GST_MAP_AVHW)
    return;
  g_mutex_lock (&m->lock);
  if (--m->n_maps == 0 && m->dirty) {
    transfer (m, FALSE);
    m->dirty = FALSE;
  }
  if (m->n_maps == 0 && !m->dirty)
    drop_staging (m);
  g_mutex_unlock (&m->lock);
}

static GstMemory *
avhw_mem_copy (GstMemory * mem, gssize offset, gssize size)
{
  GstAvhwMemory *m = (GstAvhwMemory *) mem;
  GstMemory *copy = NULL;
  AVFrame *frame;
  GError *err = NULL;

  if (offset != 0 || (size != -1 && (gsize) size != mem->size))
    return NULL;
  frame = av_frame_alloc ();
  if (gst_avhw_backend_frames_get_buffer (gst_avhw_device_get_backend
          (m->device), m->frame->hw_frames_ctx, frame) < 0) {
    av_frame_free (&frame);
    return NULL;
  }
  frame->width = m->frame->width;
  frame->height = m->frame->height;
  if (!gst_avhw_backend_copy (gst_avhw_device_get_backend (m->device), frame,
          m->frame, &err)) {
    /* No device-to-device copy: go through the host. */
    GstMapInfo in;
    g_clear_error (&err);
    copy = gst_avhw_memory_new (m->device, frame, &m->info);
    if (gst_memory_map (mem, &in, GST_MAP_READ)) {
      GstMapInfo out;
      if (gst_memory_map (copy, &out, GST_MAP_WRITE)) {
        memcpy (out.data, in.data, MIN (in.size, out.size));
        gst_memory_unmap (copy, &out);
      }
      gst_memory_unmap (mem, &in);
    }
    return copy;
  }
  return gst_avhw_memory_new (m->device, frame, &m->info);
}

static GstMemory *
avhw_mem_share (GstMemory * mem, gssize offset, gssize size)
{
  return NULL;
}

static GstMemory *
avhw_alloc (GstAllocator * allocator, gsize size, GstAllocationParams * params)
{
  g_critical ("AVHWMemory is made from hardware frames, use "
      "gst_avhw_memory_new() or a GstAvhwBufferPool");
  return NULL;
}

static void
avhw_free (GstAllocator * allocator, GstMemory * mem)
{
  GstAvhwMemory *m = (GstAvhwMemory *) mem;

  av_frame_free (&m->frame);
  gst_clear_object (&m->device);
  drop_staging (m);
  g_mutex_clear (&m->lock);
  g_free (m);
}

static void
gst_avhw_allocator_class_init (GstAvhwAllocatorClass * klass)
{
  GstAllocatorClass *aclass = GST_ALLOCATOR_CLASS (klass);

  aclass->alloc = avhw_alloc;
  aclass->free = avhw_free;
}

static void
gst_avhw_allocator_init (GstAvhwAllocator * self)
{
  GstAllocator *alloc = GST_ALLOCATOR_CAST (self);

  alloc->mem_type = GST_AVHW_MEMORY_NAME;
  alloc->mem_map = avhw_mem_map;
  alloc->mem_unmap_full = avhw_mem_unmap_full;
  alloc->mem_copy = avhw_mem_copy;
  alloc->mem_share = avhw_mem_share;
  GST_OBJECT_FLAG_SET (self, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

static GstAllocator *
get_allocator (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    gst_avhw_init ();
    GST_DEBUG_CATEGORY_INIT (avhw_memory_debug, "avhwmemory", 0,
        "gst-avhw device memory");
    avhw_allocator = g_object_new (gst_avhw_allocator_get_type (), NULL);
    gst_object_ref_sink (avhw_allocator);
    GST_OBJECT_FLAG_SET (avhw_allocator, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    gst_allocator_register (GST_AVHW_MEMORY_NAME,
        gst_object_ref (avhw_allocator));
    g_once_init_leave (&done, 1);
  }
  return avhw_allocator;
}

/**
 * gst_is_avhw_memory:
 * @mem: a #GstMemory
 *
 * Returns: %TRUE when @mem is a #GstAvhwMemory
 */
gboolean
gst_is_avhw_memory (GstMemory * mem)
{
  return mem && mem->allocator
      && g_type_is_a (G_OBJECT_TYPE (mem->allocator),
      gst_avhw_allocator_get_type ());
}

/**
 * gst_avhw_memory_new: (skip)
 * @device: the device the frame lives on
 * @frame: (transfer full): a hardware AVFrame with `hw_frames_ctx`
 * @info: the frame's software layout (format, size); the staging copy and
 *   the buffer's video meta follow it
 *
 * Returns: (transfer full): a new memory owning @frame
 */
GstMemory *
gst_avhw_memory_new (GstAvhwDevice * device, AVFrame * frame,
    const GstVideoInfo * info)
{
  GstAvhwMemory *m;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  g_return_val_if_fail (frame && frame->hw_frames_ctx, NULL);
  m = g_new0 (GstAvhwMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (m), GST_MEMORY_FLAG_NO_SHARE,
      get_allocator (), NULL, GST_VIDEO_INFO_SIZE (info), 0, 0,
      GST_VIDEO_INFO_SIZE (info));
  m->device = gst_object_ref (device);
  m->frame = frame;
  m->info = *info;
  g_mutex_init (&m->lock);
  return GST_MEMORY_CAST (m);
}

/**
 * gst_avhw_buffer_new: (skip)
 * @device: the device the frame lives on
 * @frame: (transfer full): a hardware AVFrame
 * @info: the frame's software layout
 *
 * Returns: (transfer full): a buffer holding one #GstAvhwMemory and a
 *   GstVideoMeta describing its staging layout
 */
GstBuffer *
gst_avhw_buffer_new (GstAvhwDevice * device, AVFrame * frame,
    const GstVideoInfo * info)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMemory *mem = gst_avhw_memory_new (device, frame, info);

  if (!mem) {
    gst_buffer_unref (buf);
    return NULL;
  }
  gst_buffer_append_memory (buf, mem);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info),
      (gsize *) info->offset, (gint *) info->stride);
  return buf;
}

/**
 * gst_avhw_memory_get_frame: (skip)
 * @mem: a #GstAvhwMemory
 *
 * Returns: (transfer none): the hardware AVFrame; av_frame_ref() it to keep it
 */
AVFrame *
gst_avhw_memory_get_frame (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_avhw_memory (mem), NULL);
  return ((GstAvhwMemory *) mem)->frame;
}

/**
 * gst_avhw_memory_get_device:
 * @mem: a #GstAvhwMemory
 *
 * Returns: (transfer none): the device the frame lives on
 */
GstAvhwDevice *
gst_avhw_memory_get_device (GstMemory * mem)
{
  g_return_val_if_fail (gst_is_avhw_memory (mem), NULL);
  return ((GstAvhwMemory *) mem)->device;
}

/**
 * gst_avhw_buffer_peek_frame: (skip)
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the hardware frame of @buffer when it
 *   holds exactly one #GstAvhwMemory, else %NULL
 */
AVFrame *
gst_avhw_buffer_peek_frame (GstBuffer * buffer)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_avhw_memory (mem) ? ((GstAvhwMemory *) mem)->frame : NULL;
}

/**
 * gst_avhw_buffer_get_n_planes:
 * @buffer: a #GstBuffer
 *
 * For code that stays on the device (ML frameworks, custom kernels): how
 * many planes the hardware frame of @buffer has.
 *
 * Returns: the number of planes, 0 when @buffer is not avhw device memory
 */
guint
gst_avhw_buffer_get_n_planes (GstBuffer * buffer)
{
  AVFrame *f = gst_avhw_buffer_peek_frame (buffer);
  guint n = 0;

  while (f && n < AV_NUM_DATA_POINTERS && f->data[n])
    n++;
  return n;
}

/**
 * gst_avhw_buffer_get_plane_handle:
 * @buffer: a #GstBuffer in avhw device memory, or in GStreamer's own
 *   device memory of a backend's kind (memory:CUDAMemory for cuda)
 * @plane: the plane
 *
 * The device handle of @plane, as FFmpeg's AVFrame.data[] holds it for the
 * backend's hardware frames: a CUdeviceptr for cuda (each plane), an
 * AVVkFrame * for vulkan (plane 0 only), a cl_mem for opencl. The handle is
 * valid while @buffer is alive; frames come out of the decoder complete
 * (FFmpeg synchronises before returning them), and GStreamer's own device
 * memory has its pending work done first. gst_avhw_buffer_get_backend()
 * says whose handle it is.
 *
 * Returns: the handle, 0 when there is none
 */
guint64
gst_avhw_buffer_get_plane_handle (GstBuffer * buffer, guint plane)
{
  AVFrame *f = gst_avhw_buffer_peek_frame (buffer);
  guint64 handle = 0;
  gint stride, index;

  if (f)
    return plane < AV_NUM_DATA_POINTERS ? (guint64) (guintptr) f->data[plane]
        : 0;
  if (!gst_avhw_foreign_buffer_plane (buffer, plane, &handle, &stride, &index))
    return 0;
  return handle;
}

/**
 * gst_avhw_buffer_get_plane_stride:
 * @buffer: a #GstBuffer, as for gst_avhw_buffer_get_plane_handle()
 * @plane: the plane
 *
 * Returns: the pitch in bytes of @plane on the device (AVFrame.linesize),
 *   0 when there is none
 */
gint
gst_avhw_buffer_get_plane_stride (GstBuffer * buffer, guint plane)
{
  AVFrame *f = gst_avhw_buffer_peek_frame (buffer);
  guint64 handle;
  gint stride = 0, index;

  if (f)
    return plane < AV_NUM_DATA_POINTERS ? f->linesize[plane] : 0;
  if (!gst_avhw_foreign_buffer_plane (buffer, plane, &handle, &stride, &index))
    return 0;
  return stride;
}

/**
 * gst_avhw_buffer_get_backend:
 * @buffer: a #GstBuffer
 * @index: (out) (optional): the index of the device @buffer's frame lives
 *   on, among the backend's devices; -1 without a backend
 *
 * Which backend's device memory holds @buffer's frame: avhw memory, or
 * GStreamer's own device memory of a backend's kind (memory:CUDAMemory
 * for cuda, through the backend's interop), so applications can use the
 * frame in place with gst_avhw_buffer_get_plane_handle().
 *
 * Returns: (transfer none) (nullable): the backend, %NULL for system
 *   memory and memory no backend knows
 */
GstAvhwBackend *
gst_avhw_buffer_get_backend (GstBuffer * buffer, gint * index)
{
  GstAvhwDevice *device = gst_avhw_buffer_get_device (buffer);
  GstAvhwBackend *backend = NULL;
  guint64 handle;
  gint stride, i = -1;

  if (device) {
    backend = gst_avhw_device_get_backend (device);
    i = gst_avhw_device_get_index (device);
  } else {
    backend = gst_avhw_foreign_buffer_plane (buffer, 0, &handle, &stride, &i);
    if (!backend)
      i = -1;
  }
  if (index)
    *index = i;
  return backend;
}

/**
 * gst_avhw_buffer_get_device:
 * @buffer: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the device the frame of @buffer lives
 *   on, %NULL when @buffer is not avhw device memory
 */
GstAvhwDevice *
gst_avhw_buffer_get_device (GstBuffer * buffer)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (buffer, 0);
  return gst_is_avhw_memory (mem) ? ((GstAvhwMemory *) mem)->device : NULL;
}
