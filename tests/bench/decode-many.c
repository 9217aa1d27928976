/* gst-avhw: run many gst-launch descriptions one after the other in ONE
 * process, as an application decoding file after file does (devices and
 * decoders kept from one pipeline to the next). For conformance runs where
 * PyGObject is missing (tests/gpu/conformance-gst.sh --one-process).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   avhw-decode-many [--timeout S] [--decoders-limit N] LIST
 *
 * LIST has one job a line: LOG<TAB>DESCRIPTION. For each job, in order, it
 * runs DESCRIPTION to EOS or error and writes into LOG what `gst-launch-1.0
 * -v` would for the conformance scripts: the caps of every pad named
 * NAME.GstPad:sink where NAME is an element named "vcts" ("vcts.GstPad:sink:
 * caps = ..."), an error as "ERROR: from element PATH: MESSAGE" with
 * "Additional debug info:" and its text, and into LOG.rc the exit status
 * gst-launch would have (0 EOS, 1 error) and the seconds it took. A job that
 * does not end within S seconds (default 60) writes 124 and ends the process
 * (a hung pipeline cannot be torn down safely). Last line on stdout: the
 * decoder cache's hits, misses and kept decoders.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/avhw/gstavhw-impl.h>

static void
on_caps (GstPad * pad, GParamSpec * pspec, FILE * log)
{
  GstCaps *caps = gst_pad_get_current_caps (pad);
  gchar *s;

  if (!caps)
    return;
  s = gst_caps_to_string (caps);
  fprintf (log, "/GstPipeline:pipeline0/GstVideoCodecTestSink:vcts."
      "GstPad:sink: caps = %s\n", s);
  fflush (log);
  g_free (s);
  gst_caps_unref (caps);
}

static void
write_rc (const gchar * log_path, gint rc, gdouble secs)
{
  gchar *path = g_strdup_printf ("%s.rc", log_path);
  FILE *f = fopen (path, "w");

  if (f) {
    fprintf (f, "%d %.2f\n", rc, secs);
    fclose (f);
  }
  g_free (path);
}

/* Runs one job; returns FALSE when it hung (the process must end). */
static gboolean
run_job (const gchar * log_path, const gchar * desc, gint timeout_s)
{
  FILE *log = fopen (log_path, "w");
  GError *err = NULL;
  GstElement *p, *vcts;
  GstMessage *msg;
  gint64 t0 = g_get_monotonic_time ();
  gint rc = 0;

  if (!log) {
    g_printerr ("cannot write %s\n", log_path);
    return TRUE;
  }
  p = gst_parse_launch (desc, &err);
  if (!p) {
    fprintf (log, "ERROR: from element /GstPipeline:pipeline0: %s\n"
        "Additional debug info:\ncould not build \"%s\"\n", err->message, desc);
    g_clear_error (&err);
    fclose (log);
    write_rc (log_path, 1, 0);
    return TRUE;
  }
  g_clear_error (&err);         /* a warning about a missing property */
  vcts = gst_bin_get_by_name (GST_BIN (p), "vcts");
  if (vcts) {
    GstPad *pad = gst_element_get_static_pad (vcts, "sink");

    g_signal_connect (pad, "notify::caps", G_CALLBACK (on_caps), log);
    gst_object_unref (pad);
    gst_object_unref (vcts);
  }
  gst_element_set_state (p, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p),
      (GstClockTime) timeout_s * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (!msg) {
    fprintf (log, "no EOS in %d s\n", timeout_s);
    fclose (log);
    write_rc (log_path, 124, (g_get_monotonic_time () - t0) / 1e6);
    return FALSE;
  }
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gchar *dbg = NULL, *path = gst_object_get_path_string (msg->src);

    gst_message_parse_error (msg, &err, &dbg);
    fprintf (log, "ERROR: from element %s: %s\nAdditional debug info:\n%s\n",
        path, err->message, dbg ? dbg : "");
    g_free (path);
    g_free (dbg);
    g_clear_error (&err);
    rc = 1;
  }
  gst_message_unref (msg);
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (p);
  fclose (log);
  write_rc (log_path, rc, (g_get_monotonic_time () - t0) / 1e6);
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint timeout_s = 60, limit = -1;
  GOptionEntry entries[] = {
    {"timeout", 't', 0, G_OPTION_ARG_INT, &timeout_s,
        "seconds per job (default 60)", "S"},
    {"decoders-limit", 0, 0, G_OPTION_ARG_INT, &limit,
        "gst_avhw_cache_set_decoders_limit() (default: the library's)", "N"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("LIST - jobs in one process");
  GError *err = NULL;
  gchar *text = NULL, **lines;
  guint i, n = 0, kept;
  guint64 hits, misses;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err) || argc != 2
      || timeout_s < 1) {
    g_printerr ("%s\n", err ? err->message :
        "usage: avhw-decode-many [--timeout S] [--decoders-limit N] LIST");
    return 2;
  }
  g_option_context_free (octx);
  if (!g_file_get_contents (argv[1], &text, NULL, &err)) {
    g_printerr ("%s\n", err->message);
    return 2;
  }
  gst_init (NULL, NULL);
  gst_avhw_init ();
  if (limit >= 0)
    gst_avhw_cache_set_decoders_limit ((guint) limit);

  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    gchar *tab = strchr (lines[i], '\t');

    if (!tab)
      continue;
    *tab = '\0';
    n++;
    if (!run_job (lines[i], tab + 1, timeout_s)) {
      g_print ("job %u (%s) hung: ending the process\n", n, lines[i]);
      fflush (stdout);
      _Exit (124);
    }
  }
  gst_avhw_cache_get_decoder_stats (&kept, &hits, &misses);
  g_print ("%u job(s); decoder cache: %" G_GUINT64_FORMAT " hits, %"
      G_GUINT64_FORMAT " misses, %u kept (limit %u per device)\n", n, hits,
      misses, kept, gst_avhw_cache_get_decoders_limit ());
  g_strfreev (lines);
  g_free (text);
  gst_avhw_cache_clear ();
  return 0;
}
