/* gst-avhw: avhwdec
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-avhwdec
 * @title: avhwdec
 *
 * Decodes H.264, H.265, AV1, VP9, VP8, MPEG-2, MPEG-4 part 2 and MJPEG
 * through FFmpeg on an avhw device: an FFmpeg hwaccel on the native decoder
 * or a backend's wrapper decoder (`h264_cuvid`, `h264_<vendor>dec`), in the
 * order the backend gives. Decoded frames stay on the device
 * (`memory:AVHW<Backend>`, no copy) when downstream takes device memory, and
 * are downloaded once into system memory otherwise.
 *
 * When the device has no hardware decoder for the stream (no decoder in
 * FFmpeg for it, or the hardware refuses the profile), `fallback=true`
 * decodes in software with a warning and uploads when device memory is
 * negotiated; `fallback=false` makes that an error naming the device.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! avhwdec ! avhwdownload ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=in.h265 ! h265parse ! avhwdec device=cuda:0 ! fakesink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <libavutil/pixdesc.h>
#include "gstavhwdec-private.h"
#include "gstavhwcapsutils.h"
#include "gstavhwdecjoin.h"
#include "gstavhwdecfail.h"
#include "gstavhwdech264.h"
#include "gstavhwdecreplay.h"
#include "gstavhwelementutils.h"
#include "gstavhwvideoutils.h"

GST_DEBUG_CATEGORY (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

enum
{
  PROP_DECODER = GST_AVHW_ELEMENT_PROP_LAST,
  PROP_EXTRA_FRAMES,
  PROP_FALLBACK,
  PROP_THREADS,
  PROP_PARALLEL,
  PROP_MAX_BUFFERED,
  PROP_ACTIVE_DECODER,
  PROP_HARDWARE,
};

#define DEFAULT_PROP_DECODER NULL
#define DEFAULT_PROP_EXTRA_FRAMES 0
#define DEFAULT_PROP_FALLBACK TRUE
#define DEFAULT_PROP_THREADS 0
#define DEFAULT_PROP_PARALLEL 1
#define DEFAULT_PROP_MAX_BUFFERED 256
/* threads=0 with a hardware decoder alone on its device and upstream not
 * live: two frame threads overlap parsing the next frame with waiting for
 * the device on this one (H.265 on NVDEC: +14% fps, docs/performance.md);
 * each thread adds a surface and a frame of latency. */
#define HW_AUTO_THREADS 2
/* Frames FFmpeg never returns (dropped as corrupt) are released once this
 * many later frames have come out. */
#define MAX_PENDING_AGE 64

G_DEFINE_TYPE (GstAvhwDec, gst_avhw_dec, GST_TYPE_VIDEO_DECODER);
GST_ELEMENT_REGISTER_DEFINE (avhwdec, "avhwdec", GST_RANK_NONE,
    GST_TYPE_AVHW_DEC);



/* ---------------------------------------------------------------- open */

/* The active-decoder and hardware properties: @codec decodes the stream,
 * on the device when @hw. They keep the last stream's once it stops. */
static void
set_active (GstAvhwDec * self, const AVCodec * codec, gboolean hw)
{
  gst_avhw_element_set_active (GST_ELEMENT (self), &self->active_decoder,
      &self->active_hw, codec->name, hw, "active-decoder");
}

static enum AVPixelFormat
get_format (AVCodecContext * ctx, const enum AVPixelFormat *fmts)
{
  GstAvhwDec *self = ctx->opaque;
  const enum AVPixelFormat *p;

  for (p = fmts; *p != AV_PIX_FMT_NONE; p++) {
    if (*p == self->hw_pix_fmt) {
      self->hw = TRUE;
      set_active (self, ctx->codec, TRUE);
      return *p;
    }
  }
  /* The hardware cannot take this stream (profile, bit depth, chroma). */
  self->hw = FALSE;
  set_active (self, ctx->codec, FALSE);
  if (!self->fallback) {
    GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
        ("Device %s cannot decode this %s stream (%s, profile %d) in hardware "
            "and fallback is off.", gst_avhw_device_get_name (DEVICE (self)),
            avcodec_get_name (ctx->codec_id),
            av_get_pix_fmt_name (avcodec_default_get_format (ctx, fmts)),
            ctx->profile), ("set fallback=true to decode in software"));
    return AV_PIX_FMT_NONE;
  }
  if (!self->warned_software) {
    GST_ELEMENT_WARNING (self, STREAM, CODEC_NOT_FOUND,
        ("Device %s cannot decode this %s stream in hardware; decoding in "
            "software.", gst_avhw_device_get_name (DEVICE (self)),
            avcodec_get_name (ctx->codec_id)), ("decoder %s offered %s",
            ctx->codec->name,
            av_get_pix_fmt_name (avcodec_default_get_format (ctx, fmts))));
    self->warned_software = TRUE;
  }
  return avcodec_default_get_format (ctx, fmts);
}

/* Hardware decoders open in this process, per device name, for
 * threads=0: frame threads pay only for a decoder alone on its device (on
 * the H200, +14% H.265 fps for one stream, nothing with several, where the
 * engines are the limit) and cost surfaces. */
static GMutex hw_users_lock;
static GHashTable *hw_users;

/* Adds @delta to @name's count; returns the count before. */
static guint
hw_users_change (const gchar * name, gint delta)
{
  guint before;

  g_mutex_lock (&hw_users_lock);
  if (!hw_users)
    hw_users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  before = GPOINTER_TO_UINT (g_hash_table_lookup (hw_users, name));
  g_hash_table_insert (hw_users, g_strdup (name),
      GUINT_TO_POINTER ((guint) ((gint) before + delta)));
  g_mutex_unlock (&hw_users_lock);
  return before;
}

static void
hw_uncount (GstAvhwDec * self)
{
  if (self->counted)
    hw_users_change (self->counted, -1);
  g_clear_pointer (&self->counted, g_free);
}

static void
close_codec (GstAvhwDec * self)
{
  gboolean keep = self->ctx_key && !self->damaged && !self->ctx_failed;

  /* its sessions are flushed: no join frames left in ctx */
  if (self->par)
    self->joined = FALSE;
  g_clear_pointer (&self->par, gst_avhw_dec_parallel_free);
  self->par_decided = FALSE;
  hw_uncount (self);
  if (self->ctx_failed)
    gst_avhw_dec_fail_abandon (&self->ctx);
  self->ctx_failed = FALSE;
  self->failed_call = NULL;
  /* The device's decoder cache keeps it for the next stream, or frees it
   * (gstavhwcodeccache.c); kept with none of this stream's frames in it.
   * A joined one may still hold join frames, which the next avhwdec
   * drops. */
  if (self->ctx && keep && !self->joined)
    avcodec_flush_buffers (self->ctx);
  if (self->ctx && DEVICE (self))
    gst_avhw_device_give_decoder (DEVICE (self), keep ? self->ctx_key : NULL,
        self->ctx);
  else
    avcodec_free_context (&self->ctx);
  self->ctx = NULL;
  g_clear_pointer (&self->ctx_key, g_free);
  self->damaged = FALSE;
  self->codec = NULL;
  self->join = self->joined = FALSE;
  av_packet_free (&self->join_idr);
  gst_avhw_dec_replay_clear (&self->replay);
  self->fields = FALSE;
  g_clear_pointer (&self->fields_why, g_free);
  av_buffer_unref (&self->upload_frames);
  av_buffer_unref (&self->copy_frames);
}

static gboolean
set_extradata (AVCodecContext * ctx, GstVideoCodecState * state)
{
  GstMapInfo map;

  if (!state->codec_data)
    return TRUE;
  if (!gst_buffer_map (state->codec_data, &map, GST_MAP_READ))
    return FALSE;
  ctx->extradata = av_mallocz (map.size + AV_INPUT_BUFFER_PADDING_SIZE);
  if (ctx->extradata) {
    memcpy (ctx->extradata, map.data, map.size);
    ctx->extradata_size = map.size;
  }
  gst_buffer_unmap (state->codec_data, &map);
  return ctx->extradata != NULL;
}

/* TRUE when upstream says it is live (as gst-libav's avdec asks, to keep
 * frame threads' latency out of live pipelines). */
gboolean
gst_avhw_dec_upstream_is_live (GstAvhwDec * self)
{
  GstQuery *q = gst_query_new_latency ();
  gboolean live = FALSE;

  if (gst_pad_peer_query (GST_VIDEO_DECODER_SINK_PAD (self), q))
    gst_query_parse_latency (q, &live, NULL, NULL);
  gst_query_unref (q);
  return live;
}

/* What every decoder session of the element shares. */
static void
configure (GstAvhwDec * self, AVCodecContext * ctx, const AVCodec * codec,
    gboolean hw)
{
  ctx->opaque = self;
  ctx->pkt_timebase = (AVRational) {
  1, GST_SECOND};
  /* H.264 without VUI reorder info: size the reorder buffer from the level
   * (as a demuxer's probing would) instead of guessing low and dropping
   * late B-frames ("no picture ooo"). Costs latency on such streams only.
   * A hardware decoder with fewer picture slots than that takes a depth
   * its SPS decided (gstavhwdech264.c). */
  if (codec->id == AV_CODEC_ID_H264 && hw && self->h264_reorder >= 0) {
    ctx->strict_std_compliance = FF_COMPLIANCE_NORMAL;
    ctx->has_b_frames = self->h264_reorder;
  } else if (codec->id == AV_CODEC_ID_H264) {
    ctx->strict_std_compliance = FF_COMPLIANCE_STRICT;
  }
  ctx->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
  if (hw) {
    ctx->hw_device_ctx =
        av_buffer_ref (gst_avhw_device_get_device_ctx (DEVICE (self)));
    ctx->get_format = get_format;
    ctx->extra_hw_frames = self->extra_frames;
  }
}

/* @wanted frame threads for the hardware decoder of @codec on the
 * element's device, within the most its backend says it decodes right
 * with (gst_avhw_backend_get_decode_frame_threads()): a wrong picture is
 * worse than a slower one, so this holds against the threads property
 * too. */
static gint
hw_frame_threads (GstAvhwDec * self, const AVCodec * codec, gint wanted)
{
  GstAvhwDevice *device = DEVICE (self);
  gchar *why = NULL;
  guint most =
      gst_avhw_backend_get_decode_frame_threads (gst_avhw_device_get_backend
      (device), gst_avhw_device_get_index (device), codec->id, &why);

  if (most && (wanted <= 0 || (guint) wanted > most)) {
    if (self->threads > (gint) most)
      GST_WARNING_OBJECT (self, "threads=%d: %u frame thread(s) on %s: %s",
          self->threads, most, gst_avhw_device_get_name (device), why);
    else
      GST_DEBUG_OBJECT (self, "%u frame thread(s): %s", most, why);
    wanted = (gint) most;
  }
  g_free (why);
  return wanted;
}

/* One more decoder like the open one, with @threads frame threads, for a
 * parallel session; NULL when it does not open. */
AVCodecContext *
gst_avhw_dec_open_session (GstAvhwDec * self, gint threads)
{
  AVCodecContext *ctx = avcodec_alloc_context3 (self->codec);

  if (!ctx)
    return NULL;
  configure (self, ctx, self->codec, self->ctx->hw_device_ctx != NULL);
  ctx->thread_count = self->ctx->hw_device_ctx ?
      hw_frame_threads (self, self->codec, threads) : threads;
  if (!set_extradata (ctx, self->input_state)
      || avcodec_open2 (ctx, self->codec, NULL) < 0)
    avcodec_free_context (&ctx);
  return ctx;
}

/* What an opened @ctx is for, as the decoder cache matches it; NULL when
 * keeping it would not pay. FFmpeg's h264 decoder drops its hwaccel at every
 * flush (h264_decode_flush() clears context_initialized, and the next stream's
 * get_format re-creates it: on NVDEC, cuvidDestroyDecoder then
 * cuvidCreateDecoder in the next stream's first frame), so it is kept only
 * where its streams end by a join, not a flush (gstavhwdecjoin.c). Wrapper
 * decoders (h264_cuvid...) re-create theirs in their flush; they are freed
 * at once instead. hevc, vp9 and av1 keep theirs while the next stream
 * has the same sequence parameters, and software decoders keep their
 * threads. */
static gchar *
reuse_key (AVCodecContext * ctx, const AVCodec * codec, gboolean hw)
{
  gchar *sum = NULL, *key;

  if (hw && ((codec->capabilities & AV_CODEC_CAP_HARDWARE)
          || (codec->id == AV_CODEC_ID_H264
              && !gst_avhw_dec_join_applies (codec, hw))))
    return NULL;
  if (ctx->extradata_size > 0)
    sum = g_compute_checksum_for_data (G_CHECKSUM_SHA1, ctx->extradata,
        ctx->extradata_size);
  key = g_strdup_printf ("%s|%s|threads=%d/0x%x|extra=%d|strict=%d|"
      "reorder=%d|codec-data=%s", codec->name, hw ? "hw" : "sw",
      ctx->thread_count, ctx->thread_type, ctx->extra_hw_frames,
      ctx->strict_std_compliance, ctx->has_b_frames, sum ? sum : "none");
  g_free (sum);
  return key;
}

/* Whether this stream ends by a join (gstavhwdecjoin.c). */
static void
init_join (GstAvhwDec * self)
{
  gchar *why = NULL;

  self->join = gst_avhw_dec_join_applies (self->codec, self->hw);
  if (self->join && !gst_avhw_dec_watch_cuts (self->watch, &why)) {
    GST_DEBUG_OBJECT (self, "streams end by a drain and flush: %s", why);
    g_free (why);
    self->join = FALSE;
  }
}

/* Opens @codec; with @hw on the element's device. */
static gboolean
try_open (GstAvhwDec * self, const AVCodec * codec, gboolean hw, GString * why)
{
  AVCodecContext *ctx = avcodec_alloc_context3 (codec), *kept = NULL;
  char err[AV_ERROR_MAX_STRING_SIZE];
  guint others;
  int ret;

  if (!ctx)
    return FALSE;
  configure (self, ctx, codec, hw);
  if (hw) {
    /* counted from here (decoders opening at the same time see each
     * other); uncounted again if this one does not open */
    hw_uncount (self);
    self->counted = g_strdup (gst_avhw_device_get_name (DEVICE (self)));
    others = hw_users_change (self->counted, 1);
    ctx->thread_count = hw_frame_threads (self, codec, self->threads ?
        self->threads : others ? 1 : HW_AUTO_THREADS);
  } else {
    ctx->thread_count = self->threads;
  }
  if (!self->threads && gst_avhw_dec_upstream_is_live (self)) {
    /* Frame threads add a frame of latency each; live decoding keeps the
     * streaming thread (software: slice threads only). */
    ctx->thread_count = hw ? 1 : 0;
    ctx->thread_type = FF_THREAD_SLICE;
  }
  if (!set_extradata (ctx, self->input_state)) {
    ret = AVERROR (ENOMEM);
    goto failed;
  }
  g_free (self->ctx_key);
  self->ctx_key = reuse_key (ctx, codec, hw);
  kept = self->ctx_key ?
      gst_avhw_device_take_decoder (DEVICE (self), self->ctx_key) : NULL;
  if (kept) {
    avcodec_free_context (&ctx);
    ctx = kept;
    ctx->opaque = self;
    /* it may hold the join frames of its last stream */
    self->joined = TRUE;
    ret = 0;
  } else {
    ret = avcodec_open2 (ctx, codec, NULL);
  }
failed:
  if (ret < 0) {
    hw_uncount (self);
    g_clear_pointer (&self->ctx_key, g_free);
    g_string_append_printf (why, "%s%s: %s", why->len ? "; " : "",
        codec->name, av_make_error_string (err, sizeof (err), ret));
    avcodec_free_context (&ctx);
    return FALSE;
  }
  self->ctx = ctx;
  self->codec = codec;
  self->hw = hw;
  /* a hardware decoder that is a hwaccel may still go to software at its
   * first picture (get_format()); a wrapper (h264_cuvid) is hardware */
  set_active (self, codec, hw);
  init_join (self);
  GST_DEBUG_OBJECT (self, "%d thread(s), type 0x%x", ctx->thread_count,
      ctx->active_thread_type);
  GST_INFO_OBJECT (self, "%s %s decoder %s on %s", kept ? "reusing" :
      "opened", hw ? "hardware" : "software", codec->name,
      gst_avhw_device_get_name (DEVICE (self)));
  return TRUE;
}

/* "h264, h264_cuvid, ...": every FFmpeg decoder of @codec_id. */
static gchar *
decoder_names (enum AVCodecID codec_id)
{
  GString *s = g_string_new (NULL);
  const AVCodec *c;
  void *it = NULL;

  while ((c = av_codec_iterate (&it)))
    if (c->id == codec_id && av_codec_is_decoder (c))
      g_string_append_printf (s, "%s%s", s->len ? ", " : "", c->name);
  return g_string_free (s, FALSE);
}

static gboolean
open_codec (GstAvhwDec * self, enum AVCodecID codec_id)
{
  GstAvhwBackend *backend = gst_avhw_device_get_backend (DEVICE (self));
  const gchar *devname = gst_avhw_device_get_name (DEVICE (self));
  GString *why = g_string_new (NULL);
  GPtrArray *cands;
  gboolean ok = FALSE;
  guint i;

  self->hw_pix_fmt = gst_avhw_backend_get_hw_pix_fmt (backend);
  self->warned_software = FALSE;

  if (self->decoder_name) {
    const AVCodec *c = avcodec_find_decoder_by_name (self->decoder_name);

    if (!c || c->id != codec_id) {
      gchar *names = decoder_names (codec_id);

      if (!c)
        GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
            ("decoder=%s: FFmpeg has no such decoder; %s decoders here: %s "
                "(or leave decoder empty to let device %s choose).",
                self->decoder_name, avcodec_get_name (codec_id), names,
                devname), ("stream is %s", avcodec_get_name (codec_id)));
      else
        GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
            ("decoder=%s decodes %s, the stream is %s: force a %s decoder "
                "(%s) or leave decoder empty.", self->decoder_name,
                avcodec_get_name (c->id), avcodec_get_name (codec_id),
                avcodec_get_name (codec_id), names), (NULL));
      g_free (names);
      g_string_free (why, TRUE);
      return FALSE;
    }
    ok = try_open (self, c, TRUE, why);
  } else if (self->force_software) {
    g_string_append_printf (why, "%s: its hardware decoder cannot go on "
        "with this stream", devname);
  } else {
    gchar *reason = NULL;

    /* The driver's own answer first: no candidate is tried on a device that
     * lacks the codec (AV1 on an H200). */
    if (gst_avhw_backend_device_decodes (backend,
            gst_avhw_device_get_index (DEVICE (self)), codec_id, &reason)) {
      cands = gst_avhw_backend_get_decoders (backend, codec_id);
      for (i = 0; i < cands->len && !ok; i++)
        ok = try_open (self, g_ptr_array_index (cands, i), TRUE, why);
      g_ptr_array_unref (cands);
    } else {
      g_string_append_printf (why, "%s: %s", devname, reason);
    }
    g_free (reason);
  }

  if (!ok && self->fallback && !self->decoder_name) {
    const AVCodec *sw = avcodec_find_decoder (codec_id);

    if (!self->force_software)
      GST_ELEMENT_WARNING (self, STREAM, CODEC_NOT_FOUND,
          ("No hardware %s decoder for device %s; decoding in software.",
              avcodec_get_name (codec_id), devname), ("%s", why->str));
    self->warned_software = TRUE;
    ok = sw && try_open (self, sw, FALSE, why);
  }
  if (!ok) {
    GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
        ("No %s decoder for device %s%s.", avcodec_get_name (codec_id),
            devname, self->fallback || self->decoder_name ? "" :
            " (fallback=false): set fallback=true to decode in software, or "
            "pick a device that decodes it in hardware (gst-avhw-info lists "
            "them)"), ("%s", why->str));
  }
  g_string_free (why, TRUE);
  return ok;
}

static GstFlowReturn drain (GstAvhwDec * self);

static gboolean
gst_avhw_dec_set_format (GstVideoDecoder * decoder, GstVideoCodecState * state)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);
  enum AVCodecID id = gst_avhw_codec_from_caps (state->caps);

  if (id == AV_CODEC_ID_NONE) {
    GST_ELEMENT_ERROR (self, STREAM, WRONG_TYPE, (NULL),
        ("caps %" GST_PTR_FORMAT " are not a codec avhwdec decodes",
            state->caps));
    return FALSE;
  }
  if (self->input_state && self->ctx && self->codec->id == id
      && gst_caps_is_equal (self->input_state->caps, state->caps)) {
    gst_video_codec_state_unref (self->input_state);
    self->input_state = gst_video_codec_state_ref (state);
    return TRUE;
  }
  /* Upstream offers refused caps again with every buffer: one error. */
  if (self->refused_caps && gst_caps_is_equal (self->refused_caps, state->caps))
    return FALSE;
  if (self->ctx)
    drain (self);
  close_codec (self);
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  self->input_state = gst_video_codec_state_ref (state);
  g_clear_pointer (&self->watch, gst_avhw_dec_watch_free);
  self->watch = gst_avhw_dec_watch_new (id, state->caps, state->codec_data);
  /* new caps: the hardware decoder again, even after one failed */
  self->force_software = self->wait_key = FALSE;
  self->h264_reorder = -1;
  self->seq_checked = FALSE;
  self->replayed_upto = -1;
  if (open_codec (self, id))
    return TRUE;
  gst_caps_replace (&self->refused_caps, state->caps);
  return FALSE;
}

/* ---------------------------------------------------------------- output */

static gboolean
device_holds (GstAvhwDec * self, enum AVPixelFormat fmt)
{
  GArray *fmts = gst_avhw_device_get_sw_formats (DEVICE (self));
  gboolean ok = FALSE;
  guint i;

  for (i = 0; i < fmts->len; i++)
    ok |= g_array_index (fmts, gint, i) == fmt;
  g_array_unref (fmts);
  return ok;
}

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
  delay = MAX (self->ctx->has_b_frames, 0);
  if (self->ctx->active_thread_type & FF_THREAD_FRAME)
    delay += MAX (self->ctx->thread_count - 1, 0);
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
  self->device_memory = device_holds (self, sw_fmt)
      && downstream_takes (self, &info,
      gst_avhw_backend_get_caps_feature (backend));
  self->foreign_memory = !self->device_memory && foreign
      && device_holds (self, sw_fmt) && downstream_takes (self, &info, foreign)
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
  gboolean is_hw = frame->hw_frames_ctx != NULL;
  gboolean on_decoder = is_hw && from_decoder;
  enum AVPixelFormat sw_fmt = is_hw ?
      ((AVHWFramesContext *) frame->hw_frames_ctx->data)->sw_format :
      frame->format;
  GstAvhwBackend *backend = gst_avhw_device_get_backend (DEVICE (self));
  GError *err = NULL;
  GstFlowReturn ret;
  GList *frames, *l;

  cframe = gst_video_decoder_get_frame (dec, (int) frame->pts);
  if (!cframe && frame->pts <= self->replayed_upto) {
    GST_LOG_OBJECT (self, "frame %" G_GINT64_FORMAT " again: it was out "
        "before the hardware decoder failed", (gint64) frame->pts);
    return GST_FLOW_OK;
  }
  if (!cframe) {
    GST_WARNING_OBJECT (self, "no pending frame for output %" G_GINT64_FORMAT,
        (gint64) frame->pts);
    return GST_FLOW_OK;
  }

  /* Release frames FFmpeg dropped (corrupt input), never returned. Not
   * with parallel sessions: there every later segment's input is pending
   * (a walk over up to thousands of frames for each frame out), and each
   * segment releases its own at its end. */
  frames = self->par ? NULL : gst_video_decoder_get_frames (dec);
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

  if (self->device_memory || self->foreign_memory) {
    AVFrame *hw = is_hw ? av_frame_clone (frame) :
        gst_avhw_dec_upload_sw_frame (self, frame, &err);
    if (!hw)
      goto transfer_failed;
    if (self->device_memory) {
      on_decoder = on_decoder && gst_avhw_dec_keep_on_decoder (self, &hw);
      cframe->output_buffer =
          on_decoder ? gst_avhw_dec_wrap_decoder_frame (self,
          hw) : gst_avhw_buffer_new (DEVICE (self), hw,
          &self->output_state->info);
    } else {
      cframe->output_buffer = gst_avhw_dec_export_frame (self, hw, on_decoder,
          &err);
      if (!cframe->output_buffer)
        goto transfer_failed;
    }
  } else {
    ret = gst_video_decoder_allocate_output_frame (dec, cframe);
    if (ret != GST_FLOW_OK) {
      gst_video_decoder_drop_frame (dec, cframe);
      return ret;
    }
    if (is_hw) {
      if (!gst_avhw_transfer_buffer (backend, frame, cframe->output_buffer,
              &self->output_state->info, TRUE, &err))
        goto transfer_failed;
    } else if (!gst_avhw_dec_copy_sw_frame (self, frame, cframe->output_buffer)) {
      g_set_error (&err, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
          "cannot map the output buffer");
      goto transfer_failed;
    }
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

/* An FFmpeg call failed: counts towards max-errors. */
GstFlowReturn
gst_avhw_dec_decode_error (GstAvhwDec * self, const gchar * call, int error)
{
  GstFlowReturn ret = GST_FLOW_OK;
  char err[AV_ERROR_MAX_STRING_SIZE];

  self->damaged = TRUE;
  if (gst_avhw_dec_fail_is_device (self->ctx, error)) {
    if (self->par) {
      /* a session's decoder: the sessions stopped using it */
      GST_ELEMENT_ERROR (self, STREAM, DECODE,
          ("The hardware %s decoder of device %s failed (%s: %s).",
              self->codec->name, gst_avhw_device_get_name (DEVICE (self)),
              call, av_make_error_string (err, sizeof (err), error)),
          ("parallel=%u: no software fallback with parallel sessions",
              self->parallel));
      return GST_FLOW_ERROR;
    }
    /* handled once out of FFmpeg's calls: recover() */
    if (!self->failed_call) {
      self->failed_call = call;
      self->failed_error = error;
    }
    self->ctx_failed = TRUE;
    return GST_FLOW_OK;
  }
  GST_VIDEO_DECODER_ERROR (self, 1, STREAM, DECODE,
      ("Could not decode the %s stream.", self->codec->name),
      ("%s: %s", call, av_make_error_string (err, sizeof (err), error)), ret);
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
    /* Concealed, and still output; counts towards max-errors. */
    self->damaged = TRUE;
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

typedef struct
{
  GstAvhwDec *self;
  GstFlowReturn ret;
} DecOut;

static gboolean
dec_out (AVFrame * frame, int error, gpointer user_data)
{
  DecOut *o = user_data;

  o->ret = frame ? gst_avhw_dec_output_decoded (o->self, frame, TRUE) :
      gst_avhw_dec_decode_error (o->self, "avcodec_receive_frame", error);
  av_frame_free (&frame);
  return o->ret == GST_FLOW_OK && !o->self->failed_call;
}

/* Takes every frame FFmpeg has ready. */
static GstFlowReturn
receive_frames (GstAvhwDec * self)
{
  DecOut o = { self, GST_FLOW_OK };

  gst_avhw_dec_receive (self->ctx, dec_out, &o);
  return o.ret;
}

/* The last IDR of the stream, for a join; and after a join, a flush
 * unless @data (@unit, as the watcher read it) is an IDR. */
static void
before_send (GstAvhwDec * self, const guint8 * data, gsize size,
    const GstAvhwDecUnit * unit)
{
  gboolean cut = FALSE;

  if (self->join) {
    cut = unit->cut;
    if (cut)
      av_packet_free (&self->join_idr);
    /* a field IDR would leave half a picture behind: drain and flush */
    if (unit->key == GST_AVHW_DEC_KEY_IDR_FRAME)
      self->join_idr = gst_avhw_dec_watch_packet (self->watch, data, size,
          TRUE);
  }
  if (self->joined && !cut) {
    GST_DEBUG_OBJECT (self, "no IDR after a join: flushing first");
    avcodec_flush_buffers (self->ctx);
  }
  self->joined = FALSE;
}

/* The SPS of an H.264 stream on a hardware decoder, before the decoder
 * sees it (gstavhwdech264.c): field pictures the device decodes wrongly
 * are watched for; a reorder depth the device's picture slots do not hold
 * reopens the decoder with one that fits.
 * The watcher's first SPS: from codec_data, else from the packets scanned
 * so far, this one included. FALSE after an error was posted. */
static gboolean
check_h264_sequence (GstAvhwDec * self)
{
  GstAvhwBackend *backend = gst_avhw_device_get_backend (DEVICE (self));
  guint index = gst_avhw_device_get_index (DEVICE (self));
  const gchar *devname = gst_avhw_device_get_name (DEVICE (self));
  const AVCodec *codec = self->codec;
  const GstAvhwDecH264Seq *seq = gst_avhw_dec_watch_h264_seq (self->watch);
  guint slots;
  gboolean ok = TRUE;
  gchar *why = NULL;
  GString *errors;

  if (!seq)
    return TRUE;
  self->seq_checked = TRUE;

  slots = gst_avhw_backend_get_decode_slots (backend, index, codec->id);
  self->h264_reorder = gst_avhw_dec_h264_reorder_for (seq, slots);
  if (self->h264_reorder >= 0) {
    GST_INFO_OBJECT (self, "%u reference frames and the level's reorder "
        "depth %u do not fit the %u picture slots of %s: reorder depth %d%s",
        seq->refs, seq->level_reorder, slots, devname, self->h264_reorder,
        seq->in_order ? " (pictures are shown in decoding order)" : "");
    close_codec (self);
    errors = g_string_new (NULL);
    ok = try_open (self, codec, TRUE, errors);
    if (!ok)
      GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
          ("Could not reopen the %s decoder of device %s.", codec->name,
              devname), ("%s", errors->str));
    g_string_free (errors, TRUE);
  }

  /* its field pictures, if any, go to software (fields_to_software()) */
  if (ok && seq->field_coded && !gst_avhw_backend_decodes_field_coded (backend,
          index, codec->id, &why)) {
    GST_INFO_OBJECT (self, "field-coded: watching for field pictures (%s)",
        why);
    self->fields = TRUE;
    self->fields_why = why;
  }
  return ok;
}

static GstFlowReturn send_packet (GstAvhwDec * self, guint32 number,
    GstClockTime pts);

/* Sends @packets (the input since the last key frame) to the decoder that
 * took over from a failed one; frames that were out before come out again
 * and are dropped in output_frame(). */
static GstFlowReturn
replay (GstAvhwDec * self, GPtrArray * packets)
{
  GstFlowReturn ret = GST_FLOW_OK;
  guint i;

  self->replayed_upto =
      ((AVPacket *) g_ptr_array_index (packets, packets->len - 1))->pts;
  GST_INFO_OBJECT (self, "decoding input frames %" G_GINT64_FORMAT "-%"
      G_GINT64_FORMAT " again", ((AVPacket *) packets->pdata[0])->pts,
      self->replayed_upto);
  for (i = 0; i < packets->len && ret == GST_FLOW_OK; i++) {
    AVPacket *p = g_ptr_array_index (packets, i);

    GstAvhwDecUnit unit = { 0, };

    if (av_packet_ref (self->pkt, p) < 0)
      return GST_FLOW_ERROR;
    /* read again only for a software decoder that ends by a join
     * (GST_AVHW_DEC_JOIN=1) */
    if (self->join)
      gst_avhw_dec_watch_scan (self->watch, self->pkt->data, self->pkt->size,
          &unit);
    before_send (self, self->pkt->data, self->pkt->size, &unit);
    ret = send_packet (self, p->pts, GST_CLOCK_TIME_NONE);
  }
  return ret;
}

/* Pending frames before input frame @first: none will come out. */
static void
drop_pending_before (GstAvhwDec * self, gint64 first)
{
  GstVideoDecoder *dec = GST_VIDEO_DECODER (self);
  GList *frames = gst_video_decoder_get_frames (dec), *l;

  for (l = frames; l; l = l->next) {
    GstVideoCodecFrame *f = l->data;

    if ((gint64) f->system_frame_number < first)
      gst_video_decoder_drop_frame (dec, gst_video_codec_frame_ref (f));
  }
  g_list_free_full (frames, (GDestroyNotify) gst_video_codec_frame_unref);
}

/* The software decoder takes over from a hardware one, closed: from the
 * key frame @packets (transfer full) start with, decoded again, or where
 * there are none from the next key frame, the frames up to it lost. */
static GstFlowReturn
software_takes_over (GstAvhwDec * self, enum AVCodecID id, GPtrArray * packets)
{
  GstFlowReturn ret;

  drop_pending_before (self, packets ?
      ((AVPacket *) packets->pdata[0])->pts : G_MAXINT64);
  self->force_software = TRUE;
  if (!open_codec (self, id)) {
    g_clear_pointer (&packets, g_ptr_array_unref);
    return GST_FLOW_ERROR;
  }
  if (!packets) {
    self->wait_key = TRUE;
    return GST_FLOW_OK;
  }
  ret = replay (self, packets);
  g_ptr_array_unref (packets);
  return ret;
}

/* After the hardware decoder failed (gstavhwdecfail.c): it is abandoned,
 * and the stream ends in an error or, with fallback, goes on in software
 * from the last key frame, the frames the failed decoder held decoded
 * again (gstavhwdecreplay.c); where that GOP was too long to keep, those
 * frames are lost and software starts at the next key frame. */
static GstFlowReturn
recover (GstAvhwDec * self)
{
  const gchar *devname = gst_avhw_device_get_name (DEVICE (self));
  const gchar *call = self->failed_call;
  enum AVCodecID id = self->codec->id;
  /* FFmpeg's static AVCodec: still there once the decoder is closed */
  const gchar *name = self->codec->name;
  char err[AV_ERROR_MAX_STRING_SIZE];
  gboolean fatal = !self->fallback || self->decoder_name;
  GPtrArray *packets = fatal ? NULL : gst_avhw_dec_replay_take (&self->replay);

  av_make_error_string (err, sizeof (err), self->failed_error);
  close_codec (self);
  if (fatal) {
    drop_pending_before (self, G_MAXINT64);
    GST_ELEMENT_ERROR (self, STREAM, DECODE,
        ("The hardware %s decoder of device %s failed (%s: %s); set "
            "fallback=true to go on in software.", name, devname, call, err),
        ("%s", self->decoder_name ? "decoder is set: no fallback" :
            "fallback=false"));
    return GST_FLOW_ERROR;
  }
  GST_ELEMENT_WARNING (self, STREAM, DECODE,
      ("The hardware %s decoder of device %s failed (%s: %s); decoding the "
          "rest of the stream in software, from its %s key frame.", name,
          devname, call, err, packets ? "last" : "next"), (NULL));
  return software_takes_over (self, id, packets);
}

/* A field picture on a device that decodes them wrongly (watched since
 * check_h264_sequence()): it is not sent; the stream goes on in software
 * from its last key frame, or fails with fallback=false. */
static GstFlowReturn
fields_to_software (GstAvhwDec * self)
{
  const gchar *devname = gst_avhw_device_get_name (DEVICE (self));
  enum AVCodecID id = self->codec->id;
  const gchar *name = self->codec->name;
  GPtrArray *packets;

  if (!self->fallback || self->decoder_name) {
    av_packet_unref (self->pkt);
    GST_ELEMENT_ERROR (self, STREAM, CODEC_NOT_FOUND,
        ("Device %s cannot decode the field pictures of this %s stream in "
            "hardware and fallback is off.", devname, name),
        ("%s; set fallback=true to decode such streams in software",
            self->fields_why));
    return GST_FLOW_ERROR;
  }
  gst_avhw_dec_replay_keep (&self->replay, self->pkt);
  av_packet_unref (self->pkt);
  packets = gst_avhw_dec_replay_take (&self->replay);
  GST_ELEMENT_WARNING (self, STREAM, CODEC_NOT_FOUND,
      ("Device %s cannot decode the field pictures of this %s stream in "
          "hardware; decoding it in software from its %s key frame.",
          devname, name, packets ? "last" : "next"), ("%s", self->fields_why));
  close_codec (self);
  return software_takes_over (self, id, packets);
}

/* @input read by the stream's watcher: what it is into @unit. TRUE once
 * read. */
static gboolean
scan (GstAvhwDec * self, GstBuffer * input, GstAvhwDecUnit * unit)
{
  GstMapInfo map;

  if (!gst_buffer_map (input, &map, GST_MAP_READ))
    return FALSE;
  gst_avhw_dec_watch_scan (self->watch, map.data, map.size, unit);
  gst_buffer_unmap (input, &map);
  return TRUE;
}

static GstFlowReturn
gst_avhw_dec_handle_frame (GstVideoDecoder * decoder,
    GstVideoCodecFrame * frame)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);
  GstMapInfo map;
  guint32 number = frame->system_frame_number;
  GstClockTime pts = frame->pts;
  GstAvhwDecUnit unit = { 0, };
  gboolean scanned = FALSE;
  int r;

  if (!self->ctx) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("no decoder open: caps were never set"));
    gst_video_decoder_release_frame (decoder, frame);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  /* the software decoder after a failed hardware one starts at a key frame */
  if (self->wait_key) {
    if (!GST_VIDEO_CODEC_FRAME_IS_SYNC_POINT (frame))
      return gst_video_decoder_drop_frame (decoder, frame);
    self->wait_key = FALSE;
  }
  if (!self->seq_checked && self->codec->id == AV_CODEC_ID_H264
      && self->ctx->hw_device_ctx) {
    scanned = scan (self, frame->input_buffer, &unit);
    if (!check_h264_sequence (self)) {
      gst_video_decoder_release_frame (decoder, frame);
      return GST_FLOW_ERROR;
    }
  }
  if (!self->par_decided) {
    /* a stream watched for field pictures stays on one session, where the
     * first one hands over to software */
    self->par = self->fields ? NULL : gst_avhw_dec_parallel_new (self);
    self->par_decided = TRUE;
    /* the sessions find their cut points themselves */
    if (self->par) {
      av_packet_free (&self->join_idr);
      self->join = FALSE;
    }
  }
  if (self->par) {
    if (!scanned)
      scan (self, frame->input_buffer, &unit);
    return gst_avhw_dec_parallel_handle_frame (self->par, frame, &unit);
  }
  if (!gst_buffer_map (frame->input_buffer, &map, GST_MAP_READ)) {
    gst_video_decoder_release_frame (decoder, frame);
    return GST_FLOW_ERROR;
  }
  if (!scanned && (self->join || self->fields))
    gst_avhw_dec_watch_scan (self->watch, map.data, map.size, &unit);
  before_send (self, map.data, map.size, &unit);
  r = av_new_packet (self->pkt, map.size);
  if (r == 0) {
    memcpy (self->pkt->data, map.data, map.size);
    self->pkt->pts = frame->system_frame_number;
    if (GST_VIDEO_CODEC_FRAME_IS_SYNC_POINT (frame))
      self->pkt->flags |= AV_PKT_FLAG_KEY;
  }
  gst_buffer_unmap (frame->input_buffer, &map);
  gst_video_codec_frame_unref (frame);
  if (r < 0)
    return GST_FLOW_ERROR;
  if (self->fields && unit.field)
    return fields_to_software (self);
  /* kept where a failure would be the device's: recover() replays it */
  if (gst_avhw_dec_fail_can_fail (self->ctx))
    gst_avhw_dec_replay_keep (&self->replay, self->pkt);
  return send_packet (self, number, pts);
}

/* Sends self->pkt (input frame @number) and takes out what the decoder
 * has; a failed hardware decoder is handled by recover(). */
static GstFlowReturn
send_packet (GstAvhwDec * self, guint32 number, GstClockTime pts)
{
  GstFlowReturn ret = GST_FLOW_OK;
  char err[AV_ERROR_MAX_STRING_SIZE];
  int r;

  /* GstVideoDecoder's stream lock is held; FFmpeg may call get_format. The
   * test hook fails hardware decoders only, not their replacement. */
  for (;;) {
    r = avcodec_send_packet (self->ctx, self->pkt);
    if (!self->force_software)
      r = gst_avhw_dec_fail_inject (GST_OBJECT (self), number, r);
    if (r != AVERROR (EAGAIN))
      break;
    /* The decoder is full: take frames out, then send again. */
    ret = receive_frames (self);
    if (ret != GST_FLOW_OK || self->failed_call)
      break;
  }
  av_packet_unref (self->pkt);
  /* marks a device failure (the error is then handled by recover()) */
  if (!self->failed_call && gst_avhw_dec_fail_is_device (self->ctx, r))
    gst_avhw_dec_decode_error (self, "avcodec_send_packet", r);
  if (self->failed_call)
    return recover (self);
  if (ret != GST_FLOW_OK)
    return ret;
  if (r < 0 && r != AVERROR_EOF) {
    self->damaged = TRUE;
    GST_VIDEO_DECODER_ERROR (self, 1, STREAM, DECODE,
        ("Could not decode the %s stream (input frame %u, %" GST_TIME_FORMAT
            ").", self->codec->name, number, GST_TIME_ARGS (pts)),
        ("avcodec_send_packet: %s", av_make_error_string (err, sizeof (err),
                r)), ret);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  ret = receive_frames (self);
  return self->failed_call ? recover (self) : ret;
}

static GstFlowReturn
drain (GstAvhwDec * self)
{
  DecOut o = { self, GST_FLOW_OK };
  const AVPacket *idr = NULL;

  if (self->par)
    return gst_avhw_dec_parallel_drain (self->par);
  if (!self->ctx)
    return GST_FLOW_OK;
  /* a decoder that stays open or is kept ends by a join: it keeps its
   * hwaccel */
  if (self->join && self->ctx_key && !self->damaged
      && gst_avhw_cache_get_reuse ())
    idr = self->join_idr;
  self->joined = gst_avhw_dec_end_stream (self->ctx, idr, dec_out, &o);
  return self->failed_call ? recover (self) : o.ret;
}

static GstFlowReturn
gst_avhw_dec_drain (GstVideoDecoder * decoder)
{
  return drain (GST_AVHW_DEC (decoder));
}

static GstFlowReturn
gst_avhw_dec_finish (GstVideoDecoder * decoder)
{
  GstFlowReturn ret = drain (GST_AVHW_DEC (decoder));

  /* At EOS GstVideoDecoder forwards EOS whatever the drain returned: a
   * refusal downstream would end the stream silently with frames lost. */
  if (ret == GST_FLOW_NOT_NEGOTIATED || ret < GST_FLOW_EOS)
    GST_ELEMENT_FLOW_ERROR (decoder, ret);
  return ret;
}

static gboolean
gst_avhw_dec_flush (GstVideoDecoder * decoder)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  if (self->par)
    gst_avhw_dec_parallel_flush (self->par);
  else if (self->ctx)
    avcodec_flush_buffers (self->ctx);
  self->joined = FALSE;
  gst_avhw_dec_replay_clear (&self->replay);
  return TRUE;
}

/* ---------------------------------------------------------------- element */

static gboolean
gst_avhw_dec_start (GstVideoDecoder * decoder)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  self->pkt = av_packet_alloc ();
  self->held = g_new0 (HeldCounter, 1);
  self->held->refs = 1;
  return self->pkt != NULL;
}

static gboolean
gst_avhw_dec_stop (GstVideoDecoder * decoder)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  close_codec (self);
  g_clear_pointer (&self->watch, gst_avhw_dec_watch_free);
  self->force_software = self->wait_key = FALSE;
  av_packet_free (&self->pkt);
  if (self->held && g_atomic_int_dec_and_test (&self->held->refs))
    g_free (self->held);
  self->held = NULL;
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  g_clear_pointer (&self->output_state, gst_video_codec_state_unref);
  gst_clear_caps (&self->refused_caps);
  self->out_width = self->out_height = 0;
  return TRUE;
}

static gboolean
gst_avhw_dec_src_query (GstVideoDecoder * decoder, GstQuery * query)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  if (gst_avhw_element_device_query (&self->dev, GST_ELEMENT (self), query))
    return TRUE;
  return GST_VIDEO_DECODER_CLASS (gst_avhw_dec_parent_class)->src_query
      (decoder, query);
}

static gboolean
gst_avhw_dec_sink_query (GstVideoDecoder * decoder, GstQuery * query)
{
  GstAvhwDec *self = GST_AVHW_DEC (decoder);

  if (gst_avhw_element_device_query (&self->dev, GST_ELEMENT (self), query))
    return TRUE;
  return GST_VIDEO_DECODER_CLASS (gst_avhw_dec_parent_class)->sink_query
      (decoder, query);
}

static void
gst_avhw_dec_set_context (GstElement * element, GstContext * context)
{
  GstAvhwDec *self = GST_AVHW_DEC (element);

  gst_avhw_element_device_set_context (&self->dev, element, context);
  GST_ELEMENT_CLASS (gst_avhw_dec_parent_class)->set_context (element, context);
}

static GstStateChangeReturn
gst_avhw_dec_change_state (GstElement * element, GstStateChange transition)
{
  GstAvhwDec *self = GST_AVHW_DEC (element);
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY
      && !gst_avhw_element_device_ensure (&self->dev, element))
    return GST_STATE_CHANGE_FAILURE;
  /* Active on the device from READY->PAUSED to PAUSED->READY: what
   * placement by load counts. */
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
    gst_avhw_element_device_begin_session (&self->dev, element);
  ret = GST_ELEMENT_CLASS (gst_avhw_dec_parent_class)->change_state (element,
      transition);
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY
      || (transition == GST_STATE_CHANGE_READY_TO_PAUSED
          && ret == GST_STATE_CHANGE_FAILURE))
    gst_avhw_element_device_end_session (&self->dev, element);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    gst_avhw_element_device_release (&self->dev, element);
  return ret;
}

static void
gst_avhw_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstAvhwDec *self = GST_AVHW_DEC (object);

  if (gst_avhw_element_device_set_property (&self->dev, GST_ELEMENT (self),
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DECODER:
      g_free (self->decoder_name);
      self->decoder_name = g_value_dup_string (value);
      if (self->decoder_name && !*self->decoder_name)
        g_clear_pointer (&self->decoder_name, g_free);
      break;
    case PROP_EXTRA_FRAMES:
      self->extra_frames = g_value_get_int (value);
      break;
    case PROP_FALLBACK:
      self->fallback = g_value_get_boolean (value);
      break;
    case PROP_THREADS:
      self->threads = g_value_get_int (value);
      break;
    case PROP_PARALLEL:
      self->parallel = g_value_get_uint (value);
      break;
    case PROP_MAX_BUFFERED:
      self->max_buffered = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_avhw_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstAvhwDec *self = GST_AVHW_DEC (object);

  if (gst_avhw_element_device_get_property (&self->dev, GST_ELEMENT (self),
          prop_id, value))
    return;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_DECODER:
      g_value_set_string (value, self->decoder_name);
      break;
    case PROP_EXTRA_FRAMES:
      g_value_set_int (value, self->extra_frames);
      break;
    case PROP_FALLBACK:
      g_value_set_boolean (value, self->fallback);
      break;
    case PROP_THREADS:
      g_value_set_int (value, self->threads);
      break;
    case PROP_PARALLEL:
      g_value_set_uint (value, self->parallel);
      break;
    case PROP_MAX_BUFFERED:
      g_value_set_uint (value, self->max_buffered);
      break;
    case PROP_ACTIVE_DECODER:
      g_value_set_string (value, self->active_decoder);
      break;
    case PROP_HARDWARE:
      g_value_set_boolean (value, self->active_hw);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_avhw_dec_finalize (GObject * object)
{
  GstAvhwDec *self = GST_AVHW_DEC (object);

  gst_avhw_element_device_clear (&self->dev);
  g_free (self->decoder_name);
  g_ptr_array_unref (self->replay.packets);
  G_OBJECT_CLASS (gst_avhw_dec_parent_class)->finalize (object);
}

/* Sink caps: every codec of the map that this FFmpeg can decode at all. */
static GstCaps *
make_sink_caps (void)
{
  GstCaps *caps = gst_caps_new_empty ();
  const enum AVCodecID *ids;
  guint n, i;

  ids = gst_avhw_codec_list (&n);
  for (i = 0; i < n; i++)
    if (avcodec_find_decoder (ids[i]))
      gst_caps_append (caps, gst_avhw_codec_get_caps (ids[i]));
  return caps;
}

static void
gst_avhw_dec_class_init (GstAvhwDecClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstVideoDecoderClass *dec_class = GST_VIDEO_DECODER_CLASS (klass);
  GstCaps *sink_caps = make_sink_caps (), *src_caps;

  gobject_class->set_property = gst_avhw_dec_set_property;
  gobject_class->get_property = gst_avhw_dec_get_property;
  gobject_class->finalize = gst_avhw_dec_finalize;
  gst_avhw_element_device_install_properties (gobject_class);

  /**
   * GstAvhwDec:decoder:
   *
   * Force one FFmpeg decoder by name (`h264`, `h264_cuvid`...) instead of
   * the backend's candidates; no software fallback then.
   */
  g_object_class_install_property (gobject_class, PROP_DECODER,
      g_param_spec_string ("decoder", "Decoder",
          "FFmpeg decoder to force (e.g. h264_cuvid); empty: the backend's "
          "candidates", DEFAULT_PROP_DECODER,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:extra-frames:
   *
   * Surfaces added to the decoder's pool for frames held downstream
   * (queues, encoders). One held frame (a sink's last sample) is covered
   * by the spare surfaces FFmpeg gives every hardware decoder; when
   * downstream holds more than extra-frames + 1 of the decoder's frames,
   * further frames are copied on the device instead.
   */
  g_object_class_install_property (gobject_class, PROP_EXTRA_FRAMES,
      g_param_spec_int ("extra-frames", "Extra frames",
          "Extra surfaces in the device pool for frames held downstream "
          "(each costs device memory; past them frames are copied)",
          0, 64, DEFAULT_PROP_EXTRA_FRAMES,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:fallback:
   *
   * Decode in software (and upload for device memory output), with a
   * warning, when the device has no hardware decoder for the stream, and
   * when its hardware decoder fails mid-stream (an error that is not the
   * stream's: then from the next key frame on). Off: an error in both
   * cases.
   */
  g_object_class_install_property (gobject_class, PROP_FALLBACK,
      g_param_spec_boolean ("fallback", "Fallback",
          "Decode in software when the device cannot (warning); off: error",
          DEFAULT_PROP_FALLBACK,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:threads:
   *
   * FFmpeg frame threads. 0: automatic, two for a hardware decoder that
   * is alone on its device (the next frame is parsed while the device
   * decodes this one; each thread adds a surface and a frame of latency;
   * with several decoders the device is the limit), one per CPU for
   * software decoding, and none when upstream is live (software: slice
   * threads); 1: decode in the streaming thread only.
   */
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_int ("threads", "Threads",
          "FFmpeg frame threads (0: automatic: 2 for a hardware decoder "
          "alone on its device, none when live; 1: none)", 0, 16,
          DEFAULT_PROP_THREADS,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));

  /**
   * GstAvhwDec:parallel:
   *
   * Decoder sessions decoding one stream at once (GOP-parallel): the
   * stream is cut where decoding can start afresh (H.264 IDR; H.265 IDR
   * and BLA; VP9 and AV1 shown key frames) and up to this many segments
   * decode at once, each on its own session on the same device; frames
   * go out in the stream's order with its timestamps, bit-exact to
   * parallel=1. Hardware decoders (NVDEC: one session per engine) and
   * software decoders alike. 0: automatic, for non-live seekable input:
   * a hardware decoder's engine count where the backend knows it, else
   * the host's CPU count (at most 8); 1 otherwise. 1: one session, as
   * before. A stream that cannot be cut (another codec, another
   * alignment) decodes with one session; the debug log says why, and at
   * each end of stream (avhwdec:4) where each session's time went.
   */
  g_object_class_install_property (gobject_class, PROP_PARALLEL,
      g_param_spec_uint ("parallel", "Parallel",
          "Decoder sessions decoding segments of the stream at once (0: "
          "automatic; 1: one, no cutting)", 0, 64, DEFAULT_PROP_PARALLEL,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:max-buffered:
   *
   * With parallel > 1: decoded frames that may wait for their turn (the
   * segments after the one going out); past it, the sessions of later
   * segments wait. Waiting hardware frames are copies on the device (a
   * 1080p NV12 frame: about 3 MiB), off the decoders' surfaces.
   */
  g_object_class_install_property (gobject_class, PROP_MAX_BUFFERED,
      g_param_spec_uint ("max-buffered", "Max buffered",
          "With parallel > 1: decoded frames waiting for their turn, at "
          "most (then later segments' sessions wait)", 1, G_MAXINT,
          DEFAULT_PROP_MAX_BUFFERED,
          G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwDec:active-decoder:
   *
   * The FFmpeg decoder of the current stream (`h264`, `hevc_cuvid`...), or
   * of the last one once stopped; %NULL before the first. Notified when it
   * changes.
   */
  g_object_class_install_property (gobject_class, PROP_ACTIVE_DECODER,
      g_param_spec_string ("active-decoder", "Active decoder",
          "FFmpeg decoder of the current (or last) stream", NULL,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstAvhwDec:hardware:
   *
   * Whether #GstAvhwDec:active-decoder decodes on the device's hardware
   * (%FALSE: in software, as `fallback` allows). For a hwaccel decoder
   * (`h264` on cuda or vulkan) it is settled at the stream's first
   * picture. Notified when it changes.
   */
  g_object_class_install_property (gobject_class, PROP_HARDWARE,
      g_param_spec_boolean ("hardware", "Hardware",
          "Whether the active decoder decodes on the device's hardware",
          FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, sink_caps));
  gst_caps_unref (sink_caps);
  src_caps = gst_avhw_template_caps (GST_AVHW_TEMPLATE_DEVICE |
      GST_AVHW_TEMPLATE_FOREIGN | GST_AVHW_TEMPLATE_SYSTEM, NULL);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, src_caps));
  gst_caps_unref (src_caps);
  gst_element_class_set_static_metadata (element_class,
      "avhw video decoder", "Codec/Decoder/Video/Hardware",
      "Decodes video through FFmpeg on an avhw device", "gst-avhw developers");

  element_class->set_context = gst_avhw_dec_set_context;
  element_class->change_state = gst_avhw_dec_change_state;
  dec_class->start = gst_avhw_dec_start;
  dec_class->stop = gst_avhw_dec_stop;
  dec_class->set_format = gst_avhw_dec_set_format;
  dec_class->handle_frame = gst_avhw_dec_handle_frame;
  dec_class->drain = gst_avhw_dec_drain;
  dec_class->finish = gst_avhw_dec_finish;
  dec_class->flush = gst_avhw_dec_flush;
  dec_class->src_query = gst_avhw_dec_src_query;
  dec_class->sink_query = gst_avhw_dec_sink_query;

  GST_DEBUG_CATEGORY_INIT (gst_avhw_dec_debug, "avhwdec", 0, "avhwdec");
}

static void
gst_avhw_dec_init (GstAvhwDec * self)
{
  gst_avhw_element_device_init (&self->dev);
  self->extra_frames = DEFAULT_PROP_EXTRA_FRAMES;
  self->fallback = DEFAULT_PROP_FALLBACK;
  self->threads = DEFAULT_PROP_THREADS;
  self->parallel = DEFAULT_PROP_PARALLEL;
  self->max_buffered = DEFAULT_PROP_MAX_BUFFERED;
  self->h264_reorder = -1;
  self->replayed_upto = -1;
  gst_avhw_dec_replay_init (&self->replay);
  gst_video_decoder_set_packetized (GST_VIDEO_DECODER (self), TRUE);
  gst_video_decoder_set_needs_format (GST_VIDEO_DECODER (self), TRUE);
}
