/* gst-avhw: avhwdec internals shared by its files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwdec.h"
#include "gstavhwelementutils.h"
#include "gstavhwdecwatch.h"
#include "gstavhwdecreplay.h"
#include "gstavhwdech264.h"
#include "gstavhwdecsession.h"

G_BEGIN_DECLS

typedef struct _GstAvhwDecSched GstAvhwDecSched;

/* How many of the decoder's own frames buffers downstream still holds;
 * shared with those buffers, which may outlive the element. */
typedef struct
{
  gint refs;
  gint held;
} HeldCounter;

struct _GstAvhwDec
{
  GstVideoDecoder parent;

  GstAvhwElementDevice dev;
  gchar *decoder_name;
  gint extra_frames;
  gint threads;
  gboolean fallback;
  guint parallel;
  guint max_buffered;

  GstVideoCodecState *input_state;
  GstCaps *refused_caps;        /* no decoder opened for them: error posted */
  GstVideoCodecState *output_state;
  /* what the active-decoder and hardware properties say (object lock) */
  const gchar *active_decoder;
  gboolean active_hw;
  /* the stream: what its sessions share (gstavhwdecsession.c), its first
   * session, and from its first frame the scheduler over its sessions
   * (gstavhwdecsched.c), which then owns the first one too */
  GstAvhwDecStream stream;
  GstAvhwDecSession *session;
  GstAvhwDecSched *sched;
  gint n_sessions;              /* atomic: decoding at once; 0 before the first
                                 * frame */
  /* the stats property's counters, since start (atomic) */
  gint segments;                /* parallel segments started */
  gint handovers;               /* sessions handed to software */
  const AVCodec *codec;         /* the first session's decoder */
  /* the input stream's watcher (gstavhwdecwatch.c), made with its caps;
   * a packet is scanned once, where something asks about it */
  GstAvhwDecWatch *watch;
  gboolean seq_checked;         /* H.264: its first SPS was looked at */
  /* a field-coded stream on a device that decodes its field pictures
   * wrongly: why (the sessions watch them) */
  gchar *fields_why;
  /* output (gstavhwdecoutput.c) */
  gboolean device_memory;       /* negotiated output memory */
  gboolean foreign_memory;      /* GStreamer's own device memory out */
  gint out_width, out_height;
  GstVideoFormat out_format;
  gboolean out_interlaced;
  AVBufferRef *upload_frames;   /* fallback frames uploaded for device output */
  AVBufferRef *copy_frames;     /* copies that free decoder surfaces */
  HeldCounter *held;            /* decoder frames downstream holds */
};

#define DEVICE(s) ((s)->dev.device)

/* gstavhwdecframes.c: moving decoded frames into output buffers */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_copy_sw_frame (GstAvhwDec * self, const AVFrame * src,
    GstBuffer * out);
G_GNUC_INTERNAL
AVFrame * gst_avhw_dec_upload_sw_frame (GstAvhwDec * self,
    const AVFrame * src, GError ** error);
G_GNUC_INTERNAL
GstBuffer * gst_avhw_dec_wrap_decoder_frame (GstAvhwDec * self, AVFrame * hw);

G_GNUC_INTERNAL
void gst_avhw_dec_count_held (GstAvhwDec * self, GstBuffer * buf);

G_GNUC_INTERNAL
gboolean gst_avhw_dec_keep_on_decoder (GstAvhwDec * self, AVFrame ** hw);

G_GNUC_INTERNAL
GstBuffer * gst_avhw_dec_export_frame (GstAvhwDec * self, AVFrame * hw,
    gboolean from_decoder, GError ** error);
G_GNUC_INTERNAL
AVFrame * gst_avhw_dec_copy_off_decoder (GstAvhwDec * self,
    const AVFrame * frame);
G_GNUC_INTERNAL
AVFrame * gst_avhw_dec_copy_to_pool (GstAvhwDec * self, AVBufferRef ** pool,
    const AVFrame * frame);
G_GNUC_INTERNAL
AVFrame * gst_avhw_dec_download_cropped (GstAvhwDec * self,
    const AVFrame * frame);
G_GNUC_INTERNAL
void gst_avhw_dec_held_counter_release (HeldCounter * c);

G_END_DECLS
