/* gst-avhw: avhwdec, a hardware decoder that failed
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw.h>

G_BEGIN_DECLS

/* Whether a failure of @ctx would be its device's: a hardware decoder (or
 * any decoder, under the test hook below). */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_fail_can_fail (const AVCodecContext * ctx);

/* Whether @error from @ctx is the device failing (a driver call, a
 * submission, memory on the device) rather than the stream being damaged
 * (AVERROR_INVALIDDATA): only for hardware decoders. */
G_GNUC_INTERNAL
gboolean gst_avhw_dec_fail_is_device (const AVCodecContext * ctx, int error);

/* Frees *@ctx on a thread of its own, waiting 2 s at most, and sets it to
 * NULL: a decoder whose device failed may never return from being freed
 * (FFmpeg 7.1's Vulkan decoder waits without a timeout for the fence of
 * the submission that failed). Past the wait it is left behind, with a
 * warning. */
G_GNUC_INTERNAL
void gst_avhw_dec_fail_abandon (AVCodecContext ** ctx);

/* Test hook: with GST_AVHW_DEC_FAIL_AT=NAME:N in the environment, sending
 * input frame N to the avhwdec named NAME gives AVERROR_EXTERNAL (as a
 * hardware decoder's failed submission), and every decoder of the process
 * counts as a hardware one; otherwise @result. */
G_GNUC_INTERNAL
int gst_avhw_dec_fail_inject (GstObject * element, guint64 frame_number,
    int result);

G_END_DECLS
