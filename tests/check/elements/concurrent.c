/* gst-avhw tests: several pipelines decoding at once in one process, on
 * every backend present (they share one device and its frames contexts
 * through the cache)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "../avhw-test-utils.h"

#define N_PIPELINES 4
#define N_FRAMES 60

static gchar *clip;

/* A crash prints its stack, each frame as library + offset (and symbol
 * where exported), then dies of the same signal: on the GPU machine, which
 * has no debugger, this is what tells whose code crashed (run 23's exit
 * 139 was never seen again to be diagnosed). */
static void
print_stack (int sig)
{
  void *frames[64];
  int n = backtrace (frames, G_N_ELEMENTS (frames)), i;
  char line[512];

  snprintf (line, sizeof (line), "CRASH: signal %d (%s), %d frames:\n", sig,
      strsignal (sig), n);
  if (write (STDERR_FILENO, line, strlen (line)) < 0)
    return;
  for (i = 0; i < n; i++) {
    Dl_info info;
    gsize off;

    if (!dladdr (frames[i], &info) || !info.dli_fname) {
      snprintf (line, sizeof (line), "  #%d %p\n", i, frames[i]);
    } else {
      off = (gsize) ((char *) frames[i] - (char *) info.dli_fbase);
      snprintf (line, sizeof (line), "  #%d %s+0x%" G_GSIZE_MODIFIER "x "
          "(%s)\n", i, info.dli_fname, off, info.dli_sname ?
          info.dli_sname : "?");
    }
    if (write (STDERR_FILENO, line, strlen (line)) < 0)
      return;
  }
}

static void
on_crash (int sig)
{
  print_stack (sig);
  signal (sig, SIG_DFL);
  raise (sig);
}

static void
make_clip (void)
{
  gchar *dir = g_dir_make_tmp ("avhw-concurrent-XXXXXX", NULL);
  gchar *desc;
  GstElement *p;

  clip = g_build_filename (dir, "clip.h264", NULL);
  desc = g_strdup_printf ("videotestsrc num-buffers=%d ! "
      "video/x-raw,format=I420,width=320,height=240 ! x264enc "
      "speed-preset=ultrafast bframes=2 ! h264parse ! "
      "video/x-h264,stream-format=byte-stream ! filesink location=%s",
      N_FRAMES, clip);
  p = gst_parse_launch (desc, NULL);
  avhw_test_play_to_eos (p);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  g_free (desc);
  g_free (dir);
}

/* N pipelines at once, decoded frames kept in device memory (so software
 * fallback uploads run concurrently) and then downloaded. */
static void
run_concurrently (const gchar * backend)
{
  GstElement *p[N_PIPELINES];
  guint i;

  for (i = 0; i < N_PIPELINES; i++) {
    gchar *desc = g_strdup_printf ("filesrc location=%s ! h264parse ! "
        "avhwdec device=%s ! queue ! avhwdownload ! fakesink name=sink",
        clip, backend);
    p[i] = gst_parse_launch (desc, NULL);
    fail_unless (p[i] != NULL);
    g_free (desc);
  }
  for (i = 0; i < N_PIPELINES; i++)
    gst_element_set_state (p[i], GST_STATE_PLAYING);
  for (i = 0; i < N_PIPELINES; i++) {
    GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p[i]),
        60 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (p[i]), "sink");
    GstStructure *stats = NULL;
    guint64 rendered = 0;

    fail_unless (msg != NULL, "%s pipeline %u: no EOS in 60 s", backend, i);
    fail_unless (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
        "%s pipeline %u failed", backend, i);
    gst_message_unref (msg);
    g_object_get (sink, "stats", &stats, NULL);
    gst_structure_get_uint64 (stats, "rendered", &rendered);
    fail_unless_equals_uint64 (rendered, N_FRAMES);
    gst_structure_free (stats);
    gst_object_unref (sink);
    gst_element_set_state (p[i], GST_STATE_NULL);
    gst_object_unref (p[i]);
  }
}

GST_START_TEST (test_concurrent_decoders)
{
  GList *list = gst_avhw_backend_list (), *l;
  guint round, ran = 0;

  make_clip ();
  for (l = list; l; l = l->next) {
    const gchar *name = gst_avhw_backend_get_name (l->data);

    if (gst_avhw_backend_get_n_devices (l->data, NULL) == 0)
      continue;
    /* Races show up in some runs only: several rounds. */
    for (round = 0; round < 3; round++)
      run_concurrently (name);
    g_print ("%s: %d pipelines at once, 3 rounds, every frame out\n", name,
        N_PIPELINES);
    ran++;
  }
  fail_unless (ran > 0);
  g_list_free_full (list, gst_object_unref);
}

GST_END_TEST;

static Suite *
concurrent_suite (void)
{
  Suite *s = suite_create ("avhw-concurrent");
  TCase *tc = tcase_create ("general");
  GstElementFactory *x264 = gst_element_factory_find ("x264enc");

  signal (SIGSEGV, on_crash);
  signal (SIGBUS, on_crash);
  signal (SIGABRT, on_crash);
  avhw_test_require_device ("auto");
  if (!x264) {
    g_print ("SKIP: needs x264enc (gst-plugins-ugly) to make a clip\n");
    exit (77);
  }
  gst_object_unref (x264);
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_concurrent_decoders);
  return s;
}

GST_CHECK_MAIN (concurrent);
