/* gst-avhw tests: making clips and decoding them to a hash, #included by
 * avhwdec*.c (the test list builds one source file
 * per test, so this is never compiled alone).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/app/gstappsink.h>
#include <glib/gstdio.h>
#include "../avhw-test-utils.h"

static gchar *tmpdir;

/* Encodes a clip with @enc (an encoder and its parser) into @name
 * (matroska when the name ends in .mkv, else a byte stream). */
G_GNUC_UNUSED static gchar *
make_clip_with (const gchar * name, const gchar * caps, const gchar * enc,
    guint frames)
{
  gchar *path = g_build_filename (tmpdir, name, NULL);
  gboolean mkv = g_str_has_suffix (name, ".mkv");
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball ! "
      "%s ! %s ! %s ! filesink location=%s", frames, caps, enc,
      mkv ? "matroskamux" : "video/x-h264,stream-format=byte-stream;"
      "video/x-h265,stream-format=byte-stream", path);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err);
  GstMessage *msg;

  fail_unless (p != NULL, "%s", err ? err->message : "");
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "encoding %s failed", name);
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  return path;
}

/* make_clip_with() GStreamer's x264enc. */
G_GNUC_UNUSED static gchar *
make_clip (const gchar * name, const gchar * caps, const gchar * enc_opts,
    guint frames)
{
  gchar *enc = g_strdup_printf ("x264enc %s ! h264parse", enc_opts);
  gchar *path = make_clip_with (name, caps, enc, frames);

  g_free (enc);
  return path;
}

typedef struct
{
  guint frames;
  guint caps_changes;
  GChecksum *md5;
  GstClockTime last_pts;
  gboolean pts_monotonic;
  gboolean device_memory;
  gchar *error;                 /* the first error: "message | debug" */
  gchar *error_message;         /* its message alone */
  gboolean warned;
  GString *warnings;            /* every warning's message, a line each */
  gchar *decoder;               /* active-decoder of the avhwdec named dec */
  gboolean hardware;            /* its hardware property */
  guint sessions, segments, handovers, joins;   /* its stats property */
} DecodeResult;

G_GNUC_UNUSED static void
result_clear (DecodeResult * r)
{
  g_checksum_free (r->md5);
  g_free (r->error);
  g_free (r->error_message);
  g_free (r->decoder);
  g_string_free (r->warnings, TRUE);
}

/* Hashes the visible bytes of every plane (no stride padding): what FFmpeg's
 * `-f md5` of rawvideo hashes. */
static void
hash_frame (GChecksum * md5, GstSample * sample)
{
  GstVideoInfo info;
  GstVideoFrame vf;
  guint p, c, row;

  fail_unless (gst_video_info_from_caps (&info, gst_sample_get_caps (sample)));
  fail_unless (gst_video_frame_map (&vf, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vf); p++) {
    guint rows = 0, bytes = 0;
    for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (&vf); c++) {
      if (GST_VIDEO_FRAME_COMP_PLANE (&vf, c) == p && bytes == 0) {
        rows = GST_VIDEO_FRAME_COMP_HEIGHT (&vf, c);
        bytes = GST_VIDEO_FRAME_COMP_WIDTH (&vf, c) *
            GST_VIDEO_FRAME_COMP_PSTRIDE (&vf, c);
      }
    }
    if (GST_VIDEO_FORMAT_INFO_N_PLANES (info.finfo) == 2 && p == 1)
      bytes = GST_VIDEO_FRAME_WIDTH (&vf) + (GST_VIDEO_FRAME_WIDTH (&vf) & 1);
    for (row = 0; row < rows; row++)
      g_checksum_update (md5, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vf, p) +
          row * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, p), bytes);
  }
  gst_video_frame_unmap (&vf);
}

/* Called with each sample decode_full() pulls. */
typedef void (*DecodeSampleFunc) (GstSample * sample, gpointer data);

/* Runs "@desc ! appsink name=sink" to the end; hashes system-memory frames
 * and hands each sample to @func (nullable). */
static void
decode_full (const gchar * desc, DecodeResult * r, DecodeSampleFunc func,
    gpointer data)
{
  gchar *full = g_strdup_printf ("%s ! appsink name=sink sync=false", desc);
  GError *err = NULL;
  GstElement *p = gst_parse_launch (full, &err), *sink;
  GstCaps *last_caps = NULL;
  GstBus *bus;
  gint64 deadline = g_get_monotonic_time () + 60 * G_TIME_SPAN_SECOND;

  memset (r, 0, sizeof (*r));
  r->md5 = g_checksum_new (G_CHECKSUM_MD5);
  r->warnings = g_string_new (NULL);
  r->pts_monotonic = TRUE;
  r->last_pts = GST_CLOCK_TIME_NONE;
  fail_unless (p != NULL, "%s: %s", full, err ? err->message : "");
  sink = gst_bin_get_by_name (GST_BIN (p), "sink");
  bus = gst_element_get_bus (p);
  gst_element_set_state (p, GST_STATE_PLAYING);

  for (;;) {
    GstSample *s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
        100 * GST_MSECOND);
    GstMessage *msg;

    if (s) {
      GstBuffer *b = gst_sample_get_buffer (s);
      GstCaps *caps = gst_sample_get_caps (s);

      if (!last_caps || !gst_caps_is_equal (last_caps, caps)) {
        r->caps_changes++;
        gst_caps_replace (&last_caps, caps);
      }
      if (gst_is_avhw_memory (gst_buffer_peek_memory (b, 0)))
        r->device_memory = TRUE;
      else
        hash_frame (r->md5, s);
      if (GST_CLOCK_TIME_IS_VALID (r->last_pts)
          && GST_BUFFER_PTS (b) <= r->last_pts)
        r->pts_monotonic = FALSE;
      r->last_pts = GST_BUFFER_PTS (b);
      r->frames++;
      if (func)
        func (s, data);
      gst_sample_unref (s);
      continue;
    }
    while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR |
                GST_MESSAGE_WARNING))) {
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR && !r->error) {
        GError *e = NULL;
        gchar *dbg = NULL;
        gst_message_parse_error (msg, &e, &dbg);
        r->error = g_strdup_printf ("%s | %s", e->message, dbg);
        r->error_message = g_strdup (e->message);
        g_clear_error (&e);
        g_free (dbg);
      } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_WARNING) {
        GError *e = NULL;

        gst_message_parse_warning (msg, &e, NULL);
        g_string_append_printf (r->warnings, "%s\n", e->message);
        g_clear_error (&e);
        r->warned = TRUE;
      }
      gst_message_unref (msg);
    }
    if (r->error || gst_app_sink_is_eos (GST_APP_SINK (sink)))
      break;
    fail_unless (g_get_monotonic_time () < deadline, "%s: hang", desc);
  }
  gst_caps_replace (&last_caps, NULL);
  gst_element_set_state (p, GST_STATE_NULL);
  {
    GstElement *dec = gst_bin_get_by_name (GST_BIN (p), "dec");

    if (dec && g_object_class_find_property (G_OBJECT_GET_CLASS (dec),
            "active-decoder"))
      g_object_get (dec, "active-decoder", &r->decoder, "hardware",
          &r->hardware, NULL);
    if (dec && g_object_class_find_property (G_OBJECT_GET_CLASS (dec), "stats")) {
      GstStructure *st = NULL;

      g_object_get (dec, "stats", &st, NULL);
      fail_unless (st && gst_structure_get (st, "sessions", G_TYPE_UINT,
              &r->sessions, "segments", G_TYPE_UINT, &r->segments,
              "handovers", G_TYPE_UINT, &r->handovers, "joins", G_TYPE_UINT,
              &r->joins, NULL));
      gst_structure_free (st);
    }
    gst_clear_object (&dec);
  }
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (p);
  g_free (full);
}

G_GNUC_UNUSED static void
decode (const gchar * desc, DecodeResult * r)
{
  decode_full (desc, r, NULL, NULL);
}


/* Plays "@path (matroska, H.264, key frames every 0.4 s at 25 fps) !
 * avhwdec @opts ! avhwdownload" and makes a flushing key-unit seek to each
 * of @targets (seconds) in turn, the first in PAUSED; between two seeks
 * @between frames are pulled. After each seek, timestamps increase and
 * none is before the target less 0.4 s. Returns the frames from the last
 * seek to EOS. */
G_GNUC_UNUSED static guint
run_seeks (const gchar * path, const gchar * opts, const guint * targets,
    guint n_targets, guint between)
{
  gchar *desc = g_strdup_printf ("filesrc location=%s ! matroskademux ! "
      "h264parse ! avhwdec %s ! avhwdownload ! appsink name=sink sync=false",
      path, opts);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstClockTime last;
  GstSample *s;
  guint after = 0, i;

  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  fail_unless_equals_int (gst_element_get_state (pipe, NULL, NULL,
          30 * GST_SECOND), GST_STATE_CHANGE_SUCCESS);
  for (i = 0; i < n_targets; i++) {
    fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_KEY_UNIT,
            targets[i] * GST_SECOND));
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    after = 0;
    last = GST_CLOCK_TIME_NONE;
    while ((i + 1 == n_targets || after < between)
        && (s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
                10 * GST_SECOND))) {
      GstClockTime pts = GST_BUFFER_PTS (gst_sample_get_buffer (s));

      fail_unless (pts + 400 * GST_MSECOND >= targets[i] * GST_SECOND,
          "pts %" GST_TIME_FORMAT, GST_TIME_ARGS (pts));
      fail_unless (!GST_CLOCK_TIME_IS_VALID (last) || pts > last);
      last = pts;
      after++;
      gst_sample_unref (s);
    }
  }
  fail_unless (gst_app_sink_is_eos (GST_APP_SINK (sink)));
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (desc);
  return after;
}

/* atexit: the clips of @tmpdir and the folder. */
G_GNUC_UNUSED static void
remove_tmpdir (void)
{
  avhw_test_remove_dir (tmpdir);
}
