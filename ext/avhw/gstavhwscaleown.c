/* gst-avhw: a backend's own converter, frame by frame
 *
 * A converter that is no libavfilter filter (#GstAvhwConverterCaps.filter
 * %NULL: the CUDA backend's convert-and-scale kernel) runs as a session
 * of the backend, opened once per negotiation. Each output frame comes
 * from the device's frames of the output format and size (the cache's
 * frames context, through the backend's frames_get_buffer), and the
 * backend queues the conversion into it on the device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwscaleown.h"

struct _GstAvhwScaleOwn
{
  GstAvhwDevice *device;
  GstAvhwBackend *backend;
  gpointer session;
  AVBufferRef *out_frames;
};

GstAvhwScaleOwn *
gst_avhw_scale_own_new (GstAvhwDevice * device, guint index,
    const GstAvhwConvertSetup * setup, GError ** error)
{
  GstAvhwScaleOwn *own = g_new0 (GstAvhwScaleOwn, 1);
  const GstVideoInfo *out = &setup->out_info;

  own->device = gst_object_ref (device);
  own->backend = gst_avhw_device_get_backend (device);
  own->out_frames = gst_avhw_device_get_frames_ctx (device,
      gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (out)),
      GST_VIDEO_INFO_WIDTH (out), GST_VIDEO_INFO_HEIGHT (out), 0, error);
  if (!own->out_frames)
    goto fail;
  own->session = gst_avhw_backend_open_converter (own->backend,
      gst_avhw_device_get_device_ctx (device), index, setup, error);
  if (!own->session)
    goto fail;
  return own;

fail:
  gst_avhw_scale_own_free (own);
  return NULL;
}

/* Returns: (transfer full) (nullable): the output frame, or %NULL with
 * @error set */
AVFrame *
gst_avhw_scale_own_convert (GstAvhwScaleOwn * own, const AVFrame * src,
    GError ** error)
{
  char err[AV_ERROR_MAX_STRING_SIZE];
  AVFrame *dst = av_frame_alloc ();
  int ret;

  if (!dst) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "out of memory for a frame");
    return NULL;
  }
  ret = gst_avhw_backend_frames_get_buffer (own->backend, own->out_frames, dst);
  if (ret < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "%s: no output frame: %s", gst_avhw_device_get_name (own->device),
        av_make_error_string (err, sizeof (err), ret));
    av_frame_free (&dst);
    return NULL;
  }
  if (!gst_avhw_backend_convert (own->backend, own->session, dst, src, error)) {
    av_frame_free (&dst);
    return NULL;
  }
  return dst;
}

void
gst_avhw_scale_own_free (GstAvhwScaleOwn * own)
{
  if (!own)
    return;
  if (own->session)
    gst_avhw_backend_close_converter (own->backend, own->session);
  av_buffer_unref (&own->out_frames);
  gst_clear_object (&own->device);
  g_free (own);
}
