/* gst-avhw: avhwdec, the ways out: decoded frames into output buffers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Negotiating the output caps chooses one way out
 * (gst_avhw_dec_choose_way_out()), and every frame takes it:
 * - our device memory: the decoder's own frame, wrapped (a device copy
 *   once downstream holds extra-frames + 1 of them); a software frame
 *   (fallback) uploaded into a pool first;
 * - GStreamer's own device memory (interop): the same frame handed to the
 *   backend's export, or a copy where it must not be lent;
 * - system memory: a device frame downloaded into the output buffer, a
 *   software frame copied.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwdec-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

static AVFrame *copy_off_decoder (GstAvhwDec * self, const AVFrame * frame);

void
gst_avhw_dec_held_counter_release (HeldCounter * c)
{
  g_atomic_int_add (&c->held, -1);
  if (g_atomic_int_dec_and_test (&c->refs))
    g_free (c);
}

static gboolean
copy_sw_frame (GstAvhwDec * self, const AVFrame * src, GstBuffer * out)
{
  GstVideoFrame vf;
  guint p, row, rows, bytes;

  if (!gst_video_frame_map (&vf, &self->output_state->info, out, GST_MAP_WRITE))
    return FALSE;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vf); p++) {
    guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&vf, p);
    gint ds = GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p);
    guint c;

    rows = GST_VIDEO_FRAME_HEIGHT (&vf);
    bytes = GST_VIDEO_FRAME_WIDTH (&vf);
    for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&vf); c++) {
      if (GST_VIDEO_FRAME_COMP_PLANE (&vf, c) == p) {
        rows = GST_VIDEO_FRAME_COMP_HEIGHT (&vf, c);
        bytes = GST_VIDEO_FRAME_COMP_WIDTH (&vf, c) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&vf, c);
        break;
      }
    }
    for (row = 0; row < rows; row++)
      memcpy (d + row * ds, src->data[p] + row * src->linesize[p],
          MIN ((gint) bytes, ABS (src->linesize[p])));
  }
  gst_video_frame_unmap (&vf);
  return TRUE;
}

/* A software frame into a device frame, for device memory output. */
static AVFrame *
upload_sw_frame (GstAvhwDec * self, const AVFrame * src, GError ** error)
{
  AVFrame *hw;

  if (!self->upload_frames) {
    self->upload_frames = gst_avhw_device_get_frames_ctx (DEVICE (self),
        src->format, src->width, src->height, 0, error);
    if (!self->upload_frames)
      return NULL;
  }
  hw = av_frame_alloc ();
  if (gst_avhw_backend_frames_get_buffer (gst_avhw_device_get_backend
          (DEVICE (self)), self->upload_frames, hw) < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "no free frame in the upload pool");
    av_frame_free (&hw);
    return NULL;
  }
  if (!gst_avhw_backend_upload (gst_avhw_device_get_backend (DEVICE (self)),
          hw, src, error)) {
    av_frame_free (&hw);
    return NULL;
  }
  av_frame_copy_props (hw, src);
  return hw;
}

/* Counts @buf, which holds one of the decoder's own frames, while alive. */
static void
count_held (GstAvhwDec * self, GstBuffer * buf)
{
  g_atomic_int_inc (&self->held->refs);
  g_atomic_int_inc (&self->held->held);
  gst_mini_object_set_qdata (GST_MINI_OBJECT (buf),
      g_quark_from_static_string ("avhw-dec-held"), self->held,
      (GDestroyNotify) gst_avhw_dec_held_counter_release);
}

/* A buffer holding one of the decoder's own frames: counted while alive. */
static GstBuffer *
wrap_decoder_frame (GstAvhwDec * self, AVFrame * hw)
{
  GstBuffer *buf = gst_avhw_buffer_new (DEVICE (self), hw,
      &self->output_state->info);

  count_held (self, buf);
  return buf;
}

/* Whether the decoder's frames come from a fixed set of surfaces, which
 * frames held downstream can use up: FFmpeg sizes such a hardware
 * decoder's frames context (AVHWFramesContext.initial_pool_size: nvdec's
 * DPB plus spares, vaapi's surfaces), where a decoder whose frames pool
 * grows as needed leaves it 0 (FFmpeg's Vulkan decoder). Frames of a pool
 * that grows are never copied off the decoder: a copy there costs a
 * device copy and a wait for it, and saves nothing (with fakesink after
 * avhwdec device=vulkan it copied every other frame of a 1080p H.264
 * stream, 450 of 900, on the H100). */
static gboolean
decoder_pool_is_fixed (const AVFrame * hw)
{
  const AVHWFramesContext *fc = hw->hw_frames_ctx ?
      (const AVHWFramesContext *) hw->hw_frames_ctx->data : NULL;

  return fc && fc->initial_pool_size > 0;
}

/* Before a decoder frame (*@hw) goes downstream: when its decoder has a
 * fixed set of surfaces (decoder_pool_is_fixed()) and downstream already
 * holds more than extra-frames of them, *@hw is replaced by a device copy
 * (gst_avhw_dec_copy_off_decoder()). Returns whether *@hw is still the
 * decoder's own frame. */
static gboolean
keep_on_decoder (GstAvhwDec * self, AVFrame ** hw)
{
  AVFrame *copy;

  if (!decoder_pool_is_fixed (*hw)
      || g_atomic_int_get (&self->held->held) <= self->extra_frames
      || !(copy = copy_off_decoder (self, *hw)))
    return TRUE;
  av_frame_free (hw);
  *hw = copy;
  return FALSE;
}

/* GStreamer's own device memory holding @hw (taken). A decoder frame is
 * copied off the decoder first when downstream already holds enough of
 * them, or when the backend will not lend it (a reference picture the
 * decoder may use again); one the backend wrapped rather than copied (it
 * kept a reference on the frame) is counted like the decoder's own. */
static GstBuffer *
export_frame (GstAvhwDec * self, AVFrame * hw,
    gboolean from_decoder, GError ** error)
{
  GstAvhwBackend *backend = gst_avhw_device_get_backend (DEVICE (self));
  GstBuffer *buf;
  int before;

  from_decoder = from_decoder && keep_on_decoder (self, &hw);
  before = hw->buf[0] ? av_buffer_get_ref_count (hw->buf[0]) : 0;
  buf = gst_avhw_backend_export_foreign_buffer (backend, DEVICE (self), hw,
      &self->output_state->info, error);
  if (!buf && error && !*error && from_decoder) {
    /* the decoder may use the frame again (a reference picture): a copy */
    AVFrame *copy = copy_off_decoder (self, hw);

    if (copy) {
      av_frame_free (&hw);
      hw = copy;
      from_decoder = FALSE;
      buf = gst_avhw_backend_export_foreign_buffer (backend, DEVICE (self),
          hw, &self->output_state->info, error);
    }
  }
  if (!buf && error && !*error)
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "%s: the frame could not be handed to GStreamer's memory, nor a "
        "copy of it", gst_avhw_device_get_name (DEVICE (self)));
  if (buf && from_decoder && hw->buf[0]
      && av_buffer_get_ref_count (hw->buf[0]) > before)
    count_held (self, buf);
  av_frame_free (&hw);
  return buf;
}

/* Hardware decoders (FFmpeg's nvdec among them) keep a decode surface for
 * every frame they output until that frame is freed. FFmpeg sizes their
 * pools as the stream's DPB plus a few spares (nvdec: 4, one per frame
 * thread beyond that) plus extra-frames. When downstream already holds
 * extra-frames + 1 of them, one more could starve the decoder ("No decoder
 * surfaces left"): that frame is copied on the device into a pool of our
 * own instead, when the backend can copy. */
static AVFrame *
copy_off_decoder (GstAvhwDec * self, const AVFrame * frame)
{
  return gst_avhw_dec_copy_to_pool (self, &self->copy_frames, frame);
}

/* @frame copied on the device into *@pool, made from the frames cache when
 * NULL; NULL when the backend cannot copy. */
AVFrame *
gst_avhw_dec_copy_to_pool (GstAvhwDec * self, AVBufferRef ** pool,
    const AVFrame * frame)
{
  const AVHWFramesContext *fc =
      (const AVHWFramesContext *) frame->hw_frames_ctx->data;
  AVFrame *copy;
  GError *err = NULL;

  if (*pool) {
    const AVHWFramesContext *pc = (const AVHWFramesContext *) (*pool)->data;

    /* made for another size or format (a resolution change) */
    if (pc->sw_format != fc->sw_format || pc->width != fc->width
        || pc->height != fc->height)
      av_buffer_unref (pool);
  }
  if (!*pool) {
    *pool = gst_avhw_device_get_frames_ctx (DEVICE (self),
        fc->sw_format, fc->width, fc->height, 0, &err);
    if (!*pool)
      goto fail;
  }
  copy = av_frame_alloc ();
  if (gst_avhw_backend_frames_get_buffer (gst_avhw_device_get_backend
          (DEVICE (self)), *pool, copy) < 0) {
    av_frame_free (&copy);
    goto fail;
  }
  if (!gst_avhw_backend_copy (gst_avhw_device_get_backend (DEVICE (self)),
          copy, frame, &err)) {
    av_frame_free (&copy);
    goto fail;
  }
  av_frame_copy_props (copy, frame);
  copy->width = frame->width;
  copy->height = frame->height;
  return copy;

fail:
  GST_DEBUG_OBJECT (self, "no device copy (%s): handing out the decoder's "
      "frame", err ? err->message : "no frame");
  g_clear_error (&err);
  return NULL;
}

/* FFmpeg crops a hardware frame only at the right and bottom; a stream
 * cropped at the top or left (rare: CVFC1) comes out with those rows and
 * columns. Such a frame is downloaded through the backend, like every
 * other transfer, and cropped the way FFmpeg crops software frames, then
 * goes on as a software frame. */
AVFrame *
gst_avhw_dec_download_cropped (GstAvhwDec * self, const AVFrame * frame)
{
  AVFrame *sw = av_frame_alloc ();
  GError *error = NULL;
  char err[AV_ERROR_MAX_STRING_SIZE];
  int r = 0;

  if (!sw)
    return NULL;
  if (!gst_avhw_backend_download (gst_avhw_device_get_backend (DEVICE (self)),
          sw, frame, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not crop a decoded frame on device %s.",
            gst_avhw_device_get_name (DEVICE (self))), ("download: %s",
            error->message));
    g_clear_error (&error);
    av_frame_free (&sw);
    return NULL;
  }
  r = av_frame_copy_props (sw, frame);
  if (r >= 0)
    r = av_frame_apply_cropping (sw, 0);
  if (r < 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not crop a decoded frame on device %s.",
            gst_avhw_device_get_name (DEVICE (self))),
        ("crop: %s", av_make_error_string (err, sizeof (err), r)));
    av_frame_free (&sw);
  }
  return sw;
}

/* ---------------------------------------------------------------- ways */

/* @frame on the device as a new frame: a reference, or a software frame
 * uploaded. */
static AVFrame *
on_device (GstAvhwDec * self, const AVFrame * frame, GError ** error)
{
  return frame->hw_frames_ctx ? av_frame_clone (frame) :
      upload_sw_frame (self, frame, error);
}

static GstFlowReturn
way_device (GstAvhwDec * self, AVFrame * frame, gboolean from_decoder,
    GstVideoCodecFrame * cframe, GError ** error)
{
  AVFrame *hw = on_device (self, frame, error);

  if (!hw)
    return GST_FLOW_ERROR;
  if (frame->hw_frames_ctx && from_decoder && keep_on_decoder (self, &hw))
    cframe->output_buffer = wrap_decoder_frame (self, hw);
  else
    cframe->output_buffer = gst_avhw_buffer_new (DEVICE (self), hw,
        &self->output_state->info);
  return GST_FLOW_OK;
}

static GstFlowReturn
way_foreign (GstAvhwDec * self, AVFrame * frame, gboolean from_decoder,
    GstVideoCodecFrame * cframe, GError ** error)
{
  AVFrame *hw = on_device (self, frame, error);

  if (!hw)
    return GST_FLOW_ERROR;
  cframe->output_buffer = export_frame (self, hw, frame->hw_frames_ctx
      && from_decoder, error);
  return cframe->output_buffer ? GST_FLOW_OK : GST_FLOW_ERROR;
}

static GstFlowReturn
way_system (GstAvhwDec * self, AVFrame * frame, gboolean from_decoder,
    GstVideoCodecFrame * cframe, GError ** error)
{
  GstFlowReturn ret =
      gst_video_decoder_allocate_output_frame (GST_VIDEO_DECODER (self),
      cframe);

  if (ret != GST_FLOW_OK)
    return ret;
  if (frame->hw_frames_ctx)
    return gst_avhw_transfer_buffer (gst_avhw_device_get_backend (DEVICE
            (self)), frame, cframe->output_buffer, &self->output_state->info,
        TRUE, error) ? GST_FLOW_OK : GST_FLOW_ERROR;
  if (copy_sw_frame (self, frame, cframe->output_buffer))
    return GST_FLOW_OK;
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
      "cannot map the output buffer");
  return GST_FLOW_ERROR;
}

GstAvhwDecWayOut
gst_avhw_dec_choose_way_out (gboolean device_memory, gboolean foreign_memory)
{
  return device_memory ? way_device : foreign_memory ? way_foreign : way_system;
}
