/* gst-avhw: a libavfilter graph around one device scale filter
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

typedef struct _GstAvhwScaleGraph GstAvhwScaleGraph;

typedef struct
{
  GstAvhwBackend *backend;      /* the frames' */
  const gchar *filter;          /* FFmpeg's name: scale_vulkan... */
  const gchar *method_args;     /* its interpolation options, "" for none */
  AVBufferRef *in_frames;       /* the input's hardware frames context */
  gint in_width, in_height;
  AVRational sar;
  gint out_width, out_height;
  enum AVPixelFormat out_format;
} GstAvhwScaleGraphParams;

GstAvhwScaleGraph * gst_avhw_scale_graph_new (
    const GstAvhwScaleGraphParams * params, GError ** error);

gboolean gst_avhw_scale_graph_push (GstAvhwScaleGraph * graph,
    AVFrame * frame, GError ** error);

AVFrame * gst_avhw_scale_graph_pull (GstAvhwScaleGraph * graph,
    GError ** error);

void gst_avhw_scale_graph_free (GstAvhwScaleGraph * graph);

G_END_DECLS
