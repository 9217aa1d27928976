/* gst-avhw: avhwconvertscale's caps: what the device's scale filter makes
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

/* The software formats avhwconvertscale scales and converts between, as
 * far as the device's filter makes them. */
#define GST_AVHW_SCALE_FORMATS \
  "{ NV12, I420, Y444, P010_10LE, RGBA, BGRA, RGBx, BGRx }"

GstAvhwBackend * gst_avhw_scale_backend_for_caps (GstCaps * caps, guint idx);

gboolean gst_avhw_scale_converts (GstAvhwBackend * backend,
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

/* gstavhwscaleexplain.c */
gchar * gst_avhw_scale_explain (GstAvhwDevice * device, GstCaps * in,
    GstCaps * out);

G_END_DECLS
