/* gst-avhw tests: avhwdec's stream watcher (gstavhwdecwatch.c) on streams
 * that FFmpeg's encoders make at test time, against what ffprobe says of
 * them and the encoder settings chosen
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include "gstavhwdecwatch.h"
#include "../avhw-test-utils.h"

static gchar *tmpdir;

/* 30 frames of 176x144 at 25 fps through FFmpeg's @encoder into @name. */
static gchar *
make_stream (const gchar * name, const gchar * encoder_args)
{
  gchar *path = g_build_filename (tmpdir, name, NULL);
  gchar *cmd = g_strdup_printf ("ffmpeg -nostdin -v error -y -f lavfi -i "
      "testsrc2=size=176x144:rate=25 -frames:v 30 %s %s", encoder_args, path);
  gchar *err = NULL;
  gint status = -1;

  fail_unless (g_spawn_command_line_sync (cmd, NULL, &err, &status, NULL)
      && g_spawn_check_wait_status (status, NULL), "%s: %s", cmd, err);
  g_free (cmd);
  g_free (err);
  return path;
}

/* ffprobe's key flag of each packet, in decoding order. */
static GArray *
probe_keys (const gchar * path)
{
  gchar *cmd = g_strdup_printf ("ffprobe -v error -select_streams v:0 "
      "-show_entries packet=flags -of csv=p=0 %s", path);
  gchar *out = NULL, **lines, **l;
  gint status = -1;
  GArray *keys = g_array_new (FALSE, FALSE, sizeof (gboolean));

  fail_unless (g_spawn_command_line_sync (cmd, &out, NULL, &status, NULL)
      && g_spawn_check_wait_status (status, NULL), "%s", cmd);
  lines = g_strsplit (out, "\n", -1);
  for (l = lines; *l; l++) {
    gboolean k = strchr (*l, 'K') != NULL;

    if (**l)
      g_array_append_val (keys, k);
  }
  g_strfreev (lines);
  g_free (out);
  g_free (cmd);
  return keys;
}

/* The packets of @path as GStreamer's @chain gives them (GBytes), and
 * their caps. */
static GPtrArray *
demux (const gchar * path, const gchar * chain, GstCaps ** caps)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! %s ! appsink "
      "name=sink sync=false", path, chain);
  GstElement *p = gst_parse_launch (desc, NULL), *sink;
  GPtrArray *packets = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  GstSample *s;

  fail_unless (p != NULL, "%s", desc);
  g_free (desc);
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  gst_element_set_state (p, GST_STATE_PLAYING);
  *caps = NULL;
  for (;;) {
    GstMapInfo map;
    GstBuffer *buf;

    g_signal_emit_by_name (sink, "pull-sample", &s);
    if (!s)
      break;
    if (!*caps)
      *caps = gst_caps_ref (gst_sample_get_caps (s));
    buf = gst_sample_get_buffer (s);
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_READ));
    g_ptr_array_add (packets, g_bytes_new (map.data, map.size));
    gst_buffer_unmap (buf, &map);
    gst_sample_unref (s);
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  fail_unless (*caps != NULL, "no packets from %s", path);
  return packets;
}

static GstAvhwDecWatch *
watch_for (enum AVCodecID codec, GstCaps * caps)
{
  GstStructure *st = gst_caps_get_structure (caps, 0);
  const GValue *v = gst_structure_get_value (st, "codec_data");
  GstAvhwDecWatch *w = gst_avhw_dec_watch_new (codec, caps,
      v ? gst_value_get_buffer (v) : NULL);
  gchar *why = NULL;

  fail_unless (gst_avhw_dec_watch_cuts (w, &why), "%s", why);
  return w;
}

/* Every packet of @path (through @chain) scanned once: a cut exactly where
 * ffprobe says key frame, of kind @key; never a field. Returns the
 * watcher. */
static GstAvhwDecWatch *
check_cuts (enum AVCodecID codec, const gchar * path, const gchar * chain,
    GstAvhwDecKey key)
{
  GArray *keys = probe_keys (path);
  GstCaps *caps;
  GPtrArray *packets = demux (path, chain, &caps);
  GstAvhwDecWatch *w = watch_for (codec, caps);
  guint i, cuts = 0;

  fail_unless_equals_int (packets->len, keys->len);
  for (i = 0; i < packets->len; i++) {
    gsize size;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (packets, i), &size);
    GstAvhwDecUnit unit;

    gst_avhw_dec_watch_scan (w, d, size, &unit);
    fail_unless_equals_int (unit.cut, g_array_index (keys, gboolean, i));
    fail_unless_equals_int (unit.key, unit.cut ? key : GST_AVHW_DEC_KEY_NONE);
    fail_if (unit.field);
    cuts += unit.cut;
  }
  /* -g 10 or keyint=10 over 30 frames */
  fail_unless_equals_int (cuts, 3);
  g_array_unref (keys);
  g_ptr_array_unref (packets);
  gst_caps_unref (caps);
  return w;
}

#define X264 "-c:v libx264 -bf 2 -refs 3 -x264-params " \
  "keyint=10:min-keyint=10:scenecut=0:open-gop=0:b-pyramid=none:" \
  "log-level=error"

GST_START_TEST (test_h264_avc)
{
  gchar *path = make_stream ("h264.mp4", X264);
  GstAvhwDecWatch *w = check_cuts (AV_CODEC_ID_H264, path, "qtdemux",
      GST_AVHW_DEC_KEY_IDR_FRAME);
  const GstAvhwDecH264Seq *seq = gst_avhw_dec_watch_h264_seq (w);

  /* the SPS of the avcC record: -refs 3, progressive, with x264's VUI
   * bitstream_restriction (FFmpeg takes its reorder depth) */
  fail_unless (seq != NULL);
  fail_unless_equals_int (seq->refs, 3);
  fail_unless (seq->restricted);
  fail_if (seq->field_coded);
  fail_if (seq->in_order);
  /* the parameter sets are in the record only */
  fail_unless_equals_int (gst_avhw_dec_watch_n_param_sets (w), 0);
  gst_avhw_dec_watch_free (w);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_h264_byte_stream)
{
  gchar *path = make_stream ("h264.h264", X264 " -f h264");
  GstAvhwDecWatch *w = check_cuts (AV_CODEC_ID_H264, path,
      "h264parse ! video/x-h264,stream-format=byte-stream,alignment=au",
      GST_AVHW_DEC_KEY_IDR_FRAME);
  const GstAvhwDecH264Seq *seq = gst_avhw_dec_watch_h264_seq (w);

  fail_unless (seq != NULL);
  fail_unless_equals_int (seq->refs, 3);
  /* one SPS and one PPS, repeated at every IDR, kept once */
  fail_unless_equals_int (gst_avhw_dec_watch_n_param_sets (w), 2);
  gst_avhw_dec_watch_free (w);
  g_free (path);
}

GST_END_TEST;

/* pic_order_cnt_type 2 (no B-frames): pictures in decoding order;
 * interlaced input coded as MBAFF frames: field-coded SPS, no field
 * pictures. */
GST_START_TEST (test_h264_mbaff)
{
  gchar *path = make_stream ("mbaff.mp4", "-vf setfield=tff -flags +ildct "
      "-c:v libx264 -bf 0 -refs 2 -x264-params keyint=10:min-keyint=10:"
      "scenecut=0:log-level=error");
  GstAvhwDecWatch *w = check_cuts (AV_CODEC_ID_H264, path, "qtdemux",
      GST_AVHW_DEC_KEY_IDR_FRAME);
  const GstAvhwDecH264Seq *seq = gst_avhw_dec_watch_h264_seq (w);

  fail_unless (seq != NULL);
  fail_unless (seq->field_coded);
  fail_unless_equals_int (seq->refs, 2);
  gst_avhw_dec_watch_free (w);
  g_free (path);
}

GST_END_TEST;

#define X265 "-c:v libx265 -x265-params keyint=10:min-keyint=10:" \
  "scenecut=0:log-level=error"

GST_START_TEST (test_h265_closed_gop)
{
  gchar *path = make_stream ("closed.mp4", X265 ":open-gop=0");
  GstAvhwDecWatch *w = check_cuts (AV_CODEC_ID_HEVC, path, "qtdemux",
      GST_AVHW_DEC_KEY_IDR);

  gst_avhw_dec_watch_free (w);
  g_free (path);
}

GST_END_TEST;

/* Open GOPs: ffprobe's key frames after the first are CRA pictures, whose
 * RASL pictures need what came before: not cuts. */
GST_START_TEST (test_h265_open_gop)
{
  gchar *path = make_stream ("open.mp4", X265 ":open-gop=1");
  GArray *keys = probe_keys (path);
  GstCaps *caps;
  GPtrArray *packets = demux (path, "qtdemux", &caps);
  GstAvhwDecWatch *w = watch_for (AV_CODEC_ID_HEVC, caps);
  guint i, cras = 0;

  fail_unless_equals_int (packets->len, keys->len);
  for (i = 0; i < packets->len; i++) {
    gsize size;
    const guint8 *d = g_bytes_get_data (g_ptr_array_index (packets, i), &size);
    gboolean key = g_array_index (keys, gboolean, i);
    GstAvhwDecUnit unit;

    gst_avhw_dec_watch_scan (w, d, size, &unit);
    fail_unless_equals_int (unit.cut, i == 0);
    fail_unless_equals_int (unit.key, i == 0 ? GST_AVHW_DEC_KEY_IDR :
        key ? GST_AVHW_DEC_KEY_CRA : GST_AVHW_DEC_KEY_NONE);
    cras += unit.key == GST_AVHW_DEC_KEY_CRA;
  }
  fail_unless_equals_int (cras, 2);
  gst_avhw_dec_watch_free (w);
  g_array_unref (keys);
  g_ptr_array_unref (packets);
  gst_caps_unref (caps);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_vp9)
{
  gchar *path = make_stream ("vp9.mp4", "-c:v libvpx-vp9 -g 10 "
      "-deadline realtime");
  GstAvhwDecWatch *w = check_cuts (AV_CODEC_ID_VP9, path, "qtdemux",
      GST_AVHW_DEC_KEY_SHOWN_KEY);

  gst_avhw_dec_watch_free (w);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_av1)
{
  gchar *path = make_stream ("av1.mp4", "-c:v libsvtav1 -g 10 -preset 12 "
      "-svtav1-params lp=1");
  GstAvhwDecWatch *w = check_cuts (AV_CODEC_ID_AV1, path,
      "qtdemux ! av1parse ! video/x-av1,stream-format=obu-stream,"
      "alignment=tu", GST_AVHW_DEC_KEY_SHOWN_KEY);

  /* one sequence header, repeated at every key frame, kept once */
  fail_unless_equals_int (gst_avhw_dec_watch_n_param_sets (w), 1);
  gst_avhw_dec_watch_free (w);
  g_free (path);
}

GST_END_TEST;

static Suite *
decwatch_suite (void)
{
  Suite *s = suite_create ("decwatch");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_h264_avc);
  tcase_add_test (tc, test_h264_byte_stream);
  tcase_add_test (tc, test_h264_mbaff);
  tcase_add_test (tc, test_h265_closed_gop);
  tcase_add_test (tc, test_h265_open_gop);
  tcase_add_test (tc, test_vp9);
  tcase_add_test (tc, test_av1);
  return s;
}

int
main (int argc, char **argv)
{
  static const gchar *needed[] = { "ffmpeg", "ffprobe" };
  static const gchar *elements[] = { "qtdemux", "h264parse", "av1parse",
    "appsink"
  };
  int ret;
  guint i;

  gst_check_init (&argc, &argv);
  for (i = 0; i < G_N_ELEMENTS (needed); i++) {
    gchar *p = g_find_program_in_path (needed[i]);

    if (!p) {
      g_print ("SKIP: %s (the FFmpeg CLI) makes and probes the streams\n",
          needed[i]);
      return 77;
    }
    g_free (p);
  }
  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    GstElementFactory *f = gst_element_factory_find (elements[i]);

    if (!f) {
      g_print ("SKIP: GStreamer element %s is needed\n", elements[i]);
      return 77;
    }
    gst_object_unref (f);
  }
  tmpdir = g_dir_make_tmp ("avhw-decwatch-XXXXXX", NULL);
  ret = gst_check_run_suite (decwatch_suite (), "decwatch", __FILE__);
  avhw_test_remove_dir (tmpdir);
  g_free (tmpdir);
  return ret;
}
