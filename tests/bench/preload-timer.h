/* gst-avhw benchmark helpers: what the LD_PRELOAD call timers (cu-time.c,
 * vk-time.c) share: the clock, the real dlsym(), per-function counts and
 * the report at exit.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Header-only (static functions): each timer is one shared object of its
 * own, linked with nothing but libdl.
 */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A timer lists the functions it wraps as an X-macro, FUNCTIONS (X) with
 * one X (name) each; these make its enum (F_name ..., N_FUNCTIONS) and its
 * names[] from that list:
 *   enum { FUNCTIONS (PT_ENUM_ENTRY) N_FUNCTIONS };
 *   static const char *const names[N_FUNCTIONS] =
 *       { FUNCTIONS (PT_NAME_ENTRY) }; */
#define PT_ENUM_ENTRY(name) F_##name,
#define PT_NAME_ENTRY(name) #name,

/* calls of one function, their total and longest time */
typedef struct
{
  atomic_llong calls, total_ns, max_ns;
} PtCount;

static inline long long
pt_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* libc's own dlsym() (glibc 2.34 moved it into libc, with a new version),
 * for a library that puts its own dlsym() in front; NULL when not found */
static inline void *(*pt_real_dlsym (void)) (void *, const char *)
{
  static const char *const versions[] =
      { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };
  unsigned i;

  for (i = 0; i < sizeof (versions) / sizeof (versions[0]); i++) {
    void *f = dlvsym (RTLD_NEXT, "dlsym", versions[i]);

    if (f)
      return (void *(*)(void *, const char *)) f;
  }
  return NULL;
}

/* Counts a call of @name that began at @t0 into @c; with @trace_ns >= 0,
 * a call that took that long or longer is printed as it returns:
 * "PREFIX t_ms=END tid=TID fn=NAME ms=MS" (END from @t_load). */
static inline void
pt_count (PtCount * c, long long t0, long long trace_ns, long long t_load,
    const char *prefix, const char *name)
{
  long long t1 = pt_now_ns (), d = t1 - t0, m;

  atomic_fetch_add (&c->calls, 1);
  atomic_fetch_add (&c->total_ns, d);
  m = atomic_load (&c->max_ns);
  while (d > m && !atomic_compare_exchange_weak (&c->max_ns, &m, d));
  if (trace_ns >= 0 && d >= trace_ns)
    fprintf (stderr, "%s t_ms=%.3f tid=%ld fn=%s ms=%.3f\n", prefix,
        (t1 - t_load) / 1e6, (long) syscall (SYS_gettid), name, d / 1e6);
}

/* At exit: one row per function called, then the process's wall time,
 * to the file $@out_env names (appended) or stderr:
 *   PREFIX label=L process=P fn=NAME calls=N total_ms=T max_ms=M
 *   PREFIX label=L process=P wall_ms=W */
static inline void
pt_report (const char *prefix, const char *label_env, const char *out_env,
    const char *const *names, PtCount * counts, int n, long long t_load)
{
  const char *label = getenv (label_env);
  const char *path = getenv (out_env);
  FILE *out = path ? fopen (path, "a") : NULL;
  int i;

  if (!out)
    out = stderr;
  for (i = 0; i < n; i++) {
    long long k = atomic_load (&counts[i].calls);

    if (k)
      fprintf (out, "%s label=%s process=%s fn=%s calls=%lld "
          "total_ms=%.3f max_ms=%.3f\n", prefix, label ? label : "-",
          program_invocation_short_name, names[i], k,
          atomic_load (&counts[i].total_ns) / 1e6,
          atomic_load (&counts[i].max_ns) / 1e6);
  }
  fprintf (out, "%s label=%s process=%s wall_ms=%.1f\n", prefix,
      label ? label : "-", program_invocation_short_name,
      (pt_now_ns () - t_load) / 1e6);
  if (out != stderr)
    fclose (out);
}
