/* gst-avhw: registering the decoder and encoder elements, each a subclass
 * of GstAvhwDec or GstAvhwEnc with its class data
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

/**
 * GstAvhwCodecElementData:
 * @device: the `device` property's default (a backend's name); %NULL:
 *   `auto`
 * @codec: the one codec the element takes (decoders) or makes (encoders);
 *   %AV_CODEC_ID_NONE: every codec of the map that FFmpeg has
 * @raw_features: %NULL-terminated device memories of the raw pad, system
 *   memory besides; %NULL: none
 * @longname: the element's long name
 * @description: the element's description
 *
 * What sets one registered element apart from the others of its kind (as
 * nvcodec's class data does): avhwdec, or avhwcudah264dec. Copied.
 */
typedef struct
{
  const gchar *device;
  enum AVCodecID codec;
  const gchar *const *raw_features;
  const gchar *longname;
  const gchar *description;
} GstAvhwCodecElementData;

/* Adds @g_class's "sink" and "src" pad templates from @data. */
typedef void (*GstAvhwCodecElementTemplates) (GstElementClass * g_class,
    const GstAvhwCodecElementData * data);

gboolean gst_avhw_codec_element_register (GstPlugin * plugin, GType parent,
    const gchar * element_name, const gchar * type_name, guint rank,
    const gchar * klass, const GstAvhwCodecElementData * data,
    GstAvhwCodecElementTemplates add_templates);

GstCaps * gst_avhw_codec_element_raw_caps (const GstAvhwCodecElementData *
    data, const GValue * formats);

G_END_DECLS
