/* gst-avhw: avhwdec internals shared by its files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwdec.h"
#include "gstavhwelementutils.h"
#include "gstavhwdecwatch.h"
#include "gstavhwdecreplay.h"
#include "gstavhwdech264.h"

G_BEGIN_DECLS

typedef struct _GstAvhwDecParallel GstAvhwDecParallel;

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
  AVCodecContext *ctx;
  gchar *ctx_key;               /* what ctx was opened for; NULL: not kept */
  gboolean damaged;             /* the stream had errors: ctx is not kept */
  const AVCodec *codec;
  enum AVPixelFormat hw_pix_fmt;
  gboolean hw;                  /* the current picture came out on the device */
  gchar *counted;               /* device name this decoder is counted under */
  gboolean warned_software;
  /* what the active-decoder and hardware properties say (object lock) */
  const gchar *active_decoder;
  gboolean active_hw;
  gboolean device_memory;       /* negotiated output memory */
  gboolean foreign_memory;      /* GStreamer's own device memory out */
  gint out_width, out_height;
  GstVideoFormat out_format;
  gboolean out_interlaced;
  AVBufferRef *upload_frames;   /* fallback frames uploaded for device output */
  AVBufferRef *copy_frames;     /* copies that free decoder surfaces */
  HeldCounter *held;            /* decoder frames downstream holds */
  AVPacket *pkt;
  GstAvhwDecParallel *par;      /* parallel > 1 and the stream cuts */
  gboolean par_decided;         /* par made, or not, for this decoder */
  /* the input stream's watcher (gstavhwdecwatch.c), made with its caps;
   * a packet is scanned once, where something asks about it */
  GstAvhwDecWatch *watch;
  /* one session: streams end by a join (gstavhwdecjoin.c) */
  gboolean join;
  AVPacket *join_idr;           /* the stream's last IDR, parameter sets in */
  gboolean joined;              /* ctx may hold join frames: IDR next */
  /* the hardware decoder failed (gstavhwdecfail.c) */
  const gchar *failed_call;     /* the FFmpeg call, NULL: none failed */
  int failed_error;
  gboolean ctx_failed;          /* ctx is not to be called, nor kept */
  gboolean force_software;      /* after a failure, with fallback */
  gboolean wait_key;            /* drop input up to a key frame */
  /* H.264 on a hardware decoder (gstavhwdech264.c) */
  gboolean seq_checked;         /* its first SPS was looked at */
  gint h264_reorder;            /* -1: strict compliance; else normal with
                                 * this reorder depth */
  /* the input since the last key frame, for a failed hardware decoder's
   * replacement (gstavhwdecreplay.c) */
  GstAvhwDecReplay replay;
  gint64 replayed_upto;         /* frames up to this one may come again */
  /* a field-coded stream on a device that decodes its field pictures
   * wrongly: watched, and why */
  gboolean fields;
  gchar *fields_why;
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

/* gstavhwdec.c, for the parallel sessions */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_upstream_is_live (GstAvhwDec * self);
G_GNUC_INTERNAL
AVCodecContext * gst_avhw_dec_open_session (GstAvhwDec * self, gint threads);
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_output_decoded (GstAvhwDec * self, AVFrame * frame,
    gboolean from_decoder);
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_decode_error (GstAvhwDec * self,
    const gchar * call, int error);

/* gstavhwdecparallel.c: GOP-parallel decoding */
G_GNUC_INTERNAL
GstAvhwDecParallel * gst_avhw_dec_parallel_new (GstAvhwDec * self);
G_GNUC_INTERNAL
void gst_avhw_dec_parallel_free (GstAvhwDecParallel * par);
G_GNUC_INTERNAL
void gst_avhw_dec_parallel_flush (GstAvhwDecParallel * par);
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_parallel_handle_frame (GstAvhwDecParallel * par,
    GstVideoCodecFrame * frame, const GstAvhwDecUnit * unit);
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_parallel_drain (GstAvhwDecParallel * par);

G_END_DECLS
