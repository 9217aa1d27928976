/* gst-avhw: avhwdec, one decoder session
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A session owns one FFmpeg decoder (AVCodecContext), opened for the
 * device or in software, with its own opaque (FFmpeg's get_format writes
 * only the session's state), and everything that follows that decoder
 * through a stream: how it ends (a join for H.264 on hardware,
 * gstavhwdecjoin.c, else a drain and flush), whether it failed
 * (gstavhwdecfail.c), the input since the last key frame
 * (gstavhwdecreplay.c), and whether it was handed to software. The element
 * drives one session (gstavhwdec.c), the scheduler N of them
 * (gstavhwdecsched.c), each from one thread at a time; the same code sends,
 * receives, ends and recovers in both.
 *
 * A hardware decoder that fails, or a field picture on a device that
 * decodes them wrongly, hands the session to FFmpeg's software decoder:
 * the input kept since the last key frame is decoded again there, and the
 * frames that came out before are not given twice. Where that input was
 * too long to keep, software starts at the next key frame and the frames
 * between are lost (said through GstAvhwDecSessionOut.lost). With
 * fallback off, or a decoder forced by name, that is a fault instead,
 * given in stream order (GstAvhwDecSessionOut.fault).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <libavutil/pixdesc.h>
#include "gstavhwdecsession.h"
#include "gstavhwdecfail.h"
#include "gstavhwdecjoin.h"
#include "gstavhwdecparamsets.h"
#include "gstavhwdecreplay.h"
#include "gstavhwelementutils.h"
#include "gstavhw-private.h"

GST_DEBUG_CATEGORY_EXTERN (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

/* threads=0 with a hardware decoder alone on its device and upstream not
 * live: frame threads overlap parsing the next frames with waiting for the
 * device on this one; each thread adds a surface and a frame of latency.
 * H.264 at 1080p is bound by the device (NVDEC: 739 fps with 1 to 8
 * threads), so two; H.265 decodes twice as fast and FFmpeg 7.1's hevc
 * needs four to keep up (NVDEC: 1193 fps with 2, 1415 with 4, ffmpeg's
 * 1423; FFmpeg 5.1 reached 1410 with 2; docs/performance.md, issue 30).
 * VP9 and AV1 get the same, not measured on their own. */
static gint
hw_auto_threads (enum AVCodecID codec_id)
{
  return codec_id == AV_CODEC_ID_H264 ? 2 : 4;
}

struct _GstAvhwDecSession
{
  GstAvhwDecStream *stream;
  GMutex lock;                  /* ctx, codec: read by other threads */
  AVCodecContext *ctx;
  const AVCodec *codec;
  gboolean opened_hw;           /* opened on the device */
  gboolean can_fail;            /* a failure would be its device's (a
                                 * hardware decoder, or under the test
                                 * hook, gstavhwdecfail.c) */
  enum AVPixelFormat hw_pix_fmt;
  gint threads;                 /* asked for at open (-1: automatic) */
  GstAvhwDecoderKey key;        /* what the decoder cache matches */
  gboolean keyed;               /* FALSE: not worth keeping */
  /* a kept decoder taken for this stream: the stream's own sequence
   * needs, whether FFmpeg set up its hardware decoder again
   * (get_format(): its surfaces are then sized for this stream), and
   * whether the stream's codec data goes with its first packet */
  guint want_refs, want_reorder;
  gboolean reinit;
  gboolean send_extradata;
  gchar *counted;               /* the device it is counted on */
  gboolean damaged;             /* the stream had errors: not kept */
  gboolean cache_counted;       /* counted open by the decoder cache */
  /* how streams end (gstavhwdecjoin.c) */
  gboolean join;
  gboolean joined;              /* ctx may hold join frames: a cut next */
  AVPacket *join_idr;           /* the last IDR, parameter sets in front */
  /* a failed device (gstavhwdecfail.c) */
  gboolean failed;              /* ctx is not to be called again */
  const gchar *failed_call;
  int failed_error;
  gboolean software;            /* handed to software: stays there */
  gboolean wait_key;            /* drop input up to a key frame */
  gboolean dead;                /* a fault ended it */
  /* the input since the last key frame, and what of it came out */
  GstAvhwDecReplay replay;
  GHashTable *emitted;          /* pts out since the replay's key frame */
  GHashTable *out_before;       /* pts out before a hand-over: not again */
};

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
hw_uncount (GstAvhwDecSession * s)
{
  if (s->counted)
    hw_users_change (s->counted, -1);
  g_clear_pointer (&s->counted, g_free);
}

static const gchar *
devname (GstAvhwDecSession * s)
{
  return gst_avhw_device_get_name (s->stream->device);
}

static void
set_active (GstAvhwDecSession * s, const AVCodec * codec, gboolean hw)
{
  gst_avhw_element_set_active (s->stream->element,
      s->stream->active_decoder, s->stream->active_hw, codec->name, hw,
      "active-decoder");
}

/* ---------------------------------------------------------------- open */

static enum AVPixelFormat
get_format (AVCodecContext * ctx, const enum AVPixelFormat *fmts)
{
  GstAvhwDecSession *s = ctx->opaque;
  GstAvhwDecStream *st = s->stream;
  const enum AVPixelFormat *p;

  /* FFmpeg sets up its hwaccel (and its surfaces) again after this */
  s->reinit = TRUE;
  for (p = fmts; *p != AV_PIX_FMT_NONE; p++) {
    if (*p == s->hw_pix_fmt) {
      set_active (s, ctx->codec, TRUE);
      gst_avhw_backend_prepare_decode (gst_avhw_device_get_backend
          (st->device), ctx);
      return *p;
    }
  }
  /* The hardware cannot take this stream (profile, bit depth, chroma). */
  set_active (s, ctx->codec, FALSE);
  if (!st->fallback) {
    GST_ELEMENT_ERROR (st->element, STREAM, CODEC_NOT_FOUND,
        ("Device %s cannot decode this %s stream (%s, profile %d) in hardware "
            "and fallback is off.", devname (s),
            avcodec_get_name (ctx->codec_id),
            av_get_pix_fmt_name (avcodec_default_get_format (ctx, fmts)),
            ctx->profile), ("set fallback=true to decode in software"));
    return AV_PIX_FMT_NONE;
  }
  if (g_atomic_int_compare_and_exchange (&st->warned_software, 0, 1))
    GST_ELEMENT_WARNING (st->element, STREAM, CODEC_NOT_FOUND,
        ("Device %s cannot decode this %s stream in hardware; decoding in "
            "software.", devname (s), avcodec_get_name (ctx->codec_id)),
        ("decoder %s offered %s", ctx->codec->name,
            av_get_pix_fmt_name (avcodec_default_get_format (ctx, fmts))));
  return avcodec_default_get_format (ctx, fmts);
}

static gboolean
set_extradata (AVCodecContext * ctx, GstBuffer * codec_data)
{
  GstMapInfo map;

  if (!codec_data)
    return TRUE;
  if (!gst_buffer_map (codec_data, &map, GST_MAP_READ))
    return FALSE;
  ctx->extradata = av_mallocz (map.size + AV_INPUT_BUFFER_PADDING_SIZE);
  if (ctx->extradata) {
    memcpy (ctx->extradata, map.data, map.size);
    ctx->extradata_size = map.size;
  }
  gst_buffer_unmap (codec_data, &map);
  return ctx->extradata != NULL;
}

/* @wanted frame threads for the hardware decoder of @codec on the
 * device, within the most its backend says it decodes right with
 * (gst_avhw_backend_get_decode_frame_threads()): a wrong picture is worse
 * than a slower one, so this holds against the threads property too. */
static gint
hw_frame_threads (GstAvhwDecSession * s, const AVCodec * codec, gint wanted)
{
  GstAvhwDevice *device = s->stream->device;
  gchar *why = NULL;
  guint most =
      gst_avhw_backend_get_decode_frame_threads (gst_avhw_device_get_backend
      (device), gst_avhw_device_get_index (device), codec->id, &why);

  if (most && (wanted <= 0 || (guint) wanted > most)) {
    if (s->stream->threads > (gint) most)
      GST_WARNING_OBJECT (s->stream->element, "threads=%d: %u frame "
          "thread(s) on %s: %s", s->stream->threads, most, devname (s), why);
    else
      GST_DEBUG_OBJECT (s->stream->element, "%u frame thread(s): %s", most,
          why);
    wanted = (gint) most;
  }
  g_free (why);
  return wanted;
}

/* A new decoder context for @codec, set up as the stream wants; on the
 * device with @hw. */
static AVCodecContext *
new_context (GstAvhwDecSession * s, const AVCodec * codec, gboolean hw)
{
  GstAvhwDecStream *st = s->stream;
  AVCodecContext *ctx = avcodec_alloc_context3 (codec);

  if (!ctx)
    return NULL;
  ctx->opaque = s;
  ctx->pkt_timebase = (AVRational) {
  1, GST_SECOND};
  /* H.264 without VUI reorder info: size the reorder buffer from the level
   * (as a demuxer's probing would) instead of guessing low and dropping
   * late B-frames ("no picture ooo"). Costs latency on such streams only.
   * A hardware decoder with fewer picture slots than that takes a depth
   * its SPS decided (gstavhwdech264.c). */
  if (codec->id == AV_CODEC_ID_H264 && hw && st->h264_reorder >= 0) {
    ctx->strict_std_compliance = FF_COMPLIANCE_NORMAL;
    ctx->has_b_frames = st->h264_reorder;
  } else if (codec->id == AV_CODEC_ID_H264) {
    ctx->strict_std_compliance = FF_COMPLIANCE_STRICT;
  }
  ctx->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
  if (hw) {
    ctx->hw_device_ctx =
        av_buffer_ref (gst_avhw_device_get_device_ctx (st->device));
    ctx->get_format = get_format;
    ctx->extra_hw_frames = st->extra_frames;
  }
  if (!set_extradata (ctx, st->codec_data))
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
static gboolean
reuse_key (GstAvhwDecSession * s, AVCodecContext * ctx,
    const AVCodec * codec, gboolean hw)
{
  const GstAvhwDecH264Seq *seq;

  if (hw && ((codec->capabilities & AV_CODEC_CAP_HARDWARE)
          || (codec->id == AV_CODEC_ID_H264
              && !gst_avhw_dec_join_applies (codec, hw))))
    return FALSE;
  gst_avhw_decoder_key_init (&s->key, ctx, codec, hw);
  s->key.width = s->stream->width;
  s->key.height = s->stream->height;
  /* FFmpeg's h264 sizes a hwaccel's surfaces from the first SPS and keeps
   * them through SPS changes of one size: a kept decoder takes streams
   * that ask for no more (hevc sets its hwaccel up again at every new
   * SPS; vp9 and av1 have fixed reference slots) */
  seq = codec->id == AV_CODEC_ID_H264 && hw ?
      gst_avhw_dec_watch_h264_seq (s->stream->watch) : NULL;
  if (seq) {
    s->key.dpb_refs = seq->refs;
    s->key.dpb_reorder = seq->reorder;
    s->key.field_coded = seq->field_coded;
  }
  return TRUE;
}

/* Whether streams end by a join (gstavhwdecjoin.c). */
static void
init_join (GstAvhwDecSession * s)
{
  gchar *why = NULL;

  s->join = gst_avhw_dec_join_applies (s->codec, s->opened_hw);
  if (s->join && !gst_avhw_dec_watch_cuts (s->stream->watch, &why)) {
    GST_DEBUG_OBJECT (s->stream->element, "streams end by a drain and "
        "flush: %s", why);
    g_free (why);
    s->join = FALSE;
  }
}

/* @ctx (opened) becomes the session's decoder. */
static void
install (GstAvhwDecSession * s, AVCodecContext * ctx, const AVCodec * codec,
    gboolean hw)
{
  g_mutex_lock (&s->lock);
  s->ctx = ctx;
  s->codec = codec;
  g_mutex_unlock (&s->lock);
  s->opened_hw = hw;
  s->can_fail = !s->software && (ctx->hw_device_ctx
      || gst_avhw_dec_fail_hooked (GST_OBJECT (s->stream->element)));
  init_join (s);
}

/* *@ctx (set up for @codec) becomes an opened decoder: the one the
 * device's cache keeps for its key, *@ctx freed (*@kept TRUE; it may hold
 * the join frames of its last stream), else *@ctx opened. The
 * avcodec_open2() result. */
static int
take_or_open (GstAvhwDecSession * s, AVCodecContext ** ctx,
    const AVCodec * codec, gboolean hw, gboolean * kept)
{
  AVCodecContext *cached;
  GstAvhwDecoderKey kept_key;

  s->keyed = reuse_key (s, *ctx, codec, hw);
  cached = s->keyed ? gst_avhw_device_take_decoder (s->stream->device,
      &s->key, &kept_key) : NULL;
  *kept = cached != NULL;
  s->joined = *kept;
  s->reinit = FALSE;
  s->send_extradata = FALSE;
  s->want_refs = s->key.dpb_refs;
  s->want_reorder = s->key.dpb_reorder;
  if (cached) {
    /* it goes back with what it was made for (at least this stream's
     * needs), unless FFmpeg sets it up again for this stream */
    s->key.has_b_frames = kept_key.has_b_frames;
    s->key.dpb_refs = kept_key.dpb_refs;
    s->key.dpb_reorder = kept_key.dpb_reorder;
    s->send_extradata = s->key.has_extradata && s->key.extradata_follows;
  }
  if (!cached) {
    int ret = avcodec_open2 (*ctx, codec, NULL);

    if (ret < 0)
      return ret;
  } else {
    avcodec_free_context (ctx);
    *ctx = cached;
    cached->opaque = s;
  }
  /* keyed decoders open at once size the device's cache */
  if (s->keyed && !s->cache_counted) {
    gst_avhw_codec_cache_count_open (s->stream->device, 1);
    s->cache_counted = TRUE;
  }
  return 0;
}

/* Opens @codec; with @hw on the device; a kept decoder where the cache has
 * one. */
static gboolean
try_open (GstAvhwDecSession * s, const AVCodec * codec, gboolean hw,
    GString * why)
{
  GstAvhwDecStream *st = s->stream;
  AVCodecContext *ctx = new_context (s, codec, hw);
  char err[AV_ERROR_MAX_STRING_SIZE];
  gboolean automatic = s->threads < 0 && !st->threads, kept = FALSE;
  guint others;
  int ret;

  if (!ctx) {
    ret = AVERROR (ENOMEM);
    goto failed;
  }
  if (hw) {
    /* counted from here (decoders opening at the same time see each
     * other); uncounted again if this one does not open */
    hw_uncount (s);
    s->counted = g_strdup (devname (s));
    others = hw_users_change (s->counted, 1);
    ctx->thread_count = hw_frame_threads (s, codec, s->threads >= 0 ?
        s->threads : st->threads ? st->threads : others ? 1 :
        hw_auto_threads (codec->id));
  } else {
    ctx->thread_count = s->threads >= 0 ? s->threads : st->threads;
  }
  if (automatic && st->live) {
    /* Frame threads add a frame of latency each; live decoding keeps the
     * streaming thread (software: slice threads only). */
    ctx->thread_count = hw ? 1 : 0;
    ctx->thread_type = FF_THREAD_SLICE;
  }
  ret = take_or_open (s, &ctx, codec, hw, &kept);
failed:
  if (ret < 0) {
    hw_uncount (s);
    s->keyed = FALSE;
    g_string_append_printf (why, "%s%s: %s", why->len ? "; " : "",
        codec->name, av_make_error_string (err, sizeof (err), ret));
    avcodec_free_context (&ctx);
    return FALSE;
  }
  install (s, ctx, codec, hw);
  /* a hardware decoder that is a hwaccel may still go to software at its
   * first picture (get_format()); a wrapper (h264_cuvid) is hardware */
  set_active (s, codec, hw);
  GST_DEBUG_OBJECT (st->element, "%d thread(s), type 0x%x", ctx->thread_count,
      ctx->active_thread_type);
  GST_INFO_OBJECT (st->element, "%s %s decoder %s on %s", kept ? "reusing" :
      "opened", hw ? "hardware" : "software", codec->name, devname (s));
  return TRUE;
}

/* "h264, h264_cuvid, ...": every FFmpeg decoder of @codec_id. */
static gchar *
decoder_names (enum AVCodecID codec_id)
{
  GString *names = g_string_new (NULL);
  const AVCodec *c;
  void *it = NULL;

  while ((c = av_codec_iterate (&it)))
    if (c->id == codec_id && av_codec_is_decoder (c))
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", c->name);
  return g_string_free (names, FALSE);
}

/* The decoder named by the decoder property, opened; FALSE once an error
 * was posted. */
static gboolean
open_forced (GstAvhwDecSession * s, enum AVCodecID codec_id, GString * why)
{
  GstAvhwDecStream *st = s->stream;
  const AVCodec *c = avcodec_find_decoder_by_name (st->decoder_name);
  gchar *names;

  if (c && c->id == codec_id)
    return try_open (s, c, TRUE, why);
  names = decoder_names (codec_id);
  if (!c)
    GST_ELEMENT_ERROR (st->element, STREAM, CODEC_NOT_FOUND,
        ("decoder=%s: FFmpeg has no such decoder; %s decoders here: %s "
            "(or leave decoder empty to let device %s choose).",
            st->decoder_name, avcodec_get_name (codec_id), names,
            devname (s)), ("stream is %s", avcodec_get_name (codec_id)));
  else
    GST_ELEMENT_ERROR (st->element, STREAM, CODEC_NOT_FOUND,
        ("decoder=%s decodes %s, the stream is %s: force a %s decoder "
            "(%s) or leave decoder empty.", st->decoder_name,
            avcodec_get_name (c->id), avcodec_get_name (codec_id),
            avcodec_get_name (codec_id), names), (NULL));
  g_free (names);
  return FALSE;
}

/* A decoder for @codec_id into @s, as gst_avhw_dec_session_open() says;
 * FALSE once an error was posted. */
static gboolean
open_decoder (GstAvhwDecSession * s, enum AVCodecID codec_id)
{
  GstAvhwDecStream *st = s->stream;
  GstAvhwBackend *backend = gst_avhw_device_get_backend (st->device);
  GString *why = g_string_new (NULL);
  gboolean ok = FALSE, forced = st->decoder_name != NULL;
  GPtrArray *cands;
  guint i;

  s->hw_pix_fmt = gst_avhw_backend_get_hw_pix_fmt (backend);
  if (forced && !s->software) {
    ok = open_forced (s, codec_id, why);
    if (!ok && !why->len) {
      g_string_free (why, TRUE);
      return FALSE;
    }
  } else if (s->software) {
    g_string_append_printf (why, "%s: its hardware decoder cannot go on "
        "with this stream", devname (s));
  } else {
    gchar *reason = NULL;

    /* The driver's own answer first: no candidate is tried on a device that
     * lacks the codec (AV1 on an H200). */
    if (gst_avhw_backend_device_decodes (backend,
            gst_avhw_device_get_index (st->device), codec_id, &reason)) {
      cands = gst_avhw_backend_get_decoders (backend, codec_id);
      for (i = 0; i < cands->len && !ok; i++)
        ok = try_open (s, g_ptr_array_index (cands, i), TRUE, why);
      g_ptr_array_unref (cands);
    } else {
      g_string_append_printf (why, "%s: %s", devname (s), reason);
    }
    g_free (reason);
  }

  if (!ok && st->fallback && (!forced || s->software)) {
    const AVCodec *sw = avcodec_find_decoder (codec_id);

    if (!s->software)
      GST_ELEMENT_WARNING (st->element, STREAM, CODEC_NOT_FOUND,
          ("No hardware %s decoder for device %s; decoding in software.",
              avcodec_get_name (codec_id), devname (s)), ("%s", why->str));
    g_atomic_int_set (&st->warned_software, 1);
    ok = sw && try_open (s, sw, FALSE, why);
  }
  if (!ok)
    GST_ELEMENT_ERROR (st->element, STREAM, CODEC_NOT_FOUND,
        ("No %s decoder for device %s%s.", avcodec_get_name (codec_id),
            devname (s), st->fallback || forced ? "" :
            " (fallback=false): set fallback=true to decode in software, or "
            "pick a device that decodes it in hardware (gst-avhw-info lists "
            "them)"), ("%s", why->str));
  g_string_free (why, TRUE);
  return ok;
}

static GstAvhwDecSession *
session_new (GstAvhwDecStream * stream, gint threads)
{
  GstAvhwDecSession *s = g_new0 (GstAvhwDecSession, 1);

  s->stream = stream;
  s->threads = threads;
  g_mutex_init (&s->lock);
  gst_avhw_dec_replay_init (&s->replay);
  s->emitted = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      NULL);
  s->out_before = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
      NULL);
  return s;
}

static void
session_free (GstAvhwDecSession * s)
{
  g_ptr_array_unref (s->replay.packets);
  g_hash_table_unref (s->emitted);
  g_hash_table_unref (s->out_before);
  g_mutex_clear (&s->lock);
  g_free (s);
}

GstAvhwDecSession *
gst_avhw_dec_session_open (GstAvhwDecStream * stream, enum AVCodecID codec_id,
    gint threads, gboolean software)
{
  GstAvhwDecSession *s = session_new (stream, threads);

  s->software = software;
  if (!open_decoder (s, codec_id)) {
    session_free (s);
    return NULL;
  }
  return s;
}

GstAvhwDecSession *
gst_avhw_dec_session_open_as (GstAvhwDecStream * stream, const AVCodec * codec,
    gboolean hw, gint threads)
{
  GstAvhwDecSession *s = session_new (stream, threads);
  AVCodecContext *ctx = new_context (s, codec, hw);
  gboolean kept = FALSE;

  s->hw_pix_fmt = gst_avhw_backend_get_hw_pix_fmt
      (gst_avhw_device_get_backend (stream->device));
  if (ctx)
    ctx->thread_count = hw ? hw_frame_threads (s, codec, threads) : threads;
  /* kept by the cache like the first session's decoder */
  if (!ctx || take_or_open (s, &ctx, codec, hw, &kept) < 0) {
    avcodec_free_context (&ctx);
    session_free (s);
    return NULL;
  }
  install (s, ctx, codec, hw);
  GST_DEBUG_OBJECT (stream->element, "%s session %s %s", kept ? "reusing" :
      "opened", hw ? "hardware" : "software", codec->name);
  return s;
}

/* Its decoder out: to the cache (when @keep), abandoned (failed), freed. */
static void
close_decoder (GstAvhwDecSession * s, gboolean keep)
{
  AVCodecContext *ctx;

  g_mutex_lock (&s->lock);
  ctx = s->ctx;
  s->ctx = NULL;
  g_mutex_unlock (&s->lock);
  hw_uncount (s);
  keep = keep && s->keyed && !s->damaged && !s->failed;
  if (s->reinit) {
    /* its surfaces were made for this stream's sequence */
    s->key.dpb_refs = s->want_refs;
    s->key.dpb_reorder = s->want_reorder;
  }
  if (s->failed) {
    gst_avhw_dec_fail_abandon (&ctx);
  } else if (ctx) {
    /* The device's decoder cache keeps it for the next stream, or frees it
     * (gstavhwcodeccache.c); kept with none of this stream's frames in it.
     * A joined one may still hold join frames, which the next session
     * drops. */
    if (keep && !s->joined)
      avcodec_flush_buffers (ctx);
    gst_avhw_device_give_decoder (s->stream->device, keep ? &s->key : NULL,
        ctx);
  }
  if (s->cache_counted)
    gst_avhw_codec_cache_count_open (s->stream->device, -1);
  s->cache_counted = FALSE;
  s->keyed = FALSE;
  av_packet_free (&s->join_idr);
  s->failed = s->damaged = s->join = s->joined = FALSE;
  s->failed_call = NULL;
}

void
gst_avhw_dec_session_close (GstAvhwDecSession * s)
{
  if (!s)
    return;
  close_decoder (s, TRUE);
  session_free (s);
}

/* ---------------------------------------------------------------- decode */

typedef struct
{
  GstAvhwDecSession *s;
  const GstAvhwDecSessionOut *out;
  gpointer user_data;
  GstFlowReturn ret;
} Take;

static void
note_failure (GstAvhwDecSession * s, const gchar * call, int error)
{
  if (!s->failed) {
    s->failed_call = call;
    s->failed_error = error;
  }
  s->failed = TRUE;
}

static GstFlowReturn
stream_fault (Take * t, const gchar * call, int error, gint64 number)
{
  GstAvhwDecFault f = { GST_AVHW_DEC_FAULT_STREAM, call, error, number,
    t->s->codec->name
  };

  t->s->damaged = TRUE;
  return t->out->fault (t->user_data, &f);
}

/* gst_avhw_dec_receive()'s callback: one frame (or error) out. */
static gboolean
take (AVFrame * frame, int error, gpointer user_data)
{
  Take *t = user_data;
  GstAvhwDecSession *s = t->s;
  gint64 pts;

  if (!frame) {
    if (s->can_fail && gst_avhw_dec_fail_is_device_error (error)) {
      note_failure (s, "avcodec_receive_frame", error);
      return FALSE;
    }
    t->ret = stream_fault (t, "avcodec_receive_frame", error, -1);
    return t->ret == GST_FLOW_OK;
  }
  pts = frame->pts;
  /* concealed damage: still output (the element says so), not kept */
  if ((frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags)
    s->damaged = TRUE;
  if (g_hash_table_contains (s->out_before, &pts)) {
    GST_LOG_OBJECT (s->stream->element, "frame %" G_GINT64_FORMAT " again: "
        "it was out before the hardware decoder failed", pts);
    av_frame_free (&frame);
    return TRUE;
  }
  if (s->replay.packets->len > 0) {
    gint64 *k = g_new (gint64, 1);

    *k = pts;
    g_hash_table_add (s->emitted, k);
  }
  t->ret = t->out->frame (t->user_data, frame, frame->hw_frames_ctx != NULL);
  return t->ret == GST_FLOW_OK;
}

static void
receive (Take * t)
{
  gst_avhw_dec_receive (t->s->ctx, take, t);
}

/* @pkt (unreffed) into the decoder, and what it has out. */
static GstFlowReturn
send_one (GstAvhwDecSession * s, AVPacket * pkt, gint64 number,
    const GstAvhwDecSessionOut * out, gpointer user_data)
{
  Take t = { s, out, user_data, GST_FLOW_OK };
  int r;

  /* The test hook fails hardware decoders only, not their replacement. */
  for (;;) {
    r = avcodec_send_packet (s->ctx, pkt);
    if (!s->software)
      r = gst_avhw_dec_fail_inject (GST_OBJECT (s->stream->element), number, r);
    if (r != AVERROR (EAGAIN))
      break;
    /* The decoder is full: take frames out, then send again. */
    receive (&t);
    if (t.ret != GST_FLOW_OK || s->failed)
      break;
  }
  av_packet_unref (pkt);
  if (!s->failed && s->can_fail && gst_avhw_dec_fail_is_device_error (r))
    note_failure (s, "avcodec_send_packet", r);
  if (s->failed || t.ret != GST_FLOW_OK)
    return t.ret;
  if (r < 0 && r != AVERROR_EOF) {
    t.ret = stream_fault (&t, "avcodec_send_packet", r, number);
    if (t.ret != GST_FLOW_OK)
      return t.ret;
  }
  receive (&t);
  return t.ret;
}

/* The emitted set becomes what is not to come out again, once the input
 * it came from is decoded anew. */
static void
remember_emitted (GstAvhwDecSession * s)
{
  GHashTableIter it;
  gpointer k;

  g_hash_table_iter_init (&it, s->emitted);
  while (g_hash_table_iter_next (&it, &k, NULL)) {
    g_hash_table_iter_steal (&it);
    g_hash_table_add (s->out_before, k);
  }
}

static void
forget_emitted (GstAvhwDecSession * s)
{
  g_hash_table_remove_all (s->emitted);
}

static void
forget_out_before (GstAvhwDecSession * s)
{
  g_hash_table_remove_all (s->out_before);
}

/* The hardware decoder failed (@fields: met field pictures it decodes
 * wrongly) with input frame @number: software takes over from the last key
 * frame, or a fault where fallback is off. */
static GstFlowReturn
take_over (GstAvhwDecSession * s, gboolean fields, gint64 number,
    const GstAvhwDecSessionOut * out, gpointer user_data)
{
  GstAvhwDecStream *st = s->stream;
  enum AVCodecID id = s->codec->id;
  /* FFmpeg's static AVCodec: still there once the decoder is closed */
  const gchar *name = s->codec->name;
  char err[AV_ERROR_MAX_STRING_SIZE];
  GPtrArray *packets;
  GstFlowReturn ret = GST_FLOW_OK;
  guint i;

  if (!st->fallback || st->decoder_name) {
    GstAvhwDecFault f = { fields ? GST_AVHW_DEC_FAULT_FIELDS :
          GST_AVHW_DEC_FAULT_DEVICE, s->failed_call, s->failed_error, -1, name
    };

    s->dead = TRUE;
    out->lost (user_data, G_MININT64, G_MAXINT64);
    return out->fault (user_data, &f);
  }
  packets = gst_avhw_dec_replay_take (&s->replay);
  if (fields) {
    GST_ELEMENT_WARNING (st->element, STREAM, CODEC_NOT_FOUND,
        ("Device %s cannot decode the field pictures of this %s stream in "
            "hardware; decoding it in software from its %s key frame.",
            devname (s), name, packets ? "last" : "next"), ("%s",
            st->fields_why));
  } else {
    av_make_error_string (err, sizeof (err), s->failed_error);
    GST_ELEMENT_WARNING (st->element, STREAM, DECODE,
        ("The hardware %s decoder of device %s failed (%s: %s); decoding the "
            "rest of the stream in software, from its %s key frame.", name,
            devname (s), s->failed_call, err, packets ? "last" : "next"),
        (NULL));
  }
  g_atomic_int_inc (st->handovers);
  close_decoder (s, TRUE);
  remember_emitted (s);
  /* what the failed decoder held before the key frame, or without a
   * replay everything up to @number: software starts at the next key
   * frame */
  out->lost (user_data, G_MININT64, packets ?
      ((AVPacket *) packets->pdata[0])->pts - 1 : number);
  s->software = TRUE;
  if (!open_decoder (s, id)) {
    s->dead = TRUE;
    g_clear_pointer (&packets, g_ptr_array_unref);
    return GST_FLOW_ERROR;
  }
  /* a kept software decoder may hold join frames: the replay starts at a
   * key frame, not necessarily a cut */
  if (s->joined)
    avcodec_flush_buffers (s->ctx);
  s->joined = FALSE;
  if (!packets) {
    s->wait_key = TRUE;
    return GST_FLOW_OK;
  }
  GST_INFO_OBJECT (st->element, "decoding input frames %" G_GINT64_FORMAT
      "-%" G_GINT64_FORMAT " again", ((AVPacket *) packets->pdata[0])->pts,
      ((AVPacket *) packets->pdata[packets->len - 1])->pts);
  for (i = 0; i < packets->len && ret == GST_FLOW_OK; i++) {
    AVPacket *p = g_ptr_array_index (packets, i);

    ret = send_one (s, p, p->pts, out, user_data);
  }
  g_ptr_array_unref (packets);
  return ret;
}

/* Whether field pictures go to software (the device decodes them
 * wrongly, gstavhwdech264.c). */
static gboolean
st_fields (GstAvhwDecSession * s)
{
  return s->stream->fields_why && s->opened_hw && !s->software;
}

/* The last IDR of the stream, for a join; and after a join, a flush
 * unless the packet is a cut point. */
static void
before_send (GstAvhwDecSession * s, const GstAvhwDecSend * info)
{
  if (s->join && info->cut)
    av_packet_free (&s->join_idr);
  /* a field IDR would leave half a picture behind: drain and flush */
  if (s->join && info->idr)
    s->join_idr = av_packet_clone (info->idr);
  if (s->joined && !info->cut) {
    GST_DEBUG_OBJECT (s->stream->element, "no cut point after a join: "
        "flushing first");
    avcodec_flush_buffers (s->ctx);
  }
  s->joined = FALSE;
}

/* A kept decoder's first packet of this stream brings the stream's codec
 * data (gstavhwcodeccache.c: extradata_follows; gstavhwdecparamsets.c). */
static void
give_extradata (GstAvhwDecSession * s, AVPacket * pkt)
{
  GstBuffer *cd = s->stream->codec_data;
  GstMapInfo map;
  gsize inband;

  s->send_extradata = FALSE;
  if (!cd || !gst_buffer_map (cd, &map, GST_MAP_READ))
    return;
  inband = gst_avhw_dec_param_sets_give (pkt, map.data, map.size,
      s->ctx->codec_id);
  gst_buffer_unmap (cd, &map);
  GST_DEBUG_OBJECT (s->stream->element, "kept decoder: this stream's codec "
      "data (%" G_GSIZE_FORMAT " bytes) with its first packet, %"
      G_GSIZE_FORMAT " bytes of its parameter sets in it", map.size, inband);
}

GstFlowReturn
gst_avhw_dec_session_send (GstAvhwDecSession * s, AVPacket * pkt,
    const GstAvhwDecSend * info, const GstAvhwDecSessionOut * out,
    gpointer user_data)
{
  GstFlowReturn ret;

  if (s->dead) {
    av_packet_unref (pkt);
    return GST_FLOW_ERROR;
  }
  /* the software decoder after a failed hardware one starts at a key frame */
  if (s->wait_key && !(pkt->flags & AV_PKT_FLAG_KEY)) {
    out->lost (user_data, info->number, info->number);
    av_packet_unref (pkt);
    return GST_FLOW_OK;
  }
  s->wait_key = FALSE;
  before_send (s, info);
  if (s->send_extradata)
    give_extradata (s, pkt);
  /* kept where a failure would be the device's: take_over() replays it */
  if (s->can_fail) {
    if (pkt->flags & AV_PKT_FLAG_KEY)
      forget_emitted (s);
    gst_avhw_dec_replay_keep (&s->replay, pkt);
  }
  if (st_fields (s) && info->field) {
    av_packet_unref (pkt);
    return take_over (s, TRUE, info->number, out, user_data);
  }
  ret = send_one (s, pkt, info->number, out, user_data);
  if (s->failed)
    return take_over (s, FALSE, info->number, out, user_data);
  return ret;
}

GstFlowReturn
gst_avhw_dec_session_end (GstAvhwDecSession * s, gboolean join,
    const GstAvhwDecSessionOut * out, gpointer user_data)
{
  Take t = { s, out, user_data, GST_FLOW_OK };
  GstFlowReturn ret;

  if (s->dead || !s->ctx)
    return GST_FLOW_OK;
  s->joined = gst_avhw_dec_end_stream (s->ctx, join && s->join ?
      s->join_idr : NULL, take, &t);
  if (s->joined)
    g_atomic_int_inc (s->stream->joins);
  if (!s->failed)
    return t.ret;
  /* failed while ending: software decodes the rest again, and ends */
  ret = take_over (s, FALSE, G_MAXINT64, out, user_data);
  if (ret != GST_FLOW_OK || s->dead)
    return ret;
  s->joined = gst_avhw_dec_end_stream (s->ctx, NULL, take, &t);
  return t.ret;
}

void
gst_avhw_dec_session_flush (GstAvhwDecSession * s)
{
  if (s->ctx && !s->failed)
    avcodec_flush_buffers (s->ctx);
  s->joined = FALSE;
  gst_avhw_dec_replay_clear (&s->replay);
  forget_emitted (s);
  forget_out_before (s);
}

guint
gst_avhw_dec_session_get_delay (GstAvhwDecSession * s)
{
  guint delay = 0;

  g_mutex_lock (&s->lock);
  if (s->ctx) {
    delay = MAX (s->ctx->has_b_frames, 0);
    if (s->ctx->active_thread_type & FF_THREAD_FRAME)
      delay += MAX (s->ctx->thread_count - 1, 0);
  }
  g_mutex_unlock (&s->lock);
  return delay;
}

const AVCodec *
gst_avhw_dec_session_get_codec (GstAvhwDecSession * s)
{
  return s->codec;
}

gboolean
gst_avhw_dec_session_is_hw (GstAvhwDecSession * s)
{
  return s->ctx && s->ctx->hw_device_ctx != NULL;
}

gboolean
gst_avhw_dec_session_joins (GstAvhwDecSession * s)
{
  return s->join;
}

gboolean
gst_avhw_dec_session_keepable (GstAvhwDecSession * s)
{
  return s->keyed && !s->damaged && !s->failed && !s->dead;
}
