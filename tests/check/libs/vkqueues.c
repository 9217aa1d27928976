/* gst-avhw tests: the queues the vulkan backend declares to FFmpeg
 * (backends/vulkan/gstavhwvulkanqueues.h)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A video family is declared with one queue however many the device has:
 * FFmpeg 7.1 would otherwise run one decoder's frames on two queues at
 * once, which stops NVIDIA's decoder for good (runs 91-92). Other families
 * keep what they are given. Both FFmpeg's queue-family list (7.1) and its
 * fixed fields (5.1, 6). And the decode queue each thread's decoders get
 * on the backend's one device.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/check/gstcheck.h>
#include "gstavhwvulkanqueues.h"
#include "gstavhwvulkanthreadqueue.h"

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

static gpointer
thread_queue_twice (gpointer n_queues)
{
  guint32 n = GPOINTER_TO_UINT (n_queues);
  guint32 q = gst_avhw_vk_thread_queue (n);

  /* a thread keeps its queue */
  fail_unless_equals_int (gst_avhw_vk_thread_queue (n), q);
  return GUINT_TO_POINTER (q + 1);
}

/* Each thread that makes decoders on the backend's one device gets a
 * decode queue of its own, in turn (gstavhwvulkanthreadqueue.h): seven
 * threads, one after another, get the seven queues of an H100's decode
 * family; the eighth starts the round again. */
GST_START_TEST (test_thread_queues_in_turn)
{
  gboolean seen[7] = { FALSE, };
  guint32 got[8];
  guint i;

  for (i = 0; i < 8; i++) {
    GThread *t = g_thread_new ("decoder", thread_queue_twice,
        GUINT_TO_POINTER (7));

    got[i] = GPOINTER_TO_UINT (g_thread_join (t)) - 1;
    fail_unless (got[i] < 7);
  }
  for (i = 0; i < 7; i++) {
    fail_if (seen[got[i]], "queue %u given twice in the first round", got[i]);
    seen[got[i]] = TRUE;
  }
  fail_unless_equals_int (got[7], got[0]);
  /* one queue: always queue 0 */
  fail_unless_equals_int (GPOINTER_TO_UINT (g_thread_join (g_thread_new
              ("decoder", thread_queue_twice, GUINT_TO_POINTER (1)))) - 1, 0);
}

GST_END_TEST;

static Suite *
vkqueues_suite (void)
{
  Suite *s = suite_create ("vkqueues");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_video_families_one_queue);
  tcase_add_test (tc, test_thread_queues_in_turn);
  return s;
}

GST_CHECK_MAIN (vkqueues);
