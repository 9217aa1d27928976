/* gst-avhw: avhwdec, decoded frames out
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "gstavhwdec-private.h"
#include "gstavhwdecsession.h"

G_BEGIN_DECLS

/* One frame FFmpeg gave (its contents taken; the AVFrame stays the
 * caller's): checked, cropped where FFmpeg could not, finished in the
 * negotiated memory (renegotiated where its size or format changed). */
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_output_decoded (GstAvhwDec * self, AVFrame * frame,
    gboolean from_decoder);

/* A session's fault, said as the element's error (or counted towards
 * max-errors for the stream's own). */
G_GNUC_INTERNAL
GstFlowReturn gst_avhw_dec_output_fault (GstAvhwDec * self,
    const GstAvhwDecFault * fault);

/* Input frames @first..@last will not come out: dropped. */
G_GNUC_INTERNAL
void gst_avhw_dec_output_lost (GstAvhwDec * self, gint64 first, gint64 last);

G_END_DECLS
