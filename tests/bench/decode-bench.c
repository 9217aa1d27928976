/* gst-avhw benchmark: decode throughput of K concurrent pipelines in one
 * process (issue 8, items 2 to 5)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   decode-bench [-k K] [--label L] "DESCRIPTION"
 *   decode-bench [-k K] [--label L] --frames N --exec -- COMMAND [ARGS...]
 *
 * DESCRIPTION is a gst-launch description whose sink is named "sink", e.g.
 *   "filesrc location=in.mp4 ! parsebin ! avhwdec device=cuda:0 ! fakesink name=sink sync=false"
 * K copies are built, set to PLAYING one after the other and run to EOS
 * together. It reports: frames, wall time from the first set_state(PLAYING)
 * to the last EOS at a sink, aggregate fps over that time, "steady" fps
 * (first frame anywhere to last EOS: leaves out start-up), the slowest time
 * to first frame, the process's whole run time (gst_init and plugin loading
 * included, as a `time ffmpeg ...` would count), CPU time per frame
 * (user + system, whole process) and the peak device memory of the process
 * (NVML, sampled every 20 ms; "-" without an NVIDIA driver or with
 * --no-memory); the RESULT line also has eos_proc_mib, what the process
 * holds once every pipeline reached EOS (before teardown; -1: unknown).
 * With --exec it runs K copies of COMMAND (e.g. ffmpeg) as child processes
 * at once instead, and reports their wall time (start to the last exit), the
 * CPU time of the children, and the peak of their summed device memory;
 * --frames gives the frames one copy decodes. fps then counts from process
 * start (start-up included), as "process s" does for pipelines.
 * With --lanes N (and --lane-device DEV, default cuda:0) the pipelines are
 * given N devices opened on DEV in turn through a GstContext: the first as
 * the cache opens it, the others with --lane-options (creation options,
 * e.g. "primary_ctx=0" for a CUDA context of their own) and a field "lane"
 * that keeps each apart in the cache: do decoders spread over more device
 * contexts use the engines better (issue 32)?
 * Output: one Markdown row (--header prints the header) and a RESULT line.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/wait.h>
#include <gst/gst.h>
#include <gst/avhw/gstavhw.h>
#include "bench-common.h"

typedef struct
{
  GMutex lock;
  gdouble t_first, t_eos;
  guint frames;
} Stream;

static GstPadProbeReturn
on_data (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Stream *s = data;

  g_mutex_lock (&s->lock);
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    if (s->frames++ == 0)
      s->t_first = bench_now_s ();
  } else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_EOS) {
    s->t_eos = bench_now_s ();
  }
  g_mutex_unlock (&s->lock);
  return GST_PAD_PROBE_OK;
}

static volatile gint sampling = 1;
static gdouble peak_proc = -1, peak_gpu = -1;
static pid_t *children;
static gint n_children;

/* summed device memory of the children, MiB; -1 when unknown */
static gdouble
children_used_mib (void)
{
  BenchNvmlProcessInfo infos[256];
  unsigned int n = G_N_ELEMENTS (infos), i;
  gdouble sum = 0;
  gint c;

  if (!bench_nvml.ok || !bench_nvml.get_procs)
    return -1;
  memset (infos, 0, sizeof (infos));
  if (bench_nvml.get_procs (bench_nvml.dev, &n, infos) != 0)
    return -1;
  for (i = 0; i < n && i < G_N_ELEMENTS (infos); i++)
    for (c = 0; c < n_children; c++)
      if (children[c] > 0 && infos[i].pid == (unsigned int) children[c])
        sum += infos[i].usedGpuMemory / (gdouble) (1 << 20);
  return sum;
}

static gpointer
sampler (gpointer data)
{
  while (g_atomic_int_get (&sampling)) {
    gdouble p = n_children ? children_used_mib () : bench_proc_used_mib ();
    gdouble g = bench_gpu_used_mib ();

    peak_proc = MAX (peak_proc, p);
    peak_gpu = MAX (peak_gpu, g);
    g_usleep (20000);
  }
  return NULL;
}

int
main (int argc, char **argv)
{
  gdouble t_main = bench_now_s ();
  gint k = 1, gpu = 0, timeout = 300;
  gboolean header = FALSE, exec = FALSE, no_memory = FALSE;
  gint exec_frames = 0, n_lanes = 0;
  gchar *label = NULL, *rlabel, *lane_device = NULL, *lane_options = NULL;
  GstAvhwDevice **lanes = NULL;
  GOptionEntry entries[] = {
    {"streams", 'k', 0, G_OPTION_ARG_INT, &k, "concurrent pipelines "
          "(default 1)", "K"},
    {"label", 'l', 0, G_OPTION_ARG_STRING, &label, "row label", "L"},
    {"gpu", 0, 0, G_OPTION_ARG_INT, &gpu, "NVML index for memory "
          "(default 0)", "N"},
    {"timeout", 0, 0, G_OPTION_ARG_INT, &timeout, "seconds (default 300)",
        "S"},
    {"header", 0, 0, G_OPTION_ARG_NONE, &header, "print the table header "
          "first", NULL},
    {"exec", 0, 0, G_OPTION_ARG_NONE, &exec, "run K copies of the command "
          "after -- as child processes", NULL},
    {"frames", 0, 0, G_OPTION_ARG_INT, &exec_frames, "with --exec: frames "
          "one copy decodes", "N"},
    {"lanes", 0, 0, G_OPTION_ARG_INT, &n_lanes, "give the pipelines N "
          "devices in turn (see above)", "N"},
    {"lane-device", 0, 0, G_OPTION_ARG_STRING, &lane_device, "the lanes' "
          "device (default cuda:0)", "DEV"},
    {"lane-options", 0, 0, G_OPTION_ARG_STRING, &lane_options, "creation "
          "options of lanes 2..N, as structure fields", "F=V,..."},
    {"no-memory", 0, 0, G_OPTION_ARG_NONE, &no_memory, "do not sample "
          "device memory (NVML calls take driver locks)", NULL},
    {NULL}
  };
  GOptionContext *octx = g_option_context_new ("\"DESCRIPTION\"");
  GError *err = NULL;
  GstElement **pipes;
  Stream *streams;
  GThread *thr;
  gdouble t_start, t_end = 0, first = 0, cpu0, cpu1, mem0, held = -1;
  gdouble wall, steady_wall, ttff_max = 0;
  guint64 frames = 0;
  guint failures = 0;
  gchar *pm, *gm;
  gint i;

  g_option_context_add_main_entries (octx, entries, NULL);
  g_option_context_add_group (octx, gst_init_get_option_group ());
  if (!g_option_context_parse (octx, &argc, &argv, &err) || k < 1) {
    g_printerr ("%s\n", err ? err->message :
        "usage: decode-bench [-k K] [--label L] \"DESCRIPTION\"");
    return 2;
  }
  g_option_context_free (octx);
  /* GLib leaves a "--" in argv when options follow it */
  if (argc > 1 && g_str_equal (argv[1], "--")) {
    argv++;
    argc--;
  }
  if (exec ? argc < 2 : argc != 2) {
    g_printerr ("usage: decode-bench [-k K] [--label L] \"DESCRIPTION\"\n");
    return 2;
  }
  gst_init (NULL, NULL);
  if (!label)
    label = g_strdup ("decode");
  /* RESULT lines are KEY=VALUE tokens split at spaces */
  rlabel = g_strdelimit (g_strdup (label), " =", '_');
  if (header) {
    g_print ("| what | streams | frames | wall s | fps | steady fps | "
        "max TTFF ms | process s | CPU ms/frame | peak dev MiB (process) | "
        "peak GPU MiB |\n");
    g_print ("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
        "---: | ---: |\n");
  }
  if (!no_memory)
    bench_nvml_init ((guint) gpu);
  mem0 = bench_gpu_used_mib ();

  if (exec) {
    struct rusage ru;
    gdouble child_cpu = 0;

    children = g_new0 (pid_t, k);
    n_children = k;
    thr = g_thread_new ("mem", sampler, NULL);
    t_start = bench_now_s ();
    for (i = 0; i < k; i++) {
      pid_t pid = fork ();

      if (pid == 0) {
        execvp (argv[1], argv + 1);
        _exit (127);
      }
      children[i] = pid;
    }
    for (i = 0; i < k; i++) {
      int status = 0;

      if (wait4 (children[i], &status, 0, &ru) < 0 || !WIFEXITED (status)
          || WEXITSTATUS (status) != 0) {
        g_printerr ("%s: copy %d: %s %d\n", label, i, WIFSIGNALED (status) ?
            "killed by signal" : "exit status", WIFSIGNALED (status) ?
            WTERMSIG (status) : WEXITSTATUS (status));
        failures++;
      }
      child_cpu += ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
          ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
      t_end = bench_now_s ();
    }
    g_atomic_int_set (&sampling, 0);
    g_thread_join (thr);
    wall = t_end - t_start;
    frames = k;
    frames *= exec_frames;
    pm = bench_fmt (peak_proc, "%.0f");
    gm = bench_fmt (peak_gpu >= 0 && mem0 >= 0 ? peak_gpu - mem0 : -1, "%+.0f");
    g_print ("| %s | %d | %" G_GUINT64_FORMAT " | %.2f | %.0f | - | - | "
        "%.2f | %.3f | %s | %s |\n", label, k, frames, wall,
        wall > 0 ? frames / wall : 0, wall,
        frames ? child_cpu * 1e3 / frames : 0, pm, gm);
    g_printerr ("RESULT label=%s streams=%d frames=%" G_GUINT64_FORMAT
        " wall_s=%.3f fps=%.1f steady_fps=- ttff_max_ms=- process_s=%.3f "
        "cpu_ms_per_frame=%.4f peak_proc_mib=%s peak_gpu_delta_mib=%s "
        "failures=%u\n", rlabel, k, frames, wall, wall > 0 ? frames / wall : 0,
        wall, frames ? child_cpu * 1e3 / frames : 0, pm, gm, failures);
    g_free (pm);
    g_free (gm);
    g_free (children);
    return failures ? 1 : 0;
  }

  if (lane_options && !*lane_options)
    g_clear_pointer (&lane_options, g_free);
  if (n_lanes > 0) {
    lanes = g_new0 (GstAvhwDevice *, n_lanes);
    for (i = 0; i < n_lanes; i++) {
      gchar *desc = g_strdup_printf ("avhw-lane, lane=(uint)%d%s%s", i,
          lane_options ? ", " : "", lane_options ? lane_options : "");
      GstStructure *opts = i ? gst_structure_from_string (desc, NULL) : NULL;

      if (i && !opts) {
        g_printerr ("--lane-options: cannot read \"%s\"\n", desc);
        return 2;
      }
      lanes[i] = gst_avhw_device_open (lane_device ? lane_device : "cuda:0",
          opts, &err);
      if (!lanes[i]) {
        g_printerr ("lane %d: %s\n", i, err->message);
        return 2;
      }
      g_clear_pointer (&opts, gst_structure_free);
      g_free (desc);
    }
  }
  pipes = g_new0 (GstElement *, k);
  streams = g_new0 (Stream, k);
  for (i = 0; i < k; i++) {
    GstElement *sink;
    GstPad *pad;

    pipes[i] = gst_parse_launch (argv[1], &err);
    if (!pipes[i]) {
      g_printerr ("cannot build the pipeline: %s\n", err->message);
      return 2;
    }
    if (lanes) {
      GstContext *ctx = gst_avhw_context_new (lanes[i % n_lanes]);

      gst_element_set_context (pipes[i], ctx);
      gst_context_unref (ctx);
    }
    sink = gst_bin_get_by_name (GST_BIN (pipes[i]), "sink");
    if (!sink) {
      g_printerr ("the sink must be named 'sink'\n");
      return 2;
    }
    g_mutex_init (&streams[i].lock);
    pad = gst_element_get_static_pad (sink, "sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER |
        GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, on_data, &streams[i], NULL);
    gst_object_unref (pad);
    gst_object_unref (sink);
  }

  thr = g_thread_new ("mem", sampler, NULL);
  cpu0 = bench_cpu_s ();
  t_start = bench_now_s ();
  for (i = 0; i < k; i++)
    gst_element_set_state (pipes[i], GST_STATE_PLAYING);
  for (i = 0; i < k; i++) {
    gdouble left = timeout - (bench_now_s () - t_start);
    GstMessage *msg = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipes[i]),
        left > 0 ? (GstClockTime) (left * GST_SECOND) : 0,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

    if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gchar *dbg = NULL;

      if (msg)
        gst_message_parse_error (msg, &e, &dbg);
      g_printerr ("%s: stream %d: %s (%s)\n", label, i, e ? e->message :
          "no EOS before the timeout", dbg ? dbg : "");
      g_clear_error (&e);
      g_free (dbg);
      failures++;
    }
    if (msg)
      gst_message_unref (msg);
  }
  cpu1 = bench_cpu_s ();
  held = bench_proc_used_mib ();
  g_atomic_int_set (&sampling, 0);
  g_thread_join (thr);

  for (i = 0; i < k; i++) {
    gdouble eos = streams[i].t_eos ? streams[i].t_eos : bench_now_s ();

    frames += streams[i].frames;
    t_end = MAX (t_end, eos);
    if (streams[i].frames) {
      first = first ? MIN (first, streams[i].t_first) : streams[i].t_first;
      ttff_max = MAX (ttff_max, (streams[i].t_first - t_start) * 1e3);
    }
    gst_element_set_state (pipes[i], GST_STATE_NULL);
    gst_object_unref (pipes[i]);
    g_mutex_clear (&streams[i].lock);
  }
  wall = t_end - t_start;
  steady_wall = first ? t_end - first : 0;
  pm = bench_fmt (peak_proc, "%.0f");
  gm = bench_fmt (peak_gpu >= 0 && mem0 >= 0 ? peak_gpu - mem0 : -1, "%+.0f");
  g_print ("| %s | %d | %" G_GUINT64_FORMAT " | %.2f | %.0f | %.0f | %.0f | "
      "%.2f | %.3f | %s | %s |\n", label, k, frames, wall,
      wall > 0 ? frames / wall : 0, steady_wall > 0 ? frames / steady_wall : 0,
      ttff_max, bench_now_s () - t_main,
      frames ? (cpu1 - cpu0) * 1e3 / frames : 0, pm, gm);
  g_printerr ("RESULT label=%s streams=%d frames=%" G_GUINT64_FORMAT
      " wall_s=%.3f fps=%.1f steady_fps=%.1f ttff_max_ms=%.1f process_s=%.3f "
      "cpu_ms_per_frame=%.4f peak_proc_mib=%s peak_gpu_delta_mib=%s "
      "eos_proc_mib=%.0f failures=%u\n", rlabel, k, frames, wall,
      wall > 0 ? frames / wall : 0,
      steady_wall > 0 ? frames / steady_wall : 0, ttff_max,
      bench_now_s () - t_main, frames ? (cpu1 - cpu0) * 1e3 / frames : 0, pm,
      gm, held, failures);
  g_free (pm);
  g_free (gm);
  for (i = 0; i < n_lanes; i++)
    gst_object_unref (lanes[i]);
  g_free (lanes);
  g_free (pipes);
  g_free (streams);
  return failures ? 1 : 0;
}
