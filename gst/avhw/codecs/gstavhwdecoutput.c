/* gst-avhw: avhwdec, decoded frames out: caps, latency, the frame's
 * memory, faults
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What leaves the decoder, from the streaming thread only (the scheduler,
 * gstavhwdecsched.c, hands every frame and fault over in stream order):
 * the output caps follow the decoded frames (size, format, interlacing,
 * colorimetry, HDR); negotiating them chooses the frames' way out once
 * (gstavhwdecframes.c), and each frame then takes it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/pixdesc.h>
#include "gstavhwdecoutput.h"
#include "gstavhwcapsutils.h"
#include "gstavhwvideoutils.h"

GST_DEBUG_CATEGORY_EXTERN (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

/* Frames FFmpeg never returns (dropped as corrupt) are released once this
 * many later frames have come out. */
#define MAX_PENDING_AGE 64


static gboolean
downstream_takes (GstAvhwDec * self, const GstVideoInfo * info,
    const gchar * feature)
{
  GstCaps *mine = gst_video_info_to_caps (info), *peer;
  gboolean ok;

  gst_caps_set_features (mine, 0, gst_caps_features_new (feature, NULL));
  peer = gst_pad_peer_query_caps (GST_VIDEO_DECODER_SRC_PAD (self), NULL);
  ok = gst_caps_can_intersect (peer, mine);
  gst_caps_unref (peer);
  gst_caps_unref (mine);
  return ok;
}

/* Whether the backend can hand frames of @fmt on our device to GStreamer's
 * own memory (@feature): when not (another device, an old GStreamer, a
 * format it cannot wrap) that memory is not offered. */
static gboolean
exports_foreign (GstAvhwDec * self, GstAvhwBackend * backend,
    enum AVPixelFormat fmt, const gchar * feature)
{
  gchar *why = NULL;
  gboolean ok = gst_avhw_backend_device_exports_foreign (backend,
      DEVICE (self), fmt, &why);

  if (!ok)
    GST_INFO_OBJECT (self, "not offering %s for %s: %s", feature,
        av_get_pix_fmt_name (fmt), why ? why : "the backend says no");
  g_free (why);
  return ok;
}

/* Frames held inside FFmpeg: the reorder depth plus, with frame threads,
 * one frame per extra thread. */
static void
update_latency (GstAvhwDec * self, GstVideoCodecState * st)
{
  gint fps_n = GST_VIDEO_INFO_FPS_N (&st->info);
  gint fps_d = GST_VIDEO_INFO_FPS_D (&st->info);
  guint delay;
  GstClockTime latency;

  if (fps_n <= 0 || fps_d <= 0)
    return;
  delay = gst_avhw_dec_session_get_delay (self->session);
  latency = gst_util_uint64_scale (delay, fps_d * GST_SECOND, fps_n);
  GST_DEBUG_OBJECT (self, "latency %u frames, %" GST_TIME_FORMAT, delay,
      GST_TIME_ARGS (latency));
  gst_video_decoder_set_latency (GST_VIDEO_DECODER (self), latency, latency);
}

static gboolean
update_output_state (GstAvhwDec * self, const AVFrame * frame,
    enum AVPixelFormat sw_fmt)
{
  GstVideoDecoder *dec = GST_VIDEO_DECODER (self);
  GstVideoFormat fmt = gst_avhw_format_from_av (sw_fmt);
  gboolean interlaced;
  GstVideoInfo info;
  GstVideoCodecState *st;
  GstAvhwBackend *backend;
  const gchar *foreign;

  interlaced = gst_avhw_frame_is_interlaced (frame);
  if (self->output_state && self->out_width == frame->width
      && self->out_height == frame->height && self->out_format == fmt
      && (self->out_interlaced || !interlaced))
    return TRUE;

  if (fmt == GST_VIDEO_FORMAT_UNKNOWN) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Decoded pixel format %s has no GStreamer equivalent.",
            av_get_pix_fmt_name (sw_fmt)), (NULL));
    return FALSE;
  }
  gst_avhw_video_info_from_frame (&info, frame, fmt);
  backend = gst_avhw_device_get_backend (DEVICE (self));
  foreign = gst_avhw_backend_get_foreign_memory_feature (backend);
  /* Our device memory first (no copy), then GStreamer's own device memory
   * for this kind of device (interop, one device copy at most), then
   * system memory. */
  self->device_memory = gst_avhw_device_holds_sw_format (DEVICE (self), sw_fmt)
      && downstream_takes (self, &info,
      gst_avhw_backend_get_caps_feature (backend));
  self->foreign_memory = !self->device_memory && foreign
      && gst_avhw_device_holds_sw_format (DEVICE (self), sw_fmt)
      && downstream_takes (self, &info, foreign)
      && exports_foreign (self, backend, sw_fmt, foreign);

  st = gst_video_decoder_set_interlaced_output_state (dec, fmt,
      GST_VIDEO_INFO_INTERLACE_MODE (&info), frame->width, frame->height,
      self->input_state);
  st->info.colorimetry = info.colorimetry;
  st->info.par_n = info.par_n;
  st->info.par_d = info.par_d;
  st->caps = gst_video_info_to_caps (&st->info);
  gst_avhw_caps_add_hdr (st->caps, frame);
  if (self->device_memory)
    gst_caps_set_features (st->caps, 0,
        gst_avhw_device_get_caps_features (DEVICE (self)));
  else if (self->foreign_memory)
    gst_caps_set_features (st->caps, 0, gst_caps_features_new (foreign, NULL));
  g_clear_pointer (&self->output_state, gst_video_codec_state_unref);
  self->output_state = st;
  self->way_out = gst_avhw_dec_choose_way_out (self->device_memory,
      self->foreign_memory);
  self->out_width = frame->width;
  self->out_height = frame->height;
  self->out_format = fmt;
  self->out_interlaced = interlaced;
  /* Frames made for the old size or format would not fit the new one. */
  av_buffer_unref (&self->upload_frames);
  av_buffer_unref (&self->copy_frames);
  GST_INFO_OBJECT (self, "output %" GST_PTR_FORMAT, st->caps);
  update_latency (self, st);
  if (!gst_video_decoder_negotiate (dec)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("downstream refused %" GST_PTR_FORMAT, st->caps));
    return FALSE;
  }
  return TRUE;
}

/* The decoded frames went downstream and came back not-negotiated. Said
 * even when the refusal is further down (avhwdownload's output, a
 * capsfilter after it): nothing there names the decoded format, and the
 * source would only report "not-negotiated". An element that posts its
 * own error (an encoder) has posted it first, during the push. */
static void
post_refused (GstAvhwDec * self)
{
  GstCaps *caps = self->output_state->caps;
  const gchar *fmt = gst_video_format_to_string (self->out_format);
  const gchar *dev = gst_avhw_device_get_name (DEVICE (self));

  if (!gst_pad_peer_query_accept_caps (GST_VIDEO_DECODER_SRC_PAD (self), caps))
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream refused the decoded %s %dx%d frames (device %s); add "
            "videoconvert after avhwdec (system memory) or avhwdownload ! "
            "videoconvert (device memory).", fmt, self->out_width,
            self->out_height, dev), ("caps %" GST_PTR_FORMAT, caps));
  else
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("An element after avhwdec could not pass on the decoded %s %dx%d "
            "frames (%s, device %s): the caps further down ask for something "
            "else; add videoconvert (system memory) or avhwdownload ! "
            "videoconvert (device memory) where the format changes.", fmt,
            self->out_width, self->out_height, self->device_memory ?
            "device memory" : "system memory", dev),
        ("caps %" GST_PTR_FORMAT, caps));
}

/* @frame out; @from_decoder: a hardware frame still on the decoder's
 * surfaces (not a copy). */
static GstFlowReturn
output_frame (GstAvhwDec * self, AVFrame * frame, gboolean from_decoder)
{
  GstVideoDecoder *dec = GST_VIDEO_DECODER (self);
  GstVideoCodecFrame *cframe;
  enum AVPixelFormat sw_fmt = frame->hw_frames_ctx ?
      ((AVHWFramesContext *) frame->hw_frames_ctx->data)->sw_format :
      frame->format;
  GError *err = NULL;
  GstFlowReturn ret;
  GList *frames, *l;

  cframe = gst_video_decoder_get_frame (dec, (int) frame->pts);
  if (!cframe) {
    GST_WARNING_OBJECT (self, "no pending frame for output %" G_GINT64_FORMAT,
        (gint64) frame->pts);
    return GST_FLOW_OK;
  }

  /* Release frames FFmpeg dropped (corrupt input), never returned. Not
   * with parallel sessions: there every later segment's input is pending
   * (a walk over up to thousands of frames for each frame out), and each
   * segment releases its own at its end. */
  frames =
      g_atomic_int_get (&self->n_sessions) >
      1 ? NULL : gst_video_decoder_get_frames (dec);
  for (l = frames; l; l = l->next) {
    GstVideoCodecFrame *f = l->data;
    if (f->system_frame_number + MAX_PENDING_AGE < cframe->system_frame_number)
      gst_video_decoder_release_frame (dec, gst_video_codec_frame_ref (f));
  }
  g_list_free_full (frames, (GDestroyNotify) gst_video_codec_frame_unref);

  if (!update_output_state (self, frame, sw_fmt)) {
    gst_video_decoder_drop_frame (dec, cframe);
    return GST_FLOW_NOT_NEGOTIATED;
  }

  /* the way out negotiation chose (update_output_state()) */
  ret = self->way_out (self, frame, from_decoder, cframe, &err);
  if (ret == GST_FLOW_ERROR && err)
    goto transfer_failed;
  if (ret != GST_FLOW_OK) {
    gst_video_decoder_drop_frame (dec, cframe);
    return ret;
  }
  gst_avhw_buffer_flags_from_frame (cframe->output_buffer, frame);
  if (!gst_avhw_frame_is_keyframe (frame))
    GST_VIDEO_CODEC_FRAME_UNSET_SYNC_POINT (cframe);
  ret = gst_video_decoder_finish_frame (dec, cframe);
  if (ret == GST_FLOW_NOT_NEGOTIATED)
    post_refused (self);
  return ret;

transfer_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("Could not move a decoded frame on device %s.",
          gst_avhw_device_get_name (DEVICE (self))), ("%s", err ?
          err->message : "unknown"));
  g_clear_error (&err);
  gst_video_decoder_drop_frame (dec, cframe);
  return GST_FLOW_ERROR;
}

/* The message of a fault: the stream's data (counts towards max-errors),
 * or a hardware decoder that cannot go on without a fallback. */
GstFlowReturn
gst_avhw_dec_output_fault (GstAvhwDec * self, const GstAvhwDecFault * f)
{
  GstVideoDecoder *dec = GST_VIDEO_DECODER (self);
  GstFlowReturn ret = GST_FLOW_OK;
  char err[AV_ERROR_MAX_STRING_SIZE];
  const gchar *devname = gst_avhw_device_get_name (DEVICE (self));
  GstVideoCodecFrame *cframe;
  GstClockTime pts = GST_CLOCK_TIME_NONE;

  switch (f->kind) {
    case GST_AVHW_DEC_FAULT_DEVICE:
      GST_ELEMENT_ERROR (self, STREAM, DECODE,
          ("The hardware %s decoder of device %s failed (%s: %s); set "
              "fallback=true to go on in software.", f->codec, devname,
              f->call, av_make_error_string (err, sizeof (err), f->error)),
          ("%s", self->decoder_name ? "decoder is set: no fallback" :
              "fallback=false"));
      return GST_FLOW_ERROR;
    case GST_AVHW_DEC_FAULT_FIELDS:
      GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
          ("Device %s cannot decode the field pictures of this %s stream in "
              "hardware and fallback is off.", devname, f->codec),
          ("%s; set fallback=true to decode such streams in software",
              self->stream.fields_why));
      return GST_FLOW_ERROR;
    case GST_AVHW_DEC_FAULT_STREAM:
      break;
  }
  if (f->number < 0) {
    GST_VIDEO_DECODER_ERROR (self, 1, STREAM, DECODE,
        ("Could not decode the %s stream.", f->codec),
        ("%s: %s", f->call, av_make_error_string (err, sizeof (err),
                f->error)), ret);
    return ret;
  }
  cframe = gst_video_decoder_get_frame (dec, (int) f->number);
  if (cframe) {
    pts = cframe->pts;
    gst_video_codec_frame_unref (cframe);
  }
  GST_VIDEO_DECODER_ERROR (self, 1, STREAM, DECODE,
      ("Could not decode the %s stream (input frame %u, %" GST_TIME_FORMAT
          ").", f->codec, (guint) f->number, GST_TIME_ARGS (pts)),
      ("%s: %s", f->call, av_make_error_string (err, sizeof (err),
              f->error)), ret);
  return ret;
}

/* One frame FFmpeg gave (taken): checked, cropped where FFmpeg could not,
 * finished. */
GstFlowReturn
gst_avhw_dec_output_decoded (GstAvhwDec * self, AVFrame * frame,
    gboolean from_decoder)
{
  GstFlowReturn ret = GST_FLOW_OK;

  if ((frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags) {
    /* Concealed, and still output; counts towards max-errors (the session
     * does not keep its decoder). */
    GST_VIDEO_DECODER_ERROR (self, 1, STREAM, DECODE,
        ("Corrupt %s data in input frame %" G_GINT64_FORMAT " (decoder %s "
            "on %s): errors concealed. max-errors=-1 keeps decoding "
            "through damage.", avcodec_get_name (self->codec->id),
            (gint64) frame->pts, self->codec->name,
            gst_avhw_device_get_name (DEVICE (self))),
        ("decode_error_flags 0x%x", frame->decode_error_flags), ret);
    if (ret != GST_FLOW_OK) {
      av_frame_unref (frame);
      return ret;
    }
  }
  if (frame->hw_frames_ctx && (frame->crop_top || frame->crop_left)) {
    AVFrame *sw = gst_avhw_dec_download_cropped (self, frame);

    if (!sw) {
      av_frame_unref (frame);
      return GST_FLOW_ERROR;
    }
    ret = output_frame (self, sw, FALSE);
    av_frame_free (&sw);
  } else {
    ret = output_frame (self, frame, from_decoder);
  }
  av_frame_unref (frame);
  return ret;
}

void
gst_avhw_dec_output_lost (GstAvhwDec * self, gint64 first, gint64 last)
{
  GstVideoDecoder *dec = GST_VIDEO_DECODER (self);
  GList *frames = gst_video_decoder_get_frames (dec), *l;

  for (l = frames; l; l = l->next) {
    GstVideoCodecFrame *f = l->data;

    if ((gint64) f->system_frame_number >= first
        && (gint64) f->system_frame_number <= last)
      gst_video_decoder_drop_frame (dec, gst_video_codec_frame_ref (f));
  }
  g_list_free_full (frames, (GDestroyNotify) gst_video_codec_frame_unref);
}
