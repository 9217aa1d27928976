/* gst-avhw: what a device decodes or encodes of a codec, in one struct
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/avhw-prelude.h>

G_BEGIN_DECLS

/**
 * GstAvhwChroma:
 * @GST_AVHW_CHROMA_400: monochrome (4:0:0)
 * @GST_AVHW_CHROMA_420: 4:2:0
 * @GST_AVHW_CHROMA_422: 4:2:2
 * @GST_AVHW_CHROMA_444: 4:4:4
 *
 * Chroma subsamplings a device's decoder or encoder takes, as flags.
 */
typedef enum
{
  GST_AVHW_CHROMA_400 = 1 << 0,
  GST_AVHW_CHROMA_420 = 1 << 1,
  GST_AVHW_CHROMA_422 = 1 << 2,
  GST_AVHW_CHROMA_444 = 1 << 3,
} GstAvhwChroma;

/**
 * GST_AVHW_BIT_DEPTH:
 * @depth: a bit depth, 8 to 16
 *
 * The bit of @depth in #GstAvhwDecoderCaps.bit_depths and
 * #GstAvhwEncoderCaps.bit_depths.
 */
#define GST_AVHW_BIT_DEPTH(depth) (1u << ((depth) - 8))

/**
 * GstAvhwDecoderCaps:
 * @supported: whether the device decodes the codec in hardware
 * @reason: why not, when not (newly allocated; %NULL when @supported)
 * @bit_depths: the bit depths it decodes (GST_AVHW_BIT_DEPTH() bits); 0:
 *   not known
 * @chroma: the chroma subsamplings it decodes (#GstAvhwChroma flags); 0:
 *   not known
 * @max_width: the widest coded picture; 0: not known (with @max_height)
 * @max_height: the tallest coded picture; 0: not known (with @max_width)
 * @slots: how many pictures (DPB slots, the one being decoded included)
 *   the decoder holds at once (Vulkan: maxDpbSlots); 0: no fixed number.
 *   avhwdec keeps FFmpeg's H.264 reorder depth within them.
 * @engines: how many decoder engines decode the codec at once (NVDEC:
 *   nNumNVDECs); 0: not known. avhwdec's parallel=0 opens that many
 *   sessions.
 * @field_coded: whether streams coded as fields (H.264 frame_mbs_only_flag
 *   0) decode right; when not, avhwdec decodes them in software
 * @field_coded_reason: why not, when not @field_coded (newly allocated)
 * @max_frame_threads: the most FFmpeg frame threads with which the decoder
 *   decodes the codec right; 0: any
 * @frame_threads_reason: why there is a limit, when @max_frame_threads is
 *   not 0 (newly allocated)
 * @note: (nullable): a few words for people that the fields above do not
 *   say ("Main profile, not High"), newly allocated; shown in parentheses
 *   after the chroma by gst_avhw_decoder_caps_describe()
 *
 * What device N of a backend decodes of one codec, filled in one call
 * (#GstAvhwBackendClass.query_decoder), as `cuvidGetDecoderCaps` fills
 * `CUVIDDECODECAPS` and Vulkan `VkVideoCapabilitiesKHR`. The library
 * starts from gst_avhw_decoder_caps_init() (supported, fields decoded,
 * nothing else known) and the backend changes what it knows. The rules
 * between the fields are those of gst_avhw_decoder_caps_check(). Release
 * with gst_avhw_decoder_caps_clear().
 */
typedef struct
{
  gboolean supported;
  gchar *reason;
  guint bit_depths;
  guint chroma;
  guint max_width;
  guint max_height;
  guint slots;
  guint engines;
  gboolean field_coded;
  gchar *field_coded_reason;
  guint max_frame_threads;
  gchar *frame_threads_reason;
  gchar *note;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAvhwDecoderCaps;

/**
 * GstAvhwEncoderCaps:
 * @supported: whether the device encodes the codec in hardware
 * @reason: why not, when not (newly allocated; %NULL when @supported)
 * @bit_depths: the bit depths it encodes (GST_AVHW_BIT_DEPTH() bits); 0:
 *   not known
 * @chroma: the chroma subsamplings it encodes (#GstAvhwChroma flags); 0:
 *   not known
 * @max_width: the widest picture; 0: not known (with @max_height)
 * @max_height: the tallest picture; 0: not known (with @max_width)
 * @engines: how many encoder engines encode the codec at once; 0: not
 *   known
 * @note: (nullable): a few words for people, newly allocated
 *
 * The encoder's counterpart of #GstAvhwDecoderCaps, filled by
 * #GstAvhwBackendClass.query_encoder. The library starts from
 * gst_avhw_encoder_caps_init() (not supported, nothing known): a backend
 * that cannot tell leaves it so, and no autoplugging encoder is
 * registered. Release with gst_avhw_encoder_caps_clear().
 */
typedef struct
{
  gboolean supported;
  gchar *reason;
  guint bit_depths;
  guint chroma;
  guint max_width;
  guint max_height;
  guint engines;
  gchar *note;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAvhwEncoderCaps;

GST_AVHW_API
void gst_avhw_decoder_caps_init (GstAvhwDecoderCaps * caps);

GST_AVHW_API
void gst_avhw_decoder_caps_clear (GstAvhwDecoderCaps * caps);

GST_AVHW_API
gboolean gst_avhw_decoder_caps_check (const GstAvhwDecoderCaps * caps,
    gchar ** why);

GST_AVHW_API
gchar * gst_avhw_decoder_caps_describe (const GstAvhwDecoderCaps * caps);

GST_AVHW_API
void gst_avhw_encoder_caps_init (GstAvhwEncoderCaps * caps);

GST_AVHW_API
void gst_avhw_encoder_caps_clear (GstAvhwEncoderCaps * caps);

GST_AVHW_API
gboolean gst_avhw_encoder_caps_check (const GstAvhwEncoderCaps * caps,
    gchar ** why);

G_END_DECLS
