/* gst-avhw: avhwdec, one decoder session
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <gst/avhw/gstavhw-impl.h>
#include "gstavhwdecwatch.h"

G_BEGIN_DECLS

/* What every session of one stream shares: set by the element when caps
 * come (gstavhwdec.c), read-only while sessions run, but for
 * warned_software (atomic). */
typedef struct
{
  GstElement *element;          /* messages; the test hook's name */
  GstAvhwDevice *device;
  const gchar *decoder_name;    /* forced; NULL: the backend's candidates */
  gboolean fallback;
  gint threads;                 /* the threads property (0: automatic) */
  gboolean live;                /* upstream is live */
  gint extra_frames;
  GstBuffer *codec_data;        /* extradata, or NULL */
  gint width, height;           /* the input caps' size (0: not given) */
  gint h264_reorder;            /* -1: strict compliance; else normal with
                                 * this reorder depth (gstavhwdech264.c) */
  gchar *fields_why;            /* non-NULL: field pictures go to software,
                                 * for this reason (the element's) */
  GstAvhwDecWatch *watch;       /* the stream's: whether it can be cut */
  /* the element's active-decoder and hardware properties (object lock) */
  const gchar **active_decoder;
  gboolean *active_hw;
  gint warned_software;         /* atomic: the software warning was said */
  gint *handovers;              /* atomic: sessions handed to software */
  gint *joins;                  /* atomic: streams or segments ended by a
                                 * join */
} GstAvhwDecStream;

/* How a session's trouble reaches the element, in stream order. */
typedef enum
{
  GST_AVHW_DEC_FAULT_STREAM,    /* the stream's data: counts towards
                                 * max-errors */
  GST_AVHW_DEC_FAULT_DEVICE,    /* the hardware decoder failed, no fallback */
  GST_AVHW_DEC_FAULT_FIELDS,    /* field pictures the device cannot decode,
                                 * no fallback */
} GstAvhwDecFaultKind;

typedef struct
{
  GstAvhwDecFaultKind kind;
  const gchar *call;            /* the FFmpeg call */
  int error;
  gint64 number;                /* the input frame; -1: not known */
  const gchar *codec;           /* the decoder's name */
} GstAvhwDecFault;

/* Where a session's output goes: the element (one session) or a segment
 * of the scheduler (parallel). A non-OK return stops the session's call. */
typedef struct
{
  /* a decoded frame (taken); @from_decoder: on the decoder's surfaces */
  GstFlowReturn (*frame) (gpointer user_data, AVFrame * frame,
      gboolean from_decoder);
  GstFlowReturn (*fault) (gpointer user_data, const GstAvhwDecFault * fault);
  /* input frames @first..@last will not come out (a decoder that took over
   * from a failed one starts later) */
  void (*lost) (gpointer user_data, gint64 first, gint64 last);
} GstAvhwDecSessionOut;

/* What the stream's watcher said of a packet being sent. */
typedef struct
{
  gint64 number;                /* the input frame (the packet's pts) */
  gboolean cut;                 /* a cut point (GstAvhwDecUnit) */
  gboolean field;               /* its first slice is a field */
  /* the packet with every parameter set in front, where it is an IDR
   * frame a join can end the stream with; NULL otherwise */
  const AVPacket *idr;
} GstAvhwDecSend;

typedef struct _GstAvhwDecSession GstAvhwDecSession;

/* A session for @codec_id: the forced decoder, else the device's hardware
 * decoders in the backend's order, else (fallback) software, with a
 * warning; @software: software only. Kept decoders are taken from the
 * device's cache. @threads: frame threads (-1: as the stream says). NULL
 * once an error was posted. */
G_GNUC_INTERNAL
GstAvhwDecSession * gst_avhw_dec_session_open (GstAvhwDecStream * stream,
    enum AVCodecID codec_id, gint threads, gboolean software);

/* One more session of @stream with @codec (on the device with @hw) and
 * @threads frame threads: a kept decoder from the device's cache, else
 * opened anew; NULL when it does not open (nothing posted). Any thread. */
G_GNUC_INTERNAL
GstAvhwDecSession * gst_avhw_dec_session_open_as (GstAvhwDecStream * stream,
    const AVCodec * codec, gboolean hw, gint threads);

/* Closes @s: its decoder goes to the device's cache when it is worth
 * keeping and took no damage (flushed first unless it ended by a join),
 * is abandoned when its device failed (gstavhwdecfail.c), else freed. */
G_GNUC_INTERNAL
void gst_avhw_dec_session_close (GstAvhwDecSession * s);

/* Sends @pkt (its pts the input frame number; unreffed) and takes out
 * what the decoder has. A hardware decoder that fails, or a field
 * picture the device cannot decode, hands the session to software from
 * the last key frame (with fallback; else a fault). */
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_session_send (GstAvhwDecSession * s,
    AVPacket * pkt, const GstAvhwDecSend * info,
    const GstAvhwDecSessionOut * out, gpointer user_data);

/* Every frame still in the decoder out: by a join where @join and the
 * session has an IDR to join with (it stays usable without a flush; the
 * next packet must be a cut point or it is flushed first), else a drain
 * and flush. */
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_session_end (GstAvhwDecSession * s, gboolean join,
    const GstAvhwDecSessionOut * out, gpointer user_data);

/* Drops everything in the decoder and what was kept for a replay. */
G_GNUC_INTERNAL
void gst_avhw_dec_session_flush (GstAvhwDecSession * s);

/* Frames its decoder holds back: the reorder depth plus, with frame
 * threads, one per thread past the first. From any thread. */
G_GNUC_INTERNAL
guint gst_avhw_dec_session_get_delay (GstAvhwDecSession * s);

G_GNUC_INTERNAL
const AVCodec * gst_avhw_dec_session_get_codec (GstAvhwDecSession * s);

/* Whether its decoder is a hardware one (on the device). */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_session_is_hw (GstAvhwDecSession * s);

/* Whether it ends streams by a join (gstavhwdecjoin.c). */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_session_joins (GstAvhwDecSession * s);

/* Whether its decoder goes to the device's cache when closed now. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_session_keepable (GstAvhwDecSession * s);

G_END_DECLS
