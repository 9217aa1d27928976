/* gst-avhw: avhwdec, a hardware decoder that failed
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw-impl.h>

G_BEGIN_DECLS

/* Whether @error, from a decoder that can fail, is the device failing (a
 * driver call, a submission, memory on the device) rather than the stream
 * being damaged (AVERROR_INVALIDDATA). */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_fail_is_device_error (int error);

/* The same for @ctx: only a hardware decoder's device fails. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_fail_is_device (const AVCodecContext * ctx, int error);

/* Whether the test hook below names @element: its decoders then count as
 * hardware ones that can fail (their input is kept for a replay); no other
 * element's. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_fail_hooked (GstObject * element);

/* Frees *@ctx on a thread of its own, waiting 2 s at most, and sets it to
 * NULL: a decoder whose device failed may never return from being freed
 * (FFmpeg 7.1's Vulkan decoder waits without a timeout for the fence of
 * the submission that failed). Past the wait it is left behind, with a
 * warning. */
G_GNUC_INTERNAL
void gst_avhw_dec_fail_abandon (AVCodecContext ** ctx);

/* Test hook: with GST_AVHW_DEC_FAIL_AT=NAME:N in the environment, sending
 * input frame N to the avhwdec named NAME gives AVERROR_EXTERNAL (as a
 * hardware decoder's failed submission), and that element's decoders count
 * as hardware ones (gst_avhw_dec_fail_hooked()); otherwise @result. */
G_GNUC_INTERNAL
int gst_avhw_dec_fail_inject (GstObject * element, guint64 frame_number,
    int result);

G_END_DECLS
