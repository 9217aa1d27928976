/* gst-avhw: avhwdec, a hardware decoder that failed
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A hardware decoder that returns an error other than AVERROR_INVALIDDATA
 * has seen its device fail, not the stream. FFmpeg's decoders are not made
 * to go on after that: on the H200 (run 47) FFmpeg 7.1's Vulkan decoder
 * failed a submission ("Unable to finish command buffer") and then waited
 * without a timeout on that submission's fence, in the next frame and
 * again when freed, so the pipeline hung. avhwdec therefore never calls
 * such a decoder again and frees it here, on a thread of its own.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <libavcodec/avcodec.h>
#include "gstavhwdecfail.h"

GST_DEBUG_CATEGORY_EXTERN (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

#define ABANDON_WAIT_S 2

/* GST_AVHW_DEC_FAIL_AT=NAME:N: the element named NAME fails at input
 * frame N. Read once. */
static const gchar *
inject_spec (gint64 * at)
{
  static gsize once;
  static gchar *name;
  static gint64 frame = -1;

  if (g_once_init_enter (&once)) {
    const gchar *env = g_getenv ("GST_AVHW_DEC_FAIL_AT");
    const gchar *colon = env ? strrchr (env, ':') : NULL;

    if (colon && colon > env) {
      name = g_strndup (env, colon - env);
      frame = g_ascii_strtoll (colon + 1, NULL, 10);
    }
    g_once_init_leave (&once, 1);
  }
  *at = frame;
  return name;
}

gboolean
gst_avhw_dec_fail_is_device_error (int error)
{
  return error < 0 && error != AVERROR_INVALIDDATA && error != AVERROR (EAGAIN)
      && error != AVERROR_EOF;
}

gboolean
gst_avhw_dec_fail_is_device (const AVCodecContext * ctx, int error)
{
  return ctx && ctx->hw_device_ctx && gst_avhw_dec_fail_is_device_error (error);
}

gboolean
gst_avhw_dec_fail_hooked (GstObject * element)
{
  gint64 at;
  const gchar *name = inject_spec (&at);

  return name && g_strcmp0 (GST_OBJECT_NAME (element), name) == 0;
}

int
gst_avhw_dec_fail_inject (GstObject * element, guint64 frame_number, int result)
{
  gint64 at;
  const gchar *name = inject_spec (&at);

  if (!name || at < 0 || frame_number != (guint64) at
      || g_strcmp0 (GST_OBJECT_NAME (element), name) != 0)
    return result;
  GST_INFO_OBJECT (element, "GST_AVHW_DEC_FAIL_AT: input frame %"
      G_GUINT64_FORMAT " fails as a hardware decoder's submission would",
      frame_number);
  return AVERROR_EXTERNAL;
}

typedef struct
{
  AVCodecContext *ctx;
  GMutex lock;
  GCond cond;
  gboolean done;
  gint refs;
} Abandoned;

static void
abandoned_unref (Abandoned * a)
{
  if (!g_atomic_int_dec_and_test (&a->refs))
    return;
  g_mutex_clear (&a->lock);
  g_cond_clear (&a->cond);
  g_free (a);
}

static gpointer
free_ctx (gpointer data)
{
  Abandoned *a = data;

  avcodec_free_context (&a->ctx);
  g_mutex_lock (&a->lock);
  a->done = TRUE;
  g_cond_signal (&a->cond);
  g_mutex_unlock (&a->lock);
  abandoned_unref (a);
  return NULL;
}

void
gst_avhw_dec_fail_abandon (AVCodecContext ** ctx)
{
  Abandoned *a;
  GThread *t;
  gint64 end;
  gboolean done;

  if (!*ctx)
    return;
  a = g_new0 (Abandoned, 1);
  a->ctx = *ctx;
  *ctx = NULL;
  a->refs = 2;
  g_mutex_init (&a->lock);
  g_cond_init (&a->cond);
  t = g_thread_try_new ("avhwdec-failed", free_ctx, a, NULL);
  if (!t) {
    GST_WARNING ("no thread to free the failed decoder: left behind");
    a->refs = 1;
    abandoned_unref (a);
    return;
  }
  g_thread_unref (t);
  end = g_get_monotonic_time () + ABANDON_WAIT_S * G_TIME_SPAN_SECOND;
  g_mutex_lock (&a->lock);
  while (!a->done && g_cond_wait_until (&a->cond, &a->lock, end));
  done = a->done;
  g_mutex_unlock (&a->lock);
  if (done)
    GST_DEBUG ("the failed decoder is freed");
  else
    GST_WARNING ("the failed decoder did not close within %d s (FFmpeg "
        "waits on its device): left behind", ABANDON_WAIT_S);
  abandoned_unref (a);
}
