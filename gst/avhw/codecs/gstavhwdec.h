/* gst-avhw: the decoder element class, GstAvhwDec (abstract)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/gstvideodecoder.h>
#include <gst/avhw/gstavhw-impl.h>
#include "gstavhwcodecelement.h"

G_BEGIN_DECLS

#define GST_TYPE_AVHW_DEC (gst_avhw_dec_get_type ())
#define GST_AVHW_DEC(obj) \
    (G_TYPE_CHECK_INSTANCE_CAST ((obj), GST_TYPE_AVHW_DEC, GstAvhwDec))
#define GST_IS_AVHW_DEC(obj) \
    (G_TYPE_CHECK_INSTANCE_TYPE ((obj), GST_TYPE_AVHW_DEC))

typedef struct _GstAvhwDec GstAvhwDec;
typedef struct
{
  GstVideoDecoderClass parent_class;
} GstAvhwDecClass;

GST_AVHW_API
GType gst_avhw_dec_get_type (void);

GST_AVHW_API
gboolean gst_avhw_dec_register (GstPlugin * plugin,
    const gchar * element_name, const gchar * type_name, guint rank,
    const GstAvhwCodecElementData * data);

G_END_DECLS
