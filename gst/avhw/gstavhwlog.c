/* gst-avhw: FFmpeg log -> GStreamer debug log
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <libavutil/log.h>

#include "gstavhw-private.h"

GST_DEBUG_CATEGORY_STATIC (avhw_ffmpeg_debug);
#define GST_CAT_DEFAULT avhw_ffmpeg_debug

static GstDebugLevel
level_from_av (int level)
{
  if (level <= AV_LOG_ERROR)
    return GST_LEVEL_ERROR;
  if (level <= AV_LOG_WARNING)
    return GST_LEVEL_WARNING;
  if (level <= AV_LOG_INFO)
    return GST_LEVEL_INFO;
  if (level <= AV_LOG_VERBOSE)
    return GST_LEVEL_DEBUG;
  if (level <= AV_LOG_DEBUG)
    return GST_LEVEL_LOG;
  return GST_LEVEL_TRACE;
}

static void
log_callback (void *avcl, int level, const char *fmt, va_list vl)
{
  GstDebugLevel gst_level = level_from_av (level);
  char line[1024];
  int print_prefix = 1;
  gsize len;

  if (gst_level > gst_debug_category_get_threshold (avhw_ffmpeg_debug))
    return;

  av_log_format_line2 (avcl, level, fmt, vl, line, sizeof (line),
      &print_prefix);
  len = strlen (line);
  while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    line[--len] = '\0';
  if (len == 0)
    return;

  GST_CAT_LEVEL_LOG (avhw_ffmpeg_debug, gst_level, NULL, "%s", line);
}

void
gst_avhw_log_init (void)
{
  GST_DEBUG_CATEGORY_INIT (avhw_ffmpeg_debug, "avhw-ffmpeg", 0,
      "FFmpeg's own log, as seen through gst-avhw");
  av_log_set_callback (log_callback);
}
