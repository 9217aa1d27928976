/* gst-avhw: a libavfilter graph around one device scale filter
 *
 * buffer (hardware frames, with the input's frames context) -> the
 * backend's scale filter (w, h, format and the interpolation options) ->
 * buffersink. The graph never converts on its own: automatic conversion
 * filters are off, so a format the device filter cannot make is an error,
 * never a silent CPU path. The filter allocates its output frames from a
 * frames context of its own on the input's device.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/pixdesc.h>

#include "gstavhwscalegraph.h"

GST_DEBUG_CATEGORY_STATIC (avhw_scale_graph_debug);
#define GST_CAT_DEFAULT avhw_scale_graph_debug

struct _GstAvhwScaleGraph
{
  AVFilterGraph *graph;
  AVFilterContext *src, *sink;
  gchar *filter;
  gint64 next_pts;              /* the input's timeline, in ns */
  GstAvhwBackend *backend;
  /* the last frame out, which the device may still be drawing: waited for
   * before the graph goes (FFmpeg 5.1's libplacebo frees what that work
   * uses; on lavapipe the device then crashed at the end of a stream) */
  AVFrame *last_out;
};

/* The graph's input timeline: 25 frames a second, a frame each 40 ms.
 * Filters that queue by time (FFmpeg 7's libplacebo) want increasing
 * timestamps, an end time to give out the last frame, and the frame rate:
 * without one, FFmpeg 7.1's libplacebo asks its queue for the mix with an
 * infinite vsync duration (vf_libplacebo.c, libplacebo_activate()), the
 * queue's first mix then has none (libplacebo 7.349, frame_queue.c,
 * oversample()), pl_render_image_mix() refuses it and the filter, which
 * does not check, gives out the first frame of each graph undrawn. The
 * buffers keep their own timestamps. */
#define FRAME_RATE 25
#define FRAME_STEP_NS (GST_SECOND / FRAME_RATE)

static void
init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (avhw_scale_graph_debug, "avhwscalegraph", 0,
        "gst-avhw device scale filter graphs");
    g_once_init_leave (&done, 1);
  }
}

static gboolean
check (int ret, const gchar * what, const GstAvhwScaleGraphParams * p,
    GError ** error)
{
  char err[AV_ERROR_MAX_STRING_SIZE];
  const AVHWFramesContext *fc = (const AVHWFramesContext *) p->in_frames->data;

  if (ret >= 0)
    return TRUE;
  g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
      "%s: %s for %dx%d %s -> %dx%d %s failed: %s (GST_DEBUG=avhw-ffmpeg:1 "
      "shows FFmpeg's reason)", p->filter, what, p->in_width, p->in_height,
      av_get_pix_fmt_name (fc->sw_format), p->out_width, p->out_height,
      av_get_pix_fmt_name (p->out_format), av_make_error_string (err,
          sizeof (err), ret));
  return FALSE;
}

static AVFilterContext *
add_filter (AVFilterGraph * graph, const gchar * name, const gchar * label)
{
  const AVFilter *f = avfilter_get_by_name (name);

  return f ? avfilter_graph_alloc_filter (graph, f, label) : NULL;
}

/* The buffer source, taking hardware frames of @p->in_frames. */
static int
init_source (GstAvhwScaleGraph * g, const GstAvhwScaleGraphParams * p)
{
  AVBufferSrcParameters *par = av_buffersrc_parameters_alloc ();
  int ret;

  if (!par)
    return AVERROR (ENOMEM);
  par->format = ((AVHWFramesContext *) p->in_frames->data)->format;
  par->width = p->in_width;
  par->height = p->in_height;
  /* Timestamps travel on the GstBuffers; the source wants a time base. */
  par->time_base = (AVRational) {
  1, 1000000000};
  par->frame_rate = (AVRational) {
  FRAME_RATE, 1};
  par->sample_aspect_ratio = p->sar;
  par->hw_frames_ctx = p->in_frames;
  ret = av_buffersrc_parameters_set (g->src, par);
  av_free (par);
  return ret < 0 ? ret : avfilter_init_str (g->src, NULL);
}

GstAvhwScaleGraph *
gst_avhw_scale_graph_new (const GstAvhwScaleGraphParams * p, GError ** error)
{
  const AVHWFramesContext *fc = (const AVHWFramesContext *) p->in_frames->data;
  GstAvhwScaleGraph *g = g_new0 (GstAvhwScaleGraph, 1);
  AVFilterContext *scale;
  gchar *args;
  int ret;

  init_debug ();
  g->filter = g_strdup (p->filter);
  g->backend = gst_object_ref (p->backend);
  g->last_out = av_frame_alloc ();
  g->graph = avfilter_graph_alloc ();
  if (!g->graph || !g->last_out) {
    check (AVERROR (ENOMEM), "allocating the graph", p, error);
    goto fail;
  }
  /* No conversion filters behind our back: those would run on the CPU. */
  avfilter_graph_set_auto_convert (g->graph, AVFILTER_AUTO_CONVERT_NONE);
  g->src = add_filter (g->graph, "buffer", "in");
  scale = add_filter (g->graph, p->filter, "scale");
  g->sink = add_filter (g->graph, "buffersink", "out");
  if (!g->src || !scale || !g->sink) {
    check (AVERROR_FILTER_NOT_FOUND, "making the filters", p, error);
    goto fail;
  }
  if (!check (init_source (g, p), "setting up the source", p, error))
    goto fail;
  scale->hw_device_ctx = av_buffer_ref (fc->device_ref);
  args = g_strdup_printf ("w=%d:h=%d:format=%s%s%s", p->out_width,
      p->out_height, av_get_pix_fmt_name (p->out_format),
      p->method_args[0] ? ":" : "", p->method_args);
  GST_DEBUG ("%s=%s", p->filter, args);
  ret = avfilter_init_str (scale, args);
  g_free (args);
  if (!check (ret, "setting the options", p, error)
      || !check (avfilter_init_str (g->sink, NULL), "setting up the sink", p,
          error)
      || !check (avfilter_link (g->src, 0, scale, 0), "linking", p, error)
      || !check (avfilter_link (scale, 0, g->sink, 0), "linking", p, error)
      || !check (avfilter_graph_config (g->graph, NULL), "configuring", p,
          error))
    goto fail;
  return g;

fail:
  gst_avhw_scale_graph_free (g);
  return NULL;
}

/* Takes @frame's reference (the graph keeps what it needs); %NULL drains
 * the graph at the end of a stream. */
gboolean
gst_avhw_scale_graph_push (GstAvhwScaleGraph * g, AVFrame * frame,
    GError ** error)
{
  char err[AV_ERROR_MAX_STRING_SIZE];
  int ret;

  /* The caps say what the frames are; the graph is rebuilt when they
   * change, so the source need not compare each frame with its link. */
  if (frame) {
    frame->pts = g->next_pts;
    g->next_pts += FRAME_STEP_NS;
    ret = av_buffersrc_add_frame_flags (g->src, frame,
        AV_BUFFERSRC_FLAG_PUSH | AV_BUFFERSRC_FLAG_NO_CHECK_FORMAT);
  } else {
    ret = av_buffersrc_close (g->src, g->next_pts, AV_BUFFERSRC_FLAG_PUSH);
  }
  if (ret < 0) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "%s: a %dx%d frame could not go in: %s (GST_DEBUG=avhw-ffmpeg:1 "
        "shows FFmpeg's reason)", g->filter, frame ? frame->width : 0,
        frame ? frame->height : 0, av_make_error_string (err, sizeof (err),
            ret));
    return FALSE;
  }
  return TRUE;
}

/* Returns: (transfer full) (nullable): the next output frame; %NULL
 * without @error when there is none (yet, or after the drain). */
AVFrame *
gst_avhw_scale_graph_pull (GstAvhwScaleGraph * g, GError ** error)
{
  char err[AV_ERROR_MAX_STRING_SIZE];
  AVFrame *out = av_frame_alloc ();
  int ret;

  if (!out) {
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "out of memory for a frame");
    return NULL;
  }
  ret = av_buffersink_get_frame (g->sink, out);
  if (ret >= 0) {
    av_frame_unref (g->last_out);
    if (av_frame_ref (g->last_out, out) < 0)
      av_frame_unref (g->last_out);
    return out;
  }
  av_frame_free (&out);
  if (ret != AVERROR (EAGAIN) && ret != AVERROR_EOF)
    g_set_error (error, GST_AVHW_ERROR, GST_AVHW_ERROR_FAILED,
        "%s: scaling a frame failed: %s (GST_DEBUG=avhw-ffmpeg:1 shows "
        "FFmpeg's reason)", g->filter, av_make_error_string (err, sizeof (err),
            ret));
  return NULL;
}

void
gst_avhw_scale_graph_free (GstAvhwScaleGraph * g)
{
  if (!g)
    return;
  if (g->last_out && g->last_out->buf[0]) {
    GError *err = NULL;

    if (!gst_avhw_backend_wait_frame (g->backend, g->last_out, &err)) {
      GST_WARNING ("%s: %s", g->filter, err->message);
      g_clear_error (&err);
    }
  }
  avfilter_graph_free (&g->graph);
  av_frame_free (&g->last_out);
  gst_clear_object (&g->backend);
  g_free (g->filter);
  g_free (g);
}
