/* gst-avhw: OpenCL backend
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhwbackend-impl.h>

G_BEGIN_DECLS

#define GST_TYPE_AVHW_OPENCL_BACKEND (gst_avhw_opencl_backend_get_type ())
G_DECLARE_FINAL_TYPE (GstAvhwOpenclBackend, gst_avhw_opencl_backend, GST,
    AVHW_OPENCL_BACKEND, GstAvhwBackend);

G_END_DECLS
