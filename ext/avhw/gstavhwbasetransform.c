/* gst-avhw: base class of the transform elements (device handling only)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwbasetransform.h"
#include "gstavhwelementutils.h"

GST_DEBUG_CATEGORY_STATIC (gst_avhw_base_transform_debug);
#define GST_CAT_DEFAULT gst_avhw_base_transform_debug

typedef struct
{
  GstAvhwElementDevice dev;
} GstAvhwBaseTransformPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstAvhwBaseTransform,
    gst_avhw_base_transform, GST_TYPE_BASE_TRANSFORM);

#define PRIV(s) ((GstAvhwBaseTransformPrivate *) \
    gst_avhw_base_transform_get_instance_private (GST_AVHW_BASE_TRANSFORM (s)))

static void
gst_avhw_base_transform_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  if (!gst_avhw_element_device_set_property (&PRIV (object)->dev,
          GST_ELEMENT (object), prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_avhw_base_transform_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  if (!gst_avhw_element_device_get_property (&PRIV (object)->dev,
          GST_ELEMENT (object), prop_id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
}

static void
gst_avhw_base_transform_finalize (GObject * object)
{
  gst_avhw_element_device_clear (&PRIV (object)->dev);
  G_OBJECT_CLASS (gst_avhw_base_transform_parent_class)->finalize (object);
}

static void
gst_avhw_base_transform_set_context (GstElement * element, GstContext * context)
{
  gst_avhw_element_device_set_context (&PRIV (element)->dev, element, context);
  GST_ELEMENT_CLASS (gst_avhw_base_transform_parent_class)->set_context
      (element, context);
}

static GstStateChangeReturn
gst_avhw_base_transform_change_state (GstElement * element,
    GstStateChange transition)
{
  GstStateChangeReturn ret;

  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    PRIV (element)->dev.adopt_auto =
        GST_AVHW_BASE_TRANSFORM_GET_CLASS (element)->adopt_input_device;
    if (!gst_avhw_element_device_ensure (&PRIV (element)->dev, element))
      return GST_STATE_CHANGE_FAILURE;
  }

  ret = GST_ELEMENT_CLASS (gst_avhw_base_transform_parent_class)->change_state
      (element, transition);

  if (transition == GST_STATE_CHANGE_READY_TO_NULL)
    gst_avhw_element_device_release (&PRIV (element)->dev, element);
  return ret;
}

static gboolean
gst_avhw_base_transform_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  if (gst_avhw_element_device_query (&PRIV (trans)->dev, GST_ELEMENT (trans),
          query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (gst_avhw_base_transform_parent_class)->query
      (trans, direction, query);
}

static void
gst_avhw_base_transform_class_init (GstAvhwBaseTransformClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);

  gobject_class->set_property = gst_avhw_base_transform_set_property;
  gobject_class->get_property = gst_avhw_base_transform_get_property;
  gobject_class->finalize = gst_avhw_base_transform_finalize;
  gst_avhw_element_device_install_properties (gobject_class);

  element_class->set_context = gst_avhw_base_transform_set_context;
  element_class->change_state = gst_avhw_base_transform_change_state;
  GST_BASE_TRANSFORM_CLASS (klass)->query = gst_avhw_base_transform_query;

  GST_DEBUG_CATEGORY_INIT (gst_avhw_base_transform_debug, "avhwbasetransform",
      0, "gst-avhw transform base");
  gst_type_mark_as_plugin_api (GST_TYPE_AVHW_BASE_TRANSFORM, 0);
}

static void
gst_avhw_base_transform_init (GstAvhwBaseTransform * self)
{
  gst_avhw_element_device_init (&PRIV (self)->dev);
}

/* Returns: (transfer none) (nullable): the element's device, set from READY
 * on; elements call it from their streaming vfuncs. */
GstAvhwDevice *
gst_avhw_base_transform_get_device (GstAvhwBaseTransform * self)
{
  return PRIV (self)->dev.device;
}

/* Returns: TRUE when @device became the element's device (it had none). */
gboolean
gst_avhw_base_transform_adopt_device (GstAvhwBaseTransform * self,
    GstAvhwDevice * device)
{
  return gst_avhw_element_device_adopt (&PRIV (self)->dev, GST_ELEMENT (self),
      device);
}
