/* gst-avhw tests: avhwenc through its software fallback (CI has no encoder
 * hardware), on every backend present, decoded back with gst-libav
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "../avhw-test-utils.h"

#define WIDTH 320
#define HEIGHT 240
#define FPS 30
#define N_FRAMES 60
#define FORCE_AT 45
/* libx264 at its default CRF 23 and libx265 at CRF 28 give 40-50 dB on
 * this smooth test picture; 32 dB catches a wrong plane, a wrong frame or
 * a broken stream, not codec quality. */
#define MIN_PSNR 32.0

/* Those without a device are skipped, by name. On an NVIDIA GPU without
 * NVENC (the H200), cuda runs h264_nvenc, which refuses, then the
 * fallback. */
static const gchar *backends[] = { "vulkan", "opencl", "cuda", "vaapi" };

static gboolean
have_device (const gchar * backend)
{
  GstAvhwBackend *b = gst_avhw_backend_find (backend, NULL);
  gboolean ok = b && gst_avhw_backend_get_n_devices (b, NULL) > 0;

  gst_clear_object (&b);
  return ok;
}

/* NV12 where the device's frames hold it (Vulkan), else I420 (PoCL). */
static GstVideoFormat
device_format (const gchar * backend)
{
  gchar *name = g_strdup_printf ("%s:0", backend);
  GstAvhwDevice *dev = gst_avhw_device_open (name, NULL, NULL);
  GArray *fmts;
  GstVideoFormat f = GST_VIDEO_FORMAT_I420;
  guint i;

  fail_unless (dev != NULL);
  fmts = gst_avhw_device_get_sw_formats (dev);
  for (i = 0; i < fmts->len; i++)
    if (g_array_index (fmts, gint, i) == AV_PIX_FMT_NV12)
      f = GST_VIDEO_FORMAT_NV12;
  g_array_unref (fmts);
  gst_object_unref (dev);
  g_free (name);
  return f;
}

/* H.265 needs libx265 and avdec_h265, which the GPU machine's minimal
 * FFmpeg lacks. */
static gboolean
have_h265 (void)
{
  GstElementFactory *f = gst_element_factory_find ("avdec_h265");
  gboolean ok = f && avcodec_find_encoder_by_name ("libx265");

  gst_clear_object (&f);
  if (!ok)
    g_print ("  no libx265 encoder or avdec_h265: H.265 cases left out\n");
  return ok;
}

static GstClockTime
frame_pts (guint i)
{
  return gst_util_uint64_scale (i, GST_SECOND, FPS);
}

/* A smooth gradient with a square moving across it. */
static GstBuffer *
make_frame (const GstVideoInfo * info, guint i)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);
  GstVideoFrame f;
  guint c, x, y, sq = (i * 4) % (WIDTH - 48);

  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  for (c = 0; c < 3; c++) {
    guint8 *d = GST_VIDEO_FRAME_COMP_DATA (&f, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&f, c);
    gint ps = GST_VIDEO_FRAME_COMP_PSTRIDE (&f, c);
    guint w = GST_VIDEO_FRAME_COMP_WIDTH (&f, c);
    guint h = GST_VIDEO_FRAME_COMP_HEIGHT (&f, c);

    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        guint v;
        if (c == 0) {
          v = 40 + x * 120 / w + y * 60 / h;
          if (x >= sq && x < sq + 48 && y >= 96 && y < 144)
            v = 230;
        } else {
          v = 98 + (c == 1 ? x : y) * 60 / (c == 1 ? w : h);
        }
        d[y * stride + x * ps] = v;
      }
    }
  }
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (buf) = frame_pts (i);
  GST_BUFFER_DURATION (buf) = frame_pts (i + 1) - frame_pts (i);
  return buf;
}

/* Natural logarithm without libm (the test links only what its siblings
 * link): x = m * 2^k with m in [1, 2), ln m = 2 atanh ((m - 1) / (m + 1)). */
static gdouble
ln (gdouble x)
{
  gdouble y, y2, term, sum = 0;
  gint k = 0, i;

  while (x >= 2) {
    x /= 2;
    k++;
  }
  while (x < 1) {
    x *= 2;
    k--;
  }
  y = (x - 1) / (x + 1);
  y2 = y * y;
  term = y;
  for (i = 1; i < 60; i += 2) {
    sum += term / i;
    term *= y2;
  }
  return 2 * sum + k * 0.69314718055994530942;
}

/* PSNR over Y, U and V of two frames that may differ in layout. */
static gdouble
psnr (const GstVideoInfo * ia, GstBuffer * a, const GstVideoInfo * ib,
    GstBuffer * b)
{
  GstVideoFrame fa, fb;
  gdouble se = 0;
  guint64 n = 0;
  guint c, x, y;

  fail_unless (gst_video_frame_map (&fa, ia, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, ib, b, GST_MAP_READ));
  for (c = 0; c < 3; c++) {
    guint w = GST_VIDEO_FRAME_COMP_WIDTH (&fa, c);
    guint h = GST_VIDEO_FRAME_COMP_HEIGHT (&fa, c);

    fail_unless_equals_int (w, GST_VIDEO_FRAME_COMP_WIDTH (&fb, c));
    fail_unless_equals_int (h, GST_VIDEO_FRAME_COMP_HEIGHT (&fb, c));
    for (y = 0; y < h; y++) {
      for (x = 0; x < w; x++) {
        gint va = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fa, c))[y *
            GST_VIDEO_FRAME_COMP_STRIDE (&fa, c) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, c)];
        gint vb = ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&fb, c))[y *
            GST_VIDEO_FRAME_COMP_STRIDE (&fb, c) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (&fb, c)];
        se += (va - vb) * (va - vb);
        n++;
      }
    }
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  if (se == 0)
    return 99.0;
  return 10.0 * ln (255.0 * 255.0 / (se / n)) / ln (10.0);
}

/* The running time of @t on @pad: avhwenc shifts its output's PTS and
 * segment up (GstVideoEncoder's minimum PTS), so the input's PTS come back
 * as running times. */
static GstClockTime
running_time (GstPad * pad, GstClockTime t)
{
  GstEvent *ev = gst_pad_get_sticky_event (pad, GST_EVENT_SEGMENT, 0);
  const GstSegment *seg;
  GstClockTime rt;

  fail_unless (ev != NULL, "no segment on %s", GST_PAD_NAME (pad));
  gst_event_parse_segment (ev, &seg);
  rt = gst_segment_to_running_time (seg, GST_FORMAT_TIME, t);
  gst_event_unref (ev);
  return rt;
}

typedef struct
{
  GstClockTime pts, dts, duration;
  GstClockTime rt;              /* of the PTS */
  gboolean key;
  gsize size;
} Out;

static GstPadProbeReturn
record_output (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GArray *outs = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  Out o;

  o.pts = GST_BUFFER_PTS (buf);
  o.dts = GST_BUFFER_DTS (buf);
  o.duration = GST_BUFFER_DURATION (buf);
  o.rt = running_time (pad, o.pts);
  o.key = !GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_DELTA_UNIT);
  o.size = gst_buffer_get_size (buf);
  g_array_append_val (outs, o);
  return GST_PAD_PROBE_OK;
}

/* Fails on an error message; says whether a warning containing @text
 * came. */
static gboolean
check_messages (GstBus * bus, const gchar * text)
{
  GstMessage *msg;
  gboolean found = FALSE;

  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
              GST_MESSAGE_WARNING))) {
    GError *err = NULL;
    gchar *dbg = NULL;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, &dbg);
      fail ("error: %s (%s)", err->message, dbg);
    }
    gst_message_parse_warning (msg, &err, NULL);
    found |= strstr (err->message, text) != NULL;
    g_clear_error (&err);
    gst_message_unref (msg);
  }
  return found;
}

/* Encodes N_FRAMES through @desc (an "avhwenc name=enc" then parser and
 * decoder), forcing a key frame at FORCE_AT, and checks what comes out of
 * the encoder and of the decoder. */
static void
encode_decode (const gchar * desc, GstVideoFormat format, gboolean fallback)
{
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (h->element), "enc");
  GstElement *parse = gst_bin_get_by_name (GST_BIN (h->element), "parse");
  GstPad *enc_src = gst_element_get_static_pad (enc, "src");
  GstPad *parse_src = gst_element_get_static_pad (parse, "src");
  GArray *outs = g_array_new (FALSE, FALSE, sizeof (Out));
  GArray *parsed = g_array_new (FALSE, FALSE, sizeof (Out));
  GstBus *bus = gst_bus_new ();
  GstVideoInfo info, dec_info;
  GstCaps *caps;
  GstQuery *q;
  GstClockTime lat_min, lat_max;
  gboolean live;
  gdouble min_psnr = 100;
  guint i, f, n_keys = 0;
  GstBuffer *in;

  gst_element_set_bus (h->element, bus);
  gst_pad_add_probe (enc_src, GST_PAD_PROBE_TYPE_BUFFER, record_output, outs,
      NULL);
  gst_pad_add_probe (parse_src, GST_PAD_PROBE_TYPE_BUFFER, record_output,
      parsed, NULL);
  gst_video_info_set_format (&info, format, WIDTH, HEIGHT);
  GST_VIDEO_INFO_FPS_N (&info) = FPS;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));

  for (i = 0; i < N_FRAMES; i++) {
    if (i == FORCE_AT)
      fail_unless (gst_pad_send_event (enc_src,
              gst_video_event_new_upstream_force_key_unit
              (GST_CLOCK_TIME_NONE, TRUE, 1)));
    in = make_frame (&info, i);
    fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (check_messages (bus, "encoding in software") || !fallback,
      "no warning about the software fallback");
  {
    gchar *active = NULL;
    gboolean hw = TRUE;

    g_object_get (enc, "active-encoder", &active, "hardware", &hw, NULL);
    fail_unless (active != NULL, "no active-encoder");
    fail_unless (!fallback || (!hw && g_str_has_prefix (active, "lib")),
        "%s (hardware %d) after a software fallback", active, hw);
    g_free (active);
  }

  /* what the encoder made: DTS increasing at least a millisecond at a
   * time (a container's timescale keeps them apart; a parser takes a
   * repeated one for a missing one and makes up timestamps), never after
   * the PTS; durations of a frame; the parser keeps every PTS */
  fail_unless_equals_int (outs->len, N_FRAMES);
  fail_unless_equals_int (parsed->len, N_FRAMES);
  for (i = 0; i < outs->len; i++) {
    Out *o = &g_array_index (outs, Out, i);
    n_keys += o->key;
    fail_unless (GST_CLOCK_TIME_IS_VALID (o->dts) && o->dts <= o->pts,
        "output %u: DTS %" GST_TIME_FORMAT " PTS %" GST_TIME_FORMAT, i,
        GST_TIME_ARGS (o->dts), GST_TIME_ARGS (o->pts));
    if (i > 0)
      fail_unless (o->dts >= g_array_index (outs, Out, i - 1).dts +
          GST_MSECOND, "DTS does not increase by 1 ms at output %u", i);
    f = gst_util_uint64_scale_round (o->rt, FPS, GST_SECOND);
    fail_unless_equals_uint64 (o->duration, frame_pts (f + 1) - frame_pts (f));
    fail_unless_equals_uint64 (g_array_index (parsed, Out, i).pts, o->pts);
  }
  fail_unless (g_array_index (outs, Out, 0).key, "first frame not a key frame");
  fail_unless_equals_uint64 (g_array_index (outs, Out, 0).rt, frame_pts (0));
  for (i = 0; i < outs->len; i++) {
    Out *o = &g_array_index (outs, Out, i);
    if (o->rt == frame_pts (FORCE_AT))
      fail_unless (o->key, "forced key frame %u is not a key frame", FORCE_AT);
    if (o->rt == frame_pts (FORCE_AT - 1))
      fail_if (o->key, "frame %u is a key frame unasked", FORCE_AT - 1);
  }
  fail_unless (n_keys >= 2 && n_keys < N_FRAMES / 2, "%u key frames", n_keys);

  q = gst_query_new_latency ();
  fail_unless (gst_pad_query (enc_src, q));
  gst_query_parse_latency (q, &live, &lat_min, &lat_max);
  gst_query_unref (q);
  g_print ("  latency %" GST_TIME_FORMAT "\n", GST_TIME_ARGS (lat_min));

  /* what decodes back: every frame, in order, close to the source */
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  fail_unless (gst_video_info_from_caps (&dec_info, caps));
  gst_caps_unref (caps);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), N_FRAMES);
  for (i = 0; i < N_FRAMES; i++) {
    GstBuffer *out = gst_harness_pull (h);
    GstBuffer *src = make_frame (&info, i);
    gdouble p = psnr (&info, src, &dec_info, out);

    fail_unless_equals_uint64 (running_time (h->sinkpad,
            GST_BUFFER_PTS (out)), frame_pts (i));
    fail_unless (p >= MIN_PSNR, "frame %u: PSNR %.2f dB < %.1f", i, p,
        MIN_PSNR);
    min_psnr = MIN (min_psnr, p);
    gst_buffer_unref (out);
    gst_buffer_unref (src);
  }
  g_print ("  %s: %u frames, %u key, lowest PSNR %.2f dB\n", desc, N_FRAMES,
      n_keys, min_psnr);

  g_array_unref (outs);
  g_array_unref (parsed);
  gst_object_unref (enc_src);
  gst_object_unref (parse_src);
  gst_object_unref (enc);
  gst_object_unref (parse);
  /* drop the messages left: they hold the elements that hold the bus */
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_START_TEST (test_h264_system_memory)
{
  encode_decode
      ("avhwenc name=enc fallback=libx264 ! h264parse name=parse ! avdec_h264",
      GST_VIDEO_FORMAT_I420, TRUE);
}

GST_END_TEST;

/* No fallback property: a software encoder of FFmpeg's choice for the
 * negotiated codec, with a warning, as avhwdec does (issue 28). */
GST_START_TEST (test_default_fallback)
{
  encode_decode ("avhwenc name=enc ! h264parse name=parse ! avdec_h264",
      GST_VIDEO_FORMAT_I420, TRUE);
}

GST_END_TEST;

/* The same for H.265 (needs libx265: the GPU bundle's FFmpeg has none, and
 * there avhwenc says so in its error) */
GST_START_TEST (test_default_fallback_h265)
{
  encode_decode ("avhwenc name=enc ! video/x-h265 ! h265parse name=parse ! "
      "avdec_h265", GST_VIDEO_FORMAT_I420, TRUE);
}

GST_END_TEST;

/* AV1 with the default fallback: SVT-AV1 where FFmpeg has it, then rav1e,
 * before FFmpeg's first (libaom, ~1 frame/s at 320x240 at its defaults:
 * the elements reference's AV1 launch line took 15 s with it). */
GST_START_TEST (test_av1_fallback_fast)
{
  const gchar *want = avcodec_find_encoder_by_name ("libsvtav1") ?
      "libsvtav1" : "librav1e";
  GstHarness *h =
      gst_harness_new_parse ("avhwenc name=enc ! capsfilter caps=video/x-av1");
  GstElement *enc = gst_bin_get_by_name (GST_BIN (h->element), "enc");
  GstVideoInfo info;
  gchar *active = NULL;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, WIDTH, HEIGHT);
  GST_VIDEO_INFO_FPS_N (&info) = FPS;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&info, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  g_object_get (enc, "active-encoder", &active, NULL);
  fail_unless_equals_string (active, want);
  fail_unless (gst_harness_buffers_in_queue (h) > 0, "no AV1 output");
  g_free (active);
  gst_object_unref (enc);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_h264_device_memory)
{
  guint i, n = 0;

  for (i = 0; i < G_N_ELEMENTS (backends); i++) {
    gchar *desc;

    if (!have_device (backends[i])) {
      g_print ("  %s: no device, skipped\n", backends[i]);
      continue;
    }
    desc = g_strdup_printf ("avhwupload device=%s ! avhwenc name=enc "
        "device=%s fallback=libx264 ! h264parse name=parse ! avdec_h264",
        backends[i], backends[i]);
    encode_decode (desc, device_format (backends[i]), TRUE);
    g_free (desc);
    n++;
  }
  fail_unless (n > 0, "no backend with a device");
}

GST_END_TEST;

GST_START_TEST (test_h265)
{
  guint i;

  encode_decode
      ("avhwenc name=enc fallback=libx265 ! h265parse name=parse ! avdec_h265",
      GST_VIDEO_FORMAT_I420, TRUE);
  /* libx265 takes planar 4:2:0, not NV12: device frames in I420 */
  for (i = 0; i < G_N_ELEMENTS (backends); i++) {
    gchar *desc;

    if (!have_device (backends[i]))
      continue;
    desc = g_strdup_printf ("avhwupload device=%s ! avhwenc name=enc "
        "device=%s fallback=libx264,libx265 ! h265parse name=parse ! "
        "avdec_h265", backends[i], backends[i]);
    encode_decode (desc, GST_VIDEO_FORMAT_I420, TRUE);
    g_free (desc);
  }
}

GST_END_TEST;

/* ---------------------------------------------------------------- formats */

static GstBuffer *
encode_one_au (const gchar * enc_desc, const gchar * out_caps,
    GstCaps ** caps_out)
{
  GstHarness *h = gst_harness_new_parse (enc_desc);
  GstVideoInfo info;
  GstBuffer *out;
  guint i;

  gst_harness_set_sink_caps_str (h, out_caps);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, WIDTH, HEIGHT);
  GST_VIDEO_INFO_FPS_N (&info) = FPS;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 5; i++)
    gst_harness_push (h, make_frame (&info, i));
  gst_harness_push_event (h, gst_event_new_eos ());
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  *caps_out = gst_pad_get_current_caps (h->sinkpad);
  gst_harness_teardown (h);
  return out;
}

static void
check_stream_format (const gchar * enc, const gchar * media,
    const gchar * format, gboolean codec_data)
{
  gchar *want = g_strdup_printf ("%s, stream-format=%s, alignment=au", media,
      format);
  GstCaps *caps;
  GstBuffer *au = encode_one_au (enc, want, &caps);
  GstStructure *s = gst_caps_get_structure (caps, 0);
  guint8 head[4];
  gchar *str;

  fail_unless_equals_string (gst_structure_get_string (s, "stream-format"),
      format);
  fail_unless (gst_structure_get_string (s, "profile") != NULL,
      "no profile in %" GST_PTR_FORMAT, caps);
  fail_unless_equals_int (gst_structure_has_field (s, "codec_data"),
      codec_data);
  gst_buffer_extract (au, 0, head, 4);
  if (codec_data) {
    const GValue *v = gst_structure_get_value (s, "codec_data");
    GstBuffer *cd = gst_value_get_buffer (v);
    guint8 version;

    gst_buffer_extract (cd, 0, &version, 1);
    fail_unless_equals_int (version, 1);
    /* length prefixed: the first NAL's size, not a start code */
    fail_unless (GST_READ_UINT32_BE (head) > 1
        && GST_READ_UINT32_BE (head) + 4 <= gst_buffer_get_size (au));
  } else {
    fail_unless (GST_READ_UINT32_BE (head) == 1
        || GST_READ_UINT24_BE (head) == 1, "no start code");
  }
  str = gst_caps_to_string (caps);
  g_print ("  %s %s: %s\n", media, format, str);
  g_free (str);
  gst_caps_unref (caps);
  gst_buffer_unref (au);
  g_free (want);
}

GST_START_TEST (test_stream_formats)
{
  check_stream_format ("avhwenc fallback=libx264", "video/x-h264", "avc", TRUE);
  check_stream_format ("avhwenc fallback=libx264", "video/x-h264",
      "byte-stream", FALSE);
}

GST_END_TEST;

GST_START_TEST (test_stream_formats_h265)
{
  check_stream_format ("avhwenc fallback=libx265", "video/x-h265", "hvc1",
      TRUE);
  check_stream_format ("avhwenc fallback=libx265", "video/x-h265",
      "byte-stream", FALSE);
}

GST_END_TEST;

/* ---------------------------------------------------------------- live */

/* Noise needs every bit it gets, so the bitrate shows in the sizes. */
static GstBuffer *
noise_frame (const GstVideoInfo * info, guint i, GRand * rand)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
      NULL);
  GstMapInfo map;
  gsize k;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (k = 0; k < map.size; k++)
    map.data[k] = 64 + (g_rand_int (rand) & 0x7f);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = frame_pts (i);
  GST_BUFFER_DURATION (buf) = frame_pts (i + 1) - frame_pts (i);
  return buf;
}

/* Encodes 80 noise frames at 4000 kbit/s, then 200 kbit/s from frame 40;
 * returns the mean sizes of frames 20-39 and 60-79 and checks every frame
 * came out, with a key frame at 0 (and at 40 when @restart). */
static void
bitrate_change (const gchar * props, gboolean restart, gsize * before,
    gsize * after)
{
  gchar *desc = g_strdup_printf ("avhwenc name=enc fallback=libx264 "
      "bitrate=4000 %s", props);
  GstHarness *h = gst_harness_new_parse (desc);
  GstElement *enc = gst_bin_get_by_name (GST_BIN (h->element), "enc");
  GRand *rand = g_rand_new_with_seed (7);
  GstVideoInfo info;
  guint i, n = 0;

  *before = *after = 0;
  gst_harness_set_sink_caps_str (h, "video/x-h264, stream-format=byte-stream");
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, WIDTH, HEIGHT);
  GST_VIDEO_INFO_FPS_N (&info) = FPS;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 80; i++) {
    if (i == 40)
      g_object_set (enc, "bitrate", 200, NULL);
    fail_unless_equals_int (gst_harness_push (h, noise_frame (&info, i,
                rand)), GST_FLOW_OK);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  while (gst_harness_buffers_in_queue (h) > 0) {
    GstBuffer *b = gst_harness_pull (h);
    guint f = gst_util_uint64_scale_round (running_time (h->sinkpad,
            GST_BUFFER_PTS (b)), FPS, GST_SECOND);
    gboolean key = !GST_BUFFER_FLAG_IS_SET (b, GST_BUFFER_FLAG_DELTA_UNIT);

    /* rate control settles over a few frames on each side */
    if (f >= 20 && f < 40)
      *before += gst_buffer_get_size (b);
    else if (f >= 60)
      *after += gst_buffer_get_size (b);
    if (f == 0 || (restart && f == 40))
      fail_unless (key, "frame %u is no key frame", f);
    n++;
    gst_buffer_unref (b);
  }
  *before /= 20;
  *after /= 20;
  g_print ("  %s: 4000 kbit/s: %" G_GSIZE_FORMAT " bytes/frame, then "
      "200 kbit/s: %" G_GSIZE_FORMAT " bytes/frame\n", desc, *before, *after);
  fail_unless_equals_int (n, 80);
  g_rand_free (rand);
  gst_object_unref (enc);
  gst_harness_teardown (h);
  g_free (desc);
}

GST_START_TEST (test_bitrate_change_while_playing)
{
  gsize before, after;

  /* libx264 with a VBV takes the new rate at the next frame */
  bitrate_change ("rate-control=cbr tune=zerolatency", FALSE, &before, &after);
  fail_unless (after * 4 < before, "bitrate change not applied");
  /* in ABR without VBV it cannot: the encoder is drained and reopened */
  bitrate_change ("b-frames=0", TRUE, &before, &after);
  fail_unless (after * 4 < before, "bitrate change not applied");
}

GST_END_TEST;

GST_START_TEST (test_flush)
{
  GstHarness *h = gst_harness_new_parse ("avhwenc fallback=libx264 ! "
      "h264parse ! avdec_h264");
  GstVideoInfo info;
  GstSegment seg;
  guint i, n = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, WIDTH, HEIGHT);
  GST_VIDEO_INFO_FPS_N (&info) = FPS;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 10; i++)
    gst_harness_push (h, make_frame (&info, i));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  while (gst_harness_buffers_in_queue (h) > 0)
    gst_buffer_unref (gst_harness_pull (h));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
  for (i = 10; i < 30; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&info, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while (gst_harness_buffers_in_queue (h) > 0) {
    GstBuffer *b = gst_harness_pull (h);
    fail_unless_equals_uint64 (running_time (h->sinkpad, GST_BUFFER_PTS (b)),
        frame_pts (10 + n));
    gst_buffer_unref (b);
    n++;
  }
  fail_unless_equals_int (n, 20);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Downstream asks for baseline: libx264 makes a constrained-baseline
 * stream, which is a baseline stream, and says so in the caps downstream
 * accepts (ended with no output and no error before). */
GST_START_TEST (test_profile_downstream_wider)
{
  GstHarness *h = gst_harness_new_parse ("avhwenc fallback=libx264 ! "
      "capsfilter caps=video/x-h264,profile=baseline");
  GstVideoInfo info;
  GstCaps *caps;
  guint i, n = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, WIDTH, HEIGHT);
  GST_VIDEO_INFO_FPS_N (&info) = FPS;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, make_frame (&info, i)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  while (gst_harness_buffers_in_queue (h) > 0) {
    gst_buffer_unref (gst_harness_pull (h));
    n++;
  }
  fail_unless_equals_int (n, 5);
  caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  fail_unless_equals_string (gst_structure_get_string
      (gst_caps_get_structure (caps, 0), "profile"), "baseline");
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* ---------------------------------------------------------------- errors */

/* Runs @desc and returns its first error's message and debug text. */
static gchar *
run_for_error (const gchar * desc)
{
  GError *err = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &err);
  GstBus *bus;
  GstMessage *msg;
  gchar *dbg = NULL, *text;

  fail_unless (pipeline != NULL, "%s: %s", desc, err ? err->message : "");
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
      GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  fail_unless (msg != NULL, "%s: neither error nor EOS", desc);
  fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR,
      "%s: ran to EOS, an error was expected", desc);
  gst_message_parse_error (msg, &err, &dbg);
  text = g_strdup_printf ("%s | %s", err->message, GST_STR_NULL (dbg));
  g_print ("  %s\n    -> %s\n", desc, text);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return text;
}

static void
expect_error (const gchar * enc_props, const gchar * upload,
    const gchar * const *words)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 ! "
      "video/x-raw,format=NV12,width=64,height=48 ! %s%s avhwenc %s ! "
      "h264parse ! fakesink", upload ? upload : "", upload ? " !" : "",
      enc_props);
  gchar *text = run_for_error (desc);

  for (; *words; words++)
    fail_unless (strstr (text, *words) != NULL, "\"%s\" not in: %s", *words,
        text);
  g_free (text);
  g_free (desc);
}

static const gchar *
first_backend (void)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (backends); i++)
    if (have_device (backends[i]))
      return backends[i];
  return NULL;
}

GST_START_TEST (test_error_no_encoder)
{
  const gchar *b = first_backend ();
  gchar *props = g_strdup_printf ("device=%s fallback=false", b);
  gchar *upload = g_strdup_printf ("avhwupload device=%s", b);
  gchar *devname = g_strdup_printf ("%s:0", b);
  const gchar *words[] = { devname, "h264", "fallback=true", "libx264",
    NULL
  };

  fail_unless (b != NULL);
  expect_error (props, upload, words);
  g_free (props);
  g_free (upload);
  g_free (devname);
}

GST_END_TEST;

GST_START_TEST (test_error_forced_encoder_wrong_device)
{
  const gchar *b = first_backend ();
  gchar *props = g_strdup_printf ("device=%s encoder=h264_vaapi", b);
  gchar *devname = g_strdup_printf ("%s:0", b);
  const gchar *words[] = { "h264_vaapi", devname, NULL };

  expect_error (props, NULL, words);
  g_free (props);
  g_free (devname);
}

GST_END_TEST;

/* A profile the input cannot give (4:4:4 from 4:2:0) is an error naming
 * both profiles, at EOS too (3 frames: libx264 holds them all until the
 * drain), never an EOS with nothing encoded. */
GST_START_TEST (test_error_profile_refused)
{
  const gchar *words[] = { "does not accept", "libx264", "profile high",
    "asks for profile high-4:4:4", NULL
  };

  expect_error ("fallback=libx264 ! video/x-h264,profile=high-4:4:4", NULL,
      words);
}

GST_END_TEST;

GST_START_TEST (test_error_bad_options)
{
  const gchar *key[] = { "nosuchkey", "libx264", NULL };
  const gchar *value[] = { "crf", "abc", NULL };
  const gchar *syntax[] = { "justakey", NULL };
  const gchar *preset[] = { "nosuchpreset", "libx264", NULL };
  const gchar *cqp[] = { "cqp", "qp", NULL };
  const gchar *qp_range[] = { "qp=52", "out of range", "0 to 51", NULL };

  expect_error ("fallback=libx264 options=nosuchkey=1", NULL, key);
  expect_error ("fallback=libx264 options=crf=abc", NULL, value);
  expect_error ("fallback=libx264 options=justakey", NULL, syntax);
  expect_error ("fallback=libx264 preset=nosuchpreset", NULL, preset);
  expect_error ("fallback=libx264 rate-control=cqp", NULL, cqp);
  expect_error ("fallback=libx264 rate-control=cqp qp=52", NULL, qp_range);
}

GST_END_TEST;

GST_START_TEST (test_error_unknown_encoders)
{
  static const gchar *others[] = { "mpeg4", "mjpeg", "rawvideo", "png" };
  const gchar *enc[] = { "encoder=nosuchenc", "no encoder", NULL };
  const gchar *fb[] = { "fallback=nosuchenc", "no encoder", NULL };
  const gchar *codec[] = { "encodes", "H.264", NULL };
  guint i;

  expect_error ("encoder=nosuchenc", NULL, enc);
  expect_error ("fallback=nosuchenc", NULL, fb);
  /* an encoder of another codec, whichever this FFmpeg has */
  for (i = 0; i < G_N_ELEMENTS (others); i++) {
    if (avcodec_find_encoder_by_name (others[i])) {
      gchar *props = g_strdup_printf ("encoder=%s", others[i]);
      expect_error (props, NULL, codec);
      g_free (props);
      break;
    }
  }
}

GST_END_TEST;

static Suite *
avhwenc_suite (void)
{
  Suite *s = suite_create ("avhwenc");
  TCase *tc = tcase_create ("general");
  GstElementFactory *f;
  gboolean h265;

  avhw_test_require_device ("auto");
  f = gst_element_factory_find ("avdec_h264");
  if (!f || !avcodec_find_encoder_by_name ("libx264")) {
    g_print ("SKIP: needs FFmpeg's libx264 encoder and gst-libav's "
        "avdec_h264\n");
    exit (77);
  }
  gst_object_unref (f);

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_h264_system_memory);
  tcase_add_test (tc, test_default_fallback);
  tcase_add_test (tc, test_h264_device_memory);
  if (avcodec_find_encoder_by_name ("libsvtav1")
      || avcodec_find_encoder_by_name ("librav1e"))
    tcase_add_test (tc, test_av1_fallback_fast);
  else
    g_print ("case left out: FFmpeg has neither libsvtav1 nor librav1e\n");
  h265 = have_h265 ();
  if (h265) {
    tcase_add_test (tc, test_h265);
    tcase_add_test (tc, test_default_fallback_h265);
  }
  tcase_add_test (tc, test_stream_formats);
  if (h265)
    tcase_add_test (tc, test_stream_formats_h265);
  tcase_add_test (tc, test_bitrate_change_while_playing);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_profile_downstream_wider);
  tcase_add_test (tc, test_error_no_encoder);
  /* a forced encoder of another device's kind: h264_vaapi, unless the
   * device is vaapi */
  if (avcodec_find_encoder_by_name ("h264_vaapi")
      && g_strcmp0 (first_backend (), "vaapi") != 0)
    tcase_add_test (tc, test_error_forced_encoder_wrong_device);
  else
    g_print ("case left out: FFmpeg has no h264_vaapi, or the device is "
        "vaapi\n");
  tcase_add_test (tc, test_error_profile_refused);
  tcase_add_test (tc, test_error_bad_options);
  tcase_add_test (tc, test_error_unknown_encoders);
  return s;
}

GST_CHECK_MAIN (avhwenc);
