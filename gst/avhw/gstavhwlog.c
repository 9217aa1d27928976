/* gst-avhw: FFmpeg log -> GStreamer debug log
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <libavutil/log.h>

#include "gstavhw-impl.h"
#include "gstavhw-private.h"
#include "gstavhwlog-private.h"

GST_DEBUG_CATEGORY_STATIC (avhw_ffmpeg_debug);
#define GST_CAT_DEFAULT avhw_ffmpeg_debug

/* FFmpeg has one log callback per process. gst-libav's plugin sets its
 * own (category "libav") when it loads: whether it had loaded when ours
 * was set, and whether a capture has set ours again since. */
static gboolean libav_before;
static gint taken_back;

static void
capture_free (gpointer s)
{
  g_string_free (s, TRUE);
}

/* This thread's capture (_gst_avhw_log_capture_begin()), or NULL */
static GPrivate capture = G_PRIVATE_INIT (capture_free);

static void
capture_add (GString * s, const char *fmt, va_list vl)
{
  char text[1024];
  gsize len;

  vsnprintf (text, sizeof (text), fmt, vl);
  len = strlen (text);
  while (len > 0 && g_ascii_isspace (text[len - 1]))
    text[--len] = '\0';
  if (len == 0 || strstr (s->str, text))
    return;
  g_string_append_printf (s, "%s%s", s->len ? " " : "", text);
}

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
  GString *captured = g_private_get (&capture);
  char line[1024];
  int print_prefix = 1;
  gsize len;

  /* before the threshold: the error goes into the caller's message even
   * when the debug log does not show it */
  if (captured && level <= AV_LOG_ERROR) {
    va_list copy;

    va_copy (copy, vl);
    capture_add (captured, fmt, copy);
    va_end (copy);
  }
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
  /* not GST_DEBUG_CATEGORY_GET: it falls back to GST_CAT_DEFAULT */
  libav_before = _gst_debug_get_category ("libav") != NULL;
  av_log_set_callback (log_callback);
}

void
_gst_avhw_log_capture_begin (void)
{
  gst_avhw_init ();
  /* gst-libav, loaded since, has FFmpeg's log: without ours, nothing
   * would be captured (or the errors would have to be let through the
   * debug log's thresholds, a second time, to be caught there). Take it
   * back, once: from then on FFmpeg's log goes to avhw-ffmpeg, gst-libav's
   * elements' too. */
  if (!libav_before && !g_atomic_int_get (&taken_back)
      && _gst_debug_get_category ("libav")
      && g_atomic_int_compare_and_exchange (&taken_back, 0, 1)) {
    GST_INFO ("gst-libav set FFmpeg's log callback: avhw-ffmpeg takes it "
        "back");
    av_log_set_callback (log_callback);
  }
  g_private_replace (&capture, g_string_new (NULL));
}

gchar *
_gst_avhw_log_capture_end (void)
{
  GString *s = g_private_get (&capture);

  g_private_set (&capture, NULL);
  if (!s)
    return NULL;
  if (s->len == 0) {
    g_string_free (s, TRUE);
    return NULL;
  }
  return g_string_free (s, FALSE);
}
