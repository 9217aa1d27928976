/* gst-avhw: base class of the transform elements (device handling only)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

#define GST_TYPE_AVHW_BASE_TRANSFORM (gst_avhw_base_transform_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstAvhwBaseTransform, gst_avhw_base_transform, GST,
    AVHW_BASE_TRANSFORM, GstBaseTransform);

struct _GstAvhwBaseTransformClass
{
  GstBaseTransformClass parent_class;
  /* TRUE: with device=auto and no device from the context flow, open none
   * at READY; the subclass adopts its input's with
   * gst_avhw_base_transform_adopt_device(). */
  gboolean adopt_input_device;
};

GstAvhwDevice * gst_avhw_base_transform_get_device (GstAvhwBaseTransform * self);
gboolean gst_avhw_base_transform_adopt_device (GstAvhwBaseTransform * self,
    GstAvhwDevice * device);

G_END_DECLS
