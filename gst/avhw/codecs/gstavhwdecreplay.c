/* gst-avhw: avhwdec, the input since the last key frame, for a decoder
 * that takes over from a failed one
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * When a hardware decoder fails mid-stream (gstavhwdecfail.c) the frames
 * it was still holding are gone with it. Its compressed input since the
 * last key frame is kept here (references to the packets sent, a GOP of
 * compressed data), so that the software decoder taking over decodes
 * from that key frame and every frame not yet out comes out: nothing is
 * lost. A GOP of more than MAX_PACKETS packets or MAX_BYTES bytes is not
 * kept (the software decoder then starts at the next key frame, as it
 * did before); GST_AVHW_DEC_REPLAY_MAX=N sets the packet limit (tests).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwdecreplay.h"

#define MAX_PACKETS 1200        /* 20 s at 60 fps */
#define MAX_BYTES (64 << 20)

static guint
max_packets (void)
{
  static gsize once;
  static guint max = MAX_PACKETS;

  if (g_once_init_enter (&once)) {
    const gchar *env = g_getenv ("GST_AVHW_DEC_REPLAY_MAX");

    if (env && *env)
      max = (guint) g_ascii_strtoull (env, NULL, 10);
    g_once_init_leave (&once, 1);
  }
  return max;
}

static void
packet_free (gpointer p)
{
  AVPacket *pkt = p;

  av_packet_free (&pkt);
}

void
gst_avhw_dec_replay_init (GstAvhwDecReplay * r)
{
  r->packets = g_ptr_array_new_with_free_func (packet_free);
  r->bytes = 0;
  r->dropped = FALSE;
}

void
gst_avhw_dec_replay_clear (GstAvhwDecReplay * r)
{
  if (r->packets)
    g_ptr_array_set_size (r->packets, 0);
  r->bytes = 0;
  r->dropped = FALSE;
}

void
gst_avhw_dec_replay_keep (GstAvhwDecReplay * r, const AVPacket * pkt)
{
  AVPacket *copy;

  if (pkt->flags & AV_PKT_FLAG_KEY)
    gst_avhw_dec_replay_clear (r);
  if (r->dropped)
    return;
  if (r->packets->len >= max_packets ()
      || r->bytes + pkt->size > MAX_BYTES || !(copy = av_packet_clone (pkt))) {
    gst_avhw_dec_replay_clear (r);
    r->dropped = TRUE;
    return;
  }
  g_ptr_array_add (r->packets, copy);
  r->bytes += pkt->size;
}

GPtrArray *
gst_avhw_dec_replay_take (GstAvhwDecReplay * r)
{
  GPtrArray *out = NULL;

  if (!r->dropped && r->packets->len > 0) {
    out = r->packets;
    r->packets = g_ptr_array_new_with_free_func (packet_free);
  }
  gst_avhw_dec_replay_clear (r);
  return out;
}
