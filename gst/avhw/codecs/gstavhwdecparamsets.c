/* gst-avhw: avhwdec, a stream's parameter sets from its codec data, as
 * NAL units of the stream
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A kept h264 or hevc decoder that takes a stream of other codec data
 * gets that codec data as AV_PKT_DATA_NEW_EXTRADATA with the first packet
 * (gstavhwdecsession.c). FFmpeg 7.1's h264 and hevc read it into their
 * parameter-set lists without calling the hwaccel's decode_params, which
 * is where the Vulkan hwaccel drops the video session parameters it built
 * from the last stream's SPS and PPS (ff_vk_params_invalidate(); it
 * builds them again only when it has none). The same parameter sets in
 * the packet itself do call it, as a byte-stream's do: so they go in both
 * ways (gst_avhw_dec_param_sets_give()).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwdecparamsets.h"

typedef struct
{
  const guint8 *d;
  gsize size, pos;
} Reader;

static gboolean
read_u8 (Reader * r, guint * v)
{
  if (r->pos + 1 > r->size)
    return FALSE;
  *v = r->d[r->pos++];
  return TRUE;
}

static gboolean
read_u16 (Reader * r, guint * v)
{
  if (r->pos + 2 > r->size)
    return FALSE;
  *v = (r->d[r->pos] << 8) | r->d[r->pos + 1];
  r->pos += 2;
  return TRUE;
}

/* Appends the next NAL unit of @r (16-bit length, then its bytes) to @out
 * behind a @len_size-byte length; FALSE when @r ends or it does not fit. */
static gboolean
copy_nal (Reader * r, guint len_size, GByteArray * out)
{
  guint n;
  guint8 len[4];

  if (!read_u16 (r, &n) || r->pos + n > r->size || n == 0
      || (len_size < 4 && n >> (8 * len_size)))
    return FALSE;
  gst_avhw_dec_put_nal_length (len, n, len_size);
  g_byte_array_append (out, len, len_size);
  g_byte_array_append (out, r->d + r->pos, n);
  r->pos += n;
  return TRUE;
}

/* ISO/IEC 14496-15 5.3.3.1: version 1, ..., lengthSizeMinusOne, SPS
 * count and SPSs, PPS count and PPSs (the extension after them left). */
static gboolean
avcc (Reader * r, GByteArray * out)
{
  guint v, len_size, n, i;

  if (!read_u8 (r, &v) || v != 1)
    return FALSE;
  r->pos += 3;
  if (!read_u8 (r, &v))
    return FALSE;
  len_size = (v & 3) + 1;
  if (len_size == 3)
    return FALSE;
  if (!read_u8 (r, &n))
    return FALSE;
  for (i = 0; i < (n & 0x1f); i++) {
    if (!copy_nal (r, len_size, out))
      return FALSE;
  }
  if (!read_u8 (r, &n))
    return FALSE;
  for (i = 0; i < n; i++) {
    if (!copy_nal (r, len_size, out))
      return FALSE;
  }
  return TRUE;
}

/* ISO/IEC 14496-15 8.3.3.1: 21 bytes, lengthSizeMinusOne in the 22nd,
 * then arrays of NAL units by type; VPS (32), SPS (33) and PPS (34) are
 * taken. */
static gboolean
hvcc (Reader * r, GByteArray * out)
{
  guint v, len_size, n_arrays, type, n, i, j;

  if (!read_u8 (r, &v) || v != 1)
    return FALSE;
  r->pos = 21;
  if (!read_u8 (r, &v))
    return FALSE;
  len_size = (v & 3) + 1;
  if (len_size == 3 || !read_u8 (r, &n_arrays))
    return FALSE;
  for (i = 0; i < n_arrays; i++) {
    if (!read_u8 (r, &type) || !read_u16 (r, &n))
      return FALSE;
    type &= 0x3f;
    for (j = 0; j < n; j++) {
      if (type >= 32 && type <= 34) {
        if (!copy_nal (r, len_size, out))
          return FALSE;
      } else {
        guint skip;

        if (!read_u16 (r, &skip) || r->pos + skip > r->size)
          return FALSE;
        r->pos += skip;
      }
    }
  }
  return TRUE;
}

GBytes *
gst_avhw_dec_param_sets_inband (const guint8 * cd, gsize size,
    enum AVCodecID id)
{
  Reader r = { cd, size, 0 };
  GByteArray *out;
  gboolean ok;

  if (!cd || size == 0 || (id != AV_CODEC_ID_H264 && id != AV_CODEC_ID_HEVC))
    return NULL;
  out = g_byte_array_new ();
  ok = id == AV_CODEC_ID_H264 ? avcc (&r, out) : hvcc (&r, out);
  if (!ok || out->len == 0) {
    g_byte_array_unref (out);
    return NULL;
  }
  return g_byte_array_free_to_bytes (out);
}

/* @pkt with @pre (@n bytes) before its data (a copy) */
static gboolean
prepend (AVPacket * pkt, const guint8 * pre, gsize n)
{
  AVBufferRef *buf = av_buffer_alloc (n + pkt->size +
      AV_INPUT_BUFFER_PADDING_SIZE);

  if (!buf)
    return FALSE;
  memcpy (buf->data, pre, n);
  if (pkt->size > 0)
    memcpy (buf->data + n, pkt->data, pkt->size);
  memset (buf->data + n + pkt->size, 0, AV_INPUT_BUFFER_PADDING_SIZE);
  av_buffer_unref (&pkt->buf);
  pkt->buf = buf;
  pkt->data = buf->data;
  pkt->size += n;
  return TRUE;
}

gsize
gst_avhw_dec_param_sets_give (AVPacket * pkt, const guint8 * cd, gsize size,
    enum AVCodecID id)
{
  guint8 *side = av_packet_new_side_data (pkt, AV_PKT_DATA_NEW_EXTRADATA,
      size);
  GBytes *inband;
  const guint8 *d;
  gsize n = 0;

  if (side)
    memcpy (side, cd, size);
  inband = gst_avhw_dec_param_sets_inband (cd, size, id);
  if (inband) {
    d = g_bytes_get_data (inband, &n);
    if (!prepend (pkt, d, n))
      n = 0;
    g_bytes_unref (inband);
  }
  return n;
}
