/* gst-avhw tests: the cuda backend, on machines with and without an NVIDIA
 * GPU. Each test checks the no-device behaviour where the backend reports
 * no device (CI), and the device behaviour where it reports one.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/avhw/gstavhw-impl.h>
#include <ffnvcodec/dynlink_loader.h>
#include <libavutil/hwcontext_cuda.h>

static GstAvhwBackend *
cuda_backend (void)
{
  GList *list = gst_avhw_backend_list (), *l;
  GstAvhwBackend *found = NULL;

  for (l = list; l; l = l->next) {
    if (g_strcmp0 (gst_avhw_backend_get_name (l->data), "cuda") == 0)
      found = gst_object_ref (l->data);
  }
  g_list_free_full (list, gst_object_unref);
  fail_unless (found != NULL, "the cuda backend is not listed; backends: %s",
      gst_avhw_backend_list_names ());
  return found;
}

/* The number of CUDA devices; prints which behaviour the test checks. */
static guint
n_gpus (GstAvhwBackend * backend)
{
  gchar *reason = NULL;
  guint n = gst_avhw_backend_get_n_devices (backend, &reason);

  if (n == 0)
    GST_INFO ("no CUDA device (%s): checking the no-device behaviour", reason);
  else
    GST_INFO ("%u CUDA device(s): checking the device behaviour", n);
  g_free (reason);
  return n;
}

/* The test's own view of the driver, to check what the backend did. */
static CudaFunctions *
driver (void)
{
  static CudaFunctions *cu;

  if (!cu) {
    fail_unless (cuda_load_functions (&cu, NULL) == 0);
    fail_unless (cu->cuInit (0) == CUDA_SUCCESS);
  }
  return cu;
}

static CUcontext
cuda_ctx_of (GstAvhwDevice * device)
{
  AVHWDeviceContext *dctx =
      (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (device)->data;

  return ((AVCUDADeviceContext *) dctx->hwctx)->cuda_ctx;
}

static CUcontext
primary_ctx (CUdevice * dev_out)
{
  CudaFunctions *cu = driver ();
  CUcontext ctx = NULL;

  fail_unless (cu->cuDeviceGet (dev_out, 0) == CUDA_SUCCESS);
  fail_unless (cu->cuDevicePrimaryCtxRetain (&ctx, *dev_out) == CUDA_SUCCESS);
  return ctx;
}

GST_START_TEST (test_listed)
{
  GstAvhwBackend *backend = cuda_backend ();
  gchar *reason = NULL;
  guint n = gst_avhw_backend_get_n_devices (backend, &reason);

  fail_unless_equals_string (gst_avhw_backend_get_caps_feature (backend),
      "memory:AVHWCUDA");
  fail_unless_equals_int (gst_avhw_backend_get_rank (backend),
      GST_RANK_PRIMARY);
  fail_unless (gst_avhw_backend_is_available (backend, NULL),
      "this FFmpeg has no cuda hwcontext");
  if (n == 0) {
    fail_unless (reason != NULL && *reason != '\0');
    GST_INFO ("no device: %s", reason);
  } else {
    gchar *desc = gst_avhw_backend_get_device_description (backend, 0);

    /* The GPU's name, not the "cuda:0" fallback. */
    fail_unless (desc && strcmp (desc, "cuda:0") != 0, "%s", desc);
    GST_INFO ("cuda:0 is %s", desc);
    g_free (desc);
  }
  g_free (reason);
  gst_object_unref (backend);
}

GST_END_TEST;

GST_START_TEST (test_open)
{
  GstAvhwBackend *backend = cuda_backend ();
  GstAvhwDevice *d1, *d2, *d3, *d4;
  GError *err = NULL;
  CUcontext pctx;
  CUdevice dev;

  if (n_gpus (backend) == 0) {
    d1 = gst_avhw_device_open ("cuda:0", NULL, &err);
    fail_unless (d1 == NULL);
    fail_unless (g_error_matches (err, GST_AVHW_ERROR,
            GST_AVHW_ERROR_NO_DEVICE), "%s", err->message);
    fail_unless (strstr (err->message, "cuda") != NULL, "%s", err->message);
    GST_INFO ("as expected: %s", err->message);
    g_clear_error (&err);
    /* The backend's own open says so too, without the core's check. */
    fail_unless (gst_avhw_backend_open_device (backend, 0, NULL, &err) == NULL);
    fail_unless (g_error_matches (err, GST_AVHW_ERROR,
            GST_AVHW_ERROR_NO_DEVICE), "%s", err->message);
    g_clear_error (&err);
    gst_object_unref (backend);
    return;
  }

  d1 = gst_avhw_device_open ("cuda:0", NULL, &err);
  fail_unless (d1 != NULL, "%s", err ? err->message : "");
  d2 = gst_avhw_device_open ("cuda:0", NULL, &err);
  fail_unless (d2 != NULL, "%s", err ? err->message : "");
  fail_unless (gst_avhw_device_get_context_id (d1) ==
      gst_avhw_device_get_context_id (d2));
  /* An uncached open is another FFmpeg context, on the same CUDA context:
   * one CUDA context per GPU per process. */
  d3 = gst_avhw_device_open_uncached ("cuda:0", NULL, &err);
  fail_unless (d3 != NULL, "%s", err ? err->message : "");

  pctx = primary_ctx (&dev);
  fail_unless (cuda_ctx_of (d1) == pctx, "device context %p is not the "
      "primary context %p", cuda_ctx_of (d1), pctx);
  fail_unless (cuda_ctx_of (d3) == pctx);
  fail_unless (driver ()->cuDevicePrimaryCtxRelease (dev) == CUDA_SUCCESS);

  /* A second lane of the device cache (GST_AVHW_DEVICE_LANES) is a CUDA
   * context of its own. */
  gst_avhw_cache_set_lanes (2);
  gst_avhw_device_acquire_session (d1);
  d4 = gst_avhw_device_open ("cuda:0", NULL, &err);
  fail_unless (d4 != NULL, "%s", err ? err->message : "");
  fail_unless (d4 != d1);
  fail_unless (cuda_ctx_of (d4) != NULL && cuda_ctx_of (d4) != pctx,
      "lane 1's CUDA context %p is the primary one", cuda_ctx_of (d4));
  gst_avhw_device_release_session (d1);
  gst_avhw_cache_set_lanes (0);
  gst_object_unref (d4);

  gst_object_unref (d3);
  gst_object_unref (d2);
  gst_object_unref (d1);
  gst_object_unref (backend);
}

GST_END_TEST;

GST_START_TEST (test_wrap)
{
  GstAvhwBackend *backend = cuda_backend ();
  GstAvhwDevice *wrapped;
  GError *err = NULL;
  CUcontext pctx;
  CUdevice dev;

  wrapped = gst_avhw_device_wrap ("cuda", NULL, &err);
  fail_unless (wrapped == NULL);
  fail_unless (g_error_matches (err, GST_AVHW_ERROR,
          GST_AVHW_ERROR_INVALID_ARGUMENT), "%s", err->message);
  g_clear_error (&err);

  if (n_gpus (backend) == 0) {
    wrapped = gst_avhw_device_wrap ("cuda", GINT_TO_POINTER (0x1000), &err);
    fail_unless (wrapped == NULL);
    fail_unless (g_error_matches (err, GST_AVHW_ERROR,
            GST_AVHW_ERROR_NO_DEVICE), "%s", err->message);
    g_clear_error (&err);
    gst_object_unref (backend);
    return;
  }

  pctx = primary_ctx (&dev);
  wrapped = gst_avhw_device_wrap ("cuda", pctx, &err);
  fail_unless (wrapped != NULL, "%s", err ? err->message : "");
  fail_unless (cuda_ctx_of (wrapped) == pctx);
  gst_object_unref (wrapped);
  fail_unless (driver ()->cuDevicePrimaryCtxRelease (dev) == CUDA_SUCCESS);
  gst_object_unref (backend);
}

GST_END_TEST;

#define W 70
#define H 46

static guint8
pattern (int plane, int x, int y)
{
  return (guint8) (plane * 97 + y * 31 + x * 7 + (x * y) / 5);
}

static AVFrame *
sw_frame (gboolean fill)
{
  AVFrame *f = av_frame_alloc ();
  int p, x, y;

  f->format = AV_PIX_FMT_NV12;
  f->width = W;
  f->height = H;
  fail_unless (av_frame_get_buffer (f, 0) == 0);
  for (p = 0; p < 2; p++) {
    for (y = 0; y < (p ? H / 2 : H); y++) {
      for (x = 0; x < W; x++)
        f->data[p][y * f->linesize[p] + x] = fill ? pattern (p, x, y) : 0;
    }
  }
  return f;
}

GST_START_TEST (test_copy)
{
  GstAvhwBackend *backend = cuda_backend ();
  AVFrame *a, *b, *in, *out;
  AVBufferRef *frames;
  AVHWFramesContext *fc;
  GstAvhwDevice *device;
  GError *err = NULL;
  int p, x, y;

  /* Checked before any CUDA call: works with and without a GPU. */
  a = av_frame_alloc ();
  b = av_frame_alloc ();
  fail_if (gst_avhw_backend_copy (backend, b, a, &err));
  fail_unless (g_error_matches (err, GST_AVHW_ERROR,
          GST_AVHW_ERROR_INVALID_ARGUMENT), "%s", err->message);
  fail_unless (strstr (err->message, "not a CUDA frame") != NULL, "%s",
      err->message);
  g_clear_error (&err);
  av_frame_free (&a);
  av_frame_free (&b);

  if (n_gpus (backend) == 0) {
    gst_object_unref (backend);
    return;
  }

  device = gst_avhw_device_open ("cuda:0", NULL, &err);
  fail_unless (device != NULL, "%s", err ? err->message : "");
  frames = av_hwframe_ctx_alloc (gst_avhw_device_get_device_ctx (device));
  fc = (AVHWFramesContext *) frames->data;
  fc->format = AV_PIX_FMT_CUDA;
  fc->sw_format = AV_PIX_FMT_NV12;
  fc->width = W;
  fc->height = H;
  fail_unless (av_hwframe_ctx_init (frames) == 0);
  a = av_frame_alloc ();
  b = av_frame_alloc ();
  fail_unless (av_hwframe_get_buffer (frames, a, 0) == 0);
  fail_unless (av_hwframe_get_buffer (frames, b, 0) == 0);

  in = sw_frame (TRUE);
  out = sw_frame (FALSE);
  fail_unless (gst_avhw_backend_upload (backend, a, in, &err), "%s",
      err ? err->message : "");
  fail_unless (gst_avhw_backend_copy (backend, b, a, &err), "%s",
      err ? err->message : "");
  fail_unless (gst_avhw_backend_download (backend, out, b, &err), "%s",
      err ? err->message : "");
  for (p = 0; p < 2; p++) {
    for (y = 0; y < (p ? H / 2 : H); y++) {
      for (x = 0; x < W; x++) {
        fail_unless_equals_int (out->data[p][y * out->linesize[p] + x],
            pattern (p, x, y));
      }
    }
  }

  av_frame_free (&in);
  av_frame_free (&out);
  av_frame_free (&a);
  av_frame_free (&b);
  av_buffer_unref (&frames);
  gst_object_unref (device);
  gst_object_unref (backend);
}

GST_END_TEST;

static Suite *
cuda_suite (void)
{
  Suite *s = suite_create ("cuda");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_listed);
  tcase_add_test (tc, test_open);
  tcase_add_test (tc, test_wrap);
  tcase_add_test (tc, test_copy);
  return s;
}

GST_CHECK_MAIN (cuda);
