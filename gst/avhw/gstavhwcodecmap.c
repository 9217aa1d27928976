/* gst-avhw: caps <-> AVCodecID, in one place
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwcodecmap.h"

/**
 * SECTION:gstavhwcodecmap
 * @title: Codec map
 * @short_description: GStreamer caps for the codecs avhw handles
 *
 * The caps are those GStreamer's parsers produce, restricted to what
 * libavcodec takes whole: access units, with `codec_data` for avc/hvc1.
 */

typedef struct
{
  enum AVCodecID id;
  const gchar *nick;
  const gchar *caps;
} CodecMap;

static const CodecMap map[] = {
  {AV_CODEC_ID_H264, "h264", "video/x-h264, "
        "stream-format = (string) { avc, avc3, byte-stream }, "
        "alignment = (string) au"},
  {AV_CODEC_ID_HEVC, "h265", "video/x-h265, "
        "stream-format = (string) { hvc1, hev1, byte-stream }, "
        "alignment = (string) au"},
  {AV_CODEC_ID_AV1, "av1", "video/x-av1, "
        "stream-format = (string) obu-stream, alignment = (string) tu"},
  {AV_CODEC_ID_VP9, "vp9", "video/x-vp9"},
  {AV_CODEC_ID_VP8, "vp8", "video/x-vp8"},
  {AV_CODEC_ID_MPEG2VIDEO, "mpeg2", "video/mpeg, mpegversion = (int) 2, "
        "systemstream = (boolean) false, parsed = (boolean) true"},
  {AV_CODEC_ID_MPEG4, "mpeg4", "video/mpeg, mpegversion = (int) 4, "
        "systemstream = (boolean) false, parsed = (boolean) true"},
  {AV_CODEC_ID_MJPEG, "mjpeg", "image/jpeg, parsed = (boolean) true"},
};

static const enum AVCodecID ids[] = {
  AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AV1, AV_CODEC_ID_VP9,
  AV_CODEC_ID_VP8, AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4, AV_CODEC_ID_MJPEG,
};

G_STATIC_ASSERT (G_N_ELEMENTS (map) == G_N_ELEMENTS (ids));

static const CodecMap *
lookup (enum AVCodecID id)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (map); i++)
    if (map[i].id == id)
      return &map[i];
  return NULL;
}

/**
 * gst_avhw_codec_get_caps: (skip)
 * @codec_id: an AVCodecID
 *
 * Returns: (transfer full) (nullable): the sink caps for @codec_id
 */
GstCaps *
gst_avhw_codec_get_caps (enum AVCodecID codec_id)
{
  const CodecMap *m = lookup (codec_id);

  return m ? gst_caps_from_string (m->caps) : NULL;
}

/**
 * gst_avhw_codec_get_nick: (skip)
 * @codec_id: an AVCodecID
 *
 * Returns: (nullable): a short name, "h264", "h265", "vp9"...
 */
const gchar *
gst_avhw_codec_get_nick (enum AVCodecID codec_id)
{
  const CodecMap *m = lookup (codec_id);

  return m ? m->nick : NULL;
}

/**
 * gst_avhw_codec_from_caps: (skip)
 * @caps: fixed or unfixed caps
 *
 * Returns: the codec of the first structure of @caps that some entry of the
 *   map accepts, or AV_CODEC_ID_NONE
 */
enum AVCodecID
gst_avhw_codec_from_caps (const GstCaps * caps)
{
  guint i;

  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return AV_CODEC_ID_NONE;
  for (i = 0; i < G_N_ELEMENTS (map); i++) {
    GstCaps *c = gst_caps_from_string (map[i].caps);
    GstCaps *first = gst_caps_copy_nth (caps, 0);
    gboolean ok = gst_caps_can_intersect (first, c);

    gst_caps_unref (first);
    gst_caps_unref (c);
    if (ok)
      return map[i].id;
  }
  return AV_CODEC_ID_NONE;
}

/**
 * gst_avhw_codec_list: (skip)
 * @n: (out): number of codecs
 *
 * Returns: the codecs in the map, most common first
 */
const enum AVCodecID *
gst_avhw_codec_list (guint * n)
{
  *n = G_N_ELEMENTS (ids);
  return ids;
}
