/* gst-avhw tests: avhwdec's H.264 choices for a device, end to end, with
 * real conformance streams (AVHW_MEDIA_DIR: meson's media-dir)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A test backend on FFmpeg's vulkan device stands in for the H200's Vulkan
 * decoder with FFmpeg 7.1: 17 picture slots for H.264, field pictures
 * decoded wrongly, one frame thread at most (parameter sets can miss a
 * thread: issue 30). Its decoder is FFmpeg's h264 opened as a hardware one
 * (on the device), so avhwdec makes the choices it makes on the H200; the
 * pictures themselves decode in software here. Checked against FFmpeg's
 * reference MD5 of each stream (MANIFEST.tsv):
 *   - field pictures (HCAFF1_HHI from its first picture, FRExt4_Panasonic
 *     from its second) go to software with a warning, every frame out
 *     once and bit-exact; with fallback=false an error names them;
 *   - MBAFF frames (HCAMFF1_HHI) stay, bit-exact, no warning about fields;
 *   - the reorder depth fits the slots: MR2_TANDBERG_E (15 references,
 *     shown in decoding order) has no reorder latency where strict
 *     compliance would give it 15 frames; Cisco_*_Bframe_9 (5 references)
 *     10 frames, and keeps every B-frame;
 *   - one frame thread, also where the threads property asks for more (the
 *     latency has no frame of a second thread).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "decode-common.c"

typedef struct
{
  GstAvhwBackend parent;
} GstAvhwSlotsBackend;
typedef struct
{
  GstAvhwBackendClass parent;
} GstAvhwSlotsBackendClass;
static GType gst_avhw_slots_backend_get_type (void);
G_DEFINE_TYPE (GstAvhwSlotsBackend, gst_avhw_slots_backend,
    GST_TYPE_AVHW_BACKEND);

/* 17 picture slots, field pictures refused, one frame thread */
static void
sl_query_decoder (GstAvhwBackend * b, guint index, enum AVCodecID id,
    GstAvhwDecoderCaps * caps)
{
  caps->slots = 17;
  caps->field_coded = FALSE;
  caps->field_coded_reason =
      g_strdup ("the test device decodes field pictures wrongly");
  caps->max_frame_threads = 1;
  caps->frame_threads_reason =
      g_strdup ("the test device's decoder takes one frame thread");
}

static void
gst_avhw_slots_backend_class_init (GstAvhwSlotsBackendClass * k)
{
  GstAvhwBackendClass *b = GST_AVHW_BACKEND_CLASS (k);

  gst_avhw_backend_class_init_contract (k);
  avhw_test_h264_backend_setup (b, "slotstest", "memory:AVHWSlotstest");
  b->query_decoder = sl_query_decoder;
}

static void
gst_avhw_slots_backend_init (GstAvhwSlotsBackend * b)
{
}

static gboolean
plugin_init (GstPlugin * plugin)
{
  return gst_avhw_backend_register (plugin, gst_avhw_slots_backend_get_type ());
}

static const gchar *media;

/* FFmpeg's MD5 of @name's frames, from MANIFEST.tsv. */
static gchar *
reference_md5 (const gchar * name)
{
  gchar *path = g_build_filename (media, "MANIFEST.tsv", NULL), *text = NULL;
  gchar **lines, *md5 = NULL;
  guint i;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "%s", path);
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i] && !md5; i++) {
    gchar **f = g_strsplit (lines[i], "\t", -1);

    if (g_strv_length (f) > 6 && g_str_equal (f[0], name))
      md5 = g_strdup (f[6]);
    g_strfreev (f);
  }
  fail_unless (md5 != NULL, "%s not in %s", name, path);
  g_strfreev (lines);
  g_free (text);
  g_free (path);
  return md5;
}

static void decode_path (const gchar * path, const gchar * opts,
    DecodeResult * r);

/* "@name ! avhwdec @opts ! I420 ! appsink" on the test device. */
static void
decode_stream (const gchar * name, const gchar * opts, DecodeResult * r)
{
  gchar *path = g_build_filename (media, name, NULL);

  decode_path (path, opts, r);
  g_print ("%s: %u frames, %s%s%s\n", name, r->frames,
      g_checksum_get_string (r->md5), r->error ? ", error: " : "",
      r->error ? r->error : "");
  g_free (path);
}

static void
decode_path (const gchar * path, const gchar * opts, DecodeResult * r)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "avhwdec name=dec device=slotstest %s ! avhwdownload ! videoconvert ! "
      "video/x-raw,format=I420", path, opts);

  decode (desc, r);
  g_free (desc);
}

static void
check_bit_exact (const gchar * name, const DecodeResult * r)
{
  gchar *ref = reference_md5 (name);

  fail_unless (r->error == NULL, "%s: %s", name, r->error);
  fail_unless_equals_string (g_checksum_get_string (r->md5), ref);
  g_free (ref);
}

/* With @opts: each stream to software with a warning, bit-exact; returns
 * the sessions handed over and the segments cut, added up. */
static void
fields_to_software (const gchar * opts, guint * handovers, guint * segments)
{
  const gchar *streams[] =
      { "h264/HCAFF1_HHI.264", "h264/FRExt4_Panasonic.avc" };
  guint i;

  *handovers = *segments = 0;
  for (i = 0; i < G_N_ELEMENTS (streams); i++) {
    DecodeResult r;

    decode_stream (streams[i], opts, &r);
    fail_unless (strstr (r.warnings->str, "field pictures"),
        "%s: no warning about field pictures: %s", streams[i], r.warnings->str);
    check_bit_exact (streams[i], &r);
    fail_unless (r.handovers >= 1, "%s: no session handed over", streams[i]);
    *handovers += r.handovers;
    *segments += r.segments;
    result_clear (&r);
  }
}

GST_START_TEST (test_field_pictures_go_to_software)
{
  guint handovers, segments;

  fields_to_software ("", &handovers, &segments);
  fail_unless_equals_int (handovers, 2);
  fail_unless_equals_int (segments, 0);
}

GST_END_TEST;

/* Four sessions: each one that meets a field picture goes to software from
 * its segment's last key frame; the frames are those of one session. The
 * conformance streams are 10 frames long, one segment: HCAFF1_HHI is also
 * decoded as 8 copies in a row (an IDR at each), cut into 4 segments.
 * (FRExt4_Panasonic does not make a stream that way: 79 frames of 80.) */
GST_START_TEST (test_field_pictures_parallel)
{
  const gchar *streams[] = { "h264/HCAFF1_HHI.264" };
  guint handovers, segments, i, k;

  fields_to_software ("parallel=4", &handovers, &segments);
  for (i = 0; i < G_N_ELEMENTS (streams); i++) {
    gchar *src = g_build_filename (media, streams[i], NULL), *data;
    gchar *path = g_build_filename (tmpdir, "fields8.264", NULL);
    GString *eight = g_string_new (NULL);
    DecodeResult one, four;
    gsize len;

    fail_unless (g_file_get_contents (src, &data, &len, NULL), "%s", src);
    for (k = 0; k < 8; k++)
      g_string_append_len (eight, data, len);
    fail_unless (g_file_set_contents (path, eight->str, eight->len, NULL));
    decode_path (path, "parallel=1", &one);
    decode_path (path, "parallel=4", &four);
    g_print ("%s x8: parallel=1 %u frames %s; parallel=4 %u frames %s, %u "
        "segments, %u sessions handed to software\n", streams[i],
        one.frames, g_checksum_get_string (one.md5), four.frames,
        g_checksum_get_string (four.md5), four.segments, four.handovers);
    fail_unless (one.error == NULL && four.error == NULL, "%s | %s",
        one.error, four.error);
    fail_unless_equals_int (one.frames, 80);
    fail_unless_equals_int (four.frames, 80);
    fail_unless_equals_string (g_checksum_get_string (four.md5),
        g_checksum_get_string (one.md5));
    fail_unless (four.segments >= 3, "not cut: %u segments", four.segments);
    fail_unless (four.handovers >= 2, "%u sessions handed over",
        four.handovers);
    result_clear (&one);
    result_clear (&four);
    g_string_free (eight, TRUE);
    g_free (data);
    g_free (path);
    g_free (src);
  }
}

GST_END_TEST;

/* Sessions on their own threads, each a hardware decoder whose FFmpeg
 * get_format runs there, on a stream whose size and format change
 * (conformance streams one after the other, twice): every run of
 * parallel=4 gives the frames of parallel=1. */
GST_START_TEST (test_parallel_format_changes)
{
  const gchar *streams[] = { "h264/MR2_TANDBERG_E.264",
    "h264/Cisco_Men_whisper_640x320_CABAC_Bframe_9.264",
    "h264/HCAMFF1_HHI.264", "h264/test_cif_P_CABAC_slice.264"
  };
  gchar *path = g_build_filename (tmpdir, "changes.264", NULL);
  GString *all = g_string_new (NULL);
  DecodeResult one;
  guint i, k;

  for (k = 0; k < 2; k++) {
    for (i = 0; i < G_N_ELEMENTS (streams); i++) {
      gchar *src = g_build_filename (media, streams[i], NULL), *data;
      gsize len;

      fail_unless (g_file_get_contents (src, &data, &len, NULL), "%s", src);
      g_string_append_len (all, data, len);
      g_free (data);
      g_free (src);
    }
  }
  fail_unless (g_file_set_contents (path, all->str, all->len, NULL));
  decode_path (path, "parallel=1", &one);
  fail_unless (one.error == NULL, "%s", one.error);
  fail_unless (one.caps_changes >= 4, "%u caps", one.caps_changes);
  for (k = 0; k < 5; k++) {
    DecodeResult four;

    decode_path (path, "parallel=4", &four);
    g_print ("run %u: parallel=1 %u frames, %u caps, %s; parallel=4 %u "
        "frames, %u caps, %s, %u segments\n", k, one.frames,
        one.caps_changes, g_checksum_get_string (one.md5), four.frames,
        four.caps_changes, g_checksum_get_string (four.md5), four.segments);
    fail_unless (four.error == NULL, "%s", four.error);
    fail_unless_equals_int (four.frames, one.frames);
    fail_unless_equals_int (four.caps_changes, one.caps_changes);
    fail_unless_equals_string (g_checksum_get_string (four.md5),
        g_checksum_get_string (one.md5));
    fail_unless (four.segments >= 8, "%u segments", four.segments);
    result_clear (&four);
  }
  result_clear (&one);
  g_string_free (all, TRUE);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_field_pictures_fallback_false)
{
  DecodeResult r;

  decode_stream ("h264/HCAFF1_HHI.264", "fallback=false", &r);
  fail_unless (r.error_message && strstr (r.error_message, "field pictures")
      && strstr (r.error_message, "slotstest"), "%s",
      r.error ? r.error : "no error");
  result_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_mbaff_stays)
{
  DecodeResult r;

  decode_stream ("h264/HCAMFF1_HHI.264", "", &r);
  fail_if (strstr (r.warnings->str, "field pictures"), "%s", r.warnings->str);
  check_bit_exact ("h264/HCAMFF1_HHI.264", &r);
  result_clear (&r);
}

GST_END_TEST;

/* The decoder's latency in frames at 25 fps (its reorder depth, plus a
 * frame for each frame thread past the first), asked at the end of
 * "@name ! avhwdec @opts ! fakesink". */
static guint
latency_frames (const gchar * name, const gchar * opts)
{
  gchar *path = g_build_filename (media, name, NULL);
  gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
      "capssetter caps=video/x-h264,framerate=25/1 ! "
      "avhwdec name=dec device=slotstest %s ! fakesink sync=false", path,
      opts);
  GstElement *p = gst_parse_launch (desc, NULL), *dec;
  GstMessage *msg;
  GstQuery *q = gst_query_new_latency ();
  GError *err = NULL;
  gchar *dbg = NULL;
  GstClockTime min = 0;
  GstPad *src;

  fail_unless (p != NULL, "%s", desc);
  dec = gst_bin_get_by_name (GST_BIN (p), "dec");
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error (msg, &err, &dbg);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS, "%s: %s (%s)",
      desc, err ? err->message : "no EOS in 60 s", dbg ? dbg : "");
  gst_message_unref (msg);
  src = gst_element_get_static_pad (dec, "src");
  fail_unless (gst_pad_query (src, q));
  gst_query_parse_latency (q, NULL, &min, NULL);
  gst_object_unref (src);
  gst_query_unref (q);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (dec);
  gst_object_unref (p);
  g_free (desc);
  g_free (path);
  return (guint) gst_util_uint64_scale_round (min, 25, GST_SECOND);
}

GST_START_TEST (test_reorder_fits_slots)
{
  DecodeResult r;
  guint mr2 = latency_frames ("h264/MR2_TANDBERG_E.264", "");
  guint cisco =
      latency_frames ("h264/Cisco_Men_whisper_640x320_CABAC_Bframe_9.264",
      "");

  g_print ("latency: MR2_TANDBERG_E %u frames, Cisco_Men_whisper %u\n", mr2,
      cisco);
  /* strict compliance: 15; within 17 slots: none */
  fail_unless_equals_int (mr2, 0);
  /* 17 slots - 2 - 5 references = 10 */
  fail_unless_equals_int (cisco, 10);
  decode_stream ("h264/MR2_TANDBERG_E.264", "", &r);
  check_bit_exact ("h264/MR2_TANDBERG_E.264", &r);
  result_clear (&r);
  /* every B-frame kept (the reference MD5 is FFmpeg's own decode) */
  decode_stream ("h264/Cisco_Men_whisper_640x320_CABAC_Bframe_9.264", "", &r);
  fail_unless_equals_int (r.frames, 9);
  check_bit_exact ("h264/Cisco_Men_whisper_640x320_CABAC_Bframe_9.264", &r);
  result_clear (&r);
}

GST_END_TEST;

/* The threads property cannot give the device's decoder a second frame
 * thread; the stream still decodes bit-exact. */
GST_START_TEST (test_frame_threads_held_to_device)
{
  const gchar *name = "h264/Cisco_Men_whisper_640x320_CABAC_Bframe_9.264";
  DecodeResult r;

  fail_unless_equals_int (latency_frames (name, "threads=4"), 10);
  decode_stream (name, "threads=4", &r);
  fail_unless_equals_int (r.frames, 9);
  check_bit_exact (name, &r);
  result_clear (&r);
}

GST_END_TEST;

static Suite *
avhwdec_h264_device_suite (void)
{
  Suite *s = suite_create ("avhwdec-h264-device");
  TCase *tc = tcase_create ("general");
  gchar *manifest;

  media = g_getenv ("AVHW_MEDIA_DIR");
  manifest = media && *media ? g_build_filename (media, "MANIFEST.tsv",
      NULL) : NULL;
  if (!manifest || !g_file_test (manifest, G_FILE_TEST_EXISTS)) {
    g_print ("SKIP: no conformance streams (meson option media-dir, "
        "AVHW_MEDIA_DIR): %s\n", manifest ? manifest : "not set");
    exit (77);
  }
  g_free (manifest);
  if (!gst_plugin_register_static (GST_VERSION_MAJOR, GST_VERSION_MINOR,
          "avhwslotstest", "slots test backend", plugin_init, VERSION,
          GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_NAME,
          GST_PACKAGE_ORIGIN)) {
    g_printerr ("FAIL: the test backend did not register\n");
    exit (1);
  }
  tmpdir = g_dir_make_tmp ("avhwdech264-XXXXXX", NULL);
  atexit (remove_tmpdir);
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_field_pictures_go_to_software);
  tcase_add_test (tc, test_field_pictures_parallel);
  tcase_add_test (tc, test_parallel_format_changes);
  tcase_add_test (tc, test_field_pictures_fallback_false);
  tcase_add_test (tc, test_mbaff_stays);
  tcase_add_test (tc, test_reorder_fits_slots);
  tcase_add_test (tc, test_frame_threads_held_to_device);
  return s;
}

GST_CHECK_MAIN (avhwdec_h264_device);
