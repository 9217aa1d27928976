/* gst-avhw tests: an application of the public API, compiled with no
 * FFmpeg include folder (tests/headers/run-test.sh checks that none of
 * FFmpeg's headers is read)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/avhw/gstavhw.h>

#ifdef LIBAVCODEC_VERSION_MAJOR
#error "gstavhw.h pulled in libavcodec"
#endif
#ifdef LIBAVUTIL_VERSION_MAJOR
#error "gstavhw.h pulled in libavutil"
#endif

int
main (int argc, char **argv)
{
  GList *backends, *l;
  guint n_devices = 0, n_frames = 0;
  guint64 opens = 0, made = 0;

  gst_init (&argc, &argv);
  gst_avhw_init ();
  backends = gst_avhw_backend_list ();
  for (l = backends; l; l = l->next) {
    gchar *why = NULL;
    gboolean hw = gst_avhw_backend_device_decodes_codec (l->data, 0, "h264",
        &why);

    g_print ("%s: %u device(s), h264 in hardware: %s\n",
        gst_avhw_backend_get_name (l->data),
        gst_avhw_backend_get_n_devices (l->data, NULL), hw ? "yes" : why);
    g_free (why);
  }
  g_list_free_full (backends, gst_object_unref);
  gst_avhw_cache_get_stats (&n_devices, &n_frames, &opens, &made);
  return n_devices == 0 ? 0 : 1;
}
