/* gst-avhw: avhwenc settings -> FFmpeg encoder options
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's properties mean the same on every encoder; FFmpeg's
 * encoders spell them differently. This file is the one place that knows
 * the spellings: AVCodecContext fields where FFmpeg has generic ones
 * (bitrate, GOP, B-frames), and per encoder family the private AVOptions
 * (libx264/libx265: qp, preset, tune; *_nvenc: rc, qp, preset, tune;
 * *_vaapi: rc_mode, qp). A setting an encoder has no option for is an error
 * that names the encoder and the setting, never silently dropped.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <libavutil/dict.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include "gstavhwencconfig.h"

GST_DEBUG_CATEGORY_STATIC (gst_avhw_enc_config_debug);
#define GST_CAT_DEFAULT gst_avhw_enc_config_debug

typedef enum
{
  FAMILY_GENERIC,
  FAMILY_X264,
  FAMILY_X265,
  FAMILY_NVENC,
  FAMILY_VAAPI,
} Family;

GType
gst_avhw_enc_rate_control_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_AVHW_ENC_RATE_CONTROL_DEFAULT, "The encoder's default", "default"},
    {GST_AVHW_ENC_RATE_CONTROL_CQP, "Constant quantizer (qp)", "cqp"},
    {GST_AVHW_ENC_RATE_CONTROL_CBR, "Constant bitrate (bitrate)", "cbr"},
    {GST_AVHW_ENC_RATE_CONTROL_VBR,
        "Variable bitrate (bitrate, peak max-bitrate)", "vbr"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstAvhwEncRateControl", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

void
gst_avhw_enc_settings_clear (GstAvhwEncSettings * s)
{
  g_clear_pointer (&s->preset, g_free);
  g_clear_pointer (&s->tune, g_free);
  g_clear_pointer (&s->options, g_free);
  g_clear_pointer (&s->profile, g_free);
}

static Family
family_of (const AVCodec * codec)
{
  if (g_str_has_prefix (codec->name, "libx264"))
    return FAMILY_X264;
  if (g_str_equal (codec->name, "libx265"))
    return FAMILY_X265;
  if (g_str_has_suffix (codec->name, "_nvenc"))
    return FAMILY_NVENC;
  if (g_str_has_suffix (codec->name, "_vaapi"))
    return FAMILY_VAAPI;
  return FAMILY_GENERIC;
}

/* ---------------------------------------------------------------- options */

/* Sets @key on the encoder's private options, then (unless @priv_only) on
 * the AVCodecContext's generic ones. @what names the property the setting
 * came from, for the message. */
static gboolean
set_option (AVCodecContext * ctx, const gchar * what, const gchar * key,
    const gchar * value, gboolean priv_only, GError ** error)
{
  char err[AV_ERROR_MAX_STRING_SIZE];
  int r = AVERROR_OPTION_NOT_FOUND;

  if (ctx->priv_data)
    r = av_opt_set (ctx->priv_data, key, value, 0);
  if (r == AVERROR_OPTION_NOT_FOUND && !priv_only)
    r = av_opt_set (ctx, key, value, 0);
  if (r == AVERROR_OPTION_NOT_FOUND) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "%s: encoder %s has no option \"%s\" (asked for %s=%s)", what,
        ctx->codec->name, key, key, value);
    return FALSE;
  }
  if (r < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "%s: invalid value \"%s\" for option \"%s\" of encoder %s (%s)",
        what, value, key, ctx->codec->name,
        av_make_error_string (err, sizeof (err), r));
    return FALSE;
  }
  GST_DEBUG ("%s: %s=%s", ctx->codec->name, key, value);
  return TRUE;
}

static gboolean
set_option_int (AVCodecContext * ctx, const gchar * what, const gchar * key,
    gint value, GError ** error)
{
  gchar s[16];

  g_snprintf (s, sizeof (s), "%d", value);
  return set_option (ctx, what, key, s, TRUE, error);
}

static gboolean
has_priv_option (AVCodecContext * ctx, const gchar * key)
{
  return ctx->priv_data && av_opt_find (ctx->priv_data, key, NULL, 0, 0);
}

/* Splits "key=value,key2=value2" ("\," is a comma inside a value) into
 * keys and values. */
static gboolean
parse_options (const gchar * options, GPtrArray * keys, GPtrArray * values,
    GError ** error)
{
  GString *item = g_string_new (NULL);
  const gchar *p = options;
  gboolean ok = TRUE;

  while (ok) {
    if (*p == '\\' && p[1] == ',') {
      g_string_append_c (item, ',');
      p += 2;
      continue;
    }
    if (*p && *p != ',') {
      g_string_append_c (item, *p++);
      continue;
    }
    g_strstrip (item->str);
    item->len = strlen (item->str);
    if (item->len > 0) {
      gchar *eq = strchr (item->str, '=');
      if (!eq || eq == item->str) {
        g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
            "options: \"%s\" is not key=value", item->str);
        ok = FALSE;
        break;
      }
      g_ptr_array_add (keys, g_strstrip (g_strndup (item->str,
                  eq - item->str)));
      g_ptr_array_add (values, g_strdup (eq + 1));
    }
    g_string_truncate (item, 0);
    if (!*p)
      break;
    p++;
  }
  g_string_free (item, TRUE);
  return ok;
}

/**
 * gst_avhw_enc_check_options:
 *
 * Checks the syntax of the `options` property; the keys and values are
 * checked against the encoder when it opens.
 */
gboolean
gst_avhw_enc_check_options (const gchar * options, GError ** error)
{
  GPtrArray *k = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *v = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = !options || parse_options (options, k, v, error);

  g_ptr_array_unref (k);
  g_ptr_array_unref (v);
  return ok;
}

static gboolean
apply_options (AVCodecContext * ctx, const gchar * options, GError ** error)
{
  GPtrArray *k = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *v = g_ptr_array_new_with_free_func (g_free);
  gboolean ok = parse_options (options, k, v, error);
  guint i;

  for (i = 0; ok && i < k->len; i++)
    ok = set_option (ctx, "options", g_ptr_array_index (k, i),
        g_ptr_array_index (v, i), FALSE, error);
  g_ptr_array_unref (k);
  g_ptr_array_unref (v);
  return ok;
}

/* ---------------------------------------------------------------- rate */

/**
 * gst_avhw_enc_set_bitrate:
 *
 * Sets the AVCodecContext bitrate fields from @s: `bit_rate`, and the VBV
 * (`rc_max_rate`, `rc_buffer_size`: one second at the peak rate) for cbr
 * and for a `max-bitrate`. Used at open and for live changes.
 */
void
gst_avhw_enc_set_bitrate (AVCodecContext * ctx, const GstAvhwEncSettings * s)
{
  gint64 b = (gint64) s->bitrate * 1000, max = (gint64) s->max_bitrate * 1000;

  if (s->rate_control == GST_AVHW_ENC_RATE_CONTROL_CQP)
    return;
  ctx->bit_rate = b;
  if (s->rate_control == GST_AVHW_ENC_RATE_CONTROL_CBR) {
    ctx->rc_max_rate = b;
    ctx->rc_min_rate = family_of (ctx->codec) == FAMILY_X264 ? 0 : b;
    ctx->rc_buffer_size = b;
  } else if (max > 0) {
    ctx->rc_max_rate = MAX (max, b);
    ctx->rc_buffer_size = MAX (max, b);
  }
}

/* H.264 and H.265 define QP 0 to 51 at 8 bits, 6 more per extra bit;
 * their encoders clamp anything above silently. TRUE when @qp fits, or
 * the codec or the bit depth is not known here. */
static gboolean
qp_in_range (AVCodecContext * ctx, gint qp, GError ** error)
{
  enum AVPixelFormat fmt = ctx->pix_fmt;
  const AVPixFmtDescriptor *d = av_pix_fmt_desc_get (fmt);
  gint max;

  if (ctx->codec->id != AV_CODEC_ID_H264 && ctx->codec->id != AV_CODEC_ID_HEVC)
    return TRUE;
  if (d && (d->flags & AV_PIX_FMT_FLAG_HWACCEL))
    d = av_pix_fmt_desc_get (ctx->sw_pix_fmt);
  if (!d)
    return TRUE;
  max = 51 + 6 * MAX (d->comp[0].depth - 8, 0);
  if (qp <= max)
    return TRUE;
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
      "qp=%d is out of range for %s at %d bits (0 to %d)", qp,
      avcodec_get_name (ctx->codec->id), d->comp[0].depth, max);
  return FALSE;
}

static gboolean
apply_rate_control (AVCodecContext * ctx, const GstAvhwEncSettings * s,
    GError ** error)
{
  Family family = family_of (ctx->codec);
  const gchar *name = ctx->codec->name;

  switch (s->rate_control) {
    case GST_AVHW_ENC_RATE_CONTROL_DEFAULT:
      if (s->qp >= 0)
        GST_WARNING ("qp=%d is only used with rate-control=cqp", s->qp);
      break;
    case GST_AVHW_ENC_RATE_CONTROL_CQP:
      if (s->qp < 0) {
        g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
            "rate-control=cqp needs qp (e.g. qp=23)");
        return FALSE;
      }
      if (s->bitrate > 0)
        GST_WARNING ("bitrate=%u is not used with rate-control=cqp",
            s->bitrate);
      if (family == FAMILY_NVENC
          && !set_option (ctx, "rate-control", "rc", "constqp", TRUE, error))
        return FALSE;
      if (family == FAMILY_VAAPI
          && !set_option (ctx, "rate-control", "rc_mode", "CQP", TRUE, error))
        return FALSE;
      if (!has_priv_option (ctx, "qp")) {
        g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
            "rate-control=cqp: encoder %s has no constant-QP option (\"qp\"); "
            "use options= with its own settings", name);
        return FALSE;
      }
      if (!qp_in_range (ctx, s->qp, error))
        return FALSE;
      return set_option_int (ctx, "qp", "qp", s->qp, error);
    case GST_AVHW_ENC_RATE_CONTROL_CBR:
    case GST_AVHW_ENC_RATE_CONTROL_VBR:{
      gboolean cbr = s->rate_control == GST_AVHW_ENC_RATE_CONTROL_CBR;

      if (s->bitrate == 0) {
        g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
            "rate-control=%s needs bitrate (kbit/s)", cbr ? "cbr" : "vbr");
        return FALSE;
      }
      if (family == FAMILY_NVENC && !set_option (ctx, "rate-control", "rc",
              cbr ? "cbr" : "vbr", TRUE, error))
        return FALSE;
      if (family == FAMILY_VAAPI && !set_option (ctx, "rate-control",
              "rc_mode", cbr ? "CBR" : "VBR", TRUE, error))
        return FALSE;
      /* x264 and x265 are CBR when the VBV max rate equals the bitrate.
       * x264's nal-hrd=cbr (HRD signalling and filler) is left to options=:
       * x264 cannot change the bitrate of such a stream while running. */
      break;
    }
  }
  gst_avhw_enc_set_bitrate (ctx, s);
  return TRUE;
}

/* ---------------------------------------------------------------- profile */

/* GStreamer profile names -> the names FFmpeg encoders take for their
 * "profile" option, tried in order (libx264, nvenc and vaapi differ). */
static const struct
{
  const gchar *gst;
  const gchar *av[3];
} profiles[] = {
  {"constrained-baseline", {"constrained_baseline", "baseline", NULL}},
  {"baseline", {"baseline", NULL}},
  {"main", {"main", NULL}},
  {"high", {"high", NULL}},
  {"high-10", {"high10", NULL}},
  {"high-4:2:2", {"high422", NULL}},
  {"high-4:4:4", {"high444", "high444p", NULL}},
  {"main-10", {"main10", NULL}},
  {"main-444", {"main444-8", "rext", NULL}},
  {"main-422-10", {"main422-10", "rext", NULL}},
  {"main-444-10", {"main444-10", "rext", NULL}},
};

static void
apply_profile (AVCodecContext * ctx, const gchar * profile)
{
  guint i, j;

  if (!has_priv_option (ctx, "profile")) {
    GST_INFO ("%s has no profile option; downstream asks for %s",
        ctx->codec->name, profile);
    return;
  }
  for (i = 0; i < G_N_ELEMENTS (profiles); i++) {
    if (!g_str_equal (profiles[i].gst, profile))
      continue;
    for (j = 0; j < G_N_ELEMENTS (profiles[i].av) && profiles[i].av[j]; j++)
      if (av_opt_set (ctx->priv_data, "profile", profiles[i].av[j], 0) >= 0) {
        GST_INFO ("%s: profile %s for downstream's %s", ctx->codec->name,
            profiles[i].av[j], profile);
        return;
      }
  }
  GST_INFO ("%s: no profile option value for downstream's %s",
      ctx->codec->name, profile);
}

/* ---------------------------------------------------------------- quiet */

/* Whether FFmpeg's log (the avhw-ffmpeg category) is wanted at INFO or
 * more: then the encoder libraries that print to stderr themselves are
 * left to say what they say at their default level. */
static gboolean
ffmpeg_log_loud (void)
{
  /* not GST_DEBUG_CATEGORY_GET: it falls back to GST_CAT_DEFAULT */
  GstDebugCategory *cat = _gst_debug_get_category ("avhw-ffmpeg");

  return cat && gst_debug_category_get_threshold (cat) >= GST_LEVEL_INFO;
}

/* SVT-AV1 prints to stderr itself, not through av_log (16 lines a stream
 * at its default level, info), and takes its level from the SVT_LOG
 * environment variable only (-1 all ... 0 fatal, 1 error, 2 warn, 3 info,
 * 4 debug): read at every svt_av1_enc_init_handle() up to 3.x (Debian 12
 * ships 1.4, Debian 13 2.3), once, at the first, from 4.0 (whose
 * svt_av1_set_log_callback() could take it into the debug log instead).
 * So before libsvtav1 opens, unless the user set SVT_LOG or SVT_LOG_FILE
 * (then SVT-AV1 does as they asked), avhwenc sets SVT_LOG=0 (fatal errors
 * only), or 3 while avhw-ffmpeg is at INFO or more. Setting the
 * environment is process-wide (and seen by child processes); it is done
 * under a lock, only here, only for libsvtav1, and stops if something
 * else changes the variable meanwhile. */
static void
quiet_svt_av1 (gboolean loud)
{
  static GMutex lock;
  static gboolean checked, ours;
  static const gchar *set;      /* what we set last, or NULL */
  const gchar *now, *want;

  g_mutex_lock (&lock);
  now = g_getenv ("SVT_LOG");
  if (!checked) {
    ours = !now && !g_getenv ("SVT_LOG_FILE");
    checked = TRUE;
  } else if (ours && g_strcmp0 (now, set) != 0) {
    GST_INFO ("SVT_LOG changed to %s by someone else: left alone",
        GST_STR_NULL (now));
    ours = FALSE;
  }
  /* unset and loud: SVT-AV1's default is what we would set */
  want = loud ? (now ? "3" : NULL) : "0";
  if (ours && want && g_strcmp0 (now, want) != 0) {
    GST_DEBUG ("SVT_LOG=%s for libsvtav1", want);
    g_setenv ("SVT_LOG", want, TRUE);
    set = want;
  }
  g_mutex_unlock (&lock);
}

/* x265 prints to stderr itself, not through av_log (26 lines a stream at
 * its default level): its log-level is none, or info while avhw-ffmpeg is
 * at INFO or more, unless an x265-params in options gives its own. */
static void
quiet_x265 (AVCodecContext * ctx, gboolean loud)
{
  AVDictionary *params = NULL;

  if (!has_priv_option (ctx, "x265-params")
      || av_opt_get_dict_val (ctx->priv_data, "x265-params", 0, &params) < 0)
    return;
  if (!av_dict_get (params, "log-level", NULL, 0)) {
    av_dict_set (&params, "log-level", loud ? "info" : "none", 0);
    av_opt_set_dict_val (ctx->priv_data, "x265-params", params, 0);
  }
  av_dict_free (&params);
}

/* Encoder libraries that write to stderr themselves: quiet unless FFmpeg's
 * log is wanted (issue 28). libx264, libaom-av1 and librav1e speak through
 * av_log, so through the avhw-ffmpeg category (x264 but for its profile
 * check, which prints "x264 [error]: baseline profile doesn't support
 * 4:4:4" itself before the open fails). */
static void
quiet_libraries (AVCodecContext * ctx)
{
  gboolean loud = ffmpeg_log_loud ();

  if (family_of (ctx->codec) == FAMILY_X265)
    quiet_x265 (ctx, loud);
  else if (g_str_equal (ctx->codec->name, "libsvtav1"))
    quiet_svt_av1 (loud);
}

/**
 * gst_avhw_enc_apply_settings:
 * @ctx: an encoder context, not opened yet
 *
 * Applies @s to @ctx: AVCodecContext fields and the encoder family's
 * AVOptions, then the `options` string last so it can override them;
 * then the log level of the libraries that print to stderr themselves
 * (x265, SVT-AV1), where `options` did not give one.
 *
 * Returns: %FALSE with @error naming the property, key and value the
 *   encoder refuses or lacks
 */
gboolean
gst_avhw_enc_apply_settings (AVCodecContext * ctx,
    const GstAvhwEncSettings * s, GError ** error)
{
  static gsize debug_init = 0;

  if (g_once_init_enter (&debug_init)) {
    GST_DEBUG_CATEGORY_INIT (gst_avhw_enc_config_debug, "avhwencconfig", 0,
        "avhwenc: properties to FFmpeg encoder options");
    g_once_init_leave (&debug_init, 1);
  }
  if (s->gop_size >= 0)
    ctx->gop_size = s->gop_size;
  if (s->b_frames >= 0)
    ctx->max_b_frames = s->b_frames;
  if (!apply_rate_control (ctx, s, error))
    return FALSE;
  if (s->preset && !set_option (ctx, "preset", "preset", s->preset, TRUE,
          error))
    return FALSE;
  if (s->tune && !set_option (ctx, "tune", "tune", s->tune, TRUE, error))
    return FALSE;
  if (s->profile)
    apply_profile (ctx, s->profile);
  /* A forced key unit should be a point a decoder can start from. */
  if (has_priv_option (ctx, "forced-idr"))
    av_opt_set (ctx->priv_data, "forced-idr", "1", 0);
  if (s->options && !apply_options (ctx, s->options, error))
    return FALSE;
  quiet_libraries (ctx);
  return TRUE;
}

/**
 * gst_avhw_enc_can_change_bitrate_live:
 *
 * Whether the open encoder takes a new AVCodecContext.bit_rate between
 * frames: nvenc (dynamic bitrate) when opened with a bitrate; libx264
 * (x264_encoder_reconfig) only with a VBV (cbr, or a max-bitrate) and
 * without NAL HRD, the two cases x264 reconfigures.
 */
gboolean
gst_avhw_enc_can_change_bitrate_live (AVCodecContext * ctx,
    const GstAvhwEncSettings * opened, guint new_bitrate)
{
  Family family = family_of (ctx->codec);

  if (opened->bitrate == 0 || new_bitrate == 0
      || opened->rate_control == GST_AVHW_ENC_RATE_CONTROL_CQP)
    return FALSE;
  if (family == FAMILY_NVENC)
    return TRUE;
  return family == FAMILY_X264
      && (opened->rate_control == GST_AVHW_ENC_RATE_CONTROL_CBR
      || opened->max_bitrate > 0)
      && !(opened->options && strstr (opened->options, "nal-hrd"));
}

/* ---------------------------------------------------------------- codecs */

/**
 * gst_avhw_enc_codec_pix_fmts:
 *
 * Returns: the pixel formats @codec takes, AV_PIX_FMT_NONE terminated, or
 *   %NULL when FFmpeg does not say
 */
const enum AVPixelFormat *
gst_avhw_enc_codec_pix_fmts (const AVCodec * codec)
{
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT (61, 13, 100)
  const void *fmts = NULL;
  int n = 0;

  if (avcodec_get_supported_config (NULL, codec, AV_CODEC_CONFIG_PIX_FORMAT,
          0, &fmts, &n) < 0)
    return NULL;
  return fmts;
#else
  return codec->pix_fmts;
#endif
}

gboolean
gst_avhw_enc_codec_takes (const AVCodec * codec, enum AVPixelFormat fmt)
{
  const enum AVPixelFormat *p = gst_avhw_enc_codec_pix_fmts (codec);

  if (!p)
    return TRUE;
  for (; *p != AV_PIX_FMT_NONE; p++)
    if (*p == fmt)
      return TRUE;
  return FALSE;
}

/**
 * gst_avhw_enc_codec_is_hardware:
 *
 * Whether @codec drives a hardware device (a hardware configuration, or a
 * wrapper flagged AV_CODEC_CAP_HARDWARE).
 */
gboolean
gst_avhw_enc_codec_is_hardware (const AVCodec * codec)
{
  return avcodec_get_hw_config (codec, 0) != NULL
      || (codec->capabilities & AV_CODEC_CAP_HARDWARE);
}

/**
 * gst_avhw_enc_find_encoder:
 *
 * Returns: the FFmpeg encoder called @name if it encodes H.264, H.265 or
 *   AV1, else %NULL with @error saying why
 */
const AVCodec *
gst_avhw_enc_find_encoder (const gchar * name, GError ** error)
{
  const AVCodec *c = avcodec_find_encoder_by_name (name);

  if (!c) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "FFmpeg has no encoder called \"%s\" (list them with "
        "`ffmpeg -encoders`)", name);
    return NULL;
  }
  if (c->id != AV_CODEC_ID_H264 && c->id != AV_CODEC_ID_HEVC
      && c->id != AV_CODEC_ID_AV1) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "encoder \"%s\" encodes %s; avhwenc makes H.264, H.265 and AV1",
        name, avcodec_get_name (c->id));
    return NULL;
  }
  return c;
}

/* Software encoders taken before FFmpeg's first one of their codec:
 * FFmpeg registers libaom-av1 first, which at its defaults encodes about a
 * frame a second at 320x240 on two cores; SVT-AV1 encodes the same ten
 * frames in 0.4 s, rav1e in 1 s. */
static const gchar *const preferred_software[] = { "libsvtav1", "librav1e" };

/**
 * gst_avhw_enc_find_software:
 *
 * Returns: the software encoder to fall back to for @codec_id (to use or
 *   suggest): the first of #preferred_software that FFmpeg has for it, else
 *   FFmpeg's first software encoder of @codec_id, or %NULL
 */
const AVCodec *
gst_avhw_enc_find_software (enum AVCodecID codec_id)
{
  const AVCodec *c;
  void *it = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (preferred_software); i++)
    if ((c = avcodec_find_encoder_by_name (preferred_software[i]))
        && c->id == codec_id)
      return c;
  while ((c = av_codec_iterate (&it)))
    if (c->id == codec_id && av_codec_is_encoder (c)
        && !gst_avhw_enc_codec_is_hardware (c))
      return c;
  return NULL;
}
