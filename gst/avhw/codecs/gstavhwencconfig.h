/* gst-avhw: avhwenc settings -> FFmpeg encoder options
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

/**
 * GstAvhwEncRateControl:
 * @GST_AVHW_ENC_RATE_CONTROL_DEFAULT: the encoder's own default
 * @GST_AVHW_ENC_RATE_CONTROL_CQP: constant quantizer (`qp`)
 * @GST_AVHW_ENC_RATE_CONTROL_CBR: constant bitrate (`bitrate`)
 * @GST_AVHW_ENC_RATE_CONTROL_VBR: variable bitrate (`bitrate`, peak
 *   `max-bitrate`)
 */
typedef enum
{
  GST_AVHW_ENC_RATE_CONTROL_DEFAULT,
  GST_AVHW_ENC_RATE_CONTROL_CQP,
  GST_AVHW_ENC_RATE_CONTROL_CBR,
  GST_AVHW_ENC_RATE_CONTROL_VBR,
} GstAvhwEncRateControl;

#define GST_TYPE_AVHW_ENC_RATE_CONTROL (gst_avhw_enc_rate_control_get_type ())
GType gst_avhw_enc_rate_control_get_type (void);

/* What the element's properties ask of the encoder, copied under the
 * object lock when an encoder is opened. */
typedef struct
{
  guint bitrate;                /* kbit/s, 0: encoder default */
  guint max_bitrate;            /* kbit/s, 0: none */
  GstAvhwEncRateControl rate_control;
  gint qp;                      /* -1: unset */
  gint gop_size;                /* -1: encoder default */
  gint b_frames;                /* -1: encoder default */
  gchar *preset;
  gchar *tune;
  gchar *options;
  gchar *profile;               /* GStreamer profile downstream asks for */
} GstAvhwEncSettings;

void gst_avhw_enc_settings_clear (GstAvhwEncSettings * s);

gboolean gst_avhw_enc_apply_settings (AVCodecContext * ctx,
    const GstAvhwEncSettings * s, GError ** error);

gboolean gst_avhw_enc_check_options (const gchar * options, GError ** error);

gboolean gst_avhw_enc_can_change_bitrate_live (AVCodecContext * ctx,
    const GstAvhwEncSettings * opened, guint new_bitrate);

void gst_avhw_enc_set_bitrate (AVCodecContext * ctx,
    const GstAvhwEncSettings * s);

const enum AVPixelFormat * gst_avhw_enc_codec_pix_fmts (const AVCodec * codec);

gboolean gst_avhw_enc_codec_takes (const AVCodec * codec,
    enum AVPixelFormat fmt);

gboolean gst_avhw_enc_codec_is_hardware (const AVCodec * codec);

const AVCodec * gst_avhw_enc_find_encoder (const gchar * name,
    GError ** error);

const AVCodec * gst_avhw_enc_find_software (enum AVCodecID codec_id);

G_END_DECLS
