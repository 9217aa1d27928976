/* gst-avhw tests: interop through a backend's foreign context type
 *
 * A test backend drives FFmpeg's vulkan hwcontext and declares, through
 * its GstAvhwForeignInterop interface, the foreign context type
 * "gst.avhwtest.native", whose structure holds a GObject as the native
 * device. It shows the contract path GStreamer's own contexts
 * (gst.cuda.context, gst.vulkan.device) take: a pipeline given such a
 * context uses one avhw device made on it, elements answer queries for it,
 * and a new device posts it for the other elements.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../avhw-test-utils.h"

#define TEST_TYPE "gst.avhwtest.native"

typedef struct
{
  GstAvhwBackend parent;
} GstAvhwForeigntestBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwForeigntestBackendClass;
static GType gst_avhw_foreigntest_backend_get_type (void);
static void ft_interop_init (GstAvhwForeignInteropInterface * iface);
G_DEFINE_TYPE_WITH_CODE (GstAvhwForeigntestBackend,
    gst_avhw_foreigntest_backend, GST_TYPE_AVHW_BACKEND,
    G_IMPLEMENT_INTERFACE (GST_TYPE_AVHW_FOREIGN_INTEROP, ft_interop_init));

static guint n_wraps;

static gpointer
ft_get_handle (GstAvhwBackend * b, GstContext * context)
{
  GObject *native = NULL;
  gpointer handle;

  if (!gst_structure_get (gst_context_get_structure (context), "native",
          G_TYPE_OBJECT, &native, NULL))
    return NULL;
  handle = native;
  g_object_unref (native);
  return handle;
}

static AVBufferRef *
ft_wrap (GstAvhwBackend * b, GstContext * context, guint * index,
    GError ** error)
{
  AVBufferRef *ref = NULL;

  n_wraps++;
  *index = 0;
  if (av_hwdevice_ctx_create (&ref, AV_HWDEVICE_TYPE_VULKAN, "0", NULL, 0) < 0)
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_OPEN_FAILED, "vulkan");
  return ref;
}

static gboolean
ft_fill (GstAvhwBackend * b, GstAvhwDevice * device, GstContext * context)
{
  GObject *native = g_object_get_data (G_OBJECT (device), "native");

  if (!native) {
    native = g_object_new (G_TYPE_OBJECT, NULL);
    g_object_set_data_full (G_OBJECT (device), "native", native,
        g_object_unref);
  }
  gst_structure_set (gst_context_writable_structure (context), "native",
      G_TYPE_OBJECT, native, NULL);
  return TRUE;
}

static void
ft_interop_init (GstAvhwForeignInteropInterface * iface)
{
  iface->foreign_context_type = TEST_TYPE;
  iface->foreign_context_get_handle = ft_get_handle;
  iface->wrap_foreign_context = ft_wrap;
  iface->fill_foreign_context = ft_fill;
}

static void
gst_avhw_foreigntest_backend_class_init (GstAvhwForeigntestBackendClass * k)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (k);

  gst_avhw_backend_class_init_contract (k);
  b->name = "foreigntest";
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = "memory:AVHWForeigntest";
  b->get_n_devices = avhw_test_one_device;
  b->get_sw_formats = avhw_test_common_sw_formats;
}

static void
gst_avhw_foreigntest_backend_init (GstAvhwForeigntestBackend * b)
{
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_avhw_backend_register (plugin,
      gst_avhw_foreigntest_backend_get_type ());
}

static GstElement *
run_pipeline (GstContext * ctx)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=I420,width=64,height=48 ! avhwupload name=up "
      "device=foreigntest ! avhwdownload name=down device=foreigntest ! "
      "fakesink", NULL);
  GstMessage *msg;

  if (ctx)
    gst_element_set_context (p, ctx);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  gst_message_unref (msg);
  return p;
}

GST_START_TEST (test_pipeline_uses_foreign_device)
{
  GObject *native = g_object_new (G_TYPE_OBJECT, NULL);
  GstContext *ctx = gst_context_new (TEST_TYPE, TRUE);
  GstElement *p1, *p2;
  GstAvhwDevice *a, *b, *c;

  gst_structure_set (gst_context_writable_structure (ctx), "native",
      G_TYPE_OBJECT, native, NULL);
  n_wraps = 0;
  p1 = run_pipeline (ctx);
  p2 = run_pipeline (ctx);
  a = avhw_test_active_device (p1, "up");
  b = avhw_test_active_device (p1, "down");
  c = avhw_test_active_device (p2, "up");
  fail_unless (a == b && a == c, "one foreign device, one avhw device");
  fail_unless_equals_int (n_wraps, 1);
  gst_object_unref (a);
  gst_object_unref (b);
  gst_object_unref (c);
  gst_element_set_state (p1, GST_STATE_NULL);
  gst_element_set_state (p2, GST_STATE_NULL);
  gst_object_unref (p1);
  gst_object_unref (p2);
  gst_context_unref (ctx);
  g_object_unref (native);
}

GST_END_TEST;

/* An element asked for the foreign type answers with its device's native
 * handle, and a pipeline without one posts it on the bus. */
GST_START_TEST (test_answers_and_posts_foreign_context)
{
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=I420,width=64,height=48 ! avhwupload name=up "
      "device=foreigntest ! fakesink name=sink", NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  GstPad *pad = gst_element_get_static_pad (sink, "sink");
  GstQuery *q = gst_query_new_context (TEST_TYPE);
  GstContext *answer = NULL;
  GstMessage *msg;
  gboolean posted = FALSE;

  gst_avhw_cache_clear ();
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((msg = gst_bus_timed_pop (GST_ELEMENT_BUS (p), 30 * GST_SECOND))) {
    GstMessageType t = GST_MESSAGE_TYPE (msg);
    if (t == GST_MESSAGE_HAVE_CONTEXT) {
      GstContext *c;
      gst_message_parse_have_context (msg, &c);
      posted |= g_str_equal (gst_context_get_context_type (c), TEST_TYPE);
      gst_context_unref (c);
    }
    gst_message_unref (msg);
    if (t == GST_MESSAGE_EOS || t == GST_MESSAGE_ERROR)
      break;
  }
  fail_unless (posted, "no " TEST_TYPE " have-context posted");
  fail_unless (gst_pad_peer_query (pad, q));
  gst_query_parse_context (q, &answer);
  fail_unless (answer != NULL);
  fail_unless (gst_structure_has_field (gst_context_get_structure (answer),
          "native"));
  gst_query_unref (q);
  gst_object_unref (pad);
  gst_object_unref (sink);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
}

GST_END_TEST;

static Suite *
foreign_suite (void)
{
  Suite *s = suite_create ("avhw-foreign");
  TCase *tc = tcase_create ("general");

  avhw_test_require_device ("vulkan");
  gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR,
      "avhwforeigntest", "test backend", plugin_init, VERSION, GST_LICENSE,
      GST_PACKAGE_NAME, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pipeline_uses_foreign_device);
  tcase_add_test (tc, test_answers_and_posts_foreign_context);
  return s;
}

GST_CHECK_MAIN (foreign);
