/* gst-avhw tests: the queue families and queues of the vulkan backend's
 * VkDevice (backends/vulkan/gstavhwvulkanpick.c)
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The families of an NVIDIA H100 (as its driver lists them: graphics,
 * transfer, compute, decode with seven queues, optical flow) and of
 * lavapipe, and a device without graphics: what the backend makes of each
 * with the families shared (its default) and one each (FFmpeg's choice):
 * one queue of each family.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include "gstavhwvulkanpick.h"

#define G VK_QUEUE_GRAPHICS_BIT
#define C VK_QUEUE_COMPUTE_BIT
#define T VK_QUEUE_TRANSFER_BIT
#define S VK_QUEUE_SPARSE_BINDING_BIT
#define D VK_QUEUE_VIDEO_DECODE_BIT_KHR
#define OF VK_QUEUE_OPTICAL_FLOW_BIT_NV

typedef struct
{
  VkQueueFlags flags;
  guint32 count;
  guint32 codecs;
} Family;

static const Family h100[] = {
  {G | C | T | S, 16, 0},
  {T | S, 2, 0},
  {C | T | S, 8, 0},
  {D | T, 7, VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR |
        VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR},
  {OF | T, 1, 0},
};

static const Family lavapipe[] = {
  {G | C | T, 1, 0},
};

static const Family no_graphics[] = {
  {T, 1, 0},
  {C | T, 4, 0},
};

static void
pick (const Family * f, guint n, gboolean shared, GstAvhwVkPicked * p)
{
  VkQueueFamilyProperties2 qf[8];
  VkQueueFamilyVideoPropertiesKHR vid[8];
  guint i;

  memset (qf, 0, sizeof (qf));
  memset (vid, 0, sizeof (vid));
  for (i = 0; i < n; i++) {
    qf[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2;
    qf[i].queueFamilyProperties.queueFlags = f[i].flags;
    qf[i].queueFamilyProperties.queueCount = f[i].count;
    vid[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_VIDEO_PROPERTIES_KHR;
    vid[i].videoCodecOperations = f[i].codecs;
  }
  gst_avhw_vk_pick_queues (qf, vid, n, FALSE, TRUE, shared, p);
}

/* @p's family @k is @family, for @flags, with @count queues */
static void
assert_family (const GstAvhwVkPicked * p, guint k, guint32 family,
    VkQueueFlags flags, guint32 count)
{
  fail_unless (k < p->n, "only %u families", p->n);
  fail_unless_equals_int (p->family[k], family);
  fail_unless_equals_int (p->flags[k], flags);
  fail_unless_equals_int (p->count[k], count);
}

GST_START_TEST (test_h100_shared)
{
  GstAvhwVkPicked p;

  pick (h100, G_N_ELEMENTS (h100), TRUE, &p);
  fail_unless_equals_int (p.n, 2);
  assert_family (&p, 0, 0, G | C | T, 1);
  /* one of the seven decode queues (gstavhwvulkanqueues.h says why) */
  assert_family (&p, 1, 3, D, 1);
  fail_unless_equals_int (p.video_caps[1], h100[3].codecs);
  /* the seven a device lane picks its own decode queue from */
  fail_unless_equals_int (p.available[1], 7);
}

GST_END_TEST;

GST_START_TEST (test_h100_each)
{
  GstAvhwVkPicked p;

  /* FFmpeg's: the family with the fewest other abilities for each */
  pick (h100, G_N_ELEMENTS (h100), FALSE, &p);
  fail_unless_equals_int (p.n, 4);
  assert_family (&p, 0, 0, G, 1);
  assert_family (&p, 1, 2, C, 1);
  assert_family (&p, 2, 1, T, 1);
  assert_family (&p, 3, 3, D, 1);
}

GST_END_TEST;

GST_START_TEST (test_lavapipe)
{
  GstAvhwVkPicked p;
  gboolean shared;

  for (shared = FALSE; shared <= TRUE; shared++) {
    pick (lavapipe, G_N_ELEMENTS (lavapipe), shared, &p);
    fail_unless_equals_int (p.n, 1);
    assert_family (&p, 0, 0, G | C | T, 1);
  }
}

GST_END_TEST;

GST_START_TEST (test_no_graphics)
{
  GstAvhwVkPicked p;

  /* compute first, and transfers on it when shared */
  pick (no_graphics, G_N_ELEMENTS (no_graphics), TRUE, &p);
  fail_unless_equals_int (p.n, 1);
  assert_family (&p, 0, 1, C | T, 1);
  pick (no_graphics, G_N_ELEMENTS (no_graphics), FALSE, &p);
  fail_unless_equals_int (p.n, 2);
  assert_family (&p, 0, 1, C, 1);
  assert_family (&p, 1, 0, T, 1);
}

GST_END_TEST;

static Suite *
vkpick_suite (void)
{
  Suite *s = suite_create ("vkpick");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_h100_shared);
  tcase_add_test (tc, test_h100_each);
  tcase_add_test (tc, test_lavapipe);
  tcase_add_test (tc, test_no_graphics);
  return s;
}

GST_CHECK_MAIN (vkpick);
