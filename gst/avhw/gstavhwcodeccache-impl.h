/* gst-avhw: the opened decoders kept per device, for the elements
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwcodeccache.h>
#include <libavcodec/avcodec.h>

G_BEGIN_DECLS

/**
 * GstAvhwDecoderKey:
 * @codec: the FFmpeg decoder
 * @hw: whether it was opened on the device (with a hardware device
 *   context) rather than in software
 * @thread_count: FFmpeg's thread_count as opened
 * @thread_type: FFmpeg's thread_type as opened
 * @extra_hw_frames: the surfaces added for frames held downstream
 * @strict_std_compliance: FFmpeg's strict_std_compliance (the H.264
 *   reorder choice)
 * @has_b_frames: the reorder depth it was opened with (a kept decoder
 *   takes a stream that wants this or less)
 * @has_extradata: whether it was opened with codec data
 * @extradata_sha1: the SHA-1 of that codec data (zeroes without); matched
 *   only where @extradata_follows is %FALSE
 * @extradata_follows: the decoder takes another stream's codec data with
 *   that stream's first packet (%AV_PKT_DATA_NEW_EXTRADATA: FFmpeg's h264
 *   and hevc, on a device), so the codec data is not matched
 * @dpb_refs: the reference frames its stream's sequence asks for (H.264
 *   max_num_ref_frames; 0: not known), which sized its surfaces: a kept
 *   decoder takes a stream that asks for this many or fewer
 * @dpb_reorder: the same for the sequence's reorder depth (H.264
 *   num_reorder_frames, or what the level allows)
 * @width: the stream's width as its caps give it (0: not known): a kept
 *   decoder takes streams of its own size only (another size makes FFmpeg
 *   set its hwaccel up again, which gains nothing, and FFmpeg 7.1's Vulkan
 *   H.264 crashed doing it on a kept decoder)
 * @height: the same for the height
 * @field_coded: whether its stream's sequence may code fields (H.264
 *   frame_mbs_only_flag 0): a kept decoder takes streams that are alike
 *   only (such a sequence has another coded height in macroblocks, and
 *   FFmpeg sets its hwaccel up again; FFmpeg 7.1's Vulkan H.264 crashed
 *   doing it on a kept decoder, run 69)
 * @sequence_reinit: the decoder sets its hardware decoder up again for
 *   every sequence other than its last (FFmpeg's hevc on a device, at each
 *   new SPS: on NVDEC a cuvidDestroyDecoder of ~220 ms, then a new
 *   decoder), so a kept one whose codec data differs is taken only where
 *   the device keeps no more decoders (see gst_avhw_device_take_decoder())
 *
 * What an opened decoder is for, as the decoder cache matches it: a kept
 * decoder goes to a key it fits (gst_avhw_decoder_key_fits()). Fill it
 * with gst_avhw_decoder_key_init() from the context about to be opened,
 * then the sequence's needs where they are known.
 */
typedef struct
{
  const AVCodec *codec;
  gboolean hw;
  gint thread_count;
  gint thread_type;
  gint extra_hw_frames;
  gint strict_std_compliance;
  gint has_b_frames;
  gboolean has_extradata;
  guint8 extradata_sha1[20];
  gboolean extradata_follows;
  guint dpb_refs;
  guint dpb_reorder;
  gint width;
  gint height;
  gboolean field_coded;
  gboolean sequence_reinit;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING - 2];
} GstAvhwDecoderKey;

GST_AVHW_API
void gst_avhw_decoder_key_init (GstAvhwDecoderKey * key,
    const AVCodecContext * ctx, const AVCodec * codec, gboolean hw);

GST_AVHW_API
gboolean gst_avhw_decoder_key_equal (const GstAvhwDecoderKey * a,
    const GstAvhwDecoderKey * b);

GST_AVHW_API
gboolean gst_avhw_decoder_key_fits (const GstAvhwDecoderKey * kept,
    const GstAvhwDecoderKey * want);

GST_AVHW_API
gchar * gst_avhw_decoder_key_to_string (const GstAvhwDecoderKey * key);

GST_AVHW_API
AVCodecContext * gst_avhw_device_take_decoder (GstAvhwDevice * device,
    const GstAvhwDecoderKey * key, GstAvhwDecoderKey * kept_key);

GST_AVHW_API
void gst_avhw_device_give_decoder (GstAvhwDevice * device,
    const GstAvhwDecoderKey * key, AVCodecContext * ctx);

G_END_DECLS
