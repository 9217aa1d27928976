/* segv-backtrace.c - LD_PRELOAD library for a GPU run: on SIGSEGV or SIGABRT
 * it prints a backtrace (library + offset, for addr2line on unstripped
 * copies of the bundle's libraries) to stderr, then dies of the signal.
 * The GPU machine has no gdb. Build on the dev machine:
 *   cc -shared -fPIC -O1 -o .gpu/segv.so tests/gpu/segv-backtrace.c -ldl
 * (run 117). SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>
static void
handler (int sig, siginfo_t * si, void *uc)
{
  void *bt[64];
  int n = backtrace (bt, 64), i;
  char buf[512];
  int len =
      snprintf (buf, sizeof buf, "SEGV handler: signal %d at address %p\n", sig,
      si->si_addr);
  write (2, buf, len);
  for (i = 0; i < n; i++) {
    Dl_info info;
    if (dladdr (bt[i], &info) && info.dli_fname) {
      len =
          snprintf (buf, sizeof buf, "  #%d %p %s+0x%lx (%s)\n", i, bt[i],
          info.dli_fname,
          (unsigned long) ((char *) bt[i] - (char *) info.dli_fbase),
          info.dli_sname ? info.dli_sname : "?");
    } else
      len = snprintf (buf, sizeof buf, "  #%d %p\n", i, bt[i]);
    write (2, buf, len);
  }
  signal (sig, SIG_DFL);
  raise (sig);
}

__attribute__((constructor))
     static void init (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigaction (SIGSEGV, &sa, NULL);
  sigaction (SIGABRT, &sa, NULL);
}
