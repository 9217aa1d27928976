/* gst-avhw tests: which formats a device's frames hold, asked one format
 * at a time: each format is tried (a frames context and a frame) once, and
 * only when something asks about it
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../avhw-test-utils.h"
#include "gstavhwcapsutils.h"

/* A backend on FFmpeg's vulkan device (lavapipe here) that lists NV12,
 * YUV420P (I420) and a format without a GStreamer equivalent, refuses
 * frames of YUV420P as NVIDIA's Vulkan driver refuses some formats it
 * lists, and counts every frame asked of it by format. */
typedef struct
{
  GstAvhwBackend parent;
} GstAvhwFormatsBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwFormatsBackendClass;
static GType gst_avhw_formats_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwFormatsBackend, gst_avhw_formats_backend,
    GST_TYPE_AVHW_BACKEND);

static gint tries_nv12, tries_yuv420p, tries_other;

static GArray *
formats_sw_formats (GstAvhwBackend * b, AVBufferRef * device_ctx)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gint));
  gint f[] = { AV_PIX_FMT_NV12, AV_PIX_FMT_YUV420P, AV_PIX_FMT_XYZ12LE };

  g_array_append_vals (a, f, G_N_ELEMENTS (f));
  return a;
}

static int
formats_get_buffer (GstAvhwBackend * b, AVBufferRef * frames_ctx,
    AVFrame * frame)
{
  enum AVPixelFormat f = ((AVHWFramesContext *) frames_ctx->data)->sw_format;

  if (f == AV_PIX_FMT_NV12)
    g_atomic_int_inc (&tries_nv12);
  else if (f == AV_PIX_FMT_YUV420P)
    g_atomic_int_inc (&tries_yuv420p);
  else
    g_atomic_int_inc (&tries_other);
  if (f == AV_PIX_FMT_YUV420P)
    return AVERROR (ENOSYS);
  return av_hwframe_get_buffer (frames_ctx, frame, 0);
}

static void
gst_avhw_formats_backend_class_init (GstAvhwFormatsBackendClass * k)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (k);

  gst_avhw_backend_class_init_contract (k);
  b->name = "formats";
  b->hw_device_type = "vulkan";
  b->hw_pix_fmt = "vulkan";
  b->caps_feature = "memory:AVHWFormats";
  b->get_n_devices = avhw_test_one_device;
  b->get_decoders = avhw_test_no_codecs;
  b->get_encoders = avhw_test_no_codecs;
  b->get_sw_formats = formats_sw_formats;
  b->frames_get_buffer = formats_get_buffer;
}

static void
gst_avhw_formats_backend_init (GstAvhwFormatsBackend * b)
{
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_avhw_backend_register (plugin,
      gst_avhw_formats_backend_get_type ());
}

/* A device of its own (not the cache's), so nothing was asked of it yet,
 * and the counts from zero. */
static GstAvhwDevice *
fresh_device (void)
{
  GError *err = NULL;
  GstAvhwDevice *dev = gst_avhw_device_open_uncached ("formats:0", NULL,
      &err);

  fail_unless (dev != NULL, "%s", err ? err->message : "");
  g_atomic_int_set (&tries_nv12, 0);
  g_atomic_int_set (&tries_yuv420p, 0);
  g_atomic_int_set (&tries_other, 0);
  return dev;
}

GST_START_TEST (test_one_format_one_try)
{
  GstAvhwDevice *dev = fresh_device ();
  GArray *fmts;

  fail_unless (gst_avhw_device_holds_sw_format (dev, AV_PIX_FMT_NV12));
  fail_unless_equals_int (tries_nv12, 1);
  fail_unless_equals_int (tries_yuv420p, 0);
  /* asked again: the answer is kept */
  fail_unless (gst_avhw_device_holds_sw_format (dev, AV_PIX_FMT_NV12));
  fail_unless_equals_int (tries_nv12, 1);
  /* not listed, or without a GStreamer equivalent: no, without a try */
  fail_if (gst_avhw_device_holds_sw_format (dev, AV_PIX_FMT_RGBA));
  fail_if (gst_avhw_device_holds_sw_format (dev, AV_PIX_FMT_XYZ12LE));
  fail_unless_equals_int (tries_other, 0);
  /* listed but refused */
  fail_if (gst_avhw_device_holds_sw_format (dev, AV_PIX_FMT_YUV420P));
  fail_unless_equals_int (tries_yuv420p, 1);

  /* the whole list tries nothing twice */
  fmts = gst_avhw_device_get_sw_formats (dev);
  fail_unless_equals_int (fmts->len, 1);
  fail_unless_equals_int (g_array_index (fmts, gint, 0), AV_PIX_FMT_NV12);
  fail_unless_equals_int (tries_nv12, 1);
  fail_unless_equals_int (tries_yuv420p, 1);
  g_array_unref (fmts);
  gst_object_unref (dev);
}

GST_END_TEST;

/* The whole list first: every listed format tried once, then the answers
 * one by one from it. */
GST_START_TEST (test_whole_list_then_one)
{
  GstAvhwDevice *dev = fresh_device ();
  GArray *fmts = gst_avhw_device_get_sw_formats (dev);

  fail_unless_equals_int (fmts->len, 1);
  fail_unless_equals_int (tries_nv12, 1);
  fail_unless_equals_int (tries_yuv420p, 1);
  fail_unless_equals_int (tries_other, 0);
  fail_unless (gst_avhw_device_holds_sw_format (dev, AV_PIX_FMT_NV12));
  fail_if (gst_avhw_device_holds_sw_format (dev, AV_PIX_FMT_YUV420P));
  fail_unless_equals_int (tries_nv12 + tries_yuv420p, 2);
  g_array_unref (fmts);
  gst_object_unref (dev);
}

GST_END_TEST;

/* Caps moved to the device's memory keep the formats it holds, asking
 * about the caps' formats alone; caps naming no format get the device's
 * whole list. */
GST_START_TEST (test_switch_memory_asks_only_named_formats)
{
  GstAvhwDevice *dev = fresh_device ();
  GstCaps *in = gst_caps_from_string ("video/x-raw, format=(string)NV12, "
      "width=(int)64, height=(int)48; video/x-raw, format=(string){ BGRx, "
      "NV12, RGBA }");
  GstCaps *out, *want;

  out = gst_avhw_caps_switch_memory (dev, in, TRUE, TRUE);
  want = gst_caps_from_string ("video/x-raw(memory:AVHWFormats), "
      "format=(string)NV12, width=(int)64, height=(int)48; "
      "video/x-raw(memory:AVHWFormats), format=(string)NV12");
  fail_unless (gst_caps_is_equal (out, want), "got %" GST_PTR_FORMAT, out);
  fail_unless_equals_int (tries_nv12, 1);
  fail_unless_equals_int (tries_yuv420p, 0);
  gst_caps_unref (out);
  gst_caps_unref (want);
  gst_caps_unref (in);

  /* I420 is refused: the structure naming only it goes */
  in = gst_caps_from_string ("video/x-raw, format=(string)I420");
  out = gst_avhw_caps_switch_memory (dev, in, TRUE, TRUE);
  fail_unless (gst_caps_is_empty (out), "got %" GST_PTR_FORMAT, out);
  fail_unless_equals_int (tries_yuv420p, 1);
  gst_caps_unref (out);
  gst_caps_unref (in);

  /* no format named: the whole list (NV12 alone here) */
  in = gst_caps_from_string ("video/x-raw, width=(int)64");
  out = gst_avhw_caps_switch_memory (dev, in, TRUE, TRUE);
  want = gst_caps_from_string ("video/x-raw(memory:AVHWFormats), "
      "format=(string)NV12, width=(int)64");
  fail_unless (!gst_caps_is_empty (out) && gst_caps_is_subset (out, want),
      "got %" GST_PTR_FORMAT, out);
  gst_caps_unref (want);
  gst_caps_unref (out);
  gst_caps_unref (in);
  gst_object_unref (dev);
}

GST_END_TEST;

static Suite *
devformats_suite (void)
{
  Suite *s = suite_create ("avhw-devformats");
  TCase *tc = tcase_create ("general");

  /* the test backend's device is an FFmpeg vulkan device */
  avhw_test_require_device ("vulkan");
  if (!gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR,
          "avhwformatstest", "test backend", plugin_init, VERSION,
          GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_NAME,
          GST_PACKAGE_ORIGIN)) {
    g_print ("could not register the test backend\n");
    exit (1);
  }
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_one_format_one_try);
  tcase_add_test (tc, test_whole_list_then_one);
  tcase_add_test (tc, test_switch_memory_asks_only_named_formats);
  return s;
}

GST_CHECK_MAIN (devformats);
