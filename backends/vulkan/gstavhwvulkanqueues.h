/* gst-avhw: Vulkan backend, the queue families of an AVVulkanDeviceContext
 *
 * FFmpeg 7.1 (libavutil 59.34) lists the device's queue families in qf[]
 * and deprecates the fixed fields (queue_family_tx_index, nb_tx_queues,
 * ...) that FFmpeg 5.1 and 6 have; FF_API_VULKAN_FIXED_QUEUES exists from
 * that change on. This header is the one place that knows the difference:
 * the backend sets a device's queues through it and the tests read them
 * through it.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <libavutil/version.h>
#include <libavutil/hwcontext_vulkan.h>

#ifdef FF_API_VULKAN_FIXED_QUEUES
#define GST_AVHW_VK_QUEUE_LIST 1
#else
#define GST_AVHW_VK_QUEUE_LIST 0
#endif

/* VK_QUEUE_VIDEO_ENCODE_BIT_KHR: Debian 12's Vulkan headers (1.3.239) have
 * video encode as a beta extension only, so it is named here. */
#define GST_AVHW_VK_QUEUE_VIDEO_ENCODE ((VkQueueFlags) 0x00000040)

/* FFmpeg 7.1 still reads the fixed fields in places (vf_libplacebo hands
 * libplacebo queue_family_index, queue_family_comp_index and
 * queue_family_tx_index): with the list, they are set from it as FFmpeg's
 * own device creation sets them (the first family declared for each). */
static inline void
gst_avhw_vk_fixed_from_list (AVVulkanDeviceContext * hwctx)
{
#if GST_AVHW_VK_QUEUE_LIST && FF_API_VULKAN_FIXED_QUEUES
  int i;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS;
  hwctx->queue_family_index = hwctx->queue_family_comp_index = -1;
  hwctx->queue_family_tx_index = hwctx->queue_family_decode_index = -1;
  hwctx->queue_family_encode_index = -1;
  hwctx->nb_graphics_queues = hwctx->nb_comp_queues = 0;
  hwctx->nb_tx_queues = hwctx->nb_decode_queues = hwctx->nb_encode_queues = 0;
#define GST_AVHW_VK_FIXED(field, nb, bit) \
  if (hwctx->field < 0 && (hwctx->qf[i].flags & (bit))) { \
    hwctx->field = hwctx->qf[i].idx; \
    hwctx->nb = hwctx->qf[i].num; \
  }
  for (i = 0; i < hwctx->nb_qf; i++) {
    GST_AVHW_VK_FIXED (queue_family_index, nb_graphics_queues,
        VK_QUEUE_GRAPHICS_BIT);
    GST_AVHW_VK_FIXED (queue_family_comp_index, nb_comp_queues,
        VK_QUEUE_COMPUTE_BIT);
    GST_AVHW_VK_FIXED (queue_family_tx_index, nb_tx_queues,
        VK_QUEUE_TRANSFER_BIT);
    GST_AVHW_VK_FIXED (queue_family_decode_index, nb_decode_queues,
        VK_QUEUE_VIDEO_DECODE_BIT_KHR);
    GST_AVHW_VK_FIXED (queue_family_encode_index, nb_encode_queues,
        GST_AVHW_VK_QUEUE_VIDEO_ENCODE);
  }
#undef GST_AVHW_VK_FIXED
  G_GNUC_END_IGNORE_DEPRECATIONS;
#endif
}

/* Declares @n_queues queues of @family, able to do @flags (of
 * VK_QUEUE_GRAPHICS_BIT, VK_QUEUE_COMPUTE_BIT, VK_QUEUE_TRANSFER_BIT), as
 * the queues FFmpeg uses for those operations and no others. */
static inline void
gst_avhw_vk_set_queues (AVVulkanDeviceContext * hwctx, int family,
    int n_queues, VkQueueFlags flags)
{
#if GST_AVHW_VK_QUEUE_LIST
  hwctx->qf[0].idx = family;
  hwctx->qf[0].num = n_queues;
  hwctx->qf[0].flags = (VkQueueFlagBits) flags;
  hwctx->qf[0].video_caps = 0;
  hwctx->nb_qf = 1;
  gst_avhw_vk_fixed_from_list (hwctx);
#else
  hwctx->queue_family_index = (flags & VK_QUEUE_GRAPHICS_BIT) ? family : -1;
  hwctx->nb_graphics_queues = (flags & VK_QUEUE_GRAPHICS_BIT) ? n_queues : 0;
  hwctx->queue_family_tx_index = family;
  hwctx->nb_tx_queues = n_queues;
  hwctx->queue_family_comp_index = (flags & VK_QUEUE_COMPUTE_BIT) ? family : -1;
  hwctx->nb_comp_queues = (flags & VK_QUEUE_COMPUTE_BIT) ? n_queues : 0;
  hwctx->queue_family_encode_index = -1;
  hwctx->queue_family_decode_index = -1;
#endif
}

/* Declares @n_queues queues of @family as one more family FFmpeg may use,
 * after those set with gst_avhw_vk_set_queues(): for @flags (of the
 * graphics, compute and transfer bits, VK_QUEUE_VIDEO_DECODE_BIT_KHR and
 * GST_AVHW_VK_QUEUE_VIDEO_ENCODE), with @video_caps, the family's codec
 * operations (VkQueueFamilyVideoPropertiesKHR), for video families. FFmpeg
 * takes, for each operation, the first family declared for it. The fixed
 * fields (FFmpeg 5.1 and 6) keep one family per operation: there only a
 * video family not yet declared is added.
 *
 * A video family is declared with one queue, whatever @n_queues: FFmpeg
 * 7.1 submits each decoder's (and encoder's) work from an execution pool
 * whose context i goes to queue i % the family's queues, so with two or
 * more, consecutive frames of one video session run on two queues, ordered
 * only where one frame references the other. Frames that reference
 * nothing in between (an IDR after the frame before it, several IDRs in a
 * row) then run at once on one session, and NVIDIA's decoder stops for
 * good: no error, every later submission of the device waiting (seven
 * kept H.264 decoders at once on an H100, runs 91-92; one queue never
 * stopped). One queue runs a session's frames in order; decoders still run
 * side by side on the device lanes' VkDevices (gstavhwcache.c). */
static inline void
gst_avhw_vk_add_queues (AVVulkanDeviceContext * hwctx, int family,
    int n_queues, VkQueueFlags flags, guint32 video_caps)
{
  if (flags & (VK_QUEUE_VIDEO_DECODE_BIT_KHR | GST_AVHW_VK_QUEUE_VIDEO_ENCODE))
    n_queues = MIN (n_queues, 1);
#if GST_AVHW_VK_QUEUE_LIST
  if (hwctx->nb_qf >= (int) G_N_ELEMENTS (hwctx->qf))
    return;
  hwctx->qf[hwctx->nb_qf].idx = family;
  hwctx->qf[hwctx->nb_qf].num = n_queues;
  hwctx->qf[hwctx->nb_qf].flags = (VkQueueFlagBits) flags;
  hwctx->qf[hwctx->nb_qf].video_caps =
      (VkVideoCodecOperationFlagBitsKHR) video_caps;
  hwctx->nb_qf++;
  gst_avhw_vk_fixed_from_list (hwctx);
#else
  if ((flags & VK_QUEUE_VIDEO_DECODE_BIT_KHR)
      && hwctx->queue_family_decode_index < 0) {
    hwctx->queue_family_decode_index = family;
    hwctx->nb_decode_queues = n_queues;
  }
  if ((flags & GST_AVHW_VK_QUEUE_VIDEO_ENCODE)
      && hwctx->queue_family_encode_index < 0) {
    hwctx->queue_family_encode_index = family;
    hwctx->nb_encode_queues = n_queues;
  }
#endif
}

/* The first queue family of @hwctx able to do @flag (one bit), and its
 * number of queues in @n_queues; -1 when none. */
static inline int
gst_avhw_vk_find_queues (const AVVulkanDeviceContext * hwctx,
    VkQueueFlagBits flag, int *n_queues)
{
#if GST_AVHW_VK_QUEUE_LIST
  int i;

  for (i = 0; i < hwctx->nb_qf; i++) {
    if (hwctx->qf[i].flags & flag) {
      *n_queues = hwctx->qf[i].num;
      return hwctx->qf[i].idx;
    }
  }
  *n_queues = 0;
  return -1;
#else
  switch ((guint) flag) {
    case VK_QUEUE_GRAPHICS_BIT:
      *n_queues = hwctx->nb_graphics_queues;
      return hwctx->queue_family_index;
    case VK_QUEUE_COMPUTE_BIT:
      *n_queues = hwctx->nb_comp_queues;
      return hwctx->queue_family_comp_index;
    case VK_QUEUE_TRANSFER_BIT:
      *n_queues = hwctx->nb_tx_queues;
      return hwctx->queue_family_tx_index;
    case VK_QUEUE_VIDEO_DECODE_BIT_KHR:
      *n_queues = hwctx->nb_decode_queues;
      return hwctx->queue_family_decode_index;
    case GST_AVHW_VK_QUEUE_VIDEO_ENCODE:
      *n_queues = hwctx->nb_encode_queues;
      return hwctx->queue_family_encode_index;
    default:
      *n_queues = 0;
      return -1;
  }
#endif
}
