/* gst-avhw: avhwdec, the scheduler over a stream's decoder sessions
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With one session (parallel=1, or a stream that cannot be cut) every
 * packet goes to it inline, in the streaming thread, and its frames go
 * out as they come.
 *
 * With N > 1 (GOP-parallel decoding) the stream is cut into segments at access units where decoding can start
 * afresh (the stream's watcher, gstavhwdecwatch.c). Segment k goes to session k % N
 * (gstavhwdecsession.c), each a decoder of its own on the same device,
 * fed by its own thread; a session ends each segment as it ends a stream
 * (a join for H.264 on hardware: a flush would make FFmpeg re-create the
 * hardware decoder for every segment; else a drain and flush). Up to N
 * segments are in flight. A session whose hardware decoder fails, or
 * meets field pictures its device decodes wrongly, goes on in software
 * from its segment's last key frame, as one session would. Decoded frames wait in their segment, in the
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
#include "gstavhwdecsched.h"
#include "gstavhwdecoutput.h"

GST_DEBUG_CATEGORY_EXTERN (gst_avhw_dec_debug);
#define GST_CAT_DEFAULT gst_avhw_dec_debug

/* A segment ends at a cut point only once it has this many frames:
 * all-intra streams would otherwise drain a session every frame. */
#define MIN_SEGMENT_FRAMES 16
typedef struct _Segment Segment;
typedef struct _Session Session;

struct _Segment
{
  GQueue out;                   /* Out, in output order */
  gboolean done;                /* its session drained it */
  guint32 first, last;          /* system frame numbers */
  guint n_in;
  /* monotonic µs: its first packet queued, its first frame decoded (the
   * first frame's account in the debug log) */
  gint64 t_queued, t_decoded;
};

typedef struct
{
  AVFrame *frame;               /* NULL: a fault, or frames lost */
  gboolean from_decoder;
  GstAvhwDecFault fault;
  gboolean lost;                /* input frames first..last will not come */
  gint64 first, last;
} Out;

typedef struct
{
  AVPacket *pkt;                /* NULL: end of the segment */
  Segment *seg;
  GstAvhwDecSend info;
} Item;

/* Where a session's time goes, in microseconds (debug log at the end of
 * each stream: avhwdec:4). */
typedef struct
{
  gint64 send, wait, copy, end;
  guint segments, frames;
} SessionStats;

struct _Session
{
  GstAvhwDecSched *par;
  SessionStats st;
  GstAvhwDecSession *session;   /* NULL until its thread opened it, or
                                 * when it could not */
  GThread *thread;
  GQueue in;                    /* Item */
  gboolean busy;
  AVBufferRef *copy_pool;
};

struct _GstAvhwDecSched
{
  GstAvhwDec *dec;
  GstAvhwDecSession *first;     /* the stream's first session */
  /* what the sessions after the first open with, on their own threads */
  const AVCodec *codec;
  gboolean hw;
  gint threads;
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
add_out (GstAvhwDecSched * par, Segment * seg, AVFrame * frame,
    gboolean from_decoder, const GstAvhwDecFault * fault)
{
  Out *o = g_new0 (Out, 1);

  o->frame = frame;
  o->from_decoder = from_decoder;
  if (fault)
    o->fault = *fault;
  g_queue_push_tail (&seg->out, o);
  if (frame && !seg->t_decoded)
    seg->t_decoded = g_get_monotonic_time ();
  if (frame)
    par->buffered++;
  g_cond_broadcast (&par->cond);
}

typedef struct
{
  Session *s;
  Segment *seg;
} SessionOut;

/* A frame of @seg out of a session's decoder: it waits in the segment.
 * FLUSHING once flushing. */
static GstFlowReturn
seg_frame (gpointer user_data, AVFrame * frame, gboolean from_decoder)
{
  SessionOut *so = user_data;
  Session *s = so->s;
  Segment *seg = so->seg;
  GstAvhwDecSched *par = s->par;
  gboolean going;
  AVFrame *copy;
  gint64 t, t2;

  g_mutex_lock (&par->lock);
  t = g_get_monotonic_time ();
  while (!par->flushing && !par->quit && par->buffered >= par->max_buffered
      && g_queue_peek_head (&par->segments) != seg)
    g_cond_wait (&par->cond, &par->lock);
  g_mutex_unlock (&par->lock);
  t2 = g_get_monotonic_time ();
  s->st.wait += t2 - t;
  s->st.frames++;
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
  if (!seg->t_decoded)
    GST_LOG_OBJECT (par->dec, "session %u: the first frame of the segment "
        "from frame %u, %.1f ms after its first packet was queued; waited "
        "%.1f ms for room, copied in %.1f ms", (guint) (s - par->sessions),
        seg->first, (t - seg->t_queued) / 1e3, (t2 - t) / 1e3,
        (g_get_monotonic_time () - t2) / 1e3);
  g_mutex_lock (&par->lock);
  going = !par->flushing && !par->quit;
  if (going)
    add_out (par, seg, frame, from_decoder, NULL);
  else
    av_frame_free (&frame);
  g_mutex_unlock (&par->lock);
  return going ? GST_FLOW_OK : GST_FLOW_FLUSHING;
}

/* A fault waits in the segment, in its place in the stream; a stream
 * fault lets the session go on (the streaming thread counts it towards
 * max-errors). */
static GstFlowReturn
seg_fault (gpointer user_data, const GstAvhwDecFault * fault)
{
  SessionOut *so = user_data;
  GstAvhwDecSched *par = so->s->par;

  g_mutex_lock (&par->lock);
  add_out (par, so->seg, NULL, FALSE, fault);
  g_mutex_unlock (&par->lock);
  return fault->kind == GST_AVHW_DEC_FAULT_STREAM ? GST_FLOW_OK :
      GST_FLOW_ERROR;
}

/* Frames of the segment that will not come out (a session that took over
 * from a failed decoder starts later): dropped in their turn, as one
 * session drops them, so that the timestamps GstVideoDecoder gives the
 * frames after them are the same. */
static void
seg_lost (gpointer user_data, gint64 first, gint64 last)
{
  SessionOut *so = user_data;
  GstAvhwDecSched *par = so->s->par;
  Out *o = g_new0 (Out, 1);

  o->lost = TRUE;
  o->first = first;
  o->last = last;
  g_mutex_lock (&par->lock);
  g_queue_push_tail (&so->seg->out, o);
  g_cond_broadcast (&par->cond);
  g_mutex_unlock (&par->lock);
}

static const GstAvhwDecSessionOut seg_out = { seg_frame, seg_fault, seg_lost };

static void
decode_item (Session * s, Item * it)
{
  GstAvhwDecSched *par = s->par;
  SessionOut so = { s, it->seg };
  gint64 t = g_get_monotonic_time ();

  if (!s->session) {
    /* it did not open, nor in software: the segment ends in an error, in
     * its turn */
    if (!it->pkt) {
      GstAvhwDecFault f = { GST_AVHW_DEC_FAULT_DEVICE, "avcodec_open2",
        AVERROR_EXTERNAL, -1, par->codec->name
      };

      seg_fault (&so, &f);
      g_mutex_lock (&par->lock);
      it->seg->done = TRUE;
      g_cond_broadcast (&par->cond);
      g_mutex_unlock (&par->lock);
    }
    return;
  }
  if (it->pkt) {
    gst_avhw_dec_session_send (s->session, it->pkt, &it->info, &seg_out, &so);
    s->st.send += g_get_monotonic_time () - t;
    return;
  }
  gst_avhw_dec_session_end (s->session, TRUE, &seg_out, &so);
  s->st.end += g_get_monotonic_time () - t;
  s->st.segments++;
  g_mutex_lock (&par->lock);
  it->seg->done = TRUE;
  g_cond_broadcast (&par->cond);
  g_mutex_unlock (&par->lock);
}

/* A session after the first opens on its own thread, while the first
 * decodes the stream's first segment: its decoder from the device's cache
 * where one is kept, else opened; where that fails, in software (with
 * fallback). */
static void
open_session (Session * s)
{
  GstAvhwDecSched *par = s->par;
  GstAvhwDecSession *session;
  gint64 t = g_get_monotonic_time ();

  session = gst_avhw_dec_session_open_as (&par->dec->stream, par->codec,
      par->hw, par->threads);
  if (!session && par->hw && par->dec->stream.fallback) {
    GST_WARNING_OBJECT (par->dec, "session %u: no hardware decoder opened: "
        "decoding its segments in software", (guint) (s - par->sessions));
    session = gst_avhw_dec_session_open_as (&par->dec->stream, par->codec,
        FALSE, par->threads);
  }
  if (!session)
    GST_ELEMENT_ERROR (par->dec, RESOURCE, FAILED,
        ("Could not open decoder session %u of %u (%s on device %s).",
            (guint) (s - par->sessions), par->n, par->codec->name,
            gst_avhw_device_get_name (par->dec->stream.device)),
        ("parallel=%u: set parallel=1", par->n));
  GST_DEBUG_OBJECT (par->dec, "session %u open in %.1f ms",
      (guint) (s - par->sessions), (g_get_monotonic_time () - t) / 1e3);
  g_mutex_lock (&par->lock);
  s->session = session;
  s->busy = FALSE;
  g_cond_broadcast (&par->cond);
  g_mutex_unlock (&par->lock);
}

static gpointer
session_loop (gpointer data)
{
  Session *s = data;
  GstAvhwDecSched *par = s->par;
  gboolean skip;
  Item *it;

  /* busy from its start (gst_avhw_dec_sched_new()) until open */
  if (!s->session)
    open_session (s);
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

/* ------------------------------------------------------------ one session */

static GstFlowReturn
direct_frame (gpointer user_data, AVFrame * frame, gboolean from_decoder)
{
  GstFlowReturn ret = gst_avhw_dec_output_decoded (user_data, frame,
      from_decoder);

  av_frame_free (&frame);
  return ret;
}

static GstFlowReturn
direct_fault (gpointer user_data, const GstAvhwDecFault * fault)
{
  return gst_avhw_dec_output_fault (user_data, fault);
}

static void
direct_lost (gpointer user_data, gint64 first, gint64 last)
{
  gst_avhw_dec_output_lost (user_data, first, last);
}

static const GstAvhwDecSessionOut direct_out = {
  direct_frame, direct_fault, direct_lost
};

/* @frame (taken) to the one session, inline. */
static GstFlowReturn
send_inline (GstAvhwDecSched * par, GstVideoCodecFrame * frame,
    const GstAvhwDecUnit * unit)
{
  GstAvhwDecSend info = { frame->system_frame_number, unit->cut,
    unit->field, NULL
  };
  AVPacket *pkt = av_packet_alloc (), *idr = NULL;
  GstFlowReturn ret;
  GstMapInfo map;
  int r = -1;

  if (pkt && gst_buffer_map (frame->input_buffer, &map, GST_MAP_READ)) {
    r = av_new_packet (pkt, map.size);
    if (r == 0) {
      memcpy (pkt->data, map.data, map.size);
      pkt->pts = frame->system_frame_number;
      if (GST_VIDEO_CODEC_FRAME_IS_SYNC_POINT (frame))
        pkt->flags |= AV_PKT_FLAG_KEY;
      /* the stream's last IDR, with its parameter sets: a join ends the
       * stream with it */
      if (unit->key == GST_AVHW_DEC_KEY_IDR_FRAME
          && gst_avhw_dec_session_joins (par->first))
        info.idr = idr = gst_avhw_dec_watch_packet (par->watch, map.data,
            map.size, TRUE);
    }
    gst_buffer_unmap (frame->input_buffer, &map);
  }
  gst_video_codec_frame_unref (frame);
  if (r < 0) {
    av_packet_free (&pkt);
    return GST_FLOW_ERROR;
  }
  ret = gst_avhw_dec_session_send (par->first, pkt, &info, &direct_out,
      par->dec);
  av_packet_free (&pkt);
  av_packet_free (&idr);
  return ret;
}

/* ------------------------------------------------------------ setup */

GstAvhwDecSched *
gst_avhw_dec_sched_new (GstAvhwDec * dec, GstAvhwDecSession * first, guint n)
{
  GstAvhwDecSched *par = g_new0 (GstAvhwDecSched, 1);
  gboolean hw = gst_avhw_dec_session_is_hw (first);
  gchar *why = NULL;
  guint i;

  par->dec = dec;
  par->first = first;
  par->watch = dec->watch;
  par->max_buffered = dec->max_buffered;
  g_mutex_init (&par->lock);
  g_cond_init (&par->cond);
  par->n = 1;
  if (n <= 1)
    return par;
  if (!gst_avhw_dec_watch_cuts (dec->watch, &why)) {
    GST_DEBUG_OBJECT (dec, "parallel=%u: one session: %s", n, why);
    g_free (why);
    return par;
  }
  par->sessions = g_new0 (Session, n);
  par->codec = gst_avhw_dec_session_get_codec (first);
  par->hw = hw;
  par->threads = dec->threads ? dec->threads : hw ? 1 :
      MAX (1, (gint) (g_get_num_processors () / n));
  par->n = n;
  /* the first session takes the first segment at once; the others open
   * on their threads meanwhile (or come from the device's cache) */
  for (i = 0; i < n; i++) {
    Session *s = &par->sessions[i];

    s->par = par;
    s->session = i == 0 ? first : NULL;
    s->busy = i > 0;
    s->thread = g_thread_new ("avhwdec-session", session_loop, s);
  }
  GST_INFO_OBJECT (dec, "%u sessions, at most %u frames waiting", par->n,
      par->max_buffered);
  return par;
}

guint
gst_avhw_dec_sched_get_n (GstAvhwDecSched * par)
{
  return par->n;
}

gboolean
gst_avhw_dec_sched_reads_units (GstAvhwDecSched * par)
{
  return par->n > 1 || gst_avhw_dec_session_joins (par->first)
      || par->dec->stream.fields_why;
}

/* Stops the sessions' work and drops what waits; with @decoders, flushes
 * their decoders too. */
static void
flush (GstAvhwDecSched * par, gboolean decoders)
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
  for (i = 0; decoders && i < par->n; i++)
    if (par->sessions[i].session)
      gst_avhw_dec_session_flush (par->sessions[i].session);
  par->flushing = FALSE;
  g_mutex_unlock (&par->lock);
}

void
gst_avhw_dec_sched_flush (GstAvhwDecSched * par)
{
  if (!par->sessions) {
    gst_avhw_dec_session_flush (par->first);
    return;
  }
  flush (par, TRUE);
}

void
gst_avhw_dec_sched_free (GstAvhwDecSched * par)
{
  guint i;

  if (!par)
    return;
  if (!par->sessions) {
    gst_avhw_dec_session_close (par->first);
  } else {
    /* The decoders are not flushed here: FFmpeg's h264 flush drops its
     * hwaccel, and each kept session would create its hardware decoder
     * again at the next stream's first frame (NVDEC: 50-70 ms each, one
     * after another: the warm first frame of parallel=7 came 250-510 ms
     * late). A session whose stream ended by a join is kept as it is;
     * the others are flushed as they close (close_decoder()). */
    flush (par, FALSE);
    g_mutex_lock (&par->lock);
    par->quit = TRUE;
    g_cond_broadcast (&par->cond);
    g_mutex_unlock (&par->lock);
    for (i = 0; i < par->n; i++)
      g_thread_join (par->sessions[i].thread);
    /* the first session last: the device's cache keeps the decoders given
     * last, and the next stream's first session asks for its key */
    for (i = par->n; i-- > 0;) {
      Session *s = &par->sessions[i];

      gst_avhw_dec_session_close (s->session);
      av_buffer_unref (&s->copy_pool);
    }
    g_free (par->sessions);
  }
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
push_ready (GstAvhwDecSched * par)
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
    if (o->lost)
      /* within the segment: the frames before it are not its session's */
      gst_avhw_dec_output_lost (par->dec, MAX (o->first, seg->first),
          MIN (o->last, seg->last));
    else
      ret = o->frame ? gst_avhw_dec_output_decoded (par->dec, o->frame,
          o->from_decoder) : gst_avhw_dec_output_fault (par->dec, &o->fault);
    if (o->frame && !par->pushed)
      GST_DEBUG_OBJECT (par->dec, "first frame: from the stream's first "
          "packet, its segment's first packet queued +%.1f ms, decoded "
          "+%.1f ms, out +%.1f ms (finishing it %.1f ms)",
          (seg->t_queued - par->t_first) / 1e3,
          (seg->t_decoded - par->t_first) / 1e3,
          (g_get_monotonic_time () - par->t_first) / 1e3,
          (g_get_monotonic_time () - t) / 1e3);
    par->t_out += g_get_monotonic_time () - t;
    par->pushed += o->frame != NULL;
    out_free (o);
    g_mutex_lock (&par->lock);
  }
  return ret;
}

/* With the lock held: the open segment gets no more input. */
static void
close_open (GstAvhwDecSched * par)
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
wait_for_room (GstAvhwDecSched * par, guint limit)
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
make_packet (GstAvhwDecSched * par, GstVideoCodecFrame * frame,
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
gst_avhw_dec_sched_handle_frame (GstAvhwDecSched * par,
    GstVideoCodecFrame * frame, const GstAvhwDecUnit * unit)
{
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean cut = unit->cut, start;
  gint64 t0 = g_get_monotonic_time ();
  Item *it;
  AVPacket *pkt;

  if (!par->sessions)
    return send_inline (par, frame, unit);
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
    par->open->t_queued = g_get_monotonic_time ();
    g_queue_push_tail (&par->segments, par->open);
    par->started++;
    g_atomic_int_inc (&par->dec->segments);
    GST_LOG_OBJECT (par->dec, "segment %" G_GUINT64_FORMAT " from frame %"
        G_GINT64_FORMAT " on session %u", par->started - 1, pkt->pts,
        (guint) ((par->started - 1) % par->n));
  }
  par->open->last = pkt->pts;
  par->open->n_in++;
  it = g_new0 (Item, 1);
  it->pkt = pkt;
  it->seg = par->open;
  it->info.number = pkt->pts;
  it->info.cut = cut;
  it->info.field = unit->field;
  /* a cut point's packet has every parameter set in front: a join ends
   * the segment with it (not with a field IDR: half a picture) */
  if (cut && unit->key == GST_AVHW_DEC_KEY_IDR_FRAME)
    it->info.idr = pkt;
  g_queue_push_tail (&par->sessions[(par->started - 1) % par->n].in, it);
  g_cond_broadcast (&par->cond);
  ret = push_ready (par);
  g_mutex_unlock (&par->lock);
  return ret;
}

/* Where the time went since the first frame (or the last report), in the
 * debug log; with the lock held. */
static void
report (GstAvhwDecSched * par)
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

    /* send and end include the waiting and copying of the frames they
     * take */
    GST_INFO_OBJECT (par->dec, "session %u: %u segments, %u frames; busy "
        "%.1f ms (%.0f %%): in FFmpeg %.1f ms (send %.1f), device copies "
        "%.1f ms, waiting for room %.1f ms, ending segments %.1f ms", i,
        st->segments, st->frames, (st->send + st->end) / 1e3,
        100.0 * (st->send + st->end) / wall,
        (st->send + st->end - st->wait - st->copy) / 1e3,
        st->send / 1e3, st->copy / 1e3, st->wait / 1e3, st->end / 1e3);
    memset (st, 0, sizeof (*st));
  }
  par->t_first = par->t_in = par->t_out = par->t_wait = 0;
  par->pushed = 0;
}

/* Every segment decoded and finished. */
GstFlowReturn
gst_avhw_dec_sched_drain (GstAvhwDecSched * par)
{
  GstFlowReturn ret;

  if (!par->sessions)
    /* a decoder that stays open or is kept ends by a join: it keeps its
     * hwaccel */
    return gst_avhw_dec_session_end (par->first,
        gst_avhw_dec_session_keepable (par->first)
        && gst_avhw_cache_get_reuse (), &direct_out, par->dec);
  g_mutex_lock (&par->lock);
  if (par->started == 1 && par->open)
    GST_DEBUG_OBJECT (par->dec, "parallel=%u: one segment: no cut point after "
        "the first frame (%s)", par->n,
        gst_avhw_dec_session_get_codec (par->first)->id ==
        AV_CODEC_ID_H264 ? "H.264 cuts at IDR" :
        "H.265 cuts at IDR and BLA, not CRA");
  close_open (par);
  ret = wait_for_room (par, 1);
  report (par);
  g_mutex_unlock (&par->lock);
  return ret;
}
