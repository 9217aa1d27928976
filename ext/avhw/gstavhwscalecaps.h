/* gst-avhw: avhwconvertscale's caps: what the device's converters make
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

/* The software formats avhwconvertscale scales and converts between, as
 * far as the device's converters make them. */
#define GST_AVHW_SCALE_FORMATS \
  "{ NV12, I420, Y444, P010_10LE, RGBA, BGRA, RGBx, BGRx, RGB, BGR, " \
  "RGBP, BGRP }"

/* What gst_avhw_scale_choose() found missing, least to most specific. */
typedef enum
{
  GST_AVHW_SCALE_MISSING_FORMATS,
  GST_AVHW_SCALE_MISSING_METHOD,
  GST_AVHW_SCALE_MISSING_BORDERS,
} GstAvhwScaleMissing;

GstAvhwBackend * gst_avhw_scale_backend_for_caps (GstCaps * caps, guint idx);

gboolean gst_avhw_scale_converter_usable (const GstAvhwConverterCaps * c);

gboolean gst_avhw_scale_converts (GstAvhwBackend * backend,
    GstAvhwDevice * device, GstVideoFormat in, GstVideoFormat out);

gboolean gst_avhw_scale_has_converters (GstAvhwBackend * backend,
    GstAvhwDevice * device, gchar ** reason);

gchar * gst_avhw_scale_list_converters (GstAvhwBackend * backend,
    GstAvhwDevice * device);

const GstAvhwConverterCaps * gst_avhw_scale_choose (GstAvhwBackend * backend,
    GstAvhwDevice * device, GstVideoFormat in, GstVideoFormat out,
    GstAvhwScaleMethod method, gboolean borders, guint * index,
    GstAvhwScaleMissing * why);

gchar * gst_avhw_scale_list_methods (GstAvhwBackend * backend,
    GstAvhwDevice * device, GstVideoFormat in, GstVideoFormat out);

gchar * gst_avhw_scale_list_outputs (GstAvhwBackend * backend,
    GstAvhwDevice * device, GstVideoFormat in);

gboolean gst_avhw_scale_structure_formats (const GstStructure * s,
    GArray * out);

GstCaps * gst_avhw_scale_transform_caps (GstAvhwDevice * device,
    GstPadDirection direction, GstCaps * caps);

/* gstavhwscalesize.c */
GstCaps * gst_avhw_scale_fixate_caps (GstCaps * caps, GstCaps * othercaps);

gboolean gst_avhw_scale_needs_borders (const GstVideoInfo * in,
    const GstVideoInfo * out);

void gst_avhw_scale_picture_rect (const GstVideoInfo * in,
    const GstVideoInfo * out, gboolean add_borders, GstVideoRectangle * rect);

/* gstavhwscaleexplain.c */
gchar * gst_avhw_scale_explain (GstAvhwDevice * device, GstCaps * in,
    GstCaps * out);

G_END_DECLS
