/* gst-avhw
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

#ifndef GST_AVHW_API
# ifdef BUILDING_GST_AVHW
#  define GST_AVHW_API GST_API_EXPORT
# else
#  define GST_AVHW_API GST_API_IMPORT
# endif
#endif
