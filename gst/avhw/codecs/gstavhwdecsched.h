/* gst-avhw: avhwdec, the scheduler over a stream's decoder sessions
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwdec-private.h"
#include "gstavhwdecsession.h"

G_BEGIN_DECLS

typedef struct _GstAvhwDecSched GstAvhwDecSched;

/* The scheduler of @dec's stream over @first (taken) and, where @n > 1 and
 * the stream can be cut, up to @n - 1 more sessions like it, each on a
 * thread of its own; with one session it runs inline, in the streaming
 * thread. */
G_GNUC_INTERNAL
GstAvhwDecSched * gst_avhw_dec_sched_new (GstAvhwDec * dec,
    GstAvhwDecSession * first, guint n);

/* Closes every session (gst_avhw_dec_session_close()). */
G_GNUC_INTERNAL
void gst_avhw_dec_sched_free (GstAvhwDecSched * sched);

/* How many sessions decode at once. */
G_GNUC_INTERNAL
guint gst_avhw_dec_sched_get_n (GstAvhwDecSched * sched);

/* Whether gst_avhw_dec_sched_handle_frame() needs each packet read by the
 * stream's watcher (cut points, IDRs, fields). */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_sched_reads_units (GstAvhwDecSched * sched);

/* @frame (taken), read as @unit (zeroes where not read), to a session;
 * finishes the frames ready to go out. From the streaming thread. */
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_sched_handle_frame (GstAvhwDecSched * sched,
    GstVideoCodecFrame * frame, const GstAvhwDecUnit * unit);

/* Every frame decoded and finished (a stream's end, a drain). */
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_sched_drain (GstAvhwDecSched * sched);

/* Drops every waiting frame and queued packet; the sessions are flushed.
 * From the streaming thread. */
G_GNUC_INTERNAL
void gst_avhw_dec_sched_flush (GstAvhwDecSched * sched);

G_END_DECLS
