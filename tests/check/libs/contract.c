/* gst-avhw tests: the backend contract suite, run once per backend
 * (AVHW_BACKEND names it); a backend that is absent or has no device here
 * exits 77 naming why.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>

#include "../avhw-test-utils.h"

static const gchar *backend_name;

static GstAvhwDevice *
open_dev (void)
{
  GError *err = NULL;
  GstAvhwDevice *dev = gst_avhw_device_open (backend_name, NULL, &err);

  fail_unless (dev != NULL, "%s", err ? err->message : "");
  return dev;
}

GST_START_TEST (test_declares_contract)
{
  GstAvhwBackend *b = gst_avhw_backend_find (backend_name, NULL);

  fail_unless (b != NULL);
  fail_unless (gst_avhw_backend_is_available (b, NULL));
  fail_unless (gst_avhw_backend_get_hw_device_type (b) !=
      AV_HWDEVICE_TYPE_NONE);
  fail_unless (gst_avhw_backend_get_hw_pix_fmt (b) != AV_PIX_FMT_NONE);
  fail_unless (g_str_has_prefix (gst_avhw_backend_get_caps_feature (b),
          "memory:"));
  fail_unless (gst_avhw_backend_get_description (b) != NULL);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_open_and_cache)
{
  GstAvhwDevice *a = open_dev (), *b = open_dev ();
  AVHWDeviceContext *dc;

  fail_unless (a == b);
  dc = (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (a)->data;
  fail_unless_equals_int (dc->type,
      gst_avhw_backend_get_hw_device_type (gst_avhw_device_get_backend (a)));
  gst_avhw_cache_clear ();
  gst_object_unref (b);
  b = open_dev ();
  fail_unless (gst_avhw_device_get_context_id (a) !=
      gst_avhw_device_get_context_id (b));
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_context_round_trip)
{
  GstAvhwDevice *a = open_dev (), *b = NULL;
  GstContext *ctx = gst_avhw_context_new (a);

  fail_unless (gst_avhw_context_get_device (ctx, &b));
  fail_unless (a == b);
  fail_unless (gst_avhw_device_matches (a, backend_name));
  fail_unless (gst_avhw_device_matches (a, "auto"));
  fail_if (gst_avhw_device_matches (a, "nosuch"));
  gst_context_unref (ctx);
  gst_object_unref (a);
  gst_object_unref (b);
}

GST_END_TEST;

/* Upload known bytes into a frame of the first format the device holds,
 * download them back: identical. */
GST_START_TEST (test_transfer_round_trip)
{
  GstAvhwDevice *dev = open_dev ();
  GstAvhwBackend *b = gst_avhw_device_get_backend (dev);
  GArray *fmts = gst_avhw_device_get_sw_formats (dev);
  enum AVPixelFormat fmt = AV_PIX_FMT_NONE;
  AVBufferRef *frames;
  AVFrame *hw = av_frame_alloc (), *src = av_frame_alloc (),
      *dst = av_frame_alloc ();
  GError *err = NULL;
  guint i;
  int plane, y;

  for (i = 0; i < fmts->len && fmt == AV_PIX_FMT_NONE; i++) {
    if (g_array_index (fmts, gint, i) == AV_PIX_FMT_YUV420P
        || g_array_index (fmts, gint, i) == AV_PIX_FMT_NV12)
      fmt = g_array_index (fmts, gint, i);
  }
  fail_if (fmt == AV_PIX_FMT_NONE, "device holds neither yuv420p nor nv12");
  frames = gst_avhw_device_get_frames_ctx (dev, fmt, 96, 64, 0, &err);
  fail_unless (frames != NULL, "%s", err ? err->message : "");
  /* through the backend's allocation, as every avhw element allocates */
  fail_unless (gst_avhw_backend_frames_get_buffer (gst_avhw_device_get_backend
          (dev), frames, hw) == 0);
  fail_unless (hw->hw_frames_ctx && hw->hw_frames_ctx->data == frames->data);
  src->format = dst->format = fmt;
  src->width = dst->width = 96;
  src->height = dst->height = 64;
  fail_unless (av_frame_get_buffer (src, 0) == 0);
  fail_unless (av_frame_get_buffer (dst, 0) == 0);
  for (plane = 0; plane < 3 && src->data[plane]; plane++)
    for (y = 0; y < (plane ? 32 : 64); y++)
      for (i = 0; i < (guint) src->linesize[plane]; i++)
        src->data[plane][y * src->linesize[plane] + i] =
            (i * 7 + y + plane) & 0xff;
  fail_unless (gst_avhw_backend_upload (b, hw, src, &err), "%s",
      err ? err->message : "");
  fail_unless (gst_avhw_backend_download (b, dst, hw, &err), "%s",
      err ? err->message : "");
  for (plane = 0; plane < 3 && src->data[plane]; plane++) {
    int bytes = plane == 0 || fmt == AV_PIX_FMT_NV12 ? 96 : 48;
    for (y = 0; y < (plane ? 32 : 64); y++)
      fail_unless (memcmp (src->data[plane] + y * src->linesize[plane],
              dst->data[plane] + y * dst->linesize[plane], bytes) == 0,
          "plane %d row %d", plane, y);
  }
  av_frame_free (&hw);
  av_frame_free (&src);
  av_frame_free (&dst);
  av_buffer_unref (&frames);
  g_array_unref (fmts);
  gst_object_unref (dev);
}

GST_END_TEST;

/* Device-to-device copy works (the copy downloads as what was uploaded),
 * or says clearly that it is not supported. */
GST_START_TEST (test_copy_or_clear_error)
{
  GstAvhwDevice *dev = open_dev ();
  GstAvhwBackend *b = gst_avhw_device_get_backend (dev);
  GArray *fmts = gst_avhw_device_get_sw_formats (dev);
  enum AVPixelFormat fmt = g_array_index (fmts, gint, 0);
  AVBufferRef *frames = gst_avhw_device_get_frames_ctx (dev, fmt, 64, 64, 0,
      NULL);
  AVFrame *a = av_frame_alloc (), *c = av_frame_alloc ();
  AVFrame *src = av_frame_alloc (), *dst = av_frame_alloc ();
  GError *err = NULL;
  int plane, y, rows;

  fail_unless (frames != NULL);
  fail_unless (gst_avhw_backend_frames_get_buffer (b, frames, a) == 0);
  fail_unless (gst_avhw_backend_frames_get_buffer (b, frames, c) == 0);
  src->format = dst->format = fmt;
  src->width = dst->width = 64;
  src->height = dst->height = 64;
  fail_unless (av_frame_get_buffer (src, 0) == 0);
  fail_unless (av_frame_get_buffer (dst, 0) == 0);
  for (plane = 0; plane < 4 && src->data[plane]; plane++) {
    rows = plane ? AV_CEIL_RSHIFT (64,
        av_pix_fmt_desc_get (fmt)->log2_chroma_h) : 64;
    for (y = 0; y < rows; y++)
      memset (src->data[plane] + y * src->linesize[plane],
          (0x31 + 17 * plane + 3 * y) & 0xff, src->linesize[plane]);
  }
  fail_unless (gst_avhw_backend_upload (b, a, src, &err), "%s",
      err ? err->message : "");
  if (!gst_avhw_backend_copy (b, c, a, &err)) {
    fail_unless (g_error_matches (err, GST_AVHW_ERROR,
            GST_AVHW_ERROR_NOT_SUPPORTED), "%s", err->message);
    fail_unless (strstr (err->message, backend_name) != NULL);
    g_print ("%s\n", err->message);
    g_clear_error (&err);
  } else {
    fail_unless (gst_avhw_backend_download (b, dst, c, &err), "%s",
        err ? err->message : "");
    for (plane = 0; plane < 4 && src->data[plane]; plane++) {
      rows = plane ? AV_CEIL_RSHIFT (64,
          av_pix_fmt_desc_get (fmt)->log2_chroma_h) : 64;
      for (y = 0; y < rows; y++)
        fail_unless (memcmp (src->data[plane] + y * src->linesize[plane],
                dst->data[plane] + y * dst->linesize[plane],
                av_image_get_linesize (fmt, 64, plane)) == 0,
            "%s: plane %d row %d differs after a copy", backend_name, plane, y);
    }
  }
  av_frame_free (&a);
  av_frame_free (&c);
  av_frame_free (&src);
  av_frame_free (&dst);
  av_buffer_unref (&frames);
  g_array_unref (fmts);
  gst_object_unref (dev);
}

GST_END_TEST;

GST_START_TEST (test_out_of_range_is_clear)
{
  GstAvhwBackend *b = gst_avhw_backend_find (backend_name, NULL);
  gchar *str = g_strdup_printf ("%s:%u", backend_name,
      gst_avhw_backend_get_n_devices (b, NULL));
  GError *err = NULL;

  fail_if (gst_avhw_device_open (str, NULL, &err) != NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR, GST_AVHW_ERROR_NO_DEVICE));
  fail_unless (strstr (err->message, str) != NULL, "%s", err->message);
  g_clear_error (&err);
  g_free (str);
  gst_object_unref (b);
}

GST_END_TEST;

/* The scale contract: a backend that names a scale filter says what it
 * makes from the formats its device holds (real pixel formats, scaling
 * without conversion for at least one) and has its default method; one
 * that names none offers nothing. */
GST_START_TEST (test_scale_contract)
{
  GstAvhwDevice *dev = open_dev ();
  GstAvhwBackend *b = gst_avhw_device_get_backend (dev);
  GArray *held = gst_avhw_device_get_sw_formats (dev);
  const gchar *filter = gst_avhw_backend_get_scale_filter (b);
  guint i, j, scales = 0;

  for (i = 0; i < held->len; i++) {
    gint f = g_array_index (held, gint, i);
    GArray *outs = gst_avhw_backend_get_scale_formats (b,
        gst_avhw_device_get_device_ctx (dev), f);

    if (!filter)
      fail_unless_equals_int (outs->len, 0);
    for (j = 0; j < outs->len; j++) {
      gint o = g_array_index (outs, gint, j);
      fail_unless (av_pix_fmt_desc_get (o) != NULL, "%s makes pixel format "
          "%d from %s", filter, o, av_get_pix_fmt_name (f));
      scales += o == f;
    }
    g_array_unref (outs);
  }
  g_array_unref (held);
  if (filter) {
    fail_unless (scales > 0, "%s scales none of the device's formats", filter);
    fail_unless (gst_avhw_backend_get_scale_method_args (b,
            GST_AVHW_SCALE_METHOD_DEFAULT) != NULL);
  } else {
    fail_unless (gst_avhw_backend_get_scale_method_args (b,
            GST_AVHW_SCALE_METHOD_DEFAULT) == NULL);
  }
  g_print ("  %s: scale filter %s, scales %u of the device's formats\n",
      backend_name, filter ? filter : "(none)", scales);
  gst_object_unref (dev);
}

GST_END_TEST;

/* The converter contract: every converter of the device keeps
 * gst_avhw_converter_caps_check()'s rules (one that broke them converts
 * nothing), a converter of the backend's own comes with a convert, and a
 * backend that names a scale filter has it among the converters. */
GST_START_TEST (test_converter_contract)
{
  GstAvhwDevice *dev = open_dev ();
  GstAvhwBackend *b = gst_avhw_device_get_backend (dev);
  GstAvhwBackendClass *klass = GST_AVHW_BACKEND_GET_CLASS (b);
  GPtrArray *list = gst_avhw_backend_get_converters (b, dev);
  const gchar *filter = gst_avhw_backend_get_scale_filter (b);
  gboolean named = filter == NULL;
  guint i;

  fail_unless (list == gst_avhw_backend_get_converters (b, dev),
      "the converters are asked once per device");
  for (i = 0; i < list->len; i++) {
    const GstAvhwConverterCaps *c = g_ptr_array_index (list, i);
    gchar *why = NULL, *d;

    if (c->n_in_formats == 0)
      continue;
    fail_unless (gst_avhw_converter_caps_check (c, &why), "converter %u: %s",
        i, why);
    if (!c->filter)
      fail_unless (klass->converter_open && klass->convert
          && klass->converter_close, "%s runs on the backend, which lacks "
          "converter_open, convert or converter_close", c->name);
    named |= g_strcmp0 (c->filter, filter) == 0;
    d = gst_avhw_converter_caps_describe (c);
    g_print ("  %s converter %u: %s\n", backend_name, i, d);
    g_free (d);
  }
  fail_unless (named, "scale filter %s is no converter", filter);
  gst_object_unref (dev);
}

GST_END_TEST;

/* The answer the library gives for one codec keeps the rules between its
 * fields (gst_avhw_decoder_caps_check(), the one place they are stated),
 * the convenience calls the elements use say the same, and a no has
 * nothing but its reason. */
static gboolean
check_decoder_answer (GstAvhwBackend * b, guint index, enum AVCodecID id,
    gchar ** what)
{
  GstAvhwDecoderCaps caps, none;
  const gchar *name = avcodec_get_name (id);
  gchar *why = NULL, *reason = NULL, *desc;
  gboolean ok;

  gst_avhw_backend_query_decoder (b, index, id, &caps);
  fail_unless (gst_avhw_decoder_caps_check (&caps, &why), "%s %s: %s",
      backend_name, name, why);
  if (!caps.supported) {
    memset (&none, 0, sizeof (none));
    none.reason = caps.reason;
    fail_unless (memcmp (&caps, &none, sizeof (caps)) == 0, "%s: a no for %s "
        "with more than its reason", backend_name, name);
  }
  ok = gst_avhw_backend_device_decodes (b, index, id, &reason);
  fail_unless_equals_int (ok, caps.supported);
  fail_unless_equals_string (reason, caps.reason);
  g_free (reason);
  fail_unless_equals_int (gst_avhw_backend_get_decode_engines (b, index, id),
      caps.engines);
  fail_unless_equals_int (gst_avhw_backend_get_decode_slots (b, index, id),
      caps.slots);
  reason = NULL;
  fail_unless_equals_int (gst_avhw_backend_decodes_field_coded (b, index, id,
          &reason), caps.field_coded);
  fail_unless_equals_string (reason, caps.supported ? caps.field_coded_reason
      : caps.reason);
  g_free (reason);
  reason = NULL;
  fail_unless_equals_int (gst_avhw_backend_get_decode_frame_threads (b, index,
          id, &reason), caps.max_frame_threads);
  fail_unless_equals_string (reason, caps.frame_threads_reason);
  g_free (reason);
  desc = gst_avhw_backend_get_decode_description (b, index, id);
  *what = gst_avhw_decoder_caps_describe (&caps);
  fail_unless_equals_string (desc, *what);
  fail_unless (ok || desc == NULL, "%s: a no for %s with a description",
      backend_name, name);
  g_free (desc);
  if (!ok)
    *what = g_steal_pointer (&caps.reason);
  gst_avhw_decoder_caps_clear (&caps);
  return ok;
}

/* The same for encoding: a yes only where FFmpeg has an encoder. */
static void
check_encoder_answer (GstAvhwBackend * b, guint index, enum AVCodecID id)
{
  GstAvhwEncoderCaps caps;
  GPtrArray *encs = gst_avhw_backend_get_encoders (b, id);
  gchar *why = NULL, *reason = NULL;

  gst_avhw_backend_query_encoder (b, index, id, &caps);
  fail_unless (gst_avhw_encoder_caps_check (&caps, &why), "%s %s encoding: "
      "%s", backend_name, avcodec_get_name (id), why);
  fail_unless (!caps.supported || encs->len > 0, "%s: encodes %s with no "
      "FFmpeg encoder", backend_name, avcodec_get_name (id));
  fail_unless_equals_int (gst_avhw_backend_device_encodes (b, index, id,
          &reason), caps.supported);
  fail_unless_equals_string (reason, caps.reason);
  g_free (reason);
  g_ptr_array_unref (encs);
  gst_avhw_encoder_caps_clear (&caps);
}

/* The backend's own answers keep the rules too: asked directly, as the
 * library asks, so they are exercised even where this FFmpeg has no
 * hardware decoder for the device type (the library then says no before
 * asking). */
static void
check_own_answers (GstAvhwBackend * b, guint index, enum AVCodecID id,
    gboolean print)
{
  GstAvhwBackendClass *klass = GST_AVHW_BACKEND_GET_CLASS (b);
  gchar *why = NULL;

  if (klass->query_decoder) {
    GstAvhwDecoderCaps caps;

    gst_avhw_decoder_caps_init (&caps);
    klass->query_decoder (b, index, id, &caps);
    fail_unless (gst_avhw_decoder_caps_check (&caps, &why), "%s's own "
        "answer for %s: %s", backend_name, avcodec_get_name (id), why);
    if (print && !caps.supported)
      g_print ("    (own answer: %s)\n", caps.reason);
    gst_avhw_decoder_caps_clear (&caps);
  }
  if (klass->query_encoder) {
    GstAvhwEncoderCaps caps;

    gst_avhw_encoder_caps_init (&caps);
    klass->query_encoder (b, index, id, &caps);
    fail_unless (gst_avhw_encoder_caps_check (&caps, &why), "%s's own encoder "
        "answer for %s: %s", backend_name, avcodec_get_name (id), why);
    gst_avhw_encoder_caps_clear (&caps);
  }
}

/* Every codec gets an answer that keeps the rules, and cheaply: the
 * backend asks its driver once per device, not at every call. */
GST_START_TEST (test_decode_answers)
{
  GstAvhwDevice *dev = open_dev ();
  GstAvhwBackend *b = gst_avhw_device_get_backend (dev);
  guint index = gst_avhw_device_get_index (dev), n, i, round, yes = 0;
  const enum AVCodecID *ids = gst_avhw_codec_list (&n);
  gint64 t[3];

  for (round = 0; round < 2; round++) {
    t[round] = g_get_monotonic_time ();
    for (i = 0; i < n; i++) {
      gchar *what = NULL;
      gboolean ok = check_decoder_answer (b, index, ids[i], &what);

      check_encoder_answer (b, index, ids[i]);
      if (round == 0)
        g_print ("  %s:%u %s: %s\n", backend_name, index,
            avcodec_get_name (ids[i]), what ? what : "yes");
      check_own_answers (b, index, ids[i], round == 0);
      yes += ok;
      g_free (what);
    }
  }
  t[2] = g_get_monotonic_time ();
  /* the second round asks nothing of the driver */
  fail_unless (t[2] - t[1] < 100 * G_TIME_SPAN_MILLISECOND,
      "%s: asking again took %" G_GINT64_FORMAT " ms", backend_name,
      (t[2] - t[1]) / 1000);
  g_print ("  %s: decodes %u of %u codecs in hardware (again: %" G_GINT64_FORMAT
      " us)\n", backend_name, yes / 2, n, t[2] - t[1]);
  gst_object_unref (dev);
}

GST_END_TEST;

/* Interop with GStreamer's own device types lives in the optional
 * GstAvhwForeignInterop interface only: without it the backend offers
 * none; with it, a context type comes with its handle and wrap vfuncs and
 * a memory feature with a way in or out, and the library's answers are
 * the interface's. */
GST_START_TEST (test_foreign_interop)
{
  GstAvhwDevice *dev = open_dev ();
  GstAvhwBackend *b = gst_avhw_device_get_backend (dev);
  GstAvhwForeignInteropInterface *iface =
      gst_avhw_backend_get_foreign_interop (b);

  fail_unless_equals_int (iface != NULL, GST_IS_AVHW_FOREIGN_INTEROP (b));
  if (!iface) {
    fail_unless (gst_avhw_backend_get_foreign_context_type (b) == NULL);
    fail_unless (gst_avhw_backend_get_foreign_memory_feature (b) == NULL);
    fail_unless (gst_avhw_backend_get_foreign_input_feature (b) == NULL);
    fail_if (gst_avhw_backend_device_imports_foreign (b, dev));
    fail_if (gst_avhw_backend_device_exports_foreign (b, dev,
            AV_PIX_FMT_NV12, NULL));
    g_print ("  %s: no GstAvhwForeignInterop\n", backend_name);
    gst_object_unref (dev);
    return;
  }
  fail_unless_equals_string (gst_avhw_backend_get_foreign_context_type (b),
      iface->foreign_context_type);
  fail_unless (!iface->foreign_context_type
      || (iface->foreign_context_get_handle && iface->wrap_foreign_context));
  fail_unless (iface->foreign_context_type || iface->foreign_memory_feature,
      "%s: GstAvhwForeignInterop with neither a context type nor a memory "
      "feature", backend_name);
  fail_unless (!iface->foreign_memory_feature
      || g_str_has_prefix (iface->foreign_memory_feature, "memory:"));
  fail_unless (!iface->foreign_memory_feature || iface->export_foreign_buffer
      || iface->import_foreign_buffer, "%s: a foreign memory feature with no "
      "way in or out", backend_name);
  fail_unless_equals_string (gst_avhw_backend_get_foreign_memory_feature (b),
      iface->export_foreign_buffer ? iface->foreign_memory_feature : NULL);
  fail_unless_equals_string (gst_avhw_backend_get_foreign_input_feature (b),
      iface->import_foreign_buffer ? iface->foreign_memory_feature : NULL);
  g_print ("  %s: GstAvhwForeignInterop: context %s, memory %s\n",
      backend_name, iface->foreign_context_type ?
      iface->foreign_context_type : "(none)", iface->foreign_memory_feature ?
      iface->foreign_memory_feature : "(none)");
  gst_object_unref (dev);
}

GST_END_TEST;

static Suite *
contract_suite (void)
{
  Suite *s = suite_create ("avhw-contract");
  TCase *tc = tcase_create ("general");
  GstAvhwBackend *b;
  GError *err = NULL;
  gchar *reason = NULL;

  backend_name = g_getenv ("AVHW_BACKEND");
  if (!backend_name)
    backend_name = "vulkan";
  b = gst_avhw_backend_find (backend_name, &err);
  if (!b) {
    g_print ("SKIP: backend %s: %s\n", backend_name, err->message);
    exit (77);
  }
  if (gst_avhw_backend_get_n_devices (b, &reason) == 0) {
    g_print ("SKIP: backend %s has no device here: %s\n", backend_name, reason);
    exit (77);
  }
  gst_object_unref (b);
  g_print ("contract suite on backend %s\n", backend_name);

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_declares_contract);
  tcase_add_test (tc, test_open_and_cache);
  tcase_add_test (tc, test_context_round_trip);
  tcase_add_test (tc, test_transfer_round_trip);
  tcase_add_test (tc, test_copy_or_clear_error);
  tcase_add_test (tc, test_out_of_range_is_clear);
  tcase_add_test (tc, test_scale_contract);
  tcase_add_test (tc, test_converter_contract);
  tcase_add_test (tc, test_decode_answers);
  tcase_add_test (tc, test_foreign_interop);
  return s;
}

GST_CHECK_MAIN (contract);
