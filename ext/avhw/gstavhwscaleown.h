/* gst-avhw: a backend's own converter, frame by frame
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

typedef struct _GstAvhwScaleOwn GstAvhwScaleOwn;

GstAvhwScaleOwn * gst_avhw_scale_own_new (GstAvhwDevice * device,
    guint index, const GstAvhwConvertSetup * setup, GError ** error);

AVFrame * gst_avhw_scale_own_convert (GstAvhwScaleOwn * own,
    const AVFrame * src, GError ** error);

void gst_avhw_scale_own_free (GstAvhwScaleOwn * own);

G_END_DECLS
