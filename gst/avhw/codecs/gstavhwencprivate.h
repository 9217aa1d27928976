/* gst-avhw: avhwenc internals shared by its source files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gstavhwenc.c: the element (properties, caps, GstVideoEncoder vfuncs);
 * gstavhwencopen.c: choosing and opening an FFmpeg encoder;
 * gstavhwencframes.c: frames into the encoder, packets out of it;
 * gstavhwenctimestamps.c: the packets' decode timestamps.
 */
#pragma once

#include "gstavhwenc.h"
#include "gstavhwencconfig.h"
#include "gstavhwenctimestamps.h"
#include "gstavhwelementutils.h"

G_BEGIN_DECLS

/* One category for the element, whichever of its files logs. */
GST_DEBUG_CATEGORY_EXTERN (gst_avhw_enc_debug);

/* The codecs avhwenc makes, in order of preference. */
static const enum AVCodecID gst_avhw_enc_codec_ids[] = {
  AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AV1,
};

struct _GstAvhwEnc
{
  GstVideoEncoder parent;

  GstAvhwElementDevice dev;

  /* properties, under the object lock */
  gchar *encoder_name;
  gchar *fallback;
  GstAvhwEncSettings props;
  gboolean bitrate_changed;
  const gchar *active_encoder;  /* the active-encoder property */
  gboolean active_hw;           /* the hardware property */

  /* streaming thread */
  GstVideoCodecState *input_state;
  const AVCodec *codec;         /* chosen; kept when the context reopens */
  gboolean length_prefixed;     /* avc, hvc1, hev1 */
  const gchar *stream_format;
  gchar *downstream_profile;
  AVCodecContext *ctx;
  GstAvhwEncSettings opened;    /* what ctx was opened with */
  gboolean hw_frames;           /* ctx takes device frames */
  gboolean zero_copy;           /* ... the incoming ones */
  AVBufferRef *upload_frames;   /* for other frames into hw_frames */
  AVFrame *frame;
  AVPacket *pkt;
  gboolean warned_fallback;
  gboolean noted_copy;          /* said that frames cross devices */
  gboolean need_caps;           /* no packet out of ctx yet */
  gboolean caps_refused;        /* error posted: downstream refused them */
  GstCaps *out_caps;            /* as last set, before the base class */
  GstBuffer *codec_data;
  guint held_frames;            /* most frames the encoder held so far */
  guint32 last_sent;
  GstAvhwEncTimestamps ts;
};

#define GST_AVHW_ENC_DEVICE(s) ((s)->dev.device)

/* gstavhwenc.c */
void gst_avhw_enc_set_active (GstAvhwEnc * self, const AVCodec * codec);

/* gstavhwencopen.c */
GstCaps * gst_avhw_enc_codec_src_caps (enum AVCodecID id);
gchar ** gst_avhw_enc_fallback_names (GstAvhwEnc * self, GArray * ids);
gboolean gst_avhw_enc_codec_accepted (GArray * ids, enum AVCodecID id);
GArray * gst_avhw_enc_accepted_codecs (GstAvhwEnc * self);
GPtrArray * gst_avhw_enc_usable_encoders (GstAvhwEnc * self,
    GstAvhwDevice * device, GArray * ids);
gboolean gst_avhw_enc_frame_is_ours (GstAvhwEnc * self,
    const AVFrame * frame);
gboolean gst_avhw_enc_open (GstAvhwEnc * self, GstBuffer * first);
void gst_avhw_enc_close (GstAvhwEnc * self);

/* gstavhwencframes.c */
gboolean gst_avhw_enc_prepare_frame (GstAvhwEnc * self, GstBuffer * buffer,
    AVFrame * out, GError ** error);
GstFlowReturn gst_avhw_enc_receive_packets (GstAvhwEnc * self);
GstFlowReturn gst_avhw_enc_drain (GstAvhwEnc * self);
void gst_avhw_enc_update_latency (GstAvhwEnc * self, guint frames);

G_END_DECLS
