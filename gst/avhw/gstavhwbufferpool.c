/* gst-avhw: buffer pool over an AVHWFramesContext
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhw-impl.h"
#include "gstavhwbufferpool.h"
#include "gstavhwmemory.h"

GST_DEBUG_CATEGORY_STATIC (avhw_pool_debug);
#define GST_CAT_DEFAULT avhw_pool_debug

/**
 * SECTION:gstavhwbufferpool
 * @title: GstAvhwBufferPool
 * @short_description: device-memory buffers from a frames context
 *
 * Buffers hold one #GstAvhwMemory each, with frames taken from a frames
 * context of the pool's device that the device cache provides: pools on
 * the same device, format and size share one surface pool.
 */

struct _GstAvhwBufferPool
{
  GstBufferPool parent;

  GstAvhwDevice *device;
  GstVideoInfo info;
  AVBufferRef *frames;
};

G_DEFINE_TYPE (GstAvhwBufferPool, gst_avhw_buffer_pool, GST_TYPE_BUFFER_POOL);

static const gchar **
pool_get_options (GstBufferPool * pool)
{
  static const gchar *options[] = { GST_BUFFER_POOL_OPTION_VIDEO_META, NULL };
  return options;
}

static gboolean
pool_set_config (GstBufferPool * pool, GstStructure * config)
{
  GstAvhwBufferPool *self = GST_AVHW_BUFFER_POOL (pool);
  GstCaps *caps = NULL;
  guint size, min, max;
  GError *err = NULL;
  enum AVPixelFormat fmt;
  GstVideoInfo info;

  if (!gst_buffer_pool_config_get_params (config, &caps, &size, &min, &max)
      || !caps || !gst_video_info_from_caps (&info, caps)) {
    GST_WARNING_OBJECT (self, "invalid config %" GST_PTR_FORMAT, config);
    return FALSE;
  }
  fmt = gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (&info));
  if (fmt == AV_PIX_FMT_NONE) {
    GST_WARNING_OBJECT (self, "format %s has no FFmpeg equivalent",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&info)));
    return FALSE;
  }
  av_buffer_unref (&self->frames);
  self->frames = gst_avhw_device_get_frames_ctx (self->device, fmt,
      GST_VIDEO_INFO_WIDTH (&info), GST_VIDEO_INFO_HEIGHT (&info), 0, &err);
  if (!self->frames) {
    GST_ERROR_OBJECT (self, "%s", err ? err->message : "no frames context");
    g_clear_error (&err);
    return FALSE;
  }
  self->info = info;
  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (&info), min, max);
  return GST_BUFFER_POOL_CLASS (gst_avhw_buffer_pool_parent_class)->set_config
      (pool, config);
}

static GstFlowReturn
pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstAvhwBufferPool *self = GST_AVHW_BUFFER_POOL (pool);
  AVFrame *frame = av_frame_alloc ();
  char err[AV_ERROR_MAX_STRING_SIZE];
  int ret;

  if (!frame)
    return GST_FLOW_ERROR;
  ret = gst_avhw_backend_frames_get_buffer (gst_avhw_device_get_backend
      (self->device), self->frames, frame);
  if (ret < 0) {
    GST_ERROR_OBJECT (self, "%s: no frame from the frames context: %s",
        gst_avhw_device_get_name (self->device),
        av_make_error_string (err, sizeof (err), ret));
    av_frame_free (&frame);
    return GST_FLOW_ERROR;
  }
  *buffer = gst_avhw_buffer_new (self->device, frame, &self->info);
  return GST_FLOW_OK;
}

/* A buffer comes back while someone else (an encoder's FFmpeg context,
 * holding its own AVFrame reference) may still read the surface: handing
 * it out again would let upstream overwrite a frame in use. Such a buffer
 * is freed instead; the surface goes back to FFmpeg's pool when its last
 * user lets go. */
static void
pool_release_buffer (GstBufferPool * pool, GstBuffer * buffer)
{
  AVFrame *frame = gst_avhw_buffer_peek_frame (buffer);

  if (!frame || !frame->buf[0] || !av_buffer_is_writable (frame->buf[0])) {
    GST_LOG_OBJECT (pool, "surface still in use elsewhere: not reused");
    GST_MINI_OBJECT_FLAG_SET (buffer, GST_BUFFER_FLAG_TAG_MEMORY);
  }
  GST_BUFFER_POOL_CLASS (gst_avhw_buffer_pool_parent_class)->release_buffer
      (pool, buffer);
}

static void
pool_finalize (GObject * object)
{
  GstAvhwBufferPool *self = GST_AVHW_BUFFER_POOL (object);

  av_buffer_unref (&self->frames);
  gst_clear_object (&self->device);
  G_OBJECT_CLASS (gst_avhw_buffer_pool_parent_class)->finalize (object);
}

static void
gst_avhw_buffer_pool_class_init (GstAvhwBufferPoolClass * klass)
{
  GstBufferPoolClass *pclass = GST_BUFFER_POOL_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = pool_finalize;
  pclass->get_options = pool_get_options;
  pclass->set_config = pool_set_config;
  pclass->alloc_buffer = pool_alloc_buffer;
  pclass->release_buffer = pool_release_buffer;
  GST_DEBUG_CATEGORY_INIT (avhw_pool_debug, "avhwbufferpool", 0,
      "gst-avhw buffer pool");
}

static void
gst_avhw_buffer_pool_init (GstAvhwBufferPool * self)
{
}

/**
 * gst_avhw_buffer_pool_new:
 * @device: the device to allocate on
 *
 * Returns: (transfer full): a new pool; configure it with caps of a
 *   software format the device supports
 */
GstBufferPool *
gst_avhw_buffer_pool_new (GstAvhwDevice * device)
{
  GstAvhwBufferPool *self;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  self = g_object_new (GST_TYPE_AVHW_BUFFER_POOL, NULL);
  gst_object_ref_sink (self);
  self->device = gst_object_ref (device);
  return GST_BUFFER_POOL_CAST (self);
}

/**
 * gst_avhw_buffer_pool_get_device:
 * @pool: a #GstAvhwBufferPool
 *
 * Returns: (transfer none): the pool's device
 */
GstAvhwDevice *
gst_avhw_buffer_pool_get_device (GstAvhwBufferPool * pool)
{
  g_return_val_if_fail (GST_IS_AVHW_BUFFER_POOL (pool), NULL);
  return pool->device;
}
