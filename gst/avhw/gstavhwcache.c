/* gst-avhw: process-wide cache of device and frames contexts
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/pixdesc.h>

#include "gstavhw-impl.h"
#include "gstavhw-private.h"
#include "gstavhwdevice-private.h"

GST_DEBUG_CATEGORY_STATIC (avhw_cache_debug);
#define GST_CAT_DEFAULT avhw_cache_debug

/**
 * SECTION:gstavhwcache
 * @title: Device cache
 * @short_description: one device context per device, per process
 *
 * gst_avhw_device_open() returns the same #GstAvhwDevice, and so the same
 * FFmpeg device context, for the same backend, index and options, for as
 * long as the cache holds it: a process that builds pipeline after pipeline
 * initialises each device once. Concurrent first opens of one device wait
 * for a single initialisation.
 *
 * Frames contexts (surface pools) made by gst_avhw_device_get_frames_ctx()
 * are cached too, keyed by device context, software format, size and pool
 * size; each device context keeps its own, least recently used first out
 * past gst_avhw_cache_set_frames_limit(), so one busy device never evicts
 * another's.
 *
 * gst_avhw_cache_clear() drops the cache's own references, and
 * gst_avhw_cache_clear_device() those of one device; devices and frames in
 * use stay valid until their users release them. Reuse can be
 * turned off with gst_avhw_cache_set_reuse() or `GST_AVHW_REUSE=0` in the
 * environment: then every open creates a new context and nothing is kept.
 *
 * A plain open (no options) of a device that already runs sessions may get
 * another device context of that device ("lane"), up to N: the one with
 * the fewest sessions of its own, a new one only when every open one is
 * busy. N is the backend's for the device (its get_default_lanes, 1
 * without) unless gst_avhw_cache_set_lanes() or `GST_AVHW_DEVICE_LANES=N`
 * says otherwise. Some drivers serialise work per context (H.264 decoding
 * on one VkDevice of NVIDIA's), so many concurrent streams decode faster
 * over several; each lane costs a context's memory and open time. One
 * pipeline stays on one lane: its elements share their device through
 * GstContext. Lane 0 is the device's usual context.
 */

typedef struct
{
  GstAvhwDevice *device;        /* NULL while being opened */
} DeviceEntry;

typedef struct
{
  AVHWDeviceContext *device;    /* identity only; frames holds the ref */
  enum AVPixelFormat sw_format;
  gint width, height, pool_size;
  AVBufferRef *frames;
} FramesEntry;

static GMutex lock;
static GCond opened_cond;
static GHashTable *devices;     /* key string -> DeviceEntry* */
static GQueue frames_lru = G_QUEUE_INIT;        /* FramesEntry*, MRU first */
static guint frames_limit = GST_AVHW_FRAMES_CACHE_DEFAULT_LIMIT;
static gint reuse = -1;         /* -1: not read from the environment yet */
static gint lanes = -1;         /* the same; 0: the backends' own */
static guint64 n_device_opens, n_frames_created;

static void
device_entry_free (DeviceEntry * e)
{
  if (e->device)
    GST_OBJECT_FLAG_UNSET (e->device, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  gst_clear_object (&e->device);
  g_free (e);
}

static void
frames_entry_free (FramesEntry * e)
{
  av_buffer_unref (&e->frames);
  g_free (e);
}

/* lock held */
static void
ensure_init_locked (void)
{
  if (devices)
    return;
  GST_DEBUG_CATEGORY_INIT (avhw_cache_debug, "avhwcache", 0,
      "gst-avhw device and frames context cache");
  devices = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) device_entry_free);
  if (reuse < 0) {
    const gchar *env = g_getenv ("GST_AVHW_REUSE");
    reuse = !(env && (g_str_equal (env, "0") || !g_ascii_strcasecmp (env,
                "no") || !g_ascii_strcasecmp (env, "false")));
    if (!reuse)
      GST_INFO ("GST_AVHW_REUSE=%s: device reuse is off", env);
  }
  if (lanes < 0) {
    const gchar *env = g_getenv ("GST_AVHW_DEVICE_LANES");
    gchar *end = NULL;
    guint64 v = 0;

    if (env && *env) {
      v = g_ascii_strtoull (env, &end, 10);
      if (!end || *end || v > GST_AVHW_MAX_LANES) {
        GST_WARNING ("GST_AVHW_DEVICE_LANES=%s is not a number from 0 (each "
            "backend's own) to %d: using the backends' own", env,
            GST_AVHW_MAX_LANES);
        v = 0;
      }
    }
    lanes = (gint) v;
  }
}

void
gst_avhw_cache_count_device_open (void)
{
  g_mutex_lock (&lock);
  n_device_opens++;
  g_mutex_unlock (&lock);
}

static gchar *
make_key (GstAvhwBackend * backend, guint index, const GstStructure * options)
{
  gchar *opts = options ? gst_structure_to_string (options) : NULL;
  gchar *key = g_strdup_printf ("%s:%u|%s",
      gst_avhw_backend_get_name (backend), index, opts ? opts : "");

  g_free (opts);
  return key;
}

typedef GstAvhwDevice *(*CreateFunc) (gpointer data, GError ** error);

/* Gets the device cached under @key, or creates it with @create outside the
 * lock while concurrent callers for the same key wait for it. */
static GstAvhwDevice *
get_or_create (const gchar * key, CreateFunc create, gpointer data,
    GError ** error)
{
  GstAvhwDevice *device = NULL;
  DeviceEntry *entry;

  g_mutex_lock (&lock);
  for (;;) {
    entry = g_hash_table_lookup (devices, key);
    if (!entry)
      break;
    if (entry->device) {
      device = gst_object_ref (entry->device);
      g_mutex_unlock (&lock);
      GST_DEBUG ("reusing cached device %s", key);
      return device;
    }
    g_cond_wait (&opened_cond, &lock);
  }
  entry = g_new0 (DeviceEntry, 1);
  g_hash_table_insert (devices, g_strdup (key), entry);
  g_mutex_unlock (&lock);

  /* Open outside the lock: other devices need not wait for this one. */
  device = create (data, error);

  g_mutex_lock (&lock);
  if (device) {
    entry->device = gst_object_ref (device);
    /* held by the cache until gst_avhw_cache_clear(), also past
     * gst_deinit(): not a leak for GStreamer's leaks tracer (as its own
     * process-wide objects); a reference left elsewhere still shows once
     * the cache lets go */
    GST_OBJECT_FLAG_SET (device, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    GST_INFO ("cached new device %s", key);
  } else {
    g_hash_table_remove (devices, key);
  }
  g_cond_broadcast (&opened_cond);
  g_mutex_unlock (&lock);
  return device;
}

typedef struct
{
  GstAvhwBackend *backend;
  guint index;
  const GstStructure *options;
  GstContext *context;
} OpenArgs;

static GstAvhwDevice *
create_device (gpointer data, GError ** error)
{
  OpenArgs *a = data;
  AVBufferRef *ref = gst_avhw_backend_open_device (a->backend, a->index,
      a->options, error);

  return ref ? gst_avhw_device_new_internal (a->backend, a->index, ref,
      FALSE) : NULL;
}

static gboolean
reuse_on (void)
{
  gboolean ret;

  gst_avhw_init ();
  g_mutex_lock (&lock);
  ensure_init_locked ();
  ret = reuse;
  g_mutex_unlock (&lock);
  return ret;
}

/* @lane's options: NULL for lane 0 (the device's usual context) */
static GstStructure *
lane_options (guint lane)
{
  return lane ? gst_structure_new ("avhw-options", GST_AVHW_OPTION_LANE,
      G_TYPE_UINT, lane, NULL) : NULL;
}

/* The lane of device @index of @backend for a plain open: the open lane
 * where one more session of its own makes the fewest for the sessions it
 * runs at full speed (@cap, 1 each unless the backend says), ties to the
 * first; the first lane not open yet only when every open one has that
 * many. A lane being opened counts one session. So past every lane's
 * number, sessions go where they share the least: with lane 0 running one
 * and lane 1 six (the vulkan backend's on seven decode queues), a session
 * more goes to lane 1 (7/6) rather than lane 0 (2/1), whose one queue
 * would then decode two streams while lane 1's still decode one. */
static guint
pick_lane (GstAvhwBackend * backend, guint index, guint n, const guint * cap)
{
  guint l, best = 0, best_load = 1, best_cap = 0, free_lane = G_MAXUINT;
  GString *s = g_string_new (NULL);

  g_mutex_lock (&lock);
  for (l = 0; l < n; l++) {
    GstStructure *opts = lane_options (l);
    gchar *key = make_key (backend, index, opts);
    DeviceEntry *e = g_hash_table_lookup (devices, key);
    guint load;

    g_free (key);
    if (opts)
      gst_structure_free (opts);
    if (!e) {
      if (free_lane == G_MAXUINT)
        free_lane = l;
      continue;
    }
    load = e->device ? gst_avhw_device_get_n_own_sessions (e->device) : 1;
    g_string_append_printf (s, " %u:%u/%u", l, load, cap[l]);
    /* (load + 1) / cap below the best's, in integers */
    if (best_cap == 0 || (guint64) (load + 1) * best_cap
        < (guint64) (best_load + 1) * cap[l]) {
      best_load = load;
      best_cap = cap[l];
      best = l;
    }
  }
  g_mutex_unlock (&lock);
  if ((best_cap == 0 || best_load >= best_cap) && free_lane != G_MAXUINT)
    best = free_lane;
  GST_DEBUG ("%s:%u: lane %u (sessions per open lane, of those it runs:%s)",
      gst_avhw_backend_get_name (backend), index, best, s->str);
  g_string_free (s, TRUE);
  return best;
}

static GstAvhwDevice *
open_cached (GstAvhwBackend * backend, guint index, gpointer user_data,
    GError ** error)
{
  OpenArgs a = { backend, index, user_data, NULL };
  GstStructure *opts = NULL;
  GstAvhwDevice *device;
  guint n;
  gchar *key;

  /* lanes only for plain opens: options name a context of their own */
  if (!a.options) {
    GstAvhwBackendClass *k = GST_AVHW_BACKEND_GET_CLASS (backend);
    guint cap[GST_AVHW_MAX_LANES], l;
    gboolean chosen;

    n = gst_avhw_cache_get_lanes ();
    chosen = n > 0;
    if (!chosen) {
      n = k->get_default_lanes ? k->get_default_lanes (backend, index) : 1;
      n = CLAMP (n, 1, GST_AVHW_MAX_LANES);
    }
    if (n > 1) {
      /* asked outside the cache's lock: the backend may query its device */
      for (l = 0; l < n; l++)
        cap[l] = !chosen && k->get_lane_sessions ?
            MAX (k->get_lane_sessions (backend, index, l), 1) : 1;
      a.options = opts = lane_options (pick_lane (backend, index, n, cap));
    }
  }
  key = make_key (backend, index, a.options);
  device = get_or_create (key, create_device, &a, error);
  g_free (key);
  if (opts)
    gst_structure_free (opts);
  return device;
}

/**
 * gst_avhw_device_open:
 * @device_string: (nullable): `auto`, `NAME` or `NAME:N`
 * @options: (nullable): device creation options (FFmpeg
 *   av_hwdevice_ctx_create() options, as structure fields); part of the key
 * @error: return location for a #GError
 *
 * Gets the device from the cache or opens it. With reuse on, every call for
 * the same backend, index and options returns the same device, and eight
 * threads asking at once still initialise it once. For `auto` and `NAME`
 * the index is chosen first, by load: the backend's device with the fewest
 * active sessions (gst_avhw_device_get_n_active()), ties to the lowest
 * index; a device that fails to open is skipped with a warning and the next
 * is tried. `NAME:N` opens device N or fails.
 *
 * Returns: (transfer full) (nullable): the device, or %NULL with @error
 *   saying what is wrong (unknown backend with the installed ones listed,
 *   index out of range, FFmpeg's reason for a failed open)
 */
GstAvhwDevice *
gst_avhw_device_open (const gchar * device_string,
    const GstStructure * options, GError ** error)
{
  if (!reuse_on ())
    return gst_avhw_device_open_uncached (device_string, options, error);
  return gst_avhw_device_place (device_string, open_cached,
      (gpointer) options, error);
}

static GstAvhwDevice *
create_foreign (gpointer data, GError ** error)
{
  OpenArgs *a = data;
  GstAvhwForeignInteropInterface *iface =
      gst_avhw_backend_get_foreign_interop (a->backend);
  AVBufferRef *ref;
  guint index = 0;

  /* only for a backend whose interface named the context's type */
  ref = iface->wrap_foreign_context (a->backend, a->context, &index, error);
  if (!ref)
    return NULL;
  gst_avhw_cache_count_device_open ();
  return gst_avhw_device_new_internal (a->backend, index, ref, FALSE);
}

/**
 * gst_avhw_device_open_foreign:
 * @context: a #GstContext of GStreamer's own elements for some device kind
 *   (a backend's #GstAvhwForeignInteropInterface.foreign_context_type, e.g.
 *   "gst.cuda.context")
 * @device_string: (nullable): the device the caller wants; the foreign
 *   device must match it
 * @error: return location for a #GError
 *
 * Makes (or gets from the cache) the avhw device on the very device a
 * foreign context holds, so avhw elements and GStreamer's own elements share
 * one device context. One foreign device maps to one avhw device.
 *
 * Returns: (transfer full) (nullable): the device, or %NULL when no backend
 *   takes this context type or the device does not match
 */
GstAvhwDevice *
gst_avhw_device_open_foreign (GstContext * context,
    const gchar * device_string, GError ** error)
{
  const gchar *type = gst_context_get_context_type (context);
  GList *list, *l;
  GstAvhwDevice *device = NULL;

  g_return_val_if_fail (GST_IS_CONTEXT (context), NULL);
  list = gst_avhw_backend_list ();
  for (l = list; l && !device; l = l->next) {
    GstAvhwBackend *b = l->data;
    GstAvhwForeignInteropInterface *iface =
        gst_avhw_backend_get_foreign_interop (b);
    OpenArgs a = { b, 0, NULL, context };
    gpointer handle;
    gchar *key;

    if (!iface || g_strcmp0 (iface->foreign_context_type, type) != 0)
      continue;
    handle = iface->foreign_context_get_handle (b, context);
    if (!handle)
      continue;
    if (!reuse_on ()) {
      device = create_foreign (&a, error);
    } else {
      key =
          g_strdup_printf ("%s:foreign:%p", gst_avhw_backend_get_name (b),
          handle);
      device = get_or_create (key, create_foreign, &a, error);
      g_free (key);
    }
    if (device && !gst_avhw_device_matches (device, device_string)) {
      GST_INFO ("foreign device %s does not match %s",
          gst_avhw_device_get_name (device), device_string);
      gst_clear_object (&device);
    }
  }
  g_list_free_full (list, gst_object_unref);
  if (!device && error && !*error)
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_NOT_SUPPORTED,
        "no avhw backend takes a %s context matching \"%s\"", type,
        device_string ? device_string : GST_AVHW_DEVICE_AUTO);
  return device;
}

static gboolean
remove_ready (gpointer key, gpointer value, gpointer user_data)
{
  return ((DeviceEntry *) value)->device != NULL;
}

/**
 * gst_avhw_cache_clear:
 *
 * Drops the cache's references to every device and frames context, and
 * frees every kept decoder (see gst_avhw_device_give_decoder()). Devices
 * and frames still in use stay valid; the next open creates a new context.
 */
void
gst_avhw_cache_clear (void)
{
  GQueue frames = G_QUEUE_INIT;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_foreach_remove (devices, remove_ready, NULL);
  frames = frames_lru;
  g_queue_init (&frames_lru);
  g_mutex_unlock (&lock);

  /* Unref outside the lock: freeing a context can take a while. */
  g_queue_clear_full (&frames, (GDestroyNotify) frames_entry_free);
  gst_avhw_codec_cache_clear ();
  GST_INFO ("cache cleared");
}

/**
 * gst_avhw_cache_clear_device:
 * @device: a #GstAvhwDevice
 *
 * Drops the cache's references to the devices of @device's backend and
 * index (with any creation options, and those made on a foreign context of
 * that device) and to every frames context made on them or on @device
 * itself. Other devices' entries stay. Devices and frames still in use stay
 * valid; the next open of that device creates a new context.
 */
void
gst_avhw_cache_clear_device (GstAvhwDevice * device)
{
  const gchar *name;
  GHashTableIter it;
  gpointer value;
  GList *gone_devices = NULL, *gone_frames = NULL, *l;
  GPtrArray *contexts;

  g_return_if_fail (GST_IS_AVHW_DEVICE (device));
  name = gst_avhw_device_get_name (device);
  contexts = g_ptr_array_new ();
  g_ptr_array_add (contexts, gst_avhw_device_get_device_ctx (device)->data);

  g_mutex_lock (&lock);
  ensure_init_locked ();
  g_hash_table_iter_init (&it, devices);
  while (g_hash_table_iter_next (&it, NULL, &value)) {
    DeviceEntry *e = value;

    /* an entry still being opened is left to its opener */
    if (!e->device || g_strcmp0 (gst_avhw_device_get_name (e->device),
            name) != 0)
      continue;
    g_ptr_array_add (contexts,
        gst_avhw_device_get_device_ctx (e->device)->data);
    /* our own reference, dropped outside the lock */
    gone_devices = g_list_prepend (gone_devices, gst_object_ref (e->device));
    g_hash_table_iter_remove (&it);
  }
  for (l = frames_lru.head; l;) {
    GList *next = l->next;
    FramesEntry *e = l->data;
    guint i;

    for (i = 0; i < contexts->len; i++) {
      if (e->device == g_ptr_array_index (contexts, i)) {
        g_queue_delete_link (&frames_lru, l);
        gone_frames = g_list_prepend (gone_frames, e);
        break;
      }
    }
    l = next;
  }
  g_mutex_unlock (&lock);
  g_ptr_array_unref (contexts);

  /* Unref outside the lock: freeing a context can take a while. */
  GST_INFO ("cache cleared for %s: %u device(s), %u frames context(s)", name,
      g_list_length (gone_devices), g_list_length (gone_frames));
  g_list_free_full (gone_frames, (GDestroyNotify) frames_entry_free);
  g_list_free_full (gone_devices, gst_object_unref);
}

/**
 * gst_avhw_cache_set_reuse:
 * @reuse: whether to reuse device and frames contexts and opened decoders
 *
 * Turning reuse off also clears the cache. Overrides `GST_AVHW_REUSE`.
 */
void
gst_avhw_cache_set_reuse (gboolean value)
{
  g_mutex_lock (&lock);
  ensure_init_locked ();
  reuse = !!value;
  g_mutex_unlock (&lock);
  if (!value)
    gst_avhw_cache_clear ();
}

/**
 * gst_avhw_cache_set_lanes:
 * @lanes: device contexts a device may get, 1 to %GST_AVHW_MAX_LANES, or
 *   0 for each backend's own number
 *
 * How many device contexts ("lanes") gst_avhw_device_open() may open on
 * one device for concurrent sessions (see the section above); 1 gives
 * every user of a device the same context; 0, the default, leaves it to
 * the backend (the vulkan backend's devices with FFmpeg 7.1 and later: one
 * per video decode queue, others 1). Lanes already open beyond a lower
 * value stay cached, unused, until gst_avhw_cache_clear(). Overrides
 * `GST_AVHW_DEVICE_LANES`.
 */
void
gst_avhw_cache_set_lanes (guint value)
{
  g_return_if_fail (value <= GST_AVHW_MAX_LANES);
  g_mutex_lock (&lock);
  ensure_init_locked ();
  lanes = (gint) value;
  g_mutex_unlock (&lock);
}

/**
 * gst_avhw_cache_get_lanes:
 *
 * Returns: the device contexts a device may get, 0 when each backend
 *   says (gst_avhw_cache_set_lanes())
 */
guint
gst_avhw_cache_get_lanes (void)
{
  guint ret;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  ret = (guint) lanes;
  g_mutex_unlock (&lock);
  return ret;
}

/**
 * gst_avhw_cache_get_reuse:
 *
 * Returns: whether device and frames contexts are reused
 */
gboolean
gst_avhw_cache_get_reuse (void)
{
  gboolean ret;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  ret = reuse;
  g_mutex_unlock (&lock);
  return ret;
}

/* Takes out of @lru (most recently used first) every entry past the @limit
 * most recent ones of its owner: the pointer at @owner_offset in the entry
 * (its device). Returns them, to be freed outside the caller's lock. The
 * frames cache and the decoder cache (gstavhwcodeccache.c) both keep their
 * limits per device this way. */
GList *
gst_avhw_lru_trim (GQueue * lru, guint limit, gsize owner_offset)
{
  GHashTable *kept = g_hash_table_new (NULL, NULL);
  GList *evicted = NULL, *l;

  for (l = lru->head; l;) {
    GList *next = l->next;
    gpointer owner = G_STRUCT_MEMBER (gpointer, l->data, owner_offset);
    guint n = GPOINTER_TO_UINT (g_hash_table_lookup (kept, owner));

    if (n >= limit) {
      evicted = g_list_prepend (evicted, l->data);
      g_queue_delete_link (lru, l);
    } else {
      g_hash_table_insert (kept, owner, GUINT_TO_POINTER (n + 1));
    }
    l = next;
  }
  g_hash_table_unref (kept);
  return evicted;
}

/* lock held; returns entries to free outside the lock. Each device context
 * keeps its frames_limit most recently used frames contexts. */
static GList *
trim_frames_locked (void)
{
  return gst_avhw_lru_trim (&frames_lru, frames_limit,
      G_STRUCT_OFFSET (FramesEntry, device));
}

/**
 * gst_avhw_cache_set_frames_limit:
 * @limit: how many frames contexts to keep per device context; 0 keeps none
 *
 * The limit applies to each device on its own: with several devices the
 * cache holds up to @limit frames contexts on each.
 */
void
gst_avhw_cache_set_frames_limit (guint limit)
{
  GList *evicted;

  g_mutex_lock (&lock);
  frames_limit = limit;
  evicted = trim_frames_locked ();
  g_mutex_unlock (&lock);
  g_list_free_full (evicted, (GDestroyNotify) frames_entry_free);
}

/**
 * gst_avhw_cache_get_frames_limit:
 *
 * Returns: how many frames contexts the cache keeps per device context
 */
guint
gst_avhw_cache_get_frames_limit (void)
{
  return frames_limit;
}

/**
 * gst_avhw_cache_get_stats:
 * @n_devices: (out) (optional): devices the cache holds now
 * @n_frames: (out) (optional): frames contexts the cache holds now
 * @n_device_opens: (out) (optional): device contexts created by this process
 *   so far, cached or not
 * @n_frames_created: (out) (optional): frames contexts created so far
 */
void
gst_avhw_cache_get_stats (guint * n_devices, guint * n_frames,
    guint64 * n_device_opens_out, guint64 * n_frames_created_out)
{
  g_mutex_lock (&lock);
  ensure_init_locked ();
  if (n_devices)
    *n_devices = g_hash_table_size (devices);
  if (n_frames)
    *n_frames = frames_lru.length;
  if (n_device_opens_out)
    *n_device_opens_out = n_device_opens;
  if (n_frames_created_out)
    *n_frames_created_out = n_frames_created;
  g_mutex_unlock (&lock);
}

static AVBufferRef *
create_frames (GstAvhwDevice * device, enum AVPixelFormat sw_format,
    gint width, gint height, gint pool_size, GError ** error)
{
  GstAvhwBackend *backend = gst_avhw_device_get_backend (device);
  AVBufferRef *ref;
  AVHWFramesContext *fc;
  char err[AV_ERROR_MAX_STRING_SIZE];
  int ret;

  ref = av_hwframe_ctx_alloc (gst_avhw_device_get_device_ctx (device));
  if (!ref) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "%s: out of memory allocating a frames context",
        gst_avhw_device_get_name (device));
    return NULL;
  }
  fc = (AVHWFramesContext *) ref->data;
  fc->format = gst_avhw_backend_get_hw_pix_fmt (backend);
  fc->sw_format = sw_format;
  fc->width = width;
  fc->height = height;
  fc->initial_pool_size = pool_size;
  ret = av_hwframe_ctx_init (ref);
  if (ret < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "%s cannot make %dx%d %s frames: %s",
        gst_avhw_device_get_name (device), width, height,
        av_get_pix_fmt_name (sw_format), GST_AVHW_ERR2STR (err, ret));
    av_buffer_unref (&ref);
    return NULL;
  }
  g_mutex_lock (&lock);
  n_frames_created++;
  g_mutex_unlock (&lock);
  return ref;
}

/**
 * gst_avhw_device_get_frames_ctx: (skip)
 * @device: a #GstAvhwDevice
 * @sw_format: the software format of the frames
 * @width: frame width
 * @height: frame height
 * @pool_size: FFmpeg's initial_pool_size (0: a pool that grows on demand)
 * @error: return location for a #GError
 *
 * Gets an initialised frames context on @device from the cache, or makes
 * one. Frames contexts with a growing pool (@pool_size 0) can be used by
 * several elements at once.
 *
 * Returns: (transfer full): a new reference to the AVHWFramesContext, to be
 *   released with av_buffer_unref(), or %NULL with @error
 */
AVBufferRef *
gst_avhw_device_get_frames_ctx (GstAvhwDevice * device,
    enum AVPixelFormat sw_format, gint width, gint height, gint pool_size,
    GError ** error)
{
  AVHWDeviceContext *dc;
  FramesEntry *e;
  AVBufferRef *ref;
  GList *l, *evicted;

  g_return_val_if_fail (GST_IS_AVHW_DEVICE (device), NULL);
  dc = (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (device)->data;

  g_mutex_lock (&lock);
  ensure_init_locked ();
  if (reuse) {
    for (l = frames_lru.head; l; l = l->next) {
      e = l->data;
      if (e->device == dc && e->sw_format == sw_format && e->width == width
          && e->height == height && e->pool_size == pool_size) {
        g_queue_unlink (&frames_lru, l);
        g_queue_push_head_link (&frames_lru, l);
        ref = av_buffer_ref (e->frames);
        g_mutex_unlock (&lock);
        return ref;
      }
    }
  }
  g_mutex_unlock (&lock);

  ref = create_frames (device, sw_format, width, height, pool_size, error);
  if (!ref)
    return NULL;

  g_mutex_lock (&lock);
  if (!reuse || frames_limit == 0) {
    g_mutex_unlock (&lock);
    return ref;
  }
  e = g_new0 (FramesEntry, 1);
  e->device = dc;
  e->sw_format = sw_format;
  e->width = width;
  e->height = height;
  e->pool_size = pool_size;
  e->frames = av_buffer_ref (ref);
  g_queue_push_head (&frames_lru, e);
  evicted = trim_frames_locked ();
  g_mutex_unlock (&lock);
  g_list_free_full (evicted, (GDestroyNotify) frames_entry_free);
  return ref;
}
