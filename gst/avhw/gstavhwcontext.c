/* gst-avhw: sharing a device through GstContext
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhw-impl.h"

GST_DEBUG_CATEGORY_STATIC (GST_CAT_CONTEXT);

/**
 * SECTION:gstavhwcontext
 * @title: Device sharing
 * @short_description: one device along a pipeline and across pipelines
 *
 * Every avhw element gets its device the same way, with
 * gst_avhw_ensure_element_device() when it goes from NULL to READY:
 *
 * 1. a device it already has (set by the application or a neighbour) is kept;
 * 2. a `gst.avhw.device` context query downstream, then upstream;
 * 3. a NEED_CONTEXT message, answered by a bin that already holds such a
 *    context or by the application (a bus sync handler calling
 *    gst_element_set_context());
 * 4. queries for GStreamer's own device contexts of the backends that
 *    interoperate (gst.cuda.context...): the avhw device is then made on
 *    that very device (gst_avhw_device_open_foreign());
 * 5. when the element names a backend whose devices GStreamer's own
 *    elements can share and a downstream neighbour takes only GStreamer's
 *    own memory of that kind (`avhwdec device=vulkan ! vulkandownload`),
 *    or an upstream one gives only that memory and the backend takes it
 *    (`vulkanupload ! avhwupload device=vulkan`),
 *    a device of GStreamer's type made by the backend
 *    (#GstAvhwForeignInteropInterface.make_foreign_context), so the neighbour, which
 *    asks later, gets that same device; else
 *    the process-wide cache: gst_avhw_device_open(), which for `auto` and a
 *    backend name opens that backend's least busy device (the only place a
 *    device is chosen by load);
 * 6. it posts HAVE_CONTEXT (ours, and the backend's foreign type when it
 *    interoperates), so the pipeline, GStreamer's own elements and the
 *    application learn the device and later elements get it in step 3.
 *
 * A context whose device does not match the element's `device` property
 * (e.g. a cuda device for an element asking for `vulkan`) is ignored.
 */

static void
init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_GET (GST_CAT_CONTEXT, "GST_CONTEXT");
    gst_avhw_init ();
    g_once_init_leave (&done, 1);
  }
}

/**
 * gst_avhw_context_new:
 * @device: a #GstAvhwDevice
 *
 * Makes a persistent `gst.avhw.device` context holding @device, to hand to
 * gst_element_set_context() (from a NEED_CONTEXT handler, or on a pipeline
 * before it starts).
 *
 * Returns: (transfer full): a new #GstContext
 */
GstContext *
gst_avhw_context_new (GstAvhwDevice * device)
{
  GstContext *context;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  context = gst_context_new (GST_AVHW_DEVICE_CONTEXT_TYPE, TRUE);
  gst_structure_set (gst_context_writable_structure (context), "device",
      GST_TYPE_AVHW_DEVICE, device, NULL);
  return context;
}

/**
 * gst_avhw_context_get_device:
 * @context: a #GstContext
 * @device: (out) (transfer full) (optional): the device it holds
 *
 * Returns: %TRUE when @context is a `gst.avhw.device` context with a device
 */
gboolean
gst_avhw_context_get_device (GstContext * context, GstAvhwDevice ** device)
{
  const GstStructure *s;
  GstAvhwDevice *d = NULL;

  g_return_val_if_fail (GST_IS_CONTEXT (context), FALSE);
  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_AVHW_DEVICE_CONTEXT_TYPE) != 0)
    return FALSE;
  s = gst_context_get_structure (context);
  if (!gst_structure_get (s, "device", GST_TYPE_AVHW_DEVICE, &d, NULL) || !d)
    return FALSE;
  if (device)
    *device = d;
  else
    gst_object_unref (d);
  return TRUE;
}

static gboolean
pad_query (const GValue * item, GValue * value, gpointer user_data)
{
  GstPad *pad = g_value_get_object (item);
  GstQuery *query = user_data;

  if (gst_pad_peer_query (pad, query)) {
    g_value_set_boolean (value, TRUE);
    return FALSE;
  }
  return TRUE;
}

static gboolean
run_query (GstElement * element, GstQuery * query, GstPadDirection direction)
{
  GstIterator *it;
  GValue res = G_VALUE_INIT;
  gboolean ret;

  g_value_init (&res, G_TYPE_BOOLEAN);
  g_value_set_boolean (&res, FALSE);
  it = direction == GST_PAD_SRC ? gst_element_iterate_src_pads (element) :
      gst_element_iterate_sink_pads (element);
  while (gst_iterator_fold (it, pad_query, &res, query) == GST_ITERATOR_RESYNC)
    gst_iterator_resync (it);
  gst_iterator_free (it);
  ret = g_value_get_boolean (&res);
  g_value_unset (&res);
  return ret;
}

/* The backends that could serve @device_string (a list of new
 * references): the one it names alone (the others' plugins stay
 * unloaded), none when that is not installed, every one for `auto`. */
static GList *
serving_backends (const gchar * device_string)
{
  GList *list = NULL;
  gchar *want = NULL;
  GstAvhwBackend *named;

  gst_avhw_device_parse_string (device_string, &want, NULL, NULL);
  if (!want)
    list = gst_avhw_backend_list ();
  else if ((named = gst_avhw_backend_find (want, NULL)))
    list = g_list_prepend (NULL, named);
  g_free (want);
  return list;
}

/* Whether a backend that could serve @device_string takes GStreamer's own
 * context type @type. */
static gboolean
is_foreign_type (const gchar * type, const gchar * device_string)
{
  GList *list = serving_backends (device_string), *l;
  gboolean ret = FALSE;

  for (l = list; l && !ret; l = l->next)
    ret = g_strcmp0 (gst_avhw_backend_get_foreign_context_type (l->data),
        type) == 0;
  g_list_free_full (list, gst_object_unref);
  return ret;
}

/* A context of GStreamer's own type @type holding @device (or what of it
 * @type asks for), when its backend interoperates with that type. */
static GstContext *
make_foreign_context (GstAvhwDevice * device, const gchar * type)
{
  GstAvhwBackend *b = gst_avhw_device_get_backend (device);
  GstAvhwForeignInteropInterface *iface =
      gst_avhw_backend_get_foreign_interop (b);
  GstContext *context;

  if (!type || !iface || !iface->fill_foreign_context
      || (g_strcmp0 (iface->foreign_context_type, type) != 0
          && !(iface->foreign_query_types
              && g_strv_contains ((const gchar * const *)
                  iface->foreign_query_types, type))))
    return NULL;
  context = gst_context_new (type, TRUE);
  if (!iface->fill_foreign_context (b, device, context)) {
    gst_context_unref (context);
    return NULL;
  }
  return context;
}

/* Asks the neighbours for GStreamer's own device contexts of the backends
 * that could serve @device_string. */
static void
find_foreign_context (GstElement * element, const gchar * device_string)
{
  GList *list = serving_backends (device_string), *l;

  for (l = list; l; l = l->next) {
    const gchar *type = gst_avhw_backend_get_foreign_context_type (l->data);
    GstQuery *query;
    GstContext *ctx = NULL;

    if (!type)
      continue;
    query = gst_query_new_context (type);
    if (run_query (element, query, GST_PAD_SRC)
        || run_query (element, query, GST_PAD_SINK)) {
      gst_query_parse_context (query, &ctx);
      GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element, "found a %s context",
          type);
      gst_element_set_context (element, ctx);
    }
    gst_query_unref (query);
  }
  g_list_free_full (list, gst_object_unref);
}

static void
find_context (GstElement * element)
{
  GstQuery *query = gst_query_new_context (GST_AVHW_DEVICE_CONTEXT_TYPE);
  GstContext *ctx = NULL;

  if (run_query (element, query, GST_PAD_SRC)) {
    gst_query_parse_context (query, &ctx);
    GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element,
        "found avhw device context downstream");
    gst_element_set_context (element, ctx);
  } else if (run_query (element, query, GST_PAD_SINK)) {
    gst_query_parse_context (query, &ctx);
    GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element,
        "found avhw device context upstream");
    gst_element_set_context (element, ctx);
  } else {
    GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element,
        "posting need-context for " GST_AVHW_DEVICE_CONTEXT_TYPE);
    gst_element_post_message (element,
        gst_message_new_need_context (GST_OBJECT_CAST (element),
            GST_AVHW_DEVICE_CONTEXT_TYPE));
  }
  gst_query_unref (query);
}

/* Whether the peer of @element's @pad_name pad works in GStreamer's own
 * device memory @feature and in nothing @element could use instead
 * (system memory, or the backend's own @avhw_feature): downstream, a
 * GStreamer element that takes only its memory (vulkandownload), not one
 * that also takes system or avhw memory (avhwdownload); upstream, one that
 * gives only its device memory (vulkanupload, which gives
 * memory:VulkanImage or memory:VulkanBuffer). */
static gboolean
peer_needs_feature (GstElement * element, const gchar * pad_name,
    const gchar * feature, const gchar * avhw_feature)
{
  GstPad *pad = gst_element_get_static_pad (element, pad_name);
  GstCaps *caps;
  gboolean found = FALSE, other = FALSE;
  guint i;

  if (!pad)
    return FALSE;
  caps = gst_pad_peer_query_caps (pad, NULL);
  gst_object_unref (pad);
  if (!caps)
    return FALSE;
  if (gst_caps_is_any (caps))
    other = TRUE;
  for (i = 0; !other && i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);

    if (!f || gst_caps_features_is_any (f)
        || gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_SYSTEM_MEMORY)
        || (avhw_feature && gst_caps_features_contains (f, avhw_feature)))
      other = TRUE;
    else if (gst_caps_features_contains (f, feature))
      found = TRUE;
  }
  gst_caps_unref (caps);
  return found && !other;
}

/* Step 5's first half: a device of GStreamer's own type made for
 * @device_string, when a GStreamer element next to @element needs it. */
static GstAvhwDevice *
open_for_foreign_peer (GstElement * element, const gchar * device_string)
{
  GstAvhwBackend *b;
  GstAvhwForeignInteropInterface *iface;
  GstAvhwDevice *dev = NULL;
  GstContext *context;
  GError *err = NULL;
  gchar *want = NULL;
  gint index = -1;

  if (!gst_avhw_device_parse_string (device_string, &want, &index, NULL)
      || !want)
    goto out;
  b = gst_avhw_backend_find (want, NULL);
  if (!b)
    goto out;
  iface = gst_avhw_backend_get_foreign_interop (b);
  if (iface && iface->make_foreign_context && iface->foreign_context_type
      && ((gst_avhw_backend_get_foreign_memory_feature (b)
              && peer_needs_feature (element, "src",
                  gst_avhw_backend_get_foreign_memory_feature (b),
                  gst_avhw_backend_get_caps_feature (b)))
          || (gst_avhw_backend_get_foreign_input_feature (b)
              && peer_needs_feature (element, "sink",
                  gst_avhw_backend_get_foreign_input_feature (b),
                  gst_avhw_backend_get_caps_feature (b))))) {
    context = iface->make_foreign_context (b, index, &err);
    if (context) {
      dev = gst_avhw_device_open_foreign (context, device_string, &err);
      gst_context_unref (context);
    }
    if (dev)
      GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element, "made %s on a %s "
          "device for the GStreamer element next to it",
          gst_avhw_device_get_name (dev), iface->foreign_context_type);
    else
      GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element, "no %s device for "
          "the GStreamer element next to it (%s): opening our own",
          iface->foreign_context_type, err ? err->message : "none");
    g_clear_error (&err);
  }
  gst_object_unref (b);
out:
  g_free (want);
  return dev;
}

/**
 * gst_avhw_find_element_device:
 * @element: the element that looks for a device
 * @device_string: (nullable): the element's `device` property
 * @device: (inout) (transfer full) (nullable): the element's device; the
 *   element's set_context handler must store into the same location with
 *   gst_avhw_handle_set_context(), under the same lock rules
 * @error: return location for a #GError
 *
 * The context flow described above without its last step: asks the peers,
 * then the application and the bins (need-context), and opens nothing. For
 * elements that can work without a device of their own until their input
 * brings one (avhwdownload).
 *
 * Returns: %FALSE when @device_string does not parse (@error says why),
 *   else %TRUE; *@device is set when a matching device was found
 */
gboolean
gst_avhw_find_element_device (GstElement * element,
    const gchar * device_string, GstAvhwDevice ** device, GError ** error)
{
  g_return_val_if_fail (GST_IS_ELEMENT (element), FALSE);
  g_return_val_if_fail (device != NULL, FALSE);
  init_debug ();

  if (!gst_avhw_device_parse_string (device_string, NULL, NULL, error))
    return FALSE;
  if (*device)
    return TRUE;
  find_context (element);
  if (*device)
    return TRUE;
  find_foreign_context (element, device_string);
  return TRUE;
}

/**
 * gst_avhw_ensure_element_device:
 * @element: the element that needs a device
 * @device_string: (nullable): the element's `device` property
 * @device: (inout) (transfer full) (nullable): the element's device; the
 *   element's set_context handler must store into the same location with
 *   gst_avhw_handle_set_context(), under the same lock rules
 * @error: return location for a #GError
 *
 * Runs the context flow described above. Call it when going to READY.
 *
 * Returns: %TRUE when *@device holds a device matching @device_string
 */
gboolean
gst_avhw_ensure_element_device (GstElement * element,
    const gchar * device_string, GstAvhwDevice ** device, GError ** error)
{
  GstAvhwDevice *dev;

  if (!gst_avhw_find_element_device (element, device_string, device, error))
    return FALSE;
  if (*device)
    return TRUE;

  dev = open_for_foreign_peer (element, device_string);
  if (!dev)
    dev = gst_avhw_device_open (device_string, NULL, error);
  if (!dev)
    return FALSE;
  *device = dev;

  {
    GstContext *context = gst_avhw_context_new (dev);
    const gchar *foreign = gst_avhw_backend_get_foreign_context_type
        (gst_avhw_device_get_backend (dev));

    GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element,
        "posting have-context with device %s", gst_avhw_device_get_name (dev));
    gst_element_post_message (element,
        gst_message_new_have_context (GST_OBJECT_CAST (element), context));
    /* Let GStreamer's own elements for this device kind use it too. */
    context = make_foreign_context (dev, foreign);
    if (context)
      gst_element_post_message (element,
          gst_message_new_have_context (GST_OBJECT_CAST (element), context));
  }
  return TRUE;
}

/**
 * gst_avhw_handle_set_context:
 * @element: an element
 * @context: (nullable): the context given to the element's set_context
 * @device_string: (nullable): the element's `device` property
 * @device: (inout) (transfer full) (nullable): the element's device
 *
 * For #GstElementClass.set_context: takes the device out of a
 * `gst.avhw.device` context when the element has none yet and the device
 * matches @device_string.
 *
 * Returns: %TRUE when *@device was set from @context
 */
gboolean
gst_avhw_handle_set_context (GstElement * element, GstContext * context,
    const gchar * device_string, GstAvhwDevice ** device)
{
  GstAvhwDevice *other = NULL;

  g_return_val_if_fail (device != NULL, FALSE);
  init_debug ();
  if (!context || *device)
    return FALSE;
  if (g_strcmp0 (gst_context_get_context_type (context),
          GST_AVHW_DEVICE_CONTEXT_TYPE) != 0) {
    /* GStreamer's own context for a device kind a backend interoperates
     * with (gst.cuda.context...): use the very same device. */
    if (!is_foreign_type (gst_context_get_context_type (context),
            device_string))
      return FALSE;
    *device = gst_avhw_device_open_foreign (context, device_string, NULL);
    if (*device)
      GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element, "using device %s from "
          "a %s context", gst_avhw_device_get_name (*device),
          gst_context_get_context_type (context));
    return *device != NULL;
  }
  if (!gst_avhw_context_get_device (context, &other))
    return FALSE;
  if (!gst_avhw_device_matches (other, device_string)) {
    GST_CAT_INFO_OBJECT (GST_CAT_CONTEXT, element, "ignoring shared device "
        "%s: it does not match device=%s", gst_avhw_device_get_name (other),
        device_string);
    gst_object_unref (other);
    return FALSE;
  }
  GST_CAT_DEBUG_OBJECT (GST_CAT_CONTEXT, element, "using shared device %s",
      gst_avhw_device_get_name (other));
  *device = other;
  return TRUE;
}

/**
 * gst_avhw_handle_context_query:
 * @element: an element
 * @query: a %GST_QUERY_CONTEXT query
 * @device: (nullable): the element's device
 *
 * Answers a `gst.avhw.device` context query with @device.
 *
 * Returns: %TRUE when the query was answered
 */
gboolean
gst_avhw_handle_context_query (GstElement * element, GstQuery * query,
    GstAvhwDevice * device)
{
  const gchar *type;
  GstContext *context;

  g_return_val_if_fail (GST_IS_QUERY (query), FALSE);
  init_debug ();
  if (!device || GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  gst_query_parse_context_type (query, &type);
  if (g_strcmp0 (type, GST_AVHW_DEVICE_CONTEXT_TYPE) != 0) {
    context = make_foreign_context (device, type);
    if (!context)
      return FALSE;
    gst_query_set_context (query, context);
    gst_context_unref (context);
    return TRUE;
  }
  context = gst_avhw_context_new (device);
  gst_query_set_context (query, context);
  gst_context_unref (context);
  return TRUE;
}
