/* gst-avhw: registering the decoder and encoder elements, each a subclass
 * of GstAvhwDec or GstAvhwEnc with its class data
 *
 * GstAvhwDec and GstAvhwEnc are abstract. Every element of theirs is a
 * subclass registered here with the data that sets it apart: the generic
 * avhwdec and avhwenc (the elements plugin), and avhw<backend><codec>dec
 * and ...enc for autoplugging (each backend's plugin, through
 * gst_avhw_backend_register()). The subclass adds nothing but its pad
 * templates, metadata and the default of `device`.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwcodecelement.h"
#include "gstavhwelementutils.h"

typedef struct
{
  GstAvhwCodecElementData data;
  gchar *klass;
  GstAvhwCodecElementTemplates add_templates;
  /* what data's pointers point to */
  gchar *device, *longname, *description;
  gchar **raw_features;
} ClassData;

static GQuark
class_data_quark (void)
{
  static GQuark q;

  if (!q)
    q = g_quark_from_static_string ("gst-avhw-codec-element-data");
  return q;
}

static void
subclass_init (gpointer g_class, gpointer class_data)
{
  ClassData *cd = class_data;
  GstElementClass *element_class = GST_ELEMENT_CLASS (g_class);

  cd->add_templates (element_class, &cd->data);
  gst_element_class_set_metadata (element_class, cd->longname, cd->klass,
      cd->description, "gst-avhw developers");
  if (cd->device) {
    GObjectClass *gobject_class = G_OBJECT_CLASS (g_class);
    GObjectClass *parent = g_type_class_peek_parent (g_class);

    /* the same property with the backend as its default, handled by the
     * parent's accessors (GObject does not inherit them: a property is set
     * through its owner's class) */
    gobject_class->set_property = parent->set_property;
    gobject_class->get_property = parent->get_property;
    g_object_class_install_property (gobject_class,
        GST_AVHW_ELEMENT_PROP_DEVICE, g_param_spec_string ("device",
            "Device", "Device to use: auto, BACKEND or BACKEND:INDEX (e.g. "
            "vulkan:0)", cd->device, G_PARAM_READWRITE |
            G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
  }
}

static void
subclass_instance_init (GTypeInstance * instance, gpointer g_class)
{
  ClassData *cd = g_type_get_qdata (G_TYPE_FROM_CLASS (g_class),
      class_data_quark ());

  if (cd && cd->device)
    g_object_set (instance, "device", cd->device, NULL);
}

/* Registers @element_name, a subclass @type_name of @parent with @data
 * (copied): its templates from @add_templates, metadata from @data and
 * @klass. The type is made once per process; a plugin loaded again
 * registers the feature again with it. */
gboolean
gst_avhw_codec_element_register (GstPlugin * plugin, GType parent,
    const gchar * element_name, const gchar * type_name, guint rank,
    const gchar * klass, const GstAvhwCodecElementData * data,
    GstAvhwCodecElementTemplates add_templates)
{
  GType type = g_type_from_name (type_name);

  if (!type) {
    GTypeQuery q;
    GTypeInfo info = { 0, };
    ClassData *cd = g_new0 (ClassData, 1);

    g_type_query (parent, &q);
    cd->device = g_strdup (data->device);
    cd->longname = g_strdup (data->longname);
    cd->description = g_strdup (data->description);
    cd->raw_features = g_strdupv ((gchar **) data->raw_features);
    cd->klass = g_strdup (klass);
    cd->add_templates = add_templates;
    cd->data.device = cd->device;
    cd->data.codec = data->codec;
    cd->data.raw_features = (const gchar * const *) cd->raw_features;
    cd->data.longname = cd->longname;
    cd->data.description = cd->description;

    info.class_size = q.class_size;
    info.class_init = subclass_init;
    info.class_data = cd;
    info.instance_size = q.instance_size;
    info.instance_init = subclass_instance_init;
    type = g_type_register_static (parent, type_name, &info, 0);
    g_type_set_qdata (type, class_data_quark (), cd);
  }
  return gst_element_register (plugin, element_name, rank, type);
}

/* video/x-raw in @data's device memories and system memory, with
 * @formats (NULL: every format avhw maps). */
GstCaps *
gst_avhw_codec_element_raw_caps (const GstAvhwCodecElementData * data,
    const GValue * formats)
{
  GPtrArray *features = g_ptr_array_new ();
  const gchar *const *f;
  GstCaps *caps;

  for (f = data->raw_features; f && *f; f++)
    g_ptr_array_add (features, (gpointer) * f);
  g_ptr_array_add (features, (gpointer) GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY);
  g_ptr_array_add (features, NULL);
  caps = gst_avhw_format_template_caps ((const gchar * const *)
      features->pdata, formats);
  g_ptr_array_unref (features);
  return caps;
}
