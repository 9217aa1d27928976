/* gst-avhw: the encoder element class, GstAvhwEnc (abstract)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/gstvideoencoder.h>
#include <gst/avhw/gstavhw-impl.h>
#include "gstavhwcodecelement.h"

G_BEGIN_DECLS

#define GST_TYPE_AVHW_ENC (gst_avhw_enc_get_type ())
#define GST_AVHW_ENC(obj) \
    (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_AVHW_ENC, GstAvhwEnc))
#define GST_IS_AVHW_ENC(obj) \
    (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_AVHW_ENC))

typedef struct _GstAvhwEnc GstAvhwEnc;
typedef struct
{
  GstVideoEncoderClass parent_class;
} GstAvhwEncClass;

GST_AVHW_API
GType gst_avhw_enc_get_type (void);

GST_AVHW_API
gboolean gst_avhw_enc_register (GstPlugin * plugin,
    const gchar * element_name, const gchar * type_name, guint rank,
    const GstAvhwCodecElementData * data);

G_END_DECLS
