/* gst-avhw: avhwenc, choosing and opening an FFmpeg encoder
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The codec is the first of H.264, H.265 and AV1 that downstream accepts;
 * the encoder the forced one, else the backend's candidates for each
 * accepted codec, else the fallbacks. Each is opened for the input as it
 * is: device frames of the element's device go to an encoder that takes
 * such frames as they are (their frames context becomes the encoder's),
 * other input to one that takes only device frames is uploaded into a
 * frames context from the device cache.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/pixdesc.h>
#include <gst/avhw/gstavhwlog-private.h>
#include "gstavhwencprivate.h"

#define GST_CAT_DEFAULT gst_avhw_enc_debug

typedef enum
{
  OPEN_OK,
  OPEN_FAILED,                  /* try the next candidate */
} OpenResult;

GstCaps *
gst_avhw_enc_codec_src_caps (enum AVCodecID id)
{
  switch (id) {
    case AV_CODEC_ID_H264:
      return gst_caps_from_string ("video/x-h264, stream-format = (string) "
          "{ avc, byte-stream }, alignment = (string) au");
    case AV_CODEC_ID_HEVC:
      return gst_caps_from_string ("video/x-h265, stream-format = (string) "
          "{ hvc1, hev1, byte-stream }, alignment = (string) au");
    case AV_CODEC_ID_AV1:
      return gst_caps_from_string ("video/x-av1, stream-format = (string) "
          "obu-stream, alignment = (string) tu");
    default:
      g_assert_not_reached ();
      return NULL;
  }
}

static const gchar *
codec_nick (enum AVCodecID id)
{
  return gst_avhw_codec_get_nick (id);
}

/* Whether @fallback is "true": a software encoder of FFmpeg's own choice
 * (the default, as avhwdec's fallback=true), rather than none ("false",
 * empty) or a list of names. */
static gboolean
fallback_is_auto (const gchar * fallback)
{
  return fallback && (g_ascii_strcasecmp (fallback, "true") == 0
      || g_ascii_strcasecmp (fallback, "auto") == 0);
}

/* "false", "none" or empty: no software encoder */
static gboolean
fallback_is_off (const gchar * fallback)
{
  return !fallback || !*fallback || g_ascii_strcasecmp (fallback, "false") == 0
      || g_ascii_strcasecmp (fallback, "none") == 0;
}

/* The software encoders fallback names: "true" gives FFmpeg's first
 * software encoder of each codec of @ids (gst_avhw_enc_find_software();
 * @ids NULL: none), except where encoder= forces one (a forced encoder
 * that does not open is an error, unless fallback names others), "false"
 * none, else the names it lists. */
gchar **
gst_avhw_enc_fallback_names (GstAvhwEnc * self, GArray * ids)
{
  GPtrArray *names = g_ptr_array_new ();
  gchar *fallback;
  gboolean forced;
  guint i;

  GST_OBJECT_LOCK (self);
  fallback = g_strdup (self->fallback);
  forced = self->encoder_name && *self->encoder_name;
  GST_OBJECT_UNLOCK (self);
  if (fallback_is_auto (fallback)) {
    for (i = 0; ids && !forced && i < ids->len; i++) {
      const AVCodec *sw = gst_avhw_enc_find_software (g_array_index (ids,
              enum AVCodecID, i));

      if (sw)
        g_ptr_array_add (names, g_strdup (sw->name));
    }
  } else if (!fallback_is_off (fallback)) {
    gchar **split = g_strsplit_set (fallback, ", ", -1), **f;

    for (f = split; *f; f++)
      if (**f)
        g_ptr_array_add (names, g_strdup (*f));
    g_strfreev (split);
  }
  g_free (fallback);
  g_ptr_array_add (names, NULL);
  return (gchar **) g_ptr_array_free (names, FALSE);
}

gboolean
gst_avhw_enc_codec_accepted (GArray * ids, enum AVCodecID id)
{
  guint i;

  for (i = 0; i < ids->len; i++)
    if (g_array_index (ids, enum AVCodecID, i) == id)
      return TRUE;
  return FALSE;
}

/* The encoders this element may use on @device for the codecs @ids: the
 * forced one, or the backend's candidates, then the fallbacks. */
GPtrArray *
gst_avhw_enc_usable_encoders (GstAvhwEnc * self, GstAvhwDevice * device,
    GArray * ids)
{
  GstAvhwBackend *backend = gst_avhw_device_get_backend (device);
  GPtrArray *encs = g_ptr_array_new ();
  gchar **fallbacks = gst_avhw_enc_fallback_names (self, ids), **f;
  const AVCodec *c;
  gchar *forced;
  guint i;

  GST_OBJECT_LOCK (self);
  forced = g_strdup (self->encoder_name);
  GST_OBJECT_UNLOCK (self);
  if (forced) {
    if ((c = avcodec_find_encoder_by_name (forced))
        && gst_avhw_enc_codec_accepted (ids, c->id))
      g_ptr_array_add (encs, (gpointer) c);
  } else {
    for (i = 0; i < ids->len; i++) {
      GPtrArray *cands = gst_avhw_backend_get_encoders (backend,
          g_array_index (ids, enum AVCodecID, i));
      g_ptr_array_extend_and_steal (encs, cands);
    }
  }
  for (f = fallbacks; *f; f++)
    if (**f && (c = avcodec_find_encoder_by_name (*f))
        && gst_avhw_enc_codec_accepted (ids, c->id))
      g_ptr_array_add (encs, (gpointer) c);
  g_strfreev (fallbacks);
  g_free (forced);
  return encs;
}

/* The codecs downstream accepts, in preference order. */
GArray *
gst_avhw_enc_accepted_codecs (GstAvhwEnc * self)
{
  GstPad *src = GST_VIDEO_ENCODER_SRC_PAD (self);
  GstCaps *tmpl = gst_pad_get_pad_template_caps (src);
  GstCaps *peer = gst_pad_peer_query_caps (src, tmpl);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (enum AVCodecID));
  guint i;

  for (i = 0; i < G_N_ELEMENTS (gst_avhw_enc_codec_ids); i++) {
    GstCaps *c = gst_avhw_enc_codec_src_caps (gst_avhw_enc_codec_ids[i]);
    if (gst_caps_can_intersect (c, peer) && gst_caps_can_intersect (c, tmpl))
      g_array_append_val (ids, gst_avhw_enc_codec_ids[i]);
    gst_caps_unref (c);
  }
  GST_DEBUG_OBJECT (self, "downstream accepts %" GST_PTR_FORMAT, peer);
  gst_caps_unref (peer);
  gst_caps_unref (tmpl);
  return ids;
}

/* Fixes the stream format (and a profile downstream insists on) for
 * @codec_id from downstream's caps. */
static void
choose_stream_format (GstAvhwEnc * self, enum AVCodecID codec_id)
{
  GstPad *src = GST_VIDEO_ENCODER_SRC_PAD (self);
  GstCaps *mine = gst_avhw_enc_codec_src_caps (codec_id);
  GstCaps *peer = gst_pad_peer_query_caps (src, mine);
  GstStructure *s;
  const gchar *fmt = NULL, *profile;

  g_clear_pointer (&self->downstream_profile, g_free);
  peer = gst_caps_truncate (gst_caps_make_writable (peer));
  if (!gst_caps_is_empty (peer)) {
    /* a profile only when downstream takes just one */
    profile = gst_structure_get_string (gst_caps_get_structure (peer, 0),
        "profile");
    if (profile)
      self->downstream_profile = g_strdup (profile);
    peer = gst_caps_fixate (peer);
    s = gst_caps_get_structure (peer, 0);
    fmt = gst_structure_get_string (s, "stream-format");
  }
  if (codec_id == AV_CODEC_ID_AV1)
    self->stream_format = "obu-stream";
  else if (g_strcmp0 (fmt, "byte-stream") == 0)
    self->stream_format = "byte-stream";
  else if (codec_id == AV_CODEC_ID_H264)
    self->stream_format = "avc";
  else
    self->stream_format = g_strcmp0 (fmt, "hev1") == 0 ? "hev1" : "hvc1";
  self->length_prefixed = codec_id != AV_CODEC_ID_AV1
      && !g_str_equal (self->stream_format, "byte-stream");
  GST_INFO_OBJECT (self, "%s stream-format=%s profile=%s",
      codec_nick (codec_id), self->stream_format,
      GST_STR_NULL (self->downstream_profile));
  gst_caps_unref (peer);
  gst_caps_unref (mine);
}

void
gst_avhw_enc_close (GstAvhwEnc * self)
{
  avcodec_free_context (&self->ctx);
  av_buffer_unref (&self->upload_frames);
  gst_avhw_enc_settings_clear (&self->opened);
}

gboolean
gst_avhw_enc_frame_is_ours (GstAvhwEnc * self, const AVFrame * frame)
{
  AVBufferRef *ours =
      gst_avhw_device_get_device_ctx (GST_AVHW_ENC_DEVICE (self));

  return frame && frame->hw_frames_ctx
      && ((AVHWFramesContext *) frame->hw_frames_ctx->data)->device_ref->data
      == ours->data;
}

static gboolean
drives_device_type (const AVCodec * codec, enum AVHWDeviceType type)
{
  const AVCodecHWConfig *cfg;
  gint i;

  if (!avcodec_get_hw_config (codec, 0))
    return TRUE;                /* a wrapper that does not say */
  for (i = 0; (cfg = avcodec_get_hw_config (codec, i)); i++)
    if (cfg->device_type == type)
      return TRUE;
  return FALSE;
}

static gboolean
lists_format (const AVCodec * codec, enum AVPixelFormat fmt)
{
  return gst_avhw_enc_codec_pix_fmts (codec)
      && gst_avhw_enc_codec_takes (codec, fmt);
}

static void
copy_settings (GstAvhwEnc * self, GstAvhwEncSettings * s)
{
  GST_OBJECT_LOCK (self);
  *s = self->props;
  s->preset = g_strdup (self->props.preset);
  s->tune = g_strdup (self->props.tune);
  s->options = g_strdup (self->props.options);
  self->bitrate_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  s->profile = g_strdup (self->downstream_profile);
}

static void
set_color (AVCodecContext * ctx, const GstVideoInfo * info)
{
  const GstVideoColorimetry *c = &info->colorimetry;

  if (c->range == GST_VIDEO_COLOR_RANGE_0_255)
    ctx->color_range = AVCOL_RANGE_JPEG;
  else if (c->range == GST_VIDEO_COLOR_RANGE_16_235)
    ctx->color_range = AVCOL_RANGE_MPEG;
  if (GST_VIDEO_INFO_IS_YUV (info)
      && c->matrix != GST_VIDEO_COLOR_MATRIX_UNKNOWN)
    ctx->colorspace = gst_video_color_matrix_to_iso (c->matrix);
  if (c->primaries != GST_VIDEO_COLOR_PRIMARIES_UNKNOWN)
    ctx->color_primaries = gst_video_color_primaries_to_iso (c->primaries);
  if (c->transfer != GST_VIDEO_TRANSFER_UNKNOWN)
    ctx->color_trc = gst_video_transfer_function_to_iso (c->transfer);
}

static void
append_reason (GString * why, const gchar * name, const gchar * reason)
{
  g_string_append_printf (why, "%s%s: %s", why->len ? "; " : "", name, reason);
}

/* How frames reach @codec (a hardware one) from input whose first frame
 * is @in: @frames gets the frames context the encoder takes, %NULL for
 * system frames. Returns %NULL, or why the encoder cannot take the input. */
static gchar *
choose_frames (GstAvhwEnc * self, const AVCodec * codec, const AVFrame * in,
    AVBufferRef ** frames)
{
  GstAvhwDevice *device = GST_AVHW_ENC_DEVICE (self);
  GstAvhwBackend *backend = gst_avhw_device_get_backend (device);
  enum AVPixelFormat hw_fmt = gst_avhw_backend_get_hw_pix_fmt (backend);
  const GstVideoInfo *info = &self->input_state->info;
  enum AVPixelFormat sw_fmt =
      gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (info));
  GError *err = NULL;
  gchar *why;

  *frames = NULL;
  self->zero_copy = FALSE;
  if (gst_avhw_enc_frame_is_ours (self, in) && lists_format (codec, hw_fmt)) {
    /* zero copy: the encoder reads the incoming frames */
    *frames = av_buffer_ref (in->hw_frames_ctx);
    self->zero_copy = TRUE;
    return NULL;
  }
  if (lists_format (codec, sw_fmt))
    return NULL;
  if (!lists_format (codec, hw_fmt))
    return g_strdup_printf ("it takes neither %s nor %s frames",
        av_get_pix_fmt_name (sw_fmt), av_get_pix_fmt_name (hw_fmt));
  /* frames to upload into */
  *frames = gst_avhw_device_get_frames_ctx (device, sw_fmt,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), 0, &err);
  if (*frames)
    return NULL;
  why = g_strdup (err->message);
  g_clear_error (&err);
  return why;
}

static AVCodecContext *
alloc_context (GstAvhwEnc * self, const AVCodec * codec)
{
  const GstVideoInfo *info = &self->input_state->info;
  AVCodecContext *ctx = avcodec_alloc_context3 (codec);

  if (!ctx)
    return NULL;
  ctx->width = GST_VIDEO_INFO_WIDTH (info);
  ctx->height = GST_VIDEO_INFO_HEIGHT (info);
  if (GST_VIDEO_INFO_FPS_N (info) > 0 && GST_VIDEO_INFO_FPS_D (info) > 0) {
    ctx->time_base = av_make_q (GST_VIDEO_INFO_FPS_D (info),
        GST_VIDEO_INFO_FPS_N (info));
    ctx->framerate = av_make_q (GST_VIDEO_INFO_FPS_N (info),
        GST_VIDEO_INFO_FPS_D (info));
  } else {
    /* Variable rate: frame numbers at a nominal 30 fps for rate control. */
    ctx->time_base = av_make_q (1, 30);
  }
  ctx->sample_aspect_ratio = av_make_q (GST_VIDEO_INFO_PAR_N (info),
      GST_VIDEO_INFO_PAR_D (info));
  set_color (ctx, info);
  ctx->pix_fmt = gst_avhw_format_to_av (GST_VIDEO_INFO_FORMAT (info));
  if (self->length_prefixed)
    ctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  return ctx;
}

/* Opens @codec for the current input, whose first frame is @first.
 * Every refusal goes to @why; those of the element's settings (a missing
 * option, a refused value) to @settings too. */
static OpenResult
try_open (GstAvhwEnc * self, const AVCodec * codec, GstBuffer * first,
    GString * why, GString * settings)
{
  GstAvhwDevice *device = GST_AVHW_ENC_DEVICE (self);
  GstAvhwBackend *backend = gst_avhw_device_get_backend (device);
  AVFrame *in = first ? gst_avhw_buffer_peek_frame (first) : NULL;
  gboolean hw = gst_avhw_enc_codec_is_hardware (codec);
  AVBufferRef *frames = NULL;
  AVCodecContext *ctx = NULL;
  GError *err = NULL;
  gchar *said, *reason = NULL;
  char errbuf[AV_ERROR_MAX_STRING_SIZE];
  int r;

  self->hw_frames = self->zero_copy = FALSE;
  if (hw && !drives_device_type (codec,
          gst_avhw_backend_get_hw_device_type (backend))) {
    reason = g_strdup_printf ("it drives %s devices, not %s",
        av_hwdevice_get_type_name (avcodec_get_hw_config (codec,
                0)->device_type), gst_avhw_device_get_name (device));
    goto fail;
  }
  if (!(ctx = alloc_context (self, codec))) {
    reason = g_strdup ("out of memory");
    goto fail;
  }
  if (hw) {
    ctx->thread_count = 1;
    ctx->hw_device_ctx = av_buffer_ref (gst_avhw_device_get_device_ctx
        (device));
    if ((reason = choose_frames (self, codec, in, &frames)))
      goto fail;
    if (frames) {
      ctx->sw_pix_fmt = ctx->pix_fmt;
      ctx->pix_fmt = gst_avhw_backend_get_hw_pix_fmt (backend);
      ctx->hw_frames_ctx = frames;
      self->hw_frames = TRUE;
    }
  } else if (!gst_avhw_enc_codec_takes (codec, ctx->pix_fmt)) {
    reason = g_strdup_printf ("it does not take %s frames",
        av_get_pix_fmt_name (ctx->pix_fmt));
    goto fail;
  }

  gst_avhw_enc_settings_clear (&self->opened);
  copy_settings (self, &self->opened);
  if (!gst_avhw_enc_apply_settings (ctx, &self->opened, &err)) {
    reason = g_strdup (err->message);
    append_reason (settings, codec->name, err->message);
    g_clear_error (&err);
    goto fail;
  }

  /* FFmpeg says why it does not open in its log (nvenc: "OpenEncode-
   * SessionEx failed: unsupported device (2)"); avcodec_open2() returns an
   * errno only. Its errors are captured, whatever the debug thresholds, to
   * be quoted in the element's message, and not logged again here: the
   * avhw-ffmpeg category has them once. */
  _gst_avhw_log_capture_begin ();
  r = avcodec_open2 (ctx, codec, NULL);
  said = _gst_avhw_log_capture_end ();
  if (r < 0) {
    av_make_error_string (errbuf, sizeof (errbuf), r);
    reason = said ? g_strdup_printf ("%s (%s)", said, errbuf) :
        g_strdup (errbuf);
    append_reason (why, codec->name, reason);
    GST_INFO_OBJECT (self, "%s did not open (%s)%s", codec->name, errbuf,
        said ? "; FFmpeg's error in avhw-ffmpeg" : "");
    g_free (said);
    g_free (reason);
    avcodec_free_context (&ctx);
    return OPEN_FAILED;
  }
  g_free (said);

  self->ctx = ctx;
  self->codec = codec;
  gst_avhw_enc_set_active (self, codec);
  self->need_caps = TRUE;
  self->caps_refused = FALSE;
  GST_INFO_OBJECT (self, "opened %s on %s: %dx%d %s, %s%s", codec->name,
      gst_avhw_device_get_name (device), ctx->width, ctx->height,
      av_get_pix_fmt_name (self->hw_frames ? ctx->sw_pix_fmt : ctx->pix_fmt),
      self->zero_copy ? "device frames as they come (zero copy)" :
      self->hw_frames ? "uploaded into device frames" : "system frames",
      in && !self->zero_copy ? ", device frames downloaded" : "");
  return OPEN_OK;

fail:
  append_reason (why, codec->name, reason);
  GST_INFO_OBJECT (self, "%s: %s", codec->name, reason);
  g_free (reason);
  avcodec_free_context (&ctx);
  return OPEN_FAILED;
}

static void
post_no_encoder (GstAvhwEnc * self, GArray * ids, const gchar * why,
    const gchar * settings)
{
  const gchar *devname = gst_avhw_device_get_name (GST_AVHW_ENC_DEVICE (self));
  GString *codecs = g_string_new (NULL);
  const AVCodec *sw = gst_avhw_enc_find_software (g_array_index (ids,
          enum AVCodecID, 0));
  gchar *fallback;
  guint i;

  if (settings && *settings) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("Encoder settings refused "
            "(%s).", settings), ("device %s; tried %s", devname, why));
    g_string_free (codecs, TRUE);
    return;
  }
  for (i = 0; i < ids->len; i++)
    g_string_append_printf (codecs, "%s%s", i ? "/" : "",
        codec_nick (g_array_index (ids, enum AVCodecID, i)));
  GST_OBJECT_LOCK (self);
  fallback = g_strdup (self->fallback);
  GST_OBJECT_UNLOCK (self);
  if (fallback_is_off (fallback)) {
    GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
        ("No hardware %s encoder for device %s (%s)%s%s%s.", codecs->str,
            devname, why, sw ? "; set fallback=true (or fallback=" : "",
            sw ? sw->name : "", sw ? ") to encode in software" : ""), (NULL));
  } else if (fallback_is_auto (fallback) && !sw) {
    GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
        ("No %s encoder opened on device %s, and this FFmpeg has no software "
            "%s encoder to fall back on (%s).", codecs->str, devname,
            codecs->str, why), (NULL));
  } else {
    GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
        ("No %s encoder opened on device %s, fallback=%s neither (%s).",
            codecs->str, devname, fallback, why), (NULL));
  }
  g_free (fallback);
  g_string_free (codecs, TRUE);
}

/* Chooses and opens an encoder for the current input; @first is the
 * frame that will be encoded first. */
gboolean
gst_avhw_enc_open (GstAvhwEnc * self, GstBuffer * first)
{
  GstAvhwBackend *backend =
      gst_avhw_device_get_backend (GST_AVHW_ENC_DEVICE (self));
  const gchar *devname = gst_avhw_device_get_name (GST_AVHW_ENC_DEVICE (self));
  GString *why = g_string_new (NULL);
  GString *settings = g_string_new (NULL);
  OpenResult res = OPEN_FAILED;
  GArray *ids;
  gchar **fallbacks, **f, *forced;
  guint i, j;

  if (self->codec) {
    /* Reopening (after a drain, a flush or a bitrate change) */
    res = try_open (self, self->codec, first, why, settings);
    if (res == OPEN_FAILED)
      GST_ELEMENT_ERROR (self, LIBRARY, INIT,
          ("Could not reopen encoder %s on device %s: %s",
              self->codec->name, devname, why->str), (NULL));
    g_string_free (settings, TRUE);
    g_string_free (why, TRUE);
    return res == OPEN_OK;
  }

  ids = gst_avhw_enc_accepted_codecs (self);
  if (ids->len == 0) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Downstream accepts none of "
            "the codecs avhwenc makes (H.264, H.265, AV1)."), (NULL));
    g_array_unref (ids);
    g_string_free (settings, TRUE);
    g_string_free (why, TRUE);
    return FALSE;
  }
  GST_OBJECT_LOCK (self);
  forced = g_strdup (self->encoder_name);
  GST_OBJECT_UNLOCK (self);

  if (forced) {
    const AVCodec *c = avcodec_find_encoder_by_name (forced);

    if (!c) {
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS, ("encoder=%s: FFmpeg has no "
              "such encoder.", forced), (NULL));
      goto done;
    }
    if (!gst_avhw_enc_codec_accepted (ids, c->id)) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("encoder=%s makes %s, "
              "which downstream does not accept.", forced,
              codec_nick (c->id)), (NULL));
      goto done;
    }
    choose_stream_format (self, c->id);
    res = try_open (self, c, first, why, settings);
  } else {
    for (i = 0; i < ids->len && res == OPEN_FAILED; i++) {
      enum AVCodecID id = g_array_index (ids, enum AVCodecID, i);
      GPtrArray *cands = gst_avhw_backend_get_encoders (backend, id);

      if (cands->len == 0) {
        g_string_append_printf (why, "%sno FFmpeg encoder drives %s devices "
            "for %s", why->len ? "; " : "", gst_avhw_backend_get_name
            (backend), codec_nick (id));
      } else {
        choose_stream_format (self, id);
      }
      for (j = 0; j < cands->len && res == OPEN_FAILED; j++)
        res = try_open (self, g_ptr_array_index (cands, j), first, why,
            settings);
      g_ptr_array_unref (cands);
    }
  }

  fallbacks = gst_avhw_enc_fallback_names (self, ids);
  for (f = fallbacks; *f && res == OPEN_FAILED; f++) {
    const AVCodec *c = **f ? avcodec_find_encoder_by_name (*f) : NULL;

    if (!c || !gst_avhw_enc_codec_accepted (ids, c->id))
      continue;
    choose_stream_format (self, c->id);
    res = try_open (self, c, first, why, settings);
    if (res == OPEN_OK) {
      if (!self->warned_fallback)
        GST_ELEMENT_WARNING (self, STREAM, ENCODE,
            ("No hardware %s encoder opened on device %s; encoding in "
                "software with %s%s.", codec_nick (c->id), devname, c->name,
                gst_avhw_buffer_peek_frame (first) ?
                " (device frames are downloaded)" : ""), ("%s", why->str));
      self->warned_fallback = TRUE;
    }
  }
  g_strfreev (fallbacks);

  if (res == OPEN_FAILED) {
    if (forced && settings->len == 0)
      GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
          ("Encoder %s could not open on device %s (%s).", forced, devname,
              why->str), (NULL));
    else
      post_no_encoder (self, ids, why->str, settings->str);
  }

done:
  g_string_free (settings, TRUE);
  g_free (forced);
  g_array_unref (ids);
  g_string_free (why, TRUE);
  return res == OPEN_OK;
}
