/* gst-avhw: avhwdec, the input since the last key frame, for a decoder
 * that takes over from a failed one
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>
#include <libavcodec/avcodec.h>

G_BEGIN_DECLS

typedef struct
{
  GPtrArray *packets;           /* AVPacket, pts = frame number */
  gsize bytes;
  gboolean dropped;             /* too much since the key frame: none kept
                                 * until the next one */
} GstAvhwDecReplay;

G_GNUC_INTERNAL
void gst_avhw_dec_replay_init (GstAvhwDecReplay * r);

/* Forgets what was kept (a new stream, a flush). */
G_GNUC_INTERNAL
void gst_avhw_dec_replay_clear (GstAvhwDecReplay * r);

/* Keeps a reference to @pkt, about to be sent; a key frame starts anew. */
G_GNUC_INTERNAL
void gst_avhw_dec_replay_keep (GstAvhwDecReplay * r, const AVPacket * pkt);

/* The packets from the last key frame on, oldest first (transfer full),
 * or NULL where there are none or they were too many; @r is empty after. */
G_GNUC_INTERNAL
GPtrArray * gst_avhw_dec_replay_take (GstAvhwDecReplay * r);

G_END_DECLS
