/* gst-avhw: avhwenc, frames into the encoder and packets out of it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwencbitstream.h"
#include "gstavhwencprivate.h"

#define GST_CAT_DEFAULT gst_avhw_enc_debug

/* ---------------------------------------------------------------- output */

void
gst_avhw_enc_update_latency (GstAvhwEnc * self, guint frames)
{
  const GstVideoInfo *info = &self->input_state->info;
  GstClockTime lat = 0;

  if (GST_VIDEO_INFO_FPS_N (info) > 0)
    lat = gst_util_uint64_scale (frames, GST_SECOND *
        GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
  GST_INFO_OBJECT (self, "latency %u frames (%" GST_TIME_FORMAT ")", frames,
      GST_TIME_ARGS (lat));
  gst_video_encoder_set_latency (GST_VIDEO_ENCODER (self), lat, lat);
}

static gboolean
buffers_equal (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo map;
  gboolean eq;

  if (!a || !b)
    return a == b;
  if (gst_buffer_get_size (a) != gst_buffer_get_size (b)
      || !gst_buffer_map (a, &map, GST_MAP_READ))
    return FALSE;
  eq = gst_buffer_memcmp (b, 0, map.data, map.size) == 0;
  gst_buffer_unmap (a, &map);
  return eq;
}

/* Profiles a stream of the first also conforms to, for downstream that
 * names a wider one (a constrained-baseline stream is a baseline, main and
 * high stream too), as x264enc does. */
static const struct
{
  enum AVCodecID codec;
  const gchar *profile;
  const gchar *also[3];
} wider_profiles[] = {
  {AV_CODEC_ID_H264, "constrained-baseline", {"baseline", "main", "high"}},
  {AV_CODEC_ID_H264, "main", {"high", NULL, NULL}},
  {AV_CODEC_ID_H264, "progressive-high", {"high", NULL, NULL}},
  {AV_CODEC_ID_H264, "constrained-high", {"progressive-high", "high", NULL}},
  {AV_CODEC_ID_HEVC, "main", {"main-10", NULL, NULL}},
};

/* Whether downstream accepts @caps as GstVideoEncoder will send them: with
 * the size, pixel aspect ratio and frame rate of the input added (muxers'
 * templates ask for width and height: mp4mux, matroskamux...). */
static gboolean
peer_accepts (GstAvhwEnc * self, GstCaps * caps)
{
  const GstVideoInfo *in = &self->input_state->info;
  GstCaps *full = gst_caps_copy (caps);
  gboolean ok;

  gst_caps_set_simple (full, "width", G_TYPE_INT, GST_VIDEO_INFO_WIDTH (in),
      "height", G_TYPE_INT, GST_VIDEO_INFO_HEIGHT (in),
      "pixel-aspect-ratio", GST_TYPE_FRACTION, GST_VIDEO_INFO_PAR_N (in),
      GST_VIDEO_INFO_PAR_D (in), NULL);
  if (GST_VIDEO_INFO_FPS_D (in) > 0)
    gst_caps_set_simple (full, "framerate", GST_TYPE_FRACTION,
        GST_VIDEO_INFO_FPS_N (in), GST_VIDEO_INFO_FPS_D (in), NULL);
  ok = gst_pad_peer_query_accept_caps (GST_VIDEO_ENCODER_SRC_PAD (self), full);
  gst_caps_unref (full);
  return ok;
}

/* @caps, or the same with a wider profile, as downstream accepts it; NULL
 * (and an error posted naming what was refused) when it accepts neither. */
static GstCaps *
accepted_caps (GstAvhwEnc * self, GstCaps * caps)
{
  GstPad *pad = GST_VIDEO_ENCODER_SRC_PAD (self);
  GstStructure *st = gst_caps_get_structure (caps, 0);
  const gchar *profile = gst_structure_get_string (st, "profile");
  const gchar *level = gst_structure_get_string (st, "level");
  GstCaps *peer;
  guint i, j;

  if (peer_accepts (self, caps))
    return caps;
  for (i = 0; profile && i < G_N_ELEMENTS (wider_profiles); i++) {
    if (wider_profiles[i].codec != self->codec->id
        || !g_str_equal (wider_profiles[i].profile, profile))
      continue;
    for (j = 0; j < G_N_ELEMENTS (wider_profiles[i].also)
        && wider_profiles[i].also[j]; j++) {
      GstCaps *wider = gst_caps_copy (caps);

      gst_caps_set_simple (wider, "profile", G_TYPE_STRING,
          wider_profiles[i].also[j], NULL);
      if (peer_accepts (self, wider)) {
        GST_INFO_OBJECT (self, "%s stream announced as %s, which downstream "
            "asks for", profile, wider_profiles[i].also[j]);
        gst_caps_unref (caps);
        return wider;
      }
      gst_caps_unref (wider);
    }
  }
  peer = gst_pad_peer_query_caps (pad, NULL);
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("Downstream does not accept the stream encoder %s produced: %s, "
          "profile %s, level %s, stream-format %s%s%s.", self->codec->name,
          gst_structure_get_name (st), GST_STR_NULL (profile),
          GST_STR_NULL (level), GST_STR_NULL (self->stream_format),
          self->downstream_profile ? "; downstream asks for profile " : "",
          self->downstream_profile ? self->downstream_profile : ""),
      ("produced %" GST_PTR_FORMAT "; downstream accepts %" GST_PTR_FORMAT,
          caps, peer));
  gst_clear_caps (&peer);
  gst_caps_unref (caps);
  self->caps_refused = TRUE;
  return NULL;
}

/* Output caps from the first packet of a context: profile and level from
 * its SPS (extradata or in-band; AV1: the profile from its sequence
 * header), codec_data for avc/hvc1/hev1 and AV1. */
static gboolean
ensure_output_caps (GstAvhwEnc * self, const AVPacket * pkt)
{
  enum AVCodecID id = self->codec->id;
  const guint8 *hdr = self->ctx->extradata;
  gsize hdr_size = self->ctx->extradata_size;
  GstVideoCodecState *st;
  GstBuffer *codec_data = NULL;
  GstCaps *caps;

  if (!hdr || hdr_size == 0) {
    hdr = pkt->data;
    hdr_size = pkt->size;
  }
  caps = gst_avhw_enc_codec_src_caps (id);
  gst_caps_set_simple (caps, "stream-format", G_TYPE_STRING,
      self->stream_format, NULL);
  gst_avhw_enc_caps_set_profile_level (caps, id, hdr, hdr_size);
  if (id == AV_CODEC_ID_AV1) {
    /* av1C, which MP4 and Matroska need: mp4mux writes zeros without it */
    codec_data = gst_avhw_enc_make_codec_data (id, hdr, hdr_size);
    if (!codec_data)
      GST_WARNING_OBJECT (self, "no AV1 sequence header in the first packet "
          "of %s: no codec_data", self->codec->name);
  } else if (self->length_prefixed) {
    codec_data = gst_avhw_enc_make_codec_data (id, hdr, hdr_size);
    if (!codec_data) {
      GST_ELEMENT_ERROR (self, STREAM, ENCODE, ("Encoder %s gave no "
              "parameter sets for stream-format=%s.", self->codec->name,
              self->stream_format), ("use stream-format=byte-stream"));
      gst_caps_unref (caps);
      return FALSE;
    }
  }
  if (!(caps = accepted_caps (self, caps))) {
    gst_clear_buffer (&codec_data);
    return FALSE;
  }
  if (self->out_caps && gst_caps_is_equal (caps, self->out_caps)
      && buffers_equal (codec_data, self->codec_data)) {
    gst_caps_unref (caps);
    gst_clear_buffer (&codec_data);
    return TRUE;
  }
  gst_caps_replace (&self->out_caps, caps);
  gst_buffer_replace (&self->codec_data, codec_data);
  st = gst_video_encoder_set_output_state (GST_VIDEO_ENCODER (self), caps,
      self->input_state);
  if (codec_data)
    st->codec_data = codec_data;
  gst_video_codec_state_unref (st);
  if (!gst_video_encoder_negotiate (GST_VIDEO_ENCODER (self))) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("downstream refused %" GST_PTR_FORMAT, self->out_caps));
    return FALSE;
  }
  return TRUE;
}

static void
free_av_buffer (gpointer data)
{
  AVBufferRef *ref = data;

  av_buffer_unref (&ref);
}

static GstBuffer *
packet_to_buffer (GstAvhwEnc * self, const AVPacket * pkt)
{
  AVBufferRef *ref;

  if (self->length_prefixed && gst_avhw_enc_is_annexb (pkt->data, pkt->size))
    return gst_avhw_enc_annexb_to_length_prefixed (pkt->data, pkt->size);
  if (!pkt->buf)
    return gst_buffer_new_memdup (pkt->data, pkt->size);
  ref = av_buffer_ref (pkt->buf);
  return gst_buffer_new_wrapped_full (GST_MEMORY_FLAG_READONLY, pkt->data,
      pkt->size, 0, pkt->size, ref, free_av_buffer);
}

static GstFlowReturn
push_packet (GstAvhwEnc * self, const AVPacket * pkt)
{
  GstVideoEncoder *enc = GST_VIDEO_ENCODER (self);
  GstVideoCodecFrame *cframe;
  GError *err = NULL;
  guint held;

  if (pkt->pts < 0 || pkt->pts > G_MAXUINT32
      || !(cframe = gst_video_encoder_get_frame (enc, (int) pkt->pts))) {
    GST_WARNING_OBJECT (self, "packet for unknown frame %" G_GINT64_FORMAT
        " dropped", (gint64) pkt->pts);
    return GST_FLOW_OK;
  }
  if (self->need_caps && (self->caps_refused
          || !ensure_output_caps (self, pkt))) {
    /* Not finished: with no output state the base class would post a
     * second error. It drops the frame when it stops. */
    gst_video_codec_frame_unref (cframe);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  self->need_caps = FALSE;
  held = self->last_sent - (guint32) pkt->pts;
  if (held > self->held_frames) {
    self->held_frames = held;
    gst_avhw_enc_update_latency (self, held);
  }
  if (!gst_avhw_enc_ts_next_dts (&self->ts, pkt->dts, cframe->pts,
          &cframe->dts, &err)) {
    GST_ELEMENT_ERROR (self, STREAM, ENCODE, ("Encoder %s: frame %u cannot "
            "get a decode timestamp: %s.", self->codec->name,
            cframe->system_frame_number, err->message), (NULL));
    g_clear_error (&err);
    gst_video_codec_frame_unref (cframe);
    return GST_FLOW_ERROR;
  }
  cframe->output_buffer = packet_to_buffer (self, pkt);
  if (pkt->flags & AV_PKT_FLAG_KEY)
    GST_VIDEO_CODEC_FRAME_SET_SYNC_POINT (cframe);
  else
    GST_VIDEO_CODEC_FRAME_UNSET_SYNC_POINT (cframe);
  GST_LOG_OBJECT (self, "frame %u: %d bytes%s, pts %" GST_TIME_FORMAT " dts %"
      GST_TIME_FORMAT, cframe->system_frame_number, pkt->size,
      (pkt->flags & AV_PKT_FLAG_KEY) ? " key" : "",
      GST_TIME_ARGS (cframe->pts), GST_TIME_ARGS (cframe->dts));
  return gst_video_encoder_finish_frame (enc, cframe);
}

/* Takes every packet the encoder has ready. */
GstFlowReturn
gst_avhw_enc_receive_packets (GstAvhwEnc * self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  char err[AV_ERROR_MAX_STRING_SIZE];
  int r;

  while (ret == GST_FLOW_OK) {
    r = avcodec_receive_packet (self->ctx, self->pkt);
    if (r == AVERROR (EAGAIN) || r == AVERROR_EOF)
      break;
    if (r < 0) {
      GST_ELEMENT_ERROR (self, STREAM, ENCODE, ("Encoder %s failed on "
              "device %s.", self->codec->name,
              gst_avhw_device_get_name (GST_AVHW_ENC_DEVICE (self))),
          ("avcodec_receive_packet: %s", av_make_error_string (err,
                  sizeof (err), r)));
      return GST_FLOW_ERROR;
    }
    ret = push_packet (self, self->pkt);
    av_packet_unref (self->pkt);
  }
  return ret;
}

/* Encodes what the encoder holds and closes it; the next frame opens the
 * same encoder again (FFmpeg encoders cannot restart after a drain). */
GstFlowReturn
gst_avhw_enc_drain (GstAvhwEnc * self)
{
  GstFlowReturn ret;

  if (!self->ctx)
    return GST_FLOW_OK;
  avcodec_send_frame (self->ctx, NULL);
  ret = gst_avhw_enc_receive_packets (self);
  gst_avhw_enc_close (self);
  return ret;
}

/* ---------------------------------------------------------------- input */

/* Downloads device frame @src (of any avhw device) into a new system
 * frame @dst of the input's size. */
static gboolean
download_frame (GstAvhwEnc * self, GstBuffer * buffer, const AVFrame * src,
    AVFrame * dst, GError ** error)
{
  const GstVideoInfo *info = &self->input_state->info;
  GstAvhwDevice *dev = gst_avhw_memory_get_device (gst_buffer_peek_memory
      (buffer, 0));

  dst->format = ((AVHWFramesContext *) src->hw_frames_ctx->data)->sw_format;
  dst->width = MIN (GST_VIDEO_INFO_WIDTH (info), src->width);
  dst->height = MIN (GST_VIDEO_INFO_HEIGHT (info), src->height);
  if (av_frame_get_buffer (dst, 0) < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "out of memory for a %dx%d frame", dst->width, dst->height);
    return FALSE;
  }
  return gst_avhw_backend_download (gst_avhw_device_get_backend (dev), dst,
      src, error);
}

static void
unref_gst_buffer (void *opaque, uint8_t * data)
{
  gst_buffer_unref (opaque);
}

/* @out becomes a reference to device frame @in of @buffer. A buffer pool
 * upstream (avhwupload's) reuses its buffers' surfaces once the buffer is
 * back, whatever FFmpeg still holds: the frame's opaque_ref, which every
 * copy FFmpeg makes of the frame shares, keeps @buffer out of its pool as
 * long as the encoder holds the frame (its lookahead, its B-frames). */
static gboolean
ref_device_frame (GstBuffer * buffer, const AVFrame * in, AVFrame * out)
{
  if (av_frame_ref (out, in) < 0)
    return FALSE;
  av_buffer_unref (&out->opaque_ref);
  out->opaque_ref = av_buffer_create ((uint8_t *) buffer, 0,
      unref_gst_buffer, gst_buffer_ref (buffer), 0);
  if (!out->opaque_ref) {
    gst_buffer_unref (buffer);
    av_frame_unref (out);
    return FALSE;
  }
  return TRUE;
}

/* Whether the input is GStreamer's own device memory for this device kind
 * (memory:CUDAMemory from cudaupload). */
static gboolean
foreign_input (GstAvhwEnc * self)
{
  const gchar *foreign = gst_avhw_backend_get_foreign_input_feature
      (gst_avhw_device_get_backend (GST_AVHW_ENC_DEVICE (self)));
  GstCapsFeatures *f;

  if (!foreign || !self->input_state || !self->input_state->caps)
    return FALSE;
  f = gst_caps_get_features (self->input_state->caps, 0);
  return f && gst_caps_features_contains (f, foreign);
}

/* Fills @out with the frame the encoder gets for @buffer:
 * - encoder on device frames: the device's own frame (zero copy), or the
 *   frame uploaded into a frames context from the device cache;
 * - encoder on system frames: the buffer's planes (no copy), or the device
 *   frame downloaded once. */
gboolean
gst_avhw_enc_prepare_frame (GstAvhwEnc * self, GstBuffer * buffer,
    AVFrame * out, GError ** error)
{
  const GstVideoInfo *info = &self->input_state->info;
  AVFrame *in = gst_avhw_buffer_peek_frame (buffer);
  AVFrame *sw;
  gboolean ok;

  if (!self->hw_frames) {
    if (in) {
      gst_avhw_element_note_device_copy (GST_ELEMENT (self),
          &self->noted_copy, buffer, GST_AVHW_ENC_DEVICE (self));
      return download_frame (self, buffer, in, out, error);
    }
    /* the buffer's planes, mapped as long as the encoder holds them */
    return gst_avhw_frame_wrap_buffer (out, buffer, info, GST_MAP_READ, error);
  }

  if (in && gst_avhw_enc_frame_is_ours (self, in))
    return ref_device_frame (buffer, in, out);
  gst_avhw_element_note_device_copy (GST_ELEMENT (self), &self->noted_copy,
      buffer, GST_AVHW_ENC_DEVICE (self));

  if (!self->upload_frames) {
    /* the encoder's own frames, or when it reads the incoming ones (which
     * this frame is not), frames like them from the cache */
    if (!self->zero_copy)
      self->upload_frames = av_buffer_ref (self->ctx->hw_frames_ctx);
    else
      self->upload_frames = gst_avhw_device_get_frames_ctx
          (GST_AVHW_ENC_DEVICE (self),
          gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (info)),
          GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), 0, error);
    if (!self->upload_frames)
      return FALSE;
  }
  if (!in && foreign_input (self)) {
    /* GStreamer's own device memory: taken as it is where the backend can,
     * else one copy on the device */
    GError *werr = NULL;
    AVFrame *wrapped = gst_avhw_backend_wrap_foreign_buffer
        (gst_avhw_device_get_backend (GST_AVHW_ENC_DEVICE (self)),
        GST_AVHW_ENC_DEVICE (self), buffer, info, self->upload_frames, &werr);

    if (wrapped) {
      av_frame_move_ref (out, wrapped);
      av_frame_free (&wrapped);
      return TRUE;
    }
    if (werr) {
      g_propagate_error (error, werr);
      return FALSE;
    }
    if (gst_avhw_backend_frames_get_buffer (gst_avhw_device_get_backend
            (GST_AVHW_ENC_DEVICE (self)), self->upload_frames, out) < 0) {
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
          "no free frame in the upload pool");
      return FALSE;
    }
    return gst_avhw_backend_import_foreign_buffer (gst_avhw_device_get_backend
        (GST_AVHW_ENC_DEVICE (self)), GST_AVHW_ENC_DEVICE (self), buffer,
        info, out, error);
  }
  sw = av_frame_alloc ();
  ok = in ? download_frame (self, buffer, in, sw, error) :
      gst_avhw_frame_wrap_buffer (sw, buffer, info, GST_MAP_READ, error);
  if (ok && gst_avhw_backend_frames_get_buffer (gst_avhw_device_get_backend
          (GST_AVHW_ENC_DEVICE (self)), self->upload_frames, out) < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "no free frame in the upload pool");
    ok = FALSE;
  }
  if (ok)
    ok = gst_avhw_backend_upload (gst_avhw_device_get_backend
        (GST_AVHW_ENC_DEVICE (self)), out, sw, error);
  av_frame_free (&sw);
  return ok;
}
