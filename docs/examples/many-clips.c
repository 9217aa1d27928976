/* many-clips.c: a folder of clips decoded by N pipelines at once in one
 * process, sharing one device and one decoder cache (docs/c-api.md).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Build against an installed gst-avhw:
 *   cc many-clips.c -o many-clips \
 *       $(pkg-config --cflags --libs gstreamer-avhw-1.0)
 * Run:  ./many-clips [-n N] [-d DEVICE] [-r ROUNDS] [--check] CLIP...
 *
 * N threads each take the next clip from one queue and run
 *   filesrc ! parsebin ! avhwdec device=DEVICE ! appsink
 * to its end: frames stay where the decoder made them (device memory on a
 * GPU). Every round decodes every clip once. With --check, frames go
 * through avhwdownload instead and each clip's MD5 over all rounds must
 * equal the first one's, and copies of one file (the same path listed
 * again) each other's. Prints clips/s per round and the decoder cache's
 * hits and misses: from the second round on, every pipeline finds its
 * decoder kept. Exit 0 when every clip decoded (and matched).
 */
#include <stdio.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/avhw/gstavhw.h>

typedef struct
{
  const gchar *path;
  gchar *md5;                   /* the first round's, with --check */
  guint frames;
  gboolean failed;
} Clip;

typedef struct
{
  GAsyncQueue *todo;            /* Clip* */
  const gchar *device;
  gboolean check;
} Work;

/* Decodes @clip to its end; its frame count and, with @check, the MD5 of
 * its frames in system memory. FALSE, having said why, on an error. */
static gboolean
decode (const Work * w, Clip * clip, gchar ** md5)
{
  gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! parsebin ! "
      "avhwdec device=%s ! %s appsink name=s sync=false", clip->path,
      w->device, w->check ? "avhwdownload !" : "");
  GError *err = NULL;
  GstElement *p = gst_parse_launch (desc, &err), *sink;
  GChecksum *sum = g_checksum_new (G_CHECKSUM_MD5);
  GstSample *sample;
  GstMessage *msg;
  gboolean eos = FALSE;
  guint n = 0;

  g_free (desc);
  if (!p) {
    g_printerr ("%s: %s\n", clip->path, err->message);
    g_clear_error (&err);
    g_checksum_free (sum);
    return FALSE;
  }
  sink = gst_bin_get_by_name (GST_BIN (p), "s");
  gst_element_set_state (p, GST_STATE_PLAYING);
  for (;;) {
    sample = NULL;
    g_signal_emit_by_name (sink, "try-pull-sample", 20 * GST_SECOND, &sample);
    if (!sample)
      break;
    if (w->check) {
      GstMapInfo map;
      GstBuffer *buf = gst_sample_get_buffer (sample);

      if (gst_buffer_map (buf, &map, GST_MAP_READ)) {
        g_checksum_update (sum, map.data, map.size);
        gst_buffer_unmap (buf, &map);
      }
    }
    gst_sample_unref (sample);
    n++;
  }
  g_object_get (sink, "eos", &eos, NULL);
  msg = gst_bus_pop_filtered (GST_ELEMENT_BUS (p), GST_MESSAGE_ERROR);
  if (msg || !eos) {
    if (msg)
      gst_message_parse_error (msg, &err, NULL);
    g_printerr ("%s: %s\n", clip->path,
        err ? err->message : "no frame for 20 s, and not at its end");
    g_clear_error (&err);
    gst_clear_message (&msg);
    eos = FALSE;
  }
  gst_element_set_state (p, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (p);
  clip->frames = n;
  *md5 = g_strdup (g_checksum_get_string (sum));
  g_checksum_free (sum);
  return eos;
}

/* One worker thread: clips from the queue until it is empty. */
static gpointer
worker (gpointer data)
{
  Work *w = data;
  Clip *clip;

  while ((clip = g_async_queue_try_pop (w->todo))) {
    gchar *md5 = NULL;

    if (!decode (w, clip, &md5)) {
      clip->failed = TRUE;
    } else if (w->check && !clip->md5) {
      clip->md5 = g_steal_pointer (&md5);
    } else if (w->check && strcmp (clip->md5, md5) != 0) {
      g_printerr ("%s: other frames than the first time (MD5 %s, was %s)\n",
          clip->path, md5, clip->md5);
      clip->failed = TRUE;
    }
    g_free (md5);
  }
  return NULL;
}

int
main (int argc, char **argv)
{
  gint n_threads = 4, rounds = 2;
  gchar *device = NULL;
  gboolean check = FALSE;
  gchar **paths = NULL;
  GOptionEntry entries[] = {
    {"threads", 'n', 0, G_OPTION_ARG_INT, &n_threads,
        "pipelines at once (default 4)", "N"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "avhw device (default auto)", "DEVICE"},
    {"rounds", 'r', 0, G_OPTION_ARG_INT, &rounds,
        "times every clip is decoded (default 2)", "ROUNDS"},
    {"check", 0, 0, G_OPTION_ARG_NONE, &check,
          "frames to system memory; every round's MD5 equal to the first's",
        NULL},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL,
        "CLIP..."},
    {NULL}
  };
  GOptionContext *opts = g_option_context_new ("CLIP... - decode clips, "
      "N pipelines at once");
  GError *err = NULL;
  GstAvhwDevice *dev;
  Clip *clips;
  guint n_clips, i, failed = 0;
  gint r, t;

  g_option_context_add_main_entries (opts, entries, NULL);
  g_option_context_add_group (opts, gst_init_get_option_group ());
  if (!g_option_context_parse (opts, &argc, &argv, &err) || !paths
      || n_threads < 1 || rounds < 1) {
    g_printerr ("%s\n", err ? err->message :
        "usage: many-clips [-n N] [-d DEVICE] [-r ROUNDS] [--check] CLIP...");
    return 2;
  }
  g_option_context_free (opts);
  gst_avhw_init ();
  /* The pipelines all name the device; the cache opens it once. */
  dev = gst_avhw_device_open (device ? device : "auto", NULL, &err);
  if (!dev) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  g_print ("device %s, %d pipelines at once\n",
      gst_avhw_device_get_name (dev), n_threads);
  n_clips = g_strv_length (paths);
  clips = g_new0 (Clip, n_clips);
  for (i = 0; i < n_clips; i++)
    clips[i].path = paths[i];

  for (r = 0; r < rounds; r++) {
    Work w = { g_async_queue_new (), gst_avhw_device_get_name (dev), check };
    GThread **threads = g_new0 (GThread *, n_threads);
    guint64 hits0, misses0, hits1, misses1, frames = 0;
    gint64 t0 = g_get_monotonic_time ();
    gdouble s;

    gst_avhw_cache_get_decoder_stats (NULL, &hits0, &misses0);
    for (i = 0; i < n_clips; i++)
      g_async_queue_push (w.todo, &clips[i]);
    for (t = 0; t < n_threads; t++)
      threads[t] = g_thread_new ("clips", worker, &w);
    for (t = 0; t < n_threads; t++)
      g_thread_join (threads[t]);
    s = (g_get_monotonic_time () - t0) / 1e6;
    gst_avhw_cache_get_decoder_stats (NULL, &hits1, &misses1);
    for (i = 0; i < n_clips; i++)
      frames += clips[i].frames;
    g_print ("round %d: %u clips, %" G_GUINT64_FORMAT " frames in %.3f s: "
        "%.1f clips/s; decoders kept and taken %" G_GUINT64_FORMAT
        ", opened %" G_GUINT64_FORMAT "\n", r + 1, n_clips, frames, s,
        n_clips / s, hits1 - hits0, misses1 - misses0);
    g_async_queue_unref (w.todo);
    g_free (threads);
  }

  for (i = 0; i < n_clips; i++) {
    guint j;

    /* the same file listed again: the same frames, whichever pipeline
     * (and device context) decoded it */
    for (j = 0; j < i && check && clips[i].md5; j++) {
      if (clips[j].md5 && strcmp (clips[j].path, clips[i].path) == 0
          && strcmp (clips[j].md5, clips[i].md5) != 0) {
        g_printerr ("%s: copy %u has other frames than copy %u (MD5 %s, "
            "%s)\n", clips[i].path, i, j, clips[i].md5, clips[j].md5);
        clips[i].failed = TRUE;
        break;
      }
    }
    failed += clips[i].failed;
  }
  for (i = 0; i < n_clips; i++)
    g_free (clips[i].md5);
  if (check && !failed)
    g_print ("check: every clip's frames alike in all %d rounds, and every "
        "copy of a file alike\n", rounds);
  g_free (clips);
  g_strfreev (paths);
  g_free (device);
  gst_object_unref (dev);
  gst_avhw_cache_clear ();
  return failed ? 1 : 0;
}
