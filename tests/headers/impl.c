/* gst-avhw tests: a backend's view of the API, which does take FFmpeg's
 * types (the headers check's counterpart: FFmpeg's headers are read)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/avhw/gstavhw-impl.h>

enum AVCodecID avhw_test_impl_codec (void);

enum AVCodecID
avhw_test_impl_codec (void)
{
  return AV_CODEC_ID_H264;
}
