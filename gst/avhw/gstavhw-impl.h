/* gst-avhw: the implementer API, for backends and the elements: the
 * application API (gstavhw.h) and the calls and structs that take FFmpeg
 * types (the backend contract, device and frames contexts, AVFrames)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/avhw/gstavhw.h>
#include <gst/avhw/gstavhwbackend-impl.h>
#include <gst/avhw/gstavhwforeigninterop-impl.h>
#include <gst/avhw/gstavhwdevice-impl.h>
#include <gst/avhw/gstavhwmemory-impl.h>
#include <gst/avhw/gstavhwcodeccache-impl.h>
#include <gst/avhw/gstavhwcodecmap.h>
#include <gst/avhw/gstavhwformat.h>
