/* gst-avhw benchmark helper: where a decoding process spends its time.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * An LD_PRELOAD library that times libavcodec's avcodec_send_packet() and
 * avcodec_receive_frame() in whatever process loads it (ffmpeg's CLI,
 * a GStreamer pipeline with avhwdec), and at exit prints to stderr one line:
 *
 *   LAVC-TIME label=L packets=N frames=F decode_wall_s=W steady_fps=S
 *     send_ms_per_frame=.. receive_ms_per_frame=.. outside_ms_per_frame=..
 *     cpu_ms_per_frame=..
 *
 * decode_wall_s runs from the first frame out of the decoder to the last
 * one, so steady_fps = (F - 1) / decode_wall_s leaves start-up out in the
 * same way for every program; "outside" is that wall time less the time
 * spent inside the two calls, per frame: the caller's own work (demuxing,
 * parsing, GStreamer, ffmpeg's filters and muxer). The per-frame times
 * count calls made after the first frame came out. Meant for one decoder
 * per process; with several, the sums mix them. LAVC_TIME_LABEL names the
 * row; LAVC_TIME_OUT=FILE appends the line to FILE instead.
 *
 *   LD_PRELOAD=.../libavhw-lavc-time.so ffmpeg -hwaccel cuda ... -f null -
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

int avcodec_send_packet (void *avctx, const void *pkt);
int avcodec_receive_frame (void *avctx, void *frame);

static atomic_llong ns_send, ns_recv, n_send, n_frames, t_first, t_last;

/* GStreamer loads plugins (and the libavcodec they link) with local
 * scope, where RTLD_NEXT does not look: then ask the loaded library. */
static void *
real_symbol (const char *name)
{
  static const char *const libs[] = { "libavcodec.so.61", "libavcodec.so.60",
    "libavcodec.so.59", "libavcodec.so.58", NULL
  };
  void *sym = dlsym (RTLD_NEXT, name);
  int i;

  for (i = 0; !sym && libs[i]; i++) {
    void *lib = dlopen (libs[i], RTLD_NOW | RTLD_NOLOAD);

    if (lib)
      sym = dlsym (lib, name);
  }
  if (!sym) {
    fprintf (stderr, "lavc-time: no %s in this process\n", name);
    abort ();
  }
  return sym;
}

static long long
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
avcodec_send_packet (void *avctx, const void *pkt)
{
  static int (*real) (void *, const void *);
  long long t0;
  int ret;

  if (!real)
    real = (int (*)(void *, const void *))
        real_symbol ("avcodec_send_packet");
  t0 = now_ns ();
  ret = real (avctx, pkt);
  if (atomic_load (&t_first))   /* only inside the measured window */
    atomic_fetch_add (&ns_send, now_ns () - t0);
  if (pkt)
    atomic_fetch_add (&n_send, 1);
  return ret;
}

int
avcodec_receive_frame (void *avctx, void *frame)
{
  static int (*real) (void *, void *);
  long long t0, t1;
  int ret;

  if (!real)
    real = (int (*)(void *, void *)) real_symbol ("avcodec_receive_frame");
  t0 = now_ns ();
  ret = real (avctx, frame);
  t1 = now_ns ();
  if (atomic_load (&t_first))
    atomic_fetch_add (&ns_recv, t1 - t0);
  if (ret == 0) {
    long long zero = 0;

    atomic_compare_exchange_strong (&t_first, &zero, t1);
    atomic_store (&t_last, t1);
    atomic_fetch_add (&n_frames, 1);
  }
  return ret;
}

__attribute__((destructor))
     static void report (void)
{
  struct rusage ru;
  const char *label = getenv ("LAVC_TIME_LABEL");
  long long frames = atomic_load (&n_frames);
  double wall = (atomic_load (&t_last) - atomic_load (&t_first)) / 1e9;
  double f = frames > 1 ? (double) (frames - 1) : 1.0, cpu;
  FILE *out;

  if (!frames)
    return;
  getrusage (RUSAGE_SELF, &ru);
  cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
      ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
  out = getenv ("LAVC_TIME_OUT") ? fopen (getenv ("LAVC_TIME_OUT"), "a") : NULL;
  fprintf (out ? out : stderr, "LAVC-TIME label=%s packets=%lld frames=%lld "
      "decode_wall_s=%.3f steady_fps=%.1f send_ms_per_frame=%.4f "
      "receive_ms_per_frame=%.4f outside_ms_per_frame=%.4f "
      "cpu_ms_per_frame=%.4f\n", label ? label : "-",
      (long long) atomic_load (&n_send), frames, wall,
      wall > 0 ? (frames - 1) / wall : 0.0,
      atomic_load (&ns_send) / 1e6 / f, atomic_load (&ns_recv) / 1e6 / f,
      (wall * 1e3 - (atomic_load (&ns_send) + atomic_load (&ns_recv)) / 1e6)
      / f, cpu * 1e3 / frames);
  if (out)
    fclose (out);
}
