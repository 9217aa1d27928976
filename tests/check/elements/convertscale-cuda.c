/* gst-avhw tests: avhwconvertscale with the CUDA backend's own converter
 * (cuda-convert, the convert-and-scale kernel) against videoconvertscale
 *
 * videotestsrc (odd sizes too) ! avhwupload device=cuda ! avhwconvertscale
 * ! video/x-raw(memory:AVHWCUDA),format=RGBP|RGBA|BGRx...,224x224 (and
 * letterboxed) ! avhwdownload, and the same caps through
 * videoconvertscale with the matching method (bilinear: its 2-tap
 * bilinear; area: its multi-tap bilinear2, the antialiased one): the
 * negotiated caps equal, active-converter cuda-convert, each frame at
 * least 35 dB PSNR per colour component, the borders of a letterbox on
 * the same rows and columns as videoconvertscale's, exactly black.
 *
 * Runs wherever a CUDA device is: an NVIDIA GPU, or (elements/
 * convertscale-cuda-emulated) the CPU stand-in for libcuda in
 * tests/check/cuda-emulation, where FFmpeg's hwcontext_cuda allocates and
 * copies host memory and the kernel's source runs on the CPU. Exits 77
 * naming what is missing (no CUDA device, no videoconvertscale, a backend
 * built without its kernels).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../avhw-test-utils.h"
#include "convertscale-common.h"

#define N_FRAMES 3
/* A smooth ramp between two colours (top to bottom), so that two
 * different filters of one kind agree above 35 dB, while a wrong plane,
 * chroma plane, offset or size gives far less (a hard-edged pattern sets
 * the filters apart instead: smpte bars give 31 to 34 dB between two
 * correct bilinears). */
#define PATTERN "pattern=gradient foreground-color=0xffe08010 " \
  "background-color=0xff1040d0"
#define MIN_PSNR 35.0

/* Whether the CUDA device's frames hold @format (FFmpeg 5.1's hold RGBx
 * and BGRx but not RGBA and BGRA; none holds 24-bit RGB). */
static gboolean
device_holds (const gchar * format)
{
  GstAvhwDevice *dev = gst_avhw_device_open ("cuda", NULL, NULL);
  GArray *held = gst_avhw_device_get_sw_formats (dev);
  enum AVPixelFormat f = gst_avhw_format_to_av (gst_video_format_from_string
      (format));
  gboolean ok = FALSE;
  guint i;

  for (i = 0; i < held->len; i++)
    ok |= g_array_index (held, gint, i) == (gint) f;
  g_array_unref (held);
  gst_object_unref (dev);
  if (!ok)
    g_print ("  %s left out: this FFmpeg's CUDA frames do not hold it\n",
        format);
  return ok;
}

/* The device's result and videoconvertscale's for one conversion. */
static void
compare (const gchar * in_caps, const gchar * method, const gchar * props,
    const gchar * out)
{
  const gchar *cpu_method = g_str_equal (method, "area") ? "bilinear2" : method;
  gchar *dd = g_strdup_printf ("videotestsrc num-buffers=%d " PATTERN " ! %s "
      "! avhwupload device=cuda ! avhwconvertscale name=c method=%s %s ! "
      "video/x-raw(memory:AVHWCUDA),%s ! avhwdownload ! appsink name=s "
      "sync=false", N_FRAMES, in_caps, method, props, out);
  gchar *cd = g_strdup_printf ("videotestsrc num-buffers=%d " PATTERN " ! %s "
      "! videoconvertscale method=%s %s ! video/x-raw,%s ! appsink name=s "
      "sync=false", N_FRAMES, in_caps, cpu_method, props, out);
  GstElement *p;
  Result dev, cpu;
  GstVideoInfo info;
  gdouble lowest = 100.0;
  guint i;

  run (dd, &dev);
  run (cd, &cpu);
  fail_unless (dev.error == NULL, "%s: %s", dd, dev.error);
  fail_unless (cpu.error == NULL, "%s: %s", cd, cpu.error);
  fail_unless_equals_int (dev.buffers->len, N_FRAMES);
  fail_unless_equals_int (cpu.buffers->len, N_FRAMES);
  if (!same_geometry (dev.caps, cpu.caps)) {
    gchar *a = gst_caps_to_string (dev.caps), *b = gst_caps_to_string
        (cpu.caps);
    fail ("%s: device %s but videoconvertscale %s", out, a, b);
  }
  fail_unless (gst_video_info_from_caps (&info, dev.caps));
  for (i = 0; i < N_FRAMES; i++)
    lowest = MIN (lowest, psnr (&info, g_ptr_array_index (dev.buffers, i),
            g_ptr_array_index (cpu.buffers, i)));
  g_print ("  %s -> %s (%s%s%s): %dx%d %s, lowest PSNR %.2f dB\n", in_caps,
      out, method, props[0] ? ", " : "", props, GST_VIDEO_INFO_WIDTH (&info),
      GST_VIDEO_INFO_HEIGHT (&info), gst_video_format_to_string
      (GST_VIDEO_INFO_FORMAT (&info)), lowest);
  fail_unless (lowest >= MIN_PSNR, "%s -> %s: %.2f dB", in_caps, out, lowest);
  result_clear (&dev);
  result_clear (&cpu);

  /* The converter chosen: the kernel, not scale_cuda. */
  p = gst_parse_launch (dd, NULL);
  fail_unless (p != NULL);
  fail_unless (gst_element_set_state (p, GST_STATE_PAUSED) !=
      GST_STATE_CHANGE_FAILURE);
  fail_unless (gst_element_get_state (p, NULL, NULL, 30 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS);
  {
    GstElement *c = gst_bin_get_by_name (GST_BIN (p), "c");
    gchar *conv = NULL, *filt = NULL;

    g_object_get (c, "active-converter", &conv, "active-filter", &filt, NULL);
    fail_unless_equals_string (conv, "cuda-convert");
    fail_unless_equals_string (filt, "cuda-convert");
    g_free (conv);
    g_free (filt);
    gst_object_unref (c);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (dd);
  g_free (cd);
}

/* The rows and columns of a letterboxed RGB frame that are border: the
 * first and last pixels of the picture's rectangle, found as the pixels
 * that are not black (the pattern has no black). */
static void
picture_rect (const GstVideoInfo * info, GstBuffer * buf, gint * x0, gint * y0,
    gint * x1, gint * y1)
{
  const GstVideoFormatInfo *finfo = info->finfo;
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info), x, y;
  guint8 *line = g_malloc (w * 4);
  GstVideoFrame f;

  *x0 = w;
  *y0 = h;
  *x1 = *y1 = -1;
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_READ));
  for (y = 0; y < h; y++) {
    finfo->unpack_func (finfo, GST_VIDEO_PACK_FLAG_NONE, line, f.data,
        f.info.stride, 0, y, w);
    for (x = 0; x < w; x++) {
      guint8 *px = line + 4 * x;

      if (px[1] | px[2] | px[3]) {
        *x0 = MIN (*x0, x);
        *y0 = MIN (*y0, y);
        *x1 = MAX (*x1, x);
        *y1 = MAX (*y1, y);
      }
    }
  }
  gst_video_frame_unmap (&f);
  g_free (line);
}

/* add-borders: the picture in the same rectangle as videoconvertscale's,
 * exactly black around it, and close inside (the whole frame's PSNR). */
static void
compare_letterbox (const gchar * in_caps, const gchar * out)
{
  gchar *dd = g_strdup_printf ("videotestsrc num-buffers=1 " PATTERN " ! %s "
      "! avhwupload device=cuda ! avhwconvertscale add-borders=true ! "
      "video/x-raw(memory:AVHWCUDA),%s ! avhwdownload ! appsink name=s",
      in_caps, out);
  gchar *cd = g_strdup_printf ("videotestsrc num-buffers=1 " PATTERN " ! %s "
      "! videoconvertscale method=bilinear2 add-borders=true ! video/x-raw,%s "
      "! appsink name=s", in_caps, out);
  gint a[4], b[4];
  Result dev, cpu;
  GstVideoInfo info;
  gdouble p;

  run (dd, &dev);
  run (cd, &cpu);
  fail_unless (dev.error == NULL, "%s: %s", dd, dev.error);
  fail_unless (cpu.error == NULL, "%s: %s", cd, cpu.error);
  fail_unless (same_geometry (dev.caps, cpu.caps));
  fail_unless (gst_video_info_from_caps (&info, dev.caps));
  picture_rect (&info, g_ptr_array_index (dev.buffers, 0), a, a + 1, a + 2,
      a + 3);
  picture_rect (&info, g_ptr_array_index (cpu.buffers, 0), b, b + 1, b + 2,
      b + 3);
  p = psnr (&info, g_ptr_array_index (dev.buffers, 0),
      g_ptr_array_index (cpu.buffers, 0));
  g_print ("  %s -> %s (letterbox): picture %d,%d-%d,%d (videoconvertscale "
      "%d,%d-%d,%d), PSNR %.2f dB\n", in_caps, out, a[0], a[1], a[2], a[3],
      b[0], b[1], b[2], b[3], p);
  fail_unless (a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3],
      "the picture's rectangle differs from videoconvertscale's");
  fail_unless (a[0] > 0 || a[1] > 0, "no borders");
  fail_unless (p >= MIN_PSNR, "%.2f dB", p);
  result_clear (&dev);
  result_clear (&cpu);
  g_free (dd);
  g_free (cd);
}

GST_START_TEST (test_rgbp_224)
{
  compare ("video/x-raw,format=NV12,width=640,height=360", "area", "",
      "format=RGBP,width=224,height=224");
  compare ("video/x-raw,format=NV12,width=1920,height=1080", "area", "",
      "format=RGBP,width=224,height=224");
  compare ("video/x-raw,format=I420,width=641,height=362", "area", "",
      "format=RGBP,width=224,height=224");
  compare ("video/x-raw,format=NV12,width=320,height=240", "bilinear", "",
      "format=BGRP,width=224,height=224");
}

GST_END_TEST;

GST_START_TEST (test_packed_rgb)
{
  if (device_holds ("RGBA"))
    compare ("video/x-raw,format=NV12,width=640,height=360", "area", "",
        "format=RGBA,width=224,height=224");
  /* odd sizes: NV12 at both, I420 at an odd width only (FFmpeg's CUDA
   * I420 frames cannot hold an odd height: gstavhwcudatransfer.c) */
  compare ("video/x-raw,format=NV12,width=321,height=243", "bilinear", "",
      "format=BGRx,width=224,height=224");
  compare ("video/x-raw,format=P010_10LE,width=640,height=360,"
      "colorimetry=bt2020", "area", "", "format=RGBx,width=224,height=224");
  /* up, at an odd size, full range */
  compare ("video/x-raw,format=NV12,width=160,height=120,colorimetry=jpeg",
      "bilinear", "", "format=RGBx,width=333,height=251");
  /* 24-bit RGB, where the frames hold it */
  if (device_holds ("RGB"))
    compare ("video/x-raw,format=NV12,width=640,height=360", "area", "",
        "format=RGB,width=224,height=224");
}

GST_END_TEST;

GST_START_TEST (test_letterbox)
{
  compare_letterbox ("video/x-raw,format=NV12,width=640,height=360",
      "format=RGBP,width=224,height=224,pixel-aspect-ratio=1/1");
  compare_letterbox ("video/x-raw,format=NV12,width=241,height=321",
      "format=BGRx,width=224,height=224,pixel-aspect-ratio=1/1");
}

GST_END_TEST;

/* A conversion no converter makes is refused at negotiation, naming the
 * formats. */
GST_START_TEST (test_refused)
{
  Result r;

  run ("videotestsrc num-buffers=1 ! video/x-raw,format=Y444,width=64,"
      "height=64 ! avhwupload device=cuda ! avhwconvertscale name=c ! "
      "video/x-raw(memory:AVHWCUDA),format=RGBP ! avhwdownload ! appsink "
      "name=s", &r);
  g_print ("  Y444 -> RGBP: %s\n", r.error);
  fail_unless (r.error != NULL);
  fail_unless (strstr (r.error, "RGBP") && strstr (r.error, "Y444"), "%s",
      r.error);
  result_clear (&r);
}

GST_END_TEST;

static void
require (void)
{
  GstElementFactory *f = gst_element_factory_find ("videoconvertscale");
  GstAvhwDevice *dev;
  GPtrArray *list;
  gboolean found = FALSE;
  guint i;

  if (!f) {
    g_print ("SKIP: no videoconvertscale (gst-plugins-base >= 1.22)\n");
    exit (77);
  }
  gst_object_unref (f);
  avhw_test_require_device ("cuda");
  dev = gst_avhw_device_open ("cuda", NULL, NULL);
  if (!dev) {
    g_print ("SKIP: cuda does not open\n");
    exit (77);
  }
  list = gst_avhw_backend_get_converters (gst_avhw_device_get_backend (dev),
      dev);
  for (i = 0; i < list->len; i++)
    found |= g_strcmp0 (((GstAvhwConverterCaps *) g_ptr_array_index (list,
                i))->name, "cuda-convert") == 0;
  gst_object_unref (dev);
  if (!found) {
    g_print ("SKIP: the cuda backend was built without its kernels "
        "(no cuda-convert converter)\n");
    exit (77);
  }
}

static Suite *
convertscale_cuda_suite (void)
{
  Suite *s = suite_create ("avhw-convertscale-cuda");
  TCase *tc = tcase_create ("general");

  require ();
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rgbp_224);
  tcase_add_test (tc, test_packed_rgb);
  tcase_add_test (tc, test_letterbox);
  tcase_add_test (tc, test_refused);
  return s;
}

GST_CHECK_MAIN (convertscale_cuda);
