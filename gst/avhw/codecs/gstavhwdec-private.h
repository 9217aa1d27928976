/* gst-avhw: avhwdec internals shared by its files
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwdec.h"
#include "gstavhwelementutils.h"
#include "gstavhwdecwatch.h"
#include "gstavhwdech264.h"
#include "gstavhwdecsession.h"

G_BEGIN_DECLS

typedef struct _GstAvhwDecSched GstAvhwDecSched;

/* A decoded frame's way into @cframe's output buffer, in the memory
 * negotiation chose (gstavhwdecframes.c): @frame is the decoder's
 * (@from_decoder: on its surfaces) or a copy, on the device or in system
 * memory; not taken. GST_FLOW_ERROR with @error set: it could not be
 * moved. */
typedef GstFlowReturn (*GstAvhwDecWayOut) (GstAvhwDec * self,
    AVFrame * frame, gboolean from_decoder, GstVideoCodecFrame * cframe,
    GError ** error);

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
  gint joins;                   /* streams or segments ended by a join */
  const AVCodec *codec;         /* the first session's decoder */
  /* the input stream's watcher (gstavhwdecwatch.c), made with its caps;
   * a packet is scanned once, where something asks about it */
  GstAvhwDecWatch *watch;
  gboolean seq_checked;         /* H.264: its first SPS was looked at */
  /* output (gstavhwdecoutput.c) */
  gboolean device_memory;       /* negotiated output memory */
  gboolean foreign_memory;      /* GStreamer's own device memory out */
  gint out_width, out_height;
  GstVideoFormat out_format;
  gboolean out_interlaced;
  GstAvhwDecWayOut way_out;     /* chosen with the output caps */
  AVBufferRef *upload_frames;   /* fallback frames uploaded for device output */
  AVBufferRef *copy_frames;     /* copies that free decoder surfaces */
  HeldCounter *held;            /* decoder frames downstream holds */
};

#define DEVICE(s) ((s)->dev.device)

/* gstavhwdecframes.c: the ways out */

/* The way out for frames into our device memory (@device_memory),
 * GStreamer's own device memory (@foreign_memory) or system memory. */
G_GNUC_INTERNAL
GstAvhwDecWayOut gst_avhw_dec_choose_way_out (gboolean device_memory,
    gboolean foreign_memory);

/* @frame copied on the device into *@pool (made from the device's frames
 * cache when NULL, or for another size or format); NULL when the backend
 * cannot copy. Any thread. */
G_GNUC_INTERNAL
AVFrame * gst_avhw_dec_copy_to_pool (GstAvhwDec * self, AVBufferRef ** pool,
    const AVFrame * frame);

/* A hardware frame cropped at the top or left (which FFmpeg leaves to the
 * caller), downloaded and cropped; NULL after an error was posted. */
G_GNUC_INTERNAL
AVFrame * gst_avhw_dec_download_cropped (GstAvhwDec * self,
    const AVFrame * frame);

G_GNUC_INTERNAL
void gst_avhw_dec_held_counter_release (HeldCounter * c);

G_END_DECLS
