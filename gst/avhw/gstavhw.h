/* gst-avhw: the application API, with no FFmpeg type or header (backends
 * and elements include gstavhw-impl.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/avhw-prelude.h>
#include <gst/avhw/gstavhwerror.h>
#include <gst/avhw/gstavhwbackend.h>
#include <gst/avhw/gstavhwregistry.h>
#include <gst/avhw/gstavhwdevice.h>
#include <gst/avhw/gstavhwcache.h>
#include <gst/avhw/gstavhwcodeccaps.h>
#include <gst/avhw/gstavhwcodeccache.h>
#include <gst/avhw/gstavhwcontext.h>
#include <gst/avhw/gstavhwmemory.h>
#include <gst/avhw/gstavhwbufferpool.h>
#include <gst/avhw/gstavhwautodec.h>

G_BEGIN_DECLS

GST_AVHW_API
void gst_avhw_init (void);

G_END_DECLS
