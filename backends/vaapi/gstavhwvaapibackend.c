/* gst-avhw: VA-API backend (FFmpeg's vaapi hwcontext)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>
#include <va/va.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/hwcontext_vaapi.h>
#ifdef HAVE_GST_VA
#include <gst/va/gstva.h>
#endif

#include "gstavhwvaapibackend.h"

GST_DEBUG_CATEGORY_STATIC (va_debug);
#define GST_CAT_DEFAULT va_debug

#define VA_DRI_DIR "/dev/dri"
#define VA_RENDER_PREFIX "renderD"

struct _GstAvhwVaapiBackend
{
  GstAvhwBackend parent;
};

#ifdef HAVE_GST_VA
/* gst.va.display.handle: one VADisplay with GStreamer's va elements. */
static void va_foreign_interop_init (GstAvhwForeignInteropInterface * iface);
G_DEFINE_TYPE_WITH_CODE (GstAvhwVaapiBackend, gst_avhw_vaapi_backend,
    GST_TYPE_AVHW_BACKEND,
    G_IMPLEMENT_INTERFACE (GST_TYPE_AVHW_FOREIGN_INTEROP,
        va_foreign_interop_init));
#else
G_DEFINE_TYPE (GstAvhwVaapiBackend, gst_avhw_vaapi_backend,
    GST_TYPE_AVHW_BACKEND);
#endif

/* One usable render node. */
typedef struct
{
  gchar *path;                  /* /dev/dri/renderD128 */
  gchar *kernel_driver;         /* i915, amdgpu... */
  gchar *va_driver;             /* iHD, radeonsi... the first file found */
} VaNode;

/* Render nodes, listed once per process: an open(), drmGetVersion() and a
 * few stat() calls per node. No VADisplay, no driver loaded. */
static GMutex va_lock;
static gboolean va_listed;
static GPtrArray *va_nodes;
static gchar *va_reason;

static void
va_node_free (VaNode * node)
{
  g_free (node->path);
  g_free (node->kernel_driver);
  g_free (node->va_driver);
  g_free (node);
}

/* libva's own mapping from kernel driver to VA driver names
 * (va/drm/va_drm_utils.c, libva 2.17); a kernel driver not in it maps to a
 * VA driver of the same name. LIBVA_DRIVER_NAME overrides both. */
static const struct
{
  const gchar *kernel;
  const gchar *va;
} va_driver_map[] = {
  {"i915", "iHD"},
  {"i915", "i965"},
  {"pvrsrvkm", "pvr"},
  {"radeon", "r600"},
  {"radeon", "radeonsi"},
  {"amdgpu", "radeonsi"},
  {"nvidia-drm", "nvidia"},
};

static GPtrArray *
va_driver_candidates (const gchar * kernel_driver)
{
  GPtrArray *names = g_ptr_array_new ();
  const gchar *env = g_getenv ("LIBVA_DRIVER_NAME");
  guint i;

  if (env && *env) {
    g_ptr_array_add (names, (gpointer) env);
    return names;
  }
  for (i = 0; i < G_N_ELEMENTS (va_driver_map); i++) {
    if (g_str_equal (va_driver_map[i].kernel, kernel_driver))
      g_ptr_array_add (names, (gpointer) va_driver_map[i].va);
  }
  if (names->len == 0)
    g_ptr_array_add (names, (gpointer) kernel_driver);
  return names;
}

/* The folders libva loads drivers from: LIBVA_DRIVERS_PATH or its built-in
 * folder. */
static gchar **
va_driver_dirs (void)
{
  const gchar *env = g_getenv ("LIBVA_DRIVERS_PATH");

  return g_strsplit (env && *env ? env : VA_DRIVERS_PATH, ":", -1);
}

/* The first VA driver for @kernel_driver whose file exists, or NULL with
 * @why saying where it looked. */
static gchar *
va_find_driver (const gchar * kernel_driver, gchar ** why)
{
  GPtrArray *names = va_driver_candidates (kernel_driver);
  gchar **dirs = va_driver_dirs ();
  gchar *found = NULL;
  GString *files;
  guint i, j;

  for (i = 0; i < names->len && !found; i++) {
    for (j = 0; dirs[j] && !found; j++) {
      gchar *file = g_strdup_printf ("%s/%s_drv_video.so", dirs[j],
          (const gchar *) g_ptr_array_index (names, i));

      if (g_file_test (file, G_FILE_TEST_EXISTS))
        found = g_strdup (g_ptr_array_index (names, i));
      g_free (file);
    }
  }
  if (!found) {
    gchar *dir_list = g_strjoinv (":", dirs);

    files = g_string_new (NULL);
    for (i = 0; i < names->len; i++)
      g_string_append_printf (files, "%s%s_drv_video.so", i ? " or " : "",
          (const gchar *) g_ptr_array_index (names, i));
    *why = g_strdup_printf ("no VA-API driver is installed for it (no %s in "
        "%s; LIBVA_DRIVER_NAME and LIBVA_DRIVERS_PATH change what and "
        "where)", files->str, dir_list);
    g_string_free (files, TRUE);
    g_free (dir_list);
  }
  g_strfreev (dirs);
  g_ptr_array_unref (names);
  return found;
}

static gint
va_compare_node_names (gconstpointer a, gconstpointer b)
{
  const gchar *na = *(const gchar **) a, *nb = *(const gchar **) b;
  guint64 ia = g_ascii_strtoull (na + strlen (VA_RENDER_PREFIX), NULL, 10);
  guint64 ib = g_ascii_strtoull (nb + strlen (VA_RENDER_PREFIX), NULL, 10);

  return ia < ib ? -1 : ia > ib;
}

/* Checks one render node: adds it to va_nodes, or returns why not. */
static gchar *
va_probe_node (const gchar * name)
{
  gchar *path = g_build_filename (VA_DRI_DIR, name, NULL);
  drmVersionPtr version;
  gchar *va_driver, *missing = NULL, *why = NULL;
  VaNode *node;
  int fd;

  fd = open (path, O_RDWR | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;

    why = g_strdup_printf ("%s: %s%s", path, g_strerror (err),
        err == EACCES ? " (the user is not in the group that owns it, "
        "usually \"render\")" : "");
    g_free (path);
    return why;
  }
  version = drmGetVersion (fd);
  close (fd);
  if (!version || !version->name) {
    why = g_strdup_printf ("%s: the kernel driver does not give its name "
        "(drmGetVersion failed)", path);
    drmFreeVersion (version);
    g_free (path);
    return why;
  }
  va_driver = va_find_driver (version->name, &missing);
  if (!va_driver) {
    why = g_strdup_printf ("%s (kernel driver %s): %s", path, version->name,
        missing);
    g_free (missing);
    drmFreeVersion (version);
    g_free (path);
    return why;
  }
  node = g_new0 (VaNode, 1);
  node->path = path;
  node->kernel_driver = g_strdup (version->name);
  node->va_driver = va_driver;
  g_ptr_array_add (va_nodes, node);
  drmFreeVersion (version);
  GST_INFO ("vaapi:%u is %s (kernel driver %s, VA driver %s)",
      va_nodes->len - 1, node->path, node->kernel_driver, node->va_driver);
  return NULL;
}

static void
va_list_nodes_locked (void)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  GString *left_out = g_string_new (NULL);
  struct dirent *entry;
  DIR *dir;
  guint i;

  va_listed = TRUE;
  va_nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) va_node_free);
  dir = opendir (VA_DRI_DIR);
  if (!dir) {
    int err = errno;

    va_reason = g_strdup_printf ("no DRM render node: " VA_DRI_DIR ": %s%s",
        g_strerror (err), err == ENOENT ? " (no GPU kernel driver is loaded, "
        "or this container was started without " VA_DRI_DIR ")" : "");
    goto done;
  }
  while ((entry = readdir (dir))) {
    if (g_str_has_prefix (entry->d_name, VA_RENDER_PREFIX))
      g_ptr_array_add (names, g_strdup (entry->d_name));
  }
  closedir (dir);
  if (names->len == 0) {
    va_reason = g_strdup (VA_DRI_DIR " has no " VA_RENDER_PREFIX "* render "
        "node (the GPU's kernel driver exposes none)");
    goto done;
  }
  g_ptr_array_sort (names, va_compare_node_names);
  for (i = 0; i < names->len; i++) {
    gchar *why = va_probe_node (g_ptr_array_index (names, i));

    if (why)
      g_string_append_printf (left_out, "%s%s", left_out->len ? "; " : "", why);
    g_free (why);
  }
  if (va_nodes->len == 0)
    va_reason = g_strdup_printf ("no usable DRM render node: %s",
        left_out->str);

done:
  if (va_reason)
    GST_INFO ("no VA-API device: %s", va_reason);
  else if (left_out->len)
    GST_INFO ("render nodes left out: %s", left_out->str);
  g_string_free (left_out, TRUE);
  g_ptr_array_unref (names);
}

/* Node @index, or NULL; va_lock must not be held. */
static const VaNode *
va_get_node (guint index)
{
  const VaNode *node = NULL;

  g_mutex_lock (&va_lock);
  if (!va_listed)
    va_list_nodes_locked ();
  if (index < va_nodes->len)
    node = g_ptr_array_index (va_nodes, index);
  g_mutex_unlock (&va_lock);
  /* Nodes are never freed once listed. */
  return node;
}

static guint
va_get_n_devices (GstAvhwBackend * backend, gchar ** reason)
{
  guint n;

  g_mutex_lock (&va_lock);
  if (!va_listed)
    va_list_nodes_locked ();
  n = va_nodes->len;
  if (n == 0 && reason)
    *reason = g_strdup (va_reason);
  g_mutex_unlock (&va_lock);
  return n;
}

static gchar *
va_get_device_description (GstAvhwBackend * backend, guint index)
{
  const VaNode *node = va_get_node (index);

  if (!node)
    return g_strdup_printf ("vaapi:%u", index);
  return g_strdup_printf ("%s (kernel driver %s, VA driver %s)", node->path,
      node->kernel_driver, node->va_driver);
}

static gchar *
va_get_device_string (GstAvhwBackend * backend, guint index)
{
  const VaNode *node = va_get_node (index);

  return g_strdup (node ? node->path : "");
}

/* Wraps @display into a new FFmpeg device context. @free_cb (may be NULL)
 * runs with @user_opaque when the context is freed, also when this fails:
 * it is how the caller's reference on the display is released. */
static void
va_fill_hwctx (void *hwctx, gpointer native)
{
  ((AVVAAPIDeviceContext *) hwctx)->display = native;
}

static AVBufferRef *
va_wrap_display (VADisplay display, void (*free_cb) (AVHWDeviceContext *),
    void *user_opaque, GError ** error)
{
  return gst_avhw_wrap_device_ctx (AV_HWDEVICE_TYPE_VAAPI, "VADisplay",
      display, va_fill_hwctx, free_cb, user_opaque, error);
}

static AVBufferRef *
va_wrap_device (GstAvhwBackend * backend, gpointer native, GError ** error)
{
  if (!native || !vaDisplayIsValid (native)) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vaapi: the native handle to wrap must be an initialised VADisplay, "
        "not %p", native);
    return NULL;
  }
  return va_wrap_display (native, NULL, NULL, error);
}

#ifdef HAVE_GST_VA
/* Interop with GStreamer's va elements (gst.va.display.handle).
 *
 * A GstVaDisplay that this backend made to answer a query carries the
 * device context it wraps, so a context holding it that comes back (through
 * a bin, or the application) maps to the same FFmpeg device context. */
typedef struct
{
  AVBufferRef *device_ctx;
  guint index;
} VaOwnDisplay;

static GQuark va_own_quark;     /* on a GstVaDisplay: VaOwnDisplay */
static GQuark va_display_quark; /* on a GstAvhwDevice: its GstVaDisplay */
static GMutex va_fill_lock;

static void
va_own_display_free (VaOwnDisplay * own)
{
  av_buffer_unref (&own->device_ctx);
  g_free (own);
}

/* The GstVaDisplay in @context (transfer full), made from a bare VADisplay
 * when the context only has that; NULL when it has neither. */
static GstVaDisplay *
va_display_from_context (GstContext * context)
{
  const GstStructure *s = gst_context_get_structure (context);
  const GValue *v = gst_structure_get_value (s, "gst-display");
  gpointer dpy = NULL;

  if (v && G_VALUE_HOLDS_OBJECT (v) && GST_IS_VA_DISPLAY (g_value_get_object
          (v)))
    return gst_object_ref (g_value_get_object (v));
  if (gst_structure_get (s, "va-display", G_TYPE_POINTER, &dpy, NULL) && dpy)
    return gst_va_display_wrapped_new (dpy);
  return NULL;
}

static gpointer
va_foreign_get_handle (GstAvhwBackend * backend, GstContext * context)
{
  const GstStructure *s = gst_context_get_structure (context);
  const GValue *v = gst_structure_get_value (s, "gst-display");
  gpointer dpy = NULL;

  /* The VADisplay is the identity: two GstVaDisplays wrapping one
   * VADisplay are one device. */
  if (v && G_VALUE_HOLDS_OBJECT (v) && GST_IS_VA_DISPLAY (g_value_get_object
          (v)))
    return gst_va_display_get_va_dpy (g_value_get_object (v));
  if (gst_structure_get (s, "va-display", G_TYPE_POINTER, &dpy, NULL))
    return dpy;
  return NULL;
}

static void
va_release_gst_display (AVHWDeviceContext * dctx)
{
  gst_object_unref (dctx->user_opaque);
}

/* The index of the render node @display was opened on, 0 when unknown. */
static guint
va_index_of_display (GstVaDisplay * display)
{
  gchar *path = NULL;
  guint i, index = 0;

  if (!GST_IS_VA_DISPLAY_DRM (display))
    return 0;
  g_object_get (display, "path", &path, NULL);
  g_mutex_lock (&va_lock);
  if (!va_listed)
    va_list_nodes_locked ();
  for (i = 0; i < va_nodes->len; i++) {
    if (g_strcmp0 (((VaNode *) g_ptr_array_index (va_nodes, i))->path,
            path) == 0)
      index = i;
  }
  g_mutex_unlock (&va_lock);
  g_free (path);
  return index;
}

static AVBufferRef *
va_wrap_foreign_context (GstAvhwBackend * backend, GstContext * context,
    guint * index, GError ** error)
{
  GstVaDisplay *display = va_display_from_context (context);
  VaOwnDisplay *own;
  VADisplay dpy;

  if (!display) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_INVALID_ARGUMENT,
        "vaapi: the " GST_VA_DISPLAY_HANDLE_CONTEXT_TYPE_STR " context holds "
        "neither a GstVaDisplay (gst-display) nor a VADisplay (va-display)");
    return NULL;
  }
  own = g_object_get_qdata (G_OBJECT (display), va_own_quark);
  if (own) {
    *index = own->index;
    gst_object_unref (display);
    return av_buffer_ref (own->device_ctx);
  }
  dpy = gst_va_display_get_va_dpy (display);
  *index = va_index_of_display (display);
  GST_INFO ("wrapping %" GST_PTR_FORMAT " (VADisplay %p) as vaapi:%u",
      display, dpy, *index);
  /* The device context keeps the GstVaDisplay, and so the VADisplay,
   * alive; va_release_gst_display drops it, also on failure. */
  return va_wrap_display (dpy, va_release_gst_display, display, error);
}

static gboolean
va_fill_foreign_context (GstAvhwBackend * backend, GstAvhwDevice * device,
    GstContext * context)
{
  AVBufferRef *ref = gst_avhw_device_get_device_ctx (device);
  AVVAAPIDeviceContext *hwctx = ((AVHWDeviceContext *) ref->data)->hwctx;
  GstVaDisplay *display;

  g_mutex_lock (&va_fill_lock);
  display = g_object_get_qdata (G_OBJECT (device), va_display_quark);
  if (!display) {
    VaOwnDisplay *own;

    /* A wrapper that does not own the VADisplay (no vaTerminate); it holds
     * the device context so the VADisplay outlives every va element that
     * still uses the wrapper. */
    display = gst_va_display_wrapped_new (hwctx->display);
    if (!display) {
      g_mutex_unlock (&va_fill_lock);
      GST_WARNING_OBJECT (device, "could not wrap VADisplay %p in a "
          "GstVaDisplay", hwctx->display);
      return FALSE;
    }
    own = g_new0 (VaOwnDisplay, 1);
    own->device_ctx = av_buffer_ref (ref);
    own->index = gst_avhw_device_get_index (device);
    g_object_set_qdata_full (G_OBJECT (display), va_own_quark, own,
        (GDestroyNotify) va_own_display_free);
    g_object_set_qdata_full (G_OBJECT (device), va_display_quark, display,
        gst_object_unref);
  }
  gst_context_set_va_display (context, display);
  g_mutex_unlock (&va_fill_lock);
  return TRUE;
}

static void
va_foreign_interop_init (GstAvhwForeignInteropInterface * iface)
{
  va_own_quark = g_quark_from_static_string ("avhw-vaapi-own-display");
  va_display_quark = g_quark_from_static_string ("avhw-vaapi-gst-display");
  iface->foreign_context_type = GST_VA_DISPLAY_HANDLE_CONTEXT_TYPE_STR;
  iface->foreign_context_get_handle = va_foreign_get_handle;
  iface->wrap_foreign_context = va_wrap_foreign_context;
  iface->fill_foreign_context = va_fill_foreign_context;
}
#endif /* HAVE_GST_VA */

/* scale_vaapi converts with the driver's video processing: to any format
 * the device's frames hold (FFmpeg checks the output against the frames
 * constraints), from any it holds. Untested here: no VA device. */
static void
va_get_scale_formats (GstAvhwBackend * backend, AVBufferRef * device_ctx,
    enum AVPixelFormat in_format, GArray * out_formats)
{
  GArray *held;
  gint f = in_format, o;
  guint i;

  g_array_append_val (out_formats, f);
  if (!device_ctx)
    return;
  held = gst_avhw_backend_get_sw_formats (backend, device_ctx);
  for (i = 0; i < held->len; i++) {
    o = g_array_index (held, gint, i);
    if (o != f)
      g_array_append_val (out_formats, o);
  }
  g_array_unref (held);
}

static void
gst_avhw_vaapi_backend_class_init (GstAvhwVaapiBackendClass * klass)
{
  GstAvhwBackendClass *bclass = GST_AVHW_BACKEND_CLASS (klass);

  gst_avhw_backend_class_init_contract (klass);
  GST_DEBUG_CATEGORY_INIT (va_debug, "avhwvaapi", 0, "gst-avhw VA-API backend");

  bclass->name = "vaapi";
  bclass->description = "Intel and AMD GPUs (VA-API) through FFmpeg's vaapi "
      "hwcontext";
  bclass->hw_device_type = "vaapi";
  bclass->hw_pix_fmt = "vaapi";
  bclass->caps_feature = "memory:AVHWVAAPI";
  /* Below cuda (PRIMARY): on a machine with an NVIDIA GPU and an Intel iGPU
   * `auto` takes the discrete GPU; above vulkan (SECONDARY), which on the
   * same GPU has fewer codecs. */
  bclass->rank = GST_RANK_PRIMARY - 1;
  bclass->get_n_devices = va_get_n_devices;
  bclass->get_device_description = va_get_device_description;
  /* The default open_device: av_hwdevice_ctx_create() on the node. */
  bclass->get_device_string = va_get_device_string;
  bclass->wrap_device = va_wrap_device;
  /* Its default interpolation is the driver's high-quality mode; the
   * methods by name are not offered (the default get_scale_method_args). */
  bclass->scale_filter = "scale_vaapi";
  bclass->get_scale_formats = va_get_scale_formats;
}

static void
gst_avhw_vaapi_backend_init (GstAvhwVaapiBackend * self)
{
}
