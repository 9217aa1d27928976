/* gst-avhw tests: backend registry, device strings, errors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../avhw-test-utils.h"

/* A backend whose FFmpeg device type this FFmpeg lacks: what a vendor
 * backend looks like on a stock FFmpeg. Leaves every optional vfunc to the
 * contract's defaults. */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwDummyBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwDummyBackendClass;
static GType gst_avhw_dummy_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwDummyBackend, gst_avhw_dummy_backend,
    GST_TYPE_AVHW_BACKEND);

static guint
dummy_get_n_devices (GstAvhwBackend * b, gchar ** reason)
{
  return 1;                     /* never asked: the type is unavailable */
}

/* fails without saying why, as a careless vendor backend might */
static gboolean
dummy_silent_transfer (GstAvhwBackend * b, AVFrame * dst, const AVFrame * src,
    GError ** error)
{
  return FALSE;
}

static void
gst_avhw_dummy_backend_class_init (GstAvhwDummyBackendClass * klass)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (klass);

  gst_avhw_backend_class_init_contract (klass);
  b->name = "dummy";
  b->hw_device_type = "nosuchtype";
  b->hw_pix_fmt = "nosuchfmt";
  b->caps_feature = "memory:AVHWDummy";
  b->get_n_devices = dummy_get_n_devices;
  b->upload = dummy_silent_transfer;
  b->copy = dummy_silent_transfer;
}

static void
gst_avhw_dummy_backend_init (GstAvhwDummyBackend * b)
{
}

/* A backend built for a contract version this library does not speak. */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwFutureBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwFutureBackendClass;
static GType gst_avhw_future_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwFutureBackend, gst_avhw_future_backend,
    GST_TYPE_AVHW_BACKEND);

static void
gst_avhw_future_backend_class_init (GstAvhwFutureBackendClass * klass)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (klass);

  b->contract_version = 99;
  b->name = "future";
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = "memory:AVHWFuture";
  b->get_n_devices = dummy_get_n_devices;
}

static void
gst_avhw_future_backend_init (GstAvhwFutureBackend * b)
{
}

/* A backend built against contract version 1 (its class struct had the
 * decoder-capability members of that version). */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwOldBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwOldBackendClass;
static GType gst_avhw_old_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwOldBackend, gst_avhw_old_backend, GST_TYPE_AVHW_BACKEND);

static void
gst_avhw_old_backend_class_init (GstAvhwOldBackendClass * klass)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (klass);

  b->contract_version = 1;
  b->name = "old";
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = "memory:AVHWOld";
  b->get_n_devices = dummy_get_n_devices;
}

static void
gst_avhw_old_backend_init (GstAvhwOldBackend * b)
{
}

/* A backend whose decoder answers break the rules between the fields of
 * GstAvhwDecoderCaps (never registered: made directly). */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwLiarBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwLiarBackendClass;
static GType gst_avhw_liar_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwLiarBackend, gst_avhw_liar_backend,
    GST_TYPE_AVHW_BACKEND);

static void
liar_get_decoders (GstAvhwBackend * b, enum AVCodecID id, GPtrArray * out)
{
  if (id == AV_CODEC_ID_H264 || id == AV_CODEC_ID_HEVC)
    g_ptr_array_add (out, (gpointer) avcodec_find_decoder (id));
}

/* H.264: fields refused without a reason; H.265: a fair answer */
static void
liar_query_decoder (GstAvhwBackend * b, guint index, enum AVCodecID id,
    GstAvhwDecoderCaps * caps)
{
  caps->slots = 16;
  caps->engines = 2;
  if (id == AV_CODEC_ID_H264)
    caps->field_coded = FALSE;
}

static void
gst_avhw_liar_backend_class_init (GstAvhwLiarBackendClass * klass)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (klass);

  gst_avhw_backend_class_init_contract (klass);
  b->name = "liar";
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = "memory:AVHWLiar";
  b->get_n_devices = dummy_get_n_devices;
  b->get_decoders = liar_get_decoders;
  b->query_decoder = liar_query_decoder;
}

static void
gst_avhw_liar_backend_init (GstAvhwLiarBackend * b)
{
}

/* A backend whose GstAvhwForeignInterop names a context type it cannot
 * wrap: refused. */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwHalfinteropBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwHalfinteropBackendClass;
static GType gst_avhw_halfinterop_backend_get_type (void);
static void halfinterop_init (GstAvhwForeignInteropInterface * iface);
G_DEFINE_TYPE_WITH_CODE (GstAvhwHalfinteropBackend,
    gst_avhw_halfinterop_backend, GST_TYPE_AVHW_BACKEND,
    G_IMPLEMENT_INTERFACE (GST_TYPE_AVHW_FOREIGN_INTEROP, halfinterop_init));

static void
halfinterop_init (GstAvhwForeignInteropInterface * iface)
{
  iface->foreign_context_type = "gst.avhwtest.half";
}

static void
gst_avhw_halfinterop_backend_class_init (GstAvhwHalfinteropBackendClass * k)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (k);

  gst_avhw_backend_class_init_contract (k);
  b->name = "halfinterop";
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = "memory:AVHWHalfinterop";
  b->get_n_devices = dummy_get_n_devices;
}

static void
gst_avhw_halfinterop_backend_init (GstAvhwHalfinteropBackend * b)
{
}

static gboolean
test_backends_init (GstPlugin * plugin)
{
  return gst_avhw_backend_register (plugin, gst_avhw_dummy_backend_get_type ())
      && gst_avhw_backend_register (plugin, gst_avhw_future_backend_get_type ())
      && gst_avhw_backend_register (plugin, gst_avhw_old_backend_get_type ())
      && gst_avhw_backend_register (plugin,
      gst_avhw_halfinterop_backend_get_type ());
}

static gboolean
expect_no_backend (void)
{
  return g_getenv ("AVHW_EXPECT_NO_BACKEND") != NULL;
}

static gboolean
listed (const gchar * name)
{
  GList *list = gst_avhw_backend_list (), *l;
  gboolean found = FALSE;

  for (l = list; l; l = l->next)
    found |= g_str_equal (gst_avhw_backend_get_name (l->data), name);
  g_list_free_full (list, gst_object_unref);
  return found;
}

/* How many backend plugins (GstAvhw<Name>Backend types of a plugin file)
 * are loaded; @except's not counted. */
static guint
n_backend_plugins_loaded (const gchar * except)
{
  GList *features = gst_registry_get_feature_list (gst_registry_get (),
      GST_TYPE_DYNAMIC_TYPE_FACTORY), *l;
  guint n = 0;

  for (l = features; l; l = l->next) {
    const gchar *name = gst_plugin_feature_get_name (l->data);
    GstPlugin *plugin = gst_plugin_feature_get_plugin (l->data);

    if (g_str_has_prefix (name, "GstAvhw") && g_str_has_suffix (name,
            "Backend") && g_strcmp0 (name, except) != 0 && plugin
        && gst_plugin_get_filename (plugin) && gst_plugin_is_loaded (plugin))
      n++;
    gst_clear_object (&plugin);
  }
  gst_plugin_feature_list_free (features);
  return n;
}

/* Whether this tree built two backend plugins or more (one to name, one
 * to leave unloaded). */
static gboolean
built_two_backends (void)
{
  gchar **built = g_strsplit (g_getenv ("AVHW_BUILT_BACKENDS"), ",", -1);
  gboolean two = built[0] && *built[0] && built[1] && *built[1];

  g_strfreev (built);
  return two;
}

/* A backend named (device=vulkan) loads its own plugin and no other
 * backend's: each costs a pipeline's start time (~10 ms for four). */
GST_START_TEST (test_named_backend_loads_alone)
{
  gchar **built = g_strsplit (g_getenv ("AVHW_BUILT_BACKENDS"), ",", -1);
  GstAvhwBackend *b;
  GError *err = NULL;
  gchar *type_name;
  guint before;

  type_name = g_strdup_printf ("GstAvhw%c%sBackend",
      g_ascii_toupper (built[0][0]), built[0] + 1);
  before = n_backend_plugins_loaded (type_name);
  b = gst_avhw_backend_find (built[0], &err);
  fail_unless (b != NULL, "%s", err ? err->message : "");
  fail_unless_equals_int (n_backend_plugins_loaded (type_name), before);
  gst_object_unref (b);
  g_free (type_name);
  g_strfreev (built);
}

GST_END_TEST;

/* Every backend this tree built is found through GST_PLUGIN_PATH alone
 * (the test's registry has no system plugin path) and opens a device. */
GST_START_TEST (test_built_backends_listed_and_opened)
{
  gchar **built = g_strsplit (g_getenv ("AVHW_BUILT_BACKENDS"), ",", -1);
  guint i, opened = 0;

  for (i = 0; built[i] && *built[i]; i++) {
    GstAvhwBackend *b;
    GstAvhwDevice *dev;
    GError *err = NULL;
    gchar *reason = NULL;

    fail_unless (listed (built[i]), "backend %s not listed", built[i]);
    b = gst_avhw_backend_find (built[i], &err);
    fail_unless (b != NULL, "%s", err ? err->message : "");
    if (gst_avhw_backend_get_n_devices (b, &reason) == 0) {
      g_print ("backend %s has no device here: %s\n", built[i], reason);
      g_free (reason);
      gst_object_unref (b);
      continue;
    }
    dev = gst_avhw_device_open (built[i], NULL, &err);
    fail_unless (dev != NULL, "%s", err ? err->message : "");
    fail_unless (gst_avhw_device_get_backend (dev) == b);
    fail_unless_equals_int (gst_avhw_device_get_index (dev), 0);
    {
      gchar *expect = g_strdup_printf ("%s:0", built[i]);
      fail_unless_equals_string (gst_avhw_device_get_name (dev), expect);
      g_free (expect);
    }
    fail_unless (gst_avhw_device_get_context_id (dev) != 0);
    opened++;
    gst_object_unref (dev);
    gst_object_unref (b);
  }
  g_print ("opened %u backend(s)\n", opened);
  g_strfreev (built);
}

GST_END_TEST;

GST_START_TEST (test_parse_device_strings)
{
  gchar *name = NULL;
  gint index = 0;
  GError *err = NULL;
  const gchar *bad[] = { "vulkan:x", "vul kan", ":3", "vulkan:-1", "vulkan:",
    "cuda:1:2", "vulkan:99999999999"
  };
  guint i;

  fail_unless (gst_avhw_device_parse_string ("auto", &name, &index, NULL));
  fail_unless (name == NULL && index == -1);
  fail_unless (gst_avhw_device_parse_string ("", &name, &index, NULL));
  fail_unless (name == NULL && index == -1);
  fail_unless (gst_avhw_device_parse_string (NULL, &name, &index, NULL));
  fail_unless (gst_avhw_device_parse_string ("cuda:1", &name, &index, NULL));
  fail_unless_equals_string (name, "cuda");
  fail_unless_equals_int (index, 1);
  g_free (name);
  fail_unless (gst_avhw_device_parse_string ("vulkan", &name, &index, NULL));
  fail_unless_equals_string (name, "vulkan");
  fail_unless_equals_int (index, -1);
  g_free (name);

  for (i = 0; i < G_N_ELEMENTS (bad); i++) {
    fail_if (gst_avhw_device_parse_string (bad[i], &name, &index, &err),
        "\"%s\" parsed", bad[i]);
    fail_unless (g_error_matches (err, GST_AVHW_ERROR,
            GST_AVHW_ERROR_INVALID_ARGUMENT));
    fail_unless (strstr (err->message, bad[i]) != NULL, "%s", err->message);
    g_clear_error (&err);
  }
}

GST_END_TEST;

GST_START_TEST (test_unknown_backend_lists_installed)
{
  GError *err = NULL;
  GstAvhwDevice *dev = gst_avhw_device_open ("nosuch:0", NULL, &err);
  gchar *names = gst_avhw_backend_list_names ();

  fail_unless (dev == NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR,
          GST_AVHW_ERROR_UNKNOWN_BACKEND));
  fail_unless (strstr (err->message, "\"nosuch\"") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, names) != NULL, "%s", err->message);
  g_print ("%s\n", err->message);
  g_clear_error (&err);
  g_free (names);
}

GST_END_TEST;

GST_START_TEST (test_index_out_of_range)
{
  GList *list = gst_avhw_backend_list (), *l;

  for (l = list; l; l = l->next) {
    const gchar *name = gst_avhw_backend_get_name (l->data);
    guint n = gst_avhw_backend_get_n_devices (l->data, NULL);
    gchar *str = g_strdup_printf ("%s:%u", name, n + 3);
    GError *err = NULL;

    fail_if (gst_avhw_device_open (str, NULL, &err) != NULL);
    fail_unless (g_error_matches (err, GST_AVHW_ERROR,
            GST_AVHW_ERROR_NO_DEVICE), "%s", err->message);
    fail_unless (strstr (err->message, str) != NULL, "%s", err->message);
    g_print ("%s\n", err->message);
    g_clear_error (&err);
    g_free (str);
  }
  g_list_free_full (list, gst_object_unref);
}

GST_END_TEST;

/* A backend naming a device type this FFmpeg lacks is listed, has no device
 * and says why; asking for it is a clear error. */
GST_START_TEST (test_unavailable_device_type)
{
  GstAvhwBackend *b = gst_avhw_backend_find ("dummy", NULL);
  gchar *reason = NULL;
  GError *err = NULL;
  GPtrArray *dec;

  fail_unless (b != NULL);
  fail_unless_equals_int (gst_avhw_backend_get_n_devices (b, &reason), 0);
  fail_unless (strstr (reason, "nosuchtype") != NULL, "%s", reason);
  fail_if (gst_avhw_backend_is_available (b, NULL));
  dec = gst_avhw_backend_get_decoders (b, AV_CODEC_ID_H264);
  fail_unless_equals_int (dec->len, 0);
  g_ptr_array_unref (dec);
  fail_if (gst_avhw_device_open ("dummy", NULL, &err) != NULL);
  fail_unless (strstr (err->message, "nosuchtype") != NULL, "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_avhw_backend_copy (b, NULL, NULL, &err));
  g_clear_error (&err);
  fail_if (gst_avhw_backend_wrap_device (b, NULL, &err) != NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR,
          GST_AVHW_ERROR_NOT_SUPPORTED));
  g_clear_error (&err);
  g_free (reason);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_contract_version_refused)
{
  GError *err = NULL;
  gchar **refused;
  gboolean seen = FALSE;
  guint i;

  fail_if (listed ("future"));
  fail_if (gst_avhw_backend_find ("future", &err) != NULL);
  fail_unless (strstr (err->message, "contract version 99") != NULL, "%s",
      err->message);
  g_print ("%s\n", err->message);
  g_clear_error (&err);
  refused = gst_avhw_backend_list_refused ();
  for (i = 0; refused[i]; i++)
    seen |= strstr (refused[i], "GstAvhwFutureBackend") != NULL;
  fail_unless (seen);
  g_strfreev (refused);
}

GST_END_TEST;

/* A version-1 backend is refused, and the message names both versions
 * and what to do. */
GST_START_TEST (test_version_1_refused)
{
  GError *err = NULL;

  fail_unless_equals_int (GST_AVHW_BACKEND_CONTRACT_VERSION, 2);
  fail_if (listed ("old"));
  fail_if (gst_avhw_backend_find ("old", &err) != NULL);
  fail_unless (strstr (err->message, "(GstAvhwOldBackend) was built for "
          "backend contract version 1, this library speaks version 2; "
          "rebuild the backend against this gst-avhw") != NULL, "%s",
      err->message);
  g_clear_error (&err);
}

GST_END_TEST;

/* A GstAvhwForeignInterop naming a context type without the vfuncs that
 * wrap it is refused, saying which. */
GST_START_TEST (test_half_interop_refused)
{
  GError *err = NULL;

  fail_if (listed ("halfinterop"));
  fail_if (gst_avhw_backend_find ("halfinterop", &err) != NULL);
  fail_unless (strstr (err->message, "(GstAvhwHalfinteropBackend): its "
          "GstAvhwForeignInterop names foreign context type gst.avhwtest.half "
          "but lacks foreign_context_get_handle or wrap_foreign_context")
      != NULL, "%s", err->message);
  g_clear_error (&err);
}

GST_END_TEST;

/* The rules between the fields of a decoder answer, and what the library
 * makes of an answer that breaks them: a no naming the backend and the
 * rule. */
GST_START_TEST (test_decoder_caps_rules)
{
  GstAvhwBackend *b = g_object_new (gst_avhw_liar_backend_get_type (), NULL);
  GstAvhwDecoderCaps caps;
  gchar *why = NULL, *reason = NULL;

  gst_avhw_decoder_caps_init (&caps);
  fail_unless (gst_avhw_decoder_caps_check (&caps, NULL));
  caps.max_width = 4096;
  fail_if (gst_avhw_decoder_caps_check (&caps, &why));
  fail_unless (strstr (why, "one side") != NULL, "%s", why);
  g_clear_pointer (&why, g_free);
  caps.max_height = 2304;
  caps.max_frame_threads = 1;
  fail_if (gst_avhw_decoder_caps_check (&caps, NULL));
  caps.frame_threads_reason = g_strdup ("one thread only");
  caps.bit_depths = GST_AVHW_BIT_DEPTH (8) | GST_AVHW_BIT_DEPTH (10);
  caps.chroma = GST_AVHW_CHROMA_420;
  caps.slots = 17;
  fail_unless (gst_avhw_decoder_caps_check (&caps, NULL));
  why = gst_avhw_decoder_caps_describe (&caps);
  fail_unless_equals_string (why, "8-bit, 10-bit 4:2:0, up to 4096x2304, "
      "17 picture slots");
  g_clear_pointer (&why, g_free);
  caps.supported = FALSE;
  fail_if (gst_avhw_decoder_caps_check (&caps, NULL));
  caps.reason = g_strdup ("no");
  fail_unless (gst_avhw_decoder_caps_check (&caps, NULL));
  fail_unless (gst_avhw_decoder_caps_describe (&caps) == NULL);
  gst_avhw_decoder_caps_clear (&caps);

  fail_if (gst_avhw_backend_device_decodes (b, 0, AV_CODEC_ID_H264, &reason));
  fail_unless (strstr (reason, "backend liar broke the contract") != NULL
      && strstr (reason, "fields refused without a reason") != NULL, "%s",
      reason);
  g_clear_pointer (&reason, g_free);
  fail_unless_equals_int (gst_avhw_backend_get_decode_slots (b, 0,
          AV_CODEC_ID_H264), 0);
  fail_unless (gst_avhw_backend_device_decodes (b, 0, AV_CODEC_ID_HEVC, NULL));
  fail_unless_equals_int (gst_avhw_backend_get_decode_engines (b, 0,
          AV_CODEC_ID_HEVC), 2);
  fail_if (gst_avhw_backend_device_decodes (b, 0, AV_CODEC_ID_VP9, &reason));
  fail_unless (strstr (reason, "no FFmpeg decoder") != NULL, "%s", reason);
  g_free (reason);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_no_backend_installed)
{
  GError *err = NULL;
  GList *list = gst_avhw_backend_list ();

  fail_unless (list == NULL, "%u backends found without GST_PLUGIN_PATH",
      g_list_length (list));
  fail_if (gst_avhw_device_open ("auto", NULL, &err) != NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE));
  fail_unless (strstr (err->message, "no avhw backend is installed") != NULL,
      "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_avhw_device_open ("vulkan", NULL, &err) != NULL);
  fail_unless (strstr (err->message, "installed backends: none") != NULL,
      "%s", err->message);
  g_clear_error (&err);
}

GST_END_TEST;

GST_START_TEST (test_codec_and_format_maps)
{
  guint n, i;
  const enum AVCodecID *ids = gst_avhw_codec_list (&n);
  GstCaps *caps;

  fail_unless (n >= 8);
  for (i = 0; i < n; i++) {
    caps = gst_avhw_codec_get_caps (ids[i]);
    fail_unless (caps != NULL);
    fail_unless_equals_int (gst_avhw_codec_from_caps (caps), ids[i]);
    gst_caps_unref (caps);
  }
  caps = gst_caps_from_string ("video/x-h265, stream-format=hvc1, "
      "alignment=au");
  fail_unless_equals_int (gst_avhw_codec_from_caps (caps), AV_CODEC_ID_HEVC);
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("video/x-h264, alignment=nal");
  fail_unless_equals_int (gst_avhw_codec_from_caps (caps), AV_CODEC_ID_NONE);
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("audio/x-raw");
  fail_unless_equals_int (gst_avhw_codec_from_caps (caps), AV_CODEC_ID_NONE);
  gst_caps_unref (caps);

  fail_unless_equals_int (gst_avhw_format_to_av (GST_VIDEO_FORMAT_NV12),
      AV_PIX_FMT_NV12);
  fail_unless_equals_int (gst_avhw_format_to_av (GST_VIDEO_FORMAT_P010_10LE),
      AV_PIX_FMT_P010LE);
  fail_unless_equals_int (gst_avhw_format_from_av (AV_PIX_FMT_YUVJ420P),
      GST_VIDEO_FORMAT_I420);
  fail_unless_equals_int (gst_avhw_format_from_av (AV_PIX_FMT_YUV420P10LE),
      GST_VIDEO_FORMAT_I420_10LE);
  fail_unless_equals_int (gst_avhw_format_to_av (GST_VIDEO_FORMAT_v210),
      AV_PIX_FMT_NONE);
}

GST_END_TEST;

/* A transfer that fails always comes with an error naming the backend,
 * even when the backend gave none: elements print its message. */
GST_START_TEST (test_silent_transfer_failure_gets_error)
{
  GstAvhwBackend *b = g_object_new (gst_avhw_dummy_backend_get_type (), NULL);
  AVFrame *dst = av_frame_alloc (), *src = av_frame_alloc ();
  GError *err = NULL;

  fail_if (gst_avhw_backend_upload (b, dst, src, &err));
  fail_unless (err != NULL, "upload failed without an error");
  fail_unless (strstr (err->message, "dummy") && strstr (err->message,
          "upload"), "%s", err->message);
  g_clear_error (&err);
  fail_if (gst_avhw_backend_copy (b, dst, src, &err));
  fail_unless (err != NULL && strstr (err->message, "device copy"));
  g_clear_error (&err);
  /* callers that pass no error location are fine too */
  fail_if (gst_avhw_backend_upload (b, dst, src, NULL));
  av_frame_free (&dst);
  av_frame_free (&src);
  gst_object_unref (b);
}

GST_END_TEST;

static Suite *
registry_suite (void)
{
  Suite *s = suite_create ("avhw-registry");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_parse_device_strings);
  if (expect_no_backend ()) {
    tcase_add_test (tc, test_no_backend_installed);
    return s;
  }
  gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR,
      "avhwtestbackends", "test backends", test_backends_init, VERSION,
      GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN);
  /* first: before any test lists the backends (without forking) */
  if (built_two_backends ())
    tcase_add_test (tc, test_named_backend_loads_alone);
  else
    g_print ("named_backend_loads_alone not run: fewer than two backend "
        "plugins built\n");
  tcase_add_test (tc, test_built_backends_listed_and_opened);
  tcase_add_test (tc, test_unknown_backend_lists_installed);
  tcase_add_test (tc, test_index_out_of_range);
  tcase_add_test (tc, test_unavailable_device_type);
  tcase_add_test (tc, test_contract_version_refused);
  tcase_add_test (tc, test_version_1_refused);
  tcase_add_test (tc, test_half_interop_refused);
  tcase_add_test (tc, test_decoder_caps_rules);
  tcase_add_test (tc, test_codec_and_format_maps);
  tcase_add_test (tc, test_silent_transfer_failure_gets_error);
  return s;
}

GST_CHECK_MAIN (registry);
