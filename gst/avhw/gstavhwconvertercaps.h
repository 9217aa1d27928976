/* gst-avhw: what a device's converter makes, in one struct
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/avhw-prelude.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/**
 * GST_AVHW_CONVERTER_MAX_FORMATS:
 *
 * The most input or output formats one #GstAvhwConverterCaps lists.
 */
#define GST_AVHW_CONVERTER_MAX_FORMATS 32

/**
 * GST_AVHW_CONVERTER_MAX_METHODS:
 *
 * The size of #GstAvhwConverterCaps.method_options: one slot per
 * #GstAvhwScaleMethod value, with room for more.
 */
#define GST_AVHW_CONVERTER_MAX_METHODS 8

/**
 * GST_AVHW_SCALE_METHOD_FLAG:
 * @method: a #GstAvhwScaleMethod
 *
 * The bit of @method in #GstAvhwConverterCaps.methods.
 */
#define GST_AVHW_SCALE_METHOD_FLAG(method) (1u << (method))

/**
 * GstAvhwConverterCaps:
 * @name: the converter's name, for people and for avhwconvertscale's
 *   `active-converter` ("scale_cuda", "cuda-convert"); a string that
 *   lives as long as the backend (a literal). Required.
 * @filter: (nullable): FFmpeg's name of the libavfilter filter that runs
 *   it ("scale_cuda", "libplacebo"), looked up with avfilter_get_by_name()
 *   and given the options `w`, `h` and `format` (the output's FFmpeg
 *   pixel format name) and those of @method_options; %NULL for a
 *   converter of the backend's own, which the backend runs
 *   (#GstAvhwBackendClass.converter_open, .convert and .converter_close).
 *   A literal, like @name.
 * @in_formats: the formats it takes (as caps name them)
 * @n_in_formats: how many of @in_formats are set
 * @out_formats: the formats it makes from each of them, at any size
 *   within the device's limits; an input format listed among the outputs
 *   means it scales that format without converting it
 * @n_out_formats: how many of @out_formats are set
 * @methods: the interpolations it has (GST_AVHW_SCALE_METHOD_FLAG() bits
 *   of #GstAvhwScaleMethod); %GST_AVHW_SCALE_METHOD_DEFAULT, its own
 *   default, among them
 * @method_options: for a @filter converter, the filter's options that
 *   select each method of @methods, by #GstAvhwScaleMethod value
 *   ("interp_algo=bicubic"; "" for none); literals. Unused without
 *   @filter.
 * @borders: whether it keeps the picture's aspect ratio with borders
 *   (avhwconvertscale's `add-borders`): the picture into a rectangle of
 *   the output, #GstAvhwConvertSetup.border_argb around it
 * @colorimetry: whether it reads the colour matrix and range of its
 *   input from #GstAvhwConvertSetup (a backend converter); a @filter
 *   converter reads them from the frames, which avhwconvertscale tags
 * @note: (nullable): a few words for people (gst-avhw-info), newly
 *   allocated
 *
 * What one converter of a device does, filled in one call
 * (#GstAvhwBackendClass.query_converter), as #GstAvhwDecoderCaps says
 * what a device decodes. A converter makes every output format it lists
 * from every input format it lists; a converter whose pairs are not a
 * cross product is described as several (one per group of formats). The
 * library starts from gst_avhw_converter_caps_init() and keeps only
 * answers that pass gst_avhw_converter_caps_check(). Release with
 * gst_avhw_converter_caps_clear().
 */
typedef struct
{
  const gchar *name;
  const gchar *filter;
  GstVideoFormat in_formats[GST_AVHW_CONVERTER_MAX_FORMATS];
  guint n_in_formats;
  GstVideoFormat out_formats[GST_AVHW_CONVERTER_MAX_FORMATS];
  guint n_out_formats;
  guint methods;
  const gchar *method_options[GST_AVHW_CONVERTER_MAX_METHODS];
  gboolean borders;
  gboolean colorimetry;
  gchar *note;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAvhwConverterCaps;

/**
 * GstAvhwConvertSetup:
 * @in_info: the input, as its caps say (format, size, colorimetry,
 *   chroma siting)
 * @out_info: the output, as its caps say
 * @dest: where the picture goes in the output; the rest is border. The
 *   whole output when there are no borders.
 * @border_argb: the colour of the borders, as videoconvertscale's
 *   `border-argb` (0xAARRGGBB)
 * @method: the interpolation, one of the converter's
 *   #GstAvhwConverterCaps.methods
 *
 * One conversion, as the negotiated caps and avhwconvertscale's
 * properties describe it: what a backend converter's session is opened
 * for (#GstAvhwBackendClass.converter_open).
 */
typedef struct
{
  GstVideoInfo in_info;
  GstVideoInfo out_info;
  GstVideoRectangle dest;
  guint32 border_argb;
  gint method;

  /*< private >*/
  gpointer _gst_reserved[GST_PADDING];
} GstAvhwConvertSetup;

GST_AVHW_API
void gst_avhw_converter_caps_init (GstAvhwConverterCaps * caps);

GST_AVHW_API
void gst_avhw_converter_caps_clear (GstAvhwConverterCaps * caps);

GST_AVHW_API
gboolean gst_avhw_converter_caps_add_in_format (GstAvhwConverterCaps * caps,
    GstVideoFormat format);

GST_AVHW_API
gboolean gst_avhw_converter_caps_add_out_format (GstAvhwConverterCaps * caps,
    GstVideoFormat format);

GST_AVHW_API
gboolean gst_avhw_converter_caps_check (const GstAvhwConverterCaps * caps,
    gchar ** why);

GST_AVHW_API
gboolean gst_avhw_converter_caps_takes (const GstAvhwConverterCaps * caps,
    GstVideoFormat format);

GST_AVHW_API
gboolean gst_avhw_converter_caps_makes (const GstAvhwConverterCaps * caps,
    GstVideoFormat format);

GST_AVHW_API
gchar * gst_avhw_converter_caps_describe (const GstAvhwConverterCaps * caps);

G_END_DECLS
