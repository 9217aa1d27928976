/* gst-avhw: one opened hardware device
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <libavutil/pixdesc.h>

#include "gstavhw-impl.h"
#include "gstavhwdevice-private.h"

GST_DEBUG_CATEGORY_STATIC (avhw_device_debug);
#define GST_CAT_DEFAULT avhw_device_debug

/**
 * SECTION:gstavhwdevice
 * @title: GstAvhwDevice
 * @short_description: one opened hardware device
 *
 * A #GstAvhwDevice holds one FFmpeg device context (an AVBufferRef whose
 * data is an AVHWDeviceContext) of one backend. Devices are refcounted
 * GstObjects; the FFmpeg context lives as long as the last reference to the
 * device and to any frame made on it.
 *
 * Device strings, parsed only by gst_avhw_device_parse_string():
 * `auto` (or empty): a device of the highest-ranked backend that has one;
 * `NAME`: a device of backend NAME; `NAME:N`: device N of backend NAME.
 *
 * Placement: for `auto` and `NAME` the library picks, among the backend's
 * devices, the one with the fewest active sessions in this process (avhw
 * decoders and encoders between READY→PAUSED and PAUSED→READY, see
 * gst_avhw_device_acquire_session()), ties to the lowest index. A device
 * that fails to open is skipped with a warning and the next least busy one
 * is tried. `NAME:N` always means device N. Placement happens only when a
 * device is opened: elements of one pipeline share the first one's device
 * through the `gst.avhw.device` context (see gst_avhw_ensure_element_device()).
 */

struct _GstAvhwDevice
{
  GstObject parent;

  GstAvhwBackend *backend;
  guint index;
  AVBufferRef *device_ctx;
  GMutex formats_lock;          /* listed and their probes */
  GArray *listed;               /* ListedFormat, the backend's order */
  gint n_sessions;              /* this device context's own, atomic */
};

/* A format the backend lists for the device, and whether frames of it
 * could be allocated: probed when first asked about (can_allocate()) */
typedef enum
{
  FORMAT_NOT_PROBED,
  FORMAT_HELD,
  FORMAT_REFUSED,
} FormatState;

typedef struct
{
  gint format;                  /* enum AVPixelFormat */
  FormatState state;
} ListedFormat;

G_DEFINE_TYPE (GstAvhwDevice, gst_avhw_device, GST_TYPE_OBJECT);

static void
gst_avhw_device_finalize (GObject * object)
{
  GstAvhwDevice *self = GST_AVHW_DEVICE (object);

  GST_DEBUG_OBJECT (self, "releasing device context %p",
      self->device_ctx ? self->device_ctx->data : NULL);
  av_buffer_unref (&self->device_ctx);
  gst_clear_object (&self->backend);
  g_clear_pointer (&self->listed, g_array_unref);
  g_mutex_clear (&self->formats_lock);
  G_OBJECT_CLASS (gst_avhw_device_parent_class)->finalize (object);
}

/* The category, also for the functions that log before any device
 * exists (placement) */
static void
ensure_debug (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (avhw_device_debug, "avhwdevice", 0,
        "gst-avhw device");
    g_once_init_leave (&once, 1);
  }
}

static void
gst_avhw_device_class_init (GstAvhwDeviceClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_avhw_device_finalize;
  gst_avhw_init ();
  ensure_debug ();
}

static void
gst_avhw_device_init (GstAvhwDevice * self)
{
  g_mutex_init (&self->formats_lock);
}

GstAvhwDevice *
gst_avhw_device_new_internal (GstAvhwBackend * backend, guint index,
    AVBufferRef * device_ctx, gboolean wrapped)
{
  GstAvhwDevice *self;
  gchar *name;

  name = wrapped ? g_strdup_printf ("%s:%u-wrapped-%p",
      gst_avhw_backend_get_name (backend), index, device_ctx->data) :
      g_strdup_printf ("%s:%u", gst_avhw_backend_get_name (backend), index);
  self = g_object_new (GST_TYPE_AVHW_DEVICE, "name", name, NULL);
  g_free (name);
  gst_object_ref_sink (self);
  self->backend = gst_object_ref (backend);
  self->index = index;
  self->device_ctx = device_ctx;
  return self;
}

/**
 * gst_avhw_device_parse_string:
 * @device_string: (nullable): `auto`, `NAME` or `NAME:N`
 * @backend_name: (out) (optional) (transfer full) (nullable): the backend
 *   name, %NULL for `auto`
 * @index: (out) (optional): the device index, -1 when not given
 * @error: return location for a #GError
 *
 * The one parser of device strings. It only checks the syntax; whether the
 * backend exists is checked when the device is opened.
 *
 * Returns: %TRUE when @device_string is well formed
 */
gboolean
gst_avhw_device_parse_string (const gchar * device_string,
    gchar ** backend_name, gint * index, GError ** error)
{
  const gchar *colon;
  gchar *name;
  gint idx = -1;
  const gchar *p;

  if (backend_name)
    *backend_name = NULL;
  if (index)
    *index = -1;
  if (!device_string || !*device_string
      || g_ascii_strcasecmp (device_string, GST_AVHW_DEVICE_AUTO) == 0)
    return TRUE;

  colon = strchr (device_string, ':');
  name = colon ? g_strndup (device_string, colon - device_string) :
      g_strdup (device_string);
  for (p = name; *p; p++) {
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '-')
      break;
  }
  if (!*name || *p) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "invalid device string \"%s\": expected \"auto\", \"BACKEND\" or "
        "\"BACKEND:INDEX\" (e.g. \"vulkan:0\")", device_string);
    g_free (name);
    return FALSE;
  }
  if (colon) {
    gchar *end = NULL;
    gint64 v;

    errno = 0;
    v = g_ascii_strtoll (colon + 1, &end, 10);
    if (!colon[1] || *end || errno || v < 0 || v > G_MAXINT) {
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
          "invalid device index in \"%s\": expected a number >= 0 after "
          "\"%s:\"", device_string, name);
      g_free (name);
      return FALSE;
    }
    idx = (gint) v;
  }
  if (backend_name)
    *backend_name = name;
  else
    g_free (name);
  if (index)
    *index = idx;
  return TRUE;
}

/* Active sessions per hardware device, keyed by device name ("cuda:1"; a
 * wrapped device by its own name, so that someone else's device does not
 * count for an index it may not be). Placement reads them. */
static GMutex load_lock;
static GHashTable *loads;       /* name -> GUINT_TO_POINTER (count) */

static guint
n_active_by_name (const gchar * name)
{
  guint n;

  g_mutex_lock (&load_lock);
  n = loads ? GPOINTER_TO_UINT (g_hash_table_lookup (loads, name)) : 0;
  g_mutex_unlock (&load_lock);
  return n;
}

typedef struct
{
  guint index;
  guint load;
} Candidate;

static gint
compare_candidates (gconstpointer a, gconstpointer b)
{
  const Candidate *ca = a, *cb = b;

  if (ca->load != cb->load)
    return ca->load < cb->load ? -1 : 1;
  return ca->index < cb->index ? -1 : ca->index > cb->index;
}

/* Every device of @backend, least busy first, ties to the lowest index. */
static GArray *
order_by_load (GstAvhwBackend * backend, guint n)
{
  GArray *order = g_array_sized_new (FALSE, FALSE, sizeof (Candidate), n);
  GString *s = g_string_new (NULL);
  guint i;

  for (i = 0; i < n; i++) {
    Candidate c = { i, gst_avhw_backend_get_n_active (backend, i) };

    g_array_append_val (order, c);
  }
  g_array_sort (order, compare_candidates);
  for (i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s:%u (%u active)", i ? ", " : "",
        gst_avhw_backend_get_name (backend),
        g_array_index (order, Candidate, i).index,
        g_array_index (order, Candidate, i).load);
  GST_DEBUG ("placement order: %s", s->str);
  g_string_free (s, TRUE);
  return order;
}

/* Resolves a device string to a backend and the devices to try, in order:
 * the one a `NAME:N` pins (checked against the backend's cheap
 * enumeration), or every device of the backend (`NAME`, or for `auto` the
 * highest-ranked backend with a device), least busy first. Returns an
 * array of Candidate. */
static gboolean
resolve (const gchar * device_string, GstAvhwBackend ** backend_out,
    GArray ** order_out, GError ** error)
{
  gchar *name = NULL;
  gint index;
  GstAvhwBackend *backend;
  gchar *reason = NULL;
  guint n;

  ensure_debug ();
  if (!gst_avhw_device_parse_string (device_string, &name, &index, error))
    return FALSE;

  if (!name) {
    GList *list = gst_avhw_backend_list (), *l;
    GString *why = g_string_new (NULL);

    for (l = list; l; l = l->next) {
      n = gst_avhw_backend_get_n_devices (l->data, &reason);
      if (n > 0) {
        *backend_out = gst_object_ref (l->data);
        *order_out = order_by_load (l->data, n);
        g_free (reason);
        g_list_free_full (list, gst_object_unref);
        g_string_free (why, TRUE);
        return TRUE;
      }
      g_string_append_printf (why, "%s%s: %s", why->len ? "; " : "",
          gst_avhw_backend_get_name (l->data), reason);
      g_clear_pointer (&reason, g_free);
    }
    g_list_free_full (list, gst_object_unref);
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE,
        "no avhw device present (%s)", why->len ? why->str :
        "no avhw backend is installed; put a backend plugin on "
        "GST_PLUGIN_PATH");
    g_string_free (why, TRUE);
    return FALSE;
  }

  backend = gst_avhw_backend_find (name, error);
  if (!backend) {
    g_free (name);
    return FALSE;
  }
  n = gst_avhw_backend_get_n_devices (backend, &reason);
  if (n == 0 || (index >= 0 && (guint) index >= n)) {
    if (n == 0)
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE,
          "device \"%s\": backend %s has no device (%s)", device_string,
          name, reason);
    else if (n == 1)
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE,
          "device \"%s\" is out of range: backend %s has 1 device (%s:0)",
          device_string, name, name);
    else
      g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE,
          "device \"%s\" is out of range: backend %s has %u devices "
          "(%s:0 to %s:%u)", device_string, name, n, name, name, n - 1);
    g_free (reason);
    g_free (name);
    gst_object_unref (backend);
    return FALSE;
  }
  g_free (reason);
  g_free (name);
  *backend_out = backend;
  if (index >= 0) {
    Candidate c = { index, 0 };

    *order_out = g_array_sized_new (FALSE, FALSE, sizeof (Candidate), 1);
    g_array_append_val (*order_out, c);
  } else {
    *order_out = order_by_load (backend, n);
  }
  return TRUE;
}

/* Opens @device_string with @open: the pinned device, or the least busy
 * device of the backend that opens. A device that fails to open is skipped
 * with a warning while others are left; with one candidate its error is
 * returned as it is. */
GstAvhwDevice *
gst_avhw_device_place (const gchar * device_string,
    GstAvhwDeviceOpenFunc open, gpointer user_data, GError ** error)
{
  GstAvhwBackend *backend = NULL;
  GArray *order = NULL;
  GstAvhwDevice *device = NULL;
  GString *why = NULL;
  const gchar *bname;
  guint i;

  if (!resolve (device_string, &backend, &order, error))
    return NULL;
  bname = gst_avhw_backend_get_name (backend);
  for (i = 0; i < order->len && !device; i++) {
    const Candidate *c = &g_array_index (order, Candidate, i);
    GError *err = NULL;

    device = open (backend, c->index, user_data, &err);
    if (device) {
      if (order->len > 1)
        GST_INFO ("device \"%s\": placed on %s:%u (%u active)",
            device_string ? device_string : GST_AVHW_DEVICE_AUTO, bname,
            c->index, c->load);
      break;
    }
    if (order->len == 1) {
      g_propagate_error (error, err);
      break;
    }
    GST_WARNING ("device \"%s\": %s:%u failed to open, %s: %s",
        device_string ? device_string : GST_AVHW_DEVICE_AUTO, bname,
        c->index, i + 1 < order->len ? "trying the next least busy device" :
        "no device left to try", err ? err->message : "unknown error");
    if (!why)
      why = g_string_new (NULL);
    g_string_append_printf (why, "%s%s:%u: %s", why->len ? "; " : "", bname,
        c->index, err ? err->message : "unknown error");
    g_clear_error (&err);
  }
  if (!device && why)
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED,
        "device \"%s\": none of the %u %s devices could be opened (%s)",
        device_string ? device_string : GST_AVHW_DEVICE_AUTO, order->len,
        bname, why->str);
  if (why)
    g_string_free (why, TRUE);
  g_array_unref (order);
  gst_object_unref (backend);
  return device;
}

static GstAvhwDevice *
open_new (GstAvhwBackend * backend, guint index, gpointer user_data,
    GError ** error)
{
  AVBufferRef *ref = gst_avhw_backend_open_device (backend, index,
      (const GstStructure *) user_data, error);

  return ref ? gst_avhw_device_new_internal (backend, index, ref, FALSE) : NULL;
}

/**
 * gst_avhw_device_open_uncached:
 * @device_string: (nullable): `auto`, `NAME` or `NAME:N`
 * @options: (nullable): device creation options (FFmpeg
 *   av_hwdevice_ctx_create() options, as structure fields)
 * @error: return location for a #GError
 *
 * Opens a new device context every time, bypassing the cache. Most callers
 * want gst_avhw_device_open(). For `auto` and `NAME` the device is chosen by
 * load, as described above.
 *
 * Returns: (transfer full) (nullable): a new device, or %NULL with @error
 */
GstAvhwDevice *
gst_avhw_device_open_uncached (const gchar * device_string,
    const GstStructure * options, GError ** error)
{
  return gst_avhw_device_place (device_string, open_new, (gpointer) options,
      error);
}

/**
 * gst_avhw_device_wrap:
 * @backend_name: the backend that understands @native
 * @native: the backend's native device handle (a CUcontext for `cuda`...),
 *   owned by the caller, who keeps it alive longer than the device
 * @error: return location for a #GError
 *
 * Wraps a device someone else owns. Such devices are never cached: hand
 * them to pipelines with gst_avhw_context_new().
 *
 * Returns: (transfer full) (nullable): a new device, or %NULL with @error
 */
GstAvhwDevice *
gst_avhw_device_wrap (const gchar * backend_name, gpointer native,
    GError ** error)
{
  GstAvhwBackend *backend = gst_avhw_backend_find (backend_name, error);
  GstAvhwDevice *device = NULL;
  AVBufferRef *ref;

  if (!backend)
    return NULL;
  ref = gst_avhw_backend_wrap_device (backend, native, error);
  if (ref)
    device = gst_avhw_device_new_internal (backend, 0, ref, TRUE);
  gst_object_unref (backend);
  return device;
}

/**
 * gst_avhw_device_get_backend:
 * @device: a #GstAvhwDevice
 *
 * Returns: (transfer none): the device's backend
 */
GstAvhwBackend *
gst_avhw_device_get_backend (GstAvhwDevice * device)
{
  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  return device->backend;
}

/**
 * gst_avhw_device_get_index:
 * @device: a #GstAvhwDevice
 *
 * Returns: the device's index within its backend
 */
guint
gst_avhw_device_get_index (GstAvhwDevice * device)
{
  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), 0);
  return device->index;
}

/**
 * gst_avhw_device_get_name:
 * @device: a #GstAvhwDevice
 *
 * Returns: (transfer none): the device's name, e.g. "vulkan:0"
 */
const gchar *
gst_avhw_device_get_name (GstAvhwDevice * device)
{
  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  return GST_OBJECT_NAME (device);
}

/**
 * gst_avhw_device_get_context_id:
 * @device: a #GstAvhwDevice
 *
 * An identity for the device's FFmpeg context (its address): two devices
 * with the same id share one hardware context.
 *
 * Returns: the id
 */
guint64
gst_avhw_device_get_context_id (GstAvhwDevice * device)
{
  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), 0);
  return (guint64) (guintptr) device->device_ctx->data;
}

/**
 * gst_avhw_device_get_device_ctx: (skip)
 * @device: a #GstAvhwDevice
 *
 * Returns: (transfer none): the device's AVBufferRef (an AVHWDeviceContext);
 *   take your own reference with av_buffer_ref() to keep it
 */
AVBufferRef *
gst_avhw_device_get_device_ctx (GstAvhwDevice * device)
{
  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  return device->device_ctx;
}

/**
 * gst_avhw_device_matches:
 * @device: a #GstAvhwDevice
 * @device_string: (nullable): a device string
 *
 * Returns: %TRUE if @device satisfies @device_string (`auto` accepts every
 *   device; `vulkan` every vulkan device; `vulkan:1` only that one)
 */
gboolean
gst_avhw_device_matches (GstAvhwDevice * device, const gchar * device_string)
{
  gchar *name = NULL;
  gint index;
  gboolean ret;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), FALSE);
  if (!gst_avhw_device_parse_string (device_string, &name, &index, NULL))
    return FALSE;
  ret = !name || (g_strcmp0 (name,
          gst_avhw_backend_get_name (device->backend)) == 0
      && (index < 0 || (guint) index == device->index));
  g_free (name);
  return ret;
}

static const gchar *
load_key (GstAvhwDevice * device)
{
  return GST_OBJECT_NAME (device);
}

/**
 * gst_avhw_device_acquire_session:
 * @device: a #GstAvhwDevice
 *
 * Counts one more active session on @device's hardware device (every
 * #GstAvhwDevice of the same backend and index counts together; a wrapped
 * device counts on its own). avhwdec and avhwenc hold one from READY→PAUSED
 * to PAUSED→READY, whether they then decode or encode in hardware or in
 * software: from the moment gst_element_set_state() returns for a pipeline
 * going to PAUSED or PLAYING, so pipelines started one after another see
 * each other's load. avhwupload and avhwdownload hold none. Applications
 * that run sessions of their own on a device may call it so that placement
 * sees them. Pair every call with gst_avhw_device_release_session().
 */
void
gst_avhw_device_acquire_session (GstAvhwDevice * device)
{
  guint n;

  g_return_if_fail (GST_IS_AVHW_DEVICE (device));
  g_atomic_int_inc (&device->n_sessions);
  g_mutex_lock (&load_lock);
  if (!loads)
    loads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  n = GPOINTER_TO_UINT (g_hash_table_lookup (loads, load_key (device))) + 1;
  g_hash_table_insert (loads, g_strdup (load_key (device)),
      GUINT_TO_POINTER (n));
  g_mutex_unlock (&load_lock);
  GST_DEBUG_OBJECT (device, "session acquired, %u active", n);
}

/**
 * gst_avhw_device_release_session:
 * @device: a #GstAvhwDevice
 *
 * Ends a session counted by gst_avhw_device_acquire_session().
 */
void
gst_avhw_device_release_session (GstAvhwDevice * device)
{
  guint n = 0;

  g_return_if_fail (GST_IS_AVHW_DEVICE (device));
  g_mutex_lock (&load_lock);
  if (loads)
    n = GPOINTER_TO_UINT (g_hash_table_lookup (loads, load_key (device)));
  if (n > 1)
    g_hash_table_insert (loads, g_strdup (load_key (device)),
        GUINT_TO_POINTER (n - 1));
  else if (n == 1)
    g_hash_table_remove (loads, load_key (device));
  g_mutex_unlock (&load_lock);
  g_return_if_fail (n > 0);
  g_atomic_int_add (&device->n_sessions, -1);
  GST_DEBUG_OBJECT (device, "session released, %u active", n - 1);
}

/**
 * gst_avhw_device_get_n_active:
 * @device: a #GstAvhwDevice
 *
 * Returns: how many sessions (avhw decoders and encoders past READY, see
 *   gst_avhw_device_acquire_session()) this process runs on @device's
 *   hardware device now
 */
guint
gst_avhw_device_get_n_active (GstAvhwDevice * device)
{
  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), 0);
  return n_active_by_name (load_key (device));
}

/* The sessions counted on this very device context (a lane of its
 * hardware device, see gstavhwcache.c), where gst_avhw_device_get_n_active()
 * counts every context of the hardware device. */
guint
gst_avhw_device_get_n_own_sessions (GstAvhwDevice * device)
{
  return (guint) g_atomic_int_get (&device->n_sessions);
}

/**
 * gst_avhw_backend_get_n_active:
 * @backend: a #GstAvhwBackend
 * @index: a device index of @backend
 *
 * Like gst_avhw_device_get_n_active() for device @index of @backend,
 * without opening it: what placement compares.
 *
 * Returns: the active sessions on that device in this process
 */
guint
gst_avhw_backend_get_n_active (GstAvhwBackend * backend, guint index)
{
  gchar *name;
  guint n;

  g_return_val_if_fail (GST_IS_AVHW_BACKEND (backend), 0);
  name = g_strdup_printf ("%s:%u", gst_avhw_backend_get_name (backend), index);
  n = n_active_by_name (name);
  g_free (name);
  return n;
}

/**
 * gst_avhw_device_get_caps_features:
 * @device: a #GstAvhwDevice
 *
 * Returns: (transfer full): the caps features of this device's memory
 */
GstCapsFeatures *
gst_avhw_device_get_caps_features (GstAvhwDevice * device)
{
  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  return gst_caps_features_new (gst_avhw_backend_get_caps_feature
      (device->backend), NULL);
}

/* FFmpeg's frame constraints list what the driver reports for images, but
 * some listed formats cannot be allocated (NVIDIA's Vulkan driver lists
 * p010le and others, then refuses frames of them: "no supported
 * modifiers"). Each is tried once with a small frame, so caps never offer
 * what the device cannot hold. A try makes a frames context and a frame:
 * ~4 ms on NVIDIA's Vulkan driver, so a format is tried only when first
 * asked about (all 16 at once were 62 ms of a first frame). */
static gboolean
can_allocate (GstAvhwDevice * device, enum AVPixelFormat sw_format)
{
  AVBufferRef *ref = av_hwframe_ctx_alloc (device->device_ctx);
  AVHWFramesContext *fc;
  AVFrame *frame;
  gboolean ok = FALSE;

  if (!ref)
    return FALSE;
  fc = (AVHWFramesContext *) ref->data;
  fc->format = gst_avhw_backend_get_hw_pix_fmt (device->backend);
  fc->sw_format = sw_format;
  fc->width = 64;
  fc->height = 64;
  if (av_hwframe_ctx_init (ref) >= 0 && (frame = av_frame_alloc ())) {
    ok = gst_avhw_backend_frames_get_buffer (device->backend, ref, frame) >= 0;
    av_frame_free (&frame);
  }
  av_buffer_unref (&ref);
  return ok;
}

/* The formats the backend lists with a GStreamer equivalent, not probed
 * yet on the first call; formats_lock held. A format without a GStreamer
 * equivalent is never negotiated: not worth a probe (and probing some of
 * those crashed FFmpeg 5.1's vulkan hwcontext on NVIDIA). */
static GArray *
listed_locked (GstAvhwDevice * device)
{
  GArray *listed;
  guint i;

  if (device->listed)
    return device->listed;
  listed = gst_avhw_backend_get_sw_formats (device->backend,
      device->device_ctx);
  device->listed = g_array_new (FALSE, FALSE, sizeof (ListedFormat));
  for (i = 0; i < listed->len; i++) {
    ListedFormat lf = { g_array_index (listed, gint, i), FORMAT_NOT_PROBED };

    if (gst_avhw_format_from_av (lf.format) != GST_VIDEO_FORMAT_UNKNOWN)
      g_array_append_val (device->listed, lf);
  }
  g_array_unref (listed);
  return device->listed;
}

/* Whether @lf's frames can be allocated, probing it the first time;
 * formats_lock held. */
static gboolean
probe_locked (GstAvhwDevice * device, ListedFormat * lf)
{
  if (lf->state == FORMAT_NOT_PROBED) {
    gint64 t0 = g_get_monotonic_time ();

    lf->state = can_allocate (device, lf->format) ? FORMAT_HELD :
        FORMAT_REFUSED;
    if (lf->state == FORMAT_REFUSED)
      GST_INFO_OBJECT (device, "%s is listed but cannot be allocated",
          av_get_pix_fmt_name (lf->format));
    GST_DEBUG_OBJECT (device, "%s probed in %.1f ms",
        av_get_pix_fmt_name (lf->format),
        (g_get_monotonic_time () - t0) / 1000.0);
  }
  return lf->state == FORMAT_HELD;
}

/**
 * gst_avhw_device_holds_sw_format: (skip)
 * @device: a #GstAvhwDevice
 * @sw_format: an `enum AVPixelFormat`
 *
 * Whether this device's frames can hold @sw_format: one of the formats
 * gst_avhw_device_get_sw_formats() returns, found by trying that format
 * alone (once per device), where the whole list tries them all.
 *
 * Returns: %TRUE when they can
 */
gboolean
gst_avhw_device_holds_sw_format (GstAvhwDevice * device, gint sw_format)
{
  GArray *listed;
  gboolean ret = FALSE;
  guint i;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), FALSE);
  g_mutex_lock (&device->formats_lock);
  listed = listed_locked (device);
  for (i = 0; i < listed->len; i++) {
    ListedFormat *lf = &g_array_index (listed, ListedFormat, i);

    if (lf->format == sw_format) {
      ret = probe_locked (device, lf);
      break;
    }
  }
  g_mutex_unlock (&device->formats_lock);
  return ret;
}

/**
 * gst_avhw_device_get_sw_formats: (skip)
 * @device: a #GstAvhwDevice
 *
 * Returns: (transfer full): the software formats (`enum AVPixelFormat` as
 *   gint) this device's frames can hold, in the backend's order
 */
GArray *
gst_avhw_device_get_sw_formats (GstAvhwDevice * device)
{
  GArray *listed, *usable;
  gint64 t0;
  guint i;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  usable = g_array_new (FALSE, FALSE, sizeof (gint));
  t0 = g_get_monotonic_time ();
  g_mutex_lock (&device->formats_lock);
  listed = listed_locked (device);
  for (i = 0; i < listed->len; i++) {
    ListedFormat *lf = &g_array_index (listed, ListedFormat, i);

    if (probe_locked (device, lf))
      g_array_append_val (usable, lf->format);
  }
  GST_LOG_OBJECT (device, "%u of %u listed formats usable (%.1f ms)",
      usable->len, listed->len, (g_get_monotonic_time () - t0) / 1000.0);
  g_mutex_unlock (&device->formats_lock);
  return usable;
}

static void
add_format_name (GValue * list, GValue * v, const gchar * name)
{
  guint j;

  for (j = 0; j < gst_value_list_get_size (list); j++)
    if (g_str_equal (g_value_get_string (gst_value_list_get_value (list, j)),
            name))
      return;
  g_value_set_string (v, name);
  gst_value_list_append_value (list, v);
}

/**
 * gst_avhw_device_get_raw_caps:
 * @device: a #GstAvhwDevice
 * @device_memory: caps of device memory (the backend's caps feature), or of
 *   system memory
 *
 * Returns: (transfer full): `video/x-raw` caps listing the formats frames of
 *   this device can hold (those with a GStreamer equivalent), any size
 */
GstCaps *
gst_avhw_device_get_raw_caps (GstAvhwDevice * device, gboolean device_memory)
{
  GArray *fmts;
  GValue list = G_VALUE_INIT, v = G_VALUE_INIT;
  GstCaps *caps;
  gchar **names;
  guint i;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  fmts = gst_avhw_device_get_sw_formats (device);
  names = gst_avhw_format_list_names ();
  g_value_init (&list, GST_TYPE_LIST);
  g_value_init (&v, G_TYPE_STRING);
  for (i = 0; i < fmts->len; i++) {
    gint av = g_array_index (fmts, gint, i);
    GstVideoFormat f = gst_avhw_format_from_av (av);
    gchar **n;

    if (f == GST_VIDEO_FORMAT_UNKNOWN)
      continue;
    /* its preferred name, then the others held in the same layout (RGBP
     * and BGRP in yuv444p frames) */
    add_format_name (&list, &v, gst_video_format_to_string (f));
    for (n = names; *n; n++)
      if (gst_avhw_format_to_av (gst_video_format_from_string (*n)) == av)
        add_format_name (&list, &v, *n);
  }
  g_array_unref (fmts);
  g_strfreev (names);
  caps = gst_caps_new_simple ("video/x-raw", "width", GST_TYPE_INT_RANGE, 1,
      G_MAXINT, "height", GST_TYPE_INT_RANGE, 1, G_MAXINT, "framerate",
      GST_TYPE_FRACTION_RANGE, 0, 1, G_MAXINT, 1, NULL);
  gst_caps_set_value (caps, "format", &list);
  g_value_unset (&list);
  g_value_unset (&v);
  if (device_memory)
    gst_caps_set_features (caps, 0, gst_avhw_device_get_caps_features (device));
  return caps;
}
