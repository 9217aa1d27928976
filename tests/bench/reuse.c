/* gst-avhw benchmark: the reuse scenario (issue 8, item 1)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One process builds, runs to EOS and tears down N pipelines in a row,
 *
 *   filesrc location=FILE ! parsebin ! avhwdec device=D ! avhwdownload device=D ! fakesink
 *
 * and prints, per iteration, the wall time (build to teardown, without the
 * NVML queries, which run between EOS and teardown and are not timed) and its
 * phases: build (gst_parse_launch), time to first frame (set_state PLAYING to
 * the first buffer at the sink's pad), decode (first buffer to EOS on the bus)
 * and teardown (set_state NULL and unref); the
 * frames, the device memory in use after teardown and at EOS (NVML: this
 * process, and the whole GPU), the avhw device context id the decoder used
 * and, on CUDA, whether the GPU's primary context is still active after
 * teardown. Device reuse follows GST_AVHW_REUSE (run once with it unset and
 * once with GST_AVHW_REUSE=0). Markdown on stdout; --csv FILE for a plot.
 *
 *   reuse [-n N] [-d DEVICE] [--sink DESC] [--csv FILE] [--label L]
 *     [--decoders-limit N] [--loops K] FILE...
 *
 * With several FILEs the iterations take them in turn (issue 30, item 5:
 * distinct clips on one kept decoder); each row names its file and whether
 * avhwdec took a kept decoder, and the summary gives the time to the first
 * frame over the passes after the first.
 *
 * With --loops K, K - 1 more threads run the same pipelines over the same
 * files, one after another, from before the first timed iteration to after
 * the last (issue 32: where a clip's time goes when K run at once); the
 * timed rows are the main thread's, and the summary adds what the other
 * loops decoded meanwhile (the rows' decoder column then counts every
 * loop's cache hits).
 *
 * A benchmark, not a test: it never fails on a slow number, only when a
 * pipeline errors or stalls.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/avhw/gstavhw-impl.h>
#include "bench-common.h"

typedef struct
{
  GMutex lock;
  gdouble t_first;
  guint frames;
} Probe;

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Probe *p = data;

  g_mutex_lock (&p->lock);
  if (p->frames++ == 0)
    p->t_first = bench_now_s ();
  g_mutex_unlock (&p->lock);
  return GST_PAD_PROBE_OK;
}

/* The K - 1 loops of --loops: the timed loop's pipelines, untimed. */
typedef struct
{
  const gchar *tail;            /* the pipeline after the file's name */
  gchar **files;
  guint n_files, offset;
  volatile gint *stop;
  guint clips, failures;
} Loop;

static gpointer
run_loop (gpointer data)
{
  Loop *l = data;
  guint i = l->offset;

  while (!g_atomic_int_get (l->stop)) {
    gchar *desc = g_strconcat ("filesrc location=\"",
        l->files[i++ % l->n_files], l->tail, NULL);
    GstElement *p = gst_parse_launch (desc, NULL);
    GstMessage *msg = NULL;

    g_free (desc);
    if (!p) {
      l->failures++;
      break;
    }
    gst_element_set_state (p, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (p), 120 * GST_SECOND,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    gst_element_set_state (p, GST_STATE_NULL);
    gst_object_unref (p);
    if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
      l->clips++;
    else
      l->failures++;
    if (msg)
      gst_message_unref (msg);
  }
  return NULL;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

static gdouble
median (gdouble * v, guint n)
{
  gdouble *c;
  gdouble m;

  if (n == 0)
    return -1;
  c = g_memdup2 (v, n * sizeof (gdouble));
  qsort (c, n, sizeof (gdouble), cmp_double);
  m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
  g_free (c);
  return m;
}

int
main (int argc, char **argv)
{
  gint iterations = 20;
  gchar *device = g_strdup ("auto");
  gchar *sink = NULL, *dec_opts = NULL;
  gint decoders_limit = -1, n_loops = 1;
  gchar *csv_path = NULL, *label = NULL;
  GOptionEntry entries[] = {
    {"iterations", 'n', 0, G_OPTION_ARG_INT, &iterations,
        "pipelines built, run and torn down (default 20)", "N"},
    {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
        "avhwdec device (default auto)", "D"},
    {"decoders-limit", 0, 0, G_OPTION_ARG_INT, &decoders_limit,
        "decoders the cache keeps per device (default: the library's)", "N"},
    {"dec-opts", 0, 0, G_OPTION_ARG_STRING, &dec_opts,
        "more avhwdec properties (\"parallel=7 max-buffered=2048\")", "P"},
    {"sink", 's', 0, G_OPTION_ARG_STRING, &sink,
          "what follows avhwdec; its sink must be named 'sink' "
          "(default: avhwdownload device=D ! fakesink name=sink sync=false)",
        "DESC"},
    {"loops", 'k', 0, G_OPTION_ARG_INT, &n_loops,
        "loops at once: K - 1 more threads run the same pipelines, "
          "untimed, while the main one is timed (default 1)", "K"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv_path,
        "also write the rows as CSV", "FILE"},
    {"label", 'l', 0, G_OPTION_ARG_STRING, &label,
        "label for the CSV rows (default: reuse-on / reuse-off)", "L"},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("FILE... - the reuse scenario");
  GError *err = NULL;
  FILE *csv = NULL;
  gdouble *ttff, *wall, *build, *decode, *down, t_main = bench_now_s ();
  gdouble mem0_proc, mem0_gpu, first_after = -1, second_after = -1;
  gdouble last_after = -1, max_after = -1;
  GHashTable *ctx_ids = g_hash_table_new_full (g_int64_hash, g_int64_equal,
      g_free, NULL);
  guint distinct_ctx, failures = 0, n_devices = 0, n_frames = 0;
  guint64 n_opens = 0, n_frames_created = 0;
  gboolean cuda, reuse;
  guint cuda_index = 0, n_files;
  gdouble *later = NULL;
  guint n_later = 0;
  Loop *loops;
  GThread **threads;
  gchar *loop_tail;
  volatile gint stop = 0;
  guint loop_clips = 0;
  gdouble t_loops, loops_s;
  gint i;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err) || argc < 2
      || iterations < 1 || n_loops < 1) {
    g_printerr ("%s\n", err ? err->message :
        "usage: reuse [-n N] [-d DEVICE] [--sink DESC] [--csv FILE] "
        "[--decoders-limit N] [--loops K] FILE...");
    return 2;
  }
  n_files = (guint) argc - 1;
  g_option_context_free (octx);
  /* the downloader on the decoder's device: with device=auto it would open
   * the best device at READY, before avhwdec has its own (elements.md) */
  if (!sink)
    sink = g_strdup_printf ("avhwdownload device=%s ! fakesink name=sink "
        "sync=false", device);
  gst_init (NULL, NULL);
  gst_avhw_init ();
  if (decoders_limit >= 0)
    gst_avhw_cache_set_decoders_limit ((guint) decoders_limit);

  reuse = gst_avhw_cache_get_reuse ();
  if (!label)
    label = g_strdup (reuse ? "reuse-on" : "reuse-off");
  cuda = g_str_has_prefix (device, "cuda");
  if (cuda && device[4] == ':')
    cuda_index = (guint) atoi (device + 5);
  bench_nvml_init (cuda_index);
  mem0_proc = bench_proc_used_mib ();
  mem0_gpu = bench_gpu_used_mib ();
  if (csv_path) {
    csv = fopen (csv_path, "a");
    if (!csv) {
      g_printerr ("cannot write %s\n", csv_path);
      return 2;
    }
  }

  g_print ("## reuse: %d pipelines in one process, device=%s, reuse %s "
      "(GST_AVHW_REUSE=%s)\n\n", iterations, device, reuse ? "on" : "off",
      g_getenv ("GST_AVHW_REUSE") ? g_getenv ("GST_AVHW_REUSE") : "unset");
  g_print ("`filesrc location=%s%s ! parsebin ! avhwdec device=%s %s ! %s`"
      "\n\n", argv[1], n_files > 1 ? " (and the other files in turn)" : "",
      device, dec_opts ? dec_opts : "", sink);
  g_print ("device memory before the first pipeline: process %s MiB, "
      "GPU %s MiB\n\n", bench_fmt (mem0_proc, "%.0f"),
      bench_fmt (mem0_gpu, "%.0f"));
  g_print ("| iter | wall ms | build ms | TTFF ms | decode ms | teardown ms | "
      "frames | dev MiB at EOS (process) | dev MiB after teardown (process) | "
      "GPU MiB after | device ctx id | CUDA primary ctx after | decoder | "
      "file |\n");
  g_print ("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
      "---: | ---: | --- | --- | --- |\n");

  loops = g_new0 (Loop, n_loops);
  threads = g_new0 (GThread *, n_loops);
  loop_tail = g_strdup_printf ("\" ! parsebin ! avhwdec device=%s %s ! %s",
      device, dec_opts ? dec_opts : "", sink);
  for (i = 1; i < n_loops; i++) {
    loops[i].tail = loop_tail;
    loops[i].files = argv + 1;
    loops[i].n_files = n_files;
    loops[i].offset = (guint) i;
    loops[i].stop = &stop;
    threads[i] = g_thread_new ("loop", run_loop, &loops[i]);
  }
  t_loops = bench_now_s ();

  ttff = g_new0 (gdouble, iterations);
  wall = g_new0 (gdouble, iterations);
  build = g_new0 (gdouble, iterations);
  decode = g_new0 (gdouble, iterations);
  down = g_new0 (gdouble, iterations);
  later = g_new0 (gdouble, iterations);
  for (i = 0; i < iterations; i++) {
    const gchar *file = argv[1 + (guint) i % n_files];
    gchar *desc = g_strdup_printf ("filesrc location=\"%s\" ! parsebin ! "
        "avhwdec name=dec device=%s %s ! %s", file, device,
        dec_opts ? dec_opts : "", sink);
    gchar *base = g_path_get_basename (file);
    guint64 hits0, hits1, misses0, misses1;
    Probe probe = { 0 };
    GstElement *pipeline, *sinkel, *dec;
    GstPad *pad;
    GstMessage *msg;
    GstAvhwDevice *active = NULL;
    gdouble t0, t_built, t_play, t_eos, t_down, t_end;
    gdouble mem_eos, mem_after, gpu_after;
    guint64 ctx_id = 0;
    gint primary = -1;
    gchar *a, *b, *c, *t;
    gboolean ok = TRUE;

    g_mutex_init (&probe.lock);
    gst_avhw_cache_get_decoder_stats (NULL, &hits0, &misses0);
    t0 = bench_now_s ();
    pipeline = gst_parse_launch (desc, &err);
    if (!pipeline) {
      g_printerr ("cannot build the pipeline: %s\n", err->message);
      return 1;
    }
    t_built = bench_now_s ();
    sinkel = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    dec = gst_bin_get_by_name (GST_BIN (pipeline), "dec");
    if (!sinkel || !dec) {
      g_printerr ("%s\n", dec ? "the sink must be named 'sink'" :
          "no avhwdec named 'dec' in the pipeline");
      return 2;
    }
    pad = gst_element_get_static_pad (sinkel, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &probe, NULL);
    gst_object_unref (pad);

    t_play = bench_now_s ();
    gst_element_set_state (pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipeline),
        120 * GST_SECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    t_eos = bench_now_s ();
    if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gchar *dbg = NULL;

      if (msg)
        gst_message_parse_error (msg, &e, &dbg);
      g_printerr ("iteration %d: %s (%s)\n", i + 1, e ? e->message :
          "no EOS in 120 s", dbg ? dbg : "");
      g_clear_error (&e);
      g_free (dbg);
      ok = FALSE;
      failures++;
    }
    if (msg)
      gst_message_unref (msg);
    mem_eos = bench_proc_used_mib ();
    gst_avhw_cache_get_decoder_stats (NULL, &hits1, &misses1);
    g_object_get (dec, "active-device", &active, NULL);
    if (active) {
      ctx_id = gst_avhw_device_get_context_id (active);
      gst_object_unref (active);
    }
    gst_object_unref (dec);
    gst_object_unref (sinkel);
    t_down = bench_now_s ();
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (pipeline);
    t_end = bench_now_s ();
    mem_after = bench_proc_used_mib ();
    gpu_after = bench_gpu_used_mib ();
    if (cuda)
      primary = bench_cuda_primary_active (cuda_index);

    if (ctx_id)
      g_hash_table_add (ctx_ids, g_memdup2 (&ctx_id, sizeof (ctx_id)));
    ttff[i] = probe.frames ? (probe.t_first - t_play) * 1e3 : -1;
    wall[i] = (t_eos - t0 + t_end - t_down) * 1e3;
    build[i] = (t_built - t0) * 1e3;
    decode[i] = probe.frames ? (t_eos - probe.t_first) * 1e3 : -1;
    down[i] = (t_end - t_down) * 1e3;
    n_frames = probe.frames;
    if ((guint) i >= n_files && ok)
      later[n_later++] = ttff[i];
    if (i == 0)
      first_after = mem_after;
    if (i == 1)
      second_after = mem_after;
    last_after = mem_after;
    max_after = MAX (max_after, mem_after);

    a = bench_fmt (mem_eos, "%.0f");
    b = bench_fmt (mem_after, "%.0f");
    c = bench_fmt (gpu_after, "%.0f");
    t = bench_fmt (ok ? ttff[i] : -1, "%.1f");
    g_print ("| %d | %.1f | %.1f | %s | %.1f | %.1f | %u | %s | %s | %s | %"
        G_GUINT64_FORMAT " | %s | %s | %s |\n", i + 1, wall[i], build[i], t,
        decode[i], down[i], probe.frames, a, b, c, ctx_id, primary < 0 ? "-" :
        primary ? "active" : "released", hits1 > hits0 ? "kept" :
        misses1 > misses0 ? "opened" : "-", base);
    if (csv)
      fprintf (csv, "%s,%d,%.3f,%.3f,%u,%s,%s,%s,%" G_GUINT64_FORMAT ",%d,"
          "%.3f,%.3f,%.3f\n", label, i + 1, wall[i], ttff[i], probe.frames, a,
          b, c, ctx_id, primary, build[i], decode[i], down[i]);
    g_free (t);
    g_free (a);
    g_free (b);
    g_free (c);
    g_free (desc);
    g_free (base);
    g_mutex_clear (&probe.lock);
  }

  g_atomic_int_set (&stop, 1);
  for (i = 1; i < n_loops; i++) {
    g_thread_join (threads[i]);
    loop_clips += loops[i].clips;
    failures += loops[i].failures;
  }
  loops_s = bench_now_s () - t_loops;
  if (n_loops > 1)
    g_print ("\n%d more loops at once: %u clips in %.2f s (%.1f clips/s; "
        "all %d loops ~%.1f clips/s), %u failed\n", n_loops - 1, loop_clips,
        loops_s, loop_clips / loops_s, n_loops,
        (loop_clips + iterations) / loops_s, failures);
  g_free (loop_tail);
  g_free (loops);
  g_free (threads);

  gst_avhw_cache_get_stats (&n_devices, NULL, &n_opens, &n_frames_created);
  /* Ids are context addresses: a freed context's address can come back, so
   * the cache's count of device opens is the one to trust. */
  distinct_ctx = g_hash_table_size (ctx_ids);
  {
    gdouble m_ttff = iterations > 1 ? median (ttff + 1, iterations - 1) : -1;
    gdouble m_wall = iterations > 1 ? median (wall + 1, iterations - 1) : -1;
    gdouble m_build = iterations > 1 ? median (build + 1, iterations - 1) : -1;
    gdouble m_decode = iterations > 1 ?
        median (decode + 1, iterations - 1) : -1;
    gdouble m_down = iterations > 1 ? median (down + 1, iterations - 1) : -1;
    gchar *g = bench_fmt (second_after >= 0 && last_after >= 0 ?
        last_after - second_after : -1, "%+.0f");
    gchar *f = bench_fmt (first_after, "%.0f");
    gchar *mx = bench_fmt (max_after, "%.0f");
    guint kept;
    guint64 hits, misses;

    g_print ("\nsummary (%s): first TTFF %.1f ms, median TTFF of iterations "
        "2..%d %.1f ms (first/median %.1fx; target >= 5x with reuse on); "
        "first wall %.1f ms, median wall 2..%d %.1f ms; device memory after "
        "teardown (process): first %s MiB, max %s MiB, growth from iteration "
        "2 to %d %s MiB; %u distinct device context address(es) seen by avhwdec; "
        "cache: %" G_GUINT64_FORMAT " device open(s), %" G_GUINT64_FORMAT
        " frames context(s) created; %u frames per iteration; %u failed "
        "iteration(s); process %.1f s\n", label, ttff[0], iterations, m_ttff,
        m_ttff > 0 ? ttff[0] / m_ttff : 0, wall[0], iterations, m_wall, f, mx,
        iterations, g, distinct_ctx, n_opens, n_frames_created, n_frames,
        failures, bench_now_s () - t_main);
    gst_avhw_cache_get_decoder_stats (&kept, &hits, &misses);
    g_print ("phases, median of iterations 2..%d: build %.1f ms, TTFF %.1f "
        "ms, decode (first frame to EOS) %.1f ms, teardown %.1f ms; %.1f "
        "clips/s in a row; decoder cache: %" G_GUINT64_FORMAT " hit(s), %"
        G_GUINT64_FORMAT " miss(es), %u kept\n", iterations, m_build, m_ttff,
        m_decode, m_down, m_wall > 0 ? 1e3 / m_wall : 0, hits, misses, kept);
    g_print ("RESULT label=%s iterations=%d ttff_first_ms=%.1f "
        "ttff_median_ms=%.1f wall_first_ms=%.1f wall_median_ms=%.1f "
        "build_median_ms=%.1f decode_median_ms=%.1f teardown_median_ms=%.1f "
        "clips_per_s=%.1f decoder_hits=%" G_GUINT64_FORMAT " "
        "mem_after_first_mib=%s mem_after_max_mib=%s mem_growth_mib=%s "
        "distinct_ctx=%u device_opens=%" G_GUINT64_FORMAT " failures=%u\n",
        label, iterations, ttff[0], m_ttff, wall[0], m_wall, m_build,
        m_decode, m_down, m_wall > 0 ? 1e3 / m_wall : 0, hits, f, mx, g,
        distinct_ctx, n_opens, failures);
    g_free (g);
    g_free (f);
    g_free (mx);
  }
  if (n_files > 1 && n_later > 0) {
    gdouble mx = 0;
    guint j;

    for (j = 0; j < n_later; j++)
      mx = MAX (mx, later[j]);
    g_print ("%u files in turn: TTFF over the passes after the first (%u "
        "pipelines): median %.1f ms, max %.1f ms\n", n_files, n_later,
        median (later, n_later), mx);
    g_print ("RESULT label=%s files=%u ttff_later_median_ms=%.1f "
        "ttff_later_max_ms=%.1f\n", label, n_files, median (later, n_later),
        mx);
  }
  if (csv)
    fclose (csv);
  g_hash_table_unref (ctx_ids);
  g_free (ttff);
  g_free (wall);
  g_free (build);
  g_free (decode);
  g_free (down);
  g_free (later);
  return failures ? 1 : 0;
}
