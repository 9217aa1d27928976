/* gst-avhw tests: the queues the vulkan backend declares to FFmpeg
 * (backends/vulkan/gstavhwvulkanqueues.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A video family is declared with one queue however many the device has:
 * FFmpeg 7.1 would otherwise run one decoder's frames on two queues at
 * once, which stops NVIDIA's decoder for good (runs 91-92). Other families
 * keep what they are given. Both FFmpeg's queue-family list (7.1) and its
 * fixed fields (5.1, 6).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include "gstavhwvulkanqueues.h"

#define D VK_QUEUE_VIDEO_DECODE_BIT_KHR
#define E GST_AVHW_VK_QUEUE_VIDEO_ENCODE

GST_START_TEST (test_video_families_one_queue)
{
  AVVulkanDeviceContext hw;
  int n = -1;

  memset (&hw, 0, sizeof (hw));
  gst_avhw_vk_set_queues (&hw, 0, 1, VK_QUEUE_GRAPHICS_BIT |
      VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT);
  gst_avhw_vk_add_queues (&hw, 1, 2, VK_QUEUE_TRANSFER_BIT, 0);
  gst_avhw_vk_add_queues (&hw, 3, 7, D | VK_QUEUE_TRANSFER_BIT,
      VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR);
  gst_avhw_vk_add_queues (&hw, 4, 4, E, 0);

  fail_unless_equals_int (gst_avhw_vk_find_queues (&hw, D, &n), 3);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_int (gst_avhw_vk_find_queues (&hw, E, &n), 4);
  fail_unless_equals_int (n, 1);
  fail_unless_equals_int (gst_avhw_vk_find_queues (&hw, VK_QUEUE_GRAPHICS_BIT,
          &n), 0);
  fail_unless_equals_int (n, 1);
#if GST_AVHW_VK_QUEUE_LIST
  /* a transfer family keeps its queues (the fixed fields take the first
   * transfer family, the graphics one) */
  fail_unless_equals_int (hw.nb_qf, 4);
  fail_unless_equals_int (hw.qf[1].idx, 1);
  fail_unless_equals_int (hw.qf[1].num, 2);
#endif
}

GST_END_TEST;

static Suite *
vkqueues_suite (void)
{
  Suite *s = suite_create ("vkqueues");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_video_families_one_queue);
  return s;
}

GST_CHECK_MAIN (vkqueues);
