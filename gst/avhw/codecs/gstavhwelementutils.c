/* gst-avhw: the device property and context flow, shared by every element
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhwelementutils.h"

void
gst_avhw_element_device_install_properties (GObjectClass * klass)
{
  /**
   * GstAvhwElement:device:
   *
   * Which device to run on: `auto` (the one a neighbouring element, the
   * pipeline or the application shares, else a device of the
   * highest-ranked backend present), a backend name (`vulkan`, `cuda`: one
   * of its devices) or `BACKEND:INDEX` (`cuda:1`). Where `auto` or a
   * backend name opens a device, it is that backend's device with the
   * fewest active avhw decoders and encoders in the process, ties to the
   * lowest index; a device that fails to open is skipped with a warning.
   * Read when the element goes to READY.
   */
  g_object_class_install_property (klass, GST_AVHW_ELEMENT_PROP_DEVICE,
      g_param_spec_string ("device", "Device",
          "Device to use: auto, BACKEND or BACKEND:INDEX (e.g. vulkan:0)",
          DEFAULT_PROP_DEVICE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
          GST_PARAM_MUTABLE_READY));
  /**
   * GstAvhwElement:active-device:
   *
   * The device in use from READY on (shared with the other elements and
   * pipelines that use the same device), %NULL before and after; its name
   * (e.g. "cuda:1") says where the stream went. avhwdownload with
   * device=auto opens none and reports its first frame's device.
   */
  g_object_class_install_property (klass, GST_AVHW_ELEMENT_PROP_ACTIVE_DEVICE,
      g_param_spec_object ("active-device", "Active device",
          "The device in use (from READY on)", GST_TYPE_AVHW_DEVICE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
}

void
gst_avhw_element_device_init (GstAvhwElementDevice * d)
{
  g_mutex_init (&d->lock);
  d->device_string = g_strdup (DEFAULT_PROP_DEVICE);
}

void
gst_avhw_element_device_clear (GstAvhwElementDevice * d)
{
  if (d->session) {
    gst_avhw_device_release_session (d->session);
    gst_clear_object (&d->session);
  }
  gst_clear_object (&d->device);
  g_clear_pointer (&d->device_string, g_free);
  g_mutex_clear (&d->lock);
}

gboolean
gst_avhw_element_device_set_property (GstAvhwElementDevice * d,
    GstElement * element, guint prop_id, const GValue * value)
{
  if (prop_id != GST_AVHW_ELEMENT_PROP_DEVICE)
    return FALSE;
  g_mutex_lock (&d->lock);
  g_free (d->device_string);
  d->device_string = g_value_dup_string (value);
  if (!d->device_string)
    d->device_string = g_strdup (DEFAULT_PROP_DEVICE);
  g_mutex_unlock (&d->lock);
  return TRUE;
}

gboolean
gst_avhw_element_device_get_property (GstAvhwElementDevice * d,
    GstElement * element, guint prop_id, GValue * value)
{
  g_mutex_lock (&d->lock);
  if (prop_id == GST_AVHW_ELEMENT_PROP_DEVICE)
    g_value_set_string (value, d->device_string);
  else if (prop_id == GST_AVHW_ELEMENT_PROP_ACTIVE_DEVICE)
    g_value_set_object (value, d->device);
  g_mutex_unlock (&d->lock);
  return prop_id == GST_AVHW_ELEMENT_PROP_DEVICE
      || prop_id == GST_AVHW_ELEMENT_PROP_ACTIVE_DEVICE;
}

void
gst_avhw_element_device_set_context (GstAvhwElementDevice * d,
    GstElement * element, GstContext * context)
{
  gchar *want;

  g_mutex_lock (&d->lock);
  want = g_strdup (d->device_string);
  g_mutex_unlock (&d->lock);
  /* The helper only fills an empty slot; no lock held while it logs. */
  if (!d->device) {
    GstAvhwDevice *dev = NULL;
    if (gst_avhw_handle_set_context (element, context, want, &dev)) {
      g_mutex_lock (&d->lock);
      if (!d->device)
        d->device = dev;
      else
        gst_object_unref (dev);
      g_mutex_unlock (&d->lock);
    }
  }
  g_free (want);
}

/* `auto` or empty: no backend named */
static gboolean
is_auto (const gchar * device_string)
{
  gchar *backend = NULL;
  gboolean ret = gst_avhw_device_parse_string (device_string, &backend, NULL,
      NULL) && backend == NULL;

  g_free (backend);
  return ret;
}

/* NULL -> READY. Posts an element error naming the device on failure. */
gboolean
gst_avhw_element_device_ensure (GstAvhwElementDevice * d, GstElement * element)
{
  GError *err = NULL;
  gchar *want;
  gboolean ok;

  g_mutex_lock (&d->lock);
  want = g_strdup (d->device_string);
  g_mutex_unlock (&d->lock);

  /* ensure() runs the context flow, during which set_context() fills
   * d->device; it reads and writes the same slot, from this thread. */
  d->resolving = TRUE;
  if (d->adopt_auto && is_auto (want))
    ok = gst_avhw_find_element_device (element, want, &d->device, &err);
  else
    ok = gst_avhw_ensure_element_device (element, want, &d->device, &err);
  d->resolving = FALSE;
  if (!ok) {
    /* the cause in the message, not only in the debug string: it is
     * what a user can act on (a missing driver library, no such index) */
    GST_ELEMENT_ERROR (element, RESOURCE, OPEN_READ_WRITE,
        ("Could not open avhw device \"%s\": %s", want,
            err ? err->message : "unknown error"), (NULL));
    g_clear_error (&err);
  } else if (d->device) {
    GST_INFO_OBJECT (element, "using device %s",
        gst_avhw_device_get_name (d->device));
    g_object_notify (G_OBJECT (element), "active-device");
  } else {
    GST_INFO_OBJECT (element, "no device yet: taking the input's");
  }
  g_free (want);
  return ok;
}

/* For adopt_auto elements: takes @device (the one the input's memory
 * belongs to) when the element has none yet. Returns TRUE when it did. */
gboolean
gst_avhw_element_device_adopt (GstAvhwElementDevice * d, GstElement * element,
    GstAvhwDevice * device)
{
  gboolean adopted = FALSE;

  g_mutex_lock (&d->lock);
  if (!d->device) {
    d->device = gst_object_ref (device);
    adopted = TRUE;
  }
  g_mutex_unlock (&d->lock);
  if (adopted) {
    GST_INFO_OBJECT (element, "using the input's device %s",
        gst_avhw_device_get_name (device));
    g_object_notify (G_OBJECT (element), "active-device");
  }
  return adopted;
}

/* READY -> NULL: drop our reference; the cache keeps the device for the
 * next pipeline unless reuse is off. */
void
gst_avhw_element_device_release (GstAvhwElementDevice * d, GstElement * element)
{
  GstAvhwDevice *dev;

  g_mutex_lock (&d->lock);
  dev = d->device;
  d->device = NULL;
  g_mutex_unlock (&d->lock);
  gst_clear_object (&dev);
}

/* READY -> PAUSED of avhwdec and avhwenc: counts the element as an active
 * session on its device until end_session(), so the next `auto`/`BACKEND`
 * open places elsewhere. Counted from here, not from the codec open in the
 * streaming thread: gst_element_set_state() has returned by then for a
 * pipeline going to PLAYING, so pipelines started one after another see
 * each other. */
gboolean
gst_avhw_element_device_begin_session (GstAvhwElementDevice * d,
    GstElement * element)
{
  GstAvhwDevice *dev = NULL;

  g_mutex_lock (&d->lock);
  if (d->device && !d->session)
    dev = d->session = gst_object_ref (d->device);
  g_mutex_unlock (&d->lock);
  if (dev) {
    gst_avhw_device_acquire_session (dev);
    GST_INFO_OBJECT (element, "active on %s (%u active there)",
        gst_avhw_device_get_name (dev), gst_avhw_device_get_n_active (dev));
  }
  return dev != NULL;
}

/* PAUSED -> READY (and a failed READY -> PAUSED) */
void
gst_avhw_element_device_end_session (GstAvhwElementDevice * d,
    GstElement * element)
{
  GstAvhwDevice *dev;

  g_mutex_lock (&d->lock);
  dev = d->session;
  d->session = NULL;
  g_mutex_unlock (&d->lock);
  if (dev) {
    gst_avhw_device_release_session (dev);
    GST_DEBUG_OBJECT (element, "no longer active on %s",
        gst_avhw_device_get_name (dev));
    gst_object_unref (dev);
  }
}

gboolean
gst_avhw_element_device_query (GstAvhwElementDevice * d, GstElement * element,
    GstQuery * query)
{
  GstAvhwDevice *dev = NULL;
  gboolean ret, named;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  g_mutex_lock (&d->lock);
  if (d->device)
    dev = gst_object_ref (d->device);
  named = !dev && !d->resolving && !is_auto (d->device_string);
  g_mutex_unlock (&d->lock);
  /* A neighbour at device=auto asks before this element, which names its
   * device, has reached READY (state changes go from the sinks up, so
   * `avhwdec device=opencl ! avhwenc` asks avhwdec while it is still in
   * NULL): open the named device now, as READY would, so that the whole
   * pipeline is on it (docs/elements.md, "Devices"). */
  if (named && gst_avhw_element_device_ensure (d, element)) {
    g_mutex_lock (&d->lock);
    if (d->device)
      dev = gst_object_ref (d->device);
    g_mutex_unlock (&d->lock);
  }
  ret = gst_avhw_handle_context_query (element, query, dev);
  gst_clear_object (&dev);
  return ret;
}

/* Once per stream (*@noted): @buffer holds a frame of another device than
 * @own, @element's, and is copied through system memory to it (the
 * elements name different devices). Says so on the bus, as an INFO
 * message, and in the debug log, so the copy is never a surprise. */
void
gst_avhw_element_note_device_copy (GstElement * element, gboolean * noted,
    GstBuffer * buffer, GstAvhwDevice * own)
{
  GstAvhwDevice *from;

  if (*noted || !buffer || !own)
    return;
  from = gst_avhw_buffer_get_device (buffer);
  if (!from || from == own)
    return;
  *noted = TRUE;
  GST_INFO_OBJECT (element, "frames of %s copied to %s through system memory",
      gst_avhw_device_get_name (from), gst_avhw_device_get_name (own));
  GST_ELEMENT_INFO (element, RESOURCE, SETTINGS,
      ("Frames come from device %s and %s works on %s: each frame is copied "
          "through system memory (name the same device on both elements to "
          "keep frames on one device).", gst_avhw_device_get_name (from),
          GST_ELEMENT_NAME (element), gst_avhw_device_get_name (own)), (NULL));
}

/* The read-only codec properties of avhwdec and avhwenc: sets *@name_field
 * (a static FFmpeg codec name) and *@hw_field under @element's object lock
 * and notifies @name_property and "hardware" when they change. */
void
gst_avhw_element_set_active (GstElement * element, const gchar ** name_field,
    gboolean * hw_field, const gchar * name, gboolean hw,
    const gchar * name_property)
{
  gboolean changed;

  GST_OBJECT_LOCK (element);
  changed = *name_field != name || *hw_field != hw;
  *name_field = name;
  *hw_field = hw;
  GST_OBJECT_UNLOCK (element);
  if (changed) {
    g_object_notify (G_OBJECT (element), name_property);
    g_object_notify (G_OBJECT (element), "hardware");
  }
}
