/* gst-avhw: FFmpeg's log, for the avhw plugin only (not installed, not API)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/avhw-prelude.h>

G_BEGIN_DECLS

/* What FFmpeg says at AV_LOG_ERROR or worse in this thread between begin
 * and end, whatever the debug thresholds: for a message to quote ("Error
 * setting profile baseline."), so that it need not be logged again. */
GST_AVHW_API
void _gst_avhw_log_capture_begin (void);

/* Returns: (transfer full) (nullable): the errors, space-separated, each
 * once, without FFmpeg's "[libx264 @ 0x...] " prefix */
GST_AVHW_API
gchar * _gst_avhw_log_capture_end (void);

G_END_DECLS
