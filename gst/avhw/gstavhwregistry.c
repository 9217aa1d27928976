/* gst-avhw: finding backends through the GStreamer registry
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhw-impl.h"
#include "gstavhw-private.h"

GST_DEBUG_CATEGORY_STATIC (avhw_registry_debug);
#define GST_CAT_DEFAULT avhw_registry_debug

/**
 * SECTION:gstavhwregistry
 * @title: Backend registry
 * @short_description: the installed backends
 *
 * Backends live in their own plugins and register their type with
 * gst_avhw_backend_register(). The library scans the GStreamer registry for
 * dynamic types named `GstAvhw<Name>Backend` when it first needs a backend,
 * loads those plugins, and keeps one instance per backend for the process.
 * A backend asked for by name (gst_avhw_backend_find()) loads its own
 * plugin alone; listing them all loads every one.
 * A backend built for another contract version is refused, and the reason
 * is kept for gst_avhw_backend_list_refused().
 */

static GMutex lock;
/* type name -> GstAvhwBackend*, or NULL for a refused one */
static GHashTable *loaded;
/* type name -> reason */
static GHashTable *refused;

static GstAvhwBackend *
load_backend (const gchar * type_name)
{
  GType type;
  GstAvhwBackendClass *klass;
  GstAvhwForeignInteropInterface *iface;
  GstAvhwBackend *backend;

  type = gst_dynamic_type_factory_load (type_name);
  if (!type || !g_type_is_a (type, GST_TYPE_AVHW_BACKEND)
      || G_TYPE_IS_ABSTRACT (type)) {
    g_hash_table_insert (refused, g_strdup (type_name),
        g_strdup_printf ("%s: not a concrete GstAvhwBackend subclass",
            type_name));
    return NULL;
  }

  klass = g_type_class_ref (type);
  if (klass->contract_version != GST_AVHW_BACKEND_CONTRACT_VERSION) {
    gchar *why = g_strdup_printf ("backend %s (%s) was built for backend "
        "contract version %u, this library speaks version %u; rebuild the "
        "backend against this gst-avhw", klass->name ? klass->name : "?",
        type_name, klass->contract_version, GST_AVHW_BACKEND_CONTRACT_VERSION);
    GST_ERROR ("%s", why);
    g_hash_table_insert (refused, g_strdup (type_name), why);
    g_type_class_unref (klass);
    return NULL;
  }
  if (!klass->name || !klass->hw_device_type || !klass->hw_pix_fmt
      || !klass->caps_feature || !klass->get_n_devices) {
    gchar *why = g_strdup_printf ("backend %s leaves a required field of "
        "GstAvhwBackendClass unset (name, hw_device_type, hw_pix_fmt, "
        "caps_feature, get_n_devices)", type_name);
    GST_ERROR ("%s", why);
    g_hash_table_insert (refused, g_strdup (type_name), why);
    g_type_class_unref (klass);
    return NULL;
  }

  iface = g_type_interface_peek (klass, GST_TYPE_AVHW_FOREIGN_INTEROP);
  if (iface && iface->foreign_context_type
      && (!iface->foreign_context_get_handle || !iface->wrap_foreign_context)) {
    gchar *why = g_strdup_printf ("backend %s (%s): its GstAvhwForeignInterop "
        "names foreign context type %s but lacks foreign_context_get_handle "
        "or wrap_foreign_context", klass->name, type_name,
        iface->foreign_context_type);
    GST_ERROR ("%s", why);
    g_hash_table_insert (refused, g_strdup (type_name), why);
    g_type_class_unref (klass);
    return NULL;
  }

  backend = g_object_new (type, "name", klass->name, NULL);
  gst_object_ref_sink (backend);
  /* One per process, kept until exit, like an element factory. */
  GST_OBJECT_FLAG_SET (backend, GST_OBJECT_FLAG_MAY_BE_LEAKED);
  g_type_class_unref (klass);
  GST_INFO ("loaded backend %s (%s)", klass->name, type_name);
  return backend;
}

static gboolean
is_backend_feature (GstPluginFeature * feature, gpointer user_data)
{
  const gchar *name = gst_plugin_feature_get_name (feature);

  return GST_IS_DYNAMIC_TYPE_FACTORY (feature)
      && g_str_has_prefix (name, "GstAvhw") && g_str_has_suffix (name,
      "Backend");
}

static gint
compare_backends (gconstpointer a, gconstpointer b)
{
  GstAvhwBackend *ba = (GstAvhwBackend *) a, *bb = (GstAvhwBackend *) b;
  guint ra = gst_avhw_backend_get_rank (ba), rb =
      gst_avhw_backend_get_rank (bb);

  if (ra != rb)
    return ra > rb ? -1 : 1;
  return g_strcmp0 (gst_avhw_backend_get_name (ba),
      gst_avhw_backend_get_name (bb));
}

static void
ensure_tables_locked (void)
{
  if (!loaded) {
    GST_DEBUG_CATEGORY_INIT (avhw_registry_debug, "avhwregistry", 0,
        "gst-avhw backend registry");
    loaded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
        (GDestroyNotify) gst_object_unref);
    refused = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  }
}

/* The backend of type @type_name (a registry feature), loaded the first
 * time and kept; NULL when refused. Lock held. */
static GstAvhwBackend *
get_locked (const gchar * type_name)
{
  GstAvhwBackend *backend = g_hash_table_lookup (loaded, type_name);

  if (!backend && !g_hash_table_contains (refused, type_name)
      && (backend = load_backend (type_name)))
    g_hash_table_insert (loaded, g_strdup (type_name), backend);
  return backend;
}

/* Scans the registry for backend types not seen yet; lock held. */
static void
scan_locked (void)
{
  GList *features, *l;

  ensure_tables_locked ();
  features = gst_registry_feature_filter (gst_registry_get (),
      is_backend_feature, FALSE, NULL);
  for (l = features; l; l = l->next)
    get_locked (gst_plugin_feature_get_name (l->data));
  gst_plugin_feature_list_free (features);
}

/**
 * gst_avhw_backend_list:
 *
 * Lists the installed backends, most preferred first (by rank, then name).
 * Loads backend plugins the first time; opens no device.
 *
 * Returns: (transfer full) (element-type GstAvhwBackend): the backends
 */
GList *
gst_avhw_backend_list (void)
{
  GList *list = NULL;
  GHashTableIter it;
  gpointer value;

  gst_avhw_init ();
  g_mutex_lock (&lock);
  scan_locked ();
  g_hash_table_iter_init (&it, loaded);
  while (g_hash_table_iter_next (&it, NULL, &value))
    list = g_list_prepend (list, gst_object_ref (value));
  g_mutex_unlock (&lock);

  return g_list_sort (list, compare_backends);
}

/**
 * gst_avhw_backend_list_names:
 *
 * Returns: (transfer full): the installed backends' names, comma separated,
 *   or "none" when there is none
 */
gchar *
gst_avhw_backend_list_names (void)
{
  GList *list = gst_avhw_backend_list (), *l;
  GString *s = g_string_new (NULL);

  for (l = list; l; l = l->next) {
    if (s->len)
      g_string_append (s, ", ");
    g_string_append (s, gst_avhw_backend_get_name (l->data));
  }
  g_list_free_full (list, gst_object_unref);
  if (!s->len)
    g_string_append (s, "none");
  return g_string_free (s, FALSE);
}

/**
 * gst_avhw_backend_list_refused:
 *
 * Returns: (transfer full) (array zero-terminated=1): why each refused
 *   backend was refused (e.g. a contract version mismatch)
 */
gchar **
gst_avhw_backend_list_refused (void)
{
  GPtrArray *arr = g_ptr_array_new ();
  GHashTableIter it;
  gpointer value;

  g_mutex_lock (&lock);
  scan_locked ();
  g_hash_table_iter_init (&it, refused);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_ptr_array_add (arr, g_strdup (value));
  g_mutex_unlock (&lock);
  g_ptr_array_add (arr, NULL);
  return (gchar **) g_ptr_array_free (arr, FALSE);
}

/* The backend called @name when its type is named as backends name theirs
 * (GstAvhw<Name>Backend, "vulkan": GstAvhwVulkanBackend): that plugin
 * alone is loaded, not every backend's (~10 ms for the four built here).
 * NULL when there is none such; the caller then scans them all. */
static GstAvhwBackend *
find_by_type_name (const gchar * name)
{
  GstAvhwBackend *backend = NULL;
  GstPluginFeature *feature;
  gchar *type_name;

  if (!name[0])
    return NULL;
  type_name = g_strdup_printf ("GstAvhw%c%sBackend",
      g_ascii_toupper (name[0]), name + 1);
  gst_avhw_init ();
  g_mutex_lock (&lock);
  ensure_tables_locked ();
  backend = g_hash_table_lookup (loaded, type_name);
  /* else only a type the registry has: a name that is none is not refused */
  if (!backend) {
    feature = gst_registry_lookup_feature (gst_registry_get (), type_name);
    if (feature && GST_IS_DYNAMIC_TYPE_FACTORY (feature))
      backend = get_locked (type_name);
    gst_clear_object (&feature);
  }
  if (backend && g_strcmp0 (gst_avhw_backend_get_name (backend), name) == 0)
    gst_object_ref (backend);
  else
    backend = NULL;
  g_mutex_unlock (&lock);
  g_free (type_name);
  return backend;
}

/**
 * gst_avhw_backend_find:
 * @name: a backend name ("vulkan")
 * @error: return location for a #GError
 *
 * Returns: (transfer full) (nullable): the backend, or %NULL with @error
 *   naming the installed backends (and why a backend of that name was
 *   refused, if it was)
 */
GstAvhwBackend *
gst_avhw_backend_find (const gchar * name, GError ** error)
{
  GList *list, *l;
  GstAvhwBackend *found = NULL;

  g_return_val_if_fail (name != NULL, NULL);
  found = find_by_type_name (name);
  if (found)
    return found;
  list = gst_avhw_backend_list ();
  for (l = list; l; l = l->next) {
    if (g_strcmp0 (gst_avhw_backend_get_name (l->data), name) == 0) {
      found = gst_object_ref (l->data);
      break;
    }
  }
  g_list_free_full (list, gst_object_unref);

  if (!found) {
    gchar *names = gst_avhw_backend_list_names ();
    gchar **why = gst_avhw_backend_list_refused ();
    gchar *refused_txt = NULL;
    guint i;

    for (i = 0; why[i]; i++) {
      if (g_strstr_len (why[i], -1, name)) {
        refused_txt = g_strdup_printf (" (refused: %s)", why[i]);
        break;
      }
    }
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_UNKNOWN_BACKEND,
        "unknown avhw backend \"%s\"%s; installed backends: %s", name,
        refused_txt ? refused_txt : "", names);
    g_free (refused_txt);
    g_strfreev (why);
    g_free (names);
  }
  return found;
}

/* Whether the ';'-separated @list holds @item. */
gboolean
gst_avhw_strv_string_contains (const gchar * list, const gchar * item)
{
  gchar **parts = g_strsplit (list, ";", -1);
  gboolean found = g_strv_contains ((const gchar * const *) parts, item);

  g_strfreev (parts);
  return found;
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const gchar * const *) a, *(const gchar * const *) b);
}

static void
add_features (GPtrArray * out, const gchar * list)
{
  gchar **parts, **p;

  if (!list)
    return;
  parts = g_strsplit (list, ";", -1);
  for (p = parts; *p; p++)
    if (**p && !g_ptr_array_find_with_equal_func (out, *p, g_str_equal, NULL))
      g_ptr_array_add (out, g_strdup (*p));
  g_strfreev (parts);
}

/**
 * gst_avhw_backend_list_memory_features:
 * @foreign: %FALSE: the caps features of the backends' own device memory
 *   ("memory:AVHWCUDA"); %TRUE: those of GStreamer's own device memory the
 *   backends exchange frames with ("memory:CUDAMemory")
 *
 * Reads the installed backends' memory features from the GStreamer
 * registry, without loading a plugin, so it may be called from an element's
 * class_init while plugins load (for pad templates). A backend plugin
 * scanned in another process (the registry being rebuilt) may be missing.
 *
 * Returns: (transfer full) (array zero-terminated=1): the features, sorted
 */
gchar **
gst_avhw_backend_list_memory_features (gboolean foreign)
{
  GPtrArray *out = g_ptr_array_new ();
  GList *plugins, *l;

  plugins = gst_registry_get_plugin_list (gst_registry_get ());
  for (l = plugins; l; l = l->next) {
    const GstStructure *data = gst_plugin_get_cache_data (l->data);

    if (data && gst_structure_has_name (data, GST_AVHW_CACHE_DATA_NAME))
      add_features (out, gst_structure_get_string (data, foreign ?
              "foreign-features" : "memory-features"));
  }
  gst_plugin_list_free (plugins);
  g_ptr_array_sort (out, compare_strings);
  g_ptr_array_add (out, NULL);
  return (gchar **) g_ptr_array_free (out, FALSE);
}
