/* gst-avhw: error domain
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/avhw-prelude.h>

G_BEGIN_DECLS

/**
 * GstAvhwError:
 * @GST_AVHW_ERROR_UNKNOWN_BACKEND: no installed backend has that name
 * @GST_AVHW_ERROR_NO_DEVICE: the backend is present but has no such device
 * @GST_AVHW_ERROR_INVALID_ARGUMENT: a device string or option is malformed
 * @GST_AVHW_ERROR_OPEN_FAILED: FFmpeg could not create the device context
 * @GST_AVHW_ERROR_NOT_SUPPORTED: the backend does not implement the operation
 * @GST_AVHW_ERROR_CONTRACT: the backend was built for another contract version
 * @GST_AVHW_ERROR_FAILED: an FFmpeg call failed; the message says which
 */
typedef enum
{
  GST_AVHW_ERROR_UNKNOWN_BACKEND,
  GST_AVHW_ERROR_NO_DEVICE,
  GST_AVHW_ERROR_INVALID_ARGUMENT,
  GST_AVHW_ERROR_OPEN_FAILED,
  GST_AVHW_ERROR_NOT_SUPPORTED,
  GST_AVHW_ERROR_CONTRACT,
  GST_AVHW_ERROR_FAILED,
} GstAvhwError;

#define GST_AVHW_ERROR (gst_avhw_error_quark ())
GST_AVHW_API
GQuark gst_avhw_error_quark (void);

G_END_DECLS
