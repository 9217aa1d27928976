/* gst-avhw tests: the cuda backend shares one CUcontext with GStreamer's
 * CUDA elements (gst.cuda.context).
 *
 * Run twice (tests/check/meson.build):
 * - elements/interop-cuda: on every machine. The backend declares the
 *   context type, links gstreamer-cuda-1.0 and still loads without a
 *   driver; contexts without a usable GstCudaContext are refused cleanly,
 *   and a pipeline given one goes on as without it.
 * - elements/interop-cuda-gpu (AVHW_TEST_HW=1): needs an NVIDIA GPU and
 *   nvcodec's cudaupload, else exits 77 saying so. cudaupload ! cudadownload
 *   and avhw elements in one pipeline use one CUcontext, whichever side
 *   makes it, with bit-exact frames.
 *
 * The test links no gstreamer-cuda-1.0 (interop-common.c): GstCudaContexts
 * are borrowed from cudaupload, and gst_cuda_context_get_handle() is looked
 * up in the library the cuda backend and nvcodec loaded.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <ffnvcodec/dynlink_cuda.h>
#include <libavutil/hwcontext_cuda.h>
#include "interop-common.c"

#define CUDA_CONTEXT_TYPE "gst.cuda.context"
#define CAPS "video/x-raw,format=NV12,width=64,height=48,framerate=30/1"
#define SRC "videotestsrc num-buffers=5 pattern=smpte ! " CAPS

/* Also used outside tests, where check's macros cannot run. */
static guint
n_cuda_devices (gchar ** reason)
{
  GstAvhwBackend *b = gst_avhw_backend_find ("cuda", NULL);
  guint n;

  if (!b) {
    *reason = g_strdup ("the cuda backend is not listed");
    return 0;
  }
  n = gst_avhw_backend_get_n_devices (b, reason);
  gst_object_unref (b);
  return n;
}

static CUcontext
cuda_ctx_of (GstAvhwDevice * device)
{
  return ((AVCUDADeviceContext *) interop_device_ctx (device)->hwctx)->cuda_ctx;
}

/* A gst.cuda.context context around @gst_ctx, as gstcudautils.c makes. */
static GstContext *
cuda_context_new (GObject * gst_ctx)
{
  GstContext *ctx = gst_context_new (CUDA_CONTEXT_TYPE, TRUE);

  gst_structure_set (gst_context_writable_structure (ctx), CUDA_CONTEXT_TYPE,
      G_OBJECT_TYPE (gst_ctx), gst_ctx, "cuda-device-id", G_TYPE_UINT, 0, NULL);
  return ctx;
}

/* gst_cuda_context_get_handle() of the already loaded gstreamer-cuda. */
static CUcontext
gst_cuda_handle (GObject * gst_ctx)
{
  static gpointer (*get_handle) (gpointer ctx);

  if (!get_handle) {
    void *lib = dlopen ("libgstcuda-1.0.so.0", RTLD_NOW | RTLD_NOLOAD);

    fail_unless (lib != NULL, "libgstcuda-1.0 is not loaded: %s", dlerror ());
    get_handle = (gpointer (*)(gpointer)) dlsym (lib,
        "gst_cuda_context_get_handle");
    fail_unless (get_handle != NULL);
  }
  return get_handle (gst_ctx);
}

static GObject *
cuda_object (GstContext * ctx)
{
  return interop_context_object (ctx, CUDA_CONTEXT_TYPE);
}

/* --- every machine --- */

GST_START_TEST (test_declared)
{
  GstAvhwBackend *b = gst_avhw_backend_find ("cuda", NULL);

  fail_unless (b != NULL);
  fail_unless_equals_string (gst_avhw_backend_get_foreign_context_type (b),
      CUDA_CONTEXT_TYPE);
  /* Linking gstreamer-cuda-1.0 loaded it, and its type, not CUDA. */
  fail_unless (g_type_from_name ("GstCudaContext") != 0);
  gst_object_unref (b);
}

GST_END_TEST;

GST_START_TEST (test_refuses_contexts_without_cucontext)
{
  GstContext *empty = gst_context_new (CUDA_CONTEXT_TYPE, TRUE), *hollow;
  GObject *no_cuda;
  GError *err = NULL;

  fail_unless (gst_avhw_device_open_foreign (empty, "cuda", &err) == NULL);
  fail_unless (err != NULL);
  GST_INFO ("empty context refused: %s", err->message);
  g_clear_error (&err);

  /* A GstCudaContext that holds no CUcontext (made without CUDA). */
  no_cuda = g_object_new (g_type_from_name ("GstCudaContext"), NULL);
  hollow = cuda_context_new (no_cuda);
  fail_unless (gst_avhw_device_open_foreign (hollow, "cuda", &err) == NULL);
  fail_unless (err != NULL);
  GST_INFO ("hollow context refused: %s", err->message);
  g_clear_error (&err);
  gst_context_unref (hollow);
  gst_context_unref (empty);
  g_object_unref (no_cuda);
}

GST_END_TEST;

/* Such a context on a pipeline changes nothing: without a GPU the usual
 * "no device" error, with one the usual device. */
GST_START_TEST (test_pipeline_ignores_unusable_context)
{
  GObject *no_cuda = g_object_new (g_type_from_name ("GstCudaContext"), NULL);
  GstContext *ctx = cuda_context_new (no_cuda);
  GstElement *p = gst_parse_launch ("videotestsrc num-buffers=1 ! avhwupload "
      "device=cuda ! avhwdownload ! fakesink", NULL);
  gchar *reason = NULL;
  guint n = n_cuda_devices (&reason);
  GstMessage *msg;

  gst_element_set_context (p, ctx);
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL);
  if (n == 0) {
    GError *err = NULL;

    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR);
    gst_message_parse_error (msg, &err, NULL);
    /* the reason in the message itself, where a user reads it */
    fail_unless (strstr (err->message, reason), "%s", err->message);
    g_clear_error (&err);
  } else {
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS);
  }
  gst_message_unref (msg);
  interop_stop (p);
  gst_context_unref (ctx);
  g_object_unref (no_cuda);
  g_free (reason);
  gst_avhw_cache_clear ();
}

GST_END_TEST;

/* --- with an NVIDIA GPU --- */

static gchar *
reference_hash (void)
{
  return interop_run_and_hash (SRC " ! appsink name=sink sync=false", NULL,
      NULL);
}

#define SHARED_PIPELINE SRC " ! cudaupload name=cup ! cudadownload " \
  "name=cdown ! " CAPS " ! avhwupload name=up device=cuda ! avhwdownload " \
  "name=down ! " CAPS " ! appsink name=sink sync=false"

/* avhw elements reach READY first and open cuda:0 on its primary context;
 * cudadownload and cudaupload, starting later, ask their neighbours and get
 * a GstCudaContext around that very CUcontext. */
GST_START_TEST (test_gpu_cuda_elements_use_ours)
{
  gchar *ref = reference_hash (), *out;
  GstAvhwDevice *up;
  GstContext *c1, *c2;
  GstElement *p;

  gst_avhw_cache_clear ();
  out = interop_run_and_hash (SHARED_PIPELINE, NULL, &p);
  fail_unless_equals_string (out, ref);
  up = interop_active_device (p, "up");
  c1 = interop_query_upstream_of (p, "up", CUDA_CONTEXT_TYPE);
  c2 = interop_query_upstream_of (p, "cdown", CUDA_CONTEXT_TYPE);
  fail_unless (c1 && c2, "cudadownload/cudaupload answer no "
      CUDA_CONTEXT_TYPE);
  fail_unless (gst_cuda_handle (cuda_object (c1)) == cuda_ctx_of (up),
      "cudadownload's CUcontext %p is not avhw's %p",
      gst_cuda_handle (cuda_object (c1)), cuda_ctx_of (up));
  fail_unless (cuda_object (c2) == cuda_object (c1));
  gst_context_unref (c1);
  gst_context_unref (c2);
  gst_object_unref (up);
  interop_stop (p);
  g_free (ref);
  g_free (out);
}

GST_END_TEST;

/* GStreamer's CUDA elements made the context (here: a helper pipeline's
 * cudaupload); handed to a pipeline, avhw elements are made on its
 * CUcontext and the CUDA elements there use it too. */
GST_START_TEST (test_gpu_uses_gst_context)
{
  GstElement *helper = interop_start_paused ("videotestsrc num-buffers=1 ! "
      CAPS " ! cudaupload ! fakesink name=sink", NULL), *p;
  GstContext *ctxs[2] = { NULL, NULL }, *asked;
  gchar *ref = reference_hash (), *out;
  GstAvhwDevice *up;
  CUcontext theirs;

  ctxs[0] = interop_query_upstream_of (helper, "sink", CUDA_CONTEXT_TYPE);
  fail_unless (ctxs[0] != NULL, "cudaupload answers no " CUDA_CONTEXT_TYPE);
  theirs = gst_cuda_handle (cuda_object (ctxs[0]));
  gst_avhw_cache_clear ();
  out = interop_run_and_hash (SHARED_PIPELINE, ctxs, &p);
  fail_unless_equals_string (out, ref);
  up = interop_active_device (p, "up");
  fail_unless (cuda_ctx_of (up) == theirs, "avhw's CUcontext %p is not "
      "GStreamer's %p", cuda_ctx_of (up), theirs);
  asked = interop_query_upstream_of (p, "up", CUDA_CONTEXT_TYPE);
  fail_unless (asked && cuda_object (asked) == cuda_object (ctxs[0]));
  gst_context_unref (asked);
  /* avhw answers with GStreamer's own GstCudaContext. */
  asked = interop_query_upstream_of (p, "sink", CUDA_CONTEXT_TYPE);
  fail_unless (asked && cuda_object (asked) == cuda_object (ctxs[0]));
  gst_context_unref (asked);
  gst_object_unref (up);
  interop_stop (p);
  gst_context_unref (ctxs[0]);
  interop_stop (helper);
  g_free (ref);
  g_free (out);
}

GST_END_TEST;

/* GST_MAP_CUDA of gstcudamemory.h (not included: see above). */
#define CUDA_CAPS "video/x-raw(memory:CUDAMemory)"
#define MAP_CUDA (GST_MAP_FLAG_LAST << 1)

/* The device pointer of each CUDAMemory entering avhwupload, in order. */
static GstPadProbeReturn
record_cuda_pointer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMapInfo map;

  if (gst_buffer_n_memory (buf) == 1
      && gst_memory_map (gst_buffer_peek_memory (buf, 0), &map,
          GST_MAP_READ | MAP_CUDA)) {
    g_ptr_array_add (data, map.data);
    gst_memory_unmap (gst_buffer_peek_memory (buf, 0), &map);
  }
  return GST_PAD_PROBE_OK;
}

/* cudaupload ! avhwupload: the avhw frame is made on cudaupload's memory
 * (its planes lie as FFmpeg lays out NV12 frames), no copy; and the
 * frames are bit-exact through avhwdownload. */
GST_START_TEST (test_gpu_upload_takes_cuda_memory)
{
  gchar *ref = reference_hash (), *out;
  GPtrArray *ptrs = g_ptr_array_new ();
  GstElement *p, *up, *sink;
  GstPad *pad;
  GstSample *s;
  guint n = 0, same = 0;

  gst_avhw_cache_clear ();
  out = interop_run_and_hash (SRC " ! cudaupload ! " CUDA_CAPS " ! avhwupload "
      "device=cuda ! avhwdownload ! " CAPS " ! appsink name=sink sync=false",
      NULL, NULL);
  fail_unless_equals_string (out, ref);

  p = gst_parse_launch (SRC " ! cudaupload ! " CUDA_CAPS " ! avhwupload "
      "name=up device=cuda ! appsink name=sink sync=false max-buffers=1", NULL);
  up = gst_bin_get_by_name (GST_BIN (p), "up");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  pad = gst_element_get_static_pad (up, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, record_cuda_pointer,
      ptrs, NULL);
  gst_element_set_state (p, GST_STATE_PLAYING);
  while ((s = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    AVFrame *f = gst_avhw_buffer_peek_frame (gst_sample_get_buffer (s));

    if (f && n < ptrs->len && (gpointer) f->data[0] ==
        g_ptr_array_index (ptrs, n))
      same++;
    n++;
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (pad);
  gst_object_unref (up);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_print ("  cudaupload ! avhwupload: %u of %u frames on cudaupload's "
      "memory\n", same, n);
  fail_unless (n == 5 && same == n, "%u of %u frames taken without a copy",
      same, n);
  g_ptr_array_unref (ptrs);
  g_free (ref);
  g_free (out);
}

GST_END_TEST;

/* One GstCudaContext per avhw device, and it maps back to the device. */
GST_START_TEST (test_gpu_one_wrapper_per_device)
{
  GstElement *p = interop_start_paused ("videotestsrc num-buffers=1 ! " CAPS
      " ! avhwupload name=up device=cuda ! fakesink name=sink", NULL);
  GstContext *a = interop_query_upstream_of (p, "sink", CUDA_CONTEXT_TYPE);
  GstContext *b = interop_query_upstream_of (p, "sink", CUDA_CONTEXT_TYPE);
  GstAvhwDevice *up = interop_active_device (p, "up"), *back;
  GError *err = NULL;

  fail_unless (a && b, "avhwupload answers no " CUDA_CONTEXT_TYPE);
  fail_unless (cuda_object (a) == cuda_object (b));
  fail_unless (gst_cuda_handle (cuda_object (a)) == cuda_ctx_of (up));
  back = gst_avhw_device_open_foreign (a, "cuda", &err);
  fail_unless (back != NULL, "%s", err ? err->message : "");
  fail_unless (interop_device_ctx (back) == interop_device_ctx (up));
  gst_object_unref (back);
  gst_object_unref (up);
  gst_context_unref (a);
  gst_context_unref (b);
  interop_stop (p);
}

GST_END_TEST;

static Suite *
interop_cuda_suite (void)
{
  Suite *s = suite_create ("avhw-interop-cuda");
  TCase *tc = tcase_create ("general");
  gchar *reason = NULL;

  suite_add_tcase (s, tc);
  if (g_getenv ("AVHW_TEST_HW")) {
    GstElementFactory *f;

    if (n_cuda_devices (&reason) == 0) {
      g_print ("SKIP: no CUDA device (%s): the GPU half (one CUcontext "
          "shared with cudaupload/cudadownload) needs an NVIDIA GPU\n", reason);
      exit (77);
    }
    f = gst_element_factory_find ("cudaupload");
    if (!f) {
      g_print ("SKIP: no cudaupload (nvcodec) on GST_PLUGIN_PATH\n");
      exit (77);
    }
    gst_object_unref (f);
    tcase_add_test (tc, test_gpu_cuda_elements_use_ours);
    tcase_add_test (tc, test_gpu_uses_gst_context);
    tcase_add_test (tc, test_gpu_one_wrapper_per_device);
    tcase_add_test (tc, test_gpu_upload_takes_cuda_memory);
    return s;
  }
  tcase_add_test (tc, test_declared);
  tcase_add_test (tc, test_refuses_contexts_without_cucontext);
  tcase_add_test (tc, test_pipeline_ignores_unusable_context);
  return s;
}

GST_CHECK_MAIN (interop_cuda);
