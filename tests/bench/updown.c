/* gst-avhw benchmark: upload and download throughput per device
 *
 *   avhw-bench-updown [-n ITERATIONS] [-d DEVICE]...
 *
 * For every device present (or each -d), NV12 frames of 1920x1080 and
 * 3840x2160 go system -> device and device -> system through the backend's
 * transfer (what avhwupload and avhwdownload do per frame), N times each
 * after 3 warm-ups, synchronously. On cuda devices the same copies are
 * also timed with the driver directly (cuMemcpy from pinned memory, and
 * avhw's upload from pinned memory), as the ceiling. Prints a Markdown
 * table; a benchmark, not a test.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/avhw/gstavhw-impl.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#ifdef HAVE_FFNVCODEC
#include <dlfcn.h>
#include <ffnvcodec/dynlink_loader.h>
#include <libavutil/hwcontext_cuda.h>

/* Pinned host memory: not in ffnvcodec's table, taken from the driver. */
typedef CUresult (*AllocHostFn) (void **p, size_t bytes);
typedef CUresult (*FreeHostFn) (void *p);
#endif

static gint iterations = 50;

static gdouble
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* GB/s of @n transfers of @bytes taking @secs */
static gdouble
gbps (gsize bytes, gint n, gdouble secs)
{
  return secs > 0 ? (gdouble) bytes *n / secs / 1e9 : 0;
}

typedef struct
{
  gdouble up, down, pinned_up, cu_htod, cu_dtoh;
} Result;

static gboolean
time_transfers (GstAvhwDevice * dev, gint w, gint h, AVFrame * sw, Result * r)
{
  GstAvhwBackend *b = gst_avhw_device_get_backend (dev);
  AVBufferRef *frames;
  AVFrame *hw = av_frame_alloc ();
  GError *err = NULL;
  gsize bytes = (gsize) w * h * 3 / 2;  /* NV12 and I420 alike */
  gdouble t0;
  gint i, ret = 0;

  frames = gst_avhw_device_get_frames_ctx (dev, sw->format, w, h, 0, &err);
  if (!frames || (ret = av_hwframe_get_buffer (frames, hw, 0)) < 0) {
    char e[AV_ERROR_MAX_STRING_SIZE] = "";

    if (!err)
      av_make_error_string (e, sizeof (e), ret);
    g_printerr ("%s %dx%d: %s\n", gst_avhw_device_get_name (dev), w, h,
        err ? err->message : e);
    g_clear_error (&err);
    av_frame_free (&hw);
    av_buffer_unref (&frames);
    return FALSE;
  }
  for (i = 0; i < 3; i++) {
    gst_avhw_backend_upload (b, hw, sw, NULL);
    gst_avhw_backend_download (b, sw, hw, NULL);
  }
  t0 = now_s ();
  for (i = 0; i < iterations; i++)
    if (!gst_avhw_backend_upload (b, hw, sw, &err))
      break;
  r->up = gbps (bytes, i, now_s () - t0);
  t0 = now_s ();
  for (i = 0; i < iterations; i++)
    if (!gst_avhw_backend_download (b, sw, hw, &err))
      break;
  r->down = gbps (bytes, i, now_s () - t0);
  if (err) {
    g_printerr ("%s: %s\n", gst_avhw_device_get_name (dev), err->message);
    g_clear_error (&err);
  }
  av_frame_free (&hw);
  av_buffer_unref (&frames);
  return TRUE;
}

#ifdef HAVE_FFNVCODEC
/* The driver's own copies from and to pinned host memory, and avhw's upload
 * from pinned memory, on the device's context. */
static void
time_cuda (GstAvhwDevice * dev, gint w, gint h, Result * r)
{
  AVHWDeviceContext *dctx =
      (AVHWDeviceContext *) gst_avhw_device_get_device_ctx (dev)->data;
  AVCUDADeviceContext *hwctx = dctx->hwctx;
  CudaFunctions *cu = NULL;
  gsize bytes = (gsize) w * h * 3 / 2;
  CUcontext dummy;
  CUdeviceptr d = 0;
  void *pinned = NULL;
  AVFrame *sw;
  Result tmp;
  gdouble t0;
  gint i;

  void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  AllocHostFn alloc_host = lib ? (AllocHostFn) dlsym (lib,
      "cuMemAllocHost_v2") : NULL;
  FreeHostFn free_host = lib ? (FreeHostFn) dlsym (lib, "cuMemFreeHost") : NULL;

  if (!alloc_host || !free_host || cuda_load_functions (&cu, NULL) < 0) {
    if (lib)
      dlclose (lib);
    return;
  }
  if (cu->cuCtxPushCurrent (hwctx->cuda_ctx) != CUDA_SUCCESS)
    goto out;
  if (alloc_host (&pinned, bytes) != CUDA_SUCCESS
      || cu->cuMemAlloc (&d, bytes) != CUDA_SUCCESS)
    goto pop;
  for (i = 0; i < 3; i++)
    cu->cuMemcpyHtoD (d, pinned, bytes);
  t0 = now_s ();
  for (i = 0; i < iterations; i++)
    cu->cuMemcpyHtoD (d, pinned, bytes);
  cu->cuStreamSynchronize (NULL);
  r->cu_htod = gbps (bytes, iterations, now_s () - t0);
  t0 = now_s ();
  for (i = 0; i < iterations; i++)
    cu->cuMemcpyDtoH (pinned, d, bytes);
  cu->cuStreamSynchronize (NULL);
  r->cu_dtoh = gbps (bytes, iterations, now_s () - t0);
  cu->cuCtxPopCurrent (&dummy);

  /* avhw's upload with the source in pinned memory */
  sw = av_frame_alloc ();
  sw->format = AV_PIX_FMT_NV12;
  sw->width = w;
  sw->height = h;
  av_image_fill_arrays (sw->data, sw->linesize, pinned, AV_PIX_FMT_NV12, w, h,
      1);
  if (time_transfers (dev, w, h, sw, &tmp))
    r->pinned_up = tmp.up;
  av_frame_free (&sw);
  cu->cuCtxPushCurrent (hwctx->cuda_ctx);
pop:
  if (d)
    cu->cuMemFree (d);
  if (pinned)
    free_host (pinned);
  cu->cuCtxPopCurrent (&dummy);
out:
  cuda_free_functions (&cu);
  dlclose (lib);
}
#endif

static void
run_device (const gchar * devstr)
{
  static const gint sizes[][2] = { {1920, 1080}, {3840, 2160} };
  GError *err = NULL;
  GstAvhwDevice *dev = gst_avhw_device_open (devstr, NULL, &err);
  enum AVPixelFormat fmt = AV_PIX_FMT_YUV420P;
  GArray *fmts;
  guint s;

  if (!dev) {
    g_printerr ("%s: %s\n", devstr, err->message);
    g_clear_error (&err);
    return;
  }
  fmts = gst_avhw_device_get_sw_formats (dev);

  /* NV12 where the device holds it (decoders' format), else I420 */
  for (s = 0; s < fmts->len; s++)
    if (g_array_index (fmts, gint, s) == AV_PIX_FMT_NV12)
      fmt = AV_PIX_FMT_NV12;
  g_array_unref (fmts);
  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    gint w = sizes[s][0], h = sizes[s][1], p;
    AVFrame *sw = av_frame_alloc ();
    Result r = { 0, };

    sw->format = fmt;
    sw->width = w;
    sw->height = h;
    av_frame_get_buffer (sw, 64);
    for (p = 0; p < 3 && sw->data[p]; p++)
      memset (sw->data[p], 0x40 + p, sw->linesize[p] * (p ? h / 2 : h));
    if (time_transfers (gst_object_ref (dev), w, h, sw, &r)) {
#ifdef HAVE_FFNVCODEC
      if (g_str_equal (gst_avhw_backend_get_name (gst_avhw_device_get_backend
                  (dev)), "cuda"))
        time_cuda (dev, w, h, &r);
#endif
      printf ("| %s | %dx%d %s | %.2f | %.2f | %s | %s | %s |\n",
          gst_avhw_device_get_name (dev), w, h, av_get_pix_fmt_name (fmt),
          r.up, r.down,
          r.pinned_up ? g_strdup_printf ("%.2f", r.pinned_up) : "-",
          r.cu_htod ? g_strdup_printf ("%.2f", r.cu_htod) : "-",
          r.cu_dtoh ? g_strdup_printf ("%.2f", r.cu_dtoh) : "-");
      printf ("RESULT device=%s size=%dx%d up_gbps=%.3f down_gbps=%.3f "
          "pinned_up_gbps=%.3f cu_htod_gbps=%.3f cu_dtoh_gbps=%.3f\n",
          gst_avhw_device_get_name (dev), w, h, r.up, r.down, r.pinned_up,
          r.cu_htod, r.cu_dtoh);
      fflush (stdout);
    }
    gst_object_unref (dev);
    av_frame_free (&sw);
  }
  gst_object_unref (dev);
}

int
main (int argc, char **argv)
{
  gchar **devices = NULL;
  GOptionEntry entries[] = {
    {"iterations", 'n', 0, G_OPTION_ARG_INT, &iterations,
        "Transfers timed per direction (50)", "N"},
    {"device", 'd', 0, G_OPTION_ARG_STRING_ARRAY, &devices,
          "Device to measure (repeatable; default: every device present)",
        "DEV"},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- upload/download GB/s");
  GError *err = NULL;
  guint i;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);
  printf ("| device | frame | avhw upload GB/s | avhw download GB/s | "
      "avhw upload from pinned GB/s | cuMemcpyHtoD pinned GB/s | "
      "cuMemcpyDtoH pinned GB/s |\n| --- | --- | ---: | ---: | ---: | ---: | "
      "---: |\n");
  if (devices) {
    for (i = 0; devices[i]; i++)
      run_device (devices[i]);
  } else {
    GList *list = gst_avhw_backend_list (), *l;
    for (l = list; l; l = l->next) {
      guint d, n = gst_avhw_backend_get_n_devices (l->data, NULL);
      for (d = 0; d < n; d++) {
        gchar *s = g_strdup_printf ("%s:%u", gst_avhw_backend_get_name
            (l->data), d);
        run_device (s);
        g_free (s);
      }
    }
    g_list_free_full (list, gst_object_unref);
  }
  g_strfreev (devices);
  return 0;
}
