/* gst-avhw: library initialisation
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstavhw-impl.h"
#include "gstavhw-private.h"

GQuark
gst_avhw_error_quark (void)
{
  return g_quark_from_static_string ("gst-avhw-error-quark");
}

/**
 * gst_avhw_init:
 *
 * Initialises the library: debug categories and the bridge that routes
 * FFmpeg's log into the `avhw-ffmpeg` debug category. Idempotent and thread
 * safe; every entry point of the library calls it, so applications need not.
 */
void
gst_avhw_init (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    gst_avhw_log_init ();
    g_once_init_leave (&done, 1);
  }
}
