/* gst-avhw: avhwdec, GOP-parallel decoding (parallel > 1)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The stream is cut into segments at access units where decoding can start
 * afresh (the stream's watcher, gstavhwdecwatch.c). Segment k goes to session k % N, each a
 * decoder of its own on the same device, fed by its own thread; a session
 * drains at the end of its segment and is flushed for its next one. Up to
 * N segments are in flight. H.264 sessions end a segment by a join instead
 * (gstavhwdecjoin.c): a flush would make FFmpeg re-create the hardware
 * decoder for every segment. Decoded frames wait in their segment, in the
 * order the decoder gives them (presentation order); the streaming thread,
 * which holds GstVideoDecoder's stream lock, finishes the frames of the
 * oldest segment (the head) only, so segment k's frames all go out before
 * segment k + 1's. No thread but the streaming thread touches the
 * GstVideoDecoder.
 *
 * Memory: hardware frames leave the decoder's surfaces (a device copy
 * into a frames-cache pool) while they wait, and at most max-buffered
 * frames wait: a session that is not the head's then
 * stops until frames go out. The head's session never waits, and the
 * streaming thread waits only for the head, so nothing can wait in a
 * circle.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwdec-private.h"
#include "gstavhwdecwatch.h"
#include "gstavhwdecjoin.h"
#include "gstavhwdecfail.h"

GST_DEBUG_CATEGORY_EXTERN (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

/* A segment ends at a cut point only once it has this many frames:
 * all-intra streams would otherwise drain a session every frame. */
#define MIN_SEGMENT_FRAMES 16
/* parallel=0 for non-live seekable input, where the device does not count
 * its decoder engines (software decoding): the CPUs, at most this. */
#define AUTO_MAX_SESSIONS 8

typedef struct _Segment Segment;
typedef struct _Session Session;

struct _Segment
{
  GQueue out;                   /* Out, in output order */
  gboolean done;                /* its session drained it */
  guint32 first, last;          /* system frame numbers */
  guint n_in;
  AVPacket *idr;                /* its first access unit, when a cut point */
};

typedef struct
{
  AVFrame *frame;               /* NULL: an error */
  gboolean from_decoder;
  const gchar *call;
  int error;
} Out;

typedef struct
{
  AVPacket *pkt;                /* NULL: end of the segment */
  Segment *seg;
  gboolean cut;                 /* pkt is a cut point */
} Item;

/* Where a session's time goes, in microseconds (debug log at the end of
 * each stream: avhwdec:4). */
typedef struct
{
  gint64 send, receive, wait, copy, end;
  guint segments, frames;
} SessionStats;

struct _Session
{
  GstAvhwDecParallel *par;
  SessionStats st;
  AVCodecContext *ctx;
  gboolean owns_ctx;
  GThread *thread;
  GQueue in;                    /* Item */
  gboolean busy;
  AVBufferRef *copy_pool;
  gboolean join;                /* segments end by a join */
  gboolean joined;              /* ctx may hold join frames: a cut next */
  gboolean failed;              /* its device failed: ctx is not called */
};

struct _GstAvhwDecParallel
{
  GstAvhwDec *dec;
  GMutex lock;
  GCond cond;
  Session *sessions;
  guint n;
  GQueue segments;              /* in flight, oldest (the head) first */
  Segment *open;                /* the newest, taking input */
  guint64 started;
  guint buffered;
  guint max_buffered;
  gboolean flushing, quit;
  GstAvhwDecWatch *watch;       /* the decoder's: cut points, parameter sets */
  /* the streaming thread's time, microseconds */
  gint64 t_first, t_in, t_out, t_wait;
  guint64 pushed;
};

static void
out_free (Out * o)
{
  av_frame_free (&o->frame);
  g_free (o);
}

static void
segment_free (Segment * seg)
{
  g_queue_clear_full (&seg->out, (GDestroyNotify) out_free);
  av_packet_free (&seg->idr);
  g_free (seg);
}

static void
item_free (Item * it)
{
  av_packet_free (&it->pkt);
  g_free (it);
}

/* ------------------------------------------------------------ sessions */

/* With the lock held. */
static void
add_out (GstAvhwDecParallel * par, Segment * seg, AVFrame * frame,
    gboolean from_decoder, const gchar * call, int error)
{
  Out *o = g_new0 (Out, 1);

  o->frame = frame;
  o->from_decoder = from_decoder;
  o->call = call;
  o->error = error;
  g_queue_push_tail (&seg->out, o);
  if (frame)
    par->buffered++;
  g_cond_broadcast (&par->cond);
}

/* An error of @call on @s's decoder, in @seg's place in the stream; a
 * device failure stops the session calling it. */
static void
session_error (Session * s, Segment * seg, const gchar * call, int error)
{
  g_mutex_lock (&s->par->lock);
  s->failed |= gst_avhw_dec_fail_is_device (s->ctx, error);
  add_out (s->par, seg, NULL, FALSE, call, error);
  g_mutex_unlock (&s->par->lock);
}

/* A frame (or, @frame NULL, an error) of @seg out of @s's decoder: it
 * waits in the segment. FALSE once flushing. */
static gboolean
take (Session * s, Segment * seg, AVFrame * frame, int error)
{
  GstAvhwDecParallel *par = s->par;
  gboolean from_decoder, going;
  AVFrame *copy;
  gint64 t, t2;

  if (!frame) {
    session_error (s, seg, "avcodec_receive_frame", error);
    return FALSE;
  }
  g_mutex_lock (&par->lock);
  t = g_get_monotonic_time ();
  while (!par->flushing && !par->quit && par->buffered >= par->max_buffered
      && g_queue_peek_head (&par->segments) != seg)
    g_cond_wait (&par->cond, &par->lock);
  g_mutex_unlock (&par->lock);
  t2 = g_get_monotonic_time ();
  s->st.wait += t2 - t;
  s->st.frames++;
  from_decoder = frame->hw_frames_ctx != NULL;
  /* Frames leave the decoder's surfaces, the head's too: they wait in
   * the segment until the streaming thread comes round, and a hardware
   * decoder has few surfaces (NVDEC: "No decoder surfaces left"). */
  if (from_decoder) {
    copy = gst_avhw_dec_copy_to_pool (par->dec, &s->copy_pool, frame);
    if (copy) {
      av_frame_free (&frame);
      frame = copy;
      from_decoder = FALSE;
    }
    s->st.copy += g_get_monotonic_time () - t2;
  }
  g_mutex_lock (&par->lock);
  going = !par->flushing && !par->quit;
  if (going)
    add_out (par, seg, frame, from_decoder, NULL, 0);
  else
    av_frame_free (&frame);
  g_mutex_unlock (&par->lock);
  return going;
}

typedef struct
{
  Session *s;
  Segment *seg;
} SessionOut;

static gboolean
session_out (AVFrame * frame, int error, gpointer user_data)
{
  SessionOut *o = user_data;

  return take (o->s, o->seg, frame, error);
}

/* Every frame of @seg the session's decoder has ready (the join frames of
 * its segment before dropped). */
static void
receive (Session * s, Segment * seg)
{
  SessionOut o = { s, seg };
  gint64 t = g_get_monotonic_time ();

  gst_avhw_dec_receive (s->ctx, session_out, &o);
  s->st.receive += g_get_monotonic_time () - t;
}

static void
end_segment (Session * s, Segment * seg)
{
  GstAvhwDecParallel *par = s->par;
  SessionOut o = { s, seg };
  gint64 t = g_get_monotonic_time ();

  if (!s->failed)
    s->joined = gst_avhw_dec_end_stream (s->ctx, s->join ? seg->idr : NULL,
        session_out, &o);
  s->st.end += g_get_monotonic_time () - t;
  s->st.segments++;
  g_mutex_lock (&par->lock);
  seg->done = TRUE;
  g_cond_broadcast (&par->cond);
  g_mutex_unlock (&par->lock);
}

static void
decode_item (Session * s, Item * it)
{
  GstAvhwDecParallel *par = s->par;
  gint64 t;
  int r;

  if (!it->pkt) {
    end_segment (s, it->seg);
    return;
  }
  /* the segment's frames are released at its end */
  if (s->failed)
    return;
  if (s->joined && !it->cut)
    avcodec_flush_buffers (s->ctx);
  s->joined = FALSE;
  for (;;) {
    t = g_get_monotonic_time ();
    r = gst_avhw_dec_fail_inject (GST_OBJECT (par->dec), it->pkt->pts,
        avcodec_send_packet (s->ctx, it->pkt));
    s->st.send += g_get_monotonic_time () - t;
    if (r != AVERROR (EAGAIN) || s->failed)
      break;
    receive (s, it->seg);
  }
  if (r < 0 && r != AVERROR_EOF && !s->failed)
    session_error (s, it->seg, "avcodec_send_packet", r);
  if (!s->failed)
    receive (s, it->seg);
}

static gpointer
session_loop (gpointer data)
{
  Session *s = data;
  GstAvhwDecParallel *par = s->par;
  gboolean skip;
  Item *it;

  g_mutex_lock (&par->lock);
  for (;;) {
    while (!par->quit && g_queue_is_empty (&s->in))
      g_cond_wait (&par->cond, &par->lock);
    if (par->quit)
      break;
    it = g_queue_pop_head (&s->in);
    s->busy = TRUE;
    skip = par->flushing;
    g_mutex_unlock (&par->lock);
    if (!skip)
      decode_item (s, it);
    item_free (it);
    g_mutex_lock (&par->lock);
    s->busy = FALSE;
    g_cond_broadcast (&par->cond);
  }
  g_mutex_unlock (&par->lock);
  return NULL;
}

static guint
resolve_n (GstAvhwDec * self)
{
  GstQuery *q;
  gboolean seekable = FALSE;
  guint engines = 0;

  if (self->parallel)
    return self->parallel;
  if (gst_avhw_dec_upstream_is_live (self)) {
    GST_DEBUG_OBJECT (self, "parallel=0: one session: upstream is live");
    return 1;
  }
  q = gst_query_new_seeking (GST_FORMAT_TIME);
  if (gst_pad_peer_query (GST_VIDEO_DECODER_SINK_PAD (self), q))
    gst_query_parse_seeking (q, NULL, &seekable, NULL, NULL);
  gst_query_unref (q);
  if (!seekable) {
    GST_DEBUG_OBJECT (self, "parallel=0: one session: upstream cannot seek");
    return 1;
  }
  /* a hardware decoder: one session per decoder engine, as the driver
   * counts them (NVDEC: 7 on an H200) */
  if (self->ctx->hw_device_ctx)
    engines = gst_avhw_backend_get_decode_engines
        (gst_avhw_device_get_backend (DEVICE (self)),
        gst_avhw_device_get_index (DEVICE (self)), self->codec->id);
  if (engines > 0) {
    GST_DEBUG_OBJECT (self, "parallel=0: %u sessions, the device's decoder "
        "engines", engines);
    return MIN (engines, 64);
  }
  return CLAMP (g_get_num_processors (), 1, AUTO_MAX_SESSIONS);
}

GstAvhwDecParallel *
gst_avhw_dec_parallel_new (GstAvhwDec * self)
{
  GstAvhwDecParallel *par;
  guint n = resolve_n (self), i;
  gint threads;
  gchar *why = NULL;

  if (n <= 1)
    return NULL;
  if (!gst_avhw_dec_watch_cuts (self->watch, &why)) {
    GST_DEBUG_OBJECT (self, "parallel=%u: one session: %s", n, why);
    g_free (why);
    return NULL;
  }
  par = g_new0 (GstAvhwDecParallel, 1);
  par->dec = self;
  par->watch = self->watch;
  par->max_buffered = self->max_buffered;
  g_mutex_init (&par->lock);
  g_cond_init (&par->cond);
  par->sessions = g_new0 (Session, n);
  threads = self->threads ? self->threads : self->ctx->hw_device_ctx ? 1 :
      MAX (1, (gint) (g_get_num_processors () / n));
  for (i = 0; i < n; i++) {
    Session *s = &par->sessions[par->n];

    s->par = par;
    s->ctx = i == 0 ? self->ctx : gst_avhw_dec_open_session (self, threads);
    if (!s->ctx) {
      GST_DEBUG_OBJECT (self, "parallel=%u: session %u did not open", n, i);
      break;
    }
    s->owns_ctx = i > 0;
    s->join = gst_avhw_dec_join_applies (self->codec,
        self->ctx->hw_device_ctx != NULL);
    /* a decoder kept from a stream before may hold its join frames */
    s->joined = i == 0 && self->joined;
    s->thread = g_thread_new ("avhwdec-session", session_loop, s);
    par->n++;
  }
  GST_INFO_OBJECT (self, "%u sessions, at most %u frames waiting", par->n,
      par->max_buffered);
  if (par->n < 2) {
    GST_DEBUG_OBJECT (self, "parallel=%u: one session: no second decoder "
        "session opened", n);
    gst_avhw_dec_parallel_free (par);
    return NULL;
  }
  return par;
}

/* Drops every waiting frame and queued packet; sessions are left idle and
 * flushed. Only from the streaming thread. */
void
gst_avhw_dec_parallel_flush (GstAvhwDecParallel * par)
{
  Segment *seg;
  guint i;

  g_mutex_lock (&par->lock);
  par->flushing = TRUE;
  g_cond_broadcast (&par->cond);
  for (i = 0; i < par->n; i++) {
    g_queue_clear_full (&par->sessions[i].in, (GDestroyNotify) item_free);
    while (par->sessions[i].busy)
      g_cond_wait (&par->cond, &par->lock);
  }
  while ((seg = g_queue_pop_head (&par->segments)))
    segment_free (seg);
  par->open = NULL;
  par->buffered = 0;
  for (i = 0; i < par->n; i++) {
    if (!par->sessions[i].failed)
      avcodec_flush_buffers (par->sessions[i].ctx);
    par->sessions[i].joined = FALSE;
  }
  par->flushing = FALSE;
  g_mutex_unlock (&par->lock);
}

void
gst_avhw_dec_parallel_free (GstAvhwDecParallel * par)
{
  guint i;

  if (!par)
    return;
  gst_avhw_dec_parallel_flush (par);
  g_mutex_lock (&par->lock);
  par->quit = TRUE;
  g_cond_broadcast (&par->cond);
  g_mutex_unlock (&par->lock);
  for (i = 0; i < par->n; i++) {
    Session *s = &par->sessions[i];

    g_thread_join (s->thread);
    if (s->failed && s->owns_ctx)
      gst_avhw_dec_fail_abandon (&s->ctx);
    else if (s->failed)
      par->dec->ctx_failed = TRUE;
    else if (s->owns_ctx)
      avcodec_free_context (&s->ctx);
    av_buffer_unref (&s->copy_pool);
  }
  g_free (par->sessions);
  g_mutex_clear (&par->lock);
  g_cond_clear (&par->cond);
  g_free (par);
}

/* ------------------------------------------------------------ output */

/* Frames of @seg the decoder never gave back (dropped as corrupt). */
static void
release_leftovers (GstAvhwDec * self, Segment * seg)
{
  GstVideoDecoder *dec = GST_VIDEO_DECODER (self);
  GList *frames = gst_video_decoder_get_frames (dec), *l;

  for (l = frames; l; l = l->next) {
    GstVideoCodecFrame *f = l->data;

    if (f->system_frame_number >= seg->first
        && f->system_frame_number <= seg->last)
      gst_video_decoder_release_frame (dec, gst_video_codec_frame_ref (f));
  }
  g_list_free_full (frames, (GDestroyNotify) gst_video_codec_frame_unref);
}

/* Finishes every frame of the head segments that is ready. With the lock
 * held; drops it while finishing. */
static GstFlowReturn
push_ready (GstAvhwDecParallel * par)
{
  GstFlowReturn ret = GST_FLOW_OK;
  Segment *seg;
  gint64 t;
  Out *o;

  while (ret == GST_FLOW_OK && (seg = g_queue_peek_head (&par->segments))) {
    o = g_queue_pop_head (&seg->out);
    if (!o && !seg->done)
      break;
    if (!o) {
      g_queue_pop_head (&par->segments);
      g_cond_broadcast (&par->cond);
      g_mutex_unlock (&par->lock);
      release_leftovers (par->dec, seg);
      segment_free (seg);
      g_mutex_lock (&par->lock);
      continue;
    }
    if (o->frame) {
      par->buffered--;
      g_cond_broadcast (&par->cond);
    }
    g_mutex_unlock (&par->lock);
    t = g_get_monotonic_time ();
    ret = o->frame ? gst_avhw_dec_output_decoded (par->dec, o->frame,
        o->from_decoder) : gst_avhw_dec_decode_error (par->dec, o->call,
        o->error);
    par->t_out += g_get_monotonic_time () - t;
    par->pushed += o->frame != NULL;
    out_free (o);
    g_mutex_lock (&par->lock);
  }
  return ret;
}

/* With the lock held: the open segment gets no more input. */
static void
close_open (GstAvhwDecParallel * par)
{
  Item *it;

  if (!par->open)
    return;
  it = g_new0 (Item, 1);
  it->seg = par->open;
  g_queue_push_tail (&par->sessions[(par->started - 1) % par->n].in, it);
  g_cond_broadcast (&par->cond);
  par->open = NULL;
}

/* With the lock held: pushes ready frames until fewer than @limit
 * segments are in flight. */
static GstFlowReturn
wait_for_room (GstAvhwDecParallel * par, guint limit)
{
  GstFlowReturn ret;
  gint64 t;

  for (;;) {
    ret = push_ready (par);
    if (ret != GST_FLOW_OK || g_queue_get_length (&par->segments) < limit)
      return ret;
    t = g_get_monotonic_time ();
    g_cond_wait (&par->cond, &par->lock);
    par->t_wait += g_get_monotonic_time () - t;
  }
}

/* @frame, scanned by the watcher (@cut): a new packet. */
static AVPacket *
make_packet (GstAvhwDecParallel * par, GstVideoCodecFrame * frame,
    gboolean first, gboolean cut)
{
  AVPacket *pkt;
  GstMapInfo map;

  if (!gst_buffer_map (frame->input_buffer, &map, GST_MAP_READ))
    return NULL;
  /* A session starting a segment gets every parameter set so far: it has
   * not seen the segments of the other sessions. */
  pkt = gst_avhw_dec_watch_packet (par->watch, map.data, map.size,
      first || cut);
  if (pkt) {
    pkt->pts = frame->system_frame_number;
    if (GST_VIDEO_CODEC_FRAME_IS_SYNC_POINT (frame))
      pkt->flags |= AV_PKT_FLAG_KEY;
  }
  gst_buffer_unmap (frame->input_buffer, &map);
  return pkt;
}

GstFlowReturn
gst_avhw_dec_parallel_handle_frame (GstAvhwDecParallel * par,
    GstVideoCodecFrame * frame, const GstAvhwDecUnit * unit)
{
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean cut = unit->cut, start;
  gint64 t0 = g_get_monotonic_time ();
  Item *it;
  AVPacket *pkt;

  if (!par->t_first)
    par->t_first = t0;
  /* The parameter sets prepended to a segment's first packet are those
   * seen before and in it: scanned first, started after. */
  pkt = make_packet (par, frame, par->open == NULL, cut);
  gst_video_codec_frame_unref (frame);
  par->t_in += g_get_monotonic_time () - t0;
  if (!pkt)
    return GST_FLOW_ERROR;
  g_mutex_lock (&par->lock);
  start = !par->open || (cut && par->open->n_in >= MIN_SEGMENT_FRAMES);
  if (start && par->open) {
    close_open (par);
    ret = wait_for_room (par, par->n);
  }
  if (ret != GST_FLOW_OK) {
    g_mutex_unlock (&par->lock);
    av_packet_free (&pkt);
    return ret;
  }
  if (start) {
    par->open = g_new0 (Segment, 1);
    par->open->first = pkt->pts;
    /* a field IDR would leave half a picture behind a join */
    if (cut && unit->key == GST_AVHW_DEC_KEY_IDR_FRAME)
      par->open->idr = av_packet_clone (pkt);
    g_queue_push_tail (&par->segments, par->open);
    par->started++;
    GST_LOG_OBJECT (par->dec, "segment %" G_GUINT64_FORMAT " from frame %"
        G_GINT64_FORMAT " on session %u", par->started - 1, pkt->pts,
        (guint) ((par->started - 1) % par->n));
  }
  par->open->last = pkt->pts;
  par->open->n_in++;
  it = g_new0 (Item, 1);
  it->pkt = pkt;
  it->seg = par->open;
  it->cut = cut;
  g_queue_push_tail (&par->sessions[(par->started - 1) % par->n].in, it);
  g_cond_broadcast (&par->cond);
  ret = push_ready (par);
  g_mutex_unlock (&par->lock);
  return ret;
}

/* Where the time went since the first frame (or the last report), in the
 * debug log; with the lock held. */
static void
report (GstAvhwDecParallel * par)
{
  gint64 wall = g_get_monotonic_time () - par->t_first;
  guint i;

  if (!par->t_first || wall <= 0)
    return;
  GST_INFO_OBJECT (par->dec, "parallel=%u: %" G_GUINT64_FORMAT " frames in "
      "%.1f ms (%.0f fps); streaming thread: making packets %.1f ms, "
      "finishing frames %.1f ms, waiting for the head segment %.1f ms", par->n,
      par->pushed, wall / 1e3, par->pushed * 1e6 / wall, par->t_in / 1e3,
      par->t_out / 1e3, par->t_wait / 1e3);
  for (i = 0; i < par->n; i++) {
    SessionStats *st = &par->sessions[i].st;

    /* receive and end include the waiting and copying of the frames they
     * take */
    GST_INFO_OBJECT (par->dec, "session %u: %u segments, %u frames; busy "
        "%.1f ms (%.0f %%): in FFmpeg %.1f ms (send %.1f), device copies "
        "%.1f ms, waiting for room %.1f ms, ending segments %.1f ms", i,
        st->segments, st->frames, (st->send + st->receive + st->end) / 1e3,
        100.0 * (st->send + st->receive + st->end) / wall,
        (st->send + st->receive + st->end - st->wait - st->copy) / 1e3,
        st->send / 1e3, st->copy / 1e3, st->wait / 1e3, st->end / 1e3);
    memset (st, 0, sizeof (*st));
  }
  par->t_first = par->t_in = par->t_out = par->t_wait = 0;
  par->pushed = 0;
}

/* Every segment decoded and finished. */
GstFlowReturn
gst_avhw_dec_parallel_drain (GstAvhwDecParallel * par)
{
  GstFlowReturn ret;

  g_mutex_lock (&par->lock);
  if (par->started == 1 && par->open)
    GST_DEBUG_OBJECT (par->dec, "parallel=%u: one segment: no cut point after "
        "the first frame (%s)", par->n,
        par->dec->codec->id ==
        AV_CODEC_ID_H264 ? "H.264 cuts at IDR" :
        "H.265 cuts at IDR and BLA, not CRA");
  close_open (par);
  ret = wait_for_room (par, 1);
  report (par);
  g_mutex_unlock (&par->lock);
  return ret;
}
