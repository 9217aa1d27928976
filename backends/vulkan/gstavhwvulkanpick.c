/* gst-avhw: Vulkan backend, the queue families and queues of the
 * backend's VkDevice
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FFmpeg 7.1 (setup_queue_families()) gives each use the family that can
 * do it with the fewest other abilities and uses so far, and makes every
 * queue of each. The backend makes one queue for graphics, compute and
 * transfers, of one family (GStreamer's GstVulkanDevice does the same: one
 * queue of the family that can do most, one decode queue): every family in
 * a device costs NVIDIA's vkCreateDevice ~18 ms and vkDestroyDevice ~10 ms
 * (tests/bench/vk-open.c, run 78), and a decoding pipeline submits nothing
 * but decodes. Video families get as many queues as asked
 * (gstavhwvulkandevice.c: two, the two FFmpeg 7.1's decoders use).
 * A function of the families alone, so that tests/check libs/vkpick holds
 * it to NVIDIA's and lavapipe's families without either.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include "gstavhwvulkanpick.h"

#if GST_AVHW_VK_PICK

/* family @i's abilities, transfers included where it does graphics or
 * compute (such queues do transfers, flagged or not) */
static VkQueueFlags
family_flags (const VkQueueFamilyProperties2 * qf, guint32 i)
{
  VkQueueFlags f = qf[i].queueFamilyProperties.queueFlags;

  if (f & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))
    f |= VK_QUEUE_TRANSFER_BIT;
  return f;
}

static void
pick_one (GstAvhwVkPicked * p, const VkQueueFamilyProperties2 * qf,
    const VkQueueFamilyVideoPropertiesKHR * vid, guint32 * used, uint32_t n,
    VkQueueFlags flag, guint32 codec_op)
{
  guint32 best = G_MAXUINT32, i, k;
  gint idx = -1;

  for (i = 0; i < n; i++) {
    VkQueueFlags f = (flag & VK_QUEUE_TRANSFER_BIT) ? family_flags (qf, i) :
        qf[i].queueFamilyProperties.queueFlags;
    guint32 score;

    if (codec_op) {
      if (!(f & GST_AVHW_VK_VIDEO_BITS)
          || !(vid[i].videoCodecOperations & codec_op))
        continue;
      score = __builtin_popcount (vid[i].videoCodecOperations) + used[i];
    } else {
      if (!(f & flag))
        continue;
      score = __builtin_popcount (f) + used[i];
    }
    if (score < best) {
      best = score;
      idx = i;
    }
  }
  if (idx < 0)
    return;
  used[idx]++;
  for (k = 0; k < p->n; k++) {
    if (p->family[k] == (guint32) idx)
      break;
  }
  if (k == p->n) {
    if (p->n == G_N_ELEMENTS (p->family))
      return;
    p->family[k] = idx;
    p->flags[k] = 0;
    p->video_caps[k] = 0;
    p->n++;
  }
  p->flags[k] |= flag;
  if (codec_op)
    p->video_caps[k] |= vid[idx].videoCodecOperations;
  p->count[k] = 1;
  p->available[k] = qf[idx].queueFamilyProperties.queueCount;
}

/* Adds @flag to the first family picked (graphics, or compute on a device
 * without graphics) where it can do @flag: TRUE when it did. */
static gboolean
share_first (GstAvhwVkPicked * p, const VkQueueFamilyProperties2 * qf,
    VkQueueFlags flag)
{
  if (p->n == 0 || !(family_flags (qf, p->family[0]) & flag))
    return FALSE;
  p->flags[0] |= flag;
  return TRUE;
}

void
gst_avhw_vk_pick_queues (const VkQueueFamilyProperties2 * qf,
    const VkQueueFamilyVideoPropertiesKHR * vid, uint32_t n, gboolean encode,
    gboolean decode, gboolean shared, GstAvhwVkPicked * p)
{
  guint32 *used = g_new0 (guint32, MAX (n, 1));

  memset (p, 0, sizeof (*p));
  pick_one (p, qf, vid, used, n, VK_QUEUE_GRAPHICS_BIT, 0);
  if (!shared || !share_first (p, qf, VK_QUEUE_COMPUTE_BIT))
    pick_one (p, qf, vid, used, n, VK_QUEUE_COMPUTE_BIT, 0);
  if (!shared || !share_first (p, qf, VK_QUEUE_TRANSFER_BIT))
    pick_one (p, qf, vid, used, n, VK_QUEUE_TRANSFER_BIT, 0);
  if (encode) {
    pick_one (p, qf, vid, used, n, VK_QUEUE_VIDEO_ENCODE_BIT_KHR,
        VK_VIDEO_CODEC_OPERATION_ENCODE_H264_BIT_KHR);
    pick_one (p, qf, vid, used, n, VK_QUEUE_VIDEO_ENCODE_BIT_KHR,
        VK_VIDEO_CODEC_OPERATION_ENCODE_H265_BIT_KHR);
  }
  if (decode) {
    pick_one (p, qf, vid, used, n, VK_QUEUE_VIDEO_DECODE_BIT_KHR,
        VK_VIDEO_CODEC_OPERATION_DECODE_H264_BIT_KHR);
    pick_one (p, qf, vid, used, n, VK_QUEUE_VIDEO_DECODE_BIT_KHR,
        VK_VIDEO_CODEC_OPERATION_DECODE_H265_BIT_KHR);
    pick_one (p, qf, vid, used, n, VK_QUEUE_VIDEO_DECODE_BIT_KHR,
        VK_VIDEO_CODEC_OPERATION_DECODE_AV1_BIT_KHR);
  }
  g_free (used);
}


#endif
